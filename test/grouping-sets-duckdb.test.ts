/**
 * GROUP BY GROUPING SETS, ROLLUP, CUBE (and DuckDB's mixed forms) and grouping() /
 * grouping_id() against DuckDB:
 * - random tables split over random shards and tree shapes (fast-check), some shards failing:
 *   with every shard answering, the answer is DuckDB's, row for row; with shards missing, every
 *   row canopy returns is one of DuckDB's (matched by its keys and grouping() bits), its exact
 *   cells equal DuckDB's and its bounded cells hold DuckDB's value;
 * - fixed cases: empty tables, NULL key values beside rolled-up NULLs, duplicate sets, nested
 *   constructs, HAVING / ORDER BY / LIMIT over the union, and the refusals DuckDB makes.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { finalise, groupKeyString, layoutOf, type Partial, type Scalar } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, sameValue, type CmpResult } from './helpers/compare.ts';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { ask, failingShardsRoot, inProcessRoot, answerBody as answer, type AnswerBody as Body } from './helpers/tree.ts';

/** A query and how many leading columns identify a row (its keys and grouping() bits). */
interface Case {
  readonly sql: string;
  readonly id: number;
}

const QUERIES: readonly Case[] = [
  { sql: 'SELECT g, s, grouping(g, s) AS gb, count(*) AS n, sum(i) AS si, min(f) AS mf, max(s) AS ms, avg(i) AS ai FROM t GROUP BY GROUPING SETS ((g, s), (g), ()) ORDER BY g, s, gb', id: 3 },
  { sql: 'SELECT g, s, grouping_id(g, s) AS gb, count(i) AS n, sum(f) AS sf, max(i) AS xi FROM t GROUP BY CUBE (g, s) ORDER BY g, s, gb', id: 3 },
  { sql: 'SELECT g, s, i, grouping(g, s, i) AS gb, count(*) AS n, min(i) AS mi FROM t GROUP BY g, ROLLUP (s, i) ORDER BY g, s, i, gb', id: 4 },
  { sql: 'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g, s) HAVING count(*) > 1 ORDER BY n DESC, g, s, gb LIMIT 5', id: 3 },
  { sql: 'SELECT g, grouping(g) AS gb, count(DISTINCT s) AS ds, count(DISTINCT i) AS di, sum(DISTINCT i) AS sd FROM t GROUP BY ROLLUP (g) ORDER BY g, gb', id: 2 },
  { sql: 'SELECT i % 2 AS p, g, grouping(i % 2, g) AS gb, count(*) AS n, sum(i) AS si FROM t GROUP BY GROUPING SETS (ROLLUP (i % 2), CUBE (g), (i % 2, g)) ORDER BY p, g, gb, n', id: 3 },
  { sql: 'SELECT s, grouping(s) AS gb, count(*) AS n, max(f) AS mf FROM t GROUP BY GROUPING SETS ((s), (s), ()) ORDER BY s, gb, n, mf', id: 2 },
];

const row = fc.tuple(
  nullable(fc.integer({ min: -12, max: 12 }).map((k) => k / 4)),
  nullable(fc.bigInt({ min: -3n, max: 3n })),
  nullable(fc.constantFrom('a', 'b', 'c')),
  nullable(fc.constantFrom('a', 'b')),
);

const duckdb = useDuckDB();

async function truth(sql: string): Promise<CmpResult> {
  return fromDuck(await duckdb().runAndReadAll(sql));
}

/** The identifying columns of a row as one string. */
const idOf = (r: readonly unknown[], id: number): string => JSON.stringify(r.slice(0, id));

/**
 * An answer with shards missing: each row is one of DuckDB's (by its identifying columns);
 * exact cells equal it, bounded cells hold it; a proven row set has DuckDB's rows. Counts the
 * cells checked by label.
 */
function checkPartial(c: Case, body: Body, want: CmpResult, counts: Record<string, number>): void {
  const got = fromCanopy(body);
  expect(got.types, c.sql).toEqual(want.types);
  if (body.rows_complete) expect(got.rows.length, c.sql).toBe(want.rows.length);
  const byId = new Map(want.rows.map((r) => [idOf(r, c.id), r]));
  got.rows.forEach((grow, r) => {
    const wrow = byId.get(idOf(grow, c.id));
    // A row a missing shard would have filtered out by HAVING, or pushed past the LIMIT.
    if (wrow === undefined) {
      expect(body.rows_complete, `${c.sql}: row ${idOf(grow, c.id)} is not DuckDB's`).toBe(false);
      return;
    }
    want.types.forEach((type, k) => {
      const x = wrow[k]!;
      const cell = body.label === 'exact' ? null : (body.cells?.[r]?.[k] ?? null);
      const where = `${c.sql}: row ${idOf(grow, c.id)} column ${want.names[k]}`;
      if (cell === null) {
        counts.exact!++;
        expect(sameValue(grow[k]!, x, type), `${where}: got ${String(grow[k])}, want ${String(x)}`).toBe(true);
        return;
      }
      counts[cell.label] = (counts[cell.label] ?? 0) + 1;
      if (cell.label !== 'bounded' || x === null || typeof x !== 'number') return;
      if (cell.lo !== null) expect(Number(cell.lo), `${where} lo`).toBeLessThanOrEqual(x);
      if (cell.hi !== null) expect(Number(cell.hi), `${where} hi`).toBeGreaterThanOrEqual(x);
    });
  });
}

