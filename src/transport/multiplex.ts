/**
 * Multiplexed partial requests: one HTTP request per (parent process, child host) carrying
 * every child of that host that the process's gathers ask within one event-loop turn, its
 * reply the children's frames interleaved as each child produces them.
 *
 * Request: `POST /v1/partials`, JSON `{"bases": [{queryId, schema, plan, trace?, stream?}],
 * "entries": [{node, base, shards, budgetMs, stats?}]}`: the plan and schema of one query are
 * sent once however many of its children the request carries (`base` indexes `bases`);
 * `x-canopy-sent-at` and bearer auth as on `/v1/partial`.
 *
 * Reply (`application/vnd.canopy.multiplexed`): the frames' own length-prefixed framing
 * (u32 big-endian length, then the bytes), each payload a 5-byte envelope (u32 big-endian
 * entry index, u8 kind) then the kind's bytes:
 * - {@link MUX_FRAME}: one Arrow IPC frame of that entry (as `/v1/partial` would send it);
 * - {@link MUX_END}: the entry's reply is complete;
 * - {@link MUX_ERROR}: JSON `{"status": n, "error": {...}}`, what `/v1/partial` would have
 *   answered as an HTTP error before its first frame (e.g. 503 CANOPY_ERR_OVERLOADED);
 * - {@link MUX_BROKEN}: the entry's reply broke off (a failure after its first frame, or an
 *   injected crash), as a dropped `/v1/partial` connection would.
 * An entry that has neither END, ERROR nor BROKEN when the reply ends broke off with it.
 */
import { Cancel } from './cancel.ts';
import { Pool } from 'undici';
import { CanopyError, FrameSplitter, aligned8, decodeFrame, isCanopyError, layoutOf, toWireJSON, type Frame } from '../merge/index.ts';
import { SENT_AT_HEADER, type Child, type ChildRequest } from './child.ts';
import { childHttpError, type ReplyBytes } from './http-child.ts';
import type { SliceScheduler, SliceTask } from './slices.ts';

/** Route of multiplexed partial requests on every node of a host. */
export const MUX_ROUTE = '/v1/partials';

/** Route cancelling entries of a multiplexed request still running: JSON `{id, entries: [index...]}`. */
export const MUX_CANCEL_ROUTE = '/v1/partials/cancel';

/** Media type of a multiplexed reply. */
export const MUX_TYPE = 'application/vnd.canopy.multiplexed';

/** Envelope kinds (see the module comment). */
export const MUX_FRAME = 0;
export const MUX_END = 1;
export const MUX_ERROR = 2;
export const MUX_BROKEN = 3;

/** Bytes of the envelope before a payload's own bytes. */
export const MUX_ENVELOPE_BYTES = 5;

/** One envelope with its length prefix: `[u32 length][u32 index][u8 kind][payload]`, in one allocation. */
export function muxEnvelope(index: number, kind: number, payload: Uint8Array = EMPTY): Uint8Array {
  const out = new Uint8Array(4 + MUX_ENVELOPE_BYTES + payload.length);
  writeMuxHead(out, index, kind, payload.length);
  out.set(payload, 9);
  return out;
}

/** Bytes of an envelope's length prefix and head (before its payload). */
export const MUX_HEAD_BYTES = 4 + MUX_ENVELOPE_BYTES;

/** Writes the length prefix and head of an envelope whose payload has `payloadLength` bytes at `out[0..9)` (big-endian, no DataView: one per envelope was most of its cost). */
export function writeMuxHead(out: Uint8Array, index: number, kind: number, payloadLength: number): void {
  const len = MUX_ENVELOPE_BYTES + payloadLength;
  out[0] = len >>> 24;
  out[1] = (len >>> 16) & 0xff;
  out[2] = (len >>> 8) & 0xff;
  out[3] = len & 0xff;
  out[4] = index >>> 24;
  out[5] = (index >>> 16) & 0xff;
  out[6] = (index >>> 8) & 0xff;
  out[7] = index & 0xff;
  out[8] = kind;
}

const EMPTY = new Uint8Array(0);

/** The fields of one query shared by its entries in a multiplexed request. */
export interface MuxBase {
  readonly queryId: string;
  readonly schema: ChildRequest['schema'];
  readonly plan: ChildRequest['plan'];
  readonly trace?: boolean;
  readonly stream?: boolean;
}

/** One child's part of a multiplexed request. */
export interface MuxEntry {
  /** The node (leaf or aggregator) of the host that answers it. */
  readonly node: string;
  /** Index into `bases`. */
  readonly base: number;
  readonly shards: readonly number[];
  readonly budgetMs: number;
  readonly stats?: ChildRequest['stats'];
}

/** A multiplexed request's body. */
export interface MuxBody {
  /** The request's id, naming it in {@link MUX_CANCEL_ROUTE} (unique per sender). */
  readonly id?: string;
  readonly bases: readonly MuxBase[];
  readonly entries: readonly MuxEntry[];
}

