/**
 * Tail control shared by the replica sets of one node (its client-side view of the tier
 * below): hedge delays from observed latency quantiles, the hedge budget (a token bucket),
 * the retry budget (a share of successful traffic), verification sampling, the overload
 * switch, outlier ejection and zone-aware routing, counters and warnings.
 * Clock, timers, random source and metrics registry are injected (tests run on fake timers).
 *
 * Sources: Dean and Barroso, "The Tail at Scale", CACM 56(2), 2013 (hedged requests after
 * the p95, cancellation of the loser); Envoy's outlier detection (ejection and probation);
 * Finagle's RetryBudget (retries as a share of successful traffic over a ttl, plus a small
 * floor per second; com.twitter.finagle.service.RetryBudget) and gRPC's retry throttling
 * (A6-client-retries.md: successes earn retry tokens, failures spend them).
 */
import { systemClock, type ChildRequest, type Clock } from '../transport/index.ts';
import { EJECTION_DEFAULTS, OutcomeWindow, ReplicaState, classQuantiles, ejectOutlier, recordProbe, type EjectionOptions, type EjectionSettings, type Replica } from './ejection.ts';
import { LatencyWindow, queryClass } from './latency.ts';
import type { NodeTailMetrics } from './metrics.ts';

/** Timers used for hedge delays: the clock's. */
export type TailTimers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

/** Hedged requests; every field has a default ({@link HEDGE_DEFAULTS}). */
export interface HedgeOptions {
  /** Hedge after this quantile of the replica set's latency for the query class (default 0.95). */
  readonly quantile?: number;
  /** Delay, ms, until `minSamples` latencies of the class exist (default 10, the Tail at Scale figure). */
  readonly defaultDelayMs?: number;
  /** Samples needed before the observed quantile replaces the default delay (default 20). */
  readonly minSamples?: number;
  /** Never hedge sooner than this, ms (default 0). */
  readonly minDelayMs?: number;
  /**
   * Never hedge sooner than this multiple of the same latencies' median (default 2). A hedge
   * sent at d answers near d + p50, so it can only win against a primary slower than that;
   * where the p95 sits below 2 x p50 (a light-tailed base), hedging at the p95 spends the
   * budget on requests a hedge cannot help, and the budget is then gone when a straggler
   * comes. 0 turns the floor off.
   */
  readonly minP50Multiple?: number;
  /**
   * Hedges per request (default 2; bench/results/hedge.md). Each further hedge goes out one more delay later, to the
   * next replica in routing order, wrapping around to replicas already asked (a fresh request
   * there): with 2 replicas and stragglers that are independent per request, a second hedge
   * is what covers the case where the first hedge straggles too.
   */
  readonly maxHedges?: number;
  /**
   * A hedge goes out no later than this share of the request's budget (default 0.5), whatever
   * the observed quantile says: a delay learned from slow samples (a cold start, a loaded
   * machine, the lost attempts of a hung replica, which count at their lower bound) can grow
   * past the budget, and a hedge that would leave after the deadline is no hedge at all (a
   * replica hung in one zone would then cost its shard although another zone's replica is
   * healthy). With half the budget left the hedge has the same time to answer as the primary
   * had before it. In (0, 1].
   */
  readonly latestShare?: number;
}

/** Resolved hedge settings. */
export type HedgeSettings = Required<HedgeOptions>;

/** Defaults of {@link HedgeOptions}. */
export const HEDGE_DEFAULTS: HedgeSettings = Object.freeze({ quantile: 0.95, defaultDelayMs: 10, minSamples: 20, minDelayMs: 0, minP50Multiple: 2, maxHedges: 2, latestShare: 0.5 });

/** The hedge budget: hedges stay within `share` of requests, plus `burst`. */
export interface BudgetOptions {
  /** Tokens earned per replica-set request; one duplicate costs one token (default 0.05: 5%). */
  readonly share?: number;
  /** Bucket size, and the tokens it starts with (default 10). */
  readonly burst?: number;
}

