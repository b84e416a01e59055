/**
 * Test helpers: an in-process canopy tree whose leaves are replica sets (each shard served
 * by several in-process leaves in zones), under one TailControl, and latency-controlled
 * children for unit tests of the tail layer. Timers are whatever `setTimeout` is when a
 * request runs, so fake timers apply.
 */
import type { ReplicaSetChild, TailControl } from '../../src/aggregator/index.ts';
import { catalogFromShards, shardsFromRows } from '../../src/data/index.ts';
import { createLeaf, prepareShard, type LeafNode } from '../../src/leaf/index.ts';
import { CanopyError, type Frame, type Scalar, type TableSchema } from '../../src/merge/index.ts';
import { buildTree, type ReplicaPlacement, type Root, type TreeNode } from '../../src/root/index.ts';
import type { Child, ChildRequest, Clock, NodeHandler } from '../../src/transport/index.ts';

/** A replicated in-process tree. */
export interface ReplicatedTestTree {
  readonly root: Root;
  /** The tail control shared by every replica set (absent when none was given). */
  readonly tail: TailControl | undefined;
  /** Replica sets by shard id. */
  readonly sets: Map<number, ReplicaSetChild>;
  /** Replica leaves by name (`leaf-3.r1`) with their placement. */
  readonly replicas: Map<string, { readonly leaf: LeafNode; readonly placement: ReplicaPlacement }>;
  readonly layout: TreeNode[];
}

/**
 * Builds an in-process tree over `shards` (rows per shard) with `replicas` replicas per shard
 * in `zones` zones (round-robin), replica sets under `tail`. `wrap` may replace a replica's
 * handler (fault injection, latencies) and `rows` may give one replica different data (a
 * diverging replica).
 */
export function replicatedRoot(
  schema: TableSchema,
  shards: readonly (readonly (readonly Scalar[])[])[],
  opts: {
    replicas?: number;
    zones?: number;
    fanout?: number;
    depth?: number;
    tail?: TailControl;
    wrap?: (leaf: LeafNode, placement: ReplicaPlacement, shard: number) => NodeHandler | Child;
    rows?: (placement: ReplicaPlacement, shard: number) => readonly (readonly Scalar[])[] | undefined;
    /** The root's clock (e.g. `Date.now` under fake timers, so `stats.elapsed_ms` is fake time). */
    clock?: Clock;
  } = {},
): ReplicatedTestTree {
  const r = opts.replicas ?? 2;
  const tables = shardsFromRows(schema, shards);
  const catalog = catalogFromShards(schema, tables);
  const replicas = new Map<string, { leaf: LeafNode; placement: ReplicaPlacement }>();
  const { root, layout, nodes } = buildTree({
    table: schema.name,
    catalog,
    fanout: opts.fanout ?? 10,
    ...(opts.depth === undefined ? {} : { depth: opts.depth }),
    replicas: r,
    zones: opts.zones ?? r,
    tail: () => opts.tail,
    leaf: (node, { replica }) => {
      const id = node.shards[0]!;
      const p = replica ?? { name: node.name, zone: 'a', index: 0 };
      const own = opts.rows?.(p, id);
      const table = own === undefined ? tables[id]! : shardsFromRows(schema, [own])[0]!;
      const leaf = createLeaf(p.name, [prepareShard(id, table, schema)]);
      replicas.set(p.name, { leaf, placement: p });
      return opts.wrap ? opts.wrap(leaf, p, id) : leaf.handler;
    },
    ...(opts.clock === undefined ? {} : { root: { clock: opts.clock } }),
  });
  const sets = new Map<number, ReplicaSetChild>();
  for (const id of tables.keys()) sets.set(id, nodes.get(`leaf-${id}`) as ReplicaSetChild);
  return { root, tail: opts.tail, sets, replicas, layout };
}

/** Sleeps `ms` on the current `setTimeout` (fake timers apply); rejects with the signal's reason on abort unless `ignoreAbort`. */
export function sleep(ms: number, signal: AbortSignal, ignoreAbort = false): Promise<void> {
  return new Promise((resolve, reject) => {
    if (!ignoreAbort && signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      clearTimeout(h);
      reject(signal.reason as Error);
    };
    const h = setTimeout(() => {
      if (!ignoreAbort) signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    if (!ignoreAbort) signal.addEventListener('abort', onAbort, { once: true });
  });
}

/** What a controlled child saw of one request. */
export interface SeenRequest {
  readonly req: ChildRequest;
  readonly signal: AbortSignal;
}

/** A controlled child: its requests, and knobs that can change between requests. */
export interface ControlledChild extends Child {
  readonly seen: SeenRequest[];
  /** Latency of the next requests, ms (a function draws one per request). */
  latency: number | (() => number);
  /** Fail instead of answering. */
  fail: boolean;
  /** Keep going after an abort and answer anyway (a child that does not honour cancellation). */
  ignoreAbort: boolean;
}

/**
 * A child wrapping `handler` (e.g. a leaf's) that waits `latency` ms first, records each
 * request and its signal, and can fail or ignore aborts on demand.
 */
export function controlledChild(name: string, shards: readonly number[], handler: NodeHandler, latency: number | (() => number) = 0): ControlledChild {
  const c: ControlledChild = {
    name,
    shards,
    seen: [],
    latency,
    fail: false,
    ignoreAbort: false,
    query: async function* (req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
      c.seen.push({ req, signal });
      const ms = typeof c.latency === 'function' ? c.latency() : c.latency;
      await sleep(ms, signal, c.ignoreAbort);
      if (c.fail) throw new CanopyError('CANOPY_ERR_INTERNAL', `${name} failed on purpose`);
      const detached = c.ignoreAbort ? new AbortController().signal : signal;
      let last: Frame | undefined;
      for await (const f of handler(req, detached)) last = f;
      if (last !== undefined) yield last;
    },
  };
  return c;
}
