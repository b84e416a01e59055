/** Requests travel as JSON where bigints are written `{"$bigint":"123"}`. */
import { CanopyError } from '../errors.ts';

/** JSON text of a request value; bigints become `{"$bigint":"..."}`. */
export function toWireJSON(value: unknown): string {
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));
}

/**
 * Parses {@link toWireJSON} text.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST if it is not JSON.
 */
export function fromWireJSON(text: string): unknown {
  try {
    return JSON.parse(text, (_k, v: unknown) => {
      if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
        const o = v as Record<string, unknown>;
        if (typeof o.$bigint === 'string' && Object.keys(o).length === 1 && /^-?\d+$/.test(o.$bigint)) return BigInt(o.$bigint);
      }
      return v;
    });
  } catch {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'request body is not JSON');
  }
}
