/**
 * Rewrites of the SQL text into constructs node-sql-parser's PostgreSQL grammar reads, and
 * the repair of the parsed tree after. Every rewrite keeps the text's length and the offset
 * of every token it does not touch, so parse errors keep their positions:
 * - `sum|avg|min|max|bit_xor(DISTINCT x)` (the grammar reads DISTINCT only inside count, and there
 *   not before a parenthesis: `count(DISTINCT (a) + 1)`) becomes a call of the quoted name
 *   `"~sum"(x)`, turned back into the `aggr_func` node with `distinct` that count(DISTINCT x) gives;
 *   `bit_and|bit_or|bool_and|bool_or|arg_min|arg_max|...(DISTINCT ...)` the same way, turned
 *   back into the plain call without DISTINCT, which does not change their answer;
 * - `f(...) FILTER (WHERE cond)` on a call the grammar reads as a plain function (stddev,
 *   count_if, arg_min, approx_quantile, ...; it reads FILTER only on count/sum/min/max/avg)
 *   becomes `f(..., '~fK')`: the marker argument is taken out again and `cond`, parsed on its
 *   own at its own offset, becomes the node's `filter` as the grammar gives it on sum();
 * - `a IS [NOT] DISTINCT FROM b` becomes `a AND ~ b` (`a OR ~ b`), rebuilt after parsing as a
 *   binary_expr with the operator `IS [NOT] DISTINCT FROM` at DuckDB's precedence (looser than
 *   comparisons, BETWEEN, IN and LIKE, tighter than NOT/AND/OR; not chained with another IS):
 *   {@link rewriteDistinctFrom}. Done only when the query holds no prefix `~` of its own (a
 *   bitwise NOT, which looks like the marker; the regular-expression `s ~ 'a'` is infix);
 * - `a // b` (integer division) becomes `a /+b`, then a `//` binary_expr ({@link rewriteIntDivision});
 * - `a GLOB b` becomes `a ~* b`, then a `GLOB` binary_expr ({@link rewriteGlob});
 * - `FETCH FIRST n ROWS ONLY`, `OFFSET n ROWS`, `GROUP BY ()` and `extract(f FROM x)`
 *   as the grammar's own constructs ({@link rewriteClauses}).
 * A LIMIT (or FETCH FIRST) or OFFSET given twice, which the grammar reads and DuckDB refuses,
 * is refused ({@link repeatedRowClause}).
 * Strings, quoted identifiers and comments are skipped as the parser reads them.
 */
import { CanopyError, type SourcePosition } from '../../merge/errors.ts';
import { isNode, listItems, upper, visitNodes } from './ast.ts';
import { fail } from './errors.ts';
import { functionName, intervalUnit, isAggregateCall } from './expressions.ts';
import { WORD_TOKEN, skipBlockComment, skipQuoted } from './lexer.ts';

/** Aggregates the grammar reads FILTER (WHERE ...) on by itself. */
const NATIVE_FILTER = new Set(['count', 'sum', 'min', 'max', 'avg']);
/** Aggregates the grammar does not read DISTINCT in (count it reads, unless its argument opens with a parenthesis). */
/**
 * Call aggregates whose answer DISTINCT does not change (a fold that ignores repeats: AND, OR,
 * the best row's argument): `bit_and(DISTINCT x)` is read as `bit_and(x)`, as DuckDB answers it.
 */
const IDEMPOTENT_UNDER_DISTINCT = ['bit_and', 'bit_or', 'bool_and', 'bool_or', 'arg_min', 'arg_max', 'min_by', 'max_by', 'argmin', 'argmax'];
const DISTINCT_FNS = new Set(['sum', 'avg', 'min', 'max', 'count', 'bit_xor', ...IDEMPOTENT_UNDER_DISTINCT]);
const DISTINCT_PREFIX = '~';
const FILTER_MARKER = /^~f(\d+)$/;

/** A FILTER condition taken out of the text: its text, its offset there, and the offset of its FILTER keyword. */
export interface FilterText {
  readonly offset: number;
  readonly text: string;
  readonly keyword: number;
}

/** Why the text is refused before parsing: a syntax error DuckDB reports and the grammar would not, at `offset`. */
export interface Refusal {
  readonly offset: number;
  readonly message: string;
}

/**
 * The name `GROUP BY ()` is parsed as: the empty quoted identifier `""`, as long as `()` and
 * one no user may write (DuckDB refuses a zero-length identifier, and so does
 * {@link zeroLengthIdentifier}).
 */
export const GROUP_BY_EMPTY = '';

/**
 * The function name `GROUPING SETS (...)` is parsed as (a call of the quoted identifier
 * `"⊞"`; src/root/sql/grouping-sets.ts reads it); inside the GROUP BY clause an empty set
 * `()` first or after `(` or `,` is {@link GROUP_BY_EMPTY}, as `GROUP BY ()` is.
 */
export const GROUPING_SETS_FN = '⊞';

/** The rewritten text (same length as the input) and what the repair needs. */
export interface Rewritten {
  readonly text: string;
  readonly filters: readonly FilterText[];
  /** IS [NOT] DISTINCT FROM was rewritten to the marked AND/OR. */
  readonly distinctFrom: boolean;
  /** `//` was rewritten to `/+`. */
  readonly intDivision: boolean;
  /** A unary minus before a zero literal cast with `::` was rewritten to `~` (see {@link rewriteNegatedZeroCasts}). */
  readonly negatedZeroCast: boolean;
  /** `GLOB` was rewritten to `~*` (see {@link rewriteGlob}). */
  readonly glob: boolean;
  /** A syntax error found in the text (reported at its offset instead of parsing), or null. */
  readonly refusal: Refusal | null;
  /** [from, to) of each IS [NOT] DISTINCT FROM rewritten: a syntax error inside one is reported at its start. */
  readonly spans: readonly (readonly [number, number])[];
}

/** One step of a scan: the offset after a quoted token or comment starting at `i`, or -1. */
function skipOpaque(sql: string, i: number): number {
  const c = sql[i];
  const next = sql[i + 1];
  if (c === "'" || c === '"' || c === '`') return skipQuoted(sql, i);
  if (c === '-' && next === '-') return sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
  if (c === '/' && next === '*') return skipBlockComment(sql, i);
  return -1;
}

