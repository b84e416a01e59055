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
 *
 * Views whose values all lie within ±0x3fff also get a packed view, two rows per 32-bit word
 * in biased 15-bit lanes ({@link packPairs}); COUNT of a range test reads it two rows per
 * operation (SWAR: a lane's top bit holds its comparison, no borrow crosses lanes), or eight
 * rows per 128-bit operation where the packed words sit in the WebAssembly SIMD arena
 * (src/leaf/simd.ts).
 */
import type { CmpOp } from '../merge/index.ts';
import { simdArena, type Placed } from './simd.ts';

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

/** Largest |value| a packed int16-pair view holds (values biased by {@link PAIR_BIAS} fill 15 bits). */
export const PAIR_LIMIT = 0x3fff;

/** Bias of the packed lanes: lane = x + 0x4000, in [1, 0x7fff] for |x| <= {@link PAIR_LIMIT}. */
const PAIR_BIAS = 0x4000;

/**
 * A packed int16-pair view: its words, and where they sit in this thread's SIMD arena
 * (src/leaf/simd.ts) the arena's kernel and their byte offset there (null where there is no
 * arena, or it is full).
 */
interface Packed {
  readonly w: Int32Array;
  readonly placed: Placed | null;
}

/** Packed int16-pair views of int32 views whose every value fits ({@link packPairs}), by int32 view. */
const PAIRS = new WeakMap<Int32Array, Packed>();

/**
 * Packs an int32 view two values per 32-bit word when every value lies within
 * ±{@link PAIR_LIMIT}: word j holds rows 2j (low 16 bits) and 2j + 1 (high), each as
 * `x + 0x4000` (15 bits, so the top bit of each lane is free for SWAR comparisons); an odd
 * last row is not packed. The words go in this thread's SIMD arena when it has room (freed
 * when `v` is collected), else in an array of their own. Registers them for
 * {@link countRange} (which finds them by `v`) and returns true, or returns false (nothing
 * registered) when some value does not fit. Cost: two passes; 2 bytes per row.
 */
export function packPairs(v: Int32Array): boolean {
  for (let i = 0; i < v.length; i++) if (v[i]! > PAIR_LIMIT || v[i]! < -PAIR_LIMIT) return false;
  const words = v.length >> 1;
  const placed = words >= 4 ? (simdArena()?.alloc(words, v) ?? null) : null;
  const out = placed === null ? new Int32Array(words) : placed.words;
  for (let j = 0; j < words; j++) out[j] = (v[2 * j]! + PAIR_BIAS) | ((v[2 * j + 1]! + PAIR_BIAS) << 16);
  PAIRS.set(v, { w: out, placed });
  return true;
}

/** Words per SWAR pass: each 16-bit lane counter stays below 2^16. */
const PAIR_CHUNK = 1 << 15;

/**
 * Lanes `u >= L` over packed words `w[from..to)` (L in [0, 0x8000]): per lane, `(u | 0x8000) - L`
 * is >= 0 (no borrow crosses lanes) and has its top bit set exactly when u >= L; the two top
 * bits of each word are summed as two 16-bit counters in one int.
 */
function pairsAtLeast(w: Int32Array, ll: number, from: number, to: number): number {
  let s = 0;
  for (let j = from; j < to; j++) s += ((((w[j]! | 0x80008000) - ll) | 0) >>> 15) & 0x10001;
  return (s & 0xffff) + (s >>> 16);
}

/**
 * Lanes equal to lane value `c` (in [0, 0x7fff]) over packed words `w[from..to)`: a lane of
 * `w ^ c·0x10001` is 0 exactly there, and `(lane | 0x8000) - 1` then has its top bit clear
 * (no borrow crosses lanes: every `lane | 0x8000` is >= 1).
 */
function pairsEqual(w: Int32Array, cc: number, from: number, to: number): number {
  let s = 0;
  for (let j = from; j < to; j++) s += (((((w[j]! ^ cc) | 0x80008000) - 0x10001) | 0) >>> 15) & 0x10001;
  return 2 * (to - from) - ((s & 0xffff) + (s >>> 16));
}

/**
 * {@link countRange} over a packed view: rows `2·words` of `v`, `lo..hi` clamped to the lanes
 * (exact: every lane lies in [1, 0x7fff]). In the SIMD arena, whole 128-bit vectors (four
 * words) are counted by the WebAssembly kernel and the last words here.
 */
function countPacked(p: Packed, lo: number, hi: number, words: number): number {
  const l = Math.min(Math.max(lo + PAIR_BIAS, 0), 0x8000);
  const h = Math.min(Math.max(hi + 1 + PAIR_BIAS, 0), 0x8000);
  // Rows in [lo, hi] = rows >= lo minus rows >= hi + 1 (lo > hi: l >= h and no row is in range).
  if (l >= h) return 0;
  const a = p.placed;
  if (a === null) return countPairs(p.w, l, h, 0, words);
  const whole = words & ~3;
  return a.count(a.off, whole, l, h) + (whole === words ? 0 : countPairs(p.w, l, h, whole, words));
}

/** Lanes in [l, h) (lane values, 0 <= l < h <= 0x8000) over packed words `w[from..to)`, in chunks whose lane counters cannot overflow. */
function countPairs(w: Int32Array, l: number, h: number, from: number, to: number): number {
  const ll = Math.imul(l, 0x10001);
  const hh = Math.imul(h, 0x10001);
  let m = 0;
  for (let a = from; a < to; a += PAIR_CHUNK) {
    const b = Math.min(to, a + PAIR_CHUNK);
    // One pass for `x = c` and for one-sided ranges (an end past every lane needs none).
    if (h === l + 1) m += pairsEqual(w, ll, a, b);
    else m += (l === 0 ? 2 * (b - a) : pairsAtLeast(w, ll, a, b)) - (h === 0x8000 ? 0 : pairsAtLeast(w, hh, a, b));
  }
  return m;
}

/**
 * Rows i < n of `v` where the range test is TRUE. When `v` has a packed int16-pair view
 * ({@link packPairs}), eight rows per SIMD operation (or two per 32-bit one: SWAR); else one
 * branch-free test per row.
 */
export function countRange(v: Int32Array, r: IntRange, n: number): number {
  const { lo, hi, inside } = r;
  const pairs = PAIRS.get(v);
  if (pairs !== undefined && n <= v.length) {
    let m = countPacked(pairs, lo, hi, n >> 1);
    if ((n & 1) === 1) {
      const x = v[n - 1]!;
      m += ((((x - lo) | (hi - x)) >>> 31) ^ 1);
    }
    return inside === 1 ? m : n - m;
  }
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
  if (xi !== null && inside === 1 && (hi === K_LIMIT || lo === -K_LIMIT)) {
    // One end past every value (`x > c`, `x <= c`): one subtraction's sign bit is the test.
    let s = 0;
    if (hi === K_LIMIT) {
      const l1 = lo - 1;
      for (let i = 0; i < n; i++) {
        const p = (l1 - v[i]!) >>> 31;
        rows += p;
        s = (s + (xi[i]! & -p)) | 0;
      }
    } else {
      const h1 = hi + 1;
      for (let i = 0; i < n; i++) {
        const p = (v[i]! - h1) >>> 31;
        rows += p;
        s = (s + (xi[i]! & -p)) | 0;
      }
    }
    return { rows, sum: s };
  }
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
