/**
 * The scalar functions and operators of src/merge/scalar-extra.ts against DuckDB: value by
 * value through `callFn` (edge values, random inputs with fast-check), then as SQL through the
 * differential trees (test/helpers/differential.ts: round-robin, sorted and batched shards,
 * failing shards) at the row level and after aggregation, and refusals where DuckDB refuses.
 *
 * Run: npx vitest run test/scalar-extra-duckdb.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { callFn } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';
import { differences as differencesOf, lit, type Call } from './helpers/scalar-calls.ts';
import { ask, inProcessRoot, itRefuses, type Refusal } from './helpers/tree.ts';

const duckdb = useDuckDB();

/** GLOB is an operator in DuckDB (its `glob` is a table function); array_extract(s, i) is canopy's substring(s, i, 1). */
const sqlOf = (c: Call): string => (c[1] === 'GLOB' ? `${lit(c[2][0]!)} GLOB ${lit(c[2][1]!)}` : `${c[1]}(${c[2].slice(0, c[1] === 'array_extract' ? 2 : undefined).map(lit).join(', ')})`);
/**
 * lgamma within 1/4 of its roots 1 and 2, where DuckDB's std::lgamma (glibc) is good to an ulp of
 * 1, not of the value: lgamma(0.9994123432767491) is 3.3948877870756129e-4 (mpmath, 40 digits),
 * canopy 3.394887787075613e-4, DuckDB 3.394887787074971e-4 (1.9e-13 relative). 2^-52 absolute there.
 */
const nearRoot = ([fn, , args]: Call): number => (fn === 'lgamma' && typeof args[0] === 'number' && (Math.abs(args[0] - 1) < 0.25 || Math.abs(args[0] - 2) < 0.25) ? 2 ** -52 : 0);
const differences = (calls: readonly Call[]): Promise<string[]> => differencesOf(duckdb, calls, sqlOf, nearRoot);

describe('GLOB equals DuckDB', () => {
  it('over the patterns of test_glob.test and edge bytes (signed ranges, multi-byte ?, unclosed sets)', async () => {
    const patterns = ['*', '', '?', '??', 'a*', '*a', 'a?a', '[0-9]', '[!0-9]', '[abc0-9][abc0-9]', '\\*', '\\\\', '\\', '[]3][]]', '[3', '[3-', '[a-]', '[]', '[!]', '[!]]', '[?]',
      '[*]', '[1-35-7]', '[', '*a[bc]', '*\\*', '*?', '*[', '3***', '**1***2*******4*5***', '*a*a*a*a*a*a*a*a*a*a*a*a*a*a*b', '[é]', '[é][é]', '[a-é]?', '[\u00c8-\u00fa]*', '[!a-z]*', 'é', '?é', '[[]', '[]-a]', '[z-a]'];
    const strings = ['', 'a', 'aaa', 'ababac', '3', '12', 'a3', '*', '\\', ']', '[', '-', '?', 'é', 'É', 'è', 'ab', 'ac', '12345', '1aa2bb4c5x', '𝄞', 'x*'];
    const calls = strings.flatMap((s) => patterns.map((p): Call => ['glob', 'GLOB', [s, p], 'bool']));
    expect(await differences(calls)).toEqual([]);
  }, 60_000);

  it('property: random strings and patterns over GLOB\'s special characters and multi-byte characters', async () => {
    const str = (chars: string[]): fc.Arbitrary<string> => fc.array(fc.constantFrom(...chars), { maxLength: 8 }).map((cs) => cs.join(''));
    const text = str(['a', 'b', '1', '-', ']', '[', '*', '?', '\\', 'é', 'ÿ', '𝄞', '!']);
    const pattern = str(['a', 'b', '1', '-', ']', '[', '*', '?', '\\', 'é', 'ÿ', '!', '[!', '[a-', '*a', '9']);
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(text, pattern), { minLength: 1, maxLength: 30 }), async (pairs) => {
      expect(await differences(pairs.map(([s, p]): Call => ['glob', 'GLOB', [s, p], 'bool']))).toEqual([]);
    }), { numRuns: 60 });
  }, 120_000);
});

