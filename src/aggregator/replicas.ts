/**
 * A replica set: one logical child (`leaf-27`) served by several replicas (`leaf-27.r0` in
 * zone a, `leaf-27.r1` in zone b), with tail control as a layer around the child interface:
 * routing (zone preference, outlier ejection, probes), hedged requests, retries within a
 * retry budget, and verification of replicas against each other.
 * The gather engine sees an ordinary child that yields one answer for its shards; it needs
 * no knowledge of replicas, and each shard is merged once because this layer yields exactly
 * one final frame per request, whichever replica it came from.
 *
 * Without a {@link TailControl} (or with hedging and ejection both off and one replica) the
 * set is an identity: the request, signal and frames pass through untouched.
 */
import { CanopyError, isCanopyError, layoutOf, partialsEqual, remainingMs, toCanopyError, type Frame, type ShardStatus } from '../merge/index.ts';
import { Cancel, type Child, type ChildRequest } from '../transport/index.ts';
import type { Replica, ReplicaState } from './ejection.ts';
import { type AttemptOutcome, type ReplicaSetState, type TailControl, type TailWarning } from './tail.ts';

/** A replica set as a child, with its replicas and (when under tail control) their state. */
export interface ReplicaSetChild extends Child {
  readonly replicas: readonly Replica[];
  readonly state: ReplicaSetState | null;
}

/**
 * Provenance entry of a shard answered through a replica set: `hedged` when a hedge was
 * sent for it, `warnings` when replicas disagreed (see `TAIL_WARNINGS`). The extra
 * fields travel up the tree with the entry (frame headers are JSON).
 */
export interface TailShardStatus extends ShardStatus {
  readonly hedged?: true;
  /** Two replicas answered and their answers were compared (a hedge pair, or verification sampling). */
  readonly verified?: true;
  readonly warnings?: readonly { readonly code: string; readonly message: string }[];
}

/** True when a frame answers every shard it lists (the answer a hedge race waits for). */
export function answersAll(frame: Frame): boolean {
  return frame.provenance.every((p) => p.status === 'answered' || p.status === 'pruned');
}

function isDeadline(reason: unknown): boolean {
  return isCanopyError(reason) && reason.code === 'CANOPY_ERR_DEADLINE';
}

/**
 * Creates a replica set named `name` (the shard's logical child, used in paths) over
 * `replicas`, which must all serve the same shards.
 * - Without `tail`: requests rotate over the replicas, nothing else.
 * - With `tail`: each request goes to the first replica of {@link TailControl.route}; on a
 *   fast failure before any frame (an error, a 503, a garbled reply; not a deadline) it is
 *   retried on the next replica when the retry budget allows ({@link TailControl.mayRetry});
 *   with hedging on, if no answer came after the hedge delay a hedge goes to the next
 *   replica (one hedge token), the first answer for all shards wins, the other request is
 *   aborted, and a second answer is dropped (counted, compared, and a warning when it
 *   differs). With `verifyShare`, sampled requests go to two replicas at once and the first
 *   answer waits up to one grace period for the second, to compare them.
 * @throws RangeError when there are no replicas or they serve different shards.
 */
