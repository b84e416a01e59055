/**
 * `npm run query` (src/cli/query.ts) against a root started in-process on a free port: the
 * aligned table with `value [lo, hi] label` cells, the label / coverage / missing summary,
 * --json, --arrow, the exit code of an error, and the progress bar on a (fake) terminal.
 */
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runQueryCli } from '../src/cli/query.ts';
import { withFaults } from '../src/leaf/index.ts';
import { buildRootApp } from '../src/root/index.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS, shardOf, throwingHandler } from './helpers/flights.ts';
import { inProcessRoot } from './helpers/tree.ts';

const CLI = 'src/cli/query.ts';

function runCli(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', CLI, ...args], { cwd: process.cwd(), timeout: 60_000 }, (err, stdout, stderr) => {
      const code = err === null ? 0 : typeof err.code === 'number' ? err.code : -1;
      resolve({ code, stdout, stderr });
    });
  });
}

const apps: FastifyInstance[] = [];
let exactUrl = '';
let failedUrl = '';
let slowUrl = '';
let tmp = '';

beforeAll(async () => {
  // Exact: every shard answers. Failed: shard 2 throws, so its cells are bounded.
  const exact = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
  const failed = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, wrap: (leaf) => (shardOf(leaf) === 2 ? throwingHandler('disk on fire') : leaf.handler) });
  const slow = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, {
    fanout: 3,
    wrap: (leaf) => (shardOf(leaf) === 5 ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [5], latency: { kind: 'fixed', ms: 600 } }] }) : leaf.handler),
  });
  const listen = async (root: typeof exact.root, snapshotIntervalMs?: number): Promise<string> => {
    const app = buildRootApp(root, snapshotIntervalMs === undefined ? {} : { snapshotIntervalMs });
    apps.push(app);
    return app.listen({ host: '127.0.0.1', port: 0 });
  };
  exactUrl = await listen(exact.root);
  failedUrl = await listen(failed.root);
  slowUrl = await listen(slow.root, 20);
  tmp = mkdtempSync(join(tmpdir(), 'canopy-cli-'));
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
  if (tmp !== '') rmSync(tmp, { recursive: true, force: true });
});

const GROUPED = 'SELECT origin, count(*) AS n, sum(distance) AS miles FROM flights GROUP BY origin ORDER BY origin';

