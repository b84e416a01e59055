/**
 * WebAssembly SIMD scan kernels over packed int16-pair column views (src/leaf/int32.ts), and
 * the per-thread arena (one WebAssembly.Memory) those views live in: WebAssembly reads only
 * its own linear memory, so a view a kernel scans is placed there when its shard is loaded.
 *
 Two kernels:
 * - `count`: the COUNT of packed lanes in a range, eight rows per 128-bit operation
 *   (`i16x8.ge_u`, `i16x8.lt_u`, `v128.and`, `i16x8.sub` into per-lane counters), where the
 *   int32 SWAR loop does two rows per word; COUNT(*) WHERE `x op c` of an integer column is
 *   memory-bound with it.
 * - `hours`: the codes of extract(hour) of timestamps (µs as doubles), two rows per 128-bit
 *   operation (`f64x2`), with a multiplication by the reciprocal corrected by one step where
 *   the JS loop divides each row: 1.7 against 3.6 ns a row (8,192-row batches, this VM).
 *
 * The module is a few hundred bytes written here by hand (no toolchain):
 * instruction encodings from the WebAssembly SIMD proposal's binary encoding
 * (github.com/WebAssembly/simd, proposals/simd/BinarySIMD.md; SIMD is in WebAssembly 2.0).
 *
 * The arena is made of fixed-size chunks that never grow (see {@link Arena}). Blocks are freed
 * when the int32 view they were packed for is collected (a FinalizationRegistry), and reused
 * by blocks of the same size (the batches of a table have one size, 8,192 rows, bar the
 * last). Past {@link ARENA_MAX_BYTES} nothing more is placed: views are then packed in
 * ordinary arrays and scanned by the JS loop, as where WebAssembly SIMD is missing.
 */

/** Largest arena, bytes (packed views need 2 bytes a row, timestamps for `hours` 8: 128 MiB is 64 M packed rows a thread). */
export const ARENA_MAX_BYTES = 128 * 1024 * 1024;

/** WebAssembly page size, bytes. */
const PAGE = 65536;

/** Vectors per chunk of the count kernel: each 16-bit lane counter stays below 2^15. */
const CHUNK_BYTES = 4096 * 16;

function leb(n: number): number[] {
  const out: number[] = [];
  do {
    let b = n & 0x7f;
    n >>>= 7;
    if (n !== 0) b |= 0x80;
    out.push(b);
  } while (n !== 0);
  return out;
}

/** Signed LEB128 of a small non-negative i32 constant. */
function sleb(n: number): number[] {
  const out: number[] = [];
  for (;;) {
    const b = n & 0x7f;
    n >>= 7;
    if ((n === 0 && (b & 0x40) === 0) || (n === -1 && (b & 0x40) !== 0)) {
      out.push(b);
      return out;
    }
    out.push(b | 0x80);
  }
}

function section(id: number, body: number[]): number[] {
  return [id, ...leb(body.length), ...body];
}

const SIMD = 0xfd;

const get = (i: number): number[] => [0x20, i];
const set = (i: number): number[] => [0x21, i];
const simd = (op: number, ...imm: number[]): number[] => [SIMD, ...leb(op), ...imm];
/** `f64x2.splat(x)`: an f64.const (8 bytes, little-endian) splatted to both lanes. */
const splat = (x: number): number[] => [0x44, ...new Uint8Array(new Float64Array([x]).buffer), ...simd(0x14)];

/** f64x2 opcodes (after the SIMD prefix). */
const F64X2 = { lt: 0x49, ge: 0x4c, floor: 0x75, add: 0xf0, sub: 0xf1, mul: 0xf2 } as const;
const V128_AND = 0x4e;
const I32X4_TRUNC_SAT_F64X2_S_ZERO = 0xfc;

/** Microseconds per hour. */
const US_PER_HOUR = 3_600_000_000;

/**
 * `count(off, words, l, h) -> i32`: lanes u of the packed words at byte offset `off` (`words`
 * 32-bit words, a multiple of 4: two 16-bit lanes each) with `l <= u < h` (unsigned; l, h in
 * [0, 0x8000]).
 */
