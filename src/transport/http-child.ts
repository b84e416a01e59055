/**
 * A child over HTTP: POST /v1/partial with the request as JSON and the remaining budget
 * in a header; the reply is an Arrow IPC frame. Uses one undici keep-alive Pool per child.
 */
import { Pool } from 'undici';
import { CanopyError, decodeFrame, isCanopyError, layoutOf, toWireJSON, ARROW_STREAM, type Frame } from '../merge/index.ts';
import { BUDGET_HEADER, PARTIAL_ROUTE, type Child, type ChildRequest } from './child.ts';

/** Options of an HTTP child. */
export interface HttpChildOptions {
  /** Shared token of the tree, sent as `authorization: Bearer ...` (optional). */
  readonly token?: string;
  /** Max connections to this child (default 8). */
  readonly connections?: number;
  /** Largest reply accepted, bytes (default 256 MiB). */
  readonly maxReplyBytes?: number;
}

/** An HTTP child with a close() for its connection pool. */
export interface HttpChild extends Child {
  close(): Promise<void>;
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
      accept: ARROW_STREAM,
      [BUDGET_HEADER]: String(Math.max(0, Math.floor(req.budgetMs))),
    };
    if (opts.token !== undefined) headers.authorization = `Bearer ${opts.token}`;
    let res;
    try {
      res = await pool.request({ path: PARTIAL_ROUTE, method: 'POST', headers, body: toWireJSON(req), signal });
    } catch (e) {
      if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`, { cause: e });
      throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${name} at ${url} is unreachable: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const chunks: Buffer[] = [];
    let size = 0;
    try {
      for await (const c of res.body) {
        const b = c as Buffer;
        size += b.length;
        if (size > maxBytes) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${name} replied more than ${maxBytes} bytes`);
        chunks.push(b);
      }
    } catch (e) {
      if (isCanopyError(e)) throw e;
      if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `request to ${name} aborted`, { cause: e });
      throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `${name} broke off its reply: ${e instanceof Error ? e.message : String(e)}`, { cause: e });
    }
    const body = Buffer.concat(chunks);
    if (res.statusCode !== 200) {
      let detail = body.subarray(0, 300).toString('utf8');
      try {
        const j = JSON.parse(body.toString('utf8')) as { error?: { code?: string; message?: string } };
        if (j.error !== undefined) detail = `${j.error.code ?? ''}: ${j.error.message ?? ''}`;
      } catch {
        // Not JSON: keep the first bytes as they are.
      }
      throw new CanopyError('CANOPY_ERR_CHILD_HTTP', `${name} answered HTTP ${res.statusCode} (${detail})`);
    }
    yield decodeFrame(layoutOf(req.plan, req.schema), body);
  }
  return { name, shards, query, close: () => pool.close() };
}
