/**
 * The HTTP face of a node (leaf or aggregator): fastify serving POST /v1/partial around a
 * {@link NodeHandler}. The same code serves every tier, so an aggregator looks like a big leaf.
 */
import { Cancel } from './cancel.ts';
import Fastify, { type FastifyInstance, type FastifyReply } from 'fastify';
import { timingSafeEqual } from 'node:crypto';
import { PassThrough, Readable } from 'node:stream';
import { CanopyError, MERGE_CHECK_EVERY, arrivalBudgetMs, encodeFrame, fromWireJSON, lengthPrefixed, requestLayout, toCanopyError, FRAMES_TYPE, type Frame, type PartialLayout } from '../merge/index.ts';
import { Admission, NODE_ADMISSION_DEFAULTS, type AdmissionOptions } from './admission.ts';
import { BUDGET_HEADER, PARTIAL_ROUTE, SENT_AT_HEADER, type Child, type ChildRequest, type NodeHandler } from './child.ts';
import { childHttpError } from './http-child.ts';
import { canopyClientErrorHandler, canopyErrorHandler } from './http-errors.ts';
import { MUX_BROKEN, MUX_CANCEL_ROUTE, MUX_END, MUX_ERROR, MUX_FRAME, MUX_HEAD_BYTES, MUX_ROUTE, MUX_TYPE, readMuxBody, writeMuxHead } from './multiplex.ts';
import { parseChildRequest } from './request-schema.ts';
import type { NodeHttpMetrics, RequestOutcome } from './metrics.ts';
import type { QueryWork } from './work.ts';

/** Options of a node server. */
export interface NodeAppOptions {
  /** Required bearer token for /v1/partial (absent: no check). */
  readonly token?: string;
  /** Largest request body, bytes (default 1 MiB). */
  readonly bodyLimit?: number;
  /** Answers GET /healthz: 200 when true. */
  readonly ready?: () => boolean;
  /**
   * The process's request metrics, recorded under this node's name; their registry (the
   * whole process's) is served on GET /metrics (absent: no route).
   */
  readonly metrics?: NodeHttpMetrics;
  /** Node name used as a metrics label. */
  readonly name?: string;
  /**
   * Admission control of POST /v1/partial: an {@link Admission} (to share or inspect it) or its
   * limits. Default: {@link NODE_ADMISSION_DEFAULTS} (32 running, 64 queued, a queued request
   * waits at most half its budget). Every node has it; there is no way to switch it off.
   */
  readonly admission?: Admission | AdmissionOptions;
  /**
   * The nodes of this process that share the multiplexed route: the app registers its node in
   * it (under `name`) and serves POST /v1/partials for every node registered (absent: no route).
   */
  readonly directory?: NodeDirectory;
  /** The process's per-query work ledger, served on GET /v1/work (absent: no route). */
  readonly work?: QueryWork;
  /** Slack past a request's deadline within which a large frame is still encoded, ms (default {@link ENCODE_SLACK_MS}). */
  readonly encodeSlackMs?: number;
}

/** A node as the multiplexed route runs it: its handler and its own admission control. */
export interface DirectoryNode {
  readonly handler: NodeHandler;
  readonly admission: Admission;
}

/** The nodes of one process, by name, that any of its node apps serves on POST /v1/partials. */
export class NodeDirectory {
  readonly #nodes = new Map<string, DirectoryNode>();
  /** Multiplexed requests running, by their id: one Cancel per entry (for MUX_CANCEL_ROUTE). */
  readonly running = new Map<string, readonly Cancel[]>();

  /** Adds (or replaces) node `name`. */
  register(name: string, node: DirectoryNode): void {
    this.#nodes.set(name, node);
  }

  get(name: string): DirectoryNode | undefined {
    return this.#nodes.get(name);
  }

