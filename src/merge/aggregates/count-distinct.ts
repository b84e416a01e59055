/**
 * COUNT(DISTINCT x) and approx_count_distinct(x): one `hll` partial (src/merge/kinds/hll/),
 * an exact set while small, then HyperLogLog; an int64. Exact while the state is a set;
 * missing shards add at most their non-NULL rows (for int64 also at most their value range)
 * distinct values.
 */
import { CanopyError } from '../errors.ts';
import { HLL_CONFIDENCE, HLL_EXACT_LIMIT, HLL_REGISTERS, canonicalDistinct, hashDistinct, hashDouble, hashInt, hashString, hllEstimate, hllFromRegisters, hllFromSet, registerAdd, type DistinctValue, type HllState } from '../kinds/hll/index.ts';
import type { ColumnType } from '../types.ts';
import { isValid, scalarAt } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { argColumn, type Envelope } from './envelope.ts';
import { StableDictionary, groupAt, growU8, rowAt } from './grow.ts';

/**
 * How many distinct non-NULL values of the argument the missing shards could add: 0 when
 * none, null when unknown (no statistics, or an expression).
 */
function addableDistinct(env: Envelope | null, col: string | null, isInt: boolean): number | null {
  if (env === null || env.rows === 0) return 0;
  if (env.unknown || col === null) return null;
  const nn = env.nonNull.get(col) ?? 0;
  const mn = env.min.get(col);
  const mx = env.max.get(col);
  if (isInt && typeof mn === 'number' && typeof mx === 'number') return Math.min(nn, mx - mn + 1);
  return nn;
}

export const countDistinctAggregate: AggregateDef = {
  fn: 'count_distinct',
  decompose(args) {
    const arg = args[0];
    if (arg === undefined) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'count(DISTINCT ...) takes one argument');
    return { partials: [{ kind: 'hll', arg: arg.expr }], type: 'int64' };
  },
  finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
  bounds(e, g, layout, env) {
    const p = e.partials[0]!;
    const est = hllEstimate(g.states[p] as HllState);
    const extra = addableDistinct(env, argColumn(layout.plan.partials[p]!.arg), layout.kinds[p]!.argType === 'int64');
    if (est.exact) {
      if (extra === 0) return null;
      // The seen values are exact; the missing shards add at most `extra` more.
      return extra === null ? { label: 'approximate', lo: BigInt(est.value), hi: null } : { label: 'bounded', lo: BigInt(est.value), hi: BigInt(est.value + extra) };
    }
    return { label: 'approximate', lo: BigInt(est.lo), hi: extra === null ? null : BigInt(est.hi + extra), stderr: est.stderr, confidence: HLL_CONFIDENCE };
  },
  sketch: true,
  topk: null,
};

/**
 * COUNT(DISTINCT) at the leaf: per group an exact set while it holds at most HLL_EXACT_LIMIT
 * values (dictionary codes for strings, canonical numbers otherwise), then dense HyperLogLog
 * registers. Each dictionary string is hashed once per code, when first needed; codes are
 * kept stable across batches whose dictionaries differ (StableDictionary).
 */
function distinctAccumulator(type: ColumnType): Accumulator {
  const sets: (Set<DistinctValue> | undefined)[] = [];
  const regs: (Uint8Array | undefined)[] = [];
  const out = new Uint32Array(2);
  const dict = new StableDictionary();
  /** Without GROUP BY: the batch's dictionary codes already added (cleared per batch). */
  let seen = new Uint8Array(0);
  let strings: readonly string[] | null = null;
  let codeHash = new Uint32Array(0);
  let codeHashed: Uint8Array = new Uint8Array(0);
  const hashCode = (code: number): void => {
    if (codeHashed[code] === 0) {
      hashString(strings![code]!, out);
      codeHash[2 * code] = out[0]!;
      codeHash[2 * code + 1] = out[1]!;
      codeHashed[code] = 1;
    }
  };
  const insert = (r: Uint8Array, v: DistinctValue): void => {
    if (type === 'string') {
      hashCode(v as number);
      registerAdd(r, codeHash[2 * (v as number)]!, codeHash[2 * (v as number) + 1]!);
      return;
    }
    if (typeof v === 'number') {
      if (type === 'int64') hashInt(v, out);
      else hashDouble(v, out);
    } else hashDistinct(type, v, out);
    registerAdd(r, out[0]!, out[1]!);
  };
  /** Takes a batch's dictionary (see StableDictionary.adopt), growing the per-code hashes to it. */
  const adopt = (batch: readonly string[]): Int32Array | null => {
    const map = dict.adopt(batch);
    strings = dict.strings;
    if (codeHashed.length < strings.length) {
      const h = new Uint32Array(2 * Math.max(strings.length, 2 * codeHashed.length));
      h.set(codeHash);
      codeHash = h;
      codeHashed = growU8(codeHashed, strings.length);
    }
    return map;
  };
  const add = (g: number, v: DistinctValue): void => {
    const r = regs[g];
    if (r !== undefined) {
      insert(r, v);
      return;
    }
    let s = sets[g];
    if (s === undefined) {
      s = new Set();
      sets[g] = s;
    }
    s.add(v);
    if (s.size > HLL_EXACT_LIMIT) {
      const fresh = new Uint8Array(HLL_REGISTERS);
      for (const x of s) insert(fresh, x);
      regs[g] = fresh;
      sets[g] = undefined;
    }
  };
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      if (type === 'string' && v.t === 'const') {
        // A constant string (count(DISTINCT 'hello')): a dictionary of one, so a state holds codes only.
        if (v.value === null) return;
        const map = adopt([String(v.value)]);
        for (let j = 0; j < n; j++) add(groupAt(gids, j), map === null ? 0 : map[0]!);
      } else if (v.t === 'str' && gids === null) {
        // One group: each of the batch's dictionary codes is added once, however many rows hold it.
        const map = adopt(v.strings);
        const codes = v.codes;
        if (seen.length < v.strings.length) seen = new Uint8Array(Math.max(v.strings.length, 2 * seen.length));
        else seen.fill(0, 0, v.strings.length);
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          const c = codes[i]!;
          if (seen[c] === 0 && isValid(v.valid, i)) {
            seen[c] = 1;
            add(0, map === null ? c : map[c]!);
          }
        }
      } else if (v.t === 'str') {
        const map = adopt(v.strings);
        const codes = v.codes;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (isValid(v.valid, i)) add(groupAt(gids, j), map === null ? codes[i]! : map[codes[i]!]!);
        }
      } else if (v.t === 'num') {
        const vals = v.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (!isValid(v.valid, i)) continue;
          const x = vals[i]!;
          add(groupAt(gids, j), x === 0 ? 0 : x);
        }
      } else {
        for (let j = 0; j < n; j++) {
          const s = scalarAt(v, type, rowAt(sel, j));
          if (s !== null) add(groupAt(gids, j), canonicalDistinct(s));
        }
      }
    },
    state(g) {
      const r = regs[g];
      if (r !== undefined) return hllFromRegisters(r);
      const s = sets[g];
      if (s === undefined) return null;
      if (type !== 'string') return hllFromSet(type, s);
      const values = new Set<DistinctValue>();
      for (const code of s) values.add(strings![code as number]!);
      return hllFromSet(type, values);
    },
  };
}

export const hllPartial: PartialDef = {
  kind: 'hll',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: (_spec, argType) => distinctAccumulator(argType ?? 'string'),
  groupBytes: 256,
};
