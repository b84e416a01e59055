/** Canonical byte encodings of distinct values and their xxHash64: strings as UTF-8, int64 as 8 bytes LE, doubles with -0 folded to 0 and every NaN to the quiet NaN. */
import type { ColumnType, Scalar } from '../../types.ts';
import type { DistinctValue } from './state.ts';
import { xxh64Bytes, xxh64Word } from './xxhash.ts';

const TWO32 = 4294967296;
const TWO53 = 2 ** 53;
const f64 = new Float64Array(1);
const u32 = new Uint32Array(f64.buffer);
const LITTLE = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
export const utf8 = new TextEncoder();

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
