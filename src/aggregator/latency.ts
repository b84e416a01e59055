/**
 * Latency tracking for tail control: a sliding window of two DDSketches (relative-error
 * quantiles, mergeable; Masson, Rim and Lee, VLDB 2019) and the query class used to key
 * latencies by plan shape. No timers: windows rotate lazily on the injected clock.
 */
import { DDSketch } from '@datadog/sketches-js';
import type { ScanPlan } from '../merge/index.ts';

/** Relative accuracy of every latency sketch (2%: a 10 ms quantile is within ±0.2 ms). */
const ACCURACY = 0.02;

/**
 * Latencies (ms) over the last one to two windows: samples go into the current sketch; when
 * a window has passed, the current one becomes the previous one and the oldest is dropped.
 * Quantiles are over both, so an estimate always rests on at least one full window.
 */
export class LatencyWindow {
  readonly windowMs: number;
  #cur = new DDSketch({ relativeAccuracy: ACCURACY });
  #prev: DDSketch | null = null;
  #start: number;
  /** Samples recorded since creation (cache keys). */
  #recorded = 0;
  /** Rotations and resets since creation (cache keys). */
  #epoch = 0;
  readonly #cache = new Map<number, { value: number | null; recorded: number; epoch: number; count: number }>();

  constructor(windowMs: number, now: number) {
    this.windowMs = windowMs;
    this.#start = now;
  }

  #rotate(now: number): void {
    const age = now - this.#start;
    if (age < this.windowMs) return;
    this.#prev = age >= 2 * this.windowMs ? null : this.#cur;
    this.#cur = new DDSketch({ relativeAccuracy: ACCURACY });
    this.#start = age >= 2 * this.windowMs ? now : this.#start + this.windowMs;
    this.#epoch++;
  }

  /** Records one latency in ms (negative values are clamped to 0). */
  record(ms: number, now: number): void {
    this.#rotate(now);
    this.#cur.accept(Math.max(0, ms));
    this.#recorded++;
  }

  /** Samples in the window. */
  count(now: number): number {
    this.#rotate(now);
    return this.#cur.count + (this.#prev?.count ?? 0);
  }

  /** Adds this window's samples to `target`. */
  mergeInto(target: DDSketch, now: number): void {
    this.#rotate(now);
    if (this.#cur.count > 0) target.merge(this.#cur);
    if (this.#prev !== null && this.#prev.count > 0) target.merge(this.#prev);
  }

  /**
   * The q-quantile (q in [0, 1]) in ms, or null when the window is empty. Cached: recomputed
   * after a rotation or once the samples added since exceed an eighth of the count (and 4),
   * so a steady stream of samples costs a sketch query every few requests, not every one.
   */
  quantile(q: number, now: number): number | null {
    this.#rotate(now);
    const c = this.#cache.get(q);
    if (c !== undefined && c.value !== null && c.epoch === this.#epoch && this.#recorded - c.recorded <= Math.max(4, c.count / 8)) return c.value;
    const count = this.#cur.count + (this.#prev?.count ?? 0);
    let value: number | null;
    if (count === 0) value = null;
    else if (this.#prev === null || this.#prev.count === 0) value = this.#cur.getValueAtQuantile(q);
    else value = mergedQuantiles([this], [q], now).values[0]!;
    this.#cache.set(q, { value, recorded: this.#recorded, epoch: this.#epoch, count });
    return value;
  }

  /** Forgets every sample (a replica back from probation starts afresh). */
  reset(now: number): void {
    this.#cur = new DDSketch({ relativeAccuracy: ACCURACY });
    this.#prev = null;
    this.#start = now;
    this.#epoch++;
  }
}

/** Quantiles over several windows merged (null values when they are all empty) and the sample count. */
export function mergedQuantiles(windows: readonly LatencyWindow[], qs: readonly number[], now: number): { values: (number | null)[]; count: number } {
  const s = new DDSketch({ relativeAccuracy: ACCURACY });
  for (const w of windows) w.mergeInto(s, now);
  return { values: qs.map((q) => (s.count === 0 ? null : s.getValueAtQuantile(q))), count: s.count };
}

/**
 * The class of a plan fragment for latency tracking: its shape without literal values
 * (row query or aggregate, group key kinds, partial kinds, filter present, top-k), so that a
 * cheap COUNT(*) and a wide GROUP BY get their own quantiles.
 */
export function queryClass(plan: ScanPlan): string {
  if (plan.rows !== null) return `rows:${plan.rows.columns.length}:${plan.rows.orderBy.length}:${plan.filter === null ? '' : 'f'}`;
  const keys = plan.groupBy.map((g) => (g.expr.kind === 'date_trunc' ? `t${g.expr.unit}` : g.type)).join(',');
  const parts = plan.partials.map((p) => p.kind).join(',');
  return `agg:${keys}:${parts}:${plan.filter === null ? '' : 'f'}${plan.topk === undefined ? '' : 'k'}`;
}
