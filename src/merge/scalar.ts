/**
 * Scalar semantics of every expression node (pure): one value at a time, in DuckDB 1.x's
 * semantics, shared by the root (post-aggregation expressions, constant folding) and the
 * leaf (per dictionary entry of string columns, and the per-row path of rare nodes). The
 * leaf's batch kernels (src/leaf/expr.ts) must agree with these functions; its tests check
 * that against DuckDB.
 *
 * Values: int64 is `bigint`, float64 and timestamp (µs) `number`, string `string`, bool
 * `boolean`, NULL `null`.
 */
import { compareSql, compareValues } from './compare.ts';
import { RE2JS } from 're2js';
import { CanopyError, ValueError } from './errors.ts';
import { likeMatcher, type LikeMatcher } from './like.ts';
import { callMore } from './scalar-more.ts';
import { MAX_TIMESTAMP_US, OffsetRefused, US_PER_DAY, addInterval, checkedTimestamp, dateDiff, dateSub, daysFromCivil, daysInMonth, extractField, formatTimestamp, parseDuckDate, parseIsoTimestamp, dateText, dayOf, timeBucket, timestampText, truncMicros } from './time.ts';
import { strptime } from './strptime.ts';
import type { ArithOp, ColumnType, ScalarFn, ScalarNode, Scalar, TruncUnit } from './types.ts';
import { INT64_MIN, INT64_MAX, INT128_MIN, INT128_MAX } from './int-range.ts';

/** @throws CanopyError CANOPY_ERR_OUT_OF_RANGE */
export function outOfRange(message: string): never {
  throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', message);
}

/**
 * Longest string a scalar function may make, in characters (UTF-16 code units): 1 MiB of
 * them. DuckDB allows 4 GB; a node holds many values per batch in memory at once, so
 * lpad(s, 1e9, 'x') or nested replace() refuses here instead of exhausting the process.
 */
export const MAX_STRING_LENGTH = 1_048_576;

/**
 * Refuses a string result of `length` characters above {@link MAX_STRING_LENGTH}.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE naming `what` (the function) and the length
 */
export function checkStringLength(length: number, what: string): void {
  if (length > MAX_STRING_LENGTH) {
    outOfRange(`${what} would make a string of ${length} characters; canopy's strings hold at most ${MAX_STRING_LENGTH} (1 MiB of characters)`);
  }
}

/**
 * Characters of computed strings one evaluation may hold at once: a leaf's batch (per row or
 * per dictionary entry), the root's post-aggregation expressions of one answer. 64 Mi
 * characters (128 MiB as UTF-16 at worst): a batch of 8,192 rows of 1 MiB strings would not fit.
 */
export const MAX_COMPUTED_STRING_CHARS = 64 * 1024 * 1024;

/**
 * Counts the characters of the strings one evaluation computes (`where` names it in the
 * error: "batch 0 of shard 3", "the answer").
 * @throws CanopyError CANOPY_ERR_LIMIT from {@link StringTally.add} once they pass MAX_COMPUTED_STRING_CHARS
 */
export class StringTally {
  #chars = 0;
  readonly #where: string;

  constructor(where: string) {
    this.#where = where;
  }

