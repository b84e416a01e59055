import type { ColumnType } from '../types.ts';
import type { StateKind } from './kind.ts';

/**
 * The state of VAR/STDDEV: count, mean and M2 (sum of squared deviations from the mean) of
 * the non-NULL values as doubles, or null when none. Merged with the parallel update of
 * Chan, Golub and LeVeque ("Updating formulae and a pairwise algorithm for computing sample
 * variances", Stanford CS tech. report STAN-CS-79-773, 1979):
 * n = na + nb, δ = mean_b − mean_a, mean = mean_a + δ·nb/n, M2 = M2a + M2b + δ²·na·nb/n.
 * Doubles: the last digits may depend on the shard split and merge order (1e-12 relative on
 * well-conditioned data), as in every engine that computes these in floating point.
 */
export interface VarianceState {
  readonly n: number;
  readonly mean: number;
  readonly m2: number;
}

/** Chan et al.'s combine of two states (pure). */
export function varianceMerge(a: VarianceState | null, b: VarianceState | null): VarianceState | null {
  if (a === null) return b;
  if (b === null) return a;
  const n = a.n + b.n;
  const delta = b.mean - a.mean;
  return { n, mean: a.mean + (delta * b.n) / n, m2: a.m2 + b.m2 + (delta * delta * a.n * b.n) / n };
}

/** The `variance` kind, encoded as 24 little-endian bytes (n, mean, M2 as float64). */
export function varianceKind(argType: ColumnType): StateKind<VarianceState | null> {
  return {
    kind: 'variance',
    argType,
    encoding: 'binary',
    empty: () => null,
    merge: varianceMerge,
    finalise: () => null,
    encode(s) {
      if (s === null) return null;
      const out = new Uint8Array(24);
      const dv = new DataView(out.buffer);
      dv.setFloat64(0, s.n, true);
      dv.setFloat64(8, s.mean, true);
      dv.setFloat64(16, s.m2, true);
      return out;
    },
    decode(v) {
      if (v === null) return null;
      if (!(v instanceof Uint8Array) || v.length !== 24) throw new Error('bad variance state: expected 24 bytes');
      const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
      const n = dv.getFloat64(0, true);
      if (!Number.isInteger(n) || n < 1) throw new Error(`bad variance state count ${n}`);
      return { n, mean: dv.getFloat64(8, true), m2: dv.getFloat64(16, true) };
    },
    equals: (a, b) => (a === null || b === null ? a === b : a.n === b.n && Object.is(a.mean, b.mean) && Object.is(a.m2, b.m2)),
  };
}
