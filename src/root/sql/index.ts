/**
 * The SQL planner: one SELECT over one table, parsed with node-sql-parser (PostgreSQL
 * dialect) and lowered to a {@link QueryPlan}. Aggregates are decomposed here into the
 * partials leaves compute (AVG = SUM + COUNT); literals are coerced here to the types of
 * the columns they meet, so leaves never see untyped values.
 *
 * Every failure is a {@link CanopyError}: parse errors carry a `position`, everything canopy
 * does not do is `CANOPY_ERR_UNSUPPORTED` naming the construct.
 */
import { CanopyError } from '../../merge/errors.ts';
import { isoFromMicros } from '../../merge/time.ts';
import type { QueryPlan, TableSchema } from '../../merge/types.ts';
import { guardUnreadFields } from './ast-guard.ts';
import { planAggregateQuery } from './aggregates.ts';
import { checkStatement } from './ast.ts';
import { applyCollations } from './collate.ts';
import { asPlannerError, fail } from './errors.ts';
import { lowerPredicate, rowLevel } from './predicates.ts';
import { planRowQuery } from './rows.ts';
import { resolveFrom } from './scope.ts';
import { expandColumnsItems, expandDistinctStar } from './columns.ts';
import { resolveLateralAliases, resolveWhereAliases } from './lateral.ts';
import { DEFAULT_LIMITS, type QueryLimits } from './limits.ts';
import { type SelectItem, classifySelectList, isAggregateQuery, readLimit } from './select.ts';
import { type Node, type Select, isNode, visitNodes } from './ast.ts';
import { columnRef, type Scope } from './scope.ts';
import { mergeSubqueries } from './flatten.ts';
import { GROUP_BY_ALL, parse, positionAt } from './parse.ts';
import { GROUP_BY_EMPTY } from './rewrite.ts';
import { rewriteDistinctOn } from './distinct-on.ts';
import { checkWindows, groupsOnWindow } from './windows.ts';


/**
 * Plans one SQL query against the served tables.
 *
 * A query with an aggregate (in SELECT, HAVING or ORDER BY), a GROUP BY or a HAVING is an
 * aggregate query: `scan.groupBy` + `scan.partials` for the children, `output`, `having`,
 * `orderBy` and `limit` for the root. Any other query is a row query: `scan.rows` lists the
 * projected columns (then hidden sort-only columns), sort keys and the row limit (the
 * explicit LIMIT, or `limits.maxRows + 1` without one), and `output` is empty.
 *
 * @param sql one SELECT statement (PostgreSQL syntax; a trailing `;` is allowed)
 * @param tables the served tables by name
 * @param limits size limits; defaults to {@link DEFAULT_LIMITS}
 * @param nowUs the query's start (µs since 1970, UTC) that `now()` and `current_timestamp` read;
 *   a plan that reads it is marked `volatile` (not to be reused for another query)
 * @returns the plan; `scan.table` is the catalog's table name
 * @throws CanopyError `CANOPY_ERR_BAD_QUERY` (syntax, with `position`; misuse of GROUP BY,
 *   ordinals, aliases), `CANOPY_ERR_UNSUPPORTED` (JOIN, subquery, window, CASE, ...),
 *   `CANOPY_ERR_UNKNOWN_TABLE`, `CANOPY_ERR_UNKNOWN_COLUMN`, `CANOPY_ERR_TYPE` (operand or
 *   literal does not fit a column type), `CANOPY_ERR_LIMIT` (SQL too long, LIMIT out of range,
 *   query too complex to parse). Never anything else.
 */
export function planQuery(sql: string, tables: ReadonlyMap<string, TableSchema>, limits: QueryLimits = DEFAULT_LIMITS, nowUs: number = Date.now() * 1000): QueryPlan {
  try {
    return plan(sql, tables, limits, nowUs);
  } catch (e) {
    throw asPlannerError(e);
  }
}

/**
 * A UTF-16 surrogate without its pair (a JSON body's "\ud800") is not Unicode text: DuckDB,
 * which reads SQL as UTF-8, cannot be sent it, and canopy would answer a string no UTF-8
 * answer (Arrow, CSV, the pg wire) can hold. Refused at its position.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY
 */
function refuseLoneSurrogates(sql: string): void {
  const lone = /\p{Cs}/u.exec(sql);
  if (lone === null) return;
  const at = positionAt(sql, lone.index);
  const code = lone[0].charCodeAt(0).toString(16).toUpperCase();
  fail('CANOPY_ERR_BAD_QUERY', `the query is not Unicode text at line ${at.line}, column ${at.column}: the UTF-16 surrogate U+${code} has no pair there (a JSON "\\u${code.toLowerCase()}" escape must be next to its pair); send valid Unicode`, at);
}

