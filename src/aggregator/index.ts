/** Public face of src/aggregator: the gather engine and aggregator nodes. */
export { gather, type GatherOptions, type GatherProgress, type GatherResult } from './gather.ts';
export { createAggregator, type AggregatorNode } from './node.ts';
