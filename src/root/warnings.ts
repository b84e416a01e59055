/**
 * The answer's in-band warnings (Thanos-style: what a client should know about an answer
 * beyond its label, listed once at the top instead of only inside `trace.provenance`). Each
 * names the shards it concerns. Derived from the answer's provenance and its top-k state,
 * so snapshots and final answers carry the same kinds.
 */
import { shardMayMatch, type Expr, type ShardInfo, type ShardStatus, type TableSchema } from '../merge/index.ts';
import { jsonValue } from './format.ts';

/** The warning codes an answer may carry, with what each means (README "API" lists them). */
export const ANSWER_WARNINGS = Object.freeze({
  CANOPY_WARN_REPLICAS_DIVERGED: 'two replicas of these shards answered the same request differently; the first answer was used',
  CANOPY_WARN_PRUNED: "these shards were not asked: their zone maps exclude the WHERE clause (they count as covered)",
  CANOPY_WARN_STOPPED_EARLY: 'these shards were cancelled once the shard statistics, or the rows already in hand for a LIMIT without ORDER BY, proved they cannot change the answer (they count as covered)',
  CANOPY_WARN_MISSING: 'these shards are missing from the answer (failed or omitted at the deadline); see `missing` for each one',
  CANOPY_WARN_TOPK_TRUNCATED: 'group top-k: nodes passed up only their best groups, and what they dropped could still rank; ask with "exact": true for the refinement round',
} as const);

/** One warning: a code of {@link ANSWER_WARNINGS}, its message, the shards concerned (ascending; empty when it concerns the whole answer). */
export interface AnswerWarning {
  readonly code: keyof typeof ANSWER_WARNINGS;
  readonly message: string;
  readonly shards: readonly number[];
}

/** The early-termination prefix of a pruned entry's error message (src/aggregator/gather.ts). */
const EARLY = 'early termination';

/**
 * The warnings of an answer with this provenance; `topkTruncated` when a group top-k answer
 * is not proven by its children's truncation bounds. In code order of {@link ANSWER_WARNINGS}.
 */
export function answerWarnings(provenance: readonly (ShardStatus & { readonly warnings?: readonly { readonly code: string }[] })[], topkTruncated: boolean): AnswerWarning[] {
  const by = new Map<keyof typeof ANSWER_WARNINGS, Set<number>>();
  const add = (code: keyof typeof ANSWER_WARNINGS, shard: number): void => {
    let s = by.get(code);
    if (s === undefined) by.set(code, (s = new Set()));
    s.add(shard);
  };
  for (const p of provenance) {
    if (p.warnings?.some((w) => w.code === 'CANOPY_WARN_REPLICAS_DIVERGED') === true) add('CANOPY_WARN_REPLICAS_DIVERGED', p.shard);
    if (p.status === 'pruned') add(p.error?.message.startsWith(EARLY) === true ? 'CANOPY_WARN_STOPPED_EARLY' : 'CANOPY_WARN_PRUNED', p.shard);
    else if (p.status === 'failed' || p.status === 'omitted') add('CANOPY_WARN_MISSING', p.shard);
  }
  const out: AnswerWarning[] = [];
  for (const code of Object.keys(ANSWER_WARNINGS) as (keyof typeof ANSWER_WARNINGS)[]) {
    if (code === 'CANOPY_WARN_TOPK_TRUNCATED') {
      if (topkTruncated) out.push({ code, message: ANSWER_WARNINGS[code], shards: [] });
      continue;
    }
    const s = by.get(code);
    if (s !== undefined) out.push({ code, message: `${s.size} shard${s.size === 1 ? '' : 's'}: ${ANSWER_WARNINGS[code]}`, shards: [...s].sort((a, b) => a - b) });
  }
  return out;
}

/**
 * The TOPK_TRUNCATED warning of an answer to `"exact": true` that is still not proven exact:
 * its message says why the refinement round did not prove it (shards missing, or the rounds
 * did not complete within the deadline) instead of asking for `"exact": true`.
 * @param missing some shard is missing from the answer
 */
export function exactNotReached(warnings: readonly AnswerWarning[], missing: boolean): AnswerWarning[] {
  const why = missing
    ? 'group top-k: "exact": true was asked, but shards are missing, so the refinement round could not prove the top groups'
    : 'group top-k: "exact": true was asked, but the refinement round did not complete within the deadline; raise deadline_ms';
  return warnings.map((w) => (w.code === 'CANOPY_WARN_TOPK_TRUNCATED' ? { ...w, message: why } : w));
}

/** The columns an expression reads (any node `{kind: 'col', name}`), in first-seen order. */
function columnsOf(e: unknown, out = new Set<string>()): Set<string> {
  if (typeof e !== 'object' || e === null) return out;
  const n = e as { kind?: unknown; name?: unknown };
  if (n.kind === 'col' && typeof n.name === 'string') out.add(n.name);
  for (const v of Object.values(e)) columnsOf(v, out);
  return out;
}

/**
 * Why the root did not ask a shard (the `reason` of its pruned provenance entry): the shard
 * is empty, or the WHERE conjunct its zone map excludes, named by position and by the zone
 * maps (min, max, NULL count) of the columns it reads, e.g. `zone map excludes WHERE
 * conjunct 2 of 2: delay in [-12, 340], 0 of 30000 rows NULL`.
 */
export function pruneReason(filter: Expr | null, shard: ShardInfo, schema: TableSchema): string {
  if (shard.rows === 0) return 'the shard has no rows';
  const conjuncts = filter === null ? [] : filter.kind === 'and' ? filter.args : [filter];
  const at = conjuncts.findIndex((c) => !shardMayMatch(c, shard));
  const culprit = at < 0 ? filter : conjuncts[at]!;
  const where = at < 0 || conjuncts.length === 1 ? 'the WHERE clause' : `WHERE conjunct ${at + 1} of ${conjuncts.length}`;
  const maps = [...columnsOf(culprit)].map((c) => {
    const s = shard.columns[c];
    const type = schema.columns.find((x) => x.name === c)?.type ?? 'string';
    if (s === undefined) return `${c}: no statistics`;
    const v = (x: number | string | null): string => JSON.stringify(x === null ? null : jsonValue(x, type));
    return s.min === null ? `${c}: all ${shard.rows} rows NULL` : `${c} in [${v(s.min)}, ${v(s.max)}], ${s.nullCount} of ${shard.rows} rows NULL`;
  });
  return `zone map excludes ${where}${maps.length === 0 ? '' : `: ${maps.join('; ')}`}`;
}
