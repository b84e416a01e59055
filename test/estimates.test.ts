/**
 * Progressive estimates (src/merge/estimate.ts): on a partial answer over hash-partitioned
 * shards, COUNT, SUM and AVG cells carry `estimate: {value, lo, hi, confidence}`, equal to
 * the ratio estimator computed here independently from the raw rows, clamped into the
 * guaranteed interval; the same in progressive snapshots; none (with the reason in
 * `estimate_note`) for range-partitioned data, shards pruned by the WHERE clause, group
 * top-k, failures that may depend on the data; none on exact answers. The moments partial
 * travels through Arrow frames, and a garbled one is refused.
 */
import jStat from 'jstat';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { seededRandom, withFaults, type FaultPlan, type LeafNode } from '../src/leaf/index.ts';
import {
  ESTIMATE_CONFIDENCE,
  compareSql,
  decodeFrame,
  encodeFrame,
  layoutOf,
  planEstimates,
  type Cell,
  type ColumnarPartial,
  type PartialSpec,
  type PartitionSpec,
  type Scalar,
  type ScanPlan,
  type TableSchema,
} from '../src/merge/index.ts';
import { answerFromArrow, formatSummary, formatTable } from '../src/cli/query.ts';
import { answerToJSON, planQuery, type QueryAnswer } from '../src/root/index.ts';
import { answerToArrow } from '../src/root/respond.ts';
import { catalogFromShards, shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { buildTree } from '../src/root/index.ts';
import { buildNodeApp, httpChild } from '../src/transport/index.ts';
import { inProcessRoot } from './helpers/tree.ts';

const schema: TableSchema = {
  name: 't',
  columns: [
    { name: 'g', type: 'string' },
    { name: 'x', type: 'int64' },
    { name: 'day', type: 'int64' },
  ],
};

const N = 20;
/** 20 shards of 40-60 rows, rows placed at random (as a hash would); `day` is the shard id (so a WHERE on it prunes). */
const shards: Scalar[][][] = (() => {
  const r = seededRandom(7);
  return Array.from({ length: N }, (_, s) =>
    Array.from({ length: 40 + Math.floor(r() * 21) }, () => [['a', 'b', 'c', 'd'][Math.floor(r() * r() * 4)]!, BigInt(Math.floor(r() * 100) - 20), BigInt(s)]),
  );
})();

const HASH: PartitionSpec = { kind: 'hash' };
const SQL = 'SELECT g, count(*) AS n, sum(x) AS s, avg(x) AS a, min(x) AS lo FROM t GROUP BY g ORDER BY g';

/** Leaves of the listed shards fail as a crash would (unreachable: missing at random). */
function crash(ids: readonly number[], fault: 'crash' | 'error' = 'crash') {
  const plan: FaultPlan = { rules: [{ shards: [...ids], [fault]: 1 }] };
  return (leaf: LeafNode) => (leaf.shards.some((s) => ids.includes(s)) ? withFaults(leaf.handler, leaf.shards, plan) : leaf.handler);
}

/** t quantiles at 0.975 (tables): df -> t. */
const T975: Readonly<Record<number, number>> = { 9: 2.262157158, 14: 2.144786688 };

/** [value, distance below, distance above] of one estimate. */
type Want = [number, number, number];

/** Solves g(T) = x for Hall's g(T) = T + aT²/3 + a²T³/27 + a/6 (increasing) by bisection. */
function hallInverse(a: number, x: number): number {
  const g = (t: number) => t + (a * t * t) / 3 + (a * a * t ** 3) / 27 + a / 6;
  let lo = -1e6;
  let hi = 1e6;
  for (let i = 0; i < 200; i++) {
    const mid = (lo + hi) / 2;
    if (g(mid) < x) lo = mid;
    else hi = mid;
  }
  return (lo + hi) / 2;
}

/**
 * The row-level interval of the mean of `v`, a simple random sample of a population with
 * sampling fraction `fm`: Hall's skewness-corrected t at the Satterthwaite degrees of freedom
 * from the sample kurtosis (rounded, as quantiles are looked up by whole df). Central moments
 * straight from the values. Returns [mean, below, above, variance, df].
 */
function rowLevel(v: number[], fm: number): [number, number, number, number, number] {
  const m = v.length;
  const mean = v.reduce((a, b) => a + b, 0) / m;
  const mu = (k: number) => v.reduce((a, x) => a + (x - mean) ** k, 0) / m;
  const [mu2, mu3, mu4] = [mu(2), mu(3), mu(4)];
  const variance = ((1 - fm) * (mu2 * m)) / (m - 1) / m;
  const df = Math.round(Math.min(m - 1, Math.max(1, 2 / (2 / (m - 1) + (mu4 / mu2 ** 2 - 3) / m))));
  const t = jStat.studentt.inv(0.975, df);
  const a = mu3 / mu2 ** 1.5 / Math.sqrt(m);
  const se = Math.sqrt(variance);
  return [mean, Math.max(0, se * hallInverse(a, t)), Math.max(0, -se * hallInverse(a, -t)), variance, df];
}

/**
 * The estimate of one group's COUNT / SUM / AVG from the raw rows of the answered shards,
 * written out from the textbooks without any of canopy's code: the ratio estimator (Cochran
 * ch. 6) with its shard-level t interval, and the row-level interval of the rows of the
 * answered shards as a simple random sample of the table's (Hall-corrected t). COUNT takes
 * the row-level one unless the shard-level variance exceeds it beyond the 95 % F quantile;
 * SUM and AVG take the wider of the two on each side.
 */
function expected(answered: readonly number[], group: string): { n: Want; s: Want; a: Want } {
  const x = answered.map((id) => shards[id]!.length);
  const rowsOf = (id: number) => shards[id]!.filter((r) => r[0] === group);
  const c = answered.map((id) => rowsOf(id).length);
  const sm = answered.map((id) => rowsOf(id).reduce((a, r) => a + Number(r[1] as bigint), 0));
  const n = answered.length;
  const X = shards.reduce((a, s) => a + s.length, 0);
  const f = n / N;
  const t = T975[n - 1]!;
  const sum = (v: number[]) => v.reduce((a, b) => a + b, 0);
  const xbar = sum(x) / n;
  const m = sum(x);
  const fm = m / X;
  // Every row of the answered shards, as the group's value: 1 / x in the group, 0 outside.
  const all = answered.flatMap((id) => shards[id]!);
  const inGroup = all.filter((r) => r[0] === group).map((r) => Number(r[1] as bigint));
  const widest = (value: number, row: [number, number], half: number): Want => [value, Math.max(row[0], half), Math.max(row[1], half)];
  const total = (y: number[], v: number[], isCount: boolean): Want => {
    const r = sum(y) / sum(x);
    const s2 = sum(y.map((yi, i) => (yi - r * x[i]!) ** 2)) / (n - 1);
    const shardVar = (X / N / xbar) ** 2 * N * N * (1 - f) * (s2 / n);
    const value = Math.round(r * X);
    const [, below, above, rowVar, df] = rowLevel(v, fm);
    const row: [number, number] = [X * below, X * above];
    const half = t * Math.sqrt(shardVar);
    if (isCount && shardVar / (X * X * rowVar) <= jStat.centralF.inv(0.95, n - 1, df)) return [value, row[0], row[1]];
    return widest(value, row, half);
  };
  const r = sum(sm) / sum(c);
  const d2 = sum(sm.map((si, i) => (si - r * c[i]!) ** 2)) / (n - 1);
  const va = ((1 - f) / (n * (sum(c) / n) ** 2)) * d2;
  const [, below, above] = rowLevel(inGroup, fm);
  return {
    n: total(c, all.map((row) => (row[0] === group ? 1 : 0)), true),
    s: total(sm, all.map((row) => (row[0] === group ? Number(row[1] as bigint) : 0)), false),
    a: widest(r, [below, above], t * Math.sqrt(va)),
  };
}

function inside(v: number, cell: Cell): boolean {
  return (cell.lo == null || compareSql('<=', cell.lo, v) === true) && (cell.hi == null || compareSql('>=', cell.hi, v) === true);
}

/** Checks shape and clamping of every estimate of an answer; returns how many there were. */
function checkEstimates(a: QueryAnswer): number {
  let count = 0;
  const json = answerToJSON(a) as { cells: ({ estimate?: Record<string, unknown> } | null)[][] };
  a.rows.forEach((row, i) => {
    row.forEach((_, j) => {
      const cell = a.cells?.[i]?.[j] ?? null;
      const est = cell?.estimate;
      const name = a.columns[j]!.name;
      if (name === 'lo' || name === 'g') expect(est).toBeUndefined();
      if (cell === null || est === undefined) return;
      count++;
      expect(Object.keys(json.cells[i]![j]!.estimate!).sort()).toEqual(['confidence', 'hi', 'lo', 'value']);
      expect(est.confidence).toBe(ESTIMATE_CONFIDENCE);
      expect(est.lo).toBeLessThanOrEqual(est.value);
      expect(est.value).toBeLessThanOrEqual(est.hi);
      // Clamped into the guarantee.
      expect(inside(est.lo, cell) && inside(est.hi, cell) && inside(est.value, cell)).toBe(true);
    });
  });
  return count;
}

afterEach(() => {
  vi.useRealTimers();
});

describe('estimates on a partial answer (hash-partitioned shards)', () => {
  it('COUNT, SUM and AVG cells carry the ratio estimate with its 95 % interval, clamped into the guarantee', async () => {
    const lost = [0, 2, 4, 6, 8, 11, 13, 15, 17, 19];
    const answered = [...Array(N).keys()].filter((s) => !lost.includes(s));
    const { root } = inProcessRoot(schema, shards, { fanout: 4, partition: HASH, wrap: crash(lost) });
    const a = await root.query({ sql: SQL }, new AbortController().signal);
    expect(a.label).not.toBe('exact');
    expect(a.coverage.answered).toBe(10);
    expect(checkEstimates(a)).toBe(a.rows.length * 3);
    for (const [i, row] of a.rows.entries()) {
      const want = expected(answered, row[0] as string);
      const cells = a.cells![i]!;
      for (const [j, key] of [[1, 'n'], [2, 's'], [3, 'a']] as const) {
        const est = cells[j]!.estimate!;
        const [value, below, above] = want[key];
        const g = cells[j]!;
        const clamp = (v: number) => Math.min(Number(g.hi ?? Infinity), Math.max(Number(g.lo ?? -Infinity), v));
        expect(est.value).toBeCloseTo(clamp(value), 6);
        if (key === 'a') {
          expect(est.lo).toBeCloseTo(clamp(value - below), 6);
          expect(est.hi).toBeCloseTo(clamp(value + above), 6);
        } else {
          expect(est.lo).toBe(clamp(Math.floor(value - below)));
          expect(est.hi).toBe(clamp(Math.ceil(value + above)));
        }
      }
    }
    // A narrow interval somewhere: the estimate is not just the guarantee again.
    const c = a.cells![0]![1]!;
    expect(c.estimate!.hi - c.estimate!.lo).toBeLessThan(Number(c.hi) - Number(c.lo));
    // Groups no answered shard holds cannot be estimated, and the answer says so.
    expect(a.rowsComplete).toBe(false);
    expect(answerToJSON(a).estimate_note).toMatch(/groups seen in no answered shard/);
    // The Arrow answer carries the same cells (schema metadata) and note; the CLI prints both.
    const fromArrow = answerFromArrow(answerToArrow(a));
    expect(fromArrow.cells).toEqual(JSON.parse(JSON.stringify(answerToJSON(a).cells)));
    expect(fromArrow.estimate_note).toBe(a.estimateNote);
    const table = formatTable(fromArrow);
    const e = a.cells![0]![1]!.estimate!;
    expect(table).toContain(`≈ ${e.value} [${e.lo}, ${e.hi}] 95%`);
    expect(formatSummary(fromArrow)).toContain(`estimate: ${a.estimateNote!}`);
  });

  it('are in progressive snapshots with the right shape, and gone from the exact final answer', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const slow = [1, 3, 5, 7, 9, 12, 14];
    const plan: FaultPlan = { rules: [{ shards: slow, latency: { kind: 'fixed', ms: 1000 } }] };
    const { root } = inProcessRoot(schema, shards, {
      fanout: 4,
      partition: HASH,
      wrap: (leaf) => (leaf.shards.some((s) => slow.includes(s)) ? withFaults(leaf.handler, leaf.shards, plan) : leaf.handler),
    });
    const snaps: QueryAnswer[] = [];
    const pending = root.query({ sql: SQL }, new AbortController().signal, (s) => snaps.push(s), 10);
    await vi.advanceTimersByTimeAsync(200);
    await vi.advanceTimersByTimeAsync(2000);
    const final = await pending;
    const partial = snaps.filter((s) => s.coverage.answered >= 2 && s.coverage.answered < N);
    expect(partial.length).toBeGreaterThan(0);
    for (const s of partial) {
      expect(s.final).toBe(false);
      expect(checkEstimates(s)).toBeGreaterThan(0);
    }
    expect(final.label).toBe('exact');
    expect(final.cells).toBeNull();
    expect(answerToJSON(final).estimate_note).toBeUndefined();
  });
});

