/**
 * Zone maps (per-shard, per-column min / max / null count) computed from a shard's Arrow
 * table, partition descriptions, and the JSON form of a catalog.
 */
import type { Data, Table, Utf8 } from 'apache-arrow';
import { compareStrings } from '../merge/compare.ts';
import { dateText, isoFromMicros } from '../merge/time.ts';
import { utf8Strings } from '../merge/utf8.ts';
import { CanopyError } from '../merge/errors.ts';
import { SET_INDEX_MAX_VALUES, type Catalog, type ColumnStats, type ColumnType, type PartitionSpec, type ShardInfo, type TableSchema } from '../merge/types.ts';
import { isValidAt } from './contract.ts';

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** The next double toward -Infinity (`x` finite). */
function nextDown(x: number): number {
  if (x === 0) return -Number.MIN_VALUE;
  f64[0] = x;
  u64[0] = x > 0 ? u64[0]! - 1n : u64[0]! + 1n;
  return f64[0];
}

/** The next double toward +Infinity (`x` finite). */
function nextUp(x: number): number {
  return -nextDown(-x);
}

/** The largest double <= `b` (exact when |b| <= 2^53). */
export function bigintFloor(b: bigint): number {
  const n = Number(b);
  return BigInt(n) > b ? nextDown(n) : n;
}

/** The smallest double >= `b` (exact when |b| <= 2^53). */
export function bigintCeil(b: bigint): number {
  const n = Number(b);
  return BigInt(n) < b ? nextUp(n) : n;
}

/**
 * Min, max and null count of every column of a shard, and the set index of string columns
 * (their distinct values, sorted by code point, when at most SET_INDEX_MAX_VALUES). int64 bounds are numbers rounded
 * outward beyond 2^53 (min down, max up) so they stay true bounds; timestamps are µs;
 * strings compare by code point. NaN sorts above every number (as in DuckDB), so
 * a float64 column holding NaN has max NaN. `min`/`max` are null when the shard has no
 * non-null value in the column.
 * @param types the column types, in the table's column order
 */
export function shardStats(types: readonly ColumnType[], names: readonly string[], table: Table): Record<string, ColumnStats> {
  const out: Record<string, ColumnStats> = {};
  for (const [c, type] of types.entries()) {
    out[names[c]!] = columnStats(type, c, table);
  }
  return out;
}

function columnStats(type: ColumnType, c: number, table: Table): ColumnStats {
  let nulls = 0;
  switch (type) {
    case 'int64': {
      let lo: bigint | null = null;
      let hi: bigint | null = null;
      for (const batch of table.batches) {
        const data = batch.data.children[c]!;
        const v = data.values as BigInt64Array;
        for (let i = 0; i < data.length; i++) {
          if (!isValidAt(data, i)) {
            nulls++;
            continue;
          }
          const x = v[i]!;
          if (lo === null || x < lo) lo = x;
          if (hi === null || x > hi) hi = x;
        }
      }
      return { min: lo === null ? null : bigintFloor(lo), max: hi === null ? null : bigintCeil(hi), nullCount: nulls };
    }
    case 'float64':
    case 'timestamp':
    case 'date': {
      let lo = Infinity;
      let hi = -Infinity;
      let count = 0;
      let nan = 0;
      for (const batch of table.batches) {
        const data = batch.data.children[c]!;
        const v = data.values as Float64Array;
        for (let i = 0; i < data.length; i++) {
          if (!isValidAt(data, i)) {
            nulls++;
            continue;
          }
          const x = v[i]!;
          count++;
          if (x !== x) nan++;
          else {
            if (x < lo) lo = x;
            if (x > hi) hi = x;
          }
        }
      }
      if (count === 0) return { min: null, max: null, nullCount: nulls };
      if (nan === count) return { min: NaN, max: NaN, nullCount: nulls };
      return { min: lo, max: nan > 0 ? NaN : hi, nullCount: nulls };
    }
    case 'string': {
      if (table.batches.length === 0) return { min: null, max: null, nullCount: 0 };
      const dictVec = table.batches[0]!.data.children[c]!.dictionary;
      const dict = dictVec === undefined ? [] : dictVec.data.flatMap((d) => utf8Strings(d as Data<Utf8>));
      const used = new Uint8Array(dict.length);
      for (const batch of table.batches) {
        const data = batch.data.children[c]!;
        const codes = data.values as Int32Array;
        for (let i = 0; i < data.length; i++) {
          if (isValidAt(data, i)) used[codes[i]!] = 1;
          else nulls++;
        }
      }
      const held = new Set<string>();
      for (let k = 0; k < dict.length; k++) if (used[k] === 1) held.add(dict[k]!);
      const sorted = [...held].sort(compareStrings);
      if (sorted.length === 0) return { min: null, max: null, nullCount: nulls };
      const base = { min: sorted[0]!, max: sorted[sorted.length - 1]!, nullCount: nulls };
      return sorted.length <= SET_INDEX_MAX_VALUES ? { ...base, values: sorted } : base;
    }
    default:
      throw new CanopyError('CANOPY_ERR_DATA', `column ${c} has type ${type}, which a shard cannot store`);
  }
}

