/**
 * Grouped partials of one numeric key merged as sorted runs: the merge of a high-cardinality
 * key (a timestamp: ~27,000 groups per 30,000-row shard, ~150,000 per aggregator) without a
 * hash table. A hash probe into a table of that size misses the cache on every group (some
 * 300-400 ns per group on a 2-core VM); merging runs whose keys ascend reads and writes
 * memory in order (some 20-60 ns per group). Leaves of a time-ordered shard give ascending
 * keys (groups in first-appearance order), and a merged run ascends too, so an aggregator's
 * answer feeds its parent's runs.
 *
 * Pure code, no I/O. Used by {@link PartialAccumulator} (partial.ts) while every partial added
 * qualifies ({@link strictlyAscending}); the accumulator falls back to its hash index otherwise.
 */
import { isCountKind, type StateKind } from './kinds/index.ts';
import type { StateColumn } from './partial.ts';
import type { Scalar } from './types.ts';

/**
 * Whether the first `n` cells are numbers, each greater than the one before: then no two are
 * equal, and none is NULL or NaN. One sequential pass.
 */
export function strictlyAscending(col: ArrayLike<Scalar>, n: number): boolean {
  if (n === 0) return true;
  let prev = col[0];
  if (typeof prev !== 'number' || prev !== prev) return false;
  for (let i = 1; i < n; i++) {
    const x = col[i];
    if (typeof x !== 'number' || !(x > prev)) return false;
    prev = x;
  }
  return true;
}

/**
 * One run: groups `[0, size)` with keys strictly ascending, `states[s][i]` partial s of group i.
 * Keys are the partial's own array or a Float64Array a merge made; neither is ever written
 * after the run is made, so runs share arrays with the partials they came from and with the
 * snapshots taken.
 */
interface Run {
  readonly keys: ArrayLike<number>;
  readonly states: readonly StateColumn[];
  readonly size: number;
}

/**
 * Ascending runs of one numeric key with their states, merged on the way as a binary counter
 * (a run is merged with the one below it while it is at least as large), so each group is
 * moved O(log runs) times; {@link collapse} merges what is left into one run. The gather adds
 * an answer whole (see {@link PartialAccumulator.takesWholeAnswers}), not in blocks. States of equal
 * keys merge with `kind.merge` (kinds without in-place merging: the accumulator takes sorted
 * runs only for those), so no state is ever updated in place and runs may share them with
 * the partials they came from and the snapshots taken.
 */
export class SortedRuns {
  readonly #kinds: readonly StateKind<unknown>[];
  readonly #check: (() => void) | undefined;
  readonly #runs: Run[] = [];
  /** Groups held in the runs, counting a key once per run (an upper bound on the groups). */
  #held = 0;

  /**
   * @param kinds one state kind per partial (none with `mergeOwned`)
   * @param check called every {@link CHECK_EVERY} groups merged (cancellation, deadline); may throw
   */
  constructor(kinds: readonly StateKind<unknown>[], check?: () => void) {
    this.#kinds = kinds;
    this.#check = check;
  }

  /** Upper bound on the distinct groups held (exact after {@link collapse}). */
  get held(): number {
    return this.#held;
  }

