/**
 * Predicates, generic over row-level Expr (WHERE) and post-aggregation OutExpr (HAVING).
 */
import type { CastNode, CmpOp, ColumnType, Expr, Scalar } from '../../merge/types.ts';
import { castValue } from '../../merge/scalar.ts';
import { type Node, isNode, listItems, upper } from './ast.ts';
import { SUBQUERY, fail } from './errors.ts';
import { type Leaves, type Operand, type Typed, functionName, intervalCondition, lowerKey, lowerScalar, moveConstants, setConditionLowerer } from './expressions.ts';
import { INT64_MAX, INT64_MIN, NULL_LITERAL, type RawLiteral, type TypedLiteral, coerceLiteral, defaultLiteral, literalText, meetAsDoubles, parseDate, readLiteral } from './literals.ts';
import type { Scope } from './scope.ts';


/** The predicate nodes Expr and OutExpr share, over children of type E. */
export type Pred<E> =
  | { readonly kind: 'lit'; readonly value: Scalar; readonly type: ColumnType | 'null' }
  | { readonly kind: 'cmp'; readonly op: CmpOp; readonly left: E; readonly right: E }
  | { readonly kind: 'and'; readonly args: readonly E[] }
  | { readonly kind: 'or'; readonly args: readonly E[] }
  | { readonly kind: 'not'; readonly arg: E }
  | { readonly kind: 'in'; readonly arg: E; readonly values: readonly Scalar[]; readonly negated: boolean }
  | { readonly kind: 'between'; readonly arg: E; readonly lo: E; readonly hi: E; readonly negated: boolean }
  | { readonly kind: 'isnull'; readonly arg: E; readonly negated: boolean }
  | { readonly kind: 'distinct'; readonly left: E; readonly right: E; readonly negated: boolean };

/** How one level lowers the operands of its predicates. */
export interface Level<E> {
  /** WHERE or HAVING, for messages. */
  readonly clause: string;
  operand(n: unknown): Operand<E>;
  /** Identity: a predicate node (or the cast of an integer operand to DOUBLE) is an E. */
  build(p: Pred<E> | CastNode<E>): E;
  /**
   * A BOOLEAN argument (count_if, bool_or, ...): a number or string there is refused, as
   * DuckDB's binder refuses count_if(1), not cast (conditions inside it are: bool_or(0 OR 1)).
   */
  readonly strict?: boolean;
}

export function rowLevel(scope: Scope): Level<Expr> {
  return {
    clause: 'WHERE',
    operand: (n) => readOperand(n, () => lowerKey(n, scope, 'WHERE')),
    build: (p) => p,
  };
}

export function readOperand<E>(n: unknown, typed: () => Typed<E>): Operand<E> {
  const literal = readLiteral(n);
  return literal !== null ? { kind: 'literal', literal } : { kind: 'typed', ...typed() };
}

export const COMPARISONS: ReadonlyMap<string, CmpOp> = new Map<string, CmpOp>([
  ['=', '='], ['!=', '!='], ['<>', '!='], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>='],
]);
export const FLIPPED: Readonly<Record<CmpOp, CmpOp>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * Lowers a condition: comparisons, AND, OR, NOT, [NOT] IN (literals), [NOT] BETWEEN,
 * IS [NOT] NULL, IS [NOT] DISTINCT FROM, TRUE/FALSE/NULL. Literals are coerced to the type of the operand they meet;
 * a literal on the left of a comparison is moved to the right.
 */
