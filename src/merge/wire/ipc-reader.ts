/**
 * The Arrow IPC stream reader of frames: reads the streams frames are made of directly from
 * the bytes, and nothing else (a child's reply is untrusted). `arrowFrameStream` reads a
 * stream through apache-arrow's `tableFromIPC` instead: the fair baseline of bench/wire-baseline.ts.
 */
import { type Table, tableFromIPC } from 'apache-arrow';
import type { ColumnChunk, FrameBatch, FrameStream } from './columns.ts';
import { FlatReader, notReadHere } from './flat-reader.ts';
import { smallBytes } from './slab.ts';
import { garbled } from './header.ts';

/**
 * Reads a frame's Arrow IPC stream: the streams frames are made of (a schema, then record
 * batches of Int64 / Float64 / Utf8 / Binary columns, uncompressed, little-endian, with or
 * without the continuation marker of Arrow >= 0.15) are read directly from the bytes
 * ({@link readIpcStream}), bounds-checked. Anything else (dictionaries, compression, other
 * types, malformed bytes) is garbled: a child's reply is untrusted, and apache-arrow, which
 * read such streams before, trusts their lengths (a garbled one made it allocate until the
 * process ran out of memory, or spin for seconds).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED naming what the reader could not read.
 */
export function readFrameStream(bytes: Uint8Array): FrameStream {
  try {
    return readIpcStream(bytes);
  } catch (e) {
    throw garbled(`reply is not an Arrow IPC stream of a frame (${e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * A frame's stream as apache-arrow reads it (`tableFromIPC`; each chunk is its `Data`, read
 * through `.values`, `.valueOffsets`, `.nullBitmap`): the fallback of {@link readFrameStream},
 * and the reader of the fair baseline in bench/wire-baseline.ts.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when apache-arrow cannot read the bytes.
 */
export function arrowFrameStream(bytes: Uint8Array): FrameStream {
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


/**
 * Minimal Arrow IPC stream reader for frames, over the flatbuffers of each message.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 * (encapsulated messages: 0xFFFFFFFF, int32 metadata length, a flatbuffer `Message`, the
 * body; end of stream: 0xFFFFFFFF 0x00000000; the legacy framing has no 0xFFFFFFFF); tables per Message.fbs and Schema.fbs;
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
    // A message is the continuation marker 0xFFFFFFFF and its metadata length, or (legacy
    // framing, before Arrow 0.15) the length alone.
    const legacy = dv.getInt32(at, true) !== -1;
    const metaLength = dv.getInt32(legacy ? at : at + 4, true);
    at += legacy ? 4 : 8;
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
      const values = regions[b++]!;
      columns[i] = { length: rows, offset: 0, stride: 1, nullCount, nullBitmap, values, valueOffsets };
    }
  }
  return { length, columns };
}

/** `bytes` as a typed array of whole elements: a view when aligned, else a copy. */
function aligned<T extends BigInt64Array | Float64Array | Int32Array>(bytes: Uint8Array, Ctor: { new (buffer: ArrayBufferLike, byteOffset: number, length: number): T; readonly BYTES_PER_ELEMENT: number }): T {
  const width = Ctor.BYTES_PER_ELEMENT;
  const count = Math.floor(bytes.length / width);
  if (bytes.byteOffset % width === 0) return new Ctor(bytes.buffer, bytes.byteOffset, count);
  const copy = smallBytes(count * width);
  copy.set(bytes.subarray(0, count * width));
  return new Ctor(copy.buffer, copy.byteOffset, count);
}
