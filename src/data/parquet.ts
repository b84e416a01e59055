/**
 * Parquet loading with hyparquet: flat columns only, mapped to canopy types.
 */
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type { ColumnData, FileMetaData, ParquetParsers, SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { CanopyError } from '../merge/errors.ts';
import { US_PER_DAY, checkMicros } from '../merge/time.ts';
import type { ColumnVec, Loaded } from './columns.ts';
import { checkColumnNames, type StoredType } from './contract.ts';
import { decodeUtf8Strict, hexBytes } from './utf8.ts';

/** A value the loader refuses (it cannot be held exactly); the sink names its column and row. */
class Refused {
  constructor(readonly why: string) {}
}

const TS_RANGE = 'canopy holds timestamps to the microsecond between the years 1685 and 2255 (refused rather than rounded)';

/** A µs count as a double, or a refusal when it lies outside ±2^53 µs. */
function micros(us: bigint, raw: string): number | Refused {
  const n = Number(us);
  const bad = checkMicros(n);
  return bad === null && BigInt(n) === us ? n : new Refused(`timestamp ${raw} ${bad ?? 'lies outside the range held exactly (years 1685 to 2255: ±2^53 µs since 1970)'}; ${TS_RANGE}`);
}

/** A string value, or a refusal when its bytes are not UTF-8 (U+FFFD would merge different values). */
function utf8(bytes: Uint8Array): string | Refused {
  return (
    decodeUtf8Strict(bytes) ??
    new Refused(`bytes ${hexBytes(bytes)} are not valid UTF-8; canopy stores strings as UTF-8 text and refuses to alter them (a binary column: drop it, or hex-encode it)`)
  );
}

/**
 * Timestamps and dates become UTC µs numbers instead of Date objects, exactly or not at all:
 * nanoseconds that are not whole microseconds, and instants outside ±2^53 µs, are refused.
 * Strings are decoded keeping a leading U+FEFF (hyparquet's default decoder drops it), and
 * bytes that are not valid UTF-8 are refused (hyparquet's decoder makes them U+FFFD).
 */
const parsers: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (v: bigint) => micros(v * 1000n, `${v} ms`),
  timestampFromMicroseconds: (v: bigint) => micros(v, `${v} µs`),
  timestampFromNanoseconds: (v: bigint) => (v % 1000n === 0n ? micros(v / 1000n, `${v} ns`) : new Refused(`timestamp ${v} ns is not a whole number of microseconds; ${TS_RANGE}`)),
  dateFromDays: (days: number) => micros(BigInt(days) * BigInt(US_PER_DAY), `date ${days} days`),
  stringFromBytes: (bytes: Uint8Array | undefined) => (bytes === undefined ? bytes : utf8(bytes)),
};

