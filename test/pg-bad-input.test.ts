/**
 * Bad input on the PostgreSQL protocol: a malformed startup packet, an unsupported protocol
 * version, SSL/GSS requests, a wrong password, an oversized message, pipelined extended
 * queries with an error in the middle, and a fast-check fuzz of the message layer. Every
 * reply is parsed with node-postgres' own backend parser (pg-protocol), so what canopy sends
 * is valid protocol; after each case the same server still answers a fresh connection.
 */
import { connect } from 'node:net';
import fc from 'fast-check';
import pg from 'pg';
import { serialize } from 'pg-protocol';
import type { BackendMessage } from 'pg-protocol/dist/messages.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindParams, pgArrayElements, splitStatements, stringLiteral } from '../src/pg/sqltext.ts';
import { isLoopback } from '../src/pg/session.ts';
import { FrameSplitter } from '../src/pg/wire.ts';
import { encodeValue, numericBinary } from '../src/pg/types.ts';
import { planQuery } from '../src/root/index.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS } from './helpers/flights.ts';
import { exchange, serveRoot, type ServedRoot } from './helpers/pg.ts';
import { inProcessRoot } from './helpers/tree.ts';

let s: ServedRoot;
let secured: ServedRoot;

beforeAll(async () => {
  const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
  s = await serveRoot(root, { maxMessageBytes: 64 * 1024 });
  secured = await serveRoot(root, { password: 'right' });
});

afterAll(async () => {
  await Promise.all([s?.close(), secured?.close()]);
});

const STARTUP = serialize.startup({ user: 'fuzzer', database: 'canopy' });
const errorOf = (ms: BackendMessage[]): { severity?: string; code?: string; message: string } | undefined => ms.find((m) => m.name === 'error') as never;

async function stillServes(port = s.pg.port, password?: string): Promise<void> {
  const c = new pg.Client({ host: '127.0.0.1', port, user: 'x', database: 'canopy', ...(password === undefined ? {} : { password }) });
  await c.connect();
  const r = await c.query('SELECT count(*) AS n FROM flights');
  expect(r.rows).toEqual([{ n: '11' }]);
  await c.end();
}

