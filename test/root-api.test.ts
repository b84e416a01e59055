/**
 * The root's HTTP API (`buildRootApp(root).inject(...)`) over a small in-process tree:
 * coded errors for bad requests and bad SQL, the answer's shape, and faulty children
 * (thrown, garbled, silent, hanging) accounted for shard by shard.
 */
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import type { LeafNode } from '../src/leaf/index.ts';
import { ERROR_CODES } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, buildRootApp, planQuery, type TreeNode } from '../src/root/index.ts';
import type { NodeHandler } from '../src/transport/index.ts';
import { expectError, positionProblems, postQuery } from './helpers/api.ts';
import {
  FLIGHTS_COLUMNS,
  FLIGHTS_ROWS,
  FLIGHTS_SCHEMA,
  FLIGHTS_SHARDS,
  hangingHandler,
  rewritingHandler,
  shardOf,
  silentHandler,
  throwingHandler,
} from './helpers/flights.ts';
import { inProcessRoot } from './helpers/tree.ts';

const SHARDS = FLIGHTS_SHARDS.length;
const TOTAL_ROWS = FLIGHTS_ROWS.reduce((a, b) => a + b, 0);
/** Shards without rows: the root may prune them (nothing to ask) or ask them. */
const EMPTY = FLIGHTS_ROWS.flatMap((n, i) => (n === 0 ? [i] : []));
const NON_EMPTY = FLIGHTS_ROWS.flatMap((n, i) => (n === 0 ? [] : [i]));
/** Keys a query answer must have, and the optional ones it may have. */
const ANSWER_KEYS = ['columns', 'coverage', 'label', 'missing', 'rows', 'stats'];
const OPTIONAL_ANSWER_KEYS = ['cells', 'rows_complete', 'final', 'trace', 'roles', 'warnings'];

const apps: FastifyInstance[] = [];

afterEach(async () => {
  await Promise.all(apps.splice(0).map((a) => a.close()));
});

/** The app over the flights test tree; `wrap` may replace leaf handlers (faults). */
function makeApp(opts: { fanout?: number; wrap?: (leaf: LeafNode) => NodeHandler; bodyLimit?: number; ready?: () => boolean } = {}): { app: FastifyInstance; layout: TreeNode[] } {
  const { root, layout } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: opts.fanout ?? 3, ...(opts.wrap ? { wrap: opts.wrap } : {}) });
  const app = buildRootApp(root, { ...(opts.bodyLimit !== undefined ? { bodyLimit: opts.bodyLimit } : {}), ...(opts.ready ? { ready: opts.ready } : {}) });
  apps.push(app);
  return { app, layout };
}

/** Path of a shard's leaf in a layout, as provenance spells it: `root/agg-1/leaf-3`. */
function pathOf(layout: readonly TreeNode[], shard: number): string {
  const walk = (nodes: readonly TreeNode[], prefix: string): string | null => {
    for (const n of nodes) {
      if (!n.shards.includes(shard)) continue;
      return n.kind === 'leaf' ? `${prefix}/${n.name}` : walk(n.children, `${prefix}/${n.name}`);
    }
    return null;
  };
  return walk(layout, 'root')!;
}

interface AnswerBody {
  columns: { name: string; type: string }[];
  rows: unknown[][];
  label: string;
  coverage: { shards: number; answered: number; failed: number; omitted: number; pruned: number };
  missing: { shard: number; path: string; reason: string; error: { code: string; message: string } | null }[];
  stats: { elapsed_ms: number; rows_scanned: number };
  trace?: { timings: Record<string, unknown>[]; provenance: { shard: number; status: string; path: string; rows_scanned?: number }[] };
}

function expectCoverageAddsUp(body: AnswerBody): void {
  const c = body.coverage;
  expect(c.shards).toBe(SHARDS);
  expect(c.answered + c.failed + c.omitted + c.pruned).toBe(c.shards);
  expect(c.pruned).toBeLessThanOrEqual(EMPTY.length);
  expect(body.missing).toHaveLength(c.failed + c.omitted);
  expect(new Set(body.missing.map((m) => m.shard)).size).toBe(body.missing.length);
}

describe('the test tree', () => {
  it('has 3 aggregators of 2 leaves at fan-out 3, so shard 3 sits at root/agg-1/leaf-3', () => {
    const { layout } = makeApp();
    expect(layout.map((n) => [n.name, n.children.map((c) => c.name)])).toEqual([
      ['agg-0', ['leaf-0', 'leaf-1']],
      ['agg-1', ['leaf-2', 'leaf-3']],
      ['agg-2', ['leaf-4', 'leaf-5']],
    ]);
    expect(pathOf(layout, 3)).toBe('root/agg-1/leaf-3');
  });
});