  /** Names registered, in registration order. */
  get names(): string[] {
    return [...this.#nodes.keys()];
  }
}

/**
 * Admission of one partial request (`asked`, arrived at `arrived`): its budget less the time
 * since it arrived (and its loopback transit); spent already: no slot, run with budget 0 (the
 * handler only accounts for its shards as omitted with a deadline error, so the parent records
 * why); else a slot of `admission`, the wait taken out of the budget it runs with (recorded in
 * `metrics` under node `name`).
 * @throws CanopyError CANOPY_ERR_OVERLOADED / CANOPY_ERR_CANCELLED from {@link Admission.admit}.
 */
async function admitted(name: string, admission: Admission, asked: ChildRequest, arrived: { at: number; transitMs: number } | undefined, gone: AbortSignal, metrics: NodeHttpMetrics | undefined): Promise<{ childReq: ChildRequest; release: () => void }> {
  const left = arrived === undefined ? asked.budgetMs : arrivalBudgetMs(asked.budgetMs, performance.now() - arrived.at, arrived.transitMs);
  if (left <= 0) return { childReq: { ...asked, budgetMs: 0 }, release: () => undefined };
  const tAdmit = performance.now();
  const { release, remainingMs } = await admission.admit(left, gone);
  metrics?.admissionWaitSeconds.observe({ node: name }, (performance.now() - tAdmit) / 1000);
  return { childReq: asked.budgetMs - remainingMs >= 1 ? { ...asked, budgetMs: remainingMs } : asked, release };
}

/** Bodies of multiplexed requests may carry many children's requests: this many times the node's body limit. */
const MUX_BODY_FACTOR = 16;

/**
 * Builds (does not start) a node's fastify app.
 * Routes: POST /v1/partial (JSON request -> length-prefixed Arrow IPC frames), GET /healthz,
 * GET /metrics (with `metrics`), GET /v1/work (with `work`).
 * A partial request passes the tree token check, then admission control: it runs at once,
 * waits in the bounded queue (at most what its budget allows; the wait is taken out of the
 * budget it runs with), or is refused with 503 CANOPY_ERR_OVERLOADED and `Retry-After`. The
 * slot is held until the reply is finished or the client is gone.
 */
export function buildNodeApp(handler: NodeHandler, opts: NodeAppOptions = {}): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: opts.bodyLimit ?? 1024 * 1024, keepAliveTimeout: 60_000, requestTimeout: 30_000, clientErrorHandler: canopyClientErrorHandler });
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('application/json', { parseAs: 'string' }, (_req, body, done) => {
    try {
      done(null, fromWireJSON(body as string));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.setErrorHandler(canopyErrorHandler({ bodyLimit: opts.bodyLimit ?? 1024 * 1024, mediaHint: `send the partial request as Content-Type: application/json to ${PARTIAL_ROUTE}` }));
  const admission = opts.admission instanceof Admission ? opts.admission : new Admission(opts.admission ?? {}, NODE_ADMISSION_DEFAULTS);
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(new CanopyError('CANOPY_ERR_NOT_FOUND', `no route ${req.method} ${req.url}`).toJSON());
  });
  app.get('/healthz', async (_req, reply) => {
    const ok = opts.ready === undefined || opts.ready();
    return reply.code(ok ? 200 : 503).send({ ok });
  });
  const work = opts.work;
  const slack = opts.encodeSlackMs ?? ENCODE_SLACK_MS;
  if (work !== undefined) app.get('/v1/work', async (_req, reply) => reply.send(work.snapshot()));
  // When each partial request arrived (its headers were read), and how long it was on its way
  // over loopback: its budget runs from then, not from when its handler got the event loop.
  const arrivals = new WeakMap<object, { at: number; transitMs: number }>();
  app.addHook('onRequest', async (req) => {
    if (req.routeOptions.url !== PARTIAL_ROUTE && req.routeOptions.url !== MUX_ROUTE) return;
    arrivals.set(req.raw, { at: performance.now(), transitMs: loopbackTransitMs(req.headers[SENT_AT_HEADER], req.socket.remoteAddress) });
  });
  const metrics = opts.metrics;
  const node = opts.name ?? 'node';
  // Failures the outcome of a partial request cannot be told from by its socket alone.
  const failed = new WeakSet<object>();
  if (metrics !== undefined) {
    metrics.track(node, admission);
    app.get('/metrics', async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
    // Recorded when the socket's reply ends, however it ends: fastify's onResponse misses
    // requests whose client went away (a parent cancelling its losers, or at its deadline).
    app.addHook('onRequest', async (req, reply) => {
      if (req.routeOptions.url !== PARTIAL_ROUTE) return;
      const t0 = performance.now();
      let recorded = false;
      const end = (finished: boolean): void => {
        if (recorded) return;
        recorded = true;
        const res = reply.raw;
        let outcome: RequestOutcome;
        if (failed.has(res)) outcome = 'error';
        else if (!finished) outcome = 'cancelled';
        else outcome = res.statusCode === 200 ? 'ok' : res.statusCode === 503 ? 'rejected' : res.statusCode === 499 ? 'cancelled' : 'error';
        metrics.requestSeconds.observe({ node, outcome }, (performance.now() - t0) / 1000);
      };
      reply.raw.once('finish', () => end(true));
      reply.raw.once('close', () => end(false));
    });
  }

  const checkToken = (authorization: string | undefined): void => {
    if (opts.token !== undefined && !bearerMatches(authorization, opts.token)) throw new CanopyError('CANOPY_ERR_UNAUTHORIZED', 'missing or wrong tree token');
  };
  app.post(PARTIAL_ROUTE, async (req, reply) => {
    checkToken(req.headers.authorization);
    const header = req.headers[BUDGET_HEADER];
    const asked = parseChildRequest(req.body, Array.isArray(header) ? header[0] : header);
    const layout = requestLayout(asked.queryId, asked.plan, asked.schema);
    const gone = clientGoneSignal(reply);
    const { childReq, release } = await admitted(node, admission, asked, arrivals.get(req.raw), gone, metrics);
    reply.raw.once('close', release);
    const deadlineAt = performance.now() + childReq.budgetMs;
    const touch = work?.begin(childReq.queryId, node, childReq.budgetMs);
    const frames = handler(childReq, gone)[Symbol.asyncIterator]();
    // The first frame is awaited before answering, so early failures get a coded HTTP error.
    let first: IteratorResult<Frame>;
    try {
      first = await frames.next();
    } catch (e) {
      // An injected crash (src/leaf/faults.ts) drops the connection, as a dying process would.
      if (e instanceof CanopyError && (e.details as { fault?: string } | undefined)?.fault === 'crash') {
        failed.add(reply.raw);
        reply.raw.destroy();
        return reply;
      }
      throw e;
    }
    if (first.done === true) throw new CanopyError('CANOPY_ERR_INTERNAL', 'node produced no frame');
    if (gone.aborted) {
      // The client went away while the first frame was made: nothing to encode or send.
      void frames.return?.(undefined);
      reply.raw.destroy();
      return reply;
    }
    if (childReq.stream !== true && first.value.final !== false) {
      // Without streaming the first answer is the only frame: one buffer, no stream machinery.
      void frames.return?.(undefined);
      const bytes = lengthPrefixed(encodeUnlessOver(layout, first.value, gone, deadlineAt, node, touch, slack));
      return reply.code(200).type(FRAMES_TYPE).send(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength));
    }
    async function* body(): AsyncIterable<Uint8Array> {
      yield lengthPrefixed(encodeFrame(layout, first.value as Frame));
      // A failure after the first frame breaks the reply off; the parent records the shards as failed.
      try {
        for (let f = await frames.next(); f.done !== true; f = await frames.next()) yield lengthPrefixed(encodeUnlessOver(layout, f.value, gone, deadlineAt, node, touch, slack));
      } catch (e) {
        if (!gone.aborted) failed.add(reply.raw);
        throw e;
      }
    }
    return reply.code(200).type(FRAMES_TYPE).send(Readable.from(body()));
  });
  const directory = opts.directory;
  if (directory !== undefined) {
    directory.register(node, { handler, admission });
    app.post(MUX_ROUTE, { bodyLimit: (opts.bodyLimit ?? 1024 * 1024) * MUX_BODY_FACTOR }, async (req, reply) => {
      checkToken(req.headers.authorization);
      const { id, entries } = readMuxBody(req.body);
      metrics?.multiplexedEntries.observe(entries.length);
      const gone = clientGoneSignal(reply);
      // Each entry stops when the client goes away or when it is cancelled alone.
      const ctls = entries.map(() => new Cancel());
      const stopAll = (): void => ctls.forEach((c) => c.abort(gone.reason));
      if (gone.aborted) stopAll();
      else gone.addEventListener('abort', stopAll, { once: true });
      const key = id;
      if (key !== undefined) directory.running.set(key, ctls);
      const arrived = arrivals.get(req.raw);
      const out = new PassThrough();
      out.on('error', () => undefined);
      const write = coalescedWriter(out);
      let open = entries.length;
      const ended = (): void => {
        if (--open > 0) return;
        if (key !== undefined && directory.running.get(key) === ctls) directory.running.delete(key);
        write.end();
      };
      // Every entry runs at once, through its own node's admission; its frames are written as
      // it produces them, so a slow or hung sibling never holds them back.
      entries.forEach((e, i) => void runEntry(i, e.node, e.request, arrived, ctls[i]!.signal, write).finally(ended));
      return reply.code(200).type(MUX_TYPE).send(out);
    });
    app.post(MUX_CANCEL_ROUTE, async (req, reply) => {
      checkToken(req.headers.authorization);
      const { id, entries } = (req.body ?? {}) as { id?: unknown; entries?: unknown };
      if (typeof id !== 'string' || !Array.isArray(entries) || !entries.every((i) => Number.isInteger(i))) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'multiplexed cancel: body must be {"id": string, "entries": [entry index, ...]}');
      const ctls = directory.running.get(id);
      let cancelled = 0;
      for (const i of entries as number[]) {
        const c = ctls?.[i];
        if (c !== undefined && !c.signal.aborted) {
          c.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'the parent cancelled this child'));
          cancelled++;
        }
      }
      return reply.code(200).send({ cancelled });
    });
  }

  /** One entry of a multiplexed request: what POST /v1/partial does for one request, its reply in envelopes of index `i`. */
  async function runEntry(i: number, name: string, body: Record<string, unknown>, arrived: { at: number; transitMs: number } | undefined, gone: AbortSignal, write: CoalescedWriter): Promise<void> {
    const t0 = performance.now();
    let outcome: RequestOutcome = 'error';
    let sent = 0;
    let release = (): void => undefined;
    try {
      const target = directory!.get(name);
      if (target === undefined) throw new CanopyError('CANOPY_ERR_NOT_FOUND', `no node ${name} in this process; it serves ${directory!.names.join(', ')}`);
      const asked = parseChildRequest(body, undefined);
      const layout = requestLayout(asked.queryId, asked.plan, asked.schema);
      const a = await admitted(name, target.admission, asked, arrived, gone, metrics);
      release = a.release;
      const deadlineAt = performance.now() + a.childReq.budgetMs;
      const touch = work?.begin(a.childReq.queryId, name, a.childReq.budgetMs);
      for await (const f of target.handler(a.childReq, gone)) {
        write.envelope(i, MUX_FRAME, encodeUnlessOver(layout, f, gone, deadlineAt, name, touch, slack));
        sent++;
        // The answer is the last frame (progressive updates come before it).
        if (f.final !== false) break;
      }
      if (sent === 0) throw new CanopyError('CANOPY_ERR_INTERNAL', 'node produced no frame');
      write.envelope(i, MUX_END);
      outcome = 'ok';
    } catch (e) {
      if (gone.aborted) outcome = 'cancelled';
      else if (sent > 0 || (e instanceof CanopyError && (e.details as { fault?: string } | undefined)?.fault === 'crash')) {
        // Broken off after its first frame, or an injected crash: as a dropped connection would be.
        write.envelope(i, MUX_BROKEN);
      } else {
        const err = toCanopyError(e);
        if (err.status === 503) outcome = 'rejected';
        write.envelope(i, MUX_ERROR, Buffer.from(JSON.stringify({ status: err.status, ...err.toJSON() })));
      }
    } finally {
      release();
      metrics?.requestSeconds.observe({ node: name, outcome }, (performance.now() - t0) / 1000);
    }
  }
  return app;
}

