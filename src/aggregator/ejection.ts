/**
 * Outlier ejection (passive health checking, as in Envoy's outlier detection): per-replica
 * latency and failure tracking; a replica much slower than its peers, or failing too often,
 * goes on probation and only gets occasional probes until it proves healthy again.
 * Pure state and rules: clocks come in as arguments, no timers.
 */
import type { Child } from '../transport/index.ts';
import { LatencyWindow, mergedQuantiles } from './latency.ts';

/** One replica of a shard: a child serving the same shards as its peers, and its zone. */
export interface Replica {
  readonly child: Child;
  /** Failure domain (availability zone, rack), e.g. `a`. */
  readonly zone: string;
}

/** Outlier ejection settings; every field has a default ({@link EJECTION_DEFAULTS}). */
export interface EjectionOptions {
  /** Eject when the replica's p50 exceeds this many times the median p50 of its peers (default 3). */
  readonly latencyFactor?: number;
  /** ... and exceeds it by at least this many ms, so sub-millisecond jitter never ejects (default 2). */
  readonly minGapMs?: number;
  /** Latency samples a replica and a peer need before they are compared (default 20). */
  readonly minSamples?: number;
  /**
   * Eject when this share of the replica's recent requests failed (errors, deadlines, and
   * losses to a hedge, which is how a hung replica shows) (default 0.5).
   */
  readonly maxFailureRate?: number;
  /** Failures needed before the failure rate counts (default 5). */
  readonly minFailures?: number;
  /** At most this share of a replica set is ejected at once; at least one replica always stays (default 0.5). */
  readonly maxEjectedShare?: number;
  /** An ejected replica gets one probe request per this many ms (default 1000). */
  readonly probeIntervalMs?: number;
  /** Consecutive good probes that bring it back (default 3). */
  readonly probesToRecover?: number;
  /** A replica set is re-evaluated at most this often, ms (default 100). */
  readonly evaluateEveryMs?: number;
}

/** Resolved ejection settings. */
export type EjectionSettings = Required<EjectionOptions>;

/** Defaults of {@link EjectionOptions}. */
export const EJECTION_DEFAULTS: EjectionSettings = Object.freeze({
  latencyFactor: 3,
  minGapMs: 2,
  minSamples: 20,
  maxFailureRate: 0.5,
  minFailures: 5,
  maxEjectedShare: 0.5,
  probeIntervalMs: 1000,
  probesToRecover: 3,
  evaluateEveryMs: 100,
});

/** Successes and failures over the last one to two windows (rotated lazily, like {@link LatencyWindow}). */
export class OutcomeWindow {
  readonly windowMs: number;
  #cur = { ok: 0, fail: 0 };
  #prev = { ok: 0, fail: 0 };
  #start: number;

  constructor(windowMs: number, now: number) {
    this.windowMs = windowMs;
    this.#start = now;
  }

  #rotate(now: number): void {
    const age = now - this.#start;
    if (age < this.windowMs) return;
    this.#prev = age >= 2 * this.windowMs ? { ok: 0, fail: 0 } : this.#cur;
    this.#cur = { ok: 0, fail: 0 };
    this.#start = age >= 2 * this.windowMs ? now : this.#start + this.windowMs;
  }

  record(ok: boolean, now: number): void {
    this.#rotate(now);
    if (ok) this.#cur.ok++;
    else this.#cur.fail++;
  }

  /** Counts in the window. */
  counts(now: number): { ok: number; fail: number } {
    this.#rotate(now);
    return { ok: this.#cur.ok + this.#prev.ok, fail: this.#cur.fail + this.#prev.fail };
  }

  reset(now: number): void {
    this.#cur = { ok: 0, fail: 0 };
    this.#prev = { ok: 0, fail: 0 };
    this.#start = now;
  }
}

/** Most query classes tracked per replica; further classes share one catch-all window. */
const MAX_CLASSES = 16;

/** A replica with its health: latency windows (all queries and per query class), outcomes, probation. */
export class ReplicaState {
  readonly replica: Replica;
  readonly all: LatencyWindow;
  readonly byClass = new Map<string, LatencyWindow>();
  readonly outcomes: OutcomeWindow;
  /** On probation: only probes reach it. */
  ejected = false;
  lastProbeAt = -Infinity;
  probeStreak = 0;
  /** Requests sent to it (primaries, hedges, fail-overs and probes). */
  requests = 0;
  probes = 0;
  inFlight = 0;

  constructor(replica: Replica, windowMs: number, now: number) {
    this.replica = replica;
    this.all = new LatencyWindow(windowMs, now);
    this.outcomes = new OutcomeWindow(windowMs, now);
  }

  get name(): string {
    return this.replica.child.name;
  }

  get zone(): string {
    return this.replica.zone;
  }

