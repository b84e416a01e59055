/**
 * Hunt 24: adversarial queries against DuckDB through the differential harness
 * (test/helpers/differential.ts: 9 trees, sorted splits, batches of 3 rows, failing shards;
 * exact must equal DuckDB, bounded must hold it, a refusal must be a clear 4xx, and where
 * DuckDB refuses canopy must refuse too).
 *
 * Defects found (each a failing test first, then its fix):
 * - A subquery that aggregates without GROUP BY, read by a query that selects none of its
 *   aggregates and filters nothing (`SELECT 1 AS x FROM (SELECT count(*) AS n FROM t)`), was
 *   merged into a row query: 20 rows of 1 labelled exact where DuckDB answers one row.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

const CASES: Q[] = [
  // A merged subquery that aggregates without GROUP BY is one row, whatever its reader selects.
  { sql: 'SELECT 1 AS x FROM (SELECT count(*) AS n FROM t)' },
  { sql: 'SELECT x FROM (SELECT 1 AS x, count(*) AS n FROM t)' },
  { sql: 'SELECT 1 AS x FROM (SELECT count(*) AS n FROM t WHERE j > 100)' },
  { sql: 'SELECT 1 AS x FROM (SELECT count(*) AS n FROM t GROUP BY ALL)' },
  { sql: 'SELECT 2 AS two FROM (SELECT sum(j) AS sj FROM t HAVING sum(j) > 0)' },
  { sql: 'SELECT 2 AS two FROM (SELECT sum(j) AS sj FROM t HAVING sum(j) > 1000)' },
  { sql: 'WITH c AS (SELECT min(j) AS lo FROM t) SELECT 7 AS k FROM c' },
  { sql: 'SELECT * FROM (SELECT 1 AS one FROM t HAVING count(*) > 0)' },
];

/** Known wrong answers (each fixed by a later commit; a fixed one must leave the set). */
const FAILING = new Set<string>([]);

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('hunt 24: adversarial queries against DuckDB', () => {
  differentialTests(CASES, FAILING);
});
