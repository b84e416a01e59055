/**
 * Exact floating-point summation, so that a SUM over float64 gives the same answer
 * whatever the shard split and arrival order.
 *
 * The state is a non-overlapping expansion of doubles whose exact (infinite-precision)
 * sum equals the exact sum of every value added; finalising rounds it correctly once.
 * Source: J. R. Shewchuk, "Adaptive Precision Floating-Point Arithmetic and Fast Robust
 * Geometric Predicates", Discrete & Computational Geometry 18 (1997); the grow-expansion
 * and final rounding follow CPython's `math.fsum` (msum / lsum recipe by R. Hettinger).
 *
 * Non-finite inputs are kept apart in `special` (IEEE addition over {+Inf, -Inf, NaN}
 * is associative and commutative, so it stays order-independent), and inputs of 2^969 or
 * more in an exact integer (`big`), so no running sum passes the double range: the exact sum
 * of everything is rounded once, Infinity only when it is past the range itself.
 */
export interface FloatSum {
  /** Non-overlapping partials, increasing magnitude. Exact sum of the finite inputs below {@link BIG}. */
  readonly partials: number[];
  /** Sum of non-finite inputs (0 when none). */
  special: number;
  /**
   * Exact sum of the finite inputs of magnitude {@link BIG} or more, in units of 2^917 (an
   * integer: their ulp is at least that), absent when none. Kept apart so that no running sum
   * of the expansion passes the double range: 1e308 + 1e308 - 1e308 is 1e308 in every order.
   */
  big?: bigint;
}

/** Inputs at least this large (in magnitude) add exactly into {@link FloatSum.big}. */
const BIG = 2 ** 969;
/** 2^-917: scales an input of {@link BIG} or more to an exact integer below 2^107. */
const BIG_SCALE = 2 ** -917;

/** An empty exact sum (sums to 0). */
export function fsumEmpty(): FloatSum {
  return { partials: [], special: 0 };
}

/**
 * Adds `x` to `s` in place (leaf side, hot path: no allocation unless the expansion grows).
 */
export function fsumAdd(s: FloatSum, x: number): void {
  if (!Number.isFinite(x)) {
    s.special += x;
    return;
  }
  if (Math.abs(x) >= BIG) {
    s.big = (s.big ?? 0n) + BigInt(x * BIG_SCALE);
    return;
  }
  const p = s.partials;
  let i = 0;
  for (let j = 0; j < p.length; j++) {
    let y = p[j]!;
    if (Math.abs(x) < Math.abs(y)) {
      const t = x;
      x = y;
      y = t;
    }
    const hi = x + y;
    const lo = y - (hi - x);
    if (lo !== 0) p[i++] = lo;
    x = hi;
  }
  p.length = i;
  if (x !== 0 || i === 0) p.push(x);
  if (!Number.isFinite(x)) {
    // Overflow of the finite part (more than 2^54 inputs below BIG): fold into special so the state stays meaningful.
    p.length = 0;
    s.special += x;
  }
}

/** Merges two exact sums into a new one; inputs are not mutated. */
export function fsumMerge(a: FloatSum, b: FloatSum): FloatSum {
  const out: FloatSum = { partials: a.partials.slice(), special: a.special + b.special };
  if (a.big !== undefined || b.big !== undefined) out.big = (a.big ?? 0n) + (b.big ?? 0n);
  for (const x of b.partials) fsumAdd(out, x);
  return out;
}

/** The correctly rounded value of the exact sum. */
export function fsumValue(s: FloatSum): number {
  if (s.special !== 0 || Number.isNaN(s.special)) return s.special;
  if (s.big !== undefined && s.big !== 0n) return roundUnits(s.partials.reduce((t, x) => t + units(x), s.big << 1991n));
  const p = s.partials;
  let n = p.length;
  if (n === 0) return 0;
  let hi = p[--n]!;
  let lo = 0;
  while (n > 0) {
    const x = hi;
    const y = p[--n]!;
    hi = x + y;
    const yr = hi - x;
    lo = y - yr;
    if (lo !== 0) break;
  }
  // Round-half-even correction (CPython fsum): if the remainder is exactly half an ulp
  // and the next partial has the same sign, the rounding went the wrong way.
  if (n > 0 && ((lo < 0 && p[n - 1]! < 0) || (lo > 0 && p[n - 1]! > 0))) {
    const y = lo * 2;
    const x = hi + y;
    const yr = x - hi;
    if (y === yr) hi = x;
  }
  return hi;
}

const f64 = new Float64Array(1);
const u64 = new BigUint64Array(f64.buffer);

/** A finite double as an exact integer multiple of 2^-1074 (the least subnormal). */
function units(x: number): bigint {
  f64[0] = x;
  const bits = u64[0]!;
  const exp = Number((bits >> 52n) & 0x7ffn);
  const frac = bits & 0xfffffffffffffn;
  const m = exp === 0 ? frac : (frac | 0x10000000000000n) << BigInt(exp - 1);
  return bits >> 63n === 1n ? -m : m;
}

/** The double nearest to t·2^-1074, halves to even, ±Infinity past the range (IEEE round to nearest). */
function roundUnits(t: bigint): number {
  if (t === 0n) return 0;
  let a = t < 0n ? -t : t;
  const shift = Math.max(0, a.toString(2).length - 53);
  if (shift > 0) {
    const q = a >> BigInt(shift);
    const rem = a - (q << BigInt(shift));
    const half = 1n << BigInt(shift - 1);
    a = rem > half || (rem === half && (q & 1n) === 1n) ? q + 1n : q;
  }
  // A 54-bit at most integer, scaled by a power of two in steps that stay exact.
  let v = Number(a);
  for (let e = shift - 1074; e !== 0; ) {
    const k = Math.max(-1000, Math.min(1000, e));
    v *= 2 ** k;
    e -= k;
  }
  return t < 0n ? -v : v;
}

/** Encodes an exact sum as text (exact round-trip of every double). */
export function fsumEncode(s: FloatSum): string {
  const parts = s.partials.map((x) => String(x));
  if (s.special !== 0) parts.push(`s${String(s.special)}`);
  // `b0` kept: huge values that cancelled still mark the sum (fsum labels it by them).
  if (s.big !== undefined) parts.push(`b${s.big}`);
  return parts.join(' ');
}

/** Decodes {@link fsumEncode}'s text. Throws `Error` on garbage. */
export function fsumDecode(text: string): FloatSum {
  const s = fsumEmpty();
  if (text === '') return s;
  for (const tok of text.split(' ')) {
    if (tok.startsWith('s')) {
      const v = Number(tok.slice(1));
      if (Number.isFinite(v)) throw new Error(`bad float-sum special '${tok}'`);
      s.special += v;
    } else if (tok.startsWith('b')) {
      if (!/^b(0|-?[1-9]\d*)$/.test(tok)) throw new Error(`bad float-sum big part '${tok}'`);
      s.big = (s.big ?? 0n) + BigInt(tok.slice(1));
    } else {
      const v = Number(tok);
      if (!Number.isFinite(v) || tok === '') throw new Error(`bad float-sum partial '${tok}'`);
      fsumAdd(s, v);
    }
  }
  return s;
}
