/**
 * Float SUM and AVG intervals hold the complete value to the last bit: the complete SUM is
 * the exact sum rounded once, which may differ from the seen sum's double by half an ulp, and
 * the complete AVG is that rounded sum over the count, which may round past the largest
 * value (0.1 three times averages to 0.10000000000000002) or overflow to Infinity (two
 * values of 1e308). Every bounded cell of an answer with shards failing must hold the value
 * the same tree answers with every shard up.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { compareValues, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON, type Root } from '../src/root/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'f', type: 'float64' }, { name: 'i', type: 'int64' }] };

/** A tree over `shards` whose shards in `failing` answer with an error. */
function tree(shards: readonly (readonly number[])[], failing: ReadonlySet<number>): Root {
  const rows = shards.map((s) => s.map((f): Scalar[] => [f, 1n]));
  return inProcessRoot(schema, rows, {
    fanout: 2,
    wrap: (leaf) => (leaf.shards.some((s) => failing.has(s)) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
  }).root;
}

type Body = { label: string; rows: unknown[][]; cells?: ({ label: string; lo: unknown; hi: unknown } | null)[][] };
const num = (v: unknown): number => (typeof v === 'number' ? v : Number(v));

/** Problems of `partial`'s cells against `truth` (the same query with every shard up). */
function unsound(partial: Body, truth: Body): string[] {
  const out: string[] = [];
  partial.rows[0]!.forEach((v, c) => {
    const x = num(truth.rows[0]![c]);
    const cell = partial.cells?.[0]?.[c] ?? null;
    if (cell === null) {
      if (!Object.is(num(v), x) && num(v) !== x) out.push(`column ${c}: exact ${String(v)}, complete ${x}`);
      return;
    }
    if (cell.label !== 'bounded') return;
    if (cell.lo !== null && compareValues(num(cell.lo), x) > 0) out.push(`column ${c}: lo ${String(cell.lo)} above the complete ${x}`);
    if (cell.hi !== null && compareValues(x, num(cell.hi)) > 0) out.push(`column ${c}: complete ${x} above hi ${String(cell.hi)}`);
  });
  return out;
}

const SQL = 'SELECT sum(f) AS s, avg(f) AS a, avg(DISTINCT f) AS d FROM t';

async function check(shards: readonly (readonly number[])[], failing: readonly number[]): Promise<string[]> {
  const truth = answerToJSON(await ask(tree(shards, new Set()), SQL)) as unknown as Body;
  const partial = answerToJSON(await ask(tree(shards, new Set(failing)), SQL)) as unknown as Body;
  return unsound(partial, truth);
}

describe('float SUM and AVG intervals at the last ulp', () => {
  it('AVG of three 0.1s is 0.10000000000000002: an interval [0.1, 0.1] from the missing max misses it', async () => {
    expect(await check([[0.1], [0.1, 0.1]], [1])).toEqual([]);
    expect(await check([[0.7], [0.7, 0.7]], [1])).toEqual([]);
  });

  it('AVG of 1e308 and 1e308 overflows to Infinity, as DuckDB divides the rounded sum: the interval stays open above', async () => {
    expect(await check([[1e308], [1e308, 2.5]], [1])).toEqual([]);
    expect(await check([[-1e308], [-1e308, 2.5]], [1])).toEqual([]);
  });

  it('SUM: the seen sum 1 - 1e-17 rounds to 1, so with a missing -1 the complete sum is below 0', async () => {
    expect(await check([[1, -1e-17], [-1]], [1])).toEqual([]);
    // 2^53 + 3 rounds to 2^53 + 4; the missing -(2^53 - 1) leaves 4, not 5.
    expect(await check([[2 ** 53, 3], [-(2 ** 53 - 1)]], [1])).toEqual([]);
  });

  it('random values that round: every bounded SUM and AVG cell holds the complete value', async () => {
    const value = fc.constantFrom(0.1, 0.2, 0.7, 1 / 3, 1, -1, 3, 1e-17, -1e-17, 2 ** 53, -(2 ** 53 - 1), 1e308, -1e308, 5e-324, 1e16, 0.5);
    let bounded = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(value, { minLength: 1, maxLength: 4 }), { minLength: 2, maxLength: 4 }),
        fc.nat({ max: 3 }),
        async (shards, bad) => {
          const failing = [bad % shards.length];
          const truth = answerToJSON(await ask(tree(shards, new Set()), SQL)) as unknown as Body;
          const partial = answerToJSON(await ask(tree(shards, new Set(failing)), SQL)) as unknown as Body;
          bounded += (partial.cells?.[0] ?? []).filter((c) => c?.label === 'bounded').length;
          expect(unsound(partial, truth), JSON.stringify(shards)).toEqual([]);
        },
      ),
      { numRuns: 150, seed: 7 },
    );
    expect(bounded).toBeGreaterThan(100);
  });
});

