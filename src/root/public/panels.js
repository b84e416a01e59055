// @ts-check
/**
 * The answer's accounting: the coverage bar (answered, pruned, pending, omitted, failed
 * shards), the missing subtrees, and, from the final answer's trace, a timeline per gather
 * with its straggler.
 */
import { $, fmtMs, h, ranges } from './dom.js';

const MAX_MISSING_ROWS = 200;

/** @type {[keyof import('./types.js').Coverage, string][]} */
const SEGMENTS = [
  ['answered', 'answered'],
  ['pruned', 'pruned'],
  ['pending', 'pending'],
  ['omitted', 'omitted (deadline)'],
  ['failed', 'failed'],
];

/** Empties the coverage, missing and timeline panels. */
export function clearPanels() {
  $('coverage-bar').replaceChildren();
  $('coverage-legend').replaceChildren();
  $('coverage-text').textContent = '';
  $('missing').replaceChildren(h('p', { class: 'muted' }, 'none'));
  $('missing-count').textContent = '';
  $('timeline').replaceChildren(h('p', { class: 'muted' }, 'The trace arrives with the final answer.'));
}

/** @param {import('./types.js').Coverage | undefined} c */
export function renderCoverage(c) {
  if (!c) return;
  const total = Math.max(1, c.shards);
  $('coverage-bar').replaceChildren(
    ...SEGMENTS.filter(([k]) => (c[k] ?? 0) > 0).map(([k, name]) => h('div', { class: `seg-${k}`, style: `width:${(100 * (c[k] ?? 0)) / total}%`, title: `${c[k]} ${name}` })),
  );
  const covered = (c.answered ?? 0) + (c.pruned ?? 0);
  $('coverage-text').textContent = `${covered} of ${c.shards} shards covered (${Math.round((1000 * covered) / total) / 10}%)`;
  $('coverage-legend').replaceChildren(
    ...SEGMENTS.filter(([k]) => k !== 'pending' || c.pending !== undefined).map(([k, name]) =>
      h('span', { class: 'item', 'data-kind': k }, h('span', { class: `sw seg-${k}` }), `${name} `, h('b', {}, String(c[k] ?? 0))),
    ),
  );
}

/** @param {import('./types.js').Missing[]} missing */
export function renderMissing(missing) {
  const box = $('missing');
  /** @type {Record<string, number>} */
  const counts = {};
  for (const m of missing) counts[m.reason] = (counts[m.reason] ?? 0) + 1;
  $('missing-count').textContent = missing.length === 0 ? '' : Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ');
  if (missing.length === 0) {
    box.replaceChildren(h('p', { class: 'muted' }, 'none: every shard is accounted for'));
    return;
  }
  /** @type {Record<string, number>} */
  const order = { failed: 0, omitted: 1 };
  const settled = missing.filter((m) => m.reason !== 'pending');
  const pending = missing.filter((m) => m.reason === 'pending');
  const sorted = settled.sort((x, y) => (order[x.reason] ?? 2) - (order[y.reason] ?? 2) || String(x.path).localeCompare(String(y.path), 'en', { numeric: true }));
  const rows = sorted.slice(0, MAX_MISSING_ROWS).map((m) =>
    h(
      'tr',
      { 'data-reason': m.reason },
      h('td', { class: 'path' }, m.path),
      h('td', {}, `shard ${m.shard}`),
      h('td', { class: `reason reason-${m.reason}` }, m.reason),
      h('td', {}, m.error ? h('span', { title: m.error.message }, h('code', {}, m.error.code), ` ${m.error.message}`) : ''),
    ),
  );
  // Shards not heard from yet (progressive snapshots only): one line, not one row each.
  if (pending.length > 0) {
    rows.push(
      h(
        'tr',
        { 'data-reason': 'pending' },
        h('td', { class: 'path' }, [...new Set(pending.map((m) => m.path))].slice(0, 3).join(', ')),
        h('td', {}, `${pending.length} shard${pending.length === 1 ? '' : 's'}`),
        h('td', { class: 'reason reason-pending' }, 'pending'),
        h('td', { class: 'muted' }, `not answered yet: ${ranges(pending.map((m) => m.shard))}`),
      ),
    );
  }
  box.replaceChildren(h('table', {}, h('tbody', {}, ...rows)));
  if (sorted.length > MAX_MISSING_ROWS) box.append(h('p', { class: 'muted' }, `… and ${sorted.length - MAX_MISSING_ROWS} more`));
}

