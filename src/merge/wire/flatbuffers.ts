/**
 * Minimal flatbuffers builder and bounds-checked reader, enough for the Arrow IPC messages of
 * frames (Message.fbs, Schema.fbs). Binary layout: https://flatbuffers.dev/internals/
 */
import { decodeUtf8 } from '../utf8.ts';

const flatUtf8 = new TextEncoder();

/** Thrown by the IPC reader (./ipc-reader.ts) for a stream it does not read (apache-arrow then tries). */
export class NotReadHere extends Error {}

/** Throws {@link NotReadHere} with `why`. */
export function notReadHere(why: string): never {
  throw new NotReadHere(why);
}

/**
 * Minimal flatbuffers builder (back to front, as the reference builders: children before
 * parents, offsets pointing forward), enough for Arrow's Message / Schema / RecordBatch
 * tables. Source: https://flatbuffers.dev/internals/ and the reference JavaScript builder
 * (flatbuffers/js/builder.ts: prep, startTable / endTable with a vtable per table, finish).
 * Offsets returned are distances from the end of the buffer.
 */
export class FlatBuilder {
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
    const bytes = ascii ? null : flatUtf8.encode(s);
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

  /** A non-negative int64 that is a safe integer. */
  int64(at: number): number {
    const v = this.dv.getBigInt64(at, true);
    if (v < 0n || v > 9007199254740991n) notReadHere('int64 out of range');
    return Number(v);
  }
}
