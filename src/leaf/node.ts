/**
 * A leaf node: serves one or more prepared shards, answers partial requests by scanning
 * each requested shard and merging their partials into one frame.
 */
import { CanopyError, QueryMemory, leafScanMs, mergePartials, requestLayout, sameSchema, toCanopyError, truncateTopK, type MemoryPool, type Partial, type Frame, type ShardStatus } from '../merge/index.ts';
import { Cancel, systemClock, type ChildRequest, type Clock, type NodeHandler, type QueryWork, type SliceScheduler } from '../transport/index.ts';
import type { ScanLanes } from './lanes.ts';
import { isHeavyScan } from './lanes.ts';
import { scanShard, type ScanHooks } from './scan.ts';
import type { PreparedShard } from './shard.ts';

/** Counters a leaf keeps (metrics; cancellation tests). */
export interface LeafCounters {
  /** Rows read by scans, updated after every batch. */
  rowsScanned: number;
  /** Requests answered (including failed shards). */
  requests: number;
  /** Scans stopped by cancellation. */
  cancelled: number;
  /**
   * Row evaluations inside AND/OR chains (rows × operands), updated operand by operand:
   * work within a batch, which stops growing once a scan is cancelled.
   */
  rowsEvaluated: number;
}

/** Options of a leaf. */
export interface LeafOptions {
  /** Memory budgets: the process pool and the bytes one query may hold at this leaf. Default: none. */
  readonly memory?: { readonly pool: MemoryPool; readonly queryBytes: number };
  /** Time and timers (default {@link systemClock}). */
  readonly clock?: Clock;
  /** Admission lanes shared by the leaves of one process (heavy scans take turns). Default: none. */
  readonly lanes?: ScanLanes;
  /** The process's per-query work ledger: rows scanned and evaluated are accounted to the query. Default: none. */
  readonly work?: QueryWork;
  /** The process's slice scheduler: a long scan gives the loop back through it between slices. Default: none (`setImmediate`). */
  readonly slices?: SliceScheduler;
}

/** A leaf: a name, the shards it serves, its handler and counters. */
export interface LeafNode {
  readonly name: string;
  readonly shards: readonly number[];
  readonly handler: NodeHandler;
  readonly counters: LeafCounters;
}

/**
 * Creates a leaf serving `shards` (prepared with `prepareShard`).
 * Each requested shard appears exactly once in the frame's provenance: answered, or failed
 * with a coded error (unknown shard, schema mismatch, group limit). Cancellation stops
 * the scan between batches and ends the handler with CANOPY_ERR_CANCELLED.
 */
