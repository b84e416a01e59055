/**
 * The partial-answer contract under random tree shapes, data and fault schedules
 * (errors, hangs, crashes, garbled replies, replies after the deadline), on fake timers:
 * every shard appears exactly once in provenance; an answer labelled exact equals the
 * truth; every exact cell equals it and every bounded interval contains it.
 */
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { parseFaultPlan } from '../src/leaf/index.ts';
import type { QueryAnswer, Root } from '../src/root/index.ts';
import { checkSchedule, scheduleArb, type RunQuery } from './helpers/fault-schedules.ts';

async function run(root: Root, body: Parameters<RunQuery>[1]): Promise<QueryAnswer | Error> {
  const p = root.query(body, new AbortController().signal).catch((e: unknown) => e as Error);
  await vi.advanceTimersByTimeAsync(6000);
  return p;
}

describe('partial answers under faults', () => {
  beforeEach(() => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('every shard once; exact equals the truth; bounds hold (every policy)', async () => {
    await fc.assert(
      fc.asyncProperty(scheduleArb, async (schedule) => {
        expect(await checkSchedule(schedule, run)).toEqual([]);
      }),
      { numRuns: 200 },
    );
  });
});

describe('fault plan files', () => {
  it('accepts the README example and names an unknown key instead of injecting nothing', () => {
    const plan = parseFaultPlan({ seed: 7, rules: [{ shards: [13], hang: 1 }, { shards: [2, 3], error: 0.5, crash: 0.1, garble: 0.1 }, { shards: 'all', latency: { kind: 'straggler', p: 0.01, ms: 500 } }, { shards: 'all', latency: { kind: 'lognormal', medianMs: 5, sigma: 0.5 } }] });
    expect(plan.rules).toHaveLength(4);
    for (const [json, message] of [
      [{ rules: [{ shards: [13], foo: 1 }] }, "fault plan: rule 0: unknown key 'foo'; known: shards, zones, latency, error, hang, crash, garble"],
      [{ rules: [], sed: 1 }, "fault plan: plan: unknown key 'sed'; known: seed, rules"],
      [{ rules: [{ shards: 'all', latency: { kind: 'fixed', ms: 3, p: 1 } }] }, "fault plan: rule 0 latency: unknown key 'p'; known: kind, ms"],
    ] as const) {
      expect(() => parseFaultPlan(json)).toThrow(message);
    }
  });
});
