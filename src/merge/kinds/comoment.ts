import { float64RecordKind } from './float64-record.ts';
import type { StateKind } from './kind.ts';

/**
 * The state of the bivariate aggregates (covar_pop, covar_samp, corr, regr_*) over the rows
 * where both y and x are non-NULL, as doubles, or null when there is none: the count `n`,
 * the plain sums `sx`, `sy` (regr_avgx/avgy/intercept: DuckDB sums there, so an infinity
 * stays an infinity), the means `mx`, `my`, the second central moments `m2x` = Σ(x − x̄)²,
 * `m2y` = Σ(y − ȳ)² and the co-moment `cxy` = Σ(x − x̄)(y − ȳ).
 *
 * Merged with the pairwise update of Chan, Golub and LeVeque ("Updating formulae and a
 * pairwise algorithm for computing sample variances", STAN-CS-79-773, 1979) and its
 * bivariate form (P. Pébay, "Formulas for robust, one-pass parallel computation of
 * covariances and arbitrary-order statistical moments", Sandia SAND2008-6212, 2008, eq. 3.4;
 * E. Schubert and M. Gertz, SSDBM 2018, eq. 21, as DuckDB's CovarOperation::Combine):
 * n = na + nb, δx = x̄b − x̄a, δy = ȳb − ȳa, x̄ = x̄a + δx·nb/n, M2x = M2xa + M2xb + δx²·na·nb/n,
 * Cxy = Cxya + Cxyb + δx·δy·na·nb/n. Doubles: digits past 1e-12 relative (well-conditioned
 * data) may depend on the shard split and merge order, as in DuckDB's own parallel combine.
 */
export interface ComomentState {
  readonly n: number;
  readonly sx: number;
  readonly sy: number;
  readonly mx: number;
  readonly my: number;
  readonly m2x: number;
  readonly m2y: number;
  readonly cxy: number;
}

/** The pairwise combine of two states (pure; see {@link ComomentState}). */
export function comomentMerge(a: ComomentState | null, b: ComomentState | null): ComomentState | null {
  if (a === null) return b;
  if (b === null) return a;
  const n = a.n + b.n;
  const dx = b.mx - a.mx;
  const dy = b.my - a.my;
  const w = (a.n * b.n) / n;
  return {
    n,
    sx: a.sx + b.sx,
    sy: a.sy + b.sy,
    mx: a.mx + (dx * b.n) / n,
    my: a.my + (dy * b.n) / n,
    m2x: a.m2x + b.m2x + dx * dx * w,
    m2y: a.m2y + b.m2y + dy * dy * w,
    cxy: a.cxy + b.cxy + dx * dy * w,
  };
}

/** The `comoment` kind, encoded as 64 little-endian bytes (n, sx, sy, mx, my, m2x, m2y, cxy as float64). */
export const COMOMENT_KIND: StateKind<ComomentState | null> = float64RecordKind<keyof ComomentState, ComomentState>('comoment', ['n', 'sx', 'sy', 'mx', 'my', 'm2x', 'm2y', 'cxy'], comomentMerge);
