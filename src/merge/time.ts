/**
 * Timestamps (pure): UTC instants in microseconds since the epoch, held in a double. A double
 * holds every integer of magnitude up to 2^53 exactly, so timestamps within
 * ±(2^53 − 1) µs (about the years 1685 to 2255) are exact; loaders refuse others
 * ({@link checkMicros}). ISO-8601 parsing (one parser for CSV values and SQL literals),
 * ISO rendering with microseconds, and date_trunc.
 */
import { CanopyError } from './errors.ts';
import type { ExtractField, TruncUnit } from './types.ts';

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

const FIXED: Partial<Record<TruncUnit, number>> = { microsecond: 1, millisecond: US_PER_MS, second: US_PER_S, minute: 60 * US_PER_S, hour: HOUR, day: US_PER_DAY, week: WEEK };

/** Length of a fixed-size unit in µs (microsecond .. week), or null for calendar units (month and longer). */
export function unitMicros(unit: TruncUnit): number | null {
  return FIXED[unit] ?? null;
}

/** Months in each calendar unit of date_trunc. */
const UNIT_MONTHS: Partial<Record<TruncUnit, number>> = { month: 1, quarter: 3, year: 12, decade: 120, century: 1200, millennium: 12000 };

/**
 * Truncates a UTC timestamp (µs since the epoch) to the start of its microsecond .. minute,
 * hour, day, ISO week (Monday), month, quarter, year, decade, century or millennium (years
 * divisible by 10, 100, 1000: DuckDB 1.x truncates 2024 to 2000 for both), as DuckDB's
 * date_trunc does. Monotonic in `us`; NaN and ±Infinity come back as they are.
 */
export function truncMicros(us: number, unit: TruncUnit): number {
  if (!Number.isFinite(us)) return us;
  if (unit === 'week') return Math.floor((us + MONDAY_SHIFT_US) / WEEK) * WEEK - MONDAY_SHIFT_US;
  const fixed = FIXED[unit];
  if (fixed !== undefined) return Math.floor(us / fixed) * fixed;
  const { year, month } = civil(us);
  let y = year;
  let m = month;
  switch (unit) {
    case 'quarter':
      m = month - ((month - 1) % 3);
      break;
    case 'month':
      break;
    case 'year':
      m = 1;
      break;
    case 'decade':
      y = Math.floor(year / 10) * 10;
      m = 1;
      break;
    case 'century':
      y = Math.floor(year / 100) * 100;
      m = 1;
      break;
    default:
      y = Math.floor(year / 1000) * 1000;
      m = 1;
      break;
  }
  return daysFromCivil(y, m, 1) * US_PER_DAY;
}

/** Months of a calendar truncation unit (month: 1, quarter: 3, ...), or null for fixed units. */
/**
 * DuckDB's date_diff(unit, a, b): the number of `unit` boundaries from instant a to instant b
 * (µs), negative when b is before a. Fixed units count boundaries of the truncated instants;
 * week is whole weeks between the days, truncated toward zero; month-based units count
 * calendar months (years, ...) between them. A bigint for microseconds (up to 2^54 apart), a
 * number otherwise.
 */
export function dateDiff(unit: TruncUnit, a: number, b: number): number | bigint {
  if (unit === 'week') return Math.trunc((Math.floor(b / US_PER_DAY) - Math.floor(a / US_PER_DAY)) / 7);
  const fixed = FIXED[unit];
  // In µs the difference may pass 2^53 (instants up to ±2^53 apart): exact in bigint.
  if (unit === 'microsecond') return BigInt(b) - BigInt(a);
  if (fixed !== undefined) return Math.round((truncMicros(b, unit) - truncMicros(a, unit)) / fixed);
  const months = UNIT_MONTHS[unit] ?? 1;
  const index = (us: number): number => {
    const c = civil(us);
    return Math.floor((c.year * 12 + c.month - 1) / months);
  };
  return index(b) - index(a);
}

/**
 * DuckDB's date_sub(unit, a, b) (extension/core_functions/scalar/date/date_sub.cpp): the
 * whole `unit`s from instant a to instant b (µs), negative when b is before a. Units up to week
 * divide the µs between them, truncating toward zero (exact: in bigint); month-based units
 * count DuckDB's whole months (its age(b, a) months, with b on the last day of its month
 * counting as the same day of a shorter month: 2024-01-31 to 2024-02-29 is one month), then
 * divide by 3, 12, 120, 1200 or 12000, truncating toward zero.
 */
