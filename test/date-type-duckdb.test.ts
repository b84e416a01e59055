/**
 * DuckDB's DATE as a value type (src/merge/types.ts `date`: a UTC day held as the µs of its
 * midnight), against DuckDB:
 * - `CAST(ts AS DATE)`, `ts::DATE`, TRY_CAST (the UTC day, floored: pre-1970 instants too),
 *   DATE literals and strings cast to DATE as DuckDB reads them;
 * - DATEs as group keys, in WHERE (against DATEs, TIMESTAMPs and string literals), in
 *   min / max / count(DISTINCT) / first / any_value / arg_min, ORDER BY and top-k;
 * - the answer column (`2024-01-31` in JSON, `date` typed), DATE ± INTEGER, DATE - DATE,
 *   DATE ± INTERVAL, date_trunc / extract / strftime / date_diff over DATEs, casts to VARCHAR
 *   and TIMESTAMP, last_day and make_date.
 * Values are checked over the shared differential table (test/helpers/differential.ts: 9
 * trees, exact equals DuckDB, bounded holds it) and over random timestamps split over random
 * shards and tree shapes (fast-check); refusals as DuckDB refuses.
 *
 * Run: npx vitest run test/date-type-duckdb.test.ts
 */
import { tableFromIPC } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it, afterAll, beforeAll } from 'vitest';
import { castValue, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { encodeValue, pgTypeOf } from '../src/pg/types.ts';
import { answerToArrow } from '../src/root/index.ts';
import { answerToCSV, answerToParquet } from '../src/root/respond.ts';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import { fromCanopy, fromDuck } from './helpers/compare.ts';
import { closeDifferential, differentialTests, duckConnection, setupDifferential, valueDiff, ROWS, SCHEMA, SHARDS, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { agreesOnSmallTables } from './helpers/small-agree.ts';
import type { DuckDBConnection } from '@duckdb/node-api';
import { answerBody, ask, inProcessRoot, itRefuses } from './helpers/tree.ts';

const duckdb = useDuckDB();

beforeAll(setupDifferential);
afterAll(closeDifferential);

const DATES: Q[] = [
  // Casts of a timestamp column: the UTC day, floored (1969-12-31 23:59:59.999999 is the 31st).
  { sql: 'SELECT ts, CAST(ts AS DATE) AS d, ts::DATE AS e, TRY_CAST(ts AS DATE) AS f FROM t' },
  { sql: 'SELECT CAST(ts AS DATE) FROM t' },
  { sql: 'SELECT ts::DATE AS d, count(*) AS n FROM t GROUP BY ts::DATE ORDER BY d NULLS LAST', ordered: true },
  { sql: 'SELECT CAST(ts AS date) AS d, count(*) AS n, sum(j) AS s FROM t GROUP BY 1 ORDER BY 1', ordered: true },
  { sql: 'SELECT g, min(ts::DATE) AS lo, max(ts::DATE) AS hi, count(DISTINCT ts::DATE) AS n FROM t GROUP BY g' },
  { sql: 'SELECT first(ts::DATE ORDER BY ts::DATE) AS a, any_value(ts::DATE ORDER BY ts::DATE) AS b, arg_min(ts::DATE, j) AS c, arg_max(s, ts::DATE) AS d, last(ts::DATE ORDER BY ts::DATE NULLS FIRST) AS e FROM t' },
  { sql: 'SELECT min(CAST(ts AS DATE)) AS lo, max(CAST(ts AS DATE)) AS hi FROM t WHERE j > 0' },
  // WHERE: DATE against DATE, TIMESTAMP (the DATE's midnight) and strings (cast to DATE).
  { sql: "SELECT ts FROM t WHERE ts::DATE = DATE '2024-01-01'" },
  { sql: "SELECT ts FROM t WHERE ts::DATE >= '2024-01-01' AND ts::DATE < '2024-04-01 10:00'" },
  { sql: "SELECT ts FROM t WHERE ts::DATE BETWEEN '2000-01-01' AND DATE '2024-02-29'" },
  { sql: "SELECT ts FROM t WHERE ts::DATE IN ('1969-12-31', '2024-12-30', DATE '2020-02-29')" },
  { sql: 'SELECT ts FROM t WHERE ts::DATE < ts' },
  { sql: "SELECT ts FROM t WHERE ts::DATE = TIMESTAMP '2024-01-01 00:00:00' OR CAST(ts AS DATE) > TIMESTAMP '2024-03-31 12:00:00'" },
  { sql: "SELECT ts, ts::DATE = ts AS a, ts::DATE <= ts AS b, DATE '2024-01-01' = '2024-01-01 10:00' AS c FROM t" },
  // ORDER BY and top-k over DATEs.
  { sql: 'SELECT ts::DATE AS d FROM t ORDER BY d DESC NULLS LAST, ts LIMIT 5', ordered: true },
  { sql: 'SELECT ts::DATE AS d, count(*) AS n FROM t GROUP BY d ORDER BY n DESC, d LIMIT 3', ordered: true },
  { sql: 'SELECT g, max(ts::DATE) AS d FROM t GROUP BY g ORDER BY d DESC NULLS LAST, g LIMIT 2', ordered: true },
  // DATEs through subqueries, CTEs, DISTINCT, HAVING, windows and grouping sets.
  { sql: 'SELECT d, count(*) AS n FROM (SELECT ts::DATE AS d FROM t) s GROUP BY d' },
  { sql: "WITH days AS (SELECT CAST(ts AS DATE) AS d, j FROM t) SELECT d, sum(j) AS s FROM days WHERE d > '1970-01-01' GROUP BY d" },
  { sql: 'SELECT DISTINCT ts::DATE AS d FROM t' },
  { sql: "SELECT g, max(ts::DATE) AS d FROM t GROUP BY g HAVING max(ts::DATE) > DATE '2024-01-01'" },
  { sql: 'SELECT ts::DATE AS d, count(*) AS n, count(*) * 100.0 / sum(count(*)) OVER () AS pct FROM t GROUP BY d' },
  { sql: 'SELECT ts::DATE AS d, g, count(*) AS n FROM t GROUP BY ROLLUP (d, g)' },
  { sql: 'SELECT g, count(DISTINCT ts::DATE) AS n, count(DISTINCT ts::DATE) FILTER (WHERE j > 0) AS m FROM t GROUP BY g' },
  { sql: 'SELECT j, ts::DATE AS d FROM t ORDER BY d NULLS FIRST, j LIMIT 4', ordered: true },
  // DATE arithmetic and functions.
  { sql: 'SELECT ts, ts::DATE + 1 AS a, ts::DATE - 1 AS b, 30 + ts::DATE AS c, ts::DATE - DATE \'2000-01-01\' AS d, DATE \'2024-03-01\' - ts::DATE AS e FROM t' },
  { sql: 'SELECT ts, j, ts::DATE + CAST(j AS INTEGER) AS a, ts::DATE - j::SMALLINT AS b, CAST(j * 100 AS INTEGER) + ts::DATE AS c, ts::DATE + (2 * 3) AS d, ts::DATE - NULL AS e FROM t' },
  { sql: "SELECT ts, ts::DATE + INTERVAL 1 HOUR AS a, ts::DATE - INTERVAL '1 month' AS b, date_add(ts::DATE, INTERVAL 2 DAY) AS c FROM t" },
  { sql: "SELECT ts, date_trunc('month', ts::DATE) AS a, date_trunc('day', ts::DATE) AS b, date_trunc('week', CAST(ts AS DATE)) AS c FROM t" },
  { sql: 'SELECT ts, year(ts::DATE) AS y, month(ts::DATE) AS m, day(ts::DATE) AS d, dayofweek(ts::DATE) AS w, extract(doy FROM ts::DATE) AS doy, date_part(\'hour\', ts::DATE) AS h, epoch(ts::DATE) AS e FROM t' },
  { sql: "SELECT ts, strftime(ts::DATE, '%Y/%m/%d %H') AS a, dayname(ts::DATE) AS b, monthname(ts::DATE) AS c FROM t" },
  { sql: "SELECT ts, date_diff('day', ts::DATE, DATE '2024-01-01') AS a, date_diff('month', DATE '2000-01-31', ts::DATE) AS b, date_sub('week', ts::DATE, DATE '2024-12-31') AS c FROM t" },
  { sql: 'SELECT ts, CAST(ts::DATE AS VARCHAR) AS a, CAST(ts::DATE AS TIMESTAMP) AS b, ts::DATE || \'!\' AS c, concat(ts::DATE, \'/\', g) AS d FROM t' },
  { sql: "SELECT string_agg(ts::DATE, ',' ORDER BY ts) AS a FROM t" },
  { sql: 'SELECT ts, greatest(ts::DATE, DATE \'2000-01-01\') AS a, least(ts::DATE, ts) AS b, coalesce(ts::DATE, DATE \'1999-01-01\') AS c, CASE WHEN j > 0 THEN ts::DATE END AS d FROM t' },
  { sql: 'SELECT ts, last_day(ts::DATE) AS a, last_day(ts) AS b FROM t' },
  { sql: 'SELECT j, make_date(2024, 1, 1) AS a, make_date(1969, 12, 31) AS b FROM t' },
  // time_bucket of a DATE is a DATE (its midnight bucketed, then cast to DATE), a TIMESTAMP with a TIMESTAMP origin; avg of DATEs a TIMESTAMP.
  { sql: "SELECT ts, time_bucket(INTERVAL '5 hours', ts::DATE) AS a, time_bucket(INTERVAL '1 week', ts::DATE, DATE '2022-12-20') AS b, time_bucket(INTERVAL '1 month', ts::DATE, INTERVAL '3 days') AS c, time_bucket(INTERVAL '1 day', ts::DATE, TIMESTAMP '2000-01-01 06:00') AS e FROM t" },
  { sql: 'SELECT g, avg(ts::DATE) AS a FROM t GROUP BY g' },
  // Quantiles of DATEs: median and quantile_cont TIMESTAMPs, quantile_disc and quantile DATEs.
  { sql: 'SELECT g, median(ts::DATE) AS m, quantile_cont(ts::DATE, 0.3) AS c, quantile_disc(ts::DATE, 0.3) AS d, quantile(ts::DATE, 0.7) AS q, quantile_disc(ts::DATE, -0.2) AS n FROM t GROUP BY g' },
  { sql: 'SELECT median(ts::DATE) AS m, quantile_disc(ts::DATE, 0.5) FILTER (WHERE j > 0) AS d FROM t' },
  // mode of DATEs: 1970-01-01 is the day of two instants, every other day of one (a tie would be bounded, as for any type).
  { sql: 'SELECT mode(ts::DATE) AS m, entropy(ts::DATE) AS e, count(DISTINCT ts::DATE) AS n FROM t' },
  // Literals and strings cast to DATE as DuckDB reads them.
  { sql: "SELECT DATE '2024-01-31' AS a, CAST('2024-1-5' AS DATE) AS b, '2024-01-31 12:00'::DATE AS c, '2024/02/29'::DATE AS d, ' 2024-01-31T10:00Z'::DATE AS e, TRY_CAST('2024-02-30' AS DATE) AS f, NULL::DATE AS h FROM t LIMIT 1" },
  { sql: "SELECT TRY_CAST(s AS DATE) AS a FROM t" },
  // DuckDB has no cast between DATE and the numbers or BOOLEAN: TRY_CAST is NULL (CAST refused, below).
  { sql: 'SELECT TRY_CAST(ts::DATE AS BIGINT) AS a, TRY_CAST(ts::DATE AS DOUBLE) AS b, TRY_CAST(j AS DATE) AS c, TRY_CAST(f AS DATE) AS d, TRY_CAST(j > 0 AS DATE) AS e FROM t' },
  { sql: "SELECT DATE '2024-01-31' + 1 AS a, DATE '2024-03-01' - DATE '2024-01-31' AS b, DATE '2024-01-31' + INTERVAL 1 MONTH AS c, CAST(DATE '2024-01-31' AS VARCHAR) AS d FROM t LIMIT 1" },
];

describe('DATE values over the shared differential table: equal to DuckDB', () => {
  expect(differentialTests(DATES, new Set())).toBe(DATES.length);
});

/** Table `d`: `ts` timestamp, `k` int64, `g` string. */
const TS_SCHEMA: TableSchema = { name: 'd', columns: [{ name: 'ts', type: 'timestamp' }, { name: 'k', type: 'int64' }, { name: 'g', type: 'string' }] };
const DAY = 86_400_000_000;
/** Instants around a few days (midnights, a µs either side), pre-1970 included. */
const instant = fc.oneof(
  fc.integer({ min: -40_000, max: 40_000 }).chain((d) => fc.constantFrom(-1, 0, 1, DAY / 2, DAY - 1).map((o) => d * DAY + o)),
  fc.integer({ min: -(2 ** 50), max: 2 ** 50 }),
);
const row = fc.tuple(fc.option(instant, { nil: null, freq: 6 }), fc.option(fc.bigInt({ min: -3n, max: 3n }), { nil: null, freq: 6 }), fc.constantFrom('a', 'b'));
const tsLiteral = (us: number): string => `make_timestamp(${us}::BIGINT)`;

/** Loads rows of {@link TS_SCHEMA} into DuckDB's table d. */
async function loadTs(duck: DuckDBConnection, rows: readonly Scalar[][]): Promise<void> {
  await duck.run('CREATE OR REPLACE TABLE d (ts TIMESTAMP, k BIGINT, g VARCHAR)');
  if (rows.length > 0) await duck.run(`INSERT INTO d VALUES ${rows.map((r) => `(${r[0] === null ? 'NULL' : tsLiteral(r[0] as number)}, ${r[1] === null ? 'NULL' : String(r[1])}, '${String(r[2])}')`).join(', ')}`);
}

/** Checks `sql` over random tables of {@link TS_SCHEMA} against DuckDB; returns the rows compared. */
const agrees = (sql: string, seed: number, ordered = false): Promise<number> =>
  agreesOnSmallTables(duckdb, sql, { seed, numRuns: 60, rows: row as fc.Arbitrary<Scalar[]>, ordered, table: { schema: TS_SCHEMA, load: loadTs } });

describe('DATEs of random instants over random shard splits and tree shapes: equal to DuckDB', () => {
  it('day grouping (Metabase: GROUP BY CAST(ts AS DATE)), min / max / count(DISTINCT) of DATEs', async () => {
    expect(await agrees('SELECT CAST(ts AS DATE) AS day, count(*) AS n, min(ts::DATE) AS lo, max(ts) AS hi FROM d GROUP BY CAST(ts AS DATE) ORDER BY day', 2701, true)).toBeGreaterThan(100);
    expect(await agrees('SELECT g, count(DISTINCT ts::DATE) AS n, min(ts::DATE) AS lo, max(ts::DATE) AS hi, arg_min(ts::DATE, ts) AS a FROM d GROUP BY g', 2702)).toBeGreaterThan(30);
  }, 300_000);

  it('rows: casts, arithmetic, comparisons with the timestamp and text', async () => {
    const sql = "SELECT ts, k, ts::DATE AS d, ts::DATE + 1 AS a, ts::DATE - DATE '1970-01-01' AS b, ts::DATE < ts AS c, CAST(ts::DATE AS VARCHAR) AS e, year(ts::DATE) AS y, date_trunc('month', ts::DATE) AS m FROM d WHERE ts::DATE >= '1880-01-01'";
    expect(await agrees(sql, 2703)).toBeGreaterThan(50);
  }, 300_000);

  it('ORDER BY a DATE with a LIMIT (top-k over DATE keys)', async () => {
    expect(await agrees('SELECT ts::DATE AS d, count(*) AS n FROM d GROUP BY 1 ORDER BY n DESC, d LIMIT 3', 2704, true)).toBeGreaterThan(30);
  }, 300_000);
});

describe("strings read as DuckDB casts them to DATE (src/merge/time.ts parseDuckDate)", () => {
  it('TRY_CAST of thousands of date-like strings: NULL where DuckDB gives NULL, its day where canopy holds it, refused where DuckDB reads a day canopy does not hold', async () => {
    const digits = (min: number, max: number, width: fc.Arbitrary<number>) => fc.tuple(fc.integer({ min, max }), width).map(([v, w]) => String(v).padStart(w, '0'));
    const text = fc.oneof(
      { weight: 8, arbitrary: fc.tuple(
        fc.constantFrom('', '', ' ', '\t', '\n ', '-', ' -'),
        fc.oneof({ weight: 3, arbitrary: digits(1685, 2255, fc.constant(4)) }, digits(0, 99_999, fc.integer({ min: 1, max: 6 }))),
        fc.constantFrom('-', '-', '/', '\\', ' ', '.', 'x'),
        fc.oneof({ weight: 4, arbitrary: digits(1, 12, fc.integer({ min: 1, max: 2 })) }, digits(0, 13, fc.integer({ min: 1, max: 3 }))),
        fc.constantFrom('same', 'same', 'same', '-', '/', '\\', ' ', ''),
        fc.oneof({ weight: 4, arbitrary: digits(1, 28, fc.integer({ min: 1, max: 2 })) }, digits(0, 32, fc.integer({ min: 1, max: 3 }))),
        fc.constantFrom('', '', ' ', 'T10:00Z', ' 10:00:00', 'x', '5', ' (BC)', ' (bc)x', '  (BC)', '\t(BC)', 'Z', ' (AD)'),
      ).map(([lead, y, s1, m, s2, d, tail]) => `${lead}${y}${s1}${m}${s2 === 'same' ? s1 : s2}${d}${tail}`) },
      { weight: 1, arbitrary: fc.constantFrom('epoch', 'EPOCH  ', ' epoch', '-epoch', 'epochx', 'infinity', '-Infinity ', 'inf', '', ' ', '2024', '2024-01', '-2024-01-01') },
    );
    const texts = [...new Set(fc.sample(text, { numRuns: 3000, seed: 2705 }))];
    const list = texts.map((t) => `('${t.replaceAll("'", "''")}')`).join(', ');
    const duck = (await duckConnection().runAndReadAll(`SELECT TRY_CAST(s AS DATE) FROM (VALUES ${list}) v(s)`)).getRows().map((r) => r[0] as { days: number } | null);
    let held = 0;
    texts.forEach((t, k) => {
      const want = duck[k] ?? null;
      let got: Scalar | 'refused';
      try {
        got = castValue(t, 'date', true);
      } catch (e) {
        got = (e as { code?: string }).code === 'CANOPY_ERR_OUT_OF_RANGE' ? 'refused' : String(e);
      }
      const us = want === null ? null : want.days * DAY;
      const inRange = us !== null && Math.abs(us) <= Number.MAX_SAFE_INTEGER;
      expect(got, JSON.stringify(t)).toBe(us === null ? null : inRange ? us : 'refused');
      if (inRange) held++;
    });
    expect(held).toBeGreaterThan(300);
  });
});

describe('the answer column of a DATE', () => {
  it('is typed date, rendered as DuckDB renders it in JSON and as Arrow Date32', async () => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const body = await answerBody(root, "SELECT DATE '1969-12-31' AS d, CAST(TIMESTAMP '2024-01-31 23:59:59' AS DATE) AS e FROM t LIMIT 1");
    expect(body.columns).toEqual([{ name: 'd', type: 'date' }, { name: 'e', type: 'date' }]);
    expect(body.rows).toEqual([['1969-12-31', '2024-01-31']]);
  });

  it("current_date and today() are the query's start day (UTC), a DATE; one day for the whole query", async () => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const before = new Date().toISOString().slice(0, 10);
    const body = await answerBody(root, 'SELECT current_date AS a, today() AS b, current_date = CAST(now() AS DATE) AS c, CAST(now() AS DATE) - today() AS d FROM t LIMIT 1');
    const after = new Date().toISOString().slice(0, 10);
    expect(body.columns.map((c) => c.type)).toEqual(['date', 'date', 'bool', 'int64']);
    expect([before, after]).toContain(body.rows[0]![0]);
    expect(body.rows[0]!.slice(1)).toEqual([body.rows[0]![0], true, 0]);
  });

  it('Arrow answers carry Date32 days', async () => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const table = tableFromIPC(answerToArrow(await ask(root, "SELECT DATE '1969-12-31' AS d, CAST(TIMESTAMP '2024-01-31 23:59:59' AS DATE) AS e, CAST(NULL AS DATE) AS n FROM t LIMIT 1")));
    expect(table.schema.fields.map((f) => String(f.type))).toEqual(['Date32<DAY>', 'Date32<DAY>', 'Date32<DAY>']);
    expect([0, 1].map((c) => table.getChildAt(c)!.data[0]!.values[0])).toEqual([-1, 19_753]);
    expect(table.getChildAt(2)!.get(0)).toBeNull();
  });

  it('Parquet answers write INT32 DATE days, read back as the dates', async () => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const pq = answerToParquet(await ask(root, "SELECT DATE '1969-12-31' AS d, CAST(TIMESTAMP '2024-01-31 23:00' AS DATE) AS e, CAST(NULL AS DATE) AS n FROM t LIMIT 1"));
    const buf = pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) as ArrayBuffer;
    expect(parquetMetadata(buf).schema.slice(1).map((e) => [e.name, e.type, e.converted_type])).toEqual([['d', 'INT32', 'DATE'], ['e', 'INT32', 'DATE'], ['n', 'INT32', 'DATE']]);
    const [row] = (await parquetReadObjects({ file: buf })) as { d: Date; e: Date; n: Date | null }[];
    expect([row!.d.toISOString(), row!.e.toISOString(), row!.n]).toEqual(['1969-12-31T00:00:00.000Z', '2024-01-31T00:00:00.000Z', null]);
  });

  it('CSV answers write the DATE text (NULL empty)', async () => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const csv = answerToCSV(await ask(root, "SELECT DATE '1969-12-31' AS d, CAST(NULL AS DATE) AS n FROM t LIMIT 1"));
    expect(csv).toBe('d,n\r\n1969-12-31,\r\n');
  });
});