describe('group top-k by a float SUM: the tree adds rounded per-shard scores', () => {
  const groups: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'u', type: 'float64' }] };
  const e = 1.1e-16;
  // z is 1 + 1.1e-16 in each of three shards (3.0000000000000004 in all); each shard's sum rounds to 1.
  const shards: Scalar[][][] = [[['z', 1], ['z', e]], [['y', 1], ['y', e], ['z', 1], ['z', e]], [['y', 1], ['y', e], ['z', 1], ['z', e]]];
  const SQL_TOPK = 'SELECT g, sum(u) AS s FROM t GROUP BY g ORDER BY s DESC LIMIT 2';

  it('truncated at shard_size 1, the interval of z holds 3.0000000000000004 (it was [1, 3])', async () => {
    const full = await ask(inProcessRoot(groups, shards, { fanout: 3 }).root, SQL_TOPK);
    expect(full.rows).toEqual([['z', 3.0000000000000004], ['y', 2]]);
    const a = answerToJSON(await ask(inProcessRoot(groups, shards, { fanout: 3 }).root, SQL_TOPK, { shard_size: 1 })) as unknown as Body;
    const z = a.rows.findIndex((r) => r[0] === 'z');
    const cell = a.cells?.[z]?.[1] ?? null;
    expect(cell).not.toBeNull();
    expect(num(cell!.hi)).toBeGreaterThanOrEqual(3.0000000000000004);
  });
});

describe('group top-k by an int64 SUM past 2^53: the tree adds scores in doubles', () => {
  it('40 shards report z at 511 beside its 9e18: each 511 is below half an ulp of the running sum, and the interval ended below the complete value', async () => {
    const groups: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'i', type: 'int64' }] };
    const shards: Scalar[][][] = [[['z', 9_000_000_000_000_000_000n]], ...Array.from({ length: 40 }, (): Scalar[][] => [['z', 511n], ['y', 1_000_000n], ['w', 1n]]), [['y', 1_000_000n], ['v', 1_000_000n], ['z', 3n]]];
    const sql = 'SELECT g, sum(i) AS s FROM t GROUP BY g ORDER BY s DESC LIMIT 1';
    const full = answerToJSON(await ask(inProcessRoot(groups, shards, { fanout: 50 }).root, sql)) as unknown as Body;
    expect(full.rows).toEqual([['z', '9000000000000020443']]);
    const a = answerToJSON(await ask(inProcessRoot(groups, shards, { fanout: 50 }).root, sql, { shard_size: 2 })) as unknown as Body;
    const cell = a.cells?.[0]?.[1] ?? null;
    if (cell === null) expect(a.rows[0]![1]).toBe('9000000000000020443');
    else expect(BigInt(cell.lo as string) <= 9_000_000_000_000_020_443n && BigInt(cell.hi as string) >= 9_000_000_000_000_020_443n, JSON.stringify(cell)).toBe(true);
  });
});

