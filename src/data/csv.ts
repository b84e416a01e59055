/**
 * CSV loading with per-column type inference over all values of the file.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { CsvError, parse } from 'csv-parse';
import { CanopyError } from '../merge/errors.ts';
import { fitsInt64, internString, type ColumnVec, type Loaded } from './columns.ts';
import { checkColumnNames, type StoredType } from './contract.ts';

const INT_RE = /^[+-]?\d+$/;
const NUM_RE = /^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/;
const ISO_RE = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?([Zz]|[+-]\d{2}(?::?\d{2})?)?)?$/;

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
 * UTC ms of an ISO-8601 date (`2001-01-31`) or date-time (`2001-01-31T08:05`, `...:07`,
 * `...:07.123456`, a space instead of `T`, an optional `Z` or `+hh:mm` / `+hhmm` / `+hh`
 * offset; zone-less means UTC). Fractions below a millisecond are floored. Null when `s`
 * is not such a value or names an impossible date or time.
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
  const ms = m[7] === undefined ? 0 : Number(m[7].padEnd(3, '0').slice(0, 3));
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
  return daysFromCivil(y, mo, d) * 86_400_000 + ((hh * 60 + mi - offsetMin) * 60 + ss) * 1000 + ms;
}

/**
 * The type of a CSV column from all its non-empty values: every value an integer within
 * int64 -> int64; every value numeric -> float64; every value an ISO-8601 date or
 * date-time -> timestamp; otherwise string. Surrounding spaces are ignored for the
 * numeric and timestamp checks. Null when the column has no value at all.
 */
export function inferCsvType(values: readonly string[]): StoredType | null {
  let isInt = true;
  let isNum = true;
  let isTs = true;
  let any = false;
  for (const raw of values) {
    if (raw === '') continue;
    any = true;
    const s = raw.trim();
    if (isInt && !(INT_RE.test(s) && (s.length < 19 || fitsInt64(BigInt(s))))) isInt = false;
    if (isNum && !isInt && !NUM_RE.test(s)) isNum = false;
    if (isTs && parseIsoTimestamp(s) === null) isTs = false;
    if (!isInt && !isNum && !isTs) return 'string';
  }
  if (!any) return null;
  return isInt ? 'int64' : isNum ? 'float64' : isTs ? 'timestamp' : 'string';
}

/** Converts string cells to a column of `type` (cells already known to fit it; '' is NULL). */
function convert(values: readonly string[], type: StoredType): ColumnVec {
  const n = values.length;
  const valid = new Uint8Array(n);
  switch (type) {
    case 'int64': {
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const s = values[i]!;
        if (s === '') continue;
        out[i] = BigInt(s.trim());
        valid[i] = 1;
      }
      return { type, values: out, valid };
    }
    case 'float64':
    case 'timestamp': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const s = values[i]!;
        if (s === '') continue;
        out[i] = type === 'float64' ? Number(s.trim()) : parseIsoTimestamp(s.trim())!;
        valid[i] = 1;
      }
      return { type, values: out, valid };
    }
    case 'string': {
      const codes = new Int32Array(n);
      const dictionary: string[] = [];
      const index = new Map<string, number>();
      for (let i = 0; i < n; i++) {
        const s = values[i]!;
        if (s === '') continue;
        codes[i] = internString(s, dictionary, index);
        valid[i] = 1;
      }
      return { type, codes, dictionary, valid };
    }
  }
}

/** A loaded CSV plus which columns had no value at all (their type is a guess: string). */
export interface LoadedCsv extends Loaded {
  readonly untyped: readonly boolean[];
}

/**
 * Reads a CSV file (header row required, UTF-8, optional BOM, `,` separator, `"` quotes,
 * blank lines skipped) and infers each column's type over all its values; an empty cell is NULL.
 * @throws CanopyError CANOPY_ERR_DATA for an unreadable or empty file, a bad header, a
 *   ragged row (with file and line) or malformed quoting.
 */
export async function loadCsv(file: string): Promise<LoadedCsv> {
  const name = basename(file);
  let header: string[] | null = null;
  const cells: string[][] = [];
  try {
    const parser = createReadStream(file).pipe(parse({ bom: true, skip_empty_lines: true, relax_column_count: false }));
    for await (const record of parser as AsyncIterable<string[]>) {
      if (header === null) {
        header = record;
        checkColumnNames(header, `CSV file ${file}: header row`);
        for (let c = 0; c < header.length; c++) cells.push([]);
        continue;
      }
      for (let c = 0; c < record.length; c++) cells[c]!.push(record[c]!);
    }
  } catch (e) {
    if (e instanceof CanopyError) throw e;
    if (e instanceof CsvError) {
      const line = (e as CsvError & { lines?: number }).lines;
      if (e.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
        throw new CanopyError('CANOPY_ERR_DATA', `ragged row in CSV file ${file} at line ${line}: ${e.message}; every row needs as many fields as the header (quote fields that contain commas)`, { cause: e });
      }
      throw new CanopyError('CANOPY_ERR_DATA', `could not parse CSV file ${file} at line ${line}: ${e.message}; fix the file`, { cause: e });
    }
    throw new CanopyError('CANOPY_ERR_DATA', `could not read CSV file ${file}: ${(e as Error).message}; check that it exists and is readable`, { cause: e });
  }
  if (header === null) throw new CanopyError('CANOPY_ERR_DATA', `CSV file ${name} (${file}) is empty; a CSV needs a header row naming its columns`);
  const inferred = cells.map((vals) => inferCsvType(vals));
  const types = inferred.map((t) => t ?? 'string');
  return {
    names: header,
    types,
    length: cells[0]?.length ?? 0,
    cols: cells.map((vals, c) => convert(vals, types[c]!)),
    untyped: inferred.map((t) => t === null),
  };
}