describe('shards pruned by CAST(ts AS DATE) against a DATE: by the days of their least and greatest instants', () => {
  it('prunes the shards whose days cannot match, and answers as DuckDB', async () => {
    // Shards of 4 consecutive instants in time order: zone maps that exclude days.
    const byTs = [...ROWS].sort((a, b) => (a[3] === null ? 1 : b[3] === null ? -1 : (a[3] as number) - (b[3] as number)));
    const { root } = inProcessRoot(SCHEMA, [0, 4, 8, 12, 16].map((k) => byTs.slice(k, k + 4)), { fanout: 2 });
    for (const where of ["ts::DATE = DATE '2024-01-01'", "ts::DATE = DATE '2020-02-29'", "ts::DATE <= '2020-02-29'", "CAST(ts AS DATE) >= '2024-02-29'", "ts::DATE < DATE '1970-01-01'", "ts::DATE BETWEEN DATE '1969-12-31' AND DATE '1970-01-01'"]) {
      const sql = `SELECT count(*) AS n, min(ts) AS lo FROM t WHERE ${where}`;
      const body = await answerBody(root, sql);
      expect(body.label).toBe('exact');
      expect(body.coverage.pruned, where).toBeGreaterThan(0);
      expect(valueDiff(fromCanopy(body), fromDuck(await duckConnection().runAndReadAll(sql)), false), where).toEqual([]);
    }
  });
});

