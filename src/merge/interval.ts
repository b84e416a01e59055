/**
 * Interval arithmetic for post-aggregation expressions (pure): given an interval that holds
 * each input's true value, an interval that holds the output's true value. Sound: every
 * double operation is widened outward by one rounding error (|x|·2^-52, plus the smallest
 * subnormal), so an interval computed in doubles still holds the exact real result; a
 * division by an interval that contains zero is unbounded (`lo`/`hi` null). NULLs follow SQL:
 * an input that may be NULL is marked `mayBeNull`, and NULL in gives NULL out. An end at
 * ±Infinity (or unbounded) is a value a double can take, and a NaN end says the value may be
 * NaN (above every number in SQL's order): 0 × ∞ and ∞ / ∞ are NaN, NaN in gives NaN out, so
 * such results are unbounded, and a comparison with a NaN end is not decided.
 * Source: R. E. Moore, "Interval Analysis" (1966); outward rounding as in IEEE 1788-2015.
 */
import type { ArithOp, CmpOp } from './types.ts';

/** A closed interval of reals; `null` ends are unbounded (-∞ for lo, +∞ for hi). */
export interface Interval {
  readonly lo: number | null;
  readonly hi: number | null;
  /** The true value may be NULL (then no bound applies to it). */
  readonly mayBeNull?: boolean;
}

/** Truth of a comparison of intervals: which outcomes are possible. */
export interface TruthRange {
  readonly maybeTrue: boolean;
  readonly maybeFalse: boolean;
  readonly maybeNull: boolean;
}

const down = (x: number): number => (Number.isFinite(x) ? x - Math.abs(x) * Number.EPSILON - Number.MIN_VALUE : x);
const up = (x: number): number => (Number.isFinite(x) ? x + Math.abs(x) * Number.EPSILON + Number.MIN_VALUE : x);
const lo = (i: Interval): number => i.lo ?? -Infinity;
const hi = (i: Interval): number => i.hi ?? Infinity;
/** The value may be NaN (an end is NaN: no interval of reals holds it). */
const nanIn = (i: Interval): boolean => Number.isNaN(i.lo) || Number.isNaN(i.hi);
const finite = (i: Interval): boolean => Number.isFinite(lo(i)) && Number.isFinite(hi(i));

function make(l: number, h: number, mayBeNull: boolean): Interval {
  const out = { lo: Number.isNaN(l) || l === -Infinity ? null : l, hi: Number.isNaN(h) || h === Infinity ? null : h };
  return mayBeNull ? { ...out, mayBeNull } : out;
}

/** The exact point interval of a value. */
export function point(x: number): Interval {
  return { lo: x, hi: x };
}

/**
 * `a op b` over intervals. `%` and `//` are bounded by |b|'s range and a's sign (or unbounded).
 * @returns the interval of the result; division by an interval containing 0 is unbounded
 */
export function arithInterval(op: ArithOp, a: Interval, b: Interval): Interval {
  const n = a.mayBeNull === true || b.mayBeNull === true;
  if (nanIn(a) || nanIn(b)) return make(-Infinity, Infinity, n);
  switch (op) {
    case '+':
      return make(down(lo(a) + lo(b)), up(hi(a) + hi(b)), n);
    case '-':
      return make(down(lo(a) - hi(b)), up(hi(a) - lo(b)), n);
    case '*': {
      const p = [lo(a) * lo(b), lo(a) * hi(b), hi(a) * lo(b), hi(a) * hi(b)];
      // 0 × ±∞ (an infinite value times a zero) is NaN.
      if (p.some((x) => Number.isNaN(x))) return make(-Infinity, Infinity, n);
      return make(down(Math.min(...p)), up(Math.max(...p)), n);
    }
    case '/':
    case '//': {
      if (lo(b) <= 0 && hi(b) >= 0) return make(-Infinity, Infinity, n || op === '//');
      const q = [lo(a) / lo(b), lo(a) / hi(b), hi(a) / lo(b), hi(a) / hi(b)];
      // ±∞ / ±∞ is NaN.
      if (q.some((x) => Number.isNaN(x))) return make(-Infinity, Infinity, n || op === '//');
      const l = down(Math.min(...q));
      const h = up(Math.max(...q));
      return op === '/' ? make(l, h, n) : make(Math.trunc(l) - (l < 0 ? 1 : 0), Math.trunc(h) + (h > 0 ? 1 : 0), n);
    }
    case '%': {
      // ±∞ % b is NaN.
      if (!finite(a)) return make(-Infinity, Infinity, n);
      const m = Math.max(Math.abs(lo(b)), Math.abs(hi(b)));
      const canZeroDivide = lo(b) <= 0 && hi(b) >= 0;
      const l = lo(a) >= 0 ? 0 : -m;
      const h = hi(a) <= 0 ? 0 : m;
      return make(Math.max(l, lo(a) >= 0 ? 0 : lo(a)), Math.min(h, hi(a) <= 0 ? 0 : hi(a)), n || canZeroDivide);
    }
  }
}

/** -a over an interval. */
export function negInterval(a: Interval): Interval {
  if (nanIn(a)) return make(-Infinity, Infinity, a.mayBeNull === true);
  return make(-hi(a), -lo(a), a.mayBeNull === true);
}

