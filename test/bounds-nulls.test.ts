/**
 * Expressions over aggregates whose value may still be NULL (a group with only NULLs seen, the
 * missing shards holding values): greatest and least skip NULLs, as DuckDB, so their interval
 * must allow the other arguments alone (greatest(max(i), 0) was 0 with the interval [6, 6]: the
 * missing max interval as if it could not stay NULL); and an aggregate seen non-NULL stays
 * non-NULL, so `max(i) IS NULL` over it is decided.
 */
import { describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { compareValues, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'i', type: 'int64' }] };
const getDuck = useDuckDB();

type Cell = { label: string; lo: unknown; hi: unknown } | null;

/** Every answer's bounded cells and the intervals of its approximate ones must hold DuckDB's value. */
async function check(shards: Scalar[][][], failing: number, sql: string): Promise<{ problems: string[]; cells: Cell[][] }> {
  const duck = getDuck();
  await duck.run('CREATE OR REPLACE TABLE t (g VARCHAR, i BIGINT)');
  const rows = shards.flat();
  await duck.run(`INSERT INTO t VALUES ${rows.map((r) => `('${String(r[0])}', ${r[1] === null ? 'NULL' : String(r[1])})`).join(', ')}`);
  const truth = (await duck.runAndReadAll(sql)).getRows();
  const { root } = inProcessRoot(schema, shards, { wrap: (leaf) => (leaf.shards[0] === failing ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler) });
  const a = answerToJSON(await ask(root, sql)) as unknown as { rows: unknown[][]; cells?: Cell[][] };
  const problems: string[] = [];
  a.rows.forEach((r, k) => {
    const t = truth.find((x) => x[0] === r[0]);
    r.forEach((v, c) => {
      if (c === 0 || t === undefined) return;
      const x = t[c] as Scalar;
      const cell = a.cells?.[k]?.[c] ?? null;
      const num = (y: unknown): Scalar => (typeof y === 'number' ? BigInt(y) : (y as Scalar));
      if (cell === null) {
        if (String(num(v)) !== String(x)) problems.push(`${String(r[0])} column ${c}: exact ${String(v)}, DuckDB ${String(x)}`);
        return;
      }
      if (x === null || (cell.lo == null && cell.hi == null)) return;
      if (cell.lo != null && compareValues(num(cell.lo)!, x) > 0) problems.push(`${String(r[0])} column ${c}: ${cell.label} lo ${String(cell.lo)} above DuckDB's ${String(x)}`);
      if (cell.hi != null && compareValues(x, num(cell.hi)!) > 0) problems.push(`${String(r[0])} column ${c}: ${cell.label} hi ${String(cell.hi)} below DuckDB's ${String(x)}`);
    });
  });
  return { problems, cells: a.cells ?? [] };
}

describe('intervals of expressions over aggregates that may stay NULL', () => {
  // Group a: only NULLs answered; the failing shard 0 holds i = 6 (for group b, but its zone map cannot tell).
  const shards: Scalar[][][] = [[['a', null], ['b', 6n]], [['a', null]]];

  it('greatest(max(i), 0) and least(min(i), 100) hold 0 and 100, what they are when max(i) stays NULL', async () => {
    const { problems } = await check(shards, 0, "SELECT g, greatest(max(i), 0) AS x, least(min(i), 100) AS y, greatest(max(i), min(i)) AS z FROM t WHERE g = 'a' GROUP BY g");
    expect(problems).toEqual([]);
  });

  it('an aggregate seen non-NULL stays non-NULL: max(i) IS NULL is decided (false), greatest(max(i), 0) keeps its lower end', async () => {
    const { problems, cells } = await check([[['a', 1n], ['b', 6n]], [['a', 2n]]], 0, 'SELECT g, max(i) IS NULL AS n, greatest(max(i), 0) AS x FROM t GROUP BY g ORDER BY g');
    expect(problems).toEqual([]);
    expect(cells[0]?.[1] ?? null).toBeNull();
    expect(cells[0]?.[2]).toEqual({ label: 'bounded', lo: 2, hi: 6 });
  });
});
