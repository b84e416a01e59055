/**
 * Row queries at the leaf: the top `limit` selected rows of a shard in the plan's order
 * (sort keys with NULLs last, then every column ascending), found with a bounded heap per
 * batch and merged across batches; only kept rows are materialised.
 */
import { PriorityQueue } from '@datastructures-js/priority-queue';
import { compareDoubles, kWayMerge, type PartialLayout, type RowQuerySpec, type Scalar } from '../merge/index.ts';
import { evalValue, scalarAt, type BatchCtx, type ValueVec } from './expr.ts';
import { isValid } from './shard.ts';

const compareBigints = (a: number | bigint, b: number | bigint): number => (a < b ? -1 : a > b ? 1 : 0);

/** Compares rows i and j of a batch for one column, ascending, NULLs last. */
function columnComparator(v: ValueVec): (i: number, j: number) => number {
  switch (v.t) {
    case 'const':
      return () => 0;
    case 'num':
    case 'big': {
      // Doubles in the value order (NaN above every number, -0.0 = 0.0), or bigints.
      const vals: ArrayLike<number | bigint> = v.values;
      const cmp = v.t === 'num' ? (compareDoubles as (a: number | bigint, b: number | bigint) => number) : compareBigints;
      const valid = v.valid;
      return (i, j) => {
        const ni = !isValid(valid, i);
        const nj = !isValid(valid, j);
        if (ni || nj) return ni === nj ? 0 : ni ? 1 : -1;
        return cmp(vals[i]!, vals[j]!);
      };
    }
    case 'str': {
      const rank = v.rank;
      const codes = v.codes;
      const valid = v.valid;
      return (i, j) => {
        const ni = !isValid(valid, i);
        const nj = !isValid(valid, j);
        if (ni || nj) return ni === nj ? 0 : ni ? 1 : -1;
        return rank[codes[i]!]! - rank[codes[j]!]!;
      };
    }
  }
}

/** Accumulates the best `limit` rows over the batches of a shard. */
export class RowCollector {
  readonly #spec: RowQuerySpec;
  readonly #layout: PartialLayout;
  #rows: (readonly Scalar[])[] = [];

  constructor(spec: RowQuerySpec, layout: PartialLayout) {
    this.#spec = spec;
    this.#layout = layout;
  }

  /** Adds the selected rows `sel[0..n)` of one batch. */
  addBatch(ctx: BatchCtx, sel: Int32Array | null, n: number): void {
    const limit = this.#spec.limit;
    if (limit === 0 || n === 0) return;
    const views = this.#spec.columns.map((c) => evalValue(c.expr, ctx));
    const colCmp = views.map(columnComparator);
    const order = this.#spec.orderBy;
    const cmp = (i: number, j: number): number => {
      for (const o of order) {
        const c = colCmp[o.column]!(i, j);
        if (c !== 0) {
          // NULLs keep their place (last, or first with NULLS FIRST) whatever the direction.
          const v = views[o.column]!;
          const nullInvolved = v.t !== 'const' && (!isValid(v.valid, i) || !isValid(v.valid, j));
          if (nullInvolved) return o.nullsFirst === true ? -c : c;
          return o.desc ? -c : c;
        }
      }
      for (const c of colCmp) {
        const r = c(i, j);
        if (r !== 0) return r;
      }
      return 0;
    };
    let kept: number[];
    if (n <= limit) {
      kept = Array.from({ length: n }, (_, j) => (sel === null ? j : sel[j]!)).sort(cmp);
    } else {
      // Max-heap of the best `limit` rows: the worst kept row is at the front.
      const heap = new PriorityQueue<number>((a, b) => cmp(b, a));
      for (let j = 0; j < n; j++) {
        const i = sel === null ? j : sel[j]!;
        if (heap.size() < limit) heap.enqueue(i);
        else if (cmp(i, heap.front()!) < 0) {
          heap.dequeue();
          heap.enqueue(i);
        }
      }
      kept = heap.toArray().sort(cmp);
    }
    const types = this.#spec.columns.map((c) => c.type);
    const rows = kept.map((i) => views.map((v, c) => scalarAt(v, types[c]!, i)));
    this.#rows = kWayMerge([this.#rows, rows], this.#layout.compareRows, limit);
  }

  /** The sorted rows kept so far. */
  result(): (readonly Scalar[])[] {
    return this.#rows;
  }
}
