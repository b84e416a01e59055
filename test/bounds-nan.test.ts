/**
 * Expressions over aggregates that may be NaN or ±Infinity keep their intervals and decided
 * truths sound: a MAX bounded by a missing shard's NaN, or an exact NaN beside a bounded
 * input, may make `max(f) > 2` TRUE (NaN sorts above every number), `min(f) / max(f)` and
 * `max(f) * 0` NaN (as 0 × Infinity and Infinity / Infinity are). Interval ends at ±Infinity
 * or NaN are values a double can take, not limits approached. Every cell of an answer with
 * a shard failing must hold what the same tree answers with every shard up.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { compareValues, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON, type Root } from '../src/root/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'f', type: 'float64' }] };
type Body = { label: string; rows_complete: boolean; rows: unknown[][]; cells?: ({ label: string; lo: unknown; hi: unknown } | null)[][] };

function tree(shards: Scalar[][][], failing: number): Root {
  return inProcessRoot(schema, shards, { wrap: (leaf) => (leaf.shards[0] === failing ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler) }).root;
}

const val = (v: unknown): Scalar => (typeof v === 'string' && ['NaN', 'Infinity', '-Infinity', '-0'].includes(v) ? Number(v) : (v as Scalar));

/** Problems of the answer with shard `failing` down against the complete one. */
async function problems(shards: Scalar[][][], failing: number, sql: string): Promise<string[]> {
  const full = answerToJSON(await ask(tree(shards, -1), sql)) as unknown as Body;
  const answer = await ask(tree(shards, failing), sql).catch((e: unknown) => e as Error & { code?: string });
  if (answer instanceof Error) return answer.code === 'CANOPY_ERR_NO_COVERAGE' ? [] : [`failed: ${answer.message}`];
  const part = answerToJSON(answer) as unknown as Body;
  const out: string[] = [];
  if (part.rows_complete && part.rows.length !== full.rows.length) out.push(`rows_complete with ${part.rows.length} rows, complete ${full.rows.length}`);
  part.rows.forEach((r, i) => {
    const f = full.rows.find((x) => x[0] === r[0] || full.rows.length === 1);
    if (f === undefined) return;
    r.forEach((v, j) => {
      const cell = part.cells?.[i]?.[j] ?? null;
      const x = val(f[j]);
      if (cell === null) {
        if (JSON.stringify(v) !== JSON.stringify(f[j])) out.push(`column ${j}: exact ${JSON.stringify(v)}, complete ${JSON.stringify(f[j])}`);
        return;
      }
      if (cell.label !== 'bounded' || x === null) return;
      if (typeof x === 'boolean') {
        if (x !== cell.lo && x !== cell.hi) out.push(`column ${j}: [${String(cell.lo)}, ${String(cell.hi)}] misses ${String(x)}`);
        return;
      }
      if (cell.lo !== null && compareValues(val(cell.lo)!, x) > 0) out.push(`column ${j}: lo ${String(cell.lo)} above the complete ${String(x)}`);
      if (cell.hi !== null && compareValues(x, val(cell.hi)!) > 0) out.push(`column ${j}: hi ${String(cell.hi)} below the complete ${String(x)}`);
    });
  });
  return out;
}

const EXPRS = 'SELECT max(f) > 2 AS gt, max(f) + 1 AS p, min(f) / max(f) AS q, max(f) * 0 AS z, -max(f) AS n, CASE WHEN max(f) > 2 THEN 1 ELSE 0 END AS c, max(f) = max(f) AS e, sum(f) - sum(f) AS d FROM t';

describe('expressions over aggregates that may be NaN or infinite', () => {
  it('a missing NaN: max(f) > 2 is not decided false, min(f) / max(f) and max(f) * 0 are not bounded near 0', async () => {
    expect(await problems([[['a', 1.5]], [['a', NaN]]], 1, EXPRS)).toEqual([]);
  });

  it('a seen NaN beside a bounded input: min(f) / max(f) is NaN, not within [-5e-324, 5e-324]', async () => {
    expect(await problems([[['a', 1.5]], [['a', NaN]]], 0, EXPRS)).toEqual([]);
  });

  it('a missing Infinity: max(f) * 0 and sum(f) - sum(f) may be NaN', async () => {
    expect(await problems([[['a', 1.5]], [['a', Infinity]]], 1, EXPRS)).toEqual([]);
    expect(await problems([[['a', 0]], [['a', Infinity]]], 1, EXPRS)).toEqual([]);
  });

  it('HAVING over a possible NaN proves no row set: no row labelled exact where the complete answer has one', async () => {
    expect(await problems([[['a', 1.5]], [['a', NaN]]], 1, 'SELECT count(*) AS n FROM t HAVING max(f) > 2')).toEqual([]);
  });
});

describe('expressions over aggregates of edge values, random splits with a shard failing', () => {
  const value = fc.oneof(
    fc.constantFrom(NaN, Infinity, -Infinity, 0, -0, 0.1, 0.7, 1e308, -1e308, 1.5, -2.5, 2, 5e-324, 1e-17),
    fc.option(fc.integer({ min: -4, max: 4 }), { nil: null }),
  );
  const QUERIES = [
    EXPRS,
    'SELECT g, max(f) > 2 AS gt, min(f) * max(f) AS m, avg(f) - min(f) AS a, greatest(max(f), 0) AS gr, least(min(f), 1) AS le FROM t GROUP BY g ORDER BY g',
    'SELECT g, sum(f) / count(f) AS q, abs(min(f)) AS ab, floor(avg(f)) AS fl, max(f) BETWEEN 0 AND 2 AS bt, coalesce(max(f), 7) AS co FROM t GROUP BY g ORDER BY g',
    'SELECT count(*) AS n, sum(f) AS s FROM t HAVING min(f) / max(f) > 0',
  ];
  it('every cell holds what the tree answers with every shard up', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(fc.constantFrom('a', 'b'), value), { maxLength: 4 }), { minLength: 2, maxLength: 4 }),
        fc.nat({ max: 3 }),
        fc.constantFrom(...QUERIES),
        async (shards, bad, sql) => {
          const rows = shards.map((sh) => sh.map(([g, f]): Scalar[] => [g, f]));
          expect(await problems(rows, bad % rows.length, sql), JSON.stringify(shards.map((sh) => sh.map(([g, f]) => `${g}:${String(f)}`)))).toEqual([]);
        },
      ),
      { numRuns: 120, seed: 11 },
    );
  });
});

