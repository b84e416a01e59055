import { fsumDecode, fsumEncode, fsumMerge, fsumValue, type FloatSum } from '../fsum.ts';
import type { StateKind } from './kind.ts';

/**
 * SUM over int64: the state is the exact sum, a number while it is a safe integer (|s| < 2^53:
 * no bigint per group on the common path) and a bigint beyond (no 2^53 limit), or null when no
 * non-NULL value was seen (SUM of only NULLs is NULL). Finalises to a bigint either way.
 * Encoded as a decimal string.
 */
export type IntSum = number | bigint | null;

export function sumIntKind(): StateKind<IntSum> {
  return {
    kind: 'sum',
    argType: 'int64',
    encoding: 'utf8',
    empty: () => null,
    merge: intSumMerge,
    finalise: (s) => (typeof s === 'number' ? BigInt(s) : s),
    encode: (s) => (s === null ? null : String(s)),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string') throw new Error(`bad integer sum state ${String(v)}`);
      const n = shortInteger(v);
      if (n !== null) return n;
      if (!/^-?\d+$/.test(v)) throw new Error(`bad integer sum state ${v}`);
      return BigInt(v);
    },
    equals: (a, b) => (a === null || b === null ? a === b : typeof a === typeof b ? a === b : BigInt(a) === BigInt(b)),
  };
}

/** Adds two int64 sums: in doubles while the result is a safe integer (then exact), else as bigints. */
function intSumMerge(a: IntSum, b: IntSum): IntSum {
  if (a === null) return b;
  if (b === null) return a;
  if (typeof a === 'number' && typeof b === 'number') {
    const s = a + b;
    if (Number.isSafeInteger(s)) return s;
  }
  return BigInt(a) + BigInt(b);
}

/**
 * The value of a decimal string `-?\d+` of at most 15 digits (always a safe integer), or null
 * for anything else (longer, empty, another character: the caller checks those). "-0" is 0.
 */
function shortInteger(v: string): number | null {
  const len = v.length;
  const neg = len > 0 && v.charCodeAt(0) === 45;
  const from = neg ? 1 : 0;
  if (len === from || len - from > 15) return null;
  let x = 0;
  for (let i = from; i < len; i++) {
    const d = v.charCodeAt(i) - 48;
    if (d < 0 || d > 9) return null;
    x = x * 10 + d;
  }
  return neg ? 0 - x : x;
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
