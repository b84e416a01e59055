/**
 * One client connection speaking the PostgreSQL v3 protocol: startup (SSL and GSS
 * encryption declined), authentication (trust, cleartext password or SCRAM-SHA-256), the
 * simple and the extended query protocol, cancellation, and termination. Statements are
 * answered by {@link Statements} (the engine, the catalog, settings); this file is only the
 * protocol's state machine.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { Socket } from 'node:net';
import { CanopyError, isoFromMicros, toCanopyError } from '../merge/index.ts';
import { ScramExchange, type ScramSecret } from './auth.ts';
import type { PgResult } from './result.ts';
import { paramCount, splitStatements, type BoundParam } from './sqltext.ts';
import { encodeValue, OID, PG_EPOCH_US, pgTypeOf } from './types.ts';
import { CANCEL_REQUEST, FrameSplitter, GSSENC_REQUEST, PROTOCOL_3_0, PgSqlError, ProtocolError, Reader, SSL_REQUEST, backend, readStartupParams, type FrontendMessage, type NoticeFields } from './wire.ts';
import type { Statements } from './statements.ts';
import { sqlstateOf } from './sqlstate.ts';

/** How clients prove who they are. */
export type PgAuth = { readonly method: 'trust' } | { readonly method: 'password'; readonly password: string } | { readonly method: 'scram-sha-256'; readonly secret: ScramSecret };

/** What a session needs from its server. */
export interface SessionContext {
  readonly auth: PgAuth;
  readonly maxMessageBytes: number;
  /** How long a connection may take from connecting to authenticated, ms; then FATAL 57014 and closed (PostgreSQL's authentication_timeout). */
  readonly authTimeoutMs: number;
  /** A fresh process id and secret key for BackendKeyData, registered for CancelRequest. */
  register(session: PgSession): { pid: number; key: number };
  unregister(pid: number): void;
  /** Cancels the running query of the session with this pid and key (CancelRequest). */
  cancel(pid: number, key: number): void;
  /** Statements of one session (engine, catalog, settings). */
  statements(user: string, app: string): Statements;
  /** Parameters sent at startup (ParameterStatus). */
  parameters(user: string, app: string): ReadonlyMap<string, string>;
}

interface Prepared {
  readonly sql: string;
  readonly oids: readonly number[];
}

interface Portal {
  readonly statement: Prepared;
  readonly params: readonly BoundParam[];
  readonly formats: readonly number[];
  result?: PgResult;
  /** Rows already sent (Execute with a row limit). */
  sent: number;
}

type Phase = 'startup' | 'password' | 'sasl-first' | 'sasl-final' | 'ready' | 'closed';

/** One connection. */
export class PgSession {
  readonly #socket: Socket;
  readonly #ctx: SessionContext;
  readonly #splitter: FrameSplitter;
  readonly #inbox: FrontendMessage[] = [];
  #out: Buffer[] = [];
  #phase: Phase = 'startup';
  #pumping = false;
  #pid = 0;
  #user = '';
  #app = '';
  #scram: ScramExchange | null = null;
  #statements: Statements | null = null;
  #tx: 'I' | 'T' | 'E' = 'I';
  #skipTillSync = false;
  #current: AbortController | null = null;
  readonly #prepared = new Map<string, Prepared>();
  readonly #portals = new Map<string, Portal>();
  /** Ends a connection not authenticated within {@link SessionContext.authTimeoutMs}. */
  readonly #authTimer: ReturnType<typeof setTimeout>;

