/**
 * Calibration of the progressive estimates (`npm run bench -- estimates`): over random
 * subsets of the 100 hash shards of the flights data (5 %, 10 %, 25 % and 50 % of them
 * answered), how often the 95 % interval of a COUNT, SUM or AVG cell holds the true value,
 * and how wide it is.
 *
 * The trials run at the merge level: every shard's partial is computed once by the leaf's
 * scan (with the `moments` partial the root plans), then each trial merges a random subset,
 * finalises, bounds the cells from the missing shards' catalog entries and estimates them
 * with the root's own code (planQuery, planEstimates, boundAggregateAnswer,
 * estimateAnswer). The truth is DuckDB's answer over the same parquet file, checked against
 * the merge of all shards. Writes estimates.json / estimates.md and the charts
 * estimates-coverage.svg and estimates-width.svg.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { DEFAULT_DATA_PATH, prepareShards, readShard, schemaOf } from '../src/data/index.ts';
import { prepareShard, scanShard, seededRandom } from '../src/leaf/index.ts';
import {
  boundAggregateAnswer,
  estimateAnswer,
  finalise,
  groupKeyString,
  groupsOf,
  layoutOf,
  mergePartials,
  planEstimates,
  shardMayMatch,
  type Catalog,
  type Partial,
  type QueryPlan,
  type Scalar,
  type ShardStatus,
} from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import type { BenchModule, BenchOptions, BenchReport } from './common.ts';
import { openReference } from './reference.ts';
import { svgChart, type Series } from '../src/sim/index.ts';

const TABLE = 'flights';
const SHARES = [0.05, 0.1, 0.25, 0.5] as const;
/** Queries: grouped by origin, and ungrouped with and without a WHERE. No LIMIT (not group top-k). */
const QUERIES = [
  { id: 'by-origin', sql: `SELECT origin, count(*) AS flights, sum(delay) AS total_delay, avg(delay) AS avg_delay FROM ${TABLE} GROUP BY origin` },
  { id: 'all', sql: `SELECT count(*) AS flights, sum(delay) AS total_delay, avg(distance) AS avg_distance FROM ${TABLE}` },
  { id: 'delayed', sql: `SELECT count(*) AS flights, sum(delay) AS total_delay, avg(delay) AS avg_delay FROM ${TABLE} WHERE delay > 15` },
] as const;
/** Groups with fewer true rows than this are reported apart ("small groups"). */
const SMALL_GROUP = 3_000;
/** Groups with at least this many true rows are "large groups" (their median width is reported apart). */
const LARGE_GROUP = 30_000;
/** The group whose intervals are shown as an example (the issue's: flights from ORD). */
const EXAMPLE = 'ORD';

function log(msg: string): void {
  process.stderr.write(`[estimates] ${msg}\n`);
}

/** A random subset of k of 0..n-1 (partial Fisher-Yates). */
function subset(n: number, k: number, rand: () => number): number[] {
  const ids = [...Array(n).keys()];
  for (let i = 0; i < k; i++) {
    const j = i + Math.floor(rand() * (n - i));
    [ids[i], ids[j]] = [ids[j]!, ids[i]!];
  }
  return ids.slice(0, k);
}

