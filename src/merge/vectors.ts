/**
 * Column vectors of one batch, as the leaf's scan produces them and the aggregate kernels
 * (src/merge/aggregates) consume them: plain typed arrays with an Arrow validity bitmap.
 * Pure data; the leaf builds them (src/leaf/shard.ts), nothing here reads Arrow.
 */
import type { ColumnType, Scalar } from './types.ts';

/**
 * Validity of one batch column: null when the batch has no NULLs, else a bitmap and
 * the bit offset of row 0 (Arrow layout: bit (offset + i) set = row i is valid).
 */
export interface Validity {
  readonly bitmap: Uint8Array;
  readonly offset: number;
}

/** True when row `i` is valid (not NULL). */
export function isValid(v: Validity | null, i: number): boolean {
  if (v === null) return true;
  const b = v.offset + i;
  return ((v.bitmap[b >> 3]! >> (b & 7)) & 1) === 1;
}

/**
 * Numbers as doubles: float64 and timestamp (µs) columns, and int64 columns whose batch
 * values all fit in 53 bits (then `maxAbs` bounds |value|, for exact integer sums).
 */
export interface NumView {
  readonly t: 'num';
  readonly values: Float64Array;
  readonly valid: Validity | null;
  readonly maxAbs: number;
  /** For int64 columns: the raw words, low then high 32 bits of each value. */
  readonly words: Int32Array | null;
  /**
   * For int64 columns of a prepared shard whose every slot (NULL slots included) lies in
   * [-(2^30 - 1), 2^30 - 1]: the values as int32, for branch-free integer kernels (the
   * leaf's comparisons, src/leaf/int32.ts); null or absent otherwise.
   */
  readonly i32?: Int32Array | null;
  /**
   * Statistics of the batch's values, computed once when the shard is loaded (a column of a
   * prepared shard has them; vectors computed by an expression do not). Aggregates over every
   * row of a batch in one group read them instead of the rows.
   */
  readonly stats?: NumStats;
}

/**
 * Statistics of one batch of a numeric column, over its non-NULL values (the per-batch
 * statistics of Parquet/ORC row groups, used the way ClickHouse uses its minmax indexes):
 * exact, so an aggregate answered from them equals the one computed from the rows.
 */
export interface NumStats {
  /** Rows of the batch the statistics cover (NULLs included). */
  readonly rows: number;
  /** Non-NULL rows. */
  readonly count: number;
  /** MIN and MAX in canopy's value order (NaN above every number, -0 below 0); meaningless when `count` is 0. */
  readonly min: number;
  readonly max: number;
  /** The exact sum for int64 values whose partial sums all stay below 2^53 in magnitude; null otherwise (float64, or it could overflow). */
  readonly sum: number | null;
  /** Welford's running mean and sum of squared deviations (M2) over the values, as doubles (0 when `count` is 0). */
  readonly mean: number;
  readonly m2: number;
  /** Σ x², Σ x³, Σ x⁴ over the values, as doubles (the estimates' power sums; approximate, not exact). */
  readonly s2: number;
  readonly s3: number;
  readonly s4: number;
  /**
   * Every row is non-NULL and finite, and the values never decrease in row order (a
   * time-ordered log's timestamps): a key computed by a monotone function (a time bucket)
   * then takes each value in one run of rows (src/leaf/groupby.ts, runs of buckets).
   */
  readonly ascending: boolean;
}

/** int64 batches holding values beyond 2^53: read as bigint (slow path, exact). */
export interface BigView {
  readonly t: 'big';
  readonly values: BigInt64Array;
  readonly valid: Validity | null;
}

/**
 * Dictionary-encoded strings, with codes translated to the shard-wide string table
 * (`strings`, and `rank` giving each code's position in sorted order).
 */
export interface StrView {
  readonly t: 'str';
  readonly codes: Int32Array;
  readonly valid: Validity | null;
  readonly strings: readonly string[];
  readonly rank: Int32Array;
  /**
   * For a computed vector whose codes keep their meaning across batches: the append-only
   * table `strings` is a prefix of (code c names `canon[c]` in every batch that has it), so a
   * cache per entry can outlive the batch. It holds each string once (a GROUP BY gives each
   * new entry a new group without looking its string up).
   */
  readonly canon?: readonly string[];
}

/** One column of one batch. */
export type ColumnView = NumView | BigView | StrView;

/** A batch-wide value: a column view, or a constant. */
export type ValueVec = ColumnView | { readonly t: 'const'; readonly value: Scalar };

/** The SQL value of row `i` of a value vector; int64 columns give bigint. */
export function scalarAt(v: ValueVec, type: ColumnType, i: number): Scalar {
  switch (v.t) {
    case 'const':
      return v.value;
    case 'num':
      if (!isValid(v.valid, i)) return null;
      return type === 'int64' || type === 'int128' ? BigInt(v.values[i]!) : type === 'bool' ? v.values[i] !== 0 : v.values[i]!;
    case 'big':
      return isValid(v.valid, i) ? v.values[i]! : null;
    case 'str':
      return isValid(v.valid, i) ? v.strings[v.codes[i]!]! : null;
  }
}