function formatBound(type: ColumnType, v: number | string): string {
  if (type === 'string') return JSON.stringify(v);
  if (type === 'timestamp' && typeof v === 'number') return isoFromMicros(v) ?? String(v);
  if (type === 'date' && typeof v === 'number') return dateText(v) ?? String(v);
  return String(v);
}

/**
 * Human-readable partition key of shard `id` of `n`: `hash bucket 17/100`,
 * `date in [2001-01-01T00:00:00.000Z, 2001-01-04T11:20:00.000Z]` (plus ` or NULL` when the
 * shard holds NULLs; `date is NULL`, `date: no rows`), or `fileLabel` (`file flights-a.csv`).
 */
export function describePartition(
  partition: PartitionSpec,
  id: number,
  n: number,
  schema: TableSchema,
  rows: number,
  columns: Readonly<Record<string, ColumnStats>>,
  fileLabel: string,
): string {
  switch (partition.kind) {
    case 'hash':
      return `hash bucket ${id}/${n}`;
    case 'file':
      return fileLabel;
    case 'range': {
      const col = partition.column;
      const type = schema.columns.find((c) => c.name === col)?.type ?? 'string';
      const s = columns[col];
      if (rows === 0 || s === undefined) return `${col}: no rows`;
      if (s.min === null || s.max === null) return `${col} is NULL`;
      const range = `${col} in [${formatBound(type, s.min)}, ${formatBound(type, s.max)}]`;
      return s.nullCount > 0 ? `${range} or NULL` : range;
    }
  }
}

/** A catalog from per-shard rows, partition descriptions and stats (shard id = index). */
export function buildCatalog(schema: TableSchema, partitioning: PartitionSpec, shards: readonly { rows: number; partition: string; columns: Record<string, ColumnStats> }[]): Catalog {
  return {
    table: schema,
    partitioning,
    shards: shards.map((s, id): ShardInfo => ({ id, rows: s.rows, partition: s.partition, columns: s.columns })),
  };
}

/** `base` with `from`'s set index, when it has a well-formed one. */
function withValues(base: ColumnStats, from: ColumnStats): ColumnStats {
  const v: unknown = from.values;
  return Array.isArray(v) && v.every((x) => typeof x === 'string') ? { ...base, values: v as string[] } : base;
}

/** Non-finite numeric stats become strings so that catalog.json round-trips them. */
export function catalogToJSON(catalog: Catalog): unknown {
  const enc = (v: number | string | null): number | string | null => (typeof v === 'number' && !Number.isFinite(v) ? String(v) : v);
  return {
    ...catalog,
    shards: catalog.shards.map((s) => ({
      ...s,
      columns: Object.fromEntries(Object.entries(s.columns).map(([k, st]) => [k, withValues({ min: enc(st.min), max: enc(st.max), nullCount: st.nullCount }, st)])),
    })),
  };
}

/** Inverse of {@link catalogToJSON}; returns null when `json` does not look like a catalog. */
export function catalogFromJSON(json: unknown): Catalog | null {
  const c = json as Catalog | null;
  if (c === null || typeof c !== 'object' || !Array.isArray(c.shards) || typeof c.table !== 'object' || !Array.isArray(c.table?.columns)) return null;
  const types = new Map(c.table.columns.map((col) => [col.name, col.type]));
  const dec = (type: ColumnType | undefined, v: number | string | null): number | string | null =>
    type !== 'string' && typeof v === 'string' ? Number(v) : v;
  return {
    ...c,
    shards: c.shards.map((s) => ({
      ...s,
      columns: Object.fromEntries(Object.entries(s.columns as Record<string, ColumnStats>).map(([k, st]) => [k, withValues({ min: dec(types.get(k), st.min), max: dec(types.get(k), st.max), nullCount: st.nullCount }, st)])),
    })),
  };
}
