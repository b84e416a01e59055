/**
 * Public face of src/merge: pure partial states, merge, finalise, wire encode/decode.
 * No I/O, no clocks, no HTTP; imports nothing from leaf, aggregator or root.
 */
export * from './types.ts';
export { LABEL_RANK, weakest, type CellLabel } from './label.ts';
export { isValid, scalarAt, type BigView, type ColumnView, type NumStats, type NumView, type StrView, type Validity, type ValueVec } from './vectors.ts';
export { betterMax, betterMin, kNumStats } from './aggregates/kernels.ts';
export { affineOf, affineSafe, type Affine } from './aggregates/affine.ts';
export {
  AGGREGATES,
  CALL_AGGREGATES,
  PARTIAL_DEFS,
  aggregateDef,
  argColumn,
  canonicalExpr,
  partialDef,
  type Accumulator,
  type AggArg,
  type AggExpr,
  type AggregateDef,
  type CallOptions,
  type CallSyntax,
  type Decomposition,
  type PartialDef,
  type TopKRule,
} from './aggregates/index.ts';
export { CanopyError, ERROR_CODES, isCanopyError, refusesQuery, toCanopyError, didYouMean, unknownNameMessage, type ErrorCode, type SourcePosition } from './errors.ts';
export { parseTimeFormat, strptime, strptimeFields, type StrpFormat } from './strptime.ts';
export { MAX_TIMESTAMP_US, MONDAY_SHIFT_US, US_PER_DAY, US_PER_MS, STRFTIME_SPECIFIERS, addInterval, formatReadsDateOnly, formatSpan, checkedTimestamp, checkMicros, dateSub, dateText, dayNumber, dayOf, parseDuckDate, extractField, isoFromMicros, timeBucket, parseIsoTimestamp, timestampText, truncMicros, unitMicros, unitMonths, wholeMicros } from './time.ts';
export { decodeUtf8, firstInvalidUtf8, utf8Strings, type Utf8Buffers } from './utf8.ts';
export { compareDoubles, compareForOrder, compareSql, compareStrings, compareValues, satisfies } from './compare.ts';
export { adaptiveReserveMs, admittedMs, arrivalBudgetMs, budgetHeaderValue, childBudgetMs, defaultReserveMs, leafScanMs, remainingMs } from './budget.ts';
export { foldEqualityChains } from './fold.ts';
export { MemoryPool, QueryMemory, memoryBudgets, type MemoryBudgets } from './memory.ts';
export { fsumAdd, fsumEmpty, fsumMerge, fsumValue, type FloatSum } from './fsum.ts';
export { PARTIAL_KINDS, resolveKind, compareNonNull, type MomentsState, type StateKind, type StateEncoding } from './kinds/index.ts';
export {
  HLL_CONFIDENCE,
  HLL_EXACT_LIMIT,
  HLL_PRECISION,
  HLL_REGISTERS,
  HLL_RELATIVE_STDERR,
  canonicalDistinct,
  hashDistinct,
  hashDouble,
  hashInt,
  hashString,
  hllEstimate,
  hllFromRegisters,
  hllFromSet,
  registerAdd,
  registersEstimate,
  xxh64Bytes,
  xxh64Word,
  type DistinctEstimate,
  type DistinctValue,
  type HllState,
} from './kinds/hll/index.ts';
export { BucketKeys, QUANTILE_ACCURACY, QuantileAccumulator, medianEstimate, quantileEstimate, quantileIndex, type Buckets, type QuantileEstimate, type QuantileState, type QuantileType } from './kinds/ddsketch.ts';
export {
  MERGE_CHECK_EVERY,
  PartialAccumulator,
  emptyPartial,
  groupKeyString,
  groupEntriesOf,
  groupsOf,
  kWayMerge,
  layoutOf,
  requestLayout,
  sameSchema,
  samePlanValue,
  mergePartials,
  partialsEqual,
  sortedGroupBytes,
  type ColumnarPartial,
  type GroupEntry,
  type GroupedPartial,
  type KeyColumn,
  type Partial,
  type PartialLayout,
  type RowsPartial,
  type StateColumn,
} from './partial.ts';
export { GroupIndex, ValueCodes, hashDoubleBits, keyDictOf, setKeyDict, type KeyDict } from './group-index.ts';
export { shardMayMatch } from './prune.ts';
export { TopKTracker, combineTopKCell, estimateGroupBytes, scoreOf, topKProven, truncateTopK, valueOfScore, type TopKFrame } from './topk.ts';
export { boundAggregateAnswer, boundRowAnswer, outstandingIrrelevant, rowShardsIrrelevant, skippedTopKBound, type AnswerBounds, type Cell } from './bounds.ts';
export { aggregateValue, evaluate, finalise, type ResultSet } from './finalise.ts';
export { ESTIMATE_CONFIDENCE, estimateAnswer, planEstimates, sampleOf, withShardMoments, type Estimate, type EstimatePlan, type EstimatedCells, type ShardSample } from './estimate.ts';
export { ARROW_STREAM, FRAMES_TYPE, FRAME_VERSION, FrameSplitter, aligned8, decodeFrame, encodeFrame, fromWireJSON, lengthPrefixed, toWireJSON, type Frame } from './wire/index.ts';
export { WORK_CHECK_STEPS, checkRewrite, formatParts, printfParts, setWorkCheckpoint } from './scalar-more.ts';
export { MAX_COMPUTED_STRING_CHARS, MAX_STRING_LENGTH, StringTally, arith, checkStringLength, callFn, makeTimestampParts, castValue, coerceTo, doubleText, negativeNaN, NEGATIVE_NAN, evalScalarNode, likeEndsWithEscape, likeRegex, castUnsigned, narrowInteger, negate, checkRegex, roundHalfEven, signOf } from './scalar.ts';
