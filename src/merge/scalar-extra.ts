/**
 * More scalar functions in DuckDB 1.5's semantics (pure), beyond src/merge/scalar-more.ts:
 * GLOB's matcher (src/function/scalar/string/like.cpp, `Glob`), array_slice on strings
 * (src/function/scalar/list/list_slice.cpp), bar, parse_formatted_bytes, gamma and lgamma, parse_dirname/dirpath/filename. `callExtra` is reached from
 * `callMore` once every argument is non-NULL; checked against DuckDB by
 * test/scalar-extra-duckdb.test.ts.
 */
import { CanopyError, ValueError } from './errors.ts';
import type { Scalar, ScalarFn } from './types.ts';
import { INT64_MIN } from './int-range.ts';

/** @throws CanopyError CANOPY_ERR_OUT_OF_RANGE */
function refuse(message: string): never {
  throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', message);
}

/** An error DuckDB raises for the same value (TRY makes it NULL there, and so here). */
function valueError(message: string): never {
  throw new ValueError(message);
}

const encoder = new TextEncoder();
const num = (v: Scalar): number => (typeof v === 'bigint' ? Number(v) : (v as number));

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

/** bar's blocks (DuckDB's UnicodeBar): the full block, and the partial ones by eighths (index 0 unused). */
const FULL_BLOCK = '\u2588';
const PARTIAL_BLOCKS = [' ', '\u258f', '\u258e', '\u258d', '\u258c', '\u258b', '\u258a', '\u2589'];

/**
 * bar(x, min, max[, width]) as DuckDB draws it (extension/core_functions/scalar/string/bar.cpp):
 * the width is 0 for x <= min or a NaN, `width` for x >= max, else width * (x - min) / (max - min);
 * that many eighths (truncated) as full blocks then one partial block, padded with spaces
 * to the integer part of `width`.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for a width that is not finite, below 1 or above
 *   1000, or a bar width that is not finite (an infinite min or max)
 */
export function bar(x: number, min: number, max: number, maxWidth = 80): string {
  if (!Number.isFinite(maxWidth)) refuse('Max bar width must not be NaN or infinity');
  if (maxWidth < 1) refuse('Max bar width must be >= 1');
  if (maxWidth > 1000) refuse('Max bar width must be <= 1000');
  const width = Number.isNaN(x) || Number.isNaN(min) || Number.isNaN(max) || x <= min ? 0 : x >= max ? maxWidth : (maxWidth * (x - min)) / (max - min);
  if (!Number.isFinite(width)) refuse('Bar width must not be NaN or infinity');
  // DuckDB's LossyNumericCast<uint32_t>: truncation (the width is at most 8000 eighths).
  const eighths = Math.trunc(width * 8);
  const full = Math.trunc(eighths / 8);
  const rest = eighths % 8;
  const used = full + (rest > 0 ? 1 : 0);
  return FULL_BLOCK.repeat(full) + (rest > 0 ? PARTIAL_BLOCKS[rest]! : '') + ' '.repeat(Math.max(0, Math.trunc(maxWidth) - used));
}

const MEMORY_UNITS: Readonly<Record<string, number>> = {
  byte: 1, bytes: 1, b: 1,
  kb: 1e3, kilobyte: 1e3, kilobytes: 1e3, k: 1e3,
  mb: 1e6, megabyte: 1e6, megabytes: 1e6, m: 1e6,
  gb: 1e9, gigabyte: 1e9, gigabytes: 1e9, g: 1e9,
  tb: 1e12, terabyte: 1e12, terabytes: 1e12, t: 1e12,
  kib: 1024, mib: 1024 ** 2, gib: 1024 ** 3, tib: 1024 ** 4,
};
/** C's isspace in the "C" locale (DuckDB's StringUtil::CharacterIsSpace). */
const isSpace = (c: string | undefined): boolean => c === ' ' || c === '\t' || c === '\n' || c === '\v' || c === '\f' || c === '\r';

/**
 * parse_formatted_bytes(s) as DuckDB's DBConfig::ParseMemoryLimit reads it: spaces, a number
 * (the run of digits, '.', 'e', 'E' and '-', read as a double), spaces, a unit word (b, byte(s),
 * k(b), kilobyte(s), ... t(b); kib, mib, gib, tib; any case); anything after the unit word is
 * ignored. The bytes are the unit times the number, truncated.
 * @returns the bytes, a BIGINT (DuckDB's UBIGINT; values from 2^63 are refused)
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE for no number, a malformed or negative one, an
 *   unknown unit, or a value from 2^63 bytes (all but the last DuckDB's errors too, a ValueError:
 *   TRY gives NULL for them; 2^63 to 2^64 bytes DuckDB answers as a UBIGINT, so that stays refused)
 */
