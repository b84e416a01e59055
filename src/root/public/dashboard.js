// @ts-check
/**
 * canopy's dashboard, the page's entry module: runs SQL through `POST /v1/query`
 * (`{sql, trace: true, deadline_ms?, exact?}`, read as NDJSON snapshots by stream.js) and draws
 * every snapshot as it arrives: the label, coverage, the chart (chart.js), the table
 * (table.js), the missing subtrees and, from the final answer's trace, the timeline per
 * gather (panels.js). While a new query waits for its first snapshot the previous answer
 * stays greyed; an error clears chart and table and puts the caret where the SQL went wrong
 * (editor.js). Queries run are kept in a history, can be saved with a name and shared as a
 * URL whose fragment holds the query (history.js); the schema panel reads GET /v1/catalog
 * (catalog.js). Exports ask the root for CSV, JSON, Arrow or Parquet.
 * When the root requires a token (CANOPY_API_TOKEN) it answers 401: the page then shows a
 * token field; the token is kept in sessionStorage (this tab only, never in the URL) and sent
 * as `Authorization: Bearer <token>`. Running another query, Stop, or leaving the page aborts
 * the running request, which cancels the query down to the leaves.
 * Plain ES modules, no build step; the chart is uPlot (window.uPlot).
 */
import { $, copyText, download, fmtMs, h, input } from './dom.js';
import { FORMATS, fetchFormat, setToken, streamQuery, token } from './stream.js';
import { AnswerTable } from './table.js';
import { AnswerChart } from './chart.js';
import { chartableColumns } from './chart-model.js';
import { clearCaret, editor, showCaret } from './editor.js';
import { clearPanels, renderCoverage, renderMissing, renderTimeline } from './panels.js';
import { clearHistory, remember, renderLists, save, shareUrl, sharedQuery } from './history.js';
import { renderCatalog } from './catalog.js';

/** @typedef {import('./types.js').Answer} Answer */
/** @typedef {import('./types.js').ApiError} ApiError */

const table = new AnswerTable();
const chart = new AnswerChart();

/** @type {Answer | null} the last answer or snapshot of the running (or last) query */
let latest = null;
let snapshots = 0;
let renderQueued = false;
/** @type {AbortController | null} */
let controller = null;
/** the SQL and request body of the running (or last) query */
let runSql = '';
/** @type {Record<string, unknown>} */
let runBody = {};
/** @type {{sig: string, col: number} | null} the user's chart column for this column set */
let chartChoice = null;

/**
 * @param {string} p idle, streaming, final, error, stopped
 * @param {string} text
 */
function setPhase(p, text) {
  const el = $('phase');
  el.dataset.phase = p;
  el.textContent = text;
  /** @type {HTMLButtonElement} */ ($('run')).disabled = p === 'streaming';
  /** @type {HTMLButtonElement} */ ($('stop')).disabled = p !== 'streaming';
}

/**
 * Greys the previous answer (a query is running and has sent nothing yet), or ends that.
 * @param {boolean} stale
 */
function setStale(stale) {
  const r = $('results');
  if (stale && latest === null && r.dataset.hasAnswer === 'true') r.dataset.stale = 'true';
  else delete r.dataset.stale;
  $('stale-note').hidden = r.dataset.stale !== 'true';
}

/** Clears the answer: chart, table, label and panels. */
function clearAnswer(message = 'Run a query to chart its aggregate.') {
  const lbl = $('answer-label');
  lbl.dataset.label = 'none';
  lbl.textContent = 'no answer';
  $('stats').textContent = '';
  $('render-ms').textContent = '';
  chart.clear(message);
  table.clear();
  clearPanels();
  delete $('results').dataset.hasAnswer;
  setExports(false);
  setStale(false);
}

