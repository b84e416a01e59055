/**
 * A shard prepared for scanning: per column, per record batch, a plain typed-array view
 * that the scan kernels loop over. Built once when a leaf loads a shard.
 */
import { DataType, type Data, type Table, type Utf8, type Vector } from 'apache-arrow';
import { CanopyError, compareStrings, isValid, kNumStats, utf8Strings, type BigView, type ColumnType, type ColumnView, type NumView, type StrView, type TableSchema, type Validity } from '../merge/index.ts';

/** 2^53: integers of smaller magnitude are exact in a double. */
const EXACT = 2 ** 53;

import { I32_LIMIT, PAIR_LIMIT, packPairs } from './int32.ts';

export { isValid, type BigView, type ColumnView, type NumView, type StrView, type Validity };

/** Shard-wide facts about one column. */
export interface PreparedColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** One view per batch. */
  readonly batches: readonly ColumnView[];
  /** Min/max over non-NULL values as doubles (numeric/timestamp), or null when none. */
  readonly min: number | null;
  readonly max: number | null;
}

/** A shard ready to scan. */
export interface PreparedShard {
  readonly id: number;
  readonly schema: TableSchema;
  readonly rows: number;
  readonly batchRows: readonly number[];
  readonly columns: ReadonlyMap<string, PreparedColumn>;
}

/**
 * The values as int32 when every slot lies within ±{@link I32_LIMIT} (NULL slots too), else
 * null. When every slot also lies within ±{@link PAIR_LIMIT}, the view gets a packed
 * int16-pair view too ({@link packPairs}: COUNT of a range test eight rows per SIMD operation).
 */
export function int32View(values: Float64Array): Int32Array | null {
  const out = new Int32Array(values.length);
  let small = true;
  for (let i = 0; i < values.length; i++) {
    const v = values[i]!;
    if (v > I32_LIMIT || v < -I32_LIMIT) return null;
    if (v > PAIR_LIMIT || v < -PAIR_LIMIT) small = false;
    out[i] = v;
  }
  if (small) packPairs(out);
  return out;
}

function validityOf(d: Data): Validity | null {
  if (d.nullCount === 0 || d.nullBitmap === undefined || d.nullBitmap.length === 0) return null;
  return { bitmap: d.nullBitmap, offset: d.offset };
}

/**
 * Prepares an Arrow table that follows the shard contract (src/data): int64 -> Int64,
 * float64 -> Float64, timestamp -> Float64 ms, string -> Dictionary<Utf8, Int32>.
 * Cost: one pass over int64 columns (to build double views) and over dictionaries.
 * @throws CanopyError CANOPY_ERR_DATA when a column does not follow the contract.
 */
export function prepareShard(id: number, table: Table, schema: TableSchema): PreparedShard {
  const batchRows = table.batches.map((b) => b.numRows);
  const columns = new Map<string, PreparedColumn>();
  schema.columns.forEach((col, ci) => {
    const vectors = table.batches.map((b) => b.getChildAt(ci));
    if (vectors.some((v) => v === null)) throw new CanopyError('CANOPY_ERR_DATA', `shard ${id}: column ${col.name} is missing`);
    columns.set(col.name, prepareColumn(id, col.name, col.type, vectors as Vector[]));
  });
  return { id, schema, rows: table.numRows, batchRows, columns };
}

function prepareColumn(shard: number, name: string, type: ColumnType, vectors: readonly Vector[]): PreparedColumn {
  const datas = vectors.map((v) => {
    if (v.data.length !== 1) throw new CanopyError('CANOPY_ERR_DATA', `shard ${shard}: column ${name} has ${v.data.length} chunks in one batch`);
    return v.data[0]!;
  });
  let min = Infinity;
  let max = -Infinity;
  const track = (x: number): void => {
    if (x < min) min = x;
    if (x > max) max = x;
  };
  if (type === 'string') {
    const table = new Map<string, number>();
    const strings: string[] = [];
    const translations = new Map<unknown, Int32Array>();
    const perBatch = datas.map((d) => {
      if (!DataType.isDictionary(d.type)) throw new CanopyError('CANOPY_ERR_DATA', `shard ${shard}: string column ${name} is not dictionary-encoded`);
      const dict = d.dictionary;
      if (dict === undefined) throw new CanopyError('CANOPY_ERR_DATA', `shard ${shard}: column ${name} has no dictionary`);
      let tr = translations.get(dict);
      if (tr === undefined) {
        tr = new Int32Array(dict.length);
        const entries = dict.data.flatMap((c) => utf8Strings(c as Data<Utf8>));
        for (let k = 0; k < dict.length; k++) {
          const s = entries[k]!;
          let c = table.get(s);
          if (c === undefined) {
            c = strings.length;
            strings.push(s);
            table.set(s, c);
          }
          tr[k] = c;
        }
        translations.set(dict, tr);
      }
      const raw = d.values as Int32Array;
      let identity = true;
      for (let k = 0; k < tr.length; k++) if (tr[k] !== k) identity = false;
      const codes = identity ? raw : raw.map((c) => tr[c] ?? 0);
      return { codes, valid: validityOf(d) };
    });
    const order = strings.map((_, i) => i).sort((a, b) => compareStrings(strings[a]!, strings[b]!));
    const rank = new Int32Array(strings.length);
    order.forEach((code, r) => {
      rank[code] = r;
    });
    const batches: StrView[] = perBatch.map((b) => ({ t: 'str', codes: b.codes, valid: b.valid, strings, rank }));
    return { name, type, batches, min: null, max: null };
  }
  const batches: ColumnView[] = datas.map((d) => {
    const valid = validityOf(d);
    if (type === 'int64') {
      const big = d.values as BigInt64Array;
      if (!(big instanceof BigInt64Array)) throw new CanopyError('CANOPY_ERR_DATA', `shard ${shard}: int64 column ${name} is not Int64`);
      const words = new Int32Array(big.buffer, big.byteOffset, big.length * 2);
      const values = new Float64Array(big.length);
      let maxAbs = 0;
      let fits = true;
      for (let i = 0; i < big.length; i++) {
        const hi = words[2 * i + 1]!;
        const lo = words[2 * i]! >>> 0;
        const v = hi * 4294967296 + lo;
        if (v >= EXACT || v <= -EXACT) fits = false;
        values[i] = v;
        if (isValid(valid, i)) {
          const a = v < 0 ? -v : v;
          if (a > maxAbs) maxAbs = a;
          track(v);
        }
      }
      if (!fits) return { t: 'big', values: big, valid } satisfies BigView;
      return { t: 'num', values, valid, maxAbs, words, i32: int32View(values), stats: kNumStats(values, d.length, valid, true, maxAbs) } satisfies NumView;
    }
    const values = d.values as Float64Array;
    if (!(values instanceof Float64Array)) throw new CanopyError('CANOPY_ERR_DATA', `shard ${shard}: ${type} column ${name} is not Float64`);
    let maxAbs = 0;
    for (let i = 0; i < values.length; i++) {
      if (!isValid(valid, i)) continue;
      const v = values[i]!;
      const a = v < 0 ? -v : v;
      if (a > maxAbs) maxAbs = a;
      track(v);
    }
    return { t: 'num', values, valid, maxAbs, words: null, i32: null, stats: kNumStats(values, d.length, valid, false, maxAbs) } satisfies NumView;
  });
  return { name, type, batches, min: min === Infinity ? null : min, max: max === -Infinity ? null : max };
}
