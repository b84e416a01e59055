import { fsumDecode, fsumEncode, fsumMerge, fsumValue, type FloatSum } from '../fsum.ts';
import type { StateKind } from './kind.ts';

/**
 * SUM over int64: the state is the exact sum as a bigint (no 2^53 limit), or null when no
 * non-NULL value was seen (SUM of only NULLs is NULL). Encoded as a decimal string.
 */
export function sumIntKind(): StateKind<bigint | null> {
  return {
    kind: 'sum',
    argType: 'int64',
    encoding: 'utf8',
    empty: () => null,
    merge: (a, b) => (a === null ? b : b === null ? a : a + b),
    finalise: (s) => s,
    encode: (s) => (s === null ? null : s.toString()),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string' || !/^-?\d+$/.test(v)) throw new Error(`bad integer sum state ${String(v)}`);
      return BigInt(v);
    },
    equals: (a, b) => a === b,
  };
}

/**
 * SUM over float64: the state is an exact expansion ({@link FloatSum}), so the merged
 * answer does not depend on shard split or arrival order; null when no non-NULL value.
 */
export function sumFloatKind(): StateKind<FloatSum | null> {
  return {
    kind: 'sum',
    argType: 'float64',
    encoding: 'utf8',
    empty: () => null,
    merge: (a, b) => (a === null ? b : b === null ? a : fsumMerge(a, b)),
    finalise: (s) => (s === null ? null : fsumValue(s)),
    encode: (s) => (s === null ? null : fsumEncode(s)),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string') throw new Error(`bad float sum state ${String(v)}`);
      return fsumDecode(v);
    },
    equals: (a, b) => (a === null || b === null ? a === b : Object.is(fsumValue(a), fsumValue(b))),
  };
}
