/**
 * More DuckDB SQL over one table, against DuckDB (round 3 of test/sql-surface-duckdb.test.ts,
 * closing gaps found by DuckDB's own sqllogictest queries, test/peer-duckdb-suite.test.ts):
 * - add / subtract / multiply / divide: DuckDB's functions for its operators (divide is `//`
 *   over integers, `/` otherwise; add(x) and subtract(x) unary);
 * - length_grapheme / substring_grapheme / left_grapheme / right_grapheme over grapheme
 *   clusters (with DuckDB's byte-based ASCII path: CR LF is one cluster only past a non-ASCII
 *   byte), nfc_normalize.
 * Values are checked against DuckDB over random tables (strings of combining marks, emoji
 * sequences, flags, Hangul, Devanagari conjuncts, CR LF) split over random shards and tree
 * shapes (fast-check), and over the shared differential table (test/helpers/differential.ts:
 * 9 trees, exact equals DuckDB, bounded holds it); refusals as DuckDB refuses.
 *
 * Run: npx vitest run test/sql-surface3-duckdb.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromCanopy, fromDuck } from './helpers/compare.ts';
import { closeDifferential, differentialTests, duckConnection, setupDifferential, valueDiff, SCHEMA, SHARDS, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { answerBody, failingShardsRoot, inProcessRoot, refusal } from './helpers/tree.ts';

const duckdb = useDuckDB();

beforeAll(setupDifferential);
afterAll(closeDifferential);

/** Pieces of the random strings: ASCII, CR LF, combining marks, emoji sequences, flags, Hangul jamo, a conjunct. */
const PIECES = ['a', 'b', 'Z', ' ', '\r', '\n', '\r\n', 'é', 'e\u0301', 'S\u0308', '\u0301', '🤦🏼‍♂️', '👨‍👩‍👧', '🇺🇸', '🇫🇷', '각', '\u1100\u1161\u11a8', 'क्षि', 'ｚ', "'"];
const text = fc.array(fc.constantFrom(...PIECES), { maxLength: 6 }).map((p) => p.join(''));
const row = fc.tuple(nullable(fc.constantFrom(-2.5, 0, 1, 7.5, 10)), nullable(fc.bigInt({ min: -7n, max: 9n })), nullable(text), nullable(text));

/**
 * Checks `sql` on a random table against DuckDB: the answer of every tree with its shards
 * answering must be exact and equal DuckDB's (rows in any order unless `ordered`); with a shard
 * failing, a complete answer's exact cells must too.
 */
async function agreesOnRandomTables(sql: string, opts: { readonly seed: number; readonly numRuns: number }): Promise<number> {
  let rows = 0;
  await fc.assert(
    fc.asyncProperty(splitTables(row), async (t) => {
      const root = failingShardsRoot(SMALL_SCHEMA, t);
      await loadSmallTable(duckdb(), t.rows);
      let duck: Awaited<ReturnType<ReturnType<typeof duckdb>['runAndReadAll']>> | null = null;
      let duckError: unknown = null;
      try {
        duck = await duckdb().runAndReadAll(sql);
      } catch (e) {
        duckError = e;
      }
      let body: Awaited<ReturnType<typeof answerBody>>;
      try {
        body = await answerBody(root, sql);
      } catch (e) {
        const code = (e as { code: string }).code;
        if (code === 'CANOPY_ERR_NO_COVERAGE') return;
        // Both refuse (an offset out of range, an overflow), or a failing shard hid the bad row.
        expect(duckError, `canopy refused ${code}: ${String((e as Error).message)}`).not.toBeNull();
        return;
      }
      if (t.failing.length === 0) expect(duckError, 'DuckDB refuses what canopy answered').toBeNull();
      if (duck === null) return;
      const want = fromDuck(duck);
      const got = fromCanopy(body);
      if (t.failing.length === 0 || body.label === 'exact') {
        expect(body.label).toBe('exact');
        expect(valueDiff(got, want, false)).toEqual([]);
        rows += got.rows.length;
      }
    }),
    { numRuns: opts.numRuns, seed: opts.seed },
  );
  return rows;
}

