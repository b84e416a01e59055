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

/**
 * Reserve in ms for a node whose event loop runs late or that holds much to merge: the
 * default reserve, plus twice the recent event-loop lag (the request waited for the loop
 * once on the way in, the reply waits once on the way out), plus the estimated time to merge
 * and encode what is held. Never more than half the budget, so a late loop cannot turn
 * every child's budget into nothing.
 * @param budgetMs the remaining budget received, ms
 * @param lagMs recent event-loop lag of this process (e.g. its max over the last second), ms
 * @param workMs estimated time of the node's own merge and reply, ms
 */
export function adaptiveReserveMs(budgetMs: number, lagMs: number, workMs = 0): number {
  const r = defaultReserveMs(budgetMs) + 2 * Math.max(0, lagMs) + Math.max(0, workMs);
  return Math.min(r, budgetMs * 0.5);
}