describe('array_extract and array_slice on strings equal DuckDB', () => {
  const INDICES = [0n, 1n, 2n, 3n, 5n, 6n, -1n, -2n, -4n, -5n, -6n, 2147483646n, -2147483647n, 4294967295n, 4294967296n, -4294967296n, -4294967297n, 9223372036854775807n, -9223372036854775808n, -9223372036854775807n];
  const STRINGS = ['', 'a', 'hello', '🦆ab', 'MotörHead', 'a\u0301b', 'é𝄞x'];
  it('over edge indices (int64 extremes, substring\'s offset range error) and multi-byte strings', async () => {
    const calls: Call[] = [];
    for (const s of STRINGS) {
      for (const i of INDICES) {
        calls.push(['substring', 'array_extract', [s, i, 1n], 'string']);
        for (const j of INDICES) calls.push(['string_slice', 'array_slice', [s, i, j], 'string']);
      }
    }
    expect(await differences(calls)).toEqual([]);
  }, 60_000);

  it('property: random strings and indices', async () => {
    const str = fc.array(fc.constantFrom('a', 'b', 'é', '𝄞', '\u0301', ' '), { maxLength: 8 }).map((cs) => cs.join(''));
    const idx = fc.oneof(fc.integer({ min: -10, max: 10 }).map(BigInt), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }));
    const call: fc.Arbitrary<Call> = fc.oneof(
      fc.tuple(str, idx).map(([s, i]): Call => ['substring', 'array_extract', [s, i, 1n], 'string']),
      fc.tuple(str, idx, idx).map(([s, i, j]): Call => ['string_slice', 'array_slice', [s, i, j], 'string']),
    );
    await fc.assert(fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 30 }), async (calls) => {
      expect(await differences(calls)).toEqual([]);
    }), { numRuns: 40 });
  }, 120_000);
});

describe('gamma and lgamma equal DuckDB (std::tgamma, std::lgamma) to 1e-13 relative', () => {
  it('over the values of test_gamma.test and edges (zeros refused, poles, overflow, near the roots of lgamma)', async () => {
    const xs = [0.5, -0.5, 1, 2, 3, 5, 10, 23, 24, 100, 170, 171, 171.5, 171.7, 172, -1, -2, -100, -0.5, -1.5, -2.5, -10.3, -170.5, -169.9, 1e-10, 1e-300, -1e-10, 1.0000001, 0.9999999, 2.0000001,
      1.9999999, 0.9994123432767491, 1.4616321449683622, 1.25, 1.75, 0.75, 2.25, 2.2501, 11.99, 12, 12.01, 1e5, 1e300, 1.7976931348623157e308, -2.4, -3.5, 4.5e15, -4.5e15, NaN, Infinity, -Infinity, 0, -0];
    const calls = xs.flatMap((x): Call[] => [['gamma', 'gamma', [x], 'float64'], ['lgamma', 'lgamma', [x], 'float64']]);
    calls.push(['gamma', 'gamma', [5n], 'float64'], ['lgamma', 'lgamma', [0n], 'float64'], ['gamma', 'gamma', [-3n], 'float64']);
    // Just below the overflow at 171.62 the product x-1, x-2, ... passes the largest double before Γ(y) < 1 brings it back: finite, as DuckDB.
    calls.push(['gamma', 'gamma', [171.60957442929686], 'float64'], ['gamma', 'gamma', [171.614], 'float64'], ['gamma', 'gamma', [171.5], 'float64']);
    expect(await differences(calls)).toEqual([]);
  }, 60_000);

  it('property: random doubles (gamma above -170, where its values are normal doubles)', async () => {
    const x = fc.oneof(fc.double({ min: -170, max: 180, noNaN: true }), fc.double({ min: -5, max: 5, noNaN: true }), fc.double({ min: 0.7, max: 2.3, noNaN: true }), fc.double({ min: 1e-300, max: 1e300, noNaN: true }));
    await fc.assert(fc.asyncProperty(fc.array(x, { minLength: 1, maxLength: 30 }), async (values) => {
      expect(await differences(values.flatMap((v): Call[] => (v > 0 ? [['gamma', 'gamma', [v], 'float64'], ['lgamma', 'lgamma', [v], 'float64']] : [])))).toEqual([]);
      // Below 0 DuckDB's tgamma loses up to some 600 ulps near the poles: gamma(-0.99910041840885366)
      // is -1112.0519603183975 (mpmath, 40 digits), DuckDB -1112.0519603182606, canopy
      // -1112.0519603183984. Checked to 1e-12 relative there.
      for (const v of values.filter((w) => w <= 0 && w !== 0)) {
        const want = (await duckdb().runAndReadAll(`SELECT gamma(${lit(v)})`)).getRows()[0]![0] as number;
        const got = callFn('gamma', [v], 'float64') as number;
        expect(Object.is(got, want) || (Number.isNaN(got) && Number.isNaN(want)) || Math.abs(got - want) <= 1e-12 * Math.abs(want), `gamma(${v}): DuckDB ${want}, canopy ${got}`).toBe(true);
      }
      // lgamma below 0 cancels near its roots: 1e-14 absolute there (src/merge/scalar-extra.ts lgamma).
      for (const v of values.filter((w) => w < 0)) {
        const want = (await duckdb().runAndReadAll(`SELECT lgamma(${lit(v)})`)).getRows()[0]![0] as number;
        const got = callFn('lgamma', [v], 'float64') as number;
        expect(got === want || Math.abs(got - want) <= 1e-14 * Math.max(1, Math.abs(want)), `lgamma(${v}): DuckDB ${want}, canopy ${got}`).toBe(true);
      }
    }), { numRuns: 40 });
  }, 120_000);
});

