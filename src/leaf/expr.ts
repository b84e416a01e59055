/**
 * Vectorised evaluation of row expressions over one batch: values and predicates in SQL
 * three-valued logic, into typed arrays with null masks. Each node runs one typed-array
 * loop over the batch on its fast paths (numeric arithmetic, comparisons, IN as a hash set,
 * date_trunc/extract, casts between numbers); string functions and LIKE run once per
 * dictionary entry of a dictionary-encoded column and gather by code. Nodes without a
 * batch kernel (and CASE branches that would fail on rows they do not take) are evaluated
 * row by row with the scalar semantics of src/merge/scalar.ts, which define every node's
 * value; the batch kernels agree with them.
 */
import {
  CanopyError,
  US_PER_DAY,
  addInterval,
  checkedTimestamp,
  affineOf,
  affineSafe,
  compareSql,
  compareStrings,
  evalScalarNode,
  StringTally,
  checkStringLength,
  dayOf,
  extractField,
  formatSpan,
  likeRegex,
  negativeNaN,
  satisfies,
  signOf,
  scalarAt,
  truncMicros,
  unitMicros,
  type Affine,
  type CmpOp,
  type ColumnType,
  type Expr,
  type Scalar,
  type ValueVec,
} from '../merge/index.ts';
import { countRange, intRangeOf, maskedSumRange, refineRange, selectRange, triRange, type IntRange } from './int32.ts';
import { isValid, type BigView, type ColumnView, type NumView, type PreparedShard, type StrView, type Validity } from './shard.ts';
import { INT64_MIN, INT64_MAX } from '../merge/int-range.ts';

/** Tri-state truth per row: 0 false, 1 unknown (NULL), 2 true. AND = min, OR = max, NOT = 2 - x. */
export type Tri = Uint8Array;
const F = 0;
const U = 1;
const T = 2;

export type { ValueVec };

const DAY = US_PER_DAY;

/** Context of one batch of one shard. */
export interface BatchCtx {
  readonly shard: PreparedShard;
  readonly batch: number;
  readonly rows: number;
  /**
   * Work meter of the scan: called with the rows of every operand evaluated inside an
   * AND/OR chain; counts them and throws (CANOPY_ERR_CANCELLED / CANOPY_ERR_DEADLINE) when
   * the scan must stop, so one long batch cannot outlive its query. Default: none.
   */
  readonly meter?: (rows: number) => void;
  /**
   * The rows whose values matter (1), when not all do: the rows the WHERE clause kept (for
   * aggregate arguments and projected columns) or that an AND/OR chain's earlier operands
   * left undecided. An error of a row outside them (the square root of a negative `f` in
   * `WHERE f > 0 AND sqrt(f) > 1`) is not raised, as in DuckDB, which evaluates only the rows
   * that reach an expression; those rows' values are then NULL. Computed only on the
   * row-by-row path (after a kernel refused a value). Default: every row matters.
   */
  readonly liveRows?: () => Uint8Array;
  /**
   * Buffers the kernels may write their results into instead of allocating; valid until
   * the scan moves to its next batch (see {@link Scratch}). Default: fresh arrays.
   */
  readonly scratch?: Scratch | undefined;
}

/**
 * Result buffers reused from batch to batch by one scan: `f64(n)` hands out a distinct
 * Float64Array of length `n` per call (not zeroed: kernels write every slot), `reset()`
 * at the start of each batch makes them all available again. Vectors built on them must
 * not outlive their batch (aggregates read them during the batch; nothing caches them).
 * One scan at a time holds a Scratch ({@link acquireScratch} / {@link releaseScratch}).
 */
export class Scratch {
  readonly #bufs: Float64Array[] = [];
  #next = 0;

  /** Makes every buffer available again (call between batches). */
  reset(): void {
    this.#next = 0;
  }

  /** Views of length n on the buffers (a shard's last batch is shorter than the others). */
  readonly #views: Float64Array[] = [];

  #sel = new Int32Array(0);

  /**
   * The scan's selection buffer of at least `n` row ids (the WHERE's selected rows), kept
   * across batches and scans (a reset does not hand it out again: one per Scratch).
   */
  selection(n: number): Int32Array {
    if (this.#sel.length < n) this.#sel = new Int32Array(Math.max(n, 8192));
    return this.#sel;
  }

  /**
   * A buffer of exactly `n` doubles, distinct from every other handed out since the last
   * reset. A buffer only grows: a shorter batch gets a view of it, so batches of alternating
   * lengths (8,192 then a shard's remainder) allocate nothing.
   */
  f64(n: number): Float64Array {
    const k = this.#next++;
    let b = this.#bufs[k];
    if (b === undefined || b.length < n) {
      b = new Float64Array(Math.max(n, 8192));
      this.#bufs[k] = b;
    }
    let v = this.#views[k];
    if (v === undefined || v.buffer !== b.buffer || v.length !== n) {
      v = b.length === n ? b : b.subarray(0, n);
      this.#views[k] = v;
    }
    return v;
  }
}

const SCRATCH_POOL: Scratch[] = [];
/** Idle Scratch objects kept for the next scans (each holds a few batch-sized buffers). */
const SCRATCH_POOL_MAX = 8;

/** A Scratch for one scan (from the pool when one is idle); give it back with {@link releaseScratch}. */
export function acquireScratch(): Scratch {
  return SCRATCH_POOL.pop() ?? new Scratch();
}

/** Returns a scan's Scratch to the pool once the scan is over (its vectors are no longer read). */
export function releaseScratch(s: Scratch): void {
  s.reset();
  if (SCRATCH_POOL.length < SCRATCH_POOL_MAX) SCRATCH_POOL.push(s);
}

/** A result buffer of `n` doubles: from the batch's scratch when it has one. */
function outF64(ctx: BatchCtx): Float64Array {
  return ctx.scratch === undefined ? new Float64Array(ctx.rows) : ctx.scratch.f64(ctx.rows);
}

/** Type of an expression's values (for materialising scalars); predicates are `bool`. */
export function typeOfExpr(e: Expr, shard: PreparedShard): ColumnType {
  switch (e.kind) {
    case 'col':
      return columnOf(shard, e.name).type;
    case 'lit':
      return e.type === 'null' ? 'int64' : e.type;
    case 'date_trunc':
    case 'interval':
      return 'timestamp';
    case 'arith':
    case 'neg':
    case 'case':
    case 'cast':
    case 'call':
    case 'extract':
    case 'try':
      return e.type;
    default:
      return 'bool';
  }
}

function columnOf(shard: PreparedShard, name: string) {
  const c = shard.columns.get(name);
  if (c === undefined) throw new CanopyError('CANOPY_ERR_UNKNOWN_COLUMN', `shard ${shard.id} has no column '${name}'; known: ${[...shard.columns.keys()].join(', ')}`);
  return c;
}

/**
 * Evaluates any expression over a batch as a value vector (predicates as `bool` vectors:
 * 1 true, 0 false, NULL invalid).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE (int64 overflow, casts, sqrt/ln), CANOPY_ERR_TYPE
 */
export function evalValue(e: Expr, ctx: BatchCtx): ValueVec {
  switch (e.kind) {
    case 'col':
      return columnOf(ctx.shard, e.name).batches[ctx.batch]!;
    case 'lit':
      return { t: 'const', value: e.value };
    case 'try':
      // Row by row: a row's error is that row's NULL.
      return perRow(e, ctx);
    case 'date_trunc':
      return timeKernel(e, evalValue(e.arg, ctx), ctx, (x) => truncMicros(x, e.unit), unitMicros(e.unit) === null);
    case 'interval': {
      const r = timeKernel(e, evalValue(e.arg, ctx), ctx, (x) => addInterval(x, e.months, e.micros), false);
      // Results outside the exact range are refused on the rows that hold a value (NULLs compute 0).
      if (r.t === 'const') checkedTimestamp(Number(r.value ?? 0));
      else if (r.t === 'num') for (let i = 0; i < ctx.rows; i++) if (isValid(r.valid, i)) checkedTimestamp(r.values[i]!);
      return r;
    }
    case 'extract': {
      const f = e.field;
      if (CLOCK_FIELDS.has(f) && e.type === 'int64') {
        const v = evalValue(e.arg, ctx);
        if (v.t === 'num') return extractClock(f, v, outF64(ctx), ctx.rows);
        return timeKernel(e, v, ctx, (x) => extractField(x, f), false);
      }
      return timeKernel(e, evalValue(e.arg, ctx), ctx, (x) => extractField(x, f), f !== 'epoch' && f !== 'julian' && f !== 'epoch_ms' && f !== 'epoch_us' && f !== 'hour' && f !== 'minute' && f !== 'second' && f !== 'millisecond' && f !== 'microsecond');
    }
    case 'arith':
      return arithKernel(e, ctx);
    case 'neg': {
      const v = evalValue(e.arg, ctx);
      const folded = v.t === 'const' ? constantOf(e, v.value) : undefined;
      if (folded !== undefined) return folded;
      if (v.t === 'num' && (e.type === 'float64' || v.maxAbs < EXACT)) {
        const out = outF64(ctx);
        const src = v.values;
        // int64 has no -0: 0 - x gives +0 for x = 0.
        if (e.type === 'float64') for (let i = 0; i < ctx.rows; i++) out[i] = -src[i]!;
        else for (let i = 0; i < ctx.rows; i++) out[i] = 0 - src[i]!;
        return { t: 'num', values: out, valid: v.valid, maxAbs: v.maxAbs, words: null };
      }
      return perRow(e, ctx);
    }
    case 'cast': {
      const v = evalValue(e.arg, ctx);
      // A constant cast is one constant ('1e20'::HUGEINT stays a value past int64), unless it
      // fails: then row by row as before (a CASE arm no row takes must not raise its error).
      const folded = v.t === 'const' ? constantOf(e, v.value) : undefined;
      if (folded !== undefined) return folded;
      // int64 -> float64 / timestamp <-> float64 / DATE -> timestamp (its midnight): the same doubles.
      if (v.t === 'num' && e.bits === undefined && e.unsigned === undefined && (e.type === e.from || (e.type === 'float64' && (e.from === 'int64' || e.from === 'timestamp')) || (e.type === 'timestamp' && e.from === 'date'))) return v;
      // timestamp -> DATE: the day's midnight, vectorised; a day before canopy's first µs is
      // refused on the rows that hold a value and that WHERE keeps (a NULL row's slot may hold anything).
      if (v.t === 'num' && e.type === 'date' && e.from === 'timestamp') {
        const r = timeKernel(e, v, ctx, (x) => Math.floor(x / DAY) * DAY, false);
        const live = r.t === 'num' && r.maxAbs > Number.MAX_SAFE_INTEGER ? (ctx.liveRows?.() ?? null) : undefined;
        if (live !== undefined) for (let i = 0; i < ctx.rows; i++) if (isValid(v.valid, i) && (live === null || live[i] !== 0)) dayOf(v.values[i]!);
        return r;
      }
      // int64 to TINYINT / SMALLINT / INTEGER (Metabase writes CAST(extract(dow FROM ts) AS integer)):
      // the same values when every one is in range; otherwise row by row, which refuses the
      // first out of range as DuckDB does (or gives NULL under TRY_CAST).
      if (v.t === 'num' && e.from === 'int64' && e.type === 'int64' && e.bits !== undefined && e.unsigned === undefined && inSignedRange(v, e.bits, ctx.rows)) return v;
      // A number or instant as text: once per distinct value of the batch.
      if (v.t === 'num' && e.type === 'string') return textByValue(e, v, ctx);
      return orRowByRow(e, ctx, () => unaryByEntry(e, v, ctx)) ?? perRow(e, ctx);
    }
    case 'call':
    case 'like': {
      const args = e.kind === 'like' ? [e.arg, e.pattern] : e.args;
      if (e.kind === 'call' && (e.fn === 'coalesce' || e.fn === 'greatest' || e.fn === 'least')) {
        // Over constants only, one constant (a HUGEINT past int64 stays a value), unless it fails.
        const folded = readsNoColumn(e) ? constantCall(e, ctx) : undefined;
        return folded ?? perRow(e, ctx);
      }
      const vecs = args.map((a) => evalValue(a, ctx));
      const varying = vecs.filter((v) => v.t !== 'const');
      if (varying.length === 0) {
        // Every argument is a constant: the node over their values, each argument evaluated
        // once (evaluating them again per level made nested constant calls, lower(lower(...))
        // or 'a' || 'a' || ..., cost 2^depth).
        const values = new Map<Expr, Scalar>();
        args.forEach((a, i) => values.set(a, (vecs[i] as { value: Scalar }).value));
        return { t: 'const', value: evalScalarNode(e, (c: Expr) => (values.has(c) ? values.get(c)! : (evalValue(c, ctx) as { value: Scalar }).value)) };
      }
      if (varying.length === 1 && e.kind === 'call' && NUMERIC_FNS.has(e.fn) && vecs[0]!.t === 'num' && e.args.length === 1) {
        const fn = e.fn;
        return orRowByRow(e, ctx, () => mathKernel(fn, vecs[0] as NumView, e.type, ctx));
      }
      if (varying.length === 1 && vecs[0]!.t === 'str') return orRowByRow(e, ctx, () => unaryByEntry(e, vecs[0]!, ctx, vecs)) ?? perRow(e, ctx);
      // strftime(ts, '%Y-%m'), dayname, monthname: once per day for the plan node; a format
      // that reads the hour ('%Y-%m-%d %H'), minute or second once per hour, minute or second.
      const span = e.kind === 'call' && e.fn === 'strftime' && vecs[0]!.t === 'num' && vecs[1]?.t === 'const' && typeof vecs[1].value === 'string' ? formatSpan(vecs[1].value) : 0;
      if (span > 0 && e.kind === 'call') return textByDay(e, vecs[0] as NumView, ctx, span);
      if (varying.length === 2 && e.kind === 'call' && varying[0]!.t === 'str' && varying[1]!.t === 'str') return orRowByRow(e, ctx, () => pairByEntry(e, vecs, ctx)) ?? perRow(e, ctx);
      return perRow(e, ctx);
    }
    case 'case':
      return caseKernel(e, ctx);
    default:
      return boolVector(evalPredicate(e, ctx), ctx.rows);
  }
}

/**
 * A one-argument node (cast, unary minus) over a constant as a constant vector, or undefined
 * when computing it raises an error (left to the row-by-row path, which raises it only for
 * rows that reach it).
 */
function constantOf(e: Extract<Expr, { kind: 'cast' | 'neg' }>, value: Scalar): ValueVec | undefined {
  let out: Scalar;
  try {
    out = evalScalarNode(e, () => value);
  } catch {
    return undefined;
  }
  // An int64 result past int64 (a UBIGINT beyond BIGINT) is refused row by row, as before.
  if (e.type === 'int64' && typeof out === 'bigint' && (out > INT64_MAX || out < INT64_MIN)) return undefined;
  return { t: 'const', value: out };
}

const NO_COLUMN = new WeakMap<object, boolean>();

/** Whether an expression reads no column (a tree of constants), memoised per node. */
function readsNoColumn(e: unknown): boolean {
  if (typeof e !== 'object' || e === null) return true;
  const known = NO_COLUMN.get(e);
  if (known !== undefined) return known;
  const r = e as Record<string, unknown>;
  const out = Array.isArray(e) ? e.every(readsNoColumn) : r.kind !== 'col' && Object.values(r).every(readsNoColumn);
  NO_COLUMN.set(e, out);
  return out;
}

/** A call over constants as one constant vector, or undefined when computing it raises an error. */
function constantCall(e: Extract<Expr, { kind: 'call' }>, ctx: BatchCtx): ValueVec | undefined {
  try {
    // Each argument must come back a constant (a kernel may give a vector of equal values).
    const values = new Map<Expr, Scalar>();
    for (const a of e.args) {
      const v = evalValue(a, ctx);
      if (v.t !== 'const') return undefined;
      values.set(a, v.value);
    }
    const out = evalScalarNode(e, (c: Expr) => values.get(c) ?? null);
    if (e.type === 'int64' && typeof out === 'bigint' && (out > INT64_MAX || out < INT64_MIN)) return undefined;
    return { t: 'const', value: out };
  } catch {
    return undefined;
  }
}

const EXACT = 2 ** 53;
const NUMERIC_FNS = new Set(['abs', 'floor', 'ceil', 'sqrt', 'exp', 'round', 'sign', 'trunc']);

/** A validity bitmap from a per-row NULL mask (1 = NULL), or null when nothing is NULL. */
function validityOf(nulls: Uint8Array, n: number): Validity | null {
  let any = false;
  for (let i = 0; i < n && !any; i++) any = nulls[i] === 1;
  if (!any) return null;
  const bitmap = new Uint8Array((n + 7) >> 3);
  for (let i = 0; i < n; i++) if (nulls[i] === 0) bitmap[i >> 3]! |= 1 << (i & 7);
  return { bitmap, offset: 0 };
}

/** Validity of two operands together (NULL where either is). */
function bothValid(a: Validity | null, b: Validity | null, n: number): Validity | null {
  if (a === null) return b;
  if (b === null) return a;
  const nulls = new Uint8Array(n);
  for (let i = 0; i < n; i++) nulls[i] = isValid(a, i) && isValid(b, i) ? 0 : 1;
  return validityOf(nulls, n);
}

/** Tri-state truth as a bool vector. */
function boolVector(t: Tri, n: number): NumView {
  const values = new Float64Array(n);
  const nulls = new Uint8Array(n);
  for (let i = 0; i < n; i++) {
    values[i] = t[i] === T ? 1 : 0;
    nulls[i] = t[i] === U ? 1 : 0;
  }
  return { t: 'num', values, valid: validityOf(nulls, n), maxAbs: 1, words: null };
}

/** Materialises per-row SQL values of one type as a vector (strings get a fresh dictionary). */
export function fromScalars(vals: readonly Scalar[], type: ColumnType, n: number): ColumnView {
  const nulls = new Uint8Array(n);
  for (let i = 0; i < n; i++) nulls[i] = vals[i] === null ? 1 : 0;
  const valid = validityOf(nulls, n);
  if (type === 'string') {
    const strings: string[] = [];
    const index = new Map<string, number>();
    const codes = new Int32Array(n);
    for (let i = 0; i < n; i++) {
      const s = vals[i];
      if (typeof s !== 'string') continue;
      let c = index.get(s);
      if (c === undefined) {
        c = strings.length;
        strings.push(s);
        index.set(s, c);
      }
      codes[i] = c;
    }
    return computedStrings(codes, valid, strings);
  }
  const values = new Float64Array(n);
  let maxAbs = 0;
  let big = false;
  for (let i = 0; i < n; i++) {
    const v = vals[i];
    if (v === null || v === undefined) continue;
    const x = typeof v === 'boolean' ? (v ? 1 : 0) : Number(v);
    if (typeof v === 'bigint' && (v >= EXACT || v <= -EXACT)) big = true;
    values[i] = x;
    const a = Math.abs(x);
    if (a > maxAbs) maxAbs = a;
  }
  if (big) {
    // A BigInt64Array would wrap a value beyond int64 (an int128 literal in CASE/COALESCE) silently.
    for (let i = 0; i < n; i++) {
      const v = vals[i];
      if (typeof v === 'bigint' && (v > INT64_MAX || v < INT64_MIN)) {
        throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `the value ${v} is outside the int64 range: canopy computes per row in int64 (an int128 value stays a constant or a SUM)`);
      }
    }
    const b = new BigInt64Array(n);
    for (let i = 0; i < n; i++) b[i] = typeof vals[i] === 'bigint' ? (vals[i] as bigint) : 0n;
    return { t: 'big', values: b, valid } satisfies BigView;
  }
  return { t: 'num', values, valid, maxAbs, words: null };
}

