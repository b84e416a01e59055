/**
 * A child over HTTP: POST /v1/partial with the request as JSON and the remaining budget
 * in a header; the reply is a sequence of length-prefixed Arrow IPC frames (progressive
 * updates, then the answer). Uses one undici keep-alive Pool per child.
 */
import { Pool } from 'undici';
import { CanopyError, FrameSplitter, aligned8, budgetHeaderValue, decodeFrame, isCanopyError, layoutOf, refusesQuery, toWireJSON, FRAMES_TYPE, type Frame } from '../merge/index.ts';
import { BUDGET_HEADER, PARTIAL_ROUTE, SENT_AT_HEADER, type Child, type ChildRequest } from './child.ts';

/** Options of an HTTP child. */
export interface HttpChildOptions {
  /** Shared token of the tree, sent as `authorization: Bearer ...` (optional). */
  readonly token?: string;
  /** Max connections to this child (default 8). */
  readonly connections?: number;
  /** Largest reply accepted, bytes (default 256 MiB). */
  readonly maxReplyBytes?: number;
  /** Accounting of reply bytes, shared by the children of one parent node (see {@link ReplyBytes}). */
  readonly replyBytes?: ReplyBytes;
}

/**
 * Reply bytes of a node's HTTP children (one per parent node): `held` counts the bytes of replies whose request
 * is still in flight (received, not yet released: what the node holds for its queries in
 * progress), `total` every byte ever received. Exported as `canopy_reply_bytes_held` and
 * `canopy_reply_bytes_total`.
 */
export class ReplyBytes {
  held = 0;
  total = 0;
}

/** An HTTP child with close() (graceful) and destroy() (aborts in-flight requests) for its pool. */
export interface HttpChild extends Child {
  close(): Promise<void>;
  destroy(): Promise<void>;
}

/**
 * Creates a child that talks to `url` (e.g. `http://127.0.0.1:9101`).
 * Errors become CanopyErrors: CANOPY_ERR_CHILD_UNREACHABLE (connection), CANOPY_ERR_CHILD_HTTP
 * (non-200; the child's own code is kept in the message), CANOPY_ERR_CHILD_GARBLED (bad reply),
 * CANOPY_ERR_CANCELLED (aborted).
 */
export function httpChild(name: string, shards: readonly number[], url: string, opts: HttpChildOptions = {}): HttpChild {
  const pool = new Pool(url, { connections: opts.connections ?? 8, pipelining: 1, keepAliveTimeout: 30_000 });
  const maxBytes = opts.maxReplyBytes ?? 256 * 1024 * 1024;
  async function* query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    const headers: Record<string, string> = {
      'content-type': 'application/json',
      accept: FRAMES_TYPE,
      [BUDGET_HEADER]: budgetHeaderValue(req.budgetMs),
      [SENT_AT_HEADER]: String(Date.now()),
    };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let res;
    try {
      res = await pool.request({ path: PARTIAL_ROUTE, method: 'POST', headers, body: toWireJSON(req), signal });
    } catch (e) {
      if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`, { cause: e });
      throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${name} at ${url} is unreachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    if (res.statusCode !== 200) {
      const chunks: Buffer[] = [];
      try {
        for await (const c of res.body) if (chunks.length < 64) chunks.push(c as Buffer);
      } catch {
        // The error body is best effort: the status alone is the failure.
      }
      throw childHttpError(name, res.statusCode, Buffer.concat(chunks).toString('utf8'), res.headers['retry-after']);
    }
    // The reply is a sequence of length-prefixed frames; each is yielded as soon as it is whole.
    const layout = layoutOf(req.plan, req.schema);
    const splitter = new FrameSplitter(maxBytes);
    let size = 0;
    const account = opts.replyBytes;
    try {
      for await (const c of res.body) {
        const b = c as Buffer;
        size += b.length;
        if (account !== undefined) {
          account.held += b.length;
          account.total += b.length;
        }
        if (size > maxBytes) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${name} replied more than ${maxBytes} bytes`);
        for (const f of splitter.push(b)) {
          // A frame that comes in after the parent gave up on this child (its deadline, or the
          // gather ended) is dropped undecoded: no decode or merge work past a deadline.
          if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`);
          yield decodeFrame(layout, aligned8(f));
        }
      }
    } catch (e) {
      if (isCanopyError(e)) throw e;
      if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`, { cause: e });
      throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${name} broke off its reply: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    } finally {
      // Released when the request ends, however it ends (answered, failed, abandoned by the gather).
      if (account !== undefined) account.held -= size;
    }
    if (splitter.pending > 0) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${name} ended its reply inside a frame`);
  }
  return { name, shards, query, close: () => pool.close(), destroy: () => pool.destroy() };
}

/**
 * The error of child `name` answering HTTP `status` with `body` (its first bytes): a child's
 * admission control refusing the request (503 CANOPY_ERR_OVERLOADED) keeps its code and the
 * child's `Retry-After` in `details.retryAfterSeconds` (the shards are failed as overloaded, a
 * replica set may retry them elsewhere); a 400 CANOPY_ERR_LIMIT or CANOPY_ERR_OUT_OF_RANGE keeps
 * its code and message (the query's own error, which the gather refuses the query with);
 * anything else is CANOPY_ERR_CHILD_HTTP with the child's own code and message (or the body's
 * first 300 bytes) in the message.
 */
export function childHttpError(name: string, status: number, body: string, retryAfter: string | string[] | undefined): CanopyError {
  let detail = body.slice(0, 300);
  let code: string | undefined;
  let message: string | undefined;
  try {
    const j = JSON.parse(body) as { error?: { code?: string; message?: string } };
    if (j.error !== undefined) detail = `${j.error.code ?? ''}: ${j.error.message ?? ''}`;
    code = j.error?.code;
    message = typeof j.error?.message === 'string' ? j.error.message : undefined;
  } catch {
    // Not JSON: keep the first bytes as they are.
  }
  // A per-query limit or a value out of its type's range is the query's error wherever it
  // happens (a child's merge passing the group limit before its first frame): the gather
  // refuses the whole query with it, as it does for one a frame's provenance carries.
  if (status === 400 && refusesQuery(code) && message !== undefined) return new CanopyError(code, message);
  if (status === 503 && code === 'CANOPY_ERR_OVERLOADED') {
    const after = Number(Array.isArray(retryAfter) ? retryAfter[0] : retryAfter);
    return new CanopyError('CANOPY_ERR_OVERLOADED', `${name} refused the request (HTTP 503, ${detail})`, Number.isFinite(after) ? { details: { retryAfterSeconds: after } } : {});
  }
  return new CanopyError('CANOPY_ERR_CHILD_HTTP', `${name} answered HTTP ${status} (${detail})`);
}
