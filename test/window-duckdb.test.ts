/**
 * Window aggregates over a GROUP BY result, against DuckDB (src/merge/window.ts,
 * src/root/sql/windows.ts): sum, count, avg, min and max `OVER ()` or `OVER (PARTITION BY
 * <group keys>)` of an aggregate or a group key, the "percent of total" of dashboards
 * (`count(*) * 100.0 / sum(count(*)) OVER ()`), computed after GROUP BY and HAVING over every
 * group, then ORDER BY and LIMIT.
 * - Fixed queries on the shared differential table (test/helpers/differential.ts: 9 trees,
 *   shard splits, failing shards; exact equals DuckDB, bounded holds it).
 * - Random tables, shard splits, fan-outs (2, 3, 4: deeper trees; 10: flat), failing shards and `shard_size` (which would cut a
 *   group top-k): every shard answering, the answer is exact and equals DuckDB's, names and
 *   types included (HUGEINT for sum(count(*)) OVER ()); with a failing shard holding rows, no
 *   window cell is labelled exact, and every exact cell equals DuckDB's.
 * - Windows over a grouping subquery or CTE (merged into it), GROUP BY ALL / ORDER BY ALL,
 *   LIMIT PERCENT; names and types as DuckDB's.
 * - What is refused, naming the form canopy computes.
 *
 * Run: npx vitest run test/window-duckdb.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import { closeDifferential, differentialTests, duckConnection, setupDifferential, SCHEMA, SHARDS, type Body, type Q } from './helpers/differential.ts';
import { diffResults, fromCanopy, fromDuck, sameValue, type CmpResult } from './helpers/compare.ts';
import { ask, cutShards, failingShardsRoot, inProcessRoot, itRefuses, type Refusal } from './helpers/tree.ts';

beforeAll(setupDifferential);
afterAll(closeDifferential);

/** Fixed queries on the differential table: g has NULL and '' keys, f NaN / ±Infinity, i the int64 extremes. */
const QUERIES: Q[] = [
  { sql: 'SELECT g, count(*) AS n, count(*) * 100.0 / sum(count(*)) OVER () AS pct FROM t GROUP BY g ORDER BY n DESC, g NULLS LAST LIMIT 3', ordered: true },
  { sql: 'SELECT g, count(*) AS n, 100.0 * count(*) / sum(count(*)) OVER () AS pct FROM t GROUP BY g ORDER BY pct DESC, g LIMIT 2 OFFSET 1', ordered: true },
  { sql: 'SELECT g, sum(j) AS s, sum(sum(j)) OVER () AS tot, avg(sum(j)) OVER () AS a, min(sum(j)) OVER () AS lo, max(g) OVER () AS mg, count(sum(j)) OVER () AS c, count(*) OVER () AS k FROM t GROUP BY g' },
  { sql: 'SELECT g, j % 2 AS p, count(*) AS n, sum(count(*)) OVER (PARTITION BY g) AS tot, count(*) OVER (PARTITION BY p) AS groups FROM t GROUP BY g, j % 2' },
  { sql: 'SELECT g, count(*) AS n, sum(n) OVER () AS tot, n * 100.0 / tot AS pct FROM t GROUP BY g' },
  { sql: 'SELECT g, bool_and(j > 0) AS b, min(bool_and(j > 0)) OVER () AS mb, max(bool_and(j > 0)) OVER (PARTITION BY g) AS ma, count(bool_and(j > 0)) OVER () AS c FROM t GROUP BY g' },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot, count(*) OVER () AS k FROM t GROUP BY ALL ORDER BY ALL', ordered: true },
  { sql: 'SELECT g, n, n * 100.0 / sum(n) OVER () AS pct FROM (SELECT g, count(*) AS n FROM t GROUP BY g) AS s ORDER BY pct DESC, g NULLS LAST', ordered: true },
  { sql: 'SELECT g, n, sum(n) OVER (PARTITION BY p) AS tot, count(*) OVER () AS k FROM (SELECT g, j % 2 AS p, count(*) AS n FROM t GROUP BY g, j % 2) AS s WHERE n > 1 ORDER BY tot DESC, g NULLS LAST, n LIMIT 3', ordered: true },
  { sql: 'WITH c AS (SELECT g, sum(j) AS sj FROM t GROUP BY g) SELECT g, sj, max(sj) OVER () AS top, sj - avg(sj) OVER () AS d FROM c' },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM (SELECT g, j FROM t WHERE j > 0) AS s GROUP BY g' },
  { sql: 'SELECT lower(g) AS lg, count(*) AS n, max(count(*)) OVER (PARTITION BY lower(g)) AS m, min(lg) OVER () AS first FROM t GROUP BY lower(g)' },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t GROUP BY g ORDER BY n DESC, g NULLS LAST LIMIT 50 PERCENT', duck: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t GROUP BY g ORDER BY n DESC, g NULLS LAST LIMIT 50%', ordered: true },
  { sql: 'SELECT g, count(*) OVER (PARTITION BY g, g) AS c, min(g) OVER (PARTITION BY g) AS m FROM t GROUP BY g' },
  { sql: 'SELECT g, j % 2 AS p, sum(j) * 1.0 / sum(sum(j)) OVER (PARTITION BY p) AS share FROM t GROUP BY g, p ORDER BY share DESC NULLS LAST, g NULLS LAST, p NULLS LAST LIMIT 4', ordered: true },
  { sql: 'SELECT g, sum(i) AS s, sum(sum(i)) OVER () AS tot FROM t GROUP BY g' },
  { sql: 'SELECT g, sum(f) AS s, sum(sum(f)) OVER () AS tot, avg(max(f)) OVER () AS am, max(min(f)) OVER () AS mm FROM t GROUP BY g' },
  { sql: 'SELECT g, min(ts) AS a, max(min(ts)) OVER () AS b, min(max(s)) OVER () AS c FROM t GROUP BY g' },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t GROUP BY g HAVING count(*) > 3' },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t GROUP BY g HAVING count(*) > 100' },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t WHERE j > 100 GROUP BY g' },
  { sql: 'SELECT count(*) AS n, sum(count(*)) OVER () AS tot, count(*) OVER () AS k, avg(sum(j)) OVER () AS a FROM t' },
  { sql: 'SELECT count(*) AS n, sum(count(*)) OVER () AS tot, count(*) OVER () AS k, max(sum(j)) OVER () AS m FROM t WHERE j > 100' },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY count(*) * 1.0 / sum(count(*)) OVER () DESC, g NULLS LAST LIMIT 2', ordered: true },
  { sql: 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t GROUP BY g ORDER BY 3, 1 NULLS FIRST', ordered: true },
  { sql: 'SELECT g, sum(count(*)) OVER (), count(*) OVER (), avg(count(*)) OVER (PARTITION BY g) FROM t GROUP BY g' },
  { sql: 'SELECT g, sum(j) AS s, sum(j) - avg(sum(j)) OVER (PARTITION BY g) AS d, round(100.0 * sum(j) / sum(sum(j)) OVER (), 2) AS pct FROM t GROUP BY g ORDER BY g NULLS FIRST', ordered: true },
];

