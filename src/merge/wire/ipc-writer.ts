/**
 * The Arrow IPC stream writer of frames: the schema and record-batch messages as flatbuffers
 * (built with the `flatbuffers` package's Builder, the one apache-arrow uses), 8-byte aligned
 * buffers, the end-of-stream marker.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 */
import { CanopyError } from '../errors.ts';
import { type EncodedColumn, TYPE_IDS } from './columns.ts';
import { smallBytes } from './slab.ts';
import * as flatbuffers from 'flatbuffers';

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
 *
 * Both messages come from templates built once per column shape ({@link shapeOf}): the
 * schema message with the header string placed last, so a frame's message is the template's
 * prefix then the header's length and UTF-8 bytes; the record batch message with every
 * number at a known position, patched per frame. Building the two flatbuffers per frame
 * was about a quarter of a leaf host's CPU for a small answer.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 */
export function writeIpcStream(cols: readonly EncodedColumn[], n: number, header: string): Uint8Array {
  const shape = shapeOf(cols);
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
  const text = headerBytes(header);
  // Schema message: the template's prefix, the string's u32 length, its bytes and a NUL.
  const schemaLength = pad8(shape.schemaPrefix.length + 4 + text.length + 1);
  const batchLength = shape.batch.length;
  const out = smallBytes(8 + schemaLength + 8 + batchLength + bodyLength + 8);
  const dv = new DataView(out.buffer, out.byteOffset, out.byteLength);
  dv.setInt32(0, -1, true); // continuation marker
  dv.setInt32(4, schemaLength, true);
  out.set(shape.schemaPrefix, 8);
  dv.setUint32(8 + shape.schemaPrefix.length, text.length, true);
  out.set(text, 8 + shape.schemaPrefix.length + 4);
  let at = 8 + schemaLength;
  dv.setInt32(at, -1, true);
  dv.setInt32(at + 4, batchLength, true);
  out.set(shape.batch, at + 8);
  const b0 = at + 8;
  const slots = shape.slots;
  const put = (slot: number, v: number): void => {
    const pos = b0 + slots[slot]!;
    dv.setUint32(pos, v >>> 0, true);
    dv.setUint32(pos + 4, Math.floor(v / 4294967296), true);
  };
  // Slots: length, bodyLength, then (length, null_count) per field node, then (offset, length) per buffer.
  put(0, n);
  put(1, bodyLength);
  for (let i = 0; i < cols.length; i++) {
    put(2 + 2 * i, n);
    put(3 + 2 * i, cols[i]!.nullCount);
  }
  const base = 2 + 2 * cols.length;
  for (let i = 0; i < regions.length; i++) put(base + i, regions[i]!);
  at = b0 + batchLength;
  for (let i = 0; i < buffers.length; i++) {
    const b = buffers[i];
    if (b !== null && b !== undefined) out.set(b, at + regions[2 * i]!);
  }
  at += bodyLength;
  dv.setInt32(at, -1, true); // end of stream: continuation marker, length 0
  return out;
}

const utf8 = new TextEncoder();
/** Scratch for encoding headers (grown as needed; the bytes are copied into the stream). */
let scratch = new Uint8Array(4096);

/** The UTF-8 bytes of `text`: a view of the shared scratch, valid until the next call. */
function headerBytes(text: string): Uint8Array {
  // At most 3 bytes per UTF-16 unit.
  if (scratch.length < 3 * text.length) scratch = new Uint8Array(Math.max(3 * text.length, 2 * scratch.length));
  const { written } = utf8.encodeInto(text, scratch);
  return scratch.subarray(0, written);
}

/** What {@link writeIpcStream} reuses for every stream of one column shape. */
interface Shape {
  /** The schema message up to (not including) the header string's length prefix. */
  readonly schemaPrefix: Uint8Array;
  /** The record batch message with placeholder numbers (padded to 8 bytes). */
  readonly batch: Uint8Array;
  /** Byte positions in `batch` of its int64 numbers (see writeIpcStream for their order). */
  readonly slots: readonly number[];
}

/** Templates by column shape (names and storage types); a tree sees a handful of shapes. */
const SHAPES = new Map<string, Shape>();
const SHAPE_CACHE_SIZE = 256;

/** Shape of a column: what a {@link Shape} depends on. */
interface ColumnShape {
  readonly name: string;
  readonly storage: EncodedColumn['storage'];
  readonly offsets: boolean;
}

/** The column shapes of the last {@link shapeOf} call and their {@link Shape}: a host's frames mostly share one (no key string built per frame, no column kept). */
let lastCols: readonly ColumnShape[] = [];
let lastShape: Shape | null = null;

