/**
 * More DuckDB SQL over one table, against DuckDB (round 4 of test/sql-surface-duckdb.test.ts,
 * closing gaps found by DuckDB's own sqllogictest queries, test/peer-duckdb-suite.test.ts):
 * - DuckDB's implicit casts to BOOLEAN where a condition is expected (`WHERE i`, `NOT 0`,
 *   `0 OR 1`, `42 IS TRUE`, `CASE WHEN i THEN ...`): numbers nonzero, strings as CAST reads them;
 * - comparisons between BOOLEAN and numbers (`i = true` is `i = 1`, `true = 2` FALSE), and of
 *   literals with literals as DuckDB casts them (`'01' = 1`, `1 IN ('1', '2')`, `'y' = true`,
 *   `'3000000000' = 1` an error: the string is cast to the integer literal's INTEGER);
 * - `x IS [NOT] UNKNOWN` (x IS [NOT] NULL), printf / format of a NULL format (NULL);
 * - string literals with a UTC offset cast to TIMESTAMPTZ, and strptime's %z: the instant;
 * - LIKE ... ESCAPE '' (chr(0) escapes, as DuckDB reads it), try(parse_formatted_bytes(...));
 * - COLLATE NOCASE / NOACCENT / NFC / C / POSIX on compared columns and ORDER BY keys;
 * - regexp_matches / regexp_full_match / SIMILAR TO over patterns computed per row.
 * Values are checked against DuckDB over random tables split over random shards and tree
 * shapes (fast-check), and over the shared differential table (test/helpers/differential.ts:
 * 9 trees, exact equals DuckDB, bounded holds it); refusals as DuckDB refuses.
 *
 * Run: npx vitest run test/sql-surface4-duckdb.test.ts
 */
