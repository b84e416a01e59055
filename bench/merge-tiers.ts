/**
 * Narrow in-process run of the aggregator and root merge work of a group top-k query (no HTTP,
 * one thread): every shard scanned once with the plan the root sends (leaf truncation and
 * frame encode included, not timed), then per rep, timed: 10 aggregators each decode and merge
 * their 10 leaf frames, truncate and encode; the root decodes and merges the 10 aggregator frames.
 *
 * usage: npx tsx bench/merge-tiers.ts [q3|q9 ...] [--reps N]
 * (q9 is the first round of `exact: true`: exactFirstRound, no moments.)
 */
import path from 'node:path';
import { DEFAULT_DATA_PATH, prepareShards, readShard, schemaOf } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import { decodeFrame, encodeFrame, type Frame } from "../src/merge/wire/index.ts";
import { PartialAccumulator, TopKTracker, layoutOf, planEstimates, truncateTopK, type ColumnarPartial, type ScanPlan } from "../src/merge/index.ts";
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { exactFirstRound, planTopK } from '../src/root/topk.ts';

const QUERIES: Record<string, { sql: string; exact: boolean }> = {
  q3: { sql: 'SELECT origin, destination, count(*) AS n FROM flights GROUP BY origin, destination ORDER BY n DESC LIMIT 10', exact: false },
  q9: { sql: 'SELECT date, count(*) AS n FROM flights GROUP BY date ORDER BY n DESC LIMIT 2', exact: true },
};

const args = process.argv.slice(2);
const repsAt = args.indexOf('--reps');
const reps = repsAt >= 0 ? Number(args[repsAt + 1]) : 3;
const ids = args.filter((a, i) => !a.startsWith('--') && (repsAt < 0 || i !== repsAt + 1));
const prepared = await prepareShards({ path: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: { kind: 'hash' }, cacheDir: path.resolve('.canopy-cache') });
const shards = prepared.files.map((file, id) => {
  const table = readShard(file);
  return prepareShard(id, table, schemaOf(table));
});
const schema = prepared.catalog.table;
const cpu = (): number => {
  const u = process.cpuUsage();
  return (u.user + u.system) / 1000;
};

for (const id of ids.length === 0 ? ['q3', 'q9'] : ids) {
  const q = QUERIES[id]!;
  const parsed = planQuery(q.sql, new Map([['flights', schema]]), DEFAULT_LIMITS);
  const topk = planTopK(parsed, prepared.catalog)!;
  const est = planEstimates(parsed, prepared.catalog, 0).plan;
  const base: ScanPlan = q.exact ? { ...est.scan, partials: est.scan.partials.filter((p) => p.kind !== 'moments') } : est.scan;
  const plan: ScanPlan = { ...base, topk: q.exact ? exactFirstRound(topk) : topk };
  const layout = layoutOf(plan, schema);
  const spec = plan.topk!;
  const leafFrames: Uint8Array[] = [];
  for (const sh of shards) {
    const s = await scanShard(sh, plan, layout, new AbortController().signal);
    const t = truncateTopK(layout, spec, s.partial as ColumnarPartial, null, -Infinity, 1);
    leafFrames.push(encodeFrame(layout, { ...t, provenance: [{ shard: sh.id, status: 'answered', path: `leaf-${sh.id}` }], rowsScanned: sh.rows }));
  }
  const leafGroups = leafFrames.reduce((n, f) => n + (decodeFrame(layout, f).partial as ColumnarPartial).size, 0);
  const best = { agg: Infinity, decode: Infinity, add: Infinity, out: Infinity, root: Infinity };
  for (let rep = 0; rep < reps; rep++) {
    let addMs = 0;
    let outMs = 0;
    let aggMs = 0;
    let aggCpu = 0;
    let decodeMs = 0;
    const aggFrames: Uint8Array[] = [];
    let sent = 0;
    for (let a = 0; a < 10; a++) {
      const c0 = cpu();
      const t0 = performance.now();
      const acc = new PartialAccumulator(layout);
      const tracker = new TopKTracker(layout, spec);
      const prov = [];
      for (let c = 0; c < 10; c++) {
        const d0 = performance.now();
        const f: Frame = decodeFrame(layout, leafFrames[a * 10 + c]!);
        decodeMs += performance.now() - d0;
        const a0 = performance.now();
        acc.add(f.partial);
        tracker.add(f.partial as ColumnarPartial, f.topk);
        addMs += performance.now() - a0;
        prov.push(...f.provenance);
      }
      const o0 = performance.now();
      const merged = acc.result() as ColumnarPartial;
      const t = truncateTopK(layout, spec, merged, tracker.intervals(), tracker.unseen, 10);
      sent += t.partial.size;
      aggFrames.push(encodeFrame(layout, { ...t, provenance: prov, rowsScanned: 0 }));
      outMs += performance.now() - o0;
      aggMs += performance.now() - t0;
      aggCpu += cpu() - c0;
    }
    const c0 = cpu();
    const t0 = performance.now();
    const acc = new PartialAccumulator(layout);
    const tracker = new TopKTracker(layout, spec);
    for (const b of aggFrames) {
      const f = decodeFrame(layout, b);
      acc.add(f.partial);
      tracker.add(f.partial as ColumnarPartial, f.topk);
    }
    const merged = acc.result() as ColumnarPartial;
    const iv = tracker.intervals();
    const rootMs = performance.now() - t0;
    const rootCpu = cpu() - c0;
    best.agg = Math.min(best.agg, aggMs);
    best.decode = Math.min(best.decode, decodeMs);
    best.add = Math.min(best.add, addMs);
    best.out = Math.min(best.out, outMs);
    best.root = Math.min(best.root, rootMs);
    console.log(`${id} rep ${rep + 1}: leaf groups ${leafGroups}, agg->root groups ${sent}, root groups ${merged.size} (${iv.size} intervals); aggregators ${aggMs.toFixed(0)} ms (cpu ${aggCpu.toFixed(0)}, decode ${decodeMs.toFixed(0)}), root merge ${rootMs.toFixed(0)} ms (cpu ${rootCpu.toFixed(0)})`);
  }
  console.log(`${id} best of ${reps}, ms: aggregators ${best.agg.toFixed(0)} = decode ${best.decode.toFixed(0)} + merge ${best.add.toFixed(0)} + result/truncate/encode ${best.out.toFixed(0)}; root ${best.root.toFixed(0)}`);
}
