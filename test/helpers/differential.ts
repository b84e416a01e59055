/**
 * The differential harness against DuckDB (shared by test/duckdb-differential*.test.ts): a
 * 20-row table of edge values (NaN, ±Infinity, -0.0, NULLs, int64 extremes, timestamps around
 * the epoch and at week/quarter/year boundaries, strings with '%', '_', '\\', non-BMP and
 * combining characters, mixed case) on 9 in-process trees (round-robin, four sorted splits
 * whose zone maps prune and stop early, two shards in batches of 3 rows, three with one shard
 * failing), and `verdict`, which
 * compares one query cell by cell: exact must equal DuckDB (floats 1e-9 relative, NaN = NaN),
 * bounded must hold it. Call `setupDifferential()` in beforeAll and `closeDifferential()` in afterAll.
 */
import { DuckDBInstance, type DuckDBConnection, type DuckDBResultReader } from '@duckdb/node-api';
import { expect, it } from 'vitest';
import { withFaults } from '../../src/leaf/index.ts';
import { compareValues, isoFromMicros, type Scalar, type TableSchema } from '../../src/merge/index.ts';
import { answerToJSON, type Root } from '../../src/root/index.ts';
import { diffResults, duckTypeToCanopy, duckValue, fromCanopy, intJSON, type CanopyBody, type Cmp, type CmpResult, type CmpType } from './compare.ts';
import { ask, inProcessRoot, throughWire } from './tree.ts';

export const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'f', type: 'float64' },
    { name: 'i', type: 'int64' },
    { name: 'j', type: 'int64' },
    { name: 'ts', type: 'timestamp' },
    { name: 's', type: 'string' },
    { name: 'g', type: 'string' },
  ],
};

const us = (iso: string): number => {
  const m = /\.(\d{6})Z$/.exec(iso);
  const base = Date.parse(m ? iso.replace(/\.\d{6}Z$/, 'Z') : iso) * 1000;
  return base + (m ? Number(m[1]) : 0);
};

const F: (number | null)[] = [1.5, -2.25, 0, -0, NaN, Infinity, -Infinity, null, 1e308, -1e308, 2.5, 0.5, -0.5, 3.5, 1e-300, 7, 2.5, -1.5, null, 10];
const I: (bigint | null)[] = [9223372036854775807n, -9223372036854775808n, 0n, null, 1n, -1n, 9007199254740993n, 100n, -7n, 7n, null, 5n, 5n, -100n, 42n, 3n, -3n, 2n, 9223372036854775806n, 0n];
const J: (bigint | null)[] = [-7n, 7n, 0n, null, 3n, -3n, 2n, -2n, 1n, -1n, 5n, -5n, 4n, null, 6n, -6n, 0n, 7n, 3n, 10n];
const TS: (number | null)[] = [
  '1969-12-31T23:59:59.999999Z', '1970-01-01T00:00:00.000000Z', '1970-01-01T00:00:00.000001Z', '2024-01-01T00:00:00.000000Z',
  '2023-12-31T23:59:59.999999Z', '2024-03-31T23:59:59.999999Z', '2024-04-01T00:00:00.000000Z', '2020-02-29T12:00:00.000000Z',
  '1900-01-01T00:00:00.000000Z', '2000-01-01T00:00:00.000001Z', null, '2021-01-03T10:00:00.000000Z', '2020-12-28T00:00:00.000000Z',
  '1969-01-01T00:00:00.000000Z', '2024-12-30T08:30:00.500000Z', '1960-06-15T12:34:56.789012Z', null, '2100-03-01T00:00:00.000000Z',
  '1999-12-31T23:59:59.999999Z', '2024-02-29T23:59:59.999999Z',
].map((x) => (x === null ? null : us(x)));
const S: (string | null)[] = ['', 'a', 'A', 'abc', 'a%b', 'a_b', 'x\\y', '😀', '𝄞x', 'é', 'ÉCOLE', ' pad ', null, 'z', 'Z', "it's", 'ab', 'a\u0301', 'abc', '%'];
const G: (string | null)[] = ['a', 'b', null, '', 'a', 'b', 'A', 'a', null, 'b', 'a', 'b', '', 'a', 'A', 'b', 'a', null, 'a', 'b'];

