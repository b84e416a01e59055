/**
 * Branch-free comparison kernels over int32 views of int64 columns (NumView.i32, built when
 * a shard is loaded: src/leaf/shard.ts). A comparison `x op c` of an integer column with a
 * constant becomes a range test `x in [lo, hi]` (or its negation), evaluated per row as
 * `((x - lo) | (hi - x)) >>> 31`: the sign bit is set exactly when x lies outside the
 * range. No branch depends on the data, so a selective predicate costs no mispredicted
 * branch per row (the `?:` of a double comparison compiles to one), and the int32 loads are
 * half the bytes of the double view.
 *
 * Exactness: the views hold values within ±{@link I32_LIMIT} = ±(2^30 - 1) and the range
 * ends are clamped to ±2^30 (which keeps every answer: no value reaches them), so
 * `x - lo` and `hi - x` stay within int32 and never wrap.
 */
import type { CmpOp } from '../merge/index.ts';

/** Largest |value| an int32 view holds. */
export const I32_LIMIT = 2 ** 30 - 1;

/** Range ends are clamped to ±K_LIMIT: beyond every value a view holds. */
const K_LIMIT = 2 ** 30;

/**
 * `x op c` over integer x as a range: TRUE where x is in [lo, hi] when `inside` is 1, where it
 * is not when `inside` is 0.
 */
export interface IntRange {
  readonly lo: number;
  readonly hi: number;
  readonly inside: number;
}

function clampK(x: number): number {
  return x < -K_LIMIT ? -K_LIMIT : x > K_LIMIT ? K_LIMIT : x;
}

/**
 * The range form of `x op c` for integer x and a double c (±Infinity allowed), or null for
 * a NaN c (the caller's general path decides those). A non-integer c is exact: `x > 2.5`
 * is `x >= 3`, `x = 2.5` is never TRUE.
 */
export function intRangeOf(op: CmpOp, c: number): IntRange | null {
  if (c !== c) return null;
  let lo = -K_LIMIT;
  let hi = K_LIMIT;
  let inside = 1;
  switch (op) {
    case '>':
      lo = Math.floor(c) + 1;
      break;
    case '>=':
      lo = Math.ceil(c);
      break;
    case '<':
      hi = Math.ceil(c) - 1;
      break;
    case '<=':
      hi = Math.floor(c);
      break;
    case '=':
    case '!=':
      if (Number.isInteger(c)) lo = hi = c;
      else [lo, hi] = [1, 0]; // the empty range: no integer equals c
      inside = op === '=' ? 1 : 0;
      break;
  }
  return { lo: clampK(lo), hi: clampK(hi), inside };
}

/** Rows i < n of `v` where the range test is TRUE. */
export function countRange(v: Int32Array, r: IntRange, n: number): number {
  const { lo, hi, inside } = r;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    m += (((x - lo) | (hi - x)) >>> 31) ^ inside;
  }
  return m;
}

/** The rows i < n where the test is TRUE, into `sel`; returns their count. */
export function selectRange(v: Int32Array, r: IntRange, n: number, sel: Int32Array): number {
  const { lo, hi, inside } = r;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    sel[m] = i;
    m += (((x - lo) | (hi - x)) >>> 31) ^ inside;
  }
  return m;
}

/** Narrows the selected rows `sel[0..n)` in place to those where the test is TRUE; returns their count. */
export function refineRange(v: Int32Array, r: IntRange, sel: Int32Array, n: number): number {
  const { lo, hi, inside } = r;
  let m = 0;
  for (let j = 0; j < n; j++) {
    const i = sel[j]!;
    const x = v[i]!;
    sel[m] = i;
    m += (((x - lo) | (hi - x)) >>> 31) ^ inside;
  }
  return m;
}

/** Tri-state truths (2 TRUE, 0 FALSE) of the test for rows i < n into `out` (NULL rows are the caller's). */
export function triRange(v: Int32Array, r: IntRange, n: number, out: Uint8Array): void {
  const { lo, hi, inside } = r;
  for (let i = 0; i < n; i++) {
    const x = v[i]!;
    out[i] = ((((x - lo) | (hi - x)) >>> 31) ^ inside) << 1;
  }
}

/**
 * The rows i < n where the test is TRUE and the sum of `x` over them (`p · x[i]`, p 0 or 1:
 * exact while the caller keeps n · max|x| below 2^53). With `xi`, the int32 view of `x`
 * (the caller proves n · max|x| < 2^31), the sum is int32 arithmetic: `x & -p`.
 */
export function maskedSumRange(v: Int32Array, r: IntRange, x: Float64Array, xi: Int32Array | null, n: number): { readonly rows: number; readonly sum: number } {
  const { lo, hi, inside } = r;
  let rows = 0;
  if (xi !== null) {
    let s = 0;
    for (let i = 0; i < n; i++) {
      const y = v[i]!;
      const p = (((y - lo) | (hi - y)) >>> 31) ^ inside;
      rows += p;
      s = (s + (xi[i]! & -p)) | 0;
    }
    return { rows, sum: s };
  }
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const y = v[i]!;
    const p = (((y - lo) | (hi - y)) >>> 31) ^ inside;
    rows += p;
    sum += p * x[i]!;
  }
  return { rows, sum };
}
