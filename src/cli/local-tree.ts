/**
 * Launches a whole canopy tree on loopback: leaf worker processes (each hosting many
 * logical leaves, each leaf its own HTTP endpoint), aggregators and the root in this
 * process (each aggregator its own HTTP endpoint too). Used by `npm start`, the
 * end-to-end tests and the benchmarks.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';
import { Registry } from 'prom-client';
import { TailControl, createAggregator, replicaSet, type TailOptions } from '../aggregator/index.ts';
import { prepareShards } from '../data/index.ts';
import { CanopyError, type Catalog, type PartitionSpec } from '../merge/index.ts';
import { Admission, Root, buildRootApp, layoutTree, placeReplicas, rootMetrics, treeDepth, zoneNames, type AdmissionOptions, type TreeNode } from '../root/index.ts';
import { buildNodeApp, httpChild, nodeHttpMetrics, readCounter, type Child, type HttpChild } from '../transport/index.ts';
import type { LeafAssignment, WorkerMessage } from './leaf-worker.ts';

/** Options of a local tree. */
export interface LocalTreeOptions {
  readonly data: string;
  readonly table: string;
  readonly shards: number;
  readonly partition: PartitionSpec;
  readonly fanout: number;
  /** Levels below the root; default follows from shards and fan-out. */
  readonly depth?: number;
  /** Leaf worker processes (default 2: one per core here). */
  readonly leafProcesses?: number;
  /** Root port; 0 picks a free one. */
  readonly port: number;
  /** Admission control at the root (default 16 in flight, 64 queued). */
  readonly admission?: AdmissionOptions;
  /** When set, the root API requires `Authorization: Bearer <apiToken>`. */
  readonly apiToken?: string;
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
   * Tail control of the replica sets (one TailControl for the tree: the client-side view of the
   * leaf tier). Default with more than one replica: outlier ejection only, no hedging.
   */
  readonly tail?: TailOptions;
}

/** A running local tree. */
export interface LocalTree {
  readonly url: string;
  readonly catalog: Catalog;
  readonly layout: readonly TreeNode[];
  readonly depth: number;
  readonly root: Root;
  /** Tail control of the replica sets, when the leaves are replicated. */
  readonly tail?: TailControl;
  /** Stops every server and worker process it started. */
  close(): Promise<void>;
}

const WORKER = fileURLToPath(new URL('./leaf-worker.ts', import.meta.url));

function leavesOf(nodes: readonly TreeNode[]): TreeNode[] {
  return nodes.flatMap((n) => (n.kind === 'leaf' ? [n] : leavesOf(n.children)));
}

/**
 * Prepares the data and starts the tree; resolves once every leaf has loaded its shards.
 * @throws CanopyError CANOPY_ERR_DATA for bad data; Error when a worker fails to start.
 */
