/**
 * Deadlines, partial answers, bounds from the catalog, pruning and cancellation, on
 * in-process trees with fault injection.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFaults, type FaultRule } from '../src/leaf/index.ts';
import { isCanopyError, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }, { name: 'g', type: 'string' }] };
const rows = (xs: number[], g = 'a'): Scalar[][] => xs.map((x) => [BigInt(x), g]);

function faulty(rules: Record<number, Omit<FaultRule, 'shards'>>) {
  return (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) =>
    withFaults(leaf.handler, leaf.shards, { rules: Object.entries(rules).map(([s, r]) => ({ shards: [Number(s)], ...r })) });
}

afterEach(() => {
  vi.useRealTimers();
});

describe('missing shards are bounded by the catalog', () => {
  it('3 shards, one down: count(*) is bounded by the missing shard rows, and missing names it', async () => {
    const { root } = inProcessRoot(schema, [rows([1, 2]), rows([3, 4, 5]), rows([6, 7, 8, 9])], { wrap: faulty({ 1: { error: 1 } }) });
    const a = await ask(root, 'SELECT count(*) FROM t');
    expect(a.label).toBe('bounded');
    expect(a.rows).toEqual([[6n]]);
    expect(a.cells).toEqual([[{ label: 'bounded', lo: 6n, hi: 9n }]]);
    expect(a.missing).toEqual([{ shard: 1, path: 'root/leaf-1', reason: 'failed', error: expect.objectContaining({ code: 'CANOPY_ERR_INTERNAL' }) as unknown }]);
    expect(a.coverage).toEqual({ shards: 3, answered: 2, failed: 1, omitted: 0, pruned: 0 });
  });

  it('all three down: an error listing all three', async () => {
    const { root } = inProcessRoot(schema, [rows([1]), rows([2]), rows([3])], { wrap: faulty({ 0: { error: 1 }, 1: { crash: 1 }, 2: { garble: 1 } }) });
    const e = await ask(root, 'SELECT count(*) FROM t').catch((x: unknown) => x);
    expect(isCanopyError(e) && e.code).toBe('CANOPY_ERR_NO_COVERAGE');
    const missing = (e as { details: { missing: { shard: number; error: { code: string } }[] } }).details.missing;
    expect(missing.map((m) => m.shard)).toEqual([0, 1, 2]);
    expect(missing.map((m) => m.error.code)).toEqual(['CANOPY_ERR_INTERNAL', 'CANOPY_ERR_CHILD_UNREACHABLE', 'CANOPY_ERR_CHILD_GARBLED']);
  });

  it('SUM, MIN, MAX and AVG get true intervals from the missing shard statistics', async () => {
    const { root } = inProcessRoot(schema, [rows([1, 2]), rows([-5, 10])], { wrap: faulty({ 1: { hang: 1 } }) });
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const pending = ask(root, 'SELECT sum(x), min(x), max(x), avg(x) FROM t', { deadline_ms: 1000 });
    await vi.advanceTimersByTimeAsync(1100);
    const a = await pending;
    expect(a.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'omitted' })]);
    expect(a.rows).toEqual([[3n, 1n, 2n, 1.5]]);
    expect(a.cells).toEqual([
      [
        { label: 'bounded', lo: 3n - 10n, hi: 3n + 20n },
        { label: 'bounded', lo: -5n, hi: 1n },
        { label: 'bounded', lo: 2n, hi: 10n },
        { label: 'bounded', lo: -5, hi: 10 },
      ],
    ]);
  });

  it('a missing shard that the catalog proves irrelevant keeps the answer exact', async () => {
    // ORDER BY x DESC LIMIT 2: the missing shard's max (3) is below the 2nd value (8).
    const { root } = inProcessRoot(schema, [rows([9, 8, 1]), rows([3, 2])], { wrap: faulty({ 1: { error: 1 } }) });
    const a = await ask(root, 'SELECT x FROM t ORDER BY x DESC LIMIT 2');
    expect(a.rows).toEqual([[9n], [8n]]);
    expect(a.label).toBe('exact');
    expect(a.coverage.failed).toBe(1);
    // MIN: the missing shard's min (2) cannot beat the seen min (1).
    const m = await ask(root, 'SELECT min(x) FROM t');
    expect(m.label).toBe('exact');
    // ... but it could change the max of the second-largest query.
    const b = await ask(root, 'SELECT x FROM t ORDER BY x ASC LIMIT 2');
    expect(b.label).toBe('approximate');
  });

  it('GROUP BY with a missing shard: cells bounded, row set not proven', async () => {
    const { root } = inProcessRoot(schema, [rows([1, 2], 'a'), rows([3], 'b')], { wrap: faulty({ 1: { error: 1 } }) });
    const a = await ask(root, 'SELECT g, count(*) FROM t GROUP BY g');
    expect(a.rows).toEqual([['a', 2n]]);
    expect(a.rowsComplete).toBe(false);
    expect(a.label).toBe('approximate');
    // The missing shard only holds g = 'b' (its zone map), so 'a' stays exact.
    expect(a.cells).toEqual([[null, null]]);
  });
});

describe('pruning and completion policies', () => {
  it('shards excluded by their zone maps are pruned, not asked, and the answer is exact', async () => {
    const { root, leaves } = inProcessRoot(schema, [rows([1, 2]), rows([10, 20]), rows([30, 40])]);
    const a = await ask(root, 'SELECT count(*), sum(x) FROM t WHERE x >= 10 AND x < 25');
    expect(a.rows).toEqual([[2n, 30n]]);
    expect(a.label).toBe('exact');
    expect(a.coverage).toEqual({ shards: 3, answered: 1, failed: 0, omitted: 0, pruned: 2 });
    expect(leaves.get(0)!.counters.requests).toBe(0);
    expect(leaves.get(2)!.counters.requests).toBe(0);
  });

  it('a pruned shard that is also down does not matter', async () => {
    const { root } = inProcessRoot(schema, [rows([1, 2]), rows([10, 20])], { wrap: faulty({ 0: { error: 1 } }) });
    const a = await ask(root, 'SELECT count(*) FROM t WHERE x > 5');
    expect(a.label).toBe('exact');
    expect(a.rows).toEqual([[2n]]);
  });

  it('min_coverage fails fast with the missing list', async () => {
    const { root } = inProcessRoot(schema, [rows([1]), rows([2]), rows([3]), rows([4])], { wrap: faulty({ 0: { error: 1 }, 1: { error: 1 }, 2: { hang: 1 } }) });
    const t0 = performance.now();
    const e = await root.query({ sql: 'SELECT count(*) FROM t', policy: 'min_coverage', min_coverage: 0.75, deadline_ms: 10_000 }, new AbortController().signal).catch((x: unknown) => x);
    expect(isCanopyError(e) && e.code).toBe('CANOPY_ERR_NO_COVERAGE');
    // It did not wait for the hung shard's 10 s deadline.
    expect(performance.now() - t0).toBeLessThan(5_000);
  });
});

describe('cancellation', () => {
  it('after the root answers, a slow leaf stops scanning: its row counter stops growing before the end', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const n = 200_000;
    const big: Scalar[][] = Array.from({ length: n }, (_, i) => [BigInt(i), 'a']);
    const { root, leaves } = inProcessRoot(schema, [rows([1]), big], { batchRows: 500 });
    const leaf = leaves.get(1)!;
    const turn = (): Promise<void> => new Promise((r) => setImmediate(r));
    // A filter heavy enough that the scan spans many slices (it yields when a slice is used up).
    // (x = 1 and the last row match, so the zone maps prune neither shard; `-x`, an
    // expression, keeps the per-batch zone maps from skipping the batches in between: `x + 0 <
    // -k` is `x < -k` to the planner, which moves the constant as DuckDB's optimizer does.)
    const chain = [...Array.from({ length: 300 }, (_, k) => `-x > ${k + 1}`), `x = ${n - 1}`, "x = 1"].join(' OR ');
    const pending = ask(root, `SELECT count(*) FROM t WHERE ${chain}`, { deadline_ms: 10_000 });
    while (leaf.counters.rowsScanned < 2_000) await turn();
    await vi.advanceTimersByTimeAsync(10_000);
    const a = await pending;
    expect(a.missing).toEqual([expect.objectContaining({ shard: 1, reason: 'omitted' })]);
    for (let i = 0; i < 20; i++) await turn();
    const stopped = leaf.counters.rowsScanned;
    for (let i = 0; i < 50; i++) await turn();
    // The scan was cut off, and nothing scans after it stopped.
    expect(stopped).toBeLessThan(n);
    expect(leaf.counters.rowsScanned).toBe(stopped);
    expect(leaf.counters.cancelled).toBe(1);
  });
});
