/**
 * The dashboard (`GET /`, src/root/public): its files are served, and in a real browser
 * (Debian's chromium driven by playwright-core) a query against a root whose shard 3 is
 * 1.5 s slow shows a partial state first (pending shards, a label "so far", bounded cells)
 * and then the final answer with its label, chart, table and straggler timeline; every
 * example query runs; errors are shown with their code (and HTTP status when the request is
 * refused before streaming). Against a root that requires a bearer token the page shows a
 * token field on 401, refuses a wrong token, then runs with the right one (sent as
 * Authorization, kept in sessionStorage, never in the URL); SQL longer than a GET URL allows
 * runs (the page POSTs). Over 182 days of flights-like data: the chart has a time axis with
 * 182 daily points and one series per origin (line, bars, area), bands and whiskers when a
 * shard fails; the table sorts by header and pages over every row; each export (CSV, JSON,
 * Arrow, Parquet) downloaded and parsed back equals the JSON answer, and Copy as TSV the rows
 * in the order shown; history and saved queries survive a reload; the share URL (query in the
 * fragment, never in a request URL) reopens the query; a syntax error puts the caret at the
 * reported line and column with a handful of expected tokens and clears chart and table; the
 * previous answer is greyed until the first snapshot; the schema panel shows the catalog;
 * 10,000 rows page and sort (render time logged). Without a browser: column roles, the
 * catalog routes, CSV and Parquet answers, the expected-token summary and the chart model
 * (top n and "other", decimation, interval kinds). Screenshots go to test-artifacts/.
 * The browser part is skipped, saying so, only when /usr/bin/chromium is absent (.ci/run
 * installs it).
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { tableFromIPC } from 'apache-arrow';
import { parse as parseCsv } from 'csv-parse/sync';
import { parquetMetadata, parquetReadObjects } from 'hyparquet';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { isoFromMicros, type Scalar } from '../src/merge/index.ts';
import { buildRootApp } from '../src/root/index.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS, shardOf, throwingHandler } from './helpers/flights.ts';
import { inProcessRoot } from './helpers/tree.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`dashboard browser tests SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run installs it)`);

const ORIGINS = ['ATL', 'DFW', 'ORD', 'LAX', 'SFO', 'JFK', 'SEA', 'DEN'];

/** 8 shards of 60 flights-like rows each, January to June 2001. */
const SHARDS: Scalar[][][] = Array.from({ length: 8 }, (_, s) =>
  Array.from({ length: 60 }, (_, i) => [
    (Date.UTC(2001, 0, 1) + ((i * 72 + s * 9) % (181 * 24)) * 3_600_000) * 1000,
    BigInt(((i * 13 + s * 7) % 90) - 20),
    BigInt(200 + ((i * 53 + s * 31) % 2400)),
    ORIGINS[Math.floor(Math.sqrt((i * 17 + s * 5) % 64))]!,
    ORIGINS[(i + s + 3) % ORIGINS.length]!,
  ]),
);

const DAYS = 182; // 2001-01-01 to 2001-07-01
const SERIES_ORIGINS = ['ORD', 'ATL', 'DFW', 'LAX'];

/** 4 shards of 10,192 flights over 182 days, 10 to 18 a day per origin. */
const SERIES: Scalar[][][] = (() => {
  const shards: Scalar[][][] = [[], [], [], []];
  let k = 0;
  for (let d = 0; d < DAYS; d++) {
    for (const [o, origin] of SERIES_ORIGINS.entries()) {
      const n = 10 + ((d * 7 + o * 5) % 9);
      for (let j = 0; j < n; j++, k++) {
        shards[k % 4]!.push([Date.UTC(2001, 0, 1 + d, j % 24, (k * 7) % 60) * 1000, BigInt(((k * 37) % 130) - 20), BigInt(200 + ((k * 53) % 2400)), origin, SERIES_ORIGINS[(o + j + 1) % 4]!]);
      }
    }
  }
  return shards;
})();

const DAILY = "SELECT date_trunc('day', date) AS day, origin, count(*) AS flights FROM flights WHERE origin IN ('ORD', 'ATL') GROUP BY day, origin ORDER BY day";
const BAD = 'SELECT origin,\n       count(*) AS flights\nFROM flights\nWHERE';
const TEN_K = 'SELECT date, origin, delay FROM flights ORDER BY delay LIMIT 10000';

/** Rows in a canonical order, to compare as multisets. */
const sortRows = (rows: readonly unknown[][]): string[] => rows.map((r) => JSON.stringify(r)).sort();

const SLOW_SHARD = 3;
const SLOW_MS = 1500;
const FAILED_SHARD = 6;
const API_TOKEN = 'dashboard-t0ken';

const apps: FastifyInstance[] = [];
let slowUrl = '';
let failingUrl = '';
let tokenUrl = '';
let deadUrl = '';
let seriesUrl = '';
let seriesFailingUrl = '';

beforeAll(async () => {
  // Real timers: the slow leaf answers 1.5 s after it is asked.
  const slow = inProcessRoot(FLIGHTS_SCHEMA, SHARDS, {
    fanout: 4,
    wrap: (leaf) => (shardOf(leaf) === SLOW_SHARD ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [SLOW_SHARD], latency: { kind: 'fixed', ms: SLOW_MS } }] }) : leaf.handler),
  });
  const failing = inProcessRoot(FLIGHTS_SCHEMA, SHARDS, { fanout: 4, wrap: (leaf) => (shardOf(leaf) === FAILED_SHARD ? throwingHandler('disk on fire') : leaf.handler) });
  const guarded = inProcessRoot(FLIGHTS_SCHEMA, SHARDS, { fanout: 4 });
  const dead = inProcessRoot(FLIGHTS_SCHEMA, SHARDS, { fanout: 4, wrap: () => throwingHandler('disk on fire') });
  const series = inProcessRoot(FLIGHTS_SCHEMA, SERIES, { fanout: 2 });
  const seriesFailing = inProcessRoot(FLIGHTS_SCHEMA, SERIES, { fanout: 2, wrap: (leaf) => (shardOf(leaf) === 1 ? throwingHandler('disk on fire') : leaf.handler) });
  for (const [root, set, apiToken] of [
    [slow.root, (u: string) => (slowUrl = u), undefined],
    [failing.root, (u: string) => (failingUrl = u), undefined],
    [guarded.root, (u: string) => (tokenUrl = u), API_TOKEN],
    [dead.root, (u: string) => (deadUrl = u), undefined],
    [series.root, (u: string) => (seriesUrl = u), undefined],
    [seriesFailing.root, (u: string) => (seriesFailingUrl = u), undefined],
  ] as const) {
    const app = buildRootApp(root, { snapshotIntervalMs: 50, ...(apiToken === undefined ? {} : { apiToken }) });
    apps.push(app);
    set(await app.listen({ host: '127.0.0.1', port: 0 }));
  }
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

