/**
 * Property tests of the per-code group loop over wide key spaces (src/leaf/groupby.ts): two
 * dictionary keys whose product of bounds passes DIRECT_LIMIT (4,096) but not
 * DIRECT_LIMIT_WIDE, on shards with at least a quarter as many rows as codes, so counts and
 * sums stay per composite code across batches and a flush visits only the marked codes; the
 * composite codes of two NULL-free dictionary keys in one pass (pairCodes); the dense
 * group-by-code tables reused from scan to scan (a table given back with a stale slot would
 * put a later scan's rows into a group it never made). Against a row-by-row Map, with and
 * without a selection, NULL keys (the key-by-key path), several partial shapes (COUNT alone:
 * no sums; SUM; COUNT(*) FILTER; MIN beside SUM; a partial the loop does not take; an inert
 * moments partial beside COUNT). And
 * COUNT per group over few groups (extract(hour), a small dictionary), counted in four
 * stripes per group (groupRowsStriped), with neighbouring rows crowded into few groups.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { scalarAt, type ColumnType, type Expr, type PartialSpec } from '../src/merge/index.ts';
import { GroupAggregator } from '../src/leaf/groupby.ts';
import { seededRandom } from '../src/leaf/index.ts';
import { int32View, type ColumnView, type PreparedColumn, type PreparedShard } from '../src/leaf/shard.ts';
import { validity } from './helpers/views.ts';

const col = (name: string): Expr => ({ kind: 'col', name }) as Expr;

/** A deterministic stream of uint32 (the leaf's mulberry32): large batches without fast-check generating each row. */
function prng(seed: number): () => number {
  const r = seededRandom(seed);
  return () => Math.floor(r() * 4294967296);
}

interface Case {
  readonly dictA: number;
  readonly dictB: number;
  readonly batches: readonly number[];
  readonly nulls: boolean;
  /** Codes drawn from the first `spread` entries of each dictionary (the rest unused). */
  readonly spread: number;
  readonly seed: number;
}

function dictStrings(prefix: string, n: number): string[] {
  return Array.from({ length: n }, (_, k) => `${prefix}${(k * 7919) % 1009}-${k}`);
}

function strColumn(name: string, dict: readonly string[], batches: readonly (readonly (number | null)[])[]): PreparedColumn {
  const order = dict.map((_, c) => c).sort((x, y) => (dict[x]! < dict[y]! ? -1 : dict[x]! > dict[y]! ? 1 : 0));
  const rank = new Int32Array(dict.length);
  order.forEach((c, r) => (rank[c] = r));
  const views: ColumnView[] = batches.map((b) => ({ t: 'str', codes: Int32Array.from(b.map((c) => c ?? 0)), valid: validity(b), strings: dict, rank }));
  return { name, type: 'string', batches: views, min: null, max: null };
}

function intColumn(name: string, batches: readonly (readonly number[])[]): PreparedColumn {
  const views: ColumnView[] = batches.map((b) => {
    const values = Float64Array.from(b);
    const maxAbs = b.reduce((m, x) => Math.max(m, Math.abs(x)), 0);
    return { t: 'num', values, valid: null, maxAbs, words: null, i32: int32View(values) };
  });
  const all = batches.flat();
  return { name, type: 'int64', batches: views, min: all.length === 0 ? null : Math.min(...all), max: all.length === 0 ? null : Math.max(...all) };
}

/** The shard of a case: string keys a (dictA entries), b (dictB entries), int64 i in [-50, 50]. */
function shardOf(c: Case): { shard: PreparedShard; a: (number | null)[][]; b: (number | null)[][]; i: number[][] } {
  const next = prng(c.seed);
  const spreadA = Math.max(1, Math.min(c.dictA, c.spread));
  const spreadB = Math.max(1, Math.min(c.dictB, c.spread));
  const code = (spread: number): number | null => (c.nulls && next() % 17 === 0 ? null : next() % spread);
  const a = c.batches.map((n) => Array.from({ length: n }, () => code(spreadA)));
  const b = c.batches.map((n) => Array.from({ length: n }, () => code(spreadB)));
  const i = c.batches.map((n) => Array.from({ length: n }, () => (next() % 101) - 50));
  const columns = new Map<string, PreparedColumn>([
    ['a', strColumn('a', dictStrings('a', c.dictA), a)],
    ['b', strColumn('b', dictStrings('b', c.dictB), b)],
    ['i', intColumn('i', i)],
  ]);
  const shard: PreparedShard = {
    id: 0,
    schema: { name: 't', columns: [...columns.values()].map((x) => ({ name: x.name, type: x.type })) } as unknown as PreparedShard['schema'],
    rows: c.batches.reduce((s, n) => s + n, 0),
    batchRows: c.batches,
    columns,
  };
  return { shard, a, b, i };
}

