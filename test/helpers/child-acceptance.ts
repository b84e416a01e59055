/**
 * One acceptance suite for the Child interface (STYLE: "an aggregator must behave like a big
 * leaf"), run by test/child-acceptance.test.ts over every implementation: an in-process
 * leaf, a leaf over HTTP, an aggregator over leaves, a replica set, and a simulated leaf.
 *
 * A factory builds a child serving `shards` (rows per shard id) of {@link ACCEPTANCE_SCHEMA};
 * `run` drives a query to completion in the child's time model (the simulated leaf runs on a
 * virtual clock; the others in real time, with no timed assertion).
 */
import { describe, expect, it } from 'vitest';
import { catalogFromShards, shardsFromRows } from '../../src/data/index.ts';
import { isCanopyError, type Frame, type Scalar, type TableSchema } from '../../src/merge/index.ts';
import { DEFAULT_LIMITS, buildTree, planQuery, type Root } from '../../src/root/index.ts';
import type { Child, ChildRequest } from '../../src/transport/index.ts';

export const ACCEPTANCE_SCHEMA: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'x', type: 'int64' }] };

/** Four shards of rows (g, x): groups a, b, c spread unevenly; shard 3 has a NULL x. */
export const ACCEPTANCE_ROWS: readonly (readonly Scalar[])[][] = [
  [['a', 1n], ['b', 2n], ['a', 3n]],
  [['b', 10n], ['c', 20n]],
  [['a', 100n], ['a', 200n], ['c', 300n], ['b', 400n]],
  [['c', null], ['c', 7n]],
];

/** What a factory returns: the child, how to run a promise in its time model, and how to clean up. */
export interface ChildUnderTest {
  readonly child: Child;
  readonly run?: <T>(start: () => Promise<T>) => Promise<T>;
  readonly close?: () => Promise<void>;
}

/** Builds a child serving the given shards (ids 0..n-1 of `shards`). */
export type ChildFactory = (schema: TableSchema, shards: readonly (readonly (readonly Scalar[])[])[]) => Promise<ChildUnderTest>;

const SQL = 'SELECT g, count(*) AS n, sum(x) AS s, min(x) AS lo FROM t GROUP BY g ORDER BY g';

function truth(rows: readonly (readonly Scalar[])[][]): Scalar[][] {
  const by = new Map<string, { n: bigint; s: bigint | null; lo: bigint | null }>();
  for (const r of rows.flat()) {
    const g = r[0] as string;
    const x = r[1] as bigint | null;
    const e = by.get(g) ?? { n: 0n, s: null, lo: null };
    e.n++;
    if (x !== null) {
      e.s = (e.s ?? 0n) + x;
      e.lo = e.lo === null || x < e.lo ? x : e.lo;
    }
    by.set(g, e);
  }
  return [...by].sort(([a], [b]) => (a < b ? -1 : 1)).map(([g, e]) => [g, e.n, e.s, e.lo]);
}

function request(shards: readonly number[], extra: Partial<ChildRequest> = {}): ChildRequest {
  return { queryId: 'acceptance', schema: ACCEPTANCE_SCHEMA, plan: planQuery(SQL, new Map([['t', ACCEPTANCE_SCHEMA]]), DEFAULT_LIMITS).scan, shards, budgetMs: 10_000, ...extra };
}

async function frames(c: ChildUnderTest, req: ChildRequest, signal: AbortSignal): Promise<Frame[]> {
  const collect = async (): Promise<Frame[]> => {
    const out: Frame[] = [];
    for await (const f of c.child.query(req, signal)) out.push(f);
    return out;
  };
  return c.run === undefined ? collect() : c.run(collect);
}

const num = (v: Scalar): Scalar => (typeof v === 'bigint' ? v : typeof v === 'number' ? BigInt(v) : v);

/** Registers the acceptance tests of one Child implementation. */
export function describeChild(name: string, make: ChildFactory): void {
  describe(`Child acceptance: ${name}`, () => {
    it('under a root, answers exactly what one scan of its shards gives, every shard once', async () => {
      const c = await make(ACCEPTANCE_SCHEMA, ACCEPTANCE_ROWS);
      try {
        const tables = shardsFromRows(ACCEPTANCE_SCHEMA, ACCEPTANCE_ROWS);
        const leaf = { kind: 'leaf' as const, name: c.child.name, shards: c.child.shards, children: [] };
        const { root } = buildTree({ table: 't', catalog: catalogFromShards(ACCEPTANCE_SCHEMA, tables), layout: [leaf], leaf: () => c.child });
        const ask = (): Promise<Awaited<ReturnType<Root['query']>>> => root.query({ sql: SQL }, new AbortController().signal);
        const a = c.run === undefined ? await ask() : await c.run(ask);
        expect(a.label).toBe('exact');
        expect(a.rows.map((r) => r.map(num))).toEqual(truth(ACCEPTANCE_ROWS));
        expect(a.provenance.map((p) => `${p.shard}:${p.status}`).sort()).toEqual(['0:answered', '1:answered', '2:answered', '3:answered']);
        expect(a.stats.rows_scanned).toBe(ACCEPTANCE_ROWS.flat().length);
      } finally {
        await c.close?.();
      }
    });

    it('asked for some of its shards, accounts for exactly those, and its last frame is final', async () => {
      const c = await make(ACCEPTANCE_SCHEMA, ACCEPTANCE_ROWS);
      try {
        const fs = await frames(c, request([1, 3]), new AbortController().signal);
        expect(fs.length).toBeGreaterThan(0);
        const last = fs.at(-1)!;
        expect(last.final).not.toBe(false);
        expect(last.provenance.map((p) => `${p.shard}:${p.status}`).sort()).toEqual(['1:answered', '3:answered']);
        expect(last.rowsScanned).toBe(ACCEPTANCE_ROWS[1]!.length + ACCEPTANCE_ROWS[3]!.length);
      } finally {
        await c.close?.();
      }
    });

    it('streaming (stream: true): updates are marked not final, and the answer is the same as without', async () => {
      const c = await make(ACCEPTANCE_SCHEMA, ACCEPTANCE_ROWS);
      try {
        const plain = await frames(c, request([0, 1, 2, 3]), new AbortController().signal);
        const streamed = await frames(c, request([0, 1, 2, 3], { stream: true }), new AbortController().signal);
        for (const f of streamed.slice(0, -1)) expect(f.final).toBe(false);
        const strip = (f: Frame): unknown => ({ partial: f.partial, rowsScanned: f.rowsScanned, provenance: [...f.provenance].map((p) => p.shard).sort() });
        expect(strip(streamed.at(-1)!)).toEqual(strip(plain.at(-1)!));
      } finally {
        await c.close?.();
      }
    });

    it('a cancelled query rejects with a coded error instead of answering', async () => {
      const c = await make(ACCEPTANCE_SCHEMA, ACCEPTANCE_ROWS);
      try {
        const ctl = new AbortController();
        ctl.abort(new Error('the parent went away'));
        const e = await frames(c, request([0, 1, 2, 3]), ctl.signal).then(
          () => null,
          (x: unknown) => x,
        );
        expect(e).not.toBeNull();
        // Either the child's own cancellation code, or the parent's reason passed through.
        expect(isCanopyError(e) ? e.code : (e as Error).message).toMatch(/CANOPY_ERR_CANCELLED|the parent went away|abort/i);
      } finally {
        await c.close?.();
      }
    });
  });
}