  constructor(socket: Socket, ctx: SessionContext) {
    this.#socket = socket;
    this.#ctx = ctx;
    this.#splitter = new FrameSplitter(ctx.maxMessageBytes);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.#receive(chunk));
    socket.on('error', () => this.#closed());
    socket.on('close', () => this.#closed());
    // A client that connects and never finishes its startup and authentication (or sends
    // nothing) would hold its socket forever: PostgreSQL's authentication_timeout.
    this.#authTimer = setTimeout(() => {
      if (this.#phase !== 'ready' && this.#phase !== 'closed') this.#fatal(new ProtocolError('canceling authentication due to timeout', '57014'));
    }, ctx.authTimeoutMs);
    this.#authTimer.unref();
  }

  /** Aborts the running query, if any (CancelRequest): it ends with 57014. */
  cancel(): void {
    this.#current?.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'canceling statement due to user request'));
  }

  #receive(chunk: Buffer): void {
    if (this.#phase === 'closed') return;
    try {
      this.#inbox.push(...this.#splitter.push(chunk));
    } catch (e) {
      this.#fatal(e);
      return;
    }
    // Back-pressure: a client pipelining many messages while a query runs waits for it.
    if (this.#inbox.length > 256) this.#socket.pause();
    void this.#pump();
  }

  async #pump(): Promise<void> {
    if (this.#pumping) return;
    this.#pumping = true;
    try {
      while (this.#phase !== 'closed') {
        const m = this.#inbox.shift();
        if (m === undefined) break;
        try {
          await this.#handle(m);
        } catch (e) {
          this.#fatal(e);
        }
        if (this.#inbox.length === 0 && !this.#isClosed()) {
          // Messages that followed a startup packet in the same read.
          if (!this.#splitter.started || this.#splitter.pending > 0) this.#inbox.push(...this.#splitter.push(Buffer.alloc(0)));
          this.#socket.resume();
        }
      }
    } catch (e) {
      this.#fatal(e);
    } finally {
      this.#pumping = false;
    }
  }

  #isClosed(): boolean {
    return this.#phase === 'closed';
  }

  #send(b: Buffer): void {
    this.#out.push(b);
  }

  #flush(): void {
    if (this.#out.length === 0 || this.#socket.destroyed) return;
    this.#socket.write(this.#out.length === 1 ? this.#out[0]! : Buffer.concat(this.#out));
    this.#out = [];
  }

  /** Sends a FATAL error and closes the connection (protocol violations, failed authentication). */
  #fatal(e: unknown): void {
    if (this.#phase === 'closed') return;
    const code = e instanceof ProtocolError ? e.sqlstate : e instanceof CanopyError ? sqlstateOf(e.code) : 'XX000';
    const message = e instanceof Error ? e.message : String(e);
    this.#send(backend.notice('error', { severity: 'FATAL', code, message }));
    this.#flush();
    this.#phase = 'closed';
    this.#socket.end();
    this.#closed();
  }

  #closed(): void {
    clearTimeout(this.#authTimer);
    this.#phase = 'closed';
    // A client that goes away mid-query cancels it down to the leaves.
    this.#current?.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'the client disconnected'));
    if (this.#pid !== 0) this.#ctx.unregister(this.#pid);
    if (!this.#socket.destroyed) this.#socket.destroy();
  }

  async #handle(m: FrontendMessage): Promise<void> {
    if (this.#phase === 'startup') return this.#startup(m);
    if (this.#phase !== 'ready') return this.#authenticate(m);
    const r = new Reader(m.body);
    const type = String.fromCharCode(m.type);
    if (type === 'X') {
      this.#phase = 'closed';
      this.#socket.end();
      this.#closed();
      return;
    }
    if (type === 'Q') return this.#simpleQuery(r);
    if (type === 'S') {
      r.end('Sync');
      this.#skipTillSync = false;
      this.#send(backend.readyForQuery(this.#tx));
      this.#flush();
      return;
    }
    if (this.#skipTillSync) return;
    if (type === 'F') {
      // A FunctionCall stands alone, as a simple query does: its ErrorResponse is followed by
      // ReadyForQuery (libpq's PQfn waits for it), not by skipping to a Sync.
      this.#error(new ProtocolError('the function call protocol is not supported', '0A000'));
      this.#send(backend.readyForQuery(this.#tx));
      this.#flush();
      return;
    }
    try {
      switch (type) {
        case 'P':
          return this.#parse(r);
        case 'B':
          return this.#bind(r);
        case 'D':
          return await this.#describe(r);
        case 'E':
          return await this.#execute(r);
        case 'C':
          return this.#close(r);
        case 'H':
          r.end('Flush');
          this.#flush();
          return;
        case 'd':
        case 'c':
        case 'f':
          throw new ProtocolError('COPY is not supported', '0A000');
        default:
          throw new ProtocolError(`invalid frontend message type ${m.type} ('${type}')`);
      }
    } catch (e) {
      // An unknown message type cannot be skipped safely.
      if (e instanceof ProtocolError && e.sqlstate === '08P01') throw e;
      this.#error(e);
      this.#skipTillSync = true;
      this.#flush();
    }
  }

  #startup(m: FrontendMessage): void {
    const r = new Reader(m.body);
    const code = r.int32();
    if (code === SSL_REQUEST || code === GSSENC_REQUEST) {
      r.end('SSLRequest');
      // No TLS or GSS encryption here: the client continues in the clear (or gives up).
      this.#socket.write(Buffer.from('N'));
      return;
    }
    if (code === CANCEL_REQUEST) {
      const pid = r.int32();
      const key = r.int32();
      this.#ctx.cancel(pid, key);
      this.#phase = 'closed';
      this.#socket.end();
      return;
    }
    if (code !== PROTOCOL_3_0) throw new ProtocolError(`unsupported frontend protocol ${code >>> 16}.${code & 0xffff}: canopy speaks 3.0`, '0A000');
    const params = readStartupParams(r);
    const user = params.get('user');
    if (user === undefined || user === '') throw new ProtocolError('no PostgreSQL user name specified in startup packet', '28000');
    if (params.get('replication') !== undefined && params.get('replication') !== 'false') throw new ProtocolError('replication connections are not supported', '0A000');
    this.#user = user;
    this.#app = params.get('application_name') ?? '';
    this.#splitter.started = true;
    const auth = this.#ctx.auth;
    if (auth.method === 'trust') {
      // Without a password, only clients on this machine are trusted.
      if (!isLoopback(this.#socket.remoteAddress)) throw new ProtocolError(`canopy trusts only loopback clients without a password; this one is ${this.#socket.remoteAddress ?? 'unknown'}: set CANOPY_API_TOKEN on the server and connect with it as the password`, '28000');
      return this.#authenticated();
    }
    if (auth.method === 'password') {
      this.#phase = 'password';
      this.#send(backend.authentication(3)); // AuthenticationCleartextPassword
    } else {
      this.#phase = 'sasl-first';
      this.#scram = new ScramExchange(auth.secret);
      this.#send(backend.authentication(10, Buffer.from('SCRAM-SHA-256\0\0'))); // AuthenticationSASL
    }
    this.#flush();
  }

  #authenticate(m: FrontendMessage): void {
    if (m.type !== 0x70) throw new ProtocolError(`expected a password message, got message type ${m.type}`);
    const r = new Reader(m.body);
    const auth = this.#ctx.auth;
    const refuse = (): never => {
      throw new ProtocolError(`password authentication failed for user "${this.#user}"`, '28P01');
    };
    if (this.#phase === 'password' && auth.method === 'password') {
      const given = r.cstring();
      r.end('PasswordMessage');
      if (!timingSafeStringEqual(given, auth.password)) refuse();
      return this.#authenticated();
    }
    if (this.#phase === 'sasl-first') {
      const mechanism = r.cstring();
      if (mechanism !== 'SCRAM-SHA-256') throw new ProtocolError(`SASL mechanism ${mechanism} is not supported; use SCRAM-SHA-256`, '28000');
      const len = r.int32();
      const data = r.bytes(len < 0 ? 0 : len);
      r.end('SASLInitialResponse');
      const serverFirst = this.#scram!.first(data.toString('utf8'));
      this.#phase = 'sasl-final';
      this.#send(backend.authentication(11, Buffer.from(serverFirst))); // AuthenticationSASLContinue
      this.#flush();
      return;
    }
    if (this.#phase === 'sasl-final') {
      const serverFinal = this.#scram!.final(r.bytes(r.remaining).toString('utf8'));
      if (serverFinal === null) refuse();
      this.#send(backend.authentication(12, Buffer.from(serverFinal!))); // AuthenticationSASLFinal
      return this.#authenticated();
    }
    throw new ProtocolError('unexpected authentication message');
  }

  #authenticated(): void {
    clearTimeout(this.#authTimer);
    this.#phase = 'ready';
    this.#send(backend.authentication(0)); // AuthenticationOk
    for (const [k, v] of this.#ctx.parameters(this.#user, this.#app)) this.#send(backend.parameterStatus(k, v));
    const { pid, key } = this.#ctx.register(this);
    this.#pid = pid;
    this.#send(backend.backendKeyData(pid, key));
    this.#statements = this.#ctx.statements(this.#user, this.#app);
    this.#send(backend.readyForQuery('I'));
    this.#flush();
  }

  /** Runs one statement with the session's abort controller (cancel / disconnect abort it). */
  async #run(sql: string, params: readonly BoundParam[]): Promise<PgResult> {
    const ac = new AbortController();
    this.#current = ac;
    try {
      const st = this.#statements!;
      const before = this.#tx;
      const res = await st.execute(sql, params, ac.signal, this.#tx).catch((e: unknown) => {
        throw inCharacters(e, sql);
      });
      if (res.tag === 'BEGIN') this.#tx = 'T';
      else if (res.tag === 'COMMIT' || res.tag === 'ROLLBACK') this.#tx = 'I';
      else if (before === 'E') this.#tx = 'E';
      return res;
    } finally {
      this.#current = null;
    }
  }

  /**
   * Sends an ErrorResponse for a failed statement; inside a transaction block it is then
   * aborted. `offset`: where the statement starts in the query string, in characters.
   */
  #error(e: unknown, offset = 0): void {
    if (this.#tx === 'T') this.#tx = 'E';
    if (e instanceof ProtocolError) {
      this.#send(backend.notice('error', { severity: 'ERROR', code: e.sqlstate, message: e.message }));
      return;
    }
    if (e instanceof PgSqlError) {
      this.#send(backend.notice('error', { severity: 'ERROR', code: e.sqlstate, message: e.message }));
      return;
    }
    const err = toCanopyError(e);
    const fields: { -readonly [K in keyof NoticeFields]: NoticeFields[K] } = { severity: 'ERROR', code: sqlstateOf(err.code), message: err.message, detail: `canopy error code ${err.code}` };
    if (err.position !== undefined) fields.position = err.position.offset + offset + 1;
    const missing = (err.details as { missing?: { path: string; shard: number; reason: string }[] } | undefined)?.missing;
    if (missing !== undefined && missing.length > 0) fields.detail = `${fields.detail}; missing: ${missing.slice(0, 10).map((m) => `${m.path} (shard ${m.shard}, ${m.reason})`).join(', ')}${missing.length > 10 ? `, and ${missing.length - 10} more` : ''}`;
    this.#send(backend.notice('error', fields));
  }

  #sendRows(res: PgResult, formats: readonly number[], from: number, count: number): number {
    const cols = res.columns ?? [];
    const fmt = (i: number): number => (formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : (formats[i] ?? 0));
    const end = Math.min(res.rows.length, from + count);
    for (let i = from; i < end; i++) this.#send(backend.dataRow(res.rows[i]!.map((v, j) => encodeValue(v, cols[j]!.type, fmt(j)))));
    return end - from;
  }

  #rowDescription(res: PgResult, formats: readonly number[]): Buffer {
    const fmt = (i: number): number => (formats.length === 0 ? 0 : formats.length === 1 ? formats[0]! : (formats[i] ?? 0));
    return backend.rowDescription((res.columns ?? []).map((c, i) => {
      const t = pgTypeOf(c.type);
      return { name: c.name, typeOid: t.oid, typeSize: t.size, format: fmt(i) };
    }));
  }

  #notices(res: PgResult): void {
    for (const n of res.notices) this.#send(backend.notice('notice', n));
  }

  async #simpleQuery(r: Reader): Promise<void> {
    let sql: string;
    try {
      sql = r.cstringUtf8();
    } catch (e) {
      if (!(e instanceof PgSqlError)) throw e;
      // Text that is not UTF-8 is refused (ERROR, as PostgreSQL's 22021); the session goes on.
      this.#skipTillSync = false;
      this.#error(e);
      this.#send(backend.readyForQuery(this.#tx));
      this.#flush();
      return;
    }
    r.end('Query');
    this.#skipTillSync = false;
    const statements = splitStatements(sql);
    if (statements.length === 0) this.#send(backend.emptyQuery());
    for (const s of statements) {
      try {
        const res = await this.#run(s.text, []);
        this.#notices(res);
        if (res.columns !== null) this.#send(this.#rowDescription(res, []));
        this.#sendRows(res, [], 0, res.rows.length);
        this.#send(backend.commandComplete(res.tag));
      } catch (e) {
        this.#error(e, characters(sql.slice(0, s.offset)));
        break;
      }
      this.#flush();
    }
    this.#send(backend.readyForQuery(this.#tx));
    this.#flush();
  }

