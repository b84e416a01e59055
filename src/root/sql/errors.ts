/**
 * How the planner fails: every error is a CanopyError with a code (and a position when there is one).
 */
import { CanopyError, type ErrorCode, type SourcePosition } from '../../merge/errors.ts';


export const ONE_TABLE = 'canopy queries one table';
export const SUBQUERY = `subqueries are not supported; ${ONE_TABLE}`;

export function fail(code: ErrorCode, message: string, position?: SourcePosition): never {
  throw new CanopyError(code, message, position === undefined ? {} : { position });
}

/** Anything thrown while planning, as the CanopyError a client should see. */
export function asPlannerError(e: unknown): CanopyError {
  if (e instanceof CanopyError) return e;
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new CanopyError('CANOPY_ERR_LIMIT', 'the query is nested too deeply to plan; simplify it', { cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new CanopyError('CANOPY_ERR_UNSUPPORTED', `canopy could not plan this query (${message})`, { cause: e });
}