/** `name` as a SQL identifier: bare when it is a plain one, else double-quoted. */
function sqlName(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`;
}

/**
 * The canopy type of a flat Parquet column, or a description of why it is unsupported.
 * INT32/INT64 (signed, or unsigned up to 32 bits) -> int64; DOUBLE -> float64;
 * TIMESTAMP (any unit) and INT96 -> timestamp; DATE (converted_type DATE; a logical DATE alone
 * is refused) -> date (the µs of its midnight UTC); UTF8/STRING/ENUM or plain BYTE_ARRAY -> string
 * (its values must be valid UTF-8: see {@link loadParquet}). FLOAT (32-bit) is refused: canopy
 * has no single-precision type, and held as a double it would answer differently from DuckDB,
 * which keeps the column FLOAT (`f = 0.1` casts the literal to FLOAT; `f::VARCHAR` is '0.1').
 * @returns the stored type, or a description of the unsupported type (with what to do) for the
 *   caller's refusal message
 */
export function parquetColumnType(el: SchemaElement): StoredType | string {
  const lt = el.logical_type;
  const ct = el.converted_type;
  const describe = [el.type, lt?.type ?? ct].filter((x) => x !== undefined).join(' ');
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL') return `${describe} (decimal)`;
  switch (el.type) {
    case 'INT32':
      if (ct === 'DATE') return 'date';
      // hyparquet converts days only under converted_type DATE, and DuckDB reads a DATE
      // logical type without it as INTEGER: no reading is safe, so it is refused.
      if (lt?.type === 'DATE') return `${el.type} DATE (a logical DATE without converted_type DATE, which DuckDB reads as INTEGER)`;
      if (ct === 'TIME_MILLIS' || lt?.type === 'TIME') return describe;
      return 'int64';
    case 'INT64':
      if (ct === 'TIMESTAMP_MILLIS' || ct === 'TIMESTAMP_MICROS' || lt?.type === 'TIMESTAMP') return 'timestamp';
      if (ct === 'TIME_MICROS' || lt?.type === 'TIME') return describe;
      if (ct === 'UINT_64' || (lt?.type === 'INTEGER' && !lt.isSigned)) return `${describe} (unsigned 64-bit)`;
      return 'int64';
    case 'INT96':
      return 'timestamp';
    case 'FLOAT':
      return `${describe} (32-bit float: canopy holds only 64-bit DOUBLE, and DuckDB compares, casts and computes a FLOAT column in single precision, so widening it would answer differently: write the column as DOUBLE, e.g. CAST(${sqlName(el.name)} AS DOUBLE) in the COPY)`;
    case 'DOUBLE':
      return 'float64';
    case 'BYTE_ARRAY':
      if (lt === undefined && (ct === undefined || ct === 'UTF8' || ct === 'ENUM')) return 'string';
      if (lt?.type === 'STRING' || lt?.type === 'ENUM') return 'string';
      return describe;
    default:
      return describe || 'unknown';
  }
}

/** Column storage filled chunk by chunk while hyparquet decodes. */
class Sink {
  readonly valid: Uint8Array;
  readonly int: BigInt64Array | null;
  readonly num: Float64Array | null;
  readonly codes: Int32Array | null;
  readonly dictionary: string[] = [];
  private readonly index = new Map<string, number>();
  filled = 0;
  nulls = 0;
  /** The first value refused (see {@link Refused}), thrown once the read is over. */
  refused: CanopyError | null = null;

  constructor(
    readonly type: StoredType,
    readonly length: number,
    readonly where: string,
  ) {
    this.valid = new Uint8Array(length);
    this.int = type === 'int64' ? new BigInt64Array(length) : null;
    this.num = type === 'float64' || type === 'timestamp' || type === 'date' ? new Float64Array(length) : null;
    this.codes = type === 'string' ? new Int32Array(length) : null;
  }

  put(data: ArrayLike<unknown>, rowStart: number): void {
    const end = Math.min(this.length, rowStart + data.length);
    const { valid, int, num, codes } = this;
    for (let i = rowStart, j = 0; i < end; i++, j++) {
      const v = data[j];
      if (v === null || v === undefined) {
        this.nulls++;
        continue;
      }
      valid[i] = 1;
      if (v instanceof Refused) {
        // Thrown after the read (hyparquet's chunk callback does not propagate errors).
        this.refused ??= new CanopyError('CANOPY_ERR_DATA', `${this.where}, row ${i + 1}: ${v.why}`);
        continue;
      }
      if (int !== null) int[i] = typeof v === 'bigint' ? v : BigInt(v as number);
      else if (num !== null) num[i] = Number(v);
      else if (codes !== null) {
        const s = v as string;
        let code = this.index.get(s);
        if (code === undefined) {
          code = this.dictionary.length;
          this.dictionary.push(s);
          this.index.set(s, code);
        }
        codes[i] = code;
      }
    }
    this.filled += end - rowStart;
  }

  column(): ColumnVec {
    const valid = this.nulls === 0 ? null : this.valid;
    if (this.int !== null) return { type: 'int64', values: this.int, valid };
    if (this.num !== null) return { type: this.type as 'float64' | 'timestamp' | 'date', values: this.num, valid };
    return { type: 'string', codes: this.codes!, dictionary: this.dictionary, valid };
  }
}

/**
 * Reads a whole Parquet file into columns.
 * @throws CanopyError CANOPY_ERR_DATA for an unreadable or corrupt file, a nested column,
 *   a column type canopy does not store (BOOLEAN, DECIMAL, FLOAT, TIME, ...), naming column and type,
 *   or a value it cannot hold exactly (a string that is not valid UTF-8, a timestamp finer
 *   than a µs or beyond ±2^53 µs), naming column, row and value.
 */
export async function loadParquet(file: string): Promise<Loaded> {
  let metadata: FileMetaData;
  let buffer: Awaited<ReturnType<typeof asyncBufferFromFile>>;
  try {
    buffer = await asyncBufferFromFile(file);
    metadata = await parquetMetadataAsync(buffer);
  } catch (e) {
    throw new CanopyError('CANOPY_ERR_DATA', `could not read Parquet file ${file}: ${(e as Error).message}; check that it is a readable Parquet file`, { cause: e });
  }
  const tree = parquetSchema(metadata);
  const names: string[] = [];
  const types: StoredType[] = [];
  for (const child of tree.children) {
    const el = child.element;
    if (child.children.length > 0 || el.repetition_type === 'REPEATED') {
      throw new CanopyError('CANOPY_ERR_DATA', `Parquet file ${file}: column '${el.name}' is nested (list, map or struct); canopy stores flat int64, float64, timestamp, date and string columns`);
    }
    const t = parquetColumnType(el);
    if (t !== 'int64' && t !== 'float64' && t !== 'timestamp' && t !== 'date' && t !== 'string') {
      throw new CanopyError('CANOPY_ERR_DATA', `Parquet file ${file}: column '${el.name}' has type ${t}, which canopy does not store; use integers, doubles, timestamps, dates or strings (cast it, or drop the column)`);
    }
    names.push(el.name);
    types.push(t);
  }
  checkColumnNames(names, `Parquet file ${file}`);
  const length = Number(metadata.num_rows);
  const sinks = types.map((t, i) => new Sink(t, length, `Parquet file ${file}: column '${names[i]}'`));
  const byName = new Map(names.map((n, i) => [n, sinks[i]!]));
  try {
    await parquetRead({
      file: buffer,
      metadata,
      compressors,
      parsers,
      columns: names,
      onChunk(chunk: ColumnData) {
        byName.get(chunk.columnName)?.put(chunk.columnData as ArrayLike<unknown>, chunk.rowStart);
      },
    });
  } catch (e) {
    if (e instanceof CanopyError) throw e;
    throw new CanopyError('CANOPY_ERR_DATA', `could not decode Parquet file ${file}: ${(e as Error).message}; check that it is not corrupt`, { cause: e });
  }
  for (const s of sinks) if (s.refused !== null) throw s.refused;
  for (const [i, s] of sinks.entries()) {
    if (s.filled !== length) {
      throw new CanopyError('CANOPY_ERR_DATA', `Parquet file ${file}: column '${names[i]}' decoded ${s.filled} of ${length} rows; check that the file is not corrupt`);
    }
  }
  return { names, types, length, cols: sinks.map((s) => s.column()) };
}
