import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { CanopyError } from '../src/merge/errors.ts';
import type { QueryPlan, TableSchema } from '../src/merge/types.ts';
import { planQuery } from '../src/root/sql/index.ts';
import { FLIGHTS_SCHEMA } from './helpers/flights.ts';

const flights: TableSchema = FLIGHTS_SCHEMA;
const tables = new Map([['flights', flights]]);

/** Plans `sql`; a failure must be a CanopyError with a 4xx status, never anything else. */
function planOrClientError(sql: string): QueryPlan | CanopyError {
  try {
    return planQuery(sql, tables);
  } catch (e) {
    expect(e).toBeInstanceOf(CanopyError);
    const status = (e as CanopyError).status;
    expect(status).toBeGreaterThanOrEqual(400);
    expect(status).toBeLessThan(500);
    return e as CanopyError;
  }
}

/** Every index in the plan points at something that exists. */
function checkIndexes(plan: QueryPlan): void {
  const { partials, groupBy, rows } = plan.scan;
  const walk = (e: unknown): void => {
    if (typeof e !== 'object' || e === null) return;
    const node = e as { kind?: string; index?: number; partials?: number[] };
    if (node.kind === 'key') expect(node.index).toBeLessThan(groupBy.length);
    if (node.kind === 'agg') for (const p of node.partials ?? []) expect(p).toBeLessThan(partials.length);
    Object.values(e).forEach(walk);
  };
  walk([plan.output, plan.having, plan.orderBy]);
  for (const key of rows?.orderBy ?? []) expect(key.column).toBeLessThan(rows?.columns.length ?? 0);
}

// A grammar of valid queries over the flights table.
const num = fc.oneof(
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.bigInt({ min: -(2n ** 63n) + 1n, max: 2n ** 63n - 1n }).map(String),
  fc.double({ min: -1e6, max: 1e6, noNaN: true }).map((d) => d.toFixed(3)),
);
const numericColumn = fc.constantFrom('delay', 'distance', 'f.delay', 'DISTANCE');
const stringColumn = fc.constantFrom('origin', 'destination', '"origin"');
const stringLiteral = fc.constantFrom("'SFO'", "'LAX'", "'it''s'", "''");
const timestampLiteral = fc.constantFrom("'2001-01-01'", "'2001-02-03 04:05'", "'2001-02-03T04:05:06Z'", "TIMESTAMP '2001-06-01 00:00:00'");
const comparison = fc.constantFrom('=', '!=', '<>', '<', '<=', '>', '>=');

const condition = fc.letrec<{ cond: string }>((tie) => ({
  cond: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.tuple(numericColumn, comparison, num).map(([c, op, v]) => `${c} ${op} ${v}`),
    fc.tuple(num, comparison, numericColumn).map(([v, op, c]) => `${v} ${op} ${c}`),
    fc.tuple(stringColumn, fc.array(stringLiteral, { minLength: 1, maxLength: 4 }), fc.boolean()).map(
      ([c, vs, not]) => `${c} ${not ? 'NOT ' : ''}IN (${vs.join(', ')})`,
    ),
    fc.tuple(timestampLiteral, timestampLiteral).map(([a, b]) => `date BETWEEN ${a} AND ${b}`),
    fc.tuple(comparison, timestampLiteral).map(([op, t]) => `date_trunc('day', date) ${op} ${t}`),
    fc.tuple(stringColumn, fc.boolean()).map(([c, not]) => `${c} IS ${not ? 'NOT ' : ''}NULL`),
    tie('cond').map((c) => `NOT (${c})`),
    fc.tuple(tie('cond'), fc.constantFrom('AND', 'OR'), tie('cond')).map(([a, op, b]) => `(${a} ${op} ${b})`),
  ),
})).cond;

const aggregate = fc.constantFrom('count(*)', 'count(delay)', 'sum(delay)', 'avg(distance)', 'min(origin)', 'max(date)', 'count(1)');
const groupKey = fc.constantFrom('origin', 'destination', "date_trunc('month', date)", 'delay');
const where = fc.option(condition.map((c) => ` WHERE ${c}`), { nil: '' });
const limit = fc.option(fc.integer({ min: 0, max: 100_000 }).map((n) => ` LIMIT ${n}`), { nil: '' });

const aggregateQuery = fc
  .tuple(
    fc.uniqueArray(groupKey, { maxLength: 3 }),
    fc.array(aggregate, { minLength: 1, maxLength: 4 }),
    where,
    fc.boolean(),
    fc.option(fc.constantFrom('count(*) > 1', 'avg(delay) BETWEEN 0 AND 10', 'max(date) < \'2002-01-01\''), { nil: null }),
    fc.boolean(),
    limit,
  )
  .map(([keys, aggs, w, byOrdinal, having, desc, l]) => {
    const select = [...keys, ...aggs].join(', ');
    const group = keys.length === 0 ? '' : ` GROUP BY ${keys.map((k, i) => (byOrdinal ? String(i + 1) : k)).join(', ')}`;
    const order = ` ORDER BY ${keys.length + 1}${desc ? ' DESC' : ''}`;
    return `SELECT ${select} FROM flights f${w}${group}${having === null ? '' : ` HAVING ${having}`}${order}${l}`;
  });