describe('GROUPING SETS, ROLLUP, CUBE and grouping() against DuckDB', () => {
  it('random tables, shard splits, tree shapes and failing shards', async () => {
    const counts: Record<string, number> = { exact: 0, bounded: 0, approximate: 0, whole: 0 };
    await fc.assert(
      fc.asyncProperty(splitTables(row), async (t) => {
        const root = failingShardsRoot(SMALL_SCHEMA, t);
        const whole = inProcessRoot(SMALL_SCHEMA, t.shards, { fanout: t.fanout }).root;
        await loadSmallTable(duckdb(), t.rows);
        for (const c of QUERIES) {
          const want = await truth(c.sql);
          // Every shard answering: DuckDB's answer, row for row, labelled exact.
          const full = await answer(whole, c.sql);
          expect(diffResults(fromCanopy(full), want, { ordered: true }), c.sql).toEqual([]);
          expect(full.label, c.sql).toBe('exact');
          counts.whole!++;
          let body: Body;
          try {
            body = await answer(root, c.sql);
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          checkPartial(c, body, want, counts);
        }
      }),
      { numRuns: 40, seed: 2020 },
    );
    expect(counts.whole).toBe(40 * QUERIES.length);
    expect(counts.exact).toBeGreaterThan(1000);
    expect(counts.bounded).toBeGreaterThan(0);
  }, 300_000);

  // NULL key values (g) beside the NULLs a set leaves out; 3 shards under a fan-out of 2.
  const FIXED: Scalar[][] = [
    [1.5, 1n, 'a', 'a'],
    [2, 2n, 'b', null],
    [null, -1n, null, 'a'],
    [0.25, null, 'a', 'b'],
    [-3, 3n, 'c', null],
    [0.5, 1n, 'a', 'a'],
  ];
  const FIXED_SQL: readonly string[] = [
    'SELECT g, s, count(*) AS n FROM t GROUP BY (g, s) ORDER BY g, s',
    'SELECT g, count(*) AS n FROM t GROUP BY (), g, () ORDER BY g',
    'SELECT g, count(*) AS n FROM t GROUP BY g HAVING grouping(g) = 0 ORDER BY grouping(g), g',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY ROLLUP ((g, s)) ORDER BY g, s, gb',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY CUBE ((g, s)) ORDER BY g, s, gb',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY GROUPING SETS ((g, s)) ORDER BY g, s, gb',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY CUBE (g, s, g) ORDER BY g, s, gb, n',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g), ROLLUP (s) ORDER BY g, s, gb',
    'SELECT g, s, grouping(s) AS gs, count(*) AS n FROM t GROUP BY (), GROUPING SETS ((), (s)), (g) ORDER BY g, s, gs',
    'SELECT g, s, i, grouping(g, s, i) AS gb, count(*) AS n, sum(f) AS sf FROM t GROUP BY GROUPING SETS (g, (s, i), ()) ORDER BY g, s, i, gb',
    'SELECT g, s, i, grouping(g, s, i) AS gb, count(*) AS n FROM t GROUP BY ROLLUP ((g, s), i) ORDER BY g, s, i, gb',
    'SELECT g, s, i, grouping(g, s, i) AS gb, count(*) AS n FROM t GROUP BY CUBE (g, s), ROLLUP (i) ORDER BY g, s, i, gb',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY GROUPING SETS (ROLLUP (g), CUBE (s), (g, s), ()) ORDER BY g, s, gb, n',
    'SELECT g, grouping(g) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g) HAVING grouping(g) = 0 ORDER BY g',
    'SELECT g, s, count(*) AS n FROM t GROUP BY ROLLUP (g, s) ORDER BY grouping(g, s) DESC, g, s',
    'SELECT g, grouping(g) AS gb, grouping_id(g) * 10 + 1 AS x FROM t GROUP BY g ORDER BY g',
    'SELECT g, grouping(g) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g) ORDER BY g NULLS FIRST, gb LIMIT 2 OFFSET 1',
    'SELECT g, s, grouping(g, s) AS gb, count(*) FILTER (WHERE i > 0) AS pos, avg(f) FILTER (WHERE s <> \'a\') AS af FROM t GROUP BY CUBE (g, s) ORDER BY g, s, gb',
    'SELECT g, s FROM t GROUP BY ROLLUP (g, s) ORDER BY ALL',
    'SELECT g AS k, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (1, 2) ORDER BY k, s, gb',
    'SELECT g AS k, grouping(g) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (k) ORDER BY k, gb',
    'SELECT g AS k, grouping(k) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (k) ORDER BY k, gb',
    'SELECT count(*) AS n, sum(i) AS si FROM t GROUP BY GROUPING SETS ((), ()) ORDER BY n',
    'SELECT g, grouping(g) AS gb, count(*) AS n, sum(i) AS si, min(s) AS ms FROM t GROUP BY GROUPING SETS ((g), (g)) ORDER BY g, gb',
    'SELECT lower(g) AS lg, upper(s) AS us, grouping(lower(g), upper(s)) AS gb, count(*) AS n FROM t GROUP BY CUBE (lower(g), upper(s)) ORDER BY lg, us, gb',
    'SELECT g, s, grouping(g, s) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g, s) ORDER BY n DESC, g, s, gb LIMIT 3',
  ];

  it('fixed cases equal DuckDB, row for row, over any split, also over an empty table', async () => {
    let compared = 0;
    for (const rows of [FIXED, []]) {
      await loadSmallTable(duckdb(), rows);
      for (const split of [1, 3]) {
        const shards: Scalar[][][] = Array.from({ length: split }, (_, k) => rows.filter((_, j) => j % split === k));
        const root = inProcessRoot(SMALL_SCHEMA, shards, { fanout: 2 }).root;
        for (const sql of FIXED_SQL) {
          const got = await answer(root, sql);
          expect(diffResults(fromCanopy(got), await truth(sql), { ordered: true }), sql).toEqual([]);
          expect(got.label, sql).toBe('exact');
          compared++;
        }
      }
    }
    expect(compared).toBe(4 * FIXED_SQL.length);
  });

  it('the union of the sets holds at most 4 × maxGroups groups (CANOPY_ERR_LIMIT past that)', () => {
    const tables = new Map([['t', SMALL_SCHEMA]]);
    const sql = 'SELECT g, s, i, count(*) AS n FROM t GROUP BY CUBE (g, s, i)';
    // Two finest groups differing in every key: 8 sets of 2 groups each but () (1): 15 groups.
    const groupsOver = (maxGroups: number): number => {
      const plan = planQuery(sql, tables, { ...DEFAULT_LIMITS, maxGroups });
      const layout = layoutOf(plan.scan, SMALL_SCHEMA);
      const entries = [['a', 'x', 1n], ['b', 'y', 2n]].map((keys) => ({ keys, states: layout.kinds.map((k) => k.merge(k.empty(), k.decode(1))) }));
      const partial: Partial = { type: 'groups', groups: new Map(entries.map((e) => [groupKeyString(e.keys), e])) };
      const rows = finalise(plan, layout, partial).rows;
      expect(rows.reduce((n, r) => n + Number(r[3]), 0)).toBe(2 * 8);
      return rows.length;
    };
    expect(groupsOver(4)).toBe(15);
    expect(() => groupsOver(3)).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_LIMIT', message: expect.stringMatching(/more than 12 groups/) }));
  });

  it('refuses what DuckDB refuses, and more than 256 grouping sets', async () => {
    await loadSmallTable(duckdb(), FIXED);
    const root = inProcessRoot(SMALL_SCHEMA, [FIXED], { fanout: 2 }).root;
    const refusals: readonly [string, string, RegExp][] = [
      ['SELECT grouping(g) AS x FROM t', 'CANOPY_ERR_BAD_QUERY', /without groups/],
      ['SELECT g, grouping(s) AS x FROM t GROUP BY g', 'CANOPY_ERR_BAD_QUERY', /GROUPING child "s" must be a grouping column/],
      ['SELECT g, grouping(s) AS x FROM t GROUP BY ROLLUP (g)', 'CANOPY_ERR_BAD_QUERY', /must be a grouping column/],
      ['SELECT g, count(*) AS n FROM t WHERE grouping(g) = 0 GROUP BY ROLLUP (g)', 'CANOPY_ERR_UNSUPPORTED', /grouping/i],
      ['SELECT g, s, count(*) AS n FROM t GROUP BY ROLLUP (g)', 'CANOPY_ERR_BAD_QUERY', /'s' must appear in the GROUP BY/],
      ['SELECT g, count(*) AS n FROM t GROUP BY ROLLUP (count(*))', 'CANOPY_ERR_BAD_QUERY', /aggregate/],
      ['SELECT g, grouping(1) AS x FROM t GROUP BY ROLLUP (g)', 'CANOPY_ERR_BAD_QUERY', /GROUPING child "1" must be a grouping column/],
      // An alias is a grouping() argument only where GROUP BY names it.
      ['SELECT lower(g) AS k, grouping(k) AS x FROM t GROUP BY ROLLUP (lower(g))', 'CANOPY_ERR_BAD_QUERY', /GROUPING child "k" must be a grouping column/],
      ['SELECT g AS k, grouping(k) AS x FROM t GROUP BY ROLLUP (1)', 'CANOPY_ERR_BAD_QUERY', /GROUPING child "k" must be a grouping column/],
      ['SELECT i, grouping(i + 0) AS x FROM t GROUP BY ROLLUP (i)', 'CANOPY_ERR_BAD_QUERY', /must be a grouping column/],
      ['SELECT sum(grouping(g)) AS x FROM t GROUP BY ROLLUP (g)', 'CANOPY_ERR_UNSUPPORTED', /grouping/i],
    ];
    for (const [sql, code, message] of refusals) {
      await expect(duckdb().runAndReadAll(sql), sql).rejects.toThrow();
      await expect(ask(root, sql), sql).rejects.toMatchObject({ code, message: expect.stringMatching(message) });
    }
    // DuckDB answers 512 sets (a row per set and group) (its limit is 65535); canopy's root merges per set and stops at 256.
    const cube9 = "SELECT count(*) AS n FROM t GROUP BY CUBE (f, i, s, g, f + 1, i + 1, s || 'x', g || 'y', i * 2)";
    expect((await duckdb().runAndReadAll(cube9)).getRows().length).toBeGreaterThan(512);
    await expect(ask(root, cube9)).rejects.toMatchObject({ code: 'CANOPY_ERR_LIMIT', message: expect.stringMatching(/512 grouping sets.*at most 256/) });
    const cube8 = "SELECT count(*) AS n FROM t GROUP BY CUBE (f, i, s, g, f + 1, i + 1, s || 'x', g || 'y')";
    expect(diffResults(fromCanopy(await answer(root, cube8)), await truth(cube8), { ordered: false })).toEqual([]);
  });
});

