/**
 * `npm run bench -- hungleaf`: one hung leaf costs only its own shard. The default tree
 * (100 shards, fan-out 10) with shards 40 and 41 hung (`{"shards":[40,41],"hang":1}`):
 * without replicas; with `--replicas 2 --hedge` and the hang in zone a only (the replica in
 * zone b is healthy: every shard must be answered, by hedge or fail-over); and with
 * replicas hung in both zones. 10 warm-up queries, then 50 `SELECT count(*)` with
 * deadline_ms 3000 (above the healthy tree's latency on this shared machine); reported: queries whose missing shards go beyond the hung ones (a
 * healthy shard lost, e.g. a whole aggregator), and with the healthy replica, queries not
 * fully answered.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import { fmtMs, nearestRank, round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';

const HUNG = [40, 41];
const DEADLINE_MS = 3000;

const CASES = [
  { id: 'no-replicas', what: 'no replicas', replicas: 1, zones: null as string[] | null, expectMissing: HUNG },
  { id: 'replicas-zone-a', what: '2 replicas, hedging, hang in zone a only', replicas: 2, zones: ['a'], expectMissing: [] as number[] },
  { id: 'replicas-both', what: '2 replicas, hedging, hang in both zones', replicas: 2, zones: null, expectMissing: HUNG },
];

async function run(opts: BenchOptions): Promise<BenchReport> {
  const warmup = opts.quick ? 3 : 10;
  const n = opts.quick ? 10 : 50;
  const results = [];
  // CANOPY_HUNGLEAF_ONLY=id,id runs only those cases (while working on one of them).
  const only = process.env.CANOPY_HUNGLEAF_ONLY?.split(',');
  for (const c of CASES.filter((x) => only === undefined || only.includes(x.id))) {
    const file = path.join(os.tmpdir(), `canopy-hungleaf-${process.pid}-${c.id}.json`);
    writeFileSync(file, JSON.stringify({ rules: [{ shards: HUNG, hang: 1, ...(c.zones === null ? {} : { zones: c.zones }) }] }));
    const tree = await startLocalTree({
      data: DEFAULT_DATA_PATH,
      table: 'flights',
      shards: 100,
      partition: { kind: 'hash' },
      fanout: 10,
      port: 0,
      cacheDir: path.resolve('.canopy-cache'),
      faults: file,
      replicas: c.replicas,
      ...(c.replicas > 1 ? { tail: { hedge: {}, ejection: {} } } : {}),
    });
    const samples: { missing: number[]; ms: number; error: string | null; why: string[] }[] = [];
    try {
      for (let i = 0; i < warmup + n; i++) {
        const t0 = performance.now();
        const res = await fetch(`${tree.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) FROM flights', deadline_ms: DEADLINE_MS }) });
        type Missing = { shard: number; path: string; error?: { code: string; message: string } };
        const body = (await res.json()) as { error?: { code: string; details?: { missing?: Missing[] } }; missing?: Missing[] };
        const all = body.missing ?? body.error?.details?.missing ?? [];
        const missing = all.map((m) => m.shard).sort((a, b) => a - b);
        // Why the shards beyond the hung ones were missing: path and error, numbers blanked.
        const why = [...new Set(all.filter((m) => !HUNG.includes(m.shard)).map((m) => `${m.path.replace(/leaf-\d+/, 'leaf-N')}: ${m.error?.code}: ${(m.error?.message ?? '').replace(/\d+/g, 'N')}`))];
        if (i >= warmup) samples.push({ missing, ms: performance.now() - t0, error: body.error?.code ?? null, why });
      }
    } finally {
      await tree.close();
    }
    const expected = c.expectMissing.join(',');
    const healthyLost = samples.filter((s) => s.missing.some((m) => !HUNG.includes(m)) || s.error !== null).length;
    const notAsExpected = samples.filter((s) => s.missing.join(',') !== expected).length;
    const ms = samples.map((s) => s.ms).sort((a, b) => a - b);
    results.push({ id: c.id, what: c.what, queries: samples.length, healthyLost, notAsExpected, expectedMissing: c.expectMissing, p50Ms: round3(nearestRank(ms, 0.5)), p99Ms: round3(nearestRank(ms, 0.99)), worst: samples.filter((s) => s.missing.join(',') !== expected).slice(0, 3) });
    console.error(`hungleaf: ${c.id}: ${healthyLost}/${samples.length} queries lost a healthy shard, ${notAsExpected} not exactly missing [${expected}]; first: ${JSON.stringify(results.at(-1)!.worst)}`);
  }
  const md = [
    '## hungleaf: one hung leaf costs only its own shard',
    '',
    `Default tree, shards ${HUNG.join(' and ')} hung, ${warmup} warm-up queries then ${n} \`SELECT count(*) FROM flights\` with deadline_ms ${DEADLINE_MS}, one at a time. Load average at the end ${os.loadavg().map((x) => x.toFixed(1)).join(' / ')} (shared machine).`,
    '',
    '| case | queries | lost a healthy shard | missing other than expected | expected missing | p50 / p99 (ms) |',
    '| --- | ---: | ---: | ---: | --- | ---: |',
    ...results.map((r) => `| ${r.what} | ${r.queries} | ${r.healthyLost} | ${r.notAsExpected} | ${r.expectedMissing.length === 0 ? 'none' : r.expectedMissing.join(', ')} | ${fmtMs(r.p50Ms)} / ${fmtMs(r.p99Ms)} |`),
    '',
  ].join('\n');
  return { name: 'hungleaf', data: { deadlineMs: DEADLINE_MS, hung: HUNG, cases: results }, markdown: md, ok: results.every((r) => r.notAsExpected === 0) };
}

export const hungleaf: BenchModule = { description: 'hung leaves with and without replicas: no healthy shard lost, every shard answered with a healthy replica', run };
