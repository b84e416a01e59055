/**
 * More scalar functions in DuckDB 1.5's semantics (pure), beyond src/merge/scalar-more.ts:
 * GLOB's matcher (src/function/scalar/string/like.cpp, `Glob`), array_slice on strings
 * (src/function/scalar/list/list_slice.cpp). `callExtra` is reached from
 * `callMore` once every argument is non-NULL; checked against DuckDB by
 * test/scalar-extra-duckdb.test.ts.
 */
import type { Scalar, ScalarFn } from './types.ts';

const encoder = new TextEncoder();

/** A byte as C's signed `char` (DuckDB compares bracket ranges as chars: bytes 0x80-0xFF are negative). */
const signed = (b: number): number => (b >= 128 ? b - 256 : b);

/**
 * Whether the string matches the GLOB pattern, both UTF-8 bytes, as DuckDB's `Glob` reads it
 * (byte by byte: `?` is one byte, so 'é' GLOB '?' is false):
 * - `*` any run of bytes; `?` one byte; `\` makes the next byte literal (a trailing `\` never matches);
 * - `[...]` one byte of a set, `[!...]` one not in it; `a-b` a range compared as signed chars;
 *   a `]` right after `[` (or `[!`) is literal; a set without its `]`, or whose range runs
 *   into the end of the pattern, never matches.
 * DuckDB tries every split after a `*` recursively (exponential for many stars); the same
 * answer is found here with a memo of the (string, pattern) offsets already known to fail, so
 * the work is at most |s| x |p| attempts.
 */
export function globMatch(s: Uint8Array, p: Uint8Array): boolean {
  const failed = new Set<number>();
  const width = p.length + 1;
  const match = (sStart: number, pStart: number): boolean => {
    const key = sStart * width + pStart;
    if (failed.has(key)) return false;
    let si = sStart;
    let pi = pStart;
    const fail = (): boolean => {
      failed.add(key);
      return false;
    };
    while (si < s.length && pi < p.length) {
      const c = p[pi]!;
      if (c === 0x2a) {
        // '*': skip the run of stars; a trailing one matches the rest.
        while (pi < p.length && p[pi] === 0x2a) pi++;
        if (pi === p.length) return true;
        for (; si < s.length; si++) if (match(si, pi)) return true;
        return fail();
      }
      if (c === 0x5b) {
        // '[': a set of bytes.
        pi++;
        if (pi === p.length) return fail();
        const b = signed(s[si]!);
        const invert = p[pi] === 0x21;
        if (invert) pi++;
        let found = invert;
        const first = pi;
        let closed = false;
        while (pi < p.length) {
          if (p[pi] === 0x5d && pi > first) {
            closed = true;
            pi++;
            break;
          }
          if (pi + 1 === p.length) break;
          let hit: boolean;
          if (p[pi + 1] === 0x2d) {
            if (pi + 2 === p.length) break;
            hit = b >= signed(p[pi]!) && b <= signed(p[pi + 2]!);
            pi += 3;
          } else {
            hit = signed(p[pi]!) === b;
            pi++;
          }
          if (found === invert && hit) found = !invert;
        }
        if (!closed || !found) return fail();
        si++;
        continue;
      }
      if (c === 0x5c) {
        // '\': the next byte literally.
        pi++;
        if (pi === p.length || p[pi] !== s[si]) return fail();
      } else if (c !== 0x3f && c !== s[si]) return fail();
      si++;
      pi++;
    }
    while (pi < p.length && p[pi] === 0x2a) pi++;
    return pi === p.length && si === s.length ? true : fail();
  };
  return match(0, 0);
}

const INT64_MIN = -(2n ** 63n);

/**
 * array_slice(s, begin, end) on a string (DuckDB's list_slice.cpp ClampSlice over code points):
 * 1-based and inclusive; 0 is the start; a negative index counts from the end (-1 the last);
 * out-of-range indices are clamped, and an end before the begin gives ''. A begin of
 * int64's minimum is read one higher, as DuckDB does to negate it.
 */
export function stringSlice(s: string, begin: bigint, end: bigint): string {
  const cps = [...s];
  const length = BigInt(cps.length);
  let b = begin !== 0n ? begin - 1n : begin;
  let e = end;
  const isMin = b < INT64_MIN + 1n;
  if (isMin) b = INT64_MIN + 1n;
  if (b < 0n && -b > length && e < 0n && e < -length) return '';
  if (b < 0n && -b > length) b = 0n;
  const clamp = (i: bigint, min: boolean): bigint => (i < 0n ? length + (min ? i : i + 1n) : i > length ? length : i);
  b = clamp(b, isMin);
  e = clamp(e, false);
  return e <= b ? '' : cps.slice(Number(b), Number(e)).join('');
}

/**
 * The functions of this module over non-NULL arguments; undefined for a function it does not define.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE where DuckDB raises an error for the values
 */
export function callExtra(fn: ScalarFn, args: readonly Scalar[]): Scalar | undefined {
  switch (fn) {
    case 'glob':
      return globMatch(encoder.encode(args[0] as string), encoder.encode(args[1] as string));
    case 'string_slice':
      return stringSlice(args[0] as string, args[1] as bigint, args[2] as bigint);
    default:
      return undefined;
  }
}