function median(v: number[]): number | null {
  if (v.length === 0) return null;
  const s = [...v].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** One (query, column, share) cell of the calibration table. */
interface Tally {
  query: string;
  column: string;
  share: number;
  /** Cells estimated, and how many intervals held the truth. */
  cells: number;
  hits: number;
  /** Cells of small groups (true COUNT below SMALL_GROUP), and their hits. */
  smallCells: number;
  smallHits: number;
  /** Uncertain cells that got no estimate. */
  unestimated: number;
  /** Guaranteed intervals that missed the truth (must be 0). */
  guaranteeMisses: number;
  widths: number[];
  /** Widths of large groups' intervals (true COUNT at least LARGE_GROUP). */
  largeWidths: number[];
  errors: number[];
  /** The example group's estimates of one trial in each: [value, lo, hi]. */
  example: [number, number, number][];
}

function num(v: Scalar | undefined): number {
  return v === null || v === undefined ? NaN : Number(v);
}

async function run(opts: BenchOptions): Promise<BenchReport> {
  const trials = opts.quick ? 40 : 1000;
  const prepared = await prepareShards({ path: DEFAULT_DATA_PATH, table: TABLE, shards: 100, partition: { kind: 'hash' }, cacheDir: path.resolve('.canopy-cache') });
  const catalog: Catalog = prepared.catalog;
  const schema = catalog.table;
  const N = catalog.shards.length;
  const shards = prepared.files.map((f, id) => {
    const t = readShard(f);
    return prepareShard(id, t, schemaOf(t));
  });
  const ref = await openReference(DEFAULT_DATA_PATH, TABLE);
  const tallies: Tally[] = [];
  let referenceOk = true;
  const mismatches: string[] = [];
  const signal = new AbortController().signal;
  const t0 = performance.now();
  try {
    for (const q of QUERIES) {
      const parsed: QueryPlan = planQuery(q.sql, new Map([[TABLE, schema]]), DEFAULT_LIMITS);
      const pruned = catalog.shards.filter((s) => !shardMayMatch(parsed.scan.filter, s)).length;
      const { plan, note } = planEstimates(parsed, catalog, pruned);
      if (note !== null) throw new Error(`${q.id}: no estimates planned: ${note}`);
      const layout = layoutOf(plan.scan, schema);
      const partials: Partial[] = [];
      for (const s of shards) partials.push((await scanShard(s, plan.scan, layout, signal)).partial);
      // Truth: DuckDB, checked against the merge of every shard.
      const full = finalise(plan, layout, mergePartials(layout, partials));
      const keyed = (keys: readonly Scalar[]): string => groupKeyString(keys.map((k) => (k === null ? null : String(k))));
      const truth = new Map<string, number[]>();
      const nk = plan.scan.groupBy.length;
      for (const r of await ref.query(q.sql)) truth.set(keyed(r.slice(0, nk) as Scalar[]), r.slice(nk).map((v) => Number(v)));
      full.rows.forEach((r, i) => {
        const want = truth.get(keyed(full.groups![i]!.keys));
        const got = r.slice(nk).map((v) => Number(v));
        const same = want !== undefined && want.length === got.length && want.every((w, j) => Math.abs(w - got[j]!) <= 1e-9 * Math.max(1, Math.abs(w)));
        if (!same) {
          referenceOk = false;
          mismatches.push(`${q.id}: ${keyed(full.groups![i]!.keys)} canopy ${got.join(', ')} DuckDB ${want?.join(', ') ?? 'none'}`);
        }
      });
      if (truth.size !== full.rows.length) {
        referenceOk = false;
        mismatches.push(`${q.id}: ${full.rows.length} groups, DuckDB ${truth.size}`);
      }
      const countIdx = plan.output.findIndex((c) => c.expr.kind === 'agg' && c.expr.fn === 'count');
      const rand = seededRandom(20 + tallies.length);
      for (const share of SHARES) {
        const n = Math.round(share * N);
        const mine = new Map<string, Tally>();
        const tally = (column: string): Tally => {
          let t = mine.get(column);
          if (t === undefined) {
            t = { query: q.id, column, share, cells: 0, hits: 0, smallCells: 0, smallHits: 0, unestimated: 0, guaranteeMisses: 0, widths: [], largeWidths: [], errors: [], example: [] };
            mine.set(column, t);
          }
          return t;
        };
        for (let trial = 0; trial < trials; trial++) {
          const answered = subset(N, n, rand);
          const inSample = new Set(answered);
          const merged = mergePartials(layout, answered.map((id) => partials[id]!));
          const answer = finalise(plan, layout, merged);
          const missing = catalog.shards.filter((s) => !inSample.has(s.id));
          const bounds = boundAggregateAnswer(plan, layout, answer.groups!, missing, merged.type === 'rows' ? undefined : [...groupsOf(merged).values()]);
          const provenance: ShardStatus[] = catalog.shards.map((s) => ({ shard: s.id, status: inSample.has(s.id) ? 'answered' : 'omitted', path: `root/leaf-${s.id}` }));
          const est = estimateAnswer(plan, layout, catalog, answer.groups!, bounds.cells, bounds.rowsComplete, provenance, note);
          answer.groups!.forEach((g, i) => {
            const want = truth.get(keyed(g.keys))!;
            const trueCount = want[countIdx - nk] ?? Infinity;
            const small = trueCount < SMALL_GROUP;
            const large = nk === 0 || trueCount >= LARGE_GROUP;
            const example = nk > 0 && g.keys[0] === EXAMPLE;
            plan.output.forEach((c, j) => {
              if (c.expr.kind !== 'agg') return;
              const cell = est.cells[i]?.[j] ?? null;
              if (cell === null) return;
              const t = tally(c.name);
              const v = want[j - nk]!;
              if (!(num(cell.lo) <= v || cell.lo == null) || !(num(cell.hi) >= v || cell.hi == null)) t.guaranteeMisses++;
              const e = cell.estimate;
              if (e === undefined) {
                t.unestimated++;
                return;
              }
              const hit = e.lo <= v && v <= e.hi;
              t.cells++;
              if (hit) t.hits++;
              if (small) {
                t.smallCells++;
                if (hit) t.smallHits++;
              }
              const scale = Math.max(Math.abs(v), 1e-12);
              t.widths.push((e.hi - e.lo) / scale);
              if (large) t.largeWidths.push((e.hi - e.lo) / scale);
              if (example) t.example.push([e.value, e.lo, e.hi]);
              t.errors.push(Math.abs(e.value - v) / scale);
            });
          });
        }
        tallies.push(...mine.values());
        log(`${q.id} at ${share * 100}% of shards: ${[...mine.values()].map((t) => `${t.column} ${((100 * t.hits) / Math.max(1, t.cells)).toFixed(1)}%`).join(', ')}`);
      }
    }
  } finally {
    ref.close();
  }
  const seconds = (performance.now() - t0) / 1000;
  const pct = (a: number, b: number): number | null => (b === 0 ? null : Math.round((1000 * a) / b) / 10);
  const rows = tallies.map((t) => ({
    query: t.query,
    column: t.column,
    share: t.share,
    cells: t.cells,
    coverage: pct(t.hits, t.cells),
    smallGroupCells: t.smallCells,
    smallGroupCoverage: pct(t.smallHits, t.smallCells),
    unestimated: t.unestimated,
    guaranteeMisses: t.guaranteeMisses,
    medianRelWidth: median(t.widths),
    largeGroupMedianRelWidth: median(t.largeWidths),
    medianRelError: median(t.errors),
    example: t.example.length === 0 ? null : { group: EXAMPLE, first: t.example[0], medianRelWidth: median(t.example.map(([v, lo, hi]) => (hi - lo) / v)) },
  }));
  const byShare = SHARES.map((share) => {
    const ts = tallies.filter((t) => t.share === share);
    const cells = ts.reduce((a, t) => a + t.cells, 0);
    return { share, cells, coverage: pct(ts.reduce((a, t) => a + t.hits, 0), cells), medianRelWidth: median(ts.flatMap((t) => t.widths)) };
  });
  // By aggregate kind (the column's function), grouped or not, and share; small groups apart.
  const fnOf = (column: string): string => {
    const q = QUERIES.find((x) => x.sql.includes(` AS ${column}`));
    const m = q === undefined ? null : new RegExp(`(\\w+)\\([^)]*\\) AS ${column}\\b`).exec(q.sql);
    return (m?.[1] ?? '?').toUpperCase();
  };
  const byKind = ['COUNT', 'SUM', 'AVG'].flatMap((fn) =>
    [true, false].flatMap((grouped) =>
      SHARES.map((share) => {
        const ts = tallies.filter((t) => t.share === share && fnOf(t.column) === fn && (t.query === 'by-origin') === grouped && t.widths.some((w) => w > 0));
        const cells = ts.reduce((a, t) => a + t.cells, 0);
        const small = ts.reduce((a, t) => a + t.smallCells, 0);
        return { fn, grouped, share, cells, coverage: pct(ts.reduce((a, t) => a + t.hits, 0), cells), smallCells: small, smallCoverage: pct(ts.reduce((a, t) => a + t.smallHits, 0), small) };
      }),
    ),
  );
  const totalCells = tallies.reduce((a, t) => a + t.cells, 0);
  const coverage = pct(tallies.reduce((a, t) => a + t.hits, 0), totalCells);
  const guaranteeSound = tallies.every((t) => t.guaranteeMisses === 0);
  const calibrated = coverage !== null && coverage >= 93 && coverage <= 97;

  const fmtPct = (x: number | null): string => (x === null ? '–' : `${x.toFixed(1)} %`);
  const fmtW = (x: number | null): string => (x === null ? '–' : x < 0.001 ? `${(x * 100).toExponential(1)} %` : `${(x * 100).toFixed(2)} %`);
  const md: string[] = [
    '# Estimates: calibration of the 95 % interval',
    '',
    `${trials} random trials per query and share of shards answered (${trials * SHARES.length * QUERIES.length} in all), over the ${N} hash shards of ${TABLE} ` +
      `(${catalog.shards.reduce((a, s) => a + s.rows, 0).toLocaleString('en-US')} rows); truth from DuckDB ${ref.version} (${referenceOk ? 'equal to the merge of every shard' : '**differs from the merge of every shard**'}). ` +
      `Merge level: per-shard partials from the leaf scan, random subsets merged, bounded and estimated by the root's code. ${seconds.toFixed(0)} s.`,
    '',
    `Overall: **${fmtPct(coverage)}** of ${totalCells.toLocaleString('en-US')} estimated cells hold the truth (target 93-97 %: ${calibrated ? 'met' : '**not met**'}); ` +
      `guaranteed intervals: ${guaranteeSound ? 'every one holds the truth' : '**some missed the truth**'}.`,
    '',
    '| share of shards | cells | coverage | median width (of the true value) |',
    '| ---: | ---: | ---: | ---: |',
    ...byShare.map((b) => `| ${b.share * 100} % | ${b.cells.toLocaleString('en-US')} | ${fmtPct(b.coverage)} | ${fmtW(b.medianRelWidth)} |`),
    '',
    'By aggregate, grouped (by origin) or not, and share of shards (leaving out ungrouped COUNT(*) without a WHERE: the catalog\'s exact count, width 0):',
    '',
    '| aggregate | grouped | 5 % | 10 % | 25 % | 50 % | small groups at 5 % / 10 % / 25 % / 50 % |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: |',
    ...['COUNT', 'SUM', 'AVG'].flatMap((fn) =>
      [true, false].map((grouped) => {
        const cs = byKind.filter((b) => b.fn === fn && b.grouped === grouped);
        return `| ${fn} | ${grouped ? 'yes' : 'no'} | ${cs.map((b) => fmtPct(b.coverage)).join(' | ')} | ${grouped ? cs.map((b) => fmtPct(b.smallCoverage)).join(' / ') : '–'} |`;
      }),
    ),
    '',
    `Per query and column (small groups: true COUNT below ${SMALL_GROUP.toLocaleString('en-US')} rows; width and error relative to the true value):`,
    '',
    '| query | column | share | cells | coverage | small groups | median width | large groups\' median width | median error |',
    '| --- | --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |',
    ...rows.map((r) => `| ${r.query} | ${r.column} | ${r.share * 100} % | ${r.cells.toLocaleString('en-US')} | ${fmtPct(r.coverage)} | ${r.smallGroupCells === 0 ? '–' : `${fmtPct(r.smallGroupCoverage)} of ${r.smallGroupCells.toLocaleString('en-US')}`} | ${fmtW(r.medianRelWidth)} | ${fmtW(r.largeGroupMedianRelWidth)} | ${fmtW(r.medianRelError)} |`),
    '',
    `Large groups: true COUNT at least ${LARGE_GROUP.toLocaleString('en-US')} rows (ungrouped queries: their one row). Example, ${EXAMPLE} at 10 % of shards (its first trial; median width over the trials):`,
    '',
    ...rows.filter((r) => r.share === 0.1 && r.example !== null).map((r) => `- ${r.column}: ≈ ${r.example!.first![0].toFixed(1)} [${r.example!.first![1].toFixed(1)}, ${r.example!.first![2].toFixed(1)}], median width ${fmtW(r.example!.medianRelWidth)}`),
    '',
    'Queries:',
    '',
    ...QUERIES.map((q) => `- ${q.id}: \`${q.sql}\``),
    '',
    'Charts: estimates-coverage.svg (coverage by share of shards), estimates-width.svg (median width).',
    ...(mismatches.length === 0 ? [] : ['', 'Reference mismatches:', '', ...mismatches.slice(0, 20).map((m) => `- ${m}`)]),
  ];
  const dir = new URL(opts.quick ? './results/quick/' : './results/', import.meta.url);
  const series = (metric: (t: (typeof rows)[number]) => number | null): Series[] =>
    [...new Set(rows.map((r) => `${r.query} ${r.column}`))].map((name) => ({
      name,
      points: rows.filter((r) => `${r.query} ${r.column}` === name).map((r) => ({ x: r.share * 100, y: metric(r) ?? NaN })).filter((p) => Number.isFinite(p.y) && p.y > 0),
    }));
  await writeFile(new URL('estimates-coverage.svg', dir), coverageChart(series((r) => r.coverage)));
  await writeFile(new URL('estimates-width.svg', dir), svgChart('median width of the 95 % interval', series((r) => (r.medianRelWidth === null ? null : r.medianRelWidth * 100)), 'shards answered (%)', 'width (% of the true value)'));
  return {
    name: 'estimates',
    data: { quick: opts.quick, trials, shares: SHARES, queries: QUERIES, referenceOk, guaranteeSound, coverage, calibrated, byShare, byKind, rows, seconds },
    markdown: md.join('\n') + '\n',
    ok: referenceOk && guaranteeSound,
  };
}

/** Coverage (%) against the share of shards answered, linear axes, the 93-97 % band shaded. */
function coverageChart(series: readonly Series[]): string {
  const W = 640;
  const H = 400;
  const L = 60;
  const R = 200;
  const T = 40;
  const B = 50;
  const x0 = 0;
  const x1 = 55;
  const y0 = 80;
  const y1 = 100;
  const px = (x: number): number => L + ((x - x0) / (x1 - x0)) * (W - L - R);
  const py = (y: number): number => T + (1 - (Math.min(y1, Math.max(y0, y)) - y0) / (y1 - y0)) * (H - T - B);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f', '#bcbd22', '#17becf'];
  const out = [
    `<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`,
    `<rect width="${W}" height="${H}" fill="white"/>`,
    `<text x="${(L + W - R) / 2}" y="20" text-anchor="middle" font-size="14">coverage of the 95 % interval (1,000 trials per point)</text>`,
    `<rect x="${L}" y="${py(97)}" width="${W - L - R}" height="${py(93) - py(97)}" fill="#e8f4e8"/>`,
  ];
  for (let y = y0; y <= y1; y += 5) out.push(`<line x1="${L}" x2="${W - R}" y1="${py(y)}" y2="${py(y)}" stroke="#ddd"/>`, `<text x="${L - 6}" y="${py(y) + 4}" text-anchor="end">${y} %</text>`);
  out.push(`<line x1="${L}" x2="${W - R}" y1="${py(95)}" y2="${py(95)}" stroke="#999" stroke-dasharray="4 3"/>`);
  for (const x of SHARES.map((s) => s * 100)) out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${T}" y2="${H - B}" stroke="#eee"/>`, `<text x="${px(x)}" y="${H - B + 16}" text-anchor="middle">${x} %</text>`);
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">shards answered</text>`, `<text transform="translate(16 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">cells whose interval holds the truth</text>`);
  series.forEach((s, i) => {
    const c = colors[i % colors.length]!;
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${c}"/>`);
    out.push(`<line x1="${W - R + 10}" x2="${W - R + 30}" y1="${T + 10 + i * 18}" y2="${T + 10 + i * 18}" stroke="${c}" stroke-width="2"/>`, `<text x="${W - R + 36}" y="${T + 14 + i * 18}">${s.name}</text>`);
  });
  out.push(`<text x="${W - R + 10}" y="${T + 14 + series.length * 18 + 10}" fill="#3a7a3a">shaded: 93-97 %</text>`, '</svg>');
  return out.join('\n') + '\n';
}

export const estimates: BenchModule = {
  description: 'calibration of the progressive estimates: coverage and width of the 95 % interval over random subsets of shards',
  run,
};
