/**
 * A host worker process: runs one host of a topology (see node-host.ts) for
 * {@link startLocalTree}, which forks it and talks to it over IPC. The tree token comes in
 * the environment (`CANOPY_TREE_TOKEN`), never in a message.
 */
import { toCanopyError } from '../merge/index.ts';
import type { Topology } from '../root/index.ts';
import { startHost, type RunningHost } from './node-host.ts';

/** Message from the launcher: which host to run, and the URLs of nodes already started. */
export interface StartMessage {
  readonly type: 'start';
  readonly topology: Topology;
  readonly host: string;
  readonly urls: Readonly<Record<string, string>>;
  /** Interface to listen on. */
  readonly listen: string;
  readonly cacheDir: string;
  readonly faults: string | null;
  /** Root host: the PostgreSQL-protocol port (0: a free one), or null for none. */
  readonly pgPort?: number | null;
}

/** Messages to the launcher. */
export type WorkerMessage = { readonly type: 'ready'; readonly urls: Readonly<Record<string, string>>; readonly pg?: string } | { readonly type: 'error'; readonly code: string; readonly message: string };

let running: RunningHost | null = null;

process.on('message', (m: StartMessage) => {
  if (m.type !== 'start') return;
  const token = process.env.CANOPY_TREE_TOKEN;
  const apiToken = process.env.CANOPY_API_TOKEN;
  startHost({
    topology: m.topology,
    host: m.host,
    urls: m.urls,
    listen: m.listen,
    cacheDir: m.cacheDir,
    ...(m.faults === null ? {} : { faults: m.faults }),
    ...(m.pgPort === undefined || m.pgPort === null ? {} : { pgPort: m.pgPort }),
    ...(token === undefined ? {} : { token }),
    ...(apiToken === undefined || apiToken === '' ? {} : { apiToken }),
  }).then(
    (h) => {
      running = h;
      process.send?.({ type: 'ready', urls: h.urls, ...(h.pg === undefined ? {} : { pg: h.pg }) } satisfies WorkerMessage);
    },
    (e: unknown) => {
      const err = toCanopyError(e, 'CANOPY_ERR_DATA');
      process.send?.({ type: 'error', code: err.code, message: err.message } satisfies WorkerMessage);
      process.exitCode = 1;
    },
  );
});

/** How long closing may take before the process exits anyway, ms (the launcher kills at 2 s). */
const CLOSE_GRACE_MS = 1_500;

let stopping = false;
const stop = (): void => {
  if (stopping) return;
  stopping = true;
  setTimeout(() => process.exit(0), CLOSE_GRACE_MS);
  void (running?.close() ?? Promise.resolve()).then(() => process.exit(0));
};
// The launcher gone (its IPC channel closed, or this process re-parented): stop, never orphaned.
process.on('disconnect', stop);
process.on('SIGTERM', stop);
const parent = process.ppid;
setInterval(() => {
  if (process.ppid !== parent || !process.connected) stop();
}, 1_000).unref();
process.on('SIGINT', () => undefined); // the launcher decides when hosts stop
