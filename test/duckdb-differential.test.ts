/**
 * Differential suite against DuckDB: a broad list (800+) of single-table queries over a small
 * table of edge values (NaN, ±Infinity, -0.0, NULLs, int64 extremes, timestamps before and
 * near the epoch and at week/quarter/year boundaries, strings with '%', '_', '\', non-BMP
 * characters, mixed case), split over several shards of an in-process tree, compared cell by
 * cell with DuckDB over the same rows. Exact answers must equal DuckDB (floats 1e-9
 * relative, NaN = NaN); with one shard failing, bounded cells must hold DuckDB's value and
 * exact cells must equal it. A query canopy refuses while DuckDB answers is a surface gap,
 * listed in GAPS (an `it.fails` until it is supported); a known wrong answer is in KNOWN.
 *
 * Run: npx vitest run test/duckdb-differential.test.ts (BREAKER_REPORT=1 prints each failing verdict:
 * WRONG-EXACT, UNSOUND, CRASH, LABEL (not exact with every shard answering), GAP)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { closeDifferential, differentialTests, duckConnection, duckResult, setupDifferential, type Body, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

// ---------------------------------------------------------------------------------------------
// The queries: hand-written edge cases, then generated families.
const HAND: Q[] = [
  // Empty input, HAVING without GROUP BY, LIMIT 0, OFFSET beyond rows.
  { sql: 'SELECT count(*) AS n, sum(i) AS s, min(f) AS m, avg(j) AS a FROM t WHERE 1 = 0' },
  { sql: 'SELECT count(*) AS n FROM t HAVING count(*) > 100' },
  { sql: 'SELECT count(*) AS n FROM t HAVING count(*) > 1' },
  { sql: 'SELECT sum(j) AS s FROM t WHERE j > 100' },
  { sql: 'SELECT g, count(*) AS n FROM t WHERE 1 = 0 GROUP BY g' },
  { sql: 'SELECT j FROM t ORDER BY j LIMIT 0' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g LIMIT 0' },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 5 OFFSET 100' },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 3 OFFSET 18', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g NULLS FIRST OFFSET 2', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY g LIMIT 10 OFFSET 10' },
  { sql: 'SELECT count(*) AS n FROM t LIMIT 0' },
  { sql: 'SELECT count(*) AS n FROM t OFFSET 1' },
  // count(DISTINCT) and NULLs.
  { sql: 'SELECT count(DISTINCT g) AS a, count(DISTINCT s) AS b, count(DISTINCT j) AS c, count(DISTINCT f) AS d, count(DISTINCT ts) AS e FROM t' },
  { sql: 'SELECT g, count(DISTINCT j) AS c FROM t GROUP BY g' },
  { sql: 'SELECT count(DISTINCT f) AS d FROM t WHERE f = 0' },
  { sql: 'SELECT count(*) AS n, count(g) AS ng, count(DISTINCT g) AS dg FROM t WHERE g IS NULL' },
  // int64 extremes.
  { sql: 'SELECT sum(i) AS s, avg(i) AS a, min(i) AS lo, max(i) AS hi FROM t' },
  { sql: 'SELECT g, sum(i) AS s, avg(i) AS a FROM t GROUP BY g' },
  { sql: 'SELECT avg(i) AS a FROM t WHERE i > 9000000000000000000' },
  { sql: 'SELECT sum(i) AS s FROM t WHERE i > 0' },
  { sql: 'SELECT i + 1 AS x FROM t WHERE i = 9223372036854775807' },
  { sql: 'SELECT i - 1 AS x FROM t WHERE i < -9000000000000000000' },
  { sql: 'SELECT -i AS x FROM t WHERE i < -9000000000000000000' },
  { sql: 'SELECT abs(i) AS x FROM t WHERE i < -9000000000000000000' },
  { sql: 'SELECT i * 2 AS x FROM t WHERE i = 9007199254740993' },
  { sql: 'SELECT i FROM t WHERE i = 9007199254740993' },
  { sql: 'SELECT i FROM t WHERE i = 9007199254740992' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i > 9007199254740992' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i >= 9223372036854775806' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = -9223372036854775808' },
  { sql: 'SELECT i / 2 AS x FROM t WHERE i = 9007199254740993' },
  { sql: 'SELECT i % 10 AS x FROM t WHERE i < -9000000000000000000' },
  { sql: 'SELECT CAST(i AS DOUBLE) AS x FROM t WHERE i > 9000000000000000000 ORDER BY x', ordered: true },
  { sql: 'SELECT CAST(i AS VARCHAR) AS x FROM t WHERE i IS NOT NULL ORDER BY x', ordered: true },
  { sql: 'SELECT sum(i) - sum(i) AS z, sum(j) * 2 AS d FROM t' },
  { sql: 'SELECT max(i) + 1 AS x FROM t' },
  { sql: 'SELECT count(*) + 9223372036854775807 AS x FROM t' },
  { sql: 'SELECT sum(i) / count(i) AS x FROM t' },
  // Floats: NaN, ±Infinity, -0.0.
  { sql: 'SELECT sum(f) AS s, avg(f) AS a, min(f) AS lo, max(f) AS hi FROM t' },
  { sql: 'SELECT sum(f) AS s FROM t WHERE f > -1e300 AND f < 1e300' },
  { sql: 'SELECT sum(f) AS s, avg(f) AS a FROM t WHERE abs(f) < 1e300' },
  { sql: 'SELECT f, count(*) AS n FROM t GROUP BY f' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f = 0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f = -0.0' },
  { sql: "SELECT count(*) AS n FROM t WHERE f = 'NaN'::DOUBLE" },
  { sql: "SELECT count(*) AS n FROM t WHERE f <> 'NaN'::DOUBLE" },
  { sql: "SELECT count(*) AS n FROM t WHERE f > 'Infinity'::DOUBLE" },
  { sql: 'SELECT count(*) AS n FROM t WHERE f < 0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT (f > 0)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f IN (0, 1.5, 7)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f NOT IN (0, 1.5, 7)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j NOT IN (1, 2, NULL)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j IN (1, 2, NULL)' },
  { sql: 'SELECT min(f) AS lo, max(f) AS hi FROM t WHERE f = 0' },
  { sql: 'SELECT f FROM t WHERE f = 0 ORDER BY f', ordered: false },
  { sql: 'SELECT f * 0 AS x FROM t WHERE f IS NOT NULL' },
  { sql: 'SELECT f / 0 AS x FROM t WHERE f IS NOT NULL' },
  { sql: 'SELECT -f AS x FROM t WHERE f = 0' },
  { sql: 'SELECT f + 1e308 AS x FROM t WHERE f > 1e300' },
  { sql: 'SELECT round(f) AS x FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT round(f, 1) AS x FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT round(2.5) AS a, round(-2.5) AS b, round(0.5) AS c, round(1.5) AS d, round(-0.5) AS e FROM t LIMIT 1' },
  { sql: 'SELECT round(f * 1.0) AS x FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT round(j / 2) AS x FROM t' },
  { sql: 'SELECT round(1.25, 1) AS a, round(1.35, 1) AS b, round(2.675, 2) AS c FROM t LIMIT 1' },
  { sql: 'SELECT floor(f) AS a, ceil(f) AS b FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT floor(-0.5) AS a, ceil(-0.5) AS b FROM t LIMIT 1' },
  { sql: 'SELECT sign(f) AS x FROM t WHERE f IS NOT NULL' },
  { sql: 'SELECT sqrt(f) AS x FROM t WHERE f > 0' },
  { sql: 'SELECT ln(f) AS x FROM t WHERE f > 0' },
  { sql: 'SELECT log(f) AS x FROM t WHERE f > 0' },
  { sql: 'SELECT exp(j) AS x FROM t' },
  { sql: 'SELECT power(j, 2) AS x FROM t' },
  { sql: 'SELECT power(2, j) AS x FROM t' },
  { sql: 'SELECT greatest(f, j) AS a, least(f, j) AS b FROM t' },
  { sql: 'SELECT greatest(j, NULL) AS a, least(j, NULL) AS b FROM t' },
  { sql: 'SELECT coalesce(f, j, 0) AS a FROM t' },
  { sql: 'SELECT nullif(j, 0) AS a FROM t' },
  { sql: 'SELECT CAST(f AS VARCHAR) AS v FROM t' },
  { sql: 'SELECT CAST(f AS BIGINT) AS v FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT CAST(2.5 AS BIGINT) AS a, CAST(-2.5 AS BIGINT) AS b, CAST(3.5 AS BIGINT) AS c FROM t LIMIT 1' },
  { sql: "SELECT CAST('12' AS BIGINT) AS a, CAST(' 12 ' AS BIGINT) AS b FROM t LIMIT 1" },
  { sql: "SELECT CAST('1e3' AS DOUBLE) AS a, CAST('-0' AS DOUBLE) AS b, CAST('inf' AS DOUBLE) AS c FROM t LIMIT 1" },
  { sql: 'SELECT CAST(j AS BOOLEAN) AS b FROM t' },
  { sql: "SELECT CAST('true' AS BOOLEAN) AS a, CAST('f' AS BOOLEAN) AS b FROM t LIMIT 1" },
  // Division and modulo of negatives, by zero.
  { sql: 'SELECT j / 0 AS a FROM t' },
  { sql: 'SELECT j % 0 AS a FROM t' },
  { sql: 'SELECT j % 3 AS a, j % -3 AS b FROM t' },
  { sql: 'SELECT j / 2 AS a FROM t' },
  { sql: 'SELECT f % 2 AS a FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT f % 0 AS a FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT 7 % -3 AS a, -7 % 3 AS b, -7 / 2 AS c, 7 / -2 AS d FROM t LIMIT 1' },
  { sql: 'SELECT sum(j) / 0 AS a, count(*) % 0 AS b FROM t' },
  { sql: 'SELECT g, sum(j) / count(j) AS a FROM t GROUP BY g' },
  { sql: 'SELECT g, sum(j) % 4 AS a FROM t GROUP BY g' },
  // CASE without ELSE, simple CASE with NULL.
  { sql: 'SELECT CASE WHEN j > 0 THEN 1 END AS c FROM t' },
  { sql: "SELECT CASE g WHEN 'a' THEN 1 WHEN NULL THEN 2 END AS c FROM t" },
  { sql: "SELECT CASE WHEN f > 0 THEN 'p' WHEN f <= 0 THEN 'n' END AS c, count(*) AS n FROM t GROUP BY c" },
  { sql: 'SELECT sum(CASE WHEN j > 0 THEN j END) AS a, count(CASE WHEN j > 0 THEN 1 END) AS b FROM t' },
  { sql: 'SELECT CASE WHEN j > 0 THEN j ELSE f END AS c FROM t' },
  { sql: "SELECT CASE WHEN j > 0 THEN 'x' ELSE NULL END AS c FROM t" },
  // Strings: collation, LIKE with escapes, functions on non-BMP.
  { sql: 'SELECT min(s) AS lo, max(s) AS hi FROM t' },
  { sql: 'SELECT s FROM t WHERE s IS NOT NULL ORDER BY s', ordered: true },
  { sql: 'SELECT s FROM t ORDER BY s DESC NULLS FIRST', ordered: true },
  { sql: "SELECT count(*) AS n FROM t WHERE s < 'a'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s > 'Z'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE 'a%'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE 'a_b'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE 'a\\%b' ESCAPE '\\'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE 'a!_b' ESCAPE '!'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%!%%' ESCAPE '!'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%\\\\%' ESCAPE '\\'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%\\%'" },
  // A backslash in a '...' string is itself (standard SQL, DuckDB), not a C escape.
  { sql: "SELECT count(*) AS n FROM t WHERE s = 'x\\y'" },
  { sql: "SELECT length('a\\nb') AS n, 'C:\\' AS p, 'it''s\\' AS q FROM t LIMIT 1" },
  { sql: "SELECT s, s || '\\' AS b FROM t WHERE s LIKE 'x%'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s <> 'x\\' -- it's a comment\n AND s IS NOT NULL" },
  { sql: `SELECT count(*) AS n FROM t WHERE s IN ('x\\y', 'q\\', ${Array.from({ length: 40 }, (_, k) => `'v${k}'`).join(', ')})` },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '_'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '__'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE ''" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s NOT LIKE '%a%'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s ILIKE 'A%'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s ILIKE 'école'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%x'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '_x'" },
  { sql: 'SELECT s, length(s) AS l FROM t' },
  { sql: 'SELECT s, upper(s) AS u, lower(s) AS l FROM t' },
  { sql: 'SELECT s, reverse(s) AS r FROM t' },
  { sql: 'SELECT s, substring(s, 2, 1) AS a, substring(s, 1, 1) AS b FROM t' },
  { sql: 'SELECT s, substring(s, 0, 2) AS a FROM t' },
  { sql: 'SELECT s, substring(s, -1, 3) AS a FROM t' },
  { sql: 'SELECT s, substring(s, 2) AS a FROM t' },
  { sql: 'SELECT s, left(s, 1) AS a, right(s, 1) AS b FROM t' },
  { sql: 'SELECT s, left(s, -1) AS a, right(s, -1) AS b FROM t' },
  { sql: "SELECT s, strpos(s, 'b') AS a, strpos(s, '') AS b FROM t" },
  { sql: "SELECT s, trim(s) AS a, ltrim(s) AS b, rtrim(s) AS c FROM t" },
  { sql: "SELECT s, replace(s, 'a', 'xy') AS a, replace(s, '', 'q') AS b FROM t" },
  { sql: "SELECT s, concat(s, g) AS a, s || g AS b FROM t" },
  { sql: "SELECT s, concat(s, NULL, 'k') AS a FROM t" },
  { sql: "SELECT s, starts_with(s, 'a') AS a, ends_with(s, 'x') AS b, contains(s, '%') AS c FROM t" },
  { sql: "SELECT s, s = 'abc' AS a FROM t" },
  { sql: 'SELECT s, count(*) AS n FROM t GROUP BY s' },
  { sql: 'SELECT lower(s) AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: "SELECT count(*) AS n FROM t WHERE s BETWEEN 'a' AND 'z'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s IN ('a', 'A', '😀', '')" },
  { sql: "SELECT max(s) AS m FROM t WHERE s < '😀'" },
  { sql: "SELECT length('😀𝄞') AS a, upper('ß') AS b, lower('İ') AS c, reverse('a😀b') AS d FROM t LIMIT 1" },
  { sql: "SELECT trim('  x  ') AS a, 'it''s' AS b, '' AS c FROM t LIMIT 1" },
  // Timestamps near and before the epoch, date_trunc boundaries, extract.
  { sql: 'SELECT min(ts) AS lo, max(ts) AS hi, count(ts) AS n FROM t' },
  { sql: 'SELECT ts FROM t WHERE ts IS NOT NULL ORDER BY ts', ordered: true },
  { sql: "SELECT count(*) AS n FROM t WHERE ts < '1970-01-01'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts >= '1970-01-01 00:00:00'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts > '1969-12-31 23:59:59.999998'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts BETWEEN '2024-01-01' AND '2024-04-01'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts = '2024-04-01'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts = TIMESTAMP '2024-04-01 00:00:00'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts < '2024-01-01T00:00:00Z'" },
  ...['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium'].map((u) => ({
    sql: `SELECT ts, date_trunc('${u}', ts) AS d FROM t`,
  })),
  ...['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'dow', 'isodow', 'doy', 'epoch'].map((f) => ({
    sql: `SELECT ts, extract(${f} FROM ts) AS x FROM t`,
  })),
  ...['isoyear', 'yearweek', 'decade', 'century', 'millennium', 'era', 'julian', 'weekofyear', 'dayofmonth'].map((f) => ({
    sql: `SELECT ts, date_part('${f}', ts) AS x FROM t`,
  })),
  { sql: "SELECT date_part('yearweek', ts) AS w, count(*) AS n, min(ts) AS m FROM t GROUP BY w" },
  { sql: "SELECT count(*) AS n FROM t WHERE date_part('isoyear', ts) < date_part('year', ts)" },
  { sql: "SELECT date_trunc('week', ts) AS w, count(*) AS n FROM t GROUP BY w" },
  { sql: "SELECT date_trunc('quarter', ts) AS q, count(*) AS n, min(ts) AS m FROM t GROUP BY q" },
  { sql: "SELECT ts, ts + INTERVAL '1 month' AS a, ts - INTERVAL '1 day' AS b FROM t" },
  { sql: "SELECT ts, ts + INTERVAL '1 year' AS a, ts - INTERVAL '1 microsecond' AS b FROM t" },
  { sql: "SELECT ts, ts + INTERVAL 3 HOUR AS a FROM t" },
  { sql: "SELECT ts, ts - INTERVAL '1 month 1 day' AS a FROM t" },
  { sql: 'SELECT CAST(ts AS VARCHAR) AS v FROM t' },
  { sql: "SELECT CAST('2024-02-30' AS TIMESTAMP) AS v FROM t LIMIT 1" },
  { sql: "SELECT CAST('1969-07-20 20:17:40' AS TIMESTAMP) AS v FROM t LIMIT 1" },
  { sql: 'SELECT max(date_trunc(\'month\', ts)) AS m, min(date_trunc(\'year\', ts)) AS y FROM t' },
  { sql: "SELECT count(DISTINCT date_trunc('year', ts)) AS n FROM t" },
  // ORDER BY of aliases vs columns, ordinals, expressions.
  { sql: 'SELECT j AS f FROM t ORDER BY f NULLS FIRST', ordered: true },
  { sql: 'SELECT -j AS j FROM t ORDER BY j NULLS FIRST', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY 2 DESC, 1 NULLS FIRST', ordered: true },
  { sql: 'SELECT g, sum(j) AS s FROM t GROUP BY g ORDER BY s DESC NULLS LAST, g', ordered: true },
  { sql: 'SELECT g AS k, count(*) AS n FROM t GROUP BY k ORDER BY k DESC NULLS LAST', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY count(*) DESC, g NULLS FIRST', ordered: true },
  { sql: 'SELECT g, max(j) AS m FROM t GROUP BY g ORDER BY max(j) - min(j), g NULLS FIRST', ordered: true },
  { sql: 'SELECT j FROM t ORDER BY -j NULLS FIRST LIMIT 5', ordered: true },
  { sql: 'SELECT j, f FROM t ORDER BY j DESC NULLS FIRST, f DESC LIMIT 4', ordered: true },
  { sql: 'SELECT f FROM t ORDER BY f DESC LIMIT 3', ordered: true },
  { sql: 'SELECT f FROM t ORDER BY f LIMIT 3', ordered: true },
  { sql: 'SELECT f FROM t ORDER BY f NULLS FIRST LIMIT 3', ordered: true },
  { sql: 'SELECT i FROM t ORDER BY i DESC LIMIT 3', ordered: true },
  { sql: 'SELECT i FROM t ORDER BY i LIMIT 3', ordered: true },
  { sql: 'SELECT ts FROM t ORDER BY ts LIMIT 3', ordered: true },
  { sql: 'SELECT s FROM t ORDER BY s DESC LIMIT 3', ordered: true },
  // Group top-k shapes.
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 2', ordered: true },
  { sql: 'SELECT s, max(j) AS m FROM t GROUP BY s ORDER BY m DESC NULLS LAST, s LIMIT 3', ordered: true },
  { sql: 'SELECT s, min(f) AS m FROM t GROUP BY s ORDER BY m, s LIMIT 3', ordered: true },
  { sql: 'SELECT g, sum(j) AS m FROM t GROUP BY g ORDER BY m DESC, g LIMIT 2', ordered: true },
  { sql: 'SELECT g, sum(f) AS m FROM t GROUP BY g ORDER BY m DESC, g LIMIT 2', ordered: true },
  { sql: 'SELECT g, max(f) AS m FROM t GROUP BY g ORDER BY m DESC, g LIMIT 2', ordered: true },
  { sql: 'SELECT g, min(ts) AS m FROM t GROUP BY g ORDER BY m, g LIMIT 2', ordered: true },
  // HAVING.
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING count(*) > 3' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING max(f) > 2' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING sum(j) IS NULL' },
  { sql: 'SELECT g FROM t GROUP BY g HAVING min(s) < \'b\'' },
  { sql: 'SELECT g, avg(j) AS a FROM t GROUP BY g HAVING avg(j) > 0' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING n > 3' },
  // DISTINCT, GROUP BY expressions, constants.
  { sql: 'SELECT DISTINCT g FROM t' },
  { sql: 'SELECT DISTINCT g, j > 0 AS p FROM t' },
  { sql: 'SELECT DISTINCT f FROM t' },
  { sql: 'SELECT j % 2 AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: 'SELECT j % 2 AS k, count(*) AS n FROM t GROUP BY j % 2' },
  { sql: 'SELECT g IS NULL AS k, count(*) AS n FROM t GROUP BY 1' },
  { sql: 'SELECT g, j > 0 AS p, count(*) AS n FROM t GROUP BY ALL' },
  { sql: 'SELECT 1 AS one, count(*) AS n FROM t' },
  { sql: "SELECT 'k' AS k, g, count(*) AS n FROM t GROUP BY g" },
  { sql: 'SELECT 1 + 2 AS x FROM t LIMIT 1' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NULL' },
  { sql: 'SELECT count(*) AS n FROM t WHERE TRUE' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > 0 AND NULL' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > 0 OR NULL' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT (j > 0 AND g = \'a\')' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j BETWEEN 5 AND 1' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j NOT BETWEEN -1 AND 1' },
  { sql: 'SELECT count(*) AS n FROM t WHERE g = s' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j = f' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = j' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j = 2.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > 2.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i > 9.2e18' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i < 1e19' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f > 9223372036854775807' },
  // Aggregates of expressions, FILTER, count_if, bool_*, variance.
  { sql: 'SELECT sum(j * 2) AS a, avg(j + 0.5) AS b, max(-j) AS c, min(abs(j)) AS d FROM t' },
  { sql: 'SELECT sum(1) AS a, count(1) AS b, count(NULL) AS c, sum(NULL) AS d FROM t' },
  { sql: 'SELECT count(*) FILTER (WHERE j > 0) AS a, sum(j) FILTER (WHERE g = \'a\') AS b, min(s) FILTER (WHERE j < 0) AS c FROM t' },
  { sql: 'SELECT g, avg(f) FILTER (WHERE abs(f) < 100) AS a FROM t GROUP BY g' },
  { sql: 'SELECT bool_and(j > -10) AS a, bool_or(j > 100) AS b, bool_and(f > 0) AS c FROM t' },
  { sql: 'SELECT g, bool_or(s LIKE \'%a%\') AS b FROM t GROUP BY g' },
  { sql: 'SELECT stddev(j) AS a, stddev_pop(j) AS b, variance(j) AS c, var_pop(j) AS d FROM t' },
  { sql: 'SELECT g, stddev(j) AS a, var_samp(j) AS b FROM t GROUP BY g' },
  { sql: 'SELECT stddev(j) AS a FROM t WHERE j = 7' },
  { sql: 'SELECT avg(j) AS a, sum(j) AS s, count(j) AS c FROM t WHERE g = \'A\'' },
  { sql: 'SELECT max(s) AS a, min(s) AS b FROM t WHERE s LIKE \'%😀%\' OR s LIKE \'𝄞%\'' },
  { sql: 'SELECT count(DISTINCT lower(s)) AS a, count(DISTINCT j % 3) AS b FROM t' },
  { sql: 'SELECT count(DISTINCT j) FILTER (WHERE j > 0) AS a FROM t' },
  { sql: 'SELECT min(ts) FILTER (WHERE ts > \'2000-01-01\') AS a FROM t' },
  { sql: 'SELECT j, i, f, j // 2 AS a, j // -3 * 2 AS b, 7 // 2 // 2 AS c, -7 // 2 AS d, f // 2 AS e, j // 0 AS z, f // 0 AS y, i // j AS x FROM t' },
  { sql: 'SELECT j // 3 AS k, count(*) AS n FROM t WHERE j // 2 <> 0 GROUP BY 1' },
  { sql: 'SELECT sum(j // 2) AS s, max(i // 3) AS m FROM t' },
  { sql: 'SELECT avg(ts) AS a FROM t' },
  { sql: 'SELECT g, avg(ts) AS a, min(ts) AS lo, count(ts) AS n FROM t GROUP BY g' },
  { sql: "SELECT avg(ts) AS a FROM t WHERE ts < '1970-01-01T00:00:00.000001Z'" },
  { sql: 'SELECT avg(ts) AS a FROM t WHERE ts IS NULL' },
  { sql: 'SELECT ts, epoch_ms(ts) AS a, epoch_us(ts) AS b FROM t' },
  { sql: 'SELECT sum(ts) AS a FROM t' },
  { sql: 'SELECT avg(s) AS a FROM t' },
  // Mixed case, quoting, comments, semicolons.
  { sql: 'select G, COUNT(*) as N from T group by G FROM t LIMIT 1' },
  { sql: 'SELECT "g", count(*) AS "N" FROM "t" GROUP BY "g"' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g;' },
  { sql: 'SELECT /* c */ g, count(*) AS n -- x\nFROM t GROUP BY g FROM t LIMIT 1' },
  { sql: 'SELECT g AS "Grp", count(*) AS "my count" FROM t GROUP BY "Grp"' },
  { sql: 'SELECT count(*) AS "ñ😀" FROM t' },
  { sql: 'SELECT t.g, count(*) AS n FROM t GROUP BY t.g' },
  { sql: 'SELECT x.g, count(*) AS n FROM t AS x GROUP BY x.g' },
  { sql: 'SELECT count(*) FROM t' },
  { sql: 'SELECT sum(j), max(s) FROM t' },
  { sql: 'SELECT * FROM t ORDER BY s, j LIMIT 3' },
  { sql: 'SELECT *, j + 1 AS k FROM t ORDER BY s, j LIMIT 3' },
  // Common constructs DuckDB accepts (surface).
  { sql: 'SELECT count(*) AS n FROM t WHERE j IS DISTINCT FROM 1' },
  { sql: 'SELECT approx_count_distinct(s) AS n FROM t', duck: 'SELECT count(DISTINCT s) AS n FROM t' },
  { sql: 'SELECT sum(DISTINCT j) AS a FROM t' },
  { sql: 'SELECT avg(DISTINCT j) AS a FROM t' },
  { sql: 'SELECT string_agg(s, \',\') AS a FROM t WHERE j = 100' },
  { sql: 'SELECT any_value(g) AS a FROM t WHERE g = \'b\'' },
  // j < 7: one row holds the largest j (j < 10 has two, 'a' and 'a\u0301': a tie, which DuckDB breaks by scan order, so canopy labels it approximate).
  { sql: 'SELECT arg_max(s, j) AS a FROM t WHERE j IS NOT NULL AND j < 7' },
  { sql: 'SELECT count(*) AS n FROM t WHERE regexp_matches(s, \'^a\')' },
  { sql: 'SELECT CAST(ts AS DATE) AS d FROM t' },
  { sql: 'SELECT epoch(ts) AS e FROM t' },
  { sql: 'SELECT strftime(ts, \'%Y\') AS y FROM t' },
  { sql: 'SELECT mod(j, 3) AS a FROM t' },
  { sql: 'SELECT j // 2 AS a FROM t' },
  { sql: 'SELECT isnan(f) AS a FROM t' },
  { sql: 'SELECT ifnull(j, 0) AS a FROM t' },
  { sql: 'SELECT lpad(s, 3, \'*\') AS a FROM t' },
  { sql: 'SELECT position(\'b\' IN s) AS a FROM t' },
  { sql: 'SELECT s SIMILAR TO \'a%\' AS a FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE g ^@ \'a\'' },
  { sql: 'SELECT trunc(f) AS a FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT date_diff(\'day\', ts, TIMESTAMP \'2024-01-01\') AS a FROM t' },
  { sql: 'SELECT make_timestamp(0) AS a FROM t LIMIT 1' },
  { sql: 'SELECT to_timestamp(0) AS a FROM t LIMIT 1' },
  { sql: 'SELECT count(*) AS n FROM t WHERE ts > now() - INTERVAL 100 YEAR' },
  { sql: 'SELECT quantile_disc(j, 0.5) AS m FROM t' },
  { sql: 'SELECT median(j) AS m FROM t' },
  { sql: 'SELECT approx_quantile(j, 0.25) AS m FROM t', duck: 'SELECT quantile_disc(j, 0.25)::DOUBLE AS m FROM t' },
  { sql: 'SELECT approx_quantile(f, 1) AS m FROM t', duck: 'SELECT quantile_disc(f, 1) AS m FROM t' },
  { sql: 'SELECT approx_quantile(f, 0) AS m FROM t', duck: 'SELECT quantile_disc(f, 0) AS m FROM t' },
  { sql: 'SELECT approx_quantile(ts, 0) AS m, approx_quantile(ts, 1) AS x FROM t', duck: 'SELECT quantile_disc(ts, 0) AS m, quantile_disc(ts, 1) AS x FROM t' },
  { sql: 'SELECT count(*) AS n FROM t GROUP BY ()' },
  { sql: 'SELECT j FROM t ORDER BY j DESC OFFSET 1 LIMIT 1', ordered: true },
  { sql: 'SELECT sum(sqrt(f)) AS r FROM t WHERE f > 0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f > 0 AND sqrt(f) > 1' },
  { sql: 'SELECT sum(i * 2) AS r FROM t WHERE abs(i) < 1000' },
  { sql: 'SELECT g, max(ln(j)) AS r FROM t WHERE j > 0 GROUP BY g' },
  { sql: 'SELECT CAST(s AS BIGINT) AS r FROM t WHERE s = \'\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE s LIKE \'%-%\' OR s LIKE \'a-b\'' },
  { sql: 'SELECT s, concat(s, \'k\') AS a, s || \'k\' AS b FROM t' },
  { sql: 'SELECT concat(g, s) AS a, count(*) AS n FROM t GROUP BY a' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f <> f' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f = f' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f IS NULL' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f > 1e308' },
  { sql: "SELECT count(*) AS n FROM t WHERE s >= '😀'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s > 'ｚ' OR s < ''" },
  { sql: 'SELECT count(*) AS n FROM t WHERE -f < 0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j + 0 > 6' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i > 9223372036854775806' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i >= 9223372036854775807.0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f >= 0 AND f <= 0' },
  { sql: 'SELECT min(f) AS m FROM t WHERE f >= 0' },
  { sql: 'SELECT max(f) AS m FROM t WHERE f < 1e308' },
  { sql: 'SELECT max(f) AS m, min(f) AS n FROM t WHERE f IS NOT NULL AND f = f' },
  { sql: "SELECT max(s) AS m FROM t WHERE s < 'b'" },
  { sql: 'SELECT f FROM t WHERE f > 2 ORDER BY f DESC LIMIT 2', ordered: true },
  { sql: 'SELECT f FROM t WHERE f < 2 ORDER BY f LIMIT 2', ordered: true },
  { sql: 'SELECT g, max(f) AS m FROM t WHERE f < 100 GROUP BY g ORDER BY m DESC, g LIMIT 2', ordered: true },
  { sql: 'SELECT count(*) AS n, count(DISTINCT f) AS d FROM t WHERE f IN (0, -0.0)' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT ALL' },
  { sql: 'SELECT count(*) AS n FROM t WHERE s LIKE ANY (\'a%\', \'z%\')' },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST FETCH FIRST 3 ROWS ONLY' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f::VARCHAR = \'nan\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE CAST(j AS VARCHAR) LIKE \'-%\'' },
  { sql: 'SELECT j::DOUBLE / 3 AS x FROM t' },
  { sql: 'SELECT 1e308 * 10 AS a, -1e308 * 10 AS b FROM t LIMIT 1' },
  { sql: 'SELECT 9223372036854775807 + 1 AS a FROM t LIMIT 1' },
  { sql: 'SELECT 9223372036854775808 AS a FROM t LIMIT 1' },
  { sql: 'SELECT -9223372036854775808 AS a FROM t LIMIT 1' },
  { sql: 'SELECT 0.1 + 0.2 AS a FROM t LIMIT 1' },
  { sql: 'SELECT 1 / 3 AS a, 1.0 / 3 AS b, 2 ^ 10 AS c FROM t LIMIT 1' },
];

