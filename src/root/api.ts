/**
 * The root API's request and answer schemas, declared once with TypeBox (JSON Schema with
 * static types): the routes validate `POST /v1/query` bodies and `GET /v1/query` parameters
 * with them (compiled once), the engine and the CLI take their types from them, and the
 * dashboard's JSDoc typedefs (src/root/public/types.js) are generated from them by
 * `npm run typedefs` (a test keeps the file in sync).
 */
import { Type, type Static, type TSchema } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CanopyError } from '../merge/index.ts';

/** Message of a field that fails its schema: `{got}` is replaced by the value as JSON, `{max}` by the largest deadline. */
interface FieldMessage {
  readonly message: string;
}

const bool = (field: string, description: string): ReturnType<typeof Type.Boolean> => Type.Boolean({ description, message: `${field} must be true or false` } satisfies FieldMessage & { description: string });

/** The body of `POST /v1/query` (and the parameters of `GET /v1/query`). With several bad fields, `sql` is named first, then unknown fields, then the others in this order. */
export const QueryRequestSchema = Type.Object(
  {
    sql: Type.String({ description: 'one SELECT', message: 'field "sql" must be a string holding one SELECT' }),
    deadline_ms: Type.Optional(Type.Number({ exclusiveMinimum: 0, description: 'deadline of the whole query, ms', message: 'deadline_ms must be a number of ms in (0, {max}], got {got}' })),
    trace: Type.Optional(bool('trace', 'include per-child timings (straggler attribution) and the provenance')),
    policy: Type.Optional(Type.Union([Type.Literal('all'), Type.Literal('partial'), Type.Literal('min_coverage')], { message: 'policy must be one of all, partial, min_coverage; got {got}' })),
    min_coverage: Type.Optional(Type.Number({ exclusiveMinimum: 0, maximum: 1, description: 'share of shards that must answer, with policy min_coverage', message: 'min_coverage must be a number in (0, 1], got {got}' })),
    exact: Type.Optional(bool('exact', 'group top-k: run the refinement round(s) so the answer is exact')),
    shard_size: Type.Optional(Type.Integer({ minimum: 1, maximum: 1_000_000, description: 'group top-k: groups each node keeps (k\'); default ceil(1.5·k) + 10', message: 'shard_size must be an integer in [1, 1000000], got {got}' })),
    stream: Type.Optional(bool('stream', 'progressive snapshots as NDJSON')),
  },
  { additionalProperties: false },
);

/** Largest `deadline_ms` a request may ask for by default, ms. */
export const MAX_DEADLINE_MS = 300_000;

/** A query request as the body gives it. */
export type QueryRequestBody = Static<typeof QueryRequestSchema>;

const checkQuery = TypeCompiler.Compile(QueryRequestSchema);
const QUERY_FIELDS = Object.keys(QueryRequestSchema.properties) as (keyof QueryRequestBody)[];

/** The fields of the first schema errors of `value` (top-level property names; '' for the value itself). */
function badFields(check: ReturnType<typeof TypeCompiler.Compile>, value: unknown): Set<string> {
  const out = new Set<string>();
  for (const e of check.Errors(value)) out.add(e.path.split('/')[1] ?? '');
  return out;
}

/**
 * Validates a query request body against {@link QueryRequestSchema}, then what a schema
 * cannot say (the largest deadline, `min_coverage` going with its policy). `stream` is
 * checked but not returned (it chooses the response format).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST naming the bad field and the allowed values.
 */
export function parseQueryRequest(body: unknown, maxDeadlineMs = MAX_DEADLINE_MS): Omit<QueryRequestBody, 'stream'> {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new CanopyError(
      'CANOPY_ERR_BAD_REQUEST',
      typeof body === 'string'
        ? 'the body was read as text: send it with Content-Type: application/json, as a JSON object like {"sql": "SELECT ..."}'
        : 'body must be a JSON object like {"sql": "SELECT ..."}',
    );
  }
  const o = body as Record<string, unknown>;
  if (!checkQuery.Check(o)) {
    const bad = badFields(checkQuery, o);
    const props: Record<string, TSchema & Partial<FieldMessage>> = QueryRequestSchema.properties;
    const msg = (field: string): string => (props[field]!.message ?? `${field} is malformed`).replace('{got}', shown(o[field])).replace('{max}', String(maxDeadlineMs));
    if (bad.has('sql')) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', msg('sql'));
    const extra = Object.keys(o).filter((k) => !Object.hasOwn(props, k));
    if (extra.length > 0) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `unknown field(s) ${extra.join(', ')}; known: ${QUERY_FIELDS.join(', ')}`);
    const field = QUERY_FIELDS.find((f) => bad.has(f));
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', field === undefined ? 'body does not match the query request schema' : msg(field));
  }
  const { stream: _stream, ...q } = o as QueryRequestBody;
  if (q.deadline_ms !== undefined && q.deadline_ms > maxDeadlineMs) {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `deadline_ms must be a number of ms in (0, ${maxDeadlineMs}], got ${JSON.stringify(q.deadline_ms)}`);
  }
  if (q.min_coverage !== undefined) {
    if (q.policy !== undefined && q.policy !== 'min_coverage') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `min_coverage goes with policy "min_coverage", not "${q.policy}"`);
    return { ...q, policy: 'min_coverage' };
  }
  if (q.policy === 'min_coverage') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'policy "min_coverage" needs a min_coverage share in (0, 1]');
  return q;
}

