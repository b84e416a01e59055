/**
 * More DuckDB SQL over one table, against DuckDB (round 6 of test/sql-surface-duckdb.test.ts,
 * closing gaps found by DuckDB's own sqllogictest queries, test/peer-duckdb-suite.test.ts):
 * - COLLATE on string literals (`'HELLO' COLLATE NOCASE`, src/root/sql/front.ts
 *   rewriteLiteralCollations) in comparisons, and COLLATE (on columns and literals) in
 *   [NOT] LIKE / [NOT] ILIKE (with ESCAPE) / GLOB and as an argument of strpos, instr,
 *   position, contains and starts_with (`^@`), the functions DuckDB pushes a collation into
 *   (src/root/sql/collate.ts); refused where DuckDB ignores or propagates it; ORDER BY an
 *   ordinal with COLLATE;
 * - a star filtered by column names, `* [NOT] LIKE | ILIKE | GLOB | SIMILAR TO 'p'`;
 * - `CAST(x AS T)::U` (src/root/sql/front.ts parenthesiseCastChains); a cast to a type DuckDB
 *   does not have refused as DuckDB refuses it (src/root/sql/parse.ts unknownCastType).
 * Values are checked against DuckDB over random strings on random tables split over random
 * shards, fan-outs and failing shards (test/helpers/small-agree.ts); refusals as DuckDB
 * refuses, or clearly where canopy does not follow DuckDB.
 *
 * Run: npx vitest run test/sql-surface6-duckdb.test.ts
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fromCanopy, fromDuck } from './helpers/compare.ts';
import { valueDiff } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { agreesOnSmallTables } from './helpers/small-agree.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable } from './helpers/small-table.ts';
import { answerBody, inProcessRoot, refusal } from './helpers/tree.ts';

const duckdb = useDuckDB();

/** Pieces of strings that collations tell apart or not: case, accents (composed and combining), LIKE / GLOB wildcards. */
const PIECES = ['a', 'A', 'b', 'B', 'é', 'É', 'e\u0301', 'E', 'ß', 'İ', 'ø', 'ñ', '%', '_', '*', '$', ' '];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 4 }).map((p) => p.join(''));
const row = fc.tuple(nullable(fc.constant(1)), nullable(fc.bigInt({ min: 0n, max: 3n })), nullable(text), nullable(text));

