/**
 * `depth` benchmark: tree depth against flat fan-out, deadlines and hedging, from 10 to
 * 10,000 leaves, in the simulator (src/sim/engine.ts: the real root, gather engine,
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
import {
  DEADLINE_MS,
  HEDGE_WARMUP,
  PARTIAL,
  SEED_LEAF_P99,
  SHAPES,
  STANDARD_LATENCY,
  WAIT_ALL,
  ZONE_LATENCY,
  bytes,
  calibrateCpu,
  costModel,
  layoutsFor,
  ms,
  runInProcesses,
  svgChart,
  treeTask,
  type CostModel,
  type CpuCalibration,
  type DepthCell,
  type LayoutSpec,
  type QueryShape,
  type Series,
  type TreePlan,
} from '../src/sim/index.ts';
import { validateAgainstHttp, type ValidationResult } from './depth-validate.ts';
import type { BenchModule, BenchOptions, BenchReport } from './common.ts';

/** The validation's budget: 500 measured queries per real tree (nearest-rank p99 = the 6th largest), after 30 warm-up ones; 2,000 simulated. */
const VALIDATION = { queries: 500, warmup: 30, simQueries: 2000 } as const;

function log(msg: string): void {
  process.stderr.write(`[depth] ${msg}\n`);
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

/** The seeds' table's flat trees: N and trials (the one-leaf tree twice over, for the threshold). */
function seedTrees(quick: boolean, trials = quick ? 300 : 3000): { n: number; trials: number; seed: number }[] {
  return [{ n: 1, trials: trials * 2, seed: 101 }, ...[1, 10, 20, 50, 100].map((n) => ({ n, trials, seed: 200 + n }))];
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

/** Heading of the validation section in depth.md (written by bench/depth-validate.ts). */
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
  const seedTasks = trees.map((x) => treeTask('seedTree', [x.n, x.trials, x.seed], x.trials * x.n));
  const treeTasks = plan.map((p) => treeTask('depthCells', [cost, [p]], planCost(p)));
  const results = await runInProcesses<unknown>([...seedTasks, ...treeTasks], sizes.processes);
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
    'Simulated: the real root, gather engine, aggregators and replica sets, over simulated links and leaves on a virtual clock (src/sim/). ' +
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
