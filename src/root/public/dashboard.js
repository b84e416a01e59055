/* global document, window, fetch, AbortController, TextDecoder, URLSearchParams, URL, location, history, requestAnimationFrame, devicePixelRatio, setInterval, uPlot */
/**
 * canopy's dashboard: runs SQL through `POST /v1/query` (`{sql, trace: true, deadline_ms?,
 * exact?}`) with `Accept: application/x-ndjson`, reads the streamed snapshots from the
 * response body (one JSON per line, the last with `final: true`, or `{error, final: true}`)
 * and draws every snapshot as it arrives: the
 * answer's label, coverage, a chart of one aggregate column with [lo, hi] whiskers, the
 * table with per-cell labels and bounds, the missing subtrees, and, from the final answer's
 * trace, a timeline per gather showing which child was last (the straggler).
 * When the root requires a token (CANOPY_API_TOKEN) it answers 401: the page then shows a
 * token field; the token is kept in sessionStorage (this tab only, never in the URL) and
 * sent as `Authorization: Bearer <token>`. Running another query, Stop, or leaving the page
 * aborts the running request (AbortController), which cancels the query down to the leaves.
 * Plain browser JavaScript, no build step; the chart is uPlot (window.uPlot).
 */

const MAX_TABLE_ROWS = 1000;
const MAX_CHART_ROWS = 60;
const MAX_MISSING_ROWS = 200;
const NUMERIC = new Set(['int64', 'int128', 'float64']);
const COLORS = { exact: '#4a7fd8', bounded: '#9dbcf0', approximate: '#e5a15c', whisker: '#1b3f80' };

const $ = (id) => document.getElementById(id);

/** Creates an element with attributes and children (strings become text). */
function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = v;
    else if (k === 'style') el.setAttribute('style', v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c instanceof window.Node ? c : String(c));
  return el;
}

// ---------------------------------------------------------------- values

/** Shortens an ISO timestamp (UTC): drops a zero time, zero seconds and zero milliseconds. */
function fmtTime(iso) {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})(\.\d{3})Z$/.exec(String(iso));
  if (!m) return String(iso);
  const [, date, hm, sec, frac] = m;
  if (hm === '00:00' && sec === ':00' && frac === '.000') return date;
  return `${date} ${hm}${sec === ':00' && frac === '.000' ? '' : sec}${frac === '.000' ? '' : frac}`;
}

/** Formats one JSON value of a column type for display. */
function fmt(v, type) {
  if (v === null || v === undefined) return 'NULL';
  if (type === 'timestamp') return fmtTime(v);
  if (type === 'int64' || type === 'int128') {
    if (typeof v === 'number') return v.toLocaleString('en-US');
    return /^-?\d+$/.test(v) ? BigInt(v).toLocaleString('en-US') : String(v);
  }
  if (type === 'float64') {
    if (typeof v !== 'number') return String(v);
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e15 || a < 1e-4)) return v.toExponential(4);
    return v.toLocaleString('en-US', { maximumFractionDigits: a >= 1000 ? 1 : 4 });
  }
  return String(v);
}

/** Milliseconds, to 0.1 ms. */
function fmtMs(v) {
  return `${Number(v).toLocaleString('en-US', { maximumFractionDigits: 1 })} ms`;
}

/** Compresses shard ids into ranges: 0–9, 13, 20–29. */
function ranges(ids) {
  const sorted = [...ids].sort((x, y) => x - y);
  const out = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === sorted[j] + 1) j += 1;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/** A JSON value as a plain number for the chart (decimal strings and "NaN" included). */
