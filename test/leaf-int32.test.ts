/**
 * Property tests of the branch-free int32 range kernels (src/leaf/int32.ts) against the plain
 * double comparison `x op c`: every operator, constants that are integers, non-integers,
 * ±0, ±Infinity and far outside the int32 range, values at the view's limits ±(2^30 - 1),
 * empty batches; selection, refinement, truths, counts and masked sums (double and int32).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { countRange, I32_LIMIT, intRangeOf, maskedSumRange, refineRange, selectRange, triRange } from '../src/leaf/int32.ts';
import { int32View } from '../src/leaf/shard.ts';
import { OPS, holds } from './helpers/cmp-ops.ts';


const valueArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -20, max: 20 }) },
  { weight: 2, arbitrary: fc.integer({ min: -I32_LIMIT, max: I32_LIMIT }) },
  { weight: 1, arbitrary: fc.constantFrom(I32_LIMIT, -I32_LIMIT, I32_LIMIT - 1, -I32_LIMIT + 1, 0) },
);
const constArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -22, max: 22 }) },
  { weight: 2, arbitrary: fc.double({ min: -25, max: 25, noNaN: true }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(-0, 0.5, -0.5, Infinity, -Infinity, I32_LIMIT, -I32_LIMIT, I32_LIMIT + 1, -I32_LIMIT - 1, 2 ** 30, -(2 ** 30), 2 ** 31, -(2 ** 31), 2 ** 40, -(2 ** 40), 2 ** 53, 1e300, -1e300, I32_LIMIT + 0.5),
  },
);

describe('int32 range kernels = x op c on doubles', () => {
  it('count, select, refine, truths and masked sums, every operator', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { maxLength: 60 }), fc.constantFrom(...OPS), constArb, fc.constantFrom(...OPS), constArb, (xs, op, c, op2, c2) => {
        const v = Int32Array.from(xs);
        const n = xs.length;
        const r = intRangeOf(op, c)!;
        const want = xs.map((x) => holds(op, x, c));
        const wantIdx = want.flatMap((w, i) => (w ? [i] : []));
        expect(countRange(v, r, n)).toBe(wantIdx.length);
        const sel = new Int32Array(n);
        const m = selectRange(v, r, n, sel);
        expect([...sel.subarray(0, m)]).toEqual(wantIdx);
        // Refined by a second test: the rows where both hold.
        const r2 = intRangeOf(op2, c2)!;
        const m2 = refineRange(v, r2, sel, m);
        expect([...sel.subarray(0, m2)]).toEqual(wantIdx.filter((i) => holds(op2, xs[i]!, c2)));
        const tri = new Uint8Array(n);
        triRange(v, r, n, tri);
        expect([...tri]).toEqual(want.map((w) => (w ? 2 : 0)));
        const x = Float64Array.from(xs);
        const sum = wantIdx.reduce((s, i) => s + xs[i]!, 0);
        expect(maskedSumRange(v, r, x, null, n)).toEqual({ rows: wantIdx.length, sum });
        // The int32 sum only where the caller's bound holds (n · max|x| < 2^31).
        const maxAbs = xs.reduce((a, y) => Math.max(a, Math.abs(y)), 0);
        if (n * maxAbs < 2 ** 31) expect(maskedSumRange(v, r, x, v, n)).toEqual({ rows: wantIdx.length, sum });
      }),
      { numRuns: 1000 },
    );
  });

  it('a NaN constant has no range form; the int32 view exists only within ±(2^30 - 1)', () => {
    for (const op of OPS) expect(intRangeOf(op, NaN)).toBeNull();
    expect(int32View(Float64Array.of(0, I32_LIMIT, -I32_LIMIT))).toEqual(Int32Array.of(0, I32_LIMIT, -I32_LIMIT));
    expect(int32View(Float64Array.of(0, I32_LIMIT + 1))).toBeNull();
    expect(int32View(Float64Array.of(-(2 ** 53)))).toBeNull();
    expect(int32View(new Float64Array(0))).toEqual(new Int32Array(0));
  });
});
