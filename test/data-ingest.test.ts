/**
 * Adversarial source files against DuckDB: what canopy cannot hold faithfully is refused
 * with CANOPY_ERR_DATA, and what it loads answers as DuckDB answers over the same file
 * (`read_parquet` / `read_csv` with the types canopy documents in README "The data").
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parquetWriteFile } from 'hyparquet-writer';
import { describe, expect, it } from 'vitest';
import { prepareShards } from '../src/data/index.ts';
import { isCanopyError } from '../src/merge/errors.ts';
import type { PartitionSpec } from '../src/merge/types.ts';
import { answerToJSON } from '../src/root/index.ts';
import { diffResults, fromCanopy, fromDuck, type CanopyBody } from './helpers/compare.ts';
import { useDuckDB } from './helpers/duck.ts';
import { useTempDirs } from './helpers/temp-dirs.ts';
import { preparedInProcessTree } from './helpers/prepared-tree.ts';
import { ask } from './helpers/tree.ts';

const duckdb = useDuckDB();

/** A fresh folder under the test's temp dir. */
const fresh = useTempDirs('canopy-ingest-test-');

const hash: PartitionSpec = { kind: 'hash' };

/** prepareShards over `path`, 2 hash shards, a fresh cache. */
function prep(path: string, shards = 2): Promise<unknown> {
  return prepareShards({ path, table: 't', shards, partition: hash, cacheDir: fresh('cache') });
}

/** The message of the CANOPY_ERR_DATA that `p` rejects with. */
async function refusal(p: Promise<unknown>): Promise<string> {
  try {
    await p;
  } catch (e) {
    expect(isCanopyError(e), String(e)).toBe(true);
    expect((e as { code: string }).code).toBe('CANOPY_ERR_DATA');
    return (e as Error).message;
  }
  throw new Error('expected CANOPY_ERR_DATA, the file was loaded');
}

/** The message of the error DuckDB raises for `sql`. */
async function duckRefusal(sql: string): Promise<string> {
  try {
    await duckdb().runAndReadAll(sql);
  } catch (e) {
    return (e as Error).message;
  }
  throw new Error(`expected DuckDB to refuse ${sql}`);
}

/** A one-column Parquet file `v` of `data` with the schema element `el` (hyparquet-writer). */
function parquetOf(file: string, el: Record<string, unknown>, data: unknown[]): string {
  parquetWriteFile({
    filename: file,
    columnData: [{ name: 'v', data: data as never }],
    schema: [{ name: 'root', num_children: 1 }, { name: 'v', repetition_type: 'OPTIONAL', ...el } as never],
  });
  return file;
}

/**
 * Runs each query on canopy (an in-process tree over the prepared file) and on DuckDB over
 * `from` (`FROM t` replaced); every answer must be labelled exact and equal DuckDB's.
 */
async function sameAsDuckDB(path: string, from: string, queries: readonly string[], shards = 3): Promise<void> {
  const tree = await preparedInProcessTree({ path, table: 't', shards, partition: hash, cacheDir: fresh('tree'), fanout: 2 });
  for (const sql of queries) {
    const body = JSON.parse(JSON.stringify(answerToJSON(await ask(tree.root, sql)))) as CanopyBody;
    const want = fromDuck(await duckdb().runAndReadAll(sql.replaceAll(' FROM t', ` FROM ${from}`)));
    expect(body.label, sql).toBe('exact');
    expect(diffResults(fromCanopy(body), want, { ordered: /ORDER BY/.test(sql) }), sql).toEqual([]);
  }
}

