/**
 * Literals: read as written, then typed by what they meet (or by default).
 */
import { castUnsigned, castValue, narrowInteger } from '../../merge/scalar.ts';
import { CanopyError, ValueError } from '../../merge/errors.ts';
import { OffsetRefused, parseIsoTimestamp } from '../../merge/time.ts';
import type { ColumnType, Scalar } from '../../merge/types.ts';
import { isNode } from './ast.ts';
import { fail } from './errors.ts';
import type { Typed } from './expressions.ts';
import { INT64_MIN, INT64_MAX, INT128_MIN, INT128_MAX } from '../../merge/int-range.ts';
export { INT64_MIN, INT64_MAX, INT128_MIN, INT128_MAX };

/** A literal as written, typed only once it meets a column (or by default). */
export type RawLiteral =
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'timestamp'; readonly text: string }
  | { readonly kind: 'date'; readonly text: string }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'null' };

/** A literal coerced to a type. */
export interface TypedLiteral {
  readonly value: Scalar;
  readonly type: ColumnType | 'null';
}

/**
 * True when a number literal's decimal value is exactly the shortest decimal of its double
 * (`0.1`, `0.5000000000000001`, `25e-2`), false when the literal has digits the double drops
 * (`0.50000000000000001`): DuckDB reads such a literal as a DECIMAL and keeps them.
 */
export function decimalKeptByDouble(text: string): boolean {
  const norm = (t: string): string | null => {
    const m = /^[+-]?(\d*)(?:\.(\d*))?(?:e([+-]?\d+))?$/i.exec(t);
    if (m === null) return null;
    const frac = m[2] ?? '';
    let digits = `${m[1] ?? ''}${frac}`.replace(/^0+/, '');
    let exp = Number(m[3] ?? '0') - frac.length;
    if (digits === '') return '0';
    const trailing = /0*$/.exec(digits)![0].length;
    digits = digits.slice(0, digits.length - trailing);
    exp += trailing;
    return `${digits}e${exp}`;
  };
  const x = Number(text);
  return Number.isFinite(x) && norm(text) !== null && norm(text) === norm(String(Math.abs(x)));
}

/** Reads a literal node (numbers keep their digits, also under unary minus), or returns null. */
export function readLiteral(n: unknown): RawLiteral | null {
  if (!isNode(n)) return null;
  switch (n.type) {
    case 'number':
    case 'bigint':
      return typeof n.value === 'number' || typeof n.value === 'string' ? { kind: 'number', text: String(n.value) } : null;
    case 'unary_expr': {
      const inner = n.operator === '-' ? readLiteral(n.expr) : null;
      if (inner?.kind !== 'number') return null;
      return { kind: 'number', text: inner.text.startsWith('-') ? inner.text.slice(1) : `-${inner.text}` };
    }
    case 'single_quote_string':
      return typeof n.value === 'string' ? { kind: 'string', value: n.value.replaceAll("''", "'") } : null;
    case 'timestamp':
      return typeof n.value === 'string' ? { kind: 'timestamp', text: n.value } : null;
    case 'date':
      // DATE '...': read as DuckDB casts the text to DATE (parseDate).
      return typeof n.value === 'string' ? { kind: 'date', text: n.value } : null;
    case 'bool':
      return typeof n.value === 'boolean' ? { kind: 'bool', value: n.value } : null;
    case 'null':
      return { kind: 'null' };
    default:
      return null;
  }
}

export function literalText(lit: RawLiteral): string {
  switch (lit.kind) {
    case 'number':
      return lit.text;
    case 'string':
      return `'${lit.value}'`;
    case 'timestamp':
      return `TIMESTAMP '${lit.text}'`;
    case 'date':
      return `DATE '${lit.text}'`;
    case 'bool':
      return lit.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
  }
}

export const NULL_LITERAL: TypedLiteral = { value: null, type: 'null' };

/** An integer literal's exact value, or null when the literal has a fraction or exponent. */
export function integerValue(text: string): bigint | null {
  return /^[+-]?\d+$/.test(text) ? BigInt(text) : null;
}

