/**
 * `npm run bench -- hostile`: hostile queries against the default tree (`npm start`'s layout:
 * 100 hash shards of flights, 2 leaf processes, 1 aggregator process, the root alone), each
 * with a 5 s deadline, while a probe `SELECT count(*) FROM flights` runs every 200 ms.
 *
 * Reported per hostile query: its outcome (answered with its label, or the error code) and
 * time, whether it came back by the deadline + 100 ms, how long after its deadline (or its
 * answer, when earlier) every process of the tree was back to idle CPU, and the peak RSS of
 * every process over the run against the 1.5 GB target; for the probe, every outcome (exact
 * with the right count, or what else) and its p99. CPU and RSS are read from /proc.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import { fmtMs, nearestRank, round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';

const DEADLINE_MS = 5000;
const PROBE_EVERY_MS = 200;
const PROBE_DEADLINE_MS = 5000;
const SAMPLE_MS = 100;
/** A process is idle when it used less than this share of one core over a sampling window. */
const IDLE_SHARE = 0.3;
const RSS_TARGET_BYTES = 1.5 * 1024 ** 3;
const TOTAL_ROWS = 3_000_000;

function orChain(terms: number, term: (i: number) => string): string {
  const parts: string[] = [];
  for (let i = 0; i < terms; i++) parts.push(term(i));
  return `SELECT count(*) FROM flights WHERE ${parts.join(' OR ')}`;
}

/** The hostile queries; `parallel` runs that many copies at once. */
const HOSTILE: readonly { id: string; what: string; sql: string; parallel: number }[] = [
  { id: 'or-chain', what: 'OR chain of 7,749 equalities (99.9 kB)', sql: orChain(7749, (i) => `delay=${i % 1000}`), parallel: 1 },
  { id: 'or-range-chain', what: 'OR chain of 6,000 range terms that no row matches (not foldable into IN)', sql: orChain(6000, (i) => `delay<${-1000 - i}`), parallel: 1 },
  { id: 'in-15000', what: 'IN list of 15,000 values', sql: `SELECT count(*) FROM flights WHERE delay IN (${Array.from({ length: 15000 }, (_, i) => i - 5000).join(',')})`, parallel: 1 },
  { id: 'group-5', what: '5-column GROUP BY, twice at once', sql: 'SELECT date, delay, distance, origin, destination, count(*) FROM flights GROUP BY 1,2,3,4,5', parallel: 2 },
  { id: 'group-date-origin', what: 'GROUP BY date, origin (2.45M groups)', sql: 'SELECT date, origin, count(*) FROM flights GROUP BY date, origin', parallel: 1 },
];

interface ProcSample {
  readonly t: number;
  /** CPU seconds (user + system) so far, by host. */
  readonly cpu: ReadonlyMap<string, number>;
}

const TICK = 100; // USER_HZ on Linux

function cpuSeconds(pid: number): number | null {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) / TICK;
  } catch {
    return null;
  }
}

function rssBytes(pid: number): number | null {
  try {
    const m = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'));
    return m === null ? null : Number(m[1]) * 1024;
  } catch {
    return null;
  }
}

/** Samples CPU and RSS of every host process every {@link SAMPLE_MS}. */
class Sampler {
  readonly samples: ProcSample[] = [];
  readonly peakRss = new Map<string, number>();
  readonly #tree: LocalTree;
  readonly #timer: ReturnType<typeof setInterval>;

  constructor(tree: LocalTree) {
    this.#tree = tree;
    this.#timer = setInterval(() => this.#take(), SAMPLE_MS);
    this.#take();
  }

