/**
 * approx_quantile(col, q) and median(col): a DDSketch (Masson, Rim, Lee, "DDSketch: a fast
 * and fully-mergeable quantile sketch with relative-error guarantees", VLDB 2019) from
 * @datadog/sketches-js 2.1.1: logarithmic buckets of ratio γ = (1 + α)/(1 - α), one store
 * for positive values, one for negative values, and a count of zeros.
 *
 * Relative accuracy α (per column type, {@link QUANTILE_ACCURACY}): 0.01 for int64 and
 * float64; 1e-4 for timestamps, whose values are milliseconds since 1970 (0.01 of that is
 * about 4 months in 2001; 1e-4 is about a day).
 *
 * The quantile is DuckDB's `quantile_disc`: the element at 0-based index
 * max(0, ceil(q·n) - 1) of the sorted values (for median, the lower middle one). The sketch
 * returns a value x̂ with |x̂ - x| <= α·|x| for that element x, hence
 * x ∈ [x̂/(1+α), x̂/(1-α)] for x̂ > 0 (mirrored for x̂ < 0; the zero bucket is 0), an interval
 * that is guaranteed, so the answer is *bounded*. The state also keeps the exact minimum and
 * maximum, which clamp the interval and answer q at the extremes exactly; for int64 the
 * interval is narrowed to integers. ±Infinity and NaN are counted apart and sorted as DuckDB
 * does (-Infinity first, then +Infinity, then NaN).
 *
 * From the library this uses the sketch's logarithmic index mapping (the bucket of a value
 * and the value of a bucket). The buckets are kept here, sparse (sorted keys and counts),
 * with merge, quantile lookup and wire encoding: in 2.1.1 the DenseStore grows with
 * `push.apply` and overflows the call stack past ~125,000 buckets (timestamps from 1970 to
 * 2001 at α = 1e-4 need 130,000), re-centres on every growth, `merge` drops the negative
 * store (DataDog/sketches-js#22), `getValueAtQuantile` uses rank q·(n - 1) rather than
 * quantile_disc's, and `toProto` needs protobufjs, which the package does not install
 * (DataDog/sketches-js#26). Sparse buckets cost memory and bytes per bucket in use only.
 */
import { DDSketch } from '@datadog/sketches-js';
import { CanopyError } from '../errors.ts';
import type { ColumnType } from '../types.ts';
import type { StateKind } from './kind.ts';
import { ByteReader, pushVarint } from './varint.ts';

/** Column types approx_quantile accepts. */
export type QuantileType = 'int64' | 'float64' | 'timestamp';

/** Relative accuracy α of the sketch, per column type. */
export const QUANTILE_ACCURACY: Readonly<Record<QuantileType, number>> = Object.freeze({ int64: 0.01, float64: 0.01, timestamp: 1e-4 });

type Mapping = DDSketch['mapping'];

/** The library's logarithmic mapping for each column type's α (never mutated). */
const MAPPINGS: Readonly<Record<QuantileType, Mapping>> = Object.freeze({
  int64: new DDSketch({ relativeAccuracy: QUANTILE_ACCURACY.int64 }).mapping,
  float64: new DDSketch({ relativeAccuracy: QUANTILE_ACCURACY.float64 }).mapping,
  timestamp: new DDSketch({ relativeAccuracy: QUANTILE_ACCURACY.timestamp }).mapping,
});

/**
 * Outward widening of the guaranteed interval, relative, covering the rounding of the
 * mapping's log and pow (measured well below 1e-13 over the whole double range).
 */
const SLACK = 1e-9;

/** Buckets in use: strictly increasing keys and their counts (integers >= 1). */
export interface Buckets {
  readonly keys: Int32Array;
  readonly counts: Float64Array;
  /** Sum of the counts. */
  readonly total: number;
}

const NO_BUCKETS: Buckets = Object.freeze({ keys: new Int32Array(0), counts: new Float64Array(0), total: 0 });

/**
 * The state: buckets of the positive values (key of v) and of the negative values (key of
 * -v), the count of zeros (|v| at most the mapping's smallest value), the exact minimum and
 * maximum of the finite values (±Infinity when there is none), and counts of -Infinity,
 * +Infinity and NaN. Null for no value. Immutable.
 */
