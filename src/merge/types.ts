/**
 * Core types shared by every tier: column types, scalar values, the query plan
 * (and the plan fragment shipped to children), shard catalog and provenance.
 * Pure data: no I/O, no clocks.
 */

/**
 * Logical column types.
 * - `int64`: 64-bit signed integers (Arrow Int64; JSON: number, or decimal string beyond 2^53).
 * - `float64`: IEEE doubles.
 * - `string`: UTF-8 text, dictionary-encoded in shards.
 * - `timestamp`: UTC instants in microseconds since the epoch, held exactly within ±2^53 µs
 *   (Arrow Float64 in shards; answers: Arrow `timestamp[us, tz=UTC]`, JSON ISO-8601 with `Z`).
 * - `bool`: booleans (results of predicates only; not a stored column type).
 * - `int128`: integers beyond int64, the type of SUM over an int64 column (DuckDB's HUGEINT);
 *   values are `bigint` (Arrow Decimal128(38, 0); JSON: number, or decimal string beyond 2^53).
 *   Output only, never stored.
 * - `date`: DuckDB's DATE, a UTC calendar day, held as the `timestamp` of its midnight (µs since
 *   the epoch, a whole number of days): it travels, sorts, compares and groups exactly as a
 *   timestamp does, and differs only where DuckDB's DATE does (its text `2024-01-31`, date ±
 *   integer days, date - date in days; answers: Arrow `Date32` (days), JSON `"2024-01-31"`).
 *   Computed only (a cast, a DATE literal, a function), never stored.
 */
export type ColumnType = 'int64' | 'float64' | 'string' | 'timestamp' | 'bool' | 'int128' | 'date';

/**
 * A single value. `int64` values are `bigint`; `float64`, `timestamp` and `date` (µs) are `number`; `int128` is `bigint`;
 * `string` is `string`; SQL NULL is `null`.
 */
export type Scalar = number | bigint | string | boolean | null;

/** One column of a table schema. */
export interface ColumnInfo {
  readonly name: string;
  readonly type: ColumnType;
}

/** A table's name and ordered columns. */
export interface TableSchema {
  readonly name: string;
  readonly columns: readonly ColumnInfo[];
}

/**
 * Units accepted by `date_trunc` (UTC; weeks start on Monday, as in DuckDB and PostgreSQL;
 * decade, century and millennium start at years divisible by 10, 100 and 1000, as DuckDB).
 */
export type TruncUnit =
  | 'microsecond'
  | 'millisecond'
  | 'second'
  | 'minute'
  | 'hour'
  | 'day'
  | 'week'
  | 'month'
  | 'quarter'
  | 'year'
  | 'decade'
  | 'century'
  | 'millennium';

/**
 * Fields of `extract(field FROM ts)` / `date_part('field', ts)`: all int64 except `epoch`
 * (float64 seconds, with the fraction). `dow` is 0 = Sunday, `isodow` 7 = Sunday, `doy` 1..366,
 * `week` the ISO week, `millisecond`/`microsecond` include the seconds (DuckDB); `isoyear` the
 * ISO-8601 week-numbering year, `yearweek` isoyear·100 ± ISO week, `decade` year / 10,
 * `century`/`millennium` counted from year 1 (negative before it), `era` 1 for AD and 0 for BC,
 * `julian` (float64) the Julian day number with the fraction of the day; `epoch_ms` / `epoch_us`
 * (the functions epoch_ms(ts), epoch_us(ts), not date_part fields) ms truncated toward zero / µs.
 */
export type ExtractField =
  | 'year'
  | 'quarter'
  | 'month'
  | 'week'
  | 'day'
  | 'hour'
  | 'minute'
  | 'second'
  | 'millisecond'
  | 'microsecond'
  | 'dow'
  | 'isodow'
  | 'doy'
  | 'epoch'
  | 'isoyear'
  | 'yearweek'
  | 'decade'
  | 'century'
  | 'millennium'
  | 'era'
  | 'julian'
  | 'epoch_ms'
  | 'epoch_us';

