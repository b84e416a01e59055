/**
 * Progressive estimates: a calibrated confidence interval for COUNT, SUM and AVG cells from
 * the shards that have answered, beside (and clamped into) the guaranteed interval.
 *
 * Design. With hash partitioning every row lands in a shard by a hash of the row, so the
 * shards are exchangeable and the shards that have answered by a deadline (or so far, in a
 * snapshot) are a simple random sample without replacement of the N shards, as long as
 * whether a shard answers does not depend on its data (deadlines and slow hosts do not; a
 * shard that is slow because it is bigger is covered by the weighting by row counts below).
 *
 * Estimator (Cochran, Sampling Techniques, 3rd ed., 1977, ch. 6; online aggregation:
 * Hellerstein, Haas and Wang, SIGMOD 1997). For one cell, y_i is shard i's own COUNT or SUM
 * of the group (0 in an answered shard that lacks the group) and x_i the shard's row count
 * from the catalog; over the n answered shards:
 * - COUNT, SUM: the ratio estimator of the total, Ŷ = R̂·X with R̂ = Σy/Σx and X the rows
 *   of all N shards; residuals r_i = y_i − R̂·x_i, s_r² = Σr²/(n − 1) with
 *   Σr² = Σy² − 2R̂·Σxy + R̂²·Σx²; v(Ŷ) = (X̄/x̄)²·N²(1 − n/N)·s_r²/n (x̄, X̄ the mean shard
 *   rows of the sample and of all shards: the ratio-adjusted form, which widens the interval
 *   when the answered shards are the smaller ones).
 * - AVG = SUM/COUNT: the ratio of the two estimates, Ŝ/Ĉ = Σs/Σc (the seen mean), with the
 *   linearised variance of a ratio estimator: d_i = s_i − R̂·c_i,
 *   v(R̂) = (1 − n/N)·n·Σd²/((n − 1)·(Σc)²), Σd² = Σs² − 2R̂·Σsc + R̂²·Σc².
 *   These give the shard-level interval, estimate ± t·√v at n − 1 degrees of freedom.
 * - Row-level: the hash places rows independently, so given the m = Σx rows of the answered
 *   shards, they are a simple random sample of the X rows; Ŷ = X·v̄ over v (1 for COUNT, the
 *   column for SUM, 0 outside the group), variance X²(1 − m/X)s_v²/m; AVG over the group's c
 *   answered rows, (1 − m/X)s²/c. Interval: Hall's skewness-corrected t (Hall, JRSS B 1992)
 *   at the Satterthwaite degrees of freedom of s² from the sample kurtosis (rowInterval).
 *   It needs per group Σv², Σv³ and Σv⁴ of each summed column (the spec's `squares`,
 *   summed by the leaf's scan); COUNT's are its count.
 * - Which: COUNT the row-level interval (binomial, exact under the model given the count)
 *   unless an F test at OVERDISPERSION_ALPHA finds the shards vary more (duplicate rows hash
 *   to one shard); then, and always for SUM and AVG (whose row-level moments a heavy tail
 *   makes unreliable), the wider of the two on each side. Then clamped into the guaranteed
 *   [lo, hi], which stays the guarantee; integer results are rounded, the interval outward.
 * These need, per group, Σy (the exact partial itself) and the sums Σy², Σxy, Σsc of the
 * `moments` partial, which each leaf computes for its one shard and every node merges by
 * adding; and per answer n, Σx, Σx², which the root reads from the catalog for the shards
 * provenance says answered. Shards that lack a group add 0 to its sums, which is the right
 * contribution (y = 0) whatever tree assembled the answer: n is global.
 *
 * Honesty: estimates are planned only for hash-partitioned tables, with no shard pruned by
 * the WHERE clause (the shards asked would no longer be a sample of the table's). In a group
 * top-k, nodes drop groups, so a group is estimated only where its states are complete over
 * the answered shards (every truncating node reported it); others have none, said in the note.
 * They are given only while shards are missing (an exact cell needs none), from at least two
 * answered shards, and not when a shard failed with an error that may depend on its data
 * (any code but unreachable, overloaded, not ready, deadline, cancelled, unauthorized). Groups seen in no answered
 * shard are not in the answer, so they are not estimated. Every such case carries a note.
 */
