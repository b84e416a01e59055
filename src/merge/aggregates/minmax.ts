/**
 * MIN(x) / MAX(x) over any column type: one `min` / `max` partial (src/merge/kinds/minmax.ts).
 * A missing shard moves the extreme at most to its catalog min/max; when the catalog proves
 * it cannot beat the value seen, the cell stays exact.
 */
import { compareSql, compareStrings, compareValues } from '../compare.ts';
import { CanopyError } from '../errors.ts';
import type { Scalar } from '../types.ts';
import { isValid, scalarAt } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, argColumn } from './envelope.ts';
import { SMALL_SLOTS, StableDictionary, grow, growU8, groupAt, rowAt } from './grow.ts';
import { betterMax, betterMin, kExtreme, kExtremeCode, kExtremeStats, wholeBatchStats } from './kernels.ts';

function extremeAggregate(fn: 'min' | 'max'): AggregateDef {
  const isMin = fn === 'min';
  const def: AggregateDef = {
    fn,
    decompose(args) {
      const arg = args[0];
      if (arg === undefined) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}() takes one argument`);
      return { partials: [{ kind: fn, arg: arg.expr }], type: arg.type };
    },
    finalise: (e, g, layout) => asArgType(e.type, layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!])),
    bounds(e, g, layout, env) {
      if (!anyMissing(env)) return null;
      const col = argColumn(layout.plan.partials[e.partials[0]!]!.arg);
      if (col !== null && (env.nonNull.get(col) ?? 1) === 0) return null;
      const ext = col === null ? undefined : isMin ? env.min.get(col) : env.max.get(col);
      if (col === null || ext === undefined || env.unknown) return { label: 'approximate', lo: null, hi: null };
      const isInt = e.type === 'int64' || e.type === 'int128';
      const extV: Scalar = isInt && typeof ext === 'number' ? BigInt(isMin ? Math.floor(ext) : Math.ceil(ext)) : asArgType(e.type, ext);
      const value = def.finalise(e, g, layout);
      if (value === null) {
        const other = isMin ? env.max.get(col) : env.min.get(col);
        return { label: 'approximate', lo: isMin ? extV : (other ?? null), hi: isMin ? (other ?? null) : extV };
      }
      // The catalog proves the missing shards cannot beat the seen extreme: exact.
      if ((isMin ? compareSql('<=', value, extV) === true : compareSql('>=', value, extV) === true) && !zeroMayWin(isMin, value, extV)) return null;
      return isMin ? { label: 'bounded', lo: extV, hi: value } : { label: 'bounded', lo: value, hi: extV };
    },
    sketch: false,
    // Scores are numbers: MIN/MAX over strings are not truncated (planTopK checks the type).
    topk: (desc) => (desc === !isMin ? { sign: isMin ? -1 : 1, combine: 'max' } : null),
  };
  return def;
}

/**
 * A MIN / MAX / any_value state (or a catalog extreme) as a value of the aggregate's type: a
 * BOOLEAN argument (a condition such as `j > 0`, `s LIKE 'a%'`) is scanned as 0 / 1 doubles,
 * so its extreme is given back as false / true (DuckDB orders false before true, as 0 before
 * 1). Other types unchanged.
 */
export function asArgType(type: string, v: Scalar): Scalar {
  return type === 'bool' && typeof v === 'number' ? v !== 0 : v;
}

/**
 * True when a MIN (`isMin`) or MAX of doubles at `seen`, tied with a shard's catalog extreme
 * `other` at zero, may still change sign: MIN keeps -0.0 over 0.0 and MAX 0.0 over -0.0
 * (README, SQL), and a zone map's ±0 does not say whether the shard holds the other zero, so
 * only a seen -0.0 (MIN) or 0.0 (MAX) is settled at the tie.
 */
export function zeroMayWin(isMin: boolean, seen: Scalar, other: Scalar): boolean {
  return typeof seen === 'number' && seen === 0 && other === 0 && !Object.is(seen, isMin ? -0 : 0);
}

export const minAggregate = extremeAggregate('min');
export const maxAggregate = extremeAggregate('max');

/** The string extremes' codes before any string batch. */
const NO_BEST = new Int32Array(0);

/** MIN/MAX at the leaf: doubles, dictionary codes by rank, or bigints beyond 2^53 (int64 and int128 states are bigints). */
function extremeAccumulator(isMin: boolean, type: string): Accumulator {
  let m: Float64Array = new Float64Array(SMALL_SLOTS);
  let has: Uint8Array = new Uint8Array(16);
  const big: (bigint | undefined)[] = [];
  const konst: (Exclude<Scalar, null> | undefined)[] = [];
  // String state, made on the first string batch (most accumulators are of numbers).
  let best = NO_BEST;
  let dict: StableDictionary | null = null;
  let strings: readonly string[] = [];
  return {
    update(inputs, sel, gids, n, groups) {
      const v = inputs[0]!;
      if (v.t === 'num') {
        m = grow(m, groups);
        has = growU8(has, groups);
        const stats = wholeBatchStats(v, sel, gids, n);
        if (stats !== null) kExtremeStats(m, has, stats, isMin);
        else kExtreme(m, has, v.values, sel, gids, n, v.valid, isMin);
      } else if (v.t === 'str') {
        if (best.length < groups) {
          const b = new Int32Array(Math.max(groups, best.length * 2)).fill(-1);
          b.set(best);
          best = b;
        }
        dict ??= new StableDictionary();
        const map = dict.adopt(v.strings);
        strings = dict.strings;
        if (!dict.mapped) kExtremeCode(best, v.codes, v.rank, sel, gids, n, v.valid, isMin);
        else {
          // Batches with dictionaries of their own: stable codes, compared as strings.
          const codes = v.codes;
          for (let j = 0; j < n; j++) {
            const i = rowAt(sel, j);
            if (!isValid(v.valid, i)) continue;
            const g = groupAt(gids, j);
            const c = map === null ? codes[i]! : map[codes[i]!]!;
            const cur = best[g]!;
            if (cur < 0 || (isMin ? compareStrings(strings[c]!, strings[cur]!) < 0 : compareStrings(strings[c]!, strings[cur]!) > 0)) best[g] = c;
          }
        }
      } else if (v.t === 'const') {
        // A literal argument (MIN(33.3), MAX('hello')): one value on every row.
        const c = v.value;
        if (c === null || n === 0) return;
        for (let j = 0; j < n; j++) {
          const g = groupAt(gids, j);
          const cur = konst[g];
          if (cur === undefined || (isMin ? compareValues(c, cur) < 0 : compareValues(c, cur) > 0)) konst[g] = c;
        }
      } else {
        for (let j = 0; j < n; j++) {
          const s = scalarAt(v, 'int64', rowAt(sel, j));
          if (typeof s !== 'bigint') continue;
          const g = groupAt(gids, j);
          const cur = big[g];
          if (cur === undefined || (isMin ? s < cur : s > cur)) big[g] = s;
        }
      }
    },
    // Number columns (int64 within 2^53 as doubles, float64, timestamp): the fused group loop's batch extremes.
    ...(type === 'string'
      ? {}
      : {
          extremeIsMin: isMin,
          addGroupExtreme(ext: Float64Array, rows: Float64Array, groups: number): void {
            m = grow(m, groups);
            has = growU8(has, groups);
            for (let g = 0; g < groups; g++) {
              if (rows[g] === 0) continue;
              const x = ext[g]!;
              if (has[g] === 0 || (isMin ? betterMin(x, m[g]!) : betterMax(x, m[g]!))) {
                m[g] = x;
                has[g] = 1;
              }
            }
          },
        }),
    state(g) {
      const seen = columnState(g);
      const k = konst[g];
      if (k === undefined) return seen;
      if (seen === null) return k;
      return (isMin ? compareValues(k, seen) < 0 : compareValues(k, seen) > 0) ? k : seen;
    },
  };

  /** The extreme of the group's column values (all but the literal ones). */
  function columnState(g: number): Scalar {
    if (type === 'string') return best[g] !== undefined && best[g]! >= 0 ? strings[best[g]!]! : null;
    const b = big[g];
    // int64 and int128 (HUGEINT) alike: doubles within 2^53, bigints beyond.
    if (type !== 'int64' && type !== 'int128') return has[g] === 1 ? m[g]! : null;
    const f = has[g] === 1 ? BigInt(m[g]!) : undefined;
    if (f === undefined) return b ?? null;
    if (b === undefined) return f;
    return isMin ? (f < b ? f : b) : f > b ? f : b;
  }
}

function extremePartial(kind: 'min' | 'max'): PartialDef {
  return {
    kind,
    inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
    accumulator: (_spec, argType) => extremeAccumulator(kind === 'min', argType ?? 'float64'),
    groupBytes: 24,
  };
}

export const minPartial = extremePartial('min');
export const maxPartial = extremePartial('max');
