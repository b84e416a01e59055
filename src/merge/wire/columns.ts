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
    case 'date':
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
export function columnData(enc: Enc, name: string, values: ArrayLike<unknown>, encode?: (v: unknown) => unknown): EncodedColumn {
  const n = values.length;
  const storage = storageOf(enc);
  if (storage === 'float64') return float64Column(name, enc, values, encode);
  if (storage === 'int64') return int64Column(name, enc, values, encode);
  if (encode !== undefined) return columnData(enc, name, Array.from(values, encode));
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
function float64Column(name: string, enc: Enc, values: ArrayLike<unknown>, encode: ((v: unknown) => unknown) | undefined): EncodedColumn {
  const n = values.length;
  const validity = bitmapFor(n);
  if (encode === undefined && values instanceof Float64Array) {
    // A typed column (no NULLs): its bytes as they are, every row valid.
    validity.fill(0xff);
    if ((n & 7) !== 0) validity[n >> 3] = (1 << (n & 7)) - 1;
    return { name, storage: 'float64', nullCount: 0, validity, offsets: null, data: new Uint8Array(values.buffer, values.byteOffset, n * 8) };
  }
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
function int64Column(name: string, enc: Enc, values: ArrayLike<unknown>, encode: ((v: unknown) => unknown) | undefined): EncodedColumn {
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
 * @param dict for a Utf8 key column: receives its dictionary codes ({@link KeyDictOut})
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when a buffer is too short or offsets point
 *   outside the value bytes.
 */
export function readColumn(batches: readonly FrameBatch[], c: number, storage: Storage, name: string, n: number, dict?: KeyDictOut): unknown[] {
  const out: unknown[] = new Array(n);
  let at = 0;
  // Frame-wide dictionary codes of a Utf8 column (see KeyDictOut): 0 NULL, then by first appearance.
  const codes = dict === undefined || storage !== 'utf8' ? null : new Int32Array(n);
  const byValue = codes === null ? null : new Map<string, number>();
  const dictValues: (string | null)[] = [null];
  let coded = codes !== null;
  for (const batch of batches) {
    const d = batch.columns[c];
    const len = batch.length;
    if (d === undefined || d.length < len || at + len > n) throw garbled(`frame column ${name} is shorter than its record batch`);
    const bitmap = d.nullCount > 0 && d.nullBitmap !== undefined && d.nullBitmap.byteLength > 0 ? d.nullBitmap : null;
    const off = d.offset;
    if (storage === 'int64' || storage === 'float64') {
      const values = d.values as BigInt64Array | Float64Array | undefined;
      if (values === undefined || d.stride !== 1 || values.length < len) throw garbled(`frame column ${name} has ${values?.length ?? 0} values for ${len} rows`);
      // Monomorphic loops per array type, the common no-NULL case without a bitmap test.
      if (values instanceof Float64Array) copyNumbers(values, bitmap, off, len, out, at);
      else copyBigInts(values, bitmap, off, len, out, at);
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
        const interned = new Utf8Interner(values, len);
        // With a dictionary: each cell's interned entry first (-1: NULL, or not interned), then codes.
        const ents = coded ? codes! : null;
        for (let i = 0; i < len; i++) {
          if (!isValid(bitmap, off + i)) {
            out[at + i] = null;
            if (ents !== null) ents[at + i] = -1;
            continue;
          }
          const x = offsets[i]!;
          const y = offsets[i + 1]!;
          if (!(x >= 0 && x <= y && y <= values.length)) throw garbled(`frame column ${name} has value offsets outside its ${values.length} bytes`);
          let v = interned.find(x, y);
          if (v === undefined) {
            v = ascii && x >= begin && y <= end ? all.slice(x - begin, y - begin) : decodeUtf8(values.subarray(x, y));
            interned.add(v);
          }
          out[at + i] = v;
          if (ents !== null) {
            const e = interned.entry;
            // Not interned (too long, too many values): no dictionary for this column.
            if (e < 0) coded = false;
            ents[at + i] = e;
          }
        }
        // The chunk's entries -> frame codes: each entry's string looked up once (equal strings
        // of different bytes, such as two invalid sequences decoded to U+FFFD, share a code).
        if (ents !== null && coded) {
          const strings = interned.strings;
          const toFrame = new Int32Array(strings.length);
          for (let e = 0; e < strings.length; e++) {
            const v = strings[e]!;
            let fc = byValue!.get(v);
            if (fc === undefined) {
              fc = dictValues.length;
              dictValues.push(v);
              byValue!.set(v, fc);
            }
            toFrame[e] = fc;
          }
          for (let i = 0; i < len; i++) {
            const e = ents[at + i]!;
            ents[at + i] = e < 0 ? 0 : toFrame[e]!;
          }
        }
      }
    }
    at += len;
  }
  if (at !== n) throw garbled(`frame column ${name} has ${at} rows, expected ${n}`);
  if (dict !== undefined && coded && codes !== null) {
    dict.codes = codes;
    dict.values = dictValues;
  }
  return out;
}

/**
 * Out-parameter of {@link readColumn} for a Utf8 key column: when every cell's string was
 * interned, `codes[i]` is cell i's code in `values` (0 NULL, then each distinct string once,
 * in order of first appearance), else both stay undefined.
 */
export interface KeyDictOut {
  codes?: Int32Array;
  values?: readonly (string | null)[];
}

/**
 * The strings of one Utf8 chunk interned by their bytes: a value repeated over the cells (a
 * group key: a few hundred airports over thousands of groups) is decoded once and comes out
 * as one string object, so the merge's Map lookups hash it once. Open addressing over
 * FNV-1a hashes of the bytes (linear probing, load <= 1/2), each entry compared byte by byte
 * with its first occurrence. Values longer than {@link INTERN_MAX_BYTES} are not interned, and
 * a chunk whose values mostly differ stops interning after {@link INTERN_PROBE} cells.
 */
class Utf8Interner {
  readonly #bytes: Uint8Array;
  #slots: Int32Array;
  #mask: number;
  readonly #starts: number[] = [];
  readonly #ends: number[] = [];
  readonly #strings: string[] = [];
  #cells = 0;
  #on = true;
  /** Where the last miss of {@link find} stopped, and its value's bytes (for {@link add}); -1: do not add. */
  #at = -1;
  #x = 0;
  #y = 0;

  /**
   * @param cells the chunk's cell count: the table starts at twice that, 16 to 256 slots (up to
   *   16 it stays on V8's heap; a 1 KiB table per small frame's column was an off-heap allocation)
   */
  constructor(bytes: Uint8Array, cells: number) {
    this.#bytes = bytes;
    let size = 16;
    while (size < 256 && size < 2 * cells) size *= 2;
    this.#slots = new Int32Array(size);
    this.#mask = size - 1;
  }

  /** The entry (0, 1, ... in order of first appearance) of the string the last {@link find} found or {@link add} recorded; -1 if neither. */
  entry = -1;

  /** The strings interned, by entry. */
  get strings(): readonly string[] {
    return this.#strings;
  }

  /** The string of bytes `[x, y)` if seen before in this chunk; undefined otherwise (then {@link add} may record it). */
  find(x: number, y: number): string | undefined {
    this.#at = -1;
    this.entry = -1;
    if (!this.#on || y - x > INTERN_MAX_BYTES) return undefined;
    if (++this.#cells === INTERN_PROBE && this.#strings.length * 2 > INTERN_PROBE) {
      this.#on = false;
      return undefined;
    }
    const b = this.#bytes;
    let h = 0x811c9dc5 ^ (y - x);
    for (let i = x; i < y; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
    const slots = this.#slots;
    const mask = this.#mask;
    for (let p = (h ^ (h >>> 15)) & mask; ; p = (p + 1) & mask) {
      const e = slots[p]!;
      if (e === 0) {
        this.#at = p;
        this.#x = x;
        this.#y = y;
        return undefined;
      }
      const sx = this.#starts[e - 1]!;
      if (this.#ends[e - 1]! - sx !== y - x) continue;
      let i = 0;
      while (i < y - x && b[sx + i] === b[x + i]) i++;
      if (i === y - x) {
        this.entry = e - 1;
        return this.#strings[e - 1];
      }
    }
  }

  /** Records `v`, the string of the bytes the last {@link find} missed. */
  add(v: string): void {
    if (this.#at < 0 || this.#strings.length >= INTERN_MAX_VALUES) return;
    this.entry = this.#strings.length;
    this.#strings.push(v);
    this.#starts.push(this.#x);
    this.#ends.push(this.#y);
    this.#slots[this.#at] = this.#strings.length;
    if (this.#strings.length * 2 > this.#mask) this.#rehash();
  }

  #rehash(): void {
    const size = 2 * (this.#mask + 1);
    const slots = (this.#slots = new Int32Array(size));
    const mask = (this.#mask = size - 1);
    const b = this.#bytes;
    for (let e = 0; e < this.#strings.length; e++) {
      const x = this.#starts[e]!;
      const y = this.#ends[e]!;
      let h = 0x811c9dc5 ^ (y - x);
      for (let i = x; i < y; i++) h = Math.imul(h ^ b[i]!, 0x01000193);
      let p = (h ^ (h >>> 15)) & mask;
      while (slots[p] !== 0) p = (p + 1) & mask;
      slots[p] = e + 1;
    }
  }
}

/** Utf8 values longer than this (bytes) are decoded without interning. */
const INTERN_MAX_BYTES = 32;
/** Distinct values an interner holds at most. */
const INTERN_MAX_VALUES = 8192;
/** After this many cells, a chunk with more than half of them distinct stops interning. */
const INTERN_PROBE = 512;

/**
 * The `n` cells of Float64 column `c` as one Float64Array when no batch holds a NULL: the
 * batch's buffer itself for one batch (a view, never written), else the batches' values
 * joined; null when a cell is NULL (then {@link readColumn} gives them as cells).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when a buffer is too short.
 */
export function readNumbers(batches: readonly FrameBatch[], c: number, name: string, n: number): Float64Array | null {
  for (const batch of batches) {
    const d = batch.columns[c];
    if (d === undefined || !(d.values instanceof Float64Array) || d.stride !== 1 || d.values.length < batch.length) throw garbled(`frame column ${name} is shorter than its record batch`);
    if (d.nullCount > 0) return null;
  }
  if (batches.length === 1) return (batches[0]!.columns[c]!.values as Float64Array).subarray(0, n);
  const out = new Float64Array(n);
  let at = 0;
  for (const batch of batches) {
    if (at + batch.length > n) throw garbled(`frame column ${name} has more rows than the frame`);
    out.set((batch.columns[c]!.values as Float64Array).subarray(0, batch.length), at);
    at += batch.length;
  }
  if (at !== n) throw garbled(`frame column ${name} has ${at} rows, expected ${n}`);
  return out;
}

/** Cells `[0, len)` of a Float64 buffer into `out` from `at`, NULL where the bitmap says. */
function copyNumbers(values: Float64Array, bitmap: Uint8Array | null, off: number, len: number, out: unknown[], at: number): void {
  if (bitmap === null) for (let i = 0; i < len; i++) out[at + i] = values[i]!;
  else for (let i = 0; i < len; i++) out[at + i] = isValid(bitmap, off + i) ? values[i]! : null;
}

/** Cells `[0, len)` of an Int64 buffer into `out` from `at`, NULL where the bitmap says. */
function copyBigInts(values: BigInt64Array, bitmap: Uint8Array | null, off: number, len: number, out: unknown[], at: number): void {
  if (bitmap === null) for (let i = 0; i < len; i++) out[at + i] = values[i]!;
  else for (let i = 0; i < len; i++) out[at + i] = isValid(bitmap, off + i) ? values[i]! : null;
}

/** Whether row `pos` (counting the chunk's offset) is non-NULL; no bitmap: all are. */
function isValid(bitmap: Uint8Array | null, pos: number): boolean {
  return bitmap === null || (bitmap[pos >> 3]! & (1 << (pos & 7))) !== 0;
}
