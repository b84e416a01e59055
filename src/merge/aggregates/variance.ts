/**
 * var_samp / variance, var_pop, stddev_samp / stddev, stddev_pop over int64 or float64: one
 * `variance` partial (count, mean, M2; src/merge/kinds/variance.ts, Chan et al.'s parallel
 * combine), a float64 as in DuckDB: NULL over no values, and for the sample forms over one
 * value, 0 for the population forms over one value; refused (CANOPY_ERR_OUT_OF_RANGE) when not
 * finite (a NaN or infinite value among two or more, or a spread whose squares pass the double
 * range), as DuckDB refuses it. Values are doubles (int64 beyond
 * 2^53 rounds, as DuckDB's). Missing shards: no
 * guaranteed interval from zone maps is kept, so the cell is approximate and unbounded; with
 * every shard answered, a value whose rounding may pass 1e-10 relative (a large mean against
 * the spread) is approximate too ({@link varianceBounds}).
 * Not monotone under merge: never truncated by top-k.
 */
import { CanopyError } from '../errors.ts';
import { varianceMerge, type VarianceState } from '../kinds/variance.ts';
import { wholeBatchStats } from './kernels.ts';
import type { AggregateFn } from '../types.ts';
import { isValid } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { SMALL_SLOTS, grow, groupAt, rowAt } from './grow.ts';
import { needNumeric } from './sum.ts';
import { MAX_REL_ERROR } from './skew.ts';

/** The refusal of a variance or standard deviation that is not a finite double. */
function outOfRange(fn: AggregateFn): CanopyError {
  return new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `${fn} is out of range: its values include NaN or an infinity, or spread so far that the sum of their squared deviations passes the double range (as DuckDB refuses it)`);
}

function varianceAggregate(fn: AggregateFn, sample: boolean, root: boolean, alias: string): AggregateDef {
  return {
    fn,
    // stddev = stddev_samp, variance = var_samp, as DuckDB.
    call: { names: alias === '' ? [fn] : [fn, alias], args: ['value'] },
    decompose(args) {
      needNumeric(fn, args[0]);
      return { partials: [{ kind: 'variance', arg: args[0]!.expr }], type: 'float64' };
    },
    finalise(e, g) {
      const s = g.states[e.partials[0]!] as VarianceState | null;
      if (s === null || (sample && s.n < 2)) return null;
      // One value has no spread, whatever it is (NaN or an infinity too), as DuckDB's var_pop.
      if (s.n === 1) return 0;
      // A NaN or infinite value among two or more, or a sum of squares past the double range
      // (the values spread too far), has no finite variance: refused, as DuckDB refuses it
      // ("VARSAMP is out of range!"). An overflowed Welford step leaves M2 at -Infinity or NaN,
      // which the clamp below would have turned into 0.
      if (!Number.isFinite(s.m2)) throw outOfRange(fn);
      // M2 is a sum of squares: never negative (rounding in the combine cannot make it so).
      const v = (s.m2 < 0 ? 0 : s.m2) / (sample ? s.n - 1 : s.n);
      if (!Number.isFinite(v)) throw outOfRange(fn);
      return root ? Math.sqrt(v) : v;
    },
    bounds: varianceBounds,
    // Uncertain with every shard answered when ill-conditioned: HAVING / a LIMIT cut over it prove rows only when exact.
    sketch: true,
    topk: null,
  };
}

/**
 * First-order relative rounding error of M2 from Welford's steps and Chan's merges in some
 * order: each step's error is about ε of |δ|·|x − mean|, and |δ| reaches |mean| + spread, so
 * M2 is off by up to 2nε·(M2 + 2|mean|·√(n·M2)) (covar.ts uses the same bound for its M2);
 * 0 for M2 = 0 (equal values: every δ is exactly 0, in any order), Infinity when not finite
 * (then finalise refuses the value anyway).
 */
export function m2RelError(s: VarianceState): number {
  if (s.m2 === 0) return 0;
  if (!Number.isFinite(s.m2) || !Number.isFinite(s.mean)) return Infinity;
  const u = 2 * s.n * Number.EPSILON;
  return u * (1 + 2 * Math.abs(s.mean) * Math.sqrt(s.n / s.m2)) + (4 * s.n * Number.MIN_VALUE) / s.m2;
}