  /** `v`, counted when it is a string. */
  add<T extends Scalar>(v: T): T {
    if (typeof v === 'string' && (this.#chars += v.length) > MAX_COMPUTED_STRING_CHARS) {
      throw new CanopyError('CANOPY_ERR_LIMIT', `the strings computed for ${this.#where} pass ${MAX_COMPUTED_STRING_CHARS} characters (64 Mi); make fewer or shorter strings (lpad, replace, ||)`);
    }
    return v;
  }
}

/** Checks an int64 result. @throws CanopyError CANOPY_ERR_OUT_OF_RANGE naming the operation */
export function checkInt64(v: bigint, what: string): bigint {
  if (v < INT64_MIN || v > INT64_MAX) throw new ValueError(`overflow in ${what} of INT64 (${v} is outside the int64 range)`);
  return v;
}

/** Checks an int128 (DuckDB's HUGEINT) result. @throws CanopyError CANOPY_ERR_OUT_OF_RANGE naming the operation */
export function checkInt128(v: bigint, what: string): bigint {
  if (v < INT128_MIN || v > INT128_MAX) throw new ValueError(`overflow in ${what} of INT128 (${v} is outside the HUGEINT range)`);
  return v;
}

/** Checks an integer result of `type` (int64 or int128). */
const checkInt = (v: bigint, what: string, type: ColumnType): bigint => (type === 'int128' ? checkInt128(v, what) : checkInt64(v, what));

const toNum = (v: Scalar): number => (typeof v === 'bigint' ? Number(v) : (v as number));

const NARROW_NAMES = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER' } as const;

/**
 * An integer cast to DuckDB's TINYINT, SMALLINT or INTEGER (`bits`): itself within the range,
 * else NULL under TRY_CAST. `source`, when the value was a DOUBLE before it was rounded to
 * `v`, is checked as DuckDB checks a double (min <= x < max + 1, before rounding; measured
 * with DuckDB 1.x, test/sql-surface-duckdb.test.ts): -128.3 does not convert to
 * TINYINT although it rounds to -128; and 127.5 <= x < 128, which DuckDB passes and then
 * rounds to 128, wrapping to -128, is refused (even under TRY_CAST) rather than answered so.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE outside the range, as DuckDB refuses it, and for
 *   a double DuckDB wraps
 */
export function narrowInteger(v: Scalar, bits: 8 | 16 | 32, tryCast = false, source?: Scalar): Scalar {
  if (typeof v !== 'bigint') return v;
  const max = (1n << BigInt(bits - 1)) - 1n;
  if (typeof source === 'number') {
    if (v === max + 1n && source < Number(max) + 1) {
      outOfRange(`CAST: DuckDB casts the DOUBLE ${source} to the ${NARROW_NAMES[bits]} ${-max - 1n} (it checks the range before rounding to ${v}, which wraps); canopy refuses it`);
    }
    if (source < Number(-max - 1n)) return tryCast ? null : outOfRange(`CAST: the DOUBLE ${source} is out of the ${NARROW_NAMES[bits]} range (${-max - 1n} to ${max}, checked before rounding as DuckDB does)`);
  }
  if (v >= -max - 1n && v <= max) return v;
  if (tryCast) return null;
  return outOfRange(`CAST: ${v} is out of the ${NARROW_NAMES[bits]} range (${-max - 1n} to ${max})`);
}

const NARROW_DUCK_NAMES = { 8: 'INT8', 16: 'INT16', 32: 'INT32' } as const;

/**
 * The int64 result `v` of integer arithmetic DuckDB computes in `bits` bits (its binder's
 * TINYINT, SMALLINT or INTEGER: src/root/sql/expressions.ts duckWidth), itself when it fits.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE outside the range, as DuckDB's "Overflow in
 *   addition of INT32" (TRY does not catch it: canopy refuses TRY over such arithmetic)
 */
export function narrowResult(v: Scalar, bits: 8 | 16 | 32, operation: string): Scalar {
  if (typeof v !== 'bigint') return v;
  const max = (1n << BigInt(bits - 1)) - 1n;
  if (v >= -max - 1n && v <= max) return v;
  return outOfRange(`Overflow in ${operation} of ${NARROW_DUCK_NAMES[bits]}: the result ${v} is outside the ${NARROW_NAMES[bits]} range (${-max - 1n} to ${max}), the type DuckDB computes it in (integer literals are INTEGER, a cast to ${NARROW_NAMES[bits]} keeps that type); cast an operand to BIGINT`);
}

/**
 * A cast of `v` (of type `from`: int64, float64 or bool) to DuckDB's unsigned integer of
 * `bits` bits, as an int64 in [0, 2^bits), else NULL under TRY_CAST. A double is checked as
 * DuckDB checks it (0 <= x < 2^bits before rounding half to even, so -0.4 does not convert and
 * -0.0 is 0; measured with DuckDB 1.x, test/sql-surface2-duckdb.test.ts); one DuckDB passes
 * and then rounds to 2^bits, which wraps to 0 there (255.5 as UTINYINT), is refused even
 * under TRY_CAST, as is a UBIGINT beyond int64, which canopy does not hold.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE outside the range (not under TRY_CAST), for a
 *   double DuckDB wraps, and for a value past int64
 */
export function castUnsigned(v: Scalar, bits: 8 | 16 | 32 | 64, tryCast: boolean): Scalar {
  if (v === null) return null;
  const name = UNSIGNED_NAMES[bits];
  const top = 1n << BigInt(bits);
  const outside = (shown: string): Scalar => (tryCast ? null : outOfRange(`CAST: ${shown} is out of the ${name} range (0 to ${top - 1n})`));
  if (typeof v === 'boolean') return v ? 1n : 0n;
  if (typeof v === 'number') {
    if (Number.isNaN(v) || v < 0 || v >= Number(top)) return outside(`the DOUBLE ${v}`);
    if (v >= 2 ** 63) return outOfRange(`CAST: the DOUBLE ${v} fits DuckDB's ${name} but not BIGINT, which canopy holds`);
    const r = BigInt(roundHalfEven(v));
    if (r >= top) return outOfRange(`CAST: DuckDB casts the DOUBLE ${v} to the ${name} 0 (it checks the range before rounding to ${r}, which wraps); canopy refuses it`);
    return r;
  }
  if (typeof v === 'bigint') return v >= 0n && v < top ? v : outside(String(v));
  if (typeof v === 'string') return castStringUnsigned(v, bits, tryCast);
  return outOfRange(`CAST: a ${typeof v} to ${name} is not supported`);
}

/**
 * A string cast to DuckDB's unsigned type of `bits`, as DuckDB reads it: a text opening with
 * '-' (after leading spaces) is only '-' and zeros, which is 0 ('-0', ' -00'; '-0.0', '-0 ',
 * '-0e5' are not numbers there); any other is read as for BIGINT (rounding a fraction half away
 * from zero, exponents, '0x' / '0b', '_' between digits: {@link castValue}) and must then fit.
 * A UBIGINT text that BIGINT does not read may be one past 2^63 that DuckDB holds: refused, not
 * NULL, unless it holds no digit at all.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE (DuckDB's conversion error, or what canopy cannot tell)
 */
function castStringUnsigned(v: string, bits: 8 | 16 | 32 | 64, tryCast: boolean): Scalar {
  const name = UNSIGNED_NAMES[bits];
  const notNumber = (): Scalar => (tryCast ? null : outOfRange(`Could not convert string '${v}' to ${name}`));
  const t = v.replace(LEADING_SPACE, '');
  if (t.startsWith('-')) return /^-0+$/.test(t) ? 0n : notNumber();
  let r: Scalar;
  try {
    r = castValue(v, 'int64', tryCast);
  } catch (e) {
    if (bits === 64 && e instanceof CanopyError && !(e.cause instanceof NotDuckDbs) && /[0-9]/.test(v)) outOfRange(`CAST: '${v}' may be a UBIGINT past BIGINT, which DuckDB holds and canopy does not`);
    throw e;
  }
  if (r === null) return bits === 64 && /[0-9]/.test(v) ? outOfRange(`TRY_CAST: '${v}' may be a UBIGINT past BIGINT, which DuckDB holds and canopy does not; canopy refuses rather than give NULL`) : null;
  const n = r as bigint;
  return n >= 0n && n < 1n << BigInt(bits) ? n : notNumber();
}

const UNSIGNED_NAMES = { 8: 'UTINYINT', 16: 'USMALLINT', 32: 'UINTEGER', 64: 'UBIGINT' } as const;

/**
 * `a op b` for a result of type `type` (int64: both operands int64; float64 otherwise).
 * `/` is float division, `//` integer division toward zero and `%` the remainder; `//`, `%` by
 * zero are NULL (DuckDB). NULL in, NULL out.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE on int64 overflow (-2^63 % -1 too: DuckDB
 *   divides to find the remainder and raises "Overflow in division of -9223372036854775808 / -1";
 *   so is -2^127 % -1; an int128 sum equal to -2^63, whose remainder DuckDB gives as 0, is refused
 *   with it, as the operands' widths are not known here)
 */
export function arith(op: ArithOp, type: ColumnType, a: Scalar, b: Scalar): Scalar {
  if (a === null || b === null) return null;
  if (type === 'int128' && op !== '/') return arith128(op, BigInt(a as bigint), BigInt(b as bigint));
  if (type === 'int64' && op !== '/') {
    const x = BigInt(a as bigint);
    const y = BigInt(b as bigint);
    switch (op) {
      case '+':
        return checkInt64(x + y, 'addition');
      case '-':
        return checkInt64(x - y, 'subtraction');
      case '*':
        return checkInt64(x * y, 'multiplication');
      case '//':
        return y === 0n ? null : checkInt64(x / y, 'division');
      default:
        // DuckDB computes the remainder after dividing: -2^63 % -1 overflows as -2^63 // -1 does
        // (and -2^127 % -1, an int128 literal's, as HUGEINT).
        if (y === -1n && (x === INT64_MIN || x === -(2n ** 127n))) outOfRange(`overflow in division of ${x} % ${y} (DuckDB divides first, and ${-x} is outside the ${x === INT64_MIN ? 'INT64' : 'INT128'} range)`);
        return y === 0n ? null : x % y;
    }
  }
  const x = toNum(a);
  const y = toNum(b);
  switch (op) {
    case '+':
      return x + y;
    case '-':
      return x - y;
    case '*':
      return x * y;
    case '/':
      return x / y;
    case '//':
      // DuckDB: over doubles `//` divides as `/`, but by zero it is NULL (`/` gives ±inf or NaN).
      return y === 0 ? null : x / y;
    default:
      return x % y;
  }
}

/**
 * HUGEINT arithmetic (`+ - * // %` over int128, an operand of another integer type widened),
 * as DuckDB: an overflow past ±2^127 is an error, so is -2^127 // -1 and -2^127 % -1 (DuckDB
 * divides to find the remainder), and a product of -2^127 from factors other than 1 (DuckDB
 * multiplies the magnitudes, which stop at 2^127 - 1: -2^126 * 2 overflows); by zero NULL.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE on overflow
 */
function arith128(op: ArithOp, x: bigint, y: bigint): bigint | null {
  switch (op) {
    case '+':
      return checkInt128(x + y, 'addition');
    case '-':
      return checkInt128(x - y, 'subtraction');
    case '*': {
      const p = x * y;
      if (p === INT128_MIN && x !== 1n && y !== 1n) throw new ValueError(`overflow in multiplication of INT128 (${x} * ${y})`);
      return checkInt128(p, 'multiplication');
    }
    default:
      if (y === 0n) return null;
      if (x === INT128_MIN && y === -1n) throw new ValueError(`overflow in division of ${x} / ${y} (INT128)`);
      return op === '%' ? x % y : x / y;
  }
}

/** Unary minus, in int128 when `type` says so. @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for -(-2^63) (-(-2^127) in int128) */
export function negate(v: Scalar, type: ColumnType = 'int64'): Scalar {
  if (v === null) return null;
  if (typeof v === 'bigint') return checkInt(-v, 'negation', type);
  return -(v as number);
}

/** One double's bytes, to read a NaN's sign bit. */
const SIGN_PROBE = new DataView(new ArrayBuffer(8));

/** The quiet NaN with its sign bit set (0xfff8000000000000): DuckDB's '-nan'::DOUBLE, printed `-nan`. */
export const NEGATIVE_NAN = ((): number => {
  const v = new DataView(new ArrayBuffer(8));
  v.setUint32(0, 0xfff80000);
  return v.getFloat64(0);
})();

/**
 * Whether `x` is a NaN with its sign bit set. DuckDB prints such a NaN as `-nan` (C's printf):
 * the NaN an invalid operation makes (inf * 0, inf - inf, 0 / 0) has it on x86, as has the
 * negation of `'nan'::DOUBLE`; JavaScript's arithmetic and typed arrays carry the bit as the
 * same hardware sets it (a NaN parsed from text has it clear, as DuckDB's 'nan').
 */
export function negativeNaN(x: number): boolean {
  if (!Number.isNaN(x)) return false;
  SIGN_PROBE.setFloat64(0, x);
  return SIGN_PROBE.getUint8(0) >= 0x80;
}

/**
 * DuckDB's text of a double: shortest round-trip digits, `.0` on integral values below 1e16,
 * exponent form `1e+20` / `1e-07` beyond, `nan` (`-nan` for a NaN whose sign bit is set,
 * {@link negativeNaN}), `inf`, `-inf`.
 */
export function doubleText(x: number): string {
  if (Number.isNaN(x)) return negativeNaN(x) ? '-nan' : 'nan';
  if (x === Infinity) return 'inf';
  if (x === -Infinity) return '-inf';
  if (x === 0) return Object.is(x, -0) ? '-0.0' : '0.0';
  const a = Math.abs(x);
  if (a >= 1e16 || a < 1e-4) {
    const [m, e] = x.toExponential().split('e') as [string, string];
    const exp = Number(e);
    return `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`;
  }
  const s = String(x);
  return Number.isInteger(x) ? `${s}.0` : s;
}

/** DuckDB's whitespace around a number in a cast: ASCII space, tab, LF, VT, FF and CR only (not U+00A0 or U+FEFF). */
const LEADING_SPACE = /^[ \t\n\v\f\r]+/;
const TRAILING_SPACE = /[ \t\n\v\f\r]+$/;

/**
 * `s` without the ASCII whitespace (space, \t, \n, \v, \f, \r) around it, the only whitespace
 * DuckDB's casts and its CSV reader skip: U+00A0, U+3000 or U+FEFF next to a number keep it a
 * string (String's trim() would drop them, and '\u00a05' would become 5).
 */
export function trimAscii(s: string): string {
  const ws = (c: number): boolean => c === 32 || (c >= 9 && c <= 13);
  let a = 0;
  let b = s.length;
  while (a < b && ws(s.charCodeAt(a))) a++;
  while (b > a && ws(s.charCodeAt(b - 1))) b--;
  return a === 0 && b === s.length ? s : s.slice(a, b);
}

/**
 * A number text with its digit groups joined, as DuckDB casts it: single underscores between
 * two digits (`1_000`, `1_0.5`, `.5_5`, `1e1_0`); null when an underscore stands elsewhere
 * (`_1`, `1_`, `1__0`, `1_.5`, `1e_1`). A text without underscores is returned as it is.
 */
function joinDigitGroups(t: string): string | null {
  if (!t.includes('_')) return t;
  return /^\+?-?(\d+(_\d+)*)?(\.(\d+(_\d+)*)?)?([eE][+-]?\d+(_\d+)*)?$/.test(t) ? t.replaceAll('_', '') : null;
}

/** `0x1f` / `0b101` (digits grouped by single underscores; no sign; leading ASCII space only, as DuckDB) as an integer, or null. */
function radixInteger(v: string): bigint | null {
  const m = /^0([xX][0-9a-fA-F]+(?:_[0-9a-fA-F]+)*|[bB][01]+(?:_[01]+)*)$/.exec(v.replace(LEADING_SPACE, ''));
  return m === null ? null : BigInt(`0${m[1]!.replaceAll('_', '').toLowerCase()}`);
}

/** A value that does not convert: a {@link ValueError} unless a string DuckDB may read. */
const castError = (v: Scalar, to: ColumnType): never => {
  const message = `could not convert ${typeof v === 'string' ? `string '${v}'` : String(v)} to ${to}`;
  if (typeof v !== 'string' || duckdbRefuses(v, to)) throw new ValueError(message);
  return outOfRange(message);
};

/**
 * CAST between the loaded types (int64, float64, string, timestamp, bool) and DATE. double -> int64
 * rounds half to even (DuckDB's nearbyint: 2.5 -> 2, -1.5 -> -2) and refuses NaN/inf/out of
 * range (a DECIMAL literal such as `CAST(2.5 AS BIGINT)` is cast by the planner, half away
 * from zero, as DuckDB casts DECIMAL); strings parse as DuckDB casts them: a number with ASCII
 * whitespace around it (not U+00A0, U+FEFF or other Unicode spaces) and digits grouped by
 * single underscores (`'1_000'`), an integer also in hex or binary (`'0x1f'`, `'0b101'`), a
 * decimal string to int64 half away from zero ('2.5' -> 3, '-2.5' -> -3); a boolean with no
 * whitespace; a timestamp with leading whitespace only; a DATE as DuckDB reads one
 * ({@link parseDuckDate}), and a timestamp's DATE its UTC day, floored ({@link dayOf}).
 * Timestamps render as `YYYY-MM-DD HH:MM:SS[.ffffff]`.
 * A string with a nonzero UTC offset does not cast to a timestamp (DuckDB drops the offset).
 * @param tryCast TRY_CAST: NULL instead of an error
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE when the value does not convert;
 *   also under TRY_CAST for a timestamp string with a nonzero UTC offset
 */
export function castValue(v: Scalar, to: ColumnType, tryCast = false): Scalar {
  if (v === null) return null;
  try {
    return castStrict(v, to);
  } catch (e) {
    if (!tryCast || !(e instanceof CanopyError) || e.cause instanceof OffsetRefused || e.cause instanceof NotDuckDbs) throw e;
    if (typeof v === 'string' && !duckdbRefuses(v, to)) {
      throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `TRY_CAST: '${v}' does not convert to ${to} in canopy, but DuckDB may convert it, so canopy refuses rather than give NULL (${e.message})`, { cause: e });
    }
    return null;
  }
}