/**
 * A string vector an expression computed: its codes into `strings` and their sort ranks,
 * ranked only when something reads them (ORDER BY, a comparison, MIN/MAX): grouping by a
 * computed string needs its codes alone, and ranking hundreds of thousands of distinct
 * strings costs more than computing them.
 */
function computedStrings(codes: Int32Array, valid: Validity | null, strings: readonly string[], canon?: readonly string[]): StrView {
  let rank: Int32Array | undefined;
  return {
    t: 'str',
    codes,
    valid,
    strings,
    ...(canon === undefined ? {} : { canon }),
    get rank(): Int32Array {
      return (rank ??= rankOf(strings));
    },
  };
}

function rankOf(strings: readonly string[]): Int32Array {
  const order = strings.map((_, i) => i).sort((a, b) => compareStrings(strings[a]!, strings[b]!));
  const rank = new Int32Array(strings.length);
  let r = 0;
  order.forEach((code, k) => {
    if (k > 0 && strings[order[k - 1]!] !== strings[code]) r = k;
    rank[code] = r;
  });
  return rank;
}

/** The value of row `i` of `e`, evaluated lazily (CASE and COALESCE skip what they do not take). */
function rowValue(e: Expr, ctx: BatchCtx, i: number, cols: Map<string, ValueVec>): Scalar {
  if (e.kind === 'col') {
    let v = cols.get(e.name);
    if (v === undefined) {
      v = evalValue(e, ctx);
      cols.set(e.name, v);
    }
    return scalarAt(v, columnOf(ctx.shard, e.name).type, i);
  }
  return evalScalarNode(e, (c: Expr) => rowValue(c, ctx, i, cols));
}

/**
 * `kernel()`, or when it refuses a value (CANOPY_ERR_OUT_OF_RANGE: a square root of a
 * negative, a string that does not cast) while only some rows matter (`ctx.liveRows`), the
 * row-by-row path, which raises the error only for a row that matters.
 */
function orRowByRow<T>(e: Expr, ctx: BatchCtx, kernel: () => T): T | ColumnView {
  try {
    return kernel();
  } catch (err) {
    if (ctx.liveRows !== undefined && err instanceof CanopyError && err.code === 'CANOPY_ERR_OUT_OF_RANGE') return perRow(e, ctx);
    throw err;
  }
}

/**
 * Whether every non-NULL value of the first `n` of an int64 vector lies in the signed range of
 * `bits` bits ([-2^(bits-1), 2^(bits-1) - 1]), so that DuckDB's cast to TINYINT, SMALLINT or
 * INTEGER keeps them all (src/merge/scalar.ts narrowInteger). A value beyond 2^53 is inexact
 * in `values` but far outside every such range, so it answers false.
 */
function inSignedRange(v: NumView, bits: 8 | 16 | 32, n: number): boolean {
  const max = 2 ** (bits - 1) - 1;
  const min = -max - 1;
  const x = v.values;
  for (let i = 0; i < n; i++) {
    const y = x[i]!;
    if ((y < min || y > max || y !== y) && isValid(v.valid, i)) return false;
  }
  return true;
}

/** The batch in errors: "batch 2 of shard 7". */
const batchName = (ctx: BatchCtx): string => `batch ${ctx.batch} of shard ${ctx.shard.id}`;

/** Row-by-row evaluation with the scalar semantics (the general path); computed strings counted ({@link StringTally}). */
function perRow(e: Expr, ctx: BatchCtx): ColumnView {
  const n = ctx.rows;
  const cols = new Map<string, ValueVec>();
  const vals: Scalar[] = new Array(n);
  const live = ctx.liveRows?.();
  const tally = new StringTally(batchName(ctx));
  for (let i = 0; i < n; i++) vals[i] = live !== undefined && live[i] === 0 ? null : tally.add(rowValue(e, ctx, i, cols));
  return fromScalars(vals, typeOfExpr(e, ctx.shard), n);
}

/**
 * A node over one dictionary-encoded argument (the others constant): evaluated once per
 * dictionary entry, then gathered by code. Null when the argument is not a dictionary.
 */
function unaryByEntry(e: Expr, v: ValueVec, ctx: BatchCtx, vecs?: readonly ValueVec[]): ColumnView | null {
  if (v.t !== 'str') return null;
  const type = typeOfExpr(e, ctx.shard);
  const args = e.kind === 'like' ? [e.arg, e.pattern] : e.kind === 'call' ? e.args : e.kind === 'cast' ? [e.arg] : [];
  const consts = vecs ?? [v];
  const regex = e.kind === 'like' && consts[1]?.t === 'const' && typeof consts[1].value === 'string' ? likeRegex(consts[1].value, e.caseInsensitive, e.escape) : null;
  // The node with the dictionary argument at `s` (the others as they are).
  const at = (s: string | null): Scalar =>
    evalScalarNode(e as Exclude<Expr, { kind: 'col' }>, (c: Expr) => {
      const k = args.indexOf(c);
      const cv = k < 0 ? evalValue(c, ctx) : consts[k]!;
      return cv === v ? s : cv.t === 'const' ? cv.value : null;
    });
  // NULL rows come out NULL below: right for most functions, not for those that skip NULL
  // arguments (concat(s, 'k') is 'k' when s is NULL). Those go row by row.
  if (v.valid !== null && regex === null && at(null) !== null) return null;
  // Per entry once per dictionary (a shard's table serves all its batches, and every query
  // with the same plan node), so the strings computed keep one identity across batches.
  let memo = ENTRY_MEMO.get(e)?.get(v.strings);
  if (memo === undefined) {
    const tally = new StringTally(batchName(ctx));
    memo = { perEntry: v.strings.map((s) => (regex !== null && e.kind === 'like' ? regex.test(s) !== e.negated : tally.add(at(s)))) };
    let byStrings = ENTRY_MEMO.get(e);
    if (byStrings === undefined) ENTRY_MEMO.set(e, (byStrings = new WeakMap()));
    byStrings.set(v.strings, memo);
  }
  const perEntry = memo.perEntry;
  const n = ctx.rows;
  if (type === 'string') {
    const strings = (memo.strings ??= perEntry.map((x) => (typeof x === 'string' ? x : '')));
    const entryNull = (memo.entryNull ??= perEntry.map((x) => x === null));
    // No NULL row and no entry NULL: the vector is valid where the column is.
    if (v.valid === null && !(memo.anyNull ??= entryNull.includes(true))) return computedStrings(v.codes, null, strings);
    const nulls = new Uint8Array(n);
    for (let i = 0; i < n; i++) nulls[i] = !isValid(v.valid, i) || entryNull[v.codes[i]!] === true ? 1 : 0;
    return computedStrings(v.codes, validityOf(nulls, n), strings);
  }
  const byCode = new Float64Array(perEntry.length);
  const nullByCode = new Uint8Array(perEntry.length);
  let big = false;
  perEntry.forEach((x, k) => {
    if (x === null) nullByCode[k] = 1;
    else byCode[k] = typeof x === 'boolean' ? (x ? 1 : 0) : Number(x);
    if (typeof x === 'bigint' && (x >= EXACT || x <= -EXACT)) big = true;
  });
  if (big) return null;
  const values = new Float64Array(n);
  const nulls = new Uint8Array(n);
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    const c = v.codes[i]!;
    if (!isValid(v.valid, i) || nullByCode[c] === 1) nulls[i] = 1;
    else {
      values[i] = byCode[c]!;
      const a = Math.abs(values[i]!);
      if (a > maxAbs) maxAbs = a;
    }
  }
  return { t: 'num', values, valid: validityOf(nulls, n), maxAbs, words: null };
}

