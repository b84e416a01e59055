/**
 * Rewrites of the SQL text that change its length, each with a map from offsets in the new
 * text back to the caller's (so a syntax error points at what the user wrote):
 * - DuckDB's FROM-first statements: `FROM t [clauses]` is `SELECT * FROM t [clauses]`, and
 *   `FROM t SELECT list [clauses]` is `SELECT list FROM t [clauses]` ({@link rewriteFromFirst});
 * - `s [NOT] LIKE|ILIKE|SIMILAR TO 'lit' || x`: the literal pattern is parenthesised, because
 *   the grammar reads a literal there as the whole pattern and then stops (a syntax error in
 *   WHERE; `(s LIKE 'lit') || x` in a select item), where DuckDB reads `s LIKE ('lit' || x)`
 *   ({@link parenthesiseLikeLiterals}).
 * - `* EXCLUDE (a, b)`: the list taken out, the star marked ({@link rewriteStarExcludes}).
 * - `x[i]` and `x[a:b]` on strings as array_extract and array_slice calls ({@link rewriteSubscripts}).
 * - `x = ANY([...])` and `x <> ALL([...])` over a list of literals as `x [NOT] IN (...)` ({@link rewriteQuantifiedLists}).
 * Strings, quoted identifiers and comments are skipped as the parser reads them.
 */
import { closingParen, scanTokens, skipSpace } from './rewrite.ts';
import { blankQuotedAndComments, quotedTokens, skipQuoted } from './lexer.ts';
import { isNode, visitNodes } from './ast.ts';
import { fail } from './errors.ts';
import { CanopyError, type SourcePosition } from '../../merge/errors.ts';

/** A piece of the new text: copied from the source at `src`, or inserted (mapped to `src`). */
export interface Piece {
  readonly text: string;
  readonly src: number;
  readonly copied: boolean;
}

/** A rewritten text and the map from its offsets to the source's. */
export interface Remapped {
  readonly text: string;
  readonly toSourceOffset: (offset: number) => number;
  /** The source offset of a syntax error found while rewriting (reported there instead of parsing). */
  readonly refusal?: { readonly offset: number; readonly message: string };
}

/** Joins `pieces`; an offset inside a copied piece maps to its source character, inside an inserted one to its anchor. */
export function assemble(sql: string, pieces: readonly Piece[]): Remapped {
  const starts: number[] = [];
  let text = '';
  for (const p of pieces) {
    starts.push(text.length);
    text += p.text;
  }
  const toSourceOffset = (offset: number): number => {
    if (offset >= text.length) return sql.length + (offset - text.length);
    let k = pieces.length - 1;
    while (k > 0 && starts[k]! > offset) k--;
    const p = pieces[k]!;
    return p.copied ? p.src + (offset - starts[k]!) : p.src;
  };
  return { text, toSourceOffset };
}

export const copy = (sql: string, from: number, to: number): Piece => ({ text: sql.slice(from, to), src: from, copied: true });
export const insert = (text: string, at: number): Piece => ({ text, src: at, copied: false });

