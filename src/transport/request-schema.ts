/**
 * The child request's schema (`POST /v1/partial` body), declared once with TypeBox and
 * compiled once: every top-level field of {@link ChildRequest} is checked, and of the plan and
 * the schema what the receiving node needs to read them (the plan's partials and predicates
 * are then checked by `layoutOf` and the scan, which refuse what they cannot run with coded
 * errors).
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CanopyError } from '../merge/index.ts';
import { BUDGET_HEADER, type ChildRequest } from './child.ts';

const COLUMN_TYPE = Type.Union(['int64', 'float64', 'string', 'timestamp', 'bool', 'int128'].map((t) => Type.Literal(t)));

/** The body of a child request; `message` is what a node answers when the field is bad (prefixed `partial request: `). */
export const ChildRequestSchema = Type.Object(
  {
    queryId: Type.String({ message: 'queryId must be a string' }),
    shards: Type.Array(Type.Integer({ minimum: 0 }), { message: 'shards must be a list of shard ids' }),
    plan: Type.Object({ table: Type.String(), groupBy: Type.Array(Type.Unknown()), partials: Type.Array(Type.Unknown()) }, { message: 'plan is malformed' }),
    schema: Type.Object({ name: Type.String(), columns: Type.Array(Type.Object({ name: Type.String(), type: COLUMN_TYPE })) }, { message: 'schema is malformed' }),
    budgetMs: Type.Optional(Type.Number({ minimum: 0, message: 'budgetMs must be a non-negative number of ms' })),
    trace: Type.Optional(Type.Boolean({ message: 'trace must be true or false' })),
    stream: Type.Optional(Type.Boolean({ message: 'stream must be true or false' })),
    stats: Type.Optional(Type.Array(Type.Object({ id: Type.Integer({ minimum: 0 }), rows: Type.Number(), partition: Type.String(), columns: Type.Record(Type.String(), Type.Unknown()) }), { message: 'stats must be a list of shard catalog entries' })),
  },
  { additionalProperties: false },
);

/** A child request body as the schema checks it (the plan and the schema only in outline). */
export type ChildRequestBody = Static<typeof ChildRequestSchema>;

const checkChild = TypeCompiler.Compile(ChildRequestSchema);
const FIELDS = Object.keys(ChildRequestSchema.properties);

// The entries of one multiplexed request share their plan and schema objects (one base): each
// is checked once, then only the entry's own fields are (a full check per entry re-walked the
// same plan and schema 50 times).
const checkOwn = TypeCompiler.Compile(Type.Object({ ...ChildRequestSchema.properties, plan: Type.Unknown(), schema: Type.Unknown() }, { additionalProperties: false }));
const checkPlan = TypeCompiler.Compile(ChildRequestSchema.properties.plan);
const checkSchema = TypeCompiler.Compile(ChildRequestSchema.properties.schema);
/** Plan and schema objects already found well formed (by identity; a decoded body's objects are not changed after). */
const CHECKED = new WeakSet<object>();

/** {@link checkChild} with the plan and schema objects' checks cached by identity. */
function wellFormed(body: object): boolean {
  if (!checkOwn.Check(body)) return false;
  const { plan, schema } = body as { plan?: unknown; schema?: unknown };
  for (const [v, check] of [[plan, checkPlan], [schema, checkSchema]] as const) {
    if (typeof v !== 'object' || v === null) return false;
    if (CHECKED.has(v)) continue;
    if (!check.Check(v)) return false;
    CHECKED.add(v);
  }
  return true;
}

/**
 * Validates a decoded request body against {@link ChildRequestSchema}; the budget is the
 * {@link BUDGET_HEADER} header when given, else the body's `budgetMs`.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST `partial request: ...` naming the first bad field.
 */
export function parseChildRequest(body: unknown, budgetHeader: string | undefined): ChildRequest {
  const bad = (what: string): never => {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `partial request: ${what}`);
  };
  if (typeof body !== 'object' || body === null || Array.isArray(body)) return bad('body must be a JSON object');
  if (!wellFormed(body)) {
    const o = body as Record<string, unknown>;
    const extra = Object.keys(o).filter((k) => !FIELDS.includes(k));
    if (extra.length > 0) bad(`unknown field(s) ${extra.join(', ')}; known: ${FIELDS.join(', ')}`);
    const fields = new Set<string>();
    for (const e of checkChild.Errors(body)) fields.add(e.path.split('/')[1] ?? '');
    const props = ChildRequestSchema.properties as unknown as Record<string, { message?: string }>;
    const field = FIELDS.find((f) => fields.has(f));
    return bad(field === undefined ? 'body does not match the child request schema' : (props[field]!.message ?? `${field} is malformed`));
  }
  const budget = budgetHeader === undefined ? Number((body as ChildRequestBody).budgetMs) : Number(budgetHeader);
  if (!Number.isFinite(budget) || budget < 0) bad(`${BUDGET_HEADER} must be a non-negative number of ms`);
  // The plan's and the schema's insides are the merge layer's types (checked by layoutOf and the scan).
  return { ...(body as unknown as ChildRequest), budgetMs: budget };
}
