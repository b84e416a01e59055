/**
 * `GET /v1/catalog`: what the root serves, for the dashboard's schema panel and any client
 * that wants to write SQL against it. Per table: its columns and types, shard count, rows,
 * partitioning, and per column the min, max and null count over all shards (aggregated from
 * the shards' zone maps: min of the mins, max of the maxes, sum of the null counts).
 * `GET /v1/catalog/:table/shards` lists the same statistics per shard.
 * Values are rendered like answer values (timestamps as ISO-8601 UTC, see format.ts);
 * a NaN max (a float64 column holding NaN) is "NaN".
 */
import { CanopyError, type Catalog, type ColumnStats, type ColumnType } from '../merge/index.ts';
import { jsonValue } from './format.ts';

/** One column of a table in `GET /v1/catalog`. */
export interface CatalogColumnJSON {
  readonly name: string;
  readonly type: ColumnType;
  readonly min: string | number | boolean | null;
  readonly max: string | number | boolean | null;
  readonly null_count: number;
}

/** One table in `GET /v1/catalog`. */
export interface CatalogTableJSON {
  readonly name: string;
  readonly shards: number;
  readonly rows: number;
  readonly partitioning: Catalog['partitioning'];
  readonly columns: readonly CatalogColumnJSON[];
}

const less = (a: number | string, b: number | string): boolean => (typeof a === 'number' && Number.isNaN(a) ? false : typeof b === 'number' && Number.isNaN(b) ? true : a < b);

/** Min, max and null count of one column over several shards' zone maps. */
function combine(stats: readonly (ColumnStats | undefined)[]): ColumnStats {
  let min: number | string | null = null;
  let max: number | string | null = null;
  let nullCount = 0;
  for (const s of stats) {
    if (s === undefined) continue;
    nullCount += s.nullCount;
    if (s.min !== null && (min === null || less(s.min, min))) min = s.min;
    // NaN sorts above every number (as in DuckDB), so a NaN max wins.
    if (s.max !== null && (max === null || less(max, s.max))) max = s.max;
  }
  return { min, max, nullCount };
}

function columnsJSON(catalog: Catalog, stats: (name: string) => ColumnStats): CatalogColumnJSON[] {
  return catalog.table.columns.map((c) => {
    const s = stats(c.name);
    return { name: c.name, type: c.type, min: jsonValue(s.min, c.type), max: jsonValue(s.max, c.type), null_count: s.nullCount };
  });
}

/** The body of `GET /v1/catalog`: `{tables: [{name, shards, rows, partitioning, columns}]}`. */
export function catalogJSON(catalogs: ReadonlyMap<string, Catalog>): { tables: CatalogTableJSON[] } {
  return {
    tables: [...catalogs].map(([name, catalog]) => ({
      name,
      shards: catalog.shards.length,
      rows: catalog.shards.reduce((n, s) => n + s.rows, 0),
      partitioning: catalog.partitioning,
      columns: columnsJSON(catalog, (col) => combine(catalog.shards.map((s) => s.columns[col]))),
    })),
  };
}

/**
 * The body of `GET /v1/catalog/:table/shards`: `{table, shards: [{id, rows, partition, columns}]}`.
 * @throws CanopyError CANOPY_ERR_UNKNOWN_TABLE naming the served tables.
 */
export function catalogShardsJSON(catalogs: ReadonlyMap<string, Catalog>, table: string): { table: string; shards: { id: number; rows: number; partition: string; columns: CatalogColumnJSON[] }[] } {
  const catalog = catalogs.get(table);
  if (catalog === undefined) throw new CanopyError('CANOPY_ERR_UNKNOWN_TABLE', `table '${table}' is not served; served: ${[...catalogs.keys()].join(', ')}`);
  const none: ColumnStats = { min: null, max: null, nullCount: 0 };
  return {
    table,
    shards: catalog.shards.map((s) => ({ id: s.id, rows: s.rows, partition: s.partition, columns: columnsJSON(catalog, (col) => s.columns[col] ?? none) })),
  };
}
