/**
 * The bivariate aggregates of DuckDB 1.5, each f(y, x) over int64 or float64 arguments (as
 * doubles; int64 beyond 2^53 rounds, as DuckDB's cast to DOUBLE), over the rows where both y
 * and x are non-NULL: covar_pop, covar_samp, corr, regr_count, regr_avgx, regr_avgy,
 * regr_sxx, regr_syy, regr_sxy, regr_slope, regr_intercept, regr_r2. All share one `comoment`
 * partial (count, sums, means, M2x, M2y, Cxy: src/merge/kinds/comoment.ts), updated per row
 * with Welford's step as DuckDB's CovarOperation / STDDevBaseOperation do and merged pairwise
 * (Chan et al. 1979, Pébay 2008).
 *
 * Each finalisation follows DuckDB's (duckdb/duckdb v1.5.5,
 * extension/core_functions/include/core_functions/aggregate/algebraic/{covar,corr,stddev}.hpp
 * and extension/core_functions/aggregate/regression/*.cpp), with n the pairs, varpop(v) =
 * M2v/n for n > 1 and 0 for n = 1:
 * - covar_pop = Cxy/n (NULL over no pair), covar_samp = Cxy/(n − 1) (NULL below two pairs);
 *   NaN or ±Infinity pass through;
 * - corr = covar_pop / (√varpop(x) · √varpop(y)), NaN when that product is 0; refused when a
 *   standard deviation is not finite ("STDDEV_POP for X is out of range!");
 * - regr_count: the pairs, an int64 (DuckDB's UINTEGER: 0 over no pair, never NULL; past
 *   2^32 − 1 DuckDB wraps it, as canopy does);
 * - regr_avgx / regr_avgy = Σx/n, Σy/n (plain sums, as DuckDB: an infinity stays one);
 * - regr_sxx = n · varpop(x), regr_syy = n · varpop(y) (refused when varpop is not finite,
 *   "VARPOP is out of range!"), regr_sxy = n · covar_pop;
 * - regr_slope = covar_pop / varpop(x), NaN when varpop(x) is 0 (refused when not finite);
 * - regr_intercept = ȳ − slope · x̄ from the sums, NULL when the slope is NaN;
 * - regr_r2: NULL when varpop(x) is 0, 1 when varpop(y) is 0, else corr²; refused when either
 *   variance is not finite ("VARPOP(X) is out of range!").
 *
 * Rounding: the co-moment is accurate against the data's spread, not against itself, so a
 * covariance, correlation, slope or intercept whose exact value is 0 or nearly so comes out as
 * noise whose digits depend on the split (as DuckDB's on its threads). A first-order estimate of
 * the rounding (relError) labels such a cell approximate with no interval, even with every
 * shard answered (`sketch`), when it may exceed 1e-10 relative.
 *
 * Missing shards: exact when they hold no non-NULL y or no non-NULL x (a plain column whose
 * zone maps say so); else regr_count is bounded as COUNT (at most the fewer of their non-NULL
 * y and x more), regr_avgx / regr_avgy as AVG (between the seen mean and the missing x or y
 * extremes), and the others approximate with no interval (co-moments have no guaranteed
 * interval from zone maps). Not monotone under merge (regr_count aside, which is not worth a
 * rule of its own): never truncated by group top-k.
 */
import type { Cell } from '../bounds.ts';
import { CanopyError } from '../errors.ts';
import type { ComomentState } from '../kinds/comoment.ts';
import type { AggregateFn, Scalar } from '../types.ts';
import type { Accumulator, AggArg, AggregateDef, PartialDef } from './aggregate.ts';
import { meanBounds } from './avg.ts';
import { anyMissing, argColumn, missingValues, type Envelope } from './envelope.ts';
import { groupAt, groupColumns, growColumns, numAt, rowAt } from './grow.ts';
import { MAX_REL_ERROR, ratio } from './skew.ts';

/** The bivariate aggregates, by name. */
type BivariateFn = Extract<AggregateFn, 'covar_pop' | 'covar_samp' | 'corr' | `regr_${string}`>;

