/**
 * arg_min(arg, val) / arg_max(arg, val), also named min_by / max_by and argmin / argmax (DuckDB): the `arg` of
 * the row with the smallest (largest) `val`, over rows where both are non-NULL (DuckDB skips
 * a row whose `arg` is NULL too; arg_min_null keeps it: src/merge/aggregates/arg-null.ts). One `arg_min` / `arg_max`
 * partial holding (best val, its arg) (src/merge/kinds/argext.ts), which merges exactly.
 * Ties on `val` are resolved by the smallest `arg` in canopy's value order, so the answer
 * does not depend on the shard split (DuckDB keeps whichever row it meets first); when tied
 * rows hold different `arg`s the answer is order-dependent in DuckDB, and the cell is labelled
 * approximate (the state's `tie`). With missing shards the cell is exact when the catalog proves no missing row can reach the
 * best `val` (their min of `val` above it for arg_min, max below it for arg_max; a tie could
 * change the arg), or when the missing shards hold no non-NULL `val` or `arg`; else approximate.
 */
import { compareStrings, compareValues } from '../compare.ts';
import { CanopyError } from '../errors.ts';
import { argExtBetter, argExtMerge, type ArgExtState } from '../kinds/argext.ts';
import type { ColumnType, Scalar } from '../types.ts';
import { isValid, scalarAt } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { StableDictionary, groupAt, growU8, rowAt } from './grow.ts';

function argExtAggregate(fn: 'arg_min' | 'arg_max'): AggregateDef {
  const isMin = fn === 'arg_min';
  const def: AggregateDef = {
    fn,
    call: { names: [fn, isMin ? 'min_by' : 'max_by', isMin ? 'argmin' : 'argmax'], args: ['value', 'value'] },
    decompose(args) {
      const [arg, by] = args;
      if (arg === undefined || by === undefined || args.length !== 2) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes two arguments: (value returned, value ordered by)`);
      return { partials: [{ kind: fn, arg: arg.expr, by: by.expr, byType: by.type }], type: arg.type };
    },
    finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
    bounds(e, g, layout, env) {
      const approximate = { label: 'approximate', lo: null, hi: null } as const;
      if ((g.states[e.partials[0]!] as ArgExtState)?.tie === true) return approximate;
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
    // Uncertain with every shard answered (ties): HAVING and LIMIT cuts over it need exact cells.
    sketch: true,
    topk: null,
  };
  return def;
}

export const argMinAggregate = argExtAggregate('arg_min');
export const argMaxAggregate = argExtAggregate('arg_max');

/** Doubles in canopy's value order: NaN above every number and equal to itself; -0.0 = 0.0. */
function cmpNum(x: number, y: number): number {
  if (x < y) return -1;
  if (x > y) return 1;
  if (x === y) return 0;
  return x !== x ? (y !== y ? 0 : 1) : -1;
}

/** {@link cmpNum} with -0.0 before 0.0, for the tie-break on arguments. */
function cmpNumTotal(x: number, y: number): number {
  const c = cmpNum(x, y);
  if (c !== 0 || x !== 0) return c;
  return (1 / x < 0 ? -1 : 0) - (1 / y < 0 ? -1 : 0);
}

const NUMERIC: ReadonlySet<ColumnType> = new Set(['int64', 'float64', 'timestamp']);

/**
 * arg_min / arg_max at the leaf: per group the best ordering value and its argument. A
 * numeric ordering value with a numeric or dictionary-string argument (the common case)
 * takes a loop over the typed arrays (doubles; int64 within 2^53 is exact as a double;
 * string arguments as dictionary codes, tie-broken by their rank); other batches go through
 * scalars. The two are combined per group when the state is read.
 */
function argExtAccumulator(isMin: boolean, argType: ColumnType, byType: ColumnType): Accumulator {
  const bestV: (Exclude<Scalar, null> | undefined)[] = [];
  const bestA: (Exclude<Scalar, null> | undefined)[] = [];
  const fastV: number[] = [];
  const fastA: number[] = [];
  const bestTie: boolean[] = [];
  let fast: Uint8Array = new Uint8Array(16);
  // Per group: rows tied on the best value hold different arguments (codes or numbers; a
  // dictionary holding one string twice can only set it needlessly, never miss a tie).
  let fastTie: Uint8Array = new Uint8Array(16);
  const dict = new StableDictionary();
  let strings: readonly string[] | null = null;
  return {
    update(inputs, sel, gids, n, groups) {
      const av = inputs[0]!;
      const vv = inputs[1]!;
      if (vv.t === 'num' && NUMERIC.has(byType) && ((av.t === 'num' && NUMERIC.has(argType)) || av.t === 'str')) {
        fast = growU8(fast, groups);
        fastTie = growU8(fastTie, groups);
        const v = vv.values;
        const str = av.t === 'str';
        // String arguments as stable codes (StableDictionary), tie-broken by rank while one dictionary holds them all, else as strings.
        const map = str ? dict.adopt(av.strings) : null;
        if (str) strings = dict.strings;
        const a = str ? av.codes : av.values;
        const rank = str && !dict.mapped ? av.rank : null;
        const byString = str && dict.mapped;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (!isValid(vv.valid, i) || !isValid(av.valid, i)) continue;
          const g = groupAt(gids, j);
          const x = v[i]!;
          const y = map === null ? a[i]! : map[a[i]!]!;
          if (fast[g] === 0) {
            fast[g] = 1;
            fastTie[g] = 0;
            fastV[g] = x;
            fastA[g] = y;
            continue;
          }
          const c = cmpNum(x, fastV[g]!);
          if (c === 0 && !Object.is(y, fastA[g])) fastTie[g] = 1;
          else if (isMin ? c < 0 : c > 0) fastTie[g] = 0;
          if ((isMin ? c < 0 : c > 0) || (c === 0 && (byString ? compareStrings(strings![y]!, strings![fastA[g]!]!) < 0 : rank !== null ? rank[y]! < rank[fastA[g]!]! : cmpNumTotal(y, fastA[g]!) < 0))) {
            fastV[g] = x;
            fastA[g] = y;
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
        if (cv === undefined) bestTie[g] = false;
        else {
          const c = compareValues(x, cv);
          if (c === 0) bestTie[g] ||= typeof y !== typeof bestA[g] || !Object.is(y, bestA[g]);
          else if (isMin ? c < 0 : c > 0) bestTie[g] = false;
        }
        if (cv === undefined || argExtBetter(isMin, x, y, cv, bestA[g]!)) {
          bestV[g] = x;
          bestA[g] = y;
        }
      }
    },
    state(g): ArgExtState {
      const v = bestV[g];
      const slow: ArgExtState = v === undefined ? null : bestTie[g] === true ? { v, a: bestA[g]!, tie: true } : { v, a: bestA[g]! };
      if (fast[g] !== 1) return slow;
      const fv = byType === 'int64' ? BigInt(fastV[g]!) : fastV[g]!;
      const code = fastA[g]!;
      const fa = strings !== null && argType === 'string' ? strings[code]! : argType === 'int64' ? BigInt(code) : code;
      return argExtMerge(isMin, slow, fastTie[g] === 1 ? { v: fv, a: fa, tie: true } : { v: fv, a: fa });
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
