/**
 * Early termination: a gather stops waiting, and cancels what is outstanding, once the
 * catalog proves the outstanding shards cannot change the answer: row top-k, MIN/MAX, and
 * group top-k by MAX DESC / MIN ASC (deterministic cases and a property against the answer
 * without early termination and a brute-force truth).
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { compareSql, layoutOf, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, LIMIT_PROBE_BUDGET_MS, planQuery, type QueryAnswer, type QueryRequest, type Root } from '../src/root/index.ts';
import { groupTruth, topGroups, type TruthField } from './helpers/group-truth.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const rows = (xs: number[]): Scalar[][] => xs.map((x) => [BigInt(x)]);
const slow = (shard: number) => (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) =>
  withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [shard], latency: { kind: 'fixed', ms: 60_000 } }] });

afterEach(() => {
  vi.useRealTimers();
});

describe('early termination', () => {
  it('row top-k: the slow shard cannot beat the k-th row, so the answer is exact without it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([5, 3]), rows([60, 85])], { fanout: 3, wrap: slow(1) });
    // The WHERE clause keeps the root from skipping shard 1 from the catalog (rowTopKShards, tested below): the gather must stop it.
    const pending = root.query({ sql: 'SELECT x FROM t WHERE x >= 0 ORDER BY x DESC LIMIT 2', deadline_ms: 120_000 }, new AbortController().signal);
    // Far less than the slow shard's 60 s: the answer must already be there.
    await vi.advanceTimersByTimeAsync(10);
    const a = await pending;
    expect(a.rows).toEqual([[90n], [85n]]);
    expect(a.label).toBe('exact');
    const entry = a.provenance.find((p) => p.shard === 1)!;
    expect(entry.status).toBe('pruned');
    expect(entry.error?.message).toContain('early termination');
    expect(root.counters.earlyStops).toBeGreaterThanOrEqual(1);
  });

  it('an aggregator stops early too, and says so in provenance', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([5, 3]), rows([60, 85]), rows([1])], { fanout: 2, wrap: slow(1) });
    // With a WHERE clause the root cannot skip shard 1 from the catalog (rowTopKShards): the aggregator must stop it.
    const pending = root.query({ sql: 'SELECT x FROM t WHERE x >= 0 ORDER BY x DESC LIMIT 2', deadline_ms: 120_000 }, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(10);
    const a = await pending;
    expect(a.rows).toEqual([[90n], [85n]]);
    expect(a.label).toBe('exact');
    expect(a.provenance.find((p) => p.shard === 1)).toMatchObject({ status: 'pruned', path: 'root/agg-0/leaf-1' });
  });

  it('it does not fire when the slow shard could still change the answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([95, 3]), rows([60, 85])], { fanout: 3, wrap: slow(1) });
    let done = false;
    const pending = root.query({ sql: 'SELECT x FROM t ORDER BY x DESC LIMIT 2', deadline_ms: 120_000 }, new AbortController().signal).then((a) => {
      done = true;
      return a;
    });
    await vi.advanceTimersByTimeAsync(1000);
    expect(done).toBe(false);
    await vi.advanceTimersByTimeAsync(60_000);
    const a = await pending;
    expect(a.rows).toEqual([[95n], [90n]]);
    expect(root.counters.earlyStops).toBe(0);
  });

  it('MIN/MAX: the catalog proves the slow shard irrelevant', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([1, 100]), rows([10, 20]), rows([2, 50])], { fanout: 3, wrap: slow(1) });
    const pending = root.query({ sql: 'SELECT min(x), max(x) FROM t', deadline_ms: 120_000 }, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(10);
    const a = await pending;
    expect(a.rows).toEqual([[1n, 100n]]);
    expect(a.label).toBe('exact');
    expect(root.counters.earlyStops).toBe(1);
  });

  it('policy "all" never stops early', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([1, 100]), rows([10, 20])], { fanout: 3, wrap: slow(1) });
    const pending = root.query({ sql: 'SELECT min(x) FROM t', deadline_ms: 120_000, policy: 'all' }, new AbortController().signal);
    await vi.advanceTimersByTimeAsync(61_000);
    const a = await pending;
    expect(a.coverage.answered).toBe(2);
    expect(root.counters.earlyStops).toBe(0);
  });
});

const gschema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'v', type: 'int64' }] };
const grows = (xs: [string, number | null][]): Scalar[][] => xs.map(([g, v]) => [g, v === null ? null : BigInt(v)]);
const earlyEntries = (a: QueryAnswer) => a.provenance.filter((p) => p.error?.message.includes('early termination') === true);

/** Starts a query on fake timers; resolves with the answer and whether it came before `ms` of fake time. */
async function askFake(root: Root, req: QueryRequest, ms = 10): Promise<{ answer: QueryAnswer; early: boolean }> {
  let done = false;
  const pending = root.query({ deadline_ms: 120_000, ...req }, new AbortController().signal).then((a) => {
    done = true;
    return a;
  });
  await vi.advanceTimersByTimeAsync(ms);
  const early = done;
  if (!done) await vi.advanceTimersByTimeAsync(61_000);
  return { answer: await pending, early };
}