describe('POST /v1/query: a successful answer', () => {
  it('has exactly columns, rows, label, coverage, missing and stats, rendered as JSON', async () => {
    const { app } = makeApp();
    const res = await postQuery(app, { sql: 'SELECT origin, count(*) AS n, sum(delay) AS s, min(date) AS first, avg(distance) AS d FROM flights GROUP BY origin ORDER BY origin' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    const body = res.json<AnswerBody>();
    for (const k of ANSWER_KEYS) expect(Object.keys(body)).toContain(k);
    for (const k of Object.keys(body)) expect([...ANSWER_KEYS, ...OPTIONAL_ANSWER_KEYS]).toContain(k);
    expect(body).not.toHaveProperty('trace');
    expect(body.columns).toEqual([
      { name: 'origin', type: 'string' },
      { name: 'n', type: 'int64' },
      { name: 's', type: 'int128' },
      { name: 'first', type: 'timestamp' },
      { name: 'd', type: 'float64' },
    ]);
    expect(body.rows).toEqual([
      ['JFK', 1, 0, '2001-01-02T10:15:00.000Z', 2500],
      ['LAX', 3, 119, '2001-01-01T07:30:00.000Z', (300 + 950 + 300) / 3],
      ['ORD', 2, 52, '2001-01-02T00:00:00.000Z', (1200 + 1800) / 2],
      ['SEA', 2, 1, '2001-01-03T23:59:00.000Z', (700 + 950) / 2],
      ['SFO', 2, -5, '2001-01-01T06:00:00.000Z', (300 + 2500) / 2],
      [null, 1, 7, '2001-03-01T00:00:00.000Z', null],
    ]);
    expect(body.label).toBe('exact');
    expectCoverageAddsUp(body);
    expect(body.coverage).toMatchObject({ shards: SHARDS, failed: 0, omitted: 0 });
    expect(body.coverage.answered).toBeGreaterThanOrEqual(NON_EMPTY.length);
    expect(body.missing).toEqual([]);
    expect(body.stats.rows_scanned).toBe(TOTAL_ROWS);
    expect(body.stats.elapsed_ms).toBeGreaterThanOrEqual(0);
  });

  it('with trace: true adds per-child timings and one provenance entry per shard', async () => {
    const { app, layout } = makeApp();
    const res = await postQuery(app, { sql: 'SELECT count(*) FROM flights', trace: true });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<AnswerBody>();
    expect(body.rows).toEqual([[TOTAL_ROWS]]);
    expect(body.trace?.timings.length).toBeGreaterThan(0);
    for (const t of body.trace?.timings ?? []) expect(Object.keys(t).sort()).toEqual(['child', 'elapsed_ms', 'gather', 'outcome', 'shards']);
    const prov = [...(body.trace?.provenance ?? [])].sort((a, b) => a.shard - b.shard);
    expect(prov.map((p) => p.shard)).toEqual(FLIGHTS_SHARDS.map((_, i) => i));
    for (const p of prov) {
      if (EMPTY.includes(p.shard) && p.status === 'pruned') expect(p.path).toBe('root');
      else {
        expect([p.shard, p.status, p.path]).toEqual([p.shard, 'answered', pathOf(layout, p.shard)]);
        expect(p.rows_scanned).toBe(FLIGHTS_SHARDS[p.shard]!.length);
      }
    }
  });

  it('renders int64 beyond 2^53 as decimal strings, and non-finite floats as strings', async () => {
    const big = 2n ** 62n;
    const schema = { name: 't', columns: [{ name: 'x', type: 'int64' as const }, { name: 'f', type: 'float64' as const }] };
    const { root } = inProcessRoot(schema, [[[big, 1.5]], [[big + 1n, Infinity]], [[-(2n ** 53n) - 1n, -0.5]]]);
    const app = buildRootApp(root);
    apps.push(app);
    const res = await postQuery(app, { sql: 'SELECT sum(x) AS s, max(x) AS mx, min(x) AS mn, count(x) AS n, max(f) AS fmax, min(f) AS fmin FROM t' });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<AnswerBody>().rows).toEqual([[(big + big + 1n - 2n ** 53n - 1n).toString(), (big + 1n).toString(), (-(2n ** 53n) - 1n).toString(), 3, 'Infinity', -0.5]]);
  });

  it('accepts a valid deadline_ms', async () => {
    const { app } = makeApp();
    const res = await postQuery(app, { sql: 'SELECT count(*) FROM flights', deadline_ms: 5000 });
    expect(res.statusCode, res.body).toBe(200);
  });
});

describe('POST /v1/query: bad SQL', () => {
  it.each([
    'SELEC count(*) FROM flights',
    'SELECT count(*) FROM flights WHERE',
    'SELECT count(* FROM flights',
    "SELECT count(*) FROM flights WHERE origin = 'SFO",
    'SELECT count(*) FROM flights GROUP BY',
    'SELECT , FROM flights',
  ])('malformed SQL -> 400 CANOPY_ERR_BAD_QUERY with a position: %s', async (sql) => {
    const { app } = makeApp();
    const body = expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_BAD_QUERY');
    expect(body.error.position).toBeDefined();
    expect(Object.keys(body.error.position!).sort()).toEqual(['column', 'line', 'offset']);
    expect(positionProblems(sql, body.error.position)).toEqual([]);
  });

  it('the position of an error on the third line says line 3', async () => {
    const { app } = makeApp();
    const sql = 'SELECT count(*)\nFROM flights\nWHERE delay > > 3';
    const body = expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_BAD_QUERY');
    expect(body.error.position?.line).toBe(3);
    expect(positionProblems(sql, body.error.position)).toEqual([]);
  });

  it('an empty query is a bad query', async () => {
    const { app } = makeApp();
    expectError(await postQuery(app, { sql: '   ' }), 400, 'CANOPY_ERR_BAD_QUERY');
  });

  it('an unknown table -> 400 CANOPY_ERR_UNKNOWN_TABLE listing the served tables', async () => {
    const { app } = makeApp();
    const body = expectError(await postQuery(app, { sql: 'SELECT count(*) FROM flight' }), 400, 'CANOPY_ERR_UNKNOWN_TABLE');
    expect(body.error.message).toContain('flights');
  });

  it.each([
    'SELECT dealy FROM flights LIMIT 3',
    'SELECT count(*) FROM flights WHERE dealy > 3',
    'SELECT sum(dist) FROM flights',
    'SELECT count(*) FROM flights GROUP BY carrier',
    'SELECT origin FROM flights ORDER BY nope LIMIT 1',
  ])('an unknown column -> 400 CANOPY_ERR_UNKNOWN_COLUMN listing the known ones: %s', async (sql) => {
    const { app } = makeApp();
    const body = expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_UNKNOWN_COLUMN');
    for (const c of FLIGHTS_COLUMNS) expect(body.error.message).toContain(c);
  });

  it.each([
    ['JOIN', 'SELECT count(*) FROM flights a JOIN flights b ON a.origin = b.origin'],
    ['LEFT JOIN', 'SELECT a.origin FROM flights a LEFT JOIN flights b ON a.origin = b.destination LIMIT 1'],
    ['aggregating subquery in FROM', 'SELECT count(*) FROM (SELECT origin FROM flights GROUP BY origin) t'],
    ['scalar subquery', 'SELECT count(*) FROM flights WHERE delay > (SELECT avg(delay) FROM flights)'],
    ['IN subquery', 'SELECT count(*) FROM flights WHERE origin IN (SELECT destination FROM flights)'],
    ['window function', 'SELECT origin, row_number() OVER (ORDER BY delay) FROM flights LIMIT 5'],
    ['windowed aggregate', 'SELECT sum(delay) OVER (PARTITION BY origin) FROM flights LIMIT 5'],
    ['UNION', 'SELECT origin FROM flights UNION SELECT destination FROM flights'],
    ['CTE with LIMIT', 'WITH t AS (SELECT * FROM flights LIMIT 5) SELECT count(*) FROM t'],
  ])('%s -> 400 CANOPY_ERR_UNSUPPORTED', async (_what, sql) => {
    const { app } = makeApp();
    expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_UNSUPPORTED');
  });

  it.each([
    "SELECT sum(origin) FROM flights",
    "SELECT count(*) FROM flights WHERE delay = 'abc'",
    "SELECT count(*) FROM flights WHERE date > 'not a date'",
    "SELECT count(*) FROM flights WHERE origin > 3",
  ])('a type mismatch -> 400 CANOPY_ERR_TYPE: %s', async (sql) => {
    const { app } = makeApp();
    expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_TYPE');
  });

  it.each(['SELECT origin FROM flights LIMIT -1', 'SELECT origin FROM flights LIMIT 1 OFFSET 100000000'])('a LIMIT out of range -> 400 CANOPY_ERR_LIMIT: %s', async (sql) => {
    const { app } = makeApp();
    expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_LIMIT');
  });

  it('a LIMIT above the most rows an answer holds answers whole when the rows fit, and refuses when they do not', async () => {
    const rows = FLIGHTS_ROWS.reduce((a, b) => a + b, 0);
    // BI tools send LIMIT 1048575 for a download.
    const { app } = makeApp();
    const whole = await postQuery(app, { sql: 'SELECT origin FROM flights LIMIT 1048575' });
    expect(whole.statusCode).toBe(200);
    expect((whole.json() as AnswerBody).rows).toHaveLength(rows);
    const few = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { root: { limits: { ...DEFAULT_LIMITS, maxLimit: rows - 1 } } }).root;
    const app2 = buildRootApp(few);
    apps.push(app2);
    const over = await postQuery(app2, { sql: 'SELECT origin FROM flights LIMIT 1048575' });
    expectError(over, 400, 'CANOPY_ERR_LIMIT');
    expect((over.json() as { error: { message: string } }).error.message).toBe(`the query returns more than ${rows - 1} rows, the most one answer holds; add a smaller LIMIT or a WHERE`);
    const grouped = await postQuery(app2, { sql: 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY n DESC, origin LIMIT 1048575' });
    expect(grouped.statusCode).toBe(200);
  });
});

describe('POST /v1/query: the most rows an answer holds (maxLimit) applies to every answer', () => {
  // Six origins (one NULL) in the flights test table; an answer may hold at most 5 rows here.
  const app5 = (): FastifyInstance => {
    const app = buildRootApp(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, root: { limits: { ...DEFAULT_LIMITS, maxLimit: 5 } } }).root);
    apps.push(app);
    return app;
  };
  const groupsRefusal =
    "the query returns more than 5 rows, the most one answer holds; add a LIMIT of at most 5 (with ORDER BY for the top groups), a WHERE, or fewer or coarser GROUP BY (DISTINCT) keys, such as date_trunc('day', ...) of a timestamp";

  it.each(['SELECT DISTINCT origin FROM flights', 'SELECT origin, count(*) FROM flights GROUP BY origin', 'SELECT origin, count(*) FROM flights GROUP BY origin LIMIT 1048575'])(
    'more groups than that -> 400 CANOPY_ERR_LIMIT naming the limit and how to narrow: %s',
    async (sql) => {
      const body = expectError(await postQuery(app5(), { sql }), 400, 'CANOPY_ERR_LIMIT');
      expect(body.error.message).toBe(groupsRefusal);
    },
  );

  it('a row query without WHERE past the limit is refused while planning (the catalog counts its rows), before any shard is asked', async () => {
    let asked = 0;
    const counting = (leaf: LeafNode): NodeHandler => (req, signal) => {
      asked++;
      return leaf.handler(req, signal);
    };
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, wrap: counting, root: { limits: { ...DEFAULT_LIMITS, maxLimit: 6, maxRows: 4 } } });
    const app = buildRootApp(root);
    apps.push(app);
    const rowsRefusal = 'the query returns more than 6 rows, the most one answer holds; add a smaller LIMIT or a WHERE';
    for (const sql of ['SELECT * FROM flights ORDER BY delay DESC LIMIT 1048575', 'SELECT origin FROM flights LIMIT 7', `SELECT origin FROM flights LIMIT 100 OFFSET ${TOTAL_ROWS - 7}`]) {
      expect(() => root.prepare({ sql }), sql).toThrow(rowsRefusal);
      expect(expectError(await postQuery(app, { sql }), 400, 'CANOPY_ERR_LIMIT').error.message).toBe(rowsRefusal);
    }
    expect(() => root.prepare({ sql: 'SELECT * FROM flights ORDER BY delay' })).toThrow('the query returns more than 4 rows; add a LIMIT (at most 6)');
    expect(asked).toBe(0);
    // The rows fit after the OFFSET: answered whole.
    const fits = await postQuery(app, { sql: `SELECT origin FROM flights LIMIT 1048575 OFFSET ${TOTAL_ROWS - 6}` });
    expect(fits.statusCode, fits.body).toBe(200);
    expect((fits.json() as AnswerBody).rows).toHaveLength(6);
    // With a WHERE the catalog cannot count the rows: refused once they are gathered.
    const where = 'SELECT origin FROM flights WHERE delay > -100000 ORDER BY delay LIMIT 1048575';
    expect(() => root.prepare({ sql: where })).not.toThrow();
    expect(expectError(await postQuery(app, { sql: where }), 400, 'CANOPY_ERR_LIMIT').error.message).toBe(rowsRefusal);
    expect(asked).toBeGreaterThan(0);
  });

  it('more groups than an answer holds, with every group a row (no HAVING, LIMIT, OFFSET), is refused as soon as a node counts them, not at the deadline', async () => {
    // A hanging leaf: before, the refusal waited for it (the deadline), as every shard had to be accounted for first.
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3, wrap: (leaf) => (leaf.shards.includes(0) ? hangingHandler() : leaf.handler), root: { limits: { ...DEFAULT_LIMITS, maxLimit: 5 } } });
    const app = buildRootApp(root);
    apps.push(app);
    const t0 = Date.now();
    const body = expectError(await postQuery(app, { sql: 'SELECT origin, delay, count(*) FROM flights GROUP BY origin, delay', deadline_ms: 20_000 }), 400, 'CANOPY_ERR_LIMIT');
    expect(body.error.message).toBe(groupsRefusal);
    expect(Date.now() - t0).toBeLessThan(5_000);
    // ROLLUP and CUBE hold the finest grouping as a set: its groups are rows too.
    const t1 = Date.now();
    const rollup = expectError(await postQuery(app, { sql: 'SELECT origin, delay, count(*) FROM flights GROUP BY ROLLUP (origin, delay)', deadline_ms: 20_000 }), 400, 'CANOPY_ERR_LIMIT');
    expect(rollup.error.message).toBe(groupsRefusal);
    expect(Date.now() - t1).toBeLessThan(5_000);
    // Sets without the finest grouping (its groups are not rows): the group limit stays the per-node one.
    const limits = { ...DEFAULT_LIMITS, maxLimit: 5 };
    expect(planQuery('SELECT origin, delay, count(*) FROM flights GROUP BY GROUPING SETS ((origin), (delay))', new Map([['flights', FLIGHTS_SCHEMA]]), limits).scan.maxGroups).toBe(DEFAULT_LIMITS.maxGroups);
    expect(planQuery('SELECT origin, delay, count(*) FROM flights GROUP BY CUBE (origin, delay)', new Map([['flights', FLIGHTS_SCHEMA]]), limits).scan.maxGroups).toBe(5);
    // With HAVING the groups are not all rows: answered as before (the hanging shard missing at the deadline).
    const having = await postQuery(app, { sql: 'SELECT origin, count(*) AS n FROM flights GROUP BY origin HAVING count(*) > 100 ORDER BY origin', deadline_ms: 300 });
    expect(having.statusCode, having.body).toBe(200);
  }, 30_000);

  it('the rows the answer holds count, not the groups merged: top-k, HAVING and exact: true answer', async () => {
    const app = app5();
    const top = await postQuery(app, { sql: 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY n DESC, origin LIMIT 2', exact: true });
    expect(top.statusCode, top.body).toBe(200);
    expect((top.json() as AnswerBody).rows).toEqual([['LAX', 3], ['ORD', 2]]);
    const having = await postQuery(app, { sql: 'SELECT origin, count(*) AS n FROM flights GROUP BY origin HAVING count(*) > 1 ORDER BY origin' });
    expect(having.statusCode, having.body).toBe(200);
    expect((having.json() as AnswerBody).rows).toEqual([['LAX', 3], ['ORD', 2], ['SEA', 2], ['SFO', 2]]);
  });

  it('a stream of such a query shows no snapshot past the limit and ends with the refusal', async () => {
    const res = await app5().inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT DISTINCT origin FROM flights', stream: true } });
    const lines = res.body.trim().split('\n').map((l) => JSON.parse(l) as { final: boolean; rows?: unknown[]; error?: { code: string; message: string } });
    expect(lines.at(-1)).toEqual({ error: { code: 'CANOPY_ERR_LIMIT', message: groupsRefusal }, final: true });
    for (const l of lines.slice(0, -1)) expect(l.rows!.length).toBeLessThanOrEqual(5);
  });
});

