/**
 * In-memory shards built from plain rows, for tests that pin rows to shards without files.
 * Uses the same encoder and statistics as prepareShards.
 */
import type { Table } from 'apache-arrow';
import { CanopyError, unknownNameMessage } from '../merge/errors.ts';
import type { Catalog, PartitionSpec, Scalar, TableSchema } from '../merge/types.ts';
import { columnsFromRows } from './columns.ts';
import { arrowSchemaOf, MAX_BATCH_ROWS, validateShard } from './contract.ts';
import { encodeShard } from './encode.ts';
import { buildCatalog, describePartition, shardStats } from './stats.ts';

/**
 * Contract-conforming shards (see `readShard`) from plain rows: `shards[i]` holds the rows
 * of shard i, each row one value per schema column in order: int64 as `bigint` (or a
 * safe-integer `number`), float64 as `number`, timestamp as `number` (UTC µs since the
 * epoch), string as `string`, and `null` for NULL. A shard with no rows gets one empty batch.
 * @param batchRows rows per record batch, 1..65,536 (default MAX_BATCH_ROWS, 8,192)
 * @throws CanopyError CANOPY_ERR_DATA for a `bool` column, a row of the wrong width, a value
 *   of the wrong type, an int64 outside 64 bits, or a bad `batchRows`.
 */
export function shardsFromRows(schema: TableSchema, shards: readonly (readonly (readonly Scalar[])[])[], batchRows: number = MAX_BATCH_ROWS): Table[] {
  const arrowSchema = arrowSchemaOf(schema);
  return shards.map((rows, i) => encodeShard(arrowSchema, columnsFromRows(schema, rows, `shard ${i}`), rows.length, batchRows));
}

/**
 * The catalog of shards given as Arrow tables following the shard contract, with the same
 * statistics prepareShards computes. Partition descriptions: `hash bucket i/N` for
 * `{kind:'hash'}`, `col in [min, max]` for `{kind:'range', column}`, `in-memory shard i`
 * for `{kind:'file'}` (the default).
 * @throws CanopyError CANOPY_ERR_DATA when a table breaks the contract or its columns differ
 *   from `schema`, or the range column is not in `schema`.
 */
export function catalogFromShards(schema: TableSchema, tables: readonly Table[], partition: PartitionSpec = { kind: 'file' }): Catalog {
  if (partition.kind === 'range' && !schema.columns.some((c) => c.name === partition.column)) {
    throw new CanopyError('CANOPY_ERR_DATA', `range partitioning of '${schema.name}': ${unknownNameMessage('column', partition.column, schema.columns.map((c) => c.name))}`);
  }
  const types = schema.columns.map((c) => c.type);
  const names = schema.columns.map((c) => c.name);
  const entries = tables.map((table, id) => {
    const got = validateShard(table, `shard ${id}`);
    const same = got.columns.length === names.length && got.columns.every((c, i) => c.name === names[i] && c.type === types[i]);
    if (!same) {
      const show = (cols: readonly { name: string; type: string }[]): string => cols.map((c) => `${c.name} ${c.type}`).join(', ');
      throw new CanopyError('CANOPY_ERR_DATA', `shard ${id} has columns (${show(got.columns)}) but table '${schema.name}' has (${show(schema.columns)})`);
    }
    const columns = shardStats(types, names, table);
    const rows = table.numRows;
    return { rows, columns, partition: describePartition(partition, id, tables.length, schema, rows, columns, `in-memory shard ${id}`) };
  });
  return buildCatalog(schema, partition, entries);
}
