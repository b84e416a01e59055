/**
 * Bounded resources at the leaf and in the merge: cancellation inside one long batch (a
 * counter of rows evaluated stops growing), the deadline on the clock inside a batch, the
 * fold of equality chains into IN (same answers), and memory budgets that refuse one query
 * while another completes.
 */
import { describe, expect, it, vi } from 'vitest';
import { gather } from '../src/aggregator/index.ts';
import { clockWithNow, inProcessChild } from '../src/transport/index.ts';
import { shardsFromRows } from '../src/data/index.ts';
import { ScanLanes, createLeaf, isHeavyScan, prepareShard, scanShard, type PreparedShard } from '../src/leaf/index.ts';
import { CanopyError, MAX_COMPUTED_STRING_CHARS, MAX_STRING_LENGTH, MemoryPool, callFn, finalise, PartialAccumulator, QueryMemory, foldEqualityChains, isCanopyError, layoutOf, memoryBudgets, type Frame, type PartialLayout, type Scalar, type ScanPlan, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';

const schema: TableSchema = MIXED_SCHEMA;
const tables = new Map([['t', schema]]);

/** One shard of `n` rows in one batch: g cycles a/b/c, i = row index, f = i / 2, ts = i ms. */
function oneBatchShard(n: number): PreparedShard {
  const rows: Scalar[][] = [];
  for (let r = 0; r < n; r++) rows.push(['abc'[r % 3]!, BigInt(r), r / 2, r]);
  const [table] = shardsFromRows(schema, [rows]);
  return prepareShard(0, table!, schema);
}

/** `-i > 1 OR -i > 2 OR ...`: no row matches, no operand can be folded, every operand is evaluated. */
function longChain(terms: number): string {
  const parts: string[] = [];
  // `-i`, an expression, so the batch's zone map (i >= 0) cannot skip the batch (`i + 0 < -k`
  // is `i < -k` to the planner, as DuckDB's optimizer moves the constant, and then it can).
  for (let k = 1; k <= terms; k++) parts.push(`-i>${k}`);
  return `SELECT count(*) FROM t WHERE ${parts.join(' OR ')}`;
}

async function rejection(p: Promise<unknown>): Promise<CanopyError> {
  try {
    await p;
  } catch (e) {
    if (isCanopyError(e)) return e;
    throw e;
  }
  throw new Error('expected the scan to be refused');
}

describe('cancellation inside a long batch', () => {
  const shard = oneBatchShard(8192);
  const terms = 2000;
  const plan = planQuery(longChain(terms), tables).scan;
  const layout = layoutOf(plan, schema);

  it('an abort during the chain stops it: the counter of rows evaluated stops growing', async () => {
    const ctl = new AbortController();
    let evaluated = 0;
    const stopAt = 50 * 8192;
    const scan = scanShard(shard, plan, layout, ctl.signal, {
      onEvaluated: (rows) => {
        evaluated += rows;
        // The abort lands in the middle of the only batch.
        if (evaluated >= stopAt && !ctl.signal.aborted) ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'parent gone'));
      },
    });
    const err = await rejection(scan);
    expect(err.code).toBe('CANOPY_ERR_CANCELLED');
    const atStop = evaluated;
    expect(atStop).toBeLessThanOrEqual(stopAt + 8192);
    expect(atStop).toBeLessThan(terms * 8192);
    // Nothing keeps evaluating after the scan gave up.
    await new Promise((r) => setImmediate(r));
    expect(evaluated).toBe(atStop);
  });

  it('an abort from the event loop (a timer, as when the parent goes away) is seen in the middle of a batch', async () => {
    const ctl = new AbortController();
    let evaluated = 0;
    setTimeout(() => ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'parent gone')), 0);
    const err = await rejection(scanShard(oneBatchShard(8192), planQuery(longChain(7000), tables).scan, layout, ctl.signal, { onEvaluated: (rows) => (evaluated += rows) }));
    expect(err.code).toBe('CANOPY_ERR_CANCELLED');
    expect(evaluated).toBeLessThan(7000 * 8192);
  });

  it('the deadline on the clock stops a batch that runs no timers', async () => {
    let t = 0;
    let evaluated = 0;
    const err = await rejection(
      scanShard(shard, plan, layout, new AbortController().signal, {
        now: () => t,
        deadlineAt: 100,
        onEvaluated: (rows) => {
          evaluated += rows;
          t += 1; // one virtual ms per operand
        },
      }),
    );
    expect(err.code).toBe('CANOPY_ERR_DEADLINE');
    expect(evaluated).toBe(101 * 8192);
  });

  it('a leaf turns a scan past its deadline into an omitted shard, with the counter stopped', async () => {
    let t = 0;
    // A virtual clock that moves 1 ms each time it is read: the 900 ms deadline passes mid-batch.
    const leaf = createLeaf('leaf-0', [shard], { clock: clockWithNow(() => (t += 1)) });
    const req = { queryId: 'q', schema, plan, shards: [0], budgetMs: 1000 };
    const frame = (await leaf.handler(req, new AbortController().signal)[Symbol.asyncIterator]().next()).value as Frame;
    expect(frame.provenance).toEqual([{ shard: 0, status: 'omitted', path: 'leaf-0', error: expect.objectContaining({ code: 'CANOPY_ERR_DEADLINE' }) }]);
    expect(leaf.counters.rowsEvaluated).toBeLessThan(terms * 8192);
    expect(leaf.counters.cancelled).toBe(1);
  });
});

