/**
 * The leaf's scan: filter, group and aggregate (or collect top rows) over one prepared
 * shard, batch by batch. Cancellation and the deadline are checked between batches and,
 * for long AND/OR chains, between their operands; a batch that runs longer than a slice
 * yields to the event loop in the middle, so an abort (parent gone) is seen within a slice.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CanopyError, foldEqualityChains, setWorkCheckpoint, withShardMoments, type Expr, type Partial, type PartialLayout, type ScanPlan } from '../merge/index.ts';
import { acquireScratch, chainSteps, countWhere, releaseScratch, selectAnd, selectTrue, selectWhere, type BatchCtx, type Tri } from './expr.ts';
import { batchMayMatch } from './batch-stats.ts';
import { GroupAggregator } from './groupby.ts';
export { GROUP_CHARGE_BLOCK } from './groupby.ts';
import { RowCollector } from './rows.ts';
import type { PreparedShard } from './shard.ts';

/** Result of scanning one shard. */
export interface ShardScan {
  readonly partial: Partial;
  /** Rows read from the shard (all its rows unless cancelled). */
  readonly rowsScanned: number;
}

/** Hooks for observing and bounding a scan (metrics, deadline, memory, tests of cancellation). */
export interface ScanHooks {
  /** Called after each batch with the number of rows it held. */
  onBatch?: (rows: number) => void;
  /** Called with the rows of every operand of an AND/OR chain evaluated (work inside a batch). */
  onEvaluated?: (rows: number) => void;
  /** Time (ms on `now`) past which the scan stops with CANOPY_ERR_DEADLINE, checked inside batches too. */
  deadlineAt?: number;
  /** Clock in ms (default `performance.now`). */
  now?: () => number;
  /**
   * Charged with the estimated bytes of group state as groups are created (blocks of
   * {@link GROUP_CHARGE_BLOCK}); throws (CANOPY_ERR_LIMIT) to refuse the query.
   */
  charge?: (bytes: number) => void;
  /** Gives the event loop back between slices (default one `setImmediate`; a process's slice scheduler turn). */
  yieldSlice?: () => Promise<void>;
}

/** No selection yet (never written: a scan with a WHERE takes a buffer of its batch's rows first). */
const NO_ROWS = new Int32Array(0);

/** Folded WHERE per plan filter and column types: the same IN list for every shard of a query (its lookup table is built once). */
const FOLDED = new WeakMap<Expr, Map<string, Expr>>();

/** A shard's column names and types as one string, per column map (the same for every scan of the shard). */
const TYPE_KEYS = new WeakMap<PreparedShard['columns'], string>();

/** `filter` with OR chains of equalities folded into IN lists for the shard's column types (cached per plan). */
function foldedFilter(filter: Expr, shard: PreparedShard): Expr {
  let types = TYPE_KEYS.get(shard.columns);
  if (types === undefined) {
    types = [...shard.columns.values()].map((c) => `${c.name}:${c.type}`).join(',');
    TYPE_KEYS.set(shard.columns, types);
  }
  let byTypes = FOLDED.get(filter);
  if (byTypes === undefined) {
    byTypes = new Map();
    FOLDED.set(filter, byTypes);
  }
  let folded = byTypes.get(types);
  if (folded === undefined) {
    folded = foldEqualityChains(filter, (c) => shard.columns.get(c)?.type);
    byTypes.set(types, folded);
  }
  return folded;
}

/** A mask of `rows` rows with 1 at the selected rows `sel[0..n)`. */
function rowMask(sel: Int32Array, n: number, rows: number): Uint8Array {
  const mask = new Uint8Array(rows);
  for (let j = 0; j < n; j++) mask[sel[j]!] = 1;
  return mask;
}

/** Longest stretch of work (ms) a scan runs without yielding to the event loop. */
export const SCAN_SLICE_MS = 8;

/**
 * Scans one shard for a plan. Yields to the event loop whenever it has worked for
 * {@link SCAN_SLICE_MS} (between batches, or inside a long AND/OR chain), so an abort
 * (client gone) is seen within a slice, and the deadline on the clock within an operand.
 * @param layout the plan's layout (state kinds) over the table schema
 * @throws CanopyError CANOPY_ERR_CANCELLED when `signal` aborts; CANOPY_ERR_LIMIT past
 *   `plan.maxGroups` groups; CANOPY_ERR_UNKNOWN_COLUMN / CANOPY_ERR_TYPE for plans that do
 *   not fit the shard.
 */
