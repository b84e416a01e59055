// @ts-check
/**
 * The answer table: every row, a page at a time (50 to 1,000 rows per page), sortable by
 * clicking a header (ascending, descending, then the answer's own order; NULLs last either
 * way), each bounded or approximate cell with its label badge and interval, and the rows as
 * TSV (in the order shown) for the clipboard.
 */
import { $, NUMERIC, fmt, h } from './dom.js';

/** @typedef {import('./types.js').Answer} Answer */

/**
 * Compares two JSON values of one column type for sorting; NULL sorts after everything.
 * @param {import('./types.js').Value} x
 * @param {import('./types.js').Value} y
 * @param {string} type
 */
export function compareValues(x, y, type) {
  if (x === null || y === null) return x === null ? (y === null ? 0 : 1) : -1;
  if (NUMERIC.has(type)) {
    if (typeof x === 'string' && typeof y === 'string' && /^-?\d+$/.test(x) && /^-?\d+$/.test(y)) {
      const bx = BigInt(x);
      const by = BigInt(y);
      return bx < by ? -1 : bx > by ? 1 : 0;
    }
    const nx = Number(x); // "Infinity", "-Infinity" and "NaN" as the root writes them
    const ny = Number(y);
    if (Number.isNaN(nx) || Number.isNaN(ny)) return Number.isNaN(nx) ? (Number.isNaN(ny) ? 0 : 1) : -1; // NaN above numbers
    return nx - ny;
  }
  if (type === 'timestamp') {
    const d = micros(String(x)) - micros(String(y));
    if (!Number.isNaN(d)) return d;
  }
  // Strings by code unit, as the root compares them.
  const sx = String(x);
  const sy = String(y);
  return sx < sy ? -1 : sx > sy ? 1 : 0;
}

/**
 * Microseconds since 1970 of an ISO-8601 UTC timestamp, sub-millisecond digits included
 * (`2001-01-01T00:00:00.000250Z`); NaN when it is not one.
 * @param {string} iso
 */
function micros(iso) {
  const ms = Date.parse(iso);
  const frac = /\.\d{3}(\d{1,3})Z$/.exec(iso)?.[1] ?? '';
  return ms * 1000 + (frac === '' ? 0 : Number(frac.padEnd(3, '0')));
}

/**
 * One TSV field: NULL is empty; tab, newline and backslash are escaped (\t, \n, \\).
 * @param {import('./types.js').Value} v
 */
function tsvField(v) {
  if (v === null) return '';
  return String(v).replace(/\\/g, '\\\\').replace(/\t/g, '\\t').replace(/\r?\n/g, '\\n');
}

export class AnswerTable {
  /** @type {Answer | null} */
  answer = null;
  /** @type {{col: number, desc: boolean} | null} */
  sort = null;
  page = 0;
  pageSize = 100;
  /** @type {number[]} row indices in display order */
  order = [];
  /** signature of the columns the sort applies to */
  sig = '';

  constructor() {
    $('page-size').addEventListener('change', (e) => {
      this.pageSize = Number(/** @type {HTMLSelectElement} */ (e.target).value);
      this.page = 0;
      this.draw();
    });
    for (const [id, step] of /** @type {const} */ ([['page-first', -Infinity], ['page-prev', -1], ['page-next', 1], ['page-last', Infinity]])) {
      $(id).addEventListener('click', () => this.go(step));
    }
  }

  /** Forgets the answer (a new query started, or it failed). */
  clear() {
    this.answer = null;
    this.order = [];
    $('answer').replaceChildren();
    $('rows-note').textContent = '';
    $('pager').hidden = true;
  }

  /**
   * Shows an answer (or snapshot): keeps the sort when the columns are the same, and the page
   * while snapshots of one query arrive.
   * @param {Answer} a
   * @param {boolean} sameQuery
   */
  show(a, sameQuery) {
    const sig = a.columns.map((c) => `${c.name}:${c.type}`).join('|');
    if (sig !== this.sig) {
      this.sig = sig;
      this.sort = null;
    }
    if (!sameQuery) this.page = 0;
    this.answer = a;
    this.reorder();
    this.draw();
  }

  /** Recomputes the display order from the sort. */
  reorder() {
    const a = this.answer;
    if (a === null) return;
    const idx = a.rows.map((_, i) => i);
    const s = this.sort;
    if (s !== null) {
      const type = a.columns[s.col]?.type ?? 'string';
      const sign = s.desc ? -1 : 1;
      idx.sort((i, j) => {
        const x = a.rows[i]?.[s.col] ?? null;
        const y = a.rows[j]?.[s.col] ?? null;
        if (x === null || y === null) return compareValues(x, y, type) || i - j; // NULLs last both ways
        return sign * compareValues(x, y, type) || i - j;
      });
    }
    this.order = idx;
  }

  /**
   * Clicking a header: ascending, descending, then the answer's order.
   * @param {number} col
   */
  toggle(col) {
    if (this.sort?.col !== col) this.sort = { col, desc: false };
    else if (!this.sort.desc) this.sort = { col, desc: true };
    else this.sort = null;
    this.page = 0;
    this.reorder();
    this.draw();
  }

