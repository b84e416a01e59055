/**
 * The root: parse -> plan -> gather (the same engine as aggregators) -> finalise ->
 * label and account for every shard. "An aggregator with a parser in front and a
 * finaliser behind".
 */
import { randomUUID } from 'node:crypto';
import { gather, gatherCounters, type GatherCounters, type GatherOptions, type GatherResult, type GatherSnapshot } from '../aggregator/index.ts';
import {
  CanopyError,
  PartialAccumulator,
  isoFromMicros,
  dateText,
  emptyPartial,
  boundAggregateAnswer,
  foldEqualityChains,
  boundRowAnswer,
  combineTopKCell,
  estimateAnswer,
  planEstimates,
  finalise,
  layoutOf,
  shardMayMatch,
  remainingMs,
  scoreOf,
  weakest,
  type AnswerBounds,
  type Catalog,
  type Cell,
  type CellLabel,
  type GroupEntry,
  type Partial,
  type PartialLayout,
  type QueryPlan,
  type TopKSpec,
  groupKeyString,
  groupEntriesOf,
  type GatherTiming,
  type ColumnInfo,
  type Scalar,
  type ScanPlan,
  type ShardInfo,
  type ShardStatus,
  type TableSchema,
  refusesQuery,
} from '../merge/index.ts';
import { coalesce, systemClock, type Child, type Clock } from '../transport/index.ts';
import { DEFAULT_LIMITS, everyGroupARow, planQuery, type QueryLimits } from './sql/index.ts';
import { candidateFilter, exactFirstRound, planTopK, topKAnswer } from './topk.ts';
import { columnRoles, type ColumnRole } from './format.ts';
import { limitProbe, rowTopKShards } from './shard-choice.ts';
import { IntervalMemo } from './snapshots.ts';
import { answerWarnings, exactNotReached, pruneReason, type AnswerWarning } from './warnings.ts';
import type { QueryRequestBody } from './api.ts';

/** One served table: its catalog and the root's children (aggregators or leaves). */
export interface ServedTable {
  readonly catalog: Catalog;
  readonly children: readonly Child[];
}

/** Root configuration. */
export interface RootOptions {
  readonly tables: ReadonlyMap<string, ServedTable>;
  readonly limits?: QueryLimits;
  /** Deadline when the request gives none, ms (default 30,000). */
  readonly defaultDeadlineMs?: number;
  /** Largest deadline a request may ask for, ms (default 300,000). */
  readonly maxDeadlineMs?: number;
  /** Time and timers of the root's gathers and snapshots (default {@link systemClock}; the simulator's virtual clock). */
  readonly clock?: Clock;
  /** Called with each of the root's children's timings as they settle (metrics). */
  readonly onTiming?: (t: GatherTiming) => void;
  /** Reserve, merge-work estimate and memory budget of the root's gathers (see GatherOptions). */
  readonly gather?: Pick<GatherOptions, 'reserve' | 'workMs' | 'memory'>;
}

/**
 * Completion policies:
 * - `partial` (default): answer when every shard is accounted for or at the deadline,
 *   with what arrived, labelled and bounded;
 * - `all`: the same deadline, but every shard is always waited for (never stopped early),
 *   so the answer is as complete as the deadline allows;
 * - `min_coverage`: fail fast with CANOPY_ERR_NO_COVERAGE (and the missing list) as soon as
 *   fewer than `min_coverage` of the shards can answer.
 */
export type CompletionPolicy = 'all' | 'partial' | 'min_coverage';

/** A query request (`POST /v1/query` body less `stream`; declared by `QueryRequestSchema` in api.ts). */
export type QueryRequest = Readonly<Omit<QueryRequestBody, 'stream'>>;

/** Answer labels, from strongest to weakest (src/merge/label.ts). */
export type Label = CellLabel;

/** A shard that did not contribute, and why. */
export interface MissingShard {
  readonly shard: number;
  readonly path: string;
  /** `pending` only in progressive snapshots: not answered yet. */
  readonly reason: 'failed' | 'omitted' | 'pending';
  readonly error: { readonly code: string; readonly message: string } | null;
}

/** The answer, before JSON formatting (values are SQL scalars). */
export interface QueryAnswer {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly Scalar[])[];
  readonly label: Label;
  /** Per row, per column: null for exact cells; present only when the answer is not exact. */
  readonly cells: readonly (readonly (Cell | null)[])[] | null;
  /** True when the rows present are proven to be exactly the complete answer's rows. */
  readonly rowsComplete: boolean;
  readonly coverage: { readonly shards: number; readonly answered: number; readonly failed: number; readonly omitted: number; readonly pruned: number; readonly pending?: number };
  readonly missing: readonly MissingShard[];
  readonly stats: { readonly elapsed_ms: number; readonly rows_scanned: number; readonly round_trips: number };
  readonly provenance: readonly ShardStatus[];
  /** In-band warnings: replica divergence, pruned shards with the reason, missing shards, top-k truncation (src/root/warnings.ts). */
  readonly warnings?: readonly AnswerWarning[];
  readonly timings?: readonly GatherTiming[];
  /** False for a progressive snapshot, true for the answer. */
  readonly final: boolean;
  /** Why some or all uncertain cells carry no estimate (answers that are not exact). */
  readonly estimateNote?: string;
  /** Per column: group key, aggregate (and its function) or a row query's column. */
  readonly roles?: readonly ColumnRole[];
  /** Aggregate answers: the group of each row (for matching cells across snapshots). */
  readonly groups?: readonly GroupEntry[] | null;
}