export function createLeaf(name: string, shards: readonly PreparedShard[], opts: LeafOptions = {}): LeafNode {
  const byId = new Map(shards.map((s) => [s.id, s]));
  const counters: LeafCounters = { rowsScanned: 0, requests: 0, cancelled: 0, rowsEvaluated: 0 };
  const clock = opts.clock ?? systemClock;
  const now = (): number => clock.now();
  const onBatch = (rows: number): void => {
    counters.rowsScanned += rows;
  };
  const onEvaluated = (rows: number): void => {
    counters.rowsEvaluated += rows;
  };
  async function* handler(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    counters.requests++;
    const layout = requestLayout(req.queryId, req.plan, req.schema);
    const parts: Partial[] = [];
    const provenance: ShardStatus[] = [];
    let rowsScanned = 0;
    // The leaf answers by its own deadline (budget less its reserve) with what it has. The
    // scans check that deadline on the clock (`deadlineAt`, between and inside batches); a
    // signal of its own with a deadline timer is made only where something waits on a signal
    // for it: a heavy scan queued for a lane. Elsewhere the scans take the parent's signal (a
    // controller, a listener and a timer per request were a tenth of a small request's CPU).
    const heavy = opts.lanes === undefined && opts.slices === undefined ? false : isHeavyScan(req.plan, req.shards.flatMap((id) => byId.get(id) ?? []));
    const ctl = opts.lanes !== undefined && heavy ? new Cancel() : null;
    const scanSignal = ctl?.signal ?? signal;
    const onParent = (): void => ctl?.abort(signal.reason);
    if (ctl !== null) {
      // A signal aborted before the request arrived fires no event: the scan must not start.
      if (signal.aborted) onParent();
      else signal.addEventListener('abort', onParent, { once: true });
    }
    // Built only when the deadline passes (an error's stack trace costs more than the rest of a small request).
    let deadline: CanopyError | undefined;
    const deadlineError = (): CanopyError => (deadline ??= new CanopyError('CANOPY_ERR_DEADLINE', `${name} ran out of its ${Math.round(req.budgetMs)} ms budget`));
    const own = leafScanMs(req.budgetMs);
    const worked = opts.work?.begin(req.queryId, name, own);
    const hooks = worked === undefined ? { onBatch, onEvaluated } : {
      onBatch: (rows: number): void => {
        onBatch(rows);
        worked(rows);
      },
      onEvaluated: (rows: number): void => {
        onEvaluated(rows);
        worked(rows);
      },
    };
    const timer = ctl === null ? undefined : clock.setTimeout(() => ctl.abort(deadlineError()), own);
    // The same deadline on the clock, checked inside long batches (a busy loop runs no timers).
    const deadlineAt = now() + own;
    // The leaf's own signal was aborted by its deadline (not by the parent).
    const byDeadline = (): boolean => ctl !== null && ctl.signal.aborted && deadline !== undefined && ctl.signal.reason === deadline;
    const expired = (): boolean => byDeadline() || now() >= deadlineAt;
    const memory = opts.memory === undefined ? null : new QueryMemory(opts.memory.pool, opts.memory.queryBytes, name);
    const charge = memory === null ? undefined : (bytes: number): void => memory.charge(bytes, 'group state');
    let release: (() => void) | null = null;
    const slices = opts.slices?.task(req.queryId, heavy);
    // Built field by field: an object spread here (of the hooks, with closures) made V8 keep
    // each request's scan objects past two scavenges (promoted to the old generation).
    const scanHooks: { -readonly [K in keyof ScanHooks]: ScanHooks[K] } = { onBatch: hooks.onBatch, onEvaluated: hooks.onEvaluated, deadlineAt, now };
    if (slices !== undefined) scanHooks.yieldSlice = () => slices.turn();
    if (charge !== undefined) scanHooks.charge = charge;
    try {
      try {
        if (opts.lanes !== undefined) {
          try {
            release = await opts.lanes.acquire(heavy, scanSignal, deadlineAt);
          } catch (e) {
            if (toCanopyError(e).code === 'CANOPY_ERR_DEADLINE') ctl?.abort(deadlineError());
            else if (!byDeadline()) throw e;
            // The deadline passed while waiting for a lane: every shard is omitted below.
          }
        }
        for (const id of req.shards) {
          // Work whose deadline has passed is never started (a late loop runs no timers).
          if (expired()) {
            const d = deadlineError();
            provenance.push({ shard: id, status: 'omitted', path: name, error: { code: d.code, message: d.message } });
            continue;
          }
          const shard = byId.get(id);
          try {
            if (shard === undefined) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${name} does not serve shard ${id}; it serves ${[...byId.keys()].join(', ')}`);
            if (req.plan.table !== req.schema.name || !sameSchema(shard.schema, req.schema)) {
              throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${name}: shard ${id} does not hold table '${req.plan.table}' with the schema asked for`);
            }
            // The layout's plan: equal to the request's, and the same object for every request of the query in this process (per-spec caches of the scan hit).
            const scan = await scanShard(shard, layout.plan, layout, scanSignal, scanHooks);
            parts.push(scan.partial);
            rowsScanned += scan.rowsScanned;
            provenance.push({ shard: id, status: 'answered', path: name, rowsScanned: scan.rowsScanned });
          } catch (e) {
            const err = toCanopyError(e);
            if (err.code === 'CANOPY_ERR_CANCELLED' || err.code === 'CANOPY_ERR_DEADLINE') {
              counters.cancelled++;
              if (err.code === 'CANOPY_ERR_CANCELLED' && !byDeadline()) throw err;
              if (err.code === 'CANOPY_ERR_DEADLINE') ctl?.abort(deadlineError());
              const d = deadlineError();
              provenance.push({ shard: id, status: 'omitted', path: name, error: { code: d.code, message: d.message } });
              continue;
            }
            provenance.push({ shard: id, status: 'failed', path: name, error: { code: err.code, message: err.message } });
          }
        }
        // A heavy scan's answer (tens of thousands of groups) is encoded on a slice turn.
        if (heavy && slices !== undefined) await slices.turn();
      } finally {
        release?.();
        slices?.end();
        if (ctl !== null) {
          clock.clearTimeout(timer);
          signal.removeEventListener('abort', onParent);
        }
      }
      // One shard (the usual case): its columnar partial goes out as it is.
      const partial = parts.length === 1 ? parts[0]! : mergePartials(layout, parts);
      const spec = req.plan.topk;
      if (spec !== undefined && partial.type !== 'rows') {
        // Group top-k: only the best `fetch` groups, and a bound on the rest.
        yield { ...truncateTopK(layout, spec, partial, null, -Infinity, req.shards.length), provenance, rowsScanned };
        return;
      }
      yield { partial, provenance, rowsScanned };
    } finally {
      // Held until the answer is handed over (its states live until it is encoded).
      memory?.release();
    }
  }
  return { name, shards: shards.map((s) => s.id), handler, counters };
}
