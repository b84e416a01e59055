/**
 * The leaf's layout cache per query id (src/leaf/node.ts): a request parsed from JSON carries
 * a fresh plan object, so the leaves of one process share one layout per query id, but only
 * for a structurally equal plan and schema. A reused id with another plan must build its own.
 */
import { isDeepStrictEqual } from 'node:util';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { requestLayout, samePlanValue } from '../src/merge/index.ts';
import { finalise, type Frame, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';

const SCHEMA: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'v', type: 'int64' }] };
const plan = (sql: string) => planQuery(sql, new Map([['t', SCHEMA]]), DEFAULT_LIMITS);

describe('leaf layout cache per query id', () => {
  it('samePlanValue is structural equality (numbers by Object.is: -0 and NaN are their own values; bigint by value)', () => {
    const value = fc.letrec((tie) => ({
      v: fc.oneof(
        { weight: 3, arbitrary: fc.oneof(fc.constantFrom(0, -0, NaN, 1, 1n, -1n, '1', true, null), fc.double(), fc.bigInt(), fc.string({ maxLength: 3 })) },
        { weight: 1, arbitrary: fc.array(tie('v'), { maxLength: 3 }) },
        { weight: 1, arbitrary: fc.dictionary(fc.constantFrom('a', 'b', 'kind'), tie('v'), { maxKeys: 3, noNullPrototype: true }) },
      ),
    })).v;
    fc.assert(
      fc.property(value, value, fc.boolean(), (a, b, clone) => {
        const other = clone ? structuredClone(a) : b;
        expect(samePlanValue(a, other)).toBe(isDeepStrictEqual(a, other));
      }),
      { numRuns: 500 },
    );
  });

  it('one layout for equal plans of one query id; a new one for another plan or schema under the same id', () => {
    const p = plan('SELECT g, count(*), sum(v) FROM t GROUP BY g').scan;
    const a = requestLayout('cache-test', p, SCHEMA);
    expect(requestLayout('cache-test', structuredClone(p), structuredClone(SCHEMA))).toBe(a);
    const q = plan('SELECT g, min(v) FROM t GROUP BY g').scan;
    const b = requestLayout('cache-test', q, SCHEMA);
    expect(b).not.toBe(a);
    expect(b.kinds.length).toBe(1);
    const other: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'v', type: 'float64' }] };
    expect(requestLayout('cache-test', q, other)).not.toBe(b);
  });

  it('a leaf answers two different plans sent under one query id, each with its own answer', async () => {
    const rows: Scalar[][] = [['a', 1n], ['b', 5n], ['a', 3n], ['b', -2n]];
    const leaf = createLeaf('leaf-0', [prepareShard(0, shardsFromRows(SCHEMA, [rows])[0]!, SCHEMA)]);
    const answer = async (sql: string): Promise<unknown[][]> => {
      const qp = plan(sql);
      let last: Frame | undefined;
      for await (const f of leaf.handler({ queryId: 'reused', schema: structuredClone(SCHEMA), plan: structuredClone(qp.scan), shards: [0], budgetMs: 10_000 }, new AbortController().signal)) last = f;
      return finalise(qp, requestLayout('reused', qp.scan, SCHEMA), last!.partial).rows.map((r) => [...r]);
    };
    expect(await answer('SELECT g, sum(v) FROM t GROUP BY g ORDER BY g')).toEqual([['a', 4n], ['b', 3n]]);
    expect(await answer('SELECT g, max(v), count(*) FROM t GROUP BY g ORDER BY g')).toEqual([['a', 3n, 2n], ['b', 5n, 2n]]);
    expect(await answer('SELECT g, sum(v) FROM t GROUP BY g ORDER BY g')).toEqual([['a', 4n], ['b', 3n]]);
  });
});
