/**
 * PostgreSQL v3 message framing (https://www.postgresql.org/docs/current/protocol-message-formats.html).
 * Backend messages are built with node-postgres' own `Writer` (pg-protocol); frontend
 * messages are split and read here, because pg-protocol's parser only knows backend
 * messages. Every read is bounds-checked: a short or malformed message is a
 * {@link ProtocolError}, never a crash or an over-read.
 */
import { firstInvalidUtf8 } from '../merge/index.ts';
import { Writer } from 'pg-protocol/dist/buffer-writer.js';

/** Protocol codes of the untyped first messages (startup phase). */
export const PROTOCOL_3_0 = 196608;
export const SSL_REQUEST = 80877103;
export const GSSENC_REQUEST = 80877104;
export const CANCEL_REQUEST = 80877102;

/** Largest startup packet PostgreSQL itself accepts (bytes). */
export const MAX_STARTUP_BYTES = 10_000;

/** The type bytes of the protocol's (3.0) frontend messages: Bind, Close, CopyData / Done / Fail, Describe, Execute, Flush, FunctionCall, password / SASL, Parse, Query, Sync, Terminate. */
const FRONTEND_TYPES: ReadonlySet<number> = new Set([...'BCdcfDEHFpPQSX'].map((c) => c.charCodeAt(0)));

/** A violation of the wire protocol, with its SQLSTATE (08P01 protocol_violation unless said). */
export class ProtocolError extends Error {
  readonly sqlstate: string;
  constructor(message: string, sqlstate = '08P01') {
    super(message);
    this.name = 'ProtocolError';
    this.sqlstate = sqlstate;
  }
}

/** An error with a PostgreSQL SQLSTATE of its own (a statement refused by the protocol layer or the catalog; the session goes on). */
export class PgSqlError extends Error {
  readonly sqlstate: string;
  constructor(sqlstate: string, message: string) {
    super(message);
    this.name = 'PgSqlError';
    this.sqlstate = sqlstate;
  }
}

/** One frontend message: its type byte (0 for a startup-phase packet) and its body. */
export interface FrontendMessage {
  readonly type: number;
  readonly body: Buffer;
}

/**
 * Splits a byte stream into frontend messages. The first packet of a connection has no type
 * byte (`Int32 length, Int32 code, ...`); once `started` is set, every message is
 * `Byte1 type, Int32 length, body`.
 * @throws ProtocolError for a length below the header or above `maxBytes` (54000
 *   program_limit_exceeded for the latter), before buffering the body.
 */
export class FrameSplitter {
  started = false;
  // Chunks as they arrived: a large message is joined once, when complete (no copy per chunk).
  #chunks: Buffer[] = [];
  #len = 0;
  readonly #maxBytes: number;

  /** @param maxBytes largest message accepted, bytes (length field included). */
  constructor(maxBytes: number) {
    this.#maxBytes = maxBytes;
  }

  /** The first `n` buffered bytes in one buffer (joining chunks only when the first is shorter). */
  #head(n: number): Buffer {
    if (this.#chunks[0]!.length < n) this.#chunks = [Buffer.concat(this.#chunks)];
    return this.#chunks[0]!;
  }

