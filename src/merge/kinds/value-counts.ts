/**
 * The `value_counts` partial: each group's exact multiset of values (distinct value -> count)
 * while it has at most {@link VALUE_COUNTS_BUDGET} distinct values, else the DDSketch state of
 * src/merge/kinds/ddsketch.ts. The classic sparse -> dense design (HyperLogLog++'s sparse
 * mode, Heule, Nunkesser, Hall, EDBT 2013; t-digest's buffer): small groups answer exactly,
 * large ones stay bounded in memory and bytes. Merging adds counts; a merge past the budget,
 * or with a sketch, gives a sketch (so merge stays associative and commutative: the result is
 * exact exactly when the union of the inputs has at most the budget's distinct values and
 * no input was already a sketch).
 *
 * Serves median, quantile_cont, quantile_disc (= quantile), mode and entropy.
 *
 * Values are as canopy holds them: int64 within ±2^53 and timestamps (µs) as numbers (a
 * leaf turns a group holding an int64 beyond 2^53 into a sketch), float64 with DuckDB's
 * order: -Infinity < finite < +Infinity < NaN, and -0 equal to 0 (stored as 0).
 *
 * Budget: 1024 distinct values is 16 KiB of state per group on the wire at most (8-byte
 * value plus a varint count each), about the size of a DDSketch of a wide column at 1 %
 * accuracy (a few hundred buckets of a varint key step and count each, up to ~1,000 over
 * six decades), so exactness costs no more than the sketch it replaces for typical columns,
 * while a group-by over many groups with few values each (the common case for medians of
 * small groups) stays exact.
 */
import { CanopyError } from '../errors.ts';
import { BucketKeys, quantileDecode, quantileEncode, quantileMerge, type Buckets, type QuantileState, type QuantileType } from './ddsketch.ts';
import type { ColumnType } from '../types.ts';
import type { StateKind } from './kind.ts';
import { ByteReader, pushVarint } from './varint.ts';

/** Most distinct values an exact state holds; one more turns the group into a sketch. */
export const VALUE_COUNTS_BUDGET = 1024;

/** Exact value counts: distinct values ascending in DuckDB's order, their counts (integers >= 1). */
export interface ExactCounts {
  readonly kind: 'exact';
  readonly type: QuantileType;
  readonly values: Float64Array;
  readonly counts: Float64Array;
  /** Sum of the counts. */
  readonly total: number;
}

/** A group past the budget: a DDSketch of its values. */
export interface SketchCounts {
  readonly kind: 'sketch';
  readonly sketch: QuantileState;
}

/** The state: exact counts or a sketch; null for no value. Immutable. */
export type ValueCountsState = ExactCounts | SketchCounts;

function isQuantileType(t: ColumnType | null): t is QuantileType {
  return t === 'int64' || t === 'float64' || t === 'timestamp';
}

/** DuckDB's order of doubles: NaN after everything, -0 equal to 0. */
export function duckCompare(a: number, b: number): number {
  if (a !== a) return b !== b ? 0 : 1;
  if (b !== b) return -1;
  return a < b ? -1 : a > b ? 1 : 0;
}

/**
 * The exact state of a map of counts (keys with -0 already stored as 0); null when empty.
 * @throws CanopyError CANOPY_ERR_INTERNAL past the budget (callers convert first).
 */
export function exactOfMap(type: QuantileType, m: ReadonlyMap<number, number>): ExactCounts | null {
  if (m.size === 0) return null;
  if (m.size > VALUE_COUNTS_BUDGET) throw new CanopyError('CANOPY_ERR_INTERNAL', 'value counts past the budget');
  const values = Float64Array.from(m.keys()).sort(duckCompare);
  const counts = new Float64Array(values.length);
  let total = 0;
  values.forEach((v, i) => {
    const c = m.get(v)!;
    counts[i] = c;
    total += c;
  });
  return { kind: 'exact', type, values, counts, total };
}

