/**
 * Launches a whole canopy tree on loopback, one process per host of a planned topology
 * (see `planTopology`): leaf hosts (each running many logical leaves), aggregator hosts
 * (whole top-level subtrees each) and the root alone in its own process, so that the
 * root's deadline timers do not wait behind aggregators' merges or the caller's work.
 * Every node is its own HTTP endpoint on 127.0.0.1. Used by `npm start`, the end-to-end
 * tests and the benchmarks.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { CanopyError, type Catalog, type ErrorCode, type PartitionSpec } from '../merge/index.ts';
import { ROOT_NODE, placeTopology, planTopology, treeDepth, type AdmissionOptions, type Topology, type TopologyHost, type TreeNode } from '../root/index.ts';
import type { StartMessage, WorkerMessage } from './host-worker.ts';
import type { TailOptions } from '../aggregator/index.ts';
import { prepareShards } from '../data/index.ts';
import { startHost, type RunningHost } from './node-host.ts';

/** Options of a local tree. */
export interface LocalTreeOptions {
  readonly data: string;
  readonly table: string;
  readonly shards: number;
  readonly partition: PartitionSpec;
  readonly fanout: number;
  /** Levels below the root; default follows from shards and fan-out. */
  readonly depth?: number;
  /** Processes hosting the leaves (default 2: one per core here). */
  readonly leafProcesses?: number;
  /** Processes hosting the aggregators (default 1; whole top-level subtrees each); unused with placement `subtrees`. */
  readonly aggregatorProcesses?: number;
  /**
   * `tiers` (default): the aggregators in their own process(es), the leaves in `leafProcesses`
   * others. `subtrees`: `leafProcesses` processes each holding whole top-level subtrees, so an
   * aggregator's leaves are in its own process and answer it in-process (see `planTopology`).
   */
  readonly placement?: 'tiers' | 'subtrees';
  /**
   * Run the root in the caller's process instead of its own (default false). For profiling
   * the root with `node --cpu-prof` and for measuring what sharing its loop costs.
   */
  readonly rootInProcess?: boolean;
  /** Root port; 0 picks a free one. */
  readonly port: number;
  /** Admission control at the root (default 16 in flight, 64 queued). */
  readonly admission?: Pick<AdmissionOptions, 'maxInFlight' | 'maxQueued'>;
  /** When set, the root API requires `Authorization: Bearer <apiToken>`. */
  readonly apiToken?: string;
  /** Also serve the PostgreSQL wire protocol at the root on this port (0: a free one); absent: not. */
  readonly pgPort?: number;
  /** Address the root listens on (default 127.0.0.1); leaves and aggregators stay on loopback. */
  readonly host?: string;
  readonly cacheDir: string;
  /** Faults file passed to leaves (see src/leaf faults), optional. */
  readonly faults?: string;
  /** Progress messages (default: none). */
  readonly log?: (msg: string) => void;
  /** Replicas per leaf, each its own endpoint (`leaf-27.r0`, `leaf-27.r1`, ...); default 1. */
  readonly replicas?: number;
  /** Zones the replicas are spread over, round-robin (default: as many as replicas). */
  readonly zones?: number;
  /**
   * Tail control of the replica sets, one TailControl per node above replicated leaves.
   * Default with more than one replica: outlier ejection only, no hedging.
   */
  readonly tail?: Pick<TailOptions, 'hedge' | 'ejection'>;
  /**
   * Restarts of a host process that dies after it was ready, within {@link RESTART_WINDOW_MS}
   * (default 5); each waits twice as long as the one before, from 250 ms. 0: never restart.
   */
  readonly maxRestarts?: number;
}

/** Window over which a host's restarts are counted, ms. */
export const RESTART_WINDOW_MS = 60_000;

/** First restart delay, ms (then doubled per restart within the window). */
export const RESTART_BACKOFF_MS = 250;

/** How long a stopping host may take before it is killed, ms. */
export const STOP_GRACE_MS = 2_000;

/** A host process of a local tree, for supervision and tests. */
export interface HostProcess {
  readonly name: string;
  /** Its current pid (a new one after each restart); undefined while it is restarting. */
  readonly pid: number | undefined;
  /** Restarts so far. */
  readonly restarts: number;
  /** 'up', 'restarting', or 'down' (restarts used up). */
  readonly state: 'up' | 'restarting' | 'down';
}

