/**
 * Test helpers for the root's HTTP API driven with `app.inject()`.
 */
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { expect } from 'vitest';
import type { SourcePosition } from '../../src/merge/index.ts';

/** POSTs a JSON value (or a raw string with the given content type) to /v1/query. */
export function postQuery(app: FastifyInstance, body: unknown, opts: { raw?: boolean; contentType?: string } = {}): Promise<LightMyRequestResponse> {
  return app.inject({
    method: 'POST',
    url: '/v1/query',
    headers: { 'content-type': opts.contentType ?? 'application/json' },
    payload: opts.raw === true ? (body as string) : JSON.stringify(body),
  });
}

/** The coded error body of a response, checked for shape. */
export interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string; readonly position?: SourcePosition; readonly details?: unknown };
}

/** Asserts a coded error response and returns its body. */
export function expectError(res: LightMyRequestResponse, status: number, code: string): ErrorBody {
  expect(res.statusCode, res.body).toBe(status);
  expect(res.headers['content-type']).toMatch(/^application\/json/);
  const body = res.json<ErrorBody>();
  expect(Object.keys(body)).toEqual(['error']);
  expect(body.error.code, body.error.message).toBe(code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  return body;
}

/**
 * Problems with a syntax error's position given the SQL text (empty when fine): 1-based
 * line and column, 0-based offset within the text, all three saying the same place.
 */
export function positionProblems(sql: string, p: unknown): string[] {
  if (typeof p !== 'object' || p === null) return [`position is ${JSON.stringify(p)}, not an object`];
  const { line, column, offset } = p as Record<string, unknown>;
  if (!Number.isInteger(line) || !Number.isInteger(column) || !Number.isInteger(offset)) return [`position ${JSON.stringify(p)} is not three integers`];
  const out: string[] = [];
  const l = line as number;
  const c = column as number;
  const o = offset as number;
  if (o < 0 || o > sql.length) out.push(`offset ${o} is outside [0, ${sql.length}]`);
  const lines = sql.split('\n');
  if (l < 1 || l > lines.length) out.push(`line ${l} is outside [1, ${lines.length}]`);
  else {
    if (c < 1 || c > lines[l - 1]!.length + 1) out.push(`column ${c} is outside line ${l} (length ${lines[l - 1]!.length})`);
    const start = lines.slice(0, l - 1).reduce((n, s) => n + s.length + 1, 0);
    if (start + c - 1 !== o) out.push(`line ${l} column ${c} is offset ${start + c - 1}, but offset says ${o}`);
  }
  return out;
}