/** {@link unaryByEntry}'s values per dictionary entry, by plan node and dictionary (computed once, then shared by every batch). */
const ENTRY_MEMO = new WeakMap<Expr, WeakMap<readonly string[], { readonly perEntry: readonly Scalar[]; strings?: readonly string[]; entryNull?: readonly boolean[]; anyNull?: boolean }>>();

/**
 * {@link pairByEntry}'s codes by pair of entries, for one plan node and two dictionaries:
 * an open-addressing table (linear probing, load <= 1/2) of interleaved (pair key, code)
 * int32s (key -1: empty slot; code -2: the node is NULL, else a code into `strings`), filled
 * as pairs are met and shared by every batch and query over the two dictionaries. `strings`
 * only grows: a code, once given, names the same string for good (the canonical table of
 * {@link StrView.canon}).
 */
interface PairCodes {
  slots: Int32Array;
  used: number;
  readonly strings: CanonStrings;
}

/**
 * An append-only table of distinct strings (the canonical table of {@link StrView.canon}):
 * `code(s)` gives each string its code once; `chars` counts the characters held.
 */
class CanonStrings {
  readonly strings: string[] = [];
  readonly #codes = new Map<string, number>();
  chars = 0;

  code(s: string): number {
    let c = this.#codes.get(s);
    if (c === undefined) {
      c = this.strings.push(s) - 1;
      this.#codes.set(s, c);
      this.chars += s.length;
    }
    return c;
  }

  /** The vector of `codes` (NULL where `nulls` is 1) over this table: a snapshot of it named as the canon while it holds at most 4 x the batch's rows + 64 strings, else the batch's own strings ({@link localCodes}). */
  vector(codes: Int32Array, nulls: Uint8Array | null, n: number): StrView {
    const valid = nulls === null ? null : validityOf(nulls, n);
    // The snapshot costs the table's length: past a few times the batch (a shard of millions of
    // distinct pairs), the batch gets its own codes and strings instead, so a batch costs O(rows).
    if (this.strings.length <= 4 * n + 64) return computedStrings(codes, valid, this.strings.slice(), this.strings);
    return computedStrings(codes, valid, localCodes(codes, nulls, n, this.strings));
  }
}

/** {@link PairCodes} by plan node and the two dictionaries. */
const PAIR_MEMO = new WeakMap<Expr, WeakMap<readonly string[], WeakMap<readonly string[], PairCodes>>>();

/** Most distinct code pairs (NULL included) {@link pairByEntry} keys: pair keys stay small integers. */
const PAIR_KEYS_MAX = 2 ** 30;

/** Fewest slots a {@link PairCodes} table starts with. */
const PAIR_SLOTS_FIRST = 1024;

/** Most pairs a {@link PairCodes} table is first sized for (2^15: 2^16 slots, 512 KiB). */
const PAIR_SLOTS_MAX_FIRST = 2 ** 15;

/**
 * The slot (index of its key in `slots`, 2^b slots) of pair key `key`: Fibonacci hashing
 * (the top b bits of key * 2^32 / phi, which every bit of the key moves), then linear probing
 * to the key or an empty slot.
 */
function pairSlot(slots: Int32Array, key: number): number {
  const mask = slots.length - 2;
  // slots.length = 2^(b + 1): clz32 is 30 - b, the shift 32 - b.
  let h = (Math.imul(key, 0x9e3779b1) >>> (Math.clz32(slots.length) + 2)) << 1;
  while (slots[h] !== key && slots[h] !== -1) h = (h + 2) & mask;
  return h;
}

/** Twice the slots of `t`, every pair moved. */
function growPairs(t: PairCodes): void {
  const old = t.slots;
  const slots = new Int32Array(2 * old.length).fill(-1);
  for (let s = 0; s < old.length; s += 2) {
    const k = old[s]!;
    if (k === -1) continue;
    const h = pairSlot(slots, k);
    slots[h] = k;
    slots[h + 1] = old[s + 1]!;
  }
  t.slots = slots;
}

/**
 * `x || y` or concat(...) over the two varying arguments `k1` < `k2` of `e`, every other
 * argument a constant string or NULL: the value of a pair as one concatenation with the
 * constants around (callFn's semantics: `||` is NULL when an argument is, concat skips NULL
 * arguments; the length checked). Null when `e` is another call or a constant is not a string.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE (the returned function) past MAX_STRING_LENGTH
 */
function pairConcat(e: Extract<Expr, { kind: 'call' }>, vecs: readonly ValueVec[], k1: number, k2: number): ((sa: string | null, sb: string | null) => Scalar) | null {
  const op = e.fn === 'concat_op';
  if (!op && e.fn !== 'concat') return null;
  const parts = ['', '', ''];
  for (let k = 0; k < vecs.length; k++) {
    if (k === k1 || k === k2) continue;
    const v = vecs[k]!;
    if (v.t !== 'const' || (v.value !== null && typeof v.value !== 'string')) return null;
    if (v.value === null) {
      if (op) return () => null;
      continue;
    }
    parts[k < k1 ? 0 : k < k2 ? 1 : 2] += v.value;
  }
  const [pre, mid, suf] = parts as [string, string, string];
  const what = op ? '||' : 'concat';
  return (sa, sb) => {
    if (op && (sa === null || sb === null)) return null;
    const a = sa ?? '';
    const b = sb ?? '';
    checkStringLength(pre.length + a.length + mid.length + b.length + suf.length, what);
    return pre + a + mid + b + suf;
  };
}

/**
 * A string-valued call over two dictionary-encoded arguments (the others constant), such as
 * `origin || '-' || destination`: evaluated once per distinct pair of entries (NULL is a pair
 * member of its own, so functions that skip NULL arguments are right) for good, then gathered
 * by code: a row costs two id reads and a cell read in the plan node's table ({@link PairIds},
 * shared by every shard of the request), or, past its size, one probe of a table shared by
 * the batches of two dictionaries ({@link PairCodes}). The
 * vector's strings are a snapshot of the table's strings, which it names as its
 * {@link StrView.canon}, so a GROUP BY maps each pair's string to its group once per scan,
 * not once per batch (while the table holds at most a few times the batch's rows; past that
 * the batch's codes are its own, {@link localCodes}). Rows outside `liveRows` are NULL and not evaluated, as {@link perRow}.
 * Null (the caller goes row by row) for results that are not strings, or too many possible pairs.
 */
function pairByEntry(e: Extract<Expr, { kind: 'call' }>, vecs: readonly ValueVec[], ctx: BatchCtx): ColumnView | null {
  if (typeOfExpr(e, ctx.shard) !== 'string') return null;
  const k1 = vecs.findIndex((v) => v.t !== 'const');
  const k2 = vecs.findIndex((v, k) => k > k1 && v.t !== 'const');
  const a = vecs[k1] as StrView;
  const b = vecs[k2] as StrView;
  const width = b.strings.length + 1;
  if ((a.strings.length + 1) * width > PAIR_KEYS_MAX) return null;
  const at =
    pairConcat(e, vecs, k1, k2) ??
    ((sa: string | null, sb: string | null): Scalar =>
      evalScalarNode(e, (c: Expr) => {
        const k = e.args.indexOf(c);
        if (k === k1) return sa;
        if (k === k2) return sb;
        const cv = k < 0 ? evalValue(c, ctx) : vecs[k]!;
        return cv.t === 'const' ? cv.value : null;
      }));
  const n = ctx.rows;
  const live = ctx.liveRows?.();
  const tally = new StringTally(batchName(ctx));
  const byIds = pairByIds(e, k1, k2, a, b, at, tally, n, live);
  if (byIds !== null) return byIds;
  let byA = PAIR_MEMO.get(e);
  if (byA === undefined) PAIR_MEMO.set(e, (byA = new WeakMap()));
  let byB = byA.get(a.strings);
  if (byB === undefined) byA.set(a.strings, (byB = new WeakMap()));
  let t = byB.get(b.strings);
  if (t === undefined) {
    // Room for as many pairs as the first batch can meet (at most a few growths later).
    const pairs = Math.min(n, (a.strings.length + 1) * width, PAIR_SLOTS_MAX_FIRST);
    let slots = PAIR_SLOTS_FIRST;
    while (slots < 2 * pairs) slots *= 2;
    byB.set(b.strings, (t = { slots: new Int32Array(2 * slots).fill(-1), used: 0, strings: new CanonStrings() }));
  }
  const table = t;
  // The code of pair key `key` met for the first time at slot h.
  const add = (key: number, h: number): number => {
    const ca = Math.floor(key / width);
    const cb = key - ca * width;
    const r = tally.add(at(ca === 0 ? null : a.strings[ca - 1]!, cb === 0 ? null : b.strings[cb - 1]!));
    const c = typeof r === 'string' ? table.strings.code(r) : -2;
    if (2 * (table.used + 1) > table.slots.length / 2) {
      growPairs(table);
      h = pairSlot(table.slots, key);
    }
    table.slots[h] = key;
    table.slots[h + 1] = c;
    table.used++;
    return c;
  };
  const codes = new Int32Array(n);
  let nulls: Uint8Array | null = null;
  const ac = a.codes;
  const bc = b.codes;
  if (live === undefined && a.valid === null && b.valid === null) {
    // Every row, no NULL argument: the key from the codes, one probe.
    let slots = table.slots;
    for (let i = 0; i < n; i++) {
      const key = (ac[i]! + 1) * width + bc[i]! + 1;
      const h = pairSlot(slots, key);
      let c: number;
      if (slots[h] === key) c = slots[h + 1]!;
      else {
        c = add(key, h);
        slots = table.slots;
      }
      if (c < 0) (nulls ??= new Uint8Array(n))[i] = 1;
      else codes[i] = c;
    }
  } else
    for (let i = 0; i < n; i++) {
      if (live !== undefined && live[i] === 0) {
        (nulls ??= new Uint8Array(n))[i] = 1;
        continue;
      }
      const key = (isValid(a.valid, i) ? ac[i]! + 1 : 0) * width + (isValid(b.valid, i) ? bc[i]! + 1 : 0);
      const h = pairSlot(table.slots, key);
      const c = table.slots[h] === key ? table.slots[h + 1]! : add(key, h);
      if (c < 0) (nulls ??= new Uint8Array(n))[i] = 1;
      else codes[i] = c;
    }
  return table.strings.vector(codes, nulls, n);
}

/**
 * One side of a {@link PairIds}: an id for good per distinct string met (1-based: id 0 is NULL),
 * and each dictionary's codes as ids (made once per dictionary).
 */
interface SideIds {
  readonly ids: Map<string, number>;
  /** `names[id]`: the string of an id (`names[0]` is NULL). */
  readonly names: (string | null)[];
  readonly byDict: WeakMap<readonly string[], Int32Array>;
}

/**
 * {@link pairByEntry}'s codes for one plan node over every pair of dictionaries it meets: the
 * strings of each varying argument get ids ({@link SideIds}), and a pair of ids finds its code
 * in a dense table. Each shard has dictionaries of its own, so keyed by dictionary (as
 * {@link PairCodes} is) every shard computed its thousands of pair strings again; by ids a
 * pair's string is computed once per plan node (a request: every shard it scans) and keeps one
 * identity, which a GROUP BY's hash table has hashed before. `strings` only grows (the
 * canonical table of {@link StrView.canon}).
 */
interface PairIds {
  /** The argument positions of the two sides (a plan node's are fixed; checked anyway). */
  readonly k1: number;
  readonly k2: number;
  readonly a: SideIds;
  readonly b: SideIds;
  /** Rows and row width (powers of two) of `dense`: the pair (x, y) is cell x * capB + y. */
  capA: number;
  capB: number;
  /** By pair of ids: 0 not met yet, 1 the node is NULL, else the code in `strings` + 2. */
  dense: Int32Array;
  /** The pairs' strings (at most {@link PAIR_IDS_MAX_CHARS} characters). */
  readonly strings: CanonStrings;
  /** Past {@link PAIR_IDS_MAX_CELLS} or {@link PAIR_IDS_MAX_CHARS}: the node's pairs go by dictionary ({@link PairCodes}) from then on. */
  full: boolean;
}

/** {@link PairIds} by plan node. */
const PAIR_IDS = new WeakMap<Expr, PairIds>();

/** Most cells of a {@link PairIds} dense table (2^20 int32s: 4 MiB); past it the node keys pairs by dictionary. */
const PAIR_IDS_MAX_CELLS = 2 ** 20;

/** Most characters a {@link PairIds} keeps (its strings live as long as the request's plan). */
const PAIR_IDS_MAX_CHARS = 16 * 1024 * 1024;

