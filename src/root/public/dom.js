// @ts-check
/** Small DOM and formatting helpers shared by the dashboard's modules. */

/**
 * The element with this id.
 * @param {string} id
 * @returns {HTMLElement}
 */
export function $(id) {
  const el = document.getElementById(id);
  if (el === null) throw new Error(`dashboard: no element #${id}`);
  return el;
}

/**
 * The input (or select, textarea) with this id.
 * @param {string} id
 * @returns {HTMLInputElement}
 */
export function input(id) {
  return /** @type {HTMLInputElement} */ ($(id));
}

/**
 * Creates an element with attributes and children (strings become text; null, undefined and
 * false attributes or children are left out; `true` is an empty attribute).
 * @param {string} tag
 * @param {Record<string, string | number | boolean | null | undefined>} [attrs]
 * @param {...(Node | string | null | undefined | false | (Node | string | null | undefined | false)[])} children
 * @returns {HTMLElement}
 */
export function h(tag, attrs = {}, ...children) {
  const el = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === 'class') el.className = String(v);
    else el.setAttribute(k, v === true ? '' : String(v));
  }
  for (const c of children.flat()) if (c !== null && c !== undefined && c !== false) el.append(c);
  return el;
}

/** Column types drawn and aligned as numbers. */
export const NUMERIC = new Set(['int64', 'int128', 'float64']);

/**
 * Shortens an ISO timestamp (UTC): drops a zero time, zero seconds and zero fractions
 * (milliseconds or microseconds).
 * @param {unknown} iso
 * @returns {string}
 */
export function fmtTime(iso) {
  const m = /^(\d{4}-\d{2}-\d{2})T(\d{2}:\d{2})(:\d{2})(\.\d+)?Z$/.exec(String(iso));
  if (!m) return String(iso);
  const [, date, hm, sec, frac = ''] = m;
  const zeroFrac = /^\.?0*$/.test(frac);
  if (hm === '00:00' && sec === ':00' && zeroFrac) return String(date);
  return `${date} ${hm}${sec === ':00' && zeroFrac ? '' : sec}${zeroFrac ? '' : frac}`;
}

/**
 * Formats one JSON value of a column type for display.
 * @param {import('./types.js').Value | undefined} v
 * @param {string} type
 * @returns {string}
 */
export function fmt(v, type) {
  if (v === null || v === undefined) return 'NULL';
  if (type === 'timestamp') return fmtTime(v);
  if (type === 'int64' || type === 'int128') {
    if (typeof v === 'number') return v.toLocaleString('en-US');
    return /^-?\d+$/.test(String(v)) ? BigInt(String(v)).toLocaleString('en-US') : String(v);
  }
  if (type === 'float64') {
    if (typeof v !== 'number') return String(v);
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e15 || a < 1e-4)) return v.toExponential(4);
    return v.toLocaleString('en-US', { maximumFractionDigits: a >= 1000 ? 1 : 4 });
  }
  return String(v);
}

/**
 * Milliseconds, to 0.1 ms.
 * @param {number} v
 */
export function fmtMs(v) {
  return `${Number(v).toLocaleString('en-US', { maximumFractionDigits: 1 })} ms`;
}

/**
 * Compresses shard ids into ranges: 0–9, 13, 20–29.
 * @param {number[]} ids
 */
export function ranges(ids) {
  const sorted = [...ids].sort((x, y) => x - y);
  /** @type {string[]} */
  const out = [];
  for (let i = 0; i < sorted.length; ) {
    let j = i;
    while (j + 1 < sorted.length && sorted[j + 1] === /** @type {number} */ (sorted[j]) + 1) j += 1;
    out.push(i === j ? String(sorted[i]) : `${sorted[i]}–${sorted[j]}`);
    i = j + 1;
  }
  return out.join(', ');
}

/**
 * A JSON value as a plain number for the chart: numbers, decimal strings, and timestamps
 * (ISO strings) and DATEs ('2024-01-31', its UTC midnight) as ms since 1970; null when it is none of these.
 * @param {import('./types.js').Value | undefined} v
 * @param {string} [type]
 * @returns {number | null}
 */
export function num(v, type) {
  if (v === null || v === undefined) return null;
  if (type === 'timestamp' || type === 'date') {
    const t = Date.parse(String(v));
    return Number.isFinite(t) ? t : null;
  }
  const n = typeof v === 'number' ? v : Number(v);
  return Number.isFinite(n) ? n : null;
}

/**
 * Saves bytes or text as a file download (an object URL clicked through a temporary link).
 * @param {BlobPart} data
 * @param {string} type media type
 * @param {string} filename
 */
export function download(data, type, filename) {
  const url = URL.createObjectURL(new Blob([data], { type }));
  const a = h('a', { href: url, download: filename, hidden: true });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10_000);
}

/**
 * Puts text on the clipboard (the Clipboard API, else a hidden textarea and execCommand).
 * @param {string} text
 * @returns {Promise<void>}
 */
export async function copyText(text) {
  try {
    await navigator.clipboard.writeText(text);
  } catch {
    const ta = /** @type {HTMLTextAreaElement} */ (h('textarea', { style: 'position:fixed;left:-9999px' }));
    ta.value = text;
    document.body.append(ta);
    ta.select();
    document.execCommand('copy');
    ta.remove();
  }
}
