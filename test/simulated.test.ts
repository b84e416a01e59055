import { describe, expect, it } from 'vitest';
import { gather } from '../src/aggregator/index.ts';
import { groupsOf, type Partial, type ScanPlan } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import type { Child, ChildRequest } from '../src/transport/index.ts';
import { SimCpu, VirtualClock, buildSimTree, nearestRank, nominalGroups, simulatedLeaf, simulatedLink } from '../src/sim/index.ts';
import { fitVariability, medianOfMaxNormal, surrogate } from '../bench/depth-validate.ts';

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
  it('fires timers in due order, skips cleared ones and leaves the global timers alone', async () => {
    const clock = new VirtualClock();
    const realSetTimeout = globalThis.setTimeout;
    const seen: string[] = [];
    const out = await clock.run(async () => {
      expect(globalThis.setTimeout).toBe(realSetTimeout);
      clock.setTimeout(() => seen.push(`b@${clock.now()}`), 20);
      const h = clock.setTimeout(() => seen.push('never'), 5);
      clock.clearTimeout(h);
      clock.setTimeout(() => seen.push(`a@${clock.now()}`), 10);
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
      clock.setTimeout(() => ctl.abort(new Error('stop')), 5);
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
    const r = await clock.run(() => gather(kids, req([0, 1, 2, 3, 4], 100), new AbortController().signal, { self: 'root', clock }));
    expect(clock.now()).toBe(90);
    const status = Object.fromEntries(r.provenance.map((p) => [p.shard, p.status]));
    expect(status).toEqual({ 0: 'answered', 1: 'answered', 2: 'answered', 3: 'answered', 4: 'omitted' });
    const groups = r.partial.type === 'rows' ? [] : [...groupsOf(r.partial).values()];
    expect(groups.map((g) => g.states[0])).toEqual([40]);
  });

  it('queues frames on the receiver CPU behind each other, after the network hop', async () => {
    const clock = new VirtualClock();
    const cpu = new SimCpu('root');
    const kids = leaves(clock, [10, 10]).map((c) => simulatedLink(clock, c, { oneWayMs: 1, receiver: cpu, cost: () => ({ cpuMs: 5, bytes: 100, groups: 1 }) }));
    const r = await clock.run(() => gather(kids, req([0, 1], 1000), new AbortController().signal, { self: 'root', clock }));
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

describe('leaf hosts and request CPU in the simulated transport', () => {
  it('queues the scans of leaves sharing a host, and the parent sends requests one after another', async () => {
    const clock = new VirtualClock();
    const root = new SimCpu('root');
    const host = new SimCpu('host-0');
    // Three leaves on one host, 2 ms of scan each after a 1 ms wait; the root takes 0.5 ms to send each request.
    const kids = [0, 1, 2].map((i) =>
      simulatedLink(clock, simulatedLeaf(clock, `leaf-${i}`, [i], { latency: () => 1, partial: () => partial, rowsPerShard: 10, host: { cpu: host, cpuMs: () => 2 } }), {
        oneWayMs: 0,
        receiver: root,
        requestCpuMs: 0.5,
        cost: () => ({ cpuMs: 0, bytes: 0, groups: 1 }),
      }),
    );
    const r = await clock.run(() => gather(kids, req([0, 1, 2], 1000), new AbortController().signal, { self: 'root', clock }));
    // Sent at 0.5, 1, 1.5; waits end at 1.5, 2, 2.5; scans run 1.5-3.5, 3.5-5.5, 5.5-7.5.
    expect(r.timings.map((t) => t.elapsedMs).sort((a, b) => a - b)).toEqual([3.5, 5.5, 7.5]);
    expect(host.busyMs).toBe(6);
    expect(root.busyMs).toBe(1.5);
  });

  it('a host model makes the flat tree slower as leaves per host grow', async () => {
    const cost = { hopMs: 0, frameCpuMs: 0.1, groupCpuUs: 0, entryCpuUs: 0, encodeFrameMs: 0, encodeGroupUs: 0, encodeEntryUs: 0, rootMs: 0, bytesPerFrame: 0, bytesPerGroup: 0, bytesPerEntry: 0 };
    const p50 = async (n: number): Promise<number> => {
      const t = buildSimTree({ n, layout: { id: 'flat', fanout: n, depth: 1 }, shape: { id: 'one', label: 'one', groupsPerLeaf: 1, keySpace: 1 }, latency: { terms: [] }, cost, seed: 4, hosts: { count: 2, scanMs: 1, slowSigma: 0 } });
      return (await t.run({ id: 'all', policy: 'all', deadlineMs: 10_000 })).latencyMs;
    };
    // Without contention: the last of n/2 scans on each of the 2 hosts ends at n/2 ms, then the root takes in both answers (0.1 ms each).
    expect(await p50(10)).toBeCloseTo(5.2, 6);
    expect(await p50(40)).toBeCloseTo(20.2, 6);
  });

  it('the median of the largest of k standard normals matches the normal table', () => {
    // Φ⁻¹(0.5) = 0, Φ⁻¹(√0.5) = 0.5449, Φ⁻¹(0.5^(1/3)) = 0.8193 (standard normal table).
    expect(medianOfMaxNormal(1)).toBeCloseTo(0, 5);
    expect(medianOfMaxNormal(2)).toBeCloseTo(0.5449, 3);
    expect(medianOfMaxNormal(3)).toBeCloseTo(0.8193, 3);
  });

  it('contention centred on the slowest host keeps the median query at the uncontended latency', async () => {
    const cost = { hopMs: 0, frameCpuMs: 0.1, groupCpuUs: 0, entryCpuUs: 0, encodeFrameMs: 0, encodeGroupUs: 0, encodeEntryUs: 0, rootMs: 0, bytesPerFrame: 0, bytesPerGroup: 0, bytesPerEntry: 0 };
    const median = async (slowCenter: number): Promise<number> => {
      const t = buildSimTree({ n: 40, layout: { id: 'flat', fanout: 40, depth: 1 }, shape: { id: 'one', label: 'one', groupsPerLeaf: 1, keySpace: 1 }, latency: { terms: [] }, cost, seed: 5, hosts: { count: 2, scanMs: 1, slowSigma: 0.5, slowCenter } });
      const l: number[] = [];
      for (let i = 0; i < 400; i++) l.push((await t.run({ id: 'all', policy: 'all', deadlineMs: 10_000 })).latencyMs);
      return l.sort((a, b) => a - b)[199]!;
    };
    // Uncontended: 20.2 ms (previous test). Centred on each host, the slowest of two is exp(0.5 × 0.545) ≈ 1.31× slower at the median.
    expect(Math.abs((await median(medianOfMaxNormal(2))) / 20.2 - 1)).toBeLessThan(0.06);
    expect((await median(0)) / 20.2).toBeGreaterThan(1.2);
  });
});

describe('stalls and the variability fit of the validation', () => {
  const cost = { hopMs: 0, frameCpuMs: 0.1, groupCpuUs: 0, entryCpuUs: 0, encodeFrameMs: 0, encodeGroupUs: 0, encodeEntryUs: 0, rootMs: 0, bytesPerFrame: 0, bytesPerGroup: 0, bytesPerEntry: 0 };
  const latencies = async (p: number, meanMs: number, queries: number): Promise<number[]> => {
    // Ten leaves on one host, 1 ms of scan each: the last answer leaves at 10 ms, the root takes it in by 10.1 ms.
    const t = buildSimTree({ n: 10, layout: { id: 'flat', fanout: 10, depth: 1 }, shape: { id: 'one', label: 'one', groupsPerLeaf: 1, keySpace: 1 }, latency: { terms: [] }, cost, seed: 6, hosts: { count: 1, scanMs: 1, slowSigma: 0, stall: { p, meanMs } } });
    const l: number[] = [];
    for (let i = 0; i < queries; i++) l.push((await t.run({ id: 'all', policy: 'all', deadlineMs: 10_000 })).latencyMs);
    return l;
  };

  it('a stall delays its host by its length, exponential with the given mean, in the given share of queries', async () => {
    for (const x of await latencies(0, 5, 50)) expect(x).toBeCloseTo(10.1, 6);
    const always = (await latencies(1, 5, 2000)).map((x) => x - 10.1);
    expect(Math.min(...always)).toBeGreaterThanOrEqual(-1e-9);
    // Exponential with mean 5: mean 5 (standard error 0.11), median 5 ln 2 = 3.47.
    expect(Math.abs(always.reduce((a, b) => a + b, 0) / always.length - 5)).toBeLessThan(0.4);
    expect(Math.abs(always.sort((a, b) => a - b)[999]! - 5 * Math.LN2)).toBeLessThan(0.4);
    const some = await latencies(0.2, 5, 2000);
    expect(Math.abs(some.filter((x) => x > 10.1 + 1e-9).length / 2000 - 0.2)).toBeLessThan(0.03);
  });

  it('the fit recovers the percentiles of a known overhead, contention, stall and wait', () => {
    // Two trees whose deterministic latency grows with the per-request overhead a (ms): 4 and 50 requests per host.
    const trees = [
      { requests: 4, scanMs: 0.7, baseAt: (a: number) => 10 + 4 * (a + 0.7) },
      { requests: 50, scanMs: 0.1, baseAt: (a: number) => 12 + 50 * (a + 0.1) },
    ];
    // Targets made by the surrogate itself at a = 0.9, σ 0.3, p 0.3, mean 10 ms, wait 4 ms.
    const targets = trees.map((t) => {
      const l = surrogate({ base: t.baseAt(0.9), hostCpuMs: t.requests * (0.9 + t.scanMs) }, 0.3, 0.3, 10, 20_000);
      return { ...t, p50: nearestRank(l, 0.5) + 4, p90: nearestRank(l, 0.9) + 4, p99: nearestRank(l, 0.99) + 4 };
    });
    // Started 20% off the true overhead.
    const v = fitVariability(targets, 0.72);
    for (const t of targets) {
      const l = surrogate({ base: t.baseAt(v.overheadMs), hostCpuMs: t.requests * (v.overheadMs + t.scanMs) }, v.slowSigma, v.stall.p, v.stall.meanMs, 20_000);
      for (const [q, want] of [[0.5, t.p50], [0.9, t.p90], [0.99, t.p99]] as const) expect(Math.abs((nearestRank(l, q) + v.waitMs) / want - 1), `p${q * 100} with ${t.requests} requests`).toBeLessThan(0.03);
    }
    expect(v.waitMs).toBeGreaterThanOrEqual(0);
  }, 60_000);
});

describe('simulation in worker processes', () => {
  it('gives the same depth cells as one process', async () => {
    const { depthPlan } = await import('../bench/depth.ts');
    const { costModel, depthCells, runInProcesses, treeTask } = await import('../src/sim/index.ts');
    const cal = { frameMs: 0.07, groupUs: 0.42, entryUs: 0.7, encodeFrameMs: 0.1, encodeGroupUs: 0.07, encodeEntryUs: 0.72, bytesPerFrame: 608, bytesPerGroup: 19.9, bytesPerEntry: 78.9 };
    // Two small trees of the quick plan, one hedged: fewer queries, same seeds and shapes.
    const plan = depthPlan(true)
      .filter((t) => t.n === 100 && t.layout.id === 'flat' && t.shape.id === 'few')
      .map((t) => ({ ...t, runs: t.runs.map((r) => ({ ...r, queries: 10 })) }));
    expect(plan.length).toBe(2);
    const cost = costModel(cal, 0.25, 1, 0.05);
    const strip = (cells: readonly { realSeconds: number }[]): string[] => cells.map(({ realSeconds: _, ...c }) => JSON.stringify(c));
    const parallel = (await runInProcesses<Awaited<ReturnType<typeof depthCells>>>(plan.map((p) => treeTask('depthCells', [cost, [p]], 1)), 2)).flat();
    expect(strip(parallel)).toEqual(strip(await depthCells(cost, plan)));
  }, 60_000);
});

describe('the depth plan', () => {
  it('has all four policies at every N, and enough queries for every percentile it can show', async () => {
    const { depthPlan } = await import('../bench/depth.ts');
    for (const quick of [false, true]) {
      const plan = depthPlan(quick);
      const ns = [...new Set(plan.map((t) => t.n))];
      for (const n of ns.filter((x) => x <= 1000)) {
        const kinds = new Set(plan.filter((t) => t.n === n && t.shape.id === 'few' && t.latency === 'standard').flatMap((t) => t.runs.map((r) => `${r.policy.id}${t.hedge ? '+hedge' : ''}`)));
        expect([...kinds].sort(), `N=${n} quick=${quick}`).toEqual(['all', 'all+hedge', 'partial@100', 'partial@100+hedge']);
      }
      if (!quick) {
        // p99 for every cell at N = 100 and 1,000; p99.9 for wait-for-all with and without hedging at N = 100.
        for (const t of plan.filter((x) => x.n <= 1000)) for (const r of t.runs) expect(r.queries).toBeGreaterThanOrEqual(100);
        for (const t of plan.filter((x) => x.n === 100 && x.shape.id === 'few' && x.latency === 'standard')) expect(t.runs.find((r) => r.policy.id === 'all')!.queries).toBeGreaterThanOrEqual(1000);
        // The run's budget: leaf-queries (the real cost of a simulated query grows with its leaves) stay under 4 million.
        const leafQueries = plan.reduce((s, t) => s + t.n * (t.runs.reduce((q, r) => q + r.queries, 0) + (t.hedge ? 25 : 0)), 0);
        expect(leafQueries).toBeLessThan(4_000_000);
      }
    }
  });
});
