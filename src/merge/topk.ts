/**
 * Group top-k with bounds (pure): truncation to the best `fetch` groups with a bound on
 * everything dropped, the bookkeeping a gather needs to turn its children's truncated
 * lists into per-group intervals, and the proof that a final top-k is exact.
 *
 * Scores are `sign × value` of the ordering aggregate and only grow as shards merge
 * (see {@link TopKSpec}). A child reports, besides its best groups, `bound`: no group it did
 * not report has a score above it in that child (-Infinity: it reported every group).
 * For `add` scores a group's total is then within [lo, lo + Σ bounds of the children that
 * did not report it]; for `max` scores within [lo, max(lo, bounds)]. This is the threshold
 * reasoning of Fagin, Lotem and Naor (2003) and of TPUT (Cao and Wang, PODC 2004).
 */
import type { Cell } from './bounds.ts';
import { compareSql, compareStrings } from './compare.ts';
import { GroupIndex, keyDictOf, type KeyDict } from './group-index.ts';
import { isCountKind } from './kinds/count.ts';
import { groupKeyString, groupsOf, type ColumnarPartial, type GroupEntry, type GroupedPartial, type KeyColumn, type PartialLayout, type StateColumn } from './partial.ts';
import type { Scalar, TopKSpec } from './types.ts';

/** What a child says about the groups it dropped and the ones it reported. */
export interface TopKFrame {
  /** Upper bound on the score of any group the child did not report; -Infinity if it reported all. */
  readonly bound: number;
  /** Per reported group (aligned with the columnar partial): upper bound on its score. */
  readonly his: readonly number[];
  /** Per reported group: true when its states are complete for the child's shards. */
  readonly exact: readonly boolean[];
}

const EXACT = 2 ** 53;

/**
 * `his` arrays known to hold the own scores (`scoreOf(..., up = true)`) of complete groups,
 * each with the `exact` array (all true) and the ordering partial's state column they were
 * computed from: a leaf's truncation and a frame saying `own: true` record theirs, so readers
 * skip checking them group by group. Keyed by the arrays themselves, so a frame put together
 * with another `his`, `exact` or partial (a spread) is checked group by group as before.
 */
const OWN_SCORES = new WeakMap<readonly number[], { readonly exact: readonly boolean[]; readonly states: StateColumn }>();

/**
 * A top-k frame whose `his` are the own scores of `states` (the ordering partial's column),
 * every group complete (`exact` all true), recorded for {@link hasOwnScores}.
 */
export function ownScoresFrame(bound: number, his: readonly number[], exact: readonly boolean[], states: StateColumn): TopKFrame {
  OWN_SCORES.set(his, { exact, states });
  return { bound, his, exact };
}

/** Frames made by {@link lazyOwnScoresFrame}, each with the state column its scores are of. */
const LAZY_OWN_SCORES = new WeakMap<TopKFrame, StateColumn>();

/**
 * {@link ownScoresFrame} of `states` (the ordering partial's column, no score of which is
 * NaN) whose `his` and `exact` arrays are only built when first read: a leaf that sends all
 * its groups in an `own: true` frame never needs them. Its arrays, once built, are recorded
 * as {@link ownScoresFrame}'s, and cannot be replaced (the frame has only getters).
 */
function lazyOwnScoresFrame(layout: PartialLayout, spec: TopKSpec, bound: number, states: StateColumn): TopKFrame {
  let arrays: { readonly his: readonly number[]; readonly exact: readonly boolean[] } | null = null;
  const built = (): { readonly his: readonly number[]; readonly exact: readonly boolean[] } => {
    if (arrays === null) {
      const his = ownScoresOf(layout, spec, states)!;
      const exact = new Array<boolean>(states.length).fill(true);
      OWN_SCORES.set(his, { exact, states });
      arrays = { his, exact };
    }
    return arrays;
  };
  const frame: TopKFrame = {
    bound,
    get his() {
      return built().his;
    },
    get exact() {
      return built().exact;
    },
  };
  LAZY_OWN_SCORES.set(frame, states);
  return frame;
}

/** Whether `t` was made by {@link ownScoresFrame} for `states` (its arrays unchanged since), or by {@link lazyOwnScoresFrame} for them. */
export function hasOwnScores(t: TopKFrame, states: StateColumn): boolean {
  const lazy = LAZY_OWN_SCORES.get(t);
  if (lazy !== undefined) return lazy === states;
  const o = OWN_SCORES.get(t.his);
  return o !== undefined && o.exact === t.exact && o.states === states;
}

