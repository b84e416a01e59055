/**
 * Public face of src/sim: the simulator. The real root, gather engine, aggregators and
 * replica sets over simulated links and leaves on a virtual clock, its cost model and CPU
 * calibration, the standard trees of the depth benchmark, worker processes to spread
 * simulations over the CPUs, and `recommend` (the capacity planner behind `npm run recommend`).
 */
export { VirtualClock, type VirtualTimer } from './clock.ts';
export { SimCpu, simulatedLeaf, simulatedLink, type FrameCost, type SimLeafOptions, type SimLinkOptions } from './transport.ts';
export { buildSimTree, nominalGroups, tailTotals, SIM_SQL, type CostModel, type HostModel, type LatencyModel, type LayoutSpec, type PolicySpec, type QueryShape, type SimSample, type SimTree, type SimTreeOptions } from './engine.ts';
export { calibrateCpu, costModel, type CpuCalibration } from './calibrate.ts';
export { bytes, ms, nearestRank, pct, summariseCell, svgChart, type CellSummary, type Series } from './stats.ts';
export { DEADLINE_MS, HEDGE_WARMUP, PARTIAL, POLICIES, SEED_LEAF_P99, SHAPES, STANDARD_LATENCY, WAIT_ALL, ZONE_LATENCY, depthCells, layoutsFor, runQueries, seedTree, type DepthCell, type TreePlan } from './trees.ts';
export { runInProcesses, treeTask, type SimTask } from './pool.ts';
export { REFERENCE_COSTS, recommend, type Recommendation, type RecommendInputs, type RecommendRow } from './recommend.ts';
