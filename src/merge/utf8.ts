/**
 * UTF-8 decoding that keeps every value byte for byte (pure). The default TextDecoder
 * (used by apache-arrow's and hyparquet's readers) drops a leading U+FEFF from each value
 * it decodes, so a string '\ufeffz' would come back as 'z'.
 */

/** Non-fatal (invalid bytes become U+FFFD, as Arrow readers do), and a leading U+FEFF is kept. */
const decoder = new TextDecoder('utf-8', { ignoreBOM: true });

/** Inputs up to this many bytes that are all ASCII are decoded without TextDecoder (a call into C++ costs more than the loop: field names, keys). */
const SHORT_ASCII_BYTES = 24;

/** Decodes UTF-8 bytes, keeping a leading U+FEFF. */
export function decodeUtf8(bytes: Uint8Array): string {
  const n = bytes.length;
  if (n <= SHORT_ASCII_BYTES) {
    let ascii = true;
    for (let i = 0; i < n; i++) if (bytes[i]! >= 0x80) ascii = false;
    if (ascii) return String.fromCharCode.apply(null, bytes as unknown as number[]);
  }
  return decoder.decode(bytes);
}

/** Fatal on invalid bytes: the check of {@link firstInvalidUtf8}. */
const strict = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const encoder = new TextEncoder();

/**
 * Byte offset of the first byte of `bytes` that is not valid UTF-8 (WHATWG: no overlong
 * forms, surrogates or truncated sequences), or -1 when all are. Valid bytes cost one
 * decoding; otherwise the bytes decoded with replacement are encoded again, which gives back
 * the same bytes up to the first invalid sequence (a U+FFFD sent as such encodes as sent).
 */
export function firstInvalidUtf8(bytes: Uint8Array): number {
  try {
    strict.decode(bytes);
    return -1;
  } catch {
    const again = encoder.encode(decoder.decode(bytes));
    const n = Math.min(again.length, bytes.length);
    for (let i = 0; i < n; i++) if (again[i] !== bytes[i]) return i;
    return n;
  }
}

/** The Utf8 buffers of one Arrow array (apache-arrow's `Data<Utf8>` has this shape; its offsets are already sliced). */
export interface Utf8Buffers {
  readonly length: number;
  readonly valueOffsets: Int32Array;
  readonly values: Uint8Array;
}

/**
 * The strings of one Arrow Utf8 array, decoded byte for byte (NULL slots decode to their
 * bytes, normally ''; callers check validity).
 */
export function utf8Strings(data: Utf8Buffers): string[] {
  const out = new Array<string>(data.length);
  const off = data.valueOffsets;
  for (let i = 0; i < data.length; i++) out[i] = decoder.decode(data.values.subarray(off[i]!, off[i + 1]!));
  return out;
}