// Generated families: every aggregate over every column, with and without GROUP BY, under filters.
const AGGS = ['count({c})', 'sum({c})', 'min({c})', 'max({c})', 'avg({c})', 'count(DISTINCT {c})'];
const COLS: Record<string, readonly string[]> = { f: AGGS, i: AGGS, j: AGGS, ts: ['count({c})', 'min({c})', 'max({c})', 'count(DISTINCT {c})'], s: ['count({c})', 'min({c})', 'max({c})', 'count(DISTINCT {c})'], g: ['count({c})', 'min({c})', 'max({c})', 'count(DISTINCT {c})'] };
const FILTERS = ['', ' WHERE j > 0', ' WHERE g IS NULL', " WHERE s LIKE '%a%'", ' WHERE f >= 0', " WHERE ts < '1970-01-01 00:00:00.000001'", ' WHERE NOT (j < 3)'];
const GEN: Q[] = [];
for (const w of FILTERS) {
  for (const [c, aggs] of Object.entries(COLS)) {
    const items = aggs.map((a, k) => `${a.replaceAll('{c}', c)} AS a${k}`).join(', ');
    GEN.push({ sql: `SELECT ${items} FROM t${w}` });
    GEN.push({ sql: `SELECT g, ${items} FROM t${w} GROUP BY g` });
  }
}
// Scalar expressions per row, projected.
const EXPRS = [
  'j + f', 'j - i', 'j * f', 'f / j', 'j / j', 'i % j', 'j % 2', '-j % 2', 'abs(f)', 'abs(j)', 'f = j', 'f <> j', 'f < j', 'j >= 0 AND f < 0', 'j >= 0 OR f < 0',
  'NOT (f > 0)', 'f IS NULL', 'f IS NOT NULL', 's IS NULL OR g IS NULL', "coalesce(s, 'none')", "s || '-' || g", "concat('x', s)", 'length(g)', 'upper(g)',
  "s < g", "s >= g", 'ts > ts', "ts >= '2000-01-01'", 'extract(year FROM ts) * 100 + extract(month FROM ts)', "date_trunc('day', ts) = ts", 'j BETWEEN -3 AND 3',
  "CASE WHEN j < 0 THEN 'neg' WHEN j = 0 THEN 'zero' WHEN j > 0 THEN 'pos' END", 'CASE j WHEN 7 THEN 1 WHEN -7 THEN -1 ELSE 0 END', 'CAST(j AS VARCHAR)', 'CAST(j AS DOUBLE) / 4',
  'round(j / 3, 2)', 'round(-j / 2)', 'floor(j / 2)', 'ceil(j / 2)', 'greatest(j, 0)', 'least(j, 0)', 'nullif(g, \'\')', 'j IN (1, 2, 3)', 'g IN (\'a\', \'\')', "g NOT IN ('a')",
];
for (const e of EXPRS) GEN.push({ sql: `SELECT ${e} AS x FROM t` });
// Group keys over expressions.
for (const e of ['j % 3', 'j > 0', "date_trunc('year', ts)", 'lower(s)', 'f > 0', 'g || s', 'extract(dow FROM ts)', 'CAST(j AS VARCHAR)']) {
  GEN.push({ sql: `SELECT ${e} AS k, count(*) AS n, sum(j) AS s, min(f) AS m FROM t GROUP BY k` });
}

