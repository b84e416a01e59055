import { PriorityQueue } from '@datastructures-js/priority-queue';
import { CanopyError, unknownNameMessage } from './errors.ts';
import { checkMomentsSpec } from './estimate.ts';
import { compareForOrder } from './compare.ts';
import { GroupIndex, keyDictOf, type KeyDict } from './group-index.ts';
import { isNumberSumKind, resolveKind, type StateKind } from './kinds/index.ts';
import { SortedRuns, strictlyAscending } from './sorted-runs.ts';
import type { ColumnType, Expr, RowQuerySpec, Scalar, ScanPlan, TableSchema } from './types.ts';

/** One group of a grouped partial: its key values and one state per partial spec. */
export interface GroupEntry {
  readonly keys: readonly Scalar[];
  readonly states: readonly unknown[];
  /** Window aggregates' values for this group, by slot (QueryPlan.windows; set by finalise). */
  readonly windows?: readonly Scalar[];
}

/** Partial aggregates by group. Map key is {@link groupKeyString} of `keys`. */
export interface GroupedPartial {
  readonly type: 'groups';
  readonly groups: ReadonlyMap<string, GroupEntry>;
}

/** A sorted run of rows (row queries), already truncated to the plan's limit. */
export interface RowsPartial {
  readonly type: 'rows';
  readonly rows: readonly (readonly Scalar[])[];
}

/**
 * One column of a columnar partial: an array of cells, or a Float64Array where every cell is
 * a number (a float64 or timestamp key column without NULLs, a COUNT state column): what a
 * frame decodes to without a JS value per cell. Read by index only; never written.
 */
export type KeyColumn = readonly Scalar[] | Float64Array;
/** A state column of a columnar partial (see {@link KeyColumn}). */
export type StateColumn = readonly unknown[] | Float64Array;

/**
 * Partial aggregates by group, column by column (what leaves produce and frames decode to):
 * `keys[k][i]` is key k of group i, `states[p][i]` the state of partial p for group i.
 * No per-group objects, so large group counts stay cheap. Groups are distinct.
 */
export interface ColumnarPartial {
  readonly type: 'columnar';
  readonly size: number;
  readonly keys: readonly KeyColumn[];
  readonly states: readonly StateColumn[];
}

/** What one child contributes for the shards it answered. */
export type Partial = GroupedPartial | ColumnarPartial | RowsPartial;

/**
 * Everything needed to merge, encode and decode the partials of one plan: key types,
 * one state kind per partial spec, or the row columns and their order.
 */
export interface PartialLayout {
  readonly plan: ScanPlan;
  readonly keyTypes: readonly ColumnType[];
  readonly kinds: readonly StateKind<unknown>[];
  readonly rowTypes: readonly ColumnType[];
  /** Row comparator (row queries): sort keys, NULLs last, then every column ascending. */
  readonly compareRows: (a: readonly Scalar[], b: readonly Scalar[]) => number;
}

/**
 * Layouts already built, by plan object then schema object: one request's plan is laid out
 * by the HTTP face, the handler, the gather and every child request of it (the same plan
 * object), so the work is done once per request and per node. Plans and schemas are never
 * mutated, and a WeakMap lets them go with their request.
 */
const LAYOUTS = new WeakMap<ScanPlan, WeakMap<TableSchema, PartialLayout>>();

/**
 * Builds the layout of a plan over a table (cached per plan and schema object).
 * @throws CanopyError CANOPY_ERR_UNKNOWN_COLUMN / CANOPY_ERR_TYPE if the plan does not fit the schema.
 */
export function layoutOf(plan: ScanPlan, schema: TableSchema): PartialLayout {
  let bySchema = LAYOUTS.get(plan);
  const hit = bySchema?.get(schema);
  if (hit !== undefined) return hit;
  const layout = buildLayout(plan, schema);
  if (bySchema === undefined) LAYOUTS.set(plan, (bySchema = new WeakMap()));
  bySchema.set(schema, layout);
  return layout;
}

