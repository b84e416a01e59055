/**
 * What the long-running commands (`npm start`, `serve`) share: the API token from the
 * environment, stopping on SIGINT/SIGTERM, and a failed start reported as one line, exit 1.
 */
import { readFileSync } from 'node:fs';
import { CanopyError, isCanopyError } from '../merge/index.ts';

/**
 * A secret from the environment: the file `<name>_FILE` names (docker/compose secrets,
 * Kubernetes Secret volumes; surrounding whitespace trimmed), else `<name>` itself; undefined
 * when neither is set or the variable is empty.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST when `<name>_FILE` is set but the file cannot be
 *   read or is empty: a secret that was meant to be there must never silently be absent.
 */
export function secretFromEnv(name: string): string | undefined {
  const file = process.env[`${name}_FILE`];
  if (file !== undefined && file !== '') {
    let text: string;
    try {
      text = readFileSync(file, 'utf8').trim();
    } catch (e) {
      throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${name}_FILE names ${file}, which cannot be read (${(e as NodeJS.ErrnoException).code ?? (e as Error).message})`);
    }
    if (text === '') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${name}_FILE names ${file}, which is empty`);
    return text;
  }
  const t = process.env[name];
  return t === undefined || t === '' ? undefined : t;
}

/** `CANOPY_API_TOKEN` (or the file `CANOPY_API_TOKEN_FILE` names), undefined when unset or empty. */
export function apiTokenFromEnv(): string | undefined {
  return secretFromEnv('CANOPY_API_TOKEN');
}

/** Calls `close` once on SIGINT or SIGTERM, then exits 0. */
export function stopOnSignals(close: () => Promise<void>, before?: () => void): void {
  const stop = (): void => {
    before?.();
    void close().then(() => process.exit(0));
  };
  process.once('SIGINT', stop);
  process.once('SIGTERM', stop);
}

/** Runs `main`; a failure prints `canopy: CODE: message` (or the error) and exits 1. */
export function runService(main: () => Promise<void>): void {
  main().catch((e: unknown) => {
    if (isCanopyError(e)) console.error(`canopy: ${e.code}: ${e.message}`);
    else console.error('canopy: failed to start:', e instanceof Error ? e.message : e);
    process.exit(1);
  });
}
