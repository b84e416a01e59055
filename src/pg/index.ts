/**
 * Public face of src/pg: canopy's root served over the PostgreSQL v3 wire protocol, so psql,
 * psycopg, JDBC, Grafana, Superset, DBeaver and the like connect without glue. Queries run
 * on the same `Root.query` (and admission control) as the HTTP API.
 */
import { randomInt } from 'node:crypto';
import { createServer, type Server, type Socket } from 'node:net';
import { Admission, type Root, type RootMetrics } from '../root/index.ts';
import { scramSecret } from './auth.ts';
import { PgSession, type PgAuth } from './session.ts';
import { SessionSettings, serverParameters } from './settings.ts';
import { Statements } from './statements.ts';
import { backend } from './wire.ts';

export { labelNotices } from './statements.ts';
export { pgTypeOf, OID, type PgType } from './types.ts';
export { sqlstateOf } from './sqlstate.ts';

/** Options of {@link startPgServer}. */
export interface PgServerOptions {
  /** Port to listen on (0 picks a free one). */
  readonly port: number;
  /** Interface (default 127.0.0.1). */
  readonly host?: string;
  /**
   * When set, clients must give this password (any user name): SCRAM-SHA-256 by default,
   * or cleartext with `auth: 'password'`. Unset: trust (every client is accepted).
   */
  readonly password?: string;
  readonly auth?: 'scram-sha-256' | 'password';
  /** Admission control shared with the HTTP API (default: a fresh one). */
  readonly admission?: Admission;
  readonly metrics?: RootMetrics;
  /** Largest frontend message, bytes (default 1 MiB); larger ones end the connection with 54000. */
  readonly maxMessageBytes?: number;
  /** Largest canopy.deadline_ms, ms (default 300,000). */
  readonly maxDeadlineMs?: number;
  /** The database name reported (current_database(), information_schema); default 'canopy'. */
  readonly database?: string;
  /**
   * Connections served at once (default {@link PG_MAX_CONNECTIONS}); one more is told FATAL
   * 53300 "sorry, too many clients already" and closed, as PostgreSQL's max_connections.
   */
  readonly maxConnections?: number;
  /** How long a connection may take to start up and authenticate, ms (default {@link PG_AUTH_TIMEOUT_MS}); then FATAL 57014 and closed. */
  readonly authTimeoutMs?: number;
}

/** Default {@link PgServerOptions.maxConnections}: every idle connection holds a socket of the root's process. */
export const PG_MAX_CONNECTIONS = 256;

/** Default {@link PgServerOptions.authTimeoutMs}, ms (PostgreSQL's authentication_timeout). */
export const PG_AUTH_TIMEOUT_MS = 60_000;

/** A listening PostgreSQL-protocol server. */
export interface PgServer {
  readonly port: number;
  readonly host: string;
  /** Stops listening and closes every connection (their queries are cancelled). */
  close(): Promise<void>;
}

/** The version canopy reports: PostgreSQL 16's protocol and catalog shape. */
export const PG_SERVER_VERSION = '16.0';

/**
 * Serves `root` over the PostgreSQL protocol.
 * @throws Error when the port cannot be bound (EADDRINUSE and the like)
 */
export async function startPgServer(root: Root, opts: PgServerOptions): Promise<PgServer> {
  const auth: PgAuth =
    opts.password === undefined ? { method: 'trust' } : opts.auth === 'password' ? { method: 'password', password: opts.password } : { method: 'scram-sha-256', secret: scramSecret(opts.password) };
  const admission = opts.admission ?? new Admission();
  const database = opts.database ?? 'canopy';
  const maxDeadlineMs = opts.maxDeadlineMs ?? 300_000;
  const sessions = new Map<number, { session: PgSession; key: number }>();
  const sockets = new Set<Socket>();
  let nextPid = 1000;
  const version = `PostgreSQL ${PG_SERVER_VERSION} (canopy hierarchical aggregation tree; PostgreSQL wire protocol 3.0), 64-bit`;
  const ctx = {
    auth,
    maxMessageBytes: opts.maxMessageBytes ?? 1024 * 1024,
    authTimeoutMs: opts.authTimeoutMs ?? PG_AUTH_TIMEOUT_MS,
    register(session: PgSession) {
      const pid = nextPid++;
      const key = randomInt(-(2 ** 31), 2 ** 31 - 1);
      sessions.set(pid, { session, key });
      return { pid, key };
    },
    unregister(pid: number) {
      sessions.delete(pid);
    },
    cancel(pid: number, key: number) {
      const s = sessions.get(pid);
      // A wrong key is ignored silently, as PostgreSQL does.
      if (s !== undefined && s.key === key) s.session.cancel();
    },
    parameters: (user: string, app: string) => serverParameters(PG_SERVER_VERSION, user, app),
    statements: (user: string, app: string) =>
      new Statements({
        root,
        admission,
        settings: new SessionSettings(serverParameters(PG_SERVER_VERSION, user, app), maxDeadlineMs),
        database,
        user,
        version,
        ...(opts.metrics === undefined ? {} : { metrics: opts.metrics }),
      }),
  };
  const maxConnections = opts.maxConnections ?? PG_MAX_CONNECTIONS;
  const server: Server = createServer((socket) => {
    if (sockets.size >= maxConnections) {
      // Told before its startup packet is read, as PostgreSQL's postmaster does.
      socket.on('error', () => undefined);
      socket.end(backend.notice('error', { severity: 'FATAL', code: '53300', message: `sorry, too many clients already (${maxConnections} connections)` }), () => socket.destroy());
      return;
    }
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
    new PgSession(socket, ctx);
  });
  const host = opts.host ?? '127.0.0.1';
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address();
  const port = typeof address === 'object' && address !== null ? address.port : opts.port;
  return {
    port,
    host,
    close: () =>
      new Promise<void>((resolve) => {
        for (const s of sockets) s.destroy();
        server.close(() => resolve());
      }),
  };
}
