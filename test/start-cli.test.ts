/**
 * `npm start` as a newcomer types it: an option it does not know is refused with its code and
 * the usage (as a bad value is), and the curl and psql commands it prints run as printed
 * whatever `--table` names.
 */
import { execFile, execFileSync } from 'node:child_process';
import { describe, expect, it } from 'vitest';
import { shellDoubleQuoted, shellSingleQuoted, sqlTableName } from '../src/cli/examples.ts';
import type { TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/sql/index.ts';

/** Runs src/cli/start.ts with `args`; these fail on their options, before any data is read. */
function start(args: string[]): Promise<{ code: number | null; out: string }> {
  return new Promise((resolve) => {
    execFile(process.execPath, ['--import', 'tsx', 'src/cli/start.ts', ...args], { timeout: 60_000, env: { ...process.env, PORT: '0' } }, (err, stdout, stderr) => {
      resolve({ code: err === null ? 0 : typeof err.code === 'number' ? err.code : null, out: stdout + stderr });
    });
  });
}

describe('npm start options', () => {
  it('refuses an unknown option or a stray argument with CANOPY_ERR_BAD_REQUEST and the usage', async () => {
    const bogus = await start(['--bogus']);
    expect(bogus.code).toBe(1);
    expect(bogus.out).toContain("canopy: CANOPY_ERR_BAD_REQUEST: Unknown option '--bogus'");
    expect(bogus.out).toContain('usage: npm start --');
    const stray = await start(['flights.parquet']);
    expect(stray.code).toBe(1);
    expect(stray.out).toContain("CANOPY_ERR_BAD_REQUEST: Unexpected argument 'flights.parquet'");
    expect(stray.out).toContain('usage: npm start --');
  });
});

describe('the printed examples', () => {
  const table = (name: string): TableSchema => ({ name, columns: [{ name: 'x', type: 'int64' }] });

  it.each([
    ['flights', 'flights'],
    ['Sales', 'Sales'],
    ['sales 2024', '"sales 2024"'],
    ['my-table', '"my-table"'],
    ['order', '"order"'],
    ['group', '"group"'],
    ['2024', '"2024"'],
    ['it\'s', '"it\'s"'],
  ])('names table %s as %s, which plans against it', (name, written) => {
    const t = table(name);
    expect(sqlTableName(t)).toBe(written);
    expect(() => planQuery(`SELECT count(*) FROM ${written}`, new Map([[name, t]]))).not.toThrow();
  });

  it('doubles a quote inside the name, as SQL writes it (canopy refuses such a name: its parser does not read it)', () => {
    expect(sqlTableName(table('a"b'))).toBe('"a""b"');
  });

  it('quotes the SQL for the shell so that it arrives as written', () => {
    for (const s of ['{"sql":"SELECT count(*) FROM flights"}', `{"sql":"SELECT count(*) FROM \\"it's\\""}`, 'SELECT count(*) FROM "a $HOME `b` \\ c"']) {
      expect(execFileSync('/bin/sh', ['-c', `printf %s ${shellSingleQuoted(s)}`]).toString()).toBe(s);
      expect(execFileSync('/bin/sh', ['-c', `printf %s ${shellDoubleQuoted(s)}`]).toString()).toBe(s);
    }
  });
});
