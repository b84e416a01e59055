/**
 * The root's HTTP API (fastify): POST and GET /v1/query (JSON, NDJSON or SSE snapshots,
 * Arrow, CSV, Parquet; see respond.ts), GET /v1/catalog (catalog.ts), GET /healthz. Built apart from the
 * process that listens, so tests drive it with `app.inject()`.
 */
import Fastify, { type FastifyError, type FastifyInstance, type FastifyReply, type FastifyRequest } from 'fastify';
import { CanopyError, toCanopyError } from '../merge/index.ts';
import type { MissingShard, QueryAnswer, Root } from './engine.ts';
import { parseQueryRequest, queryParamKinds } from './api.ts';
import type { RootMetrics } from './metrics.ts';
import { answerToJSON } from './format.ts';
import { answerToArrow, answerToCSV, answerToParquet, contentType, negotiate, streamChunk, warningsHeader } from './respond.ts';
import { Admission, bearerMatches, canopyClientErrorHandler, canopyErrorHandler, clientGoneSignal, readJsonBody } from '../transport/index.ts';
import { registerDashboard } from './dashboard.ts';
import { catalogJSON, catalogShardsJSON } from './catalog.ts';

/** Options of the root app. */
export interface RootAppOptions {
  /** Largest request body, bytes (default 256 KiB). */
  readonly bodyLimit?: number;
  /** GET /healthz answers 200 once this returns true (every shard loaded). */
  readonly ready?: () => boolean;
  /** Unreachable parts of the tree: when not empty, GET /healthz answers 503 `degraded` with the list. */
  readonly degraded?: () => readonly unknown[];
  /** Largest deadline_ms accepted. */
  readonly maxDeadlineMs?: number;
  /** Minimum interval between progressive snapshots, ms (default 100). */
  readonly snapshotIntervalMs?: number;
  /** Admission control (default: 16 in flight, 64 queued, a queued query waits at most half its deadline). */
  readonly admission?: Admission;
  /** Metrics, served on GET /metrics (absent: no route). */
  readonly metrics?: RootMetrics;
  /** When set, /v1/query requires `Authorization: Bearer <apiToken>`. */
  readonly apiToken?: string;
  /** How long a client may leave its written answer unread before its connection is dropped, ms (default {@link UNREAD_ANSWER_MS}). */
  readonly unreadAnswerMs?: number;
}

/** The root's API paths and the methods each is served for (HEAD with GET, as fastify serves it). */
const ROUTE_METHODS: readonly (readonly [RegExp, readonly string[]])[] = [
  [/^\/v1\/query$/, ['GET', 'HEAD', 'POST']],
  [/^\/v1\/catalog$/, ['GET', 'HEAD']],
  [/^\/v1\/catalog\/[^/]+\/shards$/, ['GET', 'HEAD']],
  [/^\/healthz$/, ['GET', 'HEAD']],
];

/**
 * Fastify's own refusals before routing (a path that is not percent-encoded UTF-8, a path
 * parameter over its 100 characters) in canopy's error body, as every other refusal.
 */
function frameworkError(err: FastifyError, _req: FastifyRequest, reply: FastifyReply): void {
  const message = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path segment is longer than 100 characters (no table name is)' : 'the path is not valid percent-encoded UTF-8';
  void reply.code(400).header('cache-control', 'no-store').send(new CanopyError('CANOPY_ERR_BAD_REQUEST', message).toJSON());
}