describe('invalid UTF-8', () => {
  const bad = [Uint8Array.of(0xff), Uint8Array.of(0xfe), Uint8Array.of(0x61), Uint8Array.of(0xc3), Uint8Array.of(0xed, 0xa0, 0x80), null];

  it('is refused in a Parquet UTF8 column, as DuckDB refuses it, naming column and row', async () => {
    const file = parquetOf(join(fresh('pq-utf8'), 'bad.parquet'), { type: 'BYTE_ARRAY', converted_type: 'UTF8' }, bad);
    // Without the check the bytes became U+FFFD: count(DISTINCT v) was 2 for 0xff, 0xfe, 'a'.
    const msg = await refusal(prep(file));
    expect(msg).toContain("column 'v'");
    expect(msg).toContain('row 1');
    expect(msg).toMatch(/UTF-8/);
    expect(await duckRefusal(`SELECT count(DISTINCT v) FROM read_parquet('${file}')`)).toMatch(/not valid UTF8/);
  });

  it('is refused in a plain BYTE_ARRAY column (DuckDB: BLOB) and in a dictionary-encoded one', async () => {
    const plain = parquetOf(join(fresh('pq-blob'), 'blob.parquet'), { type: 'BYTE_ARRAY' }, bad);
    expect(await refusal(prep(plain))).toMatch(/column 'v'.*UTF-8/);
    // DuckDB tells the four byte strings apart.
    const r = await duckdb().runAndReadAll(`SELECT count(DISTINCT v) FROM read_parquet('${plain}')`);
    expect(r.getRows()[0]![0]).toBe(5n);
    // Repeated values: hyparquet-writer writes a dictionary page, whose entries are decoded once.
    const many = Array.from({ length: 3000 }, (_, i) => (i === 2500 ? Uint8Array.of(0x80) : new TextEncoder().encode(`s${i % 3}`)));
    const dict = parquetOf(join(fresh('pq-dict'), 'dict.parquet'), { type: 'BYTE_ARRAY', converted_type: 'UTF8' }, many);
    expect(await refusal(prep(dict))).toMatch(/column 'v', row 2501: .*UTF-8/);
  });

  it('is refused in a CSV file, as DuckDB refuses it, naming the line', async () => {
    const file = join(fresh('csv-utf8'), 'bad.csv');
    writeFileSync(file, Buffer.concat([Buffer.from('a,b\nx,1\n'), Buffer.from([0x79, 0xff, 0x2c, 0x32, 0x0a]), Buffer.from('z,3\n')]));
    const msg = await refusal(prep(file));
    expect(msg).toContain(file);
    expect(msg).toMatch(/UTF-8/);
    expect(msg).toContain('line 3');
    expect(await duckRefusal(`SELECT count(DISTINCT a) FROM read_csv('${file}')`)).toMatch(/Invalid unicode/);
  });

  it('keeps multi-byte characters split across read chunks, as DuckDB reads them', async () => {
    const file = join(fresh('csv-chunks'), 'wide.csv');
    // Rows of 1- to 4-byte characters: some straddle every 64 KiB read boundary.
    const chars = ['a', 'é', '€', '😀'];
    const lines = ['s,i'];
    for (let i = 0; i < 40_000; i++) lines.push(`${chars[i % 4]!.repeat(1 + (i % 5))}${chars[(i >> 2) % 4]},${i}`);
    writeFileSync(file, lines.join('\n') + '\n');
    await sameAsDuckDB(file, `read_csv('${file}', header=true, columns={'s': 'VARCHAR', 'i': 'BIGINT'})`, [
      'SELECT count(*) AS n, count(DISTINCT s) AS d, min(s) AS mn, max(s) AS mx, sum(i) AS si FROM t',
      'SELECT s, count(*) AS n, sum(i) AS si FROM t GROUP BY s ORDER BY s',
    ]);
  });
});

describe('Parquet logical types without a converted type', () => {
  it('refuses an INT32 annotated DATE only by its logical type (DuckDB reads it as INTEGER)', async () => {
    const file = parquetOf(join(fresh('pq-date'), 'date.parquet'), { type: 'INT32', logical_type: { type: 'DATE' } }, [0, 1, -1, 10000, null]);
    // hyparquet converts days only for converted_type DATE: the day numbers were read as µs
    // (day 10000 was 1970-01-01T00:00:00.010Z), labelled exact.
    expect(await refusal(prep(file))).toMatch(/column 'v'.*DATE/);
    const r = await duckdb().runAndReadAll(`SELECT typeof(v), max(v) FROM read_parquet('${file}') GROUP BY ALL`);
    expect(r.getRows()).toEqual([['INTEGER', 10000]]);
  });

  it('loads a logical-only TIMESTAMP as DuckDB does', async () => {
    const dir = fresh('pq-ts');
    const values: Record<string, (bigint | null)[]> = {
      MILLIS: [0n, 1n, -1n, 978_307_200_123n, null],
      MICROS: [0n, 1n, -1n, 978_307_200_123_456n, null],
      NANOS: [0n, 1000n, -1000n, 978_307_200_123_456_000n, null],
    };
    for (const [unit, vals] of Object.entries(values)) {
      const file = parquetOf(join(dir, `${unit}.parquet`), { type: 'INT64', logical_type: { type: 'TIMESTAMP', isAdjustedToUTC: unit !== 'MILLIS', unit } }, vals);
      await sameAsDuckDB(file, `read_parquet('${file}')`, [
        'SELECT count(*) AS n, count(v) AS c, count(DISTINCT v) AS d, min(v) AS mn, max(v) AS mx FROM t',
        'SELECT v, count(*) AS n FROM t GROUP BY v ORDER BY v NULLS FIRST',
      ]);
    }
  });
});