/** A running local tree. */
export interface LocalTree {
  readonly url: string;
  /** `host:port` of the root's PostgreSQL-protocol server, when started. */
  readonly pg?: string;
  readonly catalog: Catalog;
  /** The root's children. */
  readonly layout: readonly TreeNode[];
  readonly depth: number;
  /** The hosts (processes) and the nodes each runs. */
  readonly topology: Topology;
  /** The host processes (the root's too unless it runs in this process), by host name. */
  hosts(): readonly HostProcess[];
  /** The URL of a node (`leaf-27`, `agg-3`, `root`), once its host has listened. */
  nodeUrl(node: string): string | undefined;
  /** Stops every server and process it started (SIGTERM, then SIGKILL after {@link STOP_GRACE_MS}). */
  close(): Promise<void>;
}

// From the sources (tsx) the worker is a .ts file loaded through tsx; from the compiled build (dist/) plain .js.
const COMPILED = import.meta.url.endsWith('.js');
const WORKER = fileURLToPath(new URL(COMPILED ? './host-worker.js' : './host-worker.ts', import.meta.url));
// From the sources, the hosts strip types with scripts/host-loader.mjs (esbuild without tsx's keepNames: see there).
const HOST_LOADER = new URL('../../scripts/host-loader.mjs', import.meta.url).href;
/**
 * Young-generation semi-space of a host process, MiB, unless the launcher or
 * CANOPY_HOST_NODE_FLAGS sets one: every request allocates short-lived frames, partials and
 * provenance, and V8's default (16 MiB on 64-bit) scavenges several times per query of a
 * 50-leaf host (3-6% of a host's CPU in a profile of the e2e q1).
 */
export const HOST_SEMI_SPACE_MIB = 32;

/** The workers' Node flags: the launcher's own (heap limits such as --max-old-space-size carry over), plus the TypeScript loader from the sources (scripts/host-loader.mjs), `--expose-gc` (idle-time scavenges), plus CANOPY_HOST_NODE_FLAGS. */
const workerArgv = (): string[] => {
  const extra = (process.env.CANOPY_HOST_NODE_FLAGS ?? '').split(' ').filter((a) => a !== '');
  const heap = process.execArgv.filter((a) => a.startsWith('--max-old-space-size') || a.startsWith('--max-semi-space-size'));
  const own = COMPILED ? heap : [...heap, '--import', HOST_LOADER];
  const semi = [...own, ...extra].some((a) => a.startsWith('--max-semi-space-size')) ? [] : [`--max-semi-space-size=${HOST_SEMI_SPACE_MIB}`];
  // global.gc for the idle-time scavenges between requests (src/transport/idle-gc.ts; CANOPY_IDLE_GC=0 switches them off).
  const gc = ['--expose-gc'];
  // Extra Node flags for every host process, e.g. `--cpu-prof --cpu-prof-dir=DIR` (not allowed in NODE_OPTIONS).
  return [...own, ...semi, ...gc, ...extra];
};

function partitionText(p: PartitionSpec): string {
  return p.kind === 'range' ? `range:${p.column}` : 'hash';
}

/**
 * Prepares the data and starts the tree: leaf hosts, then aggregator hosts, then the root;
 * resolves once the root listens (every leaf has loaded its shards by then).
 * @throws CanopyError CANOPY_ERR_DATA for bad data, CANOPY_ERR_BAD_REQUEST for a tree that
 *   cannot be laid out; Error when a host process fails to start.
 */