const DEFAULT_DEADLINE_MS = 30_000;

/** Plans a Root keeps by SQL text. */
export const PLAN_CACHE_SIZE = 256;

/** The root engine: plans and answers queries over the served tables. */
export class Root {
  /** What the root's gathers count (early terminations). */
  readonly counters: GatherCounters = gatherCounters();
  readonly #opts: RootOptions;
  readonly #schemas: Map<string, TableSchema>;
  /**
   * Planned scopes (see {@link Root.#scope}) by SQL text and `shard_size`, most recently used
   * last (at most {@link PLAN_CACHE_SIZE}): parsing, then pruning 100s of shards and writing
   * each pruned shard's reason, are most of a small query's root CPU. A scope is immutable
   * and depends only on the SQL, `shard_size`, the served catalogs and the limits, which a
   * Root never changes. Failures are not kept.
   */
  readonly #scopes = new Map<string, Scope>();

  constructor(opts: RootOptions) {
    this.#opts = opts;
    this.#schemas = new Map([...opts.tables].map(([name, t]) => [name, t.catalog.table]));
  }

  /** Schemas of the served tables, by name. */
  get schemas(): ReadonlyMap<string, TableSchema> {
    return this.#schemas;
  }

  /** Catalogs of the served tables (schema, partitioning, per-shard statistics), by name. */
  get catalogs(): ReadonlyMap<string, Catalog> {
    return new Map([...this.#opts.tables].map(([name, t]) => [name, t.catalog]));
  }

  /**
   * Plans a query without running it, so that what planning refuses (bad SQL, an unknown
   * table or column, a type error, a LIMIT out of range) is known before an answer is begun,
   * e.g. before a stream's headers are sent. The plan is cached: {@link Root.query} of the
   * same request does not plan again (unless the plan read now()).
   * @throws CanopyError planning errors (4xx), as {@link Root.query} would throw them.
   */
  prepare(req: QueryRequest): void {
    this.#scope(req);
  }

  /**
   * Answers one query. With `onSnapshot`, progressive answers are delivered while shards are
   * still working (at most one per `snapshotIntervalMs`, default 100 ms): the same shape as
   * the answer, with shards not yet answered counted as `pending` and bounded like missing
   * ones; every interval only narrows from one snapshot to the next.
   * @throws CanopyError: planning errors (4xx); CANOPY_ERR_NO_COVERAGE when no shard answered
   *   (details list the missing shards); CANOPY_ERR_LIMIT when a shard hit a per-query limit
   *   or a row query without LIMIT exceeds `maxRows`; CANOPY_ERR_CANCELLED when `signal` aborts.
   */
  async query(req: QueryRequest, signal: AbortSignal, onSnapshot?: (a: QueryAnswer) => void, snapshotIntervalMs = 100): Promise<QueryAnswer> {
    try {
      return await this.#answer(req, signal, onSnapshot, snapshotIntervalMs);
    } catch (e) {
      throw this.#rowsForGroups(req, e);
    }
  }

  /**
   * A plan whose every group is a row carries the rows an answer holds as its group limit
   * (src/root/sql/index.ts, everyGroupARow), so a node refuses past it as soon as it counts
   * the groups: that refusal (a leaf's or a merge's group-limit message, or the grouping sets'
   * union past 4 x that limit) is the rows limit's.
   * Other errors are returned unchanged.
   */
  #rowsForGroups(req: QueryRequest, e: unknown): unknown {
    if (!(e instanceof CanopyError) || e.code !== 'CANOPY_ERR_LIMIT' || !/groups \(the per-query group limit\)|^the grouping sets hold more than/.test(e.message)) return e;
    const { plan, limits } = this.#scope(req);
    return everyGroupARow(plan) && plan.scan.maxGroups === limits.maxLimit && limits.maxLimit < limits.maxGroups ? tooManyRows(plan, limits) : e;
  }

  /** {@link Root.query}, its group-limit refusals as they come. */
  async #answer(req: QueryRequest, signal: AbortSignal, onSnapshot: ((a: QueryAnswer) => void) | undefined, snapshotIntervalMs: number): Promise<QueryAnswer> {
    const clock = this.#opts.clock ?? systemClock;
    const now = (): number => clock.now();
    const t0 = now();
    const scope = this.#scope(req);
    const { limits, served, schema, total, topk, estimates, plan, layout } = scope;
    // Row top-k: shards the catalog proves cannot reach the first k rows are not asked
    // (rowTopKShards), except under policy "all", which never stops early.
    const skip = req.policy === 'all' ? null : scope.rowTopKSkip;
    const asked = skip === null ? scope.asked : skip.ask;
    let prunedEntries = skip === null ? scope.prunedEntries : [...scope.prunedEntries, ...skip.entries];
    const deadline = req.deadline_ms ?? this.#opts.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
    const minShare = req.policy === 'min_coverage' ? (req.min_coverage ?? 1) : 0;
    const stopWhen = minShare > 0 ? (p: { failed: number; omitted: number }) => (total - p.failed - p.omitted) / total < minShare : undefined;
    const queryId = randomUUID();
    let ctx: AnswerContext = { plan, layout, served, limits, t0, now, deadlineMs: deadline, estimateNote: estimates.note };
    // Progressive snapshots, coalesced; each cell's interval is intersected with the last one's.
    const narrow = new IntervalMemo();
    let latestSnap: (() => GatherSnapshot) | undefined;
    const emit = (): void => {
      const snap = latestSnap!();
      try {
        // Group top-k: children's updates are truncated, so the snapshot is labelled from the
        // top-k intervals of what has answered so far, and from the catalog for what is pending.
        const t = topk === null ? undefined : { spec: topk, intervals: snap.topkIntervals };
        onSnapshot!(withEstimates(ctx, narrow.apply(this.#describe(ctx, snap.partial, [...snap.provenance, ...prunedEntries], snap.pending, snap.rowsScanned, 1, t, false)), t?.intervals));
      } catch {
        // A snapshot that cannot be described yet (e.g. nothing answered) is skipped.
      }
    };
    const snapshots = coalesce(snapshotIntervalMs, clock, emit);
    const onProgress =
      onSnapshot === undefined
        ? undefined
        : (snap: () => GatherSnapshot): void => {
            latestSnap = snap;
            snapshots.schedule();
          };
    // Early termination applies to row queries (top-k, and LIMIT without ORDER BY once enough
    // rows are in hand), to MIN/MAX-only aggregates, and to group top-k by MAX DESC / MIN ASC
    // when k' >= k (see outstandingIrrelevant): send the statistics.
    const early =
      plan.scan.rows !== null ||
      (plan.scan.rows === null && plan.scan.groupBy.length === 0 && plan.scan.partials.every((p) => p.kind === 'min' || p.kind === 'max')) ||
      (topk !== null && topk.combine === 'max' && plan.limit !== null && topk.fetch >= plan.limit);
    const round = (scan: ScanPlan, shards: readonly number[], progress: typeof onProgress, budgetCapMs = Infinity): Promise<GatherResult> =>
      // Every shard pruned: nothing to ask (no controllers, timers or listeners to set up).
      shards.length === 0 ? Promise.resolve({ partial: emptyPartial(layoutOf(scan, schema)), provenance: [], rowsScanned: 0, timings: [] }) :
      gather(
        served.children,
        {
          queryId,
          schema,
          plan: scan,
          shards,
          budgetMs: Math.min(budgetCapMs, remainingMs(deadline, now() - t0)),
          trace: req.trace === true,
          ...(progress === undefined ? {} : { stream: true }),
          ...(early && req.policy !== 'all' ? { stats: childStats(served.catalog, shards) } : {}),
        },
        signal,
        {
        ...this.#opts.gather,
        self: 'root',
        clock,
        counters: this.counters,
        ...(this.#opts.onTiming === undefined ? {} : { onTiming: this.#opts.onTiming }),
        ...(stopWhen === undefined ? {} : { stopWhen }),
        ...(progress === undefined ? {} : { onProgress: progress }),
      });
    // Round trips through the tree: none when every shard was pruned (nothing was asked).
    let roundTrips = asked.length === 0 ? 0 : 1;
    let result: GatherResult;
    // LIMIT without ORDER BY: first ask only the shards whose rows can fill it (limitProbe).
    const probe = onSnapshot === undefined && req.policy !== 'all' && minShare === 0 && plan.limit !== null ? limitProbe(plan.scan, served.catalog, asked) : null;
    // Refinement rounds are used only when every shard answers (the answer is then exact),
    // so they carry no estimate moments (planEstimates appended them: the other partials keep their indexes).
    // Built only for exact: true group top-k (a layout per request otherwise).
    const refining = topk !== null && req.exact === true;
    const leanScan: ScanPlan = refining ? { ...plan.scan, partials: plan.scan.partials.filter((p) => p.kind !== 'moments') } : plan.scan;
    const leanCtx: AnswerContext = refining ? { ...ctx, plan: { ...plan, scan: leanScan }, layout: layoutOf(leanScan, schema) } : ctx;
    // exact: true over COUNT / SUM (exactFirstRound): the first round is lean too, since its
    // leaves send every group and a moments state per group would cost more than the scan.
    // Streamed alike: its snapshots then carry bounds without estimates, where the TPUT rounds
    // of a normal first round cost a third round and half as many rows again.
    const first = topk === null || !refining ? topk : exactFirstRound(topk);
    const firstLean = first !== topk && leanScan.partials.length < plan.scan.partials.length;
    if (firstLean) ctx = { ...leanCtx, estimateNote: EXACT_NO_ESTIMATES };
    try {
      if (probe === null) result = await round(topk === null ? plan.scan : { ...(firstLean ? leanScan : plan.scan), topk: first! }, asked, onProgress);
      else {
        const r = await this.#probeRows(plan.scan, layout, asked, probe, (scan, shards, cap) => round(scan, shards, undefined, cap), remainingMs(deadline, now() - t0));
        result = r.result;
        roundTrips = r.roundTrips;
      }
    } finally {
      snapshots.cancel();
    }
    if (probe === null && plan.scan.rows?.floor !== undefined) {
      const refill = await this.#refillRowTopK(plan.scan, served.catalog, scope.asked, result, () => remainingMs(deadline, now() - t0), (scan, shards) => round(scan, shards, undefined));
      if (refill !== null) {
        result = refill.result;
        prunedEntries = [...scope.prunedEntries, ...refill.skipped];
        roundTrips += refill.rounds;
      }
    }
    const provenance: ShardStatus[] = [...result.provenance, ...prunedEntries];
    this.#checkCoverage(provenance, total, minShare);
    let out = this.#describe(ctx, result.partial, provenance, [], result.rowsScanned, roundTrips, topk === null ? undefined : { spec: topk, intervals: result.topkIntervals }, true);
    let ansCtx = ctx;
    if (topk !== null && req.exact === true && out.topkState !== undefined && !out.topkState.exact && out.missing.length === 0) {
      // Refinement (TPUT): exact values of every candidate that could still be in the top k.
      // If a group no node reported could still make it, first a threshold round (COUNT/SUM:
      // every node sends each group that may reach its share of τ1, round 1's k-th lower
      // bound, so unreported groups stay below τ1 and the candidates are the groups whose
      // upper bound reaches it); if that does not bound them either, one untruncated round.
      let t = out.topkState;
      let rows = result.rowsScanned;
      const complete = (g: GatherResult): boolean => g.provenance.every((p) => p.status === 'answered' || p.status === 'pruned');
      // TPUT's first threshold τ1 (the k-th lower bound of round 1): after the threshold round
      // no unreported group reaches it, and the complete k-th value is at least it.
      let tau = -Infinity;
      if (!(Number.isFinite(t.kthScore) && t.unseen < t.kthScore) && topk.combine === 'add' && Number.isFinite(t.kthScore) && t.kthScore > 0) {
        const spec: TopKSpec = { ...topk, minScorePerShard: t.kthScore / asked.length };
        roundTrips++;
        const threshold = await round({ ...leanScan, topk: spec }, asked, undefined);
        if (complete(threshold)) {
          rows += threshold.rowsScanned;
          const o = this.#describe(leanCtx, threshold.partial, provenance, [], rows, roundTrips, { spec, intervals: threshold.topkIntervals }, true);
          tau = t.kthScore;
          out = o;
          ansCtx = leanCtx;
          result = threshold;
          if (o.topkState !== undefined) t = o.topkState;
        }
      }
      if (out.topkState !== undefined && !t.exact) {
        // Any group outside the candidates scores below both the k-th lower bound merged now and τ1.
        const floor = Math.max(t.kthScore, tau);
        const refine = Number.isFinite(t.kthScore) && t.unseen < floor;
        const his = result.topkIntervals?.groups;
        const inTop = new Set((out.groups ?? []).map((g) => groupKeyString(g.keys)));
        const candidates =
          tau === -Infinity || his === undefined
            ? t.candidates
            : t.candidates.filter((g) => {
                const key = groupKeyString(g.keys);
                return inTop.has(key) || (his.get(key)?.hi ?? scoreOf(leanCtx.layout, topk, g.states[topk.partial], true)) >= floor;
              });
        const scan: ScanPlan = refine ? { ...leanScan, filter: candidateFilter(plan, candidates) } : leanScan;
        const prunedAgain = new Set(served.catalog.shards.filter((sh) => !shardMayMatch(scan.filter, sh)).map((sh) => sh.id));
        roundTrips++;
        const second = await round(scan, asked.filter((id) => !prunedAgain.has(id)), undefined);
        if (complete(second)) {
          out = this.#describe(leanCtx, second.partial, provenance, [], rows + second.rowsScanned, roundTrips, undefined, true);
          ansCtx = leanCtx;
          result = second;
        }
      }
    }
    const { topkState: _drop, ...rest } = out;
    // exact: true asked but not reached: the warning says why, not "ask with exact: true".
    const answer = topk !== null && req.exact === true && rest.warnings !== undefined ? { ...rest, warnings: exactNotReached(rest.warnings, rest.missing.length > 0) } : rest;
    return withEstimates(ansCtx, narrow.apply({ ...answer, ...(req.trace === true ? { timings: result.timings } : {}) }), topk === null ? undefined : result.topkIntervals);
  }

  /**
   * Step 1 of a query, planning: parse and plan the SQL, fold equality chains into IN lists,
   * find the served table, prune shards by their zone maps, plan group top-k and estimates.
   * @throws CanopyError planning errors (4xx), CANOPY_ERR_UNKNOWN_TABLE.
   */
  #scope(req: QueryRequest): Scope {
    const key = req.shard_size === undefined ? req.sql : `${req.shard_size}\u0000${req.sql}`;
    let scope = this.#scopes.get(key);
    if (scope === undefined) {
      scope = this.#planScope(req);
      if (this.#scopes.size >= PLAN_CACHE_SIZE) this.#scopes.delete(this.#scopes.keys().next().value!);
    } else this.#scopes.delete(key);
    // A plan that read now() holds this query's instant: the next query plans afresh.
    if (!scope.volatile) this.#scopes.set(key, scope);
    return scope;
  }

  /** {@link Root.#scope} uncached. */
  #planScope(req: QueryRequest): Scope {
    const limits = this.#opts.limits ?? DEFAULT_LIMITS;
    const planned = planQuery(req.sql, this.#schemas, limits);
    // Equality chains go down as IN lists: the same rows, a fraction of the plan's bytes.
    const foldSchema = this.#schemas.get(planned.scan.table);
    const foldedFilter = planned.scan.filter === null || foldSchema === undefined ? null : foldEqualityChains(planned.scan.filter, (c) => foldSchema.columns.find((x) => x.name === c)?.type);
    const parsed = foldedFilter === null ? planned : { ...planned, scan: { ...planned.scan, filter: foldedFilter } };
    const served = this.#opts.tables.get(parsed.scan.table);
    if (served === undefined) throw new CanopyError('CANOPY_ERR_UNKNOWN_TABLE', `table '${parsed.scan.table}' is not served`);
    const schema = served.catalog.table;
    const total = served.catalog.shards.length;
    // A row query without WHERE returns the table's rows (the catalog counts them) after the
    // OFFSET, up to its LIMIT: past the limit it is refused now, before any shard is asked.
    if (parsed.scan.rows !== null && parsed.scan.filter === null) {
      const rows = served.catalog.shards.reduce((n, sh) => n + sh.rows, 0) - (parsed.offset ?? 0);
      if (Math.min(rows, parsed.limit ?? Infinity) > rowCap(parsed, limits)) throw tooManyRows(parsed, limits);
    }
    // Pruning: shards whose zone maps exclude the WHERE clause are not asked.
    const pruned = served.catalog.shards.filter((s) => !shardMayMatch(parsed.scan.filter, s)).map((s) => s.id);
    // Estimates (COUNT, SUM, AVG of answers that miss shards): planned only where honest.
    const topk = planTopK(parsed, served.catalog, req.shard_size);
    const estimates = planEstimates(parsed, served.catalog, pruned.length);
    const prunedSet = new Set(pruned);
    const asked = served.catalog.shards.map((s) => s.id).filter((id) => !prunedSet.has(id));
    const prunedEntries: ShardStatus[] = served.catalog.shards.filter((s) => prunedSet.has(s.id)).map((s) => ({ shard: s.id, status: 'pruned', path: 'root', reason: pruneReason(parsed.scan.filter, s, schema) }));
    const choice = rowTopKShards(estimates.plan.scan, served.catalog, asked);
    // The threshold is proven whatever is asked (policy "all" included): at least k rows reach
    // it, so the leaves drop rows that sort after it and skip batches whose zone map does.
    const rows = estimates.plan.scan.rows;
    const plan = choice !== null && typeof choice.threshold === 'number' && rows !== null ? { ...estimates.plan, scan: { ...estimates.plan.scan, rows: { ...rows, floor: choice.threshold } } } : estimates.plan;
    const layout = layoutOf(plan.scan, schema);
    const rowTopKSkip: Scope['rowTopKSkip'] = choice === null ? null : { ask: choice.ask, entries: rowTopKSkipEntries(plan.scan, choice) };
    return { limits, served, schema, total, topk, estimates, plan, layout, asked, prunedEntries, rowTopKSkip, volatile: planned.volatile === true };
  }

  /**
   * A row top-k whose first round lost a shard it counted on: the floor M the leaves applied
   * (and the shards not asked) assumed every asked shard's rows, so with one failed the answer
   * may hold fewer than k rows though the shards that did not fail hold them. Another round
   * chooses again among every shard that has not failed ({@link rowTopKShards}: a threshold
   * M2 <= M; no floor when nothing can be skipped) and asks that choice afresh, until the
   * answer holds k rows, a round loses no shard, or the deadline passes (each round excludes
   * at least one more shard, so at most one round per failed shard). The answer is then the
   * first k rows of all shards but the failed ones (still approximate when those are missing,
   * and named). Provenance: every failed shard's entry, then the last round's.
   * @param asked every shard the query may ask (not pruned by WHERE), ascending
   * @param remaining ms left before the deadline, now
   * @returns null (no further round) when no shard failed or k rows are in hand; else the
   *   combined result, the rounds made and the entries of the shards the last choice skipped
   */
  async #refillRowTopK(
    scan: ScanPlan,
    catalog: Catalog,
    asked: readonly number[],
    first: GatherResult,
    remaining: () => number,
    round: (scan: ScanPlan, shards: readonly number[]) => Promise<GatherResult>,
  ): Promise<{ result: GatherResult; rounds: number; skipped: ShardStatus[] } | null> {
    const rows = scan.rows!;
    const { floor: _floor, ...open } = rows;
    const base: ScanPlan = { ...scan, rows: open };
    const failed: ShardStatus[] = [];
    const gone = new Set<number>();
    let last = first;
    let skipped: ShardStatus[] | null = null;
    let rounds = 0;
    for (;;) {
      const lost = last.provenance.filter((p) => p.status === 'failed' && !gone.has(p.shard));
      if (lost.length === 0 || (last.partial.type === 'rows' && last.partial.rows.length >= rows.limit) || remaining() <= 0) break;
      for (const p of lost) {
        gone.add(p.shard);
        failed.push(p);
      }
      const candidates = asked.filter((id) => !gone.has(id));
      const choice = rowTopKShards(base, catalog, candidates);
      const again: ScanPlan = choice !== null && typeof choice.threshold === 'number' ? { ...base, rows: { ...open, floor: choice.threshold } } : base;
      const next = await round(again, choice === null ? candidates : choice.ask);
      rounds++;
      skipped = choice === null ? [] : rowTopKSkipEntries(again, choice);
      last = { ...next, rowsScanned: last.rowsScanned + next.rowsScanned, timings: [...last.timings, ...next.timings] };
    }
    if (skipped === null) return null;
    const lastShards = new Set(last.provenance.map((p) => p.shard));
    return { result: { ...last, provenance: [...failed.filter((p) => !lastShards.has(p.shard)), ...last.provenance] }, rounds, skipped };
  }

  /**
   * Step 2 of a row query with LIMIT and no ORDER BY, when {@link limitProbe} picked a few
   * shards: ask only those, with a short budget ({@link LIMIT_PROBE_BUDGET_MS}, at most a
   * quarter of what is left), so that a hung shard among them delays the answer by that much
   * and not by the deadline. When they return OFFSET + LIMIT rows, that is the answer (SQL
   * lets any such rows be it) and the shards never asked are accounted as stopped early
   * (status `pruned`, an `early termination` message: covered, not missing). Otherwise a
   * second round asks every shard that did not answer (those that failed or timed out in the
   * probe included) for the rows still wanted, with the gather's usual early termination.
   */
  async #probeRows(
    scan: ScanPlan,
    layout: PartialLayout,
    asked: readonly number[],
    probe: readonly number[],
    round: (scan: ScanPlan, shards: readonly number[], budgetCapMs: number) => Promise<GatherResult>,
    remaining: number,
  ): Promise<{ result: GatherResult; roundTrips: number }> {
    const need = scan.rows!.limit;
    const first = await round(scan, probe, Math.min(LIMIT_PROBE_BUDGET_MS, remaining / 4));
    const have = first.partial.type === 'rows' ? first.partial.rows.length : 0;
    const answered = first.provenance.filter((p) => p.status === 'answered' || p.status === 'pruned');
    if (have >= need) {
      this.counters.earlyStops++;
      const probed = new Set(probe);
      const message = need === 0 ? 'early termination: not asked, LIMIT 0 wants no row' : `early termination: not asked, the ${probe.length} shard(s) asked first held the ${need} rows a LIMIT without ORDER BY needs`;
      const notAsked = asked.filter((id) => !probed.has(id)).map((shard): ShardStatus => ({ shard, status: 'pruned', path: 'root', error: { code: 'CANOPY_ERR_CANCELLED', message }, reason: message }));
      return { result: { ...first, provenance: [...first.provenance, ...notAsked] }, roundTrips: probe.length === 0 ? 0 : 1 };
    }
    const done = new Set(answered.map((p) => p.shard));
    // The rows still wanted: any rows will do, so the second round needs only the difference.
    const second = await round({ ...scan, rows: { ...scan.rows!, limit: need - have } }, asked.filter((id) => !done.has(id)), Infinity);
    const acc = new PartialAccumulator(layout);
    acc.add(first.partial);
    acc.add(second.partial);
    return {
      result: {
        ...second,
        partial: acc.result(),
        provenance: [...answered, ...second.provenance],
        rowsScanned: first.rowsScanned + second.rowsScanned,
        timings: [...first.timings, ...second.timings],
      },
      roundTrips: 2,
    };
  }

  /**
   * Step 3, the coverage policy on what came back: a shard that hit a per-query limit refuses
   * the whole query; under `min_coverage`, too few shards answered fails it.
   * @throws CanopyError CANOPY_ERR_LIMIT, CANOPY_ERR_NO_COVERAGE.
   */
  #checkCoverage(provenance: readonly ShardStatus[], total: number, minShare: number): void {
    const limitHit = provenance.find((p) => p.status === 'failed' && refusesQuery(p.error?.code));
    if (limitHit?.error !== undefined && refusesQuery(limitHit.error.code)) throw new CanopyError(limitHit.error.code, limitHit.error.message);
    const settledOk = provenance.filter((p) => p.status === 'answered' || p.status === 'pruned').length;
    if (minShare > 0 && settledOk / total < minShare) {
      const missing = missingOf(provenance, []);
      throw new CanopyError('CANOPY_ERR_NO_COVERAGE', `only ${settledOk} of ${total} shards answered, below min_coverage ${minShare}`, { details: { missing } });
    }
  }

  /**
   * Finalises a merged partial into an answer: rows, coverage, missing (failed, omitted and,
   * for snapshots, pending shards), per-cell bounds and labels.
   */
  #describe(
    ctx: AnswerContext,
    partial: Partial,
    provenance: readonly ShardStatus[],
    pending: readonly number[],
    rowsScanned: number,
    roundTrips: number,
    topk: { spec: TopKSpec; intervals: GatherResult['topkIntervals'] } | undefined,
    final: boolean,
  ): QueryAnswer & { topkState?: { kthScore: number; unseen: number; candidates: readonly GroupEntry[]; exact: boolean } } {
    const { plan, layout, served, limits, t0, now } = ctx;
    const total = served.catalog.shards.length;
    const counts = { answered: 0, failed: 0, omitted: 0, pruned: 0 };
    for (const p of provenance) counts[p.status]++;
    const coverage = { shards: total, ...counts, ...(final ? {} : { pending: pending.length }) };
    const missing = missingOf(provenance, pending, served.children);
    const asked = total - coverage.pruned;
    if (final && asked > 0 && coverage.answered === 0) {
      // Every shard out of time (a deadline too short for the query): say so, and what to change.
      const outOfTime = missing.length > 0 && missing.every((m) => m.error?.code === 'CANOPY_ERR_DEADLINE');
      const message = outOfTime
        ? `no shard answered within the deadline (${missing.length} missing, each out of time); nothing to answer with: raise deadline_ms (${Math.round(ctx.deadlineMs)} ms here)`
        : `no shard answered (${missing.length} missing); nothing to answer with`;
      throw new CanopyError('CANOPY_ERR_NO_COVERAGE', message, { details: { missing } });
    }
    const answer = finalise(plan, layout, partial);
    // Row limits (a snapshot past one is skipped: the final answer will be refused).
    if (answer.rows.length > rowCap(plan, limits)) throw tooManyRows(plan, limits);
    const byId = missing.length === 0 ? null : new Map(served.catalog.shards.map((sh) => [sh.id, sh]));
    const missingInfo: ShardInfo[] = byId === null ? [] : missing.map((m) => byId.get(m.shard)).filter((x): x is ShardInfo => x !== undefined);
    let bounds: AnswerBounds;
    let topkState: { kthScore: number; unseen: number; candidates: readonly GroupEntry[]; exact: boolean } | undefined;
    if (answer.groups !== null) {
      bounds = boundAggregateAnswer(plan, layout, answer.groups, missingInfo, answer.all ?? (partial.type === 'rows' ? undefined : [...groupEntriesOf(partial)]));
      if (topk !== undefined && topk.intervals !== undefined && partial.type !== 'rows') {
        const t = topKAnswer(plan, layout, topk.spec, answer.groups, partial, topk.intervals);
        topkState = { kthScore: t.kthScore, unseen: topk.intervals.unseen, candidates: t.candidates, exact: t.label === 'exact' };
        // Truncation bounds and the other sources (missing shards, sketches) at once: keep every
        // cell either makes uncertain; where both do, the ordering cell's intervals combine
        // (combineTopKCell) and any other cell has none. The label is the weakest cell, and
        // approximate unless both prove the row set.
        const b = bounds;
        const rowsComplete = t.rowsComplete && b.rowsComplete;
        let label: CellLabel = rowsComplete ? 'exact' : 'approximate';
        const cells = t.cells.map((r, i) =>
          r.map((c, j) => {
            const bc = b.cells[i]?.[j] ?? null;
            const cell = c !== null && bc !== null ? combineTopKCell(topk.spec, c, bc) : (c ?? bc);
            if (cell !== null) label = weakest(label, cell.label);
            return cell;
          }),
        );
        bounds = { rowsComplete, label, cells };
      }
    } else {
      // The k-th row of the merge: OFFSET + LIMIT rows are fetched.
      const k = plan.limit === null ? (plan.scan.rows?.limit ?? 0) : plan.limit + (plan.offset ?? 0);
      const lead = plan.scan.rows?.orderBy[0];
      const kthRow = partial.type === 'rows' && partial.rows.length >= k && k > 0 ? partial.rows[k - 1] : undefined;
      const kth = lead === undefined || kthRow === undefined ? undefined : kthRow[lead.column];
      // Without ORDER BY, OFFSET + LIMIT rows in hand are an answer whatever is missing.
      const enough = plan.limit === 0 || (lead === undefined && plan.limit !== null && kthRow !== undefined);
      bounds = enough ? { cells: [], rowsComplete: true, label: 'exact' } : boundRowAnswer(plan, missingInfo, kth);
    }
    // LIMIT p% counts the answer's rows: with a shard missing the count, so the row set, is not known.
    if (plan.limitPercent !== undefined && missing.length > 0) bounds = { ...bounds, label: 'approximate', rowsComplete: false };
    return {
      columns: answer.columns,
      roles: columnRoles(plan),
      rows: answer.rows,
      groups: answer.groups,
      label: bounds.label,
      cells: bounds.label === 'exact' || bounds.cells.length === 0 ? null : bounds.cells,
      rowsComplete: bounds.rowsComplete,
      coverage,
      missing,
      stats: { elapsed_ms: Math.round((now() - t0) * 1000) / 1000, rows_scanned: rowsScanned, round_trips: roundTrips },
      provenance,
      warnings: answerWarnings(provenance, topkState !== undefined && !topkState.exact),
      final,
      ...(topkState === undefined ? {} : { topkState }),
    };
  }
}

