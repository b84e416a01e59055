/**
 * Zone maps per record batch (src/leaf/batch-stats.ts): a scan skips a batch only when no row
 * of it passes the WHERE. Random shards in small batches, sorted by one column (so batches
 * cover ranges, as a time-ordered shard's do) or not, with NULLs, NaN, -0, infinities and
 * strings; random predicates (comparisons both ways, IN and NOT IN with NULLs, BETWEEN,
 * IS NULL, LIKE, NOT, AND, OR). Whenever `batchMayMatch` is false, the leaf's own row
 * selection (`selectWhere`) passes no row of that batch; and a scan's count equals the count
 * of rows the selection passes batch by batch. And it does skip: a few instants of a
 * time-ordered shard leave most batches unscanned.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { predicateTree } from './helpers/predicates.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard, type PreparedShard } from '../src/leaf/index.ts';
import { batchMayMatch } from '../src/leaf/batch-stats.ts';
import { acquireScratch, releaseScratch, selectWhere, type BatchCtx } from '../src/leaf/expr.ts';
import { layoutOf, type ColumnarPartial, type Expr, type Scalar, type ScanPlan, type TableSchema } from '../src/merge/index.ts';

const schema: TableSchema = {
  name: 't',
  columns: [
    { name: 'i', type: 'int64' },
    { name: 'f', type: 'float64' },
    { name: 'ts', type: 'timestamp' },
    { name: 's', type: 'string' },
  ],
};
const COLS = ['i', 'f', 'ts', 's'] as const;

const rowArb = fc.tuple(
  fc.option(fc.integer({ min: -5, max: 5 }), { freq: 6 }),
  fc.option(fc.oneof(fc.integer({ min: -5, max: 5 }), fc.constantFrom(NaN, -0, 0.5, Infinity, -Infinity)), { freq: 6 }),
  fc.option(fc.integer({ min: 0, max: 6 }).map((h) => h * 3_600_000_000), { freq: 6 }),
  fc.option(fc.constantFrom('', 'a', 'ab', 'b', 'SFO', 'sfo', '😀'), { freq: 6 }),
);

const litOf = (c: (typeof COLS)[number]): fc.Arbitrary<Expr> => {
  const v: fc.Arbitrary<Scalar> =
    c === 'i' ? fc.integer({ min: -6, max: 6 }) : c === 'f' ? fc.oneof(fc.integer({ min: -6, max: 6 }), fc.constantFrom(NaN, -0, 0.25, Infinity)) : c === 'ts' ? fc.integer({ min: -1, max: 7 }).map((h) => h * 3_600_000_000) : fc.constantFrom('', 'a', 'ab', 'b', 'SFO', 'zz');
  const type = c === 'i' ? 'int64' : c === 'f' ? 'float64' : c === 'ts' ? 'timestamp' : 'string';
  return fc.option(v, { freq: 8 }).map((x) => ({ kind: 'lit', value: x, type: x === null ? 'null' : type }) as Expr);
};

const leafArb: fc.Arbitrary<Expr> = fc.constantFrom(...COLS).chain((c) => {
  const col: Expr = { kind: 'col', name: c };
  const lit = litOf(c);
  return fc.oneof(
    fc.record({ op: fc.constantFrom('=', '!=', '<', '<=', '>', '>='), l: lit, swap: fc.boolean() }).map(({ op, l, swap }) => ({ kind: 'cmp', op, left: swap ? l : col, right: swap ? col : l }) as Expr),
    fc.record({ vals: fc.array(lit, { minLength: 1, maxLength: 4 }), negated: fc.boolean() }).map(({ vals, negated }) => ({ kind: 'in', arg: col, values: vals.map((x) => (x as { value: Scalar }).value), negated }) as Expr),
    fc.record({ a: lit, b: lit }).map(({ a, b }) => ({ kind: 'and', args: [{ kind: 'cmp', op: '>=', left: col, right: a }, { kind: 'cmp', op: '<=', left: col, right: b }] }) as Expr),
    fc.boolean().map((negated) => ({ kind: 'isnull', arg: col, negated }) as Expr),
    ...(c === 's' ? [fc.record({ p: fc.constantFrom('S%', '%b', 'a_', '%', ''), negated: fc.boolean() }).map(({ p, negated }) => ({ kind: 'like', arg: col, pattern: { kind: 'lit', value: p, type: 'string' }, negated, caseInsensitive: false, escape: null }) as Expr)] : []),
  );
});

const exprArb: fc.Arbitrary<Expr> = predicateTree(leafArb);

function shardOf(rows: readonly Scalar[][], batchRows: number): PreparedShard {
  const table = shardsFromRows(schema, [rows], batchRows)[0]!;
  return prepareShard(0, table, schema);
}

/** Rows the leaf's own selection passes in batch b. */
function passing(shard: PreparedShard, filter: Expr, b: number): number {
  const rows = shard.batchRows[b]!;
  const scratch = acquireScratch();
  try {
    const ctx: BatchCtx = { shard, batch: b, rows, meter: () => undefined, scratch };
    return selectWhere(filter, ctx, new Int32Array(rows));
  } finally {
    releaseScratch(scratch);
  }
}

