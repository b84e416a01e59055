/**
 * Bounds for what is missing: given the shards that did not answer (failed or omitted)
 * and their catalog statistics, the interval each aggregate cell can still take, the
 * cell's label, and whether the set of result rows is proven complete.
 *
 * A missing shard contributes to a group only if its zone map allows both the WHERE clause
 * and the group's key values. Its contribution is bounded by its statistics:
 * COUNT(*) within [0, rows]; COUNT(col) within [0, rows - nulls]; SUM within
 * [min(0, n·min), max(0, n·max)] with n = rows - nulls; MIN/MAX by the shard's min/max;
 * AVG by mixing: the combined mean lies between the seen mean and the missing extremes.
 *
 * Sketch aggregates carry their own uncertainty, so their cells are emitted even when
 * nothing is missing: COUNT(DISTINCT) is exact while its state is a set, else approximate
 * with a 99 % interval (HyperLogLog); approx_quantile is bounded by DDSketch's relative
 * accuracy. A missing shard can add at most its non-NULL rows (for int64 also at most its
 * value range) distinct values, and moves a quantile at most to its min/max.
 */
import { aggregateValue, compareSql } from './finalise.ts';
import { quantileEstimate, type QuantileState } from './kinds/ddsketch.ts';
import { HLL_CONFIDENCE, hllEstimate, type HllState } from './kinds/hll.ts';
import { groupsOf, type GroupEntry, type Partial, type PartialLayout } from './partial.ts';
import { shardMayMatch } from './prune.ts';
import { truncMs } from './time.ts';
import type { Expr, OutExpr, QueryPlan, Scalar, ScanPlan, ShardInfo } from './types.ts';

/** How far a value can be trusted. */
export type CellLabel = 'exact' | 'bounded' | 'approximate';

/**
 * One cell's label and, when not exact, its interval (`lo`/`hi` null when unbounded).
 * Probabilistic estimates (HyperLogLog) add the standard error of the value (absolute,
 * in the value's unit) and the confidence of [lo, hi] (0.99).
 */
export interface Cell {
  readonly label: CellLabel;
  readonly lo?: Scalar;
  readonly hi?: Scalar;
  readonly stderr?: number;
  readonly confidence?: number;
}

/** Labels of an answer: per cell, and whether the row set itself is proven. */
export interface AnswerBounds {
  /** Per result row, per output column; null for exact cells. */
  readonly cells: readonly (readonly (Cell | null)[])[];
  /** True when the rows present are exactly the rows of the complete answer. */
  readonly rowsComplete: boolean;
  /** Weakest of the cells, and `approximate` when the row set is not proven. */
  readonly label: CellLabel;
}

const RANK: Record<CellLabel, number> = { exact: 0, bounded: 1, approximate: 2 };

function weakest(a: CellLabel, b: CellLabel): CellLabel {
  return RANK[a] >= RANK[b] ? a : b;
}

/**
 * Range of a key expression over a shard's non-NULL rows, `'all-null'` when the shard
 * has only NULLs there, or null when unknown (no statistics, NaN present).
 */
function keyRange(e: Expr, s: ShardInfo): { min: number | string; max: number | string; nulls: number } | 'all-null' | null {
  if (e.kind === 'col') {
    const c = s.columns[e.name];
    if (c === undefined) return null;
    if (c.min === null || c.max === null) return c.nullCount >= s.rows ? 'all-null' : null;
    if (typeof c.min === 'number' && (Number.isNaN(c.min) || Number.isNaN(c.max as number))) return null;
    return { min: c.min, max: c.max, nulls: c.nullCount };
  }
  if (e.kind === 'date_trunc') {
    const r = keyRange(e.arg, s);
    if (r === null || r === 'all-null' || typeof r.min !== 'number' || typeof r.max !== 'number') return r;
    return { min: truncMs(r.min, e.unit), max: truncMs(r.max, e.unit), nulls: r.nulls };
  }
  return null;
}

