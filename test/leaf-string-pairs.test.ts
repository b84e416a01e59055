/**
 * String expressions over two dictionary-encoded columns (src/leaf/expr.ts, pairByEntry:
 * `origin || '-' || destination` evaluated once per distinct pair of entries in a batch) and
 * GROUP BY over computed strings (src/leaf/groupby.ts, entryCodes: one lookup per entry, so
 * entries computing the same string, `upper('a')` and `upper('A')`, share a group). Property
 * tests against DuckDB over random strings (ASCII, accents, non-BMP, empty, NULL), shard cuts
 * and batch sizes: `||` (NULL when either side is), `concat` (skips NULL), two-column
 * `replace`, a CASE that leaves rows out (no evaluation there), aggregates over the result.
 * Thousands of distinct pairs grow the per-pair table shared by batches and queries
 * (PairIds, PairCodes past its cells) and the per-scan cache of group codes (EntryCodes, over
 * StrView.canon, which holds each string once: pairs computing one string share its code, and
 * a scan gives a canon's new entries new groups without a look-up); every leaf's frame goes
 * through the wire, where a repeated group is garbled.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { decodeFrame, encodeFrame, layoutOf, type Scalar, type TableSchema } from '../src/merge/index.ts';
import type { LeafNode } from '../src/leaf/index.ts';
import type { NodeHandler } from '../src/transport/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { diffResults, fromCanopy, fromDuck } from './helpers/compare.ts';
import { answerBody, cutShards, inProcessRoot } from './helpers/tree.ts';

const SCHEMA: TableSchema = {
  name: 't',
  columns: [
    { name: 'a', type: 'string' },
    { name: 'b', type: 'string' },
    { name: 'v', type: 'int64' },
  ],
};

/**
 * A leaf's frames through the wire (encoded and decoded as a parent reads them): a frame that
 * repeats a group (two codes for one computed string) is garbled there, where an in-process
 * merge would have summed the two silently.
 */
const viaWire = (leaf: LeafNode): NodeHandler =>
  async function* (req, signal) {
    const layout = layoutOf(req.plan, req.schema);
    for await (const f of leaf.handler(req, signal)) yield decodeFrame(layout, encodeFrame(layout, f));
  };

const QUERIES = [
  'SELECT a || b AS k, count(*) AS n FROM t GROUP BY k',
  "SELECT a || '-' || b AS k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
  "SELECT concat(a, '|', b) AS k, count(*) AS n FROM t GROUP BY k",
  "SELECT concat('<', a, NULL, b, '>') AS k, count(*) AS n FROM t GROUP BY k",
  "SELECT '[' || b || '|' || a || ']' AS k, count(*) AS n FROM t GROUP BY k",
  "SELECT replace(a, b, 'x') AS k, count(*) AS n FROM t GROUP BY k",
  'SELECT upper(a) AS k, count(*) AS n FROM t GROUP BY k',
  'SELECT lower(a) || upper(b) AS k, min(v) AS m FROM t GROUP BY k',
  'SELECT CASE WHEN v > 3 THEN a || b END AS k, count(*) AS n FROM t GROUP BY k',
  "SELECT b || a AS k, count(*) AS n FROM t WHERE v % 2 = 0 GROUP BY k",
  'SELECT max(a || b) AS mx, min(b || a) AS mn, count(DISTINCT a || b) AS d FROM t',
  "SELECT a || b AS k, count(*) AS n FROM t GROUP BY k ORDER BY n DESC, k LIMIT 3",
];

describe('string expressions over two dictionary columns equal DuckDB', () => {
  const duck = useDuckDB();
  const str = fc.oneof(
    { weight: 1, arbitrary: fc.constant<string | null>(null) },
    { weight: 8, arbitrary: fc.array(fc.constantFrom('a', 'A', 'b', 'é', 'É', '𝄞', '', 'ab', ' '), { maxLength: 3 }).map((cs) => cs.join('')) },
  );

  it('random strings, shard cuts, batch sizes', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.tuple(str, str, fc.integer({ min: 0, max: 9 })), { minLength: 1, maxLength: 300 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.oneof(fc.integer({ min: 1, max: 16 }), fc.integer({ min: 16, max: 200 })),
        fc.constantFrom(...QUERIES),
        async (data, cuts, batchRows, sql) => {
          const rows: Scalar[][] = data.map(([a, b, v]) => [a, b, BigInt(v)]);
          const shards = cutShards(rows, cuts);
          const { root } = inProcessRoot(SCHEMA, shards, { fanout: 3, batchRows, wrap: viaWire });
          const lit = (s: Scalar): string => (s === null ? 'NULL' : `'${String(s).replaceAll("'", "''")}'`);
          await duck().run('CREATE OR REPLACE TABLE t (a VARCHAR, b VARCHAR, v BIGINT)');
          await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(${lit(r[0]!)}, ${lit(r[1]!)}, ${r[2]})`).join(', ')}`);
          const body = await answerBody(root, sql);
          expect(body.label).toBe('exact');
          expect(diffResults(fromCanopy(body), fromDuck(await duck().runAndReadAll(sql)), { ordered: sql.includes('LIMIT') })).toEqual([]);
        },
      ),
      { numRuns: 200 },
    );
  });

  it('thousands of distinct pairs: the shared pair table grows, batches and repeated queries reuse it', async () => {
    await fc.assert(
      fc.asyncProperty(
        // Widths near powers of two (1023 entries: pair keys a multiple of 1024 apart) and others.
        fc.constantFrom(7, 300, 1023, 1500),
        fc.constantFrom(3, 40, 1023),
        fc.integer({ min: 1, max: 4000 }),
        fc.array(fc.nat(), { maxLength: 3 }),
        fc.constantFrom(64, 500, 4096),
        fc.integer({ min: 0, max: 1000 }),
        async (wa, wb, rowCount, cuts, batchRows, seed) => {
          // A deterministic spread of pairs (a few NULLs), so every batch meets new ones.
          const rows: Scalar[][] = [];
          for (let i = 0; i < rowCount; i++) {
            const x = (i * 7919 + seed) % (wa + 1);
            const y = (i * 104729 + 3 * seed) % (wb + 1);
            rows.push([x === wa ? null : `a${x}`, y === wb ? null : `b${y}`, BigInt(i % 10)]);
          }
          const shards = cutShards(rows, cuts);
          const { root } = inProcessRoot(SCHEMA, shards, { fanout: 3, batchRows, wrap: viaWire });
          await duck().run('CREATE OR REPLACE TABLE t (a VARCHAR, b VARCHAR, v BIGINT)');
          const lit = (s: Scalar): string => (s === null ? 'NULL' : `'${String(s)}'`);
          await duck().run(`INSERT INTO t VALUES ${rows.map((r) => `(${lit(r[0]!)}, ${lit(r[1]!)}, ${r[2]})`).join(', ')}`);
          const sqls = [
            "SELECT a || '-' || b AS k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
            "SELECT concat(a, b) AS k, count(*) AS n FROM t WHERE v < 5 GROUP BY k",
            "SELECT a || '-' || b AS k, count(*) AS n, sum(v) AS s FROM t GROUP BY k",
            "SELECT count(DISTINCT a || '-' || b) AS d, max(a || '-' || b) AS mx FROM t",
          ];
          for (const sql of sqls) {
            const body = await answerBody(root, sql);
            expect(body.label).toBe('exact');
            expect(diffResults(fromCanopy(body), fromDuck(await duck().runAndReadAll(sql)), { ordered: false })).toEqual([]);
          }
        },
      ),
      { numRuns: 25 },
    );
  });
});
