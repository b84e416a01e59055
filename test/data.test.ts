import { readFileSync, readdirSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { Dictionary, Int32, makeData, makeVector, Table, tableFromArrays, tableToIPC, Utf8, vectorFromArray } from 'apache-arrow';
import { describe, expect, it } from 'vitest';
import {
  catalogFromShards,
  DEFAULT_DATA_PATH,
  hashBucket,
  hashRow,
  parseIsoTimestamp,
  prepareShards,
  readShard,
  schemaOf,
  shardsFromRows,
} from '../src/data/index.ts';
import { inferCsvType } from '../src/data/csv.ts';
import { isCanopyError } from '../src/merge/errors.ts';
import type { ColumnType, PartitionSpec, Scalar, TableSchema } from '../src/merge/types.ts';
import { FLIGHTS_SCHEMA } from './helpers/flights.ts';
import { useTempDirs } from './helpers/temp-dirs.ts';

const CSV_DIR = fileURLToPath(new URL('./fixtures/data/csv-dir', import.meta.url));
/** µs since the epoch of an ISO instant (ms precision). */
const us = (iso: string): number => Date.parse(iso) * 1000;

/** A fresh folder under the test's temp dir. */
const fresh = useTempDirs('canopy-data-test-');

/** All rows of a shard as plain values (NULL as null). */
function rowsOf(table: Table): Scalar[][] {
  const cols = table.schema.fields.map((f) => table.getChild(f.name)!);
  const out: Scalar[][] = [];
  for (let i = 0; i < table.numRows; i++) out.push(cols.map((c) => (c.get(i) ?? null) as Scalar));
  return out;
}

async function expectCode(p: Promise<unknown> | (() => unknown), code: string): Promise<string> {
  try {
    if (typeof p === 'function') p();
    else await p;
  } catch (e) {
    expect(isCanopyError(e)).toBe(true);
    expect((e as { code: string }).code).toBe(code);
    return (e as Error).message;
  }
  throw new Error(`expected ${code}, nothing was thrown`);
}

const hash: PartitionSpec = { kind: 'hash' };

describe('CSV directory: one shard per file', () => {
  it('makes one shard per data file in name order, with types, NULLs and stats', async () => {
    const { catalog, files } = await prepareShards({ path: CSV_DIR, table: 'flights', shards: 7, partition: hash, cacheDir: fresh('csvdir') });
    expect(catalog.partitioning).toEqual({ kind: 'file' });
    expect(catalog.table).toEqual(FLIGHTS_SCHEMA);
    expect(catalog.shards.map((s) => [s.id, s.rows, s.partition])).toEqual([
      [0, 3, 'file flights-a.csv'],
      [1, 2, 'file flights-b.csv'],
      [2, 1, 'file flights-c.csv'],
      [3, 0, 'file flights-d.csv'],
    ]);
    expect(files).toHaveLength(4);

    const tables = files.map(readShard);
    expect(rowsOf(tables[0]!)).toEqual([
      [us('2001-01-01T06:00:00Z'), 5n, 300n, 'SFO', 'LAX'],
      [us('2001-01-01T07:30:00Z'), -3n, null, 'LAX', 'SFO'],
      [us('2001-01-02T00:00:00Z'), 12n, 1200n, null, 'JFK'],
    ]);
    expect(rowsOf(tables[1]!)).toEqual([
      [us('2001-01-03T09:00:00.500Z'), 0n, 2500n, 'JFK', 'SFO'],
      [null, 9007199254740993n, 400n, 'S,F', 'LAX'],
    ]);
    // flights-c has no distance and no destination at all: those columns take the directory's types.
    expect(rowsOf(tables[2]!)).toEqual([[us('2001-01-04T00:00:00Z'), 1n, null, 'ORD', null]]);
    expect(tables[3]!.numRows).toBe(0);
    expect(tables[3]!.batches).toHaveLength(1);
    for (const t of tables) expect(schemaOf(t)).toEqual(catalog.table);

    const [a, b, c, d] = catalog.shards;
    expect(a!.columns).toEqual({
      date: { min: us('2001-01-01T06:00:00Z'), max: us('2001-01-02T00:00:00Z'), nullCount: 0 },
      delay: { min: -3, max: 12, nullCount: 0 },
      distance: { min: 300, max: 1200, nullCount: 1 },
      origin: { min: 'LAX', max: 'SFO', nullCount: 1, values: ['LAX', 'SFO'] },
      destination: { min: 'JFK', max: 'SFO', nullCount: 0, values: ['JFK', 'LAX', 'SFO'] },
    });
    expect(b!.columns.date).toEqual({ min: us('2001-01-03T09:00:00.500Z'), max: us('2001-01-03T09:00:00.500Z'), nullCount: 1 });
    // 2^53 + 1 is not a double: the bounds are rounded outward.
    expect(b!.columns.delay).toEqual({ min: 0, max: 2 ** 53 + 2, nullCount: 0 });
    expect(b!.columns.origin).toEqual({ min: 'JFK', max: 'S,F', nullCount: 0, values: ['JFK', 'S,F'] });
    expect(c!.columns.distance).toEqual({ min: null, max: null, nullCount: 1 });
    expect(c!.columns.destination).toEqual({ min: null, max: null, nullCount: 1 });
    expect(d!.columns.delay).toEqual({ min: null, max: null, nullCount: 0 });
  });
});

describe('CSV type inference', () => {
  it.each([
    [['1', '-2', '', ' 5 ', '-007'], 'int64'],
    // As DuckDB's sniffer (hunt 22): a leading + or a leading zero before a digit keeps a column VARCHAR.
    [['1', '-2', '', '+3', ' 5 '], 'string'],
    [['1.5', '+0.5'], 'string'],
    [['1', '007'], 'string'],
    [[' 00.5'], 'string'],
    [['0', '-0', '0.5', '-00.5'], 'float64'],
    [['9223372036854775807', '-9223372036854775808'], 'int64'],
    [['9223372036854775808'], 'float64'],
    [['1', '2.5'], 'float64'],
    [['1e3', '.5', '-7.'], 'float64'],
    [['2001-01-01', '2001-01-02T03:04:05Z', '2001-01-02 03:04', '2001-01-02T03:04:05.123456+05:30'], 'timestamp'],
    [['2001-01-01', ' 2024-02-29 ', ''], 'date'],
    [['2001-02-29'], 'string'],
    [['2001-01-01', '5'], 'string'],
    [['1', 'x'], 'string'],
    // As DuckDB's CSV reader: NaN and ±inf/±infinity in any case are doubles.
    [['NaN'], 'float64'],
    [['1.5', 'nan', '-inf', 'Infinity', '-INFINITY', 'inf'], 'float64'],
    [['1', 'infinite'], 'string'],
    [['0x10'], 'string'],
    // Only ASCII whitespace around a value is skipped, as DuckDB's casts skip it.
    [['\t5', '6\f', '\v7\r'], 'int64'],
    [['\u00a05'], 'string'],
    [['1.5\u3000'], 'string'],
    [['\ufeff2001-01-01'], 'string'],
  ] as [string[], ColumnType][])('%j -> %s', (values, type) => {
    expect(inferCsvType(values)).toBe(type);
  });

  it('gives no type to a column without values', () => {
    expect(inferCsvType(['', ''])).toBeNull();
  });

  it('parses ISO-8601 as UTC unless an offset is given', () => {
    expect(parseIsoTimestamp('2001-01-02')).toBe(Date.UTC(2001, 0, 2) * 1000);
    expect(parseIsoTimestamp('2001-01-02T03:04')).toBe(Date.UTC(2001, 0, 2, 3, 4) * 1000);
    expect(parseIsoTimestamp('2001-01-02T03:04:05.1239')).toBe(Date.UTC(2001, 0, 2, 3, 4, 5, 123) * 1000 + 900);
    expect(parseIsoTimestamp('2001-01-02T03:04:05.123456000')).toBe(Date.UTC(2001, 0, 2, 3, 4, 5, 123) * 1000 + 456);
    expect(() => parseIsoTimestamp('2001-01-02T03:04:05.1234567')).toThrow(/finer than a microsecond/);
    expect(() => parseIsoTimestamp('2300-01-01')).toThrow(/outside the range/);
    expect(parseIsoTimestamp('2001-01-02T03:04:05-0130')).toBe(Date.UTC(2001, 0, 2, 4, 34, 5) * 1000);
    expect(parseIsoTimestamp('1969-12-31T23:59:59.999999Z')).toBe(-1);
    expect(() => parseIsoTimestamp('0050-03-01')).toThrow(/outside the range/);
    expect(parseIsoTimestamp('1700-03-01')).toBe(Date.parse('1700-03-01T00:00:00Z') * 1000);
    expect(parseIsoTimestamp('2000-02-29')).toBe(Date.UTC(2000, 1, 29) * 1000);
    for (const bad of ['2001-13-01', '2001-01-01T24:00', '2001-1-1', '2001-01-01Z', 'x']) expect(parseIsoTimestamp(bad)).toBeNull();
  });

  it('infers types end to end in prepareShards', async () => {
    const dir = fresh('infer');
    const file = join(dir, 't.csv');
    writeFileSync(file, 'i,f,t,s,e,n\n1,1,2001-01-01,a,,nan\n2,2.5,2001-01-01 10:00:00,2,,-inf\n,,,,,Infinity\n');
    const { catalog, files } = await prepareShards({ path: file, table: 't', shards: 1, partition: hash, cacheDir: fresh('infer-cache') });
    expect(catalog.table.columns.map((c) => c.type)).toEqual(['int64', 'float64', 'timestamp', 'string', 'string', 'float64']);
    expect(rowsOf(readShard(files[0]!))).toEqual([
      [1n, 1, Date.UTC(2001, 0, 1) * 1000, 'a', null, NaN],
      [2n, 2.5, Date.UTC(2001, 0, 1, 10) * 1000, '2', null, -Infinity],
      [null, null, null, null, null, Infinity],
    ]);
  });
});

/** A CSV of `n` rows with a unique id and columns with NULLs and duplicates. */
function writeCsv(file: string, n: number): Scalar[][] {
  const rows: Scalar[][] = [];
  const lines = ['id,k,x,when,tag'];
  for (let i = 0; i < n; i++) {
    const k = i % 7 === 0 ? null : BigInt((i * 37) % 11) - 5n;
    const x = i % 5 === 0 ? null : ((i * 13) % 17) / 4;
    const when = i % 9 === 0 ? null : Date.UTC(2020, 0, 1) + ((i * 7919) % 1000) * 3_600_000;
    const tag = i % 6 === 0 ? null : `t${(i * 3) % 10}`;
    rows.push([BigInt(i), k, x, when === null ? null : when * 1000, tag]);
    lines.push([i, k ?? '', x ?? '', when === null ? '' : new Date(when).toISOString(), tag ?? ''].join(','));
  }
  writeFileSync(file, lines.join('\n') + '\n');
  return rows;
}
const CSV_TYPES: ColumnType[] = ['int64', 'int64', 'float64', 'timestamp', 'string'];

describe('hash partitioning', () => {
  it('covers every row exactly once, in the shard its hash names, deterministically', async () => {
    const dir = fresh('hash');
    const file = join(dir, 'rows.csv');
    const rows = writeCsv(file, 1000);
    const one = await prepareShards({ path: file, table: 't', shards: 7, partition: hash, cacheDir: fresh('hash-c1') });
    const two = await prepareShards({ path: file, table: 't', shards: 7, partition: hash, cacheDir: fresh('hash-c2') });
    expect(one.catalog.table.columns.map((c) => c.type)).toEqual(CSV_TYPES);
    expect(two.catalog).toEqual(one.catalog);
    for (let i = 0; i < 7; i++) expect(readFileSync(two.files[i]!)).toEqual(readFileSync(one.files[i]!));

    const seen = new Map<bigint, number>();
    for (const [id, f] of one.files.entries()) {
      const shardRows = rowsOf(readShard(f));
      expect(shardRows).toHaveLength(one.catalog.shards[id]!.rows);
      expect(one.catalog.shards[id]!.partition).toBe(`hash bucket ${id}/7`);
      for (const r of shardRows) {
        const rowId = r[0] as bigint;
        expect(seen.has(rowId)).toBe(false);
        seen.set(rowId, id);
        expect(r).toEqual(rows[Number(rowId)]);
        expect(hashBucket(CSV_TYPES, r, 7)).toBe(id);
      }
    }
    expect(seen.size).toBe(1000);
    // Every bucket gets a fair share.
    for (const s of one.catalog.shards) expect(s.rows).toBeGreaterThan(100);
  });

  it('has a fixed hash function', () => {
    expect(hashRow(['int64', 'string', 'float64', 'timestamp'], [1n, 'a', 0.5, null])).toBe(hashRow(['int64', 'string', 'float64', 'timestamp'], [1n, 'a', 0.5, null]));
    // FNV-1a-32 of 01 0100000000000000 01 61 ff, then fmix32 (computed independently).
    expect(hashRow(['int64', 'string'], [1n, 'a'])).toBe(2627108817);
    expect(hashRow(['float64'], [-0])).toBe(hashRow(['float64'], [0]));
    expect(hashRow(['string', 'string'], ['ab', 'c'])).not.toBe(hashRow(['string', 'string'], ['a', 'bc']));
  });
});

describe('range partitioning', () => {
  it('gives ordered, contiguous shards of nearly equal size', async () => {
    const dir = fresh('range');
    const file = join(dir, 'rows.csv');
    const rows = writeCsv(file, 1003);
    for (const column of ['k', 'x', 'when', 'tag']) {
      const c = ['id', 'k', 'x', 'when', 'tag'].indexOf(column);
      const { catalog, files } = await prepareShards({ path: file, table: 't', shards: 10, partition: { kind: 'range', column }, cacheDir: fresh('range-c') });
      expect(catalog.partitioning).toEqual({ kind: 'range', column });
      const sizes = catalog.shards.map((s) => s.rows);
      expect(sizes.reduce((a, b) => a + b, 0)).toBe(1003);
      expect(Math.max(...sizes) - Math.min(...sizes)).toBeLessThanOrEqual(1);
      const all = files.flatMap((f) => rowsOf(readShard(f)));
      // Concatenated in shard order, the rows are the source rows sorted by the column, NULLs first, ties in source order.
      const key = (v: Scalar): number | string | bigint => (v === null ? -Infinity : (v as number | string | bigint));
      const expected = rows
        .map((r, i) => ({ r, i }))
        .sort((p, q) => {
          const a = p.r[c]!;
          const b = q.r[c]!;
          if (a === null || b === null) return (a === null ? 0 : 1) - (b === null ? 0 : 1) || p.i - q.i;
          return key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : p.i - q.i;
        })
        .map((p) => p.r);
      expect(all).toEqual(expected);
      for (let i = 0; i + 1 < catalog.shards.length; i++) {
        const hi = catalog.shards[i]!.columns[column]!.max;
        const lo = catalog.shards[i + 1]!.columns[column]!.min;
        if (hi !== null && lo !== null) expect(hi <= lo).toBe(true);
      }
    }
  });

  it('describes each shard by its range of the column', async () => {
    const dir = fresh('range-desc');
    const file = join(dir, 'd.csv');
    writeFileSync(file, 'date,v\n2001-01-04T11:20:00Z,1\n2001-01-01,2\n,3\n2001-01-05,4\n');
    const { catalog } = await prepareShards({ path: file, table: 't', shards: 2, partition: { kind: 'range', column: 'date' }, cacheDir: fresh('range-desc-c') });
    expect(catalog.shards.map((s) => s.partition)).toEqual([
      'date in [2001-01-01T00:00:00.000Z, 2001-01-01T00:00:00.000Z] or NULL',
      'date in [2001-01-04T11:20:00.000Z, 2001-01-05T00:00:00.000Z]',
    ]);
  });
});

describe('cache', () => {
  it('reuses a complete preparation without reading the source', async () => {
    const dir = fresh('cache');
    const file = join(dir, 'rows.csv');
    writeCsv(file, 200);
    const cacheDir = fresh('cache-c');
    const opts = { path: file, table: 't', shards: 3, partition: hash, cacheDir };
    const mtime = 1_600_000_000;
    utimesSync(file, mtime, mtime);
    const first = await prepareShards(opts);
    expect(first.cached).toBe(false);
    const size = statSync(file).size;
    const second = await prepareShards(opts);
    expect(second.cached).toBe(true);
    expect(second.catalog).toEqual(first.catalog);
    expect(second.files).toEqual(first.files);
    // Only the finished folder is left: no temporary folders.
    expect(readdirSync(cacheDir)).toEqual([first.dir.split('/').pop()]);
    // Same size and mtime, different bytes (cp -p, rsync, tar): the content hash tells.
    const original = readFileSync(file, 'utf8');
    writeFileSync(file, original.replace(/t\d/g, 'zz'));
    utimesSync(file, mtime, mtime);
    expect(statSync(file).size).toBe(size);
    const changed = await prepareShards(opts);
    expect(changed.cached).toBe(false);
    expect(changed.catalog.shards.some((s) => s.columns.tag!.min === 'zz')).toBe(true);

    // A different shard count is a different preparation.
    expect((await prepareShards({ ...opts, shards: 4 })).cached).toBe(false);
  });

  it('does not reuse an incomplete folder', async () => {
    const dir = fresh('cache-inc');
    const file = join(dir, 'rows.csv');
    writeCsv(file, 50);
    const cacheDir = fresh('cache-inc-c');
    const first = await prepareShards({ path: file, table: 't', shards: 2, partition: hash, cacheDir });
    rmSync(first.files[1]!);
    const again = await prepareShards({ path: file, table: 't', shards: 2, partition: hash, cacheDir });
    expect(again.cached).toBe(false);
    expect(again.files).toEqual(first.files);
    expect(readShard(again.files[1]!).numRows).toBe(first.catalog.shards[1]!.rows);
  });
});

describe('errors', () => {
  const cacheDir = (): string => fresh('err-c');
  const prep = (path: string, extra: Partial<{ shards: number; partition: PartitionSpec }> = {}): Promise<unknown> =>
    prepareShards({ path, table: 't', shards: extra.shards ?? 2, partition: extra.partition ?? hash, cacheDir: cacheDir() });

  it('rejects a bad path, a wrong extension, an empty file and a directory without data', async () => {
    const dir = fresh('err');
    await expectCode(prep(join(dir, 'nope.csv')), 'CANOPY_ERR_DATA');
    writeFileSync(join(dir, 'x.json'), '{}');
    await expectCode(prep(join(dir, 'x.json')), 'CANOPY_ERR_DATA');
    writeFileSync(join(dir, 'empty.csv'), '');
    await expectCode(prep(join(dir, 'empty.csv')), 'CANOPY_ERR_DATA');
    const empty = fresh('empty-dir');
    await expectCode(prep(empty), 'CANOPY_ERR_DATA');
    writeFileSync(join(empty, 'notes.txt'), 'hello');
    await expectCode(prep(empty), 'CANOPY_ERR_DATA');
    const blank = fresh('blank');
    writeFileSync(join(blank, 'b.csv'), '\n\n');
    await expectCode(prep(join(blank, 'b.csv')), 'CANOPY_ERR_DATA');
  });

  it('rejects shard counts outside 1..10,000 and an unknown range column', async () => {
    for (const shards of [0, -1, 1.5, 10_001, Number.NaN]) await expectCode(prep(CSV_DIR, { shards }), 'CANOPY_ERR_DATA');
    const file = join(CSV_DIR, 'flights-a.csv');
    const msg = await expectCode(prep(file, { partition: { kind: 'range', column: 'dealy' } }), 'CANOPY_ERR_DATA');
    expect(msg).toContain('delay');
  });

  it('rejects directories whose files have different schemas, naming both files', async () => {
    const names = fresh('schema-names');
    writeFileSync(join(names, 'a.csv'), 'x,y\n1,2\n');
    writeFileSync(join(names, 'b.csv'), 'x,z\n1,2\n');
    expect(await expectCode(prep(names), 'CANOPY_ERR_DATA')).toMatch(/a\.csv.*b\.csv/);
    const types = fresh('schema-types');
    writeFileSync(join(types, 'a.csv'), 'x,y\n1,2\n');
    writeFileSync(join(types, 'b.csv'), 'x,y\n1,2.5\n');
    expect(await expectCode(prep(types), 'CANOPY_ERR_DATA')).toMatch(/a\.csv.*b\.csv/);
    const width = fresh('schema-width');
    writeFileSync(join(width, 'a.csv'), 'x,y\n1,2\n');
    writeFileSync(join(width, 'b.csv'), 'x\n1\n');
    await expectCode(prep(width), 'CANOPY_ERR_DATA');
  });

  it('rejects ragged CSV rows with file and line', async () => {
    const dir = fresh('ragged');
    const file = join(dir, 'r.csv');
    writeFileSync(file, 'a,b\n1,2\n3\n4,5\n');
    const msg = await expectCode(prep(file), 'CANOPY_ERR_DATA');
    expect(msg).toContain(file);
    expect(msg).toContain('line 3');
  });

  it('rejects duplicate column names and unsupported Parquet types', async () => {
    const dir = fresh('dup');
    writeFileSync(join(dir, 'd.csv'), 'a,a\n1,2\n');
    await expectCode(prep(join(dir, 'd.csv')), 'CANOPY_ERR_DATA');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      const cases: [string, string, string][] = [
        ['bool', 'SELECT true AS b', 'b'],
        ['decimal', 'SELECT 1.25::DECIMAL(10,2) AS d', 'd'],
        ['list', 'SELECT [1, 2] AS l', 'l'],
      ];
      for (const [name, sql, column] of cases) {
        const p = join(dir, `${name}.parquet`);
        await con.run(`COPY (${sql}) TO '${p}' (FORMAT parquet)`);
        const msg = await expectCode(prep(p), 'CANOPY_ERR_DATA');
        expect(msg).toContain(`'${column}'`);
      }
    } finally {
      con.closeSync();
      db.closeSync();
    }
  });

  it('rejects a shard file that breaks the contract', async () => {
    const dir = fresh('bad-shard');
    const garbage = join(dir, 'g.arrow');
    writeFileSync(garbage, 'not arrow');
    await expectCode(() => readShard(garbage), 'CANOPY_ERR_DATA');
    const unsorted = makeData({ type: new Dictionary(new Utf8(), new Int32(), 0), length: 2, nullCount: 0, data: Int32Array.of(0, 1), dictionary: vectorFromArray(['b', 'a'], new Utf8()) });
    const bad: Record<string, Table> = {
      int32: tableFromArrays({ n: Int32Array.of(1, 2) }),
      utf8: new Table({ s: vectorFromArray(['b', 'a'], new Utf8()) }),
      unsortedDictionary: new Table({ s: makeVector(unsorted) }),
      bigBatch: tableFromArrays({ x: new Float64Array(70_000) }),
    };
    for (const [name, table] of Object.entries(bad)) {
      const f = join(dir, `${name}.arrow`);
      writeFileSync(f, tableToIPC(table, 'file'));
      await expectCode(() => readShard(f), 'CANOPY_ERR_DATA');
    }
  });
});

