/**
 * The one gather engine: scatter a plan fragment to children, merge their frames as they
 * arrive, and account for every shard exactly once (answered, failed, omitted or pruned).
 * Used by aggregators and by the root alike.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CanopyError, MERGE_CHECK_EVERY, PartialAccumulator, refusesQuery, keyDictOf, setKeyDict, type Scalar, QueryMemory, TopKTracker, childBudgetMs, defaultReserveMs, type MemoryPool, outstandingIrrelevant, requestLayout, skippedTopKBound, toCanopyError, type ColumnarPartial, type Frame, type GatherTiming, type Partial, type ShardStatus } from '../merge/index.ts';
import type { ShardInfo } from '../merge/index.ts';
import { Cancel, systemClock, type Child, type ChildRequest, type Clock, type QueryWork, type SliceScheduler } from '../transport/index.ts';

/** Options of one gather. */
export interface GatherOptions {
  /** This node's name, prefixed to every provenance path (`root`, `agg-3`). */
  readonly self: string;
  /**
   * Reserve in ms kept back from the budget for this node's own merge and reply.
   * Default: {@link defaultReserveMs}.
   */
  readonly reserveMs?: number;
  /**
   * Reserve as a function of the budget received (e.g. {@link adaptiveReserveMs} with the
   * process's measured event-loop lag); used when `reserveMs` is not given.
   */
  readonly reserve?: (budgetMs: number) => number;
  /**
   * Estimated ms this node needs to merge and encode `groups` held groups; the gather's
   * cutoff moves earlier by that much as groups accumulate, so the reply still leaves before
   * the parent's deadline. Default: none.
   */
  readonly workMs?: (groups: number) => number;
  /** Memory budget: the process pool and the bytes one query may hold at this node. Default: none. */
  readonly memory?: { readonly pool: MemoryPool; readonly queryBytes: number };
  /** Time and timers (the simulator's virtual clock, fake timers in tests; default {@link systemClock}). */
  readonly clock?: Clock;
  /**
   * Checked after each child settles; returning true stops the gather at once: outstanding
   * children are cancelled and their shards recorded as omitted (e.g. min_coverage can no
   * longer be met). Default: never.
   */
  readonly stopWhen?: (progress: GatherProgress) => boolean;
  /**
   * Called whenever a child's frame (a progressive update or its answer) has been taken;
   * `snapshot()` merges everything so far. Default: none.
   */
  readonly onProgress?: (snapshot: () => GatherSnapshot) => void;
  /** Counters this gather adds to (owned by the node; injected, never global). */
  readonly counters?: GatherCounters;
  /** Called with each direct child's timing as it settles (per-child latency metrics). */
  readonly onTiming?: (t: GatherTiming) => void;
  /** The process's per-query work ledger: groups merged are accounted to the query. Default: none. */
  readonly work?: QueryWork;
  /** The process's slice scheduler: a sliced merge gives the loop back through it. Default: none (`setImmediate`). */
  readonly slices?: SliceScheduler;
}

/** What gathers count. */
export interface GatherCounters {
  /** Gathers stopped early because the outstanding shards could not change the answer. */
  earlyStops: number;
  /**
   * Groups of children's answers merged, counted per block of {@link MERGE_CHECK_EVERY} as the
   * merge goes (work within one frame: it stops growing when a merge is cancelled).
   */
  groupsMerged: number;
  /** Times a merge gave the event loop back in the middle of a frame ({@link MERGE_SLICE_MS}). */
  mergeYields: number;
}

/** New gather counters, all zero. */
export function gatherCounters(): GatherCounters {
  return { earlyStops: 0, groupsMerged: 0, mergeYields: 0 };
}

/**
 * Longest stretch (ms on the gather's clock) a merge of one child's answer runs without giving
 * the event loop back: a large answer (a 300k-group GROUP BY) is merged in blocks of
 * {@link MERGE_CHECK_EVERY} groups, and once a slice is used up the merge yields
 * (`setImmediate`), so the small frames of other queries on the same process (a probe's
 * `count(*)` through the nine sibling aggregators) are taken in between, and checks the
 * query's signal and deadline again. The leaf scan's slice is the same ({@link SCAN_SLICE_MS}
 * in src/leaf/scan.ts).
 */
export const MERGE_SLICE_MS = 8;

