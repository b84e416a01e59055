/**
 * Small byte arrays carved from shared slabs: a typed array over 64 bytes gets its own
 * off-heap backing store from V8 (an allocation, zeroing, and an ArrayBuffer extension the
 * garbage collector sweeps), 1-3 µs each on a busy host, and every small frame is one (a
 * 4-group frame is ~800 bytes). A slab is a 64 KiB ArrayBuffer handed out front to back in
 * 8-byte aligned pieces, never reused: a piece is zero when handed out, and a slab is freed
 * once no piece of it is referenced (so keep pieces short-lived: frames on their way out).
 */

/** Bytes of one slab. */
const SLAB_BYTES = 64 * 1024;
/** Largest piece taken from a slab, bytes; larger arrays are allocated on their own. */
export const SLAB_PIECE_MAX = 4096;

let slab = new Uint8Array(SLAB_BYTES);
let used = 0;

/**
 * `n` zero bytes at an 8-byte aligned offset: a piece of the current slab when `n` <=
 * {@link SLAB_PIECE_MAX}, else a new Uint8Array. The result's `.buffer` may be the whole
 * slab: read it through its byteOffset and length.
 */
export function smallBytes(n: number): Uint8Array {
  if (n > SLAB_PIECE_MAX) return new Uint8Array(n);
  if (used + n > SLAB_BYTES) {
    slab = new Uint8Array(SLAB_BYTES);
    used = 0;
  }
  const out = slab.subarray(used, used + n);
  used = (used + n + 7) & ~7;
  return out;
}
