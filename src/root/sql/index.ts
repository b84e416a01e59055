/**
 * The SQL planner: one SELECT over one table, parsed with node-sql-parser (PostgreSQL
 * dialect) and lowered to a {@link QueryPlan}. Aggregates are decomposed here into the
 * partials leaves compute (AVG = SUM + COUNT); literals are coerced here to the types of
 * the columns they meet, so leaves never see untyped values.
 *
 * Every failure is a {@link CanopyError}: parse errors carry a `position`, everything canopy
 * does not do is `CANOPY_ERR_UNSUPPORTED` naming the construct.
 */
import type { QueryPlan, TableSchema } from '../../merge/types.ts';
import { guardUnreadFields } from './ast-guard.ts';
import { planAggregateQuery } from './aggregates.ts';
import { checkStatement } from './ast.ts';
import { asPlannerError, fail } from './errors.ts';
import { parse } from './parse.ts';
import { lowerPredicate, rowLevel } from './predicates.ts';
import { planRowQuery } from './rows.ts';
import { resolveFrom } from './scope.ts';
import { DEFAULT_LIMITS, type QueryLimits } from './limits.ts';
import { classifySelectList, isAggregateQuery, readLimit } from './select.ts';


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
 * @returns the plan; `scan.table` is the catalog's table name
 * @throws CanopyError `CANOPY_ERR_BAD_QUERY` (syntax, with `position`; misuse of GROUP BY,
 *   ordinals, aliases), `CANOPY_ERR_UNSUPPORTED` (JOIN, subquery, window, CASE, ...),
 *   `CANOPY_ERR_UNKNOWN_TABLE`, `CANOPY_ERR_UNKNOWN_COLUMN`, `CANOPY_ERR_TYPE` (operand or
 *   literal does not fit a column type), `CANOPY_ERR_LIMIT` (SQL too long, LIMIT out of range,
 *   query too complex to parse). Never anything else.
 */
export function planQuery(sql: string, tables: ReadonlyMap<string, TableSchema>, limits: QueryLimits = DEFAULT_LIMITS): QueryPlan {
  try {
    return plan(sql, tables, limits);
  } catch (e) {
    throw asPlannerError(e);
  }
}

export function plan(sql: string, tables: ReadonlyMap<string, TableSchema>, limits: QueryLimits): QueryPlan {
  if (typeof sql !== 'string' || sql.trim() === '') fail('CANOPY_ERR_BAD_QUERY', 'the query is empty; send one SELECT statement');
  if (sql.length > limits.maxSqlLength) {
    fail('CANOPY_ERR_LIMIT', `the query is ${sql.length} characters long; the limit is ${limits.maxSqlLength}`);
  }
  const select = checkStatement(parse(sql));
  const scope = resolveFrom(select, tables);
  const items = classifySelectList(select, scope);
  const filter = select.where == null ? null : lowerPredicate(select.where, rowLevel(scope));
  const limit = readLimit(select.limit, limits);
  const planned = isAggregateQuery(select)
    ? planAggregateQuery(select, scope, items, filter, limit, limits)
    : planRowQuery(select, scope, items, filter, limit, limits);
  // Syntax the planner did not read (AT TIME ZONE, future parser fields) refuses the query.
  guardUnreadFields(select, sql);
  return planned;
}

export { DEFAULT_LIMITS, type QueryLimits } from './limits.ts';
