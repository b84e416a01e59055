/**
 * Row-level values shared by every clause: columns, date_trunc, and the function names canopy knows.
 */
import type { ColumnInfo, ColumnType, Expr, TruncUnit } from '../../merge/types.ts';
import { type Node, isNode, listItems, str, upper } from './ast.ts';
import { SUBQUERY, fail } from './errors.ts';
import { type RawLiteral, literalText, readLiteral } from './literals.ts';
import { type Scope, columnRef, resolveColumn } from './scope.ts';


/** An expression of a known type, with its SQL text for names and messages. */
export interface Typed<E> {
  readonly expr: E;
  readonly type: ColumnType;
  readonly text: string;
}

/** A comparison operand: a typed expression, or a literal typed by what it meets. */
export type Operand<E> = ({ readonly kind: 'typed' } & Typed<E>) | { readonly kind: 'literal'; readonly literal: RawLiteral };

export type ColExpr = Extract<Expr, { kind: 'col' }>;

/** A group key or projected column: a column or date_trunc over a column. */
export type KeyExpr = ColExpr | { readonly kind: 'date_trunc'; readonly unit: TruncUnit; readonly arg: ColExpr };

/** Identity of a key expression, for structural equality. */
export function keyId(key: KeyExpr): string {
  return key.kind === 'col' ? `col:${key.name}` : `date_trunc:${key.unit}:${key.arg.name}`;
}

export const TRUNC_UNITS: readonly TruncUnit[] = ['hour', 'day', 'week', 'month', 'year'];
export const AGGREGATE_FNS = ['count', 'sum', 'min', 'max', 'avg'] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];
/** Sketch aggregates, which node-sql-parser reads as plain function calls. */
export const SKETCH_FNS = ['approx_count_distinct', 'approx_quantile', 'median'] as const;
export type SketchFn = (typeof SKETCH_FNS)[number];
export const SUPPORTED_FUNCTIONS = `date_trunc, ${AGGREGATE_FNS.join(', ')}, count(DISTINCT col), ${SKETCH_FNS.join(', ')}, ${['count_if', 'bool_and', 'bool_or', 'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop'].join(', ')}`;

/** The sketch aggregate a function call names, or undefined. */
export function sketchFn(n: Node): SketchFn | undefined {
  if (n.type !== 'function') return undefined;
  const name = functionName(n).toLowerCase();
  return SKETCH_FNS.find((f) => f === name);
}

/** Aggregates other than sketches that node-sql-parser reads as plain function calls (src/root/sql/aggregates.ts plans them). */
export const CALL_AGGREGATE_FNS = ['count_if', 'bool_and', 'bool_or', 'stddev', 'stddev_samp', 'stddev_pop', 'variance', 'var_samp', 'var_pop'] as const;
export type CallAggregateFn = (typeof CALL_AGGREGATE_FNS)[number];

/** The call aggregate a function call names, or undefined. */
export function callAggregateFn(n: Node): CallAggregateFn | undefined {
  if (n.type !== 'function') return undefined;
  const name = functionName(n).toLowerCase();
  return CALL_AGGREGATE_FNS.find((f) => f === name);
}

/** True for an aggregate call: a parser `aggr_func`, or a call of a sketch or call aggregate. */
export function isAggregateCall(n: unknown): n is Node {
  return isNode(n) && (n.type === 'aggr_func' || sketchFn(n) !== undefined || callAggregateFn(n) !== undefined);
}

export function functionName(n: Node): string {
  const parts = isNode(n.name) && Array.isArray(n.name.name) ? n.name.name : [];
  const schema = isNode(n.name) && isNode(n.name.schema) ? [str(n.name.schema.value)] : [];
  return [...schema, ...parts.map((p) => (isNode(p) ? str(p.value) : null))].filter((p) => p !== null).join('.');
}

export function columnKey(column: ColumnInfo): Typed<KeyExpr> {
  return { expr: { kind: 'col', name: column.name }, type: column.type, text: column.name };
}

