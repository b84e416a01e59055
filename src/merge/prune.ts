/**
 * Zone-map pruning: decide from a shard's catalog statistics (row count, per-column min,
 * max and null count, and the set index of string columns: their distinct values) whether
 * any of its rows can satisfy a WHERE clause. Conservative: `false` only when no row can
 * match; anything unclear is `true`.
 */
import { compareStrings, compareValues } from './compare.ts';
import { likeRegex } from './scalar.ts';
import { truncMicros } from './time.ts';
import type { CmpOp, ColumnStats, Expr, Scalar, ShardInfo } from './types.ts';

type Range = { readonly min: number | string; readonly max: number | string; readonly nulls: number; readonly rows: number };

const NEGATE: Record<CmpOp, CmpOp> = { '=': '!=', '!=': '=', '<': '>=', '<=': '>', '>': '<=', '>=': '<' };

/**
 * True when some row of the shard may satisfy `filter` (SQL: the predicate is TRUE).
 * A null filter matches every row of a non-empty shard.
 */
export function shardMayMatch(filter: Expr | null, shard: ShardInfo): boolean {
  if (shard.rows === 0) return false;
  return filter === null ? true : may(filter, shard, false);
}

/** The set index of a plain string column (its distinct non-NULL values, sorted); null when absent. */
function valuesOf(e: Expr, shard: ShardInfo): readonly string[] | null {
  return e.kind === 'col' ? (shard.columns[e.name]?.values ?? null) : null;
}

/** Is `v` in the sorted (by code point) `values`? Binary search. */
function holds(values: readonly string[], v: string): boolean {
  let lo = 0;
  let hi = values.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    const c = compareStrings(values[mid]!, v);
    if (c === 0) return true;
    if (c < 0) lo = mid + 1;
    else hi = mid - 1;
  }
  return false;
}

/** An IN list's literals sorted for pruning: numbers (ascending), strings, NULL, and whether any is not comparable. */
interface InList {
  readonly nums: Float64Array;
  readonly numSet: ReadonlySet<number>;
  readonly strs: readonly string[];
  readonly strSet: ReadonlySet<string>;
  readonly hasNull: boolean;
  /** A literal that cannot be compared with statistics safely (a bigint beyond 2^53, a bool): prune nothing. */
  readonly unknown: boolean;
}

/** Per IN node's values (one array per plan), prepared once: pruning 100 shards by a 15,000-value list then costs a binary search each. */
const inLists = new WeakMap<readonly Scalar[], InList>();

function listOf(values: readonly Scalar[]): InList {
  let l = inLists.get(values);
  if (l !== undefined) return l;
  const nums: number[] = [];
  const strs: string[] = [];
  let hasNull = false;
  let unknown = false;
  for (const v of values) {
    const x = litValue({ kind: 'lit', value: v, type: 'null' });
    if (x === 'null-lit') hasNull = true;
    else if (x === null) unknown = true;
    else if (typeof x === 'number') {
      if (x !== x) unknown = true; // NaN: ranges holding NaN are unknown anyway
      else nums.push(x);
    } else strs.push(x);
  }
  const sorted = Float64Array.from(nums).sort();
  l = { nums: sorted, numSet: new Set(nums), strs, strSet: new Set(strs), hasNull, unknown };
  inLists.set(values, l);
  return l;
}

/** Index of the first element of ascending `a` that is >= x (a.length when none). */
function lowerBound(a: Float64Array, x: number): number {
  let lo = 0;
  let hi = a.length;
  while (lo < hi) {
    const mid = (lo + hi) >> 1;
    if (a[mid]! < x) lo = mid + 1;
    else hi = mid;
  }
  return lo;
}

/** Value range of a column, date_trunc(column) or CAST(column AS DATE) (both monotone) over the shard's non-NULL values; null when unknown. */
function rangeOf(e: Expr, shard: ShardInfo): Range | 'all-null' | null {
  if (e.kind === 'col') {
    const s: ColumnStats | undefined = shard.columns[e.name];
    if (s === undefined) return null;
    if (s.nullCount >= shard.rows) return 'all-null';
    if (s.min === null || s.max === null) return null;
    if (typeof s.min === 'number' && (Number.isNaN(s.min) || Number.isNaN(s.max as number))) return null;
    return { min: s.min, max: s.max, nulls: s.nullCount, rows: shard.rows };
  }
  if (e.kind === 'date_trunc') {
    const r = rangeOf(e.arg, shard);
    if (r === null || r === 'all-null' || typeof r.min !== 'number' || typeof r.max !== 'number') return r === 'all-null' ? r : null;
    return { ...r, min: truncMicros(r.min, e.unit), max: truncMicros(r.max, e.unit) };
  }
  if (e.kind === 'cast' && e.type === 'date' && e.from === 'timestamp') {
    // The DATE of a timestamp is its day's midnight: the day of the least and of the greatest.
    const r = rangeOf(e.arg, shard);
    if (r === null || r === 'all-null' || typeof r.min !== 'number' || typeof r.max !== 'number') return r === 'all-null' ? r : null;
    return { ...r, min: truncMicros(r.min, 'day'), max: truncMicros(r.max, 'day') };
  }
  return null;
}

