/**
 * DuckDB's date/time functions canopy added after extract/date_trunc, against DuckDB:
 * - the part functions (year(ts) .. millennium, dayofweek, isodow, yearweek, era, julian,
 *   epoch_ns, nanosecond, dayname, monthname), time_bucket (µs and month widths, origins,
 *   offsets), date_sub/datesub (whole units), date_add, strptime/try_strptime, row level (WHERE,
 *   GROUP BY keys, aggregate arguments) and after aggregation, over edge instants (unit
 *   boundaries ±1 µs, before 1970, Feb 29, ISO year turns) split over shards and tree shapes:
 *   every query is answered, labelled exact and equal to DuckDB.
 * - property: random instants (the whole range canopy holds) and random shard splits, the same
 *   functions of two timestamp columns (time_bucket with a per-row origin, date_sub both ways).
 * - property: strptime/try_strptime (src/merge/strptime.ts) over random formats of every
 *   specifier and random texts shaped like them (digits of every width, names in any case,
 *   runs of spaces, junk), value by value: the same timestamp, NULL, or failure as DuckDB; a
 *   value canopy cannot hold (outside ±2^53 µs, infinity) is refused, never answered.
 * - strftime's week and ISO specifiers (%U %W %G %V %u) and ISO forms (%c %x %X %T), over
 *   the same instants.
 * - refusals: what DuckDB refuses or canopy cannot hold is refused with a coded error.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_TIMESTAMP_US, isCanopyError, makeTimestampParts, strptime, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON, type Root } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, type CanopyBody } from './helpers/compare.ts';
import { useDuckDB } from './helpers/duck.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const duckdb = useDuckDB();

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 'ts', type: 'timestamp' }, { name: 'b', type: 'timestamp' }, { name: 's', type: 'string' }, { name: 'g', type: 'string' }] };
const D = 86_400_000_000;
const at = (y: number, m: number, d: number, h = 0, mi = 0, s = 0): number => Date.UTC(y, m - 1, d, h, mi, s) * 1000;
const EDGES = [
  0, at(2000, 1, 1), at(2000, 1, 3), at(2000, 2, 29), at(1900, 3, 1), at(2024, 2, 29, 12), at(2020, 12, 28), at(2021, 1, 4), at(2026, 1, 1), at(2027, 1, 3),
  at(1968, 12, 30), at(2024, 1, 31, 10), at(2023, 1, 31), at(2024, 3, 31), at(2024, 4, 30, 23), at(1700, 1, 1), at(2200, 12, 31, 23, 59, 59), -D, at(1969, 12, 29),
].flatMap((u) => [u - 1, u, u + 1, u + 500_000]);
/** Texts for strptime: formatted several ways, with spaces, names in any case, and junk. */
const TEXTS = ['2024-03-05', '21/10/2018', '  2000-02-29 23:59:59.999999  ', 'Mon 30, June 2003, 12:03:10 AM', 'tuesday 30, december 2003, 7:3:5 pm', '2001-02-30', 'epoch', 'x', '', '20182010', '100 2024', '2021-19-4', '1969-12-31 23:59:59.5'];
const ROWS: Scalar[][] = [
  ...EDGES.map((u, k) => [u, EDGES[(k * 7) % EDGES.length]!, TEXTS[k % TEXTS.length]!, ['a', 'b', 'c'][k % 3]!]),
  [null, 0, null, 'a'],
  [at(2001, 1, 1), null, '2024-03-05', 'd'],
];
const SHARDS: Scalar[][][] = [0, 1, 2, 3].map((s) => ROWS.filter((_, k) => (k * 7919) % 4 === s));
const SORTED = [...ROWS].sort((x, y) => (x[0] === null ? Infinity : (x[0] as number)) - (y[0] === null ? Infinity : (y[0] as number)));
const RUNS: Scalar[][][] = Array.from({ length: Math.ceil(SORTED.length / 5) }, (_, k) => SORTED.slice(5 * k, 5 * k + 5));

const PARTS = ['year', 'quarter', 'month', 'week', 'weekofyear', 'day', 'dayofmonth', 'dayofweek', 'weekday', 'isodow', 'dayofyear', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'nanosecond', 'isoyear', 'yearweek', 'decade', 'century', 'millennium', 'era', 'julian', 'epoch_ns', 'dayname', 'monthname'];
const UNITS = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium'];
const WIDTHS = ["'1 microsecond'", "'7 ms'", "'1 second'", "'90 seconds'", "'15 minutes'", "'1 hour'", "'5 hours'", "'1 day'", "'3 days'", "'1 week'", "'2 weeks'", "'1 month'", "'2 months'", "'3 months'", "'1 year'", "'5 years'", "'10 years'"];

