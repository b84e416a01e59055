/**
 * product (last block), sem, geomean, weighted_avg, fsum and favg, bit_and, bit_or and bit_xor, skewness, kurtosis and kurtosis_pop, and the bivariate aggregates (covar_pop, covar_samp, corr, regr_count, regr_avgx, regr_avgy,
 * regr_sxx, regr_syy, regr_sxy, regr_slope, regr_intercept, regr_r2) against DuckDB:
 * - random tables (NULLs on either side, constant and empty groups) split over random shards
 *   and tree shapes with some shards failing (fast-check): exact cells equal DuckDB, bounded
 *   cells (regr_count, regr_avgx, regr_avgy) hold DuckDB's value, and nothing is inexact with
 *   every shard answering;
 * - NaN, ±Infinity, one pair, constant x or y, spreads past the double range: the same
 *   values, NULLs, NaNs and refusals as DuckDB's, whatever the split;
 * - the comoment merge against the one-pass state of the concatenated rows.
 * Floats labelled exact equal DuckDB to 1e-9 relative: a result whose exact value is 0 or
 * nearly so (a zero covariance) comes out as rounding noise in both engines, each with its own
 * sign and digits, and must be labelled approximate (so is not compared), even with every
 * shard answering.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { comomentMerge, powerSumsMerge, resolveKind, type ComomentState, type PowerSumsState } from '../src/merge/kinds/index.ts';
import type { Scalar } from '../src/merge/index.ts';
import { fromCanopy, fromDuck, sameValue, type CmpResult } from './helpers/compare.ts';
import { useDuckDB } from './helpers/duck.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { ask, failingShardsRoot, inProcessRoot, answerBody as answer, type AnswerBody as Body } from './helpers/tree.ts';

const FNS = ['covar_pop', 'covar_samp', 'corr', 'regr_count', 'regr_avgx', 'regr_avgy', 'regr_sxx', 'regr_syy', 'regr_sxy', 'regr_slope', 'regr_intercept', 'regr_r2'] as const;

/** Every function over (y, x), aliased by its name and a suffix. */
const calls = (y: string, x: string, suffix: string, filter = ''): string => FNS.map((f) => `${f}(${y}, ${x})${filter} AS ${f}${suffix}`).join(', ');

const QUERIES: readonly string[] = [
  `SELECT g, ${calls('f', 'i', '_fi')}, count(*) AS n FROM t GROUP BY g ORDER BY g`,
  `SELECT ${calls('i', 'f', '_if')}, ${calls('f * 2 + i', 'f', '_e', " FILTER (WHERE s <> 'a')")}, var_pop(f) AS vf FROM t`,
  `SELECT s, covar_pop(i, i) AS cii, corr(f, f) AS cff, regr_r2(i, f) AS r2, regr_slope(f, f) AS sff, regr_count(f, i) + 1 AS rc1 FROM t GROUP BY s ORDER BY s`,
];

const row = fc.tuple(
  nullable(fc.integer({ min: -12, max: 12 }).map((k) => k / 4)),
  nullable(fc.bigInt({ min: -3n, max: 3n })),
  nullable(fc.constantFrom('a', 'b', 'c')),
  nullable(fc.constantFrom('a', 'b')),
);

const duckdb = useDuckDB();

async function truth(sql: string): Promise<CmpResult> {
  return fromDuck(await duckdb().runAndReadAll(sql));
}

/** Equal as the file's header says: 1e-9 relative, NaN to NaN, NULL to NULL. */
function close(a: unknown, b: unknown, type: string): boolean {
  return sameValue(a as never, b as never, type as never);
}

/** Exact cells equal DuckDB; bounded cells hold it. Counts what was checked. */
function checkCells(sql: string, body: Body, want: CmpResult, counts: { exact: number; bounded: number; approximate: number }): void {
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
        expect(close(got.rows[r]![c], x, type), `${where} exact: got ${String(got.rows[r]![c])}, want ${String(x)}`).toBe(true);
        return;
      }
      if (cell.label === 'approximate') {
        counts.approximate++;
        return;
      }
      expect(cell.label, where).toBe('bounded');
      if (x === null || typeof x !== 'number') return;
      counts.bounded++;
      if (cell.lo !== null) expect(Number(cell.lo), `${where} lo`).toBeLessThanOrEqual(x);
      if (cell.hi !== null) expect(Number(cell.hi), `${where} hi`).toBeGreaterThanOrEqual(x);
    });
  });
}

