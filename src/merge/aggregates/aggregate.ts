/**
 * The interface every aggregate implements, after DuckDB's `AggregateFunction`
 * (initialize / update / combine / finalize / statistics, duckdb/duckdb
 * src/include/duckdb/function/aggregate_function.hpp) and mosaic's plan-time decomposition
 * into sufficient statistics (uwdata/mosaic packages/mosaic/core/src/preagg/sufficient-statistics.ts):
 * - `decompose` (plan time): the partial states the aggregate needs, its output type, or a
 *   coded error when it cannot be computed;
 * - leaf `update`: an {@link Accumulator} per partial kind, over typed vectors and a selection;
 * - combine: the partial's state kind (src/merge/kinds: empty / merge / encode / decode);
 * - `finalise`: the SQL value from the merged states;
 * - `bounds`: the cell's label and interval given the missing shards' statistics;
 * - `topk`: when `GROUP BY ... ORDER BY agg LIMIT k` may be truncated per node.
 */
import type { Cell } from '../bounds.ts';
import type { GroupEntry, PartialLayout } from '../partial.ts';
import type { AggregateFn, ColumnType, Expr, OutExpr, PartialSpec, Scalar } from '../types.ts';
import type { ValueVec } from '../vectors.ts';
import type { Envelope } from './envelope.ts';

/** An aggregate call in a post-aggregation expression. */
export type AggExpr = Extract<OutExpr, { kind: 'agg' }>;

/** One argument of an aggregate call as planned: a row-level expression, its type and its SQL text. */
export interface AggArg {
  readonly expr: Expr;
  readonly type: ColumnType;
  readonly text: string;
}

/** What an aggregate call is computed from: its partials (the planner deduplicates them) and output type. */
export interface Decomposition {
  readonly partials: readonly PartialSpec[];
  readonly type: ColumnType;
}

/**
 * Options of a call read by the planner: the quantile `q` in [0, 1] (quantile only),
 * FILTER (WHERE ...), which the planner applies to every partial of the decomposition, and
 * string_agg's ORDER BY, separator and DISTINCT.
 */
export interface CallOptions {
  readonly q?: number;
  /** quantile_disc only: `q` is a DOUBLE literal in DuckDB (see OutExpr's qDouble). */
  readonly qDouble?: true;
  readonly filter?: Expr;
  /** string_agg only: the ORDER BY keys inside the call (see PartialSpec.order). */
  readonly order?: PartialSpec['order'];
  /** string_agg only: the separator (null: NULL) and DISTINCT, kept on the OutExpr for the finaliser. */
  readonly sep?: string | null;
  readonly distinct?: boolean;
}

/**
 * Group top-k truncation rule: given the ORDER BY direction and a test of the ordering
 * partial's argument against every shard's catalog min/max (`proves`: true when the test holds
 * in every shard; false when a shard lacks statistics or the argument is not a column), the
 * score sign and how scores combine, or null when truncation is not safe.
 */
export type TopKRule = (
  desc: boolean,
  proves: (test: (min: number, max: number) => boolean) => boolean,
) => { readonly sign: 1 | -1; readonly combine: 'add' | 'max' } | null;

/**
 * How SQL calls an aggregate written as a plain function call (`stddev(x)`, `arg_min(a, v)`):
 * its names (the first is the aggregate's own, the others aliases, as DuckDB has them) and
 * its arguments in order, each a row-level `value` or a `condition` (a predicate).
 * Absent: the planner reads the aggregate from its own syntax (count, sum, ..., DISTINCT,
 * approx_quantile).
 */
export interface CallSyntax {
  readonly names: readonly string[];
  readonly args: readonly ('value' | 'condition')[];
}

