/**
 * The SQL standard's ordered-set aggregates as DuckDB reads them (the PostgreSQL syntax that
 * Metabase, Superset and Grafana write for percentiles): `percentile_cont(q) WITHIN GROUP
 * (ORDER BY x [DESC])`, `percentile_disc(...)` and `mode() WITHIN GROUP (ORDER BY x)`, against
 * DuckDB:
 * - the 20-row edge table (NaN, ±Infinity, -0.0, int64 extremes, timestamps, strings) on the
 *   differential harness's 9 trees: exact cells equal DuckDB, bounded ones hold it;
 * - random tables split over random shards and tree shapes, some shards failing (fast-check):
 *   with every shard answering the cells are exact and equal DuckDB (mode's ties aside:
 *   bounded, as for mode(x)); with shards missing, exact cells equal DuckDB, bounded ones hold it;
 * - unaliased columns are named as DuckDB names them;
 * - what DuckDB refuses (q outside [0, 1] or NULL or not a constant, two ORDER BY keys,
 *   DISTINCT, an argument to mode, other aggregates WITHIN GROUP) canopy refuses with a code.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromCanopy, fromDuck } from './helpers/compare.ts';
import { checkPartial, closeDifferential, differentialTests, setupDifferential, valueDiff, type Body, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { answerBody, failingShardsRoot, inProcessRoot, refusal } from './helpers/tree.ts';

const EDGES: readonly Q[] = [
  {
    sql: 'SELECT g, percentile_cont(0.3) WITHIN GROUP (ORDER BY f) AS a, percentile_disc(0.7) WITHIN GROUP (ORDER BY i DESC) AS b, percentile_cont(0.25) WITHIN GROUP (ORDER BY j DESC NULLS FIRST) AS c, ' +
      'percentile_disc(0.5) WITHIN GROUP (ORDER BY s) AS d, percentile_cont(0) WITHIN GROUP (ORDER BY ts DESC) AS e, percentile_disc(1) WITHIN GROUP (ORDER BY ts DESC) AS h FROM t GROUP BY g ORDER BY g',
    ordered: true,
  },
  { sql: 'SELECT percentile_cont(0.9) WITHIN GROUP (ORDER BY j * 2 + 1) FILTER (WHERE g <> \'a\') AS a, percentile_disc(0.1) WITHIN GROUP (ORDER BY s DESC) AS b, percentile_cont(1) WITHIN GROUP (ORDER BY j DESC) AS c FROM t' },
];

describe('ordered-set aggregates (WITHIN GROUP) on the edge table', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(EDGES, new Set());
});

const duckdb = useDuckDB();

const row = fc.tuple(
  nullable(fc.integer({ min: -12, max: 12 }).map((k) => k / 4)),
  nullable(fc.bigInt({ min: -6n, max: 6n })),
  nullable(fc.constantFrom('a', 'z', '😀', '', 'b')),
  nullable(fc.constantFrom('a', 'b', 'c')),
);

const RANDOM: readonly string[] = [
  'SELECT g, percentile_cont(0.3) WITHIN GROUP (ORDER BY f) AS a, percentile_cont(0.3) WITHIN GROUP (ORDER BY f DESC) AS b, percentile_disc(0.7) WITHIN GROUP (ORDER BY i) AS c, ' +
    'percentile_disc(0.7) WITHIN GROUP (ORDER BY i DESC) AS d, percentile_disc(0.4) WITHIN GROUP (ORDER BY s DESC) AS e, percentile_cont(0.5) WITHIN GROUP (ORDER BY i) FILTER (WHERE f > 0) AS h, count(*) AS n FROM t GROUP BY g ORDER BY g',
  'SELECT percentile_cont(0) WITHIN GROUP (ORDER BY f DESC) AS a, percentile_disc(1) WITHIN GROUP (ORDER BY i DESC) AS b, percentile_disc(0.5) WITHIN GROUP (ORDER BY s) AS c, percentile_cont(0.75) WITHIN GROUP (ORDER BY f - i) AS d FROM t',
];
/** mode's ties are bounded between the tied values (as mode(x)'s), even with every shard answering. */
const MODES = 'SELECT g, mode() WITHIN GROUP (ORDER BY i) AS a, mode() WITHIN GROUP (ORDER BY f DESC) AS b, mode() WITHIN GROUP (ORDER BY i) FILTER (WHERE f > 0) AS c FROM t GROUP BY g ORDER BY g';

