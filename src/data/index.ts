/**
 * Data loading, sharding and the shard catalog: the public face of `src/data`.
 *
 * The shard contract (what a leaf may rely on): each shard is an Arrow table whose fields
 * follow the catalog schema in order, in record batches of at most 8,192 rows (small enough that a cancelled scan stops within
 * about a millisecond; at least
 * one batch; an empty shard has one batch of 0 rows):
 * - int64 -> `Int64` (BigInt64Array data)
 * - float64 -> `Float64`
 * - timestamp -> `Float64` of UTC ms since the epoch, field metadata `{"canopy.type":"timestamp"}`
 * - string -> `Dictionary<Utf8, Int32>` (marked ordered) with one dictionary per shard,
 *   shared by all its batches, holding each distinct value of the shard once, sorted by
 *   UTF-16 code units (so code order is string order)
 * - NULLs in the validity bitmap; the schema metadata `canopy.table` names the table.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

export { prepareShards, readShard, FORMAT_VERSION, MAX_SHARDS, type PrepareOptions, type PreparedShards } from './prepare.ts';
export { shardsFromRows, catalogFromShards } from './memory.ts';
export { schemaOf, arrowSchemaOf, MAX_BATCH_ROWS, CANOPY_TYPE_KEY, CANOPY_TABLE_KEY } from './contract.ts';
export { hashBucket, hashRow } from './hash.ts';
export { parseIsoTimestamp } from '../merge/time.ts';

function defaultDataPath(): string {
  const require = createRequire(import.meta.url);
  let root: string;
  try {
    root = dirname(require.resolve('vega-datasets/package.json'));
  } catch {
    // vega-datasets 3 has an `exports` map without ./package.json: go up from its entry point (build/index.js).
    root = dirname(dirname(require.resolve('vega-datasets')));
  }
  return join(root, 'data', 'flights-3m.parquet');
}

/**
 * Absolute path of the default data: vega-datasets' `data/flights-3m.parquet`
 * (3,000,000 rows: date timestamp, delay int64, distance int64, origin string, destination string).
 */
export const DEFAULT_DATA_PATH: string = defaultDataPath();
