/**
 * Checks that canopy's finalised rows and the reference's rows are the same answer,
 * across the two engines' JS representations.
 */

/** A value in a comparable form: numbers (ints, floats, timestamps in µs), strings, booleans, null. */
type Norm = number | string | boolean | null;

/** Relative tolerance for floating-point cells (different summation orders). */
const REL_TOL = 1e-9;

/** Most mismatches listed per query. */
const MAX_LISTED = 10;

/**
 * Normalises one cell: bigint -> number (or its decimal string beyond 2^53),
 * Date (DuckDB, ms) -> epoch µs as canopy holds timestamps, -0 -> 0.
 * @throws Error for values of other kinds (a sign the harness needs updating).
 */
export function normalise(v: unknown): Norm {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return v <= 2n ** 53n && v >= -(2n ** 53n) ? Number(v) : v.toString();
  if (v instanceof Date) return v.getTime() * 1000;
  if (typeof v === 'number') return Object.is(v, -0) ? 0 : v;
  if (typeof v === 'string' || typeof v === 'boolean') return v;
  throw new Error(`cannot compare a value of kind ${Object.prototype.toString.call(v)}`);
}

function sameCell(a: Norm, b: Norm): boolean {
  if (typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    return a === b || Math.abs(a - b) <= REL_TOL * Math.max(Math.abs(a), Math.abs(b));
  }
  return a === b;
}

function rowKey(r: readonly Norm[]): string {
  return JSON.stringify(r);
}

/**
 * Compares two answers cell by cell.
 * @param ordered true when row order is part of the answer (the query has ORDER BY);
 *   otherwise both sides are sorted first.
 * @returns human-readable mismatches (at most 10 listed, then a count); empty when they agree.
 */
export function compareAnswers(actual: readonly (readonly unknown[])[], expected: readonly (readonly unknown[])[], ordered: boolean): string[] {
  const norm = (rows: readonly (readonly unknown[])[]): Norm[][] => {
    const n = rows.map((r) => r.map(normalise));
    if (!ordered) n.sort((x, y) => (rowKey(x) < rowKey(y) ? -1 : rowKey(x) > rowKey(y) ? 1 : 0));
    return n;
  };
  const a = norm(actual);
  const e = norm(expected);
  const out: string[] = [];
  if (a.length !== e.length) out.push(`row count: canopy ${a.length}, duckdb ${e.length}`);
  let more = 0;
  for (let i = 0; i < Math.min(a.length, e.length); i++) {
    const ra = a[i]!;
    const re = e[i]!;
    const bad = ra.length !== re.length || ra.some((x, j) => !sameCell(x, re[j] ?? null));
    if (!bad) continue;
    if (out.length < MAX_LISTED) out.push(`row ${i}: canopy ${rowKey(ra)}, duckdb ${rowKey(re)}`);
    else more++;
  }
  if (more > 0) out.push(`... and ${more} more rows differ`);
  return out;
}
