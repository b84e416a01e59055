/**
 * Streams never take back what they showed (issue 12): over random trees (depth 2 or more, so
 * aggregators stream merged updates), with hung shards and slow ones, replicas with hedged
 * requests, and deadlines that cut the gather short, every NDJSON stream of snapshots has
 * answered counts that never decrease, shards that once counted as answered stay answered,
 * and a final answer whose values lie in every interval any snapshot gave (and equal every
 * value a snapshot called exact). Fake timers: no real sleeps.
 */
import fc from 'fast-check';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { TailControl } from '../src/aggregator/index.ts';
import { withFaults } from '../src/leaf/index.ts';
import { compareSql, type Frame, type Scalar, type TableSchema } from '../src/merge/index.ts';
import type { ChildRequest, NodeHandler } from '../src/transport/index.ts';
import { dateClock } from './helpers/clock.ts';
import type { QueryAnswer } from '../src/root/index.ts';
import { replicatedRoot } from './helpers/replicated-tree.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'x', type: 'int64' }] };

const QUERIES = [
  { sql: 'SELECT count(*) AS n, sum(x) AS s, min(x) AS lo, max(x) AS hi, avg(x) AS a FROM t', grouped: false },
  { sql: 'SELECT g, count(*) AS n, sum(x) AS s, max(x) AS hi FROM t GROUP BY g ORDER BY g', grouped: true },
  { sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', grouped: true },
  { sql: 'SELECT g, max(x) AS m FROM t GROUP BY g ORDER BY m DESC LIMIT 2', grouped: true },
  { sql: 'SELECT x FROM t ORDER BY x DESC LIMIT 3', grouped: false },
] as const;

/**
 * A shard's behaviour: answers at once, after a delay (ms), hangs (until cancelled), or
 * stalls: streams its whole answer as a progressive update and then never sends the final
 * frame, as a subtree does whose reply is lost after it reported progress.
 */
const behaviour = fc.oneof(
  fc.constant({ kind: 'ok' as const }),
  fc.integer({ min: 20, max: 1500 }).map((ms) => ({ kind: 'slow' as const, ms })),
  fc.constant({ kind: 'hang' as const }),
  fc.constant({ kind: 'stall' as const }),
);

/** A handler that sends everything it has as updates (`final: false`), then hangs until cancelled. */
function stalling(handler: NodeHandler): NodeHandler {
  return async function* stall(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    for await (const f of handler(req, signal)) yield { ...f, final: false };
    await new Promise<never>((_, reject) => signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true }));
  };
}

const scenarios = fc.record({
  shards: fc.integer({ min: 5, max: 16 }),
  fanout: fc.integer({ min: 2, max: 3 }),
  rowsPerShard: fc.integer({ min: 1, max: 12 }),
  seed: fc.nat({ max: 1000 }),
  faults: fc.array(behaviour, { minLength: 16, maxLength: 16 }),
  replicated: fc.boolean(),
  deadline: fc.integer({ min: 150, max: 2500 }),
  query: fc.nat({ max: QUERIES.length - 1 }),
});

function within(cell: { lo?: Scalar; hi?: Scalar }, v: Scalar): boolean {
  return v !== null && (cell.lo == null || compareSql('<=', cell.lo, v) === true) && (cell.hi == null || compareSql('>=', cell.hi, v) === true);
}

/** Shards a snapshot counts as done with an answer (answered or pruned): all shards not missing. */
function settledOk(a: QueryAnswer): Set<number> {
  const missing = new Set(a.missing.map((m) => m.shard));
  return new Set(Array.from({ length: a.coverage.shards }, (_, i) => i).filter((i) => !missing.has(i)));
}

afterEach(() => {
  vi.useRealTimers();
});

