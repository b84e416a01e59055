/**
 * `npm run bench -- faults --real`: the fault schedules on the real multi-process default tree
 * (100 hash shards of flights, as npm start: 2 processes of whole subtrees, the root alone, all
 * on loopback; `CANOPY_BENCH_PLACEMENT=tiers`: 2 leaf processes and 1 aggregator process): 45 random fault schedules (seeded) x 10 queries. Each schedule gives 1-5 leaves
 * a fault (mild slowness of 100-1500 ms most often, else a reply after the deadline, a hang,
 * an error, a dropped connection or a garbled frame), written to the tree's `--faults` file,
 * which the leaf hosts re-read when it changes. Queries (count/sum/min/max/avg, a filtered
 * count, a GROUP BY) run with deadline_ms 3000 under the `partial` and `all` policies.
 *
 * Reported: label violations against the fault-free answers of the same tree (which the
 * e2e tests hold equal to DuckDB): an exact answer must equal them, exact cells must equal
 * them, bounded cells must contain them, every shard once in coverage; whole-aggregator losses
 * (an aggregator's every shard missing at its own path: it did not answer the root in time)
 * where the aggregator held one or more faulted leaves (target 0), and healthy shards missing.
 */
import { writeFileSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { seededRandom } from '../src/leaf/index.ts';
import { startLocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import { fmtMs, nearestRank, round3, type BenchOptions, type BenchReport } from './common.ts';

const SEED = 45;
const DEADLINE_MS = 3000;
const SHARDS = 100;
const FANOUT = 10;

const QUERIES = [
  'SELECT count(*), sum(delay), min(delay), max(delay), avg(delay) FROM flights',
  'SELECT count(*), sum(distance) FROM flights WHERE delay > 30',
  'SELECT origin, count(*), sum(distance), max(delay) FROM flights GROUP BY origin ORDER BY origin',
];

type Rule = Record<string, unknown> & { shards: number[] };

/** One random schedule: faulted shards and their faults. */
function schedule(rand: () => number): { rules: Rule[]; faulted: Map<number, string> } {
  const k = 1 + Math.floor(rand() * 5);
  const faulted = new Map<number, string>();
  while (faulted.size < k) {
    const shard = Math.floor(rand() * SHARDS);
    const u = rand();
    const kind = u < 0.5 ? 'slow' : u < 0.6 ? 'late' : u < 0.7 ? 'hang' : u < 0.8 ? 'error' : u < 0.9 ? 'crash' : 'garble';
    faulted.set(shard, kind);
  }
  const rules: Rule[] = [...faulted].map(([shard, kind]) => {
    switch (kind) {
      case 'slow':
        return { shards: [shard], latency: { kind: 'fixed', ms: Math.round(100 + rand() * 1400) } };
      case 'late':
        return { shards: [shard], latency: { kind: 'fixed', ms: 6000 } };
      default:
        return { shards: [shard], [kind]: 1 };
    }
  });
  return { rules, faulted };
}

interface Answer {
  columns?: { name: string }[];
  rows?: unknown[][];
  label?: string;
  cells?: (({ label: string; lo: unknown; hi: unknown } | null)[] | null)[] | null;
  coverage?: { shards: number; answered: number; failed: number; omitted: number; pruned: number };
  missing?: { shard: number; path: string; reason: string }[];
  error?: { code: string; details?: { missing?: { shard: number; path: string }[] } };
}

async function ask(url: string, sql: string, policy: string, deadlineMs = DEADLINE_MS): Promise<{ body: Answer; ms: number }> {
  const t0 = performance.now();
  const res = await fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, deadline_ms: deadlineMs, policy }) });
  return { body: (await res.json()) as Answer, ms: performance.now() - t0 };
}

const num = (v: unknown): number | null => (typeof v === 'number' ? v : typeof v === 'string' && /^-?\d+$/.test(v) ? Number(v) : null);

function close(a: unknown, b: unknown): boolean {
  const x = num(a);
  const y = num(b);
  if (x !== null && y !== null) return Math.abs(x - y) <= 1e-9 * Math.max(1, Math.abs(y));
  return a === b;
}