/** ASCII digits; a sign or exponent left open before trailing whitespace ('+ ', '1e\t': DuckDB 1.5 reads 0 and 1). */
const DIGIT = /[0-9]/;
const OPEN_BEFORE_SPACE = /^[ \t\n\v\f\r]*(?:[+-]|[+-]?[0-9._]*[eE][+-]?)[ \t\n\v\f\r]+$/;
const ISO_PREFIX = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2}))?)?/;

/**
 * Whether DuckDB certainly refuses to cast the string `v`, which canopy does not convert, to
 * `to` (TRY_CAST is then NULL; otherwise canopy refuses the query, as DuckDB may read it: it
 * reads more timestamp forms than canopy, '2024/1/1', '24:00:00', 'epoch', 'infinity', years
 * before 1685 or past 2255, and '1e ' as a BIGINT). A timestamp is refused there when the
 * text has no digit and is not such a word, begins with something other than a digit or sign,
 * ends in whitespace, or is `yyyy-mm-dd[ hh:mm[:ss]]` with a month, day, minute or second out
 * of range or an hour past 24:00:00 (checked against DuckDB: test/sql-surface-duckdb.test.ts).
 */
function duckdbRefuses(v: string, to: ColumnType): boolean {
  if (to === 'int64' || to === 'int128') return !OPEN_BEFORE_SPACE.test(v);
  if (to !== 'timestamp') return true;
  const t = v.replace(LEADING_SPACE, '');
  if (/inf|epoch/i.test(t)) return false;
  if (!DIGIT.test(t) || /^[^0-9+-]/.test(t) || TRAILING_SPACE.test(t)) return true;
  const m = ISO_PREFIX.exec(t);
  if (m === null) return false;
  const [y, mo, d, hh, mi, ss] = m.slice(1).map((x) => (x === undefined ? 0 : Number(x))) as [number, number, number, number, number, number];
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) return true;
  return mi > 59 || ss > 59 || hh > 24 || (hh === 24 && (mi > 0 || ss > 0));
}

/**
 * Refuses the cast of `v` to an integer when its digits, before and after the point together
 * (leading zeros aside), pass `limit` as one integer, or its digits after the point are more
 * than `maxTotal`: DuckDB gathers them in the target type and answers its own way there
 * (TRY_CAST('1.9223372036854775807e0' AS BIGINT) is 0, '1.' followed by 44 nines is NULL as
 * HUGEINT, so is '0.' with 60 zeros and '1e5'), so canopy refuses rather than give its rounding.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE
 */
function longMantissa(v: string, whole: string, fraction: string, limit: bigint, maxTotal = Infinity): void {
  const digits = (whole + fraction).replace(/^0+/, '');
  if ((digits === '' || BigInt(digits) <= limit) && fraction.length <= maxTotal) return;
  const message = `CAST of '${v}' to an integer: ${fraction.length > maxTotal ? `more than ${maxTotal} digits after the point` : 'its digits pass the type as one integer'}, which DuckDB reads its own way`;
  throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', message, { cause: new NotDuckDbs(message) });
}

/** The cause of a cast refused under TRY_CAST too: DuckDB gives a value of its own there, not NULL. */
class NotDuckDbs extends RangeError {}

/**
 * The integer nearest `digits`·10^`shift` (half away from zero), exactly, as DuckDB casts a
 * string such as '922337203685477580.9e1' (not through a double, which would round it first);
 * null when the written exponent is outside DuckDB's range (-32768 to 32767), or the value
 * is far beyond the int64 range.
 */
function exponentInteger(digits: string, shift: number, written: number, maxShift = 19): bigint | null {
  if (written < -32768 || written > 32767) return null;
  const d = BigInt(digits);
  if (d === 0n) return 0n;
  // Past 10^19 (10^39) no nonzero value fits an int64 (int128).
  if (shift >= 0) return shift > maxShift ? null : d * 10n ** BigInt(shift);
  if (-shift > digits.length + 1) return 0n;
  const scale = 10n ** BigInt(-shift);
  const q = d / scale;
  return 2n * (d % scale) >= scale ? q + 1n : q;
}

