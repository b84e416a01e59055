/**
 * The root's Prometheus metrics on an injected registry: query latency next to per-child
 * latency, coverage, the share of partial answers, admission and early termination.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { GatherTiming } from '../merge/index.ts';
import { LATENCY_BUCKETS, readCounter, type Admission } from '../transport/index.ts';
import type { QueryAnswer, Root } from './engine.ts';

/** Metrics the root records per query. */
export interface RootMetrics {
  readonly registry: Registry;
  /** Records one answered query. */
  answered(a: QueryAnswer, seconds: number): void;
  /** Records one failed query by error code. */
  failed(code: string, seconds: number): void;
  /** Records a child's latency (as `RootOptions.onTiming`). */
  child(t: GatherTiming): void;
}

/** Registers the root's metrics. `root` and `admission` are read at scrape time. */
export function rootMetrics(registry: Registry, root: () => Root | undefined, admission: Admission): RootMetrics {
  const duration = new Histogram({ name: 'canopy_query_duration_seconds', help: 'Root query latency, by answer label (or error)', labelNames: ['label'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const childLatency = new Histogram({ name: 'canopy_child_latency_seconds', help: 'Latency of the root children, by child and outcome', labelNames: ['child', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] });
  const queries = new Counter({ name: 'canopy_queries_total', help: 'Queries by outcome (exact, bounded, approximate, or an error code)', labelNames: ['outcome'], registers: [registry] });
  const partial = new Counter({ name: 'canopy_partial_answers_total', help: 'Answers returned with shards missing', registers: [registry] });
  const coverage = new Histogram({ name: 'canopy_query_coverage_ratio', help: 'Share of shards answered or pruned per query', buckets: [0.5, 0.8, 0.9, 0.95, 0.99, 1], registers: [registry] });
  new Gauge({ name: 'canopy_queries_in_flight', help: 'Queries running at the root', registers: [registry], collect() { this.set(admission.inFlight); } });
  new Gauge({ name: 'canopy_queries_queued', help: 'Queries waiting for admission', registers: [registry], collect() { this.set(admission.queued); } });
  readCounter(registry, 'canopy_admission_rejects_total', 'Queries refused by admission control (queue full, or waited as long as the deadline allows)', () => admission.refused);
  readCounter(registry, 'canopy_early_stops_total', 'Root gathers stopped early because the rest could not change the answer', () => root()?.counters.earlyStops ?? 0);
  return {
    registry,
    answered(a, seconds) {
      duration.observe({ label: a.label }, seconds);
      queries.inc({ outcome: a.label });
      if (a.missing.length > 0) partial.inc();
      coverage.observe((a.coverage.answered + a.coverage.pruned) / Math.max(1, a.coverage.shards));
    },
    failed(code, seconds) {
      duration.observe({ label: 'error' }, seconds);
      queries.inc({ outcome: code });
    },
    child(t) {
      childLatency.observe({ child: t.child, outcome: t.outcome }, t.elapsedMs / 1000);
    },
  };
}
