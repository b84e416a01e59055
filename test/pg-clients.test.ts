/**
 * Real PostgreSQL clients from Debian's packages (installed by .ci/run) against canopy's
 * PostgreSQL protocol over small in-process trees: psql (queries, `\dt`, `\d flights`, the
 * NOTICE of a non-exact answer, Ctrl-C cancelling at the leaves), psycopg 3 (text and binary
 * results, parameters, lists as = ANY(%s) arrays, a prepared statement, cursor.description), psycopg2, and pandas'
 * read_sql over SQLAlchemy. Every answer must equal the JSON API's.
 */
import { execFile, execFileSync, spawn } from 'node:child_process';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { OID } from '../src/pg/index.ts';
import { flightsTrees, type ServedRoot, type waitingHandler } from './helpers/pg.ts';

const PYTHON = '/usr/bin/python3';

function available(cmd: string, args: string[]): boolean {
  try {
    execFileSync(cmd, args, { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
}

const HAVE_PSQL = available('psql', ['--version']);
const HAVE_PYTHON = available(PYTHON, ['-c', 'import psycopg, psycopg2, sqlalchemy, pandas']);
if (!HAVE_PSQL) console.warn('pg-clients: psql not installed (Debian postgresql-client); its tests are skipped');
if (!HAVE_PYTHON) console.warn('pg-clients: python3-psycopg/psycopg2/sqlalchemy/pandas not installed; their tests are skipped');

function run(cmd: string, args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((resolve) => {
    execFile(cmd, args, { timeout: 60_000, env: { ...process.env, PGCONNECT_TIMEOUT: '10', ...env } }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : -1, stdout, stderr });
    });
  });
}

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

const QUERIES = [
  'SELECT origin, count(*) AS n, sum(distance) AS miles, avg(delay) AS avg_delay, min(date) AS first FROM flights GROUP BY origin ORDER BY origin',
  'SELECT date, delay, distance, origin, destination FROM flights ORDER BY date LIMIT 6',
];

const psqlArgs = (s: ServedRoot, ...rest: string[]): string[] => ['-h', '127.0.0.1', '-p', String(s.pg.port), '-U', 'analyst', '-d', 'canopy', '-X', ...rest];

describe.skipIf(!HAVE_PSQL)('psql', () => {
  it('answers queries as the JSON API does (unaligned output)', async () => {
    for (const sql of QUERIES) {
      const json = await exact.json(sql);
      const r = await run('psql', psqlArgs(exact, '-A', '-F', '|', '-P', 'null=<null>', '-c', sql));
      expect(r.code, r.stderr).toBe(0);
      const lines = r.stdout.trim().split('\n');
      expect(lines[0]).toBe(json.columns.map((c) => c.name).join('|'));
      expect(lines.at(-1)).toBe(`(${json.rows.length} row${json.rows.length === 1 ? '' : 's'})`);
      const expected = json.rows.map((row) =>
        row.map((v, i) => (v === null ? '<null>' : json.columns[i]!.type === 'timestamp' ? String(v).replace('T', ' ').replace(/\.000Z$/, '+00') : String(v))).join('|'),
      );
      expect(lines.slice(1, -1)).toEqual(expected);
    }
  });

  it('\\dt lists the served tables and \\d flights their columns with PostgreSQL types', async () => {
    const dt = await run('psql', psqlArgs(exact, '-c', '\\dt'));
    expect(dt.code, dt.stderr).toBe(0);
    expect(dt.stdout).toMatch(/public \| flights \| table \| analyst/);
    const d = await run('psql', psqlArgs(exact, '-c', '\\d flights'));
    expect(d.code, d.stderr).toBe(0);
    expect(d.stdout).toContain('Table "public.flights"');
    for (const [col, type] of [['date', 'timestamp with time zone'], ['delay', 'bigint'], ['distance', 'bigint'], ['origin', 'text'], ['destination', 'text']]) {
      expect(d.stdout).toMatch(new RegExp(`^ ${col}\\s+\\| ${type}\\s+\\|`, 'm'));
    }
    const none = await run('psql', psqlArgs(exact, '-c', '\\d planes'));
    expect(none.stderr).toContain('Did not find any relation named "planes"');
  });

  it('\\l lists the one database and \\dn the schema public (they failed on pg_get_userbyid)', async () => {
    const l = await run('psql', psqlArgs(exact, '-A', '-F', '|', '-c', '\\l'));
    expect(l.code, l.stderr).toBe(0);
    expect(l.stdout).toMatch(/^Name\|Owner\|Encoding\|/m);
    expect(l.stdout).toMatch(/^canopy\|analyst\|UTF8\|/m);
    const dn = await run('psql', psqlArgs(exact, '-A', '-F', '|', '-c', '\\dn+'));
    expect(dn.code, dn.stderr).toBe(0);
    expect(dn.stdout).toMatch(/^Name\|Owner\|Access privileges\|Description$/m);
    expect(dn.stdout).toMatch(/^public\|analyst\|\|$/m);
    const none = await run('psql', psqlArgs(exact, '-A', '-c', '\\l nope'));
    expect(none.stdout).toContain('(0 rows)');
  });

  it('prints the NOTICE of a non-exact answer before its rows', async () => {
    const r = await run('psql', psqlArgs(failing, '-c', 'SELECT origin, count(*) AS n FROM flights GROUP BY origin ORDER BY origin'));
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/NOTICE: {2}canopy: answer is approximate, not exact: 5 of 6 shards covered/);
    expect(r.stderr).toMatch(/DETAIL: {2}.*root\/agg-\d\/leaf-2 \(shard 2, failed: CANOPY_ERR_/);
    expect(r.stderr).toContain('HINT:  SHOW canopy.last_answer');
    const last = await run('psql', psqlArgs(failing, '-A', '-t', '-c', 'SELECT count(*) FROM flights', '-c', 'SHOW canopy.last_answer'));
    expect(last.stdout).toMatch(/^answer\|\|\|bounded\|/m);
    expect(last.stdout).toMatch(/^cell\|1\|[^|]+\|bounded\|10\|11\|$/m);
  });

  it('reports a syntax error with its position', async () => {
    const r = await run('psql', psqlArgs(exact, '-c', 'SELECT count(*) FROM flights WHERE delay = = 3'));
    expect(r.code).not.toBe(0);
    expect(r.stderr).toMatch(/ERROR: {2}syntax error/);
    expect(r.stderr).toMatch(/LINE 1: SELECT count\(\*\) FROM flights WHERE delay = = 3\n\s+\^/);
  });

  it('Ctrl-C (SIGINT: psql sends a CancelRequest) stops the query at the leaves', async () => {
    const before = leafWait.aborted();
    const child = spawn('psql', psqlArgs(hanging, '-c', 'SELECT count(*) FROM flights'), { stdio: ['ignore', 'pipe', 'pipe'] });
    let stderr = '';
    child.stderr.on('data', (b: Buffer) => (stderr += b.toString()));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    await expect.poll(() => leafWait.started() > leafWait.aborted(), { timeout: 20_000 }).toBe(true);
    child.kill('SIGINT');
    const code = await exited;
    expect(stderr).toContain('canceling statement due to user request');
    expect(code).not.toBe(0);
    expect(leafWait.aborted()).toBeGreaterThan(before);
  });
});

