/**
 * AVG(x): decomposed into SUM(x) and COUNT(x) (shared with those aggregates when also
 * selected), a float64; AVG(timestamp) (or of a DATE, its midnight) into SUM(epoch_us(ts)) and COUNT(ts), a timestamp. The complete mean lies between the seen mean and the missing
 * shards' extremes (a mix of the two).
 */
import type { AggArg, AggregateDef, CallOptions } from './aggregate.ts';
import type { Cell } from '../bounds.ts';
import { CanopyError } from '../errors.ts';
import { arith } from '../scalar.ts';
import type { Expr, Scalar } from '../types.ts';
import { fsumValue, type FloatSum } from '../fsum.ts';
import { anyMissing, argColumn, floatSlack, type Envelope } from './envelope.ts';
import { needNumeric, sumAggregate } from './sum.ts';

export const avgAggregate: AggregateDef = {
  fn: 'avg',
  decompose(args) {
    const a = args[0];
    if (a?.type === 'timestamp' || a?.type === 'date') {
      // AVG(timestamp) is a timestamp (so is AVG(DATE): DuckDB casts the DATE to its midnight's TIMESTAMP): the exact sum of the µs over the count, rounded as DuckDB does (timestampMean).
      const us: Expr = { kind: 'extract', field: 'epoch_us', arg: a.expr, type: 'int64' };
      return { partials: [{ kind: 'sum', arg: us, argType: 'int64' }, { kind: 'count', arg: a.expr }], type: 'timestamp' };
    }
    needNumeric('avg', a);
    const arg = a!.expr;
    return { partials: [{ kind: 'sum', arg }, { kind: 'count', arg }], type: 'float64' };
  },
  finalise(e, g, layout) {
    const fin = (i: number): unknown => layout.kinds[e.partials[i]!]!.finalise(g.states[e.partials[i]!]);
    const sum = fin(0);
    const count = fin(1);
    if (sum === null || count === null || Number(count) === 0) return null;
    if (e.type === 'timestamp') return timestampMean(sum as bigint, BigInt(count as bigint | number));
    return typeof sum === 'bigint' ? exactQuotient(sum, BigInt(count as bigint | number)) : Number(sum) / Number(count);
  },
  bounds(e, g, layout, env) {
    if (!anyMissing(env)) return null;
    // The count's argument is the column itself (the sum's is epoch_us(ts) for a timestamp mean).
    const seen = layout.kinds[e.partials[1]!]!.finalise(g.states[e.partials[1]!]);
    const float = e.type === 'timestamp' ? null : { seen: Number(seen), int: layout.kinds[e.partials[0]!]!.argType === 'int64' };
    return meanBounds(avgAggregate.finalise(e, g, layout), argColumn(layout.plan.partials[e.partials[1]!]!.arg), env, float);
  },
  sketch: false,
  // A mean is not monotone under merge.
  topk: null,
};

/**
 * `sum / count` (count > 0) rounded once to the nearest double (ties to even), from the exact
 * integer sum: what DuckDB's AVG of a BIGINT gives (its int128 sum divided in long double).
 * `Number(sum) / Number(count)` rounds a sum past 2^53 first, then divides: 2^53 + 1 + 0
 * averaged 3002399751580330.5 where the mean is 3002399751580331.
 * Method: the quotient scaled by 2^s to at least 66 significant bits, with a sticky low bit for
 * a nonzero remainder, is rounded by Number() (correctly rounded), then divided by 2^s (exact).
 */
export function exactQuotient(sum: bigint, count: bigint): number {
  const neg = sum < 0n;
  const a = neg ? -sum : sum;
  if (a < 2n ** 53n && count < 2n ** 53n) return Number(sum) / Number(count);
  // Enough bits that the sticky bit sits far below the double's rounding position.
  const s = Math.max(0, 66 - (a.toString(2).length - count.toString(2).length));
  const scaled = a << BigInt(s);
  const q = scaled / count;
  const sticky = q * count === scaled ? 0n : 1n;
  const x = Number(q | sticky) / 2 ** s;
  return neg ? -x : x;
}

