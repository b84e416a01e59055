/**
 * The differential suite's second round (same harness, test/helpers/differential.ts): cases
 * public bug trackers of analytics engines keep reporting, each compared cell by cell with
 * DuckDB on the 8 trees (exact must equal, bounded must hold the truth). NULL in GROUP BY
 * keys and IN lists, HAVING without GROUP BY, ORDER BY ordinals and aliases that shadow
 * columns, aggregates over empty input, count(DISTINCT) with NULLs, min/max of strings,
 * integer division and modulo of negatives, int64 overflow in SUM, timestamps before 1970 at
 * microsecond precision, LIKE `_` on non-BMP characters, reversed BETWEEN, CASE without ELSE,
 * COALESCE types, '' and trailing spaces, DISTINCT over -0.0 and NaN, LIMIT/OFFSET beyond
 * the rows.
 *
 * Run: npx vitest run test/duckdb-differential-edges.test.ts (BREAKER_REPORT=1 prints verdicts)
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

const EDGES: Q[] = [
  // NULL in IN lists and GROUP BY keys.
  { sql: "SELECT count(*) AS n FROM t WHERE g IN ('a', NULL)" },
  { sql: "SELECT count(*) AS n FROM t WHERE g NOT IN ('a', NULL)" },
  { sql: "SELECT count(*) AS n FROM t WHERE s NOT IN ('', 'a')" },
  { sql: 'SELECT count(*) AS n FROM t WHERE j IN (NULL)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j NOT IN (NULL)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT (j IN (1, NULL))' },
  { sql: 'SELECT j, j IN (1, NULL) AS a, j NOT IN (1, NULL) AS b FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f IN (-0.0)' },
  { sql: "SELECT count(*) AS n FROM t WHERE f IN ('nan'::DOUBLE, 7)" },
  { sql: "SELECT count(*) AS n FROM t WHERE f NOT IN ('nan'::DOUBLE, 7)" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts IN ('1970-01-01 00:00:00', NULL)" },
  { sql: 'SELECT g, j % 2 AS k, count(*) AS n FROM t GROUP BY g, k' },
  { sql: 'SELECT g, count(*) AS n, count(g) AS c FROM t GROUP BY g ORDER BY g NULLS FIRST', ordered: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING g IS NULL' },
  { sql: "SELECT g, count(*) AS n FROM t WHERE g IS NULL OR g = 'a' GROUP BY g" },
  { sql: 'SELECT CASE WHEN j > 0 THEN g END AS k, count(*) AS n FROM t GROUP BY k' },
  // HAVING without GROUP BY.
  { sql: 'SELECT sum(j) AS s FROM t HAVING sum(j) > 0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE 1 = 0 HAVING count(*) = 0' },
  { sql: 'SELECT min(f) AS m FROM t WHERE j > 100 HAVING min(f) IS NULL' },
  { sql: 'SELECT count(*) AS n FROM t HAVING max(j) > 9' },
  { sql: 'SELECT count(*) AS n FROM t HAVING max(j) > 10' },
  { sql: 'SELECT count(*) AS n FROM t HAVING count(*) > 17' },
  { sql: 'SELECT sum(j) AS s FROM t HAVING sum(j) < 20' },
  { sql: "SELECT count(*) AS n FROM t HAVING min(ts) < '1960-01-01'" },
  { sql: 'SELECT max(f) AS m FROM t HAVING count(*) >= 20' },
  // ORDER BY ordinals, aliases that shadow columns.
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY 1 ORDER BY 2 DESC, 1 NULLS FIRST', ordered: true },
  { sql: 'SELECT j, s FROM t ORDER BY 2, 1', ordered: true },
  { sql: 'SELECT j AS x FROM t ORDER BY 1 DESC NULLS LAST LIMIT 3', ordered: true },
  { sql: 'SELECT j AS f FROM t ORDER BY f NULLS LAST, 1', ordered: true },
  { sql: 'SELECT -j AS j FROM t ORDER BY j NULLS FIRST', ordered: true },
  { sql: 'SELECT g AS j, count(*) AS n FROM t GROUP BY g ORDER BY j NULLS LAST', ordered: true },
  { sql: 'SELECT j % 3 AS j, count(*) AS n FROM t GROUP BY j' },
  { sql: "SELECT j AS g FROM t WHERE g = 'a'" },
  { sql: 'SELECT g, sum(j) AS j FROM t GROUP BY g ORDER BY j NULLS FIRST, g', ordered: true },
  // Aggregates over empty input.
  { sql: 'SELECT sum(j) AS a, count(j) AS b, count(*) AS c, min(s) AS d, max(ts) AS e, avg(f) AS f, count(DISTINCT g) AS g FROM t WHERE j > 1000' },
  { sql: 'SELECT sum(f) AS a, avg(f) AS b, min(f) AS c FROM t WHERE f IS NULL' },
  { sql: 'SELECT g, sum(j) AS a FROM t WHERE j > 1000 GROUP BY g' },
  { sql: 'SELECT sum(i) AS a, avg(i) AS b FROM t WHERE i IS NULL' },
  { sql: 'SELECT count(*) AS n, sum(j) AS s FROM t WHERE ts > TIMESTAMP \'2200-01-01\'' },
  // count(DISTINCT) with NULLs, DISTINCT over -0.0 and NaN.
  { sql: 'SELECT g, count(DISTINCT s) AS d, count(s) AS c FROM t GROUP BY g' },
  { sql: 'SELECT count(DISTINCT g) AS d FROM t WHERE g IS NULL OR g = \'\'' },
  { sql: 'SELECT DISTINCT f FROM t' },
  { sql: 'SELECT DISTINCT f * 0 AS x FROM t' },
  { sql: 'SELECT f * 0 AS x, count(*) AS n FROM t GROUP BY x' },
  { sql: 'SELECT count(DISTINCT f * 0) AS d FROM t' },
  { sql: 'SELECT DISTINCT -f AS x FROM t WHERE f = 0' },
  { sql: 'SELECT DISTINCT g FROM t ORDER BY g NULLS FIRST', ordered: true },
  { sql: 'SELECT DISTINCT g, j > 0 AS p FROM t' },
  // min/max of strings: non-BMP, case, '' and trailing spaces.
  { sql: "SELECT min(s) AS lo, max(s) AS hi FROM t WHERE s > 'a'" },
  { sql: 'SELECT g, min(s) AS lo, max(s) AS hi FROM t GROUP BY g' },
  { sql: 'SELECT min(upper(s)) AS a, max(lower(s)) AS b, max(upper(s)) AS c FROM t' },
  { sql: "SELECT count(*) AS n FROM t WHERE s = ''" },
  { sql: "SELECT count(*) AS n FROM t WHERE s < ' '" },
  { sql: "SELECT count(*) AS n FROM t WHERE s > ''" },
  { sql: "SELECT count(*) AS n FROM t WHERE s = ' pad'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s = ' pad '" },
  { sql: "SELECT count(*) AS n FROM t WHERE trim(s) = 'pad'" },
  { sql: "SELECT s FROM t WHERE rtrim(s) = ' pad'" },
  { sql: "SELECT s FROM t WHERE s || '' = s AND s <= 'a' ORDER BY s", ordered: true },
  { sql: "SELECT min(s) AS m FROM t WHERE s > ''" },
  { sql: "SELECT s FROM t WHERE s > '😀'" },
  { sql: "SELECT s FROM t WHERE s < '𝄞x' AND s > 'z'" },
  // LIKE `_` on non-BMP and combining characters.
  { sql: "SELECT s FROM t WHERE s LIKE '_'" },
  { sql: "SELECT s FROM t WHERE s LIKE '_x'" },
  { sql: "SELECT s FROM t WHERE s LIKE '__'" },
  { sql: "SELECT s FROM t WHERE s NOT LIKE '%_%'" },
  { sql: "SELECT s FROM t WHERE s ILIKE 'é%'" },
  { sql: "SELECT s FROM t WHERE s ILIKE 'école'" },
  { sql: "SELECT s FROM t WHERE s LIKE '%'" },
  { sql: "SELECT s, s LIKE '_' AS a FROM t" },
  // Integer division and modulo of negatives, extremes.
  { sql: 'SELECT j, j / -3 AS a, -j % 4 AS b, (j - 10) % 3 AS c FROM t' },
  { sql: 'SELECT i % 7 AS a, i % -7 AS b FROM t' },
  // DuckDB refuses -2^63 % -1 (its division overflows), and so does canopy.
  { sql: 'SELECT i % -1 AS a FROM t' },
  { sql: 'SELECT i / -1 AS a FROM t WHERE i > -9223372036854775808' },
  { sql: 'SELECT sum(j % 3) AS a, sum(-j % 3) AS b FROM t' },
  { sql: 'SELECT -7 % 3 AS a, 7 % -3 AS b, -7 % -3 AS c, -7.5 % 2 AS d FROM t LIMIT 1' },
  // SUM over int64: exact (int128) or refused, never wrapped; avg of extremes.
  { sql: 'SELECT sum(i + 0) AS a FROM t' },
  { sql: 'SELECT sum(i + 1) AS a FROM t' },
  { sql: 'SELECT sum(2 * i) AS a FROM t WHERE i > 9000000000000000000' },
  { sql: 'SELECT sum(2 * j + 1) AS a, sum(3 * j - 2) AS b FROM t' },
  { sql: 'SELECT sum(3 * i) AS a FROM t WHERE abs(i) < 1000' },
  { sql: 'SELECT sum(i - 1) AS a FROM t WHERE i < 0' },
  { sql: 'SELECT sum(-i) AS a FROM t WHERE i > 0' },
  { sql: 'SELECT sum(i * -1) AS a FROM t WHERE i > -9223372036854775808' },
  { sql: 'SELECT g, sum(i) AS s, sum(i) - sum(i) AS z FROM t GROUP BY g' },
  { sql: 'SELECT avg(i) AS a, avg(i + 0) AS b FROM t WHERE i > 0' },
  { sql: 'SELECT avg(i) AS a FROM t WHERE i < 0' },
  { sql: 'SELECT sum(i) / count(*) AS a FROM t WHERE i > 0' },
  { sql: 'SELECT sum(i) AS s FROM t WHERE i >= 9223372036854775806' },
  // Timestamps before 1970 at microsecond precision.
  { sql: "SELECT ts, date_trunc('second', ts) AS a, date_trunc('millisecond', ts) AS b FROM t" },
  { sql: "SELECT ts, date_trunc('month', ts) AS a, date_trunc('week', ts) AS b FROM t" },
  { sql: 'SELECT ts, extract(second FROM ts) AS a, extract(minute FROM ts) AS b FROM t' },
  { sql: 'SELECT ts, extract(epoch FROM ts) AS a FROM t' },
  { sql: 'SELECT ts, extract(year FROM ts) AS a, extract(doy FROM ts) AS b, extract(dow FROM ts) AS c FROM t' },
  { sql: 'SELECT ts + INTERVAL 1 MICROSECOND AS a FROM t WHERE ts < TIMESTAMP \'1970-01-01\'' },
  { sql: 'SELECT ts - INTERVAL 1 MONTH AS a FROM t' },
  { sql: "SELECT min(ts) AS lo, max(ts) AS hi FROM t WHERE ts < '1970-01-01'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts >= '1969-12-31 23:59:59.999999' AND ts < '1970-01-01 00:00:00.000001'" },
  { sql: "SELECT date_trunc('day', ts) AS d, count(*) AS n FROM t WHERE ts < '1970-01-02' GROUP BY d" },
  // BETWEEN with reversed bounds.
  { sql: 'SELECT count(*) AS n FROM t WHERE j BETWEEN 5 AND 1' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j NOT BETWEEN 5 AND 1' },
  { sql: "SELECT count(*) AS n FROM t WHERE ts BETWEEN '2025-01-01' AND '1970-01-01'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s BETWEEN 'z' AND 'a'" },
  { sql: "SELECT count(*) AS n FROM t WHERE f BETWEEN 'inf'::DOUBLE AND '-inf'::DOUBLE" },
  { sql: 'SELECT count(*) AS n FROM t WHERE f BETWEEN -1 AND 1' },
  { sql: 'SELECT j, j BETWEEN 3 AND 1 AS a FROM t' },
  // CASE without ELSE, COALESCE types.
  { sql: 'SELECT CASE WHEN f > 0 THEN f END AS x, count(*) AS n FROM t GROUP BY x' },
  { sql: 'SELECT sum(CASE WHEN g = \'a\' THEN j END) AS a, avg(CASE WHEN g IS NULL THEN f END) AS b FROM t' },
  { sql: 'SELECT coalesce(j, f) AS a FROM t' },
  { sql: "SELECT coalesce(s, 'z') AS a, coalesce(g, s) AS b FROM t" },
  { sql: 'SELECT coalesce(NULL, NULL, j) AS a FROM t' },
  { sql: "SELECT coalesce(ts, TIMESTAMP '2000-01-01') AS a FROM t" },
  { sql: 'SELECT coalesce(j, 1.5) AS a FROM t' },
  { sql: 'SELECT coalesce(sum(j), 0) AS a FROM t WHERE j > 100' },
  // Aggregates with FILTER, statistics over non-finite values, booleans, DISTINCT sums.
  { sql: 'SELECT avg(j) FILTER (WHERE j > 0) AS a, count(*) FILTER (WHERE g IS NULL) AS b, sum(f) FILTER (WHERE f < 100) AS c FROM t' },
  { sql: 'SELECT g, count(*) FILTER (WHERE j > 0) AS a, min(s) FILTER (WHERE s <> \'\') AS b FROM t GROUP BY g' },
  { sql: 'SELECT stddev(f) AS a, var_pop(j) AS b, stddev_samp(j) AS c FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT stddev_samp(j) AS a, var_samp(j) AS b FROM t WHERE j = 10' },
  { sql: 'SELECT g, stddev_pop(j) AS a, variance(j) AS b FROM t GROUP BY g' },
  { sql: 'SELECT bool_and(j > 0) AS a, bool_or(f > 0) AS b, bool_and(g IS NULL) AS c FROM t' },
  { sql: 'SELECT bool_and(j > 0) AS a, bool_or(j > 0) AS b FROM t WHERE j IS NULL' },
  { sql: 'SELECT sum(DISTINCT j) AS a, avg(DISTINCT j) AS b, count(DISTINCT j % 3) AS c FROM t' },
  { sql: 'SELECT g, sum(DISTINCT j) AS a FROM t GROUP BY g' },
  { sql: 'SELECT arg_max(s, j) AS a, arg_min(s, j) AS b FROM t WHERE j IN (10, -7)' },
  { sql: 'SELECT min(f) AS a, max(f) AS b FROM t WHERE f < 1' },
  // NaN and -0.0 in comparisons and functions.
  { sql: 'SELECT f, f = f AS a, f <> f AS b, f < \'nan\'::DOUBLE AS c FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f <> f' },
  { sql: "SELECT count(*) AS n FROM t WHERE f >= 'nan'::DOUBLE" },
  { sql: 'SELECT abs(f) AS a, -f AS b FROM t WHERE f = 0' },
  { sql: 'SELECT greatest(f, 0) AS a, least(f, 0) AS b FROM t' },
  { sql: 'SELECT greatest(s, g) AS a, least(s, g) AS b FROM t' },
  { sql: 'SELECT round(f, -1) AS a FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT round(j, -1) AS a FROM t' },
  // Past 10^-323 every double rounds to 0 (was the input: 0 / 0 caught as non-finite); C's pow on 1, -1 and NaN/inf.
  { sql: 'SELECT round(f, -400) = 0 AS a, round(f, 400) AS b, round(j::DOUBLE * 1.5, -330) = 0 AS c FROM t WHERE abs(f) < 1e300' },
  { sql: "SELECT power(1, f) AS a, power(1, 'nan'::DOUBLE) AS b, power(-1, 'inf'::DOUBLE) AS c, power(-1, '-inf'::DOUBLE) AS d, power(f, 0) AS e FROM t WHERE f = f" },
  // A decimal string cast to BIGINT rounds half away from zero, exactly (was half to even).
  { sql: "SELECT CAST('2.5' AS BIGINT) AS a, CAST('-2.5' AS BIGINT) AS b, CAST('.5' AS BIGINT) AS c, CAST(' 7.49 ' AS BIGINT) AS d, CAST('-0.5' AS BIGINT) AS e, count(*) AS n FROM t WHERE j = CAST('4.5' AS BIGINT) GROUP BY 1, 2, 3, 4, 5" },
  // x IS [NOT] TRUE / FALSE: never NULL (was refused with a hint to use =, which differs on NULL).
  { sql: 'SELECT (j > 2) IS TRUE AS a, (j > 2) IS NOT TRUE AS b, (f > 0) IS FALSE AS c, (s = g) IS NOT FALSE AS d, count(*) AS n FROM t GROUP BY 1, 2, 3, 4' },
  { sql: 'SELECT count(*) AS n FROM t WHERE (j > 2) IS NOT TRUE' },
  // Interval arithmetic past the exact timestamp range is refused (was off by a µs, or an internal error).
  { sql: "SELECT ts + INTERVAL '1000000 years' AS a FROM t WHERE ts IS NOT NULL" },
  { sql: "SELECT epoch_us(ts + INTERVAL '300 years' + INTERVAL '7 microsecond') AS a FROM t WHERE ts IS NOT NULL" },
  // Strings: positions and slices over non-BMP, NULL in concatenation.
  { sql: "SELECT s, length(s) AS a, strpos(s, 'b') AS b, left(s, -1) AS c, right(s, 1) AS d FROM t" },
  { sql: 'SELECT s, substring(s, -2, 5) AS a, substring(s, 0, 2) AS b, substring(s, 2) AS c FROM t' },
  { sql: "SELECT concat(s, NULL, j) AS a, s || NULL AS b, concat_ws('-', s, g) AS c FROM t" },
  { sql: "SELECT replace(s, 'a', '') AS a FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE ''" },
  { sql: 'SELECT count(*) AS n FROM t WHERE g LIKE NULL' },
  { sql: 'SELECT CAST(ts AS VARCHAR) AS a FROM t' },
  { sql: "SELECT starts_with(s, '') AS a, contains(s, 'b') AS b, ends_with(s, 'x') AS c FROM t" },
  // Arithmetic over aggregates at the root.
  { sql: 'SELECT sum(i) + sum(i) AS a FROM t WHERE i < 0' },
  { sql: 'SELECT max(i) - min(i) AS a FROM t' },
  { sql: 'SELECT count(*) / 0 AS a, avg(j) / 0 AS b, sum(j) * 1.5 AS c FROM t' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING count(*) > 1 ORDER BY g LIMIT 2 OFFSET 1', ordered: true },
  { sql: 'SELECT g, 100.0 * count(*) / sum(count(*)) OVER () AS share FROM t GROUP BY g' },
  { sql: "SELECT count(*) AS n FROM t WHERE ts = '1969-12-31 23:59:59.999999'" },
  { sql: 'SELECT count(*) AS n FROM t WHERE i > 9223372036854775806.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i <= 9223372036854775806.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = 9223372036854775806.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT (i = 9223372036854775806.5)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i <> 9223372036854775806.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE 9223372036854775806.5 < i' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i < -9223372036854775807.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i >= 9007199254740992.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i BETWEEN 9223372036854775805.5 AND 9223372036854775806.5' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i IN (9223372036854775806.5, 1)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i NOT IN (9223372036854775806.5, 1)' },
  { sql: 'SELECT i, i > 9223372036854775806.5 AS a FROM t' },
  { sql: 'SELECT * FROM t WHERE j = 10' },
  // Surface added in this round: mod, trunc, isnan, epoch, lpad/rpad, position(x IN y), FETCH FIRST, OFFSET n ROWS, GROUP BY (), extract(millisecond|microsecond).
  { sql: 'SELECT mod(f, 2) AS a, mod(-7, 3) AS b, mod(j, 0) AS c FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT trunc(j) AS a, trunc(f) AS b FROM t WHERE abs(f) < 1e300' },
  { sql: 'SELECT count(*) AS n FROM t WHERE isnan(f)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT isnan(f)' },
  { sql: 'SELECT isnan(j) AS a FROM t' },
  { sql: 'SELECT sum(epoch(ts)) AS a, min(epoch(ts)) AS b FROM t' },
  { sql: "SELECT lpad(s, 3, '*') AS a, rpad(s, 4, '𝄞') AS b, lpad(s, 0, 'x') AS c, rpad(s, -1, 'x') AS d FROM t" },
  { sql: "SELECT position('😀' IN s) AS a, position('' IN s) AS b FROM t" },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST OFFSET 2 ROWS FETCH NEXT 3 ROWS ONLY', ordered: true },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST FETCH FIRST ROW ONLY', ordered: true },
  { sql: 'SELECT sum(j) AS s, count(*) AS n FROM t WHERE j > 0 GROUP BY ()' },
  { sql: "SELECT 'FETCH FIRST 3 ROWS ONLY' AS a FROM t LIMIT 1" },
  { sql: 'SELECT extract(milliseconds FROM ts) AS a, extract(MICROSECOND FROM ts) AS b FROM t WHERE ts < TIMESTAMP \'1970-01-02\'' },
  { sql: 'SELECT extract(millisecond FROM ts) AS k, count(*) AS n FROM t GROUP BY k' },
  { sql: "SELECT ts, date_diff('week', ts, TIMESTAMP '2024-01-08') AS a, date_diff('month', TIMESTAMP '2000-01-31', ts) AS b, date_diff('year', ts, TIMESTAMP '1970-01-01') AS c FROM t" },
  { sql: "SELECT ts, date_diff('hour', ts, TIMESTAMP '1970-01-01 00:00:01') AS a, date_diff('millisecond', TIMESTAMP '1969-12-31 23:59:59.9995', ts) AS b, date_diff('second', ts, ts) AS c FROM t" },
  { sql: "SELECT ts, date_diff('quarter', ts, TIMESTAMP '2024-04-01') AS a, datediff('minute', ts, TIMESTAMP '2024-01-01') AS b, date_diff('microseconds', ts, TIMESTAMP '1970-01-01') AS c FROM t" },
  { sql: "SELECT sum(date_diff('day', ts, TIMESTAMP '2024-01-01')) AS a FROM t WHERE date_diff('day', ts, TIMESTAMP '2024-01-01') > 0" },
  { sql: "SELECT ts, strftime(ts, '%Y-%m-%d %H:%M:%S.%f') AS a, strftime(ts, '%a %A %w %j %b %B %y %I %p %g %%') AS b FROM t" },
  { sql: "SELECT ts, strftime(ts, '%-d/%-m/%-y %-H:%-M:%-S %-I %-j') AS a FROM t" },
  { sql: "SELECT strftime(date_trunc('month', ts), '%Y-%m') AS k, count(*) AS n FROM t GROUP BY k" },
  { sql: "SELECT s, regexp_matches(s, 'b') AS a, regexp_matches(s, '^.x$') AS b, regexp_matches(s, 'É', 'i') AS c, regexp_matches(s, '[%_]') AS d FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE regexp_matches(s, '^[a-z]+$') AND NOT regexp_matches(g, 'b')" },
  // RE2 matches in linear time: a backtracking engine took minutes over 30 characters here.
  { sql: "SELECT count(*) AS n FROM t WHERE regexp_matches(lpad(coalesce(s, ''), 30, 'a') || 'b', '^(a+)+$') OR regexp_full_match(lpad(coalesce(g, ''), 30, 'a'), '(a|aa)+c')" },
  // Valid RE2 that JavaScript's engine does not read (\pL, \x{61}).
  { sql: "SELECT s, regexp_matches(s, '\\pL') AS a, regexp_matches(s, '\\x{61}') AS b FROM t" },
  { sql: "SELECT s, s SIMILAR TO 'a.*' AS a, s NOT SIMILAR TO 'a|b' AS b, regexp_full_match(s, 'É.*', 'i') AS c, s SIMILAR TO '.' AS d, s SIMILAR TO 'a%' AS e FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s SIMILAR TO '[a-z]+' OR g NOT SIMILAR TO 'a|b'" },
  { sql: "SELECT g, count(*) AS n FROM t WHERE s SIMILAR TO '.*b.*' GROUP BY g" },
  { sql: "SELECT concat_ws('-', s, g, NULL) AS a, concat_ws(g, s, 'x') AS b, concat_ws(',', j, f) AS c FROM t" },
  { sql: 'SELECT make_timestamp(j * 1000001) AS a, to_timestamp(j) AS b, to_timestamp(f) AS c FROM t WHERE abs(f) < 100' },
  { sql: 'SELECT count(*) AS n FROM t WHERE ts < make_timestamp(0)' },
  // LIMIT / OFFSET beyond the rows.
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY 2, 1 LIMIT 100', ordered: true },
  { sql: 'SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 100 OFFSET 19', ordered: true },
  { sql: 'SELECT DISTINCT g FROM t ORDER BY g LIMIT 10 OFFSET 5' },
  { sql: 'SELECT j FROM t LIMIT 5 OFFSET 25' },
  { sql: 'SELECT count(*) AS n FROM t LIMIT 5 OFFSET 0' },
  { sql: 'SELECT g, max(f) AS m FROM t GROUP BY g ORDER BY m DESC, g LIMIT 10 OFFSET 4', ordered: true },
  // Found by a fresh user (session 9). AND binds tighter than OR (node-sql-parser read them
  // left to right in WHERE/HAVING), with and without a compacted OR run or IN list.
  { sql: "SELECT count(*) AS n FROM t WHERE g = 'a' OR g = 'b' AND j > 0" },
  { sql: "SELECT count(*) AS n FROM t WHERE g IS NULL OR g = 'b' AND j > 0 OR f > 1 AND NOT j < 3" },
  { sql: "SELECT count(*) AS n FROM t WHERE g IN ('a', 'c') OR g = 'b' AND j > 0" },
  { sql: `SELECT count(*) AS n FROM t WHERE g = 'a' ${Array.from({ length: 40 }, (_, k) => `OR g = 'q${k}' `).join('')}OR g = 'b' AND j > 0` },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING count(*) > 5 OR count(*) > 1 AND min(j) < 0' },
  { sql: 'SELECT count(*) FILTER (WHERE j > 0 OR f > 0 AND j < 0) AS a FROM t WHERE j BETWEEN -3 AND 3 OR g = \'a\' AND j BETWEEN 5 AND 9' },
  // A condition compared with TRUE/FALSE (was always false), in WHERE, IN, CASE, projections.
  { sql: 'SELECT count(*) AS n FROM t WHERE (j > 0) = true' },
  { sql: 'SELECT count(*) AS n FROM t WHERE (j > 0) <> false' },
  { sql: 'SELECT count(*) AS n FROM t WHERE (j > 0) IN (true)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE (j > 0) NOT IN (false, NULL)' },
  { sql: 'SELECT (j > 0) = true AS x, (j > 0) = (f > 0) AS y, isnan(f) = false AS z FROM t' },
  { sql: "SELECT CASE WHEN (f > 0) = true THEN 'p' ELSE 'n' END AS c, count(*) AS n FROM t GROUP BY 1" },
  { sql: 'WITH x AS (SELECT f > 0 AS pos FROM t) SELECT count(*) AS n FROM x WHERE pos = true' },
  // `//` glued to a number (was read as `/`).
  { sql: 'SELECT j//2 AS a, j//0 AS z, f//2 AS g FROM t' },
  { sql: 'SELECT j//2 AS a, count(*) AS n FROM t GROUP BY 1' },
  { sql: 'SELECT j % -1 AS e, i % 7 AS g FROM t' },
  // extract() of fields node-sql-parser's grammar does not read (rewritten to date_part).
  // Interval units: '3 ms' was read as 3 minutes (the plural s taken off before the abbreviation
  // was looked up) and '3 us' refused; INTERVAL n WEEK|MILLISECOND|MICROSECOND|SECONDS did not parse.
  { sql: "SELECT ts + INTERVAL '3 ms' AS a, ts + INTERVAL '3 us' AS b, ts + INTERVAL '3 hrs' AS c, ts + INTERVAL '5 s' AS d, ts + INTERVAL '2 mons' AS e FROM t" },
  { sql: "SELECT ts + INTERVAL 1 MICROSECOND AS a, ts - INTERVAL 7 MILLISECONDS AS b, ts - INTERVAL 2 WEEK AS c, ts + INTERVAL 1 QUARTER AS d, ts + INTERVAL 90 SECONDS AS e FROM t WHERE ts < TIMESTAMP '1970-01-01'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts >= TIMESTAMP '1970-01-01' - INTERVAL 3 DAYS" },
  // avg(ts): DuckDB truncates the quotient and adds one µs when the remainder is more than half
  // the count (positive sums round to nearest, halves down; negative ones truncate); canopy had
  // truncated, one µs off labelled exact.
  { sql: "SELECT avg(ts) AS a FROM t WHERE s ILIKE 'a%' OR j <= -7 OR ts <= TIMESTAMP '2000-01-01 00:00:00'" },
  { sql: 'SELECT g, avg(ts) AS a, avg(ts - INTERVAL 1 MICROSECOND) AS b FROM t GROUP BY g' },
  { sql: 'SELECT j % 4 AS k, avg(ts) AS a FROM t GROUP BY 1' },
  { sql: 'SELECT j % 3 AS k, avg(ts + INTERVAL 7 MICROSECONDS) AS a FROM t WHERE ts < TIMESTAMP \'2000-01-01\' GROUP BY 1' },
  // count(DISTINCT x) with x opening with a parenthesis was not read by the grammar.
  { sql: 'SELECT count(DISTINCT (j) + 1) AS a, count(DISTINCT (j + 1)) AS b, count(DISTINCT(j)) AS c FROM t' },
  { sql: 'SELECT g, count(DISTINCT (j) % 3) AS a FROM t GROUP BY g' },
  // ILIKE is LIKE over lower() of both sides, as DuckDB: 'İ' lowers to 'i' (the regexp's own
  // case folding did not match it), ESCAPE '' is no escape.
  { sql: "SELECT 'İstanbul' ILIKE 'istanbul' AS a, 'İSTANBUL' ILIKE 'i%' AS b, 'ß' ILIKE 'SS' AS c, s ILIKE 'É%' AS d, s NOT ILIKE '%A%' AS e, s ILIKE 'A%B' ESCAPE '' AS f FROM t" },
  // String expressions over several columns get a dictionary per batch: MIN/MAX kept codes of
  // an earlier batch's dictionary (another group's string, labelled exact), COUNT(DISTINCT) and
  // arg_max of them failed every shard. The 2-shard tree in batches of 3 rows shows it.
  { sql: 'SELECT g, max(s || g) AS m, min(s || g) AS n FROM t GROUP BY g' },
  { sql: 'SELECT g, count(DISTINCT upper(s)) AS c, count(DISTINCT s || g) AS d FROM t GROUP BY g' },
  { sql: "SELECT arg_max(s || g, j) AS a, arg_min(lower(s) || 'x', j) AS b, max(coalesce(s, g)) AS c FROM t" },
  { sql: 'SELECT g, max(coalesce(s, g)) AS m, arg_max(CASE WHEN j > 0 THEN s ELSE g END, f) AS a FROM t GROUP BY g' },
  // Group top-k truncated at every node: with NULLS FIRST on the ordering aggregate, a leaf
  // dropped the groups still NULL and the answer, ['ÉCOLE', 5], was labelled exact (DuckDB: a
  // NULL group first); now not truncated. Near 2^63 the double scores tie: exact values decide.
  { sql: 'SELECT s AS k, max(CASE WHEN j > 5 THEN NULL ELSE j END) AS a FROM t GROUP BY 1 ORDER BY a DESC NULLS FIRST, k LIMIT 1', shardSize: 1, ordered: true },
  { sql: 'SELECT g AS k, min(CASE WHEN j > 5 THEN j END) AS a FROM t GROUP BY 1 ORDER BY a ASC NULLS FIRST, k LIMIT 2', shardSize: 1, ordered: true },
  { sql: 'SELECT s AS k, max(i) AS a FROM t GROUP BY 1 ORDER BY a DESC, k LIMIT 1', ordered: true },
  { sql: 'SELECT s AS k, min(i) AS a FROM t GROUP BY 1 ORDER BY a ASC, k LIMIT 1', ordered: true },
  { sql: 'SELECT s AS k, max(i) AS a FROM t GROUP BY 1 ORDER BY a DESC, k LIMIT 2', shardSize: 1, ordered: true },
  { sql: 'SELECT j AS k, max(f) AS a FROM t GROUP BY 1 ORDER BY a DESC NULLS LAST, k LIMIT 3', shardSize: 1, ordered: true },
  // IN lists holding expressions (a cast, arithmetic, a column): lowered to OR-ed equalities.
  { sql: "SELECT count(*) AS n FROM t WHERE f IN ('nan'::DOUBLE, 7)" },
  { sql: "SELECT count(*) AS n FROM t WHERE f NOT IN ('nan'::DOUBLE, 7)" },
  { sql: 'SELECT count(*) AS n FROM t WHERE j NOT IN (1 + 1, NULL, i)' },
  { sql: 'SELECT j IN (2, j + 0) AS a, f IN (f, 1) AS b, g NOT IN (upper(g), s) AS c FROM t' },
  // A timestamp literal with a zero UTC offset (a nonzero one is refused: DuckDB drops it).
  { sql: "SELECT count(*) AS n FROM t WHERE ts < '1970-01-01T00:00:00Z' OR ts > '2000-01-01 00:00:00+00:00'" },
  { sql: "SELECT CAST('1970-01-01 00:00:01.5Z' AS TIMESTAMP) AS a, count(*) AS n FROM t WHERE ts >= TIMESTAMP '1969-12-31T23:59:59-00:00'" },
  { sql: 'SELECT extract(julian FROM ts) AS a, extract(weekday FROM ts) AS b, extract(yearweek FROM ts) AS c, extract(era FROM ts) AS d, extract(dayofyear FROM ts) AS e FROM t' },
];

/**
 * Wrong answers found by this round and not yet fixed (each an `it.fails`). Fixed in this
 * round: `SELECT count(*) AS n FROM t HAVING max(j) > 9` with the shard holding j = 10 failing
 * answered no row labelled exact (HAVING without GROUP BY was proven from the output cells
 * only, and with the row filtered out there were none); `round(j, -1)` returned j (digits
 * ignored for integers); `i > 9223372036854775806.5` compared with the literal rounded to the
 * double 2^63 (0 rows, DuckDB 1), and a negative such literal was read by the parser as a double.
 */
const KNOWN = new Set<string>([]);
/** What DuckDB answers and canopy refuses (each an `it.fails`). */
const GAPS = new Set<string>([
  // DuckDB sums i + 1 as sum(i) + count(i) (no per-row overflow); canopy refuses the row's overflow.
  'SELECT sum(i + 1) AS a FROM t',
  // Timestamps past ±2^53 µs (the years 1685 to 2255) are not held exactly: refused, not rounded.
  "SELECT epoch_us(ts + INTERVAL '300 years' + INTERVAL '7 microsecond') AS a FROM t WHERE ts IS NOT NULL",
]);

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('canopy vs DuckDB: edge cases engines get wrong', () => {
  differentialTests(EDGES, new Set([...KNOWN, ...GAPS]));
});
