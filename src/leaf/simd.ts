/**
 * WebAssembly SIMD scan kernels over packed int16-pair column views (src/leaf/int32.ts), and
 * the per-thread arena (one WebAssembly.Memory) those views live in: WebAssembly reads only
 * its own linear memory, so a view a kernel scans is placed there when its shard is loaded.
 *
 * One kernel today: the COUNT of packed lanes in a range, eight rows per 128-bit operation
 * (`i16x8.ge_u`, `i16x8.lt_u`, `v128.and`, `i16x8.sub` into per-lane counters), where the
 * int32 SWAR loop does two rows per word; COUNT(*) WHERE `x op c` of an integer column is
 * memory-bound with it. The module is a few hundred bytes written here by hand (no toolchain):
 * instruction encodings from the WebAssembly SIMD proposal's binary encoding
 * (github.com/WebAssembly/simd, proposals/simd/BinarySIMD.md; SIMD is in WebAssembly 2.0).
 *
 * The arena is made of fixed-size chunks that never grow (see {@link Arena}). Blocks are freed
 * when the int32 view they were packed for is collected (a FinalizationRegistry), and reused
 * by blocks of the same size (the batches of a table have one size, 8,192 rows, bar the
 * last). Past {@link ARENA_MAX_BYTES} nothing more is placed: views are then packed in
 * ordinary arrays and scanned by the JS loop, as where WebAssembly SIMD is missing.
 */

/** Largest arena, bytes (packed views need 2 bytes a row: 128 MiB is 64 M rows a thread). */
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

/**
 * The module: imports `env.memory`, exports `count(off, words, l, h) -> i32`: lanes u of the
 * packed words at byte offset `off` (`words` 32-bit words, a multiple of 4: two 16-bit lanes
 * each) with `l <= u < h` (unsigned; l, h in [0, 0x8000]).
 */
function moduleBytes(): Uint8Array<ArrayBuffer> {
  // Locals: 0 off, 1 words, 2 l, 3 h (params); 4 i, 5 end, 6 chunk end (i32); 7 vl, 8 vh, 9 acc, 10 total, 11 v (v128).
  const code = [
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
  const text = (s: string): number[] => [...leb(s.length), ...[...s].map((c) => c.charCodeAt(0))];
  return Uint8Array.from([
    0x00, 0x61, 0x73, 0x6d, 0x01, 0x00, 0x00, 0x00,
    ...section(1, [1, 0x60, 4, 0x7f, 0x7f, 0x7f, 0x7f, 1, 0x7f]),
    ...section(2, [1, ...text('env'), ...text('memory'), 0x02, 0x00, 0x00]),
    ...section(3, [1, 0]),
    ...section(7, [1, ...text('count'), 0x00, 0]),
    ...section(10, [1, ...leb(code.length), ...code]),
  ]);
}

/** A block of the arena: its chunk, byte offset in it and size in 32-bit words. */
interface Block {
  readonly chunk: number;
  readonly off: number;
  readonly words: number;
}

/** One chunk: a WebAssembly.Memory of {@link CHUNK_PAGES} pages that never grows, its kernel and its words. */
interface Chunk {
  readonly count: (off: number, words: number, l: number, h: number) => number;
  /** All of the chunk's memory as words (never detached: the memory never grows). */
  readonly heap: Int32Array;
  top: number;
}

/** Pages of one chunk (16 MiB): a block (one batch's packed view, 16 KiB for 8,192 rows) never spans two. */
const CHUNK_PAGES = 256;

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

  constructor(module: WebAssembly.Module) {
    this.#module = module;
  }

  #chunk(): number {
    if ((this.#chunks.length + 1) * CHUNK_PAGES * PAGE > ARENA_MAX_BYTES) return -1;
    try {
      const memory = new WebAssembly.Memory({ initial: CHUNK_PAGES, maximum: CHUNK_PAGES });
      const instance = new WebAssembly.Instance(this.#module, { env: { memory } });
      this.#chunks.push({ count: instance.exports['count'] as Chunk['count'], heap: new Int32Array(memory.buffer), top: 0 });
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
    const bytes = (words * 4 + 15) & ~15;
    if (bytes > CHUNK_PAGES * PAGE) return null;
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
    const chunk = this.#chunks[b.chunk]!;
    return { words: chunk.heap.subarray(b.off >> 2, (b.off >> 2) + words), off: b.off, count: chunk.count };
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