const F: Expr = { kind: 'cmp', op: '>', left: col('i'), right: { kind: 'lit', value: 0n, type: 'int64' } } as Expr;

/** Partial shapes: COUNT alone (no sums written), + SUM, + COUNT(*) FILTER, SUM + MIN, + COUNT(a) beside a SUM of another column... */
const SHAPES: readonly (readonly PartialSpec[])[] = [
  [{ kind: 'count_star', arg: null }],
  [
    { kind: 'count_star', arg: null },
    { kind: 'sum', arg: col('i') },
  ],
  [
    { kind: 'count_star', arg: null },
    { kind: 'count_star', arg: null, filter: F },
  ],
  [
    { kind: 'sum', arg: col('i') },
    { kind: 'min', arg: col('i') },
  ],
  [
    { kind: 'count_star', arg: null },
    { kind: 'count', arg: col('a') },
  ],
  // A moments pair partial (an estimate's per-shard product, filled after the scan): inert, so
  // COUNT keeps the per-code loop; its state is 0 per group.
  [
    { kind: 'count_star', arg: null },
    { kind: 'moments', arg: null, pair: [-1, 0] },
  ],
];
const ARG_TYPES: readonly (readonly (ColumnType | null)[])[] = [[null], [null, 'int64'], [null, null], ['int64', 'int64'], [null, 'string'], [null, null]];

const caseArb: fc.Arbitrary<Case> = fc.record({
  // Wide (up to 91 × 91 = 8,281 codes) and narrow key spaces, so pooled tables of several sizes meet.
  dictA: fc.integer({ min: 1, max: 90 }),
  dictB: fc.integer({ min: 1, max: 90 }),
  batches: fc.array(fc.integer({ min: 0, max: 1500 }), { minLength: 1, maxLength: 4 }),
  nulls: fc.boolean(),
  spread: fc.oneof(fc.constant(90), fc.integer({ min: 1, max: 90 })),
  seed: fc.integer(),
});

describe('per-code group loop over two dictionary keys (wide key spaces, pooled tables) = row by row', () => {
  it('COUNT, SUM, COUNT(*) FILTER, MIN, COUNT(x) per (a, b); with and without a selection, NULL keys, unused entries, empty batches', () => {
    fc.assert(
      fc.property(caseArb, fc.integer({ min: 0, max: SHAPES.length - 1 }), fc.boolean(), fc.integer(), fc.boolean(), (c, shape, selected, selSeed, swap) => {
        const { shard, a, i } = shardOf(c);
        const specs = SHAPES[shape]!;
        const keys = swap ? ['b', 'a'] : ['a', 'b'];
        const agg = new GroupAggregator(
          shard,
          keys.map((k) => ({ name: k, expr: col(k), type: 'string' as const })),
          specs,
          ARG_TYPES[shape]!,
          1e6,
          () => {
            throw new Error('too many groups');
          },
        );
        const want = new Map<string, number[]>();
        const dict = { a: shard.columns.get('a')!, b: shard.columns.get('b')! };
        const pick = prng(selSeed);
        for (let bi = 0; bi < c.batches.length; bi++) {
          const rows = c.batches[bi]!;
          const chosen = Array.from({ length: rows }, (_, r) => r).filter(() => !selected || pick() % 3 !== 0);
          agg.addBatch({ shard, batch: bi, rows }, selected ? Int32Array.from(chosen) : null, selected ? chosen.length : rows);
          for (const r of chosen) {
            const kv = { a: scalarAt(dict.a.batches[bi]!, 'string', r), b: scalarAt(dict.b.batches[bi]!, 'string', r) };
            const key = JSON.stringify(keys.map((k) => kv[k as 'a' | 'b']));
            const x = i[bi]![r]!;
            const w = want.get(key) ?? [0, 0, 0, Infinity, 0];
            w[0]!++;
            w[1]! += x;
            if (x > 0) w[2]!++;
            if (x < w[3]!) w[3] = x;
            if (a[bi]![r] !== null) w[4]!++;
            want.set(key, w);
          }
        }
        const res = agg.result();
        const got = new Map<string, number[]>();
        for (let g = 0; g < res.size; g++) got.set(JSON.stringify(res.keys.map((ks) => ks[g])), specs.map((_, p) => Number(res.states[p]![g])));
        const expected = new Map(
          [...want].map(([k, w]) => {
            const per = [
              [w[0]!],
              [w[0]!, w[1]!],
              [w[0]!, w[2]!],
              [w[1]!, w[3]!],
              [w[0]!, w[4]!],
              [w[0]!, 0],
            ][shape]!;
            return [k, per] as const;
          }),
        );
        expect(new Map([...got].sort())).toEqual(new Map([...expected].sort()));
        // Keys in the partial are the shard's strings (NULL as null), each group once.
        expect(got.size).toBe(res.size);
      }),
      { numRuns: 200 },
    );
  });
});

