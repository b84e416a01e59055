/**
 * The injected clock: `coalesce` throttles on any clock, and a simulated query (root,
 * aggregators, replica sets with hedging) arms every timer on the clock it is given, never
 * on the global timers.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { coalesce } from '../src/transport/index.ts';
import { VirtualClock, buildSimTree } from '../src/sim/index.ts';

describe('coalesce', () => {
  it('runs the first call at once, absorbs a burst into one run at the end of the interval, and cancels', async () => {
    const clock = new VirtualClock();
    const runs: number[] = [];
    const c = coalesce(50, clock, () => runs.push(clock.now()));
    await clock.run(async () => {
      c.schedule(); // t=0: at once
      await clock.sleep(10);
      c.schedule(); // absorbed into one run at t=50
      await clock.sleep(10);
      c.schedule();
      await clock.sleep(60); // t=80
      c.schedule(); // 30 ms after the last run: at t=100
      await clock.sleep(5);
      c.cancel(); // the t=100 run never happens
      await clock.sleep(100); // t=185
      c.schedule(); // quiet for 135 ms: at once
    });
    expect(runs).toEqual([0, 50, 185]);
  });
});

describe('a simulated query', () => {
  const saved = { setTimeout: globalThis.setTimeout, clearTimeout: globalThis.clearTimeout };
  afterEach(() => {
    globalThis.setTimeout = saved.setTimeout;
    globalThis.clearTimeout = saved.clearTimeout;
  });

  it('uses only the virtual clock: the global timers are never called', async () => {
    const cost = { hopMs: 0.25, frameCpuMs: 0.1, groupCpuUs: 0.4, entryCpuUs: 0.7, encodeFrameMs: 0.1, encodeGroupUs: 0.07, encodeEntryUs: 0.7, rootMs: 1, bytesPerFrame: 600, bytesPerGroup: 20, bytesPerEntry: 80 };
    const tree = buildSimTree({ n: 20, layout: { id: '10×N/10', fanout: 10, depth: 2 }, shape: { id: 'few', label: 'few', groupsPerLeaf: 10, keySpace: 10 }, latency: { terms: [{ kind: 'lognormal', medianMs: 5, sigma: 0.5 }, { kind: 'straggler', p: 0.05, ms: 45 }] }, cost, seed: 3, hedge: true });
    const calls: string[] = [];
    globalThis.setTimeout = ((...a: Parameters<typeof setTimeout>) => {
      calls.push('setTimeout');
      return saved.setTimeout(...a);
    }) as typeof setTimeout;
    globalThis.clearTimeout = ((h: Parameters<typeof clearTimeout>[0]) => {
      calls.push('clearTimeout');
      saved.clearTimeout(h);
    }) as typeof clearTimeout;
    // Past the hedge warm-up (20 latencies per replica set), with a deadline: hedge, grace, deadline and snapshot timers all armed.
    const samples = [];
    for (let i = 0; i < 30; i++) samples.push(await tree.run({ id: 'partial@30', policy: 'partial', deadlineMs: 30 }));
    globalThis.setTimeout = saved.setTimeout;
    globalThis.clearTimeout = saved.clearTimeout;
    expect(calls).toEqual([]);
    expect(samples.every((s) => s.consistent)).toBe(true);
    expect(tree.clock.fired).toBeGreaterThan(0);
    expect(tree.tails.reduce((a, t) => a + t.counters.hedgesSent, 0)).toBeGreaterThan(0);
  });
});