describe('group top-k', () => {
  it('estimates the groups whose states are complete over the answered shards, and only those', async () => {
    // k' = shard_size 1: each node keeps its best group; with the bigger group 'a' everywhere
    // first, 'a' is complete, any other group that makes the answer is truncated somewhere.
    const sql = 'SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g ORDER BY n DESC LIMIT 2';
    const lost = [0, 2, 4, 6, 8, 11, 13, 15, 17, 19];
    const { root } = inProcessRoot(schema, shards, { fanout: 4, partition: HASH, wrap: crash(lost) });
    const a = await root.query({ sql, shard_size: 2 }, new AbortController().signal);
    const { root: full } = inProcessRoot(schema, shards, { fanout: 4, partition: HASH, wrap: crash(lost) });
    const untruncated = await full.query({ sql: 'SELECT g, count(*) AS n, sum(x) AS s FROM t GROUP BY g ORDER BY n DESC' }, new AbortController().signal);
    expect(a.rows[0]![0]).toBe(untruncated.rows[0]![0]);
    checkEstimates(a);
    // The top group is complete: its estimate is the one the untruncated query gives.
    expect(a.cells![0]![1]!.estimate).toEqual(untruncated.cells![0]![1]!.estimate);
    expect(a.cells![0]![2]!.estimate).toEqual(untruncated.cells![0]![2]!.estimate);
    const estimated = a.rows.map((_, i) => a.cells![i]![1]!.estimate !== undefined);
    if (estimated.includes(false)) expect(a.estimateNote).toMatch(/top-k truncation left incomplete/);
  });

  it('a group some node truncated gets no estimate', async () => {
    // 'a' leads everywhere; 'b' is second in even shards, third (after 'c') in odd ones. With
    // shard_size 2 every node keeps 'a' and drops 'b' or 'c' somewhere: only 'a' is complete.
    const rows = (s: number): Scalar[][] =>
      (['a', 'a', 'a', 'a', 'a', 'a', 'b', 'b', 'b', 'c', 'c'] as const).map((g, i) => [s % 2 === 1 && g !== 'a' ? (g === 'b' ? 'c' : 'b') : g, BigInt(i), BigInt(s)]);
    const data = Array.from({ length: 12 }, (_, s) => rows(s));
    const { root } = inProcessRoot(schema, data, { fanout: 4, partition: HASH, wrap: crash([0, 5]) });
    const a = await root.query({ sql: 'SELECT g, count(*) AS n FROM t GROUP BY g ORDER BY n DESC LIMIT 2', shard_size: 2 }, new AbortController().signal);
    expect(a.rows[0]![0]).toBe('a');
    checkEstimates(a);
    expect(a.cells![0]![1]!.estimate).toBeDefined();
    expect(a.cells![1]![1]!.estimate).toBeUndefined();
    expect(a.estimateNote).toMatch(/top-k truncation left incomplete/);
  });
});