export function lowerPredicate<E>(n: unknown, level0: Level<E>): E {
  const node = isNode(n) ? n : {};
  const level: Level<E> = level0.strict === true ? { ...level0, strict: false } : level0;
  const op = upper(node.operator);
  if (node.type === 'binary_expr') {
    const interval = intervalCondition(node);
    if (interval !== undefined) return level.build({ kind: 'lit', value: interval, type: 'bool' });
    if (op === 'AND' || op === 'OR') {
      const args = flattenChain(node, op).map((arg) => lowerPredicate(arg, level));
      return level.build(op === 'AND' ? { kind: 'and', args } : { kind: 'or', args });
    }
    const cmp = COMPARISONS.get(op);
    if (cmp !== undefined) {
      if (readLiteral(node.left)?.kind === 'null' || readLiteral(node.right)?.kind === 'null') {
        // DuckDB's optimizer folds a comparison with a NULL constant to NULL, the other side
        // never computed (ComparisonSimplificationRule); bound first, for its type errors.
        lowerComparison(cmp, node.left, node.right, level);
        return level.build({ kind: 'lit', value: null, type: 'bool' });
      }
      // DuckDB moves the constants of integer arithmetic across a comparison before computing it.
      const moved = moveConstants(cmp, node.left, node.right, (ref) => columnTypeAt(ref, level));
      if (moved === null) return lowerComparison(cmp, node.left, node.right, level);
      // constant_or_null(v, x): x = x is TRUE, x <> x FALSE, both NULL for a NULL x.
      if ('constant' in moved) return lowerComparison(moved.constant ? '=' : '!=', moved.x, moved.x, level);
      return lowerComparison(moved.op, moved.x, { type: 'bigint', value: String(moved.k) }, level);
    }
    if (op === 'IN' || op === 'NOT IN') return lowerIn(node, op === 'NOT IN', level);
    if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
      const bounds = listItems(node.right);
      if (bounds.length !== 2) fail('CANOPY_ERR_BAD_QUERY', 'BETWEEN needs two bounds: x BETWEEN lo AND hi');
      const fraction = (b: unknown): boolean => {
        const l = readLiteral(b);
        return l?.kind === 'number' && fractionBeyondDoubles(l.text) !== null;
      };
      if (bounds.some(fraction)) {
        // An int64 between decimals a double cannot hold: the two comparisons, each exact.
        const both = level.build({ kind: 'and', args: [lowerComparison('>=', node.left, bounds[0], level), lowerComparison('<=', node.left, bounds[1], level)] });
        return op === 'NOT BETWEEN' ? level.build({ kind: 'not', arg: both }) : both;
      }
      const [arg, lo, hi] = unify([level.operand(node.left), level.operand(bounds[0]), level.operand(bounds[1])], level);
      return level.build({ kind: 'between', arg: arg!, lo: lo!, hi: hi!, negated: op === 'NOT BETWEEN' });
    }
    if (op === 'IS DISTINCT FROM' || op === 'IS NOT DISTINCT FROM') {
      // Read from the text by src/root/sql/rewrite.ts; NULL equals NULL, NaN equals NaN.
      const [l, r] = unify([level.operand(node.left), level.operand(node.right)], level);
      return level.build({ kind: 'distinct', left: l!, right: r!, negated: op === 'IS NOT DISTINCT FROM' });
    }
    if ((op === 'IS' || op === 'IS NOT') && (readLiteral(node.right)?.kind === 'null' || isUnknownWord(node.right))) {
      // x IS [NOT] UNKNOWN is x IS [NOT] NULL, as DuckDB reads it ('x' IS UNKNOWN is FALSE, no cast).
      const [arg] = unify([level.operand(node.left)], level);
      return level.build({ kind: 'isnull', arg: arg!, negated: op === 'IS NOT' });
    }
    const truth = readLiteral(node.right);
    if ((op === 'IS' || op === 'IS NOT') && truth?.kind === 'bool') {
      // x IS [NOT] TRUE / FALSE: never NULL, as x IS [NOT] DISTINCT FROM TRUE / FALSE; x is
      // read as a condition, so a number or string is cast to BOOLEAN (42 IS TRUE), as DuckDB.
      const left = lowerPredicate(node.left, level);
      return level.build({ kind: 'distinct', left, right: level.build({ kind: 'lit', value: truth.value, type: 'bool' }), negated: op === 'IS' });
    }
    if (op === 'IS' || op === 'IS NOT') {
      fail('CANOPY_ERR_UNSUPPORTED', `${op} ${literalOrExpression(node.right)} is not supported; use IS [NOT] NULL, IS [NOT] TRUE / FALSE or IS [NOT] DISTINCT FROM`);
    }
  }
  const negated = notOperand(node);
  if (negated !== undefined) return level.build({ kind: 'not', arg: lowerPredicate(negated, level) });
  const operand = level.operand(n);
  if (operand.kind === 'literal' && (operand.literal.kind === 'bool' || operand.literal.kind === 'null')) {
    return level.build({ kind: 'lit', ...defaultLiteral(operand.literal) });
  }
  if (operand.kind === 'typed' && operand.type === 'bool') return operand.expr;
  const asCondition = level0.strict === true ? null : castToCondition(operand, level);
  if (asCondition !== null) return asCondition;
  const what = operand.kind === 'typed' ? `'${operand.text}' (${operand.type})` : literalText(operand.literal);
  return fail('CANOPY_ERR_TYPE', `${level.clause} needs a condition such as a comparison; ${what} is not one`);
}

