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
 * The library is used for its mapping, stores and `accept`; merge, the quantile lookup and
 * the wire encoding are done here, because in 2.1.1 `merge` drops the negative store
 * (DataDog/sketches-js#22), `getValueAtQuantile` uses rank q·(n - 1) rather than
 * quantile_disc's, and `toProto` needs protobufjs, which the package does not install
 * (DataDog/sketches-js#26).
 */
import { DDSketch } from '@datadog/sketches-js';
import { CanopyError } from '../errors.ts';
import type { ColumnType } from '../types.ts';
import type { StateKind } from './kind.ts';

/** Column types approx_quantile accepts. */
export type QuantileType = 'int64' | 'float64' | 'timestamp';

/** Relative accuracy α of the sketch, per column type. */
export const QUANTILE_ACCURACY: Readonly<Record<QuantileType, number>> = Object.freeze({ int64: 0.01, float64: 0.01, timestamp: 1e-4 });

/**
 * Outward widening of the guaranteed interval, relative, covering the rounding of the
 * mapping's log and pow (measured well below 1e-13 over the whole double range).
 */
const SLACK = 1e-9;

/** Most buckets one store may span (about the whole double range at α = 0.01 is 71,000). */
const MAX_BINS = 1 << 17;

/**
 * The state: the sketch of the finite values, their exact minimum and maximum (±Infinity
 * when there is none), and counts of -Infinity, +Infinity and NaN. Null for no value.
 * Immutable once built: merge makes a new sketch.
 */
export interface QuantileState {
  readonly sketch: DDSketch;
  readonly min: number;
  readonly max: number;
  readonly negInf: number;
  readonly posInf: number;
  readonly nan: number;
}

type Store = DDSketch['store'];

function isQuantileType(t: ColumnType | null): t is QuantileType {
  return t === 'int64' || t === 'float64' || t === 'timestamp';
}

function newSketch(alpha: number): DDSketch {
  return new DDSketch({ relativeAccuracy: alpha });
}

function tooWide(cause?: unknown): CanopyError {
  return new CanopyError('CANOPY_ERR_LIMIT', `approx_quantile: the values span more than ${MAX_BINS} sketch buckets; add a WHERE`, cause === undefined ? {} : { cause });
}

/** Runs a sketch operation, turning the library's stack overflow on huge bucket ranges into a coded error. */
function guarded<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RangeError) throw tooWide(e);
    throw e;
  }
}

/** Non-zero buckets of a store as [first key, counts from it] (counts end on a non-zero one). */
function binsOf(store: Store): { first: number; counts: number[] } {
  if (store.count === 0) return { first: 0, counts: [] };
  let lo = store.minKey;
  let hi = store.maxKey;
  while (lo <= hi && !(store.bins[lo - store.offset]! > 0)) lo++;
  while (hi >= lo && !(store.bins[hi - store.offset]! > 0)) hi--;
  const counts: number[] = [];
  for (let k = lo; k <= hi; k++) counts.push(store.bins[k - store.offset] ?? 0);
  return { first: lo, counts };
}

/**
 * Sets a store's buckets directly (the fields DenseStore documents as public), so that
 * building a store costs one pass instead of the library's repeated re-centring.
 */
function setStore(store: Store, first: number, counts: number[]): void {
  let total = 0;
  for (const c of counts) total += c;
  if (counts.length === 0 || total === 0) return;
  store.bins = counts;
  store.offset = first;
  store.minKey = first;
  store.maxKey = first + counts.length - 1;
  store.count = total;
}

function sumStores(a: Store, b: Store): { first: number; counts: number[] } {
  const x = binsOf(a);
  const y = binsOf(b);
  if (x.counts.length === 0) return y;
  if (y.counts.length === 0) return x;
  const first = Math.min(x.first, y.first);
  const last = Math.max(x.first + x.counts.length, y.first + y.counts.length) - 1;
  if (last - first + 1 > MAX_BINS) throw tooWide();
  const counts = new Array<number>(last - first + 1).fill(0);
  x.counts.forEach((c, i) => (counts[x.first - first + i]! += c));
  y.counts.forEach((c, i) => (counts[y.first - first + i]! += c));
  return { first, counts };
}

function finiteCount(s: QuantileState): number {
  return s.sketch.store.count + s.sketch.negativeStore.count + s.sketch.zeroCount;
}

