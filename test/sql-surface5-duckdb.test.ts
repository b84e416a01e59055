/**
 * More DuckDB SQL over one table, against DuckDB (round 5 of test/sql-surface-duckdb.test.ts,
 * closing gaps found by DuckDB's own sqllogictest queries, test/peer-duckdb-suite.test.ts):
 * - INTERVAL constants as DuckDB computes them (src/root/sql/intervals.ts): months, days and
 *   µs kept apart; literals in every form (`'1 day 02:00:00'`, `'2Y 3 mons 1M'`, `'1.5 weeks'`,
 *   `'x'::INTERVAL`, `INTERVAL 'x' UNIT` and `INTERVAL (x) UNIT`, where DuckDB casts x to DOUBLE
 *   and truncates the count except for seconds and milliseconds), sums, differences, negations
 *   and integer multiples of them; cast to VARCHAR (DuckDB's text), compared (=, <, BETWEEN,
 *   IN, IS DISTINCT FROM: DuckDB's normalised order) and added to timestamps;
 * - DATE literals (`DATE '...'`, `CAST('...' AS DATE)`, `'...'::DATE`): the date alone, the
 *   DATE at its midnight, as text DuckDB's DATE text;
 * - make_timestamp_ms(BIGINT ms); `CASE (x) WHEN ...` (the grammar read `CASE (` as a call);
 * - SELECT aliases in WHERE (`SELECT j % 2 AS k FROM t WHERE k <> 0`).
 * Values are checked against DuckDB over random intervals on the shared differential table
 * (test/helpers/differential.ts: 9 trees, shard splits and failing shards; exact equals
 * DuckDB, bounded holds it), and refusals as DuckDB refuses, or clearly where canopy cannot
 * hold the value (an INTERVAL answer column).
 *
 * Run: npx vitest run test/sql-surface5-duckdb.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { closeDifferential, differentialTests, duckConnection, setupDifferential, verdict, SCHEMA, SHARDS, type Q } from './helpers/differential.ts';
import { inProcessRoot, refusal } from './helpers/tree.ts';

beforeAll(setupDifferential);
afterAll(closeDifferential);

/**
 * Unit words in an interval text, as DuckDB spells them (singular, plural, abbreviations), with
 * the largest count drawn for each: sums and multiples of them added to the table's timestamps
 * (1900 to 2100) stay within the years canopy holds (1685 to 2255).
 */
const WHOLE_UNITS: readonly (readonly [string, number])[] = [
  ['year', 8], ['years', 8], ['y', 8], ['yrs', 8], ['month', 40], ['mons', 40], ['quarter', 12], ['decade', 1], ['dec', 1], ['day', 40], ['days', 40], ['d', 40],
  ['week', 40], ['w', 40], ['hour', 40], ['hrs', 40], ['minute', 40], ['min', 40], ['m', 40], ['second', 40], ['s', 40], ['millisecond', 40], ['ms', 40],
  ['mseconds', 40], ['microsecond', 40], ['us', 40], ['useconds', 40],
];
/** The units a fraction may count in an interval text (the month units take whole counts only in canopy). */
const FRACTION_UNITS = ['day', 'days', 'week', 'hour', 'minute', 'second', 'seconds', 'ms', 'us'];
const two = (n: number): string => String(n).padStart(2, '0');

/** One part of an interval text: a whole count of a unit, a fraction of a time unit, or a clock. */
const part = fc.oneof(
  fc.constantFrom(...WHOLE_UNITS).chain(([u, max]) => fc.integer({ min: -max, max }).map((n) => `${n} ${u}`)),
  fc.tuple(fc.integer({ min: -30, max: 30 }), fc.integer({ min: 0, max: 9_999_999 }), fc.constantFrom(...FRACTION_UNITS)).map(([n, f, u]) => `${n}.${String(f).padStart(7, '0').replace(/0+$/, '') || '0'} ${u}`),
  fc.tuple(fc.boolean(), fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 59 }), fc.integer({ min: 0, max: 999_999 })).map(([neg, h, m, s, us]) => `${neg ? '-' : ''}${two(h)}:${two(m)}:${two(s)}${us === 0 ? '' : `.${String(us).padStart(6, '0')}`}`),
);

/** A decimal text for `INTERVAL 'x' UNIT` (signs, fractions, halves, spaces DuckDB's DOUBLE cast reads). */
const countText = (max: number): fc.Arbitrary<string> =>
  fc.tuple(fc.integer({ min: -max, max }), fc.constantFrom('', '.5', '.25', '.9', '.0000005', '.0015', '.4999999', '.75'), fc.constantFrom('', ' ')).map(([n, f, sp]) => `${sp}${n}${f}${sp}`);
