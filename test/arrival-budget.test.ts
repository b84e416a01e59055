/**
 * Budgets counted from a request's arrival (issue #13): a node runs a request with the budget
 * it was sent less the time it waited before its handler got the event loop (and, over
 * loopback, the time it sat in socket buffers), so work whose deadline has passed is never
 * started; it is answered at once with its shards omitted for CANOPY_ERR_DEADLINE. Heavy
 * scans waiting for a lane are dropped, not started, once their deadline has passed.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { gather } from '../src/aggregator/index.ts';
import { ScanLanes, createLeaf, faultPlanFile, prepareShard, withFaultsAt } from '../src/leaf/index.ts';
import { FrameSplitter, arrivalBudgetMs, decodeFrame, layoutOf, toWireJSON, type Frame, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { BUDGET_HEADER, PARTIAL_ROUTE, SENT_AT_HEADER, buildNodeApp, inProcessChild, loopbackTransitMs, type ChildRequest } from '../src/transport/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const shards = [0, 1].map((id) => prepareShard(id, shardsFromRows(schema, [[[1n], [2n], [3n]]])[0]!, schema));

describe('budgets from arrival', () => {
  it('take out the time since arrival and the transit, never add time, never go negative', () => {
    expect(arrivalBudgetMs(1000, 300)).toBe(700);
    expect(arrivalBudgetMs(1000, 300, 200)).toBe(500);
    expect(arrivalBudgetMs(1000, -50, -400)).toBe(1000); // clocks behind add nothing
    expect(arrivalBudgetMs(1000, 800, 900)).toBe(0);
  });

  it('transit is read only from a loopback peer, and only from a number', () => {
    const sent = String(Date.now() - 5_000);
    expect(loopbackTransitMs(sent, '127.0.0.1')).toBeGreaterThanOrEqual(5_000);
    expect(loopbackTransitMs(sent, '::1')).toBeGreaterThanOrEqual(5_000);
    expect(loopbackTransitMs(sent, '10.0.0.7')).toBe(0); // another machine's clock is never compared
    expect(loopbackTransitMs('soon', '127.0.0.1')).toBe(0);
    expect(loopbackTransitMs(undefined, '127.0.0.1')).toBe(0);
    expect(loopbackTransitMs(String(Date.now() + 60_000), '127.0.0.1')).toBe(0);
  });

  it('a request whose budget was spent on the way is answered at once: shards omitted for the deadline, no row scanned', async () => {
    const leaf = createLeaf('leaf-0', shards);
    const app = buildNodeApp(leaf.handler);
    const plan = planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan;
    const req: ChildRequest = { queryId: 'q', schema, plan, shards: [0, 1], budgetMs: 2_000 };
    const send = (sentAt: number) =>
      app.inject({ method: 'POST', url: PARTIAL_ROUTE, headers: { 'content-type': 'application/json', [BUDGET_HEADER]: '2000', [SENT_AT_HEADER]: String(sentAt) }, payload: toWireJSON(req) });
    const frameOf = (body: Buffer) => {
      const frames = [...new FrameSplitter(1 << 20).push(new Uint8Array(body))];
      return decodeFrame(layoutOf(plan, schema), frames.at(-1)!);
    };
    // Sent 3 s ago with a 2 s budget: nothing is started.
    const late = await send(Date.now() - 3_000);
    expect(late.statusCode).toBe(200);
    const lateFrame = frameOf(late.rawPayload);
    expect(lateFrame.provenance.map((p) => [p.shard, p.status, p.error?.code])).toEqual([
      [0, 'omitted', 'CANOPY_ERR_DEADLINE'],
      [1, 'omitted', 'CANOPY_ERR_DEADLINE'],
    ]);
    expect(leaf.counters.rowsScanned).toBe(0);
    // Sent just now: both shards answered with their rows.
    const fresh = frameOf((await send(Date.now())).rawPayload);
    expect(fresh.provenance.map((p) => p.status)).toEqual(['answered', 'answered']);
    expect(leaf.counters.rowsScanned).toBe(6);
    await app.close();
  });
});

describe('scan lanes drop expired waiters', () => {
  it('a waiter whose deadline passed while it waited is refused with CANOPY_ERR_DEADLINE; the lane goes to the next one', async () => {
    let t = 0;
    const lanes = new ScanLanes(1, () => t);
    const never = new AbortController().signal;
    const releaseA = await lanes.acquire(true, never);
    const expiring = lanes.acquire(true, never, 100);
    const later = lanes.acquire(true, never, 10_000);
    expect(lanes.heavyWaiting).toBe(2);
    t = 150; // the first waiter's deadline passes while the running scan holds the lane
    releaseA();
    await expect(expiring).rejects.toMatchObject({ code: 'CANOPY_ERR_DEADLINE' });
    const releaseC = await later;
    expect(lanes.heavyRunning).toBe(1);
    releaseC();
    expect(lanes.heavyRunning).toBe(0);
    expect(lanes.heavyWaiting).toBe(0);
  });
});

describe('a fault plan file', () => {
  it('is read again when it changes, so a running leaf takes the new faults; a bad edit keeps the plan in force', async () => {
    vi.useFakeTimers({ toFake: ['performance'] });
    try {
      const file = path.join(mkdtempSync(path.join(os.tmpdir(), 'canopy-faults-')), 'plan.json');
      writeFileSync(file, JSON.stringify({ rules: [] }));
      const source = faultPlanFile(file);
      const leaf = createLeaf('leaf-0', shards);
      const handler = withFaultsAt({}, leaf.handler, leaf.shards, source);
      const plan = planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan;
      const req: ChildRequest = { queryId: 'q', schema, plan, shards: [0, 1], budgetMs: 2_000 };
      const outcome = async (): Promise<string> => {
        try {
          for await (const f of handler(req, new AbortController().signal)) void f;
          return 'ok';
        } catch (e) {
          return (e as { code?: string }).code ?? 'thrown';
        }
      };
      expect(await outcome()).toBe('ok');
      writeFileSync(file, JSON.stringify({ rules: [{ shards: [0], error: 1 }] }));
      expect(await outcome()).toBe('ok'); // checked at most every 100 ms
      vi.advanceTimersByTime(150);
      expect(await outcome()).toBe('CANOPY_ERR_INTERNAL');
      writeFileSync(file, '{"rules": [');
      vi.advanceTimersByTime(150);
      expect(await outcome()).toBe('CANOPY_ERR_INTERNAL');
      writeFileSync(file, JSON.stringify({ rules: [{ shards: [7], error: 1 }] }));
      vi.advanceTimersByTime(150);
      expect(await outcome()).toBe('ok');
    } finally {
      vi.useRealTimers();
    }
  });
});

describe('a late deadline timer', () => {
  it('does not give up on a child whose answer is already in: the abort waits for the I/O due with it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      const plan = planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan;
      const leaf = createLeaf('leaf-0', shards);
      // Answers exactly when the gather's timer for it fires (its timer is set after the gather's).
      const onTime = inProcessChild('leaf-0', [0], async function* (req, signal): AsyncIterable<Frame> {
        await new Promise((r) => setTimeout(r, req.budgetMs));
        yield* leaf.handler(req, signal);
      });
      const hung = inProcessChild('leaf-1', [1], async function* (_req, signal): AsyncIterable<Frame> {
        await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
        yield* [] as Frame[];
      });
      const p = gather([onTime, hung], { queryId: 'q', schema, plan, shards: [0, 1], budgetMs: 1000 }, new AbortController().signal, { self: 'agg-0', reserveMs: 100 });
      await vi.advanceTimersByTimeAsync(1000);
      const r = await p;
      expect(r.provenance.map((e) => [e.shard, e.status])).toEqual([
        [0, 'answered'],
        [1, 'omitted'],
      ]);
    } finally {
      vi.useRealTimers();
    }
  });
});