/** Keywords that end a FROM clause (all but FROM) or a select list (all but SELECT) at parenthesis depth 0. */
const CLAUSE_WORDS = new Set(['FROM', 'WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'QUALIFY', 'WINDOW', 'UNION', 'EXCEPT', 'INTERSECT', 'SELECT']);

/**
 * DuckDB's FROM-first syntax, as a statement that begins (past whitespace and comments) with
 * FROM: `FROM t [WHERE ...] [GROUP BY ...] ...` becomes `SELECT * FROM t ...`, and
 * `FROM t SELECT list [WHERE ...] ...` becomes `SELECT list FROM t ...` (DuckDB takes the
 * SELECT right after the FROM clause only: `FROM t WHERE c SELECT s` is a syntax error there,
 * and stays one here; a second FROM after the select list is refused at that FROM, as DuckDB
 * does). Returns the text unchanged (identity map) when it does not begin with FROM.
 */
export function rewriteFromFirst(sql: string): Remapped {
  const start = skipSpace(sql, 0);
  const identity = { text: sql, toSourceOffset: (offset: number): number => offset };
  if (!/^FROM(?![A-Za-z0-9_$])/i.test(sql.slice(start))) return identity;
  // The end of the FROM clause, then (after SELECT) of the select list: the next depth-0 clause keyword.
  const clauseEnd = (from: number, inFromClause: boolean): { at: number; word: string | null } => {
    let depth = 0;
    for (const { at, word, c } of scanTokens(sql, from)) {
      if (c === '(') depth++;
      else if (c === ')') depth--;
      else if (c === ';' && depth === 0) return { at, word: null };
      else if (depth === 0 && word !== null && CLAUSE_WORDS.has(word.toUpperCase()) && (inFromClause ? word.toUpperCase() !== 'FROM' : word.toUpperCase() !== 'SELECT')) return { at, word: word.toUpperCase() };
    }
    return { at: sql.length, word: null };
  };
  const fromEnd = clauseEnd(start + 4, true);
  if (fromEnd.word !== 'SELECT') return assemble(sql, [copy(sql, 0, start), insert('SELECT * ', start), copy(sql, start, sql.length)]);
  const listEnd = clauseEnd(fromEnd.at + 6, false);
  // A second FROM (`FROM t SELECT j FROM u`): DuckDB's syntax error, at that FROM.
  if (listEnd.word === 'FROM') return { ...identity, refusal: { offset: listEnd.at, message: "a FROM-first statement has one FROM clause, but found 'FROM' after its SELECT list" } };
  return reorder(sql, start, fromEnd.at, listEnd.at);
}

/** `FROM t SELECT list rest` with FROM at `start`, SELECT at `select` and `rest` at `listEnd`: `SELECT list FROM t rest`. */
function reorder(sql: string, start: number, select: number, listEnd: number): Remapped {
  // The select list keeps its trailing space; a newline is inserted when it ends the text
  // (a newline, so that a `-- comment` ending the list does not swallow the FROM clause).
  const gap = listEnd > 0 && /\s/.test(sql[listEnd - 1]!) ? [] : [insert('\n', listEnd)];
  return assemble(sql, [copy(sql, 0, start), copy(sql, select, listEnd), ...gap, copy(sql, start, select), copy(sql, listEnd, sql.length)]);
}

/**
 * `s LIKE 'a' || '%'` (also NOT LIKE, ILIKE, SIMILAR TO) becomes `s LIKE ('a') || '%'`: a
 * literal pattern followed by `||` is parenthesised, so the grammar reads the whole
 * concatenation as the pattern, as DuckDB does (`||` binds tighter than LIKE there).
 */
export function parenthesiseLikeLiterals(sql: string): Remapped {
  const pieces: Piece[] = [];
  let from = 0;
  let prev: string | null = null;
  for (const { at, word } of scanTokens(sql, 0)) {
    const w = word?.toUpperCase() ?? null;
    const keyword = w === 'LIKE' || w === 'ILIKE' || (w === 'TO' && prev === 'SIMILAR');
    if (word !== null) prev = w;
    if (!keyword || at < from) continue;
    const lit = skipSpace(sql, at + word!.length);
    if (sql[lit] !== "'") continue;
    const end = skipQuoted(sql, lit);
    const next = skipSpace(sql, end);
    if (!sql.startsWith('||', next)) continue;
    pieces.push(copy(sql, from, lit), insert('(', lit), copy(sql, lit, end), insert(')', end));
    from = end;
  }
  if (pieces.length === 0) return { text: sql, toSourceOffset: (offset) => offset };
  pieces.push(copy(sql, from, sql.length));
  return assemble(sql, pieces);
}

/** The quoted qualifier `"~xK"` marks the star of the K-th `* EXCLUDE` of the text. */
export const STAR_EXCLUDE_MARK = '~x';

/** A name in an EXCLUDE list: its parts as written (a qualified `t.c` has two), quotes removed. */
export type ExcludedName = readonly string[];

/**
 * DuckDB's star filtered by its columns' names, `* [NOT] LIKE | ILIKE | GLOB | SIMILAR TO 'p'`
 * (DuckDB reads it as COLUMNS over the names the pattern matches): kept on the star's node as
 * its `exclude`, so every reader that refuses or expands a star with EXCLUDE does so here too.
 */
export interface StarNameFilter {
  readonly op: 'LIKE' | 'ILIKE' | 'GLOB' | 'SIMILAR TO';
  readonly negated: boolean;
  readonly pattern: string;
}

const STAR_FILTER = /(NOT\s+)?(LIKE|ILIKE|GLOB|SIMILAR\s+TO)\s*'((?:[^']|'')*)'(?!\s*(?:ESCAPE|\|\|)(?![A-Za-z0-9_$]))/iy;

