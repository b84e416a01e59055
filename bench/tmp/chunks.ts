import path from 'node:path';
import { DEFAULT_DATA_PATH, prepareShards, readShard, schemaOf } from '../../src/data/index.ts';
import { prepareShard, scanShard } from '../../src/leaf/index.ts';
import { layoutOf, mergePartials, encodeFrame, decodeFrame, PartialAccumulator, type Partial } from '../../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../../src/root/index.ts';
const prepared = await prepareShards({ path: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: { kind: 'hash' }, cacheDir: path.resolve('.canopy-cache') });
const shards = prepared.files.slice(0, 10).map((file, id) => { const t = readShard(file); return prepareShard(id, t, schemaOf(t)); });
const tables = new Map([['flights', prepared.catalog.table]]);
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (const sql of ['SELECT date, delay, distance, origin, destination, count(*) FROM flights GROUP BY 1,2,3,4,5', 'SELECT date, origin, count(*) FROM flights GROUP BY date, origin']) {
  const plan = planQuery(sql, tables as any, DEFAULT_LIMITS);
  const layout = layoutOf(plan.scan, prepared.catalog.table);
  const sig = new AbortController().signal;
  for (let rep = 0; rep < 2; rep++) {
  const parts: Partial[] = []; let c = cpu(); let maxScan = 0;
  for (const s of shards) { const c0 = cpu(); parts.push((await scanShard(s, plan.scan, layout, sig)).partial); maxScan = Math.max(maxScan, cpu() - c0); }
  const scanMs = cpu() - c;
  c = cpu(); const frames = parts.map((p) => encodeFrame(layout, { partial: p, provenance: [], rowsScanned: 0 })); const enc = cpu() - c;
  c = cpu(); const dec = frames.map((f) => decodeFrame(layout, f)); const decMs = cpu() - c;
  c = cpu(); const acc = new PartialAccumulator(layout); for (const d of dec) acc.add(d.partial); const merged = acc.result(); const mergeMs = cpu() - c;
  c = cpu(); const big = encodeFrame(layout, { partial: merged, provenance: [], rowsScanned: 0 }); const bigEnc = cpu() - c;
  c = cpu(); decodeFrame(layout, big); const bigDec = cpu() - c;
  console.log(sql.slice(0, 40), { scanMs10: scanMs.toFixed(0), maxScanOne: maxScan.toFixed(0), encodeEach: (enc / 10).toFixed(1), decodeEach: (decMs / 10).toFixed(1), merge10: mergeMs.toFixed(0), groups: (merged as any).size, bigEncode: bigEnc.toFixed(0), bigBytes: big.length, bigDecode: bigDec.toFixed(0), frameBytes: frames[0]!.length });
  }
}