/** Can shard `s` hold rows of the group with these key values? */
function mayHoldGroup(plan: QueryPlan, keys: readonly Scalar[], s: ShardInfo): boolean {
  return plan.scan.groupBy.every((k, i) => {
    const v = keys[i] ?? null;
    const r = keyRange(k.expr, s);
    if (r === null) return true;
    if (r === 'all-null') return v === null;
    if (v === null) return r.nulls > 0;
    const x = typeof v === 'bigint' ? Number(v) : v;
    if (typeof x !== typeof r.min) return true;
    return r.min <= x && x <= r.max;
  });
}

/** Outward widening that covers the rounding of one double operation (none for exact integers). */
function slack(x: number): number {
  return Number.isSafeInteger(x) ? 0 : Math.abs(x) * 4 * Number.EPSILON;
}

interface Envelope {
  rows: number;
  nonNull: Map<string, number>;
  min: Map<string, number | string>;
  max: Map<string, number | string>;
  sumLo: Map<string, number>;
  sumHi: Map<string, number>;
  unknown: boolean;
}

function envelope(shards: readonly ShardInfo[], columns: readonly string[]): Envelope {
  const env: Envelope = { rows: 0, nonNull: new Map(), min: new Map(), max: new Map(), sumLo: new Map(), sumHi: new Map(), unknown: false };
  for (const s of shards) {
    env.rows += s.rows;
    for (const c of columns) {
      const st = s.columns[c];
      if (st === undefined) {
        env.unknown = true;
        continue;
      }
      const nn = s.rows - st.nullCount;
      env.nonNull.set(c, (env.nonNull.get(c) ?? 0) + nn);
      if (nn === 0 || st.min === null || st.max === null) continue;
      const mn = env.min.get(c);
      const mx = env.max.get(c);
      if (mn === undefined || st.min < mn) env.min.set(c, st.min);
      if (mx === undefined || st.max > mx) env.max.set(c, st.max);
      if (typeof st.min === 'number' && typeof st.max === 'number') {
        const lo = Math.min(0, nn * st.min);
        const hi = Math.max(0, nn * st.max);
        env.sumLo.set(c, (env.sumLo.get(c) ?? 0) + lo - slack(lo));
        env.sumHi.set(c, (env.sumHi.get(c) ?? 0) + hi + slack(hi));
      }
    }
  }
  return env;
}

/**
 * How many distinct non-NULL values of `col` the missing shards could add: 0 when none,
 * null when unknown (no statistics).
 */
function addableDistinct(env: Envelope | null, col: string | null, isInt: boolean): number | null {
  if (env === null || env.rows === 0 || col === null) return 0;
  if (env.unknown) return null;
  const nn = env.nonNull.get(col) ?? 0;
  const mn = env.min.get(col);
  const mx = env.max.get(col);
  if (isInt && typeof mn === 'number' && typeof mx === 'number') return Math.min(nn, mx - mn + 1);
  return nn;
}

type AggExpr = Extract<OutExpr, { kind: 'agg' }>;

function distinctCell(e: AggExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  const p = e.partials[0]!;
  const est = hllEstimate(g.states[p] as HllState);
  const extra = addableDistinct(env, layout.plan.partials[p]!.arg, layout.kinds[p]!.argType === 'int64');
  if (est.exact) {
    if (extra === 0) return null;
    // The seen values are exact; the missing shards add at most `extra` more.
    return extra === null ? { label: 'approximate', lo: BigInt(est.value), hi: null } : { label: 'bounded', lo: BigInt(est.value), hi: BigInt(est.value + extra) };
  }
  return { label: 'approximate', lo: BigInt(est.lo), hi: extra === null ? null : BigInt(est.hi + extra), stderr: est.stderr, confidence: HLL_CONFIDENCE };
}

