/**
 * The numeric and string scalar functions beyond the core set of src/merge/scalar.ts (pure),
 * in DuckDB 1.5's semantics, read from its source (extension/core_functions/scalar/math/numeric.cpp,
 * extension/core_functions/scalar/string/*.cpp, src/function/scalar/string/*.cpp,
 * third_party/jaro_winkler, the macros of src/catalog/default/default_functions.cpp) and checked
 * against DuckDB by test/scalar-more-duckdb.test.ts. `callMore` is reached from `callFn` once
 * every argument is non-NULL.
 *
 * Units: the edit distances, hamming, jaccard, jaro and bit_length work on UTF-8 bytes, as
 * DuckDB does ('é' is two bytes: levenshtein('é', 'e') is 2); ascii, unicode, chr, translate and
 * split_part on code points.
 */
// node:crypto's digests are pure functions of their input (no I/O), as src/merge requires.
// eslint-disable-next-line no-restricted-imports
import { createHash } from 'node:crypto';
import { RE2JS } from 're2js';
import { CanopyError, ValueError } from './errors.ts';
import { callExtra } from './scalar-extra.ts';
import type { Scalar, ScalarFn } from './types.ts';
import { INT64_MIN, INT64_MAX } from './int-range.ts';

/** @throws CanopyError CANOPY_ERR_OUT_OF_RANGE */
function refuse(message: string): never {
  throw new CanopyError('CANOPY_ERR_OUT_OF_RANGE', message);
}

const num = (v: Scalar): number => (typeof v === 'bigint' ? Number(v) : (v as number));
const encoder = new TextEncoder();
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const bytesOf = (s: string): Uint8Array => encoder.encode(s);

/** DuckDB's NoInfiniteDoubleWrapper (sin, cos, tan, asin, acos, cot): NaN passes, ±inf is refused. */
function finiteInput(x: number): void {
  if (x === Infinity || x === -Infinity) refuse(`input value ${x === Infinity ? 'inf' : '-inf'} is out of range for numeric function`);
}

/** asin/acos/atanh's domain check (DuckDB's Invalid Input Error). */
function unitDomain(x: number, what: string): void {
  if (x < -1 || x > 1) refuse(`${what} is undefined outside [-1,1]`);
}

/** log10 as DuckDB's Log10Operator: refuses 0 and negatives. */
function log10Checked(x: number): number {
  if (x < 0) refuse('cannot take logarithm of a negative number');
  if (x === 0) refuse('cannot take logarithm of zero');
  return Math.log10(x);
}

/** |v| as DuckDB's TryAbsOperator. @throws CanopyError for -2^63 */
function absInt(v: bigint): bigint {
  if (v === INT64_MIN) refuse(`Overflow on abs(${v})`);
  return v < 0n ? -v : v;
}

/** DuckDB's gcd(BIGINT, BIGINT): never negative; refuses |-2^63| (gcd(-2^63, 0)). */
function gcdInt(a: bigint, b: bigint): bigint {
  if ((a === INT64_MIN && b === -1n) || (a === -1n && b === INT64_MIN)) return 1n;
  let x = a;
  let y = b;
  for (;;) {
    if (x === 0n) return absInt(y);
    y %= x;
    if (y === 0n) return absInt(x);
    x %= y;
  }
}

/** DuckDB's lcm(BIGINT, BIGINT): 0 when either is 0, |a·(b / gcd)| otherwise. @throws CanopyError past the int64 range */
function lcmInt(a: bigint, b: bigint): bigint {
  if (a === 0n || b === 0n) return 0n;
  const r = a * (b / gcdInt(a, b));
  if (r < INT64_MIN || r > INT64_MAX) refuse('lcm value is out of range');
  return absInt(r);
}

/** Set bits of `v` as a two's complement integer of `bits` (64, or 32 for an INTEGER literal). */
function bitCount(v: bigint, bits: number): bigint {
  let x = BigInt.asUintN(bits, v);
  let n = 0n;
  while (x !== 0n) {
    n += x & 1n;
    x >>= 1n;
  }
  return n;
}

/** The largest n whose n! fits DuckDB's HUGEINT (33! < 2^127 < 34!). */
const FACTORIAL_MAX = 33n;

/** factorial(n) as DuckDB (an INTEGER to a HUGEINT): 1 for 0 and 1. @throws CanopyError for a negative n or past 33! */
function factorial(n: bigint): bigint {
  if (n < 0n) refuse('factorial of a negative number is undefined');
  if (n > FACTORIAL_MAX) refuse('Value out of range');
  let r = 1n;
  for (let i = 2n; i <= n; i++) r *= i;
  return r;
}

/** DuckDB's even(): away from zero to the next even integer (even(2.5) = 4, even(-1.5) = -2). */
function even(x: number): number {
  let v = x >= 0 ? Math.ceil(x) : -Math.ceil(-x);
  if (Math.floor(v / 2) * 2 !== v) v += x >= 0 ? 1 : -1;
  return v;
}

const F64 = new Float64Array(1);
const I64 = new BigInt64Array(F64.buffer);

