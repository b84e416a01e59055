/**
 * Issue 15 (per-group cost): the typed pieces of the group merge against the simple path.
 * - GroupIndex with one key (numbers hashed on their bits straight to group ids) gives the ids
 *   a Map by groupKeyString gives, for every key type with NULL, NaN, -0, int64 extremes and
 *   repeats, across table growth and reserve;
 * - kthLargest (the aggregators' top-k cut) equals a sorted copy's element;
 * - a frame whose top-k bounds were recorded as own scores is checked group by group again
 *   once its arrays are swapped (a spread), so a header never claims `own` wrongly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupIndex, decodeFrame, encodeFrame, groupKeyString, layoutOf, truncateTopK, type ColumnarPartial, type Frame, type Scalar, type ScanPlan, type TableSchema, type ValueVec } from '../src/merge/index.ts';
import { kthLargest } from '../src/merge/topk.ts';

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

const oneKey: fc.Arbitrary<Scalar> = fc.oneof(
  fc.constantFrom<Scalar>(null, Number.NaN, -0, 0, Infinity, -Infinity, 1.5e15, I64_MAX, I64_MIN, 0n, '', 'a', true, false),
  fc.integer({ min: -5, max: 5 }),
  fc.double(),
  fc.bigInt({ min: I64_MIN, max: I64_MAX }),
  fc.string({ maxLength: 3 }),
);

describe('GroupIndex with one key (issue 15)', () => {
  it('one id per distinct value with groupKeyString equality, with and without reserve', () => {
    fc.assert(
      fc.property(fc.array(oneKey, { maxLength: 3000 }), fc.integer({ min: 0, max: 4000 }), (values, reserve) => {
        const index = new GroupIndex(1);
        if (reserve > 0) index.reserve(reserve);
        const ids = new Map<string, number>();
        values.forEach((v, i) => {
          const key = groupKeyString([v]);
          const g = i % 2 === 0 ? index.findTuple([v]) : index.find([values], i);
          if (g < 0) {
            expect(ids.has(key)).toBe(false);
            ids.set(key, index.insert());
          } else expect(g).toBe(ids.get(key));
        });
        expect(index.size).toBe(ids.size);
      }),
      { numRuns: 80, seed: 15 },
    );
  });

  it('a lookup that misses and is not inserted leaves the table as it was', () => {
    const index = new GroupIndex(1);
    for (let i = 0; i < 1000; i++) {
      expect(index.findTuple([i + 0.5])).toBe(-1);
      if (i % 3 === 0) index.insert();
    }
    for (let i = 0; i < 1000; i++) expect(index.findTuple([i + 0.5])).toBe(i % 3 === 0 ? i / 3 : -1);
  });
});

describe('kthLargest (issue 15)', () => {
  it('equals the sorted copy at n - k, repeats, ±Infinity and -0 included', () => {
    const value = fc.oneof(fc.constantFrom(0, -0, 1, 2, Infinity, -Infinity, -Number.MAX_VALUE), fc.integer({ min: -3, max: 3 }), fc.double({ noNaN: true }));
    fc.assert(
      fc.property(fc.array(value, { minLength: 1, maxLength: 400 }), fc.nat(), fc.boolean(), (xs, kk, small) => {
        const a = Float64Array.from(xs);
        // small: k <= n / 8 (the heap); else any k (a sorted copy above n / 8).
        const k = 1 + (kk % (small ? Math.max(1, a.length >> 3) : a.length));
        const want = a.slice().sort()[a.length - k]!;
        const got = kthLargest(a, k);
        expect(got === want).toBe(true);
        expect(Array.from(a)).toEqual(xs.map((x) => x));
      }),
      { numRuns: 500, seed: 15 },
    );
  });
});

describe('own-score top-k frames (issue 15)', () => {
  const schema: TableSchema = { name: 't', columns: [{ name: 'd', type: 'timestamp' }] };
  const plan: ScanPlan = {
    table: 't',
    filter: null,
    groupBy: [{ name: 'd', expr: { kind: 'col', name: 'd' }, type: 'timestamp' }],
    partials: [{ kind: 'count_star', arg: null }],
    rows: null,
    maxGroups: 100_000,
    topk: { partial: 0, sign: 1, combine: 'add', fetch: 3 },
  };
  const layout = layoutOf(plan, schema);
  it('says own: true only while its bounds are the groups\' own scores, after spreads that swap an array', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.double({ noNaN: true, min: -1e15, max: 1e15 }), fc.integer({ min: 1, max: 9 })), { maxLength: 40 }), fc.constantFrom('same', 'his', 'exact', 'states'), (rows, swap) => {
        const byKey = new Map(rows.map(([k, c]) => [groupKeyString([k]), [k, c] as const]));
        const groups = [...byKey.values()];
        const p: ColumnarPartial = { type: 'columnar', size: groups.length, keys: [groups.map((g) => g[0])], states: [groups.map((g) => g[1])] };
        const t = truncateTopK(layout, plan.topk!, p, null, -Infinity, 1);
        const n = t.partial.size;
        const his = swap === 'his' ? t.topk.his.map((h) => h + 1) : t.topk.his;
        const exact = swap === 'exact' ? t.topk.exact.map((_, i) => i !== 0) : t.topk.exact;
        const partial: ColumnarPartial = swap === 'states' ? { ...t.partial, states: [t.partial.states[0]!.map((c) => (c as number) + 1)] } : t.partial;
        const frame: Frame = { partial, provenance: [], rowsScanned: 1, topk: { ...t.topk, his, exact } };
        const bytes = encodeFrame(layout, frame);
        const header = new TextDecoder().decode(bytes);
        const own = swap === 'same' || n === 0;
        expect(header.includes('"own":true')).toBe(own);
        const back = decodeFrame(layout, bytes);
        expect(back.topk?.his).toEqual(own ? Array.from(partial.states[0]!) : his);
      }),
      { numRuns: 200, seed: 15 },
    );
  });
});

describe('moments states in a frame at any byte offset (issue 15)', () => {
  const schema: TableSchema = { name: 't', columns: [{ name: 's', type: 'string' }] };
  const plan = {
    table: 't',
    filter: null,
    groupBy: [{ name: 's', expr: { kind: 'col', name: 's' }, type: 'string' }],
    partials: [{ kind: 'count_star', arg: null }, { kind: 'moments', arg: null, pair: [0, -1] }],
    rows: null,
    maxGroups: 1000,
  } as unknown as ScanPlan;
  const layout = layoutOf(plan, schema);
  it('decodes the same moments sums (any double, -0 kept) from a misaligned copy of the bytes, from arrays and Float64Arrays', () => {
    fc.assert(
      fc.property(fc.uniqueArray(fc.string({ maxLength: 4 }), { maxLength: 30 }), fc.integer({ min: 0, max: 7 }), fc.double(), fc.boolean(), (keys, shift, x, typed) => {
        const sums = keys.map((_, i) => (i % 3 === 0 ? x : i % 3 === 1 ? -0 : i * x));
        const p: ColumnarPartial = { type: 'columnar', size: keys.length, keys: [keys], states: [keys.map((_, i) => i + 1), typed ? Float64Array.from(sums) : sums] };
        const bytes = encodeFrame(layout, { partial: p, provenance: [], rowsScanned: 1 });
        const shifted = new Uint8Array(bytes.length + shift);
        shifted.set(bytes, shift);
        const a = decodeFrame(layout, bytes).partial as ColumnarPartial;
        const b = decodeFrame(layout, shifted.subarray(shift)).partial as ColumnarPartial;
        expect(b.keys).toEqual(a.keys);
        expect(b.states[0]).toEqual(a.states[0]);
        const tag = (v: unknown): unknown => (Object.is(v, -0) ? 'm0' : v);
        for (const got of [a, b]) expect(Array.from(got.states[1]!, tag)).toEqual(sums.map(tag));
      }),
      { numRuns: 100, seed: 15 },
    );
  });
});

describe('moments power sums per group at the leaf (issue 15)', () => {
  it('equal Σx², Σx³, Σx⁴ (one partial each) summed row by row per group, with NULLs, a selection, bigint views and groups without rows', async () => {
    const { momentsPartial } = await import('../src/merge/aggregates/moments.ts');
    const specs = [1, 2].flatMap((of) => ([2, 3, 4] as const).map((exp) => ({ kind: 'moments' as const, arg: null, power: { of, exp } })));
    const partials = [{ kind: 'count_star' as const, arg: null }, { kind: 'sum' as const, arg: { kind: 'col' as const, name: 'a' } }, { kind: 'sum' as const, arg: { kind: 'col' as const, name: 'b' } }];
    const row = fc.record({ a: fc.option(fc.oneof(fc.integer({ min: -9, max: 9 }), fc.double({ noNaN: true, min: -1e6, max: 1e6 })), { freq: 4 }), b: fc.option(fc.integer({ min: -1000, max: 1000 }), { freq: 4 }), g: fc.nat(6), pick: fc.boolean() });
    fc.assert(
      fc.property(fc.array(fc.array(row, { maxLength: 40 }), { minLength: 1, maxLength: 4 }), fc.boolean(), fc.boolean(), (batches, select, big) => {
        const accs = specs.map((spec) => momentsPartial.accumulator(spec, null, partials));
        expect(specs.map((spec) => momentsPartial.inputs(spec, partials))).toEqual(specs.map((spec) => [partials[spec.power.of]!.arg]));
        const want = new Map<number, number[]>();
        let groups = 0;
        for (const rows of batches) {
          const n = rows.length;
          const bitmap = (key: 'a' | 'b'): Uint8Array => {
            const m = new Uint8Array(Math.ceil(n / 8) + 1);
            rows.forEach((r, i) => {
              if (r[key] !== null) m[i >> 3]! |= 1 << (i & 7);
            });
            return m;
          };
          const view = (key: 'a' | 'b', asBig: boolean): ValueVec => {
            const valid = { bitmap: bitmap(key), offset: 0 };
            if (asBig) return { t: 'big', values: BigInt64Array.from(rows.map((r) => BigInt(Math.trunc(r[key] ?? 0)))), valid } as ValueVec;
            return { t: 'num', values: Float64Array.from(rows.map((r) => r[key] ?? 0)), valid, maxAbs: 1e6, words: null } as ValueVec;
          };
          const sel = select ? Int32Array.from(rows.flatMap((r, i) => (r.pick ? [i] : []))) : null;
          const m = sel === null ? n : sel.length;
          const gids = Int32Array.from({ length: m }, (_, j) => rows[sel === null ? j : sel[j]!]!.g);
          groups = Math.max(groups, ...Array.from(gids, (g) => g + 1), 1);
          accs.forEach((acc, q) => acc.update([q < 3 ? view('a', false) : view('b', big)], sel, gids, m, groups));
          for (let j = 0; j < m; j++) {
            const r = rows[sel === null ? j : sel[j]!]!;
            const vals = [r.a, r.b === null ? null : big ? Math.trunc(r.b) : r.b];
            vals.forEach((x, k) => {
              if (x === null) return;
              const s = want.get(r.g) ?? [0, 0, 0, 0, 0, 0];
              const x2 = x * x;
              s[3 * k]! += x2;
              s[1 + 3 * k]! += x2 * x;
              s[2 + 3 * k]! += x2 * x2;
              want.set(r.g, s);
            });
          }
        }
        // A group without rows sums nothing: 0. The state column is the states.
        for (let g = 0; g < groups; g++) expect(accs.map((acc) => acc.state(g))).toEqual(want.get(g) ?? [0, 0, 0, 0, 0, 0]);
        for (const acc of accs) expect(Array.from(acc.stateColumn!(groups)!)).toEqual(Array.from({ length: groups }, (_, g) => acc.state(g)));
      }),
      { numRuns: 300, seed: 15 },
    );
  });
});
