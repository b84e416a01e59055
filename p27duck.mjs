import { DuckDBInstance } from '@duckdb/node-api';
const inst = await DuckDBInstance.create(':memory:');
const c = await inst.connect();
for (const q of process.argv.slice(2)) {
  try { const r = await c.runAndReadAll(q); console.log(q, '=>', JSON.stringify(r.getRowObjectsJson()), r.columnNames(), r.columnTypes().map(String)); }
  catch (e) { console.log(q, '=> ERR', e.message.split('\n')[0]); }
}
