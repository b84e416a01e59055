/**
 * The root's HTTP API (fastify): POST /v1/query, GET /healthz. Built apart from the
 * process that listens, so tests drive it with `app.inject()`.
 */
import Fastify, { type FastifyInstance } from 'fastify';
import { CanopyError, toCanopyError } from '../merge/index.ts';
import { parseQueryRequest, type Root } from './engine.ts';
import { answerToJSON } from './format.ts';
import { clientGoneSignal } from '../transport/index.ts';

/** Options of the root app. */
export interface RootAppOptions {
  /** Largest request body, bytes (default 256 KiB). */
  readonly bodyLimit?: number;
  /** GET /healthz answers 200 once this returns true (every shard loaded). */
  readonly ready?: () => boolean;
  /** Largest deadline_ms accepted. */
  readonly maxDeadlineMs?: number;
}

/** Builds (does not start) the root's fastify app around a {@link Root}. */
export function buildRootApp(root: Root, opts: RootAppOptions = {}): FastifyInstance {
  const app = Fastify({ logger: false, bodyLimit: opts.bodyLimit ?? 256 * 1024 });
  app.setErrorHandler((err, _req, reply) => {
    const code = (err as { code?: string }).code;
    let e: CanopyError;
    if (err instanceof CanopyError) e = err;
    else if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') e = new CanopyError('CANOPY_ERR_BODY_TOO_LARGE', `request body exceeds ${opts.bodyLimit ?? 256 * 1024} bytes`);
    else if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') e = new CanopyError('CANOPY_ERR_BAD_REQUEST', 'send the query as Content-Type: application/json');
    else if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || (err as { statusCode?: number }).statusCode === 400) e = new CanopyError('CANOPY_ERR_BAD_REQUEST', `request body is not valid JSON: ${(err as Error).message}`);
    else e = toCanopyError(err);
    void reply.code(e.status).header('cache-control', 'no-store').send(e.toJSON());
  });
  app.setNotFoundHandler((req, reply) => {
    void reply.code(404).send(new CanopyError('CANOPY_ERR_NOT_FOUND', `no route ${req.method} ${req.url}; try POST /v1/query`).toJSON());
  });
  app.get('/healthz', async (_req, reply) => {
    const ok = opts.ready === undefined || opts.ready();
    return reply.code(ok ? 200 : 503).send({ ok });
  });
  app.post('/v1/query', async (req, reply) => {
    if (opts.ready !== undefined && !opts.ready()) throw new CanopyError('CANOPY_ERR_NOT_READY', 'shards are still loading; retry shortly');
    const q = parseQueryRequest(req.body, opts.maxDeadlineMs);
    const answer = await root.query(q, clientGoneSignal(reply));
    // Anything short of exact with full coverage must not be cached as if complete.
    if (answer.label !== 'exact') void reply.header('cache-control', 'no-store');
    return reply.code(200).send(answerToJSON(answer));
  });
  return app;
}