/**
 * The edge table of the differential tests (NaN, -0.0, ±Infinity and int64 extremes as keys and
 * values, timestamps around 1970 and leap days, strings beyond the BMP), over sorted shard splits,
 * batches, and three trees with a shard failing (src: test/helpers/differential.ts).
 */
const EDGE: readonly Q[] = [
  { sql: "SELECT date_trunc('year', ts) AS y, g, grouping(date_trunc('year', ts), g) AS gb, count(*) AS n, min(ts) AS lo, sum(i) AS si FROM t GROUP BY ROLLUP (date_trunc('year', ts), g)" },
  { sql: 'SELECT f, grouping(f) AS gf, count(*) AS n, sum(i) AS si, max(j) AS mj FROM t GROUP BY ROLLUP (f)' },
  { sql: 'SELECT g, s, grouping(g, s) AS gb, count(*) AS n, min(ts) AS lo, max(f) AS hi FROM t GROUP BY CUBE (g, s)' },
  { sql: 'SELECT j % 3 AS m, g, grouping(m, g) AS gb, sum(f) AS sf, avg(j) AS aj, count(DISTINCT s) AS ds FROM t GROUP BY GROUPING SETS ((m), (g), (m, g), ())' },
  { sql: 'SELECT extract(year FROM ts) AS y, grouping(y) AS gy, count(*) AS n FROM t GROUP BY ROLLUP (y) HAVING count(*) > 1 ORDER BY y, gy', ordered: true },
  { sql: 'SELECT g, grouping(g) AS gb, count(*) AS n FROM t GROUP BY ROLLUP (g) ORDER BY n DESC, g, gb LIMIT 2', ordered: true, shardSize: 1 },
  { sql: 'SELECT i, j, grouping(i, j) AS gb, sum(i) AS si, sum(j) AS sj FROM t GROUP BY i, CUBE (j) ORDER BY si DESC NULLS FIRST, i, j, gb LIMIT 5 OFFSET 1', ordered: true },
  { sql: 'SELECT g, s, count(*) AS n, count(f) AS nf, var_pop(j) AS vj FROM t GROUP BY GROUPING SETS (ROLLUP (g, s), CUBE (s))' },
];

describe('grouping sets over the edge table, shard splits and failing shards', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(EDGE, new Set());
});
