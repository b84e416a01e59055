/**
 * A stored DATE column (column type `date`: a UTC day held as the µs of its midnight, as the
 * expression engine holds a DATE), against DuckDB over the same file:
 * - a Parquet file written by DuckDB with DATE columns (NULLs, dates before 1970, in 1700 and
 *   2250, a leap day) and a CSV of plain ISO dates (`2024-01-31`, which DuckDB's sniffer types
 *   DATE) load as `date` columns (not as timestamps at midnight);
 * - a broad set of queries over them: the raw rows, casts to VARCHAR / TIMESTAMP, WHERE against
 *   DATE, TIMESTAMP and string literals (and the zone-map pruning of it), BETWEEN, IN, GROUP BY
 *   the column and date_trunc / extract / strftime of it, DATE ± INTEGER, DATE - DATE,
 *   min / max / any_value / arg_min / count(DISTINCT), avg (a TIMESTAMP in DuckDB), quantile_disc,
 *   median, mode, string_agg, ORDER BY ... LIMIT k (top-k), DISTINCT, HAVING;
 * - hash and range partitioning (range on the date column itself), the answer JSON, the
 *   PostgreSQL type of the column and the shard cache.
 * Answers labelled exact must equal DuckDB's.
 *
 * Run: npx vitest run test/date-column-duckdb.test.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { PartitionSpec } from '../src/merge/types.ts';
import pg from 'pg';
import { OID } from '../src/pg/index.ts';
import { pgTypeOf } from '../src/pg/types.ts';
import { startLocalTree } from '../src/cli/local-tree.ts';
import { answerToJSON } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, type CanopyBody } from './helpers/compare.ts';
import { useDuckDB } from './helpers/duck.ts';
import { diffsFromDuckDB, preparedInProcessTree, type PreparedTree } from './helpers/prepared-tree.ts';
import { useTempDirs } from './helpers/temp-dirs.ts';
import { serveRoot } from './helpers/pg.ts';
import { ask } from './helpers/tree.ts';

const duckdb = useDuckDB();
const fresh = useTempDirs('canopy-date-column-');

/**
 * The Parquet table: i (BIGINT), d (DATE: NULLs, 1700, 2250, a leap day, dates on both sides of
 * 1970), e (DATE, 90 consecutive days: a dense group key), ts (TIMESTAMP), g (VARCHAR, 4 groups).
 */
const PARQUET_SELECT = `SELECT i::BIGINT AS i,
    CASE WHEN i % 11 = 0 THEN NULL
         WHEN i = 1 THEN DATE '1700-01-01' WHEN i = 2 THEN DATE '2250-12-31' WHEN i % 13 = 0 THEN DATE '2024-02-29'
         WHEN i = 4 THEN DATE '1969-12-31' WHEN i = 5 THEN DATE '1970-01-01' WHEN i = 6 THEN DATE '1685-06-01'
         ELSE DATE '1940-01-01' + ((i * 7919) % 40000)::INTEGER END AS d,
    DATE '2024-01-01' + (i % 90)::INTEGER AS e,
    TIMESTAMP '2024-02-27 00:00:00' + INTERVAL (i * 3600 * 5) SECOND AS ts,
    'g' || (i % 4) AS g
  FROM range(300) r(i)`;

