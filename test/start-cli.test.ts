/**
 * `npm start` as a newcomer types it: an option it does not know is refused with its code and
 * the usage (as a bad value is).
 */
import { execFile } from 'node:child_process';
import { describe, expect, it } from 'vitest';

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
