/**
 * Admission control, one implementation for every node (root, aggregators, leaves): at most
 * `maxInFlight` requests run at once and at most `maxQueued` wait; beyond that a request is
 * refused at once (503 CANOPY_ERR_OVERLOADED with a Retry-After), and a queued request never
 * waits past its own deadline (the caller passes the wait it can afford).
 *
 * The queue is FIFO. Queueing is only worth it for short waits: a request that waited most of
 * its deadline runs with too little budget to be useful, so callers pass a `maxWaitMs` that
 * leaves the request time to run (see {@link admissionWaitMs}). Background: Little's law
 * (queue length = arrival rate x wait), and "Fail at Scale" (Maurer, ACM Queue 2015) on
 * bounded queues and quick rejection under overload.
 */
import { CanopyError, admittedMs } from '../merge/index.ts';
import { systemClock, type Clock } from './clock.ts';

/** Limits of admission control. */
export interface AdmissionOptions {
  /** Requests running at once (default 16). */
  readonly maxInFlight?: number;
  /** Requests waiting for a slot (default 64). */
  readonly maxQueued?: number;
  /** Retry-After sent with a refusal, whole seconds (default 1). */
  readonly retryAfterSeconds?: number;
  /**
   * Longest wait for a slot as a share of the request's deadline (default 0.5): a request that
   * waited longer would run with less than the rest of its budget, so it is refused then
   * (503, like a full queue) instead of being run late. In (0, 1].
   */
  readonly maxWaitShare?: number;
}

/** Resolved admission limits. */
export type AdmissionSettings = Required<AdmissionOptions>;

/** Defaults of {@link AdmissionOptions} (the root's; nodes below use {@link NODE_ADMISSION_DEFAULTS}). */
export const ADMISSION_DEFAULTS: AdmissionSettings = Object.freeze({ maxInFlight: 16, maxQueued: 64, retryAfterSeconds: 1, maxWaitShare: 0.5 });

/**
 * Defaults for aggregators and leaves: twice the root's in-flight limit, so that a root
 * running its 16 queries plus hedges and retries is not refused by a healthy tier below,
 * while a node shared by several roots (or flooded) still sheds load quickly.
 */
export const NODE_ADMISSION_DEFAULTS: AdmissionSettings = Object.freeze({ maxInFlight: 32, maxQueued: 64, retryAfterSeconds: 1, maxWaitShare: 0.5 });

interface Waiter {
  readonly resolve: (release: () => void) => void;
  readonly reject: (e: unknown) => void;
  timer: unknown;
}

/** Counts of admission control since it was created (for metrics). */
export interface AdmissionCounters {
  /** Requests that got a slot (at once or after a wait). */
  admitted: number;
  /** Requests refused at once: the queue was full. */
  rejected: number;
  /** Requests refused after waiting as long as their deadline allowed. */
  expiredInQueue: number;
  /** Requests that left the queue because their client went away. */
  cancelledInQueue: number;
}

/**
 * The wait for a slot a request with `deadlineMs` left can afford, ms: `maxWaitShare` of it.
 */
export function admissionWaitMs(settings: Pick<AdmissionSettings, 'maxWaitShare'>, deadlineMs: number): number {
  return Math.max(0, deadlineMs * settings.maxWaitShare);
}

/** A bounded semaphore with a bounded FIFO queue whose waiters leave at their deadline. */
export class Admission {
  readonly counters: AdmissionCounters = { admitted: 0, rejected: 0, expiredInQueue: 0, cancelledInQueue: 0 };
  readonly settings: AdmissionSettings;
  #running = 0;
  readonly #queue: Waiter[] = [];
  readonly #clock: Clock;

