/**
 * DuckDB syntax node-sql-parser's PostgreSQL grammar does not read, rewritten before parsing
 * into text it reads (each with a map from offsets in the new text back to the caller's, so a
 * syntax error points at what the user wrote) and repaired in the AST after:
 * - `TRY_CAST(x AS T)`: `"~try0"(CAST(x AS T))`, the call then replaced by its cast marked
 *   `try: true` ({@link rewriteTryCasts}, {@link repairTryCasts}).
 * - `LIMIT p%` / `LIMIT p PERCENT`: a parameter in the text, a `percent` node in the AST
 *   ({@link rewriteLimitPercents}, {@link repairLimitPercents}); src/root/sql/select.ts reads it.
 * - cast targets the grammar does not read (STRING, UTINYINT ...): `MEDIUMINT(k)`, put back
 *   ({@link rewriteCastTypes}, {@link repairCastTypes}).
 * - function chains on calls and qualified columns: nested calls ({@link rewriteCallChains}).
 * - `^` / `**`, `& | << >>`, `==`: operators the grammar reads, put back after the chain
 *   repair ({@link rewritePowers}, {@link rewriteBitwise}, {@link rewriteDoubleEquals}).
 * Each rewrite that changes lengths maps offsets back (src/root/sql/front.ts assemble).
 * Strings, quoted identifiers and comments are skipped as the parser reads them.
 */
import { type Edit, type Remapped, applyEdits } from './front.ts';
import { closingParen, scanTokens, skipSpace } from './rewrite.ts';
import { skipBlockComment, skipQuoted, skipToken } from './lexer.ts';
import { fail } from './errors.ts';
import { isNode, listItems, visitNodes } from './ast.ts';
import { functionName } from './expressions.ts';

/** The quoted function name that marks a TRY_CAST's cast in the rewritten text. */
export const TRY_CAST_MARK = '~try';

/**
 * Typed timestamp literals node-sql-parser's grammar does not read (it reads `TIMESTAMP 'x'`),
 * as PostgreSQL and DuckDB write them, Metabase's Postgres time filters among them:
 * `TIMESTAMPTZ 'x'` and `TIMESTAMP WITH TIME ZONE 'x'` become `'x'::TIMESTAMPTZ`, `TIMESTAMP
 * WITHOUT TIME ZONE 'x'` becomes `'x'::TIMESTAMP`: DuckDB reads each as that cast of the string
 * (its transformer turns a typed constant into a cast). The words may be in any case, with
 * whitespace or comments between them and before the string; not after a `.` (a qualified name).
 * Offsets map back to the words (the cast's type) and to the string.
 */