  #parse(r: Reader): void {
    const name = r.cstring();
    const sql = r.cstringUtf8();
    const n = r.int16();
    const oids: number[] = [];
    for (let i = 0; i < n; i++) oids.push(r.int32());
    r.end('Parse');
    if (splitStatements(sql).length > 1) throw new PgSqlError('42601', 'cannot insert multiple commands into a prepared statement');
    if (name !== '' && this.#prepared.has(name)) throw new PgSqlError('42P05', `prepared statement "${name}" already exists`);
    this.#prepared.set(name, { sql, oids });
    this.#send(backend.parseComplete());
  }

  #bind(r: Reader): void {
    const portal = r.cstring();
    const name = r.cstring();
    const nf = r.int16();
    const paramFormats: number[] = [];
    for (let i = 0; i < nf; i++) paramFormats.push(r.int16());
    const np = r.int16();
    const raw: (Buffer | null)[] = [];
    for (let i = 0; i < np; i++) {
      const len = r.int32();
      raw.push(len < 0 ? null : r.bytes(len));
    }
    const nr = r.int16();
    const formats: number[] = [];
    for (let i = 0; i < nr; i++) formats.push(r.int16());
    r.end('Bind');
    const st = this.#prepared.get(name);
    if (st === undefined) throw new PgSqlError('26000', `prepared statement "${name}" does not exist`);
    const wanted = Math.max(paramCount(st.sql), st.oids.length);
    if (np !== wanted) throw new PgSqlError('08P01', `bind message supplies ${np} parameters, but prepared statement "${name}" requires ${wanted}`);
    if (formats.some((f) => f !== 0 && f !== 1) || paramFormats.some((f) => f !== 0 && f !== 1)) throw new PgSqlError('08P01', 'format codes must be 0 (text) or 1 (binary)');
    const pfmt = (i: number): number => (paramFormats.length === 0 ? 0 : paramFormats.length === 1 ? paramFormats[0]! : (paramFormats[i] ?? 0));
    const params = raw.map((b, i) => decodeParam(b, st.oids[i] ?? 0, pfmt(i), i + 1));
    this.#portals.set(portal, { statement: st, params, formats, sent: 0 });
    this.#send(backend.bindComplete());
  }

  async #describe(r: Reader): Promise<void> {
    const kind = String.fromCharCode(r.byte());
    const name = r.cstring();
    r.end('Describe');
    if (kind === 'S') {
      const st = this.#prepared.get(name);
      if (st === undefined) throw new PgSqlError('26000', `prepared statement "${name}" does not exist`);
      const n = Math.max(paramCount(st.sql), st.oids.length);
      this.#send(backend.parameterDescription(Array.from({ length: n }, (_, i) => (st.oids[i] ?? 0) === 0 ? OID.text : st.oids[i]!)));
      const cols = this.#statements!.describe(st.sql);
      this.#send(cols === null ? backend.noData() : this.#rowDescription({ columns: cols, rows: [], tag: '', notices: [] }, []));
      return;
    }
    if (kind !== 'P') throw new ProtocolError(`Describe of '${kind}': expected 'S' or 'P'`);
    const p = this.#portals.get(name);
    if (p === undefined) throw new PgSqlError('34000', `portal "${name}" does not exist`);
    // A portal's columns are known once it has run: run it now (Execute sends its rows).
    if (p.result === undefined && this.#statements!.returnsRows(p.statement.sql)) {
      p.result = await this.#run(p.statement.sql, p.params);
      this.#notices(p.result);
    }
    const res = p.result;
    this.#send(res === undefined || res.columns === null ? backend.noData() : this.#rowDescription(res, p.formats));
  }

  async #execute(r: Reader): Promise<void> {
    const name = r.cstring();
    const maxRows = r.int32();
    r.end('Execute');
    const p = this.#portals.get(name);
    if (p === undefined) throw new PgSqlError('34000', `portal "${name}" does not exist`);
    if (p.result === undefined) {
      if (splitStatements(p.statement.sql).length === 0) {
        this.#send(backend.emptyQuery());
        return;
      }
      p.result = await this.#run(p.statement.sql, p.params);
      this.#notices(p.result);
    }
    const res = p.result;
    const count = maxRows > 0 ? maxRows : res.rows.length;
    const sent = this.#sendRows(res, p.formats, p.sent, count);
    p.sent += sent;
    if (res.columns !== null && maxRows > 0 && p.sent < res.rows.length) this.#send(backend.portalSuspended());
    else this.#send(backend.commandComplete(res.columns === null ? res.tag : `SELECT ${sent}`));
  }

  #close(r: Reader): void {
    const kind = String.fromCharCode(r.byte());
    const name = r.cstring();
    r.end('Close');
    if (kind === 'S') this.#prepared.delete(name);
    else if (kind === 'P') this.#portals.delete(name);
    else throw new ProtocolError(`Close of '${kind}': expected 'S' or 'P'`);
    this.#send(backend.closeComplete());
  }
}

