/**
 * `cost` benchmark: the per-request cost breakdown by tier, measured with the real code in
 * this process (CPU time from `process.cpuUsage`, so a busy machine inflates it less than wall
 * time; still quote it as an upper bound there).
 *
 * - leaf: the leaf handler (createLeaf) answering a 4-row shard: its fixed CPU per request;
 *   the same through the HTTP face (buildNodeApp on loopback, port 8120 or a free one) and
 *   the HTTP child (undici), both ends in this process: the transport's cost per request; and a multiplexed request
 *   (POST /v1/partials) carrying 10 and 50 leaves of one host (each a leaf handler as above):
 *   the transport's cost per leaf entry.
 * - aggregator: createAggregator over C in-process children that each decode a pre-encoded
 *   frame (so decode, gather bookkeeping and merge are counted): fixed cost, per child frame
 *   (C = 1 vs 10), per group (frames of 0 vs 1,000 groups) and per provenance entry (frames
 *   answering 1 vs 100 shards).
 * - root: a Root over in-process children answering canned frames: CPU per query, with the
 *   plan cache warm (the same SQL) and cold (a new SQL text each time).
 */
import { shardsFromRows, catalogFromShards } from '../src/data/index.ts';
import { createAggregator } from '../src/aggregator/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { decodeFrame, encodeFrame, layoutOf, type Frame, type Scalar, type ShardStatus, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, buildTree, planQuery } from '../src/root/index.ts';
import { MultiplexClient, NodeDirectory, buildNodeApp, httpChild, type Child, type ChildRequest } from '../src/transport/index.ts';
import { round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'v', type: 'int64' }] };
const SQL = 'SELECT g, count(*), sum(v) FROM t GROUP BY g';

/** CPU µs per call of `fn`, after `warm` untimed calls (as many as timed by default: the JIT must settle). */
async function cpuPerCall(n: number, fn: (i: number) => Promise<unknown>, warm = n): Promise<number> {
  for (let i = 0; i < warm; i++) await fn(i);
  const c0 = process.cpuUsage();
  for (let i = 0; i < n; i++) await fn(i);
  const c = process.cpuUsage(c0);
  return (c.user + c.system) / n;
}

async function drain(it: AsyncIterable<Frame>): Promise<Frame | undefined> {
  let last: Frame | undefined;
  for await (const f of it) last = f;
  return last;
}

const PLAN = planQuery(SQL, new Map([['t', SCHEMA]]), DEFAULT_LIMITS).scan;

function request(shards: readonly number[]): ChildRequest {
  return { queryId: 'q', schema: SCHEMA, plan: PLAN, shards, budgetMs: 30_000 };
}

/** A pre-encoded frame of `groups` groups answering `shards` (each one provenance entry). */
function cannedFrame(req: ChildRequest, groups: number, shards: readonly number[]): Uint8Array {
  const layout = layoutOf(req.plan, req.schema);
  const provenance: ShardStatus[] = shards.map((shard) => ({ shard, status: 'answered', path: `leaf-${shard}`, rowsScanned: 30_000 }));
  const keys: Scalar[] = Array.from({ length: groups }, (_, i) => `G${i}`);
  const frame: Frame = {
    partial: { type: 'columnar', size: groups, keys: [keys], states: layout.kinds.map((k) => keys.map(() => k.empty())) },
    provenance,
    rowsScanned: 30_000 * shards.length,
  };
  return encodeFrame(layout, frame);
}

/** Children that each decode `bytes` per query (shards given per child). */
function decodingChildren(req: ChildRequest, perChild: readonly (readonly number[])[], groups: number): Child[] {
  const layout = layoutOf(req.plan, req.schema);
  return perChild.map((shards, c) => {
    const bytes = cannedFrame(req, groups, shards);
    return {
      name: `leaf-${c}`,
      shards,
      async *query(): AsyncIterable<Frame> {
        yield decodeFrame(layout, bytes);
      },
    };
  });
}

async function aggregatorCost(children: number, groups: number, shardsPerChild: number, n: number): Promise<number> {
  const per = Array.from({ length: children }, (_, c) => Array.from({ length: shardsPerChild }, (_, k) => c * shardsPerChild + k));
  const req = request(per.flat());
  const agg = createAggregator('agg-0', decodingChildren(req, per, groups));
  return cpuPerCall(n, () => drain(agg.handler({ ...req, plan: { ...req.plan } }, new AbortController().signal)));
}