describe('aggregates left out of the estimates beside estimated ones', () => {
  // SUM over an expression gets no moments (the leaf's squares read a column), COUNT of a
  // column does: the partial answer estimates the COUNT cells only, in either column order
  // (it once failed with CANOPY_ERR_INTERNAL "moments pair ... was not planned").
  for (const sql of [
    'SELECT g, sum(CASE WHEN x > 0 THEN 1 ELSE 0 END) AS p, count(x) AS c FROM t GROUP BY g ORDER BY g',
    'SELECT g, count(x) AS c, sum(x * 2) AS p, sum(x) FILTER (WHERE x > 3) AS f FROM t GROUP BY g ORDER BY g',
  ]) {
    it(sql, async () => {
      const { root } = inProcessRoot(schema, shards, { fanout: 4, partition: HASH, wrap: crash([0, 9, 17]) });
      const a = await root.query({ sql }, new AbortController().signal);
      expect(a.label).not.toBe('exact');
      const names = a.columns.map((c) => c.name);
      let estimated = 0;
      for (const row of a.cells!) {
        row.forEach((cell, j) => {
          if (names[j] === 'c') {
            expect(cell?.estimate).toBeDefined();
            estimated++;
          } else expect(cell?.estimate).toBeUndefined();
        });
      }
      expect(estimated).toBe(4);
      expect(a.estimateNote).toMatch(/over an expression or with FILTER have no estimate/);
    });
  }
});