function num(v) {
  if (v === null || v === undefined) return null;
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

// ---------------------------------------------------------------- state

let latest = null; // last answer or snapshot
let snapshots = 0;
let renderQueued = false;
let chart = null;
let chartChoice = null; // {sig, col}: the user's choice of chart column for this column set
let runSql = '';

function setPhase(p, text) {
  const el = $('phase');
  el.dataset.phase = p;
  el.textContent = text;
  $('run').disabled = p === 'streaming';
  $('stop').disabled = p !== 'streaming';
}

function showError(err) {
  const box = $('error');
  box.replaceChildren();
  if (err === null) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
  if ($('answer-label').dataset.label === 'none') $('answer-label').textContent = 'no answer';
  if (err.status !== undefined) box.append(h('span', { class: 'http-status' }, `HTTP ${err.status}`), ' ');
  box.append(h('code', {}, err.code ?? 'ERROR'), ': ', err.message ?? String(err));
  if (err.position) box.append(`\n(line ${err.position.line}, column ${err.position.column})`);
  if (err.retryAfter !== undefined) box.append(`\nretry after ${err.retryAfter} s`);
  const missing = err.details?.missing;
  if (Array.isArray(missing) && missing.length > 0) {
    box.append(`\nmissing shards: ${missing.length}`);
    renderMissing(missing);
  }
}

// ---------------------------------------------------------------- running

const TOKEN_KEY = 'canopy.apiToken';
const LONG_URL = 4000; // longer SQL is not mirrored into the address bar (a reload would be a long GET)

let controller = null; // the running query's AbortController

/** The API token the user gave in this tab (sessionStorage), or '' when none. */
function token() {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

function setToken(value) {
  try {
    if (value === '') window.sessionStorage.removeItem(TOKEN_KEY);
    else window.sessionStorage.setItem(TOKEN_KEY, value);
  } catch {
    // Storage disabled: the token lives only in the field until the page is closed.
  }
  renderAuth(false);
}

/** Shows the token field: on a 401 (asking), or while a token is kept (to forget it). */
function renderAuth(asking, message = '') {
  const has = token() !== '';
  $('auth').hidden = !asking && !has;
  $('auth').dataset.state = asking ? 'asking' : has ? 'kept' : 'none';
  $('auth-message').textContent = asking
    ? message
    : has
      ? 'A token is kept for this tab (sessionStorage) and sent as Authorization: Bearer.'
      : '';
  $('token-forget').hidden = !has;
  if (asking) {
    $('token').value = '';
    $('token').focus();
  }
}

/** The request body of the form's query (POST /v1/query). */
function requestBody(sql) {
  const body = { sql, trace: true };
  const deadline = Number($('deadline').value);
  if ($('deadline').value !== '' && Number.isFinite(deadline)) body.deadline_ms = Math.round(deadline);
  if ($('exact').checked) body.exact = true;
  return body;
}

function run() {
  const sql = $('sql').value.trim();
  if (sql === '') return;
  stop(true);
  runSql = sql;
  latest = null;
  snapshots = 0;
  showError(null);
  clearAnswer();
  const search = `?${new URLSearchParams({ sql })}`;
  history.replaceState(null, '', search.length <= LONG_URL ? search : location.pathname);
  setPhase('streaming', 'running…');
  const mine = new AbortController();
  controller = mine;
  const headers = { 'content-type': 'application/json', accept: 'application/x-ndjson' };
  const sent = token();
  if (sent !== '') headers.authorization = `Bearer ${sent}`;
  void stream(mine, headers, requestBody(sql), sent !== '').catch((err) => {
    if (controller !== mine) return; // stopped, or another query started
    controller = null;
    if (err?.name === 'AbortError') return;
    setPhase('error', 'error');
    if (latest !== null) {
      showError({ code: 'CONNECTION', message: `the connection to the root was lost before the final answer (${err.message}); what is shown is the last snapshot` });
    } else showError({ code: 'CONNECTION', message: `cannot reach the root: ${err.message}` });
  });
}

/**
 * POSTs the query with Accept: application/x-ndjson and draws each line (one JSON snapshot
 * per line, the last with final: true, or {error, final: true}) as it arrives.
 */
async function stream(mine, headers, body, sentToken) {
  const res = await fetch('/v1/query', { method: 'POST', headers, body: JSON.stringify(body), signal: mine.signal });
  if (controller !== mine) return;
  if (!res.ok) {
    await refused(mine, res, sentToken);
    return;
  }
  if (!(res.headers.get('content-type') ?? '').includes('ndjson')) {
    // Not a stream (a proxy that rewrote Accept, say): the whole body is the answer.
    const whole = await res.json();
    if (controller === mine) finish(mine, whole);
    return;
  }
  const reader = res.body.getReader();
  mine.signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (controller !== mine) return;
    buf += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line === '') continue;
      const msg = JSON.parse(line);
      if (msg.error || msg.final) {
        finish(mine, msg);
        // Read to the end (the root closes the stream after the final line), so the request completes.
        while (!(await reader.read()).done);
        return;
      }
      snapshots += 1;
      latest = msg;
      setPhase('streaming', `streaming: snapshot ${snapshots}`);
      scheduleRender();
    }
    if (done) break;
  }
  if (buf.trim() !== '') {
    finish(mine, JSON.parse(buf));
    return;
  }
  controller = null;
  setPhase('error', 'connection lost');
  showError({ code: 'CONNECTION', message: 'the connection to the root was lost before the final answer; what is shown is the last snapshot' });
}

