/**
 * The `arg_min_null` / `arg_max_null` partials (DuckDB's arg_min_null, arg_max_null,
 * arg_min_nulls_last, arg_max_nulls_last): the best ordering value `v` seen, the argument `a`
 * of its row (NULL allowed), and whether rows tied on `v` with different arguments (`tie`:
 * DuckDB then returns the argument of whichever of them its scan met first, so the answer is
 * order-dependent). `v` is NULL only for the nulls_last forms, where a NULL ordering value
 * ranks after every value in both directions ({@link compareForOrder}). Among tied rows the
 * least argument is kept ({@link total} order, NULL last), so the state does not depend on
 * the shard split; merge is associative and commutative.
 */
import { compareForOrder } from '../compare.ts';
import type { ColumnType, Scalar } from '../types.ts';
import { tag, total, untag } from './argext.ts';
import type { StateKind } from './kind.ts';
import { sameScalar } from './uniform.ts';

/** null: no row counted; else the best ordering value, its row's argument, and whether a tied row had another argument. */
export type ArgNullState = { readonly v: Scalar; readonly a: Scalar; readonly tie: boolean } | null;

/** Arguments in {@link total} order, NULL last. */
function compareArgs(a: Scalar, b: Scalar): number {
  if (a === null || b === null) return a === b ? 0 : a === null ? 1 : -1;
  return total(a, b);
}

/** Adds a row (ordering value `v`, argument `a`) to state `s` for arg_min (`isMin`) or arg_max (pure). */
export function argNullAdd(isMin: boolean, s: ArgNullState, v: Scalar, a: Scalar): ArgNullState {
  return argNullMerge(isMin, s, { v, a, tie: false });
}

/** Merges two states (pure). */
export function argNullMerge(isMin: boolean, x: ArgNullState, y: ArgNullState): ArgNullState {
  if (x === null) return y;
  if (y === null) return x;
  const c = compareForOrder(x.v, y.v, !isMin);
  if (c !== 0) return c < 0 ? x : y;
  const tie = x.tie || y.tie || !sameScalar(x.a, y.a);
  const best = compareArgs(x.a, y.a) <= 0 ? x : y;
  // Equal ordering values may differ in form (-0.0 and 0.0): keep the least, so the state does not depend on the merge order.
  const v = compareArgs(x.v, y.v) <= 0 ? x.v : y.v;
  return tie === best.tie && Object.is(v, best.v) ? best : { v, a: best.a, tie };
}

const tagged = (s: Scalar): string | null => (s === null ? null : tag(s));

/**
 * The state kind. Encoded as UTF-8 JSON `[v, a, tie]`: tagged scalars (src/merge/kinds/argext.ts)
 * or null, and 0 or 1; finalises to the argument.
 */
export function argNullKind(kind: 'arg_min_null' | 'arg_max_null', argType: ColumnType | null): StateKind<ArgNullState> {
  const isMin = kind === 'arg_min_null';
  return {
    kind,
    argType,
    encoding: 'utf8',
    empty: () => null,
    merge: (x, y) => argNullMerge(isMin, x, y),
    finalise: (s) => (s === null ? null : s.a),
    encode: (s) => (s === null ? null : JSON.stringify([tagged(s.v), tagged(s.a), s.tie ? 1 : 0])),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string') throw new Error(`bad ${kind} state ${String(v)}`);
      const t: unknown = JSON.parse(v);
      if (!Array.isArray(t) || t.length !== 3 || (t[2] !== 0 && t[2] !== 1)) throw new Error(`bad ${kind} state ${v}`);
      return { v: t[0] === null ? null : untag(t[0]), a: t[1] === null ? null : untag(t[1]), tie: t[2] === 1 };
    },
    equals: (x, y) => (x === null || y === null ? x === y : sameScalar(x.v, y.v) && sameScalar(x.a, y.a) && x.tie === y.tie),
  };
}
