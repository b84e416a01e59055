/**
 * More DuckDB SQL over one table, against DuckDB (round 3 of test/sql-surface-duckdb.test.ts,
 * closing gaps found by DuckDB's own sqllogictest queries, test/peer-duckdb-suite.test.ts):
 * - add / subtract / multiply / divide: DuckDB's functions for its operators (divide is `//`
 *   over integers, `/` otherwise; add(x) and subtract(x) unary);
 * - length_grapheme / substring_grapheme / left_grapheme / right_grapheme over grapheme
 *   clusters (with DuckDB's byte-based ASCII path: CR LF is one cluster only past a non-ASCII
 *   byte), nfc_normalize;
 * - HUGEINT (int128): CAST / TRY_CAST to it (from integers, doubles half to even, strings as
 *   DuckDB reads them), arithmetic and shifts in 128 bits with DuckDB's overflow errors, abs,
 *   MIN/MAX over values past 2^53 (they were NULL), `-128::TINYINT` as -(128::TINYINT);
 *   values past BIGINT computed row by row are refused (the leaf holds rows in 64 bits);
 * - a unary minus before a bitwise operator binds tighter, as in DuckDB; `~x` (bitwise NOT);
 * - COLUMNS(*) / COLUMNS('regex') inside SELECT expressions (`min(COLUMNS(*))`), WHERE (the AND
 *   of the clause's copies) and ORDER BY keys;
 * - `WITH c AS [NOT] MATERIALIZED (...)`: a hint that changes no row;
 * - sleep_ms / pg_sleep: NULL once the argument is computed (canopy does not sleep);
 * - make_timestamptz(µs) (the instant, as make_timestamp); its field forms refused;
 * - printf's %c, `#` flag and length modifiers (hh and h convert the value first, as fmt does).
 * Values are checked against DuckDB over random tables (strings of combining marks, emoji
 * sequences, flags, Hangul, Devanagari conjuncts, CR LF) split over random shards and tree
 * shapes (fast-check), and over the shared differential table (test/helpers/differential.ts:
 * 9 trees, exact equals DuckDB, bounded holds it); refusals as DuckDB refuses.
 *
 * Run: npx vitest run test/sql-surface3-duckdb.test.ts
 */
import fc from 'fast-check';
import { minMaxKind } from '../src/merge/kinds/minmax.ts';
import type { Scalar } from '../src/merge/index.ts';
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

/** Numbers as DuckDB casts them to HUGEINT (digits, spaces, signs, decimals, exponents, underscores; hex and words it refuses). */
// Row by row canopy holds integers in 64 bits (a HUGEINT past them is refused): the texts past
// BIGINT here do not convert (NULL); the others are constants in HUGE_FIXED.
const NUMBER_TEXTS = ['12', ' -7 ', '+5', '1e3', '2.5', '-2.5', '0.5', '1_000', '0x1F', '0b101', 'abc', '', '-0', '170141183460469231731687303715884105728',
  '-170141183460469231731687303715884105729', '1e39', '00012', '-922337203685477580.7e1', '12345678901234567890123456789012345678901234567890e-20', '1.5e1'];
const hugeRow = fc.tuple(
  nullable(fc.constantFrom(-2.5, 2.5, 0.5, 1.5, -3.5, 7, 1e18, -9.2e18, 1.5e30)),
  nullable(fc.oneof(fc.bigInt({ min: -20n, max: 20n }), fc.bigInt({ min: -(2n ** 60n), max: 2n ** 60n }))),
  nullable(fc.constantFrom(...NUMBER_TEXTS)),
  nullable(fc.constantFrom('a', 'b')),
);

/**
 * Checks `sql` on a random table against DuckDB: the answer of every tree with its shards
 * answering must be exact and equal DuckDB's (rows in any order unless `ordered`); with a shard
 * failing, a complete answer's exact cells must too.
 */
