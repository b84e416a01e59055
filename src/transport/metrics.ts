/**
 * Prometheus metrics of a node, on an injected prom-client Registry (never the default,
 * module-level one). Names follow Prometheus conventions: `canopy_..._seconds`, `_total`.
 */
import { Counter, Histogram, type Registry } from 'prom-client';

/** Request metrics every node's HTTP face records. */
export interface NodeHttpMetrics {
  readonly registry: Registry;
  readonly requestSeconds: Histogram<'node' | 'outcome'>;
}

/** Latency buckets in seconds, 1 ms to 30 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Registers the request histogram of a node on `registry`. */
export function nodeHttpMetrics(registry: Registry): NodeHttpMetrics {
  return {
    registry,
    requestSeconds: new Histogram({ name: 'canopy_node_request_seconds', help: 'Time to answer a partial request, by node and outcome', labelNames: ['node', 'outcome'], buckets: LATENCY_BUCKETS, registers: [registry] }),
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
