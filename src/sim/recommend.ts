/**
 * `recommend` (`npm run recommend -- --p50 5 --p99 50 --merge-us 2 --n 1000 --deadline 200 [--groups 10]`,
 * src/cli/recommend.ts) simulates every layout of the depth benchmark for N leaves whose service time is a
 * lognormal through the given p50 and p99 (ms), with `merge-us` µs of CPU per group merged
 * and the rest of the cost model fixed ({@link REFERENCE_COSTS}), under wait-for-all and
 * under the deadline with partial answers, and prints the layout and policy with the lowest
 * p99 that stays within the deadline (preferring complete answers on ties within 5%).
 *
 * Stable: the simulation is seeded, runs a fixed number of queries per cell (no real-time
 * cap) and does not recalibrate, so the same input gives the same table and recommendation
 * on any machine. 100 queries per cell (the least for a p99); above 2,000 leaves 20 (a
 * simulated query there costs about a second of real CPU) and the tail is the maximum.
 */
import { setMaxListeners } from 'node:events';
import { layoutsFor } from './trees.ts';
import { costModel, type CpuCalibration } from './calibrate.ts';
import { buildSimTree, type PolicySpec } from './engine.ts';
import { ms, summariseCell, type CellSummary } from './stats.ts';

/**
 * The cost model's CPU and byte figures (./calibrate.ts, lower quartile), as the
 * full depth run measured them on the 2-core development machine on 2026-11-29 (after the
 * wire rewrite), fixed so that a recommendation does not move with
 * the load of the machine it is asked on. `--merge-us` replaces the per-group costs.
 */
export const REFERENCE_COSTS: CpuCalibration = Object.freeze({ frameMs: 0.056, groupUs: 0.44, entryUs: 0.71, encodeFrameMs: 0.092, encodeGroupUs: 0.076, encodeEntryUs: 0.68, bytesPerFrame: 608, bytesPerGroup: 19.9, bytesPerEntry: 78.9 });

/** What `recommend` is asked: leaf latency p50 and p99 (ms), CPU per group merged (µs), leaves, deadline (ms), groups per leaf. */
export interface RecommendInputs {
  readonly p50: number;
  readonly p99: number;
  readonly mergeUs: number;
  readonly n: number;
  readonly deadline: number;
  readonly groups: number;
}

/** One simulated row: a layout and policy, with its cell summary. */
export interface RecommendRow {
  readonly layout: string;
  readonly depth: number;
  readonly policy: string;
  readonly c: CellSummary;
}

/** The table, the pick and a Markdown report. */
export interface Recommendation {
  readonly inputs: RecommendInputs;
  readonly rows: readonly RecommendRow[];
  readonly pick: RecommendRow;
  /** Some layout keeps p99 within the deadline. */
  readonly withinDeadline: boolean;
  readonly markdown: string;
}

/**
 * Simulates every layout for `inputs.n` leaves under wait-for-all and under the deadline
 * with partial answers, and picks the layout and policy with the lowest p99 within the
 * deadline (preferring complete answers on ties within 5%).
 * @throws RangeError when a number is not positive or p99 < p50.
 */
export async function recommend(inputs: RecommendInputs): Promise<Recommendation> {
  const { p50, p99, mergeUs, n, deadline, groups } = inputs;
  for (const [k, v] of Object.entries(inputs)) if (!(Number.isFinite(v) && v > 0)) throw new RangeError(`${k} must be a positive number, got ${v}`);
  if (p99 < p50) throw new RangeError('p99 must be at least p50');
  const sigma = Math.log(p99 / p50) / 2.3263478740408408;
  const cost = { ...costModel(REFERENCE_COSTS, 0.25, 1, 0.05), groupCpuUs: mergeUs, encodeGroupUs: mergeUs };
  const queries = n > 2000 ? 20 : 100;
  const policies: PolicySpec[] = [
    { id: 'all', policy: 'all', deadlineMs: 600_000 },
    { id: `partial@${deadline}`, policy: 'partial', deadlineMs: deadline },
  ];
  setMaxListeners(1_000_000);
  const stack = Error.stackTraceLimit;
  Error.stackTraceLimit = 0;
  const rows: RecommendRow[] = [];
  try {
    for (const layout of layoutsFor(n)) {
      const tree = buildSimTree({ n, layout, shape: { id: 'q', label: 'q', groupsPerLeaf: groups, keySpace: groups }, latency: { terms: [{ kind: 'lognormal', medianMs: p50, sigma }] }, cost, seed: 11 });
      for (const policy of policies) {
        const samples = [];
        for (let i = 0; i < queries; i++) samples.push(await tree.run(policy));
        rows.push({ layout: layout.id, depth: tree.depth, policy: policy.id, c: summariseCell(samples) });
      }
    }
  } finally {
    Error.stackTraceLimit = stack;
    setMaxListeners(10);
  }
  const tail = (c: CellSummary): number => c.p99 ?? c.max;
  const ok = rows.filter((r) => tail(r.c) <= deadline && r.c.coverage > 0);
  const pool = ok.length > 0 ? ok : rows;
  const best = [...pool].sort((a, b) => tail(a.c) - tail(b.c))[0]!;
  const near = pool.filter((r) => tail(r.c) <= tail(best.c) * 1.05 && r.c.complete === 1);
  const pick = near.length > 0 && best.c.complete < 1 ? near.sort((a, b) => tail(a.c) - tail(b.c))[0]! : best;
  const md = [
    `# recommend: N=${n}, leaf p50 ${p50} ms / p99 ${p99} ms (lognormal σ ${sigma.toFixed(2)}), ${mergeUs} µs per group merged, ${groups} groups per leaf, deadline ${deadline} ms`,
    '',
    '| layout | depth | policy | queries | p50 | p99 (max if < 100) | coverage (complete) | root CPU ms |',
    '| --- | ---: | --- | ---: | ---: | ---: | --- | ---: |',
    ...rows.map((r) => `| ${r.layout} | ${r.depth} | ${r.policy} | ${r.c.n} | ${ms(r.c.p50)} | ${ms(tail(r.c))} | ${(r.c.coverage * 100).toFixed(1)}% (${Math.round(r.c.complete * 100)}%) | ${ms(r.c.rootCpuMs)} |`),
    '',
    ok.length === 0
      ? `**No layout keeps p99 within ${deadline} ms.** Lowest p99: ${pick.layout} with ${pick.policy} (${ms(tail(pick.c))} ms).`
      : `**Recommendation:** ${pick.layout} (depth ${pick.depth}) with \`${pick.policy}\`: p99 ${ms(tail(pick.c))} ms, coverage ${(pick.c.coverage * 100).toFixed(1)}%, ${Math.round(pick.c.complete * 100)}% of answers complete.`,
  ];
  return { inputs, rows, pick, withinDeadline: ok.length > 0, markdown: md.join('\n') };
}
