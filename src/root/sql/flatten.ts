/**
 * View merging: a derived table (`FROM (SELECT ...) AS v`) or a common table expression
 * (`WITH v AS (SELECT ...) SELECT ... FROM v`) that only selects and filters rows of one table
 * is merged into the query that reads it, as every SQL optimizer does (PostgreSQL's
 * `pull_up_subqueries`, DuckDB's filter pull-up): each reference to one of its output columns
 * becomes the expression that defines it, and its WHERE is AND-ed to the outer one. This is
 * what BI tools send: Superset wraps a virtual dataset as `FROM (<its SQL>) AS virtual_table`,
 * Metabase a nested question as `FROM (<the question>) AS source`.
 *
 * A subquery that groups or aggregates (GROUP BY, aggregates, HAVING) is merged when the
 * query reading it only projects, filters, orders and limits its rows (what Metabase sends
 * for a question over a summarised one): the outer WHERE joins the subquery's HAVING, the
 * outer SELECT list and ORDER BY read the subquery's expressions, the outer LIMIT applies
 * ({@link mergeAggregate}); the answer is the same query's, labelled as any.
 * Anything else that changes the rows (DISTINCT, LIMIT/OFFSET under a plain subquery, window
 * functions, set operations; an outer query that groups over a grouped one) is refused;
 * a plain subquery's ORDER BY alone is dropped (a derived table has no order in SQL, nor in DuckDB).
 */
import { unknownNameMessage } from '../../merge/errors.ts';
import type { TableSchema } from '../../merge/types.ts';
import { type Node, type Select, checkStatement, isNode, str, visitNodes } from './ast.ts';
import { ONE_TABLE, fail } from './errors.ts';
import { guardUnreadFields } from './ast-guard.ts';
import { isAggregateCall } from './expressions.ts';
import { GROUP_BY_ALL } from './parse.ts';
import { GROUP_BY_EMPTY } from './rewrite.ts';
import { resolveLateralAliases, resolveWhereAliases } from './lateral.ts';
import { findByName, resolveFrom } from './scope.ts';

type Mutable = Record<string, unknown>;

/** One output column of a merged subquery: its name and the expression (parser AST) behind it. */
interface Output {
  readonly name: string | null;
  readonly expr: unknown;
}

/** A subquery ready to merge: its (base-table) FROM, WHERE and output columns. */
interface Source {
  readonly from: readonly unknown[];
  readonly where: unknown;
  readonly outputs: readonly Output[];
  /** The name the outer query may qualify these columns with (the derived table's alias). */
  readonly alias: string;
}

const WHY = `; canopy merges subqueries that only select and filter the rows of one table (${ONE_TABLE})`;

function emptyLimit(limit: unknown): boolean {
  return limit == null || (isNode(limit) && Array.isArray(limit.value) && limit.value.length === 0);
}

function refName(n: Node): { qualifier: string | null; name: string } | null {
  if (n.type !== 'column_ref') return null;
  const table = isNode(n.table) ? str(n.table.value) : str(n.table);
  const qualifier = [str(n.db), str(n.schema), table].filter((p) => p !== null).join('.');
  const name = n.column === '*' ? '*' : isNode(n.column) && isNode(n.column.expr) ? str(n.column.expr.value) : str(n.column);
  return name === null ? null : { qualifier: qualifier === '' ? null : qualifier, name };
}

function columnRefNode(qualifier: string | null, name: string): Node {
  return { type: 'column_ref', table: qualifier, column: { expr: { type: 'default', value: name } } };
}

function replaceNode(target: Mutable, by: unknown): void {
  for (const k of Object.keys(target)) delete target[k];
  Object.assign(target, structuredClone(by));
}

/** Refuses a field of a parsed node the merge does not read (it would vanish with the node). */
function refuseUnread(n: Node, read: readonly string[]): void {
  for (const [k, v] of Object.entries(n)) {
    if (!read.includes(k) && v != null && v !== false) fail('CANOPY_ERR_UNSUPPORTED', `${k.toUpperCase()} on a subquery is not supported`);
  }
}

/** Whether `tree` calls an aggregate (or, with `windows`, a window function). */
function callsAggregate(tree: unknown, windows: boolean): boolean {
  let found = false;
  visitNodes(tree, (n) => {
    if ((windows && n.over != null) || isAggregateCall(n)) found = true;
    return !found;
  });
  return found;
}