/** Groups `[from, to)` of a columnar partial (its arrays sliced, key dictionaries too; states are not copied). */
function columnarSlice(p: ColumnarPartial, from: number, to: number): Partial {
  const keys = p.keys.map((k) => {
    const part = k.slice(from, to);
    const d = keyDictOf(k);
    if (d !== undefined) setKeyDict(part as Scalar[], { codes: d.codes.subarray(from, to), values: d.values });
    return part;
  });
  return { type: 'columnar', size: to - from, keys, states: p.states.map((st) => st.slice(from, to)) };
}

/** The merged state of a gather so far (progressive answers). */
export interface GatherSnapshot {
  readonly partial: Frame['partial'];
  /** Entries of the shards settled so far (answered, failed or omitted), paths prefixed. */
  readonly provenance: readonly ShardStatus[];
  /** Shards asked that have not settled yet. */
  readonly pending: readonly number[];
  readonly rowsScanned: number;
  /**
   * Group top-k plans: the intervals of {@link GatherResult.topkIntervals} over what has
   * answered so far (answers and progressive updates), for truncating the snapshot.
   */
  readonly topkIntervals?: TopKIntervals;
}

/**
 * Group top-k bookkeeping of a gather: per merged group (by group key string) an upper bound
 * on its score and whether its states are complete, and the bound on groups no child reported.
 * A merged group absent from `groups` is complete, its score (rounded up) its upper bound
 * (the map is empty while every child reported all its groups exactly).
 */
export interface TopKIntervals {
  readonly groups: ReadonlyMap<string, { hi: number; exact: boolean }>;
  readonly unseen: number;
}

/** Shard counts so far, for {@link GatherOptions.stopWhen}. */
export interface GatherProgress {
  readonly total: number;
  readonly answered: number;
  readonly failed: number;
  readonly omitted: number;
}

/** A gather's answer: a frame, with the timings of this gather and of every gather below it. */
export interface GatherResult extends Omit<Frame, 'topk'> {
  readonly timings: readonly GatherTiming[];
  /** Group top-k plans: see {@link TopKIntervals}. */
  readonly topkIntervals?: TopKIntervals;
}

/**
 * Runs `fn` once the I/O already waiting has been handled: a timer that fires late (a busy
 * event loop runs its timers before it reads its sockets) must not give up on a child whose
 * answer is already in the socket buffer. A 0 ms timer runs in the loop's next timer phase,
 * after this turn's poll phase has read and delivered what had arrived (on the simulator's
 * virtual clock: after what is due at the same instant).
 */
function afterPendingIo(clock: Clock, fn: () => void): void {
  clock.setTimeout(fn, 0);
}

/** The entries of `stats` for `shards` (a child's part of its parent's statistics). */
function statsOf(stats: readonly ShardInfo[], shards: readonly number[]): ShardInfo[] {
  const mine = new Set(shards);
  return stats.filter((s) => mine.has(s.id));
}

