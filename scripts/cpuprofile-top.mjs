#!/usr/bin/env node
/* global process, console */
/**
 * The top functions of a V8 CPU profile (`node --cpu-prof`, e.g. the hosts of a local tree run
 * with CANOPY_HOST_NODE_FLAGS="--cpu-prof --cpu-prof-dir=DIR" or `CANOPY_BENCH_CPU_PROF=DIR`):
 * self and inclusive time by function and file, ms and % of the busy (non-idle) time.
 *
 * usage: node scripts/cpuprofile-top.mjs FILE.cpuprofile [N (default 15)] [--from US] [--to US]
 *   --from/--to: only samples in that window of the profile's clock (µs, the monotonic clock of
 *   `process.hrtime.bigint() / 1000n` in the profiled machine), e.g. to leave out start-up.
 * Sampled time is wall time while the thread runs JS or a system call: on a loaded machine a
 * system call that wakes another process (a loopback `writev`) also counts the time the thread
 * waited to run again; read CPU from /proc (`npm run bench -- cost --real`) for totals.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

const { values, positionals } = parseArgs({ allowPositionals: true, options: { from: { type: 'string' }, to: { type: 'string' } } });
const [file, topArg] = positionals;
if (file === undefined) {
  console.error('usage: node scripts/cpuprofile-top.mjs FILE.cpuprofile [N] [--from US] [--to US]');
  process.exit(2);
}
const top = Number(topArg ?? 15);
const from = Number(values.from ?? -Infinity);
const to = Number(values.to ?? Infinity);
const p = JSON.parse(readFileSync(file, 'utf8'));
const byId = new Map(p.nodes.map((n) => [n.id, n]));
const parent = new Map();
for (const n of p.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
// Time per sampled node within the window.
const dt = new Map();
let t = p.startTime;
for (let i = 0; i < p.samples.length; i++) {
  t += p.timeDeltas[i] ?? 0;
  if (t < from || t > to) continue;
  dt.set(p.samples[i], (dt.get(p.samples[i]) ?? 0) + (p.timeDeltas[i] ?? 0));
}
const key = (n) => `${n.callFrame.functionName || '(anonymous)'} ${n.callFrame.url.replace(/^file:\/\/.*?\/(node_modules|src|bench|test)\//, '$1/')}`;
const self = new Map();
const incl = new Map();
let total = 0;
let idle = 0;
for (const [id, us] of dt) {
  const n = byId.get(id);
  total += us;
  if (n.callFrame.functionName === '(idle)') idle += us;
  self.set(key(n), (self.get(key(n)) ?? 0) + us);
  // Inclusive: once per function on the stack (recursion counted once).
  const seen = new Set();
  for (let cur = id; cur !== undefined; cur = parent.get(cur)) {
    const k = key(byId.get(cur));
    if (seen.has(k)) continue;
    seen.add(k);
    incl.set(k, (incl.get(k) ?? 0) + us);
  }
}
const busy = total - idle;
console.log(`${file}: ${(total / 1e3).toFixed(0)} ms sampled, ${(busy / 1e3).toFixed(0)} ms busy`);
for (const [title, m] of [['self', self], ['inclusive', incl]]) {
  console.log(`-- ${title}`);
  [...m]
    .filter(([k]) => !k.startsWith('(idle)') && !k.startsWith('(root)'))
    .sort((a, b) => b[1] - a[1])
    .slice(0, top)
    .forEach(([k, us]) => console.log(`${(us / 1e3).toFixed(1).padStart(9)} ms ${((100 * us) / busy).toFixed(1).padStart(5)}%  ${k}`));
}
