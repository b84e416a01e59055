/**
 * Admission control at the root: at most `maxInFlight` queries run at once and at most
 * `maxQueued` wait; beyond that a query is refused at once (503 CANOPY_ERR_OVERLOADED with a
 * Retry-After), and a queued query never waits past its own deadline.
 */
import { CanopyError } from '../merge/index.ts';

/** Limits of admission control. */
export interface AdmissionOptions {
  /** Queries running at once (default 16). */
  readonly maxInFlight?: number;
  /** Queries waiting for a slot (default 64). */
  readonly maxQueued?: number;
}

interface Waiter {
  readonly resolve: (release: () => void) => void;
  readonly reject: (e: unknown) => void;
  timer: ReturnType<typeof setTimeout> | undefined;
}

/** Counts of admission control (for metrics). */
export interface AdmissionCounters {
  admitted: number;
  rejected: number;
  expiredInQueue: number;
}

/** A bounded semaphore with a bounded FIFO queue. */
export class Admission {
  readonly counters: AdmissionCounters = { admitted: 0, rejected: 0, expiredInQueue: 0 };
  readonly #max: number;
  readonly #maxQueued: number;
  #running = 0;
  readonly #queue: Waiter[] = [];

  constructor(opts: AdmissionOptions = {}) {
    this.#max = opts.maxInFlight ?? 16;
    this.#maxQueued = opts.maxQueued ?? 64;
  }

  /** Queries running now. */
  get inFlight(): number {
    return this.#running;
  }

  /** Queries waiting now. */
  get queued(): number {
    return this.#queue.length;
  }

  /**
   * Waits for a slot, at most `maxWaitMs` (the query's deadline).
   * @returns a release function to call exactly once when the query ends
   * @throws CanopyError CANOPY_ERR_OVERLOADED when the queue is full or the wait outlives the
   *   deadline (`details.retryAfterSeconds` says when to come back); CANOPY_ERR_CANCELLED on abort.
   */
  acquire(maxWaitMs: number, signal: AbortSignal): Promise<() => void> {
    if (this.#running < this.#max) {
      this.#running++;
      this.counters.admitted++;
      return Promise.resolve(this.#release());
    }
    if (this.#queue.length >= this.#maxQueued) {
      this.counters.rejected++;
      return Promise.reject(new CanopyError('CANOPY_ERR_OVERLOADED', `${this.#running} queries running and ${this.#queue.length} waiting; retry later`, { details: { retryAfterSeconds: 1 } }));
    }
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        resolve: (release) => {
          if (w.timer !== undefined) clearTimeout(w.timer);
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject,
        timer: undefined,
      };
      const leave = (e: unknown): void => {
        const i = this.#queue.indexOf(w);
        if (i >= 0) this.#queue.splice(i, 1);
        if (w.timer !== undefined) clearTimeout(w.timer);
        signal.removeEventListener('abort', onAbort);
        reject(e);
      };
      const onAbort = (): void => leave(new CanopyError('CANOPY_ERR_CANCELLED', 'the client went away while queued'));
      w.timer = setTimeout(() => {
        this.counters.expiredInQueue++;
        leave(new CanopyError('CANOPY_ERR_OVERLOADED', `waited ${Math.round(maxWaitMs)} ms for a slot, the whole deadline; retry later`, { details: { retryAfterSeconds: 1 } }));
      }, Math.max(0, maxWaitMs));
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(w);
    });
  }

  #release(): () => void {
    let done = false;
    return () => {
      if (done) return;
      done = true;
      const next = this.#queue.shift();
      if (next === undefined) {
        this.#running--;
        return;
      }
      this.counters.admitted++;
      next.resolve(this.#release());
    };
  }
}
