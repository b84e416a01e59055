/** Test helpers for hand-built leaf column views (src/leaf/shard.ts). */

/**
 * The validity bitmap of a column's values, as a prepared shard holds it (bit i set: row i is
 * not NULL; Arrow's LSB order), or null when no value is NULL.
 */
export function validity(values: readonly unknown[]): { bitmap: Uint8Array; offset: number } | null {
  if (values.every((v) => v !== null)) return null;
  const bitmap = new Uint8Array((values.length + 7) >> 3);
  values.forEach((v, i) => {
    if (v !== null) bitmap[i >> 3]! |= 1 << (i & 7);
  });
  return { bitmap, offset: 0 };
}