describe('COLLATE on literals, in LIKE / ILIKE / GLOB and in the functions DuckDB pushes it into: equal to DuckDB over random strings', () => {
  it('a collated literal compared with a column (either side, =, <, IN, BETWEEN, dotted and quoted names)', async () => {
    const sql = "SELECT s, g, s = 'AB' COLLATE NOCASE AS a, 'é' COLLATE NOACCENT < s AS b, s IN ('a' COLLATE NOCASE, 'B') AS c, " +
      "s BETWEEN 'A' AND 'E' COLLATE NOCASE.NOACCENT AS d, 'É' COLLATE \"NOACCENT.NOCASE\" = g AS e, s COLLATE NOCASE = 'É' COLLATE NOCASE AS h, 'b' COLLATE C <> s AS k FROM t";
    expect(await agreesOnSmallTables(duckdb, sql, { seed: 2601, numRuns: 60, rows: row })).toBeGreaterThan(100);
  }, 300_000);

  it('[NOT] LIKE, [NOT] ILIKE (ESCAPE \'$\') and GLOB with a collated column, pattern or literal', async () => {
    const sql = "SELECT s, g, s COLLATE NOCASE LIKE g AS a, s LIKE g COLLATE NOACCENT AS b, s COLLATE NOCASE NOT LIKE 'a%' AS c, " +
      "s COLLATE NOACCENT ILIKE '%E%' AS d, s COLLATE NOACCENT.NOCASE NOT ILIKE g AS e, s COLLATE NOCASE LIKE g ESCAPE '#' AS h, " +
      "s COLLATE NOCASE GLOB 'A*' AS k, g GLOB s COLLATE NOACCENT AS l, 'A' COLLATE NOCASE LIKE s AS m, s LIKE lower(g) ESCAPE '#' AS n FROM t";
    expect(await agreesOnSmallTables(duckdb, sql, { seed: 2602, numRuns: 60, rows: row })).toBeGreaterThan(100);
  }, 300_000);

  it('strpos, instr, position, contains, starts_with and ^@ over a collated argument (either one), in WHERE too', async () => {
    const sql = "SELECT s, g, strpos(s COLLATE NOCASE, g) AS a, instr(s, 'B' COLLATE NOCASE) AS b, position('e' IN (s COLLATE NOACCENT)) AS c, " +
      "contains(s COLLATE NOACCENT.NOCASE, 'e') AS d, starts_with(s COLLATE NOCASE, g) AS e, s COLLATE NOACCENT ^@ 'e' AS h, strpos('xAé' COLLATE NOCASE, s) AS k FROM t " +
      "WHERE NOT contains(g COLLATE NOCASE, 'ø') OR g IS NULL";
    expect(await agreesOnSmallTables(duckdb, sql, { seed: 2603, numRuns: 60, rows: row })).toBeGreaterThan(80);
  }, 300_000);

  it('ORDER BY an ordinal with COLLATE: sorted by the key of the select item it names (ties broken by the raw strings)', async () => {
    const sql = 'SELECT s, concat(g, s) AS c, i FROM t ORDER BY 2 COLLATE NOCASE.NOACCENT DESC, 1 COLLATE NOACCENT, 2, 1, 3';
    expect(await agreesOnSmallTables(duckdb, sql, { seed: 2604, numRuns: 60, rows: row, ordered: true })).toBeGreaterThan(100);
  }, 300_000);

  it('constant calls as DuckDB\'s own tests write them', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'x', 'y']]]);
    await loadSmallTable(duckdb(), [[1, 1n, 'x', 'y']]);
    const sql = "SELECT strpos('HéLLO' COLLATE NOCASE, 'éll') AS a, strpos('HÉLLO' COLLATE NOCASE, 'éll') AS b, position('el' IN ('HELLO' COLLATE NOCASE)) AS c, " +
      "'OX' COLLATE NOACCENT.NOCASE LIKE 'ö%' AS d, 'a%ö' COLLATE NOACCENT NOT LIKE 'a$%ö' ESCAPE '$' AS e, 'öX' COLLATE NOACCENT NOT ILIKE 'Ö%' AS h, " +
      "'hëllo' COLLATE NOACCENT = 'hello' AS k, 'hëllo' COLLATE POSIX = 'hello' AS l, strpos('' COLLATE NOCASE, '') AS m, 'a' LIKE 'A' COLLATE NOCASE AS n FROM t";
    const want = fromDuck(await duckdb().runAndReadAll(sql));
    const body = await answerBody(root, sql);
    expect(body.label).toBe('exact');
    expect(valueDiff(fromCanopy(body), want, false)).toEqual([]);
  });
});

describe('COLLATE refused where canopy does not follow DuckDB', () => {
  const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'x', 'y']]]);
  it.each([
    // DuckDB ignores the collation in these (ends_with, prefix, SIMILAR TO, regexp_matches) or
    // carries it to the result (lower, concat), which canopy does not follow.
    "SELECT ends_with(s COLLATE NOCASE, 'A') FROM t",
    "SELECT prefix('Ab' COLLATE NOCASE, 'a') FROM t",
    "SELECT s COLLATE NOCASE SIMILAR TO 'a.' FROM t",
    "SELECT lower('A' COLLATE NOCASE) FROM t",
    "SELECT 'A' COLLATE NOCASE FROM t",
    "SELECT count(*) FROM t GROUP BY 'a' COLLATE NOCASE",
    "SELECT concat(s COLLATE NOACCENT, 'x') = 'ex' FROM t",
  ])('%s', async (sql) => {
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_UNSUPPORTED', expect.stringMatching(/COLLATE is supported on a string compared/)]);
  });

  it.each([
    // A letter as the escape: DuckDB takes its collation key too.
    ["SELECT s COLLATE NOCASE LIKE 'aXXb' ESCAPE 'X' FROM t", 'CANOPY_ERR_UNSUPPORTED', /ESCAPE with COLLATE/],
    ["SELECT strpos(s COLLATE NOCASE, 'a' COLLATE NOACCENT) FROM t", 'CANOPY_ERR_BAD_QUERY', /different collation/],
    ["SELECT 'a' COLLATE bogus_name = s FROM t", 'CANOPY_ERR_BAD_QUERY', /does not exist/],
    ["SELECT 'a' COLLATE de = s FROM t", 'CANOPY_ERR_UNSUPPORTED', /ICU locale collation/],
    // DuckDB collates strings only; an ordinal must name a select item.
    ['SELECT 1 COLLATE NOCASE FROM t', 'CANOPY_ERR_TYPE', /only be applied to strings/],
    ['SELECT i FROM t ORDER BY 1 COLLATE NOCASE', 'CANOPY_ERR_TYPE', /./],
    ['SELECT s FROM t ORDER BY 2 COLLATE NOCASE', 'CANOPY_ERR_BAD_QUERY', /ORDER term out of range/],
  ])('%s', async (sql, code, says) => {
    if (!/ICU|ESCAPE/.test(String(says))) await expect(duckdb().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });
});

