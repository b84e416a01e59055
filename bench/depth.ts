/**
 * `depth` benchmark: tree depth against flat fan-out, deadlines and hedging, from 10 to
 * 10,000 leaves, in the simulator (bench/sim/engine.ts: the real root, gather engine,
 * aggregators and replica sets over simulated links and leaves on a virtual clock), plus a
 * validation of the simulator against the real HTTP tree at 10, 30 and 100 leaves (full run
 * only). See the README section "Benchmarks: depth" for the model and how to read the tables.
 *
 * Parts:
 * 1. CPU calibration: encode / decode / merge cost per frame, group and provenance entry,
 *    measured on this machine with the real wire and merge code.
 * 2. The seeds' table: P(at least one leaf beyond its p99) for N = 1 ... 100, measured,
 *    against 1 − 0.99^N, and P(query slower than the one-leaf query's p99).
 * 3. Depth: layouts × a few-group and a many-group query × wait-for-all and
 *    deadline-with-partial-answers (and hedging at N = 1,000), for N = 100, 1,000, 10,000.
 * 4. Validation against the real HTTP tree (full run only).
 * `CANOPY_DEPTH_VALIDATE_ONLY=1 npm run bench -- depth` runs only part 4 and replaces the
 * validation section of the existing bench/results/depth.md and .json (the rest is kept).
 * The p99 chart is written next to the results as depth-p99.svg.
 */
import { setMaxListeners } from 'node:events';
import os from 'node:os';
import { readFile, writeFile } from 'node:fs/promises';
import { buildSimTree, tailTotals, type CostModel, type LatencyModel, type LayoutSpec, type PolicySpec, type QueryShape, type SimSample } from './sim/engine.ts';
import { calibrateCpu, costModel, type CpuCalibration } from './sim/calibrate.ts';
import { bytes, ms, summariseCell, svgChart, type CellSummary, type Series } from './sim/stats.ts';
import { validateAgainstHttp, type ValidationResult } from './sim/validate.ts';
import type { BenchModule, BenchOptions, BenchReport } from './common.ts';
import { runInProcesses } from './sim/pool.ts';
import type { SimTask } from './sim/worker.ts';

function log(msg: string): void {
  process.stderr.write(`[depth] ${msg}\n`);
}

/** The leaf latency of the depth runs: lognormal base (median 5 ms, sigma 0.5) and 1% stragglers at 10× the median. */
export const STANDARD_LATENCY: LatencyModel = { terms: [{ kind: 'lognormal', medianMs: 5, sigma: 0.5 }, { kind: 'straggler', p: 0.01, ms: 45 }] };
/** Correlated slowness: per query, each of 10 zones (10% of the leaves each) is slow by 100 ms with probability 2%. */
export const ZONE_LATENCY: LatencyModel = { ...STANDARD_LATENCY, zone: { zones: 10, p: 0.02, ms: 100 } };

export const SHAPES: readonly QueryShape[] = [
  { id: 'few', label: 'few groups (10 per leaf, the same 10 everywhere)', groupsPerLeaf: 10, keySpace: 10 },
  { id: 'many', label: 'many groups (1,000 per leaf out of 10,000)', groupsPerLeaf: 1000, keySpace: 10_000 },
];

const DEADLINE_MS = 100;
/** The validation's budget: 500 measured queries per real tree (nearest-rank p99 = the 6th largest), after 30 warm-up ones; 2,000 simulated. */
const VALIDATION = { queries: 500, warmup: 30, simQueries: 2000 } as const;
/** Wait for every shard (the deadline is effectively off). */
export const WAIT_ALL: PolicySpec = { id: 'all', policy: 'all', deadlineMs: 600_000 };
/** Deadline with partial answers. */
export const PARTIAL: PolicySpec = { id: `partial@${DEADLINE_MS}`, policy: 'partial', deadlineMs: DEADLINE_MS };
export const POLICIES: readonly PolicySpec[] = [WAIT_ALL, PARTIAL];
/** Queries a hedged tree runs before it is measured: the tail control hedges only once a replica set has 20 latencies (HEDGE_DEFAULTS.minSamples). */
const HEDGE_WARMUP = 25;