/** The envelopes of a multiplexed reply, written to its stream once per event-loop turn. */
interface CoalescedWriter {
  /** Queues one envelope (entry `index`, `kind`, `payload`; see src/transport/multiplex.ts). */
  envelope(index: number, kind: number, payload?: Uint8Array): void;
  /** Writes what is queued and ends the stream. */
  end(): void;
}

/** Queued bytes past which a turn's envelopes are written as they are, not copied into one buffer. */
const COALESCE_COPY_BYTES = 64 * 1024;

/**
 * A {@link CoalescedWriter} on `out`: the envelopes queued within one event-loop turn (every
 * entry finishing in it, FRAME and END of one entry) leave as one chunk at `setImmediate`,
 * so a reply of 50 small answers is a few socket writes, not one per envelope, and its reader
 * demultiplexes a few chunks. A turn's envelopes past {@link COALESCE_COPY_BYTES} are written
 * one by one (corked) rather than copied. Nothing is held past the turn, so a slow sibling
 * never holds back an answer that is ready. Writes after the stream ended or broke are dropped.
 */
function coalescedWriter(out: PassThrough): CoalescedWriter {
  let queued: Uint8Array[] = [];
  let bytes = 0;
  let scheduled = false;
  let ending = false;
  const open = (): boolean => !out.destroyed && !out.writableEnded;
  const flush = (): void => {
    scheduled = false;
    const chunks = queued;
    queued = [];
    const total = bytes;
    bytes = 0;
    if (open() && chunks.length > 0) {
      if (chunks.length === 1 || total > COALESCE_COPY_BYTES) {
        out.cork();
        for (const c of chunks) out.write(c);
        out.uncork();
      } else out.write(Buffer.concat(chunks, total));
    }
    if (ending && open()) out.end();
  };
  const schedule = (): void => {
    if (scheduled) return;
    scheduled = true;
    setImmediate(flush);
  };
  return {
    envelope(index, kind, payload) {
      if (ending || !open()) return;
      // The length prefix and envelope, then the payload as it is (no copy until the flush).
      const head = new Uint8Array(MUX_HEAD_BYTES);
      writeMuxHead(head, index, kind, payload === undefined ? 0 : payload.length);
      if (payload !== undefined && payload.length > 0) {
        queued.push(head, payload);
        bytes += head.length + payload.length;
      } else {
        queued.push(head);
        bytes += head.length;
      }
      schedule();
    },
    end() {
      ending = true;
      schedule();
    },
  };
}

