/**
 * GROUPING SETS, ROLLUP and CUBE at the root (pure, no I/O): the children compute the
 * partials of the finest grouping (every key of every set) as for any GROUP BY, and each
 * set's groups are the merge of the finest groups that agree on the set's keys. Every
 * partial kind merges associatively and commutatively (src/merge/kinds/kind.ts), so a
 * subtotal's states are exactly the states a scan grouped by the set's keys would give,
 * and its labels and bounds come from them as for any group.
 */
import { CanopyError } from './errors.ts';
import { groupKeyString, type GroupEntry } from './partial.ts';
import type { StateKind } from './kinds/kind.ts';
import type { QueryPlan, Scalar } from './types.ts';

/**
 * How many times the per-node group limit (`scan.maxGroups`, which the finest grouping meets
 * at every node) the root's union of the grouping sets' groups may hold: it is built whole
 * (before HAVING and LIMIT), one entry per group of each set.
 */
export const GROUPING_SETS_GROUPS_FACTOR = 4;

/**
 * The groups of every grouping set of `sets`, set after set (a set listed twice gives its
 * groups twice, as DuckDB's UNION ALL of the sets): keys NULL where the set leaves the key
 * out, then one extra key, the set's index as an int64 (`grouping()` reads it; it also keeps
 * a rolled-up NULL apart from a NULL key value when rows are ordered). An empty set `()`
 * gives one group even when there are no rows (COUNT 0, other aggregates NULL), as a query
 * without GROUP BY does.
 * @param sets per set, the indexes of the keys it groups by
 * @param nKeys the number of keys of the finest groups
 * @param kinds the partial kinds, in state order
 * @param finest the merged groups of the finest grouping (not mutated)
 * @param maxGroups the most groups the union may hold
 * @returns new entries; a set holding every key shares the finest groups' states
 * @throws CanopyError CANOPY_ERR_LIMIT when the sets' groups are more than `maxGroups`
 */
export function expandGroupingSets(sets: readonly (readonly number[])[], nKeys: number, kinds: readonly StateKind<unknown>[], finest: readonly GroupEntry[], maxGroups: number): GroupEntry[] {
  const out: GroupEntry[] = [];
  const check = (): void => {
    if (out.length > maxGroups) {
      throw new CanopyError('CANOPY_ERR_LIMIT', `the grouping sets hold more than ${maxGroups} groups together (${finest.length} in the finest grouping, ${sets.length} sets); use fewer sets, a WHERE, or fewer or coarser GROUP BY keys`);
    }
  };
  sets.forEach((set, index) => {
    const tag = BigInt(index);
    if (set.length === nKeys && nKeys > 0) {
      for (const g of finest) out.push({ keys: [...g.keys, tag], states: g.states });
      check();
      return;
    }
    const kept = new Array<boolean>(nKeys).fill(false);
    for (const k of set) kept[k] = true;
    const merged = new Map<string, { keys: Scalar[]; states: unknown[]; owned: boolean[] }>();
    for (const g of finest) {
      const keys = g.keys.map((v, i) => (kept[i] === true ? v : null));
      const id = groupKeyString(keys);
      const acc = merged.get(id);
      if (acc === undefined) {
        merged.set(id, { keys, states: [...g.states], owned: kinds.map(() => false) });
        continue;
      }
      for (let i = 0; i < kinds.length; i++) {
        const kind = kinds[i]!;
        if (kind.mergeOwned === undefined) acc.states[i] = kind.merge(acc.states[i], g.states[i]);
        else {
          // In place once the accumulator holds its own copy (never a finest group's state).
          const next = kind.mergeOwned(acc.states[i], acc.owned[i]!, g.states[i]);
          acc.owned[i] = next !== g.states[i] && (acc.owned[i]! || next !== acc.states[i]);
          acc.states[i] = next;
        }
      }
    }
    if (set.length === 0 && merged.size === 0) merged.set('', { keys: new Array<Scalar>(nKeys).fill(null), states: kinds.map((k) => k.empty()), owned: [] });
    for (const e of merged.values()) out.push({ keys: [...e.keys, tag], states: e.states });
    check();
  });
  return out;
}

/**
 * The keys of `plan.scan.groupBy` the group `g` of an answer is grouped by: all of them
 * without grouping sets, else its set's (read from the set index after the keys).
 */
export function groupedKeysOf(plan: QueryPlan, g: GroupEntry): readonly number[] | null {
  const sets = plan.groupingSets;
  if (sets === undefined) return null;
  const tag = g.keys[plan.scan.groupBy.length];
  return sets[Number(tag)] ?? null;
}

/**
 * The value of DuckDB's `grouping(k1, ..., kn)` (alias grouping_id) in grouping set `set`:
 * one bit per argument, the first the most significant, 1 when the set leaves that key out.
 * @param args the arguments' key indexes
 * @param set the indexes of the keys the set groups by
 */
export function groupingValue(args: readonly number[], set: readonly number[]): bigint {
  let v = 0n;
  for (const k of args) v = (v << 1n) | (set.includes(k) ? 0n : 1n);
  return v;
}
