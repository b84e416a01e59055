/**
 * Tree topology: which aggregators sit between the root and the leaves for N shards and a
 * fan-out F. Depth follows from N and F: the smallest d with F^d >= N levels below the
 * root, each node having at most F children. Pure description, plus an in-process builder.
 */
import { createAggregator, type GatherOptions } from '../aggregator/index.ts';
import { inProcessChild, type Child, type NodeHandler } from '../transport/index.ts';

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
 * Builds in-process children for a layout: leaves from `leafHandler(node)`, aggregators
 * with the one gather engine. Used by tests and the simulator.
 */
export function inProcessTree(nodes: readonly TreeNode[], leafHandler: (node: TreeNode) => NodeHandler | Child, gatherOpts: Omit<GatherOptions, 'self'> = {}): Child[] {
  return nodes.map((node) => {
    if (node.kind === 'leaf') {
      const h = leafHandler(node);
      return typeof h === 'function' ? inProcessChild(node.name, node.shards, h) : h;
    }
    const agg = createAggregator(node.name, inProcessTree(node.children, leafHandler, gatherOpts), { ...gatherOpts, maxFanout: Infinity });
    return inProcessChild(agg.name, agg.shards, agg.handler);
  });
}