/**
 * A decimal number text (`12`, `-1.25`, `1.2e1`) as sign, digits and scale: the value is
 * ±digits · 10^-scale (scale < 0 for exponents past the fraction). Null for other texts and
 * for an exponent beyond 400, which no int64 comparison needs.
 */
function decimalParts(text: string): { readonly negative: boolean; readonly digits: bigint; readonly scale: number } | null {
  const m = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (m === null || (m[2] === '' && (m[3] ?? '') === '')) return null;
  const exp = Number(m[4] ?? '0');
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > 400) return null;
  return { negative: m[1] === '-', digits: BigInt((m[2] ?? '') + (m[3] ?? '') || '0'), scale: (m[3] ?? '').length - exp };
}

/**
 * The exact value of a number literal whose value is an integer however it is written
 * (`12`, `12.0`, `1.2e1`, `9223372036854775807.0`), or null when it has a fractional part
 * (or an exponent beyond 400, which no int64 comparison needs).
 */
export function integralValue(text: string): bigint | null {
  const d = decimalParts(text);
  if (d === null) return null;
  let v = d.digits;
  if (d.scale < 0) v *= 10n ** BigInt(-d.scale);
  else {
    const unit = 10n ** BigInt(d.scale);
    if (v % unit !== 0n) return null;
    v /= unit;
  }
  return d.negative ? -v : v;
}

/**
 * floor(x) of a finite decimal text with a fraction (`4.9999999999999999` -> 4n, `-0.5` ->
 * -1n), exactly; null for integral values and other texts.
 */
export function decimalFloor(text: string): bigint | null {
  const d = decimalParts(text);
  if (d === null || d.scale <= 0) return null;
  const unit = 10n ** BigInt(d.scale);
  if (d.digits % unit === 0n) return null;
  const q = d.digits / unit;
  return d.negative ? -q - 1n : q;
}

/**
 * A decimal literal written with a point and no exponent (`2.5`, `-0.5`: DuckDB types it
 * DECIMAL) rounded to an integer half away from zero, exactly, as DuckDB casts DECIMAL to
 * BIGINT; null for other texts (integers, exponents: those are int64 or DOUBLE).
 */
export function decimalRoundedValue(text: string): bigint | null {
  const m = /^([+-]?)(\d*)\.(\d*)$/.exec(text);
  if (m === null || (m[2] === '' && m[3] === '')) return null;
  const whole = BigInt(m[2] || '0');
  const up = (m[3] ?? '').charAt(0) >= '5';
  const v = up ? whole + 1n : whole;
  return m[1] === '-' ? -v : v;
}

/**
 * Is `lit` a number DuckDB reads as a DOUBLE (written with an exponent, `9.2e18`: a decimal
 * without one is DECIMAL, an integer BIGINT or HUGEINT) at or beyond 2^53 in magnitude? An
 * integer compared with such a literal is compared as a double, as DuckDB casts it; below
 * 2^53 that cast changes no comparison with a double, so the exact one stands there.
 */
export function wideDoubleLiteral(lit: RawLiteral): boolean {
  return lit.kind === 'number' && /e/i.test(lit.text) && Math.abs(Number(lit.text)) >= 2 ** 53;
}

/**
 * Do integer and double values meet among these operand types and literals, so that DuckDB
 * compares them as DOUBLEs (its implicit cast of BIGINT and HUGEINT to DOUBLE)? True when an
 * int64 or int128 operand meets a float64 one or a {@link wideDoubleLiteral}.
 */
export function meetAsDoubles(types: readonly (ColumnType | 'null')[], literals: readonly RawLiteral[]): boolean {
  return types.some((t) => t === 'int64' || t === 'int128') && (types.includes('float64') || literals.some(wideDoubleLiteral));
}

export function floatValue(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) fail('CANOPY_ERR_BAD_QUERY', `the number ${text} is out of range`);
  return value;
}

/**
 * The literal's own type, used when nothing typed is compared with it: integers are int64,
 * beyond the int64 range int128 (DuckDB's HUGEINT: `SELECT 9223372036854775808` is exact;
 * arithmetic over it is int64 and refuses what overflows), beyond int128 float64 (but refused
 * up to 2^128 - 1, DuckDB's exact UHUGEINT); other numbers float64, strings string.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for an integer in (2^127 - 1, 2^128)
 */
