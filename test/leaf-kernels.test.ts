/**
 * Property tests of the leaf's batch kernels (src/leaf/expr.ts, src/leaf/groupby.ts) against
 * the general path: the scalar semantics of src/merge/scalar.ts applied row by row, which
 * define every node's value. Random batches hold NULLs, NaN, ±Infinity, -0.0, negative
 * instants, int64 extremes (beyond 2^53: the exact bigint views) and empty batches; the
 * expressions exercise the fast paths: arithmetic per operator and operand shape (with the
 * int64 exactness bound), comparisons against constants (NaN above every number), IN lists
 * (lookup table, sorted search, NaN and NULL members), CASE of constant branches,
 * extract(hour|minute|second|dow|isodow), FILTER narrowing and branch-free selection, the
 * dense extract group codes and the int64 hash keys, and scratch buffers reused across batches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanopyError, evalScalarNode, kNumStats, scalarAt, type ColumnType, type Expr, type PartialSpec, type Scalar, type ValueVec } from '../src/merge/index.ts';
import { acquireScratch, evalPredicate, evalValue, releaseScratch, selectAnd, selectTrue, selectWhere, typeOfExpr, type BatchCtx } from '../src/leaf/expr.ts';
import { GroupAggregator } from '../src/leaf/groupby.ts';
import { affineOf } from '../src/merge/aggregates/affine.ts';
import type { ColumnView, PreparedColumn, PreparedShard } from '../src/leaf/shard.ts';
import { validity } from './helpers/views.ts';

const EXACT = 2 ** 53;

/** One column's values per row (null = NULL) and what sits in the NULL slots. */
interface ColData {
  readonly type: ColumnType;
  readonly values: readonly Scalar[];
}

/** A column view as the leaf builds them: doubles (with maxAbs over valid rows, and the batch statistics when `stats`), or bigints beyond 2^53. */
function viewOf(c: ColData, garbage: number, stats = false): ColumnView {
  const valid = validity(c.values);
  if (c.type === 'int64' && c.values.some((v) => typeof v === 'bigint' && (v >= BigInt(EXACT) || v <= -BigInt(EXACT)))) {
    return { t: 'big', values: BigInt64Array.from(c.values.map((v) => (v === null ? 0n : (v as bigint)))), valid };
  }
  const values = Float64Array.from(c.values.map((v) => (v === null ? garbage : Number(v))));
  let maxAbs = 0;
  for (const v of c.values) if (v !== null && Math.abs(Number(v)) > maxAbs) maxAbs = Math.abs(Number(v));
  if (stats) return { t: 'num', values, valid, maxAbs, words: null, stats: kNumStats(values, values.length, valid, c.type === 'int64', maxAbs) };
  return { t: 'num', values, valid, maxAbs, words: null };
}

/** A shard of one or more batches over columns x (float64), i (int64), t (timestamp µs). */
function shardOf(batches: readonly (readonly [ColData, ColData, ColData])[], garbage: number, stats = false): PreparedShard {
  const names = ['x', 'i', 't'] as const;
  const columns = new Map<string, PreparedColumn>();
  names.forEach((name, k) => {
    const all = batches.flatMap((b) => b[k]!.values).filter((v): v is number | bigint => v !== null).map(Number).filter((v) => v === v);
    columns.set(name, {
      name,
      type: batches[0]![k]!.type,
      batches: batches.map((b) => viewOf(b[k]!, garbage, stats)),
      min: all.length === 0 ? null : Math.min(...all),
      max: all.length === 0 ? null : Math.max(...all),
    });
  });
  return {
    id: 0,
    schema: { name: 't', columns: [{ name: 'x', type: 'float64' }, { name: 'i', type: 'int64' }, { name: 't', type: 'timestamp' }] } as unknown as PreparedShard['schema'],
    rows: batches.reduce((n, b) => n + b[0]!.values.length, 0),
    batchRows: batches.map((b) => b[0]!.values.length),
    columns,
  };
}

