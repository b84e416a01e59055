/**
 * The root: parse -> plan -> gather (the same engine as aggregators) -> finalise ->
 * label and account for every shard. "An aggregator with a parser in front and a
 * finaliser behind".
 */
import { randomUUID } from 'node:crypto';
import { gather, type ChildTiming } from '../aggregator/index.ts';
import { CanopyError, finalise, layoutOf, type Catalog, type ColumnInfo, type Scalar, type ShardStatus, type TableSchema } from '../merge/index.ts';
import type { Child } from '../transport/index.ts';
import { DEFAULT_LIMITS, planQuery, type QueryLimits } from './sql.ts';

/** One served table: its catalog and the root's children (aggregators or leaves). */
export interface ServedTable {
  readonly catalog: Catalog;
  readonly children: readonly Child[];
}

/** Root configuration. */
export interface RootOptions {
  readonly tables: ReadonlyMap<string, ServedTable>;
  readonly limits?: QueryLimits;
  /** Deadline when the request gives none, ms (default 30,000). */
  readonly defaultDeadlineMs?: number;
  /** Largest deadline a request may ask for, ms (default 300,000). */
  readonly maxDeadlineMs?: number;
  /** Clock in ms (injected for tests). */
  readonly now?: () => number;
}

/** A query request (`POST /v1/query` body). */
export interface QueryRequest {
  readonly sql: string;
  /** Deadline for the whole query, ms. */
  readonly deadline_ms?: number;
  /** Include per-child timings (straggler attribution). */
  readonly trace?: boolean;
}

/** Answer labels, from strongest to weakest. */
export type Label = 'exact' | 'bounded' | 'approximate';

/** A shard that did not contribute, and why. */
export interface MissingShard {
  readonly shard: number;
  readonly path: string;
  readonly reason: 'failed' | 'omitted';
  readonly error: { readonly code: string; readonly message: string } | null;
}

/** The answer, before JSON formatting (values are SQL scalars). */
export interface QueryAnswer {
  readonly columns: readonly ColumnInfo[];
  readonly rows: readonly (readonly Scalar[])[];
  readonly label: Label;
  readonly coverage: { readonly shards: number; readonly answered: number; readonly failed: number; readonly omitted: number; readonly pruned: number };
  readonly missing: readonly MissingShard[];
  readonly stats: { readonly elapsed_ms: number; readonly rows_scanned: number };
  readonly provenance: readonly ShardStatus[];
  readonly timings?: readonly ChildTiming[];
}

const DEFAULT_DEADLINE_MS = 30_000;
const MAX_DEADLINE_MS = 300_000;

/**
 * Validates a request body.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST naming the bad field and the allowed values.
 */
export function parseQueryRequest(body: unknown, maxDeadlineMs = MAX_DEADLINE_MS): QueryRequest {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'body must be a JSON object like {"sql": "SELECT ..."}');
  }
  const o = body as Record<string, unknown>;
  if (typeof o.sql !== 'string') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'field "sql" must be a string holding one SELECT');
  const known = new Set(['sql', 'deadline_ms', 'trace']);
  const extra = Object.keys(o).filter((k) => !known.has(k));
  if (extra.length > 0) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `unknown field(s) ${extra.join(', ')}; known: ${[...known].join(', ')}`);
  const out: { sql: string; deadline_ms?: number; trace?: boolean } = { sql: o.sql };
  if (o.deadline_ms !== undefined) {
    const d = o.deadline_ms;
    if (typeof d !== 'number' || !Number.isFinite(d) || d <= 0 || d > maxDeadlineMs) {
      throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `deadline_ms must be a number of ms in (0, ${maxDeadlineMs}], got ${JSON.stringify(d)}`);
    }
    out.deadline_ms = d;
  }
  if (o.trace !== undefined) {
    if (typeof o.trace !== 'boolean') throw new CanopyError('CANOPY_ERR_BAD_REQUEST', 'trace must be true or false');
    out.trace = o.trace;
  }
  return out;
}