/**
 * True when `tree` calls an aggregate outside window functions, or inside a window call's
 * argument or OVER clause (`sum(count(*)) OVER ()` aggregates; `sum(n) OVER ()` over a
 * subquery's column does not).
 */
function aggregatesAgain(tree: unknown): boolean {
  let found = false;
  visitNodes(tree, (n) => {
    if (found) return false;
    if (n.over != null) {
      if (callsAggregate(isNode(n.args) ? n.args.expr : null, false) || callsAggregate(n.over, false)) found = true;
      return false;
    }
    if (isAggregateCall(n)) found = true;
    return !found;
  });
  return found;
}

/**
 * How a SELECT merges into its reader: 'plain' (it selects and filters rows), 'aggregate' (it
 * groups or aggregates: {@link mergeAggregate}), or why it cannot.
 */
function mergeKind(s: Node): 'plain' | 'aggregate' | { readonly why: string } {
  if (s.type !== 'select') return { why: 'only a SELECT can be read as a table' };
  if (s._next != null || s.set_op != null) return { why: 'a UNION in FROM is not supported' };
  if (isNode(s.distinct) ? s.distinct.type != null : s.distinct != null) return { why: 'a subquery with DISTINCT is not supported' };
  if (s.window != null) return { why: 'a subquery with WINDOW is not supported' };
  let window = false;
  visitNodes(s.columns, (n) => {
    if (n.over != null) window = true;
    return !window;
  });
  if (window) return { why: 'a subquery with window functions is not supported' };
  if (s.groupby != null || s.having != null || callsAggregate(s.columns, false)) return 'aggregate';
  if (!emptyLimit(s.limit) || s._limit != null) return { why: 'a subquery with LIMIT or OFFSET is not supported' };
  return 'plain';
}

/**
 * Merges every derived table and common table expression of a parsed statement into it, in
 * place (the statement comes fresh from the parser). Nested ones merge inside out; a CTE may
 * read the CTEs before it.
 * @param statement the parser's statement (or its one-element array)
 * @param tables the catalog, to expand `*` of a subquery into the table's columns
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for a subquery that is not a plain filter/projection
 *   of one table, CANOPY_ERR_UNKNOWN_COLUMN for a name the subquery does not give (the error lists
 *   the names it gives), CANOPY_ERR_BAD_QUERY for an ambiguous name
 */
/**
 * `* EXCLUDE (...)` in or over a subquery (the star's `exclude`, src/root/sql/front.ts) is
 * not expanded by the flattening: refused rather than answered with every column.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED when the SELECT item `c` is such a star
 */
function refuseExclude(c: unknown): void {
  if (isNode(c) && isNode(c.expr) && c.expr.exclude != null) fail('CANOPY_ERR_UNSUPPORTED', '* EXCLUDE in or over a subquery is not supported; list the columns');
  if (isNode(c) && isNode(c.expr) && (c.expr.replace != null || c.expr.rename != null)) fail('CANOPY_ERR_UNSUPPORTED', '* REPLACE and * RENAME in or over a subquery are not supported; list the columns');
}

export function mergeSubqueries(statement: unknown, tables: ReadonlyMap<string, TableSchema>, sql: string): void {
  const s = Array.isArray(statement) ? (statement.length === 1 ? statement[0] : null) : statement;
  if (!isNode(s) || s.type !== 'select') return;
  if (s.with == null && !(Array.isArray(s.from) && s.from.some((f) => isNode(f) && isNode(f.expr) && isNode(f.expr.ast)))) return;
  mergeInto(s as Mutable, new Map(), tables, sql);
}

/** A CTE: its (merged) body and the column names of its `WITH x(a, b)` list, if any. */
interface Cte {
  readonly body: Node;
  readonly columns: readonly (string | null)[] | null;
}

