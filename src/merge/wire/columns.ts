/**
 * Frame columns as Arrow buffers: encoding cells into validity bitmaps, offsets and values
 * (typed arrays, no Builders), and reading them back from the chunks of a decoded stream
 * (ours or apache-arrow's `Data`, which has the same fields).
 */
import { CanopyError } from '../errors.ts';
import type { StateEncoding } from '../kinds/index.ts';
import type { ColumnType } from '../types.ts';
import { decodeUtf8 } from '../utf8.ts';
import { garbled } from './header.ts';

export type Enc = StateEncoding | ColumnType;

/** The Arrow storage class of an encoding: the four column types a frame may hold. */
type Storage = 'int64' | 'float64' | 'utf8' | 'binary';

export function storageOf(e: Enc): Storage {
  switch (e) {
    case 'int64':
      return 'int64';
    case 'float64':
    case 'timestamp':
      return 'float64';
    case 'binary':
      return 'binary';
    default:
      return 'utf8'; // string, bool ('true' / 'false'), utf8 states
  }
}

/** The Arrow type of each storage as apache-arrow prints it (`String(type)`), what decodeFrame compares a frame's field types with. */
export const TYPE_NAMES: Readonly<Record<Storage, string>> = { int64: 'Int64', float64: 'Float64', utf8: 'Utf8', binary: 'Binary' };

/** Arrow Schema.fbs `Type` union ids of the four storages. */
export const TYPE_IDS: Readonly<Record<Storage, number>> = { int64: 2, float64: 3, binary: 4, utf8: 5 };

const utf8Encoder = new TextEncoder();

/** Validity bitmap for `n` values (LSB order, as Arrow), padded to 8 bytes. */
function bitmapFor(n: number): Uint8Array {
  return new Uint8Array(((n + 63) >> 6) << 3);
}

/** One column ready for the IPC body: Arrow's buffers for it (validity, offsets for Utf8 / Binary, values). */
export interface EncodedColumn {
  readonly name: string;
  readonly storage: Storage;
  readonly nullCount: number;
  /** LSB-ordered validity bits, at least ceil(n / 8) bytes. */
  readonly validity: Uint8Array;
  /** n + 1 offsets into `data` (Utf8 / Binary), else null. */
  readonly offsets: Int32Array | null;
  /** The values: n int64 or float64 little-endian, or the Utf8 / Binary bytes. */
  readonly data: Uint8Array;
}

/**
 * Arrow buffers of one column, filled straight into typed arrays (no Builders): `values[i]`
 * null or undefined is NULL; an int64 cell must be a bigint, a float64 cell a number
 * (typed-array assignment semantics), a utf8 cell a string (anything else is written as
 * `String(v)`, so booleans travel as 'true' / 'false'), a binary cell a Uint8Array.
 * @param encode applied to each value first when given (a state kind's `encode`: no array of
 *   encoded cells in between for Int64 and Float64 columns)
 * @throws CanopyError CANOPY_ERR_INTERNAL for a cell of the wrong type.
 */
export function columnData(enc: Enc, name: string, values: readonly unknown[], encode?: (v: unknown) => unknown): EncodedColumn {
  const n = values.length;
  const storage = storageOf(enc);
  if (storage === 'float64') return float64Column(name, enc, values, encode);
  if (storage === 'int64') return int64Column(name, enc, values, encode);
  if (encode !== undefined) return columnData(enc, name, values.map(encode));
  const validity = bitmapFor(n);
  let nulls = 0;
  const offsets = new Int32Array(n + 1);
  let bytes: Uint8Array;
  let pos = 0;
  if (storage === 'binary') {
    let size = 0;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) continue;
      if (!(v instanceof Uint8Array)) throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${name} (binary) holds a ${typeof v}`);
      size += v.length;
    }
    bytes = new Uint8Array(size);
    for (let i = 0; i < n; i++) {
      const v = values[i] as Uint8Array | null | undefined;
      if (v === null || v === undefined) nulls++;
      else {
        validity[i >> 3]! |= 1 << (i & 7);
        bytes.set(v, pos);
        pos += v.length;
      }
      offsets[i + 1] = pos;
    }
  } else {
    let size = 16;
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (typeof v === 'string') size += v.length;
    }
    bytes = new Uint8Array(size);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) {
        nulls++;
        offsets[i + 1] = pos;
        continue;
      }
      validity[i >> 3]! |= 1 << (i & 7);
      const s = typeof v === 'string' ? v : String(v);
      const len = s.length;
      if (pos + len > bytes.length) bytes = grow(bytes, pos + len);
      let j = 0;
      // ASCII fast path: one byte per UTF-16 code unit below 0x80.
      for (; j < len; j++) {
        const c = s.charCodeAt(j);
        if (c >= 0x80) break;
        bytes[pos + j] = c;
      }
      if (j === len) pos += len;
      else {
        // UTF-8 needs at most 3 bytes per UTF-16 code unit (a surrogate pair: 4 bytes for 2 units).
        if (pos + 3 * len > bytes.length) bytes = grow(bytes, pos + 3 * len);
        pos += utf8Encoder.encodeInto(s, bytes.subarray(pos)).written;
      }
      offsets[i + 1] = pos;
    }
  }
  if (pos > 0x7fffffff) throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${name} holds ${pos} bytes, more than Arrow's 2^31 - 1`);
  return { name, storage, nullCount: nulls, validity, offsets, data: bytes.subarray(0, pos) };
}

