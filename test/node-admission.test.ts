/**
 * Admission control at every node (leaves and aggregators, through buildNodeApp): bounded
 * in-flight and queue, a quick 503 with Retry-After, queued work never outliving what its
 * budget allows, the wait taken out of the budget; a parent records a child's 503 as failed
 * shards with CANOPY_ERR_OVERLOADED; node metrics. Handlers are held on gates, never on sleeps.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { gather } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { CanopyError, toWireJSON, type Frame, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { Admission, BUDGET_HEADER, PARTIAL_ROUTE, ReplyBytes, buildNodeApp, httpChild, nodeHttpMetrics, replyBytesMetrics, type ChildRequest, type NodeHandler } from '../src/transport/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const leaf = createLeaf('leaf-0', [prepareShard(0, shardsFromRows(schema, [[[1n], [2n], [3n]]])[0]!, schema)]);

function request(budgetMs = 10_000): ChildRequest {
  return { queryId: 'q', schema, plan: planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan, shards: [0], budgetMs };
}

/** The leaf's handler held on a gate per request (request i runs once `open` was called i + 1 times); records the budget each request ran with. */
function gated(): { handler: NodeHandler; open: () => void; budgets: number[]; started: () => number } {
  const waiting = new Map<number, () => void>();
  let opened = 0;
  const budgets: number[] = [];
  const handler: NodeHandler = async function* (req, signal): AsyncIterable<Frame> {
    const ticket = budgets.length;
    budgets.push(req.budgetMs);
    if (ticket >= opened) await new Promise<void>((resolve) => waiting.set(ticket, resolve));
    yield* leaf.handler(req, signal);
  };
  return {
    handler,
    open: () => {
      waiting.get(opened)?.();
      waiting.delete(opened);
      opened++;
    },
    budgets,
    started: () => budgets.length,
  };
}

const post = (budgetMs = 10_000) => ({ method: 'POST' as const, url: PARTIAL_ROUTE, headers: { 'content-type': 'application/json', [BUDGET_HEADER]: String(budgetMs) }, payload: toWireJSON(request(budgetMs)) });

/** Lets pending promise chains (inject, handlers) run. */
async function settle(): Promise<void> {
  for (let i = 0; i < 20; i++) await new Promise<void>((r) => setImmediate(r));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('admission control at a node', () => {
  it('runs up to the limit, refuses beyond the queue at once with 503 and Retry-After, and frees the slot when the reply ends', async () => {
    const g = gated();
    const admission = new Admission({ maxInFlight: 1, maxQueued: 1, retryAfterSeconds: 2 });
    const app = buildNodeApp(g.handler, { admission });
    const first = app.inject(post());
    await settle();
    const second = app.inject(post());
    await settle();
    expect([admission.inFlight, admission.queued, g.started()]).toEqual([1, 1, 1]);
    const third = await app.inject(post());
    expect(third.statusCode).toBe(503);
    expect(third.headers['retry-after']).toBe('2');
    expect(third.json().error.code).toBe('CANOPY_ERR_OVERLOADED');
    expect(g.started()).toBe(1);
    g.open();
    expect((await first).statusCode).toBe(200);
    await settle();
    // the queued request took the slot the first one released
    expect([admission.inFlight, admission.queued, g.started()]).toEqual([1, 0, 2]);
    g.open();
    expect((await second).statusCode).toBe(200);
    await settle();
    expect(admission.inFlight).toBe(0);
    expect(admission.counters).toMatchObject({ admitted: 2, rejected: 1, expiredInQueue: 0 });
  });

  it('a queued request waits at most half its budget, then 503; one admitted after a wait runs with the rest of its budget', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    const g = gated();
    const admission = new Admission({ maxInFlight: 1, maxQueued: 4 });
    const app = buildNodeApp(g.handler, { admission });
    const first = app.inject(post(10_000));
    await settle();
    const expiring = app.inject(post(200));
    const waiting = app.inject(post(10_000));
    await settle();
    expect(admission.queued).toBe(2);
    await vi.advanceTimersByTimeAsync(99);
    expect(admission.queued).toBe(2);
    await vi.advanceTimersByTimeAsync(2);
    const late = await expiring;
    expect(late.statusCode).toBe(503);
    expect(late.json().error.code).toBe('CANOPY_ERR_OVERLOADED');
    expect(admission.counters.expiredInQueue).toBe(1);
    await vi.advanceTimersByTimeAsync(400);
    g.open();
    expect((await first).statusCode).toBe(200);
    await settle();
    g.open();
    expect((await waiting).statusCode).toBe(200);
    // the first ran with its whole budget, the waiter with its budget less its ~500 ms wait
    expect(g.budgets[0]).toBe(10_000);
    expect(g.budgets[1]).toBeGreaterThanOrEqual(10_000 - 502);
    expect(g.budgets[1]).toBeLessThanOrEqual(10_000 - 500);
  });

  it('a request whose client went away while queued leaves the queue (and is not counted as refused)', async () => {
    const admission = new Admission({ maxInFlight: 1, maxQueued: 4 });
    await admission.acquire(1000, new AbortController().signal);
    const gone = new AbortController();
    const leaving = admission.acquire(1000, gone.signal).catch((e: unknown) => e);
    const staying = admission.acquire(1000, new AbortController().signal).catch((e: unknown) => e);
    gone.abort();
    expect(await leaving).toMatchObject({ code: 'CANOPY_ERR_CANCELLED' });
    expect(admission.queued).toBe(1);
    expect(admission.counters).toMatchObject({ cancelledInQueue: 1, rejected: 0, expiredInQueue: 0 });
    expect(admission.refused).toBe(0);
    // an already aborted request is not queued at all
    const dead = new AbortController();
    dead.abort();
    expect(await admission.acquire(1000, dead.signal).catch((e: unknown) => e)).toMatchObject({ code: 'CANOPY_ERR_CANCELLED' });
    expect(admission.queued).toBe(1);
    void staying;
  });

  it('rejects bad limits with a clear error', () => {
    expect(() => new Admission({ maxInFlight: 0 })).toThrow(RangeError);
    expect(() => new Admission({ maxQueued: -1 })).toThrow(RangeError);
    expect(() => new Admission({ maxWaitShare: 0 })).toThrow(RangeError);
    expect(() => new Admission({ maxWaitShare: 1.5 })).toThrow(RangeError);
  });

  it('reports in-flight, queued and rejects per node on /metrics', async () => {
    const g = gated();
    const registry = new Registry();
    const app = buildNodeApp(g.handler, { admission: { maxInFlight: 1, maxQueued: 0 }, metrics: nodeHttpMetrics(registry), name: 'leaf-0' });
    const first = app.inject(post());
    await settle();
    expect((await app.inject(post())).statusCode).toBe(503);
    const m = (await app.inject({ method: 'GET', url: '/metrics' })).body;
    expect(m).toContain('canopy_node_requests_in_flight{node="leaf-0"} 1');
    expect(m).toContain('canopy_node_requests_queued{node="leaf-0"} 0');
    expect(m).toContain('canopy_node_admission_rejects_total{node="leaf-0"} 1');
    g.open();
    await first;
  });
});

