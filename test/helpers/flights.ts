/**
 * Test helpers: a small flights-like table (the schema of the default data) pinned to
 * shards, and handlers that misbehave in the ways a child can (fault injection through
 * `inProcessRoot`'s `wrap`).
 */
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LeafNode } from '../../src/leaf/index.ts';
import type { Frame, Scalar, TableSchema } from '../../src/merge/index.ts';
import type { NodeHandler } from '../../src/transport/index.ts';

/** The schema of the default flights data. */
export const FLIGHTS_SCHEMA: TableSchema = {
  name: 'flights',
  columns: [
    { name: 'date', type: 'timestamp' },
    { name: 'delay', type: 'int64' },
    { name: 'distance', type: 'int64' },
    { name: 'origin', type: 'string' },
    { name: 'destination', type: 'string' },
  ],
};

/** Column names of {@link FLIGHTS_SCHEMA}, in order. */
export const FLIGHTS_COLUMNS: readonly string[] = FLIGHTS_SCHEMA.columns.map((c) => c.name);

function row(iso: string, delay: number | null, distance: number | null, origin: string | null, destination: string | null): Scalar[] {
  return [Date.parse(iso) * 1000, delay === null ? null : BigInt(delay), distance === null ? null : BigInt(distance), origin, destination];
}

/**
 * Six shards of a few rows each (one empty, one with NULLs): 3 aggregators of 2 leaves
 * each at fan-out 3.
 */
export const FLIGHTS_SHARDS: readonly (readonly Scalar[][])[] = [
  [row('2001-01-01T06:00:00Z', 5, 300, 'SFO', 'LAX'), row('2001-01-01T07:30:00Z', -3, 300, 'LAX', 'SFO')],
  [row('2001-01-02T00:00:00Z', 12, 1200, 'ORD', 'JFK'), row('2001-01-02T10:15:00Z', 0, 2500, 'JFK', 'SFO'), row('2001-01-03T23:59:00Z', null, 700, 'SEA', null)],
  [row('2001-02-01T12:00:00Z', 40, 1800, 'ORD', 'LAX')],
  [row('2001-02-14T08:00:00Z', -10, 2500, 'SFO', 'JFK'), row('2001-03-01T00:00:00Z', 7, null, null, 'ORD')],
  [],
  [row('2001-06-30T23:00:00Z', 120, 950, 'LAX', 'SEA'), row('2001-06-30T23:30:00Z', 1, 950, 'SEA', 'LAX'), row('2001-07-01T00:00:00Z', 2, 300, 'LAX', 'SFO')],
];

/** (Re)creates table `flights` in DuckDB holding the rows of {@link FLIGHTS_SHARDS}. */
export async function loadFlights(duck: DuckDBConnection): Promise<void> {
  await duck.run('CREATE OR REPLACE TABLE flights (date TIMESTAMP, delay BIGINT, distance BIGINT, origin VARCHAR, destination VARCHAR)');
  const lit = (v: Scalar, c: number): string => (v === null ? 'NULL' : c === 0 ? `make_timestamp(${String(v)})` : typeof v === 'string' ? `'${v.replaceAll("'", "''")}'` : String(v));
  await duck.run(`INSERT INTO flights VALUES ${FLIGHTS_SHARDS.flat().map((r) => `(${r.map(lit).join(', ')})`).join(', ')}`);
}

/** Rows per shard of {@link FLIGHTS_SHARDS}. */
export const FLIGHTS_ROWS: readonly number[] = FLIGHTS_SHARDS.map((s) => s.length);

/** Shard id of a leaf named `leaf-<id>`. */
export function shardOf(leaf: LeafNode): number {
  return leaf.shards[0]!;
}

/** A handler whose iteration throws a plain Error before yielding anything. */
export function throwingHandler(message = 'disk on fire'): NodeHandler {
  return () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.reject(new Error(message)) }),
  });
}

/** A handler that never yields and never ends, whatever the signal says. */
export function hangingHandler(): NodeHandler {
  return () => ({
    [Symbol.asyncIterator]: () => ({ next: () => new Promise<IteratorResult<Frame>>(() => undefined) }),
  });
}

/** A handler that ends without yielding a frame. */
export function silentHandler(): NodeHandler {
  return () => ({
    [Symbol.asyncIterator]: () => ({ next: () => Promise.resolve({ done: true, value: undefined }) }),
  });
}

/** Runs the leaf's real handler and rewrites its (last) frame before yielding it. */
export function rewritingHandler(leaf: LeafNode, rewrite: (frame: Frame) => Frame): NodeHandler {
  return async function* rewritten(req, signal) {
    let last: Frame | undefined;
    for await (const f of leaf.handler(req, signal)) last = f;
    if (last !== undefined) yield rewrite(last);
  };
}
