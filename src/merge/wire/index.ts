/**
 * The wire format between tiers (pure encode/decode, no I/O), one concept per file: frames
 * (./frame.ts), their JSON header (./header.ts), columns as Arrow buffers (./columns.ts), the
 * Arrow IPC stream writer (./ipc-writer.ts, flatbuffers built with the `flatbuffers` package)
 * and reader (./ipc-reader.ts, over a bounds-checked flatbuffers reader, ./flat-reader.ts),
 * request JSON with bigints (./json.ts),
 * and length-prefixed framing of multi-frame replies (./framing.ts).
 */
export { ARROW_STREAM, FRAME_VERSION, decodeFrame, encodeFrame, type Frame } from './frame.ts';
export { FRAMES_TYPE, FrameSplitter, aligned8, lengthPrefixed } from './framing.ts';
export { fromWireJSON, toWireJSON } from './json.ts';