import jStat from 'jstat';
import { CanopyError } from './errors.ts';
import type { Cell } from './bounds.ts';
import { isCountKind } from './kinds/count.ts';
import type { ColumnarPartial, GroupEntry, PartialLayout } from './partial.ts';
import type { Catalog, OutExpr, PartialSpec, QueryPlan, Scalar, ShardStatus } from './types.ts';

/** Confidence of every estimate's interval. */
export const ESTIMATE_CONFIDENCE = 0.95;

/**
 * A cell's estimate: the estimated complete value and its confidence interval [lo, hi], all
 * in the cell's unit and within the cell's guaranteed interval; `confidence` is 0.95.
 */
export interface Estimate {
  readonly value: number;
  readonly lo: number;
  readonly hi: number;
  readonly confidence: number;
}

/** The answered shards as a sample of the table's: sizes and sums of the catalog row counts. */
export interface ShardSample {
  /** Shards in the table (N). */
  readonly shards: number;
  /** Rows of all shards (X). */
  readonly rows: number;
  /** Answered shards (n). */
  readonly n: number;
  /** Σx and Σx² over the answered shards. */
  readonly sumX: number;
  readonly sumXX: number;
}

/** A plan with estimates planned, or the reason why none will be given. */
export interface EstimatePlan {
  readonly plan: QueryPlan;
  /** Why no estimate will be given (shown on answers that are not exact), or null. */
  readonly note: string | null;
}

type AggExpr = Extract<OutExpr, { kind: 'agg' }>;
type Pair = readonly [number, number];

/** Where a plan's `moments` partials are: by pair `"a,b"` and by power `"of,exp"`, their partial indexes. */
interface MomentIndex {
  readonly pairs: ReadonlyMap<string, number>;
  readonly powers: ReadonlyMap<string, number>;
}

/** The {@link MomentIndex} of a plan's partials, or null when it has no `moments` partial. */
function momentIndex(partials: readonly PartialSpec[]): MomentIndex | null {
  const pairs = new Map<string, number>();
  const powers = new Map<string, number>();
  partials.forEach((p, i) => {
    if (p.pair !== undefined) pairs.set(`${p.pair[0]},${p.pair[1]}`, i);
    if (p.power !== undefined) powers.set(`${p.power.of},${p.power.exp}`, i);
  });
  return pairs.size === 0 && powers.size === 0 ? null : { pairs, powers };
}

/** The estimable aggregate of an output column: COUNT, SUM or AVG (AVG over sum + count partials). */
function estimable(e: OutExpr): AggExpr | null {
  return e.kind === 'agg' && (e.fn === 'count' || e.fn === 'sum' || e.fn === 'avg') ? e : null;
}

/** The products an aggregate's estimate needs (partial indexes; -1 is the shard's rows). */
function pairsFor(e: AggExpr): Pair[] {
  const p = e.partials[0]!;
  if (e.fn !== 'avg') return [[-1, p], [p, p]];
  const c = e.partials[1]!;
  return [[p, p], [c, c], [p, c]];
}

/**
 * The output's aggregate in column `e` when an estimate is planned for it: COUNT, SUM or AVG
 * of a column (or COUNT(*)) without FILTER. Aggregates with FILTER, or over an expression
 * rather than a column, are left out: the leaf's row-level squares read a column's unfiltered
 * rows. The same test plans the moments (planEstimates) and picks the cells estimated
 * (estimateAnswer), so a cell is never estimated from products that were not summed.
 */
function plannedEstimable(e: OutExpr, partials: readonly PartialSpec[]): AggExpr | null {
  const a = estimable(e);
  const plainColumn = (p: number): boolean => {
    const spec = partials[p];
    return spec !== undefined && spec.filter === undefined && (spec.arg === null || spec.arg.kind === 'col');
  };
  return a !== null && a.partials.every(plainColumn) ? a : null;
}

