/**
 * Rewrites of the SQL text that change its length, each with a map from offsets in the new
 * text back to the caller's (so a syntax error points at what the user wrote):
 * - DuckDB's FROM-first statements: `FROM t [clauses]` is `SELECT * FROM t [clauses]`, and
 *   `FROM t SELECT list [clauses]` is `SELECT list FROM t [clauses]` ({@link rewriteFromFirst});
 * - `s [NOT] LIKE|ILIKE|SIMILAR TO 'lit' || x`: the literal pattern is parenthesised, because
 *   the grammar reads a literal there as the whole pattern and then stops (a syntax error in
 *   WHERE; `(s LIKE 'lit') || x` in a select item), where DuckDB reads `s LIKE ('lit' || x)`
 *   ({@link parenthesiseLikeLiterals}).
 * Strings, quoted identifiers and comments are skipped as the parser reads them.
 */
import { scanTokens, skipSpace } from './rewrite.ts';
import { skipQuoted } from './lexer.ts';

/** A piece of the new text: copied from the source at `src`, or inserted (mapped to `src`). */
interface Piece {
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
function assemble(sql: string, pieces: readonly Piece[]): Remapped {
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

const copy = (sql: string, from: number, to: number): Piece => ({ text: sql.slice(from, to), src: from, copied: true });
const insert = (text: string, at: number): Piece => ({ text, src: at, copied: false });

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
  // The select list keeps its trailing space; one is inserted when it ends the text.
  const gap = listEnd > 0 && /\s/.test(sql[listEnd - 1]!) ? [] : [insert(' ', listEnd)];
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
