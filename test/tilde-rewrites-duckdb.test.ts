/**
 * The regular-expression operators `~` / `!~` beside the rewrites that parse through a `~`
 * stand-in (src/root/sql/rewrite.ts): GLOB (read as `~*`), IS [NOT] DISTINCT FROM (a unary `~`
 * marker) and a negated zero cast `-0.0::DOUBLE` (a unary `~`). Those rewrites stood down for
 * any `~` in the query, so `s ~ 'a.*' AND s GLOB 'a*'` was a syntax error at GLOB, the same with
 * IS DISTINCT FROM was refused, and `-0.0::DOUBLE` beside a `~` gave 0.0 labelled exact. Only a
 * `~` the stand-in could be taken for (a unary `~`, bitwise NOT; a `~*`) makes them stand down.
 * Compared with DuckDB through the differential harness.
 *
 * Run: npx vitest run test/tilde-rewrites-duckdb.test.ts
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

const QUERIES: Q[] = [
  { sql: "SELECT s ~ 'a.*' AS m, s GLOB 'a*' AS g FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s !~ 'a.*' AND s GLOB '*b*'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s ~ '.*b.*' OR g IS DISTINCT FROM 'a'" },
  { sql: "SELECT g, count(*) FILTER (WHERE s IS NOT DISTINCT FROM g) AS n FROM t WHERE s !~ 'z' GROUP BY g" },
  // -0.0 shown as text: the harness compares -0.0 and 0.0 as equal numbers.
  { sql: "SELECT CAST(-0.0::DOUBLE AS VARCHAR) AS z, s ~ 'a.*' AS m FROM t" },
  // A bitwise NOT beside them still reads as one (the rewrites stand down for it).
  { sql: "SELECT ~j AS n, s ~ 'a.*' AS m FROM t" },
];

describe('~ and !~ beside GLOB, IS DISTINCT FROM and -0.0::DOUBLE agree with DuckDB', () => {
  beforeAll(async () => {
    await setupDifferential();
  }, 120_000);
  afterAll(() => closeDifferential());
  differentialTests(QUERIES, new Set());
});
