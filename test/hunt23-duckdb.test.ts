/**
 * Hunt 23: adversarial queries against DuckDB through the differential harness
 * (test/helpers/differential.ts: 9 trees, sorted splits, batches of 3 rows, failing shards;
 * exact must equal DuckDB, bounded must hold it, a refusal must be a clear 4xx, and where
 * DuckDB refuses canopy must refuse too).
 *
 * Defects found (each a failing test first, then its fix):
 * - round(BIGINT, -d) near ±2^63: DuckDB adds half of 10^d before dividing, in int64, so
 *   round(9223372036854775807, -18) wraps to -8000000000000000000 where canopy answered
 *   9000000000000000000 labelled exact; and round(x, -19) is 0 in DuckDB (canopy refused
 *   5000000000000000000 as an overflow).
 * - A block comment never closed where the grammar still read a query (`WHERE j > 0 /* AND
 *   j < 3`) was refused as "* is not allowed in WHERE; name a column", without a position;
 *   DuckDB refuses it as an unterminated comment.
 */
import { afterAll, beforeAll, describe } from 'vitest';
import { closeDifferential, differentialTests, SCHEMA, setupDifferential, SHARDS, type Q } from './helpers/differential.ts';
import { inProcessRoot, itRefuses, type Refusal } from './helpers/tree.ts';

const CASES: Q[] = [
  // round(BIGINT, negative): i holds ±2^63 - 1 / -2^63, 2^53 + 1 and 2^63 - 2.
  { sql: 'SELECT round(i, -19) AS a, round(i, -20) AS b, round(j, -19) AS c FROM t' },
  { sql: 'SELECT round(i, -2) AS a FROM t WHERE abs(i) < 9223372036854775000' },
  { sql: 'SELECT round(j * 5000000000000000000 // 5, -19) AS a FROM t WHERE abs(j) < 2' },
  { sql: 'SELECT round(9223372036854775757, -2) AS a, round(-9223372036854775757, -2) AS b, round(9223372036854775749, -2) AS c FROM t' },
  { sql: 'SELECT round(j, -1) AS a, round(j * 5, -1) AS b, round(j, 0) AS c, round(j, 3) AS d FROM t' },
];

/** Known wrong answers (each fixed by a later commit; a fixed one must leave the set). */
const FAILING = new Set<string>([]);

beforeAll(setupDifferential);
afterAll(closeDifferential);

describe('hunt 23: adversarial queries against DuckDB', () => {
  differentialTests(CASES, FAILING);
});

describe('hunt 23: where DuckDB wraps an int64 around, canopy refuses', () => {
  const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
  const CASES: Refusal[] = [
    // DuckDB: -9223372036854775700 for 2^63 - 1 (9223372036854775807 + 50 wraps), 9223372036854775700 for -2^63.
    ['SELECT round(i, -2) AS a FROM t', 'CANOPY_ERR_OUT_OF_RANGE', /round\(9223372036854775807, -2\) overflows int64/],
    ['SELECT round(i, -18) AS a FROM t WHERE i < 0', 'CANOPY_ERR_OUT_OF_RANGE', /round\(-9223372036854775808, -18\) overflows int64 \(DuckDB adds -500000000000000000/],
    ['SELECT round(i, -1) AS a FROM t WHERE i > 9223372036854775000', 'CANOPY_ERR_OUT_OF_RANGE', /overflows int64/],
  ];
  itRefuses(root, CASES);
});

describe('hunt 23: a block comment never closed is a syntax error at its opening', () => {
  const root = inProcessRoot(SCHEMA, SHARDS, { fanout: 2 }).root;
  const never = (column: number): RegExp => new RegExp(`^syntax error at line 1, column ${column}: the /\\* comment opened here is never closed; expected \\*/`);
  itRefuses(root, [
    ['SELECT count(*) AS n FROM t WHERE j > 0 /* AND j < 3', 'CANOPY_ERR_BAD_QUERY', never(41)],
    ['SELECT 1 /* abc FROM t', 'CANOPY_ERR_BAD_QUERY', never(10)],
    ['SELECT count(*) AS n FROM t WHERE j > 0 /* /* */ AND j < 3', 'CANOPY_ERR_BAD_QUERY', never(41)],
    ['SELECT count(*) AS n FROM t /* x', 'CANOPY_ERR_BAD_QUERY', never(29)],
  ]);
  // Inside strings, quoted names and line comments '/*' opens nothing; nested comments close.
  differentialTests([
    { sql: 'SELECT $$/*$$ AS a, \'/*\' AS b, j AS "/*" FROM t' },
    { sql: 'SELECT 2 /* /* */ */ * 3 AS a FROM t -- /*' },
  ], new Set());
});
