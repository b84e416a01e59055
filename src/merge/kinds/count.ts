import type { ColumnType } from '../types.ts';
import type { StateKind } from './kind.ts';

/**
 * Whether a state kind is COUNT(*) or COUNT(col): its states are non-negative integer numbers,
 * merged by addition and encoded as themselves (the typed-column paths rely on all three).
 */
export function isCountKind(kind: { readonly kind: string }): boolean {
  return kind.kind === 'count_star' || kind.kind === 'count';
}

/**
 * Whether a kind's states are numbers merged by addition and encoded as themselves: COUNT and
 * the estimates' `moments` sums. A column of them may be one Float64Array (frames, the leaf's
 * state columns) and the accumulator adds them without a call to `merge`.
 */
export function isNumberSumKind(kind: { readonly kind: string }): boolean {
  return isCountKind(kind) || kind.kind === 'moments';
}

/**
 * COUNT(*) and COUNT(col): the state is the number of rows (non-NULL values for
 * COUNT(col)); exact up to 2^53. Empty is 0, so COUNT over no rows is 0 (SQL).
 */
export function countKind(kind: 'count_star' | 'count', argType: ColumnType | null): StateKind<number> {
  return {
    kind,
    argType,
    encoding: 'float64',
    empty: () => 0,
    merge: (a, b) => a + b,
    finalise: (s) => BigInt(s),
    encode: (s) => s,
    decode(v) {
      if (typeof v !== 'number' || !Number.isInteger(v) || v < 0) throw new Error(`bad count state ${String(v)}`);
      return v;
    },
    equals: (a, b) => a === b,
  };
}
