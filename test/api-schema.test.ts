/**
 * The API schemas (src/root/api.ts): a bad request field gets a 400 naming the field, every
 * answer the root sends (exact, bounded with missing shards, traced, snapshots) has the
 * declared shape, and the dashboard's generated typedefs are in sync with the schemas.
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { CanopyError } from '../src/merge/index.ts';
import { answerErrors, parseQueryRequest } from '../src/root/api.ts';
import { answerToJSON, buildRootApp } from '../src/root/index.ts';
import { TYPEDEFS_PATH, renderTypedefs } from '../src/root/typedefs.ts';
import { parseChildRequest } from '../src/transport/index.ts';
import { postQuery } from './helpers/api.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS, throwingHandler } from './helpers/flights.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const SQL = 'SELECT origin, count(*) AS n, sum(delay) AS d FROM flights GROUP BY origin ORDER BY n DESC LIMIT 3';

describe('request schema', () => {
  it.each([
    [{ sql: SQL, deadline_ms: 'soon' }, 'deadline_ms must be a number of ms in (0, 300000], got "soon"'],
    [{ sql: SQL, deadline_ms: 300_001 }, 'deadline_ms must be a number of ms in (0, 300000], got 300001'],
    [{ sql: SQL, shard_size: 2.5 }, 'shard_size must be an integer in [1, 1000000], got 2.5'],
    [{ sql: SQL, policy: 'most' }, 'policy must be one of all, partial, min_coverage; got "most"'],
    [{ sql: SQL, min_coverage: 0 }, 'min_coverage must be a number in (0, 1], got 0'],
    [{ sql: SQL, trace: 'yes' }, 'trace must be true or false'],
    [{ sql: SQL, stream: 1 }, 'stream must be true or false'],
    [{ sql: 7, trace: 'yes' }, 'field "sql" must be a string holding one SELECT'],
    [{ sql: SQL, colour: 'red' }, 'unknown field(s) colour; known: sql, deadline_ms, trace, policy, min_coverage, exact, shard_size, stream'],
    [{ sql: SQL, policy: 'all', min_coverage: 0.5 }, 'min_coverage goes with policy "min_coverage", not "all"'],
    [{ sql: SQL, policy: 'min_coverage' }, 'policy "min_coverage" needs a min_coverage share in (0, 1]'],
  ])('%j -> a 400 naming the field: %s', async (body, message) => {
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
    const app = buildRootApp(root);
    try {
      const res = await postQuery(app, body);
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: expect.objectContaining({ code: 'CANOPY_ERR_BAD_REQUEST', message }) as unknown });
    } finally {
      await app.close();
    }
  });

  it.each([
    ['1e400', 'Infinity'],
    ['-1e400', '-Infinity'],
  ])('a number JSON parses to no finite value (deadline_ms: %s) is quoted as what it is, not null', async (raw, got) => {
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
    const app = buildRootApp(root);
    try {
      const message = `deadline_ms must be a number of ms in (0, 300000], got ${got}`;
      const res = await postQuery(app, `{"sql": "SELECT 1", "deadline_ms": ${raw}}`, { raw: true });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toEqual({ error: { code: 'CANOPY_ERR_BAD_REQUEST', message } });
      // A GET parameter of 400 digits is Infinity too.
      const get = await app.inject({ method: 'GET', url: `/v1/query?sql=SELECT%201&deadline_ms=1${'0'.repeat(400)}` });
      expect(get.json()).toEqual({ error: { code: 'CANOPY_ERR_BAD_REQUEST', message: `deadline_ms must be a number of ms in (0, 300000], got Infinity` } });
      expect(parseQueryRequest.bind(null, { sql: 'SELECT 1', min_coverage: Number.NaN })).toThrow('min_coverage must be a number in (0, 1], got NaN');
    } finally {
      await app.close();
    }
  });

  it('a good request passes through unchanged; min_coverage implies its policy', () => {
    expect(parseQueryRequest({ sql: SQL, deadline_ms: 250, trace: true, exact: false, shard_size: 40, stream: true })).toEqual({ sql: SQL, deadline_ms: 250, trace: true, exact: false, shard_size: 40 });
    expect(parseQueryRequest({ sql: SQL, min_coverage: 0.9 })).toEqual({ sql: SQL, min_coverage: 0.9, policy: 'min_coverage' });
    expect(() => parseQueryRequest({ sql: SQL, deadline_ms: 1000 }, 500)).toThrow(CanopyError);
  });

  it('GET parameters decode by the schema: numbers, booleans, and the same checks', async () => {
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
    const app = buildRootApp(root);
    try {
      const ok = await app.inject({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent(SQL)}&deadline_ms=5000&trace=true` });
      expect(ok.statusCode).toBe(200);
      expect((ok.json() as { trace?: unknown }).trace).toBeDefined();
      const bad = await app.inject({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent(SQL)}&shard_size=0` });
      expect(bad.statusCode).toBe(400);
      expect((bad.json() as { error: { message: string } }).error.message).toBe('shard_size must be an integer in [1, 1000000], got 0');
    } finally {
      await app.close();
    }
  });
});

describe('child request schema', () => {
  const good = { queryId: 'q', schema: { name: 't', columns: [{ name: 'g', type: 'string' }] }, plan: { table: 't', filter: null, groupBy: [], partials: [], rows: null, maxGroups: 10 }, shards: [0, 1], budgetMs: 100 };
  it('a well-formed request passes, its budget from the header when given', () => {
    expect(parseChildRequest(good, undefined)).toEqual(good);
    expect(parseChildRequest(good, '40').budgetMs).toBe(40);
  });
  it.each([
    [{ ...good, shards: [-1] }, 'partial request: shards must be a list of shard ids'],
    [{ ...good, queryId: 3 }, 'partial request: queryId must be a string'],
    [{ ...good, trace: 'yes' }, 'partial request: trace must be true or false'],
    [{ ...good, schema: { name: 't', columns: [{ name: 'g', type: 'text' }] } }, 'partial request: schema is malformed'],
    [{ ...good, plan: { table: 't' } }, 'partial request: plan is malformed'],
    [{ ...good, stats: [{ id: 0 }] }, 'partial request: stats must be a list of shard catalog entries'],
    [{ ...good, hedge: true }, 'partial request: unknown field(s) hedge; known: queryId, shards, plan, schema, budgetMs, trace, stream, stats'],
    [{ ...good, budgetMs: -1 }, 'partial request: budgetMs must be a non-negative number of ms'],
  ])('%j -> CANOPY_ERR_BAD_REQUEST %s', (body, message) => {
    expect(() => parseChildRequest(body, undefined)).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_BAD_REQUEST', message }) as Error);
  });
});

describe('answer schema', () => {
  it('exact, traced, bounded (a shard failed) answers and every snapshot have the declared shape', async () => {
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, wrap: (leaf) => (leaf.name === 'leaf-2' ? throwingHandler() : leaf.handler) });
    const bodies: unknown[] = [];
    const a = await root.query({ sql: SQL, trace: true }, new AbortController().signal, (snap) => bodies.push(answerToJSON(snap)), 0);
    bodies.push(answerToJSON(a));
    bodies.push(answerToJSON(await ask(root, 'SELECT count(*) FROM flights')));
    expect(a.label).not.toBe('exact');
    for (const b of bodies) expect(answerErrors(JSON.parse(JSON.stringify(b)))).toEqual([]);
  });

  it('a body missing a field or with a wrong label is not an answer', () => {
    expect(answerErrors({ columns: [], rows: [], label: 'exact' }).length).toBeGreaterThan(0);
    expect(answerErrors({ columns: [], rows: [], label: 'roughly', rows_complete: true, final: true, coverage: { shards: 0, answered: 0, failed: 0, omitted: 0, pruned: 0 }, missing: [], stats: { elapsed_ms: 0, rows_scanned: 0, round_trips: 0 } })).toEqual([expect.stringMatching(/^\/label/) as unknown]);
  });
});

describe('dashboard typedefs', () => {
  it('src/root/public/types.js is what `npm run typedefs` generates from the schemas', () => {
    expect(readFileSync(TYPEDEFS_PATH, 'utf8')).toBe(renderTypedefs());
  });
});
