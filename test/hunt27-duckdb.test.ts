/**
 * Hunt 27: adversarial queries against DuckDB through the differential harness
 * (test/helpers/differential.ts: 9 trees, sorted splits, batches of 3 rows, failing shards;
 * exact must equal DuckDB, bounded must hold it, a refusal must be a clear 4xx, and where
 * DuckDB refuses canopy must refuse too), aimed at the last sessions' code: window aggregates
 * over a GROUP BY result, INTERVAL constants and DATE literals, COLLATE, ordered-set
 * aggregates and narrow-width integer arithmetic.
 *
 * Defects found (each a failing test, then its fix):
 * - A discrete quantile's rank came from the fraction's double lowered by 4 ulps, where DuckDB
 *   computes ceil(n·q) in integers from the DECIMAL literal's digits:
 *   `percentile_disc(0.5000000000000001) WITHIN GROUP (ORDER BY j)` of 18 values answered the
 *   9th (1), labelled exact, where DuckDB answers the 10th (2); so did quantile_disc of
 *   timestamps and strings. Now exact decimal arithmetic on the double's shortest decimal, and
 *   a literal with more digits than its double keeps (`0.50000000000000001`) is refused. A
 *   DOUBLE fraction (a literal with an exponent) DuckDB ranks in doubles instead
 *   (`max(1, n - floor(n - n·q)) - 1`): `quantile_disc(x, 56e-2)` of 0..24 is 14 there, where
 *   canopy answered 13 (as for the DECIMAL 0.56), labelled exact; now its formula.
 *
 * - A decimal literal whose fraction has more digits than a double keeps lost them in
 *   node-sql-parser, which gives it as `parseFloat(text).toFixed(digits)`: `WHERE j >
 *   0.99999999999999999` compared with 1 (9 rows, labelled exact, where DuckDB counts 10),
 *   `j IN (1.00000000000000000, 2.00000000000000001)` matched 2, `2.49999999999999999::INTEGER`
 *   was 3. Such a literal now stands in the parsed text as a same-length number the grammar
 *   keeps as written, and is put back after parsing.
 * - An integer literal past HUGEINT (2^127 - 1) up to 2^128 - 1, DuckDB's exact UHUGEINT, was
 *   a DOUBLE: `SELECT 170141183460469231731687303715884105729` answered 1.7014118346046923e+38
 *   (2^127) and its ::VARCHAR '1.7014118346046923e+38', labelled exact; `WHERE i < <it>`
 *   answered where DuckDB raises. Now refused (canopy holds no UHUGEINT), except in arithmetic
 *   with a BIGINT or narrower operand, which DuckDB computes as a DOUBLE (`j + 2^127`), as
 *   canopy did, or with a negative or HUGEINT literal (`-2^127 % 2^127`, a peer-suite query).
 * - Gaps closed: DuckDB's optimizer moves the constants of integer arithmetic across a
 *   comparison (MoveConstantsRule) and drops integer casts compared with a constant that fits
 *   (ComparisonSimplificationRule) before computing anything, so it answers `WHERE j::TINYINT *
 *   20 > 100` (j > 5), `HAVING max(j::TINYINT) * 20 > 0` and `WHERE i::TINYINT = 5` for any i,
 *   which canopy refused (overflow); and it folds a comparison with a NULL literal to NULL
 *   (`(127::TINYINT + j::TINYINT) > NULL`). canopy now rewrites them as DuckDB does (checked
 *   on random expressions and tables below).
 *
 * Found and not fixed:
 * - DuckDB's ConstantOrderNormalizationRule gathers the constants of a chain of `+` or `*`
 *   and folds them in the expression's type, so `(i::TINYINT * -128) * -2` raises (-128 * -2
 *   overflows TINYINT) whatever the rows, where canopy computes row by row (NULL for a NULL i),
 *   and `(-2147483647 - 1) + (j::INTEGER + 2147483647)` answers where canopy refuses.
 * - BETWEEN and IN over a narrow cast or arithmetic (`i::SMALLINT BETWEEN 1 AND 5`, `i::TINYINT
 *   IN (1, 5)`) and WHERE's constant_or_null(FALSE) are answered by DuckDB's other rewrites;
 *   canopy computes them and refuses the overflow.
 * - Decimal literals are DOUBLE in canopy (documented in README "SQL"): `0.1 + 0.2 = 0.3`,
 *   `j * 0.1 = 0.7`, `j * 1.1 > 7.7` differ from DuckDB's exact DECIMAL, labelled exact.
 * - `position('A' IN s COLLATE NOCASE)` and `s COLLATE binary` are answered where DuckDB's
 *   parser refuses them.
 * - any_value(x) answers the group's smallest non-NULL value labelled exact (README: "one of
 *   the group's values"), where DuckDB answers its first non-NULL value in scan order:
 *   `SELECT any_value(j) FROM t WHERE j > 0` is 1 in canopy, 7 in DuckDB. Labelling it
 *   approximate unless every value agrees (as first(x)) changes a documented contract that
 *   other tests (the flights fixture, early termination) rely on: left for a decision.
 *
 * Run: npx vitest run test/hunt27-duckdb.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Scalar, type TableSchema, quantileIndex } from '../src/merge/index.ts';
import { fromCanopy, fromDuck } from './helpers/compare.ts';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, setupDifferential, valueDiff, type Q } from './helpers/differential.ts';
import { useDuckDB } from './helpers/duck.ts';
import { SMALL_SCHEMA, loadSmallTable, nullable, splitTables } from './helpers/small-table.ts';
import { type Refusal, answerBody, failingShardsRoot, inProcessRoot, itRefuses } from './helpers/tree.ts';

const CASES: Q[] = [
  // a discrete quantile's rank from the DECIMAL fraction's digits
  { sql: 'SELECT percentile_disc(0.5000000000000001) WITHIN GROUP (ORDER BY j) AS a, percentile_disc(0.5) WITHIN GROUP (ORDER BY j) AS b FROM t' },
  { sql: 'SELECT quantile_disc(ts, 0.5000000000000001) AS a, quantile_disc(s, 0.5000000000000001) AS b, quantile_disc(j, -0.5000000000000001) AS c FROM t' },
  { sql: 'SELECT g, percentile_disc(0.3333333333333333) WITHIN GROUP (ORDER BY j) AS a, percentile_disc(0.6666666666666667) WITHIN GROUP (ORDER BY j DESC) AS b FROM t GROUP BY g' },
  { sql: 'SELECT quantile_disc(j, 0.1) AS a, quantile_disc(j, 0.7) AS b, quantile_disc(j, 1e-300) AS c, quantile_disc(j, 25e-2) AS d, quantile_disc(j, 0.9999999999999999) AS e FROM t' },
  // decimal literals past a double's digits: node-sql-parser rewrote their text from the double
  { sql: 'SELECT count(*) FROM t WHERE j > 0.99999999999999999' },
  { sql: 'SELECT count(*) FROM t WHERE j >= 1.00000000000000001 AND j < -(-7.00000000000000001)' },
  { sql: 'SELECT j FROM t WHERE j IN (1.00000000000000000, 2.00000000000000001)' },
  { sql: 'SELECT j, CASE WHEN j > 0.99999999999999999 THEN 1 ELSE 0 END AS a, j = 3.000000000000000001 AS b, j <= -2.99999999999999999 AS c FROM t' },
  { sql: 'SELECT CAST(0.99999999999999999 AS BIGINT) AS a, 2.49999999999999999::INTEGER AS b, CAST(-2.50000000000000001 AS BIGINT) AS c FROM t LIMIT 1' },
  { sql: 'SELECT g, count(*) FILTER (WHERE j > 4.99999999999999999) AS n FROM t GROUP BY g HAVING count(*) > 0.99999999999999999' },
  { sql: "SELECT count(*) FROM t WHERE s = '0.99999999999999999' OR j > 0.99999999999999999 -- 0.5000000000000000001" },
  { sql: 'SELECT count(*) FROM t WHERE j > 0.99999999999999999 OR j = 1.00000000000000000 OR j=-2.99999999999999999' },
  { sql: 'SELECT j, j - 1 >= 8.000000000000001 AS a, -j < -8.000000000000001 AS b FROM t' },
  { sql: 'SELECT count(*) FROM t WHERE j >= +1.00000000000000001' },
  { sql: 'SELECT count(*) FROM t WHERE j>=1.00000000000000001AND j<5' },
  { sql: 'SELECT count(*) FROM t WHERE j > .99999999999999999 AND j BETWEEN 0.99999999999999999 AND 3.00000000000000001' },
  // comparisons of narrow integer arithmetic with constants, as DuckDB's optimizer rewrites them
  { sql: 'SELECT count(*) FROM t WHERE j::TINYINT * 20 > 100' },
  { sql: 'SELECT j, j::TINYINT * 20 > 100 AS a, 100 < j::TINYINT * -20 AS b, j::TINYINT + 125 > 0 AS c, 125 - j::TINYINT < 0 AS d FROM t' },
  { sql: 'SELECT j, j::TINYINT * 20 = 140 AS a, j::TINYINT * 20 <> 141 AS b, j::TINYINT * 20 = 141 AS c, j::TINYINT * -1 >= -128 AS d, j::TINYINT + 127 = -128 AS e FROM t' },
  { sql: 'SELECT g, max(j::TINYINT) * 20 AS m FROM t GROUP BY g HAVING max(j::TINYINT) * 20 > 0' },
  { sql: 'SELECT g, count(*) FILTER (WHERE j::TINYINT * 30 >= 90) AS n, count_if(j::SMALLINT * 10000 > 0) AS p FROM t GROUP BY g' },
  { sql: "SELECT j, CASE WHEN j::SMALLINT * 10000 < 20000 THEN 'lo' ELSE 'hi' END AS b, (j::TINYINT * 20)::INTEGER > 100 AS c FROM t" },
  { sql: 'SELECT count(*) FROM t WHERE i::TINYINT = 5 OR i::SMALLINT > 100 OR i::INTEGER::TINYINT = 3' },
  { sql: 'SELECT i, i::TINYINT = 1000 AS a, i::INTEGER <> 0 AS b, 0 = i::SMALLINT AS c, i::TINYINT > -5::TINYINT AS d FROM t' },
  { sql: 'SELECT j, j + 1 > NULL AS a, NULL = j::TINYINT * 100 AS b, (127::TINYINT + j::TINYINT) > NULL AS c FROM t' },
  { sql: 'SELECT j::TINYINT * 20 > 100 AS k, count(*) AS n FROM t GROUP BY ALL' },
  { sql: 'SELECT count(*) FROM t WHERE i * 2 > 0 AND i + 1 > -9223372036854775807' },
  // integer literals at HUGEINT's ends, and past UHUGEINT's (DOUBLE in DuckDB too)
  { sql: 'SELECT -170141183460469231731687303715884105728 AS a, 170141183460469231731687303715884105727 AS b, 340282366920938463463374607431768211456 AS c, -170141183460469231731687303715884105729 AS d FROM t LIMIT 1' },
  // a UHUGEINT literal with a BIGINT (or narrower) operand is a DOUBLE in DuckDB; compared with one, an error
  { sql: 'SELECT j, j + 170141183460469231731687303715884105729 AS a, i * 170141183460469231731687303715884105728 AS b, j::TINYINT - 340282366920938463463374607431768211455 AS c FROM t' },
  { sql: 'SELECT count(*) FROM t WHERE j < 170141183460469231731687303715884105729' },
  { sql: 'SELECT -170141183460469231731687303715884105728 % 170141183460469231731687303715884105728 AS a, -1 + 170141183460469231731687303715884105728 AS b, 9223372036854775808 * -340282366920938463463374607431768211455 AS c FROM t LIMIT 1' },
];

describe('hunt 27: adversarial queries against DuckDB', () => {
  beforeAll(setupDifferential);
  afterAll(closeDifferential);
  differentialTests(CASES, new Set());
});

describe("hunt 27: a discrete quantile's rank is DuckDB's, computed from the fraction's decimal digits", () => {
  it('quantileIndex(q, n) is max(0, ceil(n·q) - 1) for q a decimal of up to 16 digits, in integers', () => {
    fc.assert(
      fc.property(fc.bigInt({ min: 0n, max: 10n ** 16n }), fc.integer({ min: 1, max: 2 ** 40 }), (k, n) => {
        const text = `0.${String(k).padStart(16, '0')}`;
        const q = k === 10n ** 16n ? 1 : Number(text);
        fc.pre(String(q) === String(Number(`${k}e-16`)));
        const scaled = BigInt(n) * k;
        const ceil = scaled / 10n ** 16n + (scaled % 10n ** 16n === 0n ? 0n : 1n);
        const want = Math.min(n - 1, Math.max(0, Number(ceil) - 1));
        expect(quantileIndex(q, n)).toBe(want);
      }),
      { numRuns: 3000 },
    );
  });
  it('quantileIndex at the 16-digit fraction the 4-ulp rounding lost: 0.5000000000000001 of 18 is index 9', () => {
    expect(quantileIndex(0.5000000000000001, 18)).toBe(9);
    expect(quantileIndex(0.5, 18)).toBe(8);
    expect(quantileIndex(0.1, 10)).toBe(0);
    expect(quantileIndex(0.7, 10)).toBe(6);
  });
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  const cases: Refusal[] = [
    ['SELECT percentile_disc(0.50000000000000001) WITHIN GROUP (ORDER BY j) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /more digits than a double keeps/],
    ['SELECT quantile_disc(ts, 0.50000000000000001) AS a FROM t', 'CANOPY_ERR_UNSUPPORTED', /more digits than a double keeps/],
    ["SELECT quantile(s, -0.10000000000000000001) AS a FROM t", 'CANOPY_ERR_UNSUPPORTED', /more digits than a double keeps/],
    // DuckDB raises: -128::TINYINT is -(128::TINYINT), and (-128 * -2) folded in TINYINT
    ['SELECT i, i::BIGINT = -128::TINYINT AS c FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /TINYINT/],
    ['SELECT j, j::TINYINT * 20 > 1000 AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /TINYINT/],
    // an integer literal past HUGEINT is DuckDB's exact UHUGEINT (up to 2^128 - 1), not a DOUBLE
    ['SELECT 170141183460469231731687303715884105729 AS a FROM t LIMIT 1', 'CANOPY_ERR_UNSUPPORTED', /UHUGEINT/],
    ['SELECT 340282366920938463463374607431768211455::VARCHAR AS a FROM t LIMIT 1', 'CANOPY_ERR_UNSUPPORTED', /UHUGEINT/],
    ['SELECT count(*) FROM t WHERE i < 170141183460469231731687303715884105729', 'CANOPY_ERR_UNSUPPORTED', /UHUGEINT/],
    // an integer literal meets it as a UHUGEINT there (1 + 2^127 is 2^127 + 1, exact)
    ['SELECT 1 + 170141183460469231731687303715884105729 AS a FROM t LIMIT 1', 'CANOPY_ERR_UNSUPPORTED', /UHUGEINT/],
  ];
  itRefuses(root, cases);
});

/**
 * Integer expressions over i: narrow casts, + - * with integer literals, casts between integer
 * types. Never `+` right over `+` nor `*` over `*`: DuckDB's ConstantOrderNormalizationRule
 * gathers their constants and folds them in the expression's type (`(x * -128) * -2` raises
 * on -128 * -2 whatever the rows), which canopy does not follow (see the header).
 */