/** Checks a child's provenance lists exactly the shards it was asked for, once each. */
function checkProvenance(child: string, asked: readonly number[], prov: readonly ShardStatus[]): void {
  const want = new Set(asked);
  const seen = new Set<number>();
  for (const e of prov) {
    if (!want.has(e.shard)) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${child} reported shard ${e.shard}, which it was not asked for`);
    if (seen.has(e.shard)) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${child} reported shard ${e.shard} twice`);
    seen.add(e.shard);
  }
  if (seen.size !== want.size) {
    const lost = asked.filter((s) => !seen.has(s));
    throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${child} did not report shard(s) ${lost.join(', ')}`);
  }
}

/**
 * The settled provenance entries of a child's last progressive update, to keep when the child
 * is lost afterwards; null when the update is not a sound account of shards it was asked for
 * (a shard outside `asked`, or twice), then it is dropped with the child.
 */
function keptUpdate(asked: readonly number[], update: Frame): readonly ShardStatus[] | null {
  const want = new Set(asked);
  const seen = new Set<number>();
  for (const e of update.provenance) {
    if (!want.has(e.shard) || seen.has(e.shard)) return null;
    seen.add(e.shard);
  }
  return update.provenance;
}

/** A budget (ms) as a message gives it: whole ms, or a tenth of a ms below 10 ms (a 0.4 ms budget is not '0 ms'). */
function budgetText(ms: number): string {
  return `${ms >= 10 ? Math.round(ms) : Math.round(ms * 10) / 10} ms`;
}

/**
 * Gathers `req` from `children` until each has answered, failed, or run out of budget.
 * Never throws for a child's failure: the child's shards become failed (its error code and
 * message) or omitted (deadline) entries, except those its last progressive update had
 * settled, which keep that update's account (its merged partial stays in the answer).
 * Shards no child serves are failed entries. A late answer after the child's slot closed is
 * dropped, never merged; outstanding child requests are aborted when the gather ends.
 * @returns the merged partial of the answered shards and one provenance entry per shard in
 *   `req.shards`, paths prefixed with `opts.self`.
 * @throws CanopyError CANOPY_ERR_CANCELLED when `signal` aborts before the gather ends.
 */
export async function gather(children: readonly Child[], req: ChildRequest, signal: AbortSignal, opts: GatherOptions): Promise<GatherResult> {
  const clock = opts.clock ?? systemClock;
  const now = (): number => clock.now();
  const layout = requestLayout(req.queryId, req.plan, req.schema);
  const acc = new PartialAccumulator(layout, {
    check: () => checkMerge(),
    charge: (bytes) => memory?.charge(bytes, 'group state'),
  });
  const spec = req.plan.topk;
  const tracker = spec === undefined ? null : new TopKTracker(layout, spec);
  const asked = new Set(req.shards);
  const provenance: ShardStatus[] = [];
  const timings: GatherTiming[] = [];
  let rowsScanned = 0;
  const t0Gather = now();
  const reserve = opts.reserveMs ?? opts.reserve?.(req.budgetMs) ?? defaultReserveMs(req.budgetMs);
  const childBudget = childBudgetMs(req.budgetMs, reserve);
  // Past this the parent has given up on us: merging further is wasted work.
  const hardDeadline = t0Gather + req.budgetMs;
  const memory = opts.memory === undefined ? null : new QueryMemory(opts.memory.pool, opts.memory.queryBytes, opts.self);
  const checkMerge = (): void => {
    if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `${opts.self}: query cancelled during a merge`);
    if (now() > hardDeadline) throw new CanopyError('CANOPY_ERR_DEADLINE', `${opts.self}: its ${budgetText(req.budgetMs)} budget ran out during a merge`);
  };
  // A merge stopped half-way leaves the merged state unusable: the gather then fails as a whole.
  let interrupted: CanopyError | null = null;
  // Merges of answers in progress (a sliced merge gives the loop back between blocks): while
  // one is, the accumulator holds part of a child whose shards are not settled yet, so early
  // termination does not look at it.
  let merging = 0;
  const counters = opts.counters;
  const worked = opts.work?.begin(req.queryId, opts.self, req.budgetMs);
  /**
   * Merges one answer into the accumulator. Without progressive snapshots (which must never
   * see half of a child), a large columnar answer is merged block by block, yielding to the
   * event loop once {@link MERGE_SLICE_MS} is used up and checking the signal and deadline
   * after each yield; an accumulator in sorted-run mode takes it whole (it keeps the arrays
   * and merges runs of similar size, checking the signal and deadline as it merges).
   */
  const mergeAnswer = (partial: Partial): Promise<void> | undefined => {
    if (partial.type !== 'columnar' || partial.size <= MERGE_CHECK_EVERY || opts.onProgress !== undefined || acc.takesWholeAnswers) {
      // In one piece and synchronously: nothing runs between the merge and the shards' accounting.
      acc.add(partial);
      if (partial.type !== 'rows') {
        const n = partial.type === 'columnar' ? partial.size : partial.groups.size;
        if (counters !== undefined) counters.groupsMerged += n;
        worked?.(n);
      }
      return undefined;
    }
    return mergeSliced(partial);
  };
  const mergeSliced = async (partial: ColumnarPartial): Promise<void> => {
    merging++;
    const slices = opts.slices?.task(req.queryId);
    try {
      let sliceStart = now();
      for (let from = 0; from < partial.size; from += MERGE_CHECK_EVERY) {
        const to = Math.min(partial.size, from + MERGE_CHECK_EVERY);
        acc.add(columnarSlice(partial, from, to));
        if (counters !== undefined) counters.groupsMerged += to - from;
        worked?.(to - from);
        if (to < partial.size && now() - sliceStart > MERGE_SLICE_MS) {
          await (slices === undefined ? yieldToLoop() : slices.turn());
          if (counters !== undefined) counters.mergeYields++;
          checkMerge();
          sliceStart = now();
        }
      }
    } finally {
      merging--;
      slices?.end();
    }
  };

  const served = new Set<number>();
  const stop = new Cancel();
  const progress = { total: asked.size, answered: 0, failed: 0, omitted: 0 };
  // Progressive updates of children still working: their latest merged state, by child.
  const latest = new Map<string, Frame>();
  const snapshot = (): GatherSnapshot => {
    const acc2 = new PartialAccumulator(layout);
    acc2.add(acc.result());
    const prov = [...provenance];
    // Top-k: progressive updates are truncated too; their bounds cover what they dropped.
    const t2 = tracker?.clone() ?? null;
    let rows = rowsScanned;
    for (const f of latest.values()) {
      acc2.add(f.partial);
      if (t2 !== null && f.partial.type !== 'rows') t2.add(f.partial, f.topk);
      rows += f.rowsScanned;
      for (const e of f.provenance) if (e.status === 'answered') prov.push({ ...e, path: `${opts.self}/${e.path}` });
    }
    const done = new Set(prov.map((p) => p.shard));
    const topk = t2 === null ? {} : { topkIntervals: { groups: t2.intervals(), unseen: Math.max(t2.unseen, skippedBound) } };
    return { partial: acc2.result(), provenance: prov, pending: req.shards.filter((sh) => !done.has(sh)), rowsScanned: rows, ...topk };
  };
  const progressed = (): void => {
    if (opts.onProgress !== undefined) opts.onProgress(snapshot);
  };
  // Early termination: with the asked shards' statistics, stop once the rest cannot matter.
  const stats = req.stats === undefined ? null : new Map(req.stats.map((s) => [s.id, s]));
  // Errors are built when first needed: a stack trace costs more than the rest of a small gather.
  let early: CanopyError | undefined;
  // Group top-k: bound on any score in the shards stopped early (joins the bound on unseen groups).
  let skippedBound = -Infinity;
  const checkEarly = (): void => {
    if (stats === null || stop.signal.aborted || merging > 0) return;
    const outstanding = req.shards.filter((sh) => !settledShards.has(sh)).map((sh) => stats.get(sh));
    if (outstanding.some((x) => x === undefined)) return;
    if (outstandingIrrelevant(req.plan, layout, acc.result(), outstanding as ShardInfo[], tracker?.unseen)) {
      skippedBound = skippedTopKBound(req.plan, outstanding as ShardInfo[]);
      if (counters !== undefined) counters.earlyStops++;
      stop.abort((early ??= new CanopyError('CANOPY_ERR_CANCELLED', 'early termination: the shard statistics (or, for a LIMIT without ORDER BY, the rows in hand) prove this shard cannot change the answer')));
    }
  };
  const settled = (): void => {
    if (!stop.signal.aborted && opts.stopWhen?.(progress) === true) stop.abort(new CanopyError('CANOPY_ERR_CANCELLED', `${opts.self} stopped its gather early`));
  };

  // Every provenance entry goes through `note`, which keeps the counts (no rescans per child).
  const settledShards = new Set<number>();
  const note = (e: ShardStatus): void => {
    provenance.push(e);
    settledShards.add(e.shard);
    if (e.status !== 'pruned') progress[e.status]++;
  };
  const record = (child: Child | null, shards: readonly number[], status: 'failed' | 'omitted', err: CanopyError): void => {
    const path = child === null ? opts.self : `${opts.self}/${child.name}`;
    for (const shard of shards) note({ shard, status, path, error: { code: err.code, message: err.message } });
  };
  // One listener on the query's signal and one on `stop`, fanning out to the live children
  // (a listener per child on shared signals costs O(children²) to add and remove).
  const live = new Map<Cancel, string>();
  const onParent = (): void => {
    const reason = new CanopyError('CANOPY_ERR_CANCELLED', 'query cancelled');
    for (const c of live.keys()) c.abort(reason);
  };
  const onStop = (): void => {
    for (const c of live.keys()) c.abort(stop.signal.reason);
  };
  // The cutoff: when the children still working must be given up so that this node's merge
  // and reply leave in time. It starts at the child budget and moves earlier as the groups
  // held (the work left to merge and encode) grow.
  let cutoffAt = t0Gather + childBudget;
  let cutoffTimer: unknown;
  const cut = (): void => {
    cutoffTimer = undefined;
    afterPendingIo(clock, () => {
      for (const [c, name] of live) c.abort(new CanopyError('CANOPY_ERR_DEADLINE', `${name} did not answer in time for ${opts.self} to merge and reply within its ${budgetText(req.budgetMs)} budget`));
    });
  };
  const tighten = (): void => {
    if (opts.workMs === undefined || live.size === 0) return;
    const at = t0Gather + childBudget - opts.workMs(acc.groupsBound);
    if (at >= cutoffAt) return;
    cutoffAt = at;
    if (cutoffTimer !== undefined) clock.clearTimeout(cutoffTimer);
    cutoffTimer = clock.setTimeout(cut, Math.max(0, at - now()));
  };
  // A node's own limit (groups, memory) refuses the query: every child still working is stopped.
  const refuse = (err: CanopyError): void => {
    if (!stop.signal.aborted) stop.abort(new CanopyError('CANOPY_ERR_CANCELLED', `the query was refused: ${err.message}`));
  };
  signal.addEventListener('abort', onParent, { once: true });
  stop.signal.addEventListener('abort', onStop, { once: true });
  let finished: CanopyError | undefined;
  // Every child gets the same budget from the same moment (all start in one turn): one timer
  // per gather gives up on the children still working when it runs out, not one per child.
  let budgetTimer: unknown;
  const overBudget = (): void => {
    budgetTimer = undefined;
    afterPendingIo(clock, () => {
      for (const [c, name] of live) c.abort(new CanopyError('CANOPY_ERR_DEADLINE', `${name} did not answer within its ${budgetText(childBudget)} budget`));
    });
  };
  let budgetArmed = false;

  const runChild = async (child: Child): Promise<void> => {
    const mine = child.shards.filter((s) => asked.has(s) && !served.has(s));
    for (const s of mine) served.add(s);
    if (mine.length === 0) return;
    const t0 = now();
    const timing = (outcome: GatherTiming['outcome']): void => {
      const t: GatherTiming = { gather: opts.self, child: child.name, shards: mine.length, elapsedMs: now() - t0, outcome };
      timings.push(t);
      opts.onTiming?.(t);
    };
    if (childBudget <= 0) {
      record(child, mine, 'omitted', new CanopyError('CANOPY_ERR_DEADLINE', `no budget left for ${child.name}`));
      timing('omitted');
      return;
    }
    const ctl = new Cancel();
    live.set(ctl, child.name);
    if (signal.aborted) ctl.abort(new CanopyError('CANOPY_ERR_CANCELLED', 'query cancelled'));
    else if (stop.signal.aborted) ctl.abort(stop.signal.reason);
    if (!budgetArmed) {
      budgetArmed = true;
      budgetTimer = clock.setTimeout(overBudget, childBudget);
    }
    let closed = false;
    // The child's stream ran to its end: nothing of it is left to abort.
    let ended = false;
    const run = (async (): Promise<Frame | undefined> => {
      let last: Frame | undefined;
      // The child gets the statistics of its own shards only (not the whole request's: 100
      // shards' zone maps in every leaf request were most of a row query's encode and parse cost).
      const sub = req.stats === undefined ? { ...req, shards: mine, budgetMs: childBudget } : { ...req, shards: mine, budgetMs: childBudget, stats: statsOf(req.stats, mine) };
      for await (const f of child.query(sub, ctl.signal)) {
        if (closed) break;
        last = f;
        if (f.final === false && f.partial.type !== 'rows' === (layout.plan.rows === null)) {
          latest.set(child.name, f);
          progressed();
        }
      }
      ended = !closed;
      return last;
    })();
    const aborted = new Promise<never>((_, reject) => {
      ctl.signal.addEventListener('abort', () => reject(ctl.signal.reason as Error), { once: true });
    });
    run.catch(() => undefined);
    aborted.catch(() => undefined);
    try {
      const frame = await Promise.race([run, aborted]);
      closed = true;
      latest.delete(child.name);
      if (frame === undefined) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${child.name} ended without a frame`);
      if (frame.final === false) throw new CanopyError('CANOPY_ERR_CHILD_GARBLED', `${child.name} ended with a progressive update, not an answer`);
      checkProvenance(child.name, mine, frame.provenance);
      // Taken only after the parent gave up (a loop running seconds late reads sockets before
      // its deadline timers): merging it would be work for nobody.
      if (now() > hardDeadline) throw new CanopyError('CANOPY_ERR_DEADLINE', `${child.name} answered after ${opts.self}'s ${budgetText(req.budgetMs)} budget had run out`);
      try {
        const sliced = mergeAnswer(frame.partial);
        if (sliced !== undefined) await sliced;
      } catch (e) {
        const err = toCanopyError(e);
        if (refusesQuery(err.code)) refuse(err);
        else {
          interrupted ??= err;
          stop.abort(err);
        }
        throw err;
      }
      // A per-query limit, or a value out of its type's range (int64 overflow, a failed cast),
      // is the query's error wherever it happens: the whole query is refused.
      const limitHit = frame.provenance.find((p) => p.status === 'failed' && refusesQuery(p.error?.code));
      if (limitHit?.error !== undefined && refusesQuery(limitHit.error.code)) refuse(new CanopyError(limitHit.error.code, limitHit.error.message));
      if (tracker !== null && frame.partial.type !== 'rows') tracker.add(frame.partial, frame.topk);
      rowsScanned += frame.rowsScanned;
      for (const e of frame.provenance) note({ ...e, path: `${opts.self}/${e.path}` });
      for (const t of frame.timings ?? []) timings.push({ ...t, gather: `${opts.self}/${t.gather}` });
      timing('answered');
    } catch (e) {
      closed = true;
      const update = latest.get(child.name);
      latest.delete(child.name);
      // A stream never takes back what it showed: the child's last merged update stays its
      // contribution (the exact answer for the shards it settled); only the rest is lost, or,
      // stopped early, pruned.
      const kept = update === undefined ? null : keptUpdate(mine, update);
      if (kept !== null) {
        acc.add(update!.partial);
        if (tracker !== null && update!.partial.type !== 'rows') tracker.add(update!.partial, update!.topk);
        rowsScanned += update!.rowsScanned;
        for (const en of kept) note({ ...en, path: `${opts.self}/${en.path}` });
      }
      const settledHere = new Set(kept?.map((en) => en.shard));
      if (early !== undefined && ctl.signal.reason === early) {
        // Cancelled by early termination: proven irrelevant, so it counts like a pruned shard.
        const why = early;
        for (const shard of mine) if (!settledHere.has(shard)) note({ shard, status: 'pruned', path: `${opts.self}/${child.name}`, error: { code: why.code, message: why.message } });
        timing('omitted');
        return;
      }
      const err = toCanopyError(e);
      const omitted = err.code === 'CANOPY_ERR_DEADLINE' || err.code === 'CANOPY_ERR_CANCELLED';
      record(child, mine.filter((sh) => !settledHere.has(sh)), omitted ? 'omitted' : 'failed', err);
      // A child refusing the query (a per-query limit, a value out of range: HTTP 400 before its
      // first frame) refuses it here too: the others are stopped, the parent refuses on its provenance.
      if (refusesQuery(err.code)) refuse(err);
      timing(omitted ? 'omitted' : 'failed');
    } finally {
      live.delete(ctl);
      tighten();
      settled();
      checkEarly();
      progressed();
      // A child still running (a loser, or one whose answer came with more to follow) is told to
      // stop; one whose stream ended needs no abort event (one per child per gather otherwise).
      if (!ctl.signal.aborted && !ended) ctl.abort((finished ??= new CanopyError('CANOPY_ERR_CANCELLED', 'gather finished')));
    }
  };

  try {
    await Promise.all(children.map(runChild));
  } finally {
    signal.removeEventListener('abort', onParent);
    stop.signal.removeEventListener('abort', onStop);
    if (cutoffTimer !== undefined) clock.clearTimeout(cutoffTimer);
    if (budgetTimer !== undefined) clock.clearTimeout(budgetTimer);
    memory?.release();
  }
  if (signal.aborted) throw toCanopyError(signal.reason, 'CANOPY_ERR_CANCELLED');
  if (interrupted !== null) throw interrupted;
  const orphans = req.shards.filter((s) => !served.has(s));
  if (orphans.length > 0) record(null, orphans, 'failed', new CanopyError('CANOPY_ERR_BAD_REQUEST', `${opts.self} has no child serving shard(s) ${orphans.join(', ')}`));
  const topk = tracker === null ? {} : { topkIntervals: { groups: tracker.intervals(), unseen: Math.max(tracker.unseen, skippedBound) } };
  if (opts.slices !== undefined && acc.size > MERGE_CHECK_EVERY) {
    // Building a large result is one long stretch: on a turn of its own (sibling gathers end together).
    await opts.slices.once(req.queryId);
    if (signal.aborted) throw toCanopyError(signal.reason, 'CANOPY_ERR_CANCELLED');
  }
  return { partial: acc.result(), provenance, rowsScanned, timings, ...topk };
}
