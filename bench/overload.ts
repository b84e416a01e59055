/**
 * `overload` benchmark: admission control at twice the tree's capacity.
 *
 * The root code is the real one (Root, gather, the Admission class with its `admit`, as the
 * root's HTTP app calls it), over 10 leaves on 2 leaf hosts; time is virtual (the simulated
 * transport's VirtualClock: the root's clock, its deadline timers and the admission queue's
 * timers all run on it), so the figures do not depend on this machine's load. The shared
 * machine this was written on ran at load averages of 10 to 16 on 2 CPUs, where wall-clock
 * timings of an in-process tree at "twice capacity" measured the other tenants, not canopy.
 *
 * Model of the leaf tier, calibrated in the same run: each leaf request costs its host the
 * CPU time a real in-process leaf spends on that query (measured with `process.cpuUsage` over
 * the real tree, per query of the mix, divided by the shards), served first come first served,
 * one request at a time per host (a Node process); a request whose parent gave up (deadline,
 * cancellation) leaves the host's queue, and one being served stops at once (real leaves stop
 * between 8k-row batches). Each leaf answers with the frame the real leaf computed for that
 * query (cached), so every answer is checked against the truth. The root's own CPU, the
 * network and HTTP are not modelled.
 *
 * 1. Capacity: a closed loop of {@link CLOSED_CONCURRENCY} clients (the root's in-flight limit)
 *    for the warm-up seconds (virtual); capacity = exact answers within the deadline per second.
 * 2. Overload: Poisson arrivals (open loop, seeded) at twice that rate for `--reps` seconds
 *    (virtual), once per admission policy: the defaults (16 running, 64 queued, a queued query
 *    waits at most half its deadline), the previous policy (a queued query may wait its whole
 *    deadline), a long queue (1,000 waiting: longer than capacity x deadline) with either wait
 *    bound, and no admission control.
 *
 * Goodput = exact answers (label exact, every shard answered, rows equal to the truth) whose
 * latency from arrival is within `deadline_ms`, per second. Reported: goodput as a share of
 * capacity (target >= 90%), admitted queries' p50/p99 against the deadline, refusals (503
 * CANOPY_ERR_OVERLOADED; all carry Retry-After), and memory: the most queries held at once
 * (running + queued: what bounds the root's memory) and the heap's peak growth.
 */
import { catalogFromShards, shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard, seededRandom, type LeafNode } from '../src/leaf/index.ts';
import { toCanopyError, type Frame, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { Admission, buildTree, type AdmissionOptions } from '../src/root/index.ts';
import { VirtualClock } from '../src/sim/index.ts';
import type { Child, ChildRequest } from '../src/transport/index.ts';
import { fmtMs, nearestRank, round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';

const SHARDS = 10;
const HOSTS = 2;
const ROWS_PER_SHARD = 20_000;
const GROUPS = 20;
/** deadline_ms of every query. */
const DEADLINE_MS = 500;
/** Clients of the closed loop that measures capacity (the root's default in-flight limit). */
const CLOSED_CONCURRENCY = 16;
/** Offered load of the overload phases, as a multiple of capacity. */
const OVERLOAD = 2;
/** Target: goodput at least this share of capacity. */
const TARGET_GOODPUT = 0.9;

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }, { name: 'g', type: 'string' }] };

/** The query mix, drawn at random per query. */
const QUERIES: readonly { readonly id: string; readonly sql: string }[] = [
  { id: 'light', sql: 'SELECT count(*), sum(x) FROM t' },
  { id: 'groupby', sql: 'SELECT g, count(*), sum(x) FROM t GROUP BY g ORDER BY g' },
];

/** Admission policies of the overload phases. */
const POLICIES: readonly { readonly id: string; readonly label: string; readonly admission: AdmissionOptions }[] = [
  { id: 'default', label: 'defaults: 16 running, 64 queued, wait <= 50% of the deadline', admission: {} },
  { id: 'full-wait', label: 'previous: 16 running, 64 queued, wait <= the whole deadline', admission: { maxWaitShare: 1 } },
  { id: 'long-queue', label: '16 running, 1,000 queued, wait <= 50% of the deadline', admission: { maxQueued: 1000 } },
  { id: 'long-queue-full-wait', label: '16 running, 1,000 queued, wait <= the whole deadline', admission: { maxQueued: 1000, maxWaitShare: 1 } },
  { id: 'none', label: 'no admission control (everything runs at once)', admission: { maxInFlight: 1_000_000, maxQueued: 0 } },
];

