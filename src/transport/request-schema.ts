/**
 * The child request's schema (`POST /v1/partial` body), declared once with TypeBox and
 * compiled once: every top-level field of {@link ChildRequest} is checked, and of the plan and
 * the schema what the receiving node needs to read them (the plan's partials and predicates
 * are then checked by `layoutOf` and the scan, which refuse what they cannot run with coded
 * errors).
 */
import { Type, type Static } from '@sinclair/typebox';
import { TypeCompiler } from '@sinclair/typebox/compiler';
import { CanopyError, PARTIAL_DEFS } from '../merge/index.ts';
import { BUDGET_HEADER, type ChildRequest } from './child.ts';

const COLUMN_TYPE = Type.Union(['int64', 'float64', 'string', 'timestamp', 'bool', 'int128', 'date'].map((t) => Type.Literal(t)));

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

/** {@link checkChild} with the plan and schema objects' checks cached by identity; a plan whose inside is malformed throws (naming where). */
function wellFormed(body: object): boolean {
  if (!checkOwn.Check(body)) return false;
  const { plan, schema } = body as { plan?: unknown; schema?: unknown };
  for (const [v, check] of [[plan, checkPlan], [schema, checkSchema]] as const) {
    if (typeof v !== 'object' || v === null) return false;
    if (CHECKED.has(v)) continue;
    if (!check.Check(v)) return false;
    if (v === plan) {
      const problem = planProblem(v);
      if (problem !== null) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `partial request: plan is malformed: ${problem}`);
    }
    CHECKED.add(v);
  }
  return true;
}

/** The fields of each row-level expression kind that hold expressions (`Expr` of src/merge/types.ts): one, a list, or CASE's arms. */
const EXPR_FIELDS: Readonly<Record<string, readonly string[]>> = {
  col: [],
  lit: [],
  cmp: ['left', 'right'],
  and: ['args[]'],
  or: ['args[]'],
  not: ['arg'],
  in: ['arg'],
  between: ['arg', 'lo', 'hi'],
  isnull: ['arg'],
  distinct: ['left', 'right'],
  date_trunc: ['arg'],
  arith: ['left', 'right'],
  neg: ['arg'],
  case: ['operand?', 'whens', 'else?'],
  cast: ['arg'],
  call: ['args[]'],
  like: ['arg', 'pattern'],
  extract: ['arg'],
  interval: ['arg'],
  try: ['arg'],
};
/** Every partial kind, from the aggregate registry (a new kind is accepted without a second list to keep). */
const PARTIAL_KINDS: ReadonlySet<string> = new Set(Object.keys(PARTIAL_DEFS));
const COLUMN_TYPES: ReadonlySet<string> = new Set(['int64', 'float64', 'string', 'timestamp', 'bool', 'int128', 'date']);

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const isCount = (v: unknown): boolean => typeof v === 'number' && Number.isInteger(v) && v >= 0;

/**
 * What is wrong inside a plan whose outline passed the schema (`where: what`, e.g.
 * `filter.args[1]: expression kind 'zzz' is not one of col, lit, ...`), or null. It checks
 * what the leaf and the merge read without checking themselves: every expression is an
 * object of a known kind with its child expressions present, each group key and row column
 * has an expression and a column type, each partial a known kind, `maxGroups` and a row
 * query's `limit` are counts, `orderBy` and top-k index what exists. Leaf values (literals,
 * operators, function names) are left to the scan, which refuses them with coded errors.
 */