describe('dashboard files', () => {
  it('GET / serves the page, its script and style, and uPlot from its npm package', async () => {
    const app = apps[0]!;
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<textarea id="sql"');
    expect(page.body.match(/class="example"/g)?.length).toBeGreaterThanOrEqual(4);
    for (const [url, type, text] of [
      ['/dashboard.js', 'text/javascript', "from './stream.js'"],
      ['/stream.js', 'text/javascript', 'application/x-ndjson'],
      ['/table.js', 'text/javascript', 'export class AnswerTable'],
      ['/chart.js', 'text/javascript', 'export class AnswerChart'],
      ['/chart-model.js', 'text/javascript', 'export function chartModel'],
      ['/editor.js', 'text/javascript', 'export function showCaret'],
      ['/dashboard.css', 'text/css', '.coverage-bar'],
      ['/vendor/uplot.js', 'text/javascript', 'uPlot'],
      ['/vendor/uplot.css', 'text/css', '.uplot'],
    ] as const) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toContain(type);
      expect(res.body, url).toContain(text);
    }
    // Every module the page imports is served (no CDN, nothing missing).
    const imports = new Set<string>(['/dashboard.js']);
    for (const url of imports) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      for (const m of res.body.matchAll(/from '\.\/([\w-]+\.js)'/g)) imports.add(`/${m[1]}`);
    }
    expect(imports.size).toBeGreaterThanOrEqual(9);
    expect(page.body).not.toMatch(/https?:\/\/(?!127\.0\.0\.1)/); // no CDN
    // Other routes are untouched.
    const nope = await app.inject({ method: 'GET', url: '/nope' });
    expect(nope.statusCode).toBe(404);
    expect(nope.json()).toMatchObject({ error: { code: 'CANOPY_ERR_NOT_FOUND' } });
  });
});

