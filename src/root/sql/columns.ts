/**
 * DuckDB's `COLUMNS(*)` and `COLUMNS('regex')` star expressions, expanded before the select list
 * is classified into the columns of the table (in table order) whose name the regular
 * expression matches anywhere (RE2, case-sensitive, as DuckDB's binder):
 * - a SELECT item holding COLUMNS (`COLUMNS(*)`, `COLUMNS('a|b') + 1`, `min(COLUMNS(*))`)
 *   becomes one item per column, each COLUMNS replaced by that column (every COLUMNS of one
 *   item must be the same, as DuckDB requires), each with the item's alias if it has one (an
 *   alias holding a backslash, where DuckDB substitutes the regex's groups, is refused);
 * - a WHERE clause holding COLUMNS is the AND of its copies, one per column;
 * - an ORDER BY key holding COLUMNS is one key per column, with the key's direction.
 * Elsewhere (GROUP BY, HAVING) COLUMNS is refused as an unknown function, as DuckDB refuses it there.
 */
import { CanopyError } from '../../merge/index.ts';
import { regexOf } from '../../merge/scalar.ts';
import { type Select, isNode, listItems, visitNodes } from './ast.ts';
import { fail } from './errors.ts';
import { functionName } from './expressions.ts';
import { readLiteral } from './literals.ts';
import type { Scope } from './scope.ts';

/**
 * Expands the COLUMNS expressions of `select`'s SELECT items, WHERE clause and ORDER BY keys
 * into the columns they name.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when no column matches, the pattern does not
 *   compile, or one expression holds different COLUMNS (DuckDB's binder errors);
 *   CANOPY_ERR_UNSUPPORTED when COLUMNS takes other than `*` or a string literal, or for a
 *   regular-expression construct canopy does not read as RE2 does
 */
export function expandColumnsItems(select: Select, scope: Scope): void {
  const target = select as { columns: unknown[]; where?: unknown; orderby?: unknown };
  const columns = Array.isArray(select.columns) ? (select.columns as unknown[]) : [];
  if (columns.some(holdsColumns)) {
    target.columns = columns.flatMap((c) => {
      const names = holdsColumns(c) ? columnsNamed(c, scope) : null;
      if (names === null) return [c];
      const item = c as { expr: unknown; as: unknown };
      // DuckDB reads \0 to \9 in such an alias as the match's groups (and refuses other backslashes).
      if (typeof item.as === 'string' && item.as.includes('\\')) fail('CANOPY_ERR_UNSUPPORTED', `COLUMNS with an alias holding a backslash ("${item.as}") is not supported: DuckDB reads \\0 to \\9 there as the regular expression's groups`);
      return names.map((name) => ({ ...item, expr: withColumn(item.expr, name), as: item.as ?? null }));
    });
  }
  if (holdsColumns(select.where)) {
    const names = columnsNamed(select.where, scope)!;
    const copies: unknown[] = names.map((name) => ({ ...(withColumn(select.where, name) as object), parentheses: true }));
    target.where = copies.reduce((a, b) => ({ type: 'binary_expr', operator: 'AND', left: a, right: b }));
  }
  if (Array.isArray(select.orderby) && select.orderby.some(holdsColumns)) {
    target.orderby = (select.orderby as unknown[]).flatMap((o) => {
      const names = holdsColumns(o) ? columnsNamed(o, scope) : null;
      if (names === null) return [o];
      const key = o as { expr: unknown };
      return names.map((name) => ({ ...key, expr: withColumn(key.expr, name) }));
    });
  }
}

/** True for a call of COLUMNS. */
function isColumnsCall(n: unknown): n is Record<string, unknown> {
  return isNode(n) && n.type === 'function' && functionName(n).toLowerCase() === 'columns';
}

