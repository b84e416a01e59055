/**
 * The two sketch kinds on their own: xxHash64 against its reference vectors, the HLL
 * distinct-count state (exact set, then sparse and dense HyperLogLog) and the DDSketch
 * quantile state. Merge laws on random data and random shard splits (including sets that
 * cross the promotion limit), strict decoding, HLL accuracy over 1,000 trials, and
 * DDSketch intervals that always hold DuckDB's quantile_disc.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  HLL_EXACT_LIMIT,
  HLL_REGISTERS,
  HLL_RELATIVE_STDERR,
  QuantileAccumulator,
  hashDistinct,
  hashInt,
  hllEstimate,
  hllFromSet,
  quantileEstimate,
  quantileIndex,
  registerAdd,
  registersEstimate,
  resolveKind,
  xxh64Bytes,
  xxh64Word,
  type ColumnType,
  type DistinctValue,
  type HllState,
  type QuantileState,
  type StateKind,
} from '../src/merge/index.ts';
import { seededRandom } from '../src/leaf/index.ts';

/** A small deterministic PRNG (mulberry32, shared with fault injection), so that failures reproduce. */
const rng = seededRandom;

const hex = (out: Uint32Array): string => out[0]!.toString(16).padStart(8, '0') + out[1]!.toString(16).padStart(8, '0');

/** xxHash64 with BigInt, straight from the specification: the reference for the 32-bit version. */
function xxh64Reference(b: Uint8Array): bigint {
  const M = (1n << 64n) - 1n;
  const P1 = 0x9e3779b185ebca87n;
  const P2 = 0xc2b2ae3d27d4eb4fn;
  const P3 = 0x165667b19e3779f9n;
  const P4 = 0x85ebca77c2b2ae63n;
  const P5 = 0x27d4eb2f165667c5n;
  const rotl = (x: bigint, r: bigint): bigint => ((x << r) | (x >> (64n - r))) & M;
  const round = (acc: bigint, lane: bigint): bigint => (rotl((acc + lane * P2) & M, 31n) * P1) & M;
  const lane = (i: number): bigint => new DataView(b.buffer, b.byteOffset).getBigUint64(i, true);
  let i = 0;
  let h: bigint;
  if (b.length >= 32) {
    const v = [(P1 + P2) & M, P2, 0n, (0n - P1) & M];
    for (; i + 32 <= b.length; i += 32) for (let k = 0; k < 4; k++) v[k] = round(v[k]!, lane(i + 8 * k));
    h = (rotl(v[0]!, 1n) + rotl(v[1]!, 7n) + rotl(v[2]!, 12n) + rotl(v[3]!, 18n)) & M;
    for (const x of v) h = (((h ^ round(0n, x)) * P1) & M) + P4 & M;
  } else h = P5;
  h = (h + BigInt(b.length)) & M;
  for (; i + 8 <= b.length; i += 8) h = ((rotl(h ^ round(0n, lane(i)), 27n) * P1) & M) + P4 & M;
  if (i + 4 <= b.length) {
    h = ((rotl(h ^ ((BigInt(new DataView(b.buffer, b.byteOffset).getUint32(i, true)) * P1) & M), 23n) * P2) & M) + P3 & M;
    i += 4;
  }
  for (; i < b.length; i++) h = (rotl(h ^ ((BigInt(b[i]!) * P5) & M), 11n) * P1) & M;
  h ^= h >> 33n;
  h = (h * P2) & M;
  h ^= h >> 29n;
  h = (h * P3) & M;
  h ^= h >> 32n;
  return h;
}

