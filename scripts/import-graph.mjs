// Prints the folder-level import graph of the given directories and any file-level cycle of value imports: `node scripts/import-graph.mjs src bench`.
/* global process, console */
import fs from 'node:fs'; import path from 'node:path';
const files = []; const walk = (d) => { for (const e of fs.readdirSync(d, { withFileTypes: true })) { const p = path.join(d, e.name); if (e.isDirectory()) walk(p); else if (p.endsWith('.ts')) files.push(path.resolve(p)); } };
for (const d of process.argv.slice(2)) walk(d);
const g = new Map();
for (const f of files) { const s = fs.readFileSync(f, 'utf8'); const deps = []; for (const m of s.matchAll(/(?:import|export)\s+(?:type\s+)?[^'"]*?from\s+'(\.[^']+)'|import\('(\.[^']+)'\)/g)) { const spec = m[1] ?? m[2]; if (/^import\s+type|^export\s+type/.test(m[0])) continue; deps.push(path.resolve(path.dirname(f), spec)); } g.set(f, deps); }
// folder-level graph (src/<folder>, bench)
const folder = (f) => { const r = path.relative(process.cwd(), f).split(path.sep); return r[0] === 'src' ? `src/${r[1].replace(/\.ts$/, '')}` : r[0]; };
const fg = new Map();
for (const [f, ds] of g) for (const d of ds) { const a = folder(f), b = folder(d); if (a !== b) { if (!fg.has(a)) fg.set(a, new Set()); fg.get(a).add(b); } }
for (const [a, bs] of [...fg].sort()) console.log(a, '->', [...bs].sort().join(', '));
// file-level cycles
const state = new Map(); const cycles = [];
const dfs = (f, stack) => { state.set(f, 1); stack.push(f); for (const d of g.get(f) ?? []) { if (!g.has(d)) continue; if (state.get(d) === 1) cycles.push(stack.slice(stack.indexOf(d)).concat(d).map((x) => path.relative(process.cwd(), x))); else if (!state.get(d)) dfs(d, stack); } stack.pop(); state.set(f, 2); };
for (const f of g.keys()) if (!state.get(f)) dfs(f, []);
console.log('file cycles (value imports):', cycles.length); for (const c of cycles.slice(0, 10)) console.log('  ', c.join(' -> '));
