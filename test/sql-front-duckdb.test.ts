/**
 * The SQL front end against DuckDB, for syntax node-sql-parser reads differently from DuckDB
 * (src/root/sql/rewrite.ts):
 * - LIMIT / OFFSET / FETCH FIRST given twice: the grammar reads two such clauses and the
 *   planner used one (`LIMIT 5 LIMIT 3` answered 5 rows, `OFFSET 1 OFFSET 2` as LIMIT 2
 *   OFFSET 1); DuckDB refuses them as syntax errors, and so must canopy, at the second clause.
 * - `extract(f FROM x)` where the grammar misreads `x`: `date + INTERVAL ...` (a column named
 *   date) and `INTERVAL ... + ts` were read as casts and refused, `extract('hour' FROM x)` and
 *   plural fields were syntax errors; date_part('f', x) read them. Now both are DuckDB's answer.
 * - `1_000`: digits grouped by underscores (the grammar read 1 AS _000).
 * - `a IS [NOT] DISTINCT FROM b` at DuckDB's precedence (looser than comparisons, BETWEEN, IN
 *   and LIKE; tighter than NOT, AND, OR; never chained with another IS), with NULL-safe
 *   semantics, in WHERE, select items, FILTER, HAVING and CASE; errors quote the user's text.
 * - DuckDB's FROM-first statements: `FROM t [clauses]` (SELECT *) and `FROM t SELECT list
 *   [clauses]`, rewritten to SELECT ... FROM (src/root/sql/front.ts) with errors at the
 *   user's positions.
 * - `* EXCLUDE (a, b)` (also `t.* EXCLUDE c`) as a SELECT item; refused where DuckDB refuses
 *   it (unknown or repeated names, nothing left) and in or over a subquery.
 * Legal forms are judged by the differential harness (test/helpers/differential.ts: 9 trees,
 * exact equals DuckDB, bounded holds it); refused forms must be refused by DuckDB too, and by
 * canopy with CANOPY_ERR_BAD_QUERY (HTTP 400) at the position of the offending clause.
 *
 * Run: npx vitest run test/sql-front-duckdb.test.ts (BREAKER_REPORT=1 prints verdicts)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerToJSON } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, type CanopyBody } from './helpers/compare.ts';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, duckConnection, setupDifferential, type Q } from './helpers/differential.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS, loadFlights } from './helpers/flights.ts';
import { ask, inProcessRoot, lineColumn, refusal } from './helpers/tree.ts';

const ordered = (sql: string): Q => ({ sql, ordered: true });

/** Legal row-limiting clauses (one row count and one offset, in either order). */
const LIMITS: Q[] = [
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST LIMIT 3 OFFSET 2'),
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST OFFSET 2 LIMIT 3'),
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST OFFSET 2 ROWS FETCH FIRST 3 ROWS ONLY'),
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST FETCH FIRST 2 ROWS ONLY OFFSET 1'),
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST OFFSET 1 ROWS LIMIT 2'),
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST LIMIT ALL OFFSET 17'),
  ordered("SELECT 'LIMIT 1 LIMIT 2 OFFSET 3' AS a, j FROM t ORDER BY j NULLS FIRST LIMIT 2"),
  ordered('SELECT j FROM t ORDER BY j NULLS FIRST /* LIMIT 9 */ LIMIT 2 -- LIMIT 1'),
  ordered('SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g NULLS FIRST LIMIT 2 OFFSET 1'),
];

