/**
 * Placement `subtrees` (npm start's default): each host process holds whole top-level subtrees,
 * aggregators with their leaves, which answer them in-process (`localChild`); only the root's
 * hop crosses processes. Over real processes, with injected faults on some shards (a hang, a
 * garbled answer, a crash, an error), every shard is still accounted for exactly once with the
 * code it would have over HTTP, the missing subtrees are named by path, the cells are bounded
 * and their intervals hold the truth computed from the generated rows; with no fault on the
 * shards asked, the answer is exact and equals the truth; a streamed query keeps its
 * snapshots; a killed host is restarted and the tree answers exactly again.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';

interface Body {
  label: string;
  rows: (string | number | null)[][];
  cells?: ({ label: string; lo?: number | null; hi?: number | null } | null)[][];
  coverage: { shards: number; answered: number; failed: number; omitted: number; pruned: number };
  missing: { shard: number; path: string; reason: string; error: { code: string; message: string } }[];
  final?: boolean;
}

const GROUPS = ['ANC', 'BOS', 'SFO', 'ORD'];
const ROWS = 4_000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'canopy-subtrees-'));
const data = Array.from({ length: ROWS }, (_, i) => ({ origin: GROUPS[(i * 7) % GROUPS.length]!, delay: ((i * 37) % 211) - 40 }));
const faultsFile = path.join(dir, 'faults.json');
let tree: LocalTree | undefined;

/** Shards with injected faults: 3 hangs, 5 garbles (its frame lies about its shards), 6 crashes, 1 errors. */
const FAULTS = { seed: 1, rules: [{ shards: [3], hang: 1 }, { shards: [5], garble: 1 }, { shards: [6], crash: 1 }, { shards: [1], error: 1 }] };

beforeAll(async () => {
  const csv = path.join(dir, 'flights.csv');
  writeFileSync(csv, `origin,delay\n${data.map((r) => `${r.origin},${r.delay}`).join('\n')}\n`);
  writeFileSync(faultsFile, JSON.stringify({ seed: 1, rules: [] }));
  tree = await startLocalTree({ data: csv, table: 'flights', shards: 8, partition: { kind: 'hash' }, fanout: 2, port: 0, cacheDir: path.join(dir, 'cache'), leafProcesses: 2, placement: 'subtrees', faults: faultsFile });
}, 180_000);

afterAll(async () => {
  await tree?.close();
});