function castStrict(v: Exclude<Scalar, null>, to: ColumnType): Scalar {
  switch (to) {
    case 'int64':
    case 'int128': {
      // An int128 (a HUGEINT sum) narrows to int64 only within its range, as DuckDB refuses
      // `CAST(sum(b) AS BIGINT)` past it.
      if (typeof v === 'bigint') return to === 'int64' ? checkInt64(v, 'cast') : v;
      if (typeof v === 'boolean') return v ? 1n : 0n;
      if (typeof v === 'number') {
        if (!Number.isFinite(v)) return castError(v, to);
        // DuckDB's HUGEINT takes doubles strictly inside ±2^127 (-2^127 itself is refused).
        if (to === 'int128' && Math.abs(v) >= 2 ** 127) throw new ValueError(`CAST: the DOUBLE ${v} is outside the HUGEINT range`);
        return checkInt(BigInt(roundHalfEven(v)), 'cast', to);
      }
      // DuckDB reads hex and binary strings as BIGINT, not as HUGEINT ('0x1F'::HUGEINT fails).
      const radix = to === 'int64' ? radixInteger(v) : null;
      if (radix !== null) return checkInt64(radix, 'cast');
      const t = joinDigitGroups(trimAscii(v));
      if (t === null) return castError(v, to);
      if (/^[+-]?\d+$/.test(t)) return checkInt(BigInt(t), 'cast', to);
      // A decimal string rounds half away from zero, exactly, as DuckDB casts it ('2.5' -> 3).
      const dec = /^([+-]?)(\d*)\.(\d*)$/.exec(t);
      const limit = (to === 'int128' ? INT128_MAX : INT64_MAX) + ((dec ?? [])[1] === '-' || t.startsWith('-') ? 1n : 0n);
      if (dec !== null && (dec[2] !== '' || dec[3] !== '')) {
        // As HUGEINT DuckDB gathers a decimal's digits in the type (past it NULL); as BIGINT it keeps the whole part only.
        if (to === 'int128' && BigInt(dec[2] || '0') <= limit) longMantissa(v, dec[2]!, dec[3]!, limit);
        const r = BigInt(dec[2] || '0') + (dec[3]!.charAt(0) >= '5' ? 1n : 0n);
        return checkInt(dec[1] === '-' ? -r : r, 'cast', to);
      }
      const exp = /^([+-]?)(\d*)(?:\.(\d*))?e([+-]?\d+)$/i.exec(t);
      if (exp !== null && (exp[2] !== '' || (exp[3] ?? '') !== '')) {
        // DuckDB gathers the digits before the point in the target type first: past it the
        // cast fails, even where the exponent would scale the value into range ('1234...890e-20').
        if (BigInt(exp[2] || '0') > limit) return castError(v, to);
        longMantissa(v, exp[2]!, exp[3] ?? '', limit, to === 'int128' ? 40 : Infinity);
        const r = exponentInteger(exp[2]! + (exp[3] ?? ''), Number(exp[4]) - (exp[3] ?? '').length, Number(exp[4]), to === 'int128' ? 39 : 19);
        if (r !== null) return checkInt(exp[1] === '-' ? -r : r, 'cast', to);
      }
      return castError(v, to);
    }
    case 'float64':
    case 'timestamp': {
      if (to === 'timestamp' && typeof v === 'string') {
        let t: number | null;
        try {
          // Leading whitespace only, as DuckDB ('2024-01-01 ' does not convert).
          t = TRAILING_SPACE.test(v) ? null : parseIsoTimestamp(v.replace(LEADING_SPACE, ''), 'refuse');
        } catch (e) {
          // Not a value TRY_CAST makes NULL: DuckDB would give the wall time, dropping the offset.
          if (e instanceof OffsetRefused) throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `CAST: ${e.message}`, { cause: e });
          t = null;
        }
        return t === null ? castError(v, 'timestamp') : t;
      }
      if (typeof v === 'bigint') return Number(v);
      if (typeof v === 'boolean') return v ? 1 : 0;
      if (typeof v === 'number') return v;
      const joined = joinDigitGroups(trimAscii(v).toLowerCase());
      if (joined === null) return castError(v, 'float64');
      // DuckDB drops one leading '+' and reads the rest, which may open with '-' ('+-1' is -1).
      const t = joined.startsWith('+') ? joined.slice(1) : joined;
      if (/^-?nan(\([0-9a-z_]*\))?$/.test(t)) return t.startsWith('-') ? NEGATIVE_NAN : NaN;
      if (t === 'inf' || t === 'infinity') return Infinity;
      if (t === '-inf' || t === '-infinity') return -Infinity;
      if (/^-?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/.test(t)) return Number(t);
      return castError(v, 'float64');
    }
    case 'date': {
      // A timestamp (or DATE) to DATE: the UTC day it falls on, floored (1969-12-31 23:00 is the 31st).
      if (typeof v === 'number') return dayOf(v);
      if (typeof v !== 'string') return castError(v, 'date');
      const d = parseDuckDate(v);
      if (d === 'outside') {
        const message = `CAST of '${v}' to DATE: a date DuckDB reads that canopy does not hold (infinity, a year BC, or a day outside the years 1685 to 2255)`;
        throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', message, { cause: new NotDuckDbs(message) });
      }
      return d === null ? castError(v, 'date') : d;
    }
    case 'string':
      if (typeof v === 'string') return v;
      if (typeof v === 'bigint' || typeof v === 'boolean') return String(v);
      return doubleText(v);
    case 'bool': {
      if (typeof v === 'boolean') return v;
      if (typeof v === 'bigint') return v !== 0n;
      if (typeof v === 'number') return v !== 0;
      const t = v.toLowerCase();
      if (['true', 't', 'yes', 'y', '1'].includes(t)) return true;
      if (['false', 'f', 'no', 'n', '0'].includes(t)) return false;
      return castError(v, 'bool');
    }
  }
}

/** Timestamp text for casts to string (DuckDB's format). */
export function castTimestampToString(us: number): string | null {
  return timestampText(us);
}

/**
 * A [I]LIKE pattern as a matcher of whole strings over code points: `%` any run, `_` one code
 * point, `escape` (default none; DuckDB has no default escape) makes the next character
 * literal. ILIKE compares lower() of both sides, as DuckDB does. Matched without backtracking
 * ({@link likeMatcher}), so no pattern can stall a leaf.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for an ILIKE pattern holding a NUL character
 */
export function likeRegex(pattern: string, caseInsensitive: boolean, escape: string | null): LikeMatcher {
  if (!caseInsensitive) return likeMatcher(pattern, escape);
  // DuckDB's ILIKE reads its pattern as a C string, ending at the first NUL ('goose' ILIKE
  // 'goo' || chr(0) || 'se' is true there, the same text on both sides false): refused, not matched otherwise.
  // The code that refuses the whole query from a leaf (a computed pattern; a literal one is refused by the planner).
  if (pattern.includes('\u0000')) outOfRange('ILIKE with a NUL character (chr(0)) in its pattern is not supported: DuckDB ends the pattern at the NUL');
  // ILIKE as DuckDB: LIKE over lower() of both sides (the case mapping of lower(): İ is i);
  // the escape character is taken as written ('a%' ESCAPE 'A' has no escape once lowered).
  const re = likeMatcher(mapCase(pattern, false), escape);
  return { test: (s: string): boolean => re.test(mapCase(s, false)) };
}

/**
 * Whether a LIKE pattern's last character is an escape character that escapes nothing
 * (DuckDB refuses such a pattern); for ILIKE (`caseInsensitive`) in the lowered pattern, as
 * DuckDB matches it ('aX' ESCAPE 'x').
 */
export function likeEndsWithEscape(pattern: string, escape: string, caseInsensitive = false): boolean {
  const chars = [...(caseInsensitive ? mapCase(pattern, false) : pattern)];
  let i = 0;
  while (i < chars.length) {
    if (chars[i] === escape) {
      if (i + 1 === chars.length) return true;
      i += 2;
    } else i++;
  }
  return false;
}

const codePoints = (s: string): string[] => [...s];

/** A compiled pattern: whether it matches a string (found anywhere, or the whole string). */
export interface RegexMatcher {
  test(s: string): boolean;
}

const REGEX_CACHE = new Map<string, RegexMatcher>();