function mergeInto(s: Mutable, ctes: ReadonlyMap<string, Cte>, tables: ReadonlyMap<string, TableSchema>, sql: string): void {
  // Every field of this SELECT must be one the planner reads before its nodes move (a merged
  // node's unread field would vanish with it): the same guard as after planning.
  if (s.type === 'select') guardUnreadFields(s, sql, true);
  let visible = ctes;
  if (Array.isArray(s.with)) {
    const own = new Map(ctes);
    for (const w of s.with) {
      if (!isNode(w) || !isNode(w.stmt) || !isNode(w.name)) fail('CANOPY_ERR_UNSUPPORTED', `this WITH clause is not supported${WHY}`);
      if (w.recursive === true) fail('CANOPY_ERR_UNSUPPORTED', 'WITH RECURSIVE is not supported');
      refuseUnread(w, ['name', 'stmt', 'columns', 'recursive', 'loc']);
      if (isNode(w.stmt.ast)) refuseUnread(w.stmt, ['tableList', 'columnList', 'ast', 'parentheses', 'loc']);
      refuseUnread(w.name, ['type', 'value', 'loc']);
      for (const c of Array.isArray(w.columns) ? w.columns : []) {
        if (!isNode(c)) continue;
        refuseUnread(c, ['type', 'table', 'column', 'collate', 'loc']);
        if (isNode(c.column)) refuseUnread(c.column, ['expr', 'loc']);
        if (isNode(c.column) && isNode(c.column.expr)) refuseUnread(c.column.expr, ['type', 'value', 'loc']);
      }
      const name = str(w.name.value) ?? '';
      const body = (isNode(w.stmt.ast) ? w.stmt.ast : w.stmt) as Mutable;
      // An INSERT, UPDATE or DELETE would go unrun (and unnoticed when the query does not read it).
      if (body.type !== 'select') fail('CANOPY_ERR_UNSUPPORTED', `WITH ${name} AS (${String(body.type).toUpperCase()} ...) is not supported: a CTE must be a SELECT (canopy changes no data)`);
      mergeInto(body, own, tables, sql);
      const renamed = Array.isArray(w.columns) ? w.columns.map((c) => (isNode(c) ? refName(c)?.name ?? null : null)) : null;
      own.set(name.toLowerCase(), { body, columns: renamed });
    }
    visible = own;
    s.with = null;
  }
  const from = Array.isArray(s.from) ? s.from : [];
  if (from.length !== 1 || !isNode(from[0]) || from[0].join != null) {
    // JOINs, several tables, no FROM: refused later, with their own message; nested ones merged for it.
    for (const f of from) if (isNode(f) && isNode(f.expr) && isNode(f.expr.ast)) mergeInto(f.expr.ast as Mutable, visible, tables, sql);
    return;
  }
  const item = from[0];
  const { alias, columns: aliasColumns } = aliasAndColumns(str(item.as));
  let inner: Node | null = null;
  let innerColumns: readonly (string | null)[] | null = null;
  if (isNode(item.expr) && isNode(item.expr.ast)) {
    refuseUnread(item, ['prefix', 'expr', 'as', 'loc']);
    refuseUnread(item.expr, ['tableList', 'columnList', 'ast', 'parentheses', 'loc']);
    inner = item.expr.ast;
    innerColumns = aliasColumns;
    mergeInto(inner as Mutable, visible, tables, sql);
  } else if (str(item.table) !== null && item.db == null && item.schema == null) {
    const cte = visible.get(str(item.table)!.toLowerCase());
    if (cte !== undefined) {
      inner = cte.body;
      // `FROM cte AS t(x, y)` renames over the WITH list, position by position.
      const own = cte.columns ?? [];
      innerColumns = aliasColumns === null ? cte.columns : Array.from({ length: Math.max(own.length, aliasColumns.length) }, (_, i) => aliasColumns[i] ?? own[i] ?? null);
    }
  }
  if (inner === null) return;
  // Only a merged source reads the list; refused (scope.ts) on a table of the catalog.
  if (aliasColumns !== null) (item as Mutable).as = alias;
  const kind = mergeKind(inner);
  if (typeof kind === 'object') fail('CANOPY_ERR_UNSUPPORTED', kind.why + WHY);
  // Its own fields are read as a statement's (an unknown one refuses the query, as at the top).
  checkStatement(inner);
  if (kind === 'aggregate') {
    // A CTE's body may be read twice: the merge rewrites a copy.
    const body = structuredClone(withLateralAliases(inner, tables)) as Mutable;
    const columns = baseColumns(body, tables);
    resolveOwnReferences(body, columns);
    mergeAggregate(s, body, sourceOf(body, alias ?? str(item.table) ?? '', innerColumns, tables), columns);
    return;
  }
  const source = sourceOf(withLateralAliases(inner, tables), alias ?? str(item.table) ?? '', innerColumns, tables);
  mergeSource(s, source);
}

