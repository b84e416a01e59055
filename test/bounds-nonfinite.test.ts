/**
 * Intervals stay sound when infinities or NaN are in play (issue 12): a SUM or AVG over
 * values that may include +inf and -inf together (or NaN) may be NaN, which SQL orders above
 * every number, so its interval must stay open above. Random float columns with ±inf and NaN
 * over random shard splits with failing shards: every bounded SUM/AVG cell holds the truth
 * computed from all rows (NaN greatest, as DuckDB and PostgreSQL order it).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { compareValues, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'f', type: 'float64' }] };
const value = fc.oneof(
  { weight: 6, arbitrary: fc.double({ min: -1e6, max: 1e6, noNaN: true }) },
  { weight: 1, arbitrary: fc.constantFrom(Infinity, -Infinity, Number.NaN) },
);
const scenario = fc.record({
  shards: fc.array(fc.array(value, { minLength: 1, maxLength: 6 }), { minLength: 2, maxLength: 6 }),
  failing: fc.array(fc.nat({ max: 5 }), { minLength: 1, maxLength: 3 }),
});

/** A JSON cell value back to a double ('NaN', 'Infinity' strings or numbers). */
function num(v: unknown): number {
  return typeof v === 'number' ? v : Number(v);
}

describe('SUM and AVG intervals with infinities and NaN', () => {
  it('hold the truth, NaN included', async () => {
    let bounded = 0;
    await fc.assert(
      fc.asyncProperty(scenario, async (sc) => {
        const rows = sc.shards.map((s) => s.map((f): Scalar[] => [f]));
        const failing = new Set(sc.failing.filter((i) => i < rows.length));
        if (failing.size === rows.length) failing.delete(0);
        const { root } = inProcessRoot(schema, rows, {
          fanout: 2,
          wrap: (leaf) => (leaf.shards.some((s) => failing.has(s)) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
        });
        const all = sc.shards.flat();
        const sum = all.reduce((a, b) => a + b, 0);
        const truth = [sum, sum / all.length];
        const body = answerToJSON(await ask(root, 'SELECT sum(f) AS s, avg(f) AS a FROM t')) as unknown as { label: string; rows: unknown[][]; cells?: ({ label: string; lo: unknown; hi: unknown } | null)[][] };
        for (let c = 0; c < 2; c++) {
          const cell = body.cells?.[0]?.[c] ?? null;
          const x = truth[c]!;
          if (cell === null) {
            expect(Object.is(num(body.rows[0]![c]), x) || num(body.rows[0]![c]) === x).toBe(true);
            continue;
          }
          if (cell.label !== 'bounded') continue;
          bounded++;
          if (cell.lo !== null) expect(compareValues(num(cell.lo), x), `column ${c}: lo ${String(cell.lo)} above the truth ${x}`).toBeLessThanOrEqual(0);
          if (cell.hi !== null) expect(compareValues(x, num(cell.hi)), `column ${c}: truth ${x} above hi ${String(cell.hi)}`).toBeLessThanOrEqual(0);
        }
      }),
      { numRuns: 200, seed: 3 },
    );
    expect(bounded).toBeGreaterThan(0);
  });
});