describe('npm run query', () => {
  // Shard 4 is empty: its zone map prunes it (covered, nothing to add).
  it('prints an aligned table, the label and full coverage of an exact answer', async () => {
    const { code, stdout, stderr } = await runCli(['--url', exactUrl, GROUPED]);
    expect(stderr).toBe('');
    expect(code).toBe(0);
    const lines = stdout.split('\n');
    expect(lines[0]).toMatch(/^origin\s+n\s+miles$/);
    expect(lines[1]).toMatch(/^-+ {2}-+ {2}-+$/);
    // Numbers right-aligned under their header: every row ends at the same column.
    const rows = lines.slice(2, 2 + 5);
    expect(rows.map((r) => r.split(/\s+/)[0])).toEqual(['JFK', 'LAX', 'ORD', 'SEA', 'SFO']);
    expect(new Set([lines[0]!.length, ...rows.map((r) => r.length)]).size).toBe(1);
    expect(rows[2]).toMatch(/^ORD\s+2\s+3000$/);
    expect(stdout).toContain('(6 rows)');
    expect(stdout).toContain('label: exact');
    expect(stdout).toContain('coverage: 5/6 shards answered, 1 pruned, 0 omitted, 0 failed');
    expect(stdout).not.toContain('missing:');
  });

  it('shows [lo, hi] and the label of each bounded cell, and names the missing shard', async () => {
    const { code, stdout } = await runCli(['--url', failedUrl, '--trace', 'SELECT count(*) AS n, sum(delay) AS s, max(delay) AS worst FROM flights']);
    expect(code).toBe(0);
    const [header, rule, row] = stdout.split('\n');
    expect(header).toMatch(/n\s+s\s+worst$/);
    expect(rule).toMatch(/^-+ {2}-+ {2}-+$/);
    // Shard 2 (1 row, delay 40) failed: count within [10, 11], sum within [seen, seen + 40].
    expect(row).toMatch(/^10 \[10, 11\] bounded {2}134 \[134, 174\] bounded\s+120$/);
    expect(stdout).toContain('label: bounded');
    expect(stdout).toContain('coverage: 4/6 shards answered, 1 pruned, 0 omitted, 1 failed');
    expect(stdout).toMatch(/missing: 1 shard\n {2}root\/agg-\d+\/leaf-2 {2}shard 2 {2}failed {2}CANOPY_ERR_\w+: .*disk on fire/);
    expect(stdout).toMatch(/stragglers \(the last child of each gather; longest wait first\):\n {2}root/);
  });

  it('--json prints the final answer as the root sends it', async () => {
    const { code, stdout } = await runCli(['--url', failedUrl, '--json', '--deadline', '5000', GROUPED]);
    expect(code).toBe(0);
    const a = JSON.parse(stdout) as { final: boolean; label: string; rows: unknown[][]; coverage: Record<string, number>; missing: { shard: number; reason: string }[]; cells: unknown[][] };
    expect(a.final).toBe(true);
    expect(a.label).toBe('approximate');
    expect(a.coverage).toMatchObject({ shards: 6, answered: 4, pruned: 1, failed: 1 });
    expect(a.missing).toEqual([expect.objectContaining({ shard: 2, reason: 'failed' })]);
    expect(a.rows.length).toBeGreaterThan(0);
    expect(a.cells.length).toBe(a.rows.length);
  });

  it('--arrow writes the Arrow answer and prints its table from the schema metadata', async () => {
    const file = join(tmp, 'answer.arrow');
    const { code, stdout, stderr } = await runCli(['--url', failedUrl, '--arrow', file, 'SELECT count(*) AS n FROM flights']);
    expect(code).toBe(0);
    expect(existsSync(file)).toBe(true);
    expect(stderr).toContain(`wrote the Arrow answer`);
    expect(stdout.split('\n')[2]).toBe('10 [10, 11] bounded');
    expect(stdout).toContain('label: bounded');
    expect(stdout).toContain('coverage: 4/6 shards answered, 1 pruned');
  });

  it('an error prints its code and message and exits 1', async () => {
    const bad = await runCli(['--url', exactUrl, 'SELECT nope FROM flights']);
    expect(bad.code).toBe(1);
    expect(bad.stdout).toBe('');
    expect(bad.stderr).toMatch(/^canopy: CANOPY_ERR_UNKNOWN_COLUMN: .*nope/);
    const syntax = await runCli(['--url', exactUrl, 'SELEC 1']);
    expect(syntax.code).toBe(1);
    expect(syntax.stderr).toMatch(/^canopy: CANOPY_ERR_BAD_QUERY: .*line 1, column/);
  });

  it('takes the root from CANOPY_URL (else PORT) and sends CANOPY_API_TOKEN as a bearer token', async () => {
    const locked = buildRootApp(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS).root, { apiToken: 'cli-secret' });
    const url = await locked.listen({ host: '127.0.0.1', port: 0 });
    const run = async (env: Record<string, string>): Promise<{ code: number; out: string; err: string }> => {
      const out: string[] = [];
      const err: string[] = [];
      for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v);
      try {
        const code = await runQueryCli(['SELECT count(*) AS n FROM flights'], { stdout: (x) => out.push(x), stderr: (x) => err.push(x), progress: false });
        return { code, out: out.join(''), err: err.join('') };
      } finally {
        vi.unstubAllEnvs();
      }
    };
    try {
      const ok = await run({ CANOPY_URL: url, CANOPY_API_TOKEN: 'cli-secret' });
      expect(ok.code, ok.err).toBe(0);
      expect(ok.out).toMatch(/label: exact/);
      const refused = await run({ CANOPY_URL: url, CANOPY_API_TOKEN: '' });
      expect(refused.code).toBe(1);
      expect(refused.err).toMatch(/CANOPY_ERR_UNAUTHORIZED/);
      const byPort = await run({ CANOPY_URL: '', PORT: new URL(url).port, CANOPY_API_TOKEN: 'cli-secret' });
      expect(byPort.code, byPort.err).toBe(0);
    } finally {
      await locked.close();
    }
  });

  it('an unreachable root, a bad option and a missing SQL argument exit 1', async () => {
    // A port that was just free: nothing listens there.
    const probe = buildRootApp(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS).root);
    const url = await probe.listen({ host: '127.0.0.1', port: 0 });
    await probe.close();
    const io = (): { out: string[]; err: string[]; io: Parameters<typeof runQueryCli>[1] } => {
      const out: string[] = [];
      const err: string[] = [];
      return { out, err, io: { stdout: (s) => out.push(s), stderr: (s) => err.push(s), progress: false } };
    };
    const a = io();
    expect(await runQueryCli(['--url', url, 'SELECT count(*) FROM flights'], a.io)).toBe(1);
    expect(a.err.join('')).toMatch(/^canopy: ECONNREFUSED: cannot reach the root at/);
    const b = io();
    expect(await runQueryCli(['--frobnicate', 'SELECT 1'], b.io)).toBe(1);
    expect(b.err.join('')).toMatch(/^canopy: CANOPY_ERR_BAD_REQUEST: .*frobnicate[\s\S]*usage: npm run query/);
    const c = io();
    expect(await runQueryCli(['--url', exactUrl], c.io)).toBe(1);
    expect(c.err.join('')).toContain('give the SQL as an argument');
    const d = io();
    expect(await runQueryCli(['--deadline', 'soon', 'SELECT 1'], d.io)).toBe(1);
    expect(d.err.join('')).toContain('--deadline must be a positive number');
  });

  it('draws a one-line progress bar on a terminal while snapshots arrive, then clears it', async () => {
    const out: string[] = [];
    const err: string[] = [];
    const code = await runQueryCli(['--url', slowUrl, 'SELECT count(*) AS n FROM flights'], { stdout: (s) => out.push(s), stderr: (s) => err.push(s), progress: true, columns: 100 });
    expect(code).toBe(0);
    const bars = err.filter((s) => s.includes('shards answered'));
    expect(bars.length).toBeGreaterThan(0);
    // Drawn in place (carriage return, erase line), within the terminal's width.
    for (const b of bars) {
      expect(b.startsWith('\r\x1b[2K[')).toBe(true);
      expect(b.length - '\r\x1b[2K'.length).toBeLessThan(100);
    }
    expect(bars.some((b) => /\d\/6 shards answered · \d+ pending/.test(b))).toBe(true);
    expect(err[err.length - 1]).toBe('\r\x1b[2K');
    expect(out.join('')).toContain('label: exact');
  });
});
