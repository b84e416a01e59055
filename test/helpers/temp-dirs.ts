/**
 * Test helper: a temp dir per test file (made before its tests, removed after them) and a
 * fresh, uniquely numbered folder under it per call.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';

/** Registers the hooks; the returned function makes folder `<name>-<n>` under the file's temp dir (inside tests only). */
export function useTempDirs(prefix: string): (name: string) => string {
  let tmp: string | undefined;
  let seq = 0;
  beforeAll(() => {
    tmp = mkdtempSync(join(tmpdir(), prefix));
  });
  afterAll(() => {
    if (tmp !== undefined) rmSync(tmp, { recursive: true, force: true });
  });
  return (name) => {
    if (tmp === undefined) throw new Error('the temp dir exists only inside tests');
    const d = join(tmp, `${name}-${seq++}`);
    mkdirSync(d, { recursive: true });
    return d;
  };
}
