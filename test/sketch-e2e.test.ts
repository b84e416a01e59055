/**
 * End to end over the real HTTP tree (leaf processes, aggregators, root on loopback; the
 * flights data in 100 hash shards, fan-out 10): COUNT(DISTINCT) and approx_quantile states
 * travel as Arrow Binary between processes. Checked against DuckDB on the same Parquet
 * file: exact distinct counts while the states are sets, intervals that hold DuckDB's
 * exact count(DISTINCT) and quantile_disc otherwise.
 */
import path from 'node:path';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';

interface Cell {
  readonly label: string;
  readonly lo: number | string | null;
  readonly hi: number | string | null;
  readonly stderr?: number;
  readonly confidence?: number;
}

interface Body {
  readonly columns: readonly { readonly name: string; readonly type: string }[];
  readonly rows: readonly (readonly (number | string | null)[])[];
  readonly label: string;
  readonly cells?: readonly (readonly (Cell | null)[])[];
  readonly rows_complete: boolean;
  readonly missing: readonly unknown[];
}

let tree: LocalTree | undefined;
let duckInstance: DuckDBInstance | undefined;
let duckConn: DuckDBConnection | undefined;

beforeAll(async () => {
  duckInstance = await DuckDBInstance.create(':memory:');
  duckConn = await duckInstance.connect();
  await duckConn.run(`CREATE VIEW flights AS SELECT * FROM '${DEFAULT_DATA_PATH.replaceAll("'", "''")}'`);
  tree = await startLocalTree({
    data: DEFAULT_DATA_PATH,
    table: 'flights',
    shards: 100,
    partition: { kind: 'hash' },
    fanout: 10,
    port: 0,
    cacheDir: path.resolve('.canopy-cache'),
    leafProcesses: 2,
  });
});

afterAll(async () => {
  await tree?.close();
  duckConn?.closeSync();
  duckInstance?.closeSync();
});

