/** The HLL partial state: an exact set while small, then sparse or dense registers (HyperLogLog++ layout), and its union (merge) and equality. */
import type { ColumnType } from '../../types.ts';
import { hashDistinct } from './hashing.ts';

/** Precision p: the sketch has 2^p registers. */
export const HLL_PRECISION = 14;
/** Number of registers, m = 2^p. */
export const HLL_REGISTERS = 1 << HLL_PRECISION;
/** Largest exact set; one more distinct value promotes the state to a sketch. */
export const HLL_EXACT_LIMIT = 4096;
/** Most non-zero registers kept sparse (m/4); past it the registers are dense. */
export const HLL_SPARSE_LIMIT = HLL_REGISTERS / 4;
/** Largest register value: 64 - p + 1. */
export const MAX_RHO = 64 - HLL_PRECISION + 1;

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
export function toRegisters(s: { readonly t: 'sparse'; readonly entries: Uint32Array } | { readonly t: 'dense'; readonly registers: Uint8Array }): Uint8Array {
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
