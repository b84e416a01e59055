/**
 * The window functions canopy computes: sum, count, avg, min and max `OVER ()` or
 * `OVER (PARTITION BY <group keys>)` over the groups of a GROUP BY result (the "percent of
 * total" of dashboards: `count(*) * 100.0 / sum(count(*)) OVER ()`). Checked here, before
 * planning, so every other form is refused naming the supported one.
 */
import { type Node, type Select, isNode, str, visitNodes } from './ast.ts';
import { fail } from './errors.ts';
import { isAggregateCall } from './expressions.ts';

/** What canopy computes, for refusal messages. */
export const SUPPORTED_WINDOWS = 'canopy computes sum, count, avg, min and max OVER () or OVER (PARTITION BY <group keys>) over a GROUP BY result, e.g. count(*) * 100.0 / sum(count(*)) OVER ()';

/** The aggregates a window may apply (over a GROUP BY result). */
export const WINDOW_FNS: ReadonlySet<string> = new Set(['sum', 'count', 'avg', 'min', 'max']);

/** The `window_specification` of a call's OVER clause (empty for a named window: refused by {@link checkWindows}). */
export function windowSpec(n: Node): Node {
  const over = isNode(n.over) ? n.over : {};
  const as = isNode(over.as_window_specification) ? over.as_window_specification : {};
  return isNode(as.window_specification) ? as.window_specification : {};
}

/** True when `n` holds a window function call (`... OVER (...)`) anywhere. */
export function containsWindow(n: unknown): boolean {
  let found = false;
  visitNodes(n, (v) => {
    if (v.over != null) found = true;
    return !found;
  });
  return found;
}

/** True when `n` holds an aggregate call outside any window call. */
function aggregateOutsideWindows(n: unknown): boolean {
  let found = false;
  visitNodes(n, (v) => {
    if (found || v.over != null) return false;
    if (isAggregateCall(v)) found = true;
    return !found;
  });
  return found;
}

/**
 * Checks the statement's window functions, if any, before anything else is planned: each
 * must be one of the forms canopy computes (see {@link SUPPORTED_WINDOWS}), in SELECT or
 * ORDER BY, of an aggregate query (GROUP BY, HAVING or an aggregate outside the windows).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a window in WHERE, GROUP BY or HAVING (DuckDB
 *   refuses them); CANOPY_ERR_UNSUPPORTED for any other window form, and for windows over
 *   the table's rows (a query that does not aggregate)
 */
export function checkWindows(select: Select): void {
  for (const [clause, part] of [['WHERE', select.where], ['GROUP BY', select.groupby], ['HAVING', select.having]] as const) {
    if (containsWindow(part)) fail('CANOPY_ERR_BAD_QUERY', `${clause} cannot contain window functions (DuckDB computes them after ${clause})`);
  }
  const orderExprs = Array.isArray(select.orderby) ? select.orderby.map((o) => (isNode(o) ? o.expr : null)) : [];
  if (!containsWindow(select.columns) && !containsWindow(orderExprs)) return;
  visitNodes([select.columns, orderExprs], (v) => {
    if (v.over == null) return;
    const name = String(str(v.name) ?? (v.type === 'function' ? 'function' : '')).toLowerCase();
    if (v.type !== 'aggr_func' || !WINDOW_FNS.has(name)) fail('CANOPY_ERR_UNSUPPORTED', `this window function is not supported; ${SUPPORTED_WINDOWS}`);
    const args = isNode(v.args) ? v.args : {};
    if (args.distinct != null) fail('CANOPY_ERR_UNSUPPORTED', `${name}(DISTINCT ...) OVER (...) is not supported; ${SUPPORTED_WINDOWS}`);
    if (args.orderby != null) fail('CANOPY_ERR_UNSUPPORTED', `ORDER BY inside a window aggregate is not supported; ${SUPPORTED_WINDOWS}`);
    if (v.filter != null) fail('CANOPY_ERR_UNSUPPORTED', `FILTER on a window aggregate is not supported; ${SUPPORTED_WINDOWS}`);
    const over = isNode(v.over) ? v.over : {};
    const as = over.as_window_specification;
    if (!isNode(as) || !isNode(as.window_specification)) fail('CANOPY_ERR_UNSUPPORTED', `a named window is not supported; ${SUPPORTED_WINDOWS}`);
    const spec = windowSpec(v);
    if (spec.name != null) fail('CANOPY_ERR_UNSUPPORTED', `a named window is not supported; ${SUPPORTED_WINDOWS}`);
    if (spec.orderby != null) fail('CANOPY_ERR_UNSUPPORTED', `ORDER BY in a window (a running total) is not supported; ${SUPPORTED_WINDOWS}`);
    if (spec.window_frame_clause != null) fail('CANOPY_ERR_UNSUPPORTED', `a window frame (ROWS / RANGE) is not supported; ${SUPPORTED_WINDOWS}`);
    for (const k of Object.keys(spec)) if (!['name', 'partitionby', 'orderby', 'window_frame_clause'].includes(k) && spec[k] != null) fail('CANOPY_ERR_UNSUPPORTED', `this window clause is not supported; ${SUPPORTED_WINDOWS}`);
    return false;
  });
  const aggregates = select.groupby != null || select.having != null || aggregateOutsideWindows(select.columns) || aggregateOutsideWindows(orderExprs) || (isNode(select.distinct) && select.distinct.type != null);
  // Inside a window's argument an aggregate still makes the query aggregate: sum(count(*)) OVER ().
  const inside: unknown[] = [];
  visitNodes([select.columns, orderExprs], (v) => {
    if (v.over == null) return;
    inside.push(isNode(v.args) ? v.args.expr : null);
    return false;
  });
  if (!aggregates && !inside.some((a) => aggregateOutsideWindows(a))) fail('CANOPY_ERR_UNSUPPORTED', `window functions over the table's rows are not supported (this query does not aggregate); ${SUPPORTED_WINDOWS}`);
}

/**
 * GROUP BY ALL groups by every SELECT item without an aggregate; DuckDB refuses such an item
 * when it holds a window function over a column ("Cannot group on a window clause": `max(g)
 * OVER ()`; `sum(count(*)) OVER ()` holds an aggregate, `count(*) OVER ()` no column). True
 * for an item DuckDB refuses so.
 */
export function groupsOnWindow(n: unknown): boolean {
  if (!containsWindow(n)) return false;
  let aggregate = false;
  let column = false;
  visitNodes(n, (v) => {
    if (isAggregateCall(v) && v.over == null) aggregate = true;
    if (v.type === 'column_ref') column = true;
  });
  return !aggregate && column;
}
