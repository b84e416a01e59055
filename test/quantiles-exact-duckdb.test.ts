/**
 * median, quantile_cont, quantile_disc, quantile, mode and entropy over the `value_counts`
 * partial (exact counts up to 1,024 distinct values per group, then a DDSketch) against DuckDB:
 * - random tables (NULLs, duplicates, NaN, ±Infinity, -0.0, int64 near 2^53, timestamps)
 *   split over random shards and tree shapes with some shards failing (fast-check): with every
 *   shard answering every cell is exact and equals DuckDB (mode ties aside: bounded between
 *   the tied values); with shards missing, exact cells equal DuckDB and bounded cells hold it;
 * - groups past the budget: the sketch's bounded cells hold DuckDB's value, whatever the split;
 * - mode and entropy of strings (exact counts, then Misra-Gries counters): a dominant string
 *   stays the exact mode past the budget; the counters stay within delta of the truth;
 * - the state's merge (associative, commutative, exact within the budget), its wire encoding
 *   and the decoder's refusals;
 * - q outside [0, 1], NULL or negative, and wrong types are refused with coded errors.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { STRING_COUNTS_BUDGET, stringCountsKind, stringCountsOf, type StringCounts } from '../src/merge/kinds/string-counts.ts';
import { VALUE_COUNTS_BUDGET, valueCountsKind, type ValueCountsState } from '../src/merge/kinds/value-counts.ts';
import { fromCanopy, fromDuck, sameValue, type CmpResult, type CmpType } from './helpers/compare.ts';
import { useDuckDB } from './helpers/duck.ts';
import { nullable, splitTables } from './helpers/small-table.ts';
import { ask, failingShardsRoot, inProcessRoot, answerBody as answer, type AnswerBody as Body } from './helpers/tree.ts';

/** Table `t`: `f` float64, `i` int64, `ts` timestamp, `g` string (the group key). */
const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 'ts', type: 'timestamp' },
    { name: 'g', type: 'string' },
  ],
};

const BIG = 2n ** 53n - 1n;
const T0 = 1_577_836_800_000_000;

function literal(v: Scalar, c: number): string {
  if (v === null) return 'NULL';
  if (c === 0) {
    const x = v as number;
    if (Object.is(x, -0)) return "'-0.0'::DOUBLE";
    return Number.isNaN(x) ? "'nan'::DOUBLE" : x === Infinity ? "'inf'::DOUBLE" : x === -Infinity ? "'-inf'::DOUBLE" : `${x}::DOUBLE`;
  }
  if (c === 1) return `(${String(v)})::BIGINT`;
  if (c === 2) return `make_timestamp((${String(v)})::BIGINT)`;
  return `'${String(v)}'`;
}

const duckdb = useDuckDB();

async function load(rows: readonly (readonly Scalar[])[]): Promise<void> {
  await duckdb().run('CREATE OR REPLACE TABLE t (f DOUBLE, i BIGINT, ts TIMESTAMP, g VARCHAR)');
  for (let k = 0; k < rows.length; k += 2000) {
    const chunk = rows.slice(k, k + 2000);
    await duckdb().run(`INSERT INTO t VALUES ${chunk.map((r) => `(${r.map(literal).join(', ')})`).join(', ')}`);
  }
}

const floats = fc.oneof(
  fc.integer({ min: -12, max: 12 }).map((k) => k / 4),
  fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, 1e300, -1e300, 0.1, 1 / 3),
);
const ints = fc.oneof(fc.bigInt({ min: -4n, max: 4n }), fc.constantFrom(BIG, -BIG, BIG - 2n, 10n ** 15n + 1n));
const stamps = fc.oneof(fc.integer({ min: -3, max: 3 }).map((k) => T0 + k * 1_000_003), fc.constantFrom(T0 + 1, -86_400_000_001, 0));
const row = fc.tuple(nullable(floats), nullable(ints), nullable(stamps), nullable(fc.constantFrom('a', 'b', 'c'))) as fc.Arbitrary<Scalar[]>;

