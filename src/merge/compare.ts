/**
 * The one value order of canopy (pure), used wherever values are compared: sorting, MIN/MAX
 * states, merges of row runs, zone maps and range partitioning, WHERE/HAVING, top-k
 * tie-breaks and pruning. It is the order of DuckDB and PostgreSQL:
 * - strings by Unicode code point (= UTF-8 byte order = SQL's C collation), not by UTF-16
 *   code unit as JavaScript's `<` does (which puts U+1F600 before U+FF5A);
 * - doubles numerically with NaN above +Infinity and NaN = NaN; -0.0 = 0.0;
 * - int64 (bigint) numerically, and against doubles by exact value;
 * - NULL is not a value: {@link compareSql} returns NULL for it, ORDER BY puts it last.
 */
import type { CmpOp, Scalar } from './types.ts';

/**
 * Code-point order of two strings (UTF-8 byte order).
 * Source: a UTF-16 code unit comparison is code-point order except between a surrogate
 * (U+D800..U+DFFF, which starts a code point >= U+10000) and a unit in U+E000..U+FFFF;
 * shifting the surrogates above that range fixes it (Unicode Standard §5.17, "Binary Order").
 * @returns negative, 0 or positive
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0;
  const n = a.length < b.length ? a.length : b.length;
  for (let i = 0; i < n; i++) {
    let x = a.charCodeAt(i);
    let y = b.charCodeAt(i);
    if (x === y) continue;
    if (x >= 0xd800 && y >= 0xd800) {
      x = x >= 0xe000 ? x - 0x800 : x + 0x2000;
      y = y >= 0xe000 ? y - 0x800 : y + 0x2000;
    }
    return x - y;
  }
  return a.length - b.length;
}

/** Order of two doubles: NaN greatest and equal to itself, -0.0 = 0.0. */
export function compareDoubles(a: number, b: number): number {
  if (a < b) return -1;
  if (a > b) return 1;
  if (a === b) return 0;
  // At least one NaN.
  return a !== a ? (b !== b ? 0 : 1) : -1;
}

/**
 * Total order on non-NULL values: numbers and bigints by exact value (NaN above all),
 * strings by code point, booleans false < true. Values of different kinds (a string and a
 * number) order numbers first; the planner never compares them.
 */
export function compareValues(a: Exclude<Scalar, null>, b: Exclude<Scalar, null>): number {
  const ta = typeof a;
  const tb = typeof b;
  if (ta === 'string' && tb === 'string') return compareStrings(a as string, b as string);
  if (ta === 'number' && tb === 'number') return compareDoubles(a as number, b as number);
  if (ta === 'bigint' && tb === 'bigint') return (a as bigint) < (b as bigint) ? -1 : (a as bigint) > (b as bigint) ? 1 : 0;
  if ((ta === 'number' || ta === 'bigint') && (tb === 'number' || tb === 'bigint')) {
    if (ta === 'number' && (a as number) !== (a as number)) return 1;
    if (tb === 'number' && (b as number) !== (b as number)) return -1;
    // Mixed bigint/double: JavaScript's relational operators compare them by exact value.
    return a < b ? -1 : a > b ? 1 : 0;
  }
  if (ta === 'boolean' && tb === 'boolean') return a === b ? 0 : a ? 1 : -1;
  const rank = (t: string): number => (t === 'number' || t === 'bigint' ? 0 : t === 'string' ? 1 : 2);
  return rank(ta) - rank(tb);
}

/** Does the order relation `c` (negative, 0, positive) satisfy `op`? */
export function satisfies(op: CmpOp, c: number): boolean {
  switch (op) {
    case '=':
      return c === 0;
    case '!=':
      return c !== 0;
    case '<':
      return c < 0;
    case '<=':
      return c <= 0;
    case '>':
      return c > 0;
    case '>=':
      return c >= 0;
  }
}

/**
 * SQL comparison with NULL propagation in the order of {@link compareValues}
 * (so `NaN > 0` and `NaN = NaN` are TRUE, as in DuckDB and PostgreSQL).
 * @returns true, false, or null when either side is NULL.
 */
export function compareSql(op: CmpOp, a: Scalar, b: Scalar): boolean | null {
  if (a === null || b === null) return null;
  return satisfies(op, compareValues(a, b));
}

/**
 * ORDER BY comparison of two values of one column: NULLs last in both directions
 * (DuckDB's default) unless `nullsFirst`, otherwise {@link compareValues}.
 * @returns negative when `a` sorts before `b` in this key's direction, 0 or positive.
 */
export function compareForOrder(a: Scalar, b: Scalar, desc: boolean, nullsFirst = false): number {
  if (a === null || b === null) return a === b ? 0 : (a === null) !== nullsFirst ? 1 : -1;
  const c = compareValues(a, b);
  return desc ? -c : c;
}