/** Queries over the Parquet table `t` (FROM t is replaced by the file for DuckDB). */
const QUERIES: readonly string[] = [
  // The raw column, its text and its casts.
  'SELECT d FROM t',
  'SELECT i, d, e FROM t',
  'SELECT d::VARCHAR AS s, CAST(d AS VARCHAR) AS c FROM t',
  'SELECT d::TIMESTAMP AS a, CAST(e AS TIMESTAMP) AS b, TRY_CAST(d AS TIMESTAMP) AS c, d::DATE AS x FROM t',
  "SELECT count(*) AS n FROM t WHERE d::VARCHAR = '2024-02-29'",
  "SELECT count(*) AS n FROM t WHERE CAST(d AS VARCHAR) LIKE '%00:00%'",
  "SELECT count(*) AS n FROM t WHERE d::VARCHAR LIKE '17%'",
  // Aggregates that pick a value, count(DISTINCT), avg (a TIMESTAMP in DuckDB).
  'SELECT count(*) AS n, count(d) AS k, count(DISTINCT d) AS u, min(d) AS lo, max(d) AS hi FROM t',
  'SELECT g, min(d) AS lo, max(d) AS hi, count(DISTINCT d) AS u, min(e) AS elo, max(e) AS ehi FROM t GROUP BY g',
  'SELECT arg_min(d, i) AS a, arg_max(d, i) AS b, arg_min(i, d) AS c, arg_max(g, d) AS x, any_value(d ORDER BY d) AS y FROM t',
  'SELECT g, arg_max(i, d) AS a, arg_min(e, d) AS b FROM t GROUP BY g',
  'SELECT avg(d) AS a, avg(e) AS b FROM t',
  'SELECT g, avg(d) AS a FROM t GROUP BY g',
  'SELECT max(d) - min(d) AS span, max(e) - min(e) AS espan FROM t',
  // Quantiles and mode.
  'SELECT quantile_disc(d, 0.5) AS q, median(d) AS m, mode(d) AS o FROM t',
  'SELECT quantile_disc(e, 0.25) AS a, quantile_disc(e, 0.9) AS b, median(e) AS c FROM t',
  'SELECT g, quantile_disc(d, 0.5) AS q FROM t GROUP BY g',
  'SELECT g, mode(d) AS o FROM t GROUP BY g',
  // (mode(e) per g has ties, which DuckDB breaks by its hash order: canopy answers it bounded, as for a timestamp.)
  "SELECT string_agg(d::VARCHAR, ',' ORDER BY d) AS s FROM t",
  "SELECT g, string_agg(e::VARCHAR, ',' ORDER BY e, i) AS s FROM t GROUP BY g",
  // GROUP BY the column and functions of it.
  'SELECT d, count(*) AS n FROM t GROUP BY d',
  'SELECT e, count(*) AS n, sum(i) AS s FROM t GROUP BY e ORDER BY e',
  'SELECT DISTINCT d FROM t',
  "SELECT date_trunc('month', d) AS m, count(*) AS n FROM t GROUP BY date_trunc('month', d)",
  "SELECT date_trunc('year', e) AS y, count(*) AS n FROM t GROUP BY 1",
  'SELECT extract(year FROM d) AS y, count(*) AS n FROM t GROUP BY extract(year FROM d)',
  'SELECT extract(month FROM e) AS m, extract(dow FROM e) AS w, count(*) AS n FROM t GROUP BY 1, 2',
  "SELECT strftime(d, '%Y/%m') AS s, count(*) AS n FROM t GROUP BY strftime(d, '%Y/%m')",
  "SELECT date_part('doy', d) AS a, year(d) AS b, month(d) AS c, day(d) AS x FROM t",
  'SELECT g, max(d) AS hi FROM t GROUP BY g HAVING max(d) > DATE \'2100-01-01\'',
  // Arithmetic.
  "SELECT d + 1 AS a, d - 1 AS b, d - DATE '2024-01-01' AS c, e - d AS x, 7 + e AS y FROM t",
  "SELECT d + INTERVAL 1 MONTH AS a, e - INTERVAL '2 days' AS b FROM t",
  "SELECT date_diff('day', d, e) AS a, date_diff('month', d, e) AS b, last_day(d) AS c FROM t",
  "SELECT greatest(d, e) AS a, least(d, DATE '2000-01-01') AS b, coalesce(d, e) AS c, CASE WHEN d IS NULL THEN e ELSE d END AS x FROM t",
  // WHERE against DATEs, TIMESTAMPs, strings; BETWEEN and IN; pruning.
  "SELECT i FROM t WHERE d = '2024-02-29'",
  "SELECT i FROM t WHERE d = DATE '2024-02-29'",
  "SELECT i FROM t WHERE d = TIMESTAMP '2024-02-29 00:00:00'",
  "SELECT i FROM t WHERE d > TIMESTAMP '2024-02-28 12:00:00'",
  "SELECT count(*) AS n FROM t WHERE d >= DATE '2024-01-01'",
  "SELECT count(*) AS n FROM t WHERE d < DATE '1970-01-01'",
  "SELECT i, d FROM t WHERE d >= DATE '2200-01-01'",
  "SELECT i, d FROM t WHERE d <= '1700-01-01'",
  "SELECT count(*) AS n FROM t WHERE d BETWEEN DATE '1969-12-31' AND DATE '1970-01-01'",
  "SELECT count(*) AS n FROM t WHERE d BETWEEN '1700-01-01' AND TIMESTAMP '1969-12-31 10:00:00'",
  "SELECT count(*) AS n FROM t WHERE e BETWEEN '2024-02-01' AND '2024-02-29'",
  "SELECT i FROM t WHERE d IN ('2024-02-29', DATE '1700-01-01', '2250-12-31')",
  "SELECT count(*) AS n FROM t WHERE d NOT IN (DATE '2024-02-29')",
  'SELECT i FROM t WHERE d = e',
  'SELECT count(*) AS n FROM t WHERE d < ts',
  'SELECT count(*) AS n FROM t WHERE e::TIMESTAMP = date_trunc(\'day\', ts)',
  'SELECT count(*) AS n FROM t WHERE d IS NULL',
  "SELECT count(*) FILTER (WHERE d < e) AS a, count(DISTINCT d) FILTER (WHERE d > '2000-01-01') AS b FROM t",
  "SELECT min(d) AS lo FROM t WHERE d > DATE '2100-01-01'",
  // ORDER BY ... LIMIT k (top-k of rows and of groups).
  'SELECT d FROM t ORDER BY d LIMIT 5',
  'SELECT d FROM t ORDER BY d DESC NULLS LAST LIMIT 5',
  'SELECT d FROM t ORDER BY d NULLS FIRST LIMIT 3',
  'SELECT i, d FROM t ORDER BY d DESC, i LIMIT 7',
  'SELECT i, e FROM t ORDER BY e, i LIMIT 6',
  'SELECT d, count(*) AS n FROM t GROUP BY d ORDER BY n DESC, d LIMIT 3',
  'SELECT e, sum(i) AS s FROM t GROUP BY e ORDER BY e DESC LIMIT 4',
  'SELECT g, max(d) AS hi FROM t GROUP BY g ORDER BY hi DESC, g LIMIT 2',
  'SELECT d FROM t ORDER BY d',
];

