// @ts-check
/**
 * Queries kept in the browser: the history of queries run (localStorage, the 50 most recent,
 * a query run again moves to the top), saved queries with names (localStorage), and the
 * shareable URL: the query in the fragment (`#q=...&deadline=...&exact=1`), which browsers
 * never send to the server, so opening a shared link runs the query with a POST.
 */
import { h } from './dom.js';

const HISTORY_KEY = 'canopy.history';
const SAVED_KEY = 'canopy.saved';
const MAX_HISTORY = 50;

/**
 * @typedef {object} HistoryEntry
 * @property {string} sql
 * @property {string} at ISO time it ran
 * @property {string} outcome the label, or the error code
 * @property {number} [rows]
 * @property {number} [ms] elapsed_ms
 */

/**
 * @typedef {object} SavedQuery
 * @property {string} name
 * @property {string} sql
 */

/**
 * @template T
 * @param {string} key
 * @returns {T[]}
 */
function load(key) {
  try {
    const v = JSON.parse(window.localStorage.getItem(key) ?? '[]');
    return Array.isArray(v) ? v : [];
  } catch {
    return [];
  }
}

/**
 * @param {string} key
 * @param {unknown[]} list
 */
function store(key, list) {
  try {
    window.localStorage.setItem(key, JSON.stringify(list));
  } catch {
    // Storage full or disabled: the list lives until the page is closed.
  }
}

/** @returns {HistoryEntry[]} most recent first */
export function history() {
  return load(HISTORY_KEY);
}

/**
 * Records a query that ran (or failed).
 * @param {HistoryEntry} entry
 */
export function remember(entry) {
  store(HISTORY_KEY, [entry, ...history().filter((e) => e.sql !== entry.sql)].slice(0, MAX_HISTORY));
}

/** Forgets the history. */
export function clearHistory() {
  store(HISTORY_KEY, []);
}

/** @returns {SavedQuery[]} by name */
export function saved() {
  return load(SAVED_KEY);
}

/**
 * Saves a query under a name (replacing one of the same name).
 * @param {string} name
 * @param {string} sql
 */
export function save(name, sql) {
  const list = [...saved().filter((q) => q.name !== name), { name, sql }].sort((x, y) => x.name.localeCompare(y.name));
  store(SAVED_KEY, list);
}

/** @param {string} name */
export function unsave(name) {
  store(SAVED_KEY, saved().filter((q) => q.name !== name));
}

/**
 * The shareable URL of a query: this page with the query in the fragment.
 * @param {string} sql
 * @param {{deadline_ms?: number, exact?: boolean}} opts
 */
export function shareUrl(sql, opts) {
  const p = new URLSearchParams({ q: sql });
  if (opts.deadline_ms !== undefined && opts.deadline_ms !== 30000) p.set('deadline', String(opts.deadline_ms));
  if (opts.exact) p.set('exact', '1');
  return `${location.origin}${location.pathname}#${p}`;
}

/**
 * The query a URL's fragment holds (or, from older links, its `?sql=` parameter).
 * @param {string} href
 * @returns {{sql: string, deadline_ms?: number, exact?: boolean} | null}
 */
export function sharedQuery(href) {
  const url = new URL(href);
  const p = new URLSearchParams(url.hash.slice(1));
  const sql = p.get('q') ?? url.searchParams.get('sql');
  if (sql === null || sql.trim() === '') return null;
  const deadline = Number(p.get('deadline'));
  return { sql, ...(p.has('deadline') && Number.isFinite(deadline) ? { deadline_ms: deadline } : {}), ...(p.get('exact') === '1' ? { exact: true } : {}) };
}

/**
 * Draws the history and saved lists; a click on an entry hands its SQL to `pick`.
 * @param {HTMLElement} historyBox
 * @param {HTMLElement} savedBox
 * @param {(sql: string, run: boolean) => void} pick
 * @param {() => void} changed called after a saved query is deleted
 */
export function renderLists(historyBox, savedBox, pick, changed) {
  const entries = history();
  historyBox.replaceChildren(
    ...(entries.length === 0
      ? [h('li', { class: 'muted' }, 'Queries you run are kept here (this browser only).')]
      : entries.map((e) => {
          const li = h(
            'li',
            { 'data-sql': e.sql },
            h('button', { type: 'button', class: 'link', title: 'load into the editor (double-click runs it)' }, e.sql.length > 160 ? `${e.sql.slice(0, 159)}…` : e.sql),
            h(
              'span',
              { class: 'muted meta' },
              `${new Date(e.at).toLocaleTimeString('en-GB')} · `,
              h('span', { class: 'badge small', 'data-label': ['exact', 'bounded', 'approximate'].includes(e.outcome) ? e.outcome : 'error' }, e.outcome),
              e.rows === undefined ? '' : ` · ${e.rows.toLocaleString('en-US')} rows`,
              e.ms === undefined ? '' : ` · ${Math.round(e.ms).toLocaleString('en-US')} ms`,
            ),
          );
          const b = /** @type {HTMLElement} */ (li.querySelector('button'));
          b.addEventListener('click', () => pick(e.sql, false));
          b.addEventListener('dblclick', () => pick(e.sql, true));
          return li;
        })),
  );
  const list = saved();
  savedBox.replaceChildren(
    ...(list.length === 0
      ? [h('li', { class: 'muted' }, 'Name a query and press Save to keep it here.')]
      : list.map((q) => {
          const open = h('button', { type: 'button', class: 'link', title: q.sql }, q.name);
          open.addEventListener('click', () => pick(q.sql, true));
          const del = h('button', { type: 'button', class: 'del', title: `delete "${q.name}"`, 'aria-label': `delete ${q.name}` }, '×');
          del.addEventListener('click', () => {
            unsave(q.name);
            changed();
          });
          return h('li', { 'data-name': q.name }, open, del);
        })),
  );
}
