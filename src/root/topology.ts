/**
 * Tree topology: which aggregators sit between the root and the leaves for N shards and a
 * fan-out F. Depth follows from N and F: the smallest d with F^d >= N levels below the
 * root, each node having at most F children. Pure description; `buildTree` (tree.ts) builds a tree from it.
 */
import type { TailOptions } from '../aggregator/index.ts';
import { CanopyError } from '../merge/index.ts';

/** A node of the tree below the root. Leaves serve the listed shards. */
export interface TreeNode {
  readonly kind: 'leaf' | 'aggregator';
  /** `leaf-27`, `agg-3`, `agg-3.1` */
  readonly name: string;
  readonly shards: readonly number[];
  readonly children: readonly TreeNode[];
  /** Leaves served by several replicas (see {@link placeReplicas}); absent: the leaf is its own endpoint. */
  readonly replicas?: readonly ReplicaPlacement[];
}

/** One replica of a leaf: its endpoint name (`leaf-27.r1`), zone and index. */
export interface ReplicaPlacement {
  readonly name: string;
  readonly zone: string;
  readonly index: number;
}

/** Zone names for a zone count: `a`, `b`, ... `z`, then `z26`, `z27`, ... */
export function zoneNames(count: number): string[] {
  return Array.from({ length: count }, (_, i) => (i < 26 ? String.fromCharCode(97 + i) : `z${i}`));
}

/**
 * Gives every leaf `replicas` replicas named `<leaf>.r<j>`, zones round-robin over the
 * replicas in leaf order (replica j of the i-th leaf in zone (i·R + j) mod Z), so a leaf's
 * replicas sit in distinct zones when R <= Z and every zone holds the same share.
 * One replica: the layout is returned unchanged.
 * @throws RangeError for fewer than one replica or no zones.
 */
export function placeReplicas(nodes: readonly TreeNode[], replicas: number, zones: readonly string[]): TreeNode[] {
  if (!Number.isInteger(replicas) || replicas < 1) throw new RangeError(`replicas must be a positive integer, got ${replicas}`);
  if (zones.length === 0) throw new RangeError('at least one zone is needed');
  if (replicas === 1) return [...nodes];
  let leaf = 0;
  const place = (n: TreeNode): TreeNode => {
    if (n.kind === 'aggregator') return { ...n, children: n.children.map(place) };
    const i = leaf++;
    return { ...n, replicas: Array.from({ length: replicas }, (_, j) => ({ name: `${n.name}.r${j}`, zone: zones[(i * replicas + j) % zones.length]!, index: j })) };
  };
  return nodes.map(place);
}

/**
 * Lays out leaves (one per shard id, named `leaf-<id>`) under aggregators of width at most
 * `fanout`. Returns the root's children.
 * @param depth optional number of levels below the root (1 = flat); default the smallest that
 *   keeps every node within the fan-out.
 * @throws RangeError for fanout < 2 (with more than one shard) or a depth that cannot fit.
 */
export function layoutTree(shardIds: readonly number[], fanout: number, depth?: number): TreeNode[] {
  const n = shardIds.length;
  if (!Number.isInteger(fanout) || fanout < 1) throw new RangeError(`fan-out must be a positive integer, got ${fanout}`);
  let d = 1;
  while (fanout ** d < n) {
    if (fanout < 2) throw new RangeError('fan-out must be at least 2 for more than one shard');
    d++;
  }
  if (depth !== undefined) {
    if (!Number.isInteger(depth) || depth < 1) throw new RangeError(`depth must be a positive integer, got ${depth}`);
    d = depth;
  }
  const leaves: TreeNode[] = shardIds.map((id) => ({ kind: 'leaf', name: `leaf-${id}`, shards: [id], children: [] }));
  const build = (items: TreeNode[], levels: number, prefix: string): TreeNode[] => {
    if (levels <= 1) return items;
    // Split into at most `fanout` contiguous groups of near-equal size.
    const groups = Math.min(fanout, items.length);
    const out: TreeNode[] = [];
    let at = 0;
    for (let g = 0; g < groups; g++) {
      const size = Math.floor(items.length / groups) + (g < items.length % groups ? 1 : 0);
      const name = `${prefix}${g}`;
      const children = build(items.slice(at, at + size), levels - 1, `${name}.`);
      at += size;
      out.push({ kind: 'aggregator', name, shards: children.flatMap((c) => c.shards), children });
    }
    return out;
  };
  const top = build(leaves, d, 'agg-');
  if (top.length > fanout && d > 1) throw new RangeError(`${n} shards do not fit a depth-${d} tree of fan-out ${fanout}`);
  return top;
}

