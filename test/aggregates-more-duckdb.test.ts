/**
 * The rest of issue 14's aggregates against DuckDB over the same rows: arg_min / arg_max
 * (min_by / max_by), any_value, sum(DISTINCT) / avg(DISTINCT) (and min/max(DISTINCT)),
 * FILTER (WHERE ...) on the call-style aggregates, and IS [NOT] DISTINCT FROM in WHERE,
 * select items, aggregate arguments, FILTER and after aggregation. Random tables with NULLs,
 * negative numbers and empty shards split over random shards and tree shapes, some shards
 * failing (fast-check); small cases with NaN, ±Infinity, -0.0 and strings outside the BMP;
 * the flights fixture and the 3M-row flights data.
 * - Labelled-exact cells equal DuckDB (floats to 1e-9 relative); bounded cells hold it.
 * - arg_min/arg_max: DuckDB picks any row among ties, so the answer must be in DuckDB's tie
 *   set (computed with a join), and be its smallest value (canopy's documented rule); a cell
 *   is labelled exact only when the tie set holds one value, and with every shard answering
 *   it is approximate when the set holds several (the answer is then DuckDB's scan order's).
 * - any_value: one of the group's non-NULL values (NULL when there is none).
 */
import path from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import { withFaults } from '../src/leaf/index.ts';
import { compareValues, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, sameValue, type Cmp, type CmpResult } from './helpers/compare.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS } from './helpers/flights.ts';
import { preparedInProcessTree } from './helpers/prepared-tree.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { ask, failingShardsRoot, inProcessRoot, answerBody as answer, type AnswerBody as Body } from './helpers/tree.ts';
import { useDuckDB } from './helpers/duck.ts';

const SCHEMA: TableSchema = SMALL_SCHEMA;

// Few distinct values, so ties (arg_min/arg_max) and repeats (DISTINCT) are common.
const row = fc.tuple(
  nullable(fc.integer({ min: -12, max: 12 }).map((k) => k / 4)),
  nullable(fc.bigInt({ min: -6n, max: 6n })),
  nullable(fc.constantFrom('a', 'z', '😀', '𝄞x', '', 'ｚ')),
  nullable(fc.constantFrom('a', 'b', '😀')),
);

const tables = splitTables(row);

/** Queries compared cell by cell with DuckDB (`duck`: DuckDB's spelling where it differs). */
const EQUAL: readonly { sql: string; duck?: string }[] = [
  {
    sql: 'SELECT g, sum(DISTINCT i) AS sdi, avg(DISTINCT i) AS adi, sum(DISTINCT f) AS sdf, avg(DISTINCT f) AS adf, count(DISTINCT i) AS cdi, min(DISTINCT s) AS mns, max(DISTINCT f) AS mxf, sum(i) AS si FROM t GROUP BY g ORDER BY g',
  },
  {
    sql: "SELECT stddev(f) FILTER (WHERE i > 0) AS sd, var_pop(i) FILTER (WHERE f < 0) AS vp, bool_and(i > 0) FILTER (WHERE s IS NOT NULL) AS ba, bool_or(f > 0) FILTER (WHERE i < 0) AS bo, count_if(f > 0) FILTER (WHERE i <> 0) AS ci, sum(DISTINCT i) FILTER (WHERE f > 0) AS sd2, avg(DISTINCT f) FILTER (WHERE s > 'a') AS ad2, approx_count_distinct(s) FILTER (WHERE i >= 0) AS acd FROM t",
    duck: "SELECT stddev(f) FILTER (WHERE i > 0) AS sd, var_pop(i) FILTER (WHERE f < 0) AS vp, bool_and(i > 0) FILTER (WHERE s IS NOT NULL) AS ba, bool_or(f > 0) FILTER (WHERE i < 0) AS bo, count_if(f > 0) FILTER (WHERE i <> 0) AS ci, sum(DISTINCT i) FILTER (WHERE f > 0) AS sd2, avg(DISTINCT f) FILTER (WHERE s > 'a') AS ad2, count(DISTINCT s) FILTER (WHERE i >= 0) AS acd FROM t",
  },
  {
    sql: "SELECT g, count(*) FILTER (WHERE s IS DISTINCT FROM g) AS a, count_if(f IS NOT DISTINCT FROM i) AS b, sum(i) FILTER (WHERE s IS NOT DISTINCT FROM NULL) AS c, sum(i) IS DISTINCT FROM count(i) AS d, max(s) IS NOT DISTINCT FROM min(s) AS e, sum(CASE WHEN s IS DISTINCT FROM 'a' THEN i ELSE 0 END) AS h FROM t WHERE g IS DISTINCT FROM 'b' GROUP BY g HAVING min(i) IS DISTINCT FROM -5 ORDER BY g",
    duck: "SELECT g, count(*) FILTER (WHERE s IS DISTINCT FROM g) AS a, count_if(f IS NOT DISTINCT FROM i) AS b, sum(i) FILTER (WHERE s IS NOT DISTINCT FROM NULL) AS c, sum(i) IS DISTINCT FROM count(i) AS d, max(s) IS NOT DISTINCT FROM min(s) AS e, sum(CASE WHEN s IS DISTINCT FROM 'a' THEN i ELSE 0 END) AS h FROM t WHERE g IS DISTINCT FROM 'b' GROUP BY g HAVING min(i) IS DISTINCT FROM -5 ORDER BY g",
  },
  { sql: 'SELECT s IS NOT DISTINCT FROM g AS x, NOT (i IS DISTINCT FROM 1) AS y, count(*) AS n FROM t GROUP BY 1, 2 ORDER BY 1, 2' },
];

