/**
 * Test helpers for DuckDB's own sqllogictest cases ported over tables (hunts 30 and 32): each
 * table copied into the types canopy stores and served by 4 in-process trees, each query's
 * verdict against DuckDB (exact must equal it, bounded must hold it, a refusal must be a clear
 * 4xx, and where DuckDB refuses canopy must refuse too).
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFaults } from '../../src/leaf/index.ts';
import { compareValues, type ColumnType, type Scalar, type TableSchema } from '../../src/merge/index.ts';
import { answerToJSON, type Root } from '../../src/root/index.ts';
import { fromCanopy } from './compare.ts';
import { checkPartial, duckResult, valueDiff, type Body } from './differential.ts';
import { ask, inProcessRoot, throughWire } from './tree.ts';

/** One ported query: its SQL over `table` (see hunt 30's header for the fields). */
export interface Case {
  readonly sql: string;
  readonly table: string;
  /** The DuckDB test query (constants) this case lifts over a table. */
  readonly from?: string;
  /** Compare rows in order (DuckDB's file checks them unsorted, and the query has ORDER BY). */
  readonly ordered?: boolean;
  /** DuckDB's text when canopy's function is defined as another of DuckDB's (approx_quantile is quantile_disc, approx_count_distinct count(DISTINCT), both within canopy's labels). */
  readonly duck?: string;
}
/** One state of a DuckDB test file: its setup statements and the queries asked over it. */
export interface Snap {
  readonly file: string;
  readonly setup: readonly string[];
  readonly queries: readonly Case[];
}

/** DuckDB type of the column's copy, canopy's stored type. */
export function mapType(t: string): [string, ColumnType] | 'BIGINT?' | null {
  if (/^(TINYINT|SMALLINT|INTEGER|BIGINT|UTINYINT|USMALLINT|UINTEGER)$/.test(t)) return ['BIGINT', 'int64'];
  if (/^(UBIGINT|HUGEINT|UHUGEINT)$/.test(t)) return 'BIGINT?';
  if (/^(FLOAT|DOUBLE|DECIMAL.*)$/.test(t)) return ['DOUBLE', 'float64'];
  if (t === 'VARCHAR') return ['VARCHAR', 'string'];
  if (/^(DATE|TIMESTAMP.*)$/.test(t)) return ['TIMESTAMP', 'timestamp'];
  return null;
}

export interface Trees {
  readonly full: Root;
  readonly others: readonly [string, Root][];
  readonly failing: Root;
}