describe('a star filtered by column names (* [NOT] LIKE | ILIKE | GLOB | SIMILAR TO): the columns DuckDB selects', () => {
  const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'x', 'y']], [[null, 2n, 'é', null]]], { fanout: 2 });
  it.each([
    "SELECT * LIKE '_' FROM t ORDER BY i",
    "SELECT * NOT LIKE 'f' FROM t ORDER BY i",
    "SELECT * ILIKE 'S' FROM t ORDER BY i",
    "SELECT * NOT ILIKE '%G%' FROM t ORDER BY i",
    "SELECT * GLOB '[fs]' FROM t ORDER BY i",
    "SELECT * SIMILAR TO '(i|g)' FROM t ORDER BY i",
    "SELECT * NOT SIMILAR TO 'i' FROM t ORDER BY i",
    "SELECT t.* LIKE 'g', i + 1 AS j FROM t ORDER BY i",
  ])('%s', async (sql) => {
    await loadSmallTable(duckdb(), [[1, 1n, 'x', 'y'], [null, 2n, 'é', null]]);
    const want = fromDuck(await duckdb().runAndReadAll(sql));
    const body = await answerBody(root, sql);
    expect(body.label).toBe('exact');
    const got = fromCanopy(body);
    expect(got.names).toEqual(want.names);
    expect(valueDiff(got, want, true)).toEqual([]);
  });

  it('no column left is refused, as DuckDB refuses it', async () => {
    const sql = "SELECT * LIKE 'zz%' FROM t";
    await expect(duckdb().run(sql), 'DuckDB refuses it').rejects.toThrow(/empty set of columns/);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_BAD_QUERY', expect.stringMatching(/empty set of columns/)]);
  });
});

describe('CAST(x AS T)::U (the grammar read the :: as a stray tail): equal to DuckDB', () => {
  it('a cast of a cast, nested, TRY_CAST, in WHERE and ORDER BY too', async () => {
    const sql = 'SELECT i, s, f, CAST(i AS VARCHAR)::BIGINT + 1 AS a, TRY_CAST(s AS BIGINT)::VARCHAR AS b, CAST(CAST(i AS VARCHAR)::BIGINT * 2 AS VARCHAR)::BIGINT AS c, ' +
      "CAST(f AS VARCHAR) :: DOUBLE / 2 AS d, cast(i as double)::VARCHAR || 'x' AS e FROM t WHERE CAST(i AS VARCHAR)::BIGINT >= 1 OR i IS NULL ORDER BY CAST(i AS VARCHAR)::BIGINT DESC, s, i, f";
    expect(await agreesOnSmallTables(duckdb, sql, { seed: 2605, numRuns: 80, rows: row, ordered: true })).toBeGreaterThan(100);
  }, 300_000);
});

describe('a cast to a type DuckDB does not have: refused as DuckDB refuses it, not as a syntax error further on', () => {
  const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'x', 'y']]]);
  it.each([
    ['SELECT CAST(i AS NOSUCHTYPE) FROM t', 'NOSUCHTYPE'],
    ['SELECT i::nosuchtype + 1 FROM t', 'nosuchtype'],
    ["SELECT TRY_CAST(s AS bogus) FROM t WHERE i > 0", 'bogus'],
    ['SELECT CAST((i + 1) AS Foo) FROM t', 'Foo'],
  ])('%s', async (sql, name) => {
    await expect(duckdb().run(sql), 'DuckDB refuses it').rejects.toThrow(/Type with name .* does not exist/);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_BAD_QUERY', `Type with name ${name} does not exist (as DuckDB refuses it)`]);
  });

  it('an alias followed by a stray word stays a syntax error', async () => {
    const e = await refusal(root, 'SELECT i AS foo bar FROM t');
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_BAD_QUERY', expect.stringMatching(/^syntax error/)]);
  });
});
