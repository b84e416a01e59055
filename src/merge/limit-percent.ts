/** DuckDB's `LIMIT p%`, applied by the root once it holds the whole answer (src/merge/finalise.ts). */
import { CanopyError } from './errors.ts';

/**
 * The rows `LIMIT p%` keeps of an answer of `n` rows (counted before OFFSET): floor(p / 100 · n)
 * in doubles, as DuckDB computes it (checked against DuckDB for p = 0.0 to 100.0 by 0.1 over
 * 7, 13, 100 and 1000 rows, where floor(p · n / 100) differs; test/sql-surface-duckdb.test.ts).
 * @param p the percentage, 0 to 100
 * @param n the answer's rows
 */
export function percentLimit(p: number, n: number): number {
  return Math.min(n, Math.floor((p / 100) * n));
}

/**
 * A row query's `LIMIT p%` needs every row: children returned at most `fetched` (the plan's
 * row limit); holding that many, there may be more, and the count is not known.
 * @throws CanopyError CANOPY_ERR_LIMIT when `held` reaches `fetched`
 */
export function checkAllRowsHeld(held: number, fetched: number, offset: number): void {
  if (held >= fetched) {
    throw new CanopyError('CANOPY_ERR_LIMIT', `LIMIT with a percent counts every row of the answer, and it has more than ${fetched - 1 - offset} rows (the most a row query without a row-count LIMIT returns); add a WHERE, or give the LIMIT as a row count`);
  }
}
