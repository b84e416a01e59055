/**
 * COUNT(*) and COUNT(x): one `count_star` or `count` partial (src/merge/kinds/count.ts),
 * an int64. Missing shards add at most their rows (non-NULL rows of a column).
 */
import type { ValueVec } from '../vectors.ts';
import type { Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { anyMissing, missingValues } from './envelope.ts';
import { SMALL_SLOTS, grow } from './grow.ts';
import { kCount, kCountPassing, wholeBatchStats } from './kernels.ts';

export const countAggregate: AggregateDef = {
  fn: 'count',
  decompose(args) {
    const arg = args[0];
    return { partials: [arg === undefined ? { kind: 'count_star', arg: null } : { kind: 'count', arg: arg.expr }], type: 'int64' };
  },
  finalise: (e, g, layout) => layout.kinds[e.partials[0]!]!.finalise(g.states[e.partials[0]!]),
  bounds(e, g, layout, env) {
    if (!anyMissing(env)) return null;
    const spec = layout.plan.partials[e.partials[0]!]!;
    const extra = spec.kind === 'count_star' ? env.rows : missingValues(env, spec.arg);
    if (extra === 0) return null;
    const value = countAggregate.finalise(e, g, layout) as bigint;
    return { label: 'bounded', lo: value, hi: value + BigInt(extra) };
  },
  sketch: false,
  topk: (desc) => (desc ? { sign: 1, combine: 'add' } : null),
};

/** COUNT(*) / COUNT(x) at the leaf: a double per group (exact to 2^53 rows). */
function countAccumulator(hasArg: boolean): PartialDef['accumulator'] {
  return () => {
    let cnt: Float64Array = new Float64Array(SMALL_SLOTS);
    const acc: { -readonly [K in keyof Accumulator]: Accumulator[K] } = {
      update(inputs: readonly ValueVec[], sel, gids, n, groups) {
        cnt = grow(cnt, groups);
        const v = hasArg ? inputs[0]! : null;
        // COUNT(NULL) counts nothing; COUNT of another constant counts every row.
        if (v !== null && v.t === 'const' && v.value === null) return;
        const stats = v !== null && v.t === 'num' ? wholeBatchStats(v, sel, gids, n) : null;
        if (stats !== null) {
          cnt[0]! += stats.count;
          return;
        }
        kCount(cnt, sel, gids, n, v === null || v.t === 'const' ? null : v.valid);
      },
      addRowCounts(rows, groups) {
        cnt = grow(cnt, groups);
        for (let g = 0; g < groups; g++) cnt[g]! += rows[g]!;
      },
      state: (g) => cnt[g] ?? 0,
      stateColumn(n) {
        const out = new Float64Array(n);
        out.set(cnt.subarray(0, Math.min(n, cnt.length)));
        return out;
      },
    };
    // COUNT(*) FILTER (WHERE c): adds the passing rows' count straight from the truth values.
    // Added to the object, not spread into a copy of it: the copy (`{ ...acc, updatePassing }`)
    // made V8 keep every scan's COUNT(*) state past two scavenges (promoted to the old generation).
    if (!hasArg)
      acc.updatePassing = (_inputs, pass, sel, gids, n, groups) => {
        cnt = grow(cnt, groups);
        kCountPassing(cnt, pass, sel, gids, n);
      };
    return acc;
  };
}

export const countStarPartial: PartialDef = { kind: 'count_star', inputs: () => [], accumulator: countAccumulator(false), groupBytes: 24 };
export const countPartial: PartialDef = { kind: 'count', inputs: (spec) => (spec.arg === null ? [] : [spec.arg]), accumulator: countAccumulator(true), groupBytes: 24 };

