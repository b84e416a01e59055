/**
 * `e2e` benchmark: the default tree (as `npm start` builds it: 100 hash shards of the bundled
 * flights data, fan-out 10, 2 processes of whole subtrees (aggregators with their leaves), the root in its
 * own) on loopback, against DuckDB in this process with threads=1 and threads=2 over the same
 * Parquet file (loaded into memory). Rounds alternate: each round runs every query once on
 * canopy, DuckDB t=1 and DuckDB t=2, so a burst of outside load hits all three alike.
 *
 * Per query: client wall time (p50/p90) and the root's `stats.elapsed_ms`, the answer's label,
 * and ratio = canopy client p50 / DuckDB t=2 p50. The answer of every exact-labelled query is
 * checked against DuckDB's. Per tier (leaf, aggregator, root host processes) the CPU spent per
 * query, read from /proc/<pid>/stat around each query's repetitions, gives the cost breakdown.
 *
 * `CANOPY_BENCH_PLACEMENT=tiers` runs the tree as `npm start --placement tiers` (leaves in 2
 * processes, the aggregators in `CANOPY_BENCH_AGG_PROCESSES=A`, default 1); the default is
 * `subtrees`, as `npm start`. With subtrees the "aggregator" tier's CPU is that of the subtrees
 * processes (aggregators and leaves together) and the leaf tier reads 0.
 * `CANOPY_BENCH_CPU_PROF=<dir>` starts the tree's processes with `--cpu-prof` into that dir
 * (profiles are written when the tree stops); `CANOPY_BENCH_QUERIES=q1,q8` runs only those queries.
 * Results: bench/results/e2e.{json,md} and e2e.svg (p50 per query, canopy and both DuckDBs).
 */
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { Agent, request } from 'undici';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../src/data/index.ts';
import { compareAnswers } from './answers.ts';
import { fmtMs, round3, summarise, type BenchModule, type BenchOptions, type BenchReport, type Timing } from './common.ts';
import { openReference, type Reference } from './reference.ts';

const TABLE = 'flights';
const SHARDS = 100;

/** One benchmark query. `duck` is DuckDB's SQL when it must spell out canopy's tie-break. */
interface E2EQuery {
  readonly id: string;
  readonly label: string;
  readonly sql: string;
  readonly duck?: string;
  /** Extra request fields (e.g. `exact: true`). */
  readonly body?: Readonly<Record<string, unknown>>;
  /** Row order is determined: compare it too. */
  readonly ordered?: boolean;
  /** Any k rows/groups are a right answer (LIMIT without ORDER BY): only the count is checked. */
  readonly anyRows?: number;
  /**
   * Runs after the alternating rounds, on its own (at most 2 timed repetitions): a query that
   * can run into its deadline leaves work behind in the tree that would be charged to the next query.
   */
  readonly apart?: boolean;
}

