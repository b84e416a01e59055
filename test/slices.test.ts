/**
 * The slice scheduler (src/transport/slices.ts): one turn granted per event-loop iteration,
 * the query with the fewest turns first, the oldest waiter every AGING_EVERY-th grant; and,
 * on real leaves and aggregators sharing one scheduler, a light request served between the
 * slices of heavy scans and merges. Orders and counters only: a clock that moves 10 ms per
 * read makes every block use up its slice; no wall-clock assertions.
 */
import { describe, expect, it } from 'vitest';
import { createAggregator } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { HEAVY_GROUPS, createLeaf, estimatedGroups, isHeavyScan, prepareShard } from '../src/leaf/index.ts';
import { groupsOf, type Frame, type GroupedPartial, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { AGING_EVERY, LEVEL_TURNS, SliceScheduler, clockWithNow, inProcessChild, sliceLevel, type Child, type ChildRequest, type SliceLoop } from '../src/transport/index.ts';
import { busyClock } from './helpers/clock.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';

/** A loop driven by hand: `step()` runs the oldest deferred call. */
function manualLoop(): SliceLoop & { step(): Promise<void>; readonly pending: number } {
  const q: (() => void)[] = [];
  return {
    defer: (fn) => void q.push(fn),
    get pending() {
      return q.length;
    },
    async step() {
      q.shift()?.();
      // Let the granted continuations run (their microtasks) before the next step.
      for (let i = 0; i < 5; i++) await Promise.resolve();
    },
  };
}

describe('SliceScheduler', () => {
  it('grants one turn per deferred call, FIFO within a level', async () => {
    const loop = manualLoop();
    const s = new SliceScheduler(loop);
    const order: string[] = [];
    const a = s.task('a');
    const b = s.task('b');
    void a.turn().then(() => order.push('a'));
    void b.turn().then(() => order.push('b'));
    expect(loop.pending).toBe(1);
    await loop.step();
    expect(order).toEqual(['a']);
    await loop.step();
    expect(order).toEqual(['a', 'b']);
    expect(s.counters.granted).toBe(2);
    expect(s.waiting).toBe(0);
  });

  it('a query with few turns goes before one that has had many; the oldest still gets every AGING_EVERY-th turn', async () => {
    const loop = manualLoop();
    const s = new SliceScheduler(loop);
    const heavy = s.task('heavy');
    const order: string[] = [];
    // The heavy query works through level 2: it keeps asking for a turn after each one.
    let heavyTurns = 0;
    const spin = async (): Promise<void> => {
      for (;;) {
        await heavy.turn();
        heavyTurns++;
        order.push('H');
        if (heavyTurns >= 200) return;
      }
    };
    const done = spin();
    while (heavyTurns < LEVEL_TURNS[2]!) await loop.step();
    expect(sliceLevel(heavy.granted)).toBe(2);
    order.length = 0;
    // Light queries arrive, two turns each, while the heavy one keeps waiting.
    for (let k = 0; k < 6; k++) {
      const light = s.task(`light-${k}`);
      void (async () => {
        await light.turn();
        order.push(`L${k}`);
        await light.turn();
        order.push(`L${k}`);
        light.end();
      })();
    }
    for (let i = 0; i < 16; i++) await loop.step();
    const firstSixteen = order.slice(0, 16);
    // Every light turn (12) came before the heavy query's, but for the aged grants.
    expect(firstSixteen.filter((x) => x !== 'H')).toHaveLength(12);
    expect(firstSixteen.filter((x) => x === 'H').length).toBe(4);
    expect(s.counters.aged).toBeGreaterThan(0);
    // One grant in AGING_EVERY went to the heavy query while light ones waited: it is never starved.
    expect(firstSixteen.filter((x) => x === 'H').length).toBeGreaterThanOrEqual(Math.floor(16 / AGING_EVERY) - 1);
    while (heavyTurns < 200) await loop.step();
    await done;
    heavy.end();
  });

  it('a query whose plan is estimated heavy starts at level 1: a new light query is granted first', async () => {
    const loop = manualLoop();
    const s = new SliceScheduler(loop);
    const order: string[] = [];
    const heavy = s.task('heavy', true);
    const light = s.task('light');
    expect(sliceLevel(heavy.granted)).toBe(1);
    void heavy.turn().then(() => order.push('heavy'));
    void light.turn().then(() => order.push('light'));
    await loop.step();
    await loop.step();
    expect(order).toEqual(['light', 'heavy']);
  });

  it("a query's turns count is shared by its tasks and dropped with the last one", async () => {
    const loop = manualLoop();
    const s = new SliceScheduler(loop);
    const t1 = s.task('q');
    const t2 = s.task('q');
    const p = t1.turn();
    await loop.step();
    await p;
    expect(t2.granted).toBe(1);
    t1.end();
    t1.end();
    expect(s.task('q').granted).toBe(1);
    t2.end();
  });
});

const schema: TableSchema = MIXED_SCHEMA;
const tables = new Map([['t', schema]]);
const heavyPlan = planQuery('SELECT i, count(*) FROM t GROUP BY i', tables).scan;
const probePlan = planQuery('SELECT count(*) FROM t', tables).scan;
const GROUPS = 40_000;

const request = (plan: ChildRequest['plan'], shards: readonly number[], queryId: string): ChildRequest => ({ queryId, schema, plan, shards, budgetMs: 1e9 });

async function first(it: AsyncIterable<Frame>): Promise<Frame> {
  for await (const f of it) return f;
  throw new Error('no frame');
}

/** Counts event-loop iterations (check phases) until stopped. */
function iterations(): { readonly count: number; stop(): void } {
  let count = 0;
  let on = true;
  const tick = (): void => {
    if (!on) return;
    count++;
    setImmediate(tick);
  };
  setImmediate(tick);
  return {
    get count() {
      return count;
    },
    stop: () => void (on = false),
  };
}

/** Event-loop iterations a probe's answer takes to come back (a stand-in for its network hops). */
const PROBE_HOPS = 3;

/** A leaf that answers the heavy query with GROUPS groups and the probe with one count, after {@link PROBE_HOPS} loop iterations. */
const heavyChild = (name: string, shard: number): Child =>
  inProcessChild(name, [shard], async function* (req) {
    if (req.plan.groupBy.length === 0) for (let i = 0; i < PROBE_HOPS; i++) await new Promise((r) => setImmediate(r));
    const provenance = [{ shard, status: 'answered' as const, path: name, rowsScanned: GROUPS }];
    if (req.plan.groupBy.length > 0) yield { partial: { type: 'columnar', size: GROUPS, keys: [Array.from({ length: GROUPS }, (_, k) => BigInt(k))], states: [Array.from({ length: GROUPS }, () => 1)] }, provenance, rowsScanned: GROUPS };
    else yield { partial: { type: 'columnar', size: 1, keys: [], states: [[GROUPS]] }, provenance, rowsScanned: GROUPS };
  });

/** Four aggregators of one process merging heavy answers while a probe goes through a fifth. */
async function probeDuringHeavyMerges(slices: SliceScheduler | undefined): Promise<{ heavyYieldsDuringProbe: number; iterationsDuringProbe: number; probe: Frame; heavy: Frame[] }> {
  const opts = { clock: busyClock(), ...(slices === undefined ? {} : { slices }) };
  const heavyAggs = [0, 1, 2, 3].map((i) => createAggregator(`agg-${i}`, [heavyChild(`leaf-${i}`, i)], opts));
  const probeAgg = createAggregator('agg-4', [heavyChild('leaf-4', 4)], opts);
  const yields = (): number => heavyAggs.reduce((n, a) => n + a.counters.mergeYields, 0);
  const heavy = Promise.all(heavyAggs.map((a, i) => first(a.handler(request(heavyPlan, [i], `heavy-${i % 2}`), new AbortController().signal))));
  // The probe starts once every heavy merge has begun.
  while (heavyAggs.some((a) => a.counters.mergeYields === 0)) await new Promise((r) => setImmediate(r));
  const y0 = yields();
  const loop = iterations();
  const probe = await first(probeAgg.handler(request(probePlan, [4], 'probe'), new AbortController().signal));
  loop.stop();
  const heavyYieldsDuringProbe = yields() - y0;
  return { heavyYieldsDuringProbe, iterationsDuringProbe: loop.count, probe, heavy: await heavy };
}

describe('light requests between heavy slices, on one process', () => {
  it('with the scheduler, a probe through an aggregator waits at most one heavy merge slice per loop iteration; without it, one per heavy merge', async () => {
    const shared = await probeDuringHeavyMerges(new SliceScheduler());
    expect(shared.probe.provenance).toEqual([expect.objectContaining({ shard: 4, status: 'answered' })]);
    expect([...groupsOf(shared.probe.partial as GroupedPartial).values()].map((g) => g.states)).toEqual([[GROUPS]]);
    // Every heavy merge still finished, whole.
    for (const h of shared.heavy) expect(groupsOf(h.partial as GroupedPartial).size).toBe(GROUPS);
    // One heavy slice per loop iteration the probe needed, whatever the number of heavy merges.
    expect(shared.iterationsDuringProbe).toBeGreaterThanOrEqual(PROBE_HOPS);
    expect(shared.heavyYieldsDuringProbe).toBeLessThanOrEqual(shared.iterationsDuringProbe + 1);

    const alone = await probeDuringHeavyMerges(undefined);
    // Each of the four merges yields once per iteration on its own: the probe waits behind all of them.
    expect(alone.iterationsDuringProbe).toBeGreaterThanOrEqual(PROBE_HOPS);
    expect(alone.heavyYieldsDuringProbe).toBeGreaterThanOrEqual(4 * PROBE_HOPS);
  });

  it('a probe scan on a leaf process is answered while two heavy scans still have batches left, and they finish whole', async () => {
    const slices = new SliceScheduler();
    const rows: Scalar[][] = [];
    for (let r = 0; r < 4000; r++) rows.push(['abc'[r % 3]!, BigInt(r), r / 2, r]);
    // 100-row batches: a heavy scan yields (clock: 10 ms per read) after every batch.
    const [table] = shardsFromRows(schema, [rows], 100);
    const shard = prepareShard(0, table!, schema);
    const batches: number[] = [0, 0];
    const leaves = [0, 1].map((i) => createLeaf(`leaf-${i}`, [shard], { clock: busyClock(), slices }));
    // The probe's clock stands still: its count(*) never uses up a slice (as a real one, under 1 ms).
    const probeLeaf = createLeaf('leaf-2', [shard], { clock: clockWithNow(() => 0), slices });
    const heavy = leaves.map((l, i) =>
      first(l.handler(request(heavyPlan, [0], `heavy-${i}`), new AbortController().signal)).then((f) => {
        batches[i] = l.counters.rowsScanned / 100;
        return f;
      }),
    );
    while (leaves.some((l) => l.counters.rowsScanned === 0)) await new Promise((r) => setImmediate(r));
    const probe = await first(probeLeaf.handler(request(probePlan, [0], 'probe'), new AbortController().signal));
    const scannedAtProbe = leaves.map((l) => l.counters.rowsScanned);
    expect([...groupsOf(probe.partial as GroupedPartial).values()].map((g) => g.states)).toEqual([[4000]]);
    // Both heavy scans were still going when the probe answered.
    for (const n of scannedAtProbe) expect(n).toBeLessThan(4000);
    const done = await Promise.all(heavy);
    expect(batches).toEqual([40, 40]);
    for (const h of done) expect(groupsOf(h.partial as GroupedPartial).size).toBe(4000);
    expect(slices.waiting).toBe(0);
  });
});

describe('heavy by plan: estimated groups per shard', () => {
  const rows: Scalar[][] = [];
  for (let r = 0; r < 20_000; r++) rows.push(['abc'[r % 3]!, BigInt(r % 50), r / 2, r * 1000]);
  const [table] = shardsFromRows(schema, [rows]);
  const shard = prepareShard(0, table!, schema);
  const plan = (sql: string) => planQuery(sql, tables).scan;

  it('a dictionary key or a narrow integer range is light; a wide one, or their product past HEAVY_GROUPS, is heavy', () => {
    expect(estimatedGroups(plan('SELECT g, count(*) FROM t GROUP BY g'), shard)).toBe(4); // 3 strings + NULL
    expect(estimatedGroups(plan('SELECT i, count(*) FROM t GROUP BY i'), shard)).toBe(51); // 0..49, + NULL
    expect(estimatedGroups(plan('SELECT ts, count(*) FROM t GROUP BY ts'), shard)).toBe(20_000); // capped at the rows
    expect(isHeavyScan(plan('SELECT g, i, count(*) FROM t GROUP BY g, i'), [shard])).toBe(false);
    expect(isHeavyScan(plan('SELECT ts, g, count(*) FROM t GROUP BY ts, g'), [shard])).toBe(true);
    expect(isHeavyScan(plan('SELECT ts, g, count(*) FROM t GROUP BY ts, g'))).toBe(false); // no shard known: keys and filter only
    expect(isHeavyScan(plan('SELECT count(*) FROM t'), [shard])).toBe(false);
    expect(HEAVY_GROUPS).toBeLessThan(20_000);
  });
});
