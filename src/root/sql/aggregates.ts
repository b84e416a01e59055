/**
 * Planning aggregate queries: group keys, partials (decomposed at plan time), output columns,
 * HAVING and ORDER BY after aggregation.
 */
import type { ColumnInfo, ColumnType, Expr, GroupKeySpec, OutColumn, OutExpr, PartialSpec, QueryPlan } from '../../merge/types.ts';
import { type Node, type Select, isNode, listItems, str, upper } from './ast.ts';
import { fail } from './errors.ts';
import { AGGREGATE_FNS, type AggregateFn, type KeyExpr, type Operand, type SketchFn, type Typed, isAggregateCall, keyId, lowerKey, lowerScalar, sketchFn, unsupportedMessage } from './expressions.ts';
import type { QueryLimits } from './limits.ts';
import { literalText, readLiteral } from './literals.ts';
import { type Pred, lowerPredicate, readOperand } from './predicates.ts';
import { type Scope, columnRef, findByName, findColumn, resolveColumn } from './scope.ts';
import { type SelectItem, bareName, containsAggregate, nullsFirst, orderItems, ordinal } from './select.ts';


/** Where a bare identifier in a post-aggregation expression may name a SELECT alias. */
export type AliasMode = 'before-columns' | 'after-group-keys';

/** The state of planning one aggregate query: group keys, partials and output columns. */
export class AggregatePlanner {
  readonly keys: GroupKeySpec[] = [];
  readonly partials: PartialSpec[] = [];
  readonly output: OutColumn[] = [];
  private readonly keyIndex = new Map<string, number>();
  private readonly partialIndex = new Map<string, number>();
  private readonly aliases = new Map<string, Typed<OutExpr>>();

  constructor(private readonly scope: Scope) {}

  /** Adds a group key once; its name is the output name of the first SELECT item equal to it. */
  addKey(key: Typed<KeyExpr>, items: readonly SelectItem[]): void {
    const id = keyId(key.expr);
    if (this.keyIndex.has(id)) return;
    const selected = items.find((item) => item.kind === 'key' && keyId(item.key.expr) === id);
    const name = selected?.kind === 'key' ? (selected.alias ?? selected.key.text) : key.text;
    this.keyIndex.set(id, this.keys.length);
    this.keys.push({ name, expr: key.expr, type: key.type });
  }

  /** Adds an output column; an aliased one can then be referred to by HAVING and ORDER BY. */
  addOutput(name: string, value: Typed<OutExpr>, alias: string | null): void {
    this.output.push({ name, type: value.type, expr: value.expr });
    if (alias !== null && !this.aliases.has(alias)) this.aliases.set(alias, value);
  }

  /**
   * Lowers a group key expression used after aggregation.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY when it is not a group key
   */
  key(n: unknown, clause: string): Typed<OutExpr> {
    return this.selectedKey(lowerKey(n, this.scope, clause));
  }

  /** A lowered key expression as a reference to its group key (see {@link key}). */
  selectedKey(key: Typed<KeyExpr>): Typed<OutExpr> {
    const index = this.keyIndex.get(keyId(key.expr));
    if (index === undefined) {
      fail('CANOPY_ERR_BAD_QUERY', `column '${key.text}' must appear in the GROUP BY clause or be used in an aggregate function`);
    }
    return { expr: { kind: 'key', index }, type: key.type, text: key.text };
  }

  /** An operand after aggregation: an aggregate, a group key, an alias or a literal. */
  operand(n: unknown, clause: string, aliasMode: AliasMode): Operand<OutExpr> {
    return readOperand(n, () => {
      if (isAggregateCall(n)) return this.aggregate(n);
      const name = bareName(n);
      if (name !== null) {
        const column = findColumn(this.scope, name);
        const preferAlias =
          aliasMode === 'before-columns' || column === undefined || !this.keyIndex.has(keyId({ kind: 'col', name: column.name }));
        const aliased = preferAlias ? findByName(this.aliases.entries(), name, ([alias]) => alias) : undefined;
        if (aliased !== undefined) return aliased[1];
      }
      return this.value(n, clause, aliasMode);
    });
  }

  /**
   * Lowers a post-aggregation expression: aggregates, group keys (a whole sub-expression equal
   * to a GROUP BY key is that key), aliases and literals, combined by any scalar operator
   * (`sum(a) / count(*)`, `round(avg(x), 1)`, CASE over aggregates).
   * @throws CanopyError CANOPY_ERR_BAD_QUERY for a column that is neither grouped nor aggregated
   */
  value(n: unknown, clause: string, aliasMode: AliasMode = 'after-group-keys'): Typed<OutExpr> {
    return lowerScalar(n, {
      clause,
      leaf: (m) => {
        if (isAggregateCall(m)) return this.aggregate(m);
        const name = bareName(m);
        if (name !== null) {
          const column = findColumn(this.scope, name);
          const preferAlias = aliasMode === 'before-columns' || column === undefined || !this.keyIndex.has(keyId({ kind: 'col', name: column.name }));
          const aliased = preferAlias ? findByName(this.aliases.entries(), name, ([alias]) => alias) : undefined;
          if (aliased !== undefined) return aliased[1];
        }
        if (columnRef(m) !== null) return this.key(m, clause);
        if (readLiteral(m) !== null || containsAggregate(m)) return null;
        let key: Typed<KeyExpr>;
        try {
          key = lowerKey(m, this.scope, clause);
        } catch {
          return null; // not a row-level expression as a whole: lowered part by part
        }
        const index = this.keyIndex.get(keyId(key.expr));
        return index === undefined ? null : { expr: { kind: 'key', index }, type: key.type, text: key.text };
      },
      build: (node) => node,
    });
  }

