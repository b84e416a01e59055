/**
 * Property tests of the leaf kernels added for issue 15 (src/leaf/groupby.ts, src/leaf/expr.ts)
 * against row-by-row references: the fused group loop (COUNT / COUNT(x) / int64 SUM per dense
 * group: dictionary codes, a small-range int64 column, extract(hour)), with and without a
 * selection, over batches with NULLs, int64 extremes (beyond 2^53: the general path), empty
 * batches and dictionaries with unused entries; [NOT] [I]LIKE on a dictionary column by code
 * (with NULL rows and an ESCAPE); IS [NOT] NULL of a comparison of NULL-free operands; SUM(x)
 * FILTER (WHERE col op k) without GROUP BY as one masked pass. int64 views carry the int32
 * view the leaf builds for small values (src/leaf/int32.ts), so the branch-free range tests
 * and the per-code group accumulation across batches are what these properties check.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { evalScalarNode, fsumValue, likeRegex, scalarAt, type ColumnType, type FloatSum, type Expr, type PartialSpec, type Scalar } from '../src/merge/index.ts';
import { countWhere, evalPredicate, selectAnd, selectWhere, type BatchCtx } from '../src/leaf/expr.ts';
import { GroupAggregator } from '../src/leaf/groupby.ts';
import { int32View, type ColumnView, type PreparedColumn, type PreparedShard } from '../src/leaf/shard.ts';
import { validity } from './helpers/views.ts';

const EXACT = 2 ** 53;

/** An int64 view as the leaf builds it: doubles with maxAbs, or bigints beyond 2^53. */
function intView(values: readonly (bigint | null)[]): ColumnView {
  const valid = validity(values);
  if (values.some((v) => v !== null && (v >= BigInt(EXACT) || v <= -BigInt(EXACT)))) return { t: 'big', values: BigInt64Array.from(values.map((v) => v ?? 0n)), valid };
  const vals = Float64Array.from(values.map((v) => (v === null ? 0 : Number(v))));
  let maxAbs = 0;
  for (const v of values) if (v !== null && Math.abs(Number(v)) > maxAbs) maxAbs = Math.abs(Number(v));
  // With the int32 view the leaf builds for small values (the branch-free range kernels).
  return { t: 'num', values: vals, valid, maxAbs, words: null, i32: int32View(vals) };
}

interface Batch {
  readonly s: readonly (number | null)[]; // dictionary codes
  readonly k: readonly (bigint | null)[]; // small-range int64 key
  readonly i: readonly (bigint | null)[]; // int64 values
  readonly t: readonly (number | null)[]; // timestamps, µs
}

/** A shard over s (dictionary string, entries `dict` of which some may be unused), k, i (int64), t (timestamp). */
function shardOf(dict: readonly string[], batches: readonly Batch[]): PreparedShard {
  const rank = Int32Array.from(dict.map((_, c) => c)).sort((a, b) => (dict[a]! < dict[b]! ? -1 : dict[a]! > dict[b]! ? 1 : 0));
  const ranks = new Int32Array(dict.length);
  rank.forEach((c, r) => (ranks[c] = r));
  const range = (xs: readonly (bigint | null)[]): number[] => xs.filter((v): v is bigint => v !== null).map(Number);
  const column = (name: string, type: ColumnType, views: ColumnView[], nums: number[]): PreparedColumn => ({ name, type, batches: views, min: nums.length === 0 ? null : Math.min(...nums), max: nums.length === 0 ? null : Math.max(...nums) });
  const columns = new Map<string, PreparedColumn>([
    ['s', column('s', 'string', batches.map((b) => ({ t: 'str', codes: Int32Array.from(b.s.map((c) => c ?? 0)), valid: validity(b.s), strings: dict, rank: ranks })), [])],
    ['k', column('k', 'int64', batches.map((b) => intView(b.k)), batches.flatMap((b) => range(b.k)))],
    ['i', column('i', 'int64', batches.map((b) => intView(b.i)), batches.flatMap((b) => range(b.i)).filter((x) => Math.abs(x) < EXACT))],
    [
      't',
      column(
        't',
        'timestamp',
        batches.map((b) => ({ t: 'num', values: Float64Array.from(b.t.map((x) => x ?? 0)), valid: validity(b.t), maxAbs: Math.max(0, ...b.t.map((x) => Math.abs(x ?? 0))), words: null })),
        batches.flatMap((b) => b.t.filter((x): x is number => x !== null)),
      ),
    ],
  ]);
  return {
    id: 0,
    schema: { name: 't', columns: [...columns.values()].map((c) => ({ name: c.name, type: c.type })) } as unknown as PreparedShard['schema'],
    rows: batches.reduce((n, b) => n + b.s.length, 0),
    batchRows: batches.map((b) => b.s.length),
    columns,
  };
}

