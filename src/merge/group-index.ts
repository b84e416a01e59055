/**
 * Group ids for tuples of key values without a string or object per group: each key column's
 * values are interned to small integer codes ({@link ValueCodes}), and the tuple of codes is
 * looked up in an open-addressing table over typed arrays ({@link GroupIndex}). Equality is
 * that of `groupKeyString` (partial.ts): NULLs group together, -0 is 0, every NaN is one key,
 * a number never equals a bigint, strings and bigints compare by value.
 */
import type { Scalar } from './types.ts';

/**
 * MurmurHash3's 32-bit finaliser (fmix32) over one 32-bit word.
 * Source: Austin Appleby, MurmurHash3 (public domain).
 */
function fmix(h: number): number {
  h = Math.imul(h ^ (h >>> 16), 0x85ebca6b);
  h = Math.imul(h ^ (h >>> 13), 0xc2b2ae35);
  return h ^ (h >>> 16);
}

/** Hash of a pair of codes: the first scrambled by a multiply (Knuth's golden-ratio constant), xor the second, then fmix32. */
function hash2(a: number, b: number): number {
  return fmix(Math.imul(a, 0x9e3779b1) ^ b);
}

const BITS = new Float64Array(1);
const HALVES = new Int32Array(BITS.buffer);

/**
 * Dense codes for the values of one key column, in order of first appearance: 0 is NULL,
 * then 1, 2, ... Numbers go in an open-addressing table (linear probing, load <= 1/2) over a
 * Float64Array of values and an Int32Array of codes, so a high-cardinality numeric key (a
 * timestamp) costs no Map entry or boxed double per value; strings, bigints and booleans in
 * a Map (SameValueZero: by value).
 */
export class ValueCodes {
  // 8 slots (64 bytes each array): small enough for V8's heap, grown by doubling (an accumulator per gather and snapshot makes these).
  #keys = new Float64Array(8);
  #slots = new Int32Array(8);
  #mask = 7;
  #numbers = 0;
  #nan = 0;
  #next = 1;
  readonly #others = new Map<unknown, number>();

  /** Number of codes handed out, NULL's included (codes are < this). */
  get bound(): number {
    return this.#next;
  }

  /** The code of `v`, a new one if unseen. */
  code(v: Scalar): number {
    if (v === null) return 0;
    if (typeof v === 'number') return this.#number(v);
    let c = this.#others.get(v);
    if (c === undefined) {
      c = this.#next++;
      this.#others.set(v, c);
    }
    return c;
  }