/**
 * A subquery over a catalog table with the lateral aliases of its SELECT list written out
 * (src/root/sql/lateral.ts: `SELECT delay + 1 AS a, a * 2 AS b FROM flights`), so the outer
 * query reads `b` as the expression it stands for, and the aliases its WHERE reads
 * (`SELECT j AS k FROM t WHERE k > 0`) written out too, so that once merged the outer query
 * does not read them as its own; a copy (a CTE's body may be read twice).
 * Other subqueries, and one whose FROM the scope does not read, are returned as they are.
 */
function withLateralAliases(inner: Node, tables: ReadonlyMap<string, TableSchema>): Node {
  const items = Array.isArray(inner.columns) ? inner.columns : [];
  if (!items.some((c) => isNode(c) && str(c.as) !== null) || baseColumns(inner, tables) === null) return inner;
  let scope;
  try {
    scope = resolveFrom(inner as Select, tables);
  } catch {
    return inner; // a FROM the merge reads its own way (refused or read there)
  }
  const body = structuredClone(inner);
  resolveLateralAliases(body as Select, scope);
  resolveWhereAliases(body as Select, scope);
  return body;
}

/** The columns of the catalog table a SELECT reads (lower-cased names), or null when it is not one. */
function baseColumns(inner: Node, tables: ReadonlyMap<string, TableSchema>): ReadonlySet<string> | null {
  const from = Array.isArray(inner.from) ? inner.from : [];
  const base = from.length === 1 && isNode(from[0]) ? from[0] : null;
  const baseName = base === null ? null : [base.db, base.schema, base.table].map(str).filter((p) => p !== null).join('.');
  const key = baseName === null || baseName === '' ? undefined : findByName(tables.keys(), baseName, (k) => k);
  const table = key === undefined ? undefined : tables.get(key);
  return table === undefined ? null : new Set(table.columns.map((c) => c.name.toLowerCase()));
}

const MERGE_AGG = 'a query over a subquery that groups or aggregates';

/**
 * Rewrites a grouping or aggregating SELECT's own references to its SELECT list (ordinals in
 * GROUP BY and ORDER BY, `GROUP BY ALL`, `ORDER BY ALL`, names of its output columns in
 * GROUP BY, HAVING and ORDER BY) into the expressions they stand for, in place: once its
 * SELECT list is replaced by the reader's, they would read other columns.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for a `*`, an ordinal out of range, or an output
 *   name that is also a column of the table (which of the two SQL reads differs by clause)
 */
function resolveOwnReferences(inner: Mutable, tableColumns: ReadonlySet<string> | null): void {
  const items = (Array.isArray(inner.columns) ? inner.columns : []).filter(isNode);
  if (tableColumns === null || items.some((c) => isNode(c.expr) && refName(c.expr)?.name === '*')) fail('CANOPY_ERR_UNSUPPORTED', `${MERGE_AGG} is merged only when the subquery lists its columns over a table of the catalog (no *)`);
  const byAlias = new Map<string, unknown>();
  for (const c of items) {
    const name = str(c.as);
    if (name === null) continue;
    const plain = isNode(c.expr) ? refName(c.expr) : null;
    const same = plain !== null && plain.name.toLowerCase() === name.toLowerCase();
    if (tableColumns.has(name.toLowerCase()) && !same) fail('CANOPY_ERR_UNSUPPORTED', `${MERGE_AGG} is not merged when the subquery names an output column "${name}" like a column of the table; rename it`);
    if (!same) byAlias.set(name.toLowerCase(), c.expr);
  }
  const ordinal = (n: Node, clause: string): unknown => {
    const k = Number(n.value);
    if (!Number.isInteger(k) || k < 1 || k > items.length) fail('CANOPY_ERR_BAD_QUERY', `${clause} ${String(n.value)} is not a position in the subquery's SELECT list (1 to ${items.length})`);
    return items[k - 1]!.expr;
  };
  const byName = (tree: unknown): void => {
    visitNodes(tree, (n) => {
      const ref = refName(n);
      if (ref === null || ref.qualifier !== null) return;
      const e = byAlias.get(ref.name.toLowerCase());
      if (e !== undefined) replaceNode(n as Mutable, e);
      return false;
    });
  };
  const keys = isNode(inner.groupby) && Array.isArray(inner.groupby.columns) ? inner.groupby.columns : null;
  if (keys !== null) {
    const out: unknown[] = [];
    for (const k of keys) {
      if (isNode(k) && refName(k)?.name === GROUP_BY_ALL) {
        for (const c of items) if (!callsAggregate(c.expr, false)) out.push(structuredClone(c.expr));
      } else if (isNode(k) && k.type === 'number') out.push(structuredClone(ordinal(k, 'GROUP BY')));
      else {
        byName(k);
        out.push(k);
      }
    }
    (inner.groupby as Mutable).columns = out;
  }
  if (inner.having != null) byName(inner.having);
  if (Array.isArray(inner.orderby)) {
    const out: unknown[] = [];
    for (const o of inner.orderby) {
      if (!isNode(o)) continue;
      const e = o.expr;
      if (isNode(e) && refName(e)?.name === GROUP_BY_ALL) for (const c of items) out.push({ ...o, expr: structuredClone(c.expr) });
      else if (isNode(e) && e.type === 'number') out.push({ ...o, expr: structuredClone(ordinal(e, 'ORDER BY')) });
      else {
        byName(o);
        out.push(o);
      }
    }
    inner.orderby = out;
  }
}