/** extract over timestamp expressions, as date_part reads them. */
const EXTRACTS: Q[] = [
  { sql: 'SELECT extract(hour FROM ts + INTERVAL 1 HOUR) AS h, count(*) AS n FROM t GROUP BY h' },
  { sql: 'SELECT extract(hour FROM INTERVAL 1 HOUR + ts) AS h, count(*) AS n FROM t GROUP BY h' },
  { sql: "SELECT extract('hour' FROM ts) AS h, count(*) AS n FROM t GROUP BY h" },
  { sql: 'SELECT extract(hours FROM ts - INTERVAL 90 MINUTE) AS h, count(*) AS n FROM t GROUP BY h' },
  { sql: "SELECT extract(day FROM INTERVAL '1 day' + ts) AS d, extract(minute FROM ts + INTERVAL '30 minutes') AS m FROM t" },
  { sql: 'SELECT count(*) AS n FROM t WHERE extract(hour FROM INTERVAL 1 HOUR + ts) = 0' },
  { sql: 'SELECT count(*) FILTER (WHERE extract(dow FROM INTERVAL 1 DAY + ts) = 1) AS n FROM t' },
  { sql: 'SELECT extract(epoch FROM ts + INTERVAL 1 SECOND) AS e FROM t' },
  { sql: 'SELECT EXTRACT ( YEAR   FROM   ts + INTERVAL 1 YEAR ) AS y, count(*) AS n FROM t GROUP BY y' },
  { sql: "SELECT extract(millisecond FROM INTERVAL '1 second' + ts) AS a, extract(isodow FROM(ts + INTERVAL 3 DAY)) AS b FROM t" },
];

/** Digits grouped by underscores, as DuckDB reads them (`1_000` was read as 1 AS _000, labelled exact). */
const NUMBERS: Q[] = [
  { sql: 'SELECT 1_000 AS a, 1_000_000 + j AS b, 2_5.0_5 AS c, 1e1_0 AS d FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j < 1_0 AND i <> 9_223_372_036_854_775_807' },
  // A cast binds tighter than unary minus: -0.0::DOUBLE is -(0.0::DOUBLE), -0.0 (the grammar
  // folded the sign into the zero and dropped it); a binary minus and a parenthesised -0.0 stay.
  {
    sql:
      'SELECT CAST(-0.0::DOUBLE AS VARCHAR) AS a, CAST(-0::DOUBLE AS VARCHAR) AS b, CAST(-0.0::DOUBLE * j AS VARCHAR) AS c, CAST(j -0.0::DOUBLE AS VARCHAR) AS d, ' +
      "CAST((-0.0)::DOUBLE AS VARCHAR) AS e, CAST(-0e3::DOUBLE AS VARCHAR) AS f, CASE WHEN j > 0 THEN CAST(-.0::DOUBLE AS VARCHAR) ELSE '-0.0::DOUBLE' END AS g, CAST(-0::BIGINT AS VARCHAR) AS h FROM t",
  },
  { sql: "SELECT '1_000' AS s, 1__000 FROM t" },
];

/** count() over an argument that opens with a parenthesis (the grammar read it as a plain function and it was refused). */
const COUNTS: Q[] = [
  { sql: "SELECT count((j + 1) * 2) AS a, count((j)) AS b, count((s) || 'x') AS c, count((f)::DOUBLE) AS d FROM t" },
  { sql: 'SELECT g, count((j) % 3) AS a, count(DISTINCT (j) % 7) AS b FROM t GROUP BY g ORDER BY g NULLS FIRST', ordered: true },
  { sql: 'SELECT g FROM t GROUP BY g HAVING count((j) + 1) > 1 ORDER BY g NULLS FIRST', ordered: true },
  // With FILTER: the grammar takes no FILTER after the plain function it reads (a syntax error).
  { sql: "SELECT count((j + 1) * 2) FILTER (WHERE j > 0) AS a, count((j)) FILTER (WHERE j > 1) AS b, count( (s) || 'x') FILTER (WHERE s <> '') AS c FROM t" },
  { sql: 'SELECT g, count((j) % 3) FILTER (WHERE j IS NOT NULL) AS a FROM t GROUP BY g ORDER BY g NULLS FIRST', ordered: true },
];

/**
 * What DuckDB answers and canopy refuses (each an `it.fails`): an IS DISTINCT FROM as a BETWEEN
 * bound (DuckDB's b_expr); canopy refuses it with CANOPY_ERR_BAD_QUERY (put it in parentheses).
 */