const QUERIES: readonly string[] = [
  'SELECT g, median(f) AS mf, quantile_cont(f, 0.3) AS cf, quantile_disc(f, 0.7) AS df, quantile(f, 0.25) AS qf, median(i) AS mi, quantile_cont(i, 0.9) AS ci, ' +
    'quantile_disc(i, 0.1) AS di, median(ts) AS mt, quantile_cont(ts, 0.4) AS ct, quantile_disc(ts, 1) AS dt, count(*) AS n FROM t GROUP BY g ORDER BY g',
  'SELECT quantile_cont(f, 0) AS c0, quantile_cont(f, 1) AS c1, quantile_disc(f, 0) AS d0, quantile_cont(f, 0.75) AS c75, median(f * 2 + 1) FILTER (WHERE g <> \'a\') AS me, quantile_disc(i, 0.5) AS di, quantile_cont(ts, 0.1) AS ct, ' +
    'quantile_cont(f, -0.3) AS nf, quantile_disc(i, -0.7) AS ni, quantile_cont(ts, -0.6) AS nt, quantile(f, -1) AS n1, quantile_disc(ts, -0.25) AS nd FROM t',
  'SELECT g, mode(i) AS oi, mode(ts) AS ot, entropy(f) AS ef, entropy(i) AS ei, entropy(ts) AS et FROM t GROUP BY g ORDER BY g',
  'SELECT mode(f) AS of, entropy(f) AS ef, median(i) AS mi, mode(g) AS og, entropy(g) AS eg FROM t',
  'SELECT i, mode(g) AS og, entropy(g) AS eg, mode(g || \'x\') FILTER (WHERE f > 0) AS ox FROM t GROUP BY i ORDER BY i',
];

async function truth(sql: string): Promise<CmpResult> {
  return fromDuck(await duckdb().runAndReadAll(sql));
}

/** A comparable value or cell end as a number: timestamps from ISO (µs), int64 strings beyond 2^53. */
function num(v: unknown, type: CmpType): number {
  if (type === 'timestamp' && typeof v === 'string') {
    const m = /^(.*)\.(\d{3})(\d{3})?Z$/.exec(v)!;
    return Date.parse(`${m[1]!}Z`) * 1000 + Number(m[2]) * 1000 + Number(m[3] ?? 0);
  }
  return Number(v);
}

interface Counts {
  exact: number;
  bounded: number;
  approximate: number;
}

/** Exact cells equal DuckDB; bounded cells hold it. Counts what was checked. */
function checkCells(sql: string, body: Body, want: CmpResult, counts: Counts): void {
  const got = fromCanopy(body);
  expect(got.types, sql).toEqual(want.types);
  expect(got.rows.length, sql).toBe(want.rows.length);
  want.rows.forEach((wrow, r) => {
    want.types.forEach((type, c) => {
      const x = wrow[c]!;
      const cell = body.label === 'exact' ? null : (body.cells?.[r]?.[c] ?? null);
      const where = `${sql}: row ${r} ${want.names[c]}`;
      if (cell === null) {
        counts.exact++;
        expect(sameValue(got.rows[r]![c]!, x, type), `${where} exact: got ${String(got.rows[r]![c])}, want ${String(x)}`).toBe(true);
        return;
      }
      if (cell.label === 'approximate') {
        counts.approximate++;
        return;
      }
      expect(cell.label, where).toBe('bounded');
      counts.bounded++;
      if (x === null) return;
      const v = num(x, type);
      expect(Number.isNaN(v), `${where}: DuckDB's NaN in a bounded cell`).toBe(false);
      if (cell.lo !== null) expect(num(cell.lo, type), `${where} lo`).toBeLessThanOrEqual(v);
      if (cell.hi !== null) expect(num(cell.hi, type), `${where} hi`).toBeGreaterThanOrEqual(v);
    });
  });
}

/**
 * Labels expected with every shard answering: exact, but for mode's ties (bounded; approximate
 * when NaN may win) and entropy over two NaNs or more (bounded: DuckDB counts NaN rows apart).
 */
