import { PriorityQueue } from '@datastructures-js/priority-queue';
import { CanopyError, unknownNameMessage } from './errors.ts';
import { checkMomentsSpec } from './estimate.ts';
import { compareForOrder } from './compare.ts';
import { resolveKind, type StateKind } from './kinds/index.ts';
import type { ColumnType, Expr, RowQuerySpec, Scalar, ScanPlan, TableSchema } from './types.ts';

/** One group of a grouped partial: its key values and one state per partial spec. */
export interface GroupEntry {
  readonly keys: readonly Scalar[];
  readonly states: readonly unknown[];
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
 * Partial aggregates by group, column by column (what leaves produce and frames decode to):
 * `keys[k][i]` is key k of group i, `states[p][i]` the state of partial p for group i.
 * No per-group objects, so large group counts stay cheap. Groups are distinct.
 */
export interface ColumnarPartial {
  readonly type: 'columnar';
  readonly size: number;
  readonly keys: readonly (readonly Scalar[])[];
  readonly states: readonly (readonly unknown[])[];
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

/** A merge key part: the value itself, with -0 folded to 0 (Map keys use SameValueZero). */
function keyPart(k: Scalar): unknown {
  return typeof k === 'number' && Object.is(k, -0) ? 0 : k;
}

/** The groups of a grouped or columnar partial as entries (the canonical map form). */
export function groupsOf(p: GroupedPartial | ColumnarPartial): ReadonlyMap<string, GroupEntry> {
  if (p.type === 'groups') return p.groups;
  const out = new Map<string, GroupEntry>();
  for (let i = 0; i < p.size; i++) {
    const keys = p.keys.map((c) => c[i]!);
    out.set(groupKeyString(keys), { keys, states: p.states.map((c) => c[i]) });
  }
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

/** Hooks of an accumulator (both optional; each may throw to stop the merge). */
export interface AccumulatorHooks {
  /** Called every {@link MERGE_CHECK_EVERY} groups merged: cancellation and deadline checks. */
  readonly check?: () => void;
  /** Called with the estimated bytes of each block of {@link MERGE_CHECK_EVERY} new groups, before they are held. */
  readonly charge?: (bytes: number) => void;
}

/** An accumulator's group: keys, merged states and, per state, the generation in which it became the accumulator's own (-1: shared). */
interface Owned {
  readonly keys: readonly Scalar[];
  readonly states: unknown[];
  readonly owned: number[];
}

/**
 * Accumulates partials as they arrive (the gather's merge state). `add` never mutates its
 * argument; `result` may be called repeatedly (progressive snapshots).
 */
export class PartialAccumulator {
  readonly #layout: PartialLayout;
  /**
   * Owned entries in a trie of Maps, one level per key column (no key strings built per
   * row); their `states` arrays are private copies, merged in place.
   */
  readonly #trie = new Map<unknown, unknown>();
  readonly #entries: Owned[] = [];
  /** Generation of ownership: a state is the accumulator's to update in place while its mark equals this; `result` starts a new one. */
  #generation = 0;
  readonly #runs: (readonly (readonly Scalar[])[])[] = [];
  readonly #hooks: AccumulatorHooks;
  readonly #groupBytes: number;

  constructor(layout: PartialLayout, hooks: AccumulatorHooks = {}) {
    this.#layout = layout;
    this.#hooks = hooks;
    this.#groupBytes = mergedGroupBytes(layout.plan.groupBy.length, layout.kinds.length);
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
    if (p.type === 'groups') {
      const check = this.#hooks.check;
      let i = 0;
      for (const e of p.groups.values()) {
        if (check !== undefined && ++i % MERGE_CHECK_EVERY === 0) check();
        this.#merge(e.keys, e.states, -1);
      }
      return;
    }
    const nk = p.keys.length;
    const keys: Scalar[] = new Array(nk);
    const check = this.#hooks.check;
    for (let i = 0; i < p.size; i++) {
      if (check !== undefined && i % MERGE_CHECK_EVERY === MERGE_CHECK_EVERY - 1) check();
      for (let k = 0; k < nk; k++) keys[k] = p.keys[k]![i]!;
      this.#merge(keys, p.states, i);
    }
  }

  /** Merges one group: states are `states[i]` (entry form, i = -1) or `states[p][i]` (columnar). */
  #merge(keys: readonly Scalar[], states: readonly unknown[], i: number): void {
    const kinds = this.#layout.kinds;
    const nk = kinds.length;
    let level = this.#trie;
    const depth = keys.length;
    for (let k = 0; k < depth - 1; k++) {
      const part = keyPart(keys[k]!);
      let next = level.get(part) as Map<unknown, unknown> | undefined;
      if (next === undefined) {
        next = new Map();
        level.set(part, next);
      }
      level = next;
    }
    const last = depth === 0 ? null : keyPart(keys[depth - 1]!);
    const mine = level.get(last) as Owned | undefined;
    if (mine === undefined) {
      if (this.#entries.length >= this.#layout.plan.maxGroups) {
        throw new CanopyError('CANOPY_ERR_LIMIT', `the query produces more than ${this.#layout.plan.maxGroups} groups (the per-query group limit); add a WHERE or group more coarsely`);
      }
      if (this.#entries.length % MERGE_CHECK_EVERY === 0) this.#hooks.charge?.(MERGE_CHECK_EVERY * this.#groupBytes);
      const own = new Array<unknown>(nk);
      for (let s = 0; s < nk; s++) own[s] = i < 0 ? states[s] : (states[s] as readonly unknown[])[i];
      // A plain array: a typed array per group costs more to allocate than the group's merges.
      const owned: number[] = [];
      for (let s = 0; s < nk; s++) owned.push(-1);
      const entry: Owned = { keys: keys.slice(), states: own, owned };
      level.set(last, entry);
      this.#entries.push(entry);
      return;
    }
    const st = mine.states;
    const owned = mine.owned;
    const gen = this.#generation;
    for (let s = 0; s < nk; s++) {
      const kind = kinds[s]!;
      const b = i < 0 ? states[s] : (states[s] as readonly unknown[])[i];
      if (kind.mergeOwned === undefined) {
        st[s] = kind.merge(st[s], b);
        continue;
      }
      // Copy-on-write: the first merge into a group copies its state, later ones update it.
      const acc = st[s];
      const accOwned = owned[s] === gen;
      const r = kind.mergeOwned(acc, accOwned, b);
      st[s] = r;
      owned[s] = r !== b && (r !== acc || accOwned) ? gen : -1;
    }
  }

  /** Number of groups (grouped) or buffered rows (rows) held. */
  get size(): number {
    return this.#layout.plan.rows === null ? this.#entries.length : this.#runs.reduce((n, r) => n + r.length, 0);
  }

  /** The merged partial so far (a fresh object; later adds do not change it). */
  result(): Partial {
    if (this.#layout.plan.rows === null) {
      const groups = new Map<string, GroupEntry>();
      // The states go out shared with the snapshot: none may be updated in place any more.
      this.#generation++;
      for (const e of this.#entries) groups.set(groupKeyString(e.keys), { keys: e.keys, states: e.states.slice() });
      return { type: 'groups', groups };
    }
    return { type: 'rows', rows: kWayMerge(this.#runs, this.#layout.compareRows, this.#layout.plan.rows.limit) };
  }
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