/**
 * Plans estimates: appends one `moments` partial to the scan, summing the products the
 * plan's COUNT, SUM and AVG outputs need, when an estimate can be honest. Otherwise the plan
 * is returned unchanged with the reason. Row queries: unchanged, no note. Pure.
 * @param pruned shards the WHERE clause pruned
 */
export function planEstimates(plan: QueryPlan, catalog: Catalog, pruned: number): EstimatePlan {
  if (plan.scan.rows !== null) return { plan, note: null };
  const aggs = plan.output.map((c) => plannedEstimable(c.expr, plan.scan.partials)).filter((e): e is AggExpr => e !== null);
  const part = catalog.partitioning;
  let note: string | null = null;
  if (aggs.length === 0) note = 'estimates are made for COUNT, SUM and AVG only';
  else if (part.kind !== 'hash') {
    note = `no estimate: the shards are ${part.kind === 'range' ? `range-partitioned on ${part.column}` : 'files'}, not hash-partitioned, so the shards that answered are not a random sample of the table`;
  } else if (pruned > 0) note = `no estimate: ${pruned} shard(s) were pruned by the WHERE clause, so the shards asked are not a random sample of the table`;
  if (note !== null) return { plan, note };
  const pairs: Pair[] = [];
  for (const e of aggs) for (const q of pairsFor(e)) if (!pairs.some((x) => x[0] === q[0] && x[1] === q[1])) pairs.push(q);
  // Row-level power sums: SUM and AVG (their sum partial); COUNT's are its count (v = 1).
  const powered = [...new Set(aggs.filter((e) => e.fn !== 'count').map((e) => e.partials[0]!))];
  const moments: PartialSpec[] = [
    ...pairs.map((pair): PartialSpec => ({ kind: 'moments', arg: null, pair })),
    ...powered.flatMap((of) => ([2, 3, 4] as const).map((exp): PartialSpec => ({ kind: 'moments', arg: null, power: { of, exp } }))),
  ];
  return { plan: { ...plan, scan: { ...plan.scan, partials: [...plan.scan.partials, ...moments] } }, note: null };
}

/**
 * Checks a `moments` spec against the plan's partials: exactly one of a `pair` of COUNT/SUM
 * partial indexes (or -1) and a `power` {of: a SUM partial, exp: 2, 3 or 4}.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST otherwise.
 */
export function checkMomentsSpec(spec: PartialSpec, partials: readonly PartialSpec[]): void {
  const { pair, power } = spec as { pair?: unknown; power?: { of?: unknown; exp?: unknown } };
  if ((pair === undefined) === (power === undefined)) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'a moments partial needs exactly one of pair and power');
  const countOrSum = (i: unknown): boolean => Number.isInteger(i) && (i === -1 || ((i as number) >= 0 && (i as number) < partials.length && ['count_star', 'count', 'sum'].includes(partials[i as number]!.kind)));
  if (pair !== undefined && !(Array.isArray(pair) && pair.length === 2 && pair.every(countOrSum))) {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `moments pair ${JSON.stringify(pair)} must name two COUNT or SUM partials (or -1 for the shard's rows)`);
  }
  if (power !== undefined) {
    const of = power?.of;
    const ok = typeof power === 'object' && power !== null && Number.isInteger(of) && (of as number) >= 0 && (of as number) < partials.length && partials[of as number]!.kind === 'sum' && (power.exp === 2 || power.exp === 3 || power.exp === 4);
    if (!ok) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `moments power ${JSON.stringify(power)} must name a SUM partial and an exponent 2, 3 or 4`);
  }
}

/**
 * The leaf's hook: fills the sums of the `pair` moments partials of one shard's grouped
 * partial from the shard's own states (a shard's value of a partial is its finalised COUNT or
 * SUM, NULL as 0) and its row count: one Float64Array state column per pair. Other states
 * (the scan's `power` sums among them) are shared, not copied. Plans without `moments`:
 * unchanged.
 * @param rows the shard's row count (as in the catalog)
 */
