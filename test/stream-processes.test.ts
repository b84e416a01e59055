/**
 * Progressive answers over real processes (issue 12): the scenario the in-process model of
 * test/stream-monotone.test.ts stands for, run through `startLocalTree` with HTTP between
 * every tier. Eight shards at fan-out 2 (aggregators stream merged updates), two replicas in
 * zones a and b with hedged requests; shard 3's replica in zone a hangs and shard 5 answers
 * late in both zones. Each NDJSON stream must never take back what it showed: answered
 * counts never decrease, an answered shard stays answered, the final values lie in every
 * interval a snapshot called guaranteed and equal every value a snapshot called exact. The
 * final answer, with every shard answered (zone b rescues shard 3), equals the truth
 * computed from the generated rows.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';

interface Snapshot {
  final: boolean;
  label: string;
  coverage: { shards: number; answered: number };
  missing: { shard: number }[];
  rows: (string | number | null)[][];
  cells?: ({ label: string; lo?: number | string | null; hi?: number | string | null } | null)[][];
}

const GROUPS = ['ANC', 'BOS', 'SFO', '😀', 'ｚ'];
const ROWS = 2_000;
const dir = mkdtempSync(path.join(os.tmpdir(), 'canopy-stream-proc-'));
const data: { origin: string; delay: number }[] = Array.from({ length: ROWS }, (_, i) => ({ origin: GROUPS[(i * 7) % GROUPS.length]!, delay: ((i * 37) % 211) - 40 }));
let tree: LocalTree | undefined;

beforeAll(async () => {
  const csv = path.join(dir, 'flights.csv');
  writeFileSync(csv, `origin,delay\n${data.map((r) => `${r.origin},${r.delay}`).join('\n')}\n`);
  const faults = path.join(dir, 'faults.json');
  writeFileSync(
    faults,
    JSON.stringify({
      seed: 1,
      rules: [
        { shards: [3], zones: ['a'], hang: 1 },
        { shards: [5], latency: { kind: 'fixed', ms: 600 } },
      ],
    }),
  );
  tree = await startLocalTree({
    data: csv,
    table: 'flights',
    shards: 8,
    partition: { kind: 'hash' },
    fanout: 2,
    port: 0,
    cacheDir: path.join(dir, 'cache'),
    leafProcesses: 2,
    replicas: 2,
    zones: 2,
    tail: { hedge: {} },
    faults,
  });
}, 180_000);

afterAll(async () => {
  await tree?.close();
});

async function stream(sql: string, deadline: number): Promise<Snapshot[]> {
  const res = await fetch(`${tree!.url}/v1/query`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/x-ndjson' },
    body: JSON.stringify({ sql, deadline_ms: deadline }),
  });
  expect(res.status).toBe(200);
  const text = await res.text();
  return text
    .split('\n')
    .filter((l) => l.trim() !== '')
    .map((l) => JSON.parse(l) as Snapshot);
}

function answeredShards(s: Snapshot): Set<number> {
  const missing = new Set(s.missing.map((m) => m.shard));
  return new Set(Array.from({ length: s.coverage.shards }, (_, i) => i).filter((i) => !missing.has(i)));
}

/** Compares numbers by value and strings by code point (canopy's and SQL's C order). */
function cmp(a: number | string, b: number | string): number {
  if (typeof a === 'number' && typeof b === 'number') return a - b;
  const x = [...String(a)].map((c) => c.codePointAt(0)!);
  const y = [...String(b)].map((c) => c.codePointAt(0)!);
  for (let i = 0; i < Math.min(x.length, y.length); i++) if (x[i] !== y[i]) return x[i]! - y[i]!;
  return x.length - y.length;
}

function truthByOrigin(): Map<string, [number, number, number]> {
  const out = new Map<string, [number, number, number]>();
  for (const r of data) {
    const t = out.get(r.origin) ?? [0, 0, -Infinity];
    out.set(r.origin, [t[0] + 1, t[1] + r.delay, Math.max(t[2], r.delay)]);
  }
  return out;
}

describe('progressive answers over real processes with a hung replica and a late shard', () => {
  it('never take back what they showed, and end exact with every shard answered', async () => {
    const sql = 'SELECT origin, count(*) AS n, sum(delay) AS s, max(delay) AS m FROM flights GROUP BY origin ORDER BY origin';
    const truth = truthByOrigin();
    let intervals = 0;
    for (let round = 0; round < 3; round++) {
      const snaps = await stream(sql, 8_000);
      const final = snaps.at(-1)!;
      expect(final.final).toBe(true);
      expect(snaps.length).toBeGreaterThan(1);
      for (let k = 1; k < snaps.length; k++) {
        expect(snaps[k]!.coverage.answered, `answered went down at line ${k + 1}`).toBeGreaterThanOrEqual(snaps[k - 1]!.coverage.answered);
        const kept = answeredShards(snaps[k]!);
        for (const s of answeredShards(snaps[k - 1]!)) expect(kept.has(s), `shard ${s} answered at line ${k}, missing at line ${k + 1}`).toBe(true);
      }
      const byKey = new Map(final.rows.map((r) => [String(r[0]), r]));
      for (const s of snaps.slice(0, -1)) {
        s.rows.forEach((r, i) => {
          const f = byKey.get(String(r[0]));
          if (f === undefined) return;
          for (let j = 1; j < r.length; j++) {
            const cell = s.cells?.[i]?.[j] ?? null;
            if (cell === null) {
              expect(f[j], `exact snapshot cell ${String(r[0])}#${j}`).toEqual(r[j]);
            } else if (cell.label === 'bounded') {
              intervals++;
              const v = f[j] as number;
              if (cell.lo != null) expect(cmp(cell.lo, v), `final ${v} below snapshot lo ${String(cell.lo)}`).toBeLessThanOrEqual(0);
              if (cell.hi != null) expect(cmp(cell.hi, v), `final ${v} above snapshot hi ${String(cell.hi)}`).toBeGreaterThanOrEqual(0);
            }
          }
        });
      }
      // Zone b answers shard 3 (hedge or fail-over) and shard 5 answers within the deadline.
      expect(final.coverage.answered).toBe(8);
      expect(final.label).toBe('exact');
      const expected = [...truth.entries()].sort((a, b) => cmp(a[0], b[0])).map(([g, [n, s, m]]) => [g, n, s, m]);
      expect(final.rows).toEqual(expected);
    }
    // The late shard keeps early snapshots partial: some snapshot interval was checked.
    expect(intervals).toBeGreaterThan(0);
  }, 180_000);
});
