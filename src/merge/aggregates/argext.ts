/**
 * arg_min(arg, val) / arg_max(arg, val), also named min_by / max_by (DuckDB): the `arg` of
 * the row with the smallest (largest) `val`, over rows where both are non-NULL (DuckDB skips
 * a row whose `arg` is NULL too; arg_min_null is not offered). One `arg_min` / `arg_max`
 * partial holding (best val, its arg) (src/merge/kinds/argext.ts), which merges exactly.
 * Ties on `val` are resolved by the smallest `arg` in canopy's value order, so the answer
 * does not depend on the shard split (DuckDB keeps whichever row it meets first).
 * With missing shards the cell is exact when the catalog proves no missing row can reach the
 * best `val` (their min of `val` above it for arg_min, max below it for arg_max; a tie could
 * change the arg), or when the missing shards hold no non-NULL `val` or `arg`; else approximate.
 */
import { compareValues } from '../compare.ts';
import { CanopyError } from '../errors.ts';
import { argExtBetter, type ArgExtState } from '../kinds/argext.ts';
import type { ColumnType, Scalar } from '../types.ts';
import { isValid, scalarAt } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';

function argExtAggregate(fn: 'arg_min' | 'arg_max'): AggregateDef {
  const isMin = fn === 'arg_min';
  const def: AggregateDef = {
    fn,
    call: { names: [fn, isMin ? 'min_by' : 'max_by'], args: ['value', 'value'] },
    decompose(args) {
      const [arg, by] = args;
      if (arg === undefined || by === undefined || args.length !== 2) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes two arguments: (value returned, value ordered by)`);
      return { partials: [{ kind: fn, arg: arg.expr, by: by.expr, byType: by.type }], type: arg.type };
    },
    finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
    bounds(e, g, layout, env) {
      if (!anyMissing(env)) return null;
      const spec = layout.plan.partials[e.partials[0]!]!;
      const byCol = argColumn(spec.by);
      const argCol = argColumn(spec.arg);
      // No missing row with both non-NULL: nothing can change.
      if ((byCol !== null && (env.nonNull.get(byCol) ?? 1) === 0) || (argCol !== null && (env.nonNull.get(argCol) ?? 1) === 0)) return null;
      const s = g.states[e.partials[0]!] as ArgExtState;
      const ext = byCol === null || env.unknown ? undefined : isMin ? env.min.get(byCol) : env.max.get(byCol);
      if (s !== null && ext !== undefined) {
        const c = compareValues(ext, s.v);
        if (isMin ? c > 0 : c < 0) return null;
      }
      return { label: 'approximate', lo: null, hi: null };
    },
    sketch: false,
    topk: null,
  };
  return def;
}

export const argMinAggregate = argExtAggregate('arg_min');
export const argMaxAggregate = argExtAggregate('arg_max');

/**
 * arg_min / arg_max at the leaf: per group the best ordering value and its argument. Two
 * numeric vectors (the common case: doubles, timestamps, int64 within 2^53) take a loop over
 * typed arrays; other types go through scalars.
 */
function argExtAccumulator(isMin: boolean, argType: ColumnType, byType: ColumnType): Accumulator {
  const bestV: (Exclude<Scalar, null> | undefined)[] = [];
  const bestA: (Exclude<Scalar, null> | undefined)[] = [];
  const numeric = (t: ColumnType): boolean => t === 'float64' || t === 'timestamp';
  return {
    update(inputs, sel, gids, n) {
      const av = inputs[0]!;
      const vv = inputs[1]!;
      if (av.t === 'num' && vv.t === 'num' && numeric(argType) && numeric(byType)) {
        const a = av.values;
        const v = vv.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (!isValid(vv.valid, i) || !isValid(av.valid, i)) continue;
          const g = groupAt(gids, j);
          const cv = bestV[g];
          const x = v[i]!;
          const y = a[i]!;
          if (cv === undefined || argExtBetter(isMin, x, y, cv, bestA[g]!)) {
            bestV[g] = x;
            bestA[g] = y;
          }
        }
        return;
      }
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        const x = scalarAt(vv, byType, i);
        if (x === null) continue;
        const y = scalarAt(av, argType, i);
        if (y === null) continue;
        const g = groupAt(gids, j);
        const cv = bestV[g];
        if (cv === undefined || argExtBetter(isMin, x, y, cv, bestA[g]!)) {
          bestV[g] = x;
          bestA[g] = y;
        }
      }
    },
    state(g): ArgExtState {
      const v = bestV[g];
      return v === undefined ? null : { v, a: bestA[g]! };
    },
  };
}

function argExtPartial(kind: 'arg_min' | 'arg_max'): PartialDef {
  return {
    kind,
    inputs: (spec) => (spec.arg === null || spec.by === undefined ? [] : [spec.arg, spec.by]),
    accumulator: (spec, argType) => argExtAccumulator(kind === 'arg_min', argType ?? 'float64', spec.byType ?? 'float64'),
    groupBytes: 48,
  };
}

export const argMinPartial = argExtPartial('arg_min');
export const argMaxPartial = argExtPartial('arg_max');
