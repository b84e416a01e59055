import type { StateKind } from './kind.ts';

/**
 * The state of product(x) over the non-NULL values as doubles, or null when none: the count
 * `n`, the running product `p` (DuckDB's ProductState: multiplied as values and states
 * arrive), and what decides whether the order of multiplication can matter: the counts of
 * zeros, infinities and NaNs, and `logHi` = Σ log2|x| over the finite |x| > 1 and `logLo` =
 * Σ log2|x| over the non-zero |x| < 1 (every partial product, in any order, lies between
 * 2^logLo and 2^logHi in magnitude). Merged by multiplying `p` and adding the rest.
 */
export interface ProductState {
  readonly n: number;
  readonly p: number;
  readonly zeros: number;
  readonly infs: number;
  readonly nans: number;
  readonly logHi: number;
  readonly logLo: number;
}

/** Combines two states (pure). */
export function productMerge(a: ProductState | null, b: ProductState | null): ProductState | null {
  if (a === null) return b;
  if (b === null) return a;
  return { n: a.n + b.n, p: a.p * b.p, zeros: a.zeros + b.zeros, infs: a.infs + b.infs, nans: a.nans + b.nans, logHi: a.logHi + b.logHi, logLo: a.logLo + b.logLo };
}

const FIELDS = ['n', 'p', 'zeros', 'infs', 'nans', 'logHi', 'logLo'] as const;
const BYTES = 8 * FIELDS.length;

/** The `product` kind, encoded as 56 little-endian bytes (the fields as float64, in order). */
export const PRODUCT_KIND: StateKind<ProductState | null> = Object.freeze({
  kind: 'product',
  argType: null,
  encoding: 'binary',
  empty: () => null,
  merge: productMerge,
  finalise: () => null,
  encode(s: ProductState | null): Uint8Array | null {
    if (s === null) return null;
    const out = new Uint8Array(BYTES);
    const dv = new DataView(out.buffer);
    FIELDS.forEach((f, k) => dv.setFloat64(8 * k, s[f], true));
    return out;
  },
  decode(v: unknown): ProductState | null {
    if (v === null) return null;
    if (!(v instanceof Uint8Array) || v.length !== BYTES) throw new Error(`bad product state: expected ${BYTES} bytes`);
    const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
    const [n, p, zeros, infs, nans, logHi, logLo] = FIELDS.map((_f, k) => dv.getFloat64(8 * k, true)) as [number, number, number, number, number, number, number];
    if (!Number.isInteger(n) || n < 1) throw new Error(`bad product state count ${n}`);
    return { n, p, zeros, infs, nans, logHi, logLo };
  },
  equals: (a: ProductState | null, b: ProductState | null) => (a === null || b === null ? a === b : FIELDS.every((f) => Object.is(a[f], b[f]))),
});