/** Builds (does not start) the root's fastify app around a {@link Root}. */
export function buildRootApp(root: Root, opts: RootAppOptions = {}): FastifyInstance {
  // requestTimeout: a client that sends half a request is dropped after 30 s.
  const app = Fastify({ logger: false, bodyLimit: opts.bodyLimit ?? 256 * 1024, requestTimeout: 30_000, clientErrorHandler: canopyClientErrorHandler, frameworkErrors: frameworkError });
  // Bodies are read strictly (readJsonBody): no guessing at charsets, codings, bad bytes or repeated fields.
  app.removeContentTypeParser('application/json');
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (req, body, done) => {
    try {
      done(null, readJsonBody(body as Buffer, req.headers['content-type'], req.headers['content-encoding']));
    } catch (e) {
      done(e as Error, undefined);
    }
  });
  app.setErrorHandler(canopyErrorHandler({ bodyLimit: opts.bodyLimit ?? 256 * 1024, mediaHint: 'send the query as Content-Type: application/json' }));
  const admission = opts.admission ?? new Admission();
  const metrics = opts.metrics;
  if (metrics !== undefined) {
    app.get('/metrics', async (_req, reply) => reply.type(metrics.registry.contentType).send(await metrics.registry.metrics()));
  }
  app.setNotFoundHandler((req, reply) => {
    // A served path asked with another method (DELETE /v1/query): 405 with the methods it takes.
    const path = req.url.split('?')[0]!;
    const allowed = ROUTE_METHODS.find(([re]) => re.test(path))?.[1];
    if (allowed !== undefined) {
      void reply
        .code(405)
        .header('allow', allowed.join(', '))
        .send(new CanopyError('CANOPY_ERR_METHOD_NOT_ALLOWED', `${req.method} is not served at ${path}; it takes ${allowed.join(' or ')}`).toJSON());
      return;
    }
    void reply.code(404).send(new CanopyError('CANOPY_ERR_NOT_FOUND', `no route ${req.method} ${req.url}; the root serves POST or GET /v1/query, GET /v1/catalog, GET /v1/catalog/:table/shards, GET /healthz, GET /metrics and the dashboard at GET /`).toJSON());
  });
  registerDashboard(app);
  app.get('/healthz', async (_req, reply) => {
    const ok = opts.ready === undefined || opts.ready();
    const unreachable = opts.degraded?.() ?? [];
    if (ok && unreachable.length > 0) return reply.code(503).send({ ok: false, status: 'degraded', unreachable });
    return reply.code(ok ? 200 : 503).send({ ok });
  });
  const run = async (body: unknown, accept: string | undefined, authorization: string | undefined, reply: FastifyReply): Promise<FastifyReply> => {
    const t0 = performance.now();
    try {
      return await answer(body, accept, authorization, reply, t0);
    } catch (e) {
      const err = toCanopyError(e);
      metrics?.failed(err.code, (performance.now() - t0) / 1000, missingOf(err));
      throw e;
    }
  };
  const answer = async (body: unknown, accept: string | undefined, authorization: string | undefined, reply: FastifyReply, t0: number): Promise<FastifyReply> => {
    authorized(authorization);
    if (opts.ready !== undefined && !opts.ready()) throw new CanopyError('CANOPY_ERR_NOT_READY', 'shards are still loading; retry shortly');
    const stream = typeof body === 'object' && body !== null && (body as { stream?: unknown }).stream === true;
    const format = negotiate(accept, stream);
    const parsed = parseQueryRequest(body, opts.maxDeadlineMs);
    const signal = clientGoneSignal(reply);
    // Admission: wait at most what the deadline allows for a slot, then run with what is left of it.
    const tAdmit = performance.now();
    const { release, remainingMs } = await admission.admit(parsed.deadline_ms ?? 30_000, signal);
    metrics?.admissionWait((performance.now() - tAdmit) / 1000);
    reply.raw.once('close', release);
    try {
      return await answerAdmitted(parsed, remainingMs, format, signal, reply, t0);
    } finally {
      // The slot is for the query's work: once its answer is handed to the socket it is free,
      // whether or not the client reads it (a client that stopped reading held it forever).
      release();
    }
  };
  const answerAdmitted = async (parsed: ReturnType<typeof parseQueryRequest>, remainingMs: number, format: ReturnType<typeof negotiate>, signal: AbortSignal, reply: FastifyReply, t0: number): Promise<FastifyReply> => {
    const q = { ...parsed, deadline_ms: remainingMs };
    const record = (a: QueryAnswer): QueryAnswer => {
      metrics?.answered(a, (performance.now() - t0) / 1000);
      return a;
    };
    if (format !== 'ndjson' && format !== 'sse') {
      const a = record(await root.query(q, signal));
      // Anything short of exact with full coverage must not be cached as if complete.
      if (a.label !== 'exact') void reply.header('cache-control', 'no-store');
      void reply.header('x-canopy-label', a.label);
      const warned = warningsHeader(a);
      if (warned !== undefined) void reply.header('x-canopy-warnings', warned);
      dropIfUnread(reply.raw, opts.unreadAnswerMs);
      if (format === 'arrow') return reply.code(200).type(contentType(format)).send(Buffer.from(answerToArrow(a)));
      if (format === 'parquet') return reply.code(200).type(contentType(format)).send(Buffer.from(answerToParquet(a)));
      if (format === 'csv') return reply.code(200).type(contentType(format)).send(answerToCSV(a));
      return reply.code(200).send(answerToJSON(a));
    }
    // Planned before the headers (which say 200) are sent: what planning refuses gets its
    // HTTP status and JSON error body, as unstreamed. The plan is cached for root.query.
    root.prepare(q);
    // Progressive snapshots, written as they come; the last one is the answer (final: true).
    reply.hijack();
    const raw = reply.raw;
    raw.writeHead(200, { 'content-type': contentType(format), 'cache-control': 'no-store', 'x-accel-buffering': 'no' });
    const write = (b: Record<string, unknown>): void => {
      if (!raw.destroyed) raw.write(streamChunk(format, b));
    };
    // A snapshot is skipped while the client has not read the ones before (its answer is
    // still to come, as narrow as any snapshot skipped): a client that stops reading costs
    // the root at most the backlog and the last line, not every snapshot of the query.
    const snapshot = (snap: QueryAnswer): void => {
      if (!snapshotBacklogged(raw)) write(answerToJSON(snap));
    };
    try {
      const a = record(await root.query(q, signal, snapshot, opts.snapshotIntervalMs));
      write(answerToJSON(a));
    } catch (e) {
      const err = toCanopyError(e);
      metrics?.failed(err.code, (performance.now() - t0) / 1000, missingOf(err));
      write({ ...err.toJSON(), final: true });
    }
    dropIfUnread(raw, opts.unreadAnswerMs);
    raw.end();
    return reply;
  };
  // The catalog (schema panel): behind the same API token as queries.
  const authorized = (authorization: string | undefined): void => {
    if (opts.apiToken !== undefined && !bearerMatches(authorization, opts.apiToken)) throw new CanopyError('CANOPY_ERR_UNAUTHORIZED', 'this canopy requires Authorization: Bearer <token>');
  };
  app.get('/v1/catalog', async (req) => {
    authorized(req.headers.authorization);
    return catalogJSON(root.catalogs);
  });
  app.get<{ Params: { table: string } }>('/v1/catalog/:table/shards', async (req) => {
    authorized(req.headers.authorization);
    return catalogShardsJSON(root.catalogs, req.params.table);
  });
  app.post('/v1/query', async (req, reply) => run(req.body, req.headers.accept, req.headers.authorization, reply));
  app.get('/v1/query', async (req, reply) => {
    checkPercentEncoding(req.url);
    return run(queryFromSearchParams(req.query as Record<string, unknown>), req.headers.accept, req.headers.authorization, reply);
  });
  return app;
}

