/**
 * canopy's column types as PostgreSQL types: OIDs, sizes, and text and binary encodings of
 * values (https://www.postgresql.org/docs/current/protocol-overview.html#PROTOCOL-FORMAT-CODES).
 * int64 -> int8, float64 -> float8, string -> text, timestamp (UTC) -> timestamptz,
 * bool -> bool, int128 (sums beyond int64) -> numeric, date -> date.
 */
import { dateText, dayNumber, type Scalar } from '../merge/index.ts';
import { jsonValue } from '../root/index.ts';

/** PostgreSQL type OIDs (pg_type.oid) canopy sends or reads. */
export const OID = Object.freeze({
  bool: 16,
  int8: 20,
  int2: 21,
  int4: 23,
  text: 25,
  oid: 26,
  float4: 700,
  float8: 701,
  unknown: 705,
  bpchar: 1042,
  varchar: 1043,
  date: 1082,
  timestamp: 1114,
  timestamptz: 1184,
  numeric: 1700,
  name: 19,
  char: 18,
});

/** A PostgreSQL type as canopy sends it. */
export interface PgType {
  readonly oid: number;
  readonly name: string;
  /** pg_type.typlen: bytes, or -1 for variable length. */
  readonly size: number;
}

const TYPES: Readonly<Record<string, PgType>> = {
  int64: { oid: OID.int8, name: 'bigint', size: 8 },
  float64: { oid: OID.float8, name: 'double precision', size: 8 },
  string: { oid: OID.text, name: 'text', size: -1 },
  timestamp: { oid: OID.timestamptz, name: 'timestamp with time zone', size: 8 },
  bool: { oid: OID.bool, name: 'boolean', size: 1 },
  int128: { oid: OID.numeric, name: 'numeric', size: -1 },
  date: { oid: OID.date, name: 'date', size: 4 },
};

/** The PostgreSQL type of a canopy column type (an unknown one is sent as text). */
export function pgTypeOf(type: string): PgType {
  return TYPES[type] ?? TYPES.string!;
}

/** The PostgreSQL type of a catalog column (text, int8, bool, ...). */
export const PG_TEXT = TYPES.string!;
export const PG_INT8 = TYPES.int64!;
export const PG_BOOL = TYPES.bool!;

// 2000-01-01T00:00:00Z, PostgreSQL's epoch, in µs since 1970.
export const PG_EPOCH_US = 946_684_800_000_000;
/** 2000-01-01 in days since 1970 (PostgreSQL's date epoch). */
const PG_EPOCH_DAYS = 10_957;

/** Epoch µs of a timestamp value (canopy's timestamps are whole µs since 1970), or null if it is none. */
function timestampMicros(v: Scalar): number | null {
  if (typeof v === 'number') return Number.isFinite(v) ? v : null;
  if (typeof v === 'bigint') return Number(v);
  return null;
}

/** A timestamp (µs) as PostgreSQL prints a timestamptz in UTC with DateStyle ISO: `2001-01-02 10:15:00.5+00`. */
function timestampText(us: number): string {
  const ms = Math.floor(us / 1000);
  const micros = us - ms * 1000;
  const iso = new Date(ms).toISOString(); // 2001-01-02T10:15:00.500Z
  const year = iso.startsWith('+') || iso.startsWith('-') ? iso.slice(0, 7) : iso.slice(0, 4);
  const rest = iso.slice(year.length, year.length + 15).replace('T', ' '); // -MM-DD HH:MM:SS
  const frac = (Number(iso.slice(year.length + 16, year.length + 19)) * 1000 + micros).toString().padStart(6, '0').replace(/0+$/, '');
  return `${year}${rest}${frac === '' ? '' : `.${frac}`}+00`;
}

/** Text of a value as PostgreSQL prints its type. */
export function textValue(v: Scalar, type: string): string | null {
  if (v === null) return null;
  if (type === 'timestamp') {
    const us = timestampMicros(v);
    return us === null ? null : timestampText(us);
  }
  // PostgreSQL's date text with DateStyle ISO: 2024-01-31 (canopy's years are all AD).
  if (type === 'date') return typeof v === 'number' ? dateText(v) : null;
  if (typeof v === 'boolean') return v ? 't' : 'f';
  if (type === 'bool') return v === 'true' ? 't' : 'f';
  if (typeof v === 'bigint') return v.toString();
  if (typeof v === 'number') {
    if (type === 'int64' || type === 'int128') return Number.isInteger(v) ? BigInt(v).toString() : String(v);
    if (Number.isNaN(v)) return 'NaN';
    // PostgreSQL prints a float8 -0 with its sign (String(-0) is "0").
    if (Object.is(v, -0)) return '-0';
    return String(v);
  }
  const j = jsonValue(v, type as never);
  return j === null ? null : String(j);
}

/** Encodes a value in the given format (0 text, 1 binary) of its canopy type; null for SQL NULL. */
export function encodeValue(v: Scalar, type: string, format: number): Buffer | null {
  if (v === null) return null;
  if (format === 0) {
    const t = textValue(v, type);
    return t === null ? null : Buffer.from(t, 'utf8');
  }
  switch (pgTypeOf(type).oid) {
    case OID.int8: {
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(typeof v === 'bigint' ? v : BigInt(Math.trunc(Number(v))));
      return b;
    }
    case OID.float8: {
      const b = Buffer.alloc(8);
      b.writeDoubleBE(Number(v));
      return b;
    }
    case OID.bool:
      return Buffer.from([v === true || v === 'true' ? 1 : 0]);
    case OID.timestamptz: {
      const us = timestampMicros(v);
      if (us === null) return null;
      const b = Buffer.alloc(8);
      b.writeBigInt64BE(BigInt(us) - BigInt(PG_EPOCH_US));
      return b;
    }
    case OID.date: {
      // Int32 days since 2000-01-01 (date_send).
      if (typeof v !== 'number') return null;
      const b = Buffer.alloc(4);
      b.writeInt32BE(dayNumber(v) - PG_EPOCH_DAYS);
      return b;
    }
    case OID.numeric:
      return numericBinary(typeof v === 'bigint' ? v : BigInt(String(v)));
    default:
      return Buffer.from(textValue(v, type) ?? '', 'utf8');
  }
}

/**
 * An integer as PostgreSQL's binary numeric: Int16 ndigits, Int16 weight, Int16 sign
 * (0x0000 positive, 0x4000 negative), Int16 dscale, then base-10000 digits, most
 * significant first (src/backend/utils/adt/numeric.c, numeric_send).
 */
export function numericBinary(n: bigint): Buffer {
  const neg = n < 0n;
  let a = neg ? -n : n;
  const digits: number[] = [];
  while (a > 0n) {
    digits.unshift(Number(a % 10000n));
    a /= 10000n;
  }
  const weight = digits.length - 1;
  while (digits.length > 0 && digits[digits.length - 1] === 0) digits.pop();
  const b = Buffer.alloc(8 + 2 * digits.length);
  b.writeInt16BE(digits.length, 0);
  b.writeInt16BE(digits.length === 0 ? 0 : weight, 2);
  b.writeUInt16BE(neg ? 0x4000 : 0, 4);
  b.writeInt16BE(0, 6);
  digits.forEach((d, i) => b.writeInt16BE(d, 8 + 2 * i));
  return b;
}
