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
 * The arena holds offsets, never long-lived views: growing a WebAssembly.Memory detaches its
 * old ArrayBuffer. Blocks are freed when the int32 view they were packed for is collected
 * (a FinalizationRegistry), and reused by blocks of the same size (the batches of a table
 * have one size, 8,192 rows, bar the last). Past {@link ARENA_MAX_BYTES} nothing more is
 * placed: views are then packed in ordinary arrays and scanned by the JS loop, as where
 * WebAssembly SIMD is missing.
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

/** A block of the arena: byte offset and size in 32-bit words. */
interface Block {
  readonly off: number;
  readonly words: number;
}

/**
 * The arena and its kernel (one per thread: module state). Offsets are bytes into
 * `memory.buffer`, 16-byte aligned.
 */
class Arena {
  readonly #memory: WebAssembly.Memory;
  readonly #count: (off: number, words: number, l: number, h: number) => number;
  #top = 0;
  #heap: Int32Array;
  /** Freed blocks by size in words. */
  readonly #free = new Map<number, number[]>();
  readonly #registry = new FinalizationRegistry<Block>((b) => this.#release(b));

  constructor(memory: WebAssembly.Memory, count: (off: number, words: number, l: number, h: number) => number) {
    this.#memory = memory;
    this.#count = count;
    this.#heap = new Int32Array(memory.buffer);
  }

  /** The arena's words (a fresh view after the memory grew). */
  heap(): Int32Array {
    if (this.#heap.buffer !== this.#memory.buffer) this.#heap = new Int32Array(this.#memory.buffer);
    return this.#heap;
  }

  /**
   * Room for `words` 32-bit words, freed once `owner` is collected; the byte offset, or -1 when
   * the arena is full ({@link ARENA_MAX_BYTES}).
   */
  alloc(words: number, owner: object): number {
    const reused = this.#free.get(words)?.pop();
    let off = reused ?? -1;
    if (off < 0) {
      const bytes = (words * 4 + 15) & ~15;
      if (this.#top + bytes > ARENA_MAX_BYTES) return -1;
      const need = this.#top + bytes - this.#memory.buffer.byteLength;
      if (need > 0) {
        const have = this.#memory.buffer.byteLength / PAGE;
        const pages = Math.max(Math.ceil(need / PAGE), Math.min(have, ARENA_MAX_BYTES / PAGE - have));
        try {
          this.#memory.grow(pages);
        } catch {
          return -1;
        }
      }
      off = this.#top;
      this.#top += bytes;
    }
    this.#registry.register(owner, { off, words });
    return off;
  }

  #release(b: Block): void {
    let list = this.#free.get(b.words);
    if (list === undefined) this.#free.set(b.words, (list = []));
    list.push(b.off);
  }

  /** Lanes u with `l <= u < h` in the packed words at `off` (`words` a multiple of 4). */
  count(off: number, words: number, l: number, h: number): number {
    return this.#count(off, words, l, h);
  }
}

function makeArena(): Arena | null {
  if (typeof WebAssembly !== 'object' || process.env.CANOPY_SIMD === '0') return null;
  try {
    const bytes = moduleBytes();
    if (!WebAssembly.validate(bytes)) return null;
    const memory = new WebAssembly.Memory({ initial: 1, maximum: ARENA_MAX_BYTES / PAGE });
    const instance = new WebAssembly.Instance(new WebAssembly.Module(bytes), { env: { memory } });
    return new Arena(memory, instance.exports['count'] as (off: number, words: number, l: number, h: number) => number);
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
