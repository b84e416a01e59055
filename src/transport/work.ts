/**
 * Per-query work of one process (in the spirit of ClickHouse's `system.processes`): for each
 * query a node of the process worked on, when it started, its own deadline, when it last did
 * work (a batch scanned, an operand of a chain evaluated, a block of groups merged) and how
 * many units. Served on `GET /v1/work` of every node of the process, so that "work for a query
 * stops at its deadline" is measured by the query's own work, not by the process's CPU
 * (which other queries share).
 */

/** One query's work at one process. Times are wall-clock ms (Date.now()): comparable between processes of one machine. */
export interface QueryWorkEntry {
  readonly queryId: string;
  /** The node that worked on it (the first one, when several nodes of the process did). */
  readonly node: string;
  readonly startedAt: number;
  /** The latest deadline a node of this process had for it. */
  deadlineAt: number;
  lastWorkAt: number;
  /** Work units: rows scanned or evaluated at leaves, groups merged at aggregators. */
  units: number;
}

/** Entries kept (oldest dropped first). */
export const QUERY_WORK_KEPT = 1024;

/** The ledger of one process, shared by its nodes (injected; never a module-level global). */
export class QueryWork {
  readonly #entries = new Map<string, QueryWorkEntry>();
  readonly #wallNow: () => number;

  /** @param wallNow wall clock in ms (default `Date.now`) */
  constructor(wallNow: () => number = Date.now) {
    this.#wallNow = wallNow;
  }

  /**
   * Starts (or joins) the account of `queryId` at `node`, whose deadline is `budgetMs` from now.
   * @returns `touch(units)`, to call as work is done (cheap: one clock read).
   */
  begin(queryId: string, node: string, budgetMs: number): (units: number) => void {
    const now = this.#wallNow();
    let e = this.#entries.get(queryId);
    if (e === undefined) {
      e = { queryId, node, startedAt: now, deadlineAt: now + budgetMs, lastWorkAt: now, units: 0 };
      this.#entries.set(queryId, e);
      if (this.#entries.size > QUERY_WORK_KEPT) this.#entries.delete(this.#entries.keys().next().value!);
    } else e.deadlineAt = Math.max(e.deadlineAt, now + budgetMs);
    const entry = e;
    return (units) => {
      entry.units += units;
      entry.lastWorkAt = this.#wallNow();
    };
  }

  /** The entries, oldest first, with the process's wall clock now. */
  snapshot(): { readonly now: number; readonly queries: readonly QueryWorkEntry[] } {
    return { now: this.#wallNow(), queries: [...this.#entries.values()].map((e) => ({ ...e })) };
  }
}