/**
 * The mean of timestamps as DuckDB 1.5 gives it, from the exact sum of their µs and their
 * count (> 0): the quotient truncated toward zero, plus one when the remainder is more than
 * half the count. A positive sum so rounds to nearest with halves down; a negative one (its
 * remainder is never positive) truncates. Found by comparing DuckDB over 1,000 random sets
 * (DuckDB divides its hugeint sum and rounds the remainder that way).
 */
export function timestampMean(sum: bigint, count: bigint): number {
  const q = sum / count;
  const r = sum - q * count;
  return Number(2n * r > count ? q + 1n : q);
}

/**
 * The cell of a mean `value` of the seen rows when the shards of `env` are missing: the
 * complete mean (of any set of values joined, AVG(DISTINCT) too) lies between the seen mean
 * and the missing values' extremes of column `col`; approximate for an expression argument,
 * without statistics, or over no seen value.
 *
 * `float` describes a float64 mean, computed as the sum rounded to a double over the count
 * (`seen` values so far; `int`: of an int64 column, whose sum is exact): unless that sum is
 * exact (int64, within 2^53 whatever the missing rows add), its rounding may carry the mean
 * an ulp past the extremes (0.1 three times averages to 0.10000000000000002), so the interval
 * is widened, and left open where the sum may overflow to ±Infinity (1e308 twice averages to
 * Infinity, as in DuckDB). null: a timestamp mean, an exact quotient rounded by a monotone
 * rule, which stays within integer extremes.
 */
export function meanBounds(value: Scalar, col: string | null, env: Envelope, float: { readonly seen: number; readonly int: boolean } | null): Cell | null {
  if (col !== null && (env.nonNull.get(col) ?? 1) === 0) return null;
  const mn = col === null ? undefined : env.min.get(col);
  const mx = col === null ? undefined : env.max.get(col);
  if (value === null || typeof mn !== 'number' || typeof mx !== 'number' || env.unknown) return { label: 'approximate', lo: null, hi: null };
  const v = value as number;
  let l = Math.min(v, mn);
  let h = Math.max(v, mx);
  // Infinities or NaN in play: the mean may be NaN (above every number), so only the lower end stays bounded.
  if (!Number.isFinite(l) || !Number.isFinite(h)) return { label: 'bounded', lo: Number.isNaN(l) ? null : l, hi: null };
  if (float !== null) {
    // A bound on |the complete sum| (the seen one, v·seen, is itself rounded).
    const missing = env.nonNull.get(col!) ?? env.rows;
    const total = (Math.abs(v) * float.seen + missing * Math.max(Math.abs(mn), Math.abs(mx))) * (1 + 8 * Number.EPSILON);
    if (!(float.int && total < 2 ** 53)) {
      if (total >= Number.MAX_VALUE) return { label: 'bounded', lo: l < 0 ? null : l - floatSlack(l), hi: h > 0 ? null : h + floatSlack(h) };
      l -= floatSlack(l);
      h += floatSlack(h);
    }
  }
  return { label: 'bounded', lo: l, hi: h };
}

/**
 * Refuses FILTER on an aggregate DuckDB defines as a macro, as DuckDB refuses it.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when `options` holds a FILTER
 */
