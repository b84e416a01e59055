/**
 * Request shapes a hunt found answered badly, each checked against the app a tree serves:
 * the body of `POST /v1/query` read strictly (a charset or content coding it would guess at, bytes
 * that are not UTF-8, a field given twice, `__proto__` called invalid JSON), HTTP requests
 * Node's parser refuses answered with a coded body, and after each the next query answered.
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import net from 'node:net';
import path from 'node:path';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { serialize } from 'pg-protocol';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { request as undiciRequest } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { FRAMES_TYPE, FrameSplitter, PARTIAL_DEFS, decodeFrame, encodeFrame, groupEntriesOf, layoutOf, lengthPrefixed, toWireJSON, type Frame, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { FlatReader } from '../src/merge/wire/flat-reader.ts';
import { Admission, DEFAULT_LIMITS, buildRootApp, planQuery } from '../src/root/index.ts';
import { SNAPSHOT_BACKLOG_BYTES, snapshotBacklogged } from '../src/root/server.ts';
import type { LeafNode } from '../src/leaf/index.ts';
import { MUX_ROUTE, NodeDirectory, PARTIAL_ROUTE, buildNodeApp, httpChild, systemClock, type NodeHandler } from '../src/transport/index.ts';
import { MAX_TIMER_MS } from '../src/transport/clock.ts';
import { expectError } from './helpers/api.ts';
import { exchange, serveRoot, type ServedRoot } from './helpers/pg.ts';
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

describe('partial requests with a garbled plan: 400 naming where, never a 500', () => {
  const TABLES = new Map([['t', SCHEMA]]);
  const plan = planQuery('SELECT city, count(*) AS n, sum(x) AS s FROM t WHERE x > 1 GROUP BY city', TABLES, DEFAULT_LIMITS).scan;
  const rowPlan = planQuery('SELECT city, x FROM t ORDER BY x LIMIT 2', TABLES, DEFAULT_LIMITS).scan;
  const good = { queryId: 'q', schema: SCHEMA, plan, shards: [0], budgetMs: 5_000 };

  function nodeApp(): FastifyInstance {
    const { leaves } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const app = buildNodeApp(leaves.get(0)!.handler, { name: 'leaf-0', directory: new NodeDirectory() });
    apps.push(app);
    return app;
  }
  const partial = (app: FastifyInstance, body: unknown): Promise<LightMyRequestResponse> =>
    app.inject({ method: 'POST', url: PARTIAL_ROUTE, headers: { 'content-type': 'application/json' }, payload: toWireJSON(body as never) });

  /** The leaf still answers a good request: shard 0's groups, counted once. */
  async function leafAnswers(app: FastifyInstance): Promise<void> {
    const res = await partial(app, good);
    expect(res.statusCode, res.body).toBe(200);
    const frames = new FrameSplitter(1 << 20).push(new Uint8Array(res.rawPayload));
    const f = decodeFrame(layoutOf(plan, SCHEMA), frames[0]!);
    expect(f.provenance).toEqual([expect.objectContaining({ shard: 0, status: 'answered' })]);
  }

  it.each([
    ['a partial of an unknown kind', { ...plan, partials: [{ kind: 'nope' }] }, `partials[0]: expected a partial of kind ${Object.keys(PARTIAL_DEFS).join(', ')}`],
    ['a null group key', { ...plan, groupBy: [null] }, 'groupBy[0]: expected {name, expr, type}'],
    ['a group key of no column type', { ...plan, groupBy: [{ ...plan.groupBy[0], type: 'blob' }] }, 'groupBy[0].type: "blob" is not a column type (int64, float64, string, timestamp, bool, int128, date)'],
    ['a filter of an unknown kind', { ...plan, filter: { kind: 'and', args: [{ kind: 'col', name: 'x' }, { kind: 'zzz' }] } }, 'filter.args[1]: expression kind "zzz" is not one of col, lit, cmp, and, or, not, in, between, isnull, distinct, date_trunc, arith, neg, case, cast, call, like, extract, interval, try'],
    ['a filter that is a number', { ...plan, filter: 5 }, 'filter: expected an expression object with a kind'],
    ['a filter left out', { table: 't', groupBy: plan.groupBy, partials: plan.partials, rows: null, maxGroups: 10 }, 'filter: expected an expression object with a kind'],
    ['maxGroups not a count (it would switch the group limit off)', { ...plan, maxGroups: 'x' }, 'maxGroups: expected a count of groups, got "x"'],
    ['a top-k over a partial that is not there', { ...plan, topk: { partial: 9, sign: 1, combine: 'add', fetch: 3 } }, 'topk: expected {partial: an index below 2, sign: 1 or -1, combine: add or max, fetch: a count}'],
    ['rows that are a number', { ...plan, rows: 5 }, 'rows: expected null or {columns, visible, orderBy, limit}'],
    ['a row limit of -1', { ...rowPlan, rows: { ...rowPlan.rows!, limit: -1 } }, 'rows.limit: expected a count of rows, got -1'],
    ['a row sort key past the columns', { ...rowPlan, rows: { ...rowPlan.rows!, orderBy: [{ column: 7, desc: false }] } }, 'rows.orderBy[0]: expected {column: an index below 2, desc: true or false}'],
  ])('%s', async (_what, garbled, where) => {
    const app = nodeApp();
    const err = expectError(await partial(app, { ...good, plan: garbled }), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe(`partial request: plan is malformed: ${where}`);
    await leafAnswers(app);
  });

  it('a DATE group key crosses the wire: the leaf takes the plan and sends the days as the µs of their midnights', async () => {
    const app = nodeApp();
    const datePlan = planQuery('SELECT make_date(2024, 1, x) AS d, count(*) AS n FROM t GROUP BY d', TABLES, DEFAULT_LIMITS).scan;
    expect(datePlan.groupBy[0]!.type).toBe('date');
    const res = await partial(app, { ...good, plan: datePlan });
    expect(res.statusCode, res.body).toBe(200);
    const f = decodeFrame(layoutOf(datePlan, SCHEMA), new FrameSplitter(1 << 20).push(new Uint8Array(res.rawPayload))[0]!);
    const p = f.partial;
    const days = p.type === 'groups' || p.type === 'columnar' ? groupEntriesOf(p).map((e) => e.keys[0]) : [];
    expect(days.sort()).toEqual([Date.UTC(2024, 0, 1) * 1000, Date.UTC(2024, 0, 2) * 1000]);
  });

  it('a body that is not JSON says where (it said only "request body is not JSON"), an empty one that it is empty', async () => {
    const app = nodeApp();
    const res = await app.inject({ method: 'POST', url: PARTIAL_ROUTE, headers: { 'content-type': 'application/json' }, payload: '{"queryId": "q" "shards": [0]}' });
    expect(expectError(res, 400, 'CANOPY_ERR_BAD_REQUEST').error.message).toMatch(/^request body is not JSON: .*position 16/);
    const empty = await app.inject({ method: 'POST', url: PARTIAL_ROUTE, headers: { 'content-type': 'application/json' }, payload: '' });
    expect(expectError(empty, 400, 'CANOPY_ERR_BAD_REQUEST').error.message).toBe('request body is empty: send the request as JSON');
    await leafAnswers(app);
  });

  it('a shard listed twice is refused (it was scanned and counted twice)', async () => {
    const app = nodeApp();
    const err = expectError(await partial(app, { ...good, shards: [0, 0] }), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(err.error.message).toBe('partial request: shards must be distinct shard ids; 0 is listed more than once');
    await leafAnswers(app);
  });

  it('on the multiplexed route the garbled entry alone fails, with the same 400', async () => {
    const app = nodeApp();
    const body = { bases: [{ queryId: 'q', schema: SCHEMA, plan: { ...plan, partials: [{ kind: 'nope' }] } }, { queryId: 'q', schema: SCHEMA, plan }], entries: [{ node: 'leaf-0', base: 0, shards: [0], budgetMs: 5_000 }, { node: 'leaf-0', base: 1, shards: [0], budgetMs: 5_000 }] };
    const res = await app.inject({ method: 'POST', url: MUX_ROUTE, headers: { 'content-type': 'application/json' }, payload: toWireJSON(body as never) });
    expect(res.statusCode).toBe(200);
    const envelopes = new FrameSplitter(1 << 20).push(new Uint8Array(res.rawPayload)).map((b) => ({ index: new DataView(b.buffer, b.byteOffset).getUint32(0), kind: b[4], payload: b.subarray(5) }));
    const error = envelopes.find((e) => e.index === 0 && e.kind === 2);
    expect(JSON.parse(Buffer.from(error!.payload).toString('utf8'))).toEqual({ status: 400, error: { code: 'CANOPY_ERR_BAD_REQUEST', message: `partial request: plan is malformed: partials[0]: expected a partial of kind ${Object.keys(PARTIAL_DEFS).join(', ')}` } });
    expect(envelopes.filter((e) => e.index === 1).map((e) => e.kind)).toEqual([0, 1]);
  });
});

