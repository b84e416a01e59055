/**
 * The leaf side of the `moments` partial (estimates, src/merge/estimate.ts): not an
 * aggregate of its own. For each of the spec's `squares` (a `sum` partial's argument),
 * Σ v², Σ v³ and Σ v⁴ over the group's non-NULL rows, at state slots pairs.length + 3k ..
 * 3k + 2; the pairs' slots stay 0 and are filled per shard after the scan from the other
 * states (withShardMoments). Without `squares`: no state (null).
 */
import { CanopyError } from '../errors.ts';
import type { Expr, PartialSpec } from '../types.ts';
import { isValid } from '../vectors.ts';
import type { PartialDef } from './aggregate.ts';
import { groupAt, rowAt } from './grow.ts';

function squaredArgs(spec: PartialSpec, partials: readonly PartialSpec[]): Expr[] {
  return (spec.squares ?? []).map((p) => {
    const arg = partials[p]?.arg;
    if (arg === undefined || arg === null) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `moments squares entry ${p} is not a sum partial`);
    return arg;
  });
}

export const momentsPartial: PartialDef = {
  kind: 'moments',
  inputs: squaredArgs,
  accumulator(spec) {
    const base = spec.pairs?.length ?? 0;
    const width = base + 3 * (spec.squares?.length ?? 0);
    const sums: (Float64Array | undefined)[] = [];
    return {
      update(inputs, sel, gids, n) {
        for (let k = 0; k < inputs.length; k++) {
          const v = inputs[k]!;
          if (v.t !== 'num' && v.t !== 'big') throw new CanopyError('CANOPY_ERR_TYPE', 'sum of squares over a non-numeric column');
          for (let j = 0; j < n; j++) {
            const i = rowAt(sel, j);
            if (!isValid(v.valid, i)) continue;
            const g = groupAt(gids, j);
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
        }
      },
      state: (g) => sums[g] ?? null,
    };
  },
  groupBytes: 24,
};
