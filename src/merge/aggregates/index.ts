/**
 * The aggregate registry: one definition per aggregate (src/merge/aggregates/<name>.ts) and
 * one leaf accumulator per partial kind. Planner (src/root/sql/aggregates.ts), leaf
 * (src/leaf/groupby.ts), bounds, top-k rules and the finaliser look aggregates up here
 * instead of switching on their kind. Adding an aggregate: its file, plus a line below.
 */
import { CanopyError } from '../errors.ts';
import type { AggregateFn, PartialSpec } from '../types.ts';
import type { AggregateDef, PartialDef } from './aggregate.ts';
import { anyValueAggregate } from './any-value.ts';
import { argMaxAggregate, argMaxPartial, argMinAggregate, argMinPartial } from './argext.ts';
import { avgAggregate, favgAggregate, fsumAggregate, geomeanAggregate, weightedAvgAggregate } from './avg.ts';
import { bitAndAggregate, bitAndPartial, bitOrAggregate, bitOrPartial, bitXorAggregate, bitXorDistinctAggregate, bitXorPartial } from './bits.ts';
import { boolAndAggregate, boolOrAggregate, countIfAggregate } from './bool.ts';
import { countAggregate, countPartial, countStarPartial } from './count.ts';
import { countDistinctAggregate, hllPartial } from './count-distinct.ts';
import {
  comomentPartial,
  corrAggregate,
  covarPopAggregate,
  covarSampAggregate,
  regrAvgxAggregate,
  regrAvgyAggregate,
  regrCountAggregate,
  regrInterceptAggregate,
  regrR2Aggregate,
  regrSlopeAggregate,
  regrSxxAggregate,
  regrSxyAggregate,
  regrSyyAggregate,
} from './covar.ts';
import { argMaxNullAggregate, argMaxNullPartial, argMaxNullsLastAggregate, argMinNullAggregate, argMinNullPartial, argMinNullsLastAggregate } from './arg-null.ts';
import { firstAggregate, lastAggregate, uniformPartial } from './first-last.ts';
import { stringAggAggregate, stringListPartial } from './string-agg.ts';
import { maxAggregate, maxPartial, minAggregate, minPartial } from './minmax.ts';
import { momentsPartial } from './moments.ts';
import { ddsketchPartial, quantileAggregate } from './quantile.ts';
import { entropyAggregate, madAggregate, medianAggregate, modeAggregate, quantileContAggregate, quantileDiscAggregate, valueCountsPartial } from './exact-quantile.ts';
import { stringCountsPartial } from './string-counts.ts';
import { productAggregate, productPartial } from './product.ts';
import { kurtosisAggregate, kurtosisPopAggregate, powerSumsPartial, skewnessAggregate } from './skew.ts';
import { sumAggregate, sumPartial } from './sum.ts';
import { avgDistinctAggregate, sumDistinctAggregate } from './sum-distinct.ts';
import { semAggregate, stddevPopAggregate, stddevSampAggregate, varPopAggregate, varSampAggregate, variancePartial } from './variance.ts';

export type { Accumulator, AggArg, AggExpr, AggregateDef, CallOptions, CallSyntax, Decomposition, PartialDef, TopKRule } from './aggregate.ts';
export { argColumn, envelope, partialColumns, slack, type Envelope } from './envelope.ts';
export { canonicalExpr } from './canonical.ts';

