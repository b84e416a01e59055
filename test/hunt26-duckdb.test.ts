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
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

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
];

const FAILING = new Set<string>([]);

describe('hunt 26: adversarial queries against DuckDB', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(CASES, FAILING);
});