/**
 * Lowers a column reference or `date_trunc(unit, column)`: the only row-level values canopy
 * computes. `clause` names where the expression is, for messages.
 */
export function lowerKey(n: unknown, scope: Scope, clause: string): Typed<KeyExpr> {
  const ref = columnRef(n);
  if (ref !== null) {
    if (ref.name === '*') fail('CANOPY_ERR_BAD_QUERY', `* is not allowed in ${clause}; name a column`);
    return columnKey(resolveColumn(scope, ref));
  }
  if (isAggregateCall(n)) {
    fail('CANOPY_ERR_BAD_QUERY', `aggregate functions are not allowed in ${clause}${clause === 'WHERE' ? '; use HAVING' : ''}`);
  }
  if (isNode(n) && n.type === 'function' && n.over == null) {
    const name = functionName(n).toLowerCase();
    if (name === 'date_trunc') return lowerDateTrunc(n, scope);
    if (AGGREGATE_FNS.some((fn) => fn === name)) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes one column (count also takes *)`);
  }
  return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, clause));
}

export function lowerDateTrunc(n: Node, scope: Scope): Typed<KeyExpr> {
  const args = listItems(n.args);
  if (args.length !== 2) {
    fail('CANOPY_ERR_BAD_QUERY', `date_trunc takes 2 arguments (unit, timestamp column), not ${args.length}`);
  }
  const unitLiteral = readLiteral(args[0]);
  const unit = TRUNC_UNITS.find((u) => unitLiteral?.kind === 'string' && unitLiteral.value.toLowerCase() === u);
  if (unit === undefined) {
    const given = unitLiteral === null ? 'an expression' : literalText(unitLiteral);
    fail('CANOPY_ERR_BAD_QUERY', `date_trunc unit ${given} is not supported; use one of '${TRUNC_UNITS.join("', '")}'`);
  }
  const ref = columnRef(args[1]);
  if (ref === null || ref.name === '*') fail('CANOPY_ERR_TYPE', 'date_trunc needs a timestamp column as its second argument');
  const column = resolveColumn(scope, ref);
  if (column.type !== 'timestamp') {
    fail('CANOPY_ERR_TYPE', `date_trunc needs a timestamp column; '${column.name}' is ${column.type}`);
  }
  return {
    expr: { kind: 'date_trunc', unit, arg: { kind: 'col', name: column.name } },
    type: 'timestamp',
    text: `date_trunc('${unit}', ${column.name})`,
  };
}

export const ARITHMETIC_OPERATORS = new Set(['+', '-', '*', '/', '%', '^', '||', '&', '|', '#', '<<', '>>', 'DIV', 'MOD']);

/** Names the construct `n` uses that canopy does not support. */
export function unsupportedMessage(n: unknown, clause: string): string {
  if (!isNode(n)) return `this expression is not supported in ${clause}`;
  if (n.ast != null) return SUBQUERY;
  if (n.over != null) return 'window functions (OVER) are not supported';
  const op = upper(n.operator);
  switch (n.type) {
    case 'binary_expr':
      return ARITHMETIC_OPERATORS.has(op)
        ? `arithmetic operator '${op}' is not supported; canopy computes columns, date_trunc and aggregates only`
        : `operator '${op}' is not supported in ${clause}`;
    case 'unary_expr':
      return `unary operator '${op}' is not supported here; only numeric literals may be negated`;
    case 'case':
      return 'CASE is not supported';
    case 'cast':
      return 'CAST (and ::) is not supported';
    case 'window_func':
      return 'window functions (OVER) are not supported';
    case 'interval':
      return 'INTERVAL is not supported';
    case 'function': {
      const name = functionName(n);
      return `function '${name}' is not supported; supported: ${SUPPORTED_FUNCTIONS}`;
    }
    case 'aggr_func':
      return `aggregate function '${str(n.name)?.toLowerCase() ?? '?'}' is not supported; supported: ${AGGREGATE_FNS.join(', ')}`;
    default:
      return `${typeof n.type === 'string' ? `expression '${n.type}'` : 'this expression'} is not supported in ${clause}`;
  }
}