export const ROWS: Scalar[][] = F.map((f, k) => [f, I[k]!, J[k]!, TS[k]!, S[k]!, G[k]!]);
/** Five shards round-robin plus an empty one. */
export const SHARDS: Scalar[][][] = [0, 1, 2, 3, 4, 5].map((s) => (s === 5 ? [] : ROWS.filter((_, k) => k % 5 === s)));

function literal(v: Scalar, c: number): string {
  if (v === null) return 'NULL';
  if (c === 0) {
    const x = v as number;
    if (Number.isNaN(x)) return "'nan'::DOUBLE";
    if (x === Infinity) return "'inf'::DOUBLE";
    if (x === -Infinity) return "'-inf'::DOUBLE";
    if (Object.is(x, -0)) return "'-0.0'::DOUBLE";
    return `${String(x)}::DOUBLE`;
  }
  if (c === 1 || c === 2) return `(${String(v)})::BIGINT`;
  if (c === 3) return `make_timestamp(${String(v)}::BIGINT)`;
  return duckString(String(v));
}

/** A string as DuckDB SQL text: quoted, and a NUL (which SQL text cannot hold) as chr(0) between the pieces. */
export function duckString(v: string): string {
  return v.split('\u0000').map((p) => `'${p.replaceAll("'", "''")}'`).join(' || chr(0) || ');
}

export interface Q {
  readonly sql: string;
  /** DuckDB text when it differs (documented differences only). */
  readonly duck?: string;
  /** Compare rows in order (the ORDER BY is total). */
  readonly ordered?: boolean;
  /**
   * Asked with this `shard_size`, which makes every node truncate a group top-k at it (the
   * small trees otherwise fit every group in the byte budget): an answer may then be bounded
   * or approximate with every shard answering, but exact cells must equal DuckDB and bounded
   * ones hold it.
   */
  readonly shardSize?: number;
  /** Asked with `exact: true`: with every shard answering the answer must be exact (a truncated top-k takes its refinement round). */
  readonly exact?: boolean;
}
// ---------------------------------------------------------------------------------------------
let db: DuckDBInstance | null = null;
let duck: DuckDBConnection | null = null;
let full: Root;
let partial: Root;
let partials: Root[];
/**
 * Trees over the rows sorted by f, s, ts and j (contiguous shards: zone maps that prune and
 * stop early), then one of two shards in batches of 3 rows (per-batch dictionaries of string
 * expressions, batch statistics and skips).
 */
let sorted: Root[];
const SPLITS = ['shards sorted by f', 'shards sorted by s', 'shards sorted by ts', 'shards sorted by j', '2 shards in batches of 3 rows'];

/** Builds DuckDB's table and the 8 trees over {@link ROWS} (once per test file; vitest hands beforeAll hooks a context, so this takes no argument). */
export function setupDifferential(): Promise<void> {
  return setupDifferentialOver(ROWS);
}

/**
 * Builds DuckDB's table and the 8 trees over `rows` (of {@link SCHEMA}, at least 10 so that
 * every split has rows): five shards round-robin plus an empty one, and the sorted and batched trees.
 */