describe('bar and parse_formatted_bytes equal DuckDB', () => {
  it('bar over the values of test_bar.test and edges (NaN, infinities, widths 1 to 1000 and fractional)', async () => {
    const xs = [9, 120, 40, 100, -10, NaN, Infinity, -Infinity, 1, 0, 10, 0.5, 5.0625, 3.3, -0, 1e308, -1e308];
    const ranges = [[10, 20], [-10, 100], [20, 0], [200, 0], [0, 10], [0, 1], [NaN, 10], [-Infinity, 10], [Infinity, 10], [0, NaN], [0, -Infinity], [0, Infinity], [10, 10], [-1e308, 1e308]];
    const widths = [undefined, 10, 1, 1000, 1001, 0.99, 1.125, 1.5, 1.875, 2, 7.3, NaN, Infinity, -Infinity, 80];
    const calls: Call[] = [];
    for (const x of xs) for (const [lo, hi] of ranges) for (const w of widths) calls.push(['bar', 'bar', w === undefined ? [x, lo!, hi!] : [x, lo!, hi!, w], 'string']);
    calls.push(['bar', 'bar', [9n, 10n, 20n], 'string'], ['bar', 'bar', [120n, -10n, 100n, 10n], 'string']);
    expect(await differences(calls)).toEqual([]);
  }, 120_000);

  it('property: bar over random doubles', async () => {
    const dbl = fc.oneof(fc.double({ min: -100, max: 100, noNaN: true }), fc.constantFrom(0, 1, 10, NaN));
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(dbl, dbl, dbl, fc.double({ min: 1, max: 1000, noNaN: true })), { minLength: 1, maxLength: 20 }), async (rows) => {
      expect(await differences(rows.map(([x, lo, hi, w]): Call => ['bar', 'bar', [x, lo, hi, w], 'string']))).toEqual([]);
    }), { numRuns: 30 });
  }, 120_000);

  it('parse_formatted_bytes over the strings of parse_formatted_bytes.test and edges (units, spaces, malformed numbers, overflow)', async () => {
    const texts = ['0 B', '1 byte', '2 bytes', '1 b', '1 KB', '1.5 KB', '2 MB', '1 GB', '1 TB', '1 KiB', '1.5 KiB', '2 MiB', '1 GiB', '5MB', '  2  mib  ', '1e3 b', 'null', 'none', '5', 'abc', '1 Ki',
      '10000000000 TiB', '1.5.3 GB', 'inf GiB', '-5 MB', ' -1 KiB', '-0 B', '1e B', '- B', '5-3 B', '1e-3 KB', '-', '1 kilobytes', '1 k', '1 t', '1 megabyte', '1B', '\t1\tB', '1 B x', '-nan B', '1.e3 B',
      'e5 B', '1.5e B', '-.5 KB', '.5 KB', '5. KB', '1 gigabytes', '1 terabyte', '1 T', '1 Kib', '--1 B', '', '1,5 KB', '1_000 B', '0.6 B', '2.5 B', '1 PB', '9000000000000000000 B', '1e400 B', '8 TIB', '1 BYTES', '2 b\u0000', '\u00a01 B', '\u000b1 B', '1.0000000001 KB', '123 İb'];
    expect(await differences(texts.map((t): Call => ['parse_formatted_bytes', 'parse_formatted_bytes', [t], 'int64']))).toEqual([]);
    // From 2^63 bytes DuckDB's UBIGINT answers (0 for 2^64, its double's cast wrapping); canopy's BIGINT refuses.
    for (const t of ['9223372036854775807 B', '18446744073709551615 B']) expect(() => callFn('parse_formatted_bytes', [t], 'int64')).toThrow(/past canopy's BIGINT/);
  }, 60_000);

  it('property: parse_formatted_bytes over random texts', async () => {
    const text = fc.array(fc.constantFrom('1', '5', '0', '.', 'e', 'E', '-', ' ', '\t', 'k', 'K', 'i', 'B', 'b', 'm', 'G', 'y', 't', 'e', 's'), { maxLength: 10 }).map((cs) => cs.join(''));
    await fc.assert(fc.asyncProperty(fc.array(text, { minLength: 1, maxLength: 30 }), async (texts) => {
      expect(await differences(texts.map((t): Call => ['parse_formatted_bytes', 'parse_formatted_bytes', [t], 'int64']))).toEqual([]);
    }), { numRuns: 40 });
  }, 120_000);
});