function countBody(): number[] {
  // Locals: 0 off, 1 words, 2 l, 3 h (params); 4 i, 5 end, 6 chunk end (i32); 7 vl, 8 vh, 9 acc, 10 total, 11 v (v128).
  return [
    0x02, 0x03, 0x7f, 0x05, 0x7b,
    0x20, 2, SIMD, 0x10, 0x21, 7, // vl = i16x8.splat(l)
    0x20, 3, SIMD, 0x10, 0x21, 8, // vh = i16x8.splat(h)
    0x20, 0, 0x21, 4, // i = off
    0x20, 0, 0x20, 1, 0x41, 2, 0x76, 0x41, 4, 0x74, 0x6a, 0x21, 5, // end = off + (words >> 2 << 4)
    0x02, 0x40, // block
    0x03, 0x40, // loop (chunks)
    0x20, 4, 0x20, 5, 0x4f, 0x0d, 1, // if i >= end: break
    0x20, 4, 0x41, ...sleb(CHUNK_BYTES), 0x6a, 0x21, 6, // ce = i + CHUNK_BYTES
    0x20, 6, 0x20, 5, 0x20, 6, 0x20, 5, 0x49, 0x1b, 0x21, 6, // ce = ce < end ? ce : end
    SIMD, 0x0c, ...new Array<number>(16).fill(0), 0x21, 9, // acc = 0
    0x03, 0x40, // loop (vectors)
    0x20, 9,
    0x20, 4, SIMD, 0x00, 0x00, 0x00, 0x22, 11, // v = v128.load(i)
    0x20, 7, SIMD, 0x36, // i16x8.ge_u(v, vl)
    0x20, 11, 0x20, 8, SIMD, 0x30, // i16x8.lt_u(v, vh)
    SIMD, 0x4e, // v128.and
    SIMD, 0x91, 0x01, // acc = i16x8.sub(acc, mask): +1 per lane in range
    0x21, 9,
    0x20, 4, 0x41, 16, 0x6a, 0x22, 4, // i += 16
    0x20, 6, 0x49, 0x0d, 0, // while i < ce
    0x0b,
    0x20, 10, 0x20, 9, SIMD, 0x7f, SIMD, 0xae, 0x01, 0x21, 10, // total = i32x4.add(total, i32x4.extadd_pairwise_i16x8_u(acc))
    0x0c, 0, // next chunk
    0x0b,
    0x0b,
    0x20, 10, SIMD, 0x1b, 0, 0x20, 10, SIMD, 0x1b, 1, 0x6a, 0x20, 10, SIMD, 0x1b, 2, 0x6a, 0x20, 10, SIMD, 0x1b, 3, 0x6a, // sum of the lanes
    0x0b,
  ];
}

/**
 * `hours(src, n, dst)`: for the `n & ~3` doubles at byte offset `src` (timestamps, µs since
 * 1970, every one finite with |t| < 2^53), writes 1 + the hour of the day (UTC) of each as an
 * int32 at byte offset `dst` (extract(hour)'s dense code, as src/leaf/groupby.ts codes it).
 * Per pair of rows: q = floor(t · (1/H)) is within one of floor(t / H) (the product's error is
 * below 2^-51 · |t / H| < 2^-27); r = t - q·H is exact (q·H is a multiple of 2^9 below 2^62,
 * and r is an integer below 2^34), so q is corrected by +1 where r >= H and -1 where r < 0.
 * Then h = q - floor((q + 0.5) / 24) · 24, the quotient's fraction lying 1/48 from any
 * integer (far above the product's error for |q| < 2^22), and the code h + 1 as int32. Four
 * rows per iteration: the two int32 pairs are shuffled into one 128-bit store.
 */