/** The Float64 column of {@link columnData}: validity a byte (8 cells) at a time. */
function float64Column(name: string, enc: Enc, values: readonly unknown[], encode: ((v: unknown) => unknown) | undefined): EncodedColumn {
  const n = values.length;
  const validity = bitmapFor(n);
  const data = new Float64Array(n);
  let nulls = 0;
  let bits = 0;
  for (let i = 0; i < n; i++) {
    const v = encode === undefined ? values[i] : encode(values[i]);
    if (typeof v === 'number') {
      data[i] = v;
      bits |= 1 << (i & 7);
    } else if (v === null || v === undefined) nulls++;
    else if (typeof v === 'bigint') throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${name} (${enc}) holds a bigint`);
    else {
      data[i] = v as number;
      bits |= 1 << (i & 7);
    }
    if ((i & 7) === 7) {
      validity[i >> 3] = bits;
      bits = 0;
    }
  }
  if ((n & 7) !== 0) validity[n >> 3] = bits;
  // Typed arrays hold the platform's byte order: like apache-arrow's own JS writer, this
  // assumes a little-endian platform (x64, arm64), the byte order the stream declares.
  return { name, storage: 'float64', nullCount: nulls, validity, offsets: null, data: new Uint8Array(data.buffer, 0, data.byteLength) };
}

/** The Int64 column of {@link columnData} (bigint cells; little-endian as {@link float64Column}). */
function int64Column(name: string, enc: Enc, values: readonly unknown[], encode: ((v: unknown) => unknown) | undefined): EncodedColumn {
  const n = values.length;
  const validity = bitmapFor(n);
  const data = new BigInt64Array(n);
  let nulls = 0;
  for (let i = 0; i < n; i++) {
    const v = encode === undefined ? values[i] : encode(values[i]);
    if (v === null || v === undefined) {
      nulls++;
      continue;
    }
    if (typeof v !== 'bigint') throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${name} (${enc}) holds a ${typeof v}`);
    validity[i >> 3]! |= 1 << (i & 7);
    data[i] = v;
  }
  return { name, storage: 'int64', nullCount: nulls, validity, offsets: null, data: new Uint8Array(data.buffer, 0, data.byteLength) };
}

/** A copy of `bytes` with room for at least `need` bytes (doubling). */
function grow(bytes: Uint8Array, need: number): Uint8Array {
  const out = new Uint8Array(Math.max(need, bytes.length * 2));
  out.set(bytes);
  return out;
}

/**
 * One column of one record batch, as decodeFrame reads it: the fields of apache-arrow's
 * `Data` it uses, so a `Data` is one. `values` (BigInt64Array, Float64Array or the Utf8 /
 * Binary bytes) and `valueOffsets` start at the chunk's first row; `nullBitmap` at bit
 * `offset`, and counts only when `nullCount > 0`.
 */
export interface ColumnChunk {
  readonly length: number;
  readonly offset: number;
  readonly stride: number;
  readonly nullCount: number;
  readonly nullBitmap: Uint8Array | undefined;
  readonly values: BigInt64Array | Float64Array | Uint8Array | undefined;
  readonly valueOffsets: Int32Array | undefined;
}