/** The root engine: plans and answers queries over the served tables. */
export class Root {
  readonly #opts: RootOptions;
  readonly #schemas: Map<string, TableSchema>;

  constructor(opts: RootOptions) {
    this.#opts = opts;
    this.#schemas = new Map([...opts.tables].map(([name, t]) => [name, t.catalog.table]));
  }

  /** Schemas of the served tables, by name. */
  get schemas(): ReadonlyMap<string, TableSchema> {
    return this.#schemas;
  }

  /**
   * Answers one query.
   * @throws CanopyError: planning errors (4xx); CANOPY_ERR_NO_COVERAGE when no shard answered
   *   (details list the missing shards); CANOPY_ERR_LIMIT when a shard hit a per-query limit
   *   or a row query without LIMIT exceeds `maxRows`; CANOPY_ERR_CANCELLED when `signal` aborts.
   */
  async query(req: QueryRequest, signal: AbortSignal): Promise<QueryAnswer> {
    const now = this.#opts.now ?? (() => performance.now());
    const t0 = now();
    const limits = this.#opts.limits ?? DEFAULT_LIMITS;
    const plan = planQuery(req.sql, this.#schemas, limits);
    const served = this.#opts.tables.get(plan.scan.table);
    if (served === undefined) throw new CanopyError('CANOPY_ERR_UNKNOWN_TABLE', `table '${plan.scan.table}' is not served`);
    const schema = served.catalog.table;
    const layout = layoutOf(plan.scan, schema);
    const deadline = req.deadline_ms ?? this.#opts.defaultDeadlineMs ?? DEFAULT_DEADLINE_MS;
    const shards = served.catalog.shards.map((s) => s.id);
    const result = await gather(served.children, { queryId: randomUUID(), schema, plan: plan.scan, shards, budgetMs: deadline - (now() - t0) }, signal, { self: 'root', now });
    const limitHit = result.provenance.find((p) => p.status === 'failed' && p.error?.code === 'CANOPY_ERR_LIMIT');
    if (limitHit?.error !== undefined) throw new CanopyError('CANOPY_ERR_LIMIT', limitHit.error.message);
    const count = (s: ShardStatus['status']): number => result.provenance.filter((p) => p.status === s).length;
    const coverage = { shards: shards.length, answered: count('answered'), failed: count('failed'), omitted: count('omitted'), pruned: count('pruned') };
    const missing: MissingShard[] = result.provenance
      .filter((p) => p.status === 'failed' || p.status === 'omitted')
      .map((p) => ({ shard: p.shard, path: p.path, reason: p.status as 'failed' | 'omitted', error: p.error ?? null }))
      .sort((a, b) => a.shard - b.shard);
    if (coverage.answered === 0 && coverage.pruned < coverage.shards) {
      throw new CanopyError('CANOPY_ERR_NO_COVERAGE', `no shard answered (${missing.length} missing); nothing to answer with`, { details: { missing } });
    }
    const answer = finalise(plan, layout, result.partial);
    if (plan.scan.rows !== null && plan.limit === null && answer.rows.length > limits.maxRows) {
      throw new CanopyError('CANOPY_ERR_LIMIT', `the query returns more than ${limits.maxRows} rows; add a LIMIT (at most ${limits.maxLimit})`);
    }
    // Without bounds from the catalog (not yet), an answer with missing shards carries no guarantee.
    const label: Label = missing.length === 0 ? 'exact' : 'approximate';
    const out: QueryAnswer = {
      columns: answer.columns,
      rows: answer.rows,
      label,
      coverage,
      missing,
      stats: { elapsed_ms: Math.round((now() - t0) * 1000) / 1000, rows_scanned: result.rowsScanned },
      provenance: result.provenance,
      ...(req.trace === true ? { timings: result.timings } : {}),
    };
    return out;
  }
}