const doubleArb = fc.oneof(
  fc.double(),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1, -1, 7, 15, 2 ** 52),
  fc.integer({ min: -1000, max: 1000 }),
);
const smallIntArb = fc.oneof(fc.bigInt({ min: -1000n, max: 1000n }), fc.constantFrom(0n, 7n, 15n, -15n));
const int64Arb = fc.oneof(
  { weight: 6, arbitrary: smallIntArb },
  { weight: 1, arbitrary: fc.constantFrom(2n ** 53n - 1n, -(2n ** 53n) + 1n, 2n ** 40n, 2n ** 63n - 1n, -(2n ** 63n), 2n ** 53n) },
);
const instantArb = fc.oneof(fc.integer({ min: -(2 ** 52), max: 2 ** 52 }), fc.integer({ min: -3 * 86_400_000_000, max: 3 * 86_400_000_000 }), fc.constantFrom(0, -1, 86_399_999_999, -86_400_000_000));
const nullable = <T>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { freq: 6, nil: null });

/** Rows of one batch: [x, i, t] column data. */
const batchArb = fc.integer({ min: 0, max: 40 }).chain((n) =>
  fc.tuple(fc.array(nullable(doubleArb), { minLength: n, maxLength: n }), fc.array(nullable(int64Arb), { minLength: n, maxLength: n }), fc.array(nullable(instantArb), { minLength: n, maxLength: n })).map(
    ([x, i, t]) =>
      [
        { type: 'float64', values: x },
        { type: 'int64', values: i },
        { type: 'timestamp', values: t },
      ] as [ColData, ColData, ColData],
  ),
);

const col = (name: 'x' | 'i' | 't'): Expr => ({ kind: 'col', name }) as Expr;
const litF = (v: number): Expr => ({ kind: 'lit', value: v, type: 'float64' }) as Expr;
const litI = (v: bigint): Expr => ({ kind: 'lit', value: v, type: 'int64' }) as Expr;

/** Numeric expressions over x and i (typed as the planner types them). */
const numExprArb: fc.Arbitrary<{ e: Expr; type: ColumnType }> = fc.letrec((tie) => ({
  leaf: fc.oneof(
    fc.constant({ e: col('x'), type: 'float64' as ColumnType }),
    fc.constant({ e: col('i'), type: 'int64' as ColumnType }),
    doubleArb.map((v) => ({ e: litF(v), type: 'float64' as ColumnType })),
    int64Arb.map((v) => ({ e: litI(v), type: 'int64' as ColumnType })),
  ),
  node: fc.oneof(
    { weight: 3, arbitrary: tie('leaf') as fc.Arbitrary<{ e: Expr; type: ColumnType }> },
    {
      weight: 2,
      arbitrary: fc.tuple(fc.constantFrom('+', '-', '*', '/', '%'), tie('node') as fc.Arbitrary<{ e: Expr; type: ColumnType }>, tie('leaf') as fc.Arbitrary<{ e: Expr; type: ColumnType }>, fc.boolean()).map(([op, a, b, swap]) => {
        const [l, r] = swap ? [b, a] : [a, b];
        const type: ColumnType = l.type === 'int64' && r.type === 'int64' && op !== '/' ? 'int64' : 'float64';
        return { e: { kind: 'arith', op, left: l.e, right: r.e, type } as Expr, type };
      }),
    },
    { weight: 1, arbitrary: (tie('node') as fc.Arbitrary<{ e: Expr; type: ColumnType }>).map((a) => ({ e: { kind: 'neg', arg: a.e, type: a.type } as Expr, type: a.type })) },
  ),
})).node;

const cmpArb = fc.tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>='), numExprArb, fc.oneof(doubleArb.map(litF), smallIntArb.map(litI), fc.constant({ kind: 'lit', value: null, type: 'null' } as Expr)), fc.boolean()).map(([op, a, c, swap]) =>
  swap ? ({ kind: 'cmp', op, left: c, right: a.e } as Expr) : ({ kind: 'cmp', op, left: a.e, right: c } as Expr),
);

