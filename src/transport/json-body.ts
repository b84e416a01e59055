/**
 * Reading a JSON request body strictly (the root's `POST /v1/query`): what a lenient reader
 * would guess at is refused with CANOPY_ERR_BAD_REQUEST naming what was wrong, so a query
 * never runs on a body other than the one the client meant:
 * - a compressed body (`Content-Encoding` other than `identity`): it would be read as JSON text;
 * - a charset other than UTF-8 (`application/json; charset=utf-16`): RFC 8259 JSON is UTF-8;
 * - bytes that are not UTF-8 (decoding them to U+FFFD would query another string than the one sent);
 * - text that is not JSON (the parser's message, with its position);
 * - a key given twice in the top-level object (`{"sql": "a", "sql": "b"}`: which one ran?).
 * A leading byte order mark is skipped. `__proto__` and `constructor` are plain keys (JSON.parse
 * makes them own properties), left to the request schema to name as unknown fields.
 */
import { CanopyError, decodeUtf8, firstInvalidUtf8 } from '../merge/index.ts';

/** Content codings a body may be sent with (none: the body is as it is). */
const IDENTITY = new Set(['', 'identity']);

/** Charsets read as UTF-8 (US-ASCII is a subset of it). */
const UTF8_CHARSETS = new Set(['utf-8', 'utf8', 'us-ascii']);

/**
 * The value of a JSON request body.
 * @param bytes the body as received
 * @param contentType the request's `Content-Type` (its `charset` parameter is checked)
 * @param contentEncoding the request's `Content-Encoding`, if any
 * @returns the parsed JSON value (any JSON value: the caller checks its shape)
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for an empty body, a content coding, a charset
 *   other than UTF-8, bytes that are not UTF-8 (naming the byte offset), malformed JSON (the
 *   parser's message with its position) or a top-level key given twice (naming it).
 */
export function readJsonBody(bytes: Uint8Array, contentType: string | undefined, contentEncoding: string | undefined): unknown {
  const coding = (contentEncoding ?? '').trim().toLowerCase();
  if (!IDENTITY.has(coding)) throw bad(`Content-Encoding ${coding} is not supported: send the JSON body uncompressed`);
  const charset = /;\s*charset\s*=\s*"?([^";\s]*)"?/i.exec(contentType ?? '')?.[1]?.toLowerCase();
  if (charset !== undefined && !UTF8_CHARSETS.has(charset)) throw bad(`charset ${charset} is not supported: send the JSON body as UTF-8 (Content-Type: application/json)`);
  const invalid = firstInvalidUtf8(bytes);
  if (invalid >= 0) throw bad(`request body is not valid UTF-8: byte ${invalid} (0x${bytes[invalid]!.toString(16).padStart(2, '0')}) does not start a UTF-8 character; send the JSON body as UTF-8`);
  let text = decodeUtf8(bytes);
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  if (text.trim() === '') throw bad('request body is empty: send a JSON object like {"sql": "SELECT ..."}');
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (e) {
    if (e instanceof RangeError) throw e; // nested too deeply: the app's error handler says so
    throw bad(`request body is not valid JSON: ${(e as Error).message}`);
  }
  if (typeof value === 'object' && value !== null && !Array.isArray(value)) {
    const twice = repeatedTopLevelKey(text);
    if (twice !== undefined) throw bad(`field ${JSON.stringify(twice)} is given more than once; send each field once`);
  }
  return value;
}

function bad(message: string): CanopyError {
  return new CanopyError('CANOPY_ERR_BAD_REQUEST', message);
}

/**
 * The first key that occurs twice in the top-level object of `text` (valid JSON whose value
 * is an object), or undefined. JSON.parse keeps the last one silently.
 */
function repeatedTopLevelKey(text: string): string | undefined {
  const seen = new Set<string>();
  let depth = 0;
  let keyNext = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      let j = i + 1;
      while (text.charCodeAt(j) !== 0x22) j += text.charCodeAt(j) === 0x5c ? 2 : 1;
      if (depth === 1 && keyNext) {
        const key = JSON.parse(text.slice(i, j + 1)) as string;
        if (seen.has(key)) return key;
        seen.add(key);
        keyNext = false;
      }
      i = j;
    } else if (c === 0x7b || c === 0x5b) {
      depth++;
      if (depth === 1) keyNext = c === 0x7b;
    } else if (c === 0x7d || c === 0x5d) depth--;
    else if (c === 0x2c && depth === 1) keyNext = true;
  }
  return undefined;
}