/** Depth of a layout: levels below the root (1 = the root gathers leaves directly). */
export function treeDepth(nodes: readonly TreeNode[]): number {
  return nodes.length === 0 ? 0 : 1 + Math.max(...nodes.map((c) => (c.kind === 'leaf' ? 0 : treeDepth(c.children))));
}

/**
 * A deployment topology: the tree (from shards, fan-out, depth, replicas and zones, laid out
 * by {@link layoutTree} and {@link placeReplicas}) and which host runs which of its nodes.
 * The same shape is read from a JSON file by `src/cli/serve.ts` (one process per host, e.g.
 * one docker-compose service each) and built by `startLocalTree` (hosts as loopback processes).
 */
export interface Topology {
  /** Table name used in SQL. */
  readonly table: string;
  /** Source data (see `prepareShards`); absent: the bundled flights data. */
  readonly data?: string;
  /** Shards the source is split into (ids 0..shards-1). */
  readonly shards: number;
  /** `hash` (default) or `range:COLUMN`. */
  readonly partition?: string;
  readonly fanout: number;
  /** Levels below the root (default from shards and fan-out). */
  readonly depth?: number;
  /** Endpoints per leaf (default 1). */
  readonly replicas?: number;
  /** Zones the replicas are spread over, round-robin (default: as many as replicas). */
  readonly zones?: number;
  /** Tail control of replica sets at the node above them (default with replicas: ejection only). */
  readonly tail?: Pick<TailOptions, 'hedge' | 'ejection'>;
  /** Admission control of the root (default 16 in flight, 64 queued). */
  readonly admission?: { readonly maxInFlight?: number; readonly maxQueued?: number };
  readonly hosts: readonly TopologyHost[];
}

/** A host: one process (one container) running some nodes of the tree. */
export interface TopologyHost {
  /** Host name (a docker-compose service), e.g. `leaves-a0`. */
  readonly name: string;
  /** Name or address the other hosts reach it by (`leaves-a0`, `127.0.0.1`). */
  readonly address: string;
  /** Port of its first node; node i of `nodes` listens on port + i. 0: any free port (loopback launcher). */
  readonly port: number;
  /** Node names: `root`, aggregators (`agg-3`), leaf endpoints (`leaf-27`, or `leaf-27.r1` with replicas). */
  readonly nodes: readonly string[];
}

/** A topology with its tree laid out: every node, where it runs and where it listens. */
export interface PlacedTopology {
  readonly topology: Topology;
  /** The root's children. */
  readonly layout: readonly TreeNode[];
  /** Every node by name: its host and listening port (0 when the host picks free ports). */
  readonly placement: ReadonlyMap<string, { readonly host: TopologyHost; readonly port: number }>;
}

/** The name of the root node in a topology. */
export const ROOT_NODE = 'root';

function topologyError(msg: string): CanopyError {
  return new CanopyError('CANOPY_ERR_BAD_REQUEST', `topology: ${msg}`);
}

/** Every node name of a layout: aggregators, and leaf endpoints (replicas when present). */
export function nodeNames(nodes: readonly TreeNode[]): string[] {
  return nodes.flatMap((n) => (n.kind === 'aggregator' ? [n.name, ...nodeNames(n.children)] : (n.replicas?.map((r) => r.name) ?? [n.name])));
}

/**
 * Checks a topology read from JSON and lays out its tree.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST naming the first problem: a missing or mistyped
 *   field, a node no host runs, a node run twice, an unknown node name (the message lists a
 *   few known ones), a port out of range.
 */
