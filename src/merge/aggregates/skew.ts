/**
 * skewness(x), kurtosis(x) and kurtosis_pop(x) over int64 or float64 (as doubles), float64,
 * computed as DuckDB 1.5 computes them (duckdb/duckdb v1.5.5,
 * extension/core_functions/aggregate/distributive/{skew,kurtosis}.cpp) from one `power_sums`
 * partial (n, Σx, Σx², Σx³, Σx⁴: src/merge/kinds/power-sums.ts), with its rules:
 * - skewness: NULL below three values; NaN when the variance is 0; else
 *   √(n(n−1))/(n−2) · m3 / m2^1.5 (m_k the k-th central moment from the power sums);
 * - kurtosis (sample, bias-corrected): NULL below four values, kurtosis_pop below two; both
 *   NULL when the variance is 0 (Σx² − (Σx)²/n = 0, or m2 ≤ 0 after rounding); else
 *   m4/m2² − 3 (pop) or (n−1)((n+1)·m4/m2² − 3(n−1))/((n−2)(n−3));
 * - a result that is not finite (NaN or an infinity among the values, or sums past the double
 *   range) is refused with CANOPY_ERR_OUT_OF_RANGE ("SKEW is out of range!", "Kurtosis is out
 *   of range!"), as DuckDB refuses it; but one that only the cancellation of ill-conditioned
 *   sums made so (see below) is NaN, labelled approximate (DuckDB, adding in its own order,
 *   may refuse it or answer noise).
 *
 * DuckDB's formula subtracts large power sums, so when the mean is large against the spread
 * its digits depend on the order in which the doubles were added (its own threads' order, or
 * here the shard split), and on the precision of the formula itself: DuckDB evaluates it in
 * x87 long double, canopy in doubles, so even exact sums (integers far from 0 against their
 * spread: j in [-1000, -961]) leave canopy's value 1e-8 from DuckDB's. The answer is labelled
 * exact when a first-order bound on the rounding (2nε of each sum's magnitude when the sums
 * may be rounded, none when every sum is provably exact: values on a grain of 2⁻¹⁶ or coarser
 * and small enough; plus {@link FORMULA_ROUNDING} of each term for the formula's own
 * operations, carried through its cancellations) stays below 1e-10 relative;
 * otherwise it is `approximate` with no interval, even with every shard answered (so `sketch`:
 * HAVING or a LIMIT cut over it proves its rows only when its cells are exact). With shards
 * missing: exact when they hold no non-NULL x (as the variance family), else approximate with
 * no interval. Not monotone under merge: never truncated by top-k.
 */
import type { Cell } from '../bounds.ts';
import { CanopyError } from '../errors.ts';
import { grainOf, powerSumsExact, type PowerSumsState } from '../kinds/power-sums.ts';
import type { AggregateFn } from '../types.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { groupAt, groupColumns, growColumns, numAt, rowAt } from './grow.ts';
import { needNumeric } from './sum.ts';

type MomentFn = Extract<AggregateFn, 'skewness' | 'kurtosis' | 'kurtosis_pop'>;

/** A result whose estimated relative rounding error passes this is labelled approximate (here and in covar.ts). */
export const MAX_REL_ERROR = 1e-10;

/**
 * The value, its first-order relative rounding-error estimate (Infinity: any digit may be
 * wrong) and DuckDB's refusal message when the value is refused.
 */
interface Finalised {
  readonly value: number | null;
  readonly relError: number;
  readonly refuse?: string;
}

/**
 * A value that is not finite: refused as DuckDB refuses it (`message`) when the sums are
 * themselves not finite (NaN or an infinity among the values, or powers past the double
 * range: any order of additions gives that) or the computation is well conditioned; else it
 * came from the cancellation of sums whose last digits the order of additions decided (DuckDB
 * may then refuse or answer, depending on its own order): NaN, labelled approximate.
 */
function notFinite(s: PowerSumsState, relError: number, message: string): Finalised {
  const sumsFinite = Number.isFinite(s.s1) && Number.isFinite(s.s2) && Number.isFinite(s.s3) && Number.isFinite(s.s4);
  if (!sumsFinite || relError <= MAX_REL_ERROR) return { value: NaN, relError: 0, refuse: message };
  return { value: NaN, relError: Infinity };
}

/**
 * Relative rounding, in units of ε, that the formula's own operations add to its terms'
 * magnitudes: 1/n, then at most six products and powers behind a term (`6·Σx²·(Σx)²·(1/n)²`:
 * about 3ε, 1/n counted in each power), and the three additions of the terms (ε/2 each of the
 * sum of magnitudes): 8 with room to spare.
 */
const FORMULA_ROUNDING = 8;

