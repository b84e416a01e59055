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
 * The p99 chart is written next to the results as depth-p99.svg.
 */
import { setMaxListeners } from 'node:events';
import { writeFile } from 'node:fs/promises';
import { buildSimTree, tailTotals, type CostModel, type LatencyModel, type LayoutSpec, type PolicySpec, type QueryShape, type SimSample } from './sim/engine.ts';
import { calibrateCpu, costModel, type CpuCalibration } from './sim/calibrate.ts';
import { bytes, ms, summariseCell, svgChart, type CellSummary, type Series } from './sim/stats.ts';
import { validateAgainstHttp, type ValidationResult } from './sim/validate.ts';
import type { BenchModule, BenchOptions, BenchReport } from './common.ts';

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
export const POLICIES: readonly PolicySpec[] = [
  { id: 'all', policy: 'all', deadlineMs: 600_000 },
  { id: `partial@${DEADLINE_MS}`, policy: 'partial', deadlineMs: DEADLINE_MS },
];

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

/** Runs queries on a simulated tree until `target` samples or `capMs` of real time (at least one). */
async function runCell(tree: { run(p: PolicySpec): Promise<SimSample> }, policy: PolicySpec, target: number, capMs: number, warmup = 0): Promise<SimSample[]> {
  for (let i = 0; i < warmup; i++) await tree.run(policy);
  const t0 = performance.now();
  const out: SimSample[] = [];
  while (out.length < target && (out.length === 0 || performance.now() - t0 < capMs)) out.push(await tree.run(policy));
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

async function seedsTable(quick: boolean): Promise<{ rows: SeedRow[]; thresholdMs: number; leafP99: number }> {
  const spec = { kind: 'lognormal' as const, medianMs: 5, sigma: 0.5 };
  const leafP99 = spec.medianMs * Math.exp(spec.sigma * 2.3263478740408408);
  const shape = SHAPES[0]!;
  const trials = quick ? 500 : 3000;
  // Pure latency: no network, no CPU, so "query slow" isolates the maximum over N leaves.
  const cost: CostModel = { hopMs: 0, frameCpuMs: 0, groupCpuUs: 0, entryCpuUs: 0, encodeFrameMs: 0, encodeGroupUs: 0, encodeEntryUs: 0, rootMs: 0, bytesPerFrame: 0, bytesPerGroup: 0, bytesPerEntry: 0 };
  const wait = POLICIES[0]!;
  // The one-leaf query's p99 (end to end), the threshold for "the query was slow".
  const one = buildSimTree({ n: 1, layout: { id: 'flat', fanout: 1, depth: 1 }, shape, latency: { terms: [spec] }, cost, seed: 101, leafThresholdMs: leafP99 });
  const base = (await runCell(one, wait, trials * 2, Infinity)).map((s) => s.latencyMs).sort((a, b) => a - b);
  const thresholdMs = base[Math.ceil(0.99 * base.length) - 1]!;
  const rows: SeedRow[] = [];
  for (const n of [1, 10, 20, 50, 100]) {
    const t = buildSimTree({ n, layout: { id: 'flat', fanout: n, depth: 1 }, shape, latency: { terms: [spec] }, cost, seed: 200 + n, leafThresholdMs: leafP99 });
    const s = await runCell(t, wait, trials, Infinity);
    const measured = s.filter((x) => (x.leafOverP99 ?? 0) > 0).length / s.length;
    const expected = 1 - Math.pow(0.99, n);
    const diffPp = (measured - expected) * 100;
    const tolPp = 3 * Math.sqrt((expected * (1 - expected)) / s.length) * 100;
    rows.push({ n, trials: s.length, expected, measured, diffPp, tolPp, within2pp: Math.abs(diffPp) <= 2, querySlow: s.filter((x) => x.latencyMs > thresholdMs).length / s.length });
    log(`seeds: N=${n} P(some leaf > p99) ${(measured * 100).toFixed(1)}% vs ${(expected * 100).toFixed(1)}% (${s.length} trials)`);
  }
  return { rows, thresholdMs, leafP99 };
}

/** One depth cell. */
interface DepthCell extends CellSummary {
  readonly leaves: number;
  readonly layout: string;
  readonly depth: number;
  readonly shape: string;
  readonly policy: string;
  readonly latency: string;
  readonly hedge?: Record<string, number>;
}

async function depthCells(cost: CostModel, quick: boolean, budgetMs: number): Promise<DepthCell[]> {
  const ns = quick ? [100, 1000] : [100, 1000, 10_000];
  const targets: Record<number, number> = quick ? { 100: 200, 1000: 40 } : { 100: 1000, 1000: 300, 10000: 40 };
  const plan: { n: number; layout: LayoutSpec; shape: QueryShape }[] = [];
  for (const n of ns) for (const layout of layoutsFor(n).filter((l) => !quick || l.depth <= 3)) for (const shape of SHAPES) plan.push({ n, layout, shape });
  // Budget: shared evenly over the (layout, shape) pairs, each running both policies.
  const cap = budgetMs / (plan.length * POLICIES.length);
  const cells: DepthCell[] = [];
  for (const { n, layout, shape } of plan) {
    const tree = buildSimTree({ n, layout, shape, latency: STANDARD_LATENCY, cost, seed: 7 + n });
    for (const policy of POLICIES) {
      const t0 = performance.now();
      const s = await runCell(tree, policy, targets[n]!, cap);
      const c = summariseCell(s);
      cells.push({ leaves: n, layout: layout.id, depth: tree.depth, shape: shape.id, policy: policy.id, latency: 'standard', ...c });
      log(`N=${n} ${layout.id} ${shape.id} ${policy.id}: n=${c.n} p50 ${ms(c.p50)} p99 ${ms(c.p99)} root CPU ${ms(c.rootCpuMs)} ms coverage ${c.coverage} (${Math.round(performance.now() - t0)} ms real)`);
    }
  }
  return cells;
}

/** Extra scenarios at N = 1,000, few groups: correlated slow zones, and hedging (2 replicas per leaf). */
async function extraCells(cost: CostModel, quick: boolean, budgetMs: number): Promise<DepthCell[]> {
  const n = quick ? 100 : 1000;
  const target = quick ? 100 : 300;
  const shape = SHAPES[0]!;
  const layouts = layoutsFor(n).filter((l) => l.depth <= 2);
  const runs: { latency: LatencyModel; name: string; hedge: boolean }[] = [
    { latency: ZONE_LATENCY, name: 'zones', hedge: false },
    { latency: STANDARD_LATENCY, name: 'standard', hedge: true },
  ];
  const cap = budgetMs / (layouts.length * runs.length * POLICIES.length);
  const cells: DepthCell[] = [];
  for (const r of runs) {
    for (const layout of layouts) {
      const tree = buildSimTree({ n, layout, shape, latency: r.latency, cost, seed: 99 + n, hedge: r.hedge });
      for (const policy of POLICIES) {
        const s = await runCell(tree, policy, target, cap, r.hedge ? 30 : 0);
        const c = summariseCell(s);
        const cell: DepthCell = { leaves: n, layout: layout.id, depth: tree.depth, shape: shape.id, policy: r.hedge ? `${policy.id}+hedge` : policy.id, latency: r.name, ...c, ...(r.hedge ? { hedge: tailTotals(tree.tails) } : {}) };
        cells.push(cell);
        log(`extra ${r.name}${r.hedge ? '+hedge' : ''} N=${n} ${layout.id} ${policy.id}: n=${c.n} p50 ${ms(c.p50)} p99 ${ms(c.p99)}`);
      }
    }
  }
  return cells;
}

function labelMix(l: Readonly<Record<string, number>>, n: number): string {
  const f = (k: string): string => `${Math.round(((l[k] ?? 0) / n) * 100)}%`;
  return `${f('exact')} / ${f('bounded')} / ${f('approximate')} / ${f('error')}`;
}

function depthTable(cells: readonly DepthCell[]): string[] {
  const lines = [
    '| N | layout | depth | query | policy | n | p50 | p99 | p99.9 | root CPU ms | into root: frames / groups / bytes | coverage (complete) | exact / bounded / approx / error |',
    '| ---: | --- | ---: | --- | --- | ---: | ---: | ---: | ---: | ---: | --- | --- | --- |',
  ];
  for (const c of cells) {
    lines.push(
      `| ${c.leaves.toLocaleString('en-US')} | ${c.layout} | ${c.depth} | ${c.shape} | ${c.policy} | ${c.n} | ${ms(c.p50)} | ${ms(c.p99)} | ${ms(c.p999)} | ${ms(c.rootCpuMs)} | ${Math.round(c.rootFrames)} / ${c.rootGroups.toLocaleString('en-US')} / ${bytes(c.rootBytes)} | ${(c.coverage * 100).toFixed(1)}% (${Math.round(c.complete * 100)}%) | ${labelMix(c.labels, c.n)} |`,
    );
  }
  return lines;
}

/** Best layout per (N, query) for wait-for-all by p99 (p50 when too few samples), and the crossover statement. */
function crossovers(cells: readonly DepthCell[]): { shape: string; leaves: number; best: string; flat: number | null; bestValue: number | null; metric: string }[] {
  const out: { shape: string; leaves: number; best: string; flat: number | null; bestValue: number | null; metric: string }[] = [];
  for (const shape of SHAPES) {
    for (const n of [...new Set(cells.map((c) => c.leaves))]) {
      const mine = cells.filter((c) => c.shape === shape.id && c.leaves === n && c.policy === 'all' && c.latency === 'standard');
      if (mine.length === 0) continue;
      const metric = mine.every((c) => c.p99 !== null) ? 'p99' : 'p50';
      const v = (c: DepthCell): number => (metric === 'p99' ? c.p99! : (c.p50 ?? c.max));
      const best = [...mine].sort((a, b) => v(a) - v(b))[0]!;
      const flat = mine.find((c) => c.depth === 1);
      out.push({ shape: shape.id, leaves: n, best: best.layout, flat: flat === undefined ? null : v(flat), bestValue: v(best), metric });
    }
  }
  return out;
}

function calibrationLines(cal: CpuCalibration, cost: CostModel): string[] {
  return [
    `Measured on this machine with the real wire and merge code (lower quartile of the runs): receiving a frame (decode + merge) costs ${ms(cal.frameMs)} ms + ${cal.groupUs.toFixed(2)} µs per group + ${cal.entryUs.toFixed(2)} µs per provenance entry; sending it (encode) ${ms(cal.encodeFrameMs)} ms + ${cal.encodeGroupUs.toFixed(2)} µs per group + ${cal.encodeEntryUs.toFixed(2)} µs per entry; ` +
      `${cal.bytesPerFrame} B + ${cal.bytesPerGroup.toFixed(1)} B per group + ${cal.bytesPerEntry.toFixed(1)} B per entry on the wire. ` +
      `Simulated network: ${cost.hopMs} ms one way per hop; root overhead ${cost.rootMs} ms per query.`,
  ];
}

async function run(opts: BenchOptions): Promise<BenchReport> {
  const t0 = performance.now();
  // The gather registers two abort listeners per child on shared signals: thousands at a flat root.
  setMaxListeners(1_000_000);
  const stackLimit = Error.stackTraceLimit;
  // Stack traces of the CanopyErrors a gather makes per child are a large share of the real CPU
  // of a simulated query and change nothing in virtual time; they are off while simulating.
  Error.stackTraceLimit = 0;
  let cal: CpuCalibration;
  let seeds: Awaited<ReturnType<typeof seedsTable>>;
  let cells: DepthCell[];
  let extra: DepthCell[];
  let cost: CostModel;
  try {
    Error.stackTraceLimit = stackLimit;
    cal = calibrateCpu(opts.quick);
    Error.stackTraceLimit = 0;
    cost = costModel(cal, 0.25, 1, 0.05);
    log(`calibrated: frame ${ms(cal.frameMs)} ms, ${cal.groupUs.toFixed(2)} µs/group, ${cal.entryUs.toFixed(2)} µs/entry`);
    seeds = await seedsTable(opts.quick);
    cells = await depthCells(cost, opts.quick, opts.quick ? 14_000 : 300_000);
    extra = await extraCells(cost, opts.quick, opts.quick ? 5_000 : 60_000);
  } finally {
    Error.stackTraceLimit = stackLimit;
    setMaxListeners(10);
  }
  let validation: ValidationResult | null = null;
  if (!opts.quick) {
    setMaxListeners(1_000_000);
    try {
      validation = await validateAgainstHttp(cal, log);
    } catch (e) {
      log(`validation failed: ${(e as Error).message}`);
    } finally {
      setMaxListeners(10);
    }
  }
  const cross = crossovers(cells);
  const series: Series[] = [];
  for (const shape of SHAPES) {
    for (const id of ['flat', '10×N/10', '10×10×N/100']) {
      const pts = cells.filter((c) => c.shape === shape.id && c.layout === id && c.policy === 'all' && (c.p99 !== null || c.p50 !== null)).map((c) => ({ x: c.leaves, y: c.p99 ?? c.max }));
      if (pts.length > 0) series.push({ name: `${shape.id}, ${id}`, points: pts });
    }
  }
  const svg = svgChart('simulated p99 latency, wait for all', series, 'leaves (N)', 'p99 ms (max where n < 100)');
  const dir = new URL(opts.quick ? './results/quick/' : './results/', import.meta.url);
  await writeFile(new URL('depth-p99.svg', dir), svg);

  const seedsOk = seeds.rows.every((r) => (opts.quick ? Math.abs(r.diffPp) <= Math.max(2, r.tolPp) : r.within2pp));
  const consistent = [...cells, ...extra].every((c) => c.consistent);
  const md: string[] = [
    `# depth benchmark${opts.quick ? ' (quick)' : ''}`,
    '',
    'Simulated: the real root, gather engine, aggregators and replica sets, over simulated links and leaves on a virtual clock (src/transport/simulated.ts, bench/sim/). ' +
      `Leaves: lognormal service time (median 5 ms, σ 0.5) + 1% stragglers (+45 ms, 10× the median), independent per leaf and request. Percentiles nearest-rank; "—" where the cell has too few queries for that percentile (p99 needs 100, p99.9 needs 1,000). Real run time ${Math.round((performance.now() - t0) / 1000)} s.`,
    '',
    '## Cost model',
    '',
    ...calibrationLines(cal, cost),
    '',
    '## The seeds\' table: P(at least one leaf beyond its p99)',
    '',
    `Flat gather of N leaves, lognormal service time (median 5 ms, σ 0.5), no network or CPU cost; a leaf is "beyond its p99" when its draw exceeds ${ms(seeds.leafP99)} ms. "query slow" = end-to-end latency above the one-leaf query's p99 (${ms(seeds.thresholdMs)} ms, measured the same way).`,
    '',
    '| N | trials | 1 − 0.99^N | measured | difference (pp) | within 2 pp | query slow |',
    '| ---: | ---: | ---: | ---: | ---: | --- | ---: |',
    ...seeds.rows.map((r) => `| ${r.n} | ${r.trials} | ${(r.expected * 100).toFixed(1)}% | ${(r.measured * 100).toFixed(1)}% | ${r.diffPp >= 0 ? '+' : ''}${r.diffPp.toFixed(2)} | ${r.within2pp ? 'yes' : `no (3 SE = ${r.tolPp.toFixed(1)} pp)`} | ${(r.querySlow * 100).toFixed(1)}% |`),
    '',
    '## Depth: flat against trees',
    '',
    `Policies: \`all\` (wait for every shard; deadline 600 s) and \`partial@${DEADLINE_MS}\` (deadline_ms ${DEADLINE_MS}, answer with what arrived, labelled). Root CPU = modelled decode + merge work at the root per query. Layout "10×N/10" = root → 10 aggregators → N/10 leaves each (layoutTree(ids, 10, 2)); "100×N/100" is the 1:100:N tree.`,
    '',
    ...depthTable(cells),
    '',
    '### Best layout (wait for all)',
    '',
    '| query | N | best layout | its latency | flat | metric |',
    '| --- | ---: | --- | ---: | ---: | --- |',
    ...cross.map((c) => `| ${c.shape} | ${c.leaves.toLocaleString('en-US')} | ${c.best} | ${ms(c.bestValue)} | ${ms(c.flat)} | ${c.metric} |`),
    '',
    '## Correlated slow zones and hedging',
    '',
    'Zones: per query each of 10 zones (contiguous 10% of the leaves) is 100 ms slower with probability 2%. Hedge: 2 replicas per leaf (zones a, b), the real TailControl (hedge after the p95 of the replica set, floor 2 × p50, 5% budget), 30 warm-up queries.',
    '',
    ...depthTable(extra),
    ...extra.filter((c) => c.hedge !== undefined).map((c) => `- ${c.layout} ${c.policy}: hedges sent ${c.hedge!.hedgesSent ?? 0}, won ${c.hedge!.hedgesWon ?? 0}, denied by the budget ${c.hedge!.hedgesDenied ?? 0} (over ${c.n} measured + 30 warm-up queries)`),
    '',
  ];
  if (validation !== null) md.push(...validation.markdown, '');
  else if (!opts.quick) md.push('## Validation against the HTTP tree', '', 'Failed to run (see the log).', '');
  else md.push('## Validation against the HTTP tree', '', 'Skipped in --quick runs (it starts real trees of 10, 30 and 100 leaves).', '');
  md.push(`Chart: depth-p99.svg. Answers checked: ${consistent ? 'every answer\'s COUNT equals the rows of the shards it reports answered, and it is exact exactly when every shard answered' : '**some answers were inconsistent**'}.`);
  return {
    name: 'depth',
    data: { benchmark: 'depth', quick: opts.quick, deadlineMs: DEADLINE_MS, latency: STANDARD_LATENCY, zones: ZONE_LATENCY, shapes: SHAPES, calibration: cal, cost, seeds, cells, extra, crossovers: cross, validation: validation?.data ?? null, seedsOk, consistent, realSeconds: Math.round((performance.now() - t0) / 1000) },
    markdown: md.join('\n'),
    ok: consistent && seedsOk,
  };
}

export const depth: BenchModule = {
  description: 'tree depth vs flat fan-out, deadlines and hedging, 10 to 10,000 leaves (simulated; validated against the HTTP tree)',
  defaults: { full: { reps: 1, warmup: 0 }, quick: { reps: 1, warmup: 0 } },
  run,
};
