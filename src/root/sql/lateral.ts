/**
 * Lateral column aliases, as DuckDB's binder reads them: in the SELECT list, a bare name that
 * is not a column of the table but the alias of an earlier item stands for that item's
 * expression (`SELECT sum(delay) AS s, count(*) AS n, s / n AS r FROM flights GROUP BY
 * origin`; `SELECT upper(origin) AS o, length(o) AS l FROM flights`). Rewritten in the parsed
 * statement before the SELECT list is classified, so the rest of the planner sees the
 * expressions written out (`r` is `(sum(delay)) / (count(*))`, an aggregate expression).
 *
 * DuckDB's rules (checked against it in test/lateral-alias-duckdb.test.ts):
 * - a column of the table wins over an alias of the same name (`SELECT i AS j, j + 1` reads
 *   the column j); names compare case-insensitively;
 * - of several earlier items with the alias, the nearest one;
 * - only an earlier item: a name that is the alias of the item itself or of a later one is
 *   refused ("cannot be referenced before it is defined");
 * - not inside an aggregate's argument or FILTER (`SELECT j * 2 AS d, sum(d)`: "not found
 *   in FROM clause"), nor inside grouping() (whose arguments name GROUP BY keys), nor
 *   qualified (`t.a`).
 */
import { CanopyError } from '../../merge/index.ts';
import { type Select, isNode, str } from './ast.ts';
import { fail } from './errors.ts';
import { isAggregateCall } from './expressions.ts';
import { isGroupingCall } from './grouping-sets.ts';
import { type Scope, columnRef, findColumn, resolveColumn } from './scope.ts';

/**
 * Replaces, in each SELECT item of `select` (in place), every bare reference to the alias of
 * an earlier item that is not a column of `scope`'s table by a copy of that item's expression
 * (itself already rewritten), parenthesised.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a reference to the alias of a later item (or
 *   of the item itself); CANOPY_ERR_UNKNOWN_COLUMN for an alias read inside an aggregate,
 *   naming the table's columns and saying why
 */
export function resolveLateralAliases(select: Select, scope: Scope): void {
  const items = Array.isArray(select.columns) ? (select.columns as unknown[]) : [];
  const aliases = items.map((item) => (isNode(item) ? str(item.as) : null));
  if (aliases.every((a) => a === null)) return;
  const exprs: unknown[] = [];
  for (const [i, item] of items.entries()) {
    if (!isNode(item)) {
      exprs.push(undefined);
      continue;
    }
    /** The nearest earlier item of alias `name` (case-insensitive), or -1. */
    const earlier = (name: string): number => aliases.slice(0, i).findLastIndex((a) => a !== null && a.toLowerCase() === name.toLowerCase());
    const rewrite = (n: unknown, inAggregate: boolean): unknown => {
      if (Array.isArray(n)) return mapSame(n, (x) => rewrite(x, inAggregate));
      // grouping(k) names GROUP BY keys as written: DuckDB reads no alias there (a key's alias only where GROUP BY names it).
      if (isGroupingCall(n)) return n;
      if (!isNode(n) || n.ast != null || n.type === 'select') return n;
      if (n.type === 'column_ref') {
        const ref = columnRef(n);
        if (ref === null || ref.qualifier !== null || ref.name === '*' || findColumn(scope, ref.name) !== undefined) return n;
        const k = earlier(ref.name);
        if (k >= 0 && inAggregate) aliasInAggregate(scope, n, aliases[k]!);
        if (k >= 0) return { ...(structuredClone(exprs[k]) as object), parentheses: true };
        const later = aliases.findIndex((a, j) => j >= i && a !== null && a.toLowerCase() === ref.name.toLowerCase());
        if (later >= 0 && !inAggregate) {
          fail('CANOPY_ERR_BAD_QUERY', `column '${ref.name}' is the alias of this or a later SELECT item; an alias can be read only after the item that defines it (as in DuckDB): move that item first, or write its expression`);
        }
        return n;
      }
      // A window call (`sum(n) OVER (PARTITION BY p)`) is computed over the groups: its argument
      // and PARTITION BY read aliases as DuckDB does, only aggregates inside it do not.
      const aggregate = inAggregate || (isAggregateCall(n) && n.over == null);
      let changed = false;
      const out: Record<string, unknown> = {};
      for (const [key, v] of Object.entries(n)) {
        const w = key === 'loc' || typeof v !== 'object' || v === null ? v : rewrite(v, aggregate);
        if (w !== v) changed = true;
        out[key] = w;
      }
      return changed ? out : n;
    };
    const expr = rewrite(item.expr, false);
    if (expr !== item.expr) {
      items[i] = { ...item, expr };
      const read = aliases.slice(0, i).find((a) => a !== null && readsName(item.expr, a));
      if (typeof expr === 'object' && expr !== null && read != null) ALIAS_READERS.set(expr, read);
    }
    exprs.push(expr);
  }
}

