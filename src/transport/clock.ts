/**
 * The clock every node reads time and arms timers through: injected into the gather engine,
 * leaves, aggregators, the root, admission and tail control, so that the simulator
 * (src/sim/, a virtual clock) and fake-timer tests drive the real code without patching
 * globals.
 */

/** Time in ms and timers. A handle from `setTimeout` is only ever given back to the same clock's `clearTimeout`. */
export interface Clock {
  /** Monotonic time, ms. */
  now(): number;
  /** Calls `fn` once after `ms` (≥ 0) ms; returns a handle for {@link clearTimeout}. */
  setTimeout(fn: () => void, ms: number): unknown;
  /** Cancels a timer that has not fired; anything else is ignored. */
  clearTimeout(handle: unknown): void;
}

/**
 * The longest delay Node's timers take, ms (2^31 - 1, about 24.8 days): a longer one fires
 * after 1 ms, so a deadline of 3e9 ms gave every child up at once.
 */
export const MAX_TIMER_MS = 2_147_483_647;

/**
 * The process's clock: `performance.now` and the global timers, looked up at each call (so
 * that vitest's fake timers, installed after import, take effect). A delay past
 * {@link MAX_TIMER_MS} waits that long (as good as never), instead of firing at once.
 */
export const systemClock: Clock = Object.freeze({
  now: () => performance.now(),
  setTimeout: (fn: () => void, ms: number): unknown => globalThis.setTimeout(fn, Math.min(ms, MAX_TIMER_MS)),
  clearTimeout: (handle: unknown): void => globalThis.clearTimeout(handle as ReturnType<typeof globalThis.setTimeout>),
});

/** The system timers with another time source (e.g. `Date.now`, which fake timers move). */
export function clockWithNow(now: () => number): Clock {
  return { now, setTimeout: systemClock.setTimeout, clearTimeout: systemClock.clearTimeout };
}

/** A throttle made by {@link coalesce}. */
export interface Coalescer {
  /** Runs the action now if the last run was at least the interval ago, else once when it will be (further calls until then are absorbed). */
  schedule(): void;
  /** Disarms a pending run (the action will not run for the calls absorbed so far). */
  cancel(): void;
}

/**
 * Coalesces bursts of `schedule()` calls into at most one run of `action` per `intervalMs`
 * (on `clock`): the first call after a quiet interval runs at once, later ones are absorbed
 * into one run at the end of the interval. Used by the aggregators' progressive updates and
 * the root's snapshots; `action` reads the latest state itself.
 */
export function coalesce(intervalMs: number, clock: Clock, action: () => void): Coalescer {
  let last = -Infinity;
  let timer: unknown;
  let armed = false;
  const run = (): void => {
    armed = false;
    last = clock.now();
    action();
  };
  return {
    schedule(): void {
      if (armed) return;
      const wait = intervalMs - (clock.now() - last);
      if (wait <= 0) run();
      else {
        armed = true;
        timer = clock.setTimeout(run, wait);
      }
    },
    cancel(): void {
      if (armed) clock.clearTimeout(timer);
      armed = false;
    },
  };
}
