/**
 * Test helper: one in-memory DuckDB connection per test file, opened before its tests and
 * closed after them (the oracle of the value-by-value DuckDB comparisons), its session in UTC.
 */
import { DuckDBInstance, type DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll } from 'vitest';

/** Registers beforeAll/afterAll hooks; the returned function gives the open connection (inside tests only). */
export function useDuckDB(): () => DuckDBConnection {
  let db: DuckDBInstance | undefined;
  let duck: DuckDBConnection | undefined;
  beforeAll(async () => {
    db = await DuckDBInstance.create(':memory:');
    duck = await db.connect();
    // canopy's instants are UTC; DuckDB compares a TIMESTAMPTZ (to_timestamp's) in the session's
    // zone, the machine's by default, so the oracle runs in UTC whatever the machine's zone.
    await duck.run("SET TimeZone = 'UTC'");
  });
  afterAll(() => {
    duck?.closeSync();
    db?.closeSync();
  });
  return () => {
    if (duck === undefined) throw new Error('the DuckDB connection is open only inside tests');
    return duck;
  };
}