/** The ids of dictionary `strings` on side `s` (new strings get new ids). */
function sideIds(s: SideIds, strings: readonly string[]): Int32Array {
  let m = s.byDict.get(strings);
  if (m !== undefined && m.length === strings.length) return m;
  const out = new Int32Array(strings.length);
  for (let c = 0; c < strings.length; c++) {
    const x = strings[c]!;
    let id = s.ids.get(x);
    if (id === undefined) {
      id = s.names.push(x) - 1;
      s.ids.set(x, id);
    }
    out[c] = id;
  }
  s.byDict.set(strings, (m = out));
  return m;
}

/** The smallest power of two >= x (x >= 1). */
function pow2AtLeast(x: number): number {
  return 2 ** Math.ceil(Math.log2(Math.max(1, x)));
}

/**
 * {@link pairByEntry} by {@link PairIds}: a row costs two id reads and one cell read. Null
 * when the node's table is full (then {@link PairCodes} keys the pairs by dictionary).
 * `at` computes a pair's value (counted in `tally`); rows outside `live` are NULL.
 */
function pairByIds(e: Expr, k1: number, k2: number, a: StrView, b: StrView, at: (sa: string | null, sb: string | null) => Scalar, tally: StringTally, n: number, live: Uint8Array | undefined): ColumnView | null {
  let t = PAIR_IDS.get(e);
  if (t === undefined) {
    const side = (): SideIds => ({ ids: new Map(), names: [null], byDict: new WeakMap() });
    PAIR_IDS.set(e, (t = { k1, k2, a: side(), b: side(), capA: 0, capB: 0, dense: new Int32Array(0), strings: new CanonStrings(), full: false }));
  }
  if (t.full || t.k1 !== k1 || t.k2 !== k2) return null;
  const ia = sideIds(t.a, a.strings);
  const ib = sideIds(t.b, b.strings);
  if (t.a.names.length > t.capA || t.b.names.length > t.capB) {
    const capA = pow2AtLeast(t.a.names.length);
    const capB = pow2AtLeast(t.b.names.length);
    if (capA * capB > PAIR_IDS_MAX_CELLS) {
      t.full = true;
      return null;
    }
    const dense = new Int32Array(capA * capB);
    for (let x = 0; x < t.capA; x++) dense.set(t.dense.subarray(x * t.capB, (x + 1) * t.capB), x * capB);
    t.capA = capA;
    t.capB = capB;
    t.dense = dense;
  }
  const table = t;
  const dense = t.dense;
  const capB = t.capB;
  const shift = Math.log2(capB);
  const { names: namesA } = t.a;
  const { names: namesB } = t.b;
  // The cell of a pair met for the first time: its value computed once for the node.
  const add = (cell: number): number => {
    const r = tally.add(at(namesA[cell >>> shift]!, namesB[cell & (capB - 1)]!));
    return (dense[cell] = typeof r === 'string' ? table.strings.code(r) + 2 : 1);
  };
  const codes = new Int32Array(n);
  let nulls: Uint8Array | null = null;
  const ac = a.codes;
  const bc = b.codes;
  if (live === undefined && a.valid === null && b.valid === null) {
    for (let i = 0; i < n; i++) {
      const cell = (ia[ac[i]!]! << shift) | ib[bc[i]!]!;
      let c = dense[cell]!;
      if (c === 0) c = add(cell);
      if (c === 1) (nulls ??= new Uint8Array(n))[i] = 1;
      else codes[i] = c - 2;
    }
  } else
    for (let i = 0; i < n; i++) {
      if (live !== undefined && live[i] === 0) {
        (nulls ??= new Uint8Array(n))[i] = 1;
        continue;
      }
      const cell = ((isValid(a.valid, i) ? ia[ac[i]!]! : 0) << shift) | (isValid(b.valid, i) ? ib[bc[i]!]! : 0);
      let c = dense[cell]!;
      if (c === 0) c = add(cell);
      if (c === 1) (nulls ??= new Uint8Array(n))[i] = 1;
      else codes[i] = c - 2;
    }
  if (table.strings.chars > PAIR_IDS_MAX_CHARS) table.full = true;
  return table.strings.vector(codes, nulls, n);
}

/**
 * Rewrites `codes[i]` (rows not marked in `nulls`), codes into the large table `strings`,
 * as codes into the batch's own strings (by first appearance), which it returns.
 */
function localCodes(codes: Int32Array, nulls: Uint8Array | null, n: number, strings: readonly string[]): string[] {
  const bits = 32 - Math.clz32(Math.max(16, 2 * n) - 1);
  const mask = (1 << bits) - 1;
  const keys = new Int32Array(mask + 1).fill(-1);
  const locals = new Int32Array(mask + 1);
  const out: string[] = [];
  for (let i = 0; i < n; i++) {
    if (nulls !== null && nulls[i] === 1) continue;
    const c = codes[i]!;
    let h = Math.imul(c, 0x9e3779b1) >>> (32 - bits);
    while (keys[h] !== c && keys[h] !== -1) h = (h + 1) & mask;
    if (keys[h] === -1) {
      keys[h] = c;
      locals[h] = out.push(strings[c]!) - 1;
    }
    codes[i] = locals[h]!;
  }
  return out;
}

/**
 * A string-valued node over one number vector `v` (a cast to VARCHAR, or strftime with a
 * constant format; other arguments constant), evaluated once per distinct value of the batch,
 * then gathered by code into a computed string vector. NULL rows are NULL (both nodes give
 * NULL for NULL); rows outside `liveRows` are NULL and not evaluated, as {@link perRow}. -0
 * and 0 are distinct values here ('-0.0' is not '0.0'), as are NaN and '-nan'.
 */
function textByValue(e: Extract<Expr, { kind: 'cast' | 'call' }>, v: NumView, ctx: BatchCtx): ColumnView {
  const n = ctx.rows;
  const live = ctx.liveRows?.();
  const tally = new StringTally(batchName(ctx));
  const arg = e.kind === 'cast' ? e.arg : e.args[0]!;
  const argType = e.kind === 'cast' ? e.from : 'timestamp';
  // The node at row i's value, as the row path reads it (int64 as bigint, bool as boolean).
  const at = (i: number): Scalar => evalScalarNode(e, (c: Expr) => (c === arg ? scalarAt(v, argType, i) : (evalValue(c, ctx) as { value: Scalar }).value));
  const byKey = new Map<number | string, number>();
  const strings: string[] = [];
  const codes = new Int32Array(n);
  const nulls = new Uint8Array(n);
  const vals = v.values;
  for (let i = 0; i < n; i++) {
    if ((live !== undefined && live[i] === 0) || !isValid(v.valid, i)) {
      nulls[i] = 1;
      continue;
    }
    const x = vals[i]!;
    const key = x === 0 && Object.is(x, -0) ? '-0' : negativeNaN(x) ? '-nan' : x;
    let c = byKey.get(key);
    if (c === undefined) {
      const r = tally.add(at(i));
      c = typeof r === 'string' ? strings.push(r) - 1 : -1;
      byKey.set(key, c);
    }
    if (c < 0) nulls[i] = 1;
    else codes[i] = c;
  }
  return computedStrings(codes, validityOf(nulls, n), strings);
}

/**
 * {@link textByDay}'s codes for one plan node: each UTC day's code into `strings` (-1: the node
 * is NULL), filled as days are met and shared by every batch and shard of the request;
 * `strings` only grows (the canonical table of {@link StrView.canon}).
 */
interface DayCodes {
  readonly byDay: Map<number, number>;
  readonly strings: CanonStrings;
  /** The same codes for the {@link DAY_WINDOW} days from `base` (-2: not looked up yet), made at the first valid row the node meets. */
  near: Int32Array | null;
  base: number;
}

/** {@link DayCodes} by plan node. */
const DAY_MEMO = new WeakMap<Expr, DayCodes>();

/** Days (or hours, minutes, seconds) a plan node's direct table of codes spans in {@link textByDay} (days: about 11 years either side of the first row's day). */
const DAY_WINDOW = 8192;

/** Spans a plan node's table may hold in {@link textByDay} before the node is evaluated row by row (bounds its strings' memory). */
const SPAN_MEMO_LIMIT = 65_536;

/**
 * A string-valued call over one timestamp vector `v` that gives the same text for every instant
 * of a UTC day (strftime with a date-only format; other arguments constant), or of each `span`
 * µs (an hour, minute or second: {@link formatSpan}), evaluated once per
 * day (span) for the plan node ({@link DayCodes}; past {@link SPAN_MEMO_LIMIT} spans met, row by
 * row), then gathered by code: a row costs a division and a
 * look-up in the node's table of the days near the first row it met. The vector's strings are a
 * snapshot of the node's strings, named as its {@link StrView.canon} (past 4 x the batch's rows
 * + 64 strings the batch gets its own, {@link localCodes}). NULL rows are NULL; rows outside
 * `liveRows` are NULL and not evaluated, as {@link perRow}.
 */
function textByDay(e: Extract<Expr, { kind: 'cast' | 'call' }>, v: NumView, ctx: BatchCtx, span = US_PER_DAY): ColumnView {
  // A node that has met many spans (seconds of years of data) goes on row by row: its table would only grow.
  if ((DAY_MEMO.get(e)?.byDay.size ?? 0) > SPAN_MEMO_LIMIT) return perRow(e, ctx);
  const n = ctx.rows;
  const live = ctx.liveRows?.();
  const tally = new StringTally(batchName(ctx));
  const arg = e.kind === 'cast' ? e.arg : e.args[0]!;
  const at = (i: number): Scalar => evalScalarNode(e, (c: Expr) => (c === arg ? scalarAt(v, 'timestamp', i) : (evalValue(c, ctx) as { value: Scalar }).value));
  let memo = DAY_MEMO.get(e);
  if (memo === undefined) DAY_MEMO.set(e, (memo = { byDay: new Map(), strings: new CanonStrings(), near: null, base: 0 }));
  const table = memo;
  // The code of `day`, the day of row i (evaluated at row i when the day is new).
  const codeOfDay = (day: number, i: number): number => {
    let c = table.byDay.get(day);
    if (c === undefined) {
      const r = tally.add(at(i));
      c = typeof r === 'string' ? table.strings.code(r) : -1;
      table.byDay.set(day, c);
    }
    return c;
  };
  const codes = new Int32Array(n);
  let nulls: Uint8Array | null = null;
  const vals = v.values;
  let near = table.near;
  let base = table.base;
  // Every row valid and live (the usual case): no per-row test.
  const everyRow = live === undefined && v.valid === null;
  for (let i = 0; i < n; i++) {
    if (!everyRow && ((live !== undefined && live[i] === 0) || !isValid(v.valid, i))) {
      (nulls ??= new Uint8Array(n))[i] = 1;
      continue;
    }
    const day = Math.floor(vals[i]! / span);
    if (near === null) {
      base = table.base = day - DAY_WINDOW / 2;
      near = table.near = new Int32Array(DAY_WINDOW).fill(-2);
    }
    const k = day - base;
    let c: number;
    if (k >= 0 && k < DAY_WINDOW) {
      c = near[k]!;
      if (c === -2) c = near[k] = codeOfDay(day, i);
    } else c = codeOfDay(day, i);
    if (c < 0) (nulls ??= new Uint8Array(n))[i] = 1;
    else codes[i] = c;
  }
  return table.strings.vector(codes, nulls, n);
}

/** A function of one timestamp per row; `calendar`: memoised per day (month lengths, weekdays). */
function timeKernel(e: Expr, v: ValueVec, ctx: BatchCtx, f: (x: number) => number, calendar: boolean): ValueVec {
  const type = typeOfExpr(e, ctx.shard);
  if (v.t === 'const') {
    if (v.value === null) return v;
    const x = f(Number(v.value));
    return { t: 'const', value: type === 'int64' ? (Number.isFinite(x) ? BigInt(x) : null) : x };
  }
  if (v.t !== 'num') throw new CanopyError('CANOPY_ERR_TYPE', `${e.kind} needs a timestamp`);
  const n = ctx.rows;
  const out = new Float64Array(n);
  const src = v.values;
  let nulls: Uint8Array | null = null;
  if (calendar) {
    // Functions of the day only, plus the time of day for interval/trunc: memoise the day's result offset.
    const memo = new Map<number, number>();
    for (let i = 0; i < n; i++) {
      const x = src[i]!;
      const day = Math.floor(x / DAY);
      let r = memo.get(day);
      if (r === undefined) {
        r = f(day * DAY);
        memo.set(day, r);
      }
      out[i] = e.kind === 'extract' ? r : e.kind === 'date_trunc' ? r : f(x);
    }
  } else for (let i = 0; i < n; i++) out[i] = f(src[i]!);
  if (type === 'int64') {
    for (let i = 0; i < n; i++) {
      if (!Number.isFinite(out[i]!) && isValid(v.valid, i)) {
        nulls ??= new Uint8Array(n);
        nulls[i] = 1;
      }
    }
  }
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(out[i]!);
    if (a > maxAbs && a === a) maxAbs = a;
  }
  let valid = v.valid;
  if (nulls !== null) {
    for (let i = 0; i < n; i++) if (!isValid(v.valid, i)) nulls[i] = 1;
    valid = validityOf(nulls, n);
  }
  return { t: 'num', values: out, valid, maxAbs, words: null } satisfies NumView;
}