describe('early termination for group top-k (MAX DESC / MIN ASC)', () => {
  // Shard 1 is slow; its catalog max (5) cannot reach the 2nd best score (85), and for the
  // groups it may hold (keys a..d) it cannot raise a MAX: the answer cannot change.
  const shards = [grows([['a', 90], ['b', 80], ['c', 70]]), grows([['a', 5], ['d', 3]]), grows([['e', 60], ['b', 85]])];
  const sql = 'SELECT g, max(v) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 2';

  for (const fanout of [3, 2]) {
    it(`the catalog proves the slow shard irrelevant: exact without waiting (fan-out ${fanout})`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { root } = inProcessRoot(gschema, shards, { fanout, wrap: slow(1) });
      const { answer: a, early } = await askFake(root, { sql, shard_size: 2 });
      expect(early).toBe(true);
      expect(a.rows).toEqual([
        ['a', 90n],
        ['b', 85n],
      ]);
      expect(a.label).toBe('exact');
      expect(a.rowsComplete).toBe(true);
      // Shard 1 is accounted for once, as pruned by early termination, at the node that stopped.
      const entry = a.provenance.filter((p) => p.shard === 1);
      expect(entry).toHaveLength(1);
      expect(entry[0]).toMatchObject({ status: 'pruned', error: { code: 'CANOPY_ERR_CANCELLED' } });
      expect(entry[0]!.error!.message).toContain('early termination');
      expect(entry[0]!.path).toBe(fanout === 3 ? 'root/leaf-1' : 'root/agg-0/leaf-1');
      expect(a.coverage).toMatchObject({ answered: 2, pruned: 1, omitted: 0, failed: 0 });
      if (fanout === 3) expect(root.counters.earlyStops).toBe(1);
    });
  }

  it('MIN ASC: the slow shard\'s min cannot beat the k\'-th smallest', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const s = [grows([['a', 1], ['b', 4], ['c', 9]]), grows([['a', 50], ['b', 60], ['z', 40]]), grows([['d', 2], ['c', 3]])];
    const { root } = inProcessRoot(gschema, s, { fanout: 3, wrap: slow(1) });
    const { answer: a, early } = await askFake(root, { sql: 'SELECT g, min(v) AS m FROM t GROUP BY g ORDER BY m ASC LIMIT 3', shard_size: 3 });
    expect(early).toBe(true);
    expect(a.rows).toEqual([
      ['a', 1n],
      ['d', 2n],
      ['c', 3n],
    ]);
    expect(a.label).toBe('exact');
    expect(root.counters.earlyStops).toBe(1);
  });

  it('other aggregates of the top groups: fires only when the keys\' zone maps exclude them', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const withCount = 'SELECT g, max(v) AS m, count(*) AS n FROM t GROUP BY g ORDER BY m DESC LIMIT 2';
    // Shard 1 may hold group a (keys a..d): its row would change a's count, so the gather waits.
    const held = inProcessRoot(gschema, shards, { fanout: 3, wrap: slow(1) });
    const r1 = await askFake(held.root, { sql: withCount, shard_size: 2 });
    expect(r1.early).toBe(false);
    expect(r1.answer.rows).toEqual([
      ['a', 90n, 2n],
      ['b', 85n, 2n],
    ]);
    expect(held.root.counters.earlyStops).toBe(0);
    // Keys x..y only: it cannot hold a or b, and its max cannot reach the 2nd best.
    const apart = [shards[0]!, grows([['x', 5], ['y', 3]]), shards[2]!];
    const sep = inProcessRoot(gschema, apart, { fanout: 3, wrap: slow(1) });
    const r2 = await askFake(sep.root, { sql: withCount, shard_size: 2 });
    expect(r2.early).toBe(true);
    expect(r2.answer.rows).toEqual([
      ['a', 90n, 1n],
      ['b', 85n, 2n],
    ]);
    expect(r2.answer.label).toBe('exact');
    expect(sep.root.counters.earlyStops).toBe(1);
  });

  it('never for COUNT / SUM orderings, for k\' < k, for a shard that could tie, or with policy "all"', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const cases: [Scalar[][][], QueryRequest][] = [
      [shards, { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', shard_size: 2 }],
      [shards, { sql, shard_size: 1 }],
      [shards, { sql, shard_size: 2, policy: 'all' }],
      // Its max equals the 2nd best score: a group lifted to 85 could win the tie on its key.
      [[shards[0]!, grows([['a', 85]]), shards[2]!], { sql, shard_size: 2 }],
    ];
    for (const [data, req] of cases) {
      const { root } = inProcessRoot(gschema, data, { fanout: 3, wrap: slow(1) });
      const { answer: a, early } = await askFake(root, req);
      expect(early).toBe(false);
      expect(earlyEntries(a)).toEqual([]);
      expect(root.counters.earlyStops).toBe(0);
    }
  });
});

