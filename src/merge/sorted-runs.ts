/**
 * Grouped partials of one numeric key merged as sorted runs: the merge of a high-cardinality
 * key (a timestamp: ~27,000 groups per 30,000-row shard, ~150,000 per aggregator) without a
 * hash table. A hash probe into a table of that size misses the cache on every group (some
 * 300-400 ns per group on a 2-core VM); merging runs whose keys ascend reads and writes
 * memory in order (some 20-60 ns per group). Leaves of a time-ordered shard give ascending
 * keys (groups in first-appearance order), and a merged run ascends too, so an aggregator's
 * answer feeds its parent's runs.
 *
 * COUNT alone over integer keys on a small grid (timestamps of whole minutes: every key is
 * lo + i·step for i < D, with D within a few times the groups held) skips even that: the runs
 * are held unmerged and {@link SortedRuns.collapse} adds each run's counts into one array
 * indexed by i, the dense domain, then reads it out in order; each group is touched twice
 * instead of O(log runs) times, with no comparison to mispredict. This is DuckDB's perfect
 * hash aggregation (a key range known small, from min/max statistics) with the step found
 * from the keys themselves (the gcd of their differences).
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
  /** While every run held fits one dense domain (COUNT alone): the runs are held unmerged; null otherwise. */
  #grid: Grid | null;

  /**
   * @param kinds one state kind per partial (none with `mergeOwned`)
   * @param check called every {@link CHECK_EVERY} groups merged (cancellation, deadline); may throw
   */
  constructor(kinds: readonly StateKind<unknown>[], check?: () => void) {
    this.#kinds = kinds;
    this.#check = check;
    this.#grid = kinds.length === 1 && isCountKind(kinds[0]!) ? { anchor: 0, step: 0, lo: 0, hi: 0, size: 0 } : null;
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
    const run: Run = { keys: keys as ArrayLike<number>, states, size };
    this.#held += size;
    if (this.#grid !== null && this.#fitsGrid(run)) {
      this.#runs.push(run);
      // Many runs in and the keys still sparse on their grid: they will stay so.
      if (this.#runs.length >= GRID_DECIDE_RUNS && !this.#gridDense()) this.#offGrid();
      return;
    }
    if (this.#grid !== null) this.#offGrid();
    this.#push(run);
  }

  /** Whether the grid's slots are few enough for the groups held ({@link GRID_SLOTS_PER_GROUP}). */
  #gridDense(): boolean {
    return gridSlots(this.#grid!) <= GRID_SLOTS_PER_GROUP * this.#held + GRID_SLACK;
  }

  /** Off the grid for good: the runs held so far go through the binary counter, in order. */
  #offGrid(): void {
    this.#grid = null;
    for (const r of this.#runs.splice(0)) this.#push(r);
  }

  /** Pushes a run onto the binary counter and merges down while the top is at least as large as the one below. */
  #push(run: Run): void {
    const runs = this.#runs;
    runs.push(run);
    while (runs.length >= 2 && runs[runs.length - 1]!.size >= runs[runs.length - 2]!.size) {
      const b = runs.pop()!;
      const a = runs.pop()!;
      runs.push(this.#merge(a, b));
    }
  }

  /**
   * Whether the runs held and `run` still fit a dense domain ({@link Grid}), updating it for
   * `run`: a COUNT state as a Float64Array, integer keys within ±2^52 (so differences are
   * exact), all congruent to the first key modulo the step (the gcd of the differences), and
   * at most {@link GRID_MAX_SLOTS} slots. One pass over the keys (a remainder each; the gcd
   * only when the step shrinks). The grid is left as it was when `run` does not fit.
   */
  #fitsGrid(run: Run): boolean {
    const g = this.#grid!;
    const keys = run.keys;
    const n = run.size;
    if (!(run.states[0] instanceof Float64Array)) return false;
    const first = keys[0]!;
    const last = keys[n - 1]!;
    if (!(Math.abs(first) <= GRID_MAX_KEY && Math.abs(last) <= GRID_MAX_KEY) || !Number.isInteger(first)) return false;
    const anchor = g.size === 0 ? first : g.anchor;
    let step = g.step;
    let inv = step === 0 ? 0 : 1 / step;
    for (let i = 0; i < n; i++) {
      const k = keys[i]!;
      const d = k - anchor;
      // d is a multiple of step (exact products below 2^53); with step 0, d is 0. A -0 key
      // would come back as 0: off the grid.
      if (Math.round(d * inv) * step !== d) {
        step = gcd(step, Math.abs(d));
        if (!Number.isInteger(step)) return false;
        inv = 1 / step;
      }
      if (k === 0 && 1 / k < 0) return false;
    }
    const next = { anchor, step, lo: g.size === 0 ? first : Math.min(g.lo, first), hi: g.size === 0 ? last : Math.max(g.hi, last), size: g.size + n };
    if (gridSlots(next) > GRID_MAX_SLOTS) return false;
    this.#grid = next;
    return true;
  }

  /**
   * Merges every run into one and returns it (keys ascending, one per group; the arrays are
   * never written again): `keys` the partial's array or a Float64Array (its length may exceed
   * `size`), `states[s]` per partial.
   */
  collapse(): { keys: ArrayLike<number>; states: readonly StateColumn[]; size: number } {
    const runs = this.#runs;
    if (this.#grid !== null && runs.length >= 2) {
      if (this.#gridDense()) runs.splice(0, runs.length, this.#gridMerge(runs, this.#grid));
      else this.#offGrid();
    }
    while (runs.length >= 2) {
      const b = runs.pop()!;
      const a = runs.pop()!;
      runs.push(this.#merge(a, b));
    }
    const r = runs[0];
    this.#held = r?.size ?? 0;
    return r ?? { keys: EMPTY_KEYS, states: this.#kinds.map(() => []), size: 0 };
  }

  /**
   * The runs (COUNT over keys on `grid`) merged through the dense domain: key k goes to slot
   * (k − lo) / step (exact for these integers, held as round((k − lo) · (1/step)), whose error
   * is far below ½ for at most {@link GRID_MAX_SLOTS} slots); a slot holds the sum of its
   * counts (COUNT's merge, exact below 2^53), NaN while no key went there, and gives back the
   * key lo + slot · step (exact). Inputs untouched.
   */
  #gridMerge(runs: readonly Run[], grid: Grid): Run {
    const { lo, step } = grid;
    const slots = gridSlots(grid);
    const inv = step === 0 ? 0 : 1 / step;
    const sums = new Float64Array(slots).fill(NaN);
    const check = this.#check;
    let done = 0;
    for (const r of runs) {
      const keys = r.keys;
      const counts = r.states[0] as Float64Array;
      const n = r.size;
      for (let i = 0; i < n; i++) {
        const s = Math.round((keys[i]! - lo) * inv);
        const v = sums[s]!;
        sums[s] = (v === v ? v : 0) + counts[i]!;
      }
      done += n;
      if (done >= CHECK_EVERY) {
        done = 0;
        check?.();
      }
    }
    let m = 0;
    for (let s = 0; s < slots; s++) if (sums[s] === sums[s]) m++;
    const keys = new Float64Array(m);
    const counts = new Float64Array(m);
    for (let s = 0, o = 0; o < m; s++) {
      const v = sums[s]!;
      if (v !== v) continue;
      keys[o] = lo + s * step;
      counts[o++] = v;
    }
    this.#held = m;
    this.#grid = { ...grid, size: m };
    return { keys, states: [counts], size: m };
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

/**
 * The dense domain of the keys held (see the module comment): every key is anchor + j·step
 * for an integer j (step 0: every key is the anchor), the keys span [lo, hi], `size` keys held
 * (counting a key once per run; 0: none yet, the other fields unset).
 */
interface Grid {
  readonly anchor: number;
  readonly step: number;
  readonly lo: number;
  readonly hi: number;
  readonly size: number;
}

/** Largest |key| on a grid: differences of two such keys are exact doubles. */
const GRID_MAX_KEY = 2 ** 52;

/**
 * The runs are merged on their grid when it has at most this many slots per group held,
 * plus {@link GRID_SLACK}: reading out a slot costs a fraction of moving a group through
 * the O(log runs) merges of the binary counter.
 */
const GRID_SLOTS_PER_GROUP = 8;
const GRID_SLACK = 4096;

/** Most slots of a grid (16 bytes each: 16 MiB for the two arrays while merging). */
const GRID_MAX_SLOTS = 1 << 20;

/** Runs held unmerged on a grid before its density decides whether they stay so. */
const GRID_DECIDE_RUNS = 32;

/** Slots of a grid's domain: (hi − lo) / step + 1. */
function gridSlots(g: Grid): number {
  return g.step === 0 ? 1 : (g.hi - g.lo) / g.step + 1;
}

/** Greatest common divisor of two non-negative integers held as doubles (Euclid; exact below 2^53). */
function gcd(a: number, b: number): number {
  while (b !== 0) [a, b] = [b, a % b];
  return a;
}

/** Groups merged between two calls of the check hook. */
const CHECK_EVERY = 4096;
