/**
 * Frames: a child's reply, one Arrow IPC stream whose schema metadata `canopy.frame` holds the
 * frame's JSON header (./header.ts) and whose columns are either
 * - grouped partials: `k0..kn` group keys, then `p0..pm` encoded partial states (Arrow
 *   Binary for sketch states, see StateEncoding), or
 * - row partials: `c0..cn` the row query's columns, already sorted.
 * Every column is nullable Int64, Float64, Utf8 or Binary, in one record batch.
 *
 * Frames are on every edge of every query, so both directions avoid apache-arrow's generic
 * machinery (Builders, per-cell `Vector.get`, its IPC writer and reader): encodeFrame fills
 * each column's Arrow buffers as typed arrays (./columns.ts) and writes the stream's two
 * flatbuffer messages itself (./ipc-writer.ts); decodeFrame reads the messages and buffers
 * itself (./ipc-reader.ts), bounds-checked, and calls anything else garbled (a child's reply is
 * untrusted; apache-arrow's `tableFromIPC` trusts the lengths in the bytes). Any
 * Arrow reader reads the frames (test/wire.test.ts checks apache-arrow's); `npm run bench --
 * wire` times both against apache-arrow's own writer and reader over the same columns.
 */
import { CanopyError } from '../errors.ts';
import { GroupIndex, keyDictOf, setKeyDict, type KeyDict } from '../group-index.ts';
import { isCountKind, isNumberSumKind } from '../kinds/count.ts';
import type { StateKind } from '../kinds/kind.ts';
import { strictlyAscending } from '../sorted-runs.ts';
import type { KeyColumn, Partial, PartialLayout, StateColumn } from '../partial.ts';
import { decodedOwnScores, hasOwnScores, scoreOf, type TopKFrame } from '../topk.ts';
import type { ColumnType, GatherTiming, Scalar, ShardStatus } from '../types.ts';
import { columnData, type Enc, type EncodedColumn, type FrameStream, type KeyDictOut, readColumn, readNumbers, storageOf, TYPE_NAMES } from './columns.ts';
import { FRAME_VERSION, finiteOrNull, garbled, parseHeader } from './header.ts';

export { FRAME_VERSION };
import { readFrameStream } from './ipc-reader.ts';
import { writeIpcStream } from './ipc-writer.ts';

/** Media type of frames. */
export const ARROW_STREAM = 'application/vnd.apache.arrow.stream';


/**
 * One reply of a child: its merged partial for the shards it answered, and one provenance
 * entry per shard it was asked for (paths relative to the child).
 */
export interface Frame {
  readonly partial: Partial;
  readonly provenance: readonly ShardStatus[];
  /** Rows scanned below this child (sum over answered shards). */
  readonly rowsScanned: number;
  /** Gathers below this child and how long they waited for each of their children (on request). */
  readonly timings?: readonly GatherTiming[];
  /** Group top-k plans: the bound on dropped groups and per-group intervals (see topk.ts). */
  readonly topk?: TopKFrame;
  /**
   * False for a progressive update (the child's merged state so far, provenance listing only
   * the shards answered so far); absent or true for the answer.
   */
  readonly final?: boolean;
}

/**
 * Encodes a frame as Arrow IPC stream bytes: the schema (field names, types, the
 * `canopy.frame` header as schema metadata) and one record batch, whose buffers (validity
 * bitmaps, Int32 offsets, values) are filled directly from the partial, no Builders.
 * @throws CanopyError CANOPY_ERR_INTERNAL if the partial does not fit the layout or a cell
 *   does not have its column's type.
 */
export function encodeFrame(layout: PartialLayout, frame: Frame): Uint8Array {
  const { columns, n, header } = frameColumns(layout, frame);
  return writeIpcStream(columns, n, header);
}

/**
 * A frame as Arrow column buffers, its row count and header text: what {@link encodeFrame}
 * writes as an IPC stream (bench/wire-baseline.ts writes the same columns with apache-arrow's
 * writer).
 * @throws CanopyError as {@link encodeFrame}.
 */
