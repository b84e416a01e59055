/**
 * The answer's top-level `warnings` (src/root/warnings.ts): pruned shards with their reason,
 * missing shards, group top-k truncation, in the engine's answer, the JSON body, Arrow and
 * Parquet metadata and the X-Canopy-Warnings header; the pruned entries' reasons. Replica
 * divergence is asserted in test/hedge.test.ts (verification sampling).
 */
import { describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import type { Scalar, TableSchema } from '../src/merge/index.ts';
import { RecordBatchReader } from 'apache-arrow';
import { parquetMetadata } from 'hyparquet';
import { answerToJSON, buildRootApp } from '../src/root/index.ts';
import { warningsHeader } from '../src/root/respond.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'g', type: 'string' }, { name: 'x', type: 'int64' }] };
const row = (g: string, x: number): Scalar[] => [g, BigInt(x)];

describe('answer warnings', () => {
  it('name the shards pruned by their zone maps and the shards missing, and travel in the JSON answer', async () => {
    // x ranges: shard 0 [1, 5], shard 1 [10, 20], shard 2 [100, 200], shard 3 [300, 400]; shard 3 fails.
    const shards = [[row('a', 1), row('b', 5)], [row('a', 10), row('b', 20)], [row('a', 100), row('c', 200)], [row('c', 300), row('a', 400)]];
    const { root } = inProcessRoot(schema, shards, { wrap: (leaf) => (leaf.shards[0] === 3 ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [3], error: 1 }] }) : leaf.handler) });
    const a = await root.query({ sql: 'SELECT count(*) FROM t WHERE x >= 100' }, new AbortController().signal);
    expect(a.coverage).toMatchObject({ pruned: 2, failed: 1, answered: 1 });
    expect(a.warnings?.map((w) => [w.code, w.shards])).toEqual([
      ['CANOPY_WARN_PRUNED', [0, 1]],
      ['CANOPY_WARN_MISSING', [3]],
    ]);
    expect(a.warnings![0]!.message).toMatch(/^2 shards: .*zone maps exclude the WHERE clause/);
    expect(answerToJSON(a).warnings).toEqual(a.warnings);
  });

  it('an exact answer over every shard has none, and the JSON answer has no warnings key', async () => {
    const { root } = inProcessRoot(schema, [[row('a', 1)], [row('b', 2)]]);
    const a = await root.query({ sql: 'SELECT g, count(*) FROM t GROUP BY g' }, new AbortController().signal);
    expect(a.label).toBe('exact');
    expect(a.warnings).toEqual([]);
    expect('warnings' in answerToJSON(a)).toBe(false);
  });

  it('group top-k whose truncated children leave the top k unproven warns, and the refinement round clears it', async () => {
    // Each shard passes up only its best group (shard_size 1): a (3) from shard 0, b (3) from shard 1;
    // either could total 5 with what the other shard dropped.
    const shards = [[row('a', 0), row('a', 0), row('a', 0), row('b', 0), row('b', 0)], [row('b', 0), row('b', 0), row('b', 0), row('a', 0), row('a', 0)]];
    const { root } = inProcessRoot(schema, shards);
    const sql = 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 1';
    const truncated = await root.query({ sql, shard_size: 1 }, new AbortController().signal);
    expect(truncated.label).not.toBe('exact');
    expect(truncated.warnings?.map((w) => w.code)).toEqual(['CANOPY_WARN_TOPK_TRUNCATED']);
    // The header names a warning that concerns no shard by its code alone (no `shards=0`).
    expect(warningsHeader(truncated)).toBe('CANOPY_WARN_TOPK_TRUNCATED');
    const refined = await root.query({ sql, shard_size: 1, exact: true }, new AbortController().signal);
    expect(refined.label).toBe('exact');
    expect(refined.warnings).toEqual([]);
  });

  it('pruned provenance entries carry the reason: the excluding conjunct and the zone maps it reads', async () => {
    const shards = [[row('a', 1), row('b', 5)], [row('a', 10), row('b', 20)], [], [row('c', 300), row('a', 400)]];
    const { root } = inProcessRoot(schema, shards);
    const a = await root.query({ sql: "SELECT count(*) FROM t WHERE g <> 'zz' AND x BETWEEN 8 AND 25" }, new AbortController().signal);
    expect(a.rows).toEqual([[2n]]);
    const reasons = a.provenance.filter((p) => p.status === 'pruned').map((p) => [p.shard, p.reason]);
    expect(reasons).toEqual([
      [0, 'zone map excludes WHERE conjunct 2 of 2: x in [1, 5], 0 of 2 rows NULL'],
      [2, 'the shard has no rows'],
      [3, 'zone map excludes WHERE conjunct 2 of 2: x in [300, 400], 0 of 2 rows NULL'],
    ]);
    // The JSON trace carries it too.
    const traced = answerToJSON(await root.query({ sql: 'SELECT count(*) FROM t WHERE x > 350', trace: true }, new AbortController().signal));
    expect(traced.trace?.provenance.filter((p) => p.status === 'pruned').map((p) => p.reason)).toEqual(['zone map excludes the WHERE clause: x in [1, 5], 0 of 2 rows NULL', 'zone map excludes the WHERE clause: x in [10, 20], 0 of 2 rows NULL', 'the shard has no rows']);
  });

  it('Arrow and Parquet answers carry the warnings in their metadata, CSV (and every format) in X-Canopy-Warnings', async () => {
    const shards = [[row('a', 1), row('b', 5)], [row('a', 10), row('b', 20)], [row('a', 100), row('c', 200)]];
    const { root } = inProcessRoot(schema, shards);
    const app = buildRootApp(root);
    try {
      const ask = (accept: string) => app.inject({ method: 'POST', url: '/v1/query', headers: { accept, 'content-type': 'application/json' }, payload: { sql: 'SELECT count(*) FROM t WHERE x >= 100' } });
      const json = (await ask('application/json')).json() as { warnings: unknown[] };
      expect(json.warnings).toEqual([expect.objectContaining({ code: 'CANOPY_WARN_PRUNED', shards: [0, 1] })]);
      const arrow = await ask('application/vnd.apache.arrow.stream');
      const reader = RecordBatchReader.from(arrow.rawPayload).open();
      expect(JSON.parse(reader.schema.metadata.get('canopy.warnings')!)).toEqual(json.warnings);
      const parquet = await ask('application/vnd.apache.parquet');
      const kv = new Map(parquetMetadata(new Uint8Array(parquet.rawPayload)).key_value_metadata?.map((e) => [e.key, e.value]));
      expect(JSON.parse(kv.get('canopy.warnings')!)).toEqual(json.warnings);
      const csv = await ask('text/csv');
      expect(csv.headers['x-canopy-warnings']).toBe('CANOPY_WARN_PRUNED;shards=2');
      expect(arrow.headers['x-canopy-warnings']).toBe('CANOPY_WARN_PRUNED;shards=2');
      // An answer without warnings has no header, and empty metadata lists.
      const clean = await app.inject({ method: 'POST', url: '/v1/query', headers: { accept: 'text/csv', 'content-type': 'application/json' }, payload: { sql: 'SELECT count(*) FROM t' } });
      expect(clean.headers['x-canopy-warnings']).toBeUndefined();
    } finally {
      await app.close();
    }
  });
});

describe('exact: true not reached', () => {
  it('the truncation warning says why instead of asking for exact: true; other warnings are kept', async () => {
    const { answerWarnings, exactNotReached } = await import('../src/root/warnings.ts');
    const base = answerWarnings([{ shard: 3, status: 'failed', path: 'root/leaf-3', error: { code: 'CANOPY_ERR_CHILD_FAILED', message: 'x' } }], true);
    expect(base.map((w) => w.code)).toEqual(['CANOPY_WARN_MISSING', 'CANOPY_WARN_TOPK_TRUNCATED']);
    expect(base[1]!.message).toMatch(/ask with "exact": true/);
    const missing = exactNotReached(base, true);
    expect(missing[0]).toEqual(base[0]);
    expect(missing[1]!.message).toMatch(/"exact": true was asked, but shards are missing/);
    expect(exactNotReached(base, false)[1]!.message).toMatch(/did not complete within the deadline; raise deadline_ms/);
  });
});
