/**
 * Interval arithmetic (src/merge/interval.ts): for random intervals holding random truths,
 * every operator's output interval holds the output's truth (fast-check).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { absInterval, arithInterval, compareIntervals, contains, hull, monotoneInterval, negInterval, type Interval } from '../src/merge/interval.ts';
import { arith } from '../src/merge/scalar.ts';
import type { ArithOp, CmpOp } from '../src/merge/types.ts';

const finite = fc.oneof(fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }), fc.integer({ min: -1000, max: 1000 }), fc.constantFrom(0, -0, 1, -1, 0.1, 1e-300, 2 ** 53));
/** An interval with a truth inside it: three numbers sorted, the middle one the truth; ends sometimes unbounded. */
const held = fc.tuple(finite, finite, finite, fc.boolean(), fc.boolean()).map(([a, b, c, openLo, openHi]) => {
  const [lo, t, hi] = [a, b, c].sort((x, y) => x - y) as [number, number, number];
  const i: Interval = { lo: openLo ? null : lo, hi: openHi ? null : hi };
  return { i, t };
});

describe('interval arithmetic holds the truth', () => {
  it.each(['+', '-', '*', '/', '%'] as ArithOp[])('a %s b', (op) => {
    fc.assert(
      fc.property(held, held, ({ i: a, t: x }, { i: b, t: y }) => {
        const out = arithInterval(op, a, b);
        const truth = arith(op, 'float64', x, y) as number | null;
        if (truth === null || Number.isNaN(truth)) return; // NULL / undefined results carry no bound
        expect(contains(out, truth)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it('division by an interval holding 0 is unbounded', () => {
    const out = arithInterval('/', { lo: 1, hi: 2 }, { lo: -1, hi: 3 });
    expect(out).toEqual({ lo: null, hi: null });
  });

  it('negation, abs, hull and monotone functions', () => {
    fc.assert(
      fc.property(held, held, ({ i, t }, { i: j, t: u }) => {
        expect(contains(negInterval(i), -t)).toBe(true);
        expect(contains(absInterval(i), Math.abs(t))).toBe(true);
        expect(contains(hull(i, j), t) && contains(hull(i, j), u)).toBe(true);
        expect(contains(monotoneInterval(i, Math.floor, true), Math.floor(t))).toBe(true);
        expect(contains(monotoneInterval(i, Math.exp), Math.exp(t))).toBe(true);
        expect(contains(monotoneInterval(i, (x) => Math.sign(x) * Math.round(Math.abs(x) * 10) / 10), Math.sign(t) * Math.round(Math.abs(t) * 10) / 10)).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(['=', '!=', '<', '<=', '>', '>='] as CmpOp[])('a %s b: the true outcome is possible', (op) => {
    fc.assert(
      fc.property(held, held, ({ i: a, t: x }, { i: b, t: y }) => {
        const r = compareIntervals(op, a, b);
        const truth = op === '=' ? x === y : op === '!=' ? x !== y : op === '<' ? x < y : op === '<=' ? x <= y : op === '>' ? x > y : x >= y;
        expect(truth ? r.maybeTrue : r.maybeFalse).toBe(true);
      }),
      { numRuns: 2000 },
    );
  });
});
