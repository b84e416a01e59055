/**
 * Fuzzing the root's HTTP API through `app.inject()`: whatever the body, the answer is a
 * 200 (exact, every shard accounted for: the tree is healthy) or a coded 4xx, never a 5xx.
 */
import fc from 'fast-check';
import type { FastifyInstance, LightMyRequestResponse } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CODES } from '../src/merge/index.ts';
import { buildRootApp } from '../src/root/index.ts';
import { positionProblems, postQuery } from './helpers/api.ts';
import { FLIGHTS_SCHEMA, FLIGHTS_SHARDS } from './helpers/flights.ts';
import { BASE_QUERIES, nearSqlArb } from './helpers/near-sql.ts';
import { inProcessRoot } from './helpers/tree.ts';

const SHARDS = FLIGHTS_SHARDS.length;

/**
 * Aggregates whose cells may be approximate with every shard answering: DuckDB's answer depends
 * on its scan order (first / last / arbitrary, string_agg without ORDER BY, arg_min / arg_max
 * ties) or on the order of its rounding (ill-conditioned variances). A mutation that turns a
 * keyword into such a call (`NULLS FIRST` -> `FIRST(delay)`) may be answered approximate.
 */
const HEALTHY_APPROXIMATE = /\b(first|last|arbitrary|any_value|string_agg|group_concat|listagg|arg_?min|arg_?max|min_by|max_by|var_pop|var_samp|variance|stddev|stddev_pop|stddev_samp|sem)\s*\(/i;

let app: FastifyInstance;

beforeAll(() => {
  const { root } = inProcessRoot(FLIGHTS_SCHEMA, FLIGHTS_SHARDS, { fanout: 3 });
  app = buildRootApp(root, { bodyLimit: 64 * 1024 });
});

afterAll(async () => {
  await app.close();
});

/**
 * Problems with one response (empty when fine): 200 with an exact, fully covered answer,
 * or 4xx with a coded error whose status is its code's, and a consistent position on a
 * syntax error.
 */
function problems(res: LightMyRequestResponse, sql: string | null): string[] {
  const out: string[] = [];
  let body: unknown;
  try {
    body = res.json();
  } catch {
    return [`status ${res.statusCode} with a body that is not JSON: ${res.body.slice(0, 200)}`];
  }
  if (res.statusCode === 200) {
    const b = body as { label?: unknown; coverage?: { shards: number; answered: number; pruned: number }; rows?: unknown };
    if (b.label !== 'exact' && !(b.label === 'approximate' && sql !== null && HEALTHY_APPROXIMATE.test(sql))) out.push(`200 labelled ${String(b.label)}, not exact, from a healthy tree`);
    if (b.coverage === undefined || b.coverage.shards !== SHARDS || b.coverage.answered + b.coverage.pruned !== SHARDS) out.push(`200 with coverage ${JSON.stringify(b.coverage)}`);
    if (!Array.isArray(b.rows)) out.push('200 without rows');
    return out;
  }
  if (res.statusCode < 400 || res.statusCode >= 500) out.push(`status ${res.statusCode}`);
  const e = (body as { error?: { code?: unknown; message?: unknown; position?: unknown } }).error;
  if (e === undefined || typeof e.code !== 'string' || !e.code.startsWith('CANOPY_ERR_')) {
    out.push(`error body without a CANOPY_ERR_ code: ${res.body.slice(0, 300)}`);
    return out;
  }
  const known = (ERROR_CODES as Record<string, { status: number }>)[e.code];
  if (known === undefined) out.push(`unregistered code ${e.code}`);
  else if (known.status !== res.statusCode) out.push(`${e.code} sent with status ${res.statusCode}, registered as ${known.status}`);
  if (typeof e.message !== 'string' || e.message.length === 0) out.push(`${e.code} without a message`);
  if (e.position !== undefined && sql !== null) out.push(...positionProblems(sql, e.position));
  return out;
}

function report(res: LightMyRequestResponse, sql: string | null): void {
  const p = problems(res, sql);
  if (p.length > 0) throw new Error(`${p.join('; ')}\n  sql: ${JSON.stringify(sql)}\n  body: ${res.body.slice(0, 500)}`);
}

describe('root API fuzzing: never a 5xx, 4xx always coded', () => {
  it('the base queries the mutations start from are answered', async () => {
    for (const sql of BASE_QUERIES) report(await postQuery(app, { sql }), sql);
    for (const sql of BASE_QUERIES) expect((await postQuery(app, { sql })).statusCode, sql).toBe(200);
  });

  it('random strings as the sql field', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 80 }), fc.string({ unit: 'binary', maxLength: 60 }), fc.string({ unit: fc.constantFrom(...'SELECT FROMflights()*,;\'"-=<>0123456789'), maxLength: 60 })), async (sql) => {
        report(await postQuery(app, { sql }), sql);
      }),
      { numRuns: 250 },
    );
  });

  it('near-SQL: mutations of valid flights queries', async () => {
    await fc.assert(
      fc.asyncProperty(nearSqlArb, async (sql) => {
        report(await postQuery(app, { sql }), sql);
      }),
      { numRuns: 450 },
    );
  });

  it('random JSON bodies, and bodies with the right fields holding odd values', async () => {
    const deadline = fc.oneof(
      fc.integer({ min: 1000, max: 300_000 }),
      fc.integer({ min: -1_000_000, max: 0 }),
      fc.integer({ min: 300_001 }),
      fc.double({ noNaN: true, noDefaultInfinity: true, max: 0 }),
      fc.string(),
      fc.boolean(),
      fc.constant(null),
      fc.jsonValue({ maxDepth: 2 }),
    );
    const body = fc.oneof(
      fc.jsonValue({ maxDepth: 3 }),
      fc.record(
        {
          sql: fc.oneof(nearSqlArb, fc.string({ maxLength: 40 }), fc.jsonValue({ maxDepth: 1 })),
          deadline_ms: deadline,
          trace: fc.oneof(fc.boolean(), fc.jsonValue({ maxDepth: 1 })),
          extra: fc.jsonValue({ maxDepth: 1 }),
        },
        { requiredKeys: [] },
      ),
    );
    await fc.assert(
      fc.asyncProperty(body, async (b) => {
        const sql = typeof b === 'object' && b !== null && !Array.isArray(b) && typeof (b as { sql?: unknown }).sql === 'string' ? (b as { sql: string }).sql : null;
        report(await postQuery(app, b), sql);
      }),
      { numRuns: 250 },
    );
  });

  it('random raw payloads declared as JSON', async () => {
    await fc.assert(
      fc.asyncProperty(fc.oneof(fc.string({ maxLength: 60 }), fc.json({ maxDepth: 2 }).map((j) => j.slice(0, Math.max(0, j.length - 1)))), async (raw) => {
        report(await postQuery(app, raw, { raw: true }), null);
      }),
      { numRuns: 100 },
    );
  });
});
