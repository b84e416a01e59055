/**
 * median(x), quantile_cont(x, q), quantile_disc(x, q) (= quantile(x, q)), mode(x) and
 * entropy(x) over one `value_counts` partial per argument (src/merge/kinds/value-counts.ts:
 * exact counts up to a budget of distinct values per group, then a DDSketch).
 *
 * Labels: exact when the group's state is exact and no shard that may hold the group is
 * missing; with k rows missing (their shards' catalog min/max mn, mx), a guaranteed interval
 * from ranks: the complete data's value of rank r is at least the seen value of rank r - k
 * (or min(seen, mn) when r < k) and at most the seen value of rank r (or max(seen, mx) past
 * the seen values), and both ends only widen as k grows, so the bounds at k cover every
 * count of missing rows from 0 to k. Past the budget, the sketch's bounded answers
 * (src/merge/aggregates/quantile.ts).
 *
 * DuckDB's definitions (duckdb/duckdb src/core_functions/aggregate/holistic/quantile.cpp,
 * mode.cpp, entropy.cpp): quantile_disc is the value of 0-based index max(0, ceil(n·q) - 1)
 * of the sorted values (ddsketch.ts quantileIndex), keeping the type; quantile_cont
 * interpolates the values at floor((n - 1)·q) and ceil((n - 1)·q) as `lo·(1 - d) + hi·d` in
 * doubles (timestamps rounded half away from zero to a µs), a double for int64 and float64;
 * median is quantile_cont(x, 0.5); mode is the most frequent value, ties going to the value
 * seen first in DuckDB's scan, which canopy cannot know: a tie is a *bounded* cell between the
 * tied values; entropy is Σ (c/n)·log2(n/c) over the distinct values' counts c (base 2), 0
 * for no value. NaN sorts after +Infinity, -0 equals 0. mode and entropy hash values, and
 * DuckDB's hash table tells NaN from NaN: each NaN row counts as a value of its own (but rows
 * of one constant vector count together), so a NaN mode is approximate and an entropy over
 * two NaNs or more is bounded between NaN as one value and NaN rows apart. mode, entropy,
 * quantile_disc and median of a string column read a `string_counts` partial instead
 * (string-counts.ts; DuckDB's median of strings is their quantile_disc at 0.5).
 */