function quantileCell(e: AggExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  const p = e.partials[0]!;
  const col = layout.plan.partials[p]!.arg;
  const est = quantileEstimate(g.states[p] as QuantileState | null, e.q ?? 0.5);
  const missing = env !== null && env.rows > 0 && col !== null && (env.unknown || (env.nonNull.get(col) ?? 0) > 0);
  if (!missing) return est === null || est.exact ? null : { label: 'bounded', lo: est.lo, hi: est.hi };
  const mn = env.min.get(col);
  const mx = env.max.get(col);
  if (env.unknown || typeof mn !== 'number' || typeof mx !== 'number' || Number.isNaN(mn) || Number.isNaN(mx)) return { label: 'approximate', lo: null, hi: null };
  if (est === null) return { label: 'approximate', lo: mn, hi: mx };
  if (Number.isNaN(est.lo) || Number.isNaN(est.hi)) return { label: 'approximate', lo: null, hi: null };
  // k missing rows move the quantile's rank by at most k, so the complete answer lies
  // between the seen quantile and the missing shards' extremes.
  return { label: 'bounded', lo: Math.min(est.lo, mn), hi: Math.max(est.hi, mx) };
}

function cellFor(e: OutExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  if (e.kind === 'agg' && e.fn === 'count_distinct') return distinctCell(e, g, layout, env);
  if (e.kind === 'agg' && e.fn === 'quantile') return quantileCell(e, g, layout, env);
  if (e.kind !== 'agg' || env === null || env.rows === 0) return null;
  const value = aggregateValue(e.fn, e.partials, g, layout);
  const spec = layout.plan.partials[e.partials[0]!]!;
  const col = spec.arg;
  const isInt = e.type === 'int64';
  const num = (x: number, up: boolean): Scalar => (isInt ? BigInt(up ? Math.ceil(x) : Math.floor(x)) : x);
  switch (e.fn) {
    case 'count': {
      const extra = col === null ? env.rows : (env.nonNull.get(col) ?? env.rows);
      if (extra === 0) return null;
      return { label: 'bounded', lo: value, hi: (value as bigint) + BigInt(extra) };
    }
    case 'sum': {
      if (col === null || (env.nonNull.get(col) ?? 1) === 0) return null;
      const lo = env.sumLo.get(col);
      const hi = env.sumHi.get(col);
      if (value === null || lo === undefined || hi === undefined || env.unknown) return { label: 'approximate', lo: null, hi: null };
      if (typeof value === 'bigint') return { label: 'bounded', lo: value + (num(lo, false) as bigint), hi: value + (num(hi, true) as bigint) };
      const v = value as number;
      return { label: 'bounded', lo: v + lo - slack(v + lo), hi: v + hi + slack(v + hi) };
    }
    case 'min':
    case 'max': {
      if (col === null || (env.nonNull.get(col) ?? 1) === 0) return null;
      const ext = e.fn === 'min' ? env.min.get(col) : env.max.get(col);
      if (ext === undefined || env.unknown) return { label: 'approximate', lo: null, hi: null };
      const extV: Scalar = isInt && typeof ext === 'number' ? BigInt(e.fn === 'min' ? Math.floor(ext) : Math.ceil(ext)) : ext;
      if (value === null) {
        const other = e.fn === 'min' ? env.max.get(col) : env.min.get(col);
        return { label: 'approximate', lo: e.fn === 'min' ? extV : (other ?? null), hi: e.fn === 'min' ? (other ?? null) : extV };
      }
      // The catalog proves the missing shards cannot beat the seen extreme: exact.
      if (e.fn === 'min' ? compareSql('<=', value, extV) === true : compareSql('>=', value, extV) === true) return null;
      return e.fn === 'min' ? { label: 'bounded', lo: extV, hi: value } : { label: 'bounded', lo: value, hi: extV };
    }
    case 'avg': {
      if (col === null || (env.nonNull.get(col) ?? 1) === 0) return null;
      const mn = env.min.get(col);
      const mx = env.max.get(col);
      if (value === null || typeof mn !== 'number' || typeof mx !== 'number' || env.unknown) return { label: 'approximate', lo: null, hi: null };
      const v = value as number;
      return { label: 'bounded', lo: Math.min(v, mn), hi: Math.max(v, mx) };
    }
    case 'count_distinct':
    case 'quantile':
      return null;
  }
}

