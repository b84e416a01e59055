/**
 * Early termination: a gather stops waiting, and cancels what is outstanding, once the
 * catalog proves the outstanding shards cannot change the answer.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const rows = (xs: number[]): Scalar[][] => xs.map((x) => [BigInt(x)]);
const slow = (shard: number) => (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) =>
  withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [shard], latency: { kind: 'fixed', ms: 60_000 } }] });

afterEach(() => {
  vi.useRealTimers();
});

describe('early termination', () => {
  it('row top-k: the slow shard cannot beat the k-th row, so the answer is exact without it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([5, 3]), rows([60, 85])], { fanout: 3, wrap: slow(1) });
    const pending = root.query({ sql: 'SELECT x FROM t ORDER BY x DESC LIMIT 2', deadline_ms: 120_000 }, new AbortController().signal);
    // Far less than the slow shard's 60 s: the answer must already be there.
    await vi.advanceTimersByTimeAsync(10);
    const a = await pending;
    expect(a.rows).toEqual([[90n], [85n]]);
    expect(a.label).toBe('exact');
    const entry = a.provenance.find((p) => p.shard === 1)!;
    expect(entry.status).toBe('pruned');
    expect(entry.error?.message).toContain('early termination');
    expect(root.counters.earlyStops).toBeGreaterThanOrEqual(1);
  });

  it('an aggregator stops early too, and says so in provenance', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([5, 3]), rows([60, 85]), rows([1])], { fanout: 2, wrap: slow(1) });
    const pending = root.query({ sql: 'SELECT x FROM t ORDER BY x DESC LIMIT 2', deadline_ms: 120_000 }, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(10);
    const a = await pending;
    expect(a.rows).toEqual([[90n], [85n]]);
    expect(a.label).toBe('exact');
    expect(a.provenance.find((p) => p.shard === 1)).toMatchObject({ status: 'pruned', path: 'root/agg-0/leaf-1' });
  });

  it('it does not fire when the slow shard could still change the answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([95, 3]), rows([60, 85])], { fanout: 3, wrap: slow(1) });
    let done = false;
    const pending = root.query({ sql: 'SELECT x FROM t ORDER BY x DESC LIMIT 2', deadline_ms: 120_000 }, new AbortController().signal).then((a) => {
      done = true;
      return a;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    const a = await pending;
    expect(a.rows).toEqual([[95n], [90n]]);
    expect(root.counters.earlyStops).toBe(0);
  });

  it('MIN/MAX: the catalog proves the slow shard irrelevant', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([1, 100]), rows([10, 20]), rows([2, 50])], { fanout: 3, wrap: slow(1) });
    const pending = root.query({ sql: 'SELECT min(x), max(x) FROM t', deadline_ms: 120_000 }, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(10);
    const a = await pending;
    expect(a.rows).toEqual([[1n, 100n]]);
    expect(a.label).toBe('exact');
    expect(root.counters.earlyStops).toBe(1);
  });

  it('policy "all" never stops early', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([1, 100]), rows([10, 20])], { fanout: 3, wrap: slow(1) });
    const pending = root.query({ sql: 'SELECT min(x) FROM t', deadline_ms: 120_000, policy: 'all' }, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(61_000);
    const a = await pending;
    expect(a.coverage.answered).toBe(2);
    expect(root.counters.earlyStops).toBe(0);
  });
});
