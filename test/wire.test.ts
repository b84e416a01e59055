/**
 * The frame wire format (src/merge/wire.ts): encodeFrame / decodeFrame round-trip random
 * frames of every column type exactly (int64 as bigint, NULLs, NaN / ±Infinity / -0 floats,
 * empty strings vs NULL, non-ASCII strings, booleans as 'true' / 'false', binary sketch
 * states, fractional timestamps); the bytes are still a plain Arrow IPC stream that
 * apache-arrow's own `tableFromIPC` reads to the same cells, and frames written with
 * apache-arrow's Builders (several record batches) decode to the same frame; garbled frames
 * are rejected with CANOPY_ERR_CHILD_GARBLED.
 */
import { Binary, Field, Float32, Float64, Int32, Int64, LargeUtf8, RecordBatch, RecordBatchStreamWriter, Schema, Struct, Table, Utf8, makeData, tableFromIPC, tableToIPC, vectorFromArray, type Data, type DataType } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import {
  FRAME_VERSION,
  HLL_EXACT_LIMIT,
  PartialAccumulator,
  partialsEqual,
  decodeFrame,
  encodeFrame,
  groupKeyString,
  groupsOf,
  layoutOf,
  type ColumnType,
  type ColumnarPartial,
  type Frame,
  type GroupKeySpec,
  type Partial,
  type PartialLayout,
  type PartialSpec,
  type Scalar,
  type ScanPlan,
  type TableSchema,
} from '../src/merge/index.ts';
import { frameColumns } from '../src/merge/wire/frame.ts';
import { keyDictOf } from '../src/merge/group-index.ts';
import { writeIpcStream } from '../src/merge/wire/ipc-writer.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';

const schema: TableSchema = MIXED_SCHEMA;

/** Every partial kind over every column type it applies to (sums, counts, extremes, HLL sets and sketches, DDSketch). */
const PARTIALS: readonly PartialSpec[] = [
  { kind: 'count_star', arg: null },
  { kind: 'count', arg: { kind: 'col', name: 'g' } },
  { kind: 'sum', arg: { kind: 'col', name: 'i' } },
  { kind: 'sum', arg: { kind: 'col', name: 'f' } },
  { kind: 'min', arg: { kind: 'col', name: 'i' } },
  { kind: 'max', arg: { kind: 'col', name: 'f' } },
  { kind: 'min', arg: { kind: 'col', name: 'ts' } },
  { kind: 'max', arg: { kind: 'col', name: 'g' } },
  { kind: 'hll', arg: { kind: 'col', name: 'g' } },
  { kind: 'hll', arg: { kind: 'col', name: 'i' } },
  { kind: 'hll', arg: { kind: 'col', name: 'f' } },
  { kind: 'ddsketch', arg: { kind: 'col', name: 'f' } },
  { kind: 'ddsketch', arg: { kind: 'col', name: 'i' } },
  { kind: 'arg_min', arg: { kind: 'col', name: 'i' }, by: { kind: 'col', name: 'f' }, byType: 'float64' },
  { kind: 'arg_max', arg: { kind: 'col', name: 'g' }, by: { kind: 'col', name: 'i' }, byType: 'int64' },
];

/** Group keys: the stored columns and a bool expression (i > 0). */
const KEYS: Readonly<Record<Exclude<ColumnType, 'int128'>, GroupKeySpec>> = {
  string: { name: 'g', expr: { kind: 'col', name: 'g' }, type: 'string' },
  int64: { name: 'i', expr: { kind: 'col', name: 'i' }, type: 'int64' },
  float64: { name: 'f', expr: { kind: 'col', name: 'f' }, type: 'float64' },
  timestamp: { name: 'ts', expr: { kind: 'col', name: 'ts' }, type: 'timestamp' },
  date: { name: 'd', expr: { kind: 'cast', arg: { kind: 'col', name: 'ts' }, type: 'date', from: 'timestamp', try: false }, type: 'date' },
  bool: { name: 'pos', expr: { kind: 'cmp', op: '>', left: { kind: 'col', name: 'i' }, right: { kind: 'lit', value: 0n, type: 'int64' } }, type: 'bool' },
};
const TYPES: readonly Exclude<ColumnType, 'int128'>[] = ['string', 'int64', 'float64', 'timestamp', 'bool', 'date'];
/** Key types a leaf can group by (a bool expression is not a group key). */
const STORED: readonly Exclude<ColumnType, 'int128'>[] = ['string', 'int64', 'float64', 'timestamp'];

function groupedLayout(keyTypes: readonly ColumnType[]): PartialLayout {
  const plan: ScanPlan = { table: 't', filter: null, groupBy: keyTypes.map((t, k) => ({ ...KEYS[t as Exclude<ColumnType, 'int128'>], name: `k${k}` })), partials: PARTIALS, rows: null, maxGroups: 1_000_000 };
  return layoutOf(plan, schema);
}

function rowLayout(types: readonly ColumnType[], orderBy: readonly { column: number; desc: boolean }[], limit: number): PartialLayout {
  const plan: ScanPlan = {
    table: 't',
    filter: null,
    groupBy: [],
    partials: [],
    rows: { columns: types.map((type, c) => ({ name: `c${c}`, expr: { kind: 'col', name: 'g' }, type })), visible: types.length, orderBy, limit },
    maxGroups: 1_000_000,
  };
  return layoutOf(plan, schema);
}