export function planProblem(plan: object): string | null {
  const p = plan as Record<string, unknown>;
  const expr = (e: unknown, at: string): string | null => {
    if (!isObject(e) || typeof e.kind !== 'string') return `${at}: expected an expression object with a kind`;
    const fields = EXPR_FIELDS[e.kind];
    if (fields === undefined || !Object.hasOwn(EXPR_FIELDS, e.kind)) return `${at}: expression kind ${JSON.stringify(e.kind)} is not one of ${Object.keys(EXPR_FIELDS).join(', ')}`;
    if (e.kind === 'col' && typeof e.name !== 'string') return `${at}.name: a column name must be a string`;
    for (const f of fields) {
      if (f.endsWith('[]')) {
        const name = f.slice(0, -2);
        const list = e[name];
        if (!Array.isArray(list)) return `${at}.${name}: expected a list of expressions`;
        for (let i = 0; i < list.length; i++) {
          const bad = expr(list[i], `${at}.${name}[${i}]`);
          if (bad !== null) return bad;
        }
      } else if (f === 'whens') {
        const whens = e.whens;
        if (!Array.isArray(whens)) return `${at}.whens: expected a list of {when, then}`;
        for (let i = 0; i < whens.length; i++) {
          const w: unknown = whens[i];
          if (!isObject(w)) return `${at}.whens[${i}]: expected {when, then}`;
          const bad = expr(w.when, `${at}.whens[${i}].when`) ?? expr(w.then, `${at}.whens[${i}].then`);
          if (bad !== null) return bad;
        }
      } else {
        const optional = f.endsWith('?');
        const name = optional ? f.slice(0, -1) : f;
        if (optional && e[name] === null) continue;
        const bad = expr(e[name], `${at}.${name}`);
        if (bad !== null) return bad;
      }
    }
    return null;
  };
  const typed = (c: unknown, at: string): string | null => {
    if (!isObject(c)) return `${at}: expected {name, expr, type}`;
    if (typeof c.type !== 'string' || !COLUMN_TYPES.has(c.type)) return `${at}.type: ${JSON.stringify(c.type)} is not a column type (${[...COLUMN_TYPES].join(', ')})`;
    return expr(c.expr, `${at}.expr`);
  };
  try {
    if (p.filter !== null) {
      const bad = expr(p.filter, 'filter');
      if (bad !== null) return bad;
    }
    const groupBy = p.groupBy as unknown[];
    for (let i = 0; i < groupBy.length; i++) {
      const bad = typed(groupBy[i], `groupBy[${i}]`);
      if (bad !== null) return bad;
    }
    const partials = p.partials as unknown[];
    for (let i = 0; i < partials.length; i++) {
      const q = partials[i];
      const at = `partials[${i}]`;
      if (!isObject(q) || typeof q.kind !== 'string' || !PARTIAL_KINDS.has(q.kind)) return `${at}: expected a partial of kind ${[...PARTIAL_KINDS].join(', ')}`;
      if (q.arg !== null || (q.kind !== 'count_star' && q.kind !== 'moments')) {
        const bad = expr(q.arg, `${at}.arg`);
        if (bad !== null) return bad;
      }
      for (const f of ['by', 'filter'] as const) {
        const bad = q[f] === undefined ? null : expr(q[f], `${at}.${f}`);
        if (bad !== null) return bad;
      }
      if (q.order !== undefined) {
        if (!Array.isArray(q.order)) return `${at}.order: expected an array of {expr, type, desc, nullsFirst}`;
        for (let k = 0; k < q.order.length; k++) {
          const o: unknown = q.order[k];
          if (!isObject(o) || typeof o.desc !== 'boolean' || typeof o.nullsFirst !== 'boolean') return `${at}.order[${k}]: expected {expr, type, desc: true or false, nullsFirst: true or false}`;
          const bad = typed(o, `${at}.order[${k}]`);
          if (bad !== null) return bad;
        }
      }
    }
    if (!isCount(p.maxGroups)) return `maxGroups: expected a count of groups, got ${JSON.stringify(p.maxGroups)}`;
    const rows = p.rows;
    if (rows !== null) {
      if (!isObject(rows) || !Array.isArray(rows.columns) || !Array.isArray(rows.orderBy)) return 'rows: expected null or {columns, visible, orderBy, limit}';
      for (let i = 0; i < rows.columns.length; i++) {
        const bad = typed(rows.columns[i], `rows.columns[${i}]`);
        if (bad !== null) return bad;
      }
      const n = rows.columns.length;
      if (!isCount(rows.visible) || (rows.visible as number) > n) return `rows.visible: expected a count of at most ${n} columns`;
      if (!isCount(rows.limit)) return `rows.limit: expected a count of rows, got ${JSON.stringify(rows.limit)}`;
      if (rows.floor !== undefined && !(typeof rows.floor === 'number' && !Number.isNaN(rows.floor))) return `rows.floor: expected a number, got ${JSON.stringify(rows.floor)}`;
      for (let i = 0; i < rows.orderBy.length; i++) {
        const o: unknown = rows.orderBy[i];
        if (!isObject(o) || !isCount(o.column) || (o.column as number) >= n || typeof o.desc !== 'boolean') return `rows.orderBy[${i}]: expected {column: an index below ${n}, desc: true or false}`;
      }
    }
    const topk = p.topk;
    if (topk !== undefined) {
      if (!isObject(topk) || !isCount(topk.partial) || (topk.partial as number) >= partials.length || !isCount(topk.fetch) || (topk.sign !== 1 && topk.sign !== -1) || (topk.combine !== 'add' && topk.combine !== 'max')) {
        return `topk: expected {partial: an index below ${partials.length}, sign: 1 or -1, combine: add or max, fetch: a count}`;
      }
    }
    return null;
  } catch (e) {
    // A plan nested deeper than the stack (a body no planner makes).
    if (e instanceof RangeError) return 'its expressions are nested too deeply to read';
    throw e;
  }
}

/**
 * Validates a decoded request body against {@link ChildRequestSchema}; the budget is the
 * {@link BUDGET_HEADER} header when given, else the body's `budgetMs`.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST `partial request: ...` naming the first bad field
 *   (inside the plan, where: see {@link planProblem}), or a shard id listed twice.
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
  const shards = (body as ChildRequestBody).shards;
  if (shards.length > 1 && new Set(shards).size !== shards.length) bad(`shards must be distinct shard ids; ${shards.find((s, i) => shards.indexOf(s) !== i)} is listed more than once`);
  const budget = budgetHeader === undefined ? Number((body as ChildRequestBody).budgetMs) : Number(budgetHeader);
  if (!Number.isFinite(budget) || budget < 0) bad(`${BUDGET_HEADER} must be a non-negative number of ms`);
  // The plan's and the schema's insides are the merge layer's types (checked by layoutOf and the scan).
  return { ...(body as unknown as ChildRequest), budgetMs: budget };
}