function hoursBody(): number[] {
  // Locals: 0 src, 1 n, 2 dst (params); 3 end (i32); 4 a, 5 q, 6 r, 7 1/H, 8 H, 9 1.0, 10 0.0, 11 0.5, 12 1/24, 13 24.0 (v128).
  const code = (load: number[]): number[] => [
    ...load, ...get(7), ...simd(F64X2.mul), ...simd(F64X2.floor), ...set(5), // q = floor(t · 1/H)
    ...load, ...get(5), ...get(8), ...simd(F64X2.mul), ...simd(F64X2.sub), ...set(6), // r = t - q·H
    ...get(5), ...get(6), ...get(8), ...simd(F64X2.ge), ...get(9), ...simd(V128_AND), ...simd(F64X2.add), // q + (r >= H ? 1 : 0)
    ...get(6), ...get(10), ...simd(F64X2.lt), ...get(9), ...simd(V128_AND), ...simd(F64X2.sub), ...set(5), // - (r < 0 ? 1 : 0)
    ...get(5), ...get(5), ...get(11), ...simd(F64X2.add), ...get(12), ...simd(F64X2.mul), ...simd(F64X2.floor), ...get(13), ...simd(F64X2.mul), ...simd(F64X2.sub), // h = q - floor((q + 0.5) / 24)·24
    ...get(9), ...simd(F64X2.add), ...simd(I32X4_TRUNC_SAT_F64X2_S_ZERO), // h + 1 in int32 lanes 0 and 1
  ];
  return [
    0x02, 0x01, 0x7f, 0x0a, 0x7b,
    ...splat(1 / US_PER_HOUR), ...set(7), ...splat(US_PER_HOUR), ...set(8), ...splat(1), ...set(9), ...splat(0), ...set(10), ...splat(0.5), ...set(11), ...splat(1 / 24), ...set(12), ...splat(24), ...set(13),
    ...get(0), ...get(1), 0x41, 0x7c, 0x71, 0x41, 3, 0x74, 0x6a, ...set(3), // end = src + ((n & ~3) << 3)
    0x02, 0x40, // block
    0x03, 0x40, // loop
    ...get(0), ...get(3), 0x4f, 0x0d, 1, // if src >= end: break
    ...code([...get(0), ...simd(0x00, 4, 0)]), ...set(4), // a = codes of v128.load(src)
    ...get(2), ...get(4), ...code([...get(0), ...simd(0x00, 4, 16)]), // codes of v128.load(src + 16)
    ...simd(0x0d, 0, 1, 2, 3, 4, 5, 6, 7, 16, 17, 18, 19, 20, 21, 22, 23), ...simd(0x0b, 4, 0), // v128.store(dst, [a0, a1, b0, b1])
    ...get(0), 0x41, 32, 0x6a, ...set(0), // src += 32
    ...get(2), 0x41, 16, 0x6a, ...set(2), // dst += 16
    0x0c, 0, // next
    0x0b,
    0x0b,
    0x0b,
  ];
}

/** The module: imports `env.memory`, exports `count` ({@link countBody}) and `hours` ({@link hoursBody}). */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  const text = (s: string): number[] => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
  const count = countBody();
  const hours = hoursBody();
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [2, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f, 0x60, 3, 0x7f, 0x7f, 0x7f, 0]),
    ...section(2, [1, ...text('env'), ...text('memory'), 0x02, 0x00, 0x00]),
    ...section(3, [2, 0, 1]),
    ...section(7, [2, ...text('count'), 0x00, 0, ...text('hours'), 0x00, 1]),
    ...section(10, [2, ...leb(count.length), ...count, ...leb(hours.length), ...hours]),
  ]);
}

/** A block of the arena: its chunk, byte offset in it and size in 32-bit words. */
interface Block {
  readonly chunk: number;
  readonly off: number;
  readonly words: number;
}

/** One chunk: a WebAssembly.Memory of {@link CHUNK_PAGES} pages that never grows, its kernels and its words. */
interface Chunk {
  readonly count: (off: number, words: number, l: number, h: number) => number;
  readonly hours: (src: number, n: number, dst: number) => void;
  /** All of the chunk's memory as words (never detached: the memory never grows). */
  readonly heap: Int32Array;
  top: number;
}

/** Pages of one chunk (16 MiB): a block (one batch's packed view, 16 KiB for 8,192 rows) never spans two. */
const CHUNK_PAGES = 256;

/** Rows of the scratch block at the start of each chunk, where `hours` writes its codes (4 bytes a row). */
const SCRATCH_ROWS = 8192;

/** A batch's doubles copied into a chunk of the arena, at byte offset `off`. */
interface PlacedDoubles {
  readonly chunk: Chunk;
  readonly off: number;
}

/**
 * A packed view placed in the arena: the packed words (a view of its chunk, valid for good) and
 * the chunk's kernel with the view's byte offset in the chunk.
 */
export interface Placed {
  readonly words: Int32Array;
  readonly off: number;
  readonly count: (off: number, words: number, l: number, h: number) => number;
}

/**
 * The arena (one per thread: module state): chunks of WebAssembly memory made as needed, each
 * with its own instance of the kernel module. A chunk never grows: growing a memory detaches
 * its ArrayBuffer, and the first detached ArrayBuffer of a process makes V8 drop the
 * assumption that none ever is, which slowed every typed-array loop of the leaf by 10-25 %
 * (`npm run bench -- leaf`, q2-q14). Offsets are bytes into a chunk, 16-byte aligned.
 */
class Arena {
  readonly #module: WebAssembly.Module;
  readonly #chunks: Chunk[] = [];
  /** Freed blocks by size in words. */
  readonly #free = new Map<number, Block[]>();
  readonly #registry = new FinalizationRegistry<Block>((b) => this.#release(b));
  /** Batches of doubles placed for {@link Arena.hourCodes} (null: no room, not tried again). */
  readonly #doubles = new WeakMap<Float64Array, PlacedDoubles | null>();

