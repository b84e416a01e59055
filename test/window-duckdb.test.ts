import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

beforeAll(setupDifferential);
afterAll(closeDifferential);

const QUERIES: Q[] = [
  { sql: 'SELECT g, count(*) AS n, count(*) * 100.0 / sum(count(*)) OVER () AS pct FROM t GROUP BY g ORDER BY n DESC, g NULLS LAST LIMIT 3', ordered: true },
  { sql: 'SELECT g, sum(j) AS s, sum(sum(j)) OVER () AS tot, avg(sum(j)) OVER () AS a, min(sum(j)) OVER () AS lo, max(g) OVER () AS mg, count(sum(j)) OVER () AS c, count(*) OVER () AS k FROM t GROUP BY g' },
  { sql: 'SELECT g, j % 2 AS p, count(*) AS n, sum(count(*)) OVER (PARTITION BY g) AS tot FROM t GROUP BY g, j % 2' },
];

describe('windows', () => {
  differentialTests(QUERIES, new Set());
});
