import type { ColumnType, PartialSpec, Scalar } from '../types.ts';

/**
 * How an encoded state column travels in Arrow: the logical type of the column
 * (`binary`: Arrow Binary, the state as bytes; used by the HLL and DDSketch kinds).
 */
export type StateEncoding = 'float64' | 'int64' | 'utf8' | 'timestamp' | 'binary';

/**
 * One partial-state kind: the decomposable piece of an aggregate that leaves compute and
 * the tree merges. `S` is the state. Every kind is pure and total:
 * - `merge` is associative and commutative, `empty()` is its identity, inputs are not mutated;
 * - NULL inputs are skipped by the leaf (SQL); a state with no non-NULL input finalises to
 *   NULL except for counts, which finalise to 0.
 */
export interface StateKind<S> {
  readonly kind: PartialSpec['kind'];
  /** Type of the aggregate's argument column (null for count_star). */
  readonly argType: ColumnType | null;
  /** How the state is encoded in Arrow. */
  readonly encoding: StateEncoding;
  /** Identity of merge. */
  empty(): S;
  /** Combines two states; pure. */
  merge(a: S, b: S): S;
  /**
   * Optional, for accumulators (DuckDB's `combine` into a target state): like {@link merge},
   * but may update `acc` in place when `accOwned` (the caller holds the only reference to
   * it). Never mutates `b`. The result belongs to the caller unless it is `b` itself, or
   * `acc` itself while `acc` was not owned. Equal (by {@link equals}) to `merge(acc, b)`.
   */
  mergeOwned?(acc: S, accOwned: boolean, b: S): S;
  /** The final SQL value. */
  finalise(s: S): Scalar;
  /** State -> the value stored in the Arrow column (number, bigint, string, bytes or null). */
  encode(s: S): number | bigint | string | Uint8Array | null;
  /** The value read from the Arrow column -> state. Throws `Error` if it is not a valid state. */
  decode(v: unknown): S;
  /** Structural equality of two states (tests, replica comparison). */
  equals(a: S, b: S): boolean;
}
