/**
 * Row queries at the leaf: the top `limit` selected rows of a shard in the plan's order
 * (sort keys with NULLs last, then every column ascending), found with a bounded heap per
 * batch and merged across batches; only kept rows are materialised.
 */
import { PriorityQueue } from '@datastructures-js/priority-queue';
import { CanopyError, compareDoubles, kWayMerge, type PartialLayout, type RowQuerySpec, type Scalar } from '../merge/index.ts';
import { evalValue, scalarAt, type BatchCtx, type ValueVec } from './expr.ts';
import { isValid, type Validity } from './shard.ts';

const compareBigints = (a: number | bigint, b: number | bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compares rows i and j of a batch for one column, ascending, NULLs last. */
function columnComparator(v: ValueVec): (i: number, j: number) => number {
  switch (v.t) {
    case 'const':
      return () => 0;
    case 'num':
    case 'big': {
      // Doubles in the value order (NaN above every number, -0.0 = 0.0), or bigints.
      const vals: ArrayLike<number | bigint> = v.values;
      const cmp = v.t === 'num' ? (compareDoubles as (a: number | bigint, b: number | bigint) => number) : compareBigints;
      const valid = v.valid;
      return (i, j) => {
        const ni = !isValid(valid, i);
        const nj = !isValid(valid, j);
        if (ni || nj) return ni === nj ? 0 : ni ? 1 : -1;
        return cmp(vals[i]!, vals[j]!);
      };
    }
    case 'str': {
      const rank = v.rank;
      const codes = v.codes;
      const valid = v.valid;
      return (i, j) => {
        const ni = !isValid(valid, i);
        const nj = !isValid(valid, j);
        if (ni || nj) return ni === nj ? 0 : ni ? 1 : -1;
        return rank[codes[i]!]! - rank[codes[j]!]!;
      };
    }
  }
}

/**
 * The lead sort key's score of a value, larger = earlier in the query's order: the value
 * itself (DESC) or its negation (ASC), NaN at the top of the value order (NULL: -Infinity, or
 * +Infinity with NULLS FIRST, by the caller). The map
 * is monotone but not strictly (NaN ties +-Infinity, NULL ties the worst end), so a filter
 * keeping scores >= a threshold is conservative: ties always pass to the exact comparison.
 */
function score(v: number, desc: boolean): number {
  if (v !== v) return desc ? Infinity : -Infinity;
  return desc ? v : -v;
}

/** Per-batch best lead score of a numeric column view (the batch's zone map), cached by its values. */
const batchBest = new WeakMap<Float64Array, { desc: number; asc: number }>();

function bestScoreOf(v: { readonly values: Float64Array; readonly valid: Validity | null }, rows: number, desc: boolean): number {
  let z = batchBest.get(v.values);
  if (z === undefined) {
    let max = -Infinity;
    let min = Infinity;
    let nan = false;
    let any = false;
    const vals = v.values;
    for (let i = 0; i < rows; i++) {
      if (v.valid !== null && !isValid(v.valid, i)) continue;
      const x = vals[i]!;
      any = true;
      if (x !== x) nan = true;
      else {
        if (x > max) max = x;
        if (x < min) min = x;
      }
    }
    z = any ? { desc: nan ? Infinity : max, asc: min === Infinity ? -Infinity : -min } : { desc: -Infinity, asc: -Infinity };
    batchBest.set(v.values, z);
  }
  return desc ? z.desc : z.asc;
}

/**
 * The lead score below which no row can be in the answer, from the plan's proven `floor`
 * (RowQuerySpec): -Infinity without one, or without ORDER BY, or with NULLS FIRST (the floor
 * is proven for NULLs last).
 */
function floorScore(spec: RowQuerySpec): number {
  const lead = spec.orderBy[0];
  if (spec.floor === undefined || lead === undefined || lead.nullsFirst === true) return -Infinity;
  return score(spec.floor, lead.desc);
}

/** Lead-score threshold of kept rows: the score of the `limit`-th row, or -Infinity (no bound yet / not a number). */
function keptThreshold(rows: readonly (readonly Scalar[])[], limit: number, column: number, desc: boolean): number {
  if (rows.length < limit) return -Infinity;
  const v = rows[limit - 1]![column];
  if (typeof v === 'number') return score(v, desc);
  if (typeof v === 'bigint' && v <= 2n ** 53n && v >= -(2n ** 53n)) return score(Number(v), desc);
  return -Infinity;
}

/**
 * The first comparison of a row query's order: its first ORDER BY key, or without ORDER BY
 * the first column ascending (the tie-break orders by every column, in order).
 */
function leadKey(spec: RowQuerySpec): { readonly column: number; readonly desc: boolean; readonly nullsFirst?: boolean } {
  return spec.orderBy[0] ?? { column: 0, desc: false };
}

/** True when some row of the batch's view is NULL. */
function anyNull(v: { readonly valid: Validity | null }, rows: number): boolean {
  if (v.valid === null) return false;
  for (let i = 0; i < rows; i++) if (!isValid(v.valid, i)) return true;
  return false;
}

/** Accumulates the best `limit` rows over the batches of a shard. */
export class RowCollector {
  readonly #spec: RowQuerySpec;
  readonly #layout: PartialLayout;
  #rows: (readonly Scalar[])[] = [];
  /** Candidate rows of the batch being added (reused). */
  #cand = new Int32Array(0);
  #scores = new Float64Array(0);
  /** Lead score of the plan's proven floor ({@link floorScore}): rows below it are never kept. */
  readonly #floor: number;

  constructor(spec: RowQuerySpec, layout: PartialLayout) {
    this.#spec = spec;
    this.#layout = layout;
    this.#floor = floorScore(spec);
  }

  /** The lead score a row must reach to be kept: the `limit`-th kept row's, or the floor's if higher. */
  #threshold(): number {
    const lead = leadKey(this.#spec);
    return Math.max(this.#floor, keptThreshold(this.#rows, this.#spec.limit, lead.column, lead.desc));
  }

  /**
   * True when no row of batch `ctx.batch` can enter the kept top rows (without ORDER BY: once
   * `limit` rows are kept): the batch's best lead
   * value (its zone map, computed once per batch) is worse than the `limit`-th row kept, or
   * than the plan's proven floor (from the first batch on). Then the scan skips the batch,
   * WHERE clause included.
   */
  canSkip(ctx: BatchCtx): boolean {
    const spec = this.#spec;
    if (spec.limit === 0) return true;
    if (this.#rows.length < spec.limit && this.#floor === -Infinity) return false;
    // Without ORDER BY any `limit` matching rows are the answer: the rest of the shard is skipped.
    if (spec.orderBy.length === 0) return true;
    const lead = leadKey(spec);
    let v: ValueVec;
    try {
      v = evalValue(spec.columns[lead.column]!.expr, ctx);
    } catch (err) {
      // The lead key over the whole batch, WHERE not applied yet, may refuse a row the WHERE
      // drops (sqrt of a negative): no zone map then, the batch is scanned.
      if (err instanceof CanopyError && err.code === 'CANOPY_ERR_OUT_OF_RANGE') return false;
      throw err;
    }
    if (v.t !== 'num') return false;
    // With NULLS FIRST a NULL beats every value: a batch holding one is scanned.
    if (lead.nullsFirst === true && anyNull(v, ctx.rows)) return false;
    return bestScoreOf(v, ctx.rows, lead.desc) < this.#threshold();
  }

  /**
   * Rows of `sel[0..n)` that can still enter the top `limit` by the lead sort key alone, for a
   * numeric or string lead key: a threshold (the `limit`-th best lead score among the kept rows and the
   * candidates so far) is tightened whenever the candidates double, and rows scoring below it
   * are dropped. Every row of the true top `limit` scores at least the threshold, so the exact
   * comparison that follows sees all of them. Null for other lead keys (constants, bigints).
   */
  #prefilter(views: readonly ValueVec[], rows: number, sel: Int32Array | null, n: number): { sel: Int32Array; n: number } | null {
    const lead = leadKey(this.#spec);
    const v = views[lead.column]!;
    if (v.t !== 'num' && v.t !== 'str') return null;
    const limit = this.#spec.limit;
    const desc = lead.desc;
    // A NULL scores below every value (NULLS LAST) or above (NULLS FIRST).
    const nullScore = lead.nullsFirst === true ? Infinity : -Infinity;
    // Strings score by their rank in the shard's sorted string table (code-point order).
    const vals: ArrayLike<number> = v.t === 'num' ? v.values : v.codes;
    const rank = v.t === 'str' ? v.rank : null;
    const valid = v.valid;
    if (this.#cand.length < rows) {
      this.#cand = new Int32Array(rows);
      this.#scores = new Float64Array(rows);
    }
    const cand = this.#cand;
    const scores = this.#scores;
    let thr = rank === null ? this.#threshold() : -Infinity;
    let m = 0;
    let next = Math.max(4 * limit, 64);
    for (let j = 0; j < n; j++) {
      const i = sel === null ? j : sel[j]!;
      const s = valid !== null && !isValid(valid, i) ? nullScore : score(rank === null ? vals[i]! : rank[vals[i]!]!, desc);
      if (s < thr) continue;
      cand[m] = i;
      scores[m++] = s;
      if (m >= next) {
        // The limit-th best score among the candidates: a valid (lower) bound on the k-th best overall.
        const sorted = scores.slice(0, m).sort();
        const kth = sorted[m - limit]!;
        if (kth > thr) {
          thr = kth;
          let w = 0;
          for (let r = 0; r < m; r++) {
            if (scores[r]! >= thr) {
              cand[w] = cand[r]!;
              scores[w++] = scores[r]!;
            }
          }
          m = w;
        }
        next = Math.max(next, 2 * m);
      }
    }
    return { sel: cand, n: m };
  }

  /** Adds the selected rows `sel[0..n)` of one batch. */
  addBatch(ctx: BatchCtx, sel: Int32Array | null, n: number): void {
    const limit = this.#spec.limit;
    if (limit === 0 || n === 0) return;
    const views = this.#spec.columns.map((c) => evalValue(c.expr, ctx));
    const pre = n > limit || this.#floor !== -Infinity ? this.#prefilter(views, ctx.rows, sel, n) : null;
    if (pre !== null) {
      sel = pre.sel;
      n = pre.n;
    }
    const colCmp = views.map(columnComparator);
    const order = this.#spec.orderBy;
    const cmp = (i: number, j: number): number => {
      for (const o of order) {
        const c = colCmp[o.column]!(i, j);
        if (c !== 0) {
          // NULLs keep their place (last, or first with NULLS FIRST) whatever the direction.
          const v = views[o.column]!;
          const nullInvolved = v.t !== 'const' && (!isValid(v.valid, i) || !isValid(v.valid, j));
          if (nullInvolved) return o.nullsFirst === true ? -c : c;
          return o.desc ? -c : c;
        }
      }
      for (const c of colCmp) {
        const r = c(i, j);
        if (r !== 0) return r;
      }
      return 0;
    };
    let kept: number[];
    if (n <= limit) {
      kept = Array.from({ length: n }, (_, j) => (sel === null ? j : sel[j]!)).sort(cmp);
    } else {
      // Max-heap of the best `limit` rows: the worst kept row is at the front.
      const heap = new PriorityQueue<number>((a, b) => cmp(b, a));
      for (let j = 0; j < n; j++) {
        const i = sel === null ? j : sel[j]!;
        if (heap.size() < limit) heap.enqueue(i);
        else if (cmp(i, heap.front()!) < 0) {
          heap.dequeue();
          heap.enqueue(i);
        }
      }
      kept = heap.toArray().sort(cmp);
    }
    const types = this.#spec.columns.map((c) => c.type);
    const rows = kept.map((i) => views.map((v, c) => scalarAt(v, types[c]!, i)));
    this.#rows = kWayMerge([this.#rows, rows], this.#layout.compareRows, limit);
  }

  /** The sorted rows kept so far. */
  result(): (readonly Scalar[])[] {
    return this.#rows;
  }
}
