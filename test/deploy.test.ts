/**
 * The docker-compose tree without Docker: every host of deploy/topology.json started as its
 * own `src/cli/serve.ts` process on loopback (addresses 127.0.0.1, free ports instead of
 * service names, the same nodes and replicas), then: answers are exact and equal to the
 * in-process tree over the same shards, every node answers /healthz and /metrics, the tree
 * token is enforced, and bad starts exit 1 with a coded message.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import { answerToJSON, type Topology } from '../src/root/index.ts';
import { preparedInProcessTree, type PreparedTree } from './helpers/prepared-tree.ts';

const SERVE = 'src/cli/serve.ts';
const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const CACHE = path.resolve('.canopy-cache');
const TOKEN = 'deploy-test-token';
const compose = JSON.parse(readFileSync('deploy/topology.json', 'utf8')) as Topology;

/** A run of `n` consecutive free loopback ports (tried at random bases). */
async function freePorts(n: number): Promise<number> {
  const tryPort = (p: number): Promise<boolean> =>
    new Promise((resolve) => {
      const s = createServer();
      s.once('error', () => resolve(false));
      s.listen(p, '127.0.0.1', () => s.close(() => resolve(true)));
    });
  for (let attempt = 0; attempt < 50; attempt++) {
    const base = 20_000 + Math.floor(Math.random() * 40_000);
    let ok = true;
    for (let i = 0; i < n && ok; i++) ok = await tryPort(base + i);
    if (ok) return base;
  }
  throw new Error(`no ${n} consecutive free ports`);
}

function serve(file: string, host: string, env: NodeJS.ProcessEnv): { proc: ChildProcess; out: () => string; exited: Promise<number | null> } {
  const proc = spawn(process.execPath, ['--import', 'tsx', SERVE, '--topology', file, '--host', host, '--cache-dir', CACHE], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  const exited = new Promise<number | null>((resolve) => proc.once('exit', (c) => resolve(c)));
  return { proc, out: () => out, exited };
}

async function until(what: string, ok: () => Promise<boolean>, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (await ok().catch(() => false)) return;
    await new Promise((r) => setTimeout(r, 200));
  }
  throw new Error(`timed out waiting for ${what}`);
}

let tmp = '';
let topology: Topology;
let file = '';
const procs: ReturnType<typeof serve>[] = [];
let inProcess: PreparedTree;
// The hosts read the tree token from a file, as the compose services and Kubernetes pods do (secrets).
const env = (): NodeJS.ProcessEnv => {
  const { CANOPY_TREE_TOKEN: _t, ...rest } = process.env;
  return { ...rest, CANOPY_TREE_TOKEN_FILE: path.join(tmp, 'tree-token'), HOST: '127.0.0.1', CANOPY_API_TOKEN: '' };
};
const nodeUrls = (): [string, string][] => topology.hosts.flatMap((h) => h.nodes.map((n, i): [string, string] => [n, `http://127.0.0.1:${h.port + i}`]));
const rootUrl = (): string => `http://127.0.0.1:${topology.hosts.find((h) => h.name === 'root')!.port}`;

beforeAll(async () => {
  tmp = mkdtempSync(path.join(tmpdir(), 'canopy-deploy-'));
  writeFileSync(path.join(tmp, 'tree-token'), `${TOKEN}\n`);
  // The same shards as every container prepares (prepared once here; the hosts reuse them).
  inProcess = await preparedInProcessTree({ path: DEFAULT_DATA_PATH, table: compose.table, shards: compose.shards, partition: { kind: 'hash' }, cacheDir: CACHE, fanout: compose.fanout });
  const hosts = [];
  for (const h of compose.hosts) hosts.push({ ...h, address: '127.0.0.1', port: await freePorts(h.nodes.length) });
  topology = { ...compose, hosts };
  file = path.join(tmp, 'topology.json');
  writeFileSync(file, JSON.stringify(topology));
  for (const h of topology.hosts) procs.push(serve(file, h.name, env()));
  // Like compose's healthchecks: each host's last node answers /healthz once the host is up.
  await until(
    'every host to be healthy',
    async () => {
      for (const p of procs) if (p.proc.exitCode !== null) throw new Error(`a host exited: ${p.out()}`);
      const checks = await Promise.all(topology.hosts.map((h) => fetch(`http://127.0.0.1:${h.port + h.nodes.length - 1}/healthz`).then((r) => r.ok)));
      return checks.every(Boolean);
    },
    100_000,
  );
}, 150_000);