// Row top-k over every column, direction and NULL placement.
for (const c of ['f', 'i', 'j', 'ts', 's', 'g']) {
  for (const dir of ['', ' DESC']) {
    for (const nulls of ['', ' NULLS FIRST', ' NULLS LAST']) {
      for (const k of [1, 4]) GEN.push({ sql: `SELECT ${c} FROM t ORDER BY ${c}${dir}${nulls} LIMIT ${k}`, ordered: true });
    }
  }
  GEN.push({ sql: `SELECT ${c} FROM t ORDER BY ${c} DESC LIMIT 2 OFFSET 3`, ordered: true });
}
// Group top-k: every ordering aggregate, both directions, ties broken by the key.
for (const key of ['g', 's', 'j % 3']) {
  for (const agg of ['count(*)', 'count(f)', 'sum(j)', 'sum(f)', 'max(f)', 'min(f)', 'max(j)', 'min(j)', 'min(ts)', 'max(ts)', 'max(s)', 'min(s)', 'avg(j)', 'count(DISTINCT j)']) {
    for (const dir of ['DESC', 'ASC']) {
      GEN.push({ sql: `SELECT ${key} AS k, ${agg} AS m FROM t GROUP BY k ORDER BY m ${dir}, k LIMIT 2`, ordered: true });
    }
  }
}
// WHERE comparisons of each column against edge literals.
const LITS: Record<string, readonly string[]> = {
  f: ['0', '-0.0', '1.5', "'NaN'::DOUBLE", "'Infinity'::DOUBLE", "'-Infinity'::DOUBLE", '1e308', '-1', '2'],
  i: ['0', '-1', '9223372036854775807', '-9223372036854775808', '9007199254740993', '9007199254740992', '5', '2.5'],
  j: ['0', '-7', '7', '3', '2.5', '-2.5'],
  ts: ["'1970-01-01'", "'1969-12-31 23:59:59.999999'", "'2024-01-01 00:00:00'", "'2024-03-31T23:59:59.999999Z'", "'1900-01-01'"],
  s: ["''", "'a'", "'A'", "'abc'", "'😀'", "'é'", "'Z'", "'a%b'"],
};
for (const [c, lits] of Object.entries(LITS)) {
  for (const l of lits) {
    for (const op of ['=', '<', '>=', '<>']) GEN.push({ sql: `SELECT count(*) AS n, sum(j) AS s, min(${c}) AS lo, max(${c}) AS hi FROM t WHERE ${c} ${op} ${l}` });
  }
}
// HAVING over each aggregate.
for (const h of ['count(*) >= 5', 'sum(j) > 0', 'min(f) < 0', 'max(f) >= 2.5', 'avg(j) < 0', 'max(s) > \'b\'', 'count(DISTINCT s) > 2', 'sum(i) > 0', 'min(ts) < \'1970-01-01\'', 'count(f) = count(*)']) {
  GEN.push({ sql: `SELECT g, count(*) AS n FROM t GROUP BY g HAVING ${h}` });
  GEN.push({ sql: `SELECT count(*) AS n FROM t HAVING ${h}` });
}