describe('bad input', () => {
  it('a malformed startup packet gets a FATAL 08P01 and the connection is closed', async () => {
    const bad = Buffer.alloc(8);
    bad.writeInt32BE(3, 0); // length below the header itself
    const r = await exchange(s.pg.port, [bad]);
    expect(r.closed).toBe(true);
    expect(errorOf(r.messages)).toMatchObject({ severity: 'FATAL', code: '08P01' });
    const huge = Buffer.alloc(8);
    huge.writeInt32BE(1_000_000, 0);
    huge.writeInt32BE(196608, 4);
    expect(errorOf((await exchange(s.pg.port, [huge])).messages)).toMatchObject({ severity: 'FATAL', code: '08P01' });
    // Parameters without their terminating NUL.
    const cut = STARTUP.subarray(0, STARTUP.length - 3);
    const cutLen = Buffer.from(cut);
    cutLen.writeInt32BE(cut.length, 0);
    expect(errorOf((await exchange(s.pg.port, [cutLen])).messages)).toMatchObject({ severity: 'FATAL', code: '08P01' });
    await stillServes();
  });

  it('an unsupported protocol version and a missing user are refused clearly', async () => {
    const v2 = Buffer.alloc(8);
    v2.writeInt32BE(8, 0);
    v2.writeInt32BE(0x00020000, 4);
    expect(errorOf((await exchange(s.pg.port, [v2])).messages)).toMatchObject({ code: '0A000', message: expect.stringContaining('canopy speaks 3.0') });
    expect(errorOf((await exchange(s.pg.port, [serialize.startup({ database: 'canopy' } as never)])).messages)).toMatchObject({ code: '28000' });
    await stillServes();
  });

  it("SSLRequest and GSSENCRequest are answered 'N' and the startup continues in the clear", async () => {
    const gss = Buffer.alloc(8);
    gss.writeInt32BE(8, 0);
    gss.writeInt32BE(80877104, 4);
    let raw = Buffer.alloc(0);
    const sock = connect(s.pg.port, '127.0.0.1');
    await new Promise((resolve) => sock.once('connect', resolve));
    const got = (n: number): Promise<void> =>
      new Promise((resolve) => {
        const check = (): void => {
          if (raw.length >= n) {
            sock.off('data', on);
            resolve();
          }
        };
        const on = (b: Buffer): void => {
          raw = Buffer.concat([raw, b]);
          check();
        };
        sock.on('data', on);
        check();
      });
    sock.write(serialize.requestSsl());
    await got(1);
    sock.write(gss);
    await got(2);
    expect(raw.subarray(0, 2).toString()).toBe('NN');
    sock.write(STARTUP);
    await got(3);
    expect(raw[2]).toBe(0x52); // AuthenticationOk follows
    sock.destroy();
  });

  it('a wrong password is a FATAL 28P01 (SCRAM); the right one is served', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: secured.pg.port, user: 'x', password: 'wrong' });
    const err = (await c.connect().then(() => null, (e: unknown) => e)) as { code?: string; severity?: string } | null;
    expect(err).toMatchObject({ code: '28P01', severity: 'FATAL' });
    await c.end().catch(() => undefined);
    // No password at all: the client cannot answer the SASL challenge.
    const none = new pg.Client({ host: '127.0.0.1', port: secured.pg.port, user: 'x' });
    expect(await none.connect().then(() => 'connected', () => 'refused')).toBe('refused');
    await none.end().catch(() => undefined);
    await stillServes(secured.pg.port, 'right');
  });

  it('without a password only loopback clients are trusted', () => {
    expect(['127.0.0.1', '127.1.2.3', '::1', '::ffff:127.0.0.1'].map(isLoopback)).toEqual([true, true, true, true]);
    expect(['10.0.0.1', '::ffff:192.168.1.2', '128.0.0.1', undefined].map(isLoopback)).toEqual([false, false, false, false]);
  });

  it('an oversized message is refused with 54000 before it is buffered; the server stays healthy', async () => {
    const head = Buffer.alloc(5);
    head.write('Q', 0);
    head.writeInt32BE(512 * 1024 * 1024, 1); // announces 512 MiB, sends none of it
    const r = await exchange(s.pg.port, [STARTUP, head]);
    expect(r.closed).toBe(true);
    expect(errorOf(r.messages)).toMatchObject({ severity: 'FATAL', code: '54000', message: expect.stringContaining('65536') });
    await stillServes();
  });

  it('an error inside a pipelined extended query skips to Sync and the session goes on', async () => {
    const msgs = [
      STARTUP,
      serialize.parse({ text: 'SELECT dealy FROM flights LIMIT 1' }),
      serialize.bind({}),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
      serialize.parse({ text: 'SELECT count(*) AS n FROM flights' }),
      serialize.bind({}),
      serialize.describe({ type: 'P' }),
      serialize.execute({}),
      serialize.sync(),
    ];
    const r = await exchange(s.pg.port, msgs, { until: (ms) => ms.filter((m) => m.name === 'readyForQuery').length === 3 });
    const names = r.messages.map((m) => m.name).filter((n) => n !== 'parameterStatus');
    expect(names).toEqual(['authenticationOk', 'backendKeyData', 'readyForQuery', 'parseComplete', 'bindComplete', 'error', 'readyForQuery', 'parseComplete', 'bindComplete', 'rowDescription', 'dataRow', 'commandComplete', 'readyForQuery']);
    expect(errorOf(r.messages)?.code).toBe('42703');
    // An empty query and a row limit (PortalSuspended) on Execute.
    const more = await exchange(s.pg.port, [STARTUP, serialize.query(''), serialize.parse({ text: 'SELECT delay FROM flights ORDER BY delay LIMIT 3' }), serialize.bind({}), serialize.execute({ rows: 2 }), serialize.execute({ rows: 2 }), serialize.sync()], {
      until: (ms) => ms.filter((m) => m.name === 'readyForQuery').length === 3,
    });
    expect(more.messages.map((m) => m.name).slice(-8)).toEqual(['parseComplete', 'bindComplete', 'dataRow', 'dataRow', 'portalSuspended', 'dataRow', 'commandComplete', 'readyForQuery']);
    expect(more.messages.map((m) => m.name)).toContain('emptyQuery');
    expect(more.messages.filter((m) => m.name === 'dataRow')).toHaveLength(3);
    expect(more.messages.filter((m) => m.name === 'portalSuspended')).toHaveLength(1);
  });

  it('fuzz: arbitrary frontend messages never crash the server; every reply is valid protocol', async () => {
    const typed = fc.record({ type: fc.constantFrom(...'QPBDECSHXFdcfpz!'.split('').map((c) => c.charCodeAt(0))), body: fc.uint8Array({ maxLength: 64 }) }).map(({ type, body }) => {
      const b = Buffer.alloc(5 + body.length);
      b[0] = type;
      b.writeInt32BE(4 + body.length, 1);
      Buffer.from(body).copy(b, 5);
      return b;
    });
    const wellFormed = fc.constantFrom(serialize.query('SELECT count(*) FROM flights'), serialize.parse({ text: 'SELECT $1' }), serialize.bind({ values: ['x'] }), serialize.describe({ type: 'P' }), serialize.execute({}), serialize.sync(), serialize.flush());
    const garbage = fc.uint8Array({ minLength: 1, maxLength: 40 }).map((a) => Buffer.from(a));
    await fc.assert(
      fc.asyncProperty(fc.boolean(), fc.array(fc.oneof(typed, wellFormed, garbage), { minLength: 1, maxLength: 8 }), async (startup, parts) => {
        const r = await exchange(s.pg.port, startup ? [STARTUP, ...parts, serialize.sync()] : parts, { end: true });
        // pg-protocol reports bytes it cannot read as backend messages as an error message without severity.
        for (const m of r.messages) if (m.name === 'error') expect((m as { severity?: string }).severity, JSON.stringify(m)).toMatch(/^(ERROR|FATAL)$/);
      }),
      { numRuns: 60 },
    );
    await stillServes();
  });
});