export function defaultLiteral(lit: RawLiteral): TypedLiteral {
  switch (lit.kind) {
    case 'number': {
      const int = integerValue(lit.text);
      if (int !== null && int >= INT64_MIN && int <= INT64_MAX) return { value: int, type: 'int64' };
      if (int !== null && int >= INT128_MIN && int <= INT128_MAX) return { value: int, type: 'int128' };
      // DuckDB reads an integer literal past HUGEINT up to 2^128 - 1 as an exact UHUGEINT (a DOUBLE beyond).
      if (int !== null && int > INT128_MAX && int < 2n ** 128n) fail('CANOPY_ERR_UNSUPPORTED', `the integer ${lit.text} is a UHUGEINT in DuckDB (past HUGEINT's 2^127 - 1), which canopy does not hold; write it as a DOUBLE (${lit.text}.0e0) or cast it`);
      return { value: floatValue(lit.text), type: 'float64' };
    }
    case 'string':
      return { value: lit.value, type: 'string' };
    case 'timestamp':
      return { value: parseTimestamp(lit.text, 'a TIMESTAMP literal'), type: 'timestamp' };
    case 'date':
      return { value: parseDate(lit.text, 'a DATE literal'), type: 'date' };
    case 'bool':
      return { value: lit.value, type: 'bool' };
    case 'null':
      return NULL_LITERAL;
  }
}

/**
 * Coerces a literal to the type of the operand it is compared with (`comparison`) or meets
 * in an expression. An int64 operand keeps integer literals exact (bigint), in a comparison
 * also integral ones written with a fraction or exponent, and meets other numbers as float64;
 * a string literal compared with an int64 or float64 operand is cast to its type (DuckDB's cast).
 * @throws CanopyError CANOPY_ERR_TYPE naming the operand, its type and the literal (also for
 *   a string that does not convert to the operand's number type)
 */