/** Comparison operators. */
export type CmpOp = '=' | '!=' | '<' | '<=' | '>' | '>=';

/**
 * Arithmetic: `/` divides as doubles (DuckDB: int / int is DOUBLE; x / 0 is ±Infinity or NaN),
 * `//` is integer division truncating toward zero, `%` the remainder with the dividend's sign
 * (`//` and `%` by zero are NULL); int64 results outside the int64 range are an error.
 */
export type ArithOp = '+' | '-' | '*' | '/' | '//' | '%';

/**
 * Scalar functions of `call` nodes. Numeric: abs, round (half away from zero; with digits),
 * floor, ceil, sqrt, ln, exp, power, sign. NULL handling: coalesce (first non-NULL), nullif,
 * greatest/least (ignore NULLs, as DuckDB). Strings (code points): lower, upper, length,
 * substring (1-based, DuckDB's negative starts), trim/ltrim/rtrim, concat (NULLs skipped),
 * `||` as `concat_op` (NULL if any is), starts_with, ends_with/suffix, contains, replace,
 * left, right, reverse, strpos; over grapheme clusters (DuckDB's utf8proc, Intl.Segmenter
 * here): length_grapheme, substring_grapheme, left_grapheme, right_grapheme; nfc_normalize. Time: strptime / try_strptime (text, then format literals;
 * src/merge/strptime.ts), time_bucket (a mode literal, 'default' | 'origin' | 'offset', the
 * width's months and µs, the timestamp, then the origin timestamp or the offset's months and
 * µs), date_sub (unit literal, start, end), date_diff, strftime, make_timestamp, to_timestamp.
 * The rest (trigonometry, gcd, split_part, levenshtein, md5, regexp_replace, ...) are
 * src/merge/scalar-more.ts's.
 */
export type ScalarFn =
  | 'abs' | 'round' | 'floor' | 'ceil' | 'sqrt' | 'ln' | 'log10' | 'log2' | 'exp' | 'power' | 'sign'
  | 'coalesce' | 'nullif' | 'greatest' | 'least'
  | 'lower' | 'upper' | 'length' | 'substring' | 'trim' | 'ltrim' | 'rtrim' | 'concat' | 'concat_op'
  | 'starts_with' | 'ends_with' | 'contains' | 'replace' | 'left' | 'right' | 'reverse' | 'strpos'
  | 'length_grapheme' | 'substring_grapheme' | 'left_grapheme' | 'right_grapheme' | 'nfc_normalize'
  | 'trunc' | 'isnan' | 'lpad' | 'rpad' | 'date_diff' | 'strftime' | 'regexp_matches' | 'regexp_full_match' | 'concat_ws' | 'make_timestamp' | 'to_timestamp'
  | 'strptime' | 'try_strptime' | 'time_bucket' | 'date_sub'
  // src/merge/scalar-more.ts: trigonometry and other numeric functions, then strings.
  | 'sin' | 'cos' | 'tan' | 'cot' | 'asin' | 'acos' | 'atan' | 'atan2' | 'sinh' | 'cosh' | 'tanh' | 'asinh' | 'acosh' | 'atanh'
  | 'degrees' | 'radians' | 'cbrt' | 'even' | 'fdiv' | 'fmod' | 'nextafter' | 'log_base' | 'gcd' | 'lcm' | 'xor' | 'bitwise_and' | 'bitwise_or' | 'bitwise_not' | 'shift_left' | 'shift_right' | 'bit_count' | 'factorial'
  | 'split_part' | 'translate' | 'repeat' | 'ascii' | 'unicode' | 'chr' | 'bit_length' | 'strlen' | 'levenshtein' | 'damerau_levenshtein'
  | 'hamming' | 'jaccard' | 'jaro_similarity' | 'jaro_winkler_similarity' | 'md5' | 'sha1' | 'sha256' | 'hex' | 'strip_accents'
  | 'url_encode' | 'url_decode' | 'regexp_replace' | 'regexp_extract' | 'printf' | 'format' | 'regexp_escape' | 'to_base'
  | 'format_bytes' | 'format_bytes_decimal'
  // src/merge/scalar-extra.ts
  | 'glob' | 'string_slice' | 'bar' | 'parse_formatted_bytes' | 'gamma' | 'lgamma' | 'parse_path';

