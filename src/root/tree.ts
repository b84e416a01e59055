/**
 * The one tree builder: a root over a layout of aggregators and leaves (see
 * {@link layoutTree}, {@link placeReplicas}), whatever the leaves are — in-process leaf
 * handlers (tests, benchmarks), HTTP clients of other processes (`npm start`, the
 * docker-compose hosts), simulated links on a virtual clock (src/sim/). The caller says how
 * a leaf endpoint (and, optionally, an aggregator) is made; the builder walks the layout,
 * puts replicated leaves behind replica sets, builds in-process aggregators with the one
 * gather engine, and the root on top.
 */
import { createAggregator, replicaSet, type TailControl } from '../aggregator/index.ts';
import type { Catalog } from '../merge/index.ts';
import { inProcessChild, type Child, type Clock, type NodeHandler } from '../transport/index.ts';
import { Root, type RootOptions } from './engine.ts';
import { ROOT_NODE, layoutTree, placeReplicas, zoneNames, type ReplicaPlacement, type TreeNode } from './topology.ts';

/** Where a node being built sits: its parent's name (`root` for the root's children) and, for a replica, its placement. */
export interface NodeSite {
  /** The parent node's name: {@link ROOT_NODE} or an aggregator's (`agg-3`). */
  readonly parent: string;
  /** The replica being built (`leaf-27.r1`, zone, index); absent for an unreplicated leaf. */
  readonly replica?: ReplicaPlacement;
}

/** How the endpoints of a layout's nodes are made (see {@link buildEndpoints}). */
export interface EndpointSpec {
  /**
   * The endpoint of a leaf, or of one replica of a replicated leaf (`site.replica`): a Child,
   * or a node handler (then called in-process, named after the leaf or the replica).
   */
  readonly leaf: (node: TreeNode, site: NodeSite) => Child | NodeHandler;
  /**
   * The endpoint of an aggregator node. `children()` builds its children (call it at most
   * once; a remote aggregator does not). Default: an in-process aggregator over its
   * children on `clock`, any fan-out.
   */
  readonly aggregator?: (node: TreeNode, site: NodeSite, children: () => Child[]) => Child;
  /**
   * The tail control (hedging, ejection) of the replica sets under `parent`, asked once per
   * node that has replicated leaves; default none.
   */
  readonly tail?: (parent: string) => TailControl | undefined;
  /**
   * Wraps every endpoint built before its parent gets it (byte counting, simulated links):
   * leaves, aggregators and, of a replicated leaf, each replica (not the replica set); default none.
   */
  readonly wrap?: (child: Child, node: TreeNode, site: NodeSite) => Child;
  /** Time and timers of the in-process aggregators and of the root (default the system clock). */
  readonly clock?: Clock;
}

/** What `buildTree` builds: the table, its layout, how leaves (and optionally aggregators) are made, the root's options. */
export interface TreeSpec extends EndpointSpec {
  /** Table name used in SQL. */
  readonly table: string;
  /** The table's catalog (schema, shards and their zone maps). */
  readonly catalog: Catalog;
  /**
   * The root's children. Default: `layoutTree` over the catalog's shard ids with `fanout`
   * (default 10) and `depth`, then `placeReplicas` with `replicas` (default 1) in `zones`
   * (default as many as replicas).
   */
  readonly layout?: readonly TreeNode[];
  readonly fanout?: number;
  readonly depth?: number;
  readonly replicas?: number;
  readonly zones?: number;
  /** The root's other options (limits, deadlines, metrics, gather budget; `clock` here overrides the tree's for the root only). */
  readonly root?: Omit<RootOptions, 'tables'>;
}

/** A built tree. */
export interface BuiltTree {
  readonly root: Root;
  /** The root's children, as laid out (a copy, the caller's to keep). */
  readonly layout: TreeNode[];
  /** Every endpoint built, by node name (`agg-3`, `leaf-27`; replica sets under the leaf's name, their replicas `leaf-27.r0`, ...). */
  readonly nodes: ReadonlyMap<string, Child>;
  /** Destroys what holds connections (HTTP children's pools); in-process endpoints hold none. */
  close(): Promise<void>;
}

/**
 * Builds the endpoints of `layout`, the children of node `parent` (the root, or an
 * aggregator whose children are remote): leaves and aggregators as `spec` says, replicated
 * leaves behind replica sets (one tail control per parent). Every endpoint built is added to
 * `nodes` by name when given.
 * @throws RangeError from `replicaSet` for replicas serving different shards.
 */
export function buildEndpoints(parent: string, layout: readonly TreeNode[], spec: EndpointSpec, nodes?: Map<string, Child>): Child[] {
  const clock = spec.clock === undefined ? {} : { clock: spec.clock };
  const tails = new Map<string, TailControl | undefined>();
  const tailOf = (p: string): TailControl | undefined => {
    if (!tails.has(p)) tails.set(p, spec.tail?.(p));
    return tails.get(p);
  };
  const endpoint = (h: Child | NodeHandler, name: string, shards: readonly number[]): Child => (typeof h === 'function' ? inProcessChild(name, shards, h) : h);
  const wrap = (child: Child, node: TreeNode, site: NodeSite): Child => (spec.wrap === undefined ? child : spec.wrap(child, node, site));
  const build = (self: string, list: readonly TreeNode[]): Child[] =>
    list.map((node) => {
      const site: NodeSite = { parent: self };
      let child: Child;
      if (node.kind === 'aggregator') {
        const children = (): Child[] => build(node.name, node.children);
        if (spec.aggregator !== undefined) child = wrap(spec.aggregator(node, site, children), node, site);
        else {
          const agg = createAggregator(node.name, children(), { ...clock, maxFanout: Infinity });
          child = wrap(inProcessChild(agg.name, agg.shards, agg.handler), node, site);
        }
      } else if (node.replicas === undefined) {
        child = wrap(endpoint(spec.leaf(node, site), node.name, node.shards), node, site);
      } else {
        const members = node.replicas.map((replica) => {
          const rs: NodeSite = { parent: self, replica };
          const member = wrap(endpoint(spec.leaf(node, rs), replica.name, node.shards), node, rs);
          nodes?.set(replica.name, member);
          return { child: member, zone: replica.zone };
        });
        child = replicaSet(node.name, members, tailOf(self));
      }
      nodes?.set(node.name, child);
      return child;
    });
  return build(parent, layout);
}

/**
 * Builds a tree: endpoints for every node of the layout (see {@link buildEndpoints}) and the
 * root over the table.
 * @throws RangeError from `layoutTree`/`placeReplicas` for a fan-out, depth or replica count
 *   that cannot be laid out, and from `replicaSet` for replicas serving different shards.
 */
export function buildTree(spec: TreeSpec): BuiltTree {
  const replicas = spec.replicas ?? 1;
  const layout = spec.layout ?? placeReplicas(layoutTree(spec.catalog.shards.map((s) => s.id), spec.fanout ?? 10, spec.depth), replicas, zoneNames(spec.zones ?? replicas));
  const nodes = new Map<string, Child>();
  const children = buildEndpoints(ROOT_NODE, layout, spec, nodes);
  const root = new Root({ ...(spec.clock === undefined ? {} : { clock: spec.clock }), ...spec.root, tables: new Map([[spec.table, { catalog: spec.catalog, children }]]) });
  const close = async (): Promise<void> => {
    await Promise.allSettled([...nodes.values()].map((c) => (c as Partial<{ destroy: () => Promise<void> }>).destroy?.()));
  };
  return { root, layout: [...layout], nodes, close };
}
