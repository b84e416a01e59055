/**
 * approx_quantile(x, q) (DuckDB's quantile_disc rank): one `ddsketch` partial per argument
 * (src/merge/kinds/ddsketch.ts; every q shares it), float64 (timestamp for a timestamp
 * argument). median and the exact quantiles: exact-quantile.ts. Bounded by DDSketch's relative accuracy; k missing rows move the
 * quantile's rank by at most k, so the complete answer lies between the seen quantile and
 * the missing shards' extremes.
 */
import { CanopyError } from '../errors.ts';
import { BucketKeys, QuantileAccumulator, quantileEstimate, type QuantileEstimate, type QuantileState } from '../kinds/ddsketch.ts';
import { wholeMicros } from '../time.ts';
import type { ColumnType } from '../types.ts';
import { isValid, scalarAt } from '../vectors.ts';
import type { AggExpr, Accumulator, AggregateDef, PartialDef } from './aggregate.ts';
import { argColumn } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';

/** approx_quantile(x, q): quantile_disc at the OutExpr's `q`. */
export const quantileAggregate: AggregateDef = sketchQuantile('quantile', 'approx_quantile', (s, e) => quantileEstimate(s, e.q ?? 0.5));

/** A quantile aggregate read from the `ddsketch` partial by `estimate`. */
function sketchQuantile(fn: 'quantile', name: string, estimate: (s: QuantileState | null, e: AggExpr) => QuantileEstimate | null): AggregateDef {
  return {
    fn,
    decompose(args) {
      const arg = args[0];
      if (arg === undefined) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${name}() takes a column`);
      if (arg.type !== 'int64' && arg.type !== 'float64' && arg.type !== 'timestamp') {
        throw new CanopyError('CANOPY_ERR_TYPE', `${name}() needs an int64, float64 or timestamp column; '${arg.text}' is ${arg.type}`);
      }
      return { partials: [{ kind: 'ddsketch', arg: arg.expr }], type: arg.type === 'timestamp' ? 'timestamp' : 'float64' };
    },
    finalise(e, g) {
      const v = estimate(g.states[e.partials[0]!] as QuantileState | null, e)?.value ?? null;
      // A timestamp's estimate (a bucket's middle) as whole µs.
      return v !== null && e.type === 'timestamp' ? wholeMicros(v) : v;
    },
    bounds(e, g, layout, env) {
      const p = e.partials[0]!;
      const arg = layout.plan.partials[p]!.arg;
      const col = argColumn(arg);
      const est = estimate(g.states[p] as QuantileState | null, e);
      const missing = env !== null && env.rows > 0 && arg !== null && (env.unknown || col === null || (env.nonNull.get(col) ?? 0) > 0);
      if (!missing) return est === null || est.exact ? null : { label: 'bounded', lo: est.lo, hi: est.hi };
      const mn = col === null ? undefined : env.min.get(col);
      const mx = col === null ? undefined : env.max.get(col);
      if (env.unknown || typeof mn !== 'number' || typeof mx !== 'number' || Number.isNaN(mn) || Number.isNaN(mx)) return { label: 'approximate', lo: null, hi: null };
      if (est === null) return { label: 'approximate', lo: mn, hi: mx };
      if (Number.isNaN(est.lo) || Number.isNaN(est.hi)) return { label: 'approximate', lo: null, hi: null };
      return { label: 'bounded', lo: Math.min(est.lo, mn), hi: Math.max(est.hi, mx) };
    },
    sketch: true,
    topk: null,
  };
}

/** approx_quantile at the leaf: one DDSketch accumulator per group, sharing one memo of bucket keys. */
function quantileAccumulator(type: ColumnType): Accumulator {
  const accs: (QuantileAccumulator | undefined)[] = [];
  const keys = new BucketKeys(type);
  const acc = (g: number): QuantileAccumulator => {
    let a = accs[g];
    if (a === undefined) {
      a = new QuantileAccumulator(type, keys);
      accs[g] = a;
    }
    return a;
  };
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      if (v.t === 'num') {
        const vals = v.values;
        for (let j = 0; j < n; j++) {
          const i = rowAt(sel, j);
          if (isValid(v.valid, i)) acc(groupAt(gids, j)).add(vals[i]!);
        }
        return;
      }
      for (let j = 0; j < n; j++) {
        const s = scalarAt(v, type, rowAt(sel, j));
        if (s !== null) acc(groupAt(gids, j)).add(Number(s));
      }
    },
    state: (g) => accs[g]?.state() ?? null,
  };
}

export const ddsketchPartial: PartialDef = {
  kind: 'ddsketch',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: (_spec, argType) => quantileAccumulator(argType ?? 'float64'),
  groupBytes: 256,
};