describe('Parquet types', () => {
  it('maps integer, double, timestamp, date and string columns, with NULLs; refuses FLOAT', async () => {
    const dir = fresh('pq');
    const file = join(dir, 'types.parquet');
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    try {
      await con.run(`COPY (SELECT * FROM (VALUES
          (1::INTEGER, -5::SMALLINT, 9007199254740993::BIGINT, 2.25::DOUBLE, DATE '2001-01-02',
           TIMESTAMP '2001-01-02 03:04:05.678912', '2001-01-02 03:04:05.678'::TIMESTAMP_MS, TIMESTAMP_NS '1969-12-31 23:59:59.999999', 'x'),
          (NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL, NULL))
        AS t(i32, i16, i64, f64, d, ts_us, ts_ms, ts_ns, s)) TO '${file}' (FORMAT parquet)`);
      await con.run(`COPY (SELECT 1.5::FLOAT AS f32) TO '${join(dir, 'f32.parquet')}' (FORMAT parquet)`);
    } finally {
      con.closeSync();
      db.closeSync();
    }
    const { catalog, files } = await prepareShards({ path: file, table: 'p', shards: 1, partition: hash, cacheDir: fresh('pq-c') });
    expect(catalog.table.columns.map((c) => c.type)).toEqual(['int64', 'int64', 'int64', 'float64', 'date', 'timestamp', 'timestamp', 'timestamp', 'string']);
    expect(rowsOf(readShard(files[0]!))).toEqual([
      [1n, -5n, 9007199254740993n, 2.25, us('2001-01-02T00:00:00Z'), us('2001-01-02T03:04:05.678Z') + 912, us('2001-01-02T03:04:05.678Z'), -1, 'x'],
      [null, null, null, null, null, null, null, null, null],
    ]);
    // FLOAT (32-bit) is refused, naming the column and the DOUBLE to write instead.
    await expect(prepareShards({ path: join(dir, 'f32.parquet'), table: 'p', shards: 1, partition: hash, cacheDir: fresh('pq-c') })).rejects.toThrow(/column 'f32' has type FLOAT .*CAST\(f32 AS DOUBLE\)/);
    expect(catalog.shards[0]!.columns.i64).toEqual({ min: 2 ** 53, max: 2 ** 53 + 2, nullCount: 1 });
  });
});

