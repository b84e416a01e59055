/**
 * Hash/dense grouping and aggregate kernels over typed arrays.
 *
 * Group keys become small integer codes per key (dictionary codes for strings, dense
 * offsets for bounded integers and date_trunc buckets, a hash map otherwise), combined
 * into a group id by a dense table when the key space is small, else by a Map. Aggregate
 * states live in growable typed arrays indexed by group id; no per-row allocation.
 */
import {
  MONDAY_SHIFT_US,
  betterMax,
  betterMin,
  extractField,
  US_PER_DAY,
  hashDoubleBits,
  partialDef,
  setKeyDict,
  unitMicros,
  type Accumulator,
  type ColumnarPartial,
  type ColumnType,
  type KeyColumn,
  type StateColumn,
  type Expr,
  type GroupKeySpec,
  type PartialSpec,
  type Scalar,
  type ValueVec,
} from '../merge/index.ts';
import { alwaysTrue, evalPredicate, isRowTest, maskedSum, evalValue, rangeTest, scalarAt, selectWhere, type BatchCtx, type Tri } from './expr.ts';
import type { IntRange } from './int32.ts';
import { inputVector } from './input.ts';
import { isValid, type NumView, type PreparedShard, type StrView, type Validity } from './shard.ts';
import { simdArena, type Arena } from './simd.ts';

const DENSE_LIMIT = 1 << 22;

/**
 * An empty Int32 buffer, shared: the group-by-code table until the first row of a key of
 * unbounded range (a scan without one allocates nothing), and every code or selection buffer
 * until its first batch. Never written: each grows into a fresh array before use.
 */
const NO_CODES = new Int32Array(0);

/** Groups per memory charge: the budget is charged one block of new groups at a time. */
export const GROUP_CHARGE_BLOCK = 1024;

/**
 * Estimated bytes of one group's state at a leaf: the key codes, the aggregate states in
 * their typed arrays (a COUNT(DISTINCT) set or a quantile sketch more), and a hash-map
 * entry with its key string when the key space is not dense. An estimate for the memory
 * budget, not a measurement.
 */
export function leafGroupBytes(keys: number, partials: readonly PartialSpec[], dense: boolean): number {
  let b = 8 * keys + (dense ? 4 : 96 + 12 * keys);
  for (const p of partials) b += partialDef(p.kind).groupBytes;
  return b;
}
const EXACT = 2 ** 53;
const EXACT_BIG = 2n ** 53n;

/** Codes of one group key: `bound` is an exclusive upper bound on codes (Infinity if unknown). */
interface KeyCoder {
  readonly bound: number;
  /** Writes the code of each selected row into `out[j]`. */
  codes(ctx: BatchCtx, sel: Int32Array | null, n: number, out: Int32Array): void;
  value(code: number): Scalar;
  /**
   * Optional: the values of `codes[0..n)` as one Float64Array when every one is a number
   * (float64 / timestamp keys, no NULL), else null: a key column without a JS value per group.
   */
  numbers?(codes: Int32Array, n: number): Float64Array | null;
  /**
   * Optional: the batch's dictionary codes (one per row of the batch, code = dictionary
   * entry, so the key code is `entry + 1`) when the key is a dictionary column without NULLs
   * in this batch, else null (then {@link codes} is the way).
   */
  dictCodes?(ctx: BatchCtx): Int32Array | null;
  /**
   * Optional: every value by code (`dict[code]`, NULL at 0) for a dictionary key, so the
   * result's key column carries its codes ({@link setKeyDict}) and a merge in the same process
   * codes each distinct value once, not each group.
   */
  readonly dict?: readonly Scalar[];
}

/** `[null, ...strings]` per shard dictionary (a string key's values by code), built once. */
const DICT_VALUES = new WeakMap<readonly string[], readonly Scalar[]>();

function dictValues(strings: readonly string[]): readonly Scalar[] {
  let v = DICT_VALUES.get(strings);
  if (v === undefined) DICT_VALUES.set(strings, (v = [null, ...strings]));
  return v;
}

/** Values every extract field with a small fixed range can take (of any timestamp). */
const EXTRACT_RANGE: Partial<Record<string, readonly [number, number]>> = {
  hour: [0, 23],
  minute: [0, 59],
  second: [0, 59],
  millisecond: [0, 59_999],
  dow: [0, 6],
  isodow: [1, 7],
  day: [1, 31],
  doy: [1, 366],
  week: [1, 53],
  month: [1, 12],
  quarter: [1, 4],
};

/** Integer extract fields that never decrease as time goes on (of instants within canopy's years 1685 to 2255). */
const MONOTONE_FIELDS: ReadonlySet<string> = new Set(['year', 'isoyear', 'decade', 'century', 'millennium']);

/**
 * A dense code range for a key: integer columns with a small value range, and
 * date_trunc(hour|day|week) buckets. `shift` aligns weeks to Monday.
 */
function denseRange(shard: PreparedShard, e: Expr): { base: number; step: number; shift: number; size: number } | null {
  if (e.kind === 'col') {
    const c = shard.columns.get(e.name);
    if (c === undefined || c.type !== 'int64' || c.min === null || c.max === null || c.batches.some((b) => b.t === 'big')) return null;
    const size = c.max - c.min + 1;
    return size <= DENSE_LIMIT ? { base: c.min, step: 1, shift: 0, size } : null;
  }
  if (e.kind === 'extract') {
    const r = EXTRACT_RANGE[e.field];
    if (r !== undefined) return { base: r[0], step: 1, shift: 0, size: r[1] - r[0] + 1 };
    // Fields that never decrease with time (year(ts), Metabase's CAST(extract(year FROM ts) AS
    // integer)): the shard's first and last instants bound every row's.
    if (!MONOTONE_FIELDS.has(e.field) || e.arg.kind !== 'col') return null;
    const c = shard.columns.get(e.arg.name);
    if (c === undefined || (c.type !== 'timestamp' && c.type !== 'date') || c.min === null || c.max === null) return null;
    const lo = extractField(c.min, e.field);
    const hi = extractField(c.max, e.field);
    if (!Number.isSafeInteger(lo) || !Number.isSafeInteger(hi)) return null;
    return hi - lo + 1 <= DENSE_LIMIT ? { base: lo, step: 1, shift: 0, size: hi - lo + 1 } : null;
  }
  // An int64 narrowed to TINYINT / SMALLINT / INTEGER (Metabase's CAST(extract(dow FROM ts) AS
  // integer)) whose whole range fits the narrow type: the same values, so the same codes.
  if (e.kind === 'cast' && e.from === 'int64' && e.type === 'int64' && e.bits !== undefined && e.unsigned === undefined) {
    const r = denseRange(shard, e.arg);
    const max = 2 ** (e.bits - 1) - 1;
    return r !== null && r.step === 1 && r.base >= -max - 1 && r.base + r.size - 1 <= max ? r : null;
  }
  if (e.kind === 'date_trunc' && e.arg.kind === 'col') {
    const step = unitMicros(e.unit);
    const c = shard.columns.get(e.arg.name);
    if (step === null || c === undefined || c.min === null || c.max === null) return null;
    const shift = e.unit === 'week' ? MONDAY_SHIFT_US : 0;
    const base = Math.floor((c.min + shift) / step);
    const size = Math.floor((c.max + shift) / step) - base + 1;
    return size <= DENSE_LIMIT ? { base, step, shift, size } : null;
  }
  return null;
}

function makeCoder(shard: PreparedShard, key: GroupKeySpec): KeyCoder {
  const type = key.type;
  const e = key.expr;
  if (e.kind === 'col' && type === 'string') {
    const col = shard.columns.get(e.name)!;
    const strings = col.batches[0]?.t === 'str' ? col.batches[0].strings : [];
    return {
      bound: strings.length + 1,
      codes(ctx, sel, n, out) {
        const v = evalValue(e, ctx);
        if (v.t !== 'str') throw new Error('string key without dictionary');
        const codes = v.codes;
        if (v.valid === null) {
          if (sel === null) for (let i = 0; i < n; i++) out[i] = codes[i]! + 1;
          else for (let j = 0; j < n; j++) out[j] = codes[sel[j]!]! + 1;
        } else for (let j = 0; j < n; j++) out[j] = isValid(v.valid, rowAt(sel, j)) ? codes[rowAt(sel, j)]! + 1 : 0;
      },
      value: (code) => (code === 0 ? null : strings[code - 1]!),
      dict: dictValues(strings),
      dictCodes(ctx) {
        const v = evalValue(e, ctx);
        return v.t === 'str' && v.valid === null ? v.codes : null;
      },
    };
  }
  const dense = denseRange(shard, e);
  if (dense !== null) {
    const { base, step, shift, size } = dense;
    // For date_trunc keys the code comes straight from the timestamp: floor((t + shift) / step).
    const source = e.kind === 'date_trunc' ? e.arg : e;
    const isTrunc = e.kind === 'date_trunc';
    // extract(hour FROM ts column): the code straight from the µs, with no vector of hours in between.
    const hourOf = e.kind === 'extract' && e.field === 'hour' && e.type === 'int64' && e.arg.kind === 'col' ? e.arg : null;
    return {
      bound: size + 1,
      codes(ctx, sel, n, out) {
        if (hourOf !== null) {
          const t = evalValue(hourOf, ctx);
          if (t.t === 'num') {
            if (runsPay(t, US_PER_HOUR, n)) bucketRuns(t, sel, n, out, US_PER_HOUR, 0, hourCode);
            else hourCodes(t.values, t.valid, sel, n, out, simdHoursFit(t, sel) ? simdArena() : null);
            return;
          }
        }
        const v = evalValue(source, ctx);
        if (v.t === 'num' && isTrunc && runsPay(v, step, n)) bucketRuns(v, sel, n, out, step, shift, (q) => q - base + 1);
        else if (v.t === 'num') denseCodes(v.values, v.valid, sel, n, out, base, step, shift, isTrunc);
        else genericCodes(v, type, n, sel, out, (s) => (s === null ? 0 : isTrunc ? Math.floor((Number(s) + shift) / step) - base + 1 : Number(s) - base + 1));
      },
      value(code) {
        if (code === 0) return null;
        const x = isTrunc ? (base + code - 1) * step - shift : base + code - 1;
        return type === 'int64' ? BigInt(x) : x;
      },
    };
  }
  // Unbounded: a hash table from value to code ({@link ValueCodes}).
  const table = new ValueCodes(type === 'int64');
  const codeOf = (s: Scalar): number => table.codeOf(s);
  const entries = new EntryCodes(table);
  return {
    bound: Infinity,
    codes(ctx, sel, n, out) {
      const v = evalValue(e, ctx);
      if (v.t === 'num' && type !== 'bool') table.numberCodes(v.values, v.valid, sel, n, out);
      else if (v.t === 'str' && (v.canon !== undefined || v.strings.length <= 4 * n + 64)) entries.codes(v, sel, n, out);
      else genericCodes(v, type, n, sel, out, codeOf);
    },
    value: (code) => table.value(code),
    ...(type === 'float64' || type === 'timestamp' || type === 'date' ? { numbers: (codes: Int32Array, n: number) => table.numbers(codes, n) } : {}),
  };
}