  /** @param {number} step pages to move (±Infinity: first/last) */
  go(step) {
    const pages = Math.max(1, Math.ceil(this.order.length / this.pageSize));
    this.page = Math.max(0, Math.min(pages - 1, step === -Infinity ? 0 : step === Infinity ? pages - 1 : this.page + step));
    this.draw();
  }

  /** Draws the current page. */
  draw() {
    const a = this.answer;
    if (a === null) return;
    const table = $('answer');
    const head = h(
      'tr',
      {},
      ...a.columns.map((col, c) => {
        const s = this.sort?.col === c ? (this.sort.desc ? 'desc' : 'asc') : null;
        const role = a.roles?.[c];
        const th = h(
          'th',
          { 'data-col': c, 'data-sort': s, 'aria-sort': s === null ? 'none' : s === 'asc' ? 'ascending' : 'descending', title: 'click to sort', class: NUMERIC.has(col.type) ? 'num' : null },
          col.name,
          h('span', { class: 'type' }, col.type === 'timestamp' ? 'timestamp, UTC' : col.type),
          role?.role === 'group_key' ? h('span', { class: 'role' }, 'key') : role?.role === 'aggregate' ? h('span', { class: 'role' }, role.aggregate.replace('count_distinct', 'distinct')) : null,
          h('span', { class: 'arrow' }, s === 'asc' ? '▲' : s === 'desc' ? '▼' : ''),
        );
        th.addEventListener('click', () => this.toggle(c));
        return th;
      }),
    );
    const start = this.page * this.pageSize;
    const slice = this.order.slice(start, start + this.pageSize);
    const rows = slice.map((r) => {
      const row = a.rows[r] ?? [];
      return h('tr', { 'data-row': r }, ...row.map((v, c) => this.cell(a, r, c, v)));
    });
    table.replaceChildren(h('thead', {}, head), h('tbody', {}, ...rows));
    const n = a.rows.length;
    const notes = [`${n.toLocaleString('en-US')} row${n === 1 ? '' : 's'}`];
    if (a.rows_complete === false) notes.push('row set not proven complete: a missing shard may hold other groups');
    $('rows-note').textContent = notes.join(' · ');
    const pages = Math.max(1, Math.ceil(n / this.pageSize));
    $('pager').hidden = n === 0;
    $('page-info').textContent = n === 0 ? '' : `rows ${(start + 1).toLocaleString('en-US')}–${Math.min(n, start + this.pageSize).toLocaleString('en-US')} of ${n.toLocaleString('en-US')} · page ${this.page + 1} of ${pages}`;
    for (const id of ['page-first', 'page-prev']) /** @type {HTMLButtonElement} */ ($(id)).disabled = this.page === 0;
    for (const id of ['page-next', 'page-last']) /** @type {HTMLButtonElement} */ ($(id)).disabled = this.page >= pages - 1;
  }

  /**
   * @param {Answer} a
   * @param {number} r
   * @param {number} c
   * @param {import('./types.js').Value} v
   */
  cell(a, r, c, v) {
    const type = a.columns[c]?.type ?? 'string';
    const cell = a.cells?.[r]?.[c] ?? null;
    const cls = [NUMERIC.has(type) ? 'num' : '', v === null ? 'null' : '', cell ? `cell-${cell.label}` : ''].filter(Boolean).join(' ');
    const td = h('td', { class: cls || null, title: v === null ? 'NULL' : String(v) }, fmt(v, type));
    if (cell) {
      td.append(' ', h('span', { class: 'badge small', 'data-label': cell.label }, cell.label));
      const b = [];
      if (cell.lo != null || cell.hi != null) {
        const iv = `[${cell.lo == null ? '−∞' : fmt(cell.lo, type)}, ${cell.hi == null ? '+∞' : fmt(cell.hi, type)}]`;
        b.push(cell.label === 'approximate' ? `${iv} ${typeof cell.confidence === 'number' ? `${Math.round(cell.confidence * 100)}% interval` : 'estimate'}` : `${iv} guaranteed`);
      }
      if (typeof cell.stderr === 'number') b.push(`± ${fmt(cell.stderr, 'float64')} s.e.`);
      if (cell.estimate) {
        const e = cell.estimate;
        b.push(`estimate ${fmt(e.value, type)} [${fmt(e.lo, type)}, ${fmt(e.hi, type)}] ${Math.round(e.confidence * 100)}%`);
      }
      if (b.length > 0) td.append(h('span', { class: 'bounds' }, b.join(' · ')));
    }
    return td;
  }

  /** The answer as TSV (a header of names, then every row in the order shown; values as the root sent them). */
  tsv() {
    const a = this.answer;
    if (a === null) return '';
    const lines = [a.columns.map((c) => tsvField(c.name)).join('\t')];
    for (const r of this.order) lines.push((a.rows[r] ?? []).map(tsvField).join('\t'));
    return `${lines.join('\n')}\n`;
  }
}
