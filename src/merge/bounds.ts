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
import { AGGREGATES, argColumn, envelope, partialColumns, type AggExpr, type Envelope } from './aggregates/index.ts';
import { zeroMayWin } from './aggregates/minmax.ts';
import type { Estimate } from './estimate.ts';
import { compareStrings, compareValues } from './compare.ts';
import { CanopyError } from './errors.ts';
import { evaluate } from './finalise.ts';
import { groupedKeysOf } from './grouping-sets.ts';
import { absInterval, arithInterval, bigPoint, compareIntervals, exactCell, hull, labelOf, logicTruth, monotoneInterval, negInterval, truthCell, type Interval, type IntervalCell, type TruthRange } from './interval.ts';
import { weakest, type CellLabel } from './label.ts';
import { nodeChildren, roundDouble } from './scalar.ts';
import { groupEntriesOf, groupKeyString, type GroupEntry, type Partial, type PartialLayout } from './partial.ts';
import { shardMayMatch } from './prune.ts';
import { truncMicros } from './time.ts';
import { scoreOf } from './topk.ts';
import type { Expr, GroupKeySpec, OutExpr, PartialSpec, QueryPlan, Scalar, ScanPlan, ShardInfo, WindowNode } from './types.ts';

export type { CellLabel } from './label.ts';

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
  /**
   * COUNT, SUM and AVG cells of answers that miss shards: the estimate of the complete value
   * from the shards that answered, with its 95 % confidence interval inside [lo, hi]
   * (src/merge/estimate.ts). Not a guarantee; lo/hi above are.
   */
  readonly estimate?: Estimate;
  /** Why the interval is unbounded, when an expression over aggregates made it so (division by an interval holding 0). */
  readonly note?: string;
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
    return { min: truncMicros(r.min, e.unit), max: truncMicros(r.max, e.unit), nulls: r.nulls };
  }
  return null;
}

/** Can shard `s` hold rows of the group with these key values (`groupBy`: the plan's keys)? */
function mayHoldGroup(groupBy: readonly GroupKeySpec[], keys: readonly Scalar[], s: ShardInfo): boolean {
  return groupBy.every((k, i) => {
    const v = keys[i] ?? null;
    const r = keyRange(k.expr, s);
    if (r === null) return true;
    if (r === 'all-null') return v === null;
    if (v === null) return r.nulls > 0;
    const x = typeof v === 'bigint' ? Number(v) : v;
    if (typeof x !== typeof r.min) return true;
    return compareValues(r.min, x) <= 0 && compareValues(x, r.max) <= 0;
  });
}

/**
 * The cell of one output expression: an aggregate's own bounds (src/merge/aggregates), or
 * null (exact) for anything else.
 */
function cellFor(e: OutExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  if (e.kind !== 'agg') return null;
  return AGGREGATES[e.fn].bounds(e, g, layout, env);
}

/** The sketch aggregates (COUNT(DISTINCT), approx_quantile) in an expression. */
function sketchAggregates(e: OutExpr, out: AggExpr[] = []): AggExpr[] {
  if (e.kind === 'agg') {
    if (AGGREGATES[e.fn].sketch) out.push(e);
  } else if (e.kind === 'window') {
    if (e.arg !== null) sketchAggregates(e.arg, out);
  } else if (e.kind !== 'key') for (const c of nodeChildren(e)) sketchAggregates(c, out);
  return out;
}

const NUMERIC_MONOTONE: Readonly<Record<string, ((x: number) => number) | undefined>> = { floor: Math.floor, ceil: Math.ceil, sqrt: Math.sqrt, ln: Math.log, log10: Math.log10, log2: Math.log2, exp: Math.exp, sign: Math.sign };

/**
 * The interval of greatest (`max`) or least of arguments that skip NULLs (as DuckDB): an
 * argument known to be NULL takes no part; one that may be NULL may leave the others alone,
 * so only the arguments certainly not NULL raise greatest's lower end (lower least's upper
 * end); NULL is possible only when every argument may be NULL.
 */
