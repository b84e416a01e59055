/**
 * The dashboard's schema panel inserts names with sqlName (src/root/public/sql-name.js): every
 * name it writes must plan as that column or table, for names SQL reads bare and for those it
 * does not (spaces, capitals, DuckDB's keywords, the special functions a bare word calls).
 */
import { DuckDBInstance } from '@duckdb/node-api';
import { beforeAll, describe, expect, it } from 'vitest';
import type { QueryPlan, TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/sql/index.ts';

const { sqlName } = (await import(new URL('../src/root/public/sql-name.js', import.meta.url).href)) as { sqlName: (name: string) => string };

let keywords: string[] = [];

beforeAll(async () => {
  const db = await DuckDBInstance.create(':memory:');
  const con = await db.connect();
  keywords = (await con.runAndReadAll('SELECT keyword_name FROM duckdb_keywords() ORDER BY 1')).getRows().map((r) => String(r[0]));
  con.closeSync();
});

/** Plans `sql` over a table `table` of an int64 column `column` and a column y. */
function planOver(table: string, column: string, sql: string): QueryPlan {
  const t: TableSchema = { name: table, columns: [{ name: column, type: 'int64' }, { name: 'y', type: 'int64' }] };
  return planQuery(sql, new Map([[table, t]]));
}

/** Problems writing `name` as both the table and a column with sqlName: a refusal, or another column read. */
function problems(name: string): string[] {
  const n = sqlName(name);
  const out: string[] = [];
  for (const sql of [`SELECT ${n} FROM ${n}`, `SELECT y FROM ${n} WHERE ${n} > 0`, `SELECT ${n}, count(*) FROM ${n} GROUP BY ${n} ORDER BY ${n}`, `SELECT sum(${n}) FROM ${n}`]) {
    try {
      const p = planOver(name, name, sql);
      const read = JSON.stringify(p.scan, (_k, v: unknown) => (typeof v === 'bigint' ? String(v) : v));
      if (!read.includes(JSON.stringify({ kind: 'col', name }))) out.push(`${sql}: does not read the column`);
    } catch (e) {
      out.push(`${sql}: ${(e as Error).message}`);
    }
  }
  return out;
}

describe('sqlName', () => {
  it('leaves a plain lower-case name bare and quotes the others', () => {
    expect(sqlName('origin')).toBe('origin');
    expect(sqlName('delay_2')).toBe('delay_2');
    expect(sqlName('unit price')).toBe('"unit price"');
    expect(sqlName('Total')).toBe('"Total"');
    expect(sqlName('2024')).toBe('"2024"');
    expect(sqlName('order')).toBe('"order"');
    expect(sqlName('current_date')).toBe('"current_date"');
    expect(sqlName('é')).toBe('"é"');
    expect(sqlName('a"b')).toBe('"a""b"');
  });

  it('writes every name so that it plans as that table and column', () => {
    const names = ['origin', 'unit price', 'Total', 'UPPER', '2024', 'my-col', 'x.y', "it's", 'é', 'current_timestamp', 'current_user', 'now', 'user', 'date', ...keywords];
    expect(keywords.length).toBeGreaterThan(400);
    expect(names.flatMap(problems)).toEqual([]);
  });
});