export function dateSub(unit: TruncUnit, a: number, b: number): bigint {
  const fixed = FIXED[unit];
  if (fixed !== undefined) return (BigInt(b) - BigInt(a)) / BigInt(fixed);
  return BigInt(Math.trunc(wholeMonths(a, b) / (UNIT_MONTHS[unit] ?? 1)));
}

/** DuckDB's DateSub::MonthOperator: the whole months from a to b (negative when b is before a). */
function wholeMonths(a: number, b: number): number {
  if (a > b) return -wholeMonths(b, a);
  const ad = Math.floor(a / US_PER_DAY);
  const bd = Math.floor(b / US_PER_DAY);
  const at = a - ad * US_PER_DAY;
  const bt = b - bd * US_PER_DAY;
  const s = civilFromDays(ad);
  const e = civilFromDays(bd);
  let sDay = s.day;
  const endDays = daysInMonth(e.year, e.month);
  // b on its month's last day: a later day of a (longer) month counts as that last day.
  if (e.day === endDays && (s.day > endDays || (s.day === endDays && at < bt))) sDay = endDays;
  const borrow = e.day < sDay || (e.day === sDay && bt < at) ? 1 : 0;
  return (e.year - s.year) * 12 + (e.month - s.month) - borrow;
}

/** time_bucket's default origins (DuckDB, for TimescaleDB): 2000-01-03 (a Monday) for widths in µs, 2000-01-01 for widths in months. */
const BUCKET_ORIGIN_US = 10959 * US_PER_DAY;
const BUCKET_ORIGIN_MONTHS = 360;

/**
 * The multiple of `w` at or below `v - origin`, plus `origin` (DuckDB's bucket arithmetic),
 * exact: in doubles while `v - origin` and every step after it are within 2^53, else in bigint.
 */
function floorTo(v: number, origin: number, w: number): number {
  const x = v - origin;
  if (Number.isSafeInteger(x)) {
    // v - r is the multiple at or below x (plus origin) for r >= 0; one w lower for r < 0. Taken
    // from v, not from x (x - r - w may pass 2^53 where the bucket, origin added back, does not).
    const r = x % w;
    const at = v - r;
    const out = r < 0 ? at - w : at;
    if (Number.isSafeInteger(at) && Number.isSafeInteger(out)) return out;
  }
  const bx = BigInt(v) - BigInt(origin);
  const bw = BigInt(w);
  return Number(bx - (((bx % bw) + bw) % bw) + BigInt(origin));
}

/**
 * DuckDB's time_bucket(width, ts[, origin]) for a TIMESTAMP
 * (extension/core_functions/scalar/date/time_bucket.cpp): the start of the bucket holding `ts`
 * (µs). A width of µs (`micros` > 0, `months` 0) counts buckets from `origin` (default
 * 2000-01-03, its remainder by the width taken as C does); a width of months (`months` > 0,
 * `micros` 0) counts calendar months from the origin's month (default 2000-01), the bucket
 * starting on its first day at midnight. The planner checks the width.
 */
export function timeBucket(months: number, micros: number, ts: number, origin?: number): number {
  if (months === 0) {
    const o = (origin ?? BUCKET_ORIGIN_US) % micros;
    return floorTo(ts, o, micros);
  }
  const monthsOf = (us: number): number => {
    const c = civil(us);
    return (c.year - 1970) * 12 + c.month - 1;
  };
  const o = (origin === undefined ? BUCKET_ORIGIN_MONTHS : monthsOf(origin)) % months;
  const m = floorTo(monthsOf(ts), o, months);
  const y = Math.floor(m / 12);
  return daysFromCivil(1970 + y, m - y * 12 + 1, 1) * US_PER_DAY;
}

