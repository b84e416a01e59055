/**
 * Process supervision of the local tree: a leaf host killed with SIGKILL is logged, the
 * root's /healthz reports it (503 `degraded`, naming the host and its nodes) while it is
 * down, the host is restarted on the same ports, and the tree answers exactly again.
 */
import { mkdtempSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';

const CSV_DIR = fileURLToPath(new URL('./fixtures/data/csv-dir', import.meta.url));

let tree: LocalTree | undefined;
const logs: string[] = [];

beforeAll(async () => {
  tree = await startLocalTree({
    data: CSV_DIR,
    table: 'flights',
    shards: 4,
    partition: { kind: 'hash' },
    fanout: 2,
    port: 0,
    cacheDir: mkdtempSync(path.join(os.tmpdir(), 'canopy-supervision-')),
    leafProcesses: 2,
    log: (m) => logs.push(m),
  });
}, 120_000);

afterAll(async () => {
  await tree?.close();
});

/** Polls `f` until it returns a value (no timing assertion: the test's own timeout bounds it). */
async function until<T>(f: () => Promise<T | undefined>): Promise<T> {
  for (;;) {
    const v = await f();
    if (v !== undefined) return v;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function count(): Promise<{ status: number; body: { label?: string; rows?: unknown[][] } }> {
  const res = await fetch(`${tree!.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) FROM flights' }) });
  return { status: res.status, body: (await res.json()) as { label?: string; rows?: unknown[][] } };
}

describe('a killed host', () => {
  it('is reported by /healthz, logged, restarted on its ports, and the tree answers exactly again', async () => {
    const before = await count();
    expect(before.body.label).toBe('exact');
    expect((await fetch(`${tree!.url}/healthz`)).status).toBe(200);
    const victim = tree!.hosts().find((h) => h.name.startsWith('leaves-'))!;
    expect(victim.pid).toBeDefined();
    process.kill(victim.pid!, 'SIGKILL');
    // Degraded while it is down (or restarting): 503 with the host and its nodes.
    const degraded = await until(async () => {
      const res = await fetch(`${tree!.url}/healthz`);
      const body = (await res.json()) as { status?: string; unreachable?: { host: string; nodes: string[] }[] };
      return res.status === 503 ? body : undefined;
    });
    expect(degraded.status).toBe('degraded');
    expect(degraded.unreachable?.map((u) => u.host)).toContain(victim.name);
    // Restarted with a new pid, and healthy again.
    await until(async () => {
      const h = tree!.hosts().find((x) => x.name === victim.name)!;
      return h.state === 'up' && h.pid !== victim.pid ? h : undefined;
    });
    await until(async () => ((await fetch(`${tree!.url}/healthz`)).status === 200 ? true : undefined));
    expect(logs.some((l) => l.includes(`host ${victim.name} died (signal SIGKILL); restarting it`))).toBe(true);
    expect(logs.some((l) => l.includes(`host ${victim.name} restarted`))).toBe(true);
    expect(tree!.hosts().find((x) => x.name === victim.name)!.restarts).toBe(1);
    const after = await until(async () => {
      const r = await count();
      return r.body.label === 'exact' ? r : undefined;
    });
    expect(after.body.rows).toEqual(before.body.rows);
  }, 120_000);
});