/** A literal as a comparable stats value; null when it cannot be compared safely. */
function litValue(e: Expr): number | string | null | 'null-lit' {
  if (e.kind !== 'lit') return null;
  const v: Scalar = e.value;
  if (v === null) return 'null-lit';
  if (typeof v === 'bigint') return v <= 2n ** 53n && v >= -(2n ** 53n) ? Number(v) : null;
  if (typeof v === 'number' || typeof v === 'string') return v;
  return null;
}

function cmpMay(op: CmpOp, r: Range, c: number | string): boolean {
  if (typeof r.min !== typeof c) return true;
  const lo = compareValues(r.min, c);
  const hi = compareValues(r.max, c);
  switch (op) {
    case '=':
      return lo <= 0 && hi >= 0;
    case '!=':
      return !(lo === 0 && hi === 0);
    case '<':
      return lo < 0;
    case '<=':
      return lo <= 0;
    case '>':
      return hi > 0;
    case '>=':
      return hi >= 0;
  }
}

const FLIP: Record<CmpOp, CmpOp> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/** May the predicate (negated when `neg`) be TRUE for some row? */
function may(e: Expr, shard: ShardInfo, neg: boolean): boolean {
  switch (e.kind) {
    case 'and':
      return neg ? e.args.some((a) => may(a, shard, true)) : e.args.every((a) => may(a, shard, false));
    case 'or':
      return neg ? e.args.every((a) => may(a, shard, true)) : e.args.some((a) => may(a, shard, false));
    case 'not':
      return may(e.arg, shard, !neg);
    case 'isnull': {
      const r = rangeOf(e.arg, shard);
      if (r === null) return true;
      const wantNull = e.negated === neg; // IS NULL (not negated) or NOT (IS NOT NULL)
      if (r === 'all-null') return wantNull;
      return wantNull ? r.nulls > 0 : r.nulls < r.rows;
    }
    case 'cmp': {
      let { left, right } = e;
      let op = e.op;
      if (left.kind === 'lit' && right.kind !== 'lit') {
        [left, right] = [right, left];
        op = FLIP[op];
      }
      const c = litValue(right);
      if (c === 'null-lit') return false; // comparison with NULL is never TRUE, negated or not
      const r = rangeOf(left, shard);
      if (r === 'all-null') return false;
      if (r === null || c === null) return true;
      const effective = neg ? NEGATE[op] : op;
      const values = typeof c === 'string' && (effective === '=' || effective === '!=') ? valuesOf(left, shard) : null;
      if (values !== null) return effective === '=' ? holds(values, c as string) : values.some((v) => v !== c);
      return cmpMay(effective, r, c);
    }
    case 'in': {
      const r = rangeOf(e.arg, shard);
      if (r === 'all-null') return false;
      if (r === null) return true;
      const list = listOf(e.values);
      const negated = e.negated !== neg;
      const set = valuesOf(e.arg, shard);
      if (!negated) {
        if (list.unknown) return true;
        if (set !== null && list.nums.length === 0) {
          // Walk the smaller side: the list's strings against the shard's sorted set, or the reverse.
          return list.strs.length <= set.length ? list.strs.some((v) => holds(set, v)) : set.some((v) => list.strSet.has(v));
        }
        if (list.strs.length > 0 && typeof r.min !== 'string') return true;
        if (typeof r.min === 'number' && typeof r.max === 'number') {
          // The first listed number >= the shard's min must not be above its max.
          const at = lowerBound(list.nums, r.min);
          return at < list.nums.length && list.nums[at]! <= r.max;
        }
        return list.strs.some((v) => cmpMay('=', r, v)) || list.nums.length > 0;
      }
      // NOT IN: FALSE/NULL for every row only if every row equals a listed value, or the list holds NULL.
      if (list.hasNull) return false;
      if (set !== null && list.nums.length === 0 && !list.unknown) return set.some((v) => !list.strSet.has(v));
      return !(r.min === r.max && (typeof r.min === 'string' ? list.strSet.has(r.min) : list.numSet.has(r.min)));
    }
    case 'between': {
      const r = rangeOf(e.arg, shard);
      if (r === 'all-null') return false;
      const lo = litValue(e.lo);
      const hi = litValue(e.hi);
      if (r === null || lo === null || hi === null || lo === 'null-lit' || hi === 'null-lit') return true;
      if (e.negated !== neg) return cmpMay('<', r, lo) || cmpMay('>', r, hi);
      return cmpMay('>=', r, lo) && cmpMay('<=', r, hi);
    }
    case 'like': {
      // [NOT] LIKE with a literal pattern over a column with a set index: some held value
      // must (not) match; NULL rows never make it TRUE.
      const set = valuesOf(e.arg, shard);
      if (set === null || e.pattern.kind !== 'lit' || typeof e.pattern.value !== 'string') return true;
      const re = likeRegex(e.pattern.value, e.caseInsensitive, e.escape);
      const want = e.negated === neg;
      return set.some((v) => re.test(v) === want);
    }
    case 'lit':
      return neg ? e.value === false : e.value === true;
    default:
      return true;
  }
}