import fc from 'fast-check';
import type { Scalar } from '../src/merge/index.ts';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromCanopy, fromDuck } from './helpers/compare.ts';
import { closeDifferential, differentialTests, duckConnection, setupDifferential, valueDiff, SCHEMA, SHARDS, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { agreesOnSmallTables } from './helpers/small-agree.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable } from './helpers/small-table.ts';
import { answerBody, inProcessRoot, itRefuses, refusal } from './helpers/tree.ts';

const duckdb = useDuckDB();

beforeAll(setupDifferential);
afterAll(closeDifferential);

/** Strings DuckDB casts to BOOLEAN (any case), for `s`; `g` holds any text. */
const BOOL_TEXTS = ['true', 'FALSE', 't', 'f', 'yes', 'No', 'y', 'n', '1', '0'];
const row = fc.tuple(
  nullable(fc.constantFrom(-2.5, 0, 1, 0.5, -0, Number.NaN, Infinity)),
  nullable(fc.bigInt({ min: -3n, max: 3n })),
  nullable(fc.constantFrom(...BOOL_TEXTS)),
  nullable(fc.constantFrom('a', 'b', '1')),
);

/** {@link agreesOnSmallTables} on DuckDB's connection of this file, over {@link row} unless `opts.rows`. */
const agreesOnRandomTables = (sql: string, opts: { readonly seed: number; readonly numRuns: number; readonly rows?: fc.Arbitrary<Scalar[]>; readonly ordered?: boolean }): Promise<number> =>
  agreesOnSmallTables(duckdb, sql, { ...opts, rows: opts.rows ?? row });

describe('numbers and strings as conditions, and BOOLEAN against numbers: equal to DuckDB over random tables', () => {
  it('IS [NOT] TRUE / FALSE, NOT, AND, OR and CASE WHEN over integers, doubles (NaN, -0) and boolean strings; i = true, f = false, i IN (true, false)', async () => {
    const sql = 'SELECT i, f, s, i IS TRUE AS a, i IS NOT FALSE AS b, f IS TRUE AS c, s IS FALSE AS d, NOT i AS e, i OR false AS h, i AND f AS k, NOT s AS l, ' +
      'CASE WHEN i THEN 1 WHEN f THEN 2 ELSE 3 END AS m, i = true AS n, true = i AS o, f = false AS p, f <> true AS q, i IN (true, false) AS r, i > false AS u FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2401, numRuns: 80 })).toBeGreaterThan(150);
  }, 300_000);

  it('WHERE over a number, a string and their NOT; HAVING over a count; grouped and aggregated', async () => {
    const sql = 'SELECT i, count(*) AS n, sum(f) AS total, bool_or(s::BOOLEAN) AS any_s FROM t WHERE (i OR s) OR NOT f GROUP BY i HAVING count(*) ORDER BY i';
    expect(await agreesOnRandomTables(sql, { seed: 2402, numRuns: 80, ordered: true })).toBeGreaterThan(30);
  }, 300_000);

  it('conditions inside a BOOLEAN aggregate argument and FILTER cast as DuckDB casts them (bool_or(i OR 0), FILTER (WHERE i))', async () => {
    const sql = 'SELECT bool_or(i OR 0) AS a, bool_and(NOT f) AS b, count_if(i IS TRUE) AS c, count(*) FILTER (WHERE i) AS d, sum(f) FILTER (WHERE s) AS e FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2404, numRuns: 60 })).toBeGreaterThan(20);
  }, 300_000);
});

/** Literals against literals, as DuckDB's own test queries write them (cast/boolean_autocast.test, binder/string_literal_binding.test). */
const LITERALS: Q[] = [
  { sql: "SELECT true = 1 AS a, 1 = true AS b, 0 = true AS c, false = 0 AS d, true = 2 AS e, 2 = true AS h, true = 3000000000 AS k, true IN (1, 2) AS l, 2 BETWEEN true AND 3 AS m FROM t LIMIT 1" },
  { sql: "SELECT true = '1' AS a, true = 'true' AS b, false = '0' AS c, '1' = false AS d, 'y' = true AS e, true > 'n' AS h, false >= '0' AS k, true IN ('t', 'yes') AS l FROM t LIMIT 1" },
  { sql: "SELECT '01' = 1 AS a, '1000' > 20 AS b, 1 IN ('1', '2') AS c, '1.5' = 2 AS d, '1e2' = 100 AS e, 1 < ' 2 ' AS h, '3000000000' = 3000000000 AS k, 1 BETWEEN '0' AND true AS l FROM t LIMIT 1" },
  { sql: 'SELECT 42 IS TRUE AS a, 0 IS TRUE AS b, 42 IS NOT TRUE AS c, 0 IS NOT TRUE AS d, 0.5 IS TRUE AS e, NULL IS TRUE AS h, 0 IS FALSE AS k FROM t LIMIT 1' },
  { sql: 'SELECT 0 AND 0 AS a, 0 AND 1 AS b, 1 OR 0 AS c, NULL AND 0 AS d, NULL OR 1 AS e, NOT(0) AS h, NOT(1) AS k, NOT(NULL) AS l, NOT 1.5 AS m, 0.0 OR 0 AS n FROM t LIMIT 1' },
  { sql: "SELECT count(*) AS n FROM t WHERE 0" },
  { sql: 'SELECT count(*) AS n FROM t WHERE i < 2 AND 1' },
  { sql: "SELECT i FROM t WHERE CASE WHEN j % 2 = 0 THEN 1 ELSE 0 END AND CASE WHEN i < 5 THEN 1 ELSE 0 END" },
  { sql: 'SELECT i, j = true AS a, j IS TRUE AS b, f = true AS c FROM t' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING count(*) - 1 AND max(i) ORDER BY g' },
  // x IS [NOT] UNKNOWN is x IS [NOT] NULL (no cast: 'x' IS UNKNOWN is FALSE).
  { sql: "SELECT i, s, i IS UNKNOWN AS a, s IS NOT UNKNOWN AS b, (i > 0) IS UNKNOWN AS c, NULL IS UNKNOWN AS d, 42 IS NOT UNKNOWN AS e, 'x' IS UNKNOWN AS h FROM t" },
  { sql: 'SELECT count(*) AS n FROM t WHERE f IS NOT UNKNOWN AND j IS UNKNOWN' },
  // printf / format with a NULL format are NULL.
  { sql: "SELECT printf(NULL) AS a, printf(NULL, i) AS b, format(NULL, s) AS c, printf('hello') AS d FROM t" },
];

describe('literals against literals and numbers as conditions over the shared differential table: equal to DuckDB', () => {
  differentialTests(LITERALS, new Set());
});

describe('casts to BOOLEAN and literal comparisons refused as DuckDB refuses them', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  const refused: [sql: string, code: string, says: RegExp][] = [
    ["SELECT '3000000000' = 1 AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /to INTEGER/],
    ["SELECT 1 = '3000000000' AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /to INTEGER/],
    ["SELECT true = 'x' AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /'x'/],
    ["SELECT 'a' < true AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /'a'/],
    ["SELECT 'true' = 1 AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /'true'/],
    ["SELECT true = '2' AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /'2'/],
    ["SELECT count(*) FROM t WHERE 'maybe'", 'CANOPY_ERR_OUT_OF_RANGE', /'maybe'/],
    ['SELECT count(*) FROM t WHERE ts', 'CANOPY_ERR_TYPE', /WHERE needs a condition/],
    ['SELECT ts IS TRUE AS a FROM t', 'CANOPY_ERR_TYPE', /needs a condition/],
    // A BOOLEAN argument takes no number: DuckDB's binder finds no count_if(INTEGER).
    ['SELECT bool_or(0) AS a FROM t', 'CANOPY_ERR_TYPE', /needs a condition/],
    ['SELECT count_if(i) AS a FROM t', 'CANOPY_ERR_TYPE', /needs a condition/],
    ["SELECT bool_and('true') AS a FROM t", 'CANOPY_ERR_TYPE', /needs a condition/],
  ];
  it.each(refused)('%s', async (sql, code, says) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });

  it('a string column that is no boolean, as a condition, is an error as in DuckDB', async () => {
    const { root: r } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'true', 'maybe']]]);
    await loadSmallTable(duckdb(), [[1, 1n, 'true', 'maybe']]);
    const sql = 'SELECT count(*) AS n FROM t WHERE g';
    await expect(duckdb().run(sql)).rejects.toThrow(/Could not convert string 'maybe' to BOOL/);
    const e = await refusal(r, sql);
    expect(e.message).toMatch(/maybe/);
  });
});

/** A timestamp text with a UTC offset (whole hours, or hours and minutes), within canopy's years. */
const zonedText = fc
  .tuple(
    fc.integer({ min: 1690, max: 2250 }),
    fc.integer({ min: 1, max: 12 }),
    fc.integer({ min: 1, max: 28 }),
    fc.integer({ min: 0, max: 23 }),
    fc.integer({ min: 0, max: 59 }),
    fc.integer({ min: 0, max: 59 }),
    fc.constantFrom('', '.05', '.123456'),
    fc.constantFrom('-08', '+05:30', '-07', '+02', '+0930', 'Z', '+00', '-11:45', ''),
    fc.constantFrom(' ', 'T'),
  )
  .map(([y, mo, d, h, mi, s, frac, zone, sep]) => {
    const p2 = (n: number): string => String(n).padStart(2, '0');
    return `${y}-${p2(mo)}-${p2(d)}${sep}${p2(h)}:${p2(mi)}:${p2(s)}${frac}${zone}`;
  });

describe('a string with a UTC offset cast to TIMESTAMPTZ is its instant, as DuckDB reads it in a UTC session', () => {
  const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'a', 'b']]], { fanout: 2 });
  const UNITS = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'decade', 'century', 'isoyear'];

  it('the instant, date_sub / date_diff between two, date_trunc, extract and INTERVAL arithmetic: equal to DuckDB over random texts', async () => {
    await loadSmallTable(duckdb(), [[1, 1n, 'a', 'b']]);
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(zonedText, zonedText, fc.constantFrom(...UNITS), async (a, b, unit) => {
        const plain = unit === 'isoyear' ? 'year' : unit;
        const x = `'${a}'::TIMESTAMPTZ`;
        const y = `CAST('${b}' AS TIMESTAMP WITH TIME ZONE)`;
        const sql = `SELECT ${x} AS a, ${y} AS b, date_sub('${unit}', ${x}, ${y}) AS c, date_diff('${plain}', ${y}, ${x}) AS d, ` +
          `date_trunc('${plain}', ${x}) AS e, extract(hour FROM ${x}) AS h, ${x} + INTERVAL 2400 HOURS AS k, ${y} - INTERVAL '1 month' AS l, ` +
          `${x} < ${y} AS m, TRY_CAST('${a}' AS TIMESTAMPTZ) AS n, TIMESTAMPTZ '${a}' AS o, timestamp with time zone '${b}' AS p FROM t`;
        const want = fromDuck(await duckdb().runAndReadAll(sql));
        const body = await answerBody(root, sql);
        expect(body.label).toBe('exact');
        expect(valueDiff(fromCanopy(body), want, false), sql).toEqual([]);
        checked++;
      }),
      { numRuns: 150, seed: 2403 },
    );
    expect(checked).toBe(150);
  }, 300_000);

  it('a TIMESTAMPTZ literal compared with a timestamp column, over the shared differential table', async () => {
    // (the differential check is below; here the folding itself: no cast is left for the leaves)
    const body = await answerBody(root, "SELECT '2025-01-01T08:00:00+08'::TIMESTAMPTZ AS c FROM t");
    expect(body.rows).toEqual([['2025-01-01T00:00:00.000Z']]);
  });
});

