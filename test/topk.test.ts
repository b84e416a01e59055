/**
 * Group top-k with over-fetch and bounds: the small case, and a property test over
 * random data, shard splits, tree shapes and shard sizes against a brute-force truth.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compareSql, decodeFrame, encodeFrame, estimateGroupBytes, groupKeyString, isCanopyError, layoutOf, truncateTopK, type ColumnarPartial, type Frame, type GroupedPartial, type Partial, type Scalar, type TableSchema, type TopKSpec } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { withFaults } from '../src/leaf/index.ts';
import { throwingHandler } from './helpers/flights.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'term', type: 'string' }, { name: 'v', type: 'int64' }] };
const times = (term: string, n: number): Scalar[][] => Array.from({ length: n }, () => [term, 1n]);

describe('group top-k small case (k\' = 1)', () => {
  const shards = [
    [...times('A', 9), ...times('B', 5), ...times('F', 2)],
    [...times('F', 8), ...times('A', 3), ...times('B', 1)],
    [...times('B', 6), ...times('A', 4), ...times('F', 4)],
  ];
  const sql = 'SELECT term, count(*) AS n FROM t GROUP BY term ORDER BY n DESC LIMIT 2';

  it('with refinement: A 16, F 14, exact', async () => {
    const { root } = inProcessRoot(schema, shards);
    const a = await root.query({ sql, shard_size: 1, exact: true }, new AbortController().signal);
    expect(a.rows).toEqual([
      ['A', 16n],
      ['F', 14n],
    ]);
    expect(a.label).toBe('exact');
    expect(a.stats.round_trips).toBeLessThanOrEqual(3);
  });

  it('without refinement: every reported interval holds the truth (F is 14, B is 12)', async () => {
    const { root } = inProcessRoot(schema, shards);
    const a = await root.query({ sql, shard_size: 1 }, new AbortController().signal);
    expect(a.label).not.toBe('exact');
    const truth: Record<string, bigint> = { A: 16n, F: 14n, B: 12n };
    a.rows.forEach((r, i) => {
      const cell = a.cells?.[i]?.[1] ?? null;
      const t = truth[r[0] as string]!;
      if (cell === null) expect(r[1]).toBe(t);
      else expect(compareSql('<=', cell.lo ?? null, t) && compareSql('>=', cell.hi ?? null, t)).toBe(true);
    });
  });

  it('with the default over-fetch the answer is exact in one round trip', async () => {
    const { root } = inProcessRoot(schema, shards);
    const a = await root.query({ sql }, new AbortController().signal);
    expect(a.rows).toEqual([
      ['A', 16n],
      ['F', 14n],
    ]);
    expect(a.label).toBe('exact');
    expect(a.stats.round_trips).toBe(1);
  });
});

const QUERIES = [
  'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT K',
  'SELECT g, sum(v) AS s, count(*) AS n FROM t GROUP BY g ORDER BY s DESC LIMIT K',
  'SELECT g, max(v) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT K',
  'SELECT g, min(v) AS m, count(*) FROM t GROUP BY g ORDER BY m ASC LIMIT K',
];
const schema2: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'v', type: 'int64' }] };

describe('group top-k property', () => {
  it('intervals hold the truth; a proven row set is the true top k; exact: true is exact', async () => {
    const row = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', 'g', 'h'), fc.option(fc.bigInt({ min: 0n, max: 20n }), { nil: null, freq: 8 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { maxLength: 25 }), { minLength: 1, maxLength: 9 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(...QUERIES),
        fc.boolean(),
        async (shards, fanout, k, shardSize, template, exact) => {
          const sql = template.replace('K', String(k));
          const truthTree = inProcessRoot(schema2, [shards.flat() as Scalar[][]]);
          const truth = await truthTree.root.query({ sql: sql.replace(`LIMIT ${k}`, '') }, new AbortController().signal);
          const tree = inProcessRoot(schema2, shards as Scalar[][][], { fanout });
          const a = await tree.root.query({ sql, shard_size: shardSize, exact }, new AbortController().signal);
          const byGroup = new Map(truth.rows.map((r) => [r[0], r]));
          // Every present cell: exact equals the truth, bounded contains it.
          a.rows.forEach((r, i) => {
            const t = byGroup.get(r[0]!)!;
            expect(t).toBeDefined();
            r.forEach((v, j) => {
              const cell = a.cells?.[i]?.[j] ?? null;
              if (cell === null) expect(v).toEqual(t[j]);
              else if (cell.label === 'bounded') {
                expect(t[j] !== null && (cell.lo == null || compareSql('<=', cell.lo, t[j]!) === true) && (cell.hi == null || compareSql('>=', cell.hi, t[j]!) === true)).toBe(true);
              }
            });
          });
          if (a.rowsComplete) {
            // The proven set: the true top-k values (ties may pick other groups of equal value).
            // Rows are ordered by what is known (lower bounds), so compare them as sets
            // unless every value is exact.
            const col = 1;
            const want = truth.rows.slice(0, k).map((r) => r[col]);
            const got = a.rows.map((r, i) => (a.cells?.[i]?.[col] == null ? r[col] : byGroup.get(r[0]!)![col]));
            const sorted = (xs: (Scalar | undefined)[]) => [...xs].sort((x, y) => (compareSql('<', x ?? null, y ?? null) === true ? -1 : compareSql('>', x ?? null, y ?? null) === true ? 1 : 0));
            expect(sorted(got)).toEqual(sorted(want));
          }
          if (a.label === 'exact') expect(a.rows).toEqual(truth.rows.slice(0, k));
          if (exact) expect(a.label).toBe('exact');
        },
      ),
      { numRuns: 300 },
    );
  });
});

describe('small cases from the partials issue', () => {
  it('GROUP BY dev ORDER BY MIN(val) DESC LIMIT 1 (not safe to truncate) -> d3 75, exact', async () => {
    const s: TableSchema = { name: 't', columns: [{ name: 'dev', type: 'string' }, { name: 'val', type: 'int64' }] };
    const { root } = inProcessRoot(s, [
      [
        ['d1', 90n],
        ['d2', 80n],
      ],
      [
        ['d1', 10n],
        ['d2', 70n],
        ['d3', 75n],
      ],
    ]);
    const a = await root.query({ sql: 'SELECT dev, min(val) AS m FROM t GROUP BY dev ORDER BY m DESC LIMIT 1', shard_size: 1 }, new AbortController().signal);
    expect(a.rows).toEqual([['d3', 75n]]);
    expect(a.label).toBe('exact');
  });

  it('GROUP BY g ORDER BY MAX(s) DESC over a string column (not truncated) -> b zzz, a zz, exact', async () => {
    const s: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 's', type: 'string' }] };
    const { root } = inProcessRoot(s, [[['a', 'zz'], ['b', 'aa']], [['a', 'bb'], ['c', 'yy'], ['d', 'cc']], [['b', 'zzz']]], { fanout: 2 });
    const a = await root.query({ sql: 'SELECT g, max(s) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 2', shard_size: 1 }, new AbortController().signal);
    expect(a.rows).toEqual([['b', 'zzz'], ['a', 'zz']]);
    expect(a.label).toBe('exact');
  });

  it('ORDER BY w DESC LIMIT 3 over {2,9,5} and {8,1,7} -> 9, 8, 7 in every arrival order', async () => {
    const s: TableSchema = { name: 't', columns: [{ name: 'w', type: 'int64' }] };
    for (const delays of [
      [0, 30],
      [30, 0],
      [10, 10],
    ]) {
      const { root } = inProcessRoot(
        s,
        [
          [[2n], [9n], [5n]],
          [[8n], [1n], [7n]],
        ],
        { wrap: (leaf) => withFaults(leaf.handler, leaf.shards, { rules: [{ shards: leaf.shards, latency: { kind: 'fixed', ms: delays[leaf.shards[0]!]! } }] }) },
      );
      const a = await root.query({ sql: 'SELECT w FROM t ORDER BY w DESC LIMIT 3' }, new AbortController().signal);
      expect(a.rows).toEqual([[9n], [8n], [7n]]);
      expect(a.label).toBe('exact');
    }
  });
});

describe('group top-k labels as strong as the bounds allow', () => {
  const s: TableSchema = { name: 't', columns: [{ name: 'grp', type: 'string' }, { name: 'val', type: 'int64' }] };
  const signal = new AbortController().signal;
  /** Brute-force truth: every group's aggregates over all rows, by the first output column. */
  const truthOf = async (shards: Scalar[][][], sql: string): Promise<Map<Scalar, readonly Scalar[]>> => {
    const t = await inProcessRoot(s, [shards.flat()]).root.query({ sql: sql.replace(/LIMIT \d+/, '') }, signal);
    return new Map(t.rows.map((r) => [r[0]!, r]));
  };

  it('MAX DESC truncated, every shard answered: intervals that closed (lo = hi) are exact', async () => {
    // k' = 1: shard 0 reports a (100) and bounds the rest by 90; shard 1 reports c (95), bounds by 5.
    // a's upper bound is max(100, 5) = 100 and c's max(95, 90) = 95: both closed, so exact.
    const shards: Scalar[][][] = [
      [['a', 100n], ['b', 90n], ['c', 10n]],
      [['c', 95n], ['a', 5n], ['b', 1n]],
    ];
    const { root } = inProcessRoot(s, shards);
    const sql = 'SELECT grp, max(val) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2';
    const a = await root.query({ sql, shard_size: 1, policy: 'all' }, signal);
    expect(a.rows).toEqual([['a', 100n], ['c', 95n]]);
    expect(a.label).toBe('exact');
    expect(a.rowsComplete).toBe(true);
    expect(a.cells).toBeNull();
    // MIN ASC mirrors it.
    const b = await root.query({ sql: 'SELECT grp, min(val) AS m FROM t GROUP BY grp ORDER BY m ASC LIMIT 1', shard_size: 1 }, signal);
    expect(b.rows).toEqual([['b', 1n]]);
    expect(b.label).toBe('exact');
    // With another aggregate the group is still incomplete (count approximate), but its MAX is known.
    const c = await root.query({ sql: 'SELECT grp, max(val) AS m, count(*) AS n FROM t GROUP BY grp ORDER BY m DESC LIMIT 2', shard_size: 1 }, signal);
    expect(c.rows.map((r) => r.slice(0, 2))).toEqual([['a', 100n], ['c', 95n]]);
    expect(c.rowsComplete).toBe(true);
    expect(c.cells?.map((r) => r[1])).toEqual([null, null]);
    expect(c.cells?.[0]?.[2]?.label).toBe('approximate');
    expect(c.label).toBe('approximate');
  });

  it('a tie at the k-th place with an exactly known competitor proves the row set (ties go to the smaller key, NULL last)', async () => {
    const shards: Scalar[][][] = [
      [['a', 1n], ['b', 999n], [null, 998n]],
      [['c', 998n], ['d', 5n], ['b', 3n]],
    ];
    const sql = 'SELECT grp, max(val) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2';
    for (const fanout of [2, 10]) {
      const { root } = inProcessRoot(s, shards, { fanout });
      const a = await root.query({ sql, shard_size: 100 }, signal);
      expect(a.rows).toEqual([['b', 999n], ['c', 998n]]);
      expect(a.label).toBe('exact');
      expect(a.rowsComplete).toBe(true);
      expect(a.cells).toBeNull();
    }
    // A later ORDER BY key over group keys decides the tie too: NULL sorts last in DESC as well.
    const { root } = inProcessRoot(s, shards);
    const d = await root.query({ sql: 'SELECT grp, max(val) AS m FROM t GROUP BY grp ORDER BY m DESC, grp DESC LIMIT 2', shard_size: 100 }, signal);
    expect(d.rows).toEqual([['b', 999n], ['c', 998n]]);
    expect(d.label).toBe('exact');
  });

  it('a tie with a competitor whose value is not known keeps the row set unproven', async () => {
    // k' = 1: b is 8 in shard 0 but only its 2 is reported (shard 2); its upper bound is 8, the
    // k-th value (c, 8), and b would win the tie on its key: the true top 2 is a, b.
    const shards: Scalar[][][] = [[['a', 10n], ['b', 8n]], [['c', 8n], ['b', 3n]], [['b', 2n]]];
    const { root } = inProcessRoot(s, shards);
    const a = await root.query({ sql: 'SELECT grp, max(val) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2', shard_size: 1 }, signal);
    expect(a.rows).toEqual([['a', 10n], ['c', 8n]]);
    expect(a.rowsComplete).toBe(false);
    expect(a.label).toBe('approximate');
    // An unseen group that may tie (b, unreported, bounded by 8) also keeps it unproven.
    const { root: r2 } = inProcessRoot(s, shards.slice(0, 2));
    const b = await r2.query({ sql: 'SELECT grp, max(val) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2', shard_size: 1 }, signal);
    expect(b.rows).toEqual([['a', 10n], ['c', 8n]]);
    expect(b.rowsComplete).toBe(false);
  });

  it('with a shard missing, a truncated row keeps a guaranteed interval for its ordering value', async () => {
    // k' = 1; shard 2 fails (its catalog: grp a..d, val max 200, 2 rows). c is 95 where seen and
    // at most 97 in shard 0 (its bound): [95, 97] from truncation, widened by shard 2 to [95, 200].
    const shards: Scalar[][][] = [
      [['a', 100n], ['b', 97n], ['c', 10n]],
      [['c', 95n], ['a', 5n], ['b', 1n]],
      [['a', 200n], ['d', 2n]],
    ];
    const { root } = inProcessRoot(s, shards, { wrap: (leaf) => (leaf.shards[0] === 2 ? throwingHandler() : leaf.handler) });
    const sql = 'SELECT grp, max(val) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2';
    const a = await root.query({ sql, shard_size: 1 }, signal);
    expect(a.rows).toEqual([['a', 100n], ['c', 95n]]);
    expect(a.cells?.map((r) => r[1])).toEqual([
      { label: 'bounded', lo: 100n, hi: 200n },
      { label: 'bounded', lo: 95n, hi: 200n },
    ]);
    expect(a.label).toBe('approximate');
    for (const q of [sql, 'SELECT grp, count(*) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2', 'SELECT grp, sum(val) AS m FROM t GROUP BY grp ORDER BY m DESC LIMIT 2', 'SELECT grp, min(val) AS m FROM t GROUP BY grp ORDER BY m ASC LIMIT 2']) {
      const r = await root.query({ sql: q, shard_size: 1 }, signal);
      const truth = await truthOf(shards, q);
      r.rows.forEach((row, i) => {
        const cell = r.cells?.[i]?.[1] ?? null;
        const t = truth.get(row[0]!)![1]!;
        if (cell === null) expect(row[1]).toBe(t);
        else {
          expect(cell.label).toBe('bounded');
          expect(compareSql('<=', cell.lo ?? null, t) === true && compareSql('>=', cell.hi ?? null, t) === true).toBe(true);
        }
      });
    }
  });

  it('property: with failing shards and truncation, every interval holds the truth and exact cells equal it', async () => {
    const row = fc.tuple(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'f', null), fc.option(fc.bigInt({ min: 0n, max: 20n }), { nil: null, freq: 8 }));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { maxLength: 20 }), { minLength: 2, maxLength: 8 }),
        fc.array(fc.boolean(), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 2, max: 4 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 1, max: 4 }),
        fc.constantFrom(...QUERIES),
        async (shards, failing, fanout, k, shardSize, template) => {
          const sql = template.replace('K', String(k)).replaceAll(' g', ' grp').replaceAll('(v)', '(val)');
          const fails = (id: number): boolean => failing[id]! && id > 0; // shard 0 always answers
          const tree = inProcessRoot(s, shards as Scalar[][][], { fanout, wrap: (leaf) => (fails(leaf.shards[0]!) ? throwingHandler() : leaf.handler) });
          const a = await tree.root.query({ sql, shard_size: shardSize }, signal).catch((e: unknown) => (e instanceof Error ? e : new Error(String(e))));
          if (a instanceof Error) {
            // Shard 0 may be empty (pruned): then nothing answered.
            expect(isCanopyError(a) && a.code).toBe('CANOPY_ERR_NO_COVERAGE');
            return;
          }
          const truth = await truthOf(shards as Scalar[][][], sql);
          a.rows.forEach((r, i) => {
            const t = truth.get(r[0]!)!;
            expect(t).toBeDefined();
            r.forEach((v, j) => {
              const cell = a.cells?.[i]?.[j] ?? null;
              if (cell === null) expect(v).toEqual(t[j]);
              else if (cell.label === 'bounded') expect(t[j] !== null && (cell.lo == null || compareSql('<=', cell.lo, t[j]!) === true) && (cell.hi == null || compareSql('>=', cell.hi, t[j]!) === true)).toBe(true);
            });
          });
          const all = await inProcessRoot(s, [(shards as Scalar[][][]).flat()]).root.query({ sql }, signal);
          if (a.label === 'exact') expect(a.rows).toEqual(all.rows);
          if (a.rowsComplete) {
            // A proven set holds the true top-k values (a tie may be listed by lower bounds).
            const got = a.rows.map((r) => truth.get(r[0]!)![1]!);
            const key = (v: Scalar): string => String(v);
            expect(got.map(key).sort()).toEqual(all.rows.map((r) => key(r[1]!)).sort());
          }
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('group top-k byte budget (issue 15)', () => {
  const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'v', type: 'int64' }] };
  const plan = planQuery('SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', new Map([['t', schema]]), DEFAULT_LIMITS);
  const layout = layoutOf(plan.scan, schema);
  const groups = (n: number): GroupedPartial => ({
    type: 'groups',
    groups: new Map(Array.from({ length: n }, (_, i) => [groupKeyString([`g${i}`]), { keys: [`g${i}`], states: [i + 1] }])),
  });
  const spec = (budgetBytes?: number): TopKSpec => ({ partial: 0, sign: 1, combine: 'add', fetch: 3, ...(budgetBytes === undefined ? {} : { budgetBytes }) });

  it('a node whose groups fit the budget sends them all with no bound; above it, the best fetch and a finite bound', () => {
    const bytes = estimateGroupBytes(layout, [...groups(50).groups.values()]);
    // 50 groups: one count state (8) plus a string key of 2-3 code units and its offset.
    expect(bytes).toBe(50 * 12 + 10 * 2 + 40 * 3);
    const fits = truncateTopK(layout, spec(bytes), groups(50), null, -Infinity);
    expect(fits.partial.size).toBe(50);
    expect(fits.topk.bound).toBe(-Infinity);
    const over = truncateTopK(layout, spec(bytes - 1), groups(50), null, -Infinity);
    expect(over.partial.keys[0]).toEqual(['g49', 'g48', 'g47']);
    expect(over.topk.bound).toBe(47);
    // No budget: truncation as before; an aggregator's unseen bound passes through when all fit.
    expect(truncateTopK(layout, spec(), groups(50), null, -Infinity).partial.size).toBe(3);
    expect(truncateTopK(layout, spec(bytes), groups(50), null, 7).topk.bound).toBe(7);
  });

  it('by default (no shard_size) the answer over more groups than k\' is exact in one round trip and equals the truth', async () => {
    const rows = Array.from({ length: 600 }, (_, i) => [`g${(i * 7) % 40}`, BigInt(i)] as Scalar[]);
    const shards = Array.from({ length: 6 }, (_, s) => rows.filter((_, i) => i % 6 === s));
    const { root } = inProcessRoot(schema, shards, { fanout: 2 });
    const a = await root.query({ sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 3' }, new AbortController().signal);
    expect(a.label).toBe('exact');
    expect(a.stats.round_trips).toBe(1);
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r[0] as string, (counts.get(r[0] as string) ?? 0) + 1);
    const truth = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, 3);
    expect(a.rows).toEqual(truth.map(([g, n]) => [g, BigInt(n)]));
    // With shard_size given, nodes truncate to it as asked (the answer may then need bounds).
    const b = await root.query({ sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 3', shard_size: 3 }, new AbortController().signal);
    expect(b.rows.length).toBe(3);
  });
});