export function placeTopology(raw: unknown): PlacedTopology {
  const t = raw as Record<string, unknown> | null;
  if (typeof t !== 'object' || t === null || Array.isArray(t)) throw topologyError('must be a JSON object');
  const known = new Set(['table', 'data', 'shards', 'partition', 'fanout', 'depth', 'replicas', 'zones', 'tail', 'admission', 'hosts']);
  for (const k of Object.keys(t)) if (!known.has(k)) throw topologyError(`unknown field '${k}'; known: ${[...known].join(', ')}`);
  const int = (k: string, min: number, optional: boolean): void => {
    if (optional && t[k] === undefined) return;
    if (!Number.isInteger(t[k]) || (t[k] as number) < min) throw topologyError(`${k} must be an integer >= ${min}, got ${JSON.stringify(t[k])}`);
  };
  if (typeof t.table !== 'string' || t.table === '') throw topologyError('table must be a non-empty string');
  if (t.data !== undefined && typeof t.data !== 'string') throw topologyError('data must be a path');
  if (t.partition !== undefined && (typeof t.partition !== 'string' || !(t.partition === 'hash' || /^range:.+/.test(t.partition)))) throw topologyError(`partition must be 'hash' or 'range:COLUMN', got ${JSON.stringify(t.partition)}`);
  int('shards', 1, false);
  int('fanout', 1, false);
  int('depth', 1, true);
  int('replicas', 1, true);
  int('zones', 1, true);
  for (const k of ['tail', 'admission'] as const) if (t[k] !== undefined && (typeof t[k] !== 'object' || t[k] === null)) throw topologyError(`${k} must be an object`);
  if (!Array.isArray(t.hosts) || t.hosts.length === 0) throw topologyError('hosts must be a non-empty list');
  const topology = t as unknown as Topology;
  const replicas = topology.replicas ?? 1;
  let layout: TreeNode[];
  try {
    layout = placeReplicas(layoutTree(Array.from({ length: topology.shards }, (_, i) => i), topology.fanout, topology.depth), replicas, zoneNames(topology.zones ?? replicas));
  } catch (e) {
    throw topologyError((e as Error).message);
  }
  const names = [ROOT_NODE, ...nodeNames(layout)];
  const all = new Set(names);
  const placement = new Map<string, { host: TopologyHost; port: number }>();
  const hostNames = new Set<string>();
  for (const h of topology.hosts as unknown[]) {
    const host = h as Record<string, unknown> | null;
    if (typeof host !== 'object' || host === null) throw topologyError('every host must be an object');
    if (typeof host.name !== 'string' || host.name === '' || hostNames.has(host.name)) throw topologyError(`host name ${JSON.stringify(host.name)} is missing or used twice`);
    hostNames.add(host.name);
    if (typeof host.address !== 'string' || host.address === '') throw topologyError(`host ${host.name}: address must be a host name or IP`);
    if (!Array.isArray(host.nodes) || host.nodes.length === 0) throw topologyError(`host ${host.name}: nodes must be a non-empty list of node names`);
    const port = host.port;
    if (!Number.isInteger(port) || (port as number) < 0 || (port as number) + host.nodes.length - 1 > 65535) throw topologyError(`host ${host.name}: port must be 0 or a port with room for its ${host.nodes.length} node(s), got ${JSON.stringify(port)}`);
    host.nodes.forEach((n: unknown, i) => {
      if (typeof n !== 'string' || !all.has(n)) throw topologyError(`host ${host.name}: unknown node ${JSON.stringify(n)}; nodes are ${names.slice(0, 4).join(', ')}, ..., ${names[names.length - 1]}`);
      if (placement.has(n)) throw topologyError(`node ${n} is run by both ${placement.get(n)!.host.name} and ${host.name}`);
      placement.set(n, { host: host as unknown as TopologyHost, port: port === 0 ? 0 : (port as number) + i });
    });
  }
  const unplaced = names.filter((n) => !placement.has(n));
  if (unplaced.length > 0) throw topologyError(`${unplaced.length} node(s) run by no host: ${unplaced.slice(0, 8).join(', ')}${unplaced.length > 8 ? ', ...' : ''}`);
  return { topology, layout, placement };
}

/** What {@link planTopology} lays out. */
export interface TopologyPlan extends Omit<Topology, 'hosts'> {
  /** Processes hosting the leaf endpoints (contiguous runs of them, each zone's on its own hosts when possible). */
  readonly leafHosts: number;
  /** Processes hosting the aggregators (whole top-level subtrees, round-robin); 0: none (depth 1 only). */
  readonly aggregatorHosts: number;
  /** Address of every host; default its name (docker-compose service names). */
  readonly address?: (host: string) => string;
  /** First port of every host (default 0: free ports); the root's host always uses `rootPort`. */
  readonly basePort?: number;
  readonly rootPort?: number;
  /**
   * `tiers` (default): aggregators on their own hosts, leaves on leaf hosts, every hop over
   * HTTP. `subtrees`: `leafHosts` hosts named `subtrees-<k>`, each holding whole top-level
   * subtrees, their aggregators and their leaves together, so an aggregator reaches its own
   * leaves in-process (no HTTP, no Arrow encoding) and only the root's hop crosses processes;
   * `aggregatorHosts` is then unused. A tree of depth 1 or with replicas is laid out by tiers.
   */
  readonly placement?: 'tiers' | 'subtrees';
}