/** Layouts for N leaves: flat, 10-way of depth 2 and 3, 1:100:N, and the full 10-way tree; those with a level of fewer than 2 children are skipped. */
export function layoutsFor(n: number): LayoutSpec[] {
  const out: LayoutSpec[] = [{ id: 'flat', fanout: n, depth: 1 }];
  if (n / 10 >= 2) out.push({ id: '10×N/10', fanout: 10, depth: 2 });
  if (n / 100 >= 2) out.push({ id: '10×10×N/100', fanout: 10, depth: 3 });
  if (n / 100 >= 2 && n !== 1000) out.push({ id: '100×N/100', fanout: 100, depth: 2 });
  const full = Math.ceil(Math.log10(n) - 1e-9);
  if (full > 3) out.push({ id: `10-way (depth ${full})`, fanout: 10, depth: full });
  return out;
}

/** Runs `count` queries on a simulated tree, one after another (virtual time; no real-time cap, so a seed gives the same cell on every machine). */
async function runQueries(tree: { run(p: PolicySpec): Promise<SimSample> }, policy: PolicySpec, count: number): Promise<SimSample[]> {
  const out: SimSample[] = [];
  for (let i = 0; i < count; i++) out.push(await tree.run(policy));
  return out;
}

/** One row of the seeds' table. */
interface SeedRow {
  readonly n: number;
  readonly trials: number;
  readonly expected: number;
  readonly measured: number;
  readonly diffPp: number;
  /** 3 standard errors of the measured share, percentage points. */
  readonly tolPp: number;
  readonly within2pp: boolean;
  readonly querySlow: number;
}

/** The seeds' leaf latency: lognormal, median 5 ms, σ 0.5, and its p99 (ms). */
const SEED_SPEC = { kind: 'lognormal' as const, medianMs: 5, sigma: 0.5 };
const SEED_LEAF_P99 = SEED_SPEC.medianMs * Math.exp(SEED_SPEC.sigma * 2.3263478740408408);
/** The seeds' table's flat trees: N and trials (the one-leaf tree twice over, for the threshold). */
function seedTrees(quick: boolean, trials = quick ? 300 : 3000): { n: number; trials: number; seed: number }[] {
  return [{ n: 1, trials: trials * 2, seed: 101 }, ...[1, 10, 20, 50, 100].map((n) => ({ n, trials, seed: 200 + n }))];
}

/**
 * One flat tree of the seeds' table: `trials` queries over N leaves with pure latency (no
 * network, no CPU, so a query's latency is the maximum over its N leaves). Returns the
 * queries with at least one leaf beyond the leaf p99, and every query's latency (ms).
 */
export async function seedTree(n: number, trials: number, seed: number): Promise<{ over: number; latencies: number[] }> {
  const cost: CostModel = { hopMs: 0, frameCpuMs: 0, groupCpuUs: 0, entryCpuUs: 0, encodeFrameMs: 0, encodeGroupUs: 0, encodeEntryUs: 0, rootMs: 0, bytesPerFrame: 0, bytesPerGroup: 0, bytesPerEntry: 0 };
  const t = buildSimTree({ n, layout: { id: 'flat', fanout: n, depth: 1 }, shape: SHAPES[0]!, latency: { terms: [SEED_SPEC] }, cost, seed, leafThresholdMs: SEED_LEAF_P99 });
  const s = await runQueries(t, WAIT_ALL, trials);
  return { over: s.filter((x) => (x.leafOverP99 ?? 0) > 0).length, latencies: s.map((x) => x.latencyMs) };
}

/** The seeds' table from its trees' results (in {@link seedTrees} order). */
function seedsTable(trees: readonly { n: number; trials: number }[], results: readonly { over: number; latencies: number[] }[]): { rows: SeedRow[]; thresholdMs: number; leafP99: number } {
  // The one-leaf query's p99 (end to end), the threshold for "the query was slow".
  const base = [...results[0]!.latencies].sort((a, b) => a - b);
  const thresholdMs = base[Math.ceil(0.99 * base.length) - 1]!;
  const rows: SeedRow[] = [];
  for (let i = 1; i < trees.length; i++) {
    const { n, trials } = trees[i]!;
    const r = results[i]!;
    const measured = r.over / trials;
    const expected = 1 - Math.pow(0.99, n);
    const diffPp = (measured - expected) * 100;
    const tolPp = 3 * Math.sqrt((expected * (1 - expected)) / trials) * 100;
    rows.push({ n, trials, expected, measured, diffPp, tolPp, within2pp: Math.abs(diffPp) <= 2, querySlow: r.latencies.filter((x) => x > thresholdMs).length / trials });
    log(`seeds: N=${n} P(some leaf > p99) ${(measured * 100).toFixed(1)}% vs ${(expected * 100).toFixed(1)}% (${trials} trials)`);
  }
  return { rows, thresholdMs, leafP99: SEED_LEAF_P99 };
}

