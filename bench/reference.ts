/**
 * The reference engine: DuckDB in-process (@duckdb/node-api), single-threaded, over a
 * table loaded into memory first, so that it scans memory as canopy's leaves do.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';

/** Rows as DuckDB's JS conversion gives them (BIGINT/HUGEINT -> bigint, TIMESTAMP -> Date). */
export type ReferenceRows = readonly (readonly unknown[])[];

/** An open DuckDB database holding one table. */
export interface Reference {
  /** Runs one query and converts its result to JS rows (both inside the timed work). */
  query(sql: string): Promise<ReferenceRows>;
  /** Time taken to load the table, ms. */
  readonly loadMs: number;
  /** Installed DuckDB library version (`SELECT version()`). */
  readonly version: string;
  close(): void;
}

/** Quotes a string as a SQL literal. */
function sqlString(s: string): string {
  return `'${s.replaceAll("'", "''")}'`;
}

/**
 * Opens an in-memory DuckDB with `SET threads=<threads>` and runs
 * `CREATE TABLE <table> AS SELECT * FROM '<parquet>'`.
 * @param parquet path of the parquet file
 * @param table name of the table to create (a plain identifier)
 * @param threads DuckDB worker threads (default 1)
 */
export async function openReference(parquet: string, table: string, threads = 1): Promise<Reference> {
  if (!/^[A-Za-z_][A-Za-z0-9_]*$/.test(table)) throw new Error(`table name ${JSON.stringify(table)} is not a plain identifier`);
  const instance = await DuckDBInstance.create(':memory:');
  const conn: DuckDBConnection = await instance.connect();
  if (!Number.isInteger(threads) || threads < 1) throw new Error(`threads must be a positive integer, got ${threads}`);
  await conn.run(`SET threads=${threads}`);
  const t0 = performance.now();
  await conn.run(`CREATE TABLE ${table} AS SELECT * FROM ${sqlString(parquet)}`);
  const loadMs = performance.now() - t0;
  const version = String((await (await conn.run('SELECT version()')).getRowsJS())[0]?.[0] ?? 'unknown');
  return {
    loadMs,
    version,
    async query(sql) {
      const result = await conn.run(sql);
      return result.getRowsJS();
    },
    close() {
      conn.closeSync();
      instance.closeSync();
    },
  };
}