/** The offset of the next character at or after `i` that is neither whitespace nor a comment. */
export function skipSpace(sql: string, i: number): number {
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i]!)) i++;
    if ((sql[i] === '-' && sql[i + 1] === '-') || (sql[i] === '/' && sql[i + 1] === '*')) i = skipOpaque(sql, i);
    else return i;
  }
}

/** The word (identifier or keyword) at `i`, or null. */
function wordAt(sql: string, i: number): string | null {
  WORD_TOKEN.lastIndex = i;
  return WORD_TOKEN.exec(sql)?.[0] ?? null;
}

/**
 * The tokens of `sql` from `from` that the clause scanners read: words, parentheses and other
 * single characters, each with its offset; strings, quoted identifiers and comments skipped.
 */
export function* scanTokens(sql: string, from: number): Generator<{ readonly at: number; readonly word: string | null; readonly c: string }> {
  let i = from;
  while (i < sql.length) {
    const skipped = skipOpaque(sql, i);
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    const word = wordAt(sql, i);
    yield { at: i, word, c: sql[i]! };
    i += word === null ? 1 : word.length;
  }
}

/** `text` with [from, to) replaced by `by` padded with spaces to the same length. */
function splice(text: string, from: number, to: number, by: string): string {
  return text.slice(0, from) + by.padEnd(to - from, ' ') + text.slice(to);
}

/** The offset of the `)` closing the `(` at `open`, or -1. */
export function closingParen(sql: string, open: number): number {
  let depth = 0;
  for (const { at, c } of scanTokens(sql, open)) {
    if (c === '(') depth++;
    else if (c === ')' && --depth === 0) return at;
  }
  return -1;
}

/** `sum(DISTINCT x)` -> `"~sum"(x)`, for sum, avg, min and max. */
function rewriteDistinctCalls(sql: string): string {
  let text = sql;
  let i = 0;
  while (i < text.length) {
    const skipped = skipOpaque(text, i);
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    const word = wordAt(text, i);
    if (word === null) {
      i++;
      continue;
    }
    const open = skipSpace(text, i + word.length);
    const inner = text[open] === '(' ? skipSpace(text, open + 1) : -1;
    const after = inner < 0 ? null : wordAt(text, inner);
    // count(DISTINCT x) the grammar reads, but not an argument opening with a parenthesis: `count(DISTINCT (a) + 1)`.
    const name = word.toLowerCase();
    const rewrites = DISTINCT_FNS.has(name) && (name !== 'count' || text[skipSpace(text, inner + (after?.length ?? 0))] === '(');
    if (rewrites && text[i - 1] !== '.' && after?.toUpperCase() === 'DISTINCT') {
      const end = inner + after.length;
      text = splice(text, i, end, `"${DISTINCT_PREFIX}${word.toLowerCase()}"(`);
      i = end;
      continue;
    }
    i += word.length;
  }
  return text;
}

/** Words that end the right operand of IS [NOT] DISTINCT FROM (outside parentheses and CASE ... END). */
const OPERAND_END = new Set(['AND', 'OR', 'THEN', 'ELSE', 'WHEN', 'END', 'AS', 'FROM', 'WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT', 'OFFSET', 'FETCH', 'WINDOW', 'ASC', 'DESC', 'NULLS', 'UNION']);

/**
 * The offset of an `IS` that follows the right operand of an IS [NOT] DISTINCT FROM ending at
 * `from` (`a IS DISTINCT FROM b IS NULL`, `... IS DISTINCT FROM c`), or -1. DuckDB reads IS
 * without associativity and refuses these; the grammar would take the IS into the operand.
 */
function chainedIs(sql: string, from: number): number {
  let depth = 0;
  let between = false;
  for (const { at, word, c } of scanTokens(sql, from)) {
    if (c === '(' || c === ')') {
      depth += c === '(' ? 1 : -1;
      if (depth < 0) return -1;
      continue;
    }
    if (word === null) {
      if (depth === 0 && (c === ',' || c === ';')) return -1;
      continue;
    }
    const w = word.toUpperCase();
    if (w === 'CASE') depth++;
    else if (w === 'END' && depth > 0) depth--;
    else if (depth === 0 && w === 'IS') return at;
    else if (depth === 0 && w === 'BETWEEN') between = true;
    else if (depth === 0 && w === 'AND' && between) between = false;
    else if (depth === 0 && OPERAND_END.has(w)) return -1;
  }
  return -1;
}

/**
 * `a IS DISTINCT FROM b` -> `a AND ~ b`, `a IS NOT DISTINCT FROM b` -> `a OR ~ b` (a NOT
 * opening `b` goes before the `~`: `a AND NOT ~ c`). The grammar has no operator between
 * comparisons and NOT, where DuckDB (and PostgreSQL) read IS; so the operator is parsed at the
 * level of AND/OR, marked by the unary `~` on its right operand, and rebuilt tighter than
 * AND, OR and NOT but looser than comparisons, BETWEEN, IN and LIKE
 * ({@link mergeDistinctFrom}). Null when the text holds a prefix `~` of its own (a bitwise NOT,
 * or the marker of {@link rewriteNegatedZeroCasts}).
 */
