/**
 * An integer meeting a DOUBLE, against DuckDB. DuckDB compares BIGINT (or HUGEINT) with DOUBLE
 * by casting the integer to DOUBLE (its implicit cast), so `i = CAST(i AS DOUBLE)` is TRUE for
 * every i, also 2^63 - 1 and 2^53 + 1, which round to their neighbours as doubles; canopy
 * compared the two exactly (a bigint against a number) and answered FALSE there, labelled
 * exact. A decimal literal (`2.5`, DuckDB's DECIMAL) still meets an integer exactly, and so
 * does a number with an exponent that a double holds below 2^53 (the cast changes nothing
 * there). `nullif(a, b)` has a's type, as in DuckDB (it was the common type, so nullif(i, f)
 * was a double and 2^63 - 1 came back as 2^63). Compared value by value on the trees of
 * test/helpers/differential.ts (exact must equal DuckDB, bounded must hold it), and with
 * column types on one tree.
 *
 * Run: npx vitest run test/mixed-numeric-duckdb.test.ts (BREAKER_REPORT=1 prints verdicts)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerToJSON } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, type CanopyBody } from './helpers/compare.ts';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, duckConnection, setupDifferential, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

/** int64 and int128 values against doubles: columns, casts, aggregates, literals with exponents. */
const MEETS: Q[] = [
  { sql: 'SELECT count(*) AS n FROM t WHERE i = CAST(i AS DOUBLE)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE CAST(i AS DOUBLE) <= i AND i >= CAST(i AS DOUBLE)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i <> CAST(i AS DOUBLE) OR i < CAST(i AS DOUBLE) OR i > CAST(i AS DOUBLE)' },
  { sql: 'SELECT i, i = CAST(i AS DOUBLE) AS a, i IS NOT DISTINCT FROM CAST(i AS DOUBLE) AS b, i IS DISTINCT FROM CAST(i AS DOUBLE) AS c FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i BETWEEN CAST(i AS DOUBLE) AND CAST(i AS DOUBLE)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i IN (CAST(i AS DOUBLE), 1)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i NOT IN (CAST(i AS DOUBLE), 1)' },
  { sql: 'SELECT i, CASE WHEN i = CAST(i AS DOUBLE) THEN 1 ELSE 0 END AS a, CASE i WHEN CAST(i AS DOUBLE) THEN 1 ELSE 0 END AS b FROM t' },
  { sql: 'SELECT i, CASE i WHEN 9.223372036854776e18 THEN 1 WHEN 9223372036854775806.0 THEN 2 WHEN 2.5 THEN 3 ELSE 0 END AS a FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i + 0 = f * 0 + CAST(i AS DOUBLE)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = 9.223372036854776e18' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i >= 9.223372036854776e18 OR i < -9.2233720368547748e18' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = 9.007199254740992e15' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i IN (9.007199254740992e15, 9.223372036854776e18)' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i BETWEEN 9.007199254740992e15 AND 9.007199254740992e15' },
  // Integers meeting literals that stay exact (decimals are DECIMAL in DuckDB; a small exponent).
  { sql: 'SELECT count(*) AS n FROM t WHERE i = 9007199254740993.0 OR i = 9223372036854775806.0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i > 2.5 AND i < 1e3 AND j <> 1.0e0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i IN (1.0, 9007199254740993.0)' },
  // After aggregation: count, max(i) and sum(i) (int128) against doubles.
  { sql: 'SELECT g, max(i) AS m FROM t GROUP BY g HAVING max(i) = CAST(max(i) AS DOUBLE) ORDER BY g NULLS FIRST', ordered: true },
  { sql: 'SELECT g, max(i) = max(CAST(i AS DOUBLE)) AS a, sum(i) = sum(CAST(i AS DOUBLE)) AS b FROM t WHERE i > 0 GROUP BY g' },
  { sql: 'SELECT count(*) = avg(1.0e0) * count(*) AS a, max(i) >= 9.223372036854776e18 AS b FROM t' },
  // nullif keeps its first argument's type; the comparison is DuckDB's.
  { sql: 'SELECT i, nullif(i, CAST(i AS DOUBLE)) AS a, nullif(i, f) AS b, nullif(i, 2.5) AS c, nullif(i, 9007199254740993.0) AS d, nullif(f, i) AS e FROM t' },
];

/** The same queries' column types and values on one tree (the harness above compares values only). */
const TYPED = [
  'SELECT i, nullif(i, CAST(i AS DOUBLE)) AS a, nullif(i, f) AS b, nullif(i, 2.5) AS c, nullif(j, 1) AS d, nullif(f, i) AS e FROM t',
  "SELECT nullif(s, 'a') AS a, nullif(ts, TIMESTAMP '1970-01-01') AS b, nullif(NULL, j) AS c FROM t",
  // sign() is an integer (DuckDB's TINYINT) for doubles too: 0 for NaN and -0.0.
  'SELECT f, sign(f) AS a, sign(j) AS b, sign(f * 2) + 1 AS c, sign(-f) = sign(f) AS d FROM t',
  'SELECT g, sign(max(f)) AS a, sign(sum(f)) AS b, sign(count(*)) AS c FROM t GROUP BY g',
];

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('an integer meeting a double: compared as DuckDB compares them', () => {
  differentialTests(MEETS, new Set());
});

describe('nullif has its first argument type, sign an integer type', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each(TYPED)('%s', async (sql) => {
    const body = answerToJSON(await ask(root, sql)) as unknown as CanopyBody;
    expect(body.label).toBe('exact');
    const want = fromDuck(await duckConnection().runAndReadAll(sql));
    // nullif(NULL, j) is DuckDB's "NULL" type, which canopy gives j's type.
    const wantTypes = want.types.map((t, c) => (want.names[c] === 'c' && sql.includes('nullif(NULL') ? 'int64' : t));
    expect(diffResults(fromCanopy(body), { ...want, types: wantTypes }, { ordered: false })).toEqual([]);
  });
});
