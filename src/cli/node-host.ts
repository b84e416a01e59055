/**
 * A node host: runs the nodes a topology gives one host (leaves, aggregators, the root) in
 * this process, each its own HTTP endpoint with /healthz and /metrics: one prom-client
 * registry per process, which every node records into under its `node` label (any of the
 * process's ports serves the whole process's metrics; scrape one). Aggregators and the root
 * reach their children over HTTP; a replicated leaf is reached through a replica set whose
 * TailControl belongs to the node above it.
 * One wiring for every launcher: `startLocalTree` (hosts as forked processes on loopback,
 * via host-worker.ts) and `serve.ts` (one host per process or container, from a topology file).
 */
import { readFileSync } from 'node:fs';
import { getHeapStatistics } from 'node:v8';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { LoopLag, TailControl, createAggregator, mergeWorkMs, tailMetrics } from '../aggregator/index.ts';
import { DEFAULT_DATA_PATH, prepareShards, readShard, schemaOf, type PreparedShards } from '../data/index.ts';
import { ScanLanes, createLeaf, faultPlanFile, leafMetrics, prepareShard, withFaultsAt, type FaultSource } from '../leaf/index.ts';
import { CanopyError, MemoryPool, memoryBudgets, type Catalog, type PartitionSpec } from '../merge/index.ts';
import { Admission, ROOT_NODE, buildEndpoints, buildRootApp, buildTree, placeTopology, rootMetrics, type EndpointSpec, type PlacedTopology, type Topology, type TreeNode } from '../root/index.ts';
import { startPgServer } from '../pg/index.ts';
import { HostMonitor } from './health.ts';
import { MultiplexClient, NodeDirectory, QueryWork, ReplyBytes, SliceScheduler, buildNodeApp, httpChild, idleCollector, localChild, nodeHttpMetrics, nodeReadings, processMetrics, replyBytesMetrics, type Child } from '../transport/index.ts';

/** Options of {@link startHost}. */
export interface HostOptions {
  /** The topology (as read from JSON: checked here, or planned by `planTopology`). */
  readonly topology: Topology | unknown;
  /** Which of its hosts this process is. */
  readonly host: string;
  /** URLs of nodes on hosts whose port is 0 (free ports, known only once started), by node name. */
  readonly urls?: Readonly<Record<string, string>>;
  /** Interface every node of this host listens on (default 127.0.0.1). */
  readonly listen?: string;
  /** Tree token: required on every partial request to this host's nodes and sent to children. */
  readonly token?: string;
  /** When set, the root API requires `Authorization: Bearer <apiToken>`. */
  readonly apiToken?: string;
  /** Where prepared shards are kept (leaf and root hosts prepare the data; aggregators need none). */
  readonly cacheDir: string;
  /** Fault plan file for this host's leaves (see src/leaf/faults.ts). */
  readonly faults?: string;
  /** Root host only: also serve the PostgreSQL wire protocol on this port (0: a free one); absent: not. */
  readonly pgPort?: number;
  readonly log?: (msg: string) => void;
}

/** A running host. */
export interface RunningHost {
  /** URL of every node of this host, by node name. */
  readonly urls: Readonly<Record<string, string>>;
  /** The catalog, when this host prepared the data (leaf or root hosts). */
  readonly catalog?: Catalog;
  /** Where the root's PostgreSQL-protocol server listens (`host:port`), when started. */
  readonly pg?: string;
  /** Stops its servers; aborts its requests still in flight to children first. */
  close(): Promise<void>;
}

/**
 * Parses `hash` or `range:COLUMN`.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for anything else.
 */
export function parsePartition(v: string | undefined): PartitionSpec {
  if (v === undefined || v === 'hash') return { kind: 'hash' };
  if (v.startsWith('range:') && v.length > 6) return { kind: 'range', column: v.slice(6) };
  throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `partition must be 'hash' or 'range:COLUMN', got '${v}'`);
}