/** The one-pass (Welford) state of pairs, as a leaf builds it. */
function onePass(pairs: readonly (readonly [number, number])[]): ComomentState | null {
  let s: ComomentState | null = null;
  for (const [y, x] of pairs) {
    const p: ComomentState = s ?? { n: 0, sx: 0, sy: 0, mx: 0, my: 0, m2x: 0, m2y: 0, cxy: 0 };
    const n: number = p.n + 1;
    const dx: number = x - p.mx;
    const dy: number = y - p.my;
    const mx: number = p.mx + dx / n;
    const my: number = p.my + dy / n;
    s = { n, sx: p.sx + x, sy: p.sy + y, mx, my, m2x: p.m2x + dx * (x - mx), m2y: p.m2y + dy * (y - my), cxy: p.cxy + dx * (y - my) };
  }
  return s;
}

describe('covar_pop, covar_samp, corr and regr_* against DuckDB', () => {
  it('random tables, shard splits, tree shapes and failing shards', async () => {
    const counts = { exact: 0, bounded: 0, approximate: 0 };
    await fc.assert(
      fc.asyncProperty(splitTables(row), async (t) => {
        const root = failingShardsRoot(SMALL_SCHEMA, t);
        await loadSmallTable(duckdb(), t.rows);
        for (const sql of QUERIES) {
          let body: Body;
          try {
            body = await answer(root, sql);
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          // With every shard answering only rounding makes a cell approximate (checkCells counts them).
          if (!body.rows_complete) continue;
          checkCells(sql, body, await truth(sql), counts);
        }
      }),
      { numRuns: 40, seed: 2008 },
    );
    expect(counts.exact).toBeGreaterThan(1000);
    expect(counts.bounded).toBeGreaterThan(0);
    expect(counts.approximate).toBeGreaterThan(0);
  }, 300_000);

  it('NaN, ±Infinity, one pair, constant sides and overflow: DuckDB values, NaNs, NULLs and refusals, whatever the split', async () => {
    const cases: Scalar[][][] = [
      [[1, 2n, null, 'a']],
      [[1, 2n, null, 'a'], [1, 3n, null, 'a'], [null, 4n, null, 'a'], [5, null, null, 'a']],
      [[1, 2n, null, 'a'], [2, 2n, null, 'a'], [3, 2n, null, 'a']],
      [[NaN, 2n, null, 'a'], [2, 2n, null, 'a'], [3, 5n, null, 'a']],
      [[Infinity, 1n, null, 'a'], [2, 2n, null, 'a'], [3, 5n, null, 'a']],
      [[-Infinity, 1n, null, 'a'], [Infinity, 2n, null, 'a']],
      [[1e300, 1n, null, 'a'], [-1e300, 2n, null, 'a'], [0, 3n, null, 'a']],
      [[1e308, 1n, null, 'a'], [-1e308, 2n, null, 'a']],
      [[0.5, -1n, null, 'a'], [0.25, 1n, null, 'a'], [-0, 0n, null, 'a'], [2, 3n, null, 'a']],
      [[null, 1n, null, 'a'], [2, null, null, 'a']],
      [],
    ];
    // Each function alone (a refusal of one must not hide the others), over (f, i) and (i, f).
    const sqls = FNS.flatMap((f) => [`SELECT ${f}(f, i) AS v FROM t`, `SELECT ${f}(i, f) AS v FROM t`, `SELECT g, ${f}(f, f) AS v FROM t GROUP BY g ORDER BY g`]);
    let refused = 0;
    let nan = 0;
    let compared = 0;
    let approximate = 0;
    for (const rows of cases) {
      await loadSmallTable(duckdb(), rows);
      const splits = [[rows, []], rows.map((r) => [r]), [[], ...rows.map((r) => [r]).reverse()]];
      for (const split of splits) {
        const { root } = inProcessRoot(SMALL_SCHEMA, split, { fanout: 2 });
        for (const sql of sqls) {
          let want: CmpResult | null = null;
          let duckError = '';
          try {
            want = await truth(sql);
          } catch (e) {
            duckError = (e as Error).message;
          }
          const what = `${sql} over ${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v))}`;
          if (want === null) {
            expect(duckError, what).toMatch(/out of range/i);
            await expect(answer(root, sql), what).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
            refused++;
            continue;
          }
          const body = await answer(root, sql);
          const got = fromCanopy(body);
          expect(got.types, what).toEqual(want.types);
          expect(got.rows.length, what).toBe(want.rows.length);
          want.rows.forEach((wr, r) =>
            wr.forEach((x, c) => {
              // An exact 0 from rounded steps (an intercept of y = x) is labelled approximate: not compared.
              if (body.label !== 'exact' && (body.cells?.[r]?.[c] ?? null) !== null) {
                expect(body.cells![r]![c]!.label, what).toBe('approximate');
                approximate++;
                return;
              }
              compared++;
              if (typeof x === 'number' && Number.isNaN(x)) nan++;
              expect(close(got.rows[r]![c], x, want.types[c]!), `${what}: got ${String(got.rows[r]![c])}, want ${String(x)}`).toBe(true);
            }),
          );
        }
      }
    }
    expect(refused).toBeGreaterThan(10);
    expect(nan).toBeGreaterThan(5);
    expect(compared).toBeGreaterThan(10 * approximate);
  }, 300_000);

  it('wrong arity, types and DISTINCT are refused with coded errors', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 2n, 'a', 'a']]], { fanout: 2 });
    await expect(ask(root, 'SELECT corr(f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT regr_slope(f, i, f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    await expect(ask(root, 'SELECT covar_pop(s, f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT regr_count(f, g) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT covar_pop(DISTINCT f, i) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_UNSUPPORTED' });
  });

  it('the comoment merge equals the one-pass state of the rows joined, whatever the split and order', () => {
    const pairs = fc.array(fc.tuple(fc.double({ min: -1e6, max: 1e6, noNaN: true }), fc.double({ min: -1e6, max: 1e6, noNaN: true })), { maxLength: 30 });
    fc.assert(
      fc.property(pairs, fc.array(fc.nat({ max: 30 }), { maxLength: 5 }), (ps, cuts) => {
        const at = [...new Set(cuts.map((c) => Math.min(c, ps.length)))].sort((a, b) => a - b);
        const parts = [0, ...at].map((from, k) => ps.slice(from, [...at, ps.length][k]));
        const merged = parts.map(onePass).reduceRight((acc, s) => comomentMerge(s, acc), null as ComomentState | null);
        const whole = onePass(ps);
        if (whole === null) {
          expect(merged).toBeNull();
          return;
        }
        const m = merged!;
        expect(m.n).toBe(whole.n);
        const scale = (a: number, b: number): number => 1e-9 * (1 + Math.abs(a) + Math.abs(b));
        for (const k of ['sx', 'sy', 'mx', 'my'] as const) expect(Math.abs(m[k] - whole[k])).toBeLessThanOrEqual(scale(m[k], whole[k]) * 1e6);
        for (const k of ['m2x', 'm2y', 'cxy'] as const) expect(Math.abs(m[k] - whole[k])).toBeLessThanOrEqual(1e-9 * (1 + Math.sqrt(whole.m2x * whole.m2y) + whole.m2x + whole.m2y));
      }),
      { numRuns: 300, seed: 79 },
    );
  });
});

