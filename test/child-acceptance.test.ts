/**
 * The Child acceptance suite (test/helpers/child-acceptance.ts) over every implementation:
 * in-process leaf, leaf over HTTP, aggregator over leaves, replica set, simulated leaf.
 */
import { createAggregator, replicaSet, TailControl } from '../src/aggregator/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard, type LeafNode } from '../src/leaf/index.ts';
import type { Frame, Scalar, TableSchema } from '../src/merge/index.ts';
import { VirtualClock, simulatedLeaf } from '../src/sim/index.ts';
import { MultiplexClient, NodeDirectory, buildNodeApp, httpChild, inProcessChild, type Child } from '../src/transport/index.ts';
import { describeChild } from './helpers/child-acceptance.ts';

function leafOf(name: string, schema: TableSchema, shards: readonly (readonly (readonly Scalar[])[])[], ids: readonly number[]): LeafNode {
  const tables = shardsFromRows(schema, shards);
  return createLeaf(name, ids.map((id) => prepareShard(id, tables[id]!, schema)));
}

const all = (shards: readonly unknown[]): number[] => shards.map((_, i) => i);

describeChild('in-process leaf', async (schema, shards) => {
  const leaf = leafOf('leaf-0', schema, shards, all(shards));
  return { child: inProcessChild(leaf.name, leaf.shards, leaf.handler) };
});

describeChild('leaf over HTTP', async (schema, shards) => {
  const leaf = leafOf('leaf-0', schema, shards, all(shards));
  const app = buildNodeApp(leaf.handler, { name: leaf.name });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  const child = httpChild(leaf.name, leaf.shards, url);
  return {
    child,
    close: async () => {
      await child.destroy();
      await app.close();
    },
  };
});

describeChild('aggregator over two leaves multiplexed over HTTP (POST /v1/partials)', async (schema, shards) => {
  const ids = all(shards);
  const half = Math.ceil(ids.length / 2);
  const leaves = [leafOf('leaf-0', schema, shards, ids.slice(0, half)), leafOf('leaf-1', schema, shards, ids.slice(half))];
  const directory = new NodeDirectory();
  const apps = leaves.map((l) => buildNodeApp(l.handler, { name: l.name, directory }));
  const url = await apps[1]!.listen({ port: 0, host: '127.0.0.1' });
  const mux = new MultiplexClient(url);
  const agg = createAggregator('agg-0', leaves.map((l) => mux.child(l.name, l.shards)), { updateIntervalMs: 0 });
  return {
    child: inProcessChild(agg.name, agg.shards, agg.handler),
    close: async () => {
      await mux.destroy();
      await Promise.all(apps.map((a) => a.close()));
    },
  };
});

describeChild('aggregator over two leaves', async (schema, shards) => {
  const ids = all(shards);
  const half = Math.ceil(ids.length / 2);
  const leaves = [leafOf('leaf-0', schema, shards, ids.slice(0, half)), leafOf('leaf-1', schema, shards, ids.slice(half))];
  const agg = createAggregator('agg-0', leaves.map((l) => inProcessChild(l.name, l.shards, l.handler)), { updateIntervalMs: 0 });
  return { child: inProcessChild(agg.name, agg.shards, agg.handler) };
});

describeChild('replica set of two leaves, hedged', async (schema, shards) => {
  const replicas = [0, 1].map((r) => leafOf(`leaf-0.r${r}`, schema, shards, all(shards)));
  const tail = new TailControl({ hedge: {}, random: () => 0.5 });
  return { child: replicaSet('leaf-0', replicas.map((l, i) => ({ child: inProcessChild(l.name, l.shards, l.handler), zone: i === 0 ? 'a' : 'b' })), tail) };
});

describeChild('simulated leaf (virtual clock)', async (schema, shards) => {
  // The simulated leaf's values are synthetic by design: here its partial is the one a real
  // leaf computes for the request, so the suite checks its framing, provenance and cancellation.
  const clock = new VirtualClock();
  const real = leafOf('real', schema, shards, all(shards));
  const child: Child = {
    name: 'leaf-0',
    shards: real.shards,
    async *query(req, signal) {
      let f: Frame | undefined;
      for await (const x of real.handler(req, new AbortController().signal)) f = x;
      const partial = f!.partial;
      const rows = f!.rowsScanned / Math.max(1, req.shards.length);
      yield* simulatedLeaf(clock, 'leaf-0', real.shards, { latency: () => 5, partial: () => partial, rowsPerShard: rows }).query(req, signal);
    },
  };
  return { child, run: (start) => clock.run(start) };
});
