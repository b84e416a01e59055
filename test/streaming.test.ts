/**
 * Progressive answers: with one shard slowed (fake timers), the stream delivers a snapshot
 * before the slow shard answers; every interval in every snapshot holds the final truth;
 * intervals never widen; the last snapshot is final and equals the non-streamed answer.
 * The same for group top-k, whose aggregator updates are truncated with bounds; coalescing
 * keeps a 10-way gather's bytes far below one update per child.
 * Also the HTTP formats: NDJSON, SSE, Arrow (read back with RecordBatchReader), 406.
 */
import { RecordBatchReader } from 'apache-arrow';
import type { InjectOptions } from 'fastify';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createAggregator } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard, withFaults } from '../src/leaf/index.ts';
import { compareSql, encodeFrame, layoutOf, type Frame, type Scalar, type ScanPlan, type TableSchema } from '../src/merge/index.ts';
import { buildRootApp, planQuery, type QueryAnswer } from '../src/root/index.ts';
import { EXACT_CUT_RATIO, EXACT_SHARD_BUDGET_BYTES } from '../src/root/topk.ts';
import { inProcessChild, type ChildRequest, type NodeHandler } from '../src/transport/index.ts';
import { dateClock } from './helpers/clock.ts';
import { groupTruth, type TruthField } from './helpers/group-truth.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'x', type: 'int64' }] };
const shards: Scalar[][][] = Array.from({ length: 8 }, (_, s) => Array.from({ length: 20 }, (_, i) => [['a', 'b', 'c'][(i + s) % 3]!, BigInt(i * s - 30)]));

function slowShard(slow: number, ms: number) {
  return (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) =>
    leaf.shards.includes(slow) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [slow], latency: { kind: 'fixed', ms } }] }) : leaf.handler;
}

function within(cell: { lo?: Scalar; hi?: Scalar }, v: Scalar): boolean {
  return v !== null && (cell.lo == null || compareSql('<=', cell.lo, v) === true) && (cell.hi == null || compareSql('>=', cell.hi, v) === true);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('progressive snapshots', () => {
  it('a pending shard is listed under the root\'s child it waits on (root/agg-1), not under root', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, shards, { fanout: 3, wrap: slowShard(5, 1000) });
    const snaps: QueryAnswer[] = [];
    const pending = root.query({ sql: 'SELECT count(*) FROM t' }, new AbortController().signal, (a) => snaps.push(a), 10);
    await vi.advanceTimersByTimeAsync(200);
    const waiting = snaps[0]!.missing.find((m) => m.shard === 5 && m.reason === 'pending');
    await vi.advanceTimersByTimeAsync(2000);
    const final = await pending;
    const answeredAt = final.provenance.find((p) => p.shard === 5)!.path;
    expect(waiting?.path).toMatch(/^root\/[^/]+$/);
    expect(answeredAt.startsWith(`${waiting!.path}/`)).toBe(true);
  });

  for (const sql of ['SELECT count(*), sum(x), min(x), max(x), avg(x) FROM t', 'SELECT g, count(*), sum(x), min(x) FROM t GROUP BY g ORDER BY g']) {
    it(`narrow to the final answer: ${sql}`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { root } = inProcessRoot(schema, shards, { fanout: 3, wrap: slowShard(5, 1000) });
      const snaps: QueryAnswer[] = [];
      const pending = root.query({ sql }, new AbortController().signal, (a) => snaps.push(a), 10);
      await vi.advanceTimersByTimeAsync(200);
      // A first snapshot arrived before the slow shard answered.
      expect(snaps.length).toBeGreaterThan(0);
      expect(snaps[0]!.final).toBe(false);
      expect(snaps[0]!.missing.some((m) => m.shard === 5 && m.reason === 'pending')).toBe(true);
      await vi.advanceTimersByTimeAsync(2000);
      const final = await pending;
      expect(final.final).toBe(true);
      expect(final.label).toBe('exact');
      const { root: plain } = inProcessRoot(schema, shards, { fanout: 3 });
      const unstreamed = await plain.query({ sql }, new AbortController().signal);
      expect(final.rows).toEqual(unstreamed.rows);
      // Every interval holds the truth, and no interval widens from one snapshot to the next.
      const truth = new Map(final.rows.map((r) => [String(r[0]), r]));
      const prev = new Map<string, { lo?: Scalar; hi?: Scalar }>();
      for (const s of snaps) {
        s.rows.forEach((r, i) => {
          const t = sql.includes('GROUP BY') ? truth.get(String(r[0]))! : final.rows[0]!;
          r.forEach((v, j) => {
            const cell = s.cells?.[i]?.[j] ?? null;
            const key = `${sql.includes('GROUP BY') ? String(r[0]) : ''}#${j}`;
            if (cell === null) {
              if (s.rowsComplete && s.missing.length === 0) expect(v).toEqual(t[j]);
              return;
            }
            if (cell.label !== 'bounded') return;
            expect(within(cell, t[j]!)).toBe(true);
            const p = prev.get(key);
            if (p !== undefined) {
              if (p.lo != null && cell.lo != null) expect(compareSql('>=', cell.lo, p.lo)).toBe(true);
              if (p.hi != null && cell.hi != null) expect(compareSql('<=', cell.hi, p.hi)).toBe(true);
            }
            prev.set(key, cell);
          });
        });
      }
    });
  }
});

