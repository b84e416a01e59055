/**
 * Finalise: merged partial states -> SQL result rows (SELECT items, HAVING, ORDER BY,
 * LIMIT), applied once at the root.
 */
import { CanopyError } from './errors.ts';
import { AGGREGATES, type AggExpr } from './aggregates/index.ts';
import { compareForOrder } from './compare.ts';
import { StringTally, evalScalarNode } from './scalar.ts';
import { GROUPING_SETS_GROUPS_FACTOR, expandGroupingSets } from './grouping-sets.ts';
import { groupEntriesOf, type GroupEntry, type Partial, type PartialLayout } from './partial.ts';
import { checkAllRowsHeld, percentLimit } from './limit-percent.ts';
import { computeWindows } from './window.ts';
import type { ColumnInfo, OutExpr, QueryPlan, Scalar } from './types.ts';

/** A finalised answer: output columns and rows of SQL values. */
export interface ResultSet {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly Scalar[])[];
  /** Aggregate queries: the group each row came from (for per-cell bounds); null for row queries. */
  readonly groups: readonly GroupEntry[] | null;
  /** Grouping sets: every group of every set before HAVING and LIMIT (absent otherwise: the merged partial's groups). */
  readonly all?: readonly GroupEntry[];
}

/**
 * Finalises a merged partial for a plan.
 * - Aggregate queries without GROUP BY return exactly one row, even over no rows
 *   (COUNT 0, SUM/MIN/MAX/AVG NULL), as SQL does.
 * - With `plan.groupingSets`, the merged groups are those of the finest grouping, and each
 *   set's groups are derived from them first ({@link expandGroupingSets}); HAVING, ORDER BY
 *   and LIMIT then apply to the union (ties are broken by the set index after the keys),
 *   which may hold {@link GROUPING_SETS_GROUPS_FACTOR} × `scan.maxGroups` groups.
 * - Window aggregates (`plan.windows`) are computed after HAVING over every group kept
 *   (src/merge/window.ts), before ORDER BY and LIMIT.
 * - ORDER BY keys sort NULLs last; ties are broken by the group keys ascending, so the
 *   order is deterministic.
 * - Row queries keep their first `visible` columns and the plan's LIMIT.
 * @throws CanopyError CANOPY_ERR_INTERNAL when the partial does not fit the plan; CANOPY_ERR_LIMIT when the expressions' strings pass MAX_COMPUTED_STRING_CHARS.
 */