/**
 * The most rows the answer of `plan` may hold: `limits.maxRows` for a row query without LIMIT,
 * else `limits.maxLimit`, the most one answer holds.
 */
function rowCap(plan: QueryPlan, limits: QueryLimits): number {
  return plan.scan.rows !== null && plan.limit === null ? limits.maxRows : limits.maxLimit;
}

/**
 * The refusal of an answer with more rows than {@link rowCap}: a row query without LIMIT
 * past `maxRows`, or more than `maxLimit` rows (groups or DISTINCT values past it, or rows
 * under a LIMIT above it), saying how to narrow it.
 */
function tooManyRows(plan: QueryPlan, limits: QueryLimits): CanopyError {
  if (plan.scan.rows !== null && plan.limit === null) return new CanopyError('CANOPY_ERR_LIMIT', `the query returns more than ${limits.maxRows} rows; add a LIMIT (at most ${limits.maxLimit})`);
  const how =
    plan.scan.rows !== null
      ? 'add a smaller LIMIT or a WHERE'
      : `add a LIMIT of at most ${limits.maxLimit} (with ORDER BY for the top groups), a WHERE, or fewer or coarser GROUP BY (DISTINCT) keys, such as date_trunc('day', ...) of a timestamp`;
  return new CanopyError('CANOPY_ERR_LIMIT', `the query returns more than ${limits.maxLimit} rows, the most one answer holds; ${how}`);
}