/** The issue's eight queries (q1-q8), then ours. */
export const E2E_QUERIES: readonly E2EQuery[] = [
  { id: 'q1', label: 'totals: count/sum/min/max/avg', sql: 'SELECT count(*), sum(delay), min(delay), max(delay), avg(delay) FROM flights' },
  { id: 'q2', label: 'GROUP BY origin', sql: 'SELECT origin, count(*), avg(delay) FROM flights GROUP BY origin' },
  {
    id: 'q3',
    label: 'top-10 origin×destination',
    sql: 'SELECT origin, destination, count(*) AS n FROM flights GROUP BY origin, destination ORDER BY n DESC LIMIT 10',
    duck: 'SELECT origin, destination, count(*) AS n FROM flights GROUP BY origin, destination ORDER BY n DESC, origin, destination LIMIT 10',
    ordered: true,
  },
  { id: 'q4', label: 'count(DISTINCT destination) WHERE delay > 60', sql: 'SELECT count(DISTINCT destination) FROM flights WHERE delay > 60' },
  {
    id: 'q5',
    label: 'ORDER BY delay DESC LIMIT 20 (row top-k)',
    sql: 'SELECT date, delay, origin, destination FROM flights ORDER BY delay DESC LIMIT 20',
    duck: 'SELECT date, delay, origin, destination FROM flights ORDER BY delay DESC, date, origin, destination LIMIT 20',
    ordered: true,
  },
  { id: 'q6', label: 'daily avg (date_trunc day)', sql: "SELECT date_trunc('day', date) AS day, avg(delay) FROM flights GROUP BY 1 ORDER BY 1", ordered: true },
  {
    id: 'q7',
    label: "WHERE destination='ANC' AND delay>30 GROUP BY origin top 5",
    sql: "SELECT origin, count(*) AS n FROM flights WHERE destination = 'ANC' AND delay > 30 GROUP BY origin ORDER BY n DESC LIMIT 5",
    duck: "SELECT origin, count(*) AS n FROM flights WHERE destination = 'ANC' AND delay > 30 GROUP BY origin ORDER BY n DESC, origin LIMIT 5",
    ordered: true,
  },
  { id: 'q8', label: "count(*) WHERE origin='NOPE' (nothing matches)", sql: "SELECT count(*) FROM flights WHERE origin = 'NOPE'" },
  {
    id: 'q9',
    label: 'exact: true, GROUP BY date top 2',
    sql: 'SELECT date, count(*) AS n FROM flights GROUP BY date ORDER BY n DESC LIMIT 2',
    duck: 'SELECT date, count(*) AS n FROM flights GROUP BY date ORDER BY n DESC, date LIMIT 2',
    body: { exact: true },
    ordered: true,
    apart: true,
  },
  // Any 10 rows are the answer (canopy stops once it holds them): only the count is checked.
  { id: 'q10', label: 'LIMIT 10 rows, no ORDER BY (any 10 rows)', sql: 'SELECT origin, delay FROM flights LIMIT 10', anyRows: 10 },
  { id: 'q11', label: 'ORDER BY distance LIMIT 5 (ascending top-k)', sql: 'SELECT distance, origin, destination FROM flights ORDER BY distance, origin, destination LIMIT 5', ordered: true },
  { id: 'q12', label: 'GROUP BY destination, sum/max distance', sql: 'SELECT destination, sum(distance), max(distance) FROM flights GROUP BY destination' },
];

interface AnswerBody {
  readonly label?: string;
  readonly columns?: readonly { readonly name: string; readonly type?: string }[];
  readonly rows?: readonly (readonly unknown[])[];
  readonly stats?: { readonly elapsed_ms?: number };
  readonly error?: { readonly code?: string; readonly message?: string };
}

/** CPU time of one process (user + system), ms, from /proc; null where /proc is absent. */
function cpuMsOf(pid: number | undefined): number | null {
  if (pid === undefined) return null;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    const ticks = Number(f[11]) + Number(f[12]);
    return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
  } catch {
    return null;
  }
}

export type Tier = 'leaf' | 'aggregator' | 'root';

function tierOf(tree: LocalTree, host: string): Tier {
  const h = tree.topology.hosts.find((x) => x.name === host);
  if (h?.nodes.includes('root') === true) return 'root';
  return h?.nodes.some((n) => n.startsWith('agg-')) === true ? 'aggregator' : 'leaf';
}

/** CPU ms per tier summed over its host processes. */
export function tierCpu(tree: LocalTree): Record<Tier, number> {
  const out: Record<Tier, number> = { leaf: 0, aggregator: 0, root: 0 };
  for (const h of tree.hosts()) out[tierOf(tree, h.name)] += cpuMsOf(h.pid) ?? 0;
  return out;
}

/** Canopy cells as DuckDB's JS values compare: ISO timestamps -> epoch µs. */
function canopyRows(body: AnswerBody): unknown[][] {
  const types = (body.columns ?? []).map((c) => c.type);
  return (body.rows ?? []).map((r) => r.map((v, i) => (types[i] === 'timestamp' && typeof v === 'string' ? Date.parse(v) * 1000 : v)));
}