/** The types DuckDB casts implicitly to BOOLEAN where a condition is expected (WHERE i, NOT 0, 42 IS TRUE). */
const CONDITION_CASTS: ReadonlySet<ColumnType> = new Set(['int64', 'int128', 'float64', 'string']);

/**
 * A number or string where a condition is expected, cast to BOOLEAN as DuckDB casts it there
 * (`WHERE i` is `WHERE CAST(i AS BOOLEAN)`: nonzero is TRUE, NaN too; a string 'true', 't',
 * 'yes', 'y', '1' or their false forms, any other an error); null for other operands (a
 * timestamp, which DuckDB does not cast to BOOLEAN).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for a string literal that is no boolean
 */
function castToCondition<E>(operand: Operand<E>, level: Level<E>): E | null {
  if (operand.kind === 'typed') {
    return CONDITION_CASTS.has(operand.type) ? level.build({ kind: 'cast', arg: operand.expr, type: 'bool', try: false, from: operand.type }) : null;
  }
  const lit = defaultLiteral(operand.literal);
  if (lit.type === 'null' || !CONDITION_CASTS.has(lit.type)) return null;
  return level.build({ kind: 'lit', value: castValue(lit.value, 'bool'), type: 'bool' });
}

/** The bare word UNKNOWN after IS (the grammar reads it as a column name; a quoted "unknown" is a column). */
function isUnknownWord(n: unknown): boolean {
  if (!isNode(n) || n.type !== 'column_ref' || n.table != null || !isNode(n.column) || !isNode(n.column.expr)) return false;
  return n.column.expr.type === 'default' && upper(n.column.expr.value) === 'UNKNOWN';
}

export function literalOrExpression(n: unknown): string {
  const literal = readLiteral(n);
  return literal === null ? 'an expression' : literalText(literal);
}

/** The operand of NOT (`NOT x` or `NOT (x)`), or undefined. */
export function notOperand(n: Node): unknown {
  if (n.type === 'unary_expr' && upper(n.operator) === 'NOT') return n.expr;
  const args = listItems(n.args);
  return n.type === 'function' && functionName(n).toUpperCase() === 'NOT' && args.length === 1 ? args[0] : undefined;
}

/** The operands of a left-deep chain of one operator (a AND b AND c), without recursion. */
export function flattenChain(n: Node, op: string): unknown[] {
  const out: unknown[] = [];
  const stack: unknown[] = [n];
  while (stack.length > 0) {
    const top = stack.pop();
    if (isNode(top) && top.type === 'binary_expr' && upper(top.operator) === op) stack.push(top.right, top.left);
    else out.push(top);
  }
  return out;
}

/** A column reference's type at `level` (null where it does not lower there). */
function columnTypeAt<E>(ref: Node, level: Level<E>): ColumnType | null {
  try {
    const o = level.operand(ref);
    return o.kind === 'typed' ? o.type : null;
  } catch {
    return null;
  }
}

export function lowerComparison<E>(op: CmpOp, leftNode: unknown, rightNode: unknown, level: Level<E>): E {
  const left = level.operand(leftNode);
  const right = level.operand(rightNode);
  const swap = left.kind === 'literal' && right.kind === 'typed';
  const [typed, lit] = swap ? [right, left] : [left, right];
  if (typed.kind === 'typed' && typed.type === 'int64' && lit.kind === 'literal' && lit.literal.kind === 'number') {
    const floor = fractionBeyondDoubles(lit.literal.text);
    if (floor !== null) return intAgainstFraction(swap ? FLIPPED[op] : op, typed.expr, floor, level);
  }
  const [l, r] = unify(swap ? [right, left] : [left, right], level);
  return level.build({ kind: 'cmp', op: swap ? FLIPPED[op] : op, left: l!, right: r! });
}