describe('exact: true first round (issue 15): leaves send every group, aggregators cut at a share of their k\'-th score', () => {
  const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'float64' }, { name: 'v', type: 'int64' }] };
  const plan = planQuery('SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', new Map([['t', schema]]), DEFAULT_LIMITS);
  const spec: TopKSpec = { partial: 0, sign: 1, combine: 'add', fetch: 4, budgetBytes: 64, shardBudgetBytes: 1 << 20, cutRatio: 0.5 };
  const scan = { ...plan.scan, topk: spec };
  const layout = layoutOf(scan, schema);
  const keyArb = fc.oneof(fc.constantFrom<Scalar>(null, NaN, -0, 0, 2 ** 53, -(2 ** 53), Number.MAX_VALUE), fc.integer({ min: -40, max: 40 }));
  const partialArb = fc.array(fc.tuple(keyArb, fc.integer({ min: 0, max: 30 })), { maxLength: 120 }).map((rows) => {
    const m = new Map<string, { keys: Scalar[]; states: unknown[] }>();
    for (const [k, n] of rows) if (!m.has(groupKeyString([k]))) m.set(groupKeyString([k]), { keys: [k], states: [n] });
    return { type: 'groups', groups: m } as GroupedPartial;
  });

  it('a leaf under its shard budget sends all; an aggregator keeps its best fetch and every group reaching half the fetch-th score, and bounds the rest', () => {
    fc.assert(
      fc.property(partialArb, (p) => {
        const entries = [...p.groups.values()];
        const leaf = truncateTopK(layout, spec, p, null, -Infinity, 1);
        expect(leaf.partial.size).toBe(entries.length);
        expect(leaf.topk.bound).toBe(-Infinity);
        const agg = truncateTopK(layout, spec, p, null, -Infinity, 10);
        const scores = entries.map((e) => e.states[0] as number).sort((a, b) => b - a);
        const keptKeys = new Set(Array.from({ length: agg.partial.size }, (_, i) => groupKeyString([agg.partial.keys[0]![i]!])));
        const dropped = entries.filter((e) => !keptKeys.has(groupKeyString(e.keys)));
        if (entries.length <= spec.fetch || estimateGroupBytes(layout, entries) <= spec.budgetBytes!) {
          expect(dropped.length).toBe(0);
          return;
        }
        const kth = scores[spec.fetch - 1]!;
        const cut = kth > 0 ? kth / 2 : Infinity;
        // Every group at or above the cut is sent, so at least the best fetch.
        for (const e of entries) if ((e.states[0] as number) >= Math.min(cut, kth) && kth > 0) expect(keptKeys.has(groupKeyString(e.keys))).toBe(true);
        expect(agg.partial.size).toBeGreaterThanOrEqual(spec.fetch);
        // The bound covers every dropped group (and is finite when something was dropped).
        for (const e of dropped) expect(e.states[0] as number).toBeLessThanOrEqual(agg.topk.bound);
        if (dropped.length > 0) expect(agg.topk.bound).toBeGreaterThan(-Infinity);
      }),
      { numRuns: 300, seed: 15 },
    );
  });

  it('a leaf frame reporting its groups\' own scores says own: true and decodes to the same bounds; other frames list them', () => {
    fc.assert(
      fc.property(partialArb, fc.boolean(), (p, truncated) => {
        const t = truncateTopK(layout, spec, p, null, -Infinity, 1);
        const his = truncated ? t.topk.his.map((h) => h + 1) : t.topk.his;
        const frame: Frame = { partial: t.partial, provenance: [{ shard: 0, status: 'answered', path: 'leaf-0' }], rowsScanned: 1, topk: { ...t.topk, his } };
        const bytes = encodeFrame(layout, frame);
        const header = new TextDecoder().decode(bytes);
        expect(header.includes('"own":true')).toBe(!truncated || his.length === 0);
        const back = decodeFrame(layout, bytes);
        expect(back.topk).toEqual(frame.topk);
        // The same cells (a frame of number keys and counts decodes to Float64Array columns).
        const cells = (x: Partial): unknown => (x.type === 'columnar' ? { ...x, keys: x.keys.map((c) => Array.from(c)), states: x.states.map((c) => Array.from(c)) } : x);
        expect(cells(back.partial)).toEqual(cells(t.partial));
      }),
      { numRuns: 200, seed: 16 },
    );
  });

  it('a garbled own header is refused', () => {
    const t = truncateTopK(layout, spec, { type: 'groups', groups: new Map([['n1|', { keys: [1], states: [3] }]]) }, null, -Infinity, 1);
    const bytes = encodeFrame(layout, { partial: t.partial, provenance: [], rowsScanned: 1, topk: t.topk });
    const noTopk = layoutOf(plan.scan, schema);
    expect(() => decodeFrame(noTopk, bytes)).toThrow(/top-k header/);
  });
});