/** C's nextafter(x, y): the double next to x toward y (y itself when equal, NaN when either is). */
function nextAfter(x: number, y: number): number {
  if (Number.isNaN(x) || Number.isNaN(y)) return NaN;
  if (x === y) return y;
  if (x === 0) return y > 0 ? 5e-324 : -5e-324;
  F64[0] = x;
  I64[0]! += (y > x) === (x > 0) ? 1n : -1n;
  return F64[0]!;
}

/** hex()/to_hex() of a BIGINT: upper-case digits of its 64-bit two's complement, no leading zeros. */
function hexInt(v: bigint): string {
  return BigInt.asUintN(64, v).toString(16).toUpperCase();
}

/** chr(code point) as DuckDB. @throws CanopyError for a negative, surrogate or > U+10FFFF code point */
function chr(v: bigint): string {
  const c = Number(v);
  if (v < 0n || v > 0x10ffffn || (c >= 0xd800 && c <= 0xdfff)) refuse(`Invalid UTF8 Codepoint ${v}`);
  return String.fromCodePoint(c);
}

/** DuckDB's split_part macro: string_split(s, d)[i], '' where there is no such part (i = 0, past either end); d = '' splits into code points. */
function splitPart(s: string, d: string, i: bigint): string {
  const parts = d === '' ? (s === '' ? [''] : [...s]) : s.split(d);
  const n = BigInt(parts.length);
  const k = i > 0n ? i - 1n : i < 0n ? n + i : -1n;
  return k >= 0n && k < n ? parts[Number(k)]! : '';
}

/** DuckDB's translate: code points of `from` map to those of `to` at the same position (the first mapping of a repeated one wins), the rest of `from` are deleted. */
function translate(s: string, from: string, to: string): string {
  const f = [...from];
  const t = [...to];
  const map = new Map<string, string>();
  f.forEach((c, k) => {
    if (!map.has(c)) map.set(c, k < t.length ? t[k]! : '');
  });
  let out = '';
  for (const c of s) out += map.get(c) ?? c;
  return out;
}

/**
 * Most steps (byte pairs compared) one call of a quadratic string distance may take: 2^24,
 * some tens of ms. A call runs to its end without yielding, so a pair of 1 MiB strings
 * (10^12 steps, or as many cells of damerau_levenshtein's table) would stall its process for
 * minutes or exhaust its memory; past this the call is refused instead.
 */
export const MAX_DISTANCE_STEPS = 2 ** 24;

/** Cells one damerau_levenshtein call's table may hold: 2^22 (tens of MiB). */
const MAX_DAMERAU_CELLS = 2 ** 22;

/**
 * Steps of quadratic string distances between two calls of the evaluator's checkpoint: 2^24,
 * some tens of ms. Each call is bounded ({@link MAX_DISTANCE_STEPS}), but a batch of 8,192 rows
 * of calls near that bound would run for minutes without reaching the next check between
 * batches; the checkpoint (the leaf scan's deadline and cancellation check) runs inside it.
 */
export const WORK_CHECK_STEPS = 2 ** 24;

/** Steps charged since the checkpoint last ran, and the checkpoint (null: none set). */
let workSince = 0;
let workCheckpoint: (() => void) | null = null;

/**
 * Sets the check that runs after every {@link WORK_CHECK_STEPS} steps of the string distance
 * functions and of regexp_replace's matches evaluated from now on (null: none), and restarts the count. The leaf scan sets its
 * deadline and cancellation check before each stretch of synchronous evaluation and clears it
 * before it yields, so a check never runs for another scan's rows. The check may throw (its
 * error ends the evaluation).
 */
export function setWorkCheckpoint(check: (() => void) | null): void {
  workCheckpoint = check;
  workSince = 0;
}

/**
 * Checks one call of quadratic string distance `fn` over byte strings of lengths `a` and `b`,
 * and charges its steps to the checkpoint ({@link setWorkCheckpoint}).
 * @throws CanopyError CANOPY_ERR_LIMIT past `max` steps, naming the lengths; whatever the
 *   checkpoint throws (the scan's deadline or cancellation)
 */
function checkDistanceWork(fn: string, a: number, b: number, max = MAX_DISTANCE_STEPS): void {
  if (a * b > max) throw new CanopyError('CANOPY_ERR_LIMIT', `${fn} of strings of ${a} and ${b} bytes takes ${a * b} steps, past canopy's ${max} per call; compare shorter strings (left(s, n)) or filter the long ones out`);
  chargeWork(a * b);
}

/**
 * Charges `steps` (in units of one string-distance step, a few ns) to the checkpoint
 * ({@link setWorkCheckpoint}), which runs every {@link WORK_CHECK_STEPS} of them.
 * @throws whatever the checkpoint throws (the scan's deadline or cancellation)
 */
function chargeWork(steps: number): void {
  workSince += steps;
  if (workSince >= WORK_CHECK_STEPS) {
    workSince = 0;
    workCheckpoint?.();
  }
}

/** What one regexp_replace match costs in distance steps (a find in re2js takes about 2 µs). */
const REGEX_FIND_STEPS = 512;

