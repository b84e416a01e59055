/**
 * The one registry of coded errors. Every error canopy reports to a client, or records
 * for a failed shard in provenance, carries one of these codes. Tests assert on `code`,
 * never on message text. Messages say what was read and what to do.
 */

/** Error code -> HTTP status and a one-line description (documented in README). */
export const ERROR_CODES = Object.freeze({
  CANOPY_ERR_BAD_QUERY: { status: 400, doc: 'The SQL could not be parsed; `position` gives line and column.' },
  CANOPY_ERR_UNKNOWN_TABLE: { status: 400, doc: 'FROM names a table that is not served; the message lists the served ones.' },
  CANOPY_ERR_UNKNOWN_COLUMN: { status: 400, doc: 'A column is not in the table; the message lists the known ones.' },
  CANOPY_ERR_UNSUPPORTED: { status: 400, doc: 'A construct canopy does not support (JOIN, subquery, window, ...); the message names it.' },
  CANOPY_ERR_TYPE: { status: 400, doc: 'A value or function does not fit the type of its operand.' },
  CANOPY_ERR_OUT_OF_RANGE: { status: 400, doc: 'A value left its type during evaluation (int64 overflow, a cast that does not convert, sqrt or ln of a negative number), as DuckDB refuses it, or a string past canopy\'s 1 MiB-of-characters cap (lpad, replace, concatenation); the whole query is refused.' },
  CANOPY_ERR_BAD_REQUEST: { status: 400, doc: 'The request body is not the expected JSON shape.' },
  CANOPY_ERR_LIMIT: { status: 400, doc: 'A documented limit was exceeded (query size, groups, rows, LIMIT, memory budget).' },
  CANOPY_ERR_UNAUTHORIZED: { status: 401, doc: 'A missing or wrong token (the tree token between tiers, or the API bearer token).' },
  CANOPY_ERR_BODY_TOO_LARGE: { status: 413, doc: 'The request body exceeds the configured size limit.' },
  CANOPY_ERR_NOT_ACCEPTABLE: { status: 406, doc: 'The Accept header names no format canopy can produce.' },
  CANOPY_ERR_NOT_FOUND: { status: 404, doc: 'No such route.' },
  CANOPY_ERR_METHOD_NOT_ALLOWED: { status: 405, doc: 'The route is served for other methods; the `Allow` header lists them.' },
  CANOPY_ERR_NO_COVERAGE: { status: 503, doc: 'No shard (or fewer than min_coverage) could answer; `missing` lists them.' },
  CANOPY_ERR_OVERLOADED: { status: 503, doc: 'Admission control refused the query; retry after Retry-After seconds.' },
  CANOPY_ERR_NOT_READY: { status: 503, doc: 'The tree is still loading shards.' },
  CANOPY_ERR_CHILD_HTTP: { status: 502, doc: 'A child answered with an HTTP error (recorded per shard in provenance).' },
  CANOPY_ERR_CHILD_UNREACHABLE: { status: 502, doc: 'A child could not be reached (connection refused or reset).' },
  CANOPY_ERR_CHILD_GARBLED: { status: 502, doc: 'A child answered something that is not a valid partial for the shards asked.' },
  CANOPY_ERR_DEADLINE: { status: 504, doc: 'A shard did not answer before the deadline (recorded as omitted).' },
  CANOPY_ERR_CANCELLED: { status: 499, doc: 'The query was cancelled (client went away, or its gather finished).' },
  CANOPY_ERR_DATA: { status: 500, doc: 'Data could not be loaded: bad path, unreadable or inconsistent files.' },
  CANOPY_ERR_PORT_IN_USE: { status: 500, doc: 'A node could not start: its port is taken by another process (set PORT, or the topology\'s ports, to free ones).' },
  CANOPY_ERR_INTERNAL: { status: 500, doc: 'A bug: please report it with the query.' },
});

/** Every known error code. */
export type ErrorCode = keyof typeof ERROR_CODES;

/** Where in the SQL text an error was found (1-based line and column, 0-based offset). */
export interface SourcePosition {
  readonly line: number;
  readonly column: number;
  readonly offset: number;
}

/**
 * An error with a stable code and its HTTP status.
 * @param code one of {@link ERROR_CODES}
 * @param message what was read and what to do
 * @param extra optional `position` (for SQL errors) and `details` (JSON-serialisable)
 */
