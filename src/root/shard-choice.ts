/**
 * Which shards a row query needs to ask at all, from the catalog alone (before any shard is
 * asked): a LIMIT without ORDER BY needs only shards holding enough rows ({@link limitProbe});
 * a row top-k only the shards whose zone map of the lead sort key can reach the k rows the
 * catalog already guarantees ({@link rowTopKShards}). Pure.
 */
import { compareValues, type Catalog, type ColumnType, type ScanPlan } from '../merge/index.ts';

/**
 * The shards a row query with LIMIT and no ORDER BY asks first: the fewest shards (largest
 * first, by catalog row count; ties by id) whose rows add up to OFFSET + LIMIT (`scan.rows.limit`).
 * Without a WHERE clause they hold enough rows; with one they may not, and a second round
 * asks the rest. Empty when it wants no row (LIMIT 0: nothing to ask). Null when the query is
 * not such a row query or would ask every shard anyway.
 */
export function limitProbe(scan: ScanPlan, catalog: Catalog, asked: readonly number[]): number[] | null {
  const rows = scan.rows;
  if (rows === null || rows.orderBy.length > 0 || rows.limit < 0 || asked.length === 0) return null;
  // LIMIT 0 (and no OFFSET): no row is wanted, so no shard is asked.
  if (rows.limit === 0) return [];
  if (asked.length <= 1) return null;
  const byId = new Map(catalog.shards.map((s) => [s.id, s.rows]));
  const order = [...asked].sort((a, b) => (byId.get(b) ?? 0) - (byId.get(a) ?? 0) || a - b);
  const out: number[] = [];
  let sum = 0;
  for (const id of order) {
    if (sum >= rows.limit) break;
    out.push(id);
    sum += byId.get(id) ?? 0;
  }
  return out.length < asked.length ? out : null;
}

/** Largest integer a catalog int64 bound holds exactly (beyond it bounds are rounded outward). */
const EXACT_INT = 2 ** 53;

/**
 * Row top-k (`ORDER BY c [DESC] LIMIT k`, NULLs last, no WHERE clause): the asked shards that
 * can hold rows of the answer, from their zone maps of the lead key `c`, a plain column.
 * Every shard holds a row at its max (DESC; its min, ASC), so the k-th best of those extremes,
 * M, is reached by at least k rows of the table; a shard whose extreme is strictly worse
 * than M (or whose `c` is all NULL) has no row that can be among the first k, whatever the
 * tie-breaks: the query need not ask it. Ties with M are kept. The threshold is the k-th
 * value of the "first tuples" of the shards' sorted lists in Fagin, Lotem and Naor's
 * threshold algorithm ("Optimal aggregation algorithms for middleware", JCSS 66(4), 2003),
 * read from the catalog. Null when nothing can be skipped or the rule does not apply (a
 * WHERE clause, which the extreme row may fail; NULLS FIRST; an expression key; a shard
 * without statistics; int64 bounds beyond 2^53, which the catalog rounds).
 * @returns the shards to ask (ascending) and the ones skipped, with the threshold M
 */
export function rowTopKShards(scan: ScanPlan, catalog: Catalog, asked: readonly number[]): { ask: number[]; skip: number[]; threshold: number | string } | null {
  const rows = scan.rows;
  const lead = rows?.orderBy[0];
  if (rows === null || lead === undefined || scan.filter !== null || lead.nullsFirst === true || rows.limit <= 0 || asked.length <= 1) return null;
  const expr = rows.columns[lead.column]!.expr;
  if (expr.kind !== 'col') return null;
  const name = expr.name;
  const type: ColumnType | undefined = catalog.table.columns.find((c) => c.name === name)?.type;
  if (type === undefined) return null;
  const byId = new Map(catalog.shards.map((s) => [s.id, s]));
  const extremes: { id: number; v: number | string | null }[] = [];
  for (const id of asked) {
    const s = byId.get(id);
    const c = s?.columns[name];
    if (s === undefined || c === undefined) return null;
    const v = lead.desc ? c.max : c.min;
    if (v === null) {
      // No non-NULL value: all NULL (sorted last), or no statistics.
      if (c.nullCount < s.rows) return null;
      extremes.push({ id, v: null });
      continue;
    }
    if (type === 'int64' && typeof v === 'number' && !(Math.abs(v) <= EXACT_INT)) return null;
    extremes.push({ id, v });
  }
  const held = extremes.filter((e): e is { id: number; v: number | string } => e.v !== null);
  if (held.length < rows.limit) return null;
  // Best first: descending for DESC, ascending for ASC.
  const better = (a: number | string, b: number | string): number => (lead.desc ? compareValues(b, a) : compareValues(a, b));
  const threshold = [...held].sort((a, b) => better(a.v, b.v))[rows.limit - 1]!.v;
  const ask: number[] = [];
  const skip: number[] = [];
  for (const e of extremes) (e.v !== null && better(e.v, threshold) <= 0 ? ask : skip).push(e.id);
  return skip.length === 0 ? null : { ask, skip, threshold };
}