const ZONED: Q[] = [
  { sql: "SELECT count(*) AS n FROM t WHERE ts > '2001-02-01 10:00:00-05'::TIMESTAMPTZ" },
  // Typed literals as PostgreSQL writes them (Metabase's time filters: timestamp with time zone '...').
  { sql: "SELECT count(*) AS n FROM t WHERE ts > TIMESTAMPTZ '2001-02-01 10:00:00-05'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts >= timestamp with time zone '2000-01-01 00:00:00.000Z' AND ts < timestamp  WITH\n TIME zone '2024-04-01 00:00:00.000+02:00'" },
  { sql: "SELECT ts, TIMESTAMP WITHOUT TIME ZONE '2020-01-01 00:00:00' AS a, timestamptz'2020-01-01 00:00:00+01' AS b FROM t WHERE ts < TIMESTAMP WITHOUT TIME ZONE '2020-01-01'" },
  { sql: "SELECT ts, date_sub('day', '2001-02-01 23:30:00+05:30'::TIMESTAMPTZ, ts) AS d FROM t" },
];

describe('TIMESTAMPTZ literals with offsets over the shared differential table: equal to DuckDB', () => {
  differentialTests(ZONED, new Set());
  it('a syntax error after a typed literal is reported where it was written', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'a', 'b']]], { fanout: 2 });
    const e = await refusal(root, "SELECT timestamp with time zone '2001-01-01 00:00:00Z' AS a, , i FROM t");
    expect([e.code, e.position?.column]).toEqual(['CANOPY_ERR_BAD_QUERY', 62]);
    // A timestamp with a nonzero offset is refused in a TIMESTAMP literal, as before, whichever way it is written.
    for (const sql of ["SELECT TIMESTAMP '2001-01-01 00:00:00+02' AS a FROM t", "SELECT TIMESTAMP WITHOUT TIME ZONE '2001-01-01 00:00:00+02' AS a FROM t"]) {
      expect((await refusal(root, sql)).message, sql).toMatch(/has a UTC offset \(\+02\).*write the UTC time, '2000-12-31 22:00:00'/);
    }
  });
});

