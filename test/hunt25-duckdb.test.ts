/**
 * Hunt 25: adversarial queries against DuckDB through the differential harness
 * (test/helpers/differential.ts: 9 trees, sorted splits, batches of 3 rows, failing shards;
 * exact must equal DuckDB, bounded must hold it, a refusal must be a clear 4xx, and where
 * DuckDB refuses canopy must refuse too), aimed first at last session's code: leaf strings
 * computed once per distinct value, the extract(hour) kernel, escape strings, lateral aliases,
 * result names, narrow integer casts.
 *
 * Defects found (each a failing test, then its fix):
 * - A NaN whose sign bit is set (inf * 0, inf - inf, 0 / 0 on x86, -'nan'::DOUBLE, and
 *   '-nan'::DOUBLE and a CSV cell '-nan', both read as +NaN) cast to VARCHAR was 'nan' where DuckDB prints '-nan': `SELECT (f * 0)::VARCHAR AS k, count(*) ...
 *   GROUP BY k` merged DuckDB's 'nan' and '-nan' groups into one, labelled exact (and its bounded
 *   counts under a failing shard did not hold DuckDB's).
 * - A string literal compared with a cast to a narrower integer was read as BIGINT:
 *   `WHERE j::TINYINT = '300'` answered 0 rows, labelled exact, where DuckDB casts '300' to
 *   TINYINT and refuses it (so for SMALLINT, INTEGER and the unsigned types; IN, BETWEEN, a
 *   simple CASE).
 * - Integer arithmetic DuckDB computes in INTEGER or a narrower type was computed as BIGINT and
 *   answered past that type, labelled exact, where DuckDB raises its overflow error:
 *   `SELECT 2147483647 + 1` (two INTEGER literals), `1000000 * 1000000`, `100::TINYINT * 2`,
 *   `j::TINYINT * 100`, `ascii(s) * 100000000`, `max(j::SMALLINT) * 10000`, `(-128)::TINYINT //
 *   -1` (README said so: "arithmetic on the result is BIGINT arithmetic"). Now checked in
 *   DuckDB's width, as its binder types it.
 * - GROUP BY naming a SELECT item that reads a lateral alias (`SELECT j % 3 AS k, k AS m,
 *   count(*) FROM t GROUP BY m`, or `GROUP BY k, m`) was answered, labelled exact, where DuckDB
 *   refuses it ("aliases cannot be used as part of an expression in the GROUP BY").
 * - abs of a TINYINT / SMALLINT / INTEGER keeps that type in DuckDB: `abs((-128)::TINYINT)`
 *   answered 128, labelled exact, where DuckDB raises "Overflow on abs(-128)"; so with the
 *   other functions DuckDB types narrow: `sign(j) + 127`, `bit_count(j) + 127` (TINYINT),
 *   `coalesce(j::TINYINT, 0) + 100`, `CASE WHEN j > 0 THEN j::TINYINT ELSE 2 END * 100`.
 * - `-3::VARCHAR`, `-1.5::VARCHAR`, `-1::BOOLEAN` were read as casts of the negative literal
 *   (the grammar's reading), answering '-3', '-1.5', TRUE labelled exact, where DuckDB binds
 *   `::` tighter than the minus and refuses -(VARCHAR) / -(BOOLEAN).
 * - An expression over decimal literals and integers cast to an integer rounded its DOUBLE
 *   half to even: `(j * 1.5)::BIGINT` was 4 for j = 3, `greatest(0, 2.5)::BIGINT` 2, labelled
 *   exact, where DuckDB computes DECIMAL and rounds half away from zero (5, 3). (Found by a
 *   random-expression fuzz; decimal arithmetic in DOUBLE can still differ in the last digit,
 *   as README says of decimal literals.)
 *
 * Found and not fixed (see the report of this hunt):
 * - DuckDB's optimizer folds `WHERE j::TINYINT * 20 > 100` into `j > 5`, so it never computes
 *   the TINYINT product that overflows; canopy now refuses that WHERE (overflow) where DuckDB answers.
 * - DuckDB's substr over a constant string (or a constant vector of its storage) clamps the
 *   start before a negative length, its flat path does not: substr('A%', -3, 1) is 'A' but
 *   substr(y, -3, 1) with y = 'A%' is '' (canopy: ''); an answer over a column depends on how
 *   DuckDB stored it. Queries comparing the two are left out here.
 * - Result names of unaliased expressions follow the query text (`j + 1`), not DuckDB's
 *   (`(j + 1)`, `CAST(j AS "DOUBLE")`, `"first"(j)`): a documented choice (README).
 * - A decimal literal's arithmetic stays DOUBLE (README): `2.5 % 0` is NaN where DuckDB's
 *   DECIMAL gives NULL; `(j * 0.7)::BIGINT` may still round from 3.4999999999999996.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fromCanopy } from './helpers/compare.ts';
import { closeDifferential, differentialTests, duckResult, setupDifferential, valueDiff, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { preparedInProcessTree } from './helpers/prepared-tree.ts';
import { answerBody } from './helpers/tree.ts';

const CASES: Q[] = [
  // computed strings at the leaf
  { sql: 'SELECT f::VARCHAR AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT i::VARCHAR AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT j::VARCHAR AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT ts::VARCHAR AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: "SELECT strftime(ts, '%Y-%m') AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: 'SELECT dayname(ts) AS k, monthname(ts) AS m, count(*) AS n FROM t GROUP BY ALL' },
  { sql: "SELECT s || '-' || g AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT concat(s, g) AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT concat_ws('/', s, g) AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT replace(s, g, 'X') AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT upper(s) AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT lower(g) AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT count(DISTINCT s || g) AS d, min(s || g) AS lo, max(s || g) AS hi FROM t" },
  { sql: "SELECT count(DISTINCT f::VARCHAR) AS d, min(f::VARCHAR) AS lo, max(f::VARCHAR) AS hi FROM t" },
  { sql: "SELECT g, min(f::VARCHAR) AS lo, max(i::VARCHAR) AS hi FROM t GROUP BY g" },
  { sql: "SELECT s || g AS k, count(*) AS n FROM t WHERE s || g <> '' GROUP BY k HAVING count(*) >= 1" },
  { sql: "SELECT f::VARCHAR AS k FROM t WHERE f::VARCHAR LIKE '%0%'" },
  { sql: "SELECT f::VARCHAR AS k, count(*) FROM t GROUP BY k HAVING k LIKE '-%'" },
  { sql: "SELECT strftime(ts, '%Y') AS y, count(*) FROM t WHERE strftime(ts, '%Y') < '2000' GROUP BY y" },
  { sql: "SELECT strftime(ts, '%d/%m/%Y') AS y, count(*) FROM t GROUP BY y" },
  { sql: "SELECT strftime(ts, '%Y-%m') AS y, g, count(*) FROM t GROUP BY y, g" },
  { sql: "SELECT g || s AS k, upper(g || s) AS u FROM t" },
  { sql: "SELECT length(s || g) AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT s < g AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT s = g AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT coalesce(s, g) AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT coalesce(g, 'none') || s AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (f * 0)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (-f)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (f / 0)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (j / 2)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (j // 2)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (j::DOUBLE)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT i::DOUBLE::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (i::DOUBLE)::BIGINT AS k FROM t" },
  { sql: "SELECT date_trunc('month', ts)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT (j > 0)::VARCHAR AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT j::VARCHAR || s AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT left(s, 1) || right(g, 1) AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT s || g AS k, count(*) FROM t GROUP BY ROLLUP (k)" },
  { sql: "SELECT g, s, count(*) FROM t GROUP BY CUBE (g, s)" },
  // extract hour
  { sql: 'SELECT extract(hour FROM ts) AS h, count(*) AS n FROM t GROUP BY h' },
  { sql: "SELECT date_part('hour', ts) AS h, g, count(*) AS n FROM t GROUP BY h, g" },
  { sql: 'SELECT count(*) AS n FROM t WHERE extract(hour FROM ts) = 23' },
  { sql: 'SELECT count(*) AS n FROM t WHERE hour(ts) = 0' },
  { sql: 'SELECT hour(ts) AS h, minute(ts) AS m, second(ts) AS s2, count(*) FROM t GROUP BY ALL' },
  { sql: 'SELECT extract(hour FROM ts) AS h, sum(j) FROM t WHERE ts IS NOT NULL GROUP BY h' },
  { sql: 'SELECT extract(minute FROM ts) AS h, count(*) FROM t GROUP BY h' },
  { sql: 'SELECT extract(microsecond FROM ts) AS h, count(*) FROM t GROUP BY h' },
  { sql: 'SELECT extract(millisecond FROM ts) AS h, count(*) FROM t GROUP BY h' },
  { sql: 'SELECT extract(dow FROM ts) AS h, extract(isodow FROM ts) AS h2, count(*) FROM t GROUP BY ALL' },
  // E strings
  { sql: "SELECT count(*) FROM t WHERE s LIKE E'a\\\\%' ESCAPE '\\'" },
  { sql: "SELECT count(*) FROM t WHERE s IN (E'it\\'s', E'x\\\\y', 'z')" },
  { sql: "SELECT E'a\\tb' AS x, $$E'q'$$ AS y, E'\\101\\x42' AS z, length(E'\\n') AS n FROM t LIMIT 1" },
  { sql: "SELECT E'a' || /* E'x' */ 'b' AS x, e'\\x41' -- E'\n AS y FROM t WHERE s = E'\\'' OR s = E'it\\'s'" },
  // lateral aliases
  { sql: 'SELECT j + 1 AS j, j * 2 AS k FROM t' },
  { sql: 'SELECT j * 2 AS k, k + 1 AS m FROM t' },
  { sql: 'SELECT j * 2 AS k, count(*) FROM t GROUP BY k HAVING k > 0' },
  { sql: 'SELECT j * 2 AS k, k + 1 AS m FROM t ORDER BY m' , ordered: false },
  { sql: 'SELECT sum(j) AS sj, sj * 2 AS d FROM t' },
  { sql: 'SELECT g AS s, s FROM t' },
  { sql: 'SELECT g, count(*) AS c, c + 1 AS d FROM t GROUP BY g' },
  // naming
  { sql: 'SELECT j + 1, j::VARCHAR, CAST(j AS DOUBLE), 1, \'a\', count(*) FROM t GROUP BY j' },
  { sql: 'SELECT sum(j), sum(j), avg(f) FROM t' },
  { sql: 'SELECT NULL, TRUE, 1.5, -1, j - -1 FROM t' },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE = 'a'" },
  { sql: "SELECT s FROM t ORDER BY s COLLATE NOCASE, s LIMIT 5", ordered: true },
  { sql: "SELECT strptime('2024-01-01 10:00 +0200', '%Y-%m-%d %H:%M %z') AS x FROM t LIMIT 1" },
  { sql: "SELECT (-f)::VARCHAR || 'x' AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT concat(f * 0, '') AS k, count(*) FROM t GROUP BY k" },
  { sql: "SELECT printf('%s', f - f) AS k FROM t" },
  { sql: "SELECT regexp_matches(s, g) AS x FROM t" },
  { sql: "SELECT count(*) FROM t WHERE j::BOOLEAN" },
  { sql: "SELECT count(*) FROM t WHERE 'true'" },
  { sql: "SELECT j::UTINYINT AS x FROM t WHERE j >= 0" },
  { sql: "SELECT j::UINTEGER AS x FROM t" },
  { sql: "SELECT i::UBIGINT AS x FROM t WHERE i >= 0" },
  { sql: "SELECT j FROM t ORDER BY j LIMIT 2.5", ordered: false },
  { sql: "SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 2.4", ordered: true },
  // scalar function edges over the edge table
  { sql: "SELECT s, length(s) AS a, reverse(s) AS b, left(s, -1) AS c, right(s, -1) AS d, substr(s, -2, 5) AS e FROM t" },
  { sql: "SELECT s, lpad(s, 3, '😀') AS a, rpad(s, 4, 'xy') AS b, repeat(s, 2) AS c, strpos(s, 'b') AS d, position('a' IN s) AS e FROM t" },
  { sql: "SELECT s, split_part(s, 'a', 2) AS a, split_part(s, '', 1) AS b, split_part(s, 'a', -1) AS c, translate(s, 'a%', 'X') AS d FROM t" },
  { sql: "SELECT s, ascii(s) AS a, unicode(s) AS b, instr(s, '') AS c, contains(s, '') AS d, starts_with(s, '') AS e FROM t" },
  { sql: "SELECT s, trim(s) AS a, ltrim(s, ' p') AS b, rtrim(s, 'd ') AS c, trim(s, '') AS d FROM t" },
  { sql: "SELECT s, upper(s) AS a, lower(s) AS b, strip_accents(s) AS c, nfc_normalize(s) AS d FROM t" },
  { sql: "SELECT s, substring(s, 2) AS a, substring(s, 0, 2) AS b, substring(s FROM 2 FOR 1) AS c, s[1] AS d, s[-1:] AS e FROM t" },
  { sql: "SELECT s, md5(s) AS a, sha1(s) AS b, hex(s) AS c, to_base(j * j, 2) AS d FROM t WHERE j IS NOT NULL" },
  { sql: "SELECT s, s[2:3] AS a, array_slice(s, -3, -1) AS b, string_slice(s, 0, 0) AS c FROM t" },
  { sql: "SELECT s, levenshtein(s, g) AS a, hamming(s, s) AS b, jaccard(s, 'abc') AS c, damerau_levenshtein(s, 'ba') AS d FROM t WHERE g IS NOT NULL" },
  { sql: "SELECT f, round(f) AS a, round(f, 1) AS b, round(f, -1) AS c, trunc(f) AS d, ceil(f) AS e, floor(f) AS g2 FROM t" },
  { sql: "SELECT f, sign(f) AS a, abs(f) AS b, sqrt(abs(f)) AS c, cbrt(f) AS d, exp(f / 1e308) AS e FROM t" },
  { sql: "SELECT j, round(j, -1) AS a, j % -3 AS b, -j // 4 AS c, gcd(j, 4) AS d, lcm(j, 3) AS e, factorial(abs(j)) AS h FROM t" },
  { sql: "SELECT i, i + 0 AS a, i // 1 AS b, abs(i) AS c FROM t WHERE i > -9223372036854775808 AND i < 9223372036854775807" },
  { sql: "SELECT i, i::DOUBLE AS a, i::VARCHAR AS b, i % 7 AS c, i // 7 AS d FROM t" },
  { sql: "SELECT i, i - 1 AS a FROM t WHERE i > -9223372036854775807" },
  { sql: "SELECT g, sum(i) AS a, avg(i) AS b, max(i) - min(i) AS c FROM t GROUP BY g" },
  { sql: "SELECT ts, date_diff('day', ts, TIMESTAMP '1970-01-01') AS a, date_diff('month', ts, TIMESTAMP '2000-01-01') AS b, date_diff('year', TIMESTAMP '1969-12-31 23:59:59', ts) AS c FROM t" },
  { sql: "SELECT ts, date_sub('hour', ts, TIMESTAMP '1970-01-01') AS a, date_sub('week', TIMESTAMP '1969-01-01', ts) AS b, datediff('quarter', ts, TIMESTAMP '2024-04-01') AS c FROM t" },
  { sql: "SELECT ts, date_trunc('week', ts) AS a, date_trunc('quarter', ts) AS b, date_trunc('decade', ts) AS c, date_trunc('millennium', ts) AS d FROM t" },
  { sql: "SELECT ts, extract(week FROM ts) AS a, extract(isoyear FROM ts) AS b, extract(doy FROM ts) AS c, extract(quarter FROM ts) AS d, yearweek(ts) AS e, extract(era FROM ts) AS h FROM t" },
  { sql: "SELECT ts, extract(julian FROM ts) AS a, extract(epoch FROM ts) AS b, epoch_us(ts) AS c, epoch_ms(ts) AS d, extract(century FROM ts) AS e, extract(millennium FROM ts) AS h FROM t" },
  { sql: "SELECT ts, strftime(ts, '%c|%x|%X|%f|%g|%j|%U|%W|%p|%I') AS a FROM t" },
  { sql: "SELECT ts, strftime(ts, '%-y %-j %-H %-I %-M %-S %e %n %t') AS a FROM t" },
  { sql: "SELECT time_bucket(INTERVAL '1 week', ts) AS a, time_bucket(INTERVAL '3 hours', ts, TIMESTAMP '1969-12-31 22:00:00') AS b FROM t" },
  { sql: "SELECT time_bucket(INTERVAL '1 month', ts) AS a, time_bucket(INTERVAL '2 months', ts, INTERVAL '1 day') AS b FROM t" },
  { sql: "SELECT f::VARCHAR AS a, (f / 3)::VARCHAR AS b, (f * 1e15)::VARCHAR AS c, (j / 7)::VARCHAR AS d FROM t" },
  { sql: "SELECT CAST(f AS BIGINT) AS a FROM t WHERE abs(f) < 1e18" },
  { sql: "SELECT f::INTEGER AS a FROM t WHERE abs(f) < 100" },
  { sql: "SELECT TRY_CAST(f AS BIGINT) AS a, TRY_CAST(s AS DOUBLE) AS b, TRY_CAST(s AS TIMESTAMP) AS c FROM t" },
  { sql: "SELECT TRY_CAST(i AS INTEGER) AS a, TRY_CAST(i AS UTINYINT) AS b, TRY_CAST(f AS SMALLINT) AS c FROM t" },
  { sql: "SELECT f, f = 0 AS a, f < 'inf' AS b, f > 'nan' AS c, f = 'NaN' AS d FROM t" },
  { sql: "SELECT f, count(*) FROM t GROUP BY f ORDER BY f NULLS FIRST", ordered: true },
  { sql: "SELECT f FROM t ORDER BY f DESC LIMIT 5", ordered: true },
  { sql: "SELECT s FROM t ORDER BY s DESC NULLS LAST LIMIT 6", ordered: true },
  { sql: "SELECT greatest(f, 0) AS a, least(f, 0) AS b, greatest(s, g) AS c, least(ts, TIMESTAMP '2000-01-01') AS d FROM t" },
  { sql: "SELECT max(f) AS a, min(f) AS b, max(s) AS c, min(s) AS d, arg_max(j, f) AS e FROM t" },
  { sql: "SELECT g, max(f) AS a, min(f) AS b, sum(f) AS c FROM t GROUP BY g" },
  { sql: "SELECT count(DISTINCT f) AS a, count(DISTINCT s) AS b, count(DISTINCT g) AS c, count(DISTINCT ts) AS d FROM t" },
  { sql: "SELECT g, count(DISTINCT f) AS a FROM t GROUP BY g" },
  { sql: "SELECT bit_count(j) AS a, j & 3 AS b, j | 8 AS c, xor(j, 5) AS d, ~j AS e, j << 2 AS h, j >> 1 AS k FROM t" },
  { sql: "SELECT i << 1 AS a FROM t WHERE i BETWEEN -100 AND 100" },
  { sql: "SELECT 1 << j AS a FROM t WHERE j BETWEEN 0 AND 62" },
  // Integer arithmetic DuckDB computes narrower than BIGINT overflows there (each refused as DuckDB refuses it, or answered alike).
  { sql: 'SELECT 2147483647 + 1 AS x FROM t' },
  { sql: 'SELECT 1000000 * 1000000 AS x FROM t' },
  { sql: 'SELECT 46341 * 46341 AS x FROM t' },
  { sql: 'SELECT -2147483647 - 1 AS x, -2147483648 - 1 AS y, 2147483648 + 1 AS z, 2147483647 + 1::BIGINT AS w FROM t' },
  { sql: 'SELECT 1::TINYINT + 127::TINYINT AS x FROM t' },
  { sql: 'SELECT 100::TINYINT * 2 AS x FROM t' },
  { sql: 'SELECT 127::TINYINT + 128 AS x, 1::TINYINT * 1000 AS y, (1::TINYINT + 1) * 200 AS z FROM t' },
  { sql: 'SELECT (-128)::TINYINT // -1 AS x FROM t' },
  { sql: 'SELECT -((-128)::TINYINT) AS x FROM t' },
  { sql: 'SELECT (-128)::TINYINT * -1 AS x FROM t' },
  { sql: 'SELECT 20::TINYINT * 20::TINYINT // 100 AS x FROM t' },
  { sql: 'SELECT j::TINYINT * 100 AS x FROM t' },
  { sql: 'SELECT j::TINYINT * 10 AS x, -(j::TINYINT) AS y, j::TINYINT % 3 AS z, j::TINYINT // 2 AS w FROM t' },
  { sql: 'SELECT j::SMALLINT * 10000 AS x FROM t' },
  { sql: 'SELECT j::SMALLINT * 1000 AS x, j::SMALLINT + 1::INTEGER AS y FROM t' },
  { sql: 'SELECT j::INTEGER * 1000000000 AS x FROM t' },
  { sql: 'SELECT j::INTEGER * 100000000 AS x FROM t' },
  { sql: 'SELECT j::INTEGER + 2147483647 AS x FROM t' },
  { sql: 'SELECT 2147483647 + j AS x, j * 2147483647 AS y, length(s) * 2147483647 AS z FROM t' },
  { sql: 'SELECT ascii(s) * 100000000 AS x FROM t' },
  { sql: 'SELECT ascii(s) * 1000 AS x, unicode(s) + 1 AS y FROM t' },
  { sql: 'SELECT max(j::TINYINT) * 100 AS x FROM t' },
  { sql: 'SELECT g, max(j::SMALLINT) * 10000 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, min(j::SMALLINT) * 1000 AS x, count(*) * 2147483647 AS y FROM t GROUP BY g' },
  { sql: 'SELECT count(*) FROM t WHERE j::TINYINT * 2 > 10' },
  { sql: 'SELECT CASE WHEN j > 100 THEN j::TINYINT * 100 END AS x FROM t' },
  { sql: 'SELECT j::TINYINT + 0.5 AS x, j::TINYINT * 1.5e3 AS y, j::TINYINT / 0 AS z FROM t' },
  { sql: 'SELECT j + 1 AS j, j + 1 AS k FROM t WHERE j = 1' },
  { sql: 'SELECT j * 2 AS k, k * 2 AS m FROM t GROUP BY k' },
  { sql: "SELECT j * 2 AS s, s || 'x' AS m FROM t" },
  { sql: 'SELECT count(*) AS c, c * 2 AS d FROM t GROUP BY g HAVING d > 4' },
  { sql: 'SELECT j % 3 AS k, k + 1 AS m, count(*) FROM t GROUP BY k, m' },
  { sql: 'SELECT j % 3 AS k, k + 1 AS m, count(*) FROM t GROUP BY ALL' },
  { sql: 'SELECT sum(j) AS total, total / count(*) AS mean FROM t' },
  { sql: 'SELECT * FROM (SELECT j * 2 AS k, k + 1 AS m FROM t) WHERE m > 3' },
  { sql: 'SELECT g AS k, count(*) AS n FROM t GROUP BY k ORDER BY k NULLS FIRST', ordered: true },
  { sql: 'SELECT f AS i, i + 1 AS x FROM t' },
  { sql: 'SELECT j AS k, max(k) AS m FROM t GROUP BY j' },
  { sql: "SELECT E'\\x' AS a, E'\\xZZ' AS b, e'\\101' || E'\\7' AS c FROM t" },
  { sql: "SELECT j AS E FROM t WHERE E'x' = 'x'" },
  { sql: 'SELECT abs((-128)::TINYINT) AS x FROM t' },
  { sql: 'SELECT abs(j::TINYINT) AS x, abs(j::SMALLINT) AS y FROM t' },
  { sql: 'SELECT abs((-2147483648)::INTEGER) AS x FROM t' },
  { sql: 'SELECT j % 3 AS k, k AS m, count(*) FROM t GROUP BY m' },
  { sql: 'SELECT j % 3 AS k, k + 1 AS m FROM t GROUP BY 2' },
  { sql: 'SELECT j % 3 AS k, k + 1 AS m FROM t GROUP BY ROLLUP (m)' },
  { sql: 'SELECT j % 3 AS k, k + 1 AS m, count(*) AS c FROM t GROUP BY k HAVING m > 0' },
  { sql: 'SELECT j % 3 AS k, k + 1 AS m, count(*) AS c FROM t GROUP BY k ORDER BY m NULLS FIRST', ordered: true },
  { sql: 'SELECT j % 3 AS k, count(*) AS c FROM t GROUP BY k + 1' },
  // per-row regular expressions, implicit BOOLEAN casts, COLLATE, decimal LIMIT
  { sql: "SELECT s, regexp_matches(s, CASE WHEN j > 100 THEN '(' ELSE 'a' END) AS a FROM t" },
  { sql: "SELECT s, regexp_matches(s, CASE WHEN j > 0 THEN '(' ELSE 'a' END) AS a FROM t" },
  { sql: "SELECT count(*) FROM t WHERE j" },
  { sql: "SELECT count(*) FROM t WHERE NOT j" },
  { sql: "SELECT count(*) FROM t WHERE f" },
  { sql: "SELECT count(*) FROM t WHERE j AND f" },
  { sql: "SELECT j::BOOLEAN AS a, f::BOOLEAN AS b, (j OR FALSE) AS c FROM t" },
  { sql: "SELECT CASE WHEN j THEN 1 ELSE 0 END AS a, CASE WHEN f THEN 'y' END AS b FROM t" },
  { sql: "SELECT count(*) FROM t WHERE s" },
  { sql: "SELECT count(*) FROM t WHERE g IN ('true', 'false') AND g::BOOLEAN" },
  { sql: "SELECT count(*) FILTER (WHERE j) AS a, sum(j) FILTER (WHERE f) AS b FROM t" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOACCENT = 'e'" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE = 'abc'" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE.NOACCENT = 'ecole'" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE < 'B'" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE IN ('z', 'A')" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE BETWEEN 'a' AND 'b'" },
  { sql: "SELECT count(*) FROM t WHERE s COLLATE NOCASE IS DISTINCT FROM 'A'" },
  { sql: "SELECT count(*) FROM t WHERE s = g COLLATE NOCASE" },
  { sql: "SELECT s FROM t ORDER BY s COLLATE NOCASE DESC, s LIMIT 4", ordered: true },
  { sql: "SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g COLLATE NOCASE NULLS FIRST, g", ordered: true },
  { sql: "SELECT j FROM t ORDER BY j LIMIT 0.4" },
  { sql: "SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 1e1", ordered: true },
  { sql: "SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 3 OFFSET 1.5", ordered: true },
  { sql: "SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 2.5 OFFSET 2", ordered: true },
  { sql: "SELECT count(*) FROM t WHERE ts >= '2024-01-01 05:30:00+05:30'::TIMESTAMPTZ" },
  { sql: "SELECT count(*) FROM t WHERE ts < '1970-01-01 01:00:00+01'::TIMESTAMPTZ" },
  { sql: "SELECT count(*) FROM t WHERE ts = strptime('1970-01-01 02:00:00 +0200', '%Y-%m-%d %H:%M:%S %z')" },
  { sql: "SELECT strptime('2024-01-01 10:00 -0130', '%Y-%m-%d %H:%M %z') AS a, strptime('2024-01-01 10:00 +00', '%Y-%m-%d %H:%M %z') AS b FROM t" },
  { sql: "SELECT try_strptime(s, '%Y') AS a FROM t" },
  { sql: "SELECT count(*) FROM t WHERE f = '1e400'" },
  { sql: "SELECT count(*) FROM t WHERE f < '-1e309'" },
  { sql: "SELECT count(*) FROM t WHERE f = ' inf '" },
  { sql: "SELECT count(*) FROM t WHERE f = '-nan'" },
  { sql: "SELECT count(*) FROM t WHERE f = 'infinity'" },
  { sql: "SELECT count(*) FROM t WHERE f = '0x10'" },
  { sql: "SELECT count(*) FROM t WHERE f IN ('1.5', '1_0')" },
  { sql: "SELECT count(*) FROM t WHERE ts = '2024-13-01'" },
  { sql: "SELECT count(*) FROM t WHERE ts = '2024-02-30'" },
  { sql: "SELECT count(*) FROM t WHERE ts < '2024-01-01T10:00'" },
  { sql: "SELECT count(*) FROM t WHERE ts < '20240101'" },
  { sql: "SELECT count(*) FROM t WHERE ts IN ('2024-01-01', '1970-01-01 00:00:00.000001')" },
  { sql: "SELECT count(*) FROM t WHERE (j > 0) = 'yes'" },
  { sql: "SELECT count(*) FROM t WHERE (j > 0) = 'maybe'" },
  { sql: "SELECT count(*) FROM t WHERE (j > 0) IN ('t', 'f')" },
  { sql: "SELECT count(*) FROM t WHERE s = 1" },
  { sql: "SELECT count(*) FROM t WHERE g < 5" },
  { sql: "SELECT count(*) FROM t WHERE j = '+3'" },
  { sql: "SELECT count(*) FROM t WHERE j = '3.'" },
  { sql: "SELECT count(*) FROM t WHERE j = '.5e1'" },
  { sql: "SELECT count(*) FROM t WHERE j = '0b11'" },
  { sql: "SELECT count(*) FROM t WHERE j = '1e2000'" },
  { sql: "SELECT count(*) FROM t WHERE i = '9223372036854775807.4'" },
  { sql: "SELECT count(*) FROM t WHERE i > '-9223372036854775808.6'" },
  { sql: "SELECT count(*) FROM t WHERE j::SMALLINT = '32767.5'" },
  { sql: "SELECT count(*) FROM t WHERE j::UTINYINT = '255.4'" },
  { sql: "SELECT '1' = 1 AS a, '1.5' = 1 AS b, 1 = '01' AS c, 'a' < 'b' AS d FROM t LIMIT 1" },
  { sql: "SELECT '1.5' = 1 AS b FROM t" },
  { sql: "SELECT TRUE = 't' AS a, 'yes' = FALSE AS b FROM t" },
  { sql: "SELECT j, (j > 0) = 'yes' AS a, (j > 0) <> 'F' AS b, (j > 0) IS DISTINCT FROM 'false' AS c, CASE j > 0 WHEN 'TRUE' THEN 1 END AS d FROM t" },
  { sql: "SELECT count(*) FROM t WHERE (j > 0) = ' true'" },
  { sql: "SELECT count(*) FROM t WHERE (j > 0) = '1'" },
  { sql: "SELECT count(*) FROM t WHERE (j > 0) = ''" },
  { sql: "SELECT count(*) FROM t WHERE (s LIKE 'a%') IN ('y', 'n')" },
  // group top-k truncated at every node (shard_size), with NaN, NULL keys and ties
  { sql: "SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, sum(f) AS sf FROM t GROUP BY g ORDER BY sf DESC NULLS LAST LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, sum(f) AS sf FROM t GROUP BY g ORDER BY sf DESC NULLS LAST LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, sum(f) AS sf FROM t GROUP BY g ORDER BY sf ASC NULLS FIRST LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, sum(f) AS sf FROM t GROUP BY g ORDER BY sf ASC NULLS FIRST LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, avg(j) AS a FROM t GROUP BY g ORDER BY a DESC LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, avg(j) AS a FROM t GROUP BY g ORDER BY a DESC LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, max(s) AS m FROM t GROUP BY g ORDER BY m DESC NULLS LAST LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, max(s) AS m FROM t GROUP BY g ORDER BY m DESC NULLS LAST LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, min(ts) AS m FROM t GROUP BY g ORDER BY m LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, min(ts) AS m FROM t GROUP BY g ORDER BY m LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT s, count(*) AS n, sum(j) AS sj FROM t GROUP BY s ORDER BY sj DESC NULLS LAST, s LIMIT 3", shardSize: 1 },
  { sql: "SELECT s, count(*) AS n, sum(j) AS sj FROM t GROUP BY s ORDER BY sj DESC NULLS LAST, s LIMIT 3 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT s, sum(i) AS si FROM t GROUP BY s ORDER BY si LIMIT 3", shardSize: 1 },
  { sql: "SELECT s, sum(i) AS si FROM t GROUP BY s ORDER BY si LIMIT 3 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT j % 3 AS k, count(DISTINCT g) AS d FROM t GROUP BY k ORDER BY d DESC, k LIMIT 2", shardSize: 1 },
  { sql: "SELECT j % 3 AS k, count(DISTINCT g) AS d FROM t GROUP BY k ORDER BY d DESC, k LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, max(f) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 1", shardSize: 1 },
  { sql: "SELECT g, max(f) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 1 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, min(f) AS m FROM t GROUP BY g ORDER BY m LIMIT 1", shardSize: 1 },
  { sql: "SELECT g, min(f) AS m FROM t GROUP BY g ORDER BY m LIMIT 1 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, count(f) AS c, sum(f) AS s2 FROM t GROUP BY g ORDER BY c DESC, g NULLS FIRST LIMIT 3", shardSize: 1 },
  { sql: "SELECT g, count(f) AS c, sum(f) AS s2 FROM t GROUP BY g ORDER BY c DESC, g NULLS FIRST LIMIT 3 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT j, count(*) AS n FROM t GROUP BY j ORDER BY n DESC, j LIMIT 4", shardSize: 1 },
  { sql: "SELECT j, count(*) AS n FROM t GROUP BY j ORDER BY n DESC, j LIMIT 4 -- shard_size 2", shardSize: 2 },
  { sql: "SELECT g, sum(j) AS sj FROM t GROUP BY g HAVING sum(j) > 0 ORDER BY sj DESC LIMIT 2", shardSize: 1 },
  { sql: "SELECT g, sum(j) AS sj FROM t GROUP BY g HAVING sum(j) > 0 ORDER BY sj DESC LIMIT 2 -- shard_size 2", shardSize: 2 },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 2 -- exact -- exact', shardSize: 1, exact: true },
  { sql: 'SELECT g, sum(f) AS sf FROM t GROUP BY g ORDER BY sf DESC NULLS LAST LIMIT 2 -- exact -- exact', shardSize: 1, exact: true },
  { sql: 'SELECT g, sum(f) AS sf FROM t GROUP BY g ORDER BY sf ASC NULLS FIRST LIMIT 2 -- exact -- exact', shardSize: 1, exact: true },
  { sql: 'SELECT g, avg(j) AS a FROM t GROUP BY g ORDER BY a DESC LIMIT 2 -- exact -- exact', shardSize: 1, exact: true },
  { sql: 'SELECT g, max(s) AS m FROM t GROUP BY g ORDER BY m DESC NULLS LAST LIMIT 2 -- exact -- exact', shardSize: 1, exact: true },
  { sql: 'SELECT g, min(ts) AS m FROM t GROUP BY g ORDER BY m LIMIT 2 -- exact -- exact', shardSize: 1, exact: true },
  { sql: "SELECT '-nan'::DOUBLE::VARCHAR AS a, (-('nan'::DOUBLE))::VARCHAR AS b, abs(-('nan'::DOUBLE))::VARCHAR AS c, ('nan'::DOUBLE * -1)::VARCHAR AS d FROM t" },
  { sql: "SELECT (f - f)::VARCHAR AS a, (f % 0)::VARCHAR AS d, fmod(f, 0)::VARCHAR AS e FROM t" },
  { sql: "SELECT string_agg(s, ',' ORDER BY j DESC NULLS LAST, s) AS a FROM t" },
  { sql: "SELECT greatest(f * 0, 1)::VARCHAR AS a, least(f * 0, 1)::VARCHAR AS b FROM t" },
  { sql: "SELECT round(f * 0, 1)::VARCHAR AS a, floor(f * 0)::VARCHAR AS b, trunc(f * 0)::VARCHAR AS c FROM t" },
  { sql: "SELECT (f * 0) || '' AS a, concat(f * 0) AS b, printf('%s', f * 0) AS d FROM t" },
  { sql: 'SELECT sign(j) + 127 AS x FROM t' },
  { sql: 'SELECT sign(f) * 100 AS x, sign(j) * 200 AS y, sign(j) + 126 AS z FROM t' },
  { sql: 'SELECT bit_count(j) + 127 AS x FROM t' },
  { sql: 'SELECT bit_count(j) + 100 AS x, ord(s) * 1000 AS y FROM t' },
  { sql: 'SELECT coalesce(j::TINYINT, 0) + 100 AS x FROM t' },
  { sql: 'SELECT coalesce(j::TINYINT, 0) + 120 AS x, greatest(j::TINYINT, 2) * 12 AS y, least(j::SMALLINT, 1) * 1000 AS z FROM t' },
  { sql: 'SELECT CASE WHEN j > 0 THEN j::TINYINT ELSE 2 END * 100 AS x FROM t' },
  { sql: 'SELECT CASE WHEN j > 0 THEN j::TINYINT ELSE 2 END * 10 AS x, CASE WHEN j > 0 THEN j::TINYINT END + 100 AS y FROM t' },
  { sql: 'SELECT coalesce(2147483647, j) + 1 AS x FROM t' },
  { sql: 'SELECT nullif(j::TINYINT, 3) * 20 AS x FROM t' },
  { sql: 'SELECT round(j::TINYINT) * 100 AS x FROM t' },
  // expressions over aggregates: bounded cells must hold DuckDB's value under failing shards
  { sql: "SELECT g, -sum(j) AS a, sum(j) * -2 AS b, abs(sum(j)) AS c, sum(j) % 3 AS d FROM t GROUP BY g" },
  { sql: "SELECT g, max(j) - min(j) AS a, min(j) - max(j) AS b, max(j) * min(j) AS c FROM t GROUP BY g" },
  { sql: "SELECT g, sum(j) / count(*) AS a, sum(j) // 2 AS b, count(*) - count(j) AS c FROM t GROUP BY g" },
  { sql: "SELECT g, round(avg(f), 1) AS a, floor(avg(j)) AS b, ceil(sum(f)) AS c FROM t GROUP BY g" },
  { sql: "SELECT g, CASE WHEN sum(j) > 0 THEN 'pos' ELSE 'neg' END AS a, coalesce(max(j), 0) AS b, greatest(max(j), 3) AS c, least(min(j), 0) AS d FROM t GROUP BY g" },
  { sql: "SELECT g, sum(j) > 0 AS a, count(*) = 4 AS b, max(s) LIKE 'a%' AS c FROM t GROUP BY g" },
  { sql: "SELECT g, sum(j) * sum(j) AS a, sum(j) + max(j) AS b, -(max(j) - min(j)) AS c FROM t GROUP BY g" },
  { sql: "SELECT g, count(DISTINCT s) * 2 AS a, count(*) * 1.5 AS b, count(*) / 2 AS c FROM t GROUP BY g" },
  { sql: "SELECT g, sign(sum(j)) AS a, sum(j) = 0 AS b, nullif(sum(j), 0) AS c FROM t GROUP BY g" },
  { sql: "SELECT -sum(j) AS a, abs(min(j)) AS b, max(f) - min(f) AS c, sum(ts::DOUBLE) AS d FROM t" },
  { sql: "SELECT g, max(ts) - INTERVAL 1 DAY AS a, date_trunc('year', min(ts)) AS b, extract(year FROM max(ts)) AS c FROM t GROUP BY g" },
  { sql: "SELECT g, length(max(s)) AS a, upper(min(s)) AS b, max(s) || '!' AS c FROM t GROUP BY g" },
  { sql: "SELECT g, sum(j)::DOUBLE AS a, sum(j)::VARCHAR AS b, max(f)::BIGINT AS c FROM t WHERE abs(f) < 1e10 GROUP BY g" },
  { sql: "SELECT g, avg(j) * count(j) AS a, stddev_pop(j) AS b, var_samp(j) * 2 AS c FROM t GROUP BY g" },
  // `::` binds tighter than unary minus in DuckDB: -3::VARCHAR is -(3::VARCHAR), refused
  { sql: "SELECT -3::VARCHAR AS x FROM t" },
  { sql: "SELECT -3::VARCHAR || 'x' AS x FROM t" },
  { sql: "SELECT -1::BOOLEAN AS x FROM t" },
  { sql: "SELECT -1.5::VARCHAR AS x FROM t" },
  { sql: "SELECT -3::TIMESTAMP AS x FROM t" },
  { sql: "SELECT CAST(-3 AS VARCHAR) AS a, (-3)::VARCHAR AS b, -3::DOUBLE AS c, -2.5::BIGINT AS d, -(2)::BIGINT AS e FROM t" },
  { sql: "SELECT -128::TINYINT AS x FROM t" },
  { sql: "SELECT (-128)::TINYINT AS x, -127::TINYINT AS y FROM t" },
  { sql: 'SELECT j, (j * 1.5)::BIGINT AS a FROM t' },
  { sql: 'SELECT (greatest(0, 2.5))::BIGINT AS a, (coalesce(2.5, 1))::BIGINT AS b, (2.5 % 1)::BIGINT AS c FROM t' },
  { sql: 'SELECT j, (j * 0.5)::INTEGER AS a, (-j * 0.5)::BIGINT AS b, (j + 0.5)::BIGINT AS c, CAST(j * 2.5 AS HUGEINT) AS d, TRY_CAST(j * 1.5 AS BIGINT) AS e FROM t' },
  { sql: 'SELECT j, (j * 1.5)::TINYINT AS a, (CASE WHEN j > 0 THEN j * 0.5 ELSE 0 END)::BIGINT AS b, (abs(j) * 0.5)::BIGINT AS c, (j % 2 + 0.5)::BIGINT AS d FROM t' },
  { sql: 'SELECT f, (f * 1.5)::BIGINT AS a, (j / 2)::BIGINT AS b, (1e0 * 2.5)::BIGINT AS c, (f + 0.5)::BIGINT AS d FROM t WHERE abs(f) < 1e10' },
  { sql: 'SELECT (j * 1.5)::BIGINT AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT g, sum((j * 0.5)::BIGINT) AS a FROM t GROUP BY g' },
  // literal comparisons
  { sql: "SELECT '300' = 5::TINYINT AS x FROM t" },
  { sql: "SELECT 5::TINYINT = '300' AS x FROM t" },
  { sql: "SELECT count(*) FROM t WHERE j::TINYINT = '100'" },
  { sql: "SELECT count(*) FROM t WHERE j::TINYINT <> '-128'" },
  { sql: "SELECT count(*) FROM t WHERE j::UTINYINT = '256'" },
  { sql: "SELECT count(*) FROM t WHERE j::USMALLINT = ' -0'" },
  { sql: "SELECT count(*) FROM t WHERE j::INTEGER = '2147483648'" },
  { sql: "SELECT count(*) FROM t WHERE j::INTEGER NOT IN ('2147483647', '-2147483648')" },
  { sql: "SELECT count(*) FROM t WHERE j::TINYINT IS DISTINCT FROM '999'" },
  { sql: "SELECT CASE j::TINYINT WHEN '999' THEN 1 END AS x FROM t" },
  { sql: "SELECT j::TINYINT > '127.6' AS x FROM t" },
  { sql: "SELECT count(*) FROM t WHERE j::SMALLINT >= '1e5'" },
  { sql: "SELECT count(*) FROM t WHERE j = '300'" },
  { sql: "SELECT count(*) FROM t WHERE j::TINYINT = '300'" },
  { sql: "SELECT count(*) FROM t WHERE j::TINYINT < '100'" },
  { sql: "SELECT count(*) FROM t WHERE j = 'abc'" },
  { sql: "SELECT count(*) FROM t WHERE j = '1.5'" },
  { sql: "SELECT count(*) FROM t WHERE f = 'abc'" },
  { sql: "SELECT count(*) FROM t WHERE ts = 'abc'" },
  { sql: "SELECT count(*) FROM t WHERE j::SMALLINT = '40000'" },
  { sql: "SELECT count(*) FROM t WHERE j::INTEGER IN ('1', '3000000000')" },
  { sql: "SELECT count(*) FROM t WHERE j IN ('1', 'x')" },
  { sql: "SELECT count(*) FROM t WHERE i = '9223372036854775808'" },
  { sql: "SELECT count(*) FROM t WHERE j BETWEEN '1' AND '300'" },
  { sql: "SELECT count(*) FROM t WHERE j::TINYINT BETWEEN '1' AND '300'" },
  { sql: "SELECT j::TINYINT = '1e2' AS x FROM t" },
  { sql: "SELECT count(*) FROM t WHERE j = ' 3 '" },
  { sql: "SELECT count(*) FROM t WHERE j::UTINYINT = '-1'" },
];

