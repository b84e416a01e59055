/**
 * The columnar PartialAccumulator (GroupIndex key codes, state columns) against a reference
 * merge written the obvious way: a Map by groupKeyString, kind.merge per state. Random keys
 * of every type with NULL, NaN, -0, int64 extremes and repeats; empty partials; many
 * children in entry or columnar form; snapshots taken between adds must not change later
 * (COUNT(DISTINCT)'s exact-set states are merged in place); the group limit and memory charge still fire.
 * Sorted-run mode (one numeric key, kinds that do not merge in place): ascending partials,
 * consecutive blocks of one answer and partials that end the mode half-way give the same.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  CanopyError,
  GroupIndex,
  MERGE_CHECK_EVERY,
  PartialAccumulator,
  groupEntriesOf,
  groupKeyString,
  groupsOf,
  layoutOf,
  partialsEqual,
  setKeyDict,
  sortedGroupBytes,
  type ColumnType,
  type GroupEntry,
  type Partial,
  type Scalar,
  type ScanPlan,
  type TableSchema,
} from '../src/merge/index.ts';
import { hllFromSet } from '../src/merge/kinds/hll/state.ts';

const schema: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 's', type: 'string' },
    { name: 't', type: 'timestamp' },
    { name: 'b', type: 'bool' },
  ],
};

const KEY_TYPES: readonly ColumnType[] = ['float64', 'int64', 'string', 'timestamp', 'bool'];
const NAMES: Record<string, string> = { float64: 'f', int64: 'i', string: 's', timestamp: 't', bool: 'b' };

function planOf(keyTypes: readonly ColumnType[], maxGroups = 100_000): ScanPlan {
  return {
    table: 't',
    filter: null,
    groupBy: keyTypes.map((type, k) => ({ name: `k${k}`, expr: { kind: 'col', name: NAMES[type]! }, type })),
    partials: [
      { kind: 'count_star', arg: null },
      { kind: 'sum', arg: { kind: 'col', name: 'i' } },
      { kind: 'max', arg: { kind: 'col', name: 'f' } },
      { kind: 'min', arg: { kind: 'col', name: 'i' } },
      { kind: 'hll', arg: { kind: 'col', name: 'f' } },
    ],
    rows: null,
    maxGroups,
  };
}

const I64_MAX = 2n ** 63n - 1n;
const I64_MIN = -(2n ** 63n);

function keyArb(t: ColumnType): fc.Arbitrary<Scalar> {
  switch (t) {
    case 'float64':
      return fc.oneof(fc.constantFrom<Scalar>(null, NaN, -0, 0, Infinity, -Infinity, 1.5), fc.integer({ min: -3, max: 3 }), fc.double());
    case 'int64':
      return fc.oneof(fc.constantFrom<Scalar>(null, I64_MAX, I64_MIN, 0n, 2n ** 53n + 1n), fc.bigInt({ min: -3n, max: 3n }));
    case 'string':
      return fc.oneof(fc.constantFrom<Scalar>(null, '', 'a', 'b', '😀', 'a|b', 's1:a'), fc.string({ maxLength: 3 }));
    case 'timestamp':
      return fc.oneof(fc.constantFrom<Scalar>(null, 0, -0, 8.64e15), fc.integer({ min: 0, max: 5 }).map((x) => x * 3_600_000_000));
    default:
      return fc.constantFrom<Scalar>(null, true, false);
  }
}

const stateArb = fc.record({
  n: fc.integer({ min: 0, max: 1000 }),
  sum: fc.option(fc.oneof(fc.bigInt({ min: -5n, max: 5n }), fc.constantFrom(I64_MAX, I64_MIN)), { nil: null }),
  max: fc.option(fc.oneof(fc.double(), fc.constantFrom(NaN, -0, 0)), { nil: null }),
  min: fc.option(fc.bigInt({ min: I64_MIN, max: I64_MAX }), { nil: null }),
  m: fc.option(fc.integer({ min: 0, max: 50 }), { nil: null }),
});

const caseArb = fc
  .integer({ min: 0, max: 3 })
  .chain((nk) => fc.array(fc.constantFrom(...KEY_TYPES), { minLength: nk, maxLength: nk }))
  .chain((keyTypes) =>
    fc.record({
      keyTypes: fc.constant(keyTypes),
      children: fc.array(
        fc.record({
          columnar: fc.boolean(),
          groups: fc.array(fc.record({ keys: fc.tuple(...keyTypes.map(keyArb)), st: stateArb }), { maxLength: 25 }),
        }),
        { maxLength: 12 },
      ),
      snapAfter: fc.array(fc.boolean(), { maxLength: 12 }),
    }),
  );

/** A child's partial: its groups made distinct (first one wins), in entry or columnar form. */
function childPartial(keyTypes: readonly ColumnType[], c: { columnar: boolean; groups: { keys: Scalar[]; st: { n: number; sum: bigint | null; max: number | null; min: bigint | null; m: number | null } }[] }): Partial {
  const seen = new Map<string, GroupEntry>();
  for (const g of c.groups) {
    const key = groupKeyString(g.keys);
    if (seen.has(key)) continue;
    const { n, sum, max, min, m } = g.st;
    seen.set(key, { keys: g.keys, states: [n, sum, max, min, m === null ? null : hllFromSet('float64', new Set([m, (m * 7) % 51]))] });
  }
  if (!c.columnar) return { type: 'groups', groups: seen };
  const entries = [...seen.values()];
  return { type: 'columnar', size: entries.length, keys: keyTypes.map((_, k) => entries.map((e) => e.keys[k]!)), states: [0, 1, 2, 3, 4].map((s) => entries.map((e) => e.states[s])) };
}

