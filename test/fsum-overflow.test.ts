/**
 * SUM over float64 is the exact sum rounded once, whatever the shard split and arrival
 * order, also when a running sum passes the double range: 1e308 + 1e308 - 1e308 is 1e308
 * in every order (the expansion had folded an overflowing running sum into Infinity, so one
 * split answered Infinity and another 1e308, both labelled exact). Checked against the exact
 * rational sum (BigInt in units of 2^-1074) rounded half to even.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fsumAdd, fsumEmpty, fsumMerge, fsumValue, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { fsumDecode, fsumEncode } from '../src/merge/fsum.ts';
import { answerToJSON } from '../src/root/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const view = new DataView(new ArrayBuffer(8));

/** x (finite) as an exact integer multiple of 2^-1074. */
function units(x: number): bigint {
  view.setFloat64(0, x);
  const bits = view.getBigUint64(0);
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & ((1n << 52n) - 1n);
  const mant = exp === 0 ? frac : frac | (1n << 52n);
  const m = mant << BigInt(exp === 0 ? 0 : exp - 1);
  return bits >> 63n === 1n ? -m : m;
}

/** The double nearest to t·2^-1074 (half to even; ±Infinity past the range). */
function nearest(t: bigint): number {
  if (t === 0n) return 0;
  const neg = t < 0n;
  let a = neg ? -t : t;
  const len = a.toString(2).length;
  let shift = 0;
  if (len > 53) {
    shift = len - 53;
    const q = a >> BigInt(shift);
    const rem = a - (q << BigInt(shift));
    const half = 1n << BigInt(shift - 1);
    a = rem > half || (rem === half && (q & 1n) === 1n) ? q + 1n : q;
  }
  let v = Number(a);
  let e = shift - 1074;
  while (e > 0) {
    const k = Math.min(e, 1000);
    v *= 2 ** k;
    e -= k;
  }
  while (e < 0) {
    const k = Math.max(e, -1000);
    v *= 2 ** k;
    e -= k;
  }
  return neg ? -v : v;
}

const exact = (xs: readonly number[]): number => nearest(xs.reduce((s, x) => s + units(x), 0n));

const value = fc.oneof(
  fc.constantFrom(1e308, -1e308, Number.MAX_VALUE, -Number.MAX_VALUE, 2 ** 1000, -(2 ** 970), 2 ** 969, 1.5 * 2 ** 969, 5e-324, -5e-324, 1, -1, 0.1, 1e-300),
  fc.double({ noNaN: true, noDefaultInfinity: true }),
);

describe('float SUM past the double range in between', () => {
  it('one order, any split, any merge order and the wire round trip: the exact sum rounded once', () => {
    fc.assert(
      fc.property(fc.array(value, { maxLength: 12 }), fc.array(fc.nat({ max: 3 }), { maxLength: 12 }), (xs, cut) => {
        const want = exact(xs);
        const one = fsumEmpty();
        for (const x of xs) fsumAdd(one, x);
        expect(fsumValue(one)).toBe(want);
        const rev = fsumEmpty();
        for (const x of [...xs].reverse()) fsumAdd(rev, x);
        expect(fsumValue(rev)).toBe(want);
        const parts = [fsumEmpty(), fsumEmpty(), fsumEmpty(), fsumEmpty()];
        xs.forEach((x, k) => fsumAdd(parts[cut[k] ?? 0]!, x));
        const merged = parts.map((p) => fsumDecode(fsumEncode(p))).reduceRight((a, b) => fsumMerge(b, a));
        expect(fsumValue(merged)).toBe(want);
      }),
      { numRuns: 400, seed: 5 },
    );
  });

  it('SELECT sum(f) over 1e308, 1e308, -1e308 is 1e308 on every split (was Infinity on some, labelled exact)', async () => {
    const schema: TableSchema = { name: 't', columns: [{ name: 'f', type: 'float64' }] };
    const r = (x: number): Scalar[] => [x];
    for (const shards of [[[r(1e308), r(1e308), r(-1e308)]], [[r(1e308), r(-1e308)], [r(1e308)]], [[r(1e308)], [r(1e308)], [r(-1e308)]]]) {
      const a = answerToJSON(await ask(inProcessRoot(schema, shards, { fanout: 2 }).root, 'SELECT sum(f) AS s, avg(f) AS a FROM t'));
      expect(a.label).toBe('exact');
      expect(a.rows).toEqual([[1e308, 1e308 / 3]]);
    }
  });
});