function extremumInterval(max: boolean, args: readonly IntervalCell[]): Interval {
  const live = args.filter((a) => !(a.label === 'exact' && a.interval!.mayBeNull === true)).map((a) => a.interval!);
  const sure = live.filter((x) => x.mayBeNull !== true);
  const los = live.map((x) => x.lo ?? -Infinity);
  const his = live.map((x) => x.hi ?? Infinity);
  const lo = max ? (sure.length > 0 ? Math.max(...sure.map((x) => x.lo ?? -Infinity)) : Math.min(...los)) : Math.min(...los);
  const hi = max ? Math.max(...his) : sure.length > 0 ? Math.min(...sure.map((x) => x.hi ?? Infinity)) : Math.max(...his);
  return { lo: Number.isFinite(lo) ? lo : null, hi: Number.isFinite(hi) ? hi : null, ...(sure.length === 0 ? { mayBeNull: true } : {}) };
}

/**
 * Label and interval of a post-aggregation expression in one group, by interval arithmetic
 * over its inputs' cells (src/merge/interval.ts): exact inputs give an exact value; bounded
 * inputs a sound bounded interval; any approximate input an approximate output. Operations
 * without an interval rule (string functions of uncertain inputs, ...) give an approximate,
 * unbounded cell. Comparisons the intervals decide are exact.
 */