export class CanopyError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly position: SourcePosition | undefined;
  readonly details: unknown;

  constructor(code: ErrorCode, message: string, extra: { position?: SourcePosition; details?: unknown; cause?: unknown } = {}) {
    super(message, extra.cause === undefined ? undefined : { cause: extra.cause });
    this.name = 'CanopyError';
    this.code = code;
    this.status = ERROR_CODES[code].status;
    this.position = extra.position;
    this.details = extra.details;
  }

  /** The JSON body sent to clients: `{"error":{"code","message","position"?,"details"?}}`. */
  toJSON(): { error: { code: ErrorCode; message: string; position?: SourcePosition; details?: unknown } } {
    const error: { code: ErrorCode; message: string; position?: SourcePosition; details?: unknown } = {
      code: this.code,
      message: this.message,
    };
    if (this.position !== undefined) error.position = this.position;
    if (this.details !== undefined) error.details = this.details;
    return { error };
  }
}

/**
 * A CANOPY_ERR_OUT_OF_RANGE error that DuckDB raises for the same value too (an int64
 * overflow, a value that does not convert, a square root or logarithm out of its domain), as
 * opposed to one canopy raises where DuckDB may answer: DuckDB's `TRY(x)` gives NULL for it.
 */
export class ValueError extends CanopyError {
  constructor(message: string) {
    super('CANOPY_ERR_OUT_OF_RANGE', message);
  }
}

/** True when `e` is a {@link CanopyError}. */
export function isCanopyError(e: unknown): e is CanopyError {
  return e instanceof CanopyError;
}

/**
 * Whether an error code is the query's own error wherever it happens (a per-query limit, a value
 * out of its type's range): a node meeting it in a child's reply refuses the whole query with
 * it rather than answering without that child's shards.
 */
export function refusesQuery(code: string | undefined): code is 'CANOPY_ERR_LIMIT' | 'CANOPY_ERR_OUT_OF_RANGE' {
  return code === 'CANOPY_ERR_LIMIT' || code === 'CANOPY_ERR_OUT_OF_RANGE';
}

/** Wraps anything thrown into a CanopyError, keeping CanopyErrors as they are. */
export function toCanopyError(e: unknown, fallback: ErrorCode = 'CANOPY_ERR_INTERNAL'): CanopyError {
  if (e instanceof CanopyError) return e;
  const message = e instanceof Error ? e.message : String(e);
  return new CanopyError(fallback, message, { cause: e });
}

/**
 * "unknown column 'dealy'; known: date, delay, ..." with a did-you-mean when one name is
 * within edit distance 2.
 */
export function unknownNameMessage(what: string, name: string, known: readonly string[]): string {
  return `unknown ${what} '${name}'${didYouMean(name, known)}; known: ${known.join(', ')}`;
}

/**
 * ` (did you mean 'delay'?)` naming the one of `known` within edit distance 2 of `name`
 * (case-insensitive) nearest to it (of those as near, the one sharing the longest prefix with
 * it, then the first: 'cout' is 'count', not 'cot'), or '' when none is.
 */
export function didYouMean(name: string, known: readonly string[]): string {
  const a = name.toLowerCase();
  let best: string | null = null;
  let bestD = 3;
  let bestPrefix = -1;
  for (const k of known) {
    const b = k.toLowerCase();
    const d = editDistance(a, b);
    if (d > 2 || d > bestD) continue;
    let prefix = 0;
    while (prefix < a.length && a[prefix] === b[prefix]) prefix++;
    if (d < bestD || prefix > bestPrefix) {
      bestD = d;
      best = k;
      bestPrefix = prefix;
    }
  }
  return best !== null ? ` (did you mean '${best}'?)` : '';
}

function editDistance(a: string, b: string): number {
  const prev = new Array<number>(b.length + 1);
  for (let j = 0; j <= b.length; j++) prev[j] = j;
  for (let i = 1; i <= a.length; i++) {
    let diag = prev[0]!;
    prev[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const up = prev[j]!;
      prev[j] = Math.min(up + 1, prev[j - 1]! + 1, diag + (a[i - 1] === b[j - 1] ? 0 : 1));
      diag = up;
    }
  }
  return prev[b.length]!;
}