// skewness / kurtosis / kurtosis_pop: quarters (every power sum exact: DuckDB's answer, labelled
// exact), general doubles (exact when the rounding estimate allows, else approximate) and values
// with a large mean against their spread (DuckDB's formula cancels: mostly approximate).
const MOMENT_SQL = [
  'SELECT g, skewness(f) AS sk, kurtosis(f) AS ku, kurtosis_pop(f) AS kp, skewness(i) AS ski, kurtosis(i) AS kui, count(f) AS n FROM t GROUP BY g ORDER BY g',
  "SELECT skewness(f * 3 - i) AS sk, kurtosis_pop(f) FILTER (WHERE s <> 'a') AS kp, kurtosis(i) AS ku, var_pop(f) AS v FROM t",
];
const MOMENT_VALUES: readonly fc.Arbitrary<number>[] = [
  fc.integer({ min: -12, max: 12 }).map((k) => k / 4),
  fc.double({ min: -100, max: 100, noNaN: true }),
  fc.integer({ min: -12, max: 12 }).map((k) => 1e7 + k / 3),
];

describe('covariance rounding labels', () => {
  it('well-conditioned random doubles: every cell exact with every shard answering; a zero covariance: approximate', async () => {
    const pairs = fc.array(fc.tuple(fc.double({ min: -1e3, max: 1e3, noNaN: true }), fc.double({ min: -1e3, max: 1e3, noNaN: true })), { minLength: 3, maxLength: 30 });
    const sql = `SELECT ${calls('f', 'f * 0.5 + x', '')} FROM (SELECT f, 0.0 AS x FROM t)`.replace(' FROM (SELECT f, 0.0 AS x FROM t)', ' FROM t').replaceAll(' + x', ' + i');
    let exact = 0;
    await fc.assert(
      fc.asyncProperty(pairs, fc.integer({ min: 1, max: 4 }), async (ps, k) => {
        const rows: Scalar[][] = ps.map(([a, b]) => [a, BigInt(Math.round(b)), null, 'a']);
        await loadSmallTable(duckdb(), rows);
        const shards = Array.from({ length: k }, (_v, j) => rows.filter((_r, r) => r % k === j));
        const body = await answer(inProcessRoot(SMALL_SCHEMA, shards, { fanout: 2 }).root, sql);
        const want = await truth(sql);
        const got = fromCanopy(body);
        want.rows[0]!.forEach((x, c) => {
          if ((body.cells?.[0]?.[c] ?? null) !== null) return;
          exact++;
          expect(close(got.rows[0]![c], x, want.types[c]!), `${want.names[c]}: got ${String(got.rows[0]![c])}, want ${String(x)}`).toBe(true);
        });
      }),
      { numRuns: 40, seed: 1979 },
    );
    expect(exact).toBeGreaterThan(300);
    // x and y = x²: covariance exactly 0 over -2..2, rounding noise in Welford's steps.
    const rows: Scalar[][] = [-2, -1, 0, 1, 2, 0.5, -0.5].map((v) => [v, BigInt(Math.round(v * v * 4)), null, 'a']);
    await loadSmallTable(duckdb(), rows);
    const body = await answer(inProcessRoot(SMALL_SCHEMA, [rows.slice(0, 3), rows.slice(3)], { fanout: 2 }).root, 'SELECT covar_pop(i, f) AS c, corr(i, f) AS r, regr_count(i, f) AS n FROM t');
    const got = fromCanopy(body);
    if (got.rows[0]![0] !== 0) expect(body.cells?.[0]?.[0]?.label).toBe('approximate');
    expect(body.cells?.[0]?.[2] ?? null).toBeNull();
  });
});