export function withShardMoments(layout: PartialLayout, partial: ColumnarPartial, rows: number): ColumnarPartial {
  const specs = layout.plan.partials;
  if (!specs.some((s) => s.pair !== undefined)) return partial;
  const n = partial.size;
  const values = new Map<number, Float64Array | null>();
  // A shard's values of partial p, per group (null: p = -1, the shard's rows).
  const valuesOf = (p: number): Float64Array | null => {
    if (p < 0) return null;
    let v = values.get(p);
    if (v === undefined) {
      const kind = layout.kinds[p]!;
      const col = partial.states[p]!;
      if (col instanceof Float64Array && isCountKind(kind)) v = col;
      else {
        v = new Float64Array(n);
        // COUNT states are their value (a safe integer): no bigint per group.
        const counts = isCountKind(kind);
        for (let i = 0; i < n; i++) {
          const st = col[i];
          v[i] = counts && typeof st === 'number' ? st : Number(kind.finalise(st) ?? 0);
        }
      }
      values.set(p, v);
    }
    return v;
  };
  const states = specs.map((s, m) => {
    if (s.pair === undefined) return partial.states[m]!;
    const a = valuesOf(s.pair[0]);
    const b = valuesOf(s.pair[1]);
    return pairProducts(a, b, rows, n);
  });
  return { ...partial, states };
}

/** `a[i] * b[i]` for i < n, where a null vector is the constant `rows` (one loop per case: this runs per group of every shard's answer). */
function pairProducts(a: Float64Array | null, b: Float64Array | null, rows: number, n: number): Float64Array {
  const out = new Float64Array(n);
  if (a === null && b === null) out.fill(rows * rows);
  else if (a === null || b === null) {
    const v = (a ?? b)!;
    for (let i = 0; i < n; i++) out[i] = rows * v[i]!;
  } else for (let i = 0; i < n; i++) out[i] = a[i]! * b[i]!;
  return out;
}

/**
 * The sample the answered shards make: n and Σx, Σx² of their catalog row counts.
 * @param answered ids of the shards that answered
 */
export function sampleOf(catalog: Catalog, answered: Iterable<number>): ShardSample {
  const rows = new Map(catalog.shards.map((s) => [s.id, s.rows]));
  let n = 0;
  let sumX = 0;
  let sumXX = 0;
  for (const id of answered) {
    const x = rows.get(id);
    if (x === undefined) continue;
    n++;
    sumX += x;
    sumXX += x * x;
  }
  return { shards: catalog.shards.length, rows: catalog.shards.reduce((a, s) => a + s.rows, 0), n, sumX, sumXX };
}

/** Error codes of failures that do not depend on a shard's data (the shard is missing at random). */
const MISSING_AT_RANDOM = new Set(['CANOPY_ERR_CHILD_UNREACHABLE', 'CANOPY_ERR_OVERLOADED', 'CANOPY_ERR_NOT_READY', 'CANOPY_ERR_DEADLINE', 'CANOPY_ERR_CANCELLED', 'CANOPY_ERR_UNAUTHORIZED']);

/** Student-t quantile at (1 + confidence)/2 with `df` degrees of freedom. */
function tQuantile(df: number, confidence: number): number {
  return jStat.studentt.inv((1 + confidence) / 2, df);
}

/** Quantiles the estimates need, cached per degrees of freedom (one answer's worth). */
interface Quantiles {
  /** Student-t at (1 + confidence)/2 with `df` degrees of freedom. */
  t(df: number): number;
  /** F at 1 − OVERDISPERSION_ALPHA with (`df1`, `df2`) degrees of freedom. */
  f(df1: number, df2: number): number;
}

/** Level of the test that the shards vary more than the row-level model allows. */
export const OVERDISPERSION_ALPHA = 0.05;

/** A cell's estimate and its interval as distances below and above it (in the cell's unit). */
interface CellInterval {
  readonly value: number;
  readonly below: number;
  readonly above: number;
}

/** A row-level interval: distances below and above, variance and degrees of freedom. */
interface RowInterval {
  readonly below: number;
  readonly above: number;
  readonly v: number;
  readonly df: number;
}