/**
 * Magnitudes of Σx and Σx³ for the rounding bounds: their own when the sums are exact (the
 * formula's terms are then known), else bounds of Σ|x| and Σ|x|³ (which their rounding
 * follows): |Σx| ≤ √(n·Σx²), |Σx³| ≤ √(Σx²·Σx⁴) (Cauchy–Schwarz).
 */
function magnitudes(s: PowerSumsState): { a1: number; a3: number } {
  return powerSumsExact(s) ? { a1: Math.abs(s.s1), a3: Math.abs(s.s3) } : { a1: Math.sqrt(s.n * s.s2), a3: Math.sqrt(s.s2 * s.s4) };
}

/** The relative rounding per unit of magnitude of a formula over `s`: the sums' (none when exact) and the formula's own. */
function roundingUnit(s: PowerSumsState): number {
  return ((powerSumsExact(s) ? 0 : 2 * s.n) + FORMULA_ROUNDING) * Number.EPSILON;
}

/**
 * Whether the second (`k` = 2: n·Σx² − (Σx)²) or third (`k` = 3: n²·Σx³ − 3n·Σx²·Σx + 2(Σx)³)
 * central moment of exact power sums is exactly 0, in integers of the grain: constant values,
 * or symmetric ones such as 1, 2, 3. The formula's rounding bound is then no bound (any noise
 * is infinitely relative), but a double difference of 0 is then the true one, and DuckDB's.
 * @param s exact sums ({@link powerSumsExact})
 */
function centralMomentZero(s: PowerSumsState, k: 2 | 3): boolean {
  const g = s.grain;
  const [n, s1, s2, s3] = [BigInt(s.n), BigInt(s.s1 / g), BigInt(s.s2 / (g * g)), BigInt(s.s3 / (g * g * g))];
  return k === 2 ? n * s2 - s1 * s1 === 0n : n * n * s3 - 3n * n * s2 * s1 + 2n * s1 * s1 * s1 === 0n;
}

/** The relative rounding of a difference `d` (the `k`-th central moment) whose terms' magnitudes add to `mag`: 0 when both it and the exact one are 0. */
function diffError(s: PowerSumsState, k: 2 | 3, u: number, mag: number, d: number): number {
  return d === 0 && powerSumsExact(s) && centralMomentZero(s, k) ? 0 : ratio(u * mag, d);
}

/** An absolute error `err` over |`diff`|: a relative error, Infinity when `diff` is 0 and `err` is not (any rounding could flip it). */
export const ratio = (err: number, diff: number): number => (diff === 0 ? (err === 0 ? 0 : Infinity) : err / Math.abs(diff));

/** DuckDB's skewness from a state (SkewnessOperation::Finalize), with the error estimate. */
function skewness(s: PowerSumsState): Finalised {
  if (s.n <= 2) return { value: null, relError: 0 };
  const n = s.n;
  const temp = 1 / n;
  let p = (temp * (s.s2 - s.s1 * s.s1 * temp)) ** 3;
  if (p < 0) p = 0;
  const div = Math.sqrt(p);
  const u = roundingUnit(s);
  const e2 = diffError(s, 2, u, s.s2 + s.s1 * s.s1 * temp, s.s2 - s.s1 * s.s1 * temp);
  if (div === 0) return { value: NaN, relError: e2 };
  const temp1 = Math.sqrt(n * (n - 1)) / (n - 2);
  const d3 = s.s3 - 3 * s.s2 * s.s1 * temp + 2 * s.s1 ** 3 * temp * temp;
  const value = (temp1 * temp * d3) / div;
  const { a1, a3 } = magnitudes(s);
  const e3 = diffError(s, 3, u, a3 + 3 * s.s2 * a1 * temp + 2 * a1 ** 3 * temp * temp, d3);
  const relError = e3 + 1.5 * e2;
  return Number.isFinite(value) ? { value, relError } : notFinite(s, relError, 'SKEW is out of range!');
}

