/**
 * Hunt 22: adversarial queries against DuckDB through the differential harness
 * (test/helpers/differential.ts: 9 trees, sorted splits, batches of 3 rows, failing shards;
 * exact must equal DuckDB, bounded must hold it, a refusal must be a clear 4xx, and where
 * DuckDB refuses canopy must refuse too).
 *
 * Defects found (each a failing test first, then its fix):
 * - `i % -1` (and mod(i, -1)) for i = -2^63 answered 0 where DuckDB raises "Overflow in
 *   division of -9223372036854775808 / -1".
 * - `SELECT * ... ORDER BY ALL` ordered by the first column only (the star counted as one
 *   item), so rows tied on it came in any order, labelled exact.
 * - MySQL's backtick-quoted names (`j`) and CAST(x AS INT UNSIGNED / ZEROFILL) were answered
 *   (node-sql-parser reads them) where DuckDB refuses them.
 * - `s LIKE '%%' ESCAPE '%'` (a pattern ending in an escaped '%') did not match '' where DuckDB's
 *   matcher, which skips trailing '%' characters once the string is used up, matches it.
 * - var_pop / var_samp / stddev_* / sem over values with a large mean against their spread
 *   (var_pop(j + 1e15): 21.72 here, 21.76 in DuckDB, 21.67 exactly) were labelled exact: their
 *   digits are rounding noise that the order of additions decides.
 * - BOOLEAN columns of an Arrow answer were Utf8 '1' / '0' (below).
 * - ILIKE ... ESCAPE 'A' lowercased the escape character too ('a%' ESCAPE 'A' matched only
 *   '%'), where DuckDB lowercases the pattern alone; an escape of one character but several
 *   bytes (é, 😀) was taken, where DuckDB refuses it.
 * Elsewhere: a global regexp_replace over long strings ran a batch past the scan's deadline
 * (test/bounded.test.ts); CSV columns of '007' or '+7' were typed as numbers where DuckDB's
 * sniffer keeps them VARCHAR (test/data-ingest.test.ts). And a gap closed: a string literal
 * compared with a BIGINT or DOUBLE is cast as DuckDB casts it (j = '1.5').
 * Found, not fixed: a bounded float SUM/AVG interval holds the exact sum, but DuckDB's own
 * (naively added) sum may lie an ulp or more outside it over values of mixed magnitude;
 * DuckDB's CSV sniffer reads 'inf' in the first row as text, after it as a DOUBLE.
 */