describe('no estimate where it would not be honest', () => {
  async function noEstimate(opts: { partition: PartitionSpec; sql?: string; fault?: 'crash' | 'error' }, note: RegExp): Promise<QueryAnswer> {
    const { root } = inProcessRoot(schema, shards, { fanout: 4, partition: opts.partition, wrap: crash([0, 9, 17], opts.fault) });
    const a = await root.query({ sql: opts.sql ?? SQL }, new AbortController().signal);
    expect(a.label).not.toBe('exact');
    expect(a.cells!.flat().filter((c) => c !== null).length).toBeGreaterThan(0);
    for (const c of a.cells!.flat()) expect(c?.estimate).toBeUndefined();
    expect(a.estimateNote).toMatch(note);
    expect(answerToJSON(a).estimate_note).toBe(a.estimateNote);
    return a;
  }

  it('range-partitioned data', async () => {
    await noEstimate({ partition: { kind: 'range', column: 'day' } }, /range-partitioned on day/);
  });

  it('file-partitioned data', async () => {
    await noEstimate({ partition: { kind: 'file' } }, /files, not hash-partitioned/);
  });

  it('shards pruned by the WHERE clause', async () => {
    const a = await noEstimate({ partition: HASH, sql: 'SELECT g, count(*) AS n, sum(x) AS s FROM t WHERE day >= 5 GROUP BY g' }, /5 shard\(s\) were pruned/);
    expect(a.coverage.pruned).toBe(5);
  });

  it('a failure that may depend on the data', async () => {
    await noEstimate({ partition: HASH, fault: 'error' }, /failed with CANOPY_ERR_INTERNAL/);
  });


  it('plans the moments partial only when honest', () => {
    const schemas = new Map([[schema.name, schema]]);
    const plan = planQuery(SQL, schemas);
    const catalog = { table: schema, partitioning: HASH, shards: [] };
    const est = planEstimates(plan, catalog, 0);
    expect(est.note).toBeNull();
    const moments = est.plan.scan.partials.slice(plan.scan.partials.length);
    expect(moments.every((m) => m.kind === 'moments')).toBe(true);
    // The other partials keep their indexes (the moments come after them).
    expect(est.plan.scan.partials.slice(0, plan.scan.partials.length)).toEqual(plan.scan.partials);
    expect(moments.filter((m) => m.pair !== undefined).length).toBe(6);
    // Row-level powers of SUM(x), shared by sum(x) and avg(x); COUNT needs none (v = 1).
    const sum = plan.scan.partials.findIndex((p) => p.kind === 'sum');
    expect(moments.filter((m) => m.power !== undefined).map((m) => m.power)).toEqual([2, 3, 4].map((exp) => ({ of: sum, exp })));
    expect(planEstimates(plan, { ...catalog, partitioning: { kind: 'range', column: 'day' } }, 0).plan).toBe(plan);
    expect(planEstimates(plan, catalog, 1).plan).toBe(plan);
    expect(planEstimates(planQuery('SELECT g, min(x) FROM t GROUP BY g', schemas), catalog, 0).note).toMatch(/COUNT, SUM and AVG only/);
  });
});