function bucketsOf(m: Map<number, number>): Buckets {
  const keys = Int32Array.from(m.keys()).sort();
  const counts = Float64Array.from(keys, (k) => m.get(k)!);
  let total = 0;
  for (const c of counts) total += c;
  return { keys, counts, total };
}

/** One bucket-key memo per column type, shared (it only caches the mapping's keys). */
const KEYS = new Map<QuantileType, BucketKeys>();

/** The shared bucket keys of a column type. */
export function bucketKeysOf(type: QuantileType): BucketKeys {
  let k = KEYS.get(type);
  if (k === undefined) {
    k = new BucketKeys(type);
    KEYS.set(type, k);
  }
  return k;
}

/**
 * The DDSketch state of weighted values (the same state the leaf's QuantileAccumulator gives
 * for the values repeated by their counts).
 */
export function sketchOfCounts(type: QuantileType, values: ArrayLike<number>, counts: ArrayLike<number>): QuantileState {
  const keys = bucketKeysOf(type);
  const tiny = keys.mapping.minPossible;
  const pos = new Map<number, number>();
  const neg = new Map<number, number>();
  let zero = 0;
  let min = Infinity;
  let max = -Infinity;
  let negInf = 0;
  let posInf = 0;
  let nan = 0;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    const c = counts[i]!;
    if (v !== v) nan += c;
    else if (v === Infinity) posInf += c;
    else if (v === -Infinity) negInf += c;
    else {
      if (v > tiny) {
        const k = keys.keyOf(v);
        pos.set(k, (pos.get(k) ?? 0) + c);
      } else if (v < -tiny) {
        const k = keys.keyOf(-v);
        neg.set(k, (neg.get(k) ?? 0) + c);
      } else zero += c;
      if (v < min) min = v === 0 ? 0 : v;
      if (v > max) max = v === 0 ? 0 : v;
    }
  }
  return { type, pos: bucketsOf(pos), neg: bucketsOf(neg), zero, min, max, negInf, posInf, nan };
}

/** The sketch of a state (an exact state's values in the sketch). */
export function asSketch(s: ValueCountsState): QuantileState {
  return s.kind === 'sketch' ? s.sketch : sketchOfCounts(s.type, s.values, s.counts);
}

/** Merges two exact states: counts add; past the budget, a sketch. */
function mergeExact(a: ExactCounts, b: ExactCounts): ValueCountsState {
  const av = a.values;
  const bv = b.values;
  const values: number[] = [];
  const counts: number[] = [];
  let i = 0;
  let j = 0;
  while (i < av.length || j < bv.length) {
    const c = i === av.length ? 1 : j === bv.length ? -1 : duckCompare(av[i]!, bv[j]!);
    values.push(c <= 0 ? av[i]! : bv[j]!);
    counts.push((c <= 0 ? a.counts[i++]! : 0) + (c >= 0 ? b.counts[j++]! : 0));
  }
  if (values.length > VALUE_COUNTS_BUDGET) return { kind: 'sketch', sketch: sketchOfCounts(a.type, values, counts) };
  return { kind: 'exact', type: a.type, values: Float64Array.from(values), counts: Float64Array.from(counts), total: a.total + b.total };
}

/** Merges two states of one column type (pure; counts add, so not idempotent). */
export function valueCountsMerge(a: ValueCountsState | null, b: ValueCountsState | null): ValueCountsState | null {
  if (a === null) return b;
  if (b === null) return a;
  if (a.kind === 'exact' && b.kind === 'exact') return mergeExact(a, b);
  return { kind: 'sketch', sketch: quantileMerge(asSketch(a), asSketch(b))! };
}

/** The value at 0-based index `idx` (< total) of an exact state's sorted values. */
export function exactValueAt(s: ExactCounts, idx: number): number {
  let cum = 0;
  for (let i = 0; i < s.values.length; i++) {
    cum += s.counts[i]!;
    if (cum > idx) return s.values[i]!;
  }
  return s.values[s.values.length - 1]!;
}

