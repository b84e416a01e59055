/**
 * Hash/dense grouping and aggregate kernels over typed arrays.
 *
 * Group keys become small integer codes per key (dictionary codes for strings, dense
 * offsets for bounded integers and date_trunc buckets, a hash map otherwise), combined
 * into a group id by a dense table when the key space is small, else by a Map. Aggregate
 * states live in growable typed arrays indexed by group id; no per-row allocation.
 */
import {
  BucketKeys,
  HLL_EXACT_LIMIT,
  HLL_REGISTERS,
  QuantileAccumulator,
  canonicalDistinct,
  fsumAdd,
  fsumEmpty,
  hashDistinct,
  hashDouble,
  hashInt,
  hashString,
  hllFromRegisters,
  hllFromSet,
  registerAdd,
  MONDAY_SHIFT_US,
  unitMicros,
  type ColumnarPartial,
  type ColumnType,
  type DistinctValue,
  type Expr,
  type FloatSum,
  type GroupKeySpec,
  type PartialSpec,
  type Scalar,
} from '../merge/index.ts';
import { evalValue, scalarAt, type BatchCtx, type ValueVec } from './expr.ts';
import { kCount, kExtreme, kExtremeCode, kSum } from './kernels.ts';
import { isValid, type PreparedShard, type Validity } from './shard.ts';

const DENSE_LIMIT = 1 << 22;

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
  for (const p of partials) b += p.kind === 'hll' || p.kind === 'ddsketch' ? 256 : 24;
  return b;
}
const EXACT = 2 ** 53;

/** Codes of one group key: `bound` is an exclusive upper bound on codes (Infinity if unknown). */
interface KeyCoder {
  readonly bound: number;
  /** Writes the code of each selected row into `out[j]`. */
  codes(ctx: BatchCtx, sel: Int32Array | null, n: number, out: Int32Array): void;
  value(code: number): Scalar;
}

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
    };
  }
  const dense = denseRange(shard, e);
  if (dense !== null) {
    const { base, step, shift, size } = dense;
    // For date_trunc keys the code comes straight from the timestamp: floor((t + shift) / step).
    const source = e.kind === 'date_trunc' ? e.arg : e;
    const isTrunc = e.kind === 'date_trunc';
    return {
      bound: size + 1,
      codes(ctx, sel, n, out) {
        const v = evalValue(source, ctx);
        if (v.t === 'num') denseCodes(v.values, v.valid, sel, n, out, base, step, shift, isTrunc);
        else genericCodes(v, type, n, sel, out, (s) => (s === null ? 0 : isTrunc ? Math.floor((Number(s) + shift) / step) - base + 1 : Number(s) - base + 1));
      },
      value(code) {
        if (code === 0) return null;
        const x = isTrunc ? (base + code - 1) * step - shift : base + code - 1;
        return type === 'int64' ? BigInt(x) : x;
      },
    };
  }
  // Unbounded: a hash map from value to code.
  const byValue = new Map<unknown, number>();
  const values: Scalar[] = [null];
  const codeOf = (s: Scalar): number => {
    if (s === null) return 0;
    let c = byValue.get(s);
    if (c === undefined) {
      c = values.length;
      values.push(s);
      byValue.set(s, c);
    }
    return c;
  };
  return {
    bound: Infinity,
    codes(ctx, sel, n, out) {
      const v = evalValue(e, ctx);
      if (v.t === 'num' && type !== 'int64' && type !== 'bool') {
        const vals = v.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          out[j] = isValid(v.valid, i) ? codeOf(Object.is(vals[i], -0) ? 0 : vals[i]!) : 0;
        }
      } else {
        genericCodes(v, type, n, sel, out, codeOf);
      }
    },
    value: (code) => values[code] ?? null,
  };
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

/** Accumulator of one partial over group ids. */
interface Agg {
  /**
   * Updates states for the selected rows (`sel[0..n)`, or rows 0..n-1 when `sel` is null)
   * with group ids `gids[0..n)` (all group 0 when `gids` is null).
   */
  update(ctx: BatchCtx, sel: Int32Array | null, gids: Int32Array | null, n: number, groups: number): void;
  /** The partial state of group `g` (as the matching StateKind expects). */
  state(g: number): unknown;
}

