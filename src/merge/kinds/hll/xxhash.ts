/** xxHash64 (seed 0) in 32-bit halves (no BigInt on the hot path). Source: the xxHash specification, https://github.com/Cyan4973/xxHash/blob/dev/doc/xxhash_spec.md */


/**
 * Result of the last 64-bit operation: [high, low] 32 bits. A typed array, because module
 * `let`s holding values beyond 2^30 are boxed on every write (measured: 3-4x slower).
 */
const res = new Uint32Array(2);

const P1H = 0x9e3779b1;
const P1L = 0x85ebca87;
const P2H = 0xc2b2ae3d;
const P2L = 0x27d4eb4f;
const P3H = 0x165667b1;
const P3L = 0x9e3779f9;
const P4H = 0x85ebca77;
const P4L = 0xc2b2ae63;
const P5H = 0x27d4eb2f;
const P5L = 0x165667c5;

/** (ah:al) * (bh:bl) mod 2^64 into res. */
function mul(ah: number, al: number, bh: number, bl: number): void {
  const a0 = al & 0xffff;
  const a1 = al >>> 16;
  const b0 = bl & 0xffff;
  const b1 = bl >>> 16;
  const p00 = a0 * b0;
  const p01 = a0 * b1;
  const p10 = a1 * b0;
  const mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  res[1] = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  res[0] = (a1 * b1 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(ah, bl) + Math.imul(al, bh)) >>> 0;
}

/** (ah:al) + (bh:bl) mod 2^64 into res (inputs unsigned). */
function add(ah: number, al: number, bh: number, bl: number): void {
  const lo = al + bl;
  res[1] = lo >>> 0;
  res[0] = (ah + bh + (lo > 0xffffffff ? 1 : 0)) >>> 0;
}

/** Rotate (h:l) left by r (0 < r < 32) into res. */
function rotl(h: number, l: number, r: number): void {
  res[0] = ((h << r) | (l >>> (32 - r))) >>> 0;
  res[1] = ((l << r) | (h >>> (32 - r))) >>> 0;
}

/** round(acc, lane) = rotl(acc + lane * P2, 31) * P1, into res. */
function round(ah: number, al: number, lh: number, ll: number): void {
  mul(lh, ll, P2H, P2L);
  add(ah, al, res[0]!, res[1]!);
  rotl(res[0]!, res[1]!, 31);
  mul(res[0]!, res[1]!, P1H, P1L);
}

/** The final avalanche of (h:l) into res. */
function avalanche(h: number, l: number): void {
  l = (l ^ (h >>> 1)) >>> 0; // h ^= h >> 33
  mul(h, l, P2H, P2L);
  h = res[0]!;
  l = (res[1]! ^ ((res[1]! >>> 29) | (res[0]! << 3))) >>> 0; // h ^= h >> 29
  h = (h ^ (h >>> 29)) >>> 0;
  mul(h, l, P3H, P3L);
  res[1] = (res[1]! ^ res[0]!) >>> 0; // h ^= h >> 32
}

/** Mixes one 8-byte lane (kh:kl) into the accumulator (h:l): h ^= round(0, k); h = rotl(h, 27) * P1 + P4. */
function mixLane(h: number, l: number, kh: number, kl: number): void {
  round(0, 0, kh, kl);
  rotl((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, 27);
  mul(res[0]!, res[1]!, P1H, P1L);
  add(res[0]!, res[1]!, P4H, P4L);
}

/**
 * xxHash64 (seed 0) of exactly 8 bytes given as a little-endian 64-bit word `hi:lo`
 * (unsigned 32-bit halves), into `out` as [hi, lo]. The hot path (one call per value at the
 * leaf), written out by hand: five 64-bit products from 16-bit partial products on locals,
 * which stay unboxed (about 50 ns per call, against 150+ through the helpers above).
 */
export function xxh64Word(hi: number, lo: number, out: Uint32Array): void {
  let a0: number, a1: number, p00: number, p01: number, p10: number, mid: number;
  let th: number, tl: number, h: number, l: number;
  // k = lane * P2
  a0 = lo & 0xffff;
  a1 = lo >>> 16;
  p00 = a0 * 0xeb4f;
  p01 = a0 * 0x27d4;
  p10 = a1 * 0xeb4f;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x27d4 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(hi, 0x27d4eb4f) + Math.imul(lo, 0xc2b2ae3d)) >>> 0;
  // k = rotl(k, 31) * P1
  h = ((th << 31) | (tl >>> 1)) >>> 0;
  l = ((tl << 31) | (th >>> 1)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  p00 = a0 * 0xca87;
  p01 = a0 * 0x85eb;
  p10 = a1 * 0xca87;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x85eb + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(h, 0x85ebca87) + Math.imul(l, 0x9e3779b1)) >>> 0;
  // acc = (P5 + 8) ^ k; acc = rotl(acc, 27) * P1 + P4
  h = (0x27d4eb2f ^ th) >>> 0;
  l = (0x165667cd ^ tl) >>> 0;
  th = ((h << 27) | (l >>> 5)) >>> 0;
  tl = ((l << 27) | (h >>> 5)) >>> 0;
  a0 = tl & 0xffff;
  a1 = tl >>> 16;
  p00 = a0 * 0xca87;
  p01 = a0 * 0x85eb;
  p10 = a1 * 0xca87;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  l = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  h = (a1 * 0x85eb + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(th, 0x85ebca87) + Math.imul(tl, 0x9e3779b1)) >>> 0;
  tl = l + 0xc2b2ae63;
  h = (h + 0x85ebca77 + (tl > 0xffffffff ? 1 : 0)) >>> 0;
  l = tl >>> 0;
  // avalanche: acc ^= acc >> 33; acc *= P2; acc ^= acc >> 29; acc *= P3; acc ^= acc >> 32
  l = (l ^ (h >>> 1)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  p00 = a0 * 0xeb4f;
  p01 = a0 * 0x27d4;
  p10 = a1 * 0xeb4f;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x27d4 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(h, 0x27d4eb4f) + Math.imul(l, 0xc2b2ae3d)) >>> 0;
  l = (tl ^ ((tl >>> 29) | (th << 3))) >>> 0;
  h = (th ^ (th >>> 29)) >>> 0;
  a0 = l & 0xffff;
  a1 = l >>> 16;
  p00 = a0 * 0x79f9;
  p01 = a0 * 0x9e37;
  p10 = a1 * 0x79f9;
  mid = (p00 >>> 16) + (p01 & 0xffff) + (p10 & 0xffff);
  tl = (((mid & 0xffff) << 16) | (p00 & 0xffff)) >>> 0;
  th = (a1 * 0x9e37 + (p01 >>> 16) + (p10 >>> 16) + (mid >>> 16) + Math.imul(h, 0x9e3779f9) + Math.imul(l, 0x165667b1)) >>> 0;
  out[0] = th;
  out[1] = (tl ^ th) >>> 0;
}