export function replicaSet(name: string, replicas: readonly Replica[], tail?: TailControl): ReplicaSetChild {
  const first = replicas[0];
  if (first === undefined) throw new RangeError(`replica set ${name} has no replicas`);
  const shards = first.child.shards;
  const key = [...shards].sort((a, b) => a - b).join(',');
  for (const r of replicas) {
    if ([...r.child.shards].sort((a, b) => a - b).join(',') !== key) throw new RangeError(`replica ${r.child.name} of ${name} serves shards ${r.child.shards.join(', ')}, not ${shards.join(', ')}`);
  }
  if (tail === undefined) {
    let turn = 0;
    return { name, shards, replicas, state: null, query: (req, signal) => replicas[turn++ % replicas.length]!.child.query(req, signal) };
  }
  if (tail.hedge === null && tail.ejection === null && replicas.length === 1) {
    return { name, shards, replicas, state: null, query: (req, signal) => first.child.query(req, signal) };
  }
  const set = tail.register(name, replicas);
  const control = tail;

  async function* single(req: ChildRequest, signal: AbortSignal, cls: string, order: readonly ReplicaState[], probe: ReplicaState | null): AsyncIterable<Frame> {
    const t0 = control.now();
    let cur = req;
    for (let i = 0; ; i++) {
      const r = order[i]!;
      const ta = control.now();
      let outcome: AttemptOutcome = { kind: 'cancelled' };
      let yielded = false;
      control.started(r);
      try {
        let last: Frame | undefined;
        for await (const f of r.replica.child.query(cur, signal)) {
          last = f;
          yielded = true;
          yield f;
        }
        if (last === undefined) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${r.name} ended without a frame`);
        outcome = { kind: 'answered', ms: control.now() - ta, good: answersAll(last) };
        return;
      } catch (e) {
        const ms = control.now() - ta;
        if (signal.aborted) {
          if (isDeadline(signal.reason)) outcome = { kind: 'failed', ms, deadline: true };
          throw e;
        }
        outcome = { kind: 'failed', ms, deadline: false };
        const left = remainingMs(req.budgetMs, control.now() - t0);
        // A probe's fail-over is free: probation must not cost availability (probes are bounded by the probe interval).
        if (yielded || i + 1 >= order.length || left <= 0 || !(r === probe ? control.freeRetry() : control.mayRetry(set, cls, e, left, order[i + 1]))) throw e;
        cur = { ...req, budgetMs: left };
      } finally {
        control.ended(set, r, cls, outcome, r === probe);
      }
    }
  }

  async function* hedged(req: ChildRequest, signal: AbortSignal, cls: string, order: readonly ReplicaState[], probe: ReplicaState | null, verify: boolean): AsyncIterable<Frame> {
    yield await new HedgedCall(control, set, name, req, signal, cls, order, probe, verify).run();
  }

  async function* query(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    control.admit();
    const cls = control.classOf(req);
    const { order, probe } = control.route(set);
    // Verification samples only requests that are not probes: a probe's answer is no reference.
    const verify = order.length > 1 && probe === null && control.sampleVerification();
    if ((control.hedge !== null || verify) && order.length > 1) yield* hedged(req, signal, cls, order, probe, verify);
    else yield* single(req, signal, cls, order, probe);
  }

  return { name, shards, replicas, state: set, query };
}

/** One attempt of a hedged call at one replica. */
interface Attempt {
  readonly r: ReplicaState;
  readonly kind: 'primary' | 'hedge' | 'failover' | 'verify';
  readonly ctl: Cancel;
  readonly t0: number;
  state: 'running' | 'answered' | 'failed';
  frame?: Frame;
  error?: CanopyError;
  /** Aborted by this call because another attempt won. */
  lost: boolean;
}

/**
 * One request to a replica set with hedging: the primary at once, a hedge after the delay
 * (budget and overload permitting), fail-over after an error, the first answer for every
 * shard wins. Every timer and listener is removed when the call settles, whichever way.
 */
class HedgedCall {
  readonly #tail: TailControl;
  readonly #set: ReplicaSetState;
  readonly #name: string;
  readonly #req: ChildRequest;
  readonly #signal: AbortSignal;
  readonly #cls: string;
  readonly #order: readonly ReplicaState[];
  readonly #probe: ReplicaState | null;
  readonly #attempts: Attempt[] = [];
  readonly #t0: number;
  /** Next replica (index into the order) for a fail-over or hedge; hedges wrap around. */
  #next = 1;
  #hedges = 0;
  #delay = 0;
  #timer: unknown = null;
  /** Verification sampling: the primary and a second replica from the start, answers compared. */
  readonly #verify: boolean;
  /** A verified call's first good answer, held (at most one grace period) for its partner's. */
  #held: Attempt | null = null;
  #graceTimer: unknown = null;
  #closed = false;
  #delivered = false;
  #winner: Attempt | null = null;
  #fallback: Attempt | null = null;
  #lastError: CanopyError | null = null;
  /** Answers that came after the winner was chosen but before it was handed over. */
  readonly #late: Attempt[] = [];
  /** Two answers were compared before the winner was handed over. */
  #compared = false;
  #resolve: (a: Attempt) => void = () => undefined;
  #reject: (e: CanopyError) => void = () => undefined;

  constructor(tail: TailControl, set: ReplicaSetState, name: string, req: ChildRequest, signal: AbortSignal, cls: string, order: readonly ReplicaState[], probe: ReplicaState | null, verify: boolean) {
    this.#verify = verify;
    this.#tail = tail;
    this.#set = set;
    this.#name = name;
    this.#req = req;
    this.#signal = signal;
    this.#cls = cls;
    this.#order = order;
    this.#probe = probe;
    this.#t0 = tail.now();
  }

  /** Runs the call; resolves to the one frame to pass up. */
  async run(): Promise<Frame> {
    if (this.#signal.aborted) throw toCanopyError(this.#signal.reason, 'CANOPY_ERR_CANCELLED');
    const won = new Promise<Attempt>((resolve, reject) => {
      this.#resolve = resolve;
      this.#reject = reject;
    });
    this.#signal.addEventListener('abort', this.#onParent, { once: true });
    this.#start(this.#order[0]!, 'primary');
    if (this.#verify && !this.#closed) this.#start(this.#order[this.#next++]!, 'verify');
    if (!this.#closed && this.#order.length > 1 && this.#tail.hedge !== null) {
      this.#delay = this.#tail.hedgeDelay(this.#set, this.#cls, this.#req.budgetMs);
      this.#timer = this.#tail.timers.setTimeout(this.#onTimer, this.#delay);
    }
    return this.#deliver(await won);
  }

  readonly #onParent = (): void => {
    if (this.#closed) return;
    this.#close();
    for (const a of this.#attempts) if (a.state === 'running') a.ctl.abort(this.#signal.reason);
    this.#reject(toCanopyError(this.#signal.reason, 'CANOPY_ERR_CANCELLED'));
  };

  readonly #onTimer = (): void => {
    this.#timer = null;
    if (this.#closed || this.#held !== null || this.#left() <= 0) return;
    // A probe's guard hedge is free (bounded by the probe interval), but not into an overloaded tier.
    const why = this.#probe !== null ? (this.#tail.overloaded() ? 'overload' : 'ok') : this.#tail.takeDuplicate();
    if (why !== 'ok') {
      this.#tail.count(why === 'budget' ? 'hedgesDenied' : 'hedgesSuppressed');
      return;
    }
    this.#hedges++;
    // Hedges wrap around the order, never back to a replica on probation.
    const pool = this.#probe === null ? this.#order : this.#order.slice(1);
    const k = this.#next++;
    const to = this.#probe === null ? pool[k % pool.length]! : pool[(k - 1) % pool.length]!;
    this.#tail.count('hedgesSent', to);
    this.#start(to, 'hedge');
    if (this.#hedges < this.#tail.hedge!.maxHedges) this.#timer = this.#tail.timers.setTimeout(this.#onTimer, this.#delay);
  };

  #left(): number {
    return remainingMs(this.#req.budgetMs, this.#tail.now() - this.#t0);
  }

  #start(r: ReplicaState, kind: Attempt['kind']): void {
    const a: Attempt = { r, kind, ctl: new Cancel(), t0: this.#tail.now(), state: 'running', lost: false };
    this.#attempts.push(a);
    this.#tail.started(r);
    const req = kind === 'primary' ? this.#req : { ...this.#req, budgetMs: this.#left() };
    const run = async (): Promise<Frame | undefined> => {
      let last: Frame | undefined;
      for await (const f of r.replica.child.query(req, a.ctl.signal)) last = f;
      return last;
    };
    run().then(
      (f) => this.#settled(a, f, null),
      (e: unknown) => this.#settled(a, undefined, e),
    );
  }

  #settled(a: Attempt, frame: Frame | undefined, err: unknown): void {
    const ms = this.#tail.now() - a.t0;
    let outcome: AttemptOutcome;
    if (frame !== undefined) {
      a.state = 'answered';
      a.frame = frame;
      outcome = { kind: 'answered', ms, good: answersAll(frame) };
    } else {
      a.state = 'failed';
      a.error = err === null ? new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${a.r.name} ended without a frame`) : toCanopyError(err);
      if (a.lost) outcome = { kind: 'lost', ms };
      else if (this.#signal.aborted) outcome = isDeadline(this.#signal.reason) ? { kind: 'failed', ms, deadline: true } : { kind: 'cancelled' };
      else outcome = { kind: 'failed', ms, deadline: false };
    }
    this.#tail.ended(this.#set, a.r, this.#cls, outcome, a.r === this.#probe);
    if (this.#closed) {
      if (frame !== undefined && a !== this.#winner && this.#winner !== null) {
        if (this.#delivered) this.#duplicate(a);
        else this.#late.push(a);
      }
      return;
    }
    const running = this.#attempts.some((x) => x.state === 'running');
    if (frame !== undefined && answersAll(frame)) {
      if (this.#held !== null) {
        // The partner of a verified call: compared when the held answer is handed over.
        this.#late.push(a);
        return this.#decide(this.#held);
      }
      if (!this.#verify || !running) return this.#decide(a);
      this.#held = a;
      this.#graceTimer = this.#tail.timers.setTimeout(this.#onGrace, this.#tail.verifyGraceMs(this.#set, this.#cls));
      return;
    }
    if (this.#held !== null) {
      if (!running) this.#decide(this.#held);
      return;
    }
    if (frame !== undefined) this.#fallback ??= a;
    else this.#lastError = a.error!;
    if (this.#attempts.some((x) => x.state === 'running')) return;
    if (frame === undefined && this.#failover(a.r === this.#probe, a.error!)) return;
    if (this.#fallback !== null) this.#decide(this.#fallback);
    else {
      this.#close();
      this.#reject(this.#lastError!);
    }
  }

  /** Re-sends to the next replica after a fast failure, when one is left and the retry budget grants it (free after a failed probe). */
  #failover(free: boolean, error: CanopyError): boolean {
    if (this.#next >= this.#order.length || this.#left() <= 0 || !(free ? this.#tail.freeRetry() : this.#tail.mayRetry(this.#set, this.#cls, error, this.#left(), this.#order[this.#next]))) return false;
    if (this.#timer !== null) {
      this.#tail.timers.clearTimeout(this.#timer);
      this.#timer = null;
    }
    this.#start(this.#order[this.#next++]!, 'failover');
    return true;
  }

  /** The grace period of a verified call ran out: the held answer goes without its partner's. */
  readonly #onGrace = (): void => {
    this.#graceTimer = null;
    if (!this.#closed && this.#held !== null) this.#decide(this.#held);
  };

  /** Stops the hedge and grace timers and the parent listener. */
  #close(): void {
    this.#closed = true;
    if (this.#graceTimer !== null) this.#tail.timers.clearTimeout(this.#graceTimer);
    this.#graceTimer = null;
    if (this.#timer !== null) this.#tail.timers.clearTimeout(this.#timer);
    this.#timer = null;
    this.#signal.removeEventListener('abort', this.#onParent);
  }

  #decide(a: Attempt): void {
    this.#close();
    this.#winner = a;
    for (const x of this.#attempts) {
      if (x.kind === 'hedge') this.#tail.count(x === a ? 'hedgesWon' : 'hedgesWasted', x.r);
      if (x.state === 'running') {
        x.lost = true;
        x.ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', `${a.r.name} answered ${this.#name} first`));
      }
    }
    this.#resolve(a);
  }

  /** A second answer: dropped; compared with the one used; a warning when they differ. */
  #duplicate(x: Attempt): TailWarning | null {
    this.#tail.count('duplicatesDropped');
    const w = this.#winner!;
    if (!answersAll(x.frame!) || !answersAll(w.frame!)) return null;
    this.#compared = true;
    if (w.frame!.rowsScanned === x.frame!.rowsScanned && partialsEqual(layoutOf(this.#req.plan, this.#req.schema), w.frame!.partial, x.frame!.partial)) return null;
    this.#tail.count('divergences');
    const shards = w.frame!.provenance.map((p) => p.shard);
    const warning: TailWarning = {
      code: 'CANOPY_WARN_REPLICAS_DIVERGED',
      message: `replicas ${w.r.name} and ${x.r.name} of ${this.#name} answered shard(s) ${shards.join(', ')} differently; ${w.r.name}'s answer (the first) was used`,
      shards,
      replicas: [w.r.name, x.r.name],
    };
    this.#tail.warn(warning);
    return warning;
  }

  /** The winner's frame, marked `hedged` when a hedge was sent and carrying in-band warnings. */
  #deliver(a: Attempt): Frame {
    this.#delivered = true;
    const warnings = this.#late.map((x) => this.#duplicate(x)).filter((w): w is TailWarning => w !== null);
    const frame = a.frame!;
    const hedged = this.#attempts.some((x) => x.kind === 'hedge');
    const verified = this.#compared;
    if (!hedged && !verified && warnings.length === 0) return frame;
    const extra = warnings.map((w) => ({ code: w.code, message: w.message }));
    const provenance = frame.provenance.map((e: TailShardStatus): TailShardStatus => ({
      ...e,
      ...(hedged ? { hedged: true as const } : {}),
      ...(verified ? { verified: true as const } : {}),
      ...(extra.length > 0 ? { warnings: [...(e.warnings ?? []), ...extra] } : {}),
    }));
    return { ...frame, provenance };
  }
}

export { EJECTION_DEFAULTS, ReplicaState, type EjectionOptions, type Replica } from './ejection.ts';
export { HEDGE_DEFAULTS, RETRY_DEFAULTS, RetryBudget, TAIL_WARNINGS, TailControl, type BudgetOptions, type RetryBudgetOptions, type HedgeOptions, type OverloadOptions, type ReplicaSetState, type TailCounters, type TailOptions, type TailTimers, type TailWarning } from './tail.ts';
export { LatencyWindow, queryClass } from './latency.ts';