/** Bytes of a stream's snapshots a client may leave unread before further snapshots (not the final line) are skipped. */
export const SNAPSHOT_BACKLOG_BYTES = 1024 * 1024;

/**
 * Whether a progressive stream's client is behind: more than {@link SNAPSHOT_BACKLOG_BYTES}
 * written to `out` and not yet taken by the socket (`writableLength`, bytes).
 */
export function snapshotBacklogged(out: { readonly writableLength: number }): boolean {
  return out.writableLength > SNAPSHOT_BACKLOG_BYTES;
}

/** How long a client may leave its whole answer unread before the connection is dropped, ms (as a request must arrive within 30 s). */
export const UNREAD_ANSWER_MS = 30_000;

/**
 * Drops the connection of `res` (its answer fully written by the root) when the client reads
 * none of it for `ms` ({@link UNREAD_ANSWER_MS}): the socket's inactivity timer, which Node
 * replaces with the keep-alive timer once the answer is taken.
 */
function dropIfUnread(res: FastifyReply['raw'], ms = UNREAD_ANSWER_MS): void {
  res.setTimeout(ms, () => res.destroy());
}

/** The missing shards a CANOPY_ERR_NO_COVERAGE carries in its details (for the shard outcome metrics). */
function missingOf(e: CanopyError): readonly MissingShard[] | undefined {
  const m = (e.details as { missing?: unknown } | undefined)?.missing;
  return Array.isArray(m) ? (m as MissingShard[]) : undefined;
}

/**
 * Refuses a query string whose percent-encoding is not UTF-8 (`?sql=%FF`, `%ED%A0%80`): the
 * parser would hand the value on undecoded, `%` and all, and the SQL would be refused for a
 * '%' its author never wrote (or, inside a string literal, answered with one).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST naming the parameter
 */
export function checkPercentEncoding(url: string): void {
  const q = url.indexOf('?');
  if (q < 0) return;
  for (const pair of url.slice(q + 1).split('&')) {
    const [key = '', value = ''] = pair.split(/=(.*)/s);
    for (const part of [key, value]) {
      try {
        decodeURIComponent(part.replaceAll('+', ' '));
      } catch {
        throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `query parameter '${key.slice(0, 40)}' is not valid percent-encoded UTF-8; encode the text as UTF-8 bytes (encodeURIComponent)`);
      }
    }
  }
}

/** The kinds of the request's fields, from its schema (api.ts). */
const GET_PARAMS = queryParamKinds();

/**
 * The request body of `GET /v1/query?sql=...`: the same fields as the POST body (the
 * request schema's), decoded from text, then checked by the same schema. Numbers must be
 * decimal (`250`, `0.9`), booleans `true` or `false`.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for an unknown, repeated or malformed parameter.
 */
export function queryFromSearchParams(q: Record<string, unknown>): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(q)) {
    if (!GET_PARAMS.has(k)) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `unknown query parameter '${k}'; known: ${[...GET_PARAMS.keys()].join(', ')}`);
    if (typeof v !== 'string') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `query parameter '${k}' is given more than once`);
    const kind = GET_PARAMS.get(k);
    if (kind === 'number') {
      if (!/^\d+(\.\d+)?$/.test(v)) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${k} must be a decimal number, got '${v.slice(0, 40)}'`);
      body[k] = Number(v);
    } else if (kind === 'boolean') {
      if (v !== 'true' && v !== 'false') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${k} must be true or false, got '${v.slice(0, 40)}'`);
      body[k] = v === 'true';
    } else body[k] = v;
  }
  return body;
}