/**
 * A regexp_matches pattern (RE2 syntax, as DuckDB), compiled by re2js (a port of RE2), searched
 * anywhere in the string (`full`: matching the whole string, regexp_full_match and SIMILAR TO);
 * options `i` (case-insensitive) and `c` (case-sensitive). The constructs {@link checkRegex}
 * lists are refused. `perRow`: the pattern was computed per row (a literal one the planner
 * checked), so checkRegex's refusals come as CANOPY_ERR_OUT_OF_RANGE, the code a leaf reports
 * as the query's error (another would read as a failed shard).
 * @throws CanopyError as checkRegex
 */
export function regexOf(pattern: string, options: string, full = false, perRow = false): RegexMatcher {
  const key = `${full ? 'F' : 'S'}${options}/${pattern}`;
  let re = REGEX_CACHE.get(key);
  if (re === undefined) {
    try {
      checkRegex(pattern, options);
    } catch (e) {
      // A literal pattern was checked by the planner: this one is computed per row, and the
      // error must stop the query (a leaf reports only OUT_OF_RANGE and LIMIT as the query's).
      if (!perRow || !(e instanceof CanopyError) || e.code === 'CANOPY_ERR_OUT_OF_RANGE') throw e;
      throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `${e.message} (a pattern computed per row)`, { cause: e });
    }
    // RE2's own engine (re2js, a port of RE2): matching takes time linear in the string, so a
    // pattern such as ^(a+)+$ cannot stall a leaf as a backtracking engine would.
    const p = RE2JS.compile(pattern, options.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    re = full ? { test: (s) => p.matches(s) } : { test: (s) => p.matcher(s).find() };
    if (REGEX_CACHE.size > 1000) REGEX_CACHE.clear();
    REGEX_CACHE.set(key, re);
  }
  return re;
}

/**
 * Refuses what JS and RE2 read differently: POSIX classes (`[[:alpha:]]` is a plain set in
 * JS), inline flags and groups (`(?i)`, `(?P<n>`), lookaround and back-references (RE2 has
 * none), options other than i and c, and a pattern JS cannot compile. `fn` names the
 * function in the message.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED naming the construct, CANOPY_ERR_BAD_QUERY for a pattern RE2 cannot compile
 */
export function checkRegex(pattern: string, options: string, fn = 'regexp_matches'): void {
  const bad = /\[[:]/.test(pattern) ? 'POSIX classes ([[:alpha:]])' : /\(\?/.test(pattern) ? 'inline flags, named groups and lookaround ((?...))' : /\\[1-9]/.test(pattern) ? 'back-references' : /[^ic]/.test(options) ? `option '${options}'` : null;
  if (bad !== null) throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `${fn}: ${bad}: not supported`);
  try {
    RE2JS.compile(pattern);
  } catch (e) {
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `${fn}: invalid pattern '${pattern}' (RE2 syntax): ${(e as Error).message}`);
  }
}

/** x rounded to an integer, ties to even (IEEE nearbyint); exact for every double. */
export function roundHalfEven(x: number): number {
  const r = Math.round(x);
  // Math.round takes ties up: a tie (r - x = 0.5) whose result is odd goes down instead.
  return r - x === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * DuckDB's make_timestamp(year, month, day, hour, minute, seconds)
 * (extension/core_functions/scalar/date/make_date.cpp, MakeTimestampOperator): the integers
 * cast to INTEGER; the seconds cut to a whole second (rounded half to even when outside
 * [0, 60], as its cast rounds) and the rest rounded half away from zero to the µs; a time
 * valid as DuckDB's Time::IsValidTime (second 60 and 1,000,000 µs roll over; hour 24 only at
 * 24:00:00) on a real date. µs since 1970.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE (DuckDB's errors: an integer outside INTEGER,
 *   'Date out of range', 'Time out of range'; an instant outside ±2^53 µs, which canopy does not hold)
 */
export function makeTimestampParts(parts: readonly bigint[], seconds: number): number {
  const [y, mo, d, h, mi] = parts.map((v) => {
    if (v < -2147483648n || v > 2147483647n) outOfRange(`make_timestamp: Type INT64 with value ${v} can't be cast because the value is out of range for the destination type INT32`);
    return Number(v);
  }) as [number, number, number, number, number];
  let s32: number;
  if (seconds < 0 || seconds > 60) {
    if (!(seconds > -2147483648.5 && seconds < 2147483647.5)) outOfRange(`make_timestamp: seconds ${seconds} are out of range for INTEGER`);
    s32 = roundHalfEven(seconds);
  } else s32 = Math.trunc(seconds);
  const frac = (seconds - s32) * 1e6;
  const micros = Math.sign(frac) * Math.round(Math.abs(frac)) + 0;
  const timeOk = Number.isFinite(seconds) && (h < 0 || h >= 24 ? h === 24 && mi === 0 && s32 === 0 && micros === 0 : mi >= 0 && mi < 60 && s32 >= 0 && s32 <= 60 && micros >= 0 && micros <= 1_000_000);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo)) outOfRange(`make_timestamp: Date out of range: ${y}-${mo}-${d}`);
  if (!timeOk) outOfRange(`make_timestamp: Time out of range: ${h}:${mi}:${seconds}`);
  const us = daysFromCivil(y, mo, d) * US_PER_DAY + ((h * 60 + mi) * 60 + s32) * 1_000_000 + micros;
  if (!(Math.abs(us) <= MAX_TIMESTAMP_US)) outOfRange(`make_timestamp(${y}, ${mo}, ${d}, ${h}, ${mi}, ${seconds}) is outside the timestamps canopy holds exactly (±2^53 µs around 1970: the years 1685 to 2255)`);
  return us;
}

/** DuckDB's sign: -1, 0 or 1; 0 for -0.0 and NaN. */
export function signOf(x: number): number {
  return x > 0 ? 1 : x < 0 ? -1 : 0;
}

/**
 * Simple (one code point to one code point) case mappings where they differ from what
 * String.prototype.toUpperCase / toLowerCase give one code point alone: DuckDB maps case per
 * code point with utf8proc (Unicode 15.1), so no special casing (ß stays one letter, no final
 * sigma, İ lowers to plain i) and no mapping of the case pairs Unicode 16 added (Node's ICU
 * has them). Found by comparing DuckDB 1.5 over every code point (test/case-mapping.test.ts).
 */
const UPPER_SIMPLE = new Map<number, number>([
  [0xdf, 0x1e9e],
  ...[0x1f80, 0x1f90, 0x1fa0].flatMap((b) => Array.from({ length: 8 }, (_, k): [number, number] => [b + k, b + k + 8])),
  [0x1fb3, 0x1fbc], [0x1fc3, 0x1fcc], [0x1ff3, 0x1ffc],
]);
const LOWER_SIMPLE = new Map<number, number>([[0x130, 0x69]]);
/** Code points whose case pair is new in Unicode 16: unchanged by upper and lower. */
const UNICODE16_PAIRS: readonly (readonly [number, number])[] = [
  [0x19b, 0x19b], [0x264, 0x264], [0x1c89, 0x1c8a], [0xa7cb, 0xa7cf], [0xa7d2, 0xa7d5], [0xa7da, 0xa7dc], [0x10d50, 0x10d65], [0x10d70, 0x10d85], [0x16ea0, 0x16eb8], [0x16ebb, 0x16ed3],
];
const unicode16 = (cp: number): boolean => UNICODE16_PAIRS.some(([lo, hi]) => cp >= lo && cp <= hi);

/**
 * upper()/lower() as DuckDB: ASCII-only strings through the engine's own mapping, others one
 * code point at a time (see UPPER_SIMPLE); a code point whose full mapping has several code
 * points and no simple mapping stays as it is (`ŉ`, `ﬁ`).
 */
function mapCase(s: string, up: boolean): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return up ? s.toUpperCase() : s.toLowerCase();
  const table = up ? UPPER_SIMPLE : LOWER_SIMPLE;
  let out = '';
  for (const ch of s) {
    const cp = ch.codePointAt(0)!;
    const simple = table.get(cp);
    if (simple !== undefined) out += String.fromCodePoint(simple);
    else if (unicode16(cp)) out += ch;
    else {
      const m = up ? ch.toUpperCase() : ch.toLowerCase();
      out += [...m].length === 1 ? m : ch;
    }
  }
  return out;
}

let graphemes: Intl.Segmenter | null = null;

/** reverse() as DuckDB: grapheme clusters in reverse order (a base letter keeps its combining marks, an emoji sequence stays whole). */
function reverseGraphemes(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s.split('').reverse().join('');
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  const parts: string[] = [];
  for (const g of graphemes.segment(s)) parts.push(g.segment);
  return parts.reverse().join('');
}

