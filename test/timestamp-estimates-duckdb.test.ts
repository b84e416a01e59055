/**
 * Aggregates of a timestamp answered from a sketch (mode, median, quantile_cont / _disc,
 * approx_quantile over more distinct instants than an exact state holds): the estimate is a
 * bucket's middle, a fraction of a µs. It used to reach the answer as such: JSON showed
 * `2001-06-19T11:04:53.146545.5Z` (not a timestamp) and an Arrow answer failed (BigInt of a
 * fraction). Every value must be whole µs, every bounded cell must hold DuckDB's value, and an
 * exact one equal it.
 */
import { tableFromIPC } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { answerToArrow, answerToJSON } from '../src/root/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { ask, inProcessRoot, type AnswerBody } from './helpers/tree.ts';

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 'ts', type: 'timestamp' }, { name: 'g', type: 'int64' }] };

/** 6,000 instants, most distinct, a few repeated (so mode has a winner), over three shards. */
const ROWS: Scalar[][] = Array.from({ length: 6000 }, (_, i) => [978_307_200_000_000 + (i % 997 === 0 ? 0 : i * 2_220_000_037 + (i % 7) * 13), BigInt(i % 3)]);
const SHARDS = [ROWS.filter((_, i) => i % 3 === 0), ROWS.filter((_, i) => i % 3 === 1), ROWS.filter((_, i) => i % 3 === 2)];

const ISO_US = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{3}(\d{3})?)?Z$/;

const QUERIES = [
  'SELECT mode(ts) AS v FROM t',
  'SELECT median(ts) AS v FROM t',
  'SELECT quantile_cont(ts, 0.3) AS v FROM t',
  'SELECT quantile_disc(ts, 0.7) AS v FROM t',
  'SELECT approx_quantile(ts, 0.37) AS v FROM t',
  'SELECT g, mode(ts) AS v FROM t GROUP BY g',
  'SELECT g, median(ts) AS v FROM t GROUP BY g',
];

describe('timestamps estimated from a sketch are whole microseconds', () => {
  const duck = useDuckDB();
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });

  it.each(QUERIES)('%s', async (sql) => {
    await duck().run('CREATE OR REPLACE TABLE t (ts TIMESTAMP, g BIGINT)');
    await duck().run(`INSERT INTO t SELECT make_timestamp(x), g FROM (VALUES ${ROWS.map((r) => `(${r[0]}::BIGINT, ${r[1]})`).join(', ')}) v(x, g)`);
    const answer = await ask(root, sql);
    const body = answerToJSON(answer) as unknown as AnswerBody;
    const col = body.columns!.findIndex((c) => c.name === 'v');
    expect(body.columns![col]!.type).toBe('timestamp');
    // DuckDB's value of each group (g, or the one group), as epoch µs.
    const want = new Map<string, number>();
    const byGroup = sql.includes('GROUP BY') ? sql.replace('SELECT g,', 'SELECT g::VARCHAR AS k, epoch_us(').replace(' AS v FROM', ') AS v FROM') : sql.replace('SELECT ', "SELECT 'all' AS k, epoch_us(").replace(' AS v FROM', ') AS v FROM');
    for (const [k, v] of (await duck().runAndReadAll(byGroup)).getRows()) want.set(String(k), Number(v));
    body.rows!.forEach((row, r) => {
      const v = row[col] as string;
      expect(v).toMatch(ISO_US);
      const cell = body.cells?.[r]?.[col] ?? null;
      const duckValue = want.get(sql.includes('GROUP BY') ? String(row[0]) : 'all')!;
      const us = (iso: string): number => Date.parse(iso.replace(/(\.\d{3})\d{3}Z$/, '$1Z')) * 1000 + Number(/\.\d{3}(\d{3})Z$/.exec(iso)?.[1] ?? 0);
      if ((cell?.label ?? body.label) === 'exact') expect(us(v)).toBe(duckValue);
      else if (cell?.label === 'bounded') {
        expect(cell.lo as string).toMatch(ISO_US);
        expect(cell.hi as string).toMatch(ISO_US);
        expect(us(cell.lo as string)).toBeLessThanOrEqual(duckValue);
        expect(us(cell.hi as string)).toBeGreaterThanOrEqual(duckValue);
      }
    });
    // The Arrow answer holds the same whole µs.
    const table = tableFromIPC(answerToArrow(answer));
    expect(table.numRows).toBe(body.rows!.length);
    const arrowValues = table.getChild('v')!.toArray() as BigInt64Array | number[];
    expect(arrowValues.length).toBe(body.rows!.length);
  });

  it('the estimates come from sketches here (bounded), not exact states', async () => {
    const body = answerToJSON(await ask(root, 'SELECT mode(ts) AS v FROM t')) as unknown as AnswerBody;
    expect(body.label).toBe('bounded');
  });
});