type Tmpl = { sql: string; order: TruthField; desc: boolean; cols: TruthField[] };
const TEMPLATES: Tmpl[] = [
  { sql: 'SELECT g, max(v) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT K', order: 'max', desc: true, cols: ['max'] },
  { sql: 'SELECT g, min(v) AS m, count(*) AS n FROM t GROUP BY g ORDER BY m ASC LIMIT K', order: 'min', desc: false, cols: ['min', 'count'] },
  { sql: 'SELECT g, max(v) AS m, sum(v) AS s, min(v) AS lo FROM t GROUP BY g ORDER BY m DESC LIMIT K', order: 'max', desc: true, cols: ['max', 'sum', 'min'] },
];
const RANK = { exact: 0, bounded: 1, approximate: 2 } as const;

describe('early termination for group top-k: property', () => {
  it('the answer equals the answer without early termination, and the brute-force truth', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    // Shards with a key range (from hash-like to range-partitioned) and a value range each;
    // the slow shard's values lean away from the top (low for DESC, high for ASC) and its keys
    // are narrow, so that the catalog often proves it irrelevant.
    const shardArb = (width: number) =>
      fc.record({
        keyLo: fc.integer({ min: 0, max: 7 }),
        keyWidth: fc.integer({ min: 0, max: width }),
        base: fc.integer({ min: 0, max: 40 }),
        rows: fc.array(fc.tuple(fc.nat(7), fc.option(fc.integer({ min: 0, max: 10 }), { nil: null, freq: 6 })), { maxLength: 12 }),
      });
    const build = ({ keyLo, keyWidth, base, rows }: { keyLo: number; keyWidth: number; base: number; rows: [number, number | null][] }): Scalar[][] =>
      rows.map(([k, v]) => ['abcdefgh'[Math.min(7, keyLo + (k % (keyWidth + 1)))]!, v === null ? null : BigInt(base + v)]);
    let fired = 0;
    let runs = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(shardArb(7), { minLength: 1, maxLength: 6 }),
        shardArb(2),
        fc.nat(6),
        fc.integer({ min: 2, max: 3 }),
        fc.integer({ min: 1, max: 3 }),
        fc.integer({ min: 0, max: 2 }),
        fc.constantFrom(...TEMPLATES),
        async (others, slowRows, slowAt, fanout, k, extra, tmpl) => {
          runs++;
          const slowShard = slowAt % (others.length + 1);
          const lean = { ...slowRows, base: tmpl.desc ? slowRows.base % 13 : 38 + (slowRows.base % 13) };
          const data = [...others.slice(0, slowShard).map(build), build(lean), ...others.slice(slowShard).map(build)];
          const sql = tmpl.sql.replace('K', String(k));
          const req: QueryRequest = { sql, shard_size: k + extra };
          const { root } = inProcessRoot(gschema, data, { fanout, wrap: slow(slowShard) });
          const { answer: a } = await askFake(root, req);
          const stopped = earlyEntries(a);
          if (stopped.length > 0) fired++;
          // Every shard once; stopped shards are pruned, never missing.
          expect(a.provenance.map((p) => p.shard).sort((x, y) => x - y)).toEqual(data.map((_, i) => i));
          expect(stopped.every((p) => p.status === 'pruned')).toBe(true);
          expect(a.missing).toEqual([]);
          // Against the same tree that never stops early (policy "all": no statistics sent).
          const { answer: ref } = await askFake(inProcessRoot(gschema, data, { fanout }).root, { ...req, policy: 'all' });
          expect(a.rows).toEqual(ref.rows);
          expect(RANK[a.label]).toBeLessThanOrEqual(RANK[ref.label]);
          // Against the brute-force truth: exact cells equal it, bounded cells hold it.
          const truth = groupTruth(data.flat());
          a.rows.forEach((r, i) => {
            const t = truth.get(r[0] as string)!;
            tmpl.cols.forEach((f, j) => {
              const cell = a.cells?.[i]?.[j + 1] ?? null;
              if (cell === null) expect(r[j + 1]).toEqual(t[f]);
              else if (cell.label === 'bounded') expect(within(cell, t[f])).toBe(true);
            });
          });
          if (a.label === 'exact') {
            const want = topGroups(truth, tmpl.order, tmpl.desc, k).map((t) => [t.key, ...tmpl.cols.map((f) => t[f])]);
            expect(a.rows).toEqual(want);
          }
        },
      ),
      { numRuns: 300 },
    );
    // The property is about runs where it fires: make sure there are plenty.
    expect(fired).toBeGreaterThan(runs / 8);
  });
});

