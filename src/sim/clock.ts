/**
 * The simulator's virtual clock: a discrete-event scheduler over a priority queue of timers.
 * It implements {@link Clock}, so the real gather, aggregator, root, admission and tail
 * control run on it when given it; nothing sleeps in real time.
 */
import { PriorityQueue } from '@datastructures-js/priority-queue';
import type { Clock } from '../transport/index.ts';

/** A timer of the virtual clock (the handle `setTimeout` returns). */
export interface VirtualTimer {
  readonly at: number;
  readonly seq: number;
  fn: (() => void) | null;
}

/**
 * A discrete-event scheduler: virtual time in ms, timers ordered by due time (then by
 * creation), and a run loop that settles every promise reaction before firing the next timer.
 */
export class VirtualClock implements Clock {
  #now = 0;
  #seq = 0;
  readonly #queue = new PriorityQueue<VirtualTimer>((a, b) => a.at - b.at || a.seq - b.seq);
  /** Timers fired since creation (events simulated). */
  fired = 0;

  /** Virtual time, ms. */
  readonly now = (): number => this.#now;

  /** Schedules `fn` at now + max(0, ms). */
  readonly setTimeout = (fn: () => void, ms?: number): VirtualTimer => {
    const t: VirtualTimer = { at: this.#now + Math.max(0, Number.isFinite(ms) ? ms! : 0), seq: this.#seq++, fn };
    this.#queue.enqueue(t);
    return t;
  };

  /** Cancels a timer made by {@link setTimeout}; anything else is ignored. */
  readonly clearTimeout = (h: unknown): void => {
    if (typeof h === 'object' && h !== null && 'fn' in h && 'seq' in h) (h as VirtualTimer).fn = null;
  };

  /** Resolves after `ms` of virtual time; rejects with the signal's reason when it aborts first. */
  sleep(ms: number, signal?: AbortSignal): Promise<void> {
    return new Promise((resolve, reject) => {
      if (signal?.aborted) return reject(signal.reason as Error);
      const onAbort = (): void => {
        this.clearTimeout(h);
        reject(signal!.reason as Error);
      };
      const h = this.setTimeout(() => {
        signal?.removeEventListener('abort', onAbort);
        resolve();
      }, ms);
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }

  /** Timers still armed (cancelled ones are dropped lazily). */
  get pending(): number {
    return this.#queue.size();
  }

  /**
   * Runs `start()` in virtual time: fires this clock's timers in time order until the
   * returned promise settles (the code under test must be given this clock). Between timers every pending promise reaction runs (one real `setImmediate` turn), so the
   * code under test sees time stand still while it computes.
   * Timers left when the promise settles are discarded.
   * @throws Error when the promise can never settle (no timer left while it is pending).
   */
  async run<T>(start: () => Promise<T>): Promise<T> {
    let done = false;
    try {
      const p = start();
      p.then(
        () => (done = true),
        () => (done = true),
      );
      for (;;) {
        await new Promise<void>((r) => setImmediate(r));
        if (done) break;
        let next: VirtualTimer | null = null;
        while (this.#queue.size() > 0) {
          const t = this.#queue.dequeue()!;
          if (t.fn !== null) {
            next = t;
            break;
          }
        }
        if (next === null) throw new Error('simulation stalled: the query is pending and no timer is armed');
        this.#now = Math.max(this.#now, next.at);
        const fn = next.fn!;
        next.fn = null;
        this.fired++;
        fn();
        // Fire every other timer due at the same instant before settling reactions.
        while (this.#queue.size() > 0 && this.#queue.front()!.at <= this.#now) {
          const t = this.#queue.dequeue()!;
          if (t.fn === null) continue;
          const f = t.fn;
          t.fn = null;
          this.fired++;
          f();
        }
      }
      return await p;
    } finally {
      this.#queue.clear();
    }
  }
}
