/**
 * any_value(x): some non-NULL value of the group (NULL when there is none), as DuckDB. It
 * shares MIN(x)'s `min` partial: the value returned is the group's smallest, so the answer
 * is deterministic whatever the shard split. With missing shards the cell stays exact once
 * a value was seen (it is one of the group's non-NULL values, all any_value promises); a
 * NULL is exact only when the missing shards hold no non-NULL x, else approximate.
 */
import { CanopyError } from '../errors.ts';
import type { AggregateDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { asArgType } from './minmax.ts';

export const anyValueAggregate: AggregateDef = {
  fn: 'any_value',
  call: { names: ['any_value'], args: ['value'] },
  decompose(args) {
    const arg = args[0];
    if (arg === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'any_value() takes one argument');
    return { partials: [{ kind: 'min', arg: arg.expr }], type: arg.type };
  },
  finalise: (e, g, layout) => asArgType(e.type, layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!])),
  bounds(e, g, layout, env) {
    if (!anyMissing(env) || anyValueAggregate.finalise(e, g, layout) !== null) return null;
    const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
    if (col !== null && !env.unknown && (env.nonNull.get(col) ?? 1) === 0) return null;
    return { label: 'approximate', lo: null, hi: null };
  },
  sketch: false,
  topk: null,
};