// ---------------------------------------------------------------------------------------
// Wire encoding: one Arrow Binary cell per state (null for the empty state). A sketch is
// the `ddsketch` encoding (first byte 'Q'); exact counts are 'V', u8 version 1, varint n
// (1..budget), then n × (f64 value, varint count), values strictly ascending in DuckDB's
// order, no -0. Varints are unsigned LEB128 of integers below 2^53.

const TAG = 0x56;
const VERSION = 1;

/** Encodes a non-null state (see the layout above). */
export function valueCountsEncode(s: ValueCountsState): Uint8Array {
  if (s.kind === 'sketch') return quantileEncode(s.sketch);
  const out: number[] = [TAG, VERSION];
  pushVarint(out, s.values.length);
  const f = new DataView(new ArrayBuffer(8));
  s.values.forEach((v, i) => {
    f.setFloat64(0, v, true);
    for (let k = 0; k < 8; k++) out.push(f.getUint8(k));
    pushVarint(out, s.counts[i]!);
  });
  return Uint8Array.from(out);
}

/**
 * Decodes {@link valueCountsEncode} bytes (null stays null), checking the tag, version,
 * the number of values (1 to the budget), ascending values without -0 (integers within
 * ±2^53 for int64 and timestamps), counts that are integers from 1 to 2^53 - 1, and no
 * trailing bytes; a sketch is checked by the ddsketch decoder.
 * @throws Error describing the first defect.
 */
export function valueCountsDecode(type: QuantileType, v: unknown): ValueCountsState | null {
  if (v === null) return null;
  if (!(v instanceof Uint8Array)) throw new Error('bad value counts: not a byte string');
  if (v[0] === 0x51) return { kind: 'sketch', sketch: quantileDecode(type, v)! };
  const r = new ByteReader(v, 'value counts');
  if (r.u8() !== TAG || r.u8() !== VERSION) throw r.fail('tag or version');
  const n = r.varint();
  if (n < 1 || n > VALUE_COUNTS_BUDGET) throw new Error(`bad value counts: ${n} values (1 to ${VALUE_COUNTS_BUDGET})`);
  const values = new Float64Array(n);
  const counts = new Float64Array(n);
  let total = 0;
  const integral = type !== 'float64';
  for (let i = 0; i < n; i++) {
    const x = r.f64();
    if (Object.is(x, -0)) throw new Error('bad value counts: -0');
    if (integral && !Number.isSafeInteger(x)) throw new Error(`bad value counts: ${x} is not a ${type} value within 2^53`);
    if (i > 0 && duckCompare(values[i - 1]!, x) >= 0) throw new Error('bad value counts: values not ascending');
    const c = r.varint();
    if (c === 0) throw new Error('bad value counts: zero count');
    values[i] = x;
    counts[i] = c;
    total += c;
  }
  r.end();
  if (!Number.isSafeInteger(total)) throw new Error('bad value counts: total past 2^53');
  return { kind: 'exact', type, values, counts, total };
}

function bytesEqual(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && a.every((x, i) => x === b[i]);
}

/**
 * The value-counts state kind over an int64, float64 or timestamp column. `finalise` is not
 * used by the aggregates (they read the state); it gives the lower median.
 * @throws CanopyError CANOPY_ERR_TYPE for other column types.
 */
export function valueCountsKind(argType: ColumnType | null): StateKind<ValueCountsState | null> {
  if (!isQuantileType(argType)) throw new CanopyError('CANOPY_ERR_TYPE', `quantiles, mode and entropy need an int64, float64 or timestamp column, not ${argType ?? 'none'}`);
  return {
    kind: 'value_counts',
    argType,
    encoding: 'binary',
    empty: () => null,
    merge: (a, b) => valueCountsMerge(a, b),
    finalise: (s) => (s === null || s.kind === 'sketch' ? null : exactValueAt(s, Math.floor((s.total - 1) / 2))),
    encode: (s) => (s === null ? null : valueCountsEncode(s)),
    decode: (v) => valueCountsDecode(argType, v),
    equals: (a, b) => (a === null || b === null ? a === b : bytesEqual(valueCountsEncode(a), valueCountsEncode(b))),
  };
}