export async function startLocalTree(opts: LocalTreeOptions): Promise<LocalTree> {
  const log = opts.log ?? (() => undefined);
  const host = '127.0.0.1';
  const t0 = performance.now();
  // Prepared here first (a directory's shard count is its file count); the hosts reuse the cache.
  const prepared = await prepareShards({ path: opts.data, table: opts.table, shards: opts.shards, partition: opts.partition, cacheDir: opts.cacheDir });
  const catalog = prepared.catalog;
  log(`${prepared.cached ? 'reused' : 'prepared'} ${catalog.shards.length} shards of '${opts.table}' (${catalog.shards.reduce((n, s) => n + s.rows, 0)} rows) in ${Math.round(performance.now() - t0)} ms`);
  const replicas = opts.replicas ?? 1;
  const planned = planTopology({
    table: opts.table,
    data: opts.data,
    shards: catalog.shards.length,
    partition: partitionText(opts.partition),
    fanout: opts.fanout,
    ...(opts.depth === undefined ? {} : { depth: opts.depth }),
    replicas,
    zones: opts.zones ?? replicas,
    ...(opts.tail === undefined ? {} : { tail: opts.tail }),
    ...(opts.admission === undefined ? {} : { admission: opts.admission }),
    leafHosts: opts.leafProcesses ?? 2,
    aggregatorHosts: opts.aggregatorProcesses ?? 1,
    ...(opts.placement === undefined ? {} : { placement: opts.placement }),
    address: () => host,
    basePort: 0,
    rootPort: opts.port,
  });
  const placed = placeTopology(planned);
  const token = process.env.CANOPY_TREE_TOKEN ?? randomBytes(24).toString('hex');
  const workers = new Map<string, { w: ChildProcess; state: HostProcess['state']; restarts: number[]; total: number }>();
  let here: RunningHost | null = null;
  let closing = false;
  const restartTimers = new Set<ReturnType<typeof setTimeout>>();
  const close = async (): Promise<void> => {
    closing = true;
    for (const t of restartTimers) clearTimeout(t);
    await here?.close();
    const exits = [...workers.values()].map(({ w }) => {
      if (w.exitCode !== null || w.signalCode !== null) return Promise.resolve();
      const gone = new Promise<void>((resolve) => w.once('exit', () => resolve()));
      w.kill('SIGTERM');
      // A host that does not stop in time (a loop that never yields) is killed.
      const kill = setTimeout(() => w.kill('SIGKILL'), STOP_GRACE_MS);
      return gone.finally(() => clearTimeout(kill));
    });
    await Promise.all(exits);
  };
  const urls: Record<string, string> = {};
  let pg: string | undefined;
  const maxRestarts = opts.maxRestarts ?? 5;
  // Every process is forked at once (loading the code takes most of a start); each is told
  // what to run once the addresses of its children are known.
  const spawn = (h: TopologyHost): ((known: Readonly<Record<string, string>>) => Promise<void>) => {
    // Only the root's host gets the API token; the environment's own one is not passed on.
    const { CANOPY_API_TOKEN: _api, ...env } = process.env;
    const api = h.nodes.includes(ROOT_NODE) && opts.apiToken !== undefined ? { CANOPY_API_TOKEN: opts.apiToken } : {};
    const w = fork(WORKER, [], { execArgv: workerArgv(), env: { ...env, ...api, CANOPY_TREE_TOKEN: token }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
    const prev = workers.get(h.name);
    const entry = { w, state: prev?.state ?? ('up' as HostProcess['state']), restarts: prev?.restarts ?? [], total: prev?.total ?? 0 };
    workers.set(h.name, entry);
    let up = false;
    const ready = new Promise<void>((resolve, reject) => {
      w.on('message', (m: WorkerMessage) => {
        if (m.type === 'ready') {
          Object.assign(urls, m.urls);
          if (m.pg !== undefined) pg = m.pg;
          up = true;
          entry.state = 'up';
          resolve();
        } else reject(new CanopyError(m.code as ErrorCode, m.message));
      });
      w.on('exit', (code, sig) => {
        reject(new Error(`host ${h.name} exited with code ${code} before it was ready`));
        if (closing || (!up && prev === undefined)) return;
        supervise(h, code, sig);
      });
    });
    ready.catch(() => undefined);
    return (known) => {
      const listen = h.nodes.includes(ROOT_NODE) ? (opts.host ?? host) : host;
      const pgPort = h.nodes.includes(ROOT_NODE) ? (opts.pgPort ?? null) : null;
      w.send({ type: 'start', topology: planned, host: h.name, urls: known, listen, cacheDir: opts.cacheDir, faults: opts.faults ?? null, pgPort } satisfies StartMessage);
      return ready;
    };
  };
  // A host that dies after it was ready is logged and restarted on the same ports (its
  // parents' clients reconnect), with exponential backoff and a bounded number of restarts.
  const supervise = (h: TopologyHost, code: number | null, sig: NodeJS.Signals | null): void => {
    const entry = workers.get(h.name)!;
    const t = performance.now();
    entry.restarts = entry.restarts.filter((x) => t - x < RESTART_WINDOW_MS);
    const how = sig === null ? `exit code ${code}` : `signal ${sig}`;
    if (entry.restarts.length >= maxRestarts) {
      entry.state = 'down';
      log(`host ${h.name} died (${how}); not restarting: ${entry.restarts.length} restarts in the last ${RESTART_WINDOW_MS / 1000} s (its shards fail until it is back)`);
      return;
    }
    const delay = RESTART_BACKOFF_MS * 2 ** entry.restarts.length;
    entry.restarts.push(t);
    entry.total++;
    entry.state = 'restarting';
    log(`host ${h.name} died (${how}); restarting it in ${delay} ms (restart ${entry.restarts.length} of ${maxRestarts} within ${RESTART_WINDOW_MS / 1000} s)`);
    const timer = setTimeout(() => {
      restartTimers.delete(timer);
      if (closing) return;
      spawn(h)({ ...urls }).then(
        () => log(`host ${h.name} restarted (pid ${workers.get(h.name)!.w.pid})`),
        (e: unknown) => log(`host ${h.name} failed to restart: ${e instanceof Error ? e.message : String(e)}`),
      );
    }, delay);
    restartTimers.add(timer);
  };
  const hosts = (): HostProcess[] => [...workers].map(([name, e]) => ({ name, pid: e.state === 'up' ? e.w.pid : undefined, restarts: e.total, state: e.state }));
  const kind = (h: TopologyHost): number => (h.nodes.includes(ROOT_NODE) ? 2 : h.nodes.some((n) => n.startsWith('agg-')) ? 1 : 0);
  try {
    // Children before parents: aggregator hosts need the leaves' addresses, the root everyone's.
    const rootHost = planned.hosts.find((h) => kind(h) === 2)!;
    const starts = new Map(planned.hosts.filter((h) => kind(h) < 2 || opts.rootInProcess !== true).map((h) => [h, spawn(h)]));
    for (const wave of [0, 1]) await Promise.all([...starts].filter(([h]) => kind(h) === wave).map(([, start]) => start({ ...urls })));
    if (opts.rootInProcess === true) {
      const apiToken = opts.apiToken;
      here = await startHost({ topology: planned, host: rootHost.name, urls, listen: opts.host ?? host, token, cacheDir: opts.cacheDir, ...(apiToken === undefined ? {} : { apiToken }), ...(opts.pgPort === undefined ? {} : { pgPort: opts.pgPort }) });
      Object.assign(urls, here.urls);
      pg = here.pg;
    } else {
      await starts.get(rootHost)!({ ...urls });
    }
    const depth = treeDepth(placed.layout);
    const count = (hs: readonly TopologyHost[], agg: boolean): number => hs.reduce((n, h) => n + h.nodes.filter((x) => x !== ROOT_NODE && x.startsWith('agg-') === agg).length, 0);
    const aggHosts = planned.hosts.filter((h) => kind(h) === 1);
    const leafHosts = planned.hosts.filter((h) => kind(h) === 0);
    const where =
      count(aggHosts, false) > 0
        ? `${count(aggHosts, true)} aggregators with their ${count(aggHosts, false)} leaf endpoints in ${aggHosts.length} process(es) of whole subtrees`
        : `${count(aggHosts, true)} aggregators in ${aggHosts.length} process(es), ${count(leafHosts, false)} leaf endpoints in ${leafHosts.length} process(es)`;
    log(`tree ready in ${Math.round(performance.now() - t0)} ms: root (${opts.rootInProcess === true ? 'in this process' : 'own process'}), ${where} (depth ${depth}, fan-out ${opts.fanout})`);
    const nodeUrl = (node: string): string | undefined => urls[node];
    return { url: urls[ROOT_NODE]!, catalog, layout: placed.layout, depth, topology: planned, hosts, nodeUrl, close, ...(pg === undefined ? {} : { pg }) };
  } catch (e) {
    await close();
    throw e;
  }
}