export interface LitNode {
  readonly kind: 'lit';
  readonly value: Scalar;
  readonly type: ColumnType | 'null';
}

export interface CmpNode<E> {
  readonly kind: 'cmp';
  readonly op: CmpOp;
  readonly left: E;
  readonly right: E;
}

export interface AndNode<E> {
  readonly kind: 'and';
  readonly args: readonly E[];
}

export interface OrNode<E> {
  readonly kind: 'or';
  readonly args: readonly E[];
}

export interface NotNode<E> {
  readonly kind: 'not';
  readonly arg: E;
}

export interface InNode<E> {
  readonly kind: 'in';
  readonly arg: E;
  readonly values: readonly Scalar[];
  readonly negated: boolean;
}

export interface BetweenNode<E> {
  readonly kind: 'between';
  readonly arg: E;
  readonly lo: E;
  readonly hi: E;
  readonly negated: boolean;
}

export interface IsnullNode<E> {
  readonly kind: 'isnull';
  readonly arg: E;
  readonly negated: boolean;
}

/** `a IS [NOT] DISTINCT FROM b`: equality where NULL equals NULL; never NULL itself. */
export interface DistinctNode<E> {
  readonly kind: 'distinct';
  readonly left: E;
  readonly right: E;
  readonly negated: boolean;
}

export interface DateTruncNode<E> {
  readonly kind: 'date_trunc';
  readonly unit: TruncUnit;
  readonly arg: E;
}

export interface ArithNode<E> {
  readonly kind: 'arith';
  readonly op: ArithOp;
  readonly left: E;
  readonly right: E;
  readonly type: ColumnType;
}

export interface NegNode<E> {
  readonly kind: 'neg';
  readonly arg: E;
  readonly type: ColumnType;
}

/** Searched CASE (`operand` null) or simple CASE (`operand` compared with each `when` by =). */
export interface CaseNode<E> {
  readonly kind: 'case';
  readonly operand: E | null;
  readonly whens: readonly { readonly when: E; readonly then: E }[];
  readonly else: E | null;
  readonly type: ColumnType;
}

/** CAST / `::` (error when a value does not convert), TRY_CAST (NULL instead). */
export interface CastNode<E> {
  readonly kind: 'cast';
  readonly arg: E;
  readonly type: ColumnType;
  readonly try: boolean;
  /** The argument's type (timestamps and doubles are both numbers). */
  readonly from: ColumnType;
  /**
   * A cast to DuckDB's TINYINT, SMALLINT or INTEGER (8, 16 or 32 bits): the value stays an
   * int64 but must fit that range, or it does not convert.
   */
  readonly bits?: 8 | 16 | 32;
  /**
   * A cast to DuckDB's UTINYINT, USMALLINT, UINTEGER or UBIGINT (8 to 64 bits): the value
   * stays an int64 but must be in [0, 2^bits); one beyond int64 (a UBIGINT) is refused.
   */
  readonly unsigned?: 8 | 16 | 32 | 64;
  /**
   * With `bits`: not a cast the query wrote but the check that integer arithmetic DuckDB
   * computes in that width did not overflow there (`100::TINYINT * 2`, `2147483647 + 1`); the
   * operation's name for the error, as DuckDB's "Overflow in multiplication of INT8".
   */
  readonly overflow?: 'addition' | 'subtraction' | 'multiplication' | 'division' | 'remainder' | 'negation' | 'abs';
}

export interface CallNode<E> {
  readonly kind: 'call';
  readonly fn: ScalarFn;
  readonly args: readonly E[];
  readonly type: ColumnType;
}

/** `[NOT] [I]LIKE pattern [ESCAPE c]`: `%` any run, `_` one code point. */
export interface LikeNode<E> {
  readonly kind: 'like';
  readonly arg: E;
  readonly pattern: E;
  readonly negated: boolean;
  readonly caseInsensitive: boolean;
  readonly escape: string | null;
}