/** Prepares (or reuses from `cacheDir`) the topology's data; checks it has the topology's shard count. */
export async function prepareTopologyData(t: Topology, cacheDir: string): Promise<PreparedShards> {
  const prepared = await prepareShards({ path: t.data ?? DEFAULT_DATA_PATH, table: t.table, shards: t.shards, partition: parsePartition(t.partition), cacheDir });
  if (prepared.catalog.shards.length !== t.shards) throw new CanopyError('CANOPY_ERR_DATA', `the data has ${prepared.catalog.shards.length} shards, the topology says ${t.shards}`);
  return prepared;
}

function readFaults(file: string | undefined): FaultSource | null {
  // Re-read when the file changes: a running tree can be given new faults.
  return file === undefined ? null : faultPlanFile(file);
}

/** canopy's version, from package.json (two levels above this file in src/ and in dist/). */
function canopyVersion(): string {
  try {
    return (JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version?: string }).version ?? 'unknown';
  } catch {
    return 'unknown';
  }
}

/** Depth of a node below the root (root children: 1), for starting deeper aggregators first. */
function depths(nodes: readonly TreeNode[], d = 1, out = new Map<string, TreeNode & { depth: number }>()): Map<string, TreeNode & { depth: number }> {
  for (const n of nodes) {
    out.set(n.name, { ...n, depth: d });
    if (n.kind === 'leaf') for (const r of n.replicas ?? []) out.set(r.name, { ...n, depth: d });
    else depths(n.children, d + 1, out);
  }
  return out;
}

/**
 * Starts the nodes of `opts.host`: leaves first, then aggregators deepest first, then the root.
 * Resolves once every node listens (leaves have loaded their shards).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for a bad topology or an unknown host, an
 *   unreadable fault plan, or a child address that is not known; CANOPY_ERR_DATA for bad data.
 */