/** Whether two table schemas are equal: the same name, column names and types, in order. */
export function sameSchema(a: TableSchema, b: TableSchema): boolean {
  if (a === b) return true;
  if (a.name !== b.name || a.columns.length !== b.columns.length) return false;
  for (let i = 0; i < a.columns.length; i++) if (a.columns[i]!.name !== b.columns[i]!.name || a.columns[i]!.type !== b.columns[i]!.type) return false;
  return true;
}

/**
 * Structural equality of two plan values (what JSON carries, plus bigint literals): the same
 * types, numbers by Object.is (a -0 or NaN literal is its own value), arrays and objects
 * member by member. No allocation; a plan of a few dozen nodes compares in about a microsecond.
 */
export function samePlanValue(a: unknown, b: unknown): boolean {
  if (typeof a === 'number') return typeof b === 'number' && Object.is(a, b);
  if (a === b) return true;
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null) return false;
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false;
    for (let i = 0; i < a.length; i++) if (!samePlanValue(a[i], b[i])) return false;
    return true;
  }
  if (Array.isArray(b)) return false;
  const ao = a as Record<string, unknown>;
  const bo = b as Record<string, unknown>;
  let n = 0;
  for (const k in ao) {
    if (ao[k] === undefined) continue;
    n++;
    if (!samePlanValue(ao[k], bo[k])) return false;
  }
  for (const k in bo) if (bo[k] !== undefined) n--;
  return n === 0;
}

/** Layouts kept per process: the nodes of one process answer the same query (one id, equal plans) with one layout. */
const LAYOUT_CACHE_SIZE = 64;
const layoutCache = new Map<string, { plan: ScanPlan; schema: TableSchema; readonly layout: PartialLayout }>();

/**
 * The layout of a request's plan over its schema, built once per query id and process: a
 * request parsed from JSON carries a fresh plan object, so layoutOf's cache by object
 * identity misses on every request. A hit needs the same query id and a structurally equal
 * plan and schema (a different plan under a reused id builds its own). The last
 * {@link LAYOUT_CACHE_SIZE} query ids are kept. The layout's `plan` stays the first request's
 * plan object: scanning with it (not the request's own, equal copy) lets the scan's caches by
 * spec object hit across requests.
 * @throws CanopyError as layoutOf (unknown column, bad partial spec)
 */
export function requestLayout(queryId: string, plan: ScanPlan, schema: TableSchema): PartialLayout {
  const hit = layoutCache.get(queryId);
  if (hit !== undefined && (hit.plan === plan || samePlanValue(hit.plan, plan)) && sameSchema(hit.schema, schema)) {
    // The next requests of the same multiplexed request share these objects: they hit by identity.
    hit.plan = plan;
    hit.schema = schema;
    return hit.layout;
  }
  const layout = layoutOf(plan, schema);
  layoutCache.delete(queryId);
  layoutCache.set(queryId, { plan, schema, layout });
  if (layoutCache.size > LAYOUT_CACHE_SIZE) layoutCache.delete(layoutCache.keys().next().value!);
  return layout;
}

function buildLayout(plan: ScanPlan, schema: TableSchema): PartialLayout {
  // The type of an aggregate's argument. Row-level expressions beyond columns and literals
  // are typed by the expression engine (issue #14, item 2).
  const typeOf = (e: Expr | null, argType: ColumnType | undefined): ColumnType | null => {
    if (e === null) return null;
    if (e.kind === 'lit') return e.type === 'null' ? 'int64' : e.type;
    if (e.kind !== 'col') {
      if (argType !== undefined) return argType;
      throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `an aggregate over a ${e.kind} expression needs its argType in the plan`);
    }
    const name = e.name;
    const c = schema.columns.find((x) => x.name === name);
    if (c === undefined) throw new CanopyError('CANOPY_ERR_UNKNOWN_COLUMN', unknownNameMessage('column', name, schema.columns.map((x) => x.name)));
    return c.type;
  };
  const kinds = plan.partials.map((p) => resolveKind(p, typeOf(p.arg, p.argType)));
  for (const p of plan.partials) if (p.kind === 'moments') checkMomentsSpec(p, plan.partials);
  const rows = plan.rows;
  return {
    plan,
    keyTypes: plan.groupBy.map((g) => g.type),
    kinds,
    rowTypes: rows === null ? [] : rows.columns.map((c) => c.type),
    compareRows: rows === null ? () => 0 : rowComparator(rows),
  };
}