  constructor(module: WebAssembly.Module) {
    this.#module = module;
  }

  #chunk(): number {
    if ((this.#chunks.length + 1) * CHUNK_PAGES * PAGE > ARENA_MAX_BYTES) return -1;
    try {
      const memory = new WebAssembly.Memory({ initial: CHUNK_PAGES, maximum: CHUNK_PAGES });
      const instance = new WebAssembly.Instance(this.#module, { env: { memory } });
      this.#chunks.push({
        count: instance.exports['count'] as Chunk['count'],
        hours: instance.exports['hours'] as Chunk['hours'],
        heap: new Int32Array(memory.buffer),
        top: SCRATCH_ROWS * 4,
      });
      return this.#chunks.length - 1;
    } catch {
      return -1;
    }
  }

  /**
   * Room for `words` 32-bit words, freed once `owner` is collected, or null when the arena is
   * full ({@link ARENA_MAX_BYTES}) or the block would not fit a chunk.
   */
  alloc(words: number, owner: object): Placed | null {
    const b = this.#block(words, owner);
    if (b === null) return null;
    const chunk = this.#chunks[b.chunk]!;
    return { words: chunk.heap.subarray(b.off >> 2, (b.off >> 2) + words), off: b.off, count: chunk.count };
  }

  /**
   * The codes of extract(hour) of rows [0, n) of `vals` (timestamps, µs since 1970), as
   * src/leaf/groupby.ts codes them (1 + the hour of the day), written to `out` by the `hours`
   * kernel for the first `n - n % 4` rows. Every value of `vals` must be finite with
   * |t| < 2^53. `vals` is copied into the arena on first use (8 bytes a row, freed once it is
   * collected), so a batch is copied once and scanned by every later query.
   * @returns the rows coded: a multiple of 4, or 0 when the arena has no room for `vals`.
   */
  hourCodes(vals: Float64Array, n: number, out: Int32Array): number {
    let p = this.#doubles.get(vals);
    if (p === undefined) {
      p = this.#placeDoubles(vals);
      this.#doubles.set(vals, p);
    }
    if (p === null) return 0;
    const rows = n & ~3;
    for (let from = 0; from < rows; from += SCRATCH_ROWS) {
      const len = Math.min(SCRATCH_ROWS, rows - from);
      p.chunk.hours(p.off + from * 8, len, 0);
      out.set(p.chunk.heap.subarray(0, len), from);
    }
    return rows;
  }

  #placeDoubles(vals: Float64Array): PlacedDoubles | null {
    const b = this.#block(vals.length * 2, vals);
    if (b === null) return null;
    const chunk = this.#chunks[b.chunk]!;
    new Float64Array(chunk.heap.buffer, b.off, vals.length).set(vals);
    return { chunk, off: b.off };
  }

  #block(words: number, owner: object): Block | null {
    const bytes = (words * 4 + 15) & ~15;
    if (bytes > CHUNK_PAGES * PAGE - SCRATCH_ROWS * 4) return null;
    let b = this.#free.get(words)?.pop();
    if (b === undefined) {
      let c = this.#chunks.length - 1;
      if (c < 0 || this.#chunks[c]!.top + bytes > CHUNK_PAGES * PAGE) c = this.#chunk();
      if (c < 0) return null;
      const chunk = this.#chunks[c]!;
      b = { chunk: c, off: chunk.top, words };
      chunk.top += bytes;
    }
    this.#registry.register(owner, b);
    return b;
  }

  #release(b: Block): void {
    let list = this.#free.get(b.words);
    if (list === undefined) this.#free.set(b.words, (list = []));
    list.push(b);
  }
}

function makeArena(): Arena | null {
  if (typeof WebAssembly !== 'object' || process.env.CANOPY_SIMD === '0') return null;
  try {
    const bytes = moduleBytes();
    if (!WebAssembly.validate(bytes)) return null;
    return new Arena(new WebAssembly.Module(bytes));
  } catch {
    return null;
  }
}

let arena: Arena | null | undefined;

/**
 * This thread's arena, made on first use; null where WebAssembly SIMD is unavailable (or
 * CANOPY_SIMD=0 switches it off: the JS kernels then scan every view).
 */
export function simdArena(): Arena | null {
  if (arena === undefined) arena = makeArena();
  return arena;
}

export type { Arena };
