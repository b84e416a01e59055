/**
 * Test helpers: bring canopy's JSON answers and DuckDB's results to one comparable form.
 *
 * Comparable values are `number | string | null`:
 * - int64 / int128 / BIGINT / HUGEINT: a number when within ±2^53, else its decimal string
 *   (exactly canopy's JSON rendering of int64 and int128);
 * - timestamps: ISO-8601 UTC with milliseconds, and microseconds when not zero (canopy's rendering);
 * - DATEs: DuckDB's text `2024-01-31` (canopy's rendering);
 * - doubles: numbers, compared with a relative tolerance;
 * - strings as they are; NULL as null.
 */
import type { DuckDBResultReader } from '@duckdb/node-api';
import { dateText, isoFromMicros } from '../../src/merge/index.ts';

/** One value in comparable form. */
export type Cmp = number | string | null;

/** A canopy column type, or a DuckDB type name mapped onto one. */
export type CmpType = 'int64' | 'int128' | 'float64' | 'string' | 'timestamp' | 'bool' | 'date';

/** A result in comparable form: column names, canopy column types and rows. */
export interface CmpResult {
  readonly names: readonly string[];
  readonly types: readonly CmpType[];
  readonly rows: readonly (readonly Cmp[])[];
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);

/** An integer as canopy renders it in JSON: a number when safe, else a decimal string. */
export function intJSON(v: bigint): number | string {
  return v <= MAX_SAFE && v >= -MAX_SAFE ? Number(v) : v.toString();
}

/** Maps a DuckDB type name to the canopy column type its values are rendered as. */
export function duckTypeToCanopy(t: string): CmpType {
  if (t === 'HUGEINT') return 'int128';
  if (/^(BIGINT|INTEGER|SMALLINT|TINYINT|UBIGINT|UINTEGER|USMALLINT|UTINYINT|UHUGEINT)$/.test(t)) return 'int64';
  if (t === 'DOUBLE' || t === 'FLOAT' || t.startsWith('DECIMAL')) return 'float64';
  if (t === 'VARCHAR') return 'string';
  if (t.startsWith('TIMESTAMP')) return 'timestamp';
  if (t === 'DATE') return 'date';
  if (t === 'BOOLEAN') return 'bool';
  throw new Error(`no canopy type for DuckDB type ${t}`);
}

/** One DuckDB value (as `getRows()` gives it) in comparable form. */
export function duckValue(v: unknown): Cmp {
  if (v === null || v === undefined) return null;
  if (typeof v === 'bigint') return intJSON(v);
  if (typeof v === 'number' || typeof v === 'string') return v;
  if (typeof v === 'boolean') return v ? 1 : 0;
  if (typeof v === 'object' && 'micros' in v && typeof (v as { micros: unknown }).micros === 'bigint') {
    return isoFromMicros(Number((v as { micros: bigint }).micros))!;
  }
  // A DATE: its days since 1970, as DuckDB's text ('2024-01-31', canopy's rendering).
  if (typeof v === 'object' && 'days' in v && typeof (v as { days: unknown }).days === 'number') return dateText((v as { days: number }).days * 86_400_000_000)!;
  throw new Error(`unexpected DuckDB value ${String(v)} (${typeof v})`);
}

/** A DuckDB result in comparable form. */
export function fromDuck(r: DuckDBResultReader): CmpResult {
  const types = r.columnTypes().map((t) => duckTypeToCanopy(t.toString()));
  return { names: r.columnNames(), types, rows: r.getRows().map((row) => row.map(duckValue)) };
}

/** The JSON body of a successful canopy query (see README). */
export interface CanopyBody {
  readonly columns: readonly { readonly name: string; readonly type: CmpType }[];
  readonly rows: readonly (readonly unknown[])[];
  readonly label: string;
  readonly coverage: { readonly shards: number; readonly answered: number; readonly failed: number; readonly omitted: number; readonly pruned: number };
  readonly missing: readonly unknown[];
  readonly stats: { readonly elapsed_ms: number; readonly rows_scanned: number };
}