describe('the DATE of the first instants canopy holds', () => {
  it('is refused where its midnight is before -2^53 µs (DuckDB answers 1684-...), only on rows WHERE keeps', async () => {
    const first = -Number.MAX_SAFE_INTEGER;
    const { root } = inProcessRoot(TS_SCHEMA, [[[first, 0n, 'a'], [0, 1n, 'b']], [[first + DAY, 1n, 'c']]], { fanout: 2 });
    await expect(answerBody(root, 'SELECT ts::DATE AS d FROM d')).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE', message: expect.stringMatching(/before the first day/) });
    const body = await answerBody(root, 'SELECT ts::DATE AS d FROM d WHERE k > 0 ORDER BY d');
    const want = fromDuck(await duckdb().runAndReadAll(`SELECT ts::DATE AS d FROM (VALUES (${tsLiteral(first + DAY)}), (${tsLiteral(0)})) v(ts) ORDER BY d`));
    expect(valueDiff(fromCanopy(body), want, true)).toEqual([]);
  });
});

describe('the pg wire type of a DATE', () => {
  it('is date (OID 1082): text 2024-01-31, binary Int32 days since 2000-01-01', () => {
    expect(pgTypeOf('date')).toEqual({ oid: 1082, name: 'date', size: 4 });
    expect(encodeValue(19_753 * DAY, 'date', 0)?.toString()).toBe('2024-01-31');
    expect(encodeValue(-DAY, 'date', 1)?.readInt32BE()).toBe(-1 - 10_957);
  });
});

