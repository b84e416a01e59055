/** Tokens of SQL text as node-sql-parser reads them, for the rewrites done before parsing. */
import { CanopyError, type SourcePosition } from '../../merge/errors.ts';

export const INTEGER_TAIL = /\d+/y;
export const NUMBER_TOKEN = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
export const WORD_TOKEN = /[A-Za-z_][A-Za-z0-9_$]*/y;
export const WORD_CHAR = /[A-Za-z0-9_.$]/;

/**
 * node-sql-parser reads `-9007199254740993` as one signed integer and, being below
 * Number.MAX_SAFE_INTEGER, turns it into a lossy double; `- 9007199254740993` becomes unary
 * minus over the exact digit string. So a space is inserted after the sign of negative
 * integer and decimal literals (no exponent) of 16+ integer digits, and after `//` before a
 * number (see the integer-division rewrite). Strings, quoted identifiers and comments are skipped the
 * way the parser reads them (backslash escapes and '' inside '...'). Returns the new text
 * and a map from its offsets back to the caller's.
 */
export function separateNegativeBigInts(sql: string): { text: string; toSourceOffset: (offset: number) => number } {
  const signs: number[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`') i = skipQuoted(sql, i);
    else if (c === '-' && next === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && next === '*') i = skipBlockComment(sql, i);
    else if (c === '$' && next === '$') i = sql.includes('$$', i + 2) ? sql.indexOf('$$', i + 2) + 2 : sql.length;
    else if (c === '/' && next === '/' && /[\d.]/.test(sql[i + 2] ?? '')) {
      // `a//2`: rewritten to `a/+2` (src/root/sql/rewrite.ts), the grammar would read `+2` as a
      // signed literal and the integer division as `/`: a space after `//` keeps it `/+ 2`.
      signs.push(i + 1);
      i += 2;
    } else if (c === '-') {
      // The whole number (`-9223372036854775807.5` too: the parser reads a signed decimal as a double).
      NUMBER_TOKEN.lastIndex = i + 1;
      const token = NUMBER_TOKEN.exec(sql)?.[0] ?? '';
      INTEGER_TAIL.lastIndex = i + 1;
      const digits = INTEGER_TAIL.exec(sql)?.[0] ?? '';
      const after = sql[i + 1 + token.length];
      if (digits.length >= 16 && !/[eE]/.test(token) && (after === undefined || !WORD_CHAR.test(after))) signs.push(i);
      i += 1 + token.length;
    } else i = skipToken(sql, i);
  }
  if (signs.length === 0) return { text: sql, toSourceOffset: (offset) => offset };
  let text = '';
  let from = 0;
  for (const sign of signs) {
    text += `${sql.slice(from, sign + 1)} `;
    from = sign + 1;
  }
  text += sql.slice(from);
  const toSourceOffset = (offset: number): number => {
    let shift = 0;
    for (const sign of signs) {
      if (sign + 1 + shift >= offset) break;
      shift++;
    }
    return offset - shift;
  };
  return { text, toSourceOffset };
}

/**
 * node-sql-parser reads a decimal literal without an exponent whose integer part is below
 * 2^53 as `parseFloat(text).toFixed(<its fraction digits>)`, which loses the digits past the
 * double's (`0.99999999999999999` becomes '1.00000000000000000', `0.123456789012345678`
 * '0.123456789012345677'), where DuckDB reads an exact DECIMAL; it keeps the text of a number
 * with an exponent. Each such literal of `sql` (the text the parser reads) is replaced by a
 * placeholder of the same length the parser keeps as written (`1.0e000000000000`, `2.0e0...`:
 * offsets, and so error positions, unchanged), to be put back after parsing: the new text and
 * each placeholder's original.
 */