/**
 * Canonical, unambiguous string for a tuple of key values (type-tagged, strings
 * length-prefixed). Equal tuples give equal strings; NULLs group together (SQL GROUP BY).
 */
export function groupKeyString(keys: readonly Scalar[]): string {
  let s = '';
  for (const k of keys) {
    if (k === null) s += 'N|';
    else if (typeof k === 'string') s += `s${k.length}:${k}|`;
    else if (typeof k === 'bigint') s += `b${k}|`;
    else if (typeof k === 'number') s += `n${Object.is(k, -0) ? 0 : k}|`;
    else s += k ? 'T|' : 'F|';
  }
  return s;
}

/** The map form of columnar partials already asked for (partials are never mutated; a WeakMap lets them go). */
const GROUPS_OF = new WeakMap<ColumnarPartial, ReadonlyMap<string, GroupEntry>>();

/**
 * The groups of a grouped or columnar partial as entries (the canonical map form), in the
 * partial's group order; built once per columnar partial object (the root's answer, bounds
 * and top-k labelling all ask for the same one).
 */
export function groupsOf(p: GroupedPartial | ColumnarPartial): ReadonlyMap<string, GroupEntry> {
  if (p.type === 'groups') return p.groups;
  const hit = GROUPS_OF.get(p);
  if (hit !== undefined) return hit;
  const out = new Map<string, GroupEntry>();
  // The same entry objects as groupEntriesOf's (one entry per group, whichever was asked first).
  for (const e of groupEntriesOf(p)) out.set(groupKeyString(e.keys), e);
  GROUPS_OF.set(p, out);
  return out;
}

/** The entries of columnar partials already asked for without their keyed map (see {@link groupEntriesOf}). */
const ENTRIES_OF = new WeakMap<ColumnarPartial, readonly GroupEntry[]>();

/**
 * The groups of a grouped or columnar partial as entries, in the partial's group order: the
 * values of {@link groupsOf} (the same objects), without building its map of key strings for
 * a columnar partial (finalising 200,000 groups spent most of its time making keys nobody
 * looked up). Built once per columnar partial object (a grouped one lists its map's values). The
 * entries are shared: callers must not mutate them.
 */
export function groupEntriesOf(p: GroupedPartial | ColumnarPartial): readonly GroupEntry[] {
  if (p.type === 'groups') return [...p.groups.values()];
  const hit = ENTRIES_OF.get(p);
  if (hit !== undefined) return hit;
  const nk = p.keys.length;
  const ns = p.states.length;
  const out: GroupEntry[] = new Array(p.size);
  for (let i = 0; i < p.size; i++) {
    const keys: Scalar[] = new Array(nk);
    for (let k = 0; k < nk; k++) keys[k] = p.keys[k]![i]!;
    const states: unknown[] = new Array(ns);
    for (let s = 0; s < ns; s++) states[s] = p.states[s]![i];
    out[i] = { keys, states };
  }
  ENTRIES_OF.set(p, out);
  return out;
}

function rowComparator(rows: RowQuerySpec): (a: readonly Scalar[], b: readonly Scalar[]) => number {
  const order = rows.orderBy;
  const n = rows.columns.length;
  return (a, b) => {
    for (const o of order) {
      const c = compareForOrder(a[o.column] ?? null, b[o.column] ?? null, o.desc, o.nullsFirst === true);
      if (c !== 0) return c;
    }
    for (let i = 0; i < n; i++) {
      const c = compareForOrder(a[i] ?? null, b[i] ?? null, false);
      if (c !== 0) return c;
    }
    return 0;
  };
}

/** An empty partial of the plan's shape. */
export function emptyPartial(layout: PartialLayout): Partial {
  return layout.plan.rows === null ? { type: 'groups', groups: new Map() } : { type: 'rows', rows: [] };
}

