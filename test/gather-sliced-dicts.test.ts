/**
 * The gather merges a large columnar answer (over MERGE_CHECK_EVERY groups) block by block;
 * a decoded frame's Utf8 keys carry dictionary codes (src/merge/group-index.ts: KeyDict) and
 * each block keeps its slice of them. Merged answers of several children with two string keys,
 * decoded from real frame bytes and added in blocks, equal the reference merge of the partials
 * as built (random keys with NULLs and repeats across children, thousands of groups each).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { gather } from '../src/aggregator/gather.ts';
import { MERGE_CHECK_EVERY, PartialAccumulator, keyDictOf, layoutOf, partialsEqual, type ColumnarPartial, type Frame, type ScanPlan, type TableSchema } from '../src/merge/index.ts';
import { decodeFrame, encodeFrame } from '../src/merge/wire/index.ts';
import { inProcessChild } from '../src/transport/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'a', type: 'string' }, { name: 'b', type: 'string' }, { name: 'v', type: 'int64' }] };
const plan: ScanPlan = {
  table: 't',
  filter: null,
  groupBy: [
    { name: 'a', expr: { kind: 'col', name: 'a' }, type: 'string' },
    { name: 'b', expr: { kind: 'col', name: 'b' }, type: 'string' },
  ],
  partials: [{ kind: 'count_star', arg: null }, { kind: 'sum', arg: { kind: 'col', name: 'v' } }],
  rows: null,
  maxGroups: 1_000_000,
};

describe('sliced merge of dictionary-coded frames', () => {
  it('equals the reference merge of the partials as built', async () => {
    const layout = layoutOf(plan, schema);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.record({ seed: fc.integer({ min: 0, max: 1e6 }), size: fc.integer({ min: 1, max: 2 * MERGE_CHECK_EVERY + 100 }) }), { minLength: 1, maxLength: 4 }), async (specs) => {
        const parts: ColumnarPartial[] = specs.map(({ seed, size }) => {
          // size distinct (a, b) tuples: b runs over 0..79 (NULL for one), a over what is needed (NULL in two rows of the first 80).
          const a = Array.from({ length: size }, (_, i) => (i === 5 || i === 61 ? null : `a${Math.floor(i / 80) + (seed % 7)}`));
          const b = Array.from({ length: size }, (_, i) => (i % 80 === 3 ? null : `b${i % 80}`));
          return { type: 'columnar', size, keys: [a, b], states: [a.map((_, i) => 1 + ((i + seed) % 5)), a.map((_, i) => BigInt(i - seed))] };
        });
        const children = parts.map((p, c) =>
          inProcessChild(`leaf-${c}`, [c], async function* (): AsyncIterable<Frame> {
            const back = decodeFrame(layout, encodeFrame(layout, { partial: p, provenance: [{ shard: c, status: 'answered', path: `leaf-${c}` }], rowsScanned: p.size }));
            expect(keyDictOf((back.partial as ColumnarPartial).keys[0]!)).toBeDefined();
            yield back;
          }),
        );
        const r = await gather(children, { queryId: 'q', schema, plan, shards: parts.map((_, c) => c), budgetMs: 60_000 }, new AbortController().signal, { self: 'agg-0' });
        const ref = new PartialAccumulator(layout);
        for (const p of parts) ref.add(p);
        expect(partialsEqual(layout, r.partial, ref.result())).toBe(true);
      }),
      { numRuns: 25 },
    );
  });
});