/**
 * Plans hosts for a tree: `root` (the root alone), `aggregators-<i>` and leaf hosts, named
 * `leaves-<zone><k>` when a host holds one zone's replicas only, else `leaves-<k>`; or, with
 * placement `subtrees`, `subtrees-<k>` hosts of whole top-level subtrees (see {@link TopologyPlan}).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for a tree that cannot be laid out, or
 *   aggregators without an aggregator host.
 */
export function planTopology(plan: TopologyPlan): Topology {
  const { leafHosts, aggregatorHosts, address = (h: string) => h, basePort = 0, rootPort = basePort, placement = 'tiers', ...tree } = plan;
  const replicas = tree.replicas ?? 1;
  let layout: TreeNode[];
  try {
    layout = placeReplicas(layoutTree(Array.from({ length: tree.shards }, (_, i) => i), tree.fanout, tree.depth), replicas, zoneNames(tree.zones ?? replicas));
  } catch (e) {
    throw topologyError((e as Error).message);
  }
  if (!Number.isInteger(leafHosts) || leafHosts < 1) throw topologyError(`leaf hosts must be a positive integer, got ${leafHosts}`);
  const hosts: { name: string; nodes: string[] }[] = [{ name: ROOT_NODE, nodes: [ROOT_NODE] }];
  const tops = layout.filter((n) => n.kind === 'aggregator');
  const finish = (): Topology => ({ ...tree, hosts: hosts.map((h) => ({ name: h.name, address: address(h.name), port: h.name === ROOT_NODE ? rootPort : basePort, nodes: h.nodes })) });
  if (placement === 'subtrees' && tops.length > 0 && replicas === 1) {
    // Contiguous runs of top-level subtrees, each host taking its subtrees' aggregators and leaves.
    const p = Math.min(leafHosts, tops.length);
    const nodesOf = (n: TreeNode): string[] => (n.kind === 'aggregator' ? [n.name, ...n.children.flatMap(nodesOf)] : [n.name]);
    let at = 0;
    for (let k = 0; k < p; k++) {
      const size = Math.floor(tops.length / p) + (k < tops.length % p ? 1 : 0);
      hosts.push({ name: `subtrees-${k}`, nodes: tops.slice(at, at + size).flatMap(nodesOf) });
      at += size;
    }
    return finish();
  }
  if (tops.length > 0 && !(Number.isInteger(aggregatorHosts) && aggregatorHosts >= 1)) throw topologyError(`a depth-${treeDepth(layout)} tree needs at least one aggregator host`);
  const aggs = Array.from({ length: Math.min(aggregatorHosts, tops.length) }, (_, i) => ({ name: `aggregators-${i}`, nodes: [] as string[] }));
  const aggregatorNames = (n: TreeNode): string[] => (n.kind === 'aggregator' ? [n.name, ...n.children.flatMap(aggregatorNames)] : []);
  tops.forEach((n, i) => aggs[i % aggs.length]!.nodes.push(...aggregatorNames(n)));
  hosts.push(...aggs);
  // Leaf endpoints in leaf order, each zone's together, split into contiguous runs.
  const leaves = (function walk(ns: readonly TreeNode[]): TreeNode[] {
    return ns.flatMap((n) => (n.kind === 'leaf' ? [n] : walk(n.children)));
  })(layout);
  const endpoints = leaves.flatMap((l) => l.replicas?.map((r) => ({ name: r.name, zone: r.zone as string | undefined })) ?? [{ name: l.name, zone: undefined }]);
  const zoneOrder = zoneNames(tree.zones ?? replicas);
  endpoints.sort((a, b) => (a.zone === undefined || b.zone === undefined ? 0 : zoneOrder.indexOf(a.zone) - zoneOrder.indexOf(b.zone)));
  const p = Math.min(leafHosts, endpoints.length);
  const perZone = new Map<string, number>();
  let at = 0;
  for (let k = 0; k < p; k++) {
    const size = Math.floor(endpoints.length / p) + (k < endpoints.length % p ? 1 : 0);
    const chunk = endpoints.slice(at, at + size);
    at += size;
    const zone = chunk[0]!.zone;
    const pure = zone !== undefined && chunk.every((e) => e.zone === zone);
    const n = pure ? (perZone.get(zone) ?? 0) : k;
    if (pure) perZone.set(zone, n + 1);
    hosts.push({ name: pure ? `leaves-${zone}${n}` : `leaves-${k}`, nodes: chunk.map((e) => e.name) });
  }
  return finish();
}