/** Whether columns `a` have the shapes `b`. */
function sameShape(a: readonly EncodedColumn[], b: readonly ColumnShape[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) {
    const x = a[i]!;
    const y = b[i]!;
    if (x.name !== y.name || x.storage !== y.storage || (x.offsets !== null) !== y.offsets) return false;
  }
  return true;
}

/** The {@link Shape} of these columns, built on first use. */
function shapeOf(cols: readonly EncodedColumn[]): Shape {
  if (lastShape !== null && sameShape(cols, lastCols)) return lastShape;
  lastShape = shapeByKey(cols);
  lastCols = cols.map((c) => ({ name: c.name, storage: c.storage, offsets: c.offsets !== null }));
  return lastShape;
}

/** {@link shapeOf} by a key string of the column shape (names and types). */
function shapeByKey(cols: readonly EncodedColumn[]): Shape {
  let key = '';
  for (const c of cols) key += `${c.name}\u0000${c.storage}\u0000${c.offsets !== null ? 1 : 0}\u0001`;
  const hit = SHAPES.get(key);
  if (hit !== undefined) return hit;
  const shape = buildShape(cols);
  if (SHAPES.size >= SHAPE_CACHE_SIZE) SHAPES.delete(SHAPES.keys().next().value!);
  SHAPES.set(key, shape);
  return shape;
}

/** Marks the placeholders of the record batch template, found by their bytes: 2^52 + 0x5a000000 + slot (distinct, exact doubles for up to 2^24 slots). */
function sentinel(slot: number): number {
  return 2 ** 52 + 0x5a000000 + slot;
}

function buildShape(cols: readonly EncodedColumn[]): Shape {
  // The header string is the builder's first object, so it ends the message: a 4-byte length,
  // its bytes, a NUL, padding. With an empty string the prefix is everything before the length.
  const schema = schemaMessage(cols, '');
  const strAt = emptyStringAt(schema);
  const schemaPrefix = schema.slice(0, strAt);
  const buffersPerCol = cols.map((c) => (c.offsets !== null ? 3 : 2));
  const nBuffers = buffersPerCol.reduce((a, b) => a + b, 0);
  const count = 2 + 2 * cols.length + 2 * nBuffers;
  const values = Array.from({ length: count }, (_, i) => sentinel(i));
  const nodes = cols.flatMap((_, i) => [values[2 + 2 * i]!, values[3 + 2 * i]!]);
  const regions = values.slice(2 + 2 * cols.length);
  const raw = recordBatchMessage(values[0]!, nodes, regions, values[1]!);
  const batch = new Uint8Array(pad8(raw.length));
  batch.set(raw);
  const dv = new DataView(batch.buffer);
  const slots: number[] = [];
  for (let i = 0; i < count; i++) {
    const v = values[i]!;
    const lo = v >>> 0;
    const hi = Math.floor(v / 4294967296);
    let found = -1;
    for (let p = 0; p + 8 <= batch.length; p += 4) {
      if (dv.getUint32(p, true) === lo && dv.getUint32(p + 4, true) === hi) {
        if (found >= 0) throw new CanopyError('CANOPY_ERR_INTERNAL', `ipc-writer: placeholder ${i} found twice in the record batch template`);
        found = p;
      }
    }
    if (found < 0) throw new CanopyError('CANOPY_ERR_INTERNAL', `ipc-writer: placeholder ${i} not found in the record batch template`);
    slots.push(found);
  }
  return { schemaPrefix, batch, slots };
}

/** Where the empty header string (u32 length 0, a NUL, padding) starts: the last 4-aligned u32 of 0 followed by a NUL. */
function emptyStringAt(schema: Uint8Array): number {
  // flatbuffers' createString pads the string so its length is 4-aligned: `len(4) NUL pad(3)` at the end.
  const at = schema.length - 8;
  const dv = new DataView(schema.buffer, schema.byteOffset, schema.length);
  if (at < 0 || dv.getUint32(at, true) !== 0 || schema[at + 4] !== 0) throw new CanopyError('CANOPY_ERR_INTERNAL', 'ipc-writer: the schema template does not end with its header string');
  return at;
}

/** MetadataVersion V5 and the MessageHeader union ids (Message.fbs). */
const METADATA_V5 = 4;
const HEADER_SCHEMA = 1;
const HEADER_RECORD_BATCH = 3;

/** A flatbuffers Builder that writes every field, defaults included (as apache-arrow's writer does for these messages). */
function builder(): flatbuffers.Builder {
  const b = new flatbuffers.Builder(1024);
  b.forceDefaults(true);
  return b;
}

