/**
 * Wire format between tiers (pure encode/decode, no I/O).
 *
 * A child's reply is one frame: an Arrow IPC stream (application/vnd.apache.arrow.stream)
 * whose schema metadata `canopy.frame` holds the frame's JSON header (provenance,
 * rows scanned), and whose columns are either
 * - grouped partials: `k0..kn` group keys, then `p0..pm` encoded partial states (Arrow
 *   Binary for sketch states, see StateEncoding), or
 * - row partials: `c0..cn` the row query's columns, already sorted.
 * Every column is nullable Int64, Float64, Utf8 or Binary, in one record batch.
 * Requests travel as JSON where bigints are written `{"$bigint":"123"}`.
 *
 * Frames are on every edge of every query, so both directions avoid apache-arrow's generic
 * machinery (Builders, per-cell `Vector.get`, its IPC writer and reader, which cost hundreds
 * of µs per frame): encodeFrame fills each column's Arrow buffers as typed arrays and writes
 * the stream's two flatbuffer messages itself; decodeFrame reads the messages and buffers
 * itself and hands anything else to apache-arrow's `tableFromIPC`. Any Arrow reader reads the
 * frames (test/wire.test.ts checks apache-arrow's); `npm run bench -- wire` times both.
 */
import { tableFromIPC, type Table } from 'apache-arrow';
import { decodeUtf8 } from './utf8.ts';
import { CanopyError } from './errors.ts';
import type { Partial, PartialLayout } from './partial.ts';
import type { StateEncoding } from './kinds/index.ts';
import type { TopKFrame } from './topk.ts';
import type { ColumnType, GatherTiming, Scalar, ShardStatus } from './types.ts';

/** Media type of frames. */
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';

/** Version of the frame header; a parent rejects frames of another version as garbled. */
export const FRAME_VERSION = 1;

/**
 * One reply of a child: its merged partial for the shards it answered, and one provenance
 * entry per shard it was asked for (paths relative to the child).
 */
export interface Frame {
  readonly partial: Partial;
  readonly provenance: readonly ShardStatus[];
  /** Rows scanned below this child (sum over answered shards). */
  readonly rowsScanned: number;
  /** Gathers below this child and how long they waited for each of their children (on request). */
  readonly timings?: readonly GatherTiming[];
  /** Group top-k plans: the bound on dropped groups and per-group intervals (see topk.ts). */
  readonly topk?: TopKFrame;
  /**
   * False for a progressive update (the child's merged state so far, provenance listing only
   * the shards answered so far); absent or true for the answer.
   */
  readonly final?: boolean;
}

type Enc = StateEncoding | ColumnType;

/** The Arrow storage class of an encoding: the four column types a frame may hold. */
type Storage = 'int64' | 'float64' | 'utf8' | 'binary';