describe('column names', () => {
  it('refuses names that differ only in case (SQL names are case-insensitive; DuckDB renames the second)', async () => {
    const dir = fresh('case');
    const csv = join(dir, 'case.csv');
    writeFileSync(csv, 'a,A\n1,2\n3,4\n');
    // Loaded, sum(A) answered 6 (column A) where DuckDB answers 4 (A is a; the second column is A_1).
    expect(await refusal(prep(csv))).toMatch(/'a' and 'A'.*case/);
    const r = await duckdb().runAndReadAll(`SELECT sum(A) FROM read_csv('${csv}')`);
    expect(r.getRows()).toEqual([[4n]]);
    const pq = join(dir, 'case.parquet');
    parquetWriteFile({ filename: pq, columnData: [{ name: 'Straße', data: [1n, 3n], type: 'INT64' }, { name: 'STRASSE', data: [2n, 4n], type: 'INT64' }, { name: 'straße', data: [5n, 6n], type: 'INT64' }] });
    expect(await refusal(prep(pq))).toMatch(/'Straße' and 'straße'.*case/);
  });

  it('loads names that are keywords or hold spaces and quotes, as DuckDB reads them', async () => {
    const csv = join(fresh('names'), 'names.csv');
    writeFileSync(csv, '"select","my col","q""c",from\n1,2,3,x\n4,5,6,y\n');
    // (A name holding '"' loads; it is queried as "q""c" in test/hunt23-duckdb.test.ts.)
    await sameAsDuckDB(csv, `read_csv('${csv}')`, [
      'SELECT sum("select") AS a, sum("my col") AS b, min("from") AS d FROM t',
      'SELECT "from", sum("my col") AS c FROM t GROUP BY "from" ORDER BY "from"',
    ]);
  });
});

describe('CSV lines', () => {
  const Q1 = ['SELECT count(*) AS n, count(a) AS c, sum(a) AS s FROM t', 'SELECT a, count(*) AS n FROM t GROUP BY a ORDER BY a NULLS FIRST'];

  it('reads a blank line of a one-column file as a NULL row, as DuckDB does', async () => {
    const dir = fresh('blank1');
    // Skipped, these blank lines made count(*) 2 where DuckDB counts 3 (a middle or trailing blank line is a NULL).
    for (const [name, body] of [['mid', 'a\n1\n\n2\n'], ['end', 'a\n1\n2\n\n'], ['ends', 'a\n1\n2\n\n\n'], ['crlf', 'a\r\n1\r\n\r\n2\r\n'], ['first', 'a\n\n1\n'], ['untyped', 'a\n\n\n']] as const) {
      const file = join(dir, `${name}.csv`);
      writeFileSync(file, body);
      const r = await duckdb().runAndReadAll(`SELECT count(*) FROM read_csv('${file}')`);
      expect(r.getRows()[0]![0], name).toBe(BigInt(body.split(/\r?\n/).length - 2));
      await sameAsDuckDB(file, `read_csv('${file}', columns={'a': '${name === 'untyped' ? 'VARCHAR' : 'BIGINT'}'})`, Q1.map((q) => (name === 'untyped' ? q.replace('sum(a)', 'min(a)') : q)));
    }
  });

  it('skips a blank line of a file with several columns, as DuckDB does', async () => {
    const file = join(fresh('blank2'), 'two.csv');
    writeFileSync(file, 'a,b\n1,x\n\n2,y\n\n');
    await sameAsDuckDB(file, `read_csv('${file}')`, ['SELECT count(*) AS n, sum(a) AS s, min(b) AS b FROM t']);
    const ragged = join(fresh('blank3'), 'ragged.csv');
    writeFileSync(ragged, 'a,b\n1,x\n\n2\n');
    expect(await refusal(prep(ragged))).toMatch(/ragged row.*line 4/);
  });
});