/** arg_min/arg_max calls checked against DuckDB's tie sets: column, argument, ordering value, min or max, FILTER. */
const ARG_CALLS: readonly { col: string; arg: string; val: string; min: boolean; filter?: string }[] = [
  { col: 'a1', arg: 's', val: 'f', min: true },
  { col: 'a2', arg: 's', val: 'f', min: false },
  { col: 'a3', arg: 'i', val: 's', min: true },
  { col: 'a4', arg: 'f', val: 'i', min: false },
  { col: 'a5', arg: 's', val: 'f', min: true, filter: 'i > 0' },
  { col: 'a6', arg: 'i', val: 'f * -1', min: false },
];
const ARG_SQL = 'SELECT g, arg_min(s, f) AS a1, arg_max(s, f) AS a2, min_by(i, s) AS a3, max_by(f, i) AS a4, arg_min(s, f) FILTER (WHERE i > 0) AS a5, arg_max(i, f * -1) AS a6, any_value(s) AS av, any_value(f) FILTER (WHERE i < 0) AS av2 FROM t GROUP BY g ORDER BY g';
const ANY_CALLS: readonly { col: string; arg: string; filter?: string }[] = [
  { col: 'av', arg: 's' },
  { col: 'av2', arg: 'f', filter: 'i < 0' },
];

const duckdb = useDuckDB();

const load = (rows: readonly (readonly Scalar[])[]): Promise<void> => loadSmallTable(duckdb(), rows);

async function truth(sql: string): Promise<CmpResult> {
  return fromDuck(await duckdb().runAndReadAll(sql));
}

/** Exact cells equal DuckDB, bounded cells hold it (rows matched by position: every query orders by its keys). */
function checkCells(sql: string, body: Body, want: CmpResult, counts: { exact: number; bounded: number }): void {
  const got = fromCanopy(body);
  if (body.label === 'exact') {
    counts.exact++;
    expect(diffResults(got, want, { ordered: true }), sql).toEqual([]);
    return;
  }
  if (!body.rows_complete || got.rows.length !== want.rows.length) return;
  want.rows.forEach((wrow, r) => {
    want.types.forEach((type, c) => {
      const x = wrow[c]!;
      const cell = body.cells?.[r]?.[c] ?? null;
      if (cell === null) {
        expect(sameValue(got.rows[r]![c]!, x, type), `${sql}: row ${r} ${want.names[c]} exact: got ${String(got.rows[r]![c])}, want ${String(x)}`).toBe(true);
        return;
      }
      if (cell.label !== 'bounded' || x === null || typeof x !== 'number') return;
      counts.bounded++;
      const num = (v: unknown): number => (typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));
      if (cell.lo !== null) expect(num(cell.lo), `${sql}: ${want.names[c]} lo`).toBeLessThanOrEqual(x);
      if (cell.hi !== null) expect(num(cell.hi), `${sql}: ${want.names[c]} hi`).toBeGreaterThanOrEqual(x);
    });
  });
}

/** Per group (keyed by JSON of the group value), the values DuckDB's query returns. */
async function groupSets(sql: string): Promise<Map<string, Cmp[]>> {
  const r = await truth(sql);
  const out = new Map<string, Cmp[]>();
  for (const [g, v] of r.rows) {
    const k = JSON.stringify(g);
    out.set(k, [...(out.get(k) ?? []), v!]);
  }
  return out;
}

