/**
 * The little binary layouts of the counts states (value_counts, string_counts): LEB128
 * varints (7 bits a byte, low first; the protobuf / WebAssembly encoding) for counts, and a
 * checked reader that names the state in its errors. Pure.
 */

/** Appends `x` (an integer in [0, 2^53)) as an unsigned LEB128 varint. */
export function pushVarint(out: number[], x: number): void {
  while (x >= 128) {
    out.push((x % 128) + 128);
    x = Math.floor(x / 128);
  }
  out.push(x);
}

/**
 * A reader over `bytes` from offset 0; every error is an Error starting `bad <what>:`.
 * `varint` reads at most 8 bytes (up to 2^53 - 1) and refuses a value past 2^53 or a
 * non-minimal form (a trailing zero byte); `f64` reads a little-endian double; `take(n)`
 * returns the next n bytes.
 */
export class ByteReader {
  at = 0;
  readonly #bytes: Uint8Array;
  readonly #what: string;
  readonly #dv: DataView;

  constructor(bytes: Uint8Array, what: string) {
    this.#bytes = bytes;
    this.#what = what;
    this.#dv = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }

  /** An Error `bad <what>: <message>`. */
  fail(message: string): Error {
    return new Error(`bad ${this.#what}: ${message}`);
  }

  /** @throws Error when no byte is left */
  u8(): number {
    if (this.at >= this.#bytes.length) throw this.fail('truncated');
    return this.#bytes[this.at++]!;
  }

  /** @throws Error for a truncated, overlong or non-minimal varint */
  varint(): number {
    let x = 0;
    let scale = 1;
    for (let i = 0; i < 8; i++) {
      const b = this.u8();
      x += (b & 127) * scale;
      if (b < 128) {
        if (x > Number.MAX_SAFE_INTEGER || (b === 0 && i > 0)) break;
        return x;
      }
      scale *= 128;
    }
    throw this.fail('malformed count');
  }

  /** A little-endian float64. @throws Error when fewer than 8 bytes are left */
  f64(): number {
    if (this.at + 8 > this.#bytes.length) throw this.fail('truncated');
    const x = this.#dv.getFloat64(this.at, true);
    this.at += 8;
    return x;
  }

  /** The next `n` bytes (a view). @throws Error when fewer are left */
  take(n: number): Uint8Array {
    if (this.at + n > this.#bytes.length) throw this.fail('truncated');
    const out = this.#bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }

  /** @throws Error when bytes are left */
  end(): void {
    if (this.at !== this.#bytes.length) throw this.fail('trailing bytes');
  }
}