/** The sketch aggregates (COUNT(DISTINCT), approx_quantile) in an expression. */
function sketchAggregates(e: OutExpr, out: AggExpr[] = []): AggExpr[] {
  switch (e.kind) {
    case 'agg':
      if (e.fn === 'count_distinct' || e.fn === 'quantile') out.push(e);
      break;
    case 'cmp':
      sketchAggregates(e.left, out);
      sketchAggregates(e.right, out);
      break;
    case 'and':
    case 'or':
      e.args.forEach((a) => sketchAggregates(a, out));
      break;
    case 'not':
    case 'isnull':
    case 'in':
      sketchAggregates(e.arg, out);
      break;
    case 'between':
      [e.arg, e.lo, e.hi].forEach((a) => sketchAggregates(a, out));
      break;
    default:
      break;
  }
  return out;
}

/**
 * With every shard answered, is the row set proven although HAVING, or ORDER BY with a
 * LIMIT that cut rows, reads sketch aggregates? Only when those are exact in every group,
 * including the groups left out, which needs `all`.
 */
function sketchRowSetProven(plan: QueryPlan, layout: PartialLayout, rows: readonly GroupEntry[], all: readonly GroupEntry[] | undefined): boolean {
  const cut = plan.scan.groupBy.length > 0 && plan.limit !== null && plan.limit > 0 && rows.length >= plan.limit;
  const sensitive = [...(plan.having === null ? [] : sketchAggregates(plan.having)), ...(cut ? plan.orderBy.flatMap((o) => sketchAggregates(o.expr)) : [])];
  if (sensitive.length === 0) return true;
  const groups = all ?? (plan.scan.groupBy.length === 0 && rows.length === 1 ? rows : undefined);
  if (groups === undefined) return false;
  return groups.every((g) => sensitive.every((a) => cellFor(a, g, layout, null) === null));
}

/**
 * Cells and labels of an aggregate answer.
 * @param rows the finalised rows' group entries, in output order
 * @param missing catalog entries of the shards that failed or were omitted
 * @param all every merged group (before HAVING and LIMIT): lets HAVING or ORDER BY ... LIMIT
 *   over COUNT(DISTINCT) / approx_quantile prove the row set when those values are exact;
 *   without it such a row set is not proven
 */
export function boundAggregateAnswer(plan: QueryPlan, layout: PartialLayout, rows: readonly GroupEntry[], missing: readonly ShardInfo[], all?: readonly GroupEntry[]): AnswerBounds {
  const relevant = missing.filter((s) => shardMayMatch(plan.scan.filter, s));
  const columns = [...new Set(plan.scan.partials.map((p) => p.arg).filter((a): a is string => a !== null))];
  let label: CellLabel = 'exact';
  const outCells = rows.map((g) => {
    const mine = relevant.filter((s) => mayHoldGroup(plan, g.keys, s));
    const env = mine.length === 0 ? null : envelope(mine, columns);
    return plan.output.map((c) => {
      const cell = cellFor(c.expr, g, layout, env);
      if (cell !== null) label = weakest(label, cell.label);
      return cell;
    });
  });
  // The row set is proven when nothing relevant is missing, or, without GROUP BY, always
  // (one row) unless HAVING could flip on an uncertain value.
  const uncertain = label !== 'exact';
  let rowsComplete = relevant.length === 0 && sketchRowSetProven(plan, layout, rows, all);
  if (!rowsComplete && relevant.length > 0 && plan.scan.groupBy.length === 0) rowsComplete = plan.having === null || !uncertain;
  if (!rowsComplete) label = 'approximate';
  return { cells: outCells, rowsComplete, label };
}