/** English day names from Sunday (strftime's %A, strptime's %A and %a), and month names (%B, %b). */
export const DAY_NAMES = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday'];
export const MONTH_NAMES = ['January', 'February', 'March', 'April', 'May', 'June', 'July', 'August', 'September', 'October', 'November', 'December'];
/** The strftime specifiers {@link formatTimestamp} takes (without `%`; `-x` drops the zero padding). */
export const STRFTIME_SPECIFIERS = ['a', 'A', 'w', 'u', 'd', '-d', 'b', 'h', 'B', 'm', '-m', 'y', '-y', 'Y', 'G', 'H', '-H', 'I', '-I', 'p', 'M', '-M', 'S', '-S', 'f', 'g', 'j', '-j', 'U', 'W', 'V', 'c', 'x', 'X', 'T', 'z', 'Z', '%'];

/** The {@link STRFTIME_SPECIFIERS} that read only the date (UTC), not the time of day (`%g` is milliseconds, `%G` the ISO year). */
const DATE_ONLY_SPECIFIERS = new Set(['a', 'A', 'w', 'u', 'd', '-d', 'b', 'h', 'B', 'm', '-m', 'y', '-y', 'Y', 'G', 'j', '-j', 'U', 'W', 'V', 'x', 'z', 'Z', '%']);

/** Specifiers that read the time of day down to the hour, the minute and the second (`%c %X %T` end in seconds). */
const HOUR_SPECIFIERS = new Set(['H', '-H', 'I', '-I', 'p']);
const MINUTE_SPECIFIERS = new Set(['M', '-M']);
const SECOND_SPECIFIERS = new Set(['S', '-S', 'c', 'X', 'T']);

/**
 * The span of time, in µs, over which {@link formatTimestamp} with `format` writes the same
 * text for every instant of a span aligned on the UTC epoch: a day for a date-only format, an
 * hour when it reads the hour at most (`'%Y-%m-%d %H'`, `%p`), a minute, a second; 0 when it
 * reads a fraction of a second (`%f`, `%g`) or a specifier it does not know.
 */
export function formatSpan(format: string): number {
  let span = US_PER_DAY;
  for (const m of format.matchAll(/%(-?[a-zA-Z%]?)/g)) {
    const s = m[1]!;
    if (DATE_ONLY_SPECIFIERS.has(s)) continue;
    if (HOUR_SPECIFIERS.has(s)) span = Math.min(span, 3_600_000_000);
    else if (MINUTE_SPECIFIERS.has(s)) span = Math.min(span, 60_000_000);
    else if (SECOND_SPECIFIERS.has(s)) span = Math.min(span, 1_000_000);
    else return 0;
  }
  return span;
}

/**
 * Whether {@link formatTimestamp} with `format` gives the same text for every instant of a day
 * (UTC): every specifier reads the date only (`'%Y-%m'`, `'%A'`: dayname, monthname).
 */
export function formatReadsDateOnly(format: string): boolean {
  for (const m of format.matchAll(/%(-?[a-zA-Z%]?)/g)) if (!DATE_ONLY_SPECIFIERS.has(m[1]!)) return false;
  return true;
}

/**
 * DuckDB's Date::ExtractWeekNumberRegular: the week of the year (00-53) with weeks starting on
 * Monday (`%W`) or Sunday (`%U`), the days before the year's first such day in week 0.
 */
function regularWeek(year: number, doy: number, mondayFirst: boolean): number {
  const jan1 = extractField(daysFromCivil(year, 1, 1) * US_PER_DAY, 'isodow');
  const firstWeekStart = mondayFirst ? (jan1 === 1 ? 0 : 8 - jan1) : 7 - jan1;
  return doy - 1 < firstWeekStart ? 0 : Math.floor((doy - 1 - firstWeekStart) / 7) + 1;
}

/**
 * DuckDB's strftime(ts, format) for the specifiers in {@link STRFTIME_SPECIFIERS} (UTC,
 * English names; `%U %W` DuckDB's regular weeks, `%G %V %u` ISO year, week and weekday, `%c %x
 * %X %T` its ISO forms, `%z` '+00' and `%Z` '' for a TIMESTAMP, as DuckDB writes them); other
 * text is copied. The planner refuses formats with other specifiers (`%n`, which DuckDB 1.5
 * writes past its digits for a TIMESTAMP).
 */
