/** Growable typed arrays and selection access shared by the leaf accumulators. */
import { isValid, type ValueVec } from '../vectors.ts';

/**
 * First length of a leaf accumulator's per-group Float64Array: 8 slots (64 bytes), the most
 * V8 keeps on the JS heap. A longer typed array gets an off-heap backing store, about 8 times
 * the cost to allocate and collect, and a leaf makes several per shard per request; most
 * answers of a shard (no GROUP BY, or a few groups) fit, and {@link grow} doubles past it.
 */
export const SMALL_SLOTS = 8;

/** `a` if it holds `n` slots, else a copy at least twice as long. */
export function grow(a: Float64Array, n: number): Float64Array {
  if (a.length >= n) return a;
  const b = new Float64Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/** {@link grow} for bytes. */
export function growU8(a: Uint8Array, n: number): Uint8Array {
  if (a.length >= n) return a;
  const b = new Uint8Array(Math.max(n, a.length * 2));
  b.set(a);
  return b;
}

/**
 * `count` per-group columns of {@link SMALL_SLOTS} slots, column `k` filled with `identity[k]`
 * (default 0): a new group's starting values (a running product's 1).
 */
export function groupColumns(count: number, identity: readonly number[] = []): Float64Array[] {
  return Array.from({ length: count }, (_v, k) => new Float64Array(SMALL_SLOTS).fill(identity[k] ?? 0));
}

/**
 * Grows every per-group column of `cols` (in place) to hold `groups` slots; a column `k` with
 * an `identity[k]` other than 0 has its new slots set to it (a running product's 1).
 */
export function growColumns(cols: Float64Array[], groups: number, identity: readonly number[] = []): void {
  for (let k = 0; k < cols.length; k++) {
    const before = cols[k]!.length;
    cols[k] = grow(cols[k]!, groups);
    const id = identity[k] ?? 0;
    if (id !== 0 && cols[k]!.length > before) cols[k]!.fill(id, before);
  }
}

/** Row `i` of a numeric vector as a double (bigints converted), or null when NULL or not numeric. */
export function numAt(v: ValueVec, i: number): number | null {
  switch (v.t) {
    case 'const':
      return typeof v.value === 'number' || typeof v.value === 'bigint' ? Number(v.value) : null;
    case 'num':
      return isValid(v.valid, i) ? v.values[i]! : null;
    case 'big':
      return isValid(v.valid, i) ? Number(v.values[i]!) : null;
    default:
      return null;
  }
}

/** Row index of selection position `j`. */
export function rowAt(sel: Int32Array | null, j: number): number {
  return sel === null ? j : sel[j]!;
}

/** Group of selection position `j` (group 0 without GROUP BY). */
export function groupAt(gids: Int32Array | null, j: number): number {
  return gids === null ? 0 : gids[j]!;
}

/**
 * Dictionary codes of one accumulator's string input kept stable across batches: a leaf's
 * batches of a string column share one dictionary, but a string expression over several
 * columns (`origin || destination`, CASE, coalesce) gets a new one per batch. The first
 * dictionary is taken as it is (its codes need no map); from the second on, every string is
 * interned into one list and each batch's codes are mapped to it.
 */
export class StableDictionary {
  /** The strings of every stable code (the first batch's dictionary until a second one differs). */
  strings: readonly string[] = [];
  private last: readonly string[] | null = null;
  private map: Int32Array | null = null;
  private index: Map<string, number> | null = null;
  private own: string[] | null = null;

  /** Whether any batch brought a dictionary other than the first (codes then need {@link adopt}'s map). */
  get mapped(): boolean {
    return this.own !== null;
  }

  /**
   * Takes a batch's dictionary.
   * @returns the map from its codes to stable codes, or null when they are the same
   */
  adopt(dict: readonly string[]): Int32Array | null {
    if (dict === this.last) return this.map;
    if (this.last === null) {
      this.last = dict;
      this.strings = dict;
      return null;
    }
    if (this.own === null) {
      this.own = [...this.strings];
      this.index = new Map(this.own.map((s, i) => [s, i]));
      this.strings = this.own;
    }
    const map = new Int32Array(dict.length);
    for (let c = 0; c < dict.length; c++) {
      const s = dict[c]!;
      let k = this.index!.get(s);
      if (k === undefined) {
        k = this.own.length;
        this.own.push(s);
        this.index!.set(s, k);
      }
      map[c] = k;
    }
    this.last = dict;
    this.map = map;
    return map;
  }
}