const DOTTED_NAME = /(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*")(?:\s*\.\s*(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*"))*/y;
const NAME_PART = /\s*(?:([A-Za-z_][A-Za-z0-9_$]*)|"((?:[^"]|"")*)")\s*/y;

/** The dotted names of `text`, comma-separated (`a, t.b, "C"`), or null when it is not such a list. */
function nameList(text: string): ExcludedName[] | null {
  const out: ExcludedName[] = [];
  let i = 0;
  for (;;) {
    const parts: string[] = [];
    for (;;) {
      NAME_PART.lastIndex = i;
      const m = NAME_PART.exec(text);
      if (m === null) return null;
      parts.push(m[1] ?? m[2]!.replaceAll('""', '"'));
      i = NAME_PART.lastIndex;
      if (text[i] !== '.') break;
      i++;
    }
    out.push(parts);
    if (i === text.length) return out;
    if (text[i] !== ',') return null;
    i++;
    // A trailing comma, as DuckDB takes it (`EXCLUDE (a, b,)`).
    if (out.length > 0 && text.slice(i).trim() === '') return out;
  }
}

/**
 * DuckDB's `* EXCLUDE (a, b)` (also `t.* EXCLUDE c`, one name without parentheses) and
 * `* [NOT] LIKE | ILIKE | GLOB | SIMILAR TO 'p'` ({@link StarNameFilter}; a pattern followed by
 * ESCAPE or `||` is left for the grammar): the EXCLUDE list or the filter is taken out of the
 * text and the star marked, `"~x0".*` (`"~x0".t.*` when
 * qualified), so the grammar reads a qualified star; {@link repairStarExcludes} puts the list
 * on the star's node after parsing (`exclude`). A list that is not plain names is left for
 * the grammar to refuse.
 */
export function rewriteStarExcludes(sql: string): Remapped & { readonly excludes: readonly (ExcludedName[] | StarNameFilter)[] } {
  const pieces: Piece[] = [];
  const excludes: (ExcludedName[] | StarNameFilter)[] = [];
  // A text naming a marker itself is left alone (its EXCLUDE is then a syntax error).
  if (sql.includes(`"${STAR_EXCLUDE_MARK}`)) return { text: sql, toSourceOffset: (offset) => offset, excludes };
  let from = 0;
  for (const { at, c } of scanTokens(sql, 0)) {
    if (c !== '*' || at < from) continue;
    const kw = skipSpace(sql, at + 1);
    STAR_FILTER.lastIndex = kw;
    const filter = STAR_FILTER.exec(sql);
    if (filter === null && !/^EXCLUDE(?![A-Za-z0-9_$])/i.test(sql.slice(kw, kw + 8))) continue;
    const open = skipSpace(sql, kw + 7);
    let end: number;
    let list: ExcludedName[] | StarNameFilter | null;
    if (filter !== null) {
      end = kw + filter[0].length;
      list = { op: filter[2]!.toUpperCase().replace(/\s+/, ' ') as StarNameFilter['op'], negated: filter[1] !== undefined, pattern: filter[3]!.replaceAll("''", "'") };
    } else if (sql[open] === '(') {
      let depth = 0;
      end = -1;
      for (const t of scanTokens(sql, open)) {
        if (t.c === '(') depth++;
        else if (t.c === ')' && --depth === 0) {
          end = t.at + 1;
          break;
        }
      }
      list = end < 0 ? null : nameList(sql.slice(open + 1, end - 1));
    } else {
      DOTTED_NAME.lastIndex = open;
      const m = DOTTED_NAME.exec(sql);
      end = m === null ? -1 : open + m[0].length;
      list = m === null || /^(FROM|WHERE|GROUP|ORDER|LIMIT|HAVING)$/i.test(m[0]) ? null : nameList(m[0]);
    }
    if (list === null || end < 0) continue;
    // The star's qualifier (`t.*`, `"t".*`): the marker goes before it.
    let head = at;
    if (sql[at - 1] === '.') {
      const q = sql[at - 2] === '"' ? sql.lastIndexOf('"', at - 3) : at - 2 - (/[A-Za-z0-9_$]*$/.exec(sql.slice(0, at - 1))?.[0].length ?? 0) + 1;
      head = Math.max(q, from);
    }
    pieces.push(copy(sql, from, head), insert(`"${STAR_EXCLUDE_MARK}${excludes.length}".`, head), copy(sql, head, at + 1));
    excludes.push(list);
    from = end;
  }
  if (pieces.length === 0) return { text: sql, toSourceOffset: (offset) => offset, excludes };
  pieces.push(copy(sql, from, sql.length));
  return { ...assemble(sql, pieces), excludes };
}