/** The units of `INTERVAL 'x' UNIT` and `INTERVAL (x) UNIT`, with the largest count drawn. */
const OUTSIDE_UNITS: readonly (readonly [string, number])[] = [['YEAR', 20], ['MONTH', 200], ['DAY', 500], ['HOUR', 500], ['MINUTE', 500], ['SECOND', 500]];

/** An INTERVAL literal in one of the forms DuckDB and canopy read. */
const intervalLiteral = fc.oneof(
  fc.tuple(fc.array(part, { minLength: 1, maxLength: 3 }), fc.constantFrom('', '', ' ago', ' AGO')).map(([p, ago]) => `INTERVAL '${p.join(' ')}${ago}'`),
  fc.array(part, { minLength: 1, maxLength: 3 }).map((p) => `'${p.join(' ')}'::INTERVAL`),
  fc.constantFrom(...OUTSIDE_UNITS).chain(([u, max]) => countText(max).map((x) => `INTERVAL '${x}' ${u}`)),
  fc.constantFrom(...OUTSIDE_UNITS).chain(([u, max]) => countText(max).map((x) => `INTERVAL (${x.trim()}) ${u}`)),
  fc.tuple(fc.nat({ max: 120 }), fc.constantFrom('DAYS', 'WEEK', 'HOURS', 'MILLISECONDS', 'MICROSECOND', 'MONTHS', 'quarter')).map(([n, u]) => `INTERVAL ${n} ${u}`),
);

/** An INTERVAL constant expression: a literal, or a sum, difference, negation or integer multiple of them. */
const intervalExpr = fc.oneof(
  { weight: 3, arbitrary: intervalLiteral },
  { weight: 1, arbitrary: fc.tuple(intervalLiteral, fc.constantFrom('+', '-'), intervalLiteral).map(([a, op, b]) => `(${a} ${op} ${b})`) },
  { weight: 1, arbitrary: fc.tuple(fc.integer({ min: -2, max: 2 }), intervalLiteral).map(([k, a]) => (k % 2 === 0 ? `(${k} * ${a})` : `(${a} * ${k})`)) },
  { weight: 1, arbitrary: intervalLiteral.map((a) => `(-${a})`) },
);

describe('INTERVAL constants: equal to DuckDB over random intervals, on every tree of the differential table', () => {
  it('cast to VARCHAR (DuckDB\'s text), compared (=, <>, <, <=, >, >=, BETWEEN, IN, IS DISTINCT FROM) and added to / subtracted from timestamps', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(intervalExpr, intervalExpr, async (a, b) => {
        const sql = `SELECT ts, CAST(${a} AS VARCHAR) AS a, ${b}::VARCHAR AS b, ${a} = ${b} AS c, ${a} < ${b} AS d, ${a} >= ${b} AS e, ${a} <> ${b} AS h, ` +
          `${a} BETWEEN ${b} AND ${b} + INTERVAL '1 month' AS k, ${a} IN (${b}, INTERVAL '1 day') AS l, ${a} IS DISTINCT FROM ${b} AS m, ` +
          `ts + ${a} AS n, ts - ${b} AS o, ${a} + ts AS p FROM t`;
        const v = await verdict({ sql });
        expect(v, sql).toEqual([]);
        checked++;
      }),
      { numRuns: 120, seed: 2501 },
    );
    expect(checked).toBe(120);
  }, 600_000);
});

/**
 * Two intervals near each other in DuckDB's order: the second moves whole 30-day months between
 * months and days and whole days between days and hours (signs mixed), then maybe 1 hour more
 * or less, so DuckDB's carries (truncating toward zero) decide the comparison.
 */
const nearPair = fc
  .tuple(fc.integer({ min: -2, max: 2 }), fc.integer({ min: -65, max: 65 }), fc.integer({ min: -40, max: 40 }), fc.integer({ min: -23, max: 23 }), fc.integer({ min: -2, max: 2 }), fc.integer({ min: -40, max: 40 }), fc.constantFrom(0, 0, 1, -1))
  .map(([m, d, days, h, sm, sd, noise]): [string, string] => [
    `INTERVAL '${m} months ${d} days ${days * 24 + h} hours'`,
    `INTERVAL '${m + sm} months ${d - 30 * sm + sd} days ${(days - sd) * 24 + h + noise} hours'`,
  ]);

