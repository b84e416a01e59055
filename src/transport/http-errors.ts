/**
 * The one fastify error handler of every canopy HTTP app (the root's API and each node's
 * partial route): fastify's own errors become coded CanopyErrors (a body over the limit,
 * a wrong media type, malformed JSON), anything else keeps its code or becomes
 * CANOPY_ERR_INTERNAL; the reply is the error's status, `Retry-After` when the error says how
 * long to wait, `Cache-Control: no-store`, and the `{"error": ...}` body.
 */
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify';
import type { Duplex, Readable } from 'node:stream';
import { CanopyError, toCanopyError } from '../merge/index.ts';

/** What an app says in the errors that depend on it. */
export interface ErrorHandlerOptions {
  /** The app's body limit, bytes (named in CANOPY_ERR_BODY_TOO_LARGE). */
  readonly bodyLimit: number;
  /** What to send instead, named when the media type is wrong (e.g. `send the query as Content-Type: application/json`). */
  readonly mediaHint: string;
}

/** The CanopyError a fastify request failure stands for (see the module comment). */
export function httpCanopyError(err: unknown, opts: ErrorHandlerOptions): CanopyError {
  if (err instanceof CanopyError) return err;
  const { code, statusCode } = err as { code?: string; statusCode?: number };
  if (code === 'FST_ERR_CTP_BODY_TOO_LARGE') return new CanopyError('CANOPY_ERR_BODY_TOO_LARGE', `request body exceeds ${opts.bodyLimit} bytes`);
  if (code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE' || statusCode === 415) return new CanopyError('CANOPY_ERR_BAD_REQUEST', opts.mediaHint);
  if (code === 'FST_ERR_CTP_EMPTY_JSON_BODY' || statusCode === 400) return new CanopyError('CANOPY_ERR_BAD_REQUEST', `request body is not valid JSON: ${(err as Error).message}`);
  // A body nested thousands of levels deep (`{"trace":[[[[...]]]]}`) exhausts the stack of whatever reads it.
  if (err instanceof RangeError && /call stack/i.test(err.message)) return new CanopyError('CANOPY_ERR_BAD_REQUEST', 'the request body is nested too deeply to read; send a flat JSON object like {"sql": "SELECT ..."}');
  return toCanopyError(err);
}

/**
 * A fastify error handler (`app.setErrorHandler(...)`) answering every failure as a coded
 * error. A body over the limit is read to its end (and dropped) before its 413 is sent, up
 * to {@link DRAIN_MAX_BYTES} or {@link DRAIN_MAX_MS}: a client still sending when the
 * connection closed got a broken pipe instead of the answer (undici, Node's fetch).
 */
export function canopyErrorHandler(opts: ErrorHandlerOptions): (err: FastifyError, req: FastifyRequest, reply: FastifyReply) => void | Promise<void> {
  return (err, req, reply) => {
    const e = httpCanopyError(err, opts);
    const send = (): void => {
      const retry = (e.details as { retryAfterSeconds?: number } | undefined)?.retryAfterSeconds;
      if (retry !== undefined) void reply.header('retry-after', String(retry));
      void reply.code(e.status).header('cache-control', 'no-store').send(e.toJSON());
    };
    if (e.code === 'CANOPY_ERR_BODY_TOO_LARGE' && !req.raw.complete && !req.raw.destroyed) {
      void reply.header('connection', 'close');
      return drainBody(req.raw).then(send);
    }
    send();
    return undefined;
  };
}

/** Most bytes of an oversized body read and dropped before its 413 is sent. */
export const DRAIN_MAX_BYTES = 64 * 1024 * 1024;

/** Longest wait for the rest of an oversized body before its 413 is sent, ms. */
export const DRAIN_MAX_MS = 5_000;

/** Reads `body` to its end and drops it; resolves at its end, on an error, or past `maxBytes` or `maxMs`. */
function drainBody(body: Readable, maxBytes = DRAIN_MAX_BYTES, maxMs = DRAIN_MAX_MS): Promise<void> {
  return new Promise((resolve) => {
    let read = 0;
    const done = (): void => {
      clearTimeout(timer);
      body.off('data', onData).off('end', done).off('error', done).off('close', done);
      resolve();
    };
    const onData = (chunk: Buffer): void => {
      read += chunk.length;
      if (read > maxBytes) done();
    };
    const timer = setTimeout(done, maxMs);
    body.on('data', onData).once('end', done).once('error', done).once('close', done);
    body.resume();
  });
}

/**
 * Fastify's `clientErrorHandler`: a request Node's HTTP parser refuses before any route sees
 * it (a malformed chunk, Content-Length with Transfer-Encoding, a body shorter or longer than
 * its Content-Length, headers over Node's 16 KiB, a request not received in time) is answered
 * with the coded `{"error": ...}` body every other refusal has, code CANOPY_ERR_BAD_REQUEST,
 * the status Node gives it (400, 408 for a timeout, 431 for headers too large) and the
 * parser's reason; then the connection is closed (what follows on it cannot be framed).
 * Nothing is written to a socket already reset or destroyed.
 */
export function canopyClientErrorHandler(err: Error & { code?: string; reason?: string }, socket: Duplex): void {
  if (err.code === 'ECONNRESET' || socket.destroyed) return;
  let status = 400;
  let message = `malformed HTTP request (${err.code ?? 'unknown'}): ${err.reason ?? err.message}`;
  if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT') {
    status = 408;
    message = 'the request was not received in time; send the whole request at once';
  } else if (err.code === 'HPE_HEADER_OVERFLOW') {
    status = 431;
    message = 'the request headers (or a GET URL) exceed the 16 KiB limit; POST long SQL as a JSON body';
  }
  const body = JSON.stringify(new CanopyError('CANOPY_ERR_BAD_REQUEST', message).toJSON());
  if (socket.writable) {
    socket.write(`HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : status === 408 ? 'Request Timeout' : 'Request Header Fields Too Large'}\r\ncontent-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\ncache-control: no-store\r\nconnection: close\r\n\r\n${body}`);
  }
  socket.destroy();
}