/** The final line (or whole JSON answer): the answer, or an error found while streaming. */
function finish(mine, body) {
  if (controller === mine) controller = null;
  if (body.error) {
    // Draw the last snapshot now, so that a queued redraw cannot cover the error's missing list.
    if (latest !== null) render();
    latest = null;
    setPhase('error', 'error');
    showError(body.error);
    return;
  }
  latest = body;
  setPhase('final', snapshots > 0 ? `final (after ${snapshots} snapshot${snapshots === 1 ? '' : 's'})` : 'final');
  render();
}

/** A request refused before streaming (400, 401, 406, 413, 503...): show its status and error. */
async function refused(mine, res, sentToken) {
  const text = await res.text();
  if (controller !== mine) return;
  controller = null;
  let err;
  try {
    err = JSON.parse(text).error;
  } catch {
    err = undefined;
  }
  err ??= { code: `HTTP ${res.status}`, message: text.slice(0, 500) || res.statusText };
  setPhase('error', `error: HTTP ${res.status}`);
  if (res.status === 401) {
    if (sentToken) setToken('');
    const why = sentToken ? 'The root refused the token: check it and enter it again.' : 'This root requires an API token (CANOPY_API_TOKEN).';
    renderAuth(true, `${why} It is kept in this tab only and sent as Authorization: Bearer.`);
  }
  const retry = res.headers.get('retry-after');
  showError({ ...err, status: res.status, ...(retry ? { retryAfter: retry } : {}) });
}

function stop(quiet = false) {
  if (controller !== null) {
    const c = controller;
    controller = null;
    c.abort();
    if (!quiet) setPhase('stopped', 'stopped: not final');
  }
}

function scheduleRender() {
  if (renderQueued) return;
  renderQueued = true;
  requestAnimationFrame(() => {
    renderQueued = false;
    render();
  });
}

// ---------------------------------------------------------------- rendering

function clearAnswer() {
  const lbl = $('answer-label');
  lbl.dataset.label = 'none';
  lbl.textContent = 'waiting…';
  $('stats').textContent = '';
  $('coverage-bar').replaceChildren();
  $('coverage-legend').replaceChildren();
  $('coverage-text').textContent = '';
  $('answer').replaceChildren();
  $('rows-note').textContent = '';
  $('missing').replaceChildren(h('p', { class: 'muted' }, 'none'));
  $('missing-count').textContent = '';
  $('timeline').replaceChildren(h('p', { class: 'muted' }, 'The trace arrives with the final answer.'));
}

function render() {
  const a = latest;
  if (a === null) return;
  const lbl = $('answer-label');
  lbl.dataset.label = a.label;
  lbl.textContent = a.final ? a.label : `${a.label} so far`;
  lbl.title = a.final ? `the answer is ${a.label}` : 'a progressive snapshot: the label of what has arrived so far';
  const s = a.stats ?? {};
  const parts = [];
  if (s.elapsed_ms !== undefined) parts.push(fmtMs(s.elapsed_ms));
  if (s.rows_scanned !== undefined) parts.push(`${Number(s.rows_scanned).toLocaleString('en-US')} rows scanned`);
  if (s.round_trips !== undefined && s.round_trips > 1) parts.push(`${s.round_trips} round trips`);
  $('stats').textContent = parts.join(' · ');
  renderCoverage(a.coverage);
  renderTable(a);
  renderChart(a);
  renderMissing(a.missing ?? []);
  if (a.final) renderTimeline(a.trace);
}