  /** Adds bytes; returns the complete messages they finish, in order. */
  push(chunk: Buffer): FrontendMessage[] {
    if (chunk.length > 0) {
      this.#chunks.push(chunk);
      this.#len += chunk.length;
    }
    const out: FrontendMessage[] = [];
    for (;;) {
      const head = this.started ? 5 : 4;
      if (this.#len < head) break;
      const first = this.#head(head);
      const len = first.readInt32BE(head - 4);
      // An unknown type is refused on its header, as PostgreSQL does, not after its announced body.
      if (this.started && !FRONTEND_TYPES.has(first[0]!)) throw new ProtocolError(`invalid frontend message type ${first[0]!} ('${String.fromCharCode(first[0]!)}')`);
      const limit = this.started ? this.#maxBytes : MAX_STARTUP_BYTES;
      if (len < 4 || (!this.started && len < 8)) throw new ProtocolError(`invalid message length ${len}`);
      if (len > limit) throw new ProtocolError(`message of ${len} bytes exceeds the limit of ${limit} bytes`, this.started ? '54000' : '08P01');
      const total = head - 4 + len;
      if (this.#len < total) break;
      const buf = this.#head(total);
      const type = this.started ? buf[0]! : 0;
      out.push({ type, body: buf.subarray(head, total) });
      const rest = buf.subarray(total);
      this.#chunks[0] = rest;
      if (rest.length === 0) this.#chunks.shift();
      this.#len -= total;
      // A startup packet is followed by typed messages, except after SSL/GSS negotiation.
      if (!this.started) break;
    }
    return out;
  }

  /** Bytes received but not yet part of a complete message. */
  get pending(): number {
    return this.#len;
  }
}

/** A bounds-checked reader over one message body. */
export class Reader {
  #off = 0;
  readonly #b: Buffer;
  constructor(body: Buffer) {
    this.#b = body;
  }

  #need(n: number, what: string): void {
    if (n < 0 || this.#off + n > this.#b.length) throw new ProtocolError(`message too short: ${what} needs ${n} bytes at offset ${this.#off} of ${this.#b.length}`);
  }

  int16(): number {
    this.#need(2, 'Int16');
    const v = this.#b.readInt16BE(this.#off);
    this.#off += 2;
    return v;
  }

  int32(): number {
    this.#need(4, 'Int32');
    const v = this.#b.readInt32BE(this.#off);
    this.#off += 4;
    return v;
  }

  byte(): number {
    this.#need(1, 'Byte1');
    return this.#b[this.#off++]!;
  }

  /** A NUL-terminated UTF-8 string. */
  cstring(): string {
    const end = this.#b.indexOf(0, this.#off);
    if (end < 0) throw new ProtocolError(`unterminated string at offset ${this.#off}`);
    const s = this.#b.toString('utf8', this.#off, end);
    this.#off = end + 1;
    return s;
  }

  /**
   * A NUL-terminated string that must be valid UTF-8 (SQL text: bytes decoded to U+FFFD would
   * query another string than the one sent). The string is consumed either way.
   * @throws ProtocolError 08P01 when unterminated; PgSqlError 22021 naming the first bad byte, as PostgreSQL does.
   */
  cstringUtf8(): string {
    const start = this.#off;
    const end = this.#b.indexOf(0, start);
    const s = this.cstring();
    const bytes = this.#b.subarray(start, end);
    const i = firstInvalidUtf8(bytes);
    if (i >= 0) throw new PgSqlError('22021', `invalid byte sequence for encoding "UTF8": 0x${bytes.subarray(i, i + 2).toString('hex')}`);
    return s;
  }

  bytes(n: number): Buffer {
    this.#need(n, `a ${n}-byte value`);
    const v = this.#b.subarray(this.#off, this.#off + n);
    this.#off += n;
    return v;
  }

  /** Bytes left unread. */
  get remaining(): number {
    return this.#b.length - this.#off;
  }

  /** Throws unless the whole body was read (a message with trailing bytes is malformed). */
  end(what: string): void {
    if (this.remaining !== 0) throw new ProtocolError(`${what} message has ${this.remaining} unexpected trailing bytes`);
  }
}

/** Parameters of a StartupMessage (protocol 3.0): name/value pairs ending in an empty name. */
export function readStartupParams(r: Reader): Map<string, string> {
  const params = new Map<string, string>();
  for (;;) {
    const name = r.cstring();
    if (name === '') break;
    params.set(name, r.cstring());
  }
  r.end('StartupMessage');
  return params;
}

/** A field of RowDescription. */
export interface FieldDescription {
  readonly name: string;
  readonly typeOid: number;
  /** Type size in bytes, -1 for variable length. */
  readonly typeSize: number;
  /** 0 text, 1 binary. */
  readonly format: number;
}

/** Builders of the backend messages canopy sends (each returns one framed message). */
export const backend = {
  authentication(code: number, extra?: Buffer): Buffer {
    const w = new Writer().addInt32(code);
    if (extra !== undefined) w.add(extra);
    return w.flush(0x52); // R
  },
  parameterStatus(name: string, value: string): Buffer {
    return new Writer().addCString(name).addCString(value).flush(0x53); // S
  },
  backendKeyData(pid: number, key: number): Buffer {
    return new Writer().addInt32(pid).addInt32(key).flush(0x4b); // K
  },
  readyForQuery(status: 'I' | 'T' | 'E'): Buffer {
    return new Writer().add(Buffer.from(status)).flush(0x5a); // Z
  },
  rowDescription(fields: readonly FieldDescription[]): Buffer {
    const w = new Writer().addInt16(fields.length);
    for (const f of fields) w.addCString(f.name).addInt32(0).addInt16(0).addInt32(f.typeOid).addInt16(f.typeSize).addInt32(-1).addInt16(f.format);
    return w.flush(0x54); // T
  },
  dataRow(values: readonly (Buffer | null)[]): Buffer {
    const w = new Writer().addInt16(values.length);
    for (const v of values) {
      if (v === null) w.addInt32(-1);
      else w.addInt32(v.length).add(v);
    }
    return w.flush(0x44); // D
  },
  commandComplete(tag: string): Buffer {
    return new Writer().addCString(tag).flush(0x43); // C
  },
  emptyQuery(): Buffer {
    return new Writer().flush(0x49); // I
  },
  parseComplete(): Buffer {
    return new Writer().flush(0x31); // 1
  },
  bindComplete(): Buffer {
    return new Writer().flush(0x32); // 2
  },
  closeComplete(): Buffer {
    return new Writer().flush(0x33); // 3
  },
  noData(): Buffer {
    return new Writer().flush(0x6e); // n
  },
  portalSuspended(): Buffer {
    return new Writer().flush(0x73); // s
  },
  parameterDescription(oids: readonly number[]): Buffer {
    const w = new Writer().addInt16(oids.length);
    for (const o of oids) w.addInt32(o);
    return w.flush(0x74); // t
  },
  /** ErrorResponse ('E') or NoticeResponse ('N') with the given fields. */
  notice(kind: 'error' | 'notice', fields: NoticeFields): Buffer {
    const w = new Writer();
    const add = (code: string, v: string | undefined): void => {
      if (v !== undefined) w.add(Buffer.from(code)).addCString(v);
    };
    add('S', fields.severity);
    add('V', fields.severity);
    add('C', fields.code);
    add('M', fields.message);
    add('D', fields.detail);
    add('H', fields.hint);
    add('P', fields.position === undefined ? undefined : String(fields.position));
    w.add(Buffer.from([0]));
    return w.flush(kind === 'error' ? 0x45 : 0x4e);
  },
};

/** Fields of an ErrorResponse or NoticeResponse. */
export interface NoticeFields {
  readonly severity: 'ERROR' | 'FATAL' | 'NOTICE' | 'WARNING';
  /** SQLSTATE, five characters. */
  readonly code: string;
  readonly message: string;
  readonly detail?: string;
  readonly hint?: string;
  /** 1-based character position in the query string. */
  readonly position?: number;
}
