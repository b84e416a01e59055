/**
 * Request shapes a hunt found answered badly, each checked against the app a tree serves:
 * the body of `POST /v1/query` read strictly (a charset or content coding it would guess at, bytes
 * that are not UTF-8, a field given twice, `__proto__` called invalid JSON), HTTP requests
 * Node's parser refuses answered with a coded body, and after each the next query answered.
 */
import net from 'node:net';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { buildRootApp } from '../src/root/index.ts';
import { expectError } from './helpers/api.ts';
import { inProcessRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 'city', type: 'string' }, { name: 'x', type: 'int64' }] };
const SHARDS: Scalar[][][] = [
  [['Zürich', 1n], ['Bern', 2n]],
  [['Zürich', 3n], ['Genève', 4n]],
  [['Bern', 5n]],
];
const ZURICH = "SELECT count(*) AS n, sum(x) AS s FROM t WHERE city = 'Zürich'";

const apps: FastifyInstance[] = [];
afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

function makeApp(): FastifyInstance {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  const app = buildRootApp(root);
  apps.push(app);
  return app;
}

function post(app: FastifyInstance, payload: string | Buffer, headers: Record<string, string> = {}): Promise<LightMyRequestResponse> {
  return app.inject({ method: 'POST', url: '/v1/query', headers: { 'content-type': 'application/json', ...headers }, payload });
}

/** The next normal query is answered, with the right values. */
async function stillAnswers(app: FastifyInstance): Promise<void> {
  const res = await post(app, JSON.stringify({ sql: ZURICH }));
  expect(res.statusCode, res.body).toBe(200);
  expect(res.json<{ rows: unknown[][]; label: string }>()).toMatchObject({ rows: [[2, 4]], label: 'exact' });
}

describe('POST /v1/query: the body is read as sent, or refused', () => {
  it('a UTF-8 body is answered; a Latin-1 one is refused naming the byte, not run as another string', async () => {
    const app = makeApp();
    await stillAnswers(app);
    const latin1 = Buffer.from(JSON.stringify({ sql: ZURICH }), 'latin1');
    const err = expectError(await post(app, latin1), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe(`request body is not valid UTF-8: byte ${latin1.indexOf(0xfc)} (0xfc) does not start a UTF-8 character; send the JSON body as UTF-8`);
    await stillAnswers(app);
  });

  it('a charset other than UTF-8 is refused naming it; utf-8 and a BOM are fine', async () => {
    const app = makeApp();
    const body = JSON.stringify({ sql: ZURICH });
    const err = expectError(await post(app, Buffer.from(body, 'utf16le'), { 'content-type': 'application/json; charset=UTF-16' }), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe('charset utf-16 is not supported: send the JSON body as UTF-8 (Content-Type: application/json)');
    const ok = await post(app, Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(body)]), { 'content-type': 'application/json; charset=utf-8' });
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<{ rows: unknown[][] }>().rows).toEqual([[2, 4]]);
  });

  it('a compressed body is refused naming the coding, not read as JSON text', async () => {
    const app = makeApp();
    const { gzipSync } = await import('node:zlib');
    const err = expectError(await post(app, gzipSync(JSON.stringify({ sql: ZURICH })), { 'content-encoding': 'gzip' }), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe('Content-Encoding gzip is not supported: send the JSON body uncompressed');
    await stillAnswers(app);
  });

  it('a field given twice is refused naming it (JSON.parse would run the last one)', async () => {
    const app = makeApp();
    const err = expectError(await post(app, `{"sql": "SELECT x FROM nope", "deadline_ms": 100, "sql": ${JSON.stringify(ZURICH)}}`), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe('field "sql" is given more than once; send each field once');
    // The same key inside a nested value, or in a string, is not a repeat.
    const nested = await post(app, `{"sql": ${JSON.stringify(`${ZURICH} -- "sql": "sql",`)}, "deadline_ms": 5000}`);
    expect(nested.statusCode, nested.body).toBe(200);
  });

  it('malformed JSON says where; __proto__ is an unknown field, not malformed JSON', async () => {
    const app = makeApp();
    const err = expectError(await post(app, '{"sql": "SELECT 1" "trace": true}'), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toMatch(/^request body is not valid JSON: .*position 19/);
    const proto = expectError(await post(app, `{"sql": ${JSON.stringify(ZURICH)}, "__proto__": {"trace": true}}`), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(proto.error.message).toBe('unknown field(s) __proto__; known: sql, deadline_ms, trace, policy, min_coverage, exact, shard_size, stream');
    const empty = expectError(await post(app, ''), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(empty.error.message).toMatch(/empty/);
    await stillAnswers(app);
  });
});

describe('HTTP requests the parser refuses get a coded error body', () => {
  /** Raw bytes to the app's port; what comes back until the server closes. */
  async function rawExchange(app: FastifyInstance, bytes: string): Promise<string> {
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    return new Promise((resolve, reject) => {
      const s = net.connect(Number(url.port), '127.0.0.1', () => s.write(bytes));
      const out: Buffer[] = [];
      s.on('data', (d: Buffer) => out.push(d));
      s.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
      s.on('error', reject);
    });
  }

  it.each([
    ['a malformed chunk size', 'POST /v1/query HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\nzz\r\nabc\r\n', 400, /^malformed HTTP request \(HPE_INVALID_CHUNK_SIZE\): /],
    ['Content-Length with Transfer-Encoding', 'POST /v1/query HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\ncontent-length: 5\r\n\r\n0\r\n\r\n', 400, /^malformed HTTP request \(HPE_/],
    ['headers over 16 KiB', `GET /v1/query?sql=${'x'.repeat(20_000)} HTTP/1.1\r\nhost: x\r\n\r\n`, 431, /exceed the 16 KiB limit; POST long SQL/],
  ])('%s -> a coded {"error": {code, message}} with the parser\'s status', async (_what, bytes, status, message) => {
    const app = makeApp();
    const text = await rawExchange(app, bytes);
    const [head, body] = text.split('\r\n\r\n');
    expect(head!.split('\r\n')[0]).toBe(`HTTP/1.1 ${status} ${status === 400 ? 'Bad Request' : 'Request Header Fields Too Large'}`);
    const json = JSON.parse(body!) as { error: { code: string; message: string } };
    expect(json.error.code).toBe('CANOPY_ERR_BAD_REQUEST');
    expect(json.error.message).toMatch(message);
    await stillAnswers(app);
  });
});

describe('parseQueryRequest: keys Object.prototype has are unknown fields too', () => {
  it.each(['constructor', 'toString', 'hasOwnProperty'])('%s', async (key) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql: ZURICH, [key]: 1 })), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe(`unknown field(s) ${key}; known: sql, deadline_ms, trace, policy, min_coverage, exact, shard_size, stream`);
  });
});