const SEGMENTS = [
  ['answered', 'answered'],
  ['pruned', 'pruned'],
  ['pending', 'pending'],
  ['omitted', 'omitted (deadline)'],
  ['failed', 'failed'],
];

function renderCoverage(c) {
  if (!c) return;
  const total = Math.max(1, c.shards);
  const bar = $('coverage-bar');
  bar.replaceChildren(
    ...SEGMENTS.filter(([k]) => (c[k] ?? 0) > 0).map(([k, name]) => h('div', { class: `seg-${k}`, style: `width:${(100 * c[k]) / total}%`, title: `${c[k]} ${name}` })),
  );
  const covered = (c.answered ?? 0) + (c.pruned ?? 0);
  $('coverage-text').textContent = `${covered} of ${c.shards} shards covered (${Math.round((1000 * covered) / total) / 10}%)`;
  $('coverage-legend').replaceChildren(
    ...SEGMENTS.filter(([k]) => k !== 'pending' || c.pending !== undefined).map(([k, name]) =>
      h('span', { class: 'item', 'data-kind': k }, h('span', { class: `sw seg-${k}` }), `${name} `, h('b', {}, String(c[k] ?? 0))),
    ),
  );
}

function cellOf(a, r, c) {
  return a.cells?.[r]?.[c] ?? null;
}

function renderTable(a) {
  const table = $('answer');
  const head = h('tr', {}, ...a.columns.map((col) => h('th', {}, col.name, h('span', { class: 'type' }, col.type === 'timestamp' ? 'timestamp, UTC' : col.type))));
  const rows = a.rows.slice(0, MAX_TABLE_ROWS).map((row, r) =>
    h(
      'tr',
      {},
      ...row.map((v, c) => {
        const type = a.columns[c].type;
        const cell = cellOf(a, r, c);
        const cls = [NUMERIC.has(type) ? 'num' : '', v === null ? 'null' : '', cell ? `cell-${cell.label}` : ''].filter(Boolean).join(' ');
        const td = h('td', { class: cls, title: v === null ? 'NULL' : String(v) }, fmt(v, type));
        if (cell) {
          td.append(' ', h('span', { class: 'badge small', 'data-label': cell.label }, cell.label));
          const b = [];
          if (cell.lo != null || cell.hi != null) b.push(`[${cell.lo == null ? '−∞' : fmt(cell.lo, type)}, ${cell.hi == null ? '+∞' : fmt(cell.hi, type)}]`);
          if (typeof cell.stderr === 'number') b.push(`± ${fmt(cell.stderr, 'float64')}${typeof cell.confidence === 'number' ? ` (${Math.round(cell.confidence * 100)}%)` : ''}`);
          if (b.length > 0) td.append(h('span', { class: 'bounds' }, b.join(' ')));
        }
        return td;
      }),
    ),
  );
  table.replaceChildren(h('thead', {}, head), h('tbody', {}, ...rows));
  const notes = [`${a.rows.length.toLocaleString('en-US')} row${a.rows.length === 1 ? '' : 's'}`];
  if (a.rows.length > MAX_TABLE_ROWS) notes.push(`first ${MAX_TABLE_ROWS} shown`);
  if (a.rows_complete === false) notes.push(a.missing.length > 0 ? 'row set not proven complete: a missing shard may hold other groups' : 'row set not proven complete: values near the LIMIT cut-off are not exact');
  $('rows-note').textContent = notes.join(' · ');
}

// ---------------------------------------------------------------- chart

