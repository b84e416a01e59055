/**
 * DuckDB's `COLUMNS(*)` and `COLUMNS('regex')` as whole SELECT items: expanded, before the
 * select list is classified, into one item per column of the table (in table order) whose
 * name the regular expression matches anywhere (RE2, case-sensitive, as DuckDB's binder),
 * each with the item's alias if it has one. COLUMNS inside an expression (`min(COLUMNS(*))`)
 * is not expanded and is refused as an unknown function.
 */
import { CanopyError } from '../../merge/index.ts';
import { regexOf } from '../../merge/scalar.ts';
import { type Select, isNode, listItems } from './ast.ts';
import { fail } from './errors.ts';
import { functionName } from './expressions.ts';
import { readLiteral } from './literals.ts';
import type { Scope } from './scope.ts';

/**
 * Replaces each `COLUMNS(...)` SELECT item of `select` by the columns it names.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when no column matches or the pattern does not
 *   compile (DuckDB's binder errors), or COLUMNS takes other than `*` or a string literal;
 *   CANOPY_ERR_UNSUPPORTED for a regular-expression construct canopy does not read as RE2 does
 */
export function expandColumnsItems(select: Select, scope: Scope): void {
  const columns = Array.isArray(select.columns) ? (select.columns as unknown[]) : [];
  if (!columns.some(isColumnsItem)) return;
  (select as { columns: unknown[] }).columns = columns.flatMap((c) => {
    if (!isColumnsItem(c)) return [c];
    const item = c as { expr: Record<string, unknown>; as: unknown };
    const args = listItems(item.expr.args);
    const arg = args[0];
    const star = isNode(arg) && (arg.type === 'star' || (arg.type === 'column_ref' && arg.column === '*' && arg.table == null));
    const lit = star ? null : readLiteral(arg);
    if (args.length !== 1 || (!star && lit?.kind !== 'string')) fail('CANOPY_ERR_UNSUPPORTED', "COLUMNS takes * or a regular expression string here ('^a'); other forms are not supported");
    const pattern = lit?.kind === 'string' ? lit.value : null;
    let names = scope.table.columns.map((col) => col.name);
    if (pattern !== null) {
      let re;
      try {
        re = regexOf(pattern, '');
      } catch (e) {
        if (e instanceof CanopyError && e.code === 'CANOPY_ERR_BAD_QUERY') fail('CANOPY_ERR_BAD_QUERY', `COLUMNS: failed to compile regex "${pattern}"`);
        throw e;
      }
      names = names.filter((n) => re.test(n));
      if (names.length === 0) fail('CANOPY_ERR_BAD_QUERY', `No matching columns found that match regex "${pattern}"`);
    }
    return names.map((name) => ({ type: 'expr', expr: { type: 'column_ref', table: null, column: { expr: { type: 'double_quote_string', value: name } } }, as: item.as ?? null }));
  });
}

function isColumnsItem(c: unknown): boolean {
  return isNode(c) && isNode(c.expr) && c.expr.type === 'function' && functionName(c.expr).toLowerCase() === 'columns';
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
