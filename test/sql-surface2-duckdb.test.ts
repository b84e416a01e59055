/**
 * More DuckDB syntax over one table, against DuckDB (round 2 of test/sql-surface-duckdb.test.ts):
 * - `s ~ p` / `s !~ p`: regexp_full_match, as SIMILAR TO;
 * - `TRY(x)`: NULL where x raises an error DuckDB raises too; refused where DuckDB computes x
 *   in another integer width than canopy;
 * - function chains on calls, parenthesised expressions and qualified columns;
 * - `SELECT DISTINCT ON (keys) ... ORDER BY`: where the row kept is mergeable; `SELECT DISTINCT *`;
 * - `^` / `**` (power), `& | << >>` (bitwise), `==`; LIKE ... ESCAPE over computed patterns;
 *   constant GROUP BY items;
 * - cast targets node-sql-parser's grammar does not read (src/root/sql/surface.ts stands them
 *   in and puts them back): STRING; the unsigned integers UTINYINT ... UBIGINT (UINT8 ...
 *   UINT64), BIGINT values checked against their range (arithmetic over one refused: DuckDB
 *   computes it in the unsigned type); HUGEINT (test/sql-surface3-duckdb.test.ts); BLOB, TIMESTAMP_S ... refused by name.
 * Legal forms are judged by the differential harness (test/helpers/differential.ts: 9 trees,
 * exact equals DuckDB, bounded holds it); refused forms must be refused by canopy with the
 * code named, at the user's position for syntax errors.
 *
 * Run: npx vitest run test/sql-surface2-duckdb.test.ts (BREAKER_REPORT=1 prints verdicts)
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CanopyError } from '../src/merge/errors.ts';
import { castUnsigned, evalScalarNode, type Expr, type Scalar } from '../src/merge/index.ts';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, duckConnection, setupDifferential, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot, lineColumn, refusal } from './helpers/tree.ts';

const ordered = (sql: string): Q => ({ sql, ordered: true });



beforeAll(setupDifferential);
afterAll(closeDifferential);

/** DuckDB's `~` and `!~`: the whole string matches the regular expression (NULL in, NULL out). */
const REGEX_OPS: Q[] = [
  { sql: "SELECT s ~ 'a.*' AS a, s !~ 'a.*' AS b, g ~ '[a-c]' AS c, s ~ '' AS d, NULL ~ 'a' AS e FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s ~ '.*b.*' OR g !~ 'a'" },
  { sql: "SELECT s ~ 'a' || '.*' AS a, (s ~ 'x') = false AS b FROM t" },
  { sql: "SELECT g ~ 'a' AS k, count(*) AS n FROM t GROUP BY k" },
  // A pattern from a column (test/sql-surface4-duckdb.test.ts checks it over random patterns).
  { sql: 'SELECT s, g, s ~ g AS a FROM t' },
];

describe('~ and !~ (regexp_full_match): equal to DuckDB', () => {
  differentialTests(REGEX_OPS, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ["SELECT s ~ '(' AS a FROM t", 'CANOPY_ERR_BAD_QUERY'],
    ['SELECT j ~ 1 AS a FROM t', 'CANOPY_ERR_TYPE'],
  ])('refused: %s', async (sql, code) => {
    if (code === 'CANOPY_ERR_UNSUPPORTED') await duckConnection().run(sql);
    else await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe(code);
  });
});

