/**
 * The PostgreSQL protocol through node-postgres (npm `pg`): simple and extended queries
 * answer what the JSON API answers, with the right type OIDs and text/binary values;
 * errors carry SQLSTATEs (and positions); a non-exact answer comes with its notice and
 * `SHOW canopy.last_answer`; session settings reach the engine; CancelRequest and a client
 * going away cancel the query down to the leaves.
 */
import { connect } from 'node:net';
import pg from 'pg';
import type { NoticeMessage } from 'pg-protocol/dist/messages.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OID } from '../src/pg/index.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS } from './helpers/flights.ts';
import { flightsTrees, serveRoot, type ServedRoot, type waitingHandler } from './helpers/pg.ts';
import { inProcessRoot } from './helpers/tree.ts';

// Values as text, exactly as sent (no client-side parsing), so they compare with the JSON API.
const rawTypes = { getTypeParser: () => (v: string) => v };

let exact: ServedRoot;
let failing: ServedRoot;
let hanging: ServedRoot;
let leafWait: ReturnType<typeof waitingHandler>;
let trees: Awaited<ReturnType<typeof flightsTrees>>;

beforeAll(async () => {
  trees = await flightsTrees();
  ({ exact, failing, hanging, leafWait } = trees);
});

afterAll(async () => {
  await trees?.close();
});

async function client(s: ServedRoot, opts: Partial<pg.ClientConfig> = {}): Promise<pg.Client> {
  const c = new pg.Client({ host: '127.0.0.1', port: s.pg.port, user: 'tester', database: 'canopy', types: rawTypes, ...opts });
  await c.connect();
  return c;
}
/** The JSON API's rows as the text PostgreSQL sends (timestamps as `YYYY-MM-DD HH:MM:SS+00`). */
function jsonAsText(rows: unknown[][], types: string[]): (string | null)[][] {
  return rows.map((r) =>
    r.map((v, i) => {
      if (v === null) return null;
      if (types[i] === 'timestamp') return String(v).replace('T', ' ').replace(/\.000Z$|Z$/, '+00');
      return String(v);
    }),
  );
}

const QUERIES = [
  'SELECT origin, count(*) AS n, sum(distance) AS miles, avg(delay) AS avg_delay, min(date) AS first FROM flights GROUP BY origin ORDER BY origin',
  'SELECT date, delay, origin, destination FROM flights ORDER BY date LIMIT 5',
  "SELECT date_trunc('month', date) AS month, max(delay) AS worst FROM flights GROUP BY 1 ORDER BY 1",
  'SELECT count(*) AS n FROM flights WHERE origin IS NULL',
  // Metabase's day grouping: a DATE column, PostgreSQL's date (OID 1082) as '2001-01-02'.
  'SELECT CAST(date AS DATE) AS day, count(*) AS n FROM flights GROUP BY CAST(date AS DATE) ORDER BY day',
  'SELECT CAST("public"."flights"."date" AS date) AS "date", count(*) AS "count" FROM "public"."flights" GROUP BY CAST("public"."flights"."date" AS date) ORDER BY CAST("public"."flights"."date" AS date) ASC',
];