const GAPS_DISTINCT_FROM = ['SELECT count(*) AS n FROM t WHERE TRUE BETWEEN j IS DISTINCT FROM 1 AND TRUE'];

/** IS [NOT] DISTINCT FROM: precedence against comparisons, BETWEEN, IN, LIKE, NOT, AND, OR; NULL-safe. */
const DISTINCT_FROM: Q[] = [
  { sql: 'SELECT count(*) AS n FROM t WHERE j = 1 IS DISTINCT FROM i = 1' },
  { sql: 'SELECT j = 1 IS DISTINCT FROM i = 1 AS x, count(*) AS n FROM t GROUP BY x' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > 0 IS NOT DISTINCT FROM TRUE' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j < 2 IS DISTINCT FROM j > 2' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j = i IS DISTINCT FROM i = j' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j BETWEEN 0 AND 5 IS DISTINCT FROM TRUE' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j IN (1, 2) IS DISTINCT FROM TRUE' },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE 'a%' IS DISTINCT FROM TRUE" },
  { sql: 'SELECT count(*) AS n FROM t WHERE TRUE IS DISTINCT FROM j BETWEEN 0 AND 5' },
  { sql: "SELECT count(*) AS n FROM t WHERE f IS NOT DISTINCT FROM 'nan'::DOUBLE" },
  { sql: 'SELECT count(*) AS n FROM t WHERE j * 2 IS DISTINCT FROM j + j' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT j IS DISTINCT FROM i' },
  { sql: 'SELECT NOT j = 1 IS DISTINCT FROM i = 1 AS x, count(*) AS n FROM t GROUP BY x' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > 0 IS DISTINCT FROM NOT i > 0' },
  { sql: 'SELECT count(*) AS n FROM t WHERE NOT j > 0 IS NOT DISTINCT FROM NOT i > 0' },
  { sql: "SELECT count(*) AS n FROM t WHERE g = 'a' OR j > 0 IS DISTINCT FROM i > 0 AND s IS NOT NULL" },
  { sql: "SELECT count(*) AS n FROM t WHERE j > 0 IS DISTINCT FROM i > 0 OR g IS NOT DISTINCT FROM NULL AND NOT s IS DISTINCT FROM 'a'" },
  { sql: 'SELECT j IS NULL IS DISTINCT FROM TRUE AS x, count(*) AS n FROM t GROUP BY x' },
  { sql: 'SELECT count(*) AS n FROM t WHERE (j IS DISTINCT FROM i) IS DISTINCT FROM (g IS NULL)' },
  { sql: 'SELECT NULL IS NOT DISTINCT FROM NULL AS a, NULL IS DISTINCT FROM NULL AS b, j IS NOT DISTINCT FROM NULL AS c, g IS DISTINCT FROM s AS d FROM t' },
  { sql: "SELECT count(*) FILTER (WHERE j = 1 IS DISTINCT FROM i = 1) AS a, sum(j) FILTER (WHERE NOT g IS NOT DISTINCT FROM 'a') AS b, avg(f) FILTER (WHERE j > 0 IS DISTINCT FROM f < 100) AS c FROM t" },
  { sql: 'SELECT count_if(j > 0 IS DISTINCT FROM f > 0) AS a, count(*) FILTER (WHERE g IS NOT DISTINCT FROM s OR j IS NULL) AS b FROM t' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g HAVING max(j) > 5 IS DISTINCT FROM min(j) < 0' },
  { sql: "SELECT CASE WHEN j = 1 IS NOT DISTINCT FROM i = 1 THEN 'same' ELSE 'differ' END AS c, count(*) AS n FROM t GROUP BY c" },
  { sql: "SELECT count(*) AS n FROM t WHERE s IS DISTINCT FROM '~' AND g is not distinct from 'a'" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts + INTERVAL 1 DAY IS DISTINCT FROM TIMESTAMP '2024-01-02'" },
  ...GAPS_DISTINCT_FROM.map((sql) => ({ sql })),
];


/** A query both refuse: `at` is the text (its last occurrence; '' the end) the error must point at, `says` what the message names. */
interface Refused {
  readonly sql: string;
  readonly at: string;
  readonly says: RegExp;
}

const REFUSED: Refused[] = [
  { sql: 'SELECT j FROM t LIMIT 5 LIMIT 3', at: 'LIMIT', says: /LIMIT given twice/ },
  { sql: 'SELECT count(*) AS n FROM t LIMIT 5 LIMIT 3', at: 'LIMIT', says: /LIMIT given twice/ },
  { sql: 'SELECT j FROM t LIMIT ALL LIMIT 1', at: 'LIMIT', says: /LIMIT given twice/ },
  { sql: 'SELECT j FROM t LIMIT 1 OFFSET 1 LIMIT 2', at: 'LIMIT', says: /LIMIT given twice/ },
  { sql: 'SELECT j FROM t OFFSET 1 LIMIT 2 LIMIT 3', at: 'LIMIT', says: /LIMIT given twice/ },
  { sql: 'SELECT j FROM t LIMIT 2 OFFSET 1 OFFSET 4', at: 'OFFSET', says: /OFFSET given twice/ },
  { sql: 'SELECT j FROM t OFFSET 1 OFFSET 2', at: 'OFFSET', says: /OFFSET given twice/ },
  { sql: 'SELECT j FROM t OFFSET 1 LIMIT 1 OFFSET 2', at: 'OFFSET', says: /OFFSET given twice/ },
  { sql: 'SELECT j FROM t OFFSET 1 ROWS OFFSET 2 ROWS', at: 'OFFSET', says: /OFFSET given twice/ },
  { sql: 'SELECT j FROM t LIMIT 2 FETCH FIRST 3 ROWS ONLY', at: 'FETCH', says: /FETCH FIRST after LIMIT/ },
  { sql: 'SELECT j FROM t FETCH FIRST 3 ROWS ONLY LIMIT 2', at: 'LIMIT', says: /LIMIT after FETCH FIRST/ },
  { sql: 'SELECT j FROM t FETCH FIRST 3 ROWS ONLY FETCH NEXT 1 ROWS ONLY', at: 'FETCH', says: /FETCH NEXT after FETCH FIRST/ },
  { sql: 'SELECT j FROM t LIMIT 2 OFFSET 1 FETCH FIRST 1 ROWS ONLY', at: 'FETCH', says: /FETCH FIRST after LIMIT/ },
  { sql: 'SELECT j\nFROM t\n  LIMIT 5\n  LIMIT 3', at: 'LIMIT', says: /line 4, column 3: LIMIT given twice/ },
  { sql: 'SELECT j FROM t LIMIT 1, 2', at: ',', says: /syntax error/ },
  { sql: 'SELECT extract(hour FROM ts, 1) AS h FROM t', at: ',', says: /syntax error/ },
  { sql: 'SELECT count(*) AS n FROM t WHERE j IS DISTINCT FROM i IS DISTINCT FROM g', at: 'IS DISTINCT FROM g', says: /IS after IS DISTINCT FROM/ },
  { sql: 'SELECT count(*) AS n FROM t WHERE j IS DISTINCT FROM 1 IS NOT NULL', at: 'IS NOT NULL', says: /IS after IS DISTINCT FROM/ },
  { sql: 'SELECT j > 0 IS NOT DISTINCT FROM i > 0 IS TRUE AS x FROM t', at: 'IS TRUE', says: /IS after IS NOT DISTINCT FROM/ },
  { sql: 'SELECT g IS NULL IS DISTINCT FROM s IS NULL AS x FROM t', at: 'IS NULL AS', says: /IS after IS DISTINCT FROM/ },
  { sql: 'SELECT count(*) AS n FROM t WHERE TRUE IS DISTINCT FROM j BETWEEN 0 AND 5 IS NULL', at: 'IS NULL', says: /IS after IS DISTINCT FROM/ },
  { sql: 'SELECT count(*) FILTER (WHERE j IS NOT DISTINCT FROM i IS NULL) AS n FROM t', at: 'IS NULL', says: /IS after IS NOT DISTINCT FROM/ },
  { sql: 'SELECT count(*) AS n FROM t WHERE IS DISTINCT FROM i', at: 'IS DISTINCT', says: /found 'IS'/ },
  { sql: 'SELECT count(*) AS n FROM t WHERE j IS DISTINCT FROM ', at: '', says: /end of input/ },
  // FROM-first: positions in the reordered text point at the user's.
  { sql: 'FROM t WHERE j > 0 SELECT s', at: 'SELECT', says: /found 'SELECT'/ },
  { sql: 'FROM t\nSELECT j\nLIMIT 5\nLIMIT 3', at: 'LIMIT', says: /line 4, column 1: LIMIT given twice/ },
  { sql: 'FROM t SELECT j WHERE', at: '', says: /end of input/ },
  { sql: 'FROM t SELECT j, FROM', at: 'FROM', says: /found 'FROM'/ },
  { sql: "SELECT count(*) AS n FROM t WHERE s ILIKE 'a' || '%' LIMIT 1 LIMIT 2", at: 'LIMIT', says: /LIMIT given twice/ },
];



beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('LIMIT, OFFSET and FETCH FIRST, one of each: equal to DuckDB', () => {
  differentialTests(LIMITS, new Set());
});

describe('extract(field FROM timestamp expression): equal to DuckDB', () => {
  differentialTests(EXTRACTS, new Set());
});

describe('numbers with underscores: equal to DuckDB', () => {
  differentialTests(NUMBERS, new Set());
});

/** A typed NULL (was refused: "cannot cast 'NULL' (int64) to TIMESTAMP"). */
const TYPED_NULLS: Q[] = [
  { sql: 'SELECT NULL::TIMESTAMP AS a, CAST(NULL AS VARCHAR) AS b, CAST(NULL AS DOUBLE) + f AS c, coalesce(CAST(NULL AS BIGINT), j) AS d FROM t' },
  { sql: 'SELECT count(*) AS n, max(coalesce(ts, NULL::TIMESTAMP)) AS m FROM t WHERE ts IS DISTINCT FROM CAST(NULL AS TIMESTAMP)' },
  { sql: "SELECT g, CASE WHEN j > 0 THEN CAST(NULL AS VARCHAR) ELSE s END AS c FROM t ORDER BY g NULLS FIRST, c NULLS FIRST", ordered: true },
  { sql: 'SELECT CASE WHEN NULL THEN 1 ELSE 2 END AS a, CASE WHEN NULL THEN g WHEN j > 0 THEN s END AS b FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE CASE WHEN NULL THEN true ELSE j > 0 END' },
  // A cast of a cast: as a whole SELECT item the grammar gave it without its item wrapper (refused);
  // x::A::B is one node with both targets, and only A was read (j::DOUBLE::VARCHAR answered numbers, labelled exact).
  { sql: "SELECT count(*) AS n FROM t WHERE j::DOUBLE::VARCHAR = '-1.0' OR f::VARCHAR::DOUBLE > 1" },
  { sql: "SELECT CAST('7' AS DOUBLE)::BIGINT AS a, j::DOUBLE::VARCHAR AS b, CAST(j AS VARCHAR)::BIGINT FROM t" },
];

describe('typed NULLs: equal to DuckDB', () => {
  differentialTests(TYPED_NULLS, new Set());
});

/** DuckDB's FROM-first statements (were refused: "expected SELECT or WITH, but found 'FROM'"). */
const FROM_FIRST: Q[] = [
  { sql: 'FROM t' },
  { sql: 'from t;' },
  { sql: 'FROM t WHERE j > 0' },
  { sql: "FROM t SELECT s, j + 1 AS k WHERE g = 'a'" },
  { sql: 'FROM t SELECT g, count(*) AS n, sum(j) AS s GROUP BY g HAVING count(*) > 1' },
  ordered('FROM t ORDER BY j NULLS FIRST, s NULLS FIRST LIMIT 4 OFFSET 1'),
  ordered('/* a comment */ FROM t\nSELECT DISTINCT g\nORDER BY g NULLS LAST'),
  { sql: 'FROM t AS x SELECT x.j, extract(year FROM x.ts) AS y WHERE x.j IS NOT NULL' },
  { sql: "FROM t SELECT count(*) FILTER (WHERE s ILIKE 'a' || '%') AS n" },
  { sql: 'FROM t SELECT max(j)' },
  { sql: 'FROM t SELECT max(j) AS m -- the FROM clause must not end up in this comment' },
  { sql: 'FROM t -- a comment\nSELECT count(*) AS n /* WHERE */ WHERE j > 0 -- done' },
];

describe('FROM-first statements: equal to DuckDB', () => {
  differentialTests(FROM_FIRST, new Set());
});

/** `* EXCLUDE (...)` (was a syntax error). */
const EXCLUDES: Q[] = [
  { sql: 'SELECT * EXCLUDE (f, ts) FROM t' },
  { sql: 'SELECT * EXCLUDE j FROM t WHERE j > 0' },
  { sql: 'SELECT * exclude (t.j, "S", I,) FROM t' },
  { sql: 'SELECT t.* EXCLUDE t.f, j + 1 AS k FROM t' },
  { sql: 'SELECT j, * EXCLUDE (f, i, ts), * EXCLUDE (s, g, j) FROM t' },
  ordered('SELECT * EXCLUDE (f) FROM t ORDER BY 1 NULLS FIRST, ts NULLS FIRST, s NULLS FIRST LIMIT 5'),
  { sql: 'FROM t SELECT * EXCLUDE (ts, f) WHERE s IS NOT NULL' },
  { sql: "SELECT * EXCLUDE (f) FROM t WHERE s = '* EXCLUDE (s)'" },
];

describe('* EXCLUDE: equal to DuckDB', () => {
  differentialTests(EXCLUDES, new Set());
});

describe('* EXCLUDE refused where DuckDB refuses it', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ['SELECT * EXCLUDE (nope) FROM t', /"nope" in EXCLUDE list not found/],
    ['SELECT * EXCLUDE (j, J) FROM t', /duplicate entry "J" in EXCLUDE list/],
    ['SELECT * EXCLUDE (f, i, j, ts, s, g) FROM t', /SELECT list is empty/],
    ['SELECT * EXCLUDE (u.j) FROM t', /unknown table 'u'/],
    ['SELECT count(* EXCLUDE (j)) AS n FROM t', /only as a SELECT item/],
    ['SELECT * EXCLUDE () FROM t', /syntax error at line 1, column 10/],
  ])('%s', async (sql, says) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect(e.message).toMatch(says);
  });
  it('in or over a subquery: refused (a gap: DuckDB answers), never answered with the excluded column', async () => {
    await expect(duckConnection().run('SELECT f FROM (SELECT * EXCLUDE (f) FROM t)')).rejects.toThrow(/"f" not found/);
    for (const sql of ['SELECT f FROM (SELECT * EXCLUDE (f) FROM t)', 'SELECT j FROM (SELECT * EXCLUDE (f) FROM t)', 'SELECT * EXCLUDE (f) FROM (SELECT * FROM t)']) {
      const e = await refusal(root, sql);
      expect([e.code, e.message]).toEqual(['CANOPY_ERR_UNSUPPORTED', '* EXCLUDE in or over a subquery is not supported; list the columns']);
    }
  });
});

describe('count() of a parenthesised expression: equal to DuckDB', () => {
  differentialTests(COUNTS, new Set());
});

describe('IS [NOT] DISTINCT FROM at DuckDB precedence: equal to DuckDB', () => {
  differentialTests(DISTINCT_FROM, new Set(GAPS_DISTINCT_FROM));
});

describe('refused by DuckDB, and by canopy with CANOPY_ERR_BAD_QUERY at the offending clause', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each(REFUSED)('$sql', async ({ sql, at, says }) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow(/Parser Error|syntax error/i);
    const e = await refusal(root, sql);
    expect([e.code, e.status]).toEqual(['CANOPY_ERR_BAD_QUERY', 400]);
    const offset = sql.lastIndexOf(at);
    const { line, column } = lineColumn(sql, offset);
    expect(e.position).toEqual({ line, column, offset });
    expect(e.message).toContain(`line ${line}, column ${column}`);
    expect(e.message).toMatch(says);
    // The rewrites' markers never reach the user.
    expect(e.message).not.toMatch(/~|\bAND ~|\bOR ~/);
  });

  it('type errors in IS DISTINCT FROM quote the user operands, not the rewrite', async () => {
    for (const sql of ['SELECT count(*) AS n FROM t WHERE s IS DISTINCT FROM 1', "SELECT count(*) AS n FROM t WHERE j IS NOT DISTINCT FROM 'abc'"]) {
      await expect(duckConnection().run(sql)).rejects.toThrow();
      const e = await refusal(root, sql);
      expect(e.code).toBe('CANOPY_ERR_TYPE');
      expect(e.message).not.toContain('~');
    }
  });
});

