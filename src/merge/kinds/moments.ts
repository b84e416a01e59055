import type { StateKind } from './kind.ts';

/**
 * The state of a `moments` partial for one group: one sum (a number; 0 before anything is
 * added). With the spec's `pair`, the sum over the answered shards of the product of two
 * per-shard values (a shard's own finalised COUNT or SUM of the group, 0 where it lacks the
 * group, or its row count): the second-order sufficient statistics of the ratio estimator
 * (src/merge/estimate.ts). With its `power`, Σ v^exp over the group's rows. Merge adds. Plain
 * double sums: an estimate's digits past 1e-12 relative may depend on arrival order (they are
 * far inside its interval).
 */
export type MomentsState = number;

/**
 * The `moments` kind: a number per group, added, encoded as a float64 cell. Any double
 * decodes (a SUM over float64 with ±Infinity or NaN gives such sums: no estimate then); a
 * NULL cell (none is written) does not.
 */
export const MOMENTS_KIND: StateKind<MomentsState> = Object.freeze({
  kind: 'moments',
  argType: null,
  encoding: 'float64',
  empty: () => 0,
  merge: (a: MomentsState, b: MomentsState) => a + b,
  finalise: () => null,
  encode: (s: MomentsState) => s,
  decode(v: unknown): MomentsState {
    if (typeof v !== 'number') throw new Error(`bad moments state ${String(v)}`);
    return v;
  },
  equals: (a: MomentsState, b: MomentsState) => Object.is(a, b),
});