/** The reference merge: a Map by groupKeyString, kind.merge per state, first-seen keys. */
function referenceMerge(layout: ReturnType<typeof layoutOf>, parts: readonly Partial[]): Partial {
  const out = new Map<string, GroupEntry>();
  for (const p of parts) {
    if (p.type === 'rows') throw new Error('rows');
    for (const [key, e] of groupsOf(p)) {
      const cur = out.get(key);
      out.set(key, cur === undefined ? { keys: e.keys, states: e.states.slice() } : { keys: cur.keys, states: cur.states.map((s, i) => layout.kinds[i]!.merge(s, e.states[i])) });
    }
  }
  return { type: 'groups', groups: out };
}

/** A deep, comparable copy of a partial's states (distinct sets copied). */
function frozen(p: Partial): Map<string, unknown[]> {
  if (p.type === 'rows') throw new Error('rows');
  return new Map([...groupsOf(p)].map(([k, e]) => [k, structuredClone(e.states) as unknown[]]));
}

describe('columnar PartialAccumulator', () => {
  it('property: equals the reference merge over random keys (NULL, NaN, -0, int64 extremes), empty partials and many children; snapshots never change later', () => {
    fc.assert(
      fc.property(caseArb, ({ keyTypes, children, snapAfter }) => {
        const layout = layoutOf(planOf(keyTypes), schema);
        const parts = children.map((c) => childPartial(keyTypes, c));
        const before = parts.map(frozen);
        const acc = new PartialAccumulator(layout);
        const snaps: { snap: Partial; expected: Partial }[] = [];
        parts.forEach((p, i) => {
          acc.add(p);
          if (snapAfter[i] === true) snaps.push({ snap: acc.result(), expected: referenceMerge(layout, parts.slice(0, i + 1)) });
        });
        const got = acc.result();
        const want = referenceMerge(layout, parts);
        expect(got.type).toBe('columnar');
        expect(partialsEqual(layout, got, want)).toBe(true);
        // Groups come out in order of first arrival, with their first-seen keys.
        if (got.type !== 'rows' && want.type !== 'rows') expect([...groupsOf(got).values()].map((e) => e.keys)).toEqual([...groupsOf(want).values()].map((e) => e.keys));
        for (const { snap, expected } of snaps) expect(partialsEqual(layout, snap, expected)).toBe(true);
        expect(parts.map(frozen)).toEqual(before);
      }),
      { numRuns: 300, seed: 15 },
    );
  });

  it('property: groupEntriesOf gives the values of groupsOf, the same entry objects in the same order, whichever is asked first (finalise reads entries without the keyed map)', () => {
    fc.assert(
      fc.property(caseArb, fc.boolean(), ({ keyTypes, children }, entriesFirst) => {
        const layout = layoutOf(planOf(keyTypes), schema);
        const acc = new PartialAccumulator(layout);
        for (const c of children) acc.add(childPartial(keyTypes, c));
        const got = acc.result();
        if (got.type === 'rows') throw new Error('rows');
        const entries = entriesFirst ? groupEntriesOf(got) : null;
        const values = [...groupsOf(got).values()];
        const after = entries ?? groupEntriesOf(got);
        expect(after.length).toBe(values.length);
        after.forEach((e, i) => expect(e).toBe(values[i]));
        expect(groupEntriesOf(got)).toBe(after);
      }),
      { numRuns: 200, seed: 25 },
    );
  });

  it('property: string key columns carrying dictionaries (a leaf\'s codes, setKeyDict) merge as the same columns without them, two or three keys, COUNT-only states (the all-additions loop) or mixed', () => {
    const strKey = fc.oneof(fc.constantFrom<Scalar>(null, '', 'a', 'b', 'B', '😀'), fc.string({ maxLength: 2 }));
    fc.assert(
      fc.property(
        fc.integer({ min: 2, max: 3 }),
        fc.boolean(),
        fc.array(fc.record({ dict: fc.boolean(), rows: fc.array(fc.tuple(fc.array(strKey, { minLength: 3, maxLength: 3 }), fc.integer({ min: 0, max: 9 })), { maxLength: 40 }) }), { maxLength: 8 }),
        (nk, countOnly, children) => {
          const plan = planOf(Array.from({ length: nk }, (): ColumnType => 'string'));
          const layout = layoutOf(countOnly ? { ...plan, partials: [plan.partials[0]!] } : plan, schema);
          const parts: Partial[] = children.map((c) => {
            const seen = new Map<string, Scalar[]>();
            for (const [keys, n] of c.rows) if (!seen.has(groupKeyString(keys.slice(0, nk)))) seen.set(groupKeyString(keys.slice(0, nk)), [...keys.slice(0, nk), n]);
            const rows = [...seen.values()];
            const keys = Array.from({ length: nk }, (_, k) => rows.map((r) => r[k]!));
            if (c.dict)
              keys.forEach((col) => {
                // A dictionary as the leaf builds it: NULL at 0, values in order of first appearance.
                const values: Scalar[] = [null];
                const codes = new Int32Array(col.length);
                col.forEach((v, i) => {
                  let at = values.indexOf(v);
                  if (v === null) at = 0;
                  else if (at < 0) at = values.push(v) - 1;
                  codes[i] = at;
                });
                setKeyDict(col, { codes, values });
              });
            const count = Float64Array.from(rows, (r) => r[nk] as number);
            const states = countOnly ? [count] : [count, rows.map(() => null), rows.map(() => null), rows.map(() => null), rows.map(() => null)];
            return { type: 'columnar', size: rows.length, keys, states };
          });
          const acc = new PartialAccumulator(layout);
          for (const p of parts) acc.add(p);
          expect(partialsEqual(layout, acc.result(), referenceMerge(layout, parts))).toBe(true);
        },
      ),
      { numRuns: 200, seed: 17 },
    );
  });

  it('GroupIndex: one id per distinct tuple with groupKeyString equality, across table growth', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(keyArb('float64'), keyArb('string'), keyArb('int64')), { maxLength: 3000 }), (tuples) => {
        const index = new GroupIndex(3);
        const ids = new Map<string, number>();
        for (const t of tuples) {
          const key = groupKeyString(t);
          const g = index.findTuple(t);
          if (g < 0) {
            expect(ids.has(key)).toBe(false);
            ids.set(key, index.insert());
          } else expect(ids.get(key)).toBe(g);
        }
        expect(index.size).toBe(ids.size);
      }),
      { numRuns: 40, seed: 3 },
    );
  });

  it('GroupIndex.reserve (issue 15): the same ids with tables sized up front as grown on the way, one key or three', () => {
    fc.assert(
      fc.property(
        fc.array(fc.tuple(keyArb('float64'), keyArb('string'), keyArb('int64')), { maxLength: 2000 }),
        fc.array(fc.integer({ min: 0, max: 5000 }), { maxLength: 4 }),
        (tuples, reserves) => {
          for (const nk of [1, 3]) {
            const plain = new GroupIndex(nk);
            const sized = new GroupIndex(nk);
            const cols: Scalar[][] = Array.from({ length: nk }, (_, k) => tuples.map((t) => t[k]!));
            tuples.forEach((_, i) => {
              if (reserves.length > 0 && i % 500 === 0) sized.reserve(reserves[(i / 500) % reserves.length]!);
              const a = plain.find(cols, i);
              const b = sized.find(cols, i);
              expect(b).toBe(a);
              if (a < 0) expect(sized.insert()).toBe(plain.insert());
            });
            expect(sized.size).toBe(plain.size);
          }
        },
      ),
      { numRuns: 60, seed: 15 },
    );
  });

  it('keeps the group limit and charges memory per block of new groups', () => {
    const layout = layoutOf(planOf(['float64'], 10_000), schema);
    const many = (from: number, n: number): Partial => ({
      type: 'columnar',
      size: n,
      keys: [Array.from({ length: n }, (_, i) => from + i)],
      states: [new Array(n).fill(1), new Array(n).fill(null), new Array(n).fill(null), new Array(n).fill(null), new Array(n).fill(null)],
    });
    const charges: number[] = [];
    let checks = 0;
    const acc = new PartialAccumulator(layout, { charge: (b) => charges.push(b), check: () => checks++ });
    acc.add(many(0, 9000));
    acc.add(many(0, 9000)); // the same groups again: no new charge
    expect(acc.size).toBe(9000);
    expect(charges.length).toBe(Math.ceil(9000 / MERGE_CHECK_EVERY));
    expect(checks).toBe(2 * Math.floor(9000 / MERGE_CHECK_EVERY));
    expect(() => acc.add(many(9000, 1001))).toThrow(CanopyError);
    try {
      acc.add(many(20_000, 1001));
    } catch (e) {
      expect((e as CanopyError).code).toBe('CANOPY_ERR_LIMIT');
    }
  });

  // Sorted runs (issue 15): one float64 or timestamp key, COUNT/SUM/MAX/MIN (no COUNT(DISTINCT): it merges in place).
  const sortedPlan = (key: 'float64' | 'timestamp', maxGroups = 100_000): ScanPlan => {
    const p = planOf([key], maxGroups);
    return { ...p, partials: p.partials.filter((x) => x.kind !== 'hll') };
  };
  const sortedChild = fc.record({
    keys: fc.uniqueArray(fc.oneof(fc.integer({ min: -40, max: 40 }), fc.constantFrom(-0, 0.5, Infinity, -Infinity, 1e300)), { maxLength: 60, comparator: (a, b) => a === b }),
    // 0: ascending; 1: as drawn (usually not ascending); 2: ascending with a NULL or NaN key added.
    shape: fc.constantFrom(0, 0, 0, 0, 1, 2),
    odd: fc.constantFrom<Scalar>(null, NaN),
    blocks: fc.integer({ min: 1, max: 4 }),
    st: fc.array(stateArb, { minLength: 62, maxLength: 62 }),
  });
  it('sorted-run mode: equals the reference merge with ascending partials, blocks of one answer and a partial that ends the mode; snapshots never change; ascending keys out', () => {
    fc.assert(
      fc.property(fc.constantFrom<'float64' | 'timestamp'>('float64', 'timestamp'), fc.array(sortedChild, { maxLength: 14 }), fc.array(fc.boolean(), { maxLength: 14 }), (key, children, snapAfter) => {
        const layout = layoutOf(sortedPlan(key), schema);
        const parts: Partial[][] = children.map((c) => {
          let keys: Scalar[] = c.shape === 1 ? c.keys : [...c.keys].sort((a, b) => a - b);
          if (key === 'timestamp') keys = keys.filter((x) => typeof x !== 'number' || Number.isFinite(x));
          if (c.shape === 2) keys = [...keys, c.odd];
          const n = keys.length;
          const states = [0, 1, 2, 3].map((s) => keys.map((_, i) => { const { n: cnt, sum, max, min } = c.st[i]!; return [cnt, sum, max, min][s]; }));
          // Consecutive blocks of one answer (as the gather's sliced merge adds them).
          const per = Math.max(1, Math.ceil(n / c.blocks));
          const out: Partial[] = [];
          for (let from = 0; from < n; from += per) out.push({ type: 'columnar', size: Math.min(n, from + per) - from, keys: [keys.slice(from, from + per)], states: states.map((st) => st.slice(from, from + per)) });
          return out.length === 0 ? [{ type: 'columnar', size: 0, keys: [[]], states: [[], [], [], []] }] : out;
        });
        const flat = parts.flat();
        const before = flat.map(frozen);
        const acc = new PartialAccumulator(layout);
        const snaps: { snap: Partial; expected: Partial }[] = [];
        let added = 0;
        parts.forEach((blocks, i) => {
          for (const b of blocks) acc.add(b);
          added += blocks.length;
          if (snapAfter[i] === true) snaps.push({ snap: acc.result(), expected: referenceMerge(layout, flat.slice(0, added)) });
        });
        const got = acc.result();
        const want = referenceMerge(layout, flat);
        expect(partialsEqual(layout, got, want)).toBe(true);
        expect(acc.size).toBe(want.type === 'groups' ? want.groups.size : -1);
        if (children.every((c) => c.shape === 0) && got.type === 'columnar') {
          const ks = got.keys[0]! as number[];
          for (let i = 1; i < ks.length; i++) expect(ks[i]!).toBeGreaterThan(ks[i - 1]!);
        }
        for (const { snap, expected } of snaps) expect(partialsEqual(layout, snap, expected)).toBe(true);
        expect(flat.map(frozen)).toEqual(before);
      }),
      { numRuns: 300, seed: 15 },
    );
  });

  it('sorted-run mode over COUNT alone: partials of Float64Array columns (as frames decode) and of arrays, mixed, equal the reference merge', () => {
    const countPlan = (key: 'float64' | 'timestamp'): ScanPlan => ({ ...planOf([key]), partials: [{ kind: 'count_star', arg: null }] });
    fc.assert(
      fc.property(
        fc.constantFrom<'float64' | 'timestamp'>('float64', 'timestamp'),
        fc.array(fc.record({ keys: fc.uniqueArray(fc.integer({ min: -50, max: 50 }), { maxLength: 60 }), typed: fc.boolean(), sorted: fc.constantFrom(true, true, true, false), counts: fc.array(fc.integer({ min: 0, max: 9 }), { minLength: 60, maxLength: 60 }) }), { maxLength: 12 }),
        fc.array(fc.boolean(), { maxLength: 12 }),
        (key, children, snapAfter) => {
          const layout = layoutOf(countPlan(key), schema);
          const parts: Partial[] = children.map((c) => {
            const keys = c.sorted ? [...c.keys].sort((a, b) => a - b) : c.keys;
            const counts = keys.map((_, i) => c.counts[i]!);
            return c.typed ? { type: 'columnar', size: keys.length, keys: [Float64Array.from(keys)], states: [Float64Array.from(counts)] } : { type: 'columnar', size: keys.length, keys: [keys], states: [counts] };
          });
          const acc = new PartialAccumulator(layout);
          const snaps: { snap: Partial; expected: Partial }[] = [];
          parts.forEach((p, i) => {
            acc.add(p);
            if (snapAfter[i] === true) snaps.push({ snap: acc.result(), expected: referenceMerge(layout, parts.slice(0, i + 1)) });
          });
          expect(partialsEqual(layout, acc.result(), referenceMerge(layout, parts))).toBe(true);
          for (const { snap, expected } of snaps) expect(partialsEqual(layout, snap, expected)).toBe(true);
        },
      ),
      { numRuns: 300, seed: 15 },
    );
  });

  it('sorted-run mode keeps the group limit (counting repeated keys once) and charges memory per block of groups added', () => {
    const layout = layoutOf(sortedPlan('timestamp', 10_000), schema);
    const many = (from: number, n: number, step = 1): Partial => ({
      type: 'columnar',
      size: n,
      keys: [Array.from({ length: n }, (_, i) => (from + i * step) * 1e6)],
      states: [new Array(n).fill(1), new Array(n).fill(null), new Array(n).fill(null), new Array(n).fill(null)],
    });
    const charges: number[] = [];
    const acc = new PartialAccumulator(layout, { charge: (b) => charges.push(b) });
    acc.add(many(0, 9000));
    acc.add(many(0, 9000)); // the same groups again: held twice until merged, still 9,000 groups
    acc.add(many(0, 4500, 2));
    expect(acc.size).toBe(9000);
    expect(charges).toEqual(new Array(Math.ceil(22_500 / MERGE_CHECK_EVERY)).fill(MERGE_CHECK_EVERY * sortedGroupBytes(4)));
    const r = acc.result();
    expect(r.type === 'columnar' && r.states[0]!.slice(0, 4)).toEqual([3, 2, 3, 2]);
    let err: unknown;
    try {
      acc.add(many(9000, 1001));
    } catch (e) {
      err = e;
    }
    expect((err as CanopyError).code).toBe('CANOPY_ERR_LIMIT');
    // 10,000 groups exactly is within the limit.
    const ok = new PartialAccumulator(layout);
    ok.add(many(0, 6000));
    ok.add(many(4000, 6000));
    expect(ok.size).toBe(10_000);
  });
});
