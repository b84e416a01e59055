/**
 * Planning aggregate queries: group keys, partials (decomposed at plan time), output columns,
 * HAVING and ORDER BY after aggregation.
 */
import { aggregateDef, canonicalExpr, evaluate, type AggArg, type AggregateDef, type CallOptions, type GroupEntry, type PartialLayout } from '../../merge/index.ts';
import type { AggregateFn as OutAggregateFn, CastNode, ColumnInfo, Expr, GroupKeySpec, OutColumn, OutExpr, PartialSpec, QueryPlan, WindowFn, WindowNode } from '../../merge/types.ts';
import { AGGREGATES } from '../../merge/aggregates/index.ts';
import { nodeChildren } from '../../merge/scalar.ts';
import { windowSpec } from './windows.ts';
import { type Node, type Select, isNode, listItems, str, upper, visitNodes } from './ast.ts';
import { fail } from './errors.ts';
import { AGGREGATE_FNS, type KeyExpr, type Operand, type SketchFn, type Typed, callAggregateFn, functionName, isAggregateCall, isStringAggCall, keyId, lowerKey, lowerScalar, sketchFn, unsupportedMessage } from './expressions.ts';
import type { QueryLimits } from './limits.ts';
import { decimalKeptByDouble, literalText, readLiteral } from './literals.ts';
import { type Pred, lowerPredicate, readOperand, rowLevel } from './predicates.ts';
import { type Scope, columnRef, findByName, findColumn, resolveColumn } from './scope.ts';
import { groupingValue } from '../../merge/grouping-sets.ts';
import { conditionText } from './text.ts';
import { groupingSets, hasGroupingSets, isGroupingCall } from './grouping-sets.ts';
import { lateralAliasRead } from './lateral.ts';
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

  /**
   * GROUPING SETS / ROLLUP / CUBE: each set's key indexes (see QueryPlan.groupingSets); null
   * for a plain GROUP BY. Set before the SELECT list is lowered: `grouping()` reads it.
   */
  groupingSets: readonly (readonly number[])[] | null = null;

  /** The SELECT list: a grouping() argument may name a key item by its alias, as GROUP BY may. */
  selectItems: readonly SelectItem[] = [];

  /** Window aggregates over the groups (QueryPlan.windows), each at its slot. */
  readonly windows: WindowNode[] = [];

  /** SELECT aliases GROUP BY names (lower case): only those may be grouping() arguments (DuckDB). */
  readonly groupByAliases = new Set<string>();

  /**
   * Adds a group key once; its name is the output name of the first SELECT item equal to it.
   * Returns its index in {@link keys}.
   */
  addKey(key: Typed<KeyExpr>, items: readonly SelectItem[]): number {
    const id = keyId(key.expr);
    const known = this.keyIndex.get(id);
    if (known !== undefined) return known;
    const selected = items.find((item) => item.kind === 'key' && keyId(item.key.expr) === id);
    const name = selected?.kind === 'key' ? (selected.alias ?? selected.key.text) : key.text;
    this.keyIndex.set(id, this.keys.length);
    this.keys.push({ name, expr: key.expr, type: key.type });
    return this.keys.length - 1;
  }

  /**
   * DuckDB's `grouping(k1, ..., kn)` (also `grouping_id`): an int64 with one bit per argument,
   * the first the most significant, 1 where the row's grouping set leaves that key out. With
   * a plain GROUP BY it is 0; with grouping sets, a CASE over the set index the root appends
   * to each group's keys (src/merge/grouping-sets.ts).
   * @throws CanopyError CANOPY_ERR_BAD_QUERY without GROUP BY, without arguments, or for an
   *   argument that is not a GROUP BY key (DuckDB's binder errors)
   */
  grouping(n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    if (this.keys.length === 0 && this.groupingSets === null) fail('CANOPY_ERR_BAD_QUERY', 'GROUPING statement cannot be used without groups');
    const args = listItems(n.args);
    if (args.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'GROUPING requires at least one child');
    if (args.length > 64) fail('CANOPY_ERR_BAD_QUERY', 'GROUPING statement cannot have more than 64 groups');
    const texts: string[] = [];
    const indexes = args.map((a) => {
      const literal = readLiteral(a);
      // A number is a value here, not a SELECT position (DuckDB).
      if (literal !== null) fail('CANOPY_ERR_BAD_QUERY', `GROUPING child "${literalText(literal)}" must be a grouping column`);
      const name = bareName(a);
      if (name !== null && findColumn(this.scope, name) === undefined && !this.groupByAliases.has(name.toLowerCase())) {
        fail('CANOPY_ERR_BAD_QUERY', `GROUPING child "${name}" must be a grouping column`);
      }
      const key = groupKey(a, this.scope, this.selectItems);
      const index = this.keyIndex.get(keyId(key.expr));
      if (index === undefined) fail('CANOPY_ERR_BAD_QUERY', `GROUPING child "${key.text}" must be a grouping column`);
      texts.push(key.text);
      return index;
    });
    const text = `GROUPING(${texts.join(', ')})`;
    const int = (v: bigint): OutExpr => ({ kind: 'lit', value: v, type: 'int64' });
    const sets = this.groupingSets;
    if (sets === null) return { expr: int(0n), type: 'int64', text };
    const whens = sets.map((set, k) => ({ when: int(BigInt(k)), then: int(groupingValue(indexes, set)) }));
    return { expr: { kind: 'case', operand: { kind: 'key', index: this.keys.length }, whens, else: null, type: 'int64' }, type: 'int64', text };
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
      if (isNode(n) && n.over != null) return this.window(n, clause);
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
        if (isNode(m) && m.over != null) return this.window(m, clause);
        if (isAggregateCall(m)) return this.aggregate(m);
        if (isGroupingCall(m)) return this.grouping(m);
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

  /**
   * A window aggregate over the groups (src/root/sql/windows.ts checked its form): sum, count,
   * avg, min or max of a post-aggregation expression (an aggregate, a group key, ...), or
   * `count(*)`, `OVER ()` or `OVER (PARTITION BY <group keys>)`; SELECT and ORDER BY only.
   * Typed as DuckDB types it: SUM of an integer HUGEINT (int128), of a DOUBLE a DOUBLE; AVG a
   * DOUBLE; COUNT a BIGINT; MIN/MAX the argument's type. Named as DuckDB names it.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY for a window elsewhere, nested, or a PARTITION BY
   *   item that is not a group key; CANOPY_ERR_UNSUPPORTED for a sketch aggregate argument;
   *   CANOPY_ERR_TYPE for SUM/AVG of a value that is not a number
   */
  window(n: Node, clause: string): Typed<OutExpr> {
    if (clause !== 'SELECT' && clause !== 'ORDER BY') fail('CANOPY_ERR_BAD_QUERY', `${clause} cannot contain window functions (DuckDB computes them after ${clause})`);
    const fn = String(str(n.name) ?? '').toLowerCase() as WindowFn;
    const args = isNode(n.args) ? n.args : {};
    let nested = false;
    visitNodes(args.expr, (m) => {
      if (m.over != null) nested = true;
    });
    if (nested) fail('CANOPY_ERR_BAD_QUERY', 'window function calls cannot be nested');
    const star = isNode(args.expr) && args.expr.type === 'star';
    if (star && fn !== 'count') fail('CANOPY_ERR_BAD_QUERY', `${fn}(*) is not valid; only count(*) takes *`);
    const arg = star ? null : this.value(args.expr, clause);
    if (arg !== null) {
      const sketches: string[] = [];
      walkOut(arg.expr, (e) => {
        if (e.kind === 'agg' && AGGREGATES[e.fn].sketch) sketches.push(e.fn);
      });
      if (sketches.length > 0) fail('CANOPY_ERR_UNSUPPORTED', `a window aggregate over ${sketches[0]}() is not supported: its value may be an estimate in any group, so the window's could not be labelled; window over exact aggregates (count, sum, avg, min, max, ...) or group keys`);
      if ((fn === 'sum' || fn === 'avg') && arg.type !== 'int64' && arg.type !== 'int128' && arg.type !== 'float64') fail('CANOPY_ERR_TYPE', `${fn}(...) OVER (...) needs a number; '${arg.text}' is ${arg.type}`);
    }
    const spec = windowSpec(n);
    const partition = (Array.isArray(spec.partitionby) ? spec.partitionby : []).map((item) => {
      const expr = isNode(item) ? item.expr : item;
      if (containsAggregate(expr)) fail('CANOPY_ERR_UNSUPPORTED', 'PARTITION BY over an aggregate is not supported; partition by GROUP BY keys');
      const key = this.value(expr, 'PARTITION BY');
      if (key.expr.kind !== 'key') fail('CANOPY_ERR_UNSUPPORTED', `PARTITION BY ${key.text} is not supported: canopy partitions a window by GROUP BY keys only`);
      return { index: key.expr.index, text: key.text };
    });
    const type = fn === 'count' ? 'int64' : fn === 'avg' ? 'float64' : fn === 'sum' ? (arg!.type === 'float64' ? 'float64' : 'int128') : arg!.type;
    const node: WindowNode = { kind: 'window', fn, arg: arg === null ? null : arg.expr, argType: arg === null ? null : arg.type, partition: partition.map((p) => p.index), type, slot: this.windows.length };
    this.windows.push(node);
    const over = partition.length === 0 ? '()' : `(PARTITION BY ${partition.map((p) => p.text).join(', ')})`;
    return { expr: node, type, text: `${fn}(${arg === null ? '' : arg.text}) OVER ${over}` };
  }

  /** Lowers one aggregate call to its partials (deduplicated) and its finalised type. */
  aggregate(n: Node): Typed<OutExpr> {
    if (n.type === 'aggr_func' && n.within_group_orderby != null) return this.orderedSet(n);
    if (isStringAggCall(n)) return this.stringAgg(n);
    const sketch = sketchFn(n);
    if (sketch !== undefined) return this.sketchAggregate(sketch, n);
    const called = callAggregateFn(n);
    if (called !== undefined) return this.callAggregate(called, n);
    const args = isNode(n.args) ? n.args : {};
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    // bit_xor(DISTINCT x): the XOR of the distinct values (src/rewrite.ts made it this node).
    if (str(n.name)?.toLowerCase() === 'bit_xor' && args.distinct != null) {
      const filter = this.aggregateFilter(n);
      const arg = this.aggregateColumn('bit_xor(DISTINCT)', args.expr)!;
      return this.call('bit_xor_distinct', [arg], filter === null ? {} : { filter }, `bit_xor(DISTINCT ${arg.text})${filter === null ? '' : ' FILTER (WHERE ...)'}`);
    }
    const fn = AGGREGATE_FNS.find((f) => f === str(n.name)?.toLowerCase());
    if (fn === undefined) fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, 'SELECT'));
    const filter = this.aggregateFilter(n);
    const options: CallOptions = filter === null ? {} : { filter };
    const suffix = filter === null ? '' : ' FILTER (WHERE ...)';
    if (args.orderby != null) fail('CANOPY_ERR_UNSUPPORTED', 'ORDER BY inside an aggregate is not supported');
    if (args.distinct != null) {
      const ref = columnRef(args.expr);
      if (ref?.name === '*' || (isNode(args.expr) && args.expr.type === 'star')) fail('CANOPY_ERR_BAD_QUERY', `${fn}(DISTINCT *) is not valid; name a column or an expression`);
      const given = this.aggregateColumn(`${fn}(DISTINCT)`, args.expr)!;
      // sum(DISTINCT cond) sums the distinct truths as 1 / 0 (DuckDB: 1 when any row is TRUE);
      // count(DISTINCT cond) counts them (0, 1 or 2), the same over 1 / 0.
      const arg: typeof given = (fn === 'sum' || fn === 'count') && given.type === 'bool' ? { ...given, expr: { kind: 'cast', arg: given.expr, type: 'int64', try: false, from: 'bool' }, type: 'int64' } : given;
      // MIN and MAX of the distinct values are MIN and MAX.
      const distinctFn: OutAggregateFn = fn === 'count' ? 'count_distinct' : fn === 'sum' ? 'sum_distinct' : fn === 'avg' ? 'avg_distinct' : fn;
      return this.call(distinctFn, [arg], options, `${fn}(DISTINCT ${arg.text})${suffix}`);
    }
    const column = this.aggregateColumn(fn, args.expr);
    if (column === null) return this.call('count', [], options, `count_star()${suffix}`);
    // sum of a boolean counts its TRUEs, an int128 (DuckDB's HUGEINT), NULL without a non-NULL value: count_if.
    if (fn === 'sum' && column.type === 'bool') return this.call('count_if', [column], options, `sum(${column.text})${suffix}`);
    return this.call(fn, [column], options, `${fn}(${column.text})${suffix}`);
  }

  /**
   * The SQL standard's ordered-set aggregates as DuckDB reads them (the PostgreSQL syntax
   * Metabase and Superset write for percentiles), by DuckDB's own rewrite (its transformer,
   * `TransformOrderedSetAggregate`): `percentile_cont(q) WITHIN GROUP (ORDER BY x)` is
   * quantile_cont(x, q), `percentile_disc` quantile_disc, ORDER BY ... DESC the same with -q
   * (counted from the top; q = 0 stays 0, as -0.0 does in DuckDB), NULLS FIRST/LAST changing
   * nothing (NULLs are not values); `mode() WITHIN GROUP (ORDER BY x)` is mode(x). FILTER is
   * kept. Named as DuckDB names them: `quantile_cont(0.5 ORDER BY x)`.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY for what DuckDB refuses: another aggregate, more
   *   than one ORDER BY key, an ORDER BY a non-integer literal, DISTINCT, an argument to mode,
   *   q NULL, not a number literal or outside [0, 1]; CANOPY_ERR_UNSUPPORTED for OVER; the
   *   quantile's own refusals (types)
   */
  private orderedSet(n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    const name = String(str(n.name) ?? '').toLowerCase();
    const order = Array.isArray(n.within_group_orderby) ? (n.within_group_orderby as unknown[]) : [];
    const args = isNode(n.args) ? n.args : {};
    if (name !== 'percentile_cont' && name !== 'percentile_disc' && name !== 'mode') fail('CANOPY_ERR_BAD_QUERY', `unknown ordered aggregate "${name}": WITHIN GROUP takes percentile_cont, percentile_disc and mode`);
    if (order.length !== 1) fail('CANOPY_ERR_BAD_QUERY', `${name}: WITHIN GROUP takes one ORDER BY expression, not ${order.length}`);
    if (args.distinct != null) fail('CANOPY_ERR_BAD_QUERY', `${name}: DISTINCT cannot be used with WITHIN GROUP`);
    const item = isNode(order[0]) ? order[0] : {};
    // DuckDB's binder: "ORDER BY non-integer literal has no effect" (an integer one orders by that constant).
    const keyLiteral = readLiteral(item.expr);
    if (keyLiteral !== null && (keyLiteral.kind === 'string' || keyLiteral.kind === 'null' || (keyLiteral.kind === 'number' && !/^[+-]?\d+$/.test(keyLiteral.text)))) {
      fail('CANOPY_ERR_BAD_QUERY', `${name}: WITHIN GROUP (ORDER BY ${literalText(keyLiteral)}) orders by a non-integer literal, which has no effect (DuckDB refuses it): order by an expression`);
    }
    const desc = upper(item.type) === 'DESC';
    const shownKey = isNode(item.expr) && item.expr.type === 'binary_expr' ? `(${conditionText(item.expr) ?? '?'})` : (conditionText(item.expr) ?? '?');
    const nulls = upper(item.nulls);
    const keyText = `ORDER BY ${shownKey}${desc ? ' DESC' : ''}${nulls.startsWith('NULLS') ? ` ${nulls}` : ''}`;
    const filterText = n.filter == null ? '' : ' FILTER (WHERE ...)';
    const call = (fn: string, list: unknown[]): Node => ({ type: 'function', name: { name: [{ type: 'default', value: fn }] }, args: { type: 'expr_list', value: list }, over: null, filter: n.filter ?? null });
    if (name === 'mode') {
      if (args.expr != null && !(isNode(args.expr) && Object.keys(args.expr).length === 0)) fail('CANOPY_ERR_BAD_QUERY', 'mode() WITHIN GROUP (ORDER BY x) takes no argument: write mode() or mode(x)');
      const lowered = this.aggregate(call('mode', [item.expr]));
      return { ...lowered, text: `"mode"() WITHIN GROUP ( ${keyText})${filterText}` };
    }
    const literal = readLiteral(args.expr);
    if (literal?.kind === 'null') fail('CANOPY_ERR_BAD_QUERY', `${name}'s fraction must not be NULL`);
    const qText = literal?.kind === 'number' ? literal.text : null;
    const q = qText === null ? NaN : Number(qText);
    if (qText === null || !(q >= 0 && q <= 1)) fail('CANOPY_ERR_BAD_QUERY', `${name}'s fraction must be a number literal from 0 to 1; got ${literal === null ? 'an expression' : literalText(literal)}`);
    const fn = name === 'percentile_cont' ? 'quantile_cont' : 'quantile_disc';
    if (fn === 'quantile_disc') checkDiscreteFraction(name, qText);
    const signed = desc && q !== 0 ? `-${qText}` : qText;
    const lowered = this.aggregate(call(fn, [item.expr, { type: 'number', value: signed }]));
    return { ...lowered, text: `${fn}(${qText} ${keyText})${filterText}` };
  }

  /** FILTER (WHERE cond) of an aggregate call, lowered as a row-level predicate, or null. */
  private aggregateFilter(n: Node): Expr | null {
    if (n.filter == null) return null;
    const where = isNode(n.filter) ? n.filter.where : undefined;
    if (where == null) fail('CANOPY_ERR_BAD_QUERY', 'FILTER needs (WHERE condition)');
    return lowerPredicate(where, { ...rowLevel(this.scope), clause: 'FILTER' });
  }

  /**
   * An aggregate called as a plain function, by its registry definition's call syntax
   * (count_if, bool_and, the variance family, arg_min, any_value, ...): each argument lowered
   * as a row-level condition or value, then FILTER (WHERE ...) if any.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity), CANOPY_ERR_TYPE
   */
  private callAggregate(def: AggregateDef, n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    const name = functionName(n).toLowerCase();
    const kinds = def.call?.args ?? [];
    const args = listItems(n.args);
    // DuckDB's arg_min(arg, val, n) family returns a LIST of the n best rows.
    if (args.length === 3 && LIST_FORMS.has(def.fn)) fail('CANOPY_ERR_UNSUPPORTED', `${name}(arg, val, n) returns a LIST of the n best rows, which canopy does not hold; use ${name}(arg, val)`);
    if (args.length !== kinds.length) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes ${kinds.length === 1 ? 'one argument' : `${kinds.length} arguments`}, not ${args.length}`);
    const filter = this.aggregateFilter(n);
    const given = args.map((a, k): AggArg => (kinds[k] === 'condition' ? { expr: lowerPredicate(a, { ...rowLevel(this.scope), clause: 'SELECT', strict: true }), type: 'bool', text: 'condition' } : this.aggregateColumn(name, a)!));
    // mode and entropy of DATEs are those of their midnights (DuckDB's mode of DATEs is a DATE).
    const dates = (def.fn === 'mode' || def.fn === 'entropy') && given[0]?.type === 'date';
    const lowered = dates ? [{ ...given[0]!, expr: { kind: 'cast', arg: given[0]!.expr, type: 'timestamp', try: false, from: 'date' } as const, type: 'timestamp' as const }] : given;
    const text = `${name}(${lowered.map((a, k) => (kinds[k] === 'condition' ? '...' : a.text)).join(', ')})${filter === null ? '' : ' FILTER (WHERE ...)'}`;
    const out = this.call(def.fn, lowered, filter === null ? {} : { filter }, text);
    return dates && def.fn === 'mode' ? { ...out, type: 'date' } : out;
  }

  /**
   * One aggregate call planned by its definition (src/merge/aggregates): its partials,
   * deduplicated by kind, argument and filter, and its output type.
   * @throws CanopyError from the definition's decomposition (CANOPY_ERR_TYPE, ...)
   */
  private call(fn: OutAggregateFn, args: readonly AggArg[], options: CallOptions, text: string): Typed<OutExpr> {
    const decomposed = aggregateDef(fn).decompose(args, options);
    const type = decomposed.type;
    // An expression argument carries its type to the children (a column's comes from the schema).
    const partials = decomposed.partials.map((p): PartialSpec => {
      if (p.arg === null || p.arg.kind === 'col' || p.arg.kind === 'lit') return p;
      const typed = args.find((a) => a.expr === p.arg);
      return typed === undefined ? p : { ...p, argType: typed.type };
    });
    const { filter } = options;
    // FILTER applies to every partial of the call, with the decomposition's own filter if any.
    const filtered = filter === undefined ? partials : partials.map((p): PartialSpec => ({ ...p, filter: p.filter === undefined ? filter : { kind: 'and', args: [filter, p.filter] } }));
    const indexes = filtered.map((p) => this.partial(p));
    const expr: OutExpr = {
      kind: 'agg',
      fn,
      partials: indexes,
      type,
      ...(options.q === undefined ? {} : { q: options.q }),
      ...(options.qDouble === true ? { qDouble: true } : {}),
      ...(options.sep === undefined ? {} : { sep: options.sep }),
      ...(options.distinct === true ? { distinct: true } : {}),
    };
    return { expr, type, text };
  }

  /**
   * string_agg(x [, sep] [ORDER BY ...]), group_concat and listagg (DuckDB's names): x cast to
   * VARCHAR, the separator a constant string (',' when absent; NULL allowed), the ORDER BY keys
   * row-level expressions, DISTINCT only with keys that are the argument (DuckDB's rule).
   * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity, a separator that is not constant, an ORDER
   *   BY key of a DISTINCT call that is not the argument), CANOPY_ERR_TYPE (a separator that is
   *   not a string), CANOPY_ERR_UNSUPPORTED (OVER)
   */
  private stringAgg(n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    const name = (n.type === 'aggr_func' ? String(str(n.name)) : functionName(n)).toLowerCase();
    let valueNode: unknown;
    let sepNode: unknown;
    let orderBy: unknown[] = [];
    let distinct = false;
    if (n.type === 'aggr_func') {
      const a = isNode(n.args) ? n.args : {};
      valueNode = a.expr;
      distinct = a.distinct != null;
      sepNode = isNode(a.separator) ? a.separator.delimiter : undefined;
      orderBy = Array.isArray(a.orderby) ? (a.orderby as unknown[]) : [];
    } else {
      const list = listItems(n.args);
      if (list.length < 1 || list.length > 2) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes a value and an optional separator, not ${list.length} arguments`);
      [valueNode, sepNode] = list;
    }
    // DuckDB casts the value to VARCHAR (a DATE to its DATE text).
    const value = this.aggregateColumn(name, valueNode)!;
    const arg: AggArg = value.type === 'string' ? value : { expr: { kind: 'cast', arg: value.expr, type: 'string', try: false, from: value.type }, type: 'string', text: value.text };
    const sep = sepNode === undefined ? ',' : this.constantString(sepNode, name);
    const order = orderBy.map((item) => {
      const o = isNode(item) ? item : {};
      const key = lowerKey(o.expr, this.scope, `${name}() ORDER BY`);
      if (distinct && keyId(key.expr) !== keyId(value.expr) && keyId(key.expr) !== keyId(arg.expr)) {
        fail('CANOPY_ERR_BAD_QUERY', `${name}(DISTINCT ...): in a DISTINCT aggregate, ORDER BY expressions must appear in the argument list ('${key.text}' is not '${value.text}')`);
      }
      return { expr: key.expr, type: key.type, desc: upper(o.type) === 'DESC', nullsFirst: nullsFirst(o) };
    });
    const filter = this.aggregateFilter(n);
    const shownSep = sep === null ? 'NULL' : `'${sep.replaceAll("'", "''")}'`;
    const text = `${name}(${distinct ? 'DISTINCT ' : ''}${value.text}, ${shownSep}${order.length > 0 ? ' ORDER BY ...' : ''})${filter === null ? '' : ' FILTER (WHERE ...)'}`;
    return this.call('string_agg', [arg], { ...(filter === null ? {} : { filter }), order, sep, distinct }, text);
  }

  /**
   * A constant string argument (string_agg's separator): any expression without columns,
   * evaluated now; null for NULL.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY for an expression over columns or aggregates,
   *   CANOPY_ERR_TYPE for a value that is not a string
   */
  private constantString(n: unknown, fn: string): string | null {
    let constant = true;
    visitNodes(n, (m) => {
      if (m.type === 'column_ref' || isAggregateCall(m)) constant = false;
    });
    if (!constant) fail('CANOPY_ERR_BAD_QUERY', `${fn}(): the separator must be a constant`);
    if (readLiteral(n)?.kind === 'null') return null;
    const lowered = this.value(n, `${fn}() separator`);
    if (lowered.type !== 'string') fail('CANOPY_ERR_TYPE', `${fn}(): the separator must be a string; '${lowered.text}' is ${lowered.type}`);
    const none = { keys: [], states: [] } as unknown as GroupEntry;
    const v = evaluate(lowered.expr, none, {} as PartialLayout);
    return v === null ? null : String(v);
  }

  /**
   * approx_count_distinct(col), approx_quantile(col, q) with q a number literal in [0, 1],
   * median(col), quantile_cont(col, q), quantile_disc(col, q) and quantile(col, q) (=
   * quantile_disc) with q a number literal in [-1, 1] (negative: DuckDB's descending order).
   * Quantiles need an int64, float64 or timestamp column (median, quantile_disc and quantile a
   * string column too); approx_quantile, median and quantile_cont are float64 (timestamp for a
   * timestamp column; median of strings a string), quantile_disc keeps the type.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity, q NULL, not a literal or out of range), CANOPY_ERR_TYPE
   */
  private sketchAggregate(fn: SketchFn, n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    const args = listItems(n.args);
    const arity = fn === 'approx_count_distinct' || fn === 'median' ? 1 : 2;
    if (args.length !== arity) {
      fail('CANOPY_ERR_BAD_QUERY', arity === 2 ? `${fn} takes 2 arguments (column, quantile from 0 to 1), not ${args.length}` : `${fn}() takes one column, not ${args.length} arguments`);
    }
    const given = this.aggregateColumn(fn, args[0])!;
    // Quantiles of DATEs are those of their midnights, as DuckDB casts them: median and
    // quantile_cont a TIMESTAMP, quantile_disc (and quantile) a DATE (one of the values);
    // approx_quantile's sketch estimates a DATE, which canopy refuses.
    const dates = given.type === 'date';
    if (dates && fn === 'approx_quantile') fail('CANOPY_ERR_TYPE', `approx_quantile() of a DATE is not supported (DuckDB estimates a DATE); use quantile_disc(${given.text}, q)`);
    const column: AggArg = dates ? { expr: { kind: 'cast', arg: given.expr, type: 'timestamp', try: false, from: 'date' }, type: 'timestamp', text: given.text } : given;
    const asDate = (t: Typed<OutExpr>): Typed<OutExpr> => (dates && (fn === 'quantile_disc' || fn === 'quantile') ? { ...t, type: 'date' } : t);
    if (fn === 'approx_count_distinct') {
      const filter = this.aggregateFilter(n);
      return this.call('count_distinct', [column], filter === null ? {} : { filter }, `approx_count_distinct(${column.text})${filter === null ? '' : ' FILTER (WHERE ...)'}`);
    }
    // median, quantile_disc and quantile of strings: DuckDB's quantile_disc over VARCHAR.
    const strings = fn === 'median' || fn === 'quantile_disc' || fn === 'quantile';
    if (column.type !== 'int64' && column.type !== 'float64' && column.type !== 'timestamp' && !(strings && column.type === 'string')) {
      fail('CANOPY_ERR_TYPE', `${fn}() needs an int64, float64${strings ? ', timestamp or string' : ' or timestamp'} column; '${column.text}' is ${column.type}`);
    }
    let q = 0.5;
    let qDouble = false;
    let text = `median(${column.text})`;
    if (arity === 2) {
      const literal = readLiteral(args[1]);
      q = literal?.kind === 'number' ? Number(literal.text) : NaN;
      if (literal?.kind === 'null') fail('CANOPY_ERR_BAD_QUERY', `${fn}'s quantile must not be NULL`);
      // quantile_cont / quantile_disc take q in [-1, 1] as DuckDB does (a negative q counts from the top).
      const least = fn === 'approx_quantile' ? 0 : -1;
      if (!(q >= least && q <= 1)) {
        const given = literal === null ? 'an expression' : literalText(literal);
        fail('CANOPY_ERR_BAD_QUERY', `${fn}'s quantile must be a number literal from ${least} to 1; got ${given}`);
      }
      q = q === 0 ? 0 : q;
      if (fn === 'quantile_disc' || fn === 'quantile') {
        const written = literal!.kind === 'number' ? literal!.text : String(q);
        checkDiscreteFraction(fn, written);
        // DuckDB reads a literal with an exponent, or past DECIMAL's 38 digits (leading zeros
        // count) or 20 before the point, as a DOUBLE, and ranks by it in doubles.
        const digits = /^[+-]?(\d*)\.?(\d*)$/.exec(written);
        qDouble = digits === null || digits[1]!.length + digits[2]!.length > 38 || digits[1]!.length > 20;
        // DuckDB ranks a DECIMAL fraction by n·integral and n·10^scale in DECIMAL(38), which
        // overflows (an error) once the count n reaches 10^(38 - scale): refused where a table could.
        if (!qDouble && digits![2]!.length > 22) fail('CANOPY_ERR_UNSUPPORTED', `${fn}'s fraction ${written} has ${digits![2]!.length} decimals: DuckDB's rank overflows DECIMAL(38) for large counts; write at most 22`);
      }
      text = `${fn}(${column.text}, ${literal!.kind === 'number' ? literal!.text : q})`;
    }
    const filter = this.aggregateFilter(n);
    const shown = filter === null ? text : `${text} FILTER (WHERE ...)`;
    const outFn = fn === 'approx_quantile' ? 'quantile' : fn === 'quantile' ? 'quantile_disc' : fn;
    if (fn === 'median') return this.call('median', [column], filter === null ? {} : { filter }, shown);
    return asDate(this.call(outFn, [column], { q, ...(qDouble ? { qDouble: true } : {}), ...(filter === null ? {} : { filter }) }, shown));
  }

  /**
   * The aggregated value: a column, or any row-level expression (`sum(distance * 2)`,
   * `avg(CASE ...)`, `sum(1)`), typed; null for count(*) (and count of a non-null literal,
   * the same thing).
   */
  private aggregateColumn(fn: string, arg: unknown): AggArg | null {
    const ref = columnRef(arg);
    const literal = readLiteral(arg);
    const star = (isNode(arg) && arg.type === 'star') || ref?.name === '*';
    if (fn === 'count' && (star || (literal !== null && literal.kind !== 'null'))) return null;
    if (star) fail('CANOPY_ERR_BAD_QUERY', `${fn}(*) is not valid; only count(*) takes *`);
    if (ref !== null) return columnArg(resolveColumn(this.scope, ref));
    if (isAggregateCall(arg)) fail('CANOPY_ERR_BAD_QUERY', `aggregate functions cannot be nested (${fn}() of an aggregate)`);
    return lowerKey(arg, this.scope, `${fn}()`);
  }

  /** The index of a partial in the plan, added once per spec (kind, arguments, filter). */
  private partial(spec: PartialSpec): number {
    const id = canonicalExpr(spec);
    let index = this.partialIndex.get(id);
    if (index === undefined) {
      index = this.partials.length;
      this.partialIndex.set(id, index);
      this.partials.push(spec);
    }
    return index;
  }
}

