/**
 * Validation of the simulator against the real HTTP tree (`startLocalTree`, flat, leaves in
 * 2 worker processes on loopback) at N = 10, 30 and 100 leaves, for a one-group query over
 * the flights data, without and with injected leaf latency (the fault layer: lognormal
 * median 5 ms σ 0.5 plus 1% stragglers at +45 ms).
 *
 * Calibration (per N, from the run without faults): the root's per-child timings (trace)
 * give each leaf's latency as the root sees it; a lognormal is fitted to them (median = p50,
 * σ = ln(p90 / p50) / 1.2816) less the calibrated decode + merge cost of one frame, which the
 * simulator charges to the root's CPU instead; the root's overhead is the median of
 * (client latency − slowest child). The simulator then predicts both runs: the one without
 * faults (in-sample for the marginal, a prediction for the maximum over N and the merge
 * queue) and the one with faults (the same fitted base plus the injected terms: out of sample).
 */
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startLocalTree } from '../../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../../src/data/index.ts';
import type { FaultPlan, LatencySpec } from '../../src/leaf/index.ts';
import type { CpuCalibration } from './calibrate.ts';
import { costModel } from './calibrate.ts';
import { buildSimTree } from './engine.ts';
import { nearestRank } from '../common.ts';
import { ms, pct } from './stats.ts';

const SQL = 'SELECT count(*), sum(delay) FROM flights';
export const FAULT_TERMS: readonly LatencySpec[] = [
  { kind: 'lognormal', medianMs: 5, sigma: 0.5 },
  { kind: 'straggler', p: 0.01, ms: 45 },
];

/** One compared cell. */
export interface ValidationCell {
  readonly n: number;
  readonly faults: boolean;
  readonly queries: number;
  readonly real: { p50: number; p90: number; p99: number | null; max: number };
  readonly sim: { p50: number; p90: number; p99: number | null };
  readonly errP50: number;
  readonly errP90: number;
  readonly errP99: number | null;
  readonly fit: { medianMs: number; sigma: number; rootMs: number };
}

export interface ValidationResult {
  readonly data: { cells: ValidationCell[]; sql: string; faultTerms: readonly LatencySpec[] };
  readonly markdown: string[];
}

const quantile = (xs: readonly number[], q: number): number => nearestRank([...xs].sort((a, b) => a - b), q);

async function measure(n: number, faultsFile: string | null, queries: number, log: (m: string) => void): Promise<{ latencies: number[]; childMs: number[]; overheadMs: number[] }> {
  const tree = await startLocalTree({
    data: DEFAULT_DATA_PATH,
    table: 'flights',
    shards: n,
    partition: { kind: 'hash' },
    fanout: n,
    depth: 1,
    port: 0,
    cacheDir: path.resolve('.canopy-cache'),
    leafProcesses: 2,
    ...(faultsFile === null ? {} : { faults: faultsFile }),
  });
  const agent = new Agent({ connections: 4 });
  const latencies: number[] = [];
  const childMs: number[] = [];
  const overheadMs: number[] = [];
  try {
    for (let i = 0; i < queries + 5; i++) {
      const t0 = performance.now();
      const res = await request(`${tree.url}/v1/query`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: SQL, trace: true, deadline_ms: 30_000 }) });
      const body = (await res.body.json()) as { label?: string; trace?: { timings?: { gather: string; elapsedMs: number }[] } };
      const t = performance.now() - t0;
      if (res.statusCode !== 200 || body.label !== 'exact') throw new Error(`query failed at N=${n}: ${res.statusCode} ${JSON.stringify(body).slice(0, 200)}`);
      if (i < 5) continue;
      latencies.push(t);
      const mine = (body.trace?.timings ?? []).filter((x) => x.gather === 'root').map((x) => x.elapsedMs);
      childMs.push(...mine);
      overheadMs.push(t - Math.max(...mine));
    }
  } finally {
    await agent.close();
    await tree.close();
  }
  log(`validate: N=${n} ${faultsFile === null ? 'no faults' : 'faults'}: p50 ${ms(quantile(latencies, 0.5))} ms p90 ${ms(quantile(latencies, 0.9))} ms over ${latencies.length} queries`);
  return { latencies, childMs, overheadMs };
}

