/**
 * COUNT(DISTINCT) / approx_count_distinct and approx_quantile / median through the whole
 * pipeline: leaf scan kernels (per-shard partials merged == one scan, across the exact-set
 * limit), the Arrow wire format (and strict decoding of garbled states), the planner, and
 * in-process trees: labels, per-cell intervals, missing shards, JSON rendering.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard, withFaults, type FaultRule } from '../src/leaf/index.ts';
import {
  isoFromMicros,
  HLL_CONFIDENCE,
  HLL_EXACT_LIMIT,
  boundAggregateAnswer,
  decodeFrame,
  encodeFrame,
  finalise,
  groupKeyString,
  groupsOf,
  layoutOf,
  mergePartials,
  partialsEqual,
  quantileEstimate,
  quantileIndex,
  type GroupEntry,
  type QuantileState,
  type Partial,
  type PartialSpec,
  type Scalar,
  type ScanPlan,
  type TableSchema,
} from '../src/merge/index.ts';
import { answerToJSON, planQuery } from '../src/root/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';

const schema: TableSchema = MIXED_SCHEMA;
const tables = new Map([['t', schema]]);

/** Sort order of DuckDB for doubles (NaN last). */
const byValue = (a: number, b: number): number => (Number.isNaN(a) || Number.isNaN(b) ? Number(Number.isNaN(a)) - Number(Number.isNaN(b)) : a - b || 0);

/** quantile_disc over the non-NULL values, as DuckDB computes it. */
function quantileDisc(values: readonly (number | bigint | null)[], q: number): number | null {
  const xs = values.filter((v): v is number | bigint => v !== null).map(Number).sort(byValue);
  return xs.length === 0 ? null : xs[quantileIndex(q, xs.length)]!;
}

/** DuckDB's median: the middle value, or the two middle values interpolated (`lo·0.5 + hi·0.5`) for an even count. */
function medianCont(values: readonly (number | bigint | null)[]): number | null {
  const xs = values.filter((v): v is number | bigint => v !== null).map(Number).sort(byValue);
  if (xs.length === 0) return null;
  const m = (xs.length - 1) / 2;
  return xs[Math.floor(m)]! * 0.5 + xs[Math.ceil(m)]! * 0.5;
}

function distinctCount(values: readonly Scalar[]): number {
  return new Set(values.filter((v) => v !== null).map((v) => (typeof v === 'number' && v === 0 ? 0 : v))).size;
}

