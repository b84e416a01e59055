/**
 * Adversarial single queries in the style of public bug reports, through the differential
 * harness (test/helpers/differential.ts: exact must equal DuckDB on every split, bounded must
 * hold it, a refusal must be a clear error): SUM's int128 in expressions after aggregation
 * (casts, division, comparisons, ORDER BY), overflow of int64 aggregates in arithmetic, division
 * and modulo by zero and of negatives, CAST edge cases (strings, radix, exponents, out of
 * range, NaN), LIMIT/OFFSET extremes, unicode identifiers, deep nesting, long IN lists (int64
 * near its limits, doubles, mixed), long LIKE patterns with many `%` over 5,000-character
 * strings, regular expressions that backtrack elsewhere, GROUP BY over many keys, sketches
 * (count(DISTINCT), quantiles) over NaN, NULLs and scaled values. Documented differences (a
 * decimal literal is a DOUBLE, INTEGER is read as BIGINT, int128 arithmetic
 * past int64 is refused) are left out.
 *
 * Run: npx vitest run test/adversarial-duckdb.test.ts (BREAKER_REPORT=1 prints verdicts)
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

const deep = (n: number, inner: string): string => '('.repeat(n) + inner + ')'.repeat(n);
const ADVERSARIAL: Q[] = [
  // int128 results of SUM in expressions after aggregation
  { sql: 'SELECT sum(i) % -7 AS b, sum(i) // -3 AS c FROM t WHERE i < 0' },
  // An int128 cast to BIGINT must fit it (was answered as 18455751272964292771, exact).
  { sql: 'SELECT sum(i)::BIGINT AS a FROM t WHERE i > 0' },
  { sql: 'SELECT CAST(sum(i) AS BIGINT) + 1 AS a FROM t WHERE abs(i) < 1000' },
  { sql: 'SELECT CAST(sum(i) AS VARCHAR) AS a FROM t WHERE i > 0' },
  { sql: 'SELECT CAST(sum(i) AS DOUBLE) AS a FROM t WHERE i > 0' },
  { sql: 'SELECT sum(i) / count(*) AS a, avg(i) AS b FROM t WHERE i > 0' },
  { sql: 'SELECT sum(i) + 0.5 AS a FROM t WHERE i > 0' },
  { sql: 'SELECT sign(sum(i)) AS a, greatest(sum(i), 1) AS b, least(sum(i), 1) AS c FROM t WHERE i > 0' },
  { sql: 'SELECT sum(i) > 18446744073709551000 AS a, sum(i) = 18446744073709551613 AS b FROM t WHERE i > 0' },
  { sql: 'SELECT g, sum(i) AS s FROM t GROUP BY g ORDER BY s DESC NULLS LAST, g', ordered: true },
  { sql: 'SELECT sum(i) - 9223372036854775807 * 3 AS a FROM t WHERE i > 0' },
  { sql: 'SELECT coalesce(sum(i), 0) AS a FROM t WHERE i > 0' },
  { sql: 'SELECT CASE WHEN sum(i) > 0 THEN sum(i) ELSE 0 END AS a FROM t WHERE i > 0' },
  { sql: 'SELECT nullif(sum(i), 0) AS a FROM t WHERE i > 0' },
  { sql: 'SELECT sum(i) * 1.0 AS a FROM t WHERE i > 0' },
  { sql: 'SELECT power(sum(i), 2) AS a, sqrt(sum(i)) AS b FROM t WHERE i > 0' },
  { sql: 'SELECT count(*) * 9223372036854775807 AS a FROM t' },
  { sql: 'SELECT count(*) * count(*) AS a FROM t' },
  { sql: 'SELECT sum(DISTINCT i) AS a FROM t' },
  { sql: 'SELECT avg(DISTINCT i) AS a FROM t' },
  { sql: 'SELECT max(i) + 1 AS a FROM t' },
  { sql: 'SELECT min(i) - 1 AS a FROM t' },
  { sql: 'SELECT -min(i) AS a FROM t' },
  { sql: 'SELECT abs(min(i)) AS a FROM t' },
  { sql: 'SELECT min(i) // -1 AS a FROM t' },
  { sql: 'SELECT max(i) * 2 AS a FROM t' },
  { sql: 'SELECT count(*) AS n FROM t ORDER BY sum(i) * 2' },
  { sql: 'SELECT i FROM t ORDER BY i * 2 LIMIT 3', ordered: true },
  { sql: 'SELECT i FROM t WHERE i IS NOT NULL ORDER BY i + 1 DESC LIMIT 3', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY max(i) + 1', ordered: true },
  // division / modulo
  { sql: 'SELECT sum(j) / 0 AS a, count(*) // 0 AS b, sum(j) % 0 AS c, 0 / 0 AS d FROM t' },
  { sql: 'SELECT min(i) // 0 AS a, min(i) % 0 AS b FROM t' },
  { sql: 'SELECT f % -2.5 AS a, -f % 2.5 AS b FROM t' },
  { sql: 'SELECT i % j AS a FROM t' },
  { sql: 'SELECT i // j AS a FROM t WHERE j <> -1' },
  { sql: 'SELECT i // j AS a FROM t' },
  { sql: 'SELECT i % j AS a, j % i AS b FROM t WHERE j = -1' },
  // CASTs
  { sql: 'SELECT CAST(f AS BIGINT) AS v FROM t WHERE abs(f) > 1e300' },
  { sql: "SELECT CAST(f AS BIGINT) AS v FROM t WHERE isnan(f)" },
  { sql: 'SELECT CAST(9223372036854775807.0 AS BIGINT) AS a FROM t LIMIT 1' },
  { sql: 'SELECT CAST(9.223372036854775e18 AS BIGINT) AS a FROM t LIMIT 1' },
  { sql: 'SELECT CAST(-9.223372036854775808e18 AS BIGINT) AS a FROM t LIMIT 1' },
  { sql: 'SELECT CAST(i AS DOUBLE) AS a, CAST(CAST(i AS DOUBLE) AS BIGINT) AS b FROM t WHERE abs(i) < 1000000000' },
  { sql: "SELECT CAST('9223372036854775808' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('-9223372036854775808' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('1e3' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('1e3' AS DOUBLE) AS a, CAST('  -0  ' AS DOUBLE) AS b, CAST('infinity' AS DOUBLE) AS c, CAST('-NaN' AS DOUBLE) AS d FROM t LIMIT 1" },
  { sql: "SELECT CAST('0x8000000000000000' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('0x7fffffffffffffff' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('-0x10' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('1.5e0' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('9223372036854775807.4' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('9223372036854775807.5' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('-9223372036854775808.5' AS BIGINT) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST(1e308 * 10 AS VARCHAR) AS a, CAST(5e-324 AS VARCHAR) AS b, CAST(1e21 AS VARCHAR) AS c, CAST(123456789012345680000 AS VARCHAR) AS d FROM t LIMIT 1" },
  { sql: "SELECT CAST(f AS VARCHAR) AS a FROM t WHERE f = 1e-300 OR f = 1e308" },
  { sql: "SELECT CAST(s AS DOUBLE) AS a FROM t WHERE s = 'ab'" },
  { sql: "SELECT CAST(j AS VARCHAR) || s AS a FROM t" },
  { sql: "SELECT CAST('t' AS BOOLEAN) AS a, CAST('yes' AS BOOLEAN) AS b FROM t LIMIT 1" },
  { sql: "SELECT CAST(' true' AS BOOLEAN) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST(f AS BOOLEAN) AS a FROM t" },
  { sql: "SELECT CAST(ts AS BIGINT) AS a FROM t" },
  { sql: "SELECT CAST(i AS TIMESTAMP) AS a FROM t" },
  { sql: "SELECT CAST('2024-02-30' AS TIMESTAMP) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('294247-01-10 04:00:54.775807' AS TIMESTAMP) AS a FROM t LIMIT 1" },
  { sql: "SELECT CAST('-infinity' AS TIMESTAMP) AS a FROM t LIMIT 1" },
  // LIMIT / OFFSET extremes
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 9223372036854775807 OFFSET 100000', ordered: true },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 9223372036854775807 OFFSET 19', ordered: true },
  { sql: 'SELECT j FROM t ORDER BY j LIMIT 0', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 9223372036854775807 OFFSET 2', ordered: true },
  { sql: 'SELECT count(*) AS n FROM t LIMIT 1 OFFSET 1' },
  { sql: 'SELECT count(*) AS n FROM t LIMIT 0' },
  { sql: 'SELECT DISTINCT g FROM t ORDER BY g NULLS FIRST LIMIT 2 OFFSET 3', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 1 OFFSET 4', ordered: true },
  // unicode identifiers
  { sql: 'SELECT j AS "ñ😀 x", count(*) AS "Σ" FROM t GROUP BY 1 ORDER BY "ñ😀 x" NULLS FIRST', ordered: true },
  // deep nesting
  { sql: `SELECT ${deep(200, 'j + 1')} AS a FROM t` },
  { sql: `SELECT count(*) AS n FROM t WHERE ${deep(200, 'j > 0')}` },
  { sql: `SELECT ${'-'.repeat(50)}j AS a FROM t` },
  { sql: `SELECT ${Array.from({ length: 300 }, () => 'j').join(' + ')} AS a FROM t` },
  { sql: `SELECT count(*) AS n FROM t WHERE ${Array.from({ length: 300 }, (_, k) => `j <> ${k}`).join(' AND ')}` },
  { sql: `SELECT count(*) AS n FROM t WHERE ${'NOT '.repeat(101)}(j > 0)` },
  { sql: `SELECT ${'abs('.repeat(100)}j${')'.repeat(100)} AS a FROM t` },
  { sql: `SELECT ${'CASE WHEN j > 0 THEN '.repeat(60)}1${' ELSE 0 END'.repeat(60)} AS a FROM t` },
  // huge IN
  { sql: `SELECT count(*) AS n FROM t WHERE s IN (${Array.from({ length: 5000 }, (_, k) => `'a${k}'`).join(', ')}, 'abc', '😀')` },
  { sql: `SELECT count(*) AS n FROM t WHERE i NOT IN (${Array.from({ length: 5000 }, (_, k) => k).join(', ')}, NULL)` },
  { sql: `SELECT count(*) AS n FROM t WHERE f IN (${Array.from({ length: 100 }, (_, k) => k / 2).join(', ')}, 1e308)` },
  { sql: `SELECT count(*) AS n FROM t WHERE i IN (${Array.from({ length: 100 }, (_, k) => 9223372036854775707n + BigInt(k)).join(', ')})` },
  { sql: `SELECT count(*) AS n FROM t WHERE j IN (${Array.from({ length: 100 }, (_, k) => k).join(', ')}, 2.5, 3.0)` },
  { sql: `SELECT count(*) AS n FROM t WHERE ts IN (${Array.from({ length: 50 }, (_, k) => `'${1970 + k}-01-01 00:00:00'`).join(', ')})` },
  // LIKE with many % over long strings (a backtracking regular expression took minutes: fixed in src/merge/like.ts)
  { sql: `SELECT count(*) AS n FROM t WHERE lpad(s, 5000, 'a') LIKE '${'%a'.repeat(40)}%b'` },
  // (Not ILIKE, nor `_` between many `%`: DuckDB's own matcher backtracks there, minutes over
  // 5,000 characters; test/like-matcher.test.ts covers canopy's.)
  { sql: `SELECT count(*) AS n FROM t WHERE s LIKE '${'_'.repeat(3)}%'` },
  { sql: `SELECT count(*) AS n FROM t WHERE s LIKE '%%%%%%%%%%%%%%%%%%%%%%%%%%%%%'` },
  { sql: `SELECT count(*) AS n FROM t WHERE s LIKE 'a%' ESCAPE 'a'` },
  { sql: `SELECT count(*) AS n FROM t WHERE s LIKE '%\\' ESCAPE '\\'` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(lpad(s, 3000, 'a'), '(a+)+$')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(lpad(s, 3000, 'a'), '(a|aa)*c')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, '(((((((((((a*)*)*)*)*)*)*)*)*)*)*)b')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, 'a{1000}')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, '.{2}')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, '^\\p{L}+$')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_full_match(s, '.')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, '')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, '\\w')` },
  { sql: `SELECT count(*) AS n FROM t WHERE regexp_matches(s, '\\b')` },
  // GROUP BY many
  { sql: 'SELECT f, i, j, ts, s, g, j % 2 AS a, j % 3 AS b, lower(s) AS c, upper(g) AS d, i // 2 AS e, count(*) AS n FROM t GROUP BY ALL' },
  { sql: 'SELECT count(DISTINCT f) AS a, count(DISTINCT s) AS b, count(DISTINCT ts) AS c, count(DISTINCT i) AS d, count(DISTINCT j % 2) AS e FROM t' },
  { sql: 'SELECT median(i) AS a FROM t' },
  { sql: 'SELECT approx_quantile(f, 0.999999) AS a FROM t', duck: 'SELECT quantile_disc(f, 0.999999) AS a FROM t' },
  { sql: 'SELECT approx_quantile(f, 1e-9) AS a FROM t', duck: 'SELECT quantile_disc(f, 1e-9) AS a FROM t' },
  { sql: 'SELECT median(f) AS a FROM t WHERE f IS NULL' },
  { sql: 'SELECT approx_quantile(j, 0.5) AS a FROM t WHERE j > 100' },
  { sql: 'SELECT g, approx_quantile(j, 0.5) AS a FROM t GROUP BY g', duck: 'SELECT g, quantile_disc(j, 0.5) AS a FROM t GROUP BY g' },
  { sql: 'SELECT approx_quantile(f, 0.3) AS a FROM t WHERE f = 0', duck: 'SELECT quantile_disc(f, 0.3) AS a FROM t WHERE f = 0' },
  { sql: 'SELECT approx_quantile(i, 0.5) + 1 AS a FROM t', duck: 'SELECT quantile_disc(i, 0.5) + 1 AS a FROM t' },
];

/**
 * None left: arithmetic, greatest/least, coalesce and CASE over SUM's int128 were computed as
 * int64 and refused past it; they are int128 now, as DuckDB's HUGEINT (before that they came
 * back typed int64 holding a value outside it).
 */
const GAPS = new Set<string>([]);

describe('adversarial single queries against DuckDB', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(ADVERSARIAL, GAPS);
});
