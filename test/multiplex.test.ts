/**
 * Multiplexed partial requests (issue #15): the calls a process makes to one host within an
 * event-loop turn share one POST /v1/partials; each per-child call gets exactly the frames its
 * child sent (or its child's error, with the codes of a per-child request) and nothing of its
 * siblings', whatever the others do: delays, errors, broken replies, crashes, hangs, aborts,
 * garbled frames, a dropped connection.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CanopyError, encodeFrame, fromWireJSON, layoutOf, type Frame, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { MUX_CANCEL_ROUTE, MUX_ROUTE, MultiplexClient, NodeDirectory, buildNodeApp, muxEnvelope, nodeHttpMetrics, readMuxBody, type Child, type ChildRequest, type NodeHandler } from '../src/transport/index.ts';
import { Registry } from 'prom-client';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const plan = planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan;
const layout = layoutOf(plan, schema);

/** Frame `seq` of leaf `leaf` out of `n`: its identity is in rowsScanned and the provenance path. */
function frameOf(leaf: number, seq: number, n: number): Frame {
  return {
    partial: { type: 'columnar', size: 0, keys: [], states: layout.kinds.map(() => []) },
    provenance: [{ shard: leaf, status: 'answered', path: `leaf-${leaf}#${seq}`, rowsScanned: 1 }],
    rowsScanned: leaf * 1000 + seq,
    ...(seq < n - 1 ? { final: false } : {}),
  };
}

const req = (leaf: number): ChildRequest => ({ queryId: 'q', schema, plan, shards: [leaf], budgetMs: 30_000, stream: true });

/** What a leaf does. `frames`: frames it sends before the behaviour's end; `delays` in ms before each. */
type Behaviour =
  | { kind: 'ok'; frames: number }
  | { kind: 'error'; code: 'CANOPY_ERR_INTERNAL' | 'CANOPY_ERR_OVERLOADED' | 'CANOPY_ERR_BAD_REQUEST' }
  | { kind: 'broken'; frames: number }
  | { kind: 'crash' }
  | { kind: 'hang'; frames: number }
  | { kind: 'abort'; after: number };

const behaviourArb: fc.Arbitrary<Behaviour> = fc.oneof(
  fc.record({ kind: fc.constant('ok' as const), frames: fc.integer({ min: 1, max: 4 }) }),
  fc.record({ kind: fc.constant('error' as const), code: fc.constantFrom('CANOPY_ERR_INTERNAL' as const, 'CANOPY_ERR_OVERLOADED' as const, 'CANOPY_ERR_BAD_REQUEST' as const) }),
  fc.record({ kind: fc.constant('broken' as const), frames: fc.integer({ min: 1, max: 3 }) }),
  fc.record({ kind: fc.constant('crash' as const) }),
  fc.record({ kind: fc.constant('hang' as const), frames: fc.integer({ min: 0, max: 2 }) }),
  fc.record({ kind: fc.constant('abort' as const), after: fc.integer({ min: 0, max: 2 }) }),
);
const leafArb = fc.record({ behaviour: behaviourArb, delays: fc.array(fc.integer({ min: 0, max: 3 }), { minLength: 5, maxLength: 5 }) });

const tick = (ms: number): Promise<void> => new Promise((r) => setTimeout(r, ms));

/** Polls `cond` (every ms, at most 2 s; no timing asserted): whether it came true. */
async function waitFor(cond: () => boolean): Promise<boolean> {
  for (let k = 0; k < 2000 && !cond(); k++) await tick(1);
  return cond();
}

/** Runs one call to the end: the frames it yielded and how it ended; aborts itself after `abortAfter` frames. */
async function run(child: Child, leaf: number, ctl: AbortController, abortAfter: number | null, onFrame?: (seen: number) => void): Promise<{ seen: number[]; error: CanopyError | null }> {
  const seen: number[] = [];
  try {
    if (abortAfter === 0) ctl.abort();
    for await (const f of child.query(req(leaf), ctl.signal)) {
      seen.push(f.rowsScanned);
      expect(f.provenance[0]!.path).toBe(`leaf-${leaf}#${f.rowsScanned - leaf * 1000}`);
      if (abortAfter !== null && seen.length === abortAfter) ctl.abort();
      onFrame?.(seen.length);
    }
    return { seen, error: null };
  } catch (e) {
    if (!(e instanceof CanopyError)) throw e;
    return { seen, error: e };
  }
}