const QUERIES: readonly string[] = [
  `SELECT ts, ${PARTS.map((p) => `${p}(ts) AS ${p}_`).join(', ')} FROM t ORDER BY ts, b`,
  'SELECT year(ts) AS y, dayname(ts) AS d, count(*) AS n, sum(hour(ts)) AS h, max(microsecond(ts)) AS u, min(epoch_ns(ts)) AS e FROM t GROUP BY y, d ORDER BY y, d',
  'SELECT count(*) AS n FROM t WHERE dayofweek(ts) = 0 OR monthname(ts) = \'February\' OR yearweek(ts) = 202053',
  'SELECT g, year(max(ts)) AS y, dayname(min(ts)) AS d, epoch_ns(max(ts)) AS e, isoyear(min(ts)) AS i, julian(max(ts)) AS j FROM t GROUP BY g ORDER BY g',
  'SELECT isoyear(ts) AS y, week(ts) AS w, count(*) AS n FROM t GROUP BY y, w HAVING count(*) > 0 ORDER BY y, w',
  `SELECT ts, ${WIDTHS.map((w, k) => `time_bucket(INTERVAL ${w}, ts) AS w${k}`).join(', ')} FROM t ORDER BY ts, b`,
  `SELECT ts, b, ${WIDTHS.map((w, k) => `time_bucket(INTERVAL ${w}, ts, b) AS w${k}`).join(', ')} FROM t ORDER BY ts, b`,
  `SELECT ts, ${WIDTHS.map((w, k) => `time_bucket(INTERVAL ${w}, ts, INTERVAL '${['1 hour', '-30 minutes', '1 month', '2 days 3 hours', '1 us'][k % 5]!}') AS w${k}`).join(', ')} FROM t ORDER BY ts, b`,
  "SELECT ts, time_bucket(INTERVAL '1 week', ts, TIMESTAMP '1969-12-31 23:00:00') AS a, time_bucket(INTERVAL '1 month', ts, TIMESTAMP '2000-02-29 10:00:00') AS c, time_bucket(INTERVAL '1 day', ts, NULL) AS d FROM t ORDER BY ts, b",
  "SELECT time_bucket(INTERVAL '1 month', ts) AS k, count(*) AS n, min(ts) AS lo FROM t GROUP BY k ORDER BY k",
  // A width DuckDB refuses fails only on rows with a timestamp; NULL offsets give NULL; '...'::INTERVAL widths.
  "SELECT g, time_bucket(INTERVAL '-1 day', ts) AS a, time_bucket(INTERVAL '1 month 1 day', ts) AS b FROM t WHERE ts IS NULL ORDER BY g",
  "SELECT ts, time_bucket('2 hours'::INTERVAL, ts, '30 minutes'::INTERVAL) AS a, time_bucket('1 month'::INTERVAL, ts, NULL::INTERVAL) AS b, time_bucket(INTERVAL '1 day', ts, CAST(NULL AS TIMESTAMP)) AS c, time_bucket(NULL::INTERVAL, ts) AS d FROM t ORDER BY ts, b",
  "SELECT time_bucket(INTERVAL '1 century', ts) AS k, time_bucket(INTERVAL '100 years', ts, TIMESTAMP '1750-06-01') AS k2, count(*) AS n FROM t WHERE ts >= TIMESTAMP '1800-01-01' GROUP BY k, k2 ORDER BY k, k2",
  "SELECT time_bucket(INTERVAL '6 hours', ts) AS k, count(*) AS n FROM t WHERE time_bucket(INTERVAL '1 year', ts) >= TIMESTAMP '2000-01-01' GROUP BY k ORDER BY k",
  "SELECT g, time_bucket(INTERVAL '1 day', max(ts)) AS a, time_bucket(INTERVAL '3 months', min(ts), INTERVAL '1 day') AS b FROM t GROUP BY g ORDER BY g",
  `SELECT ts, b, ${UNITS.map((u, k) => `date_sub('${u}', ts, b) AS d${k}`).join(', ')} FROM t ORDER BY ts, b`,
  `SELECT ts, ${UNITS.map((u, k) => `date_sub('${u === 'century' ? 'centuries' : u === 'millennium' ? 'millennia' : `${u}s`}', TIMESTAMP '2000-02-29 12:00:00', ts) AS d${k}`).join(', ')} FROM t ORDER BY ts, b`,
  "SELECT ts, datesub('month', ts, ts + INTERVAL '1 month') AS a, date_sub('month', ts + INTERVAL '1 month', ts) AS b2, date_sub('year', ts, TIMESTAMP '2024-02-29') AS c, date_sub('d', ts, b) AS d, date_sub('dow', ts, b) AS e, date_sub('isoyear', ts, b) AS f, date_sub('hr', ts, b) AS h FROM t ORDER BY ts, b",
  "SELECT ts, date_diff('d', ts, b) AS a, date_diff('mon', ts, b) AS b2, date_diff('hours', ts, b) AS c FROM t ORDER BY ts, b",
  "SELECT g, date_sub('day', min(ts), max(ts)) AS a, date_sub('month', min(ts), max(ts)) AS m FROM t GROUP BY g ORDER BY g",
  "SELECT ts, ts + '1 month'::INTERVAL AS a, ts - CAST('1 day 02:00:00' AS INTERVAL) AS c, date_add(ts, '-1 year'::INTERVAL) AS d FROM t ORDER BY ts, b",
  "SELECT count(*) AS n FROM t WHERE ts - '1 us'::INTERVAL >= TIMESTAMP '2000-02-29'",
  "SELECT ts, date_add(ts, INTERVAL 1 MONTH) AS a, date_add(INTERVAL '1 day 2 hours', ts) AS c, date_add(ts, INTERVAL '-1 year') AS d FROM t ORDER BY ts, b",
  "SELECT s, try_strptime(s, '%Y-%m-%d') AS a, try_strptime(s, '%d/%m/%Y') AS b, try_strptime(s, '%Y-%m-%d %H:%M:%S.%f') AS c, try_strptime(s, '%a %d, %B %Y, %I:%M:%S %p') AS d, try_strptime(s, '%A %d, %B %Y, %-I:%-M:%-S %p') AS e FROM t ORDER BY ts, b",
  "SELECT s, try_strptime(s, '%Y%d%m') AS a, try_strptime(s, '%j %Y') AS b, try_strptime(s, '%Y-%U-%w') AS c, try_strptime(s, '%G-%V-%u') AS d, try_strptime(s, '%x') AS e, try_strptime(s, '%c') AS f FROM t ORDER BY ts, b",
  "SELECT strptime(s, '%Y-%m-%d') AS k, count(*) AS n FROM t WHERE s LIKE '2024-%' GROUP BY k ORDER BY k",
  "SELECT s, try_strptime(s, ARRAY['%Y-%m-%d', '%d/%m/%Y', '%Y-%m-%d %H:%M:%S.%f', '%a %d, %B %Y, %I:%M:%S %p']) AS a, try_strptime(s, list_value('%Y%d%m', '%j %Y')) AS b FROM t ORDER BY ts, b",
  "SELECT count(*) AS n FROM t WHERE s IN ('2024-03-05', '21/10/2018') AND strptime(s, ARRAY['%Y-%m-%d', '%d/%m/%Y']) > TIMESTAMP '2010-01-01'",
  "SELECT count(*) AS n, count(try_strptime(s, '%Y-%m-%d')) AS ok, min(try_strptime(s, '%d/%m/%Y')) AS lo FROM t WHERE try_strptime(s, '%Y-%m-%d') IS NULL",
  "SELECT g, max(try_strptime(s, '%Y-%m-%d %H:%M:%S.%f')) AS a FROM t GROUP BY g ORDER BY g",
  // strptime fails on the texts it cannot read: only the rows WHERE keeps are read, as in DuckDB.
  "SELECT s, strptime(s, '%d/%m/%Y') AS a FROM t WHERE s LIKE '__/__/____' ORDER BY ts, b",
  "SELECT max(strptime(s, '%d/%m/%Y')) AS a, count(*) AS n FROM t WHERE s LIKE '__/__/____'",
  // ... and a CASE branch not taken is not read, at the leaves or after aggregation (the labelling's intervals too).
  "SELECT s, CASE WHEN s LIKE '__/__/____' THEN strptime(s, '%d/%m/%Y') END AS a, count(*) AS n FROM t GROUP BY s ORDER BY s",
  "SELECT s, ts, CASE WHEN s LIKE '____-__-__' AND s <> '2001-02-30' THEN strptime(s, '%Y-%m-%d') ELSE ts END AS a FROM t ORDER BY ts, b",
  "SELECT CASE WHEN s LIKE '__/__/____' THEN strptime(s, '%d/%m/%Y') END AS k, count(*) AS n FROM t GROUP BY k ORDER BY k",
  "SELECT g, min(strptime(s, '%Y-%m-%d')) AS a FROM t WHERE s = '2024-03-05' GROUP BY g ORDER BY g",
  "SELECT dayname(NULL) AS a, monthname(NULL) AS b, julian(NULL) AS c FROM t WHERE g = 'd'",
  "SELECT strptime('2024-03-05 10:11:12.345', '%Y-%m-%d %H:%M:%S.%g') AS a, strptime('epoch', '%Y') AS b, try_strptime('epoch', '%Y') AS c, strptime(NULL, '%Y') AS d, strptime('2020', NULL) AS e, try_strptime('2001-02-30', '%Y-%m-%d') AS f FROM t WHERE g = 'd'",
  "SELECT count(*) AS n FROM t WHERE ts >= strptime('2000-01-01', '%Y-%m-%d') AND ts < strptime('2001', '%Y')",
  'SELECT ts, make_timestamp(year(ts), month(ts), day(ts), hour(ts), minute(ts), microsecond(ts) / 1000000) AS a, make_timestamp(year(ts), 2, 28, 23, 59, 60) AS b FROM t ORDER BY ts, b',
  'SELECT g, make_timestamp(year(max(ts)), 1, 1, 0, 0, 0) AS a, make_timestamp(2000, 2, 29, 24, 0, 0) AS c FROM t GROUP BY g ORDER BY g',
];

