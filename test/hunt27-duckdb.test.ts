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
 *   a literal with more digits than its double keeps (`0.50000000000000001`) is refused.
 *
 * - A decimal literal whose fraction has more digits than a double keeps lost them in
 *   node-sql-parser, which gives it as `parseFloat(text).toFixed(digits)`: `WHERE j >
 *   0.99999999999999999` compared with 1 (9 rows, labelled exact, where DuckDB counts 10),
 *   `j IN (1.00000000000000000, 2.00000000000000001)` matched 2, `2.49999999999999999::INTEGER`
 *   was 3. Such a literal now stands in the parsed text as a same-length number the grammar
 *   keeps as written, and is put back after parsing.
 *
 * Run: npx vitest run test/hunt27-duckdb.test.ts
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { quantileIndex } from '../src/merge/index.ts';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, setupDifferential, type Q } from './helpers/differential.ts';
import { type Refusal, inProcessRoot, itRefuses } from './helpers/tree.ts';

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
  ];
  itRefuses(root, cases);
});