/** One depth cell. */
export interface DepthCell extends CellSummary {
  readonly leaves: number;
  readonly layout: string;
  readonly depth: number;
  readonly shape: string;
  readonly policy: string;
  readonly latency: string;
  /** Hedged cells: tail-control counters over the measured queries only, and extra requests as a share of leaf requests. */
  readonly hedge?: { readonly sent: number; readonly won: number; readonly denied: number; readonly extraShare: number };
  /** Real seconds the cell took to simulate. */
  readonly realSeconds: number;
}

/** What to simulate: one tree (N, layout, query, latency, hedged or not) and the queries per policy. */
export interface TreePlan {
  readonly n: number;
  readonly layout: LayoutSpec;
  readonly shape: QueryShape;
  readonly latency: 'standard' | 'zones';
  readonly hedge: boolean;
  readonly runs: readonly { readonly policy: PolicySpec; readonly queries: number }[];
}

/**
 * The run's budget, as queries per cell (the real cost of a simulated query grows with its
 * leaves: about 0.1 ms of real CPU per leaf on this machine, so 10,000 leaves cost ~1 s).
 * p99 needs ≥ 100 queries and p99.9 ≥ 1,000 (else "—"). Full run: p99.9 for wait-for-all
 * with and without hedging at N = 100 (the Tail at Scale comparison), p99 for every cell at
 * N = 100 and 1,000, p50 only at N = 10,000 (5 queries per tree layout, 2 for flat; hedging
 * is not simulated there: its 25 warm-up queries alone would take ~40 s per tree).
 */
export function depthPlan(quick: boolean): TreePlan[] {
  const plan: TreePlan[] = [];
  const few = SHAPES[0]!;
  const many = SHAPES[1]!;
  const add = (n: number, layout: LayoutSpec, shape: QueryShape, hedge: boolean, all: number, partial: number, latency: TreePlan['latency'] = 'standard'): void => {
    const runs = [...(all > 0 ? [{ policy: WAIT_ALL, queries: all }] : []), ...(partial > 0 ? [{ policy: PARTIAL, queries: partial }] : [])];
    if (runs.length > 0) plan.push({ n, layout, shape, latency, hedge, runs });
  };
  const lay = (n: number, ids: readonly string[]): LayoutSpec[] => layoutsFor(n).filter((l) => ids.includes(l.id));
  if (quick) {
    for (const layout of lay(100, ['flat', '10×N/10'])) {
      add(100, layout, few, false, 100, 100);
      add(100, layout, few, true, 100, 100);
      add(100, layout, many, false, 20, 20);
    }
    const mid = lay(1000, ['10×N/10'])[0]!;
    add(1000, mid, few, false, 5, 5);
    add(1000, mid, few, true, 3, 3);
    add(1000, mid, many, false, 5, 5);
    return plan;
  }
  for (const layout of lay(100, ['flat', '10×N/10'])) {
    add(100, layout, few, false, 1000, 100);
    add(100, layout, few, true, 1000, 100);
    add(100, layout, many, false, 100, 100);
    add(100, layout, many, true, 100, 100);
    add(100, layout, few, false, 100, 100, 'zones');
  }
  for (const layout of lay(1000, ['flat', '10×N/10', '10×10×N/100'])) {
    add(1000, layout, few, false, 100, 100);
    if (layout.depth <= 2) add(1000, layout, few, true, 100, 100);
    add(1000, layout, many, false, 100, 100);
  }
  add(1000, lay(1000, ['10×N/10'])[0]!, few, false, 100, 100, 'zones');
  for (const layout of layoutsFor(10_000)) {
    const q = layout.depth === 1 ? 2 : layout.id === '10×N/10' || layout.id === '10×10×N/100' ? 5 : 3;
    for (const shape of [few, many]) add(10_000, layout, shape, false, q, layout.id === '10×N/10' || layout.id === '10×10×N/100' || layout.depth === 1 ? q : 0);
  }
  return plan;
}

