/**
 * Prometheus metrics of a node, on an injected prom-client Registry (never the default,
 * module-level one). Names follow Prometheus conventions: `canopy_..._seconds`, `_total`.
 */
import { Counter, Gauge, Histogram, type Registry } from 'prom-client';
import type { Admission } from './admission.ts';
import type { ReplyBytes } from './http-child.ts';

/** Request metrics every node's HTTP face records. */
export interface NodeHttpMetrics {
  readonly registry: Registry;
  readonly requestSeconds: Histogram<'node' | 'outcome'>;
  /**
   * Reports a node's admission control at scrape time as `canopy_node_requests_in_flight`,
   * `canopy_node_requests_queued` and `canopy_node_admission_rejects_total` (label `node`).
   * Called by `buildNodeApp`; a second call for the same node replaces the first.
   */
  track(node: string, admission: Admission): void;
}

/** Latency buckets in seconds, 1 ms to 30 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Registers the request histogram and the admission gauges of a node on `registry`. */
export function nodeHttpMetrics(registry: Registry): NodeHttpMetrics {
  const admissions = new Map<string, Admission>();
  new Gauge({
    name: 'canopy_node_requests_in_flight',
    help: 'Partial requests running at the node (admitted, not finished)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      for (const [node, a] of admissions) this.set({ node }, a.inFlight);
    },
  });
  new Gauge({
    name: 'canopy_node_requests_queued',
    help: 'Partial requests waiting for admission at the node',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      for (const [node, a] of admissions) this.set({ node }, a.queued);
    },
  });
  new Counter({
    name: 'canopy_node_admission_rejects_total',
    help: 'Partial requests refused by admission control (503: queue full, or waited as long as the deadline allows)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [node, a] of admissions) this.inc({ node }, a.refused);
    },
  });
  return {
    registry,
    requestSeconds: new Histogram({ name: 'canopy_node_request_seconds', help: 'Time to answer a partial request, by node and outcome', labelNames: ['node', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] }),
    track(node, admission) {
      admissions.set(node, admission);
    },
  };
}

/**
 * A counter whose value is read from `value()` at scrape time (for counts a node already keeps).
 * @param name metric name ending in `_total`
 */
export function readCounter(registry: Registry, name: string, help: string, value: () => number): Counter {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(value());
    },
  });
}

/**
 * Reports a process's {@link ReplyBytes} on `registry`: `canopy_reply_bytes_held` (bytes of
 * child replies received by requests still in flight) and `canopy_reply_bytes_total`.
 */
export function replyBytesMetrics(registry: Registry, bytes: ReplyBytes): void {
  new Gauge({
    name: 'canopy_reply_bytes_held',
    help: 'Bytes of child replies received by requests still in flight (held for queries in progress)',
    registers: [registry],
    collect() {
      this.set(bytes.held);
    },
  });
  readCounter(registry, 'canopy_reply_bytes_total', 'Bytes of child replies received', () => bytes.total);
}
