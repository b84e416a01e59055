/** UTC calendar helpers for date_trunc (pure). */
import type { TruncUnit } from './types.ts';

const HOUR = 3_600_000;
const DAY = 86_400_000;
const WEEK = 7 * DAY;
/** 1970-01-01 is a Thursday; ISO weeks start on Monday, 3 days earlier. */
const MONDAY_SHIFT = 3 * DAY;

/** Length of a fixed-size unit in ms, or null for calendar units (month, year). */
export function unitMs(unit: TruncUnit): number | null {
  return unit === 'hour' ? HOUR : unit === 'day' ? DAY : unit === 'week' ? WEEK : null;
}

/**
 * Truncates a UTC timestamp (ms since the epoch) to the start of its hour, day, ISO week
 * (Monday), month or year, as DuckDB's and PostgreSQL's date_trunc do. Monotonic in `ms`.
 */
export function truncMs(ms: number, unit: TruncUnit): number {
  switch (unit) {
    case 'hour':
      return Math.floor(ms / HOUR) * HOUR;
    case 'day':
      return Math.floor(ms / DAY) * DAY;
    case 'week':
      return Math.floor((ms + MONDAY_SHIFT) / WEEK) * WEEK - MONDAY_SHIFT;
    case 'month': {
      const d = new Date(ms);
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
    }
    case 'year':
      return Date.UTC(new Date(ms).getUTCFullYear(), 0, 1);
  }
}