/** Every query through one root: answered, labelled exact and equal to DuckDB (rows in order: each query orders). */
async function checkAll(root: Root, queries: readonly string[]): Promise<string[]> {
  const bad: string[] = [];
  for (const sql of queries) {
    let body: CanopyBody;
    try {
      body = answerToJSON(await ask(root, sql)) as unknown as CanopyBody;
    } catch (e) {
      bad.push(`REFUSED ${sql}: ${(e as Error).message.slice(0, 200)}`);
      continue;
    }
    const want = fromDuck(await duckdb().runAndReadAll(sql));
    if (body.label !== 'exact') bad.push(`LABEL ${body.label} ${sql}`);
    const d = diffResults(fromCanopy(body), want, { ordered: true });
    if (d.length > 0) bad.push(`WRONG ${sql}\n   ${d.slice(0, 4).join('\n   ')}`);
  }
  return bad;
}

const tsLiteral = (v: Scalar): string => (v === null ? 'NULL' : `make_timestamp(${String(v)}::BIGINT)`);
const strLiteral = (v: Scalar): string => (v === null ? 'NULL' : `'${String(v).replaceAll("'", "''")}'`);

async function loadRows(rows: readonly (readonly Scalar[])[]): Promise<void> {
  await duckdb().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, b TIMESTAMP, s VARCHAR, g VARCHAR)');
  if (rows.length > 0) await duckdb().run(`INSERT INTO t VALUES ${rows.map((r) => `(${tsLiteral(r[0]!)}, ${tsLiteral(r[1]!)}, ${strLiteral(r[2]!)}, ${strLiteral(r[3]!)})`).join(', ')}`);
}

