/**
 * Statistics of the missing shards that may hold a group (their zone maps summed), from
 * which each aggregate bounds what they could still add (src/merge/bounds.ts builds it).
 */
import { compareValues } from '../compare.ts';
import type { Expr, PartialSpec, ShardInfo } from '../types.ts';

/**
 * Per argument column: non-NULL rows, min and max, and a guaranteed interval of the sum
 * of the missing shards' values. `unknown`: some shard lacks statistics for some column.
 */
export interface Envelope {
  rows: number;
  nonNull: Map<string, number>;
  min: Map<string, number | string>;
  max: Map<string, number | string>;
  sumLo: Map<string, number>;
  sumHi: Map<string, number>;
  unknown: boolean;
}

/** Outward widening that covers the rounding of one double operation (none for exact integers). */
export function slack(x: number): number {
  return Number.isSafeInteger(x) ? 0 : Math.abs(x) * 4 * Number.EPSILON;
}

/**
 * Outward widening of a bound computed in doubles from `x` and a double `from` that may
 * itself be a rounding of an exact value (a float SUM's seen value: the exact sum rounded
 * once, so 1 - 1e-17 reads as the safe integer 1): a few roundings relative to the larger
 * magnitude, whether or not the result is an integer, and the least subnormal near 0
 * (a quotient that underflows).
 */
export function floatSlack(x: number, from = 0): number {
  const m = Math.max(Math.abs(x), Math.abs(from));
  return m * 4 * Number.EPSILON + (m !== 0 && m < 2 ** -1021 ? Number.MIN_VALUE : 0);
}

/**
 * a + b moved down (`up`: up) past the rounding of the addition, which a term's own slack
 * does not cover once the running sum is far larger (-1023 added to -1.8e19 rounds away);
 * exact for safe integers with a safe sum.
 */
function addOutward(a: number, b: number, up: boolean): number {
  const s = a + b;
  if (Number.isSafeInteger(a) && Number.isSafeInteger(b) && Number.isSafeInteger(s)) return s;
  return up ? s + floatSlack(s) : s - floatSlack(s);
}

/**
 * The column an argument reads when it is a plain column reference, else null: an
 * expression has no catalog statistics, so aggregates over it bound honestly without
 * (approximate or unbounded, never an interval the statistics do not prove).
 */
export function argColumn(e: Expr | null | undefined): string | null {
  return e !== null && e !== undefined && e.kind === 'col' ? e.name : null;
}

/** The plain columns read by a plan's partials, arguments and arg_min/arg_max's ordering values (see {@link argColumn}). */
export function partialColumns(partials: readonly PartialSpec[]): string[] {
  return [...new Set(partials.flatMap((p) => [argColumn(p.arg), argColumn(p.by)]).filter((a): a is string => a !== null))];
}

/** The envelope of `shards` over `columns`. */
export function envelope(shards: readonly ShardInfo[], columns: readonly string[]): Envelope {
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
      if (mn === undefined || compareValues(st.min, mn) < 0) env.min.set(c, st.min);
      if (mx === undefined || compareValues(st.max, mx) > 0) env.max.set(c, st.max);
      if (typeof st.min === 'number' && typeof st.max === 'number') {
        const lo = Math.min(0, nn * st.min);
        const hi = Math.max(0, nn * st.max);
        env.sumLo.set(c, addOutward(env.sumLo.get(c) ?? 0, lo - slack(lo), false));
        env.sumHi.set(c, addOutward(env.sumHi.get(c) ?? 0, hi + slack(hi), true));
      }
    }
  }
  return env;
}

/** True when the envelope holds missing rows at all. */
export function anyMissing(env: Envelope | null): env is Envelope {
  return env !== null && env.rows > 0;
}

/**
 * Non-NULL values of an argument the missing shards may hold: the column's count, the row
 * count for an expression (at most every row), or `fallback` when the column has no entry.
 */
export function missingValues(env: Envelope, arg: Expr | null, fallback = env.rows): number {
  const col = argColumn(arg);
  return col === null ? env.rows : (env.nonNull.get(col) ?? fallback);
}