/**
 * The row-level interval of a mean ȳ over a simple random sample of `m` values (sampling
 * fraction `fm`) from their sums Σv, Σv², Σv³, Σv⁴: the t statistic with Hall's (1992) cubic
 * transformation removing the skewness of ȳ, g(T) = T + aT²/3 + a²T³/27 + a/6, a = γ̂/√m
 * (γ̂ the sample skewness), inverted in closed form, at t quantiles with the Satterthwaite
 * degrees of freedom of the variance estimate, d = 2/(2/(m − 1) + (κ̂ − 3)/m) (κ̂ the sample
 * kurtosis; m − 1 for normal data, far fewer for heavy tails), in [1, m − 1]. Returns ȳ's
 * distances below and above, its variance and d, or null when m < 2.
 */
function rowInterval(m: number, fm: number, s1: number, s2: number, s3: number, s4: number, q: Quantiles): RowInterval | null {
  if (m < 2) return null;
  const mean = s1 / m;
  const e2 = s2 / m;
  const mu2 = Math.max(0, e2 - mean * mean);
  const mu3 = s3 / m - 3 * mean * e2 + 2 * mean ** 3;
  const mu4 = s4 / m - 4 * mean * (s3 / m) + 6 * mean * mean * e2 - 3 * mean ** 4;
  const v = (Math.max(0, 1 - fm) * mu2 * m) / (m - 1) / m;
  const kurtosis = mu2 > 0 ? Math.max(1, mu4 / (mu2 * mu2)) : 3;
  const df = Math.min(m - 1, Math.max(1, 2 / (2 / (m - 1) + (kurtosis - 3) / m)));
  const se = Math.sqrt(v);
  const z = q.t(df);
  const a = mu2 > 0 ? mu3 / Math.pow(mu2, 1.5) / Math.sqrt(m) : 0;
  // g⁻¹(x) = (3/a)(∛(1 + a(x − a/6)) − 1), x as a → 0; monotone (g' = (1 + aT/3)² ≥ 0).
  const inv = (x: number): number => (Math.abs(a) < 1e-9 ? x : (3 / a) * (Math.cbrt(1 + a * (x - a / 6)) - 1));
  // Past a ≈ 6z (γ̂ > 6z√m: a few rows, very skewed) the expansion fails; the estimate stays inside.
  return { below: Math.max(0, se * inv(z)), above: Math.max(0, -se * inv(-z)), v, df };
}

/**
 * The estimate of one cell and its interval, or null when the group's values do not allow
 * one: COUNT the row-level interval ({@link rowInterval}), widened to the shard-level t
 * interval (n − 1 df) when the shards vary more than the row-level model allows (F test at
 * OVERDISPERSION_ALPHA); SUM and AVG the wider of the two on each side. Only the shard-level
 * one where the row-level one is undefined (fewer than 2 rows). See the module comment.
 */