describe('ordered-set aggregates against DuckDB over random tables', () => {
  it('every shard answering: exact and equal; shards missing: exact cells equal, bounded cells hold', async () => {
    let exact = 0;
    let partial = 0;
    let modes = 0;
    await fc.assert(
      fc.asyncProperty(splitTables(row), async (t) => {
        await loadSmallTable(duckdb(), t.rows);
        const whole = inProcessRoot(SMALL_SCHEMA, t.shards, { fanout: t.fanout }).root;
        const failing = failingShardsRoot(SMALL_SCHEMA, t);
        for (const sql of RANDOM) {
          const want = fromDuck(await duckdb().runAndReadAll(sql));
          const all = (await answerBody(whole, sql)) as Body;
          expect(all.label, sql).toBe('exact');
          expect(valueDiff(fromCanopy(all), want, true), sql).toEqual([]);
          exact++;
          let some: Body;
          try {
            some = (await answerBody(failing, sql)) as Body;
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          expect(checkPartial(some, want), sql).toEqual([]);
          partial++;
        }
        const want = fromDuck(await duckdb().runAndReadAll(MODES));
        const all = (await answerBody(whole, MODES)) as Body;
        expect(all.rows_complete).toBe(true);
        expect(checkPartial(all, want), MODES).toEqual([]);
        if (all.label === 'exact') modes++;
      }),
      { numRuns: 40, seed: 2025 },
    );
    expect(exact).toBe(80);
    expect(partial).toBeGreaterThan(40);
    expect(modes).toBeGreaterThan(5);
  }, 120_000);

  it('unaliased columns are named as DuckDB names them', async () => {
    await loadSmallTable(duckdb(), [[1.5, 2n, 'a', 'b']]);
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1.5, 2n, 'a', 'b']]], { fanout: 2 });
    const sql = 'SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f), percentile_disc(0.25) WITHIN GROUP (ORDER BY i DESC), percentile_disc(0.5) WITHIN GROUP (ORDER BY s NULLS FIRST), percentile_cont(0.50) WITHIN GROUP (ORDER BY f+1), mode() WITHIN GROUP (ORDER BY i) FROM t';
    const want = (await duckdb().runAndReadAll(sql)).columnNames();
    expect((await answerBody(root, sql)).columns.map((c) => c.name)).toEqual(want);
  });

  it('refuses what DuckDB refuses, with a code', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1.5, 2n, 'a', 'b']]], { fanout: 2 });
    await loadSmallTable(duckdb(), [[1.5, 2n, 'a', 'b']]);
    const cases: readonly [string, string][] = [
      ['SELECT percentile_cont(1.5) WITHIN GROUP (ORDER BY f) FROM t', 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT percentile_cont(-0.25) WITHIN GROUP (ORDER BY f) FROM t', 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT percentile_disc(NULL) WITHIN GROUP (ORDER BY f) FROM t', 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT percentile_cont(f) WITHIN GROUP (ORDER BY f) FROM t', 'CANOPY_ERR_BAD_QUERY'],
      ["SELECT percentile_cont('0.5') WITHIN GROUP (ORDER BY f) FROM t", 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f, i) FROM t', 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY s) FROM t', 'CANOPY_ERR_TYPE'],
      ['SELECT mode(i) WITHIN GROUP (ORDER BY i) FROM t', 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY f) OVER () FROM t', 'CANOPY_ERR_UNSUPPORTED'],
    ];
    for (const [sql, code] of cases) {
      await expect(duckdb().runAndReadAll(sql), sql).rejects.toThrow();
      expect((await refusal(root, sql)).code, sql).toBe(code);
    }
  });
});
