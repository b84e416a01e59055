/**
 * The simulator of the `depth` benchmark: the real root, aggregators (one gather engine) and,
 * optionally, replica sets with hedging, over simulated links and leaves on one virtual clock
 * (./transport.ts, ./clock.ts).
 *
 * The model (documented in the README section "Benchmarks: depth"):
 * - leaf service time: a sum of fault-layer latency terms (src/leaf/faults.ts `drawLatency`:
 *   fixed, lognormal, straggler) drawn per request from a seeded stream per leaf, plus an
 *   optional correlated term: per query, each zone (a contiguous block of leaves, like a rack
 *   under one aggregator) is slow with probability p, adding ms to every leaf in it;
 * - every hop: a fixed one-way network latency each way;
 * - every frame a node takes in costs its (serial) CPU `frameCpuMs + groups·groupCpuUs +
 *   entries·entryCpuUs` (decode, merge and the per-shard provenance), queued FIFO;
 * - the root adds `rootMs` once per query (parse, plan, finalise, reply), and optionally
 *   `requestCpuMs` of its CPU per child request sent;
 * - optionally (the validation against the real tree, `HostModel`), leaves share host
 *   processes whose serial CPUs run their scans one after another;
 * - groups: a leaf answers G groups drawn from a key space of K; a node with m answered
 *   leaves below passes up K·(1 − (1 − G/K)^m) groups (expected distinct keys), at most m·G.
 *   The frames themselves carry at most 8 real groups (so the real merge stays cheap); the
 *   cost model charges the nominal count.
 */
import { TailControl, createAggregator } from '../aggregator/index.ts';
import { drawLatency, seededRandom, type LatencySpec } from '../leaf/index.ts';
import { layoutOf, withShardMoments, type Catalog, type ColumnarPartial, type Frame, type Partial, type ScanPlan, type ShardInfo, type TableSchema } from '../merge/index.ts';
import { ROOT_NODE, buildTree, layoutTree, placeReplicas, treeDepth, zoneNames, type CompletionPolicy, type QueryAnswer, type TreeNode } from '../root/index.ts';
import { inProcessChild, type Child } from '../transport/index.ts';
import { VirtualClock } from './clock.ts';
import { SimCpu, simulatedLeaf, simulatedLink } from './transport.ts';

/** Leaf latency model. */
export interface LatencyModel {
  /** Terms summed per request (the fault layer's distributions). */
  readonly terms: readonly LatencySpec[];
  /** Correlated slowness: per query, each of `zones` contiguous blocks of leaves is slow with probability `p`, by `ms`. */
  readonly zone?: { readonly zones: number; readonly p: number; readonly ms: number };
}

/** Network and CPU costs. */
export interface CostModel {
  /** One-way network latency per hop, ms. */
  readonly hopMs: number;
  /** CPU per frame taken in, ms (HTTP request/response handling, frame header). */
  readonly frameCpuMs: number;
  /** CPU per group taken in, µs (Arrow decode + merge, and the sender's encode). */
  readonly groupCpuUs: number;
  /** CPU per provenance entry (one per shard below the child), µs. */
  readonly entryCpuUs: number;
  /** Sender's encode (aggregators; a leaf's is in its latency): ms per frame, µs per group, µs per entry. */
  readonly encodeFrameMs: number;
  readonly encodeGroupUs: number;
  readonly encodeEntryUs: number;
  /** Root's fixed work per query, ms. */
  readonly rootMs: number;
  /** CPU of a parent to send one child request, ms (serial on the parent; default 0). */
  readonly requestCpuMs?: number;
  readonly bytesPerFrame: number;
  readonly bytesPerGroup: number;
  readonly bytesPerEntry: number;
}

/**
 * Leaf hosts, as in the real local tree: the leaves are logical servers inside `count`
 * processes (leaf i on host i mod count), and each request's scan costs its host's serial
 * CPU, so the scans of one host queue behind each other; the latency terms are waits that
 * hold no CPU (like the fault layer's injected delay, drawn before the scan).
 */