describe.skipIf(!HAVE_PYTHON)('Python clients', () => {
  it('psycopg 3 (text and binary), psycopg2 and pandas.read_sql over SQLAlchemy read what the JSON API answers', async () => {
    const r = await run(PYTHON, ['test/fixtures/pg_clients.py', String(exact.pg.port), ...QUERIES]);
    expect(r.code, r.stderr).toBe(0);
    const out = JSON.parse(r.stdout) as Record<string, unknown[][][]> & { description: [string, number][]; params: Record<string, unknown[][]>; sqlalchemy_tables: string[]; sqlalchemy_columns: string[][] };
    for (const [qi, sql] of QUERIES.entries()) {
      const json = await exact.json(sql);
      for (const client of ['psycopg', 'psycopg_binary', 'psycopg2'] as const) expect(out[client]![qi], `${client}: ${sql}`).toEqual(json.rows);
      // pandas makes integer columns with NULLs float64, NULLs NaN -> null: compare as numbers.
      const asNumbers = (rows: unknown[][]): unknown[][] => rows.map((row) => row.map((v) => (typeof v === 'number' ? Number(v) : v)));
      expect(asNumbers(out.pandas![qi]!), `pandas: ${sql}`).toEqual(asNumbers(json.rows));
    }
    expect(out.description).toEqual([
      ['origin', OID.text],
      ['n', OID.int8],
      ['miles', OID.numeric],
      ['avg_delay', OID.float8],
      ['first', OID.timestamptz],
    ]);
    const params = await exact.json("SELECT origin, count(*) AS n FROM flights WHERE delay > 0 AND origin <> 'SFO' GROUP BY origin ORDER BY origin");
    expect(out.params.psycopg).toEqual(params.rows);
    expect(out.params.psycopg2).toEqual(params.rows);
    expect(out.params.psycopg_prepared).toEqual((await exact.json('SELECT count(*) AS n FROM flights WHERE delay >= 10')).rows);
    // Lists as = ANY(%s) / <> ALL(%s): psycopg 3 binds a PostgreSQL array, psycopg2 writes ARRAY[...].
    const any = (await exact.json("SELECT count(*) AS n FROM flights WHERE origin IN ('SFO', 'LAX') AND delay NOT IN (1, 2)")).rows;
    expect(out.params.psycopg_any).toEqual(any);
    expect(out.params.psycopg2_any).toEqual(any);
    expect(out.sqlalchemy_tables).toEqual(['flights']);
    expect(out.sqlalchemy_columns).toEqual([
      ['date', 'TIMESTAMP'],
      ['delay', 'BIGINT'],
      ['distance', 'BIGINT'],
      ['origin', 'TEXT'],
      ['destination', 'TEXT'],
    ]);
  });
});