  /** Makes room for `extra` more numbers without rehashing on the way (load stays <= 1/2). */
  reserve(extra: number): void {
    const want = (this.#numbers + extra) * 2;
    if (want <= this.#mask) return;
    let size = this.#keys.length;
    while (size <= want) size *= 2;
    this.#resize(size);
  }

  #number(x: number): number {
    if (x !== x) return this.#nan === 0 ? (this.#nan = this.#next++) : this.#nan;
    const v = x === 0 ? 0 : x;
    const keys = this.#keys;
    const slots = this.#slots;
    const mask = this.#mask;
    for (let h = hashDoubleBits(v) & mask; ; h = (h + 1) & mask) {
      const c = slots[h]!;
      if (c === 0) {
        const code = this.#next++;
        keys[h] = v;
        slots[h] = code;
        if (++this.#numbers * 2 > mask) this.#grow();
        return code;
      }
      if (keys[h] === v) return c;
    }
  }

  #grow(): void {
    this.#resize(this.#keys.length * 2);
  }

  #resize(size: number): void {
    const oldKeys = this.#keys;
    const oldSlots = this.#slots;
    const keys = (this.#keys = new Float64Array(size));
    const slots = (this.#slots = new Int32Array(size));
    const mask = (this.#mask = size - 1);
    for (let i = 0; i < oldKeys.length; i++) {
      const c = oldSlots[i]!;
      if (c === 0) continue;
      let h = hashDoubleBits(oldKeys[i]!) & mask;
      while (slots[h] !== 0) h = (h + 1) & mask;
      keys[h] = oldKeys[i]!;
      slots[h] = c;
    }
  }
}

/**
 * A key column's dictionary, as the frame decoder finds it for a Utf8 key column: cell i is
 * `values[codes[i]]`, `values[0]` is NULL and every other value is a distinct string, codes in
 * order of first appearance. Lets the merge look a column's value up once per distinct value
 * rather than once per group (a frame of 3,000 origin x destination groups holds ~300 origins).
 */
export interface KeyDict {
  readonly codes: Int32Array;
  readonly values: readonly Scalar[];
}

/**
 * The property a key column array carries its dictionary under (a symbol: invisible to
 * indexing, iteration, spreading and JSON). Not a WeakMap: frames and leaf results register
 * thousands of short-lived columns a second, and a WeakMap entry per young column made every
 * scavenge process them as ephemerons.
 */
const KEY_DICT = Symbol('canopy.keyDict');

/** Records `dict` as the dictionary of key column `col` (an array that is never written again). */
export function setKeyDict(col: readonly Scalar[], dict: KeyDict): void {
  (col as unknown as { [KEY_DICT]?: KeyDict })[KEY_DICT] = dict;
}

/** The dictionary of key column `col`, if the frame decoder recorded one. */
export function keyDictOf(col: ArrayLike<Scalar>): KeyDict | undefined {
  return (col as { [KEY_DICT]?: KeyDict })[KEY_DICT];
}

/** A 32-bit hash of a double's raw bits: fmix32 over its low half xor its high half times the golden ratio. */
export function hashDoubleBits(v: number): number {
  BITS[0] = v;
  return fmix(HALVES[0]! ^ Math.imul(HALVES[1]!, 0x9e3779b1));
}

/**
 * Group ids 0, 1, 2, ... for tuples of `nk` key values, in order of insertion. Use:
 * `find` (the tuple's id, or -1), then `insert` for the tuple just found absent.
 * One key ({@link SingleKeyIds}): a number's raw bits are hashed straight to its group id in
 * one open-addressing table (no code in between), other values by a Map; several: each
 * column's values are coded ({@link ValueCodes}) and the code tuple is hashed into an
 * open-addressing table of group ids (load <= 1/2), each group's codes kept per column in
 * Int32Arrays. No key columns: a single group.
 */
/** Most cells of a two-key index's dense table (4 bytes each: 1 MiB); past them the hash table. */
const DENSE_PAIR_CELLS = 1 << 18;

export class GroupIndex {
  readonly #nk: number;
  readonly #cols: ValueCodes[];
  readonly #scratch: Int32Array;
  #size = 0;
  /** One key: its ids (null for other key counts). */
  readonly #one: SingleKeyIds | null;
  /** Several keys: group id + 1 per slot (0: empty), and each group's codes per column. */
  #table: Int32Array = new Int32Array(16);
  #mask = 15;
  #codes: Int32Array[];
  /** Where `find` stopped (several keys): the empty slot for `insert` (a cell of `#dense` while it is in use). */
  #at = 0;
  /**
   * Two keys whose codes are few (origin × destination: 224 × 226): group id + 1 (0: none) at
   * cell `(a << #shift) | b` of the codes (a, b), in place of the hash table (one load per
   * lookup, no hash or probe); grown by doubling a side when a code passes it, given up for
   * the hash table for good past {@link DENSE_PAIR_CELLS} cells. Null when not in use.
   */
  #dense: Int32Array | null = null;
  /** log2 of the width of `#dense` (codes b < 1 << #shift); its height is `#dense.length >> #shift`. */
  #shift = 0;

  constructor(nk: number) {
    this.#nk = nk;
    this.#one = nk === 1 ? new SingleKeyIds() : null;
    this.#cols = nk > 1 ? Array.from({ length: nk }, () => new ValueCodes()) : [];
    this.#scratch = new Int32Array(nk);
    this.#codes = nk > 1 ? Array.from({ length: nk }, () => new Int32Array(16)) : [];
    if (nk === 2) {
      // 4 × 4 cells to start (on V8's heap), grown by doubling a side.
      this.#shift = 2;
      this.#dense = new Int32Array(4 * 4);
    }
  }

  /** Number of groups inserted. */
  get size(): number {
    return this.#size;
  }

  /**
   * Makes room for `extra` more groups (a partial about to be added): the value tables of
   * numeric keys and the id tables grow once instead of doubling on the way.
   */
  reserve(extra: number): void {
    const nk = this.#nk;
    if (nk === 0 || extra <= 0) return;
    if (nk === 1) {
      this.#one!.reserve(extra);
      return;
    }
    for (const c of this.#cols) c.reserve(extra);
    const groups = this.#size + extra;
    if (groups > this.#codes[0]!.length) this.#codes = this.#codes.map((a) => growInt32(a, Math.max(groups, a.length * 2)));
    if (this.#dense === null && groups * 2 > this.#mask) {
      let size = this.#table.length;
      while (size <= groups * 2) size *= 2;
      this.#rehash(size);
    }
  }

  /** The id of the tuple `cols[0][i], cols[1][i], ...`, or -1 (then {@link insert} adds it). */
  find(cols: readonly ArrayLike<Scalar>[], i: number): number {
    const nk = this.#nk;
    if (nk === 1) return this.#one!.find(cols[0]![i]!);
    const s = this.#scratch;
    for (let k = 0; k < nk; k++) s[k] = this.#cols[k]!.code(cols[k]![i]!);
    return this.#findMany();
  }

  /**
   * {@link find} over key columns that all have dictionaries (`dicts[k]`, two or more keys):
   * the same id, each column's code looked up once per distinct value of its dictionary and
   * kept in `memo[k]` (an Int32Array of at least `dicts[k].values.length` entries, filled with
   * -1 before the partial's first row and kept for its later rows).
   */
  findCoded(dicts: readonly KeyDict[], memo: readonly Int32Array[], i: number): number {
    const nk = this.#nk;
    const s = this.#scratch;
    for (let k = 0; k < nk; k++) {
      const d = dicts[k]!;
      const c = d.codes[i]!;
      const m = memo[k]!;
      let code = m[c]!;
      if (code < 0) code = m[c] = this.#cols[k]!.code(d.values[c]!);
      s[k] = code;
    }
    return this.#findMany();
  }

  /**
   * {@link findCoded} for exactly two keys (`dicts` and `memo` of length 2), without the
   * per-key loop and scratch round trip: the same id, and the same state for {@link insert}.
   */
  findCoded2(d0: KeyDict, d1: KeyDict, m0: Int32Array, m1: Int32Array, i: number): number {
    const c0 = d0.codes[i]!;
    let a = m0[c0]!;
    if (a < 0) a = m0[c0] = this.#cols[0]!.code(d0.values[c0]!);
    const c1 = d1.codes[i]!;
    let b = m1[c1]!;
    if (b < 0) b = m1[c1] = this.#cols[1]!.code(d1.values[c1]!);
    const s = this.#scratch;
    s[0] = a;
    s[1] = b;
    const dense = this.#dense;
    if (dense !== null) {
      const shift = this.#shift;
      if (b >>> shift === 0 && a < dense.length >>> shift) {
        const cell = (a << shift) | b;
        const e = dense[cell]!;
        this.#at = cell;
        return e - 1;
      }
      return this.#findMany();
    }
    const table = this.#table;
    const mask = this.#mask;
    const k0 = this.#codes[0]!;
    const k1 = this.#codes[1]!;
    // #hash over (a, b), unrolled.
    for (let h = hash2(a, b) & mask; ; h = (h + 1) & mask) {
      const e = table[h]!;
      if (e === 0) {
        this.#at = h;
        return -1;
      }
      if (k0[e - 1] === a && k1[e - 1] === b) return e - 1;
    }
  }

  /** The id of the tuple `keys`, or -1 (then {@link insert} adds it). */
  findTuple(keys: readonly Scalar[]): number {
    const nk = this.#nk;
    if (nk === 1) return this.#one!.find(keys[0]!);
    const s = this.#scratch;
    for (let k = 0; k < nk; k++) s[k] = this.#cols[k]!.code(keys[k]!);
    return this.#findMany();
  }

  /** Adds the tuple the last `find` / `findTuple` did not find; returns its id. */
  insert(): number {
    const g = this.#size++;
    const nk = this.#nk;
    if (nk === 0) return g;
    if (nk === 1) {
      this.#one!.insert(g);
      return g;
    }
    if (g >= this.#codes[0]!.length) this.#codes = this.#codes.map((a) => growInt32(a, a.length * 2));
    for (let k = 0; k < nk; k++) this.#codes[k]![g] = this.#scratch[k]!;
    if (this.#dense !== null) {
      this.#dense[this.#at] = g + 1;
      return g;
    }
    this.#table[this.#at] = g + 1;
    if (this.#size * 2 > this.#mask) this.#rehash(this.#table.length * 2);
    return g;
  }

  #hash(codes: Int32Array, g: number): number {
    if (this.#nk === 2) return g < 0 ? hash2(codes[0]!, codes[1]!) : hash2(this.#codes[0]![g]!, this.#codes[1]![g]!);
    let h = 0x9747b28c;
    for (let k = 0; k < this.#nk; k++) h = fmix(h ^ Math.imul(g < 0 ? codes[k]! : this.#codes[k]![g]!, 0xcc9e2d51));
    return h;
  }

  #findMany(): number {
    const nk = this.#nk;
    if (nk === 0) return this.#size > 0 ? 0 : -1;
    const s = this.#scratch;
    if (this.#dense !== null) {
      const cell = this.#denseCell(s[0]!, s[1]!);
      if (cell >= 0) {
        this.#at = cell;
        return this.#dense[cell]! - 1;
      }
    }
    const table = this.#table;
    const mask = this.#mask;
    const codes = this.#codes;
    for (let h = this.#hash(s, -1) & mask; ; h = (h + 1) & mask) {
      const e = table[h]!;
      if (e === 0) {
        this.#at = h;
        return -1;
      }
      const g = e - 1;
      let k = 0;
      while (k < nk && codes[k]![g] === s[k]) k++;
      if (k === nk) return g;
    }
  }

  /**
   * The cell of codes (a, b) in `#dense`, grown to hold them (a side doubled until it does);
   * -1 once the pairs need more than {@link DENSE_PAIR_CELLS} cells: the groups then go to the
   * hash table, for good.
   */
  #denseCell(a: number, b: number): number {
    let dense = this.#dense!;
    let shift = this.#shift;
    let rows = dense.length >>> shift;
    if (b >>> shift !== 0 || a >= rows) {
      while (b >>> shift !== 0) shift++;
      while (a >= rows) rows *= 2;
      if (rows << shift > DENSE_PAIR_CELLS) {
        this.#dense = null;
        let size = 64;
        while (size <= this.#size * 2) size *= 2;
        this.#rehash(size);
        return -1;
      }
      dense = new Int32Array(rows << shift);
      const k0 = this.#codes[0]!;
      const k1 = this.#codes[1]!;
      for (let g = 0; g < this.#size; g++) dense[(k0[g]! << shift) | k1[g]!] = g + 1;
      this.#dense = dense;
      this.#shift = shift;
    }
    return (a << shift) | b;
  }

  #rehash(size: number): void {
    const table = (this.#table = new Int32Array(size));
    const mask = (this.#mask = size - 1);
    for (let g = 0; g < this.#size; g++) {
      let h = this.#hash(this.#scratch, g) & mask;
      while (table[h] !== 0) h = (h + 1) & mask;
      table[h] = g + 1;
    }
  }
}

/** What the last {@link SingleKeyIds.find} missed: where `insert` puts it. */
const MISS_NUMBER = 0;
const MISS_NULL = 1;
const MISS_NAN = 2;
const MISS_OTHER = 3;

/**
 * Group ids of single key values, with the equality of `groupKeyString`: NULL one group, -0
 * is 0, every NaN one group, a number never equals a bigint. Numbers (float64, timestamp
 * keys) go in an open-addressing table (linear probing, load <= 1/2), each slot its value
 * and id + 1 side by side in one Float64Array (0: empty), hashed on the value's raw bits: one
 * probe sequence per lookup, no code step, Map entry or boxed double per value. Strings,
 * bigints and booleans in a Map (SameValueZero: by value).
 */
class SingleKeyIds {
  /** Slot h: the value at 2h, its id + 1 at 2h + 1 (0: empty); side by side, one cache line per probe. */
  #slots = new Float64Array(16);
  #mask = 7;
  #numbers = 0;
  #null = -1;
  #nan = -1;
  readonly #others = new Map<unknown, number>();
  #miss = MISS_NUMBER;
  #at = 0;
  #value: Scalar = null;

  /** The id of `v`, or -1 (then {@link insert} records it). */
  find(v: Scalar): number {
    if (typeof v === 'number') {
      if (v !== v) {
        this.#miss = MISS_NAN;
        return this.#nan;
      }
      const x = v === 0 ? 0 : v;
      const slots = this.#slots;
      const mask = this.#mask;
      for (let h = hashDoubleBits(x) & mask; ; h = (h + 1) & mask) {
        const e = slots[2 * h + 1]!;
        if (e === 0) {
          this.#miss = MISS_NUMBER;
          this.#at = h;
          // An empty slot's value is never compared: it may hold the value until insert.
          slots[2 * h] = x;
          return -1;
        }
        if (slots[2 * h] === x) return e - 1;
      }
    }
    if (v === null) {
      this.#miss = MISS_NULL;
      return this.#null;
    }
    this.#miss = MISS_OTHER;
    this.#value = v;
    return this.#others.get(v) ?? -1;
  }

  /** Records id `g` for the value the last `find` missed. */
  insert(g: number): void {
    switch (this.#miss) {
      case MISS_NUMBER:
        this.#slots[2 * this.#at + 1] = g + 1;
        if (++this.#numbers * 2 > this.#mask) this.#resize(2 * (this.#mask + 1));
        return;
      case MISS_NULL:
        this.#null = g;
        return;
      case MISS_NAN:
        this.#nan = g;
        return;
      default:
        this.#others.set(this.#value, g);
        this.#value = null;
    }
  }

  /** Room for `extra` more numbers without rehashing on the way (load stays <= 1/2). */
  reserve(extra: number): void {
    const want = (this.#numbers + extra) * 2;
    if (want <= this.#mask) return;
    let size = this.#mask + 1;
    while (size <= want) size *= 2;
    this.#resize(size);
  }

  #resize(size: number): void {
    const old = this.#slots;
    const slots = (this.#slots = new Float64Array(2 * size));
    const mask = (this.#mask = size - 1);
    for (let i = 0; i < old.length; i += 2) {
      const e = old[i + 1]!;
      if (e === 0) continue;
      const x = old[i]!;
      let h = hashDoubleBits(x) & mask;
      while (slots[2 * h + 1] !== 0) h = (h + 1) & mask;
      slots[2 * h] = x;
      slots[2 * h + 1] = e;
    }
  }
}

function growInt32(a: Int32Array, size: number): Int32Array {
  const b = new Int32Array(size);
  b.set(a);
  return b;
}