function storageOf(e: Enc): Storage {
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
const TYPE_NAMES: Readonly<Record<Storage, string>> = { int64: 'Int64', float64: 'Float64', utf8: 'Utf8', binary: 'Binary' };

/** Arrow Schema.fbs `Type` union ids of the four storages. */
const TYPE_IDS: Readonly<Record<Storage, number>> = { int64: 2, float64: 3, binary: 4, utf8: 5 };

const utf8Encoder = new TextEncoder();

/** Validity bitmap for `n` values (LSB order, as Arrow), padded to 8 bytes. */
function bitmapFor(n: number): Uint8Array {
  return new Uint8Array(((n + 63) >> 6) << 3);
}

/** One column ready for the IPC body: Arrow's buffers for it (validity, offsets for Utf8 / Binary, values). */
interface EncodedColumn {
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
 * @throws CanopyError CANOPY_ERR_INTERNAL for a cell of the wrong type.
 */
function columnData(enc: Enc, name: string, values: readonly unknown[]): EncodedColumn {
  const n = values.length;
  const validity = bitmapFor(n);
  let nulls = 0;
  const storage = storageOf(enc);
  if (storage === 'int64' || storage === 'float64') {
    const data = storage === 'int64' ? new BigInt64Array(n) : new Float64Array(n);
    for (let i = 0; i < n; i++) {
      const v = values[i];
      if (v === null || v === undefined) {
        nulls++;
        continue;
      }
      validity[i >> 3]! |= 1 << (i & 7);
      if (storage === 'int64' ? typeof v !== 'bigint' : typeof v === 'bigint') throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${name} (${enc}) holds a ${typeof v}`);
      (data as unknown as unknown[])[i] = v;
    }
    // Typed arrays hold the platform's byte order: like apache-arrow's own JS writer, this
    // assumes a little-endian platform (x64, arm64), the byte order the stream declares.
    return { name, storage, nullCount: nulls, validity, offsets: null, data: new Uint8Array(data.buffer, 0, data.byteLength) };
  }
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

/** A copy of `bytes` with room for at least `need` bytes (doubling). */
function grow(bytes: Uint8Array, need: number): Uint8Array {
  const out = new Uint8Array(Math.max(need, bytes.length * 2));
  out.set(bytes);
  return out;
}

/**
 * Encodes a frame as Arrow IPC stream bytes: the schema (field names, types, the
 * `canopy.frame` header as schema metadata) and one record batch, whose buffers (validity
 * bitmaps, Int32 offsets, values) are filled directly from the partial, no Builders.
 * @throws CanopyError CANOPY_ERR_INTERNAL if the partial does not fit the layout or a cell
 *   does not have its column's type.
 */
export function encodeFrame(layout: PartialLayout, frame: Frame): Uint8Array {
  const header = JSON.stringify({ v: FRAME_VERSION, provenance: frame.provenance, rowsScanned: frame.rowsScanned, ...(frame.timings === undefined ? {} : { timings: frame.timings }),
    ...(frame.final === false ? { final: false } : {}),
    ...(frame.topk === undefined ? {} : { topk: { bound: finiteOrNull(frame.topk.bound), his: frame.topk.his.map(finiteOrNull), exact: frame.topk.exact } }),
  });
  const cols: { name: string; enc: Enc; values: readonly unknown[] }[] = [];
  const p = frame.partial;
  if (p.type === 'columnar') {
    if (layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    layout.keyTypes.forEach((t, i) => cols.push({ name: `k${i}`, enc: t, values: p.keys[i]! }));
    layout.kinds.forEach((k, i) => cols.push({ name: `p${i}`, enc: k.encoding, values: p.states[i]!.map((st) => k.encode(st)) }));
  } else if (p.type === 'groups') {
    if (layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    const entries = [...p.groups.values()];
    layout.keyTypes.forEach((t, i) => cols.push({ name: `k${i}`, enc: t, values: entries.map((e) => e.keys[i]) }));
    layout.kinds.forEach((k, i) => cols.push({ name: `p${i}`, enc: k.encoding, values: entries.map((e) => k.encode(e.states[i])) }));
  } else {
    if (layout.plan.rows === null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'row partial for an aggregate plan');
    layout.rowTypes.forEach((t, i) => cols.push({ name: `c${i}`, enc: t, values: p.rows.map((r) => r[i]) }));
  }
  const n = cols[0]?.values.length ?? 0;
  for (const c of cols) if (c.values.length !== n) throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${c.name} has ${c.values.length} values, expected ${n}`);
  return writeIpcStream(cols.map((c) => columnData(c.enc, c.name, c.values)), n, header);
}

/** Bytes rounded up to a multiple of 8 (Arrow IPC aligns every buffer and message to 8). */
function pad8(n: number): number {
  return (n + 7) & ~7;
}

/**
 * Writes an Arrow IPC stream: the schema message (one nullable field per column, schema
 * metadata `canopy.frame` = `header`), one record batch of `n` rows (also when `n` is 0,
 * as apache-arrow writes an empty table), and the end-of-stream marker. Messages and body
 * buffers are 8-byte aligned and padded, buffer lengths are the padded lengths, and an
 * all-valid column has an empty validity buffer, as apache-arrow's writer does.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 */
function writeIpcStream(cols: readonly EncodedColumn[], n: number, header: string): Uint8Array {
  const schema = schemaMessage(cols, header);
  const buffers: (Uint8Array | null)[] = [];
  for (const c of cols) {
    buffers.push(c.nullCount > 0 ? c.validity.subarray(0, (n + 7) >> 3) : null);
    if (c.offsets !== null) buffers.push(new Uint8Array(c.offsets.buffer, c.offsets.byteOffset, 4 * (n + 1)));
    buffers.push(c.data);
  }
  const regions: number[] = [];
  let bodyLength = 0;
  for (const b of buffers) {
    const len = pad8(b === null ? 0 : b.length);
    regions.push(bodyLength, len);
    bodyLength += len;
  }
  const batch = recordBatchMessage(cols, n, regions, bodyLength);
  const out = new Uint8Array(8 + pad8(schema.length) + 8 + pad8(batch.length) + bodyLength + 8);
  const dv = new DataView(out.buffer);
  let at = 0;
  for (const m of [schema, batch]) {
    dv.setInt32(at, -1, true); // continuation marker
    dv.setInt32(at + 4, pad8(m.length), true);
    out.set(m, at + 8);
    at += 8 + pad8(m.length);
  }
  for (let i = 0; i < buffers.length; i++) {
    const b = buffers[i];
    if (b !== null && b !== undefined) out.set(b, at + regions[2 * i]!);
  }
  at += bodyLength;
  dv.setInt32(at, -1, true); // end of stream: continuation marker, length 0
  return out;
}

/** MetadataVersion V5 and the MessageHeader union ids (Message.fbs). */
const METADATA_V5 = 4;
const HEADER_SCHEMA = 1;
const HEADER_RECORD_BATCH = 3;

/** Flatbuffer `Message { version, header: Schema { fields, custom_metadata }, bodyLength: 0 }`. */
function schemaMessage(cols: readonly EncodedColumn[], header: string): Uint8Array {
  const b = new FlatBuilder();
  const fields = cols.map((c) => {
    const name = b.string(c.name);
    let type: number;
    if (c.storage === 'int64') {
      b.startTable(2);
      b.int32Field(0, 64); // Int.bitWidth
      b.int8Field(1, 1); // Int.is_signed
      type = b.endTable();
    } else if (c.storage === 'float64') {
      b.startTable(1);
      b.int16Field(0, 2); // FloatingPoint.precision: DOUBLE
      type = b.endTable();
    } else {
      b.startTable(0); // Utf8 {} / Binary {}
      type = b.endTable();
    }
    const children = b.offsetVector([]);
    // Field: name (0), nullable (1), type_type (2), type (3), dictionary (4), children (5).
    b.startTable(6);
    b.offsetField(0, name);
    b.int8Field(1, 1);
    b.int8Field(2, TYPE_IDS[c.storage]);
    b.offsetField(3, type);
    b.offsetField(5, children);
    return b.endTable();
  });
  const key = b.string('canopy.frame');
  const value = b.string(header);
  b.startTable(2); // KeyValue: key (0), value (1)
  b.offsetField(0, key);
  b.offsetField(1, value);
  const kv = b.endTable();
  const fieldVector = b.offsetVector(fields);
  const metadata = b.offsetVector([kv]);
  b.startTable(3); // Schema: endianness (0, Little), fields (1), custom_metadata (2)
  b.int16Field(0, 0);
  b.offsetField(1, fieldVector);
  b.offsetField(2, metadata);
  const schema = b.endTable();
  return b.finish(message(b, HEADER_SCHEMA, schema, 0));
}

/** Flatbuffer `Message { version, header: RecordBatch { length, nodes, buffers }, bodyLength }`; `regions` holds (offset, length) pairs. */
function recordBatchMessage(cols: readonly EncodedColumn[], n: number, regions: readonly number[], bodyLength: number): Uint8Array {
  const b = new FlatBuilder();
  const nodes = b.structVector(cols.flatMap((c) => [n, c.nullCount])); // FieldNode { length, null_count }
  const buffers = b.structVector(regions); // Buffer { offset, length }
  b.startTable(3);
  b.int64Field(0, n);
  b.offsetField(1, nodes);
  b.offsetField(2, buffers);
  const batch = b.endTable();
  return b.finish(message(b, HEADER_RECORD_BATCH, batch, bodyLength));
}

/** Message: version (0), header_type (1), header (2), bodyLength (3). */
function message(b: FlatBuilder, headerType: number, header: number, bodyLength: number): number {
  b.startTable(4);
  b.int64Field(3, bodyLength);
  b.offsetField(2, header);
  b.int16Field(0, METADATA_V5);
  b.int8Field(1, headerType);
  return b.endTable();
}

/**
 * Minimal flatbuffers builder (back to front, as the reference builders: children before
 * parents, offsets pointing forward), enough for Arrow's Message / Schema / RecordBatch
 * tables. Source: https://flatbuffers.dev/internals/ and the reference JavaScript builder
 * (flatbuffers/js/builder.ts: prep, startTable / endTable with a vtable per table, finish).
 * Offsets returned are distances from the end of the buffer.
 */
class FlatBuilder {
  #buf = new Uint8Array(512);
  #dv = new DataView(this.#buf.buffer);
  /** Free bytes at the front; data occupies `#buf[#space..]`. */
  #space = 512;
  #minAlign = 1;
  #vtable: number[] = [];
  #objectEnd = 0;
  /** Vtables written so far: offset and entries (a message has about ten tables: a linear search). */
  readonly #vtables: [number, number[]][] = [];

  offset(): number {
    return this.#buf.length - this.#space;
  }

  /** Pads so that a `size`-byte scalar written after `additional` more bytes is aligned, with room for both. */
  #prep(size: number, additional: number): void {
    if (size > this.#minAlign) this.#minAlign = size;
    const align = -(this.offset() + additional) & (size - 1);
    const need = align + size + additional;
    while (this.#space < need) {
      const old = this.#buf;
      this.#buf = new Uint8Array(old.length * 2);
      this.#buf.set(old, old.length);
      this.#space += old.length;
      this.#dv = new DataView(this.#buf.buffer);
    }
    this.#space -= align; // new bytes are 0
  }

  #int8(v: number): void {
    this.#prep(1, 0);
    this.#dv.setInt8(--this.#space, v);
  }

  #int16(v: number): void {
    this.#prep(2, 0);
    this.#space -= 2;
    this.#dv.setInt16(this.#space, v, true);
  }

  #int32(v: number): void {
    this.#prep(4, 0);
    this.#space -= 4;
    this.#dv.setInt32(this.#space, v, true);
  }

  #int64(v: number): void {
    this.#prep(8, 0);
    this.#space -= 8;
    this.#dv.setBigInt64(this.#space, BigInt(v), true);
  }

  /** A uoffset to `target` (an offset from the end). */
  #uoffset(target: number): void {
    this.#prep(4, 0);
    const v = this.offset() - target + 4;
    this.#space -= 4;
    this.#dv.setUint32(this.#space, v, true);
  }

  string(s: string): number {
    let ascii = s.length <= 64;
    for (let i = 0; ascii && i < s.length; i++) ascii = s.charCodeAt(i) < 0x80;
    const bytes = ascii ? null : utf8Encoder.encode(s);
    const length = bytes === null ? s.length : bytes.length;
    this.#prep(4, length + 1);
    this.#space -= length + 1; // NUL terminator stays 0
    if (bytes !== null) this.#buf.set(bytes, this.#space);
    else for (let i = 0; i < length; i++) this.#buf[this.#space + i] = s.charCodeAt(i); // short ASCII: no encoder call
    this.#space -= 4;
    this.#dv.setUint32(this.#space, length, true);
    return this.offset();
  }

  offsetVector(targets: readonly number[]): number {
    this.#prep(4, 4 * targets.length);
    for (let i = targets.length - 1; i >= 0; i--) this.#uoffset(targets[i]!);
    this.#space -= 4;
    this.#dv.setUint32(this.#space, targets.length, true);
    return this.offset();
  }

  /** A vector of structs of two int64 each, from (first, second) pairs. */
  structVector(pairs: readonly number[]): number {
    const count = pairs.length / 2;
    this.#prep(4, 16 * count);
    this.#prep(8, 16 * count);
    for (let i = count - 1; i >= 0; i--) {
      this.#int64(pairs[2 * i + 1]!);
      this.#int64(pairs[2 * i]!);
    }
    this.#space -= 4;
    this.#dv.setUint32(this.#space, count, true);
    return this.offset();
  }

  startTable(fields: number): void {
    this.#vtable = new Array<number>(fields).fill(0);
    this.#objectEnd = this.offset();
  }

  int8Field(slot: number, v: number): void {
    this.#int8(v);
    this.#vtable[slot] = this.offset();
  }

  int16Field(slot: number, v: number): void {
    this.#int16(v);
    this.#vtable[slot] = this.offset();
  }

  int32Field(slot: number, v: number): void {
    this.#int32(v);
    this.#vtable[slot] = this.offset();
  }

  int64Field(slot: number, v: number): void {
    this.#int64(v);
    this.#vtable[slot] = this.offset();
  }

  offsetField(slot: number, target: number): void {
    this.#uoffset(target);
    this.#vtable[slot] = this.offset();
  }

  /**
   * Writes the table's soffset and its vtable (uint16: vtable size, table size, field
   * offsets), or points it at an identical vtable written before (as the reference builders
   * do, so tables of one shape share one vtable).
   */
  endTable(): number {
    this.#int32(0);
    const object = this.offset();
    let used = this.#vtable.length;
    while (used > 0 && this.#vtable[used - 1] === 0) used--;
    const entries = [(used + 2) * 2, object - this.#objectEnd];
    for (let i = 0; i < used; i++) entries.push(this.#vtable[i] !== 0 ? object - this.#vtable[i]! : 0);
    let vtable = -1;
    for (const [at, e] of this.#vtables) {
      if (e.length === entries.length && e.every((x, i) => x === entries[i])) {
        vtable = at;
        break;
      }
    }
    if (vtable < 0) {
      for (let i = entries.length - 1; i >= 0; i--) this.#int16(entries[i]!);
      vtable = this.offset();
      this.#vtables.push([vtable, entries]);
    }
    // soffset = table position - vtable position (negative when the vtable comes after the table).
    this.#dv.setInt32(this.#buf.length - object, vtable - object, true);
    return object;
  }

  /** The finished buffer: a uoffset to `root`, then the tables. */
  finish(root: number): Uint8Array {
    this.#prep(this.#minAlign, 4);
    this.#uoffset(root);
    return this.#buf.subarray(this.#space);
  }
}

function garbled(msg: string): CanopyError {
  return new CanopyError('CANOPY_ERR_CHILD_GARBLED', msg);
}

const STATUSES = new Set(['answered', 'failed', 'omitted', 'pruned']);

/** -Infinity (no bound) travels as null in JSON. */
function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

function parseTopK(t: unknown): TopKFrame {
  const o = t as { bound?: unknown; his?: unknown; exact?: unknown } | null;
  const num = (x: unknown): number => (x === null ? -Infinity : typeof x === 'number' ? x : NaN);
  if (typeof o !== 'object' || o === null || !Array.isArray(o.his) || !Array.isArray(o.exact) || o.his.length !== o.exact.length) throw garbled('frame top-k header is malformed');
  const bound = num(o.bound);
  const his = (o.his as unknown[]).map(num);
  if (Number.isNaN(bound) || his.some((h) => Number.isNaN(h)) || !(o.exact as unknown[]).every((e) => typeof e === 'boolean')) throw garbled('frame top-k header is malformed');
  return { bound, his, exact: o.exact as boolean[] };
}

function parseHeader(text: string | undefined): { provenance: ShardStatus[]; rowsScanned: number; timings?: GatherTiming[]; topk?: TopKFrame; final?: boolean } {
  if (text === undefined) throw garbled('frame has no canopy.frame header');
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    throw garbled('frame header is not JSON');
  }
  const o = h as { v?: unknown; provenance?: unknown; rowsScanned?: unknown; timings?: unknown; topk?: unknown; final?: unknown };
  if (o.v !== FRAME_VERSION) throw garbled(`frame version ${String(o.v)}, expected ${FRAME_VERSION}`);
  if (!Array.isArray(o.provenance)) throw garbled('frame provenance is not a list');
  if (typeof o.rowsScanned !== 'number' || !(o.rowsScanned >= 0)) throw garbled('frame rowsScanned is not a count');
  for (const s of o.provenance as unknown[]) {
    const e = s as { [k: string]: unknown } | null;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e['shard']) || typeof e['status'] !== 'string' || !STATUSES.has(e['status']) || typeof e['path'] !== 'string') {
      throw garbled('frame provenance entry is malformed');
    }
  }
  if (o.final !== undefined && o.final !== false) throw garbled('frame final flag is malformed');
  const out = { provenance: o.provenance as ShardStatus[], rowsScanned: o.rowsScanned, ...(o.topk === undefined ? {} : { topk: parseTopK(o.topk) }), ...(o.final === false ? { final: false } : {}) };
  if (o.timings === undefined) return out;
  const ok = Array.isArray(o.timings) && (o.timings as unknown[]).every((t) => {
    const x = t as Record<string, unknown> | null;
    return typeof x === 'object' && x !== null && typeof x.gather === 'string' && typeof x.child === 'string' && typeof x.elapsedMs === 'number';
  });
  if (!ok) throw garbled('frame timings are malformed');
  return { ...out, timings: o.timings as GatherTiming[] };
}