describe("a child's garbled frame is recorded in provenance, never taken to apache-arrow", () => {
  const TABLES = new Map([['t', SCHEMA]]);
  const SQL = 'SELECT city, count(*) AS n, sum(x) AS s FROM t GROUP BY city';
  const plan = planQuery(SQL, TABLES, DEFAULT_LIMITS).scan;
  const layout = layoutOf(plan, SCHEMA);

  /** Shard 0's answer to `plan`, encoded as a leaf sends it. */
  async function shardFrame(): Promise<Uint8Array> {
    const { leaves } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    let last: Frame | undefined;
    for await (const f of leaves.get(0)!.handler({ queryId: 'q', schema: SCHEMA, plan, shards: [0], budgetMs: 5_000 }, new AbortController().signal)) last = f;
    return encodeFrame(layout, last!);
  }

  /** Where field `i` of the frame's schema keeps its children's uoffset. */
  function childrenOffsetAt(bytes: Uint8Array, i: number): number {
    const fb = new FlatReader(bytes);
    const header = fb.deref(fb.field(fb.deref(8), 2));
    const fields = fb.vector(fb.field(header, 1), 4);
    return fb.field(fb.deref(fields.start + 4 * i), 5);
  }

  it('a schema field whose children offset points into other bytes is garbled at once (apache-arrow allocated until the process ran out of memory)', async () => {
    const bytes = await shardFrame();
    // What a hunt's fuzzer found: field 1's children vector moved onto bytes that read as a huge count.
    bytes[childrenOffsetAt(bytes, 1)] = 0x61;
    const t0 = performance.now();
    expect(() => decodeFrame(layout, bytes)).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED', message: expect.stringMatching(/^reply is not an Arrow IPC stream of a frame \(/) as string }) as Error);
    expect(performance.now() - t0).toBeLessThan(100);
  });

  it('fuzz: flipped bytes, truncations and overwritten lengths are each garbled (or still a frame) within 250 ms', async () => {
    const good = await shardFrame();
    let seed = 12_345;
    const rnd = (n: number): number => {
      seed = (seed * 1_103_515_245 + 12_345) & 0x7fffffff;
      return seed % n;
    };
    for (let t = 0; t < 600; t++) {
      let b = new Uint8Array(good);
      if (t % 3 === 0) for (let k = 0; k <= rnd(4); k++) b[rnd(b.length)] = rnd(256);
      else if (t % 3 === 1) b = b.subarray(0, rnd(b.length));
      else new DataView(b.buffer).setInt32(rnd(b.length - 4), [0x7fffffff, -1, 0x10000000, 1 << 20][rnd(4)]!, true);
      const t0 = performance.now();
      try {
        decodeFrame(layout, b);
      } catch (e) {
        expect((e as { code?: string }).code, `case ${t}: ${String(e)}`).toBe('CANOPY_ERR_CHILD_GARBLED');
      }
      expect(performance.now() - t0, `case ${t}`).toBeLessThan(250);
    }
  });

  it('over HTTP: a child replying garbled or truncated frames is a failed shard in provenance; the other shards answer, and so does the next query', async () => {
    const real = await shardFrame();
    const replies = [real.subarray(0, real.length >> 1), new Uint8Array([0xff, 0xff, 0xff, 0xff, 0x40, 0, 0, 0, 1, 2, 3]), (() => {
      const b = new Uint8Array(real);
      b[childrenOffsetAt(b, 1)] = 0x61;
      return b;
    })()];
    let next = 0;
    const server = http.createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        const body = lengthPrefixed(replies[next++ % replies.length]!);
        res.writeHead(200, { 'content-type': FRAMES_TYPE, 'content-length': body.length });
        res.end(body);
      });
    });
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const url = `http://127.0.0.1:${(server.address() as { port: number }).port}`;
    try {
      const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2, wrap: (leaf) => (leaf.shards[0] === 0 ? httpChild('leaf-0', [0], url) : leaf.handler) });
      const app = buildRootApp(root);
      apps.push(app);
      for (let i = 0; i < replies.length; i++) {
        const res = await post(app, JSON.stringify({ sql: `${SQL} ORDER BY city`, trace: true }));
        expect(res.statusCode, res.body).toBe(200);
        const a = res.json<{ rows: unknown[][]; coverage: Record<string, number>; missing: { shard: number; reason: string; error: { code: string } }[] }>();
        expect(a.coverage).toMatchObject({ shards: 3, answered: 2, failed: 1 });
        expect(a.missing).toEqual([expect.objectContaining({ shard: 0, reason: 'failed', error: expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED' }) as object })]);
        // Shards 1 and 2 alone: one row each of Bern (x 5), Genève (4) and Zürich (3).
        expect(a.rows.map((r) => r.slice(0, 3))).toEqual([['Bern', 1, 5], ['Genève', 1, 4], ['Zürich', 1, 3]]);
      }
    } finally {
      server.close();
    }
  });
});

