/**
 * product(x) over int64 or float64 (as doubles), a float64, NULL over no value, as DuckDB 1.5
 * (ProductFunction, duckdb/duckdb v1.5.5 extension/core_functions/aggregate/distributive/
 * product.cpp: a running double product). One `product` partial (src/merge/kinds/product.ts).
 *
 * Multiplication rounds, so the last digits depend on the order (relative error below 2nε:
 * 1e-9 up to two million values); and where a partial product may leave the double range the
 * answer itself may: 1e200 · 1e200 · 1e-200 is Infinity in that order and 1e200 in another,
 * in DuckDB too (its threads pick the order). The cell is exact when no order can change it
 * beyond 1e-9: a NaN among the values, or a zero with an infinity (NaN in any order); an
 * infinity when no partial product can underflow (±Infinity); a zero when none can overflow
 * (±0); else when every partial product stays within the normal range (2^±1020) and there are
 * at most two million values. Otherwise `approximate` with no interval, even with every
 * shard answered (`sketch`). With missing shards: exact when they hold no non-NULL x (and the
 * above holds), else approximate. DISTINCT is refused; never truncated by group top-k.
 */
import type { Cell } from '../bounds.ts';
import { CanopyError } from '../errors.ts';
import type { ProductState } from '../kinds/product.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { groupAt, groupColumns, growColumns, numAt, rowAt } from './grow.ts';
import { needNumeric } from './sum.ts';

/** The exponent range (log2) every partial product must stay within for the answer not to depend on the order. */
const SAFE_LOG2 = 1020;
/** The most values whose product's rounding (below 2nε relative) stays within 1e-9. */
const MAX_EXACT_VALUES = 2_000_000;

/** True when no order of multiplication changes the product of `s` beyond 1e-9 relative. */
export function productDeterminate(s: ProductState): boolean {
  if (s.nans > 0 || (s.infs > 0 && s.zeros > 0)) return true;
  if (s.infs > 0) return s.logLo > -SAFE_LOG2;
  if (s.zeros > 0) return s.logHi < SAFE_LOG2;
  return s.logHi < SAFE_LOG2 && s.logLo > -SAFE_LOG2 && s.n <= MAX_EXACT_VALUES;
}

export const productAggregate: AggregateDef = {
  fn: 'product',
  call: { names: ['product'], args: ['value'] },
  decompose(args) {
    needNumeric('product', args[0]);
    if (args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'product() takes one argument');
    return { partials: [{ kind: 'product', arg: args[0]!.expr }], type: 'float64' };
  },
  finalise(e, g) {
    const s = g.states[e.partials[0]!] as ProductState | null;
    return s === null ? null : s.p;
  },
  bounds(e, g, layout, env): Cell | null {
    const approximate: Cell = { label: 'approximate', lo: null, hi: null };
    if (anyMissing(env)) {
      const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
      if (col === null || env.unknown || (env.nonNull.get(col) ?? 1) !== 0) return approximate;
    }
    const s = g.states[e.partials[0]!] as ProductState | null;
    return s === null || productDeterminate(s) ? null : approximate;
  },
  sketch: true,
  topk: null,
};


/** New groups' starting values of the product accumulator's columns (the running product's 1). */
const PRODUCT_IDENTITY = [0, 1];

/** The running product per group, as DuckDB's Operation (state.val *= input in row order), and the classification per value. */
function productAccumulator(): Accumulator {
  // Per group: count, running product (from 1), zeros, infinities, NaNs, logHi, logLo.
  const cols = groupColumns(7, PRODUCT_IDENTITY);
  return {
    update(inputs, sel, gids, n, groups) {
      // A new group's running product starts at 1.
      growColumns(cols, groups, PRODUCT_IDENTITY);
      const [cnt, p, zeros, infs, nans, logHi, logLo] = cols as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      const v = inputs[0]!;
      for (let j = 0; j < n; j++) {
        const x = numAt(v, rowAt(sel, j));
        if (x === null) continue;
        const g = groupAt(gids, j);
        cnt[g]!++;
        p[g]! *= x;
        const a = Math.abs(x);
        if (Number.isNaN(a)) nans[g]!++;
        else if (a === Infinity) infs[g]!++;
        else if (a === 0) zeros[g]!++;
        else if (a > 1) logHi[g]! += Math.log2(a);
        else if (a < 1) logLo[g]! += Math.log2(a);
      }
    },
    state(g) {
      const [cnt, p, zeros, infs, nans, logHi, logLo] = cols as [Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array, Float64Array];
      if ((cnt[g] ?? 0) === 0) return null;
      const s: ProductState = { n: cnt[g]!, p: p[g]!, zeros: zeros[g]!, infs: infs[g]!, nans: nans[g]!, logHi: logHi[g]!, logLo: logLo[g]! };
      return s;
    },
  };
}

export const productPartial: PartialDef = {
  kind: 'product',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: () => productAccumulator(),
  groupBytes: 56,
};
