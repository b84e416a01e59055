/**
 * CSV loading with per-column type inference over all values of the file.
 */
import { createReadStream } from 'node:fs';
import { basename } from 'node:path';
import { pipeline, Transform, type TransformCallback } from 'node:stream';
import { CsvError, parse } from 'csv-parse';
import { CanopyError } from '../merge/errors.ts';
import { NEGATIVE_NAN, trimAscii } from '../merge/scalar.ts';
import { parseIsoTimestamp } from '../merge/time.ts';
import { fitsInt64, internString, type ColumnVec, type Loaded } from './columns.ts';
import { checkColumnNames, type StoredType } from './contract.ts';
import { findInvalidUtf8, InvalidUtf8Error, utf8Checker } from './utf8.ts';

const INT_RE = /^[+-]?\d+$/;
const NUM_RE = /^[+-]?(?:(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?|nan|inf|infinity)$/i;

/** A float64 CSV cell: a number, or NaN / [+-]inf / [+-]infinity in any case (as DuckDB reads them). */
function csvDouble(s: string): number {
  const t = trimAscii(s);
  const special = /^([+-]?)(nan|inf|infinity)$/i.exec(t);
  if (special === null) return Number(t);
  // '-nan' is the NaN with its sign bit set, as DuckDB reads it (its text is '-nan').
  if (special[2]!.toLowerCase() === 'nan') return special[1] === '-' ? NEGATIVE_NAN : NaN;
  return special[1] === '-' ? -Infinity : Infinity;
}

/**
 * Numbers DuckDB's CSV sniffer does not read as numbers (measured with DuckDB 1.x read_csv,
 * wherever they stand in the column): a leading `+` ('+7', '+0.5'), and a leading zero before
 * another digit ('007', '00.5', '010.5', '00000': ids and zip codes; a negative such as '-007'
 * is a number there). A column holding one of them is VARCHAR. (Its reading of 'inf' depends on
 * the row: text in the first row, a DOUBLE after; canopy reads it as a DOUBLE.)
 */
const SNIFFED_AS_TEXT = /^(?:\+|0[0-9])/;

/** A date without a time, which DuckDB's sniffer types DATE (a DATE column takes no time of day). */
const PLAIN_DATE = /^\d{4}-\d{2}-\d{2}$/;

/**
 * The type of a CSV column from all its non-empty values, as DuckDB's sniffer types it: every
 * value an integer within int64 -> int64; every value numeric (NaN, inf and infinity included, any case) -> float64; every value an ISO-8601 date or
 * date-time -> timestamp, or date when every value is a plain date (`2024-01-31`, DuckDB's DATE);
 * otherwise string (also when a value is a number DuckDB's sniffer
 * reads as text: {@link SNIFFED_AS_TEXT}). Surrounding ASCII whitespace is ignored for the
 * numeric and timestamp checks (see {@link trimAscii}). Null when the column has no value at all.
 */
export function inferCsvType(values: readonly string[]): StoredType | null {
  let isInt = true;
  let isNum = true;
  let isTs = true;
  let any = false;
  for (const raw of values) {
    if (raw === '') continue;
    any = true;
    const s = trimAscii(raw);
    if ((isInt || isNum) && SNIFFED_AS_TEXT.test(s)) {
      isInt = false;
      isNum = false;
    }
    if (isInt && !(INT_RE.test(s) && (s.length < 19 || fitsInt64(BigInt(s))))) isInt = false;
    if (isNum && !isInt && !NUM_RE.test(s)) isNum = false;
    if (isTs && !isIsoTimestamp(s)) isTs = false;
    if (!isInt && !isNum && !isTs) return 'string';
  }
  if (!any) return null;
  if (isInt) return 'int64';
  if (isNum) return 'float64';
  if (isTs) return values.every((v) => v === '' || PLAIN_DATE.test(trimAscii(v))) ? 'date' : 'timestamp';
  return 'string';
}

/** The values DuckDB's CSV sniffer reads as BOOLEAN (measured with DuckDB 1.x read_csv; no surrounding whitespace). */
const SNIFFED_BOOLEAN = /^(?:true|false|t|f|yes|no)$/i;

/**
 * Whether DuckDB's sniffer reads the column as BOOLEAN: it holds a value and every non-empty
 * value is true/false, t/f or yes/no in any case ('y'/'n', 'on'/'off', '1'/'0' and padded
 * values are not: VARCHAR, or BIGINT for 1/0).
 */
export function sniffedBoolean(values: readonly string[]): boolean {
  let any = false;
  for (const v of values) {
    if (v === '') continue;
    if (!SNIFFED_BOOLEAN.test(v)) return false;
    any = true;
  }
  return any;
}

/** ISO-8601 syntax and a possible date (whether or not canopy can hold the instant exactly). */
function isIsoTimestamp(s: string): boolean {
  try {
    return parseIsoTimestamp(s) !== null;
  } catch {
    return true; // a timestamp convert() refuses, naming the column
  }
}

/**
 * Converts string cells to a column of `type` (cells already known to fit it; '' is NULL).
 * @throws CanopyError CANOPY_ERR_DATA for a timestamp canopy cannot hold exactly, naming the column and value
 */
function convert(values: readonly string[], type: StoredType, where: string): ColumnVec {
  const n = values.length;
  const valid = new Uint8Array(n);
  switch (type) {
    case 'int64': {
      const out = new BigInt64Array(n);
      for (let i = 0; i < n; i++) {
        const s = values[i]!;
        if (s === '') continue;
        out[i] = BigInt(trimAscii(s));
        valid[i] = 1;
      }
      return { type, values: out, valid };
    }
    case 'float64':
    case 'timestamp':
    case 'date': {
      const out = new Float64Array(n);
      for (let i = 0; i < n; i++) {
        const s = values[i]!;
        if (s === '') continue;
        if (type === 'float64') out[i] = csvDouble(s);
        else {
          try {
            out[i] = parseIsoTimestamp(trimAscii(s))!;
          } catch (e) {
            throw new CanopyError('CANOPY_ERR_DATA', `${where}, row ${i + 1}: ${(e as Error).message}; canopy holds timestamps to the microsecond between the years 1685 and 2255`);
          }
        }
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

/**
 * Values DuckDB's sniffer types as TIME (`10:00`, `1:00`, `10:00:00.123456`; hour < 24,
 * minute and second < 60) and as BIGINT written in hex or binary (`0x1F`, `0b101`, within
 * int64), which canopy loads as strings (README's known differences). They count as typed
 * columns when deciding whether the first row is a header, as they do for DuckDB.
 */
const SNIFFED_TIME = /^([01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?)?$/;
const SNIFFED_RADIX = /^0(?:[xX][0-9a-fA-F]{1,16}|[bB][01]{1,63})$/;

function sniffedRadix(s: string): boolean {
  return SNIFFED_RADIX.test(s) && BigInt(s) <= 0x7fffffffffffffffn;
}

/** How a column types for header detection: a canopy type, or a DuckDB type canopy reads otherwise. */
type HeaderClass = StoredType | 'none' | 'date' | 'time' | 'radix' | 'boolean';

/**
 * The class of a column's values (the rows after the first) for header detection: 'none' when
 * it holds no value (DuckDB's sniffer then takes no non-empty first-row value as fitting it),
 * BOOLEAN / TIME / hex-or-binary BIGINT as DuckDB's sniffer types them, else canopy's type.
 */
function headerClass(values: readonly string[], t: StoredType | null = inferCsvType(values)): HeaderClass {
  if (t === null) return 'none';
  if (t !== 'string') return t;
  if (sniffedBoolean(values)) return 'boolean';
  const all = (f: (v: string) => boolean): boolean => values.every((v) => v === '' || f(v));
  if (all((v) => SNIFFED_TIME.test(v))) return 'time';
  if (all(sniffedRadix)) return 'radix';
  return 'string';
}

/** Whether first-row field `v` casts to a column of class `c` (an empty field, NULL, always does). */
function fitsClass(v: string, c: HeaderClass): boolean {
  if (v === '' || c === 'string') return true;
  switch (c) {
    case 'none':
      return false;
    case 'boolean':
      return SNIFFED_BOOLEAN.test(v);
    case 'date':
      return inferCsvType([v]) === 'date';
    case 'time':
      return SNIFFED_TIME.test(v);
    case 'radix':
      return sniffedRadix(v);
    case 'float64': {
      const t = inferCsvType([v]);
      return t === 'int64' || t === 'float64';
    }
    case 'timestamp': {
      const t = inferCsvType([v]);
      return t === 'timestamp' || t === 'date';
    }
    default:
      return inferCsvType([v]) === c;
  }
}

/**
 * Whether a CSV's first row is its header, by DuckDB's sniffer's rule (DuckDB 1.x
 * `read_csv`, header detection): the columns are typed from the rows after the first (from
 * the first row itself in a file of one row); the first row is a header when every column is
 * VARCHAR, or every field of the first row is empty, or one of its fields does not cast to its
 * column's type; otherwise it is data. (`1,2 / 3,4` and `x,1 / y,2` have no header, `a,b /
 * c,d` and `a,b` alone have one, `a,1 / 2,3` has one: 'a' is no BIGINT.) Types are canopy's
 * ({@link inferCsvType}), with DuckDB's BOOLEAN, TIME and hex or binary BIGINT columns (text
 * in canopy) counted as typed, and a column of dates without times as DuckDB's DATE (which
 * takes no time of day); where canopy types a column otherwise than DuckDB's sniffer
 * (README's known differences), the decision can differ.
 * @param first the first record's fields; `rest` each column's values in the later rows (one
 *   array per field of `first`, all of one length; '' is an empty field); `restTypes` their
 *   {@link inferCsvType} when the caller has it (computed here otherwise)
 * @returns true when the first row names the columns, false when it is a row of data
 */
export function csvFirstRowIsHeader(first: readonly string[], rest: readonly (readonly string[])[], restTypes?: readonly (StoredType | null)[]): boolean {
  if (first.every((v) => v === '')) return true;
  const oneRow = (rest[0]?.length ?? 0) === 0;
  let allText = true;
  let consistent = true;
  for (const [c, v] of first.entries()) {
    const cls = oneRow ? headerClass([v]) : headerClass(rest[c]!, restTypes === undefined ? inferCsvType(rest[c]!) : restTypes[c]!);
    if (cls === 'string') continue;
    allText = false;
    if (!fitsClass(v, cls)) consistent = false;
  }
  return allText || !consistent;
}

/**
 * The names DuckDB gives a CSV's columns: without a header `column0`, `column1`, ... (zero-
 * padded to the digits of the last index: `column00` .. `column10` for 11 columns); from a
 * header, each name trimmed of Unicode space separators (' ', U+00A0, U+3000, ...; not tabs),
 * and a name that is empty or only whitespace is `columnN` too.
 * @param header the header's fields, or null when the file has none; `width` the column count
 */
export function csvColumnNames(header: readonly string[] | null, width: number): string[] {
  const digits = String(Math.max(0, width - 1)).length;
  const generated = (i: number): string => `column${String(i).padStart(digits, '0')}`;
  if (header === null) return Array.from({ length: width }, (_, i) => generated(i));
  return header.map((h, i) => (/^[ \t\n\v\f\r]*$/.test(h) ? generated(i) : h.replace(/^\p{Zs}+|\p{Zs}+$/gu, '')));
}

/** Thrown by {@link lineEndChecker} at the first line ending of another kind than the first one's. */
class MixedLineEndsError extends Error {}

const EOL_NAMES = ['', '\\n', '\\r\\n', '\\r'];

/**
 * A pass-through stream of CSV bytes that fails with {@link MixedLineEndsError} when a line
 * ending outside quotes (`\n`, `\r\n` or `\r`) differs from the file's first one. csv-parse
 * takes the first kind as the record delimiter, so another kind would stay inside a value
 * ('x\r', or two lines as one value); DuckDB refuses such a file too. Quotes are tracked as
 * RFC 4180 writes them (`""` inside a quoted field toggles twice).
 */
function lineEndChecker(): Transform {
  let quoted = false;
  let pendingCR = false;
  let kind = 0; // 0 none yet, 1 \n, 2 \r\n, 3 \r
  let line = 1;
  const see = (k: number): void => {
    if (kind === 0) kind = k;
    else if (k !== kind) throw new MixedLineEndsError(`line ${line} ends with ${EOL_NAMES[k]} where line 1 ends with ${EOL_NAMES[kind]}`);
    line++;
  };
  const run = (cb: TransformCallback, f: () => void, chunk?: Buffer): void => {
    try {
      f();
    } catch (e) {
      cb(e as Error);
      return;
    }
    cb(null, chunk);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      run(
        cb,
        () => {
          // Fast path: no quote and no CR in the chunk, nothing pending.
          if (!pendingCR && !quoted && chunk.indexOf(0x0d) < 0 && chunk.indexOf(0x22) < 0) {
            for (let i = chunk.indexOf(0x0a); i >= 0; i = chunk.indexOf(0x0a, i + 1)) see(1);
            return;
          }
          for (const b of chunk) {
            if (pendingCR) {
              pendingCR = false;
              if (b === 0x0a) {
                see(2);
                continue;
              }
              see(3);
            }
            if (b === 0x22) quoted = !quoted;
            else if (quoted) continue;
            else if (b === 0x0d) pendingCR = true;
            else if (b === 0x0a) see(1);
          }
        },
        chunk,
      );
    },
    flush(cb) {
      run(cb, () => {
        if (pendingCR) see(3);
      });
    },
  });
}

/**
 * The error for a ragged row of `file`, with its line: the file is read again by csv-parse
 * checking the field count itself (a blank line of a one-column file is one empty field).
 */
async function raggedRowError(file: string, width: number): Promise<CanopyError> {
  const strictParser = parse({ bom: true, skip_empty_lines: width > 1, relax_column_count: false });
  pipeline(createReadStream(file), strictParser, () => {});
  try {
    for await (const _ of strictParser as AsyncIterable<string[]>);
  } catch (e) {
    if (e instanceof CsvError && e.code === 'CSV_RECORD_INCONSISTENT_FIELDS_LENGTH') {
      const line = (e as CsvError & { lines?: number }).lines;
      return new CanopyError('CANOPY_ERR_DATA', `ragged row in CSV file ${file} at line ${line}: ${e.message}; every row needs as many fields as the header (quote fields that contain commas)`, { cause: e });
    }
  }
  return new CanopyError('CANOPY_ERR_DATA', `ragged row in CSV file ${file}: every row needs as many fields as the header (quote fields that contain commas)`);
}

/** The separators DuckDB's CSV sniffer tries besides the comma. */
const OTHER_DELIMITERS = [';', '\t', '|'] as const;

/**
 * Refuses a file of one comma-separated column whose header and every row split alike into
 * several fields at `;`, a tab or `|`: DuckDB's sniffer reads such a file as separated by
 * that character (`a;b` / `1;x`: columns a and b), where canopy, which reads commas only,
 * would load one column named 'a;b' holding '1;x'.
 * @param header the header's fields; `cells` the values of its columns
 * @throws CanopyError CANOPY_ERR_DATA naming the separator
 */
function refuseOtherDelimiter(file: string, header: readonly string[], cells: readonly (readonly string[])[]): void {
  if (header.length !== 1) return;
  for (const d of OTHER_DELIMITERS) {
    const width = header[0]!.split(d).length;
    if (width > 1 && cells[0]!.every((v) => v === '' || v.split(d).length === width)) {
      const shown = d === '\t' ? 'a tab' : `'${d}'`;
      throw new CanopyError('CANOPY_ERR_DATA', `CSV file ${file} is separated by ${shown}, not by commas (its header '${header[0]!.slice(0, 60)}' and rows split alike there), and DuckDB's sniffer reads it so; canopy reads comma-separated files only: convert it (in DuckDB: COPY (FROM read_csv('in.csv')) TO 'out.csv')`);
    }
  }
}

/** A loaded CSV plus which columns had no value at all (their type is a guess: string). */
export interface LoadedCsv extends Loaded {
  readonly untyped: readonly boolean[];
}

/**
 * Reads a CSV file (valid UTF-8, optional BOM, `,` separator, `"` quotes) and infers each
 * column's type over all its values; an empty cell is NULL. The first row is the header
 * unless DuckDB's sniffer would read it as data ({@link csvFirstRowIsHeader}); then it is a
 * row and the columns are named `column0`, `column1`, ... as DuckDB names them
 * ({@link csvColumnNames}); header names are trimmed of spaces, as DuckDB trims them. Blank
 * lines are skipped, except in a file of one column, where (as in DuckDB) a blank line after
 * the first row is a NULL row.
 * @throws CanopyError CANOPY_ERR_DATA for an unreadable or empty file, bytes that are not
 *   UTF-8, line endings of two kinds outside quotes, a bad header (empty after trimming,
 *   duplicate, or names differing only in case), a ragged row (with file and line),
 *   malformed quoting, or a column DuckDB reads as BOOLEAN ({@link sniffedBoolean}).
 */
export async function loadCsv(file: string): Promise<LoadedCsv> {
  const name = basename(file);
  /** The first non-blank record: the header or the first row, decided once the file is read. */
  let first: string[] | null = null;
  const cells: string[][] = [];
  try {
    // Blank lines as DuckDB reads them: skipped before the header and in a file of several
    // columns; in a one-column file a blank line is a row whose value is empty (NULL). Rows are
    // checked here, not in an on_record hook (which costs csv-parse an object per row).
    const parser = parse({ bom: true, relax_column_count: true });
    // pipeline, not pipe: a read or UTF-8 error destroys the parser, so the loop below throws it.
    pipeline(createReadStream(file), utf8Checker(), lineEndChecker(), parser, () => {});
    for await (const record of parser as AsyncIterable<string[]>) {
      const blank = record.length === 1 && record[0] === '';
      if (first === null) {
        if (blank) continue;
        first = record;
        for (let c = 0; c < first.length; c++) cells.push([]);
        continue;
      }
      if (blank && first.length > 1) continue;
      if (record.length !== first.length) {
        parser.destroy();
        throw await raggedRowError(file, first.length);
      }
      for (let c = 0; c < record.length; c++) cells[c]!.push(record[c]!);
    }
  } catch (e) {
    if (e instanceof CanopyError) throw e;
    if (e instanceof InvalidUtf8Error) {
      const at = await findInvalidUtf8(file);
      const where = at === null ? '' : ` at line ${at.line} (byte ${at.offset})`;
      throw new CanopyError('CANOPY_ERR_DATA', `CSV file ${file} is not valid UTF-8${where}; canopy reads CSV as UTF-8 and refuses to guess other bytes (convert the file, e.g. iconv -f LATIN1 -t UTF-8)`, { cause: e });
    }
    if (e instanceof MixedLineEndsError) {
      throw new CanopyError('CANOPY_ERR_DATA', `CSV file ${file} mixes line endings: ${e.message}; use one kind (dos2unix or unix2dos converts a file), or quote the field that holds a line break`, { cause: e });
    }
    if (e instanceof CsvError) {
      const line = (e as CsvError & { lines?: number }).lines;
      throw new CanopyError('CANOPY_ERR_DATA', `could not parse CSV file ${file} at line ${line}: ${e.message}; fix the file`, { cause: e });
    }
    throw new CanopyError('CANOPY_ERR_DATA', `could not read CSV file ${file}: ${(e as Error).message}; check that it exists and is readable`, { cause: e });
  }
  if (first === null) throw new CanopyError('CANOPY_ERR_DATA', `CSV file ${name} (${file}) is empty; a CSV needs a header row naming its columns, or a row of data`);
  refuseOtherDelimiter(file, first, cells);
  // Each column typed once over the later rows: the header test reads these types, and with a
  // header they are the columns' types (a first row of data joins the column: typed again).
  const restTypes = cells.map((vals) => inferCsvType(vals));
  const hasHeader = csvFirstRowIsHeader(first, cells, restTypes);
  const header = csvColumnNames(hasHeader ? first : null, first.length);
  checkColumnNames(header, `CSV file ${file}: header row`);
  if (!hasHeader) first.forEach((v, c) => cells[c]!.unshift(v));
  // canopy stores no BOOLEAN column (a Parquet BOOLEAN is refused too): read as strings, 'true'
  // would answer where DuckDB answers true, and 't' and 'TRUE' as two values where it sees one.
  const bool = cells.findIndex((vals) => sniffedBoolean(vals));
  if (bool >= 0) {
    throw new CanopyError('CANOPY_ERR_DATA', `CSV file ${file}: column '${header[bool]}' holds booleans (true/false, t/f or yes/no), and DuckDB reads it as BOOLEAN; canopy does not store BOOLEAN columns (nor loads a Parquet BOOLEAN): write them as 1 and 0`);
  }
  const inferred = hasHeader ? restTypes : cells.map((vals) => inferCsvType(vals));
  const types = inferred.map((t) => t ?? 'string');
  return {
    names: header,
    types,
    length: cells[0]?.length ?? 0,
    cols: cells.map((vals, c) => convert(vals, types[c]!, `CSV file ${file}: column '${header[c]}'`)),
    untyped: inferred.map((t) => t === null),
  };
}