/**
 * The body carrying `calls` (node name and request each), each query's plan and schema once
 * (requests sharing queryId, plan, schema, trace and stream objects share a base).
 */
export function muxBody(calls: readonly { readonly node: string; readonly req: ChildRequest }[], id?: string): MuxBody {
  const bases: MuxBase[] = [];
  const entries: MuxEntry[] = [];
  for (const { node, req } of calls) {
    let base = bases.findIndex((b) => b.queryId === req.queryId && b.plan === req.plan && b.schema === req.schema && b.trace === req.trace && b.stream === req.stream);
    if (base < 0) {
      base = bases.length;
      bases.push({ queryId: req.queryId, schema: req.schema, plan: req.plan, ...(req.trace === undefined ? {} : { trace: req.trace }), ...(req.stream === undefined ? {} : { stream: req.stream }) });
    }
    entries.push({ node, base, shards: req.shards, budgetMs: req.budgetMs, ...(req.stats === undefined ? {} : { stats: req.stats }) });
  }
  return { ...(id === undefined ? {} : { id }), bases, entries };
}

/**
 * Reads a multiplexed request body into its entries, each the node name and the child
 * request body for it (checked later, per entry, by `parseChildRequest`, so a bad entry fails
 * alone).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST when the body is not `{bases: [...], entries: [...]}`
 *   with each entry naming a node and an existing base.
 */
export function readMuxBody(body: unknown): { id: string | undefined; entries: { node: string; request: Record<string, unknown> }[] } {
  const bad = (what: string): never => {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `multiplexed partial request: ${what}`);
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('body must be a JSON object {bases, entries}');
  const { id, bases, entries, ...rest } = body as Record<string, unknown>;
  if (Object.keys(rest).length > 0) bad(`unknown field(s) ${Object.keys(rest).join(', ')}; known: id, bases, entries`);
  if (id !== undefined && typeof id !== 'string') bad('id must be a string');
  if (!Array.isArray(bases) || !bases.every((b) => typeof b === 'object' && b !== null && !Array.isArray(b))) return bad('bases must be a list of objects');
  if (!Array.isArray(entries) || entries.length === 0) return bad('entries must be a non-empty list');
  const read = entries.map((e: unknown, i) => {
    if (typeof e !== 'object' || e === null || Array.isArray(e)) return bad(`entry ${i} must be an object`);
    const { node, base, ...own } = e as Record<string, unknown>;
    if (typeof node !== 'string') return bad(`entry ${i}: node must be a node name`);
    if (typeof base !== 'number' || !Number.isInteger(base) || base < 0 || base >= bases.length) return bad(`entry ${i}: base must index bases (0..${bases.length - 1})`);
    return { node, request: { ...(bases[base] as Record<string, unknown>), ...own } };
  });
  return { id: id as string | undefined, entries: read };
}

/** Options of a {@link MultiplexClient}. */
export interface MultiplexClientOptions {
  /** Shared token of the tree, sent as `authorization: Bearer ...` (optional). */
  readonly token?: string;
  /** Max connections to the host (default 8). */
  readonly connections?: number;
  /** Largest reply accepted per entry, bytes (default 256 MiB). */
  readonly maxReplyBytes?: number;
  /**
   * The process's slice scheduler: a frame of {@link TURN_FRAME_BYTES} or more is decoded only
   * on a turn of it (one long decode per event-loop iteration). Default: none (decoded at once).
   */
  readonly slices?: SliceScheduler;
}

/** Frames from this size (bytes) wait for a slice turn before they are decoded (a 30k-group frame is ~0.7-1.4 MB; a probe's ~1 kB). */
export const TURN_FRAME_BYTES = 64 * 1024;

/** What the demultiplexer hands one call: a frame's bytes, the end, or a failure. */
type Item = { readonly bytes: Uint8Array } | { readonly end: true } | { readonly error: CanopyError };

/** One per-child call in a multiplexed request. */
class Call {
  readonly items: Item[] = [];
  wake: (() => void) | null = null;
  /** The call stopped listening (answered, failed, aborted or abandoned). */
  closed = false;
  /** Its reply is complete or failed (no more items will come). */
  settled = false;
  size = 0;
  batch: Batch | null = null;

  constructor(readonly name: string, readonly req: ChildRequest, readonly account: ReplyBytes | undefined) {}

  push(item: Item): void {
    if (this.settled) return;
    if (!('bytes' in item)) this.settled = true;
    if (this.closed) return;
    this.items.push(item);
    const w = this.wake;
    this.wake = null;
    w?.();
  }
}

/** The calls sent in one request. */
interface Batch {
  readonly id: string;
  readonly calls: Call[];
  readonly ctl: Cancel;
  /** Entries given up on while their siblings go on, not yet told to the host. */
  cancels: number[];
}