const FAILING = new Set<string>([]);

describe('hunt 25: adversarial queries against DuckDB', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(CASES, FAILING);
});

describe("hunt 25: a CSV cell '-nan' is the NaN with its sign bit set, as DuckDB's CSV reader reads it", () => {
  const oracle = useDuckDB();
  const dir = mkdtempSync(join(tmpdir(), 'canopy-hunt25-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  it("x::VARCHAR of 'nan', '-nan', '-NaN', 'inf' and numbers, over 1 and 3 shards", async () => {
    const file = join(dir, 'nan.csv');
    writeFileSync(file, 'x,k\n-nan,1\nnan,2\n-NaN,3\ninf,4\n1.5,5\n-0.0,6\n');
    const sql = 'SELECT k, x::VARCHAR AS t, (-x)::VARCHAR AS n FROM t';
    const want = duckResult(await oracle().runAndReadAll(sql.replace('FROM t', `FROM read_csv('${file}')`)));
    for (const shards of [1, 3]) {
      const { root } = await preparedInProcessTree({ path: file, table: 't', shards, partition: { kind: 'hash' }, cacheDir: join(dir, `cache-${shards}`), fanout: 2 });
      const body = await answerBody(root, sql);
      expect(body.label).toBe('exact');
      expect(valueDiff(fromCanopy(body), want, false), `${shards} shards`).toEqual([]);
    }
  });
});
