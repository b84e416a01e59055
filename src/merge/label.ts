/**
 * Answer and cell labels, from strongest to weakest, defined once for every tier.
 * - `exact`: equals the complete answer;
 * - `bounded`: the complete answer lies in a guaranteed interval;
 * - `approximate`: an estimate (with its stated error, or none).
 */
export type CellLabel = 'exact' | 'bounded' | 'approximate';

/** Strength order of labels: 0 exact, 1 bounded, 2 approximate. */
export const LABEL_RANK: Readonly<Record<CellLabel, number>> = Object.freeze({ exact: 0, bounded: 1, approximate: 2 });

/** The weaker of two labels (`approximate` beats `bounded` beats `exact`). */
export function weakest(a: CellLabel, b: CellLabel): CellLabel {
  return LABEL_RANK[a] >= LABEL_RANK[b] ? a : b;
}