describe("printf's and format's thousands separators and format's integer specs equal DuckDB", () => {
  const INTS = [0n, 7n, -7n, 123n, 1234n, -1234n, 1234567n, -1234567n, 9223372036854775807n, -9223372036854775808n];
  it('over edge integers', async () => {
    const calls: Call[] = [];
    const printfs = ['%,d', "%'d", '%_d', '[%,12d]', '[%-,12d]', '[%0,12d]', '%+,d', "%,'d", '% _d', '[%,5d]'];
    const formats = ['{:,}', '{:_}', "{:'}", '{:t }', '{:t|}', '{:ts}', '{:d}', '{:x}', '{:X}', '{:o}', '{:b}', '{:04d}', '{:8x}', '{:08b}', '{0:d} {0:x} {0:,}', '[{:12d}]'];
    for (const n of INTS) {
      for (const f of printfs) calls.push(['printf', 'printf', [f, n], 'string']);
      for (const f of formats) calls.push(['format', 'format', [f, n], 'string']);
    }
    expect(await differences(calls)).toEqual([]);
  });

  it('property: random integers through random specs', async () => {
    const spec = fc.constantFrom('%,d', "%'d", '%_d', '%,9d', '%-,9d', '%0,9d', '{:,}', '{:_}', '{:t.}', '{:d}', '{:x}', '{:X}', '{:o}', '{:b}', '{:05d}', '{:9x}');
    const big = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -100000n, max: 100000n }));
    await fc.assert(fc.asyncProperty(fc.array(fc.tuple(spec, big), { minLength: 1, maxLength: 30 }), async (rows) => {
      expect(await differences(rows.map(([f, n]): Call => [f.startsWith('%') ? 'printf' : 'format', f.startsWith('%') ? 'printf' : 'format', [f, n], 'string']))).toEqual([]);
    }), { numRuns: 30 });
  }, 120_000);
});

