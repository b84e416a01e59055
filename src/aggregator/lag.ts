/**
 * Event-loop lag of this process, for reserves that grow when the loop runs late: a
 * request waits for the loop on its way in and its reply on the way out, so a node whose
 * loop is 200 ms late must stop gathering 400 ms earlier to answer within its budget.
 */
import { monitorEventLoopDelay, type IntervalHistogram } from 'node:perf_hooks';
import { adaptiveReserveMs } from '../merge/index.ts';

/** Recent event-loop lag: the largest delay of the current and the previous window. */
export class LoopLag {
  readonly #h: IntervalHistogram;
  readonly #timer: ReturnType<typeof setInterval>;
  #previousMaxMs = 0;

  /** @param windowMs length of one window, ms (default 1000) */
  constructor(windowMs = 1000) {
    this.#h = monitorEventLoopDelay({ resolution: 10 });
    this.#h.enable();
    this.#timer = setInterval(() => {
      this.#previousMaxMs = this.#h.max / 1e6;
      this.#h.reset();
    }, windowMs);
    this.#timer.unref();
  }

  /** Largest event-loop delay seen over the last one to two windows, ms (the histogram's resolution included). */
  get recentMaxMs(): number {
    const current = this.#h.count > 0 ? this.#h.max / 1e6 : 0;
    return Math.max(this.#previousMaxMs, current);
  }

  /** Reserve for a gather with `budgetMs` received: {@link adaptiveReserveMs} with the recent lag. */
  reserveMs(budgetMs: number): number {
    return adaptiveReserveMs(budgetMs, this.recentMaxMs);
  }

  /** Stops measuring. */
  close(): void {
    clearInterval(this.#timer);
    this.#h.disable();
  }
}

/**
 * Estimated ms to merge and encode `groups` held groups at a node and hand them to the
 * parent: 1 µs per group (decode at the parent, merge and encode here; `npm run bench -- wire`
 * measures 0.4-0.5 µs per group each way).
 */
export function mergeWorkMs(groups: number): number {
  return groups * 0.001;
}
