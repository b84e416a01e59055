/**
 * The shard contract between data loading and the leaf: which Arrow types a shard holds,
 * how a canopy schema maps to an Arrow schema and back, and the validation of a shard.
 */
import {
  DataType,
  Dictionary,
  Field,
  Float64,
  Int32,
  Int64,
  Precision,
  Schema,
  Utf8,
} from 'apache-arrow';
import type { Data, Table } from 'apache-arrow';
import { compareStrings } from '../merge/compare.ts';
import { utf8Strings } from '../merge/utf8.ts';
import { CanopyError } from '../merge/errors.ts';
import type { ColumnInfo, ColumnType, TableSchema } from '../merge/types.ts';

/** Most rows in one record batch of a shard. */
export const MAX_BATCH_ROWS = 8_192;

/** Field metadata key marking a Float64 column as a timestamp (UTC µs since the epoch) or a date (the µs of its midnight UTC). */
export const CANOPY_TYPE_KEY = 'canopy.type';

/** Schema metadata key holding the table name. */
export const CANOPY_TABLE_KEY = 'canopy.table';

/**
 * Column types a shard can store (`bool` only exists as a predicate result). A `date` is held
 * as a timestamp is, the µs of its midnight UTC in a Float64, tagged `date`.
 */
export type StoredType = Exclude<ColumnType, 'bool' | 'int128'>;

const STORED_TYPES: readonly ColumnType[] = ['int64', 'float64', 'timestamp', 'date', 'string'];

/** True when `t` is a type a shard can store. */
export function isStoredType(t: ColumnType): t is StoredType {
  return STORED_TYPES.includes(t);
}

/**
 * The Arrow schema of a shard of `schema`: int64 -> Int64, float64 -> Float64,
 * timestamp -> Float64 with field metadata `{"canopy.type":"timestamp"}`, date -> Float64 (µs of
 * its midnight UTC) with `{"canopy.type":"date"}`, string ->
 * ordered `Dictionary<Utf8, Int32>` (dictionary id = column index). Every field is nullable.
 * @throws CanopyError CANOPY_ERR_DATA for a `bool` column or duplicate/empty names.
 */
export function arrowSchemaOf(schema: TableSchema): Schema {
  checkColumnNames(schema.columns.map((c) => c.name), `table '${schema.name}'`);
  const fields = schema.columns.map((c, i) => {
    switch (c.type) {
      case 'int64':
        return new Field(c.name, new Int64(), true);
      case 'float64':
        return new Field(c.name, new Float64(), true);
      case 'timestamp':
      case 'date':
        return new Field(c.name, new Float64(), true, new Map([[CANOPY_TYPE_KEY, c.type]]));
      case 'string':
        return new Field(c.name, new Dictionary(new Utf8(), new Int32(), i, true), true);
      default:
        throw new CanopyError('CANOPY_ERR_DATA', `column '${c.name}' has type ${c.type}, which a shard cannot store; use int64, float64, timestamp, date or string`);
    }
  });
  return new Schema(fields, new Map([[CANOPY_TABLE_KEY, schema.name]]));
}

/**
 * Rejects empty or duplicate column names, and names that differ only in case: SQL resolves
 * names case-insensitively, so `A` would name a different column in canopy than in DuckDB
 * (which reads the second of `a`, `A` as `A_1`).
 * @throws CanopyError CANOPY_ERR_DATA naming `where`.
 */
export function checkColumnNames(names: readonly string[], where: string): void {
  if (names.length === 0) throw new CanopyError('CANOPY_ERR_DATA', `${where} has no columns; give at least one column`);
  const seen = new Map<string, string>();
  for (const [i, n] of names.entries()) {
    if (n === '') throw new CanopyError('CANOPY_ERR_DATA', `${where}: column ${i + 1} has an empty name; give every column a name`);
    const other = seen.get(n.toLowerCase());
    if (other === n) throw new CanopyError('CANOPY_ERR_DATA', `${where}: column name '${n}' appears twice; column names must be unique`);
    if (other !== undefined) {
      throw new CanopyError('CANOPY_ERR_DATA', `${where}: column names '${other}' and '${n}' differ only in case, and SQL names are case-insensitive; rename one`);
    }
    seen.set(n.toLowerCase(), n);
  }
}

/**
 * The canopy schema of a shard, read from its Arrow schema (the inverse of {@link arrowSchemaOf}).
 * The name comes from the schema metadata `canopy.table` ('' when absent).
 * @throws CanopyError CANOPY_ERR_DATA when a field's Arrow type is not one the contract allows.
 */