const TYPES = ['TINYINT', 'SMALLINT', 'INTEGER', 'BIGINT'];
const LITERALS = [-129, -128, -100, -20, -2, -1, 0, 1, 2, 3, 5, 20, 100, 127, 128, 200, 32767, 40000, 2147483647];
type IntExpr = { readonly sql: string; readonly top: string };
const intExprArb: fc.Arbitrary<string> = fc
  .letrec<{ e: IntExpr }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      fc.constantFrom('i', 'i::TINYINT', 'i::SMALLINT', 'i::INTEGER', 'i::BIGINT').map((sql) => ({ sql, top: '' })),
      fc
        .tuple(tie('e'), fc.constantFrom('+', '-', '*'), fc.constantFrom(...LITERALS), fc.boolean())
        .map(([e, op, c, left]) => ({ sql: e.top === op && op !== '-' ? `CAST(${e.sql} AS BIGINT)` : e.sql, op, c, left }))
        .map(({ sql, op, c, left }) => ({ sql: left ? `(${c} ${op} ${sql})` : `(${sql} ${op} ${c})`, top: op })),
      fc.tuple(tie('e'), fc.constantFrom(...TYPES)).map(([e, t]) => ({ sql: `CAST(${e.sql} AS ${t})`, top: '' })),
    ),
  }))
  .e.map((e) => e.sql);
