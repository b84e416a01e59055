/** Public face of src/root: the root engine, its HTTP app, the SQL planner and tree layout. */
export { Root, parseQueryRequest, type CompletionPolicy, type Label, type MissingShard, type QueryAnswer, type QueryRequest, type RootOptions, type ServedTable } from './engine.ts';
export { buildRootApp, type RootAppOptions } from './server.ts';
export { answerToJSON, jsonValue } from './format.ts';
export { DEFAULT_LIMITS, planQuery, type QueryLimits } from './sql.ts';
export { inProcessTree, layoutTree, placeReplicas, treeDepth, zoneNames, type ReplicaPlacement, type TreeNode } from './topology.ts';
export { Admission, type AdmissionCounters, type AdmissionOptions } from './admission.ts';
export { rootMetrics, type RootMetrics } from './metrics.ts';
