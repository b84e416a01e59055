/**
 * Baselines for `npm run bench -- wire`, not used by canopy:
 * - `baselineEncodeFrame` / `baselineDecodeFrame`: the frames as they were before they were
 *   built and read as typed arrays (src/merge/wire.ts at commit ca8bbb5: apache-arrow
 *   Builders via vectorFromArray on encode, `Vector.get` per cell on decode), frozen;
 * - `arrowEncodeFrame` / `arrowDecodeFrame`: the fair apache-arrow baseline, the same
 *   typed-array columns as canopy's with apache-arrow's own IPC writer and reader.
 */
import { Binary, Field, Float64, Int64, RecordBatch, RecordBatchStreamWriter, Schema, Struct, Table, Utf8, makeData, tableFromIPC, tableToIPC, vectorFromArray, type DataType, type Vector } from 'apache-arrow';
import { CanopyError, FRAME_VERSION, groupKeyString, type ColumnType, type Frame, type GatherTiming, type PartialLayout, type Scalar, type ShardStatus, type StateEncoding, type TopKFrame } from '../src/merge/index.ts';
import { frameColumns, frameFromStream } from '../src/merge/wire/frame.ts';
import { arrowFrameStream } from '../src/merge/wire/ipc-reader.ts';

type Enc = StateEncoding | ColumnType;

function arrowType(e: Enc): DataType {
  switch (e) {
    case 'int64':
      return new Int64();
    case 'float64':
    case 'timestamp':
      return new Float64();
    case 'binary':
      return new Binary();
    default:
      return new Utf8();
  }
}

function toCell(e: Enc, v: unknown): unknown {
  if (v === null || v === undefined) return null;
  if (e === 'bool' || (e === 'utf8' && typeof v === 'boolean')) return String(v);
  return v;
}

/**
 * Encodes a frame as Arrow IPC stream bytes.
 * @throws CanopyError CANOPY_ERR_INTERNAL if the partial does not fit the layout.
 */
export function baselineEncodeFrame(layout: PartialLayout, frame: Frame): Uint8Array {
  const header = JSON.stringify({ v: FRAME_VERSION, provenance: frame.provenance, rowsScanned: frame.rowsScanned, ...(frame.timings === undefined ? {} : { timings: frame.timings }),
    ...(frame.final === false ? { final: false } : {}),
    ...(frame.topk === undefined ? {} : { topk: { bound: finiteOrNull(frame.topk.bound), his: frame.topk.his.map(finiteOrNull), exact: frame.topk.exact } }),
  });
  const cols: { name: string; enc: Enc; values: unknown[] }[] = [];
  const p = frame.partial;
  if (p.type === 'columnar') {
    if (layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    layout.keyTypes.forEach((t, i) => cols.push({ name: `k${i}`, enc: t, values: Array.from(p.keys[i]!, (v: Scalar) => toCell(t, v)) }));
    layout.kinds.forEach((k, i) => cols.push({ name: `p${i}`, enc: k.encoding, values: Array.from(p.states[i]!, (st: unknown) => toCell(k.encoding, k.encode(st))) }));
  } else if (p.type === 'groups') {
    if (layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    const entries = [...p.groups.values()];
    layout.keyTypes.forEach((t, i) => cols.push({ name: `k${i}`, enc: t, values: entries.map((e) => toCell(t, e.keys[i])) }));
    layout.kinds.forEach((k, i) => cols.push({ name: `p${i}`, enc: k.encoding, values: entries.map((e) => toCell(k.encoding, k.encode(e.states[i]))) }));
  } else {
    if (layout.plan.rows === null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'row partial for an aggregate plan');
    layout.rowTypes.forEach((t, i) => cols.push({ name: `c${i}`, enc: t, values: p.rows.map((r) => toCell(t, r[i])) }));
  }
  const fields = cols.map((c) => new Field(c.name, arrowType(c.enc), true));
  const schema = new Schema(fields, new Map([['canopy.frame', header]]));
  const n = cols[0]?.values.length ?? 0;
  let table: Table;
  if (cols.length === 0 || n === 0) {
    table = new Table(schema);
  } else {
    const vectors = cols.map((c) => vectorFromArray(c.values, arrowType(c.enc)) as Vector);
    const t = new Table(Object.fromEntries(cols.map((c, i) => [c.name, vectors[i]!])));
    table = new Table(schema, t.batches.map((b) => new RecordBatch(schema, b.data)));
  }
  return tableToIPC(table, 'stream');
}

function garbled(msg: string): CanopyError {
  return new CanopyError('CANOPY_ERR_CHILD_GARBLED', msg);
}

const STATUSES = new Set(['answered', 'failed', 'omitted', 'pruned']);

/** -Infinity (no bound) travels as null in JSON. */
function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

function parseTopK(t: unknown): TopKFrame {
  const o = t as { bound?: unknown; his?: unknown; exact?: unknown } | null;
  const num = (x: unknown): number => (x === null ? -Infinity : typeof x === 'number' ? x : NaN);
  if (typeof o !== 'object' || o === null || !Array.isArray(o.his) || !Array.isArray(o.exact) || o.his.length !== o.exact.length) throw garbled('frame top-k header is malformed');
  const bound = num(o.bound);
  const his = (o.his as unknown[]).map(num);
  if (Number.isNaN(bound) || his.some((h) => Number.isNaN(h)) || !(o.exact as unknown[]).every((e) => typeof e === 'boolean')) throw garbled('frame top-k header is malformed');
  return { bound, his, exact: o.exact as boolean[] };
}

function parseHeader(text: string | undefined): { provenance: ShardStatus[]; rowsScanned: number; timings?: GatherTiming[]; topk?: TopKFrame; final?: boolean } {
  if (text === undefined) throw garbled('frame has no canopy.frame header');
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    throw garbled('frame header is not JSON');
  }
  const o = h as { v?: unknown; provenance?: unknown; rowsScanned?: unknown; timings?: unknown; topk?: unknown; final?: unknown };
  if (o.v !== FRAME_VERSION) throw garbled(`frame version ${String(o.v)}, expected ${FRAME_VERSION}`);
  if (!Array.isArray(o.provenance)) throw garbled('frame provenance is not a list');
  if (typeof o.rowsScanned !== 'number' || !(o.rowsScanned >= 0)) throw garbled('frame rowsScanned is not a count');
  for (const s of o.provenance as unknown[]) {
    const e = s as { [k: string]: unknown } | null;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e['shard']) || typeof e['status'] !== 'string' || !STATUSES.has(e['status']) || typeof e['path'] !== 'string') {
      throw garbled('frame provenance entry is malformed');
    }
  }
  if (o.final !== undefined && o.final !== false) throw garbled('frame final flag is malformed');
  const out = { provenance: o.provenance as ShardStatus[], rowsScanned: o.rowsScanned, ...(o.topk === undefined ? {} : { topk: parseTopK(o.topk) }), ...(o.final === false ? { final: false } : {}) };
  if (o.timings === undefined) return out;
  const ok = Array.isArray(o.timings) && (o.timings as unknown[]).every((t) => {
    const x = t as Record<string, unknown> | null;
    return typeof x === 'object' && x !== null && typeof x.gather === 'string' && typeof x.child === 'string' && typeof x.elapsedMs === 'number';
  });
  if (!ok) throw garbled('frame timings are malformed');
  return { ...out, timings: o.timings as GatherTiming[] };
}

