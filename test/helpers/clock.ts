/** Clocks for fake-timer tests. */
import { clockWithNow, type Clock } from '../../src/transport/index.ts';

/** The global timers (faked by `vi.useFakeTimers`) with `Date.now` (which fake timers move) as time. */
export const dateClock: Clock = clockWithNow(() => Date.now());

/** A clock that moves 10 ms each time it is read: every block of work uses up its slice. */
export function busyClock(): Clock {
  let t = 0;
  return clockWithNow(() => (t += 10));
}
