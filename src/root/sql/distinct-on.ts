/**
 * DuckDB's `SELECT DISTINCT ON (keys) items FROM t [WHERE ...] ORDER BY ...`: one row per
 * distinct key, the first of its rows in the ORDER BY, then the answer in that order. Canopy
 * answers it where the row kept is mergeable in the tree: as GROUP BY the keys, each item that
 * the keys determine kept as it is, and the one column the ORDER BY picks the row by taken as
 * its extreme (min for ASC, max for DESC; NULLS FIRST: NULL when the group holds a NULL), which
 * is that row's value whichever of the tied rows DuckDB keeps. Everything else is refused
 * (the row DuckDB keeps is then the first in its scan order, which a tree does not have).
 */
import { type Node, isNode, str } from './ast.ts';
import { fail } from './errors.ts';
import { readLiteral } from './literals.ts';
import { columnRef } from './scope.ts';

const REFUSE = 'SELECT DISTINCT ON';

/** A select item: its expression and alias. */
interface Item {
  readonly expr: unknown;
  readonly as: string | null;
}

/** `n` as JSON without positions, table qualifiers and parentheses, names in lower case: equal for the same expression. */
function shape(n: unknown): string {
  return JSON.stringify(n, (k, v: unknown) => {
    if (k === 'loc' || k === 'table' || k === 'parentheses' || k === 'collate') return undefined;
    if (k === 'value' && typeof v === 'string') return v.toLowerCase();
    return v;
  });
}

/** The column names (lower case) `n` reads, or null when it reads a star or a subquery. */
function columnsOf(n: unknown): Set<string> | null {
  const out = new Set<string>();
  let ok = true;
  const stack: unknown[] = [n];
  while (stack.length > 0) {
    const v = stack.pop();
    if (Array.isArray(v)) {
      stack.push(...(v as unknown[]));
      continue;
    }
    if (!isNode(v)) continue;
    if (v.type === 'column_ref') {
      const ref = columnRef(v);
      if (ref === null || ref.name === '*') ok = false;
      else out.add(ref.name.toLowerCase());
      continue;
    }
    if (v.type === 'star' || v.ast != null || v.type === 'select') ok = false;
    for (const x of Object.values(v)) if (typeof x === 'object' && x !== null) stack.push(x);
  }
  return ok ? out : null;
}

