/**
 * `npm run bench -- bytes`: bytes moved up the tree per query, counted as the encoded
 * frames (the Arrow IPC bytes each child would send over HTTP) on every edge of an
 * in-process 100-leaf, fan-out-10 tree over the flights data. Compares group top-k without
 * truncation, with over-fetch, and with over-fetch plus the refinement round; and distinct
 * counts kept as exact sets, HyperLogLog sketches, against a plain COUNT.
 */
import path from 'node:path';
import { DEFAULT_DATA_PATH, prepareShards, readShard, schemaOf } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { encodeFrame, layoutOf, type Frame } from '../src/merge/index.ts';
import { ROOT_NODE, buildTree } from '../src/root/index.ts';
import type { Child, ChildRequest } from '../src/transport/index.ts';
import type { BenchModule, BenchOptions, BenchReport } from './common.ts';

interface Case {
  readonly id: string;
  readonly label: string;
  readonly sql: string;
  readonly extra?: { readonly shard_size?: number; readonly exact?: boolean };
}

const CASES: readonly Case[] = [
  { id: 'topk-all', label: 'top-10 pairs, no truncation (shard_size 500,000)', sql: 'SELECT origin, destination, count(*) FROM flights GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 10', extra: { shard_size: 500_000 } },
  { id: 'topk-overfetch', label: 'top-10 pairs, over-fetch k\' = 25 (default)', sql: 'SELECT origin, destination, count(*) FROM flights GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 10' },
  { id: 'topk-refined', label: 'top-10 pairs, over-fetch + refinement (exact: true)', sql: 'SELECT origin, destination, count(*) FROM flights GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 10', extra: { exact: true } },
  { id: 'count', label: 'plain COUNT(*) (baseline)', sql: 'SELECT count(*) FROM flights' },
  { id: 'distinct-set', label: 'COUNT(DISTINCT destination): exact sets', sql: 'SELECT count(DISTINCT destination) FROM flights' },
  { id: 'distinct-hll', label: 'COUNT(DISTINCT date): thousands of distinct values per leaf, so HyperLogLog sketches', sql: 'SELECT count(DISTINCT date) FROM flights' },
  { id: 'distinct-hll-dense', label: 'approx_count_distinct(date) for 3 origins, by origin: one set or sketch per group', sql: "SELECT origin, approx_count_distinct(date) FROM flights WHERE origin IN ('ORD', 'DFW', 'ATL') GROUP BY origin" },
];

/** Wraps a child so every frame it yields is encoded and its bytes added to `count.bytes`. */
function counting(child: Child, count: { bytes: number; frames: number }): Child {
  return {
    name: child.name,
    shards: child.shards,
    async *query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
      const layout = layoutOf(req.plan, req.schema);
      for await (const f of child.query(req, signal)) {
        count.bytes += encodeFrame(layout, f).length;
        count.frames++;
        yield f;
      }
    },
  };
}

export const bytes: BenchModule = {
  description: 'bytes moved up the tree per query: group top-k (over-fetch vs refinement) and distinct counts (sets vs HLL)',
  async run(_opts: BenchOptions): Promise<BenchReport> {
    const prepared = await prepareShards({ path: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: { kind: 'hash' }, cacheDir: path.resolve('.canopy-cache') });
    const leaves = prepared.files.map((file, id) => {
      const t = readShard(file);
      return createLeaf(`leaf-${id}`, [prepareShard(id, t, schemaOf(t))]);
    });
    const leafEdge = { bytes: 0, frames: 0 };
    const aggEdge = { bytes: 0, frames: 0 };
    const { root } = buildTree({
      table: 'flights',
      catalog: prepared.catalog,
      fanout: 10,
      leaf: (node) => leaves[node.shards[0]!]!.handler,
      // Bytes into the root's children (aggregators) and into the leaves' parents.
      wrap: (c, node, { parent }) => (node.kind === 'leaf' ? counting(c, leafEdge) : parent === ROOT_NODE ? counting(c, aggEdge) : c),
    });
    const rows: { id: string; label: string; leafBytes: number; aggBytes: number; total: number; roundTrips: number; answer: string }[] = [];
    for (const c of CASES) {
      leafEdge.bytes = aggEdge.bytes = leafEdge.frames = aggEdge.frames = 0;
      const a = await root.query({ sql: c.sql, ...(c.extra ?? {}) }, new AbortController().signal);
      rows.push({ id: c.id, label: c.label, leafBytes: leafEdge.bytes, aggBytes: aggEdge.bytes, total: leafEdge.bytes + aggEdge.bytes, roundTrips: a.stats.round_trips, answer: a.label });
      process.stderr.write(`[bytes] ${c.id}: ${leafEdge.bytes + aggEdge.bytes} bytes, ${a.label}\n`);
    }
    const kb = (n: number): string => (n / 1024).toFixed(1);
    const markdown = [
      '## bytes: moved up the tree per query',
      '',
      'In-process tree over 100 hash shards of flights, fan-out 10 (100 leaves → 10 aggregators → root); bytes are the encoded Arrow IPC frames on each edge.',
      '',
      '| case | leaves → aggregators KiB | aggregators → root KiB | total KiB | round trips | label |',
      '| --- | ---: | ---: | ---: | ---: | --- |',
      ...rows.map((r) => `| ${r.label} | ${kb(r.leafBytes)} | ${kb(r.aggBytes)} | ${kb(r.total)} | ${r.roundTrips} | ${r.answer} |`),
      '',
    ].join('\n');
    return { name: 'bytes', data: { rows }, markdown, ok: true };
  },
};
