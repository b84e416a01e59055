/**
 * Admission lanes for scans on one leaf process (in the spirit of Druid's query lanes):
 * scans whose plan is estimated heavy (a long filter, big IN lists, several group keys) run
 * at most `heavy` at a time on the process, and wait their turn within their deadline, while
 * light scans (a probe's `count(*)`) never wait: one hostile query cannot take every slice
 * of a host's event loop.
 */
import { CanopyError, type Expr, type ScanPlan } from '../merge/index.ts';
import type { PreparedShard } from './shard.ts';

/** Heavy scans running at once per process, by default. */
export const HEAVY_SCANS = 2;

/** Filter size (expression nodes, IN values count 1 per 64) from which a scan is heavy. */
const HEAVY_FILTER_NODES = 64;

function filterNodes(e: Expr): number {
  switch (e.kind) {
    case 'and':
    case 'or':
      return 1 + e.args.reduce((n, a) => n + filterNodes(a), 0);
    case 'not':
      return 1 + filterNodes(e.arg);
    case 'in':
      return 1 + Math.floor(e.values.length / 64);
    case 'cmp':
      return 1 + filterNodes(e.left) + filterNodes(e.right);
    case 'between':
      return 3;
    default:
      return 1;
  }
}

/** Estimated groups per shard from which a GROUP BY scan is heavy (its group state, encode and the parents' decode and merge grow with them). */
export const HEAVY_GROUPS = 8192;

/** Distinct values assumed for a group key that is an expression, not a column (`date_trunc('day', ts)`). */
const EXPR_KEY_DISTINCT = 1024;

/**
 * Upper estimate of the groups a plan makes on one shard, from what the shard knows without
 * scanning: per key column its dictionary size (strings), or its value range (integers and
 * timestamps: max - min + 1), else its rows; {@link EXPR_KEY_DISTINCT} for an expression key;
 * their product, at most the shard's rows.
 */
export function estimatedGroups(plan: ScanPlan, shard: PreparedShard): number {
  let groups = 1;
  for (const key of plan.groupBy) {
    let distinct = shard.rows;
    if (key.expr.kind !== 'col') distinct = EXPR_KEY_DISTINCT;
    else {
      const col = shard.columns.get(key.expr.name);
      const first = col?.batches[0];
      if (first?.t === 'str') distinct = first.strings.length + 1; // + NULL
      else if (col !== undefined && col.min !== null && col.max !== null && col.type !== 'float64') distinct = col.max - col.min + 2;
    }
    groups *= Math.max(1, distinct);
    if (groups >= shard.rows) return shard.rows;
  }
  return groups;
}

/**
 * True when a plan is estimated heavy: a filter of {@link HEAVY_FILTER_NODES} nodes or more,
 * three or more group keys (the key space multiplies), or, given the shards it scans, an
 * estimate of {@link HEAVY_GROUPS} groups or more on one of them ({@link estimatedGroups}:
 * `GROUP BY date, origin` is heavy, `GROUP BY origin` is not).
 */
export function isHeavyScan(plan: ScanPlan, shards: readonly PreparedShard[] = []): boolean {
  if ((plan.filter !== null && filterNodes(plan.filter) >= HEAVY_FILTER_NODES) || plan.groupBy.length >= 3) return true;
  return plan.rows === null && plan.groupBy.length > 0 && shards.some((s) => estimatedGroups(plan, s) >= HEAVY_GROUPS);
}

/** A heavy scan waiting for its lane. */
interface LaneWaiter {
  readonly go: () => void;
  /** Time (ms on the lanes' clock) past which the scan would start too late to be of use. */
  readonly deadlineAt: number;
  readonly expire: () => void;
}

/**
 * The lanes of one process: a counting semaphore for heavy scans with a FIFO queue, which
 * drops a waiter whose deadline has passed instead of starting it (it fails with
 * CANOPY_ERR_DEADLINE, so its shards are omitted with that reason).
 */
export class ScanLanes {
  readonly #max: number;
  readonly #now: () => number;
  #running = 0;
  readonly #waiting: LaneWaiter[] = [];

  /**
   * @param heavy heavy scans at once (default {@link HEAVY_SCANS})
   * @param now clock in ms for waiters' deadlines (default `performance.now`)
   */
  constructor(heavy = HEAVY_SCANS, now: () => number = () => performance.now()) {
    this.#max = heavy;
    this.#now = now;
  }

  /** Heavy scans running now. */
  get heavyRunning(): number {
    return this.#running;
  }

  /** Heavy scans waiting now. */
  get heavyWaiting(): number {
    return this.#waiting.length;
  }

  /**
   * Waits for a lane; light scans pass at once. Resolves to the release function (call it
   * once, when the scan ends).
   * @param deadlineAt time (ms on the lanes' clock) after which the scan is not started (default never)
   * @throws the signal's reason when it aborts while waiting; CanopyError CANOPY_ERR_DEADLINE
   *   when the lane came free only after `deadlineAt`
   */
  async acquire(heavy: boolean, signal: AbortSignal, deadlineAt = Infinity): Promise<() => void> {
    if (!heavy) return () => undefined;
    if (this.#running >= this.#max) {
      await new Promise<void>((resolve, reject) => {
        const leave = (): void => {
          const i = this.#waiting.indexOf(w);
          if (i >= 0) this.#waiting.splice(i, 1);
          signal.removeEventListener('abort', onAbort);
        };
        const onAbort = (): void => {
          leave();
          reject(signal.reason instanceof Error ? signal.reason : new CanopyError('CANOPY_ERR_CANCELLED', 'cancelled while waiting for a scan lane'));
        };
        const w: LaneWaiter = {
          deadlineAt,
          go: () => {
            signal.removeEventListener('abort', onAbort);
            resolve();
          },
          expire: () => {
            signal.removeEventListener('abort', onAbort);
            reject(new CanopyError('CANOPY_ERR_DEADLINE', 'the deadline passed while the scan waited for a lane'));
          },
        };
        if (signal.aborted) return onAbort();
        signal.addEventListener('abort', onAbort, { once: true });
        this.#waiting.push(w);
      });
    } else this.#running++;
    let released = false;
    return () => {
      if (released) return;
      released = true;
      // The lane passes straight to the next waiter whose deadline is still ahead.
      for (let next = this.#waiting.shift(); next !== undefined; next = this.#waiting.shift()) {
        if (this.#now() >= next.deadlineAt) {
          next.expire();
          continue;
        }
        next.go();
        return;
      }
      this.#running--;
    };
  }
}