export function finalise(plan: QueryPlan, layout: PartialLayout, partial: Partial): ResultSet {
  const rowsSpec = plan.scan.rows;
  if (rowsSpec !== null) {
    if (partial.type !== 'rows') throw new CanopyError('CANOPY_ERR_INTERNAL', 'expected a row partial');
    const columns = rowsSpec.columns.slice(0, rowsSpec.visible).map((c) => ({ name: c.name, type: c.type }));
    const offset = plan.offset ?? 0;
    if (plan.limitPercent !== undefined) checkAllRowsHeld(partial.rows.length, rowsSpec.limit, offset);
    const limit = plan.limitPercent !== undefined ? percentLimit(plan.limitPercent, partial.rows.length) : (plan.limit ?? rowsSpec.limit - offset);
    const rows = partial.rows.slice(offset, offset + limit).map((r) => r.slice(0, rowsSpec.visible));
    return { columns, rows, groups: null };
  }
  if (partial.type === 'rows') throw new CanopyError('CANOPY_ERR_INTERNAL', 'expected a grouped partial');
  let entries: GroupEntry[] = [...groupEntriesOf(partial)];
  const sets = plan.groupingSets;
  // The union may hold GROUPING_SETS_GROUPS_FACTOR times the groups one node may hold.
  if (sets !== undefined) entries = expandGroupingSets(sets, plan.scan.groupBy.length, layout.kinds, entries, GROUPING_SETS_GROUPS_FACTOR * plan.scan.maxGroups);
  else if (plan.scan.groupBy.length === 0 && entries.length === 0) {
    entries = [{ keys: [], states: layout.kinds.map((k) => k.empty()) }];
  }
  // Strings the post-aggregation expressions compute are counted (group keys and aggregate values are held already).
  const tally = new StringTally('the answer');
  const evalOut = (e: OutExpr, g: GroupEntry): Scalar => (e.kind === 'key' || e.kind === 'agg' ? evaluate(e, g, layout) : tally.add(evaluate(e, g, layout)));
  const all = sets === undefined ? undefined : entries;
  if (plan.having !== null) {
    const having = plan.having;
    entries = entries.filter((g) => evalOut(having, g) === true);
  }
  // Window aggregates: over every group HAVING kept, before ORDER BY and LIMIT (as DuckDB).
  if (plan.windows !== undefined && plan.windows.length > 0) entries = computeWindows(plan.windows, entries, evalOut);
  const sortKeys = entries.map((g) => plan.orderBy.map((o) => evalOut(o.expr, g)));
  const order = (a: number, b: number): number => {
    const ka = sortKeys[a]!;
    const kb = sortKeys[b]!;
    for (let i = 0; i < plan.orderBy.length; i++) {
      const o = plan.orderBy[i]!;
      const c = compareForOrder(ka[i] ?? null, kb[i] ?? null, o.desc, o.nullsFirst === true);
      if (c !== 0) return c;
    }
    const ga = entries[a]!.keys;
    const gb = entries[b]!.keys;
    for (let i = 0; i < ga.length; i++) {
      const c = compareForOrder(ga[i] ?? null, gb[i] ?? null, false);
      if (c !== 0) return c;
    }
    return 0;
  };
  const offset = plan.offset ?? 0;
  const sorted = plan.orderBy.length > 0 || plan.scan.groupBy.length > 0;
  const limit = plan.limitPercent === undefined ? plan.limit : percentLimit(plan.limitPercent, entries.length);
  const want = limit === null ? Infinity : offset + limit;
  // Groups are distinct, so `order` is a total order and the first `want` are the same whether
  // selected (a bounded heap, O(n log want): a top 10 of 200,000 groups) or fully sorted.
  const idx = sorted && want * 4 < entries.length ? firstInOrder(entries.length, want, order) : entries.map((_, i) => i);
  if (sorted) idx.sort(order);
  const limited = limit === null ? idx.slice(offset) : idx.slice(offset, offset + limit);
  const rows = limited.map((i) => plan.output.map((c) => evalOut(c.expr, entries[i]!)));
  const groups = limited.map((i) => entries[i]!);
  return { columns: plan.output.map((c) => ({ name: c.name, type: c.type })), rows, groups, ...(all === undefined ? {} : { all }) };
}

/**
 * The `m` first of `0..n-1` under the total order `order`, unordered: a bounded binary heap
 * holding the m best so far with the worst at its root (O(n log m)).
 */
function firstInOrder(n: number, m: number, order: (a: number, b: number) => number): number[] {
  const heap: number[] = [];
  if (m <= 0) return heap;
  const down = (at: number): void => {
    const len = heap.length;
    for (;;) {
      const l = 2 * at + 1;
      if (l >= len) return;
      const r = l + 1;
      const worse = r < len && order(heap[r]!, heap[l]!) > 0 ? r : l;
      if (order(heap[worse]!, heap[at]!) <= 0) return;
      [heap[at], heap[worse]] = [heap[worse]!, heap[at]!];
      at = worse;
    }
  };
  for (let i = 0; i < n; i++) {
    if (heap.length < m) {
      heap.push(i);
      for (let at = heap.length - 1; at > 0; ) {
        const up = (at - 1) >> 1;
        if (order(heap[at]!, heap[up]!) <= 0) break;
        [heap[at], heap[up]] = [heap[up]!, heap[at]!];
        at = up;
      }
    } else if (order(i, heap[0]!) < 0) {
      heap[0] = i;
      down(0);
    }
  }
  return heap;
}

/** The value of a post-aggregation expression for one group (scalar nodes: {@link evalScalarNode}). */
export function evaluate(e: OutExpr, g: GroupEntry, layout: PartialLayout): Scalar {
  switch (e.kind) {
    case 'key':
      return g.keys[e.index] ?? null;
    case 'agg':
      return aggregateValue(e, g, layout);
    case 'window':
      return g.windows?.[e.slot] ?? null;
    default:
      return evalScalarNode(e, (c: OutExpr) => evaluate(c, g, layout));
  }
}

/**
 * The final value of one aggregate call from a group's merged partial states: a delegation
 * to the aggregate's definition (src/merge/aggregates; e.g. AVG = SUM / COUNT, `quantile` the
 * DDSketch estimate at `e.q`, default 0.5).
 */
export function aggregateValue(e: AggExpr, g: GroupEntry, layout: PartialLayout): Scalar {
  return AGGREGATES[e.fn].finalise(e, g, layout);
}
