/**
 * Derived tables and common table expressions that only select and filter rows of the table
 * (what Superset's virtual datasets and Metabase's nested questions send), and grouping ones
 * read by a query that only projects, filters, orders and limits, are merged into the query
 * that reads them (src/root/sql/flatten.ts), compared with DuckDB cell by cell on the
 * differential harness's 8 trees; what cannot be merged is refused with a clear error.
 *
 * Run: npx vitest run test/subquery-merge.test.ts
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { planQuery } from '../src/root/sql/index.ts';
import { CanopyError } from '../src/merge/errors.ts';
import { SCHEMA, closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

const MERGED: Q[] = [
  { sql: 'SELECT g, count(*) AS n FROM (SELECT * FROM t) AS virtual_table GROUP BY g ORDER BY g' },
  { sql: 'SELECT virtual_table.g AS g, sum(j) AS s FROM (SELECT g, j FROM t WHERE j > 0) AS virtual_table GROUP BY virtual_table.g ORDER BY s DESC, g LIMIT 3', ordered: true },
  { sql: 'WITH x AS (SELECT g, j FROM t) SELECT g, sum(j) AS s FROM x GROUP BY g ORDER BY g' },
  { sql: "WITH x(a, b) AS (SELECT g, j FROM t WHERE j > 0), y AS (SELECT a, b * 2 AS c FROM x WHERE a <> 'b') SELECT a, sum(c) AS s, count(*) AS n FROM y GROUP BY a ORDER BY a" },
  { sql: 'SELECT v.k, count(*) AS n FROM (SELECT t.*, j + 1 AS k FROM t WHERE j > 1 ORDER BY j) AS v WHERE k > 2 GROUP BY ALL ORDER BY n DESC, k', ordered: true },
  { sql: 'SELECT * FROM (SELECT g, j FROM t WHERE j IS NOT NULL) AS s ORDER BY j, g LIMIT 5', ordered: true },
  { sql: 'SELECT * FROM (SELECT * FROM t WHERE f > 0) AS s ORDER BY i LIMIT 4', ordered: true },
  { sql: 'SELECT g AS h, count(*) AS n FROM (SELECT g, j FROM t) AS q GROUP BY g ORDER BY n DESC, h LIMIT 3', ordered: true },
  // An outer alias read by ORDER BY and HAVING; a subquery column read by both.
  { sql: 'SELECT k AS m, count(*) AS n FROM (SELECT j % 3 AS k FROM t) AS q GROUP BY k HAVING count(*) > 1 ORDER BY m' },
  // Nested derived tables, expressions over expressions, filters at every level.
  { sql: 'SELECT sum(z) AS s, min(z) AS lo FROM (SELECT y * 2 AS z FROM (SELECT j + 1 AS y FROM t WHERE j < 50) AS a WHERE y > -10) AS b WHERE z <> 4' },
  { sql: "SELECT count(*) AS n, count(DISTINCT g) AS d FROM (SELECT g, s FROM t WHERE s LIKE '%a%') AS q WHERE g IS NOT NULL" },
  { sql: "SELECT date_trunc('year', d) AS y, count(*) AS n FROM (SELECT ts AS d FROM t) AS q GROUP BY 1 ORDER BY 1" },
  // A CTE named like the table reads the table inside its own body.
  { sql: 'WITH t AS (SELECT * FROM t WHERE j >= 0) SELECT count(*) AS n, sum(j) AS s FROM t' },
  // A column list on the derived table's alias renames its columns by position (it was ignored:
  // sum(a) summed the subquery's own a, labelled exact); a shorter list renames the first ones.
  { sql: 'SELECT sum(a) AS s, min(b) AS m FROM (SELECT j AS a, f AS b FROM t) AS q(b, a)' },
  { sql: 'SELECT count(*) AS n FROM (SELECT j AS a, i AS b FROM t) AS q(b, a) WHERE a > 0' },
  { sql: 'SELECT q.x, count(*) AS n FROM (SELECT g, j FROM t) AS q(x) GROUP BY q.x ORDER BY n DESC, x NULLS FIRST LIMIT 2', ordered: true },
  { sql: 'SELECT * FROM (SELECT g, j FROM t WHERE j IS NOT NULL) q(y, z) ORDER BY z, y LIMIT 3', ordered: true },
  { sql: 'WITH x(a, b) AS (SELECT g, j FROM t) SELECT c, sum(b) AS s FROM x AS y(c) GROUP BY c ORDER BY c' },
  { sql: 'SELECT sum(x) AS s FROM (SELECT j AS x FROM t) AS q(y)' },
  { sql: 'SELECT sum(a) AS s FROM (SELECT j AS a FROM t) AS q(a, b)' },
  // A subquery that groups or aggregates, read by a query that only projects, filters, orders
  // and limits (Metabase's question over a summarised question): merged into one query.
  { sql: 'SELECT g, n FROM (SELECT g, count(*) AS n FROM t GROUP BY g) AS s WHERE n >= 4 ORDER BY g' },
  { sql: 'WITH x AS (SELECT g, count(*) AS n, sum(j) AS tot FROM t GROUP BY 1) SELECT g, tot * 2 AS d FROM x WHERE n > 1 ORDER BY d DESC, g LIMIT 2', ordered: true },
  { sql: 'SELECT * FROM (SELECT g AS k, count(*) AS n FROM t GROUP BY ALL ORDER BY ALL) AS q LIMIT 3', ordered: true },
  { sql: 'SELECT "source"."k" AS "k", "source"."n" AS "n" FROM (SELECT g AS k, count(*) AS n FROM t WHERE j > -5 GROUP BY g ORDER BY k ASC NULLS FIRST) AS "source" LIMIT 1048575', ordered: true },
  { sql: 'SELECT total FROM (SELECT sum(j) AS total FROM t) AS q WHERE total > 5' },
  { sql: 'SELECT * FROM (SELECT max(j), min(s) FROM t) AS q' },
  { sql: 'SELECT total FROM (SELECT sum(j) AS total FROM t) AS q WHERE total > 500' },
  { sql: 'SELECT n FROM (SELECT g, count(*) AS n FROM t GROUP BY g HAVING count(*) > 1) AS q WHERE g <> \'a\' ORDER BY n' },
  { sql: 'SELECT k, m FROM (SELECT j % 3 AS k, max(s) AS m FROM t GROUP BY k HAVING k IS NOT NULL) AS q ORDER BY 1' },
  { sql: 'SELECT g, s2 FROM (SELECT g, sum(j) AS s2 FROM t GROUP BY ROLLUP (g)) AS q ORDER BY g NULLS FIRST' },
  { sql: 'SELECT * FROM (SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 2) AS q', ordered: true },
  { sql: 'SELECT y, n FROM (SELECT date_trunc(\'year\', ts) AS y, count(*) AS n FROM t GROUP BY 1) AS q WHERE y >= TIMESTAMP \'1970-01-01\' ORDER BY y' },
  { sql: 'SELECT a FROM (SELECT b AS a FROM (SELECT g, avg(j) AS b FROM t GROUP BY g) AS p WHERE b > 0) AS q ORDER BY a' },
  // ORDER BY a bare name that is both an outer alias and a subquery column orders by the
  // alias (it ordered by the subquery's column, labelled exact); inside an expression the
  // name is the subquery's column, as in DuckDB.
  { sql: 'SELECT n AS k FROM (SELECT g AS k, count(*) AS n FROM t GROUP BY g) AS q ORDER BY k LIMIT 3', ordered: true },
  { sql: 'SELECT n AS k, k AS n FROM (SELECT g AS k, count(*) AS n FROM t GROUP BY g) AS q ORDER BY n NULLS FIRST, k LIMIT 4', ordered: true },
  { sql: 'SELECT 0 - i2 AS i2 FROM (SELECT j AS i2 FROM t) AS q ORDER BY i2 NULLS LAST LIMIT 3', ordered: true },
  { sql: 'SELECT 0 - i2 AS i2 FROM (SELECT j AS i2 FROM t) AS q ORDER BY i2 + 1 NULLS LAST LIMIT 3', ordered: true },
  // Names that the subquery does not give, or gives twice: refused by both.
  { sql: 'SELECT i FROM (SELECT g FROM t) AS s' },
  { sql: 'SELECT t.g FROM (SELECT g FROM t) AS s' },
];

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('derived tables and CTEs merged into their reader, vs DuckDB', () => {
  differentialTests(MERGED, new Set());
});

describe('derived tables canopy cannot merge', () => {
  const tables = new Map([[SCHEMA.name, SCHEMA]]);
  const code = (sql: string): string => {
    try {
      planQuery(sql, tables);
      return 'planned';
    } catch (e) {
      return e instanceof CanopyError ? `${e.code}: ${e.message}` : String(e);
    }
  };
  it.each([
    ['SELECT count(*) FROM (SELECT g FROM t GROUP BY g) AS s', /UNSUPPORTED: a query over a subquery that groups or aggregates is merged only when that query does not group or aggregate again/],
    ['SELECT n, count(*) FROM (SELECT g, count(*) AS n FROM t GROUP BY g) AS s GROUP BY n', /UNSUPPORTED: .* does not group or aggregate again/],
    ['SELECT DISTINCT n FROM (SELECT g, count(*) AS n FROM t GROUP BY g) AS s', /UNSUPPORTED: .* has no DISTINCT/],
    ['SELECT n FROM (SELECT g, count(*) AS n FROM t GROUP BY g LIMIT 2) AS s LIMIT 1', /UNSUPPORTED: .* does not limit again/],
    ['SELECT n FROM (SELECT g, count(*) AS n FROM t GROUP BY g LIMIT 2) AS s WHERE n > 1', /UNSUPPORTED: .* neither filters nor orders/],
    ['SELECT * FROM (SELECT j AS g, count(*) AS n FROM t GROUP BY j) AS s', /UNSUPPORTED: .* names an output column "g" like a column of the table/],
    ['SELECT n AS j FROM (SELECT g, count(*) AS n FROM t GROUP BY g) AS s WHERE j > 0', /UNSUPPORTED: .* names a column "j" like a column of the table/],
    ['SELECT n FROM (SELECT g, count(*) AS n FROM t GROUP BY 3) AS s', /BAD_QUERY: GROUP BY 3 is not a position in the subquery's SELECT list \(1 to 2\)/],
    ['SELECT n FROM (SELECT *, count(*) AS n FROM t GROUP BY ALL) AS s', /UNSUPPORTED: .* lists its columns over a table of the catalog \(no \*\)/],
    ['SELECT n FROM (SELECT g, row_number() OVER () AS n FROM t) AS s', /UNSUPPORTED: a subquery with window functions/],
    ['SELECT g FROM (SELECT g FROM t LIMIT 3) AS s', /UNSUPPORTED: a subquery with LIMIT/],
    ['SELECT g FROM (SELECT DISTINCT g FROM t) AS s', /UNSUPPORTED: a subquery with DISTINCT/],
    ['SELECT g FROM (SELECT g FROM t UNION SELECT g FROM t) AS s', /UNSUPPORTED: .*(UNION|_next)/],
    ['SELECT s.g FROM (SELECT g, g FROM t) AS s', /BAD_QUERY: column reference "g" is ambiguous/],
    ['SELECT i FROM (SELECT g, j FROM t) AS s', /UNKNOWN_COLUMN: unknown column 'i'.*known: g, j/],
    ['SELECT x.g FROM (SELECT g FROM t) AS s', /UNKNOWN_TABLE: unknown table 'x'.*known: s/],
    ['WITH RECURSIVE r AS (SELECT g FROM t) SELECT * FROM r', /UNSUPPORTED: WITH RECURSIVE/],
    // A CTE that changes data, read or not (DuckDB's dml_cte.test): it was dropped unrun.
    ['WITH ins AS (INSERT INTO t VALUES (20, 200) RETURNING g) SELECT g FROM t', /UNSUPPORTED: WITH ins AS \(INSERT \.\.\.\) is not supported/],
    ['WITH d AS (DELETE FROM t WHERE j > 0 RETURNING g) SELECT count(*) FROM t', /UNSUPPORTED: WITH d AS \(DELETE \.\.\.\)/],
    ['WITH x(a, b, c) AS (SELECT g FROM t) SELECT a FROM x', /BAD_QUERY: the column list of x names 3 columns; its query gives 1/],
  ])('%s', (sql, want) => {
    expect(code(sql)).toMatch(want);
  });
});