const inArb = fc
  .tuple(
    numExprArb,
    fc.oneof(
      fc.array(fc.integer({ min: -30, max: 30 }).map((v) => BigInt(v) as Scalar), { maxLength: 40 }),
      fc.array(fc.oneof(doubleArb as fc.Arbitrary<Scalar>, fc.constant(null), smallIntArb as fc.Arbitrary<Scalar>), { maxLength: 12 }),
    ),
    fc.boolean(),
  )
  .map(([a, values, negated]) => ({ kind: 'in', arg: a.e, values, negated }) as Expr);

const extractArb = fc.constantFrom('hour', 'minute', 'second', 'dow', 'isodow').map((field) => ({ kind: 'extract', field, arg: col('t'), type: 'int64' }) as Expr);

const predArb: fc.Arbitrary<Expr> = fc.oneof(cmpArb, inArb, fc.tuple(extractArb, fc.integer({ min: 0, max: 30 })).map(([e, k]) => ({ kind: 'cmp', op: '<', left: e, right: litI(BigInt(k)) }) as Expr));

const constBranch = fc.oneof(smallIntArb.map(litI), fc.constant({ kind: 'lit', value: null, type: 'null' } as Expr));
const caseArb = fc
  .tuple(fc.array(fc.tuple(predArb, constBranch), { minLength: 1, maxLength: 3 }), fc.option(constBranch, { nil: null }))
  .map(([whens, other]) => ({ kind: 'case', operand: null, whens: whens.map(([when, then]) => ({ when, then })), else: other, type: 'int64' }) as Expr);

const valueArb: fc.Arbitrary<Expr> = fc.oneof(
  numExprArb.map((a) => a.e),
  caseArb,
  extractArb,
);

/** The general path: each row through the scalar semantics. */
function rowRef(e: Expr, shard: PreparedShard, batch: number, i: number): Scalar {
  if (e.kind === 'col') {
    const c = shard.columns.get(e.name)!;
    return scalarAt(c.batches[batch]!, c.type, i);
  }
  return evalScalarNode(e as Exclude<Expr, { kind: 'col' }>, (c) => rowRef(c as Expr, shard, batch, i));
}

/** Runs `f`, giving its value or the code of the CanopyError it threw. */
function attempt<T>(f: () => T): { ok: T } | { err: string } {
  try {
    return { ok: f() };
  } catch (e) {
    if (e instanceof CanopyError) return { err: e.code };
    throw e;
  }
}

/** Equal as SQL values of the same type: NaN = NaN, -0.0 distinct from 0.0 in float64, bigint by value. */
function same(a: Scalar, b: Scalar, type: ColumnType): boolean {
  if (a === null || b === null) return a === b;
  if (type === 'float64' || type === 'timestamp') return Object.is(Number(a), Number(b));
  return typeof a === 'bigint' || typeof b === 'bigint' ? BigInt(a as bigint) === BigInt(b as bigint) : Object.is(a, b);
}

function checkValue(e: Expr, shard: PreparedShard, scratch: boolean): void {
  const s = scratch ? acquireScratch() : undefined;
  try {
    for (let b = 0; b < shard.batchRows.length; b++) {
      s?.reset();
      const rows = shard.batchRows[b]!;
      const ctx: BatchCtx = { shard, batch: b, rows, scratch: s };
      const type = typeOfExpr(e, shard);
      const got = attempt(() => {
        const v: ValueVec = evalValue(e, ctx);
        return Array.from({ length: rows }, (_, i) => scalarAt(v, type, i));
      });
      const want = attempt(() => Array.from({ length: rows }, (_, i) => rowRef(e, shard, b, i)));
      // A constant that refuses (int64 overflow) refuses even over an empty batch; the row path sees no row.
      if (rows === 0 && 'err' in got) continue;
      if ('err' in want || 'err' in got) {
        expect(got).toEqual(want);
        continue;
      }
      for (let i = 0; i < rows; i++) {
        if (!same(got.ok[i]!, want.ok[i]!, type)) expect({ batch: b, row: i, got: String(got.ok[i]), want: String(want.ok[i]) }).toBeNull();
      }
    }
  } finally {
    if (s !== undefined) releaseScratch(s);
  }
}

