/**
 * Test helpers: a whole canopy tree in this process over shards prepared on disk by
 * `prepareShards` (the same files a local HTTP tree serves), for differential tests that
 * must tell planning and merging apart from the HTTP transport.
 */
import { prepareShards, readShard, type PrepareOptions } from '../../src/data/index.ts';
import { createLeaf, prepareShard } from '../../src/leaf/index.ts';
import type { Catalog } from '../../src/merge/index.ts';
import { buildTree, type Root, type TreeNode } from '../../src/root/index.ts';

/** An in-process tree over prepared shards. */
export interface PreparedTree {
  readonly root: Root;
  readonly catalog: Catalog;
  readonly layout: TreeNode[];
}

/**
 * Prepares (or reuses) the shards and builds an in-process tree over them: one leaf per
 * shard, aggregators of width at most `fanout`, the root on top.
 */
export async function preparedInProcessTree(opts: PrepareOptions & { readonly fanout: number }): Promise<PreparedTree> {
  const prepared = await prepareShards(opts);
  const schema = prepared.catalog.table;
  const { root, layout } = buildTree({
    table: schema.name,
    catalog: prepared.catalog,
    fanout: opts.fanout,
    leaf: (node) => {
      const id = node.shards[0]!;
      return createLeaf(node.name, [prepareShard(id, readShard(prepared.files[id]!), schema)]).handler;
    },
  });
  return { root, catalog: prepared.catalog, layout };
}
