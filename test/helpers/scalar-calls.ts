/**
 * Scalar function calls checked value by value against DuckDB (test/scalar-more-duckdb.test.ts,
 * test/scalar-extra-duckdb.test.ts): a call is canopy's function, DuckDB's SQL for it, its
 * arguments and result type; `differences` runs each through `callFn` and through DuckDB
 * (`SELECT <sql>`) and lists the calls where they differ (an error on both sides agrees).
 */
import { CanopyError, callFn, type ColumnType, type Scalar, type ScalarFn } from '../../src/merge/index.ts';
import type { DuckDBConnection } from '@duckdb/node-api';

/** A value as a DuckDB literal of canopy's type (BIGINT, DOUBLE with its specials, VARCHAR). */
export const lit = (v: Scalar): string => {
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`;
  if (typeof v === 'bigint') return `(${v})::BIGINT`;
  if (typeof v === 'number') return Number.isNaN(v) ? "'nan'::DOUBLE" : v === Infinity ? "'inf'::DOUBLE" : v === -Infinity ? "'-inf'::DOUBLE" : Object.is(v, -0) ? "'-0.0'::DOUBLE" : `(${v})::DOUBLE`;
  return String(v);
};

/** A call: canopy's function, DuckDB's name, arguments, result type. */
export type Call = readonly [fn: ScalarFn, duck: string, args: readonly Scalar[], type: ColumnType];

/** canopy's value, or 'ERROR' when it refuses (only CANOPY_ERR_OUT_OF_RANGE is a value error). */
export function canopy(c: Call): Scalar | 'ERROR' {
  try {
    return callFn(c[0], c[2], c[3]);
  } catch (e) {
    if (e instanceof CanopyError && e.code === 'CANOPY_ERR_OUT_OF_RANGE') return 'ERROR';
    throw e;
  }
}

/** canopy's value equals DuckDB's: doubles to 1e-13 relative (libm and V8 may differ in the last bits), NaN = NaN. */
export const same = (got: Scalar | 'ERROR', want: unknown, absolute = 0): boolean => {
  if (typeof got === 'number' && typeof want === 'number') {
    if (Number.isNaN(got) || Number.isNaN(want)) return Number.isNaN(got) && Number.isNaN(want);
    if (!Number.isFinite(got) || !Number.isFinite(want) || got === 0 || want === 0) return got === want;
    return Math.abs(got - want) <= Math.max(1e-13 * Math.abs(want), absolute);
  }
  if (typeof got === 'bigint' && typeof want === 'number') return got === BigInt(want);
  return got === want;
};

/**
 * Each call's DuckDB value (or ERROR) next to canopy's; the calls where they differ.
 * @param sqlOf DuckDB's SQL for a call (by default `duck(lit(arg), ...)`)
 * @param absolute a call's absolute tolerance besides the relative 1e-13 (default 0): for a
 *   function near its roots, where libm is accurate to an ulp of the function's scale, not of its value
 */
export async function differences(duckdb: () => DuckDBConnection, calls: readonly Call[], sqlOf: (c: Call) => string = ([, duck, args]) => `${duck}(${args.map(lit).join(', ')})`, absolute: (c: Call) => number = () => 0): Promise<string[]> {
  const out: string[] = [];
  for (const c of calls) {
    let want: unknown;
    try {
      want = (await duckdb().runAndReadAll(`SELECT ${sqlOf(c)}`)).getRows()[0]![0];
    } catch {
      want = 'ERROR';
    }
    const got = canopy(c);
    if (!same(got, want, absolute(c))) out.push(`${sqlOf(c)}: DuckDB ${String(want)}, canopy ${String(got)}`);
  }
  return out;
}
