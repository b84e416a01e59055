/**
 * Test helper: checks a query on random tables of {@link SMALL_SCHEMA} against DuckDB (the
 * oracle), over random shard splits, fan-outs and failing shards (test/helpers/small-table.ts).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import fc from 'fast-check';
import { expect } from 'vitest';
import type { Scalar, TableSchema } from '../../src/merge/index.ts';
import { fromCanopy, fromDuck } from './compare.ts';
import { valueDiff } from './differential.ts';
import { SMALL_SCHEMA, loadSmallTable, splitTables } from './small-table.ts';
import { answerBody, failingShardsRoot } from './tree.ts';

/**
 * Checks `sql` on random tables of `opts.rows` (columns f, i, s, g, or `opts.table`'s) against DuckDB on `duck()`:
 * the answer of every tree with its shards answering must be exact and equal DuckDB's (rows in
 * any order unless `ordered`); with a shard failing, a complete answer's exact cells must too.
 * Returns the rows compared (callers assert enough were, so the check cannot pass vacuously).
 */
export async function agreesOnSmallTables(
  duck: () => DuckDBConnection,
  sql: string,
  opts: {
    readonly seed: number;
    readonly numRuns: number;
    readonly rows: fc.Arbitrary<Scalar[]>;
    readonly ordered?: boolean;
    /** Another table than {@link SMALL_SCHEMA}, with how to load its rows into DuckDB. */
    readonly table?: { readonly schema: TableSchema; readonly load: (duck: DuckDBConnection, rows: readonly Scalar[][]) => Promise<void> };
  },
): Promise<number> {
  let rows = 0;
  const schema = opts.table?.schema ?? SMALL_SCHEMA;
  const load = opts.table?.load ?? loadSmallTable;
  await fc.assert(
    fc.asyncProperty(splitTables(opts.rows), async (t) => {
      const root = failingShardsRoot(schema, t);
      await load(duck(), t.rows);
      const want = fromDuck(await duck().runAndReadAll(sql));
      let body: Awaited<ReturnType<typeof answerBody>>;
      try {
        body = await answerBody(root, sql);
      } catch (e) {
        // With a shard failing there may be nothing to answer from.
        if ((e as { code?: string }).code === 'CANOPY_ERR_NO_COVERAGE' && t.failing.length > 0) return;
        throw e;
      }
      if (t.failing.length === 0 || body.label === 'exact') {
        expect(body.label).toBe('exact');
        expect(valueDiff(fromCanopy(body), want, opts.ordered === true)).toEqual([]);
        rows += want.rows.length;
      }
    }),
    { numRuns: opts.numRuns, seed: opts.seed },
  );
  return rows;
}