/**
 * Exact when every shard answered (or the missing ones hold no non-NULL value of the
 * argument) and the rounding of M2 ({@link m2RelError}) stays below {@link MAX_REL_ERROR}
 * relative; otherwise approximate with no interval. Values with a large mean against their
 * spread (var_pop(x + 1e15)) leave M2 as rounding noise whose digits depend on the order of
 * additions (the shard split here, DuckDB's threads there): approximate even with every
 * shard answered, as covar/corr and skewness are.
 */
const varianceBounds: AggregateDef['bounds'] = (e, g, layout, env) => {
  const approximate = { label: 'approximate', lo: null, hi: null } as const;
  if (anyMissing(env)) {
    const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
    if (col === null || env.unknown || (env.nonNull.get(col) ?? 1) !== 0) return approximate;
  }
  const s = g.states[e.partials[0]!] as VarianceState | null;
  if (s === null || s.n < 2) return null;
  // NaN is not <=: approximate (a refused value never gets here).
  return m2RelError(s) <= MAX_REL_ERROR ? null : approximate;
};

/**
 * sem(x), the standard error of the mean, as DuckDB 1.5 (StandardErrorOfTheMeanOperation,
 * extension/core_functions/include/core_functions/aggregate/algebraic/stddev.hpp):
 * √(M2/n)/√n from the same `variance` partial, NULL over no value, 0 over one finite value;
 * refused when not finite ("SEM is out of range!": a NaN or an infinity, even alone, or a
 * spread past the double range).
 */
export const semAggregate: AggregateDef = {
  fn: 'sem',
  call: { names: ['sem'], args: ['value'] },
  decompose(args) {
    needNumeric('sem', args[0]);
    return { partials: [{ kind: 'variance', arg: args[0]!.expr }], type: 'float64' };
  },
  finalise(e, g) {
    const s = g.states[e.partials[0]!] as VarianceState | null;
    if (s === null) return null;
    const v = Math.sqrt(s.m2 / s.n) / Math.sqrt(s.n);
    if (!Number.isFinite(v)) throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', 'SEM is out of range! (its values include NaN or an infinity, or spread past the double range; as DuckDB refuses it)');
    return v;
  },
  bounds: varianceBounds,
  sketch: true,
  topk: null,
};

export const varSampAggregate = varianceAggregate('var_samp', true, false, 'variance');
export const varPopAggregate = varianceAggregate('var_pop', false, false, '');
export const stddevSampAggregate = varianceAggregate('stddev_samp', true, true, 'stddev');
export const stddevPopAggregate = varianceAggregate('stddev_pop', false, true, '');

/** Welford's update per row (count, mean, M2 in typed arrays per group; Welford, Technometrics 4(3), 1962). */
function varianceAccumulator(): Accumulator {
  let cnt: Float64Array = new Float64Array(SMALL_SLOTS);
  let mean: Float64Array = new Float64Array(SMALL_SLOTS);
  let m2: Float64Array = new Float64Array(SMALL_SLOTS);
  return {
    update(inputs, sel, gids, n, groups) {
      cnt = grow(cnt, groups);
      mean = grow(mean, groups);
      m2 = grow(m2, groups);
      const v = inputs[0]!;
      if (v.t === 'str') return;
      const stats = v.t === 'num' ? wholeBatchStats(v, sel, gids, n) : null;
      if (stats !== null) {
        // The batch's own (count, mean, M2) from load time, combined as two shards' states are (Chan et al.).
        if (stats.count === 0) return;
        const s = varianceMerge(cnt[0] === 0 ? null : { n: cnt[0]!, mean: mean[0]!, m2: m2[0]! }, { n: stats.count, mean: stats.mean, m2: stats.m2 })!;
        cnt[0] = s.n;
        mean[0] = s.mean;
        m2[0] = s.m2;
        return;
      }
      for (let j = 0; j < n; j++) {
        let x: number;
        if (v.t === 'const') {
          if (typeof v.value !== 'number' && typeof v.value !== 'bigint') return;
          x = Number(v.value);
        } else {
          const i = rowAt(sel, j);
          if (!isValid(v.valid, i)) continue;
          x = Number(v.values[i]!);
        }
        const g = groupAt(gids, j);
        const c = cnt[g]! + 1;
        cnt[g] = c;
        const d = x - mean[g]!;
        const m = mean[g]! + d / c;
        mean[g] = m;
        m2[g]! += d * (x - m);
      }
    },
    state: (g) => ((cnt[g] ?? 0) === 0 ? null : { n: cnt[g]!, mean: mean[g]!, m2: m2[g]! }),
  };
}

export const variancePartial: PartialDef = {
  kind: 'variance',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: () => varianceAccumulator(),
  groupBytes: 24,
};