/** Visits every node of a post-aggregation expression (a window's argument too). */
function walkOut(e: OutExpr, visit: (e: OutExpr) => void): void {
  visit(e);
  if (e.kind === 'key' || e.kind === 'agg') return;
  if (e.kind === 'window') {
    if (e.arg !== null) walkOut(e.arg, visit);
    return;
  }
  for (const c of nodeChildren(e)) walkOut(c, visit);
}

/** Aggregates whose three-argument form is DuckDB's LIST of the n best (refused: canopy has no LIST type). */
const LIST_FORMS: ReadonlySet<string> = new Set(['arg_min', 'arg_max', 'arg_min_nulls_last', 'arg_max_nulls_last']);

/** A column as an aggregate argument. */
function columnArg(column: ColumnInfo): AggArg {
  return { expr: { kind: 'col', name: column.name }, type: column.type, text: column.name };
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
  planner.selectItems = items;
  const groupBy = isNode(select.groupby) && Array.isArray(select.groupby.columns) ? select.groupby.columns : [];
  const keyOf = (n: unknown): number => {
    const name = bareName(n);
    if (name !== null && findColumn(scope, name) === undefined) planner.groupByAliases.add(name.toLowerCase());
    return planner.addKey(groupKey(n, scope, items), items);
  };
  if (hasGroupingSets(groupBy)) {
    const sets = groupingSets(groupBy, keyOf);
    // One set is a plain GROUP BY of its keys (all of them).
    if (sets.length > 1) planner.groupingSets = sets;
  } else for (const n of groupBy) keyOf(n);

  for (const item of items) {
    if (item.kind === 'star') continue;
    const value = planner.value(item.node, 'SELECT');
    planner.addOutput(item.alias ?? value.text, value, item.alias);
  }

  if (planner.windows.length > 0 && planner.groupingSets !== null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions with GROUPING SETS, ROLLUP or CUBE are not supported');
  const having =
    select.having == null
      ? null
      : lowerPredicate(select.having, {
          clause: 'HAVING',
          operand: (n) => planner.operand(n, 'HAVING', 'after-group-keys'),
          build: (p: Pred<OutExpr> | CastNode<OutExpr>): OutExpr => p,
        });

  if (having !== null && planner.windows.length > 0) {
    walkOut(having, (e) => {
      if (e.kind === 'window') fail('CANOPY_ERR_BAD_QUERY', 'HAVING cannot contain window functions (DuckDB computes them after HAVING): a SELECT alias of a window cannot be read there');
    });
  }
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
    ...(planner.groupingSets === null ? {} : { groupingSets: planner.groupingSets }),
    ...(planner.windows.length === 0 ? {} : { windows: planner.windows }),
  };
}