/** Cast targets the grammar does not read: STRING, and the unsigned integers within their range. */
const CAST_TYPES: Q[] = [
  { sql: "SELECT CAST(j AS STRING) AS a, f::string AS b, s AS string, TRY_CAST(ts AS String) AS c, CAST(NULL AS STRING) AS d FROM t" },
  { sql: 'SELECT TRY_CAST(j AS UTINYINT) AS a, TRY_CAST(j * 40 AS USMALLINT) AS b, TRY_CAST(i AS UINTEGER) AS c, TRY_CAST(i AS UBIGINT) AS d FROM t' },
  { sql: 'SELECT TRY_CAST(f AS UTINYINT) AS a, TRY_CAST(f * 100 AS USMALLINT) AS b, TRY_CAST(f AS UINTEGER) AS c, TRY_CAST(f AS UBIGINT) AS d FROM t WHERE f < 9e18 OR f IS NULL OR isnan(f)' },
  { sql: 'SELECT TRY_CAST(j AS UINT8) AS a, TRY_CAST(j AS UINT16) AS b, TRY_CAST(j AS UINT32) AS c, TRY_CAST(j AS UINT64) AS d, TRY_CAST(j > 0 AS UTINYINT) AS e FROM t' },
  { sql: 'SELECT abs(j)::UTINYINT AS a, CAST(abs(j) AS UBIGINT)::VARCHAR AS b, abs(j)::UINTEGER::TINYINT AS c FROM t WHERE abs(j) < 100' },
  { sql: 'SELECT CAST(255 AS UTINYINT) AS a, 255.4::UTINYINT AS b, -0.4::UTINYINT AS c, TRY_CAST(256 AS UTINYINT) AS d, TRY_CAST(-1 AS UBIGINT) AS e, TRY_CAST(-0.5 AS UTINYINT) AS f2, 65535::USMALLINT AS g2, 4294967295::UINTEGER AS h FROM t' },
  { sql: 'SELECT TRY_CAST(9223372036854775807 AS UBIGINT) AS a, TRY_CAST(18446744073709551616 AS UBIGINT) AS b, TRY_CAST(1e30 AS UINTEGER) AS c, NULL::UTINYINT AS d FROM t' },
  // Comparisons, aggregates, GROUP BY, CASE and coalesce take them as numbers.
  { sql: 'SELECT count(*) AS n FROM t WHERE TRY_CAST(j AS UTINYINT) > 2 OR TRY_CAST(j AS UTINYINT) = 300 OR TRY_CAST(j AS USMALLINT) IN (1, -1, 70000)' },
  { sql: 'SELECT sum(TRY_CAST(j AS UTINYINT)) AS a, max(TRY_CAST(i AS UBIGINT)) AS b, avg(TRY_CAST(j AS UINTEGER)) AS c, count(TRY_CAST(f AS UTINYINT)) AS d FROM t' },
  { sql: 'SELECT TRY_CAST(j AS UTINYINT) AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT coalesce(TRY_CAST(j AS UTINYINT), -1) AS a, CASE WHEN j > 0 THEN TRY_CAST(j AS USMALLINT) ELSE -5 END AS b, greatest(TRY_CAST(j AS UTINYINT), 3) AS c, TRY_CAST(j AS UTINYINT) / 2 AS d FROM t' },
  ordered('SELECT j FROM t ORDER BY TRY_CAST(j AS UTINYINT) NULLS FIRST, j NULLS FIRST LIMIT 7'),
  // Type words as aliases and inside strings are left as they are.
  { sql: "SELECT j AS utinyint, 'x::UBIGINT' AS ubigint, s AS \"STRING\" FROM t -- ::UTINYINT" },
];

