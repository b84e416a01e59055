/**
 * Test helpers: build a whole canopy tree in-process over rows pinned to shards.
 */
import { expect, it } from 'vitest';
import { CanopyError } from '../../src/merge/errors.ts';
import { catalogFromShards, shardsFromRows } from '../../src/data/index.ts';
import { createLeaf, prepareShard, withFaults, type LeafNode } from '../../src/leaf/index.ts';
import { decodeFrame, encodeFrame, requestLayout, type PartitionSpec, type Scalar, type TableSchema } from '../../src/merge/index.ts';
import { answerToJSON, buildTree, type Root, type TreeNode, type TreeSpec } from '../../src/root/index.ts';
import type { CanopyBody } from './compare.ts';
import type { Child, Clock, NodeHandler } from '../../src/transport/index.ts';

/** An in-process tree over `shards` (rows per shard), with its leaves for inspection. */
export interface TestTree {
  readonly root: Root;
  readonly leaves: Map<number, LeafNode>;
  readonly layout: TreeNode[];
}

/**
 * Builds an in-process tree. `wrap` may replace a leaf's handler (fault injection in tests);
 * `partition` is what the catalog says of the shards (default `file`; `hash` allows estimates);
 * `clock` drives every node's time and timers (default the system clock; a VirtualClock in the simulator).
 */
export function inProcessRoot(
  schema: TableSchema,
  shards: readonly (readonly (readonly Scalar[])[])[],
  opts: { fanout?: number; depth?: number; batchRows?: number; partition?: PartitionSpec; wrap?: (leaf: LeafNode) => NodeHandler | Child; clock?: Clock; root?: TreeSpec['root'] } = {},
): TestTree {
  const tables = shardsFromRows(schema, shards, opts.batchRows);
  const catalog = catalogFromShards(schema, tables, opts.partition);
  const leaves = new Map<number, LeafNode>();
  const clock = opts.clock === undefined ? {} : { clock: opts.clock };
  tables.forEach((t, id) => leaves.set(id, createLeaf(`leaf-${id}`, [prepareShard(id, t, schema)], clock)));
  const { root, layout } = buildTree({
    table: schema.name,
    catalog,
    fanout: opts.fanout ?? 10,
    ...(opts.depth === undefined ? {} : { depth: opts.depth }),
    leaf: (node) => {
      const leaf = leaves.get(node.shards[0]!)!;
      return opts.wrap ? opts.wrap(leaf) : leaf.handler;
    },
    ...clock,
    ...(opts.root === undefined ? {} : { root: opts.root }),
  });
  return { root, leaves, layout };
}

/**
 * A leaf handler whose every frame goes through the wire (encodeFrame, then decodeFrame, as a
 * parent in another process reads it): an in-process tree otherwise hands its parents the
 * partial objects themselves, and a state a kind cannot encode or read back goes unseen.
 */
export function throughWire(handler: NodeHandler): NodeHandler {
  return async function* wired(req, signal) {
    const layout = requestLayout(req.queryId, req.plan, req.schema);
    for await (const f of handler(req, signal)) yield decodeFrame(layout, encodeFrame(layout, f));
  };
}

/** Runs SQL through a root and returns the answer. */
export async function ask(root: Root, sql: string, extra: { deadline_ms?: number; shard_size?: number; exact?: boolean } = {}) {
  return root.query({ sql, ...extra }, new AbortController().signal);
}

/** One cell's label in an answer's JSON body (null: the answer's own label holds for it). */
export type CellLabel = { label: string; lo: unknown; hi: unknown } | null;

/** An answer as the HTTP API's JSON body, with its per-cell labels. */
export type AnswerBody = CanopyBody & { rows_complete: boolean; cells?: CellLabel[][] };

/** Runs SQL through a root and returns the answer as the HTTP API's JSON body. */
export async function answerBody(root: Root, sql: string): Promise<AnswerBody> {
  return answerToJSON(await ask(root, sql)) as unknown as AnswerBody;
}

/**
 * An in-process tree over split rows (`shards`, a fan-out) whose leaves holding any of the
 * `failing` shards answer with an injected error: the shape the DuckDB property tests draw.
 */
export function failingShardsRoot(schema: TableSchema, t: { readonly shards: Scalar[][][]; readonly fanout: number; readonly failing: readonly number[] }): Root {
  return inProcessRoot(schema, t.shards, {
    fanout: t.fanout,
    wrap: (leaf) => (t.failing.some((s) => leaf.shards.includes(s)) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
  }).root;
}

/** A query canopy must refuse: its SQL, the CanopyError code and a pattern of its message. */
export type Refusal = readonly [sql: string, code: string, message: RegExp];

/** One `it` per refusal: `root` refuses the SQL with that code and a message matching the pattern. */
export function itRefuses(root: Root, cases: readonly Refusal[]): void {
  for (const [sql, code, message] of cases) {
    it(sql, async () => {
      await expect(ask(root, sql)).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    });
  }
}

/** The CanopyError `root` answers `sql` with (fails the test if it answers). */
export async function refusal(root: Root, sql: string): Promise<CanopyError> {
  try {
    await ask(root, sql);
  } catch (e) {
    expect(e).toBeInstanceOf(CanopyError);
    return e as CanopyError;
  }
  throw new Error(`canopy answered ${sql}`);
}

/** 1-based line and column of `offset` (UTF-16 units) in `text`. */
export function lineColumn(text: string, offset: number): { line: number; column: number } {
  const lines = text.slice(0, offset).split('\n');
  return { line: lines.length, column: lines[lines.length - 1]!.length + 1 };
}

/**
 * `rows` cut into consecutive shards at `cuts` (each taken modulo rows + 1, deduplicated and
 * sorted): fast-check's random shard splits, empty shards included.
 */
export function cutShards<T>(rows: readonly T[], cuts: readonly number[]): T[][] {
  const ends = [...new Set(cuts.map((c) => c % (rows.length + 1)))].sort((a, b) => a - b);
  return [0, ...ends, rows.length].slice(1).map((end, i, all) => rows.slice(i === 0 ? 0 : all[i - 1], end));
}