/** DuckDB's tie set of arg_min/arg_max: the arguments of every row holding the best ordering value, per group. */
function tieSetSql(c: (typeof ARG_CALLS)[number], table = 't', group = 'g'): string {
  const where = `${c.arg} IS NOT NULL AND (${c.val}) IS NOT NULL${c.filter === undefined ? '' : ` AND (${c.filter})`}`;
  return `WITH base AS (SELECT ${group} AS g, ${c.arg} AS a, (${c.val}) AS v FROM ${table} WHERE ${where}), best AS (SELECT g, ${c.min ? 'min' : 'max'}(v) AS bv FROM base GROUP BY g) SELECT DISTINCT base.g, base.a FROM base JOIN best ON base.g IS NOT DISTINCT FROM best.g AND base.v = best.bv`;
}

const cmpOrder = (a: Cmp, b: Cmp): number => compareValues(a as Exclude<Scalar, null>, b as Exclude<Scalar, null>);

/**
 * Checks arg_min/arg_max and any_value cells of one answer: exact cells are members of
 * DuckDB's tie set (arg) or the group's non-NULL values (any_value), NULL exactly when the
 * set is empty; arg cells are the smallest of their tie set. Returns how many cells were checked.
 */
async function checkArgs(body: Body, args: readonly (typeof ARG_CALLS)[number][], anys: readonly (typeof ANY_CALLS)[number][], table = 't', group = 'g', complete = false): Promise<number> {
  const got = fromCanopy(body);
  let checked = 0;
  const col = (name: string): number => got.names.indexOf(name);
  const exactCell = (r: number, c: number): boolean => body.label === 'exact' || (body.cells?.[r]?.[c] ?? null) === null;
  for (const a of args) {
    const sets = await groupSets(tieSetSql(a, table, group));
    const c = col(a.col);
    expect(c, a.col).toBeGreaterThanOrEqual(0);
    got.rows.forEach((row, r) => {
      const exact = exactCell(r, c);
      if (!exact && !complete) return;
      checked++;
      const set = sets.get(JSON.stringify(row[0] ?? null)) ?? [];
      const v = row[c]!;
      // Exact only without a tie; with every shard answering, approximate only with one (DuckDB's DISTINCT takes -0.0 and 0.0 as one value).
      if (exact) expect(set.length, `${a.col} of group ${String(row[0])}: exact, so one value can be chosen (${JSON.stringify(set)})`).toBeLessThanOrEqual(1);
      else expect(set.length > 1 || set[0] === 0, `${a.col} of group ${String(row[0])}: approximate, so tied rows differ (${JSON.stringify(set)})`).toBe(true);
      if (set.length === 0) {
        expect(v, `${a.col} of group ${String(row[0])}: no qualifying row`).toBeNull();
        return;
      }
      const type = got.types[c]!;
      expect(set.some((x) => sameValue(x, v, type, 0)), `${a.col} of group ${String(row[0])}: ${String(v)} in DuckDB's tie set ${JSON.stringify(set)}`).toBe(true);
      const smallest = [...set].sort(cmpOrder)[0]!;
      expect(cmpOrder(v, smallest), `${a.col} of group ${String(row[0])}: the smallest of the tie set`).toBe(0);
    });
  }
  for (const a of anys) {
    const sets = await groupSets(`SELECT DISTINCT ${group}, ${a.arg} FROM ${table} WHERE ${a.arg} IS NOT NULL${a.filter === undefined ? '' : ` AND (${a.filter})`}`);
    const c = col(a.col);
    got.rows.forEach((row, r) => {
      if (!exactCell(r, c)) return;
      checked++;
      const set = sets.get(JSON.stringify(row[0] ?? null)) ?? [];
      const v = row[c]!;
      if (set.length === 0) expect(v, `${a.col}: NULL for a group without values`).toBeNull();
      else expect(set.some((x) => sameValue(x, v, got.types[c]!, 0)), `${a.col}: ${String(v)} is one of ${JSON.stringify(set)}`).toBe(true);
    });
  }
  return checked;
}