/** Strings for parse_formatted_bytes and LIKE: byte sizes DuckDB reads or refuses, and NUL-escaped patterns. */
const BYTES_TEXTS = ['1GB', ' 2 KiB', 'abc', 'inf GiB', 'none', 'null', '-1MB', '1.5.2 kb', '3 XB', '10 bytes', '1e3 mb', '', '7 tib'];
// '#' stands for chr(0) (a NUL cannot be written in a DuckDB string literal): the queries replace it.
const NUL_TEXTS = ['%', 'a%', '#%', '#abc', 'ab', '_', 'a_', '#_', 'a#%b'];
const bytesRow = fc.tuple(
  nullable(fc.constant(1)),
  nullable(fc.bigInt({ min: 0n, max: 3n })),
  nullable(fc.constantFrom(...BYTES_TEXTS, ...NUL_TEXTS)),
  nullable(fc.constantFrom(...NUL_TEXTS)),
);

describe('TRY over parse_formatted_bytes, and LIKE ... ESCAPE \'\' (NUL as the escape): equal to DuckDB over random tables', () => {
  it("try(parse_formatted_bytes(s)) is NULL where DuckDB's parse raises an error", async () => {
    const sql = 'SELECT s, try(parse_formatted_bytes(s)) AS a FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2405, numRuns: 50, rows: bytesRow })).toBeGreaterThan(80);
  }, 300_000);

  it("ESCAPE '' escapes with chr(0), as DuckDB reads it (constant and computed patterns)", async () => {
    const nul = (c: string): string => `replace(${c}, '#', chr(0)) || ''`;
    const sql = `SELECT s, g, ${nul('s')} LIKE (${nul('g')}) ESCAPE '' AS a, ${nul('s')} NOT LIKE (${nul('g')}) ESCAPE '' AS b, ${nul('s')} LIKE (chr(0) || '%') ESCAPE '' AS c, ` +
      `${nul('g')} LIKE ('a' || chr(0) || '%' || chr(0) || '_') ESCAPE '' AS d, s LIKE '#%' ESCAPE '' AS e FROM t`;
    expect(await agreesOnRandomTables(sql, { seed: 2406, numRuns: 50, rows: bytesRow })).toBeGreaterThan(50);
  }, 300_000);
});

