/**
 * The leaf side of the `moments` partial (estimates, src/merge/estimate.ts): not an
 * aggregate of its own. A `power` spec sums v^exp over the group's non-NULL rows of its `sum`
 * partial's argument; a `pair` spec keeps nothing of the rows (inert): its sums are filled
 * per shard after the scan from the other states (withShardMoments).
 */
import { CanopyError } from '../errors.ts';
import type { Expr, PartialSpec } from '../types.ts';
import { isValid, type Validity } from '../vectors.ts';
import type { Accumulator, PartialDef } from './aggregate.ts';
import { groupAt, grow, rowAt } from './grow.ts';
import { wholeBatchStats } from './kernels.ts';

function poweredArgs(spec: PartialSpec, partials: readonly PartialSpec[]): Expr[] {
  if (spec.power === undefined) return [];
  const arg = partials[spec.power.of]?.arg;
  if (arg === undefined || arg === null) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `moments power of partial ${spec.power.of}: not a sum partial`);
  return [arg];
}

/** Σ x², Σ x³, Σ x⁴ over the valid rows `sel[0..n)` (all `n` rows when `sel` is null). */
function powerSums(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, n: number): { s2: number; s3: number; s4: number } {
  let s2 = 0;
  let s3 = 0;
  let s4 = 0;
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (valid !== null && !isValid(valid, i)) continue;
    const x = vals[i]!;
    const x2 = x * x;
    s2 += x2;
    s3 += x2 * x;
    s4 += x2 * x2;
  }
  return { s2, s3, s4 };
}

/**
 * Σ x², Σ x³, Σ x⁴ of the valid rows `sel[0..n)` added per group into `flat` (group g's three
 * sums at 3g ..). One monomorphic loop per shape (selection or not, NULLs or not); the sums
 * are added in row order.
 */
function powerSumsByGroup(vals: Float64Array, valid: Validity | null, sel: Int32Array | null, gids: Int32Array, n: number, flat: Float64Array): void {
  if (valid === null && sel === null) {
    for (let j = 0; j < n; j++) addPowers(flat, gids[j]!, vals[j]!);
    return;
  }
  for (let j = 0; j < n; j++) {
    const i = sel === null ? j : sel[j]!;
    if (valid !== null && !isValid(valid, i)) continue;
    addPowers(flat, gids[j]!, vals[i]!);
  }
}

/** Adds x², x³, x⁴ to group g's three sums at 3g. */
function addPowers(flat: Float64Array, g: number, x: number): void {
  const x2 = x * x;
  const o = 3 * g;
  flat[o]! += x2;
  flat[o + 1]! += x2 * x;
  flat[o + 2]! += x2 * x2;
}

/** The leaf's accumulator of a `moments` pair: inert, filled after the scan (withShardMoments); stateless, so one serves every scan. */
const INERT: Accumulator = { inert: true, update: () => undefined, state: () => 0, stateColumn: (n) => new Float64Array(n) };

export const momentsPartial: PartialDef = {
  kind: 'moments',
  inputs: poweredArgs,
  accumulator(spec) {
    if (spec.power === undefined) return INERT;
    const exp = spec.power.exp;
    // Per group its Σx², Σx³, Σx⁴ side by side (one loop computes all three), of which state() gives one.
    const pick = exp - 2;
    // Two groups' sums at first (48 bytes: on V8's heap, see SMALL_SLOTS); grow doubles past them.
    let flat: Float64Array = new Float64Array(2 * 3);
    return {
      update(inputs, sel, gids, n, groups) {
        flat = grow(flat, Math.max(groups, 1) * 3);
        const v = inputs[0]!;
        if (v.t !== 'num' && v.t !== 'big') throw new CanopyError('CANOPY_ERR_TYPE', 'sum of powers over a non-numeric column');
        if (v.t === 'num' && gids === null) {
          // One group (no GROUP BY): the batch's statistics when the update covers the whole
          // batch (computed once at load), else a monomorphic loop into three locals.
          const whole = wholeBatchStats(v, sel, gids, n);
          const p = whole !== null ? { s2: whole.s2, s3: whole.s3, s4: whole.s4 } : powerSums(v.values, v.valid, sel, n);
          flat[0]! += p.s2;
          flat[1]! += p.s3;
          flat[2]! += p.s4;
          return;
        }
        if (v.t === 'num') {
          powerSumsByGroup(v.values, v.valid, sel, gids!, n, flat);
          return;
        }
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (!isValid(v.valid, i)) continue;
          addPowers(flat, groupAt(gids, j), Number(v.values[i]!));
        }
      },
      addGroupPowers(pows: Float64Array, rows: Float64Array, groups: number): void {
        flat = grow(flat, Math.max(groups, 1) * 3);
        for (let g = 0; g < groups; g++) if (rows[g] !== 0) flat[3 * g + pick]! += pows[3 * g + pick]!;
      },
      state: (g) => flat[3 * g + pick] ?? 0,
      stateColumn(n) {
        const out = new Float64Array(n);
        for (let g = 0; g < n && 3 * g + pick < flat.length; g++) out[g] = flat[3 * g + pick]!;
        return out;
      },
    };
  },
  groupBytes: 24,
};
