/**
 * Sorted runs of COUNT over integer keys on a grid (issue 15): the runs are held unmerged and
 * merged through one dense array at collapse. Against a Map merge written the obvious way,
 * over random grids (steps of 1, 3, a minute in µs, 2^40; anchors up to ±2^52), runs that
 * leave the grid half-way (a key off the step, a fraction, -0, a key past ±2^52, a state
 * column that is not a Float64Array, a domain too sparse), snapshots between adds, and the
 * cancellation hook.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { SortedRuns } from '../src/merge/sorted-runs.ts';
import { countKind } from '../src/merge/kinds/count.ts';

const kind = countKind('count_star', null);

interface RunSpec {
  readonly keys: number[];
  readonly counts: number[];
  readonly typed: boolean;
}

const MINUTE_US = 60_000_000;

/** Runs on one grid (anchor + j·step, j < span), some with one odd key that leaves it. */
const runsArb = fc
  .record({
    step: fc.constantFrom(1, 3, MINUTE_US, 2 ** 40),
    anchor: fc.oneof(fc.constantFrom(0, 978_307_260_000_000, -(2 ** 51)), fc.integer({ min: -1e6, max: 1e6 })),
    span: fc.integer({ min: 1, max: 400 }),
    // Half the cases stay on the grid throughout (every run typed, no odd key).
    pure: fc.boolean(),
    runs: fc.array(
      fc.record({
        js: fc.uniqueArray(fc.nat(399), { maxLength: 80 }),
        counts: fc.array(fc.nat(9), { minLength: 81, maxLength: 81 }),
        typed: fc.constantFrom(true, true, true, false),
        odd: fc.constantFrom<'none' | 'offstep' | 'fraction' | 'negzero' | 'huge'>('none', 'none', 'none', 'none', 'none', 'offstep', 'fraction', 'negzero', 'huge'),
      }),
      { maxLength: 40 },
    ),
  })
  .map(({ step, anchor, span, pure, runs }): RunSpec[] =>
    runs.map((raw) => {
      const r = pure ? { ...raw, typed: true, odd: 'none' } : raw;
      let keys = r.js.filter((j) => j < span).map((j) => anchor + j * step);
      if (r.odd === 'offstep' && step > 1) keys.push(anchor + 1);
      if (r.odd === 'fraction') keys.push(anchor + 0.5);
      if (r.odd === 'negzero') keys = keys.filter((k) => k !== 0).concat([-0]);
      if (r.odd === 'huge') keys.push(2 ** 53);
      keys = [...new Set(keys)].sort((a, b) => a - b);
      return { keys, counts: keys.map((_, i) => r.counts[i % 81]!), typed: r.typed };
    }),
  );

function referenceMerge(runs: readonly RunSpec[]): Map<number, number> {
  const m = new Map<number, number>();
  for (const r of runs) r.keys.forEach((k, i) => m.set(k === 0 ? 0 : k, (m.get(k === 0 ? 0 : k) ?? 0) + r.counts[i]!));
  return m;
}

function collapsed(sr: SortedRuns): { keys: number[]; counts: number[] } {
  const r = sr.collapse();
  return { keys: Array.from(r.keys).slice(0, r.size), counts: Array.from(r.states[0]! as ArrayLike<number>).slice(0, r.size) };
}

function expectEqual(got: { keys: number[]; counts: number[] }, want: Map<number, number>): void {
  const sorted = [...want].sort((a, b) => a[0] - b[0]);
  expect(got.keys).toEqual(sorted.map((e) => e[0]));
  expect(got.counts).toEqual(sorted.map((e) => e[1]));
  // No key comes back as -0 unless it was -0 (the grid never makes one).
  for (let i = 1; i < got.keys.length; i++) expect(got.keys[i]!).toBeGreaterThan(got.keys[i - 1]!);
}

describe('sorted runs on a grid (COUNT over integer keys)', () => {
  it('collapse equals the Map merge, with snapshots between adds; runs are never written', () => {
    fc.assert(
      fc.property(runsArb, fc.array(fc.boolean(), { maxLength: 40 }), (runs, snapAfter) => {
        const sr = new SortedRuns([kind]);
        const inputs = runs.map((r) => ({ keys: r.typed ? Float64Array.from(r.keys) : r.keys, counts: r.typed ? Float64Array.from(r.counts) : r.counts }));
        const copies = inputs.map((x) => ({ keys: Array.from(x.keys), counts: Array.from(x.counts) }));
        inputs.forEach((x, i) => {
          sr.add(x.keys, [x.counts], x.keys.length);
          if (snapAfter[i] === true) {
            expectEqual(collapsed(sr), referenceMerge(runs.slice(0, i + 1)));
            expect(sr.held).toBe(referenceMerge(runs.slice(0, i + 1)).size);
          }
        });
        expectEqual(collapsed(sr), referenceMerge(runs));
        expect(sr.held).toBe(referenceMerge(runs).size);
        inputs.forEach((x, i) => {
          expect(Array.from(x.keys)).toEqual(copies[i]!.keys);
          expect(Array.from(x.counts)).toEqual(copies[i]!.counts);
        });
      }),
      { numRuns: 500, seed: 15 },
    );
  });

  it('a -0 key keeps its sign, and keys far apart (a sparse grid) merge as sorted runs', () => {
    const sr = new SortedRuns([kind]);
    sr.add(Float64Array.of(-3, -0, 5), [Float64Array.of(1, 2, 3)], 3);
    sr.add(Float64Array.of(-3, 5), [Float64Array.of(1, 1)], 2);
    const r = sr.collapse();
    expect(Object.is(r.keys[1], -0)).toBe(true);
    expect(Array.from(r.states[0]! as Float64Array)).toEqual([2, 2, 4]);
    // 40 runs of 3 keys each spread over a million slots: too sparse for the dense array.
    const sparse = new SortedRuns([kind]);
    const want = new Map<number, number>();
    for (let i = 0; i < 40; i++) {
      const keys = [i, 500_000 + i, 1_000_000 - i].sort((a, b) => a - b);
      sparse.add(Float64Array.from(keys), [Float64Array.of(1, 1, 1)], 3);
      for (const k of keys) want.set(k, (want.get(k) ?? 0) + 1);
    }
    expectEqual(collapsed(sparse), want);
  });

  it('calls the check hook while merging a large grid, and its throw propagates', () => {
    let calls = 0;
    const sr = new SortedRuns([kind], () => {
      if (++calls === 3) throw new Error('cancelled');
    });
    for (let r = 0; r < 10; r++) {
      const keys = Float64Array.from({ length: 5000 }, (_, i) => (i * 10 + r) * MINUTE_US);
      sr.add(keys, [new Float64Array(5000).fill(1)], 5000);
    }
    expect(() => sr.collapse()).toThrow('cancelled');
    expect(calls).toBe(3);
  });
});
