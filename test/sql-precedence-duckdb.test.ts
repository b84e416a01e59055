/**
 * Operator precedence against DuckDB, over random expressions: `||` against + - * / // %,
 * comparisons, NOT, AND, OR, [NOT] LIKE / ILIKE, IS [NOT] NULL, BETWEEN, unary minus and
 * casts (CAST and ::). node-sql-parser 5.4 reads `||` as a multiplicative operator
 * (`1 + 2 || 'x'` as `1 + (2 || 'x')`), a literal LIKE pattern as the whole pattern
 * (`s ILIKE 'a' || '%'` a syntax error in WHERE) and `NOT (x) IS NULL` as `(NOT x) IS NULL`
 * (a wrong answer, labelled exact); DuckDB binds `||` looser than + and -, tighter than
 * comparisons and LIKE, and NOT looser than all but AND and OR (src/root/sql/parse.ts
 * repairConcatPrecedence and repairNotCalls, src/root/sql/front.ts). Each random query is judged by the differential harness
 * (test/helpers/differential.ts verdict: 9 trees and shard splits, exact equals DuckDB):
 * canopy may refuse what DuckDB answers (counted: most must be answered), never answer
 * otherwise, and must refuse what DuckDB refuses.
 *
 * Run: npx vitest run test/sql-precedence-duckdb.test.ts (BREAKER_REPORT=1 prints verdicts)
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { SCHEMA, SHARDS, closeDifferential, differentialTests, duckConnection, setupDifferential, verdict, type Q } from './helpers/differential.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

beforeAll(setupDifferential);
afterAll(closeDifferential);

/** Fixed queries: each mixes `||` with another operator, as DuckDB binds them. */
const FIXED: Q[] = [
  { sql: "SELECT 1 + 2 || 'x' AS a, 'x' || 2 * 3 AS b, 2 * 3 || 'x' AS c, j - 1 || j + 1 AS d, j || 7 // 2 AS e, j % 3 || '%' AS f FROM t" },
  { sql: "SELECT j || 1 + 1 AS a, '1' || j * 2 AS b, -j || j AS c, g || j::VARCHAR || -1 AS d, CAST(j AS VARCHAR) || 2 - 1 AS e FROM t" },
  { sql: "SELECT g || 'a' = 'aa' AS a, 'a' || 1 = 'a1' AS b, NOT g || 'x' = 'ax' AS c, g || s IS NULL AS d, g || 'b' BETWEEN 'a' AND 'b' AS e FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE j + 1 || 'x' = '1x' OR g || j - 1 = 'a-8'" },
  { sql: "SELECT s, s ILIKE 'a' || '%' AS a, s NOT ILIKE '%' || 'B' AS b, s LIKE g || '%' AS c, s ILIKE 'A' || '_' || 'c' AS d FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s ILIKE 'a' || '%'" },
  { sql: "SELECT s, s LIKE 'a' || '%' ESCAPE 'x' AS a, s NOT LIKE 'a!' || '%%' ESCAPE '!' AS b, s ILIKE '%\\' || '%' ESCAPE '\\' AS c FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%\\' || '%' ESCAPE '\\' OR s ILIKE 'a' || '$_' || '%' ESCAPE '$'" },
  { sql: "SELECT count(*) AS n FROM t WHERE s NOT ILIKE 'a' || '%' AND j > 0" },
  { sql: "SELECT count(*) AS n FROM t WHERE s LIKE '%' || 'b' OR s ILIKE 'É' || '%'" },
  { sql: "SELECT g, count(*) FILTER (WHERE s ILIKE 'a' || '%') AS n FROM t GROUP BY g" },
  { sql: "SELECT g, count(*) AS n FROM t GROUP BY g HAVING g || '' ILIKE 'a' || '%' OR g IS NULL" },
  { sql: "SELECT j || 1 + 1 AS k, count(*) AS n FROM t GROUP BY k" },
  // NOT (x) followed by an operator: NOT covers the whole comparison (the grammar read `(NOT x) IS NULL`).
  { sql: 'SELECT NOT (j > 0) IS NULL AS a, NOT (j) > 1 AS b, NOT (j > 0) AND NOT (j) BETWEEN 1 AND 3 AS c, NOT (j > 0) IS NOT TRUE AS d FROM t' },
  { sql: "SELECT count(*) AS n FROM t WHERE NOT (j > 0) IS NULL OR NOT (s || 'a') || g = 'aa'" },
  { sql: "SELECT NOT (j) IN (1, 2) AS a, NOT (j) BETWEEN 1 AND 3 AS b, NOT (s) LIKE 'a%' AS c, NOT (s) IS NULL AS d, NOT (s) IS DISTINCT FROM g AS e, NOT (j) % 2 = 0 AS f FROM t" },
  { sql: "SELECT count(*) AS n FROM t WHERE NOT (s) ILIKE 'A' || '%' AND NOT (j) IN (7, -7)" },
];