function log(msg: string): void {
  process.stderr.write(`[overload] ${msg}\n`);
}

/**
 * A leaf host: one Node process serving its leaves' requests one at a time, first come first
 * served, on virtual time. A request whose signal aborts leaves the queue, or stops at once
 * when it is being served.
 */
class SimHost {
  readonly #clock: VirtualClock;
  readonly #queue: { start: () => void }[] = [];
  #busy = false;
  /** CPU time served, ms, and the part of it thrown away by aborts. */
  busyMs = 0;
  wastedMs = 0;

  constructor(clock: VirtualClock) {
    this.#clock = clock;
  }

  /** Serves `ms` of work; resolves when done, rejects with the signal's reason on abort. */
  serve(ms: number, signal: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal.aborted) return reject(signal.reason as Error);
      let timer: unknown = null;
      let began = 0;
      const onAbort = (): void => {
        if (timer !== null) {
          this.#clock.clearTimeout(timer);
          const done = this.#clock.now() - began;
          this.busyMs += done;
          this.wastedMs += done;
          this.#busy = false;
          this.#next();
        } else {
          const i = this.#queue.indexOf(job);
          if (i >= 0) this.#queue.splice(i, 1);
        }
        reject(signal.reason as Error);
      };
      const job = {
        start: () => {
          began = this.#clock.now();
          timer = this.#clock.setTimeout(() => {
            signal.removeEventListener('abort', onAbort);
            this.busyMs += ms;
            this.#busy = false;
            this.#next();
            resolve();
          }, ms);
        },
      };
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(job);
      if (!this.#busy) this.#next();
    });
  }

  #next(): void {
    const job = this.#queue.shift();
    if (job === undefined) return;
    this.#busy = true;
    job.start();
  }
}

