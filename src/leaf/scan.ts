/**
 * The leaf's scan: filter, group and aggregate (or collect top rows) over one prepared
 * shard, batch by batch, checking for cancellation between batches.
 */
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { CanopyError, withShardMoments, type Partial, type PartialLayout, type ScanPlan } from '../merge/index.ts';
import { evalPredicate, type BatchCtx } from './expr.ts';
import { GroupAggregator } from './groupby.ts';
import { RowCollector } from './rows.ts';
import type { PreparedShard } from './shard.ts';

/** Result of scanning one shard. */
export interface ShardScan {
  readonly partial: Partial;
  /** Rows read from the shard (all its rows unless cancelled). */
  readonly rowsScanned: number;
}

/** Hooks for observing a scan (metrics, tests of cancellation). */
export interface ScanHooks {
  /** Called after each batch with the number of rows it held. */
  onBatch?: (rows: number) => void;
}

/**
 * Scans one shard for a plan. Yields to the event loop between batches, so an abort
 * (client gone, deadline) is seen within one batch.
 * @param layout the plan's layout (state kinds) over the table schema
 * @throws CanopyError CANOPY_ERR_CANCELLED when `signal` aborts; CANOPY_ERR_LIMIT past
 *   `plan.maxGroups` groups; CANOPY_ERR_UNKNOWN_COLUMN / CANOPY_ERR_TYPE for plans that do
 *   not fit the shard.
 */
export async function scanShard(shard: PreparedShard, plan: ScanPlan, layout: PartialLayout, signal: AbortSignal, hooks: ScanHooks = {}): Promise<ShardScan> {
  const argTypes = plan.partials.map((p) => (p.arg === null ? null : (shard.columns.get(p.arg)?.type ?? null)));
  const tooMany = (): never => {
    throw new CanopyError('CANOPY_ERR_LIMIT', `shard ${shard.id} holds more than ${plan.maxGroups} groups (the per-query group limit); add a WHERE or group more coarsely`);
  };
  const grouper = plan.rows === null ? new GroupAggregator(shard, plan.groupBy, plan.partials, argTypes, plan.maxGroups, tooMany) : null;
  const collector = plan.rows === null ? null : new RowCollector(plan.rows, layout);
  let scanned = 0;
  let sel = new Int32Array(0);
  for (let b = 0; b < shard.batchRows.length; b++) {
    if (signal.aborted) throw new CanopyError('CANOPY_ERR_CANCELLED', `scan of shard ${shard.id} cancelled after ${scanned} rows`);
    const rows = shard.batchRows[b]!;
    const ctx: BatchCtx = { shard, batch: b, rows };
    let n = rows;
    let s: Int32Array | null = null;
    if (plan.filter !== null) {
      const tri = evalPredicate(plan.filter, ctx);
      if (sel.length < rows) sel = new Int32Array(rows);
      n = 0;
      for (let i = 0; i < rows; i++) if (tri[i] === 2) sel[n++] = i;
      s = sel;
    }
    if (grouper !== null) grouper.addBatch(ctx, s, n);
    else collector!.addBatch(ctx, s, n);
    scanned += rows;
    hooks.onBatch?.(rows);
    if (b + 1 < shard.batchRows.length) await yieldToLoop();
  }
  if (collector !== null) return { partial: { type: 'rows', rows: collector.result() }, rowsScanned: scanned };
  // Estimates: the shard's own products of its values (plans with a `moments` partial).
  return { partial: withShardMoments(layout, grouper!.result(), scanned), rowsScanned: scanned };
}