const dictArb = fc.uniqueArray(fc.oneof(fc.constantFrom('SFO', 'sfo', 'LAX', 'S_x', 'S%', 'ORD', '', 'x', 'X', 'abx', '\ufeffz', 'é'), fc.string({ maxLength: 4 })), { minLength: 1, maxLength: 12 });
const nullable = <T>(a: fc.Arbitrary<T>, freq: number): fc.Arbitrary<T | null> => fc.option(a, { freq, nil: null });
const valueArb = fc.oneof({ weight: 8, arbitrary: fc.bigInt({ min: -1000n, max: 1000n }) }, { weight: 1, arbitrary: fc.constantFrom(2n ** 53n - 1n, -(2n ** 53n) + 1n, 2n ** 52n, 2n ** 63n - 1n, -(2n ** 63n)) });

/** A dictionary and 1-3 batches of 0-40 rows; NULLs in a column only when `nulls` (else the fused loop takes the batches). */
const shardArb = fc.tuple(dictArb, fc.boolean(), fc.boolean()).chain(([dict, nulls, extremes]) =>
  fc
    .array(
      fc.integer({ min: 0, max: 40 }).chain((n) => {
        const f = nulls ? 5 : 1e9;
        const vals = extremes ? valueArb : fc.bigInt({ min: -1000n, max: 1000n });
        return fc.record({
          s: fc.array(nullable(fc.integer({ min: 0, max: dict.length - 1 }), f), { minLength: n, maxLength: n }),
          k: fc.array(nullable(fc.bigInt({ min: -5n, max: 5n }), f), { minLength: n, maxLength: n }),
          i: fc.array(nullable(vals, f), { minLength: n, maxLength: n }),
          t: fc.array(nullable(fc.integer({ min: -3 * 86_400_000_000, max: 3 * 86_400_000_000 }), f), { minLength: n, maxLength: n }),
        });
      }),
      { minLength: 1, maxLength: 3 },
    )
    .map((batches) => ({ dict, batches })),
);

const col = (name: string): Expr => ({ kind: 'col', name }) as Expr;

/** The value of `e` at row i of batch b, by the scalar semantics (the general path). */
function rowRef(e: Expr, shard: PreparedShard, b: number, i: number): Scalar {
  if (e.kind === 'col') {
    const c = shard.columns.get(e.name)!;
    return scalarAt(c.batches[b]!, c.type, i);
  }
  return evalScalarNode(e as Exclude<Expr, { kind: 'col' }>, (c) => rowRef(c as Expr, shard, b, i));
}

/**
 * Adds every batch of `shard` to `agg` (all rows, or with `selected` a selection drawn from
 * `seed`), then calls `row(b, i, key)` for each added row, `key` the JSON of its group keys.
 */
function feedBatches(agg: GroupAggregator, shard: PreparedShard, keys: readonly { readonly expr: Expr }[], selected: boolean, seed: number, row: (b: number, i: number, key: string) => void): void {
  for (let b = 0; b < shard.batchRows.length; b++) {
    const rows = shard.batchRows[b]!;
    const chosen = Array.from({ length: rows }, (_, i) => i).filter((i) => !selected || ((seed >>> (i % 31)) & 1) === 1);
    agg.addBatch({ shard, batch: b, rows }, selected ? Int32Array.from(chosen) : null, selected ? chosen.length : rows);
    for (const i of chosen) row(b, i, JSON.stringify(keys.map((k) => String(rowRef(k.expr, shard, b, i)))));
  }
}

const KEYS: readonly { readonly expr: Expr; readonly type: ColumnType }[] = [
  { expr: col('s'), type: 'string' },
  { expr: col('k'), type: 'int64' },
  { expr: { kind: 'extract', field: 'hour', arg: col('t'), type: 'int64' } as Expr, type: 'int64' },
];

/** FILTERs of COUNT(*): a comparison, IS NOT NULL of a comparison (always TRUE on batches without NULLs in k), a LIKE. */
const F1: Expr = { kind: 'cmp', op: '>', left: col('i'), right: { kind: 'lit', value: 0n, type: 'int64' } } as Expr;
const F2: Expr = { kind: 'isnull', arg: { kind: 'cmp', op: '<', left: col('k'), right: { kind: 'lit', value: 2n, type: 'int64' } }, negated: true } as Expr;
const F3: Expr = { kind: 'like', arg: col('s'), pattern: { kind: 'lit', value: 'S%', type: 'string' }, negated: false, caseInsensitive: true, escape: null } as Expr;