describe('xxHash64', () => {
  const utf8 = (s: string): Uint8Array => new TextEncoder().encode(s);
  const le = (bytes: number[]): Uint8Array => Uint8Array.from(bytes);

  it.each([
    // Reference digests from `xxhsum -H1` (xxHash 0.8.1).
    [utf8(''), 'ef46db3751d8e999'],
    [utf8('a'), 'd24ec4f1a98c6e5b'],
    [utf8('abc'), '44bc2cf5ad770999'],
    [utf8('abcde'), '07e3670c0c8dc7eb'],
    [utf8('abcdefgh'), '3ad351775b4634b7'],
    [utf8('abcdefghijklmnopqrstuvwxyz012345'), 'bf2cd639b4143b80'],
    [utf8('0123456789abcdefghijklmnopqrstuvwxyz'), '69196c1b3af0bff9'],
    [utf8('héllo wörld, this is a longer string of more than 32 bytes!'), '757d46107c9763e0'],
    [le([1, 0, 0, 0, 0, 0, 0, 0]), '9f29cb17a2a49995'],
    [le([255, 255, 255, 255, 255, 255, 255, 255]), '85d136adb773c6c9'],
    [le([0, 0, 0, 0, 0, 0, 0xf0, 0x3f]), '949522f153a1a395'],
  ])('matches xxhsum on %s', (bytes, digest) => {
    const out = new Uint32Array(2);
    xxh64Bytes(bytes, out);
    expect(hex(out)).toBe(digest);
    expect(xxh64Reference(bytes).toString(16).padStart(16, '0')).toBe(digest);
  });

  it('the 8-byte word path, int64 and double encodings agree with hashing their bytes', () => {
    const out = new Uint32Array(2);
    hashInt(1, out);
    expect(hex(out)).toBe('9f29cb17a2a49995');
    hashInt(-1, out);
    expect(hex(out)).toBe('85d136adb773c6c9');
    hashDistinct('float64', 1, out);
    expect(hex(out)).toBe('949522f153a1a395');
    hashDistinct('int64', -1n, out);
    expect(hex(out)).toBe('85d136adb773c6c9');
    const nan = new Uint32Array(2);
    hashDistinct('float64', NaN, nan);
    hashDistinct('float64', -NaN, out);
    expect(hex(out)).toBe(hex(nan));
  });

  it('agrees with the BigInt reference on random bytes of every length and on random words', () => {
    fc.assert(
      fc.property(fc.uint8Array({ maxLength: 100 }), fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }), (bytes, word) => {
        const out = new Uint32Array(2);
        xxh64Bytes(bytes, out);
        expect(hex(out)).toBe(xxh64Reference(bytes).toString(16).padStart(16, '0'));
        const w = new Uint8Array(8);
        new DataView(w.buffer).setBigInt64(0, word, true);
        hashDistinct('int64', word, out);
        expect(hex(out)).toBe(xxh64Reference(w).toString(16).padStart(16, '0'));
        if (word > -(2n ** 53n) && word < 2n ** 53n) {
          const viaNumber = new Uint32Array(2);
          xxh64Word(0, 0, viaNumber);
          hashInt(Number(word), viaNumber);
          expect(hex(viaNumber)).toBe(hex(out));
        }
      }),
      { numRuns: 300 },
    );
  });
});

// ---------------------------------------------------------------------------------------
// HyperLogLog

const TYPES: readonly ColumnType[] = ['int64', 'float64', 'string', 'timestamp'];

/** `n` distinct canonical values of a type, from a seed (some duplicated across seeds on purpose). */
function values(type: ColumnType, n: number, seed: number, universe = 1e9): DistinctValue[] {
  const r = rng(seed);
  const out: DistinctValue[] = [];
  for (let i = 0; i < n; i++) {
    const k = Math.floor(r() * universe);
    if (type === 'string') out.push(k % 7 === 0 ? '' : `v${k}`);
    else if (type === 'int64') out.push(k % 11 === 0 ? 2n ** 60n + BigInt(k) : k - universe / 2);
    else if (type === 'float64') out.push(k % 13 === 0 ? NaN : (k - universe / 2) / 7);
    else out.push(978307200000 + k);
  }
  return out;
}