describe('a leaf\'s columnar partial that is sent whole (issue 15)', () => {
  const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'float64' }, { name: 'v', type: 'int64' }] };
  const keyArb = fc.oneof(fc.constantFrom<Scalar>(null, NaN, -0, 2 ** 53, Number.MAX_VALUE), fc.integer({ min: -400, max: 400 }).map((x) => x / 4));
  const rowsArb = fc.uniqueArray(fc.tuple(keyArb, fc.integer({ min: 0, max: 30 }), fc.integer({ min: -9, max: 9 })), { maxLength: 1500, selector: ([k]) => groupKeyString([k]) });
  const layoutFor = (sql: string, spec: TopKSpec): ReturnType<typeof layoutOf> => {
    const plan = planQuery(sql, new Map([['t', schema]]), DEFAULT_LIMITS);
    return layoutOf({ ...plan.scan, topk: spec }, schema);
  };
  const columnar = (rows: readonly [Scalar, number, number][], state: (r: [Scalar, number, number]) => unknown): ColumnarPartial => ({ type: 'columnar', size: rows.length, keys: [rows.map((r) => r[0])], states: [rows.map((r) => state(r))] });
  const grouped = (p: ColumnarPartial): GroupedPartial => ({ type: 'groups', groups: new Map(Array.from({ length: p.size }, (_, i) => [groupKeyString([p.keys[0]![i]!]), { keys: [p.keys[0]![i]!], states: [p.states[0]![i]] }])) });
  /** The general path's answer (a GroupedPartial), per key: [his, exact], and its bound. */
  const reference = (layout: ReturnType<typeof layoutOf>, spec: TopKSpec, p: ColumnarPartial, unseen: number): { bound: number; byKey: Map<string, [number, boolean]> } => {
    const t = truncateTopK(layout, spec, grouped(p), null, unseen, 1);
    return { bound: t.topk.bound, byKey: new Map(Array.from({ length: t.partial.size }, (_, i) => [groupKeyString([t.partial.keys[0]![i]!]), [t.topk.his[i]!, t.topk.exact[i]!]])) };
  };

  it('under its shard budget (or within the fetch) the partial itself goes, each group bounded by its own score, as the general path says', () => {
    const specs: TopKSpec[] = [
      { partial: 0, sign: 1, combine: 'add', fetch: 4, budgetBytes: 64, shardBudgetBytes: 1 << 20, cutRatio: 0.5 },
      { partial: 0, sign: -1, combine: 'add', fetch: 4, budgetBytes: 64, shardBudgetBytes: 1 << 20 },
      { partial: 0, sign: 1, combine: 'add', fetch: 2000 },
    ];
    fc.assert(
      fc.property(rowsArb, fc.constantFrom(...specs), fc.constantFrom(-Infinity, 5), (rows, spec, unseen) => {
        const layout = layoutFor('SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', spec);
        const p = columnar(rows, (r) => r[1]);
        const t = truncateTopK(layout, spec, p, null, unseen, 1);
        const ref = reference(layout, spec, p, unseen);
        if (ref.byKey.size !== p.size) return; // the general path truncates (an aggregator's unseen bound): not this case
        expect(t.partial).toBe(p);
        expect(t.topk.bound).toBe(ref.bound);
        expect(t.topk.his.length).toBe(p.size);
        for (let i = 0; i < p.size; i++) {
          expect(t.topk.his[i]).toBe(spec.sign * (rows[i]![1]));
          expect([t.topk.his[i], t.topk.exact[i]]).toEqual(ref.byKey.get(groupKeyString([p.keys[0]![i]!])));
        }
      }),
      { numRuns: 150, seed: 15 },
    );
  });

  it('its frame says own: true without its bounds being read, decodes to the same bounds; a spread keeps own only with the same arrays', () => {
    const spec: TopKSpec = { partial: 0, sign: 1, combine: 'add', fetch: 4, budgetBytes: 64, shardBudgetBytes: 1 << 20 };
    const layout = layoutFor('SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', spec);
    fc.assert(
      fc.property(rowsArb, fc.constantFrom('as is', 'spread', 'changed'), (rows, how) => {
        const p = columnar(rows, (r) => r[1]);
        const t = truncateTopK(layout, spec, p, null, -Infinity, 1);
        expect(t.partial).toBe(p);
        const topk = how === 'as is' ? t.topk : how === 'spread' ? { ...t.topk } : { ...t.topk, his: t.topk.his.map((h) => h + 1) };
        const frame: Frame = { partial: p, provenance: [{ shard: 0, status: 'answered', path: 'leaf-0' }], rowsScanned: 1, topk };
        const bytes = encodeFrame(layout, frame);
        expect(new TextDecoder().decode(bytes).includes('"own":true')).toBe(how !== 'changed' || p.size === 0);
        const back = decodeFrame(layout, bytes);
        expect(back.topk!.bound).toBe(-Infinity);
        expect([...back.topk!.his]).toEqual(rows.map((r) => (how === 'changed' ? r[1] + 1 : r[1])));
        expect([...back.topk!.exact]).toEqual(rows.map(() => true));
      }),
      { numRuns: 100, seed: 17 },
    );
  });

  it('a MAX ordering sent whole: its own scores from the finalised states (NULL -Infinity); the threshold round within the fetch keeps only the groups reaching it', () => {
    const spec: TopKSpec = { partial: 0, sign: 1, combine: 'max', fetch: 4, budgetBytes: 64, shardBudgetBytes: 1 << 20 };
    const layout = layoutFor('SELECT g, max(v) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 2', spec);
    const p = columnar([[1, 0, 3], [2, 0, -4], [null, 0, 7]], (r) => layout.kinds[0]!.decode(layout.kinds[0]!.encode(r[2] === 7 ? layout.kinds[0]!.empty() : (BigInt(r[2]) as never))));
    const t = truncateTopK(layout, spec, p, null, -Infinity, 1);
    expect(t.partial).toBe(p);
    expect(t.topk.his).toEqual([3, -4, -Infinity]);
    expect(t.topk.exact).toEqual([true, true, true]);
    const round: TopKSpec = { partial: 0, sign: 1, combine: 'add', fetch: 10, minScorePerShard: 3 };
    const counts = layoutFor('SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', round);
    const q = columnar([[1, 2, 0], [2, 3, 0], [3, 9, 0]], (r) => r[1]);
    const r = truncateTopK(counts, round, q, null, -Infinity, 1);
    expect(r.partial.keys[0]).toEqual([2, 3]);
    expect(r.topk.his).toEqual([3, 9]);
    expect(r.topk.bound).toBe(2);
  });
});