/** A query's planning, shared by every run of the same SQL text ({@link Root.#scope}); read-only. */
interface Scope {
  readonly limits: QueryLimits;
  readonly served: ServedTable;
  readonly schema: TableSchema;
  /** Shards of the table. */
  readonly total: number;
  readonly topk: ReturnType<typeof planTopK>;
  readonly estimates: ReturnType<typeof planEstimates>;
  readonly plan: QueryPlan;
  readonly layout: PartialLayout;
  /** Shards asked (not pruned), ascending. */
  readonly asked: readonly number[];
  /** The provenance entries of the pruned shards, with their reasons. */
  readonly prunedEntries: readonly ShardStatus[];
  /** Row top-k: the shards to ask and the entries of those the catalog proves irrelevant ({@link rowTopKShards}), or null. */
  readonly rowTopKSkip: { readonly ask: readonly number[]; readonly entries: readonly ShardStatus[] } | null;
  /** The plan read now(): it holds this query's instant and is never reused. */
  readonly volatile: boolean;
}

/**
 * Provenance entries of the shards a row top-k does not ask ({@link rowTopKShards}' `skip`):
 * status `pruned` (covered, not missing), with the threshold that makes them irrelevant.
 */
function rowTopKSkipEntries(scan: ScanPlan, choice: { readonly skip: readonly number[]; readonly threshold: number | string }): ShardStatus[] {
  const lead = scan.rows!.orderBy[0]!;
  const col = scan.rows!.columns[lead.column]!;
  const t = choice.threshold;
  const v = typeof t === 'string' ? JSON.stringify(t) : col.type === 'timestamp' ? (isoFromMicros(t) ?? String(t)) : col.type === 'date' ? (dateText(t) ?? String(t)) : String(t);
  const message = `early termination: not asked, the zone maps of ${col.name} guarantee ${scan.rows!.limit} rows ${lead.desc ? '>=' : '<='} ${v} elsewhere, and every row here sorts after them`;
  return choice.skip.map((shard): ShardStatus => ({ shard, status: 'pruned', path: 'root', error: { code: 'CANOPY_ERR_CANCELLED', message }, reason: message }));
}

