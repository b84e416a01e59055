/**
 * Tail control: replica sets, hedged requests with a budget, outlier ejection and zone-aware
 * routing. Everything runs on fake timers and in-process children with controlled latencies.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { RetryBudget, TailControl, replicaSet, type ReplicaSetChild, type TailOptions, type TailShardStatus } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, drawLatency, prepareShard, seededRandom, withFaultsAt, type FaultPlan } from '../src/leaf/index.ts';
import { CanopyError, isCanopyError, type Frame, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { planQuery, type Root } from '../src/root/index.ts';
import type { ChildRequest } from '../src/transport/index.ts';
import { dateClock } from './helpers/clock.ts';
import { controlledChild, replicatedRoot, type ControlledChild } from './helpers/replicated-tree.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }, { name: 'g', type: 'string' }] };
const rows = (xs: number[], g = 'a'): Scalar[][] => xs.map((x) => [BigInt(x), g]);
const schemas = new Map([['t', schema]]);

function request(sql = 'SELECT count(*) FROM t', shards: readonly number[] = [0]): ChildRequest {
  return { queryId: 'q', schema, plan: planQuery(sql, schemas).scan, shards, budgetMs: 10_000 };
}

/** A leaf handler for shard `id` over `data`, named `name`. */
function leafHandler(name: string, id: number, data: Scalar[][]) {
  return createLeaf(name, [prepareShard(id, shardsFromRows(schema, [data])[0]!, schema)]).handler;
}

/** Two (or more) controlled replicas of shard 0 in zones a, b, ... */
function replicas(latencies: readonly number[], data: Scalar[][] = rows([1, 2, 3])): ControlledChild[] {
  return latencies.map((ms, j) => controlledChild(`leaf-0.r${j}`, [0], leafHandler(`leaf-0.r${j}`, 0, data), ms));
}

const zones = ['a', 'b', 'c', 'd'];
function set(children: readonly ControlledChild[], tail?: TailControl): ReplicaSetChild {
  return replicaSet(
    'leaf-0',
    children.map((child, j) => ({ child, zone: zones[j]! })),
    tail,
  );
}

/** Tail control on fake time with a fixed random source (replica 0 is preferred when all are equal). */
function control(opts: TailOptions = {}): TailControl {
  return new TailControl({ clock: dateClock, random: () => 0.5, ...opts });
}

/** Runs a child's query to its end; resolves to the frames and the time it took (fake ms). */
async function collect(iter: AsyncIterable<Frame>): Promise<{ frames: Frame[]; ms: number }> {
  const t0 = Date.now();
  const frames: Frame[] = [];
  for await (const f of iter) frames.push(f);
  return { frames, ms: Date.now() - t0 };
}

/**
 * Advances fake time until `p` settles (its value, or the error it rejected with), then by
 * `gap` ms more (spacing between requests).
 */
async function runFor<T>(p: Promise<T>, gap = 0): Promise<T> {
  let done = false;
  const settled = p.then(
    (v) => v,
    (e: unknown) => e as T,
  ).finally(() => {
    done = true;
  });
  for (let i = 0; i < 100_000 && !done; i++) await vi.advanceTimersByTimeAsync(1);
  if (!done) throw new Error('query did not settle');
  if (gap > 0) await vi.advanceTimersByTimeAsync(gap);
  return settled;
}

/** COUNT(*) of a frame's (ungrouped) partial. */
function countOf(f: Frame | undefined): number {
  const p = f?.partial;
  if (p === undefined || p.type === 'rows') throw new Error('expected a grouped partial');
  return Number(p.type === 'columnar' ? p.states[0]![0] : [...p.groups.values()][0]!.states[0]);
}

beforeEach(() => {
  vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
});
afterEach(() => {
  vi.useRealTimers();
});

