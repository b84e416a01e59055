/**
 * Finalise: merged partial states -> SQL result rows (SELECT items, HAVING, ORDER BY,
 * LIMIT), applied once at the root.
 */
import { CanopyError } from './errors.ts';
import { AGGREGATES, type AggExpr } from './aggregates/index.ts';
import { compareForOrder } from './compare.ts';
import { evalScalarNode } from './scalar.ts';
import { groupsOf, type GroupEntry, type Partial, type PartialLayout } from './partial.ts';
import type { ColumnInfo, OutExpr, QueryPlan, Scalar } from './types.ts';

/** A finalised answer: output columns and rows of SQL values. */
export interface ResultSet {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly Scalar[])[];
  /** Aggregate queries: the group each row came from (for per-cell bounds); null for row queries. */
  readonly groups: readonly GroupEntry[] | null;
}

/**
 * Finalises a merged partial for a plan.
 * - Aggregate queries without GROUP BY return exactly one row, even over no rows
 *   (COUNT 0, SUM/MIN/MAX/AVG NULL), as SQL does.
 * - ORDER BY keys sort NULLs last; ties are broken by the group keys ascending, so the
 *   order is deterministic.
 * - Row queries keep their first `visible` columns and the plan's LIMIT.
 * @throws CanopyError CANOPY_ERR_INTERNAL when the partial does not fit the plan.
 */
export function finalise(plan: QueryPlan, layout: PartialLayout, partial: Partial): ResultSet {
  const rowsSpec = plan.scan.rows;
  if (rowsSpec !== null) {
    if (partial.type !== 'rows') throw new CanopyError('CANOPY_ERR_INTERNAL', 'expected a row partial');
    const columns = rowsSpec.columns.slice(0, rowsSpec.visible).map((c) => ({ name: c.name, type: c.type }));
    const offset = plan.offset ?? 0;
    const limit = plan.limit ?? rowsSpec.limit - offset;
    const rows = partial.rows.slice(offset, offset + limit).map((r) => r.slice(0, rowsSpec.visible));
    return { columns, rows, groups: null };
  }
  if (partial.type === 'rows') throw new CanopyError('CANOPY_ERR_INTERNAL', 'expected a grouped partial');
  let entries: GroupEntry[] = [...groupsOf(partial).values()];
  if (plan.scan.groupBy.length === 0 && entries.length === 0) {
    entries = [{ keys: [], states: layout.kinds.map((k) => k.empty()) }];
  }
  const evalOut = (e: OutExpr, g: GroupEntry): Scalar => evaluate(e, g, layout);
  if (plan.having !== null) {
    const having = plan.having;
    entries = entries.filter((g) => evalOut(having, g) === true);
  }
  const sortKeys = entries.map((g) => plan.orderBy.map((o) => evalOut(o.expr, g)));
  const idx = entries.map((_, i) => i);
  if (plan.orderBy.length > 0 || plan.scan.groupBy.length > 0) {
    idx.sort((a, b) => {
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
    });
  }
  const offset = plan.offset ?? 0;
  const limited = plan.limit === null ? idx.slice(offset) : idx.slice(offset, offset + plan.limit);
  const rows = limited.map((i) => plan.output.map((c) => evalOut(c.expr, entries[i]!)));
  return { columns: plan.output.map((c) => ({ name: c.name, type: c.type })), rows, groups: limited.map((i) => entries[i]!) };
}

/** The value of a post-aggregation expression for one group (scalar nodes: {@link evalScalarNode}). */
export function evaluate(e: OutExpr, g: GroupEntry, layout: PartialLayout): Scalar {
  switch (e.kind) {
    case 'key':
      return g.keys[e.index] ?? null;
    case 'agg':
      return aggregateValue(e, g, layout);
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
