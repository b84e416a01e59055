/**
 * upper(), lower() and reverse() against DuckDB: case mapping over every Unicode scalar value
 * (one code point at a time, as DuckDB maps them), and reverse() over grapheme clusters.
 */
import { describe, expect, it } from 'vitest';
import { callFn } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';

const duckdb = useDuckDB();

describe('case mapping and reverse equal DuckDB', () => {
  it('upper and lower of every code point alone', async () => {
    // Only code points some mapping changes (DuckDB's or ours) can differ.
    const r = await duckdb().runAndReadAll(
      'SELECT cp::INTEGER AS cp, upper(chr(cp::INTEGER)) AS u, lower(chr(cp::INTEGER)) AS l FROM range(1, 1114112) t(cp) WHERE cp < 55296 OR cp > 57343',
    );
    const wrong: string[] = [];
    for (const [cp, u, l] of r.getRows() as [number, string, string][]) {
      // The client's TextDecoder drops a leading U+FEFF (DuckDB keeps it: length 1).
      if (cp === 0xfeff) continue;
      const ch = String.fromCodePoint(cp);
      const gu = callFn('upper', [ch], 'string');
      const gl = callFn('lower', [ch], 'string');
      if (gu !== u) wrong.push(`upper U+${cp.toString(16)}: ${String(gu)} want ${u}`);
      if (gl !== l) wrong.push(`lower U+${cp.toString(16)}: ${String(gl)} want ${l}`);
    }
    expect(wrong.slice(0, 20)).toEqual([]);
  }, 60_000);

  const STRINGS = ['Straße', 'İstanbul', 'ΟΔΟΣ', 'ǅungla', 'ﬁne ŉ', 'ᾳ ᾀ', 'a\u0301b', '👨‍👩‍👧x', '🇫🇷🇩🇪', 'e\u0301\u0302z', 'ab\r\nc', '😀𝄞', 'ÉCOLE école', '', 'plain ascii'];
  it('upper, lower and reverse of mixed strings', async () => {
    const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;
    const r = await duckdb().runAndReadAll(`SELECT upper(s), lower(s), reverse(s) FROM (VALUES ${STRINGS.map((s) => `(${lit(s)})`).join(', ')}) v(s)`);
    const got = STRINGS.map((s) => ['upper', 'lower', 'reverse'].map((fn) => callFn(fn as 'upper', [s], 'string')));
    expect(got).toEqual(r.getRows());
  });
});