async function agreesOnRandomTables(sql: string, opts: { readonly seed: number; readonly numRuns: number; readonly rows?: fc.Arbitrary<Scalar[]>; readonly ordered?: boolean }): Promise<number> {
  let rows = 0;
  await fc.assert(
    fc.asyncProperty(splitTables(opts.rows ?? row), async (t) => {
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
        // With a shard failing canopy computes over fewer rows (a sum may overflow that the whole does not).
        if (code === 'CANOPY_ERR_NO_COVERAGE' || t.failing.length > 0) return;
        // Both refuse (an offset out of range, an overflow).
        expect(duckError, `canopy refused ${code}: ${String((e as Error).message)}`).not.toBeNull();
        return;
      }
      if (t.failing.length === 0) expect(duckError, 'DuckDB refuses what canopy answered').toBeNull();
      if (duck === null) return;
      const want = fromDuck(duck);
      const got = fromCanopy(body);
      if (t.failing.length === 0 || body.label === 'exact') {
        expect(body.label).toBe('exact');
        expect(valueDiff(got, want, opts.ordered === true)).toEqual([]);
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

describe('HUGEINT (int128): casts, arithmetic, shifts and MIN/MAX equal to DuckDB', () => {
  it('over random tables: casts of integers, doubles (half to even) and strings, arithmetic in 128 bits, shifts, abs, unary minus', async () => {
    const sql = 'SELECT i, f, s, i::HUGEINT AS a, i::HUGEINT + i AS b, i::HUGEINT * 3 AS c, i::HUGEINT // 7 AS d, i::HUGEINT % 5 AS e, -(i::HUGEINT) AS h, abs(i::HUGEINT) AS k, ' +
      'i::HUGEINT >> 3 AS l, i::HUGEINT & 255 AS m, abs(i)::HUGEINT << 2 AS n, f::HUGEINT AS o, TRY_CAST(s AS HUGEINT) AS p, TRY_CAST(s AS HUGEINT) // 3 AS q, i::HUGEINT::BIGINT AS r, ' +
      'TRY_CAST(i::HUGEINT AS INTEGER) AS u, i::HUGEINT::DOUBLE AS v, i::HUGEINT::VARCHAR AS w, i::HUGEINT > 1000 AS x, i::HUGEINT / 2 AS y, CAST(i::HUGEINT AS BOOLEAN) AS z FROM t WHERE abs(f) < 1e19 OR f IS NULL';
    expect(await agreesOnRandomTables(sql, { seed: 2305, numRuns: 60, rows: hugeRow })).toBeGreaterThan(100);
  }, 300_000);

  it('over random tables: grouped by a HUGEINT, MIN/MAX/any_value of HUGEINTs past 2^53, HAVING, and SUM + HUGEINT past BIGINT', async () => {
    const sql = 'SELECT i::HUGEINT % 3 AS k, max(i::HUGEINT * 5) AS a, min(i::HUGEINT - 7) AS b, count(*) AS n, max(TRY_CAST(s AS HUGEINT)) AS c, min(TRY_CAST(s AS HUGEINT)) AS d, ' +
      'sum(i) + 170141183460469231731687303715884100000 AS e FROM t GROUP BY k HAVING max(i::HUGEINT) > -100000000000000000000';
    expect(await agreesOnRandomTables(sql, { seed: 2306, numRuns: 100, rows: hugeRow })).toBeGreaterThan(40);
  }, 300_000);

  it("a MIN/MAX state of HUGEINTs crosses the wire as its digits (a number or Int64 column would round or wrap it)", () => {
    for (const kind of ['min', 'max'] as const) {
      const k = minMaxKind(kind, 'int128');
      for (const v of [170141183460469231731687303715884105727n, -(2n ** 127n), 12n, 0n]) expect(k.decode(k.encode(v))).toBe(v);
      expect(k.encode(null)).toBeNull();
      expect(() => k.decode('12.5')).toThrow();
    }
  });
});

/** HUGEINT constants and their arithmetic (DuckDB's own test queries' forms) over the shared differential table. */
const HUGE_FIXED: Q[] = [
  { sql: "SELECT '170141183460469231731687303715884105727'::HUGEINT AS a, '-170141183460469231731687303715884105728'::HUGEINT AS b, '-0'::HUGEINT AS c, 2.5::HUGEINT AS d, -2.5::HUGEINT AS e FROM t" },
  { sql: "SELECT '100000000000000000000'::HUGEINT + '100000000000000000000'::HUGEINT AS a, '170141183460469231731687303715884105727'::HUGEINT - 10::HUGEINT + 10::HUGEINT AS b, 100000000000000000000 + 1 AS c, -(100000000000000000000::HUGEINT) AS d FROM t" },
  { sql: "SELECT '100000000000000000000000000000000000000'::HUGEINT // '10000000000000'::HUGEINT AS a, '100000000000000000000000000000000000000'::HUGEINT % '6587689457689375689735'::HUGEINT AS b, 100::HUGEINT // 0::HUGEINT AS c, -90::HUGEINT % -20::HUGEINT AS d FROM t" },
  { sql: "SELECT '1329227995784915872903807060280344576'::HUGEINT >> 96 AS a, 1::HUGEINT << 126 AS b, 27::HUGEINT >> 200 AS c, -27::HUGEINT >> 1 AS d, 0::HUGEINT << 200 AS e, 1 << 100::HUGEINT AS h, 5::HUGEINT | 3 AS k FROM t" },
  { sql: "SELECT 10376293541461622783::HUGEINT * 10376293541461622783::HUGEINT AS a, 1e20::DOUBLE::HUGEINT AS b, 1.7e38::DOUBLE::HUGEINT AS c, '1.7e38'::HUGEINT AS d, '  12  '::HUGEINT AS e, '1_000'::HUGEINT AS h FROM t" },
  { sql: "SELECT TRY_CAST('170141183460469231731687303715884105728' AS HUGEINT) AS a, TRY_CAST('0x1F' AS HUGEINT) AS b, TRY_CAST(1e39::DOUBLE AS HUGEINT) AS c, TRY_CAST('nan'::DOUBLE AS HUGEINT) AS d, NULL::HUGEINT AS e, CAST(CAST('0' AS HUGEINT) AS BOOLEAN) AS h FROM t" },
  { sql: 'SELECT j::HUGEINT AS a, j::HUGEINT + 100 AS b, abs(j::HUGEINT) AS c, j::HUGEINT * -1 AS d, j::HUGEINT::VARCHAR AS e, f::HUGEINT AS h FROM t WHERE abs(f) < 1e18' },
  { sql: "SELECT '-0.000000000001701411834604692317316873037e37'::HUGEINT AS a, '17014118346046923173168730371588410572.7e1'::HUGEINT AS b, '1234567890123456789012345678901234567890e-5'::VARCHAR AS c, TRY_CAST('1234567890123456789012345678901234567890e-5' AS HUGEINT) AS d, TRY_CAST('12345678901234567890123456789012345678901234567890e-20' AS BIGINT) AS e FROM t" },
  { sql: 'SELECT g, max(j::HUGEINT) AS a, min(j::HUGEINT) AS b, sum(j) * 2 AS c, sum(j) - 9223372036854775807 AS d FROM t GROUP BY g' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j::HUGEINT > 100 OR i::HUGEINT = -1' },
  { sql: "SELECT abs('-1329227995784915872903807060280344576'::HUGEINT) AS a, sign('-1329227995784915872903807060280344576'::HUGEINT) AS b, round('-1329227995784915872903807060280344576'::HUGEINT, 0) AS c, round('-1329227995784915872903807060280344576'::HUGEINT, -30) AS d, floor('-1329227995784915872903807060280344576'::HUGEINT) AS e, ceil(1::HUGEINT) AS h, least(1::HUGEINT, '-1329227995784915872903807060280344576'::HUGEINT, 0) AS k, greatest(1::HUGEINT, '-1329227995784915872903807060280344576'::HUGEINT) AS l, trunc(-5::HUGEINT) AS m, round(j::HUGEINT, -1) AS n FROM t" },
  { sql: "SELECT printf('%d', '-170141183460469231731687303715884105728'::HUGEINT) AS a, printf('%5d|%-45d|%+d', 12::HUGEINT, 120381902481294715712::HUGEINT, 7::HUGEINT) AS b, format('{}', 120381902481294715712::HUGEINT) AS c, format('{:x}', -255::HUGEINT) AS d, format('{:,}', 123456789123456789123456789::HUGEINT) AS e, format('{:b}', 5::HUGEINT) AS h, printf('%i', j::HUGEINT) AS k FROM t" },
  { sql: 'SELECT xor(51290852742897895128414::HUGEINT, 3) AS a, xor(j::HUGEINT, 5) AS b, xor(1::HUGEINT, -1) AS c FROM t' },
  { sql: 'SELECT round(sum(j), 0) AS a, round(sum(j), -2) AS b, trunc(sum(j)) AS c, abs(sum(j)) AS d FROM t' },
  { sql: "SELECT '0.00000000000000000000000000000009223372036854775807e50'::BIGINT AS a, '-0.00000000000000000000000000000009223372036854775807e50'::BIGINT AS b FROM t" },
  { sql: 'SELECT TRY_CAST(sum(i) AS BOOLEAN) AS a, CAST(sum(j) AS BOOLEAN) AS b, CAST(max(j) > 0 AS HUGEINT) AS c FROM t' },
  { sql: "SELECT (-128)::TINYINT AS a, CAST(-128 AS TINYINT) AS b, -127::HUGEINT::TINYINT AS c, '-170141183460469231731687303715884105728'::HUGEINT * 1 AS d, '-170141183460469231731687303715884105728'::HUGEINT * 0 AS e, -170141183460469231731687303715884105727::HUGEINT - 1 AS h FROM t" },
];

/** DuckDB's unary minus binds tighter than every binary operator: `- j >> 1` is (-j) >> 1 (the grammar read -(j >> 1)). */
const UNARY_MINUS: Q[] = [
  { sql: 'SELECT j, - j >> 1 AS a, -j >> 2 AS b, - j & 3 AS c, -(j >> 1) AS d, - j + 1 >> 1 AS e, - 5::BIGINT >> 1 AS h, - j | 1 AS k FROM t WHERE abs(j) < 1000' },
  { sql: 'SELECT -11367237885269962203896920952509169001 >> 64 AS a, -11367237885269962203896920952509169001 >> 96 AS b, - 1::HUGEINT >> 1 AS c FROM t' },
];

/** DuckDB's bitwise NOT `~` (binding looser than the other operators, where the grammar reads it tighter: refused there). */
const TILDE: Q[] = [
  { sql: 'SELECT j, ~j AS a, ~(j + 1) AS b, (~j) * 2 AS c, 1 + ~j AS d, ~NULL AS e, ~(5::HUGEINT) AS h, ~(4923847238975289723895239078235::HUGEINT) AS k, - ~j AS l, ~j = -1 AS m FROM t WHERE abs(j) < 1000000' },
  { sql: 'SELECT ~((-9223372036854775808)::BIGINT) AS a, ~(9223372036854775807::BIGINT) AS b, ~5 AS c, ~(5::TINYINT) AS d FROM t' },
];

describe('unary minus over bitwise operators, and ~: equal to DuckDB', () => {
  differentialTests([...UNARY_MINUS, ...TILDE], new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ['SELECT ~j + 1 AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /DuckDB binds ~ looser than it/, false],
    ['SELECT ~j * 2 AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /DuckDB binds ~ looser than it/, false],
    ['SELECT ~(5::UTINYINT) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /over a UTINYINT value/, false],
    ['SELECT ~f AS a FROM t', 'CANOPY_ERR_TYPE', /needs an integer/, true],
  ])('%s', async (sql, code, says, duckRefuses) => {
    if (duckRefuses) await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    else await duckConnection().run(sql);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });
});

describe('HUGEINT constants and columns over the shared differential table: equal to DuckDB', () => {
  differentialTests(HUGE_FIXED, new Set());
});

describe('HUGEINT refusals: as DuckDB refuses, or clearly where canopy cannot hold the value', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ["SELECT '170141183460469231731687303715884105727'::HUGEINT + 1 AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /overflow in addition of INT128/],
    ["SELECT '170141183460469231731687303715884105727'::HUGEINT * j AS a FROM t WHERE j = 2", 'CANOPY_ERR_OUT_OF_RANGE', /overflow in multiplication of INT128/],
    ["SELECT -('-170141183460469231731687303715884105728'::HUGEINT) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /overflow in negation of INT128/],
    ["SELECT '-170141183460469231731687303715884105728'::HUGEINT // -1 AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /overflow in division/],
    ['SELECT 1::HUGEINT << 127 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /Overflow in left shift/],
    ['SELECT 1::HUGEINT << 128 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /Left-shift value 128 is out of range/],
    ["SELECT '0x1F'::HUGEINT AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /could not convert string '0x1F' to int128/],
    ['SELECT 1.7014118346046923e38::DOUBLE::HUGEINT AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /outside the HUGEINT range/],
    ["SELECT CAST('170141183460469231731687303715884105728' AS HUGEINT) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /outside the HUGEINT range/],
    ["SELECT CAST('1.99999999999999999999999999999999999999999999' AS HUGEINT) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /its digits pass the type as one integer/],
    // DuckDB's unary minus binds looser than `::`: -128::TINYINT is -(128::TINYINT).
    ['SELECT -128::TINYINT AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /128 is out of the TINYINT range/],
    ['SELECT -128::HUGEINT::TINYINT AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /128 is out of the TINYINT range/],
    ['SELECT -2147483648::HUGEINT::INTEGER AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /2147483648 is out of the INTEGER range/],
    // DuckDB multiplies magnitudes, which stop at 2^127 - 1: a product of -2^127 overflows (but -2^127 * 1 does not).
    ['SELECT -85070591730234615865843651857942052864 * 2 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /overflow in multiplication of INT128/],
    ["SELECT 2 * '-85070591730234615865843651857942052864'::HUGEINT AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /overflow in multiplication of INT128/],
    ["SELECT CAST('-170141183460469231731687303715884105728'::DOUBLE AS HUGEINT) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /outside the HUGEINT range/],
  ])('%s', async (sql, code, says) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });

  it.each([
    // A value past BIGINT computed row by row: the leaf holds rows in 64 bits (DuckDB answers).
    ['SELECT j::HUGEINT * 100000000000000000000 AS a FROM t WHERE j = 2', /outside the int64 range: canopy computes per row in int64/],
    // Long fractions: DuckDB gathers their digits in the type too and answers its own way (0 here, or NULL).
    ["SELECT TRY_CAST('1.9223372036854775807e0' AS BIGINT) AS a FROM t", /its digits pass the type as one integer/],
    ["SELECT TRY_CAST('0.00000000000170141183460469231731687303715884105727e50' AS HUGEINT) AS a FROM t", /more than 40 digits after the point/],
  ])('refused, where DuckDB answers: %s', async (sql, says) => {
    await duckConnection().run(sql);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_OUT_OF_RANGE', expect.stringMatching(says)]);
  });
});

/** Pieces of the random strings for COLUMNS: few, so that groups and ties are common. */
const columnsRow = fc.tuple(nullable(fc.constantFrom(-2.5, 0, 1, 7.5)), nullable(fc.bigInt({ min: -3n, max: 3n })), nullable(fc.constantFrom('a', 'b', 'é')), nullable(fc.constantFrom('x', 'y')));

describe("COLUMNS(*) and COLUMNS('regex') in expressions, WHERE and ORDER BY: equal to DuckDB", () => {
  it.each([
    ["SELECT COLUMNS('f|i') + 1 AS x, COLUMNS('^[sg]$') || '!' FROM t", false],
    ["SELECT min(COLUMNS(*)), max(COLUMNS('^[fi]$')), count(COLUMNS('s|g')), sum(COLUMNS('^i$')) * 2 AS twice FROM t", false],
    ["SELECT g, sum(COLUMNS('^[fi]$')), max(COLUMNS('^[fi]$') + COLUMNS('^[fi]$')) FROM t GROUP BY g", false],
    ["SELECT * FROM t WHERE COLUMNS('f|i') >= 0", false],
    ["SELECT * FROM t WHERE NOT (COLUMNS('f|i') > 0.5)", false],
    ["SELECT * FROM t WHERE COLUMNS(*) IS NOT NULL OR s = 'a'", false],
    ["SELECT f, i, s, g FROM t ORDER BY COLUMNS('^(i|f)$') DESC NULLS LAST, COLUMNS('s|g') NULLS FIRST", true],
  ] as const)('%s', async (sql, ordered) => {
    expect(await agreesOnRandomTables(sql, { seed: 2307, numRuns: 30, rows: columnsRow, ordered })).toBeGreaterThan(10);
  }, 300_000);

  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ["SELECT COLUMNS('^i$') + COLUMNS('^j$') AS a FROM t", 'CANOPY_ERR_BAD_QUERY', /Multiple different STAR\/COLUMNS/],
    ["SELECT count(*) AS n FROM t GROUP BY COLUMNS('^g$')", 'CANOPY_ERR_UNSUPPORTED', /function 'COLUMNS' is not supported/],
    ["SELECT g FROM t GROUP BY g HAVING max(COLUMNS('^[ij]$')) > 0", 'CANOPY_ERR_UNSUPPORTED', /function 'COLUMNS' is not supported/],
    ["SELECT * FROM t WHERE COLUMNS('^zz') > 0", 'CANOPY_ERR_BAD_QUERY', /No matching columns/],
    ['SELECT min(COLUMNS(*)) AS "min_\\1" FROM t', 'CANOPY_ERR_UNSUPPORTED', /alias holding a backslash/],
  ])('refused as DuckDB refuses it: %s', async (sql, code, says) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });
  it('an alias naming the regular expression\'s groups (\\1): refused (a gap: DuckDB substitutes them)', async () => {
    const sql = "SELECT min(COLUMNS('^([ij])$')) AS \"m_\\1\" FROM t";
    await duckConnection().run(sql);
    expect((await refusal(root, sql)).message).toMatch(/alias holding a backslash/);
  });
});

/** `AS [NOT] MATERIALIZED` on a common table expression (the words blanked before parsing). */
const MATERIALIZED: Q[] = [
  { sql: 'WITH c AS MATERIALIZED (SELECT j, s FROM t WHERE j > 0) SELECT * FROM c' },
  { sql: 'WITH c AS NOT MATERIALIZED (SELECT j + 1 AS x, g FROM t) SELECT g, max(x) AS m FROM c GROUP BY g' },
  { sql: 'with c1(y) as materialized (with c2 as /* hint */ MATERIALIZED (select j as x from t) select x from c2) select y from c1 where y < 3' },
  { sql: "SELECT 'AS MATERIALIZED (' AS a, s AS materialized FROM t" },
];

describe('WITH ... AS [NOT] MATERIALIZED: equal to DuckDB', () => {
  differentialTests(MATERIALIZED, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it('without its parentheses, a syntax error as in DuckDB', async () => {
    const sql = 'WITH c AS MATERIALIZED SELECT j FROM t';
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe('CANOPY_ERR_BAD_QUERY');
  });
});

/** sleep_ms(ms) / pg_sleep(s): NULL (DuckDB sleeps first; canopy's answer is the same without it). */
const SLEEP: Q[] = [
  { sql: "SELECT j, sleep_ms(1) AS a, pg_sleep(0.0001) AS b, sleep_ms(NULL) AS c, pg_sleep(-1) AS d, sleep_ms(j - 100) AS e, sleep_ms('0') AS h FROM t WHERE abs(j) < 100" },
  { sql: 'SELECT count(sleep_ms(0)) AS a, count(*) AS n FROM t' },
];

describe('sleep_ms, pg_sleep and make_timestamptz(µs): equal to DuckDB', () => {
  differentialTests([...SLEEP, { sql: 'SELECT j, make_timestamptz(j) AS a, make_timestamptz(1684509234845000) AS b, make_timestamptz(NULL) AS c FROM t WHERE abs(j) < 1000000' }], new Set());
  it('make_timestamptz of fields: refused (DuckDB reads them with ICU in its session zone)', async () => {
    const sql = 'SELECT make_timestamptz(2021, 13, 1, 0, 0, 0) AS a FROM t';
    await duckConnection().run(sql);
    expect((await refusal(inProcessRoot(SCHEMA, SHARDS).root, sql)).message).toMatch(/ICU's calendar/);
  });
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ["SELECT sleep_ms('x') AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE'],
    ['SELECT sleep_ms(1.5) AS a FROM t', 'CANOPY_ERR_TYPE'],
    ['SELECT sleep_ms(1, 2) AS a FROM t', 'CANOPY_ERR_BAD_QUERY'],
    ['SELECT sleep_ms(j * 9223372036854775807) AS a FROM t WHERE j = 2', 'CANOPY_ERR_OUT_OF_RANGE'],
  ])('refused as DuckDB refuses it (the argument is computed): %s', async (sql, code) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe(code);
  });
});

/** printf's %c (one byte), the alternate form `#`, and the length modifiers (fmt converts to 8 / 16 bits for hh / h). */
const PRINTF: Q[] = [
  { sql: "SELECT j, printf('%hhd|%hd|%ld|%lld|%hhx|%hx|%#x|%#o|%#X|%#010x|%-#8o|%#d|%jd', j, j, j, j, j, j, j, j, j, j, j, j, j) AS a FROM t" },
  { sql: "SELECT j, printf('[%c|%3c|%-2c]', abs(j) % 128, 65 + abs(j) % 26, 97) AS a, printf('%c', 353) AS b, printf('%hhd %hd', 300, 70000) AS c FROM t WHERE abs(j) < 1000000" },
];

describe("printf's %c, # and length modifiers: equal to DuckDB", () => {
  differentialTests(PRINTF, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ["SELECT printf('%c', 228) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE'],
    ["SELECT printf('%c', -1) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE'],
  ])('refused as DuckDB refuses it (a byte past 127 is no UTF-8): %s', async (sql, code) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe(code);
  });
});