function countPlan(filter: Expr): ScanPlan {
  return { table: 't', filter, groupBy: [], partials: [{ kind: 'count_star', arg: null }], rows: null, maxGroups: 1000 };
}

describe('zone maps per batch', () => {
  let refused = 0;
  let skipped = 0;
  it('property: a batch is skipped only when no row of it passes the WHERE; the scan counts what the selection passes', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 40 }), fc.integer({ min: 1, max: 5 }), fc.constantFrom<number | null>(null, 0, 1, 2, 3), exprArb, async (rows, batchRows, sortBy, filter) => {
        const sorted = sortBy === null ? rows : [...rows].sort((a, b) => cmp(a[sortBy] ?? null, b[sortBy] ?? null));
        const shard = shardOf(sorted as Scalar[][], batchRows);
        let expected = 0;
        for (let b = 0; b < shard.batchRows.length; b++) {
          let n: number;
          try {
            n = passing(shard, filter, b);
          } catch {
            refused++;
            return; // a predicate the leaf refuses: nothing to check
          }
          if (!batchMayMatch(filter, shard, b)) skipped++;
          if (!batchMayMatch(filter, shard, b)) expect(n, `batch ${b} skipped but ${n} rows pass ${JSON.stringify(filter)}`).toBe(0);
          expected += n;
        }
        const layout = layoutOf(countPlan(filter), schema);
        const scan = await scanShard(shard, countPlan(filter), layout, new AbortController().signal);
        const p = scan.partial as ColumnarPartial;
        expect(p.size === 0 ? 0 : p.states[0]![0]).toBe(expected);
        expect(scan.rowsScanned).toBe(sorted.length);
      }),
      { numRuns: 600, seed: 15 },
    );
    // The generators make predicates the leaf evaluates, and batches the zone maps skip.
    expect(refused).toBeLessThan(30);
    expect(skipped).toBeGreaterThan(200);
  });

  it('skips the batches of a time-ordered shard that hold none of a few instants', async () => {
    const hour = 3_600_000_000;
    const rows: Scalar[][] = Array.from({ length: 4000 }, (_, r) => [r % 7, r / 3, Math.floor(r / 10) * hour, 'a']);
    const shard = shardOf(rows, 500);
    const filter: Expr = { kind: 'in', arg: { kind: 'col', name: 'ts' }, values: [3 * hour, 390 * hour], negated: false };
    const may = shard.batchRows.map((_, b) => batchMayMatch(filter, shard, b));
    expect(may).toEqual([true, false, false, false, false, false, false, true]);
    const scan = await scanShard(shard, countPlan(filter), layoutOf(countPlan(filter), schema), new AbortController().signal);
    expect((scan.partial as ColumnarPartial).states[0]![0]).toBe(20);
  });
});

/** Ascending, NULLs last (any total order does: it only groups values into batches). */
function cmp(a: Scalar, b: Scalar): number {
  if (a === b) return 0;
  if (a === null) return 1;
  if (b === null) return -1;
  if (typeof a === 'number' && typeof b === 'number') return a !== a ? (b !== b ? 0 : 1) : b !== b ? -1 : a - b;
  return String(a) < String(b) ? -1 : 1;
}
