/** The `hll` partial-state kind (COUNT(DISTINCT), approx_count_distinct) over the state, estimator and codec. */
import { CanopyError } from '../../errors.ts';
import type { ColumnType } from '../../types.ts';
import type { StateKind } from '../kind.ts';
import { hllDecode, hllEncode } from './codec.ts';
import { hllEstimate } from './estimator.ts';
import { hllEquals, hllMerge, hllMergeOwned, type HllState } from './state.ts';

/**
 * The distinct-count state kind over a column of `argType` (any stored type): finalises to
 * an int64 count (0 for no non-NULL value), exact while the state is a set.
 * @throws CanopyError CANOPY_ERR_TYPE for bool (not a stored column type).
 */
export function hllKind(argType: ColumnType): StateKind<HllState> {
  if (argType === 'bool') throw new CanopyError('CANOPY_ERR_TYPE', 'count(DISTINCT ...) needs a stored column, not a bool expression');
  return {
    kind: 'hll',
    argType,
    encoding: 'binary',
    empty: () => null,
    merge: (a, b) => hllMerge(argType, a, b),
    mergeOwned: (a, aOwned, b) => hllMergeOwned(argType, a, aOwned, b),
    finalise: (s) => BigInt(hllEstimate(s).value),
    encode: (s) => (s === null ? null : hllEncode(argType, s)),
    decode: (v) => hllDecode(argType, v),
    equals: hllEquals,
  };
}
