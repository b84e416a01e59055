/**
 * JSON rendering of answers: int64 as numbers when within ±2^53, else decimal strings;
 * timestamps as ISO-8601 UTC; non-finite floats as "NaN" / "Infinity" / "-Infinity";
 * NULL as null.
 */
import type { ColumnType, Scalar } from '../merge/index.ts';
import type { QueryAnswer } from './engine.ts';

/** Renders one SQL value of a column type as a JSON value. */
export function jsonValue(v: Scalar, type: ColumnType): string | number | boolean | null {
  if (v === null) return null;
  if (typeof v === 'bigint') return v <= BigInt(Number.MAX_SAFE_INTEGER) && v >= BigInt(Number.MIN_SAFE_INTEGER) ? Number(v) : v.toString();
  if (typeof v === 'number') {
    if (type === 'timestamp') return Number.isFinite(v) ? new Date(v).toISOString() : null;
    if (!Number.isFinite(v)) return String(v);
    if (type === 'int64') return Number.isSafeInteger(v) ? v : String(BigInt(v));
    return v;
  }
  return v;
}

/** The response body of `POST /v1/query` (see README for the shape). */
export function answerToJSON(a: QueryAnswer): Record<string, unknown> {
  const body: Record<string, unknown> = {
    columns: a.columns.map((c) => ({ name: c.name, type: c.type })),
    rows: a.rows.map((r) => r.map((v, i) => jsonValue(v, a.columns[i]!.type))),
    label: a.label,
    ...(a.cells === null
      ? {}
      : {
          cells: a.cells.map((r) =>
            r.map((c, i) => {
              if (c === null) return null;
              const t = a.columns[i]!.type;
              return { label: c.label, lo: jsonValue(c.lo ?? null, t), hi: jsonValue(c.hi ?? null, t) };
            }),
          ),
        }),
    rows_complete: a.rowsComplete,
    coverage: a.coverage,
    missing: a.missing,
    stats: a.stats,
  };
  if (a.timings !== undefined) {
    body.trace = { timings: a.timings, provenance: a.provenance };
  }
  return body;
}
