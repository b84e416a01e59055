/**
 * The one seam between tiers: a child takes a plan fragment, the shards it must answer
 * for, a remaining budget and an AbortSignal, and yields frames. The last frame it yields
 * is its answer; earlier ones (progressive updates) may be superseded.
 * Implementations: HTTP (undici), in-process (direct call of a node's handler) and, for
 * benchmarks, simulated.
 */
import type { Frame, ScanPlan, ShardInfo, TableSchema } from '../merge/index.ts';

/** What a parent sends a child. */
export interface ChildRequest {
  /** Opaque id shared by every hop of one query (logs, tracing). */
  readonly queryId: string;
  readonly schema: TableSchema;
  readonly plan: ScanPlan;
  /** Shard ids the child must answer for (each exactly once in its provenance). */
  readonly shards: readonly number[];
  /** Remaining budget in ms when the request is sent (clocks of different machines are never compared). */
  readonly budgetMs: number;
  /** Ask aggregators to report their per-child timings in their frames. */
  readonly trace?: boolean;
  /** Ask aggregators for progressive updates (coalesced frames with `final: false`) before the answer. */
  readonly stream?: boolean;
  /**
   * Catalog entries of the shards asked, sent where early termination can apply, so a gather
   * can stop once the outstanding shards provably cannot change its answer.
   */
  readonly stats?: readonly ShardInfo[];
}

/** A node's request handler: a leaf's scan or an aggregator's gather. */
export type NodeHandler = (req: ChildRequest, signal: AbortSignal) => AsyncIterable<Frame>;

/** A child as seen by its parent's gather. */
export interface Child {
  /** Name used in subtree paths, e.g. `agg-3` or `leaf-27`. */
  readonly name: string;
  /** Shard ids this child serves. */
  readonly shards: readonly number[];
  /** Runs the request; the last frame yielded is the answer. Must stop when `signal` aborts. */
  query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame>;
}

/** Header carrying the remaining budget in ms (like grpc-timeout). */
export const BUDGET_HEADER = 'x-canopy-budget-ms';

/**
 * Header carrying the sender's wall clock (ms since 1970) when the request left. Read only over
 * loopback, where sender and receiver share one clock: the time the request waited in socket
 * buffers while the receiver's event loop was busy is then taken out of its budget too.
 */
export const SENT_AT_HEADER = 'x-canopy-sent-at';

/** Route every node serves partials on. */
export const PARTIAL_ROUTE = '/v1/partial';

/** An in-process child: calls a node's handler directly (fast tests, one process). */
export function inProcessChild(name: string, shards: readonly number[], handler: NodeHandler): Child {
  return { name, shards, query: (req, signal) => handler(req, signal) };
}