/** Index of the first aggregate in the SELECT list, when the list can be read off the SQL. */
function aggregateFromSql(sql, ncols) {
  const m = /^\s*select\s+([\s\S]*?)\s+from\s/i.exec(sql);
  if (!m) return -1;
  const items = [];
  let depth = 0;
  let quote = null;
  let cur = '';
  for (const ch of m[1]) {
    if (quote) {
      if (ch === quote) quote = null;
    } else if (ch === "'" || ch === '"') quote = ch;
    else if (ch === '(') depth += 1;
    else if (ch === ')') depth -= 1;
    else if (ch === ',' && depth === 0) {
      items.push(cur);
      cur = '';
      continue;
    }
    cur += ch;
  }
  items.push(cur);
  if (items.length !== ncols) return -1;
  return items.findIndex((it) => /^\s*(count|sum|min|max|avg|approx_\w+|median)\s*\(/i.test(it));
}

function defaultChartColumn(a) {
  const fromSql = aggregateFromSql(runSql, a.columns.length);
  if (fromSql >= 0 && NUMERIC.has(a.columns[fromSql].type)) return fromSql;
  // Else the first numeric column after a group key, else the first numeric column.
  const afterKey = a.columns.findIndex((c, i) => i > 0 && NUMERIC.has(c.type) && !NUMERIC.has(a.columns[i - 1].type));
  return afterKey >= 0 ? afterKey : a.columns.findIndex((c) => NUMERIC.has(c.type));
}

function chartColumn(a) {
  const sig = a.columns.map((c) => `${c.name}:${c.type}`).join('|');
  const select = $('chart-col');
  if (select.dataset.sig !== sig) {
    select.dataset.sig = sig;
    select.replaceChildren(...a.columns.map((c, i) => (NUMERIC.has(c.type) ? h('option', { value: String(i) }, c.name) : null)));
    if (chartChoice?.sig !== sig) chartChoice = { sig, col: defaultChartColumn(a) };
    if (chartChoice.col >= 0) select.value = String(chartChoice.col);
  }
  return chartChoice?.sig === sig ? chartChoice.col : -1;
}

function renderChart(a) {
  const box = $('chart');
  const col = chartColumn(a);
  if (chart) {
    chart.destroy();
    chart = null;
  }
  if (col < 0 || a.rows.length === 0) {
    box.replaceChildren(h('p', { class: 'muted' }, a.rows.length === 0 ? 'no rows' : 'no numeric column to chart'));
    return;
  }
  const n = Math.min(a.rows.length, MAX_CHART_ROWS);
  const keys = a.columns.map((c, i) => i).filter((i) => i !== col && !NUMERIC.has(a.columns[i].type)).slice(0, 2);
  const labels = [];
  const xs = [];
  const ys = [];
  const los = [];
  const his = [];
  const kinds = [];
  for (let r = 0; r < n; r++) {
    const row = a.rows[r];
    xs.push(r);
    // The group keys (or the first non-numeric columns of a row query), short enough for an axis.
    const parts = keys.map((k) => fmt(row[k], a.columns[k].type));
    const both = parts.join(' · ');
    const label = keys.length === 0 ? String(r + 1) : both.length <= 16 ? both : parts[0];
    labels.push(label.length > 20 ? `${label.slice(0, 19)}…` : label);
    ys.push(num(row[col]));
    const cell = cellOf(a, r, col);
    los.push(cell ? num(cell.lo) : null);
    his.push(cell ? num(cell.hi) : null);
    kinds.push(cell ? cell.label : 'exact');
  }
  const finite = [...ys, ...los, ...his].filter((v) => v !== null);
  const line = keys.length === 1 && a.columns[keys[0]].type === 'timestamp' && n > 1;
  let lo = Math.min(...finite, line ? Infinity : 0);
  let hi = Math.max(...finite, line ? -Infinity : 0);
  if (!Number.isFinite(lo) || !Number.isFinite(hi)) [lo, hi] = [0, 1];
  if (lo === hi) [lo, hi] = [lo - 1, hi + 1];
  const pad = (hi - lo) * 0.06;
  const yRange = [lo < 0 || line ? lo - pad : 0, hi + pad];
  const rotate = n > 6 || labels.some((l) => l.length > 8);
  const step = Math.max(1, Math.ceil(n / 30));
  const width = Math.max(300, box.clientWidth || 600);
  const name = a.columns[col].name;
  const whiskers = (u) => {
    const ctx = u.ctx;
    const dpr = devicePixelRatio || 1;
    ctx.save();
    ctx.strokeStyle = COLORS.whisker;
    ctx.lineWidth = 1.5 * dpr;
    const cap = Math.min(8, (u.bbox.width / dpr / n) * 0.25) * dpr;
    for (let i = 0; i < n; i++) {
      if (los[i] === null && his[i] === null) continue;
      const x = u.valToPos(i, 'x', true);
      const y0 = u.valToPos(los[i] ?? ys[i] ?? 0, 'y', true);
      const y1 = u.valToPos(his[i] ?? ys[i] ?? 0, 'y', true);
      ctx.beginPath();
      ctx.moveTo(x, y0);
      ctx.lineTo(x, y1);
      if (los[i] !== null) {
        ctx.moveTo(x - cap, y0);
        ctx.lineTo(x + cap, y0);
      }
      if (his[i] !== null) {
        ctx.moveTo(x - cap, y1);
        ctx.lineTo(x + cap, y1);
      }
      ctx.stroke();
    }
    // Points of a line chart, coloured by their cell's label like the bars.
    if (line) {
      for (let i = 0; i < n; i++) {
        if (ys[i] === null) continue;
        ctx.beginPath();
        ctx.fillStyle = kinds[i] === 'exact' ? COLORS.exact : COLORS[kinds[i]] ?? COLORS.exact;
        ctx.strokeStyle = COLORS.exact;
        ctx.lineWidth = 1.5 * dpr;
        ctx.arc(u.valToPos(i, 'x', true), u.valToPos(ys[i], 'y', true), 4 * dpr, 0, 2 * Math.PI);
        ctx.fill();
        ctx.stroke();
      }
    }
    ctx.restore();
  };
  const series = line
    ? { label: name, stroke: COLORS.exact, width: 2, points: { show: false } }
    : {
        label: name,
        width: 0,
        fill: COLORS.exact,
        points: { show: false },
        paths: uPlot.paths.bars({ size: [0.6, 48], disp: { fill: { unit: 3, values: () => kinds.map((k) => COLORS[k] ?? COLORS.exact) } } }),
      };
  box.replaceChildren();
  chart = new uPlot(
    {
      width,
      height: 280,
      legend: { show: false },
      cursor: { drag: { x: false, y: false }, points: { show: false } },
      scales: { x: { time: false, range: [-0.5, n - 0.5] }, y: { range: () => yRange } },
      axes: [
        {
          splits: () => xs.filter((i) => i % step === 0),
          values: (_u, splits) => splits.map((i) => labels[i] ?? ''),
          rotate: rotate ? 35 : 0,
          size: rotate ? Math.min(120, 24 + 5 * Math.max(...labels.map((l) => l.length))) : 40,
          gap: 4,
          grid: { show: false },
        },
        { size: 70, label: name, labelSize: 18 },
      ],
      series: [{}, series],
      hooks: { draw: [whiskers] },
    },
    [xs, ys],
    box,
  );
  const legend = h(
    'div',
    { class: 'legend' },
    ...['exact', 'bounded', 'approximate'].filter((k) => kinds.includes(k)).map((k) => h('span', {}, h('span', { class: 'sw', style: `background:${COLORS[k]}` }), k)),
    los.some((v) => v !== null) || his.some((v) => v !== null) ? h('span', {}, h('span', { class: 'sw', style: `background:${COLORS.whisker};width:2px` }), kinds.includes('approximate') ? '[lo, hi]: guaranteed if bounded, 99 % interval if approximate' : 'guaranteed [lo, hi]') : null,
    a.rows.length > n ? h('span', { class: 'muted' }, `first ${n} of ${a.rows.length} rows`) : null,
  );
  box.append(legend);
}

// ---------------------------------------------------------------- missing

function renderMissing(missing) {
  const box = $('missing');
  const counts = {};
  for (const m of missing) counts[m.reason] = (counts[m.reason] ?? 0) + 1;
  $('missing-count').textContent = missing.length === 0 ? '' : Object.entries(counts).map(([k, v]) => `${v} ${k}`).join(', ');
  if (missing.length === 0) {
    box.replaceChildren(h('p', { class: 'muted' }, 'none: every shard is accounted for'));
    return;
  }
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

// ---------------------------------------------------------------- timeline

function renderTimeline(trace) {
  const box = $('timeline');
  if (!trace || !Array.isArray(trace.timings) || trace.timings.length === 0) {
    box.replaceChildren(h('p', { class: 'muted' }, 'no trace in this answer'));
    return;
  }
  const ms = (t) => Number(t.elapsed_ms ?? 0);
  const byGather = new Map();
  for (const t of trace.timings) byGather.set(t.gather, [...(byGather.get(t.gather) ?? []), t]);
  const strag = new Map((trace.stragglers ?? []).map((s) => [s.gather, s]));
  const max = Math.max(1, ...trace.timings.map(ms));
  // The critical path: from the root, follow each gather's last child down.
  const critical = new Set();
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
  const pct = (v) => `${Math.min(100, (100 * v) / max)}%`;
  const axis = h('div', { class: 'axis' }, h('span'), h('span', { class: 'ticks' }, ...[0, 0.25, 0.5, 0.75, 1].map((f) => h('span', {}, `${Math.round(f * max)} ms`))), h('span'));
  const blocks = gathers.map((gather) => {
    const ts = [...byGather.get(gather)].sort((x, y) => ms(x) - ms(y));
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
      const prev = i > 0 ? ms(ts[i - 1]) : 0;
      return h(
        'div',
        { class: `row${last ? (significant ? ' last straggler' : ' last') : ''}`, title: `${gather} → ${t.child}: ${t.outcome ?? 'answered'} after ${ms(t)} ms (${t.shards} shard${t.shards === 1 ? '' : 's'})` },
        h('span', { class: 'name' }, t.child),
        h(
          'span',
          { class: 'track' },
          h('span', { class: `bar ${t.outcome ?? 'answered'}`, style: `width:${pct(ms(t))}` }),
          last && significant ? h('span', { class: 'wait', style: `left:${pct(prev)};width:calc(${pct(ms(t))} - ${pct(prev)})` }) : null,
        ),
        h('span', { class: 'ms' }, `${fmtMs(ms(t))}${t.outcome && t.outcome !== 'answered' ? ` ${t.outcome}` : ''}`),
      );
    });
    return h('details', { class: 'gather', 'data-gather': gather, open: critical.has(gather) || gathers.length <= 3 }, summary, ...rows);
  });
  box.replaceChildren(axis, ...blocks);
}

