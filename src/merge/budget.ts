/** Deadline budgets (pure). */

/**
 * Reserve in ms a node keeps back from its remaining budget for its own merge and reply:
 * 10% of the budget, at least 5 ms and at most 100 ms. Each hop takes its reserve from what
 * is left, so deeper trees give leaves less time; the margin lets a busy parent still take
 * a child's answer that came in just before the child's own deadline.
 */
export function defaultReserveMs(budgetMs: number): number {
  return Math.min(100, Math.max(5, budgetMs * 0.1));
}