function stateOf(kind: StateKind<HllState>, type: ColumnType, vs: readonly DistinctValue[]): HllState {
  // One value at a time through merge, as a leaf would see single rows.
  let s: HllState = null;
  for (let i = 0; i < vs.length; i += 997) s = kind.merge(s, hllFromSet(type, new Set(vs.slice(i, i + 997))));
  return s;
}

describe('HLL distinct-count state: merge laws', () => {
  const sizes = fc.oneof(fc.integer({ min: 0, max: 50 }), fc.integer({ min: 3000, max: 6000 }), fc.integer({ min: 6000, max: 30_000 }));

  it('per-shard merge == the state of all values; idempotent, commutative, associative, empty is identity', () => {
    fc.assert(
      fc.property(fc.constantFrom(...TYPES), sizes, fc.integer(), fc.array(fc.nat(1000), { minLength: 2, maxLength: 2 }), (type, n, seed, cuts) => {
        const kind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, type) as StateKind<HllState>;
        const vs = values(type, n, seed, n < 100 ? 40 : 1e9);
        const [c1, c2] = cuts.map((c) => Math.floor((c / 1000) * vs.length)).sort((a, b) => a - b) as [number, number];
        // Overlapping shards: values may repeat across them.
        const a = hllFromSet(type, new Set(vs.slice(0, c2)));
        const b = hllFromSet(type, new Set(vs.slice(c1, vs.length)));
        const c = hllFromSet(type, new Set(vs.slice(Math.floor(c1 / 2), c1 + 1)));
        const whole = hllFromSet(type, new Set(vs));
        const abc = kind.merge(kind.merge(a, b), c);
        expect(kind.equals(abc, whole)).toBe(true);
        expect(kind.equals(kind.merge(a, kind.merge(b, c)), abc)).toBe(true);
        expect(kind.equals(kind.merge(b, a), kind.merge(a, b))).toBe(true);
        expect(kind.equals(kind.merge(a, a), a)).toBe(true);
        expect(kind.equals(kind.merge(abc, c), abc)).toBe(true);
        expect(kind.equals(kind.merge(a, kind.empty()), a)).toBe(true);
        expect(kind.equals(kind.merge(kind.empty(), a), a)).toBe(true);
        expect(kind.equals(stateOf(kind, type, vs), whole)).toBe(true);
        // The form follows the number of distinct values (NaN counts once; sets by SameValueZero).
        const distinct = new Set(vs).size;
        if (distinct === 0) expect(whole).toBe(null);
        else if (distinct <= HLL_EXACT_LIMIT) {
          expect(whole?.t).toBe('set');
          expect(kind.finalise(whole)).toBe(BigInt(distinct));
        } else expect(['sparse', 'dense']).toContain(whole?.t);
        // The wire form decodes to an equal state.
        const enc = kind.encode(abc);
        expect(kind.equals(kind.decode(enc), abc)).toBe(true);
      }),
      { numRuns: 60 },
    );
  });

  it('does not mutate its inputs', () => {
    const kind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'int64') as StateKind<HllState>;
    const a = hllFromSet('int64', new Set(values('int64', 4000, 1)));
    const b = hllFromSet('int64', new Set(values('int64', 4000, 2)));
    const c = hllFromSet('int64', new Set(values('int64', 20_000, 3)));
    const before = [a, b, c].map((s) => kind.encode(s));
    kind.merge(a, b);
    kind.merge(c, a);
    kind.merge(b, c);
    expect([a, b, c].map((s) => kind.encode(s))).toEqual(before);
  });

  it('passes through sparse and then dense registers as values are added', () => {
    const kind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'string') as StateKind<HllState>;
    const forms = [1, 4096, 4097, 4500, 6000, 100_000].map((n) => hllFromSet('string', new Set(values('string', n * 3, 9).slice(0, n).map((v, i) => `${String(v)}#${i}`))));
    expect(forms.map((s) => s?.t)).toEqual(['set', 'set', 'sparse', 'sparse', 'dense', 'dense']);
    expect(kind.finalise(forms[1]!)).toBe(4096n);
    for (const s of forms.slice(2)) expect(kind.equals(kind.decode(kind.encode(s)), s)).toBe(true);
  });

  it('NULL is no value, the empty string is one; one value counts 1, nothing counts 0', () => {
    const kind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'string') as StateKind<HllState>;
    expect(kind.finalise(kind.empty())).toBe(0n);
    expect(kind.finalise(hllFromSet('string', new Set([''])))).toBe(1n);
    expect(kind.finalise(hllFromSet('string', new Set([])))).toBe(0n);
    const f = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'float64') as StateKind<HllState>;
    expect(f.finalise(f.merge(hllFromSet('float64', new Set([0])), hllFromSet('float64', new Set([NaN]))))).toBe(2n);
  });

  it('a set of strings encodes to the UTF-8 bytes of each value (ASCII written char by char) and decodes back, ASCII or not, short or long', () => {
    const kind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'string') as StateKind<HllState>;
    const str = fc.oneof(fc.string({ maxLength: 8 }), fc.string({ unit: 'grapheme', maxLength: 6 }), fc.constantFrom('', 'ORD', 'é', '日本語', '🙂', 'x'.repeat(70), 'a\u007f', '\u0080'));
    fc.assert(
      fc.property(fc.uniqueArray(str, { minLength: 1, maxLength: 30 }), (vs) => {
        const st = hllFromSet('string', new Set(vs));
        const enc = kind.encode(st) as Uint8Array;
        // The layout: tag, count, then per value its byte length and UTF-8 bytes.
        const te = new TextEncoder();
        const parts = [...(st as unknown as { values: Set<string> }).values].map((v) => te.encode(v));
        const want = new Uint8Array(5 + parts.reduce((n, b) => n + 4 + b.length, 0));
        const dv = new DataView(want.buffer);
        want[0] = 0x53;
        dv.setUint32(1, parts.length, true);
        let at = 5;
        for (const b of parts) {
          dv.setUint32(at, b.length, true);
          want.set(b, at + 4);
          at += 4 + b.length;
        }
        expect(Array.from(enc)).toEqual(Array.from(want));
        const back = kind.decode(enc);
        expect(kind.equals(back, st)).toBe(true);
        expect([...(back as unknown as { values: Set<string> }).values].sort()).toEqual([...new Set(vs)].sort());
      }),
      { numRuns: 300 },
    );
  });

  it('decoding is strict: a garbled state throws', () => {
    const kind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'int64') as StateKind<HllState>;
    const set = kind.encode(hllFromSet('int64', new Set([1, 2, 3]))) as Uint8Array;
    const sparse = kind.encode(hllFromSet('int64', new Set(values('int64', 4500, 4)))) as Uint8Array;
    expect(String.fromCharCode(set[0]!, sparse[0]!)).toBe('SP');
    const dense = kind.encode(hllFromSet('int64', new Set(values('int64', 50_000, 5)))) as Uint8Array;
    const bad: unknown[] = [
      'abc',
      42,
      new Uint8Array([]),
      set.slice(0, set.length - 1),
      Uint8Array.from([...set, 0]),
      Uint8Array.from([0x53, 2, 0, 0, 0, ...set.slice(5, 13), ...set.slice(5, 13)]), // repeated value
      Uint8Array.from([0x58, ...set.slice(1)]),
      Uint8Array.from([sparse[0]!, 12, ...sparse.slice(2)]), // precision 12
      sparse.slice(0, sparse.length - 2),
      Uint8Array.from([...sparse.slice(0, 6), ...sparse.slice(9, 12), ...sparse.slice(6, 9), ...sparse.slice(12)]), // unsorted
      dense.slice(0, dense.length - 1),
      Uint8Array.from([...dense.slice(0, 2), 60, ...dense.slice(3)]), // register value 60 > 51
      Uint8Array.from([0x44, 14, ...new Uint8Array(HLL_REGISTERS).fill(0).map((_, i) => (i < 10 ? 1 : 0))]), // dense but few set
    ];
    bad.forEach((b, i) => expect(() => kind.decode(b), `case ${i}`).toThrow());
    expect(kind.decode(null)).toBe(null);
    const s = new TextEncoder().encode('ab');
    const strKind = resolveKind({ kind: 'hll', arg: { kind: 'col', name: 'x' } }, 'string') as StateKind<HllState>;
    expect(() => strKind.decode(Uint8Array.from([0x53, 1, 0, 0, 0, 2, 0, 0, 0, 0xc3, 0x28]))).toThrow(); // invalid UTF-8
    expect(strKind.finalise(strKind.decode(Uint8Array.from([0x53, 1, 0, 0, 0, 2, 0, 0, 0, ...s])))).toBe(1n);
  });
});