describe('DATE operations refused as DuckDB refuses them', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  itRefuses(root, [
    ['SELECT ts::DATE + j FROM t', 'CANOPY_ERR_TYPE', /INTEGER/],
    ['SELECT ts::DATE + 3000000000 FROM t', 'CANOPY_ERR_TYPE', /INTEGER/],
    ['SELECT ts::DATE + CAST(j * 100000000 AS INTEGER) FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /./],
    ['SELECT ts::DATE + ts::DATE FROM t', 'CANOPY_ERR_TYPE', /not defined/],
    ['SELECT 1 - ts::DATE FROM t', 'CANOPY_ERR_TYPE', /not defined/],
    ['SELECT ts::DATE * 2 FROM t', 'CANOPY_ERR_TYPE', /not defined/],
    ['SELECT CAST(j AS DATE) FROM t', 'CANOPY_ERR_TYPE', /cannot cast/],
    ['SELECT CAST(ts::DATE AS BIGINT) FROM t', 'CANOPY_ERR_TYPE', /cannot cast/],
    ["SELECT CAST('2024-02-30' AS DATE) FROM t", 'CANOPY_ERR_TYPE', /not a date/],
    ["SELECT DATE 'infinity' FROM t", 'CANOPY_ERR_TYPE', /does not hold/],
    ["SELECT DATE '2024-01-31 (BC)' FROM t", 'CANOPY_ERR_TYPE', /BC/],
    ["SELECT TRY_CAST('1500-01-01' AS DATE) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /does not hold/],
    ["SELECT make_date(2023, 2, 29) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /out of range/],
    ['SELECT approx_quantile(ts::DATE, 0.5) FROM t', 'CANOPY_ERR_TYPE', /DATE/],
    ['SELECT mad(ts::DATE) FROM t', 'CANOPY_ERR_TYPE', /date/],
  ]);
});
