/**
 * Affine int64 arguments of SUM: `a·x + b` over one int64 column `x` with integer literals
 * (`x * 2`, `-x`, `x + 1`, `(x - 3) * 4`, ...). Σ(a·x + b) over the non-NULL rows is
 * a·Σx + b·count(x), so a leaf sums the column itself (one pass, no intermediate vector) and
 * scales at the end: the exact answer of the row-by-row sum, as ClickHouse's
 * `optimize_arithmetic_operations_in_aggregate_functions` rewrites sum(x * c) to c * sum(x).
 * Exactness needs every row's value, and every intermediate value of the expression, inside
 * int64 (DuckDB refuses an overflow): a batch whose values could leave it takes the row-by-row
 * path with the expression's own semantics (src/merge/scalar.ts), which refuses as DuckDB does.
 */
import type { Expr, Scalar } from '../types.ts';
import { evalScalarNode } from '../scalar.ts';

/** `a·x + b`, and a bound on every intermediate |value| of the expression given max|x|. */
export interface Affine {
  /** The one column the expression reads. */
  readonly col: Extract<Expr, { kind: 'col' }>;
  readonly a: bigint;
  readonly b: bigint;
  /** Every intermediate |value| is at most p·max|x| + q (p, q ≥ 0; a sum over the nodes). */
  readonly p: number;
  readonly q: number;
}

/**
 * A node's form: `a·x + b`; its own |value| ≤ P·max|x| + Q (triangle inequality); SP, SQ the
 * sums of P and Q over the node's subtree (bounding every value computed inside it).
 */
interface Lin {
  readonly col: Extract<Expr, { kind: 'col' }> | null;
  readonly a: bigint;
  readonly b: bigint;
  readonly P: number;
  readonly Q: number;
  readonly SP: number;
  readonly SQ: number;
}

function intLiteral(e: Expr): bigint | null {
  if (e.kind !== 'lit' || e.type !== 'int64') return null;
  const v = e.value;
  if (typeof v === 'bigint') return v;
  return typeof v === 'number' && Number.isInteger(v) ? BigInt(v) : null;
}

const abs = (v: bigint): number => Math.abs(Number(v));

function node(col: Lin['col'], a: bigint, b: bigint, P: number, Q: number, kids: readonly Lin[]): Lin {
  return { col, a, b, P, Q, SP: kids.reduce((s, k) => s + k.SP, P), SQ: kids.reduce((s, k) => s + k.SQ, Q) };
}

function lin(e: Expr): Lin | null {
  if (e.kind === 'col') return node(e, 1n, 0n, 1, 0, []);
  const c = intLiteral(e);
  if (c !== null) return node(null, 0n, c, 0, abs(c), []);
  if (e.kind === 'neg' && e.type === 'int64') {
    const x = lin(e.arg);
    return x === null ? null : node(x.col, -x.a, -x.b, x.P, x.Q, [x]);
  }
  if (e.kind !== 'arith' || e.type !== 'int64') return null;
  const l = lin(e.left);
  const r = lin(e.right);
  if (l === null || r === null) return null;
  if (l.col !== null && r.col !== null && l.col.name !== r.col.name) return null;
  const col = l.col ?? r.col;
  switch (e.op) {
    case '+':
      return node(col, l.a + r.a, l.b + r.b, l.P + r.P, l.Q + r.Q, [l, r]);
    case '-':
      return node(col, l.a - r.a, l.b - r.b, l.P + r.P, l.Q + r.Q, [l, r]);
    case '*': {
      // Affine only when one side is a constant.
      const [x, k] = l.col === null ? [r, l.b] : r.col === null ? [l, r.b] : [null, 0n];
      if (x === null) return null;
      const m = abs(k);
      return node(col, x.a * k, x.b * k, x.P * m, x.Q * m, [l, r]);
    }
    default:
      return null;
  }
}

/**
 * The affine form of an int64 expression over one column, or null (a bare column, no column,
 * two columns, a non-constant product, division, modulo, or anything else).
 */
export function affineOf(e: Expr | null): Affine | null {
  if (e === null || e.kind === 'col') return null;
  const f = lin(e);
  if (f === null || f.col === null) return null;
  // Large constants (whose own arithmetic could overflow) keep the general path.
  if (abs(f.a) >= 2 ** 53 || abs(f.b) >= 2 ** 53 || f.SQ >= 2 ** 62) return null;
  return { col: f.col, a: f.a, b: f.b, p: f.SP, q: f.SQ };
}

/** Whether values of |x| ≤ `maxAbs` keep every intermediate value of `f` below 2^62 in magnitude. */
export function affineSafe(f: Affine, maxAbs: number): boolean {
  return f.p * maxAbs + f.q < 2 ** 62;
}

/**
 * The expression's value for one row with column value `x` (row-by-row semantics).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE on int64 overflow, as the leaf's evaluator
 */
export function affineRow(e: Expr, x: Scalar): Scalar {
  const ev = (n: Expr): Scalar => (n.kind === 'col' ? x : evalScalarNode(n as never, ev));
  return ev(e);
}
