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

/** Replaces every `{"$bigint":"..."}` object below `v` by its bigint, in place; returns `v` or its replacement. */
function reviveBigints(v: unknown): unknown {
  if (typeof v !== 'object' || v === null) return v;
  if (Array.isArray(v)) {
    for (let i = 0; i < v.length; i++) {
      const x: unknown = v[i];
      if (typeof x === 'object' && x !== null) {
        const y = reviveBigints(x);
        if (y !== x) v[i] = y;
      }
    }
    return v;
  }
  const o = v as Record<string, unknown>;
  const b = o.$bigint;
  if (typeof b === 'string') {
    let keys = 0;
    for (const _ in o) keys++;
    if (keys === 1 && /^-?\d+$/.test(b)) return BigInt(b);
  }
  for (const k in o) {
    const x = o[k];
    if (typeof x === 'object' && x !== null) {
      const y = reviveBigints(x);
      if (y !== x) o[k] = y;
    }
  }
  return o;
}

/**
 * Parses {@link toWireJSON} text. Bigints are restored by one walk over the parsed value
 * (a `JSON.parse` reviver is called for every value and cost ~50 ms for a 15,000-value IN
 * list of int64 literals, on every leaf request; the walk costs a few).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST if it is empty or not JSON (with the parser's message and position).
 */
export function fromWireJSON(text: string): unknown {
  let value: unknown;
  try {
    value = JSON.parse(text) as unknown;
  } catch (e) {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', text.trim() === '' ? 'request body is empty: send the request as JSON' : `request body is not JSON: ${e instanceof Error ? e.message : String(e)}`);
  }
  // Without a `$bigint` key (written literally, or with an escape) the walk would change nothing.
  if (!text.includes('$bigint') && !text.includes('\\u')) return value;
  return reviveBigints(value);
}