describe('parse_dirname, parse_dirpath and parse_filename equal DuckDB', () => {
  const { root } = inProcessRoot({ name: 't', columns: [{ name: 'k', type: 'int64' }] }, [[[1n]]], { fanout: 2 });
  const FORMS = ['parse_dirname(P)', 'parse_dirpath(P)', 'parse_filename(P)', 'parse_filename(P, true)', 'parse_filename(P, false)', 'parse_filename(P, NULL)', 'parse_filename(P, NULL, NULL)', "parse_filename(P, 'yes', 'system')",
    ...['forward_slash', 'backslash', 'both_slash', 'system', '@', 'BACKSLASH', '', 'constructor'].flatMap((sep) => [`parse_dirname(P, '${sep}')`, `parse_dirpath(P, '${sep}')`, `parse_filename(P, '${sep}')`, `parse_filename(P, true, '${sep}')`]),
    'parse_dirname(P, NULL)', 'parse_dirpath(P, NULL)', "parse_filename(P, NULL, 'backslash')", 'parse_filename(P, true, NULL)'];
  /** Every form over one path, on canopy's tree and on DuckDB; the forms where they differ. */
  async function pathDifferences(path: string): Promise<string[]> {
    const sql = `SELECT ${FORMS.map((f, k) => `${f.replaceAll('P', lit(path))} AS c${k}`).join(', ')}`;
    const want = (await duckdb().runAndReadAll(sql)).getRows()[0]!;
    const got = (await ask(root, `${sql} FROM t`)).rows[0]!;
    return FORMS.flatMap((f, k) => (got[k] === want[k] ? [] : [`${f.replaceAll('P', lit(path))}: DuckDB ${String(want[k])}, canopy ${String(got[k])}`]));
  }
  it('over the paths of parse_path.test and edges (leading, trailing and repeated separators, dots)', async () => {
    const paths = ['path/to/file.csv', '/path/to/file.csv', '///path/to//file.csv', 'path/to/', 'path/to///', '/', '//', '', 'file.csv', 'a\\b/c', '\\a', 'a/.b', 'a/b.c.d', 'a/.', '.csv', 'a/b.',
      '/a', 'a/', '/a/', '\\\\', 'a//b', '\\a\\b', '/a\\b', 'x/\\y', 'path/to/file.csv\\file2.csv', 'wh@t3ve%\\42/12 ch,ars.sth', 'é/𝄞.x'];
    const out: string[] = [];
    for (const p of paths) out.push(...(await pathDifferences(p)));
    expect(out).toEqual([]);
    expect(await ask(root, 'SELECT parse_filename(NULL, true) AS a, parse_dirname(NULL) AS b FROM t').then((r) => r.rows)).toEqual([[null, null]]);
  }, 60_000);

  it('property: random paths over separators, dots and letters', async () => {
    const path = fc.array(fc.constantFrom('/', '\\', 'a', 'b', '.', 'é'), { maxLength: 8 }).map((cs) => cs.join(''));
    await fc.assert(fc.asyncProperty(path, async (p) => {
      expect(await pathDifferences(p)).toEqual([]);
    }), { numRuns: 60 });
  }, 120_000);
});

