/**
 * Zone maps per record batch: each batch of a prepared shard described as the catalog
 * describes a shard (per column min, max, NULL count; string columns their set index), so
 * the catalog's pruning ({@link shardMayMatch}) tells whether any row of the batch can pass
 * a WHERE. A time-ordered shard's batches each cover a stretch of time: a filter on a few
 * instants (the refinement round of `exact: true`, a dashboard's last day) scans only the
 * batches that hold them. Shards never change, so each batch's statistics are computed once,
 * on first use, from the prepared column views (numeric views carry their kNumStats).
 */
import { SET_INDEX_MAX_VALUES, isValid, shardMayMatch, type ColumnStats, type Expr, type NumView, type ShardInfo, type StrView } from '../merge/index.ts';
import type { PreparedShard } from './shard.ts';

/** Per prepared shard, one ShardInfo per batch (built on first use). */
const BATCH_INFO = new WeakMap<PreparedShard, (ShardInfo | undefined)[]>();

/**
 * Whether some row of batch `b` of `shard` may satisfy `filter` (false only when none can):
 * the catalog's zone-map pruning over the batch's own statistics. Columns of int64 values
 * beyond 2^53 have no statistics (anything may match).
 */
export function batchMayMatch(filter: Expr, shard: PreparedShard, b: number): boolean {
  let infos = BATCH_INFO.get(shard);
  if (infos === undefined) BATCH_INFO.set(shard, (infos = new Array<ShardInfo | undefined>(shard.batchRows.length)));
  let info = infos[b];
  if (info === undefined) infos[b] = info = batchInfo(shard, b);
  return shardMayMatch(filter, info);
}

function batchInfo(shard: PreparedShard, b: number): ShardInfo {
  const rows = shard.batchRows[b]!;
  // Each column's statistics on first use (a filter reads a few columns; a string column's
  // set index costs a pass over the batch).
  const columns: Record<string, ColumnStats> = {};
  for (const [name, col] of shard.columns) {
    const v = col.batches[b];
    if (v === undefined || (v.t === 'num' && v.stats === undefined) || v.t === 'big') continue;
    let stats: ColumnStats | undefined;
    Object.defineProperty(columns, name, {
      enumerable: true,
      get: (): ColumnStats => (stats ??= columnStats(v, rows)),
    });
  }
  return { id: shard.id, rows, partition: `batch ${b}`, columns };
}

/** One column's statistics over a batch of `rows` rows: min, max and NULLs (a string column's set index too). */
function columnStats(v: NumView | StrView, rows: number): ColumnStats {
  if (v.t === 'str') return stringStats(v, rows);
  const s = v.stats!;
  return { min: s.count > 0 ? s.min : null, max: s.count > 0 ? s.max : null, nullCount: rows - s.count };
}

/** A string batch's min, max (by code point), NULL count and, up to SET_INDEX_MAX_VALUES values, its set index. */
function stringStats(v: StrView, rows: number): ColumnStats {
  const seen = new Uint8Array(v.strings.length);
  let nulls = 0;
  let distinct = 0;
  for (let i = 0; i < rows; i++) {
    if (!isValid(v.valid, i)) {
      nulls++;
      continue;
    }
    const c = v.codes[i]!;
    if (seen[c] === 0) {
      seen[c] = 1;
      distinct++;
    }
  }
  if (distinct === 0) return { min: null, max: null, nullCount: nulls };
  // Codes in sorted order: by rank.
  const present: number[] = [];
  for (let c = 0; c < seen.length; c++) if (seen[c] === 1) present.push(c);
  present.sort((x, y) => v.rank[x]! - v.rank[y]!);
  const values = present.map((c) => v.strings[c]!);
  return { min: values[0]!, max: values[values.length - 1]!, nullCount: nulls, ...(values.length <= SET_INDEX_MAX_VALUES ? { values } : {}) };
}