/** Pieces of strings that collations tell apart or not: case, accents (composed and combining), NFC forms. */
const COLLATE_PIECES = ['a', 'A', 'b', 'B', 'é', 'É', 'e\u0301', 'E', 'ß', 'İ', 'ø', 'ñ', 'N\u0303', ' '];
const collateText = fc.array(fc.constantFrom(...COLLATE_PIECES), { maxLength: 4 }).map((p) => p.join(''));
const collateRow = fc.tuple(nullable(fc.constant(1)), nullable(fc.bigInt({ min: 0n, max: 3n })), nullable(collateText), nullable(collateText));

describe('COLLATE NOCASE / NOACCENT / NFC / C / POSIX on compared columns and ORDER BY keys: equal to DuckDB over random strings', () => {
  it('comparisons, IN, BETWEEN and IS DISTINCT FROM over the collation keys (either side collated, dotted collations in order)', async () => {
    const sql = "SELECT s, g, s COLLATE NOCASE = g AS a, s COLLATE NOACCENT < g AS b, g = s COLLATE NOCASE.NOACCENT AS c, s COLLATE NOCASE IN ('ab', 'AB', 'É') AS d, " +
      "s COLLATE NOACCENT BETWEEN 'a' AND 'e' AS e, s COLLATE NFC = g AS h, s COLLATE C > g AS k, s COLLATE POSIX <> g AS l, s COLLATE NOCASE IS DISTINCT FROM g AS m, " +
      "g COLLATE \"NOACCENT.NOCASE\" >= s AS n, s COLLATE NOCASE NOT IN ('a', NULL) AS o FROM t";
    expect(await agreesOnRandomTables(sql, { seed: 2407, numRuns: 80, rows: collateRow })).toBeGreaterThan(100);
  }, 300_000);

  it('WHERE over a collated column and ORDER BY a collated key (ties broken by the raw string): rows in DuckDB\'s order', async () => {
    const sql = "SELECT s, g FROM t WHERE s COLLATE NOCASE <> 'a' OR g COLLATE NOACCENT = 'e' ORDER BY s COLLATE NOCASE.NOACCENT DESC, s, g COLLATE NOCASE, g";
    expect(await agreesOnRandomTables(sql, { seed: 2408, numRuns: 80, rows: collateRow, ordered: true })).toBeGreaterThan(100);
  }, 300_000);

  it('grouped: WHERE and HAVING comparisons over collated keys, ORDER BY a collated group key', async () => {
    const sql = "SELECT g, count(*) AS n FROM t WHERE s COLLATE NOCASE >= 'b' OR s IS NULL GROUP BY g HAVING g COLLATE NOACCENT <> 'e' ORDER BY g COLLATE NOCASE, g";
    expect(await agreesOnRandomTables(sql, { seed: 2409, numRuns: 60, rows: collateRow, ordered: true })).toBeGreaterThan(60);
  }, 300_000);
});