describe('INTERVAL comparisons where DuckDB\'s carries decide: equal to DuckDB', () => {
  it('=, <, >= and IS DISTINCT FROM between intervals whose µs carry into days and days into 30-day months', async () => {
    let equal = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(nearPair, { minLength: 8, maxLength: 8 }), async (pairs) => {
        const sql = `SELECT ${pairs.map(([a, b], k) => `${a} = ${b} AS e${k}, ${a} < ${b} AS l${k}, ${a} >= ${b} AS g${k}, ${a} IS DISTINCT FROM ${b} AS d${k}`).join(', ')} FROM t LIMIT 1`;
        const want = await duckConnection().runAndReadAll(sql);
        equal += want.getRows()[0]!.filter((v, c) => c % 4 === 0 && v === true).length;
        expect(await verdict({ sql }), sql).toEqual([]);
      }),
      { numRuns: 60, seed: 2502 },
    );
    // The drawn pairs hit equal intervals written differently, where the carries matter.
    expect(equal).toBeGreaterThan(50);
  }, 300_000);
});

const INTERVALS: Q[] = [
  // DuckDB's own cases (test/sql/types/interval/*.test), cast to VARCHAR.
  { sql: "SELECT INTERVAL '-2yrs 4 d 5 hrs 1 mins 3 seconds 20 mseconds 16 useconds'::VARCHAR AS a, INTERVAL '2Y 1 month 1M 3S 20mS 16uS'::VARCHAR AS b FROM t LIMIT 1" },
  { sql: "SELECT (INTERVAL '1.5' SECOND)::VARCHAR AS a, (INTERVAL '1.5' MINUTE)::VARCHAR AS b, (INTERVAL '1.5' HOUR)::VARCHAR AS c, (INTERVAL '1.9' DAY)::VARCHAR AS d, (INTERVAL '-1.7' MONTH)::VARCHAR AS e, (INTERVAL '-0.5' DAY)::VARCHAR AS f FROM t LIMIT 1" },
  { sql: "SELECT (INTERVAL '1 year 2 days 2 seconds' * 3)::VARCHAR AS a, (-(INTERVAL '1 month' - INTERVAL '2 days'))::VARCHAR AS b, (2 * INTERVAL '-1 month 1 day')::VARCHAR AS c, (INTERVAL '1 day' * NULL)::VARCHAR AS d, (INTERVAL '1 day' * (-2)::BIGINT)::VARCHAR AS e FROM t LIMIT 1" },
  { sql: "SELECT INTERVAL '30' DAY >= INTERVAL '1' MONTH AS a, INTERVAL '30' HOUR <= INTERVAL '1' DAY AS b, INTERVAL '1 month' - INTERVAL '4 days' = INTERVAL '26 days' AS c, INTERVAL '1 day' = '24 hours' AS d FROM t LIMIT 1" },
  { sql: "SELECT NULL::INTERVAL BETWEEN NULL::INTERVAL AND NULL::INTERVAL AS a, NULL::INTERVAL IN (NULL::INTERVAL, INTERVAL 1 DAY) AS b, INTERVAL '2 days' NOT IN (INTERVAL '48 hours') AS c, NULL::INTERVAL IS NULL AS d, INTERVAL '1 day' IS NOT NULL AS e FROM t LIMIT 1" },
  { sql: "SELECT INTERVAL '28 days 432000 seconds' = INTERVAL '1 month 3 days' AS z, '1 month -30 days'::INTERVAL IS NOT DISTINCT FROM INTERVAL '0 days' AS a, INTERVAL '-1 month' < INTERVAL '1 day' AS b, INTERVAL '1 day -24 hours' = INTERVAL '0 days' AS c FROM t LIMIT 1" },
  // Over the table's timestamps and in WHERE.
  { sql: "SELECT ts, ts + (INTERVAL 3 MICROSECONDS + INTERVAL 3 MILLISECONDS) AS a, ts - 2 * INTERVAL '1 month 1 day' AS b, ts + -INTERVAL '25 hours' AS c, ts + NULL::INTERVAL AS d FROM t" },
  { sql: "SELECT ts, ts + INTERVAL '1.5' DAY AS a, ts + INTERVAL (1.9) HOUR AS b, ts - INTERVAL '2.5' SECOND AS c, ts + INTERVAL '0.0015' SECOND AS d, date_add(ts, INTERVAL '1 day' + INTERVAL '1 hour') AS e FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE ts + (INTERVAL '1 month' - INTERVAL '1 day') > '2024-01-01' AND INTERVAL '1 day' < INTERVAL '25 hours'" },
  // make_timestamp_ms(BIGINT ms).
  { sql: 'SELECT j, ts, make_timestamp_ms(j * 86400000 + 123) AS a, make_timestamp_ms(epoch_ms(ts)) AS b, make_timestamp_ms(NULL) AS c, make_timestamp_ms(-291081600001) AS d FROM t' },
  { sql: 'SELECT g, max(make_timestamp_ms(j)) AS a, make_timestamp_ms(sum(j)) AS b FROM t GROUP BY g ORDER BY g' },
  { sql: "SELECT g, max(ts) + INTERVAL '1.5' DAY AS a, min(ts) - 3 * INTERVAL '1 week' AS b FROM t GROUP BY g HAVING INTERVAL '1 year' > INTERVAL '360 days'" },
];