import { Type, tableFromIPC } from 'apache-arrow';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerToArrow, answerToJSON } from '../src/root/index.ts';
import { checkPartial, closeDifferential, differentialTests, duckConnection, duckResult, SCHEMA, setupDifferential, SHARDS, type Body, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const CASES: Q[] = [
  // int64 remainder by -1: -2^63 % -1 overflows in DuckDB (it divides first), whatever the path.
  { sql: 'SELECT i % -1 AS a FROM t' },
  { sql: 'SELECT mod(i, -1) AS a FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i % -1 = 0' },
  { sql: 'SELECT sum(i % -1) AS a FROM t' },
  { sql: 'SELECT i % j AS a FROM t WHERE j = -1 OR i > 0' },
  { sql: 'SELECT j % -1 AS a, j // -1 AS b, mod(j, -1) AS c, i % 1 AS d, i % -2 AS e FROM t' },
  { sql: 'SELECT -170141183460469231731687303715884105728 % -1 AS a FROM t' },
  { sql: 'SELECT -170141183460469231731687303715884105728 % -2 AS a, 170141183460469231731687303715884105727 % -1 AS b FROM t' },
  { sql: 'SELECT sum(j) % -1 AS a, sum(i) % -1 AS b FROM t' },
  // ORDER BY ALL orders by every output column, a star's columns included.
  { sql: 'SELECT * FROM t ORDER BY ALL DESC', ordered: true },
  { sql: 'SELECT * FROM t ORDER BY ALL', ordered: true },
  { sql: 'SELECT * EXCLUDE (f) FROM t ORDER BY ALL DESC NULLS FIRST', ordered: true },
  { sql: 'SELECT g, * FROM t ORDER BY ALL', ordered: true },
  { sql: 'SELECT *, j AS x FROM t ORDER BY ALL DESC LIMIT 5', ordered: true },
  { sql: 'SELECT t.* FROM t ORDER BY ALL DESC', ordered: true },
  { sql: 'SELECT g, s, j FROM t ORDER BY ALL DESC', ordered: true },
  // MySQL syntax the grammar reads and DuckDB refuses: backtick-quoted names, UNSIGNED / ZEROFILL casts.
  { sql: 'SELECT `j` FROM t' },
  { sql: 'SELECT j AS `x` FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE `s` = \'a\'' },
  { sql: 'SELECT \'`\' AS a, "j" AS b, $$`$$ AS c FROM t -- `x`' },
  { sql: 'SELECT j /* ` */ AS a, \'C:\\\' AS b FROM t' },
  { sql: 'SELECT CAST(j AS INT UNSIGNED) AS a FROM t' },
  { sql: 'SELECT j::BIGINT UNSIGNED AS a FROM t' },
  { sql: 'SELECT CAST(j AS INTEGER ZEROFILL) AS a FROM t' },
  { sql: 'SELECT TRY_CAST(s AS BIGINT UNSIGNED) AS a FROM t' },
  { sql: 'SELECT CAST(ts AS TIMESTAMP WITH TIME ZONE) AS a FROM t' },
  // LIKE ... ESCAPE '%': DuckDB's matcher skips a pattern's trailing '%' characters once the
  // string is used up, escaped ones too ('' LIKE '%%' ESCAPE '%' is true there).
  { sql: 'SELECT count(*) AS n FROM t WHERE s LIKE \'%%\' ESCAPE \'%\'' },
  { sql: 'SELECT s, s LIKE \'a%%\' ESCAPE \'%\' AS a, s NOT LIKE \'%%\' ESCAPE \'%\' AS b FROM t' },
  { sql: 'SELECT s, s ILIKE \'A%%\' ESCAPE \'%\' AS a FROM t' },
  { sql: 'SELECT s, s LIKE \'a%%b\' ESCAPE \'%\' AS a, s LIKE \'%_\' ESCAPE \'%\' AS b, s LIKE \'%%%_\' ESCAPE \'%\' AS c FROM t' },
  { sql: 'SELECT s, s LIKE \'a%\' ESCAPE \'a\' AS a, s LIKE \'_%\' ESCAPE \'_\' AS b FROM t' },
  { sql: 'SELECT s, s LIKE \'%%%%\' ESCAPE \'%\' AS a, s LIKE \'%%_%%\' ESCAPE \'%\' AS b, s ILIKE \'_%%\' ESCAPE \'%\' AS c FROM t' },
  { sql: 'SELECT count(*) FILTER (WHERE s LIKE \'%%\' ESCAPE \'%\') AS a, count(*) FILTER (WHERE s NOT LIKE \'a%%\' ESCAPE \'%\') AS b FROM t' },
  { sql: 'SELECT s LIKE \'a%%\' ESCAPE \'%\' AS k, count(*) AS n FROM t GROUP BY k ORDER BY k', ordered: true },
  // ILIKE ... ESCAPE: DuckDB lowercases the pattern and the string, not the escape character;
  // an escape of more than one byte (é, 😀) is refused, as DuckDB refuses it.
  { sql: 'SELECT s, s ILIKE \'a%\' ESCAPE \'A\' AS a, s ILIKE \'AX%%\' ESCAPE \'X\' AS b, s ILIKE \'aX%\' ESCAPE \'x\' AS c FROM t' },
  { sql: 'SELECT count(*) AS n FROM t WHERE s ILIKE \'A_\' ESCAPE \'A\'' },
  { sql: 'SELECT s, s ILIKE \'aX\' ESCAPE \'x\' AS a FROM t' },
  { sql: 'SELECT s, s NOT ILIKE \'É%\' ESCAPE \'é\' AS a FROM t' },
  { sql: 'SELECT s, s LIKE \'😀%\' ESCAPE \'😀\' AS a FROM t' },
  { sql: 'SELECT s, s LIKE \'a%\' ESCAPE \'A\' AS a, s ILIKE \'%\\%%\' ESCAPE \'\\\' AS b FROM t' },
  // A string literal compared with a BIGINT or DOUBLE is cast to it, as DuckDB casts it.
  { sql: 'SELECT count(*) AS n FROM t WHERE j = \'1.5\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j > \'1.5\' AND j <= \' 7 \'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j = \'2.5\' OR j = \'-2.5\' OR j = \'1e1\' OR j = \'+5\' OR j = \'1_0\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j = \'abc\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE j = \'\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = \'9223372036854775807\' OR i = \'9007199254740993\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE i = \'9223372036854775808\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f = \'NaN\' OR f = \'-Infinity\' OR f = \'-0.0\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f > \'-inf\' AND f < \'1e308\'' },
  { sql: 'SELECT count(*) AS n FROM t WHERE f = \'1,5\'' },
  { sql: 'SELECT j, j IN (\'1\', 2) AS a, j NOT IN (\'1\', \'2\', NULL) AS b, j BETWEEN \'1\' AND \'3\' AS c, \'3\' < j AS d FROM t' },
  { sql: 'SELECT g, count(*) AS n, max(f) AS m FROM t GROUP BY g HAVING count(*) > \'3\' OR max(f) > \'1.5\' ORDER BY g', ordered: true },
  { sql: 'SELECT count(*) FILTER (WHERE j > \'0\') AS a, sum(CASE WHEN f > \'0.5\' THEN 1 ELSE 0 END) AS b FROM t' },
  { sql: 'SELECT f, f IS DISTINCT FROM \'nan\' AS a, f IS NOT DISTINCT FROM \'-0.0\' AS b FROM t' },
  { sql: 'SELECT j * \'2.5\' AS a FROM t' },
  // The variance family where M2 is well conditioned stays exact (the ill-conditioned cases below).
  { sql: 'SELECT var_pop(j) AS a, var_samp(i) AS b, stddev_pop(f) AS c, var_pop(j + 1e3) AS d FROM t WHERE f > -1e300 AND f < 1e300' },
  { sql: 'SELECT var_samp(j) AS a, stddev_samp(j * 2) AS b, var_pop(CASE WHEN j > 0 THEN 1 ELSE 0 END) AS c FROM t' },
];

/** Known wrong answers (each fixed by a later commit; a fixed one must leave the set). */
const FAILING = new Set<string>([]);

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('hunt 22: adversarial queries against DuckDB', () => {
  differentialTests(CASES, FAILING);
});

describe('hunt 22: variances whose M2 is rounding noise are approximate, never exact', () => {
  // Welford's M2 over values with a large mean against their spread keeps few correct digits,
  // and which ones depends on the order of additions (var_pop(j + 1e15) is 21.52 to 21.76 by
  // shard split here, 21.76 in DuckDB, 21.67 exactly): such a cell is approximate with every
  // shard answered (as covar/corr/skewness), and the others still equal DuckDB.
  const ILL = [
    'SELECT var_pop(j + 1e15) AS a, var_samp(j + 1e12) AS b FROM t',
    'SELECT stddev_pop(j + 1e15) AS a, stddev_samp(j * 1e-3 + 1e8) AS b, sem(j + 1e15) AS c, var_pop(j) AS d FROM t',
    'SELECT g, var_pop(j + 1e15) AS a, var_samp(j) AS b, count(*) AS n FROM t GROUP BY g ORDER BY g',
  ];
  for (const sql of ILL) {
    it(sql, async () => {
      const want = duckResult(await duckConnection().runAndReadAll(sql));
      for (const root of [inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root, inProcessRoot(SCHEMA, SHARDS, { fanout: 3, batchRows: 3 }).root]) {
        const body = answerToJSON(await ask(root, sql)) as unknown as Body;
        expect(body.label, sql).toBe('approximate');
        expect(body.rows_complete, sql).toBe(true);
        expect(checkPartial(body, want), sql).toEqual([]);
        // Every cell of a variance over j + 1e12 or more is approximate.
        const ill = body.columns.flatMap((c, k) => (c.name === 'a' || (c.name === 'b' && !sql.includes('var_samp(j) AS b')) || c.name === 'c' ? [k] : []));
        for (const row of body.cells ?? []) for (const k of ill) if (row[k] !== null) expect(row[k]!.label, `${sql} col ${k}`).toBe('approximate');
        for (const [r, row] of (body.cells ?? []).entries()) for (const k of ill) if (row[k] === null) expect(body.rows[r]![k], `${sql} row ${r} col ${k} exact`).toBe(0);
      }
    });
  }
});

describe('hunt 22: BOOLEAN columns of an Arrow answer are Arrow Bool', () => {
  // They were Utf8 holding '1' and '0' (arrowType had no case for bool), where DuckDB's Arrow
  // answer has Bool; the JSON answer has true / false.
  const sql = 'SELECT j, j > 0 AS p, bool_or(f > 0) AS b, s IS NULL AS n FROM t GROUP BY j, s ORDER BY j, s';
  it(sql, async () => {
    const a = await ask(inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root, sql);
    const json = answerToJSON(a) as unknown as Body;
    const arrow = tableFromIPC(answerToArrow(a));
    const want = duckResult(await duckConnection().runAndReadAll(sql));
    for (const k of [1, 2, 3]) {
      expect(arrow.schema.fields[k]!.type.typeId, arrow.schema.fields[k]!.name).toBe(Type.Bool);
      const col = arrow.getChildAt(k)!;
      json.rows.forEach((row, r) => {
        expect(col.get(r), `row ${r} col ${k}`).toBe(row[k]);
        expect(row[k] === null ? null : row[k] ? 1 : 0, `row ${r} col ${k} against DuckDB`).toBe(want.rows[r]![k]);
      });
    }
  });
});
