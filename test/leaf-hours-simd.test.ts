/**
 * extract(hour) codes by the WebAssembly `hours` kernel (src/leaf/simd.ts): two rows per
 * f64x2 operation, a multiplication by the reciprocal corrected by one step. Checked against
 * exact integer arithmetic (BigInt) over random instants across the whole range the kernel
 * takes (|t| < 2^53 µs), on hour edges and 1 µs either side, for any row count (the last
 * n % 4 rows are left to the caller) and batches longer than a chunk's scratch block; then
 * end to end against DuckDB over random unordered timestamps (the kernel's case: batches with
 * no NULL and no selection), shard cuts and batch sizes, next to batches with NULLs and
 * queries with a WHERE clause (the JS loops).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { simdArena } from '../src/leaf/simd.ts';
import { useDuckDB } from './helpers/duck.ts';
import { diffResults, fromCanopy, fromDuck } from './helpers/compare.ts';
import { answerBody, cutShards, inProcessRoot } from './helpers/tree.ts';

const US_HOUR = 3_600_000_000;
const LIMIT = 2 ** 53;

/** 1 + the hour of the day of `t` µs since 1970 (UTC), in exact integer arithmetic. */
function hourCode(t: number): number {
  const h = BigInt(t) / BigInt(US_HOUR) - (BigInt(t) % BigInt(US_HOUR) < 0n ? 1n : 0n);
  return Number(((h % 24n) + 24n) % 24n) + 1;
}

/** An integer instant with |t| < 2^53: anywhere, near 1970, or on an hour edge and 1 µs either side. */
const instantArb: fc.Arbitrary<number> = fc.oneof(
  fc.bigInt({ min: -BigInt(LIMIT) + 1n, max: BigInt(LIMIT) - 1n }).map(Number),
  fc.bigInt({ min: -(10n ** 13n), max: 10n ** 13n }).map(Number),
  fc
    .tuple(fc.integer({ min: -Math.floor(LIMIT / US_HOUR) + 1, max: Math.floor(LIMIT / US_HOUR) - 1 }), fc.constantFrom(-1, 0, 1))
    .map(([h, d]) => h * US_HOUR + d),
);

describe('the hours kernel', () => {
  const arena = simdArena();

  it('is available on Node 20 (WebAssembly SIMD)', () => {
    expect(arena).not.toBeNull();
  });

  it('codes every row below n - n % 4 as exact integer arithmetic does', () => {
    fc.assert(
      fc.property(fc.array(instantArb, { minLength: 0, maxLength: 300 }), fc.nat(), (ts, cut) => {
        const vals = Float64Array.from(ts);
        const n = ts.length === 0 ? 0 : cut % (ts.length + 1);
        const out = new Int32Array(ts.length).fill(-7);
        const coded = arena!.hourCodes(vals, n, out);
        expect(coded).toBe(n - (n % 4));
        for (let i = 0; i < coded; i++) expect(out[i], `t = ${ts[i]}`).toBe(hourCode(ts[i]!));
        for (let i = coded; i < ts.length; i++) expect(out[i]).toBe(-7);
      }),
      { numRuns: 400 },
    );
  });

  it('codes a batch longer than the scratch block, and again from the placed copy', () => {
    const ts = Array.from({ length: 20_003 }, (_, i) => (i - 10_000) * 977_777_777 + (i % 3) - 1);
    const vals = Float64Array.from(ts);
    for (let round = 0; round < 2; round++) {
      const out = new Int32Array(ts.length);
      expect(arena!.hourCodes(vals, ts.length, out)).toBe(20_000);
      for (let i = 0; i < 20_000; i++) if (out[i] !== hourCode(ts[i]!)) expect(out[i], `row ${i}, t = ${ts[i]}`).toBe(hourCode(ts[i]!));
    }
  });
});

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'ts', type: 'timestamp' },
    { name: 'v', type: 'int64' },
  ],
};

const QUERIES = [
  'SELECT extract(hour FROM ts) AS h, count(*) AS n, sum(v) AS s FROM t GROUP BY h',
  'SELECT hour(ts) AS h, min(v) AS m FROM t GROUP BY h ORDER BY h',
  'SELECT extract(hour FROM ts) AS h, count(*) AS n FROM t WHERE v > 40 GROUP BY h',
  "SELECT date_trunc('day', ts) AS d, extract(hour FROM ts) AS h, count(*) AS n FROM t GROUP BY d, h",
];

describe('extract(hour) over unordered timestamps equals DuckDB', () => {
  const duck = useDuckDB();

  it('random instants, shard cuts, batch sizes, a NULL now and then', async () => {
    await fc.assert(
      fc.asyncProperty(
        // DuckDB's timestamps end in 294247: keep clear of 2^53 µs only where the kernel stops.
        fc.array(instantArb, { minLength: 1, maxLength: 400 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 16, max: 300 })),
        fc.option(fc.nat(), { nil: undefined }),
        fc.constantFrom(...QUERIES),
        async (ts, cuts, batchRows, nullAt, sql) => {
          const rows: Scalar[][] = ts.map((t, i) => [t, BigInt((i * 37) % 101)]);
          if (nullAt !== undefined) rows[nullAt % rows.length]![0] = null;
          const shards = cutShards(rows, cuts);
          const { root } = inProcessRoot(SCHEMA, shards, { fanout: 3, batchRows });
          await duck().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, v BIGINT)');
          await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(${r[0] === null ? 'NULL' : `make_timestamp(${r[0]}::BIGINT)`}, ${r[1]})`).join(', ')}`);
          const body = await answerBody(root, sql);
          expect(body.label).toBe('exact');
          expect(diffResults(fromCanopy(body), fromDuck(await duck().runAndReadAll(sql)), { ordered: sql.includes('ORDER BY') })).toEqual([]);
        },
      ),
      { numRuns: 120 },
    );
  });
});