async function ask(tree: LocalTree, agent: Agent, q: E2EQuery): Promise<{ ms: number; body: AnswerBody; status: number }> {
  const payload = JSON.stringify({ sql: q.sql, ...q.body });
  const t0 = performance.now();
  const res = await request(`${tree.url}/v1/query`, { method: 'POST', dispatcher: agent, headers: { 'content-type': 'application/json' }, body: payload });
  const body = (await res.body.json()) as AnswerBody;
  return { ms: performance.now() - t0, body, status: res.statusCode };
}

async function duck(ref: Reference, sql: string): Promise<{ ms: number; rows: readonly (readonly unknown[])[] }> {
  const t0 = performance.now();
  const rows = await ref.query(sql);
  return { ms: performance.now() - t0, rows };
}

interface QueryResult {
  readonly id: string;
  readonly label: string;
  readonly sql: string;
  readonly canopy: Timing;
  readonly elapsed: Timing;
  readonly duckdb1: Timing;
  readonly duckdb2: Timing;
  /** canopy client p50 / DuckDB t=2 p50. */
  readonly ratio: number;
  readonly ratio1: number;
  readonly answerLabel: string;
  readonly rows: number;
  readonly agree: boolean;
  readonly mismatches: readonly string[];
  /** CPU ms per query by tier (host processes), mean over the timed repetitions. */
  readonly cpuMs: Record<Tier, number>;
}