/**
 * The floor of a decimal literal (no exponent: DuckDB's DECIMAL) with a non-zero fraction whose
 * magnitude is 2^53 or more, where a double cannot hold it (9223372036854775806.5 would round
 * to 2^63), or null.
 */
function fractionBeyondDoubles(text: string): bigint | null {
  const m = /^([+-]?)(\d+)\.(\d*[1-9]\d*)$/.exec(text);
  if (m === null) return null;
  const whole = BigInt(m[2]!);
  if (whole < 2n ** 53n) return null;
  return m[1] === '-' ? -whole - 1n : whole;
}

/**
 * An int64 compared with a value strictly between `floor` and `floor + 1`, exactly: `> v`
 * and `>= v` are `> floor`, `< v` and `<= v` are `<= floor`; `= v` is never true and `<> v`
 * always (NULL for a NULL operand, through the pair of comparisons).
 */
function intAgainstFraction<E>(op: CmpOp, expr: E, floor: bigint, level: Level<E>): E {
  const f = level.build({ kind: 'lit', value: floor, type: floor >= -(2n ** 63n) && floor < 2n ** 63n ? 'int64' : 'int128' });
  const cmp = (o: CmpOp): E => level.build({ kind: 'cmp', op: o, left: expr, right: f });
  switch (op) {
    case '>':
    case '>=':
      return cmp('>');
    case '<':
    case '<=':
      return cmp('<=');
    case '=':
      return level.build({ kind: 'and', args: [cmp('>'), cmp('<=')] });
    default:
      return level.build({ kind: 'or', args: [cmp('>'), cmp('<=')] });
  }
}

/**
 * Lowers `x [NOT] IN (v1, v2, ...)`. A list of literals becomes one `in` node; a list holding
 * an expression (`'nan'::DOUBLE`, `1 + 1`, a column) becomes `x = v1 OR x = v2 ...` (under NOT
 * for NOT IN), which has the same three-valued result: TRUE if any equality is, else NULL if
 * any is NULL, else FALSE.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for an empty list, CANOPY_ERR_UNSUPPORTED for a subquery
 */
export function lowerIn<E>(n: Node, negated: boolean, level: Level<E>): E {
  const given = listItems(n.right);
  if (given.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'IN needs a list of values: x IN (1, 2)');
  if (given.some((item) => isNode(item) && item.ast != null)) fail('CANOPY_ERR_UNSUPPORTED', SUBQUERY);
  // Against a string operand, CAST('a' AS VARCHAR) (how x = ANY(['a']) is written: see
  // src/root/sql/front.ts) is the string 'a', so the list stays a set of values, not an OR.
  const stringCasts = given.some((item) => stringCastLiteral(item) !== undefined);
  const left = stringCasts ? level.operand(n.left) : undefined;
  const items = left?.kind === 'typed' && left.type === 'string' ? given.map((item) => stringCastLiteral(item) ?? item) : given;
  if (items.some((item) => readLiteral(item) === null)) {
    const any = level.build({ kind: 'or', args: items.map((item) => lowerComparison('=', n.left, item, level)) });
    return negated ? level.build({ kind: 'not', arg: any }) : any;
  }
  const literals = items.map((item) => ({ kind: 'literal', literal: readLiteral(item)! }) as const);
  const [arg, ...values] = unifyTyped([level.operand(n.left), ...literals], level);
  const scalars = values.map((v) => ('value' in v ? v.value : null));
  return level.build({ kind: 'in', arg: toExpr(arg!, level), values: scalars, negated });
}

/** The string types a CAST of a string literal may name and still be that string. */
const STRING_CAST_TYPES: ReadonlySet<string> = new Set(['VARCHAR', 'TEXT', 'STRING']);