  /** Lowers one aggregate call to its partials (deduplicated) and its finalised type. */
  aggregate(n: Node): Typed<OutExpr> {
    const sketch = sketchFn(n);
    if (sketch !== undefined) return this.sketchAggregate(sketch, n);
    const fn = AGGREGATE_FNS.find((f) => f === str(n.name)?.toLowerCase());
    const args = isNode(n.args) ? n.args : {};
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    if (fn === undefined) fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, 'SELECT'));
    if (n.filter != null) fail('CANOPY_ERR_UNSUPPORTED', 'FILTER (WHERE ...) on aggregates is not supported');
    if (args.orderby != null) fail('CANOPY_ERR_UNSUPPORTED', 'ORDER BY inside an aggregate is not supported');
    if (args.distinct != null) {
      if (fn !== 'count') fail('CANOPY_ERR_UNSUPPORTED', `${fn.toUpperCase()}(DISTINCT ...) is not supported; only count(DISTINCT col) is`);
      const ref = columnRef(args.expr);
      if (ref === null || ref.name === '*') fail('CANOPY_ERR_UNSUPPORTED', 'count(DISTINCT ...) takes one column');
      const column = resolveColumn(this.scope, ref);
      return this.distinct(column, `count(DISTINCT ${column.name})`);
    }
    const column = this.aggregateColumn(fn, args.expr);
    if (column === null) {
      const partials = [this.partial('count_star', null)];
      return { expr: { kind: 'agg', fn: 'count', partials, type: 'int64' }, type: 'int64', text: 'count_star()' };
    }
    const text = `${fn}(${column.name})`;
    const numeric = column.type === 'int64' || column.type === 'float64';
    if ((fn === 'sum' || fn === 'avg') && !numeric) {
      fail('CANOPY_ERR_TYPE', `${fn}() needs an int64 or float64 column; '${column.name}' is ${column.type}`);
    }
    // SUM over int64 is int128 (DuckDB's HUGEINT), decided here and not by the data.
    const type: ColumnType = fn === 'count' ? 'int64' : fn === 'avg' ? 'float64' : fn === 'sum' && column.type === 'int64' ? 'int128' : column.type;
    const partials =
      fn === 'avg' ? [this.partial('sum', column.name), this.partial('count', column.name)] : [this.partial(fn, column.name)];
    return { expr: { kind: 'agg', fn, partials, type }, type, text };
  }

  /**
   * approx_count_distinct(col), approx_quantile(col, q) with q a number literal in [0, 1],
   * median(col) = approx_quantile(col, 0.5). Quantiles need an int64, float64 or timestamp
   * column; they are float64 (timestamp for a timestamp column).
   * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity, q not a literal in [0, 1]), CANOPY_ERR_TYPE
   */
  private sketchAggregate(fn: SketchFn, n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    const args = listItems(n.args);
    const arity = fn === 'approx_quantile' ? 2 : 1;
    if (args.length !== arity) {
      fail('CANOPY_ERR_BAD_QUERY', fn === 'approx_quantile' ? `approx_quantile takes 2 arguments (column, quantile from 0 to 1), not ${args.length}` : `${fn}() takes one column, not ${args.length} arguments`);
    }
    const column = this.aggregateColumn(fn, args[0])!;
    if (fn === 'approx_count_distinct') return this.distinct(column, `approx_count_distinct(${column.name})`);
    if (column.type !== 'int64' && column.type !== 'float64' && column.type !== 'timestamp') {
      fail('CANOPY_ERR_TYPE', `${fn}() needs an int64, float64 or timestamp column; '${column.name}' is ${column.type}`);
    }
    let q = 0.5;
    let text = `median(${column.name})`;
    if (fn === 'approx_quantile') {
      const literal = readLiteral(args[1]);
      q = literal?.kind === 'number' ? Number(literal.text) : NaN;
      if (!(q >= 0 && q <= 1)) {
        const given = literal === null ? 'an expression' : literalText(literal);
        fail('CANOPY_ERR_BAD_QUERY', `approx_quantile's quantile must be a number literal from 0 to 1; got ${given}`);
      }
      text = `approx_quantile(${column.name}, ${literal!.kind === 'number' ? literal!.text : q})`;
    }
    const type: ColumnType = column.type === 'timestamp' ? 'timestamp' : 'float64';
    const partials = [this.partial('ddsketch', column.name)];
    return { expr: { kind: 'agg', fn: 'quantile', partials, type, q }, type, text };
  }

  /** count(DISTINCT col) and approx_count_distinct(col): one `hll` partial per column, an int64 count. */
  private distinct(column: ColumnInfo, text: string): Typed<OutExpr> {
    const partials = [this.partial('hll', column.name)];
    return { expr: { kind: 'agg', fn: 'count_distinct', partials, type: 'int64' }, type: 'int64', text };
  }

  /** The aggregated column, or null for count(*) (and count of a non-null literal, the same thing). */
  private aggregateColumn(fn: AggregateFn | SketchFn, arg: unknown): ColumnInfo | null {
    const ref = columnRef(arg);
    const literal = readLiteral(arg);
    const star = (isNode(arg) && arg.type === 'star') || ref?.name === '*';
    if (fn === 'count' && (star || (literal !== null && literal.kind !== 'null'))) return null;
    if (star) fail('CANOPY_ERR_BAD_QUERY', `${fn}(*) is not valid; only count(*) takes *`);
    if (ref === null) fail('CANOPY_ERR_UNSUPPORTED', `${fn}() of an expression is not supported; aggregate a column`);
    return resolveColumn(this.scope, ref);
  }

  private partial(kind: PartialSpec['kind'], arg: string | null): number {
    const id = `${kind}(${arg ?? '*'})`;
    let index = this.partialIndex.get(id);
    if (index === undefined) {
      index = this.partials.length;
      this.partialIndex.set(id, index);
      this.partials.push({ kind, arg });
    }
    return index;
  }
}