export function coerceLiteral(lit: RawLiteral, target: Typed<unknown>, comparison = false): TypedLiteral {
  if (lit.kind === 'null') return NULL_LITERAL;
  if (lit.kind === 'number' && (target.type === 'int64' || target.type === 'int128')) {
    // Compared with an int64, an integral literal in the int64 range is exact however it is
    // written: as a double, 9223372036854775807.0 would round to 2^63. (Not in arithmetic,
    // where `i + 1.0` stays a double, as DuckDB's DECIMAL result is.)
    const exact = comparison ? integralValue(lit.text) : null;
    if (exact !== null && exact >= INT64_MIN && exact <= INT64_MAX) return { value: exact, type: 'int64' };
    // A fraction compared with an int64 is compared exactly, as DuckDB does: where its double
    // is an integer (4.9999999999999999 is 5.0), floor(x) + 0.5, which orders the same as x
    // against every integer (a double that keeps a fraction does too) and is exact.
    const floor = comparison && exact === null && Number.isInteger(Number(lit.text)) ? decimalFloor(lit.text) : null;
    if (floor !== null && floor > -(2n ** 52n) && floor < 2n ** 52n) return { value: Number(floor) + 0.5, type: 'float64' };
    // A UHUGEINT literal in arithmetic with a BIGINT or HUGEINT operand: DuckDB computes it as a DOUBLE.
    const int = comparison ? null : integerValue(lit.text);
    if (int !== null && int > INT128_MAX && int < 2n ** 128n) return { value: floatValue(lit.text), type: 'float64' };
    return defaultLiteral(lit);
  }
  if (lit.kind === 'number' && target.type === 'float64') return { value: floatValue(lit.text), type: 'float64' };
  // A string literal compared with a BIGINT or DOUBLE is cast to it, as DuckDB casts it (j = '1.5' is
  // j = 2, f = 'nan' is NaN); text that does not convert is refused, as DuckDB's Conversion Error.
  // (In arithmetic DuckDB's binder refuses most of them: j * '2.5' has no best candidate.)
  // Compared with a cast to a narrower integer (`j::TINYINT = '300'`), DuckDB casts the text to
  // that type, so it must fit there too ('300' does not convert to TINYINT).
  if (comparison && lit.kind === 'string' && (target.type === 'int64' || target.type === 'float64')) {
    const narrow = target.type === 'int64' ? narrowCast(target.expr) : null;
    try {
      if (narrow?.unsigned !== undefined) return { value: castUnsigned(lit.value, narrow.unsigned, false), type: 'int64' };
      const value = castValue(lit.value, target.type);
      return { value: narrow?.bits === undefined ? value : narrowInteger(value, narrow.bits), type: target.type };
    } catch (e) {
      const type = narrow === null ? (target.type === 'int64' ? 'BIGINT' : 'DOUBLE') : narrow.name;
      return fail('CANOPY_ERR_TYPE', `cannot compare '${target.text}' (${type}) with ${literalText(lit)}: the text does not convert to ${type} (${(e as Error).message}), as DuckDB refuses it`);
    }
  }
  // A string compared with a condition is cast to BOOLEAN, as DuckDB casts it ((x > 0) = 'yes',
  // 't', 'false'); text that is not a boolean is refused, as DuckDB's Conversion Error.
  if (comparison && lit.kind === 'string' && target.type === 'bool') {
    try {
      return { value: castValue(lit.value, 'bool'), type: 'bool' };
    } catch (e) {
      return fail('CANOPY_ERR_TYPE', `cannot compare '${target.text}' (BOOLEAN) with ${literalText(lit)}: the text does not convert to BOOLEAN (${(e as Error).message}), as DuckDB refuses it`);
    }
  }
  // A BOOLEAN compared with a number is cast to it (TRUE 1, FALSE 0), as DuckDB casts it: i = true is i = 1.
  if (comparison && lit.kind === 'bool' && (target.type === 'int64' || target.type === 'int128')) return { value: lit.value ? 1n : 0n, type: 'int64' };
  if (comparison && lit.kind === 'bool' && target.type === 'float64') return { value: lit.value ? 1 : 0, type: 'float64' };
  if (lit.kind === 'string' && target.type === 'string') return defaultLiteral(lit);
  if (lit.kind === 'bool' && target.type === 'bool') return defaultLiteral(lit);
  if ((lit.kind === 'string' || lit.kind === 'timestamp') && target.type === 'timestamp') {
    const text = lit.kind === 'string' ? lit.value : lit.text;
    return { value: parseTimestamp(text, `'${target.text}' (timestamp)`), type: 'timestamp' };
  }
  // A DATE meets a TIMESTAMP as its midnight; a string meeting a DATE is cast to DATE, as
  // DuckDB casts it (d = '2024-01-31 10:00' is d = DATE '2024-01-31').
  if (lit.kind === 'date' && (target.type === 'timestamp' || target.type === 'date')) return defaultLiteral(lit);
  if (lit.kind === 'timestamp' && target.type === 'date') return defaultLiteral(lit);
  if (lit.kind === 'string' && target.type === 'date') return { value: parseDate(lit.value, `'${target.text}' (DATE)`), type: 'date' };
  fail('CANOPY_ERR_TYPE', `cannot compare '${target.text}' (${target.type}) with ${literalText(lit)}`);
}

/**
 * Reads a text as DuckDB casts it to DATE ({@link castValue}: src/merge/time.ts parseDuckDate):
 * the µs of the day's midnight.
 * @throws CanopyError CANOPY_ERR_TYPE when DuckDB does not read it as a date (its Conversion
 *   Error) or reads a date canopy does not hold (infinity, BC, outside the years 1685 to 2255),
 *   as a TIMESTAMP literal's are refused
 */
export function parseDate(text: string, against: string): number {
  try {
    return castValue(text, 'date') as number;
  } catch (e) {
    const outside = e instanceof CanopyError && !(e instanceof ValueError);
    return fail('CANOPY_ERR_TYPE', outside ? `'${text}' for ${against}: ${(e as Error).message}` : `'${text}' is not a date for ${against} (${(e as Error).message}), as DuckDB refuses it; write it as '2024-01-31'`);
  }
}

