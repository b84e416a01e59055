/** Distinct-count estimates from registers: linear counting below HLL++'s threshold, else Ertl's improved raw estimator (arXiv:1702.01284, Algorithm 6), with the 99 % interval. */
import { HLL_EXACT_LIMIT, HLL_PRECISION, HLL_REGISTERS, type HllState, toRegisters } from './state.ts';

/** Relative standard error of the estimate, 1.04/sqrt(m). */
export const HLL_RELATIVE_STDERR = 1.04 / Math.sqrt(HLL_REGISTERS);
/** Confidence of the reported interval, and its two-sided normal quantile. */
export const HLL_CONFIDENCE = 0.99;
const Z99 = 2.576;
/** Linear counting is used while its estimate is at most this (HLL++, p = 14). */
const LINEAR_COUNTING_THRESHOLD = 11_500;
/** Ertl's σ(x) = x + Σ_{k≥1} x^(2^k) 2^(k-1) (Ertl 2017, Algorithm 6). */
function sigma(x: number): number {
  if (x === 1) return Infinity;
  let y = 1;
  let z = x;
  for (;;) {
    x *= x;
    const prev = z;
    z += x * y;
    y += y;
    if (z === prev) return z;
  }
}

/** Ertl's τ(x) = (1 - x - Σ_{k≥1} (1 - x^(2^-k))^2 2^-k) / 3 (Ertl 2017, Algorithm 6). */
function tau(x: number): number {
  if (x === 0 || x === 1) return 0;
  let y = 1;
  let z = 1 - x;
  for (;;) {
    x = Math.sqrt(x);
    const prev = z;
    y *= 0.5;
    z -= (1 - x) ** 2 * y;
    if (z === prev) return z / 3;
  }
}

/**
 * The cardinality estimate of a sketch's registers (a real number, not rounded): linear
 * counting while at most 11,500 (HLL++'s threshold for p = 14), else Ertl's improved raw
 * estimator α∞·m² / (m·σ(C0/m) + Σ_k C_k 2^-k + m·τ(1 - C_{q+1}/m) 2^-q), α∞ = 1/(2 ln 2).
 */
export function registersEstimate(registers: Uint8Array): number {
  const m = HLL_REGISTERS;
  const q = 64 - HLL_PRECISION;
  const c = new Float64Array(q + 2);
  for (let i = 0; i < m; i++) c[registers[i]!]!++;
  const zeros = c[0]!;
  if (zeros > 0) {
    const lc = m * Math.log(m / zeros);
    if (lc <= LINEAR_COUNTING_THRESHOLD) return lc;
  }
  let z = m * tau(1 - c[q + 1]! / m);
  for (let k = q; k >= 1; k--) z = 0.5 * (z + c[k]!);
  z += m * sigma(zeros / m);
  return (m * m) / (2 * Math.LN2 * z);
}

/**
 * The number of distinct values a state stands for: exact for a set (0 for null), else
 * the sketch's estimate, never below {@link HLL_EXACT_LIMIT} + 1 (a sketch exists only
 * once more values than that were seen).
 */
export function hllCount(s: HllState): number {
  if (s === null) return 0;
  if (s.t === 'set') return s.values.size;
  return Math.max(HLL_EXACT_LIMIT + 1, registersEstimate(toRegisters(s)));
}

/** How far a distinct count can be trusted. */
export interface DistinctEstimate {
  /** The count (rounded estimate for a sketch). */
  readonly value: number;
  /** True while the state is an exact set. */
  readonly exact: boolean;
  /** Lower and upper ends of the 99 % interval (equal to `value` when exact). */
  readonly lo: number;
  readonly hi: number;
  /** Absolute standard error (0 when exact). */
  readonly stderr: number;
}

/**
 * The count of a state and, for a sketch, its 99 % interval estimate ± 2.576·σ·estimate
 * (σ = {@link HLL_RELATIVE_STDERR}), with `lo` clamped to {@link HLL_EXACT_LIMIT} + 1, a
 * count the sketch is known to exceed.
 */
export function hllEstimate(s: HllState): DistinctEstimate {
  const n = hllCount(s);
  if (s === null || s.t === 'set') return { value: n, exact: true, lo: n, hi: n, stderr: 0 };
  const stderr = HLL_RELATIVE_STDERR * n;
  return {
    value: Math.round(n),
    exact: false,
    lo: Math.max(HLL_EXACT_LIMIT + 1, Math.floor(n - Z99 * stderr)),
    hi: Math.ceil(n + Z99 * stderr),
    stderr,
  };
}

// ---------------------------------------------------------------------------------------
// Wire encoding: one Arrow Binary cell per state (null for the empty state).
//   set:    'S', u32 count, values (int64: 8 bytes LE; float64/timestamp: f64 LE;
//           string: u32 byte length + UTF-8)
//   sparse: 'P', u8 p, u32 count, count × 3 bytes LE of (index << 6 | value), by index
//   dense:  'D', u8 p, m bytes (one per register)