/** What {@link Root} needs to describe answers of one query. */
interface AnswerContext {
  readonly plan: QueryPlan;
  readonly layout: PartialLayout;
  readonly served: ServedTable;
  readonly limits: QueryLimits;
  readonly t0: number;
  readonly now: () => number;
  /** The query's deadline, in ms (for messages). */
  readonly deadlineMs: number;
  /** Why the plan carries no estimates (planEstimates), or null. */
  readonly estimateNote: string | null;
}

/**
 * Adds the estimates of COUNT, SUM and AVG cells to an answer that misses shards (after its
 * intervals are final, so each estimate is clamped into the interval shown), and the
 * answer's `estimateNote` where estimates are missing or partial. Exact answers: unchanged.
 * Group top-k (`topk`: the gather's intervals): only groups whose states are complete over
 * the answered shards are estimated.
 */
function withEstimates(ctx: AnswerContext, a: QueryAnswer, topk?: GatherResult['topkIntervals']): QueryAnswer {
  if (a.label === 'exact' || a.cells === null || a.groups === null || a.groups === undefined) return a;
  const complete = topk === undefined ? undefined : (g: GroupEntry): boolean => topk.groups.get(groupKeyString(g.keys))?.exact ?? true;
  const e = estimateAnswer(ctx.plan, ctx.layout, ctx.served.catalog, a.groups, a.cells, a.rowsComplete, a.provenance, ctx.estimateNote, complete);
  return { ...a, cells: e.cells, ...(e.note === null ? {} : { estimateNote: e.note }) };
}