/**
 * Adds values to one sketch state (the leaf's per-group accumulator). Not a state itself:
 * `state()` hands its sketch over, so add nothing afterwards.
 */
export class QuantileAccumulator {
  readonly #sketch: DDSketch;
  #min = Infinity;
  #max = -Infinity;
  #negInf = 0;
  #posInf = 0;
  #nan = 0;

  /** @throws CanopyError CANOPY_ERR_TYPE for a type other than int64, float64, timestamp. */
  constructor(argType: ColumnType) {
    if (!isQuantileType(argType)) throw new CanopyError('CANOPY_ERR_TYPE', `approx_quantile needs an int64, float64 or timestamp column, not ${argType}`);
    this.#sketch = newSketch(QUANTILE_ACCURACY[argType]);
  }

  /**
   * Adds one non-NULL value.
   * @throws CanopyError CANOPY_ERR_LIMIT when the values span more buckets than the library can grow to.
   */
  add(v: number): void {
    if (v !== v) this.#nan++;
    else if (v === Infinity) this.#posInf++;
    else if (v === -Infinity) this.#negInf++;
    else {
      guarded(() => this.#sketch.accept(v));
      if (v < this.#min) this.#min = v;
      if (v > this.#max) this.#max = v;
    }
  }

  /** The state of the values added (null when none). */
  state(): QuantileState | null {
    if (this.#sketch.count === 0 && this.#negInf + this.#posInf + this.#nan === 0) return null;
    return { sketch: this.#sketch, min: this.#min, max: this.#max, negInf: this.#negInf, posInf: this.#posInf, nan: this.#nan };
  }
}

/** Merges two states of one column type into a new state (pure; counts add, so not idempotent). */
export function quantileMerge(argType: QuantileType, a: QuantileState | null, b: QuantileState | null): QuantileState | null {
  if (a === null) return b;
  if (b === null) return a;
  const sketch = newSketch(QUANTILE_ACCURACY[argType]);
  const pos = sumStores(a.sketch.store, b.sketch.store);
  const neg = sumStores(a.sketch.negativeStore, b.sketch.negativeStore);
  setStore(sketch.store, pos.first, pos.counts);
  setStore(sketch.negativeStore, neg.first, neg.counts);
  sketch.zeroCount = a.sketch.zeroCount + b.sketch.zeroCount;
  sketch.count = sketch.store.count + sketch.negativeStore.count + sketch.zeroCount;
  return {
    sketch,
    min: Math.min(a.min, b.min),
    max: Math.max(a.max, b.max),
    negInf: a.negInf + b.negInf,
    posInf: a.posInf + b.posInf,
    nan: a.nan + b.nan,
  };
}

/**
 * 0-based index of DuckDB's quantile_disc among n sorted values: max(0, ceil(q·n) - 1),
 * with q·n first lowered by 4 ulps so that a decimal q whose double is a hair too large
 * (0.1, 0.7, ...) does not skip a rank.
 */
export function quantileIndex(q: number, n: number): number {
  const x = q * n;
  return Math.min(n - 1, Math.max(0, Math.ceil(x - 4 * Number.EPSILON * x) - 1));
}

/** An approximate quantile and its guaranteed interval; `exact` when the interval is one point. */
export interface QuantileEstimate {
  readonly value: number;
  readonly lo: number;
  readonly hi: number;
  readonly exact: boolean;
}

function exactly(v: number): QuantileEstimate {
  return { value: v, lo: v, hi: v, exact: true };
}

/** The key of the bucket holding the value of 0-based rank `r` in a store, counting up (or down) from its end. */
function keyAtRank(store: Store, r: number, descending: boolean): number {
  let cum = 0;
  if (descending) {
    for (let k = store.maxKey; k >= store.minKey; k--) {
      cum += store.bins[k - store.offset] ?? 0;
      if (cum > r) return k;
    }
    return store.minKey;
  }
  for (let k = store.minKey; k <= store.maxKey; k++) {
    cum += store.bins[k - store.offset] ?? 0;
    if (cum > r) return k;
  }
  return store.maxKey;
}

/**
 * The q-quantile (quantile_disc, see {@link quantileIndex}) of a state, with its
 * guaranteed interval [lo, hi] from the relative-accuracy bound, clamped to the exact
 * min/max, and for int64 narrowed to integers. Null for the empty state.
 * @param q in [0, 1]
 */
export function quantileEstimate(s: QuantileState | null, q: number, argType: ColumnType): QuantileEstimate | null {
  if (s === null) return null;
  const finite = finiteCount(s);
  const n = finite + s.negInf + s.posInf + s.nan;
  if (n === 0) return null;
  let idx = quantileIndex(q, n);
  if (idx < s.negInf) return exactly(-Infinity);
  idx -= s.negInf;
  if (idx >= finite) return exactly(idx - finite < s.posInf ? Infinity : NaN);
  if (idx === 0) return exactly(s.min);
  if (idx === finite - 1) return exactly(s.max);
  const { mapping, store, negativeStore, zeroCount } = s.sketch;
  const alpha = mapping.relativeAccuracy;
  let raw: number;
  let lo: number;
  let hi: number;
  if (idx < negativeStore.count) {
    raw = -mapping.value(keyAtRank(negativeStore, idx, true));
    lo = raw / (1 - alpha);
    hi = raw / (1 + alpha);
  } else if (idx < negativeStore.count + zeroCount) {
    raw = 0;
    lo = -mapping.minPossible;
    hi = mapping.minPossible;
  } else {
    raw = mapping.value(keyAtRank(store, idx - negativeStore.count - zeroCount, false));
    lo = raw / (1 + alpha);
    hi = raw / (1 - alpha);
  }
  lo = Math.max(s.min, lo - Math.abs(lo) * SLACK);
  hi = Math.min(s.max, hi + Math.abs(hi) * SLACK);
  if (argType === 'int64' && Math.abs(lo) < 2 ** 53 && Math.abs(hi) < 2 ** 53) {
    lo = Math.ceil(lo);
    hi = Math.floor(hi);
  }
  if (lo === hi) return exactly(lo);
  return { value: Math.min(hi, Math.max(lo, raw)), lo, hi, exact: false };
}

// ---------------------------------------------------------------------------------------
// Wire encoding: one Arrow Binary cell per state (null for the empty state):
//   'Q', u8 version 1, f64 γ, f64 min, f64 max, varint zero count, varint -Infinity,
//   varint +Infinity, varint NaN counts, then the positive and the negative store, each
//   i32 first key, varint bucket count, varint counts (first and last non-zero).
// Varints are unsigned LEB128 of integers below 2^53.

const TAG = 0x51;
const VERSION = 1;

class Writer {
  readonly #bytes: number[] = [];
  readonly #f = new DataView(new ArrayBuffer(8));

  f64(x: number): void {
    this.#f.setFloat64(0, x, true);
    for (let i = 0; i < 8; i++) this.#bytes.push(this.#f.getUint8(i));
  }

  i32(x: number): void {
    this.#f.setInt32(0, x, true);
    for (let i = 0; i < 4; i++) this.#bytes.push(this.#f.getUint8(i));
  }

  varint(x: number): void {
    while (x >= 128) {
      this.#bytes.push((x % 128) + 128);
      x = Math.floor(x / 128);
    }
    this.#bytes.push(x);
  }

  u8(x: number): void {
    this.#bytes.push(x);
  }

  done(): Uint8Array {
    return Uint8Array.from(this.#bytes);
  }
}

class Reader {
  #at = 0;
  readonly #dv: DataView;

  constructor(private readonly bytes: Uint8Array) {
    this.#dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  #need(n: number): void {
    if (this.#at + n > this.bytes.length) throw new Error('bad quantile state: truncated');
  }

  u8(): number {
    this.#need(1);
    return this.bytes[this.#at++]!;
  }

  f64(): number {
    this.#need(8);
    const x = this.#dv.getFloat64(this.#at, true);
    this.#at += 8;
    return x;
  }

  i32(): number {
    this.#need(4);
    const x = this.#dv.getInt32(this.#at, true);
    this.#at += 4;
    return x;
  }

  varint(): number {
    let x = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      x += (b & 127) * scale;
      if (b < 128) {
        if (x > Number.MAX_SAFE_INTEGER) break;
        return x;
      }
      scale *= 128;
    }
    throw new Error('bad quantile state: count out of range');
  }

  end(): void {
    if (this.#at !== this.bytes.length) throw new Error('bad quantile state: trailing bytes');
  }
}

function writeStore(w: Writer, store: Store): void {
  const { first, counts } = binsOf(store);
  w.i32(first);
  w.varint(counts.length);
  for (const c of counts) w.varint(c);
}

function readStore(r: Reader): { first: number; counts: number[]; total: number } {
  const first = r.i32();
  const n = r.varint();
  if (n > MAX_BINS) throw new Error(`bad quantile state: ${n} buckets`);
  const counts: number[] = [];
  let total = 0;
  for (let i = 0; i < n; i++) {
    const c = r.varint();
    counts.push(c);
    total += c;
  }
  if (n > 0 && (counts[0] === 0 || counts[n - 1] === 0)) throw new Error('bad quantile state: store not trimmed');
  if (first + n > 2 ** 31) throw new Error('bad quantile state: key out of range');
  return { first, counts, total };
}

/** Encodes a non-null state (see the layout above). */
export function quantileEncode(s: QuantileState): Uint8Array {
  const w = new Writer();
  w.u8(TAG);
  w.u8(VERSION);
  w.f64(s.sketch.mapping.gamma);
  w.f64(s.min);
  w.f64(s.max);
  w.varint(s.sketch.zeroCount);
  w.varint(s.negInf);
  w.varint(s.posInf);
  w.varint(s.nan);
  writeStore(w, s.sketch.store);
  writeStore(w, s.sketch.negativeStore);
  return w.done();
}

/**
 * Decodes {@link quantileEncode} bytes (null stays null), checking the tag, version, γ of the
 * column type's accuracy, integer counts, trimmed stores, and that min and max fall in the
 * extreme buckets.
 * @throws Error describing the first defect.
 */
export function quantileDecode(argType: QuantileType, v: unknown): QuantileState | null {
  if (v === null) return null;
  if (!(v instanceof Uint8Array)) throw new Error('bad quantile state: not a byte string');
  const r = new Reader(v);
  if (r.u8() !== TAG || r.u8() !== VERSION) throw new Error('bad quantile state: tag or version');
  const sketch = newSketch(QUANTILE_ACCURACY[argType]);
  const { mapping } = sketch;
  if (!Object.is(r.f64(), mapping.gamma)) throw new Error(`bad quantile state: not a sketch of relative accuracy ${mapping.relativeAccuracy}`);
  const min = r.f64();
  const max = r.f64();
  const zero = r.varint();
  const negInf = r.varint();
  const posInf = r.varint();
  const nan = r.varint();
  const pos = readStore(r);
  const neg = readStore(r);
  r.end();
  const finite = pos.total + neg.total + zero;
  if (finite === 0) {
    if (min !== Infinity || max !== -Infinity) throw new Error('bad quantile state: extremes without finite values');
    if (negInf + posInf + nan === 0) throw new Error('bad quantile state: empty sketch (must be null)');
  } else {
    if (!Number.isFinite(min) || !Number.isFinite(max) || min > max) throw new Error('bad quantile state: extremes');
    const lastNeg = neg.first + neg.counts.length - 1;
    const lastPos = pos.first + pos.counts.length - 1;
    const minOk = neg.total > 0 ? min < -mapping.minPossible && mapping.key(-min) === lastNeg : zero > 0 ? Math.abs(min) <= mapping.minPossible : min > mapping.minPossible && mapping.key(min) === pos.first;
    const maxOk = pos.total > 0 ? max > mapping.minPossible && mapping.key(max) === lastPos : zero > 0 ? Math.abs(max) <= mapping.minPossible : max < -mapping.minPossible && mapping.key(-max) === neg.first;
    if (!minOk || !maxOk) throw new Error('bad quantile state: extremes outside the extreme buckets');
  }
  setStore(sketch.store, pos.first, pos.counts);
  setStore(sketch.negativeStore, neg.first, neg.counts);
  sketch.zeroCount = zero;
  sketch.count = finite;
  return { sketch, min, max, negInf, posInf, nan };
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
    merge: (a, b) => quantileMerge(argType, a, b),
    finalise: (s) => quantileEstimate(s, 0.5, argType)?.value ?? null,
    encode: (s) => (s === null ? null : quantileEncode(s)),
    decode: (v) => quantileDecode(argType, v),
    equals: (a, b) => (a === null || b === null ? a === b : bytesEqual(quantileEncode(a), quantileEncode(b))),
  };
}
