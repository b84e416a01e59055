/**
 * Timestamps (pure): UTC instants in microseconds since the epoch, held in a double. A double
 * holds every integer of magnitude up to 2^53 exactly, so timestamps within
 * ±(2^53 − 1) µs (about the years 1685 to 2255) are exact; loaders refuse others
 * ({@link checkMicros}). ISO-8601 parsing (one parser for CSV values and SQL literals),
 * ISO rendering with microseconds, and date_trunc.
 */
import type { TruncUnit } from './types.ts';

/** Microseconds in one millisecond, second, hour and day. */
export const US_PER_MS = 1000;
const US_PER_S = 1_000_000;
const HOUR = 3_600_000_000;
/** Microseconds in one UTC day. */
export const US_PER_DAY = 86_400_000_000;
const WEEK = 7 * US_PER_DAY;
/** 1970-01-01 is a Thursday; ISO weeks start on Monday, 3 days earlier. */
export const MONDAY_SHIFT_US = 3 * US_PER_DAY;

/** Largest timestamp magnitude held exactly, in µs (2^53 − 1: 2255-06-05 / 1684-07-28). */
export const MAX_TIMESTAMP_US = Number.MAX_SAFE_INTEGER;

/** Length of a fixed-size unit in µs, or null for calendar units (month, year). */
export function unitMicros(unit: TruncUnit): number | null {
  return unit === 'hour' ? HOUR : unit === 'day' ? US_PER_DAY : unit === 'week' ? WEEK : null;
}

/**
 * Truncates a UTC timestamp (µs since the epoch) to the start of its hour, day, ISO week
 * (Monday), month or year, as DuckDB's and PostgreSQL's date_trunc do. Monotonic in `us`.
 */
export function truncMicros(us: number, unit: TruncUnit): number {
  switch (unit) {
    case 'hour':
      return Math.floor(us / HOUR) * HOUR;
    case 'day':
      return Math.floor(us / US_PER_DAY) * US_PER_DAY;
    case 'week':
      return Math.floor((us + MONDAY_SHIFT_US) / WEEK) * WEEK - MONDAY_SHIFT_US;
    case 'month': {
      const d = new Date(Math.floor(us / US_PER_MS));
      return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1) * US_PER_MS;
    }
    case 'year':
      return Date.UTC(new Date(Math.floor(us / US_PER_MS)).getUTCFullYear(), 0, 1) * US_PER_MS;
  }
}

/**
 * Null when `us` is a timestamp canopy holds exactly (an integer within ±{@link MAX_TIMESTAMP_US});
 * else why not, for the caller's error message.
 */
export function checkMicros(us: number): string | null {
  if (Number.isSafeInteger(us)) return null;
  if (!Number.isFinite(us)) return 'is not a finite instant';
  if (!Number.isInteger(us)) return 'is not a whole number of microseconds';
  return 'lies outside the range held exactly (years 1685 to 2255: ±2^53 µs since 1970)';
}

/**
 * ISO-8601 rendering of a timestamp in µs: `2024-01-01T00:00:00.000Z`, with microseconds
 * (`...00.000250Z`) when they are not zero. Null for a non-finite value.
 */
export function isoFromMicros(us: number): string | null {
  if (!Number.isFinite(us)) return null;
  const ms = Math.floor(us / US_PER_MS);
  const rest = us - ms * US_PER_MS;
  const iso = new Date(ms).toISOString();
  return rest === 0 ? iso : `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z`;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/**
 * µs since the epoch of an ISO-8601 date (`2001-01-31`) or date-time (`2001-01-31T08:05`,
 * `...:07`, `...:07.123456`, a space instead of `T`, an optional `Z` or `+hh:mm` / `+hhmm` /
 * `+hh` offset; zone-less means UTC). One parser for CSV values and SQL literals.
 * @returns null when `s` is not such a value or names an impossible date or time
 * @throws RangeError when it is one but cannot be held exactly: a fraction finer than a
 *   microsecond (7 to 9 digits, not all trailing zeros) or an instant outside ±2^53 µs
 */
export function parseIsoTimestamp(s: string): number | null {
  const m = ISO_RE.exec(s);
  if (m === null) return null;
  const y = Number(m[1]);
  const mo = Number(m[2]);
  const d = Number(m[3]);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return null;
  const hh = m[4] === undefined ? 0 : Number(m[4]);
  const mi = m[5] === undefined ? 0 : Number(m[5]);
  const ss = m[6] === undefined ? 0 : Number(m[6]);
  if (hh > 23 || mi > 59 || ss > 59) return null;
  const frac = m[7] ?? '';
  if (frac.length > 6 && !/^0*$/.test(frac.slice(6))) throw new RangeError(`'${s}' has a fraction finer than a microsecond, which canopy does not hold`);
  const us = frac === '' ? 0 : Number(frac.padEnd(6, '0').slice(0, 6));
  let offsetMin = 0;
  const z = m[8];
  if (z !== undefined && z !== 'Z' && z !== 'z') {
    const sign = z[0] === '-' ? -1 : 1;
    const digits = z.slice(1).replace(':', '');
    const oh = Number(digits.slice(0, 2));
    const om = digits.length > 2 ? Number(digits.slice(2, 4)) : 0;
    if (oh > 23 || om > 59) return null;
    offsetMin = sign * (oh * 60 + om);
  }
  const t = daysFromCivil(y, mo, d) * US_PER_DAY + ((hh * 60 + mi - offsetMin) * 60 + ss) * US_PER_S + us;
  const bad = checkMicros(t);
  if (bad !== null) throw new RangeError(`'${s}' ${bad}`);
  return t;
}