function rewriteDistinctFrom(sql: string): { text: string; refusal: Refusal | null; spans: [number, number][] } | null {
  let text = sql;
  const spans: [number, number][] = [];
  let i = 0;
  while (i < text.length) {
    const skipped = skipOpaque(text, i);
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    if (text[i] === '~' && text[i - 1] !== '!' && prefixAt(text, i)) return null; // a bitwise NOT: the marker's look-alike
    const word = wordAt(text, i);
    if (word === null) {
      i++;
      continue;
    }
    const at = i;
    i += word.length;
    if (word.toUpperCase() !== 'IS' || /[A-Za-z0-9_$.]/.test(text[at - 1] ?? ' ')) continue;
    let j = skipSpace(text, at + 2);
    const not = wordAt(text, j)?.toUpperCase() === 'NOT';
    if (not) j = skipSpace(text, j + 3);
    if (wordAt(text, j)?.toUpperCase() !== 'DISTINCT') continue;
    const from = skipSpace(text, j + 8);
    if (wordAt(text, from)?.toUpperCase() !== 'FROM') continue;
    // NOTs opening the right operand stay before the marker.
    let end = from + 4;
    let nots = 0;
    for (let k = skipSpace(text, end); wordAt(text, k)?.toUpperCase() === 'NOT'; k = skipSpace(text, end)) {
      end = k + 3;
      nots++;
    }
    const chained = chainedIs(text, end);
    if (chained >= 0) return { text, spans, refusal: { offset: chained, message: `IS after IS ${not ? 'NOT ' : ''}DISTINCT FROM ...; DuckDB does not chain IS comparisons: put the first one in parentheses` } };
    text = splice(text, at, end, `${not ? 'OR' : 'AND'}${' NOT'.repeat(nots)} ~`);
    spans.push([at, end]);
    i = end;
  }
  return { text, refusal: null, spans };
}

const NOT_NODE = (v: unknown): v is Record<string, unknown> => isNode(v) && v.type === 'unary_expr' && v.operator === 'NOT' && v.parentheses !== true;

/**
 * `node` without the `~` that marks the right operand of a rewritten IS [NOT] DISTINCT FROM
 * (see {@link rewriteDistinctFrom}), or undefined when it does not open with one. The marker
 * sits on the operand's first primary: under its NOTs, down the left side of its unparenthesised
 * operators. Iterative (long left-deep chains).
 */
function withoutDistinctMarker(node: unknown): unknown {
  const path: Record<string, unknown>[] = [];
  let at = node;
  for (;;) {
    if (!isNode(at) || at.parentheses === true) return undefined;
    if (at.type === 'unary_expr' && at.operator === '~') break;
    if (NOT_NODE(at) && path.every(NOT_NODE)) {
      path.push(at);
      at = at.expr;
    } else if (at.type === 'binary_expr') {
      path.push(at);
      at = at.left;
    } else return undefined;
  }
  const inner = at.expr;
  const parent = path[path.length - 1];
  if (parent === undefined) return inner;
  if (parent.type === 'binary_expr') parent.left = inner;
  else parent.expr = inner;
  return node;
}

/**
 * Rebuilds the IS [NOT] DISTINCT FROM of a chain of AND/OR operands in source order (`ops[k]`
 * joins `operands[k]` and `operands[k + 1]`), in place: an AND (IS DISTINCT FROM) or OR (IS NOT
 * DISTINCT FROM) whose right operand carries the marker becomes the operator on its two
 * neighbours; a NOT opening the left operand applies to the whole comparison, as DuckDB reads
 * `NOT a IS DISTINCT FROM b`. Markers elsewhere (a BETWEEN bound) are refused by {@link refuseStrayMarkers}.
 * @returns whether anything was rebuilt
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for two in a row (refused in the text before; kept as a guard)
 */
export function mergeDistinctFrom(operands: unknown[], ops: string[]): boolean {
  let merged = false;
  let previous = -1;
  for (let k = 0; k < ops.length; k++) {
    const right = withoutDistinctMarker(operands[k + 1]);
    if (right === undefined) continue;
    if (previous === k) fail('CANOPY_ERR_BAD_QUERY', 'IS [NOT] DISTINCT FROM given twice in a row; DuckDB does not chain IS comparisons: add parentheses');
    const node: Record<string, unknown> = { type: 'binary_expr', operator: ops[k] === 'OR' ? 'IS NOT DISTINCT FROM' : 'IS DISTINCT FROM', left: operands[k], right };
    let top: unknown = node;
    let not: Record<string, unknown> | null = null;
    for (let l = operands[k]; NOT_NODE(l); l = l.expr) not = l;
    if (not !== null) {
      node.left = not.expr;
      not.expr = node;
      top = operands[k];
    }
    operands.splice(k, 2, top);
    ops.splice(k, 1);
    previous = k;
    k--;
    merged = true;
  }
  return merged;
}

/**
 * Refuses a marked IS [NOT] DISTINCT FROM that was not rebuilt (one the grammar read where no
 * AND/OR chain holds it, such as a BETWEEN bound), naming the construct as the user wrote it.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY
 */
export function refuseStrayMarkers(ast: unknown, rewritten: Rewritten, position: SourcePosition | undefined): void {
  if (!rewritten.distinctFrom) return;
  visitNodes(ast, (node) => {
    if (node.type === 'unary_expr' && node.operator === '~') {
      const where = position === undefined ? '' : ` (line ${position.line}, column ${position.column})`;
      fail('CANOPY_ERR_BAD_QUERY', `canopy cannot read IS [NOT] DISTINCT FROM there${where}; put it in parentheses`, position);
    }
  });
}

/**
 * `a // b` (DuckDB's integer division) -> `a /+b`: the grammar reads the unary plus tighter
 * than `/`, so the tree is `a / (+b)` with `//`'s precedence and associativity, repaired to a
 * `//` node. Null when the text has a `/` followed by a `+` of its own (the repair could not
 * tell them apart); then `//` stays a syntax error.
 */
function rewriteIntDivision(sql: string): string | null {
  let text = sql;
  let changed = false;
  let i = 0;
  while (i < text.length) {
    const skipped = skipOpaque(text, i);
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    if (text[i] === '/') {
      if (text[i + 1] === '/' && text[i + 2] !== '*') {
        text = splice(text, i, i + 2, '/+');
        changed = true;
        i += 2;
        continue;
      }
      if (sql[skipSpace(sql, i + 1)] === '+') return null;
    }
    i++;
  }
  return changed ? text : sql;
}

/**
 * `a GLOB b` -> `a ~*   b`: the grammar has no GLOB, and reads PostgreSQL's regular-expression
 * operator `~*` where it reads LIKE, with LIKE's precedence, which is DuckDB's for GLOB;
 * {@link repairRewrites} renames it. `NOT GLOB` (a syntax error in DuckDB, which has no such
 * operator: `NOT a GLOB b` negates) and `glob(` (a call) are left alone. Null when nothing was
 * rewritten, or when the original text `sql` holds a `~*` of its own outside strings and
 * comments (PostgreSQL's case-insensitive match, which canopy refuses; the repair could not tell
 * it from GLOB's); then GLOB stays a syntax error.
 * @param text the text to rewrite: `sql` after the other rewrites (same length, same offsets)
 */
