/**
 * Calibration of the simulator's CPU and byte costs on this machine, with the real code:
 * a frame of G groups (string key, COUNT state) and E provenance entries is encoded
 * (encodeFrame), decoded (decodeFrame) and merged (PartialAccumulator.add), which is what a
 * parent does with each child's answer. Fitted: cost = a + G·b + E·e.
 */
import { PartialAccumulator, decodeFrame, encodeFrame, layoutOf, type Frame, type ShardStatus } from '../merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../root/index.ts';
import type { CostModel } from './engine.ts';

/** Measured per-frame costs: receiving (decode + merge) and sending (encode). */
export interface CpuCalibration {
  /** Receiver: ms per frame with one group and one entry. */
  readonly frameMs: number;
  /** Receiver: µs per extra group. */
  readonly groupUs: number;
  /** Receiver: µs per extra provenance entry. */
  readonly entryUs: number;
  /** Sender (encode): ms per frame, µs per group, µs per entry. */
  readonly encodeFrameMs: number;
  readonly encodeGroupUs: number;
  readonly encodeEntryUs: number;
  readonly bytesPerFrame: number;
  readonly bytesPerGroup: number;
  readonly bytesPerEntry: number;
}

const schema = { name: 't', columns: [{ name: 'g', type: 'string' as const }] };

function frameOf(groups: number, entries: number): Frame {
  const keys = Array.from({ length: groups }, (_, i) => `key-${i}`);
  const provenance: ShardStatus[] = Array.from({ length: entries }, (_, i) => ({ shard: i, status: 'answered', path: `agg-${i % 10}/leaf-${i}`, rowsScanned: 30_000 }));
  return { partial: { type: 'columnar', size: groups, keys: [keys], states: [keys.map((_, i) => i + 1)] }, provenance, rowsScanned: 30_000 * entries };
}

/** Lower-quartile ms of `reps` runs of decode + merge (`ms`) and of encode (`encMs`) of one frame (after warm-up). */
function timeFrame(groups: number, entries: number, reps: number): { ms: number; encMs: number; bytes: number } {
  const plan = planQuery('SELECT g, count(*) FROM t GROUP BY g', new Map([['t', schema]]), DEFAULT_LIMITS).scan;
  const layout = layoutOf(plan, schema);
  const f = frameOf(groups, entries);
  const ms: number[] = [];
  const enc: number[] = [];
  let bytes = 0;
  for (let i = 0; i < reps + 3; i++) {
    const t0 = performance.now();
    const b = encodeFrame(layout, f);
    const t1 = performance.now();
    const d = decodeFrame(layout, b);
    const acc = new PartialAccumulator(layout);
    acc.add(d.partial);
    const t2 = performance.now();
    bytes = b.length;
    if (i < 3) continue;
    enc.push(t1 - t0);
    ms.push(t2 - t1);
  }
  const q1 = (x: number[]): number => x.sort((a, b) => a - b)[Math.floor(x.length / 4)]!;
  return { ms: q1(ms), encMs: q1(enc), bytes };
}

/**
 * Fits the per-frame, per-group and per-entry costs (lower quartile of the runs: this machine
 * is often shared, and the lower quartile is the least disturbed estimate of the work itself).
 */
export function calibrateCpu(quick: boolean): CpuCalibration {
  const reps = quick ? 15 : 40;
  const base = timeFrame(1, 1, reps * 4);
  const g = timeFrame(10_000, 1, reps);
  const e = timeFrame(1, 2_000, reps);
  return {
    frameMs: base.ms,
    groupUs: Math.max(0, ((g.ms - base.ms) * 1000) / 9_999),
    entryUs: Math.max(0, ((e.ms - base.ms) * 1000) / 1_999),
    encodeFrameMs: base.encMs,
    encodeGroupUs: Math.max(0, ((g.encMs - base.encMs) * 1000) / 9_999),
    encodeEntryUs: Math.max(0, ((e.encMs - base.encMs) * 1000) / 1_999),
    bytesPerFrame: base.bytes,
    bytesPerGroup: (g.bytes - base.bytes) / 9_999,
    bytesPerEntry: (e.bytes - base.bytes) / 1_999,
  };
}

/** The cost model with this calibration, a network hop and a root overhead. */
export function costModel(cal: CpuCalibration, hopMs: number, rootMs: number, httpFrameMs: number): CostModel {
  return {
    hopMs,
    rootMs,
    frameCpuMs: cal.frameMs + httpFrameMs,
    groupCpuUs: cal.groupUs,
    entryCpuUs: cal.entryUs,
    encodeFrameMs: cal.encodeFrameMs + httpFrameMs,
    encodeGroupUs: cal.encodeGroupUs,
    encodeEntryUs: cal.encodeEntryUs,
    bytesPerFrame: cal.bytesPerFrame,
    bytesPerGroup: cal.bytesPerGroup,
    bytesPerEntry: cal.bytesPerEntry,
  };
}