function checkPredicate(e: Expr, shard: PreparedShard): void {
  for (let b = 0; b < shard.batchRows.length; b++) {
    const rows = shard.batchRows[b]!;
    const ctx: BatchCtx = { shard, batch: b, rows };
    const got = attempt(() => Array.from(evalPredicate(e, ctx)));
    const want = attempt(() => Array.from({ length: rows }, (_, i) => rowRef(e, shard, b, i)).map((v) => (v === null ? 1 : v === true ? 2 : 0)));
    // As in checkValue: a constant that refuses (int64 overflow) refuses even over an empty batch; the row path sees no row.
    if (rows === 0 && 'err' in got) continue;
    expect(got).toEqual(want);
    if ('ok' in got) {
      const sel = new Int32Array(rows);
      const m = selectTrue(Uint8Array.from(got.ok), rows, sel);
      const trueRows = got.ok.flatMap((t, i) => (t === 2 ? [i] : []));
      expect(Array.from(sel.subarray(0, m))).toEqual(trueRows);
      // The WHERE path: fused comparison-to-selection where it applies.
      const sel2 = new Int32Array(rows);
      const m2 = selectWhere(e, ctx, sel2);
      expect(Array.from(sel2.subarray(0, m2))).toEqual(trueRows);
    }
  }
}

const shardArb = fc.tuple(fc.array(batchArb, { minLength: 1, maxLength: 3 }), fc.constantFrom(0, 1e300, NaN, -7));