/** The literal of `CAST('a' AS VARCHAR)` or `CAST(NULL AS TEXT)` (not TRY_CAST, one target), else undefined. */
function stringCastLiteral(item: unknown): unknown {
  if (!isNode(item) || item.type !== 'cast' || item.try === true || !Array.isArray(item.target) || item.target.length !== 1) return undefined;
  const target: unknown = item.target[0];
  if (!isNode(target) || !STRING_CAST_TYPES.has(upper(target.dataType))) return undefined;
  const kind = readLiteral(item.expr)?.kind;
  return kind === 'string' || kind === 'null' ? item.expr : undefined;
}

/** A unified operand: a typed expression, or a literal coerced to the operands' common type. */
export type Unified<E> = { readonly expr: E } | TypedLiteral;

export function toExpr<E>(u: Unified<E>, level: Level<E>): E {
  return 'expr' in u ? u.expr : level.build({ kind: 'lit', value: u.value, type: u.type });
}

export function unify<E>(operands: readonly Operand<E>[], level: Level<E>): E[] {
  return unifyTyped(operands, level).map((u) => toExpr(u, level));
}

/**
 * Checks that operands can be compared: typed operands must have compatible types (equal,
 * or both numeric) and literals are coerced to the first typed operand's type; with no typed
 * operand, literals keep their own types, which must be compatible. Where an integer meets a
 * double ({@link meetAsDoubles}: a float64 operand, or a literal with an exponent from 2^53
 * on) the integer operands are cast to float64 first and the literals read as doubles, as
 * DuckDB compares BIGINT with DOUBLE (`i = CAST(i AS DOUBLE)` is TRUE for i = 2^63 - 1).
 * @throws CanopyError CANOPY_ERR_TYPE
 */
export function unifyTyped<E>(given0: readonly Operand<E>[], level: Pick<Level<E>, 'build'>): Unified<E>[] {
  const given = boolsAsIntegers(given0, level);
  const literals = given.flatMap((o): RawLiteral[] => (o.kind === 'literal' ? [o.literal] : []));
  const operands = meetAsDoubles(given.flatMap((o) => (o.kind === 'typed' ? [o.type] : [])), literals) ? given.map((o) => asDouble(o, level)) : given;
  const reference = operands.find((o) => o.kind === 'typed');
  if (reference === undefined) {
    const literals = castLiteralsAsDuckDB(operands.map((o) => (o.kind === 'literal' ? defaultLiteral(o.literal) : NULL_LITERAL)));
    const first = literals.find((l) => l.type !== 'null');
    for (const l of literals) {
      if (first !== undefined && l.type !== 'null' && !compatible(first.type as ColumnType, l.type)) {
        fail('CANOPY_ERR_TYPE', `cannot compare ${first.type} ${String(first.value)} with ${l.type} ${String(l.value)}`);
      }
    }
    return literals;
  }
  return operands.map((o) => {
    if (o.kind === 'literal') return coerceLiteral(o.literal, reference, true);
    if (!compatible(reference.type, o.type)) {
      fail('CANOPY_ERR_TYPE', `cannot compare '${reference.text}' (${reference.type}) with '${o.text}' (${o.type})`);
    }
    return { expr: o.expr };
  });
}

const INT32_MIN = -(2n ** 31n);
const INT32_MAX = 2n ** 31n - 1n;

/**
 * Literals compared only with literals (`true = 1`, `'01' = 1`, `1 IN ('1', '2')`, `'y' =
 * true`), cast as DuckDB casts them: where booleans meet integers, the booleans become
 * integers (TRUE 1, FALSE 0: `true = 2` is FALSE); strings meeting only integers (or only
 * booleans) are cast to them, to DuckDB's INTEGER where every integer literal fits 32 bits
 * (`'3000000000' = 1` is an error there), else BIGINT (HUGEINT past it). Others (doubles,
 * decimals, timestamps) are left as they are, for the caller to compare or refuse.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for a string that does not convert (DuckDB's Conversion Error)
 */