/**
 * Puts each EXCLUDE list {@link rewriteStarExcludes} took out on its star's `column_ref` node
 * (`exclude`: the names, each as its dotted parts) and removes the marker qualifier; only a
 * star that is a SELECT item takes one.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for `* EXCLUDE` anywhere else (`count(* EXCLUDE (x))`)
 */
export function repairStarExcludes(ast: unknown, excludes: readonly (ExcludedName[] | StarNameFilter)[]): void {
  if (excludes.length === 0) return;
  const marked = (q: unknown): number | null => {
    // The grammar gives a qualifier as a node, or (inside count()) as a plain string.
    const v = typeof q === 'string' ? q : isNode(q) && typeof q.value === 'string' ? q.value : null;
    return v !== null && v.startsWith(STAR_EXCLUDE_MARK) ? Number(v.slice(STAR_EXCLUDE_MARK.length)) : null;
  };
  const star = (v: unknown): { node: Record<string, unknown>; k: number; inSchema: boolean } | null => {
    if (!isNode(v) || v.type !== 'column_ref' || v.column !== '*') return null;
    const inSchema = marked(v.schema);
    const k = inSchema ?? marked(v.table);
    return k === null || excludes[k] === undefined ? null : { node: v, k, inSchema: inSchema !== null };
  };
  visitNodes(ast, (v) => {
    if (v.type !== 'select' || !Array.isArray(v.columns)) return true;
    for (const c of v.columns as unknown[]) {
      const found = isNode(c) ? star(c.expr) : null;
      if (found === null) continue;
      if (found.inSchema) delete found.node.schema;
      else found.node.table = null;
      found.node.exclude = excludes[found.k];
    }
    return true;
  });
  visitNodes(ast, (v) => {
    if (star(v) !== null) fail('CANOPY_ERR_UNSUPPORTED', '* EXCLUDE is supported only as a SELECT item');
    return true;
  });
}

/** Words after which `[` opens a list literal, not a subscript. */
const LIST_STARTS = new Set(['SELECT', 'AND', 'OR', 'NOT', 'WHEN', 'THEN', 'ELSE', 'CASE', 'IN', 'BY', 'ON', 'AS', 'WHERE', 'HAVING', 'IS', 'LIKE', 'ILIKE', 'GLOB', 'BETWEEN', 'DISTINCT', 'ALL', 'ARRAY', 'VALUES', 'FROM', 'SOME', 'ANY', 'RETURN', 'TO', 'SIMILAR', 'ESCAPE', 'LIMIT', 'OFFSET']);

/** The largest BIGINT: an omitted slice end, which DuckDB's slice clamps to the length. */
const SLICE_END = '9223372036854775807';

/**
 * DuckDB's subscripts on strings, which the grammar reads only with a number literal inside:
 * `x[i]` becomes `array_extract(x, i)` and `x[a:b]` `array_slice(x, a, b)` (an omitted `a` is
 * 0, an omitted `b` the largest BIGINT: both clamp to the string's ends, as DuckDB's slice
 * does), where `x` is a column (`t.s`), a string literal, a parenthesised expression or a call,
 * or a subscript itself (`s[1:3][2]`). A `[` after a type (`::VARCHAR[]`), a keyword or an
 * operator is left alone (a list literal or array type, which canopy refuses). The brackets'
 * contents are copied as written (no subscript inside a subscript).
 */
