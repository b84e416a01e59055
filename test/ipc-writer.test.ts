/**
 * The IPC stream writer's per-shape templates (src/merge/wire/ipc-writer.ts): streams written
 * one after another, with shapes repeating and interleaving (so templates are built once and
 * reused with other row counts, null counts, buffer sizes and headers), are each read by
 * apache-arrow's own `tableFromIPC` (the simple path: its flatbuffer reader) and by our reader
 * to the same header, field names and cells: NULLs, NaN, -0, int64 extremes, empty batches,
 * empty and non-ASCII strings and headers. And decodeFrame's pairwise check of a small frame
 * for a repeated group agrees with groupKeyString.
 */
import { tableFromIPC } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { columnData } from '../src/merge/wire/columns.ts';
import { readFrameStream } from '../src/merge/wire/ipc-reader.ts';
import { writeIpcStream } from '../src/merge/wire/ipc-writer.ts';
import { decodeFrame, encodeFrame, groupKeyString, layoutOf, type Partial, type ScanPlan } from '../src/merge/index.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';

type Kind = 'int64' | 'float64' | 'string' | 'binary';

const INT64 = fc.oneof(fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), fc.constantFrom(-(2n ** 63n), 2n ** 63n - 1n, 0n, -1n));
const FLOAT = fc.oneof(fc.double(), fc.constantFrom(Number.NaN, -0, 0, Infinity, -Infinity));
const TEXT = fc.string({ unit: 'grapheme', maxLength: 12 });
const BYTES = fc.uint8Array({ maxLength: 12 });

function cell(kind: Kind): fc.Arbitrary<unknown> {
  const v: fc.Arbitrary<unknown> = kind === 'int64' ? INT64 : kind === 'float64' ? FLOAT : kind === 'string' ? TEXT : BYTES;
  return fc.option(v, { nil: null, freq: 4 });
}

/** A stream: a shape (column kinds) drawn from a few, n rows of cells, a header. */
const SHAPES: readonly (readonly Kind[])[] = [['int64'], ['string', 'int64', 'float64'], ['binary', 'string'], ['float64', 'float64', 'binary', 'int64'], []];
const stream = fc
  .record({ shape: fc.nat({ max: SHAPES.length - 1 }), n: fc.nat({ max: 40 }), header: fc.string({ unit: 'grapheme', maxLength: 200 }) })
  .chain(({ shape, n, header }) => {
    const kinds = SHAPES[shape]!;
    return fc.record({ kinds: fc.constant(kinds), header: fc.constant(header), cols: fc.tuple(...kinds.map((k) => fc.array(cell(k), { minLength: n, maxLength: n }))) });
  });

const same = (a: unknown, b: unknown): boolean => (typeof a === 'number' && typeof b === 'number' ? Object.is(a, b) : a === b);

describe('writeIpcStream with per-shape templates', () => {
  it('every stream reads back (apache-arrow and our reader) to its header, fields and cells', () => {
    fc.assert(
      fc.property(fc.array(stream, { minLength: 1, maxLength: 8 }), (streams) => {
        for (const { kinds, header, cols } of streams) {
          const n = kinds.length === 0 ? 0 : (cols[0] as unknown[]).length;
          const encoded = kinds.map((k, i) => columnData(k, `c${i}`, cols[i] as unknown[]));
          const bytes = writeIpcStream(encoded, n, header);
          const table = tableFromIPC(bytes);
          expect(table.schema.metadata.get('canopy.frame')).toBe(header);
          expect(table.schema.fields.map((f) => f.name)).toEqual(kinds.map((_, i) => `c${i}`));
          if (kinds.length > 0) expect(table.numRows).toBe(n);
          const ours = readFrameStream(bytes);
          expect(ours.metadata.get('canopy.frame')).toBe(header);
          expect(ours.batches.reduce((s, b) => s + b.length, 0)).toBe(n);
          kinds.forEach((k, c) => {
            const col = table.getChildAt(c)!;
            const want = cols[c] as unknown[];
            for (let r = 0; r < n; r++) {
              const got: unknown = col.get(r);
              const w = want[r];
              if (w === null) expect(got).toBeNull();
              else if (k === 'binary') expect([...(got as Uint8Array)]).toEqual([...(w as Uint8Array)]);
              else if (!same(got, w)) expect(got).toBe(w);
            }
          });
        }
      }),
      { numRuns: 150 },
    );
  });

  it('a shape seen before with other sizes and a longer, non-ASCII header still reads back', () => {
    const write = (vals: (bigint | null)[], header: string): Uint8Array => writeIpcStream([columnData('int64', 'k0', vals), columnData('string', 'k1', vals.map((v) => (v === null ? null : `é${v}`)))], vals.length, header);
    write([1n], 'x');
    const bytes = write([null, 2n ** 63n - 1n, -(2n ** 63n), 0n], '{"provenance":"ünïcödé 🌲"}'.repeat(50));
    const t = tableFromIPC(bytes);
    expect(t.schema.metadata.get('canopy.frame')).toBe('{"provenance":"ünïcödé 🌲"}'.repeat(50));
    expect([...t.getChildAt(0)!]).toEqual([null, 2n ** 63n - 1n, -(2n ** 63n), 0n]);
    expect([...t.getChildAt(1)!]).toEqual([null, `é${2n ** 63n - 1n}`, `é${-(2n ** 63n)}`, 'é0']);
  });
});