/** True for 127.0.0.0/8, ::1 and their IPv4-mapped forms. */
export function isLoopback(address: string | undefined): boolean {
  if (address === undefined) return false;
  const a = address.startsWith('::ffff:') ? address.slice(7) : address;
  return a === '::1' || /^127\.\d+\.\d+\.\d+$/.test(a);
}

/** Compares two secrets in time independent of where they differ (their SHA-256 digests). */
function timingSafeStringEqual(a: string, b: string): boolean {
  const digest = (s: string): Buffer => createHash('sha256').update(s).digest();
  return timingSafeEqual(digest(a), digest(b));
}

/**
 * A Bind parameter as text for {@link bindParams}: text format as sent; binary format for
 * int2/int4/int8, float4/float8, bool, text-like and timestamp(tz) values.
 * @throws PgSqlError 0A000 for a binary parameter of another type, 22P03 for a bad length
 */
function decodeParam(b: Buffer | null, oid: number, format: number, n: number): BoundParam {
  if (b === null) return { oid, text: null };
  if (format === 0) return { oid, text: b.toString('utf8') };
  const need = (len: number): void => {
    if (b.length !== len) throw new PgSqlError('22P03', `binary parameter $${n} of type ${oid} has ${b.length} bytes, expected ${len}`);
  };
  switch (oid) {
    case OID.int2:
      need(2);
      return { oid, text: String(b.readInt16BE(0)) };
    case OID.int4:
      need(4);
      return { oid, text: String(b.readInt32BE(0)) };
    case OID.int8:
      need(8);
      return { oid, text: b.readBigInt64BE(0).toString() };
    case OID.float4:
      need(4);
      return { oid, text: String(b.readFloatBE(0)) };
    case OID.float8:
      need(8);
      return { oid, text: String(b.readDoubleBE(0)) };
    case OID.bool:
      need(1);
      return { oid, text: b[0] === 0 ? 'false' : 'true' };
    case OID.timestamp:
    case OID.timestamptz: {
      need(8);
      const micros = b.readBigInt64BE(0);
      return { oid, text: isoFromMicros(PG_EPOCH_US + Number(micros)) ?? '' };
    }
    case 0:
    case OID.text:
    case OID.varchar:
    case OID.bpchar:
    case OID.name:
    case OID.unknown:
      return { oid, text: b.toString('utf8') };
    default:
      throw new PgSqlError('0A000', `binary parameters of type OID ${oid} are not supported; send $${n} in text format`);
  }
}

/** The length of `text` in characters (code points), as PostgreSQL counts an error position. */
function characters(text: string): number {
  let n = 0;
  for (const _ of text) n++;
  return n;
}

/**
 * `e` with its position's offset in characters of `sql` rather than UTF-16 units: the
 * ErrorResponse's position counts characters, so a query holding an emoji (two units) before
 * the error would put psql's caret one place too far.
 */
function inCharacters(e: unknown, sql: string): unknown {
  if (!(e instanceof CanopyError) || e.position === undefined) return e;
  const offset = characters(sql.slice(0, e.position.offset));
  if (offset === e.position.offset) return e;
  return new CanopyError(e.code, e.message, { position: { ...e.position, offset }, ...(e.details === undefined ? {} : { details: e.details }), cause: e });
}