describe('INTERVAL constants over the shared differential table: equal to DuckDB', () => {
  differentialTests(INTERVALS, new Set());
});

describe('INTERVALs refused as DuckDB refuses them, or clearly where canopy holds no INTERVAL value', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each([
    ['SELECT ts + INTERVAL 1.5 DAY AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /unsigned integer/],
    ['SELECT ts + INTERVAL -2 DAY AS a FROM t', 'CANOPY_ERR_BAD_QUERY', /unsigned integer/],
    ["SELECT ts + INTERVAL 'abc' DAY AS a FROM t", 'CANOPY_ERR_BAD_QUERY', /Could not convert string 'abc' to DOUBLE/],
    ["SELECT ts + INTERVAL '2 days' HOUR AS a FROM t", 'CANOPY_ERR_BAD_QUERY', /to DOUBLE/],
    ["SELECT ts + INTERVAL '9999999999' DAY AS a FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /INTEGER/],
    ["SELECT INTERVAL '1 day' * INTERVAL '1 day' < INTERVAL '1 day' AS a FROM t", 'CANOPY_ERR_TYPE', /INTERVAL \* an INTERVAL/],
    ["SELECT INTERVAL '1 day' < 5 AS a FROM t", 'CANOPY_ERR_TYPE', /compares only with an INTERVAL/],
    ["SELECT ts + 'ago'::INTERVAL AS a FROM t", 'CANOPY_ERR_BAD_QUERY', /is not an interval/],
    ["SELECT ts + '1 month ago 2 days'::INTERVAL AS a FROM t", 'CANOPY_ERR_BAD_QUERY', /is not an interval/],
    ['SELECT make_timestamp_ms(1.5) AS a FROM t', 'CANOPY_ERR_TYPE', /takes a BIGINT/],
    ['SELECT make_timestamp_ms(i) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /overflow/],
  ])('%s (DuckDB refuses it too)', async (sql, code, says) => {
    await expect(duckConnection().run(sql), 'DuckDB refuses it').rejects.toThrow();
    const e = await refusal(root, sql);
    expect(e.code).toBe(code);
    expect(e.message).toMatch(says);
  });

  it.each([
    ["SELECT INTERVAL '1 day' AS a FROM t", /not an answer value: canopy has no INTERVAL column type/],
    ["SELECT '1 day'::INTERVAL AS a FROM t", /not an answer value/],
    ["SELECT INTERVAL '1 day' + INTERVAL '2 hours' AS a FROM t", /not an answer value/],
    ["SELECT -INTERVAL '1 day' AS a FROM t", /not an answer value/],
    ["SELECT INTERVAL '1 day' * 2 AS a FROM t", /not an answer value/],
    ["SELECT ts + INTERVAL '1 day' * 1.5 AS a FROM t", /integer literal only/],
    ["SELECT ts + INTERVAL '1 month' / 7 AS a FROM t", /integer literal only/],
    ["SELECT CAST(INTERVAL '1 day' AS BIGINT) AS a FROM t", /not supported/],
  ])('%s: DuckDB answers an INTERVAL (or its DOUBLE arithmetic), canopy refuses saying why', async (sql, says) => {
    const e = await refusal(root, sql);
    expect(e.code).toBe('CANOPY_ERR_UNSUPPORTED');
    expect(e.message).toMatch(says);
  });
});

/** A DATE literal's text: a valid date between 1700 and 2250, maybe with a time (and offset) DuckDB's DATE drops. */
const dateText = fc
  .tuple(fc.date({ min: new Date('1700-01-01T00:00:00Z'), max: new Date('2250-12-31T00:00:00Z'), noInvalidDate: true }), fc.constantFrom('', ' 12:00', 'T23:59:59.999999', ' 00:00:01-05', ' 23:00:00+08'))
  .map(([d, time]) => `${d.toISOString().slice(0, 10)}${time}`);

describe('DATE literals: the date alone, and as text DuckDB\'s DATE text (a DATE value, held as its midnight)', () => {
  it('DATE \'...\', CAST(\'...\' AS DATE) and \'...\'::DATE cast to VARCHAR, in ||, concat, concat_ws, strftime and date_part of the hour, compared with timestamps: equal to DuckDB over random dates', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(dateText, fc.constantFrom('DATE', 'cast', '::'), async (d, form) => {
        const x = form === 'DATE' ? `DATE '${d}'` : form === 'cast' ? `CAST('${d}' AS DATE)` : `'${d}'::DATE`;
        const sql = `SELECT ts, CAST(${x} AS VARCHAR) AS a, (${x})::VARCHAR || g AS b, concat(${x}, s) AS c, concat_ws('/', g, ${x}) AS e, ${x} || '!' AS h, ` +
          `strftime(${x}, '%Y-%m-%d %H:%M:%S.%f') AS k, date_part('hour', ${x}) AS l, ts < ${x} AS m, ts + INTERVAL '1 day' >= ${x} AS o FROM t`;
        expect(await verdict({ sql }), sql).toEqual([]);
        checked++;
      }),
      { numRuns: 90, seed: 2503 },
    );
    expect(checked).toBe(90);
  }, 300_000);

  differentialTests(
    [
      { sql: "SELECT g, string_agg(DATE '2021-02-04', '|') AS a, string_agg(DATE '2021-02-04 12:00' || g) AS b, string_agg('2021-02-04 23:00'::DATE, '') AS c FROM t GROUP BY g ORDER BY g" },
      { sql: "SELECT ts, IF(ts > '2000-01-01', '2020-05-05'::DATE, ts) AS a, coalesce(ts, CAST('1999-12-31' AS DATE)) AS b, date_diff('day', ts, '2024-03-01'::DATE) AS c, NULL::DATE IS NULL AS d FROM t" },
      { sql: "SELECT count(*) AS n FROM t WHERE ts >= '2024-01-01 18:00'::DATE AND ts < CAST('2100-01-01' AS DATE)" },
    ],
    new Set(),
  );
});