export function frameColumns(layout: PartialLayout, frame: Frame): { columns: EncodedColumn[]; n: number; header: string } {
  const header = JSON.stringify({ v: FRAME_VERSION, provenance: frame.provenance, rowsScanned: frame.rowsScanned, ...(frame.timings === undefined ? {} : { timings: frame.timings }),
    ...(frame.final === false ? { final: false } : {}),
    ...(frame.topk === undefined ? {} : { topk: ownScores(layout, frame) ? { bound: finiteOrNull(frame.topk.bound), own: true } : { bound: finiteOrNull(frame.topk.bound), his: frame.topk.his.map(finiteOrNull), exact: frame.topk.exact } }),
  });
  const cols: { name: string; enc: Enc; values: ArrayLike<unknown>; encode?: (s: unknown) => unknown }[] = [];
  const p = frame.partial;
  if (p.type === 'columnar') {
    if (layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    layout.keyTypes.forEach((t, i) => cols.push({ name: `k${i}`, enc: t, values: p.keys[i]! }));
    // Encoded cell by cell while the column is filled (no array of encoded states); a typed
    // column of a kind whose state encodes as itself (COUNT, moments): its bytes as they are.
    layout.kinds.forEach((k, i) => {
      const st = p.states[i]!;
      const typed = st instanceof Float64Array && isNumberSumKind(k);
      cols.push({ name: `p${i}`, enc: k.encoding, values: st, ...(typed ? {} : { encode: (s: unknown) => k.encode(s) }) });
    });
  } else if (p.type === 'groups') {
    if (layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    const entries = [...p.groups.values()];
    layout.keyTypes.forEach((t, i) => cols.push({ name: `k${i}`, enc: t, values: entries.map((e) => e.keys[i]) }));
    layout.kinds.forEach((k, i) => cols.push({ name: `p${i}`, enc: k.encoding, values: entries.map((e) => k.encode(e.states[i])) }));
  } else {
    if (layout.plan.rows === null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'row partial for an aggregate plan');
    layout.rowTypes.forEach((t, i) => cols.push({ name: `c${i}`, enc: t, values: p.rows.map((r) => r[i]) }));
  }
  const n = cols[0]?.values.length ?? 0;
  for (const c of cols) if (c.values.length !== n) throw new CanopyError('CANOPY_ERR_INTERNAL', `frame column ${c.name} has ${c.values.length} values, expected ${n}`);
  return { columns: cols.map((c) => columnData(c.enc, c.name, c.values, c.encode)), n, header };
}

/**
 * Decodes and validates a frame against the layout the parent expects. Grouped frames decode
 * to a columnar partial (keys and states in the frame's group order), row frames to a rows
 * partial. Binary states are views into `bytes` (no copy).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for bytes that are not Arrow, a missing or
 *   malformed header, a wrong schema (column count, names or Arrow types), buffers too
 *   short or offsets outside them, invalid state values, a repeated group, or rows that are
 *   unsorted or over the plan's limit.
 */
export function decodeFrame(layout: PartialLayout, bytes: Uint8Array): Frame {
  return frameFromStream(layout, readFrameStream(bytes));
}

/**
 * The frame held by a read stream (ours, or apache-arrow's: see `arrowFrameStream`), validated
 * against `layout` as {@link decodeFrame} says.
 * @throws CanopyError as {@link decodeFrame}.
 */
export function frameFromStream(layout: PartialLayout, stream: FrameStream): Frame {
  const { provenance, rowsScanned, timings, topk: sent, final } = parseHeader(stream.metadata.get('canopy.frame'));
  const n = stream.batches.reduce((sum, b) => sum + b.length, 0);
  if (sent !== undefined && !('own' in sent) && sent.his.length !== n) throw garbled('frame top-k header does not match its groups');
  // `own`: the per-group bounds are the groups' own scores, computed once the states are decoded.
  let topk: TopKFrame | undefined = sent === undefined || 'own' in sent ? undefined : sent;
  const extra = (): { timings?: GatherTiming[]; topk?: TopKFrame; final?: boolean } => ({ ...(timings === undefined ? {} : { timings }), ...(topk === undefined ? {} : { topk }), ...(final === false ? { final } : {}) });
  const expect: { name: string; enc: Enc }[] =
    layout.plan.rows === null
      ? [...layout.keyTypes.map((t, i) => ({ name: `k${i}`, enc: t as Enc })), ...layout.kinds.map((k, i) => ({ name: `p${i}`, enc: k.encoding as Enc }))]
      : layout.rowTypes.map((t, i) => ({ name: `c${i}`, enc: t as Enc }));
  const fields = stream.fields;
  if (fields.length !== expect.length) throw garbled(`frame has ${fields.length} columns, expected ${expect.length}`);
  expect.forEach((x, i) => {
    const f = fields[i]!;
    const want = TYPE_NAMES[storageOf(x.enc)];
    if (f.name !== x.name || f.type !== want) {
      throw garbled(`frame column ${i} is ${f.name}: ${f.type}, expected ${x.name}: ${want}`);
    }
  });
  try {
    if (layout.plan.rows === null) {
      const typed = typedGroups(layout, stream, n);
      if (typed !== null) return finishGrouped(layout, typed.keys, typed.states, n, sent, provenance, rowsScanned, extra, (t) => (topk = t));
    }
    // One pass per column over its typed arrays (every record batch), then the checks on values.
    const nk = layout.plan.rows === null ? layout.keyTypes.length : 0;
    // Utf8 key columns also give their dictionary codes (setKeyDict), for the merge and the repeat check.
    const dicts: (KeyDictOut | undefined)[] = expect.map((x, c) => (c < nk && x.enc === 'string' ? {} : undefined));
    // COUNT and moments states without NULLs come as one Float64Array (COUNTs checked as their decode checks them).
    const counts = expect.map((x, c) => (layout.plan.rows === null && c >= nk ? readTypedStates(layout.kinds[c - nk]!, stream.batches, c, x.name, n) : null));
    const cells = expect.map((x, c): unknown[] | Float64Array => {
      const typed = counts[c];
      if (typed !== null && typed !== undefined) return typed;
      return readColumn(stream.batches, c, storageOf(x.enc), x.name, n, dicts[c]);
    });
    if (layout.plan.rows !== null) {
      const cols = cells.map((col, c) => fromCells(layout.rowTypes[c]!, col as unknown[]));
      const rows: Scalar[][] = new Array(n);
      for (let r = 0; r < n; r++) {
        const row: Scalar[] = new Array(cols.length);
        for (let c = 0; c < cols.length; c++) row[c] = cols[c]![r]!;
        rows[r] = row;
      }
      for (let r = 1; r < n; r++) if (layout.compareRows(rows[r - 1]!, rows[r]!) > 0) throw garbled('row run is not sorted');
      if (n > layout.plan.rows.limit) throw garbled(`row run has ${n} rows, more than the limit ${layout.plan.rows.limit}`);
      return { partial: { type: 'rows', rows }, provenance, rowsScanned, ...extra() };
    }
    const keys = layout.keyTypes.map((t, c) => {
      const col = fromCells(t, cells[c] as unknown[]);
      const d = dicts[c];
      if (d?.codes !== undefined && d.values !== undefined) setKeyDict(col, { codes: d.codes, values: d.values });
      return col;
    });
    const states = layout.kinds.map((k, i): StateColumn => {
      const col = cells[nk + i]!;
      if (col instanceof Float64Array) return col;
      for (let r = 0; r < n; r++) col[r] = k.decode(col[r]);
      return col;
    });
    return finishGrouped(layout, keys, states, n, sent, provenance, rowsScanned, extra, (t) => (topk = t));
  } catch (e) {
    if (e instanceof CanopyError) throw e;
    throw garbled(`frame holds an invalid value (${e instanceof Error ? e.message : String(e)})`);
  }
}

/**
 * A grouped frame's key and state columns as Float64Arrays (no JS value per cell) when every
 * column allows: float64 / timestamp keys and COUNT states, with no NULL. The COUNT values
 * are checked as the kind's decode checks them (non-negative integers). Null otherwise.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for a COUNT state that is not a count.
 */
function typedGroups(layout: PartialLayout, stream: FrameStream, n: number): { keys: Float64Array[]; states: Float64Array[] } | null {
  const nk = layout.keyTypes.length;
  if (nk === 0 || !layout.keyTypes.every((t) => t === 'float64' || t === 'timestamp' || t === 'date') || !layout.kinds.every(isNumberSumKind)) return null;
  const keys: Float64Array[] = [];
  for (let c = 0; c < nk; c++) {
    const col = readNumbers(stream.batches, c, `k${c}`, n);
    if (col === null) return null;
    keys.push(col);
  }
  const states: Float64Array[] = [];
  for (let i = 0; i < layout.kinds.length; i++) {
    const col = readTypedStates(layout.kinds[i]!, stream.batches, nk + i, `p${i}`, n);
    if (col === null) return null;
    states.push(col);
  }
  return { keys, states };
}

/**
 * The states of column `c` as one Float64Array when the kind allows (isNumberSumKind) and
 * no cell is NULL: COUNTs checked by {@link readCounts}, moments any double. Null otherwise.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for a COUNT that is not a count.
 */
function readTypedStates(kind: StateKind<unknown>, batches: FrameStream['batches'], c: number, name: string, n: number): Float64Array | null {
  if (isCountKind(kind)) return readCounts(batches, c, name, n);
  return kind.kind === 'moments' ? readNumbers(batches, c, name, n) : null;
}

/**
 * COUNT states of column `c` as one Float64Array ({@link readNumbers}), each checked as the
 * kind's decode checks it (a non-negative integer); null when a cell is NULL.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for a value that is not a count.
 */
function readCounts(batches: FrameStream['batches'], c: number, name: string, n: number): Float64Array | null {
  const col = readNumbers(batches, c, name, n);
  if (col === null) return null;
  for (let r = 0; r < n; r++) {
    const v = col[r]!;
    if (!(v >= 0 && Number.isInteger(v))) throw garbled(`frame holds an invalid value (bad count state ${v})`);
  }
  return col;
}

/**
 * The checks and top-k frame common to both forms of a decoded grouped frame: no repeated
 * group, and own-score bounds computed from the states; `setTopK` receives them.
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED for a repeated group or a stray top-k header.
 */
function finishGrouped(
  layout: PartialLayout,
  keys: readonly KeyColumn[],
  states: readonly StateColumn[],
  n: number,
  sent: ReturnType<typeof parseHeader>['topk'],
  provenance: readonly ShardStatus[],
  rowsScanned: number,
  extra: () => { timings?: GatherTiming[]; topk?: TopKFrame; final?: boolean },
  setTopK: (t: TopKFrame) => void,
): Frame {
  if (repeatsAGroup(keys, n)) throw garbled('frame repeats a group');
  if (sent !== undefined && 'own' in sent) {
    const spec = layout.plan.topk;
    if (spec === undefined) throw garbled('frame has a top-k header for a plan without top-k');
    // Decoded COUNT states are counts (never NaN), so every own score is defined.
    const lazy = decodedOwnScores(layout, spec, sent.bound, states[spec.partial]!);
    if (lazy === null) throw garbled('frame holds a state whose score is NaN');
    setTopK(lazy);
  }
  return { partial: { type: 'columnar', size: n, keys, states }, provenance, rowsScanned, ...extra() };
}

/**
 * Whether a grouped frame's top-k bounds are its groups' own scores, each group complete
 * (then its header says `own: true` instead of listing them).
 */
function ownScores(layout: PartialLayout, frame: Frame): boolean {
  const t = frame.topk;
  const spec = layout.plan.topk;
  const p = frame.partial;
  if (t === undefined || spec === undefined || p.type !== 'columnar') return false;
  const st = p.states[spec.partial]!;
  // Recorded own scores are of `st`, one per state (a lazy frame's are not built to ask).
  if (hasOwnScores(t, st)) return st.length === p.size;
  if (t.his.length !== p.size) return false;
  for (let i = 0; i < p.size; i++) if (t.exact[i] !== true || t.his[i] !== scoreOf(layout, spec, st[i], true)) return false;
  return true;
}

/**
 * Whether two of the `n` groups have equal key tuples, with the equality of `groupKeyString`
 * (partial.ts): NULLs equal, -0 equal to 0, NaN equal to NaN, otherwise equal values; decided
 * by a {@link GroupIndex} (key codes per column, no string per group). No key columns: more
 * than one group repeats.
 */
function repeatsAGroup(keys: readonly KeyColumn[], n: number): boolean {
  if (n <= 1) return false;
  if (keys.length === 0) return true;
  // One key of strictly ascending numbers (a leaf's groups of a time-ordered shard, an
  // aggregator's merged runs): no two are equal, checked in one sequential pass.
  if (keys.length === 1 && strictlyAscending(keys[0]!, n)) return false;
  // A few groups (a leaf's small answer): pairwise, without building an index per frame.
  if (n <= SMALL_FRAME_GROUPS) {
    for (let a = 1; a < n; a++) {
      for (let b = 0; b < a; b++) {
        let same = true;
        for (let c = 0; c < keys.length && same; c++) same = sameKey(keys[c]![a]!, keys[c]![b]!);
        if (same) return true;
      }
    }
    return false;
  }
  // Every key with a dictionary (Utf8 keys): code tuples marked in a bitmap of the code space.
  const dicts = keys.map((k) => keyDictOf(k));
  if (dicts.every((d) => d !== undefined)) {
    const r = repeatsByCodes(dicts as KeyDict[], n);
    if (r !== null) return r;
  }
  const index = new GroupIndex(keys.length);
  index.reserve(n);
  for (let r = 0; r < n; r++) {
    if (index.find(keys, r) >= 0) return true;
    index.insert();
  }
  return false;
}

/** Largest code space (product of the dictionaries' sizes) {@link repeatsByCodes} marks in a bitmap. */
const CODE_SPACE_LIMIT = 1 << 24;

/**
 * Whether two of the `n` rows have the same tuple of dictionary codes (equal codes are equal
 * values: a dictionary holds each string once and NULL as code 0), by a bitmap over the code
 * space; null when the space exceeds {@link CODE_SPACE_LIMIT}.
 */
function repeatsByCodes(dicts: readonly KeyDict[], n: number): boolean | null {
  let space = 1;
  for (const d of dicts) space *= d.values.length;
  if (space > CODE_SPACE_LIMIT) return null;
  const seen = new Uint8Array((space + 7) >> 3);
  const c0 = dicts[0]!.codes;
  const c1 = dicts[1]?.codes;
  const m1 = dicts[0]!.values.length;
  for (let r = 0; r < n; r++) {
    let x = c0[r]!;
    if (c1 !== undefined) {
      x += m1 * c1[r]!;
      for (let k = 2, m = m1 * dicts[1]!.values.length; k < dicts.length; m *= dicts[k]!.values.length, k++) x += m * dicts[k]!.codes[r]!;
    }
    const bit = 1 << (x & 7);
    if ((seen[x >> 3]! & bit) !== 0) return true;
    seen[x >> 3]! |= bit;
  }
  return false;
}

/** Frames of at most this many groups are checked for a repeated group pairwise. */
const SMALL_FRAME_GROUPS = 8;

/** Key equality of `groupKeyString`: NULLs equal, -0 is 0, NaN equals NaN, a number never equals a bigint. */
function sameKey(x: Scalar, y: Scalar): boolean {
  return x === y || (typeof x === 'number' && typeof y === 'number' && x !== x && y !== y);
}

/**
 * Cells of a key or row column -> scalars, in place: bool travels as 'true' / 'false', int128
 * (HUGEINT) as its decimal digits. Other types are already their scalars: {@link readColumn}
 * gives bigints for Int64, numbers for Float64 and strings for Utf8 storage (the field types
 * were checked against the layout), and null for NULL, so there is nothing to check cell by cell.
 */
function fromCells(t: ColumnType, cells: unknown[]): Scalar[] {
  if (t === 'bool') {
    const n = cells.length;
    for (let r = 0; r < n; r++) {
      const v = cells[r];
      cells[r] = v === null || v === undefined ? null : v === 'true';
    }
  }
  if (t === 'int128') {
    // A HUGEINT travels as its decimal digits (Utf8): read back as the bigint it was.
    const n = cells.length;
    for (let r = 0; r < n; r++) {
      const v = cells[r];
      if (v === null || v === undefined) cells[r] = null;
      else if (typeof v === 'string' && /^-?\d{1,39}$/.test(v)) cells[r] = BigInt(v);
      else throw garbled(`frame holds an invalid HUGEINT ${JSON.stringify(String(v)).slice(0, 60)}`);
    }
  }
  return cells as Scalar[];
}