/**
 * Decodes and validates a frame against the layout the parent expects.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for bytes that are not Arrow, a missing or
 *   malformed header, a wrong schema or invalid state values.
 */
export function baselineDecodeFrame(layout: PartialLayout, bytes: Uint8Array): Frame {
  let table: Table;
  try {
    table = tableFromIPC(bytes);
  } catch (e) {
    throw garbled(`reply is not an Arrow IPC stream (${e instanceof Error ? e.message : String(e)})`);
  }
  const { provenance, rowsScanned, timings, topk, final } = parseHeader(table.schema.metadata.get('canopy.frame'));
  const extra = { ...(timings === undefined ? {} : { timings }), ...(topk === undefined ? {} : { topk }), ...(final === false ? { final } : {}) };
  if (topk !== undefined && topk.his.length !== table.numRows) throw garbled('frame top-k header does not match its groups');
  const expect: { name: string; enc: Enc }[] =
    layout.plan.rows === null
      ? [...layout.keyTypes.map((t, i) => ({ name: `k${i}`, enc: t as Enc })), ...layout.kinds.map((k, i) => ({ name: `p${i}`, enc: k.encoding as Enc }))]
      : layout.rowTypes.map((t, i) => ({ name: `c${i}`, enc: t as Enc }));
  const fields = table.schema.fields;
  if (fields.length !== expect.length) throw garbled(`frame has ${fields.length} columns, expected ${expect.length}`);
  expect.forEach((x, i) => {
    const f = fields[i]!;
    if (f.name !== x.name || String(f.type) !== String(arrowType(x.enc))) {
      throw garbled(`frame column ${i} is ${f.name}: ${String(f.type)}, expected ${x.name}: ${String(arrowType(x.enc))}`);
    }
  });
  const n = table.numRows;
  const columns = expect.map((_, i) => table.getChildAt(i)!);
  const read = (c: number, r: number): unknown => columns[c]!.get(r) as unknown;
  try {
    if (layout.plan.rows !== null) {
      const rows: Scalar[][] = new Array(n);
      for (let r = 0; r < n; r++) {
        const row: Scalar[] = new Array(expect.length);
        for (let c = 0; c < expect.length; c++) row[c] = fromCell(layout.rowTypes[c]!, read(c, r));
        rows[r] = row;
      }
      for (let r = 1; r < n; r++) if (layout.compareRows(rows[r - 1]!, rows[r]!) > 0) throw garbled('row run is not sorted');
      if (n > layout.plan.rows.limit) throw garbled(`row run has ${n} rows, more than the limit ${layout.plan.rows.limit}`);
      return { partial: { type: 'rows', rows }, provenance, rowsScanned, ...extra };
    }
    const nk = layout.keyTypes.length;
    const keys = layout.keyTypes.map((t, c) => {
      const out: Scalar[] = new Array(n);
      for (let r = 0; r < n; r++) out[r] = fromCell(t, read(c, r));
      return out;
    });
    const states = layout.kinds.map((k, i) => {
      const out: unknown[] = new Array(n);
      for (let r = 0; r < n; r++) out[r] = k.decode(read(nk + i, r));
      return out;
    });
    const seen = new Set<string>();
    const tuple: Scalar[] = new Array(nk);
    for (let r = 0; r < n; r++) {
      for (let c = 0; c < nk; c++) tuple[c] = keys[c]![r]!;
      const key = groupKeyString(tuple);
      if (seen.has(key)) throw garbled('frame repeats a group');
      seen.add(key);
    }
    return { partial: { type: 'columnar', size: n, keys, states }, provenance, rowsScanned, ...extra };
  } catch (e) {
    if (e instanceof CanopyError) throw e;
    throw garbled(`frame holds an invalid value (${e instanceof Error ? e.message : String(e)})`);
  }
}