describe('refused clearly where DuckDB refuses', () => {
  const { root } = inProcessRoot({ name: 't', columns: [{ name: 's', type: 'string' }, { name: 'j', type: 'int64' }, { name: 'f', type: 'float64' }] }, [[['a', 1n, 1.5]], [['b', 2n, 2.5]]], { fanout: 2 });
  const cases: Refusal[] = [
    ["SELECT j GLOB '1' AS r FROM t", 'CANOPY_ERR_TYPE', /GLOB needs strings/],
    ["SELECT s GLOB j AS r FROM t", 'CANOPY_ERR_TYPE', /GLOB needs strings/],
    ["SELECT 1 GLOB s AS r FROM t", 'CANOPY_ERR_TYPE', /GLOB needs strings/],
    // DuckDB has no NOT GLOB operator (NOT s GLOB p negates).
    ["SELECT s NOT GLOB 'a' AS r FROM t", 'CANOPY_ERR_BAD_QUERY', /syntax error at line 1, column 14/],
    ["SELECT s GLOB 'a' ESCAPE 'b' AS r FROM t", 'CANOPY_ERR_BAD_QUERY', /syntax error at line 1, column 26/],
    ["SELECT glob(s, 'a') AS r FROM t", 'CANOPY_ERR_UNSUPPORTED', /glob/],
    ['SELECT array_slice(s, 1, 2, 1) AS r FROM t', 'CANOPY_ERR_BAD_QUERY', /step/],
    ["SELECT parse_filename(s, 'maybe', 'system') AS r FROM t", 'CANOPY_ERR_BAD_QUERY', /Could not convert string 'maybe' to BOOL/],
    ['SELECT parse_filename(j) AS r FROM t', 'CANOPY_ERR_TYPE', /string path/],
    ["SELECT parse_filename(s, 'system', true) AS r FROM t", 'CANOPY_ERR_BAD_QUERY', /Could not convert string 'system' to BOOL/],
    ['SELECT parse_filename(s, true, false) AS r FROM t', 'CANOPY_ERR_TYPE', /separator name/],
    ['SELECT parse_dirname(s, s) AS r FROM t', 'CANOPY_ERR_UNSUPPORTED', /literal options/],
    ['SELECT array_extract(s, f) AS r FROM t', 'CANOPY_ERR_TYPE', /integer index/],
    ['SELECT array_extract(j, 1) AS r FROM t', 'CANOPY_ERR_UNSUPPORTED', /list type/],
    ['SELECT array_extract(s, j + 4294967295) AS r FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /Substring offset outside of supported range/],
  ];
  itRefuses(root, cases);
});

const QUERIES: Q[] = [
  // GLOB at the row level (WHERE, keys, projections), with NOT, ||, NULL and a column pattern.
  { sql: "SELECT count(*) AS n FROM t WHERE s GLOB '*b*'" },
  { sql: "SELECT count(*) AS n FROM t WHERE NOT s GLOB '[a-z]*' AND g GLOB '?'" },
  { sql: "SELECT s, s GLOB 'a*' AS a, NOT s GLOB '[!a]' AS b, s GLOB g AS c, s GLOB 'a' || '*' AS d, s GLOB NULL AS e, NOT s GLOB '*' AS f FROM t" },
  { sql: "SELECT s GLOB '[aA]*' AS glob, count(*) AS n FROM t GROUP BY glob" },
  { sql: "SELECT count(*) FILTER (WHERE s GLOB '*\\*' OR s GLOB '*[%_]*') AS n FROM t" },
  // array_extract / array_slice on strings with column indices (NULLs, negatives, int64 extremes).
  { sql: 'SELECT s, j, array_extract(s, j) AS a, list_extract(s, -1) AS b, list_element(s, 2) AS c, array_slice(s, j, 2) AS d, list_slice(s, -2, j) AS e, array_slice(s, NULL, j) AS f FROM t' },
  { sql: 'SELECT array_slice(s, i, j) AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: "SELECT count(*) AS n FROM t WHERE array_extract(s, 1) = 'a'" },
  { sql: 'SELECT substring(s, i, 1) AS x FROM t' },
  // Subscripts: s[i], s[a:b] with omitted ends, on literals, calls and chained.
  { sql: "SELECT s, j, s[1] AS a, s[j] AS b, s[-1] AS c, s[j:] AS d, s[:j] AS e, s[:] AS f, s[2:-1] AS g, 'hello'[j:j + 2] AS h, upper(s)[1:2][1] AS k, ('MotörHead')[:5] AS l, t.s[0:2] AS m FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s[1] = 'a' OR s[-2:] = 'bc'" },
  { sql: 'SELECT g[1:1] AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT s[i] AS x FROM t' },
  { sql: 'SELECT g, max(s)[2:] AS m, min(g)[1] AS f FROM t GROUP BY g' },
  // gamma, lgamma (zeros refused), bar and parse_formatted_bytes.
  { sql: 'SELECT f, j, gamma(f) AS a, lgamma(f) AS b, gamma(j) AS c, lgamma(j) AS d FROM t WHERE f <> 0 AND j <> 0' },
  { sql: 'SELECT gamma(j) AS a FROM t' },
  { sql: 'SELECT g, lgamma(count(*)) AS l, gamma(sum(j) / 3) AS m FROM t GROUP BY g' },
  { sql: 'SELECT f, j, bar(f, -3, 8) AS a, bar(j, -7, 7, 12) AS b, bar(f, j, 10, 3.5) AS c FROM t WHERE f > -1e300 AND f < 1e300' },
  { sql: 'SELECT bar(j, 0, 10, 5) AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: "SELECT s, parse_formatted_bytes(concat(j, ' KiB')) AS a, parse_formatted_bytes('1.5 MB') AS b FROM t WHERE j >= 0" },
  { sql: "SELECT parse_formatted_bytes(s) AS a FROM t" },
  { sql: 'SELECT j, pg_size_pretty(j * 1536) AS p FROM t WHERE abs(j) < 1000' },
  { sql: "SELECT s, parse_dirname(s) AS a, parse_dirpath(s, 'backslash') AS b, parse_filename(s, true) AS c, parse_filename(s, false, 'forward_slash') AS d FROM t" },
  { sql: "SELECT parse_filename(concat(g, '/', s), true) AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: 'SELECT bar(f, 0, 10, 0.5) AS a FROM t' },
  // After aggregation.
  { sql: 'SELECT g, bar(count(*), 0, 10, 10) AS b, parse_formatted_bytes(concat(sum(j), \' kb\')) AS p FROM t GROUP BY g HAVING sum(j) >= 0' },
  { sql: "SELECT g, max(s) GLOB '?*' AS m FROM t GROUP BY g HAVING NOT min(s) GLOB 'z*'" },
  { sql: 'SELECT g, array_slice(max(s), 2, count(*)) AS m, array_extract(min(s), -1) AS l FROM t GROUP BY g' },
];

describe('the new functions through the trees agree with DuckDB', () => {
  beforeAll(async () => {
    await setupDifferential();
  }, 120_000);
  afterAll(() => closeDifferential());
  differentialTests(QUERIES, new Set());
});
