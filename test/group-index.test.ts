import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { GroupIndex, type KeyDict } from '../src/merge/group-index.ts';
import type { Scalar } from '../src/merge/index.ts';

/** Ids a GroupIndex gives the tuples, checked against a Map of their JSON (ids in order of first appearance). */
function expectIds(tuples: readonly (readonly Scalar[])[], idOf: (t: readonly Scalar[], i: number, index: GroupIndex) => number): void {
  const index = new GroupIndex(2);
  const ref = new Map<string, number>();
  tuples.forEach((t, i) => {
    const key = JSON.stringify(t);
    let g = idOf(t, i, index);
    if (g < 0) {
      expect(ref.has(key), `tuple ${key} (row ${i}) was added before`).toBe(false);
      g = index.insert();
      ref.set(key, g);
    }
    expect(g, `tuple ${key} (row ${i})`).toBe(ref.get(key));
  });
  expect(index.size).toBe(ref.size);
}

// Few distinct values per key keep the dense pair table; many (up to 2,000 a side) grow it and pass its
// 2^18 cells, which moves the groups to the hash table mid-way.
const value = (n: number): fc.Arbitrary<Scalar> => fc.oneof({ arbitrary: fc.noBias(fc.integer({ min: 0, max: n })).map((i) => `v${i}`), weight: 8 }, { arbitrary: fc.constant(null), weight: 1 }, { arbitrary: fc.integer({ min: -3, max: 3 }), weight: 1 });
// Tuples drawn (with repeats) from a pool: later rows meet tuples added before the table grew or moved.
const drawn = (n: number, pool: number, rows: number): fc.Arbitrary<Scalar[][]> =>
  fc.array(fc.tuple(value(n), value(n)), { minLength: 1, maxLength: pool, size: 'max' }).chain((p) => fc.array(fc.nat(p.length - 1), { maxLength: rows, size: 'max' }).map((ix) => ix.map((i) => p[i]!)));
const tuples = fc.oneof(drawn(20, 100, 400), drawn(150, 600, 1500), drawn(2000, 2000, 3000));

describe('GroupIndex, two keys', () => {
  it('find / insert: one id per distinct tuple, whatever the number of codes per key', () => {
    fc.assert(fc.property(tuples, (ts) => expectIds(ts, (t, _i, index) => index.find([[t[0]!], [t[1]!]], 0))), { numRuns: 25, endOnFailure: true });
  });

  it('findCoded2 over dictionaries, mixed with findTuple: the same ids', () => {
    fc.assert(
      fc.property(tuples, fc.integer({ min: 1, max: 4 }), (ts, every) => {
        const dict = (k: number): KeyDict => {
          const values: Scalar[] = [];
          const codes = new Int32Array(ts.length);
          const seen = new Map<string, number>();
          ts.forEach((t, i) => {
            const key = JSON.stringify(t[k]);
            let c = seen.get(key);
            if (c === undefined) seen.set(key, (c = values.push(t[k]!) - 1));
            codes[i] = c;
          });
          return { codes, values };
        };
        const d0 = dict(0);
        const d1 = dict(1);
        const m0 = new Int32Array(d0.values.length).fill(-1);
        const m1 = new Int32Array(d1.values.length).fill(-1);
        expectIds(ts, (t, i, index) => (i % every === 0 ? index.findTuple(t) : index.findCoded2(d0, d1, m0, m1, i)));
      }),
      { numRuns: 25, endOnFailure: true },
    );
  });

  it('a key pair past the dense table after groups were added: earlier tuples keep their ids', () => {
    const ts: Scalar[][] = [];
    for (let i = 0; i < 300; i++) ts.push([`a${i % 17}`, `b${i % 23}`]);
    for (let i = 0; i < 1200; i++) ts.push([`a${i}`, `b${(i * 7) % 1000}`]);
    for (let i = 0; i < 300; i++) ts.push([`a${i % 17}`, `b${i % 23}`]);
    expectIds(ts, (t, _i, index) => index.findTuple(t));
  });
});