describe('request outcomes on the process registry', () => {
  it('records every partial request of every node in canopy_node_request_seconds: ok, cancelled by the parent, rejected, error', async () => {
    const g = gated();
    const registry = new Registry();
    const metrics = nodeHttpMetrics(registry);
    const busy = buildNodeApp(g.handler, { admission: { maxInFlight: 1, maxQueued: 0 }, metrics, name: 'leaf-0' });
    const other = buildNodeApp(leaf.handler, { metrics, name: 'leaf-1' });
    const url = await busy.listen({ port: 0, host: '127.0.0.1' });
    const count = async (node: string, outcome: string): Promise<number> => {
      const m = new RegExp(`canopy_node_request_seconds_count\\{node="${node}",outcome="${outcome}"\\} (\\d+)`).exec(await registry.metrics());
      return m === null ? 0 : Number(m[1]);
    };
    try {
      // A parent that gives up (its gather was satisfied, or its deadline passed) closes the connection.
      const parent = new AbortController();
      const p = post();
      const pending = fetch(`${url}${PARTIAL_ROUTE}`, { method: 'POST', headers: p.headers, body: p.payload, signal: parent.signal }).catch((e: unknown) => e);
      for (let i = 0; i < 200 && g.started() === 0; i++) await new Promise<void>((r) => setTimeout(r, 5));
      expect(g.started()).toBe(1);
      expect((await busy.inject(post())).statusCode).toBe(503);
      parent.abort();
      await pending;
      for (let i = 0; i < 200 && (await count('leaf-0', 'cancelled')) === 0; i++) await new Promise<void>((r) => setTimeout(r, 5));
      g.open();
      expect((await other.inject(post())).statusCode).toBe(200);
      expect((await other.inject({ ...post(), payload: '{"queryId": 1}' })).statusCode).toBe(400);
      expect(await count('leaf-0', 'cancelled')).toBe(1);
      expect(await count('leaf-0', 'rejected')).toBe(1);
      expect(await count('leaf-1', 'ok')).toBe(1);
      expect(await count('leaf-1', 'error')).toBe(1);
      // Admitted requests' waits: the cancelled one and leaf-1's ok one (the 400 failed before admission).
      expect(await registry.metrics()).toMatch(/canopy_node_admission_wait_seconds_count\{node="leaf-0"\} 1\n/);
    } finally {
      await busy.close();
    }
  });
});

