/**
 * Rewrites of the SQL text into constructs node-sql-parser's PostgreSQL grammar reads, and
 * the repair of the parsed tree after. Every rewrite keeps the text's length and the offset
 * of every token it does not touch, so parse errors keep their positions:
 * - `sum|avg|min|max(DISTINCT x)` (the grammar reads DISTINCT only inside count) becomes a
 *   call of the quoted name `"~sum"(x)`, turned back into the `aggr_func` node with
 *   `distinct` that count(DISTINCT x) gives;
 * - `f(...) FILTER (WHERE cond)` on a call the grammar reads as a plain function (stddev,
 *   count_if, arg_min, approx_quantile, ...; it reads FILTER only on count/sum/min/max/avg)
 *   becomes `f(..., '~fK')`: the marker argument is taken out again and `cond`, parsed on its
 *   own at its own offset, becomes the node's `filter` as the grammar gives it on sum();
 * - `a IS [NOT] DISTINCT FROM b` becomes `a ~ b` (`a !~ b`), then a binary_expr with the
 *   operator `IS [NOT] DISTINCT FROM`. The grammar reads `~` at the level of comparisons, as
 *   PostgreSQL reads IS DISTINCT FROM: looser than arithmetic, tighter than NOT/AND/OR. Done
 *   only when the query holds no `~` of its own (canopy has no regular-expression operators,
 *   so such a query is refused anyway).
 * - `a // b` (integer division) becomes `a /+b`, then a `//` binary_expr ({@link rewriteIntDivision});
 * - `FETCH FIRST n ROWS ONLY`, `OFFSET n ROWS`, `GROUP BY ()` and extract(millisecond|julian|... FROM x)
 *   as the grammar's own constructs ({@link rewriteClauses}).
 * Strings, quoted identifiers and comments are skipped as the parser reads them.
 */
import { CanopyError, type SourcePosition } from '../../merge/errors.ts';
import { isNode, listItems, visitNodes } from './ast.ts';
import { functionName, intervalUnit, isAggregateCall } from './expressions.ts';
import { WORD_TOKEN, skipBlockComment, skipQuoted } from './lexer.ts';

/** Aggregates the grammar reads FILTER (WHERE ...) on by itself. */
const NATIVE_FILTER = new Set(['count', 'sum', 'min', 'max', 'avg']);
/** Aggregates the grammar does not read DISTINCT in (count it reads). */
const DISTINCT_FNS = new Set(['sum', 'avg', 'min', 'max']);
const DISTINCT_PREFIX = '~';
const FILTER_MARKER = /^~f(\d+)$/;

/** A FILTER condition taken out of the text: its text, its offset there, and the offset of its FILTER keyword. */
export interface FilterText {
  readonly offset: number;
  readonly text: string;
  readonly keyword: number;
}