describe('the flights fixture (a column named date): extract over date + INTERVAL equals DuckDB and date_part', () => {
  const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 2 });
  beforeAll(() => loadFlights(duckConnection()));
  const pairs = [
    ['extract(hour FROM date + INTERVAL 1 HOUR)', "date_part('hour', date + INTERVAL 1 HOUR)"],
    ["extract(day FROM date + INTERVAL '1 day')", "date_part('day', date + INTERVAL '1 day')"],
    ['extract(hour FROM date - INTERVAL 1 HOUR)', "date_part('hour', date - INTERVAL 1 HOUR)"],
    ["extract(minute FROM date + INTERVAL '30 minutes')", "date_part('minute', date + INTERVAL '30 minutes')"],
    ['extract(hour FROM INTERVAL 1 HOUR + date)', "date_part('hour', INTERVAL 1 HOUR + date)"],
    ["extract('hour' FROM date + INTERVAL 1 HOUR)", "date_part('hour', date + INTERVAL 1 HOUR)"],
    ['extract(doy FROM date + INTERVAL 1 DAY)', "date_part('doy', date + INTERVAL 1 DAY)"],
    ['EXTRACT(HOURS FROM date + INTERVAL 1 HOUR)', "date_part('hours', date + INTERVAL 1 HOUR)"],
  ];
  it.each(pairs)('%s', async (extract, datePart) => {
    const sqls = [`SELECT ${extract} AS h, count(*) AS n FROM flights GROUP BY h ORDER BY h`, `SELECT ${datePart} AS h, count(*) AS n FROM flights GROUP BY h ORDER BY h`];
    const want = fromDuck(await duckConnection().runAndReadAll(sqls[0]!));
    expect(want.rows.length).toBeGreaterThan(1);
    for (const sql of sqls) {
      const body = answerToJSON(await ask(root, sql)) as unknown as CanopyBody & { label: string };
      expect(body.label, sql).toBe('exact');
      expect(diffResults(fromCanopy(body), want, { ordered: true }), sql).toEqual([]);
    }
  });

  it('in WHERE and FILTER', async () => {
    const sql = 'SELECT count(*) FILTER (WHERE extract(hour FROM date + INTERVAL 1 HOUR) > 6) AS a, count(*) AS n FROM flights WHERE extract(month FROM date + INTERVAL 1 MONTH) <= 3';
    const body = answerToJSON(await ask(root, sql)) as unknown as CanopyBody & { label: string };
    expect(body.label).toBe('exact');
    expect(diffResults(fromCanopy(body), fromDuck(await duckConnection().runAndReadAll(sql)), { ordered: true })).toEqual([]);
  });
});
