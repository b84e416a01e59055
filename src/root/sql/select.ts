/**
 * The SELECT list, ORDER BY items, LIMIT, and whether a query aggregates.
 */
import { type Node, type Select, isNode, str, upper } from './ast.ts';
import { fail } from './errors.ts';
import type { StarNameFilter } from './front.ts';
import { callFn, checkRegex, likeRegex } from '../../merge/index.ts';
import { type KeyExpr, type Typed, isAggregateCall, lowerKey } from './expressions.ts';
import { isGroupingCall } from './grouping-sets.ts';
import type { QueryLimits } from './limits.ts';
import { decimalRoundedValue, integerValue, integralValue, literalText, readLiteral } from './literals.ts';
import { type Scope, checkQualifier, columnRef, findColumn } from './scope.ts';
import { INT64_MAX } from '../../merge/int-range.ts';

/** One SELECT item, classified before planning. */
export type SelectItem =
  /**
   * `exclude`: the columns `* EXCLUDE (...)` leaves out (as the table names them); `replace`:
   * the expressions `* REPLACE (...)` puts in their place; `rename`: the names `* RENAME (...)`
   * gives them (both keyed by the table's names).
   */
  | { readonly kind: 'star'; readonly exclude: ReadonlySet<string>; readonly replace?: ReadonlyMap<string, Typed<KeyExpr>>; readonly rename?: ReadonlyMap<string, string> }
  | { readonly kind: 'aggregate'; readonly node: Node; readonly alias: string | null }
  | { readonly kind: 'key'; readonly key: Typed<KeyExpr>; readonly alias: string | null; readonly node: unknown };

export function classifySelectList(select: Select, scope: Scope): SelectItem[] {
  const columns = Array.isArray(select.columns) ? select.columns : [];
  if (columns.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'SELECT needs at least one column');
  return columns.map((item): SelectItem => {
    const n = isNode(item) ? item.expr : undefined;
    const alias = isNode(item) ? str(item.as) : null;
    const ref = columnRef(n);
    if (ref?.name === '*') {
      checkQualifier(scope, ref.qualifier);
      const exclude = excludedColumns(isNode(n) ? n.exclude : undefined, scope);
      if (!isNode(n) || (n.replace == null && n.rename == null)) return { kind: 'star', exclude };
      return { kind: 'star', exclude, ...starLists(n.replace, n.rename, scope, exclude) };
    }
    if (isNode(n) && containsAggregate(n)) return { kind: 'aggregate', node: n, alias };
    return { kind: 'key', key: lowerKey(n, scope, 'SELECT'), alias, node: n };
  });
}

/**
 * The columns a star's EXCLUDE list names (src/root/sql/front.ts: each name as its dotted
 * parts), as the table spells them; empty without a list.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a name not in the table or named twice (as
 *   DuckDB refuses them); CANOPY_ERR_UNKNOWN_TABLE for a qualifier that is not the table
 */
function excludedColumns(list: unknown, scope: Scope): ReadonlySet<string> {
  const out = new Set<string>();
  if (isNode(list)) {
    // `* LIKE 'p'` and its kin (src/root/sql/front.ts StarNameFilter): the columns whose name does not match.
    const f = list as unknown as StarNameFilter;
    const names = scope.table.columns.map((c) => c.name);
    const matches = (name: string): boolean =>
      f.op === 'GLOB' ? callFn('glob', [name, f.pattern], 'bool') === true
        : f.op === 'SIMILAR TO' ? (checkRegex(f.pattern, '', 'SIMILAR TO'), callFn('regexp_full_match', [name, f.pattern], 'bool') === true)
          : likeRegex(f.pattern, f.op === 'ILIKE', null).test(name);
    for (const name of names) if (matches(name) === f.negated) out.add(name);
    if (out.size === names.length) fail('CANOPY_ERR_BAD_QUERY', `Star expression "* ${f.negated ? 'NOT ' : ''}${f.op} '${f.pattern}'" resulted in an empty set of columns`);
    return out;
  }
  for (const parts of Array.isArray(list) ? (list as string[][]) : []) {
    const name = parts[parts.length - 1]!;
    if (parts.length > 1) checkQualifier(scope, parts.slice(0, -1).join('.'));
    const column = findColumn(scope, name);
    if (column === undefined) fail('CANOPY_ERR_BAD_QUERY', `column "${parts.join('.')}" in EXCLUDE list not found in FROM clause`);
    if (out.has(column.name)) fail('CANOPY_ERR_BAD_QUERY', `duplicate entry "${name}" in EXCLUDE list`);
    out.add(column.name);
  }
  return out;
}