/** Levenshtein distance over bytes (DuckDB's two-row algorithm). */
function levenshtein(a: Uint8Array, b: Uint8Array): number {
  if (a.length === 0) return b.length;
  if (b.length === 0) return a.length;
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j);
  let cur = new Array<number>(b.length + 1).fill(0);
  for (let i = 0; i < a.length; i++) {
    cur[0] = i + 1;
    for (let j = 0; j < b.length; j++) cur[j + 1] = Math.min(prev[j + 1]! + 1, cur[j]! + 1, prev[j]! + (a[i] === b[j] ? 0 : 1));
    [prev, cur] = [cur, prev];
  }
  return prev[b.length]!;
}

/** Damerau-Levenshtein distance (unrestricted, Lowrance-Wagner) over bytes, as DuckDB's damerau_levenshtein. */
function damerauLevenshtein(s: Uint8Array, t: Uint8Array): number {
  if (s.length === 0) return t.length;
  if (t.length === 0) return s.length;
  const inf = s.length + t.length + 1;
  const d = Array.from({ length: s.length + 2 }, () => new Array<number>(t.length + 2).fill(inf));
  for (let i = 0; i <= s.length; i++) d[i + 1]![1] = i;
  for (let j = 1; j <= t.length; j++) d[1]![j + 1] = j;
  const lastRow = new Map<number, number>();
  for (let i = 0; i < s.length; i++) {
    let lastCol = 0;
    for (let j = 0; j < t.length; j++) {
      const i1 = lastRow.get(t[j]!) ?? 0;
      const j1 = lastCol;
      let cost = 1;
      if (s[i] === t[j]) {
        cost = 0;
        lastCol = j + 1;
      }
      d[i + 2]![j + 2] = Math.min(d[i + 1]![j + 1]! + cost, d[i + 2]![j + 1]! + 1, d[i + 1]![j + 2]! + 1, d[i1]![j1]! + (i - i1) + 1 + (j - j1));
    }
    lastRow.set(s[i]!, i + 1);
  }
  return d[s.length + 1]![t.length + 1]!;
}

/** Positions where two byte strings of one length differ (DuckDB's hamming/mismatches). @throws CanopyError for unequal or empty strings */
function hamming(a: Uint8Array, b: Uint8Array): number {
  if (a.length !== b.length) refuse('Mismatch Function: Strings must be of equal length!');
  if (a.length < 1) refuse('Mismatch Function: Strings must be of length > 0!');
  let n = 0;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) n++;
  return n;
}

/** Jaccard similarity of the sets of bytes of two strings. @throws CanopyError when either is empty */
function jaccard(a: Uint8Array, b: Uint8Array): number {
  if (a.length < 1 || b.length < 1) refuse('Jaccard Function: An argument too short!');
  const sa = new Set(a);
  const sb = new Set(b);
  let both = 0;
  for (const x of sa) if (sb.has(x)) both++;
  return both / (sa.size + sb.size - both);
}

/**
 * Jaro similarity over bytes as rapidfuzz computes it (DuckDB's third_party/jaro_winkler):
 * 0 when either is empty; for each byte of `t` in order the first unmatched equal byte of `p`
 * within max(|p|, |t|) / 2 - 1 positions; transpositions halved by integer division.
 */
function jaro(p: Uint8Array, t: Uint8Array): number {
  if (p.length === 0 || t.length === 0) return 0;
  if (p.length === 1 && t.length === 1) return p[0] === t[0] ? 1 : 0;
  const bound = Math.floor(Math.max(p.length, t.length) / 2) - 1;
  const pFlag = new Uint8Array(p.length);
  const tFlag = new Uint8Array(t.length);
  let common = 0;
  for (let j = 0; j < t.length; j++) {
    const hi = Math.min(p.length - 1, j + bound);
    for (let i = Math.max(0, j - bound); i <= hi; i++) {
      if (pFlag[i] === 0 && p[i] === t[j]) {
        pFlag[i] = 1;
        tFlag[j] = 1;
        common++;
        break;
      }
    }
  }
  if (common === 0) return 0;
  let transpositions = 0;
  let i = 0;
  for (let j = 0; j < t.length; j++) {
    if (tFlag[j] === 0) continue;
    while (pFlag[i] === 0) i++;
    if (p[i] !== t[j]) transpositions++;
    i++;
  }
  const half = Math.floor(transpositions / 2);
  return (common / p.length + common / t.length + (common - half) / common) / 3;
}

/** Jaro-Winkler over bytes (prefix weight 0.1, a common prefix of at most 4, applied above 0.7), as rapidfuzz. */
function jaroWinkler(p: Uint8Array, t: Uint8Array): number {
  const max = Math.min(p.length, t.length, 4);
  let prefix = 0;
  while (prefix < max && p[prefix] === t[prefix]) prefix++;
  const sim = jaro(p, t);
  return sim > 0.7 ? sim + prefix * 0.1 * (1 - sim) : sim;
}

const UNRESERVED = /^[A-Za-z0-9_.~-]$/;