// Ten groups of skewed sizes over eight shards, so that k' = 3 truncates at every node.
const tkShards: Scalar[][][] = Array.from({ length: 8 }, (_, s) =>
  Array.from({ length: 24 }, (_, i) => ['abcdefghij'[(i * i + s * 3) % 10 > 6 ? (i + s) % 10 : (i * s) % 4]!, BigInt((i * 7 + s * 13) % 50)]),
);

describe('progressive snapshots of group top-k', () => {
  const cases: { sql: string; cols: TruthField[] }[] = [
    { sql: 'SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g ORDER BY n DESC LIMIT 3', cols: ['count', 'sum'] },
    { sql: 'SELECT g, sum(x) AS s FROM t GROUP BY g ORDER BY s DESC LIMIT 2', cols: ['sum'] },
    { sql: 'SELECT g, max(x) AS m, count(*) AS n FROM t GROUP BY g ORDER BY m DESC LIMIT 3', cols: ['max', 'count'] },
    { sql: 'SELECT g, min(x) AS m FROM t GROUP BY g ORDER BY m ASC LIMIT 2', cols: ['min'] },
  ];
  for (const { sql, cols } of cases) {
    it(`hold the truth, never widen, and end at the unstreamed answer: ${sql}`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      // policy "all": the slow shard is always waited for (no early termination).
      const req = { sql, shard_size: 3, policy: 'all' as const };
      const { root, layout } = inProcessRoot(schema, tkShards, { fanout: 3, wrap: slowShard(5, 1000) });
      const slowAgg = layout.find((n) => n.shards.includes(5))!;
      expect(slowAgg.kind).toBe('aggregator');
      const snaps: QueryAnswer[] = [];
      const pending = root.query(req, new AbortController().signal, (a) => snaps.push(a), 10);
      await vi.advanceTimersByTimeAsync(200);
      expect(snaps.length).toBeGreaterThan(0);
      expect(snaps[0]!.final).toBe(false);
      expect(snaps.every((a) => a.missing.some((m) => m.shard === 5 && m.reason === 'pending'))).toBe(true);
      // The slow shard's aggregator sent truncated updates: its other shards show before it answers.
      expect(Math.max(...snaps.map((a) => a.coverage.answered))).toBe(7);
      await vi.advanceTimersByTimeAsync(2000);
      const final = await pending;
      expect(final.final).toBe(true);
      const unstreamed = await inProcessRoot(schema, tkShards, { fanout: 3 }).root.query(req, new AbortController().signal);
      expect(final.rows).toEqual(unstreamed.rows);
      expect(final.label).toBe(unstreamed.label);
      expect(final.rowsComplete).toBe(unstreamed.rowsComplete);
      expect(final.coverage).toEqual(unstreamed.coverage);
      // Cells too, except that an interval proven by an earlier snapshot is kept where the
      // answer alone has none (never widen): the streamed cell lies within the unstreamed one.
      unstreamed.rows.forEach((_, i) =>
        cols.forEach((_f, j) => {
          const u = unstreamed.cells?.[i]?.[j + 1] ?? null;
          const c = final.cells?.[i]?.[j + 1] ?? null;
          if (u === null || u.label === 'bounded') expect(c).toEqual(u === null ? null : expect.objectContaining({ label: 'bounded' }));
          if (u?.label === 'bounded') expect(compareSql('>=', c!.lo!, u.lo!) === true && compareSql('<=', c!.hi!, u.hi!) === true).toBe(true);
        }),
      );
      const truth = groupTruth(tkShards.flat());
      const prev = new Map<string, { lo?: Scalar; hi?: Scalar }>();
      for (const a of [...snaps, final]) {
        a.rows.forEach((r, i) => {
          const t = truth.get(r[0] as string)!;
          cols.forEach((f, j) => {
            const cell = a.cells?.[i]?.[j + 1] ?? null;
            const key = `${String(r[0])}#${j}`;
            // An exact cell is the final truth; a bounded one holds it and sits inside the last one.
            if (cell === null) return expect(r[j + 1]).toEqual(t[f]);
            const p = prev.get(key);
            // Once bounded, a cell never loses its interval.
            expect(cell.label === 'bounded' || p === undefined).toBe(true);
            if (cell.label !== 'bounded') return;
            expect(within(cell, t[f])).toBe(true);
            if (p !== undefined) {
              if (p.lo != null) expect(cell.lo != null && compareSql('>=', cell.lo, p.lo)).toBe(true);
              if (p.hi != null) expect(cell.hi != null && compareSql('<=', cell.hi, p.hi)).toBe(true);
            }
            prev.set(key, cell);
          });
        });
      }
    });
  }
});

