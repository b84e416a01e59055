/**
 * The leaf side of the `moments` partial (estimates, src/merge/estimate.ts): not an
 * aggregate of its own. For each of the spec's `squares` (a `sum` partial's argument),
 * Σ v², Σ v³ and Σ v⁴ over the group's non-NULL rows, at state slots pairs.length + 3k ..
 * 3k + 2; the pairs' slots stay 0 and are filled per shard after the scan from the other
 * states (withShardMoments). Without `squares`: no state (null).
 */
import { CanopyError } from '../errors.ts';
import type { Expr, PartialSpec } from '../types.ts';
import { isValid, type Validity } from '../vectors.ts';
import type { PartialDef } from './aggregate.ts';
import { groupAt, grow, growU8, rowAt } from './grow.ts';
import { wholeBatchStats } from './kernels.ts';

function squaredArgs(spec: PartialSpec, partials: readonly PartialSpec[]): Expr[] {
  return (spec.squares ?? []).map((p) => {
    const arg = partials[p]?.arg;
    if (arg === undefined || arg === null) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `moments squares entry ${p} is not a sum partial`);
    return arg;
  });
}

/** Σ x², Σ x³, Σ x⁴ over the valid rows `sel[0..n)` (all `n` rows when `sel` is null), and their count. */
function powerSums(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, n: number): { s2: number; s3: number; s4: number; rows: number } {
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  let rows = 0;
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (valid !== null && !isValid(valid, i)) continue;
    const x = vals[i]!;
    const x2 = x * x;
    s2 += x2;
    s3 += x2 * x;
    s4 += x2 * x2;
    rows++;
  }
  return { s2, s3, s4, rows };
}

/**
 * Σ x², Σ x³, Σ x⁴ of the valid rows `sel[0..n)` added per group into `flat` (group g's three
 * sums at g·stride + at ..), `has[g]` set for a group with a row. One monomorphic loop per
 * shape (selection or not, NULLs or not); the sums are added in row order, as before.
 */
function powerSumsByGroup(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, gids: Int32Array, n: number, flat: Float64Array, has: Uint8Array, stride: number, at: number): void {
  if (valid === null && sel === null) {
    for (let j = 0; j < n; j++) addPowers(flat, has, gids[j]!, stride, at, vals[j]!);
    return;
  }
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (valid !== null && !isValid(valid, i)) continue;
    addPowers(flat, has, gids[j]!, stride, at, vals[i]!);
  }
}

/** Adds x², x³, x⁴ to group g's three sums at g·stride + at, and marks g as having a row. */
function addPowers(flat: Float64Array, has: Uint8Array, g: number, stride: number, at: number, x: number): void {
  const x2 = x * x;
  const o = g * stride + at;
  flat[o]! += x2;
  flat[o + 1]! += x2 * x;
  flat[o + 2]! += x2 * x2;
  has[g] = 1;
}

export const momentsPartial: PartialDef = {
  kind: 'moments',
  inputs: squaredArgs,
  accumulator(spec) {
    const base = spec.pairs?.length ?? 0;
    const squares = spec.squares?.length ?? 0;
    const width = base + 3 * squares;
    // Per group its 3·squares power sums side by side, and whether it has a row (else its state is null).
    const stride = 3 * squares;
    if (squares === 0) return { inert: true, update: () => undefined, state: () => null };
    let flat: Float64Array = new Float64Array(16 * stride);
    let has: Uint8Array = new Uint8Array(16);
    return {
      update(inputs, sel, gids, n, groups) {
        has = growU8(has, Math.max(groups, 1));
        flat = grow(flat, Math.max(groups, 1) * stride);
        for (let k = 0; k < inputs.length; k++) {
          const v = inputs[k]!;
          if (v.t !== 'num' && v.t !== 'big') throw new CanopyError('CANOPY_ERR_TYPE', 'sum of squares over a non-numeric column');
          const at = 3 * k;
          if (v.t === 'num' && gids === null) {
            // One group (no GROUP BY): the batch's statistics when the update covers the whole
            // batch (computed once at load), else a monomorphic loop into three locals.
            const whole = wholeBatchStats(v, sel, gids, n);
            const p = whole !== null ? { s2: whole.s2, s3: whole.s3, s4: whole.s4, rows: whole.count } : powerSums(v.values, v.valid, sel, n);
            if (p.rows > 0) {
              flat[at]! += p.s2;
              flat[at + 1]! += p.s3;
              flat[at + 2]! += p.s4;
              has[0] = 1;
            }
            continue;
          }
          if (v.t === 'num') {
            powerSumsByGroup(v.values, v.valid, sel, gids!, n, flat, has, stride, at);
            continue;
          }
          for (let j = 0; j < n; j++) {
            const i = rowAt(sel, j);
            if (!isValid(v.valid, i)) continue;
            addPowers(flat, has, groupAt(gids, j), stride, at, Number(v.values[i]!));
          }
        }
      },
      ...(squares === 1
        ? {
            addGroupPowers(p2: Float64Array, p3: Float64Array, p4: Float64Array, rows: Float64Array, groups: number): void {
              has = growU8(has, Math.max(groups, 1));
              flat = grow(flat, Math.max(groups, 1) * 3);
              for (let g = 0; g < groups; g++) {
                if (rows[g] === 0) continue;
                flat[3 * g]! += p2[g]!;
                flat[3 * g + 1]! += p3[g]!;
                flat[3 * g + 2]! += p4[g]!;
                has[g] = 1;
              }
            },
          }
        : {}),
      // A fresh array per group (withShardMoments fills the pairs' slots in place).
      state(g) {
        if (has[g] !== 1) return null;
        const out = new Float64Array(width);
        out.set(flat.subarray(g * stride, (g + 1) * stride), base);
        return out;
      },
    };
  },
  groupBytes: 24,
};