describe('date/time functions equal DuckDB over edge instants', () => {
  it('every query, answered exact, over interleaved shards, sorted runs and 2-row batches', async () => {
    await loadRows(ROWS);
    const bad: string[] = [];
    for (const [shards, batchRows, fanout] of [[SHARDS, undefined, 3], [RUNS, undefined, 2], [SHARDS, 2, 10]] as const) {
      const { root } = inProcessRoot(SCHEMA, shards, { fanout, ...(batchRows === undefined ? {} : { batchRows }) });
      bad.push(...(await checkAll(root, QUERIES)));
    }
    expect(bad).toEqual([]);
  }, 120_000);
});

describe('property: random instants over random shards', () => {
  it('part functions, time_bucket (origin per row), date_sub both ways equal DuckDB', async () => {
    // 1800 to 2150: every bucket (up to a century) and month of these stays in the range canopy holds.
    const instant = fc.oneof(fc.integer({ min: at(1800, 1, 1), max: at(2150, 1, 1) }), fc.integer({ min: -3 * D, max: 3 * D }), fc.constantFrom(...EDGES.filter((u) => u > at(1800, 1, 1))));
    const row = fc.tuple(fc.option(instant, { nil: null, freq: 8 }), fc.option(instant, { nil: null, freq: 8 }), fc.constant('2024-01-01'), fc.constantFrom('a', 'b'));
    const table = fc.record({ rows: fc.array(row, { minLength: 1, maxLength: 30 }), shards: fc.integer({ min: 1, max: 5 }), fanout: fc.integer({ min: 2, max: 4 }), seed: fc.nat() });
    const queries = [
      `SELECT ts, b, ${PARTS.map((p) => `${p}(b) AS ${p}_`).join(', ')} FROM t ORDER BY ts, b`,
      `SELECT ts, b, ${WIDTHS.map((w, k) => `time_bucket(INTERVAL ${w}, ts, b) AS w${k}`).join(', ')} FROM t ORDER BY ts, b`,
      `SELECT ts, b, ${UNITS.map((u, k) => `date_sub('${u}', ts, b) AS d${k}, date_sub('${u}', b, ts) AS e${k}`).join(', ')} FROM t ORDER BY ts, b`,
      "SELECT ts, b, strftime(b, '%G %V %u %U %W %c %j %a %b') AS s FROM t ORDER BY ts, b",
      "SELECT time_bucket(INTERVAL '10 years', ts) AS k, count(*) AS n, max(date_sub('month', ts, b)) AS m FROM t GROUP BY k ORDER BY k",
    ];
    await fc.assert(
      fc.asyncProperty(table, async ({ rows, ...t }) => {
        const shards: Scalar[][][] = Array.from({ length: t.shards }, () => []);
        rows.forEach((r, k) => shards[(k * 7919 + t.seed) % t.shards]!.push(r));
        await loadRows(rows);
        const { root } = inProcessRoot(SCHEMA, shards, { fanout: t.fanout });
        expect(await checkAll(root, queries)).toEqual([]);
      }),
      { numRuns: 25 },
    );
  }, 240_000);
});