describe('COLLATE refused where canopy does not follow it', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ["SELECT s FROM t WHERE s COLLATE de = 'a'", 'CANOPY_ERR_UNSUPPORTED', /ICU locale collation/],
    ["SELECT s FROM t WHERE s COLLATE bogus_name = 'a'", 'CANOPY_ERR_BAD_QUERY', /does not exist/],
    ['SELECT s FROM t WHERE s COLLATE NOCASE = g COLLATE NOACCENT', 'CANOPY_ERR_BAD_QUERY', /different collation/],
  ])('%s', async (sql, code, says) => {
    // DuckDB answers an ICU collation (its ICU extension's locale rules); the other two it refuses.
    if (!/ICU/.test(String(says))) await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
  });
  it.each([
    // DuckDB groups, dedupes and orders ALL by the collation there: not followed, so refused.
    'SELECT DISTINCT s COLLATE NOCASE FROM t',
    'SELECT count(*) FROM t GROUP BY s COLLATE NOCASE',
    "SELECT lower(s COLLATE NOACCENT) FROM t ORDER BY ALL",
  ])('%s is refused, saying where COLLATE is read', async (sql) => {
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_UNSUPPORTED', expect.stringMatching(/COLLATE is supported on a string compared/)]);
  });
});

/** RE2 patterns (valid ones; an invalid one is an error in both) and strings for them. */
const PATTERNS = ['a', 'a.*', '^b', '[ab]+', 'a|B', '', '.', '\\d', 'x?', '^$', 'é+', 'A.B'];
const SUBJECTS = ['a', 'ab', 'AB', 'b1', '', 'xé', 'aXb', 'éé', '12'];
const regexRow = fc.tuple(nullable(fc.constant(1)), nullable(fc.bigInt({ min: 0n, max: 3n })), nullable(fc.constantFrom(...SUBJECTS)), nullable(fc.constantFrom(...PATTERNS)));

describe('regexp_matches / regexp_full_match / SIMILAR TO over a pattern computed per row: equal to DuckDB', () => {
  it('a column or NULL as the pattern, with and without options', async () => {
    const sql = "SELECT s, g, regexp_matches(s, g) AS a, regexp_full_match(s, g) AS b, s SIMILAR TO g AS c, s NOT SIMILAR TO g AS d, regexp_matches(s, g, 'i') AS e, " +
      "regexp_matches(s, NULL) AS h, regexp_full_match(s, CAST(NULL AS VARCHAR)) AS k, regexp_matches(s, '^' || g) AS l FROM t";
    expect(await agreesOnRandomTables(sql, { seed: 2410, numRuns: 60, rows: regexRow })).toBeGreaterThan(100);
  }, 300_000);

  it('an invalid pattern computed per row stops the query, as DuckDB raises an error', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'a', 'a(']]], { fanout: 2 });
    await loadSmallTable(duckdb(), [[1, 1n, 'a', 'a(']]);
    const sql = 'SELECT regexp_matches(s, g) AS a FROM t';
    await expect(duckdb().run(sql)).rejects.toThrow(/missing \)|missing closing/);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_OUT_OF_RANGE', expect.stringMatching(/invalid pattern 'a\('/)]);
  });
});

/** Texts with UTC offsets in DuckDB's %z forms and malformed ones (a sign, two hour digits, then MM or :MM). */
const OFFSETS = ['+00', '+0000', '+02', '-02', '+0215', '-0215', '+02:15', '-11:30', '+0', '+0X', '+X0', '+000', 'X00', '+02:', '+02:1', '+99', '-23:59', 'Z', ''];
const zText = fc
  .tuple(fc.integer({ min: 1700, max: 2200 }), fc.integer({ min: 1, max: 12 }), fc.integer({ min: 1, max: 28 }), fc.integer({ min: 0, max: 23 }), fc.constantFrom('', '.745232', '.5'), fc.constantFrom(...OFFSETS))
  .map(([y, mo, d, h, frac, z]) => `${y}-${String(mo).padStart(2, '0')}-${String(d).padStart(2, '0')} ${String(h).padStart(2, '0')}:25:58${frac}${z}`);
const zRow = fc.tuple(nullable(fc.constant(1)), nullable(fc.bigInt({ min: 0n, max: 3n })), nullable(zText), nullable(fc.constantFrom('a')));