const strings = fc.oneof(
  fc.constantFrom('', ' ', 'a', 'ORD', 'é', '日本語', '🙂', 'a\u0000b', '\uFEFFbom', 'x'.repeat(40)),
  fc.string({ maxLength: 6 }),
  fc.string({ unit: 'grapheme', maxLength: 6 }),
);
const int64s = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.bigInt({ min: -5n, max: 5n }), fc.constantFrom(2n ** 53n + 1n, -(2n ** 63n), 2n ** 63n - 1n));
const doubles = fc.oneof(fc.double(), fc.constantFrom(NaN, Infinity, -Infinity, -0, 0, Number.MIN_VALUE, Number.MAX_VALUE, 0.1));
const timestamps = fc.oneof(fc.integer({ min: -(2 ** 40), max: 2 ** 42 }), fc.double({ min: -1e13, max: 1e13, noNaN: true }));
const cellOf: Readonly<Record<Exclude<ColumnType, 'int128'>, fc.Arbitrary<Scalar>>> = {
  string: strings,
  int64: int64s,
  float64: doubles,
  timestamp: timestamps,
  // DATEs travel as the µs of their midnights.
  date: fc.integer({ min: -100_000, max: 100_000 }).map((d) => d * 86_400_000_000),
  bool: fc.boolean(),
};
const nullable = <T,>(a: fc.Arbitrary<T>): fc.Arbitrary<T | null> => fc.option(a, { nil: null, freq: 4 });

/** A value of an Arrow column as the frame stores it: bool as 'true' / 'false'. */
function cellOfScalar(t: ColumnType, v: Scalar): unknown {
  return t === 'bool' && v !== null ? String(v) : v;
}

/** Exact cell equality: bytes for binary, Object.is for numbers (NaN equal, -0 not 0). */
function sameCell(a: unknown, b: unknown): boolean {
  if (a instanceof Uint8Array && b instanceof Uint8Array) return a.length === b.length && a.every((x, i) => x === b[i]);
  return Object.is(a, b);
}

/** apache-arrow's Utf8 reader (a default TextDecoder) drops a leading U+FEFF; canopy keeps it. */
function asArrowReadsIt(v: unknown): unknown {
  return typeof v === 'string' && v.startsWith('\uFEFF') ? v.slice(1) : v;
}

/** The frame's columns as Arrow cells, in order, with their names and encodings. */
function expectedColumns(layout: PartialLayout, p: Partial): { name: string; type: string; cells: unknown[] }[] {
  const arrowName = (e: string): string => (e === 'int64' ? 'Int64' : e === 'float64' || e === 'timestamp' || e === 'date' ? 'Float64' : e === 'binary' ? 'Binary' : 'Utf8');
  if (p.type === 'rows') return layout.rowTypes.map((t, c) => ({ name: `c${c}`, type: arrowName(t), cells: p.rows.map((r) => cellOfScalar(t, r[c]!)) }));
  const c = toColumnar(layout, p);
  return [
    ...layout.keyTypes.map((t, k) => ({ name: `k${k}`, type: arrowName(t), cells: Array.from(c.keys[k]!, (v: Scalar) => cellOfScalar(t, v)) })),
    ...layout.kinds.map((kind, i) => ({ name: `p${i}`, type: arrowName(kind.encoding), cells: Array.from(c.states[i]!, (s: unknown) => kind.encode(s)) })),
  ];
}

function toColumnar(layout: PartialLayout, p: Exclude<Partial, { type: 'rows' }>): ColumnarPartial {
  if (p.type === 'columnar') return p;
  const entries = [...p.groups.values()];
  return {
    type: 'columnar',
    size: entries.length,
    keys: layout.keyTypes.map((_, k) => entries.map((e) => e.keys[k]!)),
    states: layout.kinds.map((_, s) => entries.map((e) => e.states[s])),
  };
}

/** decode(encode(f)) is f, cell by cell and state by state (same group order). */
function expectSameFrame(layout: PartialLayout, got: Frame, want: Frame): void {
  expect(got.provenance).toEqual(want.provenance);
  expect(got.rowsScanned).toBe(want.rowsScanned);
  expect(got.final).toBe(want.final);
  expect(got.topk).toEqual(want.topk);
  if (want.partial.type === 'rows') {
    expect(got.partial.type).toBe('rows');
    const rows = (got.partial as Extract<Partial, { type: 'rows' }>).rows;
    expect(rows.length).toBe(want.partial.rows.length);
    want.partial.rows.forEach((r, i) => r.forEach((v, c) => expect(sameCell(rows[i]![c], v), `row ${i} column ${c}: ${String(rows[i]![c])} vs ${String(v)}`).toBe(true)));
    return;
  }
  expect(got.partial.type).toBe('columnar');
  const g = got.partial as ColumnarPartial;
  const w = toColumnar(layout, want.partial);
  expect(g.size).toBe(w.size);
  w.keys.forEach((col, k) => col.forEach((v, r) => expect(sameCell(g.keys[k]![r], v), `key ${k} row ${r}: ${String(g.keys[k]![r])} vs ${String(v)}`).toBe(true)));
  // States decode to what the kind's own codec gives for the cell (fsum's text drops the sign
  // of a -0 sum: that is the kind, not the wire); expectPlainArrow checks the cells themselves.
  layout.kinds.forEach((kind, i) => w.states[i]!.forEach((s, r) => expect(kind.equals(g.states[i]![r], kind.decode(kind.encode(s))), `partial ${i} (${kind.kind}) row ${r}`).toBe(true)));
}