const outOfRange = (what: string): CanopyError => new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `${what} is out of range! (its values include NaN or an infinity, or spread past the double range; as DuckDB refuses it)`);

/** varpop of one side (M2/n for n > 1, else 0), refused with DuckDB's message when not finite. */
function varPop(m2: number, n: number, what: string): number {
  const v = n > 1 ? m2 / n : 0;
  if (!Number.isFinite(v)) throw outOfRange(what);
  return v;
}

/** DuckDB's corr from a state with pairs (CorrOperation::Finalize). */
function corr(s: ComomentState): number {
  const cov = s.cxy / s.n;
  const sdx = s.n > 1 ? Math.sqrt(s.m2x / s.n) : 0;
  if (!Number.isFinite(sdx)) throw outOfRange('STDDEV_POP for X');
  const sdy = s.n > 1 ? Math.sqrt(s.m2y / s.n) : 0;
  if (!Number.isFinite(sdy)) throw outOfRange('STDDEV_POP for Y');
  return sdx * sdy !== 0 ? cov / (sdx * sdy) : NaN;
}

/** DuckDB's regr_slope from a state with pairs (RegrSlopeOperation::Finalize). */
function slope(s: ComomentState): number {
  const v = varPop(s.m2x, s.n, 'VARPOP');
  return v !== 0 ? s.cxy / s.n / v : NaN;
}

/** Each aggregate's value from a state with at least one pair (n ≥ 1). */
const FINALISE: Readonly<Record<BivariateFn, (s: ComomentState) => Scalar>> = {
  covar_pop: (s) => s.cxy / s.n,
  covar_samp: (s) => (s.n < 2 ? null : s.cxy / (s.n - 1)),
  corr,
  regr_count: (s) => BigInt(s.n % 2 ** 32),
  regr_avgx: (s) => s.sx / s.n,
  regr_avgy: (s) => s.sy / s.n,
  regr_sxx: (s) => s.n * varPop(s.m2x, s.n, 'VARPOP'),
  regr_syy: (s) => s.n * varPop(s.m2y, s.n, 'VARPOP'),
  regr_sxy: (s) => s.n * (s.cxy / s.n),
  regr_slope: slope,
  regr_intercept(s) {
    const b = slope(s);
    return Number.isNaN(b) ? null : s.sy / s.n - b * (s.sx / s.n);
  },
  regr_r2(s) {
    const vx = varPop(s.m2x, s.n, 'VARPOP(X)');
    if (vx === 0) return null;
    const vy = varPop(s.m2y, s.n, 'VARPOP(Y)');
    if (vy === 0) return 1;
    return corr(s) ** 2;
  },
};

/**
 * A first-order estimate of the relative rounding error of `fn`'s value from `s` (Welford's
 * steps and Chan's merges, in any order: u = 2nε of each quantity's scale, the co-moment's
 * scale including the means' part, n·|x̄|·sd(y) + n·|ȳ|·sd(x)). 0 for the exact special
 * cases (a zero variance: NaN, NULL or 1 whatever the order, constant values giving exact
 * zeros) and regr_count; regr_avgx / regr_avgy are plain sums (as DuckDB's) that cancel only
 * when their mean is near 0; regr_sxx / regr_syy only lose to subnormal results (sums of
 * squares do not cancel).
 */
