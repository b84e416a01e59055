/**
 * Answer formats of `/v1/query`, chosen by the Accept header:
 * - `application/json` (default): the final answer;
 * - `application/x-ndjson` (or `"stream": true`): one JSON snapshot per line, the last with `final: true`;
 * - `text/event-stream`: the same snapshots as Server-Sent Events (`event: snapshot`, then `event: final`);
 *   a stream ends with the answer or, when the query failed once it had begun, its error with
 *   `final: true` (what planning refuses is refused before the stream, with its HTTP status);
 * - `application/vnd.apache.arrow.stream`: the final answer as an Arrow IPC stream whose schema
 *   metadata holds `canopy.label`, `canopy.rows_complete`, `canopy.coverage`, `canopy.missing`,
 *   `canopy.stats`, `canopy.cells` (JSON text; cells carry their `estimate`) and
 *   `canopy.warnings` (the answer's `warnings` list, `[]` when none), and
 *   `canopy.estimate_note` when the answer has one;
 * - `text/csv`: the final answer as RFC 4180 CSV (see {@link answerToCSV}), its warnings in the
 *   `X-Canopy-Warnings` header (see {@link warningsHeader}; set on Arrow and Parquet answers too);
 * - `application/vnd.apache.parquet`: the final answer as a Parquet file (hyparquet-writer),
 *   with the same `canopy.*` entries as the Arrow schema in its key-value metadata.
 */