export function parseFormattedBytes(s: string): bigint {
  let i = 0;
  while (isSpace(s[i])) i++;
  const start = i;
  while (i < s.length && /[0-9.eE-]/.test(s[i]!)) i++;
  if (i === start) valueError('Memory must have a number (e.g. 1GB)');
  const number = s.slice(start, i);
  if (!/^-?(?:\d+\.?\d*|\.\d+)(?:[eE]-?\d+)?$/.test(number)) valueError(`Invalid memory limit: '${number}'`);
  const limit = Number(number);
  while (isSpace(s[i])) i++;
  const unitStart = i;
  while (i < s.length && !isSpace(s[i])) i++;
  if (limit < 0) valueError('Memory cannot be negative');
  const unit = s.slice(unitStart, i).replace(/[A-Z]+/g, (u) => u.toLowerCase());
  const multiplier = Object.hasOwn(MEMORY_UNITS, unit) ? MEMORY_UNITS[unit]! : valueError(`Unknown unit for memory: '${unit}' (expected: KB, MB, GB, TB for 1000^i units or KiB, MiB, GiB, TiB for 1024^i units)`);
  const bytes = multiplier * limit;
  if (bytes > 2 ** 64) valueError('Memory value out of range: value is too large');
  if (!(bytes < 2 ** 63)) refuse(`parse_formatted_bytes: ${number} ${unit} is 2^63 bytes or more, past canopy's BIGINT (DuckDB's UBIGINT holds it)`);
  return BigInt(Math.trunc(bytes));
}

/** Lanczos's coefficients for g = 7, n = 9 (Numerical Recipes' and Godfrey's set), relative error about 1e-15. */
const LANCZOS_G = 7;
const LANCZOS = [0.99999999999980993, 676.5203681218851, -1259.1392167224028, 771.32342877765313, -176.61502916214059, 12.507343278686905, -0.13857109526572012, 9.9843695780195716e-6, 1.5056327351493116e-7];
const EULER_GAMMA = 0.5772156649015329;
/** ζ(k) for k = 2..40 by Euler-Maclaurin summation (64 terms, then the tail to the B6 term; error below 1e-17). */
const ZETA: readonly number[] = Array.from({ length: 41 }, (_, k) => {
  if (k < 2) return NaN;
  const n = 64;
  let sum = 0;
  for (let i = n - 1; i >= 1; i--) sum += i ** -k;
  return sum + n ** (1 - k) / (k - 1) + n ** -k / 2 + (k * n ** (-k - 1)) / 12 - (k * (k + 1) * (k + 2) * n ** (-k - 3)) / 720 + (k * (k + 1) * (k + 2) * (k + 3) * (k + 4) * n ** (-k - 5)) / 30240;
});

/** sin(πx), reduced exactly to [-1/2, 1/2] first (so it is exactly 0 at integers and accurate near them). */
function sinPi(x: number): number {
  let r = x - 2 * Math.round(x / 2);
  if (r > 0.5) r = 1 - r;
  else if (r < -0.5) r = -1 - r;
  return Math.sin(Math.PI * r);
}

/**
 * Γ(x) for x >= 1/2: above 2 as (x-1)(x-2)...(x-n) Γ(x-n) with x - n in [1, 2] (exact
 * subtractions, one rounding per factor: Lanczos's power and exponential lose about x ulps at
 * large x), there by Lanczos's approximation.
 */
function gammaPositive(x: number): number {
  let acc = 1;
  // A power of two the product is kept divided by: just below 171.62 the product alone passes
  // the largest double before Γ(y) < 1 brings it back (gamma(171.6096) is 1.666e308).
  let scale = 1;
  let y = x;
  while (y > 2) {
    y -= 1;
    acc *= y;
    if (acc > 2 ** 900) {
      acc *= 2 ** -900;
      scale *= 2 ** 900;
    }
  }
  return acc * gammaLanczos(y) * scale;
}

/** Γ(x) for x >= 1/2 by Lanczos's approximation, t^(x-1/2) taken in two halves so it does not overflow before e^-t. */
function gammaLanczos(x: number): number {
  const z = x - 1;
  let a = LANCZOS[0]!;
  for (let i = 1; i < LANCZOS.length; i++) a += LANCZOS[i]! / (z + i);
  const t = z + LANCZOS_G + 0.5;
  const half = t ** ((z + 0.5) / 2);
  return Math.sqrt(2 * Math.PI) * half * Math.exp(-t) * half * a;
}

/** ln Γ(1 + z) for |z| <= 1/4 by its Taylor series: -γz + Σ (-1)^k ζ(k) z^k / k (accurate where it is near 0). */
function lgammaNearOne(z: number): number {
  let sum = -EULER_GAMMA * z;
  let p = -z;
  for (let k = 2; k <= 40; k++) {
    p *= -z;
    sum += (ZETA[k]! * p) / k;
  }
  return sum;
}

