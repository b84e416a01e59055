/**
 * The aggregates added with the registry (issue 14 item 3) against DuckDB over the same rows:
 * FILTER (WHERE ...) on the aggregates the grammar reads it on (the others: aggregates-more-duckdb.test.ts), count_if, bool_and / bool_or, and the variance
 * family (stddev, stddev_samp, stddev_pop, variance, var_samp, var_pop). Random tables with
 * NULLs, negative numbers and empty shards, split at random over shards and tree shapes
 * (fast-check); labelled-exact answers equal DuckDB (floats to 1e-9 relative); with failing
 * shards, bounded cells hold DuckDB's value and variances are approximate. Plus NaN, ±inf
 * and strings outside the BMP.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, type CanopyBody, type CmpResult } from './helpers/compare.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { ask, failingShardsRoot, inProcessRoot } from './helpers/tree.ts';
import { useDuckDB } from './helpers/duck.ts';

const SCHEMA: TableSchema = SMALL_SCHEMA;

// Quarter steps keep variances well conditioned (1e-9 relative is then a fair test of the combine).
const row = fc.tuple(
  nullable(fc.integer({ min: -4000, max: 4000 }).map((k) => k / 4)),
  nullable(fc.bigInt({ min: -1000n, max: 1000n })),
  nullable(fc.constantFrom('a', 'z', '😀', '𝄞x', '')),
  nullable(fc.constantFrom('a', 'b', '😀')),
);

const tables = splitTables(row);

const QUERIES: readonly string[] = [
  'SELECT count_if(f > 0) AS ci, bool_and(i > 0) AS ba, bool_or(f < 0) AS bo, count(*) FILTER (WHERE i > 0) AS cf, sum(i) FILTER (WHERE f > 0) AS sf, avg(f) FILTER (WHERE i < 0) AS af, min(s) FILTER (WHERE i > 0) AS mf, max(f) FILTER (WHERE s IS NOT NULL) AS xf, count(DISTINCT s) FILTER (WHERE f > 0) AS df FROM t',
  'SELECT stddev(f) AS sd, stddev_samp(i) AS sdi, stddev_pop(f) AS sp, variance(f) AS v, var_samp(i) AS vi, var_pop(i) AS vp, count(*) AS n FROM t',
  'SELECT g, count_if(i >= 0) AS ci, bool_and(f >= 0) AS ba, bool_or(i = 0) AS bo, sum(f) FILTER (WHERE i > 0) AS sf, sum(f) AS s, stddev_pop(f) AS sp, var_samp(i) AS vi FROM t GROUP BY g ORDER BY g',
  'SELECT g, count(*) FILTER (WHERE s > \'a\') AS n FROM t GROUP BY g HAVING count(*) FILTER (WHERE s > \'a\') > 0 ORDER BY g',
];

const duckdb = useDuckDB();

const load = (rows: readonly (readonly Scalar[])[]): Promise<void> => loadSmallTable(duckdb(), rows);

/** DuckDB's answer (count_if as DuckDB computes it: NULL where no row has a non-NULL condition). */
async function truth(sql: string): Promise<CmpResult> {
  return fromDuck(await duckdb().runAndReadAll(sql));
}

type Body = CanopyBody & { rows_complete: boolean; cells?: ({ label: string; lo: unknown; hi: unknown } | null)[][] };

describe('new aggregates equal DuckDB', () => {
  it('random tables, shard splits and failing shards: exact = DuckDB, bounded holds it, variances approximate when shards miss', async () => {
    let exact = 0;
    let bounded = 0;
    await fc.assert(
      fc.asyncProperty(tables, async (t) => {
        const root = failingShardsRoot(SCHEMA, t);
        await load(t.rows);
        for (const sql of QUERIES) {
          let body: Body;
          try {
            body = answerToJSON(await ask(root, sql)) as unknown as Body;
          } catch (e) {
            expect((e as { code: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
            continue;
          }
          const want = await truth(sql);
          const got = fromCanopy(body);
          if (body.label === 'exact') {
            exact++;
            expect(diffResults(got, want, { ordered: true }), sql).toEqual([]);
            continue;
          }
          expect(t.failing.length, `${sql} is ${body.label} with every shard answering`).toBeGreaterThan(0);
          if (!body.rows_complete || body.rows.length !== 1 || want.rows.length !== 1) continue;
          want.types.forEach((type, c) => {
            const x = want.rows[0]![c]!;
            const cell = body.cells?.[0]?.[c] ?? null;
            const name = want.names[c]!;
            if (cell === null) {
              expect(diffResults({ ...got, rows: [[got.rows[0]![c]!]], types: [type], names: ['x'] }, { ...want, rows: [[x]], types: [type], names: ['x'] }, { ordered: true }), `${sql}: ${name}`).toEqual([]);
              return;
            }
            if (/^(sd|sdi|sp|v|vi|vp)$/.test(name)) expect(cell.label, `${name} with missing shards`).toBe('approximate');
            if (cell.label !== 'bounded' || x === null || (type !== 'int64' && type !== 'int128' && type !== 'float64' && type !== 'bool')) return;
            bounded++;
            const num = (v: unknown): number => (typeof v === 'boolean' ? (v ? 1 : 0) : Number(v));
            if (cell.lo !== null) expect(num(cell.lo), `${name}: lo`).toBeLessThanOrEqual(num(x));
            if (cell.hi !== null) expect(num(cell.hi), `${name}: hi`).toBeGreaterThanOrEqual(num(x));
          });
        }
      }),
      { numRuns: 25, seed: 14 },
    );
    expect(exact).toBeGreaterThan(0);
    expect(bounded).toBeGreaterThan(0);
  }, 300_000);

  it('NaN, ±inf, one value, only NULLs and an empty shard: exact and equal to DuckDB', async () => {
    const cases: Scalar[][][] = [
      [[1, 5n, '😀', 'a'], [NaN, 7n, '𝄞x', 'a'], [3, null, null, 'b']],
      [[Infinity, 1n, 'z', 'a'], [-Infinity, -1n, 'a', 'b'], [2, 2n, 'a', 'b']],
      [[4, 9n, 'a', 'a']],
      [[null, null, null, 'a'], [null, null, null, null]],
    ];
    for (const rows of cases) {
      await load(rows);
      for (const split of [[rows, []], rows.map((r) => [r])]) {
        const { root } = inProcessRoot(SCHEMA, split, { fanout: 2 });
        for (const sql of QUERIES) {
          let want: CmpResult;
          try {
            want = await truth(sql);
          } catch (e) {
            // DuckDB refuses variances over NaN or ±inf ("STDDEV_SAMP is out of range"): so does canopy.
            expect(String(e)).toMatch(/out of range/i);
            await expect(ask(root, sql), sql).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
            continue;
          }
          const body = answerToJSON(await ask(root, sql)) as unknown as Body;
          expect(body.label, sql).toBe('exact');
          expect(diffResults(fromCanopy(body), want, { ordered: true }), `${sql} over ${JSON.stringify(rows, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v))}`).toEqual([]);
        }
      }
    }
  }, 120_000);

  it('refuses what it cannot compute with a coded error', async () => {
    const { root } = inProcessRoot(SCHEMA, [[[1, 1n, 'a', 'a']]]);
    await expect(ask(root, 'SELECT stddev(s) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT bool_and(i) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_TYPE' });
    await expect(ask(root, 'SELECT count_if(i > 0, f > 0) FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY' });
    // FILTER on call-style aggregates: test/aggregates-more-duckdb.test.ts.
  });
});