/** Simulates the planned trees. */
export async function depthCells(cost: CostModel, plan: readonly TreePlan[]): Promise<DepthCell[]> {
  const cells: DepthCell[] = [];
  for (const t of plan) {
    const tree = buildSimTree({ n: t.n, layout: t.layout, shape: t.shape, latency: t.latency === 'zones' ? ZONE_LATENCY : STANDARD_LATENCY, cost, seed: 7 + t.n + (t.latency === 'zones' ? 90 : 0), hedge: t.hedge });
    if (t.hedge) await runQueries(tree, t.runs[0]!.policy, HEDGE_WARMUP);
    for (const { policy, queries } of t.runs) {
      const t0 = performance.now();
      const before = tailTotals(tree.tails);
      const s = await runQueries(tree, policy, queries);
      const c = summariseCell(s);
      const after = tailTotals(tree.tails);
      const d = (k: string): number => (after[k] ?? 0) - (before[k] ?? 0);
      const hedge = t.hedge ? { sent: d('hedgesSent'), won: d('hedgesWon'), denied: d('hedgesDenied'), extraShare: d('hedgesSent') / (queries * t.n) } : undefined;
      const realSeconds = Math.round((performance.now() - t0) / 100) / 10;
      cells.push({ leaves: t.n, layout: t.layout.id, depth: tree.depth, shape: t.shape.id, policy: t.hedge ? `${policy.id}+hedge` : policy.id, latency: t.latency, ...c, ...(hedge === undefined ? {} : { hedge }), realSeconds });
      log(`N=${t.n} ${t.layout.id} ${t.shape.id} ${t.latency} ${policy.id}${t.hedge ? '+hedge' : ''}: n=${c.n} p50 ${ms(c.p50)} p99 ${ms(c.p99)} p99.9 ${ms(c.p999)} root CPU ${ms(c.rootCpuMs)} ms coverage ${c.coverage} (${realSeconds} s real)`);
    }
  }
  return cells;
}

/** Rough real cost of simulating a tree (leaf requests), to hand out the largest first. */
function planCost(t: TreePlan): number {
  const queries = t.runs.reduce((a, r) => a + r.queries, 0) + (t.hedge ? HEDGE_WARMUP : 0);
  return queries * t.n * (t.hedge ? 2 : 1);
}

function labelMix(l: Readonly<Record<string, number>>, n: number): string {
  const f = (k: string): string => `${Math.round(((l[k] ?? 0) / n) * 100)}%`;
  return `${f('exact')} / ${f('bounded')} / ${f('approximate')} / ${f('error')}`;
}

function extra(c: DepthCell): string {
  return c.hedge === undefined ? '0' : `${(c.hedge.extraShare * 100).toFixed(1)}%`;
}

function depthTable(cells: readonly DepthCell[]): string[] {
  const lines = [
    '| N | layout | depth | query | policy | n | p50 | p99 | p99.9 | extra requests | root CPU ms | into root: frames / groups / bytes | coverage (complete) | exact / bounded / approx / error |',
    '| ---: | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |',
  ];
  for (const c of cells) {
    lines.push(
      `| ${c.leaves.toLocaleString('en-US')} | ${c.layout} | ${c.depth} | ${c.shape} | ${c.policy} | ${c.n} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.p999)} | ${extra(c)} | ${ms(c.rootCpuMs)} | ${Math.round(c.rootFrames)} / ${c.rootGroups.toLocaleString('en-US')} / ${bytes(c.rootBytes)} | ${(c.coverage * 100).toFixed(1)}% (${Math.round(c.complete * 100)}%) | ${labelMix(c.labels, c.n)} |`,
    );
  }
  return lines;
}

