/**
 * A smoke test of the depth benchmark (seconds, not minutes): the same code path as
 * `npm run bench -- depth --quick` (calibration, the seeds' table and the depth trees in
 * worker processes, the report and both charts), over a few small trees with fewer queries.
 * The CI-sized run itself is its own step (`npm run bench:quick`, see .ci/run): it exits 1
 * when its seeds' table is off or an answer is inconsistent.
 */
import { mkdtemp, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';
import { depthPlan, runDepth } from '../bench/depth.ts';
import type { DepthCell } from '../src/sim/index.ts';

/** Trials per tree of the seeds' table (the quick run has 300). */
const TRIALS = 50;
const dirs: string[] = [];
afterAll(async () => {
  for (const d of dirs) await rm(d, { recursive: true, force: true });
});

describe('the depth benchmark, smoke-sized', () => {
  it('writes a consistent report: seeds within tolerance, every planned cell answered and consistent, crossovers, charts', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'canopy-depth-'));
    dirs.push(dir);
    // Four of the quick plan's trees at N = 100: flat and 10×10 with few groups, flat hedged, 10×10 with many groups; 5 queries per run.
    const plan = depthPlan(true)
      .filter((t) => t.n === 100 && (t.shape.id === 'few' ? !t.hedge || t.layout.id === 'flat' : t.layout.id !== 'flat'))
      .map((t) => ({ ...t, runs: t.runs.map((r) => ({ ...r, queries: 5 })) }));
    expect(plan.map((t) => `${t.layout.id} ${t.shape.id}${t.hedge ? ' hedged' : ''}`).sort()).toEqual(['10×N/10 few', '10×N/10 many', 'flat few', 'flat few hedged']);
    const report = await runDepth({ quick: true, reps: 1, warmup: 0 }, { plan, seedTrials: TRIALS, outDir: pathToFileURL(dir + '/'), processes: 2 });
    const data = report.data as { seedsOk: boolean; consistent: boolean; seeds: { rows: { n: number; expected: number; measured: number }[] }; cells: DepthCell[]; crossovers: unknown[] };
    expect(report.ok).toBe(true);
    expect(data.seedsOk && data.consistent).toBe(true);
    expect(data.seeds.rows.map((r) => r.n)).toEqual([1, 10, 20, 50, 100]);
    for (const r of data.seeds.rows) {
      expect(r.expected).toBeCloseTo(1 - Math.pow(0.99, r.n), 10);
      // Within 3 standard errors of 1 − 0.99^N (the quick run's own tolerance).
      expect(Math.abs(r.measured - r.expected)).toBeLessThanOrEqual(Math.max(0.02, 3 * Math.sqrt((r.expected * (1 - r.expected)) / TRIALS)));
    }
    expect(data.cells.length).toBe(plan.reduce((a, t) => a + t.runs.length, 0));
    for (const c of data.cells) {
      expect(c.consistent).toBe(true);
      expect(c.n).toBe(5);
      expect(c.p50).toBeGreaterThan(0);
      // Wait-for-all answers every shard; hedged cells count their hedges.
      if (c.policy.startsWith('all')) expect(c.coverage).toBe(1);
      if (c.policy.endsWith('+hedge')) expect(c.hedge).toBeDefined();
    }
    expect(data.crossovers.length).toBeGreaterThan(0);
    expect(report.markdown).toContain("## The seeds' table");
    expect(report.markdown).toContain('Skipped in --quick runs');
    // p99 needs 100 queries per cell: the p99 chart has axes but no series here.
    expect((await stat(path.join(dir, 'depth-p50.svg'))).size).toBeGreaterThan(500);
    for (const chart of ['depth-p50.svg', 'depth-p99.svg']) expect(await readFile(path.join(dir, chart), 'utf8')).toMatch(/^<svg[\s\S]*<\/svg>\s*$/);
  }, 60_000);
});