describe('leaf batch kernels = the row-by-row scalar semantics', () => {
  it('values: arithmetic, negation, CASE of constants, extract (with and without reused buffers)', () => {
    fc.assert(
      fc.property(shardArb, valueArb, fc.boolean(), ([batches, garbage], e, scratch) => {
        checkValue(e, shardOf(batches, garbage), scratch);
      }),
      { numRuns: 400 },
    );
  });

  it('predicates: comparisons with constants, IN lists, extract comparisons, IS [NOT] NULL of a condition; branch-free and fused WHERE selection', () => {
    const isNullOf = fc.tuple(predArb, fc.boolean()).map(([arg, negated]) => ({ kind: 'isnull', arg, negated }) as Expr);
    fc.assert(
      fc.property(shardArb, fc.oneof(predArb, isNullOf, caseArb.map((c) => ({ kind: 'cmp', op: '>', left: c, right: litI(0n) }) as Expr)), ([batches, garbage], e) => {
        checkPredicate(e, shardOf(batches, garbage));
      }),
      { numRuns: 400 },
    );
  });

  it('AND of column tests as a narrowing selection (numeric and dictionary columns, IN lists, folded affine comparisons) = the rows where every operand is TRUE', () => {
    const STRINGS = ['a', 'b', 'c', 'd'];
    /** Adds a dictionary column s (code: |i| mod 4; NULL where i is NULL, or never). */
    const withStrings = (shard: PreparedShard, nulls: boolean): PreparedShard => {
      const iCol = shard.columns.get('i')!;
      const rank = Int32Array.from(STRINGS.keys());
      const batches = iCol.batches.map((v, b) => {
        const rows = shard.batchRows[b]!;
        const codes = Int32Array.from({ length: rows }, (_, r) => {
          const x = scalarAt(v, 'int64', r) as bigint | null;
          return x === null ? 0 : Number((x < 0n ? -x : x) % 4n);
        });
        return { t: 'str' as const, codes, valid: nulls ? v.valid : null, strings: STRINGS, rank };
      });
      const columns = new Map(shard.columns);
      columns.set('s', { name: 's', type: 'string', batches, min: null, max: null });
      return { ...shard, columns };
    };
    const s = { kind: 'col', name: 's' } as Expr;
    const strTest = fc.oneof(
      fc.tuple(fc.constantFrom('=', '!=', '<', '>='), fc.constantFrom('a', 'b', 'c', 'zz')).map(([op, v]) => ({ kind: 'cmp', op, left: s, right: { kind: 'lit', value: v, type: 'string' } }) as Expr),
      fc.subarray(['a', 'c', 'zz', null] as Scalar[]).map((values) => ({ kind: 'in', arg: s, values, negated: false }) as Expr),
    );
    const operand = fc.oneof(predArb, strTest);
    fc.assert(
      fc.property(shardArb, fc.array(operand, { minLength: 2, maxLength: 4 }), fc.boolean(), ([batches, garbage], args, nulls) => {
        const shard = withStrings(shardOf(batches, garbage), nulls);
        const e = { kind: 'and', args } as Extract<Expr, { kind: 'and' }>;
        for (let b = 0; b < shard.batchRows.length; b++) {
          const rows = shard.batchRows[b]!;
          const ctx: BatchCtx = { shard, batch: b, rows };
          const sel = new Int32Array(rows);
          const got = attempt(() => selectAnd(e, ctx, sel));
          if ('err' in got || got.ok < 0) continue;
          const want = Array.from({ length: rows }, (_, i) => i).filter((i) => args.every((a) => rowRef(a, shard, b, i) === true));
          expect(Array.from(sel.subarray(0, got.ok))).toEqual(want);
        }
      }),
      { numRuns: 400 },
    );
  });

  it('GROUP BY extract(...) (dense codes) and an int64 expression (hash keys), or no key, with a FILTER shared by two partials: counts per group', () => {
    fc.assert(
      fc.property(shardArb, extractArb, numExprArb, fc.option(predArb, { nil: null }), fc.boolean(), ([batches, garbage], ex, num, filter, noKeys) => {
        fc.pre(num.type === 'int64');
        const shard = shardOf(batches, garbage);
        const keyExprs = noKeys ? [] : [ex, num.e];
        const spec: PartialSpec = filter === null ? { kind: 'count_star', arg: null } : { kind: 'count_star', arg: null, filter };
        const want = attempt(() => {
          const m = new Map<string, number>();
          for (let b = 0; b < shard.batchRows.length; b++) {
            for (let i = 0; i < shard.batchRows[b]!; i++) {
              const k = JSON.stringify(keyExprs.map((k) => String(rowRef(k, shard, b, i))));
              if (filter !== null && rowRef(filter, shard, b, i) !== true) {
                if (!m.has(k)) m.set(k, 0);
                continue;
              }
              m.set(k, (m.get(k) ?? 0) + 1);
            }
          }
          return m;
        });
        const got = attempt(() => {
          const agg = new GroupAggregator(shard, keyExprs.map((expr, k) => ({ name: `k${k}`, expr, type: 'int64' as ColumnType })), [spec, spec], [null, null], 1e6, () => {
            throw new Error('too many groups');
          });
          for (let b = 0; b < shard.batchRows.length; b++) agg.addBatch({ shard, batch: b, rows: shard.batchRows[b]! }, null, shard.batchRows[b]!);
          const r = agg.result();
          const m = new Map<string, number>();
          for (let g = 0; g < r.size; g++) {
            // Two partials with one FILTER (its truth shared per batch) count alike.
            expect(r.states[1]![g]).toEqual(r.states[0]![g]);
            m.set(JSON.stringify(r.keys.map((ks) => String(ks[g]))), Number(r.states[0]![g]));
          }
          return m;
        });
        if (shard.rows === 0 && 'err' in got) return;
        if ('err' in want || 'err' in got) expect(got).toEqual(want);
        else expect(new Map([...got.ok].sort())).toEqual(new Map([...want.ok].sort()));
      }),
      { numRuns: 300 },
    );
  });
});