function intervalOf(e: OutExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null, win: WindowCells): IntervalCell {
  const value = (x: OutExpr): Scalar => evaluate(x, g, layout);
  if (e.kind === 'key' || e.kind === 'lit') return exactCell(value(e));
  // A window value reads other groups: exact only when every group of the answer is (nothing
  // relevant missing, the row set proven); else bounded where win.bound derives an interval,
  // otherwise approximate, without one.
  if (e.kind === 'window') {
    if (win.exact) return exactCell(value(e));
    const iv = win.bound(e, g);
    return iv === null ? { label: 'approximate', interval: { lo: null, hi: null, mayBeNull: true } } : { label: 'bounded', interval: iv };
  }
  if (e.kind === 'agg') {
    const c = cellFor(e, g, layout, env);
    const v = value(e);
    if (c === null) return exactCell(v);
    const end = (x: Scalar | undefined, isLo: boolean): number | null => {
      if (x === null || x === undefined) return null;
      if (typeof x === 'bigint') {
        const p = bigPoint(x);
        return isLo ? p.lo : p.hi;
      }
      return typeof x === 'number' ? x : null;
    };
    // More rows never make a non-NULL aggregate NULL: only a value still NULL may stay NULL.
    return { label: c.label, interval: { lo: end(c.lo, true), hi: end(c.hi, false), ...(v === null ? { mayBeNull: true } : {}) } };
  }
  const kids = nodeChildren(e).map((k) => intervalOf(k, g, layout, env, win));
  const label = labelOf(kids);
  if (label === 'exact') {
    try {
      return exactCell(value(e));
    } catch (err) {
      // A part of a CASE branch not taken (CASE WHEN s LIKE '__/%' THEN strptime(s, ...) END):
      // its value is never needed, and refusing it would refuse what DuckDB answers. Where the
      // value is needed, the answer's own evaluation raises the error.
      if (err instanceof CanopyError && err.code === 'CANOPY_ERR_OUT_OF_RANGE') return { label, interval: { lo: null, hi: null, mayBeNull: true } };
      throw err;
    }
  }
  const iv = (i: number): Interval | null => kids[i]?.interval ?? null;
  const tr = (i: number): TruthRange | undefined => kids[i]?.truth;
  const unknown: IntervalCell = { label: 'approximate', interval: { lo: null, hi: null, mayBeNull: true } };
  switch (e.kind) {
    case 'arith': {
      const a = iv(0);
      const b = iv(1);
      if (a === null || b === null) return unknown;
      const out = arithInterval(e.op, a, b);
      const zero = (e.op === '/' || e.op === '//' || e.op === '%') && (b.lo ?? -1) <= 0 && (b.hi ?? 1) >= 0;
      return zero ? { label, interval: out, note: 'the divisor interval holds 0: unbounded' } : { label, interval: out };
    }
    case 'neg':
      return iv(0) === null ? unknown : { label, interval: negInterval(iv(0)!) };
    case 'cast':
      // TRY_CAST is NULL where the value does not convert: no interval from the argument's.
      if (e.try) return unknown;
      if (e.type === 'float64' || e.type === 'int64') return iv(0) === null ? unknown : { label, interval: e.type === 'int64' ? monotoneInterval(iv(0)!, (x) => Math.sign(x) * Math.round(Math.abs(x)), true) : iv(0)! };
      return unknown;
    case 'call': {
      const a = iv(0);
      if (a === null) return unknown;
      if (e.fn === 'abs') return { label, interval: absInterval(a) };
      if (e.fn === 'round') {
        const d = e.args.length > 1 ? Number(value(e.args[1]!)) : 0;
        // Rounding to tens and beyond maps ±Infinity and NaN to 0 (DuckDB), so it is monotone only over finite values.
        if (d < 0 && !(Number.isFinite(a.lo ?? NaN) && Number.isFinite(a.hi ?? NaN) && a.lo! > -1e307 && a.hi! < 1e307)) return unknown;
        return { label, interval: monotoneInterval(a, (x) => roundDouble(x, d)) };
      }
      const f = NUMERIC_MONOTONE[e.fn];
      if (f !== undefined && (e.fn !== 'sqrt' || (a.lo ?? -1) >= 0) && (!e.fn.startsWith('ln') && !e.fn.startsWith('log') || (a.lo ?? 0) > 0)) return { label, interval: monotoneInterval(a, f, e.fn === 'floor' || e.fn === 'ceil' || e.fn === 'sign') };
      if ((e.fn === 'greatest' || e.fn === 'least' || e.fn === 'coalesce') && kids.every((k) => k.interval !== null)) {
        const ivs = kids.map((k) => k.interval!);
        if (e.fn === 'coalesce') return { label, interval: ivs.reduce(hull) };
        return { label, interval: extremumInterval(e.fn === 'greatest', kids) };
      }
      return unknown;
    }
    case 'cmp': {
      const a = iv(0);
      const b = iv(1);
      if (a === null || b === null) return unknown;
      return truthCell(compareIntervals(e.op, a, b), label);
    }
    case 'between': {
      const [a, l, h] = [iv(0), iv(1), iv(2)];
      if (a === null || l === null || h === null) return unknown;
      const t = logicTruth('and', [compareIntervals('>=', a, l), compareIntervals('<=', a, h)]);
      return truthCell(e.negated ? logicTruth('not', [t]) : t, label);
    }
    case 'and':
    case 'or':
    case 'not': {
      const ts = kids.map((k) => k.truth);
      if (ts.some((t) => t === undefined)) return unknown;
      return truthCell(logicTruth(e.kind, ts as TruthRange[]), label);
    }
    case 'case': {
      if (e.operand !== null) return unknown;
      const out: IntervalCell[] = [];
      let k = 0;
      for (; k < e.whens.length; k++) {
        const t = tr(k * 2);
        if (t === undefined) return unknown;
        if (t.maybeTrue) out.push(kids[k * 2 + 1]!);
        if (!t.maybeFalse && !t.maybeNull) break; // certainly taken: later branches cannot be
      }
      if (k === e.whens.length) out.push(e.else === null ? exactCell(null) : kids[kids.length - 1]!);
      if (out.length === 1) return out[0]!;
      if (out.some((c) => c.interval === null)) return unknown;
      return { label: labelOf([...out, { label, interval: null }]), interval: out.map((c) => c.interval!).reduce(hull) };
    }
    case 'isnull': {
      const a = kids[0]!;
      const maybeNull = a.interval?.mayBeNull === true || a.truth?.maybeNull === true;
      return truthCell({ maybeTrue: e.negated ? true : maybeNull, maybeFalse: e.negated ? maybeNull : true, maybeNull: false }, label);
    }
    default:
      return unknown;
  }
}