/** DuckDB's bound on substring's start and length (uint32's maximum; the lower bound is -2^32). */
const SUBSTRING_UPPER = 4294967295;

/**
 * DuckDB substring(s, start, len) over code points (its SubstringStartEnd): 1-based; a
 * negative start counts from the end (before the first character when past it); start 0 sits one
 * before the first character (one fewer taken); a negative `len` takes the |len| characters
 * before `start`; no `len` runs to the end.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for a start or len outside [-2^32, 2^32 - 1], as DuckDB
 */
function substring(s: string, start: number, len: number | null): string {
  substringRange('offset', start);
  if (len !== null) substringRange('length', len);
  const cps = codePoints(s);
  const size = cps.length;
  let length = len ?? Infinity;
  if (length === 0) return '';
  let from: number;
  if (start > 0) from = start - 1;
  else if (start < 0) from = size + start;
  else {
    from = 0;
    if (--length <= 0) return '';
  }
  const [a, b] = length > 0 ? [from, from + length] : [from + length, from];
  const lo = Math.max(0, a);
  const hi = Math.min(size, b);
  return lo >= hi ? '' : cps.slice(lo, hi).join('');
}

/**
 * DuckDB's AssertInSupportedRange (src/function/scalar/string/substring.cpp): a substring
 * offset or length outside [-2^32, 2^32 - 1] is an error, whatever the string.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE
 */
function substringRange(what: 'offset' | 'length', v: number): void {
  if (v > SUBSTRING_UPPER) outOfRange(`Substring ${what} outside of supported range (> ${SUBSTRING_UPPER})`);
  if (v < -SUBSTRING_UPPER - 1) outOfRange(`Substring ${what} outside of supported range (< ${-SUBSTRING_UPPER - 1})`);
}

/** The grapheme clusters of `s` (Unicode's extended clusters, UAX #29, as DuckDB's utf8proc splits them) with the index where each starts. */
function clusters(s: string): { readonly segment: string; readonly index: number }[] {
  graphemes ??= new Intl.Segmenter(undefined, { granularity: 'grapheme' });
  return [...graphemes.segment(s)];
}

/** The UTF-8 byte length of `s` (each code point 1 to 4 bytes). */
function utf8Length(s: string): number {
  let n = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (c < 0x80) n += 1;
    else if (c < 0x800) n += 2;
    else if (c >= 0xd800 && c <= 0xdbff && i + 1 < s.length) {
      n += 4;
      i++;
    } else n += 3;
  }
  return n;
}

/**
 * DuckDB's SubstringStartEnd (src/function/scalar/string/substring.cpp): the [start, end) of
 * substring(offset, length) in a string of `size` units, or null when it is empty; `start`
 * and `end` are returned too when null (DuckDB's grapheme path reads them even then).
 */
function substringStartEnd(size: number, offset: number, length0: number): { start: number; end: number; empty: boolean } {
  let length = length0;
  let start: number;
  if (offset > 0) start = Math.min(size, offset - 1);
  else if (offset < 0) start = Math.max(size + offset, 0);
  else {
    start = 0;
    length--;
    if (length <= 0) return { start, end: 0, empty: true };
  }
  let end: number;
  if (length > 0) end = Math.min(size, start + length);
  else {
    end = start;
    start = Math.max(0, start + length);
  }
  return { start, end, empty: start === end };
}

/** DuckDB's GraphemeCount: the byte length of an ASCII string (CR LF counts 2), else its grapheme clusters (CR LF one). */
function graphemeCount(s: string): number {
  // eslint-disable-next-line no-control-regex
  return /^[\x00-\x7f]*$/.test(s) ? s.length : clusters(s).length;
}

/**
 * DuckDB's substring_grapheme(s, offset, length) (its SubstringGrapheme, followed step by
 * step, quirks included): the range is first taken over the UTF-8 bytes; when every byte up to
 * one past its end is ASCII it is cut there (so CR LF is two characters then); otherwise over
 * the grapheme clusters, a negative offset recounting the range over the clusters, a
 * non-negative one keeping the byte-based range. No `length` is 2^32 - 1.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for an offset or length outside [-2^32, 2^32 - 1]
 */
function substringGrapheme(s: string, offset: number, length: number | null): string {
  substringRange('offset', offset);
  if (length !== null) substringRange('length', length);
  const len = length ?? SUBSTRING_UPPER;
  const bytes = substringStartEnd(utf8Length(s), offset, len);
  if (len === 0 || bytes.empty) return '';
  let { start, end } = bytes;
  // Every code unit before a non-ASCII one is one byte: a JS index is a byte index there.
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s.slice(0, Math.min(end + 1, s.length)))) return s.slice(start, end);
  const parts = clusters(s);
  if (offset < 0) ({ start, end } = substringStartEnd(parts.length, offset, len));
  let from = -1;
  let to = s.length;
  for (let k = 0; k < parts.length; k++) {
    if (k === start) from = parts[k]!.index;
    else if (k === end) {
      to = parts[k]!.index;
      break;
    }
  }
  return from < 0 ? '' : s.slice(from, to);
}

/** DuckDB's left_grapheme(s, n): substring_grapheme(s, 1, n), a negative n all but the last |n| clusters. */
function leftGrapheme(s: string, n: number): string {
  return substringGrapheme(s, 1, n >= 0 ? n : Math.max(0, graphemeCount(s) + n));
}

/** DuckDB's right_grapheme(s, n): the last n clusters, a negative n all but the first |n|, through substring_grapheme. */
function rightGrapheme(s: string, n: number): string {
  const count = graphemeCount(s);
  const len = n >= 0 ? Math.min(count, n) : count - Math.min(count, -n);
  return substringGrapheme(s, count - len + 1, len);
}

/**
 * An int64 or int128 rounded to a multiple of 10^places, half away from zero: DuckDB's
 * round(BIGINT, -places) (RoundIntegerOperator, src/core_functions/scalar/math/numeric.cpp),
 * and of a HUGEINT. For an int64, 0 for 19 places or more; DuckDB computes
 * (v ± 10^places / 2) / 10^places · 10^places in int64, so near ±2^63 the first sum wraps
 * around (round(9223372036854775807, -18) is -8000000000000000000 there): such a value is
 * refused rather than answered otherwise. For an int128, 0 past 39 places; a result past the
 * type is refused.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE where DuckDB's arithmetic overflows
 */
function roundInt(v: bigint, places: number, type: ColumnType): bigint {
  if (type !== 'int128') {
    if (places >= 19) return 0n;
    const f = 10n ** BigInt(places);
    const half = v < 0n ? -(f / 2n) : f / 2n;
    if (v + half > INT64_MAX || v + half < INT64_MIN) outOfRange(`round(${v}, ${-places}) overflows int64 (DuckDB adds ${half} before dividing, in int64, and wraps around)`);
    return ((v + half) / f) * f;
  }
  if (places > 39) return 0n;
  const f = 10n ** BigInt(places);
  const a = v < 0n ? -v : v;
  const q = a / f + (2n * (a % f) >= f ? 1n : 0n);
  return checkInt((v < 0n ? -q : q) * f, 'round', type);
}

/**
 * DuckDB's lpad/rpad over code points: the string cut to `n`, or filled to `n` on the left
 * (right) with `fill` repeated; n <= 0 gives ''. The length is checked before the padding is
 * built (native repeat, no per-character work).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE when padding is needed and `fill` is empty, or past MAX_STRING_LENGTH
 */
function pad(s: string, n: number, fill: string, left: boolean): string {
  const cps = codePoints(s);
  if (n <= cps.length) return cps.slice(0, Math.max(0, n)).join('');
  const f = codePoints(fill);
  if (f.length === 0) outOfRange(`insufficient padding in ${left ? 'LPAD' : 'RPAD'}: the fill string is empty`);
  const need = n - cps.length;
  const rest = f.slice(0, need % f.length).join('');
  const whole = Math.floor(need / f.length);
  checkStringLength(s.length + whole * fill.length + rest.length, left ? 'lpad' : 'rpad');
  const padding = fill.repeat(whole) + rest;
  return left ? padding + s : s + padding;
}

/** `parts` joined by `sep`, its length checked before it is built. @throws CanopyError CANOPY_ERR_OUT_OF_RANGE above MAX_STRING_LENGTH */
function joined(parts: readonly string[], sep: string, what: string): string {
  let length = sep.length * Math.max(0, parts.length - 1);
  for (const p of parts) length += p.length;
  checkStringLength(length, what);
  return parts.join(sep);
}