export interface ExtractNode<E> {
  readonly kind: 'extract';
  readonly field: ExtractField;
  readonly arg: E;
  readonly type: ColumnType;
}

/** timestamp ± INTERVAL: `months` calendar months (clamped to the month's end, as DuckDB), then `micros`. */
export interface IntervalNode<E> {
  readonly kind: 'interval';
  readonly arg: E;
  readonly months: number;
  readonly micros: number;
}

/**
 * DuckDB's `TRY(x)`: x, or NULL for a row where computing x raises an error DuckDB raises too
 * (a {@link ValueError}: an overflow, a value that does not convert, a square root of a
 * negative); any other error stands.
 */
export interface TryNode<E> {
  readonly kind: 'try';
  readonly arg: E;
  readonly type: ColumnType;
}

/**
 * The scalar expression nodes row-level {@link Expr} and post-aggregation {@link OutExpr}
 * share, over children of type `E`. Nodes that compute a value carry their result `type`
 * (decided by the planner); predicates are `bool`.
 */
export type ScalarNode<E> =
  | LitNode
  | CmpNode<E>
  | AndNode<E>
  | OrNode<E>
  | NotNode<E>
  | InNode<E>
  | BetweenNode<E>
  | IsnullNode<E>
  | DistinctNode<E>
  | DateTruncNode<E>
  | ArithNode<E>
  | NegNode<E>
  | CaseNode<E>
  | CastNode<E>
  | CallNode<E>
  | LikeNode<E>
  | ExtractNode<E>
  | IntervalNode<E>
  | TryNode<E>;

/**
 * Row-level expressions, evaluated by leaves (WHERE, GROUP BY keys, projected columns,
 * aggregate arguments). Literals are already coerced to the type of what they meet
 * (an ISO string compared with a timestamp column becomes a `timestamp` literal).
 */
export type Expr =
  | { readonly kind: 'col'; readonly name: string }
  | LitNode
  | CmpNode<Expr>
  | AndNode<Expr>
  | OrNode<Expr>
  | NotNode<Expr>
  | InNode<Expr>
  | BetweenNode<Expr>
  | IsnullNode<Expr>
  | DistinctNode<Expr>
  | DateTruncNode<Expr>
  | ArithNode<Expr>
  | NegNode<Expr>
  | CaseNode<Expr>
  | CastNode<Expr>
  | CallNode<Expr>
  | LikeNode<Expr>
  | ExtractNode<Expr>
  | IntervalNode<Expr>
  | TryNode<Expr>;

/**
 * Primitive, decomposable partial aggregates computed by leaves and merged up the tree
 * (the leaf side of each kind: src/merge/aggregates, PARTIAL_DEFS; its state: src/merge/kinds).
 * AVG is never a partial: it is planned as `sum` + `count` over the same argument.
 * `hll` (exact set, then HyperLogLog) serves COUNT(DISTINCT x), approx_count_distinct and
 * SUM/AVG(DISTINCT x) (these over the exact set only);
 * `ddsketch` serves approx_quantile (every q of one argument shares it); `value_counts` (exact
 * value counts up to a budget, then a DDSketch) serves median, quantile_cont, quantile_disc,
 * mode and entropy; `string_counts` (exact string counts up to a budget, then a Misra-Gries
 * summary) mode and entropy of strings.
 * `arg_min` / `arg_max` keep the best value of `by` and the `arg` of its row (arg_min, min_by, ...).
 * `arg_min_null` / `arg_max_null` keep the best `by`, its row's `arg` (NULL allowed) and whether tied rows differ.
 * `uniform` (first, last, arbitrary) tells whether every row holds one value (NULL included)
 * and keeps the least; `string_list` (string_agg) keeps every non-NULL value with its `order` keys.
 * `arg` is the row-level expression aggregated (`{kind: 'col'}` for a column; null only for
 * `count_star` and `moments`). Partials are deduplicated by kind, arg and filter
 * (canonicalExpr).
 * `moments` (planned by the root only where an estimate is honest, src/merge/estimate.ts)
 * is one sum per partial, a number per group merged by addition: with `pair: [a, b]`, the
 * sum over the answered shards of the product of the shard's own values of partials a and b
 * (each a `count_star`, `count` or `sum`; -1 standing for the shard's row count), e.g.
 * `[-1, 0]` is Σ x·y and `[0, 0]` Σ y² for partial 0; with `power: {of, exp}`, Σ v^exp over
 * the group's non-NULL rows of `sum` partial `of`'s argument (exp 2, 3 or 4: the row-level
 * interval of estimate.ts). Exactly one of the two.
 */
