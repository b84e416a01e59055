/** Public face of src/root: the root engine, its HTTP app, the SQL planner and tree layout. */
export { LIMIT_PROBE_BUDGET_MS, Root, type CompletionPolicy, type Label, type MissingShard, type QueryAnswer, type QueryRequest, type RootOptions, type ServedTable } from './engine.ts';
export { limitProbe, rowTopKShards } from './shard-choice.ts';
export { AnswerSchema, ApiErrorSchema, QueryRequestSchema, isAnswerJSON, parseQueryRequest, type AnswerJSON, type ApiErrorJSON, type CellJSON, type QueryRequestBody } from './api.ts';
export { buildEndpoints, buildTree, type BuiltTree, type EndpointSpec, type NodeSite, type TreeSpec } from './tree.ts';
export { buildRootApp, type RootAppOptions } from './server.ts';
export { answerToJSON, jsonValue } from './format.ts';
export { answerToArrow } from './respond.ts';
export { DEFAULT_LIMITS, planQuery, type QueryLimits } from './sql/index.ts';
export { ROOT_NODE, layoutTree, nodeNames, placeReplicas, placeTopology, planTopology, treeDepth, zoneNames, type PlacedTopology, type ReplicaPlacement, type Topology, type TopologyHost, type TopologyPlan, type TreeNode } from './topology.ts';
export { ADMISSION_DEFAULTS, Admission, type AdmissionCounters, type AdmissionOptions } from '../transport/index.ts';
export { rootMetrics, type RootMetrics } from './metrics.ts';