/** The data, its truth per query, and the real leaves. */
function buildData(): { leaves: LeafNode[]; truth: Map<string, string>; catalog: ReturnType<typeof catalogFromShards> } {
  const rand = seededRandom(7);
  const data: Scalar[][][] = Array.from({ length: SHARDS }, () => Array.from({ length: ROWS_PER_SHARD }, () => [BigInt(Math.floor(rand() * 1000)), `g${Math.floor(rand() * GROUPS)}`]));
  let count = 0n;
  let sum = 0n;
  const groups = new Map<string, { n: bigint; s: bigint }>();
  for (const shard of data) {
    for (const [x, g] of shard) {
      count++;
      sum += x as bigint;
      const e = groups.get(g as string) ?? { n: 0n, s: 0n };
      e.n++;
      e.s += x as bigint;
      groups.set(g as string, e);
    }
  }
  const byKey = [...groups.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  const truth = new Map([
    ['light', JSON.stringify([[String(count), String(sum)]])],
    ['groupby', JSON.stringify(byKey.map(([g, e]) => [g, String(e.n), String(e.s)]))],
  ]);
  const tables = shardsFromRows(schema, data);
  return { leaves: tables.map((t, id) => createLeaf(`leaf-${id}`, [prepareShard(id, t, schema)])), truth, catalog: catalogFromShards(schema, tables) };
}

function rowsKey(rows: readonly (readonly unknown[])[]): string {
  return JSON.stringify(rows.map((r) => r.map((v) => String(v))));
}

/** CPU ms per query of the mix through the real in-process tree (process.cpuUsage, after warm-up). */
async function calibrate(leaves: readonly LeafNode[], catalog: ReturnType<typeof catalogFromShards>, reps: number): Promise<Map<string, number>> {
  const { root } = buildTree({ table: schema.name, catalog, fanout: 10, leaf: (node) => leaves[node.shards[0]!]!.handler });
  const out = new Map<string, number>();
  for (const q of QUERIES) {
    for (let i = 0; i < 5; i++) await root.query({ sql: q.sql }, new AbortController().signal);
    const c0 = process.cpuUsage();
    for (let i = 0; i < reps; i++) await root.query({ sql: q.sql }, new AbortController().signal);
    const c = process.cpuUsage(c0);
    out.set(q.sql, (c.user + c.system) / 1000 / reps);
  }
  return out;
}

/** One query as its client saw it. */
interface Sample {
  readonly ms: number;
  readonly admitted: boolean;
  readonly code: string | null;
  readonly retryAfter: boolean;
  readonly exact: boolean;
  readonly partial: boolean;
  readonly wrong: boolean;
}

/** A simulated tree on a fresh virtual clock, with one admission policy. */
interface SimTree {
  readonly clock: VirtualClock;
  readonly hosts: SimHost[];
  readonly ask: (q: (typeof QUERIES)[number], t0: number) => Promise<Sample>;
  readonly held: () => number;
  readonly admission: Admission;
}

function simTree(leaves: readonly LeafNode[], catalog: ReturnType<typeof catalogFromShards>, truth: Map<string, string>, cpuMs: Map<string, number>, frames: Map<string, Frame>, policy: AdmissionOptions): SimTree {
  const clock = new VirtualClock();
  const hosts = Array.from({ length: HOSTS }, () => new SimHost(clock));
  const { root } = buildTree({ table: schema.name, catalog, fanout: 10, clock, leaf: (node): Child => {
    const id = node.shards[0]!;
    const leaf = leaves[id]!;
    const host = hosts[id % HOSTS]!;
    return {
      name: leaf.name,
      shards: leaf.shards,
      async *query(req: ChildRequest, signal: AbortSignal) {
        const key = `${id}:${JSON.stringify(req.plan)}`;
        await host.serve(cpuMs.get(planSql(req))! / SHARDS, signal);
        let f = frames.get(key);
        if (f === undefined) {
          for await (const x of leaf.handler(req, new AbortController().signal)) f = x;
          frames.set(key, f!);
        }
        yield f!;
      },
    };
  } });
  const admission = new Admission({ ...policy, clock });
  const ask = async (q: (typeof QUERIES)[number], t0: number): Promise<Sample> => {
    const signal = new AbortController().signal;
    let admitted = false;
    try {
      // As the root's HTTP app does: admission, then the query with what is left of its deadline.
      const { release, remainingMs } = await admission.admit(DEADLINE_MS, signal);
      admitted = true;
      try {
        const a = await root.query({ sql: q.sql, deadline_ms: remainingMs }, signal);
        const complete = a.label === 'exact' && a.missing.length === 0;
        const wrong = complete && rowsKey(a.rows) !== truth.get(q.id);
        return { ms: clock.now() - t0, admitted, code: null, retryAfter: false, exact: complete && !wrong, partial: !complete, wrong };
      } finally {
        release();
      }
    } catch (e) {
      const err = toCanopyError(e);
      const retryAfter = (err.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds !== undefined;
      return { ms: clock.now() - t0, admitted, code: err.code, retryAfter, exact: false, partial: false, wrong: false };
    }
  };
  return { clock, hosts, ask, held: () => admission.inFlight + admission.queued, admission };
}

/** The SQL of the mix a request's plan came from (plans of the two queries differ in their group keys). */
function planSql(req: ChildRequest): string {
  return req.plan.groupBy.length === 0 ? QUERIES[0]!.sql : QUERIES[1]!.sql;
}

/** What one phase measured. */
interface PhaseResult {
  readonly id: string;
  readonly label: string;
  readonly offeredPerSecond: number;
  readonly seconds: number;
  readonly queries: number;
  readonly goodputPerSecond: number;
  readonly goodputShare: number | null;
  readonly exactShare: number;
  /** Admitted, answered, but not exact (shards missing at the deadline). */
  readonly partialShare: number;
  /** Refused by admission control (503 CANOPY_ERR_OVERLOADED). */
  readonly overloadedShare: number;
  /** Of the refusals, the share that carried a Retry-After. */
  readonly retryAfterShare: number | null;
  /** Other errors by code (e.g. CANOPY_ERR_NO_COVERAGE when no shard answered in time). */
  readonly otherErrors: Readonly<Record<string, number>>;
  readonly admittedP50: number | null;
  readonly admittedP99: number | null;
  readonly lateShare: number;
  readonly refusedP99: number | null;
  /** Most queries held at once (running + queued). */
  readonly heldPeak: number;
  readonly heapGrowthMiB: number;
  /** Share of the leaf hosts' CPU spent on work thrown away by aborts. */
  readonly wastedCpuShare: number;
  readonly wrong: number;
}

function summarise(id: string, label: string, samples: readonly Sample[], seconds: number, offered: number, capacity: number | null, heldPeak: number, heapGrowth: number, hosts: readonly SimHost[]): PhaseResult {
  const n = Math.max(1, samples.length);
  const good = samples.filter((s) => s.exact && s.ms <= DEADLINE_MS).length;
  const admitted = samples.filter((s) => s.admitted && s.code === null).map((s) => s.ms).sort((a, b) => a - b);
  const refused = samples.filter((s) => s.code === 'CANOPY_ERR_OVERLOADED');
  const refusedMs = refused.map((s) => s.ms).sort((a, b) => a - b);
  const codes = new Map<string, number>();
  for (const s of samples) if (s.code !== null && s.code !== 'CANOPY_ERR_OVERLOADED') codes.set(s.code, (codes.get(s.code) ?? 0) + 1);
  const busy = hosts.reduce((x, h) => x + h.busyMs, 0);
  return {
    id,
    label,
    offeredPerSecond: round3(offered),
    seconds,
    queries: samples.length,
    goodputPerSecond: round3(good / seconds),
    goodputShare: capacity === null ? null : round3(good / seconds / capacity),
    exactShare: round3(samples.filter((s) => s.exact).length / n),
    partialShare: round3(samples.filter((s) => s.partial).length / n),
    overloadedShare: round3(refused.length / n),
    retryAfterShare: refused.length === 0 ? null : round3(refused.filter((s) => s.retryAfter).length / refused.length),
    otherErrors: Object.fromEntries(codes),
    admittedP50: admitted.length === 0 ? null : round3(nearestRank(admitted, 0.5)),
    admittedP99: admitted.length === 0 ? null : round3(nearestRank(admitted, 0.99)),
    lateShare: admitted.length === 0 ? 0 : round3(admitted.filter((ms) => ms > DEADLINE_MS).length / admitted.length),
    refusedP99: refusedMs.length === 0 ? null : round3(nearestRank(refusedMs, 0.99)),
    heldPeak,
    heapGrowthMiB: round3(heapGrowth / 2 ** 20),
    wastedCpuShare: busy === 0 ? 0 : round3(hosts.reduce((x, h) => x + h.wastedMs, 0) / busy),
    wrong: samples.filter((s) => s.wrong).length,
  };
}

/** Runs a closed loop or Poisson arrivals on a sim tree; samples the queries held at every arrival (and the heap every 256). */
async function runPhase(tree: SimTree, mode: { kind: 'closed'; clients: number; seconds: number } | { kind: 'open'; rate: number; seconds: number }, rand: () => number): Promise<{ samples: Sample[]; heldPeak: number; heapGrowth: number }> {
  const { clock } = tree;
  const samples: Sample[] = [];
  let heldPeak = 0;
  const heap0 = process.memoryUsage().heapUsed;
  let heapPeak = heap0;
  const pick = (): (typeof QUERIES)[number] => QUERIES[Math.floor(rand() * QUERIES.length)]!;
  const end = mode.seconds * 1000;
  let k = 0;
  const note = (): void => {
    heldPeak = Math.max(heldPeak, tree.held());
    if ((k++ & 255) === 0) heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  };
  await clock.run(async () => {
    if (mode.kind === 'closed') {
      await Promise.all(
        Array.from({ length: mode.clients }, async () => {
          while (clock.now() < end) {
            const t0 = clock.now();
            const p = tree.ask(pick(), t0);
            note();
            samples.push(await p);
          }
        }),
      );
      return;
    }
    const pending: Promise<Sample>[] = [];
    // Poisson arrivals: exponential gaps, each query timed from its arrival.
    await new Promise<void>((resolve) => {
      const arrive = (): void => {
        if (clock.now() >= end) return resolve();
        pending.push(tree.ask(pick(), clock.now()));
        note();
        clock.setTimeout(arrive, (-Math.log(1 - rand()) / mode.rate) * 1000);
      };
      arrive();
    });
    samples.push(...(await Promise.all(pending)));
  });
  return { samples, heldPeak, heapGrowth: heapPeak - heap0 };
}

function pct(x: number | null): string {
  return x === null ? '-' : `${(x * 100).toFixed(1)}%`;
}

function markdown(capacity: PhaseResult, phases: readonly PhaseResult[], cpu: Map<string, number>, opts: BenchOptions): string {
  const lines = [
    '## overload: admission control at twice the capacity',
    '',
    `Real root (Root, gather, Admission.admit as the HTTP app calls it) over ${SHARDS} leaves on ${HOSTS} leaf hosts, on a virtual clock; ` +
      `each leaf request costs its host (one request at a time, first come first served; aborted requests leave the queue) the CPU time ` +
      `a real in-process leaf spends on it, measured in this run: ${QUERIES.map((q) => `\`${q.sql}\` ${fmtMs(cpu.get(q.sql)!)} ms per query`).join(', ')} ` +
      `(${ROWS_PER_SHARD.toLocaleString('en')} rows per shard; process.cpuUsage). Queries drawn at random from the two, \`deadline_ms\` ${DEADLINE_MS}. ` +
      `Capacity: a closed loop of ${CLOSED_CONCURRENCY} clients for ${opts.warmup} s = **${capacity.goodputPerSecond.toFixed(1)} exact answers/s** ` +
      `(p50 ${fmtMs(capacity.admittedP50 ?? 0)} ms, p99 ${fmtMs(capacity.admittedP99 ?? 0)} ms). ` +
      `Then Poisson arrivals at ${OVERLOAD}x capacity for ${opts.reps} s per admission policy. Goodput = exact answers (rows checked) within the deadline per second. ` +
      `Target: goodput >= ${TARGET_GOODPUT * 100}% of capacity, admitted p99 within the deadline, memory bounded.`,
    '',
    '| admission policy | offered q/s | goodput q/s | goodput / capacity | exact | partial | refused: 503 (with Retry-After) | other errors | admitted p50 / p99 ms | admitted late | 503 p99 ms | queries held, peak | heap growth MiB | leaf CPU wasted | target |',
    '| --- | ---: | ---: | ---: | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const p of phases) {
    const met = (p.goodputShare ?? 0) >= TARGET_GOODPUT && (p.admittedP99 ?? Infinity) <= DEADLINE_MS;
    lines.push(
      `| ${p.label} | ${p.offeredPerSecond.toFixed(1)} | ${p.goodputPerSecond.toFixed(1)} | ${pct(p.goodputShare)} | ${pct(p.exactShare)} | ${pct(p.partialShare)} | ` +
        `${pct(p.overloadedShare)} (${pct(p.retryAfterShare)}) | ${Object.entries(p.otherErrors).map(([c, k]) => `${c} ${k}`).join(', ') || '-'} | ` +
        `${p.admittedP50 === null ? '-' : fmtMs(p.admittedP50)} / ${p.admittedP99 === null ? '-' : fmtMs(p.admittedP99)} | ${pct(p.lateShare)} | ` +
        `${p.refusedP99 === null ? '-' : fmtMs(p.refusedP99)} | ${p.heldPeak} | ${p.heapGrowthMiB.toFixed(1)} | ${pct(p.wastedCpuShare)} | ${met ? 'met' : 'not met'} |`,
    );
  }
  const p99 = (id: string): string => fmtMs(phases.find((p) => p.id === id)?.admittedP99 ?? NaN);
  lines.push(
    '',
    'Reading it:',
    '- Latencies, rates and goodput are virtual time (the load warning below applies only to the CPU calibration). The heap growth is of this',
    '  process, which holds the simulation too; the number of queries held at once (running + queued) is what bounds the root\'s memory.',
    '- Without admission control every query starts, the leaf hosts\' queues grow, every query reaches its deadline with shards missing,',
    '  and the work done for those shards is thrown away: goodput falls to about half of capacity although the hosts are always busy.',
    `- A queue is only as good as its wait bound. By Little's law a queue of Q queries drains in Q / capacity seconds: 64 queries at`,
    `  ${capacity.goodputPerSecond.toFixed(0)} q/s is ${fmtMs((64 / capacity.goodputPerSecond) * 1000)} ms, within the ${DEADLINE_MS} ms deadline, so the 64-query queue works with either bound. A queue longer than`,
    '  capacity x deadline (1,000 here) with a wait bound of the whole deadline admits queries with almost no budget left: they run, miss',
    '  shards and waste the hosts. Bounding the wait by half the deadline (the default) refuses them instead, whatever the queue length,',
    `  and keeps the admitted p99 well inside the deadline (${p99('default')} ms vs ${p99('full-wait')} ms with the whole-deadline bound), leaving room for what this`,
    '  model leaves out (the root\'s own CPU, HTTP, network).',
    '- Refusals are quick when the queue is full (0 ms); a query that waited its allowed half deadline is refused then (the 250 ms p99).',
    '',
  );
  return lines.join('\n');
}

