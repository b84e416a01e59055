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

/**
 * What is left of a budget of `budgetMs` after `elapsedMs` (may be negative: overrun). The
 * root's budget for its gathers, a replica set's for a retry or hedge, all in ms.
 */
export function remainingMs(budgetMs: number, elapsedMs: number): number {
  return budgetMs - elapsedMs;
}

/** The budget a node passes to its children: its own less its reserve, ms (≤ 0: no time left to ask). */
export function childBudgetMs(budgetMs: number, reserveMs: number): number {
  return budgetMs - reserveMs;
}

/** How long a leaf scans before it answers with what it has: its budget less the default reserve, never negative, ms. */
export function leafScanMs(budgetMs: number): number {
  return Math.max(0, budgetMs - defaultReserveMs(budgetMs));
}

/**
 * The budget a node runs a request with, counted from when the request arrived rather than
 * from when its handler got to run: the budget received less the time since arrival (body
 * read and parsed behind other work on a busy event loop) and less `transitMs`, the time it
 * spent on the way (socket buffers of a busy receiver), when the caller can measure it. Both
 * are clamped at 0 (a clock behind never adds time); never negative, ms.
 * @param budgetMs the budget the sender gave, ms
 * @param sinceArrivalMs time since the request arrived, on the receiver's clock, ms
 * @param transitMs time from sending to arrival (same clock on both sides only), ms
 */
export function arrivalBudgetMs(budgetMs: number, sinceArrivalMs: number, transitMs = 0): number {
  return Math.max(0, budgetMs - Math.max(0, sinceArrivalMs) - Math.max(0, transitMs));
}

/** A query's deadline after `waitedMs` in an admission queue, ms: never below 1 (the query was admitted, so it runs). */
export function admittedMs(deadlineMs: number, waitedMs: number): number {
  return Math.max(1, deadlineMs - waitedMs);
}

/** The budget header's value for `budgetMs`: whole ms, never negative (the child's clock starts on receipt). */
export function budgetHeaderValue(budgetMs: number): string {
  return String(Math.max(0, Math.floor(budgetMs)));
}
