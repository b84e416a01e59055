/** The leaves' Prometheus metrics of a process, read from each leaf's counters at scrape time (injected registry). */
import type { Registry } from 'prom-client';
import { nodeReadings } from '../transport/index.ts';
import type { LeafNode } from './node.ts';

/** The leaves of one process on one registry. */
export interface LeafMetrics {
  /** Reports `leaf`'s rows scanned, requests and cancellations under `{node: leaf.name}`. */
  add(leaf: LeafNode): void;
}

/**
 * Registers `canopy_leaf_rows_scanned_total`, `canopy_leaf_requests_total` and
 * `canopy_leaf_cancellations_total` (label `node`) on `registry`: call once per registry.
 */
export function leafMetrics(registry: Registry): LeafMetrics {
  const rows = nodeReadings(registry, 'counter', 'canopy_leaf_rows_scanned_total', 'Rows read by the leaf (updated after every record batch), by node');
  const requests = nodeReadings(registry, 'counter', 'canopy_leaf_requests_total', 'Partial requests the leaf answered (whole or stopped), by node');
  const cancelled = nodeReadings(registry, 'counter', 'canopy_leaf_cancellations_total', 'Scans the leaf stopped because the request was cancelled or its deadline passed, by node');
  return {
    add(leaf) {
      rows.add(leaf.name, () => leaf.counters.rowsScanned);
      requests.add(leaf.name, () => leaf.counters.requests);
      cancelled.add(leaf.name, () => leaf.counters.cancelled);
    },
  };
}