/** DuckDB's kurtosis (`pop`: kurtosis_pop) from a state (KurtosisOperation::Finalize), with the error estimate. */
function kurtosis(s: PowerSumsState, pop: boolean): Finalised {
  const n = s.n;
  if (n <= 1 || (!pop && n <= 3)) return { value: null, relError: 0 };
  const temp = 1 / n;
  const u = roundingUnit(s);
  const d2 = s.s2 - s.s1 * s.s1 * temp;
  const e2 = diffError(s, 2, u, s.s2 + s.s1 * s.s1 * temp, d2);
  // DuckDB also tests the difference in x87 extended precision; a 0 there implies a 0 here.
  if (d2 === 0) return { value: null, relError: e2 };
  const d4 = s.s4 - 4 * s.s3 * s.s1 * temp + 6 * s.s2 * s.s1 * s.s1 * temp * temp - 3 * s.s1 ** 4 * temp ** 3;
  const m4 = temp * d4;
  const m2 = temp * d2;
  if (m2 <= 0) return { value: null, relError: e2 };
  const r = m4 / (m2 * m2);
  const value = pop ? r - 3 : ((n - 1) * ((n + 1) * r - 3 * (n - 1))) / ((n - 2) * (n - 3));
  const { a1, a3 } = magnitudes(s);
  const e4 = ratio(u * (s.s4 + 4 * a3 * a1 * temp + 6 * s.s2 * a1 * a1 * temp * temp + 3 * a1 ** 4 * temp ** 3), d4);
  const er = e4 + 2 * e2;
  const amplify = pop ? ratio(Math.abs(r), r - 3) : ratio((n + 1) * Math.abs(r), (n + 1) * r - 3 * (n - 1));
  const relError = er * amplify;
  return Number.isFinite(value) ? { value, relError } : notFinite(s, relError, 'Kurtosis is out of range!');
}

function finalised(fn: MomentFn, s: PowerSumsState): Finalised {
  return fn === 'skewness' ? skewness(s) : kurtosis(s, fn === 'kurtosis_pop');
}

function momentAggregate(fn: MomentFn): AggregateDef {
  return {
    fn,
    call: { names: [fn], args: ['value'] },
    decompose(args) {
      needNumeric(fn, args[0]);
      if (args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes one argument`);
      return { partials: [{ kind: 'power_sums', arg: args[0]!.expr }], type: 'float64' };
    },
    finalise(e, g) {
      const s = g.states[e.partials[0]!] as PowerSumsState | null;
      if (s === null) return null;
      const f = finalised(fn, s);
      if (f.refuse !== undefined) throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `${f.refuse} (${fn}: its values include NaN or an infinity, or their powers pass the double range; as DuckDB refuses it)`);
      return f.value;
    },
    bounds(e, g, layout, env): Cell | null {
      const approximate: Cell = { label: 'approximate', lo: null, hi: null };
      if (anyMissing(env)) {
        const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
        if (col === null || env.unknown || (env.nonNull.get(col) ?? 1) !== 0) return approximate;
      }
      const s = g.states[e.partials[0]!] as PowerSumsState | null;
      if (s === null) return null;
      // NaN (a non-finite sum's estimate) is not <=: approximate; a refused value never gets here.
      return finalised(fn, s).relError <= MAX_REL_ERROR ? null : approximate;
    },
    sketch: true,
    topk: null,
  };
}

export const skewnessAggregate = momentAggregate('skewness');
export const kurtosisAggregate = momentAggregate('kurtosis');
export const kurtosisPopAggregate = momentAggregate('kurtosis_pop');


/** New groups' starting values of the power-sums accumulator's columns (the grain's 1). */
const POWER_SUMS_IDENTITY = [0, 0, 0, 0, 0, 0, 1];

/** Power sums per row, as DuckDB's Operation (pow(x, k) added in row order), per group in typed arrays. */
function powerSumsAccumulator(): Accumulator {
  const cols = groupColumns(7, POWER_SUMS_IDENTITY);
  return {
    update(inputs, sel, gids, n, groups) {
      // A new group's grain starts at 1 (the identity of min).
      growColumns(cols, groups, POWER_SUMS_IDENTITY);
      const [cnt, s1, s2, s3, s4, maxAbs, grain] = cols as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      const v = inputs[0]!;
      for (let j = 0; j < n; j++) {
        const x = numAt(v, rowAt(sel, j));
        if (x === null) continue;
        const g = groupAt(gids, j);
        cnt[g]!++;
        s1[g]! += x;
        s2[g]! += x ** 2;
        s3[g]! += x ** 3;
        s4[g]! += x ** 4;
        const a = Math.abs(x);
        maxAbs[g] = Number.isNaN(a) || Number.isNaN(maxAbs[g]!) ? NaN : Math.max(maxAbs[g]!, a);
        if (grain[g] !== 0) grain[g] = Math.min(grain[g]!, grainOf(x));
      }
    },
    state(g) {
      const [cnt, s1, s2, s3, s4, maxAbs, grain] = cols as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      if ((cnt[g] ?? 0) === 0) return null;
      const s: PowerSumsState = { n: cnt[g]!, s1: s1[g]!, s2: s2[g]!, s3: s3[g]!, s4: s4[g]!, maxAbs: maxAbs[g]!, grain: grain[g]! };
      return s;
    },
  };
}

export const powerSumsPartial: PartialDef = {
  kind: 'power_sums',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: () => powerSumsAccumulator(),
  groupBytes: 56,
};
