/**
 * Encodes one shard's columns as an Arrow table that follows the shard contract
 * (see contract.ts): one sorted dictionary per string column shared by all batches.
 */
import { makeData, RecordBatch, Struct, Table, vectorFromArray, Utf8 } from 'apache-arrow';
import type { Data, DataType, Dictionary, Float64, Int64, Schema, Vector } from 'apache-arrow';
import { CanopyError } from '../merge/errors.ts';
import type { ColumnVec } from './columns.ts';
import { MAX_BATCH_ROWS } from './contract.ts';
import { compareStrings } from '../merge/compare.ts';


/** Codes renumbered so that the dictionary holds exactly the values in use, sorted. */
function compactDictionary(col: Extract<ColumnVec, { type: 'string' }>, length: number): { codes: Int32Array; dictionary: string[] } {
  const { codes, dictionary, valid } = col;
  const used = new Uint8Array(dictionary.length);
  for (let i = 0; i < length; i++) if (valid === null || valid[i] === 1) used[codes[i]!] = 1;
  const present: number[] = [];
  for (let k = 0; k < used.length; k++) if (used[k] === 1) present.push(k);
  present.sort((a, b) => compareStrings(dictionary[a]!, dictionary[b]!));
  const remap = new Int32Array(dictionary.length);
  const sorted: string[] = [];
  for (const k of present) {
    const s = dictionary[k]!;
    // Loaders give unique entries; merge equal strings anyway so the dictionary stays unique.
    if (sorted.length === 0 || sorted[sorted.length - 1] !== s) sorted.push(s);
    remap[k] = sorted.length - 1;
  }
  const out = new Int32Array(length);
  for (let i = 0; i < length; i++) if (valid === null || valid[i] === 1) out[i] = remap[codes[i]!]!;
  return { codes: out, dictionary: sorted };
}

/** Arrow validity bitmap and null count of rows [start, end); no bitmap when nothing is null. */
function packValidity(valid: Uint8Array | null, start: number, end: number): { nullBitmap: Uint8Array | undefined; nullCount: number } {
  if (valid === null) return { nullBitmap: undefined, nullCount: 0 };
  const m = end - start;
  const bitmap = new Uint8Array((m + 7) >> 3);
  let nulls = 0;
  for (let j = 0; j < m; j++) {
    if (valid[start + j] === 1) bitmap[j >> 3] = bitmap[j >> 3]! | (1 << (j & 7));
    else nulls++;
  }
  return nulls === 0 ? { nullBitmap: undefined, nullCount: 0 } : { nullBitmap: bitmap, nullCount: nulls };
}

/**
 * An Arrow table of `length` rows in batches of at most `batchRows` rows (one empty batch
 * when `length` is 0), with `schema` from {@link arrowSchemaOf} matching `cols` in order.
 * @throws CanopyError CANOPY_ERR_DATA when `batchRows` is not an integer in [1, 65536].
 */
export function encodeShard(schema: Schema, cols: readonly ColumnVec[], length: number, batchRows: number = MAX_BATCH_ROWS): Table {
  if (!Number.isInteger(batchRows) || batchRows < 1 || batchRows > MAX_BATCH_ROWS) {
    throw new CanopyError('CANOPY_ERR_DATA', `batchRows is ${batchRows}; give an integer from 1 to ${MAX_BATCH_ROWS}`);
  }
  const fields = schema.fields;
  const prepared = cols.map((col) => {
    if (col.type !== 'string') return { col, codes: null, dictionary: null };
    const { codes, dictionary } = compactDictionary(col, length);
    return { col, codes, dictionary: vectorFromArray(dictionary, new Utf8()) as Vector<Utf8> };
  });
  const structType = new Struct(fields);
  const batches: RecordBatch[] = [];
  for (let start = 0; start === 0 || start < length; start += batchRows) {
    const end = Math.min(length, start + batchRows);
    const m = end - start;
    const children = prepared.map((p, i): Data => {
      const type = fields[i]!.type as DataType;
      const { nullBitmap, nullCount } = packValidity(p.col.valid, start, end);
      const common = nullBitmap === undefined ? { length: m, nullCount } : { length: m, nullCount, nullBitmap };
      switch (p.col.type) {
        case 'int64':
          return makeData({ ...common, type: type as Int64, data: p.col.values.subarray(start, end) });
        case 'float64':
        case 'timestamp':
        case 'date':
          return makeData({ ...common, type: type as Float64, data: p.col.values.subarray(start, end) });
        case 'string':
          return makeData({ ...common, type: type as Dictionary<Utf8>, data: p.codes!.subarray(start, end), dictionary: p.dictionary! });
      }
    });
    batches.push(new RecordBatch(schema, makeData({ type: structType, length: m, nullCount: 0, children })));
  }
  return new Table(schema, batches);
}
