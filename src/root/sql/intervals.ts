/**
 * DuckDB's INTERVAL values as canopy folds them while lowering: canopy has no INTERVAL column
 * type, so an INTERVAL is a constant of the query (a literal, and sums, differences, negations
 * and integer multiples of literals), which a timestamp takes (`ts + INTERVAL '1 day'`), which
 * compares to another (a BOOLEAN constant) or which is cast to VARCHAR (DuckDB's text). The
 * value is DuckDB's interval_t (src/include/duckdb/common/types/interval.hpp): months and days
 * (int32) and microseconds (int64), each signed and kept apart (`1 day` is not `24 hours`,
 * though the two compare equal).
 */
import { fail } from './errors.ts';

/** A DuckDB INTERVAL: months, days and microseconds (integers, each with its own sign). */
export interface Interval {
  readonly months: number;
  readonly days: number;
  readonly micros: number;
}

const INT32_MAX = 2 ** 31 - 1;
const INT32_MIN = -(2 ** 31);
const MICROS_PER_DAY = 86_400_000_000;

/**
 * `iv` after checking its fields fit DuckDB's (months and days int32) and canopy's exact
 * µs (|micros| < 2^53, where DuckDB holds int64).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE naming `what` when a field does not fit
 */
export function checkedInterval(iv: Interval, what: string): Interval {
  const int32 = (x: number): boolean => x >= INT32_MIN && x <= INT32_MAX;
  if (!int32(iv.months) || !int32(iv.days)) fail('CANOPY_ERR_OUT_OF_RANGE', `${what}: the INTERVAL's months or days pass DuckDB's 32-bit range`);
  if (!Number.isSafeInteger(iv.micros)) fail('CANOPY_ERR_OUT_OF_RANGE', `${what}: the INTERVAL's microseconds pass ±2^53, beyond what canopy holds exactly`);
  // -0 (from negating or scaling a zero) is 0.
  return { months: iv.months + 0, days: iv.days + 0, micros: iv.micros + 0 };
}

/** `a + sign·b`, field by field, as DuckDB adds and subtracts intervals (an overflow is an error). */
export function addIntervals(a: Interval, b: Interval, sign: 1 | -1, what: string): Interval {
  return checkedInterval({ months: a.months + sign * b.months, days: a.days + sign * b.days, micros: a.micros + sign * b.micros }, what);
}

/** `iv · k` for an integer k, field by field, as DuckDB multiplies an INTERVAL by a BIGINT. */
export function scaleInterval(iv: Interval, k: bigint, what: string): Interval {
  const f = (x: number): number => {
    const v = BigInt(x) * k;
    return v > BigInt(Number.MAX_SAFE_INTEGER) || v < -BigInt(Number.MAX_SAFE_INTEGER) ? Infinity : Number(v);
  };
  return checkedInterval({ months: f(iv.months), days: f(iv.days), micros: f(iv.micros) }, what);
}

/**
 * DuckDB's normalised form of an interval, for comparing (Interval::Normalize in
 * src/common/types/interval.cpp, "carry left"): whole days of the µs carried into the days,
 * then whole 30-day months of the days into the months, each division truncating toward zero
 * as C++ does (`28 days 432000 seconds` is `1 month 3 days`).
 */
function normalized(iv: Interval): [number, number, number] {
  const carryDays = Math.trunc(iv.micros / MICROS_PER_DAY);
  const days = iv.days + carryDays;
  const carryMonths = Math.trunc(days / 30);
  return [iv.months + carryMonths, days - carryMonths * 30, iv.micros - carryDays * MICROS_PER_DAY];
}

/** -1, 0 or 1 as `a` is below, equal to or above `b` in DuckDB's INTERVAL order (its normalised fields, months first). */
export function compareIntervals(a: Interval, b: Interval): -1 | 0 | 1 {
  const x = normalized(a);
  const y = normalized(b);
  for (let i = 0; i < 3; i++) if (x[i] !== y[i]) return x[i]! < y[i]! ? -1 : 1;
  return 0;
}

/**
 * DuckDB's text of an interval (IntervalToStringCast::Format in
 * src/include/duckdb/common/operator/string_cast.hpp): `N year(s)`, `N month(s)`, `N day(s)`
 * (singular for ±1), then the µs as `[-]HH:MM:SS[.ffffff]` with the fraction's trailing zeros
 * cut; `00:00:00` for a zero interval. E.g. `-2 years 4 days 05:01:03.020016`, `25:00:00`,
 * `1 day -01:00:00`.
 */
export function intervalText(iv: Interval): string {
  const parts: string[] = [];
  const word = (n: number, unit: string): void => {
    if (n !== 0) parts.push(`${n} ${unit}${n === 1 || n === -1 ? '' : 's'}`);
  };
  const years = Math.trunc(iv.months / 12);
  word(years, 'year');
  word(iv.months - years * 12, 'month');
  word(iv.days, 'day');
  if (iv.micros !== 0 || parts.length === 0) {
    let us = BigInt(Math.abs(iv.micros));
    const hours = us / 3_600_000_000n;
    us -= hours * 3_600_000_000n;
    const minutes = us / 60_000_000n;
    us -= minutes * 60_000_000n;
    const seconds = us / 1_000_000n;
    us -= seconds * 1_000_000n;
    const two = (v: bigint): string => String(v).padStart(2, '0');
    const fraction = us === 0n ? '' : `.${String(us).padStart(6, '0').replace(/0+$/, '')}`;
    parts.push(`${iv.micros < 0 ? '-' : ''}${two(hours)}:${two(minutes)}:${two(seconds)}${fraction}`);
  }
  return parts.join(' ');
}
