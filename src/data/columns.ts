/**
 * The in-memory columnar form every loader produces and the shard encoder consumes:
 * typed arrays plus a byte-per-row validity mask. Loaders (Parquet, CSV, plain rows)
 * fill it; partitioning gathers rows out of it; `encodeShard` turns it into Arrow.
 */
import { CanopyError } from '../merge/errors.ts';
import { US_PER_DAY, checkMicros } from '../merge/time.ts';
import type { Scalar, TableSchema } from '../merge/types.ts';
import type { StoredType } from './contract.ts';
import { INT64_MIN, INT64_MAX } from '../merge/int-range.ts';

/**
 * One column. `valid[i]` is 1 for a value and 0 for NULL (`null` means no NULLs); the
 * value slot of a NULL row is 0. String codes index `dictionary`, which may hold entries
 * no row uses and need not be sorted (the encoder compacts and sorts per shard).
 */
export type ColumnVec =
  | { readonly type: 'int64'; readonly values: BigInt64Array; readonly valid: Uint8Array | null }
  | { readonly type: 'float64' | 'timestamp' | 'date'; readonly values: Float64Array; readonly valid: Uint8Array | null }
  | { readonly type: 'string'; readonly codes: Int32Array; readonly dictionary: readonly string[]; readonly valid: Uint8Array | null };

/** A loaded table: column names and types, row count and one {@link ColumnVec} per column. */
export interface Loaded {
  readonly names: readonly string[];
  readonly types: readonly StoredType[];
  readonly length: number;
  readonly cols: readonly ColumnVec[];
}

/** A column of `length` NULLs. */
export function nullColumn(type: StoredType, length: number): ColumnVec {
  const valid = new Uint8Array(length);
  switch (type) {
    case 'int64':
      return { type, values: new BigInt64Array(length), valid };
    case 'float64':
    case 'timestamp':
    case 'date':
      return { type, values: new Float64Array(length), valid };
    case 'string':
      return { type, codes: new Int32Array(length), dictionary: [], valid };
  }
}

/** The rows `order[start..end)` of `col`, in that order. */
export function gather(col: ColumnVec, order: Uint32Array, start: number, end: number): ColumnVec {
  const m = end - start;
  let valid: Uint8Array | null = null;
  if (col.valid !== null) {
    const src = col.valid;
    valid = new Uint8Array(m);
    for (let j = 0; j < m; j++) valid[j] = src[order[start + j]!]!;
  }
  switch (col.type) {
    case 'int64': {
      // Copy 32-bit halves: reading a BigInt64Array element allocates a BigInt.
      const src = new Uint32Array(col.values.buffer, col.values.byteOffset, col.values.length * 2);
      const values = new BigInt64Array(m);
      const dst = new Uint32Array(values.buffer);
      for (let j = 0; j < m; j++) {
        const k = order[start + j]! * 2;
        dst[2 * j] = src[k]!;
        dst[2 * j + 1] = src[k + 1]!;
      }
      return { type: col.type, values, valid };
    }
    case 'float64':
    case 'timestamp':
    case 'date': {
      const src = col.values;
      const values = new Float64Array(m);
      for (let j = 0; j < m; j++) values[j] = src[order[start + j]!]!;
      return { type: col.type, values, valid };
    }
    case 'string': {
      const src = col.codes;
      const codes = new Int32Array(m);
      for (let j = 0; j < m; j++) codes[j] = src[order[start + j]!]!;
      return { type: col.type, codes, dictionary: col.dictionary, valid };
    }
  }
}

/**
 * The dictionary code of `s`, adding it to `dictionary` (and `index`) the first time it is seen.
 */
export function internString(s: string, dictionary: string[], index: Map<string, number>): number {
  let code = index.get(s);
  if (code === undefined) {
    code = dictionary.length;
    dictionary.push(s);
    index.set(s, code);
  }
  return code;
}

/** True when `b` fits a signed 64-bit integer. */
export function fitsInt64(b: bigint): boolean {
  return b >= INT64_MIN && b <= INT64_MAX;
}

/**
 * Columns from plain rows (the `shardsFromRows` input). int64 accepts `bigint` or an
 * integral `number` within 2^53; float64, timestamp (µs) and date (µs of a midnight UTC) accept `number`; string
 * accepts `string`; any column accepts `null`.
 * @param where names the rows in error messages ("shard 2")
 * @throws CanopyError CANOPY_ERR_DATA for a row of the wrong width or a value of the wrong type.
 */
export function columnsFromRows(schema: TableSchema, rows: readonly (readonly Scalar[])[], where: string): ColumnVec[] {
  const n = rows.length;
  const width = schema.columns.length;
  for (const [r, row] of rows.entries()) {
    if (row.length !== width) {
      throw new CanopyError('CANOPY_ERR_DATA', `${where} row ${r} has ${row.length} values; the schema of '${schema.name}' has ${width} columns`);
    }
  }
  return schema.columns.map((c, ci): ColumnVec => {
    const valid = new Uint8Array(n);
    const wrong = (r: number, v: Scalar, want: string): CanopyError =>
      new CanopyError('CANOPY_ERR_DATA', `${where} row ${r} column '${c.name}' (${c.type}): expected ${want} or null, got ${typeof v} ${String(v)}`);
    switch (c.type) {
      case 'int64': {
        const values = new BigInt64Array(n);
        for (let r = 0; r < n; r++) {
          const v = rows[r]![ci]!;
          if (v === null) continue;
          let b: bigint;
          if (typeof v === 'bigint') b = v;
          else if (typeof v === 'number' && Number.isSafeInteger(v)) b = BigInt(v);
          else throw wrong(r, v, 'a bigint (or a safe integer number)');
          if (!fitsInt64(b)) throw wrong(r, v, 'a value within int64');
          values[r] = b;
          valid[r] = 1;
        }
        return { type: 'int64', values, valid };
      }
      case 'float64':
      case 'timestamp':
      case 'date': {
        const values = new Float64Array(n);
        for (let r = 0; r < n; r++) {
          const v = rows[r]![ci]!;
          if (v === null) continue;
          if (typeof v !== 'number') throw wrong(r, v, c.type === 'timestamp' ? 'a number (UTC µs since the epoch)' : c.type === 'date' ? 'a number (the UTC µs of a midnight)' : 'a number');
          if (c.type !== 'float64' && checkMicros(v) !== null) throw wrong(r, v, 'a whole number of µs within ±2^53 (years 1685 to 2255)');
          if (c.type === 'date' && v % US_PER_DAY !== 0) throw wrong(r, v, 'the µs of a midnight UTC (a multiple of 86,400,000,000)');
          values[r] = v;
          valid[r] = 1;
        }
        return { type: c.type, values, valid };
      }
      case 'string': {
        const codes = new Int32Array(n);
        const dictionary: string[] = [];
        const index = new Map<string, number>();
        for (let r = 0; r < n; r++) {
          const v = rows[r]![ci]!;
          if (v === null) continue;
          if (typeof v !== 'string') throw wrong(r, v, 'a string');
          codes[r] = internString(v, dictionary, index);
          valid[r] = 1;
        }
        return { type: 'string', codes, dictionary, valid };
      }
      default:
        throw new CanopyError('CANOPY_ERR_DATA', `column '${c.name}' has type ${c.type}, which a shard cannot store; use int64, float64, timestamp, date or string`);
    }
  });
}