export async function startHost(opts: HostOptions): Promise<RunningHost> {
  const placed: PlacedTopology = placeTopology(opts.topology);
  const t = placed.topology;
  const me = t.hosts.find((h) => h.name === opts.host);
  if (me === undefined) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `topology: no host '${opts.host}'; hosts are ${t.hosts.map((h) => h.name).join(', ')}`);
  const log = opts.log ?? (() => undefined);
  const listen = opts.listen ?? '127.0.0.1';
  const token = opts.token;
  const nodes = depths(placed.layout);
  const leafNames = me.nodes.filter((n) => nodes.get(n)?.kind === 'leaf');
  const aggNames = me.nodes.filter((n) => nodes.get(n)?.kind === 'aggregator').sort((a, b) => nodes.get(b)!.depth - nodes.get(a)!.depth);
  const hasRoot = me.nodes.includes(ROOT_NODE);
  const prepared = leafNames.length > 0 || hasRoot ? await prepareTopologyData(t, opts.cacheDir) : null;
  const faults = readFaults(opts.faults);
  // One registry for the whole process: every node records into it under its name.
  const registry = new Registry();
  const role = [hasRoot ? 'root' : '', aggNames.length > 0 ? 'aggregator' : '', leafNames.length > 0 ? 'leaf' : ''].filter((r) => r !== '').join('+');
  processMetrics(registry, { process: me.name, role, version: canopyVersion(), ...(process.env.CANOPY_REVISION === undefined ? {} : { revision: process.env.CANOPY_REVISION }) });
  const http = nodeHttpMetrics(registry);
  const leafCounters = leafMetrics(registry);
  const earlyStops = nodeReadings(registry, 'counter', 'canopy_early_stops_total', 'Gathers stopped early because the shards still working could not change the answer, by node');
  const replyBytesOf = replyBytesMetrics(registry);
  const tails = tailMetrics(registry);
  const urls: Record<string, string> = {};
  const servers: { close(): Promise<unknown> }[] = [];
  let pg: string | undefined;
  const clients: { destroy(): Promise<void> }[] = [];
  // This process's leaves and aggregators, served together on POST /v1/partials by each of their apps.
  const directory = new NodeDirectory();
  // One coalescing client per child host serving several nodes (CANOPY_MULTIPLEX=off: one request per child).
  const multiplex = process.env.CANOPY_MULTIPLEX !== 'off';
  const muxClients = new Map<string, MultiplexClient>();
  const stops: (() => void)[] = [];
  // Bounded resources of this process: one memory pool shared by its nodes' queries (budgets
  // from the V8 heap limit unless CANOPY_PROCESS_MEMORY_MB / CANOPY_QUERY_MEMORY_MB say), and
  // the event-loop lag that the reserves of its gathers grow with.
  const budgets = memoryBudgets(getHeapStatistics().heap_size_limit, process.env.CANOPY_PROCESS_MEMORY_MB, process.env.CANOPY_QUERY_MEMORY_MB);
  const memory = { pool: new MemoryPool(budgets.processBytes), queryBytes: budgets.queryBytes };
  const lanes = new ScanLanes();
  const work = new QueryWork();
  // Heavy sliced work (scans, merges, large decodes) of every node here takes turns: one per
  // loop iteration (CANOPY_SLICES=off: each yields on its own, for comparison).
  const slices = process.env.CANOPY_SLICES === 'off' ? undefined : new SliceScheduler();
  const lag = new LoopLag();
  stops.push(() => lag.close());
  const gatherBudget = { reserve: (b: number) => lag.reserveMs(b), workMs: mergeWorkMs, memory, work, ...(slices === undefined ? {} : { slices }) };
  const close = async (): Promise<void> => {
    for (const s of stops) s();
    // Clients first: destroying their pools aborts requests still in flight (hung children),
    // so closing the servers does not wait for them.
    await Promise.allSettled(clients.map((c) => c.destroy()));
    await Promise.allSettled(servers.map((s) => s.close()));
  };
  // Scavenges between requests, when the process has none in flight (src/transport/idle-gc.ts; needs --expose-gc).
  const idle = idleCollector();
  const serve = async (name: string, app: FastifyInstance): Promise<void> => {
    servers.push(app);
    idle?.track(app.server);
    // A free port (0) once known is kept: a restarted host listens where its parents look.
    const known = opts.urls?.[name];
    const port = placed.placement.get(name)!.port || (known === undefined ? 0 : Number(new URL(known).port));
    try {
      urls[name] = await app.listen({ host: listen, port });
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CanopyError('CANOPY_ERR_PORT_IN_USE', `${name} cannot listen on ${listen}:${port}: the port is in use by another process; choose another (PORT for npm start, the host's port in a topology file)`);
      throw e;
    }
  };
  const urlOf = (name: string): string => {
    const known = urls[name] ?? opts.urls?.[name];
    if (known !== undefined) return known;
    const p = placed.placement.get(name)!;
    if (p.port === 0) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `topology: the address of ${name} (host ${p.host.name}, free port) is not known to host ${me.name}`);
    return `http://${p.host.address}:${p.port}`;
  };
  const client = (name: string, shards: readonly number[], replyBytes: ReplyBytes): Child => {
    // A child on a host serving several leaves or aggregators goes through that host's
    // multiplexed requests: the process's calls to the host within one event-loop turn share one.
    const host = placed.placement.get(name)!.host;
    // A node of this very host (an aggregator with its own leaves): its handler called directly.
    if (host.name === me.name) return localChild(name, shards, directory, { metrics: http, work });
    const served = host.nodes.filter((n) => nodes.get(n)?.kind !== undefined && n !== ROOT_NODE);
    if (multiplex && served.length > 1) {
      let mux = muxClients.get(host.name);
      if (mux === undefined) {
        // Any node of the host serves its multiplexed route: the first one asked for is known to be up.
        mux = new MultiplexClient(urlOf(name), { ...(slices === undefined ? {} : { slices }), ...(token === undefined ? {} : { token }) });
        muxClients.set(host.name, mux);
        clients.push(mux);
      }
      return mux.child(name, shards, replyBytes);
    }
    const c = httpChild(name, shards, urlOf(name), { replyBytes, ...(token === undefined ? {} : { token }) });
    clients.push(c);
    return c;
  };
  // The children of an aggregator or of the root (node `self`); replicated leaves through
  // replica sets sharing one TailControl per parent node, its metrics under the parent's name.
  const endpoints = (self: string): EndpointSpec => {
    // Reply bytes of this node's child requests (what it holds for its queries in progress).
    const replyBytes = new ReplyBytes();
    replyBytesOf.add(self, replyBytes);
    return {
      leaf: (node, { replica }) => client(replica?.name ?? node.name, node.shards, replyBytes),
      aggregator: (node) => client(node.name, node.shards, replyBytes),
      tail: () => new TailControl({ ...(t.tail ?? { ejection: {} }), metrics: tails.forNode(self) }),
    };
  };
  const connect = (self: string, children: readonly TreeNode[]): Child[] => buildEndpoints(self, children, endpoints(self));
  try {
    for (const name of leafNames) {
      const node = nodes.get(name)!;
      const replica = node.replicas?.find((r) => r.name === name);
      const shards = node.shards.map((id) => {
        const table = readShard(prepared!.files[id]!);
        return prepareShard(id, table, { ...schemaOf(table), name: t.table });
      });
      const leaf = createLeaf(name, shards, { memory, lanes, work, ...(slices === undefined ? {} : { slices }) });
      const site = replica === undefined ? {} : { zone: replica.zone, replica: replica.index };
      const handler = faults === null ? leaf.handler : withFaultsAt(site, leaf.handler, leaf.shards, faults);
      leafCounters.add(leaf);
      await serve(name, buildNodeApp(handler, { ...(token === undefined ? {} : { token }), metrics: http, name, directory, work }));
    }
    if (leafNames.length > 0) log(`${me.name}: ${leafNames.length} leaves ready`);
    for (const name of aggNames) {
      const node = nodes.get(name)!;
      const agg = createAggregator(name, connect(name, node.children), { maxFanout: Math.max(t.fanout, node.children.length), ...gatherBudget });
      earlyStops.add(name, () => agg.counters.earlyStops);
      await serve(name, buildNodeApp(agg.handler, { ...(token === undefined ? {} : { token }), metrics: http, name, directory, work }));
    }
    if (aggNames.length > 0) log(`${me.name}: ${aggNames.length} aggregators ready`);
    if (hasRoot) {
      const catalog = prepared!.catalog;
      const admission = new Admission(t.admission ?? {});
      const metrics = rootMetrics(registry, admission);
      const { root } = buildTree({ table: t.table, catalog, layout: placed.layout, ...endpoints(ROOT_NODE), root: { onTiming: (x) => metrics.child(x), gather: gatherBudget } });
      earlyStops.add(ROOT_NODE, () => root.counters.earlyStops);
      // Every other host is probed, so /healthz reports the ones that are down.
      const monitor = new HostMonitor(t.hosts.filter((h) => h !== me && h.nodes.length > 0).map((h) => ({ host: h.name, nodes: h.nodes, url: urlOf(h.nodes[0]!) })));
      monitor.start();
      stops.push(() => monitor.stop());
      await serve(ROOT_NODE, buildRootApp(root, { ready: () => true, degraded: () => monitor.problems(), admission, metrics, ...(opts.apiToken === undefined ? {} : { apiToken: opts.apiToken }) }));
      log(`${me.name}: root ready at ${urls[ROOT_NODE]}`);
      if (opts.pgPort !== undefined) {
        const server = await startPgServer(root, { port: opts.pgPort, host: listen, admission, metrics, ...(opts.apiToken === undefined ? {} : { password: opts.apiToken }) }).catch((e: unknown) => {
          if ((e as NodeJS.ErrnoException).code === 'EADDRINUSE') throw new CanopyError('CANOPY_ERR_PORT_IN_USE', `the PostgreSQL protocol cannot listen on ${listen}:${opts.pgPort}: the port is in use by another process; choose another (--pg-port or PG_PORT; 0 switches it off)`);
          throw e;
        });
        servers.push(server);
        pg = `${server.host}:${server.port}`;
      }
    }
  } catch (e) {
    await close();
    throw e;
  }
  return { urls, close, ...(prepared === null ? {} : { catalog: prepared.catalog }), ...(pg === undefined ? {} : { pg }) };
}
