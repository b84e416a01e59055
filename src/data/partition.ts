/**
 * Assigns the rows of one loaded table to N shards. The result is a permutation of the
 * row numbers (`order`) and N+1 `offsets`: shard i holds rows order[offsets[i]..offsets[i+1]).
 */
import type { ColumnVec } from './columns.ts';
import { hashBuckets } from './hash.ts';
import { compareStrings } from '../merge/compare.ts';

/** Rows of each shard as slices of one permutation. */
export interface Groups {
  readonly order: Uint32Array;
  readonly offsets: Uint32Array;
}

/** Hash partitioning: shard = row hash mod n; rows keep their source order within a shard. */
export function hashGroups(cols: readonly ColumnVec[], length: number, n: number): Groups {
  const bucket = hashBuckets(cols, length, n);
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i < length; i++) offsets[bucket[i]! + 1]!++;
  for (let b = 0; b < n; b++) offsets[b + 1]! += offsets[b]!;
  const next = offsets.slice(0, n);
  const order = new Uint32Array(length);
  for (let i = 0; i < length; i++) order[next[bucket[i]!]!++] = i;
  return { order, offsets };
}


/**
 * The row numbers sorted by `col`: NULLs first, then ascending (NaN above every number,
 * strings by code point), ties in source order.
 */
export function sortedOrder(col: ColumnVec, length: number): Uint32Array {
  const valid = col.valid;
  const order = new Uint32Array(length);
  let nulls = 0;
  if (valid !== null) for (let i = 0; i < length; i++) if (valid[i] === 0) order[nulls++] = i;
  let k = nulls;
  for (let i = 0; i < length; i++) if (valid === null || valid[i] === 1) order[k++] = i;
  const rest = order.subarray(nulls);
  switch (col.type) {
    case 'int64': {
      const v = col.values;
      rest.sort((a, b) => {
        const x = v[a]!;
        const y = v[b]!;
        return x < y ? -1 : x > y ? 1 : a - b;
      });
      break;
    }
    case 'float64':
    case 'timestamp':
    case 'date': {
      const v = col.values;
      rest.sort((a, b) => {
        const x = v[a]!;
        const y = v[b]!;
        if (x < y) return -1;
        if (x > y) return 1;
        const xn = x !== x;
        const yn = y !== y;
        if (xn !== yn) return xn ? 1 : -1;
        return a - b;
      });
      break;
    }
    case 'string': {
      const dict = col.dictionary;
      const byValue = dict.map((_, i) => i).sort((a, b) => compareStrings(dict[a]!, dict[b]!));
      const rank = new Int32Array(dict.length);
      for (let r = 0; r < byValue.length; r++) rank[byValue[r]!] = r;
      const codes = col.codes;
      rest.sort((a, b) => rank[codes[a]!]! - rank[codes[b]!]! || a - b);
      break;
    }
  }
  return order;
}

/**
 * Range partitioning: rows sorted by `col` (see {@link sortedOrder}) and cut into n
 * contiguous runs whose sizes differ by at most one (shard i gets
 * [floor(i*R/n), floor((i+1)*R/n))). Equal values may straddle a cut.
 */
export function rangeGroups(col: ColumnVec, length: number, n: number): Groups {
  const order = sortedOrder(col, length);
  const offsets = new Uint32Array(n + 1);
  for (let i = 0; i <= n; i++) offsets[i] = Math.floor((i * length) / n);
  return { order, offsets };
}