/**
 * Merges partials of one layout into a new partial; inputs are not mutated.
 * Grouped: per-group state merge. Rows: k-way merge of the sorted runs, stopping at the limit.
 * @throws CanopyError CANOPY_ERR_LIMIT when the merged groups exceed `plan.maxGroups`.
 */
export function mergePartials(layout: PartialLayout, parts: readonly Partial[]): Partial {
  const acc = new PartialAccumulator(layout);
  for (const p of parts) acc.add(p);
  return acc.result();
}

/** Groups between two calls of {@link AccumulatorHooks.check}, and per memory charge. */
export const MERGE_CHECK_EVERY = 4096;

/**
 * Estimated bytes of one merged group (its key array, states array, trie entry per key
 * column and small states); an estimate for memory budgets, not a measurement.
 */
export function mergedGroupBytes(keys: number, states: number): number {
  return 200 + 150 * keys + 48 * states;
}

/**
 * Estimated bytes of one group held in sorted runs (its key as a double, one array slot and
 * a small state per partial); charged per group added, before runs merge equal keys.
 */
export function sortedGroupBytes(states: number): number {
  return 16 + 56 * states;
}

/** Hooks of an accumulator (both optional; each may throw to stop the merge). */
export interface AccumulatorHooks {
  /** Called every {@link MERGE_CHECK_EVERY} groups merged: cancellation and deadline checks. */
  readonly check?: () => void;
  /** Called with the estimated bytes of each block of {@link MERGE_CHECK_EVERY} new groups, before they are held. */
  readonly charge?: (bytes: number) => void;
}

/**
 * Accumulates partials as they arrive (the gather's merge state). `add` never mutates its
 * argument; `result` may be called repeatedly (progressive snapshots).
 *
 * Column by column, with no object or string per group: a {@link GroupIndex} maps each key
 * tuple to a group id (key values interned to integer codes per column, the code tuple in an
 * open-addressing table), and keys and states are held in one array per column indexed by
 * group id. States whose kind merges in place (`mergeOwned`) carry a generation mark per
 * group: the accumulator's own copy while it equals the current generation.
 *
 * One numeric key (float64, timestamp) and kinds that do not merge in place: while every
 * columnar partial added has its keys strictly ascending, they are held as sorted runs
 * ({@link SortedRuns}: merged in key order, no hash probe per group); the first partial that
 * does not ascend (or a grouped one) turns the runs into the hash index, for good.
 */
export class PartialAccumulator {
  readonly #layout: PartialLayout;
  readonly #index: GroupIndex;
  /** `#keys[k][g]`: key k of group g, as first seen. */
  readonly #keys: Scalar[][];
  /** `#states[s][g]`: the merged state of partial s for group g. */
  readonly #states: unknown[][];
  /** Per partial: whether its states are numbers merged by addition (COUNT, moments), merged here without a call. */
  readonly #adds: readonly boolean[];
  /** Every partial's states are numbers merged by addition. */
  readonly #allAdds: boolean;
  /** Per partial whose kind has `mergeOwned`: the generation in which group g's state became the accumulator's own (0: shared); else null. */
  readonly #owned: (Int32Array | null)[];
  /** Generation of ownership (from 1): `result` starts a new one, so states it handed out are never updated in place. */
  #generation = 1;
  readonly #runs: (readonly (readonly Scalar[])[])[] = [];
  readonly #hooks: AccumulatorHooks;
  readonly #groupBytes: number;
  /** Sorted-run mode (see the class comment); null once in hash mode (or never eligible). */
  #sorted: SortedRuns | null;
  /** Sorted-run mode: groups added so far (what the memory charges have covered, in blocks). */
  #sortedAdded = 0;