describe('what the root serves the dashboard: column roles, catalog, CSV and Parquet', () => {
  const post = (sql: string, accept?: string) => apps[4]!.inject({ method: 'POST', url: '/v1/query', headers: accept === undefined ? {} : { accept }, payload: { sql } });

  it('every answer and snapshot names each column role: group key, aggregate (function, uncertainty) or column', async () => {
    const a = (await post("SELECT origin, date_trunc('day', date) AS day, count(*) AS n, count(DISTINCT delay) AS d, median(delay) AS m, avg(delay) AS a FROM flights GROUP BY day, origin")).json() as { roles: unknown[] };
    expect(a.roles).toEqual([
      { role: 'group_key', key: 1 },
      { role: 'group_key', key: 0 },
      { role: 'aggregate', aggregate: 'count', uncertainty: 'catalog' },
      { role: 'aggregate', aggregate: 'count_distinct', uncertainty: 'sketch_estimate' },
      { role: 'aggregate', aggregate: 'median', uncertainty: 'sketch_bound' },
      { role: 'aggregate', aggregate: 'avg', uncertainty: 'catalog' },
    ]);
    expect(((await post('SELECT date, delay FROM flights LIMIT 2')).json() as { roles: unknown[] }).roles).toEqual([{ role: 'column' }, { role: 'column' }]);
    const lines = (await post('SELECT origin, count(*) AS n FROM flights GROUP BY origin', 'application/x-ndjson')).body.trim().split('\n').map((l) => JSON.parse(l) as { roles: unknown[] });
    for (const l of lines) expect(l.roles).toEqual([{ role: 'group_key', key: 0 }, { role: 'aggregate', aggregate: 'count', uncertainty: 'catalog' }]);
  });

  it('GET /v1/catalog: tables, columns, types, shards, rows and min/max/null counts over the shards; per shard on demand; behind the API token', async () => {
    const rows = SERIES.flat();
    const body = (await apps[4]!.inject({ method: 'GET', url: '/v1/catalog' })).json() as { tables: { name: string; shards: number; rows: number; columns: { name: string; type: string; min: unknown; max: unknown; null_count: number }[] }[] };
    expect(body.tables.map((t) => [t.name, t.shards, t.rows])).toEqual([['flights', SERIES.length, rows.length]]);
    const col = (i: number) => rows.map((r) => r[i]!);
    const extent = (v: Scalar[]) => [v.reduce((x, y) => (y! < x! ? y : x)), v.reduce((x, y) => (y! > x! ? y : x))];
    const [dmin, dmax] = extent(col(0));
    const [lmin, lmax] = extent(col(1));
    const [omin, omax] = extent(col(3));
    expect(body.tables[0]!.columns).toEqual([
      { name: 'date', type: 'timestamp', min: isoFromMicros(dmin as number), max: isoFromMicros(dmax as number), null_count: 0 },
      { name: 'delay', type: 'int64', min: Number(lmin), max: Number(lmax), null_count: 0 },
      expect.objectContaining({ name: 'distance', type: 'int64', null_count: 0 }),
      { name: 'origin', type: 'string', min: omin, max: omax, null_count: 0 },
      expect.objectContaining({ name: 'destination', type: 'string', null_count: 0 }),
    ]);
    // NULLs are counted (the small flights fixture has some).
    const withNulls = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
    const nulls = (await buildRootApp(withNulls.root).inject({ method: 'GET', url: '/v1/catalog' })).json() as typeof body;
    expect(nulls.tables[0]!.columns.map((c) => c.null_count)).toEqual(FLIGHTS_SCHEMA.columns.map((_, i) => FLIGHTS_SHARDS.flat().filter((r) => r[i] === null).length));
    const shards = (await apps[4]!.inject({ method: 'GET', url: '/v1/catalog/flights/shards' })).json() as { shards: { id: number; rows: number }[] };
    expect(shards.shards.map((s) => [s.id, s.rows])).toEqual(SERIES.map((s, i) => [i, s.length]));
    expect((await apps[4]!.inject({ method: 'GET', url: '/v1/catalog/nope/shards' })).json()).toMatchObject({ error: { code: 'CANOPY_ERR_UNKNOWN_TABLE' } });
    const guarded = apps[2]!;
    expect((await guarded.inject({ method: 'GET', url: '/v1/catalog' })).statusCode).toBe(401);
    expect((await guarded.inject({ method: 'GET', url: '/v1/catalog/flights/shards', headers: { authorization: 'Bearer wrong' } })).statusCode).toBe(401);
    expect((await guarded.inject({ method: 'GET', url: '/v1/catalog', headers: { authorization: `Bearer ${API_TOKEN}` } })).statusCode).toBe(200);
  });

  it('CSV: RFC 4180 quoting, NULL empty and \'\' quoted; a partial answer carries [lo], [hi] and [label] columns', async () => {
    const quirky = inProcessRoot(FLIGHTS_SCHEMA, [[[Date.UTC(2001, 0, 1) * 1000, 1n, 2n, 'a,"b"', ''], [Date.UTC(2001, 0, 2) * 1000, null, 3n, ' x', null]]], { fanout: 2 });
    const res = await buildRootApp(quirky.root).inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/csv' }, payload: { sql: 'SELECT date, delay, origin, destination FROM flights ORDER BY date LIMIT 5' } });
    expect(res.headers['content-type']).toBe('text/csv; charset=utf-8; header=present');
    expect(res.headers['x-canopy-label']).toBe('exact');
    expect(res.body).toBe('date,delay,origin,destination\r\n2001-01-01T00:00:00.000Z,1,"a,""b""",""\r\n2001-01-02T00:00:00.000Z,," x",\r\n');
    const failing = apps[5]!;
    const partial = await failing.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/csv' }, payload: { sql: 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY origin' } });
    const json = (await failing.inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY origin' } })).json() as { rows: unknown[][]; cells: { lo: number; hi: number; label: string }[][] };
    expect(partial.headers['x-canopy-label']).toBe('approximate');
    expect(partial.headers['cache-control']).toBe('no-store');
    const csv = parseCsv(partial.body) as string[][];
    expect(csv[0]).toEqual(['origin', 'n', 'n [lo]', 'n [hi]', 'n [label]']);
    expect(csv.slice(1)).toEqual(json.rows.map((r, i) => [r[0], String(r[1]), String(json.cells[i]![1]!.lo), String(json.cells[i]![1]!.hi), json.cells[i]![1]!.label]));
  });

  it('Parquet: typed columns (INT64, DOUBLE, UTF8, TIMESTAMP micros UTC), NULLs, canopy.* metadata; equal to the JSON answer', async () => {
    const sql = "SELECT date_trunc('month', date) AS month, origin, count(*) AS n, avg(delay) AS avg_delay FROM flights GROUP BY month, origin ORDER BY month, origin";
    const failing = apps[5]!;
    const res = await failing.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/vnd.apache.parquet' }, payload: { sql } });
    expect(res.headers['content-type']).toBe('application/vnd.apache.parquet');
    const json = (await failing.inject({ method: 'POST', url: '/v1/query', payload: { sql } })).json() as { rows: unknown[][]; cells: unknown; coverage: unknown };
    const buf = res.rawPayload.buffer.slice(res.rawPayload.byteOffset, res.rawPayload.byteOffset + res.rawPayload.byteLength) as ArrayBuffer;
    const meta = parquetMetadata(buf);
    expect(meta.schema.slice(1).map((e) => [e.name, e.type, e.repetition_type])).toEqual([
      ['month', 'INT64', 'OPTIONAL'],
      ['origin', 'BYTE_ARRAY', 'OPTIONAL'],
      ['n', 'INT64', 'OPTIONAL'],
      ['avg_delay', 'DOUBLE', 'OPTIONAL'],
    ]);
    expect(meta.schema[1]!.logical_type).toEqual({ type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' });
    const kv = new Map(meta.key_value_metadata?.map((e) => [e.key, e.value]));
    expect(kv.get('canopy.label')).toBe('approximate');
    expect(JSON.parse(kv.get('canopy.cells')!)).toEqual(json.cells);
    expect(JSON.parse(kv.get('canopy.coverage')!)).toEqual(json.coverage);
    const objects = (await parquetReadObjects({ file: buf })) as { month: Date; origin: string; n: bigint; avg_delay: number }[];
    expect(objects.map((o) => [o.month.toISOString(), o.origin, Number(o.n), o.avg_delay])).toEqual(json.rows);
    const nullable = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
    const pq = (await buildRootApp(nullable.root).inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/vnd.apache.parquet' }, payload: { sql: 'SELECT date, delay, origin FROM flights ORDER BY date LIMIT 20' } })).rawPayload;
    const rowsBack = (await parquetReadObjects({ file: pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) as ArrayBuffer })) as { delay: bigint | null; origin: string | null }[];
    expect(rowsBack.filter((r) => r.delay === null).length).toBe(FLIGHTS_SHARDS.flat().filter((r) => r[1] === null).length);
    expect(rowsBack.filter((r) => r.origin === null).length).toBe(FLIGHTS_SHARDS.flat().filter((r) => r[3] === null).length);
  });

  it('a syntax error names a handful of expected tokens, most useful first, not the grammar\'s 40 to 190', async () => {
    for (const sql of ['SELECT count(*) FROM flights WHERE', 'SELECT origin FROM flights GROUP origin', 'SELECT origin, count(*) FROM flights GROUP BY origin ORDER']) {
      const e = (await post(sql)).json() as { error: { code: string; message: string; details: { expected: string[] } } };
      expect(e.error.code).toBe('CANOPY_ERR_BAD_QUERY');
      expect(e.error.details.expected.length).toBeGreaterThan(0);
      expect(e.error.details.expected.length).toBeLessThanOrEqual(6);
      expect(e.error.message).toMatch(/expected .* but found/);
      expect(e.error.message.length).toBeLessThan(200);
    }
    expect(((await post('SELECT count(*) FROM flights WHERE')).json() as { error: { details: { expected: string[] } } }).error.details.expected.slice(0, 2)).toEqual(['a name', 'NOT']);
    expect(((await post('SELECT origin FROM flights GROUP origin')).json() as { error: { details: { expected: string[] } } }).error.details.expected).toEqual(['BY']);
  });
});

describe('table sort order (src/root/public/table.js compareValues)', async () => {
  const { compareValues } = (await import(new URL('../src/root/public/table.js', import.meta.url).href)) as { compareValues: (x: unknown, y: unknown, type: string) => number };
  const sorted = (values: unknown[], type: string) => [...values].sort((x, y) => compareValues(x, y, type));
  it('numbers, int64 beyond 2^53 as decimal strings, NaN above numbers, NULL last', () => {
    expect(sorted([3, null, '9007199254740993', -1, '9007199254740992', 'NaN'], 'int64')).toEqual([-1, 3, '9007199254740992', '9007199254740993', 'NaN', null]);
    expect(sorted([2.5, 'Infinity', '-Infinity', 0], 'float64')).toEqual(['-Infinity', 0, 2.5, 'Infinity']);
  });
  it('timestamps by time, microseconds included; strings by code unit', () => {
    expect(sorted(['2001-01-01T00:00:00.001Z', '2001-01-01T00:00:00.000250Z', null, '2001-01-01T00:00:00.000Z'], 'timestamp')).toEqual(['2001-01-01T00:00:00.000Z', '2001-01-01T00:00:00.000250Z', '2001-01-01T00:00:00.001Z', null]);
    expect(sorted(['b', 'B', 'a', ''], 'string')).toEqual(['', 'B', 'a', 'b']);
  });
});