describe('POST /v1/query: bad requests', () => {
  it.each([
    ['truncated JSON', '{"sql": "SELECT count(*) FROM flights"'],
    ['not JSON at all', 'SELECT count(*) FROM flights'],
    ['an empty body', ''],
  ])('%s -> 400 CANOPY_ERR_BAD_REQUEST', async (_what, raw) => {
    const { app } = makeApp();
    expectError(await postQuery(app, raw, { raw: true }), 400, 'CANOPY_ERR_BAD_REQUEST');
  });

  it('a body that is not declared JSON -> 400 CANOPY_ERR_BAD_REQUEST naming the content type', async () => {
    const { app } = makeApp();
    expectError(await postQuery(app, 'SELECT count(*) FROM flights', { raw: true, contentType: 'text/plain' }), 400, 'CANOPY_ERR_BAD_REQUEST');
    const json = expectError(await postQuery(app, '{"sql": "SELECT count(*) FROM flights"}', { raw: true, contentType: 'text/plain' }), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(json.error.message).toMatch(/Content-Type: application\/json/);
  });

  it('a body nested 50,000 levels deep -> 400 CANOPY_ERR_BAD_REQUEST, not a 500', async () => {
    const { app } = makeApp();
    const deep = `{"sql": "SELECT count(*) FROM flights", "trace": ${'['.repeat(50_000)}${']'.repeat(50_000)}}`;
    const body = expectError(await postQuery(app, deep, { raw: true }), 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(body.error.message).toMatch(/nested too deeply|trace/);
  });

  it.each([
    ['no sql field', {}],
    ['sql a number', { sql: 42 }],
    ['sql null', { sql: null }],
    ['sql an array', { sql: ['SELECT count(*) FROM flights'] }],
    ['an array body', ['SELECT count(*) FROM flights']],
    ['a string body', 'SELECT count(*) FROM flights'],
    ['a null body', null],
    ['an unknown field', { sql: 'SELECT count(*) FROM flights', sqll: 'x' }],
    ['trace not a boolean', { sql: 'SELECT count(*) FROM flights', trace: 'yes' }],
  ])('%s -> 400 CANOPY_ERR_BAD_REQUEST', async (_what, body) => {
    const { app } = makeApp();
    expectError(await postQuery(app, body), 400, 'CANOPY_ERR_BAD_REQUEST');
  });

  it.each([
    ['negative', -5],
    ['zero', 0],
    ['a string', '1000'],
    ['above the maximum', 300_001],
    ['null', null],
    ['a boolean', true],
    ['an object', { ms: 100 }],
  ])('deadline_ms %s -> 400 CANOPY_ERR_BAD_REQUEST', async (_what, deadline) => {
    const { app } = makeApp();
    expectError(await postQuery(app, { sql: 'SELECT count(*) FROM flights', deadline_ms: deadline }), 400, 'CANOPY_ERR_BAD_REQUEST');
  });

  it('a body over the limit -> 413 CANOPY_ERR_BODY_TOO_LARGE', async () => {
    const { app } = makeApp({ bodyLimit: 1024 });
    const sql = `SELECT count(*) FROM flights WHERE origin IN (${Array.from({ length: 300 }, (_, i) => `'A${i}'`).join(', ')})`;
    expectError(await postQuery(app, { sql }), 413, 'CANOPY_ERR_BODY_TOO_LARGE');
  });

  it('a body over the default limit (256 KiB) -> 413 CANOPY_ERR_BODY_TOO_LARGE', async () => {
    const { app } = makeApp();
    expectError(await postQuery(app, { sql: `SELECT count(*) FROM flights -- ${'x'.repeat(300 * 1024)}` }), 413, 'CANOPY_ERR_BODY_TOO_LARGE');
  });

  it('not ready -> 503 CANOPY_ERR_NOT_READY', async () => {
    const { app } = makeApp({ ready: () => false });
    expectError(await postQuery(app, { sql: 'SELECT count(*) FROM flights' }), 503, 'CANOPY_ERR_NOT_READY');
  });
});

describe('other routes', () => {
  it('GET /healthz -> 200', async () => {
    const { app } = makeApp();
    const res = await app.inject({ method: 'GET', url: '/healthz' });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ ok: true });
  });

  it.each([
    ['GET', '/nope'],
    ['POST', '/v1/queries'],
    ['POST', '/v2/query'],
  ] as const)('%s %s -> 404 CANOPY_ERR_NOT_FOUND', async (method, url) => {
    const { app } = makeApp();
    expectError(await app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: '{}' }), 404, 'CANOPY_ERR_NOT_FOUND');
  });

  it.each([
    ['DELETE', '/v1/query', 'GET, HEAD, POST'],
    ['PUT', '/v1/query?sql=x', 'GET, HEAD, POST'],
    ['POST', '/v1/catalog', 'GET, HEAD'],
    ['DELETE', '/v1/catalog/flights/shards', 'GET, HEAD'],
    ['POST', '/healthz', 'GET, HEAD'],
  ] as const)('%s %s -> 405 CANOPY_ERR_METHOD_NOT_ALLOWED with Allow: %s (it was 404)', async (method, url, allow) => {
    const { app } = makeApp();
    const res = await app.inject({ method, url, headers: { 'content-type': 'application/json' }, payload: '{}' });
    expectError(res, 405, 'CANOPY_ERR_METHOD_NOT_ALLOWED');
    expect(res.headers.allow).toBe(allow);
    expect(res.json().error.message).toBe(`${method} is not served at ${url.split('?')[0]}; it takes ${allow.replaceAll(', ', ' or ')}`);
  });

  it('a 404 names the routes the root serves (GET /v1/catalog/flights was told to try POST /v1/query)', async () => {
    const { app } = makeApp();
    const res = await app.inject({ method: 'GET', url: '/v1/catalog/flights' });
    expect(res.statusCode).toBe(404);
    expect(res.json().error.message).toBe('no route GET /v1/catalog/flights; the root serves POST or GET /v1/query, GET /v1/catalog, GET /v1/catalog/:table/shards, GET /healthz, GET /metrics and the dashboard at GET /');
  });

  it.each([
    ['deadline_ms=abc', 'deadline_ms must be a decimal number'],
    ['deadline_ms=0x10', 'deadline_ms must be a decimal number'],
    ['exact=maybe', 'exact must be true or false'],
    ['trace=yes', 'trace must be true or false'],
    ['dealine_ms=100', "unknown query parameter 'dealine_ms'"],
    ['deadline_ms=100&deadline_ms=200', "'deadline_ms' is given more than once"],
  ])('GET /v1/query?sql=...&%s -> 400 CANOPY_ERR_BAD_REQUEST naming the problem', async (extra, message) => {
    const { app } = makeApp();
    const res = await app.inject({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent('SELECT count(*) FROM flights')}&${extra}` });
    expectError(res, 400, 'CANOPY_ERR_BAD_REQUEST');
    expect(res.json<{ error: { message: string } }>().error.message).toContain(message);
  });

  it('GET /v1/query takes the same fields as POST: deadline_ms, trace', async () => {
    const { app } = makeApp();
    const res = await app.inject({ method: 'GET', url: `/v1/query?sql=${encodeURIComponent('SELECT count(*) FROM flights')}&deadline_ms=5000&trace=true`, headers: { accept: 'application/json' } });
    expect(res.statusCode, res.body).toBe(200);
    expect(res.json<AnswerBody>().trace?.timings.length).toBeGreaterThan(0);
  });

  it('GET /v1/query without sql is refused with a coded 400', async () => {
    const { app } = makeApp();
    const res = await app.inject({ method: 'GET', url: '/v1/query' });
    expect(res.statusCode).toBe(400);
    expect(res.json<{ error: { code: string } }>().error.code).toMatch(/^CANOPY_ERR_/);
  });
});

describe('faulty children', () => {
  const FAULTY = 3;
  /**
   * Deadline for the hanging-leaf cases (real timers). Each hop keeps 5% of its budget in
   * reserve, so agg-1 gives up on leaf-3 about 5% (here 20 ms) before the root would give up
   * on agg-1: slack enough for a busy scheduler, so the missing path is the leaf's.
   */
  const HANG_DEADLINE_MS = 400;
  const COUNT_SQL = 'SELECT count(*) AS n, sum(delay) AS s FROM flights';
  const ROWS_WITHOUT = TOTAL_ROWS - FLIGHTS_ROWS[FAULTY]!;

  async function faultyAnswer(handler: (leaf: LeafNode) => NodeHandler, extra: { deadline_ms?: number; fanout?: number } = {}) {
    const { app, layout } = makeApp({ wrap: (leaf) => (shardOf(leaf) === FAULTY ? handler(leaf) : leaf.handler), ...(extra.fanout !== undefined ? { fanout: extra.fanout } : {}) });
    const res = await postQuery(app, { sql: COUNT_SQL, ...(extra.deadline_ms !== undefined ? { deadline_ms: extra.deadline_ms } : {}) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<AnswerBody>();
    expectCoverageAddsUp(body);
    expect(body.label).not.toBe('exact');
    expect(res.headers['cache-control']).toBe('no-store');
    // The faulty shard's rows are not counted; every other shard is, once.
    expect(body.rows[0]![0]).toBe(ROWS_WITHOUT);
    expect(body.missing).toHaveLength(1);
    const m = body.missing[0]!;
    expect(m.shard).toBe(FAULTY);
    expect(m.path).toBe(pathOf(layout, FAULTY));
    expect(m.error?.code).toMatch(/^CANOPY_ERR_/);
    return { body, m };
  }

  it('a leaf whose handler throws -> failed, at root/agg-1/leaf-3', async () => {
    const { body, m } = await faultyAnswer(() => throwingHandler());
    expect(m.path).toBe('root/agg-1/leaf-3');
    expect(m.reason).toBe('failed');
    expect(body.coverage).toMatchObject({ shards: SHARDS, failed: 1, omitted: 0 });
    expect(body.coverage.answered).toBeGreaterThanOrEqual(NON_EMPTY.length - 1);
  });

  it('a leaf that ends without a frame -> failed, CANOPY_ERR_CHILD_GARBLED', async () => {
    const { m } = await faultyAnswer(() => silentHandler());
    expect(m.reason).toBe('failed');
    expect(m.error?.code).toBe('CANOPY_ERR_CHILD_GARBLED');
  });

  it('a leaf whose frame omits its shard from provenance -> failed, CANOPY_ERR_CHILD_GARBLED', async () => {
    const { m } = await faultyAnswer((leaf) => rewritingHandler(leaf, (f) => ({ ...f, provenance: [] })));
    expect(m.reason).toBe('failed');
    expect(m.error?.code).toBe('CANOPY_ERR_CHILD_GARBLED');
  });

  it('a leaf whose frame also claims a shard it was not asked for -> failed, and that shard still counted once', async () => {
    const { body, m } = await faultyAnswer((leaf) =>
      rewritingHandler(leaf, (f) => ({ ...f, provenance: [...f.provenance, { shard: 0, status: 'answered', path: leaf.name, rowsScanned: 2 }] })),
    );
    expect(m.reason).toBe('failed');
    expect(m.error?.code).toBe('CANOPY_ERR_CHILD_GARBLED');
    expect(body.coverage.answered).toBeGreaterThanOrEqual(NON_EMPTY.length - 1);
    expect(body.coverage.failed).toBe(1);
  });

  it('a leaf whose frame reports its shard twice -> failed, CANOPY_ERR_CHILD_GARBLED', async () => {
    const { m } = await faultyAnswer((leaf) => rewritingHandler(leaf, (f) => ({ ...f, provenance: [...f.provenance, ...f.provenance] })));
    expect(m.reason).toBe('failed');
    expect(m.error?.code).toBe('CANOPY_ERR_CHILD_GARBLED');
  });

  it('a leaf that hangs -> omitted at the deadline, CANOPY_ERR_DEADLINE, answered in time', async () => {
    const t0 = performance.now();
    const { body, m } = await faultyAnswer(() => hangingHandler(), { deadline_ms: HANG_DEADLINE_MS });
    expect(performance.now() - t0).toBeLessThan(2000);
    expect(m.path).toBe('root/agg-1/leaf-3');
    expect(m.reason).toBe('omitted');
    expect(m.error?.code).toBe('CANOPY_ERR_DEADLINE');
    expect(body.coverage).toMatchObject({ shards: SHARDS, failed: 0, omitted: 1 });
    expect(body.coverage.answered).toBeGreaterThanOrEqual(NON_EMPTY.length - 1);
  });

  it('a leaf that yields a progressive frame and then hangs -> omitted; the early frame is not merged', async () => {
    const { m } = await faultyAnswer(
      (leaf) =>
        async function* earlyThenHang(req, signal) {
          for await (const f of leaf.handler(req, signal)) yield f;
          await new Promise<void>(() => undefined);
        },
      { deadline_ms: HANG_DEADLINE_MS },
    );
    expect(m.reason).toBe('omitted');
    expect(m.error?.code).toBe('CANOPY_ERR_DEADLINE');
  });

  it('a leaf that answers only after the deadline -> omitted; the late answer is dropped', async () => {
    const { m } = await faultyAnswer(
      (leaf) =>
        async function* late(req, signal) {
          await new Promise((resolve) => setTimeout(resolve, 2 * HANG_DEADLINE_MS));
          yield* leaf.handler(req, signal);
        },
      { deadline_ms: HANG_DEADLINE_MS },
    );
    expect(m.reason).toBe('omitted');
  });

  it('a hanging leaf directly under the root (flat tree) -> omitted at root/leaf-3', async () => {
    const { m } = await faultyAnswer(() => hangingHandler(), { deadline_ms: HANG_DEADLINE_MS, fanout: 10 });
    expect(m.path).toBe('root/leaf-3');
    expect(m.reason).toBe('omitted');
  });

  it('one hanging and one throwing leaf: both missing, coverage adds up', async () => {
    const { app, layout } = makeApp({ wrap: (leaf) => (shardOf(leaf) === 1 ? throwingHandler() : shardOf(leaf) === 5 ? hangingHandler() : leaf.handler) });
    const res = await postQuery(app, { sql: COUNT_SQL, deadline_ms: HANG_DEADLINE_MS });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<AnswerBody>();
    expectCoverageAddsUp(body);
    expect(body.label).not.toBe('exact');
    expect(body.missing.map((m) => [m.shard, m.path, m.reason])).toEqual([
      [1, pathOf(layout, 1), 'failed'],
      [5, pathOf(layout, 5), 'omitted'],
    ]);
    expect(body.rows[0]![0]).toBe(TOTAL_ROWS - FLIGHTS_ROWS[1]! - FLIGHTS_ROWS[5]!);
  });

  /** Missing shards of a NO_COVERAGE error: every shard, except empty ones the root may have pruned. */
  function expectAllMissing(details: { missing: { shard: number; path: string; reason: string }[] }, layout: readonly TreeNode[], reason: string): void {
    const listed = details.missing.map((m) => m.shard);
    for (const i of NON_EMPTY) expect(listed).toContain(i);
    expect(listed).toEqual([...listed].sort((a, b) => a - b));
    for (const m of details.missing) {
      expect(m.reason).toBe(reason);
      // The leaf's path, or (when a whole aggregator was late or failed) one of its ancestors'.
      const leafPath = pathOf(layout, m.shard);
      expect(m.path === leafPath || leafPath.startsWith(`${m.path}/`), `${m.path} should be ${leafPath} or an ancestor`).toBe(true);
    }
  }

  it('every shard failing -> 503 CANOPY_ERR_NO_COVERAGE listing all of them', async () => {
    const { app, layout } = makeApp({ wrap: () => throwingHandler() });
    const body = expectError(await postQuery(app, { sql: COUNT_SQL }), 503, 'CANOPY_ERR_NO_COVERAGE');
    expectAllMissing(body.error.details as { missing: { shard: number; path: string; reason: string }[] }, layout, 'failed');
  });

  it('every shard hanging -> 503 CANOPY_ERR_NO_COVERAGE listing all of them as omitted', async () => {
    const { app, layout } = makeApp({ wrap: () => hangingHandler() });
    const body = expectError(await postQuery(app, { sql: COUNT_SQL, deadline_ms: 300 }), 503, 'CANOPY_ERR_NO_COVERAGE');
    expectAllMissing(body.error.details as { missing: { shard: number; path: string; reason: string }[] }, layout, 'omitted');
    // Every shard out of time: the message says so, and what to change (a deadline of 1 ms said only "no shard answered").
    expect(body.error.message).toMatch(/^no shard answered within the deadline \(\d+ missing, each out of time\); nothing to answer with: raise deadline_ms \(300 ms here\)/);
  });

  it('every leaf failing, but the WHERE prunes every shard -> 200 exact, nothing asked', async () => {
    const { app } = makeApp({ wrap: () => throwingHandler() });
    const res = await postQuery(app, { sql: 'SELECT count(*) AS n, max(delay) AS m FROM flights WHERE delay > 100000' });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<AnswerBody>();
    expect(body.rows).toEqual([[0, null]]);
    expect(body.label).toBe('exact');
    expect(body.coverage).toEqual({ shards: SHARDS, answered: 0, failed: 0, omitted: 0, pruned: SHARDS });
    expect(body.missing).toEqual([]);
  });
});

describe('over a real socket (not inject)', () => {
  async function listen(app: FastifyInstance): Promise<string> {
    return app.listen({ host: '127.0.0.1', port: 0 });
  }

  it('a POST query is answered, not cancelled once its body has been read', async () => {
    const { app } = makeApp();
    const url = await listen(app);
    const res = await fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) AS n FROM flights' }) });
    const body = (await res.json()) as AnswerBody | { error: { code: string } };
    expect(res.status, JSON.stringify(body)).toBe(200);
    expect((body as AnswerBody).rows).toEqual([[TOTAL_ROWS]]);
  });

  it('a client that goes away cancels the query down to the leaves', async () => {
    const aborted = new Set<number>();
    const started = new Set<number>();
    const { app } = makeApp({
      wrap: (leaf) =>
        async function* waitForAbort(_req, signal) {
          started.add(shardOf(leaf));
          await new Promise<void>((resolve) => {
            if (signal.aborted) resolve();
            signal.addEventListener('abort', () => resolve(), { once: true });
          });
          aborted.add(shardOf(leaf));
          yield* [];
        },
    });
    const url = await listen(app);
    const client = new AbortController();
    const pending = fetch(`${url}/v1/query`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ sql: 'SELECT count(*) FROM flights' }), signal: client.signal });
    pending.catch(() => undefined);
    const until = async (cond: () => boolean, ms: number): Promise<void> => {
      const end = performance.now() + ms;
      while (!cond() && performance.now() < end) await new Promise((r) => setTimeout(r, 10));
    };
    await until(() => started.size === NON_EMPTY.length, 2000);
    expect([...started].sort()).toEqual(NON_EMPTY);
    expect(aborted.size, 'no leaf should be cancelled while the client waits').toBe(0);
    client.abort();
    await until(() => aborted.size === NON_EMPTY.length, 2000);
    expect([...aborted].sort()).toEqual(NON_EMPTY);
  });
});

describe('documentation', () => {
  it('README.md documents every error code', () => {
    const readme = path.resolve('README.md');
    expect(existsSync(readme), 'README.md should exist at the repository root').toBe(true);
    const text = readFileSync(readme, 'utf8');
    const undocumented = Object.keys(ERROR_CODES).filter((code) => !text.includes(code));
    expect(undocumented).toEqual([]);
  });
});