describe('shardsFromRows / catalogFromShards', () => {
  const schema: TableSchema = {
    name: 'm',
    columns: [
      { name: 'i', type: 'int64' },
      { name: 'f', type: 'float64' },
      { name: 't', type: 'timestamp' },
      { name: 's', type: 'string' },
    ],
  };
  const big = 2n ** 53n + 1n;
  const shards: Scalar[][][] = [
    [
      [1n, 0.5, 1000, 'b'],
      [null, null, null, null],
      [-(2n ** 63n), -1.5, -1000, 'a'],
      [big, 2, 0, 'b'],
      [5n, NaN, 5, 'é'],
    ],
    [],
    [[null, null, null, null]],
    [[2n ** 63n - 1n, 1e300, 1, '']],
  ];

  it('round-trips values, NULLs, big int64s and empty shards, through IPC too', () => {
    const tables = shardsFromRows(schema, shards, 2);
    expect(tables[0]!.batches.map((b) => b.numRows)).toEqual([2, 2, 1]);
    expect(tables[1]!.batches.map((b) => b.numRows)).toEqual([0]);
    const dir = fresh('mem');
    for (const [i, t] of tables.entries()) {
      expect(rowsOf(t)).toEqual(shards[i]);
      expect(schemaOf(t)).toEqual(schema);
      const f = join(dir, `s${i}.arrow`);
      writeFileSync(f, tableToIPC(t, 'file'));
      const back = readShard(f);
      expect(rowsOf(back)).toEqual(shards[i]);
      expect(schemaOf(back)).toEqual(schema);
    }
    // One sorted dictionary shared by every batch of a shard.
    const s0 = tables[0]!.batches.map((b) => b.data.children[3]!.dictionary);
    expect(s0[0]!.toArray()).toEqual(['a', 'b', 'é']);
    expect(s0.every((d) => d === s0[0])).toBe(true);
    // Accepts safe-integer numbers for int64.
    expect(rowsOf(shardsFromRows(schema, [[[7, 1, 1, 'x']]])[0]!)).toEqual([[7n, 1, 1, 'x']]);
  });

  it('computes the same stats as prepareShards', () => {
    const tables = shardsFromRows(schema, shards);
    const cat = catalogFromShards(schema, tables, { kind: 'range', column: 's' });
    expect(cat.table).toEqual(schema);
    expect(cat.shards.map((s) => s.rows)).toEqual([5, 0, 1, 1]);
    const [s0, s1, s2, s3] = cat.shards;
    expect(s0!.columns).toEqual({
      i: { min: -(2 ** 63), max: 2 ** 53 + 2, nullCount: 1 },
      f: { min: -1.5, max: NaN, nullCount: 1 },
      t: { min: -1000, max: 1000, nullCount: 1 },
      s: { min: 'a', max: 'é', nullCount: 1, values: ['a', 'b', 'é'] },
    });
    expect(s0!.partition).toBe('s in ["a", "é"] or NULL');
    expect(s1!.columns.i).toEqual({ min: null, max: null, nullCount: 0 });
    expect(s1!.partition).toBe('s: no rows');
    expect(s2!.columns.s).toEqual({ min: null, max: null, nullCount: 1 });
    expect(s2!.partition).toBe('s is NULL');
    // 2^63-1 is not a double: min rounds down to the next double below, max up to 2^63.
    expect(s3!.columns.i).toEqual({ min: 2 ** 63 - 1024, max: 2 ** 63, nullCount: 0 });
    expect(catalogFromShards(schema, tables).shards[2]!.partition).toBe('in-memory shard 2');
    expect(catalogFromShards(schema, tables, hash).shards[3]!.partition).toBe('hash bucket 3/4');
  });

  it('rejects wrong values and mismatched tables', async () => {
    await expectCode(() => shardsFromRows(schema, [[[1.5, 1, 1, 'x']]]), 'CANOPY_ERR_DATA');
    await expectCode(() => shardsFromRows(schema, [[[2n ** 63n, 1, 1, 'x']]]), 'CANOPY_ERR_DATA');
    await expectCode(() => shardsFromRows(schema, [[[1n, '1', 1, 'x']]]), 'CANOPY_ERR_DATA');
    await expectCode(() => shardsFromRows(schema, [[[1n, 1, 1]]]), 'CANOPY_ERR_DATA');
    await expectCode(() => shardsFromRows(schema, [[]], 0), 'CANOPY_ERR_DATA');
    const other: TableSchema = { name: 'o', columns: [{ name: 'i', type: 'string' }] };
    await expectCode(() => catalogFromShards(other, shardsFromRows(schema, [[]])), 'CANOPY_ERR_DATA');
  });
});

