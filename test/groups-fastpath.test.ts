/**
 * The fast paths of high-cardinality grouping (issue #15, item 4) against brute force:
 * the leaf's typed-array hash table for numeric keys of unbounded range, the gather's top-k
 * bookkeeping that records nothing per group while every child reports all its groups, and
 * exact group top-k (TPUT rounds, the one-column IN candidate filter), over random keys with
 * NULL, NaN, -0, int64 extremes and empty shards.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { groupKeyString, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { inProcessRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 'ts', type: 'timestamp' },
  ],
};

const I64_MIN = -(2n ** 63n);
const I64_MAX = 2n ** 63n - 1n;
const floatKey = fc.constantFrom<Scalar>(null, NaN, -0, 0, 1.5, -1.5, Infinity, -Infinity, 2 ** 53, 1e300, 5e-324);
const intKey = fc.oneof(fc.constantFrom<Scalar>(null, I64_MIN, I64_MAX, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 0n, -1n), fc.bigInt({ min: -5n, max: 5n }), fc.bigInt({ min: I64_MIN, max: I64_MAX }));
const tsKey = fc.oneof(fc.constant<Scalar>(null), fc.integer({ min: 0, max: 6 }).map((k) => 978_307_200_000_000 + k * 60_000_000));
const row = fc.tuple(floatKey, intKey, tsKey).map((r): Scalar[] => [...r]);

/** Rows spread over 1-6 shards by a seed; some shards may be empty. */
const table = fc.record({ rows: fc.array(row, { maxLength: 60 }), shards: fc.integer({ min: 1, max: 6 }), seed: fc.nat() }).map((t) => {
  const shards: Scalar[][][] = Array.from({ length: t.shards }, () => []);
  t.rows.forEach((r, k) => shards[(k * 7919 + t.seed) % t.shards]!.push(r));
  return { rows: t.rows, shards };
});

/** Count per group of column `c` (SQL GROUP BY: one NULL group, one NaN group, -0 = 0), by key string. */
function counts(rows: readonly (readonly Scalar[])[], c: number): Map<string, number> {
  const out = new Map<string, number>();
  for (const r of rows) {
    const key = groupKeyString([r[c] ?? null]);
    out.set(key, (out.get(key) ?? 0) + 1);
  }
  return out;
}

const COLUMNS = ['f', 'i', 'ts'] as const;

describe('high-cardinality grouping fast paths', () => {
  it('property: GROUP BY a numeric key of unbounded range equals brute force, and exact top-k by count is exact', async () => {
    await fc.assert(
      fc.asyncProperty(table, fc.constantFrom(0, 1, 2), fc.integer({ min: 1, max: 3 }), fc.integer({ min: 1, max: 2 }), async ({ rows, shards }, c, k, shardSize) => {
        const { root } = inProcessRoot(SCHEMA, shards, { fanout: 2 });
        const col = COLUMNS[c];
        const truth = counts(rows, c);
        const all = await root.query({ sql: `SELECT ${col}, count(*) FROM t GROUP BY ${col}` }, new AbortController().signal);
        expect(all.label).toBe('exact');
        const got = new Map(all.rows.map((r) => [groupKeyString([r[0] ?? null]), Number(r[1])]));
        expect(got).toEqual(truth);
        // Truncated to shard_size per node, then refined: exact, and the k largest counts.
        const top = await root.query({ sql: `SELECT ${col}, count(*) AS n FROM t GROUP BY ${col} ORDER BY n DESC LIMIT ${k}`, shard_size: shardSize, exact: true }, new AbortController().signal);
        expect(top.label).toBe('exact');
        const want = [...truth.values()].sort((a, b) => b - a).slice(0, k);
        expect(top.rows.map((r) => Number(r[1]))).toEqual(want);
        for (const r of top.rows) expect(truth.get(groupKeyString([r[0] ?? null]))).toBe(Number(r[1]));
      }),
      { numRuns: 60 },
    );
  });

  it('a shard with thousands of distinct doubles (the hash table grows) groups them all', async () => {
    const rows: Scalar[][] = [];
    for (let j = 0; j < 5000; j++) rows.push([j % 2 === 0 ? j * 0.25 : -j * 1e-3, BigInt(j) * 1_000_003n, j * 1000]);
    for (let j = 0; j < 300; j++) rows.push([j * 0.25, null, null]);
    const { root } = inProcessRoot(SCHEMA, [rows.slice(0, 2600), [], rows.slice(2600)], { fanout: 2, batchRows: 777 });
    for (const c of [0, 1, 2]) {
      const col = COLUMNS[c];
      const a = await root.query({ sql: `SELECT ${col}, count(*) FROM t GROUP BY ${col}` }, new AbortController().signal);
      expect(new Map(a.rows.map((r) => [groupKeyString([r[0] ?? null]), Number(r[1])]))).toEqual(counts(rows, c));
    }
  });
});