import { parquetWriteBuffer } from 'hyparquet-writer';
import { Bool, DateDay, Decimal, Field, Float64, Int64, RecordBatch, Schema, Table, TimestampMicrosecond, Utf8, makeData, makeVector, tableToIPC, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { ARROW_STREAM, CanopyError, dayNumber, wholeMicros, type ColumnType, type Scalar } from '../merge/index.ts';
import type { SchemaElement } from 'hyparquet';
import type { QueryAnswer } from './engine.ts';
import { answerToJSON } from './format.ts';

/** Formats /v1/query can produce. */
export type AnswerFormat = 'json' | 'ndjson' | 'sse' | 'arrow' | 'csv' | 'parquet';

/** The media type of Parquet files (registered with IANA in 2024). */
export const PARQUET = 'application/vnd.apache.parquet';

const TYPES: Record<string, AnswerFormat> = {
  'application/json': 'json',
  'application/x-ndjson': 'ndjson',
  'text/event-stream': 'sse',
  [ARROW_STREAM]: 'arrow',
  'text/csv': 'csv',
  [PARQUET]: 'parquet',
};

/**
 * Picks the format from an Accept header (first supported type wins, by q-value order; a
 * wildcard picks JSON, or CSV for `text/*`).
 * @throws CanopyError CANOPY_ERR_NOT_ACCEPTABLE listing the supported types.
 */
export function negotiate(accept: string | undefined, stream: boolean): AnswerFormat {
  if (accept === undefined || accept.trim() === '') return stream ? 'ndjson' : 'json';
  const wanted = accept
    .split(',')
    .map((part, i) => {
      const [type, ...params] = part.trim().split(';');
      const q = Number(params.map((p) => p.trim()).find((p) => p.startsWith('q='))?.slice(2) ?? '1');
      return { type: (type ?? '').trim().toLowerCase(), q: Number.isFinite(q) ? q : 0, i };
    })
    .filter((w) => w.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i);
  for (const w of wanted) {
    if (w.type === '*/*' || w.type === 'application/*') return stream ? 'ndjson' : 'json';
    // `text/*` (RFC 9110: any text subtype) is the CSV answer, or SSE snapshots with "stream".
    if (w.type === 'text/*') return stream ? 'sse' : 'csv';
    const f = TYPES[w.type];
    if (f !== undefined) return f === 'json' && stream ? 'ndjson' : f;
  }
  throw new CanopyError('CANOPY_ERR_NOT_ACCEPTABLE', `cannot answer as ${accept}; supported: ${Object.keys(TYPES).join(', ')}`);
}

/** Content type of a format. */
export function contentType(f: AnswerFormat): string {
  const types: Record<AnswerFormat, string> = {
    json: 'application/json',
    ndjson: 'application/x-ndjson',
    sse: 'text/event-stream',
    arrow: ARROW_STREAM,
    csv: 'text/csv; charset=utf-8; header=present',
    parquet: PARQUET,
  };
  return types[f];
}

/** One snapshot (or the answer) as an NDJSON line or an SSE event. */
export function streamChunk(f: 'ndjson' | 'sse', body: Record<string, unknown>): string {
  const json = JSON.stringify(body);
  if (f === 'ndjson') return `${json}\n`;
  return `event: ${body.final === true ? 'final' : body.error !== undefined ? 'error' : 'snapshot'}\ndata: ${json}\n\n`;
}

/**
 * The Arrow type of an answer column: int64 Int64, int128 Decimal128(38, 0), float64 Float64,
 * timestamp `timestamp[us, tz=UTC]`, date Date32 (`DateDay`, days since 1970), string and bool Utf8.
 */
function arrowType(t: ColumnType): DataType {
  switch (t) {
    case 'int64':
      return new Int64();
    case 'int128':
      return new Decimal(0, 38, 128);
    case 'float64':
      return new Float64();
    case 'timestamp':
      return new TimestampMicrosecond('UTC');
    case 'date':
      return new DateDay();
    case 'bool':
      return new Bool();
    default:
      return new Utf8();
  }
}

/** 2^128, for two's complement of negative Decimal128 values. */
const TWO_128 = 1n << 128n;

/** The validity bitmap and NULL count of `values`, calling `set(i, v)` for each non-NULL value (Arrow's LSB-first bitmap). */
function validity(values: readonly Scalar[], set: (i: number, v: Exclude<Scalar, null>) => void): { nullBitmap: Uint8Array; nullCount: number } {
  const n = values.length;
  const nullBitmap = new Uint8Array((n + 7) >> 3);
  let nullCount = 0;
  for (let i = 0; i < n; i++) {
    const v = values[i] ?? null;
    if (v === null) {
      nullCount++;
      continue;
    }
    nullBitmap[i >> 3]! |= 1 << (i & 7);
    set(i, v);
  }
  return { nullBitmap, nullCount };
}

/**
 * A timestamp or int128 column built from its buffers (apache-arrow's builders take
 * timestamps in ms, which would round microseconds, and have no bigint path for decimals).
 */
function wideColumn(type: 'timestamp' | 'int128', values: readonly Scalar[]): Vector {
  const n = values.length;
  if (type === 'timestamp') {
    const micros = new BigInt64Array(n);
    const { nullBitmap, nullCount } = validity(values, (i, v) => (micros[i] = BigInt(wholeMicros(v as number))));
    return makeVector(makeData({ type: arrowType(type) as TimestampMicrosecond, length: n, nullCount, nullBitmap, data: micros }));
  }
  const words = new BigUint64Array(2 * n);
  const { nullBitmap, nullCount } = validity(values, (i, v) => {
    // Little-endian 128-bit two's complement: low word, then high word.
    const x = BigInt(v as bigint | number);
    const u = x < 0n ? x + TWO_128 : x;
    words[2 * i] = BigInt.asUintN(64, u);
    words[2 * i + 1] = u >> 64n;
  });
  return makeVector(makeData({ type: arrowType(type) as TimestampMicrosecond, length: n, nullCount, nullBitmap, data: new Uint32Array(words.buffer) as unknown as BigInt64Array }));
}

/** A DATE column as Arrow Date32 built from its buffers (days since 1970; the values are the µs of their midnights). */
function dateColumn(values: readonly Scalar[]): Vector {
  const days = new Int32Array(values.length);
  const { nullBitmap, nullCount } = validity(values, (i, v) => (days[i] = dayNumber(v as number)));
  return makeVector(makeData({ type: new DateDay(), length: values.length, nullCount, nullBitmap, data: days }));
}

/** The answer's label, coverage, missing shards, stats, cells and warnings as `canopy.*` metadata entries (JSON text). */
function answerMetadata(a: QueryAnswer): [string, string][] {
  const json = answerToJSON(a);
  return [
    ['canopy.label', a.label],
    ['canopy.rows_complete', String(a.rowsComplete)],
    ['canopy.coverage', JSON.stringify(a.coverage)],
    ['canopy.missing', JSON.stringify(a.missing)],
    ['canopy.stats', JSON.stringify(a.stats)],
    ['canopy.cells', JSON.stringify(json.cells ?? null)],
    ['canopy.warnings', JSON.stringify(a.warnings ?? [])],
    ...(a.estimateNote === undefined ? [] : [['canopy.estimate_note', a.estimateNote] as [string, string]]),
  ];
}

/** The final answer as Arrow IPC stream bytes, labels and bounds in the schema metadata. */
export function answerToArrow(a: QueryAnswer): Uint8Array {
  const meta = new Map<string, string>(answerMetadata(a));
  const fields = a.columns.map((c) => new Field(c.name, arrowType(c.type), true));
  const schema = new Schema(fields, meta);
  if (a.rows.length === 0) return tableToIPC(new Table(schema), 'stream');
  const vectors = a.columns.map((c, i) => {
    if (c.type === 'timestamp' || c.type === 'int128') return wideColumn(c.type, a.rows.map((r) => r[i] ?? null));
    if (c.type === 'date') return dateColumn(a.rows.map((r) => r[i] ?? null));
    const values = a.rows.map((r) => {
      const v = r[i] ?? null;
      if (v === null) return null;
      if (c.type === 'int64') return typeof v === 'bigint' ? v : BigInt(v as number);
      if (c.type === 'string') return String(v);
      if (c.type === 'bool') return Boolean(v);
      return Number(v);
    });
    return vectorFromArray(values, arrowType(c.type)) as Vector;
  });
  const t = new Table(Object.fromEntries(a.columns.map((c, i) => [`c${i}`, vectors[i]!])));
  return tableToIPC(new Table(schema, t.batches.map((b) => new RecordBatch(schema, b.data))), 'stream');
}

/**
 * The `X-Canopy-Warnings` header of an answer: its warnings as a structured-field list
 * (RFC 8941) of codes with the number of shards concerned, e.g.
 * `CANOPY_WARN_PRUNED;shards=12, CANOPY_WARN_MISSING;shards=1` (a code alone when its warning
 * concerns no shard, e.g. `CANOPY_WARN_TOPK_TRUNCATED`); undefined when there are none.
 * The shard lists and messages are in the body's `warnings` (JSON) or `canopy.warnings` metadata.
 */
export function warningsHeader(a: QueryAnswer): string | undefined {
  if (a.warnings === undefined || a.warnings.length === 0) return undefined;
  // A warning about the answer itself (a truncated top-k, an estimate) names no shards: no parameter.
  return a.warnings.map((w) => (w.shards.length === 0 ? w.code : `${w.code};shards=${w.shards.length}`)).join(', ');
}

/** One CSV field (RFC 4180): quoted when it holds a comma, quote, CR/LF or edge spaces; NULL is empty, '' is `""`. */
function csvField(v: unknown): string {
  if (v === null || v === undefined) return '';
  const t = String(v);
  return t === '' || /[",\r\n]|^\s|\s$/.test(t) ? `"${t.replace(/"/g, '""')}"` : t;
}

/**
 * The final answer as CSV (RFC 4180, CRLF line ends): a header of column names, then one
 * line per row with the values as the JSON answer gives them (numbers in shortest round-trip
 * form, int64 beyond 2^53 as decimals, timestamps ISO-8601 UTC). NULL is an empty field, an
 * empty string is `""` (PostgreSQL's convention). When the answer is not exact, each column
 * with an uncertain cell is followed by `<name> [lo]`, `<name> [hi]` and `<name> [label]`
 * (empty for an exact cell), so a partial answer cannot be exported as if it were complete.
 */
export function answerToCSV(a: QueryAnswer): string {
  const json = answerToJSON(a);
  const rows = json.rows as unknown[][];
  const cells = (json.cells ?? null) as ({ label: string; lo: unknown; hi: unknown } | null)[][] | null;
  const uncertain = a.columns.map((_, c) => cells !== null && cells.some((r) => r[c] != null));
  const header: string[] = [];
  a.columns.forEach((col, c) => {
    header.push(col.name);
    if (uncertain[c]) header.push(`${col.name} [lo]`, `${col.name} [hi]`, `${col.name} [label]`);
  });
  const lines = [header.map(csvField).join(',')];
  rows.forEach((row, r) => {
    const out: unknown[] = [];
    row.forEach((v, c) => {
      out.push(v);
      if (uncertain[c]) {
        const cell = cells?.[r]?.[c] ?? null;
        out.push(cell?.lo ?? null, cell?.hi ?? null, cell?.label ?? null);
      }
    });
    lines.push(out.map(csvField).join(','));
  });
  return `${lines.join('\r\n')}\r\n`;
}

/**
 * The final answer as a Parquet file (hyparquet-writer, Snappy): int64 as INT64, float64 as
 * DOUBLE, strings as UTF8 BYTE_ARRAY, bools as BOOLEAN, timestamps as INT64 TIMESTAMP(MICROS,
 * UTC), DATEs as INT32 DATE (days); every column OPTIONAL (NULL is a null). Other types are written as their decimal text.
 * The `canopy.*` entries of the Arrow answer are the file's key-value metadata.
 */
export function answerToParquet(a: QueryAnswer): Uint8Array {
  const columnData = a.columns.map((col, i) => {
    const values = a.rows.map((r) => r[i] ?? null);
    switch (col.type) {
      case 'int64':
        return { name: col.name, data: values.map((v) => (v === null ? null : typeof v === 'bigint' ? v : BigInt(v as number))) };
      case 'float64':
        return { name: col.name, data: values.map((v) => (v === null ? null : Number(v))) };
      case 'timestamp':
        return { name: col.name, data: values.map((v) => (v === null ? null : BigInt(v as number))) };
      case 'date':
        return { name: col.name, data: values.map((v) => (v === null ? null : dayNumber(v as number))) };
      case 'bool':
        return { name: col.name, data: values.map((v) => (v === null ? null : v === true || v === 'true')) };
      default:
        return { name: col.name, data: values.map((v) => (v === null ? null : String(v))) };
    }
  });
  const element = (col: { name: string; type: ColumnType }): SchemaElement => {
    const base = { name: col.name, repetition_type: 'OPTIONAL' as const };
    switch (col.type) {
      case 'int64':
        return { ...base, type: 'INT64' };
      case 'float64':
        return { ...base, type: 'DOUBLE' };
      case 'timestamp':
        return { ...base, type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: true, unit: 'MICROS' } };
      case 'date':
        return { ...base, type: 'INT32', converted_type: 'DATE' };
      case 'bool':
        return { ...base, type: 'BOOLEAN' };
      default:
        return { ...base, type: 'BYTE_ARRAY', converted_type: 'UTF8' };
    }
  };
  const schema: SchemaElement[] = [{ name: 'root', num_children: a.columns.length }, ...a.columns.map(element)];
  const buf = parquetWriteBuffer({ columnData, schema, kvMetadata: answerMetadata(a).map(([key, value]) => ({ key, value })), createdBy: 'canopy (hyparquet-writer)' });
  return new Uint8Array(buf);
}