const QUERIES: Q[] = [...HAND, ...GEN];

/**
 * Known defects (by SQL): exact answers that differ from DuckDB or unsound intervals.
 * Each is an `it.fails` until fixed.
 */
const KNOWN = new Set<string>([
]);
/** Constructs DuckDB answers and canopy refuses (surface gaps): `it.fails`. */
const GAPS = new Set<string>([
]);

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('canopy vs DuckDB over edge values on 6 shards', () => {
  const n = differentialTests(QUERIES, new Set([...KNOWN, ...GAPS]));
  it('has 200+ distinct queries', () => {
    expect(n).toBeGreaterThan(200);
  });
});

describe('sketches hold DuckDB within their stated error', () => {
  const SK: TableSchema = { name: 'u', columns: [{ name: 'x', type: 'int64' }, { name: 'y', type: 'float64' }, { name: 'k', type: 'string' }] };
  // 30,000 rows, 20,000 distinct x (some repeated across shards), y skewed with negatives.
  const rows: Scalar[][] = Array.from({ length: 30000 }, (_, r) => [BigInt((r * 7919) % 20000) - 5000n, ((r % 97) - 40) * Math.exp((r % 13) / 2), `k${r % 3}`]);
  const shards: Scalar[][][] = [0, 1, 2, 3].map((s) => rows.filter((_, r) => r % 4 === s));
  const QS = [
    'SELECT count(DISTINCT x) AS d FROM u',
    'SELECT k, count(DISTINCT x) AS d FROM u GROUP BY k ORDER BY k',
    'SELECT count(DISTINCT y) AS d FROM u',
    'SELECT approx_quantile(x, 0.5) AS q FROM u',
    'SELECT approx_quantile(y, 0.9) AS q, approx_quantile(y, 0.1) AS r FROM u',
    'SELECT k, approx_quantile(y, 0.75) AS q FROM u GROUP BY k ORDER BY k',
    'SELECT approx_quantile(x, 0.001) AS q FROM u WHERE x > 0',
  ];
  const duckSql = (q: string): string => q.replace(/approx_quantile\((\w+), ([\d.]+)\)/g, 'quantile_disc($1, $2)::DOUBLE');
  it('count(DISTINCT) past 4,096 and approx_quantile: the interval holds DuckDB (all shards, and shard 2 failing)', async () => {
    await duckConnection().run('CREATE OR REPLACE TABLE u (x BIGINT, y DOUBLE, k VARCHAR)');
    await duckConnection().run(`INSERT INTO u SELECT * FROM (VALUES ${rows.map((r) => `(${String(r[0])}, ${String(r[1])}::DOUBLE, '${String(r[2])}')`).join(', ')})`);
    const roots = [
      inProcessRoot(SK, shards, { fanout: 2 }).root,
      inProcessRoot(SK, shards, { fanout: 2, wrap: (leaf) => (leaf.shards.includes(2) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler) }).root,
    ];
    const problems: string[] = [];
    for (const q of QS) {
      const want = duckResult(await duckConnection().runAndReadAll(duckSql(q)));
      for (const [n, root] of roots.entries()) {
        const body = answerToJSON(await ask(root, q)) as unknown as Body;
        body.rows.forEach((row, r) => {
          const c = row.length - 1;
          const cells = [c, ...(q.includes(' AS r ') ? [0] : [])];
          for (const col of cells) {
            const truthV = Number(want.rows[r]![col]);
            const cell = body.cells?.[r]?.[col] ?? null;
            const v = Number(row[col]);
            if (cell === null) {
              if (Math.abs(v - truthV) > 1e-9 * Math.abs(truthV)) problems.push(`${q} [${n}] row ${r}: exact ${v}, DuckDB ${truthV}`);
            } else if (cell.lo !== null && cell.hi !== null && !(Number(cell.lo) <= truthV && truthV <= Number(cell.hi))) {
              problems.push(`${q} [${n}] row ${r}: ${cell.label} [${String(cell.lo)}, ${String(cell.hi)}] misses DuckDB ${truthV} (estimate ${v})`);
            }
          }
        });
      }
    }
    expect(problems).toEqual([]);
  }, 120_000);
});