export interface HostModel {
  /** Host processes; leaf i (in layout order) lives on host i mod count. */
  readonly count: number;
  /** CPU per leaf request on its host, all of it (HTTP, scan, encode), ms: the validation sets it to a + k × the in-process scan. */
  readonly scanMs: number;
  /**
   * Contention: per query, each host's CPU costs are scaled by a lognormal factor with
   * median 1 (when `slowCenter` is 0) and this σ (other processes on the same cores, GC). 0: none.
   */
  readonly slowSigma: number;
  /**
   * Centre of the contention factor in standard deviations: the factor is
   * exp(σ × (z − slowCenter)), z standard normal. 0 (default): each host's factor has
   * median 1; Φ⁻¹(0.5^(1/count)): the slowest host's factor has median 1 (when a model is
   * fitted to median arrival times, which the slowest host sets).
   */
  readonly slowCenter?: number;
  /**
   * Stalls (GC pauses, the process descheduled): per query, each host independently stalls
   * with probability `p` for an exponentially distributed time of mean `meanMs`, added to the
   * CPU of one of its requests drawn uniformly (so the stall lands somewhere inside the host's
   * work and delays every answer queued behind it). Absent: none.
   */
  readonly stall?: { readonly p: number; readonly meanMs: number };
}

/** A query shape: groups per leaf and the key space they come from. */
export interface QueryShape {
  readonly id: string;
  readonly label: string;
  readonly groupsPerLeaf: number;
  readonly keySpace: number;
}

/** A layout: `layoutTree(ids, fanout, depth)`. */
export interface LayoutSpec {
  readonly id: string;
  readonly fanout: number;
  readonly depth: number;
}

/** A completion policy: wait for all (no effective deadline) or a deadline with partial answers; optionally hedged (2 replicas per leaf). */
export interface PolicySpec {
  readonly id: string;
  readonly policy: CompletionPolicy;
  readonly deadlineMs: number;
  readonly hedge?: boolean;
}

/** Expected distinct groups passed up by a node with `m` answered leaves below. */
export function nominalGroups(shape: QueryShape, m: number): number {
  if (m <= 0) return 0;
  const g = shape.groupsPerLeaf;
  const k = shape.keySpace;
  return Math.min(m * g, k * (1 - Math.pow(1 - g / k, m)));
}

const REAL_GROUPS = 8;
const ROWS_PER_SHARD = 1000;
export const SIM_SQL = 'SELECT g, count(*) FROM t GROUP BY g';
const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }] };

function catalogOf(n: number): Catalog {
  const shards: ShardInfo[] = Array.from({ length: n }, (_, id) => ({ id, rows: ROWS_PER_SHARD, partition: `sim ${id}/${n}`, columns: { g: { min: 'g0', max: `g${REAL_GROUPS - 1}`, nullCount: 0 } } }));
  return { table: schema, partitioning: { kind: 'hash' }, shards };
}

/**
 * A simulated shard's partial for the plan asked: COUNT(*) of each group, and, where the root
 * planned estimates (the catalog says hash), the shard's `moments` from the same leaf hook.
 */
function leafPartial(realGroups: number, plan: ScanPlan): Partial {
  const keys = Array.from({ length: realGroups }, (_, i) => `g${i}`);
  const per = ROWS_PER_SHARD / realGroups;
  const counts: ColumnarPartial = { type: 'columnar', size: realGroups, keys: [keys], states: plan.partials.map((p) => keys.map(() => (p.kind === 'moments' ? 0 : per))) };
  return withShardMoments(layoutOf(plan, schema), counts, ROWS_PER_SHARD);
}

/** One measured query. */
export interface SimSample {
  readonly latencyMs: number;
  /** The answer's label, or `error` when the query failed (no shard answered in time). */
  readonly label: QueryAnswer['label'] | 'error';
  readonly answered: number;
  readonly shards: number;
  readonly rootCpuMs: number;
  readonly rootBytes: number;
  readonly rootGroups: number;
  readonly rootFrames: number;
  /** Leaf service times drawn in this query (first attempt per leaf), when instrumented. */
  readonly leafMax?: number;
  readonly leafOverP99?: number;
  /** COUNT(*) summed over the answer equals rows of the answered shards. */
  readonly consistent: boolean;
  /** The root's per-child elapsed times (trace), ms, when {@link SimTreeOptions.trace} is on. */
  readonly childMs?: readonly number[];
}

/** A built simulated tree, ready to run queries one after another. */
export interface SimTree {
  readonly n: number;
  readonly depth: number;
  readonly clock: VirtualClock;
  /** Tail controls (hedged trees): one per node gathering from leaves. */
  readonly tails: readonly TailControl[];
  run(policy: PolicySpec): Promise<SimSample>;
}

/** Options of {@link buildSimTree}. */
export interface SimTreeOptions {
  readonly n: number;
  readonly layout: LayoutSpec;
  readonly shape: QueryShape;
  readonly latency: LatencyModel;
  readonly cost: CostModel;
  readonly seed: number;
  /** Two replicas per leaf in zones a and b, under one TailControl per gathering node with hedging on. */
  readonly hedge?: boolean;
  /** Leaf latency quantile to count exceedances of (e.g. the p99 of one draw), ms. */
  readonly leafThresholdMs?: number;
  /** Leaves share host processes (the validation against the real tree); absent: every leaf is its own server. */
  readonly hosts?: HostModel;
  /** Ask for the root's per-child timings (`SimSample.childMs`). */
  readonly trace?: boolean;
}