/** The bytes read with plain apache-arrow: header, field names and types, and every cell. */
function expectPlainArrow(layout: PartialLayout, bytes: Uint8Array, frame: Frame): void {
  const table = tableFromIPC(bytes);
  const header = JSON.parse(table.schema.metadata.get('canopy.frame')!) as Record<string, unknown>;
  expect(header).toMatchObject({ v: FRAME_VERSION, provenance: frame.provenance, rowsScanned: frame.rowsScanned });
  const cols = expectedColumns(layout, frame.partial);
  const n = cols[0]?.cells.length ?? 0;
  if (n === 0) return;
  expect(table.schema.fields.map((f) => [f.name, String(f.type), f.nullable])).toEqual(cols.map((c) => [c.name, c.type, true]));
  expect(table.numRows).toBe(n);
  cols.forEach((c, ci) => {
    const v = table.getChildAt(ci)!;
    c.cells.forEach((cell, r) => expect(sameCell(v.get(r), asArrowReadsIt(cell)), `${c.name} row ${r}: ${String(v.get(r))} vs ${String(cell)}`).toBe(true));
  });
}

/** The Arrow type of a frame column from its name ('Int64', 'Float64', 'Utf8', 'Binary'). */
function typeNamed(name: string): DataType {
  return name === 'Int64' ? new Int64() : name === 'Float64' ? new Float64() : name === 'Utf8' ? new Utf8() : new Binary();
}

/**
 * A frame written independently of canopy's encoder, with apache-arrow's Builders
 * (vectorFromArray) and writer, the rows split into `batches` record batches; `legacy`:
 * the pre-1.0 message framing (no continuation marker), which canopy's own stream reader
 * leaves to apache-arrow's reader.
 */
function builderFrame(layout: PartialLayout, frame: Frame, batches: number, legacy: boolean): Uint8Array {
  const cols = expectedColumns(layout, frame.partial);
  const header = JSON.stringify({ v: FRAME_VERSION, provenance: frame.provenance, rowsScanned: frame.rowsScanned });
  const types = cols.map((c) => typeNamed(c.type));
  const s = new Schema(cols.map((c, i) => new Field(c.name, types[i]!, true)), new Map([['canopy.frame', header]]));
  const n = cols[0]?.cells.length ?? 0;
  const cuts = Array.from({ length: batches + 1 }, (_, b) => Math.round((b * n) / batches));
  const rbs = cuts.slice(1).map((hi, b) => {
    const lo = cuts[b]!;
    const children = cols.map((c, i) => {
      const data = vectorFromArray(c.cells.slice(lo, hi), types[i]!).data;
      expect(data.length).toBe(1);
      return data[0]! as Data;
    });
    return new RecordBatch(s, makeData({ type: new Struct(s.fields), length: hi - lo, nullCount: 0, children }));
  });
  return RecordBatchStreamWriter.writeAll(new Table(s, rbs), { writeLegacyIpcFormat: legacy }).toUint8Array(true);
}

const provenance = fc.array(fc.record({ shard: fc.nat(99), status: fc.constantFrom('answered' as const, 'failed' as const, 'omitted' as const, 'pruned' as const), path: fc.constantFrom('leaf-0', 'agg-1/leaf-3', ''), rowsScanned: fc.nat(1e6) }), { maxLength: 3 });