describe('fused group loop (COUNT, COUNT(x), int64 SUM, COUNT(*) FILTER per dense group) = row by row', () => {
  it('one or two dense keys, with and without a selection, NULLs, int64 extremes, empty batches, unused dictionary entries', () => {
    fc.assert(
      fc.property(shardArb, fc.subarray([0, 1, 2], { minLength: 1, maxLength: 2 }), fc.boolean(), fc.integer(), fc.subarray([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], { minLength: 1 }), ({ dict, batches }, keyIdx, selected, seed, use) => {
        const shard = shardOf(dict, batches);
        const keys = keyIdx.map((k) => KEYS[k]!);
        const specs: PartialSpec[] = [
          { kind: 'count_star', arg: null },
          { kind: 'sum', arg: col('i') },
          { kind: 'count', arg: col('i') },
          { kind: 'count', arg: col('s') },
          { kind: 'sum', arg: col('k') },
          { kind: 'count_star', arg: null, filter: F1 },
          { kind: 'count_star', arg: null, filter: F2 },
          { kind: 'count_star', arg: null, filter: F3 },
          // MIN / MAX: fused when over the one summed vector (one of them), else updated per partial.
          { kind: 'max', arg: col('i') },
          { kind: 'min', arg: col('i') },
          { kind: 'min', arg: col('k') },
        ];
        // A subset of the partials: zero, one or two SUM vectors (each fused loop shape).
        const argTypes: (ColumnType | null)[] = [null, 'int64', 'int64', 'string', 'int64', null, null, null, 'int64', 'int64', 'int64'];
        const agg = new GroupAggregator(shard, keys.map((k, n) => ({ name: `k${n}`, expr: k.expr, type: k.type })), use.map((u) => specs[u]!), use.map((u) => argTypes[u]!), 1e6, () => {
          throw new Error('too many groups');
        });
        const want = new Map<string, [number, bigint | null, number, number, bigint | null, number, number, number, bigint | null, bigint | null, bigint | null]>();
        feedBatches(agg, shard, keys, selected, seed, (b, i, key) => {
          const w = want.get(key) ?? [0, null, 0, 0, null, 0, 0, 0, null, null, null];
          [F1, F2, F3].forEach((f, k) => {
            if (rowRef(f, shard, b, i) === true) w[5 + k]!++;
          });
          const iv = rowRef(col('i'), shard, b, i) as bigint | null;
          const kv = rowRef(col('k'), shard, b, i) as bigint | null;
          w[0]++;
          if (iv !== null) {
            w[1] = (w[1] ?? 0n) + iv;
            w[2]++;
            if (w[8] === null || iv > w[8]) w[8] = iv;
            if (w[9] === null || iv < w[9]) w[9] = iv;
          }
          if (kv !== null && (w[10] === null || kv < w[10])) w[10] = kv;
          if (rowRef(col('s'), shard, b, i) !== null) w[3]++;
          if (kv !== null) w[4] = (w[4] ?? 0n) + kv;
          want.set(key, w);
        });
        const r = agg.result();
        const got = new Map<string, unknown[]>();
        const big = (x: unknown): bigint | null => (x === null || x === undefined ? null : BigInt(x as bigint));
        // int64 sums are numbers while safe integers, bigints beyond (IntSum): compared as bigints.
        const conv = [Number, big, Number, Number, big, Number, Number, Number, big, big, big] as const;
        for (let g = 0; g < r.size; g++) got.set(JSON.stringify(r.keys.map((ks) => String(ks[g]))), use.map((u, p) => conv[u]!(r.states[p]![g])));
        expect(new Map([...got].sort())).toEqual(new Map([...want].map(([k, w]) => [k, use.map((u) => w[u])] as const).sort()));
      }),
      { numRuns: 300 },
    );
  });
});