describe('a client that stops reading its answer', () => {
  const BIG: Scalar[][][] = [0, 1, 2].map((s) => Array.from({ length: 3000 }, (_, i) => [`c${s}-${i}-`.padEnd(1500, 'x'), BigInt(i)]));
  const BIG_SQL = JSON.stringify({ sql: 'SELECT city, x FROM t' });

  /** A client that sends a query for ~13.5 MB of answer and reads none of it (until `read()`). */
  async function stalledClient(port: number, accept: string): Promise<{ read: () => Promise<string>; socket: net.Socket }> {
    const socket = net.connect(port, '127.0.0.1');
    socket.pause();
    await new Promise((r) => socket.once('connect', r));
    socket.write(`POST /v1/query HTTP/1.1\r\nhost: x\r\ncontent-type: application/json\r\naccept: ${accept}\r\ncontent-length: ${BIG_SQL.length}\r\n\r\n${BIG_SQL}`);
    const read = (): Promise<string> =>
      new Promise((resolve) => {
        const out: Buffer[] = [];
        socket.on('data', (d: Buffer) => {
          out.push(d);
          // The final NDJSON line ends the chunked body.
          if (d.includes('0\r\n\r\n')) resolve(Buffer.concat(out).toString('utf8'));
        });
        socket.on('close', () => resolve(Buffer.concat(out).toString('utf8')));
        socket.resume();
      });
    return { read, socket };
  }

  it('frees its admission slot once the answer is written: the next query is answered, and the stalled client still gets its final line', async () => {
    const { root } = inProcessRoot(SCHEMA, BIG, { fanout: 2 });
    const app = buildRootApp(root, { admission: new Admission({ maxInFlight: 1, maxQueued: 0 }) });
    apps.push(app);
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const stalled = await stalledClient(Number(url.port), 'application/x-ndjson');
    // Long enough for its query to have run and its answer to be written (not read).
    await new Promise((r) => setTimeout(r, 1_000));
    const res = await fetch(`${url.origin}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM t' }) });
    const body = (await res.json()) as { rows: unknown[][] };
    expect(res.status, JSON.stringify(body).slice(0, 300)).toBe(200);
    expect(body.rows).toEqual([[9000]]);
    const lines = (await stalled.read()).split('\n').filter((l) => l.startsWith('{'));
    const last = JSON.parse(lines.at(-1)!) as { final: boolean; rows: unknown[][]; label: string };
    expect(last.final).toBe(true);
    expect(last.label).toBe('exact');
    expect(last.rows).toHaveLength(9000);
    stalled.socket.destroy();
  });

  it('is dropped once it has read nothing of a written answer for unreadAnswerMs', async () => {
    const { root } = inProcessRoot(SCHEMA, BIG, { fanout: 2 });
    const app = buildRootApp(root, { unreadAnswerMs: 300 });
    apps.push(app);
    const url = new URL(await app.listen({ host: '127.0.0.1', port: 0 }));
    const stalled = await stalledClient(Number(url.port), 'application/json');
    const connections = (): Promise<number> => new Promise((resolve, reject) => app.server.getConnections((e, n) => (e ? reject(e) : resolve(n))));
    await new Promise((r) => setTimeout(r, 200));
    expect(await connections()).toBe(1);
    const end = performance.now() + 5_000;
    while ((await connections()) > 0 && performance.now() < end) await new Promise((r) => setTimeout(r, 50));
    expect(await connections()).toBe(0);
    stalled.socket.destroy();
    await stillAnswers(makeApp());
  });

  it('snapshots are skipped while more than SNAPSHOT_BACKLOG_BYTES are unread', () => {
    expect(snapshotBacklogged({ writableLength: 0 })).toBe(false);
    expect(snapshotBacklogged({ writableLength: SNAPSHOT_BACKLOG_BYTES })).toBe(false);
    expect(snapshotBacklogged({ writableLength: SNAPSHOT_BACKLOG_BYTES + 1 })).toBe(true);
  });
});

describe('PostgreSQL protocol: wrong parameter counts and text that is not UTF-8', () => {
  const STARTUP = serialize.startup({ user: 'canopy', database: 'canopy' });
  const readyTimes = (n: number) => (ms: BackendMessage[]): boolean => ms.filter((m) => m.name === 'readyForQuery').length >= n;
  const errors = (ms: BackendMessage[]): { severity?: string; code?: string; message: string }[] => ms.filter((m) => m.name === 'error') as never;
  const rows = (ms: BackendMessage[]): unknown[] => ms.filter((m) => m.name === 'dataRow').map((m) => (m as unknown as { fields: unknown[] }).fields);
  const COUNT = serialize.query("SELECT count(*), sum(x) FROM t WHERE city = 'Zürich'");

  async function served(): Promise<ServedRoot> {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const s = await serveRoot(root);
    closers.push(() => s.close());
    return s;
  }
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });

  it.each([
    ['too many', ['2', '9'], 'bind message supplies 2 parameters, but prepared statement "s1" requires 1'],
    ['too few', [], 'bind message supplies 0 parameters, but prepared statement "s1" requires 1'],
  ])('a Bind with %s parameters is an ERROR 08P01 naming both counts, as PostgreSQL says (one too many ran with it dropped); the session goes on', async (_what, values, message) => {
    const s = await served();
    const { messages, closed } = await exchange(s.pg.port, [STARTUP, serialize.parse({ name: 's1', text: 'SELECT count(*) FROM t WHERE x > $1', types: [] }), serialize.bind({ statement: 's1', values }), serialize.execute({}), serialize.sync(), COUNT], { until: readyTimes(3) });
    expect(closed).toBe(false);
    expect(errors(messages)).toEqual([expect.objectContaining({ severity: 'ERROR', code: '08P01', message })]);
    expect(rows(messages)).toEqual([['2', '4']]);
  });

  it('a Query whose text is not UTF-8 is an ERROR 22021 naming the byte, not run on U+FFFD; the session goes on', async () => {
    const s = await served();
    const latin1 = Buffer.from("SELECT count(*) FROM t WHERE city = 'Zürich'", 'latin1');
    const body = Buffer.concat([latin1, Buffer.from([0])]);
    const query = Buffer.concat([Buffer.from('Q'), Buffer.from([0, 0, 0, 0]), body]);
    query.writeInt32BE(body.length + 4, 1);
    const { messages, closed } = await exchange(s.pg.port, [STARTUP, query, COUNT], { until: readyTimes(3) });
    expect(closed).toBe(false);
    expect(errors(messages)).toEqual([expect.objectContaining({ severity: 'ERROR', code: '22021', message: 'invalid byte sequence for encoding "UTF8": 0xfc72' })]);
    expect(rows(messages)).toEqual([['2', '4']]);
  });

  it('so is a Parse whose text is not UTF-8 (skipped to Sync)', async () => {
    const s = await served();
    const text = Buffer.concat([Buffer.from('s2\0'), Buffer.from("SELECT count(*) FROM t WHERE city = 'Zürich'", 'latin1'), Buffer.from([0, 0, 0])]);
    const parse = Buffer.concat([Buffer.from('P'), Buffer.from([0, 0, 0, 0]), text]);
    parse.writeInt32BE(text.length + 4, 1);
    const { messages, closed } = await exchange(s.pg.port, [STARTUP, parse, serialize.bind({ statement: 's2', values: [] }), serialize.execute({}), serialize.sync(), COUNT], { until: readyTimes(3) });
    expect(closed).toBe(false);
    expect(errors(messages)).toEqual([expect.objectContaining({ severity: 'ERROR', code: '22021' })]);
    expect(rows(messages)).toEqual([['2', '4']]);
  });
});

describe('malformed SQL names what is open and where', () => {
  it.each([
    ['an unterminated /* comment', 'SELECT count(*) FROM t /* to do', { line: 1, column: 24, offset: 23 }, 'the /* comment opened here is never closed; expected */ before the end of the query', '*/'],
    ['a nested comment closed once', 'SELECT count(*) FROM t /* a /* b */', { line: 1, column: 24, offset: 23 }, 'the /* comment opened here is never closed; expected */ before the end of the query', '*/'],
    ['an unterminated string', "SELECT count(*) FROM t\nWHERE city = 'it''s", { line: 2, column: 14, offset: 36 }, "the string opened here is never closed; expected ' before the end of the query", "'"],
    ['an unterminated quoted name', 'SELECT count(*) FROM t WHERE "city = 1', { line: 1, column: 30, offset: 29 }, 'the quoted name opened here is never closed; expected " before the end of the query', '"'],
  ])('%s -> 400 at its opening, expecting what closes it', async (_what, sql, position, message, close) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_BAD_QUERY');
    expect(err.error).toEqual({ code: 'CANOPY_ERR_BAD_QUERY', message: `syntax error at line ${position.line}, column ${position.column}: ${message}`, position, details: { expected: [close], found: null } });
  });

  it.each([
    ['$1', "SELECT count(*) FROM t WHERE city = $1"],
    ['@city', 'SELECT count(*) FROM t WHERE city = @city'],
  ])('a parameter (%s) over HTTP says it has no value and how to write one', async (name, sql) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_UNSUPPORTED');
    expect(err.error.message).toBe(`parameter ${name} has no value: SQL sent as text takes values as literals ('ORD', 42); only the PostgreSQL protocol binds parameters, $1 for the first`);
    await stillAnswers(app);
  });
});

describe('a syntax error at a character that cannot be seen names its code point', () => {
  it.each([
    ['a byte order mark', '\ufeffSELECT count(*) FROM t', 'U+FEFF', 1],
    ['a no-break space', 'SELECT count(*) FROM t\u00a0WHERE x > 1', 'U+00A0', 23],
    ['a NUL', 'SELECT count(*) FROM t\u0000', 'U+0000', 23],
  ])('%s', async (_what, sql, cp, column) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_BAD_QUERY');
    expect(err.error.message).toMatch(new RegExp(`^syntax error at line 1, column ${column}: expected .*, but found ${cp.replace('+', '\\+')} \\(a character that cannot be seen\\)$`));
  });
});

describe('syntax canopy reads otherwise or not at all is named', () => {
  it.each([
    ['SELECT x > 1 IS NULL FROM t', 16],
    ["SELECT city = 'a' IS NOT TRUE FROM t", 21],
    ['SELECT x IN (1, 2) IS NOT NULL FROM t', 22],
    ["SELECT city LIKE 'a%' IS TRUE FROM t", 25],
  ])('IS after a comparison (%s): where, a space named as one, and the parentheses that read it', async (sql, column) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_BAD_QUERY');
    expect(err.error.message).toBe(`syntax error at line 1, column ${column}: expected a name, but found a space; IS [NOT] NULL / TRUE / FALSE / DISTINCT FROM after a comparison (or IN, LIKE) needs the comparison in parentheses here: write (x > 0) IS NULL`);
    expect((await post(app, JSON.stringify({ sql: sql.replace(/^SELECT (.*) (IS .*) FROM t$/, 'SELECT ($1) $2 FROM t') }))).statusCode).toBe(200);
  });

  it.each([
    ['SELECT count(*) FROM t USING SAMPLE 10%', 'USING SAMPLE', 24],
    ['SELECT count(*) FROM t TABLESAMPLE 5 ROWS', 'TABLESAMPLE', 24],
  ])('%s: refused as unsupported at the clause, saying why', async (sql, clause, column) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_UNSUPPORTED');
    expect(err.error.message).toBe(`${clause} is not supported (line 1, column ${column}): canopy answers from every row of the shards it reaches and labels what it misses; remove the sample clause`);
  });

  it.each([
    ['SELECT first(city ORDER BY x) FROM t', 'first', 19],
    ['SELECT sum(x ORDER BY x DESC) FROM t', 'sum', 14],
  ])('%s: ORDER BY inside a call other than string_agg is refused naming the call', async (sql, fn, column) => {
    const app = makeApp();
    const err = expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_UNSUPPORTED');
    expect(err.error.message).toBe(`ORDER BY inside ${fn}(...) is not supported (line 1, column ${column}); canopy takes ORDER BY inside string_agg, group_concat and listagg (for first(x ORDER BY y) see arg_min_null(x, y), the row with the smallest non-NULL y; the order does not change count, sum, min or max: drop it)`);
    // A parenthesis after a keyword is not a call: the syntax error stands.
    expectError(await post(app, JSON.stringify({ sql: 'SELECT count(*) FROM t WHERE (x ORDER BY x)' })), 400, 'CANOPY_ERR_BAD_QUERY');
  });

  it('the words inside a string or a comment are not the clause', async () => {
    const app = makeApp();
    for (const sql of ["SELECT count(*) FROM t WHERE city = 'USING SAMPLE' AND", 'SELECT count(*) FROM t /* TABLESAMPLE */ WHERE']) {
      expectError(await post(app, JSON.stringify({ sql })), 400, 'CANOPY_ERR_BAD_QUERY');
    }
  });
});

describe('a body over the limit', () => {
  it('gets its 413 even from a client still sending it (undici, with the root in its own process: was a broken pipe 3 times in 4); the next query is answered', async () => {
    const proc = spawn(process.execPath, ['--import', 'tsx', path.join(import.meta.dirname, 'fixtures', 'body-limit-root.ts')], { stdio: ['ignore', 'pipe', 'inherit'] });
    try {
      const url = await new Promise<string>((resolve, reject) => {
        proc.stdout.once('data', (d: Buffer) => resolve(d.toString('utf8').trim()));
        proc.once('exit', (code) => reject(new Error(`the root exited with ${code}`)));
      });
      const outcomes: string[] = [];
      for (let i = 0; i < 8; i++) {
        try {
          const res = await undiciRequest(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: `SELECT count(*) FROM t -- ${'x'.repeat(10 * 1024 * 1024)}` }) });
          outcomes.push(`${res.statusCode} ${JSON.stringify(await res.body.json())}`);
        } catch (e) {
          outcomes.push(String(e));
        }
      }
      expect(outcomes).toEqual(Array.from({ length: 8 }, () => '413 {"error":{"code":"CANOPY_ERR_BODY_TOO_LARGE","message":"request body exceeds 1024 bytes"}}'));
      const res = await undiciRequest(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n, sum(x) AS s FROM t' }) });
      expect(res.statusCode).toBe(200);
      expect(((await res.body.json()) as { rows: unknown[][] }).rows).toEqual([[3, 6]]);
    } finally {
      proc.kill('SIGTERM');
    }
  }, 60_000);
});

describe('a deadline or budget past the longest timer (2^31 - 1 ms)', () => {
  it('waits for the shards instead of giving every one up at once (Node fires a longer timer after 1 ms)', async () => {
    // Leaves that take 50 ms, as over HTTP: longer than a timer that fires at once.
    const slow = (leaf: LeafNode): NodeHandler =>
      async function* (req, signal) {
        await new Promise((r) => setTimeout(r, 50));
        yield* leaf.handler(req, signal);
      };
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2, wrap: slow });
    const app = buildRootApp(root, { maxDeadlineMs: 1e10 });
    apps.push(app);
    const res = await post(app, JSON.stringify({ sql: ZURICH, deadline_ms: 3e9 }));
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<{ rows: unknown[][]; label: string }>()).toMatchObject({ rows: [[2, 4]], label: 'exact' });
  });

  it('systemClock waits the longest timer Node has for a longer delay, never fires at once', async () => {
    let fired = false;
    const h = systemClock.setTimeout(() => (fired = true), 3e9);
    await new Promise((r) => setTimeout(r, 50));
    expect(fired).toBe(false);
    systemClock.clearTimeout(h);
    expect(MAX_TIMER_MS).toBe(2 ** 31 - 1);
  });
});

describe('PostgreSQL protocol: connections that never start, and too many of them', () => {
  const STARTUP = serialize.startup({ user: 'canopy', database: 'canopy' });
  const closers: (() => Promise<void>)[] = [];
  afterEach(async () => {
    await Promise.all(closers.splice(0).map((c) => c()));
  });
  async function served(opts: { authTimeoutMs?: number; maxConnections?: number }): Promise<ServedRoot> {
    const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
    const s = await serveRoot(root, opts);
    closers.push(() => s.close());
    return s;
  }
  const count = async (port: number): Promise<unknown> => {
    const { messages } = await exchange(port, [STARTUP, serialize.query("SELECT count(*) FROM t WHERE city = 'Zürich'")], { until: (ms) => ms.filter((m) => m.name === 'readyForQuery').length >= 2 });
    return messages.filter((m) => m.name === 'dataRow').map((m) => (m as unknown as { fields: unknown[] }).fields);
  };

  it('a connection that sends no startup packet (or half of one) is told FATAL 57014 and closed after authTimeoutMs (it was held forever)', async () => {
    const s = await served({ authTimeoutMs: 200 });
    const t0 = performance.now();
    for (const bytes of [[], [STARTUP.subarray(0, 5)]]) {
      const { messages, closed } = await exchange(s.pg.port, bytes);
      expect(closed).toBe(true);
      expect(messages).toEqual([expect.objectContaining({ name: 'error', severity: 'FATAL', code: '57014', message: 'canceling authentication due to timeout' })]);
    }
    expect(performance.now() - t0).toBeLessThan(4_000);
    expect(await count(s.pg.port)).toEqual([['2']]);
  });

  it('past maxConnections a connection is told FATAL 53300 and closed; once one closes the next is served', async () => {
    const s = await served({ maxConnections: 2 });
    const idle = await Promise.all([0, 1].map(() => new Promise<net.Socket>((resolve) => {
      const c = net.connect(s.pg.port, '127.0.0.1', () => resolve(c));
    })));
    const { messages, closed } = await exchange(s.pg.port, [STARTUP]);
    expect(closed).toBe(true);
    expect(messages).toEqual([expect.objectContaining({ name: 'error', severity: 'FATAL', code: '53300', message: 'sorry, too many clients already (2 connections)' })]);
    idle[0]!.destroy();
    await new Promise((r) => setTimeout(r, 100));
    expect(await count(s.pg.port)).toEqual([['2']]);
    idle[1]!.destroy();
  });
});
