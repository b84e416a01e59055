/**
 * A replica hung inside a multiplexed request (issue #13): shard 0's replica in zone a never
 * answers, its entry sharing one `POST /v1/partials` to host a with shard 1's healthy replica;
 * shard 0's replica in zone b (host b) is healthy. Every query must answer shard 0 from zone b
 * (hedge, or routing once the hung replica is ejected), also when the hedge delay learned from
 * slow samples (a cold start) is longer than the request's budget.
 *
 * The loopback HTTP of the two hosts is real; time is not: tail control and the gather run on
 * a step clock that moves only when every request in flight other than the hung one has ended,
 * so the outcome does not depend on how fast this machine is (no timing is asserted).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TailControl, gather, replicaSet, type ReplicaSetChild } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { CanopyError, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { MultiplexClient, NodeDirectory, buildNodeApp, type Child, type ChildRequest, type Clock, type NodeHandler } from '../src/transport/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const plan = planQuery('SELECT count(*) FROM t', new Map([['t', schema]])).scan;
const rowsOf = (n: number): Scalar[][] => Array.from({ length: n }, (_, i) => [BigInt(i)]);
/** Rows of shards 0 and 1. */
const ROWS = [3, 5];

function leafHandler(name: string, shard: number): NodeHandler {
  return createLeaf(name, [prepareShard(shard, shardsFromRows(schema, [rowsOf(ROWS[shard]!)])[0]!, schema)]).handler;
}

/** A clock whose time moves only when told to: {@link fireNext} jumps to the earliest timer and fires it. */
class StepClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #timers: { at: number; seq: number; fn: (() => void) | null }[] = [];
  now = (): number => this.#now;
  setTimeout = (fn: () => void, ms: number): unknown => {
    const t = { at: this.#now + Math.max(0, ms), seq: this.#seq++, fn };
    this.#timers.push(t);
    return t;
  };
  clearTimeout = (h: unknown): void => {
    if (typeof h === 'object' && h !== null && 'fn' in h) (h as { fn: unknown }).fn = null;
  };
  /** Fires the earliest armed timer (time jumps to it); false when none is armed. */
  fireNext(): boolean {
    this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
    for (;;) {
      const t = this.#timers.shift();
      if (t === undefined) return false;
      if (t.fn === null) continue;
      this.#now = Math.max(this.#now, t.at);
      const fn = t.fn;
      t.fn = null;
      fn();
      return true;
    }
  }
  /** Moves time on by `ms`, firing what falls due on the way. */
  advance(ms: number): void {
    const end = this.#now + ms;
    for (;;) {
      this.#timers.sort((a, b) => a.at - b.at || a.seq - b.seq);
      const t = this.#timers.find((x) => x.fn !== null);
      if (t === undefined || t.at > end) break;
      this.fireNext();
    }
    this.#now = end;
  }
}

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));

/** Polls `cond` over real loopback I/O (at most 20 s; no timing asserted). */
async function until(cond: () => boolean): Promise<void> {
  // At least one turn first: what the last timer started (promise reactions, sockets) runs before `cond` is read.
  await tick();
  for (let k = 0; k < 20_000 && !cond(); k++) await tick();
  if (!cond()) throw new Error('loopback requests did not settle');
}