/** The rewritten text (same length as the input) and what the repair needs. */
export interface Rewritten {
  readonly text: string;
  readonly filters: readonly FilterText[];
  readonly distinctFrom: boolean;
  /** `//` was rewritten to `/+`. */
  readonly intDivision: boolean;
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
function skipSpace(sql: string, i: number): number {
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

/** `text` with [from, to) replaced by `by` padded with spaces to the same length. */
function splice(text: string, from: number, to: number, by: string): string {
  return text.slice(0, from) + by.padEnd(to - from, ' ') + text.slice(to);
}

/** The offset of the `)` closing the `(` at `open`, or -1. */
function closingParen(sql: string, open: number): number {
  let depth = 0;
  let i = open;
  while (i < sql.length) {
    const skipped = skipOpaque(sql, i);
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    if (sql[i] === '(') depth++;
    else if (sql[i] === ')' && --depth === 0) return i;
    i++;
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
    if (DISTINCT_FNS.has(word.toLowerCase()) && text[i - 1] !== '.' && after?.toUpperCase() === 'DISTINCT') {
      const end = inner + after.length;
      text = splice(text, i, end, `"${DISTINCT_PREFIX}${word.toLowerCase()}"(`);
      i = end;
      continue;
    }
    i += word.length;
  }
  return text;
}

/** `a IS [NOT] DISTINCT FROM b` -> `a ~ b` / `a !~ b`; null when the text holds a `~` of its own. */
function rewriteDistinctFrom(sql: string): string | null {
  let text = sql;
  let changed = false;
  let i = 0;
  while (i < text.length) {
    const skipped = skipOpaque(text, i);
    if (skipped >= 0) {
      i = skipped;
      continue;
    }
    if (text[i] === '~') return null;
    const word = wordAt(text, i);
    if (word === null) {
      i++;
      continue;
    }
    if (word.toUpperCase() === 'IS' && !/[A-Za-z0-9_$]/.test(text[i - 1] ?? ' ')) {
      let j = skipSpace(text, i + 2);
      const not = wordAt(text, j)?.toUpperCase() === 'NOT';
      if (not) j = skipSpace(text, j + 3);
      if (wordAt(text, j)?.toUpperCase() === 'DISTINCT') {
        const from = skipSpace(text, j + 8);
        if (wordAt(text, from)?.toUpperCase() === 'FROM') {
          text = splice(text, i, from + 4, not ? '!~' : '~');
          changed = true;
          i = from + 4;
          continue;
        }
      }
    }
    i += word.length;
  }
  return changed ? text : sql;
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

/** `f(args) FILTER (WHERE cond)` -> `f(args, '~fK')` for calls the grammar reads as plain functions. */
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
    if (word !== null && word.toUpperCase() === 'FILTER' && lastClose !== null && lastClose.name !== '' && !NATIVE_FILTER.has(lastClose.name.toLowerCase())) {
      const paren = skipSpace(text, i + word.length);
      const where = text[paren] === '(' ? skipSpace(text, paren + 1) : -1;
      const end = where < 0 || wordAt(text, where)?.toUpperCase() !== 'WHERE' ? -1 : closingParen(text, paren);
      if (end > 0) {
        const condAt = where + 5;
        filters.push({ offset: condAt, text: text.slice(condAt, end), keyword: i });
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

/** `sql` with the inside of strings, quoted identifiers and comments blanked (same length), for matching keywords. */
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
      out += ' '.repeat(to - i);
      i = to;
    }
  }
  return out;
}

/**
 * SQL-standard and DuckDB clauses the grammar does not read, as ones it does (same length,
 * numbers and expressions left where they are):
 * - `FETCH FIRST|NEXT n ROW|ROWS ONLY` is `LIMIT n` (`FETCH FIRST ROW ONLY`: `LIMIT 1`);
 * - `OFFSET n ROW|ROWS` is `OFFSET n`;
 * - `GROUP BY ()` (the empty grouping set) is no GROUP BY: one group over all rows;
 * - `extract(f FROM x)` is `date_part('f', x)` for the fields the grammar does not read
 *   (millisecond[s], microsecond[s], yearweek, era, julian, dayofweek, weekday, dayofyear,
 *   dayofmonth, weekofyear);
 * - `INTERVAL n unit` (the grammar reads only some singular units: not WEEK, MILLISECOND,
 *   SECONDS, ...) is the string `INTERVAL'nunit'`, which src/root/sql/expressions.ts reads
 *   as n units; the number keeps its offset.
 */
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
  for (const m of masked.matchAll(/\bGROUP\s+BY\s*\(\s*\)(?!\s*,)/gi)) blank(m.index, m.index + m[0].length);
  for (const m of masked.matchAll(/\bextract\s*\(\s*(millisecond|microsecond|yearweek|era|julian|dayofweek|weekday|dayofyear|dayofmonth|weekofyear)((?<=second)s)?\s+FROM\s/gi)) {
    const by = `date_part('${m[1]!.toLowerCase()}', `;
    if (by.length <= m[0].length) put(m.index, by.padEnd(m[0].length, ' '));
  }
  for (const m of masked.matchAll(/\bINTERVAL(\s+)([+-]?(?:\d+(?:\.\d*)?|\.\d+))(\s+)([A-Za-z]+)\b/gi)) {
    if (intervalUnit(m[4]!) === undefined) continue;
    const at = m.index + 8 + m[1]!.length - 1;
    put(m.index + 8, ' '.repeat(m[0].length - 8));
    put(at, `'${m[2]!}${m[4]!}'`);
  }
  return text;
}

/**
 * Rewrites `sql` for the grammar (see the module comment).
 * @returns text of the same length, the FILTER conditions taken out, and whether IS [NOT] DISTINCT FROM was rewritten
 */
export function rewriteForGrammar(sql: string): Rewritten {
  const clauses = rewriteClauses(sql);
  const divided = rewriteIntDivision(clauses);
  const distinct = rewriteDistinctCalls(divided ?? clauses);
  const from = rewriteDistinctFrom(distinct);
  const filtered = rewriteFilters(from ?? distinct);
  return { text: filtered.text, filters: filtered.filters, distinctFrom: from !== null && from !== distinct, intDivision: divided !== null && divided !== clauses };
}

/**
 * Repairs the tree parsed from {@link rewriteForGrammar}'s text, in place: FILTER conditions
 * (`parseCondition(k)` parses the k-th, `positionOf(k)` is where it is) on their calls, DISTINCT calls as `aggr_func` nodes,
 * `~` / `!~` as IS [NOT] DISTINCT FROM. Iterative (deep OR chains).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for DISTINCT over other than one argument,
 *   CANOPY_ERR_UNSUPPORTED for FILTER on a function that is not an aggregate (with its position)
 */
export function repairRewrites(ast: unknown, rewritten: Rewritten, parseCondition: (k: number) => unknown, positionOf: (k: number) => SourcePosition): void {
  if (rewritten.filters.length === 0 && !rewritten.distinctFrom && !rewritten.intDivision && !rewritten.text.includes(`"${DISTINCT_PREFIX}`)) return;
  visitNodes(ast, (node) => {
    if (node.type === 'function') repairCall(node, parseCondition, positionOf);
    else if (node.type === 'binary_expr' && rewritten.distinctFrom && (node.operator === '~' || node.operator === '!~')) {
      node.operator = node.operator === '~' ? 'IS DISTINCT FROM' : 'IS NOT DISTINCT FROM';
    } else if (node.type === 'binary_expr' && rewritten.intDivision && node.operator === '/' && isNode(node.right) && node.right.type === 'unary_expr' && node.right.operator === '+') {
      node.operator = '//';
      node.right = node.right.expr;
    }
  });
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
    if (!distinct && !isAggregateCall(node)) {
      const at = positionOf(k);
      throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `FILTER (WHERE ...) applies to aggregate functions only; ${functionName(node)}() is not one (line ${at.line}, column ${at.column})`, { position: at });
    }
    node.filter = { keyword: 'filter', parentheses: true, where: parseCondition(k) };
  }
  if (!distinct) return;
  const fn = only.slice(1);
  const list = listItems(node.args);
  if (list.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}(DISTINCT ...) takes one argument, not ${list.length}`);
  const filter = node.filter;
  const over = node.over;
  for (const k of Object.keys(node)) delete node[k];
  Object.assign(node, { type: 'aggr_func', name: fn.toUpperCase(), args: { distinct: 'DISTINCT', expr: list[0] }, over: over ?? null, ...(filter === undefined ? {} : { filter }) });
}