export async function startLocalTree(opts: LocalTreeOptions): Promise<LocalTree> {
  const log = opts.log ?? (() => undefined);
  const host = '127.0.0.1';
  const t0 = performance.now();
  const prepared = await prepareShards({ path: opts.data, table: opts.table, shards: opts.shards, partition: opts.partition, cacheDir: opts.cacheDir });
  log(`${prepared.cached ? 'reused' : 'prepared'} ${prepared.files.length} shards of '${opts.table}' (${prepared.catalog.shards.reduce((n, s) => n + s.rows, 0)} rows) in ${Math.round(performance.now() - t0)} ms`);
  const catalog = prepared.catalog;
  const replicas = opts.replicas ?? 1;
  const layout = placeReplicas(layoutTree(catalog.shards.map((s) => s.id), opts.fanout, opts.depth), replicas, zoneNames(opts.zones ?? replicas));
  const tail = replicas > 1 ? new TailControl(opts.tail ?? { ejection: {} }) : undefined;
  // One endpoint per replica (or per leaf when unreplicated).
  const endpoints = leavesOf(layout).flatMap((l) => (l.replicas ?? [{ name: l.name, zone: undefined, index: undefined }]).map((r) => ({ name: r.name, shards: l.shards, zone: r.zone, replica: r.index })));
  const token = process.env.CANOPY_TREE_TOKEN ?? randomBytes(24).toString('hex');
  const leaves = leavesOf(layout);
  const nproc = Math.max(1, Math.min(opts.leafProcesses ?? 2, endpoints.length));
  const workers: ChildProcess[] = [];
  const servers: FastifyInstance[] = [];
  const clients: HttpChild[] = [];
  const close = async (): Promise<void> => {
    // Clients first: destroying their pools aborts requests still in flight (hung leaves),
    // so closing the servers does not wait for them.
    await Promise.allSettled(clients.map((c) => c.destroy()));
    await Promise.allSettled(servers.map((s) => s.close()));
    for (const w of workers) if (w.exitCode === null) w.kill('SIGTERM');
  };
  try {
    const leafUrls = new Map<string, string>();
    await Promise.all(
      Array.from({ length: nproc }, (_, p) => {
        const mine = endpoints.filter((_, i) => i % nproc === p);
        const assignments: LeafAssignment[] = mine.map((l) => ({
          name: l.name,
          shards: l.shards.map((id) => ({ id, file: prepared.files[id]! })),
          ...(l.zone === undefined ? {} : { zone: l.zone }),
          ...(l.replica === undefined ? {} : { replica: l.replica }),
        }));
        const w = fork(WORKER, [], { execArgv: ['--import', 'tsx'], env: { ...process.env, CANOPY_TREE_TOKEN: token }, stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        workers.push(w);
        return new Promise<void>((resolve, reject) => {
          w.on('message', (m: WorkerMessage) => {
            if (m.type === 'ready') {
              for (const [name, url] of Object.entries(m.urls)) leafUrls.set(name, url);
              resolve();
            } else if (m.type === 'error') reject(new CanopyError(m.code as 'CANOPY_ERR_DATA', m.message));
          });
          w.on('exit', (code) => reject(new Error(`leaf worker ${p} exited with code ${code} before it was ready`)));
          w.send({ type: 'start', host, assignments, table: catalog.table, faults: opts.faults ?? null });
        });
      }),
    );
    log(`${leaves.length} leaves ready in ${nproc} process(es)${replicas > 1 ? ` (${endpoints.length} replicas in zones ${zoneNames(opts.zones ?? replicas).join(', ')})` : ''}`);
    const connect = async (node: TreeNode): Promise<Child> => {
      if (node.kind === 'leaf' && node.replicas !== undefined) {
        const members = node.replicas.map((r) => {
          const c = httpChild(r.name, node.shards, leafUrls.get(r.name)!, { token });
          clients.push(c);
          return { child: c, zone: r.zone };
        });
        return replicaSet(node.name, members, tail);
      }
      if (node.kind === 'leaf') {
        const c = httpChild(node.name, node.shards, leafUrls.get(node.name)!, { token });
        clients.push(c);
        return c;
      }
      const children = await Promise.all(node.children.map(connect));
      const agg = createAggregator(node.name, children, { maxFanout: Math.max(opts.fanout, children.length) });
      const registry = new Registry();
      readCounter(registry, 'canopy_early_stops_total', 'Gathers of this aggregator stopped early', () => agg.counters.earlyStops);
      const app = buildNodeApp(agg.handler, { token, metrics: nodeHttpMetrics(registry), name: node.name });
      servers.push(app);
      const url = await app.listen({ host, port: 0 });
      const c = httpChild(node.name, node.shards, url, { token });
      clients.push(c);
      return c;
    };
    const children = await Promise.all(layout.map(connect));
    // Root metrics (injected registry); per-child latency comes from the gather's timings.
    const admission = new Admission(opts.admission ?? {});
    // `root` is read only at scrape time, after it exists.
    const metrics = rootMetrics(new Registry(), () => root, admission);
    const root: Root = new Root({ tables: new Map([[opts.table, { catalog, children }]]), onTiming: (t) => metrics.child(t) });
    const app = buildRootApp(root, { ready: () => true, admission, metrics, ...(opts.apiToken === undefined ? {} : { apiToken: opts.apiToken }) });
    servers.push(app);
    const address = await app.listen({ host: opts.host ?? host, port: opts.port });
    log(`tree ready in ${Math.round(performance.now() - t0)} ms: root, ${servers.length - 1} aggregators, ${leaves.length} leaves (depth ${treeDepth(layout)}, fan-out ${opts.fanout})`);
    return { url: address, catalog, layout, depth: treeDepth(layout), root, close, ...(tail === undefined ? {} : { tail }) };
  } catch (e) {
    await close();
    throw e;
  }
}