describe('strptime / try_strptime with %z: the instant, as DuckDB\'s TIMESTAMP WITH TIME ZONE in a UTC session', () => {
  it('try_strptime over random texts and offsets (malformed ones NULL), in several formats', async () => {
    const sql = "SELECT s, try_strptime(s, '%Y-%m-%d %H:%M:%S.%f%z') AS a, try_strptime(s, '%Y-%m-%d %H:%M:%S%z') AS b, try_strptime(s, ARRAY['%Y-%m-%d %H:%M:%S.%f%z', '%Y-%m-%d %H:%M:%S%z']) AS c, " +
      "try_strptime(s || ' x', '%Y-%m-%d %H:%M:%S.%f%z x') AS d FROM t";
    expect(await agreesOnRandomTables(sql, { seed: 2411, numRuns: 80, rows: zRow })).toBeGreaterThan(150);
  }, 300_000);

  it('strptime with %z over the shared table, and refused as DuckDB refuses a text without an offset', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, '2020-12-31 21:25:58.745232-0215', 'a']]], { fanout: 2 });
    await loadSmallTable(duckdb(), [[1, 1n, '2020-12-31 21:25:58.745232-0215', 'a']]);
    const sql = "SELECT strptime(s, '%Y-%m-%d %H:%M:%S.%f%z') AS a, strptime('Mon Oct 17 2022 22:00:00 GMT+0130', '%a %b %d %Y %X GMT%z') AS b FROM t";
    const want = fromDuck(await duckdb().runAndReadAll(sql));
    expect(fromCanopy(await answerBody(root, sql)).rows).toEqual(want.rows);
    const bad = "SELECT strptime('2020-12-31 21:25:58', '%Y-%m-%d %H:%M:%S%z') AS a FROM t";
    await expect(duckdb().run(bad)).rejects.toThrow(/Could not parse/);
    expect((await refusal(root, bad)).message).toMatch(/Could not parse/);
  });
});

describe('first / last / any_value / arbitrary(x ORDER BY x ...): min or max, equal to DuckDB over random tables', () => {
  it('every direction and NULLS placement that fixes the row by its value, over NULLs, NaN and -0', async () => {
    const sql = 'SELECT first(i ORDER BY i) AS a, first(f ORDER BY f DESC) AS b, last(s ORDER BY s NULLS FIRST) AS c, last(i ORDER BY i DESC NULLS FIRST) AS d, ' +
      'any_value(s ORDER BY s DESC) AS e, arbitrary(f ORDER BY f NULLS LAST) AS h, first(i + 1 ORDER BY i+1 ASC, i + 1 DESC) AS k, any_value(i ORDER BY i NULLS FIRST) AS l FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2412, numRuns: 80 })).toBeGreaterThan(30);
  }, 300_000);

  it('grouped, with FILTER, HAVING and ORDER BY over them', async () => {
    const sql = 'SELECT g, first(f ORDER BY f) AS a, last(i ORDER BY i NULLS FIRST) FILTER (WHERE i > -2) AS b, any_value(s ORDER BY s) AS c FROM t GROUP BY g ' +
      'HAVING first(i ORDER BY i) IS NOT NULL OR count(*) > 0 ORDER BY g';
    expect(await agreesOnRandomTables(sql, { seed: 2413, numRuns: 60, ordered: true })).toBeGreaterThan(60);
  }, 300_000);

  it.each([
    // The row taken depends on another column's order (ties), or NULLs decide it: refused.
    'SELECT first(i ORDER BY f) AS a FROM t',
    'SELECT first(i ORDER BY i NULLS FIRST) AS a FROM t',
    'SELECT last(i ORDER BY i) AS a FROM t',
  ])('%s stays refused, naming the construct', async (sql) => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_UNSUPPORTED', expect.stringMatching(/ORDER BY inside (first|last)\(\.\.\.\) is not supported/i)]);
  });
});

/** Texts for the unsigned casts: signs as DuckDB reads them there, fractions, exponents, hex, binary, underscores, spaces. */
const UNSIGNED_TEXTS = ['-0', ' -0 ', '-0.0', '-00', '-0 ', ' -0', '-0e5', '-1', '-0.4', '-.4', '+5', '255.1', '255.5', '25.5e1', '0xFF', '0x100', '-0x0', '1_0', ' 7 ', '2.5',
  '-0.5', '1e2', '0b11', '-', '', 'abc', '65535', '65536', '4294967295.4', '1e-2', '5e-1', '+-1', '4.5e-1', '25.51e1', '000255', '2551e-1', '70000'];
