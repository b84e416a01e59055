/**
 * arg_min_null(arg, val) / arg_max_null(arg, val) and arg_min_nulls_last(arg, val) /
 * arg_max_nulls_last(arg, val), as DuckDB: the `arg` of the row with the smallest (largest)
 * `val`, where `arg` may be NULL (unlike arg_min, which skips such rows). The _null forms skip
 * rows whose `val` is NULL; the _nulls_last forms count them, a NULL `val` ranking after every
 * value (so a group whose `val`s are all NULL gives the `arg` of one of its rows). NULL for a
 * group without such rows. (DuckDB's three-argument nulls_last form, a list of the n best, is
 * refused: canopy has no LIST type.) One `arg_min_null` / `arg_max_null` partial
 * (src/merge/kinds/arg-null.ts), merged exactly.
 * Ties: DuckDB returns the `arg` of whichever tied row its scan meets first. canopy answers the
 * least (NULL last) and labels the cell approximate when tied rows hold different `arg`s; exact
 * otherwise. With missing shards that may hold rows of the group: approximate.
 */
import { CanopyError } from '../errors.ts';
import { argNullAdd, type ArgNullState } from '../kinds/arg-null.ts';
import type { ColumnType, PartialSpec } from '../types.ts';
import { scalarAt } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';

function argNullAggregate(fn: 'arg_min_null' | 'arg_max_null' | 'arg_min_nulls_last' | 'arg_max_nulls_last'): AggregateDef {
  const kind = fn.startsWith('arg_min') ? 'arg_min_null' : 'arg_max_null';
  const nullsLast = fn.endsWith('nulls_last');
  const def: AggregateDef = {
    fn,
    call: { names: [fn], args: ['value', 'value'] },
    decompose(args) {
      const [arg, by] = args;
      if (arg === undefined || by === undefined || args.length !== 2) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes two arguments: (value returned, value ordered by)`);
      const spec: PartialSpec = { kind, arg: arg.expr, by: by.expr, byType: by.type, ...(nullsLast ? { nullsLast: true } : {}) };
      return { partials: [spec], type: arg.type };
    },
    finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
    bounds(e, g, _layout, env) {
      const s = g.states[e.partials[0]!] as ArgNullState;
      if (anyMissing(env) || (s !== null && s.tie)) return { label: 'approximate', lo: null, hi: null };
      return null;
    },
    // Uncertain with every shard answered (ties): HAVING and LIMIT cuts over it need exact cells.
    sketch: true,
    topk: null,
  };
  return def;
}

export const argMinNullAggregate = argNullAggregate('arg_min_null');
export const argMaxNullAggregate = argNullAggregate('arg_max_null');
export const argMinNullsLastAggregate = argNullAggregate('arg_min_nulls_last');
export const argMaxNullsLastAggregate = argNullAggregate('arg_max_nulls_last');

/** The leaf side: per group the state, updated row by row over scalars. */
function argNullAccumulator(isMin: boolean, spec: PartialSpec, argType: ColumnType): Accumulator {
  const states: ArgNullState[] = [];
  const byType = spec.byType ?? 'float64';
  const nullsLast = spec.nullsLast === true;
  return {
    update(inputs, sel, gids, n) {
      const av = inputs[0]!;
      const vv = inputs[1]!;
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        const v = scalarAt(vv, byType, i);
        if (v === null && !nullsLast) continue;
        const g = groupAt(gids, j);
        states[g] = argNullAdd(isMin, states[g] ?? null, v, scalarAt(av, argType, i));
      }
    },
    state: (g) => states[g] ?? null,
  };
}

function argNullPartial(kind: 'arg_min_null' | 'arg_max_null'): PartialDef {
  return {
    kind,
    inputs: (spec) => (spec.arg === null || spec.by === undefined ? [] : [spec.arg, spec.by]),
    accumulator: (spec, argType) => argNullAccumulator(kind === 'arg_min_null', spec, argType ?? 'float64'),
    groupBytes: 56,
  };
}

export const argMinNullPartial = argNullPartial('arg_min_null');
export const argMaxNullPartial = argNullPartial('arg_max_null');