/** The estimate note of an `exact: true` group top-k whose first round went without estimate moments. */
const EXACT_NO_ESTIMATES = 'exact: true gathers no estimate moments (a state per group at every node): cells of shards that did not answer are bounded, without estimates';

/**
 * Failed, omitted and pending shards, by shard id. A pending shard's path is the root's child
 * serving it (`root/agg-5`: the subtree the root waits on), from `children`; `root` for a shard
 * no child lists.
 */
function missingOf(provenance: readonly ShardStatus[], pending: readonly number[], children: readonly Child[] = []): MissingShard[] {
  const waitedOn = pending.length === 0 ? null : childPaths(children);
  return [
    ...provenance.filter((p) => p.status === 'failed' || p.status === 'omitted').map((p) => ({ shard: p.shard, path: p.path, reason: p.status as 'failed' | 'omitted', error: p.error ?? null })),
    ...pending.map((shard) => ({ shard, path: waitedOn?.get(shard) ?? 'root', reason: 'pending' as const, error: null })),
  ].sort((a, b) => a.shard - b.shard);
}

/** Per list of the root's children, each shard's path through them (`root/agg-5`), computed once. */
const childPathsOf = new WeakMap<readonly Child[], ReadonlyMap<number, string>>();

function childPaths(children: readonly Child[]): ReadonlyMap<number, string> {
  let paths = childPathsOf.get(children);
  if (paths === undefined) {
    const m = new Map<number, string>();
    for (const c of children) for (const shard of c.shards) m.set(shard, `root/${c.name}`);
    paths = m;
    childPathsOf.set(children, paths);
  }
  return paths;
}

/**
 * Budget of the first round of a LIMIT without ORDER BY that asks only a few shards
 * ({@link limitProbe}), ms: past it the query asks every other shard instead of waiting for a
 * hung one.
 */
export const LIMIT_PROBE_BUDGET_MS = 500;

/** Per catalog, its shards' statistics without the set indexes (see {@link childStats}). */
const leanStats = new WeakMap<Catalog, readonly ShardInfo[]>();

/**
 * The statistics sent with a child request for early termination: the asked shards' zone
 * maps without their set indexes (up to 1,024 strings per string column per shard, which the
 * root has already used to prune and which would make every request and its validation
 * heavy). Computed once per catalog.
 */
function childStats(catalog: Catalog, shards: readonly number[]): ShardInfo[] {
  let lean = leanStats.get(catalog);
  if (lean === undefined) {
    lean = catalog.shards.map((sh) => ({ ...sh, columns: Object.fromEntries(Object.entries(sh.columns).map(([k, c]) => [k, { min: c.min, max: c.max, nullCount: c.nullCount }])) }));
    leanStats.set(catalog, lean);
  }
  const asked = new Set(shards);
  return lean.filter((sh) => asked.has(sh.id));
}