export interface PartialSpec {
  readonly kind: 'count_star' | 'count' | 'sum' | 'min' | 'max' | 'hll' | 'ddsketch' | 'moments' | 'variance' | 'arg_min' | 'arg_max' | 'comoment' | 'power_sums' | 'bit_and' | 'bit_or' | 'bit_xor' | 'product' | 'value_counts' | 'string_counts' | 'uniform' | 'string_list' | 'arg_min_null' | 'arg_max_null';
  readonly arg: Expr | null;
  /** `arg_min` / `arg_max` (and their _null kinds): the row-level expression ordered by, and its type; `comoment`: the second argument x (`arg` is y). */
  readonly by?: Expr;
  readonly byType?: ColumnType;
  /** FILTER (WHERE ...): only rows where it is TRUE are aggregated (absent: every row). */
  readonly filter?: Expr;
  /** The type of `arg` when it is an expression (set by the planner; columns and literals are typed by themselves). */
  readonly argType?: ColumnType;
  /** `moments` only: the per-shard product summed, two partial indexes (-1: the shard's rows). */
  readonly pair?: readonly [number, number];
  /** `moments` only: the row-level power sum Σ v^exp of `sum` partial `of`'s argument. */
  readonly power?: { readonly of: number; readonly exp: 2 | 3 | 4 };
  /** `arg_min_null` / `arg_max_null` only: rows whose `by` is NULL count too, ranking last (arg_min_nulls_last). */
  readonly nullsLast?: boolean;
  /**
   * `string_list` only: the ORDER BY keys inside the call (string_agg(x, ',' ORDER BY k DESC)),
   * each a row-level expression, its type, its direction and whether NULLs sort first.
   */
  readonly order?: readonly { readonly expr: Expr; readonly type: ColumnType; readonly desc: boolean; readonly nullsFirst: boolean }[];
}

/** A GROUP BY key: any row-level expression (a column, `date_trunc(unit, ...)`, `a + b`, ...). `name` is the output name. */
export interface GroupKeySpec {
  readonly name: string;
  readonly expr: Expr;
  readonly type: ColumnType;
}

/**
 * What a child (leaf or aggregator) is asked to compute: the plan fragment.
 * Either an aggregation (`groupBy` + `partials`) or a row query (`rows`).
 */
export interface ScanPlan {
  readonly table: string;
  /** WHERE; rows are kept where it is TRUE (SQL three-valued logic). */
  readonly filter: Expr | null;
  readonly groupBy: readonly GroupKeySpec[];
  readonly partials: readonly PartialSpec[];
  /** Present for queries without aggregates: which columns, in which order, how many. */
  readonly rows: RowQuerySpec | null;
  /** Per-query limit on groups a node may hold (admission against OOM). */
  readonly maxGroups: number;
  /** Group top-k with over-fetch: each node returns only its best `fetch` groups plus a bound. */
  readonly topk?: TopKSpec;
}

/**
 * Group top-k for `GROUP BY g ORDER BY agg LIMIT k`, set by the root only where truncation
 * is safe: scores (`sign` × the ordering aggregate) only grow as shards are merged, by
 * addition of non-negative amounts (`add`: COUNT, SUM of non-negative values) or by
 * maximum (`max`: MAX DESC, MIN ASC). A group's score is -Infinity while its value is NULL.
 */