/**
 * Parses an ISO-8601 date or date-time into µs since the epoch with the shared parser
 * ({@link parseIsoTimestamp}): `2001-02-01` (UTC midnight), `2001-02-01 10:00[:00[.123456]]`,
 * `2001-02-01T10:00:00Z`. No zone means UTC; a nonzero offset (`+02:00`) is refused.
 * @throws CanopyError CANOPY_ERR_TYPE when the text is not such a timestamp, or one finer
 *   than a microsecond, outside the years 1685..2255 or with a nonzero UTC offset
 */
export function parseTimestamp(text: string, against: string): number {
  let t: number | null;
  try {
    t = parseIsoTimestamp(text.trim(), 'refuse');
  } catch (e) {
    const message = (e as Error).message;
    if (e instanceof OffsetRefused) return fail('CANOPY_ERR_TYPE', `${message} (for ${against})`);
    return fail('CANOPY_ERR_TYPE', `${message} (for ${against}); timestamps are held to the microsecond between the years 1685 and 2255`);
  }
  if (t === null) {
    if (/\(bc\)/i.test(text)) return fail('CANOPY_ERR_TYPE', `'${text}' is a date before Christ (BC) for ${against}, outside the years canopy holds (1685 to 2255)`);
    return fail('CANOPY_ERR_TYPE', `'${text}' is not a valid timestamp for ${against}; use ISO-8601 like '2001-02-01' or '2001-02-01 10:00:00.123456'`);
  }
  return t;
}

/**
 * The instant (µs since the epoch) of a string with a nonzero UTC offset as DuckDB casts it to
 * TIMESTAMP WITH TIME ZONE in a UTC session (`'2004-01-31 12:00:00-08'::TIMESTAMPTZ` is
 * 20:00 UTC): canopy's timestamps are those instants. Leading whitespace is skipped, trailing
 * whitespace is not read, as the ordinary cast. Null for a string without an offset (or with
 * +00), or one that is no such timestamp: the ordinary cast to TIMESTAMP applies there.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for a value canopy cannot hold (finer than a µs, outside its years)
 */
export function zonedInstant(text: string): number | null {
  const v = text.replace(/^[ \t\n\v\f\r]+/, '');
  if (/[ \t\n\v\f\r]$/.test(v)) return null;
  try {
    parseIsoTimestamp(v, 'refuse');
    return null;
  } catch (e) {
    if (!(e instanceof OffsetRefused)) return null;
  }
  try {
    return parseIsoTimestamp(v, 'convert');
  } catch (e) {
    return fail('CANOPY_ERR_OUT_OF_RANGE', `CAST of '${text}' to TIMESTAMPTZ: ${(e as Error).message}`);
  }
}

const NARROW_SIGNED = { 8: 'TINYINT', 16: 'SMALLINT', 32: 'INTEGER' } as const;
const NARROW_UNSIGNED = { 8: 'UTINYINT', 16: 'USMALLINT', 32: 'UINTEGER', 64: 'UBIGINT' } as const;

/**
 * The narrow integer type of a comparison operand that is a cast to one (`j::TINYINT`,
 * `CAST(x AS UINTEGER)`: a cast node with `bits` or `unsigned`, src/merge/types.ts CastNode),
 * with DuckDB's name for it; null for any other operand (a BIGINT column, arithmetic).
 */
function narrowCast(expr: unknown): { bits?: 8 | 16 | 32; unsigned?: 8 | 16 | 32 | 64; name: string } | null {
  if (typeof expr !== 'object' || expr === null) return null;
  const e = expr as { kind?: unknown; bits?: 8 | 16 | 32; unsigned?: 8 | 16 | 32 | 64 };
  if (e.kind !== 'cast') return null;
  if (e.bits !== undefined) return { bits: e.bits, name: NARROW_SIGNED[e.bits] };
  if (e.unsigned !== undefined) return { unsigned: e.unsigned, name: NARROW_UNSIGNED[e.unsigned] };
  return null;
}