const rowQuery = fc
  .tuple(
    fc.oneof(
      fc.constant('*'),
      fc
        .uniqueArray(fc.constantFrom('date', 'delay', 'origin', 'f.destination', "date_trunc('hour', date) AS h"), { minLength: 1 })
        .map((cs) => cs.join(', ')),
    ),
    where,
    fc.array(fc.tuple(fc.constantFrom('distance', 'delay', '1', 'origin'), fc.boolean()), { maxLength: 3 }),
    limit,
  )
  .map(([cols, w, order, l]) => {
    const orderBy = order.length === 0 ? '' : ` ORDER BY ${order.map(([c, desc]) => `${c}${desc ? ' DESC' : ''}`).join(', ')}`;
    return `SELECT ${cols} FROM flights f${w}${orderBy}${l}`;
  });

const validQuery = fc.oneof(aggregateQuery, rowQuery);

// Near-SQL: tokens in any order, and mutations of valid queries.
const token = fc.oneof(
  fc.constantFrom(
    'SELECT', 'FROM', 'WHERE', 'GROUP BY', 'HAVING', 'ORDER BY', 'LIMIT', 'OFFSET', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN',
    'IS', 'NULL', 'AS', 'DISTINCT', 'JOIN', 'ON', 'UNION', 'WITH', 'OVER', 'CASE', 'WHEN', 'THEN', 'END', 'CAST', 'DESC',
    'ASC', 'TRUE', 'FALSE', 'TIMESTAMP', 'DATE', 'ALL', 'NULLS FIRST', 'INTERVAL', 'EXISTS', 'LIKE',
    'flights', 'f', 'other', 'date', 'delay', 'distance', 'origin', 'destination', 'nope', '"date"', '`delay`', 'f.delay', 'f.*',
    'count', 'sum', 'min', 'max', 'avg', 'date_trunc', 'upper', 'count(*)', "date_trunc('day', date)",
    '=', '<>', '!=', '<', '<=', '>', '>=', '+', '-', '*', '/', '::', '||', '(', ')', ',', ';', '.', "'", '"', '$$', '--', '/*', '*/', '\n',
    "'SFO'", "'2001-01-01'", "'day'", "'it''s'", '-9007199254740993', '9223372036854775808', '1e999', '0.5', '-0', '$1', '?',
  ),
  fc.integer().map(String),
  fc.string({ maxLength: 6 }),
);
const tokenSoup = fc.array(token, { maxLength: 30 }).map((ts) => ts.join(' '));

const mutated = fc
  .tuple(validQuery, fc.nat(), fc.nat(), token, fc.constantFrom('truncate', 'delete', 'insert', 'replace'))
  .map(([sql, a, b, tok, how]) => {
    const i = a % (sql.length + 1);
    const j = Math.min(sql.length, i + (b % 12));
    switch (how) {
      case 'truncate':
        return sql.slice(0, i);
      case 'delete':
        return sql.slice(0, i) + sql.slice(j);
      case 'insert':
        return `${sql.slice(0, i)} ${tok} ${sql.slice(i)}`;
      case 'replace':
        return `${sql.slice(0, i)}${tok}${sql.slice(j)}`;
    }
  });

describe('planQuery under fuzzing', () => {
  it('plans every generated valid query, with indexes in range', () => {
    fc.assert(
      fc.property(validQuery, (sql) => {
        checkIndexes(planQuery(sql, tables));
      }),
      { numRuns: 400 },
    );
  });

  it('answers random strings with a plan or a 4xx CanopyError', () => {
    fc.assert(
      fc.property(fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 80 })), (sql) => {
        planOrClientError(sql);
      }),
      { numRuns: 500 },
    );
  });

  it('answers token soup with a plan or a 4xx CanopyError', () => {
    fc.assert(
      fc.property(fc.oneof(tokenSoup, tokenSoup.map((s) => `SELECT ${s}`)), (sql) => {
        planOrClientError(sql);
      }),
      { numRuns: 500 },
    );
  });

  it('answers mutated valid queries with a plan or a 4xx CanopyError', () => {
    fc.assert(
      fc.property(mutated, (sql) => {
        const result = planOrClientError(sql);
        if (!(result instanceof CanopyError)) checkIndexes(result);
      }),
      { numRuns: 600 },
    );
  });

  it('fails fast on input that makes the parser backtrack exponentially', () => {
    const nasty = [
      `SELECT delay FROM flights WHERE ${'('.repeat(25)}delay = `,
      `SELECT delay FROM flights WHERE ${'( NOT '.repeat(12)}delay = ${')'.repeat(12)}`,
      `SELECT ${'sum('.repeat(20)}delay,${')'.repeat(20)} FROM flights`,
      `SELECT delay FROM flights WHERE ${'('.repeat(5000)}delay = 1${')'.repeat(5000)}`,
    ];
    for (const sql of nasty) {
      const started = performance.now();
      const result = planOrClientError(sql);
      expect(result).toBeInstanceOf(CanopyError);
      expect(performance.now() - started).toBeLessThan(1_000);
    }
  });

  it('plans deep but valid nesting', () => {
    const sql = `SELECT delay FROM flights WHERE ${'('.repeat(30)}delay = 1${')'.repeat(30)}`;
    expect(planQuery(sql, tables).scan.filter).toEqual({
      kind: 'cmp',
      op: '=',
      left: { kind: 'col', name: 'delay' },
      right: { kind: 'lit', type: 'int64', value: 1n },
    });
  });
});