/**
 * Decodes and validates a frame against the layout the parent expects. Grouped frames decode
 * to a columnar partial (keys and states in the frame's group order), row frames to a rows
 * partial. Binary states are views into `bytes` (no copy).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for bytes that are not Arrow, a missing or
 *   malformed header, a wrong schema (column count, names or Arrow types), buffers too
 *   short or offsets outside them, invalid state values, a repeated group, or rows that are
 *   unsorted or over the plan's limit.
 */
export function decodeFrame(layout: PartialLayout, bytes: Uint8Array): Frame {
  const stream = readFrameStream(bytes);
  const { provenance, rowsScanned, timings, topk, final } = parseHeader(stream.metadata.get('canopy.frame'));
  const extra = { ...(timings === undefined ? {} : { timings }), ...(topk === undefined ? {} : { topk }), ...(final === false ? { final } : {}) };
  const n = stream.batches.reduce((sum, b) => sum + b.length, 0);
  if (topk !== undefined && topk.his.length !== n) throw garbled('frame top-k header does not match its groups');
  const expect: { name: string; enc: Enc }[] =
    layout.plan.rows === null
      ? [...layout.keyTypes.map((t, i) => ({ name: `k${i}`, enc: t as Enc })), ...layout.kinds.map((k, i) => ({ name: `p${i}`, enc: k.encoding as Enc }))]
      : layout.rowTypes.map((t, i) => ({ name: `c${i}`, enc: t as Enc }));
  const fields = stream.fields;
  if (fields.length !== expect.length) throw garbled(`frame has ${fields.length} columns, expected ${expect.length}`);
  expect.forEach((x, i) => {
    const f = fields[i]!;
    const want = TYPE_NAMES[storageOf(x.enc)];
    if (f.name !== x.name || f.type !== want) {
      throw garbled(`frame column ${i} is ${f.name}: ${f.type}, expected ${x.name}: ${want}`);
    }
  });
  try {
    // One pass per column over its typed arrays (every record batch), then the checks on values.
    const cells = expect.map((x, c) => readColumn(stream.batches, c, storageOf(x.enc), x.name, n));
    if (layout.plan.rows !== null) {
      const cols = cells.map((col, c) => fromCells(layout.rowTypes[c]!, col));
      const rows: Scalar[][] = new Array(n);
      for (let r = 0; r < n; r++) {
        const row: Scalar[] = new Array(cols.length);
        for (let c = 0; c < cols.length; c++) row[c] = cols[c]![r]!;
        rows[r] = row;
      }
      for (let r = 1; r < n; r++) if (layout.compareRows(rows[r - 1]!, rows[r]!) > 0) throw garbled('row run is not sorted');
      if (n > layout.plan.rows.limit) throw garbled(`row run has ${n} rows, more than the limit ${layout.plan.rows.limit}`);
      return { partial: { type: 'rows', rows }, provenance, rowsScanned, ...extra };
    }
    const nk = layout.keyTypes.length;
    const keys = layout.keyTypes.map((t, c) => fromCells(t, cells[c]!));
    const states = layout.kinds.map((k, i) => {
      const col = cells[nk + i]!;
      for (let r = 0; r < n; r++) col[r] = k.decode(col[r]);
      return col;
    });
    if (repeatsAGroup(keys, n)) throw garbled('frame repeats a group');
    return { partial: { type: 'columnar', size: n, keys, states }, provenance, rowsScanned, ...extra };
  } catch (e) {
    if (e instanceof CanopyError) throw e;
    throw garbled(`frame holds an invalid value (${e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * One column of one record batch, as decodeFrame reads it: the fields of apache-arrow's
 * `Data` it uses, so a `Data` is one. `values` (BigInt64Array, Float64Array or the Utf8 /
 * Binary bytes) and `valueOffsets` start at the chunk's first row; `nullBitmap` at bit
 * `offset`, and counts only when `nullCount > 0`.
 */
interface ColumnChunk {
  readonly length: number;
  readonly offset: number;
  readonly stride: number;
  readonly nullCount: number;
  readonly nullBitmap: Uint8Array | undefined;
  readonly values: BigInt64Array | Float64Array | Uint8Array | undefined;
  readonly valueOffsets: Int32Array | undefined;
}

/** One record batch of a frame: its row count and one chunk per schema field. */
interface FrameBatch {
  readonly length: number;
  readonly columns: readonly ColumnChunk[];
}

/** A frame's Arrow stream: schema metadata, fields (name and `String(type)` as apache-arrow prints it) and record batches. */
interface FrameStream {
  readonly metadata: ReadonlyMap<string, string>;
  readonly fields: readonly { readonly name: string; readonly type: string }[];
  readonly batches: readonly FrameBatch[];
}

/**
 * Reads a frame's Arrow IPC stream. The streams frames are made of (a schema, then record
 * batches of Int64 / Float64 / Utf8 / Binary columns, uncompressed, little-endian) are read
 * directly from the bytes ({@link readIpcStream}); anything else that stream reader does not
 * handle (dictionaries, compression, legacy framing, other types, malformed bytes) goes
 * through apache-arrow's `tableFromIPC`, which reads it or rejects it.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when apache-arrow cannot read the bytes either.
 */
function readFrameStream(bytes: Uint8Array): FrameStream {
  try {
    return readIpcStream(bytes);
  } catch {
    // Not a stream this reader handles: apache-arrow decides.
  }
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (e) {
    throw garbled(`reply is not an Arrow IPC stream (${e instanceof Error ? e.message : String(e)})`);
  }
  return {
    metadata: table.schema.metadata,
    fields: table.schema.fields.map((f) => ({ name: f.name, type: String(f.type) })),
    batches: table.batches.map((b) => ({ length: b.numRows, columns: b.data.children as readonly ColumnChunk[] })),
  };
}

/** Thrown by {@link readIpcStream} for a stream it does not read (apache-arrow then tries). */
class NotReadHere extends Error {}

/**
 * Minimal Arrow IPC stream reader for frames, over the flatbuffers of each message.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 * (encapsulated messages: 0xFFFFFFFF, int32 metadata length, a flatbuffer `Message`, the
 * body; end of stream: 0xFFFFFFFF 0x00000000); tables per Message.fbs and Schema.fbs;
 * flatbuffers binary layout: https://flatbuffers.dev/internals/ (table: int32 offset back to
 * its vtable of uint16 field offsets; uint32 offsets forward to strings, vectors, tables).
 * Reads are bounds-checked (DataView), so a malformed stream throws (RangeError or
 * NotReadHere) and never reads past the bytes.
 */
function readIpcStream(bytes: Uint8Array): FrameStream {
  const fb = new FlatReader(bytes);
  const dv = fb.dv;
  let fields: { name: string; type: string; buffers: number }[] | null = null;
  let metadata = new Map<string, string>();
  const batches: FrameBatch[] = [];
  let at = 0;
  while (at < bytes.length) {
    if (dv.getInt32(at, true) !== -1) notReadHere('legacy or malformed message framing');
    const metaLength = dv.getInt32(at + 4, true);
    at += 8;
    if (metaLength === 0) break; // end of stream
    if (metaLength < 0 || at + metaLength > bytes.length) notReadHere('message metadata past the end');
    const message = fb.deref(at);
    const bodyStart = at + metaLength;
    const version = fb.field(message, 0) === 0 ? 0 : dv.getInt16(fb.field(message, 0), true);
    if (version < 3) notReadHere('metadata version before V4'); // MetadataVersion V4 = 3, V5 = 4
    const headerType = fb.field(message, 1) === 0 ? 0 : dv.getUint8(fb.field(message, 1));
    if (fb.field(message, 2) === 0) notReadHere('message without header');
    const header = fb.deref(fb.field(message, 2));
    const bodyLength = fb.field(message, 3) === 0 ? 0 : fb.int64(fb.field(message, 3));
    if (bodyStart + bodyLength > bytes.length) notReadHere('message body past the end');
    if (headerType === 1) {
      if (fields !== null) notReadHere('second schema');
      const schema = readSchema(fb, header);
      fields = schema.fields;
      metadata = schema.metadata;
    } else if (headerType === 3) {
      if (fields === null) return notReadHere('record batch before the schema');
      batches.push(readRecordBatch(fb, header, fields, bodyStart, bodyLength));
    } else {
      notReadHere(`message header type ${headerType}`);
    }
    at = bodyStart + bodyLength;
  }
  if (fields === null) return notReadHere('no schema');
  return { metadata, fields, batches };
}

function notReadHere(why: string): never {
  throw new NotReadHere(why);
}

/** Bounds-checked reads of flatbuffers in `bytes` (positions are absolute). */
class FlatReader {
  readonly dv: DataView;
  readonly bytes: Uint8Array;

  constructor(bytes: Uint8Array) {
    this.bytes = bytes;
    this.dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** Position of field `id` of the table at `table`, 0 when absent. */
  field(table: number, id: number): number {
    const vtable = table - this.dv.getInt32(table, true);
    const at = 4 + 2 * id;
    if (at >= this.dv.getUint16(vtable, true)) return 0;
    const off = this.dv.getUint16(vtable + at, true);
    return off === 0 ? 0 : table + off;
  }

  /** Follows the uoffset stored at `at`. */
  deref(at: number): number {
    return at + this.dv.getUint32(at, true);
  }

  /** The vector the uoffset at `at` points to: start of its elements and their count. */
  vector(at: number, width: number): { start: number; length: number } {
    const v = this.deref(at);
    const length = this.dv.getUint32(v, true);
    if (v + 4 + length * width > this.bytes.length) notReadHere('vector past the end');
    return { start: v + 4, length };
  }

  string(at: number): string {
    const { start, length } = this.vector(at, 1);
    return decodeUtf8(this.bytes.subarray(start, start + length));
  }

  /** A non-negative int64 that is a safe integer. */
  int64(at: number): number {
    const v = this.dv.getBigInt64(at, true);
    if (v < 0n || v > 9007199254740991n) notReadHere('int64 out of range');
    return Number(v);
  }
}

/** Schema: endianness (0), fields (1), custom_metadata (2); Field: name (0), nullable (1), type_type (2), type (3), dictionary (4), children (5). */
function readSchema(fb: FlatReader, header: number): { fields: { name: string; type: string; buffers: number }[]; metadata: Map<string, string> } {
  const dv = fb.dv;
  if (fb.field(header, 0) !== 0 && dv.getInt16(fb.field(header, 0), true) !== 0) notReadHere('big-endian');
  const fields: { name: string; type: string; buffers: number }[] = [];
  if (fb.field(header, 1) !== 0) {
    const fv = fb.vector(fb.field(header, 1), 4);
    for (let i = 0; i < fv.length; i++) {
      const f = fb.deref(fv.start + 4 * i);
      if (fb.field(f, 4) !== 0) notReadHere('dictionary-encoded field');
      if (fb.field(f, 5) !== 0 && fb.vector(fb.field(f, 5), 4).length > 0) notReadHere('nested field');
      const typeId = fb.field(f, 2) === 0 ? 0 : dv.getUint8(fb.field(f, 2));
      const type = fb.field(f, 3) === 0 ? 0 : fb.deref(fb.field(f, 3));
      let name: string;
      let buffers: number;
      if (typeId === 2 && type !== 0) {
        // Int: bitWidth (0), is_signed (1).
        const bits = fb.field(type, 0) === 0 ? 0 : dv.getInt32(fb.field(type, 0), true);
        const signed = fb.field(type, 1) !== 0 && dv.getUint8(fb.field(type, 1)) !== 0;
        name = `${signed ? 'Int' : 'Uint'}${bits}`;
        buffers = 2;
      } else if (typeId === 3 && type !== 0) {
        // FloatingPoint: precision (0): HALF 0, SINGLE 1, DOUBLE 2.
        const precision = fb.field(type, 0) === 0 ? 0 : dv.getInt16(fb.field(type, 0), true);
        name = `Float${precision === 2 ? 64 : precision === 1 ? 32 : 16}`;
        buffers = 2;
      } else if (typeId === 4 || typeId === 5) {
        name = typeId === 4 ? 'Binary' : 'Utf8';
        buffers = 3;
      } else {
        return notReadHere(`field type ${typeId}`);
      }
      fields.push({ name: fb.field(f, 0) === 0 ? '' : fb.string(fb.field(f, 0)), type: name, buffers });
    }
  }
  const metadata = new Map<string, string>();
  if (fb.field(header, 2) !== 0) {
    const kv = fb.vector(fb.field(header, 2), 4);
    for (let i = 0; i < kv.length; i++) {
      const e = fb.deref(kv.start + 4 * i);
      metadata.set(fb.field(e, 0) === 0 ? '' : fb.string(fb.field(e, 0)), fb.field(e, 1) === 0 ? '' : fb.string(fb.field(e, 1)));
    }
  }
  return { fields, metadata };
}

/** RecordBatch: length (0), nodes (1: struct {length, null_count}), buffers (2: struct {offset, length}), compression (3). */
function readRecordBatch(fb: FlatReader, header: number, fields: readonly { type: string; buffers: number }[], bodyStart: number, bodyLength: number): FrameBatch {
  if (fb.field(header, 3) !== 0) notReadHere('compressed body');
  const length = fb.field(header, 0) === 0 ? 0 : fb.int64(fb.field(header, 0));
  const nodes = fb.field(header, 1) === 0 ? { start: 0, length: 0 } : fb.vector(fb.field(header, 1), 16);
  const bufs = fb.field(header, 2) === 0 ? { start: 0, length: 0 } : fb.vector(fb.field(header, 2), 16);
  if (nodes.length !== fields.length) notReadHere('one field node per field expected');
  const needed = fields.reduce((sum, f) => sum + f.buffers, 0);
  if (bufs.length !== needed) notReadHere(`${bufs.length} buffers, expected ${needed}`);
  const regions: Uint8Array[] = new Array(needed);
  for (let b = 0; b < needed; b++) {
    const off = fb.int64(bufs.start + 16 * b);
    const len = fb.int64(bufs.start + 16 * b + 8);
    if (off + len > bodyLength) notReadHere('buffer past the body');
    regions[b] = fb.bytes.subarray(bodyStart + off, bodyStart + off + len);
  }
  const columns: ColumnChunk[] = new Array(fields.length);
  let b = 0;
  for (let i = 0; i < fields.length; i++) {
    const f = fields[i]!;
    const rows = fb.int64(nodes.start + 16 * i);
    const nullCount = fb.int64(nodes.start + 16 * i + 8);
    const validity = regions[b++]!;
    const nullBitmap = nullCount > 0 ? validity : undefined;
    if (f.buffers === 2) {
      const data = regions[b++]!;
      const values = f.type === 'Int64' ? aligned(data, BigInt64Array) : f.type === 'Float64' ? aligned(data, Float64Array) : data;
      columns[i] = { length: rows, offset: 0, stride: 1, nullCount, nullBitmap, values, valueOffsets: undefined };
    } else {
      const valueOffsets = aligned(regions[b++]!, Int32Array);
      columns[i] = { length: rows, offset: 0, stride: 1, nullCount, nullBitmap, values: regions[b++]!, valueOffsets };
    }
  }
  return { length, columns };
}

/** `bytes` as a typed array of whole elements: a view when aligned, else a copy. */
function aligned<T extends BigInt64Array | Float64Array | Int32Array>(bytes: Uint8Array, Ctor: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number }): T {
  const width = Ctor.BYTES_PER_ELEMENT;
  const count = Math.floor(bytes.length / width);
  if (bytes.byteOffset % width === 0) return new Ctor(bytes.buffer, bytes.byteOffset, count);
  const copy = bytes.slice(0, count * width);
  return new Ctor(copy.buffer, 0, count);
}

/**
 * Whether two of the `n` groups have equal key tuples, with the equality of `groupKeyString`
 * (partial.ts): NULLs equal, -0 equal to 0, NaN equal to NaN, otherwise equal values. Each
 * key column holds one type, where that is SameValueZero, so a trie of Maps decides it
 * without building a string per group: a level holds, per key value, either the one row
 * with that prefix (its index) or the next level; a level is added only where two rows
 * share a prefix. No key columns: more than one group repeats.
 */
function repeatsAGroup(keys: readonly (readonly Scalar[])[], n: number): boolean {
  const nk = keys.length;
  if (nk === 0) return n > 1;
  const root = new Map<Scalar, unknown>();
  for (let r = 0; r < n; r++) {
    let level = root;
    for (let c = 0; ; c++) {
      const k = keys[c]![r]!;
      const hit = level.get(k);
      if (hit === undefined) {
        level.set(k, r);
        break;
      }
      if (typeof hit === 'number') {
        // Row `hit` shares keys 0..c: compare the rest, then split where they differ.
        let d = c + 1;
        while (d < nk && sameValueZero(keys[d]![r]!, keys[d]![hit]!)) d++;
        if (d === nk) return true;
        let node = new Map<Scalar, unknown>();
        level.set(k, node);
        for (let e = c + 1; e < d; e++) {
          const next = new Map<Scalar, unknown>();
          node.set(keys[e]![r]!, next);
          node = next;
        }
        node.set(keys[d]![hit]!, hit);
        node.set(keys[d]![r]!, r);
        break;
      }
      level = hit as Map<Scalar, unknown>;
    }
  }
  return false;
}

function sameValueZero(a: Scalar, b: Scalar): boolean {
  return a === b || (a !== a && b !== b); // NaN
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
function readColumn(batches: readonly FrameBatch[], c: number, storage: Storage, name: string, n: number): unknown[] {
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

/** Cells of a key or row column -> scalars, in place (bool travels as 'true' / 'false'). */
function fromCells(t: ColumnType, cells: unknown[]): Scalar[] {
  for (let r = 0; r < cells.length; r++) cells[r] = fromCell(t, cells[r]);
  return cells as Scalar[];
}

function fromCell(t: ColumnType, v: unknown): Scalar {
  if (v === null || v === undefined) return null;
  if (t === 'bool') return v === 'true';
  if (t === 'int64' && typeof v !== 'bigint') throw new Error(`expected int64, got ${typeof v}`);
  if ((t === 'float64' || t === 'timestamp') && typeof v !== 'number') throw new Error(`expected number, got ${typeof v}`);
  if (t === 'string' && typeof v !== 'string') throw new Error(`expected string, got ${typeof v}`);
  return v as Scalar;
}

/** JSON text of a request value; bigints become `{"$bigint":"..."}`. */
export function toWireJSON(value: unknown): string {
  try {
    // Most requests hold no bigint: the plain stringify is several times faster than with a replacer.
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));
}

/**
 * Parses {@link toWireJSON} text.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST if it is not JSON.
 */
export function fromWireJSON(text: string): unknown {
  try {
    // Without a `$bigint` key (written literally, or with an escape) the reviver would change nothing.
    if (!text.includes('$bigint') && !text.includes('\\u')) return JSON.parse(text) as unknown;
    return JSON.parse(text, (_k, v: unknown) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const o = v as Record<string, unknown>;
        if (typeof o.$bigint === 'string' && Object.keys(o).length === 1 && /^-?\d+$/.test(o.$bigint)) return BigInt(o.$bigint);
      }
      return v;
    });
  } catch {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'request body is not JSON');
  }
}

/** Media type of a reply made of several frames, each a u32 big-endian length then an Arrow IPC stream. */
export const FRAMES_TYPE = 'application/vnd.canopy.frames';

/** One frame's bytes with its length prefix. */
export function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  const out = new Uint8Array(4 + bytes.length);
  new DataView(out.buffer).setUint32(0, bytes.length, false);
  out.set(bytes, 4);
  return out;
}

/**
 * Splits length-prefixed frames out of arriving chunks. Feed chunks with `push`; it returns
 * the frames completed so far. Each arriving chunk is copied once (its producer may reuse
 * its memory) and kept until a frame is whole; a frame inside one chunk is a view of that
 * copy, one spanning chunks is joined once: a large frame in many small chunks costs linear
 * time (it was a whole-buffer copy per chunk).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when a frame claims more than `maxFrameBytes`.
 */
export class FrameSplitter {
  /** Chunks not yet consumed; the first starts `#offset` bytes in. */
  readonly #chunks: Uint8Array[] = [];
  #offset = 0;
  #pending = 0;
  /** Length of the next frame once its prefix has been read, else -1. */
  #next = -1;
  readonly #max: number;

  constructor(maxFrameBytes: number) {
    this.#max = maxFrameBytes;
  }

  push(chunk: Uint8Array): Uint8Array[] {
    if (chunk.length > 0) {
      // A copy: a chunk may be a view of a larger buffer its producer goes on using (undici's
      // body chunks over HTTP); frames read from it as views came back garbled.
      this.#chunks.push(new Uint8Array(chunk));
      this.#pending += chunk.length;
    }
    const out: Uint8Array[] = [];
    for (;;) {
      if (this.#next < 0) {
        if (this.#pending < 4) break;
        const head = this.#take(4);
        const len = new DataView(head.buffer, head.byteOffset, 4).getUint32(0, false);
        if (len > this.#max) throw garbled(`frame of ${len} bytes exceeds ${this.#max}`);
        this.#next = len;
      }
      if (this.#pending < this.#next) break;
      out.push(this.#take(this.#next));
      this.#next = -1;
    }
    return out;
  }

  /** The next `n` bytes (n <= pending): a view when they lie in the first chunk, else one copy. */
  #take(n: number): Uint8Array {
    const first = this.#chunks[0];
    if (first !== undefined && first.length - this.#offset >= n) {
      const view = first.subarray(this.#offset, this.#offset + n);
      this.#advance(n);
      return view;
    }
    const out = new Uint8Array(n);
    let filled = 0;
    while (filled < n) {
      const c = this.#chunks[0]!;
      const m = Math.min(n - filled, c.length - this.#offset);
      out.set(c.subarray(this.#offset, this.#offset + m), filled);
      filled += m;
      this.#advance(m);
    }
    return out;
  }

  #advance(n: number): void {
    this.#pending -= n;
    this.#offset += n;
    while (this.#chunks.length > 0 && this.#offset >= this.#chunks[0]!.length) {
      this.#offset -= this.#chunks[0]!.length;
      this.#chunks.shift();
    }
  }

  /** Bytes left over that do not make a whole frame (a read length prefix included). */
  get pending(): number {
    return this.#pending + (this.#next >= 0 ? 4 : 0);
  }
}
