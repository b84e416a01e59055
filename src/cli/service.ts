/**
 * What the long-running commands (`npm start`, `serve`) share: the API token from the
 * environment, stopping on SIGINT/SIGTERM, and a failed start reported as one line, exit 1.
 */
import { isCanopyError } from '../merge/index.ts';

/** `CANOPY_API_TOKEN`, or undefined when unset or empty (compose passes an empty value). */
export function apiTokenFromEnv(): string | undefined {
  const t = process.env.CANOPY_API_TOKEN;
  return t === undefined || t === '' ? undefined : t;
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