describe('HLL accuracy', () => {
  it('over 1,000 trials with cardinalities spread over 1..10^6, at least 98% of estimates lie in their 99% interval', () => {
    const r = rng(20130318);
    const out = new Uint32Array(2);
    // Local aliases: vitest's module transform turns imported bindings into getters, which
    // costs more than the hash itself in a loop of 72 million calls.
    const hash = hashInt;
    const insert = registerAdd;
    let inside = 0;
    let sketchTrials = 0;
    let sketchInside = 0;
    let rawInside = 0;
    const trials = 1000;
    for (let t = 0; t < trials; t++) {
      // Log-uniform over [1, 10^6]: every order of magnitude gets the same number of trials.
      const n = Math.max(1, Math.round(10 ** (6 * r())));
      const base = Math.floor(r() * 2 ** 40);
      const stride = 2 * Math.floor(r() * 2048) + 1;
      const regs = new Uint8Array(HLL_REGISTERS);
      for (let i = 0; i < n; i++) {
        hash(base + i * stride, out);
        insert(regs, out[0]!, out[1]!);
      }
      // The state the kind keeps: the exact set up to the limit, else the sketch.
      const state: HllState = n <= HLL_EXACT_LIMIT ? { t: 'set', values: new Set(Array.from({ length: n }, (_, i) => base + i * stride)) } : { t: 'dense', registers: regs };
      const e = hllEstimate(state);
      if (e.lo <= n && n <= e.hi) inside++;
      if (!e.exact) {
        sketchTrials++;
        if (e.lo <= n && n <= e.hi) sketchInside++;
        expect(e.stderr).toBeCloseTo(HLL_RELATIVE_STDERR * registersEstimate(regs), 6);
      }
      // The raw estimator, also where the kind would still hold the exact set.
      const raw = registersEstimate(regs);
      if (Math.abs(raw - n) <= 2.576 * HLL_RELATIVE_STDERR * raw) rawInside++;
    }
    expect(inside / trials).toBeGreaterThanOrEqual(0.98);
    expect(sketchTrials).toBeGreaterThan(300);
    expect(sketchInside / sketchTrials).toBeGreaterThanOrEqual(0.98);
    expect(rawInside / trials).toBeGreaterThanOrEqual(0.98);
  });
});