/** @param {ApiError | null} err */
function showError(err) {
  const box = $('error');
  box.replaceChildren();
  if (err === null) {
    box.hidden = true;
    return;
  }
  box.hidden = false;
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

/**
 * Shows the token field: on a 401 (asking), or while a token is kept (to forget it).
 * @param {boolean} asking
 * @param {string} [message]
 */
function renderAuth(asking, message = '') {
  const has = token() !== '';
  $('auth').hidden = !asking && !has;
  $('auth').dataset.state = asking ? 'asking' : has ? 'kept' : 'none';
  $('auth-message').textContent = asking ? message : has ? 'A token is kept for this tab (sessionStorage) and sent as Authorization: Bearer.' : '';
  $('token-forget').hidden = !has;
  if (asking) {
    input('token').value = '';
    $('token').focus();
  }
}

/**
 * The request body of the form's query.
 * @param {string} sql
 * @returns {Record<string, unknown>}
 */
function requestBody(sql) {
  /** @type {Record<string, unknown>} */
  const body = { sql, trace: true };
  const d = input('deadline');
  const deadline = Number(d.value);
  if (d.value !== '' && Number.isFinite(deadline)) body.deadline_ms = Math.round(deadline);
  if (input('exact').checked) body.exact = true;
  return body;
}

/** Puts the running query into the address bar's fragment (never sent to the server). */
function shareInAddressBar() {
  const url = shareUrl(runSql, /** @type {{deadline_ms?: number, exact?: boolean}} */ (runBody));
  window.history.replaceState(null, '', url);
  input('share-url').value = url;
}

function run() {
  const sql = editor().value.trim();
  if (sql === '') return;
  stop(true);
  runSql = sql;
  runBody = requestBody(sql);
  latest = null;
  snapshots = 0;
  showError(null);
  clearCaret();
  setStale(true);
  $('answer-label').textContent = 'waiting…';
  $('answer-label').dataset.label = 'none';
  setPhase('streaming', 'running…');
  shareInAddressBar();
  const mine = new AbortController();
  controller = mine;
  const body = runBody;
  void streamQuery(body, mine.signal, {
    snapshot: (a) => {
      if (controller !== mine) return;
      snapshots += 1;
      latest = a;
      setPhase('streaming', `streaming: snapshot ${snapshots}`);
      scheduleRender();
    },
    final: (a) => {
      if (controller !== mine) return;
      controller = null;
      latest = a;
      setPhase('final', snapshots > 0 ? `final (after ${snapshots} snapshot${snapshots === 1 ? '' : 's'})` : 'final');
      render();
      remember({ sql, at: new Date().toISOString(), outcome: a.label, rows: a.rows.length, ms: a.stats?.elapsed_ms ?? 0 });
      lists();
      if (catalogRefused && token() !== '') loadCatalog();
    },
    error: (err, sentToken) => {
      if (controller !== mine) return;
      controller = null;
      failed(sql, err, sentToken);
    },
  }).catch((/** @type {any} */ err) => {
    if (controller !== mine) return; // stopped, or another query started
    controller = null;
    if (err?.name === 'AbortError') return;
    setPhase('error', 'connection lost');
    showError({ code: 'CONNECTION', message: latest !== null ? `the connection to the root was lost before the final answer (${err.message}); what is shown is the last snapshot` : `cannot reach the root: ${err.message}` });
  });
}

/**
 * A query that failed: refused before streaming (with its HTTP status) or while streaming.
 * @param {string} sql
 * @param {ApiError} err
 * @param {boolean} sentToken
 */
function failed(sql, err, sentToken) {
  latest = null;
  clearAnswer(`no chart: ${err.code}`);
  $('answer-label').textContent = 'no answer';
  setPhase('error', err.status === undefined ? 'error' : `error: HTTP ${err.status}`);
  if (err.status === 401) {
    if (sentToken) setToken('');
    const why = sentToken ? 'The root refused the token: check it and enter it again.' : 'This root requires an API token (CANOPY_API_TOKEN).';
    renderAuth(true, `${why} It is kept in this tab only and sent as Authorization: Bearer.`);
  }
  showError(err);
  if (err.position) showCaret(sql, err);
  if (err.status !== 401) {
    remember({ sql, at: new Date().toISOString(), outcome: err.code });
    lists();
  }
}

/** @param {boolean} [quiet] */
function stop(quiet = false) {
  if (controller === null) return;
  const c = controller;
  controller = null;
  c.abort();
  if (!quiet) {
    setPhase('stopped', 'stopped: not final');
    if (latest === null) clearAnswer('stopped before the first snapshot');
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

/** The chart column: the user's pick for this column set, else the first aggregate. */
function chartColumn(/** @type {Answer} */ a) {
  const sig = a.columns.map((c) => `${c.name}:${c.type}`).join('|');
  const select = /** @type {HTMLSelectElement} */ ($('chart-col'));
  const cols = chartableColumns(a);
  if (select.dataset.sig !== sig) {
    select.dataset.sig = sig;
    select.replaceChildren(...cols.map((i) => h('option', { value: String(i) }, a.columns[i]?.name ?? '')));
    if (chartChoice?.sig !== sig) chartChoice = { sig, col: cols[0] ?? -1 };
    if (chartChoice.col >= 0) select.value = String(chartChoice.col);
  }
  return chartChoice?.sig === sig ? chartChoice.col : -1;
}

/** The chart type picked, or for `auto` lines over a time or number axis and bars over categories. */
function chartType(/** @type {Answer} */ a) {
  const picked = /** @type {HTMLSelectElement} */ ($('chart-type')).value;
  if (picked === 'line' || picked === 'bar' || picked === 'area') return picked;
  const key = a.roles?.findIndex((r) => r.role === 'group_key' && r.key === 0) ?? -1;
  const t = key >= 0 ? a.columns[key]?.type : undefined;
  return t === 'timestamp' || t === 'date' || t === 'int64' || t === 'float64' ? 'line' : 'bar';
}

function drawChart() {
  const a = latest;
  if (a === null) return;
  chart.show(a, chartColumn(a), chartType(a), Number(/** @type {HTMLSelectElement} */ ($('chart-top')).value));
}

function render() {
  const a = latest;
  if (a === null) return;
  const t0 = performance.now();
  const first = $('results').dataset.stale === 'true' || $('results').dataset.hasAnswer !== 'true';
  setStale(false);
  $('results').dataset.hasAnswer = 'true';
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
  const tt = performance.now();
  table.show(a, !first);
  const tableMs = performance.now() - tt;
  drawChart();
  renderMissing(a.missing ?? []);
  if (a.final) {
    renderTimeline(a.trace);
    setExports(true);
  }
  const total = performance.now() - t0;
  const el = $('render-ms');
  el.textContent = `drawn in ${fmtMs(total)} (table ${fmtMs(tableMs)}, chart ${fmtMs(chart.lastMs)})`;
  el.dataset.ms = String(total);
  el.dataset.tableMs = String(tableMs);
  el.dataset.chartMs = String(chart.lastMs);
}

/** @param {boolean} on */
function setExports(on) {
  for (const b of document.querySelectorAll('#exports button')) /** @type {HTMLButtonElement} */ (b).disabled = !on;
}

/**
 * Downloads the answer in a format the root serves (it runs the query again: the file's
 * label, from x-canopy-label, is reported, and a change from the answer shown is pointed out).
 * @param {keyof typeof FORMATS} format
 */
async function exportAs(format) {
  const status = $('export-status');
  status.textContent = `asking the root for ${format}…`;
  const { trace: _trace, ...body } = runBody;
  const res = await fetchFormat(body, format);
  if (!res.ok) {
    status.textContent = `export failed: ${res.error.status ? `HTTP ${res.error.status} ` : ''}${res.error.code}: ${res.error.message}`;
    return;
  }
  const stamp = new Date().toISOString().replace(/[-:]/g, '').replace(/\..*/, '').replace('T', '-');
  const name = `canopy-${stamp}.${FORMATS[format].ext}`;
  download(res.bytes, res.type, name);
  const shown = latest?.label;
  status.dataset.format = format;
  status.textContent = `${name}: ${res.bytes.byteLength.toLocaleString('en-US')} bytes, ${res.label}${shown !== undefined && res.label !== shown ? ` (the answer shown was ${shown}: the export ran the query again)` : ''}`;
}

let catalogRefused = false;
function loadCatalog() {
  catalogRefused = false;
  void renderCatalog($('catalog'), (e) => {
    catalogRefused = e.status === 401;
  });
}

function lists() {
  renderLists($('history'), $('saved'), (sql, runIt) => {
    editor().value = sql;
    clearCaret();
    if (runIt) run();
  }, lists);
}

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
  const value = input('token').value.trim();
  if (value === '') return;
  setToken(value);
  renderAuth(false);
  run();
});
$('token-forget').addEventListener('click', () => {
  setToken('');
  renderAuth(false);
});
// Leaving the page cancels the running query (the root then cancels it down to the leaves).
window.addEventListener('pagehide', () => stop(true));
$('stop').addEventListener('click', () => stop());
editor().addEventListener('keydown', (e) => {
  if (e.key === 'Enter' && (e.ctrlKey || e.metaKey)) {
    e.preventDefault();
    run();
  }
});
editor().addEventListener('input', () => clearCaret());
for (const b of document.querySelectorAll('button.example')) {
  b.addEventListener('click', () => {
    editor().value = /** @type {HTMLElement} */ (b).dataset.sql ?? '';
    run();
  });
}
$('chart-col').addEventListener('change', (e) => {
  const sel = /** @type {HTMLSelectElement} */ (e.target);
  chartChoice = { sig: sel.dataset.sig ?? '', col: Number(sel.value) };
  drawChart();
});
$('chart-type').addEventListener('change', drawChart);
$('chart-top').addEventListener('change', drawChart);
for (const b of document.querySelectorAll('#exports button[data-format]')) {
  b.addEventListener('click', () => void exportAs(/** @type {keyof typeof FORMATS} */ (/** @type {HTMLElement} */ (b).dataset.format)));
}
$('copy-tsv').addEventListener('click', async () => {
  const text = table.tsv();
  await copyText(text);
  $('export-status').textContent = `copied ${(table.order.length).toLocaleString('en-US')} rows as TSV`;
});
$('share').addEventListener('click', async () => {
  const url = shareUrl(editor().value.trim(), /** @type {{deadline_ms?: number, exact?: boolean}} */ (requestBody('')));
  input('share-url').value = url;
  await copyText(url);
  $('share-status').textContent = 'link copied: the query is in the fragment (#), which is never sent to the server';
});
$('save-form').addEventListener('submit', (e) => {
  e.preventDefault();
  const name = input('save-name').value.trim();
  const sql = editor().value.trim();
  if (name === '' || sql === '') return;
  save(name, sql);
  input('save-name').value = '';
  lists();
});
$('history-clear').addEventListener('click', () => {
  clearHistory();
  lists();
});
let resizeQueued = false;
window.addEventListener('resize', () => {
  if (resizeQueued || !latest) return;
  resizeQueued = true;
  requestAnimationFrame(() => {
    resizeQueued = false;
    drawChart();
  });
});
// Opening a shared link (or going back to one): the query in the fragment runs.
window.addEventListener('hashchange', () => {
  const q = sharedQuery(location.href);
  if (q !== null && q.sql.trim() !== runSql) openShared(q);
});

/** @param {{sql: string, deadline_ms?: number, exact?: boolean}} q */
function openShared(q) {
  editor().value = q.sql;
  if (q.deadline_ms !== undefined) input('deadline').value = String(q.deadline_ms);
  input('exact').checked = q.exact === true;
  run();
}

renderAuth(false);
setExports(false);
lists();
loadCatalog();
const initial = sharedQuery(location.href);
if (initial !== null) openShared(initial);
void health();
setInterval(() => void health(), 15000);