describe('grapheme functions and nfc_normalize: equal to DuckDB over random strings', () => {
  it('length_grapheme, substring_grapheme (2 and 3 arguments, negative offsets and lengths), left_grapheme, right_grapheme, nfc_normalize', async () => {
    const sql = 'SELECT s, i, length_grapheme(s) AS n, substring_grapheme(s, i) AS a, substring_grapheme(s, i, 2) AS b, substring_grapheme(s, 2, i) AS c, ' +
      'substring_grapheme(s, -i, i - 3) AS d, substring_grapheme(s, i - 4, -2) AS e, substring_grapheme(s, 0, i) AS h, left_grapheme(s, i) AS l, right_grapheme(s, i) AS r, ' +
      'left_grapheme(g, -2) AS l2, right_grapheme(g, 3 - i) AS r2, nfc_normalize(s) AS nf, nfc_normalize(g) = g AS same FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2301, numRuns: 120 })).toBeGreaterThan(150);
  }, 300_000);

  it('grouped by a grapheme length, filtered and aggregated over the clusters', async () => {
    const sql = 'SELECT length_grapheme(s) AS k, count(*) AS n, max(right_grapheme(s, 1)) AS m, min(substring_grapheme(g, 2, 2)) AS lo, sum(length_grapheme(g)) AS total ' +
      "FROM t WHERE left_grapheme(s, 1) <> 'a' OR s IS NULL GROUP BY k";
    expect(await agreesOnRandomTables(sql, { seed: 2302, numRuns: 50 })).toBeGreaterThan(50);
  }, 300_000);

  it('DuckDB quirks kept: CR LF is two characters on the ASCII path, one cluster past a non-ASCII byte; a negative offset recounts over clusters', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'a\r\nb', 'a\r\nbé']]]);
    const sql = "SELECT length_grapheme(s) AS a, length_grapheme(g) AS b, substring_grapheme(g, 2, 1) = chr(13) AS c, substring_grapheme('S' || chr(776) || 'a', -3, -1) AS d, " +
      "substring_grapheme('S' || chr(776) || 'a', 4, -2) AS e, right_grapheme(g, 2) AS f2 FROM t";
    const body = await answerBody(root, sql);
    await loadSmallTable(duckdb(), [[1, 1n, 'a\r\nb', 'a\r\nbé']]);
    const want = fromDuck(await duckdb().runAndReadAll(sql));
    expect(want.rows).toEqual([[4, 4, 1, 'S\u0308a', 'a', 'bé']]);
    expect(fromCanopy(body).rows).toEqual(want.rows);
  });
});

describe('add, subtract, multiply, divide: equal to DuckDB over random tables', () => {
  it('over integers, doubles, NULLs and a mix', async () => {
    const sql = 'SELECT i, f, add(i, i) AS a, add(i) AS a1, subtract(i, 3) AS b, subtract(i) AS b1, subtract(f) AS b2, multiply(i, i) AS c, multiply(f, i) AS c2, ' +
      'divide(i, 2) AS d, divide(i, i - 1) AS d2, divide(f, 2) AS d3, divide(i, f) AS d4, divide(i, 0) AS d5, divide(f, 0) AS d6, add(i, NULL) AS e, divide(NULL, i) AS e2 FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2303, numRuns: 60 })).toBeGreaterThan(80);
  }, 300_000);

  it('inside aggregates, GROUP BY and HAVING', async () => {
    const sql = 'SELECT divide(i, 3) AS k, sum(multiply(i, 2)) AS s2, add(count(*), 1) AS n, divide(sum(i), count(i)) AS q, subtract(max(f), min(f)) AS spread FROM t GROUP BY k HAVING add(count(*), 0) > 0';
    expect(await agreesOnRandomTables(sql, { seed: 2304, numRuns: 40 })).toBeGreaterThan(50);
  }, 300_000);
});

/** Over the shared differential table (int64 extremes, NaN, infinities, unicode strings). */
const FIXED: Q[] = [
  { sql: 'SELECT add(i, j) AS a, subtract(j, i) AS b, multiply(j, 2) AS c, divide(j, 3) AS d, divide(f, 3) AS e, add(f, j) AS h FROM t WHERE abs(i) < 1000000' },
  { sql: 'SELECT length_grapheme(s) AS a, substring_grapheme(s, 2, 3) AS b, left_grapheme(g, 2) AS c, right_grapheme(s, -1) AS d, nfc_normalize(s) AS e FROM t' },
  { sql: 'SELECT g, sum(length_grapheme(s)) AS n, max(divide(j, 2)) AS m FROM t GROUP BY g' },
  { sql: "SELECT add(ts, INTERVAL '1 day') AS a, add(INTERVAL 2 HOUR, ts) AS b FROM t" },
];

describe('the new functions over the shared differential table: equal to DuckDB', () => {
  differentialTests(FIXED, new Set());
});

describe('refusals, as DuckDB refuses', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  const refused: [sql: string, code: string, says: RegExp][] = [
    ['SELECT add(i, j, j) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /add\(\) takes 1 or 2 arguments, not 3/],
    ['SELECT divide(i) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /divide\(\) takes 2 arguments, not 1/],
    ['SELECT multiply(s, 2) AS a FROM t', 'CANOPY_ERR_TYPE', /needs numbers/],
    ['SELECT multiply(9223372036854775807, j) AS a FROM t WHERE j = 2', 'CANOPY_ERR_OUT_OF_RANGE', /overflow/i],
    ['SELECT divide(-9223372036854775808, i) AS a FROM t WHERE i = -1', 'CANOPY_ERR_OUT_OF_RANGE', /overflow/i],
    ['SELECT length_grapheme(i) AS a FROM t', 'CANOPY_ERR_TYPE', /needs a string/],
    ['SELECT substring_grapheme(s, 1.5, 1) AS a FROM t', 'CANOPY_ERR_TYPE', /needs an integer/],
    ['SELECT left_grapheme(s) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /takes 2 arguments/],
    ['SELECT substring_grapheme(s, 4294967296, 1) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /Substring offset outside of supported range/],
    ['SELECT substring_grapheme(s, 1, -4294967297) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /Substring length outside of supported range/],
    ['SELECT left_grapheme(s, 4294967296) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /Substring length outside of supported range/],
  ];
  it.each(refused)('%s', async (sql, code, says) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });
});