/** The four policies side by side per N (few-group query, standard latency, the best tree layout at that N that has all four). */
function policyTable(cells: readonly DepthCell[]): string[] {
  const lines = ['| N | layout | policy | n | p50 | p99 | p99.9 | extra requests | coverage (complete) | exact / bounded / approx / error |', '| ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- |'];
  const order = [WAIT_ALL.id, PARTIAL.id, `${WAIT_ALL.id}+hedge`, `${PARTIAL.id}+hedge`];
  for (const n of [...new Set(cells.map((c) => c.leaves))]) {
    for (const layout of [...new Set(cells.filter((c) => c.leaves === n).map((c) => c.layout))]) {
      const mine = cells.filter((c) => c.leaves === n && c.layout === layout && c.shape === SHAPES[0]!.id && c.latency === 'standard');
      const four = order.map((id) => mine.find((c) => c.policy === id));
      if (four.some((c) => c === undefined)) continue;
      for (const c of four as DepthCell[]) lines.push(`| ${n.toLocaleString('en-US')} | ${layout} | ${c.policy} | ${c.n} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.p999)} | ${extra(c)} | ${(c.coverage * 100).toFixed(1)}% (${Math.round(c.complete * 100)}%) | ${labelMix(c.labels, c.n)} |`);
    }
  }
  return lines;
}

/** One row of the crossover table. */
interface Crossover {
  readonly shape: string;
  readonly leaves: number;
  readonly metric: 'p99' | 'p50';
  readonly best: string;
  readonly bestValue: number;
  readonly flat: number | null;
  /** Root CPU per query: flat, and the lowest of the trees (layout). */
  readonly flatCpuMs: number | null;
  readonly treeCpu: { readonly layout: string; readonly ms: number } | null;
}

/** Best layout per (N, query) for wait-for-all by p99 (p50 where some layout has fewer than 100 queries), and the root CPU of flat against the trees. */
function crossovers(cells: readonly DepthCell[]): Crossover[] {
  const out: Crossover[] = [];
  for (const shape of SHAPES) {
    for (const n of [...new Set(cells.map((c) => c.leaves))]) {
      const mine = cells.filter((c) => c.shape === shape.id && c.leaves === n && c.policy === WAIT_ALL.id && c.latency === 'standard');
      if (mine.length === 0) continue;
      const metric = mine.every((c) => c.p99 !== null) ? 'p99' : 'p50';
      const v = (c: DepthCell): number => (metric === 'p99' ? c.p99! : (c.p50 ?? c.max));
      const best = [...mine].sort((a, b) => v(a) - v(b))[0]!;
      const flat = mine.find((c) => c.depth === 1);
      const trees = mine.filter((c) => c.depth > 1).sort((a, b) => a.rootCpuMs - b.rootCpuMs);
      out.push({ shape: shape.id, leaves: n, metric, best: best.layout, bestValue: v(best), flat: flat === undefined ? null : v(flat), flatCpuMs: flat?.rootCpuMs ?? null, treeCpu: trees[0] === undefined ? null : { layout: trees[0].layout, ms: trees[0].rootCpuMs } });
    }
  }
  return out;
}

/** Hedging against the Tail at Scale anchor (Dean & Barroso, CACM 2013: hedging after 10 ms took a 1,000-key read over 100 servers from p99.9 1,800 ms to 74 ms with 2% more requests). */
function hedgeLines(cells: readonly DepthCell[]): string[] {
  const lines: string[] = [];
  for (const h of cells.filter((c) => c.hedge !== undefined && c.latency === 'standard')) {
    const base = cells.find((c) => c.leaves === h.leaves && c.layout === h.layout && c.shape === h.shape && c.latency === h.latency && `${c.policy}+hedge` === h.policy);
    if (base === undefined) continue;
    const ratio = (a: number | null, b: number | null): string => (a === null || b === null ? '—' : (a / b).toFixed(2));
    lines.push(`| ${h.leaves.toLocaleString('en-US')} | ${h.layout} | ${h.shape} | ${base.policy} | ${h.n} | ${ms(base.p99)} → ${ms(h.p99)} (${ratio(h.p99, base.p99)}) | ${ms(base.p999)} → ${ms(h.p999)} (${ratio(h.p999, base.p999)}) | ${extra(h)} | ${h.hedge!.sent} / ${h.hedge!.won} / ${h.hedge!.denied} |`);
  }
  if (lines.length === 0) return [];
  return ['| N | layout | query | policy | n | p99 unhedged → hedged (ratio) | p99.9 unhedged → hedged (ratio) | extra requests | hedges sent / won / denied by the budget |', '| ---: | --- | --- | --- | ---: | --- | --- | ---: | --- |', ...lines, '| (Tail at Scale) | 100 servers | 1,000-key read | hedge after 10 ms | | | 1,800 → 74 (0.04) | 2% | |'];
}

