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
 * is associative and commutative, so it stays order-independent).
 */
export interface FloatSum {
  /** Non-overlapping partials, increasing magnitude. Exact sum of finite inputs. */
  readonly partials: number[];
  /** Sum of non-finite inputs (0 when none). */
  special: number;
}

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
    // Overflow of the finite part: fold into special so the state stays meaningful.
    p.length = 0;
    s.special += x;
  }
}

/** Merges two exact sums into a new one; inputs are not mutated. */
export function fsumMerge(a: FloatSum, b: FloatSum): FloatSum {
  const out: FloatSum = { partials: a.partials.slice(), special: a.special + b.special };
  for (const x of b.partials) fsumAdd(out, x);
  return out;
}

/** The correctly rounded value of the exact sum. */
export function fsumValue(s: FloatSum): number {
  if (s.special !== 0 || Number.isNaN(s.special)) return s.special;
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

/** Encodes an exact sum as text (exact round-trip of every double). */
export function fsumEncode(s: FloatSum): string {
  const parts = s.partials.map((x) => String(x));
  if (s.special !== 0) parts.push(`s${String(s.special)}`);
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
    } else {
      const v = Number(tok);
      if (!Number.isFinite(v) || tok === '') throw new Error(`bad float-sum partial '${tok}'`);
      fsumAdd(s, v);
    }
  }
  return s;
}