let batches = 0;
const SENDER = `${process.pid}.${Math.random().toString(36).slice(2, 10)}`;

/**
 * The coalescing client of one child host (one per parent process and host): per-child calls
 * made within one event-loop turn (until `setImmediate`) go out as one `POST /v1/partials`;
 * its reply is demultiplexed to the calls as frames arrive. Each call keeps the errors of
 * {@link httpChild}: CANOPY_ERR_CHILD_HTTP / CANOPY_ERR_OVERLOADED for its entry's error,
 * CANOPY_ERR_CHILD_GARBLED for a bad frame of its own (its siblings go on), CANOPY_ERR_CHILD_UNREACHABLE
 * when the connection fails or its reply broke off, CANOPY_ERR_CANCELLED when aborted. An
 * aborted call drops its frames and has the host cancel its entry (`POST /v1/partials/cancel`);
 * the request is aborted once every call in it is closed.
 */
export class MultiplexClient {
  readonly #pool: Pool;
  readonly #url: string;
  readonly #opts: MultiplexClientOptions;
  readonly #maxBytes: number;
  #pending: Call[] = [];
  #scheduled = false;
  /** Requests sent and entries carried (for the benchmark and tests). */
  readonly counters = { requests: 0, entries: 0, cancels: 0 };

  /** `url`: any node of the host, e.g. `http://127.0.0.1:9101` (every node serves the host's nodes). */
  constructor(url: string, opts: MultiplexClientOptions = {}) {
    this.#url = url;
    this.#opts = opts;
    this.#maxBytes = opts.maxReplyBytes ?? 256 * 1024 * 1024;
    this.#pool = new Pool(url, { connections: opts.connections ?? 8, pipelining: 1, keepAliveTimeout: 30_000 });
  }