export function rewriteSubscripts(sql: string): Remapped {
  if (!sql.includes('[')) return { text: sql, toSourceOffset: (offset) => offset };
  /** Insertions at a source offset (earlier `order` first) and single-character replacements. */
  const edits: { at: number; order: number; text: string; replaces: boolean }[] = [];
  const opens: number[] = [];
  let operand: { start: number } | null = null;
  let afterCast = false;
  let i = 0;
  let order = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      const end = skipQuoted(sql, i);
      operand = { start: i };
      afterCast = false;
      i = end;
      continue;
    }
    if ((c === '-' && sql[i + 1] === '-') || (c === '/' && sql[i + 1] === '*') || /\s/.test(c)) {
      i = skipSpace(sql, i);
      continue;
    }
    if (/[A-Za-z_]/.test(c)) {
      const m = /[A-Za-z_][A-Za-z0-9_$]*/y;
      m.lastIndex = i;
      const word = m.exec(sql)![0];
      // A dotted name continues the operand it follows (`t.s`).
      const dotted = operand !== null && sql[i - 1] === '.';
      operand = afterCast || LIST_STARTS.has(word.toUpperCase()) ? null : { start: dotted ? operand!.start : i };
      afterCast = false;
      i += word.length;
      continue;
    }
    if (c === '(') {
      // A call (`upper(s)`): the name right before the parenthesis starts the operand.
      opens.push(operand !== null && !/\s/.test(sql[i - 1]!) ? operand.start : i);
      operand = null;
      i++;
      continue;
    }
    if (c === ')') {
      const start = opens.pop();
      operand = start === undefined ? null : { start };
      i++;
      continue;
    }
    if (c === '[' && operand !== null) {
      const close = closingBracket(sql, i);
      if (close < 0) break;
      const colon = topLevelColon(sql, i + 1, close);
      const start = operand.start;
      edits.push({ at: start, order: -order++, text: colon < 0 ? 'array_extract(' : 'array_slice(', replaces: false });
      edits.push({ at: i, order: 0, text: ', ', replaces: true });
      if (colon >= 0) {
        if (sql.slice(i + 1, colon).trim() === '') edits.push({ at: colon, order: -1, text: '0', replaces: false });
        edits.push({ at: colon, order: 0, text: ', ', replaces: true });
        if (sql.slice(colon + 1, close).trim() === '') edits.push({ at: close, order: -1, text: SLICE_END, replaces: false });
      }
      edits.push({ at: close, order: 0, text: ')', replaces: true });
      operand = { start };
      i = close + 1;
      continue;
    }
    afterCast = c === ':' && sql[i + 1] === ':';
    if (afterCast) i++;
    if (c === '.' && operand !== null) {
      i++;
      continue;
    }
    operand = null;
    i++;
  }
  if (edits.length === 0) return { text: sql, toSourceOffset: (offset) => offset };
  edits.sort((a, b) => a.at - b.at || Number(a.replaces) - Number(b.replaces) || a.order - b.order);
  const pieces: Piece[] = [];
  let from = 0;
  for (const e of edits) {
    if (e.at > from) pieces.push(copy(sql, from, e.at));
    pieces.push(insert(e.text, e.at));
    from = Math.max(from, e.replaces ? e.at + 1 : e.at);
  }
  pieces.push(copy(sql, from, sql.length));
  return assemble(sql, pieces);
}

/** The offset of the `]` closing the `[` at `open` (nested brackets and parentheses, strings and comments skipped), or -1. */
function closingBracket(sql: string, open: number): number {
  let depth = 0;
  for (let i = open; i < sql.length; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      i = skipQuoted(sql, i) - 1;
      continue;
    }
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') {
      depth--;
      if (depth === 0) return c === ']' ? i : -1;
    }
  }
  return -1;
}

/** The offset of a `:` (not part of `::`) at the top level of `sql[from, to)`, or -1. */
function topLevelColon(sql: string, from: number, to: number): number {
  const colons = topLevelOffsets(sql, from, to, ':');
  for (let k = 0; k < colons.length; k++) {
    // A `::` is two top-level colons side by side: skip both.
    if (colons[k + 1] === colons[k]! + 1) k++;
    else return colons[k]!;
  }
  return -1;
}

/** The offsets of character `ch` at the top level of `sql[from, to)` (outside strings, quoted names, brackets and parentheses). */
function topLevelOffsets(sql: string, from: number, to: number, ch: string): number[] {
  const out: number[] = [];
  let depth = 0;
  for (let i = from; i < to; i++) {
    const c = sql[i]!;
    if (c === "'" || c === '"') {
      i = skipQuoted(sql, i) - 1;
      continue;
    }
    if (c === '[' || c === '(') depth++;
    else if (c === ']' || c === ')') depth--;
    else if (c === ch && depth === 0) out.push(i);
  }
  return out;
}

/** The quoted function name {@link rewriteLiteralCollations} calls: `"~collate"('lit', 'NOCASE')`. */
export const LITERAL_COLLATE_MARK = '~collate';