describe('the moments partial on the wire', () => {
  const schemas = new Map([[schema.name, schema]]);
  const scan = planEstimates(planQuery('SELECT g, count(*), sum(x) FROM t GROUP BY g', schemas), { table: schema, partitioning: HASH, shards: [] }, 0).plan.scan;
  const layout = layoutOf(scan, schema);
  const nm = scan.partials.length - 2;
  const partial: ColumnarPartial = { type: 'columnar', size: 2, keys: [['a', 'b']], states: [[3, 4], [10n, -2n], ...Array.from({ length: nm }, (_, m) => (m === 0 ? new Float64Array([150, 0]) : [m * 1.5, -m])) ] };

  it('round-trips through an Arrow frame: one float64 sum per moments partial and group', () => {
    const frame = decodeFrame(layout, encodeFrame(layout, { partial, provenance: [], rowsScanned: 0 }));
    const p = frame.partial as ColumnarPartial;
    expect(nm).toBe(2 + 2 + 3);
    for (let m = 0; m < nm; m++) expect([...p.states[2 + m]!]).toEqual(m === 0 ? [150, 0] : [m * 1.5, -m]);
  });

  it('carries sums that are not finite (a float SUM over ±Infinity), which then get no estimate', () => {
    const kind = layout.kinds[2]!;
    for (const st of [Infinity, NaN, -Infinity, -0]) expect(kind.equals(kind.decode(kind.encode(st)), st)).toBe(true);
  });

  it('refuses a garbled state and a bad spec', () => {
    expect(() => layout.kinds[2]!.decode(new Uint8Array(8))).toThrow(/moments/);
    expect(() => layout.kinds[2]!.decode('1')).toThrow(/moments/);
    const last = scan.partials.slice(0, -1);
    const bad = (spec: object): ScanPlan => ({ ...scan, partials: [...last, { kind: 'moments', arg: null, ...spec } as PartialSpec] });
    expect(() => layoutOf(bad({ pair: [0, 7] }), schema)).toThrow(/moments pair \[0,7\] must name two COUNT or SUM partials/);
    expect(() => layoutOf(bad({ pair: [0] }), schema)).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_BAD_REQUEST' }) as Error);
    expect(() => layoutOf(bad({}), schema)).toThrow(/exactly one of pair and power/);
    expect(() => layoutOf(bad({ pair: [0, 0], power: { of: 1, exp: 2 } }), schema)).toThrow(/exactly one of pair and power/);
    // Row-level powers only of SUM partials (partial 0 is the COUNT), exponents 2 to 4.
    expect(() => layoutOf(bad({ power: { of: 0, exp: 2 } }), schema)).toThrow(/moments power .* must name a SUM partial/);
    expect(() => layoutOf(bad({ power: { of: 1, exp: 5 } }), schema)).toThrow(/exponent 2, 3 or 4/);
    expect(() => layoutOf(bad({ power: { of: 1, exp: 4 } }), schema)).not.toThrow();
  });
});

