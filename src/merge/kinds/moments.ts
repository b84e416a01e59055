import type { StateKind } from './kind.ts';

/**
 * The state of a `moments` partial: for one group, sums over the answered shards of products
 * of per-shard values (`Float64Array`, one sum per pair of the spec's `pairs`), or null while
 * no shard holding the group has been merged (every sum 0). A shard's values are its own
 * finalised COUNT or SUM of the group (0 where it lacks the group) and its row count, so these
 * are the second-order sufficient statistics of the ratio estimator (src/merge/estimate.ts);
 * after them come the row-level sums of the spec's `squares` (Σv², Σv³, Σv⁴ over the group's
 * rows); merge adds them all. Plain double sums: an estimate's digits past 1e-12 relative may depend on
 * arrival order (they are far inside its interval).
 */
export type MomentsState = Float64Array | null;

/** The `moments` kind of `width` sums (the spec's pairs), encoded as little-endian float64 bytes. */
export function momentsKind(width: number): StateKind<MomentsState> {
  const merge = (a: MomentsState, b: MomentsState): MomentsState => {
    if (a === null) return b;
    if (b === null) return a;
    const out = new Float64Array(width);
    for (let i = 0; i < width; i++) out[i] = a[i]! + b[i]!;
    return out;
  };
  return {
    kind: 'moments',
    argType: null,
    encoding: 'binary',
    floats: width,
    empty: () => null,
    merge,
    // In place into an accumulator's own state (the same sums, in the same order, as merge).
    mergeOwned(acc, accOwned, b) {
      if (b === null) return acc;
      if (acc === null) return b;
      if (!accOwned) return merge(acc, b);
      for (let i = 0; i < width; i++) acc[i]! += b[i]!;
      return acc;
    },
    finalise: () => null,
    // A state shared outside an accumulator is never changed (merge makes a new one, mergeOwned
    // changes only the accumulator's own copy), so encode can return a view
    // of its bytes: frame writers copy cells as they write them. Typed arrays hold the
    // platform's byte order; like the frame columns this assumes little-endian (x64, arm64).
    encode(s) {
      if (s === null) return null;
      return new Uint8Array(s.buffer, s.byteOffset, 8 * width);
    },
    decode(v) {
      if (v === null) return null;
      if (!(v instanceof Uint8Array) || v.length !== 8 * width) throw new Error(`bad moments state: expected ${8 * width} bytes`);
      // Any double: a SUM over float64 with ±Infinity or NaN gives such sums (no estimate then).
      // An aligned cell is a view of the frame's bytes, like the sketch kinds' binary states (the
      // accumulator never updates a state it did not make: mergeOwned copies it on first merge);
      // an unaligned one is copied byte by byte.
      if (v.byteOffset % 8 === 0) return new Float64Array(v.buffer, v.byteOffset, width);
      const out = new Float64Array(width);
      new Uint8Array(out.buffer).set(v);
      return out;
    },
    equals: (a, b) => (a === null || b === null ? a === b : a.every((x, i) => Object.is(x, b[i]))),
  };
}
