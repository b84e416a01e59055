import type { PartialSpec } from '../types.ts';
import type { StateKind } from './kind.ts';

/**
 * A state kind whose state is a record of float64 fields (null when the group saw no value),
 * encoded as 8 bytes per field, little-endian, in the order of `fields` (an Arrow Binary cell).
 * `decode` checks the length, that `n` counts at least one value, and what `check` adds
 * (returns a problem, or null). Used by the comoment, power_sums and product kinds.
 */
export function float64RecordKind<F extends string, S extends { readonly [K in F | 'n']: number }>(
  kind: PartialSpec['kind'],
  fields: readonly (F | 'n')[],
  merge: (a: S | null, b: S | null) => S | null,
  check: (s: S) => string | null = () => null,
): StateKind<S | null> {
  const bytes = 8 * fields.length;
  return Object.freeze({
    kind,
    argType: null,
    encoding: 'binary',
    empty: () => null,
    merge,
    finalise: () => null,
    encode(s: S | null): Uint8Array | null {
      if (s === null) return null;
      const out = new Uint8Array(bytes);
      const dv = new DataView(out.buffer);
      fields.forEach((f, k) => dv.setFloat64(8 * k, s[f], true));
      return out;
    },
    decode(v: unknown): S | null {
      if (v === null) return null;
      if (!(v instanceof Uint8Array) || v.length !== bytes) throw new Error(`bad ${kind} state: expected ${bytes} bytes`);
      const dv = new DataView(v.buffer, v.byteOffset, v.byteLength);
      const s = Object.fromEntries(fields.map((f, k) => [f, dv.getFloat64(8 * k, true)])) as unknown as S;
      if (!Number.isInteger(s.n) || s.n < 1) throw new Error(`bad ${kind} state count ${s.n}`);
      const problem = check(s);
      if (problem !== null) throw new Error(`bad ${kind} state ${problem}`);
      return s;
    },
    equals: (a: S | null, b: S | null) => (a === null || b === null ? a === b : fields.every((f) => Object.is(a[f], b[f]))),
  });
}
