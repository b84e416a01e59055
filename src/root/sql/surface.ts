/**
 * DuckDB syntax node-sql-parser's PostgreSQL grammar does not read, rewritten before parsing
 * into text it reads (each with a map from offsets in the new text back to the caller's, so a
 * syntax error points at what the user wrote) and repaired in the AST after:
 * - `TRY_CAST(x AS T)`: `"~try0"(CAST(x AS T))`, the call then replaced by its cast marked
 *   `try: true` ({@link rewriteTryCasts}, {@link repairTryCasts}).
 * Strings, quoted identifiers and comments are skipped as the parser reads them.
 */
import { type Piece, type Remapped, assemble, copy, insert } from './front.ts';
import { closingParen, scanTokens, skipSpace } from './rewrite.ts';
import { isNode, listItems, visitNodes } from './ast.ts';
import { functionName } from './expressions.ts';

/** The quoted function name that marks a TRY_CAST's cast in the rewritten text. */
export const TRY_CAST_MARK = '~try';

/** An edit of the text: [from, to) replaced by `text` (an insertion when from = to). */
interface Edit {
  readonly from: number;
  readonly to: number;
  readonly text: string;
}

/** `sql` with `edits` applied (sorted by offset, not overlapping), mapped back to `sql`. */
function applyEdits(sql: string, edits: Edit[]): Remapped {
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

/**
 * DuckDB's `TRY_CAST(x AS T)` (any case, space allowed before the parenthesis; not after a
 * `.`): the word becomes `"~tryK"(CAST` (K counts them) and a `)` closes the call after the
 * cast's own (none when the parenthesis does not close: the grammar then stops where the
 * cast does). A text that names the marker itself is left as it is (a syntax error there).
 * Returns the offset of each TRY_CAST in `sql` (by K) with the new text.
 */
export function rewriteTryCasts(sql: string): Remapped & { readonly tries: readonly number[] } {
  const edits: Edit[] = [];
  const tries: number[] = [];
  if (!/try_cast/i.test(sql) || sql.includes(`"${TRY_CAST_MARK}`)) return { ...applyEdits(sql, edits), tries };
  let prev = '';
  for (const { at, word, c } of scanTokens(sql, 0)) {
    const after = prev;
    prev = c;
    if (word?.toUpperCase() !== 'TRY_CAST' || after === '.') continue;
    const open = skipSpace(sql, at + word.length);
    if (sql[open] !== '(') continue;
    const close = closingParen(sql, open);
    edits.push({ from: at, to: at + word.length, text: `"${TRY_CAST_MARK}${tries.length}"(CAST` });
    if (close >= 0) edits.push({ from: close + 1, to: close + 1, text: ')' });
    tries.push(at);
  }
  return { ...applyEdits(sql, edits), tries };
}

/**
 * Replaces each `"~tryK"(CAST(...))` call {@link rewriteTryCasts} made by its cast, marked
 * `try: true` (keeping the call's parentheses).
 * @param syntaxError throws the syntax error for the K-th TRY_CAST when it holds no `x AS type`
 *   (`TRY_CAST(x, INT)`, which the grammar reads as a call of CAST)
 */
export function repairTryCasts(ast: unknown, syntaxError: (k: number) => never): void {
  visitNodes(ast, (v) => {
    if (v.type !== 'function') return true;
    const name = functionName(v);
    if (!name.startsWith(TRY_CAST_MARK)) return true;
    const args = listItems(v.args);
    const cast = args[0];
    if (args.length !== 1 || !isNode(cast) || cast.type !== 'cast') return syntaxError(Number(name.slice(TRY_CAST_MARK.length)));
    const parentheses = v.parentheses;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, cast, { try: true }, parentheses === undefined ? {} : { parentheses });
    return true;
  });
}
