/**
 * The CI-sized depth benchmark (`npm run bench -- depth --quick`): it runs from the command
 * line, exits 0 and writes valid results (machine info, the seeds' table within tolerance,
 * consistent answers in every cell, the crossover rows and both charts) to bench/results/quick/.
 */
import { execFile } from 'node:child_process';
import { readFile, stat } from 'node:fs/promises';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

const RUN = fileURLToPath(new URL('../bench/run.ts', import.meta.url));
const OUT = new URL('../bench/results/quick/', import.meta.url);

describe('npm run bench -- depth --quick', () => {
  it('runs and writes valid results', async () => {
    const code = await new Promise<number>((resolve) => {
      const p = execFile(process.execPath, ['--import', 'tsx', RUN, 'depth', '--quick'], { cwd: process.cwd(), timeout: 170_000, maxBuffer: 16 << 20 }, () => undefined);
      p.on('exit', (c) => resolve(c ?? -1));
    });
    expect(code).toBe(0);
    const json = JSON.parse(await readFile(new URL('depth.json', OUT), 'utf8')) as {
      machine: { cpuCount: number; node: string; packages: Record<string, string> };
      quick: boolean;
      seedsOk: boolean;
      consistent: boolean;
      seeds: { rows: { n: number; expected: number; measured: number }[] };
      cells: { leaves: number; layout: string; policy: string; n: number; p50: number | null; consistent: boolean }[];
      crossovers: unknown[];
    };
    expect(json.quick).toBe(true);
    expect(json.machine.node).toMatch(/^v\d+\./);
    expect(json.machine.cpuCount).toBeGreaterThan(0);
    expect(json.machine.packages['apache-arrow']).toBeDefined();
    expect(json.seedsOk && json.consistent).toBe(true);
    expect(json.seeds.rows.map((r) => r.n)).toEqual([1, 10, 20, 50, 100]);
    for (const r of json.seeds.rows) expect(r.expected).toBeCloseTo(1 - Math.pow(0.99, r.n), 10);
    // Every planned tree's cells are there, each with its queries and a median.
    const { depthPlan } = await import('../bench/depth.ts');
    const planned = depthPlan(true).reduce((a, t) => a + t.runs.length, 0);
    expect(json.cells.length).toBe(planned);
    for (const c of json.cells) {
      expect(c.consistent).toBe(true);
      expect(c.n).toBeGreaterThan(0);
      expect(c.p50).toBeGreaterThan(0);
    }
    expect(json.crossovers.length).toBeGreaterThan(0);
    const md = await readFile(new URL('depth.md', OUT), 'utf8');
    expect(md).toContain("## The seeds' table");
    expect(md).toContain('Skipped in --quick runs');
    for (const chart of ['depth-p50.svg', 'depth-p99.svg']) expect((await stat(new URL(chart, OUT))).size).toBeGreaterThan(500);
  }, 180_000);
});