describe('frame splitting', () => {
  it('any chunking of a message stream yields the same messages', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.constantFrom(0x51, 0x50, 0x42, 0x53), fc.uint8Array({ maxLength: 300 })), { maxLength: 10 }), fc.array(fc.nat(400), { maxLength: 20 }), (msgs, cuts) => {
        const framed = msgs.map(([type, body]) => {
          const b = Buffer.alloc(5 + body.length);
          b[0] = type;
          b.writeInt32BE(4 + body.length, 1);
          Buffer.from(body).copy(b, 5);
          return b;
        });
        const stream = Buffer.concat([STARTUP, ...framed]);
        const points = [...new Set(cuts.map((c) => c % (stream.length + 1)))].sort((a, b) => a - b);
        const splitter = new FrameSplitter(1 << 20);
        const got: { type: number; body: string }[] = [];
        let at = 0;
        const take = (chunk: Buffer): void => {
          for (const m of splitter.push(chunk)) {
            if (!splitter.started) splitter.started = true; // the startup packet
            else got.push({ type: m.type, body: m.body.toString('hex') });
          }
          if (splitter.started) for (const m of splitter.push(Buffer.alloc(0))) got.push({ type: m.type, body: m.body.toString('hex') });
        };
        for (const p of [...points, stream.length]) {
          take(stream.subarray(at, p));
          at = p;
        }
        expect(got).toEqual(msgs.map(([type, body]) => ({ type, body: Buffer.from(body).toString('hex') })));
        expect(splitter.pending).toBe(0);
      }),
      { numRuns: 300 },
    );
  });
});

