/** Public face of src/aggregator: the gather engine and aggregator nodes. */
export { MERGE_SLICE_MS, gather, gatherCounters, type GatherCounters, type GatherOptions, type GatherProgress, type GatherResult, type GatherSnapshot } from './gather.ts';
export { createAggregator, type AggregatorNode } from './node.ts';
export { LoopLag, mergeWorkMs } from './lag.ts';
export { tailMetrics, type NodeTailMetrics, type TailMetrics } from './metrics.ts';
export { EJECTION_DEFAULTS, HEDGE_DEFAULTS, RETRY_DEFAULTS, RetryBudget, TAIL_WARNINGS, LatencyWindow, ReplicaState, TailControl, answersAll, queryClass, replicaSet, type BudgetOptions, type EjectionOptions, type HedgeOptions, type OverloadOptions, type Replica, type ReplicaSetChild, type ReplicaSetState, type RetryBudgetOptions, type TailCounters, type TailOptions, type TailShardStatus, type TailTimers, type TailWarning } from './replicas.ts';