function rewriteGlob(sql: string, text: string): string | null {
  const masked = maskOpaque(text);
  // `~*` of its own (a regular-expression operator canopy refuses) would be read as GLOB.
  if (!/\bGLOB\b/i.test(masked) || maskOpaque(sql).includes('~*')) return null;
  let out: string | null = null;
  for (const m of masked.matchAll(/(?<![\w$.])(NOT\s+)?GLOB(?![\w$])(?!\s*\()/gi)) {
    // `NOT GLOB` stays a syntax error; `AS glob` is a name (DuckDB reads GLOB as a name only there).
    if (m[1] !== undefined || /\bAS$/i.test(masked.slice(0, m.index).trimEnd())) continue;
    out = (out ?? text).slice(0, m.index) + '~*  ' + (out ?? text).slice(m.index + 4);
  }
  return out;
}

/** `f(args) FILTER (WHERE cond)` -> `f(args, '~fK')` for calls the grammar reads as plain functions. */
/**
 * Whether the grammar reads FILTER after this call itself: the aggregates it knows
 * ({@link NATIVE_FILTER}), except a count whose argument opens with a parenthesized
 * expression followed by more (`count((x + 1) * 2)`), or none (`count()`), which it reads as
 * a plain function (see callAsAggregate). `count((x))` it reads as the aggregate.
 */
function grammarReadsFilter(text: string, call: { readonly open: number; readonly close: number; readonly name: string }): boolean {
  const name = call.name.toLowerCase();
  if (!NATIVE_FILTER.has(name)) return false;
  // sum / avg / min / max of a condition (`sum(j > 0)`) the grammar reads as a plain call.
  if (name !== 'count') return !holdsCondition(text.slice(call.open + 1, call.close));
  const first = skipSpace(text, call.open + 1);
  if (first === call.close) return false;
  if (text[first] !== '(') return true;
  const end = closingParen(text, first);
  return end > 0 && skipSpace(text, end + 1) === call.close;
}

/** Operators and keywords of a condition (a comparison, LIKE, IS, IN, BETWEEN, NOT, AND, OR, GLOB, SIMILAR TO), or a second argument. */
const CONDITION = /[=<>!,]|~~|\b(?:like|ilike|glob|similar|is|in|between|not|and|or)\b/i;

/**
 * Whether an argument's text holds a condition outside parentheses, strings and comments
 * (`j > 0`, `s LIKE 'a%'`, `CASE WHEN j > 0 THEN 1 END`), where the grammar reads a sum / avg /
 * min / max call as a plain function; a parenthesized condition (`(j > 0)`) it reads as the
 * aggregate. DISTINCT arguments are left to the grammar.
 */
export function holdsCondition(arg: string): boolean {
  // (A second argument too: the grammar reads such a call as a plain function, refused by the planner with its own message.)
  const masked = maskOpaque(arg);
  if (/^\s*distinct\b/i.test(masked)) return false;
  let outside = '';
  let depth = 0;
  for (const c of masked) {
    if (c === '(') depth++;
    else if (c === ')') depth--;
    else if (depth === 0) outside += c;
  }
  return CONDITION.test(outside);
}

function rewriteFilters(sql: string): { text: string; filters: FilterText[] } {
  let text = sql;
  const filters: FilterText[] = [];
  const opens: { at: number; name: string }[] = [];
  let lastClose: { open: number; close: number; name: string } | null = null;
  let lastWord = '';
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    const skipped = skipOpaque(text, i);
    if (skipped >= 0) {
      // A quoted identifier may name a function ("~sum"(x)).
      lastWord = c === '"' ? text.slice(i + 1, skipped - 1) : '';
      lastClose = null;
      i = skipped;
      continue;
    }
    if (/\s/.test(c)) {
      i++;
      continue;
    }
    if (c === '(') {
      opens.push({ at: i, name: lastWord });
      lastWord = '';
      lastClose = null;
      i++;
      continue;
    }
    if (c === ')') {
      const open = opens.pop();
      lastClose = open === undefined ? null : { open: open.at, close: i, name: open.name };
      lastWord = '';
      i++;
      continue;
    }
    const word = wordAt(text, i);
    // The grammar reads FILTER after an ordered-set aggregate's WITHIN GROUP (ORDER BY x) itself.
    const withinGroup = lastClose !== null && lastClose.name.toUpperCase() === 'GROUP';
    if (word !== null && word.toUpperCase() === 'FILTER' && lastClose !== null && lastClose.name !== '' && !withinGroup) {
      const paren = skipSpace(text, i + word.length);
      const inside = text[paren] === '(' ? skipSpace(text, paren + 1) : -1;
      const where = inside >= 0 && wordAt(text, inside)?.toUpperCase() === 'WHERE';
      // DuckDB's `FILTER (cond)` without WHERE (not after DISTINCT, which the marker cannot follow).
      const args = text.slice(lastClose.open + 1, lastClose.close).trim();
      const bare = inside >= 0 && !where && text[inside] !== ')' && !/^distinct\b/i.test(args);
      const end = bare || (where && !grammarReadsFilter(text, lastClose)) ? closingParen(text, paren) : -1;
      if (end > 0) {
        const condAt = where ? inside + 5 : inside;
        filters.push({ offset: condAt, text: text.slice(condAt, end), keyword: i });
        // count(*) FILTER (cond): as count() FILTER, made count(*) with its condition (filteredEmptyCount).
        if (args === '*' && lastClose.name.toLowerCase() === 'count') text = splice(text, lastClose.open + 1, lastClose.close, '');
        const empty = text.slice(lastClose.open + 1, lastClose.close).trim() === '';
        text = splice(text, lastClose.close, end + 1, `${empty ? '' : ','}'~f${filters.length - 1}')`);
        lastClose = null;
        lastWord = '';
        i = end + 1;
        continue;
      }
    }
    lastWord = word ?? '';
    lastClose = null;
    i += word === null ? 1 : word.length;
  }
  return { text, filters };
}

