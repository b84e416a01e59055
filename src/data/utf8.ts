/**
 * Strict UTF-8 for loading: a source value that is not valid UTF-8 is refused, never
 * decoded to U+FFFD (which would make different byte strings one canopy string).
 */
import { createReadStream } from 'node:fs';
import { Transform, type TransformCallback } from 'node:stream';

/** Fatal on invalid bytes; a leading U+FEFF is kept (it is part of the value). */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/**
 * The string of UTF-8 `bytes`, byte for byte (a leading U+FEFF kept), or null when they are
 * not valid UTF-8 (overlong forms, surrogates, truncated or stray bytes).
 */
export function decodeUtf8Strict(bytes: Uint8Array): string | null {
  try {
    return strict.decode(bytes);
  } catch {
    return null;
  }
}

/** Up to `n` bytes as hex pairs (`ff 61`), with `...` when there are more. */
export function hexBytes(bytes: Uint8Array, n = 16): string {
  const shown = Array.from(bytes.subarray(0, n), (b) => b.toString(16).padStart(2, '0')).join(' ');
  return bytes.length > n ? `${shown} ...` : shown;
}

/**
 * Continuation bytes still expected after a lead byte, and the allowed range of the first
 * one (WHATWG / RFC 3629: no overlong forms, no surrogates, nothing above U+10FFFF).
 */
function lead(b: number): { more: number; lo: number; hi: number } | null {
  if (b < 0x80) return { more: 0, lo: 0x80, hi: 0xbf };
  if (b >= 0xc2 && b <= 0xdf) return { more: 1, lo: 0x80, hi: 0xbf };
  if (b === 0xe0) return { more: 2, lo: 0xa0, hi: 0xbf };
  if (b === 0xed) return { more: 2, lo: 0x80, hi: 0x9f };
  if (b >= 0xe1 && b <= 0xef) return { more: 2, lo: 0x80, hi: 0xbf };
  if (b === 0xf0) return { more: 3, lo: 0x90, hi: 0xbf };
  if (b >= 0xf1 && b <= 0xf3) return { more: 3, lo: 0x80, hi: 0xbf };
  if (b === 0xf4) return { more: 3, lo: 0x80, hi: 0x8f };
  return null;
}

/** Where a file first breaks UTF-8: byte offset and line (1-based) of the bad sequence. */
export interface Utf8Fault {
  readonly offset: number;
  readonly line: number;
}

/**
 * Scans `file` for the first byte sequence that is not valid UTF-8.
 * @returns its byte offset and line, or null when the whole file is valid UTF-8
 */
export async function findInvalidUtf8(file: string): Promise<Utf8Fault | null> {
  let offset = 0;
  let line = 1;
  // The sequence being read: its start, its line, and the bytes it still needs.
  let start = 0;
  let startLine = 1;
  let more = 0;
  let lo = 0x80;
  let hi = 0xbf;
  for await (const chunk of createReadStream(file)) {
    for (const b of chunk as Buffer) {
      if (more > 0) {
        if (b < lo || b > hi) return { offset: start, line: startLine };
        more--;
        lo = 0x80;
        hi = 0xbf;
      } else {
        const l = lead(b);
        if (l === null) return { offset, line };
        ({ more, lo, hi } = l);
        start = offset;
        startLine = line;
      }
      if (b === 0x0a) line++;
      offset++;
    }
  }
  return more > 0 ? { offset: start, line: startLine } : null;
}

/** Thrown by {@link utf8Checker} when its input is not valid UTF-8. */
export class InvalidUtf8Error extends Error {}

/**
 * A pass-through stream of bytes that fails with {@link InvalidUtf8Error} at the first chunk
 * holding an invalid UTF-8 sequence (multi-byte characters may straddle chunks; a
 * sequence cut off at the end of the input is invalid too).
 */
export function utf8Checker(): Transform {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const checked = (cb: TransformCallback, check: () => void, chunk?: Buffer): void => {
    try {
      check();
    } catch {
      cb(new InvalidUtf8Error('not valid UTF-8'));
      return;
    }
    cb(null, chunk);
  };
  return new Transform({
    transform(chunk: Buffer, _enc, cb) {
      checked(cb, () => decoder.decode(chunk, { stream: true }), chunk);
    },
    flush(cb) {
      checked(cb, () => decoder.decode());
    },
  });
}