describe('exact: true first round with a shard down (issue 15)', () => {
  it('is bounded around the truth, names the shard, says why its cells carry no estimate; all up: exact', async () => {
    const rows = Array.from({ length: 900 }, (_, i) => [`g${(i * 13) % 200}`, BigInt(i % 7)] as Scalar[]);
    const shards = Array.from({ length: 9 }, (_, s) => rows.filter((_, i) => i % 9 === s));
    const { root } = inProcessRoot(schema2, shards, { fanout: 3, wrap: (leaf) => (leaf.shards[0] === 4 ? throwingHandler() : leaf.handler) });
    const a = await root.query({ sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 3', exact: true }, new AbortController().signal);
    expect(a.label).not.toBe('exact');
    expect(a.missing.map((m) => m.shard)).toEqual([4]);
    // Cells without an estimate say why (here the tree has no shard samples; with them, the lean first round's note).
    expect(a.estimateNote).toBeDefined();
    const counts = new Map<string, number>();
    for (const r of rows) counts.set(r[0] as string, (counts.get(r[0] as string) ?? 0) + 1);
    a.rows.forEach((r, i) => {
      const c = a.cells?.[i]?.[1];
      const truth = BigInt(counts.get(r[0] as string)!);
      if (c === null || c === undefined) expect(r[1]).toBe(truth);
      else if (c.label === 'bounded') expect(compareSql('<=', c.lo!, truth) === true && compareSql('>=', c.hi!, truth) === true).toBe(true);
    });
    // Every shard up: exact and equal to the truth in two round trips.
    const all = inProcessRoot(schema2, shards, { fanout: 3 });
    const b = await all.root.query({ sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC, g LIMIT 3', exact: true }, new AbortController().signal);
    expect(b.label).toBe('exact');
    const truth = [...counts].sort((x, y) => y[1] - x[1] || (x[0] < y[0] ? -1 : 1)).slice(0, 3);
    expect(b.rows).toEqual(truth.map(([g, n]) => [g, BigInt(n)]));
  });
});