/**
 * How long past its own deadline a node still encodes a frame, ms. The parent stops waiting at
 * that deadline (its timer for this child), reading only what is already in its socket when a
 * late timer runs; past this slack nobody reads the frame, and encoding it (a 300k-group answer
 * costs a few hundred ms of a busy process, while the cancellation waits unread behind it) is
 * work for nobody.
 */
export const ENCODE_SLACK_MS = 100;

/**
 * Encodes `frame` of a request whose deadline is `deadlineAt` (performance.now ms), unless the
 * request is over: its client went away (`gone`), or the frame is large (over
 * `MERGE_CHECK_EVERY` groups or rows) and the deadline passed by more than
 * `slackMs` ({@link ENCODE_SLACK_MS} by default). The encode of a frame with groups or rows is accounted to the
 * query's work ledger (`touch`, units = those groups or rows), so work past a deadline counts
 * encodes too.
 * @throws CanopyError CANOPY_ERR_CANCELLED (client gone) or CANOPY_ERR_DEADLINE (too late), nothing encoded.
 */
function encodeUnlessOver(layout: PartialLayout, frame: Frame, gone: AbortSignal, deadlineAt: number, node: string, touch: ((units: number) => void) | undefined, slackMs: number): Uint8Array {
  if (gone.aborted) throw toCanopyError(gone.reason, 'CANOPY_ERR_CANCELLED');
  const p = frame.partial;
  const units = p.type === 'rows' ? p.rows.length : p.type === 'columnar' ? p.size : p.groups.size;
  // A small frame costs less to encode than it may be worth: a parent whose own loop is late
  // (a loaded machine) still reads what is in its socket when its timer finally runs.
  if (units > MERGE_CHECK_EVERY && performance.now() > deadlineAt + slackMs) throw new CanopyError('CANOPY_ERR_DEADLINE', `${node}: its answer of ${units} groups or rows was ready after its deadline; not sent`);
  const bytes = encodeFrame(layout, frame);
  // A frame with no groups or rows (shards accounted as omitted) is a reply, not work for the query.
  if (units > 0) touch?.(units);
  return bytes;
}