// ---------------------------------------------------------------- wiring

async function health() {
  const el = $('health');
  try {
    const r = await fetch('/healthz');
    el.className = r.ok ? 'health ok' : 'health bad';
    el.textContent = r.ok ? 'root ready' : 'root loading shards';
  } catch {
    el.className = 'health bad';
    el.textContent = 'root unreachable';
  }
}

$('run').addEventListener('click', run);
$('auth').addEventListener('submit', (e) => {
  e.preventDefault();
  const value = $('token').value.trim();
  if (value === '') return;
  setToken(value);
  run();
});
$('token-forget').addEventListener('click', () => setToken(''));
// Leaving the page cancels the running query (the root then cancels it down to the leaves).
window.addEventListener('pagehide', () => stop(true));
$('stop').addEventListener('click', () => stop());
$('sql').addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
});
for (const b of document.querySelectorAll('button.example')) {
  b.addEventListener('click', () => {
    $('sql').value = b.dataset.sql;
    run();
  });
}
$('chart-col').addEventListener('change', (e) => {
  const sig = $('chart-col').dataset.sig;
  chartChoice = { sig, col: Number(e.target.value) };
  if (latest) renderChart(latest);
});
let resizeQueued = false;
window.addEventListener('resize', () => {
  if (resizeQueued || !latest) return;
  resizeQueued = true;
  requestAnimationFrame(() => {
    resizeQueued = false;
    renderChart(latest);
  });
});

renderAuth(false);
const initial = new URL(location.href).searchParams.get('sql');
if (initial) {
  $('sql').value = initial;
  run();
}
void health();
setInterval(() => void health(), 15000);
