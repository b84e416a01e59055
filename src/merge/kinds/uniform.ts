/**
 * The `uniform` partial (first / last / arbitrary): whether every row of a group holds the
 * same value, NULL included, and a representative. DuckDB's first(x) is the value of the
 * first row its scan meets (NULL when that row's x is NULL), last(x) the last one's: the
 * answer depends on the scan order unless every row holds the same value, which this state
 * tells. The state is null for no row, else `{ v, mixed }`: `mixed` is false when every row's
 * value is `v` (same type and value; -0.0 differs from 0.0, NaN equals NaN, NULL equals
 * NULL); `v` is the least value in canopy's value order ({@link total}: -0.0 before 0.0),
 * NULL only when every row is NULL. Merge is associative and commutative, so the state does
 * not depend on the shard split or the merge order.
 */
import type { ColumnType, Scalar } from '../types.ts';
import { tag, total, untag } from './argext.ts';
import type { StateKind } from './kind.ts';

/** null: no row; else the least value (NULL when every row is NULL) and whether two rows differ. */
export type UniformState = { readonly v: Scalar; readonly mixed: boolean } | null;

/** Same type and value: NULL = NULL, NaN = NaN, -0.0 ≠ 0.0 (Object.is). */
export function sameScalar(a: Scalar, b: Scalar): boolean {
  return typeof a === typeof b && Object.is(a, b);
}

/** The lesser of two values, NULL last ({@link total} order). */
function least(a: Scalar, b: Scalar): Scalar {
  if (a === null) return b;
  if (b === null) return a;
  return total(a, b) <= 0 ? a : b;
}

/** Adds value `x` (of one more row) to state `s` (pure). */
export function uniformAdd(s: UniformState, x: Scalar): UniformState {
  if (s === null) return { v: x, mixed: false };
  const mixed = s.mixed || !sameScalar(s.v, x);
  const v = least(s.v, x);
  return mixed === s.mixed && v === s.v ? s : { v, mixed };
}

/** Merges two states (pure). */
export function uniformMerge(a: UniformState, b: UniformState): UniformState {
  if (a === null) return b;
  if (b === null) return a;
  return { v: least(a.v, b.v), mixed: a.mixed || b.mixed || !sameScalar(a.v, b.v) };
}

/**
 * The uniform state kind over any column type. Encoded as UTF-8 JSON `[v, mixed]`, `v` a
 * tagged scalar (src/merge/kinds/argext.ts) or null, `mixed` 0 or 1; finalises to `v`.
 */
export function uniformKind(argType: ColumnType | null): StateKind<UniformState> {
  return {
    kind: 'uniform',
    argType,
    encoding: 'utf8',
    empty: () => null,
    merge: uniformMerge,
    finalise: (s) => (s === null ? null : s.v),
    encode: (s) => (s === null ? null : JSON.stringify([s.v === null ? null : tag(s.v), s.mixed ? 1 : 0])),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string') throw new Error(`bad uniform state ${String(v)}`);
      const pair: unknown = JSON.parse(v);
      if (!Array.isArray(pair) || pair.length !== 2 || (pair[1] !== 0 && pair[1] !== 1)) throw new Error(`bad uniform state ${v}`);
      // A NULL representative means every row was NULL: never mixed.
      if (pair[0] === null && pair[1] === 1) throw new Error(`bad uniform state ${v}: NULL yet mixed`);
      return { v: pair[0] === null ? null : untag(pair[0]), mixed: pair[1] === 1 };
    },
    equals: (a, b) => (a === null || b === null ? a === b : sameScalar(a.v, b.v) && a.mixed === b.mixed),
  };
}
