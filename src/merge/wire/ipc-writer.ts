/**
 * The Arrow IPC stream writer of frames: the schema and record-batch messages as flatbuffers
 * (./flatbuffers.ts), 8-byte aligned buffers, the end-of-stream marker.
 * Format: https://arrow.apache.org/docs/format/Columnar.html#serialization-and-interprocess-communication-ipc
 */
import { type EncodedColumn, TYPE_IDS } from './columns.ts';
import { FlatBuilder } from './flatbuffers.ts';

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