export function rewriteTypedTimestamps(sql: string): Remapped {
  const edits: Edit[] = [];
  if (!/timestamp/i.test(sql)) return applyEdits(sql, edits);
  const tokens = [...scanTokens(sql, 0)].filter((t) => !/\s/.test(t.c));
  const upper = (k: number): string => tokens[k]?.word?.toUpperCase() ?? '';
  for (let k = 0; k < tokens.length; k++) {
    const first = upper(k);
    if ((first !== 'TIMESTAMPTZ' && first !== 'TIMESTAMP') || tokens[k - 1]?.c === '.') continue;
    let last = k;
    let type = 'TIMESTAMPTZ';
    if (first === 'TIMESTAMP') {
      const zone = upper(k + 1);
      if ((zone !== 'WITH' && zone !== 'WITHOUT') || upper(k + 2) !== 'TIME' || upper(k + 3) !== 'ZONE') continue;
      last = k + 3;
      type = zone === 'WITH' ? 'TIMESTAMPTZ' : 'TIMESTAMP';
    }
    const quote = skipSpace(sql, tokens[last]!.at + tokens[last]!.word!.length);
    if (sql[quote] !== "'") continue;
    const close = skipQuoted(sql, quote);
    edits.push({ from: tokens[k]!.at, to: quote, text: '' }, { from: close, to: close, text: `::${type}` });
    k = last;
  }
  return applyEdits(sql, edits);
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

/** The parameter name (`:canopy_pctK`) that stands for the K-th `LIMIT p%` in the rewritten text. */
export const LIMIT_PERCENT_MARK = 'canopy_pct';

/**
 * `LIMIT p %` or `LIMIT p PERCENT` from the LIMIT's end: p a number literal, signed or NULL
 * before `%`, unsigned before PERCENT (DuckDB's grammar: `LIMIT -1 PERCENT` is a syntax error there).
 */
const PERCENT_LIMIT = /(\s*)(?:([+-]?\s*(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|NULL))\s*%|((?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?)\s*PERCENT(?![A-Za-z0-9_$]))/iy;

/**
 * DuckDB's `LIMIT p%` / `LIMIT p PERCENT` with p a number literal or NULL (a `%` followed by
 * an operand is the remainder: `LIMIT 50 % 3` is LIMIT 2): `p%` becomes the parameter
 * `:canopy_pctK`, which the grammar takes as a LIMIT; {@link repairLimitPercents} puts a
 * `{type: 'percent', value: p}` node in its place. Returns the literals (by K) with the new text.
 */
export function rewriteLimitPercents(sql: string): Remapped & { readonly percents: readonly string[] } {
  const edits: Edit[] = [];
  const percents: string[] = [];
  if (!/%|percent/i.test(sql) || sql.includes(LIMIT_PERCENT_MARK)) return { ...applyEdits(sql, edits), percents };
  for (const { at, word } of scanTokens(sql, 0)) {
    if (word?.toUpperCase() !== 'LIMIT') continue;
    PERCENT_LIMIT.lastIndex = at + word.length;
    const m = PERCENT_LIMIT.exec(sql);
    if (m === null) continue;
    // What may follow the percentage: the end, `;`, `)` or OFFSET (anything else makes `%` the remainder).
    const next = skipSpace(sql, PERCENT_LIMIT.lastIndex);
    if (!(next >= sql.length || sql[next] === ';' || sql[next] === ')' || /^OFFSET(?![A-Za-z0-9_$])/i.test(sql.slice(next, next + 7)))) continue;
    const from = at + word.length + m[1]!.length;
    edits.push({ from, to: PERCENT_LIMIT.lastIndex, text: `:${LIMIT_PERCENT_MARK}${percents.length}` });
    percents.push((m[2] ?? m[3]!).replace(/\s+/g, ''));
  }
  return { ...applyEdits(sql, edits), percents };
}

/** Puts each `LIMIT p%` {@link rewriteLimitPercents} took out back, as a `{type: 'percent', value: p}` node (p as written). */
export function repairLimitPercents(ast: unknown, percents: readonly string[]): void {
  if (percents.length === 0) return;
  visitNodes(ast, (v) => {
    if (v.type !== 'param' || typeof v.value !== 'string' || !v.value.startsWith(LIMIT_PERCENT_MARK)) return true;
    const p = percents[Number(v.value.slice(LIMIT_PERCENT_MARK.length))];
    if (p === undefined) return true;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, { type: 'percent', value: p });
    return false;
  });
}

/** The operator `^@` stands in as while the grammar reads the text (same length; one it reads as a binary operator, canopy has no use for). */
export const STARTS_WITH_STAND_IN = '@>';

/**
 * DuckDB's starts-with operator `a ^@ b` (= starts_with(a, b)): each `^@` becomes `@>`, the
 * same length, which the grammar reads as a binary operator binding tighter than every other;
 * the chain repair in src/root/sql/parse.ts then gives it the precedence of `||` (DuckDB's
 * generic operators: left to right with `||`, looser than `+ - * /`, tighter than
 * comparisons), and {@link repairStartsWith} makes each a starts_with call. A text holding
 * `@>` itself is left as it is (`^@` is then a syntax error).
 * @returns the new text (offsets unchanged) and whether any was rewritten
 */
export function rewriteStartsWith(sql: string): { readonly text: string; readonly rewritten: boolean } {
  if (!sql.includes('^@')) return { text: sql, rewritten: false };
  const at: number[] = [];
  for (const { at: i, c } of scanTokens(sql, 0)) {
    if (c === '@' && sql[i + 1] === '>') return { text: sql, rewritten: false };
    if (c === '^' && sql[i + 1] === '@') at.push(i);
  }
  let text = sql;
  for (const i of at) text = `${text.slice(0, i)}${STARTS_WITH_STAND_IN}${text.slice(i + 2)}`;
  return { text, rewritten: at.length > 0 };
}

/** Makes each `@>` node {@link rewriteStartsWith} made a `starts_with(left, right)` call (keeping its parentheses). */
export function repairStartsWith(ast: unknown): void {
  visitNodes(ast, (v) => {
    if (v.type !== 'binary_expr' || v.operator !== STARTS_WITH_STAND_IN) return true;
    const { left, right, parentheses } = v;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, { type: 'function', name: { name: [{ type: 'default', value: 'starts_with' }] }, args: { type: 'expr_list', value: [left, right] } }, parentheses === undefined ? {} : { parentheses });
    return true;
  });
}

/** Qualifiers that name a schema (`main.lower('A')` is lower('A') in DuckDB), never a column to chain. */
const SCHEMA_NAMES = new Set(['main', 'pg_catalog', 'information_schema', 'system', 'temp']);

/**
 * DuckDB's function chaining, `x.f(args)` = `f(x, args)` (`s.upper()`, `s.replace('a', 'b')`):
 * the grammar reads it as a call of f in schema x, which becomes the call of f with the column
 * x first. A schema name (main, pg_catalog, ...) is left as it is (refused as an unknown
 * function). Chains of calls (`s.lower().upper()`) and on qualified columns (`t.s.upper()`),
 * which the grammar does not read, are rewritten before parsing ({@link rewriteCallChains}).
 */
export function repairFunctionChains(ast: unknown): void {
  visitNodes(ast, (v) => {
    if (v.type !== 'function' || !isNode(v.name) || !isNode(v.name.schema)) return true;
    const q = v.name.schema;
    if (typeof q.value !== 'string' || (q.type === 'default' && SCHEMA_NAMES.has(q.value.toLowerCase()))) return true;
    const { schema: _schema, ...name } = v.name;
    v.name = name;
    v.args = { type: 'expr_list', value: [{ type: 'column_ref', table: null, column: { expr: { type: q.type, value: q.value } } }, ...listItems(v.args)] };
    return true;
  });
}

/**
 * Reserved words node-sql-parser's grammar does not read as a name after AS, where DuckDB reads
 * any keyword (its ColLabel): `arg_max(date, delay) AS at`, `AS left`, `AS end`, `AS limit`.
 */