/**
 * The score of a state: sign × value, -Infinity for NULL; rounded outward above 2^53 (finite
 * scores only: ±Infinity stays itself). NaN, which sorts above +Infinity (DuckDB, PostgreSQL),
 * scores +Infinity under MAX DESC and -Infinity under MIN ASC: a tie with a true ±Infinity or
 * NULL that the proofs only ever take as unproven, never as a win.
 */
export function scoreOf(layout: PartialLayout, spec: TopKSpec, state: unknown, up = false): number {
  const kind = layout.kinds[spec.partial]!;
  // COUNT states are their value (a safe integer): no bigint per group.
  if (typeof state === 'number' && isCountKind(kind)) return spec.sign * state;
  const v: Scalar = kind.finalise(state);
  if (v === null) return -Infinity;
  const n = Number(v);
  if (n !== n) return spec.sign === 1 ? Infinity : -Infinity;
  let x = spec.sign * n;
  if (Math.abs(x) >= EXACT && x !== Infinity && x !== -Infinity) x += (up ? 1 : -1) * Math.abs(x) * Number.EPSILON * 2;
  return x;
}

/** A score back as a value of the ordering aggregate (int64 as bigint, rounded up or down); null for -Infinity. */
export function valueOfScore(spec: TopKSpec, score: number, isInt: boolean, roundUp: boolean): Scalar {
  if (!Number.isFinite(score)) return null;
  const v = spec.sign * score;
  if (!isInt) return v;
  return BigInt(roundUp ? Math.ceil(v) : Math.floor(v));
}

/**
 * Keeps the best `spec.fetch` groups of a node's merged partial (ties broken by group key),
 * and bounds what it drops; all of them when they fit `spec.budgetBytes`; with
 * `spec.minScorePerShard`, every group whose upper bound reaches `shards` × that threshold.
 * @param his per-group upper bounds and exactness already known (aggregators), or null (leaves: exact)
 * @param unseen bound on groups this node never saw (from its children), -Infinity at leaves
 * @param shards shards this node answers for (the threshold round scales by it)
 */
export function truncateTopK(
  layout: PartialLayout,
  spec: TopKSpec,
  partial: ColumnarPartial | GroupedPartial,
  his: ReadonlyMap<string, { hi: number; exact: boolean }> | null,
  unseen: number,
  shards = 1,
): { partial: ColumnarPartial; topk: TopKFrame } {
  // No per-group intervals (a leaf, or a gather whose children all reported everything exactly): every group is exact at its own score.
  if (partial.type === 'columnar' && (his === null || his.size === 0)) {
    const fast = truncateColumnar(layout, spec, partial, unseen, shards);
    if (fast !== null) return fast;
  }
  // Map keys are groupKeyString of the keys: built once per group (by the accumulator's result).
  const keyed = [...groupsOf(partial)];
  const n = keyed.length;
  const entries: GroupEntry[] = keyed.map((x) => x[1]);
  const nk = layout.keyTypes.length;
  const columnarOf = (idx: readonly number[]): ColumnarPartial => ({
    type: 'columnar',
    size: idx.length,
    keys: Array.from({ length: nk }, (_, k) => idx.map((i) => entries[i]!.keys[k]!)),
    states: layout.kinds.map((_, q) => idx.map((i) => entries[i]!.states[q])),
  });
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  const exact: boolean[] = new Array(n);
  let nan = false;
  for (let i = 0; i < n; i++) {
    const [key, e] = keyed[i]!;
    const h = his?.get(key);
    lo[i] = scoreOf(layout, spec, e.states[spec.partial]);
    hi[i] = h?.hi ?? scoreOf(layout, spec, e.states[spec.partial], true);
    exact[i] = h?.exact ?? true;
    if (Number.isNaN(lo[i]!)) nan = true;
  }
  const every = (): number[] => Array.from({ length: n }, (_, i) => i);
  const budget = budgetOf(spec, shards, unseen);
  if (n > spec.fetch && budget !== undefined && estimateGroupBytes(layout, entries, budget) <= budget) {
    // Everything fits the byte budget: all groups go up, and the bound is only what this
    // node's children left unreported (`unseen`; -Infinity at a leaf).
    return { partial: columnarOf(every()), topk: { bound: unseen, his: Array.from(hi), exact } };
  }
  const byRank = (a: number, b: number): number => lo[b]! - lo[a]! || compareStrings(keyed[a]![0], keyed[b]![0]);
  let kept: number[];
  if (spec.minScorePerShard !== undefined && spec.combine === 'add') {
    // Every group that may reach the threshold goes up (in no particular order: the parent
    // merges them); the dropped ones all bound below it.
    const threshold = shards * spec.minScorePerShard;
    kept = [];
    for (let i = 0; i < n; i++) if (hi[i]! >= threshold) kept.push(i);
  } else if (n <= spec.fetch) {
    kept = every().sort(byRank);
  } else if (!nan && cuts(spec, shards)) {
    kept = cutAt(lo, spec) ?? bestOf(lo, spec.fetch, byRank);
  } else if (nan) {
    kept = every().sort(byRank).slice(0, spec.fetch);
  } else {
    kept = bestOf(lo, spec.fetch, byRank).sort(byRank);
  }
  let bound = unseen;
  if (kept.length < n) {
    // Anything dropped makes the bound finite, even a group whose score is NULL (-Infinity):
    // a finite bound is what tells the parent that unreported groups may exist here.
    bound = Math.max(bound, -Number.MAX_VALUE);
    const isKept = new Uint8Array(n);
    for (const i of kept) isKept[i] = 1;
    for (let i = 0; i < n; i++) if (isKept[i] === 0) bound = Math.max(bound, hi[i]!);
  }
  return { partial: columnarOf(kept), topk: { bound, his: kept.map((i) => hi[i]!), exact: kept.map((i) => exact[i]!) } };
}