/** url_encode as DuckDB: every byte but A-Z a-z 0-9 _ - ~ . as %XX (upper case; '/' too). */
function urlEncode(s: string): string {
  let out = '';
  for (const b of bytesOf(s)) {
    const c = String.fromCharCode(b);
    out += b < 0x80 && UNRESERVED.test(c) ? c : `%${b.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** url_decode as DuckDB: %XX (two hex digits) to its byte, '+' kept. @throws CanopyError when the bytes are not UTF-8 */
function urlDecode(s: string): string {
  const src = bytesOf(s);
  const out: number[] = [];
  const hex = (b: number | undefined): boolean => b !== undefined && /^[0-9A-Fa-f]$/.test(String.fromCharCode(b));
  for (let i = 0; i < src.length; i++) {
    if (src[i] === 0x25 && i + 2 < src.length && hex(src[i + 1]) && hex(src[i + 2])) {
      out.push(parseInt(String.fromCharCode(src[i + 1]!, src[i + 2]!), 16));
      i += 2;
    } else out.push(src[i]!);
  }
  try {
    return strictUtf8.decode(new Uint8Array(out));
  } catch {
    return refuse(`Failed to decode string "${s}" using URL decoding - decoded value is invalid UTF8`);
  }
}

/**
 * strip_accents as DuckDB (utf8proc STABLE | COMPOSE | STRIPMARK): canonical decomposition,
 * marks (Mn, Mc, Me) dropped, composed again. An ASCII string is returned as it is; any other
 * goes to utf8proc as a C string, so it ends at its first NUL ('é' || chr(0) || 'b' gives 'e').
 */
function stripAccents(s: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(s)) return s;
  const nul = s.indexOf('\u0000');
  return (nul < 0 ? s : s.slice(0, nul)).normalize('NFD').replace(/\p{M}/gu, '').normalize('NFC');
}

/** regexp_escape as RE2::QuoteMeta: a backslash before every ASCII character but A-Z a-z 0-9 _, NUL as \x00, non-ASCII kept. */
function regexpEscape(s: string): string {
  return s.replace(/[^A-Za-z0-9_\u0080-\u{10ffff}]/gu, (c) => (c === '\u0000' ? '\\x00' : `\\${c}`));
}

/** to_base(n, radix, min_length) as DuckDB: digits 0-9A-Z, zero-filled to min_length. @throws CanopyError for n < 0, a radix outside 2-36 or min_length outside 0-64 */
function toBase(n: bigint, radix: bigint, minLength: bigint): string {
  if (n < 0n) refuse("'to_base' number must be greater than or equal to 0");
  if (radix < 2n || radix > 36n) refuse("'to_base' radix must be between 2 and 36");
  if (minLength < 0n || minLength > 64n) refuse("'to_base' min_length must be between 0 and 64");
  return n.toString(Number(radix)).toUpperCase().padStart(Number(minLength), '0');
}

/**
 * format_bytes (multiplier 1024: KiB .. PiB) and formatReadableDecimalSize (1000: kB .. PB) as
 * DuckDB's BytesToHumanReadableString: the largest unit with a nonzero count, one decimal
 * truncated ('1023.9 KiB'), 'n bytes' ('1 byte') below the first unit; a '-' before a negative.
 */
function formatBytes(v: bigint, multiplier: bigint): string {
  const units = multiplier === 1024n ? ['bytes', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'] : ['bytes', 'kB', 'MB', 'GB', 'TB', 'PB'];
  const bytes = v < 0n ? -v : v;
  const parts: bigint[] = [bytes];
  for (let i = 1; i < 6; i++) {
    parts[i] = parts[i - 1]! / multiplier;
    parts[i - 1] = parts[i - 1]! % multiplier;
  }
  const sign = v < 0n ? '-' : '';
  for (let i = 5; i >= 1; i--) {
    if (parts[i] !== 0n) return `${sign}${parts[i]}.${(parts[i - 1]! * 10n) / multiplier} ${units[i]}`;
  }
  return `${sign}${parts[0]}${bytes === 1n ? ' byte' : ' bytes'}`;
}

/** A compiled pattern of regexp_replace / regexp_extract, cached. */
const COMPILED = new Map<string, RE2JS>();

function compiled(pattern: string, options: string): RE2JS {
  const key = `${options}/${pattern}`;
  let re = COMPILED.get(key);
  if (re === undefined) {
    re = RE2JS.compile(pattern, options.includes('i') ? RE2JS.CASE_INSENSITIVE : 0);
    if (COMPILED.size > 1000) COMPILED.clear();
    COMPILED.set(key, re);
  }
  return re;
}

/**
 * Refuses a regexp_replace rewrite RE2 would reject: a backslash followed by anything but a
 * digit or a backslash (RE2 logs it and DuckDB's result depends on where it fails).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED
 */
export function checkRewrite(rewrite: string): void {
  if (!/^(?:[^\\]|\\[0-9\\])*$/su.test(rewrite)) throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `regexp_replace: the replacement '${rewrite}' has a backslash that is not \\0-\\9 or \\\\ (RE2's rewrite syntax)`);
}

/**
 * The largest group a rewrite names (-1 for none), read left to right as RE2 reads it: `\\`
 * is a backslash, so in `\\1` the 1 is text, not group 1.
 */
function rewriteMaxGroup(rewrite: string): number {
  return Math.max(-1, ...[...rewrite.matchAll(/\\([0-9\\])/g)].map((g) => (g[1] === '\\' ? -1 : Number(g[1]))));
}

/** RE2's Rewrite: \0-\9 the groups (a group that took no part as ''), \\ a backslash. */
function rewriteWith(m: ReturnType<RE2JS['matcher']>, rewrite: string): string {
  return rewrite.replace(/\\([0-9\\])/g, (_, c: string) => (c === '\\' ? '\\' : (m.group(Number(c)) ?? '')));
}

/**
 * DuckDB's regexp_replace (RE2::Replace, or RE2::GlobalReplace with option 'g'): the first (or
 * every) match replaced by `rewrite`; after an empty match at the end of the previous match one
 * code point is copied and the search goes on. A rewrite naming a group the pattern does not
 * have leaves the string as it is (RE2 refuses the rewrite).
 */
function regexpReplace(s: string, pattern: string, rewrite: string, options: string): string {
  const re = compiled(pattern, options);
  if (rewriteMaxGroup(rewrite) > re.groupCount()) return s;
  const m = re.matcher(s);
  const global = options.includes('g');
  let out = '';
  let p = 0;
  let lastEnd = -1;
  let count = 0;
  while (p <= s.length) {
    if (!m.find(p)) break;
    const start = m.start();
    const end = m.end();
    // A global replace over a long string makes many finds in one call: charged, so the
    // scan's deadline and cancellation stop a batch of them (not only the batches between).
    chargeWork(REGEX_FIND_STEPS + end - p);
    if (p < start) out += s.slice(p, start);
    if (start === lastEnd && start === end) {
      // An empty match where the last one ended: copy one code point and go on.
      const step = p < s.length ? (s.codePointAt(p)! > 0xffff ? 2 : 1) : 1;
      out += s.slice(p, p + step);
      p += step;
      continue;
    }
    out += rewriteWith(m, rewrite);
    p = end;
    lastEnd = end;
    count++;
    if (!global) break;
  }
  if (count === 0) return s;
  return p < s.length ? out + s.slice(p) : out;
}

/** DuckDB's regexp_extract: group `group` (0 the whole match) of the first match; '' with no match, a group the pattern lacks or one that took no part. */
function regexpExtract(s: string, pattern: string, group: number, options: string): string {
  const re = compiled(pattern, options);
  if (group > re.groupCount()) return '';
  const m = re.matcher(s);
  return m.find() ? (m.group(group) ?? '') : '';
}

/** One piece of a format: literal text, or argument `arg` (0-based) converted by `conv`. */
export type FormatPart =
  | { readonly text: string }
  | {
      readonly arg: number;
      readonly conv: 's' | 'd' | 'x' | 'X' | 'o' | 'b' | 'c';
      readonly flags: string;
      /** printf's `hh` / `h` length modifiers: the value converted to 8 / 16 bits first, as fmt does (`%hhd` of 300 is 44). */
      readonly bits?: 8 | 16;
      readonly width: number;
      /** A thousands separator for `d` (DuckDB's extension: printf's `,` `'` `_` flags, format's `{:,}` `{:t<c>}`). */
      readonly group?: string;
      /** format()'s integer conversions: a negative is `-` then its magnitude (fmt), not printf's two's complement. */
      readonly signed?: boolean;
    };

/**
 * The parts of a printf format canopy formats exactly as DuckDB (fmt's printf): `%%`, and
 * `%[flags][width][length]conv` with conv `s` (a string or boolean; no width, which fmt
 * measures in display columns), `d`/`i`, `x`, `X`, `o` (a BIGINT; x/X/o of a negative as its
 * 64-bit two's complement), `c` (one byte: a BIGINT taken mod 256, refused past 127 as DuckDB
 * refuses the invalid UTF-8; right-justified whatever the flags, as fmt does), flags `-` (left-justify), `0` (zero-fill; not with `-`), `+`/` `
 * (sign, for d; the later of the two wins, as in fmt), `#` (a `0x` / `0X` / `0` prefix for a
 * nonzero x / X / o; nothing for d); DuckDB's thousands separators `,` `'` `_` (for d; the
 * last given wins; zero-fill is not grouped); the length modifiers `hh` and `h` (the value
 * converted to 8 / 16 bits first, as fmt does) and `l`, `ll`, `j`, `z`, `t`, `L` (64 bits: no
 * change); a width up to 2^20.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED naming a specifier outside that set
 */
export function printfParts(format: string): FormatPart[] {
  const parts: FormatPart[] = [];
  let text = '';
  let next = 0;
  const re = /%(%|([-+ 0#,'_]*)(\d*)(hh|h|ll|l|j|z|t|L)?([sdixXoc]))/gy;
  for (let i = 0; i < format.length;) {
    if (format[i] !== '%') {
      text += format[i++];
      continue;
    }
    re.lastIndex = i;
    const m = re.exec(format);
    const allFlags = m?.[2] ?? '';
    const group = /[,'_]/.test(allFlags) ? allFlags.replace(/[^,'_]/g, '').slice(-1) : undefined;
    const flags = allFlags.replace(/[,'_]/g, '');
    const conv = m?.[5] === 'i' ? 'd' : m?.[5];
    const length = m?.[4];
    // A width past 2^20 would be refused as a string past MAX_STRING_LENGTH anyway, only after building it.
    const bad = m === null || (m[1] !== '%' && ((flags.includes('-') && flags.includes('0')) || (conv !== 'd' && /[+ ]/.test(flags)) || (conv === 's' && (m[3] !== '' || flags !== '' || length !== undefined)) || (group !== undefined && conv !== 'd') || (conv === 'c' && /[0#]/.test(flags)) || Number(m[3]) > 1_048_576));
    if (bad) throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `printf: the specifier at '${format.slice(i, i + 6)}' is not supported; canopy formats %%, %s (no width), %d/%i, %x, %X, %o, %c with flags - 0 + # , and a width, and the length modifiers hh h l ll`);
    i = re.lastIndex;
    if (m[1] === '%') {
      text += '%';
      continue;
    }
    if (text !== '') parts.push({ text });
    text = '';
    const bits = conv === 'c' ? undefined : length === 'hh' ? 8 : length === 'h' ? 16 : undefined;
    parts.push({ arg: next++, conv: conv as 's' | 'd' | 'x' | 'X' | 'o' | 'c', flags, width: m[3] === '' ? 0 : Number(m[3]), ...(group === undefined ? {} : { group }), ...(bits === undefined ? {} : { bits }) });
  }
  if (text !== '') parts.push({ text });
  return parts;
}

/**
 * The parts of a format() (fmt) string canopy formats exactly as DuckDB: `{}` (the next
 * argument), `{n}` (argument n), `{{` and `}}`; and for a BIGINT the specs `:d`, `:x`, `:X`,
 * `:o`, `:b` with a width (zero-filled after a `0`), and DuckDB's thousands separators `:,`
 * `:_` `:'` and `:t<c>` (any character c), alone.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for a format spec, CANOPY_ERR_BAD_QUERY for a lone brace, an index with a leading zero ({01}) or automatic and manual indexing mixed
 */
export function formatParts(format: string): FormatPart[] {
  const parts: FormatPart[] = [];
  let text = '';
  let next = 0;
  let manual: boolean | null = null;
  for (let i = 0; i < format.length; i++) {
    const c = format[i]!;
    if ((c === '{' || c === '}') && format[i + 1] === c) {
      text += c;
      i++;
      continue;
    }
    if (c === '}') throw new CanopyError('CANOPY_ERR_BAD_QUERY', "format: unmatched '}' in the format string (write '}}')");
    if (c !== '{') {
      text += c;
      continue;
    }
    const m = /^\{(\d*)(?::(?:([,_'])|t([^{}])|(0?)([1-9]\d{0,6})?([dxXob])))?\}/.exec(format.slice(i));
    // fmt reads an index with a leading zero ({00}, {01}) as an invalid format string.
    if (m !== null && /^0\d/.test(m[1]!)) throw new CanopyError('CANOPY_ERR_BAD_QUERY', `format: invalid format string at '${m[0]}' (an argument index has no leading zero)`);
    if (m === null || Number(m[5] ?? 0) > 1_048_576) throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `format: '${format.slice(i, i + 8)}' is not supported; canopy formats {}, {n}, {{, }}, and for integers {:d} {:x} {:X} {:o} {:b} (with a width) and {:,} {:_} {:'} {:t<c>}`);
    const isManual = m[1] !== '';
    if (manual !== null && manual !== isManual) throw new CanopyError('CANOPY_ERR_BAD_QUERY', 'format: cannot switch between automatic ({}) and manual ({0}) argument indexing');
    manual = isManual;
    if (text !== '') parts.push({ text });
    text = '';
    const group = m[2] ?? m[3];
    const arg = isManual ? Number(m[1]) : next++;
    if (group !== undefined) parts.push({ arg, conv: 'd', flags: '', width: 0, group, signed: true });
    else if (m[6] !== undefined) parts.push({ arg, conv: m[6] as 'd' | 'x' | 'X' | 'o' | 'b', flags: m[4] ?? '', width: m[5] === undefined ? 0 : Number(m[5]), signed: true });
    else parts.push({ arg, conv: 's', flags: '', width: 0 });
    i += m[0].length - 1;
  }
  if (text !== '') parts.push({ text });
  return parts;
}

const FORMATS = new Map<string, FormatPart[]>();

/** `v` (a string, boolean or BIGINT) converted as one part directs. */
function formatValue(v: Scalar, p: Extract<FormatPart, { arg: number }>): string {
  if (p.conv === 's') return String(v);
  const raw = v as bigint;
  // fmt converts to the length modifier's type first: signed for d, unsigned for x/X/o.
  const n = p.bits === undefined ? raw : p.conv === 'd' ? BigInt.asIntN(p.bits, raw) : BigInt.asUintN(p.bits, raw);
  let digits: string;
  let sign = '';
  if (p.conv === 'c') {
    // One byte, as fmt's %c writes it: past 127 it is no UTF-8, which DuckDB refuses.
    const byte = Number(BigInt.asUintN(8, n));
    if (byte > 127) throw new ValueError(`printf: %c of ${n} writes the byte ${byte}, which is not UTF-8 (DuckDB refuses it); use chr(...) for a code point`);
    digits = String.fromCharCode(byte);
  } else if (p.conv === 'd' || p.signed === true) {
    digits = (n < 0n ? -n : n).toString(p.conv === 'd' ? 10 : p.conv === 'o' ? 8 : p.conv === 'b' ? 2 : 16);
    if (p.conv === 'X') digits = digits.toUpperCase();
    const group = p.group;
    if (group !== undefined) digits = digits.replace(/\B(?=(\d{3})+$)/g, () => group);
    // fmt's printf: of '+' and ' ' the later flag wins ('%+ d' writes ' 5', '% +d' '+5').
    sign = n < 0n ? '-' : p.flags.lastIndexOf('+') > p.flags.lastIndexOf(' ') ? '+' : p.flags.includes(' ') ? ' ' : '';
  } else {
    digits = BigInt.asUintN(64, n).toString(p.conv === 'o' ? 8 : 16);
    if (p.conv === 'X') digits = digits.toUpperCase();
    // The alternate form: a prefix for a nonzero value, before any zero-fill (C's and fmt's).
    if (p.flags.includes('#') && n !== 0n) sign = p.conv === 'x' ? '0x' : p.conv === 'X' ? '0X' : '0';
  }
  const pad = Math.max(0, p.width - sign.length - digits.length);
  // fmt's printf right-justifies a %c whatever its flags ('%-3c' of 99 is '  c').
  if (p.flags.includes('-') && p.conv !== 'c') return sign + digits + ' '.repeat(pad);
  return p.flags.includes('0') ? sign + '0'.repeat(pad) + digits : ' '.repeat(pad) + sign + digits;
}

/** printf / format over non-NULL arguments: `args[0]` the format, the rest the values. */
function formatCall(fn: 'printf' | 'format', args: readonly Scalar[]): string {
  const key = `${fn}:${args[0] as string}`;
  let parts = FORMATS.get(key);
  if (parts === undefined) {
    parts = fn === 'printf' ? printfParts(args[0] as string) : formatParts(args[0] as string);
    if (FORMATS.size > 1000) FORMATS.clear();
    FORMATS.set(key, parts);
  }
  let out = '';
  for (const p of parts) out += 'text' in p ? p.text : formatValue(args[p.arg + 1]!, p);
  return out;
}

/**
 * `x << by` over BIGINT (`bits` 64) or HUGEINT (128) as DuckDB computes it
 * (BitwiseShiftLeftOperator): x must not be negative, `by` not negative; a shift of `bits` or
 * more is 0 for x = 0; a result past the type is refused.
 * @throws ValueError where DuckDB raises an error for the values
 */
function shiftLeft(x: bigint, by: bigint, bits: bigint): bigint {
  if (x < 0n) throw new ValueError(`Cannot left-shift negative number ${x}`);
  if (by < 0n) throw new ValueError(`Cannot left-shift by negative number ${by}`);
  if (by >= bits) {
    if (x === 0n) return 0n;
    throw new ValueError(`Left-shift value ${by} is out of range`);
  }
  if (by === 0n) return x;
  if (x >= 1n << (bits - 1n - by)) throw new ValueError(`Overflow in left shift (${x} << ${by})`);
  return x << by;
}

/**
 * The functions of this module over non-NULL arguments; undefined for a function it does not
 * define. `bits` of bit_count is its optional second argument (32 for an INTEGER literal).
 * @throws CanopyError CANOPY_ERR_OUT_OF_RANGE where DuckDB raises an error for the values
 */
export function callMore(fn: ScalarFn, args: readonly Scalar[]): Scalar | undefined {
  const a0 = args[0]!;
  const x = (): number => num(a0);
  switch (fn) {
    case 'sin':
    case 'cos':
    case 'tan': {
      const v = x();
      finiteInput(v);
      return fn === 'sin' ? Math.sin(v) : fn === 'cos' ? Math.cos(v) : Math.tan(v);
    }
    case 'cot': {
      const v = x();
      finiteInput(v);
      if (v === 0) refuse(`input value ${v.toFixed(6)} is out of range for numeric function cotangent`);
      return 1 / Math.tan(v);
    }
    case 'asin':
    case 'acos': {
      const v = x();
      finiteInput(v);
      unitDomain(v, fn.toUpperCase());
      return fn === 'asin' ? Math.asin(v) : Math.acos(v);
    }
    case 'atanh': {
      const v = x();
      unitDomain(v, 'ATANH');
      // DuckDB 1.5 gives +inf at both ends (atanh(-1) too).
      return v === 1 || v === -1 ? Infinity : Math.atanh(v);
    }
    case 'atan':
      return Math.atan(x());
    case 'atan2':
      return Math.atan2(x(), num(args[1]!));
    case 'sinh':
      return Math.sinh(x());
    case 'cosh':
      return Math.cosh(x());
    case 'tanh':
      return Math.tanh(x());
    case 'asinh':
      return Math.asinh(x());
    case 'acosh':
      return Math.acosh(x());
    case 'degrees':
      return x() * (180 / Math.PI);
    case 'radians':
      return x() * (Math.PI / 180);
    case 'cbrt':
      return Math.cbrt(x());
    case 'even':
      return even(x());
    case 'fdiv':
      return Math.floor(x() / num(args[1]!));
    case 'fmod': {
      // DuckDB's macro: x - y * floor(x / y) (not C's fmod).
      const v = x();
      const y = num(args[1]!);
      return v - y * Math.floor(v / y);
    }
    case 'nextafter':
      return nextAfter(x(), num(args[1]!));
    case 'log_base': {
      const divisor = log10Checked(x());
      if (divisor === 0) refuse('division by zero in based logarithm');
      return log10Checked(num(args[1]!)) / divisor;
    }
    case 'gcd':
      return gcdInt(a0 as bigint, args[1] as bigint);
    case 'lcm':
      return lcmInt(a0 as bigint, args[1] as bigint);
    case 'xor':
      return (a0 as bigint) ^ (args[1] as bigint);
    case 'bitwise_and':
      return (a0 as bigint) & (args[1] as bigint);
    case 'bitwise_or':
      return (a0 as bigint) | (args[1] as bigint);
    case 'bitwise_not':
      return ~(a0 as bigint);
    case 'shift_left':
      // A third argument is the width: 128 for HUGEINT (BIGINT's 64 otherwise).
      return shiftLeft(a0 as bigint, args[1] as bigint, args.length > 2 ? (args[2] as bigint) : 64n);
    case 'shift_right': {
      // DuckDB: a shift outside [0, width) is 0; otherwise arithmetic (-9 >> 2 is -3).
      const by = args[1] as bigint;
      return by < 0n || by >= (args.length > 2 ? (args[2] as bigint) : 64n) ? 0n : (a0 as bigint) >> by;
    }
    case 'factorial':
      return factorial(a0 as bigint);
    case 'bit_count':
      return bitCount(a0 as bigint, args.length > 1 ? Number(args[1]) : 64);
    case 'split_part':
      return splitPart(a0 as string, args[1] as string, args[2] as bigint);
    case 'translate':
      return translate(a0 as string, args[1] as string, args[2] as string);
    case 'ascii':
    case 'unicode': {
      const c = (a0 as string).codePointAt(0);
      return c === undefined ? (fn === 'ascii' ? 0n : -1n) : BigInt(c);
    }
    case 'chr':
      return chr(a0 as bigint);
    case 'bit_length':
      return BigInt(bytesOf(a0 as string).length * 8);
    case 'strlen':
      return BigInt(bytesOf(a0 as string).length);
    case 'levenshtein': {
      const [a, b] = [bytesOf(a0 as string), bytesOf(args[1] as string)];
      checkDistanceWork(fn, a.length, b.length);
      return BigInt(levenshtein(a, b));
    }
    case 'damerau_levenshtein': {
      const [a, b] = [bytesOf(a0 as string), bytesOf(args[1] as string)];
      checkDistanceWork(fn, a.length + 2, b.length + 2, MAX_DAMERAU_CELLS);
      return BigInt(damerauLevenshtein(a, b));
    }
    case 'hamming':
      return BigInt(hamming(bytesOf(a0 as string), bytesOf(args[1] as string)));
    case 'jaccard':
      return jaccard(bytesOf(a0 as string), bytesOf(args[1] as string));
    case 'jaro_similarity':
    case 'jaro_winkler_similarity': {
      const [a, b] = [bytesOf(a0 as string), bytesOf(args[1] as string)];
      checkDistanceWork(fn, a.length, b.length);
      const sim = (fn === 'jaro_similarity' ? jaro : jaroWinkler)(a, b);
      // rapidfuzz's score_cutoff (the optional third argument): 0 below it.
      return args.length > 2 && !(sim >= num(args[2]!)) ? 0 : sim;
    }
    case 'md5':
    case 'sha1':
    case 'sha256':
      return createHash(fn).update(a0 as string, 'utf8').digest('hex');
    case 'hex':
      return typeof a0 === 'bigint' ? hexInt(a0) : Array.from(bytesOf(a0 as string), (b) => b.toString(16).toUpperCase().padStart(2, '0')).join('');
    case 'strip_accents':
      return stripAccents(a0 as string);
    case 'url_encode':
      return urlEncode(a0 as string);
    case 'url_decode':
      return urlDecode(a0 as string);
    case 'printf':
    case 'format':
      return formatCall(fn, args);
    case 'regexp_escape':
      return regexpEscape(a0 as string);
    case 'to_base':
      return toBase(a0 as bigint, args[1] as bigint, args.length > 2 ? (args[2] as bigint) : 0n);
    case 'format_bytes':
    case 'format_bytes_decimal':
      return formatBytes(a0 as bigint, fn === 'format_bytes' ? 1024n : 1000n);
    case 'regexp_replace':
      return regexpReplace(a0 as string, args[1] as string, args[2] as string, args.length > 3 ? (args[3] as string) : '');
    case 'regexp_extract':
      return regexpExtract(a0 as string, args[1] as string, args.length > 2 ? Number(args[2]) : 0, args.length > 3 ? (args[3] as string) : '');
    default:
      return callExtra(fn, args);
  }
}
