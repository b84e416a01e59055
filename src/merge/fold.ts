/** Plan-time rewrite of equality chains into IN lists (pure). */
import type { CmpOp, ColumnType, Expr, Scalar } from './types.ts';

/**
 * Rewrites OR chains of equalities of one column with literals into one IN list, and AND
 * chains of `<>` into NOT IN, which SQL defines as those chains (the same three-valued
 * result row by row), so a 7,749-term `delay = 0 OR delay = 1 OR ...` costs one hash lookup
 * per row instead of 7,749 passes over the batch. Only literals whose IN path compares
 * exactly as `=` does are folded: numbers and safe-integer bigints against int64/float64
 * columns, strings against string columns. Other operands are kept in their order.
 * IN lists of such columns get their safe-integer bigints as numbers ({@link numericInList}).
 * Pure; the root folds before sending a plan (a 7,749-term chain is 600 kB of JSON per
 * request), a leaf again over its shard's column types.
 */
export function foldEqualityChains(e: Expr, typeOf: (column: string) => ColumnType | undefined): Expr {
  switch (e.kind) {
    case 'and':
    case 'or': {
      const args = e.args.map((a) => foldEqualityChains(a, typeOf));
      const op: CmpOp = e.kind === 'or' ? '=' : '!=';
      const byColumn = new Map<string, { terms: Expr[]; values: Scalar[] }>();
      const rest: Expr[] = [];
      for (const a of args) {
        const t = foldableTerm(a, op, typeOf);
        if (t === null) rest.push(a);
        else {
          const group = byColumn.get(t.column);
          if (group === undefined) byColumn.set(t.column, { terms: [a], values: [t.value] });
          else {
            group.terms.push(a);
            group.values.push(t.value);
          }
        }
      }
      const folded: Expr[] = [];
      for (const [column, g] of byColumn) {
        if (g.terms.length === 1) folded.push(g.terms[0]!);
        else folded.push({ kind: 'in', arg: { kind: 'col', name: column }, values: g.values, negated: e.kind === 'and' });
      }
      const all = [...folded, ...rest];
      return all.length === 1 ? all[0]! : { kind: e.kind, args: all };
    }
    case 'not':
      return { kind: 'not', arg: foldEqualityChains(e.arg, typeOf) };
    case 'in':
      return numericInList(e, typeOf);
    default:
      return e;
  }
}

/** Largest magnitude a bigint may have to travel as an exact double. */
const SAFE = 2n ** 53n;

/**
 * An IN list over an int64/float64 column with its safe-integer bigint literals written as
 * numbers (the IN path compares them exactly alike): on the wire a bigint is an object
 * (`{"$bigint": "..."}`), and a 15,000-value list of them cost every leaf request ~20-50 ms
 * of JSON parsing, the numbers ~1 ms. Lists holding another literal are left as they are.
 */
function numericInList(e: Extract<Expr, { kind: 'in' }>, typeOf: (column: string) => ColumnType | undefined): Expr {
  if (e.arg.kind !== 'col') return e;
  const type = typeOf(e.arg.name);
  if (type !== 'int64' && type !== 'float64') return e;
  let bigints = false;
  for (const v of e.values) {
    if (typeof v === 'bigint') {
      if (v >= SAFE || v <= -SAFE) return e;
      bigints = true;
    } else if (v !== null && typeof v !== 'number') return e;
  }
  return bigints ? { ...e, values: e.values.map((v) => (typeof v === 'bigint' ? Number(v) : v)) } : e;
}

function foldableTerm(e: Expr, op: CmpOp, typeOf: (column: string) => ColumnType | undefined): { column: string; value: Scalar } | null {
  if (e.kind !== 'cmp' || e.op !== op) return null;
  const [c, l] = e.left.kind === 'col' && e.right.kind === 'lit' ? [e.left, e.right] : e.right.kind === 'col' && e.left.kind === 'lit' ? [e.right, e.left] : [null, null];
  if (c === null || l === null || c.kind !== 'col' || l.kind !== 'lit') return null;
  const type = typeOf(c.name);
  const v = l.value;
  if (type === 'string') return typeof v === 'string' ? { column: c.name, value: v } : null;
  if (type !== 'int64' && type !== 'float64') return null;
  if (typeof v === 'number') return { column: c.name, value: v };
  if (typeof v === 'bigint' && v < SAFE && v > -SAFE) return { column: c.name, value: Number(v) };
  return null;
}