const US_PER_MINUTE = 60_000_000;
const US_PER_HOUR = 3_600_000_000;
/** extract fields computed from the µs of the day or the day number alone (no calendar). */
const CLOCK_FIELDS: ReadonlySet<string> = new Set(['hour', 'minute', 'second', 'dow', 'isodow']);

/**
 * extract(hour | minute | second | dow | isodow) over a timestamp vector (µs since 1970, UTC)
 * by integer arithmetic in doubles (exact: |µs| < 2^53): day number floor(us / day), then the
 * µs into the day (>= 0, negative instants included). NULL for NULL or non-finite input; the
 * same values as extractField (src/merge/time.ts), one loop per field.
 */
function extractClock(field: string, v: NumView, out: Float64Array, n: number): NumView {
  const src = v.values;
  switch (field) {
    case 'hour':
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        out[i] = Math.floor((x - Math.floor(x / DAY) * DAY) / US_PER_HOUR);
      }
      break;
    case 'minute':
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        out[i] = Math.floor((x - Math.floor(x / DAY) * DAY) / US_PER_MINUTE) % 60;
      }
      break;
    case 'second':
      for (let i = 0; i < n; i++) {
        const x = src[i]!;
        out[i] = Math.floor((x - Math.floor(x / DAY) * DAY) / 1_000_000) % 60;
      }
      break;
    case 'dow':
      for (let i = 0; i < n; i++) out[i] = (((Math.floor(src[i]! / DAY) + 4) % 7) + 7) % 7;
      break;
    default:
      for (let i = 0; i < n; i++) out[i] = ((((Math.floor(src[i]! / DAY) + 3) % 7) + 7) % 7) + 1;
  }
  // Non-finite instants gave NaN: those rows are NULL (int64 has no NaN).
  let bad = false;
  for (let i = 0; i < n && !bad; i++) bad = out[i] !== out[i] && isValid(v.valid, i);
  let valid = v.valid;
  if (bad) {
    const nulls = new Uint8Array(n);
    for (let i = 0; i < n; i++) nulls[i] = out[i] !== out[i] || !isValid(v.valid, i) ? 1 : 0;
    valid = validityOf(nulls, n);
  }
  // Invalid rows may hold anything; zero them so the bound below holds for every slot.
  if (v.valid !== null) for (let i = 0; i < n; i++) if (!isValid(v.valid, i)) out[i] = 0;
  const maxAbs = field === 'hour' ? 23 : field === 'isodow' ? 7 : field === 'dow' ? 6 : 59;
  return { t: 'num', values: out, valid, maxAbs, words: null };
}

/** Numeric function of one double/int vector. */
function mathKernel(fn: string, v: NumView, type: ColumnType, ctx: BatchCtx): ColumnView {
  const n = ctx.rows;
  const src = v.values;
  const out = new Float64Array(n);
  const intIn = type === 'int64';
  switch (fn) {
    case 'abs':
      for (let i = 0; i < n; i++) out[i] = Math.abs(src[i]!);
      break;
    case 'floor':
      for (let i = 0; i < n; i++) out[i] = Math.floor(src[i]!);
      break;
    case 'ceil':
      for (let i = 0; i < n; i++) out[i] = Math.ceil(src[i]!);
      break;
    case 'trunc':
      for (let i = 0; i < n; i++) out[i] = Math.trunc(src[i]!);
      break;
    case 'sign':
      // DuckDB: 0 for -0.0 and NaN (Math.sign gives -0 and NaN).
      for (let i = 0; i < n; i++) out[i] = signOf(src[i]!);
      break;
    case 'exp':
      for (let i = 0; i < n; i++) out[i] = Math.exp(src[i]!);
      break;
    case 'round':
      for (let i = 0; i < n; i++) out[i] = intIn ? src[i]! : Math.sign(src[i]!) * Math.round(Math.abs(src[i]!));
      break;
    case 'sqrt':
      for (let i = 0; i < n; i++) {
        if (src[i]! < 0 && isValid(v.valid, i)) throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', 'cannot take square root of a negative number');
        out[i] = Math.sqrt(src[i]!);
      }
      break;
  }
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    const a = Math.abs(out[i]!);
    if (a > maxAbs) maxAbs = a;
  }
  return { t: 'num', values: out, valid: v.valid, maxAbs, words: null };
}

/** A numeric operand as doubles (constants broadcast), or null when it needs the exact path. */
function asDoubles(v: ValueVec, n: number): { values: Float64Array | number; valid: Validity | null; maxAbs: number } | null {
  if (v.t === 'const') {
    if (v.value === null || typeof v.value === 'string' || typeof v.value === 'boolean') return null;
    const x = Number(v.value);
    if (typeof v.value === 'bigint' && (v.value >= EXACT || v.value <= -EXACT)) return null;
    return { values: x, valid: null, maxAbs: Math.abs(x) };
  }
  if (v.t !== 'num') return null;
  void n;
  return v;
}

/**
 * Arithmetic over two numeric vectors. float64: IEEE doubles (x / 0 = ±inf or NaN, as
 * DuckDB). int64 `+ - *`: doubles while every result is below 2^53 in magnitude (then exact),
 * else the exact per-row path, which refuses int64 overflow. `//` and `%` on int64 take the
 * exact path (NULL on a zero divisor).
 */
function arithKernel(e: Extract<Expr, { kind: 'arith' }>, ctx: BatchCtx): ValueVec {
  const l = evalValue(e.left, ctx);
  const r = evalValue(e.right, ctx);
  const n = ctx.rows;
  if (l.t === 'const' && r.t === 'const') return { t: 'const', value: evalScalarNode(e, (c: Expr) => (c === e.left ? l.value : r.value)) };
  if ((l.t === 'const' && l.value === null) || (r.t === 'const' && r.value === null)) return { t: 'const', value: null };
  const a = asDoubles(l, n);
  const b = asDoubles(r, n);
  // int128 (HUGEINT) as int64: exact in doubles below 2^53, row by row beyond.
  const int = e.type === 'int64' || e.type === 'int128';
  if (a === null || b === null || (int && (e.op === '//' || e.op === '%')) || (e.op === '//')) return perRow(e, ctx);
  if (int && !(e.op === '*' ? a.maxAbs * b.maxAbs < EXACT : a.maxAbs + b.maxAbs < EXACT)) return perRow(e, ctx);
  const out = outF64(ctx);
  const av = a.values;
  const bv = b.values;
  const op = e.op;
  // An int64 product of doubles can be -0 (0 * -5), which int64 does not have: '*0' adds 0.
  const kop = int && op === '*' ? '*0' : op;
  if (typeof av === 'number') arithCV(kop, av, bv as Float64Array, out, n);
  else if (typeof bv === 'number') arithVC(kop, av, bv, out, n);
  else arithVV(kop, av, bv, out, n);
  const valid = bothValid(a.valid, b.valid, n);
  // |result| bounded from the operands' bounds (int64 exactness needs a bound, not the
  // maximum itself); a quotient has no such bound and is measured.
  const maxAbs = op === '*' ? a.maxAbs * b.maxAbs : op === '+' || op === '-' ? a.maxAbs + b.maxAbs : op === '%' ? a.maxAbs : maxAbsOf(out, n);
  return { t: 'num', values: out, valid, maxAbs: maxAbs === maxAbs ? maxAbs : Infinity, words: null };
}

/** Largest |x| over the first `n` values (NaN ignored). */
function maxAbsOf(out: Float64Array, n: number): number {
  let maxAbs = 0;
  for (let i = 0; i < n; i++) {
    const x = out[i]!;
    const m = x < 0 ? -x : x;
    if (m > maxAbs) maxAbs = m;
  }
  return maxAbs;
}

// One small monomorphic loop per operator and operand shape (vector op vector, vector op
// constant, constant op vector): the dispatch is per batch, never per row.

function arithVV(op: string, x: Float64Array, y: Float64Array, out: Float64Array, n: number): void {
  switch (op) {
    case '+':
      for (let i = 0; i < n; i++) out[i] = x[i]! + y[i]!;
      return;
    case '-':
      for (let i = 0; i < n; i++) out[i] = x[i]! - y[i]!;
      return;
    case '*':
      for (let i = 0; i < n; i++) out[i] = x[i]! * y[i]!;
      return;
    case '*0':
      for (let i = 0; i < n; i++) out[i] = x[i]! * y[i]! + 0;
      return;
    case '/':
      for (let i = 0; i < n; i++) out[i] = x[i]! / y[i]!;
      return;
    default:
      for (let i = 0; i < n; i++) out[i] = x[i]! % y[i]!;
  }
}

function arithVC(op: string, x: Float64Array, c: number, out: Float64Array, n: number): void {
  switch (op) {
    case '+':
      for (let i = 0; i < n; i++) out[i] = x[i]! + c;
      return;
    case '-':
      for (let i = 0; i < n; i++) out[i] = x[i]! - c;
      return;
    case '*':
      for (let i = 0; i < n; i++) out[i] = x[i]! * c;
      return;
    case '*0':
      for (let i = 0; i < n; i++) out[i] = x[i]! * c + 0;
      return;
    case '/':
      for (let i = 0; i < n; i++) out[i] = x[i]! / c;
      return;
    default:
      for (let i = 0; i < n; i++) out[i] = x[i]! % c;
  }
}

function arithCV(op: string, c: number, y: Float64Array, out: Float64Array, n: number): void {
  switch (op) {
    case '+':
      for (let i = 0; i < n; i++) out[i] = c + y[i]!;
      return;
    case '-':
      for (let i = 0; i < n; i++) out[i] = c - y[i]!;
      return;
    case '*':
      for (let i = 0; i < n; i++) out[i] = c * y[i]!;
      return;
    case '*0':
      for (let i = 0; i < n; i++) out[i] = c * y[i]! + 0;
      return;
    case '/':
      for (let i = 0; i < n; i++) out[i] = c / y[i]!;
      return;
    default:
      for (let i = 0; i < n; i++) out[i] = c % y[i]!;
  }
}

/**
 * CASE: conditions as truth vectors, branches as whole vectors, picked per row. A branch
 * that fails (overflow, sqrt of a negative) on a row it does not take must not fail the
 * query, so a failing CASE is evaluated again row by row, lazily.
 */
function caseKernel(e: Extract<Expr, { kind: 'case' }>, ctx: BatchCtx): ValueVec {
  const n = ctx.rows;
  try {
    const operand = e.operand === null ? null : evalValue(e.operand, ctx);
    const hits = e.whens.map((w) => (operand === null ? evalPredicate(w.when, ctx) : compare('=', operand, evalValue(w.when, ctx), n)));
    const branches = e.whens.map((w) => evalValue(w.then, ctx));
    const other = e.else === null ? null : evalValue(e.else, ctx);
    const numConst = (b: ValueVec | null): boolean => b === null || (b.t === 'const' && (b.value === null || typeof b.value === 'number' || typeof b.value === 'boolean' || (typeof b.value === 'bigint' && b.value < EXACT && b.value > -EXACT)));
    if (e.type !== 'string' && branches.every(numConst) && numConst(other)) return caseOfConstants(hits, branches, other, outF64(ctx), n);
    const taken = new Int32Array(n).fill(-1);
    for (let k = 0; k < hits.length; k++) {
      const hit = hits[k]!;
      for (let i = 0; i < n; i++) if (taken[i] === -1 && hit[i] === T) taken[i] = k;
    }
    const types = e.whens.map((w) => typeOfExpr(w.then, ctx.shard));
    const elseType = e.else === null ? e.type : typeOfExpr(e.else, ctx.shard);
    if (e.type !== 'string' && [...branches, other].every((b) => b === null || b.t === 'num' || numConst(b))) {
      const out = new Float64Array(n);
      const nulls = new Uint8Array(n);
      let maxAbs = 0;
      for (let i = 0; i < n; i++) {
        const k = taken[i]!;
        const b = k < 0 ? other : branches[k]!;
        if (b === null) {
          nulls[i] = 1;
          continue;
        }
        if (b.t === 'const') {
          if (b.value === null) nulls[i] = 1;
          else out[i] = Number(b.value);
        } else if (b.t === 'num') {
          if (!isValid(b.valid, i)) nulls[i] = 1;
          else out[i] = b.values[i]!;
        }
        const m = Math.abs(out[i]!);
        if (m > maxAbs) maxAbs = m;
      }
      return { t: 'num', values: out, valid: validityOf(nulls, n), maxAbs, words: null };
    }
    const vals: Scalar[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const k = taken[i]!;
      vals[i] = k < 0 ? (other === null ? null : scalarAt(other, elseType, i)) : scalarAt(branches[k]!, types[k]!, i);
    }
    return fromScalars(vals.map((v) => (typeof v === 'bigint' && e.type === 'float64' ? Number(v) : v)), e.type, n);
  } catch (err) {
    if (err instanceof CanopyError && err.code === 'CANOPY_ERR_OUT_OF_RANGE') return perRow(e, ctx);
    throw err;
  }
}

/**
 * CASE whose branches are all numeric constants (or NULL), e.g. `CASE WHEN c THEN 1 ELSE 0 END`:
 * the ELSE value everywhere, then each WHEN's value where it is TRUE, last WHEN first so the
 * first TRUE one wins; one typed-array loop per WHEN.
 */