/** The `overload` benchmark module. `--warmup N`: virtual seconds of the capacity run; `--reps N`: virtual seconds of each overload phase. */
export const overload: BenchModule = {
  description: 'admission control at 2x capacity: goodput, admitted p99 vs deadline, 503 share, queries held (real root, virtual clock, calibrated leaf CPU)',
  defaults: { full: { reps: 20, warmup: 10 }, quick: { reps: 4, warmup: 2 } },
  async run(opts: BenchOptions): Promise<BenchReport> {
    log(`building ${SHARDS} shards x ${ROWS_PER_SHARD} rows ...`);
    const { leaves, truth, catalog } = buildData();
    const cpu = await calibrate(leaves, catalog, opts.quick ? 10 : 40);
    log(`leaf CPU per query: ${[...cpu.values()].map((x) => x.toFixed(2)).join(', ')} ms`);
    const frames = new Map<string, Frame>();
    const stackLimit = Error.stackTraceLimit;
    Error.stackTraceLimit = 0;
    try {
      const capTree = simTree(leaves, catalog, truth, cpu, frames, {});
      const cap = await runPhase(capTree, { kind: 'closed', clients: CLOSED_CONCURRENCY, seconds: Math.max(1, opts.warmup) }, seededRandom(11));
      const capacity = summarise('capacity', `closed loop, ${CLOSED_CONCURRENCY} clients`, cap.samples, Math.max(1, opts.warmup), cap.samples.length / Math.max(1, opts.warmup), null, cap.heldPeak, cap.heapGrowth, capTree.hosts);
      log(`capacity ${capacity.goodputPerSecond} q/s (p99 ${capacity.admittedP99} ms)`);
      const phases: PhaseResult[] = [];
      for (const [i, policy] of POLICIES.entries()) {
        const rate = OVERLOAD * capacity.goodputPerSecond;
        const t0 = performance.now();
        const tree = simTree(leaves, catalog, truth, cpu, frames, policy.admission);
        const r = await runPhase(tree, { kind: 'open', rate, seconds: opts.reps }, seededRandom(100 + i));
        const p = summarise(policy.id, policy.label, r.samples, opts.reps, rate, capacity.goodputPerSecond, r.heldPeak, r.heapGrowth, tree.hosts);
        log(`${policy.id}: goodput ${p.goodputPerSecond} q/s (${pct(p.goodputShare)}), 503 ${pct(p.overloadedShare)}, admitted p99 ${p.admittedP99} ms, held ${p.heldPeak} (${Math.round((performance.now() - t0) / 1000)} s)`);
        phases.push(p);
      }
      const wrong = capacity.wrong + phases.reduce((n, p) => n + p.wrong, 0);
      if (wrong > 0) log(`!!! ${wrong} answers labelled exact differ from the truth`);
      return {
        name: 'overload',
        ok: wrong === 0,
        markdown: markdown(capacity, phases, cpu, opts),
        data: {
          benchmark: 'overload',
          quick: opts.quick,
          transport: 'real root and Admission over modelled leaf hosts (FIFO, cancellable) on a virtual clock; leaf CPU calibrated in-run',
          tree: { shards: SHARDS, hosts: HOSTS, rowsPerShard: ROWS_PER_SHARD, groups: GROUPS, fanout: 10 },
          deadlineMs: DEADLINE_MS,
          queries: QUERIES,
          cpuMsPerQuery: Object.fromEntries(cpu),
          capacitySeconds: opts.warmup,
          overloadSeconds: opts.reps,
          offeredMultiple: OVERLOAD,
          target: { goodputShare: TARGET_GOODPUT, admittedP99WithinDeadline: true },
          capacity,
          phases,
          policies: POLICIES,
        },
      };
    } finally {
      Error.stackTraceLimit = stackLimit;
    }
  },
};