export interface TopKSpec {
  /** Index of the ordering aggregate's partial in `partials`. */
  readonly partial: number;
  readonly sign: 1 | -1;
  readonly combine: 'add' | 'max';
  /** Groups each node keeps (over-fetch, k' >= k). */
  readonly fetch: number;
  /**
   * Byte budget of a node's frame: a node whose groups all fit it (estimated by
   * `estimateGroupBytes` (src/merge/topk.ts)) sends them all, untruncated, with no bound of its own, so
   * the answer can be proven without a second round trip. Absent: always truncate to `fetch`.
   */
  readonly budgetBytes?: number;
  /**
   * Threshold round of TPUT (Cao and Wang, 2004), `add` scores only: a node answering s shards
   * sends every group whose score's upper bound is at least s × `minScorePerShard` (instead
   * of its best `fetch`), and bounds the rest below that. The root sets it to the k-th lower
   * bound over the shards asked, so no group left unreported anywhere can reach the k-th.
   */
  readonly minScorePerShard?: number;
  /**
   * Byte budget of a node answering for one shard (a leaf), when larger than `budgetBytes`:
   * `exact: true` sets it, since a leaf's share of the k-th score of a high-cardinality key is
   * often a row or two, too small to cut at, so its groups are better merged by its parent.
   */
  readonly shardBudgetBytes?: number;
  /**
   * `add` scores, a node answering for several shards (an aggregator): besides its best
   * `fetch`, it sends every group whose score is at least `cutRatio` × its `fetch`-th best
   * score, and bounds the rest below that (TPUT's share τ·s/m of the k-th score, with the
   * node's own k'-th score as the estimate of its share). In (0, 1]. `exact: true` sets it so
   * that the bound on groups nobody sent (the sum of the nodes' bounds) falls below the k-th
   * score in one round, leaving only the candidates' exact values to fetch.
   */
  readonly cutRatio?: number;
}

/** A non-aggregate query: projected expressions, sort keys over them, and a row limit. */
export interface RowQuerySpec {
  readonly columns: readonly { readonly name: string; readonly expr: Expr; readonly type: ColumnType }[];
  /** The first `visible` columns are returned to the client; the rest exist only to sort by. */
  readonly visible: number;
  /**
   * Sort keys as indexes into `columns`; NULLs sort last unless `nullsFirst` (DuckDB's default,
   * in both directions). Ties are broken by all columns in order, ascending, NULLs last.
   */
  readonly orderBy: readonly { readonly column: number; readonly desc: boolean; readonly nullsFirst?: boolean }[];
  /** Rows wanted (OFFSET + LIMIT) after sorting; children return at most this many. */
  readonly limit: number;
  /**
   * The first ORDER BY key's value that the catalog proves the first `limit` rows of the table
   * reach (at least `limit` rows are >= it for DESC, <= it for ASC; NULLs last): a row whose key
   * sorts strictly after it, or is NULL, cannot be in the answer, so a node may drop it and a
   * leaf may skip a batch whose zone map is worse. A number (the key is a plain numeric or
   * timestamp column); absent when nothing is proven. Set by the root from the shards' zone
   * maps (rowTopKShards' threshold).
   */
  readonly floor?: number;
}

/**
 * Aggregates the root finalises from partials. `count_distinct` reads an `hll` partial;
 * `quantile` (approx_quantile) a `ddsketch` partial at the OutExpr's `q` in [0, 1]
 * (quantile_disc's rank); `median`, `quantile_cont`, `quantile_disc` (at `q`), `mode` and
 * `entropy` a `value_counts` partial (exact counts up to a budget, then a DDSketch).
 */