  /**
   * `opts.clock`: time and the queue timers (default {@link systemClock}; the simulator's virtual clock).
   * @throws RangeError for limits that are not positive integers (maxQueued may be 0) or a share outside (0, 1]. */
  constructor(opts: AdmissionOptions & { readonly clock?: Clock } = {}, defaults: AdmissionSettings = ADMISSION_DEFAULTS) {
    const { clock, ...limits } = opts;
    this.#clock = clock ?? systemClock;
    this.settings = { ...defaults, ...limits };
    const s = this.settings;
    if (!Number.isInteger(s.maxInFlight) || s.maxInFlight < 1) throw new RangeError(`admission: maxInFlight must be an integer >= 1, got ${s.maxInFlight}`);
    if (!Number.isInteger(s.maxQueued) || s.maxQueued < 0) throw new RangeError(`admission: maxQueued must be an integer >= 0, got ${s.maxQueued}`);
    if (!(s.maxWaitShare > 0 && s.maxWaitShare <= 1)) throw new RangeError(`admission: maxWaitShare must be in (0, 1], got ${s.maxWaitShare}`);
    if (!(Number.isInteger(s.retryAfterSeconds) && s.retryAfterSeconds >= 0)) throw new RangeError(`admission: retryAfterSeconds must be a whole number >= 0, got ${s.retryAfterSeconds}`);
  }

  /** Requests running now. */
  get inFlight(): number {
    return this.#running;
  }

  /** Requests waiting now. */
  get queued(): number {
    return this.#queue.length;
  }

  /** Refusals so far: queue full, or waited as long as the deadline allowed. */
  get refused(): number {
    return this.counters.rejected + this.counters.expiredInQueue;
  }

  #overloaded(message: string): CanopyError {
    return new CanopyError('CANOPY_ERR_OVERLOADED', message, { details: { retryAfterSeconds: this.settings.retryAfterSeconds } });
  }

  /**
   * Waits for a slot, at most `maxWaitMs` (what the request's deadline allows; see
   * {@link admissionWaitMs}).
   * @returns a release function to call when the request ends (later calls are no-ops)
   * @throws CanopyError CANOPY_ERR_OVERLOADED when the queue is full or the wait reaches
   *   `maxWaitMs` (`details.retryAfterSeconds` says when to come back); CANOPY_ERR_CANCELLED on abort.
   */
  acquire(maxWaitMs: number, signal: AbortSignal): Promise<() => void> {
    if (signal.aborted) return Promise.reject(new CanopyError('CANOPY_ERR_CANCELLED', 'the client went away before admission'));
    if (this.#running < this.settings.maxInFlight) {
      this.#running++;
      this.counters.admitted++;
      return Promise.resolve(this.#release());
    }
    if (this.#queue.length >= this.settings.maxQueued || !(maxWaitMs > 0)) {
      this.counters.rejected++;
      return Promise.reject(this.#overloaded(`${this.#running} requests running and ${this.#queue.length} waiting; retry after ${this.settings.retryAfterSeconds} s`));
    }
    return new Promise((resolve, reject) => {
      const w: Waiter = {
        resolve: (release) => {
          if (w.timer !== undefined) this.#clock.clearTimeout(w.timer);
          signal.removeEventListener('abort', onAbort);
          resolve(release);
        },
        reject,
        timer: undefined,
      };
      const leave = (e: unknown): void => {
        const i = this.#queue.indexOf(w);
        if (i >= 0) this.#queue.splice(i, 1);
        if (w.timer !== undefined) this.#clock.clearTimeout(w.timer);
        signal.removeEventListener('abort', onAbort);
        reject(e);
      };
      const onAbort = (): void => {
        this.counters.cancelledInQueue++;
        leave(new CanopyError('CANOPY_ERR_CANCELLED', 'the client went away while queued'));
      };
      w.timer = this.#clock.setTimeout(() => {
        this.counters.expiredInQueue++;
        leave(this.#overloaded(`waited ${Math.round(maxWaitMs)} ms for a slot, as long as the deadline allows; retry after ${this.settings.retryAfterSeconds} s`));
      }, maxWaitMs);
      signal.addEventListener('abort', onAbort, { once: true });
      this.#queue.push(w);
    });
  }

  /**
   * Admits a request with `deadlineMs` left: waits at most {@link admissionWaitMs} of it for a
   * slot (see {@link acquire}), and says how much of the deadline is left after the wait.
   * @returns `release` (call when the request ends; later calls are no-ops) and `remainingMs`
   *   (the deadline less the wait, at least 1 ms)
   * @throws CanopyError as {@link acquire}.
   */
  async admit(deadlineMs: number, signal: AbortSignal): Promise<{ release: () => void; remainingMs: number }> {
    const t0 = this.#clock.now();
    const release = await this.acquire(admissionWaitMs(this.settings, deadlineMs), signal);
    return { release, remainingMs: admittedMs(deadlineMs, this.#clock.now() - t0) };
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