function noMacroFilter(fn: string, options: CallOptions): void {
  if (options.filter !== undefined) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes no FILTER: DuckDB defines it as a macro, and FILTER applies only to aggregate functions`);
}

/**
 * geomean(x) (also geometric_mean), DuckDB 1.5's macro exp(avg(ln(x))) (duckdb/duckdb
 * src/catalog/default/default_functions.cpp): a SUM of ln(x) (exactly rounded, so the same
 * whatever the split) and COUNT(x), a float64, NULL over no value. ln refuses 0 and negative
 * values as DuckDB's does (CANOPY_ERR_OUT_OF_RANGE, "cannot take logarithm of zero").
 * FILTER is refused, as DuckDB refuses it on a macro. With missing shards: exact when they
 * hold no non-NULL x, else approximate with no interval.
 */
export const geomeanAggregate: AggregateDef = {
  fn: 'geomean',
  call: { names: ['geomean', 'geometric_mean'], args: ['value'] },
  decompose(args, options) {
    noMacroFilter('geomean', options);
    needNumeric('geomean', args[0]);
    const x = args[0]!.expr;
    const ln: Expr = { kind: 'call', fn: 'ln', args: [x], type: 'float64' };
    return { partials: [{ kind: 'sum', arg: ln, argType: 'float64' }, { kind: 'count', arg: x }], type: 'float64' };
  },
  finalise(e, g, layout) {
    const sum = layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]);
    const count = layout.kinds[e.partials[1]!]!.finalise(g.states[e.partials[1]!]);
    if (sum === null || count === null || Number(count) === 0) return null;
    return Math.exp(Number(sum) / Number(count));
  },
  bounds(e, _g, layout, env) {
    if (!anyMissing(env)) return null;
    const col = argColumn(layout.plan.partials[e.partials[1]!]!.arg);
    if (col !== null && !env.unknown && (env.nonNull.get(col) ?? 1) === 0) return null;
    return { label: 'approximate', lo: null, hi: null };
  },
  sketch: false,
  topk: null,
};

/**
 * weighted_avg(value, weight) (also wavg), DuckDB 1.5's macro
 * `SUM(value * weight) / SUM(CASE WHEN value IS NOT NULL THEN weight ELSE 0 END)`
 * (duckdb/duckdb src/catalog/default/default_functions.cpp), over int64 or float64 arguments:
 * two SUM partials over those row expressions (an int64 product overflowing refuses the query,
 * as DuckDB's), divided as `/` divides (doubles: a zero total weight gives ±Infinity or NaN, as
 * DuckDB), a float64, NULL when either sum is NULL; FILTER refused, as DuckDB refuses it on a
 * macro. With missing shards: exact when they hold
 * no non-NULL value or no non-NULL weight (neither sum can change), else approximate.
 */
export const weightedAvgAggregate: AggregateDef = {
  fn: 'weighted_avg',
  call: { names: ['weighted_avg', 'wavg'], args: ['value', 'value'] },
  decompose(args, options) {
    noMacroFilter('weighted_avg', options);
    const [v, w] = args;
    if (v === undefined || w === undefined || args.length !== 2) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'weighted_avg() takes two arguments (value, weight)');
    needNumeric('weighted_avg', v);
    needNumeric('weighted_avg', w);
    const type = v.type === 'int64' && w.type === 'int64' ? 'int64' : 'float64';
    const as = (a: AggArg): Expr => (a.type === type ? a.expr : { kind: 'cast', arg: a.expr, type, try: false, from: a.type });
    const product: Expr = { kind: 'arith', op: '*', left: as(v), right: as(w), type };
    const weight: Expr = {
      kind: 'case',
      operand: null,
      whens: [{ when: { kind: 'isnull', arg: v.expr, negated: true }, then: w.expr }],
      else: { kind: 'lit', value: w.type === 'int64' ? 0n : 0, type: w.type },
      type: w.type,
    };
    return { partials: [{ kind: 'sum', arg: product, argType: type }, { kind: 'sum', arg: weight, argType: w.type }], type: 'float64' };
  },
  finalise(e, g, layout) {
    const fin = (i: number): Scalar => layout.kinds[e.partials[i]!]!.finalise(g.states[e.partials[i]!]);
    return arith('/', 'float64', fin(0), fin(1));
  },
  bounds(e, _g, layout, env) {
    if (!anyMissing(env)) return null;
    // The value and weight columns (when plain columns) are the CASE's IS NOT NULL test and its THEN.
    const weight = layout.plan.partials[e.partials[1]!]!.arg;
    if (!env.unknown && weight?.kind === 'case') {
      const test = weight.whens[0]!.when;
      const cols = [test.kind === 'isnull' ? argColumn(test.arg) : null, argColumn(weight.whens[0]!.then)];
      if (cols.some((c) => c !== null && (env.nonNull.get(c) ?? 1) === 0)) return null;
    }
    return { label: 'approximate', lo: null, hi: null };
  },
  sketch: false,
  topk: null,
};

/** fsum's (favg's) value as DuckDB's Kahan-Babuška sum gives it: NaN where the exact one is ±Infinity (an infinite input, or past the range). */
function kahanValue(v: Scalar): Scalar {
  return typeof v === 'number' && !Number.isFinite(v) ? NaN : v;
}

/**
 * An approximate cell for an fsum state holding a value of 2^969 or more (its `big` part)
 * whose sum is finite: DuckDB's running sum may pass the range (and give NaN) in some orders;
 * null otherwise.
 */
function orderDependent(state: unknown): Cell | null {
  const s = state as FloatSum | null | undefined;
  return s?.big !== undefined && Number.isFinite(fsumValue(s)) ? { label: 'approximate', lo: null, hi: null } : null;
}

/** A numeric argument as a double: int64 cast to float64 (as DuckDB's DOUBLE-only aggregates take it). */
function asDouble(a: AggArg): Expr {
  return a.type === 'float64' ? a.expr : { kind: 'cast', arg: a.expr, type: 'float64', try: false, from: a.type };
}

/**
 * fsum(x) (also sumkahan, kahan_sum) and favg(x), DuckDB's sum and mean of x as doubles
 * (int64 values cast to DOUBLE one by one), a float64, NULL over no value. DuckDB sums with
 * Kahan-Babuška compensation; canopy's float SUM is exact-then-rounded (src/merge/fsum.ts),
 * at least as accurate and the same whatever the split, so the two agree except where DuckDB's
 * compensation itself loses digits (1e100 + 1 − 1e100 is 0 in DuckDB, 1 here; int64 values past
 * 2^53 may differ in the last place). An infinity or NaN among the values, or a sum past the
 * double range, makes DuckDB's compensated sum NaN (its correction term becomes inf − inf),
 * whatever the order: so does canopy's. A value of 2^969 or more may overflow DuckDB's running
 * sum in one order and not another (1e308 + 1e308 − 1e308 is NaN there): such a finite sum is
 * labelled approximate. Bounds as SUM and AVG over float64.
 */
export const fsumAggregate: AggregateDef = {
  fn: 'fsum',
  call: { names: ['fsum', 'sumkahan', 'kahan_sum'], args: ['value'] },
  decompose(args) {
    needNumeric('fsum', args[0]);
    return { partials: [{ kind: 'sum', arg: asDouble(args[0]!), argType: 'float64' }], type: 'float64' };
  },
  finalise: (e, g, layout) => kahanValue(layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!])),
  bounds: (e, g, layout, env) => orderDependent(g.states[e.partials[0]!]) ?? sumAggregate.bounds(e, g, layout, env),
  sketch: false,
  topk: null,
};

/** favg(x): {@link fsumAggregate}'s sum over COUNT(x). */
export const favgAggregate: AggregateDef = {
  fn: 'favg',
  call: { names: ['favg'], args: ['value'] },
  decompose(args) {
    needNumeric('favg', args[0]);
    return { partials: [{ kind: 'sum', arg: asDouble(args[0]!), argType: 'float64' }, { kind: 'count', arg: args[0]!.expr }], type: 'float64' };
  },
  finalise: (e, g, layout) => kahanValue(avgAggregate.finalise(e, g, layout)),
  bounds: (e, g, layout, env) => orderDependent(g.states[e.partials[0]!]) ?? avgAggregate.bounds(e, g, layout, env),
  sketch: false,
  topk: null,
};