describe('exact: true group top-k, streamed', () => {
  it('asks its first round as unstreamed does (leaves send every group, aggregators cut at half their k\'-th): same rows, exact', async () => {
    // 600 keys of one or two rows a shard over 12 shards: a leaf's share of the k-th count is below a row.
    const thin: Scalar[][][] = Array.from({ length: 12 }, (_, s) => Array.from({ length: 90 }, (_, i) => [`k${(i * 7 + s * 13) % 600}`, BigInt(i % 5)]));
    thin[3]!.push(['k7', 1n], ['k7', 2n], ['k7', 3n]);
    const asked: (ChildRequest['plan']['topk'] | undefined)[] = [];
    const record = (leaf: { handler: NodeHandler }): NodeHandler => (req, signal) => {
      asked.push(req.plan.topk);
      return leaf.handler(req, signal);
    };
    const { root } = inProcessRoot(schema, thin, { fanout: 3, wrap: record });
    const req = { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 2', exact: true };
    const plain = await root.query(req, new AbortController().signal);
    const plainFirst = asked[0];
    asked.length = 0;
    const snaps: QueryAnswer[] = [];
    const streamed = await root.query(req, new AbortController().signal, (a) => snaps.push(a), 0);
    expect(plainFirst).toMatchObject({ shardBudgetBytes: EXACT_SHARD_BUDGET_BYTES, cutRatio: EXACT_CUT_RATIO });
    expect(asked[0]).toEqual(plainFirst);
    expect(plain.label).toBe('exact');
    expect(streamed.label).toBe('exact');
    expect(streamed.stats.round_trips).toBe(plain.stats.round_trips);
    expect(streamed.stats.rows_scanned).toBe(plain.stats.rows_scanned);
    const counts = new Map<string, number>();
    for (const sh of thin) for (const r of sh) counts.set(r[0] as string, (counts.get(r[0] as string) ?? 0) + 1);
    const want = [...counts].sort((a, b) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)).slice(0, 2).map(([g, n]) => [g, BigInt(n)]);
    expect(streamed.rows).toEqual(want);
    expect(plain.rows).toEqual(want);
  });
});

