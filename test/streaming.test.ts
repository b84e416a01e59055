/**
 * Progressive answers: with one shard slowed (fake timers), the stream delivers a snapshot
 * before the slow shard answers; every interval in every snapshot holds the final truth;
 * intervals never widen; the last snapshot is final and equals the non-streamed answer.
 * Also the HTTP formats: NDJSON, SSE, Arrow (read back with RecordBatchReader), 406.
 */
import { RecordBatchReader } from 'apache-arrow';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { compareSql, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { buildRootApp, type QueryAnswer } from '../src/root/index.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'x', type: 'int64' }] };
const shards: Scalar[][][] = Array.from({ length: 8 }, (_, s) => Array.from({ length: 20 }, (_, i) => [['a', 'b', 'c'][(i + s) % 3]!, BigInt(i * s - 30)]));

function slowShard(slow: number, ms: number) {
  return (leaf: { handler: Parameters<typeof withFaults>[0]; shards: readonly number[] }) =>
    leaf.shards.includes(slow) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [slow], latency: { kind: 'fixed', ms } }] }) : leaf.handler;
}

function within(cell: { lo?: Scalar; hi?: Scalar }, v: Scalar): boolean {
  return v !== null && (cell.lo == null || compareSql('<=', cell.lo, v) === true) && (cell.hi == null || compareSql('>=', cell.hi, v) === true);
}

afterEach(() => {
  vi.useRealTimers();
});

describe('progressive snapshots', () => {
  for (const sql of ['SELECT count(*), sum(x), min(x), max(x), avg(x) FROM t', 'SELECT g, count(*), sum(x), min(x) FROM t GROUP BY g ORDER BY g']) {
    it(`narrow to the final answer: ${sql}`, async () => {
      vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
      const { root } = inProcessRoot(schema, shards, { fanout: 3, wrap: slowShard(5, 1000) });
      const snaps: QueryAnswer[] = [];
      const pending = root.query({ sql }, new AbortController().signal, (a) => snaps.push(a), 10);
      await vi.advanceTimersByTimeAsync(200);
      // A first snapshot arrived before the slow shard answered.
      expect(snaps.length).toBeGreaterThan(0);
      expect(snaps[0]!.final).toBe(false);
      expect(snaps[0]!.missing.some((m) => m.shard === 5 && m.reason === 'pending')).toBe(true);
      await vi.advanceTimersByTimeAsync(2000);
      const final = await pending;
      expect(final.final).toBe(true);
      expect(final.label).toBe('exact');
      const { root: plain } = inProcessRoot(schema, shards, { fanout: 3 });
      const unstreamed = await plain.query({ sql }, new AbortController().signal);
      expect(final.rows).toEqual(unstreamed.rows);
      // Every interval holds the truth, and no interval widens from one snapshot to the next.
      const truth = new Map(final.rows.map((r) => [String(r[0]), r]));
      const prev = new Map<string, { lo?: Scalar; hi?: Scalar }>();
      for (const s of snaps) {
        s.rows.forEach((r, i) => {
          const t = sql.includes('GROUP BY') ? truth.get(String(r[0]))! : final.rows[0]!;
          r.forEach((v, j) => {
            const cell = s.cells?.[i]?.[j] ?? null;
            const key = `${sql.includes('GROUP BY') ? String(r[0]) : ''}#${j}`;
            if (cell === null) {
              if (s.rowsComplete && s.missing.length === 0) expect(v).toEqual(t[j]);
              return;
            }
            if (cell.label !== 'bounded') return;
            expect(within(cell, t[j]!)).toBe(true);
            const p = prev.get(key);
            if (p !== undefined) {
              if (p.lo != null && cell.lo != null) expect(compareSql('>=', cell.lo, p.lo)).toBe(true);
              if (p.hi != null && cell.hi != null) expect(compareSql('<=', cell.hi, p.hi)).toBe(true);
            }
            prev.set(key, cell);
          });
        });
      }
    });
  }
});

describe('answer formats over HTTP', () => {
  const sql = 'SELECT g, count(*) AS n, avg(x) AS a FROM t GROUP BY g ORDER BY g';

  it('NDJSON: snapshots, then the final answer', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const res = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/x-ndjson' }, payload: { sql } });
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toContain('application/x-ndjson');
    const lines = res.body.trim().split('\n').map((l) => JSON.parse(l) as { final: boolean; rows: unknown[] });
    expect(lines[lines.length - 1]!.final).toBe(true);
    expect(lines.slice(0, -1).every((l) => l.final === false)).toBe(true);
    expect(lines[lines.length - 1]!.rows).toHaveLength(3);
  });

  it('"stream": true gives NDJSON too; SSE events end with event: final', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const nd = await app.inject({ method: 'POST', url: '/v1/query', payload: { sql, stream: true } });
    expect(nd.headers['content-type']).toContain('application/x-ndjson');
    const sse = await app.inject({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent(sql)}`, headers: { accept: 'text/event-stream' } });
    expect(sse.statusCode).toBe(200);
    expect(sse.headers['content-type']).toContain('text/event-stream');
    const events = sse.body.trim().split('\n\n');
    expect(events[events.length - 1]).toMatch(/^event: final\ndata: \{/);
  });

  it('Arrow: the final answer, labels and bounds in the schema metadata', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const app = buildRootApp(root);
    const res = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'application/vnd.apache.arrow.stream' }, payload: { sql } });
    expect(res.statusCode).toBe(200);
    const reader = RecordBatchReader.from(new Uint8Array(res.rawPayload)).open();
    const arrowSchema = reader.schema;
    const batches = reader.readAll();
    expect(arrowSchema.fields.map((f) => f.name)).toEqual(['g', 'n', 'a']);
    expect(arrowSchema.metadata.get('canopy.label')).toBe('exact');
    expect(JSON.parse(arrowSchema.metadata.get('canopy.coverage')!)).toMatchObject({ shards: 8, answered: 8 });
    expect(batches.reduce((n, b) => n + b.numRows, 0)).toBe(3);
    expect(batches[0]!.getChild('g')!.get(0)).toBe('a');
  });

  it('an unknown Accept type gets 406 with the supported list', async () => {
    const { root } = inProcessRoot(schema, shards, { fanout: 3 });
    const res = await buildRootApp(root).inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/csv' }, payload: { sql } });
    expect(res.statusCode).toBe(406);
    expect(res.json()).toMatchObject({ error: { code: 'CANOPY_ERR_NOT_ACCEPTABLE' } });
    expect(res.json().error.message).toContain('application/x-ndjson');
  });
});