export interface QuantileState {
  readonly type: QuantileType;
  readonly pos: Buckets;
  readonly neg: Buckets;
  readonly zero: number;
  readonly min: number;
  readonly max: number;
  readonly negInf: number;
  readonly posInf: number;
  readonly nan: number;
}

function isQuantileType(t: ColumnType | null): t is QuantileType {
  return t === 'int64' || t === 'float64' || t === 'timestamp';
}

/** Widest window of keys counted in a flat array; wider ranges are counted in a Map. */
const WINDOW_LIMIT = 1 << 16;

/**
 * Counts bucket keys while a sketch is built: a flat array over a window of keys that
 * doubles as needed (typed-array copies, no per-value allocation), or a Map once the keys
 * span more than {@link WINDOW_LIMIT}.
 */
class KeyCounter {
  #counts = new Float64Array(0);
  #offset = 0;
  /** Smallest and largest key counted in the window. */
  #lo = Infinity;
  #hi = -Infinity;
  #map: Map<number, number> | null = null;

  add(k: number): void {
    const i = k - this.#offset;
    if (i >= 0 && i < this.#counts.length) {
      this.#counts[i]!++;
      if (k < this.#lo) this.#lo = k;
      if (k > this.#hi) this.#hi = k;
    } else if (this.#map !== null) this.#map.set(k, (this.#map.get(k) ?? 0) + 1);
    else this.#grow(k);
  }

  #grow(k: number): void {
    const n = this.#counts.length;
    const lo = Math.min(k, this.#lo);
    const hi = Math.max(k, this.#hi);
    if (hi - lo + 1 > WINDOW_LIMIT) {
      this.#map = new Map();
      this.#counts.forEach((c, i) => c > 0 && this.#map!.set(this.#offset + i, c));
      this.#counts = new Float64Array(0);
      this.#map.set(k, (this.#map.get(k) ?? 0) + 1);
      return;
    }
    const size = Math.min(WINDOW_LIMIT, Math.max(32, 2 * (hi - lo + 1)));
    // Centred: the next growth needs the used span to grow by half, so growths are O(log span).
    const offset = lo - ((size - (hi - lo + 1)) >> 1);
    const counts = new Float64Array(size);
    if (n > 0) counts.set(this.#counts.subarray(this.#lo - this.#offset, this.#hi - this.#offset + 1), this.#lo - offset);
    this.#counts = counts;
    this.#offset = offset;
    this.#counts[k - offset]!++;
    this.#lo = lo;
    this.#hi = hi;
  }

  buckets(): Buckets {
    if (this.#map !== null) {
      const pairs = [...this.#map].sort((a, b) => a[0] - b[0]);
      let total = 0;
      for (const [, c] of pairs) total += c;
      return { keys: Int32Array.from(pairs, (p) => p[0]), counts: Float64Array.from(pairs, (p) => p[1]), total };
    }
    const src = this.#counts;
    const from = this.#lo - this.#offset;
    const to = this.#hi - this.#offset;
    let n = 0;
    for (let i = from; i <= to; i++) if (src[i]! > 0) n++;
    if (n === 0) return NO_BUCKETS;
    const keys = new Int32Array(n);
    const counts = new Float64Array(n);
    let total = 0;
    for (let i = from, k = 0; i <= to; i++) {
      const c = src[i]!;
      if (c > 0) {
        keys[k] = this.#offset + i;
        counts[k++] = c;
        total += c;
      }
    }
    return { keys, counts, total };
  }
}

function mergeBuckets(a: Buckets, b: Buckets): Buckets {
  if (b.total === 0) return a;
  if (a.total === 0) return b;
  const ak = a.keys;
  const bk = b.keys;
  const na = ak.length;
  const nb = bk.length;
  // Two passes over the sorted keys: count the union, then fill it.
  let n = 0;
  for (let i = 0, j = 0; i < na || j < nb; n++) {
    const x = i < na ? ak[i]! : Infinity;
    const y = j < nb ? bk[j]! : Infinity;
    if (x <= y) i++;
    if (y <= x) j++;
  }
  const keys = new Int32Array(n);
  const counts = new Float64Array(n);
  for (let i = 0, j = 0, k = 0; k < n; k++) {
    const x = i < na ? ak[i]! : Infinity;
    const y = j < nb ? bk[j]! : Infinity;
    keys[k] = x <= y ? x : y;
    counts[k] = (x <= y ? a.counts[i++]! : 0) + (y <= x ? b.counts[j++]! : 0);
  }
  return { keys, counts, total: a.total + b.total };
}

const MEMO_SIZE = 4096;

/**
 * The bucket key of |v| under a column type's mapping, memoised in a small direct-mapped
 * table: the mapping's log costs about 100 ns, and columns repeat their values (one table
 * can serve every group of one scan).
 */
export class BucketKeys {
  readonly mapping: Mapping;
  readonly #values = new Float64Array(MEMO_SIZE).fill(NaN);
  readonly #keys = new Int32Array(MEMO_SIZE);

  /** @throws CanopyError CANOPY_ERR_TYPE for a type other than int64, float64, timestamp. */
  constructor(argType: ColumnType) {
    if (!isQuantileType(argType)) throw new CanopyError('CANOPY_ERR_TYPE', `approx_quantile needs an int64, float64 or timestamp column, not ${argType}`);
    this.mapping = MAPPINGS[argType];
  }

  /** The key of a positive finite value above the mapping's smallest value. */
  keyOf(a: number): number {
    const slot = ((a | 0) ^ ((a * 4096) | 0)) & (MEMO_SIZE - 1);
    if (this.#values[slot] === a) return this.#keys[slot]!;
    const k = this.mapping.key(a);
    this.#values[slot] = a;
    this.#keys[slot] = k;
    return k;
  }
}

/**
 * Adds values to one sketch (the leaf's per-group accumulator): finite values go to the
 * library mapping's buckets, ±Infinity and NaN are counted apart.
 */
export class QuantileAccumulator {
  readonly #type: QuantileType;
  readonly #keys: BucketKeys;
  readonly #pos = new KeyCounter();
  readonly #neg = new KeyCounter();
  #zero = 0;
  #min = Infinity;
  #max = -Infinity;
  #negInf = 0;
  #posInf = 0;
  #nan = 0;

  /**
   * @param keys a key memo to share between the accumulators of one column (optional)
   * @throws CanopyError CANOPY_ERR_TYPE for a type other than int64, float64, timestamp.
   */
  constructor(argType: ColumnType, keys: BucketKeys = new BucketKeys(argType)) {
    if (!isQuantileType(argType)) throw new CanopyError('CANOPY_ERR_TYPE', `approx_quantile needs an int64, float64 or timestamp column, not ${argType}`);
    if (keys.mapping !== MAPPINGS[argType]) throw new CanopyError('CANOPY_ERR_INTERNAL', 'bucket keys of another column type');
    this.#type = argType;
    this.#keys = keys;
  }

  /** Adds one non-NULL value. */
  add(v: number): void {
    if (v !== v) this.#nan++;
    else if (v === Infinity) this.#posInf++;
    else if (v === -Infinity) this.#negInf++;
    else {
      const tiny = this.#keys.mapping.minPossible;
      if (v > tiny) this.#pos.add(this.#keys.keyOf(v));
      else if (v < -tiny) this.#neg.add(this.#keys.keyOf(-v));
      else this.#zero++;
      if (v < this.#min) this.#min = v === 0 ? 0 : v;
      if (v > this.#max) this.#max = v === 0 ? 0 : v;
    }
  }

  /** The state of the values added so far (null when none). */
  state(): QuantileState | null {
    const pos = this.#pos.buckets();
    const neg = this.#neg.buckets();
    if (pos.total + neg.total + this.#zero + this.#negInf + this.#posInf + this.#nan === 0) return null;
    return { type: this.#type, pos, neg, zero: this.#zero, min: this.#min, max: this.#max, negInf: this.#negInf, posInf: this.#posInf, nan: this.#nan };
  }
}

/** Merges two states of one column type into a new state (pure; counts add, so not idempotent). */
export function quantileMerge(a: QuantileState | null, b: QuantileState | null): QuantileState | null {
  if (a === null) return b;
  if (b === null) return a;
  return {
    type: a.type,
    pos: mergeBuckets(a.pos, b.pos),
    neg: mergeBuckets(a.neg, b.neg),
    zero: a.zero + b.zero,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    negInf: a.negInf + b.negInf,
    posInf: a.posInf + b.posInf,
    nan: a.nan + b.nan,
  };
}

/**
 * 0-based index of DuckDB's quantile_disc among n sorted values: max(0, ceil(q·n) - 1), with
 * q·n computed exactly for q the shortest decimal that reads back as the double (`0.1`, not
 * the double's 0.1000000000000000055...), as DuckDB's Interpolator<true>::Index computes it for
 * a DECIMAL fraction in integers (src/core_functions/aggregate/holistic/quantile.cpp:
 * `max(1, n - floor((n·scaling - n·integral) / scaling)) - 1`). The SQL front refuses a
 * fraction literal with more digits than its double keeps (`0.50000000000000001`), whose
 * decimal this could not recover.
 * A DOUBLE fraction (a literal with an exponent, `535e-3`) DuckDB ranks in doubles instead:
 * `max(1, n - floor(n - n·q)) - 1` (535e-3 of 3800 values is index 2033, 0.535 index 2032).
 * @param q in [0, 1]
 * @param n the count of values (a non-negative integer)
 * @param double q is a DOUBLE in DuckDB
 */
export function quantileIndex(q: number, n: number, double = false): number {
  if (double) return Math.min(n - 1, Math.max(1, n - Math.floor(n - n * q)) - 1);
  const [num, den] = shortestDecimal(q);
  const scaled = BigInt(n) * num;
  const ceil = scaled / den + (scaled % den === 0n ? 0n : 1n);
  return Math.min(n - 1, Math.max(0, Number(ceil) - 1));
}

/**
 * A non-negative finite double as the fraction num / den of its shortest round-trip decimal
 * (JavaScript's Number#toString, e.g. 0.1 -> 1/10, 1e-300 -> 1/10^300), both bigints.
 */
function shortestDecimal(q: number): [bigint, bigint] {
  const m = /^(\d+)(?:\.(\d+))?(?:e([+-]\d+))?$/.exec(String(q));
  if (m === null) throw new RangeError(`quantile fraction ${q} is not a non-negative finite number`);
  const digits = BigInt(`${m[1]!}${m[2] ?? ''}`);
  const exponent = Number(m[3] ?? '0') - (m[2]?.length ?? 0);
  return exponent >= 0 ? [digits * 10n ** BigInt(exponent), 1n] : [digits, 10n ** BigInt(-exponent)];
}

/** An approximate quantile and its guaranteed interval; `exact` when the interval is one point. */
export interface QuantileEstimate {
  readonly value: number;
  readonly lo: number;
  readonly hi: number;
  readonly exact: boolean;
}

function exactly(v: number): QuantileEstimate {
  const x = v === 0 ? 0 : v;
  return { value: x, lo: x, hi: x, exact: true };
}

/** The key of the bucket holding the value of 0-based rank `r` among the buckets, in key order (or reversed). */
function keyAtRank(b: Buckets, r: number, descending: boolean): number {
  let cum = 0;
  const n = b.keys.length;
  for (let i = 0; i < n; i++) {
    const at = descending ? n - 1 - i : i;
    cum += b.counts[at]!;
    if (cum > r) return b.keys[at]!;
  }
  return b.keys[descending ? 0 : n - 1]!;
}

/** Values in a state, NaN and the infinities included. */
function stateCount(s: QuantileState): number {
  return s.pos.total + s.neg.total + s.zero + s.negInf + s.posInf + s.nan;
}

/**
 * The q-quantile (quantile_disc, see {@link quantileIndex}) of a state, with its
 * guaranteed interval [lo, hi] from the relative-accuracy bound, clamped to the exact
 * min/max, and for int64 narrowed to integers. Null for the empty state.
 * @param q in [-1, 1]; a negative q counts |q| from the largest value down (DuckDB's
 *   descending quantile_disc; approx_quantile never passes one)
 * @param double q is a DOUBLE in DuckDB (see quantileIndex)
 */
export function quantileEstimate(s: QuantileState | null, q: number, double = false): QuantileEstimate | null {
  if (s === null) return null;
  const n = stateCount(s);
  if (n === 0) return null;
  const i = quantileIndex(Math.abs(q), n, double);
  return valueAtIndex(s, q < 0 ? n - 1 - i : i);
}

/**
 * DuckDB's `median` (its `quantile_cont(x, 0.5)`): for an odd count the middle value, for an
 * even count the two middle values lo and hi interpolated as DuckDB does, `lo·0.5 + hi·0.5`
 * in doubles (so -Infinity with +Infinity is NaN), for timestamps then rounded half away from
 * zero to a whole µs. Its interval is the interpolation of the two values' intervals
 * (interpolation is monotone in both), widened by the rounding; exact when both are. Null for
 * the empty state.
 */
export function medianEstimate(s: QuantileState | null): QuantileEstimate | null {
  if (s === null) return null;
  const n = stateCount(s);
  if (n === 0) return null;
  const below = valueAtIndex(s, Math.floor((n - 1) / 2));
  if (n % 2 === 1) return below;
  const above = valueAtIndex(s, n / 2);
  const mid = (a: number, b: number): number => {
    const x = a * 0.5 + b * 0.5;
    return s.type === 'timestamp' ? Math.sign(x) * Math.round(Math.abs(x)) : x;
  };
  const value = mid(below.value, above.value);
  if (below.exact && above.exact) return exactly(value);
  const lo = mid(below.lo, above.lo);
  const hi = mid(below.hi, above.hi);
  // Half of a whole µs below 2^53 and their sum are exact; doubles may round.
  if (s.type === 'timestamp') return { value, lo, hi, exact: false };
  return { value, lo: lo - Math.abs(lo) * SLACK, hi: hi + Math.abs(hi) * SLACK, exact: false };
}

/**
 * DuckDB's `quantile_cont(x, q)` of a state (duckdb/duckdb src/core_functions/aggregate/holistic/
 * quantile.cpp `Interpolator<false>`, src/function/scalar/operator/arithmetic.cpp
 * `InterpolateOperator`): RN = (n - 1)·q, the values lo and hi at 0-based indexes floor(RN) and
 * ceil(RN), and when they differ `lo·(1 - d) + hi·d` with d = RN - floor(RN), in doubles; for
 * timestamps then rounded half away from zero to a whole µs. Its interval interpolates the two
 * values' intervals (monotone in both for d in [0, 1]), widened by the rounding; exact when
 * both are. Null for the empty state.
 * @param q in [-1, 1]; a negative q counts |q| from the largest value down, as DuckDB does
 */
export function contEstimate(s: QuantileState | null, q: number): QuantileEstimate | null {
  if (s === null) return null;
  const n = stateCount(s);
  if (n === 0) return null;
  // A negative q: DuckDB's descending order (index i from the top is n - 1 - i from the bottom).
  const rn = (n - 1) * Math.abs(q);
  const f = Math.floor(rn);
  const at = (i: number): QuantileEstimate => valueAtIndex(s, q < 0 ? n - 1 - i : i);
  const below = at(f);
  if (f === Math.ceil(rn)) return below;
  const above = at(f + 1);
  const d = rn - f;
  const mix = (a: number, b: number): number => {
    const x = a * (1 - d) + b * d;
    return s.type === 'timestamp' ? Math.sign(x) * Math.round(Math.abs(x)) : x;
  };
  const value = mix(below.value, above.value);
  if (below.exact && above.exact) return exactly(value);
  const lo = mix(below.lo, above.lo);
  const hi = mix(below.hi, above.hi);
  if (s.type === 'timestamp') return { value, lo, hi, exact: false };
  return { value, lo: lo - Math.abs(lo) * SLACK, hi: hi + Math.abs(hi) * SLACK, exact: false };
}

/** The value at 0-based index `idx` of a non-empty state's sorted values, with its guaranteed interval. */
function valueAtIndex(s: QuantileState, idx: number): QuantileEstimate {
  const finite = s.pos.total + s.neg.total + s.zero;
  if (idx < s.negInf) return exactly(-Infinity);
  idx -= s.negInf;
  if (idx >= finite) return exactly(idx - finite < s.posInf ? Infinity : NaN);
  if (idx === 0) return exactly(s.min);
  if (idx === finite - 1) return exactly(s.max);
  const mapping = MAPPINGS[s.type];
  const alpha = mapping.relativeAccuracy;
  let raw: number;
  let lo: number;
  let hi: number;
  if (idx < s.neg.total) {
    raw = -mapping.value(keyAtRank(s.neg, idx, true));
    lo = raw / (1 - alpha);
    hi = raw / (1 + alpha);
  } else if (idx < s.neg.total + s.zero) {
    raw = 0;
    lo = -mapping.minPossible;
    hi = mapping.minPossible;
  } else {
    raw = mapping.value(keyAtRank(s.pos, idx - s.neg.total - s.zero, false));
    lo = raw / (1 + alpha);
    hi = raw / (1 - alpha);
  }
  lo = Math.max(s.min, lo - Math.abs(lo) * SLACK);
  hi = Math.min(s.max, hi + Math.abs(hi) * SLACK);
  // Integers (int64 values, timestamps in whole µs): the interval narrows to integers, and a
  // timestamp estimate is a whole µs.
  const integral = s.type === 'int64' || s.type === 'timestamp';
  if (integral && Math.abs(lo) < 2 ** 53 && Math.abs(hi) < 2 ** 53) {
    lo = Math.ceil(lo);
    hi = Math.floor(hi);
  }
  if (lo === hi) return exactly(lo);
  return { value: Math.min(hi, Math.max(lo, s.type === 'timestamp' ? Math.round(raw) : raw)), lo, hi, exact: false };
}

// ---------------------------------------------------------------------------------------
// Wire encoding: one Arrow Binary cell per state (null for the empty state):
//   'Q', u8 version 2, f64 γ, f64 min, f64 max, varint zero count, varint -Infinity,
//   varint +Infinity, varint NaN counts, then the positive and the negative buckets, each
//   varint bucket count n, then n × (varint key step, varint count): the first step is the
//   zigzag of the first key, the others key - previous key - 1.
// Varints are unsigned LEB128 of integers below 2^53.

const TAG = 0x51;
const VERSION = 2;

class Writer {
  readonly #bytes: number[] = [];
  readonly #f = new DataView(new ArrayBuffer(8));

  u8(x: number): void {
    this.#bytes.push(x);
  }

  f64(x: number): void {
    this.#f.setFloat64(0, x, true);
    for (let i = 0; i < 8; i++) this.#bytes.push(this.#f.getUint8(i));
  }

  varint(x: number): void {
    pushVarint(this.#bytes, x);
  }

  done(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}


const KEY_LIMIT = 2 ** 31;

function writeBuckets(w: Writer, b: Buckets): void {
  w.varint(b.keys.length);
  let prev = 0;
  b.keys.forEach((k, i) => {
    w.varint(i === 0 ? (k >= 0 ? 2 * k : -2 * k - 1) : k - prev - 1);
    w.varint(b.counts[i]!);
    prev = k;
  });
}

function readBuckets(r: ByteReader): Buckets {
  const n = r.varint();
  const keys: number[] = [];
  const counts: number[] = [];
  let total = 0;
  let key = 0;
  for (let i = 0; i < n; i++) {
    const step = r.varint();
    key = i === 0 ? (step % 2 === 0 ? step / 2 : -(step + 1) / 2) : key + step + 1;
    if (key < -KEY_LIMIT || key >= KEY_LIMIT) throw new Error('bad quantile state: bucket key out of range');
    const c = r.varint();
    if (c === 0) throw new Error('bad quantile state: empty bucket');
    keys.push(key);
    counts.push(c);
    total += c;
  }
  return n === 0 ? NO_BUCKETS : { keys: Int32Array.from(keys), counts: Float64Array.from(counts), total };
}

/** Encodes a non-null state (see the layout above). */
export function quantileEncode(s: QuantileState): Uint8Array {
  const w = new Writer();
  w.u8(TAG);
  w.u8(VERSION);
  w.f64(MAPPINGS[s.type].gamma);
  w.f64(s.min);
  w.f64(s.max);
  w.varint(s.zero);
  w.varint(s.negInf);
  w.varint(s.posInf);
  w.varint(s.nan);
  writeBuckets(w, s.pos);
  writeBuckets(w, s.neg);
  return w.done();
}

/**
 * Decodes {@link quantileEncode} bytes (null stays null), checking the tag, version, γ of the
 * column type's accuracy, integer counts, increasing keys, and that min and max fall in the
 * extreme buckets.
 * @throws Error describing the first defect.
 */
export function quantileDecode(type: QuantileType, v: unknown): QuantileState | null {
  if (v === null) return null;
  if (!(v instanceof Uint8Array)) throw new Error('bad quantile state: not a byte string');
  const r = new ByteReader(v, 'quantile state');
  if (r.u8() !== TAG || r.u8() !== VERSION) throw new Error('bad quantile state: tag or version');
  const mapping = MAPPINGS[type];
  if (!Object.is(r.f64(), mapping.gamma)) throw new Error(`bad quantile state: not a sketch of relative accuracy ${mapping.relativeAccuracy}`);
  const min = r.f64();
  const max = r.f64();
  const zero = r.varint();
  const negInf = r.varint();
  const posInf = r.varint();
  const nan = r.varint();
  const pos = readBuckets(r);
  const neg = readBuckets(r);
  r.end();
  const finite = pos.total + neg.total + zero;
  if (finite === 0) {
    if (min !== Infinity || max !== -Infinity) throw new Error('bad quantile state: extremes without finite values');
    if (negInf + posInf + nan === 0) throw new Error('bad quantile state: empty sketch (must be null)');
  } else {
    if (!Number.isFinite(min) || !Number.isFinite(max) || min > max || Object.is(min, -0) || Object.is(max, -0)) throw new Error('bad quantile state: extremes');
    const tiny = mapping.minPossible;
    const minOk = neg.total > 0 ? min < -tiny && mapping.key(-min) === neg.keys[neg.keys.length - 1] : zero > 0 ? Math.abs(min) <= tiny : min > tiny && mapping.key(min) === pos.keys[0];
    const maxOk = pos.total > 0 ? max > tiny && mapping.key(max) === pos.keys[pos.keys.length - 1] : zero > 0 ? Math.abs(max) <= tiny : max < -tiny && mapping.key(-max) === neg.keys[0];
    if (!minOk || !maxOk) throw new Error('bad quantile state: extremes outside the extreme buckets');
  }
  return { type, pos, neg, zero, min, max, negInf, posInf, nan };
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The quantile state kind over an int64, float64 or timestamp column. `finalise` gives the
 * median; approx_quantile's q is applied by {@link quantileEstimate} at finalise time.
 * @throws CanopyError CANOPY_ERR_TYPE for other column types.
 */
export function ddsketchKind(argType: ColumnType | null): StateKind<QuantileState | null> {
  if (!isQuantileType(argType)) throw new CanopyError('CANOPY_ERR_TYPE', `approx_quantile needs an int64, float64 or timestamp column, not ${argType ?? 'none'}`);
  return {
    kind: 'ddsketch',
    argType,
    encoding: 'binary',
    empty: () => null,
    merge: (a, b) => quantileMerge(a, b),
    finalise: (s) => quantileEstimate(s, 0.5)?.value ?? null,
    encode: (s) => (s === null ? null : quantileEncode(s)),
    decode: (v) => quantileDecode(argType, v),
    equals: (a, b) => (a === null || b === null ? a === b : bytesEqual(quantileEncode(a), quantileEncode(b))),
  };
}