describe('hedged requests', () => {
  it('fire only after the trigger delay, go to another zone, and the loser is aborted', async () => {
    const [r0, r1] = replicas([100, 5]);
    const tail = control({ hedge: { defaultDelayMs: 10 } });
    const s = set([r0!, r1!], tail);
    const pending = collect(s.query(request(), new AbortController().signal));
    await vi.advanceTimersByTimeAsync(9);
    expect(r0!.seen).toHaveLength(1);
    expect(r1!.seen).toHaveLength(0);
    await vi.advanceTimersByTimeAsync(1);
    expect(r1!.seen).toHaveLength(1);
    // the hedge carries the budget left, not the original one
    expect(r1!.seen[0]!.req.budgetMs).toBe(10_000 - 10);
    await vi.advanceTimersByTimeAsync(5);
    const { frames, ms } = await pending;
    expect(ms).toBe(15);
    expect(frames).toHaveLength(1);
    expect(countOf(frames[0])).toBe(3);
    // the loser's signal is aborted with a cancellation, and no timer is left behind
    expect(r0!.seen[0]!.signal.aborted).toBe(true);
    expect(isCanopyError(r0!.seen[0]!.signal.reason) && r0!.seen[0]!.signal.reason.code).toBe('CANOPY_ERR_CANCELLED');
    expect(vi.getTimerCount()).toBe(0);
    expect(tail.counters).toMatchObject({ requests: 1, replicaRequests: 2, hedgesSent: 1, hedgesWon: 1, hedgesWasted: 0 });
    expect((frames[0]!.provenance as TailShardStatus[]).every((p) => p.hedged === true)).toBe(true);
  });

  it('no hedge when the primary answers before the delay; a hedge that loses is aborted and counted as wasted', async () => {
    const [r0, r1] = replicas([5, 100]);
    const tail = control({ hedge: { defaultDelayMs: 10 } });
    const s = set([r0!, r1!], tail);
    const fast = await runFor(collect(s.query(request(), new AbortController().signal)), 50);
    expect(fast.frames).toHaveLength(1);
    expect(r1!.seen).toHaveLength(0);
    expect(fast.frames[0]!.provenance).toEqual([{ shard: 0, status: 'answered', path: 'leaf-0.r0', rowsScanned: 3 }]);
    r0!.latency = 12;
    const slow = await runFor(collect(s.query(request(), new AbortController().signal)), 50);
    expect(slow.ms).toBe(12);
    expect(r1!.seen).toHaveLength(1);
    expect(r1!.seen[0]!.signal.aborted).toBe(true);
    expect(tail.counters).toMatchObject({ hedgesSent: 1, hedgesWon: 0, hedgesWasted: 1 });
  });

  it('a second hedge (maxHedges 2) goes one delay later, back to the first replica as a fresh request', async () => {
    const [r0, r1] = replicas([100, 100]);
    const tail = control({ hedge: { defaultDelayMs: 10, maxHedges: 2 } });
    const s = set([r0!, r1!], tail);
    const pending = collect(s.query(request(), new AbortController().signal));
    await vi.advanceTimersByTimeAsync(10);
    expect([r0!.seen.length, r1!.seen.length]).toEqual([1, 1]);
    r0!.latency = 3;
    await vi.advanceTimersByTimeAsync(10);
    expect([r0!.seen.length, r1!.seen.length]).toEqual([2, 1]);
    const { frames, ms } = await runFor(pending);
    expect(ms).toBe(23);
    expect(countOf(frames[0])).toBe(3);
    expect([r0!.seen[0]!.signal.aborted, r1!.seen[0]!.signal.aborted, r0!.seen[1]!.signal.aborted]).toEqual([true, true, false]);
    expect(tail.counters).toMatchObject({ hedgesSent: 2, hedgesWon: 1, hedgesWasted: 1 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('the delay follows the observed quantile of the query class once enough samples exist', async () => {
    const [r0, r1] = replicas([4, 4]);
    const tail = control({ hedge: { defaultDelayMs: 50, minSamples: 10, quantile: 0.9, minP50Multiple: 0 } });
    const floored = control({ hedge: { defaultDelayMs: 50, minSamples: 10, quantile: 0.9 } });
    const f = set(replicas([4, 4]), floored);
    const s = set([r0!, r1!], tail);
    const req = request();
    expect(tail.hedgeDelay(s.state!, tail.classOf(req))).toBe(50);
    for (let i = 0; i < 12; i++) await runFor(collect(s.query(req, new AbortController().signal)), 10);
    const d = tail.hedgeDelay(s.state!, tail.classOf(req));
    expect(d).toBeGreaterThan(3.8);
    expect(d).toBeLessThan(4.2);
    // by default never before twice the median: a hedge sent sooner could hardly win
    for (let i = 0; i < 12; i++) await runFor(collect(f.query(req, new AbortController().signal)), 10);
    const d2 = floored.hedgeDelay(f.state!, floored.classOf(req));
    expect(d2).toBeGreaterThan(7.6);
    expect(d2).toBeLessThan(8.4);
    // another class has no samples of its own: it falls back to the default
    expect(tail.hedgeDelay(s.state!, tail.classOf(request('SELECT g, sum(x) FROM t GROUP BY g')))).toBe(50);
  });

  it('never beyond the budget: hedges stay within burst + share x requests', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 30 }), fc.integer({ min: 0, max: 30 }), fc.boolean()), { minLength: 1, maxLength: 60 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.integer({ min: 0, max: 5 }),
        async (reqs, share, burst) => {
          const [r0, r1] = replicas([0, 0]);
          const tail = control({ hedge: { defaultDelayMs: 5, minSamples: 1000 }, budget: { share, burst } });
          const s = set([r0!, r1!], tail);
          let i = 0;
          const draw = (j: number) => () => reqs[Math.min(i, reqs.length - 1)]![j] as number;
          r0!.latency = draw(0);
          r1!.latency = draw(1);
          for (; i < reqs.length; i++) {
            r0!.fail = reqs[i]![2];
            await runFor(collect(s.query(request(), new AbortController().signal)), 100);
          }
          const c = tail.counters;
          expect(c.hedgesSent).toBeLessThanOrEqual(burst + share * c.requests + 1e-9);
          expect(c.replicaRequests).toBe(c.requests + c.hedgesSent + c.retriesSent);
          expect(vi.getTimerCount()).toBe(0);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('a spent budget denies hedges; an overloaded tier suppresses them', async () => {
    const [r0, r1] = replicas([20, 1]);
    const tail = control({ hedge: { defaultDelayMs: 5 }, budget: { share: 0, burst: 1 } });
    const s = set([r0!, r1!], tail);
    for (let i = 0; i < 3; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 50);
    expect(tail.counters).toMatchObject({ hedgesSent: 1, hedgesDenied: 2 });
    const [q0, q1] = replicas([20, 1]);
    const busy = control({ hedge: { defaultDelayMs: 5 }, overload: { maxInFlight: 0 } });
    const t = set([q0!, q1!], busy);
    await runFor(collect(t.query(request(), new AbortController().signal)), 50);
    expect(busy.counters).toMatchObject({ hedgesSent: 0, hedgesSuppressed: 1 });
    expect(q1!.seen).toHaveLength(0);
  });

  it('retries on another replica after an error, within the retry budget', async () => {
    const [r0, r1] = replicas([2, 2]);
    r0!.fail = true;
    const tail = control({ hedge: { defaultDelayMs: 50 } });
    const s = set([r0!, r1!], tail);
    const { frames, ms } = await runFor(collect(s.query(request(), new AbortController().signal)), 100);
    expect(countOf(frames[0])).toBe(3);
    expect(ms).toBe(4);
    expect(tail.counters).toMatchObject({ retriesSent: 1, hedgesSent: 0 });
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a parent abort cancels every attempt and the hedge timer, and removes its listener', async () => {
    const [r0, r1] = replicas([100, 100]);
    const tail = control({ hedge: { defaultDelayMs: 10 } });
    const s = set([r0!, r1!], tail);
    const ctl = new AbortController();
    const add = vi.spyOn(ctl.signal, 'addEventListener');
    const remove = vi.spyOn(ctl.signal, 'removeEventListener');
    const pending = collect(s.query(request(), ctl.signal)).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(5);
    ctl.abort(new Error('client went away'));
    const e = await pending;
    expect(isCanopyError(e) && e.code).toBe('CANOPY_ERR_CANCELLED');
    expect(r0!.seen[0]!.signal.aborted).toBe(true);
    expect(r1!.seen).toHaveLength(0);
    expect(vi.getTimerCount()).toBe(0);
    // a call that ends normally leaves no listener on the parent signal either
    const ok = new AbortController();
    const add2 = vi.spyOn(ok.signal, 'addEventListener');
    const remove2 = vi.spyOn(ok.signal, 'removeEventListener');
    await runFor(collect(s.query(request(), ok.signal)), 200);
    expect(add2.mock.calls.length).toBe(1);
    expect(remove2.mock.calls.map((c) => c[1])).toEqual(add2.mock.calls.map((c) => c[1]));
    expect(add.mock.calls.length).toBe(1);
    expect(remove.mock.calls.length + 1).toBeGreaterThanOrEqual(add.mock.calls.length);
  });
});

describe('each shard is merged exactly once', () => {
  const data = [rows([1, 2]), rows([3, 4, 5]), rows([6, 7, 8, 9]), rows([10])];

  it('a hedge and its original both answering (cancellation ignored): COUNT(*) stays exact, provenance has each shard once', async () => {
    const tail = control({ hedge: { defaultDelayMs: 5, maxHedges: 1 } });
    const children = new Map<string, ControlledChild>();
    const { root } = replicatedRoot(schema, data, {
      tail,
      wrap: (leaf, p) => {
        const c = controlledChild(p.name, leaf.shards, leaf.handler, p.index === 0 ? 20 : 18);
        c.ignoreAbort = true;
        children.set(p.name, c);
        return c;
      },
    });
    const a = await runFor(root.query({ sql: 'SELECT count(*), sum(x) FROM t' }, new AbortController().signal), 200);
    expect(a.rows).toEqual([[10n, 55n]]);
    expect(a.label).toBe('exact');
    expect(a.provenance.map((p) => p.shard).sort()).toEqual([0, 1, 2, 3]);
    expect(a.coverage).toEqual({ shards: 4, answered: 4, failed: 0, omitted: 0, pruned: 0 });
    expect(tail.counters.hedgesSent).toBe(4);
    expect(tail.counters.duplicatesDropped).toBe(4);
    expect(tail.counters.divergences).toBe(0);
    // both replicas of every shard were asked, and the losers' signals were aborted
    for (const c of children.values()) expect(c.seen).toHaveLength(1);
    expect([...children.values()].filter((c) => c.seen[0]!.signal.aborted)).toHaveLength(4);
  });

  it('property: with random replica latencies, hedges and replicas that ignore cancellation, answers equal the unreplicated tree', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(fc.integer({ min: -5, max: 5 }), fc.constantFrom('a', 'b', 'c')), { maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        fc.array(fc.tuple(fc.integer({ min: 0, max: 12 }), fc.boolean()), { minLength: 18, maxLength: 18 }),
        fc.integer({ min: 2, max: 3 }),
        async (shardRows, knobs, r) => {
          const d = shardRows.map((rs) => rs.map(([x, g]) => [BigInt(x), g] as Scalar[]));
          const tail = control({ hedge: { defaultDelayMs: 3, maxHedges: 2 }, budget: { burst: 1000 } });
          let k = 0;
          const { root } = replicatedRoot(schema, d, {
            tail,
            replicas: r,
            fanout: 3,
            wrap: (leaf, p) => {
              const [ms, ignore] = knobs[k++ % knobs.length]!;
              const c = controlledChild(p.name, leaf.shards, leaf.handler, ms);
              c.ignoreAbort = ignore;
              return c;
            },
          });
          const plain = inProcessRoot(schema, d, { fanout: 3 });
          for (const sql of ['SELECT g, count(*), sum(x) FROM t GROUP BY g ORDER BY g', 'SELECT count(*), min(x), max(x) FROM t']) {
            const a = await runFor(root.query({ sql }, new AbortController().signal));
            const b = await runFor(plain.root.query({ sql }, new AbortController().signal));
            expect(a.rows).toEqual(b.rows);
            expect(a.label).toBe('exact');
            expect(a.provenance.map((p) => p.shard).sort((x, y) => x - y)).toEqual(d.map((_, i) => i));
          }
          await vi.advanceTimersByTimeAsync(100);
          expect(vi.getTimerCount()).toBe(0);
        },
      ),
      { numRuns: 25 },
    );
  });

  it('replicas that disagree: the first answer is used, the divergence is counted and warned about', async () => {
    const warned: string[] = [];
    const tail = control({ hedge: { defaultDelayMs: 5 }, onWarning: (w) => warned.push(w.code) });
    const { root } = replicatedRoot(schema, data, {
      tail,
      // replica r1 of shard 1 is stale: one row fewer
      rows: (p, shard) => (shard === 1 && p.index === 1 ? rows([3, 4]) : undefined),
      wrap: (leaf, p, shard) => {
        const c = controlledChild(p.name, leaf.shards, leaf.handler, shard === 1 ? (p.index === 0 ? 10 : 5) : 1);
        c.ignoreAbort = true;
        return c;
      },
    });
    const a = await runFor(root.query({ sql: 'SELECT count(*) FROM t' }, new AbortController().signal), 200);
    // r0 answered first (10 ms; the hedge went at 5 ms and answered at 10 ms too, or later)
    expect(a.provenance.filter((p) => p.shard === 1)).toHaveLength(1);
    expect([10n, 9n]).toContainEqual(a.rows[0]![0]);
    expect(tail.counters.divergences).toBe(1);
    expect(warned).toEqual(['CANOPY_WARN_REPLICAS_DIVERGED']);
    expect(tail.warnings[0]).toMatchObject({ shards: [1] });
    expect(tail.warnings[0]!.replicas).toHaveLength(2);
  });

  it('a divergence found before the answer is handed over travels in-band, in provenance', async () => {
    const tail = control({ hedge: { defaultDelayMs: 5 } });
    // Both replicas wait on one gate, opened after the hedge went out: their answers come in
    // the same turn of the event loop, the second before the first is handed over.
    let open: () => void = () => undefined;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const gated = (name: string, data: Scalar[][]) => {
      const h = leafHandler(name, 0, data);
      return {
        name,
        shards: [0],
        query: async function* (req: ChildRequest) {
          await gate;
          yield* h(req, new AbortController().signal);
        },
      };
    };
    const s = replicaSet('leaf-0', [{ child: gated('leaf-0.r0', rows([1, 2, 3])), zone: 'a' }, { child: gated('leaf-0.r1', rows([1, 2])), zone: 'b' }], tail);
    const pending = collect(s.query(request(), new AbortController().signal));
    await vi.advanceTimersByTimeAsync(6);
    expect(tail.counters.hedgesSent).toBe(1);
    open();
    const { frames } = await runFor(pending);
    expect(frames).toHaveLength(1);
    expect(tail.counters.divergences).toBe(1);
    const prov = frames[0]!.provenance as TailShardStatus[];
    expect(prov).toHaveLength(1);
    expect(prov[0]!.warnings?.map((w) => w.code)).toEqual(['CANOPY_WARN_REPLICAS_DIVERGED']);
  });
});

describe('retry budget', () => {
  it('property: over any window, retries granted stay within share x successes (of the window) + the floor (brute force over the event log)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(fc.integer({ min: 0, max: 400 }), fc.boolean()), { minLength: 1, maxLength: 300 }),
        fc.double({ min: 0, max: 0.5, noNaN: true }),
        fc.integer({ min: 0, max: 3 }),
        (events, share, minPerSecond) => {
          const windowMs = 1000;
          const budget = new RetryBudget({ share, minPerSecond, windowMs }, 0);
          const log: { at: number; retry: boolean }[] = [];
          let t = 0;
          for (const [gap, isRetry] of events) {
            t += gap;
            if (!isRetry) {
              budget.deposit(t);
              log.push({ at: t, retry: false });
            } else if (budget.tryWithdraw(t)) {
              log.push({ at: t, retry: true });
              // retries in the last 0.9 window never exceed what the successes of the last full window earned
              const retries = log.filter((e) => e.retry && e.at > t - 0.9 * windowMs).length;
              const successes = log.filter((e) => !e.retry && e.at > t - windowMs).length;
              expect(retries).toBeLessThanOrEqual(share * successes + minPerSecond * (windowMs / 1000) + 1e-9);
            }
          }
        },
      ),
      { numRuns: 200 },
    );
  });

  it('a failing replica with a healthy peer: every request is exact while the budget allows; retries stay within 10% of successes', async () => {
    const [r0, r1] = replicas([1, 1]);
    // no floor: every retry is earned by successes; r0 is always tried first (random 0.5 keeps the order)
    const tail = control({ retry: { share: 0.1, minPerSecond: 0 } });
    const s = set([r0!, r1!], tail);
    let exact = 0;
    let failed = 0;
    for (let i = 0; i < 60; i++) {
      // r0 answers every third request (successes earn the budget) and fails the others
      r0!.fail = i % 3 !== 0;
      const out = await runFor(collect(s.query(request(), new AbortController().signal)), 10);
      if ('frames' in out) {
        expect(countOf(out.frames[0])).toBe(3);
        exact++;
      } else failed++;
      // each exact answer is one successful replica request
      expect(tail.counters.retriesSent).toBeLessThanOrEqual(0.1 * exact + 1e-9);
    }
    expect(tail.counters.retriesSent).toBeGreaterThan(0);
    expect(tail.counters.retriesDenied).toBe(failed);
    expect(exact + failed).toBe(60);
    // every request answered on the first try or by a granted retry; each denial is one failed request
    expect(exact).toBe(20 + tail.counters.retriesSent);
  });

  it('with the default budget (floor of 1 per second), a failing replica next to a healthy one gives exact answers', async () => {
    const [r0, r1] = replicas([2, 2]);
    r0!.fail = true;
    const tail = control({ hedge: { defaultDelayMs: 50 } });
    const s = set([r0!, r1!], tail);
    for (let i = 0; i < 5; i++) {
      const { frames } = await runFor(collect(s.query(request(), new AbortController().signal)), 100);
      expect(countOf(frames[0])).toBe(3);
    }
    expect(tail.counters.retriesSent).toBe(5);
  });

  it('no retry after a timeout, when too little time is left, or when retries are off', async () => {
    const [r0, r1] = replicas([5, 5]);
    const tail = control({ retry: { minPerSecond: 100 } });
    const s = set([r0!, r1!], tail);
    // warm up: the set's median latency is 5 ms
    for (let i = 0; i < 20; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    const before = r1!.seen.length;
    // a deadline error from the replica is a timeout, not a fast failure
    const late = new CanopyError('CANOPY_ERR_DEADLINE', 'ran out of budget');
    const timedOut = controlledChild('leaf-0.r0', [0], async function* () {
      yield* [];
      throw late;
    });
    const t = replicaSet('leaf-0', [{ child: timedOut, zone: 'a' }, { child: r1!, zone: 'b' }], tail);
    expect(await runFor(collect(t.query(request(), new AbortController().signal)))).toBe(late);
    expect(r1!.seen.length).toBe(before);
    // 3 ms left, less than the 5 ms median: too late to retry
    r0!.fail = true;
    const short = await runFor(collect(s.query({ ...request(), budgetMs: 8 }, new AbortController().signal)));
    expect(isCanopyError(short) && short.code).toBe('CANOPY_ERR_INTERNAL');
    expect(tail.counters.retriesTooLate).toBe(1);
    const off = control({ retry: false });
    const u = set(replicas([1, 1]).map((c, j) => Object.assign(c, { fail: j === 0 })), off);
    const e = await runFor(collect(u.query(request(), new AbortController().signal)));
    expect(isCanopyError(e)).toBe(true);
    expect(off.counters).toMatchObject({ retriesSent: 0, retriesDenied: 0 });
  });

  it("too late is judged by the median of the replica the retry goes to, not the set's, which holds a frozen replica's deadline samples", () => {
    const tail = control({ retry: { minPerSecond: 100 } });
    const [c0, c1, c2] = replicas([5, 5, 5]);
    const st = tail.register('leaf-0', [c0!, c1!, c2!].map((child, j) => ({ child, zone: zones[j]! })));
    const [frozen, healthy, fresh] = st.replicas;
    const now = Date.now();
    // The frozen replica's requests ended at their 3 s deadline (recorded as latency); its healthy peer answers in 5 ms.
    for (let i = 0; i < 30; i++) frozen!.recordLatency('c', 3000, now);
    for (let i = 0; i < 10; i++) healthy!.recordLatency('c', 5, now);
    const unreachable = new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', 'connection refused');
    // 2.5 s left: plenty for the healthy replica.
    expect(tail.mayRetry(st, 'c', unreachable, 2500, healthy)).toBe(true);
    // Without knowing where the retry goes, the set's median (3 s) says too late, as before.
    expect(tail.mayRetry(st, 'c', unreachable, 2500)).toBe(false);
    // A replica with no sample of the class: the set's median decides.
    expect(tail.mayRetry(st, 'c', unreachable, 2500, fresh)).toBe(false);
    expect(tail.mayRetry(st, 'c', unreachable, 4000, fresh)).toBe(true);
    expect(tail.counters.retriesTooLate).toBe(2);
  });

  it("a replica refusing with 503 (CANOPY_ERR_OVERLOADED) is retried on its peer; the whole tree stays exact", async () => {
    const tail = control({ hedge: { defaultDelayMs: 50 } });
    const data = [rows([1, 2]), rows([3, 4, 5]), rows([6])];
    const { root } = replicatedRoot(schema, data, {
      tail,
      wrap: (leaf, p) => {
        if (p.index !== 0) return leaf.handler;
        return { name: p.name, shards: leaf.shards, query: async function* () {
          yield* [];
          throw new CanopyError('CANOPY_ERR_OVERLOADED', `${p.name} refused the request (HTTP 503)`, { details: { retryAfterSeconds: 1 } });
        } };
      },
    });
    const a = await runFor(root.query({ sql: 'SELECT count(*), sum(x) FROM t' }, new AbortController().signal));
    expect(a.rows).toEqual([[6n, 21n]]);
    expect(a.label).toBe('exact');
    expect(a.provenance.map((p) => p.path).sort()).toEqual(['root/leaf-0.r1', 'root/leaf-1.r1', 'root/leaf-2.r1']);
    expect(tail.counters.retriesSent).toBe(3);
  });
});