describe('window aggregates on the differential table: equal to DuckDB on 9 trees, failing shards labelled soundly', () => {
  differentialTests(QUERIES, new Set());
});

const W: TableSchema = {
  name: 'w',
  columns: [
    { name: 'k', type: 'string' },
    { name: 'p', type: 'int64' },
    { name: 'x', type: 'int64' },
    { name: 'y', type: 'float64' },
  ],
};

const rowArb = fc.tuple(
  fc.constantFrom<string | null>('a', 'b', 'c', 'dd', null),
  fc.constantFrom<bigint | null>(0n, 1n, 2n, null),
  fc.oneof(fc.constant(null), fc.bigInt({ min: -50n, max: 50n })),
  fc.oneof(fc.constant(null), fc.integer({ min: -40, max: 40 }).map((n) => n / 4)),
);

/** Window expressions over `keys` (k, or k and p), each with an alias, in DuckDB's SQL. */
function windowItems(part: string): string[] {
  const over = `OVER (${part})`;
  return [
    `count(*) * 100.0 / sum(count(*)) ${over} AS pct`,
    `sum(count(*)) ${over} AS tot`,
    `sum(sum(x)) ${over} AS sx`,
    `avg(sum(y)) ${over} AS ay`,
    `sum(sum(y)) ${over} AS sy`,
    `min(max(x)) ${over} AS mn`,
    `max(k) ${over} AS mk`,
    `count(sum(x)) ${over} AS cx`,
    `count(*) ${over} AS cg`,
    `avg(count(x)) ${over} AS ac`,
    `sum(x) * 1.0 / sum(sum(x)) ${over} AS share`,
  ];
}