/** The leaf's SUM(e) per group (by i % 3 when grouped) against the row-by-row sum: equal, or the same refusal. */
function checkSum(shard: PreparedShard, num: { e: Expr }, grouped: boolean): void {
  const key: Expr = { kind: 'arith', op: '%', left: col('i'), right: litI(3n), type: 'int64' } as Expr;
  const keyExprs = grouped ? [key] : [];
  const want = attempt(() => {
    const m = new Map<string, bigint | null>();
    for (let b = 0; b < shard.batchRows.length; b++) {
      for (let r = 0; r < shard.batchRows[b]!; r++) {
        const k = JSON.stringify(keyExprs.map((k) => String(rowRef(k, shard, b, r))));
        const v = rowRef(num.e, shard, b, r);
        const old = m.get(k) ?? null;
        m.set(k, v === null ? old : (old ?? 0n) + BigInt(v as bigint));
      }
    }
    return m;
  });
  const got = attempt(() => {
    const spec: PartialSpec = { kind: 'sum', arg: num.e };
    const agg = new GroupAggregator(shard, keyExprs.map((expr, k) => ({ name: `k${k}`, expr, type: 'int64' as ColumnType })), [spec], ['int64'], 1e6, () => {
      throw new Error('too many groups');
    });
    for (let b = 0; b < shard.batchRows.length; b++) agg.addBatch({ shard, batch: b, rows: shard.batchRows[b]! }, null, shard.batchRows[b]!);
    const r = agg.result();
    const m = new Map<string, bigint | null>();
    // int64 sum states are numbers while safe integers (IntSum): compared as bigints.
    for (let g = 0; g < r.size; g++) {
      const st = r.states[0]![g] as number | bigint | null;
      m.set(JSON.stringify(r.keys.map((ks) => String(ks[g]))), st === null ? null : BigInt(st));
    }
    return m;
  });
  if ('err' in want || 'err' in got) {
    // The general path refuses a constant overflow even over no row; the affine form never folds one.
    if (shard.rows === 0 && 'err' in got) return;
    expect(got).toEqual(want);
    return;
  }
  if (!grouped && shard.rows === 0) return;
  expect(new Map([...got.ok].sort())).toEqual(new Map([...want.ok].sort()));
}

