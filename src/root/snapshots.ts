/**
 * Progressive snapshots at the root: what keeps them monotone. (Their pace is the injected
 * clock's `coalesce`, src/transport/clock.ts; their content is the root's answer description.)
 */
import { compareSql, groupKeyString, type Cell } from '../merge/index.ts';
import type { QueryAnswer } from './engine.ts';

/**
 * Keeps every cell's interval within the previous snapshot's for the same group and column
 * (both hold the truth, so their intersection does too): intervals never widen. A cell that
 * has lost its interval (approximate without bounds, e.g. a top-k group both truncated by a
 * child and held by a pending shard) keeps the last guaranteed one.
 */
export class IntervalMemo {
  readonly #last = new Map<string, Cell>();

  apply(a: QueryAnswer): QueryAnswer {
    if (a.groups === null || a.groups === undefined) return a;
    const groups = a.groups;
    const cells = a.rows.map((r, i) =>
      r.map((_, j) => {
        const key = `${groupKeyString(groups[i]!.keys)}#${j}`;
        const cur = a.cells?.[i]?.[j] ?? null;
        const prev = this.#last.get(key);
        const lost = cur !== null && cur.label === 'approximate' && cur.lo == null && cur.hi == null;
        const next: Cell | null = cur === null || prev === undefined || prev.label !== 'bounded' ? cur : lost ? prev : cur.label !== 'bounded' ? cur : intersect(prev, cur);
        this.#last.set(key, next ?? { label: 'exact' });
        return next;
      }),
    );
    return { ...a, cells: a.cells === null ? null : cells };
  }
}

function intersect(a: Cell, b: Cell): Cell {
  const lo = a.lo == null ? b.lo : b.lo == null ? a.lo : compareSql('>', a.lo, b.lo) === true ? a.lo : b.lo;
  const hi = a.hi == null ? b.hi : b.hi == null ? a.hi : compareSql('<', a.hi, b.hi) === true ? a.hi : b.hi;
  return { label: 'bounded', lo: lo ?? null, hi: hi ?? null };
}