const queryArb = fc
  .record({
    two: fc.boolean(),
    part: fc.nat({ max: 3 }),
    items: fc.uniqueArray(fc.nat({ max: 10 }), { minLength: 1, maxLength: 3 }),
    where: fc.constantFrom('', 'WHERE x > 0', 'WHERE false', 'WHERE y IS NOT NULL'),
    having: fc.constantFrom('', 'HAVING count(*) > 1', 'HAVING sum(x) IS NOT NULL'),
    order: fc.nat({ max: 4 }),
    limit: fc.constantFrom('', 'LIMIT 1', 'LIMIT 2', 'LIMIT 3 OFFSET 1'),
  })
  .map((q) => {
    const keys = q.two ? ['k', 'p'] : ['k'];
    const parts = q.two ? ['', 'PARTITION BY k', 'PARTITION BY p', 'PARTITION BY p, k'] : ['', 'PARTITION BY k', '', 'PARTITION BY k'];
    const all = windowItems(parts[q.part]!);
    const items = q.items.map((i) => all[i]!);
    const first = items[0]!.replace(/.* AS /, '');
    const tie = keys.map((k) => `${k} NULLS LAST`).join(', ');
    const orders = [`ORDER BY n DESC, ${tie}`, `ORDER BY ${first} DESC NULLS LAST, ${tie}`, `ORDER BY ${first} NULLS FIRST, n, ${tie}`, `ORDER BY ${tie}`, ''];
    const order = orders[q.order]!;
    const limit = order === '' ? '' : q.limit;
    return { sql: `SELECT ${keys.join(', ')}, count(*) AS n, ${items.join(', ')} FROM w ${q.where} GROUP BY ${keys.join(', ')} ${q.having} ${order} ${limit}`.replace(/ +/g, ' ').trim(), ordered: order !== '' };
  });

const lit = (v: Scalar, c: number): string => (v === null ? 'NULL' : c === 0 ? `'${String(v)}'` : c === 3 ? `${Number(v)}::DOUBLE` : `${String(v)}::BIGINT`);

/** DuckDB's answer over `rows` (table w). */
async function duckOver(rows: readonly Scalar[][], sql: string): Promise<CmpResult> {
  const duck = duckConnection();
  await duck.run('CREATE OR REPLACE TABLE w (k VARCHAR, p BIGINT, x BIGINT, y DOUBLE)');
  if (rows.length > 0) await duck.run(`INSERT INTO w VALUES ${rows.map((r) => `(${r.map(lit).join(', ')})`).join(', ')}`);
  return fromDuck(await duck.runAndReadAll(sql));
}

/** The window columns of an answer (their names are the aliases windowItems gives). */
const WINDOW_ALIASES = new Set(['pct', 'tot', 'sx', 'ay', 'sy', 'mn', 'mk', 'cx', 'cg', 'ac', 'share']);

