/**
 * The row hash used by hash partitioning. A row is encoded column by column: 0x00 for
 * NULL, else 0x01 followed by the value: int64 as 8 bytes little-endian two's complement,
 * float64 and timestamp (ms) as 8 bytes little-endian IEEE-754 (-0 as 0, one NaN), string
 * as its UTF-8 bytes and a 0xFF terminator (a byte UTF-8 never uses). The hash is
 * 32-bit FNV-1a of that encoding followed by MurmurHash3's fmix32 finaliser (so the low
 * bits mix well for `mod N`). Deterministic across runs and hosts.
 */
import type { ColumnType, Scalar } from '../merge/types.ts';
import type { ColumnVec } from './columns.ts';

const FNV_OFFSET = 0x811c9dc5;
const FNV_PRIME = 0x01000193;

/** MurmurHash3 fmix32. */
export function fmix32(h: number): number {
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  h ^= h >>> 13;
  h = Math.imul(h, 0xc2b2ae35);
  h ^= h >>> 16;
  return h >>> 0;
}

const scratchF = new Float64Array(1);
const scratchB = new BigInt64Array(scratchF.buffer);
const scratchU8 = new Uint8Array(scratchF.buffer);
const littleEndian = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;
const encoder = new TextEncoder();

/** Feeds the 8 bytes in `scratchU8` (least significant first). */
function feed8(h: number): number {
  if (littleEndian) {
    for (let k = 0; k < 8; k++) h = Math.imul(h ^ scratchU8[k]!, FNV_PRIME);
  } else {
    for (let k = 7; k >= 0; k--) h = Math.imul(h ^ scratchU8[k]!, FNV_PRIME);
  }
  return h;
}

function feedFloat(h: number, x: number): number {
  scratchF[0] = x === 0 ? 0 : x !== x ? NaN : x;
  return feed8(h);
}

function feedBytes(h: number, bytes: Uint8Array): number {
  for (let k = 0; k < bytes.length; k++) h = Math.imul(h ^ bytes[k]!, FNV_PRIME);
  return Math.imul(h ^ 0xff, FNV_PRIME);
}

/**
 * The 32-bit hash of one row (values as in `Scalar`: int64 bigint, float64/timestamp number,
 * string, null), the reference the columnar version below must agree with.
 */
export function hashRow(types: readonly ColumnType[], row: readonly Scalar[]): number {
  let h = FNV_OFFSET;
  for (const [c, type] of types.entries()) {
    const v = row[c] ?? null;
    if (v === null) {
      h = Math.imul(h ^ 0x00, FNV_PRIME);
      continue;
    }
    h = Math.imul(h ^ 0x01, FNV_PRIME);
    if (type === 'int64') {
      scratchB[0] = BigInt(v as bigint | number);
      h = feed8(h);
    } else if (type === 'float64' || type === 'timestamp' || type === 'date') {
      h = feedFloat(h, v as number);
    } else {
      h = feedBytes(h, encoder.encode(String(v)));
    }
  }
  return fmix32(h);
}

/**
 * The hash bucket in [0, n) of one row: `hashRow(types, row) % n`.
 * Rows in a hash-partitioned catalog of n shards sit in shard `hashBucket(...)`.
 */
export function hashBucket(types: readonly ColumnType[], row: readonly Scalar[], n: number): number {
  return hashRow(types, row) % n;
}

/** The bucket in [0, n) of every row of columnar data (same result as {@link hashBucket}). */
export function hashBuckets(cols: readonly ColumnVec[], length: number, n: number): Uint32Array {
  const h = new Int32Array(length).fill(FNV_OFFSET | 0);
  for (const col of cols) {
    const valid = col.valid;
    switch (col.type) {
      case 'int64': {
        const v = col.values;
        for (let i = 0; i < length; i++) {
          if (valid !== null && valid[i] === 0) {
            h[i] = Math.imul(h[i]! ^ 0x00, FNV_PRIME);
            continue;
          }
          scratchB[0] = v[i]!;
          h[i] = feed8(Math.imul(h[i]! ^ 0x01, FNV_PRIME));
        }
        break;
      }
      case 'float64':
      case 'timestamp':
      case 'date': {
        const v = col.values;
        for (let i = 0; i < length; i++) {
          if (valid !== null && valid[i] === 0) {
            h[i] = Math.imul(h[i]! ^ 0x00, FNV_PRIME);
            continue;
          }
          h[i] = feedFloat(Math.imul(h[i]! ^ 0x01, FNV_PRIME), v[i]!);
        }
        break;
      }
      case 'string': {
        const bytes = col.dictionary.map((s) => encoder.encode(s));
        const codes = col.codes;
        for (let i = 0; i < length; i++) {
          if (valid !== null && valid[i] === 0) {
            h[i] = Math.imul(h[i]! ^ 0x00, FNV_PRIME);
            continue;
          }
          h[i] = feedBytes(Math.imul(h[i]! ^ 0x01, FNV_PRIME), bytes[codes[i]!]!);
        }
        break;
      }
    }
  }
  const out = new Uint32Array(length);
  for (let i = 0; i < length; i++) out[i] = fmix32(h[i]!) % n;
  return out;
}