describe('equality chains folded into IN', () => {
  const shard = oneBatchShard(3000);
  const count = async (sql: string): Promise<unknown> => {
    const plan = planQuery(sql, tables).scan;
    const layout = layoutOf(plan, schema);
    const p = (await scanShard(shard, plan, layout, new AbortController().signal)).partial;
    return p.type === 'columnar' ? p.states[0]![0] : null;
  };

  it('OR of = and AND of <> give what IN and NOT IN give (and the rows they select)', async () => {
    const values = [0, 5, 17, 2999, 4000, -3];
    const or = values.map((v) => `i = ${v}`).join(' OR ');
    expect(await count(`SELECT count(*) FROM t WHERE ${or}`)).toBe(4);
    expect(await count(`SELECT count(*) FROM t WHERE i IN (${values.join(', ')})`)).toBe(4);
    const and = values.map((v) => `i <> ${v}`).join(' AND ');
    expect(await count(`SELECT count(*) FROM t WHERE ${and}`)).toBe(2996);
    // Mixed operands keep their meaning: strings fold per column, other terms stay.
    expect(await count(`SELECT count(*) FROM t WHERE g = 'a' OR g = 'b' OR i = 2 OR f > 1498`)).toBe(2000 + 1 + 1);
  });
  it('IN lists of int64 literals travel as numbers when exact (same rows); others are kept', async () => {
    const typeOf = (c: string) => schema.columns.find((x) => x.name === c)?.type;
    const filter = planQuery('SELECT count(*) FROM t WHERE i IN (0, 5, 17, NULL, 2999, 4000)', tables).scan.filter!;
    const folded = foldEqualityChains(filter, typeOf);
    expect(folded).toMatchObject({ kind: 'in', values: [0, 5, 17, null, 2999, 4000] });
    const run = async (f: typeof filter): Promise<unknown> => {
      const plan = { ...planQuery('SELECT count(*) FROM t', tables).scan, filter: f };
      const p = (await scanShard(shard, plan, layoutOf(plan, schema), new AbortController().signal)).partial;
      return p.type === 'columnar' ? p.states[0]![0] : null;
    };
    expect(await run(folded)).toBe(await run(filter));
    expect(await run(folded)).toBe(4);
    // Beyond 2^53 a double is not exact: the list is left with its bigints.
    const big = planQuery('SELECT count(*) FROM t WHERE i IN (1, 9007199254740993)', tables).scan.filter!;
    expect(foldEqualityChains(big, typeOf)).toEqual(big);
    // NOT IN inside a chain is rewritten too.
    const inside = foldEqualityChains(planQuery('SELECT count(*) FROM t WHERE f > 1 AND i NOT IN (3, 4)', tables).scan.filter!, typeOf);
    expect(inside).toMatchObject({ kind: 'and', args: [expect.anything(), { kind: 'in', negated: true, values: [3, 4] }] });
  });
});