/** @param {import('./types.js').Answer['trace']} trace */
export function renderTimeline(trace) {
  const box = $('timeline');
  if (!trace || !Array.isArray(trace.timings) || trace.timings.length === 0) {
    box.replaceChildren(h('p', { class: 'muted' }, 'no trace in this answer'));
    return;
  }
  const ms = (/** @type {import('./types.js').Timing} */ t) => Number(t.elapsed_ms ?? 0);
  /** @type {Map<string, import('./types.js').Timing[]>} */
  const byGather = new Map();
  for (const t of trace.timings) byGather.set(t.gather, [...(byGather.get(t.gather) ?? []), t]);
  const strag = new Map((trace.stragglers ?? []).map((s) => [s.gather, s]));
  const max = Math.max(1, ...trace.timings.map(ms));
  // The critical path: from the root, follow each gather's last child down.
  /** @type {Set<string>} */
  const critical = new Set();
  /** @type {string | undefined} */
  let g = byGather.has('root') ? 'root' : [...byGather.keys()][0];
  while (g !== undefined && byGather.has(g) && !critical.has(g)) {
    critical.add(g);
    const s = strag.get(g);
    g = s ? `${g}/${s.last_child}` : undefined;
  }
  // And the gather that waited longest for its last child.
  const longest = [...strag.values()].sort((x, y) => y.waited_ms - x.waited_ms)[0];
  if (longest) critical.add(longest.gather);
  const gathers = [...byGather.keys()].sort((x, y) => x.split('/').length - y.split('/').length || x.localeCompare(y, 'en', { numeric: true }));
  const pct = (/** @type {number} */ v) => `${Math.min(100, (100 * v) / max)}%`;
  const axis = h('div', { class: 'axis' }, h('span'), h('span', { class: 'ticks' }, ...[0, 0.25, 0.5, 0.75, 1].map((f) => h('span', {}, `${Math.round(f * max)} ms`))), h('span'));
  const blocks = gathers.map((gather) => {
    const ts = [...(byGather.get(gather) ?? [])].sort((x, y) => ms(x) - ms(y));
    const s = strag.get(gather);
    const summary = h(
      'summary',
      { class: 'gather-head' },
      h('span', { class: 'path' }, gather),
      h('span', { class: 'muted' }, ` · ${ts.length} child${ts.length === 1 ? '' : 'ren'}`),
      s ? h('span', { class: 'muted' }, ` · last: ${s.last_child} at ${fmtMs(s.elapsed_ms)}, waited ${fmtMs(s.waited_ms)} for it`) : null,
    );
    // The last child is the gather's straggler when the gather waited noticeably for it alone.
    const significant = s !== undefined && s.waited_ms >= 2 && s.waited_ms >= 0.25 * s.elapsed_ms;
    const rows = ts.map((t, i) => {
      const last = i === ts.length - 1 && ts.length > 1;
      const prev = i > 0 ? ms(/** @type {import('./types.js').Timing} */ (ts[i - 1])) : 0;
      const outcome = t.outcome ?? 'answered';
      return h(
        'div',
        { class: `row${last ? (significant ? ' last straggler' : ' last') : ''}`, title: `${gather} → ${t.child}: ${outcome} after ${ms(t)} ms (${t.shards} shard${t.shards === 1 ? '' : 's'})` },
        h('span', { class: 'name' }, t.child),
        h(
          'span',
          { class: 'track' },
          h('span', { class: `bar ${outcome}`, style: `width:${pct(ms(t))}` }),
          last && significant ? h('span', { class: 'wait', style: `left:${pct(prev)};width:calc(${pct(ms(t))} - ${pct(prev)})` }) : null,
        ),
        h('span', { class: 'ms' }, `${fmtMs(ms(t))}${outcome !== 'answered' ? ` ${outcome}` : ''}`),
      );
    });
    return h('details', { class: 'gather', 'data-gather': gather, open: critical.has(gather) || gathers.length <= 3 }, summary, ...rows);
  });
  box.replaceChildren(axis, ...blocks);
}