/** The chart model (src/root/public/chart-model.js, a browser module without DOM use), in Node. */
describe('chart model: series from roles, top n and "other", decimation, interval kinds', async () => {
  type Series = { name: string; other: boolean; y: (number | null)[]; lo: (number | null)[]; hi: (number | null)[]; label: string[]; approxInterval: boolean[]; est: (number | null)[] };
  type Model = { xKind: string; xs: number[]; series: Series[]; combined: number; left: number; positions: number; drawn: number; points: number };
  const { chartModel } = (await import(new URL('../src/root/public/chart-model.js', import.meta.url).href)) as { chartModel: (a: unknown, col: number, o?: { topN?: number; maxPoints?: number }) => Model };
  const day = (d: number) => new Date(Date.UTC(2001, 0, 1 + d)).toISOString();
  const answer = (aggregate: string, rows: unknown[][], cells?: unknown[][]) => ({
    columns: [{ name: 'day', type: 'timestamp' }, { name: 'origin', type: 'string' }, { name: 'v', type: 'int64' }],
    roles: [{ role: 'group_key', key: 0 }, { role: 'group_key', key: 1 }, { role: 'aggregate', aggregate, uncertainty: 'catalog' }],
    rows,
    ...(cells === undefined ? {} : { cells }),
    label: cells === undefined ? 'exact' : 'bounded',
    rows_complete: true,
    final: true,
  });
  const rows = [0, 1, 2].flatMap((d) => [['A', 100], ['B', 50], ['C', 5], ['D', 1]].map(([o, v]) => [day(d), o, (v as number) + d]));

  it('a time axis from the first group key, one series per value of the second, the smallest combined into "other"', () => {
    const m = chartModel(answer('count', rows), 2, { topN: 2 });
    expect(m.xKind).toBe('time');
    expect(m.xs).toEqual([0, 1, 2].map((d) => Date.UTC(2001, 0, 1 + d)));
    expect(m.series.map((s) => s.name)).toEqual(['A', 'B', 'other (2)']);
    expect(m.series[2]!.y).toEqual([0, 1, 2].map((d) => 5 + d + 1 + d)); // COUNT adds
    expect(m.combined).toBe(2);
    expect(chartModel(answer('max', rows), 2, { topN: 2 }).series[2]!.y).toEqual([5, 6, 7]); // MAX takes the largest
    const avg = chartModel(answer('avg', rows), 2, { topN: 2 });
    expect(avg.series.map((s) => s.name)).toEqual(['A', 'B']); // AVG cannot be combined: left out, and counted
    expect(avg.left).toBe(2);
    // A DATE key ('2001-01-01', DuckDB's text) is a time axis too, at its UTC midnight.
    const dates = { ...answer('count', rows.map(([d, o, v]) => [String(d).slice(0, 10), o, v])), columns: [{ name: 'day', type: 'date' }, { name: 'origin', type: 'string' }, { name: 'v', type: 'int64' }] };
    const byDate = chartModel(dates, 2, { topN: 2 });
    expect([byDate.xKind, byDate.xs]).toEqual(['time', [0, 1, 2].map((d) => Date.UTC(2001, 0, 1 + d))]);
  });

  it('"other" combines guaranteed intervals the same way; approximate intervals and estimates are told apart', () => {
    const cells = rows.map((r) => (r[1] === 'C' ? [null, null, { label: 'bounded', lo: r[2], hi: (r[2] as number) + 10 }] : r[1] === 'A' ? [null, null, { label: 'approximate', lo: 90, hi: 110, confidence: 0.99, estimate: { value: 101, lo: 95, hi: 105, confidence: 0.9 } }] : [null, null, null]));
    const m = chartModel(answer('sum', rows, cells), 2, { topN: 2 });
    const other = m.series[2]!;
    expect(other.lo).toEqual([0, 1, 2].map((d) => 5 + d + 1 + d));
    expect(other.hi).toEqual([0, 1, 2].map((d) => 15 + d + 1 + d));
    expect(other.label).toEqual(['bounded', 'bounded', 'bounded']);
    expect(other.approxInterval).toEqual([false, false, false]);
    const a = m.series[0]!;
    expect(a.approxInterval).toEqual([true, true, true]);
    expect(a.est).toEqual([101, 101, 101]);
    expect(m.series[1]!.lo).toEqual([null, null, null]); // exact cells: no interval
  });

  it('every point is kept; drawing more than maxPoints decimates to bucket min and max, keeping every spike', () => {
    const n = 10_000;
    const many = Array.from({ length: n }, (_, i) => [day(i), 'A', i === 7_777 ? 1_000_000 : i === 3_333 ? -5 : i % 100]);
    const m = chartModel(answer('count', many), 2, { maxPoints: 400 });
    expect(m.points).toBe(n);
    expect(m.positions).toBe(n);
    expect(m.drawn).toBeLessThanOrEqual(400);
    expect(m.drawn).toBe(m.xs.length);
    const ys = m.series[0]!.y.filter((v): v is number => v !== null);
    expect(Math.max(...ys)).toBe(1_000_000);
    expect(Math.min(...ys)).toBe(-5);
    expect(m.xs[0]).toBe(Date.UTC(2001, 0, 1));
    expect(m.xs[m.xs.length - 1]).toBe(Date.UTC(2001, 0, n));
    expect(chartModel(answer('count', many), 2, { maxPoints: 20_000 }).drawn).toBe(n);
  });
});

