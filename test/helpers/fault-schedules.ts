/**
 * The fault-schedule property, shared by `test/faults-property.test.ts` (a few hundred
 * schedules on vitest's fake timers) and `npm run bench -- faults` (>= 10,000 schedules on
 * the simulated transport's virtual clock): random tree shapes, data, one fault per shard
 * (delays, replies after the deadline, errors, hangs, crashes, garbled replies) and a
 * completion policy; the checker returns the violations of the partial-answer contract
 * (every shard exactly once in provenance; exact equals the truth; exact cells equal it and
 * bounded intervals contain it; zero coverage only as CANOPY_ERR_NO_COVERAGE).
 */
import fc from 'fast-check';
import { withFaults, type FaultRule } from '../../src/leaf/index.ts';
import { compareSql, isCanopyError, type Scalar, type TableSchema } from '../../src/merge/index.ts';
import type { QueryAnswer, QueryRequest, Root } from '../../src/root/index.ts';
import type { Clock } from '../../src/transport/index.ts';
import { inProcessRoot } from './tree.ts';

export const FAULT_SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'g', type: 'string' },
    { name: 'x', type: 'int64' },
  ],
};

export const FAULT_QUERIES = [
  'SELECT count(*), count(x), sum(x), min(x), max(x), avg(x) FROM t',
  'SELECT count(*), sum(x) FROM t WHERE x > 0',
  'SELECT g, count(*), sum(x), min(x), max(x) FROM t GROUP BY g ORDER BY g',
  'SELECT g, x FROM t ORDER BY x DESC, g LIMIT 3',
  'SELECT min(g), max(g) FROM t WHERE x IS NOT NULL',
];

export const FAULTS: Record<string, Omit<FaultRule, 'shards'>> = {
  ok: {},
  slow: { latency: { kind: 'fixed', ms: 20 } },
  late: { latency: { kind: 'fixed', ms: 5000 } },
  error: { error: 1 },
  hang: { hang: 1 },
  crash: { crash: 1 },
  garble: { garble: 1 },
};

/** One random schedule. */
export interface FaultSchedule {
  readonly shards: readonly (readonly Scalar[])[][];
  readonly faults: readonly string[];
  readonly fanout: number;
  readonly sql: string;
  readonly policy: 'partial' | 'all' | 'min_coverage';
}

const row = fc.tuple(fc.option(fc.constantFrom('a', 'b', 'c'), { nil: null }), fc.option(fc.bigInt({ min: -50n, max: 50n }), { nil: null }));

/** Arbitrary schedules. */
export const scheduleArb: fc.Arbitrary<FaultSchedule> = fc.record({
  shards: fc.array(fc.array(row, { maxLength: 12 }), { minLength: 1, maxLength: 8 }),
  faults: fc.array(fc.constantFrom(...Object.keys(FAULTS)), { minLength: 8, maxLength: 8 }),
  fanout: fc.integer({ min: 2, max: 4 }),
  sql: fc.constantFrom(...FAULT_QUERIES),
  policy: fc.constantFrom('partial' as const, 'all' as const, 'min_coverage' as const),
}) as fc.Arbitrary<FaultSchedule>;

function contains(lo: Scalar | undefined, hi: Scalar | undefined, v: Scalar): boolean {
  if (v === null) return false;
  const okLo = lo === null || lo === undefined || compareSql('<=', lo, v) === true;
  const okHi = hi === null || hi === undefined || compareSql('>=', hi, v) === true;
  return okLo && okHi;
}

function same(a: Scalar, b: Scalar): boolean {
  if (typeof a === 'number' && typeof b === 'number') return Math.abs(a - b) <= 1e-9 * Math.max(1, Math.abs(b));
  return a === b;
}

/** Runs a query to completion in some time model: fake timers, or a virtual clock. */
export type RunQuery = (root: Root, body: QueryRequest) => Promise<QueryAnswer | Error>;

/**
 * Checks one schedule; returns its violations (empty when the contract holds). `clock` is the
 * trees' time and timers (default the system clock, which vitest's fake timers replace).
 */
export async function checkSchedule(s: FaultSchedule, runQuery: RunQuery, clock?: Clock): Promise<string[]> {
  const rows = s.shards.flat();
  const timeModel = clock === undefined ? {} : { clock };
  const truthTree = inProcessRoot(FAULT_SCHEMA, [rows as Scalar[][]], timeModel);
  const tree = inProcessRoot(FAULT_SCHEMA, s.shards as Scalar[][][], {
    ...timeModel,
    fanout: s.fanout,
    wrap: (leaf) => withFaults(leaf.handler, leaf.shards, { seed: 1, rules: [{ shards: leaf.shards, ...FAULTS[s.faults[leaf.shards[0]!]!]! }] }, clock),
  });
  const truth = await runQuery(truthTree.root, { sql: s.sql, deadline_ms: 60_000 });
  if (truth instanceof Error) return [`the fault-free tree failed: ${truth.message}`];
  const body: QueryRequest = s.policy === 'min_coverage' ? { sql: s.sql, deadline_ms: 1000, min_coverage: 0.5 } : { sql: s.sql, deadline_ms: 1000, policy: s.policy };
  const a = await runQuery(tree.root, body);
  const problems: string[] = [];
  if (a instanceof Error) {
    if (!isCanopyError(a) || a.code !== 'CANOPY_ERR_NO_COVERAGE') problems.push(`failed with ${isCanopyError(a) ? a.code : a.message}, not NO_COVERAGE`);
    return problems;
  }
  const seen = a.provenance.map((p) => p.shard).sort((x, y) => x - y);
  if (seen.join(',') !== s.shards.map((_, i) => i).join(',')) problems.push(`provenance lists shards ${seen.join(',')}`);
  const c = a.coverage;
  if (c.answered + c.failed + c.omitted + c.pruned !== s.shards.length) problems.push(`coverage ${JSON.stringify(c)} does not add up to ${s.shards.length}`);
  if (a.label === 'exact') {
    if (a.rows.length !== truth.rows.length) problems.push(`exact answer has ${a.rows.length} rows, the truth ${truth.rows.length}`);
    a.rows.forEach((r, i) => r.forEach((v, j) => {
      if (!same(v, truth.rows[i]?.[j] ?? null)) problems.push(`exact cell [${i}][${j}] = ${String(v)}, truth ${String(truth.rows[i]?.[j])}`);
    }));
    return problems;
  }
  if (a.missing.length === 0) problems.push(`labelled ${a.label} with nothing missing`);
  const groupBy = s.sql.includes('GROUP BY');
  const isRows = !s.sql.includes('count') && !s.sql.includes('min(');
  if (isRows) return problems;
  a.rows.forEach((r, i) => {
    const t = groupBy ? truth.rows.find((tr) => tr[0] === r[0]) : truth.rows[0];
    if (t === undefined) {
      problems.push(`row ${i} (${String(r[0])}) is not in the truth`);
      return;
    }
    r.forEach((v, j) => {
      const cell = a.cells?.[i]?.[j] ?? null;
      const tv = t[j]!;
      if (cell === null && !same(v, tv)) problems.push(`cell [${i}][${j}] unlabelled ${String(v)}, truth ${String(tv)}`);
      else if (cell !== null && cell.label === 'bounded' && !contains(cell.lo, cell.hi, tv)) problems.push(`cell [${i}][${j}] [${String(cell.lo)}, ${String(cell.hi)}] misses ${String(tv)}`);
    });
  });
  return problems;
}