/**
 * `sql` with the inside of strings and quoted identifiers blanked, their opening quote kept (so
 * `, 'x' FROM` is not a trailing comma), and comments blanked (same length), for matching keywords.
 */
function maskOpaque(sql: string): string {
  let out = '';
  let i = 0;
  while (i < sql.length) {
    const end = skipOpaque(sql, i);
    if (end === -1) {
      out += sql[i];
      i++;
    } else {
      const to = Math.min(Math.max(end, i + 1), sql.length);
      const quote = sql[i] === "'" || sql[i] === '"' || sql[i] === '`';
      out += quote ? sql[i] + ' '.repeat(to - i - 1) : ' '.repeat(to - i);
      i = to;
    }
  }
  return out;
}

/**
 * The field of the `extract(` at `at` (`open` characters long) and the offset after its FROM,
 * or null when it is not `extract(word FROM` / `extract('word' FROM`, or its parentheses hold
 * a comma at their own level.
 */
function extractHead(sql: string, at: number, open: number): { field: string; to: number } | null {
  if (sql[at - 1] === '.') return null;
  const i = skipSpace(sql, at + open);
  const quoted = sql[i] === "'";
  const end = quoted ? skipQuoted(sql, i) : i + (wordAt(sql, i)?.length ?? 0);
  const field = quoted ? sql.slice(i + 1, end - 1) : sql.slice(i, end);
  const from = skipSpace(sql, end);
  if (!/^[A-Za-z_]+$/.test(field) || from === end || wordAt(sql, from)?.toUpperCase() !== 'FROM') return null;
  const close = closingParen(sql, at + open - 1);
  let depth = 0;
  for (let k = from; k < close; ) {
    const skipped = skipOpaque(sql, k);
    if (skipped >= 0) {
      k = skipped;
      continue;
    }
    if (sql[k] === '(') depth++;
    else if (sql[k] === ')') depth--;
    else if (sql[k] === ',' && depth === 0) return null;
    k++;
  }
  return close < 0 ? null : { field: field.toLowerCase(), to: from + 4 };
}

/** The row-count (LIMIT, FETCH FIRST|NEXT) and OFFSET clauses of one statement, by kind. */
const ROW_CLAUSES: Record<string, 'count' | 'offset'> = { LIMIT: 'count', FETCH: 'count', OFFSET: 'offset' };

/** The first zero-length quoted identifier `""` in `sql`, refused as DuckDB refuses it. */
function zeroLengthIdentifier(sql: string): Refusal | null {
  for (let i = 0; i < sql.length; ) {
    const end = skipOpaque(sql, i);
    if (end === -1) i++;
    else if (sql[i] === '"' && end === i + 2) return { offset: i, message: 'zero-length delimited identifier ""' };
    else i = Math.max(end, i + 1);
  }
  return null;
}

/**
 * A LIMIT (or FETCH FIRST|NEXT) or an OFFSET given a second time in one SELECT, outside
 * parentheses: `LIMIT 5 LIMIT 3`, `LIMIT 2 OFFSET 1 OFFSET 4`, `LIMIT 2 FETCH FIRST 3 ROWS ONLY`.
 * The grammar reads two such clauses and the planner would take one; DuckDB refuses them as
 * syntax errors, so canopy does, at the second.
 */
export function repeatedRowClause(sql: string): Refusal | null {
  const seen = new Map<'count' | 'offset', string>();
  let depth = 0;
  for (const { at, word, c } of scanTokens(sql, 0)) {
    if (c === '(' || c === ')' || c === ';') {
      depth += c === '(' ? 1 : c === ')' ? -1 : 0;
      if (c === ';') seen.clear();
      continue;
    }
    if (word === null) continue;
    const w = word.toUpperCase();
    const kind = ROW_CLAUSES[w];
    const next = wordAt(sql, skipSpace(sql, at + word.length))?.toUpperCase();
    if (kind !== undefined && depth === 0 && sql[at - 1] !== '.' && (w !== 'FETCH' || next === 'FIRST' || next === 'NEXT')) {
      const name = w === 'FETCH' ? `FETCH ${next}` : w;
      const first = seen.get(kind);
      if (first !== undefined) {
        const what = first === name ? `${name} given twice` : `${name} after ${first}: the ${kind === 'count' ? 'row count' : 'offset'} is given twice`;
        return { offset: at, message: `${what}; expected at most one ${kind === 'count' ? 'LIMIT (or FETCH FIRST)' : 'OFFSET'}` };
      }
      seen.set(kind, name);
    }
  }
  return null;
}

/**
 * SQL-standard and DuckDB clauses the grammar does not read, as ones it does (same length,
 * numbers and expressions left where they are):
 * - `FETCH FIRST|NEXT n ROW|ROWS ONLY` is `LIMIT n` (`FETCH FIRST ROW ONLY`: `LIMIT 1`);
 * - `OFFSET n ROW|ROWS` is `OFFSET n`;
 * - a comma right before FROM (DuckDB allows one after the last SELECT item) is dropped;
 * - `GROUP BY ()` (the empty grouping set: one group over all rows, also without aggregates)
 *   is `GROUP BY ""`, read by the planner as {@link GROUP_BY_EMPTY};
 * - `GROUPING SETS` is a call of `"⊞"` ({@link GROUPING_SETS_FN}), and in a GROUP BY clause
 *   an empty set `()` first or right after `(` or `,` (`GROUPING SETS ((a), ())`,
 *   `GROUP BY (), a`) is `""`;
 * - `extract(f FROM x)` (and `extract('f' FROM x)`) is `date_part('f', x)`: the grammar reads
 *   only some fields, and reads `extract(f FROM date + INTERVAL ...)` as a cast of `+INTERVAL ...`
 *   to DATE (`date` is a keyword to it) and `extract(f FROM INTERVAL ... + ts)` as one to
 *   INTERVAL. Not when the parentheses hold a comma of their own (the grammar refuses that
 *   as DuckDB does, naming what the user wrote);
 * - digits grouped by underscores (`1_000`) lose them, as DuckDB reads such a number;
 * - `INTERVAL n unit` (the grammar reads only some singular units: not WEEK, MILLISECOND,
 *   SECONDS, ...) is the string `INTERVAL'nunit'`, which src/root/sql/expressions.ts reads
 *   as n units; the number keeps its offset. Only for an unsigned integer n: DuckDB's grammar
 *   refuses `INTERVAL 1.5 DAY` and `INTERVAL -2 DAY` (`INTERVAL '1.5' DAY` is its form);
 * - `CASE (x) WHEN ...` is `CASE x WHEN ...` (the grammar reads `CASE (` as a call) when the
 *   parentheses hold the whole operand.
 */
