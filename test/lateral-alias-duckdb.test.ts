/**
 * Lateral column aliases (DuckDB's binder): a SELECT item may read the alias of an earlier item
 * (`SELECT sum(delay) AS s, count(*) AS n, s / n AS r FROM flights GROUP BY origin`), where a
 * name that is not a column of the table stands for the nearest earlier item of that alias.
 * A column of the table wins over an alias; an alias read before its item, or inside an
 * aggregate's argument, is refused as DuckDB refuses it. Compared with DuckDB through the
 * differential harness (every split, shards failing: exact equals DuckDB, bounded holds it).
 *
 * Run: npx vitest run test/lateral-alias-duckdb.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDifferential, differentialTests, SCHEMA, setupDifferential, SHARDS, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot, itRefuses } from './helpers/tree.ts';

const QUERIES: Q[] = [
  // Row queries.
  { sql: 'SELECT i, j + 1 AS a, a + 2 AS b FROM t ORDER BY i, j', ordered: true },
  { sql: 'SELECT upper(s) AS u, length(u) AS l, u || \'!\' AS bang FROM t WHERE s IS NOT NULL' },
  { sql: "SELECT j * 2 AS d, CASE WHEN d > 5 THEN 'big' ELSE 'small' END AS c FROM t" },
  { sql: 'SELECT i AS a, a AS b, b AS c FROM t' },
  // A column of the table wins over an alias of the same name.
  { sql: 'SELECT i AS j, j + 1 AS k FROM t' },
  // Two earlier items of one alias: the nearest one.
  { sql: 'SELECT i AS a, j AS a, a + 1 AS b FROM t' },
  // Case-insensitive, as every SQL name.
  { sql: 'SELECT j AS Big, big * 10 AS x FROM t' },
  { sql: 'SELECT j + 1 AS a, a * 2 AS b FROM t ORDER BY b DESC NULLS LAST, a LIMIT 5', ordered: true },
  // After aggregation.
  { sql: 'SELECT g, sum(j) AS x, count(*) AS n, x / n AS r FROM t GROUP BY g' },
  { sql: 'SELECT g, sum(j) AS x, x + 1 AS y FROM t GROUP BY g HAVING y > 0 ORDER BY y, g', ordered: true },
  { sql: 'SELECT sum(j) AS x, x AS y, max(f) AS m, m * 2 AS m2 FROM t' },
  { sql: 'SELECT g, count(*) AS n, n > 3 AS many FROM t GROUP BY g' },
  // Keys: grouped by the alias, by GROUP BY ALL, by DISTINCT.
  { sql: 'SELECT j + 1 AS a, a * 2 AS b FROM t GROUP BY a' },
  { sql: 'SELECT j % 3 AS m, m + 1 AS m1, count(*) AS n FROM t GROUP BY ALL' },
  { sql: 'SELECT DISTINCT j % 3 AS m, m * 10 AS mm FROM t' },
  // In subqueries merged into the query that reads them.
  { sql: 'SELECT b FROM (SELECT j + 1 AS a, a * 2 AS b FROM t) AS s WHERE b > 0' },
  { sql: 'WITH c AS (SELECT g AS o, upper(o) AS u FROM t) SELECT u, count(*) AS n FROM c GROUP BY u' },
  { sql: 'SELECT o, n2 FROM (SELECT g AS o, count(*) AS n, n * 2 AS n2 FROM t GROUP BY g) AS s WHERE n2 > 2' },
];

describe('lateral column aliases agree with DuckDB', () => {
  beforeAll(async () => {
    await setupDifferential();
  }, 120_000);
  afterAll(() => closeDifferential());
  differentialTests(QUERIES, new Set());
});

describe('lateral column aliases: refusals and names', () => {
  const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
  // DuckDB: "Column "a" referenced that exists in the SELECT clause - but this column cannot be referenced before it is defined".
  // DuckDB: "Referenced column "d" not found in FROM clause!" (an alias is not read inside an aggregate).
  itRefuses(root, [
    ['SELECT a + 2 AS b, i + 1 AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /column 'a' is the alias of this or a later SELECT item; an alias can be read only after the item that defines it/],
    ['SELECT j * 2 AS d, sum(d) FROM t', 'CANOPY_ERR_UNKNOWN_COLUMN', /unknown column 'd'.*'d' is a SELECT alias, which is not read inside an aggregate \(as in DuckDB\)/],
    ['SELECT a + 1 AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /column 'a' is the alias of this or a later SELECT item/],
    ['SELECT t.i AS a, t.a FROM t', 'CANOPY_ERR_UNKNOWN_COLUMN', /unknown column 'a'/],
  ]);

  it('an item that reads an alias without its own alias is named by its text (the alias written out, parenthesised)', async () => {
    const a = await ask(root, 'SELECT j + 1 AS a, a * 2, a AS b FROM t ORDER BY j LIMIT 1');
    expect(a.columns.map((c) => c.name)).toEqual(['a', '(j + 1) * 2', 'b']);
  });
});