/** A monotone non-decreasing function applied to both ends, widened outward (exact functions: `exact`). */
export function monotoneInterval(a: Interval, f: (x: number) => number, exact = false): Interval {
  const l = f(lo(a));
  const h = f(hi(a));
  return make(exact ? l : down(l), exact ? h : up(h), a.mayBeNull === true);
}

/** |a|. */
export function absInterval(a: Interval): Interval {
  if (lo(a) >= 0) return a;
  if (hi(a) <= 0) return negInterval(a);
  return make(0, Math.max(-lo(a), hi(a)), a.mayBeNull === true);
}

/** The smallest interval holding both. */
export function hull(a: Interval, b: Interval): Interval {
  return make(Math.min(lo(a), lo(b)), Math.max(hi(a), hi(b)), a.mayBeNull === true || b.mayBeNull === true);
}

/** Which truths `a op b` can take when a and b lie in their intervals. */
export function compareIntervals(op: CmpOp, a: Interval, b: Interval): TruthRange {
  const maybeNull = a.mayBeNull === true || b.mayBeNull === true;
  if (nanIn(a) || nanIn(b)) return { maybeTrue: true, maybeFalse: true, maybeNull };
  const lt = lo(a) < hi(b); // a < b possible
  const gt = hi(a) > lo(b); // a > b possible
  const eq = lo(a) <= hi(b) && lo(b) <= hi(a); // a = b possible
  const onlyEq = lo(a) === hi(a) && lo(b) === hi(b) && lo(a) === lo(b);
  let t: boolean;
  let f: boolean;
  switch (op) {
    case '=':
      t = eq;
      f = !onlyEq;
      break;
    case '!=':
      t = !onlyEq;
      f = eq;
      break;
    case '<':
      t = lt;
      f = gt || eq;
      break;
    case '<=':
      t = lt || eq;
      f = gt;
      break;
    case '>':
      t = gt;
      f = lt || eq;
      break;
    case '>=':
      t = gt || eq;
      f = lt;
      break;
  }
  return { maybeTrue: t, maybeFalse: f, maybeNull };
}

/** True when `x` (not NULL) lies in the interval. */
export function contains(i: Interval, x: number): boolean {
  return Number.isNaN(x) ? i.lo === null || i.hi === null : lo(i) <= x && x <= hi(i);
}

/** Label and interval of one post-aggregation value. */
export interface IntervalCell {
  readonly label: 'exact' | 'bounded' | 'approximate';
  /** Numeric values: the interval holding the truth; null for non-numeric values. */
  readonly interval: Interval | null;
  /** Booleans: the truths possible. */
  readonly truth?: TruthRange;
  /** Why the interval is unbounded, when an operation made it so. */
  readonly note?: string;
}

type Label = IntervalCell['label'];
const RANK: Record<Label, number> = { exact: 0, bounded: 1, approximate: 2 };
const weaker = (a: Label, b: Label): Label => (RANK[a] >= RANK[b] ? a : b);

/** The exact cell of a known value. */
export function exactCell(v: unknown): IntervalCell {
  if (typeof v === 'number') return { label: 'exact', interval: point(v) };
  if (typeof v === 'bigint') return { label: 'exact', interval: bigPoint(v) };
  if (typeof v === 'boolean') return { label: 'exact', interval: null, truth: { maybeTrue: v, maybeFalse: !v, maybeNull: false } };
  if (v === null) return { label: 'exact', interval: { lo: null, hi: null, mayBeNull: true }, truth: { maybeTrue: false, maybeFalse: false, maybeNull: true } };
  return { label: 'exact', interval: null };
}

/** A bigint as an interval of doubles that holds it (outward when not exact). */
export function bigPoint(v: bigint): Interval {
  const x = Number(v);
  return BigInt(x) === v || !Number.isFinite(x) ? { lo: x, hi: x } : { lo: down(x), hi: up(x) };
}

/** Combines the labels of inputs: approximate in, approximate out. */
export function labelOf(cells: readonly IntervalCell[]): Label {
  return cells.reduce<Label>((l, c) => weaker(l, c.label), 'exact');
}

/** A truth range's cell: decided truths are proven (exact), others bounded by their inputs' label. */
export function truthCell(t: TruthRange, inputs: Label): IntervalCell {
  const decided = [t.maybeTrue, t.maybeFalse, t.maybeNull].filter((x) => x).length === 1;
  return { label: decided ? 'exact' : inputs === 'exact' ? 'bounded' : inputs, interval: null, truth: t };
}

/** AND / OR / NOT over truth ranges (SQL three-valued logic). */
export function logicTruth(kind: 'and' | 'or' | 'not', args: readonly TruthRange[]): TruthRange {
  if (kind === 'not') {
    const a = args[0]!;
    return { maybeTrue: a.maybeFalse, maybeFalse: a.maybeTrue, maybeNull: a.maybeNull };
  }
  if (kind === 'and') {
    return {
      maybeFalse: args.some((a) => a.maybeFalse),
      maybeTrue: args.every((a) => a.maybeTrue),
      maybeNull: args.every((a) => a.maybeTrue || a.maybeNull) && args.some((a) => a.maybeNull),
    };
  }
  return {
    maybeTrue: args.some((a) => a.maybeTrue),
    maybeFalse: args.every((a) => a.maybeFalse),
    maybeNull: args.every((a) => a.maybeFalse || a.maybeNull) && args.some((a) => a.maybeNull),
  };
}