/** When the tier below counts as overloaded: then no duplicates are sent at all. */
export interface OverloadOptions {
  /** Replica requests in flight from this node (default 1000). */
  readonly maxInFlight?: number;
  /** Share of recent replica requests that failed or ran out of time (default 0.25) ... */
  readonly maxErrorRate?: number;
  /** ... once at least this many were seen in the window (default 20). */
  readonly minRequests?: number;
}

/** A coded warning about replicas, kept in provenance when the answer is still in hand. */
export interface TailWarning {
  /** `CANOPY_WARN_REPLICAS_DIVERGED`: two replicas answered the same request differently. */
  readonly code: keyof typeof TAIL_WARNINGS;
  readonly message: string;
  readonly shards: readonly number[];
  readonly replicas: readonly string[];
}

/** Warning codes of tail control, with their meaning (README). */
export const TAIL_WARNINGS = Object.freeze({
  CANOPY_WARN_REPLICAS_DIVERGED: 'Two replicas answered the same request for the same shard(s) (a hedge pair, or verification sampling) with different partials or row counts; the first answer was used.',
});

/** Options of a {@link TailControl}. `hedge` and `ejection` are off unless given. */
export interface TailOptions {
  /** Hedged requests (`{}` for the defaults); false or absent: never hedge. */
  readonly hedge?: HedgeOptions | false;
  /** Outlier ejection (`{}` for the defaults); false or absent: never eject. */
  readonly ejection?: EjectionOptions | false;
  readonly budget?: BudgetOptions;
  /**
   * Retries after a fast failure (an error, a 503 or a garbled reply, not a timeout) on another
   * replica, within a {@link RetryBudget} (`{}` for the defaults: 10% of successes plus 1 per
   * second over 10 s); false: never retry. Default: on.
   */
  readonly retry?: RetryBudgetOptions | false;
  /**
   * Verification sampling: this share of requests to replica sets (in [0, 1], default 0) also
   * goes to a second replica, within the hedge budget, and the two answers are compared; a
   * difference is a `CANOPY_WARN_REPLICAS_DIVERGED` warning in the shard's provenance entry.
   * A sampled request waits for the second answer at most one hedge delay after the first.
   */
  readonly verifyShare?: number;
  readonly overload?: OverloadOptions;
  /** The caller's zone: healthy replicas there are preferred. Absent: prefer the fastest replica. */
  readonly zone?: string;
  /** Latency and error window, ms (statistics cover the last one to two windows; default 10,000). */
  readonly windowMs?: number;
  /** Time and the hedge and grace timers (default {@link systemClock}). */
  readonly clock?: Clock;
  /** Uniform [0, 1) (tie-breaks between equally good replicas; default Math.random). */
  readonly random?: () => number;
  /** This node's `canopy_tail_*` metrics (see `tailMetrics`; none by default: no global registry). */
  readonly metrics?: NodeTailMetrics;
  /** Called for every warning (in-band or not), e.g. to log it. */
  readonly onWarning?: (w: TailWarning) => void;
}

/** What tail control did, since it was created. */
export interface TailCounters {
  /** Requests to replica sets. */
  requests: number;
  /** Requests sent to replicas: primaries, hedges, fail-overs and probes. */
  replicaRequests: number;
  hedgesSent: number;
  /** Hedges that answered first. */
  hedgesWon: number;
  /** Hedges sent that did not answer first (their work was thrown away). */
  hedgesWasted: number;
  /** Hedges not sent because the budget was spent. */
  hedgesDenied: number;
  /** Hedges not sent because the tier was overloaded. */
  hedgesSuppressed: number;
  /** Requests re-sent to another replica after a fast failure (retry budget granted). */
  retriesSent: number;
  /** Retries not sent because the retry budget was spent. */
  retriesDenied: number;
  /** Retries not sent because the deadline left too little time (less than the set's median latency). */
  retriesTooLate: number;
  /** Requests sampled for verification: sent to two replicas and compared. */
  verifications: number;
  /** Second answers for shards already answered, dropped. */
  duplicatesDropped: number;
  /** Duplicates that differed from the answer used. */
  divergences: number;
  probes: number;
  ejections: number;
  reinstatements: number;
}

