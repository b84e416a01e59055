/**
 * Fairness and cancellation in the merge: an aggregator merging one huge answer (a 50k-group
 * GROUP BY) gives its event loop back between blocks of groups, so a probe `count(*)` through
 * the same aggregator is answered, exact, while that merge is still going; and a merge whose
 * query is cancelled stops in the middle of the frame (its counter of groups merged stops
 * growing). Ordering and counters only, no wall-clock assertions.
 */
import { describe, expect, it } from 'vitest';
import { createAggregator, gather, gatherCounters } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { CanopyError, MERGE_CHECK_EVERY, groupsOf, type Frame, type GroupedPartial, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { QueryWork, clockWithNow, inProcessChild, type Child, type ChildRequest } from '../src/transport/index.ts';
import { busyClock } from './helpers/clock.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';

const schema: TableSchema = MIXED_SCHEMA;
const tables = new Map([['t', schema]]);
const GROUPS = 50_000;
const heavyPlan = planQuery('SELECT i, count(*) FROM t GROUP BY i', tables).scan;
const probePlan = planQuery('SELECT count(*) FROM t', tables).scan;

/** Shard 0's answer to the heavy query: GROUPS groups i = 0.., count 2 each. */
const heavyFrame: Frame = {
  partial: { type: 'columnar', size: GROUPS, keys: [Array.from({ length: GROUPS }, (_, k) => BigInt(k))], states: [Array.from({ length: GROUPS }, () => 2)] },
  provenance: [{ shard: 0, status: 'answered', path: 'leaf-0', rowsScanned: 2 * GROUPS }],
  rowsScanned: 2 * GROUPS,
};

/** Leaf 0 answers the heavy query with {@link heavyFrame} (and the probe with a count of 2 x GROUPS). */
const heavyLeaf: Child = inProcessChild('leaf-0', [0], async function* (req) {
  if (req.plan.groupBy.length > 0) yield heavyFrame;
  else yield { partial: { type: 'columnar', size: 1, keys: [], states: [[2 * GROUPS]] }, provenance: [{ shard: 0, status: 'answered', path: 'leaf-0', rowsScanned: 2 * GROUPS }], rowsScanned: 2 * GROUPS };
});

/** Leaf 1: a real leaf over 300 rows. */
function smallLeaf(): Child {
  const rows: Scalar[][] = [];
  for (let r = 0; r < 300; r++) rows.push(['abc'[r % 3]!, BigInt(r), r / 2, r]);
  const [table] = shardsFromRows(schema, [rows]);
  const leaf = createLeaf('leaf-1', [prepareShard(1, table!, schema)]);
  return inProcessChild('leaf-1', [1], leaf.handler);
}

const request = (plan: ChildRequest['plan'], shards: readonly number[], queryId: string): ChildRequest => ({ queryId, schema, plan, shards, budgetMs: 1e9 });

async function first(it: AsyncIterable<Frame>): Promise<Frame> {
  for await (const f of it) return f;
  throw new Error('no frame');
}

/** Resolves once `cond()` holds, checking once per event-loop turn. */
async function turnsUntil(cond: () => boolean): Promise<void> {
  for (let i = 0; i < 10_000 && !cond(); i++) await new Promise((r) => setImmediate(r));
  expect(cond()).toBe(true);
}

describe('fairness: a probe through an aggregator busy merging a huge answer', () => {
  it('is answered, exact, while the merge is still going; the heavy answer is complete afterwards', async () => {
    const agg = createAggregator('agg-0', [heavyLeaf, smallLeaf()], { clock: busyClock() });
    const events: string[] = [];
    const heavy = first(agg.handler(request(heavyPlan, [0, 1], 'heavy'), new AbortController().signal)).then((f) => {
      events.push('heavy');
      return f;
    });
    // The probe is asked once the heavy merge has begun (its first block is in).
    await turnsUntil(() => agg.counters.groupsMerged > 0);
    const probe = await first(agg.handler(request(probePlan, [1], 'probe'), new AbortController().signal));
    events.push('probe');
    const mergedAtProbe = agg.counters.groupsMerged;
    expect(probe.provenance).toEqual([expect.objectContaining({ shard: 1, status: 'answered' })]);
    expect([...groupsOf(probe.partial as GroupedPartial).values()].map((g) => g.states)).toEqual([[300]]);
    // The heavy merge had not finished when the probe was answered.
    expect(mergedAtProbe).toBeLessThan(GROUPS);
    const h = await heavy;
    expect(events).toEqual(['probe', 'heavy']);
    expect(agg.counters.mergeYields).toBeGreaterThan(0);
    expect(h.provenance.map((e) => [e.shard, e.status]).sort()).toEqual([
      [0, 'answered'],
      [1, 'answered'],
    ]);
    // Every group merged exactly once: i < 300 got 2 + 1 rows, the rest 2.
    if (h.partial.type === 'rows') throw new Error('expected groups, got rows');
    const merged = groupsOf(h.partial);
    expect(merged.size).toBe(GROUPS);
    let total = 0;
    for (const g of merged.values()) total += Number(g.states[0]);
    expect(total).toBe(2 * GROUPS + 300);
  });
});

describe('cancellation inside a merge', () => {
  it('an abort in the middle of one frame stops the merge: the counter of groups merged stops growing', async () => {
    const counters = gatherCounters();
    const ctl = new AbortController();
    const p = gather([heavyLeaf], request(heavyPlan, [0], 'q'), ctl.signal, { self: 'agg-0', clock: busyClock(), counters });
    const stopAt = 3 * MERGE_CHECK_EVERY;
    await turnsUntil(() => counters.groupsMerged >= stopAt);
    ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'parent gone'));
    await expect(p).rejects.toMatchObject({ code: 'CANOPY_ERR_CANCELLED' });
    const atStop = counters.groupsMerged;
    // At most one more block after the abort, far from the whole frame.
    expect(atStop).toBeLessThanOrEqual(stopAt + MERGE_CHECK_EVERY);
    expect(atStop).toBeLessThan(GROUPS);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(counters.groupsMerged).toBe(atStop);
  });

  it('a merge past its deadline on the clock stops too, failing the gather with CANOPY_ERR_DEADLINE', async () => {
    const counters = gatherCounters();
    // 10 ms per clock read against a 200 ms budget: the deadline passes within the frame.
    const p = gather([heavyLeaf], { ...request(heavyPlan, [0], 'q'), budgetMs: 200 }, new AbortController().signal, { self: 'agg-0', clock: busyClock(), counters, reserveMs: 1 });
    const err = await p.then(() => null, (e: unknown) => e);
    expect(err).toMatchObject({ code: 'CANOPY_ERR_DEADLINE' });
    const atStop = counters.groupsMerged;
    expect(atStop).toBeGreaterThan(0);
    expect(atStop).toBeLessThan(GROUPS);
    for (let i = 0; i < 20; i++) await new Promise((r) => setImmediate(r));
    expect(counters.groupsMerged).toBe(atStop);
  });

  it('small answers are merged in one piece (no yield), as before', async () => {
    const counters = gatherCounters();
    const small = inProcessChild('leaf-0', [0], async function* () {
      yield { ...heavyFrame, partial: { type: 'columnar', size: 10, keys: [Array.from({ length: 10 }, (_, k) => BigInt(k))], states: [Array.from({ length: 10 }, () => 2)] } } satisfies Frame;
    });
    const r = await gather([small], request(heavyPlan, [0], 'q'), new AbortController().signal, { self: 'agg-0', clock: busyClock(), counters });
    expect(r.provenance).toEqual([expect.objectContaining({ status: 'answered' })]);
    expect(counters).toMatchObject({ groupsMerged: 10, mergeYields: 0 });
  });
});