function read32(b: Uint8Array, i: number): number {
  return (b[i]! | (b[i + 1]! << 8) | (b[i + 2]! << 16) | (b[i + 3]! << 24)) >>> 0;
}

/**
 * xxHash64 (seed 0) of a byte string, into `out` as [hi, lo] (unsigned 32-bit halves).
 * Source: the xxHash specification (doc/xxhash_spec.md in Cyan4973/xxHash).
 */
export function xxh64Bytes(b: Uint8Array, out: Uint32Array): void {
  const n = b.length;
  let i = 0;
  let h: number;
  let l: number;
  if (n >= 32) {
    add(P1H, P1L, P2H, P2L);
    let v1h = res[0]!;
    let v1l = res[1]!;
    let v2h = P2H;
    let v2l = P2L;
    let v3h = 0;
    let v3l = 0;
    add(~P1H >>> 0, ~P1L >>> 0, 0, 1); // -P1
    let v4h = res[0]!;
    let v4l = res[1]!;
    for (; i + 32 <= n; i += 32) {
      round(v1h, v1l, read32(b, i + 4), read32(b, i));
      v1h = res[0]!;
      v1l = res[1]!;
      round(v2h, v2l, read32(b, i + 12), read32(b, i + 8));
      v2h = res[0]!;
      v2l = res[1]!;
      round(v3h, v3l, read32(b, i + 20), read32(b, i + 16));
      v3h = res[0]!;
      v3l = res[1]!;
      round(v4h, v4l, read32(b, i + 28), read32(b, i + 24));
      v4h = res[0]!;
      v4l = res[1]!;
    }
    rotl(v1h, v1l, 1);
    h = res[0]!;
    l = res[1]!;
    rotl(v2h, v2l, 7);
    add(h, l, res[0]!, res[1]!);
    h = res[0]!;
    l = res[1]!;
    rotl(v3h, v3l, 12);
    add(h, l, res[0]!, res[1]!);
    h = res[0]!;
    l = res[1]!;
    rotl(v4h, v4l, 18);
    add(h, l, res[0]!, res[1]!);
    h = res[0]!;
    l = res[1]!;
    for (const [vh, vl] of [[v1h, v1l], [v2h, v2l], [v3h, v3l], [v4h, v4l]] as const) {
      round(0, 0, vh, vl);
      mul((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, P1H, P1L);
      add(res[0]!, res[1]!, P4H, P4L);
      h = res[0]!;
      l = res[1]!;
    }
  } else {
    h = P5H;
    l = P5L;
  }
  add(h, l, Math.floor(n / 4294967296) >>> 0, n >>> 0);
  h = res[0]!;
  l = res[1]!;
  for (; i + 8 <= n; i += 8) {
    mixLane(h, l, read32(b, i + 4), read32(b, i));
    h = res[0]!;
    l = res[1]!;
  }
  if (i + 4 <= n) {
    mul(0, read32(b, i), P1H, P1L);
    rotl((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, 23);
    mul(res[0]!, res[1]!, P2H, P2L);
    add(res[0]!, res[1]!, P3H, P3L);
    h = res[0]!;
    l = res[1]!;
    i += 4;
  }
  for (; i < n; i++) {
    mul(0, b[i]!, P5H, P5L);
    rotl((h ^ res[0]!) >>> 0, (l ^ res[1]!) >>> 0, 11);
    mul(res[0]!, res[1]!, P1H, P1L);
    h = res[0]!;
    l = res[1]!;
  }
  avalanche(h, l);
  out[0] = res[0]!;
  out[1] = res[1]!;
}

// ---------------------------------------------------------------------------------------
// Canonical values and their hashes
