import fc from 'fast-check';
import { Histogram, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { LATENCY_BUCKETS, RequestHistogram } from '../src/transport/metrics.ts';

/** Both histograms over the same observations, each on its own registry with the same default labels. */
function both(labelled: boolean): { ours: RequestHistogram<'node' | 'outcome'> | RequestHistogram; theirs: Histogram<string>; text: () => Promise<[string, string]>; json: () => Promise<[unknown, unknown]> } {
  const a = new Registry();
  const b = new Registry();
  for (const r of [a, b]) r.setDefaultLabels({ process: 'p', role: 'leaf' });
  const cfg = { name: 'canopy_test_seconds', help: 'test histogram', buckets: LATENCY_BUCKETS, ...(labelled ? { labelNames: ['node', 'outcome'] as const } : {}) };
  const ours = labelled ? new RequestHistogram<'node' | 'outcome'>({ ...cfg, labelNames: ['node', 'outcome'], registers: [a] }) : new RequestHistogram({ ...cfg, registers: [a] });
  const theirs = new Histogram({ ...cfg, labelNames: labelled ? ['node', 'outcome'] : [], registers: [b] });
  return { ours, theirs, text: async () => [await a.metrics(), await b.metrics()], json: async () => [await a.getMetricsAsJSON(), await b.getMetricsAsJSON()] };
}

describe('RequestHistogram', () => {
  it('renders as prom-client renders a Histogram of the same observations (labelled)', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(fc.record({ node: fc.constantFrom('leaf-0', 'leaf-1', 'agg-2'), outcome: fc.constantFrom('ok', 'cancelled', 'error'), v: fc.oneof(fc.double({ min: 0, max: 60, noNaN: true }), fc.constantFrom(...LATENCY_BUCKETS, 0)) }), { maxLength: 60 }),
        async (obs) => {
          const h = both(true);
          for (const o of obs) {
            (h.ours as RequestHistogram<'node' | 'outcome'>).observe({ node: o.node, outcome: o.outcome }, o.v);
            h.theirs.observe({ node: o.node, outcome: o.outcome }, o.v);
          }
          const [x, y] = await h.text();
          expect(x).toBe(y);
          const [jx, jy] = await h.json();
          expect(jx).toEqual(jy);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('renders as prom-client does without labels, and forgets on reset', async () => {
    const h = both(false);
    for (const v of [1, 3, 7, 50, 250, 0.5]) {
      (h.ours as RequestHistogram).observe(v);
      h.theirs.observe(v);
    }
    let [x, y] = await h.text();
    expect(x).toBe(y);
    expect(x).toContain('canopy_test_seconds_count{process="p",role="leaf"} 6');
    h.ours.reset();
    h.theirs.reset();
    [x, y] = await h.text();
    expect(x).toBe(y);
  });

  it('ignores a value that is not a finite number', async () => {
    const h = both(true);
    const ours = h.ours as RequestHistogram<'node' | 'outcome'>;
    ours.observe({ node: 'n', outcome: 'ok' }, Number.NaN);
    ours.observe({ node: 'n', outcome: 'ok' }, 0.002);
    const [x] = await h.text();
    expect(x).toContain('canopy_test_seconds_count{process="p",role="leaf",node="n",outcome="ok"} 1');
    expect(x).toContain('canopy_test_seconds_bucket{le="0.0025",process="p",role="leaf",node="n",outcome="ok"} 1');
    expect(x).toContain('canopy_test_seconds_bucket{le="0.001",process="p",role="leaf",node="n",outcome="ok"} 0');
  });
});