function chart(results: readonly QueryResult[]): string {
  const W = 760;
  const rowH = 26;
  const L = 300;
  const T = 40;
  const H = T + results.length * rowH + 40;
  const max = Math.max(...results.flatMap((r) => [r.canopy.median, r.duckdb1.median, r.duckdb2.median]));
  const scale = (x: number): number => (x / max) * (W - L - 60);
  const colours = [['canopy', '#d62728'], ['DuckDB t=1', '#7f7f7f'], ['DuckDB t=2', '#1f77b4']] as const;
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="11">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${W / 2}" y="18" text-anchor="middle" font-size="14">e2e: client p50 per query, ms (100-shard tree vs DuckDB)</text>`,
  ];
  results.forEach((r, i) => {
    const y = T + i * rowH;
    out.push(`<text x="${L - 6}" y="${y + 14}" text-anchor="end">${r.id} ${r.label.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll("'", '&apos;').slice(0, 44)}</text>`);
    [r.canopy.median, r.duckdb1.median, r.duckdb2.median].forEach((v, j) => {
      out.push(`<rect x="${L}" y="${y + j * 7 + 2}" width="${scale(v).toFixed(1)}" height="6" fill="${colours[j]![1]}"/>`);
    });
    out.push(`<text x="${L + scale(r.canopy.median) + 4}" y="${y + 8}" fill="#d62728">${fmtMs(r.canopy.median)} (${r.ratio.toFixed(2)}x)</text>`);
  });
  colours.forEach(([name, c], j) => {
    out.push(`<rect x="${L + j * 120}" y="${H - 24}" width="12" height="8" fill="${c}"/><text x="${L + j * 120 + 16}" y="${H - 16}">${name}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

/** The `e2e` benchmark module. */
export const e2e: BenchModule = {
  description: 'the default 100-shard HTTP tree vs DuckDB threads=1 and 2 on the same data, client p50/p90, root elapsed_ms, CPU per tier',
  // 20 warm-up rounds (220 queries, every engine alike) before timing: the tree's processes are
  // long-running servers whose V8 tiers a query's code up over its first few dozen runs (q1
  // alone: 26 ms of CPU a query after 3 warm-up runs, 12 ms after 100), so 3 rounds timed the
  // JIT's warm-up as much as the query. `--warmup 3` gives the earlier runs' setting.
  defaults: { full: { reps: 15, warmup: 20 }, quick: { reps: 2, warmup: 1 } },
  async run(opts: BenchOptions): Promise<BenchReport> {
    const log = (m: string): void => void process.stderr.write(`[e2e] ${m}\n`);
    const prof = process.env.CANOPY_BENCH_CPU_PROF;
    if (prof !== undefined && prof !== '') process.env.CANOPY_HOST_NODE_FLAGS = `${process.env.CANOPY_HOST_NODE_FLAGS ?? ''} --cpu-prof --cpu-prof-dir=${path.resolve(prof)}`.trim();
    const aggregatorProcesses = Number(process.env.CANOPY_BENCH_AGG_PROCESSES ?? 1);
    const placement = process.env.CANOPY_BENCH_PLACEMENT === 'tiers' ? 'tiers' : 'subtrees';
    const tree = await startLocalTree({ data: DEFAULT_DATA_PATH, table: TABLE, shards: SHARDS, partition: { kind: 'hash' }, fanout: 10, port: 0, cacheDir: path.resolve('.canopy-cache'), leafProcesses: 2, aggregatorProcesses, placement });
    const ref1 = await openReference(DEFAULT_DATA_PATH, TABLE, 1);
    const ref2 = await openReference(DEFAULT_DATA_PATH, TABLE, 2);
    const agent = new Agent({ connections: 1 });
    const only = process.env.CANOPY_BENCH_QUERIES?.split(',').filter((x) => x !== '');
    const queries = only === undefined || only.length === 0 ? E2E_QUERIES : E2E_QUERIES.filter((q) => only.includes(q.id));
    const samples = new Map(queries.map((q) => [q.id, { c: [] as number[], e: [] as number[], d1: [] as number[], d2: [] as number[], cpu: { leaf: 0, aggregator: 0, root: 0 } as Record<Tier, number>, last: null as AnswerBody | null, status: 0, expected: [] as readonly (readonly unknown[])[] }]));
    try {
      log(`tree up (${tree.topology.hosts.length} processes); DuckDB ${ref1.version}`);
      const phases = [queries.filter((q) => q.apart !== true), ...queries.filter((q) => q.apart === true).map((q) => [q])];
      for (const phase of phases) for (let round = -opts.warmup; round < (phase[0]?.apart === true ? Math.min(2, opts.reps) : opts.reps); round++) {
        for (const q of phase) {
          const s = samples.get(q.id)!;
          const cpu0 = tierCpu(tree);
          const c = await ask(tree, agent, q);
          const cpu1 = tierCpu(tree);
          const d1 = await duck(ref1, q.duck ?? q.sql);
          const d2 = await duck(ref2, q.duck ?? q.sql);
          if (round < 0) continue;
          s.c.push(c.ms);
          s.e.push(c.body.stats?.elapsed_ms ?? Number.NaN);
          s.d1.push(d1.ms);
          s.d2.push(d2.ms);
          for (const t of ['leaf', 'aggregator', 'root'] as const) s.cpu[t] += cpu1[t] - cpu0[t];
          s.last = c.body;
          s.status = c.status;
          s.expected = d2.rows;
        }
        if (round >= 0) log(`${phase.map((q) => q.id).join(',')}: round ${round + 1}`);
      }
    } finally {
      ref1.close();
      ref2.close();
      await agent.close();
      await tree.close();
    }
    const results: QueryResult[] = queries.map((q) => {
      const s = samples.get(q.id)!;
      const body = s.last ?? {};
      const label = s.status === 200 ? (body.label ?? '?') : `HTTP ${s.status} ${body.error?.code ?? ''}`;
      let mismatches: string[] = [];
      if (s.status !== 200) mismatches = [`HTTP ${s.status}: ${body.error?.message ?? ''}`];
      else if (q.anyRows !== undefined) mismatches = (body.rows ?? []).length === q.anyRows ? [] : [`${(body.rows ?? []).length} rows, expected ${q.anyRows}`];
      else if (label === 'exact') mismatches = compareAnswers(canopyRows(body), s.expected, q.ordered === true);
      const canopy = summarise(s.c);
      const duckdb1 = summarise(s.d1);
      const duckdb2 = summarise(s.d2);
      return {
        id: q.id,
        label: q.label,
        sql: q.sql,
        canopy,
        elapsed: summarise(s.e),
        duckdb1,
        duckdb2,
        ratio: round3(canopy.median / duckdb2.median),
        ratio1: round3(canopy.median / duckdb1.median),
        answerLabel: label,
        rows: (body.rows ?? []).length,
        agree: mismatches.length === 0,
        mismatches,
        cpuMs: { leaf: round3(s.cpu.leaf / s.c.length), aggregator: round3(s.cpu.aggregator / s.c.length), root: round3(s.cpu.root / s.c.length) },
      };
    });
    const dir = new URL(opts.quick ? './results/quick/' : './results/', import.meta.url);
    await writeFile(new URL('e2e.svg', dir), chart(results));
    const t = (x: Timing): string => `${fmtMs(x.median)} / ${fmtMs(x.p90)}`;
    const md = [
      `## e2e: the default tree vs DuckDB${opts.quick ? ' (quick)' : ''}`,
      '',
      `${SHARDS} hash shards of ${TABLE} (3,000,000 rows), fan-out 10: ` +
        (placement === 'subtrees'
          ? 'root, then 2 processes each holding 5 aggregators with their 50 leaves (placement subtrees, as npm start: the leaves answer their aggregator in-process; the CPU column "agg" is those processes, leaves included), loopback HTTP from the root; '
          : `root, 10 aggregators in ${aggregatorProcesses} process(es), 100 leaves in 2 processes (placement tiers), loopback HTTP; `) +
        `DuckDB ${ref1.version} in the bench process over the same Parquet file loaded into memory. ${opts.warmup} warm-up + ${opts.reps} timed rounds, ` +
        'each round every query once on canopy, DuckDB t=1, DuckDB t=2 (q9 apart afterwards, 2 rounds: it runs into its 30 s deadline). ms as p50 / p90; ratio = canopy client p50 / DuckDB t=2 p50. ' +
        'CPU ms per query: user+system of the tier\'s host processes (/proc, 10 ms ticks), mean over the rounds.',
      '',
      '| query | canopy client | root elapsed_ms | DuckDB t=1 | DuckDB t=2 | ratio (t=2) | label | answer | CPU leaf / agg / root |',
      '| --- | ---: | ---: | ---: | ---: | ---: | --- | --- | ---: |',
      ...results.map(
        (r) =>
          `| ${r.id} ${r.label} | ${t(r.canopy)} | ${t(r.elapsed)} | ${t(r.duckdb1)} | ${t(r.duckdb2)} | **${r.ratio.toFixed(2)}x** | ${r.answerLabel} | ${r.agree ? (r.answerLabel === 'exact' ? 'equals DuckDB' : 'not checked') : `**MISMATCH** ${r.mismatches.slice(0, 2).join('; ')}`} | ${fmtMs(r.cpuMs.leaf)} / ${fmtMs(r.cpuMs.aggregator)} / ${fmtMs(r.cpuMs.root)} |`,
      ),
      '',
      ...queries.map((q) => `- ${q.id}: \`${q.sql}\`${q.body === undefined ? '' : ` with ${JSON.stringify(q.body)}`}`),
      '',
      'Chart: e2e.svg.',
    ].join('\n');
    const ok = results.every((r) => r.agree);
    return { name: 'e2e', ok, markdown: md + '\n', data: { benchmark: 'e2e', quick: opts.quick, reps: opts.reps, warmup: opts.warmup, duckdb: ref1.version, queries: results } };
  },
};