export async function scanShard(shard: PreparedShard, plan: ScanPlan, layout: PartialLayout, signal: AbortSignal, hooks: ScanHooks = {}): Promise<ShardScan> {
  const argTypes = layout.kinds.map((k) => k.argType);
  const tooMany = (): never => {
    throw new CanopyError('CANOPY_ERR_LIMIT', `shard ${shard.id} holds more than ${plan.maxGroups} groups (the per-query group limit); add a WHERE or group more coarsely`);
  };
  const grouper = plan.rows === null ? new GroupAggregator(shard, plan.groupBy, plan.partials, argTypes, plan.maxGroups, tooMany, hooks.charge) : null;
  const collector = plan.rows === null ? null : new RowCollector(plan.rows, layout);
  const now = hooks.now ?? (() => performance.now());
  const deadlineAt = hooks.deadlineAt ?? Infinity;
  const yieldSlice = hooks.yieldSlice ?? yieldToLoop;
  let scanned = 0;
  const stopIfDue = (): void => {
    if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `scan of shard ${shard.id} cancelled after ${scanned} rows`);
    if (now() > deadlineAt) throw new CanopyError('CANOPY_ERR_DEADLINE', `scan of shard ${shard.id} passed its deadline after ${scanned} rows`);
  };
  const onEvaluated = hooks.onEvaluated;
  const meter = (rows: number): void => {
    onEvaluated?.(rows);
    stopIfDue();
  };
  const filter = plan.filter === null ? null : foldedFilter(plan.filter, shard);
  // COUNT(*) alone (no key, no FILTER): a batch needs the number of rows its WHERE keeps, not their ids.
  const countOnly = grouper !== null && plan.groupBy.length === 0 && plan.partials.every((p) => p.kind === 'count_star' && p.filter === undefined);
  let sliceStart = now();
  let sel: Int32Array = NO_ROWS;
  // Result buffers reused between batches while grouping (row top-k caches per-batch zone
  // maps by array identity, so it gets fresh arrays).
  const scratch = grouper !== null ? acquireScratch() : undefined;
  try {
    for (let b = 0; b < shard.batchRows.length; b++) {
      stopIfDue();
      // Long string-distance work inside the batch checks the deadline too (cleared before each yield).
      setWorkCheckpoint(stopIfDue);
      const rows = shard.batchRows[b]!;
      scratch?.reset();
      const ctx: BatchCtx = { shard, batch: b, rows, meter, scratch };
      if (collector !== null && collector.canSkip(ctx)) {
        // Row top-k: the batch's zone map proves none of its rows can enter the kept rows.
        // Its rows count as scanned: the batch was answered (by its zone map), not left out.
        scanned += rows;
        hooks.onBatch?.(rows);
        continue;
      }
      if (filter !== null && !batchMayMatch(filter, shard, b)) {
        // The batch's zone map proves no row passes the WHERE: answered without a scan.
        scanned += rows;
        hooks.onBatch?.(rows);
        continue;
      }
      let n = rows;
      let s: Int32Array | null = null;
      if (filter !== null) {
        if (sel.length < rows) sel = scratch === undefined ? new Int32Array(rows) : scratch.selection(rows);
        let tri: Tri | null = null;
        // An AND of simple column tests: a selection narrowed operand by operand (-1: not that shape).
        const counted = countOnly ? countWhere(filter, ctx) : -1;
        // With `counted` rows, `sel` is not written: COUNT(*) reads only the count.
        const anded = counted >= 0 ? counted : filter.kind === 'and' ? selectAnd(filter, ctx, sel) : -1;
        if (anded >= 0) n = anded;
        else if (filter.kind === 'and' || filter.kind === 'or') {
          // The top-level chain one operand at a time, yielding when the slice is used up.
          const steps = chainSteps(filter, ctx);
          for (;;) {
            const r = steps.next();
            if (r.done === true) {
              tri = r.value;
              break;
            }
            if (now() - sliceStart > SCAN_SLICE_MS) {
              setWorkCheckpoint(null);
              await yieldSlice();
              sliceStart = now();
              stopIfDue();
              setWorkCheckpoint(stopIfDue);
            }
          }
        }
        if (anded < 0) n = tri === null ? selectWhere(filter, ctx, sel) : selectTrue(tri, rows, sel);
        s = sel;
      }
      // Aggregate arguments and projected columns matter only on the rows the WHERE kept.
      const kept = s;
      const keptCtx: BatchCtx = kept === null ? ctx : { shard, batch: b, rows, meter, scratch, liveRows: () => rowMask(kept, n, rows) };
      if (grouper !== null) grouper.addBatch(keptCtx, s, n);
      else collector!.addBatch(keptCtx, s, n);
      scanned += rows;
      hooks.onBatch?.(rows);
      // Yield once the slice is used up, not after every batch: a small scan (a probe) runs to
      // its end in one turn instead of waiting a round behind every heavy scan on the host.
      if (b + 1 < shard.batchRows.length && now() - sliceStart > SCAN_SLICE_MS) {
        setWorkCheckpoint(null);
        await yieldSlice();
        sliceStart = now();
      }
    }
  } finally {
    setWorkCheckpoint(null);
    if (scratch !== undefined) releaseScratch(scratch);
  }
  if (collector !== null) return { partial: { type: 'rows', rows: collector.result() }, rowsScanned: scanned };
  // Estimates: the shard's own products of its values (plans with a `moments` partial).
  return { partial: withShardMoments(layout, grouper!.result(), scanned), rowsScanned: scanned };
}
