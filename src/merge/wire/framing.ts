/** Length-prefixed framing of a reply made of several frames (progressive updates, then the answer). */
import { garbled } from './header.ts';
import { smallBytes } from './slab.ts';

/** Media type of a reply made of several frames, each a u32 big-endian length then an Arrow IPC stream. */
export const FRAMES_TYPE = 'application/vnd.canopy.frames';

/** One frame's bytes with its length prefix. */
export function lengthPrefixed(bytes: Uint8Array): Uint8Array {
  const out = smallBytes(4 + bytes.length);
  const n = bytes.length;
  out[0] = n >>> 24;
  out[1] = (n >>> 16) & 0xff;
  out[2] = (n >>> 8) & 0xff;
  out[3] = n & 0xff;
  out.set(bytes, 4);
  return out;
}

/** Frames up to this many bytes are copied to an aligned offset by {@link aligned8}. */
const ALIGN_COPY_BYTES = 64 * 1024;

/**
 * A small frame (up to 64 KiB) at an 8-byte aligned offset: itself when it is, else a copy;
 * a larger one as it is. A frame split out of a reply sits after its 4-byte length prefix (and
 * a multiplexed envelope's 5 bytes), so its Int64 / Float64 buffers are misaligned and the
 * frame reader copies each such column: for a small frame one copy of it is cheaper; a large
 * one may be mostly binary states, which need no alignment.
 */
export function aligned8(bytes: Uint8Array): Uint8Array {
  if ((bytes.byteOffset & 7) === 0 || bytes.length > ALIGN_COPY_BYTES) return bytes;
  const copy = smallBytes(bytes.length);
  copy.set(bytes);
  return copy;
}

/**
 * Splits length-prefixed frames out of arriving chunks. Feed chunks with `push`; it returns
 * the frames completed so far. Each arriving chunk is copied once (its producer may reuse
 * its memory) and kept until a frame is whole; a frame inside one chunk is a view of that
 * copy, one spanning chunks is joined once: a large frame in many small chunks costs linear
 * time (it was a whole-buffer copy per chunk).
 * @throws CanopyError CANOPY_ERR_CHILD_GARBLED when a frame claims more than `maxFrameBytes`.
 */
export class FrameSplitter {
  /** Chunks not yet consumed; the first starts `#offset` bytes in. */
  readonly #chunks: Uint8Array[] = [];
  #offset = 0;
  #pending = 0;
  /** Length of the next frame once its prefix has been read, else -1. */
  #next = -1;
  readonly #max: number;
  /** Bytes of padding before a joined frame, so that its byte `alignAt` lands 8-aligned. */
  readonly #pad: number;

  /**
   * @param maxFrameBytes the largest frame accepted (bytes)
   * @param alignAt offset within each frame of the bytes to keep 8-aligned when a frame
   *   spanning chunks is joined (a multiplexed entry's Arrow stream after its 5-byte envelope),
   *   so the frame reader takes views of its Float64 / Int64 buffers instead of copying them
   */
  constructor(maxFrameBytes: number, alignAt = 0) {
    this.#max = maxFrameBytes;
    this.#pad = (8 - (alignAt % 8)) % 8;
  }

  push(chunk: Uint8Array): Uint8Array[] {
    if (chunk.length > 0) {
      // A copy: a chunk may be a view of a larger buffer its producer goes on using (undici's
      // body chunks over HTTP); frames read from it as views came back garbled.
      const copy = smallBytes(chunk.length);
      copy.set(chunk);
      this.#chunks.push(copy);
      this.#pending += chunk.length;
    }
    const out: Uint8Array[] = [];
    for (;;) {
      if (this.#next < 0) {
        if (this.#pending < 4) break;
        const head = this.#take(4);
        const len = ((head[0]! << 24) | (head[1]! << 16) | (head[2]! << 8) | head[3]!) >>> 0;
        if (len > this.#max) throw garbled(`frame of ${len} bytes exceeds ${this.#max}`);
        this.#next = len;
      }
      if (this.#pending < this.#next) break;
      out.push(this.#take(this.#next));
      this.#next = -1;
    }
    return out;
  }

  /** The next `n` bytes (n <= pending): a view when they lie in the first chunk, else one copy. */
  #take(n: number): Uint8Array {
    const first = this.#chunks[0];
    if (first !== undefined && first.length - this.#offset >= n) {
      const view = first.subarray(this.#offset, this.#offset + n);
      this.#advance(n);
      return view;
    }
    // Joined once, `#pad` bytes in (so the frame's aligned part starts on an 8-byte boundary).
    const pad = n >= 8 ? this.#pad : 0;
    const out = smallBytes(pad + n).subarray(pad);
    let filled = 0;
    while (filled < n) {
      const c = this.#chunks[0]!;
      const m = Math.min(n - filled, c.length - this.#offset);
      out.set(c.subarray(this.#offset, this.#offset + m), filled);
      filled += m;
      this.#advance(m);
    }
    return out;
  }

  #advance(n: number): void {
    this.#pending -= n;
    this.#offset += n;
    while (this.#chunks.length > 0 && this.#offset >= this.#chunks[0]!.length) {
      this.#offset -= this.#chunks[0]!.length;
      this.#chunks.shift();
    }
  }

  /** Bytes left over that do not make a whole frame (a read length prefix included). */
  get pending(): number {
    return this.#pending + (this.#next >= 0 ? 4 : 0);
  }
}
