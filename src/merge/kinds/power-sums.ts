import { float64RecordKind } from './float64-record.ts';
import type { StateKind } from './kind.ts';

/**
 * The state of skewness / kurtosis / kurtosis_pop over the non-NULL values as doubles, or
 * null when none: the count `n` and the power sums `s1` = Σx, `s2` = Σx², `s3` = Σx³,
 * `s4` = Σx⁴, exactly DuckDB's SkewState / KurtosisState (duckdb/duckdb v1.5.5,
 * extension/core_functions/aggregate/distributive/{skew,kurtosis}.cpp), so the finalisation
 * is DuckDB's own formula; plus what proves those sums exact: `maxAbs` = max |x| and `grain`,
 * the largest of 1, 2⁻², 2⁻⁴, 2⁻⁸, 2⁻¹⁶ of which every value is a multiple (0: none, or a
 * value is NaN or infinite). With a grain g and n·(maxAbs/g)⁴ < 2⁵³ every power and every
 * partial sum is an exact double, so the sums (and the answer) do not depend on the order
 * in which rows and shards were added, in DuckDB or here.
 *
 * Power sums merge by addition (not Pébay's central-moment update, which would give better
 * digits but not DuckDB's answer: DuckDB's formula cancels catastrophically when the mean is
 * large against the spread, and its NULL / NaN rules test those cancelled differences for 0).
 */
export interface PowerSumsState {
  readonly n: number;
  readonly s1: number;
  readonly s2: number;
  readonly s3: number;
  readonly s4: number;
  readonly maxAbs: number;
  readonly grain: number;
}

/** The grains tried, coarsest first (powers of two: x / g is exact). */
const GRAINS = [1, 2 ** -2, 2 ** -4, 2 ** -8, 2 ** -16] as const;

/** The largest grain of {@link GRAINS} of which `x` is a multiple, 0 when none (or `x` is not finite). */
export function grainOf(x: number): number {
  if (!Number.isFinite(x)) return 0;
  for (const g of GRAINS) if (Number.isInteger(x / g)) return g;
  return 0;
}

/** True when every power sum of `s` is exact (see {@link PowerSumsState}). */
export function powerSumsExact(s: PowerSumsState): boolean {
  if (s.grain === 0) return false;
  const units = s.maxAbs / s.grain;
  return s.n * units * units * units * units < 2 ** 53;
}

/** Adds two states (pure). */
export function powerSumsMerge(a: PowerSumsState | null, b: PowerSumsState | null): PowerSumsState | null {
  if (a === null) return b;
  if (b === null) return a;
  return {
    n: a.n + b.n,
    s1: a.s1 + b.s1,
    s2: a.s2 + b.s2,
    s3: a.s3 + b.s3,
    s4: a.s4 + b.s4,
    maxAbs: Number.isNaN(a.maxAbs) || Number.isNaN(b.maxAbs) ? NaN : Math.max(a.maxAbs, b.maxAbs),
    grain: Math.min(a.grain, b.grain),
  };
}

/** The `power_sums` kind, encoded as 56 little-endian bytes (n, s1..s4, maxAbs, grain as float64). */
export const POWER_SUMS_KIND: StateKind<PowerSumsState | null> = float64RecordKind<keyof PowerSumsState, PowerSumsState>('power_sums', ['n', 's1', 's2', 's3', 's4', 'maxAbs', 'grain'], powerSumsMerge, (s) =>
  s.grain !== 0 && !(GRAINS as readonly number[]).includes(s.grain) ? `grain ${s.grain}` : null,
);