function grow(a: Float64Array, n: number): Float64Array {
  if (a.length >= n) return a;
  const b = new Float64Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

function growU8(a: Uint8Array, n: number): Uint8Array {
  if (a.length >= n) return a;
  const b = new Uint8Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

function rowAt(sel: Int32Array | null, j: number): number {
  return sel === null ? j : sel[j]!;
}

function makeAgg(spec: PartialSpec, argType: ColumnType | null, partials: readonly PartialSpec[]): Agg {
  if (spec.kind === 'count_star' || spec.kind === 'count') {
    let cnt: Float64Array = new Float64Array(16);
    const arg: Expr | null = spec.kind === 'count' && spec.arg !== null ? { kind: 'col', name: spec.arg } : null;
    return {
      update(ctx, sel, gids, n, groups) {
        cnt = grow(cnt, groups);
        const v = arg === null ? null : evalValue(arg, ctx);
        kCount(cnt, sel, gids, n, v === null || v.t === 'const' ? null : v.valid);
      },
      state: (g) => cnt[g] ?? 0,
    };
  }
  // The pairs are filled per shard after the scan, from the other states (withShardMoments).
  if (spec.kind === 'moments') return rowSquaresAgg(spec, partials);
  const arg: Expr = { kind: 'col', name: spec.arg ?? '' };
  if (spec.kind === 'hll') return distinctAgg(arg, argType ?? 'string');
  if (spec.kind === 'ddsketch') return quantileAgg(arg, argType ?? 'float64');
  if (spec.kind === 'sum' && argType === 'int64') return sumIntAgg(arg);
  if (spec.kind === 'sum') return sumFloatAgg(arg);
  return minMaxAgg(spec.kind === 'min', arg, argType ?? 'float64');
}

/**
 * The row-level part of a `moments` partial: for each of the spec's `squares` (a `sum`
 * partial's column), Σ v², Σ v³ and Σ v⁴ over the group's non-NULL rows, at state slots
 * pairs.length + 3k .. 3k + 2 (the pairs' slots stay 0 for withShardMoments).
 * Without `squares`: no state (null).
 */
function rowSquaresAgg(spec: PartialSpec, partials: readonly PartialSpec[]): Agg {
  const base = spec.pairs?.length ?? 0;
  const cols: Expr[] = (spec.squares ?? []).map((p) => ({ kind: 'col', name: partials[p]?.arg ?? '' }));
  const width = base + 3 * cols.length;
  const sums: (Float64Array | undefined)[] = [];
  return {
    update(ctx, sel, gids, n) {
      cols.forEach((col, k) => {
        const v = evalValue(col, ctx);
        if (v.t !== 'num' && v.t !== 'big') throw new Error('sum of squares over a non-numeric column');
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (!isValid(v.valid, i)) continue;
          const g = gids === null ? 0 : gids[j]!;
          let s = sums[g];
          if (s === undefined) {
            s = new Float64Array(width);
            sums[g] = s;
          }
          const x = Number(v.values[i]!);
          const x2 = x * x;
          const at = base + 3 * k;
          s[at]! += x2;
          s[at + 1]! += x2 * x;
          s[at + 2]! += x2 * x2;
        }
      });
    },
    state: (g) => sums[g] ?? null,
  };
}

/**
 * Exact int64 SUM: doubles accumulate while no partial sum can pass 2^53 (checked per
 * batch from the batch's max |value|), then fold into bigints; batches that could
 * overflow even alone, and batches of values beyond 2^53, add bigints per row.
 */
function sumIntAgg(arg: Expr): Agg {
  let acc: Float64Array = new Float64Array(16);
  let has: Uint8Array = new Uint8Array(16);
  const folded: bigint[] = [];
  let rowsSinceFold = 0;
  let maxAbsSinceFold = 0;
  const fold = (groups: number): void => {
    for (let g = 0; g < groups; g++) {
      if (acc[g] !== 0) {
        folded[g] = (folded[g] ?? 0n) + BigInt(acc[g]!);
        acc[g] = 0;
      }
    }
    rowsSinceFold = 0;
    maxAbsSinceFold = 0;
  };
  return {
    update(ctx, sel, gids, n, groups) {
      acc = grow(acc, groups);
      has = growU8(has, groups);
      const v = evalValue(arg, ctx);
      if (v.t === 'num' && n * v.maxAbs < EXACT) {
        const m = Math.max(maxAbsSinceFold, v.maxAbs);
        if ((rowsSinceFold + n) * m >= EXACT) fold(groups);
        rowsSinceFold += n;
        maxAbsSinceFold = Math.max(maxAbsSinceFold, v.maxAbs);
        kSum(acc, has, v.values, sel, gids, n, v.valid);
        return;
      }
      for (let j = 0; j < n; j++) {
        const s = scalarAt(v, 'int64', rowAt(sel, j));
        if (s === null) continue;
        const g = gids === null ? 0 : gids[j]!;
        folded[g] = (folded[g] ?? 0n) + BigInt(s);
        has[g] = 1;
      }
    },
    state(g) {
      if (has[g] !== 1) return null;
      return (folded[g] ?? 0n) + BigInt(acc[g] ?? 0);
    },
  };
}

/**
 * COUNT(DISTINCT): per group an exact set while it holds at most HLL_EXACT_LIMIT values
 * (dictionary codes for strings, canonical numbers otherwise), then dense HyperLogLog
 * registers. Each dictionary string is hashed once per code, when first needed.
 */
function distinctAgg(arg: Expr, type: ColumnType): Agg {
  const sets: (Set<DistinctValue> | undefined)[] = [];
  const regs: (Uint8Array | undefined)[] = [];
  const out = new Uint32Array(2);
  let strings: readonly string[] | null = null;
  let codeHash = new Uint32Array(0);
  let codeHashed = new Uint8Array(0);
  const hashCode = (code: number): void => {
    if (codeHashed[code] === 0) {
      hashString(strings![code]!, out);
      codeHash[2 * code] = out[0]!;
      codeHash[2 * code + 1] = out[1]!;
      codeHashed[code] = 1;
    }
  };
  const insert = (r: Uint8Array, v: DistinctValue): void => {
    if (type === 'string') {
      hashCode(v as number);
      registerAdd(r, codeHash[2 * (v as number)]!, codeHash[2 * (v as number) + 1]!);
      return;
    }
    if (typeof v === 'number') {
      if (type === 'int64') hashInt(v, out);
      else hashDouble(v, out);
    } else hashDistinct(type, v, out);
    registerAdd(r, out[0]!, out[1]!);
  };
  const add = (g: number, v: DistinctValue): void => {
    const r = regs[g];
    if (r !== undefined) {
      insert(r, v);
      return;
    }
    let s = sets[g];
    if (s === undefined) {
      s = new Set();
      sets[g] = s;
    }
    s.add(v);
    if (s.size > HLL_EXACT_LIMIT) {
      const fresh = new Uint8Array(HLL_REGISTERS);
      for (const x of s) insert(fresh, x);
      regs[g] = fresh;
      sets[g] = undefined;
    }
  };
  return {
    update(ctx, sel, gids, n) {
      const v = evalValue(arg, ctx);
      if (v.t === 'str') {
        if (strings !== v.strings) {
          if (strings !== null) throw new Error('string column changed its dictionary within a shard');
          strings = v.strings;
          codeHash = new Uint32Array(2 * strings.length);
          codeHashed = new Uint8Array(strings.length);
        }
        const codes = v.codes;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (isValid(v.valid, i)) add(gids === null ? 0 : gids[j]!, codes[i]!);
        }
      } else if (v.t === 'num') {
        const vals = v.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (!isValid(v.valid, i)) continue;
          const x = vals[i]!;
          add(gids === null ? 0 : gids[j]!, x === 0 ? 0 : x);
        }
      } else {
        for (let j = 0; j < n; j++) {
          const s = scalarAt(v, type, rowAt(sel, j));
          if (s !== null) add(gids === null ? 0 : gids[j]!, canonicalDistinct(s));
        }
      }
    },
    state(g) {
      const r = regs[g];
      if (r !== undefined) return hllFromRegisters(r);
      const s = sets[g];
      if (s === undefined) return null;
      if (type !== 'string') return hllFromSet(type, s);
      const values = new Set<DistinctValue>();
      for (const code of s) values.add(strings![code as number]!);
      return hllFromSet(type, values);
    },
  };
}