/** The CSV of plain dates: k (int64), v (dates, a NULL, pre-1970, a leap day), w (dates). */
const CSV_BODY = [
  'k,v,w',
  '0,2024-01-31,2024-01-01',
  '1,1900-01-01,2024-01-02',
  '2,2024-02-29,2024-01-02',
  '3,,2024-01-03',
  '4,1969-12-31,2024-01-03',
  '5,2250-06-01,2024-01-04',
  '6,1700-03-01,2024-01-05',
  '7,2024-02-29,2024-01-06',
  '8,1970-01-01,2024-01-07',
  '',
].join('\n');

const CSV_QUERIES: readonly string[] = [
  'SELECT k, v, w FROM t',
  'SELECT v::VARCHAR AS s, v::TIMESTAMP AS x FROM t',
  "SELECT count(*) AS n FROM t WHERE v::VARCHAR = '2024-02-29'",
  'SELECT count(*) AS n, count(v) AS c, count(DISTINCT v) AS u, min(v) AS lo, max(v) AS hi, avg(v) AS a FROM t',
  'SELECT v, count(*) AS n FROM t GROUP BY v',
  'SELECT v FROM t ORDER BY v LIMIT 3',
  'SELECT v FROM t ORDER BY v DESC NULLS LAST LIMIT 3',
  "SELECT v + 1 AS a, v - DATE '2024-01-01' AS b, w - v AS c, extract(year FROM v) AS y, strftime(v, '%Y/%m') AS f FROM t",
  "SELECT count(*) AS n FROM t WHERE v BETWEEN DATE '1900-01-01' AND TIMESTAMP '2024-01-31 00:00:00'",
  "SELECT k FROM t WHERE v = '2024-02-29'",
  'SELECT quantile_disc(v, 0.5) AS q, median(w) AS m, mode(v) AS o FROM t',
  "SELECT date_trunc('month', w) AS m, count(*) AS n FROM t GROUP BY 1",
];