function caseOfConstants(hits: readonly Tri[], branches: readonly ValueVec[], other: ValueVec | null, out: Float64Array, n: number): NumView {
  const constOf = (b: ValueVec | null): number | null => {
    const x = b === null || b.t !== 'const' ? null : b.value;
    return x === null ? null : Number(x);
  };
  const elseValue = constOf(other);
  const values = branches.map(constOf);
  let maxAbs = elseValue === null ? 0 : Math.abs(elseValue);
  for (const x of values) if (x !== null) maxAbs = Math.max(maxAbs, Math.abs(x));
  const anyNull = elseValue === null || values.some((x) => x === null);
  const nulls = anyNull ? new Uint8Array(n) : null;
  if (hits.length === 1 && nulls === null) {
    caseSelect(hits[0]!, values[0]!, elseValue!, out, n);
    return { t: 'num', values: out, valid: null, maxAbs, words: null };
  }
  out.fill(elseValue ?? 0);
  if (elseValue === null) nulls!.fill(1);
  for (let k = hits.length - 1; k >= 0; k--) {
    const hit = hits[k]!;
    const x = values[k]!;
    if (x === null) {
      for (let i = 0; i < n; i++) if (hit[i] === T) nulls![i] = 1;
    } else {
      for (let i = 0; i < n; i++) if (hit[i] === T) out[i] = x;
      if (nulls !== null) for (let i = 0; i < n; i++) if (hit[i] === T) nulls[i] = 0;
    }
  }
  return { t: 'num', values: out, valid: nulls === null ? null : validityOf(nulls, n), maxAbs, words: null };
}

/** out[i] = hit[i] is TRUE ? a : b. */
function caseSelect(hit: Tri, a: number, b: number, out: Float64Array, n: number): void {
  if (Number.isInteger(a) && Number.isInteger(b) && Math.abs(a) <= 2 ** 51 && Math.abs(b) <= 2 ** 51 && !Object.is(a, -0) && !Object.is(b, -0)) {
    // Small integers: b + (a - b) · [TRUE] is exact and takes no branch on the data (hit >> 1
    // is 1 for TRUE only).
    const d = a - b;
    for (let i = 0; i < n; i++) out[i] = b + d * (hit[i]! >> 1);
    return;
  }
  for (let i = 0; i < n; i++) out[i] = hit[i] === T ? a : b;
}

export { scalarAt };

/**
 * Evaluates a predicate over a batch into tri-state truth values (length `ctx.rows`).
 * @throws CanopyError for expressions that are not predicates.
 */
export function evalPredicate(e: Expr, ctx: BatchCtx): Tri {
  const n = ctx.rows;
  switch (e.kind) {
    case 'and':
    case 'or': {
      const steps = chainSteps(e, ctx);
      for (;;) {
        const r = steps.next();
        if (r.done === true) return r.value;
      }
    }
    case 'not': {
      const out = evalPredicate(e.arg, ctx);
      for (let i = 0; i < n; i++) out[i] = T - out[i]!;
      return out;
    }
    case 'isnull': {
      const yes = e.negated ? F : T;
      const no = e.negated ? T : F;
      // A comparison of NULL-free operands is never UNKNOWN: IS [NOT] NULL without evaluating it.
      if (neverNull(e.arg, ctx)) return new Uint8Array(n).fill(no);
      if (PREDICATE_KINDS.has(e.arg.kind)) {
        // A condition's NULLs are its UNKNOWN rows: read them off its truth values.
        const tri = evalPredicate(e.arg, ctx);
        for (let i = 0; i < n; i++) tri[i] = tri[i] === U ? yes : no;
        return tri;
      }
      const v = evalValue(e.arg, ctx);
      const out = new Uint8Array(n);
      if (v.t === 'const') return out.fill(v.value === null ? yes : no);
      for (let i = 0; i < n; i++) out[i] = isValid(v.valid, i) ? no : yes;
      return out;
    }
    case 'between': {
      const ge = compare('>=', evalValue(e.arg, ctx), evalValue(e.lo, ctx), n);
      const le = compare('<=', evalValue(e.arg, ctx), evalValue(e.hi, ctx), n);
      for (let i = 0; i < n; i++) {
        const x = ge[i]! < le[i]! ? ge[i]! : le[i]!;
        ge[i] = e.negated ? T - x : x;
      }
      return ge;
    }
    case 'in':
      return evalIn(evalValue(e.arg, ctx), e.values, e.negated, n);
    case 'like': {
      // A dictionary column against a literal pattern: the pattern runs once per dictionary
      // entry (cached per shard string table), then each row reads its code's truth.
      const v = e.pattern.kind === 'lit' && typeof e.pattern.value === 'string' ? evalValue(e.arg, ctx) : null;
      if (v === null || v.t !== 'str') return boolTruths(evalValue(e, ctx), n, e.kind);
      const pass = likePass(e, v);
      const out = new Uint8Array(n);
      const codes = v.codes;
      const valid = v.valid;
      if (valid === null) for (let i = 0; i < n; i++) out[i] = pass[codes[i]!]! << 1;
      else for (let i = 0; i < n; i++) out[i] = isValid(valid, i) ? pass[codes[i]!]! << 1 : U;
      return out;
    }
    case 'cmp': {
      const folded = affineCmp(e, ctx);
      if (folded !== null) return evalPredicate(folded, ctx);
      return compare(e.op, evalValue(e.left, ctx), evalValue(e.right, ctx), n);
    }
    case 'lit': {
      const v = e.value;
      return new Uint8Array(n).fill(v === null ? U : v === true ? T : F);
    }
    case 'distinct': {
      const l = evalValue(e.left, ctx);
      const r = evalValue(e.right, ctx);
      const eq = compare('=', l, r, n);
      const ln = nullMask(l, n);
      const rn = nullMask(r, n);
      const yes = e.negated ? T : F;
      for (let i = 0; i < n; i++) {
        const same = ln[i] === 1 || rn[i] === 1 ? ln[i] === rn[i] : eq[i] === T;
        eq[i] = same ? yes : T - yes;
      }
      return eq;
    }
    default:
      // Any value of type bool (LIKE, CASE, a cast, starts_with, a bool column of a projection).
      return boolTruths(evalValue(e, ctx), n, e.kind);
  }
}

/** Is condition `e` proven TRUE on every row of the batch: `x IS NOT NULL` of a NULL-free `x` ({@link neverNull}). */
export function alwaysTrue(e: Expr, ctx: BatchCtx): boolean {
  return e.kind === 'isnull' && e.negated && neverNull(e.arg, ctx);
}

/**
 * Is `e` proven non-NULL on every row of the batch: a column without NULLs in it, a non-NULL
 * literal, or a comparison of two such (comparisons of non-NULL values are TRUE or FALSE).
 */
function neverNull(e: Expr, ctx: BatchCtx): boolean {
  if (e.kind === 'lit') return e.value !== null;
  if (e.kind === 'col') {
    const v = evalValue(e, ctx);
    return v.t !== 'const' && v.valid === null;
  }
  return e.kind === 'cmp' && neverNull(e.left, ctx) && neverNull(e.right, ctx);
}

/** The truth values of a bool vector `v` of `n` rows (NULL: UNKNOWN). @throws CanopyError CANOPY_ERR_TYPE for a non-bool vector */
function boolTruths(v: ValueVec, n: number, kind: string): Tri {
  const out = new Uint8Array(n);
  if (v.t === 'const') return out.fill(v.value === null ? U : v.value === true ? T : F);
  if (v.t !== 'num') throw new CanopyError('CANOPY_ERR_TYPE', `a ${kind} expression is not a condition`);
  for (let i = 0; i < n; i++) out[i] = !isValid(v.valid, i) ? U : v.values[i] !== 0 ? T : F;
  return out;
}

/**
 * 1 per dictionary entry of `v` that `[NOT] [I]LIKE` literal pattern `e` accepts, else 0
 * (`e.pattern` a string literal), cached per shard string table like {@link codePass}.
 */
function likePass(e: Extract<Expr, { kind: 'like' }>, v: StrView): Uint8Array {
  const hit = CODE_PASS.get(e);
  if (hit !== undefined && hit.strings === v.strings) return hit.pass;
  const re = likeRegex((e.pattern as { readonly value: string }).value, e.caseInsensitive, e.escape);
  return codePass(e, v, (s) => re.test(s) !== e.negated);
}

/**
 * Writes the indexes of the TRUE rows of `tri[0..n)` into `sel` (length >= n) and returns
 * their count. Branch-free (TRUE = 2, so `tri >> 1` is 1 for TRUE only): as fast at 50%
 * selectivity as at 1%.
 */
export function selectTrue(tri: Tri, n: number, sel: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    sel[m] = i;
    m += tri[i]! >> 1;
  }
  return m;
}

/**
 * The rows of a batch where predicate `e` is TRUE, into `sel` (length >= ctx.rows); returns
 * their count. A comparison of a numeric vector without NULLs with a constant (the common
 * WHERE) is fused into one branch-free loop that writes the selection directly, with no
 * truth vector in between; anything else goes through {@link evalPredicate}.
 * @throws CanopyError as evalPredicate
 */
export function selectWhere(e: Expr, ctx: BatchCtx, sel: Int32Array): number {
  const n = ctx.rows;
  if (e.kind === 'in' && !e.negated) {
    // `col IN (integers)` over a column without NULLs: the lookup table writes the selection
    // directly (a listed NULL only turns misses into UNKNOWN, which is not selected either).
    const v = evalValue(e.arg, ctx);
    if (v.t === 'num' && v.valid === null) {
      const set = numberSetOf(e.values);
      if (set.table !== null && typeOfExpr(e.arg, ctx.shard) === 'int64' && v.maxAbs < EXACT) return selectInTableInt(v.values, set.table, set.min, n, sel);
      if (set.table !== null) return selectInTable(v.values, set.table, set.min, set.hasNaN, n, sel);
    }
    return selectTrue(evalPredicate(e, ctx), n, sel);
  }
  if (e.kind !== 'cmp') return selectTrue(evalPredicate(e, ctx), n, sel);
  const folded = affineCmp(e, ctx);
  if (folded !== null) return selectWhere(folded, ctx, sel);
  const l = evalValue(e.left, ctx);
  const r = evalValue(e.right, ctx);
  const [v, c, op] = l.t === 'const' ? [r, l, FLIP[e.op]] : [l, r, e.op];
  if (v.t === 'num' && v.valid === null && c.t === 'const' && (typeof c.value === 'number' || (typeof c.value === 'bigint' && c.value < 2n ** 53n && c.value > -(2n ** 53n)))) {
    const x = Number(c.value);
    const r = v.i32 != null ? intRangeOf(op, x) : null;
    if (r !== null) return selectRange(v.i32!, r, n, sel);
    if (x === x) return selectCmp(op, v.values, x, n, sel);
  }
  return selectTrue(compare(e.op, l, r, n), n, sel);
}

/** Rows where `vals[i] op c` (c not NaN; NaN rows are greater than c, as in compareNum), without a branch on the data. */
function selectCmp(op: CmpOp, vals: Float64Array, c: number, n: number, sel: Int32Array): number {
  let m = 0;
  switch (op) {
    case '=':
      for (let i = 0; i < n; i++) {
        sel[m] = i;
        m += vals[i] === c ? 1 : 0;
      }
      break;
    case '!=':
      for (let i = 0; i < n; i++) {
        sel[m] = i;
        m += vals[i] !== c ? 1 : 0;
      }
      break;
    case '<':
      for (let i = 0; i < n; i++) {
        sel[m] = i;
        m += vals[i]! < c ? 1 : 0;
      }
      break;
    case '<=':
      for (let i = 0; i < n; i++) {
        sel[m] = i;
        m += vals[i]! <= c ? 1 : 0;
      }
      break;
    case '>':
      for (let i = 0; i < n; i++) {
        sel[m] = i;
        m += vals[i]! <= c ? 0 : 1;
      }
      break;
    case '>=':
      for (let i = 0; i < n; i++) {
        sel[m] = i;
        m += vals[i]! < c ? 0 : 1;
      }
      break;
  }
  return m;
}

/**
 * One operand of an AND as a test of single rows that needs no truth vector: a numeric
 * column without NULLs against a constant, an int64 column without NULLs IN an integer
 * list (lookup table), or a dictionary column without NULLs against strings (a pass table
 * per code). Each is TRUE or FALSE on every row (never UNKNOWN: no NULLs, and a NULL in an
 * IN list only turns misses UNKNOWN, which is not selected either).
 */
type RowTest =
  | { readonly t: 'cmp'; readonly vals: Float64Array; readonly op: CmpOp; readonly c: number }
  | { readonly t: 'range'; readonly vals: Int32Array; readonly r: IntRange }
  | { readonly t: 'table'; readonly vals: Float64Array; readonly table: Uint8Array; readonly min: number }
  | { readonly t: 'code'; readonly codes: Int32Array; readonly pass: Uint8Array };

/** Pass tables per code of each string test, per shard string table (the same for every batch of a shard). */
const CODE_PASS = new WeakMap<Expr, { strings: readonly string[]; pass: Uint8Array }>();

function codePass(e: Expr, v: StrView, test: (s: string) => boolean): Uint8Array {
  const hit = CODE_PASS.get(e);
  if (hit !== undefined && hit.strings === v.strings) return hit.pass;
  const pass = new Uint8Array(v.strings.length);
  for (let k = 0; k < v.strings.length; k++) pass[k] = test(v.strings[k]!) ? 1 : 0;
  CODE_PASS.set(e, { strings: v.strings, pass });
  return pass;
}

