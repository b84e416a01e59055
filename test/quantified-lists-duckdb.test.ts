/**
 * DuckDB's quantified comparisons with a list of literals (src/root/sql/front.ts,
 * rewriteQuantifiedLists): `x = ANY([...])` / `= SOME(...)` / `= ANY(ARRAY[...])` read as
 * `x IN (...)`, and `x <> ALL([...])` / `!= ALL(...)` as `x NOT IN (...)`, with DuckDB's NULL
 * semantics (a match is true; else NULL when x or an element is NULL; else false), in SELECT,
 * WHERE, FILTER, count_if and CASE, against DuckDB over random small tables split over random
 * shards and tree shapes. Refused as DuckDB refuses: a string list against a number column,
 * a number list against a string column; refused clearly where canopy does not follow DuckDB
 * (other operators, empty lists, elements that are not literals), with the position.
 *
 * Run: npx vitest run test/quantified-lists-duckdb.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { agreesOnSmallTables } from './helpers/small-agree.ts';
import { SMALL_SCHEMA, nullable } from './helpers/small-table.ts';
import { inProcessRoot, refusal } from './helpers/tree.ts';
import { FLIGHTS_SCHEMA } from './helpers/flights.ts';
import { planQuery } from '../src/root/index.ts';

const duckdb = useDuckDB();

const row = fc.tuple(
  nullable(fc.constantFrom(-2.5, 0, 1, 0.5, 2, Number.NaN)),
  nullable(fc.bigInt({ min: -3n, max: 3n })),
  nullable(fc.constantFrom('a', 'b', "it's", '', 'A')),
  nullable(fc.constantFrom('x', 'y')),
);

const agrees = (sql: string, seed: number, ordered = false): Promise<number> => agreesOnSmallTables(duckdb, sql, { seed, numRuns: 60, rows: row, ordered });

describe('x = ANY([...]) and x <> ALL([...]) over literal lists equal DuckDB over random tables', () => {
  it('as values in SELECT: numbers, decimals, negatives, NULL elements, strings with quotes, SOME, ARRAY[...], == and !=', async () => {
    const sql =
      "SELECT f, i, s, i = ANY([1, -2, NULL]) AS a, i <> ALL([0, 2]) AS b, s = ANY(['a', 'b']) AS c, s != ALL(['a', NULL]) AS d, f = SOME([0.5, -2.5]) AS e, " +
      "f == ANY([1]) AS h, s = ANY(ARRAY['it''s', '']) AS k, i = ANY([1.5, 2]) AS l, i <> ALL([NULL]) AS m, s = ANY([NULL]) AS n FROM t";
    expect(await agrees(sql, 2701)).toBeGreaterThan(100);
  }, 300_000);

  it('in WHERE (with NOT, AND, OR), FILTER, count_if and CASE, grouped', async () => {
    expect(await agrees("SELECT count(*) AS n FROM t WHERE s = ANY(['a', 'x']) OR i = ANY([3, -3])", 2702)).toBeGreaterThan(20);
    expect(await agrees("SELECT count(*) AS n FROM t WHERE NOT s = ANY(['a']) AND i <> ALL([1])", 2703)).toBeGreaterThan(20);
    expect(await agrees("SELECT g, count(*) FILTER (WHERE i <> ALL([1, 2])) AS n, count_if(s = ANY(['b', 'A'])) AS m FROM t GROUP BY g ORDER BY g", 2704, true)).toBeGreaterThan(20);
    expect(await agrees("SELECT CASE WHEN i = ANY([1, 2]) THEN 'y' WHEN i <> ALL([0]) THEN 'n' ELSE 'z' END AS k, count(*) AS n FROM t GROUP BY k ORDER BY k", 2705, true)).toBeGreaterThan(20);
  }, 300_000);

  it('over a list cast to a list type (::VARCHAR[], ::INTEGER[], ::DOUBLE[], ::TEXT[]: each element cast, as DuckDB casts the list)', async () => {
    const sql =
      "SELECT f, i, s, s = ANY(['a', NULL]::VARCHAR[]) AS a, i = ANY(['1', '-2']::INTEGER[]) AS b, i <> ALL([1, 2]::BIGINT[]) AS c, " +
      "f = ANY(['0.5', '2']::DOUBLE[]) AS d, s = ANY([1]::TEXT[]) AS e, i = ANY(['3'] :: int []) AS h FROM t";
    expect(await agrees(sql, 2708)).toBeGreaterThan(100);
  }, 300_000);

  it('written without spaces around the operator, or with a comment before the quantifier', async () => {
    expect(await agrees("SELECT count(*) AS n FROM t WHERE s=ANY(['a', 'x']) OR i<>ALL([3, -3]) OR f!=ALL([0.5])", 2706)).toBeGreaterThan(20);
    expect(await agrees("SELECT count(*) AS n FROM t WHERE s = /* hubs */ ANY(['a']) OR i <> -- none\n ALL([1])", 2707)).toBeGreaterThan(20);
  }, 300_000);
});