/**
 * Merges a grouping or aggregating subquery (`inner`, its own references resolved by
 * {@link resolveOwnReferences}) into a reader `s` that only projects, filters, orders and
 * limits its rows: `s` becomes the subquery's own query (FROM, WHERE, GROUP BY) with the
 * reader's SELECT list and ORDER BY over the subquery's expressions, the reader's WHERE
 * AND-ed to the subquery's HAVING, the reader's ORDER BY in place of the subquery's (kept
 * when the reader has none), and the reader's LIMIT.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED when the reader groups, aggregates, uses DISTINCT,
 *   or window functions over a subquery that limits; when both limit; when the subquery limits and the reader filters or
 *   orders; when a reader's alias is named like a column of the table
 */
function mergeAggregate(s: Mutable, inner: Mutable, source: Source, tableColumns: ReadonlySet<string> | null): void {
  const why = (what: string): never => fail('CANOPY_ERR_UNSUPPORTED', `${MERGE_AGG} is merged only when that query ${what}`);
  if (s.groupby != null || s.having != null || aggregatesAgain(s.columns) || aggregatesAgain(s.orderby)) why('does not group or aggregate again');
  if (isNode(s.distinct) ? s.distinct.type != null : s.distinct != null) why('has no DISTINCT');
  const outerLimits = !emptyLimit(s.limit) || s._limit != null;
  const innerLimits = !emptyLimit(inner.limit) || inner._limit != null;
  // A window over the subquery's groups (`sum(n) OVER ()`) is one over the merged query's
  // groups, computed after its HAVING (the reader's WHERE), unless the subquery limits them first.
  if (s.window != null || ((callsAggregate(s.columns, true) || callsAggregate(s.orderby, true)) && innerLimits)) why('has no window functions (the subquery has a LIMIT or OFFSET)');
  if (innerLimits && outerLimits) why('does not limit again (the subquery has a LIMIT or OFFSET)');
  if (innerLimits && (s.where != null || s.orderby != null)) why('neither filters nor orders (the subquery has a LIMIT or OFFSET)');
  // A reader's alias named like a table column would be read for that column in the merged HAVING or GROUP BY.
  for (const c of Array.isArray(s.columns) ? s.columns : []) {
    const name = isNode(c) ? str(c.as) : null;
    const plain = isNode(c) && isNode(c.expr) ? refName(c.expr) : null;
    if (name !== null && tableColumns?.has(name.toLowerCase()) === true && !(plain !== null && plain.name.toLowerCase() === name.toLowerCase())) {
      fail('CANOPY_ERR_UNSUPPORTED', `${MERGE_AGG} is not merged when that query names a column "${name}" like a column of the table; rename it`);
    }
  }
  substituteOuter(s, source);
  const outerWhere = s.where ?? null;
  const having = inner.having ?? null;
  s.having = having === null ? outerWhere : outerWhere === null ? having : { type: 'binary_expr', operator: 'AND', left: { ...(having as Node), parentheses: true }, right: { ...(outerWhere as Node), parentheses: true } };
  s.where = inner.where ?? null;
  // A subquery that aggregates without GROUP BY is one row whatever the reader selects: GROUP BY ().
  s.groupby = inner.groupby ?? { columns: [] };
  s.from = inner.from;
  if (s.orderby == null) s.orderby = inner.orderby ?? null;
  if (innerLimits) {
    s.limit = inner.limit;
    s._limit = inner._limit;
  }
}

