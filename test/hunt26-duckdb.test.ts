/**
 * Hunt 26: adversarial queries against DuckDB through the differential harness
 * (test/helpers/differential.ts: 9 trees, sorted splits, batches of 3 rows, failing shards;
 * exact must equal DuckDB, bounded must hold it, a refusal must be a clear 4xx, and where
 * DuckDB refuses canopy must refuse too), aimed at the last sessions' code: narrow-width
 * integer arithmetic, INTERVAL constants and DATE literals, WHERE reading SELECT aliases,
 * ordered-set aggregates, dense keys of narrowing casts and year-like fields, string keys over
 * two dictionary columns.
 *
 * Defects found (each a failing test, then its fix):
 * - A WHERE alias inside a merged subquery was left for the outer query to read: `SELECT -k
 *   AS k FROM (SELECT j AS k FROM t WHERE k > 0) AS v` filtered on the outer `k` (-j > 0),
 *   labelled exact, where DuckDB filters on the inner one (j > 0); and `SELECT count(*) FROM
 *   (SELECT j AS k FROM t WHERE k > 0)` was refused (unknown column 'k').
 * - A DATE computed from DATE literals (`greatest(DATE '2024-01-01', DATE '2024-02-01')`, a
 *   CASE / coalesce / ifnull / if / nullif of them, min / max of one) as text was the
 *   TIMESTAMP's '2024-02-01 00:00:00', labelled exact, where DuckDB prints '2024-02-01'.
 * - A DATE literal with ' (BC)' right after the date (`DATE '2024-01-01 (BC)'`,
 *   `CAST('2024-01-31 (bc)' AS DATE)`) was read as the year AD: `WHERE ts > DATE '2024-01-01
 *   (BC)'` counted 5 rows where DuckDB counts 18, labelled exact (and bounded counts under a
 *   failing shard missed 18); now refused, outside canopy's years.
 * - Narrow integer widths the overflow check did not know, answered past the type, labelled
 *   exact, where DuckDB raises: a NULL literal in CASE / coalesce / if (`CASE WHEN j > 0 THEN
 *   j::TINYINT ELSE NULL END * 100`, `coalesce(NULL, 2) * 2147483647`), trunc and round(x, n)
 *   keeping their argument's type (`trunc(2147483647) + 1`), aggregates that pick a value
 *   (`mode(j::TINYINT) * 100`, first, any_value, arg_max, quantile_disc, percentile_disc and
 *   mode WITHIN GROUP); and the width's minimum % -1 (`(-128)::TINYINT % -1`, answered 0), which
 *   DuckDB refuses as it divides first.
 * - Arithmetic with a bare NULL operand computed its other operand and refused its errors
 *   (`NULL * -(ascii(s)::SMALLINT)`, `(j::INTEGER + 2147483647) * NULL`, found by a random
 *   expression fuzz) where DuckDB's binder folds it to NULL.
 * - INTERVAL months or days at -2^31 (`INTERVAL '-2147483648 months'`, DuckDB's int32 minimum)
 *   were refused as out of range where DuckDB answers.
 * - percentile_disc / percentile_cont / mode WITHIN GROUP (ORDER BY a non-integer literal)
 *   (`'a'`, 1.5, NULL) was answered where DuckDB's binder refuses it.
 *
 * Found and not fixed (see the report of this hunt):
 * - DuckDB's optimizer rewrites comparisons over narrow arithmetic before computing it, so it
 *   answers where canopy (computing the product) refuses the overflow: `WHERE j > 6 OR
 *   j::TINYINT * 20 > 0`, `HAVING max(j::TINYINT) * 20 > 0`, `SELECT j::TINYINT AS k FROM t
 *   WHERE k * 100 > 0`, `SELECT 100 AS k FROM t WHERE k * 2147483647 > 0` (hunt25's shape, more
 *   places); it also reassociates constants (`(-2147483647 - 1) + (j::INTEGER + 2147483647)`
 *   answers j - 1) and folds a NULL computed from a bare NULL (`(NULL - j::SMALLINT) -
 *   ((-128)::TINYINT - 100::TINYINT)` is NULL) where canopy computes the overflowing operand.
 * - WHERE reading an alias of the outer query over a subquery (`SELECT j AS k FROM (SELECT j
 *   FROM t) AS v WHERE k > 0`) is refused (unknown column), where DuckDB answers.
 * - Gaps DuckDB answers and canopy refuses, older than these sessions: fractional months or
 *   years in an INTERVAL text ('1.5 months'), INTERVAL (j) DAY of a column, to_days /
 *   to_months, DATE + integer and DATE - DATE, DATE '2024-1-5' and DATE '2024-01-31x', seconds
 *   past 6 fractional digits ('00:00:00.1234567'), percentile_cont(0.25::DOUBLE) and
 *   percentile_cont(1/2) WITHIN GROUP (a syntax error), percentile_disc over a BOOLEAN key,
 *   `2147483647::LONG + 1` (a syntax error).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { type Refusal, inProcessRoot, itRefuses } from './helpers/tree.ts';

const CASES: Q[] = [
  // WHERE reading a SELECT alias inside a merged subquery or CTE
  { sql: 'SELECT -k AS k FROM (SELECT j AS k FROM t WHERE k > 0) AS v' },
  { sql: 'SELECT m AS k FROM (SELECT j AS k, -j AS m FROM t WHERE k > 0) AS v' },
  { sql: 'SELECT m AS k, count(*) AS n FROM (SELECT j AS k, -j AS m FROM t WHERE k > 0) AS v GROUP BY m' },
  { sql: 'WITH v AS (SELECT j AS k, -j AS m FROM t WHERE k > 0) SELECT m AS k FROM v' },
  { sql: 'SELECT count(*) FROM (SELECT j AS k FROM t WHERE k > 0) AS v' },
  { sql: 'SELECT count(*) FROM (SELECT j AS k FROM t WHERE k > 0) AS v WHERE k < 5' },
  { sql: 'WITH v AS (SELECT j AS k FROM t WHERE k > 0) SELECT count(*) AS n FROM v' },
  { sql: 'SELECT j FROM (SELECT j, i AS k FROM t WHERE k > 0) AS v' },
  { sql: "SELECT s FROM (SELECT s, g AS s2 FROM t WHERE s2 = 'a') AS v" },
  { sql: 'SELECT * FROM (SELECT j AS i FROM t WHERE i > 0) WHERE i > -100' },
  { sql: 'SELECT m FROM (SELECT j AS k, k + 1 AS m FROM t WHERE m > 3) AS v' },
  { sql: 'SELECT k, n FROM (SELECT j % 3 AS k, count(*) AS n FROM t WHERE k > 0 GROUP BY k) AS v' },
  // narrow integer widths DuckDB's binder gives that canopy computed as BIGINT (DuckDB raises)
  { sql: 'SELECT CASE WHEN j > 0 THEN j::TINYINT ELSE NULL END * 100 AS x FROM t' },
  { sql: 'SELECT coalesce(j::TINYINT, NULL) * 100 AS x FROM t' },
  { sql: 'SELECT coalesce(NULL, 2) * 2147483647 AS x FROM t' },
  { sql: 'SELECT if(j > 0, j::TINYINT, NULL) * 100 AS x FROM t' },
  { sql: 'SELECT if(j > 0, j::TINYINT, 2) * 10 AS x, CASE WHEN j > 0 THEN NULL ELSE j::SMALLINT END * 10 AS y FROM t' },
  { sql: 'SELECT trunc(2147483647) + 1 AS x FROM t' },
  { sql: 'SELECT trunc(j::INTEGER) * 1000000000 AS x FROM t' },
  { sql: 'SELECT round(j::TINYINT, 0) * 100 AS x FROM t' },
  { sql: 'SELECT trunc(j::TINYINT, 0) * 100 AS x FROM t' },
  { sql: 'SELECT trunc(j::TINYINT) * 10 AS x, round(j::SMALLINT, 0) * 10 AS y, floor(j::TINYINT) * 100 AS z FROM t' },
  { sql: 'SELECT g, mode(j::TINYINT) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, first(j::TINYINT) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, any_value(j::TINYINT) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, arg_max(j::TINYINT, j) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, quantile_disc(j::TINYINT, 0.5) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, percentile_disc(0.5) WITHIN GROUP (ORDER BY j::TINYINT) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, mode() WITHIN GROUP (ORDER BY j::TINYINT) * 100 AS x FROM t GROUP BY g' },
  { sql: 'SELECT g, max(j::TINYINT) * 10 AS a, min(j::TINYINT) + 100 AS b, quantile_disc(j::SMALLINT, 0.5) * 1000 AS c, median(j::TINYINT) * 100 AS d, sum(j::TINYINT) * 100 AS e FROM t GROUP BY g' },
  // INTERVAL fields at DuckDB's int32 minimum
  { sql: "SELECT INTERVAL '-2147483648 months'::VARCHAR AS a, (INTERVAL '-2147483647 days' - INTERVAL '1 day')::VARCHAR AS b FROM t LIMIT 1" },
  { sql: "SELECT (INTERVAL '1 month' * -2147483648)::VARCHAR AS a, INTERVAL '-2147483648 months' < INTERVAL '1 day' AS b FROM t LIMIT 1" },
  { sql: "SELECT (-INTERVAL '-2147483648 months')::VARCHAR AS a FROM t LIMIT 1" },
  { sql: "SELECT (INTERVAL '-2147483648 days' * -1)::VARCHAR AS a FROM t LIMIT 1" },
  { sql: "SELECT (INTERVAL '2147483647 days' + INTERVAL '1 day')::VARCHAR AS a FROM t LIMIT 1" },
  // DATE values computed from DATE literals keep DuckDB's DATE text
  { sql: "SELECT greatest(DATE '2024-01-01', DATE '2024-02-01')::VARCHAR AS a, least(DATE '2024-01-01', DATE '2024-02-01')::VARCHAR AS b FROM t LIMIT 1" },
  { sql: "SELECT (CASE WHEN j > 0 THEN DATE '2024-01-01' ELSE DATE '2024-02-01' END)::VARCHAR AS a FROM t" },
  { sql: "SELECT coalesce(NULL::DATE, DATE '2024-01-01')::VARCHAR AS a, ifnull(NULL, DATE '2024-01-02')::VARCHAR AS b FROM t LIMIT 1" },
  { sql: "SELECT if(j > 0, DATE '2024-01-01', NULL)::VARCHAR AS a FROM t" },
  { sql: "SELECT nullif(DATE '2024-01-01', DATE '2024-01-01')::VARCHAR AS a, nullif(DATE '2024-01-01', ts)::VARCHAR AS b FROM t" },
  { sql: "SELECT max(DATE '2024-01-31')::VARCHAR AS a, min(CAST('2024-01-30' AS DATE))::VARCHAR AS b FROM t" },
  { sql: "SELECT g, max(CASE WHEN j > 0 THEN DATE '2024-01-31' ELSE DATE '2023-05-06' END)::VARCHAR AS a FROM t GROUP BY g" },
  { sql: "SELECT greatest(DATE '2024-01-01', DATE '2024-02-01') || 'x' AS a, concat(coalesce(NULL, DATE '2024-03-01'), '/') AS b, concat_ws('-', least(DATE '2024-01-01', DATE '2024-02-01'), 'y') AS c FROM t LIMIT 1" },
  { sql: "SELECT string_agg(CASE WHEN j > 0 THEN DATE '2024-01-01' END, ',') AS a FROM t" },
  { sql: "SELECT (CASE WHEN j > 0 THEN DATE '2024-01-01' ELSE ts END)::VARCHAR AS a, coalesce(ts, DATE '2024-01-01')::VARCHAR AS b, greatest(DATE '2024-01-01', ts)::VARCHAR AS c FROM t" },
  { sql: "SELECT CAST((DATE '2024-01-31') AS VARCHAR) AS a, ((DATE '2024-02-01'))::VARCHAR AS b FROM t LIMIT 1" },
  // a DATE literal with ' (BC)' right after the date is a date before Christ in DuckDB (refused below); not otherwise
  { sql: "SELECT DATE '2024-01-31  (BC)'::VARCHAR AS a, DATE '2024-01-31 10:00 (BC)'::VARCHAR AS b, DATE '2024-01-31 (AD)'::VARCHAR AS c FROM t LIMIT 1" },
  // an ordered-set aggregate's ORDER BY a non-integer literal: DuckDB's binder refuses it
  { sql: "SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY 'a') AS p FROM t" },
  { sql: "SELECT percentile_cont(0.5) WITHIN GROUP (ORDER BY 1.5) AS p FROM t" },
  { sql: 'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY NULL) AS p FROM t' },
  { sql: "SELECT mode() WITHIN GROUP (ORDER BY 'x') AS p FROM t" },
  { sql: 'SELECT percentile_disc(0.5) WITHIN GROUP (ORDER BY 1) AS p, mode() WITHIN GROUP (ORDER BY 2) AS m, percentile_disc(0.5) WITHIN GROUP (ORDER BY -1) AS q FROM t' },
  // the narrow minimum % -1 overflows as DuckDB divides first, in every width
  { sql: 'SELECT (-128)::TINYINT % -1 AS x FROM t LIMIT 1' },
  { sql: 'SELECT (-2147483647 - 1) % -1 AS x FROM t LIMIT 1' },
  { sql: 'SELECT (-32768)::SMALLINT % j::SMALLINT AS x FROM t' },
  { sql: 'SELECT j, j::TINYINT % 3 AS a, j::SMALLINT % -2 AS b, j::TINYINT % 0 AS c, 7 % j::INTEGER AS d, -7 % 2 AS e, NULL % j::TINYINT AS f FROM t' },
  { sql: 'SELECT g, max(j::TINYINT) % 3 AS a, min(j::SMALLINT) % -4 AS b FROM t GROUP BY g' },
  { sql: 'SELECT j::TINYINT % 4 AS k, count(*) AS n FROM t GROUP BY k' },
  // arithmetic with a bare NULL operand is NULL in DuckDB's binder, its other operand never computed
  { sql: 'SELECT j, (NULL - j::SMALLINT) - ((-128)::TINYINT - 100::TINYINT) AS x FROM t' },
  { sql: 'SELECT j, if(j > 1, (j::INTEGER + 2147483647) * NULL, 30000 + j::SMALLINT) AS x FROM t' },
  { sql: 'SELECT j, NULL * -(ascii(s)::SMALLINT) AS x, NULL // 0 AS y, NULL / j AS z, j % NULL AS w FROM t' },
];

/**
 * DuckDB also answers NULL when a NULL computed from a bare NULL (`NULL - j::SMALLINT`, a typed
 * NULL constant after its binder) meets an operand that would overflow; canopy computes that
 * operand and refuses (see the header).
 */