function relError(fn: BivariateFn, s: ComomentState): number {
  // regr_avgx / regr_avgy: a plain double sum, off by at most u·Σ|v| ≤ u·√(n·Σv²) (Σv² = M2 + n·mean²).
  if (fn === 'regr_avgx' || fn === 'regr_avgy') {
    const [sum, m2, mean] = fn === 'regr_avgx' ? [s.sx, s.m2x, s.mx] : [s.sy, s.m2y, s.my];
    if (!Number.isFinite(sum) || !Number.isFinite(m2)) return 0;
    return ratio(2 * s.n * Number.EPSILON * Math.sqrt(s.n * (m2 + s.n * mean * mean)), sum);
  }
  // A constant side: every delta is exactly 0, so are its M2 and the co-moment (any order).
  if (s.m2x === 0 || s.m2y === 0) return 0;
  // NaN or an infinity among the values: NaN, an infinity or a refusal in any order.
  if (![s.mx, s.my, s.m2x, s.m2y, s.cxy].every(Number.isFinite)) return 0;
  const u = 2 * s.n * Number.EPSILON;
  // Subnormal results: each step may lose up to the least subnormal, whatever its scale.
  const tiny = 4 * s.n * Number.MIN_VALUE;
  const m2 = (m: number, mean: number): number => u * (1 + 2 * Math.abs(mean) * Math.sqrt(s.n / m)) + tiny / m;
  const ec = u * (Math.sqrt(s.m2x * s.m2y) + Math.abs(s.cxy) + Math.abs(s.mx) * Math.sqrt(s.n * s.m2y) + Math.abs(s.my) * Math.sqrt(s.n * s.m2x)) + tiny;
  const rc = ratio(ec, s.cxy);
  switch (fn) {
    case 'regr_sxx':
      return m2(s.m2x, 0);
    case 'regr_syy':
      return m2(s.m2y, 0);
    case 'covar_pop':
    case 'covar_samp':
    case 'regr_sxy':
      return rc;
    case 'corr':
      return rc + (m2(s.m2x, s.mx) + m2(s.m2y, s.my)) / 2;
    case 'regr_r2':
      return 2 * rc + m2(s.m2x, s.mx) + m2(s.m2y, s.my);
    case 'regr_slope':
      return rc + m2(s.m2x, s.mx);
    case 'regr_intercept': {
      const b = s.cxy / s.m2x;
      const rb = rc + m2(s.m2x, s.mx);
      const rmsX = Math.sqrt((s.m2x + s.n * s.mx * s.mx) / s.n);
      const rmsY = Math.sqrt((s.m2y + s.n * s.my * s.my) / s.n);
      return ratio(u * rmsY + Math.abs(b) * u * rmsX + rb * Math.abs(b * (s.sx / s.n)), s.sy / s.n - b * (s.sx / s.n));
    }
    default:
      return 0;
  }
}

/** True when the missing shards of `env` hold no row with both `y` and `x` non-NULL (plain columns with statistics). */
function noMissingPairs(env: Envelope, y: string | null, x: string | null): boolean {
  return !env.unknown && ((y !== null && (env.nonNull.get(y) ?? 1) === 0) || (x !== null && (env.nonNull.get(x) ?? 1) === 0));
}

