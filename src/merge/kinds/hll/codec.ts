/** The HLL state's wire encoding (Arrow Binary): a tag byte, then the set's values, the sparse entries or the dense registers. */
import type { ColumnType } from '../../types.ts';
import { canonicalDistinct, utf8 } from './hashing.ts';
import { type DistinctValue, HLL_EXACT_LIMIT, HLL_PRECISION, HLL_REGISTERS, HLL_SPARSE_LIMIT, type HllState, MAX_RHO } from './state.ts';

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
  const parts: (Uint8Array | string)[] = [];
  let size = 5;
  if (type === 'string') {
    // ASCII strings are their own bytes (written char by char below); others encoded.
    for (const v of s.values) {
      const str = v as string;
      const b = isAscii(str) ? str : utf8.encode(str);
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
      if (typeof b === 'string') for (let i = 0; i < b.length; i++) out[at + 4 + i] = b.charCodeAt(i);
      else out.set(b, at + 4);
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
      values.add(asciiAt(v, at + 4, len) ?? utf8Strict.decode(v.subarray(at + 4, at + 4 + len)));
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

/** Whether every UTF-16 unit of `s` is below 0x80 (its UTF-8 bytes are its char codes). */
function isAscii(s: string): boolean {
  for (let i = 0; i < s.length; i++) if (s.charCodeAt(i) >= 0x80) return false;
  return true;
}

/** The string of `len` bytes of `v` from `at` when they are all ASCII (valid UTF-8 as they are), else null. */
function asciiAt(v: Uint8Array, at: number, len: number): string | null {
  if (len > 64) return null;
  let out = '';
  for (let i = at; i < at + len; i++) {
    const b = v[i]!;
    if (b >= 0x80) return null;
    out += String.fromCharCode(b);
  }
  return out;
}