  /** The latency window of a query class (the catch-all `*` beyond {@link MAX_CLASSES}). */
  classWindow(cls: string, now: number): LatencyWindow {
    let w = this.byClass.get(cls);
    if (w === undefined) {
      const key = this.byClass.size >= MAX_CLASSES ? '*' : cls;
      w = this.byClass.get(key) ?? new LatencyWindow(this.all.windowMs, now);
      this.byClass.set(key, w);
    }
    return w;
  }

  /** A latency sample (ms) of a request of class `cls`. */
  recordLatency(cls: string, ms: number, now: number): void {
    this.all.record(ms, now);
    this.classWindow(cls, now).record(ms, now);
  }

  /** Median latency over the window, or null with fewer than `min` samples. */
  p50(now: number, min: number): number | null {
    return this.all.count(now) < min ? null : this.all.quantile(0.5, now);
  }

  /** Forgets its history (on ejection and on recovery, so stale samples decide nothing). */
  reset(now: number): void {
    this.all.reset(now);
    for (const w of this.byClass.values()) w.reset(now);
    this.outcomes.reset(now);
    this.probeStreak = 0;
  }
}

function median(xs: readonly number[]): number | null {
  if (xs.length === 0) return null;
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 === 1 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median p50 of the healthy peers of `r` that have enough samples (null when none do). */
export function peerMedianP50(set: readonly ReplicaState[], r: ReplicaState, now: number, opts: EjectionSettings): number | null {
  const ps = set.filter((p) => p !== r && !p.ejected).map((p) => p.p50(now, opts.minSamples));
  return median(ps.filter((x): x is number => x !== null));
}

/** Why a replica is an outlier, or null when it is not. */
export function outlierReason(set: readonly ReplicaState[], r: ReplicaState, now: number, opts: EjectionSettings): string | null {
  const { ok, fail } = r.outcomes.counts(now);
  if (fail >= opts.minFailures && fail / (ok + fail) >= opts.maxFailureRate) return `${fail} of its last ${ok + fail} requests failed`;
  const mine = r.p50(now, opts.minSamples);
  const peers = peerMedianP50(set, r, now, opts);
  if (mine !== null && peers !== null && mine > opts.latencyFactor * peers && mine - peers >= opts.minGapMs) {
    return `its p50 ${mine.toFixed(1)} ms is over ${opts.latencyFactor}x its peers' ${peers.toFixed(1)} ms`;
  }
  return null;
}

/**
 * Ejects at most one outlier of a replica set (the slowest by p50 among those that qualify),
 * never more than `maxEjectedShare` of the set and never the last healthy replica.
 * @returns the ejected replica and why, or null.
 */
export function ejectOutlier(set: readonly ReplicaState[], now: number, opts: EjectionSettings): { replica: ReplicaState; reason: string } | null {
  const healthy = set.filter((r) => !r.ejected);
  const mayEject = Math.min(healthy.length - 1, Math.floor(set.length * opts.maxEjectedShare) - (set.length - healthy.length));
  if (mayEject <= 0) return null;
  let worst: { replica: ReplicaState; reason: string; p50: number } | null = null;
  for (const r of healthy) {
    const reason = outlierReason(set, r, now, opts);
    if (reason === null) continue;
    const p = r.all.quantile(0.5, now) ?? Infinity;
    if (worst === null || p > worst.p50) worst = { replica: r, reason, p50: p };
  }
  if (worst === null) return null;
  worst.replica.ejected = true;
  worst.replica.reset(now);
  worst.replica.lastProbeAt = now;
  return { replica: worst.replica, reason: worst.reason };
}

/**
 * Records a probe's outcome; a good probe answered, in time (within `latencyFactor` of the
 * healthy peers' median p50, or any time when they have no samples). After
 * `probesToRecover` good probes in a row the replica is back, with a fresh history.
 * @returns true when the replica was reinstated.
 */
export function recordProbe(set: readonly ReplicaState[], r: ReplicaState, ok: boolean, ms: number, now: number, opts: EjectionSettings): boolean {
  const peers = peerMedianP50(set, r, now, opts);
  const good = ok && (peers === null || ms <= opts.latencyFactor * peers || ms - (peers ?? 0) < opts.minGapMs);
  r.probeStreak = good ? r.probeStreak + 1 : 0;
  if (r.probeStreak < opts.probesToRecover) return false;
  r.ejected = false;
  r.reset(now);
  return true;
}

/** Merged quantiles (ms) of a query class over some replicas, with the sample count. */
export function classQuantiles(replicas: readonly ReplicaState[], cls: string, qs: readonly number[], now: number): { values: (number | null)[]; count: number } {
  const ws = replicas.map((r) => r.byClass.get(cls)).filter((w): w is LatencyWindow => w !== undefined);
  return mergedQuantiles(ws, qs, now);
}
