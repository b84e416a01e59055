import { describe, expect, it } from 'vitest';
import type { TableSchema } from '../src/merge/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };

describe('small cases from the walking-tree issue', () => {
  it('shards {1,2}, {NULL}, {} -> SUM 3, COUNT(col) 2, COUNT(*) 3, AVG 1.5', async () => {
    const { root } = inProcessRoot(schema, [[[1n], [2n]], [[null]], []]);
    const a = await ask(root, 'SELECT sum(x), count(x), count(*), avg(x) FROM t');
    expect(a.rows).toEqual([[3n, 2n, 3n, 1.5]]);
    expect(a.label).toBe('exact');
    // The empty shard is pruned by its zone map (0 rows): it counts as covered, with nothing to add.
    expect(a.coverage).toEqual({ shards: 3, answered: 2, failed: 0, omitted: 0, pruned: 1 });
  });

  it('shards that are all NULL -> SUM NULL, MIN NULL', async () => {
    const { root } = inProcessRoot(schema, [[[null]], [[null], [null]]]);
    const a = await ask(root, 'SELECT sum(x), min(x), max(x), count(x), count(*) FROM t');
    expect(a.rows).toEqual([[null, null, null, 0n, 3n]]);
  });

  it('no matching rows anywhere -> COUNT(*) 0 and SUM NULL', async () => {
    const { root } = inProcessRoot(schema, [[[1n]], [[2n]]]);
    const a = await ask(root, 'SELECT count(*), sum(x) FROM t WHERE x > 100');
    expect(a.rows).toEqual([[0n, null]]);
  });

  it('two shards with AVG 1.0 over 1 row and 4.0 over 3 rows -> AVG 3.25', async () => {
    const { root } = inProcessRoot(schema, [[[1n]], [[3n], [4n], [5n]]]);
    const a = await ask(root, 'SELECT avg(x) FROM t');
    expect(a.rows).toEqual([[3.25]]);
  });

  it('SUM of int64 stays exact beyond 2^53', async () => {
    const big = 2n ** 62n;
    const { root } = inProcessRoot(schema, [[[big], [big - 1n]], [[-3n]], [[2n ** 53n + 1n]]]);
    const a = await ask(root, 'SELECT sum(x), min(x), max(x) FROM t');
    expect(a.rows).toEqual([[big + big - 1n - 3n + 2n ** 53n + 1n, -3n, big]]);
  });
});

describe('expressions refuse what DuckDB refuses (issue 14)', () => {
  const big: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };

  it('int64 overflow anywhere refuses the whole query; a CASE branch not taken does not', async () => {
    const { root } = inProcessRoot(big, [[[2n ** 62n]], [[1n]]]);
    await expect(ask(root, 'SELECT x * 4 FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
    await expect(ask(root, 'SELECT count(*) FROM t WHERE x * 4 > 1')).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
    // DuckDB's optimizer reads x * 4 > 0 as x > 0 (4 divides 0) and never multiplies: answered.
    expect((await ask(root, 'SELECT count(*) FROM t WHERE x * 4 > 0')).rows).toEqual([[2n]]);
    const a = await ask(root, 'SELECT CASE WHEN x < 10 THEN x * 4 ELSE 0 END AS y FROM t ORDER BY y');
    expect(a.rows).toEqual([[0n], [4n]]);
    expect(a.label).toBe('exact');
  });

  it('x / 0 is ±Infinity or NaN as doubles; x % 0 is NULL', async () => {
    const { root } = inProcessRoot(big, [[[3n], [0n]], [[-2n]]]);
    const a = await ask(root, 'SELECT x / 0 AS q, x % 0 AS r FROM t ORDER BY x');
    expect(a.rows).toEqual([[-Infinity, null], [NaN, null], [Infinity, null]]);
  });

  it('a condition as a group key groups by its truth, NULL apart', async () => {
    const { root } = inProcessRoot(big, [[[1n], [20n]], [[null]]]);
    const a = await ask(root, 'SELECT x > 5 AS big, count(*) AS n FROM t GROUP BY 1 ORDER BY 1');
    expect(a.rows).toEqual([[false, 1n], [true, 1n], [null, 1n]]);
  });
});
