/** Clocks for fake-timer tests. */
import { clockWithNow, type Clock } from '../../src/transport/index.ts';

/** The global timers (faked by `vi.useFakeTimers`) with `Date.now` (which fake timers move) as time. */
export const dateClock: Clock = clockWithNow(() => Date.now());