const RESERVED_ALIASES = new Set([
  'ALL', 'AND', 'ASC', 'AT', 'BETWEEN', 'CASE', 'CONSTRAINT', 'CREATE', 'CURRENT_DATE', 'CURRENT_TIMESTAMP', 'CURRENT_USER', 'DESC',
  'DISTINCT', 'ELSE', 'END', 'EXCEPT', 'FALSE', 'FROM', 'FULL', 'GROUP', 'HAVING', 'ILIKE', 'IN', 'INNER', 'INTERSECT', 'INTO', 'IS',
  'JOIN', 'LEFT', 'LIKE', 'LIMIT', 'NOT', 'NULL', 'OFFSET', 'ON', 'OR', 'ORDER', 'OUTER', 'RIGHT', 'SELECT', 'SESSION_USER', 'TABLE',
  'THEN', 'TRUE', 'UNION', 'USING', 'WHEN', 'WHERE', 'WINDOW', 'WITH',
]);

/**
 * A reserved word written bare after AS ({@link RESERVED_ALIASES}) quoted, `AS at` -> `AS "at"`,
 * as DuckDB reads it: an alias, named as written (the case kept). Strings, quoted names and
 * comments are left alone.
 */
export function rewriteKeywordAliases(sql: string): Remapped {
  const edits: Edit[] = [];
  if (!/\bAS\b/i.test(sql)) return applyEdits(sql, edits);
  for (const { at, word } of scanTokens(sql, 0)) {
    if (word?.toUpperCase() !== 'AS') continue;
    // The token right after AS (past spaces and comments): a bare word, not a quoted name or string.
    const next = skipSpace(sql, at + 2);
    const alias = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(next, next + 32))?.[0];
    if (alias !== undefined && next > at + 2 && RESERVED_ALIASES.has(alias.toUpperCase()) && !/[A-Za-z0-9_$]/.test(sql[next + alias.length] ?? '')) {
      edits.push({ from: next, to: next + alias.length, text: `"${alias}"` });
    }
  }
  return applyEdits(sql, edits);
}