describe('decodeFrame: a repeated group in a frame of a few groups (pairwise check)', () => {
  const plan: ScanPlan = {
    table: 't',
    filter: null,
    groupBy: [
      { name: 'k0', expr: { kind: 'col', name: 'f' }, type: 'float64' },
      { name: 'k1', expr: { kind: 'col', name: 'i' }, type: 'int64' },
    ],
    partials: [{ kind: 'count_star', arg: null }],
    rows: null,
    maxGroups: 1_000_000,
  };
  const layout = layoutOf(plan, MIXED_SCHEMA);
  const F = fc.constantFrom<number | null>(null, Number.NaN, -0, 0, 1, -1.5, Infinity);
  const I = fc.constantFrom<bigint | null>(null, 0n, 1n, -(2n ** 63n), 2n ** 63n - 1n);

  it('is refused exactly when two groups have equal keys by groupKeyString (NULL, NaN, -0, int64 extremes), up to and past the pairwise size', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(F, I), { minLength: 0, maxLength: 12 }), (groups) => {
        const n = groups.length;
        const partial: Partial = { type: 'columnar', size: n, keys: [groups.map((g) => g[0]), groups.map((g) => g[1])], states: [groups.map(() => 1)] };
        const bytes = encodeFrame(layout, { partial, provenance: [], rowsScanned: 0 });
        const repeats = new Set(groups.map((g) => groupKeyString(g))).size < n;
        if (repeats) expect(() => decodeFrame(layout, bytes)).toThrow(/repeats a group/);
        else expect(decodeFrame(layout, bytes).partial).toMatchObject({ type: 'columnar', size: n });
      }),
      { numRuns: 400 },
    );
  });
});

describe('columnData with a per-cell encode (issue 15)', () => {
  it('gives the buffers of the encoded cells, for every storage, NULLs and row counts off a byte boundary included', () => {
    // Cells wrapped in a box that the encode takes off (a state kind's encode, here non-trivial).
    fc.assert(
      fc.property(fc.constantFrom<Kind>('int64', 'float64', 'string', 'binary'), fc.integer({ min: 0, max: 70 }), fc.nat(), (kind, n, seed) => {
        const cells = fc.sample(cell(kind), { numRuns: Math.max(n, 1), seed }).slice(0, n);
        const boxed = cells.map((v) => ({ v }));
        const got = columnData(kind, 'p0', boxed, (b) => (b as { v: unknown }).v);
        const want = columnData(kind, 'p0', cells);
        expect(got.nullCount).toBe(want.nullCount);
        expect([...got.validity]).toEqual([...want.validity]);
        expect(got.offsets === null ? null : [...got.offsets]).toEqual(want.offsets === null ? null : [...want.offsets]);
        expect([...got.data]).toEqual([...want.data]);
        // The validity bits are the non-NULL cells.
        cells.forEach((v, i) => expect(((got.validity[i >> 3]! >> (i & 7)) & 1) === 1).toBe(v !== null));
      }),
      { numRuns: 200, seed: 15 },
    );
  });

  it('refuses a cell of the wrong type, encoded or not', () => {
    expect(() => columnData('float64', 'p0', [1, 2n])).toThrow(/holds a bigint/);
    expect(() => columnData('float64', 'p0', [1, 2], (v) => BigInt(v as number))).toThrow(/holds a bigint/);
    expect(() => columnData('int64', 'p0', [1n, 2], (v) => v)).toThrow(/holds a number/);
  });
});
