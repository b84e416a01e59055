/**
 * Issue 15 (leaf grouping cost): the codes of a numeric group key of unbounded range
 * (src/leaf/groupby.ts ValueCodes), against brute force over one shard. Keys in
 * non-decreasing order take no hash table; the first key below the last builds it from the
 * values so far. Either way a leaf's groups come in order of first appearance, with -0 in
 * the 0 group, every NaN one group, NULL its own, int64 keys beyond 2^53 exact, and over
 * 1024 distinct keys (the table grows).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import { groupKeyString, layoutOf, type ColumnarPartial, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 'ts', type: 'timestamp' },
  ],
};

/** Groups of column `c` in order of first appearance: [key as the leaf gives it (-0 as 0), rows]. */
function firstAppearance(rows: readonly (readonly Scalar[])[], c: number): [Scalar, number][] {
  const at = new Map<string, number>();
  const out: [Scalar, number][] = [];
  for (const r of rows) {
    const v = r[c] ?? null;
    const key = groupKeyString([v]);
    const g = at.get(key);
    if (g === undefined) {
      at.set(key, out.length);
      out.push([v === 0 ? 0 : v, 1]);
    } else out[g]![1]++;
  }
  return out;
}

/** The leaf's groups of `SELECT col, count(*) ... GROUP BY col` over one shard, in its order. */
async function leafGroups(rows: readonly (readonly Scalar[])[], c: number, batchRows: number, where = ''): Promise<[Scalar, number][]> {
  const col = SCHEMA.columns[c]!.name;
  const shard = prepareShard(0, shardsFromRows(SCHEMA, [rows], batchRows)[0]!, SCHEMA);
  const plan = planQuery(`SELECT ${col}, count(*) FROM t ${where} GROUP BY ${col}`, new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
  const scan = await scanShard(shard, plan.scan, layoutOf(plan.scan, SCHEMA), new AbortController().signal);
  const p = scan.partial as ColumnarPartial;
  expect(p.type).toBe('columnar');
  return Array.from({ length: p.size }, (_, g) => [p.keys[0]![g]!, Number(p.states[0]![g])]);
}

/** `n` ascending keys (some repeated), then `tail` keys in any order. */
function keys<T>(ascending: readonly T[], tail: readonly T[]): T[] {
  return [...ascending, ...tail];
}

describe('numeric group keys of unbounded range at the leaf (issue 15)', () => {
  it('a time-ordered shard (no table), then one key below the last: every group, first-appearance order, -0/NaN/NULL/±Infinity', async () => {
    // 3000 ascending doubles with repeats, -0 among them, NaN and NULL interleaved (they do not break the order).
    const asc: Scalar[] = [];
    for (let j = 0; j < 3000; j++) asc.push(j === 1000 ? -0 : j === 1001 ? 0 : j % 7 === 0 ? NaN : j % 11 === 0 ? null : -1500 + Math.floor(j / 2) * 0.5);
    asc.unshift(-Infinity);
    asc.push(Infinity, Infinity);
    // Then earlier keys again (a table is built from the 1500+ values so far), new ones, -0, NaN, NULL.
    const tail: Scalar[] = [];
    for (let j = 0; j < 2500; j++) tail.push(j % 5 === 0 ? -0 : j % 13 === 0 ? NaN : j % 17 === 0 ? null : j % 3 === 0 ? -1500 + j * 0.25 : 1e6 - j * 1.5);
    tail.push(-Infinity, 5e-324, -5e-324);
    for (const seq of [asc, keys(asc, tail)]) {
      const rows = seq.map((f): Scalar[] => [f, null, null]);
      const want = firstAppearance(rows, 0);
      expect(want.length).toBeGreaterThan(1024);
      for (const batchRows of [64, 1000, 8192]) expect(await leafGroups(rows, 0, batchRows)).toEqual(want);
    }
  });

  it('int64 keys beyond 2^53 stay exact bigints, ordered or not; timestamps likewise', async () => {
    const big = 2n ** 60n;
    const asc: Scalar[] = [];
    for (let j = 0; j < 1500; j++) asc.push(j % 9 === 0 ? null : j % 4 === 0 ? big + BigInt(j) : BigInt(j) * 7n - 5000n);
    const tail: Scalar[] = [-(2n ** 63n), 2n ** 63n - 1n, big + 4n, big + 5n, 3n, -5000n, 2n ** 53n + 1n, 2n ** 53n, null];
    for (const seq of [asc, keys(asc, tail)]) {
      const rows = seq.map((i, j): Scalar[] => [null, i, j % 3 === 0 ? null : 978_307_200_000_000 + (seq === asc ? j : j % 700) * 60_000_000]);
      expect(await leafGroups(rows, 1, 500)).toEqual(firstAppearance(rows, 1));
      expect(await leafGroups(rows, 2, 500)).toEqual(firstAppearance(rows, 2));
    }
  });

  it('property: equals brute force for runs of ascending keys then any keys, with and without a WHERE', async () => {
    const key = fc.oneof(fc.constantFrom<Scalar>(null, NaN, -0, 0, Infinity, -Infinity, 1e300), fc.integer({ min: -50, max: 50 }).map((x) => x / 4));
    await fc.assert(
      fc.asyncProperty(fc.array(fc.integer({ min: 0, max: 3 }), { maxLength: 400 }), fc.array(key, { maxLength: 400 }), fc.integer({ min: 1, max: 300 }), fc.boolean(), async (steps, tail, batchRows, filtered) => {
        let x = -100;
        const asc = steps.map((s) => (x += s * 0.5));
        // i: a filter column, NULL on every third row (the WHERE keeps the others: a selection).
        const rows = keys<Scalar>(asc, tail).map((f, j): Scalar[] => [f, j % 3 === 0 ? null : BigInt(j), null]);
        const kept = filtered ? rows.filter((r) => r[1] !== null) : rows;
        expect(await leafGroups(rows, 0, batchRows, filtered ? 'WHERE i IS NOT NULL' : '')).toEqual(firstAppearance(kept, 0));
      }),
      { numRuns: 60, seed: 15 },
    );
  });
});