/** Runs the validation; a few minutes on a quiet 2-CPU machine. */
export async function validateAgainstHttp(cal: CpuCalibration, log: (m: string) => void): Promise<ValidationResult> {
  const plan: FaultPlan = { seed: 7, rules: FAULT_TERMS.map((latency) => ({ shards: 'all' as const, latency })) };
  const faultsFile = path.join(os.tmpdir(), `canopy-depth-faults-${process.pid}.json`);
  await writeFile(faultsFile, JSON.stringify(plan));
  const cells: ValidationCell[] = [];
  try {
    for (const [n, queries] of [[10, 100], [30, 80], [100, 50]] as const) {
      const base = await measure(n, null, queries, log);
      const faulted = await measure(n, faultsFile, queries, log);
      const p50 = quantile(base.childMs, 0.5);
      const p90 = quantile(base.childMs, 0.9);
      const sigma = Math.max(0.01, Math.log(p90 / p50) / 1.2816);
      const medianMs = Math.max(0.05, p50 - cal.frameMs);
      const rootMs = Math.max(0, quantile(base.overheadMs, 0.5));
      const cost = costModel(cal, 0, rootMs, 0);
      for (const [faults, real] of [[false, base], [true, faulted]] as const) {
        const terms: LatencySpec[] = [{ kind: 'lognormal', medianMs, sigma }, ...(faults ? FAULT_TERMS : [])];
        const tree = buildSimTree({ n, layout: { id: 'flat', fanout: n, depth: 1 }, shape: { id: 'one', label: 'one group', groupsPerLeaf: 1, keySpace: 1 }, latency: { terms }, cost, seed: 500 + n });
        const sims: number[] = [];
        for (let i = 0; i < 1000; i++) sims.push((await tree.run({ id: 'all', policy: 'all', deadlineMs: 30_000 })).latencyMs);
        const r = { p50: quantile(real.latencies, 0.5), p90: quantile(real.latencies, 0.9), p99: pct([...real.latencies].sort((a, b) => a - b), 0.99), max: Math.max(...real.latencies) };
        const s = { p50: quantile(sims, 0.5), p90: quantile(sims, 0.9), p99: quantile(sims, 0.99) };
        cells.push({
          n,
          faults,
          queries: real.latencies.length,
          real: r,
          sim: s,
          errP50: (s.p50 - r.p50) / r.p50,
          errP90: (s.p90 - r.p90) / r.p90,
          errP99: r.p99 === null ? null : (s.p99 - r.p99) / r.p99,
          fit: { medianMs, sigma, rootMs },
        });
      }
    }
  } finally {
    await rm(faultsFile, { force: true });
  }
  const pctS = (x: number | null): string => (x === null ? '—' : `${x >= 0 ? '+' : ''}${Math.round(x * 100)}%`);
  const markdown = [
    '## Validation against the HTTP tree',
    '',
    `Real: \`startLocalTree\`, flat (depth 1), leaves in 2 worker processes on loopback, \`${SQL}\` sent one at a time (client latency, 5 warm-up queries). Simulated: 1,000 queries with the model fitted per N from the run without faults (lognormal to the root's per-child timings, root overhead = median of client latency − slowest child). "faults" adds the injected latency (lognormal 5 ms σ 0.5 + 1% at +45 ms) to both: an out-of-sample prediction. Error = (sim − real) / real; target within ±20%. p99 of the real run is "—" below 100 queries.`,
    '',
    '| N | faults | queries | real p50 / p90 / p99 / max | sim p50 / p90 / p99 | error p50 / p90 / p99 | fitted leaf median, σ, root ms |',
    '| ---: | --- | ---: | --- | --- | --- | --- |',
    ...cells.map((c) => `| ${c.n} | ${c.faults ? 'yes' : 'no'} | ${c.queries} | ${ms(c.real.p50)} / ${ms(c.real.p90)} / ${ms(c.real.p99)} / ${ms(c.real.max)} | ${ms(c.sim.p50)} / ${ms(c.sim.p90)} / ${ms(c.sim.p99)} | ${pctS(c.errP50)} / ${pctS(c.errP90)} / ${pctS(c.errP99)} | ${ms(c.fit.medianMs)}, ${c.fit.sigma.toFixed(2)}, ${ms(c.fit.rootMs)} |`),
  ];
  return { data: { cells, sql: SQL, faultTerms: FAULT_TERMS }, markdown };
}
