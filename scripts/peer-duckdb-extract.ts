/**
 * Extracts single-table queries from DuckDB's sqllogictest files into
 * test/fixtures/peer-duckdb/cases.json, the cases of test/peer-duckdb-suite.test.ts.
 *
 * Usage: `npx tsx scripts/peer-duckdb-extract.ts DUCKDB_GIT_DIR [PATH_REGEX]` (default
 * {@link DEFAULT_FILES}), where
 * DUCKDB_GIT_DIR is a (bare) clone of github.com/duckdb/duckdb. Each `.test` file is replayed
 * in a fresh in-memory DuckDB: `statement` records run in order (failures ignored), and at each
 * `query` (or `statement error` SELECT) that names exactly one table whose columns canopy can
 * store (integers as int64, DOUBLE, VARCHAR, TIMESTAMP) the table's rows at that point are
 * snapshotted. Only the tables and the SQL are kept: the expected answers are computed by
 * DuckDB when the test runs. Records inside loops, `skipif duckdb`, `onlyif <other>` and
 * `mode skip` stretches are left out.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import type { QueryCase, StoredType, TableCase } from '../test/fixtures/peer-duckdb/cases.ts';

const MAX_ROWS = 3000;
/** Tables of more text than this (a 2.6 MB string in update/test_big_string_update.test) are left out. */
const MAX_TABLE_CHARS = 100_000;

/**
 * The .test files read by default: aggregates, scalar functions, ordering, LIMIT, filters,
 * casts, the types canopy holds, CTEs and subqueries (which canopy merges or refuses), and
 * what canopy should refuse cleanly (joins, set operations). Not subquery/any_all nor window:
 * a query of each over a BIGINT table crashes DuckDB 1.5 ("Expected unified vector format of
 * type INT64"), which invalidates the oracle's database for the queries after it.
 */
const DEFAULT_FILES =
  '^test/sql/(aggregate|function/(string|numeric|timestamp|date|interval|generic|operator)|order|limit|filter|topn|projection|cast|conjunction|types/(timestamp|numeric|null|string|float|hugeint|interval|decimal|alias)|select|having|collate|cte|subquery/(?!any_all)|optimizer|setops|join|pivot|parser|binder|keywords|error|sample|show_select|update|delete|insert)/.*\\.test$';

/** Statements inside a query that change data or the catalog. */
const DML = /\b(insert\s+into|update\s+\S+\s+set|delete\s+from|create\s+(or\s+replace\s+)?(temp\w*\s+)?(table|view|macro|sequence|type)|drop\s+(table|view)|alter\s+table|copy\s)/i;

/** The one-row table a query without FROM is asked over (canopy answers queries over a table). */
const ONE_ROW: TableCase = { name: 'one_row', columns: [{ name: 'one_row_id', type: 'int64', duck: 'BIGINT' }], rows: [['0']] };

/**
 * A SELECT of constants alone (`SELECT lower('ABC')`: no FROM and no clause after the SELECT
 * list) as the same SELECT over {@link ONE_ROW}, or null for any other query.
 */
function constantQuery(sql: string): string | null {
  const text = sql.replace(/'(?:[^']|'')*'/g, "''");
  if (!/^select\b/i.test(text) || /\b(from|where|group|having|order|limit|offset|union|except|intersect|qualify|window|select\b[\s\S]*\bselect)\b/i.test(text)) return null;
  if (/\b(random|uuid|gen_random_uuid|now|setseed|nextval)\s*\(|\b(current_\w+|get_current_\w+|localtime\w*|today)\b/i.test(text)) return null;
  return `${sql} FROM one_row`;
}

/** The canopy type DuckDB's column type maps onto, or null when canopy cannot store it. */
function storedType(t: string): StoredType | null {
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT)$/.test(t)) return 'int64';
  if (t === 'DOUBLE') return 'float64';
  if (t === 'VARCHAR') return 'string';
  if (t === 'TIMESTAMP') return 'timestamp';
  return null;
}

/** A DuckDB value in the fixture's JSON form. */
function jsonValue(v: unknown, t: StoredType): string | number | null {
  if (v === null || v === undefined) return null;
  if (t === 'int64') return String(v);
  if (t === 'float64') {
    const x = v as number;
    return Number.isFinite(x) ? (Object.is(x, -0) ? '-0' : x) : String(x);
  }
  if (t === 'timestamp') return Number((v as { micros: bigint }).micros);
  return v as string;
}

/** False for a value canopy refuses to load (an instant beyond ±2^53 µs) or DuckDB cannot take as a literal (a NUL character). */
function storable(v: string | number | null, t: StoredType): boolean {
  if (t === 'timestamp') return v === null || Math.abs(v as number) <= 2 ** 53;
  return typeof v !== 'string' || !v.includes('\u0000');
}

/** One parsed record of a .test file. */
interface TestRecord {
  readonly kind: 'statement' | 'query';
  readonly error: boolean;
  readonly sql: string;
  readonly line: number;
}