describe('parameters and values', () => {
  const columns = new Map(FLIGHTS_SCHEMA.columns.map((c) => [c.name, c.type]));
  const schemas = new Map([['flights', FLIGHTS_SCHEMA]]);

  it('a bound string parameter is read back by the SQL parser as exactly that value (no injection), backslashes too', () => {
    fc.assert(
      fc.property(fc.string({ unit: fc.constantFrom("'", '\\', 'a', ' ', '-', ';', '"', 'O', 'R', '$', '1', '\n', 'n', 'E') , maxLength: 16 }), (v) => {
        const sql = bindParams('SELECT count(*) AS n FROM flights WHERE origin = $1', [{ oid: 25, text: v }], columns).sql;
        const plan = planQuery(sql, schemas);
        expect(plan.scan.filter).toEqual({ kind: 'cmp', op: '=', left: { kind: 'col', name: 'origin' }, right: { kind: 'lit', value: v, type: 'string' } });
      }),
      { numRuns: 400 },
    );
    expect(stringLiteral('a\\', 1)).toBe("'a\\'");
    expect(stringLiteral("it's", 1)).toBe("'it''s'");
  });

  it('typed parameters are checked: an int8 parameter must be an integer', () => {
    expect(() => bindParams('SELECT count(*) FROM flights WHERE delay > $1', [{ oid: 20, text: '1 OR 1=1' }], columns)).toThrow(/not an integer/);
    expect(bindParams('SELECT count(*) FROM flights WHERE delay > $1 AND origin = $2', [{ oid: 20, text: '5' }, { oid: 0, text: '7' }], columns).sql).toBe("SELECT count(*) FROM flights WHERE delay > 5 AND origin = '7'");
    expect(() => bindParams('SELECT $2', [{ oid: 0, text: '1' }], columns)).toThrow(/uses \$2/);
    // $1 inside strings and comments is text, not a parameter.
    expect(bindParams("SELECT '$1' -- $1\n, $1", [{ oid: 0, text: 'x' }], columns).sql).toBe("SELECT '$1' -- $1\n, 'x'");
    expect(splitStatements("SET a = 'x;y'; SELECT 1;; ").map((st) => st.text.trim())).toEqual(["SET a = 'x;y'", 'SELECT 1']);
  });

  it('an array parameter of = ANY($n) / <> ALL($n) is a list literal: strings, or numbers for a number column or a number array type; bad arrays refused', () => {
    expect(pgArrayElements('{a,"b c","x\\"y\\\\",NULL, 2 ,"NULL"}')).toEqual(['a', 'b c', 'x"y\\', null, '2', 'NULL']);
    expect(pgArrayElements(' { } ')).toEqual([]);
    for (const bad of ['{{1},{2}}', 'abc', '{a,}', '{a', '{"a}', '{a b"c}']) expect(pgArrayElements(bad), bad).toBeNull();
    const bound = (sql: string, oid: number, text: string | null): string => bindParams(sql, [{ oid, text }], columns).sql;
    expect(bound('SELECT count(*) FROM flights WHERE origin = ANY($1)', 0, '{SFO,"it\'s",NULL}')).toBe("SELECT count(*) FROM flights WHERE origin = ANY(['SFO', 'it''s', NULL])");
    expect(bound('SELECT count(*) FROM flights WHERE delay <> ALL( $1 )', 0, '{1,-2.5}')).toBe('SELECT count(*) FROM flights WHERE delay <> ALL( [1, -2.5] )');
    expect(bound('SELECT count(*) FROM flights WHERE delay = ANY($1)', 1009, '{1,2}')).toBe("SELECT count(*) FROM flights WHERE delay = ANY(['1', '2'])");
    expect(bound('SELECT count(*) FROM flights WHERE origin = SOME($1)', 1016, '{1}')).toBe('SELECT count(*) FROM flights WHERE origin = SOME([1])');
    expect(bound('SELECT count(*) FROM flights WHERE origin = ANY($1)', 0, null)).toBe('SELECT count(*) FROM flights WHERE origin = ANY(NULL)');
    expect(() => bound('SELECT count(*) FROM flights WHERE delay = ANY($1)', 0, '{1,x}')).toThrow(/'x', which is not a number/);
    // Cast to an array type (`= ANY($1::text[])`, as node-postgres users write it): the elements as strings, the cast kept.
    expect(bound('SELECT count(*) FROM flights WHERE origin = ANY($1::text[])', 0, '{SFO,NULL}')).toBe("SELECT count(*) FROM flights WHERE origin = ANY(['SFO', NULL]::text[])");
    expect(bound('SELECT count(*) FROM flights WHERE delay = ANY($1 :: int[])', 0, '{1,2}')).toBe("SELECT count(*) FROM flights WHERE delay = ANY(['1', '2'] :: int[])");
    expect(() => bound('SELECT count(*) FROM flights WHERE origin = ANY($1)', 0, 'SFO')).toThrow(/not a one-dimensional array/);
    // Planned as IN: the strings compared with the column, a number list with a string column refused.
    const filter = JSON.stringify(planQuery(bound('SELECT count(*) FROM flights WHERE origin = ANY($1)', 0, '{SFO,LAX}'), schemas).scan.filter);
    expect(filter).toContain('"SFO"');
    expect(filter).toContain('"LAX"');
    expect(() => planQuery(bound('SELECT count(*) FROM flights WHERE origin = ANY($1)', 1007, '{1}'), schemas)).toThrow(/cannot compare/);
  });

  it('node-postgres arrays as = ANY($1) / <> ALL($2) answer as IN / NOT IN', async () => {
    const c = new pg.Client({ host: '127.0.0.1', port: s.pg.port, user: 'x', database: 'canopy' });
    await c.connect();
    try {
      const got = await c.query('SELECT count(*) AS n FROM flights WHERE origin = ANY($1) AND delay <> ALL($2)', [['SFO', 'LAX', null], [5]]);
      const want = await c.query("SELECT count(*) AS n FROM flights WHERE origin IN ('SFO', 'LAX', NULL) AND delay NOT IN (5)");
      expect(got.rows).toEqual(want.rows);
      expect(Number(want.rows[0].n)).toBeGreaterThan(0);
      const cast = await c.query('SELECT count(*) AS n FROM flights WHERE origin = ANY($1::text[]) AND delay <> ALL($2::bigint[])', [['SFO', 'LAX', null], [5]]);
      expect(cast.rows).toEqual(want.rows);
      await expect(c.query('SELECT count(*) AS n FROM flights WHERE origin = ANY($1)', [[]])).rejects.toThrow(/empty list/);
    } finally {
      await c.end();
    }
  });

  it('binary encodings match PostgreSQL: numeric, int8, float8, timestamptz, bool', () => {
    // numeric 12345678 = digits [1234, 5678], weight 1; -10000 = [1], weight 1, sign 0x4000.
    expect(numericBinary(12345678n).toString('hex')).toBe('0002000100000000' + '04d2162e');
    expect(numericBinary(-10000n).toString('hex')).toBe('0001000140000000' + '0001');
    expect(numericBinary(0n).toString('hex')).toBe('0000000000000000');
    expect(encodeValue(-2n, 'int64', 1)!.toString('hex')).toBe('fffffffffffffffe');
    // Text format as PostgreSQL prints float8: -0 keeps its sign, as the JSON API's "-0".
    expect(encodeValue(-0, 'float64', 0)!.toString()).toBe('-0');
    expect(encodeValue(0, 'float64', 0)!.toString()).toBe('0');
    expect(encodeValue(1.5, 'float64', 1)!.toString('hex')).toBe('3ff8000000000000');
    // 2000-01-01T00:00:01Z is 1,000,000 µs after PostgreSQL's epoch.
    expect(encodeValue(Date.UTC(2000, 0, 1, 0, 0, 1) * 1000, 'timestamp', 1)!.toString('hex')).toBe('00000000000f4240');
    expect(encodeValue(true, 'bool', 1)!.toString('hex')).toBe('01');
    expect(encodeValue(Date.UTC(2001, 1, 3, 4, 5, 6, 700) * 1000, 'timestamp', 0)!.toString()).toBe('2001-02-03 04:05:06.7+00');
    expect(encodeValue(123456789012345678901234567890n, 'int128', 0)!.toString()).toBe('123456789012345678901234567890');
  });
});