/** The `cost` benchmark module. */
export const cost: BenchModule = {
  description: 'per-request CPU by tier (leaf, aggregator, root): fixed, per child frame, per group, per provenance entry',
  defaults: { full: { reps: 4000, warmup: 1 }, quick: { reps: 200, warmup: 1 } },
  async run(opts: BenchOptions): Promise<BenchReport> {
    const n = opts.reps;
    const tables = shardsFromRows(SCHEMA, [[['a', 1n], ['b', 2n], ['a', 3n], ['c', 4n]]]);
    const leaf = createLeaf('leaf-0', [prepareShard(0, tables[0]!, SCHEMA)]);
    // A fresh plan object per request, as a request parsed from JSON has (no layout cache hit across requests).
    const leafReq = (): ChildRequest => ({ ...request([0]), plan: { ...PLAN } });
    const leafUs = await cpuPerCall(n, () => drain(leaf.handler(leafReq(), new AbortController().signal)));
    const app = buildNodeApp(leaf.handler, { name: 'leaf-0' });
    let url: string;
    try {
      url = await app.listen({ host: '127.0.0.1', port: 8120 });
    } catch {
      url = await app.listen({ host: '127.0.0.1', port: 0 });
    }
    const client = httpChild('leaf-0', [0], url, { connections: 1 });
    const httpUs = await cpuPerCall(Math.ceil(n / 2), () => drain(client.query(leafReq(), new AbortController().signal)));
    await client.close();
    await app.close();
    const muxUs = async (entries: number): Promise<number> => {
      const directory = new NodeDirectory();
      const apps = Array.from({ length: entries }, (_, i) => buildNodeApp(createLeaf(`leaf-${i}`, [prepareShard(0, tables[0]!, SCHEMA)]).handler, { name: `leaf-${i}`, directory }));
      const at = await apps[0]!.listen({ host: '127.0.0.1', port: 0 });
      const mux = new MultiplexClient(at, { connections: 1 });
      const kids = apps.map((_, i) => mux.child(`leaf-${i}`, [0]));
      // One plan object per round, shared by its entries, as a parent's gather sends its children.
      const us = await cpuPerCall(Math.ceil(n / (2 * entries)) + 5, () => {
        const r = leafReq();
        return Promise.all(kids.map((k) => drain(k.query(r, new AbortController().signal))));
      });
      await mux.close();
      await Promise.all(apps.map((a) => a.close()));
      return us / entries;
    };
    const mux10 = await muxUs(10);
    const mux50 = await muxUs(50);

    const m = Math.ceil(n / 4);
    const agg = {
      one: await aggregatorCost(1, 0, 1, m),
      ten: await aggregatorCost(10, 0, 1, m),
      groups: await aggregatorCost(10, 1000, 1, Math.ceil(m / 10)),
      prov: await aggregatorCost(10, 0, 100, Math.ceil(m / 4)),
    };
    const perChild = (agg.ten - agg.one) / 9;
    const perGroup = (agg.groups - agg.ten) / (10 * 1000);
    const perProv = (agg.prov - agg.ten) / (10 * 99);

    const catalog = catalogFromShards(SCHEMA, shardsFromRows(SCHEMA, Array.from({ length: 10 }, () => [['a', 1n]])));
    const rootReq = request(Array.from({ length: 10 }, (_, i) => i));
    const kids = decodingChildren(rootReq, Array.from({ length: 10 }, (_, i) => [i]), 0);
    const { root } = buildTree({ table: 't', catalog, depth: 1, leaf: (node) => kids[node.shards[0]!]! });
    const rootWarm = await cpuPerCall(m, () => root.query({ sql: SQL }, new AbortController().signal));
    // A new SQL text every call, warm-up included (a LIMIT no call has used), so the plan cache never hits.
    let fresh = 0;
    const rootCold = await cpuPerCall(Math.ceil(m / 2), () => root.query({ sql: `${SQL} LIMIT ${100_000 - fresh++}` }, new AbortController().signal));

    const rows: [string, number, string][] = [
      ['leaf: handler, fixed CPU per request (4-row shard)', leafUs, 'target <= 100 µs'],
      ['leaf: HTTP request, both ends (fastify + undici + JSON + Arrow), minus the handler', httpUs - leafUs, 'one request per leaf'],
      ['leaf: multiplexed request of 10 leaves, both ends, per leaf entry, minus the handler', mux10 - leafUs, 'one request per host'],
      ['leaf: multiplexed request of 50 leaves, both ends, per leaf entry, minus the handler', mux50 - leafUs, 'one request per host'],
      ['aggregator: one gather of 1 child (fixed + 1 frame)', agg.one, ''],
      ['aggregator: per child frame (10 vs 1 children)', perChild, 'target <= 50 µs'],
      ['aggregator: per group in a child frame (1,000 vs 0 groups)', perGroup, ''],
      ['aggregator: per provenance entry (100 vs 1 shards per child)', perProv, ''],
      ['root: per query over 10 children, plan cached', rootWarm, ''],
      ['root: per query, new SQL text (parse + plan)', rootCold, ''],
    ];
    const md = [
      `## cost: CPU per request by tier${opts.quick ? ' (quick)' : ''}`,
      '',
      `process.cpuUsage over ${n} leaf requests (${Math.ceil(n / 2)} over HTTP), ${m} aggregator gathers per case; plan \`${SQL}\`. µs of CPU; a busy machine inflates these.`,
      '',
      '| cost | µs CPU | note |',
      '| --- | ---: | --- |',
      ...rows.map(([k, v, note]) => `| ${k} | ${v.toFixed(1)} | ${note} |`),
    ].join('\n');
    return { name: 'cost', ok: true, markdown: md + '\n', data: { benchmark: 'cost', quick: opts.quick, reps: n, costsUs: Object.fromEntries(rows.map(([k, v]) => [k, round3(v)])) } };
  },
};