function cellEstimate(e: AggExpr, g: GroupEntry, layout: PartialLayout, moments: MomentIndex, s: ShardSample, q: Quantiles, isInt: boolean): CellInterval | null {
  const sumAt = (m: number | undefined, what: string): number => {
    if (m === undefined) throw new CanopyError('CANOPY_ERR_INTERNAL', `moments ${what} was not planned`);
    return Number(g.states[m] ?? 0);
  };
  const sumOf = (a: number, b: number): number => sumAt(moments.pairs.get(`${a},${b}`) ?? moments.pairs.get(`${b},${a}`), `pair [${a}, ${b}]`);
  /** Σ v², Σ v³ and Σ v⁴ over the group's answered rows of a SUM partial's column. */
  const powersOf = (p: number): [number, number, number] => [2, 3, 4].map((x) => sumAt(moments.powers.get(`${p},${x}`), `power ${x} of partial ${p}`)) as [number, number, number];
  const total = (p: number): number | null => {
    const v = layout.kinds[p]!.finalise(g.states[p]);
    return v === null ? null : Number(v);
  };
  const f = s.n / s.shards;
  // Row-level: the answered shards' m rows are a simple random sample of the X rows.
  const m = s.sumX;
  const fm = m / s.rows;
  const p = e.partials[0]!;
  let value: number;
  let shardVar: number;
  let row: RowInterval | null;
  if (e.fn === 'avg') {
    const c = e.partials[1]!;
    const ss = total(p);
    const sc = total(c);
    if (ss === null || sc === null || sc === 0) return null;
    value = ss / sc;
    const d2 = Math.max(0, sumOf(p, p) - 2 * value * sumOf(p, c) + value * value * sumOf(c, c));
    shardVar = ((1 - f) * s.n * d2) / ((s.n - 1) * sc * sc);
    // The group's sc answered rows are a simple random sample of its rows (fraction ≈ fm).
    const [q2, q3, q4] = powersOf(p);
    row = rowInterval(sc, fm, ss, q2, q3, q4, q);
  } else {
    const sy = total(p);
    if (sy === null) return null;
    const r = sy / s.sumX;
    const r2 = Math.max(0, sumOf(p, p) - 2 * r * sumOf(-1, p) + r * r * s.sumXX);
    const adjust = s.rows / s.shards / (s.sumX / s.n);
    shardVar = adjust * adjust * s.shards * s.shards * (1 - f) * (r2 / (s.n - 1) / s.n);
    value = r * s.rows;
    // COUNT: v is 1 on each counted row, so Σ v², Σ v³ and the row count are the count itself.
    const [q2, q3, q4] = e.fn === 'count' ? [sy, sy, sy] : powersOf(p);
    const mean = rowInterval(m, fm, sy, q2, q3, q4, q);
    row = mean === null ? null : { below: s.rows * mean.below, above: s.rows * mean.above, v: s.rows * s.rows * mean.v, df: mean.df };
    if (isInt) value = Math.round(value);
  }
  const shardHalf = q.t(s.n - 1) * Math.sqrt(shardVar);
  if (row === null) return { value, below: shardHalf, above: shardHalf };
  // COUNT: the row-level variance is the binomial one, exact under the model (given the count),
  // so the shard-level one counts only where the shards vary significantly more (duplicates).
  // SUM, AVG: it rests on moments estimated from the rows (heavy tails: unreliable), so the
  // shard-level interval is a second, independent one: the wider of the two, side by side.
  const overdispersed = e.fn !== 'count' || (!(row.v > 0) ? shardVar > 0 : shardVar / row.v > q.f(s.n - 1, row.df));
  if (!overdispersed) return { value, below: row.below, above: row.above };
  return { value, below: Math.max(row.below, shardHalf), above: Math.max(row.above, shardHalf) };
}

function num(v: Scalar | undefined): number | null {
  return v === null || v === undefined ? null : Number(v);
}

/** What {@link estimateAnswer} returns: the cells with estimates added, and the answer's note. */
export interface EstimatedCells {
  readonly cells: readonly (readonly (Cell | null)[])[];
  /** Why estimates are missing or partial (answer-level `estimate_note`), or null. */
  readonly note: string | null;
}

/**
 * Adds estimates to the uncertain COUNT, SUM and AVG cells of an aggregate answer. Exact
 * cells (null) stay null; a cell's estimate lies inside its guaranteed [lo, hi] (where
 * bounded). Pure: the root calls it on every snapshot and answer, the calibration benchmark
 * on random subsets of shards.
 * @param groups the group entry of each row (as finalised)
 * @param cells the rows' cells with their guaranteed intervals (bounds, after any narrowing)
 * @param provenance one entry per shard settled (answered, failed, omitted, pruned)
 * @param pending shards still working (snapshots)
 * @param planNote the note of {@link planEstimates}
 * @param complete group top-k: whether a group's states are complete over the answered
 *   shards (every truncating node reported it); groups for which it is false get no estimate
 */
