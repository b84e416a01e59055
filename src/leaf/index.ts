/** Public face of src/leaf: prepare shards, create leaves, scan (benchmarks). */
export { createLeaf, type LeafCounters, type LeafNode, type LeafOptions } from './node.ts';
export { HEAVY_GROUPS, HEAVY_SCANS, ScanLanes, estimatedGroups, isHeavyScan } from './lanes.ts';
export { prepareShard, type PreparedShard } from './shard.ts';
export { scanShard, type ShardScan } from './scan.ts';
export { drawLatency, faultPlanFile, parseFaultPlan, seededRandom, withFaults, withFaultsAt, type FaultPlan, type FaultRule, type FaultSource, type FaultSite, type FaultTimers, type LatencySpec } from './faults.ts';
export { leafMetrics, type LeafMetrics } from './metrics.ts';