async function ask(sql: string): Promise<Body> {
  const res = await fetch(`${tree!.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
  const body = (await res.json()) as Body;
  expect(res.status, JSON.stringify(body)).toBe(200);
  expect(body.missing).toEqual([]);
  return body;
}

/** DuckDB rows with BIGINT as numbers and TIMESTAMP as epoch µs. */
async function duck(sql: string): Promise<(number | string | null)[][]> {
  const r = await duckConn!.runAndReadAll(sql);
  return r.getRows().map((row) =>
    row.map((v) => {
      if (v === null || typeof v === 'number' || typeof v === 'string') return v;
      if (typeof v === 'bigint') return Number(v);
      if (typeof v === 'object' && 'micros' in v) return Number((v as { micros: bigint }).micros);
      throw new Error(`unexpected DuckDB value ${String(v)}`);
    }),
  );
}

/** A canopy JSON value or bound as a number (timestamps are ISO strings). */
const num = (v: number | string | null): number => (typeof v === 'string' ? Date.parse(v) * 1000 + Number(/\.\d{3}(\d{3})Z$/.exec(v)?.[1] ?? 0) : (v as number));

/** The truth lies in the cell's interval, or equals the value of an exact cell. */
function holds(value: number | string | null, cell: Cell | null | undefined, truth: number): boolean {
  if (cell === null || cell === undefined) return num(value) === truth;
  return num(cell.lo) <= truth && truth <= num(cell.hi);
}

describe('COUNT(DISTINCT) and approx_quantile over HTTP against DuckDB (flights, 100 shards)', () => {
  it('count(DISTINCT destination) WHERE delay > 60 is exactly 227', async () => {
    const body = await ask('SELECT count(DISTINCT destination) FROM flights WHERE delay > 60');
    expect(body.columns).toEqual([{ name: 'count(DISTINCT destination)', type: 'int64' }]);
    expect(body.rows).toEqual([[227]]);
    expect(body.label).toBe('exact');
    expect(await duck('SELECT count(DISTINCT destination) FROM flights WHERE delay > 60')).toEqual([[227]]);
  });

  it('grouped distinct counts are exact and equal DuckDB', async () => {
    const sql = 'SELECT origin, count(DISTINCT destination) AS n, approx_count_distinct(delay) AS d FROM flights GROUP BY origin ORDER BY origin';
    const [body, want] = await Promise.all([ask(sql), duck('SELECT origin, count(DISTINCT destination) AS n, count(DISTINCT delay) AS d FROM flights GROUP BY origin ORDER BY origin')]);
    expect(body.label).toBe('exact');
    expect(body.rows).toEqual(want);
  });

  it('past the exact limit (distinct dates): approximate, and the 99% interval holds the exact count', async () => {
    const [body, rows] = await Promise.all([ask('SELECT approx_count_distinct(date) AS n FROM flights'), duck('SELECT count(DISTINCT date) FROM flights')]);
    const truth = rows[0]![0] as number;
    expect(truth).toBeGreaterThan(4096);
    expect(body.label).toBe('approximate');
    const cell = body.cells![0]![0]!;
    expect(cell.label).toBe('approximate');
    expect(cell.confidence).toBe(0.99);
    expect(cell.stderr).toBeGreaterThan(0);
    expect(holds(body.rows[0]![0]!, cell, truth as number)).toBe(true);
    expect(Math.abs((body.rows[0]![0] as number) - (truth as number)) / (truth as number)).toBeLessThan(0.03);
  });

  it('approx_quantile and median: every interval holds DuckDB\'s quantile_disc; the answer is bounded', async () => {
    const sql = 'SELECT approx_quantile(delay, 0.5) AS a, approx_quantile(delay, 0.9) AS b, approx_quantile(delay, 0.01) AS c, approx_quantile(distance, 0.99) AS d, median(distance) AS e, median(date) AS f, approx_quantile(delay, 0) AS g, approx_quantile(delay, 1) AS h FROM flights';
    const duckSql = 'SELECT quantile_disc(delay, 0.5), quantile_disc(delay, 0.9), quantile_disc(delay, 0.01), quantile_disc(distance, 0.99), quantile_disc(distance, 0.5), quantile_disc(date, 0.5), min(delay), max(delay) FROM flights';
    const [body, [want]] = await Promise.all([ask(sql), duck(duckSql)]);
    expect(body.columns.map((c) => c.type)).toEqual(['float64', 'float64', 'float64', 'float64', 'float64', 'timestamp', 'float64', 'float64']);
    expect(body.label).toBe('bounded');
    expect(body.rows_complete).toBe(true);
    want!.forEach((truth, c) => expect(holds(body.rows[0]![c]!, body.cells![0]![c], truth as number), `column ${c}: ${JSON.stringify([body.rows[0]![c], body.cells![0]![c], truth])}`).toBe(true));
    // The extremes are exact (the state keeps min and max).
    expect(body.cells![0]![6]).toBe(null);
    expect(body.cells![0]![7]).toBe(null);
  });

  it('grouped medians hold quantile_disc per group', async () => {
    const where = "WHERE origin IN ('SFO', 'LAX', 'ORD', 'JFK', 'SEA')";
    const [body, want] = await Promise.all([
      ask(`SELECT origin, median(delay) AS m, approx_quantile(distance, 0.75) AS d FROM flights ${where} GROUP BY origin ORDER BY origin`),
      duck(`SELECT origin, quantile_disc(delay, 0.5), quantile_disc(distance, 0.75) FROM flights ${where} GROUP BY origin ORDER BY origin`),
    ]);
    expect(body.rows.map((r) => r[0])).toEqual(want.map((r) => r[0]));
    want.forEach((row, r) => {
      for (const c of [1, 2]) expect(holds(body.rows[r]![c]!, body.cells?.[r]?.[c], row[c] as number), `${String(row[0])} column ${c}`).toBe(true);
    });
  });
});