export function estimateAnswer(
  plan: QueryPlan,
  layout: PartialLayout,
  catalog: Catalog,
  groups: readonly GroupEntry[],
  cells: readonly (readonly (Cell | null)[])[],
  rowsComplete: boolean,
  provenance: readonly ShardStatus[],
  planNote: string | null,
  complete?: (g: GroupEntry) => boolean,
): EstimatedCells {
  // Complete coverage (answered or pruned): nothing to estimate, nothing to say.
  if (provenance.filter((p) => p.status === 'answered' || p.status === 'pruned').length >= catalog.shards.length) return { cells, note: null };
  if (planNote !== null) return { cells, note: planNote };
  const moments = momentIndex(layout.plan.partials);
  if (moments === null) return { cells, note: null };
  const failed = provenance.filter((p) => p.status === 'failed' && !MISSING_AT_RANDOM.has(p.error?.code ?? ''));
  if (failed.length > 0) {
    const f = failed[0]!;
    return { cells, note: `no estimate: shard ${f.shard}${failed.length > 1 ? ` and ${failed.length - 1} other(s)` : ''} failed with ${f.error?.code ?? 'an error'}, a failure that may depend on the shard's data, so the shards that answered may not be a random sample` };
  }
  // Plans with estimates prune nothing by the WHERE clause, so a pruned shard was stopped early:
  // proven not to change the answer, not missing at random.
  if (provenance.some((p) => p.status === 'pruned')) return { cells, note: 'no estimate: shards were stopped early (early termination), so the shards that answered are not a random sample' };
  const sample = sampleOf(catalog, provenance.filter((p) => p.status === 'answered').map((p) => p.shard));
  if (sample.n < 2 || sample.sumX === 0) return { cells, note: `no estimate yet: it needs at least 2 answered shards holding rows (${sample.n} answered)` };
  const tCache = new Map<number, number>();
  const fCache = new Map<number, number>();
  const q: Quantiles = {
    t(df) {
      const d = Math.min(Math.round(df), 10_000);
      let v = tCache.get(d);
      if (v === undefined) {
        v = tQuantile(d, ESTIMATE_CONFIDENCE);
        tCache.set(d, v);
      }
      return v;
    },
    f(df1, df2) {
      const d2 = Math.min(Math.round(df2), 10_000);
      const key = df1 * 100_000 + d2;
      let v = fCache.get(key);
      if (v === undefined) {
        v = jStat.centralF.inv(1 - OVERDISPERSION_ALPHA, df1, d2);
        fCache.set(key, v);
      }
      return v;
    },
  };
  let given = 0;
  let truncated = 0;
  let unplanned = 0;
  const out = cells.map((row, i) =>
    row.map((cell, j) => {
      const col = plan.output[j];
      const e = col === undefined ? null : plannedEstimable(col.expr, layout.plan.partials);
      const g = groups[i];
      if (cell !== null && e === null && col !== undefined && estimable(col.expr) !== null) unplanned++;
      if (cell === null || e === null || g === undefined) return cell;
      if (complete !== undefined && !complete(g)) {
        truncated++;
        return cell;
      }
      const isInt = col!.type === 'int64' || col!.type === 'int128';
      const est = cellEstimate(e, g, layout, moments, sample, q, isInt);
      if (est === null || !Number.isFinite(est.value) || !Number.isFinite(est.below) || !Number.isFinite(est.above)) return cell;
      const glo = num(cell.lo) ?? -Infinity;
      const ghi = num(cell.hi) ?? Infinity;
      const clamp = (x: number): number => Math.min(ghi, Math.max(glo, x));
      const lo = clamp(isInt ? Math.floor(est.value - est.below) : est.value - est.below);
      const hi = clamp(isInt ? Math.ceil(est.value + est.above) : est.value + est.above);
      given++;
      return { ...cell, estimate: { value: clamp(est.value), lo, hi, confidence: ESTIMATE_CONFIDENCE } };
    }),
  );
  const notes = [
    ...(truncated > 0 ? ["cells of groups that a node's top-k truncation left incomplete have no estimate"] : []),
    ...(unplanned > 0 ? ['COUNT, SUM and AVG over an expression or with FILTER have no estimate'] : []),
    ...(given > 0 && !rowsComplete ? ['groups seen in no answered shard are not in the answer, so they have no estimate'] : []),
  ];
  const note = notes.length === 0 ? null : notes.join('; ');
  return { cells: out, note };
}