/**
 * How window values (QueryPlan.windows) are labelled in one answer: `exact` when every group is
 * there and exact; otherwise `bound` gives a guaranteed interval of one group's window value,
 * or null when none is derived (the cell is then approximate).
 */
interface WindowCells {
  readonly exact: boolean;
  readonly bound: (w: WindowNode, g: GroupEntry) => Interval | null;
}

const EXACT_WINDOWS: WindowCells = { exact: true, bound: () => null };

/**
 * The interval of a window value `sum(count(...)) OVER (PARTITION BY ...)` (the total behind a
 * "percent of total") of group `g` when shards are missing: its value counts the rows seen in
 * the partition, and the complete total adds at most the rows of the `relevant` missing shards
 * whose zone maps allow the partition's keys (every count only grows). Only without HAVING
 * (which could drop or keep groups on uncertain values) and grouping sets; null otherwise, or
 * beyond 2^53.
 */
function countTotalBound(plan: QueryPlan, relevant: readonly ShardInfo[], w: WindowNode, g: GroupEntry): Interval | null {
  if (plan.having !== null || plan.groupingSets !== undefined || w.fn !== 'sum' || w.arg === null || w.arg.kind !== 'agg' || w.arg.fn !== 'count') return null;
  const v = g.windows?.[w.slot];
  if (typeof v !== 'bigint' || v < 0n || v > BigInt(Number.MAX_SAFE_INTEGER)) return null;
  const specs = w.partition.map((k) => plan.scan.groupBy[k]!);
  const keys = w.partition.map((k) => g.keys[k] ?? null);
  let extra = 0;
  for (const s of relevant) if (mayHoldGroup(specs, keys, s)) extra += s.rows;
  const hi = Number(v) + extra;
  return Number.isSafeInteger(hi) ? { lo: Number(v), hi } : { lo: Number(v), hi: null };
}

/** The cell of one output expression: aggregates by their rule, expressions over them by {@link intervalOf}. */
function outputCell(e: OutExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null, win: WindowCells = EXACT_WINDOWS): Cell | null {
  if (e.kind === 'agg') return cellFor(e, g, layout, env);
  if (e.kind === 'key' || e.kind === 'lit') return null;
  const c = intervalOf(e, g, layout, env, win);
  if (c.label === 'exact') return null;
  const type = 'type' in e ? e.type : 'bool';
  if (c.truth !== undefined) return { label: c.label, lo: c.truth.maybeFalse ? false : c.truth.maybeTrue, hi: c.truth.maybeTrue ? true : false };
  const iv = c.interval;
  const int = type === 'int64' || type === 'int128';
  const end = (x: number | null | undefined, isLo: boolean): Scalar => (x === null || x === undefined ? null : int ? BigInt(isLo ? Math.floor(x) : Math.ceil(x)) : x);
  return { label: c.label, lo: end(iv?.lo, true), hi: end(iv?.hi, false), ...(c.note === undefined ? {} : { note: c.note }) };
}

/**
 * With every shard answered, is the row set proven although HAVING, or ORDER BY with a
 * LIMIT that cut rows, reads sketch aggregates? Only when those are exact in every group,
 * including the groups left out, which needs `all`.
 */
