/**
 * Parquet loading with hyparquet: flat columns only, mapped to canopy types.
 */
import { asyncBufferFromFile, parquetMetadataAsync, parquetRead, parquetSchema } from 'hyparquet';
import type { ColumnData, FileMetaData, ParquetParsers, SchemaElement } from 'hyparquet';
import { compressors } from 'hyparquet-compressors';
import { CanopyError } from '../merge/errors.ts';
import type { ColumnVec, Loaded } from './columns.ts';
import { checkColumnNames, type StoredType } from './contract.ts';

/** Floor division of an integer-valued bigint by a positive divisor, as a number. */
function floorDiv(v: bigint, d: number): number {
  const n = Number(v);
  if (Number.isSafeInteger(n)) return (n - (((n % d) + d) % d)) / d;
  const bd = BigInt(d);
  const q = v / bd;
  return Number(v < 0n && q * bd !== v ? q - 1n : q);
}

/** Timestamps and dates become UTC ms numbers (sub-ms floored) instead of Date objects. */
const parsers: Partial<ParquetParsers> = {
  timestampFromMilliseconds: (v: bigint) => Number(v),
  timestampFromMicroseconds: (v: bigint) => floorDiv(v, 1000),
  timestampFromNanoseconds: (v: bigint) => floorDiv(v, 1_000_000),
  dateFromDays: (days: number) => days * 86_400_000,
};

/**
 * The canopy type of a flat Parquet column, or a description of why it is unsupported.
 * INT32/INT64 (signed, or unsigned up to 32 bits) -> int64; FLOAT/DOUBLE -> float64;
 * TIMESTAMP (any unit), INT96 and DATE -> timestamp; UTF8/STRING/ENUM or plain BYTE_ARRAY -> string.
 */
export function parquetColumnType(el: SchemaElement): StoredType | string {
  const lt = el.logical_type;
  const ct = el.converted_type;
  const describe = [el.type, lt?.type ?? ct].filter((x) => x !== undefined).join(' ');
  if (ct === 'DECIMAL' || lt?.type === 'DECIMAL') return `${describe} (decimal)`;
  switch (el.type) {
    case 'INT32':
      if (ct === 'DATE' || lt?.type === 'DATE') return 'timestamp';
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

  constructor(
    readonly type: StoredType,
    readonly length: number,
  ) {
    this.valid = new Uint8Array(length);
    this.int = type === 'int64' ? new BigInt64Array(length) : null;
    this.num = type === 'float64' || type === 'timestamp' ? new Float64Array(length) : null;
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
    if (this.num !== null) return { type: this.type as 'float64' | 'timestamp', values: this.num, valid };
    return { type: 'string', codes: this.codes!, dictionary: this.dictionary, valid };
  }
}

/**
 * Reads a whole Parquet file into columns.
 * @throws CanopyError CANOPY_ERR_DATA for an unreadable or corrupt file, a nested column,
 *   or a column type canopy does not store (BOOLEAN, DECIMAL, TIME, ...), naming column and type.
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
      throw new CanopyError('CANOPY_ERR_DATA', `Parquet file ${file}: column '${el.name}' is nested (list, map or struct); canopy stores flat int64, float64, timestamp and string columns`);
    }
    const t = parquetColumnType(el);
    if (t !== 'int64' && t !== 'float64' && t !== 'timestamp' && t !== 'string') {
      throw new CanopyError('CANOPY_ERR_DATA', `Parquet file ${file}: column '${el.name}' has type ${t}, which canopy does not store; use integers, floats, timestamps, dates or strings (cast it, or drop the column)`);
    }
    names.push(el.name);
    types.push(t);
  }
  checkColumnNames(names, `Parquet file ${file}`);
  const length = Number(metadata.num_rows);
  const sinks = types.map((t) => new Sink(t, length));
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
    throw new CanopyError('CANOPY_ERR_DATA', `could not decode Parquet file ${file}: ${(e as Error).message}; check that it is not corrupt`, { cause: e });
  }
  for (const [i, s] of sinks.entries()) {
    if (s.filled !== length) {
      throw new CanopyError('CANOPY_ERR_DATA', `Parquet file ${file}: column '${names[i]}' decoded ${s.filled} of ${length} rows; check that the file is not corrupt`);
    }
  }
  return { names, types, length, cols: sinks.map((s) => s.column()) };
}