describe('skewness, kurtosis and kurtosis_pop against DuckDB', () => {
  it('random tables, shard splits, tree shapes and failing shards', async () => {
    const counts = { exact: 0, bounded: 0, approximate: 0 };
    // One regime of values per table, so that whole groups are ill-conditioned.
    const tablesOf = (v: fc.Arbitrary<number>) => splitTables(fc.tuple(nullable(v), nullable(fc.bigInt({ min: -3n, max: 3n })), nullable(fc.constantFrom('a', 'b', 'c')), nullable(fc.constantFrom('a', 'b'))));
    await fc.assert(
      fc.asyncProperty(fc.constantFrom(0, 1, 2).chain((k) => tablesOf(MOMENT_VALUES[k]!)), async (t) => {
        const root = failingShardsRoot(SMALL_SCHEMA, t);
        await loadSmallTable(duckdb(), t.rows);
        for (const sql of MOMENT_SQL) {
          let want: CmpResult | null = null;
          try {
            want = await truth(sql);
          } catch (e) {
            expect((e as Error).message, sql).toMatch(/out of range/i);
          }
          let body: Body;
          try {
            body = await answer(root, sql);
          } catch (e) {
            const code = (e as { code: string }).code;
            // DuckDB refuses a kurtosis whose cancelled m2 leaves a huge ratio; canopy may too.
            if (want === null && code === 'CANOPY_ERR_OUT_OF_RANGE') continue;
            expect(code, `${sql}: ${(e as Error).message}`).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          if (want === null) {
            // DuckDB's refusal came from digits its order of additions decided: canopy's answer must not claim to be exact.
            expect(body.label, `${sql}: DuckDB refused it`).not.toBe('exact');
            counts.approximate++;
            continue;
          }
          if (!body.rows_complete) continue;
          checkCells(sql, body, want, counts);
        }
      }),
      { numRuns: 60, seed: 1979 },
    );
    expect(counts.exact).toBeGreaterThan(300);
    expect(counts.approximate).toBeGreaterThan(0);
  }, 300_000);

  it('small counts, constants, NaN and infinities: DuckDB values, NaNs, NULLs and refusals, whatever the split', async () => {
    const fs: (number | null)[][] = [
      [],
      [1],
      [1, 2],
      [1, 2, 3],
      [1, 2, 3, 10, -4],
      [1, 1, 1, 1],
      [2.5, 2.5, null, 2.5],
      [1, NaN, 3],
      [1, NaN, 3, 4],
      [1, Infinity, 3, 4],
      [-Infinity, 0, 1],
      [0.25, -0.5, 0.75, 3, null, -2.25, 1],
      [1e300, -1e300, 1, 2],
    ];
    const sqls = ['skewness', 'kurtosis', 'kurtosis_pop'].flatMap((f) => [`SELECT ${f}(f) AS v FROM t`, `SELECT ${f}(i) AS v FROM t`]);
    let refused = 0;
    let compared = 0;
    for (const f of fs) {
      const rows: Scalar[][] = f.map((x, k) => [x, x === null || !Number.isFinite(x) ? BigInt(k) : Math.abs(x) > 1e15 ? null : BigInt(Math.round(x)), null, 'a']);
      await loadSmallTable(duckdb(), rows);
      for (const split of [[rows, []], rows.map((r) => [r]), [[], ...rows.map((r) => [r]).reverse()]]) {
        const { root } = inProcessRoot(SMALL_SCHEMA, split, { fanout: 2 });
        for (const sql of sqls) {
          const what = `${sql} over ${JSON.stringify(f.map((x) => (x === null ? x : String(x))))}`;
          let want: CmpResult | null = null;
          try {
            want = await truth(sql);
          } catch (e) {
            expect((e as Error).message, what).toMatch(/out of range/i);
          }
          if (want === null) {
            await expect(answer(root, sql), what).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
            refused++;
            continue;
          }
          const body = await answer(root, sql);
          expect(body.label, what).toBe('exact');
          const got = fromCanopy(body);
          expect(close(got.rows[0]![0], want.rows[0]![0], 'float64'), `${what}: got ${String(got.rows[0]![0])}, want ${String(want.rows[0]![0])}`).toBe(true);
          compared++;
        }
      }
    }
    expect(refused).toBeGreaterThan(10);
    expect(compared).toBeGreaterThan(100);
  }, 300_000);

  it('a large mean against the spread is approximate, not a wrong exact answer', async () => {
    const rows: Scalar[][] = [1e9 + 0.1, 1e9 + 0.2, 1e9 + 0.7, 1e9 - 0.3, 1e9].map((x) => [x, 1n, null, 'a']);
    await loadSmallTable(duckdb(), rows);
    const { root } = inProcessRoot(SMALL_SCHEMA, [rows.slice(0, 2), rows.slice(2)], { fanout: 2 });
    for (const f of ['skewness', 'kurtosis', 'kurtosis_pop']) {
      const body = await answer(root, `SELECT ${f}(f) AS v FROM t`);
      expect(body.label, f).toBe('approximate');
    }
    // The same spread near 0 is well conditioned: exact, and DuckDB's value.
    const near: Scalar[][] = [0.1, 0.2, 0.7, -0.3, 0].map((x) => [x, 1n, null, 'a']);
    await loadSmallTable(duckdb(), near);
    const r2 = inProcessRoot(SMALL_SCHEMA, [near.slice(0, 2), near.slice(2)], { fanout: 2 }).root;
    for (const f of ['skewness', 'kurtosis', 'kurtosis_pop']) {
      const sql = `SELECT ${f}(f) AS v FROM t`;
      const body = await answer(r2, sql);
      expect(body.label, f).toBe('exact');
      expect(close(fromCanopy(body).rows[0]![0], (await truth(sql)).rows[0]![0], 'float64'), f).toBe(true);
    }
  });

  it('the power_sums merge adds, and keeps the coarsest common grain and the largest magnitude', () => {
    const a: PowerSumsState = { n: 2, s1: 1, s2: 2, s3: 3, s4: 4, maxAbs: 1.5, grain: 1 };
    const b: PowerSumsState = { n: 1, s1: 0.25, s2: 0.0625, s3: 0.015625, s4: 0.00390625, maxAbs: 0.25, grain: 0.25 };
    expect(powerSumsMerge(a, b)).toEqual({ n: 3, s1: 1.25, s2: 2.0625, s3: 3.015625, s4: 4.00390625, maxAbs: 1.5, grain: 0.25 });
    expect(powerSumsMerge(null, b)).toBe(b);
    expect(powerSumsMerge(a, null)).toBe(a);
  });

  it('DISTINCT and non-numeric arguments are refused', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 2n, 'a', 'a']]], { fanout: 2 });
    await expect(ask(root, 'SELECT skewness(s) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT kurtosis(DISTINCT f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_UNSUPPORTED' });
  });
});

