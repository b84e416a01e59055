/**
 * bit_and(x), bit_or(x), bit_xor(x) over int64, as DuckDB: the bitwise AND / OR / XOR of the
 * non-NULL values (two's complement), an int64, NULL over none. One `bit_and` / `bit_or` /
 * `bit_xor` partial (src/merge/kinds/bits.ts), merged exactly. With missing shards: exact when
 * they hold no non-NULL x, or when nothing can change the value any more (an AND already 0, an
 * OR already -1: every bit set); else approximate with no interval (a bitwise fold is not
 * monotone in numeric order). DISTINCT is refused; never truncated by group top-k.
 */
import { CanopyError } from '../errors.ts';
import { bitsApply, type BitsOp, type BitsState } from '../kinds/bits.ts';
import { HLL_EXACT_LIMIT, type HllState } from '../kinds/hll/index.ts';
import { isValid } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';

function bitsAggregate(op: BitsOp): AggregateDef {
  const fn = `bit_${op}` as const;
  const def: AggregateDef = {
    fn,
    call: { names: [fn], args: ['value'] },
    decompose(args) {
      const arg = args[0];
      if (arg === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes one argument`);
      if (arg.type !== 'int64') throw new CanopyError('CANOPY_ERR_TYPE', `${fn}() needs an int64 argument; '${arg.text}' is ${arg.type}`);
      return { partials: [{ kind: fn, arg: arg.expr }], type: 'int64' };
    },
    finalise: (e, g) => g.states[e.partials[0]!] as BitsState,
    bounds(e, g, layout, env) {
      if (!anyMissing(env)) return null;
      const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
      if (col !== null && !env.unknown && (env.nonNull.get(col) ?? 1) === 0) return null;
      const s = g.states[e.partials[0]!] as BitsState;
      if ((op === 'and' && s === 0n) || (op === 'or' && s === -1n)) return null;
      return { label: 'approximate', lo: null, hi: null };
    },
    sketch: false,
    topk: null,
  };
  return def;
}

/** bit_xor(DISTINCT x) over the exact distinct set of the `hll` partial (see the file comment). */
export const bitXorDistinctAggregate: AggregateDef = {
  fn: 'bit_xor_distinct',
  decompose(args) {
    const arg = args[0];
    if (arg === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'bit_xor(DISTINCT ...) takes one argument');
    if (arg.type !== 'int64') throw new CanopyError('CANOPY_ERR_TYPE', `bit_xor() needs an int64 argument; '${arg.text}' is ${arg.type}`);
    return { partials: [{ kind: 'hll', arg: arg.expr }], type: 'int64' };
  },
  finalise(e, g) {
    const s = g.states[e.partials[0]!] as HllState;
    if (s === null) return null;
    if (s.t !== 'set') {
      throw new CanopyError('CANOPY_ERR_LIMIT', `bit_xor(DISTINCT ...): a group holds more than ${HLL_EXACT_LIMIT.toLocaleString('en-US')} distinct values, past which canopy keeps a HyperLogLog sketch and no values; narrow the groups or the WHERE clause`);
    }
    let x = 0n;
    for (const v of s.values) x ^= BigInt(v as number | bigint);
    return BigInt.asIntN(64, x);
  },
  bounds(e, _g, layout, env) {
    if (!anyMissing(env)) return null;
    const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
    if (col !== null && !env.unknown && (env.nonNull.get(col) ?? 1) === 0) return null;
    return { label: 'approximate', lo: null, hi: null };
  },
  sketch: false,
  topk: null,
};

export const bitAndAggregate = bitsAggregate('and');
export const bitOrAggregate = bitsAggregate('or');
export const bitXorAggregate = bitsAggregate('xor');

/** The fold per group: a bigint or null (no value yet) per group, in a plain array. */
function bitsAccumulator(op: BitsOp): Accumulator {
  const states: BitsState[] = [];
  const add = (g: number, x: bigint): void => {
    const s = states[g] ?? null;
    states[g] = s === null ? x : bitsApply(op, s, x);
  };
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      if (v.t === 'str') return;
      if (v.t === 'const') {
        if (typeof v.value !== 'bigint' && typeof v.value !== 'number') return;
        const x = BigInt(v.value);
        for (let j = 0; j < n; j++) add(groupAt(gids, j), x);
        return;
      }
      for (let j = 0; j < n; j++) {
        const i = rowAt(sel, j);
        if (!isValid(v.valid, i)) continue;
        add(groupAt(gids, j), v.t === 'big' ? v.values[i]! : BigInt(v.values[i]!));
      }
    },
    state: (g) => states[g] ?? null,
  };
}

function bitsPartial(op: BitsOp): PartialDef {
  return { kind: `bit_${op}`, inputs: (spec) => (spec.arg === null ? [] : [spec.arg]), accumulator: () => bitsAccumulator(op), groupBytes: 32 };
}

export const bitAndPartial = bitsPartial('and');
export const bitOrPartial = bitsPartial('or');
export const bitXorPartial = bitsPartial('xor');