/**
 * Indexes of the `fetch` best of `lo` (0 < fetch < lo.length, no NaN), unordered: the
 * fetch-th best score found by sorting a copy, every group above it, and the groups tied at
 * it first by `tieOrder` up to `fetch`.
 */
function bestOf(lo: Float64Array, fetch: number, tieOrder: (a: number, b: number) => number): number[] {
  const n = lo.length;
  const kth = kthLargest(lo, fetch);
  const kept: number[] = [];
  const ties: number[] = [];
  for (let i = 0; i < n; i++) {
    if (lo[i]! > kth) kept.push(i);
    else if (lo[i] === kth) ties.push(i);
  }
  ties.sort(tieOrder);
  kept.push(...ties.slice(0, fetch - kept.length));
  return kept;
}

/**
 * The `k`-th largest of `a` counting repeats (`a` sorted ascending, at `a.length - k`), for
 * 0 < k <= a.length and no NaN: a min-heap of the k largest seen, O(n log k), and O(n) in the
 * usual case where most values do not enter it; a sorted copy when k is a large share of n.
 * -0 and 0 are equal here (either may be returned).
 */
export function kthLargest(a: Float64Array, k: number): number {
  const n = a.length;
  if (k * 8 > n) return a.slice().sort()[n - k]!;
  const heap = new Float64Array(k);
  for (let i = 0; i < k; i++) {
    // Sift up.
    let j = i;
    const x = a[i]!;
    while (j > 0) {
      const up = (j - 1) >> 1;
      if (!(heap[up]! > x)) break;
      heap[j] = heap[up]!;
      j = up;
    }
    heap[j] = x;
  }
  for (let i = k; i < n; i++) {
    const x = a[i]!;
    if (!(x > heap[0]!)) continue;
    // Replace the smallest and sift down.
    let j = 0;
    for (;;) {
      const l = 2 * j + 1;
      if (l >= k) break;
      const r = l + 1;
      const c = r < k && heap[r]! < heap[l]! ? r : l;
      if (!(heap[c]! < x)) break;
      heap[j] = heap[c]!;
      j = c;
    }
    heap[j] = x;
  }
  return heap[0]!;
}

/**
 * The own scores (`scoreOf(..., up = true)`) of a state column, in a plain array (COUNT
 * states, numbers, without a call per group); null when one is NaN.
 */
function ownScoresOf(layout: PartialLayout, spec: TopKSpec, states: StateColumn): number[] | null {
  const n = states.length;
  const out = new Array<number>(n);
  const sign = spec.sign;
  const counts = isCountKind(layout.kinds[spec.partial]!);
  for (let i = 0; i < n; i++) {
    const s = states[i];
    const x = counts && typeof s === 'number' ? sign * s : scoreOf(layout, spec, s, true);
    if (x !== x) return null;
    out[i] = x;
  }
  return out;
}

/**
 * Whether no state of the column scores NaN ({@link scoreOf} maps a NaN value to ±Infinity:
 * only a COUNT state that is itself NaN scores NaN).
 */
function noNaNScore(layout: PartialLayout, spec: TopKSpec, states: StateColumn): boolean {
  if (!isCountKind(layout.kinds[spec.partial]!)) return true;
  for (let i = 0; i < states.length; i++) {
    const s = states[i];
    if (s !== s) return false;
  }
  return true;
}

/**
 * The own-scores frame of a decoded `own: true` frame's ordering states, built lazily as
 * {@link lazyOwnScoresFrame} builds a leaf's (its `his` and `exact` only when read: a parent
 * that merges the frame whole never reads them); null when a state scores NaN.
 */
