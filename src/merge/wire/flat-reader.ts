/**
 * A bounds-checked flatbuffers reader, enough for the Arrow IPC messages of frames
 * (Message.fbs, Schema.fbs). Kept by hand: the `flatbuffers` package's ByteBuffer does not
 * check bounds, and a child's reply is untrusted input. Binary layout:
 * https://flatbuffers.dev/internals/
 */
import { decodeUtf8 } from '../utf8.ts';

/** Thrown by the IPC reader (./ipc-reader.ts) for a stream it does not read: the reply is garbled. */
export class NotReadHere extends Error {}

/** Throws {@link NotReadHere} with `why`. */
export function notReadHere(why: string): never {
  throw new NotReadHere(why);
}

/** Bounds-checked reads of flatbuffers in `bytes` (positions are absolute). */
export class FlatReader {
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

  /** A non-negative int64 that is a safe integer (read as two uint32 halves: no bigint per number). */
  int64(at: number): number {
    const lo = this.dv.getUint32(at, true);
    const hi = this.dv.getUint32(at + 4, true);
    // 0 <= v <= 2^53 - 1 exactly when the high half is at most 2^21 - 1 (a negative one has its top bit set).
    if (hi > 0x1fffff) notReadHere('int64 out of range');
    return hi * 4294967296 + lo;
  }
}