const UBIGINT_TEXTS = ['-0', ' -00', '-1', '-0.0', '0', '9223372036854775807', '+12', '1e18', '0xFF', 'abc', '', '-', ' 42 ', '3.5'];
const unsignedRow = fc.tuple(nullable(fc.constant(1)), nullable(fc.bigInt({ min: 0n, max: 3n })), nullable(fc.constantFrom(...UNSIGNED_TEXTS)), nullable(fc.constantFrom(...UBIGINT_TEXTS)));

describe('strings cast to DuckDB\'s unsigned integers: equal to DuckDB over random texts', () => {
  it('TRY_CAST to UTINYINT, USMALLINT, UINTEGER (a sign only before zeros), UBIGINT within BIGINT', async () => {
    const sql = 'SELECT s, g, TRY_CAST(s AS UTINYINT) AS a, TRY_CAST(s AS USMALLINT) AS b, TRY_CAST(s AS UINTEGER) AS c, TRY_CAST(s AS UINT8) AS d, TRY_CAST(g AS UBIGINT) AS e, TRY_CAST(g AS UTINYINT) AS h FROM t';
    expect(await agreesOnRandomTables(sql, { seed: 2414, numRuns: 60, rows: unsignedRow })).toBeGreaterThan(100);
  }, 300_000);

  it.each([
    ["SELECT '-1'::UTINYINT AS a FROM t", /Could not convert string '-1' to UTINYINT/],
    ["SELECT ' -0 '::UTINYINT AS a FROM t", /Could not convert string ' -0 ' to UTINYINT/],
    ["SELECT '256'::UTINYINT AS a FROM t", /Could not convert string '256' to UTINYINT/],
  ])('%s is an error, as in DuckDB', async (sql, says) => {
    await expect(duckConnection().run(sql)).rejects.toThrow(/Conversion Error/);
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_OUT_OF_RANGE', expect.stringMatching(says)]);
  });

  it('a UBIGINT text past BIGINT (or one BIGINT does not read) is refused: DuckDB may hold it', async () => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    for (const sql of ["SELECT TRY_CAST('9223372036854775808' AS UBIGINT) AS a FROM t", "SELECT '1.8e19'::UBIGINT AS a FROM t"]) {
      expect((await refusal(root, sql)).message).toMatch(/UBIGINT past BIGINT/);
    }
  });
});

/** LIMIT / OFFSET written as decimals (rounded half away from zero, DuckDB's DECIMAL to BIGINT) or integral exponents. */
const DECIMAL_LIMITS: Q[] = [
  { sql: 'SELECT i, j FROM t ORDER BY i, j LIMIT 1.25', ordered: true },
  { sql: 'SELECT i, j FROM t ORDER BY i, j LIMIT 1.5 OFFSET 1.5', ordered: true },
  { sql: 'SELECT i, j FROM t ORDER BY i, j LIMIT 2.5', ordered: true },
  { sql: 'SELECT i, j FROM t ORDER BY i, j LIMIT 0.4', ordered: true },
  { sql: 'SELECT i, j FROM t ORDER BY i, j LIMIT 2e0 OFFSET -0.4', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g LIMIT 1.5', ordered: true },
];

describe('LIMIT / OFFSET of a decimal: equal to DuckDB', () => {
  differentialTests(DECIMAL_LIMITS, new Set());
  it.each(['SELECT i FROM t LIMIT -0.5', 'SELECT i FROM t LIMIT 25e-1'])('%s is refused', async (sql) => {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    expect((await refusal(root, sql)).code).toBe('CANOPY_ERR_LIMIT');
  });
});

describe('statements DuckDB answers that are not a SELECT: refused as unsupported, saying what to use (they were syntax errors at column 1)', () => {
  const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 1n, 'a', 'b']]], { fanout: 2 });
  itRefuses(root, [
    ['EXPLAIN SELECT count(*) FROM t', 'CANOPY_ERR_UNSUPPORTED', /EXPLAIN is not supported.*"trace": true/],
    ['  explain analyze SELECT 1', 'CANOPY_ERR_UNSUPPORTED', /EXPLAIN is not supported/],
    ['DESCRIBE t', 'CANOPY_ERR_UNSUPPORTED', /DESCRIBE is not supported.*GET \/v1\/catalog/],
    ['/* c */ SUMMARIZE t', 'CANOPY_ERR_UNSUPPORTED', /SUMMARIZE is not supported.*GET \/v1\/catalog/],
  ]);
});
