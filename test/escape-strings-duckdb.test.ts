/**
 * Escape strings `E'...'` (src/root/sql/lexer.ts, decodeEscapeStrings): read before parsing
 * as standard literals of their values, with PostgreSQL's escapes as DuckDB reads them
 * (`\n \t \b \f \r`, octal and hex bytes, any other character after a backslash as itself,
 * `''` a quote), refused where DuckDB refuses (`\u`, a zero or non-ASCII byte), and offsets
 * kept for the positions of errors after them. Every value against DuckDB's; a property over
 * random bodies of escapes, quotes and text.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { Scalar } from '../src/merge/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const { root } = inProcessRoot({ name: 't', columns: [{ name: 's', type: 'string' }] }, [[['a'], ['b']]]);

/** canopy's value of `lit`, or its error code. */
async function canopy(lit: string): Promise<Scalar | { error: string }> {
  try {
    return (await ask(root, `SELECT ${lit} AS x FROM t LIMIT 1`)).rows[0]![0]!;
  } catch (e) {
    return { error: (e as { code?: string }).code ?? String(e) };
  }
}

describe('escape strings equal DuckDB', () => {
  const duck = useDuckDB();
  /** DuckDB's value of `lit`, or 'error'. */
  const duckValue = async (lit: string): Promise<Scalar | 'error'> => {
    try {
      return (await duck().runAndReadAll(`SELECT ${lit} AS x`)).getRows()[0]![0] as Scalar;
    } catch {
      return 'error';
    }
  };
  const check = async (lit: string): Promise<void> => {
    const want = await duckValue(lit);
    const got = await canopy(lit);
    if (want === 'error') expect(got, lit).toEqual({ error: 'CANOPY_ERR_BAD_QUERY' });
    else expect(got, lit).toBe(want);
  };

  it('the escapes DuckDB reads, and those it refuses', async () => {
    const lits = [
      String.raw`E'a\nb'`, String.raw`E'\t|\r|\b|\f'`, String.raw`E'\x41\x4'`, String.raw`E'\101\7a\1234'`, String.raw`E'\xg'`, String.raw`E'\q\\\''`,
      String.raw`e'x''y'`, String.raw`E''`, String.raw`E'é\tz'`, String.raw`E'\x00'`, String.raw`E'\xff'`, String.raw`E'\xc3\xa9'`, String.raw`E'\0'`,
      String.raw`E'\u00e9'`, String.raw`E'\U0001F600'`, String.raw`E'C:\\dir'`, String.raw`E'\''`, String.raw`E'\200'`,
    ];
    for (const lit of lits) await check(lit);
  });

  it('in expressions and next to standard strings (a backslash there is itself)', async () => {
    const r = await ask(root, String.raw`SELECT E'a\tb' || 'c\n' AS x, length(E'\101\n') AS n, 'C:\' AS p FROM t WHERE s = E'\x61'`);
    expect(r.rows).toEqual([['a\tbc\\n', 2n, 'C:\\']]);
  });

  it('keeps the positions of errors after it', async () => {
    const sql = String.raw`SELECT E'\t\t\t' AS x FROM t WHERE s = = 'a'`;
    const err = await ask(root, sql).then(() => null, (e: unknown) => e as { code: string; position?: { offset: number } });
    expect(err?.code).toBe('CANOPY_ERR_BAD_QUERY');
    expect(err?.position?.offset).toBe(sql.indexOf('= =') + 2);
  });

  it('property: random bodies of escapes, quotes and text', async () => {
    const piece = fc.constantFrom('a', 'Z', ' ', "''", '\\n', '\\t', '\\\\', "\\'", '\\x41', '\\x7', '\\101', '\\7', '\\q', '\\x', 'é', '%', '\\b', '\\r', '\\f', '\\1234');
    await fc.assert(
      fc.asyncProperty(fc.array(piece, { maxLength: 8 }), async (ps) => {
        await check(`E'${ps.join('')}'`);
      }),
      { numRuns: 150 },
    );
  });
});