/** Builds the tree with `buildTree` (the one tree builder): the real aggregators, replica sets and Root over simulated links and leaves. */
export function buildSimTree(o: SimTreeOptions): SimTree {
  const clock = new VirtualClock();
  const ids = Array.from({ length: o.n }, (_, i) => i);
  const layout: TreeNode[] = o.layout.depth === 1 ? layoutTree(ids, Math.max(o.n, 2), 1) : layoutTree(ids, o.layout.fanout, o.layout.depth);
  const cpus: SimCpu[] = [];
  const rootCpu = new SimCpu('root');
  cpus.push(rootCpu);
  const real = Math.min(REAL_GROUPS, o.shape.groupsPerLeaf);
  const partials = new Map<number, Partial>();
  const partialFor = (plan: ScanPlan): Partial => {
    let p = partials.get(plan.partials.length);
    if (p === undefined) {
      p = leafPartial(real, plan);
      partials.set(plan.partials.length, p);
    }
    return p;
  };
  const c = o.cost;
  const cost = (f: Frame) => {
    let answered = 0;
    for (const p of f.provenance) if (p.status === 'answered') answered++;
    const groups = nominalGroups(o.shape, answered);
    const entries = f.provenance.length;
    return {
      cpuMs: c.frameCpuMs + (groups * c.groupCpuUs + entries * c.entryCpuUs) / 1000,
      senderMs: c.encodeFrameMs + (groups * c.encodeGroupUs + entries * c.encodeEntryUs) / 1000,
      bytes: c.bytesPerFrame + groups * c.bytesPerGroup + entries * c.bytesPerEntry,
      groups,
    };
  };
  // Per-query state: the correlated zone draw and the leaf instrumentation.
  const zoneRand = seededRandom(o.seed * 31 + 17);
  let slowZones: boolean[] = [];
  let leafMax = 0;
  let over = 0;
  const zoneOf = (leafIndex: number): number => (o.latency.zone === undefined ? 0 : Math.floor((leafIndex * o.latency.zone.zones) / o.n));
  const tails: TailControl[] = [];
  const hosts = o.hosts === undefined ? [] : Array.from({ length: o.hosts.count }, (_, i) => new SimCpu(`host-${i}`));
  const hostScale = hosts.map(() => 1);
  const hostRand = seededRandom(o.seed * 53 + 5);
  const stallRand = seededRandom(o.seed * 59 + 3);
  // Per host and query: requests served so far, the one that carries the stall (-1: none) and its length.
  const hostServed = hosts.map(() => 0);
  const stallAt = hosts.map(() => -1);
  const stallMs = hosts.map(() => 0);
  const hostLeaves = hosts.map(() => 0);
  let leafCount = 0;
  const makeLeaf = (node: TreeNode, replica: number): Child => {
    const idx = node.shards[0]!;
    const rand = seededRandom(o.seed * 1_000_003 + idx * 7919 + replica * 104_729);
    const h = hosts.length === 0 ? -1 : leafCount++ % hosts.length;
    if (h >= 0) hostLeaves[h]!++;
    const host = h < 0 ? {} : { host: { cpu: hosts[h]!, cpuMs: () => o.hosts!.scanMs * hostScale[h]! + (hostServed[h]!++ === stallAt[h] ? stallMs[h]! : 0) } };
    return simulatedLeaf(clock, replica < 0 ? node.name : `${node.name}.r${replica}`, node.shards, {
      ...host,
      rowsPerShard: ROWS_PER_SHARD,
      partial: (req) => partialFor(req.plan),
      latency: () => {
        let ms = 0;
        for (const t of o.latency.terms) ms += drawLatency(t, rand);
        if (o.latency.zone !== undefined && slowZones[zoneOf(idx)] === true) ms += o.latency.zone.ms;
        return ms;
      },
      onDraw: (ms) => {
        if (replica > 0) return;
        if (ms > leafMax) leafMax = ms;
        if (o.leafThresholdMs !== undefined && ms > o.leafThresholdMs) over++;
      },
    });
  };
  const newTail = (): TailControl => {
    const t = new TailControl({ hedge: {}, clock, random: seededRandom(o.seed + tails.length) });
    tails.push(t);
    return t;
  };
  const cpuOf = new Map<string, SimCpu>([[ROOT_NODE, rootCpu]]);
  const link = (ch: Child, parent: string, sender?: SimCpu): Child =>
    simulatedLink(clock, ch, { oneWayMs: c.hopMs, receiver: cpuOf.get(parent)!, cost, ...(c.requestCpuMs === undefined ? {} : { requestCpuMs: c.requestCpuMs }), ...(sender === undefined ? {} : { sender }) });
  // With hedging every leaf has two replicas (zones a and b) under one TailControl per node above them.
  const { root } = buildTree({
    table: 't',
    catalog: catalogOf(o.n),
    layout: o.hedge === true ? placeReplicas(layout, 2, zoneNames(2)) : layout,
    clock,
    root: { clock, maxDeadlineMs: 10_000_000 },
    tail: () => (o.hedge === true ? newTail() : undefined),
    leaf: (node, { parent, replica }) => link(makeLeaf(node, replica?.index ?? -1), parent),
    aggregator: (node, { parent }, children) => {
      const cpu = new SimCpu(node.name);
      cpus.push(cpu);
      cpuOf.set(node.name, cpu);
      const agg = createAggregator(node.name, children(), { clock, maxFanout: Infinity });
      return link(inProcessChild(agg.name, agg.shards, agg.handler), parent, cpu);
    },
  });

  return {
    n: o.n,
    depth: treeDepth(layout),
    clock,
    tails,
    async run(policy: PolicySpec): Promise<SimSample> {
      // Queries are independent: work a previous query left queued (past its deadline) is forgotten.
      for (const cpu of cpus) cpu.reset();
      for (const cpu of hosts) cpu.reset();
      if (o.hosts !== undefined && o.hosts.slowSigma > 0) for (let i = 0; i < hostScale.length; i++) hostScale[i] = Math.exp(o.hosts.slowSigma * (normal(hostRand) - (o.hosts.slowCenter ?? 0)));
      const stall = o.hosts?.stall;
      for (let i = 0; i < hosts.length; i++) {
        hostServed[i] = 0;
        stallAt[i] = -1;
        if (stall !== undefined && stall.p > 0 && stallRand() < stall.p) {
          stallAt[i] = Math.floor(stallRand() * hostLeaves[i]!);
          stallMs[i] = -stall.meanMs * Math.log(1 - stallRand());
        }
      }
      if (o.latency.zone !== undefined) slowZones = Array.from({ length: o.latency.zone.zones }, () => zoneRand() < o.latency.zone!.p);
      leafMax = 0;
      over = 0;
      const t0 = clock.now();
      const answer = await clock.run(() => root.query({ sql: SIM_SQL, deadline_ms: policy.deadlineMs, policy: policy.policy, ...(o.trace === true ? { trace: true } : {}) }, new AbortController().signal)).catch((e: unknown) => e);
      const elapsed = clock.now() - t0 + c.rootMs;
      if (answer instanceof Error) {
        // No coverage at all (every shard missed the deadline): an error answer.
        return { latencyMs: elapsed, label: 'error', answered: 0, shards: o.n, rootCpuMs: rootCpu.busyMs, rootBytes: rootCpu.bytes, rootGroups: rootCpu.groups, rootFrames: rootCpu.frames, leafMax, leafOverP99: over, consistent: (answer as { code?: string }).code === 'CANOPY_ERR_NO_COVERAGE' };
      }
      const a = answer as QueryAnswer;
      const total = a.rows.reduce((s, r) => s + Number(r[1]), 0);
      return {
        latencyMs: elapsed,
        label: a.label,
        answered: a.coverage.answered,
        shards: a.coverage.shards,
        rootCpuMs: rootCpu.busyMs,
        rootBytes: rootCpu.bytes,
        rootGroups: rootCpu.groups,
        rootFrames: rootCpu.frames,
        leafMax,
        leafOverP99: over,
        consistent: total === a.coverage.answered * ROWS_PER_SHARD && (a.label === 'exact') === (a.coverage.answered === a.coverage.shards),
        ...(a.timings === undefined ? {} : { childMs: a.timings.filter((t) => t.gather === 'root').map((t) => t.elapsedMs) }),
      };
    },
  };
}

/** A standard normal draw (Box-Muller) from a uniform source. */
function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** Sums tail counters over a tree's tail controls. */
export function tailTotals(tails: readonly TailControl[]): Record<string, number> {
  const out: Record<string, number> = {};
  for (const t of tails) for (const [k, v] of Object.entries(t.counters)) out[k] = (out[k] ?? 0) + v;
  return out;
}
