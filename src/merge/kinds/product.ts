import { float64RecordKind } from './float64-record.ts';
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

/** The `product` kind, encoded as 56 little-endian bytes (the fields as float64, in order). */
export const PRODUCT_KIND: StateKind<ProductState | null> = float64RecordKind<keyof ProductState, ProductState>('product', ['n', 'p', 'zeros', 'infs', 'nans', 'logHi', 'logLo'], productMerge);