/** Specifiers and literal pieces of random strptime formats, and text pieces shaped like each. */
const SPECS = ['%Y', '%m', '%-m', '%d', '%-d', '%y', '%-y', '%H', '%-H', '%I', '%-I', '%M', '%-M', '%S', '%-S', '%f', '%g', '%j', '%-j', '%a', '%A', '%b', '%h', '%B', '%p', '%w', '%u', '%U', '%W', '%V', '%G', '%c', '%x', '%X', '%T', '%%'];
const LITERALS = [' ', '  ', '-', '/', ':', '.', ',', 'T', 'é', 'x', '\t'];
const NAMES = ['Mon', 'monday', 'TUE', 'Wednesday', 'sun', 'Jan', 'june', 'JUNE', 'Feb', 'December', 'dec', 'AM', 'pm', 'Pm', 'a', 'mo'];
const piece: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.integer({ min: 0, max: 60 }).map(String) },
  { weight: 2, arbitrary: fc.integer({ min: 1690, max: 2250 }).map(String) },
  { weight: 2, arbitrary: fc.constantFrom('1', '12', '123', '12345', '1234567', '00') },
  { weight: 2, arbitrary: fc.constantFrom(...NAMES) },
  { weight: 3, arbitrary: fc.constantFrom(...LITERALS) },
  { weight: 1, arbitrary: fc.constantFrom('2024-03-05', '2000-02-29 23:59:59', '10:11:12', 'epoch', 'infinity', '-infinity', 'Epoch  ', '') },
);
const digits = (max: number): fc.Arbitrary<string> => fc.integer({ min: 1, max }).chain((n) => fc.array(fc.constantFrom('0', '1', '2', '3', '5', '9'), { minLength: n, maxLength: n }).map((d) => d.join('')));
const num = (min: number, max: number, pad = 0): fc.Arbitrary<string> => fc.tuple(fc.integer({ min, max }), fc.boolean()).map(([v, p]) => (p ? String(v).padStart(pad, '0') : String(v)));
const anyCase = (words: readonly string[]): fc.Arbitrary<string> => fc.tuple(fc.constantFrom(...words), fc.constantFrom('lower', 'upper', 'as is')).map(([w, c]) => (c === 'lower' ? w.toLowerCase() : c === 'upper' ? w.toUpperCase() : w));
const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
const MONTHS = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** A text piece a specifier reads (mostly in range, sometimes just past it). */
function validPiece(spec: string): fc.Arbitrary<string> {
  const s = spec.replace('-', '');
  switch (s) {
    case 'Y': case 'G': return num(1690, 2250);
    case 'm': return num(1, 13, 2);
    case 'd': return num(1, 31, 2);
    case 'y': return num(0, 99, 2);
    case 'H': return num(0, 24, 2);
    case 'I': return num(0, 13, 2);
    case 'M': case 'S': return num(0, 60, 2);
    case 'f': return digits(7);
    case 'g': return digits(4);
    case 'j': return num(0, 367, 3);
    case 'a': return anyCase(DAYS.map((d) => d.slice(0, 3)));
    case 'A': return anyCase(DAYS);
    case 'b': case 'h': return anyCase(MONTHS.map((m) => m.slice(0, 3)));
    case 'B': return anyCase(MONTHS);
    case 'p': return anyCase(['AM', 'PM', 'am', 'pm', 'xm']);
    case 'w': return num(0, 7);
    case 'u': return num(0, 8);
    case 'U': case 'W': return num(0, 54, 2);
    case 'V': return num(0, 54, 2);
    case 'c': return fc.tuple(num(1690, 2250), num(1, 12, 2), num(1, 28, 2), num(0, 23, 2), num(0, 59, 2), num(0, 59, 2)).map(([y, m, d, h, mi, se]) => `${y}-${m}-${d} ${h}:${mi}:${se}`);
    case 'x': return fc.tuple(num(1690, 2250), num(1, 12, 2), num(1, 31, 2)).map(([y, m, d]) => `${y}-${m}-${d}`);
    case 'X': case 'T': return fc.tuple(num(0, 23, 2), num(0, 59, 2), num(0, 59, 2)).map(([h, mi, se]) => `${h}:${mi}:${se}`);
    case '%%': return fc.constant('%');
    default: return fc.constant(spec);
  }
}
/** A text for a format: per token a valid piece (or the literal, with runs of spaces varied), sometimes junk. */
const textFor = (tokens: readonly string[]): fc.Arbitrary<string> =>
  fc.tuple(...tokens.map((t) => fc.oneof({ weight: 12, arbitrary: t.startsWith('%') ? validPiece(t === '%%' ? t : t.slice(1)) : t.trim() === '' ? fc.constantFrom(t, ' ', '\t ', '   ') : fc.constant(t) }, { weight: 1, arbitrary: piece })), fc.constantFrom('', '', ' ', '  x'))
    .map(([ps, tail]) => [...ps, tail].join(''));