export function protectDecimals(sql: string): { text: string; originals: Map<string, string> } {
  const originals = new Map<string, string>();
  let text = '';
  let from = 0;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`') i = skipQuoted(sql, i);
    else if (c === '-' && next === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && next === '*') i = skipBlockComment(sql, i);
    else if (c === '$' && next === '$') i = sql.includes('$$', i + 2) ? sql.indexOf('$$', i + 2) + 2 : sql.length;
    else if (/[\d.]/.test(c) && (i === 0 || !WORD_CHAR.test(sql[i - 1]!))) {
      NUMBER_TOKEN.lastIndex = i;
      const token = NUMBER_TOKEN.exec(sql)?.[0] ?? '';
      if (token === '') {
        i++;
        continue;
      }
      const start = i;
      i += token.length;
      const dot = token.indexOf('.');
      if (dot < 0 || /[eE]/.test(token) || /[eE.\d]/.test(sql[i] ?? '') || BigInt(token.slice(0, dot) || '0') >= BigInt(Number.MAX_SAFE_INTEGER)) continue;
      if (decimalKey(parseFloat(token).toFixed(token.length - dot - 1)) === decimalKey(token)) continue;
      const standIn = (k: number): string => `${k}.0e${'0'.repeat(Math.max(1, token.length - String(k).length - 3))}`;
      let k = originals.size + 1;
      while (sql.includes(standIn(k)) || originals.has(standIn(k))) k++;
      const stand = standIn(k);
      if (stand.length !== token.length) continue; // too short to stand in for (cannot happen past 15 digits)
      originals.set(stand, token);
      text += sql.slice(from, start) + stand;
      from = i;
    } else i = skipToken(sql, i);
  }
  return { text: text + sql.slice(from), originals };
}

/** An unsigned decimal text's exact value as a key (`1.50` and `01.5` alike). */
function decimalKey(text: string): string {
  const dot = text.indexOf('.');
  const whole = (dot < 0 ? text : text.slice(0, dot)).replace(/^0+/, '');
  const frac = dot < 0 ? '' : text.slice(dot + 1).replace(/0+$/, '');
  return `${whole}.${frac}`;
}

/** Offset after the quoted string or identifier starting at `start`. */
export function skipQuoted(sql: string, start: number): number {
  const quote = sql[start];
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (quote === "'" && c === '\\') i += 2;
    else if (c === quote && quote === "'" && sql[i + 1] === "'") i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

/**
 * `sql` with its quoted strings and names (dollar-quoted too) and its comments blanked (spaces,
 * same length and offsets): what the query says in SQL words, for pattern tests that must
 * not match text inside a literal or comment.
 */
export function blankQuotedAndComments(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const end =
      c === "'" || c === '"' || c === '`' ? skipQuoted(sql, i)
      : sql.startsWith('--', i) ? (sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length)
      : sql.startsWith('/*', i) ? skipBlockComment(sql, i)
      : c === '$' ? (skipDollarQuoted(sql, i) ?? i)
      : i;
    if (end > i) {
      out += ' '.repeat(end - i);
      i = end;
    } else {
      out += c;
      i++;
    }
  }
  return out;
}

/** Offset after the (possibly nested) block comment starting at `start`. */
export function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}

/**
 * Offset after the dollar-quoted string (`$$...$$`, `$tag$...$tag$`) starting at `start`, or
 * null when none starts there (a `$` inside a word, `$1`).
 */
export function skipDollarQuoted(sql: string, start: number): number | null {
  if (sql[start] !== '$' || (start > 0 && WORD_CHAR.test(sql[start - 1]!))) return null;
  const tag = /^\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$/.exec(sql.slice(start, start + 66))?.[0];
  if (tag === undefined) return null;
  const end = sql.indexOf(tag, start + tag.length);
  return end < 0 ? sql.length : end + tag.length;
}

/** Offset after the number or word at `start`, or after one character. */
export function skipToken(sql: string, start: number): number {
  for (const token of [NUMBER_TOKEN, WORD_TOKEN]) {
    token.lastIndex = start;
    if (token.test(sql)) return token.lastIndex;
  }
  return start + 1;
}

/** A construct left open at the end of a query: what it is, where it opens, and what would close it. */
export interface Unterminated {
  /** `the /* comment`, `the string`, `the quoted name`. */
  readonly what: string;
  /** Offset of its opening in the text. */
  readonly offset: number;
  /** The token that would close it: `*\/`, `'`, `"`. */
  readonly close: string;
}

/**
 * The comment, string or quoted name `sql` leaves open at its end (so a parser reaching the
 * end of input was inside it), or null. Strings double their quote to hold one (`'it''s'`),
 * as do quoted names; block comments nest (`/* /* *\/ *\/`), as in PostgreSQL and DuckDB.
 */
export function unterminated(sql: string): Unterminated | null {
  let i = 0;
  while (i < sql.length) {
    if (sql.startsWith('--', i)) {
      const nl = sql.indexOf('\n', i);
      if (nl < 0) return null;
      i = nl + 1;
    } else if (sql.startsWith('/*', i)) {
      const start = i;
      let depth = 0;
      while (i < sql.length) {
        if (sql.startsWith('/*', i)) {
          depth++;
          i += 2;
        } else if (sql.startsWith('*/', i)) {
          i += 2;
          if (--depth === 0) break;
        } else i++;
      }
      if (depth > 0) return { what: 'the /* comment', offset: start, close: '*/' };
    } else if (sql[i] === "'" || sql[i] === '"') {
      const quote = sql[i]!;
      const start = i++;
      for (;;) {
        if (i >= sql.length) return { what: quote === "'" ? 'the string' : 'the quoted name', offset: start, close: quote };
        if (sql[i] === quote) {
          if (sql[i + 1] === quote) i += 2;
          else {
            i++;
            break;
          }
        } else i++;
      }
    } else i++;
  }
  return null;
}

/**
 * `sql` with each escape string `E'...'` written as a standard literal of the value DuckDB
 * reads (PostgreSQL's escapes: `\b \f \n \r \t`, octal `\o`, `\oo`, `\ooo`, hex `\xh`, `\xhh`,
 * any other character after a backslash as itself, `''` a quote), padded with spaces to its
 * length, so every offset after it is kept. An unterminated one is left for the grammar.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY where DuckDB refuses: a `\u` / `\U` escape, and an
 *   octal or hex escape of a zero or non-ASCII byte (DuckDB checks the bytes as UTF-8 and
 *   stops: "pg_verifymbstr NOT IMPLEMENTED")
 */