describe('a replica hung inside a multiplexed request, a healthy replica in another zone', () => {
  const hosts = ['a', 'b'].map(() => ({ directory: new NodeDirectory(), url: '' }));
  /** Requests to the hung replica that reached host a, and those it saw cancelled. */
  const hung = { started: 0, cancelled: 0 };
  const hungHandler: NodeHandler = async function* (_req, signal) {
    hung.started++;
    await new Promise((_, reject) =>
      signal.addEventListener(
        'abort',
        () => {
          hung.cancelled++;
          reject(new CanopyError('CANOPY_ERR_CANCELLED', 'hung replica cancelled'));
        },
        { once: true },
      ),
    );
    yield* [];
  };
  const apps = [
    buildNodeApp(hungHandler, { name: 'leaf-0.r0', directory: hosts[0]!.directory }),
    buildNodeApp(leafHandler('leaf-1.r0', 1), { name: 'leaf-1.r0', directory: hosts[0]!.directory }),
    buildNodeApp(leafHandler('leaf-0.r1', 0), { name: 'leaf-0.r1', directory: hosts[1]!.directory }),
    buildNodeApp(leafHandler('leaf-1.r1', 1), { name: 'leaf-1.r1', directory: hosts[1]!.directory }),
  ];
  beforeAll(async () => {
    hosts[0]!.url = await apps[0]!.listen({ host: '127.0.0.1', port: 0 });
    hosts[1]!.url = await apps[2]!.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });

  it('every query answers the shard from zone b, although the hedge delay learned at a cold start exceeds the budget', async () => {
    const clock = new StepClock();
    const [muxA, muxB] = hosts.map((h) => new MultiplexClient(h.url));
    // Calls in flight other than the hung replica's: time moves only when there are none.
    let active = 0;
    const tracked = (c: Child, isHung: boolean): Child => ({
      name: c.name,
      shards: c.shards,
      query: async function* (req, signal) {
        if (!isHung) active++;
        try {
          yield* c.query(req, signal);
        } finally {
          if (!isHung) active--;
        }
      },
    });
    // The aggregator is in zone a: its own zone's replica (the hung one) is preferred while healthy.
    const tail = new TailControl({ clock, random: () => 0.5, zone: 'a', hedge: {}, ejection: {} });
    const sets: ReplicaSetChild[] = [0, 1].map((shard) =>
      replicaSet(
        `leaf-${shard}`,
        [
          { child: tracked(muxA!.child(`leaf-${shard}.r0`, [shard]), shard === 0), zone: 'a' },
          { child: tracked(muxB!.child(`leaf-${shard}.r1`, [shard]), false), zone: 'b' },
        ],
        tail,
      ),
    );
    const req: ChildRequest = { queryId: 'q', schema, plan, shards: [0, 1], budgetMs: 1000 };
    // A cold start: every healthy replica took 1.5 s to answer its first requests (the hung one
    // never answered), so the learned hedge delay (max(p95, 2 x p50) = 3 s) is far beyond the
    // 1 s budget of the queries below.
    const cls = tail.classOf(req);
    for (const s of sets) {
      for (const r of s.state!.replicas) {
        if (r.name === 'leaf-0.r0') continue;
        for (let i = 0; i < 20; i++) {
          tail.started(r);
          tail.ended(s.state!, r, cls, { kind: 'answered', ms: 1500, good: true }, false);
        }
      }
    }
    try {
      for (let q = 0; q < 30; q++) {
        const run = gather(sets, { ...req, queryId: `q${q}` }, new AbortController().signal, { self: 'agg-0', clock, reserveMs: 50 });
        let done = false;
        run.then(
          () => (done = true),
          () => (done = true),
        );
        for (;;) {
          await until(() => done || active === 0);
          if (done) break;
          expect(clock.fireNext()).toBe(true);
        }
        const result = await run;
        const byShard = new Map(result.provenance.map((p) => [p.shard, p]));
        expect(byShard.get(0)?.status, `query ${q}: ${JSON.stringify(byShard.get(0))}`).toBe('answered');
        expect(byShard.get(0)?.path).toContain('leaf-0.r1');
        expect(byShard.get(1)?.status).toBe('answered');
        expect(result.rowsScanned).toBe(ROWS[0]! + ROWS[1]!);
        const p = result.partial;
        if (p.type === 'rows') throw new Error('expected a grouped partial');
        const count = p.type === 'columnar' ? p.states[0]![0] : [...p.groups.values()][0]!.states[0];
        expect(Number(count)).toBe(ROWS[0]! + ROWS[1]!);
        // Every request that reached the hung replica is cancelled at host a, none is left running.
        await until(() => hung.cancelled === hung.started);
        clock.advance(200);
      }
    } finally {
      await Promise.all([muxA!.destroy(), muxB!.destroy()]);
    }
    // The hung replica's entries went out inside multiplexed requests with a sibling's entry.
    expect(muxA!.counters.entries).toBeGreaterThan(muxA!.counters.requests);
    expect(hung.started).toBeGreaterThan(0);
    // It was hedged around, then ejected (afterwards only probes reach it).
    expect(tail.counters.hedgesWon).toBeGreaterThan(0);
    expect(tail.counters.ejections).toBeGreaterThanOrEqual(1);
  });
});