  constructor(layout: PartialLayout, hooks: AccumulatorHooks = {}) {
    this.#layout = layout;
    this.#hooks = hooks;
    const nk = layout.plan.groupBy.length;
    this.#groupBytes = mergedGroupBytes(nk, layout.kinds.length);
    this.#index = new GroupIndex(nk);
    this.#keys = Array.from({ length: nk }, () => []);
    this.#states = layout.kinds.map(() => []);
    this.#owned = layout.kinds.map((k) => (k.mergeOwned === undefined ? null : new Int32Array(16)));
    this.#adds = layout.kinds.map(isNumberSumKind);
    this.#allAdds = this.#adds.every((a) => a);
    const key = layout.keyTypes[0];
    const sortable = layout.plan.rows === null && nk === 1 && (key === 'float64' || key === 'timestamp' || key === 'date') && layout.kinds.every((k) => k.mergeOwned === undefined);
    this.#sorted = sortable ? new SortedRuns(layout.kinds, hooks.check) : null;
  }

  /**
   * Sorted-run mode: adds a columnar partial whose keys ascend strictly, charging memory per
   * block of groups added; returns false (nothing done) for any other partial.
   * @throws CanopyError CANOPY_ERR_LIMIT past `maxGroups`; whatever the hooks throw.
   */
  #addSorted(runs: SortedRuns, p: Partial): boolean {
    if (p.type !== 'columnar' || p.keys.length !== 1 || p.states.length !== this.#states.length || !strictlyAscending(p.keys[0]!, p.size)) return false;
    const charge = this.#hooks.charge;
    if (charge !== undefined) {
      const blocks = Math.ceil((this.#sortedAdded + p.size) / MERGE_CHECK_EVERY) - Math.ceil(this.#sortedAdded / MERGE_CHECK_EVERY);
      for (let b = 0; b < blocks; b++) charge(MERGE_CHECK_EVERY * sortedGroupBytes(this.#states.length));
    }
    this.#sortedAdded += p.size;
    runs.add(p.keys[0]!, p.states, p.size);
    // The runs count a key once per run: past the limit, merge them to count exactly.
    if (runs.held > this.#layout.plan.maxGroups) this.#collapse(runs);
    return true;
  }

  /** Merges the sorted runs into one. @throws CanopyError CANOPY_ERR_LIMIT past `maxGroups`. */
  #collapse(runs: SortedRuns): { keys: ArrayLike<number>; states: readonly StateColumn[]; size: number } {
    const r = runs.collapse();
    if (r.size > this.#layout.plan.maxGroups) throw this.#limitError();
    return r;
  }

  /** Leaves sorted-run mode: the merged runs become the groups of the hash index. */
  #toHash(runs: SortedRuns): void {
    const r = this.#collapse(runs);
    this.#sorted = null;
    const keys = toScalars(r.keys, r.size).slice();
    const cols = [keys];
    const index = this.#index;
    index.reserve(r.size);
    for (let i = 0; i < r.size; i++) {
      index.find(cols, i);
      index.insert();
    }
    this.#keys[0] = keys;
    for (let s = 0; s < this.#states.length; s++) this.#states[s] = Array.from(r.states[s]!);
  }

  /**
   * Whether a large answer may be added whole rather than in blocks: in sorted-run mode an
   * add keeps the partial's arrays and merges runs of similar size, so blocks would only make
   * more, smaller runs to merge.
   */
  get takesWholeAnswers(): boolean {
    return this.#sorted !== null;
  }

  /**
   * Upper bound on the groups held, without merging anything (estimates of the work left);
   * {@link size} is exact.
   */
  get groupsBound(): number {
    return this.#sorted === null ? this.size : this.#sorted.held;
  }

  /**
   * Adds one partial.
   * @throws CanopyError CANOPY_ERR_LIMIT past `maxGroups`; CANOPY_ERR_INTERNAL on a shape mismatch.
   */
  add(p: Partial): void {
    if (p.type === 'rows') {
      if (this.#layout.plan.rows === null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'row partial for an aggregate plan');
      if (p.rows.length > 0) this.#runs.push(p.rows);
      return;
    }
    if (this.#layout.plan.rows !== null) throw new CanopyError('CANOPY_ERR_INTERNAL', 'grouped partial for a row plan');
    const runs = this.#sorted;
    if (runs !== null) {
      if (this.#addSorted(runs, p)) return;
      this.#toHash(runs);
    }
    const check = this.#hooks.check;
    const index = this.#index;
    if (p.type === 'groups') {
      let i = 0;
      for (const e of p.groups.values()) {
        if (check !== undefined && ++i % MERGE_CHECK_EVERY === 0) check();
        const g = index.findTuple(e.keys);
        if (g < 0) this.#newGroup(e.keys, NO_COLUMNS, e.states, -1);
        else this.#mergeInto(g, e.states, -1);
      }
      return;
    }
    if (p.keys.length !== this.#keys.length || p.states.length !== this.#states.length) throw new CanopyError('CANOPY_ERR_INTERNAL', 'columnar partial does not fit the layout');
    const n = p.size;
    // Room for the first partial's groups at once; later partials mostly meet groups already
    // held (the same keys from other shards), so the tables grow by doubling only as needed,
    // instead of being sized for every group of every partial (a sparse table misses cache).
    if (index.size === 0) index.reserve(n);
    // Ownership marks sized once for every group this partial may add.
    const owned = this.#owned;
    for (let s = 0; s < owned.length; s++) {
      let marks = owned[s];
      if (marks === null || marks === undefined) continue;
      while (marks.length < index.size + n) marks = growMarks(marks);
      owned[s] = marks;
    }
    const pk = p.keys;
    const ps = p.states;
    const ks = this.#keys;
    const sts = this.#states;
    const max = this.#layout.plan.maxGroups;
    // Several keys, each with a dictionary (Utf8 keys of a decoded frame): a column's value is
    // coded once per distinct value (findCoded), not once per group.
    const dicts = pk.length >= 2 ? pk.map((k) => keyDictOf(k)) : null;
    const coded = dicts !== null && dicts.every((d) => d !== undefined) ? (dicts as KeyDict[]) : null;
    const memo = coded === null ? null : coded.map((d) => new Int32Array(d.values.length).fill(-1));
    // Two dictionary keys (q3's origin x destination): one unrolled lookup. States all added
    // numbers (COUNT and the estimates' moments): #addAllAdds, with no per-state dispatch.
    const two = coded !== null && coded.length === 2 ? coded : null;
    const allAdds = this.#allAdds && ps.every((c) => c instanceof Float64Array);
    if (allAdds) {
      this.#addAllAdds(p, two, coded, memo);
      return;
    }
    for (let i = 0; i < n; i++) {
      if (check !== undefined && i % MERGE_CHECK_EVERY === MERGE_CHECK_EVERY - 1) check();
      const g = two !== null ? index.findCoded2(two[0]!, two[1]!, memo![0]!, memo![1]!, i) : coded === null ? index.find(pk, i) : index.findCoded(coded, memo!, i);
      if (g >= 0) {
        this.#mergeInto(g, ps, i);
        continue;
      }
      // A new group (as #newGroup, its marks already sized).
      const size = index.size;
      if (size >= max) throw this.#limitError();
      if (size % MERGE_CHECK_EVERY === 0) this.#hooks.charge?.(MERGE_CHECK_EVERY * this.#groupBytes);
      index.insert();
      for (let k = 0; k < ks.length; k++) ks[k]!.push(pk[k]![i]!);
      for (let s = 0; s < sts.length; s++) sts[s]!.push(ps[s]![i]);
    }
  }

  /**
   * {@link add} of a columnar partial whose every state is a number merged by addition (COUNT,
   * the estimates' moments), in two passes: first each row's group id (a new group takes the
   * row's states as they are, and its id is marked -1), then one tight loop per state column
   * adding the rows into their groups, with no per-state dispatch inside the row loop.
   */
  #addAllAdds(p: ColumnarPartial, two: readonly KeyDict[] | null, coded: readonly KeyDict[] | null, memo: readonly Int32Array[] | null): void {
    const n = p.size;
    const pk = p.keys;
    const ps = p.states as readonly Float64Array[];
    const index = this.#index;
    const ks = this.#keys;
    const sts = this.#states as number[][];
    const check = this.#hooks.check;
    const max = this.#layout.plan.maxGroups;
    const gids = groupIds(n);
    for (let i = 0; i < n; i++) {
      if (check !== undefined && i % MERGE_CHECK_EVERY === MERGE_CHECK_EVERY - 1) check();
      const g = two !== null ? index.findCoded2(two[0]!, two[1]!, memo![0]!, memo![1]!, i) : coded === null ? index.find(pk, i) : index.findCoded(coded, memo!, i);
      gids[i] = g;
      if (g >= 0) continue;
      const size = index.size;
      if (size >= max) throw this.#limitError();
      if (size % MERGE_CHECK_EVERY === 0) this.#hooks.charge?.(MERGE_CHECK_EVERY * this.#groupBytes);
      index.insert();
      for (let k = 0; k < ks.length; k++) ks[k]!.push(pk[k]![i]!);
      for (let s = 0; s < sts.length; s++) sts[s]!.push(ps[s]![i]!);
    }
    for (let s = 0; s < sts.length; s++) {
      const into = sts[s]!;
      const from = ps[s]!;
      for (let i = 0; i < n; i++) {
        const g = gids[i]!;
        if (g >= 0) into[g]! += from[i]!;
      }
    }
  }

  #limitError(): CanopyError {
    return new CanopyError('CANOPY_ERR_LIMIT', `the query produces more than ${this.#layout.plan.maxGroups} groups (the per-query group limit); add a WHERE or group more coarsely`);
  }

  /**
   * Adds the group the index just found absent (after the group limit and the memory charge):
   * its keys, then its states `states[s]` (entry form, si = -1) or `states[s][si]` (columnar).
   * @throws CanopyError CANOPY_ERR_LIMIT past `maxGroups`; whatever the charge hook throws.
   */
  #newGroup(keys: readonly Scalar[] | null, cols: readonly (readonly Scalar[])[], states: readonly unknown[], si: number): void {
    const n = this.#index.size;
    if (n >= this.#layout.plan.maxGroups) throw this.#limitError();
    if (n % MERGE_CHECK_EVERY === 0) this.#hooks.charge?.(MERGE_CHECK_EVERY * this.#groupBytes);
    const g = this.#index.insert();
    const ks = this.#keys;
    for (let k = 0; k < ks.length; k++) ks[k]!.push(keys === null ? cols[k]![si]! : keys[k]!);
    const sts = this.#states;
    for (let s = 0; s < sts.length; s++) {
      sts[s]!.push(si < 0 ? states[s] : (states[s] as readonly unknown[])[si]);
      const owned = this.#owned[s];
      if (owned !== null && owned !== undefined && g >= owned.length) this.#owned[s] = growMarks(owned);
    }
  }

  /** Merges one child's states into group g: `states[s]` (entry form, i = -1) or `states[s][i]` (columnar). */
  #mergeInto(g: number, states: readonly unknown[], i: number): void {
    const kinds = this.#layout.kinds;
    const sts = this.#states;
    const gen = this.#generation;
    const adds = this.#adds;
    for (let s = 0; s < sts.length; s++) {
      const col = sts[s]!;
      const b = i < 0 ? states[s] : (states[s] as readonly unknown[])[i];
      if (adds[s]!) {
        col[g] = (col[g] as number) + (b as number);
        continue;
      }
      const kind = kinds[s]!;
      const owned = this.#owned[s];
      if (owned === null || owned === undefined || kind.mergeOwned === undefined) {
        col[g] = kind.merge(col[g], b);
        continue;
      }
      // Copy-on-write: the first merge into a group copies its state, later ones update it.
      const acc = col[g];
      const accOwned = owned[g] === gen;
      const r = kind.mergeOwned(acc, accOwned, b);
      col[g] = r;
      owned[g] = r !== b && (r !== acc || accOwned) ? gen : 0;
    }
  }

  /** Number of groups (grouped) or buffered rows (rows) held. */
  get size(): number {
    if (this.#sorted !== null) return this.#collapse(this.#sorted).size;
    return this.#layout.plan.rows === null ? this.#index.size : this.#runs.reduce((n, r) => n + r.length, 0);
  }

  /**
   * The merged partial so far (a fresh object; later adds do not change it): grouped plans
   * give a columnar partial, groups in order of first arrival (sorted-run mode: keys ascending).
   * @throws CanopyError CANOPY_ERR_LIMIT (sorted-run mode) when the merged groups exceed `maxGroups`.
   */
  result(): Partial {
    if (this.#sorted !== null) {
      // A collapsed run is never written again: the snapshot shares its state arrays.
      const r = this.#collapse(this.#sorted);
      return { type: 'columnar', size: r.size, keys: [r.keys instanceof Float64Array ? r.keys.subarray(0, r.size) : toScalars(r.keys, r.size)], states: r.states };
    }
    if (this.#layout.plan.rows === null) {
      // The states go out shared with the snapshot: none may be updated in place any more.
      this.#generation++;
      return { type: 'columnar', size: this.#index.size, keys: this.#keys.map((c) => c.slice()), states: this.#states.map((c) => c.slice()) };
    }
    return { type: 'rows', rows: kWayMerge(this.#runs, this.#layout.compareRows, this.#layout.plan.rows.limit) };
  }
}

const NO_COLUMNS: readonly (readonly Scalar[])[] = [];

/** The first `n` keys of a sorted run as a key column: the partial's own array, or a merged run's values copied. */
function toScalars(keys: ArrayLike<number>, n: number): Scalar[] {
  if (Array.isArray(keys) && keys.length === n) return keys as Scalar[];
  const out: Scalar[] = new Array(n);
  for (let i = 0; i < n; i++) out[i] = keys[i]!;
  return out;
}

/** Scratch of {@link PartialAccumulator}'s two-pass merge: one row's group id per row of a partial (reused; merges are synchronous). */
let GROUP_IDS = new Int32Array(4096);

/** {@link GROUP_IDS} with room for `n` rows. */
function groupIds(n: number): Int32Array {
  if (GROUP_IDS.length < n) GROUP_IDS = new Int32Array(Math.max(n, GROUP_IDS.length * 2));
  return GROUP_IDS;
}

function growMarks(a: Int32Array): Int32Array {
  const b = new Int32Array(a.length * 2);
  b.set(a);
  return b;
}

/**
 * k-way merge of sorted runs with a priority queue; stops as soon as `limit` rows are out.
 * O(limit · log(runs)).
 */
export function kWayMerge<T>(runs: readonly (readonly T[])[], compare: (a: T, b: T) => number, limit: number): T[] {
  const out: T[] = [];
  if (limit <= 0) return out;
  const heap = new PriorityQueue<{ run: number; pos: number }>((x, y) => compare(runs[x.run]![x.pos]!, runs[y.run]![y.pos]!) || x.run - y.run);
  runs.forEach((r, i) => {
    if (r.length > 0) heap.enqueue({ run: i, pos: 0 });
  });
  while (out.length < limit && !heap.isEmpty()) {
    const top = heap.dequeue()!;
    const run = runs[top.run]!;
    out.push(run[top.pos]!);
    if (top.pos + 1 < run.length) heap.enqueue({ run: top.run, pos: top.pos + 1 });
  }
  return out;
}

/** Structural equality of two partials of one layout (tests; replica comparison). */
export function partialsEqual(layout: PartialLayout, a: Partial, b: Partial): boolean {
  if ((a.type === 'rows') !== (b.type === 'rows')) return false;
  if (a.type === 'rows' && b.type === 'rows') {
    if (a.rows.length !== b.rows.length) return false;
    return a.rows.every((r, i) => layout.compareRows(r, b.rows[i]!) === 0);
  }
  if (a.type === 'rows' || b.type === 'rows') return false;
  const ga = groupsOf(a);
  const gb = groupsOf(b);
  if (ga.size !== gb.size) return false;
  for (const [k, e] of ga) {
    const f = gb.get(k);
    if (f === undefined) return false;
    for (let i = 0; i < layout.kinds.length; i++) if (!layout.kinds[i]!.equals(e.states[i], f.states[i])) return false;
  }
  return true;
}