function within(cell: { lo?: Scalar; hi?: Scalar }, v: Scalar): boolean {
  return v !== null && (cell.lo == null || compareSql('<=', cell.lo, v) === true) && (cell.hi == null || compareSql('>=', cell.hi, v) === true);
}

describe('early termination for LIMIT without ORDER BY', () => {
  const multiset = (rs: readonly (readonly Scalar[])[]): Map<string, number> => {
    const m = new Map<string, number>();
    for (const r of rs) m.set(String(r[0]), (m.get(String(r[0])) ?? 0) + 1);
    return m;
  };

  it('answers, exact, once LIMIT rows are in hand, without the slow shard', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([5, 3]), rows([60, 85])], { fanout: 3, wrap: slow(1) });
    const { answer, early } = await askFake(root, { sql: 'SELECT x FROM t WHERE x > 50 LIMIT 4' });
    expect(early).toBe(true);
    expect(answer.label).toBe('exact');
    expect(answer.rows.length).toBe(4);
    // Any 4 of the rows with x > 50 (all five are outside the slow shard here).
    for (const r of answer.rows) expect([90n, 80n, 70n, 60n, 85n]).toContain(r[0]);
    expect(answer.provenance.find((p) => p.shard === 1)).toMatchObject({ status: 'pruned' });
  });

  it('waits when the shards that answered hold fewer rows than OFFSET + LIMIT', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const { root } = inProcessRoot(schema, [rows([90, 80]), rows([5, 3]), rows([60])], { fanout: 3, wrap: slow(1) });
    const { answer, early } = await askFake(root, { sql: 'SELECT x FROM t LIMIT 2 OFFSET 2' });
    expect(early).toBe(false);
    expect(answer.rows.length).toBe(2);
  });

  it('property: k rows (or all) of the matching rows, exact, whichever shard is slow', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.integer({ min: -20, max: 20 }), { maxLength: 6 }), { minLength: 1, maxLength: 5 }),
        fc.nat({ max: 4 }),
        fc.integer({ min: 0, max: 8 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: -5, max: 5 }),
        async (parts, slowShard, k, offset, threshold) => {
          vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
          try {
            const { root } = inProcessRoot(schema, parts.map(rows), { fanout: 2, wrap: slow(slowShard % parts.length) });
            const { answer } = await askFake(root, { sql: `SELECT x FROM t WHERE x > ${threshold} LIMIT ${k} OFFSET ${offset}` });
            const matching = rows(parts.flat().filter((x) => x > threshold));
            expect(answer.label).toBe('exact');
            expect(answer.rows.length).toBe(Math.max(0, Math.min(k, matching.length - offset)));
            const have = multiset(matching);
            for (const [v, n] of multiset(answer.rows)) expect(n).toBeLessThanOrEqual(have.get(v) ?? 0);
          } finally {
            vi.useRealTimers();
          }
        },
      ),
      { numRuns: 60, seed: 11 },
    );
  });
});