/**
 * gamma(x) as DuckDB's std::tgamma (glibc): Γ(x), +inf past 171.62, NaN at negative integers
 * and -inf; between -1/4 and 1/2 as Γ(x + 1) / x, below by reflection (π / (sin(πx) Γ(1 - x))). Accurate to
 * about 1e-15 relative (glibc's last bits may differ); positive integers up to 23 are exact.
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE at ±0, as DuckDB ("cannot take gamma of zero")
 */
export function gamma(x: number): number {
  if (x === 0) refuse('cannot take gamma of zero');
  if (Number.isNaN(x) || x === -Infinity) return NaN;
  if (x > 171.61447887182297) return Infinity;
  if (Number.isInteger(x)) {
    if (x < 0) return NaN;
    let f = 1;
    for (let i = 2; i < x; i++) f *= i;
    return f;
  }
  if (x >= 0.5) return gammaPositive(x);
  if (x > -0.25) return gammaPositive(x + 1) / x;
  // Reflection; below -170 Γ(1 - x) would overflow, so its factors past 170 divide the result one by one.
  let y = 1 - x;
  let r = Math.PI / sinPi(x);
  while (y > 170) {
    y -= 1;
    r /= y;
  }
  return r / gammaPositive(y);
}

/**
 * lgamma(x) as DuckDB's std::lgamma (glibc): ln |Γ(x)|, +inf at non-positive integers and ±inf.
 * Near 1 and 2 by the Taylor series of ln Γ(1 + z) (so it is accurate where it crosses 0), within 1/4 of 0 as that of ln Γ(1 + x) - ln |x|,
 * from 12 by Stirling's series, between by ln of Lanczos's Γ, below 0 by reflection
 * (ln(π / |sin(πx)|) - ln Γ(1 - x)): there, near its roots (where |Γ(x)| is 1), the two
 * terms cancel and the value is good to about 1e-15 absolute, not relative (glibc expands
 * around each root).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE at ±0, as DuckDB ("cannot take log gamma of zero")
 */
export function lgamma(x: number): number {
  if (x === 0) refuse('cannot take log gamma of zero');
  if (Number.isNaN(x)) return NaN;
  if (x === Infinity || x === -Infinity) return Infinity;
  // ln |Γ(x)| = ln Γ(1 + x) - ln |x| (Γ(x) itself overflows within 5.6e-309 of 0).
  if (Math.abs(x) <= 0.25) return lgammaNearOne(x) - Math.log(Math.abs(x));
  if (x < 0) return Number.isInteger(x) ? Infinity : Math.log(Math.PI / Math.abs(sinPi(x))) - lgamma(1 - x);
  if (Math.abs(x - 1) <= 0.25) return lgammaNearOne(x - 1);
  if (Math.abs(x - 2) <= 0.25) return lgammaNearOne(x - 2) + Math.log1p(x - 2);
  if (x < 12) return Math.log(x >= 0.5 ? gammaPositive(x) : gammaPositive(x + 1) / x);
  const inv = 1 / x;
  const inv2 = inv * inv;
  const series = inv * (1 / 12 - inv2 * (1 / 360 - inv2 * (1 / 1260 - inv2 * (1 / 1680 - inv2 * (1 / 1188)))));
  return (x - 0.5) * Math.log(x) - x + 0.5 * Math.log(2 * Math.PI) + series;
}

/**
 * DuckDB's parse_dirname, parse_dirpath and parse_filename (extension/core_functions/scalar/string/parse_path.cpp)
 * over the separator characters `seps` ('/', '\\' or both):
 * - dirname: the part before the first separator ('' without one; the separator itself when the path opens with one);
 * - dirpath: the part before the last separator ('' without one, and when it is the first character of a longer path);
 * - filename: the part after the last separator, without its extension (from its last '.') when `trim`.
 */
export function parsePath(kind: 'dirname' | 'dirpath' | 'filename', path: string, seps: string, trim: boolean): string {
  let first = -1;
  let last = -1;
  for (let i = 0; i < path.length; i++) {
    if (!seps.includes(path[i]!)) continue;
    if (first < 0) first = i;
    last = i;
  }
  if (kind === 'dirname') return first < 0 ? '' : first === 0 ? path[0]! : path.slice(0, first);
  if (kind === 'dirpath') return last < 0 ? '' : last === 0 ? (path.length === 1 ? path : '') : path.slice(0, last);
  const name = path.slice(last + 1);
  const dot = trim ? name.lastIndexOf('.') : -1;
  return dot < 0 ? name : name.slice(0, dot);
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
    case 'gamma':
      return gamma(num(args[0]!));
    case 'lgamma':
      return lgamma(num(args[0]!));
    case 'parse_path':
      return parsePath(args[1] as 'dirname' | 'dirpath' | 'filename', args[0] as string, args[2] as string, args[3] as boolean);
    case 'bar':
      return bar(num(args[0]!), num(args[1]!), num(args[2]!), args.length > 3 ? num(args[3]!) : 80);
    case 'parse_formatted_bytes':
      return parseFormattedBytes(args[0] as string);
    default:
      return undefined;
  }
}