// ---------------------------------------------------------------------------------------
// DDSketch

type QType = 'int64' | 'float64' | 'timestamp';

/** DuckDB's sort order for doubles: -Infinity, finite, +Infinity, NaN. */
function duckOrder(a: number, b: number): number {
  if (Number.isNaN(a) || Number.isNaN(b)) return Number.isNaN(a) ? (Number.isNaN(b) ? 0 : 1) : -1;
  return a - b || 0;
}

function quantileState(type: QType, xs: readonly number[]): QuantileState | null {
  const acc = new QuantileAccumulator(type);
  for (const x of xs) acc.add(x);
  return acc.state();
}

const numbersOf = (type: QType): fc.Arbitrary<number[]> =>
  type === 'int64'
    ? fc.array(fc.oneof(fc.integer({ min: -1000, max: 1000 }), fc.integer({ min: -(2 ** 40), max: 2 ** 40 }), fc.constant(0)), { maxLength: 200 })
    : type === 'timestamp'
      ? fc.array(fc.integer({ min: 0, max: 2 ** 42 }), { maxLength: 200 })
      : fc.array(fc.oneof({ weight: 10, arbitrary: fc.double({ noNaN: true, noDefaultInfinity: true, min: -1e12, max: 1e12 }) }, { weight: 1, arbitrary: fc.constantFrom(0, -0, NaN, Infinity, -Infinity, 5e-324, -1e300, 1e300) }), { maxLength: 200 });