const COLLATION_NAME = /COLLATE(?![A-Za-z0-9_$])\s*((?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*")(?:\.(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*"))*)/iy;

/**
 * DuckDB's COLLATE on a string literal (`'HELLO' COLLATE NOCASE`, `'a' COLLATE NOACCENT.NOCASE`,
 * `'x' COLLATE "NOCASE"`) or on an integer (`ORDER BY 1 COLLATE NOCASE`, an ORDER BY ordinal),
 * which node-sql-parser's grammar takes on a column only: the literal and its collation
 * become the call `("~collate"('HELLO', 'NOCASE'))` (the name as written, quotes removed, parts
 * joined by dots; parenthesised, as the grammar takes a call of a quoted name after LIKE only
 * so), which src/root/sql/collate.ts reads as a collated operand (or ORDER BY key) and refuses
 * wherever it does not apply the collation.
 */
export function rewriteLiteralCollations(sql: string): Remapped {
  if (!/COLLATE/i.test(sql)) return { text: sql, toSourceOffset: (offset) => offset };
  // The literals that may carry a COLLATE: strings, and integers outside quotes and comments.
  const literals: { start: number; end: number }[] = [];
  for (const t of quotedTokens(sql)) if (t.kind === 'string') literals.push({ start: t.start, end: t.end + 1 });
  for (const m of blankQuotedAndComments(sql).matchAll(/(?<![A-Za-z0-9_$."])\d+(?![A-Za-z0-9_$.])/g)) literals.push({ start: m.index, end: m.index + m[0].length });
  literals.sort((a, b) => a.start - b.start);
  const pieces: Piece[] = [];
  let from = 0;
  for (const t of literals) {
    if (t.start < from) continue;
    COLLATION_NAME.lastIndex = skipSpace(sql, t.end);
    const m = COLLATION_NAME.exec(sql);
    if (m === null) continue;
    const name = [...m[1]!.matchAll(/[A-Za-z_][A-Za-z0-9_$]*|"((?:[^"]|"")*)"/g)].map((p) => (p[1] === undefined ? p[0] : p[1].replaceAll('""', '"'))).join('.');
    pieces.push(copy(sql, from, t.start), insert(`("${LITERAL_COLLATE_MARK}"(`, t.start), copy(sql, t.start, t.end), insert(`, '${name.replaceAll("'", "''")}'))`, m.index));
    from = m.index + m[0].length;
  }
  if (pieces.length === 0) return { text: sql, toSourceOffset: (offset) => offset };
  pieces.push(copy(sql, from, sql.length));
  return assemble(sql, pieces);
}

/** The string aggregates whose ORDER BY form the grammar reads with a rule of its own (see {@link parenthesiseCastChains}). */
const ORDERED_STRING_AGGS = new Set(['STRING_AGG', 'GROUP_CONCAT', 'LISTAGG']);

/**
 * `CAST(x AS T)::U` (also TRY_CAST): node-sql-parser's grammar reads a `::` after a CAST's
 * closing parenthesis as a stray tail (refused, or dropped with what follows it), where DuckDB
 * casts the cast (`::` binds tightest). The call is parenthesised, `(CAST(x AS T))::U`, which
 * the grammar reads as DuckDB does. Likewise the first argument of string_agg (group_concat,
 * listagg) when it opens with a parenthesised cast, `string_agg((j)::VARCHAR, ',' ORDER BY j)`:
 * the grammar's rule for the ORDER BY form stops at the `::` and refused the call; the
 * argument is parenthesised, `string_agg(((j)::VARCHAR), ...)`, the same value.
 */
export function parenthesiseCastChains(sql: string): Remapped {
  // Where each parenthesis goes (a cast inside another's parentheses is wrapped too).
  const marks: { at: number; text: string }[] = [];
  for (const { at, word } of scanTokens(sql, 0)) {
    const w = word?.toUpperCase();
    if (w !== undefined && ORDERED_STRING_AGGS.has(w) && sql[at - 1] !== '.') {
      const open = skipSpace(sql, at + word!.length);
      const first = sql[open] === '(' ? skipSpace(sql, open + 1) : -1;
      const inner = first >= 0 && sql[first] === '(' ? closingParen(sql, first) : -1;
      const end = open >= 0 ? closingParen(sql, open) : -1;
      if (inner >= 0 && end > inner && sql.startsWith('::', skipSpace(sql, inner + 1))) {
        marks.push({ at: first, text: '(' }, { at: firstArgumentEnd(sql, inner + 1, end), text: ')' });
      }
      continue;
    }
    if ((w !== 'CAST' && w !== 'TRY_CAST') || sql[at - 1] === '.') continue;
    const open = skipSpace(sql, at + word!.length);
    if (sql[open] !== '(') continue;
    const close = closingParen(sql, open);
    if (close < 0 || !sql.startsWith('::', skipSpace(sql, close + 1))) continue;
    marks.push({ at, text: '(' }, { at: close + 1, text: ')' });
  }
  return applyEdits(sql, marks.map((m) => ({ from: m.at, to: m.at, text: m.text })));
}

/** Where a call's first argument ends, searched from `from` to the call's `)` at `end`: its first top-level `,` or `ORDER` (BY), else `end`. */
function firstArgumentEnd(sql: string, from: number, end: number): number {
  let depth = 0;
  for (const { at, word, c } of scanTokens(sql, from)) {
    if (at >= end) break;
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (depth === 0 && (c === ',' || word?.toUpperCase() === 'ORDER')) return at;
  }
  return end;
}

/** An edit of the text: [from, to) replaced by `text` (an insertion when from = to). */
export interface Edit {
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

/** `sql` with `edits` applied (sorted by offset, not overlapping), mapped back to `sql`. */
export function applyEdits(sql: string, edits: Edit[]): Remapped {
  if (edits.length === 0) return { text: sql, toSourceOffset: (offset) => offset };
  edits.sort((a, b) => a.from - b.from || a.to - b.to);
  const pieces: Piece[] = [];
  let from = 0;
  for (const e of edits) {
    pieces.push(copy(sql, from, e.from), insert(e.text, e.from));
    from = e.to;
  }
  pieces.push(copy(sql, from, sql.length));
  return assemble(sql, pieces.filter((p) => p.text !== '' || !p.copied));
}

/** A string literal, NULL, or a number without an exponent (a list element {@link rewriteQuantifiedLists} takes). */
const LIST_STRING = /^'(?:[^']|'')*'$/;
const LIST_NULL = /^null$/i;
const LIST_NUMBER = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)$/;
/** `::TYPE[]` after a list (a type name, with its parameters: `DECIMAL(9, 2)`); group 1 the element type. */
const LIST_CAST = /^::\s*([A-Za-z_][A-Za-z_0-9]*(?:\s*\(\s*\d+(?:\s*,\s*\d+)?\s*\))?)\s*\[\s*\]/;

/**
 * DuckDB's quantified comparisons with a list of literals, which the grammar does not read:
 * `x = ANY([a, b])` (also `SOME`, `ARRAY[a, b]`, `==`) becomes `x IN (a, b)` and
 * `x <> ALL([a, b])` (`!=`) `x NOT IN (a, b)`: DuckDB answers both as IN does (true on a
 * match, else NULL when x or an element is NULL, else false). The list's elements are string
 * literals and NULLs, or numbers (no exponent) and NULLs: DuckDB types the list first and then
 * refuses to compare it with another type (`delay = ANY(['1'])`), so strings become
 * `CAST('1' AS VARCHAR)`, which canopy refuses to compare with a number likewise (a bare
 * string literal would be cast to the column's type, as IN does). A list cast to a list type
 * (`['1', NULL]::INTEGER[]`) casts each element as DuckDB does: `x IN (CAST('1' AS INTEGER),
 * CAST(NULL AS INTEGER))`.
 * @param at the source position of an offset in `sql` (for errors)
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for another operator (`> ANY`, `= ALL`), an empty
 *   list, elements that are not such literals (expressions, strings mixed with numbers), or
 *   a string, subquery, column or NULL in place of the list; CANOPY_ERR_BAD_QUERY (a syntax
 *   error at the place) when the list's `]` or the call's `)` is missing
 */
export function rewriteQuantifiedLists(sql: string, at: (offset: number) => SourcePosition): Remapped {
  if (!/(?:ANY|SOME|ALL)\s*\(/i.test(sql)) return { text: sql, toSourceOffset: (offset) => offset };
  const edits: Edit[] = [];
  const refuse = (offset: number, what: string): never => {
    throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `${what}; canopy reads x = ANY([...]) as x IN (...) and x <> ALL([...]) as x NOT IN (...), over a list of string literals or of numbers (NULLs allowed)`, { position: at(offset) });
  };
  const syntax = (offset: number, what: string, expected: string, found: string): never => {
    const position = at(offset);
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${what}`, { position, details: { expected: [expected], found } });
  };
  // Comments between the operator and the quantifier are skipped as space (`= /* c */ ANY`).
  const blank = blankQuotedAndComments(sql);
  for (const { at: w, word } of scanTokens(sql, 0)) {
    const quant = word?.toUpperCase();
    if ((quant !== 'ANY' && quant !== 'SOME' && quant !== 'ALL') || sql[w - 1] === '.') continue;
    const open = skipSpace(sql, w + word!.length);
    if (sql[open] !== '(') continue;
    // The comparison operator before the quantifier (none: not a quantified comparison).
    let k = w;
    while (k > 0 && /\s/.test(blank[k - 1]!)) k--;
    const two = sql.slice(k - 2, k);
    const op = ['<>', '!=', '==', '<=', '>='].includes(two) ? two : sql.slice(k - 1, k);
    if (!['=', '==', '<>', '!=', '<', '>', '<=', '>='].includes(op)) continue;
    let bracket = skipSpace(sql, open + 1);
    if (/^ARRAY\s*\[/i.test(sql.slice(bracket, bracket + 64))) bracket = sql.indexOf('[', bracket);
    const close = sql[bracket] === '[' ? closingBracket(sql, bracket) : -1;
    // The list's last character: its ], or the closing quote of a string in its place (refused below).
    const last = sql[bracket] === "'" ? skipQuoted(sql, bracket) - 1 : close;
    let end = last < 0 ? -1 : skipSpace(sql, last + 1);
    // A cast of the list to a list type (`['1', '2']::INTEGER[]`): DuckDB casts each element.
    const cast = end < 0 ? null : LIST_CAST.exec(sql.slice(end));
    if (cast !== null) end = skipSpace(sql, end + cast[0].length);
    if (sql[bracket] === '[' && close < 0) syntax(bracket, 'the list [ is not closed with ]', ']', '[');
    if (last >= 0 && sql[end] !== ')') syntax(end, `expected ) after the list of ${quant}([...]), but found ${end >= sql.length ? 'the end of the query' : `'${/^\w+/.exec(sql.slice(end))?.[0] ?? sql[end]!}'`}`, ')', sql.slice(end, end + 8));
    if (sql[bracket] === "'") refuse(bracket, `${quant}(...) over a string is not supported: write the list as ['a', 'b'] (DuckDB reads no PostgreSQL array literal '{a,b}')`);
    if (close < 0) refuse(open + 1, `${quant}(...) over a subquery, a column, NULL or another expression is not supported (a list cast to a list type is written ['a', 'b']::TEXT[])`);
    const negated = op === '<>' || op === '!=';
    if ((quant === 'ALL') !== negated || (!negated && op !== '=' && op !== '==')) refuse(k - op.length, `${op} ${quant}(...) is not supported`);
    const items = splitTopLevel(sql, bracket + 1, close).map((e) => e.trim());
    if (items.length === 1 && items[0] === '') refuse(bracket, `${quant} over an empty list is not supported`);
    const strings = items.some((e) => LIST_STRING.test(e));
    const fits = (e: string): boolean => LIST_NULL.test(e) || (strings ? LIST_STRING.test(e) : LIST_NUMBER.test(e));
    const bad = items.find((e) => !fits(e));
    if (bad !== undefined) refuse(bracket, `the list element ${bad.length > 40 ? `${bad.slice(0, 40)}...` : bad} is not supported in ${quant}(...)`);
    const list = items.map((e) => (cast !== null ? `CAST(${e} AS ${cast[1]!})` : LIST_STRING.test(e) ? `CAST(${e} AS VARCHAR)` : e)).join(', ');
    // Spaced on both sides: `s=ANY(['a'])` must not become `sIN (...)` (a call of sin).
    edits.push({ from: k - op.length, to: end + 1, text: ` ${negated ? 'NOT IN' : 'IN'} (${list}) ` });
  }
  return applyEdits(sql, edits);
}

/** The top-level pieces of `sql[from, to)` between commas (strings, brackets and parentheses respected). */
function splitTopLevel(sql: string, from: number, to: number): string[] {
  const cuts = [from - 1, ...topLevelOffsets(sql, from, to, ','), to];
  return cuts.slice(1).map((end, k) => sql.slice(cuts[k]! + 1, end));
}