/**
 * C's pow (what DuckDB calls; ISO C99 F.9.4.4) where it differs from JavaScript's `**`:
 * pow(1, y) is 1 for every y, NaN included, and pow(-1, ±inf) is 1 (`**` gives NaN).
 */
function cPow(x: number, y: number): number {
  if (x === 1 || y === 0) return 1;
  if (x === -1 && (y === Infinity || y === -Infinity)) return 1;
  return x ** y;
}

/**
 * What trim, ltrim and rtrim without a second argument remove, as DuckDB does: the Unicode
 * space separators (general category Zs: U+0020, U+00A0 no-break space, U+1680, U+2000-U+200A,
 * U+202F, U+205F, U+3000), not tabs, line breaks or U+200B / U+FEFF.
 */
const SPACE_SEPARATORS: ReadonlySet<string> = new Set([' ', '\u00a0', '\u1680', ...Array.from({ length: 11 }, (_, k) => String.fromCharCode(0x2000 + k)), '\u202f', '\u205f', '\u3000']);

/**
 * DuckDB's round(DOUBLE, digits) (its RoundOperatorPrecision), half away from zero: for
 * digits >= 0, round(x · 10^digits) / 10^digits, and x itself when that is not finite (±Infinity
 * and NaN stay, as do values too large to scale); for digits < 0, round(x / 10^-digits) ·
 * 10^-digits, and 0 when that is not finite (DuckDB gives 0 for ±Infinity and NaN there, and
 * past 10^308). Dividing by the power rather than multiplying by its inexact reciprocal keeps
 * the halfway cases DuckDB's.
 * @param x any double
 * @param digits an integer (decimal places; negative rounds to tens, hundreds, ...)
 */
export function roundDouble(x: number, digits: number): number {
  const half = (v: number): number => Math.sign(v) * Math.round(Math.abs(v));
  if (digits < 0) {
    const m = 10 ** -digits;
    const r = half(x / m) * m;
    return Number.isFinite(r) ? r : 0;
  }
  const m = 10 ** digits;
  const r = half(x * m) / m;
  return Number.isFinite(r) ? r : x;
}

/**
 * A scalar function over argument values. `type` is the result type the planner gave.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE (sqrt/ln of a negative, ln of 0, abs overflow)
 */
export function callFn(fn: ScalarFn, args: readonly Scalar[], type: ColumnType): Scalar {
  switch (fn) {
    case 'coalesce':
      for (const a of args) if (a !== null) return coerceTo(a, type);
      return null;
    case 'nullif':
      return args[0] === null ? null : compareSql('=', args[0]!, args[1] ?? null) === true ? null : coerceTo(args[0]!, type);
    case 'greatest':
    case 'least': {
      let best: Scalar = null;
      for (const a of args) {
        if (a === null) continue;
        if (best === null || (fn === 'greatest' ? compareValues(a, best) > 0 : compareValues(a, best) < 0)) best = a;
      }
      return best === null ? null : coerceTo(best, type);
    }
    case 'concat':
      return joined(args.filter((a) => a !== null).map((a) => String(castValue(a, 'string'))), '', fn);
    case 'concat_ws':
      return args[0] === null ? null : joined(args.slice(1).filter((a) => a !== null).map((a) => String(castValue(a, 'string'))), String(args[0]), fn);
    default:
      break;
  }
  if (args.some((a) => a === null)) return null;
  const a0 = args[0]!;
  switch (fn) {
    case 'abs':
      if (typeof a0 === 'bigint') return checkInt(a0 < 0n ? -a0 : a0, 'abs', type);
      return Math.abs(a0 as number);
    case 'sign':
      return typeof a0 === 'bigint' ? (a0 > 0n ? 1n : a0 < 0n ? -1n : 0n) : signOf(a0 as number);
    case 'round':
      if (typeof a0 === 'bigint') return args.length > 1 && Number(args[1]) < 0 ? roundInt(a0, -Number(args[1]), type) : a0;
      return roundDouble(a0 as number, args.length > 1 ? Number(args[1]) : 0);
    case 'floor':
      return typeof a0 === 'bigint' ? Number(a0) : Math.floor(a0 as number);
    case 'trunc':
      return typeof a0 === 'bigint' ? a0 : Math.trunc(a0 as number);
    case 'regexp_matches':
    case 'regexp_full_match':
      return regexOf(args[1] as string, args.length > 2 ? (args[2] as string) : '', fn === 'regexp_full_match', true).test(a0 as string);
    case 'make_timestamp':
    case 'to_timestamp': {
      if (args.length === 6) return makeTimestampParts(args.slice(0, 5) as bigint[], toNum(args[5]!));
      // µs since 1970 (make_timestamp) or seconds (to_timestamp, rounded to the µs, ties to even as DuckDB); canopy holds instants within ±2^53 µs.
      const us = fn === 'make_timestamp' ? Number(a0) : roundHalfEven(toNum(a0) * 1e6);
      if (!(Math.abs(us) <= MAX_TIMESTAMP_US) || (fn === 'make_timestamp' && BigInt(us) !== a0)) outOfRange(`${fn}(${String(a0)}) is outside the timestamps canopy holds exactly (±2^53 µs around 1970: the years 1685 to 2255)`);
      return us;
    }
    case 'strftime':
      return Number.isFinite(a0) ? formatTimestamp(a0 as number, args[1] as string) : null;
    case 'strptime':
    case 'try_strptime':
      return strptime(a0 as string, args.slice(1) as string[], fn === 'try_strptime');
    case 'date_sub': {
      const a = Number(args[1]);
      const b = Number(args[2]);
      return Number.isFinite(a) && Number.isFinite(b) ? dateSub(a0 as TruncUnit, a, b) : null;
    }
    case 'time_bucket': {
      const ts = Number(args[3]);
      if (!Number.isFinite(ts)) return ts;
      const [months, micros] = [Number(args[1]), Number(args[2])];
      // DuckDB's ClassifyBucketWidthErrorThrow, per row with a timestamp.
      if (months === 0 ? micros <= 0 : months < 0) outOfRange('time_bucket: Period must be greater than 0');
      if (months !== 0 && micros !== 0) outOfRange('time_bucket: Month intervals cannot have day or time component');
      if (a0 === 'origin') return checkedTimestamp(timeBucket(months, micros, ts, Number(args[4])));
      if (a0 === 'default') return checkedTimestamp(timeBucket(months, micros, ts));
      const [om, ou] = [Number(args[4]), Number(args[5])];
      return checkedTimestamp(addInterval(timeBucket(months, micros, checkedTimestamp(addInterval(ts, -om, -ou))), om, ou));
    }
    case 'date_diff': {
      const a = Number(args[1]);
      const b = Number(args[2]);
      return Number.isFinite(a) && Number.isFinite(b) ? BigInt(dateDiff(a0 as TruncUnit, a, b)) : null;
    }
    case 'isnan':
      return typeof a0 === 'number' && a0 !== a0;
    case 'lpad':
    case 'rpad':
      return pad(a0 as string, Number(args[1]), args[2] as string, fn === 'lpad');
    case 'ceil':
      return typeof a0 === 'bigint' ? Number(a0) : Math.ceil(a0 as number);
    case 'sqrt': {
      const x = toNum(a0);
      if (x < 0) throw new ValueError('cannot take square root of a negative number');
      return Math.sqrt(x);
    }
    case 'ln':
    case 'log10':
    case 'log2': {
      const x = toNum(a0);
      if (x === 0) throw new ValueError('cannot take logarithm of zero');
      if (x < 0) throw new ValueError('cannot take logarithm of a negative number');
      return fn === 'ln' ? Math.log(x) : fn === 'log10' ? Math.log10(x) : Math.log2(x);
    }
    case 'exp':
      return Math.exp(toNum(a0));
    case 'power':
      return cPow(toNum(a0), toNum(args[1]!));
    case 'lower':
      return mapCase(a0 as string, false);
    case 'upper':
      return mapCase(a0 as string, true);
    case 'length':
      return BigInt(codePoints(a0 as string).length);
    case 'reverse':
      return reverseGraphemes(a0 as string);
    case 'substring':
      return substring(a0 as string, Number(args[1]), args.length > 2 ? Number(args[2]) : null);
    case 'length_grapheme':
      return BigInt(graphemeCount(a0 as string));
    case 'substring_grapheme':
      return substringGrapheme(a0 as string, Number(args[1]), args.length > 2 ? Number(args[2]) : null);
    case 'left_grapheme':
      return leftGrapheme(a0 as string, Number(args[1]));
    case 'right_grapheme':
      return rightGrapheme(a0 as string, Number(args[1]));
    case 'nfc_normalize':
      return (a0 as string).normalize('NFC');
    case 'left': {
      const n = Number(args[1]);
      // DuckDB's left(s, n >= 0) is substring(s, 1, n), with its length check.
      substringRange('length', Math.max(0, n));
      const cps = codePoints(a0 as string);
      return (n >= 0 ? cps.slice(0, n) : cps.slice(0, Math.max(0, cps.length + n))).join('');
    }
    case 'right': {
      const n = Number(args[1]);
      const cps = codePoints(a0 as string);
      return (n >= 0 ? cps.slice(Math.max(0, cps.length - n)) : cps.slice(Math.min(cps.length, -n))).join('');
    }
    case 'trim':
    case 'ltrim':
    case 'rtrim': {
      const s = a0 as string;
      const set: ReadonlySet<string> = args.length > 1 ? new Set(codePoints(args[1] as string)) : SPACE_SEPARATORS;
      const cps = codePoints(s);
      let i = 0;
      let j = cps.length;
      if (fn !== 'rtrim') while (i < j && set.has(cps[i]!)) i++;
      if (fn !== 'ltrim') while (j > i && set.has(cps[j - 1]!)) j--;
      return cps.slice(i, j).join('');
    }
    case 'concat_op':
      if (args.length === 2 && typeof a0 === 'string' && typeof args[1] === 'string') {
        // Two strings (the usual `a || b`): no array, one concatenation.
        checkStringLength(a0.length + args[1].length, '||');
        return a0 + args[1];
      }
      return joined(args.map((a) => String(castValue(a, 'string'))), '', '||');
    case 'starts_with':
      return (a0 as string).startsWith(args[1] as string);
    case 'ends_with':
      return (a0 as string).endsWith(args[1] as string);
    case 'contains':
      return (a0 as string).includes(args[1] as string);
    case 'strpos': {
      const at = (a0 as string).indexOf(args[1] as string);
      return at < 0 ? 0n : BigInt(codePoints((a0 as string).slice(0, at)).length + 1);
    }
    case 'replace':
      return (args[1] as string) === '' ? a0 : joined((a0 as string).split(args[1] as string), args[2] as string, fn);
    case 'repeat': {
      // DuckDB: a count <= 0 gives ''.
      const n = Number(args[1]);
      const s = a0 as string;
      if (n <= 0 || s === '') return '';
      checkStringLength(s.length * n, fn);
      return s.repeat(n);
    }
    default: {
      const v = callMore(fn, args);
      if (v === undefined) throw new CanopyError('CANOPY_ERR_INTERNAL', `no scalar function ${fn}`);
      if (typeof v === 'string') checkStringLength(v.length, fn);
      return v;
    }
  }
}

