/**
 * Planning row queries (no aggregate): projected columns, sort keys and the row limit.
 */
import type { ColumnType, Expr, QueryPlan, RowQuerySpec } from '../../merge/types.ts';
import { type Select, upper } from './ast.ts';
import { fail } from './errors.ts';
import { type KeyExpr, type Typed, columnKey, keyId, lowerKey } from './expressions.ts';
import type { QueryLimits } from './limits.ts';
import { literalText, readLiteral } from './literals.ts';
import { type Scope, findByName } from './scope.ts';
import { type SelectItem, bareName, nullsFirst, orderItems, ordinal } from './select.ts';


export function planRowQuery(
  select: Select,
  scope: Scope,
  items: readonly SelectItem[],
  filter: Expr | null,
  limit: number | null,
  limits: QueryLimits,
): QueryPlan {
  const columns: { name: string; expr: Expr; type: ColumnType }[] = [];
  const ids: string[] = [];
  const aliases = new Map<string, number>();
  const add = (name: string, key: Typed<KeyExpr>): number => {
    columns.push({ name, expr: key.expr, type: key.type });
    ids.push(keyId(key.expr));
    return columns.length - 1;
  };
  for (const item of items) {
    if (item.kind === 'star') {
      for (const c of scope.table.columns) {
        if (item.exclude.has(c.name)) continue;
        // `* REPLACE` / `* RENAME`: the expression or name in the column's place, named in ORDER BY too.
        const name = item.rename?.get(c.name) ?? c.name;
        const index = add(name, item.replace?.get(c.name) ?? columnKey(c));
        if ((item.replace?.has(c.name) === true || item.rename?.has(c.name) === true) && !aliases.has(name)) aliases.set(name, index);
      }
    } else if (item.kind === 'key') {
      const index = add(item.alias ?? item.key.text, item.key);
      if (item.alias !== null && !aliases.has(item.alias)) aliases.set(item.alias, index);
    }
  }
  // DuckDB's error when EXCLUDE leaves nothing.
  if (columns.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'SELECT list is empty after resolving * expressions');
  const visible = columns.length;
  const orderBy = orderItems(select).map((item) => {
    const position = ordinal(item.expr, visible, 'ORDER BY');
    const alias = bareName(item.expr);
    const aliased = alias === null ? undefined : findByName(aliases.entries(), alias, ([name]) => name);
    let column = position ?? aliased?.[1];
    if (column === undefined) {
      const literal = readLiteral(item.expr);
      if (literal !== null) fail('CANOPY_ERR_BAD_QUERY', `ORDER BY ${literalText(literal)} is not a column, alias or position`);
      const key = lowerKey(item.expr, scope, 'ORDER BY');
      const found = ids.indexOf(keyId(key.expr));
      column = found >= 0 ? found : add(key.text, key);
    }
    return { column, desc: upper(item.type) === 'DESC', ...(nullsFirst(item) ? { nullsFirst: true } : {}) };
  });
  const rows: RowQuerySpec = { columns, visible, orderBy, limit: limit ?? limits.maxRows + 1 };
  return {
    scan: { table: scope.table.name, filter, groupBy: [], partials: [], rows, maxGroups: limits.maxGroups },
    output: [],
    having: null,
    orderBy: [],
    limit,
  };
}
