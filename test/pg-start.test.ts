/**
 * The PostgreSQL protocol as `npm start` wires it: a local tree of separate processes
 * (startLocalTree, as start.ts calls it) with `pgPort: 0` serves the root over the wire from
 * the root's own process, sharing its engine with the HTTP API; with a token it requires it.
 * Small data (the CSV directory fixture), so it takes seconds.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startLocalTree, type LocalTree } from '../src/cli/local-tree.ts';

let tree: LocalTree;
let cache = '';

beforeAll(async () => {
  cache = mkdtempSync(join(tmpdir(), 'canopy-pg-start-'));
  tree = await startLocalTree({ data: resolve('test/fixtures/data/csv-dir'), table: 'flights', shards: 4, partition: { kind: 'hash' }, fanout: 2, port: 0, pgPort: 0, apiToken: 'tok', cacheDir: cache, leafProcesses: 1 });
});

afterAll(async () => {
  await tree?.close();
  if (cache !== '') rmSync(cache, { recursive: true, force: true });
});

it('serves the root over the PostgreSQL protocol, answering what the JSON API answers', async () => {
  expect(tree.pg).toMatch(/^127\.0\.0\.1:\d+$/);
  const port = Number(tree.pg!.split(':')[1]);
  const sql = 'SELECT origin, count(*) AS n, sum(distance) AS miles FROM flights GROUP BY origin ORDER BY origin';
  const res = await fetch(`${tree.url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json', authorization: 'Bearer tok' }, body: JSON.stringify({ sql }) });
  const json = (await res.json()) as { rows: unknown[][] };
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'u', password: 'tok', types: { getTypeParser: () => (v: string) => v } });
  await c.connect();
  try {
    const r = await c.query({ text: sql, rowMode: 'array' });
    expect(r.rows).toEqual(json.rows.map((row) => row.map((v) => (v === null ? null : String(v)))));
  } finally {
    await c.end();
  }
  const wrong = new pg.Client({ host: '127.0.0.1', port, user: 'u', password: 'nope' });
  expect(((await wrong.connect().catch((e: unknown) => e)) as { code?: string }).code).toBe('28P01');
  await wrong.end().catch(() => undefined);
});
