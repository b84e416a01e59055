/**
 * `deadline` benchmark: deadline adherence of the real HTTP tree with hung leaves.
 *
 * The flights data (100 hash shards) served by `startLocalTree` on loopback at depth 1
 * (the root gathers 100 leaves), depth 2 (fan-out 10) and depth 3 (fan-out 10, depth 3:
 * 10 aggregators of 10 aggregators of one leaf each). Each tree runs twice: once with a
 * fault plan that hangs 10% of the shards (0, 10, ..., 90: `hang: 1`, they never answer
 * until cancelled), once without faults (control). Queries are sent one at a time with
 * `deadline_ms` (default 1000) and timed on the client side (performance.now around an
 * undici request to POST /v1/query, body read included).
 *
 * overshoot = client latency - deadline_ms (negative: answered early). The target (issue:
 * "deadline adherence") is p99 overshoot <= {@link SLACK_MS} ms with 10% of leaves hung.
 * Percentiles are nearest-rank, so with 60 samples p99 is the maximum.
 *
 * The control runs a quarter of the queries (it only shows the latency without faults).
 *
 * Each tree is closed before the next starts, with the wait capped at {@link CLOSE_WAIT_MS}
 * as a safeguard: while `LocalTree.close()` closed its servers before its client pools, a
 * close after overloaded runs (parents had aborted requests to aggregators) waited 30-60 s
 * for Node to reap connections on which no request was ever written. A close that outlasts
 * the cap goes on in the background (its leaf processes are idle), is awaited before the
 * report, and is flagged in the table.
 *
 * Every answer is also checked for honesty, whatever its timing: coverage adds up to 100
 * shards, `missing` has one entry per failed or omitted shard, an answer with missing
 * shards is not labelled exact, and no hung shard is ever reported as answered.
 * `ok` (the exit code) is false only when such a check fails; a missed timing target is
 * reported, not failed.
 *
 * Process layout (as `npm start`): the root alone in its own process, the aggregators in
 * {@link AGGREGATOR_PROCESSES} process(es), the leaves in 2; this process is only the client.
 * `CANOPY_DEADLINE_ROOT=here` runs the root in this process instead (the layout before #4,
 * without the aggregators), to measure what sharing a loop with the client costs, and to
 * profile the root with `node --cpu-prof`. With each query this records the longest
 * event-loop stall, the CPU time of this process, and how late a probe timer fires that is
 * set for the moment the root's own child timers expire (with the root here, a late probe
 * means a late root, for want of CPU rather than by the gather).
 */
import { rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { Agent, request } from 'undici';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import type { FaultPlan } from '../src/leaf/index.ts';
import { defaultReserveMs } from '../src/merge/index.ts';
import { fmtMs, nearestRank, round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';

const TABLE = 'flights';
const SHARDS = 100;
/** Documented slack: the root should answer by deadline + this many ms (p99). */
export const SLACK_MS = 5;
/**
 * 1,000 ms: above the healthy tree's latency at every depth on this 2-core machine (p50
 * 130-330 ms in the control rows), so the measurement isolates what the deadline does with
 * hung shards. At 250 ms the depth-3 tree cannot answer even without faults here (its
 * healthy p50 is ~350 ms: 110 aggregators' HTTP hops in one process), which measures CPU
 * starvation, not deadline adherence (`--deadline-ms 250` reruns that).
 */
const DEFAULT_DEADLINE_MS = 1000;
/** Shards hung by the fault plan: every tenth, so each depth-2 aggregator has one. */
export const HUNG_SHARDS: readonly number[] = Array.from({ length: SHARDS / 10 }, (_, i) => i * 10);
/** Processes hosting the aggregators (`CANOPY_DEADLINE_AGG_PROCESSES`, default 1). */
const AGGREGATOR_PROCESSES = Number(process.env.CANOPY_DEADLINE_AGG_PROCESSES ?? 1);
const LAYOUT = `root ${process.env.CANOPY_DEADLINE_ROOT === 'here' ? 'in the benchmark process' : 'alone in its own process'}, aggregators in ${AGGREGATOR_PROCESSES} process(es), leaves in 2; the benchmark process is the client`;
/** Root in this process (`CANOPY_DEADLINE_ROOT=here`) instead of its own. */
const ROOT_HERE = process.env.CANOPY_DEADLINE_ROOT === 'here';
/** Longest wait for `tree.close()` before the next tree starts; see the module comment. */
const CLOSE_WAIT_MS = 5000;
/** A client gives up this long after the deadline (the answer is then recorded as a client timeout). */
const CLIENT_GRACE_MS = 10_000;

/** The queries: a light global aggregate and a group-by. */
export const DEADLINE_QUERIES: readonly { readonly id: string; readonly label: string; readonly sql: string }[] = [
  { id: 'light', label: 'count + avg', sql: 'SELECT count(*), avg(delay) FROM flights' },
  { id: 'groupby', label: 'group by origin', sql: 'SELECT origin, count(*) FROM flights GROUP BY origin' },
];

/** The trees: depth, and the fan-out passed to `layoutTree` (depth 1 = the root gathers every leaf). */
const TREES: readonly { readonly depth: number; readonly fanout: number }[] = [
  { depth: 1, fanout: SHARDS },
  { depth: 2, fanout: 10 },
  { depth: 3, fanout: 10 },
];

type Outcome = 'exact' | 'bounded' | 'approximate' | 'error';

/** One query as measured. */
interface Sample {
  readonly clientMs: number;
  readonly overshootMs: number;
  /** HTTP status; 0 when the client gave up. */
  readonly status: number;
  readonly outcome: Outcome;
  readonly errorCode: string | null;
  /** `stats.elapsed_ms` of a 200 answer. */
  readonly serverMs: number | null;
  readonly answered: number;
  readonly failed: number;
  readonly omitted: number;
  /** Missing shard ids, sorted (for errors: `details.missing` when given). */
  readonly missing: readonly number[];
  /** Missing paths that end at the hung leaf itself (`.../leaf-<id>`), not at an aggregator above it. */
  readonly pathsAtLeaf: number;
  /** Max event-loop delay of this process during the query, ms. */
  readonly lagMaxMs: number;
  /** CPU time (user + system) of this process (root, aggregators, client) during the query, ms. */
  readonly cpuMs: number;
  /**
   * How late a probe timer fired that was set, when the request was sent, for the moment the
   * root's own child timers expire (deadline less the root's reserve); null when the answer
   * came first. The root's timers share this event loop, so they fire about as late.
   */
  readonly timerLateMs: number | null;
  /** Client latency after the probe timer fired: the root's work after its deadline timers, plus the reply; null as above. */
  readonly afterTimerMs: number | null;
  /** Honesty problems of this answer (empty when fine). */
  readonly problems: readonly string[];
}

/** Summary of one (tree, faults, query) cell, as written to deadline.json. */
interface CellResult {
  readonly depth: number;
  readonly fanout: number;
  readonly faults: boolean;
  readonly query: string;
  readonly n: number;
  readonly overshootMs: Stats;
  readonly clientMs: Stats;
  readonly serverMs: Stats | null;
  readonly lagMaxMs: Stats;
  /** CPU time of the benchmark process (the client, plus the root with CANOPY_DEADLINE_ROOT=here) per query. */
  readonly cpuMs: Stats;
  /** Probe timer lateness and client latency after it (see Sample), over the queries where it fired. */
  readonly timerLateMs: Stats | null;
  readonly afterTimerMs: Stats | null;
  /** Queries answered before the root's child timers were due. */
  readonly answeredBeforeTimer: number;
  /** Share of answers with overshoot <= SLACK_MS. */
  readonly withinSlack: number;
  readonly labels: Readonly<Record<Outcome, number>>;
  readonly errors: Readonly<Record<string, number>>;
  /** Answered shards per answer (200s only). */
  readonly answered: Stats | null;
  readonly omitted: Stats | null;
  /** Answers (200s) whose `missing` is exactly the expected set (the hung shards, or none). */
  readonly missingExact: number;
  /** Answers (200s) naming every hung shard by its leaf path (null for the control). */
  readonly pathsAtLeaf: number | null;
  /** Up to 5 examples of `missing` differing from the expected set. */
  readonly missingMismatches: readonly string[];
  readonly problems: readonly string[];
  readonly overshootSamples: readonly number[];
}

/** One tree start: its setup costs. */
interface TreeRun {
  readonly depth: number;
  readonly fanout: number;
  readonly faults: boolean;
  readonly aggregators: number;
  readonly startMs: number;
  /** Measured queries per query. */
  readonly reps: number;
  /** Time `tree.close()` took, ms (set once it has finished, possibly after the next tree started). */
  closeMs: number | null;
  /** True when close() took longer than CLOSE_WAIT_MS and finished in the background. */
  closeStalled: boolean;
  readonly loadAverageBefore: readonly number[];
}

interface Stats {
  readonly min: number;
  readonly p50: number;
  readonly p99: number;
  readonly max: number;
}

function log(msg: string): void {
  process.stderr.write(`[deadline] ${msg}\n`);
}

const pct = nearestRank;

function stats(xs: readonly number[]): Stats {
  const s = [...xs].sort((a, b) => a - b);
  return { min: round3(s[0]!), p50: round3(pct(s, 0.5)), p99: round3(pct(s, 0.99)), max: round3(s[s.length - 1]!) };
}

/** Stats of the non-null values, or null when there are none. */
function nonNull(xs: readonly (number | null)[]): Stats | null {
  const v = xs.filter((x): x is number => x !== null);
  return v.length === 0 ? null : stats(v);
}

function aggregatorsOf(tree: LocalTree): number {
  const walk = (nodes: LocalTree['layout']): number => nodes.reduce((n, c) => n + (c.kind === 'aggregator' ? 1 + walk(c.children) : 0), 0);
  return walk(tree.layout);
}

/** The body of an answer or an error, as far as this benchmark reads it. */
interface AnswerBody {
  readonly label?: string;
  readonly coverage?: { shards: number; answered: number; failed: number; omitted: number; pruned: number };
  readonly missing?: readonly { shard: number; path: string; reason: string }[];
  readonly stats?: { elapsed_ms: number };
  readonly error?: { code: string; details?: { missing?: readonly { shard: number; path: string }[] } };
}

/** Checks one answer against the invariants that must hold whatever the timing. */
function honesty(status: number, body: AnswerBody, faults: boolean): string[] {
  const out: string[] = [];
  if (status !== 200) {
    // A deadline can leave nothing to answer with: that is an honest 503, anything else is not expected here.
    if (body.error?.code !== 'CANOPY_ERR_NO_COVERAGE') out.push(`HTTP ${status} ${body.error?.code ?? '(no error code)'}`);
    return out;
  }
  const c = body.coverage;
  const missing = body.missing ?? [];
  if (c === undefined) return ['answer without coverage'];
  if (c.shards !== SHARDS) out.push(`coverage.shards ${c.shards}, expected ${SHARDS}`);
  if (c.answered + c.failed + c.omitted + c.pruned !== c.shards) out.push(`coverage does not add up: ${JSON.stringify(c)}`);
  if (missing.length !== c.failed + c.omitted) out.push(`${missing.length} missing entries for ${c.failed} failed + ${c.omitted} omitted`);
  if (new Set(missing.map((m) => m.shard)).size !== missing.length) out.push('a shard is listed twice in missing');
  if (missing.length > 0 && body.label === 'exact') out.push(`labelled exact with ${missing.length} shard(s) missing`);
  if (missing.length === 0 && body.label !== 'exact') out.push(`labelled ${body.label} with nothing missing`);
  if (faults) {
    const ids = new Set(missing.map((m) => m.shard));
    const lost = HUNG_SHARDS.filter((s) => !ids.has(s));
    if (lost.length > 0) out.push(`hung shard(s) ${lost.join(', ')} not listed as missing`);
  }
  return out;
}

/** Sends one query and measures it from the client side. */
async function measure(tree: LocalTree, agent: Agent, sql: string, deadlineMs: number, faults: boolean, lag: ReturnType<typeof monitorEventLoopDelay>): Promise<Sample> {
  const payload = JSON.stringify({ sql, deadline_ms: deadlineMs });
  lag.reset();
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  const timerAt = deadlineMs - defaultReserveMs(deadlineMs);
  let firedAt: number | null = null;
  const probe = setTimeout(() => {
    firedAt = performance.now() - t0;
  }, timerAt);
  let status = 0;
  let body: AnswerBody;
  try {
    const res = await request(`${tree.url}/v1/query`, {
      method: 'POST',
      dispatcher: agent,
      headers: { 'content-type': 'application/json' },
      body: payload,
      signal: AbortSignal.timeout(deadlineMs + CLIENT_GRACE_MS),
    });
    body = (await res.body.json()) as AnswerBody;
    status = res.statusCode;
  } catch (e) {
    body = { error: { code: `CLIENT_${(e as Error).name}` } };
  }
  const clientMs = performance.now() - t0;
  clearTimeout(probe);
  const fired = firedAt as number | null;
  const cpu = process.cpuUsage(cpu0);
  const lagMaxMs = lag.max / 1e6;
  const missingList = status === 200 ? (body.missing ?? []) : (body.error?.details?.missing ?? []);
  const missing = missingList.map((m) => m.shard).sort((a, b) => a - b);
  const hungPaths = new Set(missingList.filter((m) => HUNG_SHARDS.includes(m.shard) && m.path.endsWith(`/leaf-${m.shard}`)).map((m) => m.shard));
  const label = body.label;
  const outcome: Outcome = status === 200 && (label === 'exact' || label === 'bounded' || label === 'approximate') ? label : 'error';
  return {
    clientMs,
    overshootMs: clientMs - deadlineMs,
    status,
    outcome,
    errorCode: status === 200 ? null : (body.error?.code ?? `HTTP_${status}`),
    serverMs: status === 200 ? (body.stats?.elapsed_ms ?? null) : null,
    answered: body.coverage?.answered ?? 0,
    failed: body.coverage?.failed ?? 0,
    omitted: body.coverage?.omitted ?? 0,
    missing,
    pathsAtLeaf: hungPaths.size,
    lagMaxMs,
    cpuMs: (cpu.user + cpu.system) / 1000,
    timerLateMs: fired === null ? null : fired - timerAt,
    afterTimerMs: fired === null ? null : clientMs - fired,
    problems: honesty(status, body, faults),
  };
}

function summariseCell(depth: number, fanout: number, faults: boolean, query: string, samples: readonly Sample[]): CellResult {
  const ok = samples.filter((s) => s.status === 200);
  const expected = faults ? HUNG_SHARDS.join(',') : '';
  const labels: Record<Outcome, number> = { exact: 0, bounded: 0, approximate: 0, error: 0 };
  const errors: Record<string, number> = {};
  for (const s of samples) {
    labels[s.outcome]++;
    if (s.errorCode !== null) errors[s.errorCode] = (errors[s.errorCode] ?? 0) + 1;
  }
  const mismatches: string[] = [];
  for (const s of ok) {
    if (s.missing.join(',') === expected || mismatches.length >= 5) continue;
    const extra = s.missing.filter((m) => !(faults && HUNG_SHARDS.includes(m)));
    mismatches.push(`${s.missing.length} missing (${extra.length} beyond the hung shards: ${extra.slice(0, 12).join(', ')}${extra.length > 12 ? ', ...' : ''}), overshoot ${fmtMs(s.overshootMs)} ms`);
  }
  const problems = [...new Set(samples.flatMap((s) => s.problems))];
  return {
    depth,
    fanout,
    faults,
    query,
    n: samples.length,
    overshootMs: stats(samples.map((s) => s.overshootMs)),
    clientMs: stats(samples.map((s) => s.clientMs)),
    serverMs: ok.length > 0 && ok.every((s) => s.serverMs !== null) ? stats(ok.map((s) => s.serverMs!)) : null,
    lagMaxMs: stats(samples.map((s) => s.lagMaxMs)),
    cpuMs: stats(samples.map((s) => s.cpuMs)),
    timerLateMs: nonNull(samples.map((s) => s.timerLateMs)),
    afterTimerMs: nonNull(samples.map((s) => s.afterTimerMs)),
    answeredBeforeTimer: samples.filter((s) => s.timerLateMs === null).length,
    withinSlack: round3(samples.filter((s) => s.overshootMs <= SLACK_MS).length / samples.length),
    labels,
    errors,
    answered: ok.length > 0 ? stats(ok.map((s) => s.answered)) : null,
    omitted: ok.length > 0 ? stats(ok.map((s) => s.omitted)) : null,
    missingExact: ok.filter((s) => s.missing.join(',') === expected).length,
    pathsAtLeaf: faults ? ok.filter((s) => s.pathsAtLeaf === HUNG_SHARDS.length).length : null,
    missingMismatches: mismatches,
    problems,
    overshootSamples: samples.map((s) => round3(s.overshootMs)),
  };
}

/** Starts one tree, warms it up, runs the queries (interleaved), closes it. */
async function runTree(cfg: (typeof TREES)[number], faultsFile: string | null, opts: BenchOptions, deadlineMs: number): Promise<{ cells: CellResult[]; run: TreeRun; closing: Promise<void> }> {
  const faults = faultsFile !== null;
  const loadAverageBefore = os.loadavg().map((x) => Math.round(x * 100) / 100);
  const t0 = performance.now();
  const tree = await startLocalTree({
    data: DEFAULT_DATA_PATH,
    table: TABLE,
    shards: SHARDS,
    partition: { kind: 'hash' },
    fanout: cfg.fanout,
    depth: cfg.depth,
    port: 0,
    cacheDir: path.resolve('.canopy-cache'),
    leafProcesses: 2,
    aggregatorProcesses: AGGREGATOR_PROCESSES,
    rootInProcess: ROOT_HERE,
    ...(faultsFile === null ? {} : { faults: faultsFile }),
  });
  const startMs = performance.now() - t0;
  const aggregators = aggregatorsOf(tree);
  const agent = new Agent({ connections: 1 });
  const lag = monitorEventLoopDelay({ resolution: 1 });
  lag.enable();
  const samples = new Map<string, Sample[]>(DEADLINE_QUERIES.map((q) => [q.id, []]));
  const reps = faults ? opts.reps : Math.ceil(opts.reps / 4);
  const run: TreeRun = { depth: cfg.depth, fanout: cfg.fanout, faults, aggregators, startMs: round3(startMs), reps, closeMs: null, closeStalled: false, loadAverageBefore };
  let closing: Promise<void>;
  try {
    if (tree.depth !== cfg.depth) throw new Error(`asked for depth ${cfg.depth}, the tree has depth ${tree.depth}`);
    log(`depth ${cfg.depth} (fan-out ${cfg.fanout}, ${aggregators} aggregators), ${faults ? `${HUNG_SHARDS.length} hung shards` : 'no faults'}: started in ${fmtMs(startMs)} ms`);
    for (let i = 0; i < opts.warmup; i++) for (const q of DEADLINE_QUERIES) await measure(tree, agent, q.sql, deadlineMs, faults, lag);
    // Interleaved, so that a burst of outside load hits both queries alike.
    for (let i = 0; i < reps; i++) {
      for (const q of DEADLINE_QUERIES) {
        const s = await measure(tree, agent, q.sql, deadlineMs, faults, lag);
        samples.get(q.id)!.push(s);
        for (const p of s.problems) log(`!!! depth ${cfg.depth} ${q.id}: ${p}`);
      }
    }
  } finally {
    lag.disable();
    await agent.close();
    const tc = performance.now();
    closing = tree.close().then(() => {
      run.closeMs = round3(performance.now() - tc);
      if (run.closeStalled) log(`tree.close() of depth ${cfg.depth} ${faults ? 'faults' : 'control'} finished after ${fmtMs(run.closeMs)} ms`);
    });
    let timer: NodeJS.Timeout | undefined;
    const capped = new Promise<'stalled'>((resolve) => {
      timer = setTimeout(() => resolve('stalled'), CLOSE_WAIT_MS);
    });
    const first = await Promise.race([closing.then(() => 'closed' as const), capped]);
    clearTimeout(timer);
    if (first === 'stalled') {
      run.closeStalled = true;
      log(`!!! tree.close() has not finished after ${CLOSE_WAIT_MS} ms; going on, it is awaited before the report`);
    }
  }
  const cells = DEADLINE_QUERIES.map((q) => summariseCell(cfg.depth, cfg.fanout, faults, q.id, samples.get(q.id)!));
  for (const c of cells) {
    log(`  ${c.query}: overshoot p50 ${fmtMs(c.overshootMs.p50)} p99 ${fmtMs(c.overshootMs.p99)} max ${fmtMs(c.overshootMs.max)} ms; ${JSON.stringify(c.labels)}`);
  }
  return { cells, run, closing };
}

function fmtSigned(x: number): string {
  return `${x > 0 ? '+' : x < 0 ? '−' : ''}${fmtMs(Math.abs(x))}`;
}

/** p50 / p99, with a minus sign only when negative. */
function pair(x: Stats | null): string {
  const f = (v: number): string => (v < 0 ? `−${fmtMs(-v)}` : fmtMs(v));
  return x === null ? '–' : `${f(x.p50)} / ${f(x.p99)}`;
}

function share(n: number, of: number): string {
  return of === 0 ? '–' : `${Math.round((100 * n) / of)}%`;
}

function markdown(cells: readonly CellResult[], pooled: readonly PooledResult[], runs: readonly TreeRun[], opts: BenchOptions, deadlineMs: number): string {
  const lines = [
    `## deadline: adherence with 10% of leaves hung${opts.quick ? ' (quick)' : ''}`,
    '',
    `Real HTTP tree on loopback over ${SHARDS} hash shards of ${TABLE} (${LAYOUT}). ` +
      `Shards ${HUNG_SHARDS.join(', ')} hang (\`hang: 1\`); control: no faults. deadline_ms ${deadlineMs}, policy partial (default); ` +
      `${opts.warmup} warm-up + ${opts.reps} measured queries per tree and query (control: ${Math.ceil(opts.reps / 4)}), one at a time, the two queries interleaved. ` +
      `Overshoot = client latency − deadline, ms (negative: early); percentiles nearest-rank. Target: p99 overshoot ≤ ${SLACK_MS} ms with faults.`,
    '',
    '| depth | faults | query | overshoot p50 / p99 / max | ≤ slack | server ms p50 | exact / bounded / approx / error | answered p50 (min) | missing = hung | timer late p50 / p99 | after timer p50 / p99 | CPU ms p50 |',
    '| --- | --- | --- | ---: | ---: | ---: | --- | ---: | ---: | ---: | ---: | ---: |',
  ];
  for (const c of cells) {
    const o = c.overshootMs;
    const l = c.labels;
    const errs = Object.entries(c.errors).map(([k, v]) => `${k.replace(/^CANOPY_ERR_/, '')} ${v}`).join(', ');
    const ok200 = c.n - l.error;
    lines.push(
      `| ${c.depth} | ${c.faults ? '10% hung' : 'none'} | ${c.query} | ${fmtSigned(o.p50)} / ${fmtSigned(o.p99)} / ${fmtSigned(o.max)} | ${Math.round(c.withinSlack * 100)}% | ` +
        `${c.serverMs === null ? '–' : fmtMs(c.serverMs.p50)} | ${share(l.exact, c.n)} / ${share(l.bounded, c.n)} / ${share(l.approximate, c.n)} / ${share(l.error, c.n)}${errs === '' ? '' : ` (${errs})`} | ` +
        `${c.answered === null ? '–' : `${c.answered.p50} (${c.answered.min})`} | ${ok200 === 0 ? '–' : `${c.missingExact}/${ok200}`} | ${pair(c.timerLateMs)} | ${pair(c.afterTimerMs)} | ${fmtMs(c.cpuMs.p50)} |`,
    );
  }
  lines.push('', `Both queries pooled, with faults (target p99 ≤ +${SLACK_MS} ms):`, '', '| depth | n | overshoot p50 / p99 / max | target met |', '| --- | ---: | ---: | --- |');
  for (const p of pooled) lines.push(`| ${p.depth} | ${p.n} | ${fmtSigned(p.overshootMs.p50)} / ${fmtSigned(p.overshootMs.p99)} / ${fmtSigned(p.overshootMs.max)} | ${p.targetMet ? 'yes' : '**no**'} |`);
  lines.push(
    '',
    'Trees: ' +
      runs
        .map((r) => `depth ${r.depth} ${r.faults ? 'faults' : 'control'} (${r.aggregators} aggregators): start ${fmtMs(r.startMs)} ms, close ${r.closeMs === null ? '?' : fmtMs(r.closeMs)} ms${r.closeStalled ? ' (**stalled**)' : ''}`)
        .join('; ') +
      '.',
  );
  lines.push(
    '',
    '"server ms": `stats.elapsed_ms` of the 200 answers (the root\'s own clock). "answered": shards answered per 200 answer. ' +
      '"missing = hung": 200 answers whose `missing` lists exactly the hung shards (control: nothing); the others also lost healthy shards to the deadline ' +
      '(a whole aggregator subtree when the aggregator answered after its parent\'s timer). ' +
      '"timer late": how late a probe timer fired that was set for the moment the root\'s own child timers expire (deadline − root reserve); ' +
      (ROOT_HERE ? 'it shares the event loop of the root, so the root\'s deadline timers fire about as late. ' : 'it runs in the client\'s process, not the root\'s: it shows the load on the machine. ') +
      '"after timer": client latency after that probe fired (the root\'s work after its deadline, plus the reply); both over the queries not answered before it. ' +
      `"CPU ms": CPU time of the benchmark process (${ROOT_HERE ? 'client + root' : 'the client only'}) per query. ` +
      `Each hop keeps back a reserve (\`defaultReserveMs\`: ${fmtMs(defaultReserveMs(deadlineMs))} ms of the root's ${deadlineMs} ms) for its merge and reply, so without stalls the root answers before the deadline. ` +
      'Errors: `NO_COVERAGE` is the honest 503 when no shard answered in time.',
  );
  for (const q of DEADLINE_QUERIES) lines.push(`- ${q.id}: \`${q.sql}\``);
  const bad = cells.filter((c) => c.problems.length > 0 || c.missingMismatches.length > 0);
  for (const c of bad) {
    lines.push('', `### depth ${c.depth}, ${c.faults ? 'faults' : 'control'}, ${c.query}`);
    for (const p of c.problems) lines.push(`- **honesty:** ${p}`);
    for (const m of c.missingMismatches) lines.push(`- missing ≠ expected: ${m}`);
  }
  return lines.join('\n') + '\n';
}

interface PooledResult {
  readonly depth: number;
  readonly n: number;
  readonly overshootMs: Stats;
  readonly targetMet: boolean;
}

/** The `deadline` benchmark module. */
export const deadline: BenchModule = {
  description: 'deadline adherence of the HTTP tree at depth 1, 2, 3 with 10% of leaves hung (and a control without faults)',
  defaults: { full: { reps: 60, warmup: 5 }, quick: { reps: 8, warmup: 1 } },
  async run(opts: BenchOptions): Promise<BenchReport> {
    const deadlineMs = opts.deadlineMs ?? DEFAULT_DEADLINE_MS;
    const plan: FaultPlan = { seed: 1, rules: [{ shards: HUNG_SHARDS, hang: 1 }] };
    const faultsFile = path.join(os.tmpdir(), `canopy-deadline-faults-${process.pid}.json`);
    await writeFile(faultsFile, JSON.stringify(plan));
    const t0 = performance.now();
    const cells: CellResult[] = [];
    const runs: TreeRun[] = [];
    const closing: Promise<void>[] = [];
    try {
      for (const cfg of TREES) {
        for (const faults of [true, false]) {
          const r = await runTree(cfg, faults ? faultsFile : null, opts, deadlineMs);
          cells.push(...r.cells);
          runs.push(r.run);
          closing.push(r.closing);
        }
      }
    } finally {
      const tw = performance.now();
      await Promise.all(closing);
      if (runs.some((r) => r.closeStalled)) log(`waited ${fmtMs(performance.now() - tw)} ms more for stalled tree.close() calls`);
      await rm(faultsFile, { force: true });
    }
    const totalMs = performance.now() - t0;
    log(`done in ${fmtMs(totalMs / 1000)} s`);
    const pooled: PooledResult[] = TREES.map((t) => {
      const xs = cells.filter((c) => c.depth === t.depth && c.faults).flatMap((c) => c.overshootSamples);
      const s = stats(xs);
      return { depth: t.depth, n: xs.length, overshootMs: s, targetMet: s.p99 <= SLACK_MS };
    });
    const ok = cells.every((c) => c.problems.length === 0);
    if (!ok) log('!!! SOME ANSWERS BROKE AN HONESTY CHECK: see the report');
    return {
      name: 'deadline',
      ok,
      markdown: markdown(cells, pooled, runs, opts, deadlineMs),
      data: {
        benchmark: 'deadline',
        layout: LAYOUT,
        quick: opts.quick,
        reps: opts.reps,
        warmup: opts.warmup,
        deadlineMs,
        slackMs: SLACK_MS,
        rootReserveMs: defaultReserveMs(deadlineMs),
        policy: 'partial',
        dataset: { path: DEFAULT_DATA_PATH, table: TABLE, shards: SHARDS, partition: 'hash' },
        faultPlan: plan,
        queries: DEADLINE_QUERIES,
        overshootDefinition: 'overshoot = client latency (performance.now around undici request + body read) - deadline_ms; percentiles nearest-rank',
        totalSeconds: round3(totalMs / 1000),
        allHonest: ok,
        trees: runs,
        pooled,
        cells,
      },
    };
  },
};
