import { CanopyError } from '../errors.ts';
import type { ColumnType, PartialSpec } from '../types.ts';
import { argExtKind } from './argext.ts';
import { argNullKind } from './arg-null.ts';
import { bitsKind } from './bits.ts';
import { COMOMENT_KIND } from './comoment.ts';
import { POWER_SUMS_KIND } from './power-sums.ts';
import { PRODUCT_KIND } from './product.ts';
import { countKind, isCountKind, isNumberSumKind } from './count.ts';
import { ddsketchKind } from './ddsketch.ts';
import { valueCountsKind } from './value-counts.ts';
import { stringCountsKind } from './string-counts.ts';
import { hllKind } from './hll/index.ts';
import { stringListKind } from './string-list.ts';
import { uniformKind } from './uniform.ts';
import type { StateKind } from './kind.ts';
import { minMaxKind } from './minmax.ts';
import { MOMENTS_KIND } from './moments.ts';
import { sumFloatKind, sumIntKind } from './sum.ts';
import { varianceKind } from './variance.ts';

export type { StateKind, StateEncoding } from './kind.ts';
export { compareNonNull } from './minmax.ts';
export { isCountKind, isNumberSumKind };
export type { MomentsState } from './moments.ts';
export { argExtBetter, type ArgExtState } from './argext.ts';
export { varianceMerge, type VarianceState } from './variance.ts';
export { comomentMerge, type ComomentState } from './comoment.ts';
export { powerSumsMerge, type PowerSumsState } from './power-sums.ts';
export { productMerge, type ProductState } from './product.ts';

/** Names of the partial kinds this build knows. */
export const PARTIAL_KINDS: readonly PartialSpec['kind'][] = Object.freeze(['count_star', 'count', 'sum', 'min', 'max', 'hll', 'ddsketch', 'moments', 'variance', 'arg_min', 'arg_max', 'comoment', 'power_sums', 'bit_and', 'bit_or', 'bit_xor', 'product', 'value_counts', 'string_counts', 'uniform', 'string_list', 'arg_min_null', 'arg_max_null']);

/**
 * The state kind for a partial over an argument of `argType`.
 * @throws CanopyError CANOPY_ERR_TYPE when the kind does not apply to the type,
 *   CANOPY_ERR_UNSUPPORTED for an unknown kind (message lists the known ones).
 */
export function resolveKind(spec: PartialSpec, argType: ColumnType | null): StateKind<unknown> {
  switch (spec.kind) {
    case 'count_star':
      return countKind('count_star', null) as StateKind<unknown>;
    case 'count':
      return countKind('count', argType) as StateKind<unknown>;
    case 'sum':
      if (argType === 'int64') return sumIntKind() as StateKind<unknown>;
      if (argType === 'float64') return sumFloatKind() as StateKind<unknown>;
      throw new CanopyError('CANOPY_ERR_TYPE', `sum(${spec.arg?.kind === 'col' ? spec.arg.name : 'expression'}) needs a numeric argument, not ${argType ?? 'none'}`);
    case 'min':
    case 'max':
      if (argType === null) throw new CanopyError('CANOPY_ERR_TYPE', `${spec.kind} needs a column`);
      return minMaxKind(spec.kind, argType);
    case 'hll':
      if (argType === null) throw new CanopyError('CANOPY_ERR_TYPE', 'count(DISTINCT ...) needs a column');
      return hllKind(argType) as StateKind<unknown>;
    case 'ddsketch':
      return ddsketchKind(argType) as StateKind<unknown>;
    case 'value_counts':
      return valueCountsKind(argType) as StateKind<unknown>;
    case 'string_counts':
      return stringCountsKind(argType) as StateKind<unknown>;
    case 'arg_min_null':
    case 'arg_max_null':
      return argNullKind(spec.kind, argType) as StateKind<unknown>;
    case 'uniform':
      return uniformKind(argType) as StateKind<unknown>;
    case 'string_list':
      return stringListKind(argType, spec.order ?? []) as StateKind<unknown>;
    case 'variance':
      if (argType !== 'int64' && argType !== 'float64') throw new CanopyError('CANOPY_ERR_TYPE', `variance needs a numeric argument, not ${argType ?? 'none'}`);
      return varianceKind(argType) as StateKind<unknown>;
    case 'moments':
      // Its pair or power is checked against the plan's partials by layoutOf (checkMomentsSpec).
      return MOMENTS_KIND as StateKind<unknown>;
    case 'arg_min':
    case 'arg_max':
      return argExtKind(spec.kind, argType) as StateKind<unknown>;
    case 'comoment':
      if (argType !== 'int64' && argType !== 'float64') throw new CanopyError('CANOPY_ERR_TYPE', `a covariance or regression needs numeric arguments, not ${argType ?? 'none'}`);
      return COMOMENT_KIND as StateKind<unknown>;
    case 'power_sums':
      if (argType !== 'int64' && argType !== 'float64') throw new CanopyError('CANOPY_ERR_TYPE', `skewness and kurtosis need a numeric argument, not ${argType ?? 'none'}`);
      return POWER_SUMS_KIND as StateKind<unknown>;
    case 'product':
      if (argType !== 'int64' && argType !== 'float64') throw new CanopyError('CANOPY_ERR_TYPE', `product needs a numeric argument, not ${argType ?? 'none'}`);
      return PRODUCT_KIND as StateKind<unknown>;
    case 'bit_and':
    case 'bit_or':
    case 'bit_xor':
      if (argType !== 'int64') throw new CanopyError('CANOPY_ERR_TYPE', `${spec.kind} needs an int64 argument, not ${argType ?? 'none'}`);
      return bitsKind(spec.kind === 'bit_and' ? 'and' : spec.kind === 'bit_or' ? 'or' : 'xor') as StateKind<unknown>;
    default:
      throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `unknown partial kind '${String((spec as { kind: unknown }).kind)}'; known: ${PARTIAL_KINDS.join(', ')}`);
  }
}
export { STRING_LIST_BUDGET, stringListKind, stringListOf, stringListMerge, type ListOrder, type StringList } from './string-list.ts';
export { uniformAdd, uniformKind, uniformMerge, type UniformState } from './uniform.ts';
export { argNullAdd, argNullMerge, argNullKind, type ArgNullState } from './arg-null.ts';
export { argExtKind, argExtMerge } from './argext.ts';