export function decodedOwnScores(layout: PartialLayout, spec: TopKSpec, bound: number, states: StateColumn): TopKFrame | null {
  return noNaNScore(layout, spec, states) ? lazyOwnScoresFrame(layout, spec, bound, states) : null;
}

/** A plain array of the values of `a` (a loop: Array.from goes through the iterator protocol). */
function numbersOf(a: Float64Array): number[] {
  const out = new Array<number>(a.length);
  for (let i = 0; i < a.length; i++) out[i] = a[i]!;
  return out;
}

/**
 * The byte budget under which a node sends all its groups: `spec.budgetBytes`, or at a node
 * answering for one shard that reported nothing truncated (a leaf) the larger
 * `spec.shardBudgetBytes` when set. Undefined: always truncate.
 */
function budgetOf(spec: TopKSpec, shards: number, unseen: number): number | undefined {
  if (spec.shardBudgetBytes === undefined || shards !== 1 || unseen !== -Infinity) return spec.budgetBytes;
  return Math.max(spec.budgetBytes ?? 0, spec.shardBudgetBytes);
}

/** Whether this node cuts at `spec.cutRatio` × its k'-th score: `add` scores, several shards, not the threshold round. */
function cuts(spec: TopKSpec, shards: number): boolean {
  return spec.cutRatio !== undefined && spec.combine === 'add' && shards > 1 && spec.minScorePerShard === undefined;
}

/**
 * Indexes of every group whose score `lo` reaches `spec.cutRatio` × the `spec.fetch`-th best
 * score (0 < fetch < lo.length, no NaN), unordered: at least the best `fetch` (the k'-th
 * score is positive, so the cut is at most it). Null when the k'-th score is not positive
 * (no share of it to cut at: the caller keeps the best `fetch`).
 */
function cutAt(lo: Float64Array, spec: TopKSpec): number[] | null {
  const n = lo.length;
  const kth = kthLargest(lo, spec.fetch);
  if (!(kth > 0) || !Number.isFinite(kth)) return null;
  const cut = kth * Math.min(1, Math.max(0, spec.cutRatio ?? 1));
  const kept: number[] = [];
  for (let i = 0; i < n; i++) if (lo[i]! >= cut) kept.push(i);
  return kept;
}

/** Groups whose variable-width states are encoded to estimate their size. */
const SAMPLE = 8;

/**
 * Estimated Arrow bytes of `entries` as a frame's columns: 8 per number key or fixed-width
 * state, a string key's UTF-16 length plus its 4-byte offset, and for variable-width states
 * (sums as decimal text, sketches) the mean encoded size of the first {@link SAMPLE} groups'
 * states plus an offset. Stops counting once past `cap` (the answer is then > cap).
 */
export function estimateGroupBytes(layout: PartialLayout, entries: readonly GroupEntry[], cap = Infinity): number {
  return estimateBytes(layout, entries.length, (k) => entries.map((e) => e.keys[k] ?? null), (i, p) => entries[i]!.states[p], cap);
}

/** {@link estimateGroupBytes} of `n` groups: key column k from `keyColumn(k)`, state p of group i from `state(i, p)`. */
function estimateBytes(layout: PartialLayout, n: number, keyColumn: (k: number) => ArrayLike<Scalar>, state: (i: number, p: number) => unknown, cap: number): number {
  let perGroup = 0;
  layout.kinds.forEach((k, p) => {
    if (k.encoding === 'int64' || k.encoding === 'float64') {
      perGroup += 8;
      return;
    }
    const m = Math.min(SAMPLE, n);
    let sum = 0;
    for (let i = 0; i < m; i++) {
      const v = k.encode(state(i, p));
      sum += typeof v === 'string' ? v.length : v instanceof Uint8Array ? v.length : 8;
    }
    perGroup += 4 + (m === 0 ? 0 : sum / m);
  });
  const stringKeys: number[] = [];
  layout.keyTypes.forEach((t, i) => {
    if (t === 'string') stringKeys.push(i);
    else perGroup += 8;
  });
  let bytes = perGroup * n + 4 * n * stringKeys.length;
  // A string key column at a time, in blocks (so a column far over the cap is not read whole).
  for (const k of stringKeys) {
    const col = keyColumn(k);
    for (let i = 0; i < n && bytes <= cap; ) {
      const end = Math.min(n, i + 1024);
      for (; i < end; i++) {
        const v = col[i];
        if (typeof v === 'string') bytes += v.length;
      }
    }
    if (bytes > cap) return bytes;
  }
  return bytes;
}

/**
 * {@link truncateTopK} for a leaf's columnar partial (no per-group intervals yet): scores in a
 * typed array, the `fetch`-th best found by sorting the scores, and group key strings built
 * only for the groups tied at the cut and the ones kept (a high-cardinality GROUP BY has tens
 * of thousands of groups per shard). When every group is sent (they fit the byte budget or the
 * fetch) the input partial itself is returned, with only the own scores computed. Null when a
 * score is NaN (the general path decides).
 */