/** A value of a numeric type coerced to the (wider) result type: int64 -> float64 as a double. */
export function coerceTo(v: Scalar, type: ColumnType | 'null'): Scalar {
  if (v === null) return null;
  if ((type === 'float64' || type === 'timestamp') && typeof v === 'bigint') return Number(v);
  if (type === 'int64' && typeof v === 'number') return BigInt(v);
  return v;
}

/** SQL three-valued AND / OR over booleans (null = unknown). */
function and3(vals: Iterable<Scalar>): boolean | null {
  let out: boolean | null = true;
  for (const v of vals) {
    if (v === false) return false;
    if (v === null) out = null;
  }
  return out;
}

function or3(vals: Iterable<Scalar>): boolean | null {
  let out: boolean | null = false;
  for (const v of vals) {
    if (v === true) return true;
    if (v === null) out = null;
  }
  return out;
}

/** Lazily evaluated children, so AND/OR/CASE/COALESCE do not evaluate what they skip. */
function* lazy<E>(args: readonly E[], child: (e: E) => Scalar): Generator<Scalar> {
  for (const a of args) yield child(a);
}

/**
 * Evaluates one scalar node given an evaluator of its children (row by row). The one
 * definition of each node's value semantics.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE from arithmetic, casts and functions
 */
export function evalScalarNode<E>(e: ScalarNode<E>, child: (c: E) => Scalar): Scalar {
  switch (e.kind) {
    case 'lit':
      return e.value;
    case 'cmp':
      return compareSql(e.op, child(e.left), child(e.right));
    case 'and':
      return and3(lazy(e.args, child));
    case 'or':
      return or3(lazy(e.args, child));
    case 'not': {
      const v = child(e.arg);
      return v === null ? null : !v;
    }
    case 'isnull':
      return (child(e.arg) === null) !== e.negated;
    case 'distinct': {
      const a = child(e.left);
      const b = child(e.right);
      const same = a === null || b === null ? a === b : compareValues(a, b) === 0;
      return same === e.negated;
    }
    case 'in': {
      const v = child(e.arg);
      if (v === null) return null;
      let sawNull = false;
      for (const x of e.values) {
        if (x === null) sawNull = true;
        else if (compareSql('=', v, x) === true) return !e.negated;
      }
      return sawNull ? null : e.negated;
    }
    case 'between': {
      const v = child(e.arg);
      const both = and3([compareSql('>=', v, child(e.lo)), compareSql('<=', v, child(e.hi))]);
      return both === null ? null : both !== e.negated;
    }
    case 'date_trunc': {
      const v = child(e.arg);
      return v === null ? null : truncMicros(v as number, e.unit);
    }
    case 'extract': {
      const v = child(e.arg);
      if (v === null) return null;
      const x = extractField(v as number, e.field);
      return e.type === 'int64' ? (Number.isFinite(x) ? BigInt(x) : null) : x;
    }
    case 'interval': {
      const v = child(e.arg);
      return v === null ? null : checkedTimestamp(addInterval(v as number, e.months, e.micros));
    }
    case 'arith':
      return arith(e.op, e.type, child(e.left), child(e.right));
    case 'try':
      try {
        return child(e.arg);
      } catch (err) {
        if (err instanceof ValueError) return null;
        throw err;
      }
    case 'neg':
      return negate(child(e.arg), e.type);
    case 'cast': {
      const v = child(e.arg);
      if (e.type === 'string' && typeof v === 'number' && e.from === 'timestamp') return castTimestampToString(v);
      if (e.type === 'string' && typeof v === 'number' && e.from === 'date') return dateText(v);
      if (e.unsigned !== undefined) return castUnsigned(v, e.unsigned, e.try);
      const out = castValue(v, e.type, e.try);
      if (e.bits !== undefined && e.overflow !== undefined) return narrowResult(out, e.bits, e.overflow);
      return e.bits === undefined ? out : narrowInteger(out, e.bits, e.try, e.from === 'float64' ? v : undefined);
    }
    case 'case': {
      const operand = e.operand === null ? undefined : child(e.operand);
      for (const w of e.whens) {
        const hit = operand === undefined ? child(w.when) === true : compareSql('=', operand, child(w.when)) === true;
        if (hit) return coerceTo(child(w.then), e.type);
      }
      return e.else === null ? null : coerceTo(child(e.else), e.type);
    }
    case 'call':
      if (e.fn === 'coalesce') {
        for (const v of lazy(e.args, child)) if (v !== null) return coerceTo(v, e.type);
        return null;
      }
      return callFn(e.fn, e.args.map(child), e.type);
    case 'like': {
      const s = child(e.arg);
      const p = child(e.pattern);
      if (s === null || p === null) return null;
      // A computed pattern ending with its escape character is refused, as DuckDB refuses it (a literal one by the planner).
      if (e.escape !== null && likeEndsWithEscape(p as string, e.escape)) outOfRange(`LIKE pattern '${p as string}' ends with its escape character '${e.escape}'`);
      return likeRegex(p as string, e.caseInsensitive, e.escape).test(s as string) !== e.negated;
    }
  }
}

/** The children of a scalar node, in evaluation order (CASE: operand, then when/then pairs, then else). */
export function nodeChildren<E>(e: ScalarNode<E>): E[] {
  switch (e.kind) {
    case 'lit':
      return [];
    case 'cmp':
    case 'arith':
    case 'distinct':
      return [e.left, e.right];
    case 'and':
    case 'or':
    case 'call':
      return [...e.args];
    case 'between':
      return [e.arg, e.lo, e.hi];
    case 'like':
      return [e.arg, e.pattern];
    case 'case':
      return [...(e.operand === null ? [] : [e.operand]), ...e.whens.flatMap((w) => [w.when, w.then]), ...(e.else === null ? [] : [e.else])];
    default:
      return [e.arg];
  }
}