/** One aggregate: everything about it, in one place. */
export interface AggregateDef {
  readonly fn: AggregateFn;
  readonly call?: CallSyntax;
  /**
   * The partials and output type of a call over `args`.
   * @throws CanopyError CANOPY_ERR_TYPE (argument types), CANOPY_ERR_BAD_QUERY (arity)
   */
  decompose(args: readonly AggArg[], options: CallOptions): Decomposition;
  /** The SQL value of a call from a group's merged states. */
  finalise(e: AggExpr, g: GroupEntry, layout: PartialLayout): Scalar;
  /**
   * The cell's label and interval when not exact, or null when exact. `env` holds the
   * statistics of the missing shards that may hold the group (null: none).
   */
  bounds(e: AggExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null;
  /**
   * True when the value may be uncertain with every shard answered (sketches): HAVING and
   * a LIMIT cut over it prove the row set only when the cells are exact.
   */
  readonly sketch: boolean;
  /** Top-k truncation rule; null: never truncated (not monotone under merge). */
  readonly topk: TopKRule | null;
}

/**
 * The leaf side of one partial: states of one partial over group ids, in growable typed
 * arrays, updated one batch at a time (no per-row closures or allocation on the fast paths).
 */
export interface Accumulator {
  /**
   * Updates states for the selected rows (`sel[0..n)`, or rows 0..n-1 when `sel` is null)
   * with group ids `gids[0..n)` (all group 0 when `gids` is null); `inputs` are the batch's
   * vectors of the partial's {@link PartialDef.inputs}, in order; `groups` is the number of groups.
   */
  update(inputs: readonly ValueVec[], sel: Int32Array | null, gids: Int32Array | null, n: number, groups: number): void;
  /**
   * Optional: {@link update} over only the selected rows whose FILTER truth `pass[row]` is
   * TRUE (2; tri-state as the leaf's predicates give it), with `gids[j]` the group of
   * selection position j, without narrowing the selection first (one pass instead of two).
   */
  updatePassing?(inputs: readonly ValueVec[], pass: Uint8Array, sel: Int32Array | null, gids: Int32Array | null, n: number, groups: number): void;
  /**
   * Optional, for the leaf's fused group loop (src/leaf/groupby.ts): a COUNT adds `rows[g]`
   * to each group `g < groups`: the rows of group g in a batch whose argument (if any) has no
   * NULL on the selected rows, or for COUNT(*) FILTER its rows where the FILTER is TRUE, as
   * the caller counted them; the same states {@link update} would give.
   */
  addRowCounts?(rows: Float64Array, groups: number): void;
  /**
   * Optional, for the fused group loop: an int64 SUM adds per-group sums `sums[g]` of a batch
   * of `n` selected rows without NULLs, each |value| <= `maxAbs` with `n · maxAbs < 2^53`
   * (so every `sums[g]` is exact), `rows[g]` the rows of group g (a group with rows has a sum).
   */
  addGroupSums?(sums: Float64Array, rows: Float64Array, groups: number, n: number, maxAbs: number): void;
  /**
   * Optional, for the fused group loop: a `moments` power partial adds per group g < groups
   * that has rows (`rows[g] > 0`, none of them NULL) its power sum of a batch, one of Σx²,
   * Σx³, Σx⁴ (`pows[3g]`, `pows[3g + 1]`, `pows[3g + 2]`: the loop computes the three once
   * for every power partial of its vector); the same states {@link update} gives, up to the
   * order in which doubles were added.
   */
  addGroupPowers?(pows: Float64Array, rows: Float64Array, groups: number): void;
  /**
   * Optional, for the fused group loop: MIN (`extremeIsMin`) or MAX over numbers takes per
   * group g < groups that has rows (`rows[g] > 0`, none of them NULL) the extreme `ext[g]` of
   * a batch, found with {@link betterMin} / betterMax (src/merge/aggregates/kernels.ts):
   * the same states {@link update} gives.
   */
  addGroupExtreme?(ext: Float64Array, rows: Float64Array, groups: number): void;
  /** With {@link addGroupExtreme}: whether the partial is a MIN (else a MAX). */
  readonly extremeIsMin?: boolean;
  /**
   * Optional: true when the accumulator keeps nothing of the rows and every state is 0
   * (a `moments` pair partial: its sums are filled per shard after the scan, by
   * withShardMoments). The leaf's group loops leave it out, so it does not keep the other
   * partials from the fused or per-code loops.
   */
  readonly inert?: boolean;
  /** The partial state of group `g` (as the matching StateKind expects). */
  state(g: number): unknown;
  /**
   * Optional: the states of groups `0..n` as one Float64Array (a copy), when each state is a
   * number (COUNT): a state column without a JS value per group; null when it cannot.
   */
  stateColumn?(n: number): Float64Array | null;
}

/** The leaf side of one partial kind. */
export interface PartialDef {
  readonly kind: PartialSpec['kind'];
  /** Row-level expressions whose vectors the leaf passes to `update`, in order. */
  inputs(spec: PartialSpec, partials: readonly PartialSpec[]): readonly Expr[];
  /** A fresh accumulator; `argType` is the type of the spec's argument (null: none). */
  accumulator(spec: PartialSpec, argType: ColumnType | null, partials: readonly PartialSpec[]): Accumulator;
  /** Estimated bytes of one group's state at a leaf (memory budget). */
  readonly groupBytes: number;
}
