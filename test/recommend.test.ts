/**
 * `npm run recommend`: the capacity planner over the simulator. A small N keeps it to seconds;
 * the pick must be the lowest tail within the deadline among the rows it printed.
 */
import { describe, expect, it } from 'vitest';
import { runRecommendCli } from '../src/cli/recommend.ts';

function io(): { out: string[]; err: string[]; sink: { stdout(s: string): void; stderr(s: string): void } } {
  const out: string[] = [];
  const err: string[] = [];
  return { out, err, sink: { stdout: (s) => out.push(s), stderr: (s) => err.push(s) } };
}

describe('npm run recommend', () => {
  it('prints every layout and policy and picks the lowest p99 within the deadline', async () => {
    const b = io();
    expect(await runRecommendCli(['--n', '20', '--p50', '5', '--p99', '40', '--deadline', '80', '--groups', '2', '--json'], b.sink)).toBe(0);
    const r = JSON.parse(b.out.join('')) as { rows: { layout: string; policy: string; c: { p99: number | null; max: number; coverage: number; complete: number } }[]; pick: { layout: string; policy: string; c: { p99: number | null; max: number } }; withinDeadline: boolean };
    expect(r.rows.map((x) => `${x.layout} ${x.policy}`).sort()).toEqual(['10×N/10 all', '10×N/10 partial@80', 'flat all', 'flat partial@80']);
    const tail = (c: { p99: number | null; max: number }): number => c.p99 ?? c.max;
    const ok = r.rows.filter((x) => tail(x.c) <= 80 && x.c.coverage > 0);
    expect(r.withinDeadline).toBe(ok.length > 0);
    expect(ok.some((x) => x.layout === r.pick.layout && x.policy === r.pick.policy)).toBe(true);
    // Nothing within the deadline is more than 5% faster than the pick.
    for (const x of ok) expect(tail(x.c)).toBeGreaterThanOrEqual(tail(r.pick.c) / 1.05 - 1e-9);
  }, 60_000);

  it('refuses a bad flag with exit code 2 and the usage', async () => {
    const b = io();
    expect(await runRecommendCli(['--p50', '10', '--p99', '5'], b.sink)).toBe(2);
    expect(b.err.join('')).toContain('--p99 must be at least --p50');
    const c = io();
    expect(await runRecommendCli(['--n', 'many'], c.sink)).toBe(2);
    expect(c.err.join('')).toContain('usage: npm run recommend');
  });
});
