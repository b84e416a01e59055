/**
 * SUM(DISTINCT x) and AVG(DISTINCT x) over int64 or float64: they read COUNT(DISTINCT x)'s
 * `hll` partial (shared with it when both are selected), whose state is the exact set of the
 * group's distinct values while it holds at most HLL_EXACT_LIMIT (4,096) of them. Over the
 * exact set the sum is exact (int64: a bigint, int128 out as DuckDB's HUGEINT; float64: an
 * exact expansion, src/merge/fsum.ts); AVG(DISTINCT) is that sum over the set's size.
 * Past the limit the state is a HyperLogLog sketch, which knows no values: the query is
 * refused (CANOPY_ERR_LIMIT) rather than answered with a number nobody can bound. Values are
 * distinct as in GROUP BY: -0.0 = 0.0, NaN = NaN.
 * With missing shards the new distinct values are a subset of their rows, so SUM bounds as
 * SUM (src/merge/aggregates/sum.ts) and AVG as AVG (a mix of the seen mean and the missing
 * shards' extremes).
 */
import { CanopyError } from '../errors.ts';
import { fsumAdd, fsumEmpty, fsumValue } from '../fsum.ts';
import { HLL_EXACT_LIMIT, type HllState } from '../kinds/hll/index.ts';
import type { GroupEntry, PartialLayout } from '../partial.ts';
import type { Scalar } from '../types.ts';
import type { AggExpr, AggregateDef } from './aggregate.ts';
import { meanBounds } from './avg.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { needNumeric, sumBounds } from './sum.ts';

/** Sum and size of the group's exact distinct set, or null when it has no value. @throws CanopyError CANOPY_ERR_LIMIT past the exact set */
function distinctSum(fn: string, e: AggExpr, g: GroupEntry, layout: PartialLayout): { sum: bigint | number; size: number } | null {
  const p = e.partials[0]!;
  const s = g.states[p] as HllState;
  if (s === null) return null;
  if (s.t !== 'set') {
    const arg = layout.plan.partials[p]!.arg;
    const what = arg?.kind === 'col' ? arg.name : 'its argument';
    throw new CanopyError('CANOPY_ERR_LIMIT', `${fn}(DISTINCT ${what}): a group holds more than ${HLL_EXACT_LIMIT.toLocaleString('en-US')} distinct values, past which canopy keeps a HyperLogLog sketch and no values to sum; narrow the groups or the WHERE clause, or use ${fn}(${what})`);
  }
  if (layout.kinds[p]!.argType === 'int64') {
    let sum = 0n;
    for (const v of s.values) sum += BigInt(v);
    return { sum, size: s.values.size };
  }
  const f = fsumEmpty();
  for (const v of s.values) fsumAdd(f, v as number);
  return { sum: fsumValue(f), size: s.values.size };
}

export const sumDistinctAggregate: AggregateDef = {
  fn: 'sum_distinct',
  decompose(args) {
    needNumeric('sum(DISTINCT)', args[0]);
    const arg = args[0]!;
    return { partials: [{ kind: 'hll', arg: arg.expr }], type: arg.type === 'int64' ? 'int128' : 'float64' };
  },
  finalise: (e, g, layout): Scalar => distinctSum('sum', e, g, layout)?.sum ?? null,
  bounds(e, g, layout, env) {
    if (!anyMissing(env)) return null;
    return sumBounds(sumDistinctAggregate.finalise(e, g, layout), argColumn(layout.plan.partials[e.partials[0]!]!.arg), env);
  },
  sketch: false,
  topk: null,
};

export const avgDistinctAggregate: AggregateDef = {
  fn: 'avg_distinct',
  decompose(args) {
    needNumeric('avg(DISTINCT)', args[0]);
    return { partials: [{ kind: 'hll', arg: args[0]!.expr }], type: 'float64' };
  },
  finalise(e, g, layout) {
    const d = distinctSum('avg', e, g, layout);
    return d === null ? null : Number(d.sum) / d.size;
  },
  bounds(e, g, layout, env) {
    if (!anyMissing(env)) return null;
    const size = distinctSum('avg', e, g, layout)?.size ?? 0;
    return meanBounds(avgDistinctAggregate.finalise(e, g, layout), argColumn(layout.plan.partials[e.partials[0]!]!.arg), env, { seen: size, int: layout.kinds[e.partials[0]!]!.argType === 'int64' });
  },
  sketch: false,
  topk: null,
};