describe('leaf kernels: per-shard partials merged == one scan', () => {
  const partials: PartialSpec[] = [
    { kind: 'hll', arg: { kind: 'col', name: 'g' } },
    { kind: 'hll', arg: { kind: 'col', name: 'i' } },
    { kind: 'hll', arg: { kind: 'col', name: 'f' } },
    { kind: 'hll', arg: { kind: 'col', name: 'ts' } },
    { kind: 'ddsketch', arg: { kind: 'col', name: 'i' } },
    { kind: 'ddsketch', arg: { kind: 'col', name: 'f' } },
    { kind: 'ddsketch', arg: { kind: 'col', name: 'ts' } },
  ];
  const plan: ScanPlan = { table: 't', filter: null, groupBy: [{ name: 'k', expr: { kind: 'col', name: 'g' }, type: 'string' }], partials, rows: null, maxGroups: 1_000_000 };
  const grouped = layoutOf(plan, schema);
  const whole = layoutOf({ ...plan, groupBy: [] }, schema);

  async function scan(layout: typeof grouped, shards: Scalar[][][], batchRows: number): Promise<Partial[]> {
    const ts = shardsFromRows(schema, shards, batchRows);
    const out: Partial[] = [];
    for (let s = 0; s < ts.length; s++) out.push((await scanShard(prepareShard(s, ts[s]!, schema), layout.plan, layout, new AbortController().signal)).partial);
    return out;
  }

  const row = fc.tuple(
    fc.option(fc.constantFrom('a', 'b', '', 'zz'), { nil: null }),
    fc.option(fc.oneof(fc.bigInt({ min: -50n, max: 50n }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n })), { nil: null }),
    fc.option(fc.oneof(fc.double({ noDefaultInfinity: true, min: -1e6, max: 1e6 }), fc.constantFrom(0, -0, NaN, Infinity)), { nil: null }),
    fc.option(fc.integer({ min: 0, max: 2 ** 41 }), { nil: null }),
  );

  it('small random data: exact distinct counts, quantile intervals hold quantile_disc', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 80 }), fc.array(fc.nat(80), { maxLength: 4 }), async (rows, cuts) => {
        const rs = rows as Scalar[][];
        const points = [...cuts.map((c) => Math.min(c, rs.length)), rs.length].sort((a, b) => a - b);
        const shards = points.map((p, k) => rs.slice(k === 0 ? 0 : points[k - 1], p));
        const merged = mergePartials(grouped, await scan(grouped, shards, 7));
        const [one] = await scan(grouped, [rs], 1000);
        expect(partialsEqual(grouped, merged, one!)).toBe(true);
        const groups = groupsOf(merged as Exclude<Partial, { type: 'rows' }>);
        for (const key of new Set(rs.map((r) => r[0]!))) {
          const mine = rs.filter((r) => r[0] === key);
          const e = groups.get(groupKeyString([key]))!;
          for (let c = 0; c < 4; c++) expect(grouped.kinds[c]!.finalise(e.states[c])).toBe(BigInt(distinctCount(mine.map((r) => r[c]!))));
          for (const [p, c] of [[4, 1], [5, 2], [6, 3]] as const) {
            for (const q of [0, 0.1, 0.5, 0.77, 1]) {
              const truth = quantileDisc(mine.map((r) => r[c] as number | bigint | null), q);
              const est = quantileEstimate(e.states[p] as QuantileState | null, q);
              if (truth === null || Number.isNaN(truth)) expect(truth === null ? est : Number.isNaN(est!.value)).toBe(truth === null ? null : true);
              else expect(est!.lo <= truth && truth <= est!.hi, `q=${q} truth=${truth} ${JSON.stringify(est)}`).toBe(true);
            }
          }
        }
      }),
      { numRuns: 60 },
    );
  });

  it('sets that cross the exact limit only when merged: the same sketch as one scan', async () => {
    await fc.assert(
      fc.asyncProperty(fc.integer({ min: 2, max: 5 }), fc.integer({ min: 1500, max: 4096 }), fc.integer(), async (nShards, perShard, seed) => {
        // Each shard stays under the limit (an exact set); together they pass it.
        const shards: Scalar[][][] = [];
        for (let s = 0; s < nShards; s++) {
          const rows: Scalar[][] = [];
          for (let k = 0; k < perShard; k++) {
            const v = (seed % 1000) + s * Math.floor(perShard / 2) + k; // overlapping ranges
            rows.push([`s${v}`, BigInt(v), v / 3, 978307200000 + v * 1000]);
          }
          shards.push(rows);
        }
        const parts = await scan(whole, shards, 1024);
        const merged = mergePartials(whole, parts);
        const [one] = await scan(whole, [shards.flat()], 4096);
        expect(partialsEqual(whole, merged, one!)).toBe(true);
        const all = shards.flat();
        const distinct = new Set(all.map((r) => r[1])).size;
        const e = [...groupsOf(merged as Exclude<Partial, { type: 'rows' }>).values()][0]!;
        const states = e.states as readonly ({ t: string } | null)[];
        for (const s of states.slice(0, 4)) expect(distinct > HLL_EXACT_LIMIT ? ['sparse', 'dense'] : ['set']).toContain(s?.t);
        // Merging a partial with itself changes nothing (idempotent), through the wire too.
        const frame = encodeFrame(whole, { partial: merged, provenance: [], rowsScanned: 0 });
        const back = decodeFrame(whole, frame).partial;
        expect(partialsEqual(whole, back, merged)).toBe(true);
        const twice = mergePartials(whole, [merged, back]);
        for (let c = 0; c < 4; c++) expect(whole.kinds[c]!.equals((groupsOf(twice as Exclude<Partial, { type: 'rows' }>).values().next().value as GroupEntry).states[c], e.states[c])).toBe(true);
      }),
      { numRuns: 8 },
    );
  });
});

describe('wire format', () => {
  const plan = planQuery('SELECT g, count(DISTINCT i) AS n, median(f) AS m FROM t GROUP BY g', tables).scan;
  const layout = layoutOf(plan, schema);

  it('garbled sketch bytes are a garbled child reply', () => {
    const good: Partial = { type: 'groups', groups: new Map([[groupKeyString(['a']), { keys: ['a'], states: [null, null] }]]) };
    const bytes = encodeFrame(layout, { partial: good, provenance: [], rowsScanned: 1 });
    expect(partialsEqual(layout, decodeFrame(layout, bytes).partial, good)).toBe(true);
    // A state that is not a valid set: tag 'S' with a count of 5 and no values.
    const bad: Partial = { type: 'groups', groups: new Map([[groupKeyString(['a']), { keys: ['a'], states: [{ t: 'set', values: new Set([1]) }, null] }]]) };
    const ok = encodeFrame(layout, { partial: bad, provenance: [], rowsScanned: 1 });
    const at = findSubarray(ok, Uint8Array.from([0x53, 1, 0, 0, 0]));
    expect(at).toBeGreaterThan(0);
    const broken = ok.slice();
    broken[at + 1] = 5;
    expect(() => decodeFrame(layout, broken)).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED' }) as Error);
  });
});