export type AggregateFn =
  | 'count'
  | 'sum'
  | 'min'
  | 'max'
  | 'avg'
  | 'count_distinct'
  | 'quantile'
  | 'median'
  | 'quantile_cont'
  | 'quantile_disc'
  | 'mode'
  | 'entropy'
  | 'count_if'
  | 'bool_and'
  | 'bool_or'
  | 'var_samp'
  | 'var_pop'
  | 'stddev_samp'
  | 'stddev_pop'
  | 'arg_min'
  | 'arg_max'
  | 'any_value'
  | 'sum_distinct'
  | 'avg_distinct'
  | 'covar_pop'
  | 'covar_samp'
  | 'corr'
  | 'regr_count'
  | 'regr_avgx'
  | 'regr_avgy'
  | 'regr_sxx'
  | 'regr_syy'
  | 'regr_sxy'
  | 'regr_slope'
  | 'regr_intercept'
  | 'regr_r2'
  | 'skewness'
  | 'kurtosis'
  | 'kurtosis_pop'
  | 'bit_and'
  | 'bit_or'
  | 'bit_xor'
  | 'sem'
  | 'geomean'
  | 'weighted_avg'
  | 'fsum'
  | 'favg'
  | 'product'
  | 'first'
  | 'last'
  | 'string_agg'
  | 'arg_min_null'
  | 'arg_max_null'
  | 'arg_min_nulls_last'
  | 'arg_max_nulls_last'
  | 'bit_xor_distinct'
  | 'mad';

/**
 * A post-aggregation expression over the output of the partials, used by the root to
 * compute SELECT items, HAVING and ORDER BY after the merge.
 */
export type OutExpr =
  | { readonly kind: 'key'; readonly index: number }
  | {
      readonly kind: 'agg';
      readonly fn: AggregateFn;
      readonly partials: readonly number[];
      readonly type: ColumnType;
      readonly q?: number;
      /** quantile_disc only: `q` is a DOUBLE in DuckDB (a literal with an exponent), ranked by its double formula (see quantileIndex). */
      readonly qDouble?: true;
      /** string_agg only: the separator (null: NULL, so the answer is NULL) and DISTINCT. */
      readonly sep?: string | null;
      readonly distinct?: boolean;
    }
  | LitNode
  | CmpNode<OutExpr>
  | AndNode<OutExpr>
  | OrNode<OutExpr>
  | NotNode<OutExpr>
  | InNode<OutExpr>
  | BetweenNode<OutExpr>
  | IsnullNode<OutExpr>
  | DistinctNode<OutExpr>
  | DateTruncNode<OutExpr>
  | ArithNode<OutExpr>
  | NegNode<OutExpr>
  | CaseNode<OutExpr>
  | CastNode<OutExpr>
  | CallNode<OutExpr>
  | LikeNode<OutExpr>
  | ExtractNode<OutExpr>
  | IntervalNode<OutExpr>
  | TryNode<OutExpr>
  | WindowNode;

/** The window aggregates canopy computes over a GROUP BY result (see {@link WindowNode}). */
export type WindowFn = 'sum' | 'count' | 'avg' | 'min' | 'max';

/**
 * A window aggregate over the groups of an aggregate query, as DuckDB computes
 * `sum(count(*)) OVER ()` / `OVER (PARTITION BY k)`: after GROUP BY and HAVING, before ORDER
 * BY and LIMIT, over every group whose partition keys (`partition`: indexes of group keys;
 * empty for `OVER ()`, NULL equal to NULL) are the row's. `arg` is evaluated per group (null:
 * `count(*) OVER ()`, the groups counted); the root computes each group's value once
 * (src/merge/window.ts) and stores it at `slot` of the group's entry.
 */
export interface WindowNode {
  readonly kind: 'window';
  readonly fn: WindowFn;
  readonly arg: OutExpr | null;
  /** The argument's type (null for `count(*)`). */
  readonly argType: ColumnType | null;
  readonly partition: readonly number[];
  readonly type: ColumnType;
  readonly slot: number;
}

/** One output column of an aggregate query. */
export interface OutColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly expr: OutExpr;
}

/**
 * The whole plan the root builds from SQL. `scan` is sent to children; the rest is
 * applied by the root after the merge (finalise).
 */