describe('property: strptime and try_strptime equal DuckDB', () => {
  it('random formats and texts: the same timestamp, NULL or failure; unholdable values refused', async () => {
    const token = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SPECS) }, { weight: 2, arbitrary: fc.constantFrom(...LITERALS) });
    // A text mostly shaped like its format (a piece per token), sometimes arbitrary pieces.
    const pair = fc.array(token, { minLength: 1, maxLength: 6 }).chain((format) =>
      fc.tuple(fc.constant(format.join('')), fc.oneof({ weight: 6, arbitrary: textFor(format) }, { weight: 1, arbitrary: fc.array(piece, { maxLength: 6 }).map((ps) => ps.join('')) })),
    );
    let values = 0;
    let total = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(pair, { minLength: 1, maxLength: 30 }), async (pairs) => {
        const sql = `SELECT ${pairs.map(([f, s], k) => `CASE WHEN isfinite(try_strptime(${strLiteral(s)}, ${strLiteral(f)})) THEN epoch_us(try_strptime(${strLiteral(s)}, ${strLiteral(f)})) END AS v${k}, isinf(try_strptime(${strLiteral(s)}, ${strLiteral(f)})) AS i${k}`).join(', ')}`;
        const row = (await duckdb().runAndReadAll(sql)).getRows()[0]!;
        for (const [k, [f, s]] of pairs.entries()) {
          total++;
          const want = row[2 * k] === null ? null : Number(row[2 * k] as bigint);
          let got: number | null | 'refused';
          try {
            got = strptime(s, [f], true);
          } catch (e) {
            if (!isCanopyError(e) || e.code !== 'CANOPY_ERR_OUT_OF_RANGE') throw e;
            got = 'refused';
          }
          const unholdable = row[2 * k + 1] === true || (want !== null && Math.abs(want) > MAX_TIMESTAMP_US);
          expect({ f, s, got }).toEqual({ f, s, got: unholdable ? 'refused' : want });
          if (want !== null && !unholdable) values++;
          // strptime: the same value, or a failure where DuckDB fails.
          let duck: number | 'error' | 'unholdable';
          try {
            const r = (await duckdb().runAndReadAll(`SELECT isfinite(x) AS f, CASE WHEN isfinite(x) THEN epoch_us(x) END AS v FROM (SELECT strptime(${strLiteral(s)}, ${strLiteral(f)}) AS x)`)).getRows()[0]!;
            duck = r[0] !== true || Math.abs(Number(r[1] as bigint)) > MAX_TIMESTAMP_US ? 'unholdable' : Number(r[1] as bigint);
          } catch {
            duck = 'error';
          }
          let mine: number | 'error';
          try {
            mine = strptime(s, [f], false) as number;
          } catch (e) {
            if (!isCanopyError(e) || e.code !== 'CANOPY_ERR_OUT_OF_RANGE') throw e;
            mine = 'error';
          }
          expect({ f, s, strptime: mine }).toEqual({ f, s, strptime: duck === 'unholdable' ? 'error' : duck });
        }
      }),
      { numRuns: 80 },
    );
    // Enough of the texts parse to a value canopy holds for the comparison to mean something.
    expect(values).toBeGreaterThan(total / 20);
  }, 240_000);

  it('the list form: each text by two formats (the first that reads it), try_strptime and strptime', async () => {
    const token = fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...SPECS) }, { weight: 2, arbitrary: fc.constantFrom(...LITERALS) });
    const format = fc.array(token, { minLength: 1, maxLength: 5 });
    const triple = fc.tuple(format, format).chain(([f1, f2]) => fc.tuple(fc.constant(f1.join('')), fc.constant(f2.join('')), fc.oneof(textFor(f1), textFor(f2))));
    // A first format that reads the text as an impossible date: strptime fails, try_strptime goes on.
    const fixed: [string, string, string][] = [['%Y-%m-%d', '%Y-%m-%S', '2001-02-30'], ['%d/%m/%Y', '%m/%d/%Y', '31/04/2020'], ['%Y %j', '%Y %H', '2023 366'], ['%Y', '%d', 'epoch']];
    await fc.assert(
      fc.asyncProperty(fc.array(triple, { minLength: 1, maxLength: 20 }), async (random) => {
        for (const [f1, f2, s] of [...fixed, ...random]) {
          for (const tryParse of [true, false]) {
            const sql = `SELECT CASE WHEN isfinite(x) THEN epoch_us(x) END, isinf(x) FROM (SELECT ${tryParse ? 'try_' : ''}strptime(${strLiteral(s)}, list_value(${strLiteral(f1)}, ${strLiteral(f2)})) AS x)`;
            const want = await duckdb().runAndReadAll(sql).then((r) => {
              const [v, inf] = r.getRows()[0]!;
              return inf === true || (v !== null && Math.abs(Number(v as bigint)) > MAX_TIMESTAMP_US) ? 'refused' : v === null ? null : Number(v as bigint);
            }, () => 'refused');
            let got: number | null | 'refused';
            try {
              got = strptime(s, [f1, f2], tryParse);
            } catch (e) {
              if (!isCanopyError(e) || e.code !== 'CANOPY_ERR_OUT_OF_RANGE') throw e;
              got = 'refused';
            }
            expect({ f1, f2, s, tryParse, got }).toEqual({ f1, f2, s, tryParse, got: want });
          }
        }
      }),
      { numRuns: 40 },
    );
  }, 240_000);

  it("DuckDB's own strptime cases (test_strptime.test) over the specials, weeks, ISO weeks and day of year", async () => {
    const cases: [string, string][] = [
      ['21 June, 2018', '%d %B, %Y'], ['Mon 30, June 2003, 12:03:10 AM', '%a %d, %B %Y, %I:%M:%S %p'], ['Tuesday 30, December 2003, 7:3:5 PM', '%A %d, %B %Y, %I:%M:%S %p'],
      ['1', '%W'], ['30', '%U'], ['30', '%V'], ['6', '%w'], ['6', '%u'], ['1-4', '%U-%w'], ['2-4', '%V-%u'], ['1-4', '%W-%w'], ['100 2024', '%j %Y'], ['2024 100', '%Y %j'],
      ['1992-01-30 30', '%Y-%m-%d %j'], ['2021-19-4', '%Y-%U-%w'], ['2021-19-4', '%Y-%W-%w'], ['2021-19-4', '%G-%V-%u'], ['2021-0-5', '%Y-%U-%w'], ['2021-1-5', '%G-%V-%u'],
      ['2021-05-12 19-4', '%Y-%m-%d %U-%w'], ['2021-05-12 19-4', '%Y-%m-%d %V-%u'], ['Jun 30 2003  2:03:10AM', '%b %d %Y %-I:%M:%S%p'], ['2000-10-01 13:00:00 AM', '%Y-%m-%d %I:%M:%S %p'],
      ['20 19', '%U %W'], ['20 2021', '%U %G'], ['2021 1950', '%G %Y'], ['2021 1950', '%Y %G'], ['2021 19', '%Y %V'], ['20 19', '%V %j'], ['Mon 30, December 30, 20:3:5 PM', '%a %d, %B %y, %H:%M:%S %p'],
      ['9999999', '%f'], ['9999', '%g'], ['023', '%g'], ['mondayy', '%A'], ['junee', '%B'], ['500', '%j'], ['0', '%-j'], ['60', '%U'], ['9', '%w'], ['', '%p'], ['mp', '%p'],
      ['  epoch  ', '%Y'], ['EPOCHs', '%Y'], ['-infinity', '%Y'], ['2024', '%Y%%'], ['2024%', '%Y%%'], ['2024 T', '%Y%n'.replace('%n', ' T')], ['21 Jüne, 2018', '%d %B, %Y'], ['10 äm', '%I %p'],
    ];
    const bad: string[] = [];
    for (const [s, f] of cases) {
      const r = (await duckdb().runAndReadAll(`SELECT CASE WHEN isfinite(x) THEN epoch_us(x) END, isinf(x) FROM (SELECT try_strptime(${strLiteral(s)}, ${strLiteral(f)}) AS x)`)).getRows()[0]!;
      const want = r[1] === true ? 'refused' : r[0] === null ? null : Number(r[0] as bigint);
      let got: number | null | 'refused';
      try {
        got = strptime(s, [f], true);
      } catch {
        got = 'refused';
      }
      if (got !== want) bad.push(`try_strptime('${s}', '${f}'): DuckDB ${String(want)}, canopy ${String(got)}`);
    }
    expect(bad).toEqual([]);
  });
});

