/**
 * Test helpers for the PostgreSQL protocol: in-process trees served over the wire (ports
 * chosen by the OS), the JSON API's answer to compare with, and a handler that waits for
 * its signal (to see a cancellation reach the leaves).
 */
import { connect, type Socket } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { Parser } from 'pg-protocol/dist/parser.js';
import type { Frame } from '../../src/merge/index.ts';
import { startPgServer, type PgServer, type PgServerOptions } from '../../src/pg/index.ts';
import { buildRootApp, type Root } from '../../src/root/index.ts';
import type { NodeHandler } from '../../src/transport/index.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS, shardOf, throwingHandler } from './flights.ts';
import { inProcessRoot } from './tree.ts';

/** A root served over both the PostgreSQL protocol and the HTTP API. */
export interface ServedRoot {
  readonly pg: PgServer;
  readonly app: FastifyInstance;
  /** The JSON API's answer to `sql` (POST /v1/query). */
  json(sql: string, extra?: Record<string, unknown>): Promise<{ columns: { name: string; type: string }[]; rows: unknown[][]; label: string; missing: unknown[]; cells?: unknown[][] }>;
  close(): Promise<void>;
}

/** Serves `root` on a free port over the PostgreSQL protocol, and builds its HTTP app. */
export async function serveRoot(root: Root, opts: Omit<PgServerOptions, 'port'> = {}): Promise<ServedRoot> {
  const pg = await startPgServer(root, { port: 0, ...opts });
  const app = buildRootApp(root);
  return {
    pg,
    app,
    async json(sql, extra = {}) {
      const res = await app.inject({ method: 'POST', url: '/v1/query', headers: { 'content-type': 'application/json' }, payload: JSON.stringify({ sql, ...extra }) });
      if (res.statusCode !== 200) throw new Error(`JSON API answered ${res.statusCode}: ${res.body}`);
      return res.json();
    },
    async close() {
      await pg.close();
      await app.close();
    },
  };
}

/** A handler that yields nothing until its signal aborts; `aborted` counts the aborts it saw. */
export function waitingHandler(): { handler: NodeHandler; started: () => number; aborted: () => number } {
  let started = 0;
  let aborted = 0;
  const handler: NodeHandler = (_req, signal) => ({
    [Symbol.asyncIterator]: () => ({
      next: () =>
        new Promise<IteratorResult<Frame>>((_resolve, reject) => {
          started++;
          const stop = (): void => {
            aborted++;
            reject(signal.reason instanceof Error ? signal.reason : new Error('aborted'));
          };
          if (signal.aborted) stop();
          else signal.addEventListener('abort', stop, { once: true });
        }),
    }),
  });
  return { handler, started: () => started, aborted: () => aborted };
}

/**
 * Sends `bytes` on a fresh connection (after `startup` when given) and collects the backend
 * messages until the server closes the connection or `until` says stop. Bytes that are not
 * valid backend messages make pg-protocol's parser report an error message, failing the test.
 */
export async function exchange(port: number, bytes: Buffer[], opts: { until?: (m: BackendMessage[]) => boolean; raw?: (b: Buffer) => void; end?: boolean } = {}): Promise<{ messages: BackendMessage[]; closed: boolean }> {
  const messages: BackendMessage[] = [];
  const parser = new Parser();
  let closed = false;
  const sock: Socket = connect(port, '127.0.0.1');
  await new Promise<void>((resolve, reject) => {
    sock.once('connect', () => resolve());
    sock.once('error', reject);
  });
  return new Promise((resolve) => {
    const done = (): void => {
      sock.destroy();
      resolve({ messages, closed });
    };
    const timer = setTimeout(done, 5_000);
    sock.on('data', (b: Buffer) => {
      opts.raw?.(b);
      parser.parse(b, (m) => messages.push(m));
      if (opts.until?.(messages) === true) {
        clearTimeout(timer);
        done();
      }
    });
    sock.on('close', () => {
      closed = true;
      clearTimeout(timer);
      done();
    });
    sock.on('error', () => undefined);
    for (const b of bytes) sock.write(b);
    // Half-closing tells the server the client is done (it closes its side in turn).
    if (opts.end === true) sock.end();
  });
}


/**
 * Three served flights trees (fan-out 3): every shard answers (`exact`); shard 2 throws
 * (`failing`: answers are bounded or approximate); shard 5 waits until cancelled
 * (`hanging`, with `leafWait` counting what its leaf saw).
 */
export async function flightsTrees(): Promise<{ exact: ServedRoot; failing: ServedRoot; hanging: ServedRoot; leafWait: ReturnType<typeof waitingHandler>; close(): Promise<void> }> {
  const leafWait = waitingHandler();
  const exact = await serveRoot(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 }).root);
  const failing = await serveRoot(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, wrap: (leaf) => (shardOf(leaf) === 2 ? throwingHandler('disk on fire') : leaf.handler) }).root);
  const hanging = await serveRoot(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, wrap: (leaf) => (shardOf(leaf) === 5 ? leafWait.handler : leaf.handler) }).root);
  return { exact, failing, hanging, leafWait, close: async () => void (await Promise.all([exact.close(), failing.close(), hanging.close()])) };
}