describe('memory budgets', () => {
  it('defaults come from the heap limit; overrides in MB; bad values are refused', () => {
    expect(memoryBudgets(4e9)).toEqual({ processBytes: Math.floor(4e9 * 0.25), queryBytes: Math.floor(Math.floor(4e9 * 0.25) * 0.5) });
    expect(memoryBudgets(4e9, '100', '10')).toEqual({ processBytes: 100 * 1024 * 1024, queryBytes: 10 * 1024 * 1024 });
    expect(() => memoryBudgets(4e9, 'lots')).toThrow(/CANOPY_PROCESS_MEMORY_MB/);
  });

  it('a query past its budget is refused while it scans, and another query on the same pool completes', async () => {
    const rows: Scalar[][] = [];
    for (let r = 0; r < 8192; r++) rows.push([`g${r}`, BigInt(r), r, r]);
    const [table] = shardsFromRows(schema, [rows]);
    const shard = prepareShard(0, table!, schema);
    const pool = new MemoryPool(64 * 1024 * 1024);
    const leaf = createLeaf('leaf-0', [shard], { memory: { pool, queryBytes: 256 * 1024 } });
    const ask = async (sql: string): Promise<Frame> => {
      const plan = planQuery(sql, tables).scan;
      let last: Frame | undefined;
      for await (const f of leaf.handler({ queryId: sql, schema, plan, shards: [0], budgetMs: 30_000 }, new AbortController().signal)) last = f;
      return last!;
    };
    const [big, small] = await Promise.all([ask('SELECT i, f, count(*) FROM t GROUP BY i, f'), ask('SELECT g, count(*) FROM t WHERE i < 100 GROUP BY g')]);
    expect(big.provenance[0]).toMatchObject({ status: 'failed', error: { code: 'CANOPY_ERR_LIMIT' } });
    expect(big.provenance[0]!.error!.message).toMatch(/memory budget at leaf-0 \(group state/);
    expect(small.provenance[0]).toMatchObject({ status: 'answered' });
    expect(small.partial.type === 'columnar' ? small.partial.size : -1).toBe(100);
    expect(pool.usedBytes).toBe(0); // everything given back
  });

  it('the merge charges new groups and refuses past the budget while merging; the pool is shared', () => {
    const plan = planQuery('SELECT i, count(*) FROM t GROUP BY i', tables).scan;
    const layout = layoutOf(plan, schema);
    const MB = 1024 * 1024;
    const pool = new MemoryPool(6 * MB);
    const mem = new QueryMemory(pool, 4 * MB, 'agg-0');
    const acc = new PartialAccumulator(layout, { charge: (b) => mem.charge(b, 'group state') });
    const keys = Array.from({ length: 20_000 }, (_, k) => BigInt(k));
    expect(() => acc.add({ type: 'columnar', size: keys.length, keys: [keys], states: [keys.map(() => 1)] })).toThrow(/memory budget at agg-0 \(group state/);
    expect(acc.size).toBeLessThan(keys.length);
    expect(mem.heldBytes).toBeGreaterThan(2 * MB);
    const other = new QueryMemory(pool, 4 * MB, 'agg-0');
    expect(() => other.charge(3 * MB, 'child replies')).toThrow(/process's 6 MB memory budget is used up by the queries in progress/);
    mem.release();
    expect(() => other.charge(3 * MB, 'child replies')).not.toThrow();
  });
});

describe('scan lanes', () => {
  it('heavy scans take turns, light scans never wait, a waiter leaves on abort', async () => {
    const lanes = new ScanLanes(1);
    const never = new AbortController().signal;
    const releaseA = await lanes.acquire(true, never);
    let bGot = false;
    const b = lanes.acquire(true, never).then((r) => {
      bGot = true;
      return r;
    });
    const gone = new AbortController();
    const c = lanes.acquire(true, gone.signal);
    const light = await lanes.acquire(false, never); // passes while both heavy ones wait
    light();
    await new Promise((r) => setImmediate(r));
    expect(bGot).toBe(false);
    gone.abort(new CanopyError('CANOPY_ERR_DEADLINE', 'deadline passed in the lane'));
    await expect(c).rejects.toMatchObject({ code: 'CANOPY_ERR_DEADLINE' });
    releaseA();
    const releaseB = await b;
    expect(lanes.heavyRunning).toBe(1);
    releaseB();
    expect(lanes.heavyRunning).toBe(0);
  });

  it('estimates: long filters and three or more group keys are heavy; a probe is light', () => {
    const heavy = (sql: string): boolean => isHeavyScan(planQuery(sql, tables).scan);
    expect(heavy('SELECT count(*) FROM t')).toBe(false);
    expect(heavy('SELECT g, count(*) FROM t GROUP BY g')).toBe(false);
    expect(heavy('SELECT g, i, f, count(*) FROM t GROUP BY g, i, f')).toBe(true);
    expect(heavy(longChain(100))).toBe(true);
  });
});

describe('gather: cutoff, limits and memory', () => {
  const plan = planQuery('SELECT i, count(*) FROM t GROUP BY i', tables).scan;
  const groups = (from: number, n: number): Frame => ({
    partial: { type: 'columnar', size: n, keys: [Array.from({ length: n }, (_, k) => BigInt(from + k))], states: [Array.from({ length: n }, () => 1)] },
    provenance: [{ shard: from === 0 ? 0 : 1, status: 'answered', path: `leaf-${from === 0 ? 0 : 1}`, rowsScanned: n }],
    rowsScanned: n,
  });
  const answering = (shard: number, frame: Frame) => inProcessChild(`leaf-${shard}`, [shard], async function* () {
    yield frame;
  });
  const hanging = (shard: number) => inProcessChild(`leaf-${shard}`, [shard], async function* (_req, signal) {
    await new Promise((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
    yield* [] as Frame[];
  });

  it('the cutoff moves earlier with the groups held: a hung child is given up before its budget, the answered one kept', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    try {
      let t = 0;
      const now = (): number => t;
      const req = { queryId: 'q', schema, plan, shards: [0, 1], budgetMs: 1000 };
      // 900 ms for the children; 5,000 groups held at 0.1 ms each move the cutoff to 400 ms.
      const p = gather([answering(0, groups(0, 5000)), hanging(1)], req, new AbortController().signal, { self: 'agg-0', clock: clockWithNow(now), reserveMs: 100, workMs: (g) => g * 0.1 });
      await vi.advanceTimersByTimeAsync(399);
      t = 399;
      let done = false;
      void p.then(() => (done = true));
      await vi.advanceTimersByTimeAsync(0);
      expect(done).toBe(false);
      t = 401;
      await vi.advanceTimersByTimeAsync(2);
      const r = await p;
      expect(r.provenance.map((e) => [e.shard, e.status])).toEqual([
        [0, 'answered'],
        [1, 'omitted'],
      ]);
      expect(r.provenance[1]!.error!.message).toMatch(/did not answer in time for agg-0 to merge and reply/);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a budget under 10 ms is named to a tenth of a ms in the omission message (a 0.4 ms budget is not "0 ms")', async () => {
    const req = { queryId: 'q', schema, plan, shards: [1], budgetMs: 0.9 };
    const r = await gather([hanging(1)], req, new AbortController().signal, { self: 'agg-0', reserveMs: 0.5 });
    expect(r.provenance).toMatchObject([{ shard: 1, status: 'omitted', error: { code: 'CANOPY_ERR_DEADLINE' } }]);
    expect(r.provenance[0]!.error!.message).toBe('leaf-1 did not answer within its 0.4 ms budget');
  });

  it("a node's memory budget refuses the query in its merge and stops its gather; another gather on the pool completes", async () => {
    const pool = new MemoryPool(64 * 1024 * 1024);
    const memory = { pool, queryBytes: 2 * 1024 * 1024 };
    const req = { queryId: 'q', schema, plan, shards: [0, 1], budgetMs: 30_000 };
    const [big, small] = await Promise.all([
      gather([answering(0, groups(0, 20_000)), hanging(1)], req, new AbortController().signal, { self: 'agg-0', memory }),
      gather([answering(0, groups(0, 100)), answering(1, groups(100, 100))], req, new AbortController().signal, { self: 'agg-1', memory }),
    ]);
    expect(big.provenance.find((e) => e.shard === 0)).toMatchObject({ status: 'failed', error: { code: 'CANOPY_ERR_LIMIT' } });
    expect(big.provenance.find((e) => e.shard === 0)!.error!.message).toMatch(/memory budget at agg-0 \(group state/);
    // The hung child was stopped at once by the refusal, not waited for until its budget.
    expect(big.provenance.find((e) => e.shard === 1)).toMatchObject({ status: 'omitted', error: { code: 'CANOPY_ERR_CANCELLED' } });
    expect(small.provenance.every((e) => e.status === 'answered')).toBe(true);
    expect(pool.usedBytes).toBe(0);
  });
});

describe('string results are capped (MAX_STRING_LENGTH)', () => {
  const shard = oneBatchShard(300);
  const scan = async (sql: string): Promise<Frame['partial']> => {
    const plan = planQuery(sql, tables).scan;
    return (await scanShard(shard, plan, layoutOf(plan, schema), new AbortController().signal)).partial;
  };
  const a1100 = 'a'.repeat(1100);

  it('lpad/rpad past the cap are refused before the string is built (lpad(s, 1e9) had exhausted the leaf processes)', async () => {
    for (const sql of ["SELECT lpad(g, 1000000000, 'x') AS p, count(*) FROM t GROUP BY p", `SELECT max(rpad(g, ${MAX_STRING_LENGTH + 1}, 'xy')) FROM t`]) {
      const err = await rejection(scan(sql));
      expect(err.code).toBe('CANOPY_ERR_OUT_OF_RANGE');
      expect(err.message).toMatch(new RegExp(`(lpad|rpad) would make a string of \\d+ characters; canopy's strings hold at most ${MAX_STRING_LENGTH}`));
    }
    // At the cap itself (non-BMP fill counts two characters per code point).
    expect(callFn('lpad', ['a', BigInt(MAX_STRING_LENGTH), 'x'], 'string')).toHaveLength(MAX_STRING_LENGTH);
    expect(() => callFn('rpad', ['a', BigInt(MAX_STRING_LENGTH / 2 + 1), '𝄞'], 'string')).toThrow(/would make a string of 1048577 characters/);
    expect(callFn('rpad', ['a', 4n, '𝄞'], 'string')).toBe('a𝄞𝄞𝄞');
  });

  it('nested replace() and concatenation past the cap are refused; below it they answer', async () => {
    const err = await rejection(scan(`SELECT max(replace(replace(g, 'a', '${a1100}'), 'a', '${a1100}')) FROM t`));
    expect(err.message).toMatch(/replace would make a string of 1210000 characters/);
    expect(() => callFn('concat_op', ['x'.repeat(MAX_STRING_LENGTH), 'y'], 'string')).toThrow(/\|\| would make a string of 1048577/);
    expect(() => callFn('concat_ws', ['-', 'x'.repeat(MAX_STRING_LENGTH), 'y'], 'string')).toThrow(/concat_ws would make a string of 1048578/);
    const ok = await scan(`SELECT max(length(replace(g, 'a', '${a1100}'))) AS n FROM t`);
    expect(ok.type).toBe('columnar');
  });

  it('a row the query does not keep is not refused (the per-row path, as sqrt of a negative)', async () => {
    const ok = await scan("SELECT count(*) FROM t WHERE g = 'a' AND length(CASE WHEN g = 'b' THEN lpad(g, 2000000, 'x') END) > 0");
    expect(ok.type).toBe('columnar');
  });
});

describe('computed strings are counted per batch and per answer (MAX_COMPUTED_STRING_CHARS)', () => {
  it('a batch of distinct long strings is refused with CANOPY_ERR_LIMIT before it fills the process', async () => {
    // 8,192 distinct rows of 1 MiB each would be 8 GiB; refused after 64 Mi characters.
    const rows: Scalar[][] = [];
    for (let r = 0; r < 8192; r++) rows.push([`g${r}`, BigInt(r), r, r]);
    const [table] = shardsFromRows(schema, [rows]);
    const shard = prepareShard(3, table!, schema);
    for (const sql of [`SELECT max(lpad(g, ${MAX_STRING_LENGTH}, 'x')) FROM t`, `SELECT max(lpad(CAST(i AS VARCHAR), ${MAX_STRING_LENGTH}, 'x')) FROM t`]) {
      const plan = planQuery(sql, tables).scan;
      const err = await rejection(scanShard(shard, plan, layoutOf(plan, schema), new AbortController().signal));
      expect(err.code).toBe('CANOPY_ERR_LIMIT');
      expect(err.message).toMatch(new RegExp(`strings computed for batch 0 of shard 3 pass ${MAX_COMPUTED_STRING_CHARS} characters`));
    }
  });

  it("the root's post-aggregation strings are counted; group keys are not", async () => {
    const rows: Scalar[][] = [];
    for (let r = 0; r < 100; r++) rows.push([`k${r}`, BigInt(r), r, r]);
    const [table] = shardsFromRows(schema, [rows]);
    const shard = prepareShard(0, table!, schema);
    const answer = async (sql: string): Promise<() => ReturnType<typeof finalise>> => {
      const plan = planQuery(sql, tables);
      const layout = layoutOf(plan.scan, schema);
      const { partial } = await scanShard(shard, plan.scan, layout, new AbortController().signal);
      return () => finalise(plan, layout, partial);
    };
    // 100 groups x 1 MiB = 100 Mi characters computed from count(*) at the root.
    expect(await answer(`SELECT g, lpad(CAST(count(*) AS VARCHAR), ${MAX_STRING_LENGTH}, 'x') AS p FROM t GROUP BY g`)).toThrow(/strings computed for the answer pass/);
    expect((await answer(`SELECT g, lpad(CAST(count(*) AS VARCHAR), 1000, 'x') AS p FROM t GROUP BY g`))().rows).toHaveLength(100);
  });
});

/**
 * Scans `shard` on a clock that moves 10 ms a read, past a 25 ms deadline by the first check
 * inside its batch; the scan's error and the clock reads it took.
 */
async function scanPastDeadline(shard: PreparedShard, plan: ScanPlan, layout: PartialLayout): Promise<{ err: CanopyError; reads: number }> {
  let t = 0;
  let reads = 0;
  const err = await rejection(
    scanShard(shard, plan, layout, new AbortController().signal, {
      now: () => {
        reads++;
        return (t += 10);
      },
      deadlineAt: 25,
    }),
  );
  return { err, reads };
}

describe('string distances inside one batch check the deadline (WORK_CHECK_STEPS)', () => {
  // 40 rows, each a levenshtein of two 3,000-byte strings (9M steps, under the per-call bound):
  // 360M steps in one batch, which the checks between batches would not interrupt.
  const shard = oneBatchShard(40);
  const plan = planQuery("SELECT count(*) FROM t WHERE levenshtein(repeat(g, 3000), repeat('x', 3000)) < 5", tables).scan;
  const layout = layoutOf(plan, schema);

  it('a scan past its deadline stops within a few calls, not at the end of the batch', async () => {
    const { err, reads } = await scanPastDeadline(shard, plan, layout);
    expect(err.code).toBe('CANOPY_ERR_DEADLINE');
    expect(reads).toBeLessThan(10);
    // The check went with the scan: evaluation elsewhere afterwards is not charged to it.
    for (let k = 0; k < 4; k++) expect(callFn('levenshtein', ['a'.repeat(3000), 'b'.repeat(3000)], 'int64')).toBe(3000n);
  });

  it('a scan within its deadline answers', async () => {
    const small = oneBatchShard(4);
    const s = await scanShard(small, plan, layout, new AbortController().signal, { deadlineAt: Infinity });
    expect(finalise(planQuery("SELECT count(*) FROM t WHERE levenshtein(repeat(g, 3000), repeat('x', 3000)) < 5", tables), layout, s.partial).rows).toEqual([[0n]]);
  });
});

describe('regexp_replace inside one batch checks the deadline (WORK_CHECK_STEPS)', () => {
  // 40 rows, each a global regexp_replace over a 300,000-character string (300,000 matches,
  // about a second of re2js work per row): one batch the checks between batches would not
  // interrupt (hunt 22: a 1,000 ms query ran 16 s).
  const shard = oneBatchShard(40);
  const sql = "SELECT count(*) FROM t WHERE regexp_replace(repeat(g, 300000), '[a-c]', 'x', 'g') = ''";
  const plan = planQuery(sql, tables).scan;
  const layout = layoutOf(plan, schema);

  it('a scan past its deadline stops within a few calls, not at the end of the batch', async () => {
    const started = performance.now();
    const { err, reads } = await scanPastDeadline(shard, plan, layout);
    expect(err.code).toBe('CANOPY_ERR_DEADLINE');
    expect(reads).toBeLessThan(10);
    // Stopped within the first rows, not after 40 of them.
    expect(performance.now() - started).toBeLessThan(8000);
  }, 60_000);

  it('a scan within its deadline answers', async () => {
    const small = oneBatchShard(2);
    const s = await scanShard(small, plan, layout, new AbortController().signal, { deadlineAt: Infinity });
    expect(finalise(planQuery(sql, tables), layout, s.partial).rows).toEqual([[0n]]);
  }, 60_000);
});