describe('no work after the deadline', () => {
  it('an answer taken only after the gather\'s whole budget has run out is not merged: its shards are omitted', async () => {
    let t = 0;
    const late = inProcessChild('leaf-0', [0], async function* () {
      t = 1001; // the answer is read after the 1,000 ms budget (a late event loop)
      yield heavyFrame;
    });
    const counters = gatherCounters();
    const r = await gather([late], { ...request(heavyPlan, [0], 'q'), budgetMs: 1000 }, new AbortController().signal, { self: 'agg-0', clock: clockWithNow(() => t), counters });
    expect(r.provenance).toEqual([expect.objectContaining({ shard: 0, status: 'omitted', error: expect.objectContaining({ code: 'CANOPY_ERR_DEADLINE' }) })]);
    expect(counters.groupsMerged).toBe(0);
  });

  it('the work ledger accounts rows scanned at a leaf and groups merged at an aggregator to the query', async () => {
    let wall = 1000;
    const work = new QueryWork(() => wall);
    const rows: Scalar[][] = [];
    for (let r = 0; r < 300; r++) rows.push(['abc'[r % 3]!, BigInt(r), r / 2, r]);
    const [table] = shardsFromRows(schema, [rows]);
    const leaf = createLeaf('leaf-1', [prepareShard(1, table!, schema)], { work });
    const agg = createAggregator('agg-0', [inProcessChild('leaf-1', [1], leaf.handler)], { work });
    wall = 2000;
    await first(agg.handler({ ...request(heavyPlan, [1], 'q-1'), budgetMs: 5000 }, new AbortController().signal));
    const q = work.snapshot().queries;
    expect(q).toEqual([expect.objectContaining({ queryId: 'q-1', node: 'agg-0', startedAt: 2000, lastWorkAt: 2000, units: 300 + 300 })]);
    expect(q[0]!.deadlineAt).toBeGreaterThanOrEqual(7000 - 1);
  });
});
