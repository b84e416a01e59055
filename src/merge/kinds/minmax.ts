import type { ColumnType, Scalar } from '../types.ts';
import type { StateEncoding, StateKind } from './kind.ts';

/** Total order on non-NULL scalars of one column type (bigint, number or string). */
export function compareNonNull(a: Exclude<Scalar, null>, b: Exclude<Scalar, null>): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

const ENCODING: Record<ColumnType, StateEncoding> = {
  int64: 'int64',
  float64: 'float64',
  timestamp: 'timestamp',
  string: 'utf8',
  bool: 'utf8',
};

/**
 * MIN / MAX over any column type: the state is the extreme non-NULL value seen, or null.
 * NaN is treated as larger than every number (as in DuckDB and PostgreSQL).
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
    encode: (s) => (typeof s === 'boolean' ? String(s) : s),
    decode(v) {
      if (v === null) return null;
      const ok = argType === 'int64' ? typeof v === 'bigint' : argType === 'string' ? typeof v === 'string' : typeof v === 'number';
      if (!ok) throw new Error(`bad ${kind}(${argType}) state ${String(v)}`);
      return v as Scalar;
    },
    equals: (a, b) => a === b || (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) && Number.isNaN(b)),
  };
}

function cmp(a: Exclude<Scalar, null>, b: Exclude<Scalar, null>): number {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a)) return Number.isNaN(b) ? 0 : 1;
    if (Number.isNaN(b)) return -1;
  }
  return compareNonNull(a, b);
}