/** Slots (groups) the growable per-group arrays of a scan start with; they grow {@link GROWTH} times. */
const FIRST_SLOTS = 1024;

/** Growth factor of the per-group arrays and tables of a scan (fewer copies and rehashes for a high-cardinality key). */
const GROWTH = 4;

/** The table of a {@link ValueCodes} still in ordered mode. */
const NO_SLOTS = new Float64Array(0);

/**
 * Codes of one group key of unbounded range, and the value of each code. Code 0 is NULL,
 * then codes go up in order of first appearance. Numbers (and int64 values within 2^53,
 * keyed by their double, so the same value is one key whichever view it came from) go in an
 * open-addressing table (linear probing, load <= 1/2) of interleaved (key, code) doubles,
 * their values in a growable Float64Array, so a high-cardinality key (a timestamp: ~28,000
 * groups in a 30,000-row shard) costs no Map entry or boxed double per group. While the
 * numbers come in non-decreasing order (a time-ordered shard's timestamps) there is no table
 * at all: a number above the last is new, one equal to it has its code; the first number
 * below the last builds the table from the values so far and every later one goes through
 * it. Anything else
 * (bigints beyond 2^53, booleans, strings without a dictionary) in a Map. -0 is 0 and every
 * NaN one key (SQL GROUP BY). `int64`: number values come back as bigints.
 */
class ValueCodes {
  /** Slot h: key at 2h, code at 2h + 1 (0: empty); empty until the numbers stop going up. */
  #slots = NO_SLOTS;
  #mask = 0;
  #used = 0;
  /** Every number so far came in non-decreasing order: no table yet, `#last` the largest, `#lastCode` its code (0: none yet). */
  #ordered = true;
  #last = -Infinity;
  #lastCode = 0;
  #nan = -1;
  /** Value of each code (0 unused: NULL); codes of non-numbers hold 0 here and their value in `#others` (by code; a hole for a number's code). */
  #nums: Float64Array;
  #size = 1;
  #others: Scalar[] | null = null;
  #byValue: Map<unknown, number> | null = null;
  readonly #int64: boolean;

  constructor(int64: boolean) {
    this.#int64 = int64;
    this.#nums = new Float64Array(FIRST_SLOTS);
  }