/**
 * A FROM item's alias and its column list: the grammar gives `AS t(b, a)` as the string
 * `t(b, a)` (quotes taken off). Columns null without a list.
 */
function aliasAndColumns(as: string | null): { alias: string | null; columns: string[] | null } {
  const m = as === null ? null : /^([^(]*?)\s*\((.*)\)\s*$/s.exec(as);
  if (m === null) return { alias: as, columns: null };
  return { alias: m[1]!, columns: m[2]!.split(',').map((c) => c.trim()) };
}

/** The output columns of a mergeable SELECT (`*` expanded from the catalog when the table is known). */
function sourceOf(inner: Node, alias: string, renamed: readonly (string | null)[] | null, tables: ReadonlyMap<string, TableSchema>): Source {
  const from = Array.isArray(inner.from) ? inner.from : [];
  const base = from.length === 1 && isNode(from[0]) ? from[0] : null;
  const baseName = base === null ? null : [base.db, base.schema, base.table].map(str).filter((p) => p !== null).join('.');
  const key = baseName === null ? undefined : findByName(tables.keys(), baseName, (k) => k);
  const table = key === undefined ? undefined : tables.get(key);
  const baseQualifier = base === null ? null : str(base.as) ?? str(base.table);
  const outputs: Output[] = [];
  for (const c of Array.isArray(inner.columns) ? inner.columns : []) {
    if (!isNode(c)) continue;
    const ref = isNode(c.expr) ? refName(c.expr) : null;
    if (ref?.name === '*') {
      refuseExclude(c);
      if (table === undefined) fail('CANOPY_ERR_UNSUPPORTED', `SELECT * in a subquery needs a table of the catalog${WHY}`);
      if (ref.qualifier !== null && baseQualifier !== null && findByName([baseQualifier], ref.qualifier, (q) => q) === undefined) {
        fail('CANOPY_ERR_UNKNOWN_TABLE', unknownNameMessage('table', ref.qualifier, [baseQualifier]));
      }
      for (const col of table.columns) outputs.push({ name: col.name, expr: columnRefNode(ref.qualifier, col.name) });
      continue;
    }
    outputs.push({ name: str(c.as) ?? ref?.name ?? null, expr: c.expr });
  }
  if (renamed !== null) {
    if (renamed.length > outputs.length) fail('CANOPY_ERR_BAD_QUERY', `the column list of ${alias === '' ? 'the subquery' : alias} names ${renamed.length} columns; its query gives ${outputs.length}`);
    renamed.forEach((name, i) => (outputs[i] = { name, expr: outputs[i]!.expr }));
  }
  return { from, where: inner.where ?? null, outputs, alias };
}

/** Rewrites the outer statement `s` to read `source`'s table directly. */
function mergeSource(s: Mutable, source: Source): void {
  substituteOuter(s, source);
  const outerWhere = s.where ?? null;
  const innerWhere = source.where === null ? null : structuredClone(source.where);
  s.where =
    innerWhere === null ? outerWhere : outerWhere === null ? innerWhere : { type: 'binary_expr', operator: 'AND', left: { ...(innerWhere as Node), parentheses: true }, right: { ...(outerWhere as Node), parentheses: true } };
  s.from = structuredClone(source.from);
}

/**
 * What an unknown-column message adds when some of `source`'s output columns have no name
 * canopy reads (an expression without AS: DuckDB names it from its text, `count_star()` or
 * `(j + 1)`): which positions, and to name them with AS. Empty when every column has a name.
 */
function unnamedNote(source: Source): string {
  const unnamed = source.outputs.flatMap((o, i) => (o.name === null ? [String(i + 1)] : []));
  if (unnamed.length === 0) return '';
  const which = unnamed.length === 1 ? `column ${unnamed[0]}` : `columns ${unnamed.join(', ')}`;
  const is = unnamed.length === 1 ? 'is an expression' : 'are expressions';
  return `${source.outputs.length === unnamed.length ? '(none named)' : ''}; the subquery's ${which} ${is} without AS, which canopy does not name as DuckDB does (count_star(), (j + 1)): name ${unnamed.length === 1 ? 'it' : 'them'} with AS`;
}

/**
 * Rewrites, in place, every reference of the outer statement `s` (SELECT list, WHERE, GROUP
 * BY, HAVING, ORDER BY) to one of `source`'s output columns into the expression behind it.
 */
function substituteOuter(s: Mutable, source: Source): void {
  const names = source.outputs.flatMap((o) => (o.name === null ? [] : [o.name]));
  const outerAliases = new Set((Array.isArray(s.columns) ? s.columns : []).flatMap((c) => (isNode(c) && str(c.as) !== null ? [str(c.as)!.toLowerCase()] : [])));
  const lookup = (name: string): Output => {
    const exact = source.outputs.filter((o) => o.name === name);
    const found = exact.length > 0 ? exact : source.outputs.filter((o) => o.name !== null && o.name.toLowerCase() === name.toLowerCase());
    if (found.length > 1) fail('CANOPY_ERR_BAD_QUERY', `column reference "${name}" is ambiguous: the subquery${source.alias === '' ? '' : ` ${source.alias}`} gives ${found.length} columns of that name`);
    if (found.length === 0) fail('CANOPY_ERR_UNKNOWN_COLUMN', unknownNameMessage('column', name, names) + unnamedNote(source));
    return found[0]!;
  };
  const checkQualifier = (q: string | null): void => {
    if (q !== null && findByName([source.alias], q, (x) => x) === undefined) fail('CANOPY_ERR_UNKNOWN_TABLE', unknownNameMessage('table', q, [source.alias]));
  };
  // References to an outer SELECT alias are left as they are where SQL lets them be read.
  const substitute = (tree: unknown, aliasesVisible: boolean): void => {
    visitNodes(tree, (n) => {
      const ref = refName(n);
      if (ref === null) return;
      if (ref.name === '*' || ref.name === GROUP_BY_ALL || ref.name === GROUP_BY_EMPTY) return false;
      checkQualifier(ref.qualifier);
      const known = source.outputs.some((o) => o.name !== null && o.name.toLowerCase() === ref.name.toLowerCase());
      if (!known && ref.qualifier === null && aliasesVisible && outerAliases.has(ref.name.toLowerCase())) return false;
      replaceNode(n as Mutable, lookup(ref.name).expr);
      return false;
    });
  };
  // The SELECT list: a star becomes every output column (named as the subquery names it).
  const columns: unknown[] = [];
  for (const c of Array.isArray(s.columns) ? s.columns : []) {
    const ref = isNode(c) && isNode(c.expr) ? refName(c.expr) : null;
    if (ref?.name === '*') {
      checkQualifier(ref.qualifier);
      refuseExclude(c);
      for (const o of source.outputs) columns.push({ type: 'expr', expr: structuredClone(o.expr), as: o.name });
      continue;
    }
    if (isNode(c)) {
      const copy = { ...c } as Mutable;
      // An unaliased plain reference keeps the subquery's name for its column.
      const plain = isNode(c.expr) ? refName(c.expr) : null;
      if (str(c.as) === null && plain !== null) copy.as = lookup(plain.name).name;
      substitute(copy, false);
      columns.push(copy);
    } else columns.push(c);
  }
  s.columns = columns;
  if (s.where != null) substitute(s.where, false);
  if (s.groupby != null) substitute(s.groupby, false);
  if (s.having != null) substitute(s.having, true);
  // ORDER BY: a bare name of the outer SELECT list is that output column, even where the
  // subquery has a column of the name too; inside an expression a name is the subquery's
  // column first (as in PostgreSQL and DuckDB).
  for (const o of Array.isArray(s.orderby) ? s.orderby : []) {
    if (!isNode(o)) continue;
    const bare = isNode(o.expr) ? refName(o.expr) : null;
    if (bare !== null && bare.qualifier === null && outerAliases.has(bare.name.toLowerCase())) continue;
    substitute(o, true);
  }
}