describe('bit_and, bit_or and bit_xor against DuckDB', () => {
  it('random int64 values (the whole range, negatives, NULLs), shard splits, tree shapes and failing shards', async () => {
    const counts = { exact: 0, bounded: 0, approximate: 0 };
    const int = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -9n, max: 9n }), fc.constantFrom(0n, -1n, 2n ** 63n - 1n, -(2n ** 63n)));
    const rows = fc.tuple(nullable(fc.integer({ min: -4, max: 4 })), nullable(int), nullable(fc.constantFrom('a', 'b', 'c')), nullable(fc.constantFrom('a', 'b')));
    const sqls = [
      'SELECT g, bit_and(i) AS a, bit_or(i) AS o, bit_xor(i) AS x, count(i) AS n FROM t GROUP BY g ORDER BY g',
      'SELECT bit_xor(i) FILTER (WHERE f > 0) AS xf, bit_and(i % 1000) AS am, bit_or(-(i % 7)) AS om, bit_xor(3) AS x3, bit_and(i) AS a FROM t',
    ];
    await fc.assert(
      fc.asyncProperty(splitTables(rows), async (t) => {
        const root = failingShardsRoot(SMALL_SCHEMA, t);
        await loadSmallTable(duckdb(), t.rows);
        for (const sql of sqls) {
          let body: Body;
          try {
            body = await answer(root, sql);
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          if (body.label !== 'exact') expect(t.failing.length, `${sql} is ${body.label} with every shard answering`).toBeGreaterThan(0);
          if (!body.rows_complete) continue;
          checkCells(sql, body, await truth(sql), counts);
        }
      }),
      { numRuns: 60, seed: 64 },
    );
    expect(counts.exact).toBeGreaterThan(300);
    expect(counts.approximate).toBeGreaterThan(0);
  }, 300_000);

  it('refuses non-integer arguments (DISTINCT is answered: test/aggregates3-duckdb.test.ts)', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 2n, 'a', 'a']]], { fanout: 2 });
    await expect(ask(root, 'SELECT bit_and(f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT bit_or(s) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT bit_xor(DISTINCT f) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
  });
});