describe('cast targets the grammar does not read (STRING, unsigned integers): equal to DuckDB', () => {
  differentialTests(CAST_TYPES, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    // DuckDB refuses these too.
    ['SELECT j::UTINYINT AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /out of the UTINYINT range/, true],
    ['SELECT CAST(256 AS UTINYINT) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /out of the UTINYINT range/, true],
    ['SELECT CAST(-0.5 AS UTINYINT) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /out of the UTINYINT range/, true],
    ["SELECT 'nan'::DOUBLE::UTINYINT AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /out of the UTINYINT range/, true],
    ['SELECT CAST(j AS UTINYINT(3)) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /syntax error at line 1, column 26/, true],
    ['SELECT j::MEDIUMINT AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /CAST to MEDIUMINT is not supported/, true],
    // DuckDB answers (gaps, refused clearly): arithmetic in the unsigned type, values past BIGINT, strings, types canopy does not hold.
    ['SELECT TRY_CAST(j AS UTINYINT) - 1 AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /operator '-' over a UTINYINT value/, true],
    ['SELECT TRY_CAST(j AS UTINYINT) + 1 AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /operator '\+' over a UTINYINT value/, false],
    ['SELECT -(TRY_CAST(j AS UINTEGER)) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /unary minus over a UINTEGER value/, false],
    ['SELECT max(TRY_CAST(j AS UBIGINT)) * 2 AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /operator '\*' over a UBIGINT value/, false],
    ['SELECT TRY_CAST(9223372036854775808 AS UBIGINT) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /outside the int64 range/, false],
    ['SELECT TRY_CAST(9223372036854775808.4 AS UBIGINT) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /not BIGINT, which canopy holds/, false],
    // (Strings cast to the unsigned types as DuckDB reads them: test/sql-surface4-duckdb.test.ts.)
    ["SELECT TRY_CAST('18446744073709551615' AS UINT64) AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /UBIGINT past BIGINT/, false],
    ['SELECT TRY_CAST(j AS UHUGEINT) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /TRY_CAST to UHUGEINT is not supported/, false],
    ["SELECT ts::TIMESTAMP_MS AS a FROM t", 'CANOPY_ERR_UNSUPPORTED', /CAST to TIMESTAMP_MS is not supported/, false],
    ["SELECT g::BLOB AS a FROM t", 'CANOPY_ERR_UNSUPPORTED', /CAST to BLOB is not supported/, false],
  ])('%s', async (sql, code, says, duckRefuses) => {
    if (duckRefuses) await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    else await duckConnection().run(sql);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says)]);
    expect(e.message).not.toMatch(/MEDIUMINT\(/);
  });

  it('a DOUBLE DuckDB wraps (255.5 to UTINYINT 0), or past BIGINT: refused, under TRY_CAST and CAST alike', async () => {
    for (const [type, x] of [['UTINYINT', 255.5], ['USMALLINT', 65535.9], ['UINTEGER', 4294967295.5]] as const) {
      const duck = await duckConnection().runAndReadAll(`SELECT TRY_CAST(${x}::DOUBLE AS ${type}) AS a, CAST(${x}::DOUBLE AS ${type}) AS b`);
      expect(duck.getRows()[0]!.map(Number)).toEqual([0, 0]);
      for (const sql of [`SELECT TRY_CAST(${x}::DOUBLE AS ${type}) AS a FROM t`, `SELECT CAST(${x}::DOUBLE AS ${type}) AS a FROM t`]) {
        const e = await refusal(root, sql);
        expect([e.code, e.message]).toEqual(['CANOPY_ERR_OUT_OF_RANGE', expect.stringMatching(/checks the range before rounding/)]);
      }
    }
    const duck = await duckConnection().runAndReadAll('SELECT TRY_CAST(1e19::DOUBLE AS UBIGINT) AS a');
    expect(duck.getRows()[0]![0]).toBe(10000000000000000000n);
    expect((await refusal(root, 'SELECT TRY_CAST(1e19::DOUBLE AS UBIGINT) AS a FROM t')).message).toMatch(/not BIGINT, which canopy holds/);
  });

  it('property: a DOUBLE or BIGINT cast to each unsigned type equals DuckDB, or is refused where DuckDB wraps or passes BIGINT', async () => {
    const doubles = fc.oneof(fc.double({ noDefaultInfinity: false }), fc.integer({ min: -3, max: 70000 }).map((n) => n / 2), fc.constantFrom(-0, 0.5, 1.5, 2.5, 255.49, 255.5, 256, 65535.5, 4294967295.5, 2 ** 63, 2 ** 64, -1e-300));
    const ints = fc.oneof(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.bigInt({ min: -3n, max: 70000n }), fc.constantFrom(0n, 255n, 256n, 65535n, 65536n, 4294967295n, 4294967296n));
    const types = [['UTINYINT', 8], ['USMALLINT', 16], ['UINTEGER', 32], ['UBIGINT', 64]] as const;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.oneof(doubles, ints), { minLength: 1, maxLength: 12 }), async (values) => {
        for (const v of values) {
          const lit = typeof v === 'bigint' ? `(${v})::BIGINT` : Number.isNaN(v) ? "'nan'::DOUBLE" : Number.isFinite(v) ? `'${String(v)}'::DOUBLE` : `'${v > 0 ? '' : '-'}inf'::DOUBLE`;
          for (const [type, bits] of types) {
            const want = (await duckConnection().runAndReadAll(`SELECT TRY_CAST(${lit} AS ${type})`)).getRows()[0]![0] as Scalar;
            let got: Scalar;
            try {
              got = castUnsigned(v, bits, true);
            } catch (e) {
              expect((e as CanopyError).code).toBe('CANOPY_ERR_OUT_OF_RANGE');
              // Refused only where DuckDB's value wraps (0 from a double rounded up to 2^bits) or passes BIGINT.
              expect((want !== null && BigInt(want as number | bigint) === 0n) || (typeof want === 'bigint' && want > (1n << 63n) - 1n), `${lit} AS ${type}: DuckDB ${String(want)}`).toBe(true);
              continue;
            }
            expect(got === null ? null : BigInt(got as bigint), `${lit} AS ${type}`).toEqual(want === null ? null : BigInt(want as number | bigint));
          }
        }
      }),
      { numRuns: 40, seed: 21 },
    );
  }, 120_000);

  it('a syntax error after a stood-in type keeps the user position', async () => {
    const sql = 'SELECT CAST(j AS UTINYINT) AS a,\n  j::UINT8 b c FROM t';
    await expect(duckConnection().run(sql)).rejects.toThrow(/syntax error/i);
    const e = await refusal(root, sql);
    const offset = sql.indexOf(' c ') + 1;
    expect(e.position).toEqual({ ...lineColumn(sql, offset), offset });
    expect(e.message).not.toMatch(/MEDIUMINT/);
  });
});

/** Function chains the grammar does not read: on a call, a parenthesised expression, a qualified column. */
const CALL_CHAINS: Q[] = [
  { sql: "SELECT s.upper().lower() AS a, t.s.upper() AS b, (j + 1).abs() AS c, s.replace('a', 'b').upper().length() AS d, upper(s).lower() AS e, -(j).abs() AS f2 FROM t" },
  { sql: "SELECT t.g.upper().lower().length() AS a, (f * 2).round(1) AS b, \"t\".\"s\".upper() AS c, s.lower() .upper() AS d, coalesce(s, 'x').length().abs() AS e FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE NOT (j).abs() > 3 AND s.upper().starts_with('A') IS NOT NULL" },
  { sql: 'SELECT t.g.upper() AS k, count(*) AS n, sum((j * 2).abs()) AS s2 FROM t GROUP BY k' },
  { sql: 'SELECT g, sum(j).abs() AS a, max(s).upper().length() AS b FROM t GROUP BY g' },
  ordered('SELECT j FROM t ORDER BY (j - 3).abs() NULLS FIRST, t.j NULLS FIRST LIMIT 6'),
];

describe('function chains on calls, parenthesised expressions and qualified columns: equal to DuckDB', () => {
  differentialTests(CALL_CHAINS, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ['SELECT s.upper().nope() AS a FROM t', 'CANOPY_ERR_UNSUPPORTED'],
    ['SELECT t.nope.upper() AS a FROM t', 'CANOPY_ERR_UNKNOWN_COLUMN'],
    ['SELECT (j + 1).upper() AS a FROM t', 'CANOPY_ERR_TYPE'],
    ["SELECT 'a'.upper().lower() AS a FROM t", 'CANOPY_ERR_BAD_QUERY'],
  ])('refused as DuckDB refuses it: %s', async (sql, code) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe(code);
  });
  it('a syntax error after or inside a chain keeps the user position', async () => {
    for (const [sql, at] of [
      ['SELECT s.upper().lower() AS a,\n  t.s.upper() b c FROM t', ' c '],
      ['SELECT s.upper().replace(, 1) AS a FROM t', ', 1'],
    ] as const) {
      await expect(duckConnection().run(sql)).rejects.toThrow(/syntax error/i);
      const e = await refusal(root, sql);
      const offset = sql.indexOf(at) + (at.startsWith(' ') ? 1 : 0);
      expect(e.position, sql).toEqual({ ...lineColumn(sql, offset), offset });
    }
  });
});

/**
 * DISTINCT ON (keys): one row per key, the first in the ORDER BY; canopy answers it where
 * that row's items are the keys' and one ORDER BY column's extreme (GROUP BY the keys).
 */
const DISTINCT_ON: Q[] = [
  ordered('SELECT DISTINCT ON (g) g, j FROM t ORDER BY g NULLS FIRST, j'),
  ordered('SELECT DISTINCT ON (g) g, j FROM t ORDER BY g NULLS LAST, j DESC'),
  { sql: 'SELECT DISTINCT ON (g) g, j FROM t ORDER BY j DESC NULLS FIRST' },
  { sql: 'SELECT DISTINCT ON (g) g, j FROM t ORDER BY j NULLS FIRST, g' },
  { sql: 'SELECT DISTINCT ON (g) j, g FROM t ORDER BY j' },
  { sql: 'SELECT DISTINCT ON (g) g, f FROM t ORDER BY f DESC' },
  { sql: 'SELECT DISTINCT ON (g) g, f, f AS f2 FROM t ORDER BY g, f NULLS FIRST' },
  { sql: 'SELECT DISTINCT ON (g) g, ts FROM t ORDER BY ts' },
  { sql: 'SELECT DISTINCT ON (j % 3) j % 3 AS r, s FROM t ORDER BY s DESC' },
  // Positions and aliases bind to select items, as in DuckDB (alias first).
  ordered('SELECT DISTINCT ON (1) g, j FROM t ORDER BY 1 NULLS FIRST, 2'),
  { sql: 'SELECT DISTINCT ON (k) g AS k, j FROM t ORDER BY j' },
  { sql: 'SELECT DISTINCT ON (t.g) upper(g) AS u, g, i FROM t WHERE j > -5 ORDER BY t.g, i DESC' },
  // Items the keys determine; the ORDER BY column need not be selected.
  { sql: 'SELECT DISTINCT ON (g, j) g, j FROM t' },
  { sql: 'SELECT DISTINCT ON (g, j) g FROM t' },
  { sql: 'SELECT DISTINCT ON (g) g, length(g) AS n FROM t ORDER BY j' },
  ordered('SELECT DISTINCT ON (g) g FROM t ORDER BY j DESC NULLS LAST, g NULLS FIRST LIMIT 3'),
  ordered('SELECT DISTINCT ON (g) g, j FROM t ORDER BY g NULLS FIRST, j LIMIT 2 OFFSET 1'),
];

describe('SELECT DISTINCT ON: equal to DuckDB, refused where the row kept is not determined', () => {
  differentialTests(DISTINCT_ON, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    // DuckDB keeps the first row it reads: no order a tree could merge.
    ['SELECT DISTINCT ON (g) g, j FROM t', /without an ORDER BY that picks the row/],
    ['SELECT DISTINCT ON (g) g, j, i FROM t ORDER BY j', /each select item is a key or the ORDER BY column/],
    ['SELECT DISTINCT ON (g) g, j FROM t ORDER BY j, i', /ordered by one column after the keys/],
    ['SELECT DISTINCT ON (g) g, j + 1 AS k FROM t ORDER BY j', /each select item is a key or the ORDER BY column/],
    ['SELECT DISTINCT ON (g) g, j FROM t ORDER BY j - length(s)', /not by an expression of other columns/],
    // The key g is the alias g, the column j (DuckDB binds the alias first): the item g is then not determined.
    ['SELECT DISTINCT ON (g) g AS j, j AS g FROM t ORDER BY g', /without an ORDER BY that picks the row/],
    ['SELECT DISTINCT ON (g) * FROM t ORDER BY j', /with \*, aggregates or subqueries/],
    ['SELECT DISTINCT ON (g) g, count(*) AS n FROM t GROUP BY g ORDER BY g', /with GROUP BY or HAVING/],
  ])('refused: %s', async (sql, says) => {
    await duckConnection().run(sql);
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual(['CANOPY_ERR_UNSUPPORTED', expect.stringMatching(says)]);
  });
  it.each(['SELECT DISTINCT ON (3) g, j FROM t ORDER BY j', "SELECT DISTINCT ON (g, 'x') g FROM t", 'SELECT DISTINCT ON (NULL) g FROM t', 'SELECT DISTINCT ON (1.0) g FROM t'])('refused as DuckDB refuses it: %s', async (sql) => {
    await expect(duckConnection().run(sql)).rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe('CANOPY_ERR_BAD_QUERY');
  });
});

/** DuckDB's TRY(x): NULL for a row where x raises an error DuckDB raises too. */
const TRIES: Q[] = [
  { sql: 'SELECT j, try(i + i) AS a, try(i * j) AS b, try(-i) AS c, try(i - j) AS d, try(i // j) AS e, try(i % j) AS f2 FROM t' },
  { sql: 'SELECT try(sqrt(f)) AS a, try(ln(f)) AS b, try(log10(j)) AS c, try(CAST(f AS BIGINT)) AS d, try(CAST(s AS BIGINT)) AS e, try(CAST(s AS DOUBLE)) AS f2 FROM t' },
  { sql: "SELECT try(CAST(s AS BOOLEAN)) AS a, try(CAST(g AS TIMESTAMP)) AS b, try(NULL) AS c, try(s || 'x') AS d, try(try(i + i) + 1) AS e FROM t" },
  { sql: 'SELECT count(*) AS n FROM t WHERE try(i + i) IS NULL' },
  { sql: 'SELECT count(*) AS n, sum(try(i * 2)) AS s FROM t WHERE try(i - j) > 0' },
  { sql: 'SELECT try(i + 1) AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT g, try(CAST(max(f) AS BIGINT)) AS a FROM t GROUP BY g' },
  ordered('SELECT i FROM t ORDER BY try(i * 3) NULLS FIRST, i NULLS FIRST'),
];

describe('TRY(x): equal to DuckDB', () => {
  differentialTests(TRIES, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    // DuckDB's binder refuses these too.
    ['SELECT try(sum(j)) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /aggregates are not allowed inside the TRY expression/, true],
    ['SELECT g, try(max(i) + 1) AS a FROM t GROUP BY g', 'CANOPY_ERR_BAD_QUERY', /aggregates are not allowed/, true],
    ['SELECT try(j, 1) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /Wrong number of arguments/, true],
    // Where DuckDB computes in another width than canopy (its errors differ): refused, a gap.
    ['SELECT try(2147483647 + j // 1000000000000) AS a FROM t', null, null, false],
    ['SELECT try(2147483647 + 1) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /DuckDB computes it as INTEGER/, false],
    ['SELECT try(j::INTEGER * 1000000000) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /TRY over|DuckDB computes it as INTEGER/, false],
    ['SELECT try(CAST(j AS TINYINT)) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /TRY over a cast to TINYINT/, false],
    ['SELECT try(ascii(s) * 1000000) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /DuckDB computes it as INTEGER/, false],
  ])('%s', async (sql, code, says, duckRefuses) => {
    if (duckRefuses) await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    else await duckConnection().run(sql);
    if (code === null) {
      // A BIGINT operand makes the arithmetic BIGINT in DuckDB: answered.
      await ask(root, sql);
      return;
    }
    const e = await refusal(root, sql);
    expect([e.code, e.message]).toEqual([code, expect.stringMatching(says!)]);
  });

  it("canopy's own refusals stand under TRY (a string DuckDB may read as a number): never NULL for them", async () => {
    // DuckDB reads '1e ' as 1; canopy does not, and refuses rather than give NULL.
    const small = inProcessRoot(SCHEMA, [[[0, 0n, 0n, 0, '1e ', '']]], { fanout: 2 }).root;
    const e = await refusal(small, 'SELECT try(CAST(s AS BIGINT)) AS a FROM t');
    expect(e.code).toBe('CANOPY_ERR_OUT_OF_RANGE');
  });

  it('property: TRY of BIGINT arithmetic equals DuckDB (NULL exactly where it overflows)', async () => {
    const big = fc.oneof(fc.bigInt({ min: -(1n << 63n), max: (1n << 63n) - 1n }), fc.bigInt({ min: -(1n << 32n), max: 1n << 32n }), fc.constantFrom(0n, -1n, 1n, (1n << 63n) - 1n, -(1n << 63n)));
    const ops = ['+', '-', '*', '//', '%'] as const;
    await fc.assert(
      fc.asyncProperty(fc.array(fc.tuple(big, big, fc.constantFrom(...ops)), { minLength: 1, maxLength: 10 }), async (cases) => {
        for (const [a, b, op] of cases) {
          const want = (await duckConnection().runAndReadAll(`SELECT try((${a})::BIGINT ${op} (${b})::BIGINT)`)).getRows()[0]![0] as Scalar;
          const lit = (v: bigint): Expr => ({ kind: 'lit', value: v, type: 'int64' });
          const e: Expr = { kind: 'try', arg: { kind: 'arith', op, left: lit(a), right: lit(b), type: 'int64' }, type: 'int64' };
          const ev = (c: Expr): Scalar => evalScalarNode(c as Exclude<Expr, { kind: 'col' }>, ev);
          const got = ev(e);
          expect(got, `try(${a} ${op} ${b})`).toEqual(want === null ? null : BigInt(want as bigint));
        }
      }),
      { numRuns: 40, seed: 22 },
    );
  }, 120_000);
});

/** DuckDB's power operators `^` and `**`: power(a, b), left to right, tighter than `*`, looser than unary minus. */
const POWERS: Q[] = [
  { sql: "SELECT 2^3**2 AS a, -2**2 AS b, 2 ^ -1 AS c, 2**-1 AS d, 1 + 2 ^ 2 * 3 AS e, 'a' || 2 ** 3 || 'b' AS f2, 10 % 3 ^ 2 AS g2, 10 // 2 ^ 2 AS h, (2^2)^3 AS i2, 2^(1+1) AS k FROM t" },
  { sql: 'SELECT -j ^ 2 AS a, j ^ 2 AS b, f ** 0.5 AS c, 1 < 2 ^ j AS d, j::DOUBLE ^ 3 AS e, (-8.0)^(1/3) AS f2, 0.0 ^ -1.0 AS g2, i ^ 2 AS h FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j ^ 2 > 10 OR f ** 2 < 1' },
  { sql: 'SELECT g, sum(j) ^ 2 AS a, 2 ** count(*) AS b FROM t GROUP BY g' },
  ordered('SELECT j FROM t ORDER BY (j - 1) ^ 2 NULLS FIRST, j NULLS FIRST'),
  { sql: "SELECT s ^@ 'a' AS a, '2^3' AS b, 2 /* ^ */ * 3 AS c FROM t -- **" },
];

describe('^ and ** (power): equal to DuckDB', () => {
  differentialTests(POWERS, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    // DuckDB reads `^-` / `^+` as other operators and refuses them.
    ['SELECT 2^-1 AS a FROM t', 'CANOPY_ERR_BAD_QUERY'],
    ["SELECT s ^ 2 AS a FROM t", 'CANOPY_ERR_TYPE'],
  ])('refused as DuckDB refuses it: %s', async (sql, code) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe(code);
  });
  it('a syntax error after a power operator keeps the user position', async () => {
    const sql = 'SELECT 2 ^ 3 AS a,\n  j ** 2 b c FROM t';
    await expect(duckConnection().run(sql)).rejects.toThrow(/syntax error/i);
    const e = await refusal(root, sql);
    const offset = sql.indexOf(' c ') + 1;
    expect(e.position).toEqual({ ...lineColumn(sql, offset), offset });
  });
});

/** LIKE / ILIKE with a pattern from a column and ESCAPE, NULL operands; `==` as `=`. */
const LIKES: Q[] = [
  { sql: "SELECT s LIKE g ESCAPE '$' AS a, s NOT ILIKE g || '%' ESCAPE '$' AS b, NULL ILIKE 'a' AS c, s LIKE NULL ESCAPE '$' AS d, s ILIKE NULL AS e, NULL LIKE g AS f2 FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%' || g || '%' ESCAPE '$' OR s NOT LIKE g ESCAPE ''" },
  { sql: "SELECT j == 1 AS a, s=='a' AS b, '==' AS c, j==-3 AS d, NULL == j AS e FROM t" },
  { sql: 'SELECT count(*) AS n FROM t WHERE j == -3 OR g == s' },
];

describe('LIKE ... ESCAPE over computed patterns, NULL operands, ==: equal to DuckDB', () => {
  differentialTests(LIKES, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    // A row's pattern ending with the escape character: DuckDB refuses the query.
    ["SELECT s LIKE g ESCAPE 'a' AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE'],
    ["SELECT s LIKE g ESCAPE 'ab' AS a FROM t", 'CANOPY_ERR_BAD_QUERY'],
    ['SELECT j === 1 AS a FROM t', 'CANOPY_ERR_BAD_QUERY'],
  ])('refused as DuckDB refuses it: %s', async (sql, code) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    expect((await refusal(root, sql)).code).toBe(code);
  });
});

/** Constant GROUP BY items other than positions (one group, none over no rows), and a string or quoted name as the last select item. */
const CONSTANT_KEYS: Q[] = [
  { sql: 'SELECT length(NULL) AS a, NULL AS b, upper(NULL) AS c, count(*) AS n FROM t GROUP BY NULL' },
  { sql: "SELECT count(*) AS n, 'x' AS k FROM t GROUP BY 'a'" },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > 1000 GROUP BY NULL' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY NULL, g' },
  { sql: 'SELECT count(*) AS n, sum(j) AS s FROM t GROUP BY TRUE, 1.5' },
  { sql: "SELECT j, 'x' FROM t" },
  { sql: 'SELECT j, "g" FROM t' },
  { sql: "SELECT count(*), 'x' FROM t" },
  { sql: "SELECT j, 'x', FROM t" },
];

describe('constant GROUP BY items; a string as the last select item: equal to DuckDB', () => {
  differentialTests(CONSTANT_KEYS, new Set());
});

/** DuckDB's bitwise operators `& | << >>`: left to right with `||`, looser than `+ - * /`. */
const BITWISE: Q[] = [
  { sql: 'SELECT j & 3 AS a, j | 4 AS b, i & j AS c, i | j AS d, xor(i, j) AS e, 1 & 2 | 4 AS f2, 1 | 2 & 4 AS g2, 1 + 2 & 3 AS h, 6 & 3 * 2 AS k, NULL & j AS m, j | NULL AS n FROM t' },
  { sql: 'SELECT greatest(j, 0)::BIGINT << 2 AS a, j >> 1 AS b, i >> 62 AS c, j >> 70 AS d, j >> -1 AS e, 3 & 1 << greatest(j, 0)::BIGINT AS f2, 0::BIGINT << 64 AS g2, (j & 1) || s AS h FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j & 1 = 1 OR (i | 0) < 0' },
  { sql: 'SELECT j & 1 AS k, count(*) AS n, max(j) | 0 AS s FROM t GROUP BY k' },
  ordered('SELECT j FROM t ORDER BY j & 6 NULLS FIRST, j NULLS FIRST'),
  { sql: "SELECT 'a&b|c' AS a, s || 'x' AS b, j /* << */ AS c FROM t" },
];

describe('bitwise operators: equal to DuckDB', () => {
  differentialTests(BITWISE, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    // DuckDB refuses these too: a negative number or shift, an overflow, another type.
    ['SELECT j << 1 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', true],
    ['SELECT abs(i)::BIGINT << 2 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', true],
    ['SELECT greatest(j, 1)::BIGINT << 64 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', true],
    ['SELECT s & 1 AS a FROM t', 'CANOPY_ERR_TYPE', true],
    ['SELECT f | 1 AS a FROM t', 'CANOPY_ERR_TYPE', true],
    ['SELECT j &- 1 AS a FROM t', 'CANOPY_ERR_BAD_QUERY', true],
    // DuckDB shifts INTEGER literals in 32 bits: refused (a gap).
    ['SELECT 1 << 2 AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', false],
  ])('refused: %s', async (sql, code, duckRefuses) => {
    if (duckRefuses) await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    else await duckConnection().run(sql);
    expect((await refusal(root, sql)).code).toBe(code);
  });
  it('TRY gives NULL where a shift raises the error DuckDB raises', async () => {
    const sql = 'SELECT j, try(j << 1) AS a, try(greatest(j, 1)::BIGINT << 63) AS b FROM t';
    const duck = (await duckConnection().runAndReadAll(`${sql} ORDER BY j NULLS FIRST`)).getRows().map((r) => r.map((v) => (v === null ? null : Number(v))));
    const got = (await ask(root, `${sql} ORDER BY j NULLS FIRST`)).rows.map((r) => r.map((v) => (v === null ? null : Number(v))));
    expect(got).toEqual(duck);
  });
});

/** `SELECT DISTINCT *`: GROUP BY every column of the table. */
const DISTINCT_STAR: Q[] = [
  { sql: 'SELECT DISTINCT * FROM t' },
  { sql: 'SELECT DISTINCT t.* FROM t WHERE j > 0' },
  { sql: 'SELECT DISTINCT *, j + 1 AS k FROM t' },
  ordered('SELECT DISTINCT * FROM t ORDER BY j NULLS FIRST, i NULLS FIRST, s NULLS FIRST, f NULLS FIRST, ts NULLS FIRST, g NULLS FIRST LIMIT 5'),
];

describe('SELECT DISTINCT *: equal to DuckDB', () => {
  differentialTests(DISTINCT_STAR, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it('with EXCLUDE, still refused (a gap: DuckDB answers)', async () => {
    const sql = 'SELECT DISTINCT * EXCLUDE (f) FROM t';
    await duckConnection().run(sql);
    expect((await refusal(root, sql)).code).toBe('CANOPY_ERR_UNSUPPORTED');
  });
});

/** SQL's `substring(s FROM a [FOR b])` / `substring(s FOR b)`. */
const SUBSTRINGS: Q[] = [
  { sql: 'SELECT substring(s FROM 2 FOR 2) AS a, substring(s from j) AS b, substring(s for 2) AS c, substring(s FROM 1) AS d, substring(s FROM -2 FOR j + 8) AS e, SUBSTRING(g FROM (greatest(j, 0)) FOR (2)) AS f2 FROM t' },
  { sql: "SELECT count(*) AS n FROM t WHERE substring(s FROM 1 FOR 1) = 'a'" },
  { sql: "SELECT substring(s, 1, 2) AS a, 'substring(x FROM 1)' AS b FROM t" },
];

describe('substring(s FROM a FOR b): equal to DuckDB', () => {
  differentialTests(SUBSTRINGS, new Set());
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ['SELECT substr(s FROM 1) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', true],
    // DuckDB reads FOR before FROM too; canopy does not (a gap).
    ['SELECT substring(s FOR 2 FROM 1) AS a FROM t', 'CANOPY_ERR_BAD_QUERY', false],
  ])('refused: %s', async (sql, code, duckRefuses) => {
    if (duckRefuses) await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    else await duckConnection().run(sql);
    expect((await refusal(root, sql)).code).toBe(code);
  });
  it('a syntax error inside keeps the user position', async () => {
    const sql = 'SELECT substring(s FROM 1 FOR) AS a FROM t';
    await expect(duckConnection().run(sql)).rejects.toThrow(/syntax error/i);
    const e = await refusal(root, sql);
    expect(e.position?.offset).toBe(sql.indexOf(') AS'));
  });
});