export function schemaOf(table: Table): TableSchema {
  const columns: ColumnInfo[] = table.schema.fields.map((f) => ({ name: f.name, type: storedTypeOf(f) }));
  checkColumnNames(columns.map((c) => c.name), 'shard');
  return { name: table.schema.metadata.get(CANOPY_TABLE_KEY) ?? '', columns };
}

function storedTypeOf(f: Field): StoredType {
  const t: DataType = f.type;
  if (DataType.isInt(t) && t.bitWidth === 64 && t.isSigned) return 'int64';
  if (DataType.isFloat(t) && t.precision === Precision.DOUBLE) {
    const tag = f.metadata.get(CANOPY_TYPE_KEY);
    if (tag === undefined) return 'float64';
    if (tag === 'timestamp' || tag === 'date') return tag;
    throw new CanopyError('CANOPY_ERR_DATA', `column '${f.name}' has metadata ${CANOPY_TYPE_KEY}=${JSON.stringify(tag)}; only "timestamp" and "date" are known`);
  }
  if (DataType.isDictionary(t) && DataType.isUtf8(t.dictionary) && t.indices.bitWidth === 32 && t.indices.isSigned) return 'string';
  throw new CanopyError(
    'CANOPY_ERR_DATA',
    `column '${f.name}' has Arrow type ${String(t)}; shards hold Int64, Float64 (timestamps and dates tagged ${CANOPY_TYPE_KEY}) or Dictionary<Int32, Utf8>; re-create the shard with prepareShards`,
  );
}

/** True when bit `i` of an Arrow validity bitmap is set (no bitmap: every row is valid). */
export function isValidAt(data: Data, i: number): boolean {
  const bm = data.nullBitmap;
  if (bm === undefined || bm.length === 0 || data.nullCount === 0) return true;
  const j = data.offset + i;
  return ((bm[j >> 3]! >> (j & 7)) & 1) === 1;
}

/**
 * Checks that `table` follows the shard contract: supported field types, at least one
 * batch, batches of at most {@link MAX_BATCH_ROWS} rows, and for each string column one
 * dictionary shared by every batch, sorted strictly ascending by code point
 * (so code order is string order), with every non-null code inside it.
 * @param where names the shard in error messages (a file path, or "shard 3")
 * @returns the shard's schema
 * @throws CanopyError CANOPY_ERR_DATA saying what is wrong.
 */
export function validateShard(table: Table, where: string): TableSchema {
  const bad = (msg: string): CanopyError =>
    new CanopyError('CANOPY_ERR_DATA', `${where}: ${msg}; re-create the shard with prepareShards`);
  let schema: TableSchema;
  try {
    schema = schemaOf(table);
  } catch (e) {
    if (e instanceof CanopyError) throw bad(e.message);
    throw e;
  }
  if (table.batches.length === 0) throw bad('has no record batch (an empty shard has one batch of 0 rows)');
  for (const [b, batch] of table.batches.entries()) {
    if (batch.numRows > MAX_BATCH_ROWS) throw bad(`batch ${b} has ${batch.numRows} rows, more than ${MAX_BATCH_ROWS}`);
  }
  for (const [c, col] of schema.columns.entries()) {
    if (col.type !== 'string') continue;
    const first = table.batches[0]!.data.children[c]!.dictionary;
    const chunk0 = first?.data[0];
    if (first === undefined || chunk0 === undefined || first.data.length !== 1) throw bad(`column '${col.name}' has no single dictionary`);
    const dict = utf8Strings(chunk0 as Data<Utf8>);
    for (let k = 0; k < dict.length; k++) {
      const s = dict[k]!;
      if (!isValidAt(chunk0, k)) throw bad(`column '${col.name}': dictionary entry ${k} is null`);
      if (k > 0 && !(compareStrings(dict[k - 1]!, s) < 0)) throw bad(`column '${col.name}': dictionary is not sorted and unique at entry ${k}`);
    }
    for (const [b, batch] of table.batches.entries()) {
      const data = batch.data.children[c]!;
      if (data.dictionary?.data[0] !== chunk0) throw bad(`column '${col.name}': batch ${b} has its own dictionary; one dictionary per shard is required`);
      const codes = data.values as Int32Array;
      for (let i = 0; i < data.length; i++) {
        const code = codes[i]!;
        if ((code < 0 || code >= dict.length) && isValidAt(data, i)) throw bad(`column '${col.name}': batch ${b} row ${i} has code ${code} outside the dictionary`);
      }
    }
  }
  return schema;
}