describe('wire: round trip of random frames', () => {
  it('row frames of every column type: decode(encode(f)) == f, plain Arrow reads the same cells, Builder-written frames decode the same', () => {
    const spec = fc
      .array(fc.constantFrom(...TYPES), { minLength: 1, maxLength: 5 })
      .chain((types) =>
        fc.record({
          types: fc.constant(types),
          rows: fc.array(fc.tuple(...types.map((t) => nullable(cellOf[t]))), { maxLength: 25 }),
          orderBy: fc.uniqueArray(fc.record({ column: fc.nat(types.length - 1), desc: fc.boolean() }), { selector: (o) => o.column, maxLength: types.length }),
          provenance,
          rowsScanned: fc.nat(1e9),
          batches: fc.integer({ min: 1, max: 3 }),
          legacy: fc.boolean(),
        }),
      );
    fc.assert(
      fc.property(spec, ({ types, rows, orderBy, provenance, rowsScanned, batches, legacy }) => {
        const layout = rowLayout(types, orderBy, Math.max(1, rows.length));
        const sorted = (rows as Scalar[][]).slice().sort(layout.compareRows);
        const frame: Frame = { partial: { type: 'rows', rows: sorted }, provenance, rowsScanned };
        const bytes = encodeFrame(layout, frame);
        expectSameFrame(layout, decodeFrame(layout, bytes), frame);
        expectPlainArrow(layout, bytes, frame);
        if (sorted.length > 0) expectSameFrame(layout, decodeFrame(layout, builderFrame(layout, frame, batches, legacy)), frame);
      }),
      { numRuns: 150 },
    );
  });

  it('string columns of thousands of cells decode the same whether values repeat (interned by their bytes), mostly differ, run long or are not ASCII', () => {
    const spec = fc.record({
      // Many values of one length (airport codes): entries of the interner's table collide.
      pool: fc.oneof(fc.uniqueArray(strings, { minLength: 1, maxLength: 40 }), fc.uniqueArray(fc.string({ unit: fc.constantFrom('A', 'B', 'C', 'D', 'E', 'F', 'é'), minLength: 3, maxLength: 3 }), { minLength: 50, maxLength: 200, size: 'max' })),
      distinct: fc.oneof(fc.integer({ min: 0, max: 200 }), fc.integer({ min: 0, max: 3000 })),
      picks: fc.array(fc.nat(), { minLength: 1, maxLength: 3000, size: 'max' }),
      batches: fc.integer({ min: 1, max: 3 }),
    });
    fc.assert(
      fc.property(spec, ({ pool, distinct, picks, batches }) => {
        // Cells: NULL, a repeated value of the pool, or one of `distinct` values seen about once.
        const rows: Scalar[][] = picks.map((x, i) => [x % 17 === 0 ? null : i < distinct ? `v${i}é`.repeat(1 + (i % 9)) : pool[x % pool.length]!]);
        const layout = rowLayout(['string'], [], rows.length);
        const sorted = rows.slice().sort(layout.compareRows);
        const frame: Frame = { partial: { type: 'rows', rows: sorted }, provenance: [], rowsScanned: 0 };
        const bytes = encodeFrame(layout, frame);
        expectSameFrame(layout, decodeFrame(layout, bytes), frame);
        expectSameFrame(layout, decodeFrame(layout, builderFrame(layout, frame, batches, false)), frame);
      }),
      { numRuns: 40 },
    );
  });

  it('grouped frames (leaf scan partials, every key type and partial kind): decode(encode(f)) == f, plain Arrow reads the same cells, Builder-written frames decode the same', async () => {
    const rowArb = fc.tuple(nullable(strings), nullable(int64s), nullable(doubles), nullable(fc.integer({ min: -(2 ** 40), max: 2 ** 42 })));
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.constantFrom(...STORED), { maxLength: 3 }),
        fc.array(rowArb, { maxLength: 40 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        async (keyTypes, rows, asMap, batches, legacy) => {
          const layout = groupedLayout(keyTypes);
          const [table] = shardsFromRows(schema, [rows as Scalar[][]]);
          const scan = await scanShard(prepareShard(0, table!, schema), layout.plan, layout, new AbortController().signal);
          const p = scan.partial as Exclude<Partial, { type: 'rows' }>;
          // Both grouped forms encode: columnar (what scans give) and the Map form.
          const partial: Partial = asMap ? { type: 'groups', groups: groupsOf(p) } : p;
          const answer: Frame = { partial, provenance: [{ shard: 0, status: 'answered', path: 'leaf-0', rowsScanned: rows.length }], rowsScanned: rows.length };
          const frame: Frame = { ...answer, final: false };
          const bytes = encodeFrame(layout, frame);
          expectSameFrame(layout, decodeFrame(layout, bytes), frame);
          expectPlainArrow(layout, bytes, frame);
          if (toColumnar(layout, p).size > 0) expectSameFrame(layout, decodeFrame(layout, builderFrame(layout, answer, batches, legacy)), answer);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('binary sketch states past the exact-set limit (HLL registers, DDSketch buckets) round-trip and read the same with plain Arrow', async () => {
    const layout = groupedLayout(['string']);
    const rows: Scalar[][] = [];
    for (let v = 0; v < 4 * HLL_EXACT_LIMIT; v++) rows.push([v % 3 === 0 ? 'a' : 'b', BigInt(v * 7919), v / 7 - 100, 978307200000 + v]);
    const [table] = shardsFromRows(schema, [rows]);
    const scan = await scanShard(prepareShard(0, table!, schema), layout.plan, layout, new AbortController().signal);
    const frame: Frame = { partial: scan.partial, provenance: [], rowsScanned: rows.length };
    const states = toColumnar(layout, scan.partial as ColumnarPartial).states;
    expect(Array.from(states[9]!, (s: unknown) => (s as { t: string }).t)).not.toContain('set'); // hll(i): sketches, not exact sets
    const bytes = encodeFrame(layout, frame);
    expectSameFrame(layout, decodeFrame(layout, bytes), frame);
    expectPlainArrow(layout, bytes, frame);
  });

  it('bool group keys (and every other key type) built by hand round-trip: true, false and NULL', () => {
    const layout = groupedLayout(['bool', 'string', 'timestamp']);
    const keys: Scalar[][] = [[true, false, null, true], ['', null, '', 'x'], [0.5, -0, null, -1e12]];
    const partial: ColumnarPartial = { type: 'columnar', size: 4, keys, states: layout.kinds.map((k) => keys[0]!.map(() => k.empty())) };
    const frame: Frame = { partial, provenance: [], rowsScanned: 0 };
    const bytes = encodeFrame(layout, frame);
    expectSameFrame(layout, decodeFrame(layout, bytes), frame);
    expectPlainArrow(layout, bytes, frame);
  });

  it('top-k header, timings and final flag survive; empty frames decode to empty partials', () => {
    const layout = groupedLayout(['string']);
    const one: ColumnarPartial = { type: 'columnar', size: 1, keys: [['a']], states: layout.kinds.map((k) => [k.empty()]) };
    const frame: Frame = { partial: one, provenance: [], rowsScanned: 3, timings: [{ gather: 'root', child: 'leaf-0', shards: 1, elapsedMs: 1.5, outcome: 'answered' }], topk: { bound: -Infinity, his: [4], exact: [true] }, final: false };
    const back = decodeFrame(layout, encodeFrame(layout, frame));
    expectSameFrame(layout, back, frame);
    expect(back.timings).toEqual(frame.timings);
    const empty = decodeFrame(layout, encodeFrame(layout, { partial: { type: 'groups', groups: new Map() }, provenance: [], rowsScanned: 0 }));
    expect(empty.partial).toMatchObject({ type: 'columnar', size: 0 });
    const rl = rowLayout(['string', 'bool'], [], 5);
    expect(decodeFrame(rl, encodeFrame(rl, { partial: { type: 'rows', rows: [] }, provenance: [], rowsScanned: 0 })).partial).toEqual({ type: 'rows', rows: [] });
  });

  it('number keys and COUNT states decode to Float64Arrays with the same cells, in one or several record batches; a NULL key keeps cells; a bad count is refused', () => {
    const plan: ScanPlan = { table: 't', filter: null, groupBy: [{ ...KEYS.timestamp, name: 'k0' }, { ...KEYS.float64, name: 'k1' }], partials: [{ kind: 'count_star', arg: null }, { kind: 'count', arg: { kind: 'col', name: 'g' } }], rows: null, maxGroups: 1_000_000 };
    const layout = layoutOf(plan, schema);
    fc.assert(
      fc.property(fc.uniqueArray(fc.tuple(timestamps, doubles), { maxLength: 30, selector: (t) => groupKeyString(t) }), fc.integer({ min: 1, max: 3 }), fc.boolean(), (tuples, batches, withNull) => {
        const keys: Scalar[][] = [tuples.map((t) => t[0]), tuples.map((t) => t[1])];
        if (withNull && tuples.length > 0) keys[0]![0] = null;
        const partial: ColumnarPartial = { type: 'columnar', size: tuples.length, keys, states: [tuples.map((_, i) => i), tuples.map((_, i) => 2 * i)] };
        const frame: Frame = { partial, provenance: [], rowsScanned: 0 };
        for (const bytes of [encodeFrame(layout, frame), ...(tuples.length > 0 ? [builderFrame(layout, frame, batches, false)] : [])]) {
          const back = decodeFrame(layout, bytes);
          expectSameFrame(layout, back, frame);
          const p = back.partial as ColumnarPartial;
          expect(p.keys[0] instanceof Float64Array).toBe(!(withNull && tuples.length > 0));
          // And a typed partial encodes back to the same frame.
          expectSameFrame(layout, decodeFrame(layout, encodeFrame(layout, back)), frame);
        }
      }),
      { numRuns: 150 },
    );
    for (const bad of [-1, 1.5, Infinity, NaN]) {
      const frame: Frame = { partial: { type: 'columnar', size: 1, keys: [[1], [2]], states: [[bad], [0]] }, provenance: [], rowsScanned: 0 };
      const cols = frameColumns(layout, { ...frame, partial: { ...frame.partial, states: [[0], [0]] } as ColumnarPartial });
      new Float64Array(cols.columns[2]!.data.buffer, cols.columns[2]!.data.byteOffset, 1)[0] = bad;
      expect(() => decodeFrame(layout, writeIpcStream(cols.columns, cols.n, cols.header))).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED' }) as Error);
    }
  });

  it('moments states (a float64 sum per partial and group, from arrays or Float64Arrays) round-trip with any double and -0, one or several record batches, unaligned too; a NULL cell is garbled', () => {
    const plan: ScanPlan = {
      table: 't',
      filter: null,
      groupBy: [{ ...KEYS.string, name: 'k0' }],
      partials: [
        { kind: 'count_star', arg: null },
        { kind: 'sum', arg: { kind: 'col', name: 'f' } },
        { kind: 'moments', arg: null, pair: [0, -1] },
        { kind: 'moments', arg: null, power: { of: 1, exp: 3 } },
      ],
      rows: null,
      maxGroups: 1_000_000,
    };
    const layout = layoutOf(plan, schema);
    const tag = (v: unknown): unknown => (Object.is(v, -0) ? 'm0' : v);
    fc.assert(
      fc.property(fc.array(fc.tuple(doubles, doubles), { maxLength: 30 }), fc.integer({ min: 1, max: 3 }), fc.boolean(), fc.boolean(), (cells, batches, legacy, typed) => {
        const n = cells.length;
        const pairs = cells.map((c) => c[0]);
        const partial: ColumnarPartial = { type: 'columnar', size: n, keys: [cells.map((_, i) => `g${i}`)], states: [cells.map((_, i) => i), cells.map(() => null), typed ? Float64Array.from(pairs) : pairs, cells.map((c) => c[1])] };
        const frame: Frame = { partial, provenance: [], rowsScanned: 0 };
        const mine = encodeFrame(layout, frame);
        expectPlainArrow(layout, mine, frame);
        for (const bytes of [mine, ...(n > 0 ? [builderFrame(layout, frame, batches, legacy)] : [])]) {
          // Also from a copy at an odd byte offset (every cell unaligned).
          const odd = new Uint8Array(bytes.length + 1).subarray(1);
          odd.set(bytes);
          for (const b of [bytes, odd]) {
            const back = decodeFrame(layout, b).partial as ColumnarPartial;
            expect(Array.from(back.states[2]!, tag)).toEqual(pairs.map(tag));
            expect(Array.from(back.states[3]!, tag)).toEqual(cells.map((c) => tag(c[1])));
          }
        }
      }),
      { numRuns: 150 },
    );
    // A moments cell that is NULL (no writer of ours makes one) is garbled.
    const one: Frame = { partial: { type: 'columnar', size: 1, keys: [['a']], states: [[1], [null], [2], [3]] }, provenance: [], rowsScanned: 0 };
    const cols = frameColumns(layout, one);
    cols.columns[3] = { ...cols.columns[3]!, nullCount: 1, validity: new Uint8Array(cols.columns[3]!.validity.length) };
    expect(() => decodeFrame(layout, encodeFrame(layout, one))).not.toThrow();
    expect(() => decodeFrame(layout, writeIpcStream(cols.columns, cols.n, cols.header))).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED' }) as Error);
  });

  it('Utf8 key columns decode with dictionary codes: merging decoded frames (codes looked up once per value) equals merging the partials as built; a repeated tuple is garbled; long or many distinct strings go without', () => {
    const plan: ScanPlan = { table: 't', filter: null, groupBy: [{ ...KEYS.string, name: 'k0' }, { ...KEYS.string, name: 'k1' }, { ...KEYS.int64, name: 'k2' }], partials: [{ kind: 'count_star', arg: null }, { kind: 'sum', arg: { kind: 'col', name: 'i' } }], rows: null, maxGroups: 1_000_000 };
    const word = fc.oneof(fc.constantFrom('ORD', 'LAX', 'é', '日本語', '', 'x'.repeat(40)), fc.string({ maxLength: 3 }));
    fc.assert(
      fc.property(
        fc.array(fc.uniqueArray(fc.tuple(nullable(word), nullable(word), fc.constantFrom<bigint | null>(0n, 1n, null)), { maxLength: 40, selector: (t) => groupKeyString(t) }), { minLength: 1, maxLength: 5 }),
        fc.boolean(),
        fc.integer({ min: 1, max: 3 }),
        fc.boolean(),
        (frames, threeKeys, batches, repeat) => {
          const layout = layoutOf(threeKeys ? plan : { ...plan, groupBy: plan.groupBy.slice(0, 2) }, schema);
          const nk = threeKeys ? 3 : 2;
          // Distinct tuples of the layout's keys (the first two only, with two keys).
          const distinct = frames.map((ts) => [...new Map(ts.map((t) => [groupKeyString(t.slice(0, nk)), t] as const)).values()]);
          const parts: ColumnarPartial[] = distinct.map((tuples) => ({
            type: 'columnar',
            size: tuples.length,
            keys: Array.from({ length: nk }, (_, k) => tuples.map((t) => t[k]!)),
            states: [tuples.map((_, i) => i + 1), tuples.map((t, i) => (t[0] === null ? null : BigInt(i) - 3n))],
          }));
          const direct = new PartialAccumulator(layout);
          const viaFrames = new PartialAccumulator(layout);
          for (const p of parts) {
            direct.add(p);
            const frame: Frame = { partial: p, provenance: [], rowsScanned: 0 };
            const bytes = p.size > 0 && batches > 1 ? builderFrame(layout, frame, batches, false) : encodeFrame(layout, frame);
            const back = decodeFrame(layout, bytes).partial as ColumnarPartial;
            // COUNT states without NULLs decode to one Float64Array whatever the keys.
            expect(back.states[0] instanceof Float64Array).toBe(true);
            // Short strings (at most 32 bytes) all interned: the string keys carry a dictionary.
            const short = (k: number): boolean => p.keys[k]!.every((v) => v === null || Buffer.byteLength(v as string) <= 32);
            for (let k = 0; k < 2; k++) if (p.size > 0 && short(k)) expect(keyDictOf(back.keys[k]!)).toBeDefined();
            // An int64 key never has one.
            if (threeKeys) expect(keyDictOf(back.keys[2]!)).toBeUndefined();
            viaFrames.add(back);
          }
          expect(partialsEqual(layout, viaFrames.result(), direct.result())).toBe(true);
          expect(viaFrames.size).toBe(direct.size);
          // A frame repeating one of its tuples (the dictionary's bitmap check) is garbled.
          const p = parts.find((x) => x.size >= 2);
          if (repeat && p !== undefined) {
            const dup: ColumnarPartial = { ...p, size: p.size + 1, keys: p.keys.map((col) => [...col, col[p.size - 1]!]), states: p.states.map((col) => [...(col as unknown[]), (col as unknown[])[0]]) };
            expect(() => decodeFrame(layout, encodeFrame(layout, { partial: dup, provenance: [], rowsScanned: 0 }))).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED' }) as Error);
          }
        },
      ),
      { numRuns: 200 },
    );
    // Thousands of distinct strings (the interner gives up): no dictionary, the same merge.
    const layout = layoutOf({ ...plan, groupBy: plan.groupBy.slice(0, 2) }, schema);
    const many: ColumnarPartial = { type: 'columnar', size: 3000, keys: [Array.from({ length: 3000 }, (_, i) => `v${i}`), Array.from({ length: 3000 }, () => 'same')], states: [new Array(3000).fill(1), new Array(3000).fill(null)] };
    const back = decodeFrame(layout, encodeFrame(layout, { partial: many, provenance: [], rowsScanned: 0 })).partial as ColumnarPartial;
    expect(keyDictOf(back.keys[0]!)).toBeUndefined();
    expect(keyDictOf(back.keys[1]!)).toBeDefined();
  });

  it('a cell of the wrong type is an internal error on encode, not a crash', () => {
    const rl = rowLayout(['int64'], [], 5);
    expect(() => encodeFrame(rl, { partial: { type: 'rows', rows: [[1]] }, provenance: [], rowsScanned: 0 })).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_INTERNAL' }) as Error);
    const fl = rowLayout(['float64'], [], 5);
    expect(() => encodeFrame(fl, { partial: { type: 'rows', rows: [[1n]] }, provenance: [], rowsScanned: 0 })).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_INTERNAL' }) as Error);
  });
});

describe('wire: garbled frames are CANOPY_ERR_CHILD_GARBLED', () => {
  const garbled = expect.objectContaining({ code: 'CANOPY_ERR_CHILD_GARBLED' }) as Error;
  const layout = groupedLayout(['string']);
  const header = JSON.stringify({ v: FRAME_VERSION, provenance: [], rowsScanned: 1 });
  const good = (): Frame => ({ partial: { type: 'columnar', size: 1, keys: [['a']], states: layout.kinds.map((k) => [k.empty()]) }, provenance: [], rowsScanned: 1 });

  /** An Arrow stream with the given columns (name, type, cells) and schema metadata. */
  function arrowBytes(cols: readonly { name: string; type: DataType; cells: unknown[] }[], metadata: ReadonlyMap<string, string> = new Map([['canopy.frame', header]])): Uint8Array {
    const s = new Schema(cols.map((c) => new Field(c.name, c.type, true)), new Map(metadata));
    const n = cols[0]?.cells.length ?? 0;
    const children = cols.map((c) => vectorFromArray(c.cells, c.type).data[0]! as Data);
    return tableToIPC(new Table(s, [new RecordBatch(s, makeData({ type: new Struct(s.fields), length: n, nullCount: 0, children }))]), 'stream');
  }
  /** The good frame's columns, with `edit` applied. */
  function columns(edit: (cols: { name: string; type: DataType; cells: unknown[] }[]) => void = () => {}): { name: string; type: DataType; cells: unknown[] }[] {
    const cols = expectedColumns(layout, good().partial).map((c) => ({ name: c.name, type: typeNamed(c.type), cells: c.cells }));
    edit(cols);
    return cols;
  }

  it('the unedited helper frame decodes (so the cases below fail for their edit only)', () => {
    expectSameFrame(layout, decodeFrame(layout, arrowBytes(columns())), good());
  });

  it('bytes that are not Arrow, and a bad header', () => {
    expect(() => decodeFrame(layout, new Uint8Array([1, 2, 3, 4, 5, 6, 7, 8, 9]))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns(), new Map()))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns(), new Map([['canopy.frame', '{not json']])))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns(), new Map([['canopy.frame', JSON.stringify({ v: FRAME_VERSION + 1, provenance: [], rowsScanned: 1 })]])))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns(), new Map([['canopy.frame', JSON.stringify({ v: FRAME_VERSION, provenance: [{ shard: 'x' }], rowsScanned: 1 })]])))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns(), new Map([['canopy.frame', JSON.stringify({ v: FRAME_VERSION, provenance: [], rowsScanned: -1 })]])))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns(), new Map([['canopy.frame', JSON.stringify({ v: FRAME_VERSION, provenance: [], rowsScanned: 1, topk: { bound: null, his: [1, 2], exact: [true, true] } })]])))).toThrow(garbled);
  });

  it('wrong columns: missing, extra, renamed, or of another Arrow type', () => {
    expect(() => decodeFrame(layout, arrowBytes(columns((c) => c.pop())))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns((c) => c.push({ name: 'extra', type: new Float64(), cells: [1] }))))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns((c) => (c[0]!.name = 'g'))))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns((c) => (c[0]!.type = new LargeUtf8()))))).toThrow(garbled);
    expect(() => decodeFrame(layout, arrowBytes(columns((c) => Object.assign(c[1]!, { type: new Float32() }))))).toThrow(garbled); // count_star: Float64 expected
    const il = groupedLayout(['int64']);
    expect(() => decodeFrame(il, arrowBytes(columns((c) => Object.assign(c[0]!, { type: new Int32(), cells: [7] }))))).toThrow(garbled);
  });

  it('repeated groups, with one key (NULL, NaN, -0 and 0, strings) and with several keys; distinct groups pass', () => {
    const frameWith = (keyTypes: ColumnType[], keys: Scalar[][]): [PartialLayout, Uint8Array] => {
      const l = groupedLayout(keyTypes);
      const n = keys[0]?.length ?? 2;
      return [l, encodeFrame(l, { partial: { type: 'columnar', size: n, keys, states: l.kinds.map((k) => Array.from({ length: n }, () => k.empty())) }, provenance: [], rowsScanned: 0 })];
    };
    const rejects = (keyTypes: ColumnType[], keys: Scalar[][]): void => {
      const [l, b] = frameWith(keyTypes, keys);
      expect(() => decodeFrame(l, b), JSON.stringify(keys, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : Object.is(v, -0) ? '-0' : Number.isNaN(v) ? 'NaN' : v))).toThrow(garbled);
    };
    const accepts = (keyTypes: ColumnType[], keys: Scalar[][]): void => {
      const [l, b] = frameWith(keyTypes, keys);
      expect((decodeFrame(l, b).partial as ColumnarPartial).size).toBe(keys[0]!.length);
    };
    rejects(['string'], [['a', 'b', 'a']]);
    rejects(['string'], [[null, null]]);
    rejects(['float64'], [[NaN, 1, NaN]]);
    rejects(['float64'], [[0, -0]]);
    rejects(['int64'], [[5n, 5n]]);
    rejects(['bool'], [[true, false, true]]);
    rejects(['string', 'int64'], [['a', 'a'], [1n, 1n]]);
    rejects(['float64', 'string'], [[-0, 0], ['', '']]);
    accepts(['string'], [['a', 'b', '', null]]);
    accepts(['float64'], [[NaN, 0, Infinity, -Infinity, null]]);
    accepts(['string', 'int64'], [['a', 'a', 'b'], [1n, 2n, 1n]]);
    // No keys: one group at most.
    const l0 = groupedLayout([]);
    expect(() => decodeFrame(l0, encodeFrame(l0, { partial: { type: 'columnar', size: 2, keys: [], states: l0.kinds.map((k) => [k.empty(), k.empty()]) }, provenance: [], rowsScanned: 0 }))).toThrow(garbled);
  });

  it('unsorted rows and more rows than the limit', () => {
    const rl = rowLayout(['int64', 'string'], [{ column: 0, desc: false }], 3);
    const enc = (rows: Scalar[][]): Uint8Array => encodeFrame(rl, { partial: { type: 'rows', rows }, provenance: [], rowsScanned: 0 });
    expect(decodeFrame(rl, enc([[1n, 'b'], [2n, 'a'], [null, 'a']])).partial).toEqual({ type: 'rows', rows: [[1n, 'b'], [2n, 'a'], [null, 'a']] });
    expect(() => decodeFrame(rl, enc([[2n, 'a'], [1n, 'b']]))).toThrow(garbled);
    expect(() => decodeFrame(rl, enc([[null, 'a'], [1n, 'b']]))).toThrow(garbled);
    expect(() => decodeFrame(rl, enc([[1n, 'b'], [1n, 'a']]))).toThrow(garbled); // ties broken by every column
    expect(() => decodeFrame(rl, enc([[1n, 'a'], [2n, 'a'], [3n, 'a'], [4n, 'a']]))).toThrow(garbled);
  });

  it('invalid state values', () => {
    // p0 is count_star (float64): a count is a non-negative integer.
    for (const bad of [-1, 1.5, NaN, Infinity]) expect(() => decodeFrame(layout, arrowBytes(columns((c) => (c[1]!.cells = [bad]))))).toThrow(garbled);
    // p2 is sum(i), a decimal string.
    for (const bad of ['12x', '', '-', '1e5', ' 12', '+3', '0x1f', '1.0']) expect(() => decodeFrame(layout, arrowBytes(columns((c) => (c[3]!.cells = [bad]))))).toThrow(garbled);
    // A safe integer decodes to a number, a longer one to a bigint (src/merge/kinds/sum.ts: IntSum).
    const sumState = (cell: string): unknown => (decodeFrame(layout, arrowBytes(columns((c) => (c[3]!.cells = [cell])))).partial as ColumnarPartial).states[2]![0];
    expect(sumState('-12')).toBe(-12);
    expect(sumState('-0')).toBe(0);
    expect(sumState('999999999999999')).toBe(999_999_999_999_999);
    expect(sumState('-1234567890123456')).toBe(-1234567890123456n);
    expect(sumState('170141183460469231731687303715884105727')).toBe(2n ** 127n - 1n);
    // p8 is hll(g), binary: bytes that are no state.
    expect(() => decodeFrame(layout, arrowBytes(columns((c) => (c[9]!.cells = [new Uint8Array([0xff, 1, 2])]))))).toThrow(garbled);
  });

  it('value offsets outside the value bytes', () => {
    const s = new Schema(columns().map((c) => new Field(c.name, c.type, true)), new Map([['canopy.frame', header]]));
    const children = columns().map((c) => vectorFromArray(c.cells, c.type).data[0]! as Data);
    // Key column: offsets [0, 100] over 1 byte.
    children[0] = makeData({ type: new Utf8(), length: 1, nullCount: 0, valueOffsets: new Int32Array([0, 100]), data: new Uint8Array([97]) });
    const bytes = tableToIPC(new Table(s, [new RecordBatch(s, makeData({ type: new Struct(s.fields), length: 1, nullCount: 0, children }))]), 'stream');
    expect(() => decodeFrame(layout, bytes)).toThrow(garbled);
  });
});