/**
 * A value as a refusal quotes it: as JSON, except numbers JSON has no text for (a body's
 * `1e400` parses to Infinity, which JSON.stringify would show as null): `Infinity`,
 * `-Infinity`, `NaN`.
 */
function shown(v: unknown): string {
  return typeof v === 'number' && !Number.isFinite(v) ? String(v) : JSON.stringify(v);
}

/** Kinds of the request's fields as `GET /v1/query` parameters carry them (text to decode). */
export function queryParamKinds(): ReadonlyMap<string, 'number' | 'boolean' | 'string'> {
  const props: Record<string, TSchema> = QueryRequestSchema.properties;
  return new Map(Object.entries(props).map(([k, s]) => [k, s.type === 'number' || s.type === 'integer' ? 'number' : s.type === 'boolean' ? 'boolean' : 'string']));
}

// ---------------------------------------------------------------- the answer

const Value = Type.Union([Type.String(), Type.Number(), Type.Boolean(), Type.Null()], {
  $id: 'Value',
  description: 'A JSON value of an answer: int64 as a number (a decimal string beyond 2^53), float64 as a number ("NaN", "Infinity" as strings), timestamps as ISO-8601 UTC strings, NULL as null.',
});
const Label = Type.Union([Type.Literal('exact'), Type.Literal('bounded'), Type.Literal('approximate')], { $id: 'Label', description: 'How far an answer or a cell can be trusted.' });
const ErrorRef = Type.Object({ code: Type.String(), message: Type.String() });

const Column = Type.Object({ name: Type.String(), type: Type.String({ description: '`int64`, `int128`, `float64`, `string`, `timestamp`, `date`, `bool`' }) }, { $id: 'Column' });
const Role = Type.Union(
  [
    Type.Object({ role: Type.Literal('group_key'), key: Type.Number() }),
    Type.Object({ role: Type.Literal('aggregate'), aggregate: Type.String(), uncertainty: Type.Union([Type.Literal('catalog'), Type.Literal('sketch_estimate'), Type.Literal('sketch_bound')]) }),
    Type.Object({ role: Type.Literal('column') }),
  ],
  { $id: 'Role', description: "What a column is (the root's column roles): a group key, an aggregate (its function and how its cells may be uncertain) or a row query's column." },
);
const Estimate = Type.Object(
  { value: Value, lo: Value, hi: Value, confidence: Type.Number({ description: 'in (0, 1)' }) },
  { $id: 'Estimate', description: 'A progressive estimate: a point value with a probabilistic interval, distinct from the guaranteed [lo, hi].' },
);
const Cell = Type.Object(
  { label: Label, lo: Value, hi: Value, stderr: Type.Optional(Type.Number()), confidence: Type.Optional(Type.Number()), estimate: Type.Optional(Estimate) },
  { $id: 'Cell', description: 'A non-exact cell: `bounded` cells carry a guaranteed [lo, hi] (null: unbounded on that side); `approximate` ones a probabilistic interval (with `confidence`) or none.' },
);
const Coverage = Type.Object(
  { shards: Type.Number(), answered: Type.Number(), failed: Type.Number(), omitted: Type.Number(), pruned: Type.Number(), pending: Type.Optional(Type.Number()) },
  { $id: 'Coverage', description: 'Shards of the tables asked, by outcome.' },
);
const Missing = Type.Object(
  { shard: Type.Number(), path: Type.String(), reason: Type.Union([Type.Literal('failed'), Type.Literal('omitted'), Type.Literal('pending')]), error: Type.Union([ErrorRef, Type.Null()]) },
  { $id: 'Missing', description: 'A shard missing from the answer, where it sits in the tree and why.' },
);
const Warning = Type.Object(
  { code: Type.String({ description: 'a CANOPY_WARN_* code (README: API)' }), message: Type.String(), shards: Type.Array(Type.Number(), { description: 'the shards concerned, ascending; empty when it concerns the whole answer' }) },
  { $id: 'Warning', description: 'An in-band warning: replica divergence, pruned or stopped-early shards, missing shards, top-k truncation.' },
);
const Stats = Type.Object({ elapsed_ms: Type.Number(), rows_scanned: Type.Number(), round_trips: Type.Number() }, { $id: 'Stats' });
const Timing = Type.Object({ gather: Type.String(), child: Type.String(), shards: Type.Number(), elapsed_ms: Type.Number(), outcome: Type.Union([Type.Literal('answered'), Type.Literal('failed'), Type.Literal('omitted')]) }, { $id: 'Timing' });
const Straggler = Type.Object({ gather: Type.String(), last_child: Type.String(), elapsed_ms: Type.Number(), waited_ms: Type.Number() }, { $id: 'Straggler' });
const Provenance = Type.Object(
  {
    shard: Type.Number(),
    status: Type.String({ description: '`answered`, `failed`, `omitted`, `pruned`' }),
    path: Type.String(),
    error: Type.Optional(ErrorRef),
    reason: Type.Optional(Type.String({ description: 'pruned shards: why (the predicate and the zone map that excluded the shard)' })),
    rows_scanned: Type.Optional(Type.Number()),
  },
  { $id: 'Provenance', additionalProperties: true, description: 'What became of one shard (replica sets add their own fields).' },
);
const Trace = Type.Object({ stragglers: Type.Array(Straggler), timings: Type.Array(Timing), provenance: Type.Array(Provenance) }, { $id: 'Trace' });