/** The operand as a {@link RowTest} over this batch, or null when it needs the general path. */
function rowTestOf(e: Expr, ctx: BatchCtx): RowTest | null {
  if (e.kind === 'cmp') {
    const folded = affineCmp(e, ctx);
    if (folded !== null) return rowTestOf(folded, ctx);
    const leftCol = e.left.kind === 'col';
    const [colE, litE, op] = leftCol ? [e.left, e.right, e.op] : [e.right, e.left, FLIP[e.op]];
    if (colE.kind !== 'col' || litE.kind !== 'lit') return null;
    const v = evalValue(colE, ctx);
    const c = litE.value;
    if (v.t === 'num' && v.valid === null && (typeof c === 'number' || (typeof c === 'bigint' && c < 2n ** 53n && c > -(2n ** 53n)))) {
      const x = Number(c);
      const r = v.i32 != null ? intRangeOf(op, x) : null;
      if (r !== null) return { t: 'range', vals: v.i32!, r };
      return x === x ? { t: 'cmp', vals: v.values, op, c: x } : null;
    }
    if (v.t === 'str' && v.valid === null && typeof c === 'string') return { t: 'code', codes: v.codes, pass: codePass(e, v, (s) => compareSql(op, s, c) === true) };
    return null;
  }
  if (e.kind === 'like' && e.arg.kind === 'col' && e.pattern.kind === 'lit' && typeof e.pattern.value === 'string') {
    const v = evalValue(e.arg, ctx);
    return v.t === 'str' && v.valid === null ? { t: 'code', codes: v.codes, pass: likePass(e, v) } : null;
  }
  if (e.kind === 'in' && !e.negated && e.arg.kind === 'col') {
    const v = evalValue(e.arg, ctx);
    if (v.t === 'const' || v.valid !== null) return null;
    if (v.t === 'num') {
      const set = numberSetOf(e.values);
      return set.table !== null && typeOfExpr(e.arg, ctx.shard) === 'int64' && v.maxAbs < EXACT ? { t: 'table', vals: v.values, table: set.table, min: set.min } : null;
    }
    if (v.t === 'str') {
      const listed = e.values;
      return { t: 'code', codes: v.codes, pass: codePass(e, v, (s) => listed.includes(s)) };
    }
  }
  return null;
}

/**
 * The rows of a batch where every operand of an AND is TRUE, into `sel`, or -1 when an
 * operand needs the general path (then nothing is written). The first operand selects from
 * every row, each later one narrows the selection in place, so it reads only the rows still
 * selected (a selection vector, as vectorised engines run conjunctions). Reports each
 * operand's rows to the meter, as {@link chainSteps} does.
 */
export function selectAnd(e: Extract<Expr, { kind: 'and' }>, ctx: BatchCtx, sel: Int32Array): number {
  const tests: RowTest[] = [];
  for (const a of e.args) {
    const t = rowTestOf(a, ctx);
    if (t === null) return -1;
    tests.push(t);
  }
  const n = ctx.rows;
  let m = n;
  for (let k = 0; k < tests.length; k++) {
    ctx.meter?.(n);
    const t = tests[k]!;
    if (k === 0) m = t.t === 'range' ? selectRange(t.vals, t.r, n, sel) : t.t === 'cmp' ? selectCmp(t.op, t.vals, t.c, n, sel) : t.t === 'table' ? selectInTableInt(t.vals, t.table, t.min, n, sel) : selectCodes(t.codes, t.pass, n, sel);
    else m = t.t === 'range' ? refineRange(t.vals, t.r, sel, m) : t.t === 'cmp' ? refineCmp(t.op, t.vals, t.c, sel, m) : t.t === 'table' ? refineTable(t.vals, t.table, t.min, sel, m) : refineCodes(t.codes, t.pass, sel, m);
  }
  return m;
}

/**
 * Whether `e` over this batch is one column test ({@link RowTest}: a comparison, IN list or
 * LIKE of a NULL-free column with constants), which evaluates without raising an error.
 */
export function isRowTest(e: Expr, ctx: BatchCtx): boolean {
  return rowTestOf(e, ctx) !== null;
}

/**
 * `e` over this batch as a branch-free range test of an int32 column view without NULLs
 * (src/leaf/int32.ts: TRUE or FALSE on every row, never UNKNOWN), or null when it is not
 * one (a comparison of such a column with a constant).
 */
export function rangeTest(e: Expr, ctx: BatchCtx): { readonly vals: Int32Array; readonly r: IntRange } | null {
  const t = rowTestOf(e, ctx);
  return t !== null && t.t === 'range' ? t : null;
}

/**
 * The number of rows of a batch where `e` is TRUE when it is one column test
 * ({@link RowTest}), counted without writing a selection (COUNT(*) with no other aggregate
 * needs no row ids), or -1 when it is not that shape.
 */
export function countWhere(e: Expr, ctx: BatchCtx): number {
  const t = rowTestOf(e, ctx);
  if (t === null) return -1;
  const n = ctx.rows;
  let m = 0;
  if (t.t === 'code') {
    const { codes, pass } = t;
    for (let i = 0; i < n; i++) m += pass[codes[i]!]!;
    return m;
  }
  if (t.t === 'range') return countRange(t.vals, t.r, n);
  if (t.t === 'table') {
    const { vals, table, min } = t;
    const span = table.length;
    for (let i = 0; i < n; i++) {
      const k = vals[i]! - min;
      m += k >= 0 && k < span ? table[k]! : 0;
    }
    return m;
  }
  const { vals, c } = t;
  switch (t.op) {
    case '=':
      for (let i = 0; i < n; i++) m += vals[i] === c ? 1 : 0;
      break;
    case '!=':
      for (let i = 0; i < n; i++) m += vals[i] !== c ? 1 : 0;
      break;
    case '<':
      for (let i = 0; i < n; i++) m += vals[i]! < c ? 1 : 0;
      break;
    case '<=':
      for (let i = 0; i < n; i++) m += vals[i]! <= c ? 1 : 0;
      break;
    // NaN rows are greater than c (as in selectCmp).
    case '>':
      for (let i = 0; i < n; i++) m += vals[i]! <= c ? 0 : 1;
      break;
    case '>=':
      for (let i = 0; i < n; i++) m += vals[i]! < c ? 0 : 1;
      break;
  }
  return m;
}

/**
 * The rows of a whole batch where `e` is TRUE and the sum of `x` over them, in one pass with
 * no selection written, when `e` is a comparison of a NULL-free numeric column with a
 * constant ({@link RowTest}); null when it is not that shape. `x` must have no NULLs and
 * `n · max|x| < 2^53` and hold integers (the sum is then exact; branch-free, `p · x`). For
 * SUM(x) FILTER (WHERE col op k) over int64.
 */
export function maskedSum(e: Expr, ctx: BatchCtx, xv: NumView): { readonly rows: number; readonly sum: number } | null {
  const t = rowTestOf(e, ctx);
  const x = xv.values;
  if (t !== null && t.t === 'range') return maskedSumRange(t.vals, t.r, x, xv.i32 != null && ctx.rows * xv.maxAbs < 2 ** 31 ? xv.i32 : null, ctx.rows);
  if (t === null || t.t !== 'cmp') return null;
  const { vals, c } = t;
  const n = ctx.rows;
  let rows = 0;
  let sum = 0;
  // NaN rows are greater than c (as in selectCmp): `>` and `>=` are the negations of `<=` and `<`.
  switch (t.op) {
    case '=':
      for (let i = 0; i < n; i++) {
        const p = vals[i] === c ? 1 : 0;
        rows += p;
        sum += p * x[i]!;
      }
      break;
    case '!=':
      for (let i = 0; i < n; i++) {
        const p = vals[i] !== c ? 1 : 0;
        rows += p;
        sum += p * x[i]!;
      }
      break;
    case '<':
      for (let i = 0; i < n; i++) {
        const p = vals[i]! < c ? 1 : 0;
        rows += p;
        sum += p * x[i]!;
      }
      break;
    case '<=':
      for (let i = 0; i < n; i++) {
        const p = vals[i]! <= c ? 1 : 0;
        rows += p;
        sum += p * x[i]!;
      }
      break;
    case '>':
      for (let i = 0; i < n; i++) {
        const p = !(vals[i]! <= c) ? 1 : 0;
        rows += p;
        sum += p * x[i]!;
      }
      break;
    case '>=':
      for (let i = 0; i < n; i++) {
        const p = !(vals[i]! < c) ? 1 : 0;
        rows += p;
        sum += p * x[i]!;
      }
      break;
  }
  return { rows, sum };
}

function selectCodes(codes: Int32Array, pass: Uint8Array, n: number, sel: Int32Array): number {
  let m = 0;
  for (let i = 0; i < n; i++) {
    sel[m] = i;
    m += pass[codes[i]!]!;
  }
  return m;
}

function refineCodes(codes: Int32Array, pass: Uint8Array, sel: Int32Array, n: number): number {
  let m = 0;
  for (let j = 0; j < n; j++) {
    const i = sel[j]!;
    sel[m] = i;
    m += pass[codes[i]!]!;
  }
  return m;
}

function refineTable(vals: Float64Array, table: Uint8Array, min: number, sel: Int32Array, n: number): number {
  const span = table.length;
  let m = 0;
  for (let j = 0; j < n; j++) {
    const i = sel[j]!;
    const k = vals[i]! - min;
    sel[m] = i;
    m += k >= 0 && k < span ? table[k]! : 0;
  }
  return m;
}

/** {@link selectCmp} over the rows `sel[0..n)` already selected, in place. */
function refineCmp(op: CmpOp, vals: Float64Array, c: number, sel: Int32Array, n: number): number {
  let m = 0;
  switch (op) {
    case '=':
      for (let j = 0; j < n; j++) {
        const i = sel[j]!;
        sel[m] = i;
        m += vals[i] === c ? 1 : 0;
      }
      break;
    case '!=':
      for (let j = 0; j < n; j++) {
        const i = sel[j]!;
        sel[m] = i;
        m += vals[i] !== c ? 1 : 0;
      }
      break;
    case '<':
      for (let j = 0; j < n; j++) {
        const i = sel[j]!;
        sel[m] = i;
        m += vals[i]! < c ? 1 : 0;
      }
      break;
    case '<=':
      for (let j = 0; j < n; j++) {
        const i = sel[j]!;
        sel[m] = i;
        m += vals[i]! <= c ? 1 : 0;
      }
      break;
    case '>':
      for (let j = 0; j < n; j++) {
        const i = sel[j]!;
        sel[m] = i;
        m += vals[i]! <= c ? 0 : 1;
      }
      break;
    case '>=':
      for (let j = 0; j < n; j++) {
        const i = sel[j]!;
        sel[m] = i;
        m += vals[i]! < c ? 0 : 1;
      }
      break;
  }
  return m;
}

/** Expression kinds evalPredicate computes as truth values directly. */
const PREDICATE_KINDS: ReadonlySet<string> = new Set(['and', 'or', 'not', 'isnull', 'between', 'in', 'cmp', 'distinct']);

/** 1 where the vector is NULL. */
function nullMask(v: ValueVec, n: number): Uint8Array {
  const out = new Uint8Array(n);
  if (v.t === 'const') return out.fill(v.value === null ? 1 : 0);
  if (v.valid !== null) for (let i = 0; i < n; i++) out[i] = isValid(v.valid, i) ? 0 : 1;
  return out;
}

/** Operands between which an AND/OR chain checks whether every row is already decided. */
const DECIDED_EVERY = 16;

/**
 * An AND/OR chain over a batch, one operand per step (the scan drives the top-level chain
 * and yields to the event loop between steps when a batch runs long). Stops early once
 * every row is decided (all FALSE for AND, all TRUE for OR); reports each operand's rows to
 * the meter, which may throw to stop the scan.
 */
export function* chainSteps(e: Extract<Expr, { kind: 'and' | 'or' }>, ctx: BatchCtx): Generator<void, Tri, void> {
  const n = ctx.rows;
  const meter = ctx.meter;
  const out = evalPredicate(e.args[0]!, ctx);
  const decided = e.kind === 'and' ? F : T;
  // Later operands matter only for rows the earlier ones left undecided (read when needed,
  // while that operand is evaluated).
  const outer = ctx.liveRows;
  const undecided: BatchCtx = {
    ...ctx,
    liveRows: () => {
      const live = new Uint8Array(n);
      const o = outer?.();
      for (let i = 0; i < n; i++) live[i] = out[i] !== decided && (o === undefined || o[i] === 1) ? 1 : 0;
      return live;
    },
  };
  for (let a = 1; a < e.args.length; a++) {
    meter?.(n);
    if (a % DECIDED_EVERY === 0) {
      let all = true;
      for (let i = 0; i < n && all; i++) all = out[i] === decided;
      if (all) return out;
    }
    yield;
    const r = evalPredicate(e.args[a]!, undecided);
    if (e.kind === 'and') for (let i = 0; i < n; i++) out[i] = out[i]! < r[i]! ? out[i]! : r[i]!;
    else for (let i = 0; i < n; i++) out[i] = out[i]! > r[i]! ? out[i]! : r[i]!;
  }
  meter?.(n);
  return out;
}