export function planAggregateQuery(
  select: Select,
  scope: Scope,
  items: readonly SelectItem[],
  filter: Expr | null,
  limit: number | null,
  limits: QueryLimits,
): QueryPlan {
  if (items.some((item) => item.kind === 'star')) {
    fail('CANOPY_ERR_BAD_QUERY', 'SELECT * cannot be used with GROUP BY or aggregates; list the group keys and aggregates');
  }
  const planner = new AggregatePlanner(scope);
  const groupBy = isNode(select.groupby) && Array.isArray(select.groupby.columns) ? select.groupby.columns : [];
  for (const n of groupBy) planner.addKey(groupKey(n, scope, items), items);

  for (const item of items) {
    if (item.kind === 'star') continue;
    const value = planner.value(item.node, 'SELECT');
    planner.addOutput(item.alias ?? value.text, value, item.alias);
  }

  const having =
    select.having == null
      ? null
      : lowerPredicate(select.having, {
          clause: 'HAVING',
          operand: (n) => planner.operand(n, 'HAVING', 'after-group-keys'),
          build: (p: Pred<OutExpr>): OutExpr => p,
        });

  const orderBy = orderItems(select).map((item) => {
    const position = ordinal(item.expr, planner.output.length, 'ORDER BY');
    let expr: OutExpr;
    if (position !== null) expr = planner.output[position]!.expr;
    else {
      const operand = planner.operand(item.expr, 'ORDER BY', 'before-columns');
      if (operand.kind === 'literal') {
        fail('CANOPY_ERR_BAD_QUERY', `ORDER BY ${literalText(operand.literal)} is not a column, alias, aggregate or position`);
      }
      expr = operand.expr;
    }
    return { expr, desc: upper(item.type) === 'DESC', ...(nullsFirst(item) ? { nullsFirst: true } : {}) };
  });

  return {
    scan: {
      table: scope.table.name,
      filter,
      groupBy: planner.keys,
      partials: planner.partials,
      rows: null,
      maxGroups: limits.maxGroups,
    },
    output: planner.output,
    having,
    orderBy,
    limit,
  };
}

/**
 * One GROUP BY item as a key: a 1-based position in the SELECT list, a table column, a
 * SELECT alias (table columns win, as in PostgreSQL), or date_trunc(unit, column).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when it refers to an aggregate or is a constant
 */
export function groupKey(n: unknown, scope: Scope, items: readonly SelectItem[]): Typed<KeyExpr> {
  const position = ordinal(n, items.length, 'GROUP BY');
  const name = bareName(n);
  const item =
    position !== null
      ? items[position]
      : name !== null && findColumn(scope, name) === undefined
        ? findByName(items, name, (i) => (i.kind === 'star' ? '' : (i.alias ?? '')))
        : undefined;
  if (item?.kind === 'aggregate') {
    fail('CANOPY_ERR_BAD_QUERY', `GROUP BY ${position !== null ? position + 1 : `'${name}'`} refers to an aggregate`);
  }
  if (item?.kind === 'key') return item.key;
  const literal = readLiteral(n);
  if (literal !== null) fail('CANOPY_ERR_BAD_QUERY', `GROUP BY ${literalText(literal)} is not a column, alias or position`);
  return lowerKey(n, scope, 'GROUP BY');
}