describe('|| among other operators: equal to DuckDB', () => {
  differentialTests(FIXED, new Set());
});

describe('chained comparisons: refused, as DuckDB refuses them (the grammar read `(j > 0) = true` and canopy answered)', () => {
  const { root } = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 });
  it.each(['SELECT j > 0 = true AS a FROM t', 'SELECT count(*) AS n FROM t WHERE j = 2 = true', "SELECT g < 'b' <> false AS a FROM t", 'SELECT count(*) AS n FROM t WHERE true = j < 3'])('%s', async (sql) => {
    await expect(duckConnection().run(sql)).rejects.toThrow(/syntax error/);
    await expect(ask(root, sql)).rejects.toMatchObject({ code: 'CANOPY_ERR_BAD_QUERY', message: expect.stringMatching(/comparison operators do not chain/) });
  });
});

/** Operands: numbers (integer columns and literals, negations, casts) and strings. */
const NUMS = ['j', '2', '7', '0', '-j', '- 2', 'CAST(- j AS BIGINT)', "'3'::BIGINT", 'NULL'];
const STRS = ["'a'", "'3'", 'g', 's', 'CAST(j AS VARCHAR)', 'j::VARCHAR', 'NULL'];

/** A run of numbers joined by + - * // % (and / where `div`); an operand may be a parenthesised run. */
const numeric = (div: boolean): fc.Memo<string> => {
  const run: fc.Memo<string> = fc.memo((n) =>
    fc
      .tuple(
        fc.constantFrom(...NUMS),
        fc.array(fc.tuple(fc.constantFrom('+', '-', '*', '//', '%', ...(div ? ['/'] : [])), n > 1 ? fc.oneof({ weight: 4, arbitrary: fc.constantFrom(...NUMS) }, { weight: 1, arbitrary: run(n - 1).map((e) => `(${e})`) }) : fc.constantFrom(...NUMS)), { maxLength: 3 }),
      )
      .map(([first, rest]) => rest.reduce((acc, [op, e]) => `${acc} ${op} ${e}`, first)),
  );
  return run;
};
const num = numeric(false);
const numDiv = numeric(true);

/** A concatenation whose parts are strings and unparenthesised numeric runs (where `||` must bind looser), or a parenthesised concatenation. */
const concat: fc.Memo<string> = fc.memo((n) =>
  fc
    .array(fc.oneof(num(2), fc.constantFrom(...STRS), ...(n > 1 ? [concat(n - 1).map((e) => `(${e})`)] : [])), { minLength: 2, maxLength: 4 })
    .map((parts) => parts.join(' || ')),
);