describe('divergent replicas', () => {
  const data = [rows([1, 2]), rows([3, 4, 5]), rows([6, 7, 8, 9]), rows([10])];

  it('verification sampling: a replica with a wrong shard file is reported in that shard\'s provenance entry, and counted', async () => {
    const warned: string[] = [];
    const tail = control({ hedge: false, verifyShare: 1, onWarning: (w) => warned.push(w.code) });
    const { root } = replicatedRoot(schema, data, {
      tail,
      // replica r1 of shard 2 serves a wrong file: one row changed
      rows: (p, shard) => (shard === 2 && p.index === 1 ? rows([6, 7, 8, 90]) : undefined),
      wrap: (leaf, p) => controlledChild(p.name, leaf.shards, leaf.handler, p.index === 0 ? 3 : 4),
    });
    const a = await runFor(root.query({ sql: 'SELECT count(*), sum(x) FROM t' }, new AbortController().signal), 50);
    // the first answer is used (r0, the right file): the answer stays exact
    expect(a.rows).toEqual([[10n, 55n]]);
    // ... and the divergence is a top-level warning naming the shard (not only under trace.provenance)
    expect(a.warnings).toEqual([{ code: 'CANOPY_WARN_REPLICAS_DIVERGED', message: expect.stringMatching(/^1 shard: two replicas/), shards: [2] }]);
    const prov = a.provenance as readonly TailShardStatus[];
    expect(prov).toHaveLength(4);
    for (const e of prov) {
      expect(e.verified).toBe(true);
      expect(e.warnings?.map((w) => w.code) ?? []).toEqual(e.shard === 2 ? ['CANOPY_WARN_REPLICAS_DIVERGED'] : []);
    }
    expect(prov.find((e) => e.shard === 2)!.warnings![0]!.message).toMatch(/leaf-2\.r0 and leaf-2\.r1/);
    expect(tail.counters).toMatchObject({ verifications: 4, divergences: 1, replicaRequests: 8 });
    expect(warned).toEqual(['CANOPY_WARN_REPLICAS_DIVERGED']);
    expect(vi.getTimerCount()).toBe(0);
  });

  it('a replica that scanned different rows for the same partial (an extra row the filter drops) diverges too', async () => {
    const tail = control({ hedge: false, verifyShare: 1 });
    const { root } = replicatedRoot(schema, [rows([5, 6])], {
      tail,
      rows: (p) => (p.index === 1 ? rows([5, 6, -1]) : undefined),
    });
    const a = await runFor(root.query({ sql: 'SELECT count(*) FROM t WHERE x > 0' }, new AbortController().signal));
    expect(a.rows).toEqual([[2n]]);
    expect(tail.counters.divergences).toBe(1);
    expect((a.provenance[0] as TailShardStatus).warnings?.[0]!.code).toBe('CANOPY_WARN_REPLICAS_DIVERGED');
  });

  it('a verified request waits for the slower replica at most one grace period; the comparison still counts after', async () => {
    const [r0, r1] = replicas([2, 100], rows([1, 2, 3]));
    r1!.ignoreAbort = true;
    const tail = control({ hedge: false, verifyShare: 1 });
    const s = set([r0!, r1!], tail);
    const { frames, ms } = await runFor(collect(s.query(request(), new AbortController().signal)));
    // no latency samples yet: the grace is the 10 ms default
    expect(ms).toBe(12);
    expect((frames[0]!.provenance[0] as TailShardStatus).verified).toBeUndefined();
    await vi.advanceTimersByTimeAsync(200);
    expect(tail.counters).toMatchObject({ verifications: 1, duplicatesDropped: 1, divergences: 0 });
  });

  it('verification spends the hedge budget and is off by default', async () => {
    const [r0, r1] = replicas([1, 1]);
    const none = control({ hedge: false, verifyShare: 1, budget: { share: 0, burst: 2 } });
    const s = set([r0!, r1!], none);
    for (let i = 0; i < 5; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    expect(none.counters).toMatchObject({ requests: 5, verifications: 2, replicaRequests: 7 });
    const [q0, q1] = replicas([1, 1]);
    const off = control({ hedge: {} });
    const t = set([q0!, q1!], off);
    for (let i = 0; i < 5; i++) await runFor(collect(t.query(request(), new AbortController().signal)), 10);
    expect(off.counters).toMatchObject({ verifications: 0, replicaRequests: 5 });
    expect(() => control({ verifyShare: 2 })).toThrow(RangeError);
  });
});

describe('identity when off', () => {
  it('without tail control, or with hedging and ejection off, a one-replica set passes request, signal and frames through', async () => {
    for (const tail of [undefined, control({ hedge: false, ejection: false })]) {
      const [r0] = replicas([3]);
      const s = set([r0!], tail);
      const req = request();
      const ctl = new AbortController();
      const direct = await runFor(collect(r0!.query(req, ctl.signal)), 10);
      const through = await runFor(collect(s.query(req, ctl.signal)), 10);
      expect(r0!.seen[1]!.req).toBe(req);
      expect(r0!.seen[1]!.signal).toBe(ctl.signal);
      expect(through.frames).toEqual(direct.frames);
      expect(through.ms).toBe(3);
      expect(vi.getTimerCount()).toBe(0);
    }
  });

  it('with hedging off, a replicated tree sends exactly one request per shard and answers like the unreplicated tree', async () => {
    const data = [rows([1, 2], 'a'), rows([3], 'b'), rows([4, 5, 6], 'a')];
    const tail = control({ hedge: false, ejection: {} });
    const wrap = (leaf: { shards: readonly number[]; handler: Parameters<typeof controlledChild>[2] }, p: { name: string; index: number }) => controlledChild(p.name, leaf.shards, leaf.handler, 30 + p.index * 40);
    const replicated = replicatedRoot(schema, data, { tail, wrap });
    const plain = inProcessRoot(schema, data);
    // (The WHERE keeps the root from skipping shard 0 by its zone map, rowTopKShards: every shard is asked.)
    for (const sql of ['SELECT g, count(*), sum(x) FROM t GROUP BY g ORDER BY g', 'SELECT x FROM t WHERE x > 0 ORDER BY x DESC LIMIT 2']) {
      const a = await runFor(replicated.root.query({ sql }, new AbortController().signal), 500);
      const b = await runFor(plain.root.query({ sql }, new AbortController().signal), 500);
      expect(a.rows).toEqual(b.rows);
      expect(a.label).toBe(b.label);
    }
    expect(tail.counters).toMatchObject({ requests: 6, replicaRequests: 6, hedgesSent: 0 });
  });
});

describe('outlier ejection', () => {
  it('a slow replica is ejected, then gets only probes, and comes back when healthy', async () => {
    const [r0, r1] = replicas([5, 50]);
    const tail = new TailControl({ clock: dateClock, random: seededRandom(3), ejection: { minSamples: 5, probeIntervalMs: 1000, evaluateEveryMs: 0 } });
    const s = set([r0!, r1!], tail);
    const run = () => runFor(collect(s.query(request(), new AbortController().signal)), 60);
    for (let i = 0; i < 30; i++) await run();
    expect(tail.counters.ejections).toBe(1);
    expect(s.state!.replicas[1]!.ejected).toBe(true);
    // 2 s of traffic (200 requests): the ejected replica sees only its probes, at most one per second
    const before = r1!.seen.length;
    for (let i = 0; i < 200; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    const probes = r1!.seen.length - before;
    expect(probes).toBeGreaterThanOrEqual(1);
    expect(probes).toBeLessThanOrEqual(3);
    expect(s.state!.replicas[1]!.ejected).toBe(true);
    // it recovers: three good probes in a row bring it back, and it gets traffic again
    r1!.latency = 5;
    for (let i = 0; i < 500 && s.state!.replicas[1]!.ejected; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    expect(s.state!.replicas[1]!.ejected).toBe(false);
    expect(tail.counters.reinstatements).toBe(1);
    const back = r1!.seen.length;
    for (let i = 0; i < 40; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    expect(r1!.seen.length - back).toBeGreaterThan(10);
  });

  it('a failing replica is ejected by its failure rate; requests fail over meanwhile', async () => {
    const [r0, r1] = replicas([1, 1]);
    r0!.fail = true;
    const tail = control({ ejection: { minFailures: 3, evaluateEveryMs: 0 }, budget: { burst: 100 } });
    const s = set([r0!, r1!], tail);
    for (let i = 0; i < 10; i++) {
      const { frames } = await runFor(collect(s.query(request(), new AbortController().signal)), 10);
      expect(countOf(frames[0])).toBe(3);
    }
    expect(s.state!.replicas[0]!.ejected).toBe(true);
    expect(tail.counters.retriesSent).toBe(3);
  });

  it('a hung replica is ejected too: with hedging, its losses to hedges count as failures', async () => {
    const [r0, r1] = replicas([1e9, 2]);
    const tail = control({ hedge: { defaultDelayMs: 3 }, ejection: { evaluateEveryMs: 0 }, budget: { burst: 100 } });
    const s = set([r0!, r1!], tail);
    for (let i = 0; i < 12; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    expect(s.state!.replicas[0]!.ejected).toBe(true);
    const before = tail.counters.hedgesSent;
    for (let i = 0; i < 20; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    expect(tail.counters.hedgesSent).toBe(before);
  });

  it('the last healthy replica is never ejected', async () => {
    const [r0, r1] = replicas([1, 1]);
    r0!.fail = true;
    r1!.fail = true;
    const tail = control({ ejection: { minFailures: 2, evaluateEveryMs: 0 }, budget: { burst: 0, share: 0 } });
    const s = set([r0!, r1!], tail);
    for (let i = 0; i < 20; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 10);
    expect(s.state!.replicas.filter((r) => r.ejected)).toHaveLength(1);
  });
});

describe('zone-aware routing', () => {
  it("prefers the caller's zone while its replica is healthy", async () => {
    const [r0, r1, r2] = replicas([1, 1, 1]);
    const tail = new TailControl({ clock: dateClock, random: seededRandom(1), zone: 'b', ejection: {} });
    const s = set([r0!, r1!, r2!], tail);
    for (let i = 0; i < 20; i++) await runFor(collect(s.query(request(), new AbortController().signal)), 5);
    expect(r1!.seen).toHaveLength(20);
    expect(r0!.seen.length + r2!.seen.length).toBe(0);
  });

  it('a slow zone (a third of the leaves 30 ms slower, seed 003) is routed around when replicas exist in other zones', async () => {
    // 30 shards x 2 replicas over zones a, b, c; every leaf lognormal ~4 ms; zone c +30 ms.
    const plan: FaultPlan = {
      seed: 3,
      rules: [
        { shards: 'all', latency: { kind: 'lognormal', medianMs: 4, sigma: 0.2 } },
        { shards: 'all', zones: ['c'], latency: { kind: 'fixed', ms: 30 } },
      ],
    };
    const data = Array.from({ length: 30 }, (_, i) => rows([i, i + 1]));
    const build = (tail?: TailControl) =>
      replicatedRoot(schema, data, { ...(tail === undefined ? {} : { tail }), zones: 3, clock: dateClock, wrap: (leaf, p) => withFaultsAt({ zone: p.zone, replica: p.index }, leaf.handler, leaf.shards, plan) });
    const latencies = async (root: Root, n: number): Promise<number[]> => {
      const out: number[] = [];
      for (let i = 0; i < n; i++) {
        const a = await runFor(root.query({ sql: 'SELECT count(*) FROM t' }, new AbortController().signal), 20);
        expect(a.rows).toEqual([[60n]]);
        out.push(a.stats.elapsed_ms);
      }
      return out;
    };
    // Without tail control every query touches zone c: each takes 30+ ms.
    const plain = build();
    const before = await latencies(plain.root, 10);
    expect(Math.min(...before)).toBeGreaterThanOrEqual(30);
    // With ejection and hedging, zone c's replicas are ejected and queries stay near the base latency.
    const tail = new TailControl({ clock: dateClock, random: seededRandom(7), hedge: {}, ejection: { minSamples: 8, evaluateEveryMs: 0 } });
    const tree = build(tail);
    await latencies(tree.root, 40);
    const after = await latencies(tree.root, 40);
    const sorted = [...after].sort((x, y) => x - y);
    expect(sorted[Math.floor(sorted.length / 2)]!).toBeLessThan(12);
    const zoneC = [...tree.sets.values()].flatMap((s) => s.state!.replicas.filter((r) => r.zone === 'c'));
    expect(zoneC.length).toBe(20);
    expect(zoneC.filter((r) => r.ejected).length).toBeGreaterThanOrEqual(18);
    expect(tail.counters.hedgesSent).toBeLessThanOrEqual(10 + 0.05 * tail.counters.requests);
  });
});

describe('fault plans with zones', () => {
  it('a zone rule applies only to leaves in that zone; replicas draw independent latencies', () => {
    const plan: FaultPlan = { seed: 1, rules: [{ shards: 'all', zones: ['c'], latency: { kind: 'fixed', ms: 30 } }] };
    const h = leafHandler('leaf-0', 0, rows([1]));
    expect(withFaultsAt({ zone: 'a' }, h, [0], plan)).toBe(h);
    expect(withFaultsAt({}, h, [0], plan)).toBe(h);
    expect(withFaultsAt({ zone: 'c' }, h, [0], plan)).not.toBe(h);
    const a = seededRandom(1 + 0 * 7919 + 0 * 104_729);
    const b = seededRandom(1 + 0 * 7919 + 1 * 104_729);
    const spec = { kind: 'lognormal', medianMs: 5, sigma: 1 } as const;
    expect(drawLatency(spec, a)).not.toBe(drawLatency(spec, b));
  });
});