/** One record batch of a frame: its row count and one chunk per schema field. */
export interface FrameBatch {
  readonly length: number;
  readonly columns: readonly ColumnChunk[];
}

/** A frame's Arrow stream: schema metadata, fields (name and `String(type)` as apache-arrow prints it) and record batches. */
export interface FrameStream {
  readonly metadata: ReadonlyMap<string, string>;
  readonly fields: readonly { readonly name: string; readonly type: string }[];
  readonly batches: readonly FrameBatch[];
}

/**
 * The `n` cells of column `c` of a decoded frame, read from the typed arrays of each record
 * batch's Data (values, valueOffsets, nullBitmap): what `Vector.get` returns (bigint, number,
 * string or Uint8Array view, null for NULL), without its per-cell dispatch. Per Arrow JS, a
 * Data's `values` and `valueOffsets` start at its first row and its `nullBitmap` at bit
 * `offset`; the validity bitmap counts only when `nullCount > 0` (as `Data.getValid`).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when a buffer is too short or offsets point
 *   outside the value bytes.
 */
export function readColumn(batches: readonly FrameBatch[], c: number, storage: Storage, name: string, n: number): unknown[] {
  const out: unknown[] = new Array(n);
  let at = 0;
  for (const batch of batches) {
    const d = batch.columns[c];
    const len = batch.length;
    if (d === undefined || d.length < len || at + len > n) throw garbled(`frame column ${name} is shorter than its record batch`);
    const bitmap = d.nullCount > 0 && d.nullBitmap !== undefined && d.nullBitmap.byteLength > 0 ? d.nullBitmap : null;
    const off = d.offset;
    if (storage === 'int64' || storage === 'float64') {
      const values = d.values as BigInt64Array | Float64Array | undefined;
      if (values === undefined || d.stride !== 1 || values.length < len) throw garbled(`frame column ${name} has ${values?.length ?? 0} values for ${len} rows`);
      for (let i = 0; i < len; i++) out[at + i] = isValid(bitmap, off + i) ? values[i] : null;
    } else {
      const values = d.values as Uint8Array | undefined;
      const offsets = d.valueOffsets;
      if (values === undefined || offsets === undefined) throw garbled(`frame column ${name} has no value buffers`);
      if (storage === 'binary') {
        for (let i = 0; i < len; i++) {
          if (!isValid(bitmap, off + i)) {
            out[at + i] = null;
            continue;
          }
          const x = offsets[i]!;
          const y = offsets[i + 1]!;
          if (!(x >= 0 && x <= y && y <= values.length)) throw garbled(`frame column ${name} has value offsets outside its ${values.length} bytes`);
          out[at + i] = values.subarray(x, y);
        }
      } else {
        // All ASCII (the common case: keys, decimal sums): decode the column's bytes once,
        // byte offsets are then character offsets.
        const begin = len > 0 ? offsets[0]! : 0;
        const end = len > 0 ? offsets[len]! : 0;
        let ascii = begin >= 0 && begin <= end && end <= values.length;
        for (let b = begin; ascii && b < end; b++) if (values[b]! >= 0x80) ascii = false;
        const all = ascii ? decodeUtf8(values.subarray(begin, end)) : '';
        for (let i = 0; i < len; i++) {
          if (!isValid(bitmap, off + i)) {
            out[at + i] = null;
            continue;
          }
          const x = offsets[i]!;
          const y = offsets[i + 1]!;
          if (!(x >= 0 && x <= y && y <= values.length)) throw garbled(`frame column ${name} has value offsets outside its ${values.length} bytes`);
          out[at + i] = ascii && x >= begin && y <= end ? all.slice(x - begin, y - begin) : decodeUtf8(values.subarray(x, y));
        }
      }
    }
    at += len;
  }
  if (at !== n) throw garbled(`frame column ${name} has ${at} rows, expected ${n}`);
  return out;
}

/** Whether row `pos` (counting the chunk's offset) is non-NULL; no bitmap: all are. */
function isValid(bitmap: Uint8Array | null, pos: number): boolean {
  return bitmap === null || (bitmap[pos >> 3]! & (1 << (pos & 7))) !== 0;
}