/** The definition of bivariate aggregate `fn`. */
function bivariateAggregate(fn: BivariateFn): AggregateDef {
  const def: AggregateDef = {
    fn,
    call: { names: [fn], args: ['value', 'value'] },
    decompose(args) {
      const [y, x] = args;
      if (y === undefined || x === undefined || args.length !== 2) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes two arguments (y, x)`);
      const bad = [y, x].find((a: AggArg) => a.type !== 'int64' && a.type !== 'float64');
      if (bad !== undefined) throw new CanopyError('CANOPY_ERR_TYPE', `${fn}(y, x) needs int64 or float64 arguments; '${bad.text}' is ${bad.type}`);
      return { partials: [{ kind: 'comoment', arg: y.expr, by: x.expr, byType: x.type }], type: fn === 'regr_count' ? 'int64' : 'float64' };
    },
    finalise(e, g) {
      const s = g.states[e.partials[0]!] as ComomentState | null;
      if (s === null) return fn === 'regr_count' ? 0n : null;
      return FINALISE[fn](s);
    },
    bounds(e, g, layout, env): Cell | null {
      const s = g.states[e.partials[0]!] as ComomentState | null;
      // With every shard (or every pair) in: exact unless rounding may have decided the digits.
      const seen = (): Cell | null => (s === null || relError(fn, s) <= MAX_REL_ERROR ? null : { label: 'approximate', lo: null, hi: null });
      if (!anyMissing(env)) return seen();
      const spec = layout.plan.partials[e.partials[0]!]!;
      const y = argColumn(spec.arg);
      const x = argColumn(spec.by);
      if (noMissingPairs(env, y, x)) return seen();
      if (fn === 'regr_count') {
        const n = s?.n ?? 0;
        const extra = Math.min(missingValues(env, spec.arg), missingValues(env, spec.by ?? null));
        // Past 2^32 − 1 the count wraps (as DuckDB's): no interval then.
        if (n + extra >= 2 ** 32) return { label: 'approximate', lo: null, hi: null };
        return { label: 'bounded', lo: BigInt(n), hi: BigInt(n + extra) };
      }
      if ((fn === 'regr_avgx' || fn === 'regr_avgy') && s !== null) {
        // The mean of x (y) over the pairs joined lies between the seen mean and the missing x (y) extremes.
        return meanBounds(def.finalise(e, g, layout), fn === 'regr_avgx' ? x : y, env, { seen: s.n, int: false });
      }
      return { label: 'approximate', lo: null, hi: null };
    },
    // May be approximate with every shard answered (rounding), so HAVING and LIMIT check its cells.
    sketch: fn !== 'regr_count',
    topk: null,
  };
  return def;
}

export const covarPopAggregate = bivariateAggregate('covar_pop');
export const covarSampAggregate = bivariateAggregate('covar_samp');
export const corrAggregate = bivariateAggregate('corr');
export const regrCountAggregate = bivariateAggregate('regr_count');
export const regrAvgxAggregate = bivariateAggregate('regr_avgx');
export const regrAvgyAggregate = bivariateAggregate('regr_avgy');
export const regrSxxAggregate = bivariateAggregate('regr_sxx');
export const regrSyyAggregate = bivariateAggregate('regr_syy');
export const regrSxyAggregate = bivariateAggregate('regr_sxy');
export const regrSlopeAggregate = bivariateAggregate('regr_slope');
export const regrInterceptAggregate = bivariateAggregate('regr_intercept');
export const regrR2Aggregate = bivariateAggregate('regr_r2');


/**
 * Welford's step per pair (as DuckDB's CovarOperation::Operation and
 * STDDevBaseOperation::Execute), the states of each group in eight typed arrays.
 */
function comomentAccumulator(): Accumulator {
  const cols = groupColumns(8);
  return {
    update(inputs, sel, gids, n, groups) {
      growColumns(cols, groups);
      const [cnt, sx, sy, mx, my, m2x, m2y, cxy] = cols as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      const yv = inputs[0]!;
      const xv = inputs[1]!;
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        const y = numAt(yv, i);
        if (y === null) continue;
        const x = numAt(xv, i);
        if (x === null) continue;
        const g = groupAt(gids, j);
        const c = ++cnt[g]!;
        sx[g]! += x;
        sy[g]! += y;
        const dx = x - mx[g]!;
        const nmx = mx[g]! + dx / c;
        const dy = y - my[g]!;
        const nmy = my[g]! + dy / c;
        cxy[g]! += dx * (y - nmy);
        m2x[g]! += dx * (x - nmx);
        m2y[g]! += dy * (y - nmy);
        mx[g] = nmx;
        my[g] = nmy;
      }
    },
    state(g) {
      const [cnt, sx, sy, mx, my, m2x, m2y, cxy] = cols as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      if ((cnt[g] ?? 0) === 0) return null;
      const s: ComomentState = { n: cnt[g]!, sx: sx[g]!, sy: sy[g]!, mx: mx[g]!, my: my[g]!, m2x: m2x[g]!, m2y: m2y[g]!, cxy: cxy[g]! };
      return s;
    },
  };
}

export const comomentPartial: PartialDef = {
  kind: 'comoment',
  inputs: (spec) => (spec.arg === null || spec.by === undefined ? [] : [spec.arg, spec.by]),
  accumulator: () => comomentAccumulator(),
  groupBytes: 64,
};
