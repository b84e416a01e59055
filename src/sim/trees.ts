/**
 * The standard simulated trees of the depth benchmark and of `recommend`: leaf latency
 * models, query shapes, policies, tree layouts for N leaves, and the functions that simulate
 * a planned tree ({@link depthCells}) or a tree of the seeds' table ({@link seedTree}). The
 * worker processes (./worker.ts) run these; bench/depth.ts plans and reports them.
 */
import { buildSimTree, tailTotals, type CostModel, type LatencyModel, type LayoutSpec, type PolicySpec, type QueryShape, type SimSample } from './engine.ts';
import { ms, summariseCell, type CellSummary } from './stats.ts';

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

/** The deadline of the `partial` policy, ms. */
export const DEADLINE_MS = 100;
/** Wait for every shard (the deadline is effectively off). */
export const WAIT_ALL: PolicySpec = { id: 'all', policy: 'all', deadlineMs: 600_000 };
/** Deadline with partial answers. */
export const PARTIAL: PolicySpec = { id: `partial@${DEADLINE_MS}`, policy: 'partial', deadlineMs: DEADLINE_MS };
export const POLICIES: readonly PolicySpec[] = [WAIT_ALL, PARTIAL];
/** Queries a hedged tree runs before it is measured: the tail control hedges only once a replica set has 20 latencies (HEDGE_DEFAULTS.minSamples). */
export const HEDGE_WARMUP = 25;

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
export async function runQueries(tree: { run(p: PolicySpec): Promise<SimSample> }, policy: PolicySpec, count: number): Promise<SimSample[]> {
  const out: SimSample[] = [];
  for (let i = 0; i < count; i++) out.push(await tree.run(policy));
  return out;
}

/** The seeds' leaf latency: lognormal, median 5 ms, σ 0.5, and its p99 (ms). */
const SEED_SPEC = { kind: 'lognormal' as const, medianMs: 5, sigma: 0.5 };
export const SEED_LEAF_P99 = SEED_SPEC.medianMs * Math.exp(SEED_SPEC.sigma * 2.3263478740408408);
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

