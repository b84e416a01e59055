/**
 * COUNT(DISTINCT col) and approx_count_distinct(col): an exact set of values while small,
 * then a HyperLogLog sketch (Flajolet, Fusy, Gandouet, Meunier 2007) with the sparse-then-
 * dense register layout of HyperLogLog++ (Heule, Nunkesser, Hall, "HyperLogLog in
 * Practice", EDBT 2013).
 *
 * - Exact while the set holds at most {@link HLL_EXACT_LIMIT} distinct values; a set that
 *   grows past it is promoted: every value is hashed into registers.
 * - One fixed hash: xxHash64 (seed 0) of a canonical byte encoding of the value: strings as
 *   UTF-8; int64 as 8 bytes little-endian two's complement; float64 and timestamp (ms) as
 *   the 8 little-endian bytes of the IEEE-754 double, with -0 folded to 0 and every NaN to
 *   the quiet NaN 0x7ff8000000000000.
 * - Precision p = {@link HLL_PRECISION}: m = 2^p registers, index = the top p bits of the
 *   hash, register value = 1 + the leading zeros of the remaining 64 - p bits (1..51).
 * - Sparse (sorted (index, value) entries) while at most m/4 registers are non-zero, dense
 *   (one byte per register) beyond; the layout is a function of the registers alone, so
 *   equal sketches have equal encodings.
 * - Estimator: linear counting m·ln(m/V) while it stays at or below HLL++'s threshold for
 *   p = 14 (11,500; Heule et al., Appendix), else Ertl's improved raw estimator (Ertl, "New
 *   cardinality estimation algorithms for HyperLogLog sketches", arXiv:1702.01284, 2017,
 *   Algorithm 6), which corrects the small- and large-range bias without empirical tables.
 *   Relative standard error σ = 1.04/sqrt(m) ≈ 0.81 %.
 *
 * Merge is a union: set ∪ set (promoted past the limit), set into sketch (hash and
 * insert), sketch ∪ sketch (register-wise max). The merged state is a function of the set
 * of distinct values alone, so merge is commutative, associative and idempotent, empty
 * (null) is its identity, and per-shard merging equals one scan. NULL is not a value; the
 * empty string is.
 */
import { CanopyError } from '../errors.ts';
import type { ColumnType, Scalar } from '../types.ts';
import type { StateKind } from './kind.ts';

/** Precision p: the sketch has 2^p registers. */
export const HLL_PRECISION = 14;
/** Number of registers, m = 2^p. */
export const HLL_REGISTERS = 1 << HLL_PRECISION;
/** Largest exact set; one more distinct value promotes the state to a sketch. */
export const HLL_EXACT_LIMIT = 4096;
/** Most non-zero registers kept sparse (m/4); past it the registers are dense. */
export const HLL_SPARSE_LIMIT = HLL_REGISTERS / 4;
/** Relative standard error of the estimate, 1.04/sqrt(m). */
export const HLL_RELATIVE_STDERR = 1.04 / Math.sqrt(HLL_REGISTERS);
/** Confidence of the reported interval, and its two-sided normal quantile. */
export const HLL_CONFIDENCE = 0.99;
const Z99 = 2.576;
/** Linear counting is used while its estimate is at most this (HLL++, p = 14). */
const LINEAR_COUNTING_THRESHOLD = 11_500;
/** Largest register value: 64 - p + 1. */
const MAX_RHO = 64 - HLL_PRECISION + 1;

/** A value as held in an exact set: strings; int64 as number when |v| < 2^53, else bigint; doubles with -0 as 0. */
export type DistinctValue = string | number | bigint;

/**
 * The state: null (no non-NULL value), an exact set (1..{@link HLL_EXACT_LIMIT} values),
 * or a sketch: sparse entries `index << 6 | value` sorted by index, or dense registers.
 * States are immutable once built.
 */
export type HllState =
  | null
  | { readonly t: 'set'; readonly values: ReadonlySet<DistinctValue> }
  | { readonly t: 'sparse'; readonly entries: Uint32Array }
  | { readonly t: 'dense'; readonly registers: Uint8Array };