describe('progressive answers never take back what they showed', () => {
  it('hangs, slow shards, hedged replicas and deadlines: answered counts never decrease; the final answer lies in every snapshot interval', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
    let snapshotsChecked = 0;
    let intervalsChecked = 0;
    await fc.assert(
      fc.asyncProperty(scenarios, async (sc) => {
        const rows: Scalar[][][] = Array.from({ length: sc.shards }, (_, s) =>
          Array.from({ length: sc.rowsPerShard }, (_, i) => [['a', 'b', 'c', 'd'][(i * 7 + s * 3 + sc.seed) % 4]!, BigInt(((i + 1) * (s + 3) * 31 + sc.seed) % 97) - 20n]),
        );
        const fault = (shard: number) => sc.faults[shard % sc.faults.length]!;
        const wrapped = (handler: NodeHandler, shards: readonly number[], b: ReturnType<typeof fault>): NodeHandler =>
          b.kind === 'ok' ? handler : b.kind === 'stall' ? stalling(handler) : withFaults(handler, shards, { rules: [b.kind === 'hang' ? { shards: 'all', hang: 1 } : { shards: 'all', latency: { kind: 'fixed', ms: b.ms } }] });
        const { root } = sc.replicated
          ? replicatedRoot(schema, rows, {
              replicas: 2,
              fanout: sc.fanout,
              tail: new TailControl({ clock: dateClock, random: () => 0.5, hedge: {} }),
              // Only the first replica misbehaves: hedging to the second can rescue the shard.
              wrap: (leaf, placement, shard) => (placement.index === 0 ? wrapped(leaf.handler, leaf.shards, fault(shard)) : leaf.handler),
              clock: dateClock,
            })
          : inProcessRoot(schema, rows, { fanout: sc.fanout, wrap: (leaf) => wrapped(leaf.handler, leaf.shards, fault(leaf.shards[0]!)) });
        const q = QUERIES[sc.query]!;
        const snaps: QueryAnswer[] = [];
        const pending = root.query({ sql: q.sql, deadline_ms: sc.deadline }, new AbortController().signal, (a) => snaps.push(a), 10).then(
          (a) => a,
          (e: unknown) => e as Error,
        );
        await vi.advanceTimersByTimeAsync(sc.deadline + 1000);
        const final = await pending;
        if (final instanceof Error) {
          expect((final as { code?: string }).code).toBe('CANOPY_ERR_NO_COVERAGE');
          return;
        }
        expect(final.final).toBe(true);
        const stream = [...snaps, final];
        for (let k = 1; k < stream.length; k++) {
          const before = stream[k - 1]!;
          const after = stream[k]!;
          expect(after.coverage.answered, `answered went from ${before.coverage.answered} to ${after.coverage.answered} at line ${k + 1}`).toBeGreaterThanOrEqual(before.coverage.answered);
          const kept = settledOk(after);
          for (const s of settledOk(before)) expect(kept.has(s), `shard ${s} was answered at line ${k}, missing at line ${k + 1}`).toBe(true);
        }
        if (q.sql.includes('ORDER BY x')) return; // row query: coverage only
        const keyOf = (r: readonly Scalar[]): string => (q.grouped ? String(r[0]) : '');
        const finalRows = new Map(final.rows.map((r) => [keyOf(r), r]));
        for (const s of snaps) {
          snapshotsChecked++;
          s.rows.forEach((r, i) => {
            const f = finalRows.get(keyOf(r));
            if (f === undefined) return; // a group the final LIMIT left out
            r.forEach((v, j) => {
              if (q.grouped && j === 0) return;
              const cell = s.cells?.[i]?.[j] ?? null;
              if (cell === null) {
                // The snapshot called this value exact: the final answer must agree.
                expect(f[j], `${q.sql}: exact cell ${keyOf(r)}#${j} in a snapshot`).toEqual(v);
                return;
              }
              if (cell.label !== 'bounded') return;
              intervalsChecked++;
              expect(within(cell, f[j]!), `${q.sql}: final ${String(f[j])} outside snapshot [${String(cell.lo)}, ${String(cell.hi)}] for ${keyOf(r)}#${j}`).toBe(true);
            });
          });
        }
      }),
      { numRuns: 30, seed: 12 },
    );
    expect(snapshotsChecked).toBeGreaterThan(0);
    expect(intervalsChecked).toBeGreaterThan(0);
  }, 120_000);
});

describe('early termination keeps what a stalled subtree showed', () => {
  it('LIMIT without ORDER BY and ORDER BY ... NULLS FIRST over leaves that stall after their update: answered counts never decrease', async () => {
    // Every leaf streams its whole answer as an update and never sends the final frame; the
    // gather then stops early. The shards an update settled (shown as answered) were counted
    // pruned instead: 6 answered in a snapshot, 3 in the answer.
    for (const [sql, fanout, n] of [['SELECT x FROM t LIMIT 5', 5, 6], ['SELECT x FROM t ORDER BY x NULLS FIRST LIMIT 2', 2, 4]] as const) {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'Date'] });
      const shards: Scalar[][][] = Array.from({ length: n }, (_, k) => [['a', BigInt(k)], ['b', BigInt(k + 10)]]);
      const { root } = inProcessRoot(schema, shards, { fanout, clock: dateClock, wrap: (leaf) => stalling(leaf.handler) });
      const snaps: QueryAnswer[] = [];
      const pending = root.query({ sql, deadline_ms: 1000 }, new AbortController().signal, (a) => snaps.push(a), 10);
      await vi.advanceTimersByTimeAsync(3000);
      const final = await pending;
      vi.useRealTimers();
      const stream = [...snaps, final];
      expect(snaps.length).toBeGreaterThan(0);
      for (let k = 1; k < stream.length; k++) expect(stream[k]!.coverage.answered, `${sql}: line ${k + 1} of ${stream.map((a) => a.coverage.answered).join(', ')}`).toBeGreaterThanOrEqual(stream[k - 1]!.coverage.answered);
    }
  });
});