describe('MIN and MAX keep the sign of zero when shards are missing or stopped early', () => {
  // MIN over {0.0, -0.0} is -0.0 and MAX 0.0 (README, SQL); a zone map's ±0 cannot tell which zero a shard holds.
  const zeros = [[0], [-0]];
  it.each([
    ['failing', { error: 1 }],
    ['slow (stopped early)', { latency: { kind: 'fixed' as const, ms: 30 } }],
  ])('the shard holding the other zero %s: -0 and 0, or not exact', async (_what, fault) => {
    for (const shards of [zeros, [...zeros].reverse()]) {
      for (const bad of [0, 1]) {
        const rows = shards.map((s) => s.map((f): Scalar[] => [f, 1n]));
        const { root } = inProcessRoot(schema, rows, { wrap: (leaf) => (leaf.shards[0] === bad ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', ...fault }] }) : leaf.handler) });
        const a = answerToJSON(await ask(root, 'SELECT min(f) AS lo, max(f) AS hi FROM t')) as unknown as Body;
        if (a.cells?.[0]?.[0] == null) expect(a.rows[0]![0], JSON.stringify({ shards, bad })).toBe('-0');
        if (a.cells?.[0]?.[1] == null) expect(a.rows[0]![1], JSON.stringify({ shards, bad })).toBe(0);
      }
    }
  });

  it('group top-k by MAX DESC / MIN ASC truncated at shard_size 1: a group whose interval closes at a zero keeps the winning zero, or is not exact', async () => {
    const groups: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'f', type: 'float64' }] };
    for (const [sql, shards, want] of [
      // a: -0.0 in shard 0, 0.0 dropped by shard 1 under b (its bound is 0): MAX(a) is 0.0.
      ['SELECT g, max(f) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 2', [[['a', -0]], [['b', 5], ['a', 0]]], 0],
      ['SELECT g, min(f) AS m FROM t GROUP BY g ORDER BY m ASC LIMIT 2', [[['a', 0]], [['b', -5], ['a', -0]]], '-0'],
    ] as const) {
      const a = answerToJSON(await ask(inProcessRoot(groups, shards as unknown as Scalar[][][], { fanout: 2 }).root, sql, { shard_size: 1 })) as unknown as Body;
      const row = a.rows.findIndex((r) => r[0] === 'a');
      if (a.cells?.[row]?.[1] == null) expect(a.rows[row]![1], sql).toBe(want);
    }
  });
});

describe('SUM over many missing shards: their catalog sums add up outward', () => {
  it('40 shards of -1023 after one of two -9e18: each -1023 is below half an ulp of the running sum, and was rounded away', async () => {
    const wide: TableSchema = { name: 't', columns: [{ name: 'i', type: 'int64' }, { name: 'f', type: 'float64' }] };
    const shards: Scalar[][][] = [[[5n, 5]], [[-9_000_000_000_000_000_000n, -9e18], [-9_000_000_000_000_000_000n, -9e18]], ...Array.from({ length: 40 }, (): Scalar[][] => [[-1023n, -1023]])];
    const sql = 'SELECT sum(i) AS si, sum(f) AS sf FROM t';
    const full = answerToJSON(await ask(inProcessRoot(wide, shards, { fanout: 50 }).root, sql)) as unknown as Body;
    const { root } = inProcessRoot(wide, shards, { fanout: 50, wrap: (leaf) => (leaf.shards[0] !== 0 ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler) });
    const a = answerToJSON(await ask(root, sql)) as unknown as Body;
    expect(BigInt(a.cells![0]![0]!.lo as string) <= BigInt(full.rows[0]![0] as string), `int64: lo ${String(a.cells![0]![0]!.lo)}, complete ${String(full.rows[0]![0])}`).toBe(true);
    expect(num(a.cells![0]![1]!.lo) <= num(full.rows[0]![1]), `float64: lo ${String(a.cells![0]![1]!.lo)}, complete ${String(full.rows[0]![1])}`).toBe(true);
  });
});