function fromCell(t: ColumnType, v: unknown): Scalar {
  if (v === null || v === undefined) return null;
  if (t === 'bool') return v === 'true';
  if (t === 'int64' && typeof v !== 'bigint') throw new Error(`expected int64, got ${typeof v}`);
  if ((t === 'float64' || t === 'timestamp') && typeof v !== 'number') throw new Error(`expected number, got ${typeof v}`);
  if (t === 'string' && typeof v !== 'string') throw new Error(`expected string, got ${typeof v}`);
  return v as Scalar;
}

/**
 * The fair apache-arrow baseline: the same typed-array columns as src/merge/wire
 * (`frameColumns`), wrapped with `makeData` (no copy, no Builders) into a RecordBatch and
 * written by apache-arrow's `RecordBatchStreamWriter`; read back by `tableFromIPC` and the
 * same column reader over each chunk's `Data` (`.values`, `.valueOffsets`, `.nullBitmap`; no
 * per-cell `Vector.get`). Only the IPC writer and reader differ from canopy's own.
 */
export function arrowEncodeFrame(layout: PartialLayout, frame: Frame): Uint8Array {
  const { columns, n, header } = frameColumns(layout, frame);
  const fields = columns.map((c) => new Field(c.name, storageType(c.storage), true));
  const children = columns.map((c, i) => {
    const type = fields[i]!.type;
    const nullBitmap = c.nullCount > 0 ? c.validity.subarray(0, (n + 7) >> 3) : undefined;
    const common = { length: n, nullCount: c.nullCount, ...(nullBitmap === undefined ? {} : { nullBitmap }) };
    switch (c.storage) {
      case 'int64':
        return makeData({ type: type as Int64, ...common, data: new BigInt64Array(c.data.buffer, c.data.byteOffset, n) });
      case 'float64':
        return makeData({ type: type as Float64, ...common, data: new Float64Array(c.data.buffer, c.data.byteOffset, n) });
      case 'utf8':
        return makeData({ type: type as Utf8, ...common, data: c.data, valueOffsets: c.offsets! });
      case 'binary':
        return makeData({ type: type as Binary, ...common, data: c.data, valueOffsets: c.offsets! });
    }
  });
  const schema = new Schema(fields, new Map([['canopy.frame', header]]));
  const batch = new RecordBatch(schema, makeData({ type: new Struct(schema.fields), length: n, nullCount: 0, children }));
  return RecordBatchStreamWriter.writeAll([batch]).toUint8Array(true);
}

/** Reads a frame written by any Arrow writer with apache-arrow's reader (see {@link arrowEncodeFrame}). */
export function arrowDecodeFrame(layout: PartialLayout, bytes: Uint8Array): Frame {
  return frameFromStream(layout, arrowFrameStream(bytes));
}

function storageType(s: 'int64' | 'float64' | 'utf8' | 'binary'): DataType {
  return s === 'int64' ? new Int64() : s === 'float64' ? new Float64() : s === 'utf8' ? new Utf8() : new Binary();
}