describe('coalesced aggregator updates', () => {
  /** A 10-way aggregator over leaves answering 0, 10, ..., 90 ms after the request; its frames and their bytes. */
  async function run(scan: ScanPlan, updateIntervalMs: number, stream: boolean): Promise<{ frames: Frame[]; bytes: number[] }> {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    const tables = shardsFromRows(schema, tkShards.concat(tkShards.slice(0, 2)));
    const children = tables.map((t, id) => {
      const leaf = createLeaf(`leaf-${id}`, [prepareShard(id, t, schema)]);
      return inProcessChild(leaf.name, [id], withFaults(leaf.handler, [id], { rules: [{ shards: [id], latency: { kind: 'fixed', ms: id * 10 } }] }));
    });
    const agg = createAggregator('agg', children, { clock: dateClock, updateIntervalMs });
    const req: ChildRequest = { queryId: 'q', schema, plan: scan, shards: tables.map((_, i) => i), budgetMs: 10_000, ...(stream ? { stream: true } : {}) };
    const frames: Frame[] = [];
    const done = (async () => {
      for await (const f of agg.handler(req, new AbortController().signal)) frames.push(f);
    })();
    await vi.advanceTimersByTimeAsync(200);
    await done;
    const layout = layoutOf(scan, schema);
    return { frames, bytes: frames.map((f) => encodeFrame(layout, f).length) };
  }
  const sum = (xs: number[]) => xs.reduce((a, b) => a + b, 0);
  const planOf = (sql: string) => planQuery(sql, new Map([['t', schema]])).scan;

  for (const topk of [false, true]) {
    it(`a 10-way gather sends a few updates, not one per child${topk ? ' (group top-k: truncated, with bounds)' : ''}`, async () => {
      const base = planOf('SELECT g, x, count(*) AS n, sum(x) AS s FROM t GROUP BY g, x ORDER BY n DESC LIMIT 3');
      const scan: ScanPlan = topk ? { ...base, topk: { partial: base.partials.findIndex((p) => p.kind === 'count_star'), sign: 1, combine: 'add', fetch: 5 } } : base;
      const coalesced = await run(scan, 50, true);
      const eager = await run(scan, 0, true);
      const plain = await run(scan, 50, false);
      const updates = (r: { frames: Frame[] }) => r.frames.filter((f) => f.final === false);
      // Children answer over 90 ms: at most one update per 50 ms, i.e. at most 2 before the answer.
      expect(updates(coalesced).length).toBeGreaterThan(0);
      expect(updates(coalesced).length).toBeLessThanOrEqual(2);
      expect(updates(eager).length).toBeGreaterThanOrEqual(8);
      expect(sum(coalesced.bytes)).toBeLessThan(sum(eager.bytes) / 2);
      expect(sum(coalesced.bytes)).toBeLessThanOrEqual(3 * plain.bytes[0]!);
      // The answer is the same frame with or without updates before it.
      expect(coalesced.frames.at(-1)).toEqual(plain.frames[0]);
      for (const f of updates(coalesced)) {
        expect(f.provenance.every((p) => p.status === 'answered')).toBe(true);
        if (topk) {
          expect(f.partial.type === 'columnar' && f.partial.size <= 5).toBe(true);
          expect(f.topk).toBeDefined();
        }
      }
    });
  }
});

