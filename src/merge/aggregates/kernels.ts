/**
 * Aggregate kernels: plain top-level loops over typed arrays (one optimised copy each,
 * monomorphic), with separate loops for the common cases: no NULLs, no selection vector
 * (`sel` null: rows 0..n-1) and a single group (`gids` null: group 0).
 * Group ids are indexed by position in the selection (`gids[j]` for row `sel[j]`).
 */
import type { NumStats, Validity } from '../vectors.ts';

function valid(v: Validity, i: number): boolean {
  const b = v.offset + i;
  return ((v.bitmap[b >> 3]! >> (b & 7)) & 1) === 1;
}

/** COUNT: adds 1 per selected row (per non-NULL row when `nulls` is given). */
export function kCount(c: Float64Array, sel: Int32Array | null, gids: Int32Array | null, n: number, nulls: Validity | null): void {
  if (nulls === null) {
    if (gids === null) c[0]! += n;
    else for (let j = 0; j < n; j++) c[gids[j]!]!++;
    return;
  }
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (valid(nulls, i)) c[gids === null ? 0 : gids[j]!]!++;
  }
}

/** COUNT(*) FILTER: adds 1 per selected row whose truth `pass[row]` is TRUE (2), branch-free. */
export function kCountPassing(c: Float64Array, pass: Uint8Array, sel: Int32Array | null, gids: Int32Array | null, n: number): void {
  if (gids === null) {
    let k = 0;
    if (sel === null) for (let i = 0; i < n; i++) k += pass[i]! >> 1;
    else for (let j = 0; j < n; j++) k += pass[sel[j]!]! >> 1;
    c[0]! += k;
    return;
  }
  if (sel === null) for (let i = 0; i < n; i++) c[gids[i]!]! += pass[i]! >> 1;
  else for (let j = 0; j < n; j++) c[gids[j]!]! += pass[sel[j]!]! >> 1;
}

/** SUM over doubles into `acc` (caller guarantees exactness for integer columns); marks `has`. */
export function kSum(acc: Float64Array, has: Uint8Array, vals: Float64Array, sel: Int32Array | null, gids: Int32Array | null, n: number, nulls: Validity | null): void {
  if (nulls === null) {
    if (gids === null) {
      let s = 0;
      if (sel === null) for (let i = 0; i < n; i++) s += vals[i]!;
      else for (let j = 0; j < n; j++) s += vals[sel[j]!]!;
      if (n > 0) {
        acc[0]! += s;
        has[0] = 1;
      }
    } else if (sel === null) {
      for (let i = 0; i < n; i++) {
        const g = gids[i]!;
        acc[g]! += vals[i]!;
        has[g] = 1;
      }
    } else {
      for (let j = 0; j < n; j++) {
        const g = gids[j]!;
        acc[g]! += vals[sel[j]!]!;
        has[g] = 1;
      }
    }
    return;
  }
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (!valid(nulls, i)) continue;
    const g = gids === null ? 0 : gids[j]!;
    acc[g]! += vals[i]!;
    has[g] = 1;
  }
}

/** MIN (sign 1) or MAX (sign -1) over doubles into `m`; marks `has`. */
export function kExtreme(m: Float64Array, has: Uint8Array, vals: Float64Array, sel: Int32Array | null, gids: Int32Array | null, n: number, nulls: Validity | null, isMin: boolean): void {
  if (nulls === null && gids === null) {
    if (n === 0) return;
    let best = has[0] === 1 ? m[0]! : vals[sel === null ? 0 : sel[0]!]!;
    for (let j = 0; j < n; j++) {
      const x = vals[sel === null ? j : sel[j]!]!;
      // Direct calls, not one through a variable: a call site shared by MIN and MAX turned
      // polymorphic and made the second to run ~3x slower.
      if (isMin ? betterMin(x, best) : betterMax(x, best)) best = x;
    }
    m[0] = best;
    has[0] = 1;
    return;
  }
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (nulls !== null && !valid(nulls, i)) continue;
    const g = gids === null ? 0 : gids[j]!;
    const x = vals[i]!;
    if (has[g] === 0 || (isMin ? betterMin(x, m[g]!) : betterMax(x, m[g]!))) {
      m[g] = x;
      has[g] = 1;
    }
  }
}