export function formatTimestamp(us: number, format: string): string {
  const days = Math.floor(us / US_PER_DAY);
  const rem = us - days * US_PER_DAY;
  const { year, month, day } = civilFromDays(days);
  const hour = Math.floor(rem / HOUR);
  const minute = Math.floor((rem % HOUR) / 60_000_000);
  const second = Math.floor((rem % 60_000_000) / US_PER_S);
  const micros = rem % US_PER_S;
  const dow = (((days + 4) % 7) + 7) % 7;
  const doy = days - daysFromCivil(year, 1, 1) + 1;
  const p2 = (x: number): string => String(x).padStart(2, '0');
  const h12 = hour % 12 === 0 ? 12 : hour % 12;
  const expanded = format.replace(/%([%cxXT])/g, (all, spec: string) => (spec === 'c' ? '%Y-%m-%d %H:%M:%S' : spec === 'x' ? '%Y-%m-%d' : spec === '%' ? all : '%H:%M:%S'));
  return expanded.replace(/%(-?[a-zA-Z%])/g, (all, spec: string) => {
    switch (spec) {
      case 'u': return String(extractField(us, 'isodow'));
      case 'G': return String(extractField(us, 'isoyear')).padStart(4, '0');
      case 'V': return p2(extractField(us, 'week'));
      case 'U': return p2(regularWeek(year, doy, false));
      case 'W': return p2(regularWeek(year, doy, true));
      case 'z': return '+00';
      case 'Z': return '';
      case 'a': return DAY_NAMES[dow]!.slice(0, 3);
      case 'A': return DAY_NAMES[dow]!;
      case 'w': return String(dow);
      case 'd': return p2(day);
      case '-d': return String(day);
      case 'b': case 'h': return MONTH_NAMES[month - 1]!.slice(0, 3);
      case 'B': return MONTH_NAMES[month - 1]!;
      case 'm': return p2(month);
      case '-m': return String(month);
      case 'y': return p2(((year % 100) + 100) % 100);
      case '-y': return String(((year % 100) + 100) % 100);
      case 'Y': return String(year);
      case 'H': return p2(hour);
      case '-H': return String(hour);
      case 'I': return p2(h12);
      case '-I': return String(h12);
      case 'p': return hour < 12 ? 'AM' : 'PM';
      case 'M': return p2(minute);
      case '-M': return String(minute);
      case 'S': return p2(second);
      case '-S': return String(second);
      case 'f': return String(micros).padStart(6, '0');
      case 'g': return String(Math.floor(micros / 1000)).padStart(3, '0');
      case 'j': return String(doy).padStart(3, '0');
      case '-j': return String(doy);
      case '%': return '%';
      default: return all;
    }
  });
}

export function unitMonths(unit: TruncUnit): number | null {
  return UNIT_MONTHS[unit] ?? null;
}

/** Proleptic Gregorian date of a day number (H. Hinnant's civil_from_days). */
export function civilFromDays(z: number): { year: number; month: number; day: number } {
  z += 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const month = mp < 10 ? mp + 3 : mp - 9;
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day };
}

/** The Julian day number of 1970-01-01 (as DuckDB's date_part('julian') counts it). */
const JULIAN_DAY_1970 = 2440588;

function civil(us: number): { year: number; month: number; day: number } {
  return civilFromDays(Math.floor(us / US_PER_DAY));
}

/**
 * A field of a UTC timestamp in µs, as DuckDB's extract/date_part: year, quarter, month,
 * ISO week, day of month, hour, minute, second (whole), millisecond / microsecond (of the
 * minute, seconds included), dow (0 = Sunday), isodow (7 = Sunday), doy (1..366), epoch
 * (seconds since 1970, with the fraction), isoyear, yearweek, decade, century, millennium, era,
 * julian (see {@link ExtractField}). NaN for a non-finite input.
 */