describe('answer formats over HTTP', () => {
  const sql = 'SELECT g, count(*) AS n, avg(x) AS a FROM t GROUP BY g ORDER BY g';

  it('NDJSON: snapshots, then the final answer', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const res = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/x-ndjson' }, payload: { sql } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    const lines = res.body.trim().split('\n').map((l) => JSON.parse(l) as { final: boolean; rows: unknown[] });
    expect(lines[lines.length - 1]!.final).toBe(true);
    expect(lines.slice(0, -1).every((l) => l.final === false)).toBe(true);
    expect(lines[lines.length - 1]!.rows).toHaveLength(3);
  });

  it('"stream": true gives NDJSON too; SSE events end with event: final', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const nd = await app.inject({ method: 'POST', url: '/v1/query', payload: { sql, stream: true } });
    expect(nd.headers['content-type']).toContain('application/x-ndjson');
    const sse = await app.inject({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent(sql)}`, headers: { accept: 'text/event-stream' } });
    expect(sse.statusCode).toBe(200);
    expect(sse.headers['content-type']).toContain('text/event-stream');
    const events = sse.body.trim().split('\n\n');
    expect(events[events.length - 1]).toMatch(/^event: final\ndata: \{/);
  });

  // Planning errors are known before the stream begins: the same status and JSON body as a
  // non-streamed request, whichever way the stream was asked for.
  const streamed: [string, (sql: string) => InjectOptions][] = [
    ['"stream": true', (q) => ({ method: 'POST', url: '/v1/query', payload: { sql: q, stream: true } })],
    ['Accept: application/x-ndjson', (q) => ({ method: 'POST', url: '/v1/query', headers: { accept: 'application/x-ndjson' }, payload: { sql: q } })],
    ['Accept: text/event-stream', (q) => ({ method: 'POST', url: '/v1/query', headers: { accept: 'text/event-stream' }, payload: { sql: q } })],
    ['GET with text/event-stream', (q) => ({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent(q)}`, headers: { accept: 'text/event-stream' } })],
  ];
  for (const [how, request] of streamed) {
    it.each([
      ['SELEC 1', 'CANOPY_ERR_BAD_QUERY'],
      ['SELECT nope FROM t', 'CANOPY_ERR_UNKNOWN_COLUMN'],
      ['SELECT g FROM nowhere', 'CANOPY_ERR_UNKNOWN_TABLE'],
      ['SELECT g FROM t LIMIT -1', 'CANOPY_ERR_LIMIT'],
    ])(`a query refused while planning, streamed (${how}), gets 400 and the JSON error, as unstreamed: %s`, async (q, code) => {
      const { root } = inProcessRoot(schema, shards, { fanout: 3 });
      const app = buildRootApp(root);
      const plain = await app.inject({ method: 'POST', url: '/v1/query', payload: { sql: q } });
      const res = await app.inject(request(q));
      expect(res.statusCode, res.body).toBe(400);
      expect(res.headers['content-type']).toMatch(/^application\/json/);
      expect(res.json()).toEqual(plain.json());
      expect(res.json()).toMatchObject({ error: { code } });
    });
  }

  it('a query that fails once streaming has begun: 200, then its error as the last line (final: true; SSE event: final)', async () => {
    const failing = (): NodeHandler => () => ({ [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error('disk on fire')) }) });
    const { root } = inProcessRoot(schema, shards, { fanout: 3, wrap: failing });
    const app = buildRootApp(root);
    const nd = await app.inject({ method: 'POST', url: '/v1/query', payload: { sql, stream: true } });
    expect(nd.statusCode).toBe(200);
    const lines = nd.body.trim().split('\n').map((l) => JSON.parse(l) as { final: boolean; error?: { code: string } });
    expect(lines.slice(0, -1).every((l) => l.final === false && l.error === undefined)).toBe(true);
    expect(lines.at(-1)).toMatchObject({ error: { code: 'CANOPY_ERR_NO_COVERAGE' }, final: true });
    const sse = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/event-stream' }, payload: { sql } });
    expect(sse.statusCode).toBe(200);
    const last = sse.body.trim().split('\n\n').at(-1)!;
    expect(last).toMatch(/^event: final\ndata: \{"error":\{"code":"CANOPY_ERR_NO_COVERAGE"/);
  });

  it('Arrow: the final answer, labels and bounds in the schema metadata', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const res = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/vnd.apache.arrow.stream' }, payload: { sql } });
    expect(res.statusCode).toBe(200);
    const reader = RecordBatchReader.from(new Uint8Array(res.rawPayload)).open();
    const arrowSchema = reader.schema;
    const batches = reader.readAll();
    expect(arrowSchema.fields.map((f) => f.name)).toEqual(['g', 'n', 'a']);
    expect(arrowSchema.metadata.get('canopy.label')).toBe('exact');
    expect(JSON.parse(arrowSchema.metadata.get('canopy.coverage')!)).toMatchObject({ shards: 8, answered: 8 });
    expect(batches.reduce((n, b) => n + b.numRows, 0)).toBe(3);
    expect(batches[0]!.getChild('g')!.get(0)).toBe('a');
  });

  it('an unknown Accept type gets 406 with the supported list', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const res = await buildRootApp(root).inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/xml' }, payload: { sql } });
    expect(res.statusCode).toBe(406);
    expect(res.json()).toMatchObject({ error: { code: 'CANOPY_ERR_NOT_ACCEPTABLE' } });
    expect(res.json().error.message).toContain('application/x-ndjson');
  });

  it('Accept: text/* gets the CSV answer (SSE snapshots with "stream": true), not 406', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const csv = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/*' }, payload: { sql } });
    expect(csv.statusCode).toBe(200);
    expect(csv.headers['content-type']).toContain('text/csv');
    expect(csv.body.split('\r\n')[0]).toBe('g,n,a');
    const sse = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/*' }, payload: { sql, stream: true } });
    expect(sse.headers['content-type']).toContain('text/event-stream');
    expect(sse.body).toContain('event: final');
  });
});