const seq = (leaf: number, n: number): number[] => Array.from({ length: n }, (_, i) => leaf * 1000 + i);

describe('multiplexed requests over the real node apps', () => {
  const leaves = 6;
  let scenario: { behaviour: Behaviour; delays: number[] }[] = [];
  const cancelled: Set<number> = new Set();
  const started: Set<number> = new Set();
  const directory = new NodeDirectory();
  const registry = new Registry();
  const metrics = nodeHttpMetrics(registry);
  const apps = Array.from({ length: leaves }, (_, leaf) => {
    const handler: NodeHandler = async function* (r, signal) {
      const { behaviour: b, delays } = scenario[leaf]!;
      expect(r.shards).toEqual([leaf]);
      started.add(leaf);
      signal.addEventListener('abort', () => cancelled.add(leaf), { once: true });
      if (b.kind === 'error') throw new CanopyError(b.code, `leaf ${leaf} fails`, b.code === 'CANOPY_ERR_OVERLOADED' ? { details: { retryAfterSeconds: 3 } } : {});
      if (b.kind === 'crash') throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', 'injected fault: crash', { details: { fault: 'crash' } });
      // An aborted leaf is a straggler: it sends `after` frames, then waits until it is cancelled.
      const n = b.kind === 'abort' ? b.after : b.frames;
      for (let s = 0; s < n; s++) {
        await tick(delays[s]!);
        yield frameOf(leaf, s, b.kind === 'ok' ? n : n + 1);
      }
      if (b.kind === 'broken') throw new CanopyError('CANOPY_ERR_INTERNAL', 'broke down');
      if (b.kind === 'hang' || b.kind === 'abort') await new Promise((_, reject) => signal.addEventListener('abort', () => reject(new Error('gone')), { once: true }));
    };
    return buildNodeApp(handler, { name: `leaf-${leaf}`, directory, metrics, token: 'secret' });
  });
  let url = '';
  beforeAll(async () => {
    url = await apps[0]!.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it('gives every call exactly its own leaf\'s frames or its error, whatever its siblings do', async () => {
    const client = new MultiplexClient(url, { token: 'secret' });
    /** Leaves that gave an ok answer in some run (their metrics must show it). */
    const answered = new Set<number>();
    try {
      await fc.assert(
        fc.asyncProperty(fc.array(leafArb, { minLength: leaves, maxLength: leaves }), fc.subarray([...Array(leaves).keys()], { minLength: 1 }), async (sc, asked) => {
          scenario = sc;
          cancelled.clear();
          started.clear();
          const before = client.counters.requests;
          const ctls = asked.map(() => new AbortController());
          // A hung leaf is given up on (a parent's deadline) once it has sent its frames and every other call is done.
          const reached: Promise<void>[] = [];
          const runs = asked.map((leaf, i) => {
            const b = sc[leaf]!.behaviour;
            let onFrame: ((n: number) => void) | undefined;
            if (b.kind === 'hang') {
              const frames = b.frames;
              reached.push(frames === 0 ? waitFor(() => started.has(leaf)).then(() => undefined) : new Promise<void>((r) => (onFrame = (n) => n === frames && r())));
            }
            return run(client.child(`leaf-${leaf}`, [leaf]), leaf, ctls[i]!, b.kind === 'abort' ? b.after : null, onFrame);
          });
          const hung = asked.map((leaf, i) => (sc[leaf]!.behaviour.kind === 'hang' ? i : -1)).filter((i) => i >= 0);
          const others = runs.filter((_, i) => !hung.includes(i));
          await Promise.all([...others, ...reached]);
          // An aborted call's leaf is cancelled at the host while hung siblings still hold the
          // request open (POST /v1/partials/cancel, per entry).
          for (const leaf of asked) {
            const b = sc[leaf]!.behaviour;
            if (b.kind === 'abort' && b.after > 0) expect(await waitFor(() => cancelled.has(leaf))).toBe(true);
          }
          for (const i of hung) ctls[i]!.abort();
          const results = await Promise.all(runs);
          // All the calls of one turn went out as one request.
          const sent = asked.some((leaf) => { const b = sc[leaf]!.behaviour; return !(b.kind === 'abort' && b.after === 0); });
          expect(client.counters.requests - before).toBe(sent ? 1 : 0);
          asked.forEach((leaf, i) => {
            const b = sc[leaf]!.behaviour;
            const { seen, error } = results[i]!;
            switch (b.kind) {
              case 'ok':
                expect(error).toBeNull();
                expect(seen).toEqual(seq(leaf, b.frames));
                answered.add(leaf);
                break;
              case 'error':
                expect(seen).toEqual([]);
                if (b.code === 'CANOPY_ERR_OVERLOADED') {
                  expect(error?.code).toBe('CANOPY_ERR_OVERLOADED');
                  expect(error?.details).toEqual({ retryAfterSeconds: 3 });
                } else {
                  expect(error?.code).toBe('CANOPY_ERR_CHILD_HTTP');
                  expect(error?.message).toContain(`leaf-${leaf} answered HTTP ${b.code === 'CANOPY_ERR_BAD_REQUEST' ? 400 : 500} (${b.code}: leaf ${leaf} fails)`);
                }
                break;
              case 'broken':
                expect(seen).toEqual(seq(leaf, b.frames));
                expect(error?.code).toBe('CANOPY_ERR_CHILD_UNREACHABLE');
                break;
              case 'crash':
                expect(seen).toEqual([]);
                expect(error?.code).toBe('CANOPY_ERR_CHILD_UNREACHABLE');
                break;
              case 'hang':
                expect(seen).toEqual(seq(leaf, b.frames));
                expect(error?.code).toBe('CANOPY_ERR_CANCELLED');
                break;
              case 'abort':
                expect(seen).toEqual(seq(leaf, b.after));
                expect(error?.code).toBe('CANOPY_ERR_CANCELLED');
                break;
            }
          });
          // A hung leaf is cancelled at the server once every call of its request is closed.
          for (const i of hung) {
            const leaf = asked[i]!;
            expect(await waitFor(() => cancelled.has(leaf))).toBe(true);
          }
        }),
        { numRuns: 40 },
      );
    } finally {
      await client.destroy();
    }
    // Per-leaf metrics: every entry recorded under its own node.
    const text = await registry.metrics();
    // (A leaf the random scenarios gave an ok answer: leaf-0 may have drawn none in 40 runs.)
    expect(answered.size).toBeGreaterThan(0);
    for (const leaf of answered) expect(text).toMatch(new RegExp(`canopy_node_request_seconds_count\\{node="leaf-${leaf}",outcome="ok"\\} [1-9]`));
    expect(text).toMatch(/canopy_multiplexed_request_entries_count [1-9]/);
  });

  it('fails every call with the request\'s own refusal (bad token) and keeps per-leaf routes', async () => {
    const client = new MultiplexClient(url, { token: 'wrong' });
    try {
      scenario = Array.from({ length: leaves }, () => ({ behaviour: { kind: 'ok', frames: 1 }, delays: [0, 0, 0, 0, 0] }));
      const results = await Promise.all([0, 3].map((leaf) => run(client.child(`leaf-${leaf}`, [leaf]), leaf, new AbortController(), null)));
      for (const [i, r] of results.entries()) {
        expect(r.seen).toEqual([]);
        expect(r.error?.code).toBe('CANOPY_ERR_CHILD_HTTP');
        expect(r.error?.message).toContain(`leaf-${[0, 3][i]} answered HTTP 401`);
      }
    } finally {
      await client.destroy();
    }
  });

  it('names the nodes it serves when an entry asks for another, and reads a body only of {bases, entries}', async () => {
    const client = new MultiplexClient(url, { token: 'secret' });
    try {
      scenario = Array.from({ length: leaves }, () => ({ behaviour: { kind: 'ok', frames: 1 }, delays: [0, 0, 0, 0, 0] }));
      const [bad, good] = await Promise.all([run(client.child('leaf-99', [99]), 99, new AbortController(), null), run(client.child('leaf-2', [2]), 2, new AbortController(), null)]);
      expect(bad.error?.code).toBe('CANOPY_ERR_CHILD_HTTP');
      expect(bad.error?.message).toContain('no node leaf-99 in this process; it serves leaf-0, leaf-1');
      expect(good).toEqual({ seen: [2000], error: null });
    } finally {
      await client.destroy();
    }
    expect(() => readMuxBody({ entries: [] })).toThrow(/bases must be a list/);
    expect(() => readMuxBody({ bases: [{}], entries: [{ node: 'leaf-0', base: 1 }] })).toThrow(/entry 0: base must index bases \(0..0\)/);
    expect(() => readMuxBody({ bases: [], entries: [], extra: 1 })).toThrow(/unknown field\(s\) extra/);
  });
});

/** A raw server speaking the multiplexed reply by script: garbled frames, unknown entries, dropped connections. */
describe('the demultiplexer against scripted replies', () => {
  type Script = { leaf: number; action: 'frame' | 'end' | 'garble' }[];
  let script: { steps: Script; drop: boolean } = { steps: [], drop: false };
  let server: Server;
  let url = '';
  beforeAll(async () => {
    server = createServer((rq, res) => {
      const chunks: Buffer[] = [];
      rq.on('data', (c: Buffer) => chunks.push(c));
      rq.on('end', () => {
        if (rq.url === MUX_CANCEL_ROUTE) {
          // A call given up on (its frame was garbled) while its siblings go on.
          res.writeHead(200, { 'content-type': 'application/json' }).end('{"cancelled":0}');
          return;
        }
        expect(rq.url).toBe(MUX_ROUTE);
        const { entries } = readMuxBody(fromWireJSON(Buffer.concat(chunks).toString('utf8')));
        const index = new Map(entries.map((e, i) => [Number(e.node.slice(5)), i]));
        res.writeHead(200, { 'content-type': 'application/vnd.canopy.multiplexed' });
        const counts = new Map<number, number>();
        void (async () => {
          for (const s of script.steps) {
            const i = index.get(s.leaf);
            if (i === undefined) continue;
            const k = counts.get(s.leaf) ?? 0;
            if (s.action === 'frame') {
              counts.set(s.leaf, k + 1);
              res.write(muxEnvelope(i, 0, encodeFrame(layout, frameOf(s.leaf, k, 99))));
            } else if (s.action === 'garble') res.write(muxEnvelope(i, 0, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8])));
            else res.write(muxEnvelope(i, 1));
            await tick(0);
          }
          if (script.drop) res.destroy();
          else res.end();
        })();
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((r) => server.close(() => r())));

  it('a garbled frame fails its own call only; a dropped connection fails the calls still open in it', async () => {
    const client = new MultiplexClient(url);
    try {
      const stepArb = fc.record({ leaf: fc.integer({ min: 0, max: 4 }), action: fc.constantFrom('frame' as const, 'frame' as const, 'end' as const, 'garble' as const) });
      await fc.assert(
        fc.asyncProperty(fc.array(stepArb, { maxLength: 25 }), fc.boolean(), async (steps, drop) => {
          script = { steps, drop };
          const asked = [0, 1, 2, 3, 4];
          const results = await Promise.all(asked.map((leaf) => run(client.child(`leaf-${leaf}`, [leaf]), leaf, new AbortController(), null)));
          for (const leaf of asked) {
            // What the leaf's own script says it gets: its frames up to its first end or garbled frame.
            const own = steps.filter((s) => s.leaf === leaf);
            const stop = own.findIndex((s) => s.action !== 'frame');
            const frames = (stop < 0 ? own : own.slice(0, stop)).length;
            const { seen, error } = results[leaf]!;
            expect(seen).toEqual(seq(leaf, frames));
            if (stop >= 0 && own[stop]!.action === 'end') expect(error).toBeNull();
            else if (stop >= 0) expect(error?.code).toBe('CANOPY_ERR_CHILD_GARBLED');
            else expect(error?.code).toBe('CANOPY_ERR_CHILD_UNREACHABLE'); // no end: broke off with the reply (dropped or ended early)
          }
        }),
        { numRuns: 60 },
      );
    } finally {
      await client.destroy();
    }
  });
});