/** One canopy JSON value in comparable form (checking it is rendered as its type says). */
export function canopyValue(v: unknown, type: CmpType): Cmp {
  if (v === null) return null;
  switch (type) {
    case 'int64':
    case 'int128':
      if (typeof v === 'number' && Number.isSafeInteger(v)) return v;
      if (typeof v === 'string' && /^-?\d+$/.test(v) && !Number.isSafeInteger(Number(v))) return v;
      throw new Error(`int64 value ${JSON.stringify(v)} is neither a safe integer nor a decimal string beyond 2^53`);
    case 'float64':
      if (typeof v === 'number') return v;
      if (v === 'NaN' || v === 'Infinity' || v === '-Infinity' || v === '-0') return Number(v);
      throw new Error(`float64 value ${JSON.stringify(v)} is not a number`);
    case 'timestamp':
      if (typeof v === 'string' && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}(\d{3})?Z$/.test(v)) return v;
      throw new Error(`timestamp value ${JSON.stringify(v)} is not ISO-8601 UTC with ms (and µs when not zero)`);
    case 'date':
      if (typeof v === 'string' && /^\d{4}-\d\d-\d\d$/.test(v)) return v;
      throw new Error(`date value ${JSON.stringify(v)} is not DuckDB's DATE text YYYY-MM-DD`);
    case 'string':
      if (typeof v === 'string') return v;
      throw new Error(`string value ${JSON.stringify(v)} is not a string`);
    case 'bool':
      if (typeof v === 'boolean') return v ? 1 : 0;
      throw new Error(`bool value ${JSON.stringify(v)} is not a boolean`);
  }
}

/** A canopy JSON answer in comparable form. */
export function fromCanopy(body: CanopyBody): CmpResult {
  const types = body.columns.map((c) => c.type);
  return {
    names: body.columns.map((c) => c.name),
    types,
    rows: body.rows.map((row) => row.map((v, i) => canopyValue(v, types[i]!))),
  };
}

/** True when two comparable values are equal (floats within `rel` relative tolerance). */
export function sameValue(a: Cmp, b: Cmp, type: CmpType, rel = 1e-9): boolean {
  if (a === null || b === null) return a === b;
  if (type === 'float64' && typeof a === 'number' && typeof b === 'number') {
    if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) && Number.isNaN(b);
    if (a === b) return true;
    return Math.abs(a - b) <= rel * Math.max(Math.abs(a), Math.abs(b));
  }
  return a === b;
}

function rowKey(row: readonly Cmp[], types: readonly CmpType[]): string {
  // Floats are rounded so that rows differing only in float noise sort alike.
  return JSON.stringify(row.map((v, i) => (types[i] === 'float64' && typeof v === 'number' ? Number(v.toPrecision(8)) : v)));
}

/**
 * Differences between an actual and an expected result, as readable lines (empty when
 * equal). `ordered: false` compares the rows as multisets.
 * Column names are compared only where the expected name is a plain identifier
 * (DuckDB names unaliased aggregates like `count_star()`).
 */
export function diffResults(actual: CmpResult, expected: CmpResult, opts: { ordered: boolean; rel?: number }): string[] {
  const out: string[] = [];
  if (actual.types.length !== expected.types.length) {
    out.push(`columns: got ${actual.names.length} (${actual.names.join(', ')}), want ${expected.names.length} (${expected.names.join(', ')})`);
    return out;
  }
  expected.types.forEach((t, i) => {
    if (actual.types[i] !== t) out.push(`column ${i} type: got ${actual.types[i]}, want ${t}`);
    const name = expected.names[i]!;
    if (/^[A-Za-z_][A-Za-z0-9_]*$/.test(name) && actual.names[i] !== name) out.push(`column ${i} name: got ${actual.names[i]}, want ${name}`);
  });
  if (actual.rows.length !== expected.rows.length) out.push(`row count: got ${actual.rows.length}, want ${expected.rows.length}`);
  const sortRows = (rows: readonly (readonly Cmp[])[]): (readonly Cmp[])[] => {
    const keyed = rows.map((r) => [rowKey(r, expected.types), r] as const);
    keyed.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
    return keyed.map((k) => k[1]);
  };
  const a = opts.ordered ? actual.rows : sortRows(actual.rows);
  const e = opts.ordered ? expected.rows : sortRows(expected.rows);
  const n = Math.min(a.length, e.length);
  let shown = 0;
  for (let r = 0; r < n && shown < 5; r++) {
    const ar = a[r]!;
    const er = e[r]!;
    if (ar.length !== er.length || !er.every((v, i) => sameValue(ar[i] ?? null, v, expected.types[i]!, opts.rel))) {
      out.push(`row ${r}: got ${JSON.stringify(ar)}, want ${JSON.stringify(er)}`);
      shown++;
    }
  }
  return out;
}