function truncateColumnar(layout: PartialLayout, spec: TopKSpec, p: ColumnarPartial, unseen: number, shards: number): { partial: ColumnarPartial; topk: TopKFrame } | null {
  const n = p.size;
  const st = p.states[spec.partial]!;
  const keyAt = (i: number, k: number): Scalar => p.keys[k]![i] ?? null;
  const keyString = (i: number): string => groupKeyString(p.keys.map((_, k) => keyAt(i, k)));
  const budget = budgetOf(spec, shards, unseen);
  // Every group fits the budget (or the fetch): the partial goes as it is, with its own scores
  // as bounds, and no lower scores, sort or copy (the threshold round keeps only the groups
  // reaching its threshold, however few).
  const thresholdRound = spec.minScorePerShard !== undefined && spec.combine === 'add';
  if (n <= spec.fetch ? !thresholdRound : budget !== undefined && estimateBytes(layout, n, (k) => p.keys[k]!, (i, q) => p.states[q]![i], budget) <= budget) {
    if (!noNaNScore(layout, spec, st)) return null;
    return { partial: p, topk: lazyOwnScoresFrame(layout, spec, unseen, st) };
  }
  const lo = new Float64Array(n);
  const hi = new Float64Array(n);
  for (let i = 0; i < n; i++) {
    lo[i] = scoreOf(layout, spec, st[i]);
    hi[i] = scoreOf(layout, spec, st[i], true);
    if (Number.isNaN(lo[i]!)) return null;
  }
  const all = (): { partial: ColumnarPartial; topk: TopKFrame } => ({ partial: p, topk: ownScoresFrame(unseen, numbersOf(hi), new Array<boolean>(n).fill(true), st) });
  let kept: number[];
  // Cut at a share of the k'-th score (aggregators under exact: true): sent in no particular order, as the threshold round's.
  const cut = n > spec.fetch && cuts(spec, shards) ? cutAt(lo, spec) : null;
  if (spec.minScorePerShard !== undefined && spec.combine === 'add') {
    const threshold = shards * spec.minScorePerShard;
    kept = [];
    for (let i = 0; i < n; i++) if (hi[i]! >= threshold) kept.push(i);
  } else if (n <= spec.fetch) {
    kept = Array.from({ length: n }, (_, i) => i);
  } else if (cut !== null) {
    kept = cut;
  } else {
    // Key strings only for the groups tied at the cut.
    const tieKeys = new Map<number, string>();
    const tieKey = (i: number): string => {
      let key = tieKeys.get(i);
      if (key === undefined) tieKeys.set(i, (key = keyString(i)));
      return key;
    };
    kept = bestOf(lo, spec.fetch, (a, b) => compareStrings(tieKey(a), tieKey(b)));
  }
  if (kept.length === n) return all();
  if ((spec.minScorePerShard === undefined || spec.combine !== 'add') && cut === null) {
    // Best first, ties by key (the threshold round's groups go up in no particular order, as truncateTopK's: the parent merges them).
    const keptKeys = new Map(kept.map((i) => [i, keyString(i)]));
    kept.sort((a, b) => lo[b]! - lo[a]! || compareStrings(keptKeys.get(a)!, keptKeys.get(b)!));
  }
  const isKept = new Uint8Array(n);
  for (const i of kept) isKept[i] = 1;
  // Something was dropped: the bound is finite (groups may exist here), at least the best dropped score.
  let bound = Math.max(unseen, -Number.MAX_VALUE);
  for (let i = 0; i < n; i++) if (isKept[i] === 0 && hi[i]! > bound) bound = hi[i]!;
  const states = p.states.map((col) => kept.map((i) => col[i]));
  return {
    partial: { type: 'columnar', size: kept.length, keys: p.keys.map((col) => kept.map((i) => col[i]!)), states },
    topk: ownScoresFrame(bound, kept.map((i) => hi[i]!), kept.map(() => true), states[spec.partial]!),
  };
}

/**
 * A gather's top-k bookkeeping: feed it each answering child's partial and top-k frame, then
 * ask for per-group intervals over the merged groups.
 */
