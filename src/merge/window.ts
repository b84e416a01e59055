/**
 * Window aggregates over the groups of an aggregate query (QueryPlan.windows), as DuckDB
 * computes `sum(count(*)) OVER ()` and `avg(sum(x)) OVER (PARTITION BY k)` over a GROUP BY
 * result: after HAVING, before ORDER BY and LIMIT, over every group of the row's partition
 * (the groups whose partition keys equal the row's, NULL equal to NULL). NULL arguments are
 * skipped as DuckDB's aggregates skip them: SUM/AVG/MIN/MAX of only NULLs is NULL, COUNT(x)
 * counts the non-NULL values, `count(*) OVER ()` the groups.
 */
import { compareForOrder } from './compare.ts';
import { CanopyError } from './errors.ts';
import { fsumAdd, fsumEmpty, fsumValue } from './fsum.ts';
import { groupKeyString, type GroupEntry } from './partial.ts';
import type { OutExpr, Scalar, WindowNode } from './types.ts';
import { INT128_MAX } from './int-range.ts';

/**
 * The value of one window aggregate over the argument values of one partition's groups.
 * SUM of integers is an int128 (DuckDB's HUGEINT, refused past its range as DuckDB refuses
 * it), of doubles a double (exactly rounded; DuckDB adds in its own order); AVG a double; COUNT an int64; MIN/MAX the argument's value.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE when an integer SUM passes the int128 range
 */
export function windowValue(w: WindowNode, values: readonly Scalar[]): Scalar {
  if (w.arg === null) return BigInt(values.length);
  const present = values.filter((v) => v !== null);
  switch (w.fn) {
    case 'count':
      return BigInt(present.length);
    case 'min':
    case 'max': {
      let best: Scalar = null;
      for (const v of present) if (best === null || compareForOrder(v, best, w.fn === 'max') < 0) best = v;
      return best;
    }
    case 'sum':
    case 'avg': {
      if (present.length === 0) return null;
      if (w.argType === 'float64') {
        // Exactly rounded (order-independent: the same value whatever order the groups merged in).
        const acc = fsumEmpty();
        for (const v of present) fsumAdd(acc, Number(v));
        const s = fsumValue(acc);
        return w.fn === 'sum' ? s : s / present.length;
      }
      let s = 0n;
      for (const v of present) s += typeof v === 'bigint' ? v : BigInt(v as number);
      if (s > INT128_MAX || s < -INT128_MAX - 1n) throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', `${w.fn}(...) OVER (...) is out of the range of HUGEINT (int128), as DuckDB refuses it`);
      if (w.fn === 'sum') return s;
      const n = BigInt(present.length);
      // The quotient exactly, then the remainder's fraction: the nearest double to s / n up to one rounding.
      return Number(s / n) + Number(s % n) / Number(n);
    }
  }
}

/**
 * Sets every group's window values (GroupEntry.windows, by slot): each window's argument is
 * evaluated once per group (`evalArg`), the groups are split by the window's partition keys,
 * and every group of a partition gets that partition's value. Returns new entries, in order.
 */
export function computeWindows(windows: readonly WindowNode[], entries: readonly GroupEntry[], evalArg: (e: OutExpr, g: GroupEntry) => Scalar): GroupEntry[] {
  if (windows.length === 0) return [...entries];
  const out: Scalar[][] = entries.map(() => new Array<Scalar>(windows.length).fill(null));
  for (const w of windows) {
    const parts = new Map<string, number[]>();
    entries.forEach((g, i) => {
      const id = groupKeyString(w.partition.map((k) => g.keys[k] ?? null));
      const list = parts.get(id);
      if (list === undefined) parts.set(id, [i]);
      else list.push(i);
    });
    for (const members of parts.values()) {
      const arg = w.arg;
      const values = arg === null ? members.map(() => null) : members.map((i) => evalArg(arg, entries[i]!));
      const v = windowValue(w, values);
      for (const i of members) out[i]![w.slot] = v;
    }
  }
  return entries.map((g, i) => ({ ...g, windows: out[i]! }));
}
