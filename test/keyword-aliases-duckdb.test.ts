/**
 * Reserved words as aliases after AS (`arg_max(date, delay) AS at`, `AS left`, `AS end`,
 * `AS group`, `AS limit`): DuckDB reads any keyword there (a ColLabel); node-sql-parser's grammar
 * does not, and canopy answered "syntax error ...: expected a name, but found a space". Each is
 * quoted before parsing (src/root/sql/surface.ts, rewriteKeywordAliases), keeping the case as
 * written. Compared with DuckDB (values and names) through the differential harness.
 *
 * Run: npx vitest run test/keyword-aliases-duckdb.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDifferential, differentialTests, SCHEMA, setupDifferential, SHARDS, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const QUERIES: Q[] = [
  { sql: 'SELECT arg_max(ts, j) AS at, max(j) AS window FROM t' },
  { sql: 'SELECT g AS left, count(*) AS right FROM t GROUP BY g' },
  { sql: 'SELECT i AS from, j AS select, s AS end FROM t' },
  { sql: 'SELECT g AS group, sum(j) AS order FROM t GROUP BY g ORDER BY 1 NULLS FIRST', ordered: true },
  { sql: 'SELECT j AS limit FROM t ORDER BY j NULLS LAST, i LIMIT 3', ordered: true },
  { sql: 'SELECT CAST(j AS DOUBLE) AS case, j AS null, i AS true, j AS current_date FROM t' },
  { sql: "SELECT 'x AS at' AS s2, j AS in FROM t WHERE j > 0" },
];

describe('reserved words as aliases agree with DuckDB', () => {
  beforeAll(async () => {
    await setupDifferential();
  }, 120_000);
  afterAll(() => closeDifferential());
  differentialTests(QUERIES, new Set());
});

describe('reserved words as aliases: names', () => {
  const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
  it('the column takes the word as written (case kept), a string holding AS at is left alone', async () => {
    const a = await ask(root, "SELECT j AS At, i AS LEFT, 'y AS at' AS end FROM t ORDER BY j LIMIT 1");
    expect(a.columns.map((c) => c.name)).toEqual(['At', 'LEFT', 'end']);
    expect(a.rows[0]![2]).toBe('y AS at');
  });
});