describe('LIMIT without ORDER BY asks only the shards it needs (limitProbe)', () => {
  /** Wraps each leaf to record the requests it gets (shards asked, and whether each was aborted) and to hang shard `hung`. */
  const recording = (log: { shard: number; signal: AbortSignal }[], hung?: number) => (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) => {
    const inner = hung === undefined ? leaf.handler : withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [hung], hang: 1 }] });
    return (req: Parameters<typeof inner>[0], signal: AbortSignal) => {
      for (const shard of req.shards) log.push({ shard, signal });
      return inner(req, signal);
    };
  };

  it('asks the largest shard alone when its rows fill the LIMIT; the rest are stopped early, not missing', async () => {
    const log: { shard: number; signal: AbortSignal }[] = [];
    const { root } = inProcessRoot(schema, [rows([1, 2]), rows([3, 4, 5, 6]), rows([7, 8, 9])], { fanout: 2, wrap: recording(log) });
    const a = await root.query({ sql: 'SELECT x FROM t LIMIT 3' }, new AbortController().signal);
    expect(log.map((l) => l.shard)).toEqual([1]);
    expect(a.label).toBe('exact');
    expect(a.rowsComplete).toBe(true);
    expect(a.rows.length).toBe(3);
    for (const r of a.rows) expect([3n, 4n, 5n, 6n]).toContain(r[0]);
    expect(a.missing).toEqual([]);
    expect(a.coverage).toMatchObject({ shards: 3, answered: 1, failed: 0, omitted: 0, pruned: 2 });
    expect(a.warnings?.map((w) => [w.code, w.shards])).toEqual([['CANOPY_WARN_STOPPED_EARLY', [0, 2]]]);
    expect(a.stats.round_trips).toBe(1);
  });

  it('with a WHERE the probe may fall short: a second round asks the others for the rows still wanted', async () => {
    const log: { shard: number; signal: AbortSignal }[] = [];
    const { root } = inProcessRoot(schema, [rows([1, 55]), rows([3, 4, 5, 60]), rows([70])], { fanout: 2, wrap: recording(log) });
    const a = await root.query({ sql: 'SELECT x FROM t WHERE x > 50 LIMIT 3', policy: 'partial' }, new AbortController().signal);
    expect(log[0]!.shard).toBe(1);
    expect(new Set(log.slice(1).map((l) => l.shard))).toEqual(new Set([0, 2]));
    expect(a.label).toBe('exact');
    expect(a.rows.map((r) => r[0]).sort()).toEqual([55n, 60n, 70n]);
    expect(a.stats.round_trips).toBe(2);
    expect(a.missing).toEqual([]);
  });

  it('a hung shard in the probe delays the answer by the probe budget, not the deadline, and is cancelled', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const log: { shard: number; signal: AbortSignal }[] = [];
    // Shard 1 is the largest, so the probe asks it alone; it never answers.
    const { root } = inProcessRoot(schema, [rows([1, 2]), rows([3, 4, 5, 6]), rows([7, 8, 9])], { fanout: 2, wrap: recording(log, 1) });
    const { answer, early } = await askFake(root, { sql: 'SELECT x FROM t LIMIT 3' }, LIMIT_PROBE_BUDGET_MS + 50);
    expect(early).toBe(true);
    expect(answer.label).toBe('exact');
    expect(answer.rows.length).toBe(3);
    for (const r of answer.rows) expect([1n, 2n, 7n, 8n, 9n]).toContain(r[0]);
    expect(answer.missing).toEqual([]);
    // Every request to the hung shard (the probe's, the second round's) was aborted.
    const hung = log.filter((l) => l.shard === 1);
    expect(hung.length).toBeGreaterThanOrEqual(1);
    for (const h of hung) expect(h.signal.aborted).toBe(true);
    expect(answer.provenance.find((p) => p.shard === 1)).toMatchObject({ status: 'pruned' });
  });

  it('LIMIT 0 asks no shard: the answer is its columns and no row, exact, every shard stopped early, 0 round trips', async () => {
    const log: { shard: number; signal: AbortSignal }[] = [];
    const { root } = inProcessRoot(schema, [rows([1, 2]), rows([3, 4, 5, 6]), rows([7, 8, 9])], { fanout: 2, wrap: recording(log) });
    const a = await root.query({ sql: 'SELECT x FROM t WHERE x > 1 LIMIT 0' }, new AbortController().signal);
    expect(log).toEqual([]);
    expect(a.label).toBe('exact');
    expect(a.rows).toEqual([]);
    expect(a.columns.map((c) => c.name)).toEqual(['x']);
    expect(a.missing).toEqual([]);
    expect(a.coverage).toMatchObject({ shards: 3, answered: 0, pruned: 3 });
    expect(a.stats.round_trips).toBe(0);
  });

  it('policy "all", no LIMIT, ORDER BY, or a LIMIT beyond the table: every shard is asked', async () => {
    for (const sql of ['SELECT x FROM t LIMIT 3', 'SELECT x FROM t ORDER BY x LIMIT 3', 'SELECT x FROM t LIMIT 100', 'SELECT x FROM t']) {
      const log: { shard: number; signal: AbortSignal }[] = [];
      const { root } = inProcessRoot(schema, [rows([1, 2]), rows([3, 4, 5, 6]), rows([7, 8, 9])], { fanout: 2, wrap: recording(log) });
      await root.query({ sql, ...(sql.endsWith('LIMIT 3') && !sql.includes('ORDER') ? { policy: 'all' as const } : {}) }, new AbortController().signal);
      expect(new Set(log.map((l) => l.shard)), sql).toEqual(new Set([0, 1, 2]));
    }
  });
});