describe('COUNT per group of few groups (counted in four stripes per group) = row by row', () => {
  it('extract(hour) of a timestamp and a small dictionary key; with and without a selection, NULLs, short and empty batches', () => {
    const DAY = 86_400_000_000;
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 0, max: 1200 }), { minLength: 1, maxLength: 4 }),
        fc.integer(),
        fc.boolean(),
        fc.boolean(),
        fc.constantFrom('hour', 'dict'),
        fc.integer({ min: 1, max: 24 }),
        (batches, seed, nulls, selected, keyKind, skew) => {
          const next = prng(seed);
          // Timestamps (µs) in whole minutes around 1970 and 2001, crowded into `skew` hours (neighbours share a group).
          const ts = batches.map((n) => Array.from({ length: n }, () => (nulls && next() % 13 === 0 ? null : (next() % 2 === 0 ? 0 : 11_323 * DAY) + ((next() % 400) - 200) * DAY + (next() % skew) * 3_600_000_000 + (next() % 60) * 60_000_000)));
          const codes = batches.map((n) => Array.from({ length: n }, () => (nulls && next() % 11 === 0 ? null : next() % Math.max(1, skew % 7))));
          const tsViews: ColumnView[] = ts.map((b) => ({ t: 'num', values: Float64Array.from(b.map((x) => x ?? 0)), valid: validity(b), maxAbs: Math.max(0, ...b.map((x) => Math.abs(x ?? 0))), words: null }));
          const all = ts.flat().filter((x): x is number => x !== null);
          const columns = new Map<string, PreparedColumn>([
            ['t', { name: 't', type: 'timestamp', batches: tsViews, min: all.length === 0 ? null : Math.min(...all), max: all.length === 0 ? null : Math.max(...all) }],
            ['s', strColumn('s', dictStrings('s', 7), codes)],
          ]);
          const shard: PreparedShard = {
            id: 0,
            schema: { name: 't', columns: [...columns.values()].map((x) => ({ name: x.name, type: x.type })) } as unknown as PreparedShard['schema'],
            rows: batches.reduce((s, n) => s + n, 0),
            batchRows: batches,
            columns,
          };
          const key: Expr = keyKind === 'hour' ? ({ kind: 'extract', field: 'hour', arg: col('t'), type: 'int64' } as Expr) : col('s');
          const agg = new GroupAggregator(shard, [{ name: 'k', expr: key, type: keyKind === 'hour' ? 'int64' : 'string' }], [{ kind: 'count_star', arg: null }], [null], 1e6, () => {
            throw new Error('too many groups');
          });
          const want = new Map<string, number>();
          const pick = prng(~seed);
          for (let bi = 0; bi < batches.length; bi++) {
            const rows = batches[bi]!;
            const chosen = Array.from({ length: rows }, (_, r) => r).filter(() => !selected || pick() % 4 !== 0);
            agg.addBatch({ shard, batch: bi, rows }, selected ? Int32Array.from(chosen) : null, selected ? chosen.length : rows);
            for (const r of chosen) {
              const t = ts[bi]![r]!;
              const k = keyKind === 'hour' ? (t === null ? null : String(Math.floor((((t % DAY) + DAY) % DAY) / 3_600_000_000))) : codes[bi]![r] === null ? null : dictStrings('s', 7)[codes[bi]![r]!]!;
              const id = JSON.stringify(k);
              want.set(id, (want.get(id) ?? 0) + 1);
            }
          }
          const res = agg.result();
          const got = new Map<string, number>();
          for (let g = 0; g < res.size; g++) {
            const k = res.keys[0]![g];
            got.set(JSON.stringify(k === null ? null : String(k)), Number(res.states[0]![g]));
          }
          expect(new Map([...got].sort())).toEqual(new Map([...want].sort()));
        },
      ),
      { numRuns: 300 },
    );
  });
});