/**
 * Time a request spent between its sender and its arrival, ms, from the sender's wall clock in
 * {@link SENT_AT_HEADER}: only for a loopback peer (one machine, one clock; clocks of
 * different machines are never compared), else 0; never negative.
 */
export function loopbackTransitMs(sentAt: string | string[] | undefined, peer: string | undefined): number {
  const v = Array.isArray(sentAt) ? sentAt[0] : sentAt;
  if (v === undefined || peer === undefined) return 0;
  if (peer !== '127.0.0.1' && peer !== '::1' && peer !== '::ffff:127.0.0.1') return 0;
  const t = Number(v);
  return Number.isFinite(t) ? Math.max(0, Date.now() - t) : 0;
}

/**
 * Whether an `Authorization` header carries `Bearer <token>` (RFC 6750: the scheme name is
 * case-insensitive); compared in constant time so the token cannot be guessed byte by byte.
 */
export function bearerMatches(header: string | undefined, token: string): boolean {
  const m = header === undefined ? null : /^bearer +(.+)$/i.exec(header.trim());
  if (m === null) return false;
  const given = Buffer.from(m[1]!, 'utf8');
  const expected = Buffer.from(token, 'utf8');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

/**
 * An AbortSignal that fires when the client goes away before the reply is finished.
 * (fastify's `request.signal` listens to the request's 'close', which Node emits as soon
 * as a POST body has been read, so it cannot tell a finished upload from a disconnect.)
 */
export function clientGoneSignal(reply: FastifyReply): AbortSignal {
  const ctl = new Cancel();
  // A request that waited behind busy work may find its client already gone: do not start it.
  if (reply.raw.destroyed || reply.request.raw.socket?.destroyed === true) {
    ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'the client went away before the work started'));
    return ctl.signal;
  }
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'the client went away'));
  });
  return ctl.signal;
}

