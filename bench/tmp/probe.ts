import path from 'node:path';
import { startLocalTree } from '../../src/cli/local-tree.ts';
import { DEFAULT_DATA_PATH } from '../../src/data/index.ts';
const SQL = process.env.HEAVY ?? 'SELECT date, delay, distance, origin, destination, count(*) FROM flights GROUP BY 1,2,3,4,5';
const PAR = Number(process.env.PAR ?? 2);
const tree = await startLocalTree({ data: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: { kind: 'hash' }, fanout: 10, port: 0, cacheDir: path.resolve('.canopy-cache'), leafProcesses: 2 });
async function ask(sql: string, trace: boolean) {
  const t0 = performance.now();
  const res = await fetch(`${tree.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql, deadline_ms: 5000, ...(trace ? { trace: true } : {}) }) });
  const body: any = await res.json();
  return { ms: performance.now() - t0, body };
}
const T0 = performance.now();
const lines: string[] = [];
let stop = false;
const probes: Promise<void>[] = [];
const timer = setInterval(() => {
  const at = performance.now() - T0;
  probes.push(ask('SELECT count(*) FROM flights', true).then(({ ms, body }) => {
    const t = body.trace?.timings ?? [];
    let agg = 0, leaf = 0, leafName = '';
    for (const x of t) { if (x.gather === 'root') agg = Math.max(agg, x.elapsed_ms); else if (x.elapsed_ms > leaf) { leaf = x.elapsed_ms; leafName = x.child; } }
    lines.push(`probe at ${at.toFixed(0)} total ${ms.toFixed(0)} root ${body.stats?.elapsed_ms?.toFixed?.(0)} agg ${agg.toFixed(0)} leaf ${leaf.toFixed(0)} (${leafName}) ${body.label ?? body.error?.code}`);
  }));
}, 200);
await new Promise((r) => setTimeout(r, 2000));
lines.push(`heavy start at ${(performance.now() - T0).toFixed(0)}`);
const outs = await Promise.all(Array.from({ length: PAR }, () => ask(SQL, false)));
lines.push(`heavy done at ${(performance.now() - T0).toFixed(0)}: ${outs.map((o) => `${o.ms.toFixed(0)} ${o.body.label ?? o.body.error?.code}`).join(', ')}`);
await new Promise((r) => setTimeout(r, 2500));
clearInterval(timer);
await Promise.all(probes);
console.log(lines.join('\n'));
await tree.close();
