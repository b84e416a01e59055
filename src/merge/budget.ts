/** Deadline budgets (pure). */

/**
 * Reserve in ms a node keeps back from its remaining budget for its own merge and reply:
 * 5% of the budget, at least 2 ms and at most 50 ms. Each hop takes its reserve from what
 * is left, so deeper trees give leaves less time.
 */
export function defaultReserveMs(budgetMs: number): number {
  return Math.min(50, Math.max(2, budgetMs * 0.05));
}