/**
 * One GROUP BY item as a key: a 1-based position in the SELECT list, a table column, a
 * SELECT alias (table columns win, as in PostgreSQL), or any row-level expression (a constant
 * other than an integer is one group, as in DuckDB).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when it refers to an aggregate
 */
export function groupKey(n: unknown, scope: Scope, items: readonly SelectItem[]): Typed<KeyExpr> {
  // Only an integer literal is a position (DuckDB reads GROUP BY 1.0 or 1e0 as a constant).
  const lit = readLiteral(n);
  if (lit?.kind === 'number' && !/^\d+$/.test(lit.text.trim())) return lowerKey(n, scope, 'GROUP BY');
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
  if (item?.kind === 'key') {
    const alias = lateralAliasRead(item.node);
    if (alias !== null) fail('CANOPY_ERR_BAD_QUERY', `GROUP BY ${position !== null ? position + 1 : `'${name}'`} names a SELECT item that reads the alias '${alias}' of an earlier item; DuckDB refuses it ("aliases cannot be used as part of an expression in the GROUP BY"): write the expression there, or group by '${alias}'`);
    return item.key;
  }
  // Any other constant (NULL, a string, TRUE, 1.5) is one group, as in DuckDB.
  return lowerKey(n, scope, 'GROUP BY');
}

/**
 * A discrete quantile's fraction literal must be the shortest decimal of its double: DuckDB
 * picks the rank from the DECIMAL literal's exact digits (`percentile_disc(0.50000000000000001)`
 * of 18 values is the 10th, where 0.5 is the 9th), which canopy recovers from the double only
 * when the double keeps them (see quantileIndex).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for a literal with more digits than its double keeps
 */
function checkDiscreteFraction(fn: string, text: string): void {
  if (!decimalKeptByDouble(text)) fail('CANOPY_ERR_UNSUPPORTED', `${fn}'s fraction ${text} has more digits than a double keeps (DuckDB ranks by every digit of the DECIMAL); write at most 15 significant digits`);
}
