/**
 * Test helper: brute-force grouped aggregates over `[g, v]` rows (g a string key, v an int64
 * or NULL), independent of canopy's merge code, with SQL NULL semantics, and the top k
 * groups in canopy's order (the value, NULLs last, then the group key ascending).
 */
import type { Scalar } from '../../src/merge/index.ts';

/** One group's exact aggregates. */
export interface GroupTruth {
  readonly key: string;
  readonly count: bigint;
  readonly sum: bigint | null;
  readonly min: bigint | null;
  readonly max: bigint | null;
}

/** The aggregates an output column can hold. */
export type TruthField = 'count' | 'sum' | 'min' | 'max';

/** Every group's aggregates, by key. */
export function groupTruth(rows: readonly (readonly Scalar[])[]): Map<string, GroupTruth> {
  const out = new Map<string, { key: string; count: bigint; sum: bigint | null; min: bigint | null; max: bigint | null }>();
  for (const [g, v] of rows) {
    const key = g as string;
    const t = out.get(key) ?? { key, count: 0n, sum: null, min: null, max: null };
    t.count++;
    if (typeof v === 'bigint') {
      t.sum = (t.sum ?? 0n) + v;
      t.min = t.min === null || v < t.min ? v : t.min;
      t.max = t.max === null || v > t.max ? v : t.max;
    }
    out.set(key, t);
  }
  return out;
}

/** The first `k` groups ordered by `field` (`desc` or ascending), NULLs last, ties by key. */
export function topGroups(truth: ReadonlyMap<string, GroupTruth>, field: TruthField, desc: boolean, k: number): GroupTruth[] {
  return [...truth.values()]
    .sort((a, b) => {
      const x = a[field];
      const y = b[field];
      if (x !== y) {
        if (x === null) return 1;
        if (y === null) return -1;
        return (x < y ? -1 : 1) * (desc ? -1 : 1);
      }
      return a.key < b.key ? -1 : a.key > b.key ? 1 : 0;
    })
    .slice(0, k);
}