export function plan(sql: string, tables: ReadonlyMap<string, TableSchema>, limits: QueryLimits, nowUs: number = Date.now() * 1000): QueryPlan {
  if (typeof sql !== 'string' || sql.trim() === '') fail('CANOPY_ERR_BAD_QUERY', 'the query is empty; send one SELECT statement');
  if (sql.length > limits.maxSqlLength) {
    fail('CANOPY_ERR_LIMIT', `the query is ${sql.length} characters long; the limit is ${limits.maxSqlLength}`);
  }
  refuseLoneSurrogates(sql);
  const ast = parse(sql);
  mergeSubqueries(ast, tables, sql);
  rewriteDistinctOn(ast);
  const parsed = checkStatement(ast);
  applyCollations(parsed);
  const volatile = bindNow(parsed, nowUs);
  checkWindows(parsed);
  const scope = resolveFrom(parsed, tables);
  expandColumnsItems(parsed, scope);
  expandDistinctStar(parsed, scope);
  resolveLateralAliases(parsed, scope);
  resolveWhereAliases(parsed, scope);
  const items = classifySelectList(parsed, scope);
  const select = withOrderByAll(withImplicitGroupBy(parsed, items), items, scope);
  const filter = select.where == null ? null : withAliasHint(() => lowerPredicate(select.where, rowLevel(scope)), items);
  const { limit, offset, percent } = readLimit(select.limit, limits, (select as { _limit?: unknown })._limit);
  let planned = isAggregateQuery(select)
    ? planAggregateQuery(select, scope, items, filter, limit, limits)
    : planRowQuery(select, scope, items, filter, limit === null ? null : limit + offset, limits);
  if (planned.scan.rows !== null) {
    // Children return OFFSET + LIMIT rows; the root skips the first OFFSET.
    const rows = { ...planned.scan.rows, limit: limit === null ? limits.maxRows + 1 + offset : limit + offset };
    planned = { ...planned, scan: { ...planned.scan, rows }, limit };
  }
  if (offset > 0) planned = { ...planned, offset };
  // LIMIT p%: every row (group) is fetched; the root keeps the first p% once it has them all.
  if (percent !== undefined) planned = { ...planned, limitPercent: percent };
  // Every group an answer row (no HAVING, LIMIT, OFFSET, LIMIT p%; grouping sets only with the finest): more
  // groups than an answer holds are refused where they are counted (a leaf, an aggregator), as
  // soon as they are, not once every shard has answered (GROUP BY origin, destination, delay
  // over the flights data took 6 s to refuse). The root says it as the rows limit (rowsForGroups).
  if (everyGroupARow(planned, offset, percent) && limits.maxLimit < planned.scan.maxGroups) planned = { ...planned, scan: { ...planned.scan, maxGroups: limits.maxLimit } };
  // Syntax the planner did not read (AT TIME ZONE, future parser fields) refuses the query.
  guardUnreadFields(parsed, sql);
  return volatile ? { ...planned, volatile: true } : planned;
}

/**
 * Whether every group of a plan with GROUP BY keys is a row of its answer: no HAVING, LIMIT,
 * OFFSET or LIMIT p%, and no grouping sets unless one of them is the finest grouping (every
 * key: ROLLUP, CUBE), whose groups are the nodes' groups.
 */
export function everyGroupARow(p: QueryPlan, offset = p.offset ?? 0, percent = p.limitPercent): boolean {
  const finest = p.groupingSets === undefined || p.groupingSets.some((set) => set.length === p.scan.groupBy.length);
  return p.scan.rows === null && p.scan.groupBy.length > 0 && p.having === null && p.limit === null && offset === 0 && percent === undefined && finest;
}

/**
 * Lowers the WHERE clause; an unknown column there that is a SELECT alias but not read as one
 * (qualified, `WHERE flights.o = 'ORD'`, or inside a subquery; src/root/sql/lateral.ts reads
 * the bare name) gets a message saying so, not only the table's columns.
 */
function withAliasHint<T>(lower: () => T, items: readonly SelectItem[]): T {
  try {
    return lower();
  } catch (e) {
    if (!(e instanceof CanopyError) || e.code !== 'CANOPY_ERR_UNKNOWN_COLUMN') throw e;
    const alias = items.map((item) => (item.kind === 'star' ? null : item.alias)).find((a) => a !== null && e.message.toLowerCase().startsWith(`unknown column '${a.toLowerCase()}'`));
    if (alias === undefined || alias === null) throw e;
    throw new CanopyError(e.code, `${e.message}; '${alias}' is a SELECT alias, which WHERE reads by its bare name only (as DuckDB does): write ${alias} or its expression there`, { ...(e.position === undefined ? {} : { position: e.position }), ...(e.details === undefined ? {} : { details: e.details }), cause: e });
  }
}

/**
 * SELECT DISTINCT is GROUP BY every SELECT item; GROUP BY ALL groups by every item without an
 * aggregate (DuckDB); GROUP BY () by nothing. Returns the statement with that GROUP BY written out.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for DISTINCT with aggregates or *, or with GROUP BY; for * with GROUP BY ALL
 */