/**
 * Is `x` a better MAX than `c` in canopy's value order (src/merge/compare.ts): NaN above every
 * number; between 0.0 and -0.0 (equal in SQL) MAX keeps 0.0, so the state is the same
 * whatever the shard split.
 */
export function betterMax(x: number, c: number): boolean {
  return x > c || (x !== x && c === c) || (x === 0 && c === 0 && 1 / c < 0 && 1 / x > 0);
}

/** Is `x` a better MIN than `c`: NaN above every number; MIN keeps -0.0 over 0.0. */
export function betterMin(x: number, c: number): boolean {
  return x < c || (c !== c && x === x) || (x === 0 && c === 0 && 1 / x < 0 && 1 / c > 0);
}

/** MIN/MAX over dictionary codes by their rank in sorted order; `best` holds codes, -1 for none. */
export function kExtremeCode(best: Int32Array, codes: Int32Array, rank: Int32Array, sel: Int32Array | null, gids: Int32Array | null, n: number, nulls: Validity | null, isMin: boolean): void {
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (nulls !== null && !valid(nulls, i)) continue;
    const g = gids === null ? 0 : gids[j]!;
    const c = codes[i]!;
    const cur = best[g]!;
    if (cur < 0 || (isMin ? rank[c]! < rank[cur]! : rank[c]! > rank[cur]!)) best[g] = c;
  }
}

/**
 * The statistics of one batch of doubles (count, MIN/MAX in canopy's value order, Welford's
 * mean and M2, the power sums Σx², Σx³, Σx⁴ of the estimates, and for int64 values the exact sum when `count · maxAbs` < 2^53), one pass
 * over the non-NULL rows `0..n)`, and whether the rows ascend (`ascending`). The order of MIN/MAX is total, so the extreme of batch
 * extremes is the extreme of the rows.
 * @param isInt the values are int64 (exact doubles): the sum is kept
 * @param maxAbs a bound on |value| (int64 batches: decides whether the sum is exact)
 */
export function kNumStats(vals: Float64Array, n: number, nulls: Validity | null, isInt: boolean, maxAbs: number): NumStats {
  let count = 0;
  let min = NaN;
  let max = NaN;
  let sum = 0;
  let mean = 0;
  let m2 = 0;
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  // Ascending: no NULL, no NaN or infinity, never smaller than the row before.
  let ascending = nulls === null || n === 0;
  let prev = -Infinity;
  for (let i = 0; i < n; i++) {
    if (nulls !== null && !valid(nulls, i)) continue;
    const x = vals[i]!;
    if (!(x >= prev) || x - x !== 0) ascending = false;
    prev = x;
    const x2 = x * x;
    s2 += x2;
    s3 += x2 * x;
    s4 += x2 * x2;
    if (count === 0) {
      min = x;
      max = x;
    } else {
      if (betterMin(x, min)) min = x;
      if (betterMax(x, max)) max = x;
    }
    count++;
    sum += x;
    const d = x - mean;
    mean += d / count;
    m2 += d * (x - mean);
  }
  return { rows: n, count, min, max, sum: isInt && count * maxAbs < 2 ** 53 ? sum : null, mean, m2, s2, s3, s4, ascending };
}

/**
 * The statistics of `v` when an update covers every row of its batch in one group (`sel` and
 * `gids` null, `n` the batch's rows), else null: then the accumulator reads them, not the rows.
 */
export function wholeBatchStats(v: { readonly stats?: NumStats }, sel: Int32Array | null, gids: Int32Array | null, n: number): NumStats | null {
  const s = v.stats;
  return s !== undefined && sel === null && gids === null && s.rows === n ? s : null;
}

/** Folds batch statistics' MIN (or MAX) into group 0 of `m` / `has`, as {@link kExtreme} over the batch's rows would. */
export function kExtremeStats(m: Float64Array, has: Uint8Array, s: NumStats, isMin: boolean): void {
  if (s.count === 0) return;
  const x = isMin ? s.min : s.max;
  if (has[0] === 0 || (isMin ? betterMin(x, m[0]!) : betterMax(x, m[0]!))) {
    m[0] = x;
    has[0] = 1;
  }
}