function calibrationLines(cal: CpuCalibration, cost: CostModel): string[] {
  return [
    `Measured on this machine with the real wire and merge code (lower quartile of the runs): receiving a frame (decode + merge) costs ${ms(cal.frameMs)} ms + ${cal.groupUs.toFixed(2)} µs per group + ${cal.entryUs.toFixed(2)} µs per provenance entry; sending it (encode) ${ms(cal.encodeFrameMs)} ms + ${cal.encodeGroupUs.toFixed(2)} µs per group + ${cal.encodeEntryUs.toFixed(2)} µs per entry; ` +
      `${cal.bytesPerFrame} B + ${cal.bytesPerGroup.toFixed(1)} B per group + ${cal.bytesPerEntry.toFixed(1)} B per entry on the wire. ` +
      `Simulated network: ${cost.hopMs} ms one way per hop, plus ${ms(cost.frameCpuMs - cal.frameMs)} ms of HTTP handling per frame at each end; root overhead ${cost.rootMs} ms per query.`,
  ];
}

function chart(cells: readonly DepthCell[], metric: 'p50' | 'p99'): string {
  const series: Series[] = [];
  for (const shape of SHAPES) {
    for (const id of ['flat', '10×N/10', '10×10×N/100']) {
      for (const policy of [WAIT_ALL.id, PARTIAL.id]) {
        const pts = cells.filter((c) => c.shape === shape.id && c.layout === id && c.policy === policy && c.latency === 'standard' && c[metric] !== null).map((c) => ({ x: c.leaves, y: c[metric]! }));
        if (pts.length > 0) series.push({ name: `${shape.id}, ${id}, ${policy}`, points: pts });
      }
    }
  }
  return svgChart(`simulated ${metric} latency by leaves, layout and policy`, series, 'leaves (N)', `${metric} ms${metric === 'p99' ? ' (cells with ≥ 100 queries)' : ''}`);
}

/** Heading of the validation section in depth.md (written by bench/sim/validate.ts). */
const VALIDATION_HEADING = '## Validation against the HTTP tree';

/**
 * Validation only (`CANOPY_DEPTH_VALIDATE_ONLY=1`): runs part 4 and splices its section into
 * the last full run's bench/results/depth.md and .json, keeping everything else.
 * @throws Error when there is no full run to splice into.
 */
async function validateOnly(): Promise<BenchReport> {
  const dir = new URL('./results/', import.meta.url);
  const oldMd = await readFile(new URL('depth.md', dir), 'utf8');
  const { machine: _machine, ...oldData } = JSON.parse(await readFile(new URL('depth.json', dir), 'utf8')) as Record<string, unknown>;
  const at = oldMd.indexOf(VALIDATION_HEADING);
  const charts = oldMd.indexOf('\nCharts: ');
  if (at < 0 || charts < at) throw new Error('bench/results/depth.md has no validation section: run the full benchmark first');
  const loadAtStart = os.loadavg();
  const cal = calibrateCpu(false);
  setMaxListeners(1_000_000);
  let validation: ValidationResult;
  try {
    validation = await validateAgainstHttp(cal, VALIDATION, log);
  } finally {
    setMaxListeners(10);
  }
  const chartsLine = oldMd.slice(charts + 1).split('\n')[0]!;
  const note = `Validation section regenerated alone (CANOPY_DEPTH_VALIDATE_ONLY) at ${new Date().toISOString()}, load average at its start ${loadAtStart.map((x) => x.toFixed(1)).join(' / ')}; the sections above are from the full run.`;
  const markdown = [oldMd.slice(0, at).trimEnd(), '', ...validation.markdown, '', note, '', chartsLine].join('\n');
  return { name: 'depth', data: { ...oldData, validation: validation.data, validationWithin20: validation.within20, validationLoadAverageAtStart: loadAtStart }, markdown, ok: true };
}

/**
 * The sizes of a run: the depth trees, the seeds' table's trials per tree, where the charts
 * go and how many worker processes simulate. {@link run} takes them from `--quick`; the smoke
 * test (test/bench-depth-smoke.test.ts) passes a few small trees.
 */
export interface DepthSizes {
  readonly plan: readonly TreePlan[];
  readonly seedTrials: number;
  readonly outDir: URL;
  readonly processes: number;
}

