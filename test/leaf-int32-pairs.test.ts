/**
 * Property tests of COUNT over packed int16-pair views (src/leaf/int32.ts: packPairs, the
 * SWAR countRange two rows per 32-bit operation) against the plain double comparison
 * `x op c`: every operator; constants inside, at and past the packed lanes' ends (±0x3fff,
 * ±0x4000), non-integers, ±Infinity; values at the packed limits; odd and even row counts,
 * counts of a prefix of the view; batches longer than one SWAR chunk (lane counters must not
 * overflow). int32View packs every view whose values fit, so the scan's COUNT(*) WHERE takes
 * this path for such columns. The packed words sit in the WebAssembly SIMD arena
 * (src/leaf/simd.ts: eight rows per 128-bit operation, the last words by SWAR); the last
 * test runs the SWAR-only path too (CANOPY_SIMD=0, as where WebAssembly SIMD is missing).
 */
import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import { countRange, intRangeOf, packPairs, PAIR_LIMIT } from '../src/leaf/int32.ts';
import { int32View } from '../src/leaf/shard.ts';
import { OPS, holds } from './helpers/cmp-ops.ts';


const valueArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -20, max: 20 }) },
  { weight: 2, arbitrary: fc.integer({ min: -PAIR_LIMIT, max: PAIR_LIMIT }) },
  { weight: 1, arbitrary: fc.constantFrom(PAIR_LIMIT, -PAIR_LIMIT, PAIR_LIMIT - 1, -PAIR_LIMIT + 1, 0) },
);
const constArb = fc.oneof(
  { weight: 6, arbitrary: fc.integer({ min: -22, max: 22 }) },
  { weight: 2, arbitrary: fc.double({ min: -25, max: 25, noNaN: true }) },
  { weight: 2, arbitrary: fc.integer({ min: -PAIR_LIMIT - 3, max: PAIR_LIMIT + 3 }) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(-0, 0.5, -0.5, Infinity, -Infinity, PAIR_LIMIT, -PAIR_LIMIT, PAIR_LIMIT + 1, -PAIR_LIMIT - 1, 0x4000, -0x4000, 0x4001, -0x4001, 0x7fff, -0x8000, 2 ** 30, -(2 ** 30), 2 ** 40, PAIR_LIMIT + 0.5, -PAIR_LIMIT - 0.5),
  },
);

describe('COUNT of a range test over packed int16 pairs = x op c on doubles', () => {
  it('every operator, odd and even counts, a prefix of the view, constants past the lanes', () => {
    fc.assert(
      fc.property(fc.array(valueArb, { maxLength: 120 }), fc.nat(), fc.constantFrom(...OPS), constArb, (xs, cut, op, c) => {
        const v = int32View(Float64Array.from(xs))!;
        // The packed view int32View registered is the one countRange reads (built the same way again here).
        expect(packPairs(v)).toBe(true);
        const n = xs.length === 0 ? 0 : cut % (xs.length + 1);
        const r = intRangeOf(op, c)!;
        const want = xs.slice(0, n).filter((x) => holds(op, x, c)).length;
        expect(countRange(v, r, n)).toBe(want);
      }),
      { numRuns: 2000 },
    );
  });

  it('batches longer than one SWAR chunk (2^16 rows), values at the limits', () => {
    let seed = 12345;
    const next = (): number => {
      seed = (Math.imul(seed, 1103515245) + 12345) >>> 0;
      return seed;
    };
    for (const len of [140_001, 131_072]) {
      // Mostly one value (so each lane counter would pass 2^16 in one pass), the rest spread.
      const xs = Array.from({ length: len }, () => (next() % 8 === 0 ? (next() % (2 * PAIR_LIMIT + 1)) - PAIR_LIMIT : 7));
      const v = int32View(Float64Array.from(xs))!;
      for (const [op, c] of [['=', 7], ['!=', 7], ['>', 6], ['<', 8], ['>=', -PAIR_LIMIT], ['<=', PAIR_LIMIT], ['>', 100], ['<', -100]] as const) {
        expect(countRange(v, intRangeOf(op, c)!, len), `${op} ${c}`).toBe(xs.filter((x) => holds(op, x, c)).length);
      }
    }
  });

  it('one value over 600,000 rows: the SIMD lane counters (16 bits) are summed before they wrap', () => {
    const len = 600_003;
    const xs = new Float64Array(len).fill(-3);
    xs[len - 2] = 5;
    const v = int32View(xs)!;
    expect(countRange(v, intRangeOf('=', -3)!, len)).toBe(len - 1);
    expect(countRange(v, intRangeOf('<=', 0)!, len)).toBe(len - 1);
    expect(countRange(v, intRangeOf('>', -4)!, len)).toBe(len);
  });

  it('views with a value past ±0x3fff are not packed (the per-row kernel counts them)', () => {
    expect(packPairs(Int32Array.of(0, PAIR_LIMIT + 1))).toBe(false);
    expect(packPairs(Int32Array.of(0, 1, -PAIR_LIMIT - 1))).toBe(false);
    const v = int32View(Float64Array.of(5, PAIR_LIMIT + 1, 5))!;
    expect(countRange(v, intRangeOf('=', 5)!, 3)).toBe(2);
  });
});

describe('the same counts without the SIMD arena (CANOPY_SIMD=0: SWAR over plain arrays)', () => {
  it('agrees with x op c on doubles, short and multi-chunk views', async () => {
    vi.resetModules();
    vi.stubEnv('CANOPY_SIMD', '0');
    try {
      const simd = await import('../src/leaf/simd.ts');
      expect(simd.simdArena()).toBeNull();
      const k = await import('../src/leaf/int32.ts');
      const s = await import('../src/leaf/shard.ts');
      fc.assert(
        fc.property(fc.array(valueArb, { maxLength: 300 }), fc.nat(), fc.constantFrom(...OPS), constArb, (xs, cut, op, c) => {
          const v = s.int32View(Float64Array.from(xs))!;
          const n = xs.length === 0 ? 0 : cut % (xs.length + 1);
          expect(k.countRange(v, k.intRangeOf(op, c)!, n)).toBe(xs.slice(0, n).filter((x) => holds(op, x, c)).length);
        }),
        { numRuns: 500 },
      );
      const xs = Array.from({ length: 140_001 }, (_, i) => (i % 9 === 0 ? (i % (2 * PAIR_LIMIT + 1)) - PAIR_LIMIT : 7));
      const v = s.int32View(Float64Array.from(xs))!;
      expect(k.countRange(v, k.intRangeOf('=', 7)!, xs.length)).toBe(xs.filter((x) => x === 7).length);
    } finally {
      vi.unstubAllEnvs();
      vi.resetModules();
    }
  });

  it('the arena path is the one taken by default (WebAssembly SIMD is there on Node 20)', async () => {
    const simd = await import('../src/leaf/simd.ts');
    expect(simd.simdArena()).not.toBeNull();
  });
});