function sketchRowSetProven(plan: QueryPlan, layout: PartialLayout, rows: readonly GroupEntry[], all: readonly GroupEntry[] | undefined): boolean {
  const cut = plan.scan.groupBy.length > 0 && (((plan.offset ?? 0) > 0) || (plan.limit !== null && plan.limit > 0 && rows.length >= plan.limit));
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
  const columns = partialColumns(plan.scan.partials);
  // The row set is proven when nothing relevant is missing, or, without GROUP BY, always
  // (one row) unless HAVING could flip on an uncertain value: its truth over the one group
  // (kept or dropped by HAVING: `all`) must be decided, from the missing shards' envelope too.
  let rowsComplete = relevant.length === 0 && sketchRowSetProven(plan, layout, rows, all);
  if (!rowsComplete && relevant.length > 0 && plan.scan.groupBy.length === 0) {
    const one = rows[0] ?? all?.[0];
    rowsComplete = plan.having === null || (one !== undefined && outputCell(plan.having, one, layout, envelope(relevant, columns)) === null);
  }
  // Window values read every group: exact only when every group is there and exact.
  const win: WindowCells = { exact: relevant.length === 0 && rowsComplete, bound: (w, g) => countTotalBound(plan, relevant, w, g) };
  let label: CellLabel = 'exact';
  const outCells = rows.map((g) => {
    // A grouping set's group may come from any value of a key the set leaves out.
    const set = groupedKeysOf(plan, g);
    const mine = relevant.filter((s) => (set === null ? mayHoldGroup(plan.scan.groupBy, g.keys, s) : mayHoldGroup(set.map((k) => plan.scan.groupBy[k]!), set.map((k) => g.keys[k] ?? null), s)));
    const env = mine.length === 0 ? null : envelope(mine, columns);
    return plan.output.map((c) => {
      const cell = outputCell(c.expr, g, layout, env, win);
      if (cell !== null) label = weakest(label, cell.label);
      return cell;
    });
  });
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
  const nullsFirst = lead.nullsFirst === true;
  return relevant.every((s) => {
    const r = keyRange(expr, s);
    // NULLs sort last by default, after a non-NULL k-th row: an all-NULL lead column cannot
    // matter. With NULLS FIRST they sort before it: a shard holding any NULL can.
    if (r === 'all-null') return !nullsFirst || s.rows === 0;
    if (r === null || typeof r.min !== typeof k) return false;
    if (nullsFirst && r.nulls > 0) return false;
    return lead.desc ? compareValues(r.max, k) < 0 : compareValues(r.min, k) > 0;
  });
}

/**
 * True when shard `s` provably leaves a MIN or MAX state of `col` at `v` unchanged: its values
 * of `col` are all NULL, or its min (max) is not below (above) `v`. False when unknown.
 */
function extremeUnchanged(kind: 'min' | 'max', v: Scalar, col: string, s: ShardInfo): boolean {
  const r = keyRange({ kind: 'col', name: col }, s);
  if (r === 'all-null') return true;
  if (v === null || r === null || typeof r.min !== (typeof v === 'bigint' ? 'number' : typeof v)) return false;
  const x = typeof v === 'bigint' ? Number(v) : v;
  if (typeof x === 'number' && Math.abs(x) >= 2 ** 53) return false;
  if (zeroMayWin(kind === 'min', v, kind === 'min' ? r.min : r.max)) return false;
  return kind === 'min' ? compareValues(x, r.min) <= 0 : compareValues(x, r.max) >= 0;
}

/**
 * True when shard `s` provably leaves a group's partial state (`value`: its finalised value)
 * unchanged even if it holds rows of the group: every kind but COUNT(*) ignores NULLs, so a
 * column that is all NULL in `s` changes nothing; MIN/MAX also not when `s` cannot beat them.
 */
function stateUnchanged(p: PartialSpec, value: Scalar, s: ShardInfo): boolean {
  const col = argColumn(p.arg);
  if (p.kind === 'count_star' || col === null) return false;
  if (keyRange({ kind: 'col', name: col }, s) === 'all-null') return true;
  return (p.kind === 'min' || p.kind === 'max') && extremeUnchanged(p.kind, value, col, s);
}

