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
 *
 * `--real` (results in cost-real.*): the same costs in the real multi-process tree, in both
 * placements of `npm start` (100 hash shards, fan-out 10, the root alone): `tiers` (leaves in
 * 2 processes, the 10 aggregators in 1, every hop over HTTP: a leaf request and a child frame
 * apart) and `subtrees` (2 processes of aggregators with their leaves, answered in-process: a
 * leaf's request and its frame's merge together), read as user+system CPU of each tier's host processes
 * from /proc around N queries: everything a host spends (HTTP, multiplexing, framing,
 * timers, metrics, GC) counts. A 400-row table (4 rows a shard, so the scans cost nothing)
 * gives a leaf host's CPU per leaf request and the aggregator host's per child frame; the
 * bundled flights data (3M rows) the same for the e2e bench's q1 (totals) and q10 (LIMIT 10).
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Agent, request as httpRequest } from 'undici';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH, shardsFromRows, catalogFromShards } from '../src/data/index.ts';
import { createAggregator } from '../src/aggregator/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { decodeFrame, encodeFrame, layoutOf, type Frame, type Scalar, type ShardStatus, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, buildTree, planQuery } from '../src/root/index.ts';
import { MultiplexClient, NodeDirectory, buildNodeApp, httpChild, type Child, type ChildRequest } from '../src/transport/index.ts';
import { round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';
import { tierCpu, type Tier } from './e2e.ts';

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

/** Shards and fan-out of the real tree (as `npm start`). */
const REAL_SHARDS = 100;
const REAL_FANOUT = 10;

/** One measured query shape of the real tree: CPU ms per query by tier over `n` queries. */
interface RealCase {
  readonly label: string;
  readonly placement: Placement;
  readonly sql: string;
  readonly n: number;
  readonly cpuMs: Record<Tier, number>;
  readonly clientMs: number;
}

/** Runs `sql` `warm` + `n` times on `tree`; CPU ms per query by tier (from /proc, 10 ms ticks summed over all n), client wall ms p50. */
async function realCase(tree: LocalTree, placement: Placement, agent: Agent, label: string, sql: string, n: number, warm: number): Promise<RealCase> {
  const ask = async (): Promise<number> => {
    const t0 = performance.now();
    const res = await httpRequest(`${tree.url}/v1/query`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
    const body = (await res.body.json()) as { label?: string; error?: { message?: string } };
    if (res.statusCode !== 200 || body.label !== 'exact') throw new Error(`cost --real: ${sql} answered HTTP ${res.statusCode} ${body.label ?? body.error?.message ?? ''}`);
    return performance.now() - t0;
  };
  for (let i = 0; i < warm; i++) await ask();
  const c0 = tierCpu(tree);
  const ms: number[] = [];
  for (let i = 0; i < n; i++) ms.push(await ask());
  const c1 = tierCpu(tree);
  ms.sort((a, b) => a - b);
  const per = (t: Tier): number => (c1[t] - c0[t]) / n;
  return { label, placement, sql, n, cpuMs: { leaf: per('leaf'), aggregator: per('aggregator'), root: per('root') }, clientMs: ms[Math.floor(n / 2)]! };
}

type Placement = 'tiers' | 'subtrees';

/** A tree as `npm start --placement <placement>` lays it out over `data`. */
function realTree(data: string, table: string, placement: Placement): Promise<LocalTree> {
  return startLocalTree({ data, table, shards: REAL_SHARDS, partition: { kind: 'hash' }, fanout: REAL_FANOUT, port: 0, cacheDir: path.resolve('.canopy-cache'), leafProcesses: 2, aggregatorProcesses: 1, placement });
}

/** `cost --real`: the per-request costs in the real multi-process tree (see the module comment). */
async function realCost(opts: BenchOptions): Promise<BenchReport> {
  const n = opts.quick ? 30 : Math.max(30, Math.min(opts.reps, 300));
  const warm = Math.max(5, Math.ceil(n / 10));
  const agent = new Agent({ connections: 1 });
  const cases: RealCase[] = [];
  const csv = path.join(os.tmpdir(), `canopy-cost-real-${process.pid}.csv`);
  writeFileSync(csv, ['g,v', ...Array.from({ length: 4 * REAL_SHARDS }, (_, i) => `${'abcd'[i % 4]},${i}`)].join('\n') + '\n');
  try {
    for (const placement of ['tiers', 'subtrees'] as const) {
      const tiny = await realTree(csv, 't', placement);
      try {
        cases.push(await realCase(tiny, placement, agent, `${SQL} (4 rows a shard)`, SQL, n, warm));
      } finally {
        await tiny.close();
      }
      const flights = await realTree(DEFAULT_DATA_PATH, 'flights', placement);
      try {
        cases.push(await realCase(flights, placement, agent, 'e2e q1: totals over flights (30k rows a shard)', 'SELECT count(*), sum(delay), min(delay), max(delay), avg(delay) FROM flights', n, warm));
        cases.push(await realCase(flights, placement, agent, 'e2e q10: LIMIT 10 rows over flights', 'SELECT origin, delay FROM flights LIMIT 10', n, warm));
      } finally {
        await flights.close();
      }
    }
  } finally {
    await agent.close();
  }
  const us = (ms: number): string => (ms * 1000).toFixed(1);
  const md = [
    `## cost --real: CPU per request in the real multi-process tree${opts.quick ? ' (quick)' : ''}`,
    '',
    `${REAL_SHARDS} hash shards, fan-out ${REAL_FANOUT}, loopback HTTP, in both placements of \`npm start\`: **tiers** (the root, ${REAL_FANOUT} aggregators in 1 process, ${REAL_SHARDS} leaves in 2 processes, every hop over HTTP) and **subtrees** (the default: 2 processes each holding ${REAL_FANOUT / 2} aggregators with their leaves, which answer them in-process). User+system CPU of each tier's host processes from /proc (10 ms ticks) over ${n} queries after ${warm} warm-up, per query; then per leaf request (leaf tier / ${REAL_SHARDS}) and per child frame (aggregator tier / ${REAL_SHARDS} leaf answers; it also pays its ${REAL_FANOUT} gathers and replies). With subtrees a leaf's request and its frame's merge run in one process, so they are given together (µs per leaf, request + frame). Everything a host spends counts: HTTP, multiplexing, framing, timers, metrics, GC, and the scans. A busy machine inflates these.`,
    '',
    '| placement | query | client p50 ms | leaf tier ms / query | µs per leaf request | aggregator tier ms / query | µs per child frame | µs per leaf, request + frame | root ms / query |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...cases.map((c) => {
      const split = c.placement === 'tiers';
      return `| ${c.placement} | ${c.label} | ${c.clientMs.toFixed(1)} | ${split ? c.cpuMs.leaf.toFixed(2) : '–'} | ${split ? us(c.cpuMs.leaf / REAL_SHARDS) : '–'} | ${c.cpuMs.aggregator.toFixed(2)} | ${split ? us(c.cpuMs.aggregator / REAL_SHARDS) : '–'} | ${us((c.cpuMs.leaf + c.cpuMs.aggregator) / REAL_SHARDS)} | ${c.cpuMs.root.toFixed(2)} |`;
    }),
    '',
    'Targets (issue #15): a leaf\'s fixed CPU per request <= 100 µs (the 4-row row), an aggregator\'s per child frame <= 50 µs (together <= 150 µs per leaf).',
  ].join('\n');
  const data = { benchmark: 'cost-real', quick: opts.quick, queries: n, cases: cases.map((c) => ({ placement: c.placement, label: c.label, sql: c.sql, clientMsP50: round3(c.clientMs), cpuMsPerQuery: { leaf: round3(c.cpuMs.leaf), aggregator: round3(c.cpuMs.aggregator), root: round3(c.cpuMs.root) }, usPerLeafRequest: round3((c.cpuMs.leaf * 1000) / REAL_SHARDS), usPerChildFrame: round3((c.cpuMs.aggregator * 1000) / REAL_SHARDS) })) };
  return { name: 'cost-real', ok: true, markdown: md + '\n', data };
}

/** The `cost` benchmark module. */
export const cost: BenchModule = {
  description: 'per-request CPU by tier (leaf, aggregator, root): fixed, per child frame, per group, per provenance entry',
  defaults: { full: { reps: 4000, warmup: 1 }, quick: { reps: 200, warmup: 1 } },
  async run(opts: BenchOptions): Promise<BenchReport> {
    if (opts.real === true) return realCost(opts);
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