// ---------------------------------------------------------------------------------------
// xxHash64 (Yann Collet, https://github.com/Cyan4973/xxHash, doc/xxhash_spec.md), seed 0,
// on 32-bit halves: Math.imul and 16-bit partial products, no BigInt, no allocation.

/**
 * Result of the last 64-bit operation: [high, low] 32 bits. A typed array, because module
 * `let`s holding values beyond 2^30 are boxed on every write (measured: 3-4x slower).
 */
const res = new Uint32Array(2);

const P1H = 0x9e3779b1;
const P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d;
const P2L = 0x27d4eb4f;
const P3H = 0x165667b1;
const P3L = 0x9e3779f9;
const P4H = 0x85ebca77;
const P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f;
const P5L = 0x165667c5;

/** (ah:al) * (bh:bl) mod 2^64 into res. */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  res[1] = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  res[0] = (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** (ah:al) + (bh:bl) mod 2^64 into res (inputs unsigned). */
function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  res[1] = lo >>> 0;
  res[0] = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** Rotate (h:l) left by r (0 < r < 32) into res. */
function rotl(h: number, l: number, r: number): void {
  res[0] = ((h << r) | (l >>> (32 - r))) >>> 0;
  res[1] = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** round(acc, lane) = rotl(acc + lane * P2, 31) * P1, into res. */
function round(ah: number, al: number, lh: number, ll: number): void {
  mul(lh, ll, P2H, P2L);
  add(ah, al, res[0]!, res[1]!);
  rotl(res[0]!, res[1]!, 31);
  mul(res[0]!, res[1]!, P1H, P1L);
}

/** The final avalanche of (h:l) into res. */
function avalanche(h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0; // h ^= h >> 33
  mul(h, l, P2H, P2L);
  h = res[0]!;
  l = (res[1]! ^ ((res[1]! >>> 29) | (res[0]! << 3))) >>> 0; // h ^= h >> 29
  h = (h ^ (h >>> 29)) >>> 0;
  mul(h, l, P3H, P3L);
  res[1] = (res[1]! ^ res[0]!) >>> 0; // h ^= h >> 32
}

/** Mixes one 8-byte lane (kh:kl) into the accumulator (h:l): h ^= round(0, k); h = rotl(h, 27) * P1 + P4. */
function mixLane(h: number, l: number, kh: number, kl: number): void {
  round(0, 0, kh, kl);
  rotl((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, 27);
  mul(res[0]!, res[1]!, P1H, P1L);
  add(res[0]!, res[1]!, P4H, P4L);
}

/**
 * xxHash64 (seed 0) of exactly 8 bytes given as a little-endian 64-bit word `hi:lo`
 * (unsigned 32-bit halves), into `out` as [hi, lo]. The hot path (one call per value at the
 * leaf), written out by hand: five 64-bit products from 16-bit partial products on locals,
 * which stay unboxed (about 50 ns per call, against 150+ through the helpers above).
 */
export function xxh64Word(hi: number, lo: number, out: Uint32Array): void {
  let a0: number, a1: number, p00: number, p01: number, p10: number, mid: number;
  let th: number, tl: number, h: number, l: number;
  // k = lane * P2
  a0 = lo & 0xffff;
  a1 = lo >>> 16;
  p00 = a0 * 0xeb4f;
  p01 = a0 * 0x27d4;
  p10 = a1 * 0xeb4f;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x27d4 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(hi, 0x27d4eb4f) + Math.imul(lo, 0xc2b2ae3d)) >>> 0;
  // k = rotl(k, 31) * P1
  h = ((th << 31) | (tl >>> 1)) >>> 0;
  l = ((tl << 31) | (th >>> 1)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  p00 = a0 * 0xca87;
  p01 = a0 * 0x85eb;
  p10 = a1 * 0xca87;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x85eb + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(h, 0x85ebca87) + Math.imul(l, 0x9e3779b1)) >>> 0;
  // acc = (P5 + 8) ^ k; acc = rotl(acc, 27) * P1 + P4
  h = (0x27d4eb2f ^ th) >>> 0;
  l = (0x165667cd ^ tl) >>> 0;
  th = ((h << 27) | (l >>> 5)) >>> 0;
  tl = ((l << 27) | (h >>> 5)) >>> 0;
  a0 = tl & 0xffff;
  a1 = tl >>> 16;
  p00 = a0 * 0xca87;
  p01 = a0 * 0x85eb;
  p10 = a1 * 0xca87;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  l = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  h = (a1 * 0x85eb + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(th, 0x85ebca87) + Math.imul(tl, 0x9e3779b1)) >>> 0;
  tl = l + 0xc2b2ae63;
  h = (h + 0x85ebca77 + (tl > 0xffffffff ? 1 : 0)) >>> 0;
  l = tl >>> 0;
  // avalanche: acc ^= acc >> 33; acc *= P2; acc ^= acc >> 29; acc *= P3; acc ^= acc >> 32
  l = (l ^ (h >>> 1)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  p00 = a0 * 0xeb4f;
  p01 = a0 * 0x27d4;
  p10 = a1 * 0xeb4f;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x27d4 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(h, 0x27d4eb4f) + Math.imul(l, 0xc2b2ae3d)) >>> 0;
  l = (tl ^ ((tl >>> 29) | (th << 3))) >>> 0;
  h = (th ^ (th >>> 29)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  p00 = a0 * 0x79f9;
  p01 = a0 * 0x9e37;
  p10 = a1 * 0x79f9;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x9e37 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(h, 0x9e3779f9) + Math.imul(l, 0x165667b1)) >>> 0;
  out[0] = th;
  out[1] = (tl ^ th) >>> 0;
}

function read32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/**
 * xxHash64 (seed 0) of a byte string, into `out` as [hi, lo] (unsigned 32-bit halves).
 * Source: the xxHash specification (doc/xxhash_spec.md in Cyan4973/xxHash).
 */
export function xxh64Bytes(b: Uint8Array, out: Uint32Array): void {
  const n = b.length;
  let i = 0;
  let h: number;
  let l: number;
  if (n >= 32) {
    add(P1H, P1L, P2H, P2L);
    let v1h = res[0]!;
    let v1l = res[1]!;
    let v2h = P2H;
    let v2l = P2L;
    let v3h = 0;
    let v3l = 0;
    add(~P1H >>> 0, ~P1L >>> 0, 0, 1); // -P1
    let v4h = res[0]!;
    let v4l = res[1]!;
    for (; i + 32 <= n; i += 32) {
      round(v1h, v1l, read32(b, i + 4), read32(b, i));
      v1h = res[0]!;
      v1l = res[1]!;
      round(v2h, v2l, read32(b, i + 12), read32(b, i + 8));
      v2h = res[0]!;
      v2l = res[1]!;
      round(v3h, v3l, read32(b, i + 20), read32(b, i + 16));
      v3h = res[0]!;
      v3l = res[1]!;
      round(v4h, v4l, read32(b, i + 28), read32(b, i + 24));
      v4h = res[0]!;
      v4l = res[1]!;
    }
    rotl(v1h, v1l, 1);
    h = res[0]!;
    l = res[1]!;
    rotl(v2h, v2l, 7);
    add(h, l, res[0]!, res[1]!);
    h = res[0]!;
    l = res[1]!;
    rotl(v3h, v3l, 12);
    add(h, l, res[0]!, res[1]!);
    h = res[0]!;
    l = res[1]!;
    rotl(v4h, v4l, 18);
    add(h, l, res[0]!, res[1]!);
    h = res[0]!;
    l = res[1]!;
    for (const [vh, vl] of [[v1h, v1l], [v2h, v2l], [v3h, v3l], [v4h, v4l]] as const) {
      round(0, 0, vh, vl);
      mul((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, P1H, P1L);
      add(res[0]!, res[1]!, P4H, P4L);
      h = res[0]!;
      l = res[1]!;
    }
  } else {
    h = P5H;
    l = P5L;
  }
  add(h, l, Math.floor(n / 4294967296) >>> 0, n >>> 0);
  h = res[0]!;
  l = res[1]!;
  for (; i + 8 <= n; i += 8) {
    mixLane(h, l, read32(b, i + 4), read32(b, i));
    h = res[0]!;
    l = res[1]!;
  }
  if (i + 4 <= n) {
    mul(0, read32(b, i), P1H, P1L);
    rotl((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, 23);
    mul(res[0]!, res[1]!, P2H, P2L);
    add(res[0]!, res[1]!, P3H, P3L);
    h = res[0]!;
    l = res[1]!;
    i += 4;
  }
  for (; i < n; i++) {
    mul(0, b[i]!, P5H, P5L);
    rotl((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, 11);
    mul(res[0]!, res[1]!, P1H, P1L);
    h = res[0]!;
    l = res[1]!;
  }
  avalanche(h, l);
  out[0] = res[0]!;
  out[1] = res[1]!;
}

// ---------------------------------------------------------------------------------------
// Canonical values and their hashes

const TWO32 = 4294967296;
const TWO53 = 2 ** 53;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const utf8 = new TextEncoder();

/** The canonical form of a non-NULL value of a column type (see {@link DistinctValue}). */
export function canonicalDistinct(v: Exclude<Scalar, null>): DistinctValue {
  if (typeof v === 'bigint') return v > -TWO53 && v < TWO53 ? Number(v) : v;
  if (typeof v === 'number') return v === 0 ? 0 : v;
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  return v;
}

/** xxHash64 of an int64 given as a double holding an exact integer (|v| < 2^53), into `out`. */
export function hashInt(v: number, out: Uint32Array): void {
  const hi = Math.floor(v / TWO32);
  xxh64Word(hi >>> 0, (v - hi * TWO32) >>> 0, out);
}

/** xxHash64 of a double's canonical bits (-0 as 0, NaN as 0x7ff8000000000000), into `out`. */
export function hashDouble(v: number, out: Uint32Array): void {
  if (v !== v) {
    xxh64Word(0x7ff80000, 0, out);
    return;
  }
  f64[0] = v === 0 ? 0 : v;
  if (LITTLE) xxh64Word(u32[1]!, u32[0]!, out);
  else xxh64Word(u32[0]!, u32[1]!, out);
}

let scratch = new Uint8Array(256);

/** xxHash64 of a string's UTF-8 bytes, into `out`. */
export function hashString(s: string, out: Uint32Array): void {
  if (scratch.length < 3 * s.length) scratch = new Uint8Array(3 * s.length);
  const { written } = utf8.encodeInto(s, scratch);
  xxh64Bytes(scratch.subarray(0, written), out);
}

/**
 * xxHash64 of a canonical value of a column of `type`, into `out` as [hi, lo].
 * int64 values are bigint or number; float64/timestamp numbers; strings strings.
 */
export function hashDistinct(type: ColumnType, v: DistinctValue, out: Uint32Array): void {
  if (typeof v === 'string') hashString(v, out);
  else if (typeof v === 'bigint') {
    const w = BigInt.asUintN(64, v);
    xxh64Word(Number(w >> 32n), Number(w & 0xffffffffn), out);
  } else if (type === 'int64') hashInt(v, out);
  else hashDouble(v, out);
}

/**
 * Records a 64-bit hash `hi:lo` in dense registers: index = top p bits, value = 1 + the
 * leading zeros of the other 64 - p bits, kept as the register's maximum.
 */
export function registerAdd(registers: Uint8Array, hi: number, lo: number): void {
  const idx = hi >>> (32 - HLL_PRECISION);
  const w = hi << HLL_PRECISION;
  const rho = w !== 0 ? Math.clz32(w) + 1 : 32 - HLL_PRECISION + Math.clz32(lo) + 1;
  if (rho > registers[idx]!) registers[idx] = rho;
}

// ---------------------------------------------------------------------------------------
// States

/**
 * The state of a set of canonical values: the set itself while it has at most
 * {@link HLL_EXACT_LIMIT} values (null when empty), else its sketch. Does not keep `values`.
 */
export function hllFromSet(type: ColumnType, values: ReadonlySet<DistinctValue>): HllState {
  if (values.size === 0) return null;
  if (values.size <= HLL_EXACT_LIMIT) return { t: 'set', values };
  const regs = new Uint8Array(HLL_REGISTERS);
  const out = new Uint32Array(2);
  for (const v of values) {
    hashDistinct(type, v, out);
    registerAdd(regs, out[0]!, out[1]!);
  }
  return hllFromRegisters(regs);
}

/** The sketch state of dense registers (copied; sparse when few are non-zero). */
export function hllFromRegisters(registers: Uint8Array): HllState {
  let nonZero = 0;
  for (let i = 0; i < HLL_REGISTERS; i++) if (registers[i] !== 0) nonZero++;
  if (nonZero > HLL_SPARSE_LIMIT) return { t: 'dense', registers: registers.slice() };
  const entries = new Uint32Array(nonZero);
  let k = 0;
  for (let i = 0; i < HLL_REGISTERS; i++) if (registers[i] !== 0) entries[k++] = (i << 6) | registers[i]!;
  return { t: 'sparse', entries };
}

/** Dense registers of a sketch state (a fresh array). */
function toRegisters(s: { readonly t: 'sparse'; readonly entries: Uint32Array } | { readonly t: 'dense'; readonly registers: Uint8Array }): Uint8Array {
  if (s.t === 'dense') return s.registers.slice();
  const regs = new Uint8Array(HLL_REGISTERS);
  for (const e of s.entries) regs[e >>> 6] = e & 63;
  return regs;
}

function mergeSparse(a: Uint32Array, b: Uint32Array): HllState {
  const out = new Uint32Array(a.length + b.length);
  let i = 0;
  let j = 0;
  let k = 0;
  while (i < a.length || j < b.length) {
    const x = a[i];
    const y = b[j];
    if (y === undefined || (x !== undefined && x >>> 6 < y >>> 6)) {
      out[k++] = x!;
      i++;
    } else if (x === undefined || y >>> 6 < x >>> 6) {
      out[k++] = y;
      j++;
    } else {
      out[k++] = x > y ? x : y;
      i++;
      j++;
    }
  }
  if (k <= HLL_SPARSE_LIMIT) return { t: 'sparse', entries: out.slice(0, k) };
  const regs = new Uint8Array(HLL_REGISTERS);
  for (let e = 0; e < k; e++) regs[out[e]! >>> 6] = out[e]! & 63;
  return { t: 'dense', registers: regs };
}

/** Union of two states of one column type (pure; see the module comment). */
export function hllMerge(type: ColumnType, a: HllState, b: HllState): HllState {
  if (a === null) return b;
  if (b === null) return a;
  if (a.t === 'set' && b.t === 'set') {
    const [big, small] = a.values.size >= b.values.size ? [a.values, b.values] : [b.values, a.values];
    let added = 0;
    for (const v of small) if (!big.has(v)) added++;
    if (added === 0) return big === a.values ? a : b;
    const union = new Set(big);
    for (const v of small) union.add(v);
    return hllFromSet(type, union);
  }
  if (a.t === 'set' || b.t === 'set') {
    const [set, sketch] = a.t === 'set' ? [a, b] : [b, a];
    if (set.t !== 'set' || sketch.t === 'set') throw new Error('unreachable');
    const regs = toRegisters(sketch);
    const out = new Uint32Array(2);
    for (const v of set.values) {
      hashDistinct(type, v, out);
      registerAdd(regs, out[0]!, out[1]!);
    }
    return hllFromRegisters(regs);
  }
  if (a.t === 'sparse' && b.t === 'sparse') return mergeSparse(a.entries, b.entries);
  const regs = toRegisters(a);
  if (b.t === 'dense') {
    const r = b.registers;
    for (let i = 0; i < HLL_REGISTERS; i++) if (r[i]! > regs[i]!) regs[i] = r[i]!;
  } else {
    for (const e of b.entries) if ((e & 63) > regs[e >>> 6]!) regs[e >>> 6] = e & 63;
  }
  return { t: 'dense', registers: regs };
}

/**
 * {@link hllMerge} for accumulators: with `aOwned`, adds `b` into `a`'s own set or dense
 * registers instead of copying them, so merging n children into one group copies its state
 * once, not n times. Never mutates `b`; the result is canonical (a set only up to
 * {@link HLL_EXACT_LIMIT} values; dense only above {@link HLL_SPARSE_LIMIT} registers) and
 * equal to `hllMerge(type, a, b)`.
 */
export function hllMergeOwned(type: ColumnType, a: HllState, aOwned: boolean, b: HllState): HllState {
  if (!aOwned || a === null || b === null) return hllMerge(type, a, b);
  if (a.t === 'set' && b.t === 'set') {
    const set = a.values as Set<DistinctValue>;
    for (const v of b.values) set.add(v);
    return set.size <= HLL_EXACT_LIMIT ? a : hllFromSet(type, set);
  }
  if (a.t !== 'dense') return hllMerge(type, a, b);
  const regs = a.registers;
  if (b.t === 'dense') {
    const r = b.registers;
    for (let i = 0; i < HLL_REGISTERS; i++) if (r[i]! > regs[i]!) regs[i] = r[i]!;
  } else if (b.t === 'sparse') {
    for (const e of b.entries) if ((e & 63) > regs[e >>> 6]!) regs[e >>> 6] = e & 63;
  } else {
    const out = new Uint32Array(2);
    for (const v of b.values) {
      hashDistinct(type, v, out);
      registerAdd(regs, out[0]!, out[1]!);
    }
  }
  return a;
}

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

const TAG_SET = 0x53;
const TAG_SPARSE = 0x50;
const TAG_DENSE = 0x44;
const utf8Strict = new TextDecoder('utf-8', { fatal: true });

/** Encodes a non-null state as bytes (see the layout above). */
export function hllEncode(type: ColumnType, s: Exclude<HllState, null>): Uint8Array {
  if (s.t === 'dense') {
    const out = new Uint8Array(2 + HLL_REGISTERS);
    out[0] = TAG_DENSE;
    out[1] = HLL_PRECISION;
    out.set(s.registers, 2);
    return out;
  }
  if (s.t === 'sparse') {
    const out = new Uint8Array(6 + 3 * s.entries.length);
    const dv = new DataView(out.buffer);
    out[0] = TAG_SPARSE;
    out[1] = HLL_PRECISION;
    dv.setUint32(2, s.entries.length, true);
    s.entries.forEach((e, i) => {
      out[6 + 3 * i] = e & 0xff;
      out[7 + 3 * i] = (e >>> 8) & 0xff;
      out[8 + 3 * i] = e >>> 16;
    });
    return out;
  }
  const parts: Uint8Array[] = [];
  let size = 5;
  if (type === 'string') {
    for (const v of s.values) {
      const b = utf8.encode(v as string);
      parts.push(b);
      size += 4 + b.length;
    }
  } else size += 8 * s.values.size;
  const out = new Uint8Array(size);
  const dv = new DataView(out.buffer);
  out[0] = TAG_SET;
  dv.setUint32(1, s.values.size, true);
  let at = 5;
  if (type === 'string') {
    for (const b of parts) {
      dv.setUint32(at, b.length, true);
      out.set(b, at + 4);
      at += 4 + b.length;
    }
  } else {
    for (const v of s.values) {
      if (type === 'int64') dv.setBigInt64(at, BigInt(v), true);
      else dv.setFloat64(at, v as number, true);
      at += 8;
    }
  }
  return out;
}

/**
 * Decodes {@link hllEncode} bytes (null stays null), checking everything: tag, precision,
 * lengths, sorted unique register indexes, register values in 1..51, canonical layout,
 * distinct set values of the right form, valid UTF-8.
 * @throws Error describing the first defect.
 */
export function hllDecode(type: ColumnType, v: unknown): HllState {
  if (v === null) return null;
  if (!(v instanceof Uint8Array) || v.length < 2) throw new Error('bad distinct state: not a byte string');
  const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
  const tag = v[0];
  if (tag === TAG_DENSE || tag === TAG_SPARSE) {
    if (v[1] !== HLL_PRECISION) throw new Error(`bad distinct state: precision ${v[1]}, expected ${HLL_PRECISION}`);
    if (tag === TAG_DENSE) {
      if (v.length !== 2 + HLL_REGISTERS) throw new Error(`bad distinct state: dense sketch of ${v.length - 2} registers`);
      const registers = v.slice(2);
      let nonZero = 0;
      for (const r of registers) {
        if (r > MAX_RHO) throw new Error(`bad distinct state: register value ${r}`);
        if (r !== 0) nonZero++;
      }
      if (nonZero <= HLL_SPARSE_LIMIT) throw new Error('bad distinct state: dense sketch with few registers set (must be sparse)');
      return { t: 'dense', registers };
    }
    if (v.length < 6) throw new Error('bad distinct state: truncated sparse sketch');
    const n = dv.getUint32(2, true);
    if (n === 0 || n > HLL_SPARSE_LIMIT || v.length !== 6 + 3 * n) throw new Error(`bad distinct state: sparse sketch of ${n} entries in ${v.length} bytes`);
    const entries = new Uint32Array(n);
    let last = -1;
    for (let i = 0; i < n; i++) {
      const e = v[6 + 3 * i]! | (v[7 + 3 * i]! << 8) | (v[8 + 3 * i]! << 16);
      const idx = e >>> 6;
      const rho = e & 63;
      if (idx <= last || rho === 0 || rho > MAX_RHO) throw new Error('bad distinct state: sparse entries unsorted or out of range');
      last = idx;
      entries[i] = e;
    }
    return { t: 'sparse', entries };
  }
  if (tag !== TAG_SET || v.length < 5) throw new Error(`bad distinct state: tag ${String(tag)}`);
  const n = dv.getUint32(1, true);
  if (n === 0 || n > HLL_EXACT_LIMIT) throw new Error(`bad distinct state: set of ${n} values`);
  const values = new Set<DistinctValue>();
  let at = 5;
  for (let i = 0; i < n; i++) {
    if (type === 'string') {
      if (at + 4 > v.length) throw new Error('bad distinct state: truncated set');
      const len = dv.getUint32(at, true);
      if (at + 4 + len > v.length) throw new Error('bad distinct state: truncated set');
      values.add(utf8Strict.decode(v.subarray(at + 4, at + 4 + len)));
      at += 4 + len;
    } else {
      if (at + 8 > v.length) throw new Error('bad distinct state: truncated set');
      if (type === 'int64') values.add(canonicalDistinct(dv.getBigInt64(at, true)));
      else {
        const x = dv.getFloat64(at, true);
        if (Object.is(x, -0)) throw new Error('bad distinct state: -0 in a set');
        values.add(x);
      }
      at += 8;
    }
  }
  if (at !== v.length) throw new Error('bad distinct state: trailing bytes');
  if (values.size !== n) throw new Error('bad distinct state: repeated values in a set');
  return { t: 'set', values };
}

function setsEqual(a: ReadonlySet<DistinctValue>, b: ReadonlySet<DistinctValue>): boolean {
  if (a.size !== b.size) return false;
  for (const v of a) if (!b.has(v)) return false;
  return true;
}

function arraysEqual(a: ArrayLike<number>, b: ArrayLike<number>): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/** Structural equality: equal sets, or equal registers. */
export function hllEquals(a: HllState, b: HllState): boolean {
  if (a === null || b === null) return a === b;
  if (a.t === 'set' || b.t === 'set') return a.t === 'set' && b.t === 'set' && setsEqual(a.values, b.values);
  if (a.t !== b.t) return false;
  return a.t === 'dense' ? arraysEqual(a.registers, (b as { registers: Uint8Array }).registers) : arraysEqual(a.entries, (b as { entries: Uint32Array }).entries);
}

/**
 * The distinct-count state kind over a column of `argType` (any stored type): finalises to
 * an int64 count (0 for no non-NULL value), exact while the state is a set.
 * @throws CanopyError CANOPY_ERR_TYPE for bool (not a stored column type).
 */
export function hllKind(argType: ColumnType): StateKind<HllState> {
  if (argType === 'bool') throw new CanopyError('CANOPY_ERR_TYPE', 'count(DISTINCT ...) needs a stored column, not a bool expression');
  return {
    kind: 'hll',
    argType,
    encoding: 'binary',
    empty: () => null,
    merge: (a, b) => hllMerge(argType, a, b),
    mergeOwned: (a, aOwned, b) => hllMergeOwned(argType, a, aOwned, b),
    finalise: (s) => BigInt(hllEstimate(s).value),
    encode: (s) => (s === null ? null : hllEncode(argType, s)),
    decode: (v) => hllDecode(argType, v),
    equals: hllEquals,
  };
}