  #take(): void {
    const cpu = new Map<string, number>();
    for (const h of this.#tree.hosts()) {
      if (h.pid === undefined) continue;
      const c = cpuSeconds(h.pid);
      if (c !== null) cpu.set(h.name, c);
      const r = rssBytes(h.pid);
      if (r !== null && r > (this.peakRss.get(h.name) ?? 0)) this.peakRss.set(h.name, r);
    }
    this.samples.push({ t: performance.now(), cpu });
  }

  /** CPU share of one core per process between `from` and `to` (performance.now ms). */
  shares(from: number, to: number): Map<string, number> {
    const a = this.samples.find((x) => x.t >= from);
    const b = [...this.samples].reverse().find((x) => x.t <= to);
    const out = new Map<string, number>();
    if (a === undefined || b === undefined || b.t <= a.t) return out;
    for (const [host, c0] of a.cpu) {
      const c1 = b.cpu.get(host);
      if (c1 !== undefined) out.set(host, (c1 - c0) / ((b.t - a.t) / 1000));
    }
    return out;
  }

  /**
   * First time at or after `from` when every process used under IDLE_SHARE of a core over the
   * next window above its share with the probe alone, `baseline` (null: never seen).
   */
  idleAt(from: number, baseline: ReadonlyMap<string, number> = new Map()): number | null {
    const s = this.samples;
    for (let i = 0; i + 2 < s.length; i++) {
      if (s[i]!.t < from) continue;
      // Two windows, so one quiet moment between bursts does not count.
      const a = s[i]!;
      const b = s[i + 2]!;
      let idle = true;
      for (const [host, c0] of a.cpu) {
        const c1 = b.cpu.get(host);
        if (c1 === undefined) continue;
        if ((c1 - c0) / ((b.t - a.t) / 1000) >= IDLE_SHARE + (baseline.get(host) ?? 0)) idle = false;
      }
      if (idle) return a.t;
    }
    return null;
  }

  /**
   * CPU share of one core per process in each {@link SAMPLE_MS} window of `[from, from + ms)`
   * (where the time after a deadline goes, host by host).
   */
  timeline(from: number, ms: number): { atMs: number; shares: Record<string, number> }[] {
    const out: { atMs: number; shares: Record<string, number> }[] = [];
    const s = this.samples.filter((x) => x.t >= from && x.t <= from + ms);
    for (let i = 0; i + 1 < s.length; i++) {
      const a = s[i]!;
      const b = s[i + 1]!;
      const shares: Record<string, number> = {};
      for (const [host, c0] of a.cpu) {
        const c1 = b.cpu.get(host);
        if (c1 !== undefined) shares[host] = round3((c1 - c0) / ((b.t - a.t) / 1000));
      }
      out.push({ atMs: round3(a.t - from), shares });
    }
    return out;
  }

  stop(): void {
    clearInterval(this.#timer);
  }
}

interface Outcome {
  readonly status: number;
  readonly code: string | null;
  readonly label: string | null;
  readonly ms: number;
  readonly count: number | null;
  /** Probes: where the time went (trace), see {@link probeTrace}. */
  readonly trace?: ProbeTrace;
}

/** Where a probe's time went: client round trip vs the root's own count, and the slowest hop below. */
interface ProbeTrace {
  /** The root's `elapsed_ms` (its work after admission). */
  readonly rootMs: number | null;
  /** Slowest aggregator as the root's gather saw it (request sent to answer taken), ms. */
  readonly aggMs: number;
  /** Slowest leaf as its aggregator's gather saw it, ms. */
  readonly leafMs: number;
  /** Outcomes of the leaves, counted. */
  readonly leafOutcomes: Record<string, number>;
  /** Missing shards' errors, counted by message with numbers blanked. */
  readonly missing: Record<string, number>;
}

interface TraceBody {
  missing?: { path: string; error?: { code: string; message: string } }[];
  stats?: { elapsed_ms?: number };
  trace?: { timings?: { gather: string; elapsed_ms: number; outcome: string }[] };
}

function probeTrace(body: TraceBody): ProbeTrace | undefined {
  const t = body.trace?.timings;
  if (t === undefined && body.missing === undefined) return undefined;
  const leafOutcomes: Record<string, number> = {};
  let aggMs = 0;
  let leafMs = 0;
  for (const x of t ?? []) {
    if (x.gather === 'root') aggMs = Math.max(aggMs, x.elapsed_ms);
    else {
      leafMs = Math.max(leafMs, x.elapsed_ms);
      leafOutcomes[x.outcome] = (leafOutcomes[x.outcome] ?? 0) + 1;
    }
  }
  const missing: Record<string, number> = {};
  for (const m of body.missing ?? []) {
    const k = `${m.error?.code}: ${(m.error?.message ?? '').replace(/\d+/g, 'N')}`;
    missing[k] = (missing[k] ?? 0) + 1;
  }
  return { rootMs: body.stats?.elapsed_ms ?? null, aggMs: round3(aggMs), leafMs: round3(leafMs), leafOutcomes, missing };
}

