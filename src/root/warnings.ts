/**
 * The answer's in-band warnings (Thanos-style: what a client should know about an answer
 * beyond its label, listed once at the top instead of only inside `trace.provenance`). Each
 * names the shards it concerns. Derived from the answer's provenance and its top-k state,
 * so snapshots and final answers carry the same kinds.
 */
import type { ShardStatus } from '../merge/index.ts';

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