export function decodeEscapeStrings(sql: string): string {
  if (!/[eE]'/.test(sql)) return sql;
  let out = '';
  let from = 0;
  for (const t of quotedTokens(sql)) {
    if (t.kind !== 'escape') continue;
    if (t.end >= sql.length) break;
    const literal = `'${escapeStringValue(sql, t.start + 1, t.end).replaceAll("'", "''")}'`;
    out += sql.slice(from, t.start - 1) + literal + ' '.repeat(t.end + 1 - (t.start - 1) - literal.length);
    from = t.end + 1;
  }
  return out + sql.slice(from);
}

/**
 * A quoted token of SQL text: a standard string `'...'` (a backslash is itself, `''` a quote),
 * an escape string `E'...'` (`start` at its quote; a backslash escapes the next character),
 * or a quoted name `"..."` (`""` a quote). `end` is the offset of its closing quote, or the
 * text's length when it is unterminated.
 */
export interface QuotedToken {
  readonly kind: 'string' | 'escape' | 'name';
  readonly start: number;
  readonly end: number;
}

/**
 * The quoted tokens of `sql` in order, outside comments, backquoted names and dollar-quoted
 * strings: the one walk the rewrites that act on literals or quoted names share.
 */
export function* quotedTokens(sql: string): Generator<QuotedToken> {
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && next === '*') i = skipBlockComment(sql, i);
    else if (c === '`') i = skipQuoted(sql, i);
    else if (c === '$') i = skipDollarQuoted(sql, i) ?? i + 1;
    else if (c === "'" && i > 0 && /[eE]/.test(sql[i - 1]!) && (i < 2 || !WORD_CHAR.test(sql[i - 2]!))) {
      const close = escapeStringEnd(sql, i);
      const end = close < 0 ? sql.length : close;
      yield { kind: 'escape', start: i, end };
      i = end + 1;
    } else if (c === "'" || c === '"') {
      // The token ends at a quote not followed by another (a doubled one stands for itself).
      let j = i + 1;
      while (j < sql.length && !(sql[j] === c && sql[j + 1] !== c)) j += sql[j] === c ? 2 : 1;
      yield { kind: c === "'" ? 'string' : 'name', start: i, end: j };
      i = j + 1;
    } else i++;
  }
}

/** Offset of the quote closing the escape string whose opening quote is at `start`, or -1. */
function escapeStringEnd(sql: string, start: number): number {
  let j = start + 1;
  while (j < sql.length) {
    if (sql[j] === '\\') j += 2;
    else if (sql[j] === "'" && sql[j + 1] === "'") j += 2;
    else if (sql[j] === "'") return j;
    else j++;
  }
  return -1;
}

/** The value of the escape string body `sql[from..to)` (see {@link decodeEscapeStrings}). */
function escapeStringValue(sql: string, from: number, to: number): string {
  const simple: Readonly<Record<string, string>> = { b: '\b', f: '\f', n: '\n', r: '\r', t: '\t' };
  let out = '';
  let j = from;
  const byte = (code: number, text: string): string => {
    if (code === 0 || code >= 0x80) {
      const position = positionAt(sql, j);
      throw new CanopyError('CANOPY_ERR_BAD_QUERY', `the escape ${text} at line ${position.line}, column ${position.column} gives ${code === 0 ? 'a zero byte' : `the byte 0x${code.toString(16)}, not ASCII`}, which DuckDB refuses in an E'...' string; write the character itself`, { position, details: { expected: [], found: text } });
    }
    return String.fromCharCode(code);
  };
  while (j < to) {
    const c = sql[j]!;
    if (c === "'") {
      out += "'";
      j += 2;
    } else if (c !== '\\') {
      out += c;
      j++;
    } else {
      const e = sql[j + 1]!;
      const octal = /^[0-7]{1,3}/.exec(sql.slice(j + 1, Math.min(to, j + 4)))?.[0];
      const hex = e === 'x' ? /^[0-9A-Fa-f]{1,2}/.exec(sql.slice(j + 2, Math.min(to, j + 4)))?.[0] : undefined;
      if (e === 'u' || e === 'U') {
        const position = positionAt(sql, j);
        throw new CanopyError('CANOPY_ERR_BAD_QUERY', `the escape \\${e} at line ${position.line}, column ${position.column} is not read by DuckDB in an E'...' string (unicode_to_utf8 NOT IMPLEMENTED); write the character itself`, { position, details: { expected: [], found: `\\${e}` } });
      }
      if (octal !== undefined) {
        out += byte(parseInt(octal, 8), `\\${octal}`);
        j += 1 + octal.length;
      } else if (hex !== undefined) {
        out += byte(parseInt(hex, 16), `\\x${hex}`);
        j += 2 + hex.length;
      } else {
        out += simple[e] ?? e;
        j += 2;
      }
    }
  }
  return out;
}

/** 1-based line and column of a 0-based offset into `text` (lines end at "\n", as in the parser). */
export function positionAt(text: string, offset: number): SourcePosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, clamped);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: clamped - lineStart + 1, offset: clamped };
}