async function ask(url: string, sql: string, deadlineMs: number, trace = false): Promise<Outcome> {
  const t0 = performance.now();
  try {
    const res = await fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, deadline_ms: deadlineMs, ...(trace ? { trace: true } : {}) }) });
    const body = (await res.json()) as { error?: { code: string; details?: TraceBody }; label?: string; rows?: unknown[][] } & TraceBody;
    const first = body.rows?.[0]?.[0];
    const tr = trace ? probeTrace(body.trace !== undefined ? body : (body.error?.details ?? {})) : undefined;
    return { status: res.status, code: body.error?.code ?? null, label: body.label ?? null, ms: performance.now() - t0, count: typeof first === 'number' ? first : null, ...(tr === undefined ? {} : { trace: tr }) };
  } catch (e) {
    return { status: 0, code: (e as Error).message, label: null, ms: performance.now() - t0, count: null };
  }
}

interface WorkEntry {
  readonly queryId: string;
  readonly node: string;
  readonly startedAt: number;
  readonly deadlineAt: number;
  readonly lastWorkAt: number;
  readonly units: number;
}

/**
 * Work done past their own deadline by the queries that started between `fromWall` and
 * `toWall` (wall ms), read from every leaf and aggregator host's `GET /v1/work` ledger: the
 * largest overrun (last work minus the node's deadline for that query), ms, and where.
 */
async function lateWork(tree: LocalTree, fromWall: number, toWall: number): Promise<{ ms: number; where: string | null; queries: number }> {
  let worst = 0;
  let where: string | null = null;
  let queries = 0;
  for (const h of tree.topology.hosts) {
    const url = h.nodes[0] === undefined || h.nodes.includes('root') ? undefined : tree.nodeUrl(h.nodes[0]);
    if (url === undefined) continue;
    try {
      const res = await fetch(`${url}/v1/work`);
      const body = (await res.json()) as { queries: WorkEntry[] };
      for (const q of body.queries) {
        if (q.startedAt < fromWall || q.startedAt > toWall) continue;
        queries++;
        const over = q.lastWorkAt - q.deadlineAt;
        if (over > worst) {
          worst = over;
          where = `${h.name} (${q.node}, ${q.units} units)`;
        }
      }
    } catch {
      // A host restarting has no ledger to read.
    }
  }
  return { ms: round3(worst), where, queries };
}

function outcomeText(o: Outcome): string {
  return o.code === null ? `answered, ${o.label}` : `${o.status} ${o.code}`;
}

