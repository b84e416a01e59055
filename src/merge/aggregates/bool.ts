/**
 * bool_and(c) / bool_or(c) over a predicate, and count_if(c), decomposed into COUNT(*)
 * partials with FILTERs, so they merge exactly and bound from counts:
 * - nn = count(*) FILTER (WHERE c IS NOT NULL), the rows where c is not NULL: NULL when 0 (as SQL);
 * - bool_and: nf = count(*) FILTER (WHERE NOT c); the answer is nf = 0;
 * - bool_or: nt = count(*) FILTER (WHERE c); the answer is nt > 0;
 * - count_if(c) = count(*) FILTER (WHERE c), bounded as COUNT; NULL when nn = 0 (no row with a
 *   non-NULL c, no rows included), and typed int128, as DuckDB 1.5 answers (HUGEINT).
 * With missing shards a seen false (bool_and) or true (bool_or) is final (exact); else the
 * cell is bounded by {false, true}, sent as lo = false, hi = true; a value still NULL is
 * approximate (it may stay NULL).
 */
import type { Expr } from '../types.ts';
import type { AggregateDef } from './aggregate.ts';
import { countAggregate } from './count.ts';
import { anyMissing } from './envelope.ts';
import { CanopyError } from '../errors.ts';

function predicateArg(fn: string, args: readonly { readonly expr: Expr; readonly type: string }[]): Expr {
  const a = args[0];
  if (a === undefined || args.length !== 1) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes one boolean condition`);
  if (a.type !== 'bool') throw new CanopyError('CANOPY_ERR_TYPE', `${fn}() needs a boolean condition (e.g. delay > 15), not ${a.type}`);
  return a.expr;
}

function boolAggregate(fn: 'bool_and' | 'bool_or'): AggregateDef {
  const isAnd = fn === 'bool_and';
  const counts = (e: { partials: readonly number[] }, g: { states: readonly unknown[] }): [number, number] => [Number(g.states[e.partials[0]!] ?? 0), Number(g.states[e.partials[1]!] ?? 0)];
  const def: AggregateDef = {
    fn,
    call: { names: [fn], args: ['condition'] },
    decompose(args) {
      const c = predicateArg(fn, args);
      return {
        partials: [
          // The rows where c is not NULL (`c IS NOT NULL`: c evaluated once per batch).
          { kind: 'count_star', arg: null, filter: { kind: 'isnull', arg: c, negated: true } },
          { kind: 'count_star', arg: null, filter: isAnd ? { kind: 'not', arg: c } : c },
        ],
        type: 'bool',
      };
    },
    finalise(e, g) {
      const [nn, decisive] = counts(e, g);
      return nn === 0 ? null : isAnd ? decisive === 0 : decisive > 0;
    },
    bounds(e, g, _layout, env) {
      if (!anyMissing(env)) return null;
      const [nn, decisive] = counts(e, g);
      if (decisive > 0) return null;
      return nn === 0 ? { label: 'approximate', lo: null, hi: null } : { label: 'bounded', lo: false, hi: true };
    },
    sketch: false,
    topk: null,
  };
  return def;
}

export const boolAndAggregate = boolAggregate('bool_and');
export const boolOrAggregate = boolAggregate('bool_or');

export const countIfAggregate: AggregateDef = {
  ...countAggregate,
  fn: 'count_if',
  call: { names: ['count_if', 'countif'], args: ['condition'] },
  decompose(args) {
    const c = predicateArg('count_if', args);
    return {
      partials: [
        { kind: 'count_star', arg: null, filter: c },
        { kind: 'count_star', arg: null, filter: { kind: 'isnull', arg: c, negated: true } },
      ],
      // HUGEINT in DuckDB.
      type: 'int128',
    };
  },
  finalise(e, g, layout) {
    // NULL where no row had a non-NULL condition (no rows included), as DuckDB.
    if (Number(g.states[e.partials[1]!] ?? 0) === 0) return null;
    return countAggregate.finalise(e, g, layout);
  },
  bounds(e, g, layout, env) {
    if (!anyMissing(env)) return null;
    // Still NULL: the missing rows may make it a count (or leave it NULL).
    if (Number(g.states[e.partials[1]!] ?? 0) === 0) return { label: 'approximate', lo: null, hi: null };
    return countAggregate.bounds(e, g, layout, env);
  },
  // A NULL (no non-NULL condition) sorts apart from 0 although both score 0: no per-node truncation.
  topk: null,
};
