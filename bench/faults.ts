/**
 * `npm run bench -- faults`: label soundness at scale. The fault-schedule property of
 * `test/faults-property.test.ts` (random tree shapes and data, one fault per shard: delays,
 * replies after the deadline, errors, hangs, crashes, garbled replies; the three completion
 * policies) over 10,000 random schedules (`--quick`: 200), each query run on the simulated
 * virtual clock (src/sim `VirtualClock`, given to every node: the real root, gather and leaves, deadlines
 * in virtual time). Reports the count of schedules and of violations (the target is 0), with
 * the first few violations and their seeds for replay.
 */
import fc from 'fast-check';
import { VirtualClock } from '../src/sim/index.ts';
import { checkSchedule, type RunQuery } from '../test/helpers/fault-schedules.ts';
import { scheduleArb } from '../test/helpers/fault-schedules.ts';
import { fmtMs, round3, type BenchModule, type BenchOptions, type BenchReport } from './common.ts';

const SEED = 13;

/** One virtual clock per schedule: its trees get it, and each query runs on it. */
function virtual(): { clock: VirtualClock; run: RunQuery } {
  const clock = new VirtualClock();
  return { clock, run: async (root, body) => clock.run(() => root.query(body, new AbortController().signal).catch((e: unknown) => e as Error)) };
}

async function run(opts: BenchOptions): Promise<BenchReport> {
  if (opts.real === true) return (await import('./faults-real.ts')).runReal(opts);
  const n = opts.quick ? 200 : 10_000;
  const t0 = performance.now();
  const schedules = fc.sample(scheduleArb, { numRuns: n, seed: SEED });
  const violations: { index: number; problems: string[]; schedule: unknown }[] = [];
  const byPolicy: Record<string, number> = {};
  const byFault: Record<string, number> = {};
  for (let i = 0; i < schedules.length; i++) {
    const s = schedules[i]!;
    byPolicy[s.policy] = (byPolicy[s.policy] ?? 0) + 1;
    for (const f of s.faults.slice(0, s.shards.length)) byFault[f] = (byFault[f] ?? 0) + 1;
    let problems: string[];
    try {
      const v = virtual();
      problems = await checkSchedule(s, v.run, v.clock);
    } catch (e) {
      problems = [`threw: ${(e as Error).message}`];
    }
    if (problems.length > 0) violations.push({ index: i, problems, schedule: s });
    if ((i + 1) % 1000 === 0) console.error(`faults: ${i + 1}/${n} schedules, ${violations.length} violations`);
  }
  const ms = performance.now() - t0;
  const data = { schedules: n, seed: SEED, violations: violations.length, firstViolations: violations.slice(0, 5).map((v) => ({ index: v.index, problems: v.problems })), byPolicy, shardFaults: byFault, wallMs: round3(ms) };
  const md = [
    '## faults: the fault-schedule property at scale',
    '',
    `${n} random schedules (fast-check seed ${SEED}; tree shapes of 1-8 shards at fan-out 2-4, one fault per shard, the three policies) on the virtual clock: **${violations.length} violations** in ${fmtMs(ms)} ms of wall time.`,
    '',
    `Policies: ${JSON.stringify(byPolicy)}. Shard faults drawn: ${JSON.stringify(byFault)}.`,
    ...(violations.length === 0 ? [] : ['', 'First violations:', ...violations.slice(0, 5).map((v) => `- schedule ${v.index}: ${v.problems.join('; ')}`)]),
    '',
  ].join('\n');
  return { name: 'faults', data, markdown: md, ok: violations.length === 0 };
}

export const faults: BenchModule = { description: 'the fault-schedule label property over 10,000 random schedules on the virtual clock (--real: 45 schedules x 10 queries on the real multi-process tree)', run };
