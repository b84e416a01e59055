/**
 * Integer keys narrowed by a cast, as Metabase writes its date-part groupings
 * (`CAST(extract(dow FROM ts) AS integer)`), against DuckDB on the differential harness's
 * edge table and 9 trees (test/helpers/differential.ts): the leaf keeps the int64 vector
 * when every value fits the narrow type (src/leaf/expr.ts) and groups such keys on dense codes
 * like the extract they wrap (src/leaf/groupby.ts denseRange; year, isoyear, decade, century
 * and millennium on codes from the shard's first and last instants); values out of range still
 * refuse the query as DuckDB does, and rows a WHERE removed do not (row-by-row fallback).
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';

const QUERIES: readonly Q[] = [
  {
    sql: "SELECT CAST(extract(isodow FROM ts) AS integer) AS d, CAST(extract(week FROM ts + INTERVAL '1 day') AS integer) AS w, count(*) AS n, sum(j) AS s FROM t GROUP BY 1, 2 ORDER BY 1, 2",
    ordered: true,
  },
  { sql: 'SELECT CAST(extract(hour FROM ts) AS SMALLINT) AS h, CAST(j AS TINYINT) AS k, count(*) AS n FROM t GROUP BY 1, 2 ORDER BY 1, 2', ordered: true },
  { sql: 'SELECT (CAST(extract(dow FROM ts) AS integer) + 1) AS d, count(*) AS n FROM t GROUP BY 1 ORDER BY 1', ordered: true },
  // Fields that grow with time group on dense codes from the shard's first and last instants.
  { sql: 'SELECT CAST(extract(year FROM ts) AS integer) AS y, count(*) AS n FROM t GROUP BY 1 ORDER BY 1', ordered: true },
  { sql: 'SELECT year(ts) AS y, isoyear(ts) AS iy, decade(ts) AS d, century(ts) AS c, millennium(ts) AS m, count(*) AS n FROM t GROUP BY ALL ORDER BY ALL', ordered: true },
  // i holds int64 extremes: DuckDB refuses the cast, and so must canopy.
  { sql: 'SELECT CAST(i AS INTEGER) AS k, count(*) AS n FROM t GROUP BY 1' },
  { sql: 'SELECT CAST(i AS SMALLINT) AS k FROM t' },
  // An int64 vector within 2^53 (the leaf's fast path) with values past INTEGER: refused too.
  { sql: 'SELECT CAST(j * 1000000000 AS INTEGER) AS k FROM t' },
  { sql: 'SELECT CAST(j * 100 AS TINYINT) AS k, count(*) AS n FROM t GROUP BY 1' },
  // ... unless a WHERE removes them (the cast sees only the rows left).
  { sql: 'SELECT CAST(i AS INTEGER) AS k, count(*) AS n FROM t WHERE abs(i) < 1000 GROUP BY 1 ORDER BY 1', ordered: true },
  { sql: 'SELECT CAST(j * 1000000000 AS INTEGER) AS k, count(*) AS n FROM t WHERE abs(j) < 3 GROUP BY 1 ORDER BY 1', ordered: true },
  { sql: 'SELECT TRY_CAST(i AS INTEGER) AS k, count(*) AS n FROM t GROUP BY 1 ORDER BY 1', ordered: true },
];

describe('integer keys narrowed by CAST against DuckDB', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(QUERIES, new Set());
});
