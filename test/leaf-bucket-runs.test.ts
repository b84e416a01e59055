/**
 * Time buckets over ascending timestamps (a time-ordered log, as flights is): the leaf codes
 * date_trunc / extract(hour) keys one division per run of rows in a bucket (src/leaf/groupby.ts,
 * bucketRuns) when a batch's statistics say its rows ascend. Property tests against DuckDB:
 * random ascending instants (before and after 1970, on and one µs either side of bucket
 * edges, long and short runs, duplicates), random shard cuts and batch sizes, with and
 * without a WHERE clause (a selection of the rows), and batches that do not ascend or hold
 * NULLs next to ones that do (the per-row kernels). Exact answers must equal DuckDB's.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { diffResults, fromCanopy, fromDuck } from './helpers/compare.ts';
import { answerBody, cutShards, inProcessRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'ts', type: 'timestamp' },
    { name: 'v', type: 'int64' },
  ],
};

const US_HOUR = 3_600_000_000;
const US_DAY = 24 * US_HOUR;

/**
 * A step between consecutive instants, as a fraction of a bucket (`unit` µs): small (so that
 * a bucket holds runs of rows: up to 2 / `density` of it), zero (duplicates), up to two
 * buckets, or to the next bucket edge and 1 µs either side of it.
 */
type Step = { readonly kind: 'frac'; readonly x: number } | { readonly kind: 'edge'; readonly d: -1 | 0 | 1 };
const stepArb: fc.Arbitrary<Step> = fc.oneof(
  { weight: 40, arbitrary: fc.double({ min: 0, max: 1, noNaN: true }).map((x): Step => ({ kind: 'frac', x })) },
  { weight: 2, arbitrary: fc.constant<Step>({ kind: 'frac', x: 0 }) },
  { weight: 1, arbitrary: fc.double({ min: 0, max: 2, noNaN: true }).map((x): Step => ({ kind: 'frac', x: -x })) },
  { weight: 3, arbitrary: fc.constantFrom(-1, 0, 1).map((d): Step => ({ kind: 'edge', d: d as -1 | 0 | 1 })) },
);

/** Ascending integer instants (µs) from `start`: small steps are `x` * 2 * `unit` / `density`, negative fractions whole jumps of up to two buckets. */
function ascending(start: number, steps: readonly Step[], unit: number, density: number): number[] {
  const out: number[] = [];
  let t = start;
  for (const s of steps) {
    if (s.kind === 'edge') t = Math.max(t, (Math.floor(t / unit) + 1) * unit + s.d);
    else t += Math.floor(s.x >= 0 ? (s.x * 2 * unit) / density : -s.x * unit);
    out.push(t);
  }
  return out;
}

const UNITS = { minute: 60_000_000, hour: US_HOUR, day: US_DAY, week: 7 * US_DAY } as const;

const QUERIES = [
  "SELECT date_trunc('day', ts) AS k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
  "SELECT date_trunc('hour', ts) AS k, count(*) AS n FROM t GROUP BY k",
  "SELECT date_trunc('week', ts) AS k, count(*) AS n, max(v) AS m FROM t GROUP BY k",
  "SELECT date_trunc('minute', ts) AS k, count(*) AS n FROM t GROUP BY k",
  'SELECT extract(hour FROM ts) AS h, count(*) AS n, sum(v) AS s FROM t GROUP BY h',
  "SELECT date_trunc('day', ts) AS k, count(*) AS n FROM t WHERE v % 3 <> 0 GROUP BY k",
  'SELECT extract(hour FROM ts) AS h, count(*) AS n FROM t WHERE v > 40 GROUP BY h',
  "SELECT date_trunc('day', ts) AS k, extract(hour FROM ts) AS h, count(*) AS n FROM t GROUP BY k, h",
];

describe('time buckets over ascending timestamps equal DuckDB', () => {
  const duck = useDuckDB();

  it('random ascending instants, shard cuts, batch sizes and WHERE selections', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: -40 * 365 * US_DAY, max: 60 * 365 * US_DAY }),
        fc.array(stepArb, { minLength: 1, maxLength: 800, size: 'max' }),
        fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 16, max: 200 })),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.oneof(fc.integer({ min: 1, max: 40 }), fc.integer({ min: 40, max: 800 })),
        fc.option(fc.nat(), { nil: undefined }),
        fc.constantFrom(...QUERIES),
        async (start, steps, density, cuts, batchRows, disorder, sql) => {
          // Rows dense in the query's bucket (date_trunc's unit; extract(hour): an hour).
          const unit = UNITS[(/date_trunc\('(\w+)'/.exec(sql)?.[1] ?? 'hour') as keyof typeof UNITS];
          const ts = ascending(start, steps, unit, density);
          const rows: Scalar[][] = ts.map((t, i) => [t, BigInt((i * 37) % 101)]);
          // Sometimes one row out of order or NULL: its batch takes the per-row kernels.
          if (disorder !== undefined && rows.length > 2) {
            const k = disorder % rows.length;
            if (disorder % 2 === 0) rows[k]![0] = null;
            else rows[k]![0] = (rows[k]![0] as number) - US_DAY;
          }
          const shards = cutShards(rows, cuts);
          const { root } = inProcessRoot(SCHEMA, shards, { fanout: 3, batchRows });
          await duck().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, v BIGINT)');
          await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(${r[0] === null ? 'NULL' : `make_timestamp(${r[0]}::BIGINT)`}, ${r[1]})`).join(', ')}`);
          const body = await answerBody(root, sql);
          expect(body.label).toBe('exact');
          const want = fromDuck(await duck().runAndReadAll(sql));
          expect(diffResults(fromCanopy(body), want, { ordered: false })).toEqual([]);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('one long run per bucket (thousands of rows a day) and a batch of one instant', async () => {
    const ts = ascending(Date.UTC(2024, 0, 1) * 1000 - 3 * US_HOUR, Array.from({ length: 6000 }, (_, i): Step => (i % 997 === 0 ? { kind: 'edge', d: -1 } : { kind: 'frac', x: 1 / 118 })), US_HOUR, 1);
    const rows: Scalar[][] = [...ts.map((t, i): Scalar[] => [t, BigInt(i % 50)]), ...Array.from({ length: 20 }, (): Scalar[] => [ts[ts.length - 1]!, 1n])];
    const { root } = inProcessRoot(SCHEMA, [rows.slice(0, 2500), rows.slice(2500)], { fanout: 2, batchRows: 1024 });
    await duck().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, v BIGINT)');
    await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(make_timestamp(${r[0]}::BIGINT), ${r[1]})`).join(', ')}`);
    for (const sql of QUERIES) {
      const body = await answerBody(root, sql);
      expect(body.label, sql).toBe('exact');
      expect(diffResults(fromCanopy(body), fromDuck(await duck().runAndReadAll(sql)), { ordered: false }), sql).toEqual([]);
    }
  });
});