describe('CSV line endings', () => {
  it('refuses a file that mixes \\r\\n and \\n outside quotes, as DuckDB does, naming the line', async () => {
    const dir = fresh('eol');
    // Loaded, the \r stayed in the last field: b had 'x', 'x\r' and 'y\r' (count(DISTINCT b) 3, DuckDB refuses the file).
    const lf = join(dir, 'lf-first.csv');
    writeFileSync(lf, 'a,b\n1,x\r\n2,x\n3,y\r\n');
    expect(await refusal(prep(lf))).toMatch(/line endings.*line 2/);
    expect(await duckRefusal(`SELECT count(DISTINCT b) FROM read_csv('${lf}')`)).toMatch(/sniffing/);
    // Loaded, '2\n3' was one string value of the one column.
    const crlf = join(dir, 'crlf-first.csv');
    writeFileSync(crlf, 'a\r\n1\r\n2\n3\r\n');
    expect(await refusal(prep(crlf))).toMatch(/line endings.*line 3/);
    const cr = join(dir, 'cr-in-field.csv');
    writeFileSync(cr, 'a,b\n1,x\ry\n');
    expect(await refusal(prep(cr))).toMatch(/line endings.*line 2/);
  });

  it('reads one kind of line ending, with any line break inside quotes, as DuckDB does', async () => {
    const dir = fresh('eol-ok');
    const q = ['SELECT count(*) AS n, sum(a) AS s, count(DISTINCT b) AS d, min(b) AS mn, max(b) AS mx FROM t', 'SELECT b, sum(a) AS s FROM t GROUP BY b ORDER BY b'];
    for (const [name, body] of [
      ['lf', 'a,b\n1,"x\r\ny"\n2,"x\ny"\n3,"\r"\n'],
      ['crlf', 'a,b\r\n1,"x\r\ny"\r\n2,"x\ny"\r\n3,z\r\n'],
      ['cr', 'a,b\r1,x\r2,y\r'],
      ['crlf-no-final', 'a,b\r\n1,x\r\n2,"y\n"'],
    ] as const) {
      const file = join(dir, `${name}.csv`);
      writeFileSync(file, body);
      await sameAsDuckDB(file, `read_csv('${file}', columns={'a': 'BIGINT', 'b': 'VARCHAR'})`, q);
    }
  });
});

describe('CSV whitespace around values', () => {
  it('trims only ASCII whitespace before typing a value, as DuckDB casts it', async () => {
    const file = join(fresh('ws'), 'ws.csv');
    // U+00A0, U+3000 and U+FEFF around a number: DuckDB reads the column as VARCHAR (the cast
    // fails); canopy trimmed them as JavaScript's trim() does and merged '\u00a05' with 5.
    writeFileSync(file, 'a,b,c,d\n\u00a05,5\u3000,\ufeff1.5,\u00a02001-01-01\n5,6,1.5,2001-01-01\n');
    const tree = await preparedInProcessTree({ path: file, table: 't', shards: 1, partition: hash, cacheDir: fresh('ws-c'), fanout: 2 });
    expect(tree.catalog.table.columns.map((c) => c.type)).toEqual(['string', 'string', 'string', 'string']);
    const auto = await duckdb().runAndReadAll(`SELECT typeof(a), typeof(b), typeof(c), typeof(d) FROM read_csv('${file}') LIMIT 1`);
    expect(auto.getRows()).toEqual([['VARCHAR', 'VARCHAR', 'VARCHAR', 'VARCHAR']]);
    await sameAsDuckDB(file, `read_csv('${file}', all_varchar=true)`, ['SELECT count(DISTINCT a) AS a, count(DISTINCT b) AS b, count(DISTINCT c) AS c, count(DISTINCT d) AS d FROM t']);
    // ASCII whitespace (space, tab, \v, \f) is trimmed, as DuckDB trims it.
    const ascii = join(fresh('ws-ascii'), 'ascii.csv');
    writeFileSync(ascii, 'a,b\n 5 ,\t1.5\n\v6\f, 2\n');
    await sameAsDuckDB(ascii, `read_csv('${ascii}', columns={'a': 'BIGINT', 'b': 'DOUBLE'})`, ['SELECT sum(a) AS a, sum(b) AS b, count(DISTINCT a) AS c FROM t']);
  });

  it('types a column as DuckDB sniffs it: a leading zero or + sign keeps it VARCHAR (hunt 22)', async () => {
    // DuckDB's sniffer reads '007', '00.5' and '+7' as text (zip codes, ids): canopy read them
    // as numbers, so SELECT a answered 7 where DuckDB answers '007'. A lone 0, a negative with
    // leading zeros, 'nan' and (after the first row) 'inf' stay numbers, as in DuckDB.
    const file = join(fresh('sniff'), 'sniff.csv');
    writeFileSync(file, 'a,b,c,d,e,f,g,h,i,k\n007,00.5,+7,1,0,-007,nan,0.5,+0.5, 010\n1,1.5,2,inf,3,4,1,1,1,2\n');
    const tree = await preparedInProcessTree({ path: file, table: 't', shards: 1, partition: hash, cacheDir: fresh('sniff-c'), fanout: 2 });
    const duckTypes = (await duckdb().runAndReadAll(`SELECT * FROM read_csv('${file}') LIMIT 0`)).columnTypes().map(String);
    const as: Record<string, string> = { BIGINT: 'int64', DOUBLE: 'float64', VARCHAR: 'string' };
    expect(tree.catalog.table.columns.map((c) => c.type)).toEqual(duckTypes.map((t) => as[t]));
    await sameAsDuckDB(file, `read_csv('${file}')`, ['SELECT a, b, c, d, e, f, h, i, k FROM t ORDER BY e']);
  });
});