/** The answer (`final: true`) or a progressive snapshot (`final: false`) as JSON: `POST /v1/query`'s response body. */
export const AnswerSchema = Type.Object(
  {
    columns: Type.Array(Column),
    roles: Type.Optional(Type.Array(Role)),
    rows: Type.Array(Type.Array(Value)),
    label: Label,
    cells: Type.Optional(Type.Array(Type.Array(Type.Union([Cell, Type.Null()])))),
    estimate_note: Type.Optional(Type.String()),
    rows_complete: Type.Boolean(),
    final: Type.Boolean(),
    coverage: Coverage,
    missing: Type.Array(Missing),
    warnings: Type.Optional(Type.Array(Warning)),
    stats: Stats,
    trace: Type.Optional(Trace),
  },
  { $id: 'Answer', description: 'The answer (`final: true`) or a progressive snapshot (`final: false`).' },
);

/** A coded error body (`{"error": ...}` flattened: code, message, details), with the HTTP status when refused before streaming. */
export const ApiErrorSchema = Type.Object(
  {
    code: Type.String(),
    message: Type.String(),
    position: Type.Optional(Type.Object({ line: Type.Number(), column: Type.Number(), offset: Type.Number() })),
    details: Type.Optional(Type.Object({ missing: Type.Optional(Type.Array(Missing)), expected: Type.Optional(Type.Array(Type.String())), found: Type.Optional(Type.Union([Type.String(), Type.Null()])) })),
    status: Type.Optional(Type.Number()),
    retryAfter: Type.Optional(Type.String()),
  },
  { $id: 'ApiError', description: 'A coded error (`{"error": ...}`), with the HTTP status when the request was refused before streaming.' },
);

/** Every named schema of the answer, in the order the dashboard's typedefs list them. */
export const ANSWER_SCHEMAS: readonly TSchema[] = [Value, Label, Column, Role, Estimate, Cell, Coverage, Missing, Warning, Stats, Timing, Straggler, Provenance, Trace, AnswerSchema, ApiErrorSchema];

/** The answer as JSON (see {@link AnswerSchema}). */
export type AnswerJSON = Static<typeof AnswerSchema>;
/** One non-exact cell as JSON. */
export type CellJSON = Static<typeof Cell>;
/** A coded error as JSON. */
export type ApiErrorJSON = Static<typeof ApiErrorSchema>;

const checkAnswer = TypeCompiler.Compile(AnswerSchema);

/** True when `value` has the answer's shape (tests, clients that want to check a body). */
export function isAnswerJSON(value: unknown): value is AnswerJSON {
  return checkAnswer.Check(value);
}

/** The schema errors of a value that is not an answer, as `path: message` lines (empty: it is one). */
export function answerErrors(value: unknown): string[] {
  return [...checkAnswer.Errors(value)].map((e) => `${e.path || '/'}: ${e.message}`);
}