/** A vector of table offsets. */
function offsets(b: flatbuffers.Builder, targets: readonly number[]): number {
  b.startVector(4, targets.length, 4);
  for (let i = targets.length - 1; i >= 0; i--) b.addOffset(targets[i]!);
  return b.endVector();
}

/** A vector of structs of two int64 (FieldNode { length, null_count }, Buffer { offset, length }); `pairs` holds them flat. */
function int64Pairs(b: flatbuffers.Builder, pairs: readonly number[]): number {
  const count = pairs.length / 2;
  b.startVector(16, count, 8);
  for (let i = count - 1; i >= 0; i--) {
    b.prep(8, 16);
    b.writeInt64(BigInt(pairs[2 * i + 1]!));
    b.writeInt64(BigInt(pairs[2 * i]!));
  }
  return b.endVector();
}

/** The finished message's bytes: a view into the builder's buffer (writeIpcStream copies it into the stream). */
function finish(b: flatbuffers.Builder, root: number): Uint8Array {
  b.finish(root);
  return b.asUint8Array();
}

/** Flatbuffer `Message { version, header: Schema { fields, custom_metadata }, bodyLength: 0 }`. */
function schemaMessage(cols: readonly EncodedColumn[], header: string): Uint8Array {
  const b = builder();
  // First, so that it is last in the message (flatbuffers are built back to front): see buildShape.
  const value = b.createString(header);
  const fields = cols.map((c) => {
    const name = b.createString(c.name);
    let type: number;
    if (c.storage === 'int64') {
      b.startObject(2);
      b.addFieldInt32(0, 64, 0); // Int.bitWidth
      b.addFieldInt8(1, 1, 0); // Int.is_signed
      type = b.endObject();
    } else if (c.storage === 'float64') {
      b.startObject(1);
      b.addFieldInt16(0, 2, 0); // FloatingPoint.precision: DOUBLE
      type = b.endObject();
    } else {
      b.startObject(0); // Utf8 {} / Binary {}
      type = b.endObject();
    }
    const children = offsets(b, []);
    // Field: name (0), nullable (1), type_type (2), type (3), dictionary (4), children (5).
    b.startObject(6);
    b.addFieldOffset(0, name, 0);
    b.addFieldInt8(1, 1, 0);
    b.addFieldInt8(2, TYPE_IDS[c.storage], 0);
    b.addFieldOffset(3, type, 0);
    b.addFieldOffset(5, children, 0);
    return b.endObject();
  });
  const key = b.createString('canopy.frame');
  b.startObject(2); // KeyValue: key (0), value (1)
  b.addFieldOffset(0, key, 0);
  b.addFieldOffset(1, value, 0);
  const kv = b.endObject();
  const fieldVector = offsets(b, fields);
  const metadata = offsets(b, [kv]);
  b.startObject(3); // Schema: endianness (0, Little), fields (1), custom_metadata (2)
  b.addFieldInt16(0, 0, 0);
  b.addFieldOffset(1, fieldVector, 0);
  b.addFieldOffset(2, metadata, 0);
  const schema = b.endObject();
  return finish(b, message(b, HEADER_SCHEMA, schema, 0));
}

/** Flatbuffer `Message { version, header: RecordBatch { length, nodes, buffers }, bodyLength }`; `nodes` holds (length, null_count) pairs, `regions` (offset, length) pairs. */
function recordBatchMessage(n: number, nodes: readonly number[], regions: readonly number[], bodyLength: number): Uint8Array {
  const b = builder();
  const nodeVector = int64Pairs(b, nodes); // FieldNode { length, null_count }
  const buffers = int64Pairs(b, regions); // Buffer { offset, length }
  b.startObject(3);
  b.addFieldInt64(0, BigInt(n), 0n);
  b.addFieldOffset(1, nodeVector, 0);
  b.addFieldOffset(2, buffers, 0);
  const batch = b.endObject();
  return finish(b, message(b, HEADER_RECORD_BATCH, batch, bodyLength));
}

/** Message: version (0), header_type (1), header (2), bodyLength (3). */
function message(b: flatbuffers.Builder, headerType: number, header: number, bodyLength: number): number {
  b.startObject(4);
  b.addFieldInt64(3, BigInt(bodyLength), 0n);
  b.addFieldOffset(2, header, 0);
  b.addFieldInt16(0, METADATA_V5, 0);
  b.addFieldInt8(1, headerType, 0);
  return b.endObject();
}
