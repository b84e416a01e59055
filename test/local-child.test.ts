/**
 * Children served by the parent's own process (placement `subtrees`: an aggregator with its
 * leaves): `localChild` calls the node's handler directly, and its parent must see exactly
 * what it would see over HTTP. Property: for random leaf behaviours (answers of several
 * frames, errors before the first frame, replies broken off, injected crashes, hangs and
 * aborts), the local call and a multiplexed HTTP call to the same node app give the same
 * frames and the same error codes, messages and details. Also: the node's admission control
 * applies, a handler that ignores its signal cannot hold its parent, and the request metrics
 * record each call under its node.
 */
import fc from 'fast-check';
import { Registry } from 'prom-client';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanopyError, layoutOf, type Frame, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { Admission, MultiplexClient, NodeDirectory, buildNodeApp, localChild, nodeHttpMetrics, type Child, type ChildRequest, type NodeHandler } from '../src/transport/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const plan = planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan;
const layout = layoutOf(plan, schema);

function frameOf(leaf: number, seq: number, n: number): Frame {
  return {
    partial: { type: 'columnar', size: 0, keys: [], states: layout.kinds.map(() => []) },
    provenance: [{ shard: leaf, status: 'answered', path: `leaf-${leaf}`, rowsScanned: 1 }],
    rowsScanned: leaf * 1000 + seq,
    ...(seq < n - 1 ? { final: false } : {}),
  };
}

const req = (leaf: number): ChildRequest => ({ queryId: 'q', schema, plan, shards: [leaf], budgetMs: 30_000, stream: true });
const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

type Behaviour =
  | { kind: 'ok'; frames: number }
  | { kind: 'error'; code: 'CANOPY_ERR_INTERNAL' | 'CANOPY_ERR_OVERLOADED' | 'CANOPY_ERR_BAD_REQUEST' | 'CANOPY_ERR_LIMIT' }
  | { kind: 'broken'; frames: number }
  | { kind: 'crash' }
  | { kind: 'abort'; after: number };

const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constant('ok' as const), frames: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('error' as const), code: fc.constantFrom('CANOPY_ERR_INTERNAL' as const, 'CANOPY_ERR_OVERLOADED' as const, 'CANOPY_ERR_BAD_REQUEST' as const, 'CANOPY_ERR_LIMIT' as const) }),
  fc.record({ kind: fc.constant('broken' as const), frames: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('crash' as const) }),
  fc.record({ kind: fc.constant('abort' as const), after: fc.integer({ min: 0, max: 2 }) }),
);

/** One call to the end: the frames seen (by rowsScanned) and the error it ended with; aborts itself after `abortAfter` frames. */
async function run(child: Child, leaf: number, abortAfter: number | null): Promise<{ seen: number[]; error: { code: string; message: string; details: unknown } | null }> {
  const seen: number[] = [];
  const ctl = new AbortController();
  try {
    if (abortAfter === 0) ctl.abort();
    for await (const f of child.query(req(leaf), ctl.signal)) {
      seen.push(f.rowsScanned);
      if (abortAfter !== null && seen.length === abortAfter) ctl.abort();
    }
    return { seen, error: null };
  } catch (e) {
    if (!(e instanceof CanopyError)) throw e;
    return { seen, error: { code: e.code, message: e.message, details: e.details } };
  }
}