function findSubarray(hay: Uint8Array, needle: Uint8Array): number {
  outer: for (let i = 0; i + needle.length <= hay.length; i++) {
    for (let j = 0; j < needle.length; j++) if (hay[i + j] !== needle[j]) continue outer;
    return i;
  }
  return -1;
}

describe('planner', () => {
  it('names outputs like DuckDB and shares one partial per column', () => {
    const p = planQuery('SELECT count(DISTINCT i), approx_count_distinct(i), approx_quantile(f, 0.9), median(f), median(ts), count(distinct g) FROM t', tables);
    expect(p.output.map((c) => c.name)).toEqual(['count(DISTINCT i)', 'approx_count_distinct(i)', 'approx_quantile(f, 0.9)', 'median(f)', 'median(ts)', 'count(DISTINCT g)']);
    expect(p.output.map((c) => c.type)).toEqual(['int64', 'int64', 'float64', 'float64', 'timestamp', 'int64']);
    // median reads exact value counts (a sketch past 1,024 distinct values), approx_quantile the sketch.
    expect(p.scan.partials).toEqual([
      { kind: 'hll', arg: { kind: 'col', name: 'i' } },
      { kind: 'ddsketch', arg: { kind: 'col', name: 'f' } },
      { kind: 'value_counts', arg: { kind: 'col', name: 'f' } },
      { kind: 'value_counts', arg: { kind: 'col', name: 'ts' } },
      { kind: 'hll', arg: { kind: 'col', name: 'g' } },
    ]);
    expect(p.output[2]!.expr).toEqual({ kind: 'agg', fn: 'quantile', partials: [1], type: 'float64', q: 0.9 });
    expect(p.output[3]!.expr).toEqual({ kind: 'agg', fn: 'median', partials: [2], type: 'float64' });
  });

  it.each([
    ['SELECT approx_quantile(i, 1.5) FROM t', 'CANOPY_ERR_BAD_QUERY', /from 0 to 1/],
    ['SELECT approx_quantile(i, -0.1) FROM t', 'CANOPY_ERR_BAD_QUERY', /from 0 to 1/],
    ['SELECT approx_quantile(i, i) FROM t', 'CANOPY_ERR_BAD_QUERY', /from 0 to 1/],
    ["SELECT approx_quantile(i, '0.5') FROM t", 'CANOPY_ERR_BAD_QUERY', /from 0 to 1/],
    ['SELECT approx_quantile(i) FROM t', 'CANOPY_ERR_BAD_QUERY', /2 arguments/],
    ['SELECT quantile_cont(g, 0.5) FROM t', 'CANOPY_ERR_TYPE', /int64, float64 or timestamp/],
    ['SELECT approx_quantile(g, 0.5) FROM t', 'CANOPY_ERR_TYPE', /int64, float64 or timestamp/],
    ['SELECT count(DISTINCT *) FROM t', 'CANOPY_ERR_BAD_QUERY', /not valid/],
    ['SELECT approx_count_distinct(*) FROM t', 'CANOPY_ERR_BAD_QUERY', /\*/],
    ['SELECT count(*) FROM t WHERE median(i) > 1', 'CANOPY_ERR_BAD_QUERY', /HAVING/],
    ['SELECT median(nope) FROM t', 'CANOPY_ERR_UNKNOWN_COLUMN', /nope/],
  ])('%s -> %s', (sql, code, message) => {
    let err: unknown;
    try {
      planQuery(sql, tables);
    } catch (e) {
      err = e;
    }
    expect(err).toMatchObject({ code });
    expect((err as Error).message).toMatch(message);
  });

  it('approx_quantile and median in HAVING and ORDER BY make it an aggregate query', () => {
    const p = planQuery('SELECT g FROM t GROUP BY g HAVING median(i) > 2 ORDER BY approx_count_distinct(f) DESC', tables);
    expect(p.scan.partials).toEqual([
      { kind: 'value_counts', arg: { kind: 'col', name: 'i' } },
      { kind: 'hll', arg: { kind: 'col', name: 'f' } },
    ]);
  });
});

const rowsOf = (n: number, f: (k: number) => Scalar[]): Scalar[][] => Array.from({ length: n }, (_, k) => f(k));

