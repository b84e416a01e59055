/**
 * An aggregator: the gather engine behind a node handler, so that it answers its parent
 * exactly like a big leaf.
 */
import { layoutOf, truncateTopK } from '../merge/index.ts';
import type { Child, NodeHandler } from '../transport/index.ts';
import { gather, type GatherOptions } from './gather.ts';

/** An aggregator node: its name, the shards below it, and its handler. */
export interface AggregatorNode {
  readonly name: string;
  readonly shards: readonly number[];
  readonly handler: NodeHandler;
}

/**
 * Creates an aggregator over `children` (at most `maxFanout`, default 10).
 * @throws RangeError when given more children than the fan-out allows.
 */
export function createAggregator(name: string, children: readonly Child[], opts: Omit<GatherOptions, 'self'> & { maxFanout?: number } = {}): AggregatorNode {
  const max = opts.maxFanout ?? 10;
  if (children.length > max) throw new RangeError(`${name}: ${children.length} children exceed the fan-out of ${max}`);
  const shards = children.flatMap((c) => c.shards);
  async function* handler(req: Parameters<NodeHandler>[0], signal: AbortSignal) {
    const r = await gather(children, req, signal, { ...opts, self: name });
    const spec = req.plan.topk;
    // Group top-k: pass up only the best groups, with the bound on what this node dropped.
    const out = spec === undefined || r.partial.type === 'rows' || r.topkIntervals === undefined ? { partial: r.partial } : truncateTopK(layoutOf(req.plan, req.schema), spec, r.partial, r.topkIntervals.groups, r.topkIntervals.unseen);
    yield { ...out, provenance: r.provenance, rowsScanned: r.rowsScanned, ...(req.trace === true ? { timings: r.timings } : {}) };
  }
  return { name, shards, handler };
}