/** Every aggregate, by the function name of OutExpr `agg` nodes. */
export const AGGREGATES: Readonly<Record<AggregateFn, AggregateDef>> = Object.freeze({
  count: countAggregate,
  sum: sumAggregate,
  min: minAggregate,
  max: maxAggregate,
  avg: avgAggregate,
  count_distinct: countDistinctAggregate,
  quantile: quantileAggregate,
  median: medianAggregate,
  quantile_cont: quantileContAggregate,
  quantile_disc: quantileDiscAggregate,
  mode: modeAggregate,
  entropy: entropyAggregate,
  count_if: countIfAggregate,
  bool_and: boolAndAggregate,
  bool_or: boolOrAggregate,
  var_samp: varSampAggregate,
  var_pop: varPopAggregate,
  stddev_samp: stddevSampAggregate,
  stddev_pop: stddevPopAggregate,
  arg_min: argMinAggregate,
  arg_max: argMaxAggregate,
  any_value: anyValueAggregate,
  sum_distinct: sumDistinctAggregate,
  avg_distinct: avgDistinctAggregate,
  covar_pop: covarPopAggregate,
  covar_samp: covarSampAggregate,
  corr: corrAggregate,
  regr_count: regrCountAggregate,
  regr_avgx: regrAvgxAggregate,
  regr_avgy: regrAvgyAggregate,
  regr_sxx: regrSxxAggregate,
  regr_syy: regrSyyAggregate,
  regr_sxy: regrSxyAggregate,
  regr_slope: regrSlopeAggregate,
  regr_intercept: regrInterceptAggregate,
  regr_r2: regrR2Aggregate,
  skewness: skewnessAggregate,
  kurtosis: kurtosisAggregate,
  kurtosis_pop: kurtosisPopAggregate,
  bit_and: bitAndAggregate,
  bit_or: bitOrAggregate,
  bit_xor: bitXorAggregate,
  sem: semAggregate,
  geomean: geomeanAggregate,
  weighted_avg: weightedAvgAggregate,
  fsum: fsumAggregate,
  favg: favgAggregate,
  product: productAggregate,
  first: firstAggregate,
  last: lastAggregate,
  string_agg: stringAggAggregate,
  arg_min_null: argMinNullAggregate,
  arg_max_null: argMaxNullAggregate,
  arg_min_nulls_last: argMinNullsLastAggregate,
  arg_max_nulls_last: argMaxNullsLastAggregate,
  bit_xor_distinct: bitXorDistinctAggregate,
  mad: madAggregate,
});

/** The leaf side of every partial kind. */
export const PARTIAL_DEFS: Readonly<Record<PartialSpec['kind'], PartialDef>> = Object.freeze({
  count_star: countStarPartial,
  count: countPartial,
  sum: sumPartial,
  min: minPartial,
  max: maxPartial,
  hll: hllPartial,
  ddsketch: ddsketchPartial,
  moments: momentsPartial,
  variance: variancePartial,
  arg_min: argMinPartial,
  arg_max: argMaxPartial,
  comoment: comomentPartial,
  power_sums: powerSumsPartial,
  bit_and: bitAndPartial,
  bit_or: bitOrPartial,
  bit_xor: bitXorPartial,
  product: productPartial,
  value_counts: valueCountsPartial,
  string_counts: stringCountsPartial,
  uniform: uniformPartial,
  string_list: stringListPartial,
  arg_min_null: argMinNullPartial,
  arg_max_null: argMaxNullPartial,
});

/** Aggregates called as plain functions, by every SQL name (lower case) in their {@link CallSyntax}. */
export const CALL_AGGREGATES: ReadonlyMap<string, AggregateDef> = new Map(
  Object.values(AGGREGATES).flatMap((def) => (def.call?.names ?? []).map((name) => [name, def] as const)),
);

/**
 * The definition of aggregate `fn`.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for an unknown name (the message lists the known ones)
 */
export function aggregateDef(fn: string): AggregateDef {
  const def = Object.hasOwn(AGGREGATES, fn) ? AGGREGATES[fn as AggregateFn] : undefined;
  if (def === undefined) throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `unknown aggregate '${fn}'; known: ${Object.keys(AGGREGATES).join(', ')}`);
  return def;
}

/**
 * The leaf side of partial kind `kind`.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for an unknown kind (the message lists the known ones)
 */
export function partialDef(kind: string): PartialDef {
  const def = Object.hasOwn(PARTIAL_DEFS, kind) ? PARTIAL_DEFS[kind as PartialSpec['kind']] : undefined;
  if (def === undefined) throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `unknown partial kind '${kind}'; known: ${Object.keys(PARTIAL_DEFS).join(', ')}`);
  return def;
}
