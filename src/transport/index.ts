/** Public face of src/transport: the clock, the child interface and its HTTP and in-process implementations (the simulated ones are in src/sim). */
export { ADMISSION_DEFAULTS, Admission, NODE_ADMISSION_DEFAULTS, admissionWaitMs, type AdmissionCounters, type AdmissionOptions, type AdmissionSettings } from './admission.ts';
export { Cancel } from './cancel.ts';
export { clockWithNow, coalesce, systemClock, type Clock, type Coalescer } from './clock.ts';
export { BUDGET_HEADER, PARTIAL_ROUTE, SENT_AT_HEADER, inProcessChild, type Child, type ChildRequest, type NodeHandler } from './child.ts';
export { ReplyBytes, childHttpError, httpChild, type HttpChild, type HttpChildOptions } from './http-child.ts';
export { MUX_CANCEL_ROUTE, MUX_ROUTE, MUX_TYPE, MultiplexClient, TURN_FRAME_BYTES, muxBody, muxEnvelope, readMuxBody, type MultiplexClientOptions, type MuxBody } from './multiplex.ts';
export { NodeDirectory, bearerMatches, buildNodeApp, clientGoneSignal, localChild, loopbackTransitMs, type DirectoryNode, type LocalChildOptions, type NodeAppOptions } from './http-server.ts';
export { canopyClientErrorHandler, canopyErrorHandler, httpCanopyError, type ErrorHandlerOptions } from './http-errors.ts';
export { readJsonBody } from './json-body.ts';
export { ChildRequestSchema, parseChildRequest, type ChildRequestBody } from './request-schema.ts';
export { LATENCY_BUCKETS, RequestHistogram, WAIT_BUCKETS, nodeHttpMetrics, nodeReadings, processMetrics, readCounter, replyBytesMetrics, type NodeHttpMetrics, type NodeReadings, type ProcessIdentity, type ReplyBytesMetrics, type RequestOutcome } from './metrics.ts';
export { QUERY_WORK_KEPT, QueryWork, type QueryWorkEntry } from './work.ts';
export { AGING_EVERY, LEVEL_TURNS, SLICE_MS, SliceScheduler, SliceTask, sliceLevel, type SliceCounters, type SliceLoop } from './slices.ts';
export { IDLE_GC_MIN_YOUNG_BYTES, IdleCollector, idleCollector, type IdleCollectorOptions } from './idle-gc.ts';