describe('CASE (x) WHEN ...: the parenthesised operand, as DuckDB reads it', () => {
  differentialTests(
    [
      { sql: "SELECT j, s, CASE (j % 2) WHEN 0 THEN 'even' WHEN 1 THEN 'odd' ELSE 'neg' END AS a, CASE (s) WHEN 'a' THEN 1 WHEN ')' THEN 2 END AS b FROM t" },
      { sql: "SELECT CASE (j % 3) WHEN 0 THEN 'x' ELSE 'y' END AS k, count(*) AS n FROM t GROUP BY k ORDER BY k" },
    ],
    new Set(),
  );
});

describe('SELECT aliases in WHERE, as DuckDB reads them: equal to DuckDB', () => {
  differentialTests(
    [
      { sql: 'SELECT j % 2 AS k, s FROM t WHERE k <> 0' },
      { sql: 'SELECT j AS b, b * 2 AS c, upper(s) AS U FROM t WHERE C > 0 AND u IS NOT NULL OR b = -3' },
      { sql: "SELECT upper(g) AS u, count(*) AS n FROM t WHERE u = 'A' OR u IS NULL GROUP BY u ORDER BY u" },
      { sql: 'SELECT j AS i, i AS x FROM t WHERE i > 0' },
    ],
    new Set(),
  );
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it('an alias of an aggregate in WHERE is refused, as DuckDB refuses it; an alias two items take is refused rather than guessed', async () => {
    await expect(duckConnection().run('SELECT sum(j) AS s2 FROM t WHERE s2 > 1')).rejects.toThrow(/WHERE clause cannot contain aggregates/);
    expect((await refusal(root, 'SELECT sum(j) AS s2 FROM t WHERE s2 > 1')).message).toMatch(/aggregate/i);
    const e = await refusal(root, 'SELECT j AS k, f AS k FROM t WHERE k = 1');
    expect(e.code).toBe('CANOPY_ERR_UNSUPPORTED');
    expect(e.message).toMatch(/alias of 2 SELECT items/);
  });
});

// Casts of columns to DATE are DATE values now: test/date-type-duckdb.test.ts.
