/**
 * SUM(x) over int64 (exact, int128 out, DuckDB's HUGEINT) or float64 (an exact expansion,
 * src/merge/fsum.ts): one `sum` partial (src/merge/kinds/sum.ts). Missing shards add a sum
 * within [min(0, n·min), max(0, n·max)] per shard (n its non-NULL rows).
 */
import { CanopyError } from '../errors.ts';
import { fsumAdd, fsumEmpty, type FloatSum } from '../fsum.ts';
import { scalarAt, isValid } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import type { Cell } from '../bounds.ts';
import type { Scalar } from '../types.ts';
import { anyMissing, argColumn, floatSlack, type Envelope } from './envelope.ts';
import { SMALL_SLOTS, grow, growU8, groupAt, rowAt } from './grow.ts';
import { kCount, kSum, wholeBatchStats } from './kernels.ts';
import { affineOf, affineRow, affineSafe, type Affine } from './affine.ts';
import type { Expr } from '../types.ts';

const EXACT = 2 ** 53;

/** @throws CanopyError CANOPY_ERR_TYPE unless `type` is int64 or float64. */
export function needNumeric(fn: string, arg: { readonly type: string; readonly text: string } | undefined): void {
  // 'sum(DISTINCT)' reads as sum(DISTINCT ...), a plain name as name().
  const call = fn.endsWith(')') ? `${fn.slice(0, -1)} ...)` : `${fn}()`;
  if (arg === undefined) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${call} takes one argument`);
  if (arg.type !== 'int64' && arg.type !== 'float64') throw new CanopyError('CANOPY_ERR_TYPE', `${call} needs an int64 or float64 column; '${arg.text}' is ${arg.type}`);
}

export const sumAggregate: AggregateDef = {
  fn: 'sum',
  decompose(args) {
    needNumeric('sum', args[0]);
    const arg = args[0]!;
    return { partials: [{ kind: 'sum', arg: arg.expr }], type: arg.type === 'int64' ? 'int128' : 'float64' };
  },
  finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
  bounds(e, g, layout, env) {
    if (!anyMissing(env)) return null;
    return sumBounds(sumAggregate.finalise(e, g, layout), argColumn(layout.plan.partials[e.partials[0]!]!.arg), env);
  },
  sketch: false,
  // Sums only grow when every value has one sign (the catalog proves it), then add up. A NaN
  // (a shard's max is NaN when it holds one) makes its group's sum NaN, which sorts above any
  // number: a group cut at a node would be bounded by a number its NaN passes.
  topk(desc, proves) {
    if (desc && proves((min, max) => min >= 0 && !Number.isNaN(max))) return { sign: 1, combine: 'add' };
    if (!desc && proves((_min, max) => max <= 0)) return { sign: -1, combine: 'add' };
    return null;
  },
};

/**
 * The cell of a sum `value` of the seen rows (int128 bigint or float64) when the shards of
 * `env` are missing: their values of column `col` add within [sumLo, sumHi] (any subset of
 * them too, so SUM(DISTINCT) bounds the same way); approximate for an expression argument,
 * without statistics, or over no seen value.
 */
export function sumBounds(value: Scalar, col: string | null, env: Envelope): Cell | null {
  if (col !== null && (env.nonNull.get(col) ?? 1) === 0) return null;
  const lo = col === null ? undefined : env.sumLo.get(col);
  const hi = col === null ? undefined : env.sumHi.get(col);
  if (value === null || lo === undefined || hi === undefined || env.unknown) return { label: 'approximate', lo: null, hi: null };
  if (typeof value === 'bigint') return { label: 'bounded', lo: value + BigInt(Math.floor(lo)), hi: value + BigInt(Math.ceil(hi)) };
  const v = value as number;
  const l = v + lo;
  const h = v + hi;
  // Infinities or NaN in play (seen, or in the missing shards' statistics): the sum may be
  // NaN, which sorts above every number, so only the lower end stays bounded.
  if (!Number.isFinite(l) || !Number.isFinite(h)) return { label: 'bounded', lo: Number.isNaN(l) ? null : l, hi: null };
  // v is the seen exact sum rounded once (up to half an ulp off, even when it reads as an
  // integer), and l, h round again: widen relative to both.
  return { label: 'bounded', lo: l - floatSlack(l, v), hi: h + floatSlack(h, v) };
}

/**
 * Exact int64 SUM: doubles accumulate while no partial sum can pass 2^53 (checked per
 * batch from the batch's max |value|), then fold into bigints; batches that could
 * overflow even alone, and batches of values beyond 2^53, add bigints per row.
 */
function sumIntAccumulator(): Accumulator {
  let acc: Float64Array = new Float64Array(SMALL_SLOTS);
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
  /** Room for `groups` groups and `n` more rows of |value| <= maxAbs in the double sums (folding them first when needed). */
  const admit = (groups: number, n: number, maxAbs: number): void => {
    acc = grow(acc, groups);
    has = growU8(has, groups);
    const m = Math.max(maxAbsSinceFold, maxAbs);
    if ((rowsSinceFold + n) * m >= EXACT) fold(groups);
    rowsSinceFold += n;
    maxAbsSinceFold = m;
  };
  return {
    addGroupSums(sums, rows, groups, n, maxAbs) {
      admit(groups, n, maxAbs);
      for (let g = 0; g < groups; g++) {
        acc[g]! += sums[g]!;
        if (rows[g]! > 0) has[g] = 1;
      }
    },
    update(inputs, sel, gids, n, groups) {
      acc = grow(acc, groups);
      has = growU8(has, groups);
      const v = inputs[0]!;
      if (v.t === 'num' && n * v.maxAbs < EXACT) {
        admit(groups, n, v.maxAbs);
        const stats = wholeBatchStats(v, sel, gids, n);
        if (stats !== null && stats.sum !== null) {
          // The batch's exact sum, computed once at load (the same double the loop gives).
          if (stats.count > 0) {
            acc[0]! += stats.sum;
            has[0] = 1;
          }
        } else kSum(acc, has, v.values, sel, gids, n, v.valid);
        return;
      }
      for (let j = 0; j < n; j++) {
        const s = scalarAt(v, 'int64', rowAt(sel, j));
        if (s === null) continue;
        const g = groupAt(gids, j);
        folded[g] = (folded[g] ?? 0n) + BigInt(s);
        has[g] = 1;
      }
    },
    // A safe integer stays a number (src/merge/kinds/sum.ts: IntSum); folded bigints add up as bigints.
    state(g) {
      if (has[g] !== 1) return null;
      const f = folded[g];
      return f === undefined ? acc[g]! : f + BigInt(acc[g] ?? 0);
    },
  };
}

/** float64 SUM: an exact expansion per group, so the answer does not depend on the shard split. */
function sumFloatAccumulator(): Accumulator {
  const sums: (FloatSum | undefined)[] = [];
  const add = (g: number, x: number): void => {
    let s = sums[g];
    if (s === undefined) {
      s = fsumEmpty();
      sums[g] = s;
    }
    fsumAdd(s, x);
  };
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      if (v.t === 'const') {
        if (typeof v.value === 'number') for (let j = 0; j < n; j++) add(groupAt(gids, j), v.value);
        return;
      }
      if (v.t !== 'num') throw new CanopyError('CANOPY_ERR_TYPE', 'float sum over a non-numeric column');
      const vals = v.values;
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        if (!isValid(v.valid, i)) continue;
        const g = groupAt(gids, j);
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

/**
 * int64 SUM of an affine argument `a·x + b` (src/merge/aggregates/affine.ts): Σx and the
 * count of non-NULL x per group, scaled at the end, so the expression is never materialised.
 * Batches whose values could take an intermediate value past 2^62 evaluate the expression
 * row by row (refusing int64 overflow as the leaf's evaluator does) into exact bigints.
 */
function sumAffineAccumulator(arg: Expr, f: Affine): Accumulator {
  const xs = sumIntAccumulator();
  let counts: Float64Array = new Float64Array(SMALL_SLOTS);
  const direct: bigint[] = [];
  return {
    update(inputs, sel, gids, n, groups) {
      const v = inputs[0]!;
      if (v.t === 'num' && affineSafe(f, v.maxAbs)) {
        xs.update(inputs, sel, gids, n, groups);
        if (f.b !== 0n) {
          counts = grow(counts, groups);
          const stats = wholeBatchStats(v, sel, gids, n);
          if (stats !== null) counts[0]! += stats.count;
          else kCount(counts, sel, gids, n, v.valid);
        }
        return;
      }
      for (let j = 0; j < n; j++) {
        const x = scalarAt(v, 'int64', rowAt(sel, j));
        if (x === null) continue;
        const g = groupAt(gids, j);
        direct[g] = (direct[g] ?? 0n) + (affineRow(arg, x) as bigint);
      }
    },
    state(g) {
      const x = xs.state(g) as number | bigint | null;
      const d = direct[g];
      if (x === null) return d ?? null;
      const sx = BigInt(x);
      return f.a * sx + (f.b === 0n ? 0n : f.b * BigInt(counts[g]!)) + (d ?? 0n);
    },
  };
}

export const sumPartial: PartialDef = {
  kind: 'sum',
  inputs: (spec) => (spec.arg === null ? [] : [affineOf(spec.arg)?.col ?? spec.arg]),
  accumulator: (spec, argType) => {
    if (argType !== 'int64') return sumFloatAccumulator();
    const f = affineOf(spec.arg);
    return f === null ? sumIntAccumulator() : sumAffineAccumulator(spec.arg!, f);
  },
  groupBytes: 24,
};
