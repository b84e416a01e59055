import type { ColumnType, Scalar } from '../types.ts';
import { compareValues } from '../compare.ts';
import type { StateEncoding, StateKind } from './kind.ts';

/** Total order on non-NULL scalars of one column type: {@link compareValues}. */
export const compareNonNull = compareValues;

const ENCODING: Record<ColumnType, StateEncoding> = {
  int64: 'int64',
  float64: 'float64',
  timestamp: 'timestamp',
  date: 'timestamp',
  string: 'utf8',
  bool: 'utf8',
  int128: 'utf8',
};

/**
 * MIN / MAX over any column type: the state is the extreme non-NULL value seen, or null.
 * Values compare as in {@link compareValues} (NaN above every number, strings by code point).
 */
export function minMaxKind(kind: 'min' | 'max', argType: ColumnType): StateKind<Scalar> {
  const better = kind === 'min' ? (a: Exclude<Scalar, null>, b: Exclude<Scalar, null>) => cmp(a, b) < 0 : (a: Exclude<Scalar, null>, b: Exclude<Scalar, null>) => cmp(a, b) > 0;
  return {
    kind,
    argType,
    encoding: ENCODING[argType],
    empty: () => null,
    merge: (a, b) => (a === null ? b : b === null ? a : better(b, a) ? b : a),
    finalise: (s) => s,
    // An int128 (HUGEINT) travels as its decimal digits (Utf8), read back as a bigint. A
    // BOOLEAN (a condition the leaf scans as 0 / 1, or a literal true / false) as 'true' /
    // 'false', read back as 1 / 0: the order of false and true, the number the leaf's states are.
    encode: (s) => (s === null ? null : argType === 'bool' ? (s === true || s === 1 ? 'true' : 'false') : argType === 'int128' || typeof s === 'boolean' ? String(s) : s),
    decode(v) {
      if (v === null) return null;
      if (argType === 'bool') {
        if (v !== 'true' && v !== 'false') throw new Error(`bad ${kind}(bool) state ${String(v)}`);
        return v === 'true' ? 1 : 0;
      }
      if (argType === 'int128') {
        if (typeof v !== 'string' || !/^-?\d{1,39}$/.test(v)) throw new Error(`bad ${kind}(int128) state ${String(v)}`);
        return BigInt(v);
      }
      const ok = argType === 'int64' ? typeof v === 'bigint' : argType === 'string' ? typeof v === 'string' : typeof v === 'number';
      if (!ok) throw new Error(`bad ${kind}(${argType}) state ${String(v)}`);
      return v as Scalar;
    },
    equals: (a, b) => Object.is(a, b),
  };
}

/**
 * compareValues, with -0.0 below 0.0 as a tie-break only: MIN over {0.0, -0.0} is -0.0 and
 * MAX is 0.0 whatever the shard split and arrival order (the values compare equal in SQL).
 */
function cmp(a: Exclude<Scalar, null>, b: Exclude<Scalar, null>): number {
  const c = compareValues(a, b);
  if (c !== 0 || a !== 0 || b !== 0) return c;
  return Object.is(a, -0) ? (Object.is(b, -0) ? 0 : -1) : Object.is(b, -0) ? 1 : 0;
}