/** A replica set as tail control sees it. */
export interface ReplicaSetState {
  readonly name: string;
  readonly replicas: readonly ReplicaState[];
  /** @internal */
  lastEvaluated: number;
  /** @internal hedge delay per query class: value, when computed, samples of the set since. */
  readonly delays: Map<string, { value: number; at: number; samples: number }>;
  /** @internal latency samples recorded for this set */
  samples: number;
}

/** How an attempt at a replica ended, for the statistics. */
export type AttemptOutcome =
  | { readonly kind: 'answered'; readonly ms: number; readonly good: boolean }
  /** Error from the replica, or its answer did not come before the deadline. */
  | { readonly kind: 'failed'; readonly ms: number; readonly deadline: boolean }
  /** Cancelled because another replica answered first (its latency is at least `ms`). */
  | { readonly kind: 'lost'; readonly ms: number }
  /** Cancelled by the caller for another reason: says nothing about the replica. */
  | { readonly kind: 'cancelled' };

const COUNTER_NAMES: readonly (keyof TailCounters)[] = [
  'requests', 'replicaRequests', 'hedgesSent', 'hedgesWon', 'hedgesWasted', 'hedgesDenied', 'hedgesSuppressed',
  'retriesSent', 'retriesDenied', 'retriesTooLate', 'verifications', 'duplicatesDropped', 'divergences', 'probes', 'ejections', 'reinstatements',
];

/** Most query classes tracked tier-wide (the fallback for hedge delays of new replica sets). */
const MAX_TIER_CLASSES = 64;
/** Replicas whose p50 is within this factor of the best in their set count as equally fast. */
const FAST_TOLERANCE = 1.5;

/**
 * Shared tail-control state of one node. Create one per node (per process hosting
 * aggregators), pass it to every {@link replicaSet} of that node.
 */
export class TailControl {
  readonly hedge: HedgeSettings | null;
  readonly ejection: EjectionSettings | null;
  readonly zone: string | null;
  readonly windowMs: number;
  readonly now: () => number;
  readonly timers: TailTimers;
  readonly random: () => number;
  readonly counters: TailCounters;
  /** The last 100 warnings, oldest first. */
  readonly warnings: TailWarning[] = [];
  /** Replica requests in flight. */
  inFlight = 0;
  /** The retry budget, or null when retries are off. */
  readonly retry: RetryBudget | null;
  /** Share of requests sampled for verification (0: none). */
  readonly verifyShare: number;
  readonly #share: number;
  readonly #burst: number;
  #tokens: number;
  readonly #overload: Required<OverloadOptions>;
  readonly #tierOutcomes: OutcomeWindow;
  readonly #tierClasses = new Map<string, LatencyWindow>();
  readonly #sets: ReplicaSetState[] = [];
  readonly #metrics: NodeTailMetrics | null;
  readonly #onWarning: ((w: TailWarning) => void) | null;

