/**
 * The partial-answer contract under random tree shapes, data and fault schedules
 * (errors, hangs, crashes, garbled replies, replies after the deadline), on fake timers:
 * every shard appears exactly once in provenance; an answer labelled exact equals the
 * truth; every exact cell equals it and every bounded interval contains it.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseFaultPlan, withFaults, type FaultRule } from '../src/leaf/index.ts';
import { compareSql, isCanopyError, type Scalar, type TableSchema } from '../src/merge/index.ts';
import type { QueryAnswer } from '../src/root/index.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = {
  name: 't',
  columns: [
    { name: 'g', type: 'string' },
    { name: 'x', type: 'int64' },
  ],
};

const QUERIES = [
  'SELECT count(*), count(x), sum(x), min(x), max(x), avg(x) FROM t',
  'SELECT count(*), sum(x) FROM t WHERE x > 0',
  'SELECT g, count(*), sum(x), min(x), max(x) FROM t GROUP BY g ORDER BY g',
  'SELECT g, x FROM t ORDER BY x DESC, g LIMIT 3',
  'SELECT min(g), max(g) FROM t WHERE x IS NOT NULL',
];

const FAULTS: Record<string, Omit<FaultRule, 'shards'>> = {
  ok: {},
  slow: { latency: { kind: 'fixed', ms: 20 } },
  late: { latency: { kind: 'fixed', ms: 5000 } },
  error: { error: 1 },
  hang: { hang: 1 },
  crash: { crash: 1 },
  garble: { garble: 1 },
};

const row = fc.tuple(fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }), fc.option(fc.bigInt({ min: -50n, max: 50n }), { nil: null }));

function contains(lo: Scalar | undefined, hi: Scalar | undefined, v: Scalar): boolean {
  if (v === null) return false;
  const okLo = lo === null || lo === undefined || compareSql('<=', lo, v) === true;
  const okHi = hi === null || hi === undefined || compareSql('>=', hi, v) === true;
  return okLo && okHi;
}

function same(a: Scalar, b: Scalar): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  return a === b;
}

async function run(root: ReturnType<typeof inProcessRoot>['root'], sql: string, deadline = 1000): Promise<QueryAnswer | Error> {
  const p = root.query({ sql, deadline_ms: deadline }, new AbortController().signal).catch((e: unknown) => e as Error);
  await vi.advanceTimersByTimeAsync(6000);
  return p;
}

describe('partial answers under faults', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('every shard once; exact equals the truth; bounds hold', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(row, { maxLength: 12 }), { minLength: 1, maxLength: 8 }),
        fc.array(fc.constantFrom(...Object.keys(FAULTS)), { minLength: 8, maxLength: 8 }),
        fc.integer({ min: 2, max: 4 }),
        fc.constantFrom(...QUERIES),
        async (shards, faults, fanout, sql) => {
          const rows = shards.flat();
          const truthTree = inProcessRoot(schema, [rows as Scalar[][]]);
          const tree = inProcessRoot(schema, shards as Scalar[][][], {
            fanout,
            wrap: (leaf) => withFaults(leaf.handler, leaf.shards, { seed: 1, rules: [{ shards: leaf.shards, ...FAULTS[faults[leaf.shards[0]!]!]! }] }),
          });
          const truth = await run(truthTree.root, sql, 60_000);
          if (truth instanceof Error) throw truth;
          const a = await run(tree.root, sql);
          if (a instanceof Error) {
            expect(isCanopyError(a) && a.code).toBe('CANOPY_ERR_NO_COVERAGE');
            return;
          }
          // Every shard exactly once.
          const seen = a.provenance.map((p) => p.shard).sort((x, y) => x - y);
          expect(seen).toEqual(shards.map((_, i) => i));
          const c = a.coverage;
          expect(c.answered + c.failed + c.omitted + c.pruned).toBe(shards.length);
          if (a.label === 'exact') {
            expect(a.rows.length).toBe(truth.rows.length);
            a.rows.forEach((r, i) => r.forEach((v, j) => expect(same(v, truth.rows[i]![j]!)).toBe(true)));
            return;
          }
          expect(a.missing.length).toBeGreaterThan(0);
          // Per-cell guarantees for rows whose group exists in the truth.
          const groupBy = sql.includes('GROUP BY');
          const isRows = !sql.includes('count') && !sql.includes('min(');
          if (isRows) return;
          a.rows.forEach((r, i) => {
            const t = groupBy ? truth.rows.find((tr) => tr[0] === r[0]) : truth.rows[0];
            expect(t).toBeDefined();
            r.forEach((v, j) => {
              const cell = a.cells?.[i]?.[j] ?? null;
              const tv = t![j]!;
              if (cell === null) expect(same(v, tv)).toBe(true);
              else if (cell.label === 'bounded') expect(contains(cell.lo, cell.hi, tv)).toBe(true);
            });
          });
        },
      ),
      { numRuns: 200 },
    );
  });
});

describe('fault plan files', () => {
  it('accepts the README example and names an unknown key instead of injecting nothing', () => {
    const plan = parseFaultPlan({ seed: 7, rules: [{ shards: [13], hang: 1 }, { shards: [2, 3], error: 0.5, crash: 0.1, garble: 0.1 }, { shards: 'all', latency: { kind: 'straggler', p: 0.01, ms: 500 } }, { shards: 'all', latency: { kind: 'lognormal', medianMs: 5, sigma: 0.5 } }] });
    expect(plan.rules).toHaveLength(4);
    for (const [json, message] of [
      [{ rules: [{ shards: [13], foo: 1 }] }, "fault plan: rule 0: unknown key 'foo'; known: shards, zones, latency, error, hang, crash, garble"],
      [{ rules: [], sed: 1 }, "fault plan: plan: unknown key 'sed'; known: seed, rules"],
      [{ rules: [{ shards: 'all', latency: { kind: 'fixed', ms: 3, p: 1 } }] }, "fault plan: rule 0 latency: unknown key 'p'; known: kind, ms"],
    ] as const) {
      expect(() => parseFaultPlan(json)).toThrow(message);
    }
  });
});