describe('SUM of an affine int64 expression (Σ(a·x + b) = a·Σx + b·count) = the row-by-row sum', () => {
  it('affineOf reads the shapes it folds and leaves the rest', () => {
    const i = col('i');
    const arith = (op: string, l: Expr, r: Expr): Expr => ({ kind: 'arith', op, left: l, right: r, type: 'int64' }) as Expr;
    expect(affineOf(arith('*', i, litI(2n)))).toMatchObject({ a: 2n, b: 0n });
    expect(affineOf(arith('-', litI(5n), arith('*', litI(3n), arith('+', i, litI(1n)))))).toMatchObject({ a: -3n, b: 2n });
    expect(affineOf({ kind: 'neg', arg: i, type: 'int64' } as Expr)).toMatchObject({ a: -1n, b: 0n });
    expect(affineOf(i)).toBeNull();
    expect(affineOf(arith('*', i, i))).toBeNull();
    expect(affineOf(arith('%', i, litI(3n)))).toBeNull();
    expect(affineOf(arith('+', i, arith('+', litI(2n ** 62n), litI(2n ** 62n))))).toBeNull();
  });

  /** int64 expressions of i and literals under + - * and negation (most of them affine), big constants often. */
  const bigLit = fc.oneof(smallIntArb, fc.constantFrom(2n ** 31n, 2n ** 40n, -(2n ** 40n), 2n ** 52n, 2n ** 62n, 2n ** 63n - 1n, -(2n ** 63n))).map(litI);
  const affineArb: fc.Arbitrary<{ e: Expr; type: ColumnType }> = fc
    .letrec((tie) => ({
      leaf: fc.oneof({ weight: 2, arbitrary: fc.constant(col('i')) }, { weight: 1, arbitrary: bigLit }),
      node: fc.oneof(
        { weight: 2, arbitrary: tie('leaf') as fc.Arbitrary<Expr> },
        { weight: 3, arbitrary: fc.tuple(fc.constantFrom('+', '-', '*'), tie('node') as fc.Arbitrary<Expr>, tie('leaf') as fc.Arbitrary<Expr>, fc.boolean()).map(([op, a, b, swap]) => ({ kind: 'arith', op, left: swap ? b : a, right: swap ? a : b, type: 'int64' }) as Expr) },
        { weight: 1, arbitrary: (tie('node') as fc.Arbitrary<Expr>).map((a) => ({ kind: 'neg', arg: a, type: 'int64' }) as Expr) },
      ),
    }))
    .node.map((e) => ({ e, type: 'int64' as ColumnType }));

  it('grouped and global sums, incl. int64 extremes (overflow refused alike) and NULLs', () => {
    fc.assert(
      fc.property(shardArb, fc.oneof(affineArb, numExprArb), fc.boolean(), ([batches, garbage], num, grouped) => {
        fc.pre(num.type === 'int64');
        checkSum(shardOf(batches, garbage), num, grouped);
      }),
      { numRuns: 400 },
    );
  });

  it('comparisons of an affine expression with an integer (folded to the column against a constant where the batch proves no overflow) = the row-by-row truth', () => {
    fc.assert(
      fc.property(shardArb, affineArb, fc.constantFrom('=', '!=', '<', '<=', '>', '>='), bigLit, fc.boolean(), ([batches, garbage], a, op, k, swap) => {
        // Expressions over the column (a constant one refuses its overflow even over no row, before any fold).
        fc.pre(affineOf(a.e) !== null);
        const e = (swap ? { kind: 'cmp', op, left: k, right: a.e } : { kind: 'cmp', op, left: a.e, right: k }) as Expr;
        const shard = shardOf(batches, garbage);
        // A refusal (int64 overflow) must agree too: checkPredicate compares errors as values.
        checkPredicate(e, shard);
      }),
      { numRuns: 500 },
    );
  });

  it('an intermediate value that overflows refuses even when the affine form is small ((i * 2^40) * 0 + i)', () => {
    const i = col('i');
    const arith = (op: string, l: Expr, r: Expr): Expr => ({ kind: 'arith', op, left: l, right: r, type: 'int64' }) as Expr;
    const big = [{ type: 'float64', values: [1, 2] }, { type: 'int64', values: [2n ** 40n, 3n] }, { type: 'timestamp', values: [0, 0] }] as [ColData, ColData, ColData];
    const shard = shardOf([big], 0);
    for (const e of [arith('+', arith('*', arith('*', i, litI(2n ** 40n)), litI(0n)), i)]) {
      expect(affineOf(e)).not.toBeNull();
      for (const grouped of [false, true]) checkSum(shard, { e }, grouped);
    }
  });
});