export interface QueryPlan {
  readonly scan: ScanPlan;
  /** Output columns (aggregate queries); empty for row queries (their columns are `scan.rows.columns`). */
  readonly output: readonly OutColumn[];
  readonly having: OutExpr | null;
  /** Sort keys over output columns; ties are then broken by the group keys ascending. */
  readonly orderBy: readonly { readonly expr: OutExpr; readonly desc: boolean; readonly nullsFirst?: boolean }[];
  /** LIMIT, or null for none (rows after the OFFSET). */
  readonly limit: number | null;
  /** OFFSET: result rows skipped after sorting (0 when absent). */
  readonly offset?: number;
  /**
   * DuckDB's `LIMIT p%` (0 to 100; `limit` is then null): the first floor(p / 100 * n) rows
   * after the OFFSET, n the answer's rows before it, as DuckDB counts (src/merge/limit-percent.ts).
   */
  readonly limitPercent?: number;
  /** The plan read the query's start time (`now()`): never reuse it for another query. */
  readonly volatile?: true;
  /**
   * GROUPING SETS / ROLLUP / CUBE: each set as the indexes (ascending) of the `scan.groupBy`
   * keys it groups by. Children group by every key (the finest grouping); the root merges
   * those groups into each set's (src/merge/grouping-sets.ts), NULL in the keys a set leaves
   * out, and unions them in set order (duplicated sets give duplicated rows, as in DuckDB).
   * Each set's groups carry one more key after the plan's, the set's index (int64), which
   * `grouping()` reads. Absent for a plain GROUP BY.
   */
  readonly groupingSets?: readonly (readonly number[])[];
  /**
   * The window aggregates of the output and ORDER BY, each at the index its `slot` names:
   * computed over every group after HAVING (src/merge/window.ts). When present the plan never
   * truncates groups below the root (no group top-k). Absent without windows.
   */
  readonly windows?: readonly WindowNode[];
}

/** Per-column statistics of a shard (a zone map). Numbers for numeric/timestamp columns, strings for string columns. */
export interface ColumnStats {
  readonly min: number | string | null;
  readonly max: number | string | null;
  readonly nullCount: number;
  /**
   * Set index of a string column: every distinct non-NULL value the shard holds, sorted by
   * code point, when there are at most {@link SET_INDEX_MAX_VALUES}; absent otherwise (and for
   * other types). Lets pruning drop a shard for `col = 'x'`, `IN`, `LIKE` on a value the
   * shard's min/max bracket but the shard does not hold (ClickHouse's `set(N)` skip index).
   */
  readonly values?: readonly string[];
}

/** Most distinct values a string column's set index holds per shard (see {@link ColumnStats.values}). */
export const SET_INDEX_MAX_VALUES = 1024;

/** How rows were assigned to shards. */
export type PartitionSpec =
  | { readonly kind: 'hash' }
  | { readonly kind: 'range'; readonly column: string }
  | { readonly kind: 'file' };

/** One shard in the catalog. `id` is 0-based and dense. */
export interface ShardInfo {
  readonly id: number;
  readonly rows: number;
  /** Human-readable partition key description, e.g. `hash bucket 17/100` or `date in [a, b]`. */
  readonly partition: string;
  readonly columns: Readonly<Record<string, ColumnStats>>;
}

/** The shard catalog of a table: schema, partitioning and per-shard statistics. */
export interface Catalog {
  readonly table: TableSchema;
  readonly partitioning: PartitionSpec;
  readonly shards: readonly ShardInfo[];
}

/** What happened to one shard in one query. */
export type ShardOutcome = 'answered' | 'failed' | 'omitted' | 'pruned';

/**
 * Provenance entry: one per shard per query, merged up the tree.
 * `path` is the subtree path from the root, e.g. `root/agg-3/leaf-27`.
 */
export interface ShardStatus {
  readonly shard: number;
  readonly status: ShardOutcome;
  readonly path: string;
  readonly error?: { readonly code: string; readonly message: string };
  /** Rows this shard scanned (answered shards). */
  readonly rowsScanned?: number;
  /** Pruned by the root: why its zone map excluded the WHERE clause (never on the wire). */
  readonly reason?: string;
}

/**
 * How long one gather waited for one child (straggler attribution). `gather` is the path of
 * the gathering node (`root`, `root/agg-3`); `elapsedMs` runs from the start of that gather
 * until the child's answer (or failure) was taken.
 */
export interface GatherTiming {
  readonly gather: string;
  readonly child: string;
  readonly shards: number;
  readonly elapsedMs: number;
  readonly outcome: 'answered' | 'failed' | 'omitted';
}