function castLiteralsAsDuckDB(literals: TypedLiteral[]): TypedLiteral[] {
  const has = (t: ColumnType): boolean => literals.some((l) => l.type === t);
  // Strings meeting a DATE literal are cast to DATE, as DuckDB casts them (DATE '2024-01-31' = '2024-01-31 10:00' is TRUE).
  if (has('date') && !has('timestamp')) return literals.map((l) => (l.type === 'string' ? { value: parseDate(l.value as string, 'a DATE'), type: 'date' as const } : l));
  if (has('float64') || has('timestamp')) return literals;
  const ints = literals.flatMap((l) => (l.type === 'int64' || l.type === 'int128' ? [l.value as bigint] : []));
  const out = ints.length > 0 && has('bool') ? literals.map((l) => (l.type === 'bool' ? { value: l.value === true ? 1n : 0n, type: 'int64' as const } : l)) : literals;
  if (!has('string') || (ints.length === 0 && !has('bool'))) return out;
  const to: ColumnType = ints.length === 0 ? 'bool' : ints.every((v) => v >= INT64_MIN && v <= INT64_MAX) ? 'int64' : 'int128';
  const int32 = ints.length > 0 && ints.every((v) => v >= INT32_MIN && v <= INT32_MAX);
  return out.map((l) => {
    if (l.type !== 'string') return l;
    const value = castValue(l.value, to);
    if (int32 && typeof value === 'bigint' && (value < INT32_MIN || value > INT32_MAX)) {
      fail('CANOPY_ERR_OUT_OF_RANGE', `Could not convert string '${String(l.value)}' to INTEGER (DuckDB casts it to the 32-bit type of the integer it is compared with)`);
    }
    return { value, type: to === 'int128' && typeof value === 'bigint' && value >= INT64_MIN && value <= INT64_MAX ? 'int64' : to };
  });
}

/**
 * Where a condition meets an integer (`(x > 0) = 1`, a simple CASE over a condition with WHEN
 * 1), the condition's operands cast to BIGINT (TRUE 1, FALSE 0), as DuckDB casts BOOLEAN to
 * the integer's type to compare them (`true = 2` is FALSE there); otherwise as they are (a
 * condition against a DOUBLE or a decimal literal stays refused: DuckDB refuses `(x > 0) < 0.5`).
 */
function boolsAsIntegers<E>(given: readonly Operand<E>[], level: Pick<Level<E>, 'build'>): readonly Operand<E>[] {
  const integer = (o: Operand<E>): boolean => (o.kind === 'typed' ? o.type === 'int64' || o.type === 'int128' : o.literal.kind === 'number' && /^[+-]?\d+$/.test(o.literal.text));
  if (!given.some(integer) || !given.some((o) => o.kind === 'typed' && o.type === 'bool')) return given;
  return given.map((o) => (o.kind === 'typed' && o.type === 'bool' ? { kind: 'typed', expr: level.build({ kind: 'cast', arg: o.expr, type: 'int64', try: false, from: 'bool' }), type: 'int64', text: o.text } : o));
}

/** An int64 or int128 operand cast to float64 (other operands as they are). */
function asDouble<E>(o: Operand<E>, level: Pick<Level<E>, 'build'>): Operand<E> {
  if (o.kind !== 'typed' || (o.type !== 'int64' && o.type !== 'int128')) return o;
  return { kind: 'typed', expr: level.build({ kind: 'cast', arg: o.expr, type: 'float64', try: false, from: o.type }), type: 'float64', text: o.text };
}

export function compatible(a: ColumnType, b: ColumnType): boolean {
  const numeric = (t: ColumnType): boolean => t === 'int64' || t === 'int128' || t === 'float64';
  // A DATE meets a TIMESTAMP as its midnight (DuckDB casts the DATE to TIMESTAMP): the values canopy holds.
  const time = (t: ColumnType): boolean => t === 'timestamp' || t === 'date';
  return a === b || (numeric(a) && numeric(b)) || (time(a) && time(b));
}

/** A predicate inside a scalar expression, at the level of `leaves`. */
function conditionAt<E>(n: unknown, leaves: Leaves<E>): E {
  return lowerPredicate(n, {
    clause: leaves.clause,
    operand: (m) => readOperand(m, () => lowerScalar(m, leaves)),
    build: (p) => leaves.build(p),
  });
}
setConditionLowerer(conditionAt);