describe('localChild', () => {
  let behaviour: Behaviour = { kind: 'ok', frames: 1 };
  const directory = new NodeDirectory();
  const registry = new Registry();
  const metrics = nodeHttpMetrics(registry);
  const handler: NodeHandler = async function* (r, signal) {
    const leaf = r.shards[0]!;
    const b = behaviour;
    if (b.kind === 'error') throw new CanopyError(b.code, `leaf ${leaf} fails`, b.code === 'CANOPY_ERR_OVERLOADED' ? { details: { retryAfterSeconds: 3 } } : {});
    if (b.kind === 'crash') throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', 'injected fault: crash', { details: { fault: 'crash' } });
    const n = b.kind === 'abort' ? b.after : b.frames;
    for (let s = 0; s < n; s++) {
      await tick(0);
      yield frameOf(leaf, s, b.kind === 'ok' ? n : n + 1);
    }
    if (b.kind === 'broken') throw new CanopyError('CANOPY_ERR_INTERNAL', 'broke down');
    if (b.kind === 'abort') await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('gone')), { once: true }));
  };
  // A node that never looks at its signal.
  const deaf: NodeHandler = async function* () {
    await new Promise(() => undefined);
    yield frameOf(9, 0, 1);
  };
  const busy = new Admission({ maxInFlight: 1, maxQueued: 0, retryAfterSeconds: 2 });
  const apps = [
    buildNodeApp(handler, { name: 'leaf-1', directory, metrics }),
    buildNodeApp(deaf, { name: 'leaf-9', directory, metrics }),
    buildNodeApp(handler, { name: 'leaf-7', directory, metrics, admission: busy }),
  ];
  let url = '';
  beforeAll(async () => {
    url = await apps[0]!.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it('gives its parent the frames and errors a multiplexed HTTP call to the same node gives', async () => {
    const client = new MultiplexClient(url);
    try {
      await fc.assert(
        fc.asyncProperty(behaviourArb, async (b) => {
          behaviour = b;
          const abortAfter = b.kind === 'abort' ? b.after : null;
          const overHttp = await run(client.child('leaf-1', [1]), 1, abortAfter);
          const local = await run(localChild('leaf-1', [1], directory, { metrics }), 1, abortAfter);
          expect(local.seen).toEqual(overHttp.seen);
          expect(local.error?.code).toBe(overHttp.error?.code);
          if (b.kind === 'error') {
            // The same message and details (CHILD_HTTP names the node's own code and status; a
            // per-query limit keeps its code: the query's own refusal).
            expect(local.error).toEqual(overHttp.error);
            expect(local.error!.code).toBe(b.code === 'CANOPY_ERR_OVERLOADED' || b.code === 'CANOPY_ERR_LIMIT' ? b.code : 'CANOPY_ERR_CHILD_HTTP');
          }
          if (b.kind === 'ok') {
            expect(local.error).toBeNull();
            expect(local.seen).toEqual(Array.from({ length: b.frames }, (_, s) => 1000 + s));
          }
          if (b.kind === 'broken' || b.kind === 'crash') expect(local.error!.code).toBe('CANOPY_ERR_CHILD_UNREACHABLE');
          if (b.kind === 'abort') expect(local.error!.code).toBe('CANOPY_ERR_CANCELLED');
        }),
        { numRuns: 60 },
      );
    } finally {
      await client.destroy();
    }
  });

  it('hands the parent the frame objects themselves (nothing encoded on the way)', async () => {
    const made: Frame[] = [];
    const d = new NodeDirectory();
    const app = buildNodeApp(async function* () {
      const f = frameOf(2, 0, 1);
      made.push(f);
      yield f;
    }, { name: 'leaf-2', directory: d });
    try {
      const got: Frame[] = [];
      for await (const f of localChild('leaf-2', [2], d).query(req(2), new AbortController().signal)) got.push(f);
      expect(got).toHaveLength(1);
      expect(got[0]).toBe(made[0]);
    } finally {
      await app.close();
    }
  });

  it('goes through the node\'s admission control', async () => {
    behaviour = { kind: 'abort', after: 1 };
    const first = new AbortController();
    const seen: number[] = [];
    // The first call holds the node's only slot (it waits after its first frame).
    const holding = (async () => {
      try {
        for await (const f of localChild('leaf-7', [7], directory).query(req(7), first.signal)) seen.push(f.rowsScanned);
      } catch {
        // cancelled below
      }
    })();
    while (seen.length === 0) await tick(1);
    const refused = await run(localChild('leaf-7', [7], directory), 7, null);
    expect(refused.error?.code).toBe('CANOPY_ERR_OVERLOADED');
    expect(refused.error?.details).toEqual({ retryAfterSeconds: 2 });
    first.abort();
    await holding;
    // The slot is given back when the first call ends.
    behaviour = { kind: 'ok', frames: 1 };
    expect((await run(localChild('leaf-7', [7], directory), 7, null)).error).toBeNull();
  });

  it('ends with CANOPY_ERR_CANCELLED when aborted, even if the node ignores its signal', async () => {
    const ctl = new AbortController();
    const ended = (async () => {
      const it = localChild('leaf-9', [9], directory).query(req(9), ctl.signal)[Symbol.asyncIterator]();
      const p = it.next();
      await tick(5);
      ctl.abort();
      return p.then(
        () => 'resolved',
        (e: unknown) => (e instanceof CanopyError ? e.code : 'not a CanopyError'),
      );
    })();
    expect(await ended).toBe('CANOPY_ERR_CANCELLED');
  });

  it('names the nodes it serves for one it does not', async () => {
    const r = await run(localChild('leaf-404', [404], directory), 404, null);
    expect(r.error?.code).toBe('CANOPY_ERR_CHILD_HTTP');
    expect(r.error?.message).toMatch(/leaf-404 answered HTTP 404 \(CANOPY_ERR_NOT_FOUND: no node leaf-404 in this process; it serves leaf-1, leaf-9, leaf-7\)/);
  });

  it('records each call in the request metrics under its node', async () => {
    behaviour = { kind: 'ok', frames: 2 };
    const before = await registry.getSingleMetricAsString('canopy_node_request_seconds');
    const okBefore = Number(/canopy_node_request_seconds_count\{node="leaf-1",outcome="ok"\} (\d+)/.exec(before)?.[1] ?? 0);
    expect((await run(localChild('leaf-1', [1], directory, { metrics }), 1, null)).error).toBeNull();
    const after = await registry.getSingleMetricAsString('canopy_node_request_seconds');
    expect(Number(/canopy_node_request_seconds_count\{node="leaf-1",outcome="ok"\} (\d+)/.exec(after)?.[1])).toBe(okBefore + 1);
  });
});