/** The interval units DuckDB's grammar reads after `INTERVAL n` (its keywords; abbreviations are not). */
const GRAMMAR_UNITS = /^(?:years?|months?|days?|hours?|minutes?|seconds?|milliseconds?|microseconds?|weeks?|quarters?|decades?|century|centuries|millennium|millennia)$/i;

function rewriteClauses(sql: string): string {
  const masked = maskOpaque(sql);
  let text = sql;
  const put = (at: number, by: string): void => {
    text = text.slice(0, at) + by + text.slice(at + by.length);
  };
  const blank = (from: number, to: number): void => put(from, ' '.repeat(to - from));
  for (const m of masked.matchAll(/\bFETCH(\s+)(?:FIRST|NEXT)(\s+)(\d+\s+)?ROWS?(\s+)ONLY\b/gi)) {
    const at = m.index;
    blank(at, at + m[0].length);
    if (m[3] === undefined) put(at, 'LIMIT 1');
    else {
      const num = at + m[0].indexOf(m[3], 5 + m[1]!.length);
      put(num - 6 >= at ? num - 6 : at, 'LIMIT ');
      put(num, m[3]);
    }
  }
  for (const m of masked.matchAll(/\bOFFSET\s+\d+(\s+ROWS?)\b/gi)) blank(m.index + m[0].length - m[1]!.length, m.index + m[0].length);
  // A trailing comma after the last SELECT item (DuckDB reads `SELECT a, b, FROM t`).
  for (const m of masked.matchAll(/,\s*FROM\b/gi)) put(m.index, ' ');
  for (const m of masked.matchAll(/\bGROUP\s+BY\s*(\(\s*\))(?!\s*,)/gi)) {
    const at = m.index + m[0].length - m[1]!.length;
    blank(at, m.index + m[0].length);
    put(at, `"${GROUP_BY_EMPTY}"`);
  }
  for (const m of masked.matchAll(/\bGROUPING\s+SETS\b/gi)) put(m.index, `"${GROUPING_SETS_FN}"`.padEnd(m[0].length, ' '));
  for (const g of masked.matchAll(/\bGROUP\s+BY\b/gi)) {
    const from = g.index + g[0].length;
    const end = masked.slice(from).search(/\b(?:HAVING|ORDER|LIMIT|OFFSET|FETCH|QUALIFY|WINDOW|UNION|EXCEPT|INTERSECT)\b|;/i);
    const clause = masked.slice(from, end < 0 ? masked.length : from + end);
    for (const m of clause.matchAll(/((?:^|[(,])\s*)(\(\s*\))/g)) {
      const at = from + m.index + m[1]!.length;
      put(at, `"${GROUP_BY_EMPTY}"`.padEnd(m[2]!.length, ' '));
    }
  }
  for (const m of masked.matchAll(/\bextract\s*\(/gi)) {
    const end = extractHead(text, m.index, m[0].length);
    if (end !== null) put(m.index, `date_part('${end.field}',`.padEnd(end.to - m.index, ' '));
  }
  // Digits grouped by single underscores (1_000, 1_000.5, 1e1_0), as DuckDB reads them; the
  // grammar read `1_000` as 1 AS _000. Not `1__0` (DuckDB: 1 AS __0 too).
  for (const m of masked.matchAll(/(?<![\w$.])\d[\d_]*(?:\.[\d_]*)?(?:[eE][+-]?\d[\d_]*)?(?![\w$])/g)) {
    if (m[0].includes('_') && /^\d+(?:_\d+)*(?:\.(?:\d+(?:_\d+)*)?)?(?:[eE][+-]?\d+(?:_\d+)*)?$/.test(m[0])) put(m.index, m[0].replaceAll('_', '').padEnd(m[0].length, ' '));
  }
  // `CASE (x) WHEN ...`: the grammar reads `CASE (` as a call; the parentheses round the whole
  // operand (their closing one followed by WHEN) change nothing, and go.
  for (const m of masked.matchAll(/\bCASE(\s*)\(/gi)) {
    const open = m.index + m[0].length - 1;
    let depth = 0;
    let close = -1;
    for (let k = open; k < masked.length && close < 0; k++) {
      if (masked[k] === '(') depth++;
      else if (masked[k] === ')' && --depth === 0) close = k;
    }
    if (close > 0 && /^\s*WHEN\b/i.test(masked.slice(close + 1))) {
      put(open, ' ');
      put(close, ' ');
    }
  }
  for (const m of masked.matchAll(/\bINTERVAL(\s+)(\d+)(\s+)([A-Za-z]+)\b/gi)) {
    // Only the unit keywords of DuckDB's grammar (`INTERVAL 2 d` is `INTERVAL 2 AS d` there, an error).
    if (intervalUnit(m[4]!) === undefined || !GRAMMAR_UNITS.test(m[4]!)) continue;
    const at = m.index + 8 + m[1]!.length - 1;
    put(m.index + 8, ' '.repeat(m[0].length - 8));
    put(at, `'${m[2]!}${m[4]!}'`);
  }
  return text;
}

/**
 * Rewrites `sql` for the grammar (see the module comment).
 * @returns text of the same length, the FILTER conditions taken out, what was rewritten, and a
 *   syntax error to report instead of parsing (a repeated LIMIT/OFFSET, a chained IS)
 */
export function rewriteForGrammar(sql: string): Rewritten {
  const zeroCasts = rewriteNegatedZeroCasts(sql);
  const clauses = rewriteClauses(zeroCasts ?? sql);
  const divided = rewriteIntDivision(clauses);
  const distinct = rewriteDistinctCalls(divided ?? clauses);
  const from = rewriteDistinctFrom(distinct);
  const filtered = rewriteFilters(from?.text ?? distinct);
  const glob = rewriteGlob(sql, filtered.text);
  return {
    text: glob ?? filtered.text,
    filters: filtered.filters,
    distinctFrom: from !== null && from.text !== distinct,
    intDivision: divided !== null && divided !== clauses,
    negatedZeroCast: zeroCasts !== null,
    glob: glob !== null,
    refusal: zeroLengthIdentifier(sql) ?? repeatedRowClause(sql) ?? from?.refusal ?? null,
    spans: from?.spans ?? [],
  };
}

/**
 * Repairs the tree parsed from {@link rewriteForGrammar}'s text, in place: FILTER conditions
 * (`parseCondition(k)` parses the k-th, `positionOf(k)` is where it is) on their calls, DISTINCT calls as `aggr_func` nodes,
 * `//`. Iterative (deep OR chains). IS [NOT] DISTINCT FROM is rebuilt with the AND/OR chains
 * ({@link mergeDistinctFrom}).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for DISTINCT over other than one argument,
 *   CANOPY_ERR_UNSUPPORTED for FILTER on a function that is not an aggregate (with its position)
 */
export function repairRewrites(ast: unknown, rewritten: Rewritten, parseCondition: (k: number) => unknown, positionOf: (k: number) => SourcePosition): void {
  const aggregateCalls = AGGREGATE_CALLS.test(rewritten.text);
  if (rewritten.filters.length === 0 && !rewritten.intDivision && !rewritten.negatedZeroCast && !rewritten.glob && !aggregateCalls && !rewritten.text.includes(`"${DISTINCT_PREFIX}`)) return;
  visitNodes(ast, (node) => {
    if (node.type === 'function') {
      repairCall(node, parseCondition, positionOf);
      if (aggregateCalls) callAsAggregate(node);
    } else if (node.type === 'aggr_func' && rewritten.filters.length > 0) {
      filteredEmptyCount(node, parseCondition);
      filteredStringAgg(node, parseCondition);
    }
    else if (node.type === 'binary_expr' && rewritten.intDivision && node.operator === '/' && isNode(node.right) && node.right.type === 'unary_expr' && node.right.operator === '+') {
      node.operator = '//';
      node.right = node.right.expr;
    } else if (node.type === 'unary_expr' && rewritten.negatedZeroCast && node.operator === '~') node.operator = '-';
    else if (node.type === 'binary_expr' && rewritten.glob && node.operator === '~*') node.operator = 'GLOB';
  });
}

/** Words after which a `-` is a unary minus (the start of an expression), as in `SELECT -0.0::DOUBLE`. */
const EXPRESSION_STARTS = new Set(['select', 'where', 'and', 'or', 'not', 'when', 'then', 'else', 'case', 'between', 'having', 'by', 'on', 'distinct', 'all', 'like', 'ilike', 'is', 'in', 'any', 'some', 'return']);

/**
 * `-0.0::DOUBLE`: DuckDB casts before it negates (`-(0.0::DOUBLE)`, -0.0), but the grammar
 * folds the sign into the literal and drops it for a zero, so the cast gave 0.0. A unary minus
 * right before a zero numeral cast with `::` becomes `~`, which the grammar reads as a unary
 * operator over the cast (as it reads `- 0.0::DOUBLE`), and {@link repairRewrites} makes it a
 * minus again. Only zeros differ (for any other numeral the two orders give the same value).
 * Not when the query holds a prefix `~` of its own (a bitwise NOT, outside strings and comments).
 * @returns the text of the same length, or null when nothing was rewritten
 */
function rewriteNegatedZeroCasts(sql: string): string | null {
  const masked = maskOpaque(sql);
  if (holdsPrefixTilde(masked)) return null;
  let text: string | null = null;
  for (const m of masked.matchAll(/-(?=(?:0+(?:\.0*)?|\.0+)(?:[eE][+-]?\d+)?\s*::)/g)) {
    if (prefixAt(masked, m.index)) text = (text ?? sql).slice(0, m.index) + '~' + (text ?? sql).slice(m.index + 1);
  }
  return text;
}

/**
 * Whether an operator character at `i` of `text` (strings and comments masked, or skipped by
 * the caller) is a prefix operator: at the start, or after an operator, `(`, `,` or a keyword
 * that opens an expression (`SELECT -x`, `WHERE ~j`, `LIMIT ~1`), rather than after an operand
 * (a name, a number, a string, `)`), where it is an infix one (`s ~ 'a'`, `j - 1`).
 */
function prefixAt(text: string, i: number): boolean {
  let j = i - 1;
  while (j >= 0 && /\s/.test(text[j]!)) j--;
  if (j < 0 || '(,=<>+-*/%|![~&^'.includes(text[j]!)) return true;
  if (!/[A-Za-z_]/.test(text[j]!)) return false;
  let w = j;
  while (w > 0 && /[\w$]/.test(text[w - 1]!)) w--;
  const word = text.slice(w, j + 1).toLowerCase();
  return EXPRESSION_STARTS.has(word) || word === 'limit' || word === 'offset';
}

/**
 * Whether the masked text holds a prefix `~` (bitwise NOT), which the rewrites that mark a node
 * with a unary `~` ({@link rewriteNegatedZeroCasts}, {@link rewriteDistinctFrom}) could not tell
 * from their marker; the regular-expression match `s ~ 'a'` / `s !~ 'a'` is infix and does not count.
 */
function holdsPrefixTilde(masked: string): boolean {
  for (let i = masked.indexOf('~'); i >= 0; i = masked.indexOf('~', i + 1)) if (masked[i - 1] !== '!' && prefixAt(masked, i)) return true;
  return false;
}

/** The aggregates the grammar reads as `aggr_func` only for some argument forms (see {@link callAsAggregate}). */
const GRAMMAR_AGGREGATES = new Set(['count', 'sum', 'avg', 'min', 'max']);

/** Whether the text may hold a call {@link callAsAggregate} repairs: `count(` before `(` or `)`, or any sum / avg / min / max call. */
const AGGREGATE_CALLS = /\bcount\s*\(\s*[()]|\b(?:sum|avg|min|max)\s*\(/i;

/**
 * Calls of COUNT, SUM, AVG, MIN and MAX that the grammar reads as plain functions, made the
 * aggr_func it reads for `sum(x)`: a count whose argument opens with a parenthesis
 * (`count((x) * 2)`), and a sum / avg / min / max of a condition (`sum(j > 0)`, `max(s LIKE
 * 'a%')`, `min(j IS NULL)`: the grammar takes only an arithmetic expression there, so
 * `sum((j > 0))` was an aggregate and `sum(j > 0)` a call). `count()` (read as a plain function
 * too) is DuckDB's `count(*)`. Other arities stay calls, refused by the planner with their own
 * message (`min(x, n)` returns a LIST in DuckDB).
 */
function callAsAggregate(node: Record<string, unknown>): void {
  if (node.type !== 'function' || !isNode(node)) return;
  const name = functionName(node).toLowerCase();
  if (!GRAMMAR_AGGREGATES.has(name)) return;
  const list = listItems(node.args);
  if (list.length > 1 || (list.length === 0 && name !== 'count')) return;
  const { over, filter } = node;
  for (const k of Object.keys(node)) delete node[k];
  // count() is count(*), as in DuckDB.
  const expr = list.length === 0 ? { type: 'star', value: '*' } : list[0];
  Object.assign(node, { type: 'aggr_func', name: name.toUpperCase(), args: { distinct: null, expr }, over: over ?? null, ...(filter === undefined ? {} : { filter }) });
}

/**
 * `count() FILTER (WHERE c)`: rewritten `count('~fK')`, which the grammar reads as the
 * aggregate count of a literal; made `count(*)` with its FILTER.
 */
function filteredEmptyCount(node: Record<string, unknown>, parseCondition: (k: number) => unknown): void {
  const args = isNode(node.args) ? node.args : null;
  const expr = args?.expr;
  const marker = isNode(expr) && expr.type === 'single_quote_string' && typeof expr.value === 'string' ? FILTER_MARKER.exec(expr.value) : null;
  if (marker === null || upper(node.name) !== 'COUNT') return;
  node.args = { ...args, expr: { type: 'star', value: '*' } };
  node.filter = { keyword: 'filter', parentheses: true, where: parseCondition(Number(marker[1])) };
}

/** The FILTER marker's index when `v` is the `'~fK'` literal, else null. */
function markerIndex(v: unknown): number | null {
  const m = isNode(v) && v.type === 'single_quote_string' && typeof v.value === 'string' ? FILTER_MARKER.exec(v.value) : null;
  return m === null ? null : Number(m[1]);
}

/**
 * `string_agg(x [, sep] ORDER BY k) FILTER (WHERE c)` and `string_agg(x) FILTER (...)`, which
 * the grammar reads as `aggr_func` nodes: the marker `'~fK'` appended to the call is read as the
 * last ORDER BY key, or as the separator of a call without one; taken out, and `c` made the
 * node's FILTER.
 */
function filteredStringAgg(node: Record<string, unknown>, parseCondition: (k: number) => unknown): void {
  const args = isNode(node.args) ? (node.args as Record<string, unknown>) : null;
  if (args === null || node.filter != null) return;
  const orderby = Array.isArray(args.orderby) ? (args.orderby as unknown[]) : null;
  const lastKey = orderby?.[orderby.length - 1];
  const fromOrder = isNode(lastKey) ? markerIndex(lastKey.expr) : null;
  if (fromOrder !== null) {
    orderby!.pop();
    if (orderby!.length === 0) args.orderby = null;
    node.filter = { keyword: 'filter', parentheses: true, where: parseCondition(fromOrder) };
    return;
  }
  const fromSep = isNode(args.separator) ? markerIndex(args.separator.delimiter) : null;
  if (fromSep !== null) {
    args.separator = null;
    node.filter = { keyword: 'filter', parentheses: true, where: parseCondition(fromSep) };
  }
}

function repairCall(node: Record<string, unknown>, parseCondition: (k: number) => unknown, positionOf: (k: number) => SourcePosition): void {
  const args = isNode(node.args) ? (node.args as Record<string, unknown>) : null;
  const values = args !== null && Array.isArray(args.value) ? (args.value as unknown[]) : null;
  const last = values?.[values.length - 1];
  const marker = isNode(last) && last.type === 'single_quote_string' && typeof last.value === 'string' ? FILTER_MARKER.exec(last.value) : null;
  const parts = isNode(node.name) && Array.isArray(node.name.name) ? node.name.name : [];
  const only = parts.length === 1 && isNode(parts[0]) && parts[0].type === 'double_quote_string' ? parts[0].value : undefined;
  const distinct = typeof only === 'string' && only.startsWith(DISTINCT_PREFIX) && DISTINCT_FNS.has(only.slice(1));
  if (marker !== null) {
    values!.pop();
    const k = Number(marker[1]);
    // A count / sum / avg / min / max the grammar read as a plain function (callAsAggregate makes it an aggregate after).
    if (!distinct && !isAggregateCall(node) && !GRAMMAR_AGGREGATES.has(functionName(node).toLowerCase())) {
      const at = positionOf(k);
      throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `FILTER (WHERE ...) applies to aggregate functions only; ${functionName(node)}() is not one (line ${at.line}, column ${at.column})`, { position: at });
    }
    node.filter = { keyword: 'filter', parentheses: true, where: parseCondition(k) };
  }
  if (!distinct) return;
  const fn = only.slice(1);
  if (IDEMPOTENT_UNDER_DISTINCT.includes(fn)) {
    node.name = { name: [{ type: 'default', value: fn }] };
    return;
  }
  const list = listItems(node.args);
  if (list.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}(DISTINCT ...) takes one argument, not ${list.length}`);
  const filter = node.filter;
  const over = node.over;
  for (const k of Object.keys(node)) delete node[k];
  Object.assign(node, { type: 'aggr_func', name: fn.toUpperCase(), args: { distinct: 'DISTINCT', expr: list[0] }, over: over ?? null, ...(filter === undefined ? {} : { filter }) });
}