describe('sem, geomean, weighted_avg, fsum and favg against DuckDB', () => {
  it('random tables, shard splits, tree shapes and failing shards', async () => {
    const counts = { exact: 0, bounded: 0, approximate: 0 };
    const sqls = [
      'SELECT g, sem(f) AS sf, sem(i) AS si, geomean(abs(f) + 1) AS gf, geometric_mean(i * i + 0.5) AS gi, count(*) AS n FROM t GROUP BY g ORDER BY g',
      "SELECT sem(f * 2 - i) FILTER (WHERE s <> 'a') AS sf, geomean(f + 4) AS gf, stddev_pop(f) AS sd FROM t",
      'SELECT g, weighted_avg(f, i) AS wfi, wavg(i, i) AS wii, weighted_avg(i, f) AS wif, weighted_avg(f, abs(f)) AS wff, sum(f * i) AS sfi FROM t GROUP BY g ORDER BY g',
      'SELECT weighted_avg(i, i + 1) AS w1, wavg(f * 2, 3) AS w2, weighted_avg(2, f) AS w3 FROM t',
      'SELECT g, fsum(f) AS a, sumkahan(i) AS b, kahan_sum(f * i) AS c, favg(f) AS d, favg(i) AS e, sum(f) AS sf FROM t GROUP BY g ORDER BY g',
    ];
    await fc.assert(
      fc.asyncProperty(splitTables(row), async (t) => {
        const root = failingShardsRoot(SMALL_SCHEMA, t);
        await loadSmallTable(duckdb(), t.rows);
        for (const sql of sqls) {
          let want: CmpResult | null = null;
          try {
            want = await truth(sql);
          } catch (e) {
            // geomean(f + 4) of f = -4: DuckDB refuses ln(0).
            expect((e as Error).message, sql).toMatch(/logarithm of zero/);
          }
          let body: Body;
          try {
            body = await answer(root, sql);
          } catch (e) {
            const code = (e as { code: string }).code;
            if (want === null && code === 'CANOPY_ERR_OUT_OF_RANGE') continue;
            expect(code, `${sql}: ${(e as Error).message}`).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          // A refused query may be answered when the shard holding the refused row failed.
          if (want === null) {
            expect(body.label, `${sql}: DuckDB refused it`).not.toBe('exact');
            continue;
          }
          if (body.label !== 'exact') expect(t.failing.length, `${sql} is ${body.label} with every shard answering`).toBeGreaterThan(0);
          if (!body.rows_complete) continue;
          checkCells(sql, body, want, counts);
        }
      }),
      { numRuns: 40, seed: 1962 },
    );
    expect(counts.exact).toBeGreaterThan(200);
    expect(counts.approximate).toBeGreaterThan(0);
  }, 300_000);

  it('one value, NaN, infinities, zero and negative values: DuckDB values and refusals', async () => {
    const fs: (number | null)[][] = [[], [2], [NaN], [Infinity], [1, Infinity], [1e308, -1e308], [0, 1], [-1, 2], [0.5, 8, null, 2], [1e-300, 1e300]];
    const sqls = ['SELECT sem(f) AS v FROM t', 'SELECT geomean(f) AS v FROM t', 'SELECT geometric_mean(i) AS v FROM t'];
    let refused = 0;
    for (const f of fs) {
      const rows: Scalar[][] = f.map((x) => [x, x === null || !Number.isFinite(x) || Math.abs(x) > 1e15 ? null : BigInt(Math.round(x)), null, 'a']);
      await loadSmallTable(duckdb(), rows);
      for (const split of [[rows, []], rows.map((r) => [r])]) {
        const { root } = inProcessRoot(SMALL_SCHEMA, split, { fanout: 2 });
        for (const sql of sqls) {
          const what = `${sql} over ${JSON.stringify(f.map((x) => (x === null ? x : String(x))))}`;
          let want: CmpResult | null = null;
          try {
            want = await truth(sql);
          } catch (e) {
            expect((e as Error).message, what).toMatch(/out of range|logarithm/i);
          }
          if (want === null) {
            await expect(answer(root, sql), what).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
            refused++;
            continue;
          }
          const body = await answer(root, sql);
          expect(body.label, what).toBe('exact');
          expect(close(fromCanopy(body).rows[0]![0], want.rows[0]![0], 'float64'), `${what}: got ${String(fromCanopy(body).rows[0]![0])}, want ${String(want.rows[0]![0])}`).toBe(true);
        }
      }
    }
    expect(refused).toBeGreaterThan(5);
  });

  it('fsum and favg of int64 past 2^53 and of NaN and infinities: DuckDB values to 1e-9', async () => {
    const cases: Scalar[][][] = [
      [[Infinity, 9007199254740993n, null, 'a'], [1, 1n, null, 'a'], [-Infinity, 2n ** 62n, null, 'a']],
      [[NaN, -(2n ** 63n), null, 'a'], [1.5, 3n, null, 'a']],
      [[0.1, null, null, 'a'], [0.2, 5n, null, 'a'], [null, -5n, null, 'a']],
    ];
    for (const rows of cases) {
      await loadSmallTable(duckdb(), rows);
      for (const split of [[rows, []], rows.map((r) => [r])]) {
        const { root } = inProcessRoot(SMALL_SCHEMA, split, { fanout: 2 });
        const sql = 'SELECT fsum(f) AS a, fsum(i) AS b, favg(f) AS c, favg(i) AS d, kahan_sum(i) AS e FROM t';
        const want = await truth(sql);
        const got = fromCanopy(await answer(root, sql));
        want.rows[0]!.forEach((x, c) => expect(close(got.rows[0]![c], x, 'float64'), `${sql} column ${c}: got ${String(got.rows[0]![c])}, want ${String(x)}`).toBe(true));
      }
    }
  });

  it('FILTER on the macros (geomean, weighted_avg) is refused, as DuckDB refuses it', async () => {
    const { root } = inProcessRoot(SMALL_SCHEMA, [[[1, 2n, 'a', 'a']]], { fanout: 2 });
    await loadSmallTable(duckdb(), [[1, 2n, 'a', 'a']]);
    for (const sql of ['SELECT geomean(f) FILTER (WHERE i > 0) FROM t', 'SELECT wavg(f, i) FILTER (WHERE i > 0) FROM t']) {
      await expect(truth(sql), sql).rejects.toThrow(/Macro Function/);
      await expect(ask(root, sql), sql).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    }
  });
});

describe('product against DuckDB', () => {
  it('random tables, shard splits, tree shapes and failing shards', async () => {
    const counts = { exact: 0, bounded: 0, approximate: 0 };
    const sqls = ['SELECT g, product(f) AS pf, product(i) AS pi, product(f * 0.5 + 1) AS pe, count(*) AS n FROM t GROUP BY g ORDER BY g', "SELECT product(i) FILTER (WHERE s <> 'a') AS p, product(2) AS p2 FROM t"];
    await fc.assert(
      fc.asyncProperty(splitTables(row), async (t) => {
        const root = failingShardsRoot(SMALL_SCHEMA, t);
        await loadSmallTable(duckdb(), t.rows);
        for (const sql of sqls) {
          let body: Body;
          try {
            body = await answer(root, sql);
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          if (body.label !== 'exact') expect(t.failing.length, `${sql} is ${body.label} with every shard answering`).toBeGreaterThan(0);
          if (!body.rows_complete) continue;
          checkCells(sql, body, await truth(sql), counts);
        }
      }),
      { numRuns: 40, seed: 1e6 },
    );
    expect(counts.exact).toBeGreaterThan(200);
    expect(counts.approximate).toBeGreaterThan(0);
  }, 300_000);

  it('NaN, infinities, zeros and partial products past the double range: DuckDB values where no order can change them, else approximate', async () => {
    const cases: (number | null)[][] = [
      [],
      [null],
      [2, 3, null, 0.5],
      [NaN, 1e300, 1e300],
      [Infinity, 0, 2],
      [Infinity, -2, 0.5],
      [0, -3, 1e-200],
      [1e200, 1e200, 1e-200],
      [1e-200, 1e-200, 1e200],
      [1e300, 1e-300, 1e300, 1e-300],
      [-1.5, 2.25, -0.75, 3],
    ];
    let exact = 0;
    let approximate = 0;
    for (const f of cases) {
      const rows: Scalar[][] = f.map((x) => [x, null, null, 'a']);
      await loadSmallTable(duckdb(), rows);
      const sql = 'SELECT product(f) AS v FROM t';
      const want = await truth(sql);
      for (const split of [[rows, []], rows.map((r) => [r]), [[], ...rows.map((r) => [r]).reverse()]]) {
        const { root } = inProcessRoot(SMALL_SCHEMA, split, { fanout: 2 });
        const body = await answer(root, sql);
        const what = `${sql} over ${JSON.stringify(f.map((x) => (x === null ? x : String(x))))}`;
        if (body.label !== 'exact') {
          approximate++;
          continue;
        }
        exact++;
        expect(close(fromCanopy(body).rows[0]![0], want.rows[0]![0], 'float64'), `${what}: got ${String(fromCanopy(body).rows[0]![0])}, want ${String(want.rows[0]![0])}`).toBe(true);
      }
    }
    expect(exact).toBeGreaterThan(15);
    // The three orders of 1e200 · 1e200 · 1e-200 and the like: never labelled exact.
    expect(approximate).toBeGreaterThanOrEqual(9);
  });
});

describe('the new partial kinds on the wire', () => {
  it('encode and decode each state to itself, refuse malformed cells, and merge with an empty state as identity', () => {
    const x = { kind: 'col', name: 'x' } as const;
    const samples: [Parameters<typeof resolveKind>[0], unknown][] = [
      [{ kind: 'comoment', arg: x, by: x }, { n: 3, sx: 1.5, sy: -2, mx: 0.5, my: -0.25, m2x: 4, m2y: 1e-300, cxy: -0 }],
      [{ kind: 'power_sums', arg: x }, { n: 2, s1: 1, s2: 5, s3: NaN, s4: Infinity, maxAbs: 2, grain: 0.25 }],
      [{ kind: 'product', arg: x }, { n: 4, p: -0, zeros: 1, infs: 0, nans: 0, logHi: 3.5, logLo: -2 }],
      [{ kind: 'bit_and', arg: x }, -(2n ** 63n)],
      [{ kind: 'bit_or', arg: x }, 2n ** 63n - 1n],
      [{ kind: 'bit_xor', arg: x }, 0n],
    ];
    for (const [spec, state] of samples) {
      const kind = resolveKind(spec, 'int64');
      const back = kind.decode(kind.encode(state));
      expect(kind.equals(back, state), spec.kind).toBe(true);
      expect(kind.decode(kind.encode(kind.empty())), spec.kind).toBeNull();
      expect(kind.equals(kind.merge(kind.empty(), state), state), spec.kind).toBe(true);
      expect(() => kind.decode(spec.kind.startsWith('bit_') ? 2n ** 64n : new Uint8Array(5)), spec.kind).toThrow();
    }
    expect(() => resolveKind({ kind: 'bit_and', arg: x }, 'float64')).toThrow(/int64/);
  });
});
