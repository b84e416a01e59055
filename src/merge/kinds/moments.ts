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
  return {
    kind: 'moments',
    argType: null,
    encoding: 'binary',
    empty: () => null,
    merge(a, b) {
      if (a === null) return b;
      if (b === null) return a;
      const out = new Float64Array(width);
      for (let i = 0; i < width; i++) out[i] = a[i]! + b[i]!;
      return out;
    },
    finalise: () => null,
    encode(s) {
      if (s === null) return null;
      const out = new Uint8Array(8 * width);
      const dv = new DataView(out.buffer);
      for (let i = 0; i < width; i++) dv.setFloat64(8 * i, s[i]!, true);
      return out;
    },
    decode(v) {
      if (v === null) return null;
      if (!(v instanceof Uint8Array) || v.length !== 8 * width) throw new Error(`bad moments state: expected ${8 * width} bytes`);
      const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
      const out = new Float64Array(width);
      // Any double: a SUM over float64 with ±Infinity or NaN gives such sums (no estimate then).
      for (let i = 0; i < width; i++) out[i] = dv.getFloat64(8 * i, true);
      return out;
    },
    equals: (a, b) => (a === null || b === null ? a === b : a.every((x, i) => Object.is(x, b[i]))),
  };
}