  constructor(opts: TailOptions = {}) {
    this.hedge = opts.hedge === undefined || opts.hedge === false ? null : { ...HEDGE_DEFAULTS, ...opts.hedge };
    this.ejection = opts.ejection === undefined || opts.ejection === false ? null : { ...EJECTION_DEFAULTS, ...opts.ejection };
    this.zone = opts.zone ?? null;
    this.windowMs = opts.windowMs ?? 10_000;
    const clock = opts.clock ?? systemClock;
    this.now = () => clock.now();
    this.timers = clock;
    this.random = opts.random ?? Math.random;
    this.#share = opts.budget?.share ?? 0.05;
    this.#burst = opts.budget?.burst ?? 10;
    if (!(this.#share >= 0 && this.#burst >= 0)) throw new RangeError('tail budget: share and burst must be >= 0');
    if (this.hedge !== null && !(this.hedge.quantile > 0 && this.hedge.quantile < 1)) throw new RangeError(`hedge quantile must be in (0, 1), got ${this.hedge.quantile}`);
    if (this.hedge !== null && !(this.hedge.latestShare > 0 && this.hedge.latestShare <= 1)) throw new RangeError(`hedge latestShare must be in (0, 1], got ${this.hedge.latestShare}`);
    this.#tokens = this.#burst;
    this.#overload = { maxInFlight: 1000, maxErrorRate: 0.25, minRequests: 20, ...opts.overload };
    this.#tierOutcomes = new OutcomeWindow(this.windowMs, this.now());
    this.counters = Object.fromEntries(COUNTER_NAMES.map((n) => [n, 0])) as unknown as TailCounters;
    this.#metrics = opts.metrics ?? null;
    this.#metrics?.watch(() => this.#sets);
    this.#onWarning = opts.onWarning ?? null;
    this.retry = opts.retry === false ? null : new RetryBudget(opts.retry ?? {}, this.now());
    this.verifyShare = opts.verifyShare ?? 0;
    if (!(this.verifyShare >= 0 && this.verifyShare <= 1)) throw new RangeError(`verifyShare must be in [0, 1], got ${this.verifyShare}`);
  }

  /** Adds to a counter (and its metric); `at` is the replica the event concerns, when there is one. */
  count(name: keyof TailCounters, at?: ReplicaState, n = 1): void {
    this.counters[name] += n;
    this.#metrics?.count(name, at, n);
  }

  /** Duplicate tokens left in the budget. */
  get tokens(): number {
    return this.#tokens;
  }

  /** Every replica set registered, with its replicas' health (inspection, tests). */
  get sets(): readonly ReplicaSetState[] {
    return this.#sets;
  }

  /** Registers a replica set (called by {@link replicaSet}). */
  register(name: string, replicas: readonly Replica[]): ReplicaSetState {
    const now = this.now();
    const set: ReplicaSetState = { name, replicas: replicas.map((r) => new ReplicaState(r, this.windowMs, now)), lastEvaluated: -Infinity, delays: new Map(), samples: 0 };
    this.#sets.push(set);
    return set;
  }

  /** True when the tier below looks overloaded: no duplicates then. */
  overloaded(): boolean {
    if (this.inFlight > this.#overload.maxInFlight) return true;
    const { ok, fail } = this.#tierOutcomes.counts(this.now());
    return ok + fail >= this.#overload.minRequests && fail / (ok + fail) > this.#overload.maxErrorRate;
  }

  /** A new request to a replica set: earns its share of a duplicate token. */
  admit(): void {
    this.count('requests');
    this.#tokens = Math.min(this.#burst, this.#tokens + this.#share);
  }

  /**
   * Asks for one hedge (or verification request): `ok` spends a token; `overload` and `budget`
   * say why not.
   */
  takeDuplicate(): 'ok' | 'budget' | 'overload' {
    if (this.overloaded()) return 'overload';
    if (this.#tokens < 1) return 'budget';
    this.#tokens -= 1;
    return 'ok';
  }

  /**
   * May a request to `set` that failed fast with `error`, with `leftMs` of its budget left, be
   * retried on another replica (`to`, the one it would go to)? Not after a deadline or a
   * cancellation; not when less than `to`'s median latency for the class is left (the set's,
   * ejected replicas apart, while `to` has no sample of the class; or nothing at all); not
   * beyond the retry budget. Counts `retriesSent`, `retriesDenied` or `retriesTooLate`.
   * The median is `to`'s own because the set's holds the failing replica's samples too: a
   * frozen replica's requests are recorded at their deadline, and once they were half the
   * samples every fail-over to its healthy peer was refused as too late with seconds left.
   */
  mayRetry(set: ReplicaSetState, cls: string, error: unknown, leftMs: number, to?: ReplicaState): boolean {
    const r = this.retry;
    if (r === null) return false;
    const code = (error as { code?: unknown } | null)?.code;
    if (code === 'CANOPY_ERR_DEADLINE' || code === 'CANOPY_ERR_CANCELLED') return false;
    const now = this.now();
    const own = to === undefined ? null : classQuantiles([to], cls, [0.5], now);
    const p50 = (own !== null && own.count > 0 ? own.values[0] : classQuantiles(set.replicas.filter((x) => !x.ejected), cls, [0.5], now).values[0]) ?? 0;
    if (leftMs <= 0 || leftMs < p50) {
      this.count('retriesTooLate');
      return false;
    }
    if (!r.tryWithdraw(now)) {
      this.count('retriesDenied');
      return false;
    }
    this.count('retriesSent');
    return true;
  }

  /** A retry outside the budget (after a failed probe: probation must not cost availability); counted as sent. */
  freeRetry(): true {
    this.count('retriesSent');
    return true;
  }

  /**
   * How long a verified request's first answer waits for its partner's, ms: the hedge delay's
   * rule (max(p95, 2 x p50) of the set's latency for the class), 10 ms with fewer than 20 samples.
   */
  verifyGraceMs(set: ReplicaSetState, cls: string): number {
    if (this.hedge !== null) return this.hedgeDelay(set, cls);
    const own = classQuantiles(set.replicas.filter((r) => !r.ejected), cls, [HEDGE_DEFAULTS.quantile, 0.5], this.now());
    const [q, p50] = own.values;
    return own.count < HEDGE_DEFAULTS.minSamples || q == null || p50 == null ? HEDGE_DEFAULTS.defaultDelayMs : Math.max(q, HEDGE_DEFAULTS.minP50Multiple * p50);
  }

  /** True when this request should be verified (sampled at `verifyShare`, hedge budget permitting). */
  sampleVerification(): boolean {
    if (this.verifyShare <= 0 || this.random() >= this.verifyShare) return false;
    if (this.takeDuplicate() !== 'ok') return false;
    this.count('verifications');
    return true;
  }

  /**
   * Orders a set's replicas for one request: a due probe first (one ejected replica, at
   * most once per probe interval), then the healthy replicas: the caller's zone first,
   * then those within 1.5x of the fastest p50, ties broken at random; the second place
   * goes to another zone than the first when one is available (hedges and fail-overs
   * then cross failure domains).
   */
  route(set: ReplicaSetState): { order: ReplicaState[]; probe: ReplicaState | null } {
    const now = this.now();
    const ej = this.ejection;
    if (ej !== null && now - set.lastEvaluated >= ej.evaluateEveryMs) {
      set.lastEvaluated = now;
      const out = ejectOutlier(set.replicas, now, ej);
      if (out !== null) {
        this.count('ejections', out.replica);
        // The cached hedge delays were learned with the ejected replica's latencies in them.
        set.delays.clear();
      }
    }
    let probe: ReplicaState | null = null;
    if (ej !== null) {
      for (const r of set.replicas) {
        if (r.ejected && r.inFlight === 0 && now - r.lastProbeAt >= ej.probeIntervalMs) {
          probe = r;
          r.lastProbeAt = now;
          r.probes++;
          this.count('probes', r);
          break;
        }
      }
    }
    const healthy = set.replicas.filter((r) => !r.ejected);
    const minSamples = ej?.minSamples ?? this.hedge?.minSamples ?? 20;
    const p50s = healthy.map((r) => r.p50(now, minSamples));
    const known = p50s.filter((x): x is number => x !== null);
    const best = known.length === 0 ? null : Math.min(...known);
    const keyed = healthy.map((r, i) => {
      const p = p50s[i]!;
      const slow = best !== null && p !== null && p > FAST_TOLERANCE * best ? 1 : 0;
      const away = this.zone !== null && r.zone !== this.zone ? 1 : 0;
      return { r, key: away * 2 + slow, tie: this.random() };
    });
    keyed.sort((a, b) => a.key - b.key || a.tie - b.tie);
    const order = keyed.map((k) => k.r);
    if (probe !== null) order.unshift(probe);
    const first = order[0];
    if (first !== undefined) {
      const other = order.findIndex((r, i) => i > 0 && r.zone !== first.zone);
      if (other > 1) order.splice(1, 0, ...order.splice(other, 1));
    }
    return { order, probe };
  }

  /**
   * Hedge delay (ms) for a request of class `cls` to `set`: the configured quantile of the
   * set's healthy replicas' latencies for that class (at least `minP50Multiple` x their p50); with too few samples, of the whole
   * tier's for the class; with too few there, the default delay. The set's own estimate is
   * recomputed after every 8 samples of the set or a tenth of a window. With `budgetMs` (the
   * request's budget, ms) the delay is at most `latestShare` of it (see {@link HedgeOptions.latestShare}).
   */
  hedgeDelay(set: ReplicaSetState, cls: string, budgetMs = Infinity): number {
    const h = this.hedge;
    if (h === null) return Infinity;
    return Math.min(this.#learnedDelay(h, set, cls), h.latestShare * budgetMs);
  }

  /** The delay the samples give (the set's, else the tier's, else the default), before the budget cap; ms. */
  #learnedDelay(h: HedgeSettings, set: ReplicaSetState, cls: string): number {
    const now = this.now();
    const cached = set.delays.get(cls);
    if (cached !== undefined && set.samples - cached.samples < 8 && now - cached.at < this.windowMs / 10) return cached.value;
    const healthy = set.replicas.filter((r) => !r.ejected);
    const own = classQuantiles(healthy, cls, [h.quantile, 0.5], now);
    const [q, p50] = own.values;
    if (own.count >= h.minSamples && q != null && p50 != null) {
      const delay = Math.max(h.minDelayMs, q, h.minP50Multiple * p50);
      set.delays.set(cls, { value: delay, at: now, samples: set.samples });
      return delay;
    }
    // Not cached: recomputed on every request until the set has samples of its own.
    const tier = this.#tierClasses.get(cls);
    if (tier === undefined || tier.count(now) < h.minSamples) return Math.max(h.minDelayMs, h.defaultDelayMs);
    return Math.max(h.minDelayMs, tier.quantile(h.quantile, now) ?? 0, h.minP50Multiple * (tier.quantile(0.5, now) ?? 0));
  }

  /** The query class of a request (latencies are kept per class). */
  classOf(req: ChildRequest): string {
    return queryClass(req.plan);
  }

  /** An attempt at `r` starts. */
  started(r: ReplicaState): void {
    r.requests++;
    r.inFlight++;
    this.inFlight++;
    this.count('replicaRequests', r);
  }

  /**
   * An attempt at `r` ended: updates its latency and outcome windows, the tier's, and (for a
   * probe) its probation. `ms` of a lost attempt is a lower bound on its latency and is
   * recorded as such, so the hedge quantile does not forget the slow requests it cut short.
   */
  ended(set: ReplicaSetState, r: ReplicaState, cls: string, outcome: AttemptOutcome, probe: boolean): void {
    r.inFlight--;
    this.inFlight--;
    if (outcome.kind === 'cancelled') return;
    const now = this.now();
    const ms = outcome.ms;
    if (outcome.kind === 'answered' || outcome.kind === 'lost' || outcome.deadline) {
      r.recordLatency(cls, ms, now);
      set.samples++;
      let tier = this.#tierClasses.get(cls);
      if (tier === undefined && this.#tierClasses.size < MAX_TIER_CLASSES) this.#tierClasses.set(cls, (tier = new LatencyWindow(this.windowMs, now)));
      tier?.record(ms, now);
    }
    const ok = outcome.kind === 'answered';
    if (ok && outcome.good) this.retry?.deposit(now);
    r.outcomes.record(ok, now);
    if (outcome.kind !== 'lost') this.#tierOutcomes.record(ok, now);
    const good = outcome.kind === 'answered' && outcome.good;
    if (probe && this.ejection !== null && recordProbe(set.replicas, r, good, ms, now, this.ejection)) {
      this.count('reinstatements', r);
      set.delays.clear();
    }
  }

  /** Records a warning: counted, kept (last 100), passed to `onWarning`. */
  warn(w: TailWarning): void {
    this.warnings.push(w);
    if (this.warnings.length > 100) this.warnings.shift();
    this.#onWarning?.(w);
  }
}

/** A retry budget; every field has a default ({@link RETRY_DEFAULTS}). */
export interface RetryBudgetOptions {
  /** Retries earned per successful replica request (default 0.1: 10%). */
  readonly share?: number;
  /** Retries allowed per second whatever the traffic, so a quiet node can still fail over (default 1). */
  readonly minPerSecond?: number;
  /** Successes and retries count for this long, ms (default 10,000, Finagle's ttl). */
  readonly windowMs?: number;
}

/** Defaults of {@link RetryBudgetOptions}. */
export const RETRY_DEFAULTS: Required<RetryBudgetOptions> = Object.freeze({ share: 0.1, minPerSecond: 1, windowMs: 10_000 });

/** Buckets of a retry budget's window. */
const RETRY_BUCKETS = 10;

/**
 * A retry budget as a share of successful traffic, not a per-call count (Finagle's
 * RetryBudget; gRPC retry throttling): over the last window (in tenths), retries stay within
 * `share` x successes + `minPerSecond` x window seconds. When a tier fails, its successes
 * drop and so do the retries it may cause: retries cannot multiply an overload.
 * Pure state on an injected clock (ms); no timers.
 */
export class RetryBudget {
  readonly settings: Required<RetryBudgetOptions>;
  readonly #bucketMs: number;
  readonly #successes = new Float64Array(RETRY_BUCKETS);
  readonly #retries = new Float64Array(RETRY_BUCKETS);
  /** Index (time / bucketMs) of the newest bucket. */
  #head: number;

  /** @throws RangeError for a negative share or floor, or a window that is not positive. */
  constructor(opts: RetryBudgetOptions, now: number) {
    this.settings = { ...RETRY_DEFAULTS, ...opts };
    const s = this.settings;
    if (!(s.share >= 0 && s.minPerSecond >= 0 && s.windowMs > 0)) throw new RangeError(`retry budget: share and minPerSecond must be >= 0 and windowMs > 0, got ${s.share}, ${s.minPerSecond}, ${s.windowMs}`);
    this.#bucketMs = s.windowMs / RETRY_BUCKETS;
    this.#head = Math.floor(now / this.#bucketMs);
  }

  #advance(now: number): number {
    const at = Math.floor(now / this.#bucketMs);
    if (at > this.#head) {
      for (let b = this.#head + 1; b <= Math.min(at, this.#head + RETRY_BUCKETS); b++) {
        const i = b % RETRY_BUCKETS;
        this.#successes[i] = 0;
        this.#retries[i] = 0;
      }
      this.#head = at;
    }
    return this.#head % RETRY_BUCKETS;
  }

  /** A successful request: earns `share` of a retry. */
  deposit(now: number): void {
    this.#successes[this.#advance(now)]! += 1;
  }

  /** Retries still allowed in the window (may be fractional or negative). */
  balance(now: number): number {
    this.#advance(now);
    let ok = 0;
    let used = 0;
    for (let i = 0; i < RETRY_BUCKETS; i++) {
      ok += this.#successes[i]!;
      used += this.#retries[i]!;
    }
    return this.settings.share * ok + (this.settings.minPerSecond * this.settings.windowMs) / 1000 - used;
  }

  /** Takes one retry when the budget has one; false otherwise. */
  tryWithdraw(now: number): boolean {
    if (this.balance(now) < 1) return false;
    this.#retries[this.#head % RETRY_BUCKETS]! += 1;
    return true;
  }
}