describe('default data (flights-3m.parquet)', () => {
  it('has per-shard stats that add up to what DuckDB says about the file', async () => {
    const { catalog, files } = await prepareShards({ path: DEFAULT_DATA_PATH, table: 'flights', shards: 100, partition: hash, cacheDir: fresh('flights') });
    expect(files).toHaveLength(100);
    expect(catalog.table.columns).toEqual([
      { name: 'date', type: 'timestamp' },
      { name: 'delay', type: 'int64' },
      { name: 'distance', type: 'int64' },
      { name: 'origin', type: 'string' },
      { name: 'destination', type: 'string' },
    ]);
    const db = await DuckDBInstance.create(':memory:');
    const con = await db.connect();
    let truth: Record<string, unknown>;
    try {
      const cols = catalog.table.columns
        .map((c) => {
          const v = c.type === 'timestamp' ? `epoch_us(${c.name})` : c.name;
          return `min(${v}) AS "min_${c.name}", max(${v}) AS "max_${c.name}", count(${c.name}) AS "n_${c.name}"`;
        })
        .join(', ');
      const r = await con.runAndReadAll(`SELECT count(*) AS n, ${cols} FROM '${DEFAULT_DATA_PATH}'`);
      truth = r.getRowObjectsJS()[0]!;
    } finally {
      con.closeSync();
      db.closeSync();
    }
    const rows = catalog.shards.reduce((a, s) => a + s.rows, 0);
    expect(rows).toBe(Number(truth.n));
    for (const c of catalog.table.columns) {
      const stats = catalog.shards.map((s) => s.columns[c.name]!);
      const nonNull = stats.filter((s) => s.min !== null);
      const min = nonNull.map((s) => s.min!).reduce((a, b) => (b < a ? b : a));
      const max = nonNull.map((s) => s.max!).reduce((a, b) => (b > a ? b : a));
      const nulls = stats.reduce((a, s) => a + s.nullCount, 0);
      const norm = (v: unknown): unknown => (typeof v === 'bigint' ? Number(v) : v);
      expect([c.name, min, max, rows - nulls]).toEqual([c.name, norm(truth[`min_${c.name}`]), norm(truth[`max_${c.name}`]), Number(truth[`n_${c.name}`])]);
    }
    const shard = readShard(files[17]!);
    expect(shard.numRows).toBe(catalog.shards[17]!.rows);
    expect(shard.batches.every((b) => b.numRows <= 65_536)).toBe(true);
  });
});