describe('property: make_timestamp(year, month, day, hour, minute, seconds) equals DuckDB', () => {
  it('random parts, in range and past it (DuckDB errors where canopy refuses)', async () => {
    const part = (lo: number, hi: number): fc.Arbitrary<number> => fc.oneof({ weight: 5, arbitrary: fc.integer({ min: lo, max: hi }) }, { weight: 1, arbitrary: fc.integer({ min: lo - 2, max: hi + 2 }) });
    const seconds = fc.oneof(fc.integer({ min: 0, max: 60_000_000 }).map((u) => u / 1e6), fc.constantFrom(0, 59.9999999, 60, 60.4, 60.5, 60.6, 61.5, -0.0000001, -0.5, 0.0000005, 0.0000015, 0.0000025, 1.2345675, 59.9999995), fc.double({ min: -1, max: 62, noNaN: true }));
    const call = fc.tuple(part(1690, 2250), part(1, 12), part(1, 31), part(0, 24), part(0, 59), seconds);
    await fc.assert(
      fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 20 }), async (calls) => {
        for (const [y, mo, d, h, mi, ss] of calls) {
          const sql = `SELECT CASE WHEN isfinite(x) THEN epoch_us(x) END FROM (SELECT make_timestamp(${y}::BIGINT, ${mo}::BIGINT, ${d}::BIGINT, ${h}::BIGINT, ${mi}::BIGINT, ${String(ss)}::DOUBLE) AS x)`;
          const want = await duckdb().runAndReadAll(sql).then((r) => {
            const v = Number(r.getRows()[0]![0] as bigint);
            return Math.abs(v) > MAX_TIMESTAMP_US ? 'error' : v;
          }, () => 'error');
          let got: number | 'error';
          try {
            got = makeTimestampParts([y, mo, d, h, mi].map(BigInt), ss);
          } catch (e) {
            if (!isCanopyError(e) || e.code !== 'CANOPY_ERR_OUT_OF_RANGE') throw e;
            got = 'error';
          }
          expect({ call: [y, mo, d, h, mi, ss], got }).toEqual({ call: [y, mo, d, h, mi, ss], got: want });
        }
      }),
      { numRuns: 40 },
    );
  }, 120_000);
});

