/**
 * Distinct-count states merged in place (copy-on-write in the gather's accumulator) equal the
 * pure merge, never change the partials merged in, and never change a snapshot taken earlier:
 * random groups of int64 and string values split over many partials, with sets that cross
 * the exact limit into sparse and dense sketches.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { PartialAccumulator, groupsOf, hllFromSet, layoutOf, type GroupEntry, type HllState, type Partial, type ScanPlan, type TableSchema } from '../src/merge/index.ts';
import { hllEncode, hllEquals, hllMerge } from '../src/merge/kinds/hll/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'i', type: 'int64' }, { name: 's', type: 'string' }] };
const plan: ScanPlan = {
  table: 't',
  filter: null,
  groupBy: [{ name: 'g', expr: { kind: 'col', name: 'g' }, type: 'string' }],
  partials: [{ kind: 'hll', arg: { kind: 'col', name: 'i' } }, { kind: 'hll', arg: { kind: 'col', name: 's' } }, { kind: 'count_star', arg: null }],
  rows: null,
  maxGroups: 1000,
};
const layout = layoutOf(plan, schema);

/** One child's partial: per group, a range of ints [from, from + n) and strings. */
const childArb = fc.array(
  fc.record({ g: fc.constantFrom('a', 'b', '😀'), from: fc.integer({ min: 0, max: 30_000 }), n: fc.oneof(fc.integer({ min: 0, max: 40 }), fc.integer({ min: 1000, max: 9000 })) }),
  { minLength: 1, maxLength: 3 },
);

function partialOf(child: { g: string; from: number; n: number }[]): Partial {
  const groups = new Map<string, GroupEntry>();
  for (const c of child) {
    if (groups.has(c.g)) continue;
    const ints = new Set<number>();
    const strs = new Set<string>();
    for (let k = 0; k < c.n; k++) {
      ints.add(c.from + k);
      strs.add(`v${(c.from + k) % 5000}`);
    }
    groups.set(JSON.stringify([c.g]), { keys: [c.g], states: [hllFromSet('int64', ints), hllFromSet('string', strs), BigInt(c.n)] });
  }
  return { type: 'groups', groups };
}

function encoded(p: Partial): string {
  if (p.type === 'rows') throw new Error('expected groups');
  return [...groupsOf(p).values()].map((e) => e.states.slice(0, 2).map((s, i) => (s === null ? 'null' : Buffer.from(hllEncode(i === 0 ? 'int64' : 'string', s as Exclude<HllState, null>)).toString('base64'))).join('|')).join(';');
}

function statesOf(p: Partial): Map<string, HllState[]> {
  if (p.type === 'rows') throw new Error('expected groups');
  return new Map([...groupsOf(p).values()].map((e) => [String(e.keys[0]), e.states.slice(0, 2) as HllState[]]));
}

describe('in-place distinct merges in the accumulator', () => {
  it('equal the pure merge; inputs and earlier snapshots stay as they were', () => {
    fc.assert(
      fc.property(fc.array(childArb, { minLength: 1, maxLength: 8 }), fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }), (children, snapAfter) => {
        const parts = children.map(partialOf);
        const before = parts.map(encoded);
        const acc = new PartialAccumulator(layout);
        const pure = new Map<string, HllState[]>();
        const snaps: { snap: Map<string, HllState[]>; expected: Map<string, HllState[]> }[] = [];
        parts.forEach((p, k) => {
          acc.add(p);
          for (const [g, st] of statesOf(p)) {
            const cur = pure.get(g);
            pure.set(g, cur === undefined ? st : [hllMerge('int64', cur[0]!, st[0]!), hllMerge('string', cur[1]!, st[1]!)]);
          }
          if (snapAfter[k] === true) snaps.push({ snap: statesOf(acc.result()), expected: new Map([...pure].map(([g, s]) => [g, s.slice()])) });
        });
        const final = statesOf(acc.result());
        expect([...final.keys()].sort()).toEqual([...pure.keys()].sort());
        for (const [g, st] of pure) {
          expect(hllEquals(final.get(g)![0]!, st[0]!), `int states of ${g}`).toBe(true);
          expect(hllEquals(final.get(g)![1]!, st[1]!), `string states of ${g}`).toBe(true);
        }
        for (const { snap, expected } of snaps) {
          for (const [g, st] of expected) {
            expect(hllEquals(snap.get(g)![0]!, st[0]!), `snapshot of ${g} changed later`).toBe(true);
            expect(hllEquals(snap.get(g)![1]!, st[1]!)).toBe(true);
          }
        }
        expect(parts.map(encoded)).toEqual(before);
      }),
      { numRuns: 60, seed: 5 },
    );
  });
});
