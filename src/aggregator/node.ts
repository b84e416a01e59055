/**
 * An aggregator: the gather engine behind a node handler, so that it answers its parent
 * exactly like a big leaf.
 */
import { MERGE_CHECK_EVERY, layoutOf, truncateTopK, type Frame } from '../merge/index.ts';
import { coalesce, systemClock, type Child, type ChildRequest, type NodeHandler } from '../transport/index.ts';
import { gather, gatherCounters, type GatherCounters, type GatherOptions, type GatherResult, type GatherSnapshot } from './gather.ts';

/** Minimum interval between an aggregator's progressive updates, ms (coalescing). */
export const DEFAULT_UPDATE_INTERVAL_MS = 50;

/** An aggregator node: its name, the shards below it, and its handler. */
export interface AggregatorNode {
  readonly name: string;
  readonly shards: readonly number[];
  readonly handler: NodeHandler;
  /** What this aggregator's gathers count. */
  readonly counters: GatherCounters;
}

/**
 * Creates an aggregator over `children` (at most `maxFanout`, default 10).
 * @throws RangeError when given more children than the fan-out allows.
 */
export function createAggregator(name: string, children: readonly Child[], opts: Omit<GatherOptions, 'self' | 'onProgress'> & { maxFanout?: number; updateIntervalMs?: number } = {}): AggregatorNode {
  const max = opts.maxFanout ?? 10;
  if (children.length > max) throw new RangeError(`${name}: ${children.length} children exceed the fan-out of ${max}`);
  const shards = children.flatMap((c) => c.shards);
  const interval = opts.updateIntervalMs ?? DEFAULT_UPDATE_INTERVAL_MS;
  const counters: GatherCounters = gatherCounters();
  // Group top-k: pass up only the best groups, with the bound on what this node dropped
  // (answers and progressive updates alike).
  const truncated = (req: ChildRequest, r: GatherResult | GatherSnapshot): Pick<Frame, 'partial' | 'topk'> => {
    const spec = req.plan.topk;
    if (spec === undefined || r.partial.type === 'rows' || r.topkIntervals === undefined) return { partial: r.partial };
    return truncateTopK(layoutOf(req.plan, req.schema), spec, r.partial, r.topkIntervals.groups, r.topkIntervals.unseen, req.shards.length);
  };
  const answer = (req: ChildRequest, r: GatherResult): Frame => ({ ...truncated(req, r), provenance: r.provenance, rowsScanned: r.rowsScanned, ...(req.trace === true ? { timings: r.timings } : {}) });
  /**
   * A large answer is encoded on a slice turn (one per loop iteration): the ten aggregators of
   * one query reach their cutoff on the same timer tick, and would otherwise encode 300k groups
   * each in one stretch of the loop.
   */
  const onTurn = async (req: ChildRequest, r: GatherResult): Promise<GatherResult> => {
    if (opts.slices === undefined || r.partial.type !== 'columnar' || r.partial.size <= MERGE_CHECK_EVERY) return r;
    await opts.slices.once(req.queryId);
    return r;
  };
  async function* handler(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    if (req.stream !== true) {
      yield answer(req, await onTurn(req, await gather(children, req, signal, { ...opts, self: name, counters })));
      return;
    }
    const queue: Frame[] = [];
    let wake: (() => void) | null = null;
    let finished = false;
    let failure: unknown = null;
    let latest: (() => GatherSnapshot) | undefined;
    const push = (f: Frame | null): void => {
      if (f !== null) queue.push(f);
      wake?.();
    };
    // Coalesced: at most one update per `interval` ms, carrying the merged state so far.
    const updates = coalesce(interval, opts.clock ?? systemClock, () => {
      const s = latest!();
      push({ ...truncated(req, s), provenance: s.provenance, rowsScanned: s.rowsScanned, final: false });
    });
    const onProgress = (snap: () => GatherSnapshot): void => {
      latest = snap;
      updates.schedule();
    };
    gather(children, req, signal, { ...opts, self: name, onProgress, counters }).then(
      (r) => {
        updates.cancel();
        queue.length = 0;
        finished = true;
        push(answer(req, r));
      },
      (e: unknown) => {
        updates.cancel();
        failure = e;
        finished = true;
        push(null);
      },
    );
    for (;;) {
      const f = queue.shift();
      if (f !== undefined) {
        yield f;
        if (f.final !== false) return;
        continue;
      }
      if (finished) {
        if (failure !== null) throw failure;
        return;
      }
      await new Promise<void>((resolve) => {
        wake = resolve;
      });
      wake = null;
    }
  }
  return { name, shards, handler, counters };
}
