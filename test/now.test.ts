/**
 * now() / current_timestamp: one instant per query (the query's start), bound at plan time,
 * and never reused from the plan cache for a later query.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/sql/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 'ts', type: 'timestamp' }, { name: 'v', type: 'int64' }] };
const US = (iso: string): number => Date.parse(iso) * 1000;
const ROWS: Scalar[][] = ['1999-06-01', '2005-06-01', '2012-06-01', '2020-06-01'].map((d, i) => [US(`${d}T00:00:00Z`), BigInt(i)]);

afterEach(() => {
  vi.useRealTimers();
});

describe('now()', () => {
  it('is bound to the given instant and marks the plan volatile', () => {
    const tables = new Map([['t', SCHEMA]]);
    const now = US('2024-03-01T12:00:00Z');
    const p = planQuery('SELECT count(*) FROM t WHERE ts > now() - INTERVAL 1 DAY AND ts < current_timestamp', tables, undefined, now);
    expect(p.volatile).toBe(true);
    expect(JSON.stringify(p.scan.filter, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))).toContain(String(now));
    expect(planQuery('SELECT count(*) FROM t', tables).volatile).toBeUndefined();
    const q = planQuery('SELECT now() AS a, transaction_timestamp() AS b FROM t LIMIT 1', tables, undefined, now);
    expect(q.volatile).toBe(true);
  });

  it('moves with the clock between queries of the same text (no plan reuse)', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    const { root } = inProcessRoot(SCHEMA, [ROWS.slice(0, 2), ROWS.slice(2)], { fanout: 2 });
    const sql = 'SELECT count(*) AS n FROM t WHERE ts <= now()';
    const counts: Scalar[] = [];
    for (const at of ['2000-01-01', '2010-01-01', '2030-01-01']) {
      vi.setSystemTime(new Date(`${at}T00:00:00Z`));
      const a = await ask(root, sql);
      counts.push(a.rows[0]![0]!);
    }
    expect(counts).toEqual([1n, 2n, 4n]);
  });
});