/** The records of a sqllogictest file that run unconditionally under DuckDB. */
function records(text: string): TestRecord[] {
  const lines = text.split('\n');
  const out: TestRecord[] = [];
  let loop = 0;
  let skipMode = false;
  let skipNext = false;
  for (let k = 0; k < lines.length; k++) {
    const l = lines[k]!.trim();
    if (/^(loop|foreach|concurrentloop|concurrentforeach)\b/.test(l)) loop++;
    else if (l === 'endloop') loop = Math.max(0, loop - 1);
    else if (l === 'mode skip') skipMode = true;
    else if (l === 'mode unskip') skipMode = false;
    else if (l === 'halt') break;
    else if (/^skipif\s+duckdb/.test(l) || (/^onlyif\s+/.test(l) && !/^onlyif\s+duckdb/.test(l))) skipNext = true;
    else if (/^(statement|query)\b/.test(l)) {
      const kind = l.startsWith('statement') ? 'statement' : 'query';
      const error = /^statement\s+error/.test(l);
      const sql: string[] = [];
      let j = k + 1;
      for (; j < lines.length && lines[j]!.trim() !== '' && lines[j]!.trim() !== '----'; j++) sql.push(lines[j]!);
      if (loop === 0 && !skipMode && !skipNext) out.push({ kind, error, sql: sql.join('\n').trim().replace(/;\s*$/, ''), line: k + 1 });
      skipNext = false;
      k = j;
    }
  }
  return out;
}

async function tablesNow(duck: DuckDBConnection): Promise<Map<string, { name: string; type: string }[]>> {
  const r = await duck.runAndReadAll("SELECT table_name, column_name, data_type FROM information_schema.columns WHERE table_schema = 'main' AND table_catalog = current_database() ORDER BY table_name, ordinal_position");
  const m = new Map<string, { name: string; type: string }[]>();
  for (const [t, c, ty] of r.getRows() as [string, string, string][]) {
    if (!m.has(t)) m.set(t, []);
    m.get(t)!.push({ name: c, type: ty });
  }
  return m;
}

/** The one table `sql` names, if canopy can store it: its columns, their types and its rows (null otherwise). */
async function snapshot(duck: DuckDBConnection, sql: string): Promise<{ name: string; cols: { name: string; type: string }[]; types: StoredType[]; rows: (string | number | null)[][] } | null> {
  const all = await tablesNow(duck);
  const named = [...all.keys()].filter((t) => new RegExp(`\\b${t}\\b`, 'i').test(sql));
  if (named.length !== 1) return null;
  const name = named[0]!;
  const cols = all.get(name)!;
  const mapped = cols.map((c) => storedType(c.type));
  if (mapped.some((t) => t === null) || cols.some((c) => !/^[a-z_][a-z0-9_]*$/i.test(c.name))) return null;
  const types = mapped as StoredType[];
  const count = Number((await duck.runAndReadAll(`SELECT count(*) FROM "${name}"`)).getRows()[0]![0]);
  if (count > MAX_ROWS) return null;
  const rows = (await duck.runAndReadAll(`SELECT * FROM "${name}"`)).getRows().map((r) => r.map((v, c) => jsonValue(v, types[c]!)));
  if (!rows.every((r) => r.every((v, c) => storable(v, types[c]!))) || JSON.stringify(rows).length > MAX_TABLE_CHARS) return null;
  return { name, cols, types, rows };
}

async function main(): Promise<void> {
  const [gitDir, pathRe] = process.argv.slice(2);
  if (gitDir === undefined) throw new Error('usage: peer-duckdb-extract.ts DUCKDB_GIT_DIR [PATH_REGEX]');
  const re = new RegExp(pathRe ?? DEFAULT_FILES);
  const files = execFileSync('git', ['-C', gitDir, 'ls-tree', '-r', 'HEAD', '--name-only'], { encoding: 'utf8', maxBuffer: 1 << 28 })
    .split('\n')
    .filter((f) => re.test(f));
  const tables: TableCase[] = [];
  const tableIndex = new Map<string, number>();
  const cases: QueryCase[] = [];
  const seen = new Set<string>();
  for (const file of files) {
    const text = execFileSync('git', ['-C', gitDir, 'show', `HEAD:${file}`], { encoding: 'utf8', maxBuffer: 1 << 28 });
    const db = await DuckDBInstance.create(':memory:');
    const duck = await db.connect();
    await duck.run("SET TimeZone = 'UTC'");
    for (const rec of records(text)) {
      const isSelect = /^(select|with|from|\()/i.test(rec.sql);
      if (rec.kind === 'statement' && !(rec.error && isSelect)) {
        if (!rec.error) await duck.run(rec.sql).catch(() => undefined);
        continue;
      }
      // EXPORT_STATE gives DuckDB's aggregate state, a type canopy has no use for; a query that
      // changes data (a DML CTE) would change the oracle's table under the next queries.
      if (!isSelect || /\bexport_state\b/i.test(rec.sql) || DML.test(rec.sql)) continue;
      const constant = constantQuery(rec.sql);
      const snap = constant !== null ? null : await snapshot(duck, rec.sql).catch(() => null);
      if (snap === null && constant === null) continue;
      const table: TableCase = snap === null ? ONE_ROW : { name: snap.name, columns: snap.cols.map((c, i) => ({ name: c.name, type: snap.types[i]!, duck: c.type })), rows: snap.rows };
      const sql = constant ?? rec.sql;
      const tkey = JSON.stringify(table);
      let ti = tableIndex.get(tkey);
      if (ti === undefined) {
        ti = tables.length;
        tables.push(table);
        tableIndex.set(tkey, ti);
      }
      const qkey = `${ti}\u0000${sql}`;
      if (seen.has(qkey)) continue;
      seen.add(qkey);
      cases.push({ file: file.replace(/^test\/sql\//, ''), line: rec.line, table: ti, sql, ...(rec.error ? { error: true as const } : {}) });
    }
    duck.closeSync();
    db.closeSync();
  }
  mkdirSync('test/fixtures/peer-duckdb', { recursive: true });
  writeFileSync('test/fixtures/peer-duckdb/cases.json', `${JSON.stringify({ source: 'github.com/duckdb/duckdb test/sql', tables, cases })}\n`);
  console.log(`${files.length} files, ${tables.length} tables, ${cases.length} queries`);
}

await main();
