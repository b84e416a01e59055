/**
 * CAST of strings to BIGINT, DOUBLE, BOOLEAN and TIMESTAMP against DuckDB, value by value
 * (src/merge/scalar.ts `castValue`, which leaves call per dictionary entry and the root per
 * row): the same value, or both refuse. DuckDB reads digits grouped by single underscores
 * (`'1_000'`, `'1_0.5'`, `'1e1_0'`) and, for integers, `0x` / `0b` prefixes (`'0x10'` is 16),
 * which canopy refused; it trims only ASCII whitespace around numbers (canopy trimmed U+00A0,
 * U+FEFF and the other Unicode spaces too, and answered `'\u00A012'` as 12), none around
 * booleans (`' true '` does not convert) and only leading whitespace before a timestamp.
 * Property: random strings over digits, signs, points, exponents, underscores, prefixes and
 * every kind of space.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { castValue, type ColumnType, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { answerToJSON } from '../src/root/index.ts';
import { useDuckDB } from './helpers/duck.ts';
import { ask, inProcessRoot } from './helpers/tree.ts';

const duckdb = useDuckDB();

const TARGETS: readonly (readonly [string, ColumnType])[] = [['BIGINT', 'int64'], ['DOUBLE', 'float64'], ['BOOLEAN', 'bool'], ['TIMESTAMP', 'timestamp']];
const lit = (s: string): string => `'${s.replaceAll("'", "''")}'`;

/** DuckDB's cast of `s` as canopy's value (µs for a timestamp), or 'refused'. */
async function duckCast(s: string, type: string): Promise<Scalar | 'refused'> {
  try {
    const v = (await duckdb().runAndReadAll(`SELECT CAST(${lit(s)} AS ${type}) AS v`)).getRows()[0]![0];
    if (typeof v === 'object' && v !== null && 'micros' in v) return Number((v as { micros: bigint }).micros);
    return v as Scalar;
  } catch {
    return 'refused';
  }
}

function canopyCast(s: string, type: ColumnType): Scalar | 'refused' {
  try {
    return castValue(s, type);
  } catch (e) {
    expect((e as { code: string }).code).toBe('CANOPY_ERR_OUT_OF_RANGE');
    return 'refused';
  }
}

const same = (a: Scalar | 'refused', b: Scalar | 'refused'): boolean => (typeof a === 'number' && typeof b === 'number' && Number.isNaN(a) ? Number.isNaN(b) : a === b);

/** The strings (and targets) where canopy's cast differs from DuckDB's. */
async function differences(samples: readonly string[]): Promise<string[]> {
  const out: string[] = [];
  for (const s of samples) {
    for (const [duckType, type] of TARGETS) {
      const want = await duckCast(s, duckType);
      const got = canopyCast(s, type);
      // DuckDB 1.5 reads an unfinished sign or exponent before trailing whitespace as done
      // ('+ ' is the BIGINT 0, '1e\t' is 1, where '+' and '1e' do not convert): not copied.
      if (type === 'int64' && /[+\-eE][ \t\n\v\f\r]+$/.test(s) && got === 'refused') continue;
      // DuckDB's infinite timestamps ('inf'): canopy holds none, and refuses.
      if (type === 'timestamp' && typeof want === 'number' && !Number.isSafeInteger(want) && got === 'refused') continue;
      if (!same(got, want)) out.push(`CAST(${JSON.stringify(s)} AS ${duckType}): DuckDB ${String(want)}, canopy ${String(got)}`);
    }
  }
  return out;
}

const SPACES = [' ', '\t', '\n', '\v', '\f', '\r', '\u00a0', '\ufeff', '\u2000', '\u3000'];
const SAMPLES = [
  '12', ' 12 ', '+5', '-0', '0012', '2.5', '-2.5', '.5', '5.', '1e3', '1.5e1', '1e-1', '9223372036854775807', '9223372036854775808', '-9223372036854775808',
  '1_000', ' 1_000 ', '-1_000', '1__000', '_1', '1_', '1_0.5', '-1_0.5', '1.0_5', '.5_5', '1._5', '1_.5', '1_000.', '1e1_0', '1e+1_0', '1e_1', '1e1_', '1_2_3', '0.000_5e4', '9_223_372_036_854_775_807',
  '0x10', '0X1f', '0xFFFF', '0x0', '0x7fffffffffffffff', '0x8000000000000000', '-0x10', '+0x10', '0x', '0xg', '0x1_0', '0x_10', '0x10_', ' 0x10', '0x10 ', '00x10', '0x1.8',
  '0b101', '0B11', '0b', '0b2', '0b1_0', '0b_1', '-0b1', '0o17',
  '+-1', '-+1', '++1', '+ 1', '+-1.5', '+-1_0', '+-inf', '+.5', '-.5e1', 'nan', 'NaN', '+nan', '-nan', 'nan(1)', 'inf', '+inf', 'INFINITY', 'infinit', '-Infinity', 'true', 'TRUE', 't', 'yes', 'y', '1', 'f', 'no', 'on', ' true', 'true ', ' 1 ',
  '2024-01-01', ' 2024-01-01', '2024-01-01 ', '2024-01-01 10:00', '2024-01-01 10:00 ', '2024-01-01T10:00:00.123456',
  ...SPACES.flatMap((w) => [`${w}12`, `12${w}`, `${w}1.5`, `${w}nan`, `${w}true`, `${w}2024-01-01`, `2024-01-01${w}`, `${w}0x10`]),
];

describe('CAST of a string equals DuckDB (or both refuse)', () => {
  it('signs, points, exponents, underscores, 0x / 0b, every kind of space', async () => {
    expect(await differences(SAMPLES)).toEqual([]);
  }, 60_000);

  it('property: random strings of number parts and spaces', async () => {
    const part = fc.constantFrom('1', '0', '7', '_', '.', 'e', '-', '+', 'x', 'b', 'f', ' ', '\t', '\u00a0', '0x', '0b', 'nan', 'true');
    await fc.assert(
      fc.asyncProperty(fc.array(fc.array(part, { minLength: 1, maxLength: 6 }).map((p) => p.join('')), { minLength: 1, maxLength: 12 }), async (samples) => {
        expect(await differences(samples)).toEqual([]);
      }),
      { numRuns: 40, seed: 16 },
    );
  }, 120_000);

  it('through a tree: a string column cast in WHERE and SELECT', async () => {
    const schema: TableSchema = { name: 't', columns: [{ name: 's', type: 'string' }] };
    const rows = [['0x10'], ['1_000'], [' 7 '], ['0b11']];
    const { root } = inProcessRoot(schema, [rows.slice(0, 2), rows.slice(2)], { fanout: 2 });
    const body = answerToJSON(await ask(root, 'SELECT s, CAST(s AS BIGINT) AS n FROM t WHERE CAST(s AS BIGINT) > 2 ORDER BY n')) as { rows: unknown[][]; label: string };
    expect(body.label).toBe('exact');
    expect(body.rows).toEqual([['0b11', 3], [' 7 ', 7], ['0x10', 16], ['1_000', 1000]]);
    const nbsp = inProcessRoot(schema, [[['\u00a012']]]).root;
    await expect(ask(nbsp, 'SELECT CAST(s AS BIGINT) AS n FROM t')).rejects.toMatchObject({ code: 'CANOPY_ERR_OUT_OF_RANGE' });
  });
});
