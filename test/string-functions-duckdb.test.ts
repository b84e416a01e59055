/**
 * String functions with integer arguments against DuckDB, value by value (src/merge/scalar.ts
 * `callFn`, which the leaf calls per dictionary entry and per row): substring with every sign
 * of start and length (a negative length takes the characters before start, as DuckDB's
 * SubstringStartEnd), left/right with negative counts, lpad/rpad with non-BMP fill, strpos.
 * Property: random strings (ASCII, accents, non-BMP, combining marks) and random integers.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { callFn, type Scalar, type ScalarFn } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';

const duckdb = useDuckDB();

const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;
type Call = readonly [fn: ScalarFn, args: readonly Scalar[]];
const sqlOf = ([fn, args]: Call): string => `${fn}(${args.map((a) => (typeof a === 'string' ? lit(a) : String(a))).join(', ')})`;

/** Every call's DuckDB value next to canopy's, in one query; the calls where they differ. */
async function differences(calls: readonly Call[]): Promise<string[]> {
  const r = await duckdb().runAndReadAll(`SELECT ${calls.map((c, k) => `${sqlOf(c)} AS c${k}`).join(', ')}`);
  const want = r.getRows()[0]!;
  const out: string[] = [];
  calls.forEach((c, k) => {
    const got = callFn(c[0], c[1], c[0] === 'strpos' ? 'int64' : 'string');
    const w = typeof want[k] === 'number' ? BigInt(want[k] as number) : want[k];
    if (got !== w) out.push(`${sqlOf(c)}: DuckDB ${JSON.stringify(String(w))}, canopy ${JSON.stringify(String(got))}`);
  });
  return out;
}

const SAMPLES = ['', 'a', 'abcdef', 'é𝄞x', 'a\u0301bc'];
const INTS = [-9, -7, -3, -2, -1, 0, 1, 2, 3, 4, 6, 7, 9];

describe('string functions with integer arguments equal DuckDB', () => {
  it('substring over every sign of start and length (substring("abcdef", 4, -2) is "bc")', async () => {
    const calls: Call[] = [];
    for (const s of SAMPLES) for (const st of INTS) {
      calls.push(['substring', [s, BigInt(st)]]);
      for (const len of INTS) calls.push(['substring', [s, BigInt(st), BigInt(len)]]);
    }
    expect(callFn('substring', ['abcdef', 4n, -2n], 'string')).toBe('bc');
    expect(await differences(calls)).toEqual([]);
  });

  it('left, right, lpad, rpad with negative and past-the-end counts', async () => {
    const calls: Call[] = [];
    for (const s of SAMPLES) for (const n of INTS) {
      calls.push(['left', [s, BigInt(n)]], ['right', [s, BigInt(n)]], ['lpad', [s, BigInt(n), '*']], ['rpad', [s, BigInt(n), '𝄞é']]);
    }
    expect(await differences(calls)).toEqual([]);
  });

  it('property: random strings and integers', async () => {
    const char = fc.constantFrom('a', 'b', 'é', '𝄞', '\u0301', ' ', "'", 'Z', '😀');
    const str = fc.array(char, { maxLength: 8 }).map((cs) => cs.join(''));
    const int = fc.integer({ min: -12, max: 12 });
    const call: fc.Arbitrary<Call> = fc.oneof(
      fc.tuple(str, int, int).map(([s, a, b]): Call => ['substring', [s, BigInt(a), BigInt(b)]]),
      fc.tuple(str, int).map(([s, a]): Call => ['substring', [s, BigInt(a)]]),
      fc.tuple(str, int).map(([s, a]): Call => ['left', [s, BigInt(a)]]),
      fc.tuple(str, int).map(([s, a]): Call => ['right', [s, BigInt(a)]]),
      fc.tuple(str, int, str.filter((f) => f !== '')).map(([s, a, f]): Call => ['lpad', [s, BigInt(a), f]]),
      fc.tuple(str, int, str.filter((f) => f !== '')).map(([s, a, f]): Call => ['rpad', [s, BigInt(a), f]]),
      fc.tuple(str, str).map(([s, t]): Call => ['strpos', [s, t]]),
      fc.tuple(str, str.filter((t) => t !== ''), str).map(([s, t, u]): Call => ['replace', [s, t, u]]),
    );
    await fc.assert(fc.asyncProperty(fc.array(call, { minLength: 1, maxLength: 40 }), async (calls) => {
      expect(await differences(calls)).toEqual([]);
    }), { numRuns: 60 });
  }, 60_000);
});
