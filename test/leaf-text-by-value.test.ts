/**
 * Numbers and instants as text at the leaf (src/leaf/expr.ts, textByValue): a cast to
 * VARCHAR is evaluated once per distinct value of a batch, and strftime with a format that
 * reads only the date (`'%Y-%m'`, dayname, monthname) once per UTC day (per plan node, shared
 * by batches and shards). Property tests against
 * DuckDB over random instants (before 1970, µs, day edges and 1 µs either side), integers,
 * doubles (-0.0 apart from 0.0) and NULLs, shard cuts and batch sizes, with formats that read
 * the time of day next to them (the row path) and a CASE that leaves rows out.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { formatReadsDateOnly, formatSpan } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { diffResults, fromCanopy, fromDuck } from './helpers/compare.ts';
import { answerBody, cutShards, inProcessRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'ts', type: 'timestamp' },
    { name: 'i', type: 'int64' },
    { name: 'f', type: 'float64' },
  ],
};

const US_DAY = 86_400_000_000;

const QUERIES = [
  "SELECT strftime(ts, '%Y-%m') AS k, count(*) AS n FROM t GROUP BY k",
  'SELECT dayname(ts) AS d, monthname(ts) AS m, count(*) AS n FROM t GROUP BY d, m',
  "SELECT strftime(ts, '%G-%V %a %j %U %W %u %w %x %% %-d/%-m/%y %b %h %z%Z') AS k, count(*) AS n FROM t GROUP BY k",
  "SELECT strftime(ts, '%Y-%m-%d %H') AS k, count(*) AS n FROM t GROUP BY k",
  "SELECT strftime(ts, '%-I%p %a') AS k, strftime(ts, '%H:%M') AS m, count(*) AS n FROM t GROUP BY k, m",
  "SELECT strftime(ts, '%c') AS k, max(strftime(ts, '%X %T')) AS m FROM t GROUP BY k",
  'SELECT ts::VARCHAR AS k, count(*) AS n FROM t GROUP BY k',
  'SELECT i::VARCHAR AS k, count(*) AS n FROM t GROUP BY k',
  'SELECT CAST(f AS VARCHAR) AS k, count(*) AS n FROM t GROUP BY k',
  'SELECT CASE WHEN i > 3 THEN i::VARCHAR END AS k, max(strftime(ts, \'%A %B\')) AS m FROM t GROUP BY k',
  "SELECT max(strftime(ts, '%Y/%m/%d')) AS mx, count(DISTINCT ts::VARCHAR) AS d FROM t WHERE i % 2 = 0",
];

describe('text of numbers and instants by value equals DuckDB', () => {
  const duck = useDuckDB();

  it('date-only formats are told apart from formats that read the time of day', () => {
    expect(formatReadsDateOnly('%Y-%m')).toBe(true);
    expect(formatReadsDateOnly('%A, %-d %B %Y (%G-W%V) 100%%')).toBe(true);
    for (const f of ['%H', '%Y-%m-%d %-I%p', '%g', '%f', '%c', '%X', '%T', '%S', '%M', '%-M']) expect(formatReadsDateOnly(f), f).toBe(false);
  });

  it('the span of time a format writes alike: a day, an hour, a minute, a second, or 0 (sub-second specifiers)', () => {
    // strftime(ts, '%Y-%m-%d %H') row by row took 4 s over the 3M-row flights data (by day: 0.2 s).
    const spans: [string, number][] = [
      ['%Y-%m', US_DAY],
      ['%Y-%m-%d %H', 3_600_000_000],
      ['%-I%p %A', 3_600_000_000],
      ['%Y-%m-%d %H:%M', 60_000_000],
      ['%-M', 60_000_000],
      ['%c', 1_000_000],
      ['%X', 1_000_000],
      ['%T %S', 1_000_000],
      ['%H:%M:%S.%f', 0],
      ['%g', 0],
    ];
    for (const [f, span] of spans) expect(formatSpan(f), f).toBe(span);
  });

  it('random instants, integers, doubles, shard cuts and batch sizes', async () => {
    const instant = fc.oneof(
      fc.integer({ min: -100_000, max: 100_000 }).chain((d) => fc.constantFrom(d * US_DAY, d * US_DAY - 1, d * US_DAY + 1, d * US_DAY + 43_200_000_000)),
      fc.integer({ min: -2_000_000_000, max: 2_000_000_000 }).map((s) => s * 1_000_000 + 123_457),
      // Neighbouring days in clusters decades apart: a plan node's table of days near its first
      // row holds one cluster, the others go through the node's map of days.
      fc
        .tuple(fc.constantFrom(-60_000, -9_000, 0, 9_000, 60_000), fc.integer({ min: -3, max: 3 }), fc.constantFrom(0, 1, -1, 86_399_999_999))
        .map(([c, d, us]) => (c + d) * US_DAY + us),
      // Hour and minute edges and 1 µs either side (formats that read the hour or the minute are evaluated once per hour or minute).
      fc
        .tuple(fc.integer({ min: -20_000, max: 20_000 }), fc.integer({ min: 0, max: 23 }), fc.integer({ min: 0, max: 59 }), fc.constantFrom(0, 1, -1, 59_999_999))
        .map(([d, h, m, us]) => d * US_DAY + h * 3_600_000_000 + m * 60_000_000 + us),
    );
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.tuple(
            fc.option(instant, { freq: 8 }),
            fc.option(fc.integer({ min: -5, max: 9 }), { freq: 8 }),
            fc.option(fc.constantFrom(0, -0, 1.5, -2.25, 1e21, 3, 0.1), { freq: 8 }),
          ),
          { minLength: 1, maxLength: 250 },
        ),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 16, max: 200 })),
        fc.constantFrom(...QUERIES),
        async (data, cuts, batchRows, sql) => {
          const rows: Scalar[][] = data.map(([ts, i, f]) => [ts, i === null ? null : BigInt(i), f]);
          const shards = cutShards(rows, cuts);
          const { root } = inProcessRoot(SCHEMA, shards, { fanout: 3, batchRows });
          await duck().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, i BIGINT, f DOUBLE)');
          const f = (x: Scalar): string => (x === null ? 'NULL' : Object.is(x, -0) ? "'-0.0'::DOUBLE" : `${String(x)}::DOUBLE`);
          await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(${r[0] === null ? 'NULL' : `make_timestamp(${r[0]}::BIGINT)`}, ${r[1] === null ? 'NULL' : r[1]}, ${f(r[2]!)})`).join(', ')}`);
          const body = await answerBody(root, sql);
          expect(body.label).toBe('exact');
          expect(diffResults(fromCanopy(body), fromDuck(await duck().runAndReadAll(sql)), { ordered: false })).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('neighbouring days decades apart in one batch (the table of near days and the map of far ones)', async () => {
    // Rows of 7 neighbouring days in clusters 9,000 to 60,000 days apart, interleaved, in
    // batches of 16 and 500: whichever cluster the node meets first fills its table of near days.
    const days = [-60_000, -9_000, 0, 9_000, 60_000].flatMap((c) => [0, 1, 2, 3, 4, 5, 6].map((d) => c + d));
    const rows: Scalar[][] = days.flatMap((d, k) => [(d * US_DAY) + (k % 3) * 3_600_000_000, d * US_DAY - 1].map((ts) => [ts, BigInt(k % 7), 0.5]));
    rows.sort((a, b) => Number(a[1]) - Number(b[1]));
    await duck().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, i BIGINT, f DOUBLE)');
    await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(make_timestamp(${r[0]}::BIGINT), ${r[1]}, ${r[2]})`).join(', ')}`);
    for (const batchRows of [16, 500])
      for (const sql of ["SELECT dayname(ts) AS d, count(*) AS n FROM t GROUP BY d", "SELECT strftime(ts, '%Y-%m-%d %a') AS d, count(*) AS n FROM t GROUP BY d"]) {
        const { root } = inProcessRoot(SCHEMA, cutShards(rows, [rows.length >> 1]), { fanout: 3, batchRows });
        const body = await answerBody(root, sql);
        expect(body.label).toBe('exact');
        expect(diffResults(fromCanopy(body), fromDuck(await duck().runAndReadAll(sql)), { ordered: false }), `${sql} (${batchRows}-row batches)`).toEqual([]);
      }
  });
});
