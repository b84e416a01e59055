/**
 * first(x) (also arbitrary) and last(x), as DuckDB: the value of the first (last) row of the
 * group in scan order, NULL included (so first(x) is NULL when that row's x is NULL; unlike
 * any_value, which skips NULLs), of x's type; NULL for a group without rows.
 * Scan order is not part of canopy's answer (the rows are split over shards and merged in
 * arrival order; DuckDB's own order changes with its threads), so both read the `uniform`
 * partial (src/merge/kinds/uniform.ts): when every row of the group holds the same value the
 * answer is that value whatever the order, labelled exact; otherwise canopy answers the
 * group's least non-NULL value (deterministic over shard splits) labelled approximate: any
 * row's value is a valid first(x) for some scan order, and which one DuckDB returns depends
 * on its scan. With missing shards that may hold rows of the group the cell is approximate.
 */
import { CanopyError } from '../errors.ts';
import { uniformAdd, type UniformState } from '../kinds/uniform.ts';
import type { ColumnType } from '../types.ts';
import { scalarAt } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';

function firstLastAggregate(fn: 'first' | 'last'): AggregateDef {
  const def: AggregateDef = {
    fn,
    call: { names: fn === 'first' ? ['first', 'arbitrary'] : ['last'], args: ['value'] },
    decompose(args) {
      const arg = args[0];
      if (arg === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes one argument`);
      return { partials: [{ kind: 'uniform', arg: arg.expr }], type: arg.type };
    },
    finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
    bounds(e, g, _layout, env) {
      const s = g.states[e.partials[0]!] as UniformState;
      if (anyMissing(env) || (s !== null && s.mixed)) return { label: 'approximate', lo: null, hi: null };
      return null;
    },
    // Uncertain with every shard answered (rows that differ): HAVING and LIMIT cuts over it need exact cells.
    sketch: true,
    topk: null,
  };
  return def;
}

export const firstAggregate = firstLastAggregate('first');
export const lastAggregate = firstLastAggregate('last');

/** The leaf side: per group the uniform state, updated with every selected row's value (NULL too). */
function uniformAccumulator(argType: ColumnType): Accumulator {
  const states: UniformState[] = [];
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      for (let j = 0; j < n; j++) {
        const g = groupAt(gids, j);
        states[g] = uniformAdd(states[g] ?? null, scalarAt(v, argType, rowAt(sel, j)));
      }
    },
    state: (g) => states[g] ?? null,
  };
}

export const uniformPartial: PartialDef = {
  kind: 'uniform',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: (_spec, argType) => uniformAccumulator(argType ?? 'int64'),
  groupBytes: 48,
};