function withImplicitGroupBy(select: Select, items: readonly SelectItem[]): Select {
  const columns = Array.isArray(select.columns) ? select.columns : [];
  const exprOf = (c: unknown): unknown => (isNode(c) ? c.expr : undefined);
  const groupBy = isNode(select.groupby) && Array.isArray(select.groupby.columns) ? select.groupby.columns : [];
  // GROUP BY (): an aggregate query with no key, one row even over no rows or without aggregates.
  if (groupBy.length === 1 && columnRef(groupBy[0])?.name === GROUP_BY_EMPTY) return { ...select, groupby: { columns: [] } };
  const all = groupBy.length === 1 && columnRef(groupBy[0])?.name === GROUP_BY_ALL;
  if (all) {
    // A star groups by every column it expands to in DuckDB; canopy's star is a row query.
    if (items.some((i) => i.kind === 'star')) fail('CANOPY_ERR_UNSUPPORTED', 'SELECT * with GROUP BY ALL is not supported; list the columns (GROUP BY ALL groups by them)');
    if (columns.some((c) => groupsOnWindow(exprOf(c)))) fail('CANOPY_ERR_BAD_QUERY', 'GROUP BY ALL cannot group on a window clause (as DuckDB refuses it): a window function over a column outside any aggregate; list the GROUP BY keys');
    const keys = columns.filter((_, i) => items[i]?.kind === 'key').map(exprOf);
    if (keys.length === 0) return { ...select, groupby: null };
    return { ...select, groupby: { columns: keys } };
  }
  if (isNode(select.distinct) && select.distinct.type != null) {
    if (items.some((i) => i.kind !== 'key')) fail('CANOPY_ERR_UNSUPPORTED', 'SELECT DISTINCT with aggregates or * is not supported; list the columns, or use GROUP BY');
    if (select.groupby != null) fail('CANOPY_ERR_UNSUPPORTED', 'SELECT DISTINCT with GROUP BY is not supported; drop DISTINCT');
    return { ...select, groupby: { columns: columns.map(exprOf) } };
  }
  return select;
}

/**
 * ORDER BY ALL (DuckDB): by every output column, left to right (a star's columns each, as
 * it expands over `scope`'s table), in the direction and NULLS order written after ALL.
 * Returns the statement with those ORDER BY positions written out.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for ORDER BY ALL with other ORDER BY items
 */
function withOrderByAll(select: Select, items: readonly SelectItem[], scope: Scope): Select {
  const order = Array.isArray(select.orderby) ? select.orderby : [];
  const at = order.findIndex((o) => isNode(o) && columnRef(o.expr)?.name === GROUP_BY_ALL);
  if (at < 0) return select;
  if (order.length > 1) fail('CANOPY_ERR_BAD_QUERY', 'ORDER BY ALL takes no other ORDER BY items');
  const all = order[at] as Node;
  const width = (i: SelectItem): number => (i.kind === 'star' ? scope.table.columns.filter((c) => !i.exclude.has(c.name)).length : 1);
  const count = items.reduce((n, i) => n + width(i), 0);
  return { ...select, orderby: Array.from({ length: count }, (_, k) => ({ ...all, expr: { type: 'number', value: k + 1 } })) };
}

export { DEFAULT_LIMITS, type QueryLimits } from './limits.ts';

/** Names that read the query's start time (DuckDB: now(), current_timestamp, transaction_timestamp(), get_current_timestamp()). */
const NOW_FUNCTIONS = new Set(['now', 'current_timestamp', 'transaction_timestamp', 'get_current_timestamp']);
/** Names that read the query's start day (DuckDB: current_date, today()): its UTC DATE, as in a UTC session. */
const TODAY_FUNCTIONS = new Set(['current_date', 'today']);

/**
 * Replaces every call of {@link NOW_FUNCTIONS} without arguments in the parsed statement by
 * the TIMESTAMP literal of `nowUs` (UTC, µs), and of {@link TODAY_FUNCTIONS} by the DATE
 * literal of its day, so the whole query sees one instant, as DuckDB's transaction time.
 * Returns whether any was replaced.
 */
function bindNow(ast: unknown, nowUs: number): boolean {
  const text = isoFromMicros(Math.trunc(nowUs));
  let found = false;
  // Iterative (deep OR chains): a call node is turned into the literal in place.
  visitNodes(ast, (v) => {
    if (v.type !== 'function' || !isNode(v.name) || !Array.isArray(v.name.name) || v.name.name.length !== 1 || isNode(v.name.schema)) return;
    const part = v.name.name[0];
    const name = isNode(part) && typeof part.value === 'string' ? part.value.toLowerCase() : '';
    const args = isNode(v.args) && Array.isArray(v.args.value) ? v.args.value : [];
    const today = TODAY_FUNCTIONS.has(name);
    if ((!NOW_FUNCTIONS.has(name) && !today) || args.length !== 0 || v.over != null || text === null) return;
    found = true;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, today ? { type: 'date', value: text.slice(0, 10) } : { type: 'timestamp', value: text });
    return false;
  });
  return found;
}