  /**
   * Adds the groups of a partial whose key column `keys` ascends strictly ({@link strictlyAscending}):
   * its arrays are kept as they are (never written), then runs are merged down the binary counter.
   */
  add(keys: ArrayLike<Scalar>, states: readonly StateColumn[], size: number): void {
    if (size === 0) return;
    const runs = this.#runs;
    runs.push({ keys: keys as ArrayLike<number>, states, size });
    this.#held += size;
    while (runs.length >= 2 && runs[runs.length - 1]!.size >= runs[runs.length - 2]!.size) {
      const b = runs.pop()!;
      const a = runs.pop()!;
      runs.push(this.#merge(a, b));
    }
  }

  /**
   * Merges every run into one and returns it (keys ascending, one per group; the arrays are
   * never written again): `keys` the partial's array or a Float64Array (its length may exceed
   * `size`), `states[s]` per partial.
   */
  collapse(): { keys: ArrayLike<number>; states: readonly StateColumn[]; size: number } {
    const runs = this.#runs;
    while (runs.length >= 2) {
      const b = runs.pop()!;
      const a = runs.pop()!;
      runs.push(this.#merge(a, b));
    }
    const r = runs[0];
    this.#held = r?.size ?? 0;
    return r ?? { keys: EMPTY_KEYS, states: this.#kinds.map(() => []), size: 0 };
  }

  /** Merges two runs into a new one (inputs untouched). */
  #merge(a: Run, b: Run): Run {
    const sa = a.states[0];
    const sb = b.states[0];
    if (this.#kinds.length === 1 && isCountKind(this.#kinds[0]!) && sa instanceof Float64Array && sb instanceof Float64Array) {
      return this.#mergeCounts(a.keys, sa, a.size, b.keys, sb, b.size);
    }
    const na = a.size;
    const nb = b.size;
    const ak = a.keys;
    const bk = b.keys;
    const kinds = this.#kinds;
    const ns = kinds.length;
    const check = this.#check;
    const cap = na + nb;
    const keys = new Float64Array(cap);
    const states: unknown[][] = [];
    for (let s = 0; s < ns; s++) states.push(new Array<unknown>(cap));
    let i = 0;
    let j = 0;
    let o = 0;
    let nextCheck = CHECK_EVERY;
    while (i < na && j < nb) {
      const x = ak[i]!;
      const y = bk[j]!;
      if (x < y) {
        keys[o] = x;
        for (let s = 0; s < ns; s++) states[s]![o] = a.states[s]![i];
        i++;
      } else if (y < x) {
        keys[o] = y;
        for (let s = 0; s < ns; s++) states[s]![o] = b.states[s]![j];
        j++;
      } else {
        keys[o] = x;
        for (let s = 0; s < ns; s++) states[s]![o] = kinds[s]!.merge(a.states[s]![i], b.states[s]![j]);
        i++;
        j++;
      }
      if (++o === nextCheck) {
        nextCheck += CHECK_EVERY;
        check?.();
      }
    }
    for (; i < na; i++, o++) {
      keys[o] = ak[i]!;
      for (let s = 0; s < ns; s++) states[s]![o] = a.states[s]![i];
    }
    for (; j < nb; j++, o++) {
      keys[o] = bk[j]!;
      for (let s = 0; s < ns; s++) states[s]![o] = b.states[s]![j];
    }
    for (const st of states) st.length = o;
    this.#held -= cap - o;
    return { keys, states, size: o };
  }

  /**
   * {@link merge} of two runs of one COUNT state each held as Float64Arrays (decoded frames,
   * earlier merges of them): equal keys add their counts (COUNT's merge), in one typed loop.
   */
  #mergeCounts(ak: ArrayLike<number>, ac: Float64Array, na: number, bk: ArrayLike<number>, bc: Float64Array, nb: number): Run {
    const cap = na + nb;
    const keys = new Float64Array(cap);
    const counts = new Float64Array(cap);
    const check = this.#check;
    let i = 0;
    let j = 0;
    let o = 0;
    while (i < na && j < nb) {
      const x = ak[i]!;
      const y = bk[j]!;
      if (x < y) {
        keys[o] = x;
        counts[o] = ac[i++]!;
      } else if (y < x) {
        keys[o] = y;
        counts[o] = bc[j++]!;
      } else {
        keys[o] = x;
        counts[o] = ac[i++]! + bc[j++]!;
      }
      if ((++o & (CHECK_EVERY - 1)) === 0) check?.();
    }
    for (; i < na; i++, o++) {
      keys[o] = ak[i]!;
      counts[o] = ac[i]!;
    }
    for (; j < nb; j++, o++) {
      keys[o] = bk[j]!;
      counts[o] = bc[j]!;
    }
    this.#held -= cap - o;
    return { keys, states: [counts.subarray(0, o)], size: o };
  }
}

const EMPTY_KEYS = new Float64Array(0);

/** Groups merged between two calls of the check hook. */
const CHECK_EVERY = 4096;
