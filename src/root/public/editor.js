// @ts-check
/**
 * The SQL editor (a textarea): where a syntax error is, shown as the caret placed at the
 * reported line and column and a marker under the editor (the line, a ^ under the column,
 * and the few tokens the root says were expected); inserting names from the schema panel.
 */
import { $, h } from './dom.js';

/** @returns {HTMLTextAreaElement} */
export function editor() {
  return /** @type {HTMLTextAreaElement} */ ($('sql'));
}

/**
 * The 0-based offset of a 1-based line and column in `text` (lines end at "\n").
 * @param {string} text
 * @param {number} line
 * @param {number} column
 */
export function offsetOf(text, line, column) {
  let offset = 0;
  for (let l = 1; l < line; l++) {
    const nl = text.indexOf('\n', offset);
    if (nl < 0) return text.length;
    offset = nl + 1;
  }
  return Math.min(text.length, offset + Math.max(0, column - 1));
}

/**
 * The expected tokens worth showing: the root's summary (`details.expected`), else the first
 * few quoted tokens of the message.
 * @param {import('./types.js').ApiError} err
 * @returns {string[]}
 */
export function expectedTokens(err) {
  const listed = err.details?.expected;
  if (Array.isArray(listed)) return listed.slice(0, 6);
  const m = /Expected (.*) but /.exec(err.message);
  if (!m) return [];
  return [...String(m[1]).matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((x) => String(x[1])).filter((t) => /^[A-Za-z(),*=<>]/.test(t)).slice(0, 6);
}

/**
 * Shows where the error is: the caret at the position (the editor focused and scrolled to it)
 * and the marker under the editor. Only when the editor still holds the SQL that failed.
 * @param {string} sql the SQL that was run
 * @param {import('./types.js').ApiError} err with `position`
 */
export function showCaret(sql, err) {
  const ed = editor();
  const pos = err.position;
  if (pos === undefined || ed.value.trim() !== sql) return;
  // The root's offsets are into the SQL it was sent (trimmed): shift by the leading whitespace.
  const lead = ed.value.length - ed.value.trimStart().length;
  const at = Math.min(ed.value.length, lead + offsetOf(sql, pos.line, pos.column));
  ed.focus();
  ed.setSelectionRange(at, at);
  // Scroll the line into view: the textarea's line height times the line number.
  const lh = parseFloat(getComputedStyle(ed).lineHeight) || 18;
  ed.scrollTop = Math.max(0, (pos.line - 2) * lh);
  const line = sql.split('\n')[pos.line - 1] ?? '';
  const start = Math.max(0, pos.column - 60);
  const shown = `${start > 0 ? '…' : ''}${line.slice(start, start + 100)}`;
  const pad = ' '.repeat(pos.column - 1 - start + (start > 0 ? 1 : 0));
  const expected = expectedTokens(err);
  const found = err.details?.found;
  const marker = $('sql-marker');
  marker.hidden = false;
  marker.dataset.line = String(pos.line);
  marker.dataset.column = String(pos.column);
  marker.replaceChildren(
    h('span', { class: 'where' }, `line ${pos.line}, column ${pos.column}`),
    h('pre', {}, `${shown}\n${pad}^`),
    expected.length > 0
      ? h('span', { class: 'expected' }, 'expected ', ...expected.flatMap((t, i) => [i === 0 ? '' : i === expected.length - 1 ? ' or ' : ', ', h('code', {}, t)]), found === undefined ? '' : `, found ${found === null ? 'end of input' : `'${found}'`}`)
      : '',
  );
}

/** Hides the error marker. */
export function clearCaret() {
  const marker = $('sql-marker');
  marker.hidden = true;
  marker.replaceChildren();
}

/**
 * Inserts text at the caret (a column or table name from the schema panel).
 * @param {string} text
 */
export function insertAtCaret(text) {
  const ed = editor();
  const { selectionStart: s, selectionEnd: e, value } = ed;
  const before = value.slice(0, s);
  const sep = before === '' || /[\s(,]$/.test(before) ? '' : ' ';
  ed.value = `${before}${sep}${text}${value.slice(e)}`;
  const at = s + sep.length + text.length;
  ed.focus();
  ed.setSelectionRange(at, at);
}