describe('refusals', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 3 });
  // Each: the SQL, canopy's code, and what DuckDB does: an error, or a result type canopy lacks
  // (or, for TIMESTAMP, a value outside what canopy holds).
  const cases: readonly (readonly [string, string, RegExp])[] = [
    ['SELECT make_time(1, 2, 3) FROM t', 'CANOPY_ERR_UNSUPPORTED', /^TIME$/],
    ['SELECT age(ts, b) FROM t', 'CANOPY_ERR_UNSUPPORTED', /^INTERVAL$/],
    ["SELECT year('2024-01-01') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ['SELECT year(NULL) FROM t', 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT dayname('2024-01-01') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ['SELECT year(1) FROM t', 'CANOPY_ERR_TYPE', /^error/],
    ['SELECT year(ts, ts) FROM t', 'CANOPY_ERR_BAD_QUERY', /^error/],
    ["SELECT strptime('2020 UTC', '%Y %Z') FROM t", 'CANOPY_ERR_UNSUPPORTED', /^TIMESTAMP WITH TIME ZONE$/],
    ["SELECT strptime('01.123456789', '%S.%n') FROM t", 'CANOPY_ERR_UNSUPPORTED', /^TIMESTAMP_NS$/],
    ["SELECT strptime(s, '%Q') FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    ["SELECT try_strptime(s, '%-q') FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    ["SELECT strptime(s, '') FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    ["SELECT strptime(s, '%Y%') FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    // (%z reads the offset and gives the instant: test/sql-surface4-duckdb.test.ts; this text is no year.)
    ["SELECT strptime(s, ARRAY['%Y', '%z']) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ["SELECT strptime(s, ARRAY['%Y', '%Q']) FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    ["SELECT strptime('2001-02-30', ARRAY['%Y-%m-%d', '%Y-%d-%m']) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ['SELECT strptime(s, g) FROM t', 'CANOPY_ERR_UNSUPPORTED', /^error/],
    ["SELECT strptime(ts, '%Y') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT strptime(s, '%Y-%m-%d') FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ["SELECT strptime('1600', '%Y') FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^TIMESTAMP$/],
    ["SELECT try_strptime('9999', '%Y') FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^TIMESTAMP$/],
    ["SELECT strptime('infinity', '%Y') FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^TIMESTAMP$/],
    ["SELECT strptime('2001-02-30', '%Y-%m-%d') FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ["SELECT time_bucket(INTERVAL '-1 day', ts) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ["SELECT time_bucket(INTERVAL '0 days', ts) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ["SELECT time_bucket(INTERVAL '1 month 1 day', ts) FROM t", 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ["SELECT time_bucket(INTERVAL '1 day', ts, '2000-01-01') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ['SELECT time_bucket(ts, ts) FROM t', 'CANOPY_ERR_UNSUPPORTED', /^error/],
    ["SELECT time_bucket(INTERVAL '1000 years', ts) FROM t WHERE ts < TIMESTAMP '1700-01-01'", 'CANOPY_ERR_OUT_OF_RANGE', /^TIMESTAMP$/],
    ["SELECT date_sub('timezone', ts, b) FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    ["SELECT date_sub('day', ts) FROM t", 'CANOPY_ERR_BAD_QUERY', /^error/],
    ['SELECT date_add(ts, 1) FROM t', 'CANOPY_ERR_UNSUPPORTED', /^error/],
    ["SELECT strftime(ts, '%e') FROM t", 'CANOPY_ERR_UNSUPPORTED', /^error/],
    ['SELECT epoch_ms(9223372036854775) FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /^TIMESTAMP$/],
    ['SELECT epoch_ms(1.5) FROM t', 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT ts * '1 day'::INTERVAL FROM t", 'CANOPY_ERR_UNSUPPORTED', /^error/],
    // A string (or NULL) literal where a timestamp goes is ambiguous in DuckDB.
    ["SELECT date_trunc('month', '2024-03-05') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT date_trunc('month', NULL) FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT extract(year FROM '2024-03-05') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT date_part('year', NULL) FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT strftime('2024-03-05', '%Y') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT date_diff('month', '2024-03-05', '2024-04-05') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT date_sub('month', NULL, NULL) FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ["SELECT time_bucket(INTERVAL '1 day', '2024-03-05 10:00') FROM t", 'CANOPY_ERR_TYPE', /^error/],
    ['SELECT make_timestamp(2024, 1, 1) FROM t', 'CANOPY_ERR_BAD_QUERY', /^error/],
    ['SELECT make_timestamp(2024, 2, 30, 0, 0, 0) FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ['SELECT make_timestamp(2024, 1, 1, 0, 0, 60.6) FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /^error/],
    ['SELECT make_timestamp(1600, 1, 1, 0, 0, 0) FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /^TIMESTAMP$/],
    ['SELECT make_timestamp(2024.5, 1, 1, 0, 0, 0) FROM t', 'CANOPY_ERR_TYPE', /^error/],
  ];
  it.each(cases)('%s: %s', async (sql, code, duckDoes) => {
    await loadRows(ROWS);
    const e = await ask(root, sql).then(() => null, (x: unknown) => x);
    expect((e as { code?: string } | null)?.code).toBe(code);
    const duck = await duckdb().runAndReadAll(sql).then((r) => r.columnTypes().map(String).join(','), (x: unknown) => `error: ${(x as Error).message.slice(0, 80)}`);
    expect(duck).toMatch(duckDoes);
  });
});