describe("a parent and its child's 503", () => {
  it('over HTTP, the refused shards are failed entries with CANOPY_ERR_OVERLOADED, the others answered', async () => {
    const g = gated();
    const busy = buildNodeApp(g.handler, { admission: { maxInFlight: 1, maxQueued: 0 } });
    const ok = buildNodeApp(createLeaf('leaf-1', [prepareShard(1, shardsFromRows(schema, [[[5n]]])[0]!, schema)]).handler);
    const urls = await Promise.all([busy, ok].map((a) => a.listen({ port: 0, host: '127.0.0.1' })));
    const c0 = httpChild('leaf-0', [0], urls[0]!);
    const c1 = httpChild('leaf-1', [1], urls[1]!);
    try {
      // occupy leaf-0's only slot
      const hold = busy.inject(post());
      await settle();
      const r = await gather([c0, c1], { ...request(), shards: [0, 1] }, new AbortController().signal, { self: 'agg-0' });
      const byShard = new Map(r.provenance.map((p) => [p.shard, p]));
      expect(byShard.get(1)!.status).toBe('answered');
      expect(byShard.get(0)).toMatchObject({ status: 'failed', path: 'agg-0/leaf-0', error: { code: 'CANOPY_ERR_OVERLOADED' } });
      g.open();
      expect((await hold).statusCode).toBe(200);
    } finally {
      await Promise.all([c0.destroy(), c1.destroy()]);
      await Promise.all([busy.close(), ok.close()]);
    }
  });
});

describe("a parent and its child's per-query limit refused before its first frame", () => {
  it('over HTTP, a child answering 400 CANOPY_ERR_LIMIT (or OUT_OF_RANGE) fails its shards with its own code and message, which refuse the query, not CANOPY_ERR_CHILD_HTTP', async () => {
    // An aggregator whose merge passes the group limit answers 400 before any frame: the root
    // counted it a failed child (CANOPY_ERR_CHILD_HTTP), so the query was answered without its
    // shards, or 503 NO_COVERAGE when every aggregator did so, instead of refused.
    for (const [code, message] of [
      ['CANOPY_ERR_LIMIT', 'the query produces more than 5 groups (the per-query group limit); add a WHERE or group more coarsely'],
      ['CANOPY_ERR_OUT_OF_RANGE', 'could not convert string \'x\' to int64'],
    ] as const) {
      // eslint-disable-next-line require-yield
      const refusing: NodeHandler = async function* (): AsyncIterable<Frame> {
        throw new CanopyError(code, message);
      };
      const bad = buildNodeApp(refusing);
      const ok = buildNodeApp(createLeaf('leaf-1', [prepareShard(1, shardsFromRows(schema, [[[5n]]])[0]!, schema)]).handler);
      const urls = await Promise.all([bad, ok].map((a) => a.listen({ port: 0, host: '127.0.0.1' })));
      const c0 = httpChild('agg-0', [0], urls[0]!);
      const c1 = httpChild('leaf-1', [1], urls[1]!);
      try {
        const r = await gather([c0, c1], { ...request(), shards: [0, 1] }, new AbortController().signal, { self: 'root' });
        // Its shards failed with the child's own error, which the root refuses the query with (Root's coverage check).
        expect(r.provenance.find((p) => p.shard === 0)).toMatchObject({ status: 'failed', error: { code, message } });
      } finally {
        await Promise.all([c0.destroy(), c1.destroy()]);
        await Promise.all([bad.close(), ok.close()]);
      }
    }
  });
});

describe('reply bytes held by a parent', () => {
  it('counts the bytes of replies in flight and releases them when the request ends, however it ends', async () => {
    // A child that sends a progressive update, then holds the request until its parent lets go.
    const holding: NodeHandler = async function* (req, signal): AsyncIterable<Frame> {
      for await (const f of leaf.handler(req, signal)) yield { ...f, final: false };
      await new Promise<void>((resolve) => signal.addEventListener('abort', () => resolve(), { once: true }));
    };
    const apps = [buildNodeApp(holding), buildNodeApp(leaf.handler)];
    const urls = await Promise.all(apps.map((a) => a.listen({ port: 0, host: '127.0.0.1' })));
    const bytes = new ReplyBytes();
    const registry = new Registry();
    replyBytesMetrics(registry).add('agg-0', bytes);
    const [held, done] = urls.map((u, i) => httpChild(`leaf-${i}`, [0], u!, { replyBytes: bytes }));
    try {
      const it = held!.query(request(), new AbortController().signal)[Symbol.asyncIterator]();
      expect((await it.next()).value.final).toBe(false);
      expect(bytes.held).toBeGreaterThan(0);
      expect(bytes.held).toBe(bytes.total);
      const m = await registry.metrics();
      expect(m).toContain(`canopy_reply_bytes_held{node="agg-0"} ${bytes.held}`);
      const first = bytes.total;
      await it.return!(undefined); // the gather abandons the child (deadline, early stop)
      expect(bytes.held).toBe(0);
      for await (const f of done!.query(request(), new AbortController().signal)) expect(f.rowsScanned).toBe(3);
      expect(bytes.held).toBe(0);
      expect(bytes.total).toBeGreaterThan(first);
      expect(await registry.metrics()).toContain(`canopy_reply_bytes_total{node="agg-0"} ${bytes.total}`);
    } finally {
      await Promise.all([held!.destroy(), done!.destroy()]);
      await Promise.all(apps.map((a) => a.close()));
    }
  });
});