  /** A child for node `name` of the host; `replyBytes` accounts its reply bytes (see {@link ReplyBytes}). */
  child(name: string, shards: readonly number[], replyBytes?: ReplyBytes): Child {
    const query = (req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> => this.#query(name, req, signal, replyBytes);
    return { name, shards, query };
  }

  close(): Promise<void> {
    return this.#pool.close();
  }

  destroy(): Promise<void> {
    return this.#pool.destroy();
  }

  async *#query(name: string, req: ChildRequest, signal: AbortSignal, account: ReplyBytes | undefined): AsyncIterable<Frame> {
    const cancelled = (): CanopyError => new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`);
    if (signal.aborted) throw cancelled();
    const call = new Call(name, req, account);
    const onAbort = (): void => {
      const w = call.wake;
      call.wake = null;
      w?.();
    };
    signal.addEventListener('abort', onAbort, { once: true });
    this.#enqueue(call);
    const layout = layoutOf(req.plan, req.schema);
    const slices = this.#opts.slices;
    let task: SliceTask | undefined;
    try {
      for (;;) {
        while (call.items.length === 0 && !signal.aborted) await new Promise<void>((r) => (call.wake = r));
        // A frame that comes in after the parent gave up on this child is dropped undecoded.
        if (signal.aborted) throw cancelled();
        const item = call.items.shift()!;
        if ('error' in item) throw item.error;
        if ('end' in item) return;
        if (slices !== undefined && item.bytes.length >= TURN_FRAME_BYTES) {
          task ??= slices.task(req.queryId);
          await task.turn();
          if (signal.aborted) throw cancelled();
        }
        yield decodeFrame(layout, aligned8(item.bytes));
      }
    } finally {
      task?.end();
      signal.removeEventListener('abort', onAbort);
      this.#close(call);
    }
  }

  #enqueue(call: Call): void {
    this.#pending.push(call);
    if (this.#scheduled) return;
    this.#scheduled = true;
    setImmediate(() => {
      this.#scheduled = false;
      const calls = this.#pending.filter((c) => !c.closed);
      this.#pending = [];
      if (calls.length > 0) void this.#send(calls);
    });
  }

  /** A call stops listening: released bytes; its request is aborted once all its calls have. */
  #close(call: Call): void {
    if (call.closed) return;
    call.closed = true;
    call.items.length = 0;
    if (call.account !== undefined) call.account.held -= call.size;
    const b = call.batch;
    if (b === null || call.settled) return;
    if (b.calls.every((c) => c.closed)) {
      b.ctl.abort();
      return;
    }
    // Its siblings go on: the host is told to cancel this entry (one request per turn).
    if (b.cancels.push(b.calls.indexOf(call)) === 1) setImmediate(() => this.#cancel(b));
  }

  #cancel(b: Batch): void {
    const entries = b.cancels;
    b.cancels = [];
    if (b.ctl.signal.aborted || entries.length === 0) return;
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (this.#opts.token !== undefined) headers.authorization = `Bearer ${this.#opts.token}`;
    this.counters.cancels++;
    // Best effort: an entry not cancelled stops at its own budget.
    this.#pool.request({ path: MUX_CANCEL_ROUTE, method: 'POST', headers, body: JSON.stringify({ id: b.id, entries }) }).then((r) => r.body.dump(), () => undefined);
  }

  async #send(calls: Call[]): Promise<void> {
    const batch: Batch = { id: `${SENDER}.${++batches}`, calls, ctl: new Cancel(), cancels: [] };
    for (const c of calls) c.batch = batch;
    this.counters.requests++;
    this.counters.entries += calls.length;
    // Only calls still open get an error: at the end of every healthy reply all are settled,
    // and an error's stack trace per settled call was most of a small reply's demultiplexing.
    const failOpen = (make: (c: Call) => CanopyError): void => {
      for (const c of calls) if (!c.settled) c.push({ error: make(c) });
    };
    const headers: Record<string, string> = { 'content-type': 'application/json', accept: MUX_TYPE, [SENT_AT_HEADER]: String(Date.now()) };
    if (this.#opts.token !== undefined) headers.authorization = `Bearer ${this.#opts.token}`;
    let res;
    try {
      res = await this.#pool.request({ path: MUX_ROUTE, method: 'POST', headers, body: toWireJSON(muxBody(calls.map((c) => ({ node: c.name, req: c.req })), batch.id)), signal: batch.ctl.signal });
    } catch (e) {
      failOpen((c) => new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${c.name} at ${this.#url} is unreachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e }));
      return;
    }
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      try {
        for await (const c of res.body) if (chunks.length < 64) chunks.push(c as Buffer);
      } catch {
        // The error body is best effort: the status alone is the failure.
      }
      const body = Buffer.concat(chunks).toString('utf8');
      failOpen((c) => childHttpError(c.name, res.statusCode, body, res.headers['retry-after']));
      return;
    }
    // Joined frames keep the Arrow stream after the envelope 8-aligned (views, not copies, of its columns).
    const splitter = new FrameSplitter(this.#maxBytes + MUX_ENVELOPE_BYTES, MUX_ENVELOPE_BYTES);
    try {
      for await (const chunk of res.body) {
        for (const f of splitter.push(chunk as Buffer)) {
          if (f.length < MUX_ENVELOPE_BYTES) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `multiplexed reply from ${this.#url}: envelope of ${f.length} bytes`);
          const index = ((f[0]! << 24) | (f[1]! << 16) | (f[2]! << 8) | f[3]!) >>> 0;
          const kind = f[4]!;
          const call = calls[index];
          if (call === undefined) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `multiplexed reply from ${this.#url}: entry ${index} of ${calls.length}`);
          const payload = f.subarray(MUX_ENVELOPE_BYTES);
          if (kind === MUX_FRAME) {
            if (call.closed || call.settled) continue;
            call.size += payload.length;
            if (call.account !== undefined) {
              call.account.held += payload.length;
              call.account.total += payload.length;
            }
            if (call.size > this.#maxBytes) call.push({ error: new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${call.name} replied more than ${this.#maxBytes} bytes`) });
            else call.push({ bytes: payload });
          } else if (kind === MUX_END) call.push({ end: true });
          else if (kind === MUX_ERROR) call.push({ error: entryError(call.name, payload) });
          else if (kind === MUX_BROKEN) call.push({ error: new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${call.name} broke off its reply`) });
          else call.push({ error: new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${call.name}: unknown envelope kind ${kind} in a multiplexed reply`) });
        }
      }
    } catch (e) {
      if (batch.ctl.signal.aborted) return;
      if (isCanopyError(e)) failOpen(() => e);
      else failOpen((c) => new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${c.name} broke off its reply: ${e instanceof Error ? e.message : String(e)}`, { cause: e }));
      return;
    }
    if (splitter.pending > 0) failOpen((c) => new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${c.name} ended its reply inside a frame`));
    else failOpen((c) => new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${c.name} broke off its reply: the multiplexed reply ended without its end`));
  }
}

/** The error an entry's MUX_ERROR payload stands for (as {@link childHttpError} makes it of an HTTP error reply). */
function entryError(name: string, payload: Uint8Array): CanopyError {
  let status = 500;
  let body = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  let retryAfter: string | undefined;
  try {
    const j = JSON.parse(body) as { status?: number; error?: { details?: { retryAfterSeconds?: number } } };
    if (typeof j.status === 'number') status = j.status;
    const r = j.error?.details?.retryAfterSeconds;
    if (typeof r === 'number') retryAfter = String(r);
    body = JSON.stringify({ error: j.error });
  } catch {
    return new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${name}: unreadable error in a multiplexed reply`);
  }
  return childHttpError(name, status, body, retryAfter);
}