/** Whether `n` holds an aggregate or window call. */
function holdsAggregate(n: unknown): boolean {
  return /"type":"aggr_func"|"over":\{/.test(JSON.stringify(n));
}

/**
 * Rewrites a DISTINCT ON select (in place) into the GROUP BY query that answers it, or
 * refuses it. A key or ORDER BY item that is a number is the select item at that position; a
 * bare name that is a select item's alias is that item (as DuckDB binds them).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED where the row kept per key is not determined by
 *   the keys and one ORDER BY column (no ORDER BY, two columns to pick by, `*`, aggregates)
 */
export function rewriteDistinctOn(ast: unknown): void {
  const select = (Array.isArray(ast) ? ast[0] : ast) as Record<string, unknown> | undefined;
  if (!isNode(select) || select.type !== 'select' || !isNode(select.distinct) || select.distinct.type !== 'DISTINCT ON') return;
  const keyNodes = Array.isArray(select.distinct.columns) ? (select.distinct.columns as unknown[]) : [];
  const columns = Array.isArray(select.columns) ? (select.columns as Record<string, unknown>[]) : [];
  if (select.groupby != null || select.having != null) fail('CANOPY_ERR_UNSUPPORTED', `${REFUSE} with GROUP BY or HAVING is not supported`);
  const items: Item[] = columns.map((c) => ({ expr: isNode(c) ? c.expr : undefined, as: isNode(c) ? str(c.as) : null }));
  if (items.some((i) => columnsOf(i.expr) === null || holdsAggregate(i.expr))) fail('CANOPY_ERR_UNSUPPORTED', `${REFUSE} with *, aggregates or subqueries in the select list is not supported; list the columns`);
  // A position or an alias stands for its select item.
  const resolve = (n: unknown): unknown => {
    const lit = readLiteral(n);
    if (lit?.kind === 'number' && /^\d+$/.test(lit.text)) {
      const k = Number(lit.text);
      if (k < 1 || k > items.length) fail('CANOPY_ERR_BAD_QUERY', `${REFUSE} term out of range: ${k} (the select list has ${items.length} items)`);
      return items[k - 1]!.expr;
    }
    const ref = isNode(n) && n.type === 'column_ref' ? columnRef(n) : null;
    if (ref !== null && ref.qualifier === null) {
      const item = items.find((i) => i.as !== null && i.as.toLowerCase() === ref.name.toLowerCase());
      if (item !== undefined) return item.expr;
    }
    return n;
  };
  const keys = keyNodes.map((k) => {
    const node = isNode(k) && k.type === 'expr' ? k.expr : k;
    const lit = readLiteral(node);
    if (lit !== null && !(lit.kind === 'number' && /^\d+$/.test(lit.text))) fail('CANOPY_ERR_BAD_QUERY', `${REFUSE} non-integer literal has no effect (as DuckDB refuses it)`);
    return resolve(node);
  });
  if (keys.some((k) => columnsOf(k) === null || holdsAggregate(k))) fail('CANOPY_ERR_UNSUPPORTED', `${REFUSE} keys must be expressions over the table's columns`);
  const keyColumns = new Set(keys.filter((k) => isNode(k) && k.type === 'column_ref').map((k) => columnRef(k)!.name.toLowerCase()));
  const keyShapes = new Set(keys.map(shape));
  // Constant over the rows of one key: a key, or an expression of key columns only.
  const determined = (n: unknown): boolean => keyShapes.has(shape(n)) || [...(columnsOf(n) ?? new Set(['*']))].every((c) => keyColumns.has(c));
  const order = Array.isArray(select.orderby) ? (select.orderby as Record<string, unknown>[]) : [];
  const resolved = order.map((o) => resolve(o.expr));
  if (resolved.some((e) => columnsOf(e) === null || holdsAggregate(e))) fail('CANOPY_ERR_UNSUPPORTED', `${REFUSE} ordered by aggregates or subqueries is not supported`);
  // The first ORDER BY item the keys do not determine picks the row kept: it must be a column.
  const at = resolved.findIndex((e) => !determined(e));
  const pick = at < 0 ? null : columnRef(resolved[at]);
  if (at >= 0 && pick === null) fail('CANOPY_ERR_UNSUPPORTED', `${REFUSE} is supported ordered by a column after the keys, not by an expression of other columns`);
  const pickName = pick?.name.toLowerCase() ?? null;
  const isPick = (n: unknown): boolean => {
    const ref = isNode(n) && n.type === 'column_ref' ? columnRef(n) : null;
    return ref !== null && pickName !== null && ref.name.toLowerCase() === pickName;
  };
  for (let k = at + 1; at >= 0 && k < resolved.length; k++) {
    if (!determined(resolved[k]) && !isPick(resolved[k])) fail('CANOPY_ERR_UNSUPPORTED', `${REFUSE} is supported ordered by one column after the keys (ties would be broken by a second one, which canopy does not merge)`);
  }
  for (const item of items) {
    if (determined(item.expr) || isPick(item.expr)) continue;
    fail('CANOPY_ERR_UNSUPPORTED', at < 0
      ? `${REFUSE} without an ORDER BY that picks the row is not supported (DuckDB keeps the first row it reads, which a tree does not have); add ORDER BY the column to keep the least or greatest of`
      : `${REFUSE} is supported where each select item is a key or the ORDER BY column that picks the row`);
  }
  // The picked column's value in the row kept.
  const term = at < 0 ? null : order[at]!;
  const extreme = (): Node => {
    const c = resolved[at];
    const agg = (name: string, expr: unknown): Node => ({ type: 'aggr_func', name, args: { expr }, over: null });
    const best = agg(String(term!.type ?? 'ASC').toUpperCase() === 'DESC' ? 'MAX' : 'MIN', c);
    if (!/FIRST/i.test(String(term!.nulls ?? ''))) return best;
    const hasNull = { type: 'binary_expr', operator: '>', left: agg('COUNT', { type: 'star', value: '*' }), right: agg('COUNT', c) };
    return { type: 'case', expr: null, args: [{ type: 'when', cond: hasNull, result: { type: 'null', value: null } }, { type: 'else', result: best }] };
  };
  columns.forEach((c, k) => {
    const item = items[k]!;
    if (determined(item.expr)) return;
    const name = columnRef(item.expr)!.name;
    columns[k] = { ...c, expr: extreme(), as: item.as ?? name };
  });
  select.orderby = order.length === 0 ? null : order.map((o, k) => (determined(resolved[k]) ? o : { ...o, expr: extreme() }));
  select.groupby = { columns: keys };
  select.distinct = null;
}