describe('node-postgres', () => {
  it('simple queries answer what the JSON API answers, with the right type OIDs', async () => {
    const c = await client(exact);
    try {
      for (const sql of QUERIES) {
        const json = await exact.json(sql);
        const res = await c.query({ text: sql, rowMode: 'array' });
        expect(res.fields.map((f) => f.name)).toEqual(json.columns.map((x) => x.name));
        const oids: Record<string, number> = { int64: OID.int8, int128: OID.numeric, float64: OID.float8, string: OID.text, timestamp: OID.timestamptz, bool: OID.bool, date: OID.date };
        expect(res.fields.map((f) => f.dataTypeID)).toEqual(json.columns.map((x) => oids[x.type]));
        expect(res.rows).toEqual(jsonAsText(json.rows, json.columns.map((x) => x.type)));
        expect(res.command).toBe('SELECT');
        expect(res.rowCount).toBe(json.rows.length);
      }
    } finally {
      await c.end();
    }
  });

  it('parameterised queries (extended protocol) bind $n as typed literals', async () => {
    const c = await client(exact);
    try {
      const sql = 'SELECT origin, count(*) AS n FROM flights WHERE delay > $1 AND origin <> $2 AND date >= $3 GROUP BY origin ORDER BY origin';
      const res = await c.query({ text: sql, values: [0, 'SFO', '2001-01-02'], rowMode: 'array' });
      const json = await exact.json("SELECT origin, count(*) AS n FROM flights WHERE delay > 0 AND origin <> 'SFO' AND date >= '2001-01-02' GROUP BY origin ORDER BY origin");
      expect(res.rows).toEqual(jsonAsText(json.rows, ['string', 'int64']));
      // A number-looking string compared with a string column stays a string; quotes are data.
      const quoted = await c.query({ text: 'SELECT count(*) AS n FROM flights WHERE origin = $1', values: ["SFO' OR origin <> 'x"], rowMode: 'array' });
      expect(quoted.rows).toEqual([['0']]);
      const num = await c.query({ text: 'SELECT count(*) AS n FROM flights WHERE origin = $1', values: ['123'], rowMode: 'array' });
      expect(num.rows).toEqual([['0']]);
      const limit = await c.query({ text: 'SELECT delay FROM flights ORDER BY delay DESC LIMIT $1', values: [2], rowMode: 'array' });
      expect(limit.rows).toEqual([['120'], ['40']]);
      const nulls = await c.query({ text: 'SELECT count(*) AS n FROM flights WHERE delay = $1', values: [null], rowMode: 'array' });
      expect(nulls.rows).toEqual([['0']]);
      // DuckDB's FROM-first form returns rows (its Describe gives the columns, not NoData).
      const fromFirst = await c.query({ text: 'FROM flights SELECT count(*) AS n WHERE delay >= $1', values: [10], rowMode: 'array' });
      expect(fromFirst.fields.map((f) => f.name)).toEqual(['n']);
      expect(fromFirst.rows).toEqual(jsonAsText((await exact.json('SELECT count(*) AS n FROM flights WHERE delay >= 10')).rows, ['int64']));
      // A prepared (named) statement, run twice.
      for (const v of [10, 100]) {
        const r = await c.query({ name: 'by-delay', text: 'SELECT count(*) AS n FROM flights WHERE delay >= $1', values: [v], rowMode: 'array' });
        const j = await exact.json(`SELECT count(*) AS n FROM flights WHERE delay >= ${v}`);
        expect(r.rows).toEqual(jsonAsText(j.rows, ['int64']));
      }
    } finally {
      await c.end();
    }
  });

  it('errors carry SQLSTATEs, the canopy code and the position; the session goes on', async () => {
    const c = await client(exact);
    try {
      const cases: [string, string][] = [
        ['SELECT dealy FROM flights LIMIT 1', '42703'],
        ['SELECT count(*) FROM planes', '42P01'],
        ['SELECT count(*) FROM flights f JOIN flights g ON f.delay = g.delay', '0A000'],
        ['SELECT count(*) FROM flights WHERE delay > ', '42601'],
        ["SELECT count(*) FROM flights WHERE delay > 'abc'", '42804'],
        ['INSERT INTO flights VALUES (1)', '25006'],
        // SQL-level PREPARE / EXECUTE / EXPLAIN are not writes: unsupported (0A000), PREPARE
        // refused as such rather than for its $1 left unbound.
        ['PREPARE q(int8) AS SELECT count(*) FROM flights WHERE delay > $1', '0A000'],
        ['EXECUTE q(5)', '0A000'],
        ['EXPLAIN SELECT count(*) FROM flights', '0A000'],
        ['SELECT * FROM pg_catalog.pg_proc', '0A000'],
        ['SHOW no_such_setting', '42704'],
      ];
      for (const [sql, code] of cases) {
        const err = (await c.query(sql).then(() => null, (e: unknown) => e)) as (Error & { code?: string; position?: string; detail?: string }) | null;
        expect(err, sql).not.toBeNull();
        expect(err!.code, `${sql}: ${err!.message}`).toBe(code);
      }
      const syntax = (await c.query('SELECT count(*) FROM flights WHERE delay = = 3').catch((e: unknown) => e)) as { position?: string; detail?: string };
      expect(Number(syntax.position)).toBeGreaterThan(30);
      expect(syntax.detail).toContain('CANOPY_ERR_BAD_QUERY');
      // Positions count characters, as PostgreSQL's do (psql draws the caret from them): an
      // emoji is one, not its two UTF-16 units; in simple and extended queries, and after an
      // earlier statement of the same query string.
      const emoji = (await c.query("SELECT '😀' AS e,, origin FROM flights").catch((e: unknown) => e)) as { code?: string; position?: string };
      expect([emoji.code, emoji.position]).toEqual(['42601', '17']);
      const bound = (await c.query("SELECT '😀' AS e,, origin FROM flights WHERE origin = $1", ['ORD']).catch((e: unknown) => e)) as { position?: string };
      expect(bound.position).toBe('17');
      const second = (await c.query("SET application_name = '😀'; SELECT ,1 FROM flights").catch((e: unknown) => e)) as { position?: string };
      expect(second.position).toBe(String([..."SET application_name = '😀'; SELECT "].length + 1));
      // Leading space and comments before the error count too (the engine reads the statement trimmed, comments blanked).
      for (const [sql, params] of [["  /* a comment */ SELECT 1 AS x, -- more\n ,1 FROM flights", []], ["\n SELECT origin FROM flights WHERE origin = $1 AND /* é */ ,", ['ORD']]] as [string, string[]][]) {
        const lead = (await c.query(sql, params).catch((e: unknown) => e)) as { code?: string; position?: string };
        expect([lead.code, lead.position], sql).toEqual(['42601', String(sql.lastIndexOf(',') + 1)]);
      }
      // A parameterised statement's error position is in the text as the client wrote it.
      const p = (await c.query('SELECT count(*) FROM flights WHERE origin = $1 AND dealy > 3', ['a long string value']).catch((e: unknown) => e)) as { code?: string };
      expect(p.code).toBe('42703');
      expect((await c.query({ text: 'SELECT 1 AS one', rowMode: 'array' })).rows).toEqual([['1']]);
    } finally {
      await c.end();
    }
  });

  it('a non-exact answer sends a NOTICE (01000) before its rows, and SHOW canopy.last_answer gives its bounds', async () => {
    const c = await client(failing);
    const notices: NoticeMessage[] = [];
    c.on('notice', (n) => notices.push(n));
    try {
      const sql = 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY origin';
      const json = await failing.json(sql);
      expect(json.label).toBe('approximate');
      const res = await c.query({ text: sql, rowMode: 'array' });
      expect(res.rows).toEqual(jsonAsText(json.rows, ['string', 'int64']));
      expect(notices).toHaveLength(1);
      expect(notices[0]!.code).toBe('01000');
      expect(notices[0]!.severity).toBe('NOTICE');
      expect(notices[0]!.message).toContain('approximate');
      expect(notices[0]!.detail).toContain('shard 2, failed');
      const last = await c.query({ text: 'SHOW canopy.last_answer', rowMode: 'array' });
      expect(last.fields.map((f) => f.name)).toEqual(['kind', 'row', 'column', 'label', 'lo', 'hi', 'detail']);
      expect(last.rows[0]!.slice(0, 4)).toEqual(['answer', null, null, 'approximate']);
      const missing = last.rows.filter((r) => r[0] === 'missing');
      expect(missing.map((r) => r[6])).toEqual((json.missing as { path: string; shard: number }[]).map((m) => expect.stringContaining(`${m.path} shard ${m.shard}`)));
      const cells = last.rows.filter((r) => r[0] === 'cell');
      const jsonCells = (json.cells ?? []).flatMap((r, i) => r.map((cell, j) => ({ cell: cell as { label: string; lo: unknown; hi: unknown } | null, i, j })).filter((x) => x.cell !== null));
      expect(cells).toEqual(jsonCells.map(({ cell, i, j }) => ['cell', String(i + 1), json.columns[j]!.name, cell!.label, cell!.lo === null ? null : String(cell!.lo), cell!.hi === null ? null : String(cell!.hi), null]));
      // An exact answer sends none.
      await c.query('SELECT count(*) FROM flights WHERE origin = \'ORD\' AND date < \'2001-01-05\'');
      expect(notices.length).toBeLessThanOrEqual(2);
    } finally {
      await c.end();
    }
  });

  it('SET canopy.* settings reach the engine; bad values are 22023; SHOW reports them', async () => {
    const c = await client(hanging);
    const notices: NoticeMessage[] = [];
    c.on('notice', (n) => notices.push(n));
    try {
      await c.query('SET canopy.deadline_ms = 150');
      expect((await c.query({ text: 'SHOW canopy.deadline_ms', rowMode: 'array' })).rows).toEqual([['150']]);
      // Shard 5 never answers: with a 150 ms deadline the answer comes without it, labelled.
      const res = await c.query({ text: 'SELECT count(*) AS n FROM flights', rowMode: 'array' });
      expect(res.rows).toHaveLength(1);
      expect(notices.at(-1)?.message).toContain('bounded');
      expect(notices.at(-1)?.detail).toContain('shard 5, omitted');
      const bad = (await c.query("SET canopy.policy = 'sometimes'").catch((e: unknown) => e)) as { code?: string };
      expect(bad.code).toBe('22023');
      await c.query("SET canopy.policy = 'all'");
      await c.query('SET canopy.exact = on');
      expect((await c.query({ text: 'SHOW canopy.policy', rowMode: 'array' })).rows).toEqual([['all']]);
      // Common client settings are accepted.
      for (const s of ["SET client_encoding TO 'UTF8'", "SET DateStyle = 'ISO'", 'SET extra_float_digits = 3', "SET application_name = 'x'", 'SET TIME ZONE UTC', 'BEGIN', 'COMMIT', 'DISCARD ALL']) await c.query(s);
      expect((await c.query({ text: 'SHOW canopy.policy', rowMode: 'array' })).rows).toEqual([['partial']]);
      expect((await c.query({ text: 'SHOW server_version', rowMode: 'array' })).rows[0]![0]).toMatch(/^16\./);
      expect((await c.query({ text: 'SELECT version(), current_database(), current_schema()', rowMode: 'array' })).rows[0]).toEqual([expect.stringContaining('PostgreSQL'), 'canopy', 'public']);
    } finally {
      await c.end();
    }
  });

  it('CancelRequest cancels the running query down to the leaves (57014); the session goes on', async () => {
    const c = await client(hanging);
    try {
      const before = leafWait.aborted();
      const running = c.query('SELECT count(*) FROM flights').then(
        () => null,
        (e: unknown) => e as { code?: string },
      );
      await expect.poll(() => leafWait.started() > leafWait.aborted()).toBe(true);
      const { processID, secretKey } = c as unknown as { processID: number; secretKey: number };
      await new Promise<void>((resolve, reject) => {
        const s = connect(hanging.pg.port, '127.0.0.1', () => {
          const b = Buffer.alloc(16);
          b.writeInt32BE(16, 0);
          b.writeInt32BE(80877102, 4);
          b.writeInt32BE(processID, 8);
          b.writeInt32BE(secretKey, 12);
          s.end(b);
        });
        s.on('close', () => resolve());
        s.on('error', reject);
      });
      const err = await running;
      expect(err?.code).toBe('57014');
      expect(leafWait.aborted()).toBeGreaterThan(before);
      expect((await c.query({ text: 'SELECT 1 AS one', rowMode: 'array' })).rows).toEqual([['1']]);
    } finally {
      await c.end();
    }
  });

  it('a client that disconnects mid-query cancels it at the leaves; the server keeps serving', async () => {
    const c = await client(hanging);
    c.on('error', () => undefined);
    const before = leafWait.aborted();
    void c.query('SELECT count(*) FROM flights').catch(() => undefined);
    await expect.poll(() => leafWait.started() > leafWait.aborted()).toBe(true);
    (c as unknown as { connection: { stream: { destroy(): void } } }).connection.stream.destroy();
    await expect.poll(() => leafWait.aborted()).toBeGreaterThan(before);
    const d = await client(exact);
    expect((await d.query({ text: 'SELECT count(*) AS n FROM flights', rowMode: 'array' })).rows).toEqual([['11']]);
    await d.end();
  });

  it('a password is required when configured (SCRAM-SHA-256 and cleartext); a wrong one is 28P01', async () => {
    const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
    for (const auth of ['scram-sha-256', 'password'] as const) {
      const s = await serveRoot(root, { password: 's3cret', auth });
      try {
        const ok = await client(s, { password: 's3cret' });
        expect((await ok.query({ text: 'SELECT count(*) AS n FROM flights', rowMode: 'array' })).rows).toEqual([['11']]);
        await ok.end();
        const bad = new pg.Client({ host: '127.0.0.1', port: s.pg.port, user: 'tester', password: 'wrong' });
        const err = (await bad.connect().then(() => null, (e: unknown) => e)) as { code?: string } | null;
        expect(err?.code, auth).toBe('28P01');
        await bad.end().catch(() => undefined);
      } finally {
        await s.close();
      }
    }
  });
});