async function ask(sql: string, extra: Record<string, unknown> = {}): Promise<Body> {
  const res = await fetch(`${tree!.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, ...extra }) });
  expect(res.status).toBe(200);
  return (await res.json()) as Body;
}

/** Truth from the generated rows: count and sum of delay by origin. */
function truth(): Map<string, { n: number; s: number }> {
  const m = new Map<string, { n: number; s: number }>();
  for (const r of data) {
    const e = m.get(r.origin) ?? { n: 0, s: 0 };
    e.n++;
    e.s += r.delay;
    m.set(r.origin, e);
  }
  return m;
}

/** Faults file changes are read at most every 100 ms: wait until an answer shows them. */
async function withFaults(plan: unknown, check: () => Promise<boolean>): Promise<void> {
  writeFileSync(faultsFile, JSON.stringify(plan));
  for (let k = 0; k < 100 && !(await check()); k++) await new Promise((r) => setTimeout(r, 150));
}

describe('placement subtrees', () => {
  it('runs each subtree in one process beside the root', () => {
    const hosts = tree!.topology.hosts.map((h) => h.name);
    expect(hosts).toEqual(['root', 'subtrees-0', 'subtrees-1']);
    for (const h of tree!.topology.hosts.slice(1)) {
      expect(h.nodes.some((n) => n.startsWith('agg-'))).toBe(true);
      expect(h.nodes.some((n) => n.startsWith('leaf-'))).toBe(true);
    }
  });

  it('answers exactly, equal to the truth, with every shard answered', async () => {
    const b = await ask('SELECT origin, count(*) AS n, sum(delay) AS s FROM flights GROUP BY origin ORDER BY origin');
    expect(b.label).toBe('exact');
    expect(b.coverage).toEqual({ shards: 8, answered: 8, failed: 0, omitted: 0, pruned: 0 });
    const t = truth();
    expect(b.rows).toEqual([...t.keys()].sort().map((o) => [o, t.get(o)!.n, t.get(o)!.s]));
  });

  it('accounts for every shard with the code it would have over HTTP when leaves fail, and bounds the answer', async () => {
    const sql = 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY origin';
    let b: Body | undefined;
    try {
      await faultyChecks();
    } finally {
      await withFaults({ seed: 1, rules: [] }, async () => (await ask('SELECT count(*) FROM flights')).label === 'exact');
    }
    async function faultyChecks(): Promise<void> {
    await withFaults(FAULTS, async () => {
      b = await ask(sql, { deadline_ms: 1500 });
      return b.coverage.answered === 4;
    });
    expect(b!.coverage).toEqual({ shards: 8, answered: 4, failed: 3, omitted: 1, pruned: 0 });
    const byShard = new Map(b!.missing.map((m) => [m.shard, m]));
    expect([...byShard.keys()].sort()).toEqual([1, 3, 5, 6]);
    expect(byShard.get(3)!.reason).toBe('omitted');
    expect(byShard.get(5)!.error.code).toBe('CANOPY_ERR_CHILD_GARBLED');
    expect(byShard.get(6)!.error.code).toBe('CANOPY_ERR_CHILD_UNREACHABLE');
    expect(byShard.get(1)!.error.code).toBe('CANOPY_ERR_CHILD_HTTP');
    expect(byShard.get(1)!.error.message).toContain('CANOPY_ERR_INTERNAL: injected fault: error');
    // Paths name the subtree: root/agg-…/…/leaf-<shard>.
    for (const [shard, m] of byShard) expect(m.path).toMatch(new RegExp(`^root/agg-\\d+(/agg-[\\d.]+)*/leaf-${shard}$`));
    // Not exact: each count is bounded, and the row set is not proven complete (a group could
    // live in the missing shards only), which makes the answer approximate as over HTTP.
    expect(b!.label).toBe('approximate');
    const t = truth();
    for (let i = 0; i < b!.rows.length; i++) {
      const [origin] = b!.rows[i]!;
      const cell = b!.cells![i]![1]!;
      expect(cell.label).toBe('bounded');
      const want = t.get(origin as string)!.n;
      expect(cell.lo!).toBeLessThanOrEqual(want);
      expect(cell.hi!).toBeGreaterThanOrEqual(want);
    }
    // A streamed query through the same subtrees: snapshots, then the same final accounting.
    const res = await fetch(`${tree!.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' }, body: JSON.stringify({ sql, deadline_ms: 1500 }) });
    const snaps = (await res.text()).split('\n').filter((l) => l.trim() !== '').map((l) => JSON.parse(l) as Body);
    const last = snaps[snaps.length - 1]!;
    expect(last.final).toBe(true);
    expect(last.coverage).toEqual(b!.coverage);
    for (let k = 1; k < snaps.length; k++) expect(snaps[k]!.coverage.answered).toBeGreaterThanOrEqual(snaps[k - 1]!.coverage.answered);
    }
  });

  it('restarts a killed subtrees host, and the tree answers exactly again', async () => {
    const victim = tree!.hosts().find((h) => h.name === 'subtrees-1')!;
    process.kill(victim.pid!, 'SIGKILL');
    let b: Body | undefined;
    for (let k = 0; k < 200; k++) {
      b = await ask('SELECT count(*) FROM flights', { deadline_ms: 2000 });
      if (b.label === 'exact' && tree!.hosts().find((h) => h.name === 'subtrees-1')!.state === 'up') break;
      await new Promise((r) => setTimeout(r, 100));
    }
    expect(b!.label).toBe('exact');
    expect(b!.rows).toEqual([[ROWS]]);
  });
});

describe('npm start --placement', () => {
  /** Runs src/cli/start.ts with `args`; these all fail on their options, before any data is read. */
  function start(args: string[]): Promise<{ code: number | null; out: string }> {
    return new Promise((resolve) => {
      execFile(process.execPath, ['--import', 'tsx', 'src/cli/start.ts', ...args], { timeout: 60_000, env: { ...process.env, PORT: '0' } }, (err, stdout, stderr) => {
        resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, out: stdout + stderr });
      });
    });
  }

  it('refuses an unknown placement, subtrees with replicas, and subtrees with --aggregator-processes', async () => {
    const bogus = await start(['--placement', 'flat']);
    expect(bogus.code).toBe(1);
    expect(bogus.out).toContain("CANOPY_ERR_BAD_REQUEST: --placement must be 'subtrees' or 'tiers', got 'flat'");
    const replicated = await start(['--placement', 'subtrees', '--replicas', '2']);
    expect(replicated.code).toBe(1);
    expect(replicated.out).toContain('--placement subtrees holds one replica of each leaf; with --replicas 2 use --placement tiers');
    const aggs = await start(['--placement', 'subtrees', '--aggregator-processes', '2']);
    expect(aggs.code).toBe(1);
    expect(aggs.out).toContain('--aggregator-processes applies to --placement tiers');
  });
});
