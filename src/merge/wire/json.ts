/** Requests travel as JSON where bigints are written `{"$bigint":"123"}`. */
import { CanopyError } from '../errors.ts';

/** JSON text of a request value; bigints become `{"$bigint":"..."}`. */
export function toWireJSON(value: unknown): string {
  try {
    // Most requests hold no bigint: the plain stringify is several times faster than with a replacer.
    return JSON.stringify(value);
  } catch (e) {
    if (!(e instanceof TypeError)) throw e;
  }
  return JSON.stringify(value, (_k, v: unknown) => (typeof v === 'bigint' ? { $bigint: v.toString() } : v));
}

/**
 * Parses {@link toWireJSON} text.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST if it is not JSON.
 */
export function fromWireJSON(text: string): unknown {
  try {
    // Without a `$bigint` key (written literally, or with an escape) the reviver would change nothing.
    if (!text.includes('$bigint') && !text.includes('\\u')) return JSON.parse(text) as unknown;
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
