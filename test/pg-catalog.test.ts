/**
 * The catalog over the PostgreSQL protocol: session functions, information_schema and
 * pg_catalog tables, the queries Grafana's PostgreSQL data source sends (version probe,
 * TimescaleDB probe, schema, table and column pickers; written here in our own layout:
 * shapes are matched with whitespace collapsed), an unknown catalog query (0A000), and the
 * Describe of a prepared statement (what pgx and JDBC use) before it runs.
 */
import pg from 'pg';
import { serialize } from 'pg-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OID } from '../src/pg/index.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS } from './helpers/flights.ts';
import { exchange, serveRoot, type ServedRoot } from './helpers/pg.ts';
import { inProcessRoot } from './helpers/tree.ts';

let s: ServedRoot;
let c: pg.Client;

beforeAll(async () => {
  s = await serveRoot(inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 }).root);
  c = new pg.Client({ host: '127.0.0.1', port: s.pg.port, user: 'grafana', database: 'canopy' });
  await c.connect();
});

afterAll(async () => {
  await c?.end();
  await s?.close();
});

const rows = async (sql: string): Promise<unknown[][]> => (await c.query({ text: sql, rowMode: 'array' })).rows;
const SEARCH_PATH = `quote_ident(table_schema) IN (
      SELECT CASE WHEN trim(s[i]) = '"$user"' THEN user ELSE trim(s[i]) END
      FROM generate_series(array_lower(string_to_array(current_setting('search_path'),','),1),
                           array_upper(string_to_array(current_setting('search_path'),','),1)) as i,
           string_to_array(current_setting('search_path'),',') s)`;

describe('catalog', () => {
  it('session functions and settings', async () => {
    expect(await rows("SELECT version(), current_database(), current_schema(), current_user, 1 AS one, 'x' AS x")).toEqual([[expect.stringMatching(/^PostgreSQL 16\.0 \(canopy/), 'canopy', 'public', 'grafana', '1', 'x']]);
    expect(await rows("SELECT current_setting('server_version_num')::int/100 as version")).toEqual([['1600']]);
    expect(await rows('SHOW transaction isolation level')).toEqual([['read committed']]);
  });

  it('information_schema.tables and columns come from the served schema', async () => {
    expect(await rows("SELECT table_schema, table_name, table_type FROM information_schema.tables WHERE table_schema NOT IN ('pg_catalog', 'information_schema') ORDER BY table_name")).toEqual([['public', 'flights', 'BASE TABLE']]);
    expect(await rows("SELECT column_name, data_type, ordinal_position FROM information_schema.columns WHERE table_name = 'flights' AND table_schema = 'public' ORDER BY ordinal_position")).toEqual([
      ['date', 'timestamp with time zone', '1'],
      ['delay', 'bigint', '2'],
      ['distance', 'bigint', '3'],
      ['origin', 'text', '4'],
      ['destination', 'text', '5'],
    ]);
    expect(await rows("SELECT column_name FROM information_schema.columns WHERE table_name = 'flights' AND column_name LIKE 'd%' ORDER BY 1 DESC")).toEqual([['distance'], ['destination'], ['delay'], ['date']]);
    expect(await rows("SELECT tablename FROM pg_catalog.pg_tables WHERE schemaname = 'public'")).toEqual([['flights']]);
  });

  it("answers Grafana's data source queries: version, TimescaleDB, schemas, tables, columns", async () => {
    expect(await rows("SELECT extversion FROM pg_extension WHERE extname = 'timescaledb'")).toEqual([]);
    expect(
      await rows(`SELECT schema_name AS "name" FROM information_schema.schemata
        WHERE schema_name NOT IN ('information_schema', 'pg_catalog', 'pg_toast', '_timescaledb_cache', 'timescaledb_information')
        ORDER BY schema_name`),
    ).toEqual([['public']]);
    expect(await rows(`SELECT quote_ident(table_name) AS "table" FROM information_schema.tables WHERE quote_ident(table_schema) = 'public' ORDER BY 1`)).toEqual([['flights']]);
    expect(
      await rows(`SELECT CASE WHEN ${SEARCH_PATH}
          THEN quote_ident(table_name)
          ELSE quote_ident(table_schema) || '.' || quote_ident(table_name)
        END AS "table"
        FROM information_schema.tables
        WHERE quote_ident(table_schema) NOT IN ('information_schema', 'pg_catalog', '_timescaledb_cache')
        ORDER BY CASE WHEN ${SEARCH_PATH} THEN 0 ELSE 1 END, 1`),
    ).toEqual([['flights']]);
    const columns = await c.query({
      text: `SELECT quote_ident(column_name) AS "column", data_type AS "type"
        FROM information_schema.columns
        WHERE CASE WHEN array_length(parse_ident('flights'),1) = 2
          THEN quote_ident(table_schema) = (parse_ident('flights'))[1] AND quote_ident(table_name) = (parse_ident('flights'))[2]
          ELSE quote_ident(table_name) = 'flights' AND ${SEARCH_PATH}
        END`,
      rowMode: 'array',
    });
    expect(columns.fields.map((f) => f.name)).toEqual(['column', 'type']);
    expect(columns.rows).toEqual([
      ['date', 'timestamp with time zone'],
      ['delay', 'bigint'],
      ['distance', 'bigint'],
      ['origin', 'text'],
      ['destination', 'text'],
    ]);
  });

  it('an unknown catalog query is a clear 0A000, never a crash', async () => {
    const err = (await c.query('SELECT p.proname FROM pg_catalog.pg_proc p JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace').catch((e: unknown) => e)) as { code?: string; message: string };
    expect(err.code).toBe('0A000');
    expect(err.message).toContain('information_schema.tables');
    expect(((await c.query('SELECT pg_size_pretty(1)').catch((e: unknown) => e)) as { code?: string }).code).toBe('0A000');
    expect(await rows('SELECT 1 AS ok')).toEqual([['1']]);
  });

  it('Describe of a prepared statement gives its parameter types and columns before it runs', async () => {
    const r = await exchange(s.pg.port, [
      serialize.startup({ user: 'pgx' }),
      serialize.parse({ name: 's1', text: 'SELECT origin, count(*) AS n, avg(delay) AS a, max(date) AS last FROM flights WHERE delay > $1 GROUP BY origin', types: [OID.int8] }),
      serialize.describe({ type: 'S', name: 's1' }),
      serialize.parse({ name: 's2', text: "SET canopy.deadline_ms = '100'" }),
      serialize.describe({ type: 'S', name: 's2' }),
      serialize.sync(),
    ], { until: (ms) => ms.filter((m) => m.name === 'readyForQuery').length === 2 });
    const desc = r.messages.find((m) => m.name === 'parameterDescription') as unknown as { dataTypeIDs: number[] };
    expect(desc.dataTypeIDs).toEqual([OID.int8]);
    const fields = (r.messages.find((m) => m.name === 'rowDescription') as unknown as { fields: { name: string; dataTypeID: number }[] }).fields;
    expect(fields.map((f) => [f.name, f.dataTypeID])).toEqual([
      ['origin', OID.text],
      ['n', OID.int8],
      ['a', OID.float8],
      ['last', OID.timestamptz],
    ]);
    expect(r.messages.map((m) => m.name)).toContain('noData');
  });
});