/** SELECT items' expressions rewritten by {@link resolveLateralAliases}, with an alias each read. */
const ALIAS_READERS = new WeakMap<object, string>();

/**
 * The alias of an earlier SELECT item that the item expression `node` read (a lateral alias,
 * written out by {@link resolveLateralAliases}), or null. DuckDB refuses to group by such an
 * item ("aliases cannot be used as part of an expression in the GROUP BY").
 */
export function lateralAliasRead(node: unknown): string | null {
  return typeof node === 'object' && node !== null ? (ALIAS_READERS.get(node) ?? null) : null;
}

/** Whether a bare column reference in `n` names `name` (case-insensitively). */
function readsName(n: unknown, name: string): boolean {
  if (Array.isArray(n)) return n.some((x) => readsName(x, name));
  if (!isNode(n)) return false;
  if (n.type === 'column_ref') {
    const ref = columnRef(n);
    return ref !== null && ref.qualifier === null && ref.name.toLowerCase() === name.toLowerCase();
  }
  return Object.entries(n).some(([k, v]) => k !== 'loc' && typeof v === 'object' && v !== null && readsName(v, name));
}

/** `xs` mapped by `f`, or `xs` itself when no element changed. */
function mapSame(xs: readonly unknown[], f: (x: unknown) => unknown): unknown[] | readonly unknown[] {
  let changed = false;
  const out = xs.map((x) => {
    const y = f(x);
    if (y !== x) changed = true;
    return y;
  });
  return changed ? out : xs;
}

/**
 * Refuses an alias read inside an aggregate, as DuckDB does, with the unknown-column message
 * (naming the table's columns) and why the alias is not read there.
 * @throws CanopyError CANOPY_ERR_UNKNOWN_COLUMN
 */
function aliasInAggregate(scope: Scope, ref: unknown, alias: string): never {
  try {
    resolveColumn(scope, columnRef(ref)!);
  } catch (e) {
    if (e instanceof CanopyError) {
      throw new CanopyError(e.code, `${e.message}; '${alias}' is a SELECT alias, which is not read inside an aggregate (as in DuckDB): write its expression there`, { ...(e.position === undefined ? {} : { position: e.position }), cause: e });
    }
    throw e;
  }
  throw new Error('unreachable: an alias that is not a column resolved as one');
}

/**
 * SELECT aliases in WHERE, as DuckDB's binder reads them (`SELECT i % 2 AS k FROM t WHERE k <> 0`):
 * a bare name in WHERE that is not a column of `scope`'s table but the alias of a SELECT item
 * stands for that item's expression (already rewritten by {@link resolveLateralAliases}),
 * parenthesised; rewritten in place. A column wins over an alias of its name, names compare
 * case-insensitively, a qualified name (`t.k`) and a subquery are not read. An alias that
 * stands for an aggregate is then refused where WHERE refuses aggregates (as DuckDB refuses it).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for a name two items take as their alias (DuckDB
 *   reads the last; canopy refuses rather than guess)
 */
export function resolveWhereAliases(select: Select, scope: Scope): void {
  if (select.where == null) return;
  const items = Array.isArray(select.columns) ? (select.columns as unknown[]) : [];
  const byAlias = new Map<string, unknown[]>();
  for (const item of items) {
    const alias = isNode(item) ? str(item.as) : null;
    if (alias !== null && isNode(item)) byAlias.set(alias.toLowerCase(), [...(byAlias.get(alias.toLowerCase()) ?? []), item.expr]);
  }
  if (byAlias.size === 0) return;
  const rewrite = (n: unknown): unknown => {
    if (Array.isArray(n)) return mapSame(n, rewrite);
    if (!isNode(n) || n.ast != null || n.type === 'select') return n;
    if (n.type === 'column_ref') {
      const ref = columnRef(n);
      if (ref === null || ref.qualifier !== null || ref.name === '*' || findColumn(scope, ref.name) !== undefined) return n;
      const exprs = byAlias.get(ref.name.toLowerCase());
      if (exprs === undefined) return n;
      if (exprs.length > 1) fail('CANOPY_ERR_UNSUPPORTED', `'${ref.name}' in WHERE is the alias of ${exprs.length} SELECT items; write the expression you mean there`);
      return { ...(structuredClone(exprs[0]) as object), parentheses: true };
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [key, v] of Object.entries(n)) {
      const w = key === 'loc' || typeof v !== 'object' || v === null ? v : rewrite(v);
      if (w !== v) changed = true;
      out[key] = w;
    }
    return changed ? out : n;
  };
  (select as { where: unknown }).where = rewrite(select.where);
}