describe('window aggregates over random tables, shard splits, fan-outs and failing shards', () => {
  it('every shard answering: exact, equal to DuckDB (names, types, order), also when shard_size would cut a group top-k', async () => {
    let checked = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { maxLength: 40 }), fc.array(fc.nat(), { maxLength: 5 }), fc.constantFrom(2, 3, 4, 10), fc.constantFrom(undefined, 1, 2), queryArb, async (rows, cuts, fanout, shardSize, q) => {
        const data = rows as Scalar[][];
        const want = await duckOver(data, q.sql);
        const root = inProcessRoot(W, cutShards(data, cuts), { fanout }).root;
        const body = answerToJSON(await ask(root, q.sql, shardSize === undefined ? {} : { shard_size: shardSize })) as unknown as Body;
        expect(body.label, q.sql).toBe('exact');
        expect(diffResults(fromCanopy(body), want, { ordered: q.ordered }), q.sql).toEqual([]);
        checked++;
      }),
      { numRuns: 150, seed: 26 },
    );
    expect(checked).toBe(150);
  });

  it('a failing shard: window cells never exact when it held rows; every exact cell equals DuckDB, every bounded one holds it', async () => {
    let withWindowsUncertain = 0;
    let boundedWindows = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(rowArb, { minLength: 1, maxLength: 40 }), fc.array(fc.nat(), { minLength: 1, maxLength: 4 }), fc.integer({ min: 2, max: 3 }), fc.nat(), queryArb, async (rows, cuts, fanout, bad, q) => {
        const data = rows as Scalar[][];
        const shards = cutShards(data, cuts);
        const failing = bad % shards.length;
        const want = await duckOver(data, q.sql);
        let body: Body;
        try {
          body = answerToJSON(await ask(failingShardsRoot(W, { shards: shards as Scalar[][][], fanout, failing: [failing] }), q.sql)) as unknown as Body;
        } catch (e) {
          // The one shard asked failed: nothing to answer with.
          expect((e as { code?: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
          return;
        }
        const got = fromCanopy(body);
        const windowCols = got.names.flatMap((n, c) => (WINDOW_ALIASES.has(n) ? [c] : []));
        const held = shards[failing]!.length > 0;
        if (body.label === 'exact') {
          // Only a failing shard the zone maps exclude (or an empty one) leaves the answer exact.
          expect(diffResults(got, want, { ordered: q.ordered }), q.sql).toEqual([]);
          return;
        }
        if (held) {
          for (const [r] of got.rows.entries()) for (const c of windowCols) expect(body.cells?.[r]?.[c]?.label ?? body.label, `${q.sql} row ${r} col ${c}`).not.toBe('exact');
          if (got.rows.length > 0) withWindowsUncertain++;
        }
        // Exact cells equal the truth's row of the same keys (keys identify groups).
        const keyCount = q.sql.includes('GROUP BY k, p') ? 2 : 1;
        const byKey = new Map(want.rows.map((r) => [JSON.stringify(r.slice(0, keyCount)), r]));
        got.rows.forEach((row, r) => {
          const truth = byKey.get(JSON.stringify(row.slice(0, keyCount)));
          if (truth === undefined) return; // a row the missing shard would have cut (LIMIT): the row set is labelled approximate
          row.forEach((v, c) => {
            if (c < keyCount) return;
            const cell = body.cells?.[r]?.[c] ?? null;
            const x = truth[c]!;
            if (cell === null) {
              expect(sameValue(v, x, want.types[c]!), `${q.sql} row ${r} col ${c}: ${String(v)} vs ${String(x)}`).toBe(true);
              return;
            }
            if (cell.label !== 'bounded' || x === null) return;
            if (windowCols.includes(c)) boundedWindows++;
            const t = Number(x);
            // A bounded cell holds the truth (floats: up to DuckDB's own rounding).
            const slack = 1e-9 * Math.abs(t);
            if (cell.lo !== null && cell.lo !== undefined) expect(Number(cell.lo) - slack, `${q.sql} row ${r} col ${c}: lo ${String(cell.lo)} > ${t}`).toBeLessThanOrEqual(t);
            if (cell.hi !== null && cell.hi !== undefined) expect(Number(cell.hi) + slack, `${q.sql} row ${r} col ${c}: hi ${String(cell.hi)} < ${t}`).toBeGreaterThanOrEqual(t);
          });
        });
      }),
      { numRuns: 250, seed: 27 },
    );
    expect(withWindowsUncertain).toBeGreaterThan(50);
    // sum(count(*)) OVER (...) and the percentages over it are bounded without HAVING.
    expect(boundedWindows).toBeGreaterThan(10);
  });
});

describe('window aggregates: the plan keeps every group', () => {
  it('ORDER BY ... LIMIT after a window: the total counts every group, not only those kept', async () => {
    const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
    const sql = 'SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot, count(*) OVER () AS groups FROM t GROUP BY g ORDER BY n DESC, g LIMIT 1';
    const body = answerToJSON(await ask(root, sql, { shard_size: 1 })) as unknown as Body;
    expect(body.label).toBe('exact');
    expect(body.rows).toEqual([['a', 7, 20, 5]]);
  });
});