/** The COLUMNS calls in `n` (not inside a subquery). */
function columnsCalls(n: unknown): Record<string, unknown>[] {
  const found: Record<string, unknown>[] = [];
  visitNodes(n, (v) => {
    if (v.ast != null || v.type === 'select') return false;
    if (isColumnsCall(v)) {
      found.push(v);
      return false;
    }
    return true;
  });
  return found;
}

function holdsColumns(n: unknown): boolean {
  return columnsCalls(n).length > 0;
}

/**
 * The columns the COLUMNS calls of `n` name (one list: every call of `n` must be the same).
 * @throws CanopyError as {@link expandColumnsItems}
 */
function columnsNamed(n: unknown, scope: Scope): string[] {
  const calls = columnsCalls(n);
  const first = JSON.stringify(calls[0]!.args);
  if (calls.some((c) => JSON.stringify(c.args) !== first)) fail('CANOPY_ERR_BAD_QUERY', 'Multiple different STAR/COLUMNS in the same expression are not supported');
  const args = listItems(calls[0]!.args);
  const arg = args[0];
  const star = isNode(arg) && (arg.type === 'star' || (arg.type === 'column_ref' && arg.column === '*' && arg.table == null));
  const lit = star ? null : readLiteral(arg);
  if (args.length !== 1 || (!star && lit?.kind !== 'string')) fail('CANOPY_ERR_UNSUPPORTED', "COLUMNS takes * or a regular expression string here ('^a'); other forms are not supported");
  const pattern = lit?.kind === 'string' ? lit.value : null;
  const names = scope.table.columns.map((col) => col.name);
  if (pattern === null) return names;
  let re;
  try {
    re = regexOf(pattern, '');
  } catch (e) {
    if (e instanceof CanopyError && e.code === 'CANOPY_ERR_BAD_QUERY') fail('CANOPY_ERR_BAD_QUERY', `COLUMNS: failed to compile regex "${pattern}"`);
    throw e;
  }
  const matched = names.filter((name) => re.test(name));
  if (matched.length === 0) fail('CANOPY_ERR_BAD_QUERY', `No matching columns found that match regex "${pattern}"`);
  return matched;
}

/** A copy of `n` with each COLUMNS call replaced by a reference to column `name`. */
function withColumn(n: unknown, name: string): unknown {
  if (isColumnsCall(n)) return { type: 'column_ref', table: null, column: { expr: { type: 'double_quote_string', value: name } }, ...(n.parentheses === true ? { parentheses: true } : {}) };
  if (Array.isArray(n)) return n.map((x) => withColumn(x, name));
  if (!isNode(n) || n.ast != null || n.type === 'select') return n;
  return Object.fromEntries(Object.entries(n).map(([k, v]) => [k, typeof v === 'object' && v !== null ? withColumn(v, name) : v]));
}

/**
 * `SELECT DISTINCT *` (and `t.*`): the star expanded into the table's columns, so DISTINCT is
 * GROUP BY every column (DuckDB's distinct rows). A star with EXCLUDE, REPLACE or RENAME is
 * left as it is (refused with DISTINCT).
 */
export function expandDistinctStar(select: Select, scope: Scope): void {
  const distinct = isNode(select.distinct) ? select.distinct.type : select.distinct;
  if (typeof distinct !== 'string' || distinct.toUpperCase() !== 'DISTINCT') return;
  const columns = Array.isArray(select.columns) ? (select.columns as unknown[]) : [];
  const plainStar = (c: unknown): boolean => {
    const e = isNode(c) ? c.expr : undefined;
    if (!isNode(e)) return false;
    if (e.type === 'star') return true;
    return e.type === 'column_ref' && e.column === '*' && e.exclude == null && e.replace == null && e.rename == null;
  };
  if (!columns.some(plainStar)) return;
  (select as { columns: unknown[] }).columns = columns.flatMap((c) =>
    plainStar(c) ? scope.table.columns.map((col) => ({ type: 'expr', expr: { type: 'column_ref', table: null, column: { expr: { type: 'double_quote_string', value: col.name } } }, as: null })) : [c],
  );
}