/** What {@link localChild} shares with the process's node apps: the metrics and work ledger they record into. */
export interface LocalChildOptions {
  readonly metrics?: NodeHttpMetrics;
  readonly work?: QueryWork;
}

/**
 * `it.next()`, or CANOPY_ERR_CANCELLED as soon as `signal` aborts (the parent gone), whatever
 * the iterator does: a handler that does not watch its signal cannot hold its parent.
 */
function nextUnlessAborted<T>(it: AsyncIterator<T>, signal: AbortSignal, cancelled: () => CanopyError): Promise<IteratorResult<T>> {
  if (signal.aborted) return Promise.reject(cancelled());
  return new Promise((resolve, reject) => {
    const onAbort = (): void => reject(cancelled());
    signal.addEventListener('abort', onAbort, { once: true });
    it.next().then(
      (r) => {
        signal.removeEventListener('abort', onAbort);
        resolve(r);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

/**
 * A child served by this very process (a node of the same host, registered in `directory` by
 * its node app): its handler called directly, as POST /v1/partials runs one entry, but with no
 * HTTP, JSON or Arrow in between, so its frames reach the parent's gather as they are made.
 * It keeps what the route keeps: the node's own admission control (the wait taken out of the
 * budget), the query's work ledger, the request metrics (`canopy_node_request_seconds` with its
 * outcome), and the errors a parent sees over HTTP ({@link MultiplexClient}'s): one before the
 * first frame as {@link childHttpError} makes it of the route's error reply (503
 * CANOPY_ERR_OVERLOADED keeps its code and `retryAfterSeconds`, anything else is
 * CANOPY_ERR_CHILD_HTTP naming the node's own code), an injected crash or a failure after the
 * first frame CANOPY_ERR_CHILD_UNREACHABLE (a reply broken off), and CANOPY_ERR_CANCELLED once
 * `signal` aborts, at once, even from a handler that does not watch it.
 */
export function localChild(name: string, shards: readonly number[], directory: NodeDirectory, opts: LocalChildOptions = {}): Child {
  const { metrics, work } = opts;
  const cancelled = (): CanopyError => new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`);
  async function* query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    const t0 = performance.now();
    // A parent that stops reading (at its deadline, or once it has what it needs) cancelled it.
    let outcome: RequestOutcome = 'cancelled';
    let sent = 0;
    let release = (): void => undefined;
    let frames: AsyncIterator<Frame> | undefined;
    try {
      if (signal.aborted) throw cancelled();
      const target = directory.get(name);
      if (target === undefined) throw new CanopyError('CANOPY_ERR_NOT_FOUND', `no node ${name} in this process; it serves ${directory.names.join(', ')}`);
      const a = await admitted(name, target.admission, req, undefined, signal, metrics);
      release = a.release;
      const touch = work?.begin(a.childReq.queryId, name, a.childReq.budgetMs);
      frames = target.handler(a.childReq, signal)[Symbol.asyncIterator]();
      for (let r = await nextUnlessAborted(frames, signal, cancelled); r.done !== true; r = await nextUnlessAborted(frames, signal, cancelled)) {
        const f = r.value;
        const p = f.partial;
        const units = p.type === 'rows' ? p.rows.length : p.type === 'columnar' ? p.size : p.groups.size;
        if (units > 0) touch?.(units);
        sent++;
        yield f;
        // The answer is the last frame (progressive updates come before it).
        if (f.final !== false) break;
      }
      if (sent === 0) throw new CanopyError('CANOPY_ERR_INTERNAL', 'node produced no frame');
      outcome = 'ok';
    } catch (e) {
      if (signal.aborted) {
        outcome = 'cancelled';
        throw cancelled();
      }
      outcome = 'error';
      if (sent > 0 || (e instanceof CanopyError && (e.details as { fault?: string } | undefined)?.fault === 'crash')) {
        throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${name} broke off its reply`);
      }
      const err = toCanopyError(e);
      if (err.status === 503) outcome = 'rejected';
      const after = (err.details as { retryAfterSeconds?: unknown } | undefined)?.retryAfterSeconds;
      throw childHttpError(name, err.status, JSON.stringify(err.toJSON()), typeof after === 'number' ? String(after) : undefined);
    } finally {
      // A handler still running (the parent stopped reading, or gave up on it) is told to stop.
      void frames?.return?.(undefined)?.catch(() => undefined);
      release();
      metrics?.requestSeconds.observe({ node: name, outcome }, (performance.now() - t0) / 1000);
    }
  }
  return { name, shards, query };
}