describe('window aggregates: names and types as DuckDB gives them', () => {
  it('unaliased windows are named by DuckDB\'s text; sum of an integer is HUGEINT, avg DOUBLE, count BIGINT', async () => {
    const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
    const sql = 'SELECT g, sum(count(*)) OVER (), count(*) OVER (), avg(sum(j)) OVER (PARTITION BY g), max(g) OVER (), sum(sum(f)) OVER () FROM t GROUP BY g';
    const body = answerToJSON(await ask(root, sql)) as unknown as Body;
    const want = fromDuck(await duckConnection().runAndReadAll(sql));
    expect(body.columns.map((c) => c.name)).toEqual(want.names);
    expect(body.columns.map((c) => c.type)).toEqual(['string', 'int128', 'int64', 'float64', 'string', 'float64']);
    expect(want.types).toEqual(['string', 'int128', 'int64', 'float64', 'string', 'float64']);
  });
});

describe('window aggregates: refusals name the supported form', () => {
  const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
  const supported = /sum, count, avg, min and max OVER \(\) or OVER \(PARTITION BY <group keys>\)/;
  const cases: Refusal[] = [
    ['SELECT j, sum(j) OVER () FROM t', 'CANOPY_ERR_UNSUPPORTED', /over the table's rows/],
    ['SELECT g, row_number() OVER () FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', supported],
    ['SELECT g, rank() OVER (ORDER BY count(*)) FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', supported],
    ['SELECT g, sum(count(*)) OVER (ORDER BY g) FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', /running total/],
    ['SELECT g, sum(count(*)) OVER (PARTITION BY g ORDER BY g ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', supported],
    ['SELECT g, count(DISTINCT count(*)) OVER () FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', /DISTINCT/],
    ['SELECT g, sum(count(*)) OVER (PARTITION BY j) FROM t GROUP BY g', 'CANOPY_ERR_BAD_QUERY', /GROUP BY/],
    ['SELECT g, sum(count(*)) OVER (PARTITION BY lower(g)) FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', /GROUP BY keys only/],
    ['SELECT g, sum(count(DISTINCT j)) OVER () FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', /count_distinct/],
    ['SELECT g, sum(median(j)) OVER () FROM t GROUP BY g', 'CANOPY_ERR_UNSUPPORTED', /median/],
    ['SELECT g, count(*) FROM t GROUP BY g HAVING sum(count(*)) OVER () > 1', 'CANOPY_ERR_BAD_QUERY', /HAVING cannot contain window functions/],
    ['SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t GROUP BY g HAVING tot > 1', 'CANOPY_ERR_BAD_QUERY', /HAVING cannot contain window functions/],
    ['SELECT g, count(*) FROM t WHERE sum(j) OVER () > 0 GROUP BY g', 'CANOPY_ERR_BAD_QUERY', /WHERE cannot contain window functions/],
    ['SELECT g, count(*) AS n, sum(count(*)) OVER () AS tot FROM t WHERE tot > 1 GROUP BY g', 'CANOPY_ERR_BAD_QUERY', /WHERE/],
    ['SELECT g, sum(sum(count(*)) OVER ()) OVER () FROM t GROUP BY g', 'CANOPY_ERR_BAD_QUERY', /nested/],
    ['SELECT g, sum(g) OVER () FROM t GROUP BY g', 'CANOPY_ERR_TYPE', /needs a number/],
    ['SELECT g, j, sum(count(*)) OVER () FROM t GROUP BY ROLLUP (g, j)', 'CANOPY_ERR_UNSUPPORTED', /GROUPING SETS/],
    ['SELECT g, count(*) OVER w FROM t GROUP BY g WINDOW w AS ()', 'CANOPY_ERR_UNSUPPORTED', /WINDOW/],
    ['SELECT g, count(*) AS n, max(g) OVER () AS m FROM t GROUP BY ALL', 'CANOPY_ERR_BAD_QUERY', /cannot group on a window clause/],
    ['SELECT g, count(*) AS n FROM t GROUP BY g QUALIFY sum(count(*)) OVER () > 1', 'CANOPY_ERR_BAD_QUERY', /QUALIFY/],
    ['SELECT g, n * 100.0 / sum(n) OVER () AS pct FROM (SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2) AS s', 'CANOPY_ERR_UNSUPPORTED', /has no window functions \(the subquery has a LIMIT/],
    ['SELECT g, sum(count(*)) OVER () FROM (SELECT g, count(*) AS n FROM t GROUP BY g) AS s', 'CANOPY_ERR_UNSUPPORTED', /does not group or aggregate again/],
  ];
  itRefuses(root, cases);
});