describe('DDSketch quantile state', () => {
  it('quantileIndex is quantile_disc\'s ceil(q·n) - 1 for decimal q', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 1000 }), fc.integer({ min: 1, max: 10_000_000 }), (k, n) => {
        const exact = Math.max(0, Math.ceil((k * n) / 1000) - 1);
        // Integer arithmetic: ceil(k·n / 1000) without rounding.
        const viaInt = Math.max(0, Math.floor((k * n + 999) / 1000) - 1);
        expect(viaInt).toBe(exact);
        expect(quantileIndex(k / 1000, n)).toBe(viaInt);
      }),
      { numRuns: 2000 },
    );
  });

  it.each(['int64', 'float64', 'timestamp'] as const)('%s: every bounded [lo, hi] holds the true quantile (quantile_disc)', (type) => {
    fc.assert(
      fc.property(numbersOf(type), fc.array(fc.integer({ min: 0, max: 1000 }), { minLength: 1, maxLength: 6 }), (xs, ks) => {
        const sorted = [...xs].sort(duckOrder);
        const s = quantileState(type, xs);
        for (const k of ks) {
          const e = quantileEstimate(s, k / 1000);
          if (xs.length === 0) {
            expect(e).toBe(null);
            continue;
          }
          const truth = sorted[Math.max(0, Math.ceil((k * xs.length) / 1000) - 1)]!;
          expect(e).not.toBe(null);
          if (Number.isNaN(truth)) {
            expect(e!.exact && Number.isNaN(e!.value)).toBe(true);
            continue;
          }
          expect(e!.lo <= truth && truth <= e!.hi, `q=${k / 1000} truth=${truth} got ${JSON.stringify(e)}`).toBe(true);
          expect(e!.lo <= e!.value && e!.value <= e!.hi).toBe(true);
          if (e!.exact) expect(e!.value).toBe(truth === 0 ? 0 : truth);
          const alpha = { int64: 0.01, float64: 0.01, timestamp: 1e-4 }[type];
          if (Number.isFinite(truth) && Math.abs(truth) > 1e-300) expect(Math.abs(e!.value - truth)).toBeLessThanOrEqual(alpha * Math.abs(truth) * (1 + 1e-9));
        }
      }),
      { numRuns: 200 },
    );
  });

  it('merge: per-shard merge == one accumulator; commutative, associative, identity; no input mutated', () => {
    fc.assert(
      fc.property(fc.constantFrom<QType>('int64', 'float64', 'timestamp').chain((t) => fc.tuple(fc.constant(t), numbersOf(t), fc.array(fc.nat(200), { minLength: 2, maxLength: 2 }))), ([type, xs, cuts]) => {
        const kind = resolveKind({ kind: 'ddsketch', arg: { kind: 'col', name: 'x' } }, type) as StateKind<QuantileState | null>;
        const [c1, c2] = cuts.map((c) => Math.min(c, xs.length)).sort((a, b) => a - b) as [number, number];
        const a = quantileState(type, xs.slice(0, c1));
        const b = quantileState(type, xs.slice(c1, c2));
        const c = quantileState(type, xs.slice(c2));
        const before = [a, b, c].map((s) => (s === null ? null : kind.encode(s)));
        const whole = quantileState(type, xs);
        const abc = kind.merge(kind.merge(a, b), c);
        expect(kind.equals(abc, whole)).toBe(true);
        expect(kind.equals(kind.merge(a, kind.merge(b, c)), abc)).toBe(true);
        expect(kind.equals(kind.merge(b, a), kind.merge(a, b))).toBe(true);
        expect(kind.equals(kind.merge(a, kind.empty()), a)).toBe(true);
        expect(kind.equals(kind.decode(kind.encode(abc)), abc)).toBe(true);
        expect([a, b, c].map((s) => (s === null ? null : kind.encode(s)))).toEqual(before);
      }),
      { numRuns: 200 },
    );
  });

  it('merges negative values (the library\'s own merge drops them: DataDog/sketches-js#22)', () => {
    const kind = resolveKind({ kind: 'ddsketch', arg: { kind: 'col', name: 'x' } }, 'float64') as StateKind<QuantileState | null>;
    const merged = kind.merge(quantileState('float64', [-100, -50, -10]), quantileState('float64', [-5, -1, 1, 2]));
    expect(quantileEstimate(merged, 0.25)?.value).toBeCloseTo(-50, -0.5);
    expect(quantileEstimate(merged, 0.5)?.value).toBeCloseTo(-5, 1);
  });

  it('int64 intervals are narrowed to integers: small values come out exact', () => {
    const s = quantileState('int64', [1, 2, 3, 4, 5, 6, 7, 8, 9, 10]);
    for (let k = 1; k <= 10; k++) expect(quantileEstimate(s, k / 10)).toEqual({ value: k, lo: k, hi: k, exact: true });
    const big = quantileEstimate(quantileState('int64', [100, 1000, 10_000]), 0.5)!;
    expect(big.exact).toBe(false);
    expect(big.lo).toBeLessThanOrEqual(1000);
    expect(big.hi).toBeGreaterThanOrEqual(1000);
    expect(Number.isInteger(big.lo) && Number.isInteger(big.hi)).toBe(true);
  });

  it('decoding is strict: a garbled state throws', () => {
    const kind = resolveKind({ kind: 'ddsketch', arg: { kind: 'col', name: 'x' } }, 'float64') as StateKind<QuantileState | null>;
    const good = kind.encode(quantileState('float64', [-3, 0, 1.5, 2, 1000])) as Uint8Array;
    expect(kind.equals(kind.decode(good), quantileState('float64', [-3, 0, 1.5, 2, 1000]))).toBe(true);
    const other = resolveKind({ kind: 'ddsketch', arg: { kind: 'col', name: 'x' } }, 'timestamp') as StateKind<QuantileState | null>;
    const flip = (i: number, v: number): Uint8Array => Uint8Array.from(good, (x, j) => (j === i ? v : x));
    // Bytes 2-9: γ; 10-17: min (-3); 18-25: max (1000).
    const garbled = ['x', 7, good.slice(0, good.length - 1), Uint8Array.from([...good, 0]), flip(0, 0x52), flip(1, 1), flip(5, good[5]! ^ 1), flip(17, 0x40), flip(25, 0x41), flip(16, 0xf8)];
    for (const b of garbled) {
      expect(() => kind.decode(b), String(b)).toThrow();
    }
    expect(() => other.decode(good)).toThrow(/relative accuracy/);
  });

  it('rejects columns that are not int64, float64 or timestamp', () => {
    expect(() => resolveKind({ kind: 'ddsketch', arg: { kind: 'col', name: 'x' } }, 'string')).toThrow(expect.objectContaining({ code: 'CANOPY_ERR_TYPE' }) as Error);
  });
});