/**
 * A star's REPLACE expressions and RENAME names (src/root/sql/surface.ts), keyed by the
 * table's column names. A RENAME of a name the table does not have is ignored, as DuckDB does.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY, as DuckDB refuses them: a REPLACE name not in the
 *   table, a column named twice, or in two of EXCLUDE, REPLACE and RENAME; CANOPY_ERR_UNKNOWN_TABLE for a qualifier
 *   that is not the table
 */
function starLists(replace: unknown, rename: unknown, scope: Scope, exclude: ReadonlySet<string>): { replace: Map<string, Typed<KeyExpr>>; rename: Map<string, string> } {
  const replaced = new Map<string, Typed<KeyExpr>>();
  for (const r of Array.isArray(replace) ? (replace as { name: string; expr: unknown }[]) : []) {
    const column = findColumn(scope, r.name);
    if (column === undefined) fail('CANOPY_ERR_BAD_QUERY', `Column "${r.name}" in REPLACE list not found in FROM clause`);
    if (replaced.has(column.name)) fail('CANOPY_ERR_BAD_QUERY', `duplicate entry "${r.name}" in REPLACE list`);
    if (exclude.has(column.name)) fail('CANOPY_ERR_BAD_QUERY', `Column "${r.name}" cannot occur in both EXCLUDE and REPLACE list`);
    if (containsAggregate(r.expr)) fail('CANOPY_ERR_UNSUPPORTED', 'an aggregate in * REPLACE is not supported; list the columns');
    replaced.set(column.name, lowerKey(r.expr, scope, 'SELECT'));
  }
  const renamed = new Map<string, string>();
  for (const [parts, to] of Array.isArray(rename) ? (rename as [string[], string][]) : []) {
    if (parts.length > 1) checkQualifier(scope, parts.slice(0, -1).join('.'));
    const column = findColumn(scope, parts[parts.length - 1]!);
    if (column === undefined) continue;
    if (renamed.has(column.name)) fail('CANOPY_ERR_BAD_QUERY', `duplicate entry "${parts.join('.')}" in RENAME list`);
    if (replaced.has(column.name)) fail('CANOPY_ERR_BAD_QUERY', `Column "${parts.join('.')}" cannot occur in both REPLACE and RENAME list`);
    if (exclude.has(column.name)) fail('CANOPY_ERR_BAD_QUERY', `Column "${parts.join('.')}" cannot occur in both EXCLUDE and RENAME list`);
    renamed.set(column.name, to);
  }
  return { replace: replaced, rename: renamed };
}

/** True when `n` contains an aggregate call, or grouping() (computed after aggregation too), anywhere. */
export function containsAggregate(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(containsAggregate);
  if (!isNode(n)) return false;
  return isAggregateCall(n) || isGroupingCall(n) || Object.values(n).some(containsAggregate);
}

export function isAggregateQuery(select: Select): boolean {
  if (isNode(select.distinct) && select.distinct.type != null) return true;
  const orderExprs = Array.isArray(select.orderby) ? select.orderby.map((o) => (isNode(o) ? o.expr : null)) : [];
  return select.groupby != null || select.having != null || containsAggregate(select.columns) || containsAggregate(orderExprs);
}

/**
 * A 0-based position from a 1-based ordinal literal (`GROUP BY 1`, `ORDER BY 2`), or null
 * when `n` is not a number.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when the number is not a position in the SELECT list
 */
export function ordinal(n: unknown, count: number, clause: string): number | null {
  const literal = readLiteral(n);
  if (literal?.kind !== 'number') return null;
  const position = integerValue(literal.text);
  if (position === null || position < 1n || position > BigInt(count)) {
    fail('CANOPY_ERR_BAD_QUERY', `${clause} position ${literal.text} is not in the SELECT list (1..${count})`);
  }
  return Number(position) - 1;
}