export async function setupDifferentialOver(rows: readonly Scalar[][]): Promise<void> {
  db = await DuckDBInstance.create(':memory:');
  duck = await db.connect();
  await duck.run('CREATE TABLE t (f DOUBLE, i BIGINT, j BIGINT, ts TIMESTAMP, s VARCHAR, g VARCHAR)');
  await duck.run(`INSERT INTO t VALUES ${rows.map((r) => `(${r.map(literal).join(', ')})`).join(', ')}`);
  const shards: Scalar[][][] = [0, 1, 2, 3, 4, 5].map((s) => (s === 5 ? [] : rows.filter((_, k) => k % 5 === s)));
  const quarter = Math.ceil(rows.length / 5);
  // Every leaf frame through the wire, as between processes (throughWire).
  full = inProcessRoot(SCHEMA, shards, { fanout: 2, wrap: (leaf) => throughWire(leaf.handler) }).root;
  partial = inProcessRoot(SCHEMA, shards, {
    fanout: 3,
    wrap: (leaf) => (leaf.shards.includes(1) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
  }).root;
  sorted = [0, 4, 3, 2].map((c) => {
    const order = [...rows].sort((a, b) => (a[c] === null ? 1 : b[c] === null ? -1 : compareValues(a[c]!, b[c]!)));
    return inProcessRoot(SCHEMA, [0, 1, 2, 3, 4].map((k) => order.slice(k * quarter, k * quarter + quarter)), { fanout: 3 }).root;
  });
  const half = Math.ceil(rows.length / 2) + 1;
  sorted.push(inProcessRoot(SCHEMA, [rows.slice(0, half), rows.slice(half)], { fanout: 2, batchRows: 3 }).root);
  // Shard 4 holds NaN, shard 0 the int64 maximum and the timestamp before the epoch.
  partials = [partial, ...[4, 0].map((bad) => inProcessRoot(SCHEMA, shards, {
    fanout: 2,
    wrap: (leaf) => (leaf.shards.includes(bad) ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', error: 1 }] }) : leaf.handler),
  }).root)];
}

/** Closes DuckDB. */
export function closeDifferential(): void {
  duck?.closeSync();
  db?.closeSync();
}

/** The DuckDB connection (for tests that add their own tables). */
export function duckConnection(): DuckDBConnection {
  return duck!;
}

function duckCell(v: unknown, type: string): Cmp {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return intJSON(v);
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (type.startsWith('DECIMAL')) return Number(String(v));
  if (typeof v === 'object' && 'micros' in v) return isoFromMicros(Number((v as { micros: bigint }).micros));
  if (type === 'DATE') return duckValue(v);
  return `<${type}:${String(v)}>`;
}

export function duckResult(r: DuckDBResultReader): CmpResult {
  const tnames = r.columnTypes().map((t) => t.toString());
  const types = tnames.map((t): CmpType => {
    try {
      return duckTypeToCanopy(t);
    } catch {
      return 'string';
    }
  });
  return { names: r.columnNames(), types, rows: r.getRows().map((row) => row.map((v, c) => duckCell(v, tnames[c]!))) };
}

export type Body = CanopyBody & { rows_complete: boolean; roles?: { role: string }[]; cells?: ({ label: string; lo: unknown; hi: unknown } | null)[][] };

type Outcome = { ok: true; body: Body } | { ok: false; code: string; message: string };

async function run(root: Root, sql: string, q: Pick<Q, 'shardSize' | 'exact'> = {}): Promise<Outcome> {
  try {
    const options = { ...(q.shardSize === undefined ? {} : { shard_size: q.shardSize }), ...(q.exact === true ? { exact: true } : {}) };
    return { ok: true, body: answerToJSON(await ask(root, sql, options)) as unknown as Body };
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return { ok: false, code: err.code ?? 'THROWN', message: String(err.message ?? e) };
  }
}

async function truth(sql: string): Promise<{ ok: true; r: CmpResult } | { ok: false; message: string }> {
  try {
    return { ok: true, r: duckResult(await duck!.runAndReadAll(sql)) };
  } catch (e) {
    return { ok: false, message: String(e) };
  }
}

/** Differences ignoring column types (int64 vs int128 vs float64 for DECIMAL literals) but keeping values. */
export function valueDiff(got: CmpResult, want: CmpResult, ordered: boolean): string[] {
  const types = want.types.map((t, c) => (t === 'float64' || got.types[c] === 'float64' ? 'float64' : t));
  // NaN and ±Infinity as tokens (the shared sort key renders them all as null), -0 kept as a number.
  const tok = (v: Cmp): Cmp => (typeof v === 'number' && !Number.isFinite(v) ? `#${String(v)}` : v);
  const norm = (r: CmpResult): CmpResult => ({ ...r, types, names: r.names.map((_, c) => `c${c}`), rows: r.rows.map((row) => row.map(tok)) });
  return diffResults(norm(got), norm(want), { ordered });
}

function ordinal(v: unknown, type: CmpType): Exclude<Scalar, null> {
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (type === 'timestamp') return us(String(v).replace(/\.(\d{3})Z$/, '.$1000Z'));
  if ((type === 'int64' || type === 'int128') && typeof v === 'string') return BigInt(v);
  if (type === 'float64' || typeof v === 'number') return Number(v);
  return v as Exclude<Scalar, null>;
}

/** Checks a not-exact answer against the truth: exact cells equal, bounded cells hold it. */
export function checkPartial(body: Body, want: CmpResult): string[] {
  const out: string[] = [];
  const got = fromCanopy(body);
  const keys = (body.roles ?? []).flatMap((r, c) => (r.role === 'group_key' ? [c] : []));
  if (body.rows_complete && got.rows.length !== want.rows.length) out.push(`rows_complete but ${got.rows.length} rows, want ${want.rows.length}`);
  const keyOf = (row: readonly Cmp[]): string => JSON.stringify(keys.map((c) => (typeof row[c] === 'number' && !Number.isFinite(row[c]) ? `#${String(row[c])}` : row[c])));
  // Grouping sets: several truth rows may share their keys (a rolled-up NULL beside a NULL
  // value, a set listed twice); a row is sound when it fits one of them.
  const byKey = new Map<string, (readonly Cmp[])[]>();
  for (const r of want.rows) byKey.set(keyOf(r), [...(byKey.get(keyOf(r)) ?? []), r]);
  // Only rows identified by their keys (or the single row of a global aggregate) are checked.
  // Row queries (a `column` role) prove nothing per cell; their row set is checked by rows_complete.
  if ((body.roles ?? []).some((r) => r.role === 'column')) return out;
  if (keys.length === 0 && !(got.rows.length === 1 && want.rows.length === 1)) return out;
  got.rows.forEach((row, r) => {
    const candidates = keys.length === 0 ? [want.rows[0]!] : byKey.get(keyOf(row));
    if (candidates === undefined) {
      if (body.label !== 'approximate') out.push(`row ${keyOf(row)} not in the truth`);
      return;
    }
    const problems = candidates.map((truthRow) => rowProblems(body, got, want, keys, row, r, truthRow));
    if (!problems.some((p) => p.length === 0)) out.push(...problems[0]!);
  });
  return out;
}

/** What is wrong with answer row `r` (`row`) against one truth row: exact cells equal it, bounded cells hold it. */
function rowProblems(body: Body, got: CmpResult, want: CmpResult, keys: readonly number[], row: readonly Cmp[], r: number, truthRow: readonly Cmp[]): string[] {
  const out: string[] = [];
  row.forEach((v, c) => {
    if (keys.includes(c)) return;
    const type = want.types[c]!;
    const x = truthRow[c]!;
    const cell = body.cells?.[r]?.[c] ?? null;
    if (cell === null) {
      const d = valueDiff({ ...got, rows: [[v]], types: [got.types[c]!], names: ['x'] }, { ...want, rows: [[x]], types: [type], names: ['x'] }, true);
      if (d.length > 0) out.push(`row ${r} col ${c} labelled exact in a ${body.label} answer: ${d.join('; ')}`);
      return;
    }
    if (cell.label !== 'bounded' || x === null) return;
    const t = got.types[c]!;
    if (cell.lo !== null && cell.lo !== undefined && compareValues(ordinal(cell.lo, t), ordinal(x, t)) > 0) out.push(`row ${r} col ${c}: lo ${String(cell.lo)} > truth ${String(x)}`);
    if (cell.hi !== null && cell.hi !== undefined && compareValues(ordinal(x, t), ordinal(cell.hi, t)) > 0) out.push(`row ${r} col ${c}: truth ${String(x)} > hi ${String(cell.hi)}`);
  });
  return out;
}

const fmt = (rows: readonly (readonly unknown[])[]): string => JSON.stringify(rows.slice(0, 6), (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));

/** One query's verdict: an empty list when canopy agrees with DuckDB (or both refuse). */
export async function verdict(q: Q): Promise<string[]> {
  const want = await truth(q.duck ?? q.sql);
  const a = await run(full, q.sql, q);
  const out: string[] = [];
  if (!a.ok) {
    if (a.code === 'CANOPY_ERR_INTERNAL' || a.code === 'THROWN') out.push(`CRASH ${a.code}: ${a.message}`);
    else if (want.ok) out.push(`GAP refused ${a.code}: ${a.message.slice(0, 200)} | DuckDB: ${fmt(want.r.rows)}`);
    return out;
  }
  if (!want.ok) {
    out.push(`DUCK-REFUSES canopy answered ${a.body.label} ${fmt(a.body.rows)} | DuckDB: ${want.message.slice(0, 200)}`);
    return out;
  }
  const truncated = (body: Body, where: string): boolean => {
    if (q.shardSize === undefined || q.exact === true || body.label === 'exact') return false;
    const pd = checkPartial(body, want.r);
    if (pd.length > 0) out.push(`UNSOUND (${where}truncated at shard_size ${q.shardSize}, ${body.label}) ${pd.slice(0, 3).join('; ')} | canopy ${fmt(body.rows)} cells ${JSON.stringify(body.cells?.slice(0, 4))}`);
    return true;
  };
  if (!truncated(a.body, '')) {
    if (a.body.label !== 'exact') out.push(`LABEL ${a.body.label} with every shard answering`);
    const got = fromCanopy(a.body);
    const d = valueDiff(got, want.r, q.ordered ?? false);
    if (d.length > 0) out.push(`WRONG-EXACT ${d.slice(0, 4).join('; ')} | canopy ${fmt(got.rows)} | DuckDB ${fmt(want.r.rows)}`);
  }
  for (const [n, root] of sorted.entries()) {
    const o = await run(root, q.sql, q);
    const by = SPLITS[n]!;
    if (!o.ok) {
      out.push(`${o.code === 'CANOPY_ERR_INTERNAL' || o.code === 'THROWN' ? 'CRASH' : 'SPLIT-DEPENDENT ERROR'} (${by}) ${o.code}: ${o.message.slice(0, 200)}`);
      continue;
    }
    if (truncated(o.body, `${by}, `)) continue;
    if (o.body.label !== 'exact') out.push(`LABEL ${o.body.label} with every shard answering (${by})`);
    else {
      const od = valueDiff(fromCanopy(o.body), want.r, q.ordered ?? false);
      if (od.length > 0) out.push(`WRONG-EXACT (${by}) ${od.slice(0, 3).join('; ')} | canopy ${fmt(o.body.rows)}`);
    }
  }
  for (const [n, root] of partials.entries()) {
    const bad = [1, 4, 0][n];
    const p = await run(root, q.sql, q);
    if (p.ok && p.body.label === 'exact') {
      const pd = valueDiff(fromCanopy(p.body), want.r, q.ordered ?? false);
      if (pd.length > 0) out.push(`WRONG-EXACT (shard ${bad} failing, labelled exact) ${pd.slice(0, 3).join('; ')} | canopy ${fmt(p.body.rows)}`);
    } else if (p.ok) {
      const pd = checkPartial(p.body, want.r);
      if (pd.length > 0) out.push(`UNSOUND (shard ${bad} failing, ${p.body.label}) ${pd.slice(0, 3).join('; ')} | canopy ${fmt(p.body.rows)} cells ${JSON.stringify(p.body.cells?.slice(0, 4))}`);
    } else if (p.code === 'CANOPY_ERR_INTERNAL' || p.code === 'THROWN') out.push(`CRASH (shard ${bad} failing) ${p.code}: ${p.message}`);
  }
  return out;
}


/**
 * Registers one test per distinct query (in the current describe): its verdict must be empty;
 * a query in `failing` (known wrong answers and gaps) is an `it.fails`, so once fixed it must
 * leave the set. BREAKER_REPORT=1 prints each verdict line.
 * @returns the number of distinct queries
 */
export function differentialTests(queries: readonly Q[], failing: ReadonlySet<string>): number {
  const seen = new Set<string>();
  for (const q of queries) {
    if (seen.has(q.sql)) continue;
    seen.add(q.sql);
    (failing.has(q.sql) ? it.fails : it)(q.sql, async () => {
      const v = await verdict(q);
      if (process.env.BREAKER_REPORT) for (const line of v) console.log(`@@ ${q.sql}\n   ${line}`);
      expect(v).toEqual([]);
    });
  }
  return seen.size;
}