/** approx_quantile: one DDSketch accumulator per group, sharing one memo of bucket keys. */
function quantileAgg(arg: Expr, type: ColumnType): Agg {
  const accs: (QuantileAccumulator | undefined)[] = [];
  const keys = new BucketKeys(type);
  const acc = (g: number): QuantileAccumulator => {
    let a = accs[g];
    if (a === undefined) {
      a = new QuantileAccumulator(type, keys);
      accs[g] = a;
    }
    return a;
  };
  return {
    update(ctx, sel, gids, n) {
      const v = evalValue(arg, ctx);
      if (v.t === 'num') {
        const vals = v.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (isValid(v.valid, i)) acc(gids === null ? 0 : gids[j]!).add(vals[i]!);
        }
        return;
      }
      for (let j = 0; j < n; j++) {
        const s = scalarAt(v, type, rowAt(sel, j));
        if (s !== null) acc(gids === null ? 0 : gids[j]!).add(Number(s));
      }
    },
    state: (g) => accs[g]?.state() ?? null,
  };
}

function sumFloatAgg(arg: Expr): Agg {
  const sums: (FloatSum | undefined)[] = [];
  return {
    update(ctx, sel, gids, n) {
      const v = evalValue(arg, ctx);
      if (v.t !== 'num') throw new Error('float sum over a non-numeric column');
      const vals = v.values;
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        if (!isValid(v.valid, i)) continue;
        const g = gids === null ? 0 : gids[j]!;
        let s = sums[g];
        if (s === undefined) {
          s = fsumEmpty();
          sums[g] = s;
        }
        fsumAdd(s, vals[i]!);
      }
    },
    state: (g) => sums[g] ?? null,
  };
}