/**
 * `a·x + b op k` over an int64 column x, an affine expression (src/merge/aggregates/affine.ts)
 * against an integer literal, as the comparison of x itself with a constant: for a > 0,
 * `a·x > k` ⇔ `x > floor(k / a)`, `a·x >= k` ⇔ `x >= ceil(k / a)` (and `<`, `<=` alike),
 * `a·x = k` ⇔ `x = k / a` (when a does not divide k, `x = NaN`: FALSE for every int64 value);
 * a < 0 flips the comparison. Exact when no row's value (nor any intermediate one) can leave
 * int64, which the batch's max |x| proves ({@link affineSafe}); other batches (and NULL rows,
 * which compare UNKNOWN either way) keep the general path, which refuses an overflow. One
 * pass over the column instead of one per operator (ClickHouse and DuckDB fold such
 * comparisons in their optimisers).
 */
function affineCmp(e: Extract<Expr, { kind: 'cmp' }>, ctx: BatchCtx): Expr | null {
  let fold = AFFINE_CMPS.get(e);
  if (fold === undefined) {
    fold = affineCmpOf(e);
    AFFINE_CMPS.set(e, fold);
  }
  if (fold === null) return null;
  const v = ctx.shard.columns.get(fold.f.col.name)?.batches[ctx.batch];
  return v !== undefined && v.t === 'num' && affineSafe(fold.f, v.maxAbs) ? fold.cmp : null;
}

/** The folded form of each affine comparison (null: none), per plan expression. */
const AFFINE_CMPS = new WeakMap<Expr, { readonly f: Affine; readonly cmp: Expr } | null>();

function affineCmpOf(e: Extract<Expr, { kind: 'cmp' }>): { readonly f: Affine; readonly cmp: Expr } | null {
  const litOf = (x: Expr): bigint | null => (x.kind === 'lit' && x.type === 'int64' && typeof x.value === 'bigint' ? x.value : null);
  let op = e.op;
  let side = e.left;
  let k = litOf(e.right);
  if (k === null) {
    k = litOf(e.left);
    side = e.right;
    op = FLIP[op];
  }
  if (k === null) return null;
  const f = affineOf(side);
  if (f === null || f.a === 0n) return null;
  // a·x op (k - b), then divided by |a| (the comparison flips when a < 0).
  let a = f.a;
  let t = k - f.b;
  if (a < 0n) {
    a = -a;
    t = -t;
    op = FLIP[op];
  }
  const floorDiv = (p: bigint, q: bigint): bigint => (p >= 0n ? p / q : -((-p + q - 1n) / q));
  const fl = floorDiv(t, a);
  const exact = fl * a === t;
  const ce = exact ? fl : fl + 1n;
  let c: Scalar;
  switch (op) {
    case '>':
    case '<=':
      c = fl;
      break;
    case '>=':
    case '<':
      c = ce;
      break;
    default:
      // = and !=: x = t / a when a divides t; else no integer x (NaN equals no int64 value).
      c = exact ? fl : NaN;
  }
  const right: Expr = typeof c === 'bigint' ? ({ kind: 'lit', value: c, type: 'int64' } as Expr) : ({ kind: 'lit', value: c, type: 'float64' } as Expr);
  return { f, cmp: { kind: 'cmp', op, left: f.col, right } as Expr };
}

const FLIP: Record<CmpOp, CmpOp> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function triOf(b: boolean | null): number {
  return b === null ? U : b ? T : F;
}

function compare(op: CmpOp, l: ValueVec, r: ValueVec, n: number): Tri {
  // A bool vector (a condition's value, a bool column) holds 1/0: compare TRUE/FALSE as 1/0.
  if (l.t === 'const' && typeof l.value === 'boolean') l = { t: 'const', value: l.value ? 1 : 0 };
  if (r.t === 'const' && typeof r.value === 'boolean') r = { t: 'const', value: r.value ? 1 : 0 };
  if (l.t === 'const' && r.t !== 'const') return compare(FLIP[op], r, l, n);
  const out = new Uint8Array(n);
  if (r.t === 'const') {
    const c = r.value;
    if (l.t === 'const') return out.fill(triOf(compareSql(op, l.value, c)));
    if (c === null) return out.fill(U);
    if (l.t === 'num' && (typeof c === 'number' || (typeof c === 'bigint' && c < 2n ** 53n && c > -(2n ** 53n)))) {
      compareNum(op, l, Number(c), out, n);
      return out;
    }
    if (l.t === 'str' && typeof c === 'string') {
      // Evaluate once per dictionary entry, then gather by code.
      const perCode = new Uint8Array(l.strings.length);
      for (let k = 0; k < l.strings.length; k++) perCode[k] = triOf(compareSql(op, l.strings[k]!, c));
      for (let i = 0; i < n; i++) out[i] = isValid(l.valid, i) ? perCode[l.codes[i]!]! : U;
      return out;
    }
  }
  // General path (column vs column, bigint columns, mixed types): per-row scalars.
  for (let i = 0; i < n; i++) out[i] = triOf(compareSql(op, scalarAt(l, 'float64', i), scalarAt(r, 'float64', i)));
  return out;
}

function compareNum(op: CmpOp, l: NumView, c: number, out: Uint8Array, n: number): void {
  const v = l.values;
  if (c !== c) {
    // Against NaN (the greatest double, equal to itself): only the NaN rows compare equal.
    const eq = satisfies(op, 0) ? T : F;
    const lt = satisfies(op, -1) ? T : F;
    for (let i = 0; i < n; i++) out[i] = v[i] !== v[i] ? eq : lt;
    if (l.valid !== null) for (let i = 0; i < n; i++) if (!isValid(l.valid, i)) out[i] = U;
    return;
  }
  const r = l.i32 != null ? intRangeOf(op, c) : null;
  if (r !== null) {
    triRange(l.i32!, r, n, out);
    if (l.valid !== null) for (let i = 0; i < n; i++) if (!isValid(l.valid, i)) out[i] = U;
    return;
  }
  switch (op) {
    case '=':
      for (let i = 0; i < n; i++) out[i] = v[i] === c ? T : F;
      break;
    case '!=':
      for (let i = 0; i < n; i++) out[i] = v[i] !== c ? T : F;
      break;
    case '<':
      for (let i = 0; i < n; i++) out[i] = v[i]! < c ? T : F;
      break;
    case '<=':
      for (let i = 0; i < n; i++) out[i] = v[i]! <= c ? T : F;
      break;
    // NaN rows are greater than c: IEEE says false to every comparison with NaN, so `=`, `<`,
    // `<=` (false) and `!=` (true) are already right for them, and `>` / `>=` are written as
    // the negation of `<=` / `<` (true for NaN). No second pass over the batch.
    case '>':
      for (let i = 0; i < n; i++) out[i] = v[i]! <= c ? F : T;
      break;
    case '>=':
      for (let i = 0; i < n; i++) out[i] = v[i]! < c ? F : T;
      break;
  }
  if (l.valid !== null) for (let i = 0; i < n; i++) if (!isValid(l.valid, i)) out[i] = U;
}

function evalIn(v: ValueVec, list: readonly Scalar[], negated: boolean, n: number): Tri {
  const out = new Uint8Array(n);
  // Bool vectors hold 1/0 (see compare): TRUE/FALSE in the list as 1/0.
  const values = v.t === 'num' && list.some((x) => typeof x === 'boolean') ? list.map((x) => (typeof x === 'boolean' ? (x ? 1 : 0) : x)) : list;
  const hasNull = values.some((x) => x === null);
  // x IN (...): TRUE if equal to one; else NULL if the list holds NULL; else FALSE.
  const miss = hasNull ? U : negated ? T : F;
  const hit = negated ? F : T;
  if (v.t === 'const') {
    const x = v.value;
    if (x === null) return out.fill(U);
    return out.fill(values.some((y) => compareSql('=', x, y) === true) ? hit : miss);
  }
  if (v.t === 'str') {
    const set = new Set(values.filter((x): x is string => typeof x === 'string'));
    const perCode = new Uint8Array(v.strings.length);
    for (let k = 0; k < v.strings.length; k++) perCode[k] = set.has(v.strings[k]!) ? hit : miss;
    for (let i = 0; i < n; i++) out[i] = isValid(v.valid, i) ? perCode[v.codes[i]!]! : U;
    return out;
  }
  if (v.t === 'num') {
    const set = numberSetOf(values);
    if (set.table !== null) inTable(v.values, set.table, set.min, set.hasNaN, hit, miss, out, n);
    else inSorted(v.values, set.sorted, set.hasNaN, hit, miss, out, n);
    if (v.valid !== null) for (let i = 0; i < n; i++) if (!isValid(v.valid, i)) out[i] = U;
    return out;
  }
  for (let i = 0; i < n; i++) {
    const x = scalarAt(v, 'int64', i);
    out[i] = x === null ? U : values.some((y) => compareSql('=', x, y) === true) ? hit : miss;
  }
  return out;
}

/** Integer IN lists spanning at most this many values use a lookup table. */
const DENSE_SET_SPAN = 1 << 20;

/** The lookup structure of each IN list, built once per plan (keyed by the plan's list), not per batch. */
const numberSets = new WeakMap<readonly Scalar[], NumberSet>();

/** A set of numbers for IN: a lookup table over the range of an integer list, else sorted values. */
interface NumberSet {
  /** 1 at `x - min` for each integer member (null when the list is not a small integer range). */
  readonly table: Uint8Array | null;
  readonly min: number;
  /** The members other than NaN, ascending. */
  readonly sorted: Float64Array;
  /** NaN is listed (NaN = NaN in canopy's value order). */
  readonly hasNaN: boolean;
}

/**
 * Membership in a set of numbers without boxing a double per row (a JavaScript Set of numbers
 * allocates for every lookup of a non-Smi double): a lookup table over the range of an integer
 * list (spanning at most {@link DENSE_SET_SPAN}), else a binary search over the sorted values.
 * NaN is a member when listed; -0.0 = 0.0.
 */
function numberSet(values: readonly Scalar[]): NumberSet {
  const nums = values.filter((x) => x !== null && typeof x !== 'string' && typeof x !== 'boolean').map((x) => Number(x));
  const hasNaN = nums.some((x) => x !== x);
  const sorted = Float64Array.from(nums.filter((x) => x === x)).sort();
  if (sorted.length === 0) return { table: null, min: 0, sorted, hasNaN };
  const min = sorted[0]!;
  const span = sorted[sorted.length - 1]! - min + 1;
  if (sorted.every((x) => Number.isInteger(x)) && span <= DENSE_SET_SPAN) {
    const table = new Uint8Array(span);
    for (const x of sorted) table[x - min] = 1;
    return { table, min, sorted, hasNaN };
  }
  return { table: null, min, sorted, hasNaN };
}

/** The IN list's lookup structure, built on first use and kept with the plan's list. */
function numberSetOf(values: readonly Scalar[]): NumberSet {
  let set = numberSets.get(values);
  if (set === undefined) {
    set = numberSet(values);
    numberSets.set(values, set);
  }
  return set;
}

/**
 * {@link selectInTable} for int64 values below 2^53 (exact integers as doubles): `x - min` is
 * then an exact integer, so the table index needs only the range check.
 */
function selectInTableInt(vals: Float64Array, table: Uint8Array, min: number, n: number, sel: Int32Array): number {
  const span = table.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const k = vals[i]! - min;
    sel[m] = i;
    m += k >= 0 && k < span ? table[k]! : 0;
  }
  return m;
}

/** Rows of `vals[0..n)` in the lookup table (see {@link inTable}), written to `sel`; their count. */
function selectInTable(vals: Float64Array, table: Uint8Array, min: number, hasNaN: boolean, n: number, sel: Int32Array): number {
  const span = table.length;
  let m = 0;
  for (let i = 0; i < n; i++) {
    const x = vals[i]!;
    const k = x - min;
    sel[m] = i;
    if (k >= 0 && k < span) m += (k | 0) === k && k + min === x && table[k] === 1 ? 1 : 0;
    else m += hasNaN && x !== x ? 1 : 0;
  }
  return m;
}

/** IN over a lookup table: one typed-array loop (a non-integer or out-of-range x misses). */
function inTable(vals: Float64Array, table: Uint8Array, min: number, hasNaN: boolean, hit: number, miss: number, out: Tri, n: number): void {
  const span = table.length;
  const nan = hasNaN ? hit : miss;
  for (let i = 0; i < n; i++) {
    const x = vals[i]!;
    const k = x - min;
    // k >= 0 && k < span is false for NaN; `k | 0` truncates, so equality means an integer in
    // range, and `k + min === x` that the subtraction was exact (5e-324 - -1 rounds to 1).
    if (k >= 0 && k < span) out[i] = (k | 0) === k && k + min === x && table[k] === 1 ? hit : miss;
    else out[i] = x !== x ? nan : miss;
  }
}

/** IN over sorted members: a binary search per row. */
function inSorted(vals: Float64Array, sorted: Float64Array, hasNaN: boolean, hit: number, miss: number, out: Tri, n: number): void {
  const last = sorted.length - 1;
  for (let i = 0; i < n; i++) {
    const x = vals[i]!;
    if (x !== x) {
      out[i] = hasNaN ? hit : miss;
      continue;
    }
    let lo = 0;
    let hi = last;
    let found = false;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      const m = sorted[mid]!;
      if (m < x) lo = mid + 1;
      else if (m > x) hi = mid - 1;
      else {
        found = true;
        break;
      }
    }
    out[i] = found ? hit : miss;
  }
}
