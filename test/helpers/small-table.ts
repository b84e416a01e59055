/**
 * Test helpers: the small table `t` (f float64, i int64, s string, g string) of the
 * aggregate differential tests, random rows split over shards with some failing, and the same
 * rows loaded into DuckDB.
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import type { Scalar, TableSchema } from '../../src/merge/index.ts';

/** Table `t`: `f` float64, `i` int64, `s` string, `g` string (the group key). */
export const SMALL_SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 's', type: 'string' },
    { name: 'g', type: 'string' },
  ],
};

/** `a` or NULL (one time in five). */
export const nullable = <T,>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null, freq: 5 });

/** A random table of `row`s split over 1-6 shards (a seeded spread), a fan-out of 2-4 and up to 2 failing shards (never all). */
export function splitTables(row: fc.Arbitrary<Scalar[]>): fc.Arbitrary<{ rows: Scalar[][]; shards: Scalar[][][]; fanout: number; failing: number[] }> {
  return fc
    .record({ rows: fc.array(row, { maxLength: 40 }), shards: fc.integer({ min: 1, max: 6 }), fanout: fc.integer({ min: 2, max: 4 }), seed: fc.nat(), failing: fc.nat({ max: 2 }) })
    .map((t) => {
      const shards: Scalar[][][] = Array.from({ length: t.shards }, () => []);
      t.rows.forEach((r, k) => shards[(k * 7919 + t.seed) % t.shards]!.push([...r]));
      const failing = t.failing >= t.shards ? [] : [...new Set(Array.from({ length: t.failing }, (_, j) => (t.seed + j * 3) % t.shards))];
      return { rows: t.rows, shards, fanout: t.fanout, failing };
    });
}

/** Value `v` of column `c` of {@link SMALL_SCHEMA} as a DuckDB literal (NaN, ±inf and -0.0 spelled out). */
export function smallLiteral(v: Scalar, c: number): string {
  if (v === null) return 'NULL';
  if (c === 0) {
    const x = v as number;
    if (Object.is(x, -0)) return "'-0.0'::DOUBLE";
    return Number.isNaN(x) ? "'nan'::DOUBLE" : x === Infinity ? "'inf'::DOUBLE" : x === -Infinity ? "'-inf'::DOUBLE" : `${x}::DOUBLE`;
  }
  if (c === 1) return `(${String(v)})::BIGINT`;
  return `'${String(v).replaceAll("'", "''")}'`;
}

/** (Re)creates table `t` in DuckDB holding `rows`. */
export async function loadSmallTable(duck: DuckDBConnection, rows: readonly (readonly Scalar[])[]): Promise<void> {
  await duck.run('CREATE OR REPLACE TABLE t (f DOUBLE, i BIGINT, s VARCHAR, g VARCHAR)');
  if (rows.length > 0) await duck.run(`INSERT INTO t VALUES ${rows.map((r) => `(${r.map(smallLiteral).join(', ')})`).join(', ')}`);
}