describe('answers from an in-process tree', () => {
  const shards: Scalar[][][] = [
    [['a', 1n, 1.5, 1000], ['b', 2n, -2, 2000], ['', 2n, null, 3000], [null, null, 0, null]],
    [['a', 3n, 1.5, 1000], ['a', null, 8, 4000]],
    [],
    [['c', -7n, NaN, 5000], ['b', 2n, 2.5, 6000], ['', 40n, -0.5, 7000]],
  ];
  const all = shards.flat();

  it('COUNT(DISTINCT) over small data is exact and equals brute force; NULL is no value, "" is one', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 2 });
    const a = await ask(root, 'SELECT count(DISTINCT g) AS g, count(DISTINCT i) AS i, approx_count_distinct(f) AS f, count(DISTINCT ts) AS ts FROM t');
    expect(a.label).toBe('exact');
    expect(a.cells).toBe(null);
    expect(a.rows).toEqual([[0, 1, 2, 3].map((c) => BigInt(distinctCount(all.map((r) => r[c]!))))]);
    expect(a.rows[0]![0]).toBe(4n); // a, b, '', c
    const grouped = await ask(root, 'SELECT g, count(DISTINCT i) AS n FROM t GROUP BY g ORDER BY g');
    expect(grouped.label).toBe('exact');
    expect(grouped.rows).toEqual([['', 2n], ['a', 2n], ['b', 1n], ['c', 1n], [null, 0n]]);
    const none = await ask(root, "SELECT count(DISTINCT g) AS n, median(i) AS m FROM t WHERE g = 'zzz'");
    expect(none.rows).toEqual([[0n, null]]);
    expect(none.label).toBe('exact');
  });

  it("quantiles: bounded cells that hold quantile_disc (median: DuckDB's interpolated median); the answer is bounded, not exact", async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 2 });
    const a = await ask(root, 'SELECT median(i) AS mi, approx_quantile(f, 0.25) AS f25, approx_quantile(f, 1) AS fmax, median(ts) AS mts FROM t');
    const truth = [medianCont(all.map((r) => r[1] as bigint | null)), quantileDisc(all.map((r) => r[2] as number | null), 0.25), quantileDisc(all.map((r) => r[2] as number | null), 1), medianCont(all.map((r) => r[3] as number | null))];
    expect(truth[2]).toBeNaN();
    expect(a.rows[0]![2]).toBeNaN();
    expect(a.rowsComplete).toBe(true);
    a.rows[0]!.forEach((v, c) => {
      const cell = a.cells?.[0]?.[c] ?? null;
      if (cell === null) expect(Object.is(v, truth[c]) || v === truth[c]).toBe(true);
      else {
        expect(cell.label).toBe('bounded');
        expect((cell.lo as number) <= truth[c]! && truth[c]! <= (cell.hi as number)).toBe(true);
      }
    });
    expect(a.label).toBe(a.cells === null ? 'exact' : 'bounded');
    // Timestamps at α = 1e-4 of ~10^12 ms: not exact.
    const t = await ask(root, "SELECT median(ts) AS m FROM t WHERE ts >= '2001-01-01'");
    expect(t.rows).toEqual([[null]]);
    // 50 timestamps: the median is exact (value counts); approx_quantile's int64 interval narrows to one integer.
    const small = inProcessRoot(schema, [rowsOf(50, (k) => ['x', BigInt(k), k, (978307200000 + k * 3_600_000) * 1000])]);
    const s50 = await ask(small.root, 'SELECT median(ts) AS m, approx_quantile(i, 0.9) AS q FROM t');
    expect(s50.label).toBe('exact');
    expect(s50.rows).toEqual([[(978307200000 + 24.5 * 3_600_000) * 1000, 44]]);
    // 2,000 distinct timestamps, past the value-count budget: the median is the sketch's, bounded.
    const big = inProcessRoot(schema, [rowsOf(2000, (k) => ['x', BigInt(k % 50), k, (978307200000 + k * 3_600_000) * 1000])]);
    const b = await ask(big.root, 'SELECT median(ts) AS m, approx_quantile(i, 0.9) AS q FROM t');
    expect(b.label).toBe('bounded');
    const cell = b.cells![0]![0]!;
    const want = (978307200000 + 999.5 * 3_600_000) * 1000; // the 1,000th and 1,001st of 2,000 values interpolated
    expect(cell.label).toBe('bounded');
    expect((cell.lo as number) <= want && want <= (cell.hi as number)).toBe(true);
    expect((cell.hi as number) - (cell.lo as number)).toBeLessThan(2 * 1e-4 * want * 1.01);
    expect(b.rows[0]![1]).toBe(44); // int64: the interval narrows to one integer
    const json = answerToJSON(b) as { cells: { label: string; lo: unknown; hi: unknown }[][] };
    expect(json.cells[0]![0]).toEqual({ label: 'bounded', lo: isoFromMicros(cell.lo as number), hi: isoFromMicros(cell.hi as number) });
  });

  it('past the exact limit: approximate, a 99% interval holding the truth, stderr and confidence in the JSON', async () => {
    // Three shards of 3,000 values each under the limit, 7,500 distinct together.
    const parts = [0, 2250, 4500].map((start) => rowsOf(3000, (k) => ['x', BigInt(start + k), null, null]));
    const { root } = inProcessRoot(schema, parts);
    const a = await ask(root, 'SELECT count(DISTINCT i) AS n FROM t');
    expect(a.label).toBe('approximate');
    expect(a.rowsComplete).toBe(true);
    const cell = a.cells![0]![0]!;
    expect(cell.label).toBe('approximate');
    expect(cell.lo as bigint).toBeLessThanOrEqual(7500n);
    expect(cell.hi as bigint).toBeGreaterThanOrEqual(7500n);
    expect(cell.lo as bigint).toBeGreaterThan(BigInt(HLL_EXACT_LIMIT));
    expect(cell.confidence).toBe(HLL_CONFIDENCE);
    expect(cell.stderr).toBeCloseTo((1.04 / 128) * Number(a.rows[0]![0]), 1);
    const json = answerToJSON(a) as { label: string; cells: Record<string, unknown>[][] };
    expect(Object.keys(json.cells[0]![0]!)).toEqual(['label', 'lo', 'hi', 'stderr', 'confidence']);
  });

  it('missing shards: a set is bounded by the missing non-NULL rows (and int64 range); a quantile by their extremes', async () => {
    const faulty = (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) =>
      withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [1], error: 1 } satisfies FaultRule] });
    const parts: Scalar[][][] = [
      [['a', 1n, 1, 1], ['a', 2n, 2, 2], ['b', 3n, 3, 3]],
      [['a', 10n, 100, 10], ['a', 11n, 110, 11], ['a', 12n, 120, 12], ['a', 12n, null, 12]],
    ];
    const { root } = inProcessRoot(schema, parts, { wrap: faulty });
    const a = await ask(root, 'SELECT count(DISTINCT i) AS ni, count(DISTINCT f) AS nf, median(i) AS m FROM t');
    expect(a.missing.map((m) => m.shard)).toEqual([1]);
    expect(a.rows).toEqual([[3n, 3n, 2]]);
    expect(a.cells).toEqual([
      [
        { label: 'bounded', lo: 3n, hi: 6n }, // 4 rows, but int64 in [10, 12]: at most 3 more
        { label: 'bounded', lo: 3n, hi: 6n }, // 3 non-NULL rows
        // the seen median 2 (exact); with 4 rows in [10, 12] missing the 4th of 7 values lies
        // between the seen least (1, less the interpolation's rounding) and the missing max
        { label: 'bounded', lo: 1 - 4 * Number.EPSILON, hi: 12 + 48 * Number.EPSILON },
      ],
    ]);
    expect(a.label).toBe('bounded');
  });

  it('HAVING or ORDER BY ... LIMIT over these aggregates proves the row set only when every group is exact', () => {
    const plan = planQuery('SELECT g, count(DISTINCT i) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 1', tables);
    const layout = layoutOf(plan.scan, schema);
    const entry = (g: string, values: number[]): GroupEntry => ({ keys: [g], states: [{ t: 'set', values: new Set(values) }] });
    const groups = [entry('a', [1, 2, 3]), entry('b', [1])];
    const partial: Partial = { type: 'groups', groups: new Map(groups.map((e) => [groupKeyString(e.keys), e])) };
    const answer = finalise(plan, layout, partial);
    expect(answer.rows).toEqual([['a', 3n]]);
    expect(boundAggregateAnswer(plan, layout, answer.groups!, [], groups).label).toBe('exact');
    // Without every group, a group cut by the LIMIT cannot be checked.
    expect(boundAggregateAnswer(plan, layout, answer.groups!, []).rowsComplete).toBe(false);
    const sketchy: GroupEntry = { keys: ['c'], states: [{ t: 'dense', registers: new Uint8Array(16384).fill(1) }] };
    expect(boundAggregateAnswer(plan, layout, answer.groups!, [], [...groups, sketchy]).rowsComplete).toBe(false);
  });
});