/** Differences between canopy's answers and DuckDB's over `from` (see diffsFromDuckDB). */
function diffs(t: PreparedTree, from: string, queries: readonly string[]): Promise<string[]> {
  return diffsFromDuckDB(t, duckdb(), from, queries);
}


async function parquetFile(): Promise<string> {
  const file = join(fresh('pq'), 'dates.parquet');
  await duckdb().run(`COPY (${PARQUET_SELECT}) TO '${file}' (FORMAT parquet)`);
  return file;
}

function csvFile(): string {
  const file = join(fresh('csv'), 'dates.csv');
  writeFileSync(file, CSV_BODY);
  return file;
}

function tree(path: string, partition: PartitionSpec, shards: number): Promise<PreparedTree> {
  return preparedInProcessTree({ path, table: 't', shards, partition, cacheDir: fresh('cache'), fanout: 2 });
}

describe('a Parquet DATE column', () => {
  it('loads as a date column, typed as DuckDB types it', async () => {
    const f = await parquetFile();
    const t = await tree(f, { kind: 'hash' }, 3);
    expect(t.catalog.table.columns.map((c) => [c.name, c.type])).toEqual([['i', 'int64'], ['d', 'date'], ['e', 'date'], ['ts', 'timestamp'], ['g', 'string']]);
    const types = (await duckdb().runAndReadAll(`SELECT d, e FROM read_parquet('${f}') LIMIT 0`)).columnTypes().map(String);
    expect(types).toEqual(['DATE', 'DATE']);
    const body = answerToJSON(await ask(t.root, "SELECT d FROM t WHERE d IN ('2024-02-29', '1700-01-01') ORDER BY d LIMIT 2")) as unknown as CanopyBody;
    expect(body.columns).toEqual([{ name: 'd', type: 'date' }]);
    expect(body.rows).toEqual([['1700-01-01'], ['2024-02-29']]);
    // The PostgreSQL endpoint sends a date column as date (OID 1082).
    expect(pgTypeOf(t.catalog.table.columns[1]!.type)).toMatchObject({ oid: 1082, name: 'date' });
  });

  for (const [name, partition, shards] of [
    ['hash partitioning', { kind: 'hash' }, 3],
    ['range partitioning on the date column', { kind: 'range', column: 'd' }, 5],
    ['range partitioning on another date column', { kind: 'range', column: 'e' }, 4],
  ] as const) {
    it(`answers as DuckDB over a DATE column (${name})`, async () => {
      const f = await parquetFile();
      const t = await tree(f, partition, shards);
      const d = await diffs(t, `read_parquet('${f}')`, QUERIES);
      expect(d, d.join('\n')).toEqual([]);
    }, 120_000);
  }

  it('prunes shards by the zone map of a date column', async () => {
    const f = await parquetFile();
    const t = await tree(f, { kind: 'range', column: 'd' }, 5);
    const body = answerToJSON(await ask(t.root, "SELECT count(*) AS n FROM t WHERE d >= DATE '2200-01-01'")) as unknown as CanopyBody & { coverage: { pruned: number } };
    expect(body.rows).toEqual([[1]]);
    expect(body.coverage.pruned).toBeGreaterThan(0);
  });
});

