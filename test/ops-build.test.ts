/**
 * The production build: `node scripts/build.mjs` (what `npm run build` runs) compiles src/
 * to JavaScript, and the image's entry point runs from it on plain node, without tsx: a guard
 * loaded into every process (the launcher and its forked host workers, via NODE_OPTIONS)
 * fails any load of tsx or of a .ts file. The tree it starts answers like the in-process
 * tree over the same data, serves the dashboard's static files from the build, passes
 * `promtool check metrics`, and a second start on the same port fails with
 * CANOPY_ERR_PORT_IN_USE. Built into dist-test/ (not dist/, which `npm run build` owns).
 */
import { execFileSync, spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { answerToJSON } from '../src/root/index.ts';
import { preparedInProcessTree } from './helpers/prepared-tree.ts';

const OUT = 'dist-test';
const DATA = path.resolve('test/fixtures/data/csv-dir');
const GUARD = `--import=${pathToFileURL(path.resolve('test/fixtures/no-tsx.mjs')).href}`;
const cache = mkdtempSync(path.join(tmpdir(), 'canopy-build-'));

interface Started {
  readonly proc: ChildProcess;
  readonly out: () => string;
  readonly exited: Promise<number | null>;
}

function start(port: number): Started {
  const { NODE_OPTIONS: _n, ...env } = process.env;
  const proc = spawn(process.execPath, [path.join(OUT, 'cli', 'start.js'), '--data', DATA, '--table', 't', '--shards', '4', '--leaf-processes', '1', '--cache-dir', cache], {
    env: { ...env, PORT: String(port), NODE_OPTIONS: GUARD, CANOPY_API_TOKEN: '' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let out = '';
  proc.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  proc.stderr!.on('data', (b: Buffer) => (out += b.toString()));
  return { proc, out: () => out, exited: new Promise((resolve) => proc.once('exit', (c) => resolve(c))) };
}

let tree: Started;
let url = '';

beforeAll(async () => {
  execFileSync(process.execPath, ['scripts/build.mjs', OUT], { stdio: 'pipe' });
  tree = start(0);
  const end = Date.now() + 60_000;
  while (!/serving table 't' .* at (http:\/\/\S+)/.test(tree.out())) {
    if (tree.proc.exitCode !== null || Date.now() > end) throw new Error(`the compiled tree did not start:\n${tree.out()}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  url = /serving table 't' .* at (http:\/\/\S+)/.exec(tree.out())![1]!;
}, 180_000);

afterAll(async () => {
  tree?.proc.kill('SIGINT');
  await tree?.exited;
  rmSync(cache, { recursive: true, force: true });
  rmSync(OUT, { recursive: true, force: true });
});

describe('the compiled build (node dist/cli/start.js)', () => {
  it('emits JavaScript only, with the dashboard files next to it', () => {
    for (const f of ['cli/start.js', 'cli/serve.js', 'cli/host-worker.js', 'root/public/index.html']) expect(existsSync(path.join(OUT, f)), f).toBe(true);
    expect(existsSync(path.join(OUT, 'cli', 'start.ts'))).toBe(false);
  });

  it('answers on plain node, equal to the in-process tree over the same data', async () => {
    const sql = 'SELECT origin, count(*) AS n, sum(distance) AS d FROM t GROUP BY origin ORDER BY origin';
    const res = await fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql }) });
    const body = (await res.json()) as { label: string; rows: unknown[] };
    expect(res.status, JSON.stringify(body)).toBe(200);
    const inProcess = await preparedInProcessTree({ path: DATA, table: 't', shards: 4, partition: { kind: 'hash' }, cacheDir: cache, fanout: 10 });
    const want = answerToJSON(await inProcess.root.query({ sql }, new AbortController().signal)) as { label: string; rows: unknown[] };
    expect(want.label).toBe('exact');
    expect(body.label).toBe('exact');
    expect(body.rows).toEqual(want.rows);
    expect(tree.out()).not.toMatch(/loaded tsx|TypeScript source/);
  });

  it('serves /healthz, the dashboard and uPlot from the build, and metrics that pass promtool', async () => {
    expect((await fetch(`${url}/healthz`)).status).toBe(200);
    expect(await (await fetch(`${url}/`)).text()).toContain('<html');
    expect((await fetch(`${url}/vendor/uplot.js`)).status).toBe(200);
    const metrics = await (await fetch(`${url}/metrics`)).text();
    expect(metrics).toMatch(/^canopy_build_info\{version="0\.1\.0",/m);
    if (spawnSync('sh', ['-c', 'command -v promtool']).status === 0) {
      const check = spawnSync('promtool', ['check', 'metrics'], { input: metrics, encoding: 'utf8' });
      expect(check.status, check.stdout + check.stderr).toBe(0);
    }
  });

  it('a second start on the same port stops with CANOPY_ERR_PORT_IN_USE, exit 1', async () => {
    const again = start(Number(new URL(url).port));
    expect(await again.exited).toBe(1);
    expect(again.out()).toMatch(/canopy: CANOPY_ERR_PORT_IN_USE: root cannot listen on 127\.0\.0\.1:\d+: the port is in use/);
  });
});