const constantArb = fc.oneof(fc.constantFrom(...LITERALS).map(String), fc.tuple(fc.constantFrom(...LITERALS), fc.constantFrom(...TYPES)).map(([c, t]) => `${c}::${t}`), fc.constant('NULL'));
const comparisonArb = fc
  .tuple(intExprArb, fc.constantFrom('=', '<>', '<', '<=', '>', '>='), constantArb, fc.boolean())
  .map(([e, op, k, flip]) => (flip ? `${k} ${op} ${e}` : `${e} ${op} ${k}`));

describe('hunt 27: comparisons of integer arithmetic with constants, as DuckDB\'s optimizer moves the constants (random expressions and tables)', () => {
  const duck = useDuckDB();
  it('canopy answers as DuckDB, or refuses where DuckDB raises (never answers it); most DuckDB answers are answered', async () => {
    let answered = 0;
    let agreed = 0;
    let gaps = 0;
    await fc.assert(
      fc.asyncProperty(
        splitTables(fc.tuple(fc.constant(0), nullable(fc.oneof(fc.integer({ min: -300, max: 300 }), fc.constantFrom(-128, 127, 32767, -32768, 2147483647, 40000)).map((v) => BigInt(v))), fc.constant('x'), fc.constant('g')) as fc.Arbitrary<Scalar[]>),
        comparisonArb,
        fc.boolean(),
        async (t, c, where) => {
          const sql = where ? `SELECT count(*) AS n FROM t WHERE ${c}` : `SELECT i, ${c} AS c FROM t`;
          await loadSmallTable(duck(), t.rows);
          const want = await duck()
            .runAndReadAll(sql)
            .then(fromDuck, () => null);
          const root = failingShardsRoot(SMALL_SCHEMA, { ...t, failing: [] });
          let body: Awaited<ReturnType<typeof answerBody>> | null = null;
          try {
            body = await answerBody(root, sql);
          } catch (e) {
            expect((e as { code?: string }).code, `${sql}: ${String(e)}`).toMatch(/^CANOPY_ERR_(OUT_OF_RANGE|TYPE|UNSUPPORTED|BAD_QUERY)$/);
          }
          if (want === null) {
            expect(body, `${sql}: DuckDB raises, canopy answered`).toBeNull();
            return;
          }
          answered++;
          if (body === null) {
            gaps++;
            if (process.env.H27_RUNS !== undefined) console.log(`GAP ${sql}`);
            return;
          }
          expect(body.label).toBe('exact');
          expect(valueDiff(fromCanopy(body), want, false), sql).toEqual([]);
          agreed++;
        },
      ),
      { numRuns: Number(process.env.H27_RUNS ?? 400), seed: Number(process.env.H27_SEED ?? 27) },
    );
    if (process.env.H27_RUNS !== undefined) console.log(`answered ${answered} agreed ${agreed} gaps ${gaps}`);
    expect(answered).toBeGreaterThan(100);
    // DuckDB's other rewrites (BETWEEN, IN, casts of folded expressions) are not followed: a few gaps.
    expect(agreed).toBeGreaterThan(answered * 0.9);
    expect(gaps).toBe(answered - agreed);
  });
});