describe('a date column over HTTP (startLocalTree, placement tiers: every hop over HTTP)', () => {
  it('answers as DuckDB: the shard files, partials and answers carry DATEs', async () => {
    const f = await parquetFile();
    const lt = await startLocalTree({ data: f, table: 't', shards: 4, partition: { kind: 'range', column: 'd' }, fanout: 2, port: 0, cacheDir: fresh('http-cache'), leafProcesses: 1, placement: 'tiers' });
    try {
      const out: string[] = [];
      for (const sql of [
        'SELECT count(*) AS n, count(DISTINCT d) AS u, min(d) AS lo, max(d) AS hi, avg(d) AS a, quantile_disc(d, 0.5) AS q FROM t',
        'SELECT d, count(*) AS n FROM t GROUP BY d ORDER BY d NULLS FIRST',
        'SELECT i, d, d::VARCHAR AS s, d + 1 AS n FROM t ORDER BY d DESC NULLS LAST, i LIMIT 6',
        "SELECT count(*) AS n FROM t WHERE d BETWEEN DATE '1969-12-31' AND TIMESTAMP '2024-02-29 00:00:00'",
      ]) {
        const res = await fetch(`${lt.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
        const body = (await res.json()) as CanopyBody;
        if (res.status !== 200) {
          out.push(`${sql}\n    HTTP ${res.status} ${JSON.stringify(body)}`);
          continue;
        }
        const want = fromDuck(await duckdb().runAndReadAll(sql.replaceAll(' FROM t', ` FROM read_parquet('${f}') AS t`)));
        if (body.label !== 'exact') out.push(`${sql}\n    label ${body.label}`);
        const d = diffResults(fromCanopy(body), want, { ordered: /ORDER BY/.test(sql) });
        if (d.length > 0) out.push(`${sql}\n    ${d.join('\n    ')}`);
      }
      expect(out, out.join('\n')).toEqual([]);
    } finally {
      await lt.close();
    }
  }, 120_000);
});

describe('a date column over the PostgreSQL protocol', () => {
  it('is sent as date (OID 1082) in PostgreSQL text, and listed as date in information_schema', async () => {
    const f = await parquetFile();
    const t = await tree(f, { kind: 'hash' }, 3);
    const s = await serveRoot(t.root);
    const c = new pg.Client({ host: '127.0.0.1', port: s.pg.port, user: 'u', database: 'canopy' });
    try {
      await c.connect();
      const sql = "SELECT d, d + 1 AS n, min(e) AS lo FROM t WHERE d IN ('2024-02-29', '1700-01-01', '1969-12-31') GROUP BY d ORDER BY d";
      const r = await c.query({ text: sql, rowMode: 'array', types: { getTypeParser: () => (v: string) => v } as never });
      expect(r.fields.map((x) => x.dataTypeID)).toEqual([OID.date, OID.date, OID.date]);
      const want = await duckdb().runAndReadAll(`SELECT d::VARCHAR, n::VARCHAR, lo::VARCHAR FROM (${sql.replace(' FROM t', ` FROM read_parquet('${f}')`)})`);
      expect(want.getRows()).toHaveLength(3);
      expect(r.rows).toEqual(want.getRows());
      const cols = await c.query({ text: "SELECT column_name, data_type, udt_name, datetime_precision FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position", rowMode: 'array' });
      expect(cols.rows.slice(1, 4)).toEqual([['d', 'date', 'date', '0'], ['e', 'date', 'date', '0'], ['ts', 'timestamp with time zone', 'timestamptz', '6']]);
    } finally {
      await c.end();
      await s.close();
    }
  });
});

describe('a CSV column of plain dates', () => {
  it('loads as a date column, as DuckDB sniffs it', async () => {
    const f = csvFile();
    const t = await tree(f, { kind: 'hash' }, 2);
    expect(t.catalog.table.columns.map((c) => c.type)).toEqual(['int64', 'date', 'date']);
    const types = (await duckdb().runAndReadAll(`SELECT k, v, w FROM read_csv('${f}') LIMIT 0`)).columnTypes().map(String);
    expect(types).toEqual(['BIGINT', 'DATE', 'DATE']);
  });

  for (const [name, partition, shards] of [
    ['hash partitioning', { kind: 'hash' }, 3],
    ['range partitioning on the date column', { kind: 'range', column: 'v' }, 3],
  ] as const) {
    it(`answers as DuckDB (${name})`, async () => {
      const f = csvFile();
      const t = await tree(f, partition, shards);
      const d = await diffs(t, `read_csv('${f}')`, CSV_QUERIES);
      expect(d, d.join('\n')).toEqual([]);
    }, 60_000);
  }

  it('a CSV column mixing dates and timestamps stays a timestamp column', async () => {
    const file = join(fresh('csv'), 'mixed.csv');
    writeFileSync(file, 'k,v\n0,2024-01-31\n1,2024-01-31 10:00:00\n');
    const t = await tree(file, { kind: 'hash' }, 2);
    expect(t.catalog.table.columns.map((c) => c.type)).toEqual(['int64', 'timestamp']);
  });
});
