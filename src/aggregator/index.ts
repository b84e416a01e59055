/** Public face of src/aggregator: the gather engine and aggregator nodes. */
export { gather, type GatherCounters, type GatherOptions, type GatherProgress, type GatherResult, type GatherSnapshot } from './gather.ts';
export { createAggregator, type AggregatorNode } from './node.ts';