describe('moments power partials (Σx², Σx³, Σx⁴ of a summed column, for estimates) fused into the group loop = row by row', () => {
  it('beside COUNT, SUM and COUNT(x) (the per-code loop), beside MAX (per-batch groups), beside a second SUM (not fused); NULLs and int64 extremes take the general path', () => {
    fc.assert(
      fc.property(shardArb, fc.subarray([0, 1, 2], { minLength: 1, maxLength: 2 }), fc.boolean(), fc.integer(), fc.constantFrom('i', 'k'), fc.constantFrom('alone', 'max', 'second-sum'), ({ dict, batches }, keyIdx, selected, seed, arg, beside) => {
        const shard = shardOf(dict, batches);
        const keys = keyIdx.map((k) => KEYS[k]!);
        const specs: PartialSpec[] = [
          { kind: 'count_star', arg: null },
          { kind: 'sum', arg: col(arg) },
          { kind: 'count', arg: col(arg) },
          { kind: 'moments', arg: null, power: { of: 1, exp: 2 } },
          { kind: 'moments', arg: null, power: { of: 1, exp: 3 } },
          { kind: 'moments', arg: null, power: { of: 1, exp: 4 } },
          ...(beside === 'max' ? [{ kind: 'max', arg: col('i') } as PartialSpec] : beside === 'second-sum' ? [{ kind: 'sum', arg: col(arg === 'i' ? 'k' : 'i') } as PartialSpec] : []),
        ];
        const argTypes: (ColumnType | null)[] = [null, 'int64', 'int64', null, null, null, 'int64'];
        const agg = new GroupAggregator(shard, keys.map((k, n) => ({ name: `k${n}`, expr: k.expr, type: k.type })), specs, argTypes.slice(0, specs.length), 1e6, () => {
          throw new Error('too many groups');
        });
        const want = new Map<string, [number, number, number] | null>();
        const maxI = new Map<string, bigint | null>();
        let exact = true;
        feedBatches(agg, shard, keys, selected, seed, (b, i, key) => {
          const v = rowRef(col(arg), shard, b, i) as bigint | null;
          const iv = rowRef(col('i'), shard, b, i) as bigint | null;
          const m = maxI.get(key) ?? null;
          maxI.set(key, iv !== null && (m === null || iv > m) ? iv : m);
          const w = want.get(key) ?? null;
          if (v === null) {
            want.set(key, w);
            return;
          }
          const x = Number(v);
          if (Math.abs(x) > 1000) exact = false;
          want.set(key, [(w?.[0] ?? 0) + x * x, (w?.[1] ?? 0) + x * x * x, (w?.[2] ?? 0) + x * x * x * x]);
        });
        const r = agg.result();
        expect(r.size).toBe(want.size);
        for (let g = 0; g < r.size; g++) {
          const key = JSON.stringify(r.keys.map((ks) => String(ks[g])));
          const st = [3, 4, 5].map((p) => r.states[p]![g] as number);
          if (beside === 'max') expect(r.states[6]![g] === null ? null : BigInt(r.states[6]![g] as bigint), key).toBe(maxI.get(key));
          const w = want.get(key);
          expect(w, key).not.toBeUndefined();
          // A group whose values are all NULL sums nothing: 0.
          if (w === null) {
            expect(st).toEqual([0, 0, 0]);
            continue;
          }
          // Small integers: every power sum is an exact double whatever the order of addition.
          if (exact) expect(st).toEqual(w);
          else w!.forEach((x, k) => expect(Math.abs(st[k]! - x)).toBeLessThanOrEqual(1e-12 * Math.abs(x)));
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('SUM(int64) FILTER (WHERE col op k) without GROUP BY (one masked pass) = row by row', () => {
  it('every comparison operator, NULLs (general path), int64 extremes, empty batches', () => {
    const filterArb = fc
      .tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>='), fc.constantFrom('k', 'i', 't'), fc.oneof(fc.bigInt({ min: -6n, max: 6n }), fc.constant(0n)), fc.boolean())
      .map(([op, c, k, swap]) => {
        const lit = { kind: 'lit', value: c === 't' ? Number(k) * 3_600_000_000 : k, type: c === 't' ? 'timestamp' : 'int64' } as Expr;
        return (swap ? { kind: 'cmp', op, left: lit, right: col(c) } : { kind: 'cmp', op, left: col(c), right: lit }) as Expr;
      });
    fc.assert(
      fc.property(shardArb, filterArb, fc.constantFrom('i', 'k'), ({ dict, batches }, filter, arg) => {
        const shard = shardOf(dict, batches);
        const agg = new GroupAggregator(shard, [], [{ kind: 'sum', arg: col(arg), filter }, { kind: 'count_star', arg: null, filter }], ['int64', null], 1e6, () => {
          throw new Error('too many groups');
        });
        let sum: bigint | null = null;
        let rows = 0;
        for (let b = 0; b < shard.batchRows.length; b++) {
          const n = shard.batchRows[b]!;
          agg.addBatch({ shard, batch: b, rows: n }, null, n);
          for (let i = 0; i < n; i++) {
            if (rowRef(filter, shard, b, i) !== true) continue;
            rows++;
            const v = rowRef(col(arg), shard, b, i) as bigint | null;
            if (v !== null) sum = (sum ?? 0n) + v;
          }
        }
        const r = agg.result();
        if (shard.rows === 0) return;
        const s0 = r.states[0]![0] as number | bigint | null;
        expect([s0 === null ? null : BigInt(s0), Number(r.states[1]![0])]).toEqual([sum, rows]);
      }),
      { numRuns: 300 },
    );
  });
});

describe('[NOT] [I]LIKE on a dictionary column by code; IS [NOT] NULL of NULL-free comparisons', () => {
  const likeArb = fc.tuple(fc.constantFrom('S%', '%x', '_', '%', '', 'S\\_%', 'S!%', '%é%', 'sfo'), fc.boolean(), fc.boolean(), fc.constantFrom(null, '\\', '!')).map(
    ([pattern, negated, caseInsensitive, escape]) => ({ kind: 'like', arg: col('s'), pattern: { kind: 'lit', value: pattern, type: 'string' }, negated, caseInsensitive, escape }) as Expr,
  );
  const truth = (v: Scalar): number => (v === null ? 1 : v === true ? 2 : 0);

  it('truth per row, WHERE selection, AND narrowing and COUNT(*) WHERE = the row-by-row LIKE', () => {
    fc.assert(
      fc.property(shardArb, likeArb, likeArb, ({ dict, batches }, e1, e2) => {
        const shard = shardOf(dict, batches);
        // The reference regex itself is the scalar semantics' (likeRegex); check it is used per row as evalScalarNode does.
        expect(likeRegex('a%', false, null).test('abc')).toBe(true);
        const and: Expr = { kind: 'and', args: [e1, e2] } as Expr;
        const or: Expr = { kind: 'or', args: [e1, e2] } as Expr;
        for (let b = 0; b < shard.batchRows.length; b++) {
          const rows = shard.batchRows[b]!;
          const ctx: BatchCtx = { shard, batch: b, rows };
          for (const e of [e1, and, or]) {
            const want = Array.from({ length: rows }, (_, i) => truth(rowRef(e, shard, b, i)));
            expect(Array.from(evalPredicate(e, ctx))).toEqual(want);
            const trueRows = want.flatMap((t, i) => (t === 2 ? [i] : []));
            const sel = new Int32Array(rows);
            expect(Array.from(sel.subarray(0, selectWhere(e, ctx, sel)))).toEqual(trueRows);
            const counted = countWhere(e, ctx);
            if (counted >= 0) expect(counted).toBe(trueRows.length);
            if (e.kind === 'and') {
              const m = selectAnd(e as Extract<Expr, { kind: 'and' }>, ctx, sel);
              if (m >= 0) expect(Array.from(sel.subarray(0, m))).toEqual(trueRows);
            }
          }
        }
      }),
      { numRuns: 200 },
    );
  });

  it('IS [NOT] NULL of a comparison (column against literal, NULL literal, two columns) = row by row', () => {
    const cmpArb = fc.tuple(fc.constantFrom('=', '<', '>='), fc.constantFrom(col('i'), col('k'), col('s')), fc.constantFrom<Expr>({ kind: 'lit', value: 3n, type: 'int64' } as Expr, { kind: 'lit', value: null, type: 'null' } as Expr, col('k')), fc.boolean()).map(
      ([op, l, r, negated]) => ({ kind: 'isnull', arg: { kind: 'cmp', op, left: l, right: l.kind === 'col' && (l as { name: string }).name === 's' && r.kind === 'col' ? l : r }, negated }) as Expr,
    );
    fc.assert(
      fc.property(shardArb, cmpArb, ({ dict, batches }, e) => {
        const shard = shardOf(dict, batches);
        for (let b = 0; b < shard.batchRows.length; b++) {
          const rows = shard.batchRows[b]!;
          const want = Array.from({ length: rows }, (_, i) => truth(rowRef(e, shard, b, i)));
          expect(Array.from(evalPredicate(e, { shard, batch: b, rows }))).toEqual(want);
        }
      }),
      { numRuns: 200 },
    );
  });
});

describe('CASE WHEN cond THEN a ELSE b END inputs (integer constants) summed from the fused counts = row by row', () => {
  it('SUM, COUNT and moments powers of the CASE beside a FILTER on the same or another condition, a MIN of it (its vector), a condition that is no column test (its vector), selections, NULLs', () => {
    const lit = (v: bigint | number, type: ColumnType): Expr => ({ kind: 'lit', value: v, type }) as Expr;
    const condArb = fc.oneof(
      fc.tuple(fc.constantFrom('=', '!=', '<', '<=', '>', '>='), fc.constantFrom('k', 'i'), fc.bigInt({ min: -6n, max: 6n })).map(([op, c, k]) => ({ kind: 'cmp', op, left: col(c), right: lit(k, 'int64') }) as Expr),
      fc.constant(F3),
      // IS NOT NULL of a comparison: not a column test (the CASE's own vector).
      fc.constant(F2),
    );
    const caseArb = fc.tuple(condArb, fc.integer({ min: -3, max: 3 }), fc.integer({ min: -3, max: 3 }), fc.constantFrom<ColumnType>('int64', 'float64')).map(
      ([when, a, b, type]) => ({ kind: 'case', operand: null, whens: [{ when, then: lit(type === 'int64' ? BigInt(a) : a, type) }], else: lit(type === 'int64' ? BigInt(b) : b, type), type }) as Extract<Expr, { kind: 'case' }>,
    );
    fc.assert(
      fc.property(shardArb, fc.subarray([0, 1, 2], { minLength: 1, maxLength: 2 }), fc.boolean(), fc.integer(), caseArb, caseArb, fc.constantFrom('alone', 'filter', 'min', 'second'), ({ dict, batches }, keyIdx, selected, seed, c1, c2, beside) => {
        const shard = shardOf(dict, batches);
        const keys = keyIdx.map((k) => KEYS[k]!);
        const t1 = c1.type;
        const when1 = c1.whens[0]!.when;
        const specs: PartialSpec[] = [
          { kind: 'count_star', arg: null },
          { kind: 'sum', arg: c1 },
          { kind: 'count', arg: c1 },
          { kind: 'moments', arg: null, power: { of: 1, exp: 2 } },
          { kind: 'moments', arg: null, power: { of: 1, exp: 4 } },
          ...(beside === 'filter' ? [{ kind: 'count_star', arg: null, filter: when1 } as PartialSpec] : beside === 'min' ? [{ kind: 'min', arg: c1 } as PartialSpec] : beside === 'second' ? [{ kind: 'sum', arg: c2 } as PartialSpec] : []),
        ];
        const argTypes: (ColumnType | null)[] = [null, t1, t1, null, null, beside === 'filter' ? null : beside === 'min' ? t1 : c2.type];
        const agg = new GroupAggregator(shard, keys.map((k, n) => ({ name: `k${n}`, expr: k.expr, type: k.type })), specs, argTypes.slice(0, specs.length), 1e6, () => {
          throw new Error('too many groups');
        });
        // Per group: rows, Σ c1, count(c1), Σ c1², Σ c1⁴, then the extra partial.
        const want = new Map<string, number[]>();
        feedBatches(agg, shard, keys, selected, seed, (b, i, key) => {
          const w = want.get(key) ?? [0, 0, 0, 0, 0, beside === 'min' ? Infinity : 0];
          const x = Number(rowRef(c1, shard, b, i));
          w[0]!++;
          w[1]! += x;
          w[2]!++;
          w[3]! += x ** 2;
          w[4]! += x ** 4;
          if (beside === 'filter') w[5]! += rowRef(when1, shard, b, i) === true ? 1 : 0;
          else if (beside === 'min') w[5] = Math.min(w[5]!, x);
          else if (beside === 'second') w[5]! += Number(rowRef(c2, shard, b, i));
          want.set(key, w);
        });
        const r = agg.result();
        const got = new Map<string, number[]>();
        // A float64 SUM's state is its exact expansion (not fused: its vector's path).
        const num = (x: unknown): number => (x !== null && typeof x === 'object' ? fsumValue(x as FloatSum) : Number(x as number | bigint));
        for (let g = 0; g < r.size; g++) got.set(JSON.stringify(r.keys.map((ks) => String(ks[g]))), specs.map((_, p) => num(r.states[p]![g])));
        expect(new Map([...got].sort())).toEqual(new Map([...want].map(([k, w]) => [k, w.slice(0, specs.length)] as const).sort()));
      }),
      { numRuns: 400 },
    );
  });
});