describe('row top-k: shards the catalog proves irrelevant are not asked (rowTopKShards)', () => {
  const asking = (log: number[]) => (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) => (req: Parameters<Parameters<typeof withFaults>[0]>[0], signal: AbortSignal) => {
    log.push(...req.shards);
    return leaf.handler(req, signal);
  };

  it('DESC: only shards whose max reaches the k-th best shard max are asked; the others are stopped early, not missing', async () => {
    const log: number[] = [];
    // Shard maxima 90, 5, 85, 85, NULL only: the 2nd best is 85, so shards 1 and 4 cannot hold either of the first 2 rows.
    const { root } = inProcessRoot(schema, [rows([90, 80, 70]), rows([5, 3]), rows([60, 85]), rows([85, 84]), [[null], [null]]], { fanout: 2, wrap: asking(log) });
    const a = await root.query({ sql: 'SELECT x FROM t ORDER BY x DESC LIMIT 2' }, new AbortController().signal);
    expect(new Set(log)).toEqual(new Set([0, 2, 3]));
    expect(a.rows).toEqual([[90n], [85n]]);
    expect(a.label).toBe('exact');
    expect(a.missing).toEqual([]);
    expect(a.warnings?.find((w) => w.code === 'CANOPY_WARN_STOPPED_EARLY')?.shards).toEqual([1, 4]);
    expect(a.provenance.find((p) => p.shard === 1)?.error?.message).toContain('guarantee 2 rows >= 85');
  });

  it('ASC, ties, policy "all" and a WHERE clause', async () => {
    const data = [rows([1, 9]), rows([1, 2]), rows([7, 8]), rows([3])];
    const cases: [string, QueryRequest['policy'] | undefined, number[]][] = [
      // Minima 1, 1, 7, 3: the 2nd best is 1 (a tie), so shards 2 and 3 are skipped.
      ['SELECT x FROM t ORDER BY x LIMIT 2', undefined, [0, 1]],
      ['SELECT x FROM t ORDER BY x LIMIT 3', undefined, [0, 1, 3]],
      ['SELECT x FROM t ORDER BY x LIMIT 2', 'all', [0, 1, 2, 3]],
      ['SELECT x FROM t WHERE x > 0 ORDER BY x LIMIT 2', undefined, [0, 1, 2, 3]],
      ['SELECT x FROM t ORDER BY x NULLS FIRST LIMIT 2', undefined, [0, 1, 2, 3]],
    ];
    for (const [sql, policy, want] of cases) {
      const log: number[] = [];
      const { root } = inProcessRoot(schema, data, { fanout: 2, wrap: asking(log) });
      const a = await root.query({ sql, ...(policy === undefined ? {} : { policy }) }, new AbortController().signal);
      expect([...new Set(log)].sort(), sql).toEqual(want);
      const all = data.flat().map((r) => r[0] as bigint).sort((x, y) => (x < y ? -1 : 1));
      expect(a.rows.map((r) => r[0]), sql).toEqual(all.slice(0, Number(/LIMIT (\d+)/.exec(sql)![1])));
      expect(a.label).toBe('exact');
    }
  });

  it('property: the answer equals a full sort of every row, whatever the data', async () => {
    const fschema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'float64' }, { name: 'y', type: 'int64' }] };
    const value = fc.option(fc.oneof(fc.constantFrom(NaN, Infinity, -Infinity, -0, 0), fc.integer({ min: -5, max: 5 })), { nil: null, freq: 6 });
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.array(fc.tuple(value, fc.integer({ min: 0, max: 3 })), { maxLength: 6 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 1, max: 6 }),
        fc.boolean(),
        async (parts, k, desc) => {
          const data = parts.map((p) => p.map(([x, y]): Scalar[] => [x, BigInt(y)]));
          const { root, layout } = inProcessRoot(fschema, data, { fanout: 2 });
          const sql = `SELECT x, y FROM t ORDER BY x${desc ? ' DESC' : ''}, y DESC LIMIT ${k}`;
          const a = await root.query({ sql }, new AbortController().signal);
          const plan = planQuery(sql, new Map([['t', fschema]]), DEFAULT_LIMITS);
          const cmp = layoutOf(plan.scan, fschema).compareRows;
          const want = data.flat().sort(cmp).slice(0, k);
          expect(a.label).toBe('exact');
          expect(a.rows.length).toBe(want.length);
          a.rows.forEach((r, i) => expect(cmp(r, want[i]!)).toBe(0));
          void layout;
        },
      ),
      { numRuns: 80, seed: 15 },
    );
  });
});
