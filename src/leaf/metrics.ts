/** A leaf's Prometheus metrics, read from its counters at scrape time (injected registry). */
import type { Registry } from 'prom-client';
import { readCounter } from '../transport/index.ts';
import type { LeafNode } from './node.ts';

/** Registers rows scanned, requests and cancellations of `leaf` on `registry`. */
export function leafMetrics(registry: Registry, leaf: LeafNode): void {
  readCounter(registry, 'canopy_leaf_rows_scanned_total', 'Rows read by this leaf (updated after every record batch)', () => leaf.counters.rowsScanned);
  readCounter(registry, 'canopy_leaf_requests_total', 'Partial requests this leaf answered', () => leaf.counters.requests);
  readCounter(registry, 'canopy_leaf_cancellations_total', 'Scans stopped by cancellation or deadline', () => leaf.counters.cancelled);
}