describe('over HTTP', () => {
  it('the moments partial travels from leaves to the root: the same estimates as in-process', async () => {
    const lost = [3, 8, 14];
    const tables = shardsFromRows(schema, shards);
    const apps = tables.map((t, id) => buildNodeApp(createLeaf(`leaf-${id}`, [prepareShard(id, t, schema)]).handler));
    const live = apps.filter((_, id) => !lost.includes(id));
    const urls = await Promise.all(live.map((a) => a.listen({ port: 0, host: '127.0.0.1' })));
    // The lost shards' hosts are unreachable (nothing listens on port 1): missing at random.
    const children = [...Array(N).keys()].map((id) => httpChild(`leaf-${id}`, [id], lost.includes(id) ? 'http://127.0.0.1:1' : urls[live.indexOf(apps[id]!)]!));
    try {
      const { root } = buildTree({ table: schema.name, catalog: catalogFromShards(schema, tables, HASH), depth: 1, leaf: (node) => children[node.shards[0]!]! });
      const a = await root.query({ sql: SQL }, new AbortController().signal);
      expect(a.missing.map((m) => [m.shard, m.error?.code])).toEqual(lost.map((s) => [s, 'CANOPY_ERR_CHILD_UNREACHABLE']));
      expect(checkEstimates(a)).toBe(a.rows.length * 3);
      const { root: local } = inProcessRoot(schema, shards, { fanout: 4, partition: HASH, wrap: crash(lost) });
      const b = await local.query({ sql: SQL }, new AbortController().signal);
      expect(a.cells!.map((r) => r.map((c) => c?.estimate ?? null))).toEqual(b.cells!.map((r) => r.map((c) => c?.estimate ?? null)));
    } finally {
      await Promise.all(children.map((c) => c.destroy()));
      await Promise.all(live.map((a) => a.close()));
    }
  });
});