/**
 * Labels of a row answer (ORDER BY ... LIMIT k): exact when every relevant missing shard
 * provably cannot place a row among the first k on the leading sort key (its min/max from
 * the catalog versus the k-th row); otherwise approximate (rows may be missing).
 * @param kth the k-th row's leading sort value, or undefined when fewer than k rows came back
 */
export function boundRowAnswer(plan: QueryPlan, missing: readonly ShardInfo[], kth: Scalar | undefined): AnswerBounds {
  const proven = rowShardsIrrelevant(plan.scan, missing, kth);
  return proven ? { cells: [], rowsComplete: true, label: 'exact' } : { cells: [], rowsComplete: false, label: 'approximate' };
}

/**
 * True when none of `shards` can place a row among the first k of a row query: their zone
 * maps exclude the WHERE clause, or their range of the leading sort key cannot beat the
 * k-th row's value (`kth`; undefined when fewer than k rows are known).
 */
export function rowShardsIrrelevant(scan: ScanPlan, shards: readonly ShardInfo[], kth: Scalar | undefined): boolean {
  const relevant = shards.filter((s) => shardMayMatch(scan.filter, s));
  if (relevant.length === 0) return true;
  const rows = scan.rows;
  const lead = rows?.orderBy[0];
  if (rows === null || lead === undefined || kth === undefined || kth === null) return false;
  const expr = rows.columns[lead.column]!.expr;
  const k = typeof kth === 'bigint' ? Number(kth) : kth;
  return relevant.every((s) => {
    const r = keyRange(expr, s);
    // An all-NULL lead column sorts last, after a non-NULL k-th row.
    if (r === 'all-null') return true;
    if (r === null || typeof r.min !== typeof k) return false;
    return lead.desc ? r.max < k : r.min > k;
  });
}

/**
 * Early termination: true when the shards still outstanding provably cannot change the
 * merged answer of this node, so the gather may stop and cancel them. Row top-k: by the
 * k-th row against their sort-key ranges; an aggregate without GROUP BY made only of MIN and
 * MAX: by each extreme against their min/max. Anything else: false.
 */
export function outstandingIrrelevant(scan: ScanPlan, layout: PartialLayout, merged: Partial, outstanding: readonly ShardInfo[]): boolean {
  if (outstanding.length === 0) return false;
  if (scan.rows !== null) {
    if (merged.type !== 'rows' || merged.rows.length < scan.rows.limit) return rowShardsIrrelevant(scan, outstanding, undefined);
    const lead = scan.rows.orderBy[0];
    return lead !== undefined && rowShardsIrrelevant(scan, outstanding, merged.rows[scan.rows.limit - 1]![lead.column]);
  }
  if (scan.groupBy.length > 0 || merged.type === 'rows' || scan.partials.some((p) => p.kind !== 'min' && p.kind !== 'max')) return false;
  const relevant = outstanding.filter((s) => shardMayMatch(scan.filter, s));
  if (relevant.length === 0) return true;
  const g = [...groupsOf(merged).values()][0];
  if (g === undefined) return false;
  return scan.partials.every((p, i) => {
    const v = layout.kinds[i]!.finalise(g.states[i]);
    if (v === null) return false;
    return relevant.every((s) => {
      const r = keyRange({ kind: 'col', name: p.arg! }, s);
      if (r === 'all-null') return true;
      if (r === null || typeof r.min !== (typeof v === 'bigint' ? 'number' : typeof v)) return false;
      const x = typeof v === 'bigint' ? Number(v) : v;
      if (typeof x === 'number' && Math.abs(x) >= 2 ** 53) return false;
      return p.kind === 'min' ? x <= r.min : x >= r.max;
    });
  });
}