/**
 * The best score (sign × value of the ordering aggregate) any group can take from shard `s`'s
 * rows alone: -Infinity when its column is all NULL, null when unknown (no statistics, not a
 * number, or beyond 2^53 where catalog numbers may be rounded).
 */
function bestScoreIn(col: string, sign: 1 | -1, s: ShardInfo): number | null {
  const r = keyRange({ kind: 'col', name: col }, s);
  if (r === 'all-null') return -Infinity;
  if (r === null || typeof r.min !== 'number' || typeof r.max !== 'number') return null;
  const v = sign === 1 ? r.max : r.min;
  return Math.abs(v) >= 2 ** 53 ? null : sign * v;
}

/**
 * Group top-k early termination (see {@link outstandingIrrelevant}). Threshold algorithm
 * (Fagin, Lotem and Naor, "Optimal aggregation algorithms for middleware", JCSS 66(4), 2003):
 * stop once the k-th best grade seen is at least the best grade the unseen objects can still
 * reach, where an outstanding shard's catalog min/max stands in for its next sorted access.
 */
function topKOutstandingIrrelevant(scan: ScanPlan, layout: PartialLayout, merged: Partial, relevant: readonly ShardInfo[], unseen: number): boolean {
  const spec = scan.topk;
  const col = spec === undefined ? null : argColumn(scan.partials[spec.partial]!.arg);
  if (spec === undefined || spec.combine !== 'max' || col === null || merged.type === 'rows') return false;
  const scored = groupEntriesOf(merged).map((e) => ({ e, key: groupKeyString(e.keys), lo: scoreOf(layout, spec, e.states[spec.partial]) }));
  if (scored.length < spec.fetch) return false;
  // Exactly k' groups and none unseen below: this node would report every group it holds with
  // the bound -Infinity ("there are no others"), which only waiting can confirm.
  if (scored.length === spec.fetch && unseen === -Infinity) return false;
  // The order truncateTopK reports in: the top k' are exactly the groups this node sends.
  scored.sort((a, b) => b.lo - a.lo || compareStrings(a.key, b.key));
  const top = scored.slice(0, spec.fetch);
  const threshold = top[top.length - 1]!.lo;
  if (!Number.isFinite(threshold)) return false;
  return relevant.every((s) => {
    const best = bestScoreIn(col, spec.sign, s);
    // Strictly below: a group lifted to equal the k'-th score could win the tie on its key.
    if (best === null || !(best < threshold)) return false;
    return top.every(({ e }) => !mayHoldGroup(scan.groupBy, e.keys, s) || scan.partials.every((p, i) => stateUnchanged(p, layout.kinds[i]!.finalise(e.states[i]), s)));
  });
}

/**
 * Early termination: true when the shards still outstanding provably cannot change the
 * merged answer of this node, so the gather may stop and cancel them (their shards are then
 * reported as pruned, with the early-termination message). Outstanding shards whose zone
 * maps exclude the WHERE clause never matter. Otherwise:
 * - row top-k: by the k-th row against their sort-key ranges;
 * - a row query without ORDER BY: as soon as `limit` rows (OFFSET + LIMIT) are in hand, since
 *   SQL makes any such rows the answer;
 * - an aggregate without GROUP BY made only of MIN and MAX: by each extreme against their
 *   min/max;
 * - group top-k whose scores combine by maximum (MAX DESC, MIN ASC; `scan.topk.combine ===
 *   'max'`): with T the k'-th best score merged so far (k' = `topk.fetch`, finite), every
 *   outstanding shard's best score from the catalog (its max, or -min for MIN ASC; -Infinity
 *   when the column is all NULL there) must be strictly below T, so no group can reach the
 *   k' reported ones and none of their ordering values moves; and each of those k' groups
 *   must keep every partial state: the shard cannot hold its keys (key zone maps), or every
 *   partial ignores it (MIN/MAX it cannot beat, a column all NULL in the shard; COUNT(*),
 *   and COUNT/SUM/sketches over non-NULL values, always change). Valid only when k' is at
 *   least the query's LIMIT k (then the root's k-th score is at least T at every level of
 *   the tree): the root sends shard statistics, which this needs, only then. Also only when
 *   the node's frame bounds groups it does not report anyway (it holds more than k' groups,
 *   or `topkUnseen`, its children's bound on groups they did not report, is finite);
 *   {@link skippedTopKBound} then extends that bound over the stopped shards.
 * - group top-k whose scores add up (COUNT DESC, SUM over one sign): never. An outstanding
 *   shard with a matching row changes the count or sum of some group, and a node's frame must
 *   carry the bound on the groups it did not report, which depends on what that shard holds:
 *   stopping would turn exact cells or a proven row set into bounded ones. The threshold
 *   test for sums needs the global k-th score, known only at the root.
 * Anything else: false. Pure.
 * @param merged the node's merged partial of the children that have answered
 * @param outstanding catalog entries of the shards not settled yet
 * @param topkUnseen group top-k: the bound on groups the answered children did not report
 *   (TopKTracker.unseen; -Infinity when none)
 */