/** The label contract of one answer against the truth (fault-free rows, keyed by their first column for GROUP BY). */
function violationsOf(a: Answer, truth: Answer, grouped: boolean): string[] {
  const out: string[] = [];
  if (a.error !== undefined) return a.error.code === 'CANOPY_ERR_NO_COVERAGE' ? [] : [`error ${a.error.code}`];
  const c = a.coverage!;
  if (c.answered + c.failed + c.omitted + c.pruned !== c.shards || c.shards !== SHARDS) out.push(`coverage does not add up: ${JSON.stringify(c)}`);
  const truthRows = new Map(truth.rows!.map((r) => [grouped ? String(r[0]) : '', r]));
  a.rows!.forEach((row, i) => {
    const t = truthRows.get(grouped ? String(row[0]) : '');
    if (t === undefined) {
      out.push(`row ${i} (${String(row[0])}) is not in the complete answer`);
      return;
    }
    row.forEach((v, j) => {
      const cell = a.label === 'exact' ? null : (a.cells?.[i]?.[j] ?? null);
      if (cell === null) {
        if (!close(v, t[j])) out.push(`row ${i} col ${j}: exact ${String(v)} but the truth is ${String(t[j])}`);
      } else if (cell.label === 'bounded') {
        const lo = num(cell.lo);
        const hi = num(cell.hi);
        const tv = num(t[j]);
        if (tv !== null && ((lo !== null && lo > tv + 1e-9 * Math.abs(tv)) || (hi !== null && hi < tv - 1e-9 * Math.abs(tv)))) out.push(`row ${i} col ${j}: [${String(cell.lo)}, ${String(cell.hi)}] misses the truth ${String(t[j])}`);
      }
    });
  });
  if (a.label === 'exact' && a.rows!.length !== truth.rows!.length) out.push(`exact with ${a.rows!.length} rows, the truth has ${truth.rows!.length}`);
  return out;
}

