/**
 * Row top-k at the leaf (issue 15): the lead-key prefilter (a threshold tightened as
 * candidates accumulate) and the per-batch zone-map skip must keep exactly the rows a full
 * sort keeps. Random tables with ties, NaN, ±Infinity, -0.0, NULLs and strings, in small
 * batches so that batches are skipped and thresholds tightened, against a plain sort of all
 * rows by the merge's own row order (the order DuckDB's is checked against in
 * e2e-duckdb.test.ts and truth-edges.test.ts).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import { layoutOf, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { failingShardsRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 's', type: 'string' },
    { name: 'ts', type: 'timestamp' },
  ],
};

const nullable = <T,>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null, freq: 8 });
// Small domains: many ties on the lead key, so the tie-break decides.
const row = fc.tuple(
  nullable(fc.oneof(fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1.5), fc.integer({ min: -20, max: 20 }).map((x) => x / 2))),
  nullable(fc.bigInt({ min: -30n, max: 30n })),
  nullable(fc.constantFrom('a', 'b', 'zz', '😀', '', 'ｚ')),
  nullable(fc.integer({ min: 0, max: 40 }).map((x) => 1_700_000_000_000_000 + x * 1_000_000)),
);

const orders = ['f DESC', 'f', 'i DESC', 'i', 's', 's DESC', 'ts DESC', 'i DESC, f', 'f NULLS FIRST', 'i DESC NULLS FIRST', 's NULLS FIRST, i', 'ts DESC NULLS FIRST', null] as const;

describe('row top-k: prefilter and batch skipping keep the rows a full sort keeps', () => {
  it('random tables, orders, limits and batch sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 0, maxLength: 1500 }),
        fc.constantFrom(...orders),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 300 }),
        fc.boolean(),
        async (rows, order, limit, batchRows, filtered) => {
          const table = shardsFromRows(SCHEMA, [rows], batchRows)[0]!;
          const shard = prepareShard(0, table, SCHEMA);
          const where = filtered ? ' WHERE i > -10' : '';
          const sql = `SELECT f, i, s, ts FROM t${where}${order === null ? '' : ` ORDER BY ${order}`} LIMIT ${limit}`;
          const plan = planQuery(sql, new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
          const layout = layoutOf(plan.scan, SCHEMA);
          const scan = await scanShard(shard, plan.scan, layout, new AbortController().signal);
          expect(scan.partial.type).toBe('rows');
          const got = scan.partial.type === 'rows' ? scan.partial.rows : [];
          // Reference: every row as the scan materialises it, sorted by the merge's order.
          const all: Scalar[][] = rows
            .filter((r) => !filtered || (r[1] !== null && r[1] > -10n))
            .map((r) => [r[0], r[1], r[2], r[3]]);
          const want = [...all].sort(layout.compareRows).slice(0, limit);
          expect(got.length).toBe(want.length);
          if (order === null) {
            // Without ORDER BY any `limit` matching rows will do (the scan stops once it has
            // them): each row returned is a distinct matching row.
            const left = [...all];
            for (const g of got) {
              const at = left.findIndex((r) => layout.compareRows(r, g) === 0);
              expect(at).toBeGreaterThanOrEqual(0);
              left.splice(at, 1);
            }
          } else {
            for (let k = 0; k < want.length; k++) expect(layout.compareRows(got[k]!, want[k]!)).toBe(0);
          }
          expect(scan.rowsScanned).toBe(rows.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('NULLS FIRST keeps the NULL rows first once the prefilter tightens (64+ candidates a batch)', async () => {
    // fast-check draws short arrays by default: these tables are long enough for the threshold
    // to tighten and for batches to be skipped.
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 200, maxLength: 700 }),
        fc.constantFrom('f NULLS FIRST', 'i DESC NULLS FIRST', 's NULLS FIRST, i', 'ts DESC NULLS FIRST, f', 'f DESC', 'i'),
        fc.integer({ min: 1, max: 12 }),
        fc.integer({ min: 64, max: 256 }),
        async (rows, order, limit, batchRows) => {
          const table = shardsFromRows(SCHEMA, [rows], batchRows)[0]!;
          const shard = prepareShard(0, table, SCHEMA);
          const plan = planQuery(`SELECT f, i, s, ts FROM t ORDER BY ${order} LIMIT ${limit}`, new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
          const layout = layoutOf(plan.scan, SCHEMA);
          const scan = await scanShard(shard, plan.scan, layout, new AbortController().signal);
          const got = scan.partial.type === 'rows' ? scan.partial.rows : [];
          const want = rows.map((r) => [r[0], r[1], r[2], r[3]] as Scalar[]).sort(layout.compareRows).slice(0, limit);
          expect(got.length).toBe(want.length);
          for (let k = 0; k < want.length; k++) expect(layout.compareRows(got[k]!, want[k]!)).toBe(0);
        },
      ),
      { numRuns: 30 },
    );
  });

  it("a proven floor (RowQuerySpec.floor: the root's zone-map threshold) keeps exactly the top rows, from the first batch on", async () => {
    const numericOrders = ['f DESC', 'f', 'i DESC', 'i', 'ts DESC', 'ts', 'i DESC, f', 'f DESC, s'] as const;
    await fc.assert(
      fc.asyncProperty(
        fc.array(row, { minLength: 1, maxLength: 1500 }),
        fc.constantFrom(...numericOrders),
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0, max: 5, noNaN: true }),
        async (rows, order, limit, batchRows, slack) => {
          const table = shardsFromRows(SCHEMA, [rows], batchRows)[0]!;
          const shard = prepareShard(0, table, SCHEMA);
          const plan = planQuery(`SELECT f, i, s, ts FROM t ORDER BY ${order} LIMIT ${limit}`, new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
          const layout = layoutOf(plan.scan, SCHEMA);
          const all: Scalar[][] = rows.map((r) => [r[0], r[1], r[2], r[3]]);
          const want = [...all].sort(layout.compareRows).slice(0, limit);
          const lead = plan.scan.rows!.orderBy[0]!;
          const kth = want.length === limit ? want[limit - 1]![lead.column] : null;
          // A floor is proven only when `limit` rows reach it (the k-th row is not NULL); any
          // value at or beyond the k-th row's (towards the end of the order) is one too.
          fc.pre(kth !== null && !(typeof kth === 'number' && Number.isNaN(kth)));
          const v = Number(kth);
          const floor = lead.desc ? v - slack : v + slack;
          const floored = { ...plan.scan, rows: { ...plan.scan.rows!, floor } };
          const scan = await scanShard(shard, floored, layoutOf(floored, SCHEMA), new AbortController().signal);
          const got = scan.partial.type === 'rows' ? scan.partial.rows : [];
          expect(got.length).toBe(want.length);
          for (let k = 0; k < want.length; k++) expect(layout.compareRows(got[k]!, want[k]!)).toBe(0);
          expect(scan.rowsScanned).toBe(rows.length);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('with a floor, batches whose zone map is worse are skipped before any row is kept', async () => {
    // Descending order wanted; values ascend over batches of 100, so only the last batch holds rows >= the floor.
    const rows = Array.from({ length: 5000 }, (_, k) => [k / 10, BigInt(k), 'x', 1_700_000_000_000_000] as Scalar[]);
    const table = shardsFromRows(SCHEMA, [rows], 100)[0]!;
    const shard = prepareShard(0, table, SCHEMA);
    const plan = planQuery('SELECT f, i FROM t WHERE i >= 0 AND f >= 0 ORDER BY f DESC LIMIT 3', new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
    const floored = { ...plan.scan, rows: { ...plan.scan.rows!, floor: 499.7 } };
    let evaluated = 0;
    const scan = await scanShard(shard, floored, layoutOf(floored, SCHEMA), new AbortController().signal, { onEvaluated: (n) => (evaluated += n) });
    expect(scan.partial.type === 'rows' ? scan.partial.rows : null).toEqual([[499.9, 4999n], [499.8, 4998n], [499.7, 4997n]]);
    expect(scan.rowsScanned).toBe(5000);
    // The WHERE's two operands ran over the last batch only (without the floor: over every batch,
    // since no row is kept until the first batch is scanned and each later one beats it).
    expect(evaluated).toBe(2 * 100);
  });

  it('skips batches whose zone map cannot beat the kept rows, with the same answer', async () => {
    // Ascending values in batches of 100: after the first batch every later one is skipped.
    const rows = Array.from({ length: 5000 }, (_, k) => [k / 10, BigInt(k), 'x', 1_700_000_000_000_000] as Scalar[]);
    const table = shardsFromRows(SCHEMA, [rows], 100)[0]!;
    const shard = prepareShard(0, table, SCHEMA);
    const plan = planQuery('SELECT f, i FROM t WHERE i >= 0 AND f >= 0 ORDER BY f LIMIT 5', new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
    let evaluated = 0;
    const scan = await scanShard(shard, plan.scan, layoutOf(plan.scan, SCHEMA), new AbortController().signal, { onEvaluated: (n) => (evaluated += n) });
    expect(scan.partial.type === 'rows' ? scan.partial.rows : null).toEqual([0, 0.1, 0.2, 0.3, 0.4].map((f, k) => [f, BigInt(k)]));
    expect(scan.rowsScanned).toBe(5000);
    // The AND chain's two operands ran over the first batch only.
    expect(evaluated).toBe(2 * 100);
  });
});

describe('row top-k in the tree: a failed chosen shard does not cost the answer its k rows', () => {
  // The root asks only the shards whose zone maps reach the k-th best shard extreme M, and the
  // leaves drop rows past M; when one of those fails, a second round chooses again among the
  // shards that did not fail. The answer (approximate: the failed shards are missing) must be
  // the first k rows of every other shard, in order, and name exactly the failed shards.
  it('random shards, failures, orders and limits: the first k rows of the shards that did not fail', async () => {
    const TS: TableSchema = { name: 't', columns: [{ name: 'v', type: 'float64' }, { name: 'i', type: 'int64' }] };
    const shardRows = fc.array(fc.tuple(fc.integer({ min: -30, max: 30 }).map((x) => x / 2), fc.bigInt({ min: 0n, max: 5n })), { minLength: 1, maxLength: 12 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(shardRows, { minLength: 2, maxLength: 9 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 8 }),
        fc.boolean(),
        fc.array(fc.nat(8), { maxLength: 3 }),
        async (shards, fanout, limit, desc, failIdx) => {
          const failing = [...new Set(failIdx.filter((f) => f < shards.length))];
          const root = failingShardsRoot(TS, { shards: shards.map((s) => s.map((r) => [...r])), fanout, failing });
          const sql = `SELECT v, i FROM t ORDER BY v${desc ? ' DESC' : ''}, i LIMIT ${limit}`;
          if (failing.length === shards.length) {
            await expect(root.query({ sql }, new AbortController().signal)).rejects.toMatchObject({ code: 'CANOPY_ERR_NO_COVERAGE' });
            return;
          }
          const a = await root.query({ sql }, new AbortController().signal);
          const top = (rows: (readonly [number, bigint])[]): (number | bigint)[][] =>
            [...rows].sort((x, y) => (desc ? y[0] - x[0] : x[0] - y[0]) || Number(x[1] - y[1])).slice(0, limit).map((r) => [r[0], r[1]]);
          expect(a.rows).toEqual(top(shards.flatMap((s, id) => (failing.includes(id) ? [] : s))));
          // A failed shard the catalog proved irrelevant (never asked) is not missing.
          const missing = a.missing.map((m) => m.shard);
          expect(missing.every((m) => failing.includes(m))).toBe(true);
          if (missing.length === 0) expect(a.label).toBe('exact');
          else expect(['exact', 'approximate']).toContain(a.label);
          // Exact with a failed shard only when the zone maps prove it irrelevant: then it must be.
          if (a.label === 'exact') expect(a.rows).toEqual(top(shards.flat()));
        },
      ),
      { numRuns: 150 },
    );
  });
});
