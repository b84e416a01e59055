/**
 * GROUP BY GROUPING SETS (...), ROLLUP (...), CUBE (...), `(a, b)` and `()`, expanded into
 * grouping sets as DuckDB expands them (src/planner/binder/query_node/bind_select_node.cpp
 * and transform_group_by.cpp): each GROUP BY item is a list of sets, and the clause is the
 * cross product of its items (`GROUP BY a, ROLLUP (b, c)` is (a, b, c), (a, b), (a)), each
 * set the union of the keys of its parts. Sets listed twice stay twice (their rows repeat).
 * The text `GROUPING SETS` is read as a call of {@link GROUPING_SETS_FN} (src/root/sql/rewrite.ts).
 */
import { type Node, isNode, listItems } from './ast.ts';
import { fail } from './errors.ts';
import { functionName } from './expressions.ts';
import { GROUPING_SETS_FN, GROUP_BY_EMPTY } from './rewrite.ts';
import { columnRef } from './scope.ts';

/**
 * Most grouping sets one query may expand to. DuckDB allows 65,535; canopy's root merges
 * the finest groups once per set (CUBE of 8 keys is 256 sets).
 */
export const MAX_GROUPING_SETS = 256;

/** The grouping-set construct a GROUP BY item is, or null for a plain expression. */
function construct(n: unknown): 'rollup' | 'cube' | 'sets' | 'list' | 'empty' | null {
  if (!isNode(n)) return null;
  if (n.type === 'expr_list') return 'list';
  if (columnRef(n)?.name === GROUP_BY_EMPTY) return 'empty';
  if (n.type !== 'function') return null;
  const name = functionName(n);
  if (name === GROUPING_SETS_FN) return 'sets';
  const lower = name.toLowerCase();
  return lower === 'rollup' || lower === 'cube' ? lower : null;
}

/** True when a GROUP BY clause uses grouping sets (a plain GROUP BY is planned as before). */
export function hasGroupingSets(items: readonly unknown[]): boolean {
  return items.some((n) => construct(n) !== null);
}

/**
 * The grouping sets of a GROUP BY clause, each as the ascending, distinct indexes of its keys.
 * @param items the GROUP BY items as parsed
 * @param keyOf adds a plain expression as a group key (once) and returns its index
 * @throws CanopyError CANOPY_ERR_LIMIT past {@link MAX_GROUPING_SETS} sets;
 *   CANOPY_ERR_BAD_QUERY for ROLLUP or CUBE without arguments; what `keyOf` throws
 */
export function groupingSets(items: readonly unknown[], keyOf: (n: unknown) => number): number[][] {
  let sets: number[][] = [[]];
  for (const item of items) sets = cross(sets, setsOf(item, keyOf));
  return sets.map((s) => [...new Set(s)].sort((a, b) => a - b));
}

/** The sets of one item (an element of GROUPING SETS reads as one). */
function setsOf(n: unknown, keyOf: (n: unknown) => number): number[][] {
  const kind = construct(n);
  if (kind === null) return [[keyOf(n)]];
  if (kind === 'empty') return [[]];
  const args = kind === 'list' ? listItems(n) : constructArgs(n as Node);
  if (kind === 'list') return args.reduce<number[][]>((acc, a) => cross(acc, setsOf(a, keyOf)), [[]]);
  if (kind === 'sets') {
    const out: number[][] = [];
    for (const a of args) {
      out.push(...setsOf(a, keyOf));
      count(out.length);
    }
    return out;
  }
  const name = kind.toUpperCase();
  if (args.length === 0) fail('CANOPY_ERR_BAD_QUERY', `${name}() needs at least one argument`);
  // Each argument is one element: an expression or a parenthesised list of them.
  const parts = args.map((a) => {
    const c = construct(a);
    if (c !== null && c !== 'list') fail('CANOPY_ERR_BAD_QUERY', `${name} takes expressions or lists of them, not ${c === 'empty' ? '()' : c.toUpperCase()}`);
    return c === 'list' ? listItems(a).map((x) => keyOf(x)) : [keyOf(a)];
  });
  if (kind === 'rollup') return parts.map((_, i) => parts.slice(0, parts.length - i).flat()).concat([[]]);
  count(2 ** parts.length);
  const out: number[][] = [];
  // CUBE: every subset of the elements, the fullest first.
  for (let mask = 2 ** parts.length - 1; mask >= 0; mask--) out.push(parts.filter((_, i) => (mask & (1 << (parts.length - 1 - i))) !== 0).flat());
  return out;
}

/**
 * The elements of ROLLUP (...), CUBE (...) or GROUPING SETS (...): the grammar reads a single
 * parenthesised list, `ROLLUP ((a, b))`, as the argument list itself marked `parentheses`,
 * which is then one element (DuckDB: ROLLUP ((a, b)) is (a, b), ()).
 */
function constructArgs(n: Node): readonly unknown[] {
  return isNode(n.args) && n.args.parentheses === true ? [n.args] : listItems(n.args);
}

/** Every union of a set of `a` with a set of `b` (a's order outermost). */
function cross(a: readonly number[][], b: readonly number[][]): number[][] {
  count(a.length * b.length);
  return a.flatMap((x) => b.map((y) => [...x, ...y]));
}

/** @throws CanopyError CANOPY_ERR_LIMIT when `n` sets are more than {@link MAX_GROUPING_SETS} */
function count(n: number): void {
  if (n > MAX_GROUPING_SETS) fail('CANOPY_ERR_LIMIT', `the GROUP BY clause expands to at least ${n} grouping sets; canopy computes at most ${MAX_GROUPING_SETS} (DuckDB: 65535)`);
}

/** True for a call of grouping() or grouping_id() (DuckDB's names of one function). */
export function isGroupingCall(n: unknown): n is Node {
  if (!isNode(n) || n.type !== 'function') return false;
  const name = functionName(n).toLowerCase();
  return name === 'grouping' || name === 'grouping_id';
}