export function extractField(us: number, field: ExtractField): number {
  if (!Number.isFinite(us)) return NaN;
  const dayNo = Math.floor(us / US_PER_DAY);
  const inDay = us - dayNo * US_PER_DAY;
  switch (field) {
    case 'epoch':
      return us / US_PER_S;
    case 'epoch_us':
      return us;
    case 'epoch_ms':
      return Math.trunc(us / US_PER_MS);
    case 'julian':
      // Julian day 2440588 began at noon before 1970-01-01; DuckDB counts from that midnight.
      return JULIAN_DAY_1970 + us / US_PER_DAY;
    case 'hour':
      return Math.floor(inDay / HOUR);
    case 'minute':
      return Math.floor(inDay / (60 * US_PER_S)) % 60;
    case 'second':
      return Math.floor(inDay / US_PER_S) % 60;
    case 'millisecond':
      return Math.floor((inDay % (60 * US_PER_S)) / US_PER_MS);
    case 'microsecond':
      return inDay % (60 * US_PER_S);
    case 'dow':
      return (((dayNo + 4) % 7) + 7) % 7;
    case 'isodow':
      return ((((dayNo + 3) % 7) + 7) % 7) + 1;
    default:
      break;
  }
  const { year, month, day } = civilFromDays(dayNo);
  switch (field) {
    case 'year':
      return year;
    case 'quarter':
      return Math.floor((month - 1) / 3) + 1;
    case 'month':
      return month;
    case 'day':
      return day;
    case 'doy':
      return dayNo - daysFromCivil(year, 1, 1) + 1;
    // Years as DuckDB counts them (astronomical: 1 BC is year 0), C-style truncating division.
    case 'decade':
      return Math.trunc(year / 10);
    case 'century':
      return year > 0 ? Math.trunc((year - 1) / 100) + 1 : Math.trunc(year / 100) - 1;
    case 'millennium':
      return year > 0 ? Math.trunc((year - 1) / 1000) + 1 : Math.trunc(year / 1000) - 1;
    case 'era':
      return year > 0 ? 1 : 0;
    default: {
      // ISO week: the week (Monday start) holding this day's Thursday, counted in that Thursday's year.
      const thursday = dayNo - ((((dayNo + 3) % 7) + 7) % 7) + 3;
      const ty = civilFromDays(thursday).year;
      const week = Math.floor((thursday - daysFromCivil(ty, 1, 1)) / 7) + 1;
      if (field === 'isoyear') return ty;
      if (field === 'yearweek') return ty * 100 + (ty > 0 ? week : -week);
      return week;
    }
  }
}

/**
 * `us + months` calendar months (the day clamped to the target month's length, as DuckDB
 * and PostgreSQL: 2024-01-31 + 1 month = 2024-02-29), then `+ micros`. Non-finite stays.
 */
/**
 * A timestamp an interval arithmetic made, checked: an integer within ±{@link MAX_TIMESTAMP_US}
 * (beyond, µs are lost and the years stop rendering as DuckDB renders them).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE otherwise
 */
export function checkedTimestamp(us: number): number {
  if (Number.isFinite(us) && !(Math.abs(us) <= MAX_TIMESTAMP_US)) {
    throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `a timestamp plus or minus an interval gave ${us} µs since 1970, outside the timestamps canopy holds exactly (±2^53 µs: the years 1685 to 2255)`);
  }
  return us;
}

export function addInterval(us: number, months: number, micros: number): number {
  if (!Number.isFinite(us)) return us;
  if (months === 0) return us + micros;
  const dayNo = Math.floor(us / US_PER_DAY);
  const inDay = us - dayNo * US_PER_DAY;
  const { year, month, day } = civilFromDays(dayNo);
  const total = year * 12 + (month - 1) + months;
  const y = Math.floor(total / 12);
  const m = total - y * 12 + 1;
  const d = Math.min(day, daysInMonth(y, m));
  return daysFromCivil(y, m, d) * US_PER_DAY + inDay + micros;
}

/**
 * DuckDB's text of a timestamp: `2024-01-01 10:00:00`, with the fraction's significant
 * digits (`...:00.5`, `...:00.000250`). Null for a non-finite value.
 */
export function timestampText(us: number): string | null {
  if (!Number.isFinite(us)) return null;
  const dayNo = Math.floor(us / US_PER_DAY);
  const inDay = us - dayNo * US_PER_DAY;
  const { year, month, day } = civilFromDays(dayNo);
  const p = (x: number, n = 2): string => String(x).padStart(n, '0');
  const secs = Math.floor(inDay / US_PER_S);
  const frac = inDay - secs * US_PER_S;
  const ys = year < 0 ? `${p(-year, 4)} (BC)` : p(year, 4);
  const base = `${ys}-${p(month)}-${p(day)} ${p(Math.floor(secs / 3600))}:${p(Math.floor(secs / 60) % 60)}:${p(secs % 60)}`;
  return frac === 0 ? base : `${base}.${p(frac, 6).replace(/0+$/, '')}`;
}

