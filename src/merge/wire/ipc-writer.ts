/**
 * The Arrow IPC stream writer of frames: the schema and record-batch messages as flatbuffers
 * (built with the `flatbuffers` package's Builder, the one apache-arrow uses), 8-byte aligned
 * buffers, the end-of-stream marker.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 */
import { type EncodedColumn, TYPE_IDS } from './columns.ts';
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
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 */
export function writeIpcStream(cols: readonly EncodedColumn[], n: number, header: string): Uint8Array {
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
  const value = b.createString(header);
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

/** Flatbuffer `Message { version, header: RecordBatch { length, nodes, buffers }, bodyLength }`; `regions` holds (offset, length) pairs. */
function recordBatchMessage(cols: readonly EncodedColumn[], n: number, regions: readonly number[], bodyLength: number): Uint8Array {
  const b = builder();
  const nodes = int64Pairs(b, cols.flatMap((c) => [n, c.nullCount])); // FieldNode { length, null_count }
  const buffers = int64Pairs(b, regions); // Buffer { offset, length }
  b.startObject(3);
  b.addFieldInt64(0, BigInt(n), 0n);
  b.addFieldOffset(1, nodes, 0);
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