/** Runs the real-tree fault schedules; `opts.quick`: 5 schedules. */
export async function runReal(opts: BenchOptions): Promise<BenchReport> {
  const n = opts.quick ? 5 : 45;
  const perSchedule = 10;
  const file = path.join(os.tmpdir(), `canopy-faults-real-${process.pid}.json`);
  writeFileSync(file, JSON.stringify({ rules: [] }));
  const loadBefore = os.loadavg().map(round3);
  const placement = process.env.CANOPY_BENCH_PLACEMENT === 'tiers' ? 'tiers' : 'subtrees';
  const tree = await startLocalTree({ data: DEFAULT_DATA_PATH, table: 'flights', shards: SHARDS, partition: { kind: 'hash' }, fanout: FANOUT, port: 0, cacheDir: path.resolve('.canopy-cache'), leafProcesses: 2, placement, faults: file, log: (m) => console.error(`faults --real: ${m}`) });
  const rand = seededRandom(SEED);
  const problems: { schedule: number; query: string; problems: string[] }[] = [];
  let queries = 0;
  let aggLossesWithFault = 0;
  let aggLossesHealthy = 0;
  let healthyMissing = 0;
  let queriesLosingHealthy = 0;
  let noCoverage = 0;
  const labels: Record<string, number> = {};
  const ms: number[] = [];
  const faultsDrawn: Record<string, number> = {};
  const examples: unknown[] = [];
  try {
    // Fault-free truth (a long deadline: the machine may be busy), after a warm-up.
    const truth: Answer[] = [];
    for (const sql of QUERIES) {
      for (let w = 0; w < 3; w++) await ask(tree.url, sql, 'all');
      const t = (await ask(tree.url, sql, 'all', 60_000)).body;
      if (t.label !== 'exact') throw new Error(`faults --real: the fault-free tree did not answer exactly: ${JSON.stringify(t).slice(0, 300)}`);
      truth.push(t);
    }
    for (let s = 0; s < n; s++) {
      const { rules, faulted } = schedule(rand);
      for (const k of faulted.values()) faultsDrawn[k] = (faultsDrawn[k] ?? 0) + 1;
      writeFileSync(file, JSON.stringify({ seed: SEED + s, rules }));
      await new Promise((r) => setTimeout(r, 250)); // the leaf hosts check the file every 100 ms
      for (let q = 0; q < perSchedule; q++) {
        const qi = Math.floor(rand() * QUERIES.length);
        const policy = rand() < 0.5 ? 'partial' : 'all';
        const { body, ms: t } = await ask(tree.url, QUERIES[qi]!, policy);
        queries++;
        ms.push(t);
        const found = violationsOf(body, truth[qi]!, qi === 2);
        if (found.length > 0) problems.push({ schedule: s, query: QUERIES[qi]!, problems: found.slice(0, 3) });
        const label = body.error?.code ?? body.label ?? '?';
        labels[label] = (labels[label] ?? 0) + 1;
        if (body.error?.code === 'CANOPY_ERR_NO_COVERAGE') noCoverage++;
        const missing = body.missing ?? body.error?.details?.missing ?? [];
        const healthy = missing.filter((m) => !faulted.has(m.shard));
        healthyMissing += healthy.length;
        if (healthy.length > 0) queriesLosingHealthy++;
        // A whole aggregator lost: its shards missing at its own path (it did not answer the root).
        const byAgg = new Map<string, number[]>();
        for (const m of missing) {
          const parts = m.path.split('/');
          if (parts.length === 2 && parts[1]!.startsWith('agg-')) byAgg.set(parts[1]!, [...(byAgg.get(parts[1]!) ?? []), m.shard]);
        }
        for (const [agg, shards] of byAgg) {
          if (shards.some((sh) => faulted.has(sh))) aggLossesWithFault++;
          else aggLossesHealthy++;
          if (examples.length < 5) examples.push({ schedule: s, agg, shards: shards.length, faulted: Object.fromEntries([...faulted].filter(([sh]) => shards.includes(sh))), ms: round3(t) });
        }
      }
      console.error(`faults --real: schedule ${s + 1}/${n}: ${problems.length} violations, ${aggLossesWithFault} whole-aggregator losses with a faulted leaf, ${aggLossesHealthy} without, ${healthyMissing} healthy shards missing so far`);
    }
  } finally {
    await tree.close();
  }
  ms.sort((a, b) => a - b);
  const loadAfter = os.loadavg().map(round3);
  const data = { real: true, schedules: n, queriesPerSchedule: perSchedule, queries, deadlineMs: DEADLINE_MS, seed: SEED, violations: problems.length, firstViolations: problems.slice(0, 5), wholeAggregatorLossesWithFaultedLeaf: aggLossesWithFault, wholeAggregatorLossesAllHealthy: aggLossesHealthy, aggregatorLossExamples: examples, healthyShardsMissing: healthyMissing, queriesLosingHealthyShards: queriesLosingHealthy, noCoverage, labels, faultsDrawn, p50Ms: round3(nearestRank(ms, 0.5)), p99Ms: round3(nearestRank(ms, 0.99)), loadAverageBefore: loadBefore, loadAverageAfter: loadAfter };
  const md = [
    '## faults --real: fault schedules on the real multi-process tree',
    '',
    `Default tree (100 shards, ${placement === 'subtrees' ? '2 processes of whole subtrees (placement subtrees, as npm start)' : '2 leaf processes, 1 aggregator process (placement tiers)'}, root alone, loopback), ${n} random fault schedules (seed ${SEED}; 1-5 faulted leaves each, faults drawn ${JSON.stringify(faultsDrawn)}; "slow" is a fixed 100-1500 ms delay, "late" 6 s) x ${perSchedule} queries, deadline_ms ${DEADLINE_MS}, policies partial and all. Load average before ${loadBefore.join(' / ')}, after ${loadAfter.join(' / ')} (shared machine).`,
    '',
    '| measure | count |',
    '| --- | ---: |',
    `| queries | ${queries} |`,
    `| label violations (vs the fault-free answers) | **${problems.length}** |`,
    `| whole-aggregator losses where the aggregator held a faulted leaf | **${aggLossesWithFault}** |`,
    `| whole-aggregator losses with only healthy leaves | ${aggLossesHealthy} |`,
    `| queries that lost a healthy shard / healthy shards missing | ${queriesLosingHealthy} / ${healthyMissing} |`,
    `| CANOPY_ERR_NO_COVERAGE | ${noCoverage} |`,
    '',
    `Outcomes: ${JSON.stringify(labels)}; latency p50 ${fmtMs(data.p50Ms)} ms, p99 ${fmtMs(data.p99Ms)} ms.`,
    '',
  ].join('\n');
  return { name: 'faults-real', data, markdown: md, ok: problems.length === 0 };
}