/** Copies `name` into the attached database `truth` in canopy's types and builds its trees. */
export async function materialize(con: DuckDBConnection, name: string): Promise<Trees> {
  const cols = (await con.runAndReadAll(`SELECT column_name, column_type FROM (DESCRIBE memory.main."${name}")`)).getRows() as [string, string][];
  const keep: [string, string, ColumnType][] = [];
  for (const [c, t] of cols) {
    let m = mapType(t);
    if (m === 'BIGINT?') {
      try {
        await con.run(`SELECT "${c}"::BIGINT FROM memory.main."${name}"`);
        m = ['BIGINT', 'int64'];
      } catch {
        m = null;
      }
    }
    if (m !== null && m[1] === 'timestamp') {
      try {
        const r = (await con.runAndReadAll(`SELECT count(*) FROM memory.main."${name}" WHERE NOT isfinite("${c}"::TIMESTAMP) OR year("${c}"::TIMESTAMP) NOT BETWEEN 1700 AND 2250`)).getRows();
        if (Number(r[0]![0]) > 0) m = null;
      } catch {
        m = null;
      }
    }
    if (m !== null) keep.push([c, m[0], m[1]]);
  }
  await con.run(`CREATE TABLE truth.main."${name}" AS SELECT ${keep.length ? keep.map(([c, m]) => `"${c}"::${m} AS "${c}"`).join(', ') : '0::BIGINT AS __none'} FROM memory.main."${name}"`);
  const rows: Scalar[][] = (await con.runAndReadAll(`SELECT * FROM truth.main."${name}"`)).getRows().map((row) =>
    row.map((v, k): Scalar => {
      if (v === null || v === undefined) return null;
      if (keep[k]?.[2] === 'timestamp') return Number((v as { micros: bigint }).micros);
      return v as Scalar;
    }),
  );
  const schema: TableSchema = { name, columns: keep.length ? keep.map(([c, , type]) => ({ name: c, type })) : [{ name: '__none', type: 'int64' }] };
  const rr = (n: number): Scalar[][][] => Array.from({ length: n + 1 }, (_, s) => (s === n ? [] : rows.filter((_, k) => k % n === s)));
  const order = [...rows].sort((a, b) => (a[0] === null ? (b[0] === null ? 0 : 1) : b[0] === null ? -1 : compareValues(a[0]!, b[0]!)));
  const q = Math.max(1, Math.ceil(order.length / 4));
  const half = Math.ceil(rows.length / 2);
  return {
    full: inProcessRoot(schema, rr(3), { fanout: 2, wrap: (leaf) => throughWire(leaf.handler) }).root,
    others: [
      ['4 shards sorted by the first column', inProcessRoot(schema, [0, 1, 2, 3].map((k) => order.slice(k * q, k * q + q)), { fanout: 3 }).root],
      ['2 shards in batches of 2 rows', inProcessRoot(schema, [rows.slice(0, half), rows.slice(half)], { fanout: 2, batchRows: 2 }).root],
    ],
    failing: inProcessRoot(schema, rr(3), {
      fanout: 2,
      wrap: (leaf) => (leaf.shards.includes(1) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
    }).root,
  };
}

type Outcome = { ok: true; body: Body } | { ok: false; code: string; status: number; message: string };

async function run(root: Root, sql: string): Promise<Outcome> {
  try {
    return { ok: true, body: answerToJSON(await ask(root, sql)) as unknown as Body };
  } catch (e) {
    const err = e as { code?: string; message?: string; status?: number; httpStatus?: number };
    return { ok: false, code: err.code ?? 'THROWN', status: err.status ?? err.httpStatus ?? 0, message: String(err.message ?? e) };
  }
}

const fmt = (rows: readonly (readonly unknown[])[]): string => JSON.stringify(rows.slice(0, 6), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

/** One query's verdict against DuckDB (empty: agrees, or both refuse). */
export async function verdict(con: DuckDBConnection, trees: Trees, q: Case, clearRefusals: readonly RegExp[]): Promise<string[]> {
  let want: ReturnType<typeof duckResult> | null = null;
  let duckError = '';
  try {
    want = duckResult(await con.runAndReadAll(q.duck ?? q.sql));
  } catch (e) {
    duckError = String(e);
  }
  const a = await run(trees.full, q.sql);
  const out: string[] = [];
  if (!a.ok) {
    if (a.code === 'CANOPY_ERR_INTERNAL' || a.code === 'THROWN' || !a.code.startsWith('CANOPY_ERR_') || a.status >= 500 || a.message.length < 10) out.push(`CRASH ${a.code}: ${a.message}`);
    else if (want !== null && !clearRefusals.some((r) => r.test(`${a.code}: ${a.message}`))) out.push(`GAP refused ${a.code}: ${a.message.slice(0, 240)} | DuckDB: ${fmt(want.rows)}`);
    return out;
  }
  if (want === null) return [`DUCK-REFUSES canopy answered ${a.body.label} ${fmt(a.body.rows)} | DuckDB: ${duckError.slice(0, 200)}`];
  const ordered = q.ordered ?? false;
  if (a.body.label !== 'exact') {
    if (a.body.label === 'bounded' || a.body.label === 'approximate') {
      const pd = checkPartial(a.body, want);
      if (pd.length > 0) out.push(`UNSOUND (every shard answering, ${a.body.label}) ${pd.slice(0, 3).join('; ')} | canopy ${fmt(a.body.rows)} cells ${JSON.stringify(a.body.cells?.slice(0, 3))}`);
    }
    out.push(`LABEL ${a.body.label} with every shard answering | canopy ${fmt(a.body.rows)} | DuckDB ${fmt(want.rows)}`);
  } else {
    const d = valueDiff(fromCanopy(a.body), want, ordered);
    if (d.length > 0) out.push(`WRONG-EXACT ${d.slice(0, 4).join('; ')} | canopy ${fmt(a.body.rows)} | DuckDB ${fmt(want.rows)}`);
  }
  for (const [by, root] of trees.others) {
    const o = await run(root, q.sql);
    if (!o.ok) {
      out.push(`${o.code === 'CANOPY_ERR_INTERNAL' || o.code === 'THROWN' ? 'CRASH' : 'SPLIT-DEPENDENT ERROR'} (${by}) ${o.code}: ${o.message.slice(0, 200)}`);
      continue;
    }
    if (o.body.label !== 'exact') {
      if (a.body.label === 'exact') out.push(`LABEL ${o.body.label} with every shard answering (${by})`);
      const pd = checkPartial(o.body, want);
      if (pd.length > 0) out.push(`UNSOUND (${by}, ${o.body.label}) ${pd.slice(0, 3).join('; ')}`);
      continue;
    }
    const od = valueDiff(fromCanopy(o.body), want, ordered);
    if (od.length > 0) out.push(`WRONG-EXACT (${by}) ${od.slice(0, 3).join('; ')} | canopy ${fmt(o.body.rows)} | DuckDB ${fmt(want.rows)}`);
  }
  const p = await run(trees.failing, q.sql);
  if (p.ok && p.body.label === 'exact') {
    const pd = valueDiff(fromCanopy(p.body), want, ordered);
    if (pd.length > 0) out.push(`WRONG-EXACT (shard 1 failing, labelled exact) ${pd.slice(0, 3).join('; ')} | canopy ${fmt(p.body.rows)} | DuckDB ${fmt(want.rows)}`);
  } else if (p.ok) {
    const pd = checkPartial(p.body, want);
    if (pd.length > 0) out.push(`UNSOUND (shard 1 failing, ${p.body.label}) ${pd.slice(0, 3).join('; ')} | canopy ${fmt(p.body.rows)} cells ${JSON.stringify(p.body.cells?.slice(0, 4))} | DuckDB ${fmt(want.rows)}`);
  } else if (p.code === 'CANOPY_ERR_INTERNAL' || p.code === 'THROWN') out.push(`CRASH (shard 1 failing) ${p.code}: ${p.message}`);
  return out;
}

/**
 * Refusals of what README does not claim, checked by hand to be clear 4xx errors (code: message).
 * Refusals not matched here are GAP verdicts.
 */
export const CLEAR_REFUSALS_BASE: readonly RegExp[] = [
  // DuckDB features README lists as not supported (each message names the construct)
  /^CANOPY_ERR_UNSUPPORTED: (?!the parser read)/,
  // LIST / STRUCT literals and list comprehensions (canopy has no LIST or STRUCT type): a syntax error at the bracket
  /^CANOPY_ERR_BAD_QUERY: syntax error at line \d+, column \d+: .*but found '[[{]'$/,
  // aggregate state export (finalize(... EXPORT_STATE)) and lambdas
  /^CANOPY_ERR_BAD_QUERY: syntax error at line \d+, column \d+: .*but found 'EXPORT_STATE'$/,
  // DuckDB's rowid pseudo-column
  /^CANOPY_ERR_UNKNOWN_COLUMN: unknown column 'rowid'/,
  // median of a HUGEINT (canopy stores no int128 column)
  /^CANOPY_ERR_TYPE: median\(\) needs an int64, float64, timestamp or string column; 'CAST\(r AS HUGEINT\)' is int128$/,
  // DuckDB's GROUP BY * / ORDER BY * (README: GROUP BY ALL, ORDER BY ALL)
  /^CANOPY_ERR_BAD_QUERY: \* is not allowed in (GROUP|ORDER) BY; name a column$/,
  // a correlated scalar subquery (SELECT ... (SELECT ... WHERE i <= i1.i)): refused, though as an ungrouped column
  /^CANOPY_ERR_BAD_QUERY: column 'i' must appear in the GROUP BY clause or be used in an aggregate function$/,
  // SELECT DISTINCT x ORDER BY y (y not selected): DuckDB answers, PostgreSQL refuses; canopy refuses (DISTINCT is GROUP BY there)
  /^CANOPY_ERR_BAD_QUERY: column 't2' must appear in the GROUP BY clause or be used in an aggregate function$/,
  // DuckDB's FILTER without WHERE after DISTINCT (`count(DISTINCT x) FILTER (cond)`; without DISTINCT it is taken): a syntax error with its position
  /^CANOPY_ERR_BAD_QUERY: syntax error at line \d+, column \d+: expected \) or ,, but found '='$/,
  // list(...) / histogram(DISTINCT ...) grammar
  /^CANOPY_ERR_BAD_QUERY: syntax error at line \d+, column \d+: expected \(, but found '(cause|e)'$/,
  // string_agg(DISTINCT v ORDER BY f(v)): README says canopy takes only the argument itself as the key there
  /^CANOPY_ERR_BAD_QUERY: string_agg\(DISTINCT \.\.\.\): in a DISTINCT aggregate, ORDER BY expressions must appear in the argument list/,
  // INTERVAL (col) days over a column (README: an INTERVAL is a constant of the query)
  /^CANOPY_ERR_BAD_QUERY: syntax error at line \d+, column \d+: expected \), AND, OR, NOT, IN or BETWEEN, but found 'days'$/,
];

/**
 * Runs a ported suite: per state, DuckDB runs the setup and each table is copied into canopy's
 * types and served by the trees of {@link materialize}; each query is one test whose verdict
 * lines (less those `accepted` drops) must be empty; a key (`file|sql`, `key` normalising the
 * SQL) in `wereFailing` runs as `it.fails`. `report` names the env variable that prints every
 * verdict line.
 */
export function runPortedSuite(
  name: string,
  suite: readonly Snap[],
  opts: { readonly wereFailing: ReadonlySet<string>; readonly clearRefusals: readonly RegExp[]; readonly accepted: readonly (readonly [RegExp, RegExp, string])[]; readonly report: string; readonly key?: (sql: string) => string },
): void {
  for (const [n, snap] of suite.entries()) {
    describe(`${name}: ${snap.file} (state ${n})`, () => {
      let db: DuckDBInstance;
      let con: DuckDBConnection;
      const trees = new Map<string, Trees>();
      beforeAll(async () => {
        db = await DuckDBInstance.create(':memory:');
        con = await db.connect();
        await con.run("SET TimeZone = 'UTC'");
        for (const s of snap.setup) await con.run(s);
        await con.run("ATTACH ':memory:' AS truth");
        for (const t of new Set(snap.queries.map((q) => q.table))) trees.set(t, await materialize(con, t));
        await con.run('USE truth');
      });
      afterAll(() => {
        con?.closeSync();
        db?.closeSync();
      });
      const seen = new Set<string>();
      for (const q of snap.queries) {
        if (seen.has(q.sql)) continue;
        seen.add(q.sql);
        const key = `${snap.file}|${opts.key === undefined ? q.sql : opts.key(q.sql)}`;
        (opts.wereFailing.has(key) ? it.fails : it)(q.sql.replace(/\s+/g, ' '), async () => {
          const v = (await verdict(con, trees.get(q.table)!, q, opts.clearRefusals)).filter((line) => !opts.accepted.some(([sql, verdictLine]) => sql.test(q.sql) && verdictLine.test(line)));
          if (process.env[opts.report]) for (const line of v) console.log(`@@ [${snap.file}] ${q.sql.replace(/\s+/g, ' ')}${q.from === undefined ? '' : `\n   from: ${q.from}`}\n   ${line}`);
          expect(v).toEqual([]);
        });
      }
    });
  }
}