  /** Codes of the selected rows of a number vector into `out[j]` (0 for NULL). */
  numberCodes(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, n: number, out: Int32Array): void {
    if (valid === null) {
      if (sel === null) for (let j = 0; j < n; j++) out[j] = this.code(vals[j]!);
      else for (let j = 0; j < n; j++) out[j] = this.code(vals[sel[j]!]!);
    } else
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        out[j] = isValid(valid, i) ? this.code(vals[i]!) : 0;
      }
  }

  /** The code of a scalar (a new one if unseen): 0 for NULL. */
  codeOf(s: Scalar): number {
    if (s === null) return 0;
    if (typeof s === 'number') return this.code(s);
    if (typeof s === 'bigint' && s < EXACT_BIG && s > -EXACT_BIG) return this.code(Number(s));
    const byValue = (this.#byValue ??= this.#indexOthers());
    let c = byValue.get(s);
    if (c === undefined) {
      c = this.#append(0);
      (this.#others ??= [])[c] = s;
      byValue.set(s, c);
    }
    return c;
  }

  /** The code of number `x` (a new one if unseen). */
  code(x: number): number {
    if (x !== x) {
      if (this.#nan < 0) this.#nan = this.#append(NaN);
      return this.#nan;
    }
    if (this.#ordered) {
      if (x > this.#last || this.#lastCode === 0) {
        this.#last = x === 0 ? 0 : x;
        return (this.#lastCode = this.#append(this.#last));
      }
      if (x === this.#last) return this.#lastCode;
      this.#buildTable();
    }
    const v = x === 0 ? 0 : x;
    const slots = this.#slots;
    const mask = this.#mask;
    for (let h = hashDoubleBits(v) & mask; ; h = (h + 1) & mask) {
      const c = slots[2 * h + 1]!;
      if (c === 0) {
        const code = this.#append(v);
        slots[2 * h] = v;
        slots[2 * h + 1] = code;
        if (++this.#used * 2 > mask) this.#grow();
        return code;
      }
      if (slots[2 * h] === v) return c;
    }
  }

  /** The values of `codes[0..n)` when each is a number (no NULL, no other value), else null. */
  numbers(codes: Int32Array, n: number): Float64Array | null {
    if (this.#int64 || this.#others !== null) return null;
    const out = new Float64Array(n);
    const nums = this.#nums;
    for (let g = 0; g < n; g++) {
      const c = codes[g]!;
      if (c <= 0 || c >= this.#size) return null;
      out[g] = nums[c]!;
    }
    return out;
  }

  /** The value of code `code` (null for 0 and for codes never given). */
  value(code: number): Scalar {
    if (code <= 0 || code >= this.#size) return null;
    const other = this.#others?.[code];
    if (other !== undefined) return other;
    const x = this.#nums[code]!;
    return this.#int64 ? BigInt(x) : x;
  }

  /**
   * Whether values have been looked up by value ({@link codeOf} with a value that is not a
   * number): from then on {@link appendDistinct} is closed.
   */
  get indexed(): boolean {
    return this.#byValue !== null;
  }

  /**
   * A new code for string `s`, which the caller knows no code holds (every string so given
   * comes from one {@link StrView.canon}, which holds each string once, and none was looked up
   * by value: {@link indexed} is false), with no Map entry: the Map of the values so given is
   * built if a value is ever looked up.
   */
  appendDistinct(s: string): number {
    const c = this.#append(0);
    (this.#others ??= [])[c] = s;
    return c;
  }

  /** The Map from each non-number value held so far (all given by {@link appendDistinct}) to its code. */
  #indexOthers(): Map<unknown, number> {
    const m = new Map<unknown, number>();
    const others = this.#others;
    if (others !== null) for (let c = 1; c < this.#size; c++) if (others[c] !== undefined) m.set(others[c], c);
    return m;
  }

  #append(v: number): number {
    const code = this.#size++;
    if (code >= this.#nums.length) {
      const grown = new Float64Array(this.#nums.length * GROWTH);
      grown.set(this.#nums);
      this.#nums = grown;
    }
    this.#nums[code] = v;
    return code;
  }

  /**
   * Leaves the ordered mode: a table with room for {@link GROWTH} times the values so far
   * (at least {@link FIRST_SLOTS} slots), holding every number value so far.
   */
  #buildTable(): void {
    this.#ordered = false;
    let cap = FIRST_SLOTS;
    while (cap < 2 * GROWTH * this.#size) cap *= 2;
    const slots = (this.#slots = new Float64Array(2 * cap));
    const mask = (this.#mask = cap - 1);
    const others = this.#others;
    for (let c = 1; c < this.#size; c++) {
      if (c === this.#nan || others?.[c] !== undefined) continue;
      const k = this.#nums[c]!;
      let h = hashDoubleBits(k) & mask;
      while (slots[2 * h + 1] !== 0) h = (h + 1) & mask;
      slots[2 * h] = k;
      slots[2 * h + 1] = c;
      this.#used++;
    }
  }

  /** {@link GROWTH} times the slots. */
  #grow(): void {
    const old = this.#slots;
    const cap = (this.#mask + 1) * GROWTH;
    const slots = new Float64Array(2 * cap);
    const mask = cap - 1;
    for (let i = 0; i < old.length; i += 2) {
      const c = old[i + 1]!;
      if (c === 0) continue;
      const k = old[i]!;
      let h = hashDoubleBits(k) & mask;
      while (slots[2 * h + 1] !== 0) h = (h + 1) & mask;
      slots[2 * h] = k;
      slots[2 * h + 1] = c;
    }
    this.#slots = slots;
    this.#mask = mask;
  }
}

/**
 * Dense codes of extract(hour) (range 0..23, base 0): 1 + the hour of each instant (µs since
 * 1970, UTC), as the extract kernel computes it; 0 for NULL and non-finite instants.
 */
function hourCodes(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, n: number, out: Int32Array, arena: Arena | null): void {
  if (valid === null && sel === null) {
    // Two rows per operation in WebAssembly (src/leaf/simd.ts), the last n % 4 rows below.
    const from = arena === null ? 0 : arena.hourCodes(vals, n, out);
    // Every row, no NULLs: one division per row. floor(x / 1 h) is exact for the integer µs of
    // a timestamp (|x| < 2^53: the quotient's rounding error is below 1 / 3.6e9), and its
    // residue mod 24 is the hour of the day (NaN and ±Infinity give NaN: code 0, as below).
    // The hour since 1970 of any timestamp fits an int32: its residue is an integer remainder
    // (a multiplication, where a double's remainder is a call to fmod).
    for (let j = from; j < n; j++) {
      const q = Math.floor(vals[j]! / US_PER_HOUR);
      if (q >= -2147483648 && q < 2147483648) {
        const h = (q | 0) % 24;
        out[j] = h < 0 ? h + 25 : h + 1;
      } else {
        const h = q % 24;
        out[j] = h !== h ? 0 : h < 0 ? h + 25 : h + 1;
      }
    }
    return;
  }
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    const x = vals[i]!;
    const h = Math.floor((x - Math.floor(x / US_PER_DAY) * US_PER_DAY) / US_PER_HOUR);
    out[j] = h !== h || (valid !== null && !isValid(valid, i)) ? 0 : h + 1;
  }
}

const US_PER_HOUR = 3_600_000_000;

/**
 * Whether the `hours` WebAssembly kernel may code a batch's instants: every row, none NULL,
 * all finite with |t| < 2^53 (the batch's statistics say so; computed vectors have none).
 */
function simdHoursFit(t: NumView, sel: Int32Array | null): boolean {
  const s = t.stats;
  return sel === null && t.valid === null && s !== undefined && s.count === s.rows && s.min > -EXACT_DOUBLE && s.max < EXACT_DOUBLE;
}

/** 2^53: doubles below it in magnitude hold every integer exactly. */
const EXACT_DOUBLE = 2 ** 53;

/** The dense code of extract(hour) of the instants of hour `q` since 1970 (as {@link hourCodes}). */
function hourCode(q: number): number {
  const h = q % 24;
  return h < 0 ? h + 25 : h + 1;
}

/** Fewest rows a bucket must hold on average for {@link bucketRuns} to beat a division per row. */
const MIN_RUN_ROWS = 16;

/** Largest margin {@link bucketRuns} keeps below a bucket's end, µs. */
const RUN_MARGIN_US = 1000;

/**
 * Whether {@link bucketRuns} applies to a batch and pays: a column batch whose statistics say
 * its rows ascend (no NULL, finite: {@link NumView.stats}), whose buckets of `step` µs hold
 * {@link MIN_RUN_ROWS} rows or more on average, with `n` rows selected.
 */
function runsPay(v: NumView, step: number, n: number): boolean {
  const s = v.stats;
  return s !== undefined && s.ascending && s.count > 0 && n >= MIN_RUN_ROWS && s.rows >= MIN_RUN_ROWS * (Math.floor((s.max - s.min) / step) + 1);
}

/**
 * Codes of a time bucket key over ascending instants (µs; a time-ordered log's timestamps,
 * {@link runsPay}): `codeOf(floor((t + shift) / step))` for each selected row (`sel`,
 * ascending row numbers, or null for rows 0..n-1), written to `out`, with one division per
 * bucket met instead of one per row. The bucket is a monotone function of the instant, so each
 * bucket's rows form one run: its first row is divided, the rows below a bound a margin
 * before the bucket's end are taken by a comparison, and the rows past the bound are divided
 * one by one until one falls in the next bucket (which starts the next run). The margin
 * (`step` / 2, at most {@link RUN_MARGIN_US}) exceeds the rounding of the division (at most
 * 2^-51 of (|t| + |shift| + step) / step) whenever it is at least 2^-48 (|t| + |shift| + step),
 * so every code is the one the row's own division gives; otherwise every row is divided.
 * `codeOf` is called once per run.
 */
function bucketRuns(v: NumView, sel: Int32Array | null, n: number, out: Int32Array, step: number, shift: number, codeOf: (q: number) => number): void {
  const vals = v.values;
  const s = v.stats!;
  const margin = Math.min(step / 2, RUN_MARGIN_US);
  const marginSound = margin >= 2 ** -48 * (Math.max(Math.abs(s.min), Math.abs(s.max)) + Math.abs(shift) + step);
  let j = 0;
  let q = Math.floor((vals[sel === null ? 0 : sel[0]!]! + shift) / step);
  while (j < n) {
    const code = codeOf(q);
    const safe = marginSound ? (q + 1) * step - shift - margin : -Infinity;
    out[j++] = code;
    if (sel === null) {
      while (j < n && vals[j]! < safe) out[j++] = code;
      while (j < n) {
        const next = Math.floor((vals[j]! + shift) / step);
        if (next !== q) {
          q = next;
          break;
        }
        out[j++] = code;
      }
    } else {
      while (j < n && vals[sel[j]!]! < safe) out[j++] = code;
      while (j < n) {
        const next = Math.floor((vals[sel[j]!]! + shift) / step);
        if (next !== q) {
          q = next;
          break;
        }
        out[j++] = code;
      }
    }
  }
}

/** Dense codes: 1 + (value - base) for integers, 1 + floor((t + shift) / step) - base for buckets; 0 for NULL. */
function denseCodes(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, n: number, out: Int32Array, base: number, step: number, shift: number, bucket: boolean): void {
  if (bucket) {
    for (let j = 0; j < n; j++) {
      const i = sel === null ? j : sel[j]!;
      out[j] = valid !== null && !isValid(valid, i) ? 0 : Math.floor((vals[i]! + shift) / step) - base + 1;
    }
  } else {
    for (let j = 0; j < n; j++) {
      const i = sel === null ? j : sel[j]!;
      out[j] = valid !== null && !isValid(valid, i) ? 0 : vals[i]! - base + 1;
    }
  }
}

function genericCodes(v: ValueVec, type: ColumnType, n: number, sel: Int32Array | null, out: Int32Array, codeOf: (s: Scalar) => number): void {
  for (let j = 0; j < n; j++) out[j] = codeOf(scalarAt(v, type, rowAt(sel, j)));
}

/**
 * Group codes of a string vector's rows, looked up once per entry (a string's code is cached
 * by its entry). The cache outlives the batch when the next vector has the same table: the
 * same `strings` (a dictionary, or strings computed per entry), or the same append-only
 * {@link StrView.canon} (strings computed per pair of entries), so a scan looks each string
 * up once, not once per batch. `out[j]` is the code of row `sel[j]` (or `j`), 0 for NULL.
 */
class EntryCodes {
  readonly #values: ValueCodes;
  /** The table the cache is for, and its entries' code + 1 (0: not looked up yet). */
  #table: readonly string[] | null = null;
  #byEntry = new Int32Array(0);
  /**
   * The first {@link StrView.canon} met, while no value has been looked up by value: its new
   * entries get new codes with no look-up ({@link ValueCodes.appendDistinct}).
   */
  #distinct: readonly string[] | null = null;

  constructor(values: ValueCodes) {
    this.#values = values;
  }

  /** The code of `s`, an entry met for the first time (of `canon` when the vector has one). */
  #codeOf(s: string, canon: readonly string[] | undefined): number {
    const values = this.#values;
    if (canon !== undefined && !values.indexed && canon === (this.#distinct ??= canon)) return values.appendDistinct(s);
    return values.codeOf(s);
  }

  codes(v: StrView, sel: Int32Array | null, n: number, out: Int32Array): void {
    const table = v.canon ?? v.strings;
    const canon = v.canon;
    let byEntry = this.#byEntry;
    if (table !== this.#table) {
      this.#table = table;
      byEntry = this.#byEntry = new Int32Array(v.strings.length);
    } else if (byEntry.length < v.strings.length) {
      byEntry = new Int32Array(Math.max(v.strings.length, 2 * byEntry.length));
      byEntry.set(this.#byEntry);
      this.#byEntry = byEntry;
    }
    const codes = v.codes;
    const strings = v.strings;
    if (sel === null && v.valid === null) {
      for (let i = 0; i < n; i++) {
        const c = codes[i]!;
        let m = byEntry[c]!;
        if (m === 0) byEntry[c] = m = this.#codeOf(strings[c]!, canon) + 1;
        out[i] = m - 1;
      }
      return;
    }
    for (let j = 0; j < n; j++) {
      const i = rowAt(sel, j);
      if (!isValid(v.valid, i)) {
        out[j] = 0;
        continue;
      }
      const c = codes[i]!;
      let m = byEntry[c]!;
      if (m === 0) byEntry[c] = m = this.#codeOf(strings[c]!, canon) + 1;
      out[j] = m - 1;
    }
  }
}

/**
 * One partial at the leaf: its accumulator (src/merge/aggregates), the expressions it reads,
 * and its FILTER with scratch buffers for the rows (and their groups) that pass it.
 */
interface Agg {
  readonly acc: Accumulator;
  readonly inputs: readonly Expr[];
  /** Structural key of each input (partials of one aggregate, e.g. AVG's sum and count, share their vectors per batch). */
  readonly inputKeys: readonly string[];
  readonly filter: Expr | null;
  /** Structural key of `filter` ('' without one). */
  readonly filterKey: string;
  /** The inputs' vectors of the batch being updated (one array per partial, refilled per batch). */
  readonly vecs: ValueVec[];
  sel: Int32Array;
  gids: Int32Array;
}

function rowAt(sel: Int32Array | null, j: number): number {
  return sel === null ? j : sel[j]!;
}

/** A partial's inputs and their keys, by spec object: the shards of one request (and the entries of one multiplexed request) share the plan's objects. */
const AGG_INPUTS = new WeakMap<PartialSpec, { readonly partials: readonly PartialSpec[]; readonly inputs: Agg['inputs']; readonly inputKeys: Agg['inputKeys']; readonly filterKey: string }>();

function makeAgg(spec: PartialSpec, argType: ColumnType | null, partials: readonly PartialSpec[]): Agg {
  const def = partialDef(spec.kind);
  let known = AGG_INPUTS.get(spec);
  if (known === undefined || known.partials !== partials) {
    // The keys are JSON of expressions (a replacer per value): a few µs per partial per request.
    const inputs = def.inputs(spec, partials);
    known = { partials, inputs, inputKeys: inputs.map((e) => JSON.stringify(e, keyPart)), filterKey: spec.filter === undefined ? '' : JSON.stringify(spec.filter, keyPart) };
    AGG_INPUTS.set(spec, known);
  }
  return { acc: def.accumulator(spec, argType, partials), inputs: known.inputs, inputKeys: known.inputKeys, filter: spec.filter ?? null, filterKey: known.filterKey, vecs: [], sel: NO_CODES, gids: NO_CODES };
}

/**
 * JSON replacer for expression keys: bigints, non-finite numbers and -0 (which JSON would
 * print as null or 0) as tagged objects, so distinct literals never share a key.
 */
function keyPart(_key: string, v: unknown): unknown {
  if (typeof v === 'bigint') return { $bigint: String(v) };
  if (typeof v === 'number' && (!Number.isFinite(v) || Object.is(v, -0))) return { $double: Object.is(v, -0) ? '-0' : String(v) };
  return v;
}

/**
 * An input `CASE WHEN cond THEN a ELSE b END` whose branches are integer constants: each row's
 * value is `b + (a - b) · [cond TRUE]` and never NULL (FALSE and UNKNOWN take ELSE), so a SUM of
 * it per group is `b · rows + (a - b) · rows where cond`, the counts the fused loop keeps for
 * COUNT(*) FILTER (WHERE cond): no value vector (the `avg(CASE WHEN delay > 15 THEN 1 ELSE 0
 * END)` rate of dashboards).
 */
interface TruthCase {
  readonly cond: Expr;
  /** Structural key of `cond` (shared with a FILTER of the same condition). */
  readonly condKey: string;
  readonly a: number;
  readonly b: number;
}

/** Largest |a|, |b| of a {@link TruthCase}: sums and fourth powers of the counts stay exact doubles far beyond any shard. */
const TRUTH_CASE_LIMIT = 2 ** 8;

/** `e` as a {@link TruthCase}, or null when it is not that shape. */
function truthCaseOf(e: Expr): TruthCase | null {
  if (e.kind !== 'case' || e.operand !== null || e.whens.length !== 1 || e.else === null || (e.type !== 'int64' && e.type !== 'float64')) return null;
  const small = (x: Expr): number | null => {
    if (x.kind !== 'lit') return null;
    const v = typeof x.value === 'bigint' ? Number(x.value) : x.value;
    return typeof v === 'number' && Number.isInteger(v) && !Object.is(v, -0) && Math.abs(v) <= TRUTH_CASE_LIMIT ? v : null;
  };
  const a = small(e.whens[0]!.then);
  const b = small(e.else);
  if (a === null || b === null) return null;
  const cond = e.whens[0]!.when;
  return { cond, condKey: JSON.stringify(cond, keyPart), a, b };
}

/**
 * Updates one partial over a batch: its inputs' vectors, then its accumulator, over the
 * selected rows where its FILTER is TRUE (narrowed selection and group ids).
 */
function updateAgg(a: Agg, ctx: BatchCtx, sel: Int32Array | null, gids: Int32Array | null, n: number, groups: number, batchInputs: Map<string, ValueVec>, batchTruths: Map<string, Tri>): void {
  const vecs = a.vecs;
  for (let k = 0; k < a.inputs.length; k++) {
    const key = a.inputKeys[k]!;
    let v = batchInputs.get(key);
    if (v === undefined) {
      v = inputVector(a.inputs[k]!, ctx);
      batchInputs.set(key, v);
    }
    vecs[k] = v;
  }
  if (a.filter === null) {
    a.acc.update(vecs, sel, gids, n, groups);
    return;
  }
  if (sel === null && gids === null && a.acc.addGroupSums !== undefined) {
    // SUM(x) FILTER (WHERE col op k) over every row of the batch, one group: one masked pass.
    const v = vecs[0]!;
    if (n === 0) return;
    const r = v.t === 'num' && v.valid === null && n * v.maxAbs < EXACT ? maskedSum(a.filter, ctx, v) : null;
    if (r !== null) {
      a.acc.addGroupSums(Float64Array.of(r.sum), Float64Array.of(r.rows), groups, n, (v as NumView).maxAbs);
      return;
    }
  }
  // Narrowing buffers, allocated on first use (a scan whose batches all take a pass above allocates none).
  if (a.sel.length < n) {
    a.sel = new Int32Array(Math.max(n, 8192));
    a.gids = new Int32Array(Math.max(n, 8192));
  }
  const fsel = a.sel;
  const fgids = a.gids;
  if (sel === null && gids === null) {
    // Every row of the batch, one group: the FILTER writes the selection directly.
    a.acc.update(vecs, fsel, null, selectWhere(a.filter, ctx, fsel), groups);
    return;
  }
  // Aggregates with the same FILTER (sum(x) FILTER (WHERE c), count(*) FILTER (WHERE c)) share its truth per batch.
  let pass = batchTruths.get(a.filterKey);
  if (pass === undefined) {
    pass = evalPredicate(a.filter, ctx);
    batchTruths.set(a.filterKey, pass);
  }
  if (a.acc.updatePassing !== undefined) {
    a.acc.updatePassing(vecs, pass, sel, gids, n, groups);
    return;
  }
  // Branch-free narrowing (TRUE = 2, so `pass >> 1` is 1 for TRUE only).
  let m = 0;
  if (gids === null) {
    for (let j = 0; j < n; j++) {
      const i = sel![j]!;
      fsel[m] = i;
      m += pass[i]! >> 1;
    }
  } else {
    for (let j = 0; j < n; j++) {
      const i = rowAt(sel, j);
      fsel[m] = i;
      fgids[m] = gids[j]!;
      m += pass[i]! >> 1;
    }
  }
  a.acc.update(vecs, fsel, gids === null ? null : fgids, m, groups);
}


/**
 * Rows per group, and per group the rows whose truth is TRUE (2) in `p1` and in `p2`
 * (`pass[row]`, row = sel[j] or j), branch-free.
 */
function groupRowsPassing(gids: Int32Array, sel: Int32Array | null, n: number, p1: Tri, p2: Tri, rows: Float64Array, c1: Float64Array, c2: Float64Array): void {
  for (let j = 0; j < n; j++) {
    const g = gids[j]!;
    const i = sel === null ? j : sel[j]!;
    rows[g]!++;
    c1[g]! += p1[i]! >> 1;
    c2[g]! += p2[i]! >> 1;
  }
}

/** {@link groupRowsPassing} of one truth (`c1` only): two read-modify-writes per row, not three. */
function groupRowsPassing1(gids: Int32Array, sel: Int32Array | null, n: number, p1: Tri, rows: Float64Array, c1: Float64Array): void {
  if (sel === null)
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      rows[g]!++;
      c1[g]! += p1[j]! >> 1;
    }
  else
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      rows[g]!++;
      c1[g]! += p1[sel[j]!]! >> 1;
    }
}

/** {@link groupRowsInRange} of one range test (`c1` only). */
function groupRowsInRange1(gids: Int32Array, sel: Int32Array | null, n: number, t1: { readonly vals: Int32Array; readonly r: IntRange }, rows: Float64Array, c1: Float64Array): void {
  const x1 = t1.vals;
  const { lo, hi, inside } = t1.r;
  if (sel === null)
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      const a = x1[j]!;
      rows[g]!++;
      c1[g]! += (((a - lo) | (hi - a)) >>> 31) ^ inside;
    }
  else
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      const a = x1[sel[j]!]!;
      rows[g]!++;
      c1[g]! += (((a - lo) | (hi - a)) >>> 31) ^ inside;
    }
}

/**
 * {@link groupRowsPassing} with the truths computed in the loop: rows per group, and per group
 * the rows where range test `t1` and where `t2` is TRUE (branch-free, src/leaf/int32.ts).
 */
function groupRowsInRange(gids: Int32Array, sel: Int32Array | null, n: number, t1: { readonly vals: Int32Array; readonly r: IntRange }, t2: { readonly vals: Int32Array; readonly r: IntRange }, rows: Float64Array, c1: Float64Array, c2: Float64Array): void {
  const x1 = t1.vals;
  const x2 = t2.vals;
  const { lo: lo1, hi: hi1, inside: in1 } = t1.r;
  const { lo: lo2, hi: hi2, inside: in2 } = t2.r;
  for (let j = 0; j < n; j++) {
    const g = gids[j]!;
    const i = sel === null ? j : sel[j]!;
    const a = x1[i]!;
    const b = x2[i]!;
    rows[g]!++;
    c1[g]! += (((a - lo1) | (hi1 - a)) >>> 31) ^ in1;
    c2[g]! += (((b - lo2) | (hi2 - b)) >>> 31) ^ in2;
  }
}

/** `c[j] += codes[j] * mult` for j < n (Int32: the dense composite stays below 2^22). */
function addScaled(c: Int32Array, codes: Int32Array, mult: number, n: number): void {
  for (let j = 0; j < n; j++) c[j]! += codes[j]! * mult;
}

/** Rows per group: `rows[gids[j]]++` for j < n. */
function groupRows(gids: Int32Array, n: number, rows: Float64Array): void {
  for (let j = 0; j < n; j++) rows[gids[j]!]!++;
}

/** {@link groupRows} that also sets bit `gids[j]` of `marks` (markCodes in the same pass: the per-code loop of a wide key space). */
function groupRowsMarked(gids: Int32Array, n: number, rows: Float64Array, marks: Int32Array): void {
  for (let j = 0; j < n; j++) {
    const c = gids[j]!;
    rows[c]!++;
    marks[c >>> 5]! |= 1 << (c & 31);
  }
}

/** Most groups {@link groupRowsStriped} counts in stripes (4 slots per group). */
const STRIPE_LIMIT = 1024;

/**
 * {@link groupRows} for few groups (ids < `groups` <= {@link STRIPE_LIMIT}): rows j, j+1, j+2,
 * j+3 count into 4 separate slots per group (`stripes[4g + (j & 3)]`, all 0 on entry and on
 * return), summed into `rows` at the end. With 24 groups (extract(hour)) neighbouring rows
 * often share a group, and one counter per group makes each increment wait for the previous
 * one's store; four counters let four run at once.
 */
function groupRowsStriped(gids: Int32Array, n: number, rows: Float64Array, stripes: Float64Array, groups: number): void {
  let j = 0;
  for (; j + 3 < n; j += 4) {
    stripes[gids[j]! << 2]!++;
    stripes[(gids[j + 1]! << 2) | 1]!++;
    stripes[(gids[j + 2]! << 2) | 2]!++;
    stripes[(gids[j + 3]! << 2) | 3]!++;
  }
  for (; j < n; j++) rows[gids[j]!]!++;
  for (let g = 0; g < groups; g++) {
    const k = g << 2;
    rows[g]! += stripes[k]! + stripes[k + 1]! + stripes[k + 2]! + stripes[k + 3]!;
    stripes[k] = 0;
    stripes[k + 1] = 0;
    stripes[k + 2] = 0;
    stripes[k + 3] = 0;
  }
}

/** Rows and sums of `vals` per group over selection `sel` (null: rows 0..n-1). */
function groupRowsSum(gids: Int32Array, sel: Int32Array | null, n: number, vals: Float64Array, rows: Float64Array, sums: Float64Array): void {
  if (sel === null)
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      rows[g]!++;
      sums[g]! += vals[j]!;
    }
  else
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      rows[g]!++;
      sums[g]! += vals[sel[j]!]!;
    }
}

/**
 * {@link groupRowsSum} with Σx², Σx³, Σx⁴ of the same vector per group (fused `moments` power
 * partials), side by side in `pows` (group g's at 3g, 3g + 1, 3g + 2: one cache line per row).
 */
function groupRowsSumPowers(gids: Int32Array, sel: Int32Array | null, n: number, vals: Float64Array, rows: Float64Array, sums: Float64Array, pows: Float64Array): void {
  if (sel === null) for (let j = 0; j < n; j++) addRowPowers(gids[j]!, vals[j]!, rows, sums, pows);
  else for (let j = 0; j < n; j++) addRowPowers(gids[j]!, vals[sel[j]!]!, rows, sums, pows);
}

/** {@link groupRowsSumPowers} with the group's MIN (`isMin`) or MAX in `ext` as {@link groupRowsSumMax} / Min keep it. */
function groupRowsSumPowersExtreme(gids: Int32Array, sel: Int32Array | null, n: number, vals: Float64Array, rows: Float64Array, sums: Float64Array, pows: Float64Array, ext: Float64Array, isMin: boolean): void {
  for (let j = 0; j < n; j++) {
    const g = gids[j]!;
    const x = vals[sel === null ? j : sel[j]!]!;
    addRowPowers(g, x, rows, sums, pows);
    if (isMin ? betterMin(x, ext[g]!) : betterMax(x, ext[g]!)) ext[g] = x;
  }
}

/** One row of value `x` in group `g`: its count, sum and Σx², Σx³, Σx⁴ at 3g .. (inlined by the JIT into the loops). */
function addRowPowers(g: number, x: number, rows: Float64Array, sums: Float64Array, pows: Float64Array): void {
  const x2 = x * x;
  const o = 3 * g;
  rows[g]!++;
  sums[g]! += x;
  pows[o]! += x2;
  pows[o + 1]! += x2 * x;
  pows[o + 2]! += x2 * x2;
}

/** No powers (a fused loop without a `moments` power partial). */
const NO_POWS = new Float64Array(0);

/** No extremes (a fused loop without MIN or MAX). */
const NO_EXT = new Float64Array(0);

/** {@link groupRowsSum} with each group's MAX of the same vector in `ext` (canopy's order: betterMax). */
function groupRowsSumMax(gids: Int32Array, sel: Int32Array | null, n: number, vals: Float64Array, rows: Float64Array, sums: Float64Array, ext: Float64Array): void {
  for (let j = 0; j < n; j++) {
    const g = gids[j]!;
    const x = vals[sel === null ? j : sel[j]!]!;
    rows[g]!++;
    sums[g]! += x;
    if (betterMax(x, ext[g]!)) ext[g] = x;
  }
}

/** {@link groupRowsSumMax} for MIN (betterMin; `ext` starts at NaN, which every number beats). */
function groupRowsSumMin(gids: Int32Array, sel: Int32Array | null, n: number, vals: Float64Array, rows: Float64Array, sums: Float64Array, ext: Float64Array): void {
  for (let j = 0; j < n; j++) {
    const g = gids[j]!;
    const x = vals[sel === null ? j : sel[j]!]!;
    rows[g]!++;
    sums[g]! += x;
    if (betterMin(x, ext[g]!)) ext[g] = x;
  }
}

/** {@link groupRowsSum} over two vectors at once. */
function groupRowsSum2(gids: Int32Array, sel: Int32Array | null, n: number, a: Float64Array, b: Float64Array, rows: Float64Array, sa: Float64Array, sb: Float64Array): void {
  if (sel === null)
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      rows[g]!++;
      sa[g]! += a[j]!;
      sb[g]! += b[j]!;
    }
  else
    for (let j = 0; j < n; j++) {
      const g = gids[j]!;
      const i = sel[j]!;
      rows[g]!++;
      sa[g]! += a[i]!;
      sb[g]! += b[i]!;
    }
}

/**
 * Group ids of the rows `from..n)` from their dense key codes: `gids[j] = dense[comp[j]]`,
 * up to the first row whose code has no group yet (`dense` -1); returns that row, or `n`.
 */
function denseGids(comp: Int32Array, dense: Int32Array, gids: Int32Array, from: number, n: number): number {
  for (let j = from; j < n; j++) {
    const g = dense[comp[j]!]!;
    if (g < 0) return j;
    gids[j] = g;
  }
  return n;
}

/** Largest key space (product of the key bounds) accumulated per code across batches, whatever the shard's rows. */
const DIRECT_LIMIT = 1 << 12;

/**
 * Largest key space accumulated per code across batches when the shard has at least a
 * quarter as many rows as codes (two dictionary keys: 224 origins × 226 destinations): the
 * flush then reads every code once per shard, which costs less than per-batch group ids.
 */
const DIRECT_LIMIT_WIDE = 1 << 16;

/**
 * `byGroup[dense[c]] = byCode[c]`, then `byCode[c] = 0`, for the codes c = used[j], j < m
 * (`dense` null: code used[j] is group j).
 */
function moveByCode(used: Int32Array, m: number, dense: Int32Array | null, byCode: Float64Array, byGroup: Float64Array): void {
  if (dense === null)
    for (let j = 0; j < m; j++) {
      const c = used[j]!;
      byGroup[j] = byCode[c]!;
      byCode[c] = 0;
    }
  else
    for (let j = 0; j < m; j++) {
      const c = used[j]!;
      byGroup[dense[c]!] = byCode[c]!;
      byCode[c] = 0;
    }
}

/** Sets bit `idx[j]` of `marks` for j < n (the codes a batch of the per-code loop had). */
function markCodes(idx: Int32Array, n: number, marks: Int32Array): void {
  for (let j = 0; j < n; j++) {
    const c = idx[j]!;
    marks[c >>> 5]! |= 1 << (c & 31);
  }
}

/**
 * The codes whose bits are set in `marks` into `used`, ascending, clearing `marks`; returns
 * their count.
 */
function markedCodes(marks: Int32Array, used: Int32Array): number {
  let m = 0;
  for (let w = 0; w < marks.length; w++) {
    let bits = marks[w]!;
    if (bits === 0) continue;
    marks[w] = 0;
    while (bits !== 0) {
      const low = bits & -bits;
      used[m++] = (w << 5) + 31 - Math.clz32(low);
      bits ^= low;
    }
  }
  return m;
}

/**
 * Composite codes of two dictionary keys without NULLs in one pass, `out[j] = (a[i] + 1) +
 * b0 · (b[i] + 1)` for the selected rows i = sel[j] (sel null: i = j), the same composite
 * as the key-by-key build: c0 + b0 · c1 with key codes `entry + 1`. Int32: b0 · b1 <= 2^16.
 */
function pairCodes(a: Int32Array, b: Int32Array, b0: number, sel: Int32Array | null, n: number, out: Int32Array): void {
  const off = 1 + b0;
  if (sel === null) for (let i = 0; i < n; i++) out[i] = a[i]! + b0 * b[i]! + off;
  else
    for (let j = 0; j < n; j++) {
      const i = sel[j]!;
      out[j] = a[i]! + b0 * b[i]! + off;
    }
}

/**
 * Per-code row counts and sums of the direct group loop, held across the batches of one
 * shard: `counts[c]` rows of composite code c, `sums1`/`sums2` its sums (or FILTER counts),
 * over `rows` rows since the last flush with |value| <= `max1`/`max2`. `shape` names what
 * the arrays hold (a batch of another shape flushes first), `targets` which array each
 * partial reads. The arrays are all zero when handed out and when given back.
 */
interface DirectState {
  readonly counts: Float64Array;
  readonly sums1: Float64Array;
  readonly sums2: Float64Array;
  /** Σx², Σx³, Σx⁴ of the first vector per code, side by side (code c's at 3c ..; fused `moments` power partials), allocated on first use. */
  pows: Float64Array | null;
  /** The first vector's MIN or MAX per code (a fused extreme; NaN / -Infinity where none), allocated on first use and given back so. */
  mins: Float64Array | null;
  maxs: Float64Array | null;
  /**
   * Key spaces over {@link DIRECT_LIMIT} codes: bit c set for each code c some row since the
   * last flush had (the flush visits those codes, not every one), allocated on first use and
   * given back all zero.
   */
  marks: Int32Array | null;
  /** Which of `sums1` (bit 1) and `sums2` (bit 2) the batches since the last flush wrote (the flush reads and clears only those). */
  wrote: number;
  /** The codes a flush found in use (as long as `counts`). */
  readonly used: Int32Array;
  shape: string;
  targets: readonly number[];
  rows: number;
  max1: number;
  max2: number;
}

/** Per-batch buffers of a GroupAggregator (group ids, key codes, composite key codes), pooled between scans. */
interface BatchBufs {
  gids: Int32Array;
  codes: Int32Array;
  keys: Int32Array[];
}

const BUF_POOL: BatchBufs[] = [];

/**
 * The smallest entry of `pool` at least `size` long (by `len`), taken out of it; null when
 * none is. Best fit keeps the long entries for the scans that need them.
 */
function takeFitting<T>(pool: T[], size: number, len: (t: T) => number): T | null {
  let best = -1;
  for (let k = 0; k < pool.length; k++) if (len(pool[k]!) >= size && (best < 0 || len(pool[k]!) < len(pool[best]!))) best = k;
  return best < 0 ? null : pool.splice(best, 1)[0]!;
}

/**
 * Puts `t` in `pool` (at most `max` entries); a full pool drops its shortest entry for a
 * longer one. Queries of different shapes on one process then keep the long buffers a wide
 * key space needs, rather than allocating them again (megabytes of zeroed memory per shard,
 * and a scavenge for the external memory) each time a narrower query filled the pool.
 */
function giveKeepingLongest<T>(pool: T[], t: T, max: number, len: (t: T) => number): void {
  if (pool.length < max) {
    pool.push(t);
    return;
  }
  let shortest = 0;
  for (let k = 1; k < pool.length; k++) if (len(pool[k]!) < len(pool[shortest]!)) shortest = k;
  if (len(pool[shortest]!) < len(t)) pool[shortest] = t;
}

/**
 * Idle group-by-code tables of dense key spaces (every slot -1), reused by later scans: a
 * shard's scan of two dictionary keys would otherwise allocate and fill 50,000 slots.
 */
const DENSE_POOL: Int32Array[] = [];
const DENSE_POOL_MAX = 4;

/** A table of `size` slots, all -1 (a view of a pooled one when one is long enough). */
function takeDense(size: number): Int32Array {
  const t = takeFitting(DENSE_POOL, size, (d) => d.length);
  if (t === null) return new Int32Array(size).fill(-1);
  return t.length === size ? t : t.subarray(0, size);
}

/** Gives back a table whose every slot is -1 again (the whole underlying buffer). */
function giveDense(t: Int32Array): void {
  giveKeepingLongest(DENSE_POOL, new Int32Array(t.buffer, 0, t.buffer.byteLength >> 2), DENSE_POOL_MAX, (d) => d.length);
}

function takeBufs(): BatchBufs {
  return BUF_POOL.pop() ?? { gids: new Int32Array(0), codes: new Int32Array(0), keys: [] };
}

function giveBufs(b: BatchBufs): void {
  if (BUF_POOL.length < DIRECT_POOL_MAX) BUF_POOL.push(b);
}

/** Per-group rows and sums of the fused loop that finished aggregators gave back (stale contents: users fill what they read). */
const GROUP_ARRAYS: { rows: Float64Array; sums1: Float64Array; sums2: Float64Array }[] = [];

function giveGroupArrays(a: { rows: Float64Array; sums1: Float64Array; sums2: Float64Array }): void {
  giveKeepingLongest(GROUP_ARRAYS, a, DIRECT_POOL_MAX, (e) => e.rows.length);
}

/** Idle per-code arrays (zeroed), reused by later scans. */
const DIRECT_POOL: DirectState[] = [];
const DIRECT_POOL_MAX = 4;

function takeDirect(size: number): DirectState {
  const pooled = takeFitting(DIRECT_POOL, size, (d) => d.counts.length);
  if (pooled !== null) return pooled;
  const cap = Math.max(size, 4096);
  return { counts: new Float64Array(cap), sums1: new Float64Array(cap), sums2: new Float64Array(cap), pows: null, mins: null, maxs: null, marks: null, wrote: 0, used: new Int32Array(cap), shape: '', targets: [], rows: 0, max1: 0, max2: 0 };
}

/** Gives flushed (all-zero) arrays back to the pool. */
function giveDirect(d: DirectState): void {
  d.shape = '';
  d.targets = [];
  giveKeepingLongest(DIRECT_POOL, d, DIRECT_POOL_MAX, (e) => e.counts.length);
}

/**
 * Groups and aggregates one shard: the scan calls {@link GroupAggregator.addBatch} with each
 * batch's selected rows (WHERE already applied), then {@link GroupAggregator.result}.
 * @throws Error with a CANOPY_ERR_LIMIT CanopyError when groups exceed `maxGroups`.
 */
export class GroupAggregator {
  readonly #coders: KeyCoder[];
  readonly #aggs: Agg[];
  readonly #dense: Int32Array | null;
  readonly #map = new Map<number | string, number>();
  /** One key of unbounded range: group id by key code (-1: none yet). */
  #byCode = NO_CODES;
  readonly #numericComposite: boolean;
  /** Per key, the code of each group (growable). */
  #keyCodes: Int32Array[];
  #groups = 0;
  #codeBuf: Int32Array = NO_CODES;
  /** Per key, then the composite: Int32 code buffers of a dense composite key, reused between batches. */
  #keyBufs: Int32Array[] = [];
  /** The key space is dense and some partial takes the fused group loop (see {@link fusedBatch}). */
  readonly #fusable: boolean;
  /** The partials the fused group loop takes (COUNT, int64 SUM; no FILTER), and the others (updated per partial with group ids). */
  readonly #fused: Agg[];
  /** Per fused partial, its input as a {@link TruthCase} when every fused partial of that input can take the counts (else null: the input's vector). */
  readonly #truth: (TruthCase | null)[];
  readonly #anyTruth: boolean;
  /** Per-group sums or powers of the {@link TruthCase} inputs, made from the counts (grown on use). */
  #truthSums: Float64Array = NO_EXT;
  readonly #rest: Agg[];
  /** Per-batch rows and sums per group of the fused loop (and Σx², Σx³, Σx⁴ for a fused `moments`). */
  #rows: Float64Array = NO_EXT;
  #sums1: Float64Array = NO_EXT;
  #sums2: Float64Array = NO_EXT;
  /** Σx², Σx³, Σx⁴ per group side by side (group g's at 3g ..). */
  #pows: Float64Array = NO_POWS;
  /** Zeroed counters of {@link groupRowsStriped}, allocated on first use. */
  #stripes: Float64Array = NO_EXT;
  /** Per-batch MIN or MAX per group of a fused extreme. */
  #ext: Float64Array = NO_EXT;
  #gidBuf: Int32Array = NO_CODES;
  /** The batch buffers above, from the pool ({@link takeBufs}), given back by {@link result}. */
  #bufs: BatchBufs | null = null;
  /** Per-code accumulation over many batches (a small dense key space): see {@link DirectState}. */
  #direct: DirectState | null = null;
  /** The key space is small enough for per-code accumulation: the product of the key bounds, else 0. */
  readonly #directSize: number;
  /** One code per key (a group created from a composite code). */
  #oneCode: Int32Array[] = [];
  readonly #maxGroups: number;
  readonly #onTooMany: () => never;
  readonly #charge: ((bytes: number) => void) | undefined;
  readonly #blockBytes: number;
  /** The dense table went back to the pool ({@link result}: no batch may follow). */
  #released = false;
  /**
   * The dense table holds none of this aggregator's groups: the groups were all made by a
   * flush of the per-code loop into an empty aggregator ({@link flushDirect}), in code order,
   * without writing the table (it stays all -1, so {@link result} has nothing to reset).
   * Whatever reads the table first fills it ({@link #denseTable}).
   */
  #denseLazy = false;

  /**
   * @param charge called with the estimated bytes of each block of {@link GROUP_CHARGE_BLOCK}
   *   new groups before they are created; it throws to refuse the query (memory budget).
   */
  constructor(shard: PreparedShard, keys: readonly GroupKeySpec[], partials: readonly PartialSpec[], argTypes: readonly (ColumnType | null)[], maxGroups: number, onTooMany: () => never, charge?: (bytes: number) => void) {
    this.#coders = keys.map((k) => makeCoder(shard, k));
    this.#aggs = partials.map((p, i) => makeAgg(p, argTypes[i] ?? null, partials));
    const product = this.#coders.reduce((p, c) => p * c.bound, 1);
    this.#dense = product <= DENSE_LIMIT ? takeDense(product) : null;
    this.#numericComposite = product <= EXACT;
    const fusable = (a: Agg): boolean =>
      a.acc.addGroupSums !== undefined || a.acc.addGroupPowers !== undefined || a.acc.addGroupExtreme !== undefined ? a.filter === null && a.inputs.length === 1 : a.acc.addRowCounts !== undefined && (a.filter === null ? a.inputs.length <= 1 : a.inputs.length === 0);
    // An inert partial (a moments pair: filled after the scan) goes in neither loop.
    this.#fused = this.#aggs.filter((a) => a.acc.inert !== true && fusable(a));
    this.#rest = this.#aggs.filter((a) => a.acc.inert !== true && !fusable(a));
    // A CASE input takes the counts only when no partial needs its values: every one over it is
    // fused and a COUNT, SUM or powers (not a MIN / MAX).
    const countable = (a: Agg): boolean => this.#fused.includes(a) && a.filter === null && a.acc.addGroupExtreme === undefined;
    this.#truth = this.#fused.map((a) => {
      const tc = a.inputs.length === 1 && a.filter === null ? truthCaseOf(a.inputs[0]!) : null;
      return tc !== null && this.#aggs.every((o) => o.inputKeys[0] !== a.inputKeys[0] || countable(o)) ? tc : null;
    });
    this.#anyTruth = this.#truth.some((tc) => tc !== null);
    // The fused loop takes what it can (COUNT, SUM, and the powers of a `moments` partial or the
    // MIN / MAX of one summed vector); the rest go their own way.
    this.#fusable = this.#dense !== null && this.#fused.length > 0;
    const direct = product <= DIRECT_LIMIT || (product <= DIRECT_LIMIT_WIDE && product <= 4 * shard.rows);
    this.#directSize = this.#fusable && this.#rest.length === 0 && keys.length > 0 && direct ? product : 0;
    this.#keyCodes = keys.map(() => new Int32Array(Math.min(product, FIRST_SLOTS)));
    this.#maxGroups = maxGroups;
    this.#onTooMany = onTooMany;
    this.#charge = charge;
    this.#blockBytes = GROUP_CHARGE_BLOCK * leafGroupBytes(keys.length, partials, this.#dense !== null);
  }

  /** The batch's input vectors and FILTER truths by key, shared by its partials (emptied for each batch, not allocated). */
  readonly #batchInputs = new Map<string, ValueVec>();
  readonly #batchTruths = new Map<string, Tri>();

  /** {@link #batchInputs}, with both maps emptied of the previous batch's vectors. */
  #batchMaps(): Map<string, ValueVec> {
    if (this.#batchInputs.size > 0) this.#batchInputs.clear();
    if (this.#batchTruths.size > 0) this.#batchTruths.clear();
    return this.#batchInputs;
  }

  /** Adds the selected rows of one batch (`sel` null: every row of the batch). */
  addBatch(ctx: BatchCtx, sel: Int32Array | null, n: number): void {
    const nk = this.#coders.length;
    if (nk === 0) {
      if (this.#groups === 0 && n > 0) this.#newGroup([], 0);
      const batchInputs = this.#batchMaps();
      const batchTruths = this.#batchTruths;
      for (const a of this.#aggs) updateAgg(a, ctx, sel, null, n, this.#groups, batchInputs, batchTruths);
      return;
    }
    if (this.#gidBuf.length < n) {
      if (this.#bufs === null) this.#bufs = takeBufs();
      const b = this.#bufs;
      if (b.gids.length < n) [b.gids, b.codes] = [new Int32Array(Math.max(n, 8192)), new Int32Array(Math.max(n, 8192))];
      this.#gidBuf = b.gids;
      this.#codeBuf = b.codes;
    }
    const gids = this.#gidBuf;
    const codesPerKey: Int32Array[] = [];
    let comp: Int32Array | Float64Array;
    if (nk === 1) {
      this.#coders[0]!.codes(ctx, sel, n, this.#codeBuf);
      codesPerKey.push(this.#codeBuf);
      comp = this.#codeBuf;
    } else {
      // Composite code: c0 + b0 * (c1 + b1 * (c2 ...)), built key by key (Int32 when the key
      // space is dense, in buffers reused between batches).
      let mult = 1;
      if (this.#dense !== null) {
        if (this.#keyBufs.length < nk + 1 || this.#keyBufs[0]!.length < n) {
          const b = (this.#bufs ??= takeBufs());
          if (b.keys.length < nk + 1 || b.keys[0]!.length < n) b.keys = Array.from({ length: nk + 1 }, () => new Int32Array(Math.max(n, 8192)));
          this.#keyBufs = b.keys;
        }
        const c = this.#keyBufs[nk]!;
        if (this.#directSize > 0 && nk === 2) {
          // Two dictionary keys without NULLs: the composite codes in one pass, straight into
          // the per-code loop (per-key codes only if the batch does not take it).
          const a = this.#coders[0]!.dictCodes?.(ctx) ?? null;
          const b = a === null ? null : (this.#coders[1]!.dictCodes?.(ctx) ?? null);
          if (a !== null && b !== null) {
            pairCodes(a, b, this.#coders[0]!.bound, sel, n, c);
            if (this.#fusedBatch(ctx, sel, c, n, this.#batchMaps(), this.#batchTruths, true)) return;
          }
        }
        for (let k = 0; k < nk; k++) {
          const coder = this.#coders[k]!;
          const codes = this.#keyBufs[k]!;
          coder.codes(ctx, sel, n, codes);
          codesPerKey.push(codes);
          if (k === 0) c.set(codes.subarray(0, n));
          else addScaled(c, codes, mult, n);
          mult *= coder.bound;
        }
        comp = c;
      } else {
        const c = new Float64Array(n);
        for (let k = 0; k < nk; k++) {
          const coder = this.#coders[k]!;
          const codes = new Int32Array(n);
          coder.codes(ctx, sel, n, codes);
          codesPerKey.push(codes);
          if (this.#numericComposite) for (let j = 0; j < n; j++) c[j]! += codes[j]! * mult;
          mult *= coder.bound;
        }
        comp = c;
      }
    }
    const batchInputs = this.#batchMaps();
    const batchTruths = this.#batchTruths;
    if (this.#directSize > 0 && comp instanceof Int32Array && this.#fusedBatch(ctx, sel, comp, n, batchInputs, batchTruths, true)) return;
    // Per-code sums held so far become group states before group ids are used.
    this.#flushDirect();
    const dense = this.#denseTable();
    if (dense !== null && comp instanceof Int32Array) {
      // Monomorphic loop (Int32 codes) that stops at a code without a group yet.
      for (let j = denseGids(comp, dense, gids, 0, n); j < n; j = denseGids(comp, dense, gids, j + 1, n)) {
        const g = this.#newGroup(codesPerKey, j);
        dense[comp[j]!] = g;
        gids[j] = g;
      }
    } else if (dense !== null) {
      for (let j = 0; j < n; j++) {
        const c = comp[j]!;
        let g = dense[c]!;
        if (g < 0) {
          g = this.#newGroup(codesPerKey, j);
          dense[c] = g;
        }
        gids[j] = g;
      }
    } else if (nk === 1) {
      // One key of unbounded range: its codes are already dense (0 = NULL, then in order of
      // first appearance), so a growable array maps them to group ids.
      let byCode = this.#byCode;
      for (let j = 0; j < n; j++) {
        const c = comp[j]!;
        if (c >= byCode.length) {
          const grown = new Int32Array(Math.max(c + 1, byCode.length * GROWTH, FIRST_SLOTS)).fill(-1);
          grown.set(byCode);
          byCode = this.#byCode = grown;
        }
        let g = byCode[c]!;
        if (g < 0) {
          g = this.#newGroup(codesPerKey, j);
          byCode[c] = g;
        }
        gids[j] = g;
      }
    } else {
      for (let j = 0; j < n; j++) {
        const key = this.#numericComposite ? comp[j]! : codesPerKey.map((cs) => cs[j]!).join(',');
        let g = this.#map.get(key);
        if (g === undefined) {
          g = this.#newGroup(codesPerKey, j);
          this.#map.set(key, g);
        }
        gids[j] = g;
      }
    }
    if (this.#fusable && this.#fusedBatch(ctx, sel, gids, n, batchInputs, batchTruths, false)) {
      for (const a of this.#rest) updateAgg(a, ctx, sel, gids, n, this.#groups, batchInputs, batchTruths);
      return;
    }
    for (const a of this.#aggs) updateAgg(a, ctx, sel, gids, n, this.#groups, batchInputs, batchTruths);
  }

  /**
   * The fused group loop: when every partial is a COUNT or an int64 SUM without FILTER (over
   * at most two distinct vectors) and the batch's vectors have no NULLs (sums within 2^53),
   * one pass over the rows adds each group's row count and sums into batch arrays, which the
   * accumulators then add per group ({@link Accumulator.addRowCounts} / addGroupSums): one
   * read-modify-write per row and vector instead of one pass per partial. Returns false
   * (nothing done) when the batch does not qualify.
   *
   * `direct`: `idx` holds the rows' composite key codes (not group ids) and the counts and sums
   * go to per-code arrays kept across batches ({@link DirectState}), which become groups and
   * accumulator updates only at {@link flushDirect} (once per shard, or when the batch's shape
   * changes): no group-id pass and no per-batch accumulator calls.
   */
  #fusedBatch(ctx: BatchCtx, sel: Int32Array | null, idx: Int32Array, n: number, batchInputs: Map<string, ValueVec>, batchTruths: Map<string, Tri>, direct: boolean): boolean {
    const groups = direct ? this.#directSize : this.#groups;
    if (!direct && groups > 4 * n + 64) return false;
    // COUNT(*) FILTER (WHERE c): up to two distinct truths (shared with the general path if it
    // takes the batch after all); a FILTER proven TRUE on every row counts the group's rows.
    let p1: Tri | null = null;
    let f1 = '';
    let p2: Tri | null = null;
    let e1: Expr | null = null;
    let e2: Expr | null = null;
    let f2 = '';
    // A CASE condition that is not one column test this batch (it could raise an error on a row
    // the WHERE left out, as the CASE's own evaluation would not) leaves its input to its vector.
    const truth = this.#anyTruth ? this.#truth.map((tc) => (tc !== null && isRowTest(tc.cond, ctx) ? tc : null)) : this.#truth;
    for (let k = 0; k < this.#fused.length; k++) {
      const a = this.#fused[k]!;
      // A CASE input's condition takes a slot like a FILTER (its counts are the CASE's sums).
      const tc = truth[k]!;
      const [cond, condKey] = tc !== null ? [tc.cond, tc.condKey] : [a.filter, a.filterKey];
      if (cond === null || condKey === f1 || condKey === f2 || (tc === null && alwaysTrue(cond, ctx))) continue;
      if (e1 === null) [e1, f1] = [cond, condKey];
      else if (e2 === null) [e2, f2] = [cond, condKey];
      else return false;
    }
    // FILTERs that are range tests of int32 columns are evaluated inside the group loop (no truth vectors).
    const r1 = e1 === null ? null : rangeTest(e1, ctx);
    const r2 = e2 === null ? null : rangeTest(e2, ctx);
    const inline = r1 !== null && (e2 === null || r2 !== null);
    if (!inline) {
      const truth = (e: Expr): Tri => {
        const key = e === e1 ? f1 : f2;
        let pass = batchTruths.get(key);
        if (pass === undefined) {
          pass = evalPredicate(e, ctx);
          batchTruths.set(key, pass);
        }
        return pass;
      };
      if (e1 !== null) p1 = truth(e1);
      if (e2 !== null) p2 = truth(e2);
    }
    const filtered = e1 !== null;
    let v1: NumView | null = null;
    let k1 = '';
    let v2: NumView | null = null;
    let k2 = '';
    let powered: string | null = null;
    let extreme: { readonly key: string; readonly isMin: boolean } | null = null;
    for (let k = 0; k < this.#fused.length; k++) {
      const a = this.#fused[k]!;
      if (a.inputs.length === 0 || truth[k] !== null) continue;
      const key = a.inputKeys[0]!;
      let v = batchInputs.get(key);
      if (v === undefined) {
        v = inputVector(a.inputs[0]!, ctx);
        batchInputs.set(key, v);
      }
      if (v.t === 'const' || v.valid !== null) return false;
      if (a.acc.addGroupSums === undefined && a.acc.addGroupPowers === undefined && a.acc.addGroupExtreme === undefined) continue;
      if (v.t !== 'num' || n * v.maxAbs >= EXACT) return false;
      if (a.acc.addGroupPowers !== undefined) powered = key;
      if (a.acc.addGroupExtreme !== undefined) {
        if (extreme !== null) return false;
        extreme = { key, isMin: a.acc.extremeIsMin === true };
      }
      if (key === k1 || key === k2) continue;
      if (v1 === null) [v1, k1] = [v, key];
      else if (v2 === null) [v2, k2] = [v, key];
      else return false;
    }
    if (filtered && v1 !== null) return false;
    // Powers only of the one summed vector (q2's avg(delay): its sum, count and moments).
    if (powered !== null && (powered !== k1 || v2 !== null)) return false;
    // One MIN or MAX, of the one vector (q12's sum, max and moments of distance).
    if (extreme !== null && (extreme.key !== k1 || v2 !== null)) return false;
    // Where each partial's counts or sums go: 0 the row counts, 1 the first sums / truths, 2 the
    // second, 3 the powers of the first vector, 4 its extreme.
    // 5 / 6: a CASE input's sums from the first / second counts, 7 / 8 its powers (a COUNT of it counts every row: 0).
    const targets = this.#fused.map((a, k) => {
      const tc = truth[k]!;
      if (tc !== null) return a.acc.addGroupPowers !== undefined ? (tc.condKey === f1 ? 7 : 8) : a.acc.addGroupSums !== undefined ? (tc.condKey === f1 ? 5 : 6) : 0;
      return a.acc.addGroupPowers !== undefined ? 3 : a.acc.addGroupExtreme !== undefined ? 4 : a.acc.addGroupSums !== undefined ? (a.inputKeys[0] === k1 ? 1 : 2) : a.filter === null || alwaysTrue(a.filter, ctx) ? 0 : a.filterKey === f1 ? 1 : 2;
    });
    let rows: Float64Array;
    let sums1: Float64Array;
    let sums2: Float64Array;
    let pows: Float64Array = NO_POWS;
    let ext: Float64Array = NO_EXT;
    // Codes of a wide key space are marked for the flush; a plain row count marks them in its own loop.
    let marks: Int32Array | null = null;
    const countOnly = !inline && p1 === null && v1 === null;
    if (direct) {
      const shape = `${filtered ? 'p' : 'v'}${targets.join('')}`;
      let d = this.#direct;
      const m1 = v1?.maxAbs ?? 0;
      const m2 = v2?.maxAbs ?? 0;
      // A new shape, or sums that could pass 2^53: what is held becomes group states first.
      if (d !== null && (d.shape !== shape || (d.rows + n) * Math.max(d.max1, d.max2, m1, m2) >= EXACT)) this.#flushDirect();
      if (d === null) d = this.#direct = takeDirect(groups);
      d.shape = shape;
      d.targets = targets;
      d.rows += n;
      // The truth kernels write the sums array of each truth.
      d.wrote |= inline || p1 !== null ? (e2 !== null ? 3 : 1) : (v1 !== null ? 1 : 0) | (v2 !== null ? 2 : 0);
      d.max1 = Math.max(d.max1, m1);
      d.max2 = Math.max(d.max2, m2);
      ({ counts: rows, sums1, sums2 } = d);
      if (powered !== null) pows = d.pows ??= new Float64Array(3 * d.counts.length);
      if (extreme !== null) ext = extreme.isMin ? (d.mins ??= new Float64Array(d.counts.length).fill(NaN)) : (d.maxs ??= new Float64Array(d.counts.length).fill(-Infinity));
      if (groups > DIRECT_LIMIT) {
        marks = d.marks ??= new Int32Array(Math.ceil(d.counts.length / 32));
        if (!countOnly) markCodes(idx, n, marks);
      }
    } else {
      this.#sizeGroupArrays(groups);
      rows = this.#rows;
      sums1 = this.#sums1;
      sums2 = this.#sums2;
      rows.fill(0, 0, groups);
      if (filtered || v1 !== null) sums1.fill(0, 0, groups);
      if (e2 !== null || v2 !== null) sums2.fill(0, 0, groups);
      if (powered !== null) {
        if (this.#pows.length < 3 * rows.length) this.#pows = new Float64Array(3 * rows.length);
        pows = this.#pows.fill(0, 0, 3 * groups);
      }
      if (extreme !== null) {
        if (this.#ext.length < rows.length) this.#ext = new Float64Array(rows.length);
        ext = this.#ext.fill(extreme.isMin ? NaN : -Infinity, 0, groups);
      }
    }
    if (inline) {
      if (r2 === null) groupRowsInRange1(idx, sel, n, r1, rows, sums1);
      else groupRowsInRange(idx, sel, n, r1, r2, rows, sums1, sums2);
    } else if (p1 !== null) {
      if (p2 === null) groupRowsPassing1(idx, sel, n, p1, rows, sums1);
      else groupRowsPassing(idx, sel, n, p1, p2, rows, sums1, sums2);
    }
    else if (v1 === null) {
      if (marks !== null) groupRowsMarked(idx, n, rows, marks);
      else if (groups <= STRIPE_LIMIT && n >= 4 * groups) {
        if (this.#stripes.length < 4 * groups) this.#stripes = new Float64Array(4 * STRIPE_LIMIT);
        groupRowsStriped(idx, n, rows, this.#stripes, groups);
      } else groupRows(idx, n, rows);
    }
    else if (v2 === null) {
      if (powered !== null && extreme !== null) groupRowsSumPowersExtreme(idx, sel, n, v1.values, rows, sums1, pows, ext, extreme.isMin);
      else if (powered !== null) groupRowsSumPowers(idx, sel, n, v1.values, rows, sums1, pows);
      else if (extreme === null) groupRowsSum(idx, sel, n, v1.values, rows, sums1);
      else if (extreme.isMin) groupRowsSumMin(idx, sel, n, v1.values, rows, sums1, ext);
      else groupRowsSumMax(idx, sel, n, v1.values, rows, sums1, ext);
    } else groupRowsSum2(idx, sel, n, v1.values, v2.values, rows, sums1, sums2);
    if (!direct) this.#addFused(targets, rows, sums1, sums2, pows, ext, groups, n, v1?.maxAbs ?? 0, v2?.maxAbs ?? 0);
    return true;
  }

  /** The accumulators' update from fused per-group counts and sums (`targets` as {@link fusedBatch} sets them). */
  #addFused(targets: readonly number[], rows: Float64Array, sums1: Float64Array, sums2: Float64Array, pows: Float64Array, ext: Float64Array, groups: number, n: number, max1: number, max2: number): void {
    for (let k = 0; k < this.#fused.length; k++) {
      const acc = this.#fused[k]!.acc;
      const t = targets[k]!;
      if (t >= 5) {
        const { a, b } = this.#truth[k]!;
        const counts = t === 5 || t === 7 ? sums1 : sums2;
        if (t <= 6) acc.addGroupSums!(this.#truthValues(rows, counts, groups, 1, a, b), rows, groups, n, Math.max(Math.abs(a), Math.abs(b)));
        else acc.addGroupPowers!(this.#truthValues(rows, counts, groups, 3, a, b), rows, groups);
      } else if (t === 3) acc.addGroupPowers!(pows, rows, groups);
      else if (t === 4) acc.addGroupExtreme!(ext, rows, groups);
      else if (acc.addGroupSums !== undefined) acc.addGroupSums(t === 1 ? sums1 : sums2, rows, groups, n, t === 1 ? max1 : max2);
      else acc.addRowCounts!(t === 0 ? rows : t === 1 ? sums1 : sums2, groups);
    }
  }

  /**
   * Per group, Σ value^(p+1) for p < `width` (1: the sums; 3: Σx², Σx³, Σx⁴ side by side, as
   * {@link groupRowsSumPowers} writes them) of a {@link TruthCase} over `rows[g]` rows of which
   * `counts[g]` took THEN: `b^e · (rows - counts) + a^e · counts`, exact integers (|a|, |b| <=
   * {@link TRUTH_CASE_LIMIT}). The array is reused: read it before the next call.
   */
  #truthValues(rows: Float64Array, counts: Float64Array, groups: number, width: number, a: number, b: number): Float64Array {
    if (this.#truthSums.length < width * groups) this.#truthSums = new Float64Array(Math.max(width * groups, 2 * this.#truthSums.length));
    const out = this.#truthSums;
    for (let g = 0; g < groups; g++) {
      const yes = counts[g]!;
      const no = rows[g]! - yes;
      if (width === 1) out[g] = b * no + a * yes;
      else for (let p = 0; p < 3; p++) out[3 * g + p] = b ** (p + 2) * no + a ** (p + 2) * yes;
    }
    return out;
  }

  /**
   * Turns the per-code counts and sums held by the direct loop into groups (in code order; a
   * code seen for the first time gets a new group) and accumulator updates, and clears them.
   */
  #flushDirect(): void {
    const d = this.#direct;
    if (d === null || d.rows === 0) return;
    const size = this.#directSize;
    // Into an empty aggregator (one flush per shard, the usual case) the codes become groups
    // 0, 1, 2, ... in code order, so group j is code used[j]: no dense table read or written.
    const fresh = this.#groups === 0;
    const dense = fresh ? null : this.#denseTable()!;
    const { counts, sums1, sums2 } = d;
    const used = d.used;
    let m = 0;
    if (size > DIRECT_LIMIT) {
      // A wide key space: only the codes the batches marked (each has rows: counts > 0).
      m = markedCodes(d.marks!, used);
    } else
      for (let c = 0; c < size; c++) {
        used[m] = c;
        m += counts[c] === 0 ? 0 : 1;
      }
    this.#groupsOf(used, m, dense);
    if (fresh) this.#denseLazy = true;
    const groups = this.#groups;
    this.#sizeGroupArrays(groups);
    const rows = this.#rows.fill(0, 0, groups);
    const g1 = this.#sums1.fill(0, 0, groups);
    const g2 = this.#sums2.fill(0, 0, groups);
    moveByCode(used, m, dense, counts, rows);
    // Sums only where a batch wrote them (COUNT alone writes neither: no read of their codes).
    if ((d.wrote & 1) !== 0) moveByCode(used, m, dense, sums1, g1);
    if ((d.wrote & 2) !== 0) moveByCode(used, m, dense, sums2, g2);
    d.wrote = 0;
    // Powers per code become per group the same way (only a shape with a fused `moments` wrote them).
    let pows: Float64Array = NO_POWS;
    if (d.pows !== null && d.targets.includes(3)) {
      if (this.#pows.length < 3 * this.#rows.length) this.#pows = new Float64Array(3 * this.#rows.length);
      pows = this.#pows.fill(0, 0, 3 * groups);
      const byCode = d.pows;
      for (let j = 0; j < m; j++) {
        const c = 3 * used[j]!;
        const g = 3 * (dense === null ? j : dense[used[j]!]!);
        pows[g] = byCode[c]!;
        pows[g + 1] = byCode[c + 1]!;
        pows[g + 2] = byCode[c + 2]!;
        byCode[c] = 0;
        byCode[c + 1] = 0;
        byCode[c + 2] = 0;
      }
    }
    // And the extreme per code, each code's slot set back to where it started.
    let ext: Float64Array = NO_EXT;
    const isMin = this.#fused.some((a, k) => d.targets[k] === 4 && a.acc.extremeIsMin === true);
    const byCode = d.targets.includes(4) ? (isMin ? d.mins : d.maxs) : null;
    if (byCode !== null) {
      if (this.#ext.length < this.#rows.length) this.#ext = new Float64Array(this.#rows.length);
      ext = this.#ext;
      const start = isMin ? NaN : -Infinity;
      for (let j = 0; j < m; j++) {
        const c = used[j]!;
        ext[dense === null ? j : dense[c]!] = byCode[c]!;
        byCode[c] = start;
      }
    }
    this.#addFused(d.targets, rows, g1, g2, pows, ext, groups, d.rows, d.max1, d.max2);
    d.rows = 0;
    d.max1 = 0;
    d.max2 = 0;
  }

  /**
   * Room for `groups` groups in the per-group rows and sums of the fused loop: arrays another
   * scan gave back ({@link GROUP_ARRAYS}: three typed arrays of thousands of groups were most
   * of a flush's own time), else grown by doubling; the powers and extremes are sized again
   * where they are used. Callers fill the slots they read.
   */
  #sizeGroupArrays(groups: number): void {
    if (this.#rows.length >= groups) return;
    const pooled = takeFitting(GROUP_ARRAYS, groups, (a) => a.rows.length);
    if (this.#rows !== NO_EXT) giveGroupArrays({ rows: this.#rows, sums1: this.#sums1, sums2: this.#sums2 });
    if (pooled !== null) ({ rows: this.#rows, sums1: this.#sums1, sums2: this.#sums2 } = pooled);
    else {
      const size = Math.max(groups, this.#rows.length * 2);
      this.#rows = new Float64Array(size);
      this.#sums1 = new Float64Array(size);
      this.#sums2 = new Float64Array(size);
    }
    this.#pows = NO_POWS;
    this.#ext = NO_EXT;
  }

  /** A new group for composite code `c` (c0 + b0 · (c1 + b1 · ...)). */
  #newGroupOf(c: number): number {
    const nk = this.#coders.length;
    if (this.#oneCode.length < nk) this.#oneCode = Array.from({ length: nk }, () => new Int32Array(1));
    let rest = c;
    for (let k = 0; k < nk; k++) {
      const b = this.#coders[k]!.bound;
      const code = rest % b;
      this.#oneCode[k]![0] = code;
      rest = (rest - code) / b;
    }
    return this.#newGroup(this.#oneCode, 0);
  }

  /**
   * Groups for the composite codes `used[0..m)` (ascending) that have none in `dense` yet,
   * in code order. Two keys: the second key's code (c / b0) only goes up along the codes, so
   * it is counted up instead of divided out per group.
   */
  #groupsOf(used: Int32Array, m: number, dense: Int32Array | null): void {
    if (this.#coders.length !== 2) {
      for (let j = 0; j < m; j++) {
        const c = used[j]!;
        if (dense === null) this.#newGroupOf(c);
        else if (dense[c]! < 0) dense[c] = this.#newGroupOf(c);
      }
      return;
    }
    const b0 = this.#coders[0]!.bound;
    let c1 = 0;
    let base = 0;
    for (let j = 0; j < m; j++) {
      const c = used[j]!;
      if (dense !== null && dense[c]! >= 0) continue;
      while (c - base >= b0) {
        c1++;
        base += b0;
      }
      const g = this.#takeGroup();
      this.#keyCodes[0]![g] = c - base;
      this.#keyCodes[1]![g] = c1;
      if (dense !== null) dense[c] = g;
    }
  }

  /** The composite code of group g (c0 + b0 · (c1 + b1 · ...)), from its key codes. */
  #codeOf(g: number): number {
    const kc = this.#keyCodes;
    let c = 0;
    let mult = 1;
    for (let k = 0; k < kc.length; k++) {
      c += kc[k]![g]! * mult;
      mult *= this.#coders[k]!.bound;
    }
    return c;
  }

  /** The dense table with every group's slot set (filled now if the groups were made without it: {@link #denseLazy}). */
  #denseTable(): Int32Array | null {
    const dense = this.#dense;
    if (dense !== null && this.#denseLazy) {
      this.#denseLazy = false;
      for (let g = 0; g < this.#groups; g++) dense[this.#codeOf(g)] = g;
    }
    return dense;
  }

  #newGroup(codesPerKey: readonly Int32Array[], j: number): number {
    const g = this.#takeGroup();
    for (let k = 0; k < codesPerKey.length; k++) this.#keyCodes[k]![g] = codesPerKey[k]![j]!;
    return g;
  }

  /** The next group id, with room for its key codes (checked against the group limit and charged). */
  #takeGroup(): number {
    const g = this.#groups;
    if (g >= this.#maxGroups) this.#onTooMany();
    if (g % GROUP_CHARGE_BLOCK === 0) this.#charge?.(this.#blockBytes);
    if (g >= (this.#keyCodes[0]?.length ?? Infinity)) {
      this.#keyCodes = this.#keyCodes.map((a) => {
        const b = new Int32Array(Math.max(1, a.length * GROWTH));
        b.set(a);
        return b;
      });
    }
    return this.#groups++;
  }

  /**
   * The groups found, column by column: decoded key values and partial states. Ends the
   * aggregation: its buffers go back to pools, so no batch may be added afterwards.
   */
  result(): ColumnarPartial {
    this.#flushDirect();
    if (this.#direct !== null) {
      giveDirect(this.#direct);
      this.#direct = null;
    }
    if (this.#rows !== NO_EXT) {
      giveGroupArrays({ rows: this.#rows, sums1: this.#sums1, sums2: this.#sums2 });
      this.#rows = this.#sums1 = this.#sums2 = NO_EXT;
    }
    if (this.#bufs !== null) {
      giveBufs(this.#bufs);
      this.#bufs = null;
      this.#gidBuf = this.#codeBuf = NO_CODES;
      this.#keyBufs = [];
    }
    const n = this.#groups;
    if (this.#dense !== null && !this.#released) {
      // The dense table goes back to the pool with the slots of this scan's groups -1 again
      // (each group's slot is its composite code), so no scan pays for allocating or filling it.
      this.#released = true;
      const dense = this.#dense;
      // A table the groups were never written into (#denseLazy) is all -1 already.
      if (!this.#denseLazy) for (let g = 0; g < n; g++) dense[this.#codeOf(g)] = -1;
      giveDense(dense);
    }
    const keys = this.#coders.map((c, k): KeyColumn => {
      const codes = this.#keyCodes[k]!;
      const typed = c.numbers?.(codes, n) ?? null;
      if (typed !== null) return typed;
      const out: Scalar[] = new Array(n);
      const dict = c.dict;
      if (dict === undefined) for (let g = 0; g < n; g++) out[g] = c.value(codes[g]!);
      else {
        // A dictionary key: each group's value straight from its code (no call per group).
        for (let g = 0; g < n; g++) out[g] = dict[codes[g]!]!;
        setKeyDict(out, { codes: codes.subarray(0, n), values: dict });
      }
      return out;
    });
    const states = this.#aggs.map((a): StateColumn => {
      const typed = a.acc.stateColumn?.(n) ?? null;
      if (typed !== null) return typed;
      const out: unknown[] = new Array(n);
      for (let g = 0; g < n; g++) out[g] = a.acc.state(g);
      return out;
    });
    return { type: 'columnar', size: n, keys, states };
  }
}