export class TopKTracker {
  readonly #layout: PartialLayout;
  readonly #spec: TopKSpec;
  #boundSum = 0;
  #boundMax = -Infinity;
  #finite = 0;
  /** Children recorded group by group (their scores are the terms of the sums below). */
  #children = 0;
  /**
   * Scores that add are SUMs, whose sums of scores round: a float SUM's score is its exact sum
   * rounded once (and a truncating child's bound the score of a dropped group), so a sum of
   * scores may fall an ulp or more below the complete value (three shards' 1 + 1.1e-16, each
   * scored 1, add to 3; the complete sum is 3.0000000000000004); an int64 SUM's scores add
   * exactly only below 2^53 (511 added to 9e18 rounds away). See {@link TopKTracker.#up}.
   */
  readonly #rounds: 'float' | 'int' | null;
  /**
   * Per group recorded (ids from {@link GroupIndex}, no key string per record): its keys as
   * first seen, and per group the sum and max of the reported upper bounds, the best lower
   * bound, the bounds of the truncating children that reported it and their count, and
   * whether every report was complete.
   */
  readonly #index: GroupIndex;
  readonly #keys: Scalar[][];
  readonly #hiSum: number[] = [];
  readonly #hiMax: number[] = [];
  readonly #loMax: number[] = [];
  readonly #repBound: number[] = [];
  readonly #repFinite: number[] = [];
  readonly #exact: boolean[] = [];
  /** Answers of children that reported everything exactly, not yet recorded per group (null once one did not). */
  #plain: { partial: ColumnarPartial | GroupedPartial; topk: TopKFrame | undefined }[] | null = [];

  constructor(layout: PartialLayout, spec: TopKSpec) {
    this.#layout = layout;
    this.#spec = spec;
    this.#index = new GroupIndex(layout.keyTypes.length);
    this.#keys = layout.keyTypes.map(() => []);
    const kind = layout.kinds[spec.partial]!;
    this.#rounds = spec.combine !== 'add' || kind.kind !== 'sum' ? null : kind.argType === 'float64' ? 'float' : 'int';
  }

