/**
 * CPU slices of one process: a scheduler for the long, sliced work of heavy queries (a scan
 * of many group keys, a merge of 300k groups, the decode of a large child frame), so that the
 * event loop stays responsive to light queries (a probe's `count(*)`) that share the process.
 *
 * Work that has used up its slice calls {@link SliceTask.turn} and continues when granted.
 * The scheduler grants **one turn per event-loop iteration** (one `setImmediate` each), so
 * between two heavy slices the loop always polls I/O and runs whatever light requests
 * arrived; without it, N heavy tasks each yielding with their own `setImmediate` all run in
 * the same check phase, and an iteration lasts N slices (20 gathers x 8 ms at an aggregator
 * process was 160 ms per iteration, and a probe needs several iterations per hop).
 *
 * Among waiting turns, the one whose query has been granted the fewest turns on this process
 * goes first, by levels (a multilevel feedback queue, as in Presto's `MultilevelSplitQueue`,
 * with turns granted as the measure of work instead of scheduled time): a query that just
 * arrived, or only ever needs a few turns, is served before one that has run for seconds.
 * Every {@link AGING_EVERY}-th grant goes to the oldest waiter whatever its level, so heavy
 * queries are never starved by a stream of light ones: they keep at least 1/AGING_EVERY of
 * the turns while anything waits.
 */

/** Longest stretch of work (ms) sliced work runs between two turns. */
export const SLICE_MS = 8;

/** Turns granted to a query on this process from which it enters each next level (0, 1, 2, 3). */
export const LEVEL_TURNS: readonly number[] = [0, 4, 32, 256];

/** One grant in this many goes to the oldest waiter, whatever its level (no starvation). */
export const AGING_EVERY = 4;

/** The event-loop hooks of a scheduler (the real loop's by default; tests drive them by hand). */
export interface SliceLoop {
  /** Runs `fn` on a later event-loop iteration, after I/O has been polled (default `setImmediate`). */
  readonly defer: (fn: () => void) => void;
}

const REAL_LOOP: SliceLoop = { defer: (fn) => void setImmediate(fn) };

interface QueryTurns {
  /** Turns granted to the query on this process. */
  granted: number;
  /** Live tasks of the query on this process (the entry goes with the last). */
  refs: number;
}

interface Waiter {
  readonly query: QueryTurns;
  readonly seq: number;
  readonly resolve: () => void;
}

/** Counts of a scheduler since it was created (for metrics and tests). */
export interface SliceCounters {
  /** Turns granted. */
  granted: number;
  /** Turns granted out of level order to the oldest waiter. */
  aged: number;
}

/** The level of a query that was granted `turns` turns: the last {@link LEVEL_TURNS} entry it reached. */
export function sliceLevel(turns: number): number {
  let level = 0;
  while (level + 1 < LEVEL_TURNS.length && turns >= LEVEL_TURNS[level + 1]!) level++;
  return level;
}

/**
 * The slice scheduler of one process, shared by its leaves, aggregators and root (injected,
 * like the process's work ledger). See the module comment.
 */
export class SliceScheduler {
  readonly counters: SliceCounters = { granted: 0, aged: 0 };
  readonly #loop: SliceLoop;
  readonly #queries = new Map<string, QueryTurns>();
  /** Waiters by level, each FIFO. */
  readonly #levels: Waiter[][] = LEVEL_TURNS.map(() => []);
  #seq = 0;
  #scheduled = false;

  /** @param loop where grants run (default: one `setImmediate` per grant) */
  constructor(loop: SliceLoop = REAL_LOOP) {
    this.#loop = loop;
  }

  /** Turns waiting now. */
  get waiting(): number {
    return this.#levels.reduce((n, l) => n + l.length, 0);
  }

  /**
   * The sliced work of query `queryId` at one node of this process (a scan, a gather).
   * `heavy`: the plan is estimated heavy (see the leaf's `isHeavyScan`): the query starts at
   * level 1 instead of 0, behind every query that has not shown itself heavy yet.
   * Call {@link SliceTask.end} when that work is over.
   */
  task(queryId: string, heavy = false): SliceTask {
    let q = this.#queries.get(queryId);
    if (q === undefined) {
      q = { granted: 0, refs: 0 };
      this.#queries.set(queryId, q);
    }
    if (heavy && q.granted < LEVEL_TURNS[1]!) q.granted = LEVEL_TURNS[1]!;
    q.refs++;
    return new SliceTask(this, queryId, q);
  }

  /** One turn for query `queryId` (a task of one turn): resolves when granted. */
  async once(queryId: string): Promise<void> {
    const task = this.task(queryId);
    try {
      await task.turn();
    } finally {
      task.end();
    }
  }

  /** @internal a task's turn: resolves when granted. */
  wait(q: QueryTurns): Promise<void> {
    return new Promise((resolve) => {
      this.#levels[sliceLevel(q.granted)]!.push({ query: q, seq: this.#seq++, resolve });
      this.#schedule();
    });
  }

  /** @internal a task ended. */
  ended(queryId: string, q: QueryTurns): void {
    if (--q.refs === 0 && this.#queries.get(queryId) === q) this.#queries.delete(queryId);
  }

  #schedule(): void {
    if (this.#scheduled) return;
    this.#scheduled = true;
    this.#loop.defer(() => this.#grant());
  }

  /** Grants one turn (the next deferred call grants the next one). */
  #grant(): void {
    this.#scheduled = false;
    const w = this.#next();
    if (w === undefined) return;
    w.query.granted++;
    this.counters.granted++;
    if (this.waiting > 0) this.#schedule();
    w.resolve();
  }

  #next(): Waiter | undefined {
    const first = this.#levels.findIndex((l) => l.length > 0);
    if (first < 0) return undefined;
    if ((this.counters.granted + 1) % AGING_EVERY === 0) {
      // The oldest waiter of any level (each level is FIFO: the oldest is a head).
      let oldest = first;
      for (let i = first + 1; i < this.#levels.length; i++) {
        const head = this.#levels[i]![0];
        if (head !== undefined && head.seq < this.#levels[oldest]![0]!.seq) oldest = i;
      }
      if (oldest !== first) this.counters.aged++;
      return this.#levels[oldest]!.shift();
    }
    return this.#levels[first]!.shift();
  }
}

/**
 * The sliced work of one query at one node: {@link turn} between slices, {@link end} once.
 * A task of a query shares its turns count (its level) with the query's other tasks on the
 * process: ten aggregators merging for one heavy query all count against it.
 */
export class SliceTask {
  readonly #scheduler: SliceScheduler;
  readonly #queryId: string;
  readonly #query: QueryTurns;
  #ended = false;

  /** @internal made by {@link SliceScheduler.task}. */
  constructor(scheduler: SliceScheduler, queryId: string, query: QueryTurns) {
    this.#scheduler = scheduler;
    this.#queryId = queryId;
    this.#query = query;
  }

  /** Turns granted to this task's query on the process so far. */
  get granted(): number {
    return this.#query.granted;
  }

  /** Gives the event loop back and resolves when this query's next turn is granted. */
  turn(): Promise<void> {
    return this.#scheduler.wait(this.#query);
  }

  /** The work is over (later calls are no-ops). */
  end(): void {
    if (this.#ended) return;
    this.#ended = true;
    this.#scheduler.ended(this.#queryId, this.#query);
  }
}
