/** Growable typed arrays and selection access shared by the leaf accumulators. */

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

/** Row index of selection position `j`. */
export function rowAt(sel: Int32Array | null, j: number): number {
  return sel === null ? j : sel[j]!;
}

/** Group of selection position `j` (group 0 without GROUP BY). */
export function groupAt(gids: Int32Array | null, j: number): number {
  return gids === null ? 0 : gids[j]!;
}