const FAILING = new Set<string>(['SELECT j, (NULL - j::SMALLINT) - ((-128)::TINYINT - 100::TINYINT) AS x FROM t']);

describe('hunt 26: adversarial queries against DuckDB', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(CASES, FAILING);
});

describe("hunt 26: a DATE literal ' (BC)' is a date before Christ in DuckDB, outside canopy's years: refused", () => {
  const oracle = useDuckDB();
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  const cases: Refusal[] = [
    ["SELECT count(*) FROM t WHERE ts > DATE '2024-01-01 (BC)'", 'CANOPY_ERR_TYPE', /BC/],
    ["SELECT CAST('2024-01-31 (bc)' AS DATE)::VARCHAR AS a FROM t LIMIT 1", 'CANOPY_ERR_TYPE', /BC/],
    ["SELECT DATE '2024-01-31 (BC) xyz'::VARCHAR AS a FROM t LIMIT 1", 'CANOPY_ERR_TYPE', /BC/],
  ];
  it('DuckDB reads them as dates before 1685', async () => {
    const r = await oracle().runAndReadAll("SELECT DATE '2024-01-01 (BC)' < DATE '1685-01-01' AND CAST('2024-01-31 (bc)' AS DATE) < DATE '1685-01-01' AND DATE '2024-01-31 (BC) xyz' < DATE '1685-01-01'");
    expect(r.getRows()).toEqual([[true]]);
  });
  itRefuses(root, cases);
});