async function run(opts: BenchOptions): Promise<BenchReport> {
  if (process.env['CANOPY_DEPTH_VALIDATE_ONLY'] === '1' && !opts.quick) return validateOnly();
  return runDepth(opts, { plan: depthPlan(opts.quick), seedTrials: opts.quick ? 300 : 3000, outDir: new URL(opts.quick ? './results/quick/' : './results/', import.meta.url), processes: os.availableParallelism() });
}

/** The benchmark at the given sizes: calibration, seeds' table, depth cells, validation (full runs only), charts written to `sizes.outDir`. */
export async function runDepth(opts: BenchOptions, sizes: DepthSizes): Promise<BenchReport> {
  const t0 = performance.now();
  const loadAtStart = os.loadavg();
  const phase: Record<string, number> = {};
  const lap = (name: string, since: number): number => {
    const now = performance.now();
    phase[name] = Math.round((now - since) / 100) / 10;
    return now;
  };
  const cal = calibrateCpu(opts.quick);
  const cost = costModel(cal, 0.25, 1, 0.05);
  log(`calibrated: frame ${ms(cal.frameMs)} ms, ${cal.groupUs.toFixed(2)} µs/group, ${cal.entryUs.toFixed(2)} µs/entry`);
  let t = lap('calibration', t0);
  // The seeds' trees and the depth trees run in one worker process per CPU, largest first
  // (all virtual time: the tables do not depend on how the CPUs are shared).
  const plan = sizes.plan;
  const trees = seedTrees(opts.quick, sizes.seedTrials);
  const seedTasks = trees.map((x) => ({ kind: 'seeds' as const, ...x }));
  const treeTasks = plan.map((p) => ({ kind: 'tree' as const, cost, plan: p }));
  const results = await runInProcesses<SimTask>([...seedTasks, ...treeTasks], sizes.processes, (x) => (x.kind === 'seeds' ? x.trials * x.n : x.kind === 'tree' ? planCost(x.plan) : 0));
  const seeds = seedsTable(trees, results.slice(0, seedTasks.length) as { over: number; latencies: number[] }[]);
  const cells = (results.slice(seedTasks.length) as DepthCell[][]).flat();
  t = lap('seeds and depth', t);
  let validation: ValidationResult | null = null;
  if (!opts.quick) {
    setMaxListeners(1_000_000);
    try {
      validation = await validateAgainstHttp(cal, VALIDATION, log);
    } catch (e) {
      log(`validation failed: ${(e as Error).message}`);
    } finally {
      setMaxListeners(10);
    }
    lap('validation', t);
  }
  const cross = crossovers(cells);
  const dir = sizes.outDir;
  await writeFile(new URL('depth-p99.svg', dir), chart(cells, 'p99'));
  await writeFile(new URL('depth-p50.svg', dir), chart(cells, 'p50'));

  const seedsOk = seeds.rows.every((r) => (opts.quick ? Math.abs(r.diffPp) <= Math.max(2, r.tolPp) : r.within2pp));
  const consistent = cells.every((c) => c.consistent);
  const realSeconds = Math.round((performance.now() - t0) / 1000);
  const standard = cells.filter((c) => c.latency === 'standard');
  const md: string[] = [
    `# depth benchmark${opts.quick ? ' (quick)' : ''}`,
    '',
    'Simulated: the real root, gather engine, aggregators and replica sets, over simulated links and leaves on a virtual clock (src/transport/simulated.ts, bench/sim/). ' +
      `Leaves: lognormal service time (median 5 ms, σ 0.5) + 1% stragglers (+45 ms, 10× the median), independent per leaf and request. Percentiles nearest-rank; "—" where the cell has too few queries for that percentile (p99 needs 100, p99.9 needs 1,000). ` +
      `Real run time ${realSeconds} s (${Object.entries(phase).map(([k, v]) => `${k} ${v} s`).join(', ')}); load average at the start of the run ${loadAtStart.map((x) => x.toFixed(1)).join(' / ')}.`,
    '',
    '## Cost model',
    '',
    ...calibrationLines(cal, cost),
    '',
    "## The seeds' table: P(at least one leaf beyond its p99)",
    '',
    `Flat gather of N leaves, lognormal service time (median 5 ms, σ 0.5), no network or CPU cost; a leaf is "beyond its p99" when its draw exceeds ${ms(seeds.leafP99)} ms. "query slow" = end-to-end latency above the one-leaf query's p99 (${ms(seeds.thresholdMs)} ms, measured the same way).`,
    '',
    '| N | trials | 1 − 0.99^N | measured | difference (pp) | within 2 pp | query slow |',
    '| ---: | ---: | ---: | ---: | ---: | --- | ---: |',
    ...seeds.rows.map((r) => `| ${r.n} | ${r.trials} | ${(r.expected * 100).toFixed(1)}% | ${(r.measured * 100).toFixed(1)}% | ${r.diffPp >= 0 ? '+' : ''}${r.diffPp.toFixed(2)} | ${r.within2pp ? 'yes' : `no (3 SE = ${r.tolPp.toFixed(1)} pp)`} | ${(r.querySlow * 100).toFixed(1)}% |`),
    '',
    '## Policies side by side',
    '',
    `Few-group query, standard latency, every layout that has all four: \`all\` (wait for every shard; deadline 600 s), \`partial@${DEADLINE_MS}\` (deadline_ms ${DEADLINE_MS}, answer with what arrived, labelled), and each with hedging (2 replicas per leaf in zones a and b, the real TailControl: hedge after the replica set's p95, floor 2 × p50, 5% budget; ${HEDGE_WARMUP} warm-up queries). Extra requests = hedges sent / leaf requests. Hedging is not simulated at 10,000 leaves (its warm-up alone would take ~40 s of real time per tree).`,
    '',
    ...policyTable(standard),
    '',
    '### Hedging against the Tail at Scale anchor',
    '',
    ...hedgeLines(cells),
    '',
    '## Depth: flat against trees',
    '',
    'Every simulated cell. Root CPU = modelled decode + merge work at the root per query. Layout "10×N/10" = root → 10 aggregators → N/10 leaves each (layoutTree(ids, 10, 2)); "100×N/100" is the 1:100:N tree; "zones" = correlated slow zones (per query each of 10 zones, a contiguous 10% of the leaves, is 100 ms slower with probability 2%).',
    '',
    ...depthTable(cells),
    '',
    '### Best layout (wait for all) and root CPU',
    '',
    '| query | N | metric | best layout | its latency | flat | root CPU: flat | root CPU: lowest tree |',
    '| --- | ---: | --- | --- | ---: | ---: | ---: | --- |',
    ...cross.map((c) => `| ${c.shape} | ${c.leaves.toLocaleString('en-US')} | ${c.metric} | ${c.best} | ${ms(c.bestValue)} | ${ms(c.flat)} | ${ms(c.flatCpuMs)} | ${c.treeCpu === null ? '—' : `${ms(c.treeCpu.ms)} (${c.treeCpu.layout})`} |`),
    '',
  ];
  if (validation !== null) md.push(...validation.markdown, '');
  else if (!opts.quick) md.push('## Validation against the HTTP tree', '', 'Failed to run (see the log).', '');
  else md.push('## Validation against the HTTP tree', '', 'Skipped in --quick runs (it starts six real trees of 10, 30 and 100 leaves).', '');
  md.push(`Charts: depth-p50.svg, depth-p99.svg. Answers checked: ${consistent ? "every answer's COUNT equals the rows of the shards it reports answered, and it is exact exactly when every shard answered" : '**some answers were inconsistent**'}.`);
  return {
    name: 'depth',
    data: { benchmark: 'depth', quick: opts.quick, deadlineMs: DEADLINE_MS, latency: STANDARD_LATENCY, zones: ZONE_LATENCY, shapes: SHAPES, calibration: cal, cost, seeds, cells, crossovers: cross, validation: validation?.data ?? null, validationWithin20: validation?.within20 ?? null, seedsOk, consistent, realSeconds, phaseSeconds: phase, loadAverageAtStart: loadAtStart },
    markdown: md.join('\n'),
    ok: consistent && seedsOk,
  };
}

export const depth: BenchModule = {
  description: 'tree depth vs flat fan-out, deadlines and hedging, 10 to 10,000 leaves (simulated; validated against the HTTP tree)',
  defaults: { full: { reps: 1, warmup: 0 }, quick: { reps: 1, warmup: 0 } },
  run,
};
