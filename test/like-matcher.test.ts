/**
 * [I]LIKE without backtracking (src/merge/like.ts): the greedy piece matcher agrees with a
 * regular-expression reading of the pattern on random short strings (unicode, lone
 * surrogates, escapes), and patterns that made V8's backtracking regex run for minutes
 * (`'%a%a%b'` over a long run of 'a') answer at once, in the matcher and through a tree.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { likeRegex, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

/** The pattern as a backtracking regular expression (the former matcher): the oracle on short strings. */
function oracle(pattern: string, escape: string | null): RegExp {
  let src = '';
  const chars = [...pattern];
  // Each code point by its number: two lone surrogates side by side (an escape between them
  // in the pattern) stay two code points, as the pattern has them, and do not join into one.
  const literal = (c: string): string => `\\u{${c.codePointAt(0)!.toString(16)}}`;
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (escape !== null && c === escape && i + 1 < chars.length) src += literal(chars[++i]!);
    else if (c === '%') src += '[^]*';
    else if (c === '_') src += '[^]';
    else src += literal(c);
  }
  return new RegExp(`^${src}$`, 'u');
}

const alphabet = fc.constantFrom('a', 'b', 'A', 'ß', 'é', '😀', '\uD83D', '\uDE00', '%', '_', '\\', 'x');
const text = fc.array(alphabet, { maxLength: 12 }).map((cs) => cs.join(''));
const pattern = fc.array(fc.constantFrom('a', 'b', '😀', '\uD83D', '\uDE00', '%', '%', '_', '_', '\\', 'x'), { maxLength: 8 }).map((cs) => cs.join(''));

describe('LIKE matcher', () => {
  it('agrees with the regular-expression reading over code points', () => {
    fc.assert(
      fc.property(text, pattern, fc.constantFrom(null, '\\', 'x'), (s, p, escape) => {
        expect(likeRegex(p, false, escape).test(s), `${JSON.stringify(s)} LIKE ${JSON.stringify(p)} ESCAPE ${String(escape)}`).toBe(oracle(p, escape).test(s));
      }),
      { numRuns: 3000 },
    );
  });

  it('patterns with many % over long strings answer in linear time', () => {
    const long = 'a'.repeat(1_000_000);
    const t0 = Date.now();
    expect(likeRegex('%a%a%b', false, null).test(long)).toBe(false);
    expect(likeRegex(`${'%a'.repeat(2000)}%b`, false, null).test(long)).toBe(false);
    expect(likeRegex(`${'%a'.repeat(2000)}%`, false, null).test(long)).toBe(true);
    expect(likeRegex(`%${'A%'.repeat(500)}B`, true, null).test(long)).toBe(false);
    expect(likeRegex('%a_a%a_b%', false, null).test('a'.repeat(100_000))).toBe(false);
    expect(Date.now() - t0).toBeLessThan(5000);
  });

  it('a tree answers LIKE with many % over a 1,000,000-character string', async () => {
    const schema: TableSchema = { name: 't', columns: [{ name: 's', type: 'string' }] };
    const rows: Scalar[][] = [['a'], ['ab'], [null]];
    const { root } = inProcessRoot(schema, [rows.slice(0, 2), rows.slice(2)], { fanout: 2 });
    const t0 = Date.now();
    const a = await ask(root, `SELECT count(*) AS n FROM t WHERE lpad(s, 1000000, 'a') LIKE '${'%a'.repeat(40)}%b'`, { deadline_ms: 20_000 });
    expect(a.label).toBe('exact');
    expect(a.rows).toEqual([[1n]]);
    expect(Date.now() - t0).toBeLessThan(10_000);
  });
});