function allowedComplete(sql: string, body: Body): void {
  if (body.label === 'exact') return;
  body.cells?.forEach((r) =>
    r.forEach((cell, c) => {
      if (cell === null) return;
      expect(body.columns[c]!.name, `${sql}: only mode and entropy may be inexact over every shard`).toMatch(/^[oe]/);
      expect(['bounded', 'approximate']).toContain(cell.label);
    }),
  );
}

describe('median, quantile_cont, quantile_disc, quantile, mode and entropy against DuckDB', () => {
  it('random tables, shard splits, tree shapes and failing shards', async () => {
    const counts: Counts = { exact: 0, bounded: 0, approximate: 0 };
    const complete: Counts = { exact: 0, bounded: 0, approximate: 0 };
    await fc.assert(
      fc.asyncProperty(splitTables(row), async (t) => {
        const root = failingShardsRoot(SCHEMA, t);
        const whole = inProcessRoot(SCHEMA, t.shards, { fanout: t.fanout }).root;
        await load(t.rows);
        for (const sql of QUERIES) {
          const want = await truth(sql);
          const all = await answer(whole, sql);
          allowedComplete(sql, all);
          checkCells(sql, all, want, complete);
          let body: Body;
          try {
            body = await answer(root, sql);
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          if (!body.rows_complete) continue;
          checkCells(sql, body, want, counts);
        }
      }),
      { numRuns: 60, seed: 2020 },
    );
    expect(complete.exact).toBeGreaterThan(2000);
    expect(counts.exact).toBeGreaterThan(500);
    expect(counts.bounded).toBeGreaterThan(50);
  }, 300_000);

  it('groups past the budget: the sketch bounds hold DuckDB, whatever the split', async () => {
    // Group 'a': 3,000 distinct floats; 'b': 1,500 distinct int64 and timestamps; 'c': few values, one mode each.
    const rows: Scalar[][] = [];
    for (let k = 0; k < 3000; k++) rows.push([Math.sin(k) * 1000 + k / 7, BigInt(k % 50), T0 + (k % 40) * 1_000_000, 'a']);
    for (let k = 0; k < 1500; k++) rows.push([k % 3, BigInt(k * k) - 1_000_000n, T0 + k * 1_234_567, 'b']);
    for (let k = 0; k < 60; k++) rows.push([Math.min(k % 5, 3), BigInt(Math.min(k % 7, 4)), T0, 'c']);
    // Group 'd': int64 beyond 2^53 (the group's int64 counts turn into a sketch of rounded doubles).
    for (let k = 0; k < 30; k++) rows.push([k % 3 === 1 ? 1 : 0.5, k % 3 === 0 ? 2n ** 60n + BigInt(k * 1001) : BigInt(k % 4) - 2n ** 61n, T0, 'd']);
    await load(rows);
    const sql =
      'SELECT g, median(f) AS mf, quantile_cont(f, 0.37) AS cf, quantile_disc(f, 0.9) AS df, median(i) AS mi, quantile_disc(i, 0.2) AS di, quantile_cont(ts, 0.6) AS ct, ' +
      'mode(f) AS of, mode(i) AS oi, entropy(f) AS ef, entropy(i) AS ei, count(*) AS n, quantile_cont(f, -0.37) AS nf, quantile_disc(i, -0.2) AS ni FROM t GROUP BY g ORDER BY g';
    const want = await truth(sql);
    const splits = [[rows], [rows.filter((_, k) => k % 2 === 0), rows.filter((_, k) => k % 2 === 1)], Array.from({ length: 5 }, (_, s) => rows.filter((_, k) => k % 5 === s))];
    const counts: Counts = { exact: 0, bounded: 0, approximate: 0 };
    for (const shards of splits) {
      const body = await answer(inProcessRoot(SCHEMA, shards, { fanout: 2 }).root, sql);
      expect(body.label).not.toBe('exact');
      checkCells(sql, body, want, counts);
      // Group 'c' stays exact; 'a' (floats) and 'b' (int64, timestamps) go to the sketch.
      expect(body.cells![2]!.every((c) => c === null)).toBe(true);
      expect(body.cells![0]![1]!.label).toBe('bounded');
      expect(body.cells![1]![4]!.label).toBe('bounded');
      expect(body.cells![1]![6]!.label).toBe('bounded');
      // Values within the budget stay exact: group 'a' int64 (50 values), group 'b' floats (3 values).
      expect(body.cells![0]![4]).toBeNull();
      expect(body.cells![1]![1]).toBeNull();
      // Group 'd': int64 past 2^53 bounded (median, quantile_disc, mode, entropy), floats exact.
      for (const c of [4, 5, 8, 10]) expect(body.cells![3]![c]!.label, `d ${c}`).toBe('bounded');
      for (const c of [1, 2, 3, 7, 9]) expect(body.cells![3]![c], `d ${c}`).toBeNull();
    }
    expect(counts.bounded).toBeGreaterThan(25);
    expect(counts.exact).toBeGreaterThan(30);
  }, 120_000);

  it('strings past the budget: a dominant string stays the exact mode (Misra-Gries counters); otherwise approximate, entropy bounded', async () => {
    const rows: Scalar[][] = [];
    for (let k = 0; k < 3000; k++) rows.push([1, null, null, `s${k}`]);
    for (let k = 0; k < 2500; k++) rows.push([1, null, null, 'hot']);
    for (let k = 0; k < 3000; k++) rows.push([2, null, null, `s${k % 2500}`]);
    for (let k = 0; k < 10; k++) rows.push([3, null, null, k < 6 ? 'x' : `y${k}`]);
    await load(rows);
    const sql = 'SELECT f, mode(g) AS og, entropy(g) AS eg, count(*) AS n FROM t GROUP BY f ORDER BY f';
    const want = await truth(sql);
    const splits = [[rows], [rows.filter((_, k) => k % 2 === 0), rows.filter((_, k) => k % 2 === 1)], Array.from({ length: 4 }, (_, s) => rows.filter((_, k) => k % 4 === s))];
    const counts: Counts = { exact: 0, bounded: 0, approximate: 0 };
    for (const shards of splits) {
      const body = await answer(inProcessRoot(SCHEMA, shards, { fanout: 2 }).root, sql);
      checkCells(sql, body, want, counts);
      expect(body.rows.map((r) => r[1])).toEqual(['hot', expect.any(String), 'x']);
      expect(body.cells![0]![1]).toBeNull(); // 'hot' beats every other counter by more than their error
      expect(body.cells![1]![1]!.label).toBe('approximate'); // 500 strings tie at 2
      expect(body.cells![0]![2]!.label).toBe('bounded');
      expect(body.cells![1]![2]!.label).toBe('bounded');
      expect(body.cells![2]!.every((c) => c === null)).toBe(true);
    }
    expect(counts.exact).toBeGreaterThan(20);
  }, 120_000);

  it('the string counters: exact within the budget, each within delta of the truth past it, whatever the merge order; the wire round-trips', () => {
    const kind = stringCountsKind('string');
    const one = (v: string): StringCounts => ({ values: [v], counts: [1], total: 1, delta: 0 });
    let past = 0;
    // A part: n strings, a few hot ones and a spread of others (a seeded spread over `spread` names).
    const special = ['a', 'b', 'hot', 'é', '😀'];
    const part = fc
      .record({ n: fc.integer({ min: 300, max: 1500 }), seed: fc.nat(), spread: fc.integer({ min: 50, max: 4000 }) })
      .map((p) => Array.from({ length: p.n }, (_, k) => (k % 7 === 0 ? special[k % 5]! : `w${(k * 7919 + p.seed) % p.spread}`)));
    fc.assert(
      fc.property(fc.array(part, { minLength: 1, maxLength: 4 }), fc.boolean(), (parts, oneByOne) => {
        // A part's state: merged one string at a time, or from its counts at once (as a leaf gives it).
        const tally = (p: readonly string[]): [string, number][] => [...p.reduce((m, v) => m.set(v, (m.get(v) ?? 0) + 1), new Map<string, number>())];
        const states = parts.map((p) => (oneByOne && p.length < 400 ? p.reduce<StringCounts | null>((s, v) => kind.merge(s, one(v)), null) : stringCountsOf(tally(p), p.length, 0)));
        const merged = states.reduce((a, b) => kind.merge(a, b), null);
        const truthCounts = new Map<string, number>();
        for (const v of parts.flat()) truthCounts.set(v, (truthCounts.get(v) ?? 0) + 1);
        if (merged === null) {
          expect(truthCounts.size).toBe(0);
          return;
        }
        expect(merged.total).toBe(parts.flat().length);
        if (truthCounts.size <= STRING_COUNTS_BUDGET) expect(merged.delta).toBe(0);
        else past++;
        for (const [v, c] of truthCounts) {
          const i = merged.values.indexOf(v);
          const est = i < 0 ? 0 : merged.counts[i]!;
          expect(est).toBeLessThanOrEqual(c);
          expect(c).toBeLessThanOrEqual(est + merged.delta);
        }
        expect(kind.equals(kind.decode(kind.encode(merged)), merged)).toBe(true);
      }),
      { numRuns: 40, seed: 21 },
    );
    expect(past).toBeGreaterThan(10);
    const good = kind.encode(kind.merge(one('a'), one('b')))!;
    expect(() => kind.decode(Uint8Array.from([...(good as Uint8Array), 1]))).toThrow(/trailing/);
    expect(() => kind.decode(Uint8Array.from([0x53, 1, 2, 0, 1, 1, 0xff, 1]))).toThrow(/UTF-8/);
    expect(() => kind.decode(Uint8Array.from([0x53, 1, 3, 0, 1, 1, 0x61, 1]))).toThrow(/total/);
    expect(() => kind.decode(Uint8Array.from([0x53, 1, 2, 0, 2, 1, 0x62, 1, 1, 0x61, 1]))).toThrow(/ascending/);
  });

  it('past the budget with every string tied (all distinct), the counters keep strings spread over the order, within the bound', () => {
    const kind = stringCountsKind('string');
    fc.assert(
      fc.property(fc.integer({ min: STRING_COUNTS_BUDGET + 1, max: 5000 }), fc.integer({ min: 1, max: 5 }), fc.integer({ min: 1, max: 3 }), (n, parts, copies) => {
        // n distinct strings, each `copies` times, split round-robin over `parts` states.
        const names = Array.from({ length: n }, (_, k) => `s${String(k).padStart(5, '0')}`);
        const states = Array.from({ length: parts }, (_, p) => {
          const mine = names.filter((_, k) => k % parts === p);
          return stringCountsOf(mine.map((v) => [v, copies] as [string, number]), mine.length * copies, 0);
        });
        const merged = states.reduce((a, b) => kind.merge(a, b), null)!;
        expect(merged.total).toBe(n * copies);
        // Not emptied (it was: every counter taken, a quantile's guess NULL) ...
        expect(merged.values.length).toBeGreaterThan(0);
        // ... each string's count within [counter, counter + delta] ...
        for (const v of names) {
          const i = merged.values.indexOf(v);
          const est = i < 0 ? 0 : merged.counts[i]!;
          expect(est).toBeLessThanOrEqual(copies);
          expect(copies).toBeLessThanOrEqual(est + merged.delta);
        }
        // ... and the kept strings spread over the order: the middle one near the median.
        const mid = names.indexOf(merged.values[merged.values.length >> 1]!);
        expect(Math.abs(mid - n / 2)).toBeLessThan(n / 8);
        expect(kind.equals(kind.decode(kind.encode(merged)), merged)).toBe(true);
      }),
      { numRuns: 30, seed: 7 },
    );
  });

  it('the state merges associatively and commutatively, exact up to the budget, and round-trips the wire', () => {
    const kind = valueCountsKind('float64');
    const stateOf = (vals: readonly number[]): ValueCountsState | null => {
      let s: ValueCountsState | null = null;
      for (const v of vals) s = kind.merge(s, { kind: 'exact', type: 'float64', values: Float64Array.of(v === 0 ? 0 : v), counts: Float64Array.of(1), total: 1 });
      return s;
    };
    const value = fc.oneof(fc.integer({ min: -700, max: 700 }).map((k) => k / 2), fc.constantFrom(NaN, Infinity, -Infinity, -0));
    fc.assert(
      fc.property(fc.array(value, { maxLength: 900 }), fc.array(value, { maxLength: 900 }), fc.array(value, { maxLength: 300 }), (a, b, c) => {
        const [sa, sb, sc] = [stateOf(a), stateOf(b), stateOf(c)];
        const left = kind.merge(kind.merge(sa, sb), sc);
        const right = kind.merge(sa, kind.merge(sb, sc));
        expect(kind.equals(left, right)).toBe(true);
        expect(kind.equals(kind.merge(sa, sb), kind.merge(sb, sa))).toBe(true);
        const distinct = new Set([...a, ...b, ...c].map((v) => (v === 0 ? 0 : v))).size;
        expect(left?.kind ?? 'exact').toBe(distinct > VALUE_COUNTS_BUDGET ? 'sketch' : 'exact');
        expect(kind.equals(kind.decode(kind.encode(left)), left)).toBe(true);
        if (left?.kind === 'exact') expect(left.total).toBe(a.length + b.length + c.length);
      }),
      { numRuns: 60, seed: 20 },
    );
    const good = kind.encode(stateOf([1, 2, 2, NaN]))!;
    expect(kind.decode(good)).not.toBeNull();
    const bad = (mutate: (b: Uint8Array) => Uint8Array | unknown, msg: RegExp): void => expect(() => kind.decode(mutate(Uint8Array.from(good as Uint8Array)))).toThrow(msg);
    bad((b) => ((b as Uint8Array)[1] = 9, b), /tag or version/);
    bad((b) => (b as Uint8Array).subarray(0, 12), /truncated/);
    bad((b) => Uint8Array.from([...(b as Uint8Array), 0]), /trailing/);
    bad((b) => ((b as Uint8Array)[2] = 0, b), /0 values/);
    bad(() => 'x', /byte string/);
    // Values out of order (2 before 1) and a zero count.
    bad((b) => {
      const x = b as Uint8Array;
      const one = x.slice(3, 11);
      x.set(x.slice(12, 20), 3);
      x.set(one, 12);
      return x;
    }, /ascending/);
    bad((b) => ((b as Uint8Array)[11] = 0, b), /zero count/);
    expect(() => valueCountsKind('int64').decode(valueCountsKind('float64').encode(stateOf([0.5])))).toThrow(/int64/);
  });

  it('q outside [-1, 1] (approx_quantile: [0, 1]), NULL or not a literal, and wrong types are refused with coded errors', async () => {
    const { root } = inProcessRoot(SCHEMA, [[[1, 2n, T0, 'a']]], { fanout: 2 });
    await expect(ask(root, 'SELECT quantile_cont(f, 1.5) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT quantile_disc(f, -1.5) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT quantile(f, NULL) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT quantile_cont(f, -1.01) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT approx_quantile(f, -0.5) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT quantile_cont(f, i) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT quantile_cont(f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    // median of strings is DuckDB's quantile_disc (test/aggregates3-duckdb.test.ts); quantile_cont of strings DuckDB refuses.
    await expect(ask(root, 'SELECT quantile_cont(g, 0.5) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT median(g = \'a\') FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT mode(g = \'a\') FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT entropy(f, i) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    for (const sql of ['SELECT quantile_cont(g, 0.5) FROM t', 'SELECT quantile_cont(f, 1.5) FROM t', 'SELECT quantile_disc(f, -1.5) FROM t', 'SELECT quantile(f, NULL) FROM t', 'SELECT quantile_cont(f, -1.01) FROM t']) {
      await expect(duckdb().runAndReadAll(sql), sql).rejects.toThrow();
    }
  });
});