describe('aggregates answered from batch statistics (no WHERE, no GROUP BY) = the same aggregates over the rows', () => {
  /** Every partial the statistics answer, over each column, with a FILTER-free and a FILTERed copy (the FILTER reads rows). */
  const specs: PartialSpec[] = [{ kind: 'count_star', arg: null }];
  const argTypes: (ColumnType | null)[] = [null];
  for (const [name, type] of [['x', 'float64'], ['i', 'int64'], ['t', 'timestamp']] as const) {
    for (const kind of ['count', 'min', 'max', 'variance'] as const) {
      specs.push({ kind, arg: col(name) });
      argTypes.push(type);
    }
  }
  specs.push({ kind: 'sum', arg: col('i') }, { kind: 'sum', arg: { kind: 'arith', op: '*', left: col('i'), right: litI(2n), type: 'int64' } as Expr });
  argTypes.push('int64', 'int64');

  /** The partial states of one global group over every batch of `shard`, or the code of the refusal. */
  function states(shard: PreparedShard, filter: Expr | null): { ok: unknown[] } | { err: string } {
    return attempt(() => {
      const ps = filter === null ? specs : specs.map((s) => ({ ...s, filter }));
      const agg = new GroupAggregator(shard, [], ps, argTypes, 1e6, () => {
        throw new Error('too many groups');
      });
      for (let b = 0; b < shard.batchRows.length; b++) agg.addBatch({ shard, batch: b, rows: shard.batchRows[b]! }, null, shard.batchRows[b]!);
      const r = agg.result();
      return r.size === 0 ? [] : r.states.map((s) => s[0]);
    });
  }

  /**
   * Equal states: exact for counts, sums and extremes (NaN = NaN, -0 distinct from 0); a
   * variance state (Welford per batch, then Chan's combine, against Welford over every row)
   * to 1e-9 of the data's scale s = |mean| + √M2: the mean within 1e-9·s, M2 within 1e-9·n·s².
   */
  function sameState(a: unknown, b: unknown, kind: string): boolean {
    if (kind !== 'variance' || a === null || b === null) return typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : a === b || JSON.stringify(a, (_k, v) => (typeof v === 'bigint' ? String(v) : v)) === JSON.stringify(b, (_k, v) => (typeof v === 'bigint' ? String(v) : v));
    const x = a as { n: number; mean: number; m2: number };
    const y = b as { n: number; mean: number; m2: number };
    // States that finalise alike: one value (0, or NULL for the sample forms), or a sum of
    // squares that is not finite (NaN or an infinity: refused as out of range), however reached.
    if (x.n === y.n && (x.n === 1 || (!Number.isFinite(x.m2) && !Number.isFinite(y.m2)))) return true;
    const close = (p: number, q: number, scale: number): boolean => Object.is(p, q) || Math.abs(p - q) <= 1e-9 * scale || (Number.isNaN(p) && Number.isNaN(q));
    const scale = Math.max(Math.abs(x.mean), Math.abs(y.mean)) + Math.sqrt(Math.max(x.m2, y.m2, 0));
    // M2's rounding error grows with n·ε·mean² (the data's conditioning), not with M2 itself.
    return x.n === y.n && close(x.mean, y.mean, scale) && close(x.m2, y.m2, x.n * scale * scale);
  }

  it('count, count(x), sum (plain and affine int64), min, max (NaN, -0, empty batches, NULLs) and variance', () => {
    fc.assert(
      fc.property(shardArb, fc.option(predArb, { nil: null }), ([batches, garbage], filter) => {
        const plain = states(shardOf(batches, garbage, false), filter);
        const withStats = states(shardOf(batches, garbage, true), filter);
        if ('err' in plain || 'err' in withStats) {
          expect(withStats).toEqual(plain);
          return;
        }
        expect(withStats.ok.length).toBe(plain.ok.length);
        withStats.ok.forEach((s, k) => {
          if (!sameState(s, plain.ok[k], specs[k]!.kind)) expect({ partial: specs[k], withStats: String(JSON.stringify(s)), rows: String(JSON.stringify(plain.ok[k])) }).toBeNull();
        });
      }),
      { numRuns: 400 },
    );
  });

  it('kNumStats: MIN keeps -0 over 0, MAX keeps NaN, NULL slots are skipped, the int64 sum is kept only while exact', () => {
    const nulls = { bitmap: Uint8Array.of(0b101), offset: 0 };
    const s = kNumStats(Float64Array.of(0, 1e300, -0, NaN), 4, null, false, Infinity);
    expect([s.count, Object.is(s.min, -0), Number.isNaN(s.max), s.sum]).toEqual([4, true, true, null]);
    const t = kNumStats(Float64Array.of(5, 999, -3), 3, nulls, true, 5);
    expect([t.count, t.min, t.max, t.sum, t.mean]).toEqual([2, -3, 5, 2, 1]);
    expect(kNumStats(Float64Array.of(2 ** 52, 2 ** 52), 2, null, true, 2 ** 52).sum).toBeNull();
    expect(kNumStats(new Float64Array(0), 0, null, true, 0)).toMatchObject({ rows: 0, count: 0, sum: 0 });
  });
});
