/** The ranges of DuckDB's BIGINT (int64) and HUGEINT (int128) as bigints, inclusive: every module checks against these. */
export const INT64_MIN = -(2n ** 63n);
export const INT64_MAX = 2n ** 63n - 1n;
export const INT128_MIN = -(2n ** 127n);
export const INT128_MAX = 2n ** 127n - 1n;