/** Words that end a select list at depth 0. */
const LIST_END = new Set(['FROM', 'WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'QUALIFY', 'WINDOW', 'UNION', 'EXCEPT', 'INTERSECT', 'INTO']);
const ALIAS_HEAD = /([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*")[ \t\r\n]*:(?!:)/y;

/**
 * DuckDB's prefix-colon aliases in a select list, `SELECT x: i + 1, "y" : s` = `SELECT i + 1
 * AS x, s AS "y"`: the `name :` before an item is taken out and ` AS name` put after the item
 * (which ends at the next comma, closing parenthesis or clause word at its depth). `::` is a
 * cast, never an alias.
 */
export function rewritePrefixAliases(sql: string): Remapped {
  const edits: Edit[] = [];
  if (!sql.includes(':')) return applyEdits(sql, edits);
  const tokens = [...scanTokens(sql, 0)].filter((t) => !/\s/.test(t.c));
  for (let k = 0; k < tokens.length; k++) {
    if (tokens[k]!.word?.toUpperCase() !== 'SELECT') continue;
    let i = k + 1;
    // DISTINCT [ON (...)] / ALL before the first item.
    const w = (n: number): string => tokens[n]?.word?.toUpperCase() ?? '';
    if (w(i) === 'ALL') i++;
    else if (w(i) === 'DISTINCT') {
      i++;
      if (w(i) === 'ON' && tokens[i + 1]?.c === '(') {
        let depth = 0;
        for (i++; i < tokens.length; i++) {
          if (tokens[i]!.c === '(') depth++;
          else if (tokens[i]!.c === ')' && --depth === 0) break;
        }
        i++;
      }
    }
    // Item by item: `i` is the item's first token, `from` where the item's text begins.
    let from = tokens[i - 1] === undefined ? sql.length : tokens[i - 1]!.at + (tokens[i - 1]!.word?.length ?? 1);
    for (;;) {
      const itemAt = skipSpace(sql, from);
      ALIAS_HEAD.lastIndex = itemAt;
      const m = ALIAS_HEAD.exec(sql);
      const exprFrom = m === null ? itemAt : skipSpace(sql, ALIAS_HEAD.lastIndex);
      // The item's end: the next comma, `)`, `;` or clause word at depth 0.
      let depth = 0;
      let j = i;
      while (j < tokens.length && tokens[j]!.at < exprFrom) j++;
      let end = sql.length;
      let next: number | null = null;
      let named = false;
      for (; j < tokens.length; j++) {
        const t = tokens[j]!;
        if (t.c === '(') depth++;
        else if (t.c === ')' && depth-- === 0) {
          end = t.at;
          break;
        } else if (depth === 0 && (t.c === ';' || (t.word !== null && LIST_END.has(t.word.toUpperCase())))) {
          end = t.at;
          break;
        } else if (depth === 0 && t.c === ',') {
          end = t.at;
          next = j + 1;
          break;
        } else if (depth === 0 && t.word?.toUpperCase() === 'AS') named = true;
      }
      // An item with both a prefix alias and AS is left as it is: a syntax error at its `:`, as in DuckDB.
      if (m !== null && !named) {
        // After the item's last token (before spaces and comments, so the alias is not commented out).
        let last = exprFrom;
        for (let p = skipSpace(sql, exprFrom); p < end; p = skipSpace(sql, last)) last = sql[p] === "'" || sql[p] === '"' ? skipQuoted(sql, p) : skipToken(sql, p);
        edits.push({ from: itemAt, to: exprFrom, text: '' }, { from: last, to: last, text: ` AS ${m[1]!}` });
      }
      if (next === null) break;
      i = next;
      from = end + 1;
    }
  }
  return applyEdits(sql, edits);
}

const DOLLAR_TAG = /\$([A-Za-z_\u0080-\uffff][A-Za-z0-9_\u0080-\uffff]*)?\$/y;

/**
 * Dollar-quoted strings, `$$it's$$` and `$tag$...$tag$` (PostgreSQL's and DuckDB's; the body
 * is taken as written, no escapes): each becomes the standard string literal `'it''s'`. A
 * body holding a backslash, or a tagged one holding `'`, is refused (the backslash guard of
 * src/root/sql/parse.ts reads the text before this rewrite); one left open is left as it is
 * (a syntax error). Strings, quoted names and comments are skipped.
 */
export function rewriteDollarQuotes(sql: string): Remapped {
  const edits: Edit[] = [];
  if (!sql.includes('$')) return applyEdits(sql, edits);
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    if (c === "'" || c === '"') i = skipQuoted(sql, i);
    else if (c === '-' && sql[i + 1] === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && sql[i + 1] === '*') i = skipBlockComment(sql, i);
    else if (c === '$' && !/[A-Za-z0-9_$]/.test(sql[i - 1] ?? ' ')) {
      DOLLAR_TAG.lastIndex = i;
      const m = DOLLAR_TAG.exec(sql);
      const close = m === null ? -1 : sql.indexOf(m[0], i + m[0].length);
      if (m === null || close < 0) {
        i++;
        continue;
      }
      const body = sql.slice(i + m[0].length, close);
      if (body.includes('\\') || (m[1] !== undefined && body.includes("'"))) fail('CANOPY_ERR_UNSUPPORTED', `a dollar-quoted string holding ${body.includes('\\') ? 'a backslash' : "a quote (with a tag)"} is not supported; write it as a '...' string`);
      edits.push({ from: i, to: close + m[0].length, text: `'${body.replaceAll("'", "''")}'` });
      i = close + m[0].length;
    } else i++;
  }
  return applyEdits(sql, edits);
}

/** Marker aliases of the items {@link rewriteStarLists} adds after a star: `"~rK~name"` (REPLACE), `"~nK"` (RENAME). */
const STAR_LIST_MARK = /^~([rn])(\d+)(?:~(.*))?$/s;

/** A RENAME entry: the column's dotted parts as written and its new name. */
export type Renamed = readonly [readonly string[], string];

const RENAME_ITEM = /^\s*((?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*")(?:\s*\.\s*(?:[A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*"))*)\s+AS\s+([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*")\s*$/i;
const unquote = (w: string): string => (w.startsWith('"') ? w.slice(1, -1).replaceAll('""', '"') : w);

/**
 * DuckDB's `* REPLACE (expr AS col, ...)` and `* RENAME (col AS name, ...)` after a star (also
 * `t.*`, after EXCLUDE, one entry without parentheses): REPLACE's entries become SELECT items
 * after the star aliased `"~rK~col"` (the expressions stay in place, so positions hold); a
 * RENAME list, plain names, is taken out (kept by K) and an item `NULL AS "~nK"` put there.
 * {@link repairStarLists} moves both onto the star's node after parsing. A text naming such a
 * marker itself is left as it is.
 */
export function rewriteStarLists(sql: string): Remapped & { readonly renames: readonly Renamed[][] } {
  const edits: Edit[] = [];
  const renames: Renamed[][] = [];
  if (!/\b(replace|rename)\b/i.test(sql) || /"~[rn]\d/.test(sql)) return { ...applyEdits(sql, edits), renames };
  let k = 0;
  const tokens = [...scanTokens(sql, 0)];
  const solid = tokens.filter((t) => !/\s/.test(t.c));
  for (let n = 0; n < solid.length; n++) {
    const t = solid[n]!;
    if (t.c !== '*') continue;
    // A star SELECT item: after SELECT, DISTINCT, ALL, a comma or a qualifier's `.` (`2 * replace(...)` is a product).
    const before = solid[n - 1];
    const word = before?.word?.toUpperCase();
    if (!(before?.c === ',' || before?.c === '.' || sql[t.at - 1] === '.' || word === 'SELECT' || word === 'DISTINCT' || word === 'ALL')) continue;
    let at = skipSpace(sql, t.at + 1);
    for (;;) {
      const kw = /^(REPLACE|RENAME)(?![A-Za-z0-9_$])/i.exec(sql.slice(at, at + 8))?.[1]?.toUpperCase();
      if (kw === undefined) break;
      const open = skipSpace(sql, at + kw.length);
      const close = sql[open] === '(' ? closingParen(sql, open) : -1;
      if (close < 0) break; // only the parenthesised form
      // The entries: split at depth-0 commas.
      const entries: [number, number][] = [];
      let depth = 0;
      let from = open + 1;
      for (const u of scanTokens(sql, open + 1)) {
        if (u.at >= close) break;
        if (u.c === '(') depth++;
        else if (u.c === ')') depth--;
        else if (u.c === ',' && depth === 0) {
          entries.push([from, u.at]);
          from = u.at + 1;
        }
      }
      if (sql.slice(from, close).trim() !== '') entries.push([from, close]);
      if (kw === 'RENAME') {
        const list: Renamed[] = [];
        for (const [a, b] of entries) {
          const m = RENAME_ITEM.exec(sql.slice(a, b));
          if (m === null) return { ...applyEdits(sql, []), renames: [] };
          list.push([m[1]!.split(/\s*\.\s*/).map(unquote), unquote(m[2]!)]);
        }
        edits.push({ from: at, to: close + 1, text: `, NULL AS "~n${k}"` });
        renames[k] = list;
      } else {
        // Each entry's alias: the word after its last depth-0 AS.
        const aliases: [number, number, string][] = [];
        for (const [a, b] of entries) {
          let asAt = -1;
          let d = 0;
          for (const u of scanTokens(sql, a)) {
            if (u.at >= b) break;
            if (u.c === '(') d++;
            else if (u.c === ')') d--;
            else if (d === 0 && u.word?.toUpperCase() === 'AS') asAt = u.at;
          }
          const name = asAt < 0 ? null : /^\s*([A-Za-z_][A-Za-z0-9_$]*|"(?:[^"]|"")*")\s*$/.exec(sql.slice(asAt + 2, b));
          if (name === null) return { ...applyEdits(sql, []), renames: [] };
          const nameAt = sql.indexOf(name[1]!, asAt + 2);
          aliases.push([nameAt, nameAt + name[1]!.length, unquote(name[1]!)]);
        }
        edits.push({ from: at, to: open + 1, text: ', ' }, { from: close, to: close + 1, text: ' ' });
        for (const [a, b, name] of aliases) edits.push({ from: a, to: b, text: `"~r${k}~${name.replaceAll('"', '""')}"` });
      }
      k++;
      at = skipSpace(sql, close + 1);
    }
  }
  return { ...applyEdits(sql, edits), renames };
}

/**
 * Moves the items {@link rewriteStarLists} added onto the star before them: `replace` (the
 * column names and their expressions) and `rename` (the entries), on the star's node.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a marker with no star before it
 */
export function repairStarLists(ast: unknown, renames: readonly Renamed[][]): void {
  visitNodes(ast, (v) => {
    if (v.type !== 'select' || !Array.isArray(v.columns)) return true;
    let star: Record<string, unknown> | null = null;
    const kept: unknown[] = [];
    for (const c of v.columns as unknown[]) {
      const alias = isNode(c) && typeof c.as === 'string' ? STAR_LIST_MARK.exec(c.as) : null;
      if (alias === null || !isNode(c)) {
        kept.push(c);
        const e = isNode(c) ? c.expr : null;
        star = isNode(e) && e.type === 'column_ref' && e.column === '*' ? (e as Record<string, unknown>) : null;
        continue;
      }
      if (star === null) return fail('CANOPY_ERR_BAD_QUERY', 'REPLACE and RENAME follow a * in the SELECT list');
      if (alias[1] === 'r') star.replace = [...((star.replace as unknown[] | undefined) ?? []), { name: alias[3]!, expr: c.expr }];
      else star.rename = [...((star.rename as unknown[] | undefined) ?? []), ...(renames[Number(alias[2])] ?? [])];
    }
    v.columns = kept;
    return true;
  });
}

/**
 * DuckDB type names node-sql-parser's grammar does not read after `::` or a CAST's `AS` (a
 * syntax error there): the unsigned integers, STRING, and types canopy does not hold, which
 * are then refused by name as a CAST to them (src/root/sql/expressions.ts) rather than as a
 * syntax error. MEDIUMINT, the stand-in, is listed so a user's own is told apart.
 */
const UNREAD_TYPES = new Set([
  'UTINYINT', 'USMALLINT', 'UINTEGER', 'UBIGINT', 'UHUGEINT', 'UINT8', 'UINT16', 'UINT32', 'UINT64', 'UINT128',
  'HUGEINT', 'INT128', 'STRING', 'BLOB', 'VARBINARY', 'BITSTRING', 'TIMESTAMP_S', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'MEDIUMINT',
]);
/** The type the grammar reads in place of one of {@link UNREAD_TYPES}: `MEDIUMINT(k)`, k the index of the name. */
const TYPE_STAND_IN = 'MEDIUMINT';

/**
 * A type name of {@link UNREAD_TYPES} written as a cast target (after `::`, or after the `AS`
 * of a `CAST(` / `TRY_CAST(` at its own depth, so an alias `x AS string` is left as it is)
 * becomes `MEDIUMINT(k)`, which the grammar reads as a type with a length; k indexes the
 * returned names, which {@link repairCastTypes} puts back. Strings, quoted identifiers and
 * comments are skipped.
 */
export function rewriteCastTypes(sql: string): Remapped & { readonly types: readonly string[] } {
  const edits: Edit[] = [];
  const types: string[] = [];
  if (!/UTINYINT|USMALLINT|UINT|UBIGINT|UHUGEINT|HUGEINT|STRING|BLOB|VARBINARY|BITSTRING|TIMESTAMP_|MEDIUMINT/i.test(sql)) return { ...applyEdits(sql, edits), types };
  // For each open parenthesis: whether it opens a CAST / TRY_CAST.
  const parens: boolean[] = [];
  let prevWord: string | null = null;
  let prevC = '';
  let afterColons = false;
  for (const { at, word, c } of scanTokens(sql, 0)) {
    const target = afterColons || (prevWord === 'AS' && parens.length > 0 && parens[parens.length - 1] === true);
    if (word !== null && target && UNREAD_TYPES.has(word.toUpperCase())) {
      edits.push({ from: at, to: at + word.length, text: `${TYPE_STAND_IN}(${types.length})` });
      types.push(word.toUpperCase());
    }
    if (c === '(') parens.push(prevWord === 'CAST' || prevWord === 'TRY_CAST');
    else if (c === ')') parens.pop();
    if (!/\s/.test(c)) {
      afterColons = c === ':' && prevC === ':' && sql[at - 1] === ':';
      prevWord = word === null ? null : word.toUpperCase();
      prevC = c;
    }
  }
  return { ...applyEdits(sql, edits), types };
}

/** Puts back the type names {@link rewriteCastTypes} stood in for, in every cast target of the tree. */
export function repairCastTypes(ast: unknown, types: readonly string[]): void {
  if (types.length === 0) return;
  visitNodes(ast, (v) => {
    if (v.type !== 'cast' || !Array.isArray(v.target)) return true;
    for (const x of v.target as unknown[]) {
      if (!isNode(x)) continue;
      const t = x as Record<string, unknown>;
      if (t.dataType !== TYPE_STAND_IN || typeof t.length !== 'number' || types[t.length] === undefined) continue;
      t.dataType = types[t.length];
      delete t.length;
      delete t.scale;
      delete t.parentheses;
    }
    return true;
  });
}

/** A token of {@link rewriteCallChains}: [at, end), its kind. */
interface ChainToken {
  readonly at: number;
  readonly end: number;
  readonly kind: 'word' | 'quoted' | 'string' | 'number' | 'char';
  readonly text: string;
}

/** Words that may stand before `(` without naming a function (the parenthesis opens an expression). */
const NOT_CALLS = new Set([
  'SELECT', 'DISTINCT', 'ALL', 'AND', 'OR', 'NOT', 'IN', 'IS', 'BETWEEN', 'LIKE', 'ILIKE', 'GLOB', 'SIMILAR', 'TO', 'ESCAPE', 'CASE', 'WHEN', 'THEN', 'ELSE', 'END',
  'AS', 'ON', 'BY', 'FROM', 'WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'QUALIFY', 'WINDOW', 'OVER', 'FILTER', 'WITH', 'EXISTS', 'ANY', 'SOME', 'VALUES', 'USING',
  'JOIN', 'UNION', 'EXCEPT', 'INTERSECT', 'RETURN', 'INTERVAL', 'ASC', 'DESC', 'NULLS', 'EXCLUDE', 'RENAME', 'ROLLUP', 'CUBE', 'SETS',
]);

/** The tokens of `sql` past whitespace and comments: words, quoted identifiers, strings, numbers, other characters. */
function chainTokens(sql: string): ChainToken[] {
  const out: ChainToken[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i++;
    else if (c === '-' && sql[i + 1] === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && sql[i + 1] === '*') i = skipBlockComment(sql, i);
    else {
      const end = c === "'" || c === '"' || c === '`' ? skipQuoted(sql, i) : skipToken(sql, i);
      const kind = c === "'" ? 'string' : c === '"' || c === '`' ? 'quoted' : /[A-Za-z_]/.test(c) ? 'word' : /[0-9.]/.test(c) && end > i + 1 ? 'number' : 'char';
      out.push({ at: i, end, kind, text: sql.slice(i, end) });
      i = end;
    }
  }
  return out;
}

/**
 * DuckDB's function chaining where the grammar does not read it: on a call or a parenthesised
 * expression (`s.upper().lower()`, `(j + 1).abs()`) and on a qualified column (`t.s.upper()`):
 * `R.f(args)` becomes `f(R, args)` (`f(R)` without arguments). On a string literal
 * (`'abc'.upper()`) it stays a syntax error, as in DuckDB. `x.f(args)` on a bare name is left to the grammar, which reads it as f in schema
 * x ({@link repairFunctionChains}). Strings, quoted identifiers and comments are skipped.
 */
export function rewriteCallChains(sql: string): Remapped {
  if (!/\)\s*\.|[A-Za-z0-9_$"`]\.[A-Za-z_"`][A-Za-z0-9_$"`]*\./.test(sql)) return applyEdits(sql, []);
  const tokens = chainTokens(sql);
  const isName = (t: ChainToken | undefined): boolean => t !== undefined && (t.kind === 'word' || t.kind === 'quoted');
  // The index of the `(` matching the `)` at token `k`, or -1.
  const opening = (k: number): number => {
    let depth = 0;
    for (let q = k; q >= 0; q--) {
      if (tokens[q]!.text === ')') depth++;
      else if (tokens[q]!.text === '(' && --depth === 0) return q;
    }
    return -1;
  };
  // The first token of the primary expression ending at token `k` (a call, a parenthesised
  // expression, a possibly qualified name), and whether the grammar cannot read a chain on it; -1 when none.
  const primaryStart = (k: number): { start: number; chained: boolean } => {
    const t = tokens[k];
    if (t === undefined) return { start: -1, chained: false };
    if (t.text === ')') {
      const q = opening(k);
      if (q < 0) return { start: -1, chained: false };
      const name = tokens[q - 1];
      if (!isName(name)) return { start: q, chained: true };
      // A chain on its own: x.f(...), R.g(...).
      if (tokens[q - 2]?.text === '.' && tokens[q - 2]!.end === name!.at) {
        const inner = primaryStart(q - 3);
        return { start: inner.start, chained: inner.start >= 0 };
      }
      // f(...), or a keyword before a parenthesised expression.
      return { start: name!.kind === 'word' && NOT_CALLS.has(name!.text.toUpperCase()) ? q : q - 1, chained: true };
    }
    if (!isName(t)) return { start: -1, chained: false };
    let start = k;
    while (tokens[start - 1]?.text === '.' && isName(tokens[start - 2])) start -= 2;
    return { start, chained: start < k };
  };
  const chains: { start: number; dot: number; open: number; empty: boolean }[] = [];
  for (let k = 2; k + 1 < tokens.length; k++) {
    const dot = tokens[k - 1]!;
    const name = tokens[k]!;
    const open = tokens[k + 1]!;
    if (dot.text !== '.' || name.kind !== 'word' || open.text !== '(' || dot.end !== name.at || (tokens[k - 2]!.text !== ')' && tokens[k - 2]!.end !== dot.at)) continue;
    const { start, chained } = primaryStart(k - 2);
    if (start < 0 || !chained) continue;
    chains.push({ start: tokens[start]!.at, dot: dot.at, open: open.end, empty: tokens[k + 2]?.text === ')' });
  }
  // Outer chains (later in the text) open first at a shared start: pushed first, kept first by the stable sort.
  const edits: Edit[] = [];
  for (const c of chains.reverse()) {
    const fn = sql.slice(tokens.find((t) => t.at === c.dot)!.end, c.open - 1).trimEnd();
    edits.push({ from: c.start, to: c.start, text: `${fn}(` }, { from: c.dot, to: c.open, text: c.empty ? '' : ', ' });
  }
  return applyEdits(sql, edits);
}

/** The operator the grammar reads in place of DuckDB's power operators `^` and `**`. */
export const POWER_STAND_IN = '&&';

/** DuckDB's operator characters: a `^` or `**` touching one of them is part of another operator there (`^-` is refused). */
const OPERATOR_CHARS = new Set('~!@#^&|`?+-*/%<>='.split(''));

/**
 * DuckDB's power operators `a ^ b` and `a ** b` (= power(a, b), a DOUBLE; left to right,
 * tighter than `*` and `/`, looser than unary minus): each becomes `&&`, which the grammar
 * reads as a binary operator binding tighter than `*` and looser than unary minus; the chain
 * repair in src/root/sql/parse.ts gives it its precedence among the others, and
 * {@link repairPowers} makes each a power call. A `^` touching another operator character is
 * left as it is (DuckDB reads `^-`, `^@` ... as other operators; `^@` is starts-with), as is
 * `**` but before a sign (`2**-1` is 2 ** -1 there). A text holding `&&` itself is left as it
 * is (`^` is then a syntax error).
 */
export function rewritePowers(sql: string): Remapped & { readonly rewritten: boolean } {
  const edits: Edit[] = [];
  if (!sql.includes('^') && !sql.includes('**')) return { ...applyEdits(sql, edits), rewritten: false };
  let skip = -1;
  for (const { at, c } of scanTokens(sql, 0)) {
    if (at <= skip) continue;
    if (c === '&' && sql[at + 1] === '&') return { ...applyEdits(sql, []), rewritten: false };
    const before = OPERATOR_CHARS.has(sql[at - 1] ?? ' ');
    if (c === '^' && !before && !OPERATOR_CHARS.has(sql[at + 1] ?? ' ')) edits.push({ from: at, to: at + 1, text: POWER_STAND_IN });
    else if (c === '*' && sql[at + 1] === '*') {
      const after = sql[at + 2] ?? ' ';
      if (!before && (!OPERATOR_CHARS.has(after) || after === '-' || after === '+')) edits.push({ from: at, to: at + 2, text: POWER_STAND_IN });
      skip = at + 1;
    }
  }
  return { ...applyEdits(sql, edits), rewritten: edits.length > 0 };
}

/** Makes each `&&` node {@link rewritePowers} made a `power(left, right)` call (keeping its parentheses). */
export function repairPowers(ast: unknown): void {
  visitNodes(ast, (v) => {
    if (v.type !== 'binary_expr' || v.operator !== POWER_STAND_IN) return true;
    const { left, right, parentheses } = v;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, { type: 'function', name: { name: [{ type: 'default', value: 'power' }] }, args: { type: 'expr_list', value: [left, right] } }, parentheses === undefined ? {} : { parentheses });
    return true;
  });
}

/**
 * DuckDB's `a == b` (= `a = b`), which the grammar does not read: each `==` not touching
 * another operator character (but a sign after it) becomes `= ` (the same length, so offsets are kept). Strings,
 * quoted identifiers and comments are skipped.
 */
export function rewriteDoubleEquals(sql: string): string {
  if (!sql.includes('==')) return sql;
  let text = sql;
  let skip = -1;
  for (const { at, c } of scanTokens(sql, 0)) {
    if (at <= skip || c !== '=' || sql[at + 1] !== '=') continue;
    skip = at + 1;
    // `==-1` is `== -1` in DuckDB (an operator of these characters does not end in a sign).
    const after = sql[at + 2] ?? ' ';
    if (OPERATOR_CHARS.has(sql[at - 1] ?? ' ') || (OPERATOR_CHARS.has(after) && after !== '-' && after !== '+')) continue;
    text = `${text.slice(0, at)}= ${text.slice(at + 2)}`;
  }
  return text;
}

/**
 * DuckDB's `WITH name AS [NOT] MATERIALIZED (...)`: a hint on how to run a common table
 * expression, which does not change its rows; the grammar does not read it, so the words are
 * blanked (the same length, so offsets are kept) where they follow AS and precede `(`.
 * Strings, quoted identifiers and comments are skipped.
 */
export function rewriteMaterialized(sql: string): string {
  if (!/materialized/i.test(sql)) return sql;
  let text = sql;
  const words: { at: number; word: string }[] = [];
  for (const { word, c, at } of scanTokens(sql, 0)) {
    if (word !== null) words.push({ at, word: word.toUpperCase() });
    else if (!/\s/.test(c)) {
      const [as, not, hint] = [words.at(-3), words.at(-2), words.at(-1)];
      // Only spaces and comments (skipped by the scan) lie between the words and the `(`.
      if (c === '(' && hint?.word === 'MATERIALIZED') {
        const from = not?.word === 'NOT' && as?.word === 'AS' ? not.at : not?.word === 'AS' ? hint.at : -1;
        if (from >= 0) text = text.slice(0, from) + ' '.repeat(hint.at + hint.word.length - from) + text.slice(hint.at + hint.word.length);
      }
      words.length = 0;
    }
  }
  return text;
}

/** DuckDB's bitwise operators and the operators the grammar reads in their place (each binds tighter than `*` there). */
export const BITWISE_STAND_INS: Readonly<Record<string, string>> = { '<<': '<@', '>>': '#-', '&': '?&', '|': '?|' };

/**
 * DuckDB's bitwise operators `a & b`, `a | b`, `a << b`, `a >> b` (generic operators there: left
 * to right with `||`, looser than `+ - * /`): each becomes an operator the grammar reads
 * ({@link BITWISE_STAND_INS}); the chain repair in src/root/sql/parse.ts gives it that
 * precedence and {@link repairBitwise} puts the operator back. An operator touching another
 * operator character is left as it is (DuckDB reads `&-`, `||`, `->>` ... as other operators;
 * `<<` and `>>` may be followed by a sign, as there). A text holding a stand-in itself is left
 * as it is.
 */
export function rewriteBitwise(sql: string): Remapped & { readonly rewritten: boolean } {
  const edits: Edit[] = [];
  if (!/[&|]|<<|>>/.test(sql)) return { ...applyEdits(sql, edits), rewritten: false };
  const standIns = Object.values(BITWISE_STAND_INS);
  let skip = -1;
  for (const { at, c } of scanTokens(sql, 0)) {
    if (at <= skip) continue;
    if (standIns.includes(sql.slice(at, at + 2))) return { ...applyEdits(sql, []), rewritten: false };
    const shift = (c === '<' || c === '>') && sql[at + 1] === c;
    if (!shift && c !== '&' && c !== '|') continue;
    const op = shift ? c + c : c;
    const end = at + op.length;
    skip = end - 1;
    const after = sql[end] ?? ' ';
    if (OPERATOR_CHARS.has(sql[at - 1] ?? ' ') || (OPERATOR_CHARS.has(after) && !(shift && (after === '-' || after === '+')))) continue;
    edits.push({ from: at, to: end, text: BITWISE_STAND_INS[op]! });
  }
  return { ...applyEdits(sql, edits), rewritten: edits.length > 0 };
}

/** Puts back each bitwise operator {@link rewriteBitwise} stood in for. */
export function repairBitwise(ast: unknown): void {
  const back = new Map(Object.entries(BITWISE_STAND_INS).map(([op, standIn]) => [standIn, op]));
  visitNodes(ast, (v) => {
    if (v.type === 'binary_expr' && typeof v.operator === 'string' && back.has(v.operator)) (v as Record<string, unknown>).operator = back.get(v.operator);
    return true;
  });
}

/**
 * SQL's `substring(s FROM a [FOR b])` and `substring(s FOR b)`, which the grammar does not read:
 * `substring(s, a[, b])` and `substring(s, 1, b)`, as DuckDB reads them. (`FOR b FROM a`, which
 * DuckDB also reads, is left as it is: a syntax error.) Strings, quoted identifiers and
 * comments are skipped.
 */
export function rewriteSubstringFrom(sql: string): Remapped {
  const edits: Edit[] = [];
  if (!/substring/i.test(sql) || !/\b(?:FROM|FOR)\b/i.test(sql)) return applyEdits(sql, edits);
  let prev = '';
  for (const { at, word, c } of scanTokens(sql, 0)) {
    const after = prev;
    if (!/\s/.test(c)) prev = c;
    if (word?.toLowerCase() !== 'substring' || after === '.') continue;
    const open = skipSpace(sql, at + word.length);
    if (sql[open] !== '(') continue;
    const close = closingParen(sql, open);
    if (close < 0) continue;
    let depth = 0;
    const found: { word: string; at: number }[] = [];
    for (const t of scanTokens(sql.slice(0, close), open + 1)) {
      if (t.c === '(') depth++;
      else if (t.c === ')') depth--;
      else if (depth === 0 && t.word !== null && /^(FROM|FOR)$/i.test(t.word)) found.push({ word: t.word.toUpperCase(), at: t.at });
    }
    const shape = found.map((f) => f.word).join(' ');
    if (shape === 'FROM' || shape === 'FROM FOR') for (const f of found) edits.push({ from: f.at, to: f.at + f.word.length, text: ',' });
    else if (shape === 'FOR') edits.push({ from: found[0]!.at, to: found[0]!.at + 3, text: ', 1,' });
  }
  return applyEdits(sql, edits);
}