afterAll(async () => {
  for (const p of procs) p.proc.kill('SIGTERM');
  await Promise.all(procs.map((p) => p.exited));
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

const QUERIES = [
  'SELECT count(*) AS n, sum(distance) AS miles, min(date) AS first, max(delay) AS worst FROM flights',
  'SELECT origin, count(*) AS n, avg(delay) AS d FROM flights GROUP BY origin ORDER BY origin',
  "SELECT destination, count(*) AS n FROM flights WHERE origin = 'ORD' GROUP BY destination ORDER BY n DESC, destination LIMIT 5",
  'SELECT count(DISTINCT destination) AS dests FROM flights',
];

describe('the compose topology as processes on loopback', () => {
  it.each(QUERIES)('answers exact and equal to the in-process tree: %s', async (sql) => {
    const res = await fetch(`${rootUrl()}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, deadline_ms: 60_000 }) });
    const body = (await res.json()) as { label: string; rows: unknown[]; columns: unknown[]; coverage: { answered: number } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const want = answerToJSON(await inProcess.root.query({ sql }, new AbortController().signal)) as { label: string; rows: unknown[]; columns: unknown[] };
    expect(want.label).toBe('exact');
    expect(body.label).toBe('exact');
    expect(body.coverage.answered).toBe(compose.shards);
    expect(body.columns).toEqual(want.columns);
    expect(body.rows).toEqual(want.rows);
  });

  it('every node answers /healthz; one /metrics per process covers all its nodes and passes `promtool check metrics`', async () => {
    for (const [name, url] of nodeUrls()) expect((await fetch(`${url}/healthz`)).status, name).toBe(200);
    const names = new Set<string>();
    const labelNames = new Set<string>();
    for (const h of topology.hosts) {
      const text = await (await fetch(`http://127.0.0.1:${h.port}/metrics`)).text();
      // Every port of the process serves the same process-wide registry.
      const again = await (await fetch(`http://127.0.0.1:${h.port + h.nodes.length - 1}/metrics`)).text();
      expect(again.split('\n').filter((l) => l.startsWith('# TYPE')), h.name).toEqual(text.split('\n').filter((l) => l.startsWith('# TYPE')));
      const role = h.name === 'root' ? 'root' : h.name.startsWith('leaves-') ? 'leaf' : 'aggregator';
      // prom-client's standard process metrics under their standard names, labelled with the process.
      for (const m of ['process_resident_memory_bytes', 'process_cpu_seconds_total', 'nodejs_heap_size_used_bytes', 'nodejs_eventloop_lag_p99_seconds']) expect(text, `${h.name} ${m}`).toMatch(new RegExp(`^${m}\\{process="${h.name}",role="${role}"\\} `, 'm'));
      expect(text).toMatch(new RegExp(`^canopy_build_info\\{version="\\d+\\.\\d+\\.\\d+",revision="[^"]+",nodejs_version="v20[^"]*",process="${h.name}",role="${role}"\\} 1$`, 'm'));
      // Every logical node of the process, as a label of the node metrics.
      for (const n of h.nodes) expect(text, `${h.name}: node ${n}`).toContain(n === 'root' ? 'canopy_early_stops_total{node="root",' : `canopy_node_requests_in_flight{node="${n}",`);
      const want = role === 'root' ? 'canopy_queries_total' : role === 'leaf' ? 'canopy_leaf_rows_scanned_total' : 'canopy_early_stops_total';
      expect(text, h.name).toContain(want);
      if (has('promtool')) {
        const check = spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
        expect(check.status, `${h.name}: ${check.stdout}${check.stderr}`).toBe(0);
        expect(check.stdout + check.stderr, h.name).toBe('');
      }
      for (const m of text.matchAll(/^# TYPE (\S+) /gm)) names.add(m[1]!);
      for (const m of text.matchAll(/[{,]([a-z_]+)="/g)) labelNames.add(m[1]!);
    }
    if (!has('promtool')) console.warn('promtool not installed (Debian package prometheus): `promtool check metrics` skipped');
    // The aggregators above replicated leaves keep tail control counters, by node and zone.
    const agg = topology.hosts.find((h) => h.nodes.includes('agg-0'))!;
    expect(await (await fetch(`http://127.0.0.1:${agg.port}/metrics`)).text()).toMatch(/canopy_tail_replica_requests_total\{node="agg-0",zone="[ab]",process="aggregators-\d",role="aggregator"\} \d+/);
    // The alert rules and the Grafana dashboard use only metrics the tree exports.
    const used = (text: string): string[] => [...new Set([...text.matchAll(/\b((?:canopy|process|nodejs)_[a-z0-9_]+)/g)].map((m) => m[1]!.replace(/_(bucket|sum|count)$/, '')))];
    for (const file of ['deploy/alerts.yml', 'deploy/grafana-dashboard.json']) for (const m of used(readFileSync(file, 'utf8'))) if (!labelNames.has(m)) expect(names, `${file}: ${m}`).toContain(m);
  });

  it('refuses a partial request without the tree token (401) and runs nothing', async () => {
    const [, leaf] = nodeUrls().find(([n]) => n.startsWith('leaf-'))!;
    const res = await fetch(`${leaf}/v1/partial`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
    expect(res.status).toBe(401);
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('CANOPY_ERR_UNAUTHORIZED');
  });

  it('exits 1 with a coded message for an unknown host, a bad topology file, or no tree token', async () => {
    const bad = path.join(tmp, 'bad.json');
    writeFileSync(bad, JSON.stringify({ ...topology, fanout: 'wide' }));
    const { CANOPY_TREE_TOKEN_FILE: _t, ...noToken } = env();
    const empty = path.join(tmp, 'empty-token');
    writeFileSync(empty, '\n');
    // Started together: each pays the same start-up, none needs the others.
    const [unknown, badRun, tokenless, emptyFile] = [serve(file, 'leaves-z9', env()), serve(bad, 'root', env()), serve(file, 'root', noToken), serve(file, 'root', { ...noToken, CANOPY_TREE_TOKEN_FILE: empty })];
    expect(await unknown.exited).toBe(1);
    expect(unknown.out()).toMatch(/canopy: CANOPY_ERR_BAD_REQUEST: topology: no host 'leaves-z9'; hosts are root, aggregators-0/);
    expect(await badRun.exited).toBe(1);
    expect(badRun.out()).toMatch(/CANOPY_ERR_BAD_REQUEST: topology: fanout must be an integer/);
    expect(await tokenless.exited).toBe(1);
    expect(tokenless.out()).toMatch(/CANOPY_ERR_BAD_REQUEST: set CANOPY_TREE_TOKEN/);
    expect(tokenless.out()).not.toContain(TOKEN);
    // A token file that is meant to be there but is empty stops the start too.
    expect(await emptyFile.exited).toBe(1);
    expect(emptyFile.out()).toMatch(/CANOPY_ERR_BAD_REQUEST: CANOPY_TREE_TOKEN_FILE names .*empty-token, which is empty/);
  });
});
