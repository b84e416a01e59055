import { compareValues } from '../compare.ts';
import type { ColumnType, Scalar } from '../types.ts';
import type { StateKind } from './kind.ts';

/**
 * The state of arg_min / arg_max: the best ordering value seen and the argument of its row;
 * `tie` when rows tied on the best value hold different arguments (DuckDB's answer then
 * depends on its scan order); null when no row had both non-NULL.
 */
export type ArgExtState = { readonly v: Exclude<Scalar, null>; readonly a: Exclude<Scalar, null>; readonly tie?: boolean } | null;

/**
 * Merges two arg_min (`isMin`) / arg_max states (pure): the better ordering value wins; on a
 * tie the least argument ({@link argExtBetter}), and `tie` set when their arguments differ.
 */
export function argExtMerge(isMin: boolean, x: ArgExtState, y: ArgExtState): ArgExtState {
  if (x === null) return y;
  if (y === null) return x;
  if (compareValues(x.v, y.v) !== 0) return argExtBetter(isMin, y.v, y.a, x.v, x.a) ? y : x;
  const tie = x.tie === true || y.tie === true || typeof x.a !== typeof y.a || !Object.is(x.a, y.a);
  const best = total(y.a, x.a) < 0 ? y : x;
  // Equal ordering values may differ in form (-0.0 and 0.0): keep the least, so the state does not depend on the merge order.
  const v = total(y.v, x.v) < 0 ? y.v : x.v;
  return tie === (best.tie === true) && Object.is(v, best.v) ? best : tie ? { v, a: best.a, tie } : { v, a: best.a };
}

/**
 * compareValues with -0.0 below 0.0 as a tie-break only, so that the argument kept does not
 * depend on the shard split or arrival order (the values compare equal in SQL).
 */
export function total(a: Exclude<Scalar, null>, b: Exclude<Scalar, null>): number {
  const c = compareValues(a, b);
  if (c !== 0 || a !== 0 || b !== 0) return c;
  return Object.is(a, -0) ? (Object.is(b, -0) ? 0 : -1) : Object.is(b, -0) ? 1 : 0;
}

/**
 * Is (v, a) a better arg_min (`isMin`) or arg_max state than the current (cv, ca)? The
 * better ordering value wins; among equal ordering values (a tie, which DuckDB resolves
 * by scan order; -0.0 ties with 0.0, NaN with NaN) the smallest argument wins, in canopy's
 * value order (-0.0 before 0.0): deterministic, so the answer does not depend on the shard split.
 */
export function argExtBetter(isMin: boolean, v: Exclude<Scalar, null>, a: Exclude<Scalar, null>, cv: Exclude<Scalar, null>, ca: Exclude<Scalar, null>): boolean {
  const c = compareValues(v, cv);
  if (c !== 0) return isMin ? c < 0 : c > 0;
  return total(a, ca) < 0;
}

/** A scalar as tagged text: the type survives the wire (bigint, -0, NaN, ±Infinity, booleans). */
export function tag(s: Exclude<Scalar, null>): string {
  if (typeof s === 'bigint') return `b${s}`;
  if (typeof s === 'number') return `n${Object.is(s, -0) ? '-0' : String(s)}`;
  if (typeof s === 'boolean') return s ? 't' : 'f';
  return `s${s}`;
}

/**
 * The scalar of {@link tag}'s text.
 * @throws Error for text that is not a tagged scalar
 */
export function untag(t: unknown): Exclude<Scalar, null> {
  if (typeof t !== 'string' || t.length === 0) throw new Error(`bad arg_min/arg_max value ${String(t)}`);
  const body = t.slice(1);
  switch (t[0]) {
    case 'b':
      return BigInt(body);
    case 'n': {
      const x = Number(body);
      if (Number.isNaN(x) && body !== 'NaN') throw new Error(`bad arg_min/arg_max number ${body}`);
      return x;
    }
    case 't':
      return true;
    case 'f':
      return false;
    case 's':
      return body;
    default:
      throw new Error(`bad arg_min/arg_max value ${t}`);
  }
}

/**
 * arg_min(arg, val) / arg_max(arg, val) (DuckDB's min_by / max_by): the state is the best
 * `val` over rows where both are non-NULL and that row's `arg` (ties: see {@link argExtBetter}
 * and {@link argExtMerge}). Encoded as UTF-8 JSON `[val, arg]` of tagged scalars, `[val, arg, 1]`
 * when tied rows differ; finalises to `arg`.
 */
export function argExtKind(kind: 'arg_min' | 'arg_max', argType: ColumnType | null): StateKind<ArgExtState> {
  const isMin = kind === 'arg_min';
  return {
    kind,
    argType,
    encoding: 'utf8',
    empty: () => null,
    merge: (x, y) => argExtMerge(isMin, x, y),
    finalise: (s) => (s === null ? null : s.a),
    encode: (s) => (s === null ? null : JSON.stringify(s.tie === true ? [tag(s.v), tag(s.a), 1] : [tag(s.v), tag(s.a)])),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string') throw new Error(`bad ${kind} state ${String(v)}`);
      const pair: unknown = JSON.parse(v);
      if (!Array.isArray(pair) || (pair.length !== 2 && !(pair.length === 3 && pair[2] === 1))) throw new Error(`bad ${kind} state ${v}`);
      return pair.length === 3 ? { v: untag(pair[0]), a: untag(pair[1]), tie: true } : { v: untag(pair[0]), a: untag(pair[1]) };
    },
    equals: (x, y) => (x === null || y === null ? x === y : Object.is(x.v, y.v) && Object.is(x.a, y.a) && (x.tie === true) === (y.tie === true)),
  };
}
