/**
 * CSV header detection against DuckDB's sniffer (src/data/csv.ts csvFirstRowIsHeader and
 * csvColumnNames): random small CSV files whose columns are integers, decimals, words, ISO
 * dates or timestamps, times or empty cells, with a first row drawn from every kind (so that
 * it sometimes fits the columns' types, and sometimes does not), are loaded by loadCsv and read
 * by DuckDB's read_csv; both must agree on whether the first row is a header (the column
 * names, `column0`, `column1`, ... without one, zero-padded from 11 columns) and on the rows
 * (count, and per column the count of values). Plus DuckDB's examples by hand.
 *
 * Run: npx vitest run test/csv-header-duckdb.test.ts
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { csvColumnNames, csvFirstRowIsHeader, loadCsv } from '../src/data/csv.ts';
import { useDuckDB } from './helpers/duck.ts';
import { useTempDirs } from './helpers/temp-dirs.ts';

const duckdb = useDuckDB();
const fresh = useTempDirs('canopy-csv-header-');

/** Values per column kind; within a kind canopy and DuckDB's sniffer type a column alike. */
const KINDS: Record<string, readonly string[]> = {
  int: ['1', '-7', '42', '0', '123456'],
  num: ['1', '2.5', '-0.25', '1e3', '7'],
  word: ['a', 'x', 'hello', 'b c', 'id'],
  date: ['2024-01-31', '1999-12-01', '2000-02-29'],
  ts: ['2024-01-31 10:00:00', '1999-12-01 23:59:59', '2000-02-29 00:00:01'],
  time: ['10:00:00', '23:59:59', '1:00'],
  empty: [''],
};
const ALL = Object.values(KINDS).flat();

/** A column: its kind's values (with empty cells now and then) in the rows after the first. */
const column = (rows: number): fc.Arbitrary<string[]> =>
  fc.constantFrom(...Object.keys(KINDS)).chain((k) => fc.array(fc.oneof({ weight: 5, arbitrary: fc.constantFrom(...KINDS[k]!) }, { weight: 1, arbitrary: fc.constant('') }), { minLength: rows, maxLength: rows }));

/** A file: a first row (any values, header-like words too) and 1 to 4 columns of 0 to 4 more rows. */
const file = fc
  .record({ width: fc.integer({ min: 1, max: 4 }), rows: fc.integer({ min: 0, max: 4 }) })
  .chain(({ width, rows }) =>
    fc.record({
      first: fc.array(fc.oneof(fc.constantFrom(...ALL), fc.constantFrom('k', 'v', 'name', 'when', 'n1')), { minLength: width, maxLength: width }),
      cols: fc.array(column(rows), { minLength: width, maxLength: width }),
    }),
  )
  .map(({ first, cols }) => {
    const rows = [first, ...Array.from({ length: cols[0]!.length }, (_, r) => cols.map((c) => c[r]!))];
    return `${rows.map((r) => r.join(',')).join('\n')}\n`;
  })
  // A one-column file's blank lines and all-empty first rows are handled by the reader, not the rule.
  .filter((body) => !body.split('\n').slice(0, -1).some((l) => l === '' || /^,+$/.test(l)));

async function compare(body: string): Promise<void> {
  const f = join(fresh('csv'), 'f.csv');
  writeFileSync(f, body);
  let mine;
  try {
    mine = await loadCsv(f);
  } catch (e) {
    // Duplicate names in a header: DuckDB renames the second (a_1), canopy refuses.
    if (/appears twice|differ only in case/.test((e as Error).message)) return;
    throw e;
  }
  const duck = await duckdb().runAndReadAll(`SELECT * FROM read_csv('${f}')`);
  const what = JSON.stringify(body);
  expect(mine.names, what).toEqual(duck.columnNames());
  expect(mine.length, what).toBe(duck.currentRowCount);
  const counts = await duckdb().runAndReadAll(`SELECT ${duck.columnNames().map((n) => `count("${n}")`).join(', ')} FROM read_csv('${f}')`);
  const mineCounts = mine.cols.map((c) => (c.valid === null ? mine.length : c.valid.reduce((a, v) => a + v, 0)));
  expect(mineCounts, what).toEqual(counts.getRows()[0]!.map(Number));
}

describe('CSV header detection, as DuckDB sniffs it', () => {
  it('agrees with DuckDB on hand-picked files', async () => {
    for (const body of [
      '1,2\n3,4\n5,6\n',
      'x,1\ny,2\nz,3\n',
      'a,b\nc,d\n',
      'a,b\n',
      '1,2\n',
      'x,5\n',
      'x,\n',
      'x\n',
      '5\n',
      'a,1\nb,x\n',
      '1.5,2\n3,4\n',
      '1.5,2\n3.5,4\n',
      '1.0,2\n3,4\n',
      '+5,1\n6,2\n',
      '007,1\n8,2\n',
      ' 1 ,2\n3,4\n',
      '"1","2"\n3,4\n',
      '1,\n2,3\n',
      '1,b\n2,\n',
      '1,\n2,\n',
      ',\n1,2\n',
      'a,\n1,2\n',
      'a , b\n1,2\n',
      '"a ",b\n1,2\n',
      '\u00a0a\u00a0,\u3000b\n1,2\n',
      '10:00:00,alice\n11:00:00,bob\n',
      '0x1f,a\n0x20,b\n',
      '2024-01-01,1\n2024-01-02,2\n',
      '1\n\n2\n',
      '1,2,3,4,5,6,7,8,9,10\n1,2,3,4,5,6,7,8,9,10\n',
      '1,2,3,4,5,6,7,8,9,10,11\n1,2,3,4,5,6,7,8,9,10,11\n',
    ]) {
      await compare(body);
    }
  }, 60_000);

  it('agrees with DuckDB over random small files', async () => {
    await fc.assert(fc.asyncProperty(file, compare), { numRuns: 200 });
  }, 120_000);

  it('names columns as DuckDB does', () => {
    expect(csvColumnNames(null, 1)).toEqual(['column0']);
    expect(csvColumnNames(null, 10).slice(-2)).toEqual(['column8', 'column9']);
    expect(csvColumnNames(null, 11).slice(0, 2)).toEqual(['column00', 'column01']);
    expect(csvColumnNames(null, 101)[7]).toBe('column007');
    expect(csvColumnNames([' a ', '\u00a0b', '\tc\t', '', '  '], 5)).toEqual(['a', 'b', '\tc\t', 'column3', 'column4']);
  });

  it('decides from the rows after the first, or from the only row', () => {
    expect(csvFirstRowIsHeader(['1', '2'], [['3'], ['4']])).toBe(false);
    expect(csvFirstRowIsHeader(['a', 'b'], [['c'], ['d']])).toBe(true);
    expect(csvFirstRowIsHeader(['a', 'b'], [[], []])).toBe(true);
    expect(csvFirstRowIsHeader(['a', ''], [[], []])).toBe(false);
    expect(csvFirstRowIsHeader(['', ''], [['1'], ['2']])).toBe(true);
    expect(csvFirstRowIsHeader(['b'], [['']])).toBe(true);
    expect(csvFirstRowIsHeader(['1', 'b'], [['2'], ['']])).toBe(true);
  });
});