/** A condition: comparisons, LIKE/ILIKE over a concatenated pattern, IS NULL, BETWEEN, under NOT, AND, OR. */
const condition: fc.Arbitrary<string> = fc
  .array(
    fc.tuple(
      fc.constantFrom('', 'NOT '),
      fc.oneof(
        fc.tuple(concat(2), fc.constantFrom('=', '<', '<>', '>='), fc.oneof(concat(1), fc.constantFrom(...STRS))).map(([a, op, b]) => `${a} ${op} ${b}`),
        fc.tuple(numDiv(2), fc.constantFrom('=', '<', '<>', '>='), numDiv(2)).map(([a, op, b]) => `${a} ${op} ${b}`),
        fc.tuple(fc.oneof(concat(1), fc.constantFrom(...STRS)), fc.constantFrom('LIKE', 'ILIKE', 'NOT ILIKE', 'NOT LIKE'), fc.constantFrom("'a'", "'%'", "'A'", "'_'", "'%3'"), fc.oneof(concat(1), num(1))).map(([a, op, lit, b]) => `${a} ${op} ${lit} || ${b}`),
        fc.tuple(fc.oneof(concat(2), numDiv(2)), fc.constantFrom('IS NULL', 'IS NOT NULL')).map(([a, op]) => `${a} ${op}`),
        fc.tuple(num(1), num(1), num(1)).map(([a, lo, hi]) => `${a} BETWEEN ${lo} AND ${hi}`),
        fc.tuple(concat(1), concat(1), concat(1)).map(([a, lo, hi]) => `${a} NOT BETWEEN ${lo} AND ${hi}`),
        // NOT over a parenthesised operand (the grammar read `NOT (x) IS NULL` as `(NOT x) IS NULL`).
        fc.tuple(numDiv(1), fc.constantFrom('IS NULL', 'IS NOT NULL', 'IS TRUE', '= true', '<> (j < 2)', 'BETWEEN false AND true')).map(([a, tail]) => `NOT (${a} > 1) ${tail}`),
        fc.tuple(num(1), fc.constantFrom('=', '<', '>='), num(1)).map(([a, op, b]) => `NOT (${a}) ${op} ${b}`),
        fc.tuple(concat(1), concat(1)).map(([a, b]) => `NOT (${a}) || ${b} = 'a'`),
        // IN, IS [NOT] DISTINCT FROM and a parenthesised comparison compared again.
        fc.tuple(concat(1), fc.constantFrom('IN', 'NOT IN'), fc.array(fc.oneof(concat(1), fc.constantFrom(...STRS)), { minLength: 1, maxLength: 3 })).map(([a, op, xs]) => `${a} ${op} (${xs.join(', ')})`),
        fc.tuple(concat(1), fc.constantFrom('IS DISTINCT FROM', 'IS NOT DISTINCT FROM'), concat(1)).map(([a, op, b]) => `${a} ${op} ${b}`),
        fc.tuple(numDiv(1), fc.constantFrom('=', '<>'), numDiv(1), fc.constantFrom('= true', '<> false', 'IS NULL', 'IS NOT TRUE')).map(([a, op, b, tail]) => `(${a} ${op} ${b}) ${tail}`),
      ),
      fc.constantFrom('AND', 'OR'),
    ),
    { minLength: 1, maxLength: 3 },
  )
  .map((terms) => terms.map(([not, c, join], k) => `${k === 0 ? '' : ` ${join} `}${not}${c}`).join(''));

describe('random expressions: canopy answers as DuckDB or refuses, never otherwise', () => {
  it('in select items and in WHERE', async () => {
    let refused = 0;
    let runs = 0;
    let answered = 0;
    const bad: string[] = [];
    await fc.assert(
      fc.asyncProperty(fc.oneof(concat(3).map((e) => `SELECT ${e} AS x FROM t`), numDiv(3).map((e) => `SELECT ${e} AS x FROM t`), condition.map((c) => `SELECT count(*) AS n FROM t WHERE ${c}`), condition.map((c) => `SELECT ${c} AS x FROM t`)), async (sql) => {
        runs++;
        const v = await verdict({ sql });
        if (await duckConnection().run(sql).then(() => true, () => false)) answered++;
        if (v.length > 0 && v.every((line) => line.startsWith('GAP'))) {
          refused++;
          if (process.env.BREAKER_REPORT) console.log(`@@ ${sql}\n   ${v[0]}`);
        }
        else if (v.length > 0) bad.push(`${sql}\n  ${v.join('\n  ')}`);
        return bad.length === 0;
      }),
      { numRuns: Number(process.env.PRECEDENCE_RUNS ?? 200), seed: Number(process.env.PRECEDENCE_SEED ?? 20261205) },
    );
    expect(bad).toEqual([]);
    if (process.env.BREAKER_REPORT) console.log(`${runs} queries, ${answered} answered by DuckDB, ${refused} of them refused by canopy`);
    // Many must be answered by both, or the property proves nothing.
    expect(answered - refused).toBeGreaterThan(runs / 4);
  }, 600_000);
});