describe('arg_min/arg_max, any_value, DISTINCT sums, FILTER everywhere, IS DISTINCT FROM against DuckDB', () => {
  it('random tables, shard splits and failing shards', async () => {
    const counts = { exact: 0, bounded: 0 };
    let argCells = 0;
    await fc.assert(
      fc.asyncProperty(tables, async (t) => {
        const root = failingShardsRoot(SCHEMA, t);
        await load(t.rows);
        for (const q of [...EQUAL, { sql: ARG_SQL }]) {
          let body: Body;
          try {
            body = await answer(root, q.sql);
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          if (body.label !== 'exact' && q.sql !== ARG_SQL) expect(t.failing.length, `${q.sql} is ${body.label} with every shard answering`).toBeGreaterThan(0);
          if (q.sql === ARG_SQL) argCells += await checkArgs(body, ARG_CALLS, ANY_CALLS, 't', 'g', t.failing.length === 0);
          else checkCells(q.sql, body, await truth(q.duck ?? q.sql), counts);
        }
      }),
      { numRuns: 30, seed: 1414 },
    );
    expect(counts.exact).toBeGreaterThan(0);
    expect(counts.bounded).toBeGreaterThan(0);
    expect(argCells).toBeGreaterThan(0);
  }, 300_000);

  it('NaN, ±Infinity, -0.0, ties, only NULLs and empty shards: exact and equal to DuckDB, whatever the split', async () => {
    const cases: Scalar[][][] = [
      [[1, 5n, '😀', 'a'], [NaN, 7n, '𝄞x', 'a'], [NaN, 2n, 'ｚ', 'a'], [3, null, null, 'b'], [-0, 1n, 'z', 'b'], [0, 1n, 'a', 'b']],
      [[Infinity, 1n, 'z', 'a'], [-Infinity, -1n, 'a', 'b'], [2, 2n, 'a', 'b'], [Infinity, 3n, '😀', 'a'], [-Infinity, -1n, '𝄞x', 'b']],
      [[4, 9n, 'a', 'a']],
      [[null, null, null, 'a'], [null, 3n, null, null], [2, null, 'z', null]],
    ];
    // Variances refuse ±inf in DuckDB; the NaN/inf cases check the others.
    const queries = [EQUAL[0]!, EQUAL[2]!, EQUAL[3]!];
    let argCells = 0;
    for (const rows of cases) {
      await load(rows);
      const splits = [[rows, []], rows.map((r) => [r]), [[], ...rows.map((r) => [r]).reverse()]];
      let first: string | null = null;
      for (const split of splits) {
        const { root } = inProcessRoot(SCHEMA, split, { fanout: 2 });
        for (const q of queries) {
          const body = await answer(root, q.sql);
          expect(body.label, q.sql).toBe('exact');
          expect(diffResults(fromCanopy(body), await truth(q.duck ?? q.sql), { ordered: true }), `${q.sql} over ${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))}`).toEqual([]);
        }
        const body = await answer(root, ARG_SQL);
        argCells += await checkArgs(body, ARG_CALLS, ANY_CALLS, 't', 'g', true);
        // The tie rule makes the answer (and its labels) the same whatever the shard split.
        const json = JSON.stringify([body.rows, body.cells ?? null]);
        first ??= json;
        expect(json, 'arg_min/arg_max/any_value do not depend on the split').toBe(first);
      }
    }
    expect(argCells).toBeGreaterThan(20);
    // NaN is not distinct from NaN; NULL not from NULL.
    await load(cases[0]!);
    const { root } = inProcessRoot(SCHEMA, [cases[0]!.slice(0, 2), cases[0]!.slice(2)], { fanout: 2 });
    const sql = "SELECT count(*) FILTER (WHERE f IS NOT DISTINCT FROM CAST('NaN' AS DOUBLE)) AS n, count(*) FILTER (WHERE f IS DISTINCT FROM 0) AS z, count_if(s IS NOT DISTINCT FROM NULL) AS u FROM t";
    const body = await answer(root, sql);
    const want = await truth(sql);
    expect(diffResults(fromCanopy(body), want, { ordered: true })).toEqual([]);
    expect(fromCanopy(body).rows[0]).toEqual([2, 4, 1]);
  }, 120_000);

  it('variances and standard deviations that are not finite are refused as DuckDB refuses them, whatever the split', async () => {
    const fs: readonly (number | null)[][] = [
      [1, NaN],
      [1, Infinity, 2],
      [-Infinity, 3],
      [1e308, -1e308],
      [1e300, -1e300, 0],
      [-4.1912646500229116e293, 1.7976931348623117e308, 0],
      [1e150, -1e150],
      [1e154, 1e154, -1e154, null],
      [5, 7],
      [null, 2],
    ];
    const fns = ['var_samp', 'var_pop', 'stddev', 'stddev_pop'];
    let refused = 0;
    for (const f of fs) {
      const rows: Scalar[][] = f.map((x, k) => [x, BigInt(k), 'a', k % 2 === 0 ? 'a' : 'b']);
      await load(rows);
      for (const fn of fns) {
        for (const sql of [`SELECT ${fn}(f) AS v FROM t`, `SELECT g, ${fn}(f) AS v FROM t GROUP BY g ORDER BY g`]) {
          let want: CmpResult | null = null;
          try {
            want = await truth(sql);
          } catch (e) {
            expect(String(e), sql).toMatch(/out of range/i);
          }
          for (const split of [[rows, []], rows.map((r) => [r]), [[], ...rows.map((r) => [r]).reverse()]]) {
            const { root } = inProcessRoot(SCHEMA, split, { fanout: 2 });
            const res = await ask(root, sql).then(
              (a) => ({ body: answerToJSON(a) as unknown as Body }),
              (e: unknown) => ({ error: e as { code?: string; message?: string } }),
            );
            const over = JSON.stringify(f.map((x) => (x === null ? null : String(x))));
            if (want === null) {
              expect('error' in res ? res.error.code : 'answered', `${sql} over ${over}`).toBe('CANOPY_ERR_OUT_OF_RANGE');
              refused++;
            } else {
              expect('body' in res, `${sql} over ${over}: ${'error' in res ? res.error.message : ''}`).toBe(true);
              if (!('body' in res)) continue;
              expect(res.body.label).toBe('exact');
              expect(diffResults(fromCanopy(res.body), want, { ordered: true }), `${sql} over ${over}`).toEqual([]);
            }
          }
        }
      }
    }
    expect(refused).toBeGreaterThan(50);
  }, 120_000);

  it('the flights fixture: exact and equal to DuckDB; with a shard missing, bounded holds DuckDB', async () => {
    const cols = ['date', 'delay', 'distance', 'origin', 'destination'];
    const iso = (us: number): string => new Date(us / 1000).toISOString();
    await duckdb().run('CREATE OR REPLACE TABLE flights (date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR)');
    const all = FLIGHTS_SHARDS.flat();
    await duckdb().run(`INSERT INTO flights VALUES ${all.map((r) => `(${r.map((v, c) => (v === null ? 'NULL' : c === 0 ? `'${iso(v as number)}'::TIMESTAMP` : typeof v === 'bigint' ? String(v) : `'${String(v)}'`)).join(', ')})`).join(', ')}`);
    expect(cols).toEqual(FLIGHTS_SCHEMA.columns.map((c) => c.name));
    const equal = [
      "SELECT origin, sum(DISTINCT distance) AS sd, avg(DISTINCT distance) AS ad, sum(DISTINCT delay) FILTER (WHERE delay > 0) AS sp, stddev_pop(delay) FILTER (WHERE distance > 500) AS sdp, bool_or(delay > 10) FILTER (WHERE destination IS DISTINCT FROM 'LAX') AS bo FROM flights GROUP BY origin ORDER BY origin",
      'SELECT sum(DISTINCT delay) AS a, avg(DISTINCT distance) AS b, count(*) FILTER (WHERE origin IS NOT DISTINCT FROM destination) AS c, count(*) FILTER (WHERE destination IS DISTINCT FROM NULL) AS d FROM flights',
    ];
    const flightArgs: (typeof ARG_CALLS)[number][] = [
      { col: 'a1', arg: 'origin', val: 'delay', min: true },
      { col: 'a2', arg: 'date', val: 'distance', min: false },
      { col: 'a3', arg: 'delay', val: 'date', min: true, filter: "origin <> 'SFO'" },
    ];
    const argSql = "SELECT destination, arg_min(origin, delay) AS a1, arg_max(date, distance) AS a2, min_by(delay, date) FILTER (WHERE origin <> 'SFO') AS a3, any_value(origin) AS av FROM flights GROUP BY destination ORDER BY destination";
    const full = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 }).root;
    for (const sql of equal) {
      const body = await answer(full, sql);
      expect(body.label, sql).toBe('exact');
      expect(diffResults(fromCanopy(body), await truth(sql), { ordered: true }), sql).toEqual([]);
    }
    const argBody = await answer(full, argSql);
    expect(argBody.label).toBe('exact');
    expect(await checkArgs(argBody, flightArgs, [{ col: 'av', arg: 'origin' }], 'flights', 'destination')).toBeGreaterThan(10);
    // Shard 2 (one ORD row) fails: cells are bounded around DuckDB's value, or approximate.
    const missing = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, {
      fanout: 3,
      wrap: (leaf) => (leaf.shards.includes(2) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
    }).root;
    const counts = { exact: 0, bounded: 0 };
    const body = await answer(missing, equal[1]!);
    expect(body.label).not.toBe('exact');
    checkCells(equal[1]!, body, await truth(equal[1]!), counts);
    expect(counts.bounded).toBeGreaterThan(0);
    expect(await checkArgs(await answer(missing, argSql), flightArgs, [{ col: 'av', arg: 'origin' }], 'flights', 'destination')).toBeGreaterThan(0);
  });

  it('the 3M-row flights data (100 shards, fan-out 10): exact and equal to DuckDB', async () => {
    await duckdb().run('DROP TABLE IF EXISTS flights');
    await duckdb().run(`CREATE OR REPLACE VIEW flights AS SELECT * FROM '${DEFAULT_DATA_PATH.replaceAll("'", "''")}'`);
    const { root } = await preparedInProcessTree({ path: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: { kind: 'hash' }, cacheDir: path.resolve('.canopy-cache'), fanout: 10 });
    const sql = "SELECT origin, sum(DISTINCT delay) AS sd, avg(DISTINCT distance) AS ad, stddev_samp(delay) FILTER (WHERE distance > 1000) AS sf, count(*) FILTER (WHERE destination IS NOT DISTINCT FROM 'SFO') AS n FROM flights WHERE origin IN ('SFO', 'LAX', 'ORD') GROUP BY origin ORDER BY origin";
    const body = await answer(root, sql);
    expect(body.label).toBe('exact');
    expect(diffResults(fromCanopy(body), await truth(sql), { ordered: true })).toEqual([]);
    const argSql = "SELECT origin, arg_max(destination, delay) AS a1, arg_min(distance, date) AS a2, any_value(destination) AS av FROM flights WHERE origin IN ('SFO', 'LAX', 'ORD') GROUP BY origin ORDER BY origin";
    const argBody = await answer(root, argSql);
    expect(argBody.label).toBe('exact');
    const filter = "origin IN ('SFO', 'LAX', 'ORD')";
    const calls = [
      { col: 'a1', arg: 'destination', val: 'delay', min: false, filter },
      { col: 'a2', arg: 'distance', val: 'date', min: true, filter },
    ];
    expect(await checkArgs(argBody, calls, [{ col: 'av', arg: 'destination', filter }], 'flights', 'origin')).toBe(9);
  }, 300_000);

  it('refuses what it cannot answer, naming it', async () => {
    const many: Scalar[][] = Array.from({ length: 5000 }, (_, k) => [k, BigInt(k), 'a', 'a']);
    const { root } = inProcessRoot(SCHEMA, [many.slice(0, 2500), many.slice(2500)]);
    // Past 4,096 distinct values the state is a sketch, which holds no values to sum.
    await expect(ask(root, 'SELECT sum(DISTINCT i) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_LIMIT' });
    await expect(ask(root, 'SELECT avg(DISTINCT f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_LIMIT' });
    // ...while a group under the limit is answered exactly.
    const body = await answer(root, 'SELECT sum(DISTINCT i) FILTER (WHERE i < 100) AS s, avg(DISTINCT f) FILTER (WHERE i >= 4990) AS a, count(*) AS n FROM t');
    expect([body.label, body.rows]).toEqual(['exact', [[4950, 4994.5, 5000]]]);
    await expect(ask(root, 'SELECT sum(DISTINCT s) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT arg_min(s) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT stddev(DISTINCT f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_UNSUPPORTED' });
    await expect(ask(root, 'SELECT abs(f) FILTER (WHERE f > 0) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_UNSUPPORTED', position: { line: 1, column: 15 } });
    await expect(ask(root, 'SELECT stddev(f) FILTER (WHERE f >) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY', position: { line: 1, column: 35 } });
    await expect(ask(root, 'SELECT count_if(f > 0) FILTER (WHERE f > 0 GROUP BY g) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY', position: { line: 1, column: 24 } });
    // A query with a prefix `~` of its own (a bitwise NOT, the marker's look-alike) keeps the grammar's
    // reading of IS DISTINCT FROM, and is refused; beside the regular-expression `s ~ 'a'` it is read
    // (test/tilde-rewrites-duckdb.test.ts).
    await expect(ask(root, 'SELECT count(*) FROM t WHERE ~i = 0 OR s IS DISTINCT FROM g')).rejects.toMatchObject({ code: 'CANOPY_ERR_UNSUPPORTED', message: expect.stringMatching(/IS an expression/) });
  });
});