describe('planned as IN over a set of values (a hash set, the shards\' set indexes), not as an OR of equalities', () => {
  const schemas = new Map([['flights', FLIGHTS_SCHEMA]]);
  const filter = (sql: string): string => JSON.stringify(planQuery(sql, schemas).scan.filter);
  it('a string list, cast or not, and NULL elements, as the IN list of those strings', () => {
    // 2,000 strings as an OR of equalities took 29 s over the 3M-row flights data; as IN, 0.1 s.
    const ins: [string, string][] = [
      ["SELECT count(*) FROM flights WHERE origin = ANY(['SFO', 'LAX', NULL])", "SELECT count(*) FROM flights WHERE origin IN ('SFO', 'LAX', NULL)"],
      ["SELECT count(*) FROM flights WHERE origin <> ALL(['SFO', 'it''s'])", "SELECT count(*) FROM flights WHERE origin NOT IN ('SFO', 'it''s')"],
      ["SELECT count(*) FROM flights WHERE origin = ANY(['SFO', NULL]::TEXT[])", "SELECT count(*) FROM flights WHERE origin IN ('SFO', NULL)"],
    ];
    for (const [any, inList] of ins) {
      expect(filter(any), any).toBe(filter(inList));
      expect(filter(any), any).toContain('"kind":"in"');
    }
  });
});

describe('refusals', () => {
  const { root } = inProcessRoot(SMALL_SCHEMA, [[[1.5, 1n, 'a', 'x'] as Scalar[]]]);
  it('as DuckDB refuses: a string list against a number column, a number list against a string column', async () => {
    const duck = duckdb();
    await duck.run("CREATE OR REPLACE TABLE t AS SELECT 1.5::DOUBLE AS f, 1::BIGINT AS i, 'a' AS s, 'x' AS g");
    for (const sql of ["SELECT count(*) FROM t WHERE i = ANY(['1'])", 'SELECT count(*) FROM t WHERE s = ANY([1, 2])', "SELECT count(*) FROM t WHERE f <> ALL(['1.5'])", 'SELECT count(*) FROM t WHERE s = ANY([1]::INTEGER[])']) {
      await expect(duck.run(sql), sql).rejects.toThrow();
      expect((await refusal(root, sql)).code, sql).toBe('CANOPY_ERR_TYPE');
    }
  });

  it('clearly, with the position, where canopy does not follow DuckDB', async () => {
    const cases: [string, RegExp, number][] = [
      ['SELECT count(*) FROM t WHERE i > ANY([1])', /> ANY\(\.\.\.\) is not supported.*x IN/, 32],
      ['SELECT count(*) FROM t WHERE i = ALL([1])', /= ALL\(\.\.\.\) is not supported/, 32],
      ['SELECT count(*) FROM t WHERE i <> ANY([1])', /<> ANY\(\.\.\.\) is not supported/, 32],
      ['SELECT count(*) FROM t WHERE i = ANY([])', /empty list/, 38],
      ['SELECT count(*) FROM t WHERE i = ANY([i, 1])', /list element i is not supported/, 38],
      ["SELECT count(*) FROM t WHERE s = ANY(['a', 1])", /list element 1 is not supported/, 38],
      ['SELECT count(*) FROM t WHERE i = ANY([1e2])', /list element 1e2 is not supported/, 38],
      ['SELECT count(*) FROM t WHERE i = ANY(NULL)', /ANY\(\.\.\.\) over a subquery, a column, NULL or another expression is not supported/, 38],
      ["SELECT count(*) FROM t WHERE s = ANY(CAST(['a'] AS TEXT[]))", /ANY\(\.\.\.\) over a subquery, a column, NULL or another expression is not supported \(a list cast to a list type is written \['a', 'b'\]::TEXT\[\]\)/, 38],
      ['SELECT count(*) FROM t WHERE i <> ALL((SELECT 1))', /ALL\(\.\.\.\) over a subquery/, 39],
    ];
    for (const [sql, message, column] of cases) {
      const err = await refusal(root, sql);
      expect(err.code, sql).toBe('CANOPY_ERR_UNSUPPORTED');
      expect(err.message, sql).toMatch(message);
      expect(err.position?.column, sql).toBe(column);
    }
  });

  it('as syntax errors where the list or the call is not closed, and a string (a PostgreSQL array literal) named as such', async () => {
    const syntax: [string, RegExp, number][] = [
      ['SELECT count(*) FROM t WHERE i = ANY([1] AND i > 0', /^syntax error at line 1, column 42: expected \) after the list of ANY\(\[\.\.\.\]\), but found 'AND'/, 42],
      ['SELECT count(*) FROM t WHERE i = ANY([1, 2)', /^syntax error at line 1, column 38: the list \[ is not closed with \]/, 38],
      ['SELECT count(*) FROM t WHERE i <> ALL([1]', /^syntax error at line 1, column 42: expected \) after the list of ALL\(\[\.\.\.\]\), but found the end of the query/, 42],
      ["SELECT count(*) FROM t WHERE s = ANY('{a}'::TEXT[]", /^syntax error at line 1, column 51: expected \) after the list of ANY\(\[\.\.\.\]\), but found the end of the query/, 51],
    ];
    for (const [sql, message, column] of syntax) {
      const err = await refusal(root, sql);
      expect(err.code, sql).toBe('CANOPY_ERR_BAD_QUERY');
      expect(err.message, sql).toMatch(message);
      expect(err.position?.column, sql).toBe(column);
    }
    const duck = duckdb();
    const pgArray = "SELECT count(*) FROM t WHERE s = ANY('{a,b}')";
    await expect(duck.run(pgArray)).rejects.toThrow();
    const err = await refusal(root, pgArray);
    expect(err.code).toBe('CANOPY_ERR_UNSUPPORTED');
    expect(err.message).toMatch(/ANY\(\.\.\.\) over a string is not supported: write the list as \['a', 'b'\]/);
  });
});