describe.skipIf(!hasChromium)('dashboard in a browser (chromium)', () => {
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function open(url: string, opts: { clipboard?: boolean } = {}): Promise<Page> {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 }, ...(opts.clipboard ? { permissions: ['clipboard-read', 'clipboard-write'] } : {}) });
    const page = await context.newPage();
    // Each page has its own context (permissions, storage); it goes with the page. When the
    // browser itself is closing, the context is already gone: nothing is left to close.
    page.on('close', () => void context.close().catch(() => undefined));
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      // The browser logs every non-2xx fetch; the tests check those answers are shown instead.
      if (m.type() === 'error' && !m.text().startsWith('Failed to load resource: the server responded with a status of')) pageErrors.push(m.text());
    });
    await page.goto(url);
    await page.waitForSelector('#health.ok');
    return page;
  }

  const settled = (page: Page) => page.waitForSelector('#phase[data-phase=final], #phase[data-phase=error]', { timeout: 20_000 });

  it('draws the partial answer while a shard is slow, then the final answer with its label', async () => {
    const page = await open(slowUrl);
    await page.click('button.example:has-text("flights per month")');
    // A snapshot before the slow shard answered: shards pending, the label "so far".
    await page.waitForFunction(() => Number(document.querySelector('#coverage-legend [data-kind=pending] b')?.textContent ?? 0) > 0, undefined, { timeout: 10_000 });
    const partial = await page.evaluate(() => ({
      phase: document.querySelector<HTMLElement>('#phase')!.dataset.phase,
      label: document.querySelector('#answer-label')!.textContent,
      bounded: document.querySelectorAll('#answer td.cell-bounded').length,
      pendingRow: document.querySelector('#missing tr[data-reason=pending]')?.textContent ?? '',
    }));
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-partial.png`, fullPage: true });
    expect(partial.phase).toBe('streaming');
    expect(partial.label).toMatch(/ so far$/);
    expect(partial.bounded).toBeGreaterThan(0);
    expect(partial.pendingRow).toMatch(/pending.*not answered yet: [\d–, ]+$/);

    await settled(page);
    expect(await page.textContent('#phase')).toMatch(/^final/);
    expect(await page.getAttribute('#answer-label', 'data-label')).toBe('exact');
    expect(await page.textContent('#answer-label')).toBe('exact');
    expect(await page.textContent('#coverage-text')).toContain('8 of 8 shards covered');
    expect(await page.locator('#answer tbody tr').count()).toBe(6); // January to June
    expect(await page.locator('#answer td.cell-bounded').count()).toBe(0);
    expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
    expect(await page.textContent('#missing')).toContain('every shard is accounted for');
    // The timeline names the slow leaf as its gather's straggler, and it waited about 1.5 s for it.
    await page.waitForSelector('#timeline details[data-gather=root]');
    const gather = page.locator('#timeline details', { hasText: `last: leaf-${SLOW_SHARD} ` });
    expect(await gather.count()).toBe(1);
    expect(await gather.getAttribute('open')).not.toBeNull();
    expect(await gather.locator('.row.straggler .name').textContent()).toBe(`leaf-${SLOW_SHARD}`);
    const waited = Number(/waited ([\d,.]+) ms/.exec((await gather.locator('summary').textContent()) ?? '')?.[1]?.replace(/,/g, ''));
    expect(waited).toBeGreaterThan(SLOW_MS * 0.8);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard.png`, fullPage: true });

    // Another query while one streams aborts the running request; so does Stop.
    const aborted: string[] = []; // SQL of the /v1/query requests the browser aborted
    page.on('requestfailed', (r) => {
      if (r.url().endsWith('/v1/query') && r.failure()?.errorText === 'net::ERR_ABORTED') aborted.push((JSON.parse(r.postData() ?? '{}') as { sql?: string }).sql ?? '');
    });
    const monthly = (await page.getAttribute('button.example:has-text("flights per month")', 'data-sql'))!;
    const pending = () => page.waitForFunction(() => Number(document.querySelector('#coverage-legend [data-kind=pending] b')?.textContent ?? 0) > 0, undefined, { timeout: 10_000 });
    await page.click('button.example:has-text("flights per month")');
    await pending();
    await page.click('button.example:has-text("totals")');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('final');
    expect(await page.locator('#answer tbody tr').count()).toBe(1);
    // (Chromium sometimes also reports the completed stream as aborted; only the first is asserted.)
    expect(aborted[0]).toBe(monthly);
    await page.click('button.example:has-text("flights per month")');
    await pending();
    await page.click('#stop');
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('stopped');
    await expect.poll(() => aborted.filter((sql) => sql === monthly).length).toBe(2);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('runs every example query; a failed shard shows as a missing subtree with bounds', async () => {
    const page = await open(failingUrl);
    const examples = page.locator('button.example');
    const n = await examples.count();
    expect(n).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < n; i++) {
      const name = (await examples.nth(i).textContent()) ?? '';
      await examples.nth(i).click();
      await settled(page);
      expect(await page.getAttribute('#phase', 'data-phase'), name).toBe('final');
      expect(await page.isHidden('#error'), name).toBe(true);
      expect(await page.locator('#answer tbody tr').count(), name).toBeGreaterThan(0);
      const missing = (await page.textContent('#missing')) ?? '';
      // Shard 6 failed unless its zone map let the WHERE clause prune it.
      if (!missing.includes('every shard is accounted for')) expect(missing, name).toMatch(new RegExp(`leaf-${FAILED_SHARD}.*failed.*disk on fire`));
    }
    await examples.filter({ hasText: 'busiest origins' }).click();
    await settled(page);
    expect(await page.getAttribute('#answer-label', 'data-label')).not.toBe('exact');
    expect(await page.locator('#answer td.cell-bounded .bounds').count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-failed-shard.png`, fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('shows errors with their code and the HTTP status of a request refused before the stream', async () => {
    const page = await open(failingUrl);
    // Planning errors are refused before the stream begins (in-stream errors: the next test).
    await page.fill('#sql', 'SELECT nope FROM flights');
    await page.click('#run');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('error');
    expect(await page.textContent('#error')).toMatch(/^HTTP 400 CANOPY_ERR_UNKNOWN_COLUMN: .*nope/);
    // A deadline beyond the maximum is refused with HTTP 400 before any event is sent.
    await page.fill('#sql', 'SELECT count(*) FROM flights');
    await page.fill('#deadline', '999999');
    await page.click('#run');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/^HTTP 400 CANOPY_ERR_BAD_REQUEST: .*deadline/);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('error');
    // Malformed SQL: the code and where it went wrong.
    await page.fill('#deadline', '30000');
    await page.fill('#sql', 'SELECT count(*) FROM flights WHERE');
    await page.click('#run');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/CANOPY_ERR_BAD_QUERY: [\s\S]*\(line 1, column \d+\)/);
    expect(await page.isHidden('#auth')).toBe(true); // no token asked of an open root
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('no shard can answer: CANOPY_ERR_NO_COVERAGE with every failed shard listed', async () => {
    const page = await open(deadUrl);
    await page.click('button.example:has-text("totals")');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('error');
    expect(await page.textContent('#error')).toMatch(/CANOPY_ERR_NO_COVERAGE: [\s\S]*missing shards: 8/);
    expect(await page.locator('#missing tr[data-reason=failed]').count()).toBe(SHARDS.length);
    expect(await page.textContent('#missing')).toContain('disk on fire');
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('a root that requires a token: asks for it on 401, refuses a wrong one, runs with the right one', async () => {
    const page = await open(tokenUrl);
    await page.waitForFunction(() => /CANOPY_ERR_UNAUTHORIZED/.test(document.querySelector('#catalog')?.textContent ?? ''));
    const authorizations: (string | undefined)[] = [];
    page.on('request', (r) => {
      if (r.url().endsWith('/v1/query')) authorizations.push(r.headers().authorization);
    });
    expect(await page.isHidden('#auth')).toBe(true);
    await page.click('button.example:has-text("totals")');
    await page.waitForSelector('#auth[data-state=asking]');
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('error');
    expect(await page.textContent('#error')).toMatch(/^HTTP 401 CANOPY_ERR_UNAUTHORIZED: /);
    expect(await page.textContent('#auth-message')).toMatch(/requires an API token \(CANOPY_API_TOKEN\)/);
    expect(await page.evaluate(() => document.activeElement?.id)).toBe('token');
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-token.png`, fullPage: true });

    // A wrong token: refused, asked again, not kept.
    await page.fill('#token', 'wrong');
    await page.press('#token', 'Enter');
    await page.waitForFunction(() => /refused the token/.test(document.querySelector('#auth-message')?.textContent ?? ''));
    expect(await page.getAttribute('#auth', 'data-state')).toBe('asking');
    expect(await page.evaluate(() => window.sessionStorage.getItem('canopy.apiToken'))).toBeNull();

    // The right one: the query runs and the final answer shows with its label and values.
    await page.fill('#token', API_TOKEN);
    await page.click('#token-save');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('final');
    expect(await page.isHidden('#error')).toBe(true);
    expect(await page.getAttribute('#answer-label', 'data-label')).toBe('exact');
    expect(await page.textContent('#answer-label')).toBe('exact');
    expect(await page.textContent('#coverage-text')).toContain('8 of 8 shards covered');
    const rows = SHARDS.flat();
    const cells = await page.locator('#answer tbody tr').first().locator('td').allTextContents();
    expect(cells.slice(0, 2)).toEqual([rows.length.toLocaleString('en-US'), rows.reduce((a, r) => a + Number(r[2]), 0).toLocaleString('en-US')]);
    expect(await page.getAttribute('#auth', 'data-state')).toBe('kept');
    // The schema panel, refused without the token, loads with it.
    await page.waitForSelector('#catalog details[data-table=flights]');
    expect(authorizations).toEqual([undefined, 'Bearer wrong', `Bearer ${API_TOKEN}`]);
    expect(await page.evaluate(() => window.sessionStorage.getItem('canopy.apiToken'))).toBe(API_TOKEN);
    expect(page.url()).not.toContain(API_TOKEN);

    // SQL longer than a GET URL may be (16 KiB of headers) runs: the page POSTs it.
    const long = `SELECT count(*) AS flights FROM flights WHERE origin <> '${'Z'.repeat(20_000)}'`;
    await page.fill('#sql', long);
    await page.click('#run');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('final');
    expect(await page.textContent('#answer tbody td')).toBe(rows.length.toLocaleString('en-US'));
    // The query is mirrored into the URL's fragment only, which no request carries.
    expect(new URL(page.url()).search).toBe('');

    // The token is kept for the tab: after a reload the query runs without asking; Forget drops it.
    await page.reload();
    await page.waitForSelector('#health.ok');
    expect(await page.getAttribute('#auth', 'data-state')).toBe('kept');
    await page.click('button.example:has-text("busiest origins")');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('final');
    await page.click('#token-forget');
    expect(await page.isHidden('#auth')).toBe(true);
    expect(await page.evaluate(() => window.sessionStorage.getItem('canopy.apiToken'))).toBeNull();
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('time series: 182 daily points on a time axis, 2 series; line, bars and area; sort; exports parsed back equal the JSON answer; TSV', async () => {
    const page = await open(seriesUrl, { clipboard: true });
    await page.fill('#sql', DAILY);
    await page.click('#run');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('final');
    const chart = await page.evaluate(() => ({ ...document.querySelector<HTMLElement>('#chart')!.dataset }));
    expect(chart).toMatchObject({ xKind: 'time', points: String(2 * DAYS), positions: String(DAYS), drawn: String(DAYS), series: '2', type: 'line' });
    expect(chart.xMin).toBe('2001-01-01T00:00:00.000Z');
    expect(chart.xMax).toBe(new Date(Date.UTC(2001, 0, DAYS)).toISOString()); // 2001-07-01: the 182nd day
    expect((await page.locator('#chart-legend .series').allTextContents()).sort()).toEqual(['ATL', 'ORD']);
    expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-timeseries.png`, fullPage: true });
    for (const type of ['bar', 'area'] as const) {
      await page.selectOption('#chart-type', type);
      expect(await page.getAttribute('#chart', 'data-type')).toBe(type);
      expect(await page.getAttribute('#chart', 'data-positions')).toBe(String(DAYS));
    }
    await page.locator('section[aria-label=chart]').screenshot({ path: `${ARTIFACTS}/dashboard-timeseries-area.png` });
    await page.selectOption('#chart-type', 'auto');

    // The reference: the JSON answer of the same query.
    const reference = (await apps[4]!.inject({ method: 'POST', url: '/v1/query', payload: { sql: DAILY } })).json() as { columns: { name: string }[]; rows: unknown[][] };
    expect(reference.rows.length).toBe(2 * DAYS);
    expect(await page.textContent('#page-info')).toContain(`of ${2 * DAYS}`);

    // Sort by flights: ascending, then descending, then the answer's order; the TSV follows.
    const flightsHeader = page.locator('#answer th[data-col="2"]');
    await flightsHeader.click();
    expect(await flightsHeader.getAttribute('data-sort')).toBe('asc');
    const firstPage = async () => (await page.locator('#answer tbody tr td:nth-child(3)').allTextContents()).map((t) => Number(t.replace(/,/g, '')));
    const asc = await firstPage();
    expect(asc.length).toBe(100);
    expect(asc).toEqual([...asc].sort((x, y) => x - y));
    await page.click('#copy-tsv');
    const tsv = (await page.evaluate(() => navigator.clipboard.readText())).trimEnd().split('\n').map((l) => l.split('\t'));
    expect(tsv[0]).toEqual(['day', 'origin', 'flights']);
    const tsvRows = tsv.slice(1).map((r) => [r[0], r[1], Number(r[2])]);
    expect(tsvRows.map((r) => r[2])).toEqual(reference.rows.map((r) => r[2]).sort((x, y) => Number(x) - Number(y)));
    expect(sortRows(tsvRows)).toEqual(sortRows(reference.rows));
    await flightsHeader.click();
    expect(await page.locator('#answer th[data-col="2"]').getAttribute('data-sort')).toBe('desc');
    const desc = await firstPage();
    expect(desc).toEqual([...desc].sort((x, y) => y - x));
    expect(desc[0]).toBe(Math.max(...reference.rows.map((r) => Number(r[2]))));
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-table-sorted.png`, fullPage: true });
    await page.locator('#answer th[data-col="2"]').click();
    expect(await page.locator('#answer th[data-col="2"]').getAttribute('data-sort')).toBeNull();
    await page.click('#page-next');
    expect(await page.textContent('#page-info')).toContain('rows 101–200');

    // Each export, downloaded and parsed back, equals the JSON answer.
    const files: Record<string, Buffer> = {};
    for (const format of ['csv', 'json', 'arrow', 'parquet']) {
      const [dl] = await Promise.all([page.waitForEvent('download'), page.click(`#exports [data-format=${format}]`)]);
      const path = `${ARTIFACTS}/dashboard-export.${format}`;
      await dl.saveAs(path);
      expect(dl.suggestedFilename()).toMatch(new RegExp(`^canopy-\\d{8}-\\d{6}\\.${format}$`));
      files[format] = readFileSync(path);
      await page.waitForFunction((f) => document.querySelector<HTMLElement>('#export-status')?.dataset.format === f, format);
      expect(await page.textContent('#export-status')).toMatch(/bytes, exact$/);
    }
    const json = JSON.parse(files.json!.toString('utf8')) as { columns: unknown; rows: unknown[][]; label: string };
    expect(json.columns).toEqual(reference.columns);
    expect(json.rows).toEqual(reference.rows);
    expect(json.label).toBe('exact');
    const csv = parseCsv(files.csv!.toString('utf8')) as string[][];
    expect(csv[0]).toEqual(['day', 'origin', 'flights']);
    expect(csv.slice(1).map((r) => [r[0], r[1], Number(r[2])])).toEqual(reference.rows);
    const arrow = tableFromIPC(files.arrow!);
    expect(arrow.schema.fields.map((f) => f.name)).toEqual(['day', 'origin', 'flights']);
    expect(arrow.schema.metadata.get('canopy.label')).toBe('exact');
    expect(arrow.toArray().map((r) => [new Date(Number(r.day)).toISOString(), r.origin, Number(r.flights)])).toEqual(reference.rows);
    const pq = files.parquet!;
    const pqBuf = pq.buffer.slice(pq.byteOffset, pq.byteOffset + pq.byteLength) as ArrayBuffer;
    expect(parquetMetadata(pqBuf).key_value_metadata?.find((kv) => kv.key === 'canopy.label')?.value).toBe('exact');
    const objects = (await parquetReadObjects({ file: pqBuf })) as { day: Date; origin: string; flights: bigint }[];
    expect(objects.map((o) => [o.day.toISOString(), o.origin, Number(o.flights)])).toEqual(reference.rows);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('missing shards: guaranteed intervals as a band on lines and whiskers on bars, the legend says which', async () => {
    const page = await open(seriesFailingUrl);
    await page.fill('#sql', DAILY);
    await page.click('#run');
    await settled(page);
    expect(await page.getAttribute('#answer-label', 'data-label')).not.toBe('exact');
    expect(await page.getAttribute('#chart', 'data-positions')).toBe(String(DAYS));
    expect(await page.locator('#chart-legend [data-key=guaranteed]').textContent()).toContain('guaranteed [lo, hi] (filled band)');
    expect(await page.locator('#chart-legend [data-key=approximate]').count()).toBe(0); // catalog bounds are guaranteed, not approximate
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-band.png`, fullPage: true });
    await page.click('button.example:has-text("busiest origins")');
    await settled(page);
    expect(await page.getAttribute('#chart', 'data-type')).toBe('bar');
    expect(await page.locator('#chart-legend [data-key=guaranteed]').textContent()).toContain('solid whiskers');
    await page.locator('section[aria-label=chart]').screenshot({ path: `${ARTIFACTS}/dashboard-whiskers.png` });
    // A HyperLogLog count (past 4,096 distinct values) has a 99 % interval: drawn dashed, and the
    // legend says it is approximate, not guaranteed.
    const all = await open(seriesUrl);
    await all.fill('#sql', 'SELECT count(DISTINCT date) AS dates, count(*) AS flights FROM flights');
    await all.click('#run');
    await settled(all);
    expect(await all.getAttribute('#answer-label', 'data-label')).toBe('approximate');
    expect(await all.locator('#chart-legend [data-key=approximate]').textContent()).toBe('approximate interval (99% confidence), not guaranteed (dashed)');
    expect(await all.locator('#chart-legend [data-key=guaranteed]').count()).toBe(0);
    expect(await all.locator('#answer td.cell-approximate .bounds').textContent()).toMatch(/^\[[\d,]+, [\d,]+\] 99% interval/);
    await all.locator('section[aria-label=chart]').screenshot({ path: `${ARTIFACTS}/dashboard-approximate.png` });
    await all.close();
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('history, saved queries, and a share URL (query in the fragment, never sent) that reopens the query', async () => {
    const page = await open(seriesUrl);
    const urls: string[] = [];
    page.on('request', (r) => urls.push(r.url()));
    await page.click('button.example:has-text("busiest origins")');
    await settled(page);
    await page.fill('#sql', DAILY);
    await page.click('#run');
    await settled(page);
    expect(await page.locator('#history li').first().getAttribute('data-sql')).toBe(DAILY);
    expect(await page.locator('#history li').count()).toBe(2);
    expect(await page.locator('#history li').first().textContent()).toContain(`exact · ${2 * DAYS} rows`);
    // Saved under a name; kept across a reload with the history.
    await page.fill('#save-name', 'daily ORD vs ATL');
    await page.click('#save');
    expect(await page.locator('#saved li[data-name="daily ORD vs ATL"]').count()).toBe(1);
    const share = page.url();
    expect(new URL(share).hash).toBe(`#${new URLSearchParams({ q: DAILY })}`);
    expect(await page.inputValue('#share-url')).toBe(share);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-history.png`, fullPage: true });

    // The share URL in a fresh page: the query is back in the editor and runs.
    const other = await open(share);
    await settled(other);
    expect(await other.inputValue('#sql')).toBe(DAILY);
    expect(await other.getAttribute('#phase', 'data-phase')).toBe('final');
    expect(await other.getAttribute('#chart', 'data-positions')).toBe(String(DAYS));
    expect(await other.locator('#answer tbody tr').count()).toBe(100);
    await other.close();

    await page.goto(`${seriesUrl}/`);
    await page.waitForSelector('#health.ok');
    expect(await page.locator('#history li').count()).toBe(2);
    await page.locator('#history li').nth(1).locator('button').click(); // loads, does not run
    expect(await page.inputValue('#sql')).toMatch(/^SELECT origin, count\(\*\) AS flights/);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('idle');
    await page.click('#saved li[data-name="daily ORD vs ATL"] button.link'); // a saved query runs
    await settled(page);
    expect(await page.inputValue('#sql')).toBe(DAILY);
    expect(await page.getAttribute('#chart', 'data-series')).toBe('2');
    await page.click('#saved li[data-name="daily ORD vs ATL"] button.del');
    expect(await page.locator('#saved li[data-name]').count()).toBe(0);
    // No request ever carried the SQL in its URL (the fragment stays in the browser).
    expect(urls.filter((u) => /select|%20from%20|[?&]q=/i.test(u))).toEqual([]);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('a syntax error puts the caret at its line and column with a few expected tokens; an error clears chart and table; the last answer is greyed until the first snapshot', async () => {
    const page = await open(seriesUrl);
    await page.click('button.example:has-text("busiest origins")');
    await settled(page);
    expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
    // While the next query has sent nothing yet (its request held here), the last answer is greyed.
    let release: () => void = () => undefined;
    const held = new Promise<void>((r) => (release = r));
    await page.route('**/v1/query', async (route) => {
      await held;
      await route.continue();
    }, { times: 1 });
    await page.click('button.example:has-text("flights per month")');
    await page.waitForSelector('#results[data-stale=true]');
    expect(await page.isVisible('#stale-note')).toBe(true);
    expect(await page.textContent('#answer-label')).toBe('waiting…');
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-stale.png`, fullPage: true });
    release();
    await settled(page);
    expect(await page.getAttribute('#results', 'data-stale')).toBeNull();
    expect(await page.isHidden('#stale-note')).toBe(true);
    expect(await page.getAttribute('#chart', 'data-x-kind')).toBe('time');

    const reported = (await apps[4]!.inject({ method: 'POST', url: '/v1/query', payload: { sql: BAD } })).json() as { error: { position: { line: number; column: number; offset: number }; details: { expected: string[] } } };
    expect(reported.error.position.line).toBe(4);
    await page.fill('#sql', BAD);
    await page.click('#run');
    await page.waitForSelector('#sql-marker:not([hidden])');
    const caret = await page.evaluate(() => {
      const ta = document.querySelector<HTMLTextAreaElement>('#sql')!;
      return { start: ta.selectionStart, end: ta.selectionEnd, focused: document.activeElement === ta };
    });
    expect(caret).toEqual({ start: reported.error.position.offset, end: reported.error.position.offset, focused: true });
    expect(await page.getAttribute('#sql-marker', 'data-line')).toBe('4');
    expect(await page.getAttribute('#sql-marker', 'data-column')).toBe(String(reported.error.position.column));
    const expected = await page.locator('#sql-marker .expected code').allTextContents();
    expect(expected.length).toBeGreaterThan(0);
    expect(expected.length).toBeLessThanOrEqual(6);
    expect(expected).toEqual(reported.error.details.expected);
    expect(expected[0]).toBe('a name');
    // The ^ sits under the reported column of the failing line.
    const pre = ((await page.textContent('#sql-marker pre')) ?? '').split('\n');
    expect(pre[0]).toBe(BAD.split('\n')[3]);
    expect(pre[1]!.indexOf('^')).toBe(reported.error.position.column - 1);
    expect(await page.textContent('#error')).toMatch(/CANOPY_ERR_BAD_QUERY: syntax error at line 4, column \d+: expected a name, /);
    // The previous answer is gone: no chart, no table, no stale note.
    expect(await page.locator('#chart canvas').count()).toBe(0);
    expect(await page.locator('#answer tbody tr').count()).toBe(0);
    expect(await page.getAttribute('#results', 'data-stale')).toBeNull();
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-caret.png`, fullPage: true });
    await page.type('#sql', ' x');
    expect(await page.isHidden('#sql-marker')).toBe(true);
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('the schema panel shows tables, columns, types, shard count and min/max/null counts, per shard on demand', async () => {
    const page = await open(seriesUrl);
    const table = page.locator('#catalog details[data-table=flights]');
    await table.waitFor();
    const rows = SERIES.flat();
    expect(await table.locator('summary').textContent()).toContain(`${SERIES.length} shards · ${rows.length.toLocaleString('en-US')} rows`);
    const cells = await table.locator('tr[data-column=delay] td').allTextContents();
    const delays = rows.map((r) => Number(r[1]));
    expect(cells).toEqual(['delay', 'int64', String(Math.min(...delays)), String(Math.max(...delays)), '0']);
    expect(await table.locator('tr[data-column=date] td').nth(2).textContent()).toBe('2001-01-01');
    expect(await table.locator('tbody tr[data-column]').count()).toBe(FLIGHTS_SCHEMA.columns.length);
    await table.locator('button:has-text("per shard")').click();
    await table.locator('table.shards tbody tr').first().waitFor();
    expect(await table.locator('table.shards tbody tr').count()).toBe(SERIES.length);
    // A name clicked goes into the editor at the caret.
    await page.fill('#sql', 'SELECT  FROM flights');
    await page.evaluate(() => document.querySelector<HTMLTextAreaElement>('#sql')!.setSelectionRange(7, 7));
    await table.locator('tr[data-column=origin] button').click();
    expect(await page.inputValue('#sql')).toBe('SELECT origin FROM flights');
    await page.locator('aside').screenshot({ path: `${ARTIFACTS}/dashboard-schema.png` });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('10,000 rows: every row paged, sortable, drawn decimated; render time logged', async () => {
    const page = await open(seriesUrl);
    await page.fill('#sql', TEN_K);
    await page.click('#run');
    await settled(page);
    expect(await page.textContent('#rows-note')).toContain('10,000 rows');
    expect(await page.textContent('#page-info')).toContain('of 10,000');
    expect(await page.locator('#answer tbody tr').count()).toBe(100);
    const ms = await page.evaluate(() => ({ ...document.querySelector<HTMLElement>('#render-ms')!.dataset }));
    await page.locator('#answer th[data-col="2"]').click();
    const sortMs = await page.evaluate(() => {
      const t0 = performance.now();
      document.querySelector<HTMLElement>('#answer th[data-col="2"]')!.click();
      return performance.now() - t0;
    });
    expect(await page.locator('#answer th[data-col="2"]').getAttribute('data-sort')).toBe('desc');
    const top = Number((await page.locator('#answer tbody tr td:nth-child(3)').first().textContent())?.replace(/,/g, ''));
    const reference = (await apps[4]!.inject({ method: 'POST', url: '/v1/query', payload: { sql: TEN_K } })).json() as { rows: unknown[][] };
    expect(top).toBe(Math.max(...reference.rows.map((r) => Number(r[2]))));
    await page.click('#page-last');
    expect(await page.textContent('#page-info')).toContain('rows 9,901–10,000 of 10,000 · page 100 of 100');
    expect(await page.getAttribute('#chart', 'data-points')).toBe('10000');
    expect(Number(await page.getAttribute('#chart', 'data-drawn'))).toBeLessThan(10_000);
    expect(await page.locator('#chart-legend [data-key=decimated]').count()).toBe(1);
    console.log(`dashboard: 10,000 rows drawn in ${Number(ms.ms).toFixed(1)} ms (table ${Number(ms.tableMs).toFixed(1)} ms, chart ${Number(ms.chartMs).toFixed(1)} ms); re-sort ${sortMs.toFixed(1)} ms`);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-10k.png`, fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  });
});