  /**
   * `sum`, a sum of recorded scores of total magnitude at most `terms`, moved up past the
   * rounding of each score (half an ulp of its exact value) and of each addition: (n + 2)·ε of
   * `terms` for n children covers both (non-negative scores: Higham, Accuracy and Stability of
   * Numerical Algorithms, 2nd ed., 2002, §4.2). Sums of counts, and of int64 scores below
   * 2^53, are exact.
   */
  #up(sum: number, terms: number): number {
    if (this.#rounds === null || !Number.isFinite(sum) || (this.#rounds === 'int' && Math.abs(terms) < 2 ** 53)) return sum;
    return sum + Math.abs(terms) * (this.#children + 2) * Number.EPSILON;
  }

  /**
   * Records one child's answer. A child without a top-k frame counts as having reported everything exactly.
   * While every child has reported all its groups exactly (bound -Infinity, each group
   * complete, its upper bound its own score: leaves under the byte budget, the threshold
   * round's leaves), the merged groups need no per-group bookkeeping: their intervals are
   * closed at the merged score. Those answers are kept aside and only recorded group by group
   * once a child reports a truncated list.
   */
  add(partial: ColumnarPartial | GroupedPartial, topk: TopKFrame | undefined): void {
    if (this.#plain !== null) {
      if (this.#reportsAll(partial, topk)) {
        this.#plain.push({ partial, topk });
        return;
      }
      const plain = this.#plain;
      this.#plain = null;
      for (const x of plain) this.#addGroups(x.partial, x.topk);
    }
    this.#addGroups(partial, topk);
  }

  /** True when a child's answer is every group it holds, each complete and bounded by its own score. */
  #reportsAll(partial: ColumnarPartial | GroupedPartial, topk: TopKFrame | undefined): boolean {
    if (topk === undefined) return true;
    if (topk.bound !== -Infinity) return false;
    const p = this.#spec.partial;
    if (partial.type === 'columnar' && hasOwnScores(topk, partial.states[p]!)) return true;
    const states = partial.type === 'columnar' ? partial.states[p]! : [...partial.groups.values()].map((e) => e.states[p]);
    for (let i = 0; i < states.length; i++) {
      if (topk.exact[i] !== true || topk.his[i] !== scoreOf(this.#layout, this.#spec, states[i], true)) return false;
    }
    return true;
  }

  #addGroups(partial: ColumnarPartial | GroupedPartial, topk: TopKFrame | undefined): void {
    const b = topk?.bound ?? -Infinity;
    const finite = b > -Infinity;
    this.#children++;
    if (finite) {
      this.#finite++;
      this.#boundSum += Math.max(0, b);
      this.#boundMax = Math.max(this.#boundMax, b);
    }
    const p = this.#spec.partial;
    if (partial.type === 'columnar') {
      // Column by column: a group id per group, no key string or entry object.
      const st = partial.states[p]!;
      // Several keys, each with a dictionary (Utf8 keys of a decoded frame, a leaf's string keys):
      // each distinct value coded once (as PartialAccumulator's merge does).
      const dicts = partial.keys.length >= 2 ? partial.keys.map((k) => keyDictOf(k)) : null;
      const coded = dicts !== null && dicts.every((d) => d !== undefined) ? (dicts as KeyDict[]) : null;
      const memo = coded === null ? null : coded.map((d) => new Int32Array(d.values.length).fill(-1));
      for (let i = 0; i < partial.size; i++) {
        let g = coded === null ? this.#index.find(partial.keys, i) : this.#index.findCoded(coded, memo!, i);
        if (g < 0) g = this.#newGroup(null, partial.keys, i);
        this.#record(g, st[i], topk, i, finite, b);
      }
      return;
    }
    let i = 0;
    for (const e of partial.groups.values()) {
      let g = this.#index.findTuple(e.keys);
      if (g < 0) g = this.#newGroup(e.keys, [], 0);
      this.#record(g, e.states[p], topk, i++, finite, b);
    }
  }

  /** Adds the group the index just found absent: keys `keys`, or `cols[k][i]` when null. */
  #newGroup(keys: readonly Scalar[] | null, cols: readonly KeyColumn[], i: number): number {
    const g = this.#index.insert();
    for (let k = 0; k < this.#keys.length; k++) this.#keys[k]!.push(keys === null ? cols[k]![i]! : keys[k]!);
    this.#hiSum.push(0);
    this.#hiMax.push(-Infinity);
    this.#loMax.push(-Infinity);
    this.#repBound.push(0);
    this.#repFinite.push(0);
    this.#exact.push(true);
    return g;
  }

  #record(g: number, state: unknown, topk: TopKFrame | undefined, i: number, finite: boolean, b: number): void {
    const lo = scoreOf(this.#layout, this.#spec, state);
    const hi = topk?.his[i] ?? scoreOf(this.#layout, this.#spec, state, true);
    const exact = topk?.exact[i] ?? true;
    this.#hiSum[g]! += Number.isFinite(hi) ? hi : 0;
    this.#hiMax[g] = Math.max(this.#hiMax[g]!, hi);
    this.#loMax[g] = Math.max(this.#loMax[g]!, lo);
    if (finite) {
      this.#repBound[g]! += Math.max(0, b);
      this.#repFinite[g]!++;
    }
    if (!exact) this.#exact[g] = false;
  }

  /** An independent copy (a gather's snapshot adds its children's progressive updates to it). */
  clone(): TopKTracker {
    const c = new TopKTracker(this.#layout, this.#spec);
    c.#boundSum = this.#boundSum;
    c.#boundMax = this.#boundMax;
    c.#finite = this.#finite;
    c.#children = this.#children;
    c.#plain = this.#plain === null ? null : [...this.#plain];
    const keys: Scalar[] = new Array(this.#keys.length);
    for (let g = 0; g < this.#index.size; g++) {
      for (let k = 0; k < keys.length; k++) keys[k] = this.#keys[k]![g]!;
      c.#index.findTuple(keys);
      c.#newGroup(keys, [], 0);
      c.#hiSum[g] = this.#hiSum[g]!;
      c.#hiMax[g] = this.#hiMax[g]!;
      c.#loMax[g] = this.#loMax[g]!;
      c.#repBound[g] = this.#repBound[g]!;
      c.#repFinite[g] = this.#repFinite[g]!;
      c.#exact[g] = this.#exact[g]!;
    }
    return c;
  }

  /** Upper bound on the score of a group no child reported (-Infinity: there is none). */
  get unseen(): number {
    if (this.#finite === 0) return -Infinity;
    return this.#spec.combine === 'add' ? this.#up(this.#boundSum, this.#boundSum) : this.#boundMax;
  }

  /**
   * Per merged group: upper bound on its score and whether its states are complete.
   * A group is complete anyway, even if some truncating child did not report it or reported
   * it incomplete, when scores combine by maximum, its ordering aggregate is the plan's only
   * partial and its interval has closed (nothing unreported can beat its merged score:
   * lo = hi): a MAX (MIN) state is its value, and values that do not beat it leave it unchanged.
   */
  intervals(): Map<string, { hi: number; exact: boolean }> {
    const out = new Map<string, { hi: number; exact: boolean }>();
    // Every child reported everything exactly: each merged group is complete (absent: see TopKIntervals).
    if (this.#plain !== null) return out;
    const onlyOrdering = this.#spec.combine === 'max' && this.#layout.kinds.length === 1;
    const keys: Scalar[] = new Array(this.#keys.length);
    for (let g = 0; g < this.#index.size; g++) {
      const missing = this.#finite - this.#repFinite[g]!;
      const hiMax = this.#hiMax[g]!;
      const loMax = this.#loMax[g]!;
      const hi = this.#spec.combine === 'add' ? this.#up(this.#hiSum[g]! + (this.#boundSum - this.#repBound[g]!), this.#hiSum[g]! + this.#boundSum) : missing > 0 ? Math.max(hiMax, this.#boundMax) : hiMax;
      // At zero, only the winning zero's score (+0: MAX's 0.0, MIN's -0.0) closes it: an unreported 0.0 beats a MAX of -0.0.
      const closed = onlyOrdering && loMax > -Infinity && hi === loMax && !Object.is(loMax, -0);
      for (let k = 0; k < keys.length; k++) keys[k] = this.#keys[k]![g]!;
      out.set(groupKeyString(keys), { hi, exact: (this.#exact[g]! && missing === 0) || closed });
    }
    return out;
  }
}

/**
 * Whether the first `k` groups (by score, best first) are provably the top k: the k-th score
 * must beat every other group's upper bound and the bound on unseen groups, strictly (a group
 * that may reach the k-th score could win the tie on its key), except that a group may tie
 * when the caller has shown it loses the tie (`tieLoses`: its score is known exactly and the
 * query's tie-break places it after the k-th row on known values).
 * @param kthScore the k-th group's score (its lower bound)
 * @param others every group not among the first k: upper bound on its score, and whether it
 *   provably loses a tie at `kthScore`
 * @param unseen upper bound on the score of groups no node reported (-Infinity: none)
 */
export function topKProven(kthScore: number, others: readonly { readonly hi: number; readonly tieLoses: boolean }[], unseen: number): boolean {
  return others.every((o) => kthScore > o.hi || (kthScore === o.hi && o.tieLoses)) && (unseen === -Infinity || kthScore > unseen);
}

/** x moved outward past the rounding of one double operation (bigints and safe integers are exact). */
function outward(x: Scalar, up: boolean): Scalar {
  if (typeof x !== 'number' || Number.isSafeInteger(x) || !Number.isFinite(x)) return x;
  return x + (up ? 1 : -1) * Math.abs(x) * 4 * Number.EPSILON;
}

/**
 * The ordering cell of a top-k row that both sources of uncertainty touch: truncation (`t`,
 * from the tree's per-group intervals: the answered shards' value lies in [t.lo, t.hi]) and
 * missing shards (`b`, from boundAggregateAnswer: the complete value lies in [b.lo, b.hi]
 * given the answered value seen, `seen`, which both share; b.lo <= seen <= b.hi). Cells are in
 * value units (bigint for int64). Combining by maximum (MAX DESC): the complete value is
 * max(answered, missing), so it lies in [t.lo, max(t.hi, b.hi)]; MIN ASC mirrors it,
 * [min(t.lo, b.lo), t.hi]. Adding (COUNT, SUM over one sign): the missing shards add
 * M with 0 <= M <= b.hi - seen <= b.hi - b.lo = w (planTopK proved the sign from the catalog
 * of every shard), so [t.lo, t.hi + w]; SUM ASC over non-positive values, [t.lo - w, t.hi].
 * Doubles are widened outward by the rounding of each operation.
 * @returns the combined bounded cell, or an approximate cell without interval when either
 *   side has none (not bounded, an open end, or mismatched value types)
 */
export function combineTopKCell(spec: TopKSpec, t: Cell, b: Cell): Cell {
  const none: Cell = { label: 'approximate', lo: null, hi: null };
  const [tlo, thi, blo, bhi] = [t.lo ?? null, t.hi ?? null, b.lo ?? null, b.hi ?? null];
  if (t.label !== 'bounded' || b.label !== 'bounded' || tlo === null || thi === null || blo === null || bhi === null) return none;
  if (spec.combine === 'max') {
    if (spec.sign === 1) return { label: 'bounded', lo: tlo, hi: compareSql('>', bhi, thi) === true ? bhi : thi };
    return { label: 'bounded', lo: compareSql('<', blo, tlo) === true ? blo : tlo, hi: thi };
  }
  if (typeof tlo === 'bigint' && typeof thi === 'bigint' && typeof blo === 'bigint' && typeof bhi === 'bigint') {
    const w = bhi - blo;
    return spec.sign === 1 ? { label: 'bounded', lo: tlo, hi: thi + w } : { label: 'bounded', lo: tlo - w, hi: thi };
  }
  if (typeof tlo !== 'number' || typeof thi !== 'number' || typeof blo !== 'number' || typeof bhi !== 'number') return none;
  const w = outward(bhi - blo, true) as number;
  return spec.sign === 1 ? { label: 'bounded', lo: tlo, hi: outward(thi + w, true) } : { label: 'bounded', lo: outward(tlo - w, false), hi: thi };
}