async function run(opts: BenchOptions): Promise<BenchReport> {
  const loadBefore = os.loadavg().map((x) => round3(x));
  const tree = await startLocalTree({ data: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: { kind: 'hash' }, fanout: 10, port: 0, cacheDir: path.resolve('.canopy-cache'), leafProcesses: 2, log: (m) => console.error(`hostile: ${m}`) });
  const sampler = new Sampler(tree);
  const probes: (Outcome & { at: number })[] = [];
  // One probe every 200 ms whether or not the previous one has answered.
  const inFlight = new Set<Promise<void>>();
  const probeTimer = setInterval(() => {
    const at = performance.now();
    const p = ask(tree.url, 'SELECT count(*) FROM flights', PROBE_DEADLINE_MS, true).then((o) => {
      probes.push({ ...o, at });
      inFlight.delete(p);
    });
    inFlight.add(p);
  }, PROBE_EVERY_MS);
  const rows: { id: string; what: string; outcomes: string[]; ms: number[]; byDeadline: boolean; idleAfterMs: number | null; lateWorkMs: number; lateWorkWhere: string | null; probes: number; probesExact: number; probeP50Ms: number | null; probeP99Ms: number | null; probesInFlightAtFrom: number; cpuAfter: ReturnType<Sampler['timeline']> }[] = [];
  const tw = performance.now();
  await new Promise((r) => setTimeout(r, 3000)); // warm-up: probes only
  // What the probe alone costs each process (its last 2 s), the floor of "idle" below.
  const baseline = sampler.shares(tw + 1000, performance.now());
  try {
    // CANOPY_HOSTILE_ONLY=id,id runs only those queries (while working on one of them).
    const only = process.env.CANOPY_HOSTILE_ONLY?.split(',');
    for (const q of HOSTILE.filter((h) => only === undefined || only.includes(h.id))) {
      const t0 = performance.now();
      const t0Wall = Date.now();
      const outs = await Promise.all(Array.from({ length: q.parallel }, () => ask(tree.url, q.sql, DEADLINE_MS)));
      const end = Math.max(...outs.map((o) => t0 + o.ms));
      // Idle is measured from the deadline, or from the answer when it came earlier.
      const from = Math.min(end, t0 + DEADLINE_MS);
      await new Promise((r) => setTimeout(r, Math.max(0, from + 3000 - performance.now())));
      const idle = sampler.idleAt(from, baseline);
      const late = await lateWork(tree, t0Wall, t0Wall + DEADLINE_MS);
      const during = probes.filter((p) => p.at >= t0 && p.at <= from);
      const duringMs = during.map((p) => p.ms).sort((a, b) => a - b);
      rows.push({
        id: q.id,
        what: q.what,
        outcomes: outs.map(outcomeText),
        ms: outs.map((o) => round3(o.ms)),
        byDeadline: outs.every((o) => o.ms <= DEADLINE_MS + 100),
        idleAfterMs: idle === null ? null : round3(idle - from),
        // Probes started before the idle clock starts and still running then: their remaining
        // work (queued behind the hostile query) is CPU the idle measure counts.
        probesInFlightAtFrom: probes.filter((p) => p.at < from && p.at + p.ms > from).length,
        // Where the CPU went after the deadline (or the answer), per process and 100 ms window.
        cpuAfter: sampler.timeline(from, 1500),
        lateWorkMs: late.ms,
        lateWorkWhere: late.where,
        probes: during.length,
        probesExact: during.filter((p) => p.label === 'exact' && p.count === TOTAL_ROWS).length,
        probeP50Ms: duringMs.length === 0 ? null : round3(nearestRank(duringMs, 0.5)),
        probeP99Ms: duringMs.length === 0 ? null : round3(nearestRank(duringMs, 0.99)),
      });
      console.error(`hostile: ${q.id}: ${outs.map(outcomeText).join('; ')} in ${outs.map((o) => fmtMs(o.ms)).join(', ')} ms; idle ${idle === null ? 'never' : fmtMs(idle - from)} ms after; work past its deadline ${fmtMs(late.ms)} ms (${late.where ?? 'none'}, ${late.queries} query accounts); probes ${rows.at(-1)!.probesExact}/${during.length} exact; CPU after: ${rows.at(-1)!.cpuAfter.map((w) => `${Math.round(w.atMs)}: ${Object.entries(w.shares).map(([h, x]) => `${h} ${Math.round(x * 100)}%`).join(' ')}`).join(' | ')}`);
    }
  } finally {
    clearInterval(probeTimer);
    await Promise.all(inFlight);
    sampler.stop();
  }
  // Stopping a busy tree: the unfoldable chain with a long deadline keeps the leaves busy,
  // then the tree is closed (SIGTERM; SIGKILL only after 2 s) and every process must be gone.
  const pids = tree.hosts().map((h) => h.pid).filter((p): p is number => p !== undefined);
  const busy = ask(tree.url, HOSTILE[1]!.sql, 60_000);
  await new Promise((r) => setTimeout(r, 1500));
  const tc = performance.now();
  await tree.close();
  const closeMs = performance.now() - tc;
  await busy;
  const alive = pids.filter((pid) => {
    try {
      process.kill(pid, 0);
      return true;
    } catch {
      return false;
    }
  });
  const probeMs = probes.map((p) => p.ms).sort((a, b) => a - b);
  const probeOutcomes: Record<string, number> = {};
  for (const p of probes) {
    const k = p.code === null ? (p.label === 'exact' && p.count === TOTAL_ROWS ? 'exact' : `${p.label} (${p.count})`) : p.code;
    probeOutcomes[k] = (probeOutcomes[k] ?? 0) + 1;
  }
  const peak = Object.fromEntries([...sampler.peakRss].map(([h, b]) => [h, b]));
  const data = {
    deadlineMs: DEADLINE_MS,
    probeEveryMs: PROBE_EVERY_MS,
    idleShare: IDLE_SHARE,
    probeOnlyCpuShare: Object.fromEntries([...baseline].map(([h, x]) => [h, round3(x)])),
    rssTargetBytes: RSS_TARGET_BYTES,
    queries: rows,
    probeMisses: probes.filter((p) => !(p.label === 'exact' && p.count === TOTAL_ROWS)).map((p) => ({ atMs: round3(p.at), ms: round3(p.ms), code: p.code, label: p.label, trace: p.trace })),
    probe: { count: probes.length, outcomes: probeOutcomes, p50Ms: round3(nearestRank(probeMs, 0.5)), p99Ms: round3(nearestRank(probeMs, 0.99)), maxMs: round3(probeMs.at(-1)!) },
    peakRssBytes: peak,
    loadAverageBefore: loadBefore,
    loadAverageAfter: os.loadavg().map((x) => round3(x)),
    closeWhileBusy: { ms: round3(closeMs), processesLeft: alive.length },
    quick: opts.quick,
  };
  const mb = (b: number): string => `${Math.round(b / 1024 ** 2)} MB`;
  const md = [
    '## hostile: bounded resources under hostile queries',
    '',
    `Default tree (100 shards, 2 leaf processes, 1 aggregator process, root alone), each hostile query with deadline_ms ${DEADLINE_MS}, a probe \`SELECT count(*) FROM flights\` every ${PROBE_EVERY_MS} ms throughout. ` +
      `"Idle after" = the time from the query's deadline (or from its last answer, when that came earlier) until every process of the tree (root, aggregators, leaves) first used under ${IDLE_SHARE * 100}% of a core above what the probe alone costs it (measured in the warm-up: ${[...baseline].map(([h, x]) => `${h} ${Math.round(x * 100)}%`).join(', ')}) over two consecutive ${SAMPLE_MS} ms windows. It is whole-process CPU (user + system from /proc): it counts garbage collection and the work of the probes still in flight at that moment (queued behind the hostile query, column "probes in flight"), not only the hostile query's own work. ` +
      '"Work past deadline" = the largest time between a node\'s deadline for a query and its last unit of work for it (a batch scanned, an operand evaluated, a block of groups merged, a frame encoded), over every query (hostile and probes) that started during the hostile one, read from each leaf and aggregator host\'s `GET /v1/work` ledger. ' +
      `Load average before ${loadBefore.join(' / ')}, after ${data.loadAverageAfter.join(' / ')}: the machine is shared with other agents, read times as rough.`,
    '',
    '| query | outcome | time (ms) | by deadline + 100 ms | idle after (ms) | probes in flight | work past deadline (ms) | probes exact | probe p50 / p99 (ms) |',
    '| --- | --- | ---: | :---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.what} | ${r.outcomes.join('; ')} | ${r.ms.map(fmtMs).join(', ')} | ${r.byDeadline ? 'yes' : 'NO'} | ${r.idleAfterMs === null ? 'never' : fmtMs(r.idleAfterMs)} | ${r.probesInFlightAtFrom} | ${fmtMs(r.lateWorkMs)}${r.lateWorkWhere === null ? '' : ` (${r.lateWorkWhere})`} | ${r.probesExact}/${r.probes} | ${r.probeP50Ms === null ? '-' : `${fmtMs(r.probeP50Ms)} / ${fmtMs(r.probeP99Ms!)}`} |`),
    '',
    `Probe: ${probes.length} queries, outcomes ${JSON.stringify(probeOutcomes)}, p50 ${fmtMs(data.probe.p50Ms)} ms, p99 ${fmtMs(data.probe.p99Ms)} ms, max ${fmtMs(data.probe.maxMs)} ms.`,
    '',
    `Peak RSS per process (target ${mb(RSS_TARGET_BYTES)}): ${Object.entries(peak).map(([h, b]) => `${h} ${mb(b)}`).join(', ')}.`,
    '',
    `Stopping the tree while its leaves scan the unfoldable chain (deadline 60 s): every process gone after ${fmtMs(closeMs)} ms (SIGKILL only after 2,000 ms), ${alive.length} left.`,
    '',
  ].join('\n');
  const ok = rows.every((r) => r.byDeadline) && Object.values(peak).every((b) => b <= RSS_TARGET_BYTES) && alive.length === 0;
  return { name: 'hostile', data, markdown: md, ok };
}

export const hostile: BenchModule = { description: 'hostile queries (OR chains, IN lists, huge GROUP BYs) with a probe: outcomes, CPU back to idle, peak RSS', run };
