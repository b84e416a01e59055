/** The planner's size limits. */
/** Documented limits applied while planning (all counts, except `maxSqlLength` in UTF-16 chars). */
export interface QueryLimits {
  /** Longest SQL text accepted, in characters. */
  readonly maxSqlLength: number;
  /**
   * Most rows one answer holds (groups and DISTINCT values included; the root refuses a larger
   * answer), and so the largest LIMIT planned as given: a larger one is planned as this + 1.
   */
  readonly maxLimit: number;
  /** Rows a row query without LIMIT may return; children are asked for one more to detect overflow. */
  readonly maxRows: number;
  /** Groups a node may hold for one query (copied into `scan.maxGroups`). */
  readonly maxGroups: number;
}

/** The limits used when {@link planQuery} is given none. */
export const DEFAULT_LIMITS: QueryLimits = Object.freeze({
  maxSqlLength: 100_000,
  maxLimit: 100_000,
  maxRows: 10_000,
  maxGroups: 500_000,
});
