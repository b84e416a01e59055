/**
 * JSON rendering of answers: int64 as numbers when within ±2^53, else decimal strings;
 * timestamps as ISO-8601 UTC (with microseconds when not zero); DATEs as DuckDB's `2024-01-31`; non-finite floats and -0.0
 * as "NaN" / "Infinity" / "-Infinity" / "-0" (JSON.stringify cannot write them as numbers);
 * NULL as null.
 */
import { dateText, isoFromMicros, type AggregateFn, type ColumnType, type GatherTiming, type QueryPlan, type Scalar } from '../merge/index.ts';
import type { AnswerJSON } from './api.ts';
import type { QueryAnswer } from './engine.ts';

/** Renders one SQL value of a column type as a JSON value. */
export function jsonValue(v: Scalar, type: ColumnType): string | number | boolean | null {
  if (v === null) return null;
  if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString();
  if (typeof v === 'number') {
    if (type === 'timestamp') return isoFromMicros(v);
    if (type === 'date') return dateText(v);
    if (!Number.isFinite(v) || Object.is(v, -0)) return String(Object.is(v, -0) ? '-0' : v);
    if (type === 'int64' || type === 'int128') return Number.isSafeInteger(v) ? v : String(BigInt(v));
    return v;
  }
  return v;
}

/**
 * What one answer column is, so that clients pick chart axes and series without reading the
 * SQL: `group_key` (the `key`-th GROUP BY key, 0-based), `aggregate` (with its function and
 * how its cells may be uncertain) or `column` (a row query's selected column).
 * `uncertainty`: `catalog` (exact, or a guaranteed interval from the missing shards' catalog:
 * COUNT, SUM, MIN, MAX, AVG), `sketch_estimate` (COUNT(DISTINCT): past 4,096 values an
 * approximate 99 % interval) or `sketch_bound` (approx_quantile: bounded by the sketch's
 * relative accuracy; median, quantile_cont, quantile_disc, mode, entropy: exact up to 1,024
 * distinct values per group, then bounded by the sketch).
 */
export type ColumnRole =
  | { readonly role: 'group_key'; readonly key: number }
  | { readonly role: 'aggregate'; readonly aggregate: AggregateFn; readonly uncertainty: 'catalog' | 'sketch_estimate' | 'sketch_bound' }
  | { readonly role: 'column' };

/** The role of each output column of a plan (see {@link ColumnRole}), in column order. */
export function columnRoles(plan: QueryPlan): ColumnRole[] {
  const rows = plan.scan.rows;
  if (rows !== null) return rows.columns.slice(0, rows.visible).map(() => ({ role: 'column' }));
  return plan.output.map((c): ColumnRole => {
    const e = c.expr;
    if (e.kind === 'key') return { role: 'group_key', key: e.index };
    if (e.kind === 'agg') return { role: 'aggregate', aggregate: e.fn, uncertainty: e.fn === 'count_distinct' ? 'sketch_estimate' : e.fn === 'quantile' || e.fn === 'median' || e.fn === 'quantile_cont' || e.fn === 'quantile_disc' || e.fn === 'mode' || e.fn === 'entropy' ? 'sketch_bound' : 'catalog' };
    return { role: 'column' };
  });
}

/** The response body of `POST /v1/query`: the shape `AnswerSchema` declares (api.ts; README for the meaning). */
export function answerToJSON(a: QueryAnswer): AnswerJSON {
  const body: AnswerJSON = {
    columns: a.columns.map((c) => ({ name: c.name, type: c.type })),
    ...(a.roles === undefined ? {} : { roles: a.roles as NonNullable<AnswerJSON['roles']> }),
    rows: a.rows.map((r) => r.map((v, i) => jsonValue(v, a.columns[i]!.type))),
    label: a.label,
    ...(a.cells === null
      ? {}
      : {
          cells: a.cells.map((r) =>
            r.map((c, i) => {
              if (c === null) return null;
              const t = a.columns[i]!.type;
              return {
                label: c.label,
                lo: jsonValue(c.lo ?? null, t),
                hi: jsonValue(c.hi ?? null, t),
                ...(c.stderr === undefined ? {} : { stderr: c.stderr }),
                ...(c.confidence === undefined ? {} : { confidence: c.confidence }),
                ...(c.estimate === undefined ? {} : { estimate: { ...c.estimate } }),
              };
            }),
          ),
        }),
    ...(a.estimateNote === undefined ? {} : { estimate_note: a.estimateNote }),
    rows_complete: a.rowsComplete,
    final: a.final,
    coverage: a.coverage,
    missing: a.missing as AnswerJSON['missing'],
    ...(a.warnings === undefined || a.warnings.length === 0 ? {} : { warnings: a.warnings as NonNullable<AnswerJSON['warnings']> }),
    stats: a.stats,
    ...(a.timings === undefined
      ? {}
      : {
          trace: {
            stragglers: stragglers(a.timings),
            // snake_case like the rest of the answer.
            timings: a.timings.map((t) => ({ gather: t.gather, child: t.child, shards: t.shards, elapsed_ms: t.elapsedMs, outcome: t.outcome })),
            provenance: a.provenance.map(({ rowsScanned, ...rest }) => (rowsScanned === undefined ? rest : { ...rest, rows_scanned: rowsScanned })),
          },
        }),
  };
  return body;
}

/**
 * Straggler attribution per gather: which child was last, when, and how long the gather
 * waited for it after the one before it answered (ms).
 */
export function stragglers(timings: readonly GatherTiming[]): { gather: string; last_child: string; elapsed_ms: number; waited_ms: number }[] {
  const byGather = new Map<string, GatherTiming[]>();
  for (const t of timings) byGather.set(t.gather, [...(byGather.get(t.gather) ?? []), t]);
  return [...byGather].map(([gather, ts]) => {
    const sorted = [...ts].sort((x, y) => x.elapsedMs - y.elapsedMs);
    const last = sorted[sorted.length - 1]!;
    const before = sorted.length > 1 ? sorted[sorted.length - 2]!.elapsedMs : 0;
    const round = (x: number): number => Math.round(x * 1000) / 1000;
    return { gather, last_child: last.child, elapsed_ms: round(last.elapsedMs), waited_ms: round(last.elapsedMs - before) };
  });
}