function minMaxAgg(isMin: boolean, arg: Expr, type: ColumnType): Agg {
  let m: Float64Array = new Float64Array(16);
  let has: Uint8Array = new Uint8Array(16);
  const big: (bigint | undefined)[] = [];
  let best = new Int32Array(16).fill(-1);
  let strings: readonly string[] = [];
  return {
    update(ctx, sel, gids, n, groups) {
      const v = evalValue(arg, ctx);
      if (v.t === 'num') {
        m = grow(m, groups);
        has = growU8(has, groups);
        kExtreme(m, has, v.values, sel, gids, n, v.valid, isMin);
      } else if (v.t === 'str') {
        if (best.length < groups) {
          const b = new Int32Array(Math.max(groups, best.length * 2)).fill(-1);
          b.set(best);
          best = b;
        }
        strings = v.strings;
        kExtremeCode(best, v.codes, v.rank, sel, gids, n, v.valid, isMin);
      } else {
        for (let j = 0; j < n; j++) {
          const s = scalarAt(v, 'int64', rowAt(sel, j));
          if (typeof s !== 'bigint') continue;
          const g = gids === null ? 0 : gids[j]!;
          const cur = big[g];
          if (cur === undefined || (isMin ? s < cur : s > cur)) big[g] = s;
        }
      }
    },
    state(g) {
      if (type === 'string') return best[g] !== undefined && best[g]! >= 0 ? strings[best[g]!]! : null;
      const b = big[g];
      if (type !== 'int64') return has[g] === 1 ? m[g]! : null;
      const f = has[g] === 1 ? BigInt(m[g]!) : undefined;
      if (f === undefined) return b ?? null;
      if (b === undefined) return f;
      return isMin ? (f < b ? f : b) : f > b ? f : b;
    },
  };
}

/**
 * Groups and aggregates one shard. `selectBatch(b)` returns the selected row indexes
 * of batch `b` and their count (WHERE already applied), or null to stop (cancelled).
 * @throws Error with a CANOPY_ERR_LIMIT CanopyError when groups exceed `maxGroups`.
 */
export class GroupAggregator {
  readonly #coders: KeyCoder[];
  readonly #aggs: Agg[];
  readonly #dense: Int32Array | null;
  readonly #map = new Map<number | string, number>();
  readonly #numericComposite: boolean;
  /** Per key, the code of each group (growable). */
  #keyCodes: Int32Array[];
  #groups = 0;
  #codeBuf = new Int32Array(0);
  #gidBuf = new Int32Array(0);
  readonly #maxGroups: number;
  readonly #onTooMany: () => never;
  readonly #charge: ((bytes: number) => void) | undefined;
  readonly #blockBytes: number;

