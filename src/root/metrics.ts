/**
 * The root's Prometheus metrics on an injected registry: query latency next to per-child
 * latency, coverage, the share of partial answers, shards by outcome and error code,
 * admission (queue length, wait, refusals).
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { GatherTiming } from '../merge/index.ts';
import { LATENCY_BUCKETS, RequestHistogram, WAIT_BUCKETS, readCounter, type Admission } from '../transport/index.ts';
import type { MissingShard, QueryAnswer } from './engine.ts';

/** Metrics the root records per query. */
export interface RootMetrics {
  readonly registry: Registry;
  /** Records one answered query. */
  answered(a: QueryAnswer, seconds: number): void;
  /**
   * Records one failed query by error code; `missing` (the `details.missing` of a
   * CANOPY_ERR_NO_COVERAGE) counts its shards by outcome.
   */
  failed(code: string, seconds: number, missing?: readonly MissingShard[]): void;
  /** Records a child's latency (as `RootOptions.onTiming`). */
  child(t: GatherTiming): void;
  /** Records how long an admitted query waited for its slot. */
  admissionWait(seconds: number): void;
}

/** Registers the root's metrics. `admission` is read at scrape time. */
export function rootMetrics(registry: Registry, admission: Admission): RootMetrics {
  const duration = new Histogram({ name: 'canopy_query_duration_seconds', help: 'Root query latency from request to answer, by answer label (exact, bounded, approximate, or error)', labelNames: ['label'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const childLatency = new RequestHistogram<'child' | 'outcome'>({ name: 'canopy_child_latency_seconds', help: 'Latency of the root children, by child and outcome', labelNames: ['child', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const queries = new Counter({ name: 'canopy_queries_total', help: 'Queries by outcome (exact, bounded, approximate, or an error code)', labelNames: ['outcome'], registers: [registry] });
  const partial = new Counter({ name: 'canopy_partial_answers_total', help: 'Answers returned with shards missing', registers: [registry] });
  const coverage = new Histogram({ name: 'canopy_query_coverage_ratio', help: 'Share of shards answered or pruned per answered query', buckets: [0.5, 0.8, 0.9, 0.95, 0.99, 1], registers: [registry] });
  const shards = new Counter({
    name: 'canopy_query_shards_total',
    help: 'Shards of answered and failed queries by outcome (answered, pruned, failed, omitted) and error code (empty for answered and pruned)',
    labelNames: ['outcome', 'code'],
    registers: [registry],
  });
  const wait = new Histogram({ name: 'canopy_admission_wait_seconds', help: 'Time an admitted query waited in the root admission queue', buckets: WAIT_BUCKETS, registers: [registry] });
  new Gauge({ name: 'canopy_queries_in_flight', help: 'Queries running at the root', registers: [registry], collect() { this.set(admission.inFlight); } });
  new Gauge({ name: 'canopy_queries_queued', help: 'Queries waiting for admission at the root', registers: [registry], collect() { this.set(admission.queued); } });
  readCounter(registry, 'canopy_admission_rejects_total', 'Queries refused by root admission control (queue full, or waited as long as the deadline allows)', () => admission.refused);
  const countMissing = (missing: readonly MissingShard[]): void => {
    for (const m of missing) if (m.reason !== 'pending') shards.inc({ outcome: m.reason, code: m.error?.code ?? (m.reason === 'omitted' ? 'CANOPY_ERR_DEADLINE' : 'CANOPY_ERR_INTERNAL') });
  };
  return {
    registry,
    answered(a, seconds) {
      duration.observe({ label: a.label }, seconds);
      queries.inc({ outcome: a.label });
      if (a.missing.length > 0) partial.inc();
      coverage.observe((a.coverage.answered + a.coverage.pruned) / Math.max(1, a.coverage.shards));
      if (a.coverage.answered > 0) shards.inc({ outcome: 'answered', code: '' }, a.coverage.answered);
      if (a.coverage.pruned > 0) shards.inc({ outcome: 'pruned', code: '' }, a.coverage.pruned);
      countMissing(a.missing);
    },
    failed(code, seconds, missing) {
      duration.observe({ label: 'error' }, seconds);
      queries.inc({ outcome: code });
      if (missing !== undefined) countMissing(missing);
    },
    child(t) {
      childLatency.observe({ child: t.child, outcome: t.outcome }, t.elapsedMs / 1000);
    },
    admissionWait(seconds) {
      wait.observe(seconds);
    },
  };
}