/** An unqualified identifier (a candidate alias), or null. */
export function bareName(n: unknown): string | null {
  const ref = columnRef(n);
  return ref !== null && ref.qualifier === null && ref.name !== '*' ? ref.name : null;
}

/** True for NULLS FIRST; NULLS LAST (and the default, DuckDB's, in both directions) is false. */
export function nullsFirst(item: Node): boolean {
  return upper(item.nulls) === 'NULLS FIRST';
}

export function orderItems(select: Select): Node[] {
  return Array.isArray(select.orderby) ? select.orderby.filter(isNode) : [];
}

/**
 * The LIMIT as a row count (null without one, or with LIMIT ALL) and the OFFSET (0 without).
 * A LIMIT above `maxLimit` (BI tools send `LIMIT 1048575` for a download) is `maxLimit + 1`:
 * the answer is then whole when it has at most `maxLimit` rows, and the root refuses it when
 * it has more.
 * `LIMIT p%` (DuckDB's; src/root/sql/surface.ts gives it as a `percent` node) is `percent`:
 * p from 0 to 100 (a DOUBLE, as DuckDB reads it), the limit then null; `LIMIT NULL%` is no limit.
 * @throws CanopyError CANOPY_ERR_LIMIT when either is not a non-negative integer, the LIMIT
 *   is beyond int64 (as DuckDB and PostgreSQL refuse it), the OFFSET is above maxLimit, or a
 *   percentage is outside 0 to 100
 */
export function readLimit(limit: unknown, limits: QueryLimits, trailingLimit?: unknown): { limit: number | null; offset: number; percent?: number } {
  const values = isNode(limit) && Array.isArray(limit.value) ? limit.value : [];
  const sep = isNode(limit) ? limit.seperator : undefined;
  const trailing = isNode(trailingLimit) && Array.isArray(trailingLimit.value) ? trailingLimit.value : [];
  // node-sql-parser's shapes: `LIMIT a, b` is MySQL's OFFSET a LIMIT b; `LIMIT a OFFSET b` is
  // [a, b] with separator 'offset'; `OFFSET b` alone is [b] with separator 'offset', and a
  // `LIMIT a` after it (PostgreSQL allows either order) comes in the separate `_limit` field.
  const [limitNode, offsetNode] =
    sep === ',' ? [values[1], values[0]] : sep === 'offset' && values.length === 1 ? [trailing[0], values[0]] : [values[0], values[1]];
  const count = (value: unknown, what: string): number | null => {
    if (value === undefined || (isNode(value) && value.type === 'origin' && upper(value.value) === 'ALL')) return null;
    const literal = readLiteral(value);
    // A decimal (LIMIT 1.5) is rounded half away from zero, as DuckDB casts its DECIMAL to BIGINT;
    // an exponent is taken when integral (1e1; DuckDB rounds a DOUBLE half to even, 25e-1 is 2: refused).
    const rows = literal?.kind === 'number' ? integerValue(literal.text) ?? decimalRoundedValue(literal.text) ?? integralValue(literal.text) : null;
    const max = what === 'OFFSET' ? BigInt(limits.maxLimit) : INT64_MAX;
    if (rows === null || rows < 0n || rows > max) {
      const given = literal === null ? 'an expression' : literalText(literal);
      const range = what === 'OFFSET' ? `0 to ${limits.maxLimit}` : `0 to ${INT64_MAX} (an answer holds at most ${limits.maxLimit} rows: a larger LIMIT answers when the rows fit)`;
      fail('CANOPY_ERR_LIMIT', `${what} must be an integer from ${range}; got ${given}`);
    }
    return rows > BigInt(limits.maxLimit) ? limits.maxLimit + 1 : Number(rows);
  };
  if (isNode(limitNode) && limitNode.type === 'percent') {
    const offset = count(offsetNode, 'OFFSET') ?? 0;
    const text = String(limitNode.value);
    if (/^null$/i.test(text)) return { limit: null, offset };
    const percent = Number(text);
    if (!(percent >= 0 && percent <= 100)) fail('CANOPY_ERR_LIMIT', `LIMIT ${text}%: a limit percent must be from 0% to 100%`);
    return { limit: null, offset, percent };
  }
  return { limit: count(limitNode, 'LIMIT'), offset: count(offsetNode, 'OFFSET') ?? 0 };
}
