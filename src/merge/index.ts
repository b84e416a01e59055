/**
 * Public face of src/merge: pure partial states, merge, finalise, wire encode/decode.
 * No I/O, no clocks, no HTTP; imports nothing from leaf, aggregator or root.
 */
export * from './types.ts';
export { CanopyError, ERROR_CODES, isCanopyError, toCanopyError, unknownNameMessage, type ErrorCode, type SourcePosition } from './errors.ts';
export { truncMs, unitMs } from './time.ts';
export { defaultReserveMs } from './budget.ts';
export { fsumAdd, fsumEmpty, fsumMerge, fsumValue, type FloatSum } from './fsum.ts';
export { PARTIAL_KINDS, resolveKind, compareNonNull, type StateKind, type StateEncoding } from './kinds/index.ts';
export {
  PartialAccumulator,
  compareForOrder,
  emptyPartial,
  groupKeyString,
  groupsOf,
  kWayMerge,
  layoutOf,
  mergePartials,
  partialsEqual,
  type ColumnarPartial,
  type GroupEntry,
  type GroupedPartial,
  type Partial,
  type PartialLayout,
  type RowsPartial,
} from './partial.ts';
export { shardMayMatch } from './prune.ts';
export { TopKTracker, scoreOf, topKProven, truncateTopK, valueOfScore, type TopKFrame } from './topk.ts';
export { boundAggregateAnswer, boundRowAnswer, type AnswerBounds, type Cell, type CellLabel } from './bounds.ts';
export { aggregateValue, compareSql, finalise, type ResultSet } from './finalise.ts';
export { ARROW_STREAM, FRAME_VERSION, decodeFrame, encodeFrame, fromWireJSON, toWireJSON, type Frame } from './wire.ts';