  /**
   * @param charge called with the estimated bytes of each block of {@link GROUP_CHARGE_BLOCK}
   *   new groups before they are created; it throws to refuse the query (memory budget).
   */
  constructor(shard: PreparedShard, keys: readonly GroupKeySpec[], partials: readonly PartialSpec[], argTypes: readonly (ColumnType | null)[], maxGroups: number, onTooMany: () => never, charge?: (bytes: number) => void) {
    this.#coders = keys.map((k) => makeCoder(shard, k));
    this.#aggs = partials.map((p, i) => makeAgg(p, argTypes[i] ?? null, partials));
    const product = this.#coders.reduce((p, c) => p * c.bound, 1);
    this.#dense = product <= DENSE_LIMIT ? new Int32Array(product).fill(-1) : null;
    this.#numericComposite = product <= EXACT;
    this.#keyCodes = keys.map(() => new Int32Array(64));
    this.#maxGroups = maxGroups;
    this.#onTooMany = onTooMany;
    this.#charge = charge;
    this.#blockBytes = GROUP_CHARGE_BLOCK * leafGroupBytes(keys.length, partials, this.#dense !== null);
  }

  /** Adds the selected rows of one batch (`sel` null: every row of the batch). */
  addBatch(ctx: BatchCtx, sel: Int32Array | null, n: number): void {
    const nk = this.#coders.length;
    if (nk === 0) {
      if (this.#groups === 0 && n > 0) this.#newGroup([], 0);
      for (const a of this.#aggs) a.update(ctx, sel, null, n, this.#groups);
      return;
    }
    if (this.#gidBuf.length < n) {
      this.#gidBuf = new Int32Array(n);
      this.#codeBuf = new Int32Array(n);
    }
    const gids = this.#gidBuf;
    const codesPerKey: Int32Array[] = [];
    let comp: Int32Array | Float64Array;
    if (nk === 1) {
      this.#coders[0]!.codes(ctx, sel, n, this.#codeBuf);
      codesPerKey.push(this.#codeBuf);
      comp = this.#codeBuf;
    } else {
      // Composite code: c0 + b0 * (c1 + b1 * (c2 ...)), built key by key (Int32 when the key space is dense).
      const c = this.#dense !== null ? new Int32Array(n) : new Float64Array(n);
      let mult = 1;
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
    const dense = this.#dense;
    if (dense !== null) {
      for (let j = 0; j < n; j++) {
        const c = comp[j]!;
        let g = dense[c]!;
        if (g < 0) {
          g = this.#newGroup(codesPerKey, j);
          dense[c] = g;
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
    for (const a of this.#aggs) a.update(ctx, sel, gids, n, this.#groups);
  }

  #newGroup(codesPerKey: readonly Int32Array[], j: number): number {
    const g = this.#groups;
    if (g >= this.#maxGroups) this.#onTooMany();
    if (g % GROUP_CHARGE_BLOCK === 0) this.#charge?.(this.#blockBytes);
    if (g >= (this.#keyCodes[0]?.length ?? Infinity)) {
      this.#keyCodes = this.#keyCodes.map((a) => {
        const b = new Int32Array(a.length * 2);
        b.set(a);
        return b;
      });
    }
    for (let k = 0; k < codesPerKey.length; k++) this.#keyCodes[k]![g] = codesPerKey[k]![j]!;
    return this.#groups++;
  }

  /** The groups found, column by column: decoded key values and partial states. */
  result(): ColumnarPartial {
    const n = this.#groups;
    const keys = this.#coders.map((c, k) => {
      const codes = this.#keyCodes[k]!;
      const out: Scalar[] = new Array(n);
      for (let g = 0; g < n; g++) out[g] = c.value(codes[g]!);
      return out;
    });
    const states = this.#aggs.map((a) => {
      const out: unknown[] = new Array(n);
      for (let g = 0; g < n; g++) out[g] = a.state(g);
      return out;
    });
    return { type: 'columnar', size: n, keys, states };
  }
}
