import { describe, expect, it } from 'vitest';
import { gather } from '../src/aggregator/index.ts';
import { type Partial, type ScanPlan } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { SimCpu, VirtualClock, simulatedLeaf, simulatedLink, type Child, type ChildRequest } from '../src/transport/index.ts';
import { buildSimTree, nominalGroups } from '../bench/sim/engine.ts';

const schema = { name: 't', columns: [{ name: 'g', type: 'string' as const }] };
const plan: ScanPlan = planQuery('SELECT g, count(*) FROM t GROUP BY g', new Map([['t', schema]]), DEFAULT_LIMITS).scan;
const partial: Partial = { type: 'columnar', size: 1, keys: [['a']], states: [[10]] };

function leaves(clock: VirtualClock, latencies: readonly number[]): Child[] {
  return latencies.map((ms, i) => simulatedLeaf(clock, `leaf-${i}`, [i], { latency: () => ms, partial: () => partial, rowsPerShard: 10 }));
}

function req(shards: readonly number[], budgetMs: number): ChildRequest {
  return { queryId: 'q', schema, plan, shards, budgetMs };
}

describe('VirtualClock', () => {
  it('fires timers in due order, skips cleared ones and restores the global timers', async () => {
    const clock = new VirtualClock();
    const realSetTimeout = globalThis.setTimeout;
    const seen: string[] = [];
    const out = await clock.run(async () => {
      setTimeout(() => seen.push(`b@${clock.now()}`), 20);
      const h = setTimeout(() => seen.push('never'), 5);
      clearTimeout(h);
      setTimeout(() => seen.push(`a@${clock.now()}`), 10);
      await clock.sleep(30);
      return clock.now();
    });
    expect(out).toBe(30);
    expect(seen).toEqual(['a@10', 'b@20']);
    expect(globalThis.setTimeout).toBe(realSetTimeout);
  });

  it('rejects a sleep when its signal aborts', async () => {
    const clock = new VirtualClock();
    const ctl = new AbortController();
    const r = await clock.run(async () => {
      setTimeout(() => ctl.abort(new Error('stop')), 5);
      return clock.sleep(100, ctl.signal).then(
        () => 'slept',
        (e: Error) => `${e.message}@${clock.now()}`,
      );
    });
    expect(r).toBe('stop@5');
  });
});

describe('simulated transport under the real gather', () => {
  it('omits the leaf beyond the budget, at the budget less the reserve, in virtual time', async () => {
    const clock = new VirtualClock();
    const kids = leaves(clock, [10, 20, 30, 40, 500]);
    const r = await clock.run(() => gather(kids, req([0, 1, 2, 3, 4], 100), new AbortController().signal, { self: 'root', now: clock.now }));
    expect(clock.now()).toBe(90);
    const status = Object.fromEntries(r.provenance.map((p) => [p.shard, p.status]));
    expect(status).toEqual({ 0: 'answered', 1: 'answered', 2: 'answered', 3: 'answered', 4: 'omitted' });
    const groups = r.partial.type === 'groups' ? [...r.partial.groups.values()] : [];
    expect(groups.map((g) => g.states[0])).toEqual([40]);
  });

  it('queues frames on the receiver CPU behind each other, after the network hop', async () => {
    const clock = new VirtualClock();
    const cpu = new SimCpu('root');
    const kids = leaves(clock, [10, 10]).map((c) => simulatedLink(clock, c, { oneWayMs: 1, receiver: cpu, cost: () => ({ cpuMs: 5, bytes: 100, groups: 1 }) }));
    const r = await clock.run(() => gather(kids, req([0, 1], 1000), new AbortController().signal, { self: 'root', now: clock.now }));
    // Request 1 ms, leaf 10 ms, answer 1 ms: both arrive at 12; merged at 17 and 22.
    expect(clock.now()).toBe(22);
    expect(r.timings.map((t) => t.elapsedMs).sort((a, b) => a - b)).toEqual([17, 22]);
    expect(cpu.busyMs).toBe(10);
    expect(cpu.bytes).toBe(200);
  });
});

describe('the depth simulator', () => {
  it('is deterministic for a seed and its answers are consistent', async () => {
    const opts = {
      n: 50,
      layout: { id: 'd2', fanout: 10, depth: 2 },
      shape: { id: 'few', label: 'few', groupsPerLeaf: 4, keySpace: 4 },
      latency: { terms: [{ kind: 'lognormal' as const, medianMs: 5, sigma: 0.5 }] },
      cost: { hopMs: 0.25, frameCpuMs: 0.1, groupCpuUs: 1, entryCpuUs: 1, encodeFrameMs: 0.1, encodeGroupUs: 1, encodeEntryUs: 1, rootMs: 1, bytesPerFrame: 500, bytesPerGroup: 20, bytesPerEntry: 80 },
      seed: 3,
    };
    const run = async () => {
      const t = buildSimTree(opts);
      const out = [];
      for (let i = 0; i < 5; i++) out.push(await t.run({ id: 'all', policy: 'all', deadlineMs: 10_000 }));
      return out;
    };
    const a = await run();
    const b = await run();
    expect(a.map((s) => s.latencyMs)).toEqual(b.map((s) => s.latencyMs));
    expect(a.every((s) => s.consistent && s.label === 'exact' && s.answered === 50)).toBe(true);
    expect(a[0]!.rootFrames).toBe(10);
  });

  it('a deadline shorter than every leaf gives an error answer, never a silent empty one', async () => {
    const t = buildSimTree({
      n: 10,
      layout: { id: 'flat', fanout: 10, depth: 1 },
      shape: { id: 'few', label: 'few', groupsPerLeaf: 1, keySpace: 1 },
      latency: { terms: [{ kind: 'fixed', ms: 50 }] },
      cost: { hopMs: 0, frameCpuMs: 0, groupCpuUs: 0, entryCpuUs: 0, encodeFrameMs: 0, encodeGroupUs: 0, encodeEntryUs: 0, rootMs: 0, bytesPerFrame: 0, bytesPerGroup: 0, bytesPerEntry: 0 },
      seed: 1,
    });
    const s = await t.run({ id: 'p', policy: 'partial', deadlineMs: 20 });
    expect(s.label).toBe('error');
    expect(s.answered).toBe(0);
    // Budget 20 less the reserve (10%, at least 5 ms).
    expect(s.latencyMs).toBe(15);
  });

  it('counts expected distinct groups', () => {
    const shape = { id: 'm', label: 'm', groupsPerLeaf: 1000, keySpace: 10_000 };
    expect(nominalGroups(shape, 1)).toBeCloseTo(1000, 6);
    expect(nominalGroups(shape, 10)).toBeCloseTo(10_000 * (1 - 0.9 ** 10), 6);
    expect(nominalGroups({ ...shape, keySpace: 1000 }, 50)).toBe(1000);
  });
});