export function outstandingIrrelevant(scan: ScanPlan, layout: PartialLayout, merged: Partial, outstanding: readonly ShardInfo[], topkUnseen = -Infinity): boolean {
  if (outstanding.length === 0) return false;
  if (scan.rows !== null) {
    if (scan.rows.limit === 0) return true;
    if (merged.type !== 'rows' || merged.rows.length < scan.rows.limit) return rowShardsIrrelevant(scan, outstanding, undefined);
    const lead = scan.rows.orderBy[0];
    // Without ORDER BY any `limit` rows that satisfy the WHERE clause are the answer (SQL
    // leaves their order and choice open): once that many are in hand, the rest cannot matter.
    if (lead === undefined) return true;
    return rowShardsIrrelevant(scan, outstanding, merged.rows[scan.rows.limit - 1]![lead.column]);
  }
  const relevant = outstanding.filter((s) => shardMayMatch(scan.filter, s));
  if (relevant.length === 0) return true;
  if (scan.topk !== undefined) return topKOutstandingIrrelevant(scan, layout, merged, relevant, topkUnseen);
  if (scan.groupBy.length > 0 || merged.type === 'rows' || scan.partials.some((p) => p.kind !== 'min' && p.kind !== 'max')) return false;
  const g = groupEntriesOf(merged)[0];
  if (g === undefined) return false;
  return scan.partials.every((p, i) => {
    const v = layout.kinds[i]!.finalise(g.states[i]);
    const col = argColumn(p.arg);
    return col !== null && relevant.every((s) => extremeUnchanged(p.kind as 'min' | 'max', v, col, s));
  });
}

/**
 * Group top-k: an upper bound on the score (sign × value of the ordering aggregate) of any
 * group in `shards` alone, for the frame of a node that stopped early without them, so that
 * the bound it reports on groups it did not report stays true. -Infinity when none of them
 * can match the WHERE clause; otherwise their largest catalog score (MAX DESC: max; MIN ASC:
 * -min), at least -Number.MAX_VALUE (finite: groups may exist there); +Infinity when unknown
 * or the scores add up. -Infinity for plans without group top-k.
 */
export function skippedTopKBound(scan: ScanPlan, shards: readonly ShardInfo[]): number {
  const spec = scan.topk;
  const relevant = shards.filter((s) => shardMayMatch(scan.filter, s));
  if (spec === undefined || relevant.length === 0) return -Infinity;
  const col = argColumn(scan.partials[spec.partial]!.arg);
  if (spec.combine !== 'max' || col === null) return Infinity;
  let bound = -Number.MAX_VALUE;
  for (const s of relevant) bound = Math.max(bound, bestScoreIn(col, spec.sign, s) ?? Infinity);
  return bound;
}
