/**
 * `leaf` benchmark: the canopy leaf engine (scanShard over 100 in-memory hash shards,
 * then mergePartials + finalise, all in this process) against DuckDB with one thread
 * over the same 3,000,000 flights rows, also in memory. Ratio = canopy / DuckDB on
 * medians; lower is better and the target is <= 1.0.
 *
 * Planning (planQuery, layoutOf) happens once per query, outside the timed region; each
 * repetition scans with a fresh copy of the scan plan (as a leaf gets it, parsed from a
 * request's JSON), so nothing kept per plan node (a dictionary entry's computed value) is
 * carried from one repetition to the next. DuckDB's timed region includes its own
 * parse/plan and conversion of the result to JS.
 */
import path from 'node:path';
import { DEFAULT_DATA_PATH, prepareShards, readShard, schemaOf } from '../src/data/index.ts';
import { prepareShard, scanShard, type PreparedShard } from '../src/leaf/index.ts';
import { finalise, fromWireJSON, layoutOf, mergePartials, toWireJSON, type Partial, type QueryPlan, type ResultSet, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { compareAnswers } from './answers.ts';
import { fmtMs, round3, summarise, timed, type BenchModule, type BenchOptions, type BenchReport, type Timing } from './common.ts';
import { openReference, type Reference } from './reference.ts';

const TABLE = 'flights';
const SHARDS = 100;

/** The benchmark queries: a short label for tables and the SQL both engines run. */
export const LEAF_QUERIES: readonly { readonly id: string; readonly label: string; readonly sql: string }[] = [
  { id: 'q1', label: 'global aggregates', sql: 'SELECT count(*), sum(delay), min(delay), max(delay), avg(delay) FROM flights' },
  { id: 'q2', label: 'group by origin', sql: 'SELECT origin, count(*), avg(delay) FROM flights GROUP BY origin' },
  { id: 'q3', label: 'top-10 origin×destination', sql: 'SELECT origin, destination, count(*) FROM flights GROUP BY origin, destination ORDER BY 3 DESC LIMIT 10' },
  { id: 'q4', label: 'daily avg (date_trunc)', sql: "SELECT date_trunc('day', date) AS day, avg(delay) FROM flights GROUP BY 1 ORDER BY 1" },
  { id: 'q5', label: 'filtered count', sql: "SELECT count(*) FROM flights WHERE delay > 60 AND origin IN ('SFO','LAX','ORD')" },
  // One row per kernel added with the aggregate registry (issue 14), against the plain sum over the same column.
  { id: 'q6', label: 'sum(delay) (reference for q7-q9)', sql: 'SELECT sum(delay) FROM flights' },
  { id: 'q7', label: 'stddev(delay)', sql: 'SELECT stddev(delay) FROM flights' },
  { id: 'q8', label: 'sum(delay) FILTER (WHERE delay > 15)', sql: 'SELECT sum(delay) FILTER (WHERE delay > 15) FROM flights' },
  { id: 'q9', label: 'bool_or / count_if by origin', sql: 'SELECT origin, bool_or(delay > 300), count_if(delay > 15) FROM flights GROUP BY origin' },
  // Expression kernels (issue 14): each against its column-only reference row.
  { id: 'q10', label: 'one equality (reference)', sql: 'SELECT count(*) FROM flights WHERE delay = 7' },
  { id: 'q11', label: '1,000 OR-ed equalities', sql: `SELECT count(*) FROM flights WHERE ${Array.from({ length: 1000 }, (_, i) => `delay = ${i - 500}`).join(' OR ')}` },
  { id: 'q12', label: 'WHERE over arithmetic', sql: 'SELECT count(*) FROM flights WHERE delay * 2 + 1 > 121' },
  { id: 'q13', label: 'LIKE on a dictionary column', sql: "SELECT count(*) FROM flights WHERE origin LIKE 'S%' OR destination ILIKE '%x'" },
  { id: 'q14', label: 'GROUP BY extract(hour)', sql: 'SELECT extract(hour FROM date) AS h, count(*) FROM flights GROUP BY h ORDER BY h' },
  { id: 'q16', label: 'sum(delay * 2) (aggregate over an expression; reference q6)', sql: 'SELECT sum(delay * 2) FROM flights' },
  { id: 'q17', label: 'avg(CASE WHEN delay > 15 THEN 1 ELSE 0 END) by origin (reference q2)', sql: 'SELECT origin, avg(CASE WHEN delay > 15 THEN 1 ELSE 0 END) FROM flights GROUP BY origin' },
  { id: 'q15', label: 'CASE / arithmetic after aggregation', sql: 'SELECT origin, round(100.0 * count(*) / sum(distance), 3) AS r, CASE WHEN avg(delay) > 10 THEN 1 ELSE 0 END AS late FROM flights GROUP BY origin' },
  { id: 'q18', label: "GROUP BY strftime(date, '%Y-%m') (a month as text)", sql: "SELECT strftime(date, '%Y-%m') AS m, count(*) FROM flights GROUP BY m" },
  { id: 'q19', label: "GROUP BY origin || '-' || destination (a route as text)", sql: "SELECT origin || '-' || destination AS route, count(*) FROM flights GROUP BY route" },
  { id: 'q20', label: 'count(DISTINCT destination) WHERE delay > 60 (e2e q4)', sql: 'SELECT count(DISTINCT destination) FROM flights WHERE delay > 60' },
];

/** Per-query outcome, as written to leaf.json. */
interface QueryResult {
  readonly id: string;
  readonly label: string;
  readonly sql: string;
  readonly canopy: Timing | null;
  readonly duckdb: Timing | null;
  /** canopy median / DuckDB median. */
  readonly ratio: number | null;
  /** canopy min / DuckDB min (less noisy on busy machines). */
  readonly ratioMin: number | null;
  readonly resultRows: number | null;
  readonly agree: boolean;
  readonly mismatches: readonly string[];
  readonly error: string | null;
}

/** canopy's side: shards prepared in memory and the table schema. */
interface CanopyData {
  readonly schema: TableSchema;
  readonly shards: readonly PreparedShard[];
  readonly rows: number;
  readonly prepareMs: number;
  readonly loadMs: number;
  readonly cached: boolean;
}

function log(msg: string): void {
  process.stderr.write(`[leaf] ${msg}\n`);
}

/** Prepares (or reuses) the 100 hash shards and loads them into scan-ready memory. */
async function loadCanopy(): Promise<CanopyData> {
  const t0 = performance.now();
  const prepared = await prepareShards({
    path: DEFAULT_DATA_PATH,
    table: TABLE,
    shards: SHARDS,
    partition: { kind: 'hash' },
    cacheDir: path.resolve('.canopy-cache'),
  });
  const t1 = performance.now();
  const shards = prepared.files.map((file, id) => {
    const table = readShard(file);
    return prepareShard(id, table, schemaOf(table));
  });
  const t2 = performance.now();
  const rows = shards.reduce((n, s) => n + s.rows, 0);
  return { schema: prepared.catalog.table, shards, rows, prepareMs: t1 - t0, loadMs: t2 - t1, cached: prepared.cached };
}

/**
 * The timed canopy work for one planned query: scan every shard in turn with `scan` (a
 * fresh copy of the plan's scan per repetition, made before the clock starts), merge the
 * partials, finalise. Returns the answer and the rows scanned.
 */
function canopyRunner(plan: QueryPlan, data: CanopyData): (scan: QueryPlan['scan']) => Promise<{ answer: ResultSet; scanned: number }> {
  const layout = layoutOf(plan.scan, data.schema);
  const signal = new AbortController().signal;
  return async (scan) => {
    const partials: Partial[] = [];
    let scanned = 0;
    for (const shard of data.shards) {
      const s = await scanShard(shard, scan, layout, signal);
      partials.push(s.partial);
      scanned += s.rowsScanned;
    }
    return { answer: finalise(plan, layout, mergePartials(layout, partials)), scanned };
  };
}

/** Warms up, then times both engines on one query, alternating them repetition by repetition. */
async function benchQuery(q: (typeof LEAF_QUERIES)[number], data: CanopyData, ref: Reference, opts: BenchOptions): Promise<QueryResult> {
  const base = { id: q.id, label: q.label, sql: q.sql };
  let plan: QueryPlan;
  try {
    plan = planQuery(q.sql, new Map([[TABLE, data.schema]]), DEFAULT_LIMITS);
  } catch (e) {
    const error = `planQuery failed: ${(e as Error).message}`;
    return { ...base, canopy: null, duckdb: null, ratio: null, ratioMin: null, resultRows: null, agree: false, mismatches: [], error };
  }
  const runCanopy = canopyRunner(plan, data);
  const runDuck = (): Promise<readonly (readonly unknown[])[]> => ref.query(q.sql);
  const freshScan = (): QueryPlan['scan'] => fromWireJSON(toWireJSON(plan.scan)) as QueryPlan['scan'];
  for (let i = 0; i < opts.warmup; i++) {
    await runCanopy(freshScan());
    await runDuck();
  }
  const tc: number[] = [];
  const td: number[] = [];
  let last: { answer: ResultSet; scanned: number } | null = null;
  let expected: readonly (readonly unknown[])[] = [];
  for (let i = 0; i < opts.reps; i++) {
    const scan = freshScan();
    const c = await timed(() => runCanopy(scan));
    tc.push(c.ms);
    last = c.value;
    const d = await timed(runDuck);
    td.push(d.ms);
    expected = d.value;
  }
  const canopy = summarise(tc);
  const duckdb = summarise(td);
  const mismatches = compareAnswers(last!.answer.rows, expected, plan.orderBy.length > 0);
  if (last!.scanned !== data.rows) mismatches.unshift(`canopy scanned ${last!.scanned} rows, expected ${data.rows}`);
  return {
    ...base,
    canopy,
    duckdb,
    ratio: round3(canopy.median / duckdb.median),
    ratioMin: round3(canopy.min / duckdb.min),
    resultRows: last!.answer.rows.length,
    agree: mismatches.length === 0,
    mismatches,
    error: null,
  };
}

function geomean(xs: readonly number[]): number {
  return Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
}

function fmtRatio(x: number | null): string {
  return x === null ? '–' : x.toFixed(2);
}

function markdown(results: readonly QueryResult[], data: CanopyData, opts: BenchOptions, duckVersion: string): string {
  const t = (x: Timing | null): string => (x === null ? '–' : `${fmtMs(x.min)} / ${fmtMs(x.median)} / ${fmtMs(x.p90)}`);
  const lines = [
    `## leaf: canopy vs DuckDB${opts.quick ? ' (quick)' : ''}`,
    '',
    `${data.rows.toLocaleString('en-US')} rows of ${TABLE}, ${data.shards.length} hash shards in memory, one thread each side; ` +
      `${opts.warmup} warm-up + ${opts.reps} timed repetitions; DuckDB ${duckVersion}. Ratio = canopy / DuckDB (lower is better; target ≤ 1.0).`,
    '',
    '| query | canopy ms (min / med / p90) | DuckDB ms (min / med / p90) | ratio (med) | ratio (min) | answers |',
    '| --- | ---: | ---: | ---: | ---: | --- |',
  ];
  for (const r of results) {
    const answers = r.error !== null ? `ERROR` : r.agree ? 'agree' : `**MISMATCH** (${r.mismatches.length})`;
    lines.push(`| ${r.id} ${r.label} | ${t(r.canopy)} | ${t(r.duckdb)} | ${fmtRatio(r.ratio)} | ${fmtRatio(r.ratioMin)} | ${answers} |`);
  }
  const ok = results.filter((r) => r.ratio !== null && r.ratioMin !== null);
  if (ok.length > 0) {
    lines.push(`| geometric mean | | | ${fmtRatio(geomean(ok.map((r) => r.ratio!)))} | ${fmtRatio(geomean(ok.map((r) => r.ratioMin!)))} | |`);
  }
  lines.push('');
  for (const r of results) lines.push(`- ${r.id}: \`${r.sql}\``);
  const problems = results.filter((r) => r.error !== null || !r.agree);
  for (const r of problems) {
    lines.push('', `### ${r.id}: ${r.error ?? 'answers differ'}`);
    for (const m of r.mismatches) lines.push(`- ${m}`);
  }
  return lines.join('\n') + '\n';
}

/** The `leaf` benchmark module. */
export const leaf: BenchModule = {
  description: 'leaf scan kernels (100 in-memory shards, in-process) vs DuckDB threads=1 on 3M flights rows',
  async run(opts: BenchOptions): Promise<BenchReport> {
    log('preparing canopy shards ...');
    const data = await loadCanopy();
    log(`canopy: ${data.rows} rows in ${data.shards.length} shards (prepare ${fmtMs(data.prepareMs)} ms${data.cached ? ', cached' : ''}, load ${fmtMs(data.loadMs)} ms)`);
    const ref = await openReference(DEFAULT_DATA_PATH, TABLE);
    log(`duckdb ${ref.version}: loaded in ${fmtMs(ref.loadMs)} ms`);
    const results: QueryResult[] = [];
    try {
      // CANOPY_BENCH_QUERIES=q2,q9: only those queries (a partial run while working on a kernel).
      const only = (process.env.CANOPY_BENCH_QUERIES ?? '').split(',').filter((id) => id !== '');
      for (const q of LEAF_QUERIES) {
        if (only.length > 0 && !only.includes(q.id)) continue;
        log(`${q.id} ${q.label} ...`);
        const r = await benchQuery(q, data, ref, opts);
        if (r.error !== null) log(`!!! ${q.id} ERROR: ${r.error}`);
        for (const m of r.mismatches) log(`!!! ${q.id} MISMATCH: ${m}`);
        results.push(r);
      }
    } finally {
      ref.close();
    }
    const ok = results.every((r) => r.error === null && r.agree);
    if (!ok) log('!!! ANSWERS DISAGREE WITH DUCKDB: see above and the report');
    return {
      name: 'leaf',
      ok,
      markdown: markdown(results, data, opts, ref.version),
      data: {
        benchmark: 'leaf',
        quick: opts.quick,
        reps: opts.reps,
        warmup: opts.warmup,
        dataset: { path: DEFAULT_DATA_PATH, table: TABLE, rows: data.rows, shards: data.shards.length, partition: 'hash' },
        setup: { canopyPrepareMs: round3(data.prepareMs), canopyPrepareCached: data.cached, canopyLoadMs: round3(data.loadMs), duckdbLoadMs: round3(ref.loadMs) },
        duckdb: { version: ref.version, threads: 1 },
        ratioDefinition: 'ratio = canopy median / duckdb median, ratioMin = canopy min / duckdb min (lower is better; target <= 1.0)',
        allAgree: ok,
        queries: results,
      },
    };
  },
};
