/** Public face of src/aggregator: the gather engine and aggregator nodes. */
export { gather, defaultReserveMs, type ChildTiming, type GatherOptions, type GatherProgress, type GatherResult } from './gather.ts';
export { createAggregator, type AggregatorNode } from './node.ts';