describe("hunt 27: quantile_disc's rank of a DOUBLE fraction (a literal with an exponent) is DuckDB's double formula, of a DECIMAL one exact", () => {
  const duck = useDuckDB();
  const X: TableSchema = { name: 'w', columns: [{ name: 'x', type: 'int64' }] };
  // 1000 distinct values: within the exact value counts' budget.
  const rows: Scalar[][] = Array.from({ length: 1000 }, (_, k) => [BigInt(k)]);
  const trees = [inProcessRoot(X, [rows]).root, inProcessRoot(X, [0, 1, 2, 3].map((s) => rows.filter((_, k) => k % 4 === s)), { fanout: 2 }).root];
  it('56e-2 of 25 values is index 14 (0.56: 13), and so on for random fractions and counts', async () => {
    await duck().run('CREATE OR REPLACE TABLE w AS SELECT range AS x FROM range(1000)');
    const checked = { double: 0, decimal: 0 };
    // [k, decimals, n]: fractions k·10^-decimals whose two ranks differ at n values.
    const known: [number, number, number][] = [[56, 2, 25], [55, 2, 100], [54, 2, 450], [545, 3, 200], [668, 3, 750]];
    const random = fc.sample(fc.tuple(fc.integer({ min: 1, max: 999 }), fc.constant(3), fc.integer({ min: 1, max: 1000 })), { numRuns: 60, seed: 27 });
    for (const [k, decimals, n] of [...known, ...random]) {
      for (const form of ['e', 'dec', 'pct-e', 'desc-e']) {
        const q = form.endsWith('e') ? `${k}e-${decimals}` : `0.${String(k).padStart(decimals, '0')}`;
        const agg = form === 'pct-e' ? `percentile_disc(${q}) WITHIN GROUP (ORDER BY x)` : form === 'desc-e' ? `percentile_disc(${q}) WITHIN GROUP (ORDER BY x DESC)` : `quantile_disc(x, ${q})`;
        const sql = `SELECT ${agg} AS p FROM w WHERE x < ${n}`;
        const want = fromDuck(await duck().runAndReadAll(sql));
        for (const root of trees) {
          const body = await answerBody(root, sql);
          expect(body.label, sql).toBe('exact');
          expect(valueDiff(fromCanopy(body), want, false), sql).toEqual([]);
        }
        checked[form.endsWith('e') ? 'double' : 'decimal']++;
      }
    }
    expect(checked.double).toBeGreaterThan(150);
    expect(checked.decimal).toBeGreaterThan(50);
  });
  itRefuses(trees[0]!, [['SELECT quantile_disc(x, 0.50000000000000000000000000000) AS p FROM w', 'CANOPY_ERR_UNSUPPORTED', /overflows DECIMAL\(38\)/]]);
});