import { CanopyError } from '../errors.ts';
import type { Cell } from '../bounds.ts';
import { QuantileAccumulator, contEstimate, quantileEstimate, quantileIndex, type QuantileEstimate, type QuantileState } from '../kinds/ddsketch.ts';
import { VALUE_COUNTS_BUDGET, bucketKeysOf, exactOfMap, exactValueAt, type ExactCounts, type ValueCountsState } from '../kinds/value-counts.ts';
import type { GroupEntry, PartialLayout } from '../partial.ts';
import { wholeMicros } from '../time.ts';
import type { ColumnType, Scalar } from '../types.ts';
import { isValid, scalarAt } from '../vectors.ts';
import type { AggArg, AggExpr, Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { argColumn, floatSlack, type Envelope } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';
import { readsStrings, stringEntropy, stringEntropyBounds, stringMode, stringModeBounds, stringQuantile, stringQuantileBounds } from './string-counts.ts';
import { INT64_MIN, INT64_MAX } from '../int-range.ts';

type NumType = 'int64' | 'float64' | 'timestamp';

/** The argument's type, checked: int64, float64 or timestamp (`strings`: the message names strings too). */
function numArg(name: string, args: readonly AggArg[], strings = false): AggArg & { type: NumType } {
  const arg = args[0];
  if (arg === undefined) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${name}() takes a column`);
  if (arg.type !== 'int64' && arg.type !== 'float64' && arg.type !== 'timestamp') {
    const wanted = strings ? 'an int64, float64, timestamp or string' : 'an int64, float64 or timestamp';
    throw new CanopyError('CANOPY_ERR_TYPE', `${name}() needs ${wanted} column; '${arg.text}' is ${arg.type}`);
  }
  return arg as AggArg & { type: NumType };
}

/** The group's state of the call's partial. */
function stateOf(e: AggExpr, g: GroupEntry): ValueCountsState | null {
  return g.states[e.partials[0]!] as ValueCountsState | null;
}

/** An integer as an int64: clamped to [-2^63, 2^63 - 1] (a double near 2^63 rounds up to 2^63, no int64). */
function toInt64(v: bigint): bigint {
  return v < INT64_MIN ? INT64_MIN : v > INT64_MAX ? INT64_MAX : v;
}

/**
 * A number as the SQL value of a column type (int64: bigint, rounded, since a sketch estimate
 * may not be whole, and clamped to int64's range, since every value it estimates lies in it;
 * timestamp: whole µs, rounded half away from zero as DuckDB rounds an interpolated one).
 */
function asType(v: number, type: ColumnType): Scalar {
  if (type === 'int64') return toInt64(BigInt(Math.round(v)));
  if (type === 'timestamp') return wholeMicros(v);
  return v === 0 ? 0 : v;
}

/** What the missing shards may add to a group: k non-NULL rows in [mn, mx]; null when nothing; 'unknown' when not bounded. */
type Missing = { readonly k: number; readonly mn: number; readonly mx: number } | 'unknown' | null;

function missingOf(e: AggExpr, layout: PartialLayout, env: Envelope | null): Missing {
  const arg = layout.plan.partials[e.partials[0]!]!.arg;
  const col = argColumn(arg);
  if (env === null || env.rows === 0 || arg === null) return null;
  if (!env.unknown && col !== null && (env.nonNull.get(col) ?? 0) === 0) return null;
  if (env.unknown || col === null) return 'unknown';
  const mn = env.min.get(col);
  const mx = env.max.get(col);
  if (typeof mn !== 'number' || typeof mx !== 'number' || Number.isNaN(mn) || Number.isNaN(mx)) return 'unknown';
  return { k: env.nonNull.get(col) ?? env.rows, mn, mx };
}

const APPROXIMATE: Cell = { label: 'approximate', lo: null, hi: null };

/** One unit in the last place of |x| (x finite). */
function ulp(x: number): number {
  return 2 ** (Math.floor(Math.log2(Math.abs(x))) - 52);
}

/**
 * A bounded cell [lo, hi] of a column type; approximate when an end is NaN. int64 ends beyond
 * 2^53 come from a sketch's doubles (each int64 rounded to the nearest double): widened by
 * one ulp, so the interval holds the int64 values that round to them, and kept within int64.
 */
function boundedCell(lo: number, hi: number, type: ColumnType): Cell {
  if (Number.isNaN(lo) || Number.isNaN(hi)) return APPROXIMATE;
  if (type === 'int64') {
    const widen = (x: number, dir: 1 | -1): Scalar => (Number.isFinite(x) && Math.abs(x) >= 2 ** 53 ? toInt64(BigInt(x) + BigInt(dir * ulp(x))) : asType(x, type));
    return { label: 'bounded', lo: widen(lo, -1), hi: widen(hi, 1) };
  }
  return { label: 'bounded', lo: asType(lo, type), hi: asType(hi, type) };
}

/** Lowest possible value of rank r of the complete data: seen plus m rows in [mn, mx]. */
function rankLo(s: ExactCounts, r: number, m: number, mn: number): number {
  return r >= m ? exactValueAt(s, r - m) : Math.min(exactValueAt(s, 0), mn);
}

/** Highest possible value of rank r of the complete data: seen plus m rows in [mn, mx]. */
function rankHi(s: ExactCounts, r: number, mx: number): number {
  return r < s.total ? exactValueAt(s, r) : Math.max(exactValueAt(s, s.total - 1), mx);
}

/** DuckDB's interpolation of quantile_cont (see the file comment). */
function interpolate(lo: number, hi: number, d: number, timestamp: boolean): number {
  const x = lo * (1 - d) + hi * d;
  return timestamp ? wholeMicros(x) : x;
}

/** Exact quantile_cont of an exact state (n >= 1); a negative q counts |q| from the top. */
function exactCont(s: ExactCounts, q: number): number {
  const n = s.total;
  const rn = (n - 1) * Math.abs(q);
  const f = Math.floor(rn);
  const lo = exactValueAt(s, ascRank(q, f, n));
  if (f === Math.ceil(rn)) return lo;
  return interpolate(lo, exactValueAt(s, ascRank(q, f + 1, n)), rn - f, s.type === 'timestamp');
}

/** A quantile over the value_counts partial: its exact value, its sketch estimate, and its bounds under missing rows. */
interface QuantileRule {
  readonly exact: (s: ExactCounts) => number;
  readonly sketch: (s: QuantileState) => QuantileEstimate | null;
  /** [lo, hi] of the complete data's answer: the seen state plus k rows in [mn, mx]. */
  readonly missing: (s: ExactCounts, k: number, mn: number, mx: number) => [number, number];
}

/**
 * The ascending rank of DuckDB's index i among n values: i itself, or n - 1 - i for a
 * negative q (DuckDB's descending order). Either way, as n grows by one the rank grows by 0
 * or 1, and the rank less n's growth does not grow: the bounds at k missing rows cover 0..k.
 */
function ascRank(q: number, i: number, n: number): number {
  return q < 0 ? n - 1 - i : i;
}

function discRule(q: number, double: boolean): QuantileRule {
  const a = Math.abs(q);
  return {
    exact: (s) => exactValueAt(s, ascRank(q, quantileIndex(a, s.total, double), s.total)),
    sketch: (s) => quantileEstimate(s, q, double),
    missing: (s, k, mn, mx) => {
      const n = s.total + k;
      const r = ascRank(q, quantileIndex(a, n, double), n);
      return [rankLo(s, r, k, mn), rankHi(s, r, mx)];
    },
  };
}

function contRule(q: number): QuantileRule {
  const a = Math.abs(q);
  return {
    exact: (s) => exactCont(s, q),
    sketch: (s) => contEstimate(s, q),
    missing: (s, k, mn, mx) => {
      const n = s.total + k;
      const rn = (n - 1) * a;
      // The two ranks interpolated, as ascending ranks: the lower and the upper one.
      const [r0, r1] = q < 0 ? [n - 1 - Math.ceil(rn), n - 1 - Math.floor(rn)] : [Math.floor(rn), Math.ceil(rn)];
      const lo = rankLo(s, r0, k, mn);
      const hi = rankHi(s, r1, mx);
      // The interpolation rounds: a few ulps outward (timestamps round to whole µs, within [lo, hi] below 2^50).
      if (s.type === 'timestamp') return [lo - (Math.abs(lo) >= 2 ** 50 ? 1 : 0), hi + (Math.abs(hi) >= 2 ** 50 ? 1 : 0)];
      return [lo - floatSlack(lo), hi + floatSlack(hi)];
    },
  };
}

/**
 * A quantile aggregate read from the `value_counts` partial.
 * @param discrete quantile_disc (keeps the type) rather than quantile_cont (float64 for numbers)
 * @param fixedQ the median's 0.5; otherwise the OutExpr's `q`
 */
function countsQuantile(fn: 'median' | 'quantile_cont' | 'quantile_disc', discrete: boolean, fixedQ?: number): AggregateDef {
  const rule = (e: AggExpr): QuantileRule => {
    const q = fixedQ ?? e.q ?? 0.5;
    return discrete ? discRule(q, e.qDouble === true) : contRule(q);
  };
  const outType = (t: ColumnType): ColumnType => (discrete || t === 'timestamp' ? t : 'float64');
  // quantile_cont between -Infinity and +Infinity interpolates to NaN (DuckDB's -inf·(1 - d) +
  // inf·d), which sorts past +Infinity: no interval [lo, hi] holds it, so such a cell is approximate.
  const cell = (lo: number, hi: number, type: ColumnType): Cell => (!discrete && lo === -Infinity && hi === Infinity ? APPROXIMATE : boundedCell(lo, hi, type));
  return {
    fn,
    decompose(args) {
      // quantile_disc and median of strings (DuckDB's median of VARCHAR is its quantile_disc at 0.5).
      if (args[0]?.type === 'string' && fn !== 'quantile_cont') return { partials: [{ kind: 'string_counts', arg: args[0].expr }], type: 'string' };
      const arg = numArg(fn, args, fn !== 'quantile_cont');
      return { partials: [{ kind: 'value_counts', arg: arg.expr }], type: outType(arg.type) };
    },
    finalise(e, g, layout) {
      if (readsStrings(e, layout)) return stringQuantile(e, g, fixedQ ?? e.q ?? 0.5);
      const s = stateOf(e, g);
      if (s === null) return null;
      const v = s.kind === 'exact' ? rule(e).exact(s) : rule(e).sketch(s.sketch)?.value;
      return v === undefined ? null : asType(v, e.type);
    },
    bounds(e, g, layout, env) {
      if (readsStrings(e, layout)) return stringQuantileBounds(e, g, layout, env);
      const s = stateOf(e, g);
      const missing = missingOf(e, layout, env);
      if (missing === 'unknown') return APPROXIMATE;
      if (s === null) return missing === null ? null : cell(missing.mn, missing.mx, e.type);
      if (s.kind === 'exact') {
        if (missing === null) return null;
        const [lo, hi] = rule(e).missing(s, missing.k, missing.mn, missing.mx);
        return cell(lo, hi, e.type);
      }
      const est = rule(e).sketch(s.sketch);
      if (est === null) return null;
      // An int64 beyond 2^53 read from the sketch is a rounded double, never exact.
      if (missing === null) return est.exact && !(e.type === 'int64' && Math.abs(est.value) >= 2 ** 53) ? null : cell(est.lo, est.hi, e.type);
      return cell(Math.min(est.lo, missing.mn), Math.max(est.hi, missing.mx), e.type);
    },
    sketch: true,
    topk: null,
  };
}

/** median(x): DuckDB's quantile_cont(x, 0.5). */
export const medianAggregate: AggregateDef = countsQuantile('median', false, 0.5);

/** quantile_cont(x, q). */
export const quantileContAggregate: AggregateDef = countsQuantile('quantile_cont', false);

/** quantile_disc(x, q) and quantile(x, q). */
export const quantileDiscAggregate: AggregateDef = countsQuantile('quantile_disc', true);

/** The sketch's finite values' extremes with the infinities: [lo, hi] of every value; NaN when it holds NaN. */
function sketchRange(s: QuantileState): [number, number] {
  const lo = s.negInf > 0 ? -Infinity : s.min !== Infinity ? s.min : s.posInf > 0 ? Infinity : NaN;
  const hi = s.nan > 0 ? NaN : s.posInf > 0 ? Infinity : s.max !== -Infinity ? s.max : -Infinity;
  return [lo, hi];
}

/**
 * mode(x): the most frequent value. Exact for an exact state with one most frequent value
 * and no missing rows that could overtake it; a tie is bounded by the tied values (DuckDB
 * picks the one its scan saw first); a sketch is bounded by its extremes, its value the
 * middle of the fullest bucket.
 */
export const modeAggregate: AggregateDef = {
  fn: 'mode',
  call: { names: ['mode'], args: ['value'] },
  decompose(args) {
    if (args[0]?.type === 'string') return { partials: [{ kind: 'string_counts', arg: args[0].expr }], type: 'string' };
    const arg = numArg('mode', args, true);
    return { partials: [{ kind: 'value_counts', arg: arg.expr }], type: arg.type };
  },
  finalise(e, g, layout) {
    if (readsStrings(e, layout)) return stringMode(e, g);
    const s = stateOf(e, g);
    if (s === null) return null;
    if (s.kind === 'sketch') return asType(sketchMode(s.sketch), e.type);
    let best = 0;
    for (let i = 1; i < s.values.length; i++) if (s.counts[i]! > s.counts[best]!) best = i;
    return asType(s.values[best]!, e.type);
  },
  bounds(e, g, layout, env) {
    if (readsStrings(e, layout)) return stringModeBounds(e, g, layout, env);
    const s = stateOf(e, g);
    const missing = missingOf(e, layout, env);
    if (missing === 'unknown') return APPROXIMATE;
    if (s === null) return missing === null ? null : boundedCell(missing.mn, missing.mx, e.type);
    if (s.kind === 'sketch') {
      const [lo, hi] = sketchRange(s.sketch);
      return missing === null ? boundedCell(lo, hi, e.type) : boundedCell(Math.min(lo, missing.mn), Math.max(hi, missing.mx), e.type);
    }
    const k = missing === null ? 0 : missing.k;
    let top = 0;
    for (const c of s.counts) if (c > top) top = c;
    // Candidates: seen values that k more rows bring level with the top count, and any
    // missing value when k rows alone reach it.
    let lo = Infinity;
    let hi = -Infinity;
    let n = 0;
    s.values.forEach((v, i) => {
      if (s.counts[i]! + k >= top) {
        n++;
        lo = Math.min(lo, v);
        hi = Number.isNaN(v) ? NaN : Math.max(hi, v);
      }
    });
    if (missing !== null && k >= top) {
      n++;
      lo = Math.min(lo, missing.mn);
      hi = Math.max(hi, missing.mx);
    }
    // NaN as the mode: DuckDB counts NaN rows apart (NaN != NaN in its hash table), so another value may win.
    return n === 1 && !Number.isNaN(hi) ? null : boundedCell(lo, hi, e.type);
  },
  sketch: true,
  topk: null,
};

/** The middle value of a sketch's fullest bucket (the zero bucket, or an infinity, when fuller). */
function sketchMode(s: QuantileState): number {
  const mapping = bucketKeysOf(s.type).mapping;
  let best = s.zero;
  let value = 0;
  const take = (c: number, v: number): void => {
    if (c > best) {
      best = c;
      value = v;
    }
  };
  s.pos.keys.forEach((k, i) => take(s.pos.counts[i]!, Math.min(s.max, Math.max(s.min, mapping.value(k)))));
  s.neg.keys.forEach((k, i) => take(s.neg.counts[i]!, Math.min(s.max, Math.max(s.min, -mapping.value(k)))));
  take(s.negInf, -Infinity);
  take(s.posInf, Infinity);
  take(s.nan, NaN);
  return value;
}

/** Σ (c/n)·log2(n/c) over counts, in their order; with `singles`, the last count as that many values of count 1. */
function entropyOf(counts: ArrayLike<number>, n: number, singles = false): number {
  let h = 0;
  const last = counts.length - 1;
  for (let i = 0; i <= last; i++) {
    const c = counts[i]!;
    h += singles && i === last ? c * ((1 / n) * Math.log2(n)) : (c / n) * Math.log2(n / c);
  }
  return h;
}

/** NaN rows of an exact state (its last value when NaN). */
function nanCount(s: ExactCounts): number {
  const last = s.values.length - 1;
  return Number.isNaN(s.values[last]!) ? s.counts[last]! : 0;
}

/** DuckDB's entropy of an exact state: each NaN row a value of its own (its hash table keys NaN != NaN). */
function exactEntropy(s: ExactCounts): number {
  return entropyOf(s.counts, s.total, nanCount(s) > 0);
}

/** Entropy of a sketch's buckets (zero bucket, infinities and NaN as buckets of their own): a lower bound of the values' entropy. */
function sketchEntropy(s: QuantileState): { h: number; n: number } {
  const counts = [...s.pos.counts, ...s.neg.counts, s.zero, s.negInf, s.posInf, s.nan].filter((c) => c > 0);
  const n = counts.reduce((a, b) => a + b, 0);
  return { h: entropyOf(counts, n), n };
}

/**
 * entropy(x): Σ (c/n)·log2(n/c) over the distinct values' counts (DuckDB's, base 2), 0 for no
 * value. Exact for an exact state without missing rows; else bounded: grouping values into
 * buckets lowers entropy (so a sketch's bucket entropy is a lower bound) and entropy is at
 * most log2 of the number of values (seen plus missing).
 */
export const entropyAggregate: AggregateDef = {
  fn: 'entropy',
  call: { names: ['entropy'], args: ['value'] },
  decompose(args) {
    if (args[0]?.type === 'string') return { partials: [{ kind: 'string_counts', arg: args[0].expr }], type: 'float64' };
    const arg = numArg('entropy', args, true);
    return { partials: [{ kind: 'value_counts', arg: arg.expr }], type: 'float64' };
  },
  finalise(e, g, layout) {
    if (readsStrings(e, layout)) return stringEntropy(e, g);
    const s = stateOf(e, g);
    if (s === null) return 0;
    return s.kind === 'exact' ? exactEntropy(s) : sketchEntropy(s.sketch).h;
  },
  bounds(e, g, layout, env) {
    if (readsStrings(e, layout)) return stringEntropyBounds(e, g, layout, env);
    const s = stateOf(e, g);
    const missing = missingOf(e, layout, env);
    if (missing === 'unknown') return APPROXIMATE;
    if ((s === null || (s.kind === 'exact' && nanCount(s) < 2)) && missing === null) return null;
    const k = missing === null ? 0 : missing.k;
    const seen = s === null ? { h: 0, n: 0 } : s.kind === 'exact' ? { h: entropyOf(s.counts, s.total), n: s.total } : sketchEntropy(s.sketch);
    const n = seen.n + k;
    // Two NaNs or more: DuckDB counts each NaN row apart, except rows it reads as one constant
    // vector, which it counts together: between NaN as one value and NaN rows apart.
    const hi = s !== null && s.kind === 'exact' && k === 0 ? exactEntropy(s) : n <= 1 ? 0 : Math.log2(n);
    // A sketch's bucket entropy bounds the seen values' from below; missing rows may lower it
    // to 0. Summing n terms (in any order, as DuckDB's hash table gives them) rounds by up to
    // about n ulps of the sum: both ends widen by that.
    const round = (x: number): number => x * 2 * Number.EPSILON * (n + 4);
    const lo = k === 0 ? Math.max(0, seen.h - round(seen.h)) : 0;
    return { label: 'bounded', lo, hi: hi + round(hi) };
  },
  sketch: true,
  topk: null,
};

/** The leaf side: per group a Map of counts, a DDSketch accumulator once past the budget. */
function valueCountsAccumulator(type: NumType): Accumulator {
  const groups: (Map<number, number> | QuantileAccumulator | undefined)[] = [];
  const toSketch = (m: Map<number, number>): QuantileAccumulator => {
    const acc = new QuantileAccumulator(type, bucketKeysOf(type));
    for (const [v, c] of m) for (let i = 0; i < c; i++) acc.add(v);
    return acc;
  };
  const add = (g: number, v: number): void => {
    let m = groups[g];
    if (m === undefined) {
      m = new Map();
      groups[g] = m;
    }
    if (m instanceof Map) {
      const x = v === 0 ? 0 : v;
      m.set(x, (m.get(x) ?? 0) + 1);
      if (m.size > VALUE_COUNTS_BUDGET) groups[g] = toSketch(m);
    } else m.add(v);
  };
  /** A value exact counts cannot hold (int64 beyond 2^53): the group becomes a sketch. */
  const addInexact = (g: number, v: number): void => {
    const m = groups[g];
    const acc = m instanceof QuantileAccumulator ? m : toSketch(m ?? new Map());
    groups[g] = acc;
    acc.add(v);
  };
  // int64 and timestamps: exact counts hold integers within ±(2^53 - 1) only (the wire checks it).
  const integral = type !== 'float64';
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      if (v.t === 'num' && !(integral && v.maxAbs >= 2 ** 53)) {
        const vals = v.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (isValid(v.valid, i)) add(groupAt(gids, j), vals[i]!);
        }
        return;
      }
      for (let j = 0; j < n; j++) {
        const s = scalarAt(v, type, rowAt(sel, j));
        if (s === null) continue;
        const x = Number(s);
        if (integral && !Number.isSafeInteger(x)) addInexact(groupAt(gids, j), x);
        else add(groupAt(gids, j), x);
      }
    },
    state(g): ValueCountsState | null {
      const m = groups[g];
      if (m === undefined) return null;
      if (m instanceof Map) return exactOfMap(type, m);
      const sketch = m.state();
      return sketch === null ? null : { kind: 'sketch', sketch };
    },
  };
}

export const valueCountsPartial: PartialDef = {
  kind: 'value_counts',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: (_spec, argType) => {
    if (argType !== 'int64' && argType !== 'float64' && argType !== 'timestamp') throw new CanopyError('CANOPY_ERR_TYPE', `quantiles, mode and entropy need an int64, float64 or timestamp column, not ${argType ?? 'none'}`);
    return valueCountsAccumulator(argType);
  },
  groupBytes: 512,
};

/**
 * mad(x): the median absolute deviation, DuckDB's median(|x - median(x)|) with both medians
 * quantile_cont at 0.5 (duckdb/duckdb src/core_functions/aggregate/holistic/mad.cpp), a double
 * for int64 and float64 arguments (timestamps, whose mad is an INTERVAL in DuckDB, are refused:
 * canopy has no INTERVAL type). Read from the `value_counts` partial: exact from exact counts
 * (the deviations of the distinct values, with their counts, sorted again), with no shard
 * missing and no NaN (DuckDB's NaN handling here follows its sort, not a rule canopy can state:
 * approximate); with rows missing, approximate with no interval (a spread has no interval
 * from the catalog's min and max canopy keeps). Past the exact budget the query is refused
 * (CANOPY_ERR_LIMIT).
 */
export const madAggregate: AggregateDef = {
  fn: 'mad',
  call: { names: ['mad'], args: ['value'] },
  decompose(args) {
    const arg = args[0];
    if (arg === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'mad() takes one argument');
    if (arg.type !== 'int64' && arg.type !== 'float64') throw new CanopyError('CANOPY_ERR_TYPE', `mad() needs an int64 or float64 argument (DuckDB's mad of a timestamp is an INTERVAL, which canopy does not hold); '${arg.text}' is ${arg.type}`);
    return { partials: [{ kind: 'value_counts', arg: arg.expr }], type: 'float64' };
  },
  finalise(e, g) {
    const s = stateOf(e, g);
    if (s === null) return null;
    if (s.kind === 'sketch') {
      throw new CanopyError('CANOPY_ERR_LIMIT', `mad(): a group holds more than ${VALUE_COUNTS_BUDGET.toLocaleString('en-US')} distinct values, past which canopy keeps a DDSketch, from which no deviation can be bounded; narrow the groups or the WHERE clause`);
    }
    const m = exactCont(s, 0.5);
    const devs = Array.from(s.values, (v, i) => [Math.abs(v - m), s.counts[i]!] as const).sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return exactCont({ kind: 'exact', type: 'float64', values: Float64Array.from(devs, (d) => d[0]), counts: Float64Array.from(devs, (d) => d[1]), total: s.total }, 0.5);
  },
  bounds(e, g, layout, env) {
    const s = stateOf(e, g);
    const missing = missingOf(e, layout, env);
    if (s === null) return missing === null ? null : APPROXIMATE;
    if (missing !== null || s.kind !== 'exact') return APPROXIMATE;
    return s.values.some((v) => Number.isNaN(v)) ? APPROXIMATE : null;
  },
  sketch: true,
  topk: null,
};
