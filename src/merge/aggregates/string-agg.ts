/**
 * string_agg(x [, sep] [ORDER BY k [ASC|DESC] [NULLS FIRST|LAST], ...]), also group_concat and
 * listagg, as DuckDB: the non-NULL values of x cast to VARCHAR, joined by the constant `sep`
 * (default ','; a NULL separator gives NULL), in the ORDER BY's order; NULL when the group has
 * no non-NULL x. DISTINCT keeps each value once (DuckDB then requires every ORDER BY key to be
 * the argument, which the planner checks). One `string_list` partial
 * (src/merge/kinds/string-list.ts): the values with their keys, sorted, merged exactly; a
 * group past the list's budget is refused (CANOPY_ERR_LIMIT).
 * Order: DuckDB joins values that tie on the ORDER BY keys (or every value, without ORDER BY;
 * and DISTINCT values in its hash table's order) in an order of its scan and threads; canopy
 * joins them in ascending value order, which is the same answer only when the tied values are
 * equal. So the cell is exact when no two adjacent values tie on their keys with different
 * values (without ORDER BY: the group has one distinct value), else approximate (the values
 * are right, their order is canopy's). With missing shards that may hold non-NULL x: approximate.
 */
import { CanopyError } from '../errors.ts';
import { checkListBudget, sameKeys, stringListOf, type ListOrder, type StringList } from '../kinds/string-list.ts';
import type { ColumnType, PartialSpec, Scalar } from '../types.ts';
import { scalarAt } from '../vectors.ts';
import type { AggExpr, Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';
import type { GroupEntry, PartialLayout } from '../partial.ts';

/** The ORDER BY directions of a string_list spec. */
function orderOf(spec: PartialSpec): ListOrder[] {
  return (spec.order ?? []).map((o) => ({ desc: o.desc, nullsFirst: o.nullsFirst }));
}

/** The call's list after DISTINCT (adjacent equal values with equal keys kept once); null for no value. */
function listOf(e: AggExpr, g: GroupEntry, layout: PartialLayout): { values: readonly string[]; keys: readonly (readonly Scalar[])[] } | null {
  const s = g.states[e.partials[0]!] as StringList | null;
  if (s === null || e.distinct !== true) return s;
  const order = orderOf(layout.plan.partials[e.partials[0]!]!);
  const values: string[] = [];
  const keys: (readonly Scalar[])[] = [];
  s.values.forEach((v, i) => {
    const last = values.length - 1;
    if (last >= 0 && values[last] === v && sameKeys(order, keys[last]!, s.keys[i]!)) return;
    values.push(v);
    keys.push(s.keys[i]!);
  });
  return { values, keys };
}

export const stringAggAggregate: AggregateDef = {
  fn: 'string_agg',
  decompose(args, options) {
    const arg = args[0];
    if (arg === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'string_agg() takes a value and an optional separator');
    if (arg.type !== 'string') throw new CanopyError('CANOPY_ERR_TYPE', `string_agg() aggregates strings; '${arg.text}' is ${arg.type} (cast it to VARCHAR)`);
    const spec: PartialSpec = options.order === undefined || options.order.length === 0 ? { kind: 'string_list', arg: arg.expr } : { kind: 'string_list', arg: arg.expr, order: options.order };
    return { partials: [spec], type: 'string' };
  },
  finalise(e, g, layout) {
    const list = listOf(e, g, layout);
    if (list === null || e.sep === null) return null;
    return list.values.join(e.sep ?? ',');
  },
  bounds(e, g, layout, env) {
    const approximate = { label: 'approximate', lo: null, hi: null } as const;
    if (anyMissing(env)) {
      const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
      if (col === null || env.unknown || (env.nonNull.get(col) ?? 1) !== 0) return approximate;
    }
    const list = listOf(e, g, layout);
    if (list === null || e.sep === null) return null;
    const order = orderOf(layout.plan.partials[e.partials[0]!]!);
    for (let i = 1; i < list.values.length; i++) {
      if (list.values[i] !== list.values[i - 1] && sameKeys(order, list.keys[i]!, list.keys[i - 1]!)) return approximate;
    }
    return null;
  },
  // Uncertain with every shard answered (tied values' order): HAVING and LIMIT cuts over it need exact cells.
  sketch: true,
  topk: null,
};

/** The leaf side: per group its entries (value and keys), sorted when the state is read. */
function stringListAccumulator(spec: PartialSpec): Accumulator {
  const order = orderOf(spec);
  const keyTypes: ColumnType[] = (spec.order ?? []).map((o) => o.type);
  const groups: { entries: { keys: Scalar[]; value: string }[]; chars: number }[] = [];
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        const x = scalarAt(v, 'string', i);
        if (x === null) continue;
        const value = String(x);
        const gid = groupAt(gids, j);
        let g = groups[gid];
        if (g === undefined) {
          g = { entries: [], chars: 0 };
          groups[gid] = g;
        }
        g.entries.push({ keys: keyTypes.map((t, k) => scalarAt(inputs[k + 1]!, t, i)), value });
        g.chars += value.length;
        checkListBudget(g.entries.length, g.chars);
      }
    },
    state: (gid) => {
      const g = groups[gid];
      return g === undefined ? null : stringListOf(order, g.entries);
    },
  };
}

export const stringListPartial: PartialDef = {
  kind: 'string_list',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg, ...(spec.order ?? []).map((o) => o.expr)]),
  accumulator: (spec) => stringListAccumulator(spec),
  groupBytes: 256,
};