/**
 * DuckDB's text of a DATE held as the timestamp of its midnight (µs): `2024-01-31` (the day
 * `us` falls on, UTC). Null for a non-finite value.
 */
export function dateText(us: number): string | null {
  const t = timestampText(us);
  return t === null ? null : t.slice(0, t.indexOf(' ') < 0 ? t.length : t.indexOf(' '));
}

/**
 * The DATE of a timestamp (µs): the midnight of the UTC day it falls on, floored (1969-12-31
 * 23:00 is the 31st), as DuckDB casts TIMESTAMP to DATE. Non-finite stays.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE when that midnight is before the first µs canopy holds (-2^53)
 */
export function dayOf(us: number): number {
  if (!Number.isFinite(us)) return us;
  const d = Math.floor(us / US_PER_DAY) * US_PER_DAY;
  if (d < -MAX_TIMESTAMP_US) throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `the DATE of ${timestampText(us)} is before the first day canopy holds (the years 1685 to 2255)`);
  return d;
}

/** The day number (days since 1970-01-01, floored) of a timestamp or DATE in µs: an Arrow Date32 value. */
export function dayNumber(us: number): number {
  return Math.floor(us / US_PER_DAY);
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
 * A timestamp estimated as a double (an interpolation, a sketch's bucket) as whole µs: rounded
 * half away from zero, as DuckDB rounds an interpolated TIMESTAMP; non-finite values as they are.
 */
export function wholeMicros(us: number): number {
  return Number.isInteger(us) || !Number.isFinite(us) ? us : Math.sign(us) * Math.round(Math.abs(us));
}

/**
 * ISO-8601 rendering of a timestamp in µs: `2024-01-01T00:00:00.000Z`, with microseconds
 * (`...00.000250Z`) when they are not zero; a fraction of a µs (an estimate) is rounded
 * ({@link wholeMicros}). Null for a non-finite value.
 */
export function isoFromMicros(us: number): string | null {
  if (!Number.isFinite(us)) return null;
  us = wholeMicros(us);
  const ms = Math.floor(us / US_PER_MS);
  const rest = us - ms * US_PER_MS;
  const iso = new Date(ms).toISOString();
  return rest === 0 ? iso : `${iso.slice(0, -1)}${String(rest).padStart(3, '0')}Z`;
}

const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?\s*([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  y -= m <= 2 ? 1 : 0;
  const era = Math.floor(y / 400);
  const yoe = y - era * 400;
  const doy = Math.floor((153 * (m + (m > 2 ? -3 : 9)) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Days in month `m` (1-12) of proleptic Gregorian year `y`. */
export function daysInMonth(y: number, m: number): number {
  if (m === 2) return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0 ? 29 : 28;
  return m === 4 || m === 6 || m === 9 || m === 11 ? 30 : 31;
}

/** {@link parseIsoTimestamp}'s refusal of a nonzero UTC offset where offsets are refused. */
export class OffsetRefused extends RangeError {}

/**
 * µs since the epoch of an ISO-8601 date (`2001-01-31`) or date-time (`2001-01-31T08:05`,
 * `...:07`, `...:07.123456`, a space instead of `T`, an optional `Z` or `+hh:mm` / `+hhmm` /
 * `+hh` offset; zone-less means UTC). One parser for CSV values and SQL literals.
 * @param offsets 'convert' (CSV values): an offset gives the UTC instant; 'refuse' (SQL
 *   literals and casts): a nonzero offset is an error, since DuckDB's TIMESTAMP drops it
 *   ('2001-01-01T02:00+02:00'::TIMESTAMP is 02:00) where a reader means 00:00 UTC
 * @returns null when `s` is not such a value or names an impossible date or time
 * @throws RangeError when it is one but cannot be held exactly: a fraction finer than a
 *   microsecond (7 to 9 digits, not all trailing zeros) or an instant outside ±2^53 µs; or
 *   it has a nonzero offset and `offsets` is 'refuse' (the message gives the UTC time)
 */
export function parseIsoTimestamp(s: string, offsets: 'convert' | 'refuse' = 'convert'): number | null {
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
  if (offsets === 'refuse' && offsetMin !== 0) {
    throw new OffsetRefused(`'${s}' has a UTC offset (${z!}): canopy's timestamps are UTC without a zone and DuckDB's TIMESTAMP would drop the offset, so write the UTC time, '${timestampText(t)}'`);
  }
  return t;
}

/** DuckDB's StringUtil::CharacterIsSpace: space, \t, \n, \v, \f, \r. */
const DUCK_SPACE = /[ \t\n\v\f\r]/;

/**
 * Reads a string as DuckDB casts it to DATE (Date::TryConvertDate, non-strict, DuckDB 1.x
 * src/common/types/date.cpp): leading spaces skipped, an optional `-`, the year's digits, a
 * separator (space, `-`, `/` or `\`), a month of one or two digits, the same separator, a day
 * of one or two digits, an optional ` (BC)`, then anything but a digit (`2024-01-31 12:00`,
 * `2024-01-31T12:00Z` and `2024-1-5 ` are days); `epoch` (any case, spaces after it) is
 * 1970-01-01, `infinity` (spaces after it) and `inf` (nothing after it) infinite. Checked
 * against DuckDB 1.5 over thousands of such strings (test/date-type-duckdb.test.ts).
 * @returns the µs of the day's midnight; `null` when DuckDB does not read the text as a date
 *   (its Conversion Error; TRY_CAST's NULL); `'outside'` for a date DuckDB reads that canopy
 *   cannot hold (infinity, a year BC, a day outside the years 1685 to 2255)
 */
export function parseDuckDate(text: string): number | null | 'outside' {
  let pos = 0;
  const len = text.length;
  while (pos < len && DUCK_SPACE.test(text[pos]!)) pos++;
  if (pos >= len) return null;
  let negative = false;
  if (text[pos] === '-') {
    negative = true;
    pos++;
    if (pos >= len) return null;
  }
  const digit = (i: number): boolean => i < len && text.charCodeAt(i) >= 48 && text.charCodeAt(i) <= 57;
  if (!digit(pos)) {
    // 'infinity' and 'epoch' (spaces after them read), or 'inf' ending the text (DuckDB 1.5: 'inf ' is no date).
    const rest = text.slice(pos).toLowerCase();
    if (rest === 'inf') return 'outside';
    const word = rest.startsWith('infinity') ? 'infinity' : rest.startsWith('epoch') ? 'epoch' : null;
    if (word === null || !/^[ \t\n\v\f\r]*$/.test(rest.slice(word.length))) return null;
    return word === 'epoch' ? 0 : 'outside';
  }
  let year = 0;
  for (; digit(pos); pos++) {
    if (year >= 100_000_000) return null;
    year = year * 10 + text.charCodeAt(pos) - 48;
  }
  if (pos >= len) return null;
  const sep = text[pos++];
  if (sep !== ' ' && sep !== '-' && sep !== '/' && sep !== '\\') return null;
  // One or two digits (DuckDB's ParseDoubleDigit).
  const twoDigits = (): number | null => {
    if (!digit(pos)) return null;
    let v = text.charCodeAt(pos++) - 48;
    if (digit(pos)) v = v * 10 + text.charCodeAt(pos++) - 48;
    return v;
  };
  const month = twoDigits();
  if (month === null || pos >= len || text[pos++] !== sep || pos >= len) return null;
  const day = twoDigits();
  if (day === null) return null;
  let bc = false;
  if (len - pos >= 5 && DUCK_SPACE.test(text[pos]!) && text[pos + 1] === '(' && text[pos + 2]!.toLowerCase() === 'b' && text[pos + 3]!.toLowerCase() === 'c' && text[pos + 4] === ')') {
    if (negative || year === 0) return null;
    bc = true;
    pos += 5;
  }
  if (digit(pos)) return null;
  // The proleptic year DuckDB checks the day in: -y for '-y', 1 - y for 'y (BC)' (1 BC is year 0).
  const y = negative ? -year : bc ? 1 - year : year;
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(y, month)) return null;
  // Past DuckDB's DATE range (-5877641-06-25 to 5881580-07-10) no date; near its ends canopy does not decide.
  if (y < -5_877_641 || y > 5_881_580) return null;
  if (negative || bc) return 'outside';
  const us = daysFromCivil(year, month, day) * US_PER_DAY;
  return checkMicros(us) === null ? us : 'outside';
}
