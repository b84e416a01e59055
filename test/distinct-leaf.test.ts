/**
 * COUNT(DISTINCT string) at the leaf, without GROUP BY, adds each of a batch's dictionary
 * codes once (count-distinct.ts): over random string columns with NULLs, in small batches,
 * WHERE clauses that drop rows, string expressions (a dictionary of their own per batch), and shards whose record batches carry different dictionaries
 * (the same code meaning another string in the next batch), the count equals a plain Set's.
 */
import { Table } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import { finalise, layoutOf, mergePartials, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 's', type: 'string' }, { name: 'v', type: 'int64' }] };
const rowArb = fc.tuple(fc.option(fc.constantFrom('a', 'b', 'c', 'd', 'e', 'ü', '😀', ''), { nil: null, freq: 5 }), fc.bigInt({ min: -5n, max: 5n }));
const rowsArb = fc.array(rowArb, { minLength: 0, maxLength: 60 });

describe('COUNT(DISTINCT string) without GROUP BY at the leaf', () => {
  it('equals a Set over the matching rows, batches with one or several dictionaries', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(rowsArb, { minLength: 1, maxLength: 4 }), fc.integer({ min: 1, max: 7 }), fc.constantFrom('', ' WHERE v > 0', ' WHERE v <> 2 AND s <> \'a\''), fc.constantFrom('s', "s || 'x'", "CASE WHEN v > 0 THEN s ELSE 'z' END"), async (parts, batchRows, where, arg) => {
          // Each part encoded on its own (its own dictionary), then their batches in one table.
          const tables = parts.map((rows) => shardsFromRows(SCHEMA, [rows.map((r) => [r[0], r[1]] as Scalar[])], batchRows)[0]!);
          const table = new Table(tables.flatMap((t) => t.batches));
          const shard = prepareShard(0, table, SCHEMA);
          const plan = planQuery(`SELECT count(DISTINCT ${arg}) FROM t${where}`, new Map([['t', SCHEMA]]), DEFAULT_LIMITS);
          const layout = layoutOf(plan.scan, SCHEMA);
          const scan = await scanShard(shard, plan.scan, layout, new AbortController().signal);
          const got = finalise(plan, layout, mergePartials(layout, [scan.partial])).rows[0]![0];
          const keep = (r: readonly [string | null, bigint]): boolean => (where === '' ? true : where === ' WHERE v > 0' ? r[1] > 0n : r[1] !== 2n && r[0] !== null && r[0] !== 'a');
          const value = (r: readonly [string | null, bigint]): string | null => (arg === 's' ? r[0] : arg === "s || 'x'" ? (r[0] === null ? null : `${r[0]}x`) : r[1] > 0n ? r[0] : 'z');
          const want = new Set(parts.flat().filter((r) => keep(r) && value(r) !== null).map(value)).size;
          expect(got).toBe(BigInt(want));
        }),
      { numRuns: 300 },
    );
  });
});
