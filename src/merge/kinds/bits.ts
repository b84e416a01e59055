import type { StateKind } from './kind.ts';

/**
 * The state of bit_and / bit_or / bit_xor over int64: the operation folded over the group's
 * non-NULL values (a two's complement int64 as a bigint), or null when none. AND, OR and XOR
 * are associative and commutative, so the merge is exact whatever the split and order.
 */
export type BitsState = bigint | null;

/** The bitwise operations. */
export type BitsOp = 'and' | 'or' | 'xor';

/** `a op b` of two int64 values (bigints within the int64 range give an int64). */
export function bitsApply(op: BitsOp, a: bigint, b: bigint): bigint {
  return op === 'and' ? a & b : op === 'or' ? a | b : a ^ b;
}

/** The `bits` kind of `op`: merged with `op`, encoded as an Arrow int64 cell. */
export function bitsKind(op: BitsOp): StateKind<BitsState> {
  return {
    kind: `bit_${op}`,
    argType: 'int64',
    encoding: 'int64',
    empty: () => null,
    merge: (a, b) => (a === null ? b : b === null ? a : bitsApply(op, a, b)),
    finalise: (s) => s,
    encode: (s) => s,
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'bigint' || BigInt.asIntN(64, v) !== v) throw new Error(`bad bit_${op} state ${String(v)}`);
      return v;
    },
    equals: (a, b) => a === b,
  };
}
