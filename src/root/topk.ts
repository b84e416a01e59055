/**
 * Group top-k at the root: decide when `GROUP BY g ORDER BY agg LIMIT k` may be truncated
 * per node (over-fetch), label the answer from the bounds the tree returns, and build the
 * refinement round (TPUT, Cao and Wang 2004) that makes it exact.
 */
import {
  AGGREGATES,
  CanopyError,
  argColumn,
  compareValues,
  weakest,
  groupKeyString,
  groupsOf,
  scoreOf,
  topKProven,
  valueOfScore,
  type AnswerBounds,
  type Catalog,
  type Cell,
  type CellLabel,
  type Expr,
  type GroupEntry,
  type GroupedPartial,
  type ColumnarPartial,
  type PartialLayout,
  type QueryPlan,
  type Scalar,
  type TopKSpec,
} from '../merge/index.ts';

/**
 * Default byte budget of a node's group top-k frame (see TopKSpec.budgetBytes): 1 MiB, some
 * 40,000 groups of two short string keys and a count, or the 3,399 origin × destination groups
 * of flights with a count, a SUM and an AVG and their estimate moments (about 90 bytes a group,
 * which passed 256 KiB: adding one measure to an exact top-k made it approximate with every
 * shard answering). They cost less to send than a second round trip through the tree costs.
 */
export const DEFAULT_TOPK_BUDGET_BYTES = 1024 * 1024;

/** Byte budget of a leaf's frame in the first round of `exact: true` (TopKSpec.shardBudgetBytes): 2 MiB, some 130,000 groups of a timestamp key and a count. */
export const EXACT_SHARD_BUDGET_BYTES = 2 * 1024 * 1024;

/** Share of its k'-th score an aggregator cuts at in the first round of `exact: true` (TopKSpec.cutRatio). */
export const EXACT_CUT_RATIO = 0.5;

/**
 * The first round's spec of an `exact: true` group top-k whose scores add (COUNT, SUM), with
 * the default byte budget (an explicit `shard_size` is honoured as given): leaves send every
 * group up to {@link EXACT_SHARD_BUDGET_BYTES}, and aggregators, which see the groups of their
 * shards merged, send each group reaching half their k'-th score. A high-cardinality key (a
 * timestamp: one or two rows per group per shard) then leaves the bound on unsent groups, the
 * sum of the aggregators' cuts, below the k-th score, so the refinement round only fetches
 * the candidates' exact values (an IN list), where a leaf-level threshold round (TPUT's, at
 * τ1/m per shard, below one row) would have every leaf send every group a second time.
 * Other specs are returned as given.
 */
export function exactFirstRound(spec: TopKSpec): TopKSpec {
  if (spec.combine !== 'add' || spec.budgetBytes === undefined || spec.minScorePerShard !== undefined) return spec;
  return { ...spec, shardBudgetBytes: EXACT_SHARD_BUDGET_BYTES, cutRatio: EXACT_CUT_RATIO };
}

/**
 * Default over-fetch per node: k' = ceil(1.5·k) + 10 (Elasticsearch's shard_size heuristic).
 * Requests may set `shard_size` instead.
 */
export function defaultShardSize(k: number): number {
  return Math.ceil(1.5 * k) + 10;
}

/**
 * The top-k spec for a plan, or null where truncation is not safe (then every node sends all
 * its groups, so the answer stays exact): needs GROUP BY, no HAVING, no window function, a LIMIT, and a first
 * ORDER BY key that is COUNT DESC, SUM DESC over a column the catalog proves non-negative
 * (SUM ASC over non-positive), MAX DESC or MIN ASC over a numeric or timestamp column, and
 * NULLS LAST on it (the default) unless it is COUNT, which is never NULL.
 * @throws CanopyError CANOPY_ERR_LIMIT when k' exceeds the per-query group limit.
 */
export function planTopK(plan: QueryPlan, catalog: Catalog, shardSize?: number): TopKSpec | null {
  const first = plan.orderBy[0];
  // Grouping sets: a subtotal's score is the merge of groups each node may have cut.
  // Windows read every group (after HAVING, before LIMIT): no node may cut groups.
  if (plan.windows !== undefined && plan.windows.length > 0) return null;
  if (plan.scan.rows !== null || plan.scan.groupBy.length === 0 || plan.groupingSets !== undefined || plan.having !== null || plan.limit === null || plan.limit === 0 || (plan.offset ?? 0) > 0 || first === undefined) return null;
  // Scores are numbers: MIN/MAX over strings are not truncated (every node sends all its groups).
  if (first.expr.kind !== 'agg' || first.expr.type === 'string') return null;
  // NULLS FIRST puts a group whose value is NULL so far first, but another shard may still
  // give it a value and send it down the order: scores would not only grow under merge.
  if (first.nullsFirst === true && first.expr.fn !== 'count') return null;
  const p = first.expr.partials[0]!;
  const col = argColumn(plan.scan.partials[p]!.arg);
  const proves = (test: (min: number, max: number) => boolean): boolean =>
    col !== null &&
    catalog.shards.every((s) => {
      const c = s.columns[col];
      if (c === undefined) return false;
      if (c.min === null || c.max === null) return true;
      return typeof c.min === 'number' && typeof c.max === 'number' && test(c.min, c.max);
    });
  // The aggregate's own rule (src/merge/aggregates): which directions only grow under merge.
  const rule = AGGREGATES[first.expr.fn].topk?.(first.desc, proves) ?? null;
  if (rule === null) return null;
  const { sign, combine } = rule;
  const fetch = shardSize ?? defaultShardSize(plan.limit);
  if (fetch > plan.scan.maxGroups) throw new CanopyError('CANOPY_ERR_LIMIT', `shard_size ${fetch} exceeds the per-query group limit ${plan.scan.maxGroups}`);
  // An explicit shard_size is a request to truncate at it; by default a node under the byte budget sends everything.
  return { partial: p, sign, combine, fetch, ...(shardSize === undefined ? { budgetBytes: DEFAULT_TOPK_BUDGET_BYTES } : {}) };
}

/**
 * Labels a top-k answer from the tree's per-group intervals: the ordering cell of a group
 * whose value may still grow is bounded by [lo, hi] (exact once lo = hi: the value is then
 * known); its other aggregates carry no guarantee (approximate); the row set is proven when
 * the k-th score beats every other group's upper bound and the bound on unseen groups, or
 * ties a group whose value is known and which the query's tie-break (later ORDER BY keys
 * over group keys or literals, then group keys ascending, as finalise sorts) places after the
 * k-th row.
 * @param rows the finalised top-k rows' group entries, in output order
 * @param merged every merged group (the intervals' keys)
 * @param intervals per-group upper score and completeness, and the bound on unseen groups
 *   (GatherResult.topkIntervals)
 * @returns the cells (null: exact), the row-set proof, the answer label, the k-th score
 *   (-Infinity when fewer than k rows) and the refinement candidates
 */
export function topKAnswer(
  plan: QueryPlan,
  layout: PartialLayout,
  spec: TopKSpec,
  rows: readonly GroupEntry[],
  merged: GroupedPartial | ColumnarPartial,
  intervals: { readonly groups: ReadonlyMap<string, { hi: number; exact: boolean }>; readonly unseen: number },
): AnswerBounds & { readonly kthScore: number; readonly candidates: readonly GroupEntry[] } {
  const inTop = new Set(rows.map((g) => groupKeyString(g.keys)));
  // The merged groups with their key strings (the map's keys): one string per group, built once.
  const all = [...groupsOf(merged)];
  const closedAt = (g: GroupEntry): { hi: number; exact: boolean } => ({ hi: scoreOf(layout, spec, g.states[spec.partial], true), exact: true });
  const hiAt = (key: string, g: GroupEntry): { hi: number; exact: boolean } => intervals.groups.get(key) ?? closedAt(g);
  const hiOf = (g: GroupEntry): { hi: number; exact: boolean } => hiAt(groupKeyString(g.keys), g);
  const loOf = (g: GroupEntry): number => scoreOf(layout, spec, g.states[spec.partial]);
  const k = plan.limit ?? rows.length;
  const kthScore = rows.length < k ? -Infinity : loOf(rows[rows.length - 1]!);
  // A tie at the k-th score is decided by the later ORDER BY keys, then the group keys
  // ascending (finalise). Only group keys and literals are known for sure: a later aggregate
  // key is not (a shard stopped early may still change a group outside the top k'), so a tie
  // is then left unproven.
  const laterKnown = plan.orderBy.slice(1).every((o) => o.expr.kind === 'key' || o.expr.kind === 'lit');
  // Scores are doubles, rounded outward past 2^53: two int64 values that differ there may
  // share a score. When both the k-th row's value and another group's are known, their exact
  // values decide (finalise sorted on them).
  const kth = rows.length < k ? undefined : rows[rows.length - 1]!;
  const kind = layout.kinds[spec.partial]!;
  const kthValue = kth !== undefined && hiOf(kth).exact ? kind.finalise(kth.states[spec.partial]) : undefined;
  const others: { hi: number; tieLoses: boolean }[] = [];
  const candidates: GroupEntry[] = [];
  for (const [key, g] of all) {
    const top = inTop.has(key);
    const { hi, exact } = hiAt(key, g);
    if (top || hi >= kthScore) candidates.push(g);
    if (top) continue;
    if (kthValue !== undefined && kthValue !== null && exact && hi >= kthScore) {
      const value = kind.finalise(g.states[spec.partial]);
      // NULL sorts last (planTopK): beaten; else by value, in the ordering's direction.
      const order = value === null ? 1 : compareValues(kthValue, value) * spec.sign;
      // Beaten outright, tied (the tie-break on known keys placed it after), or ahead (not proven).
      others.push(order > 0 ? { hi: -Infinity, tieLoses: true } : order === 0 ? { hi: kthScore, tieLoses: laterKnown } : { hi: Infinity, tieLoses: false });
      continue;
    }
    // finalise sorted it after the k-th row on the values merged so far. With its value known
    // (lo = hi) and the tie decided by known keys, the complete values keep it there: a row
    // of the top k whose value is still bounded either beats it or ties and wins on keys.
    others.push({ hi, tieLoses: laterKnown && loOf(g) === hi });
  }
  const proven = rows.length < k ? others.length === 0 && intervals.unseen === -Infinity : topKProven(kthScore, others, intervals.unseen);
  let label: CellLabel = 'exact';
  const cells = rows.map((g) => {
    const { hi, exact } = hiOf(g);
    return plan.output.map((c): Cell | null => {
      if (exact || c.expr.kind !== 'agg') return null;
      // The cell whose value is the score: an aggregate with a top-k rule over the ordering partial.
      const ordering = c.expr.partials[0] === spec.partial && AGGREGATES[c.expr.fn].topk !== null;
      const isInt = c.type === 'int64' || c.type === 'int128';
      const lo = loOf(g);
      // A closed interval (lo = hi, finite: the merged value is the complete one) is exact;
      // at zero only with the winning zero's score (+0: MAX's 0.0, MIN's -0.0).
      if (ordering && lo > -Infinity && lo === hi && !Object.is(lo, -0)) return null;
      // In value units the interval runs from the smaller to the larger end (scores are sign × value).
      // A value still NULL (score -Infinity) may stay NULL or become a number: no interval holds both.
      const cell: Cell = ordering && lo > -Infinity
        ? spec.sign === 1
          ? { label: 'bounded', lo: valueOfScore(spec, lo, isInt, false), hi: valueOfScore(spec, hi, isInt, true) }
          : { label: 'bounded', lo: valueOfScore(spec, hi, isInt, false), hi: valueOfScore(spec, lo, isInt, true) }
        : { label: 'approximate', lo: null, hi: null };
      label = weakest(label, cell.label);
      return cell;
    });
  });
  if (!proven) label = 'approximate';
  return { cells, rowsComplete: proven, label, kthScore, candidates };
}

/**
 * The refinement round's filter: the query's WHERE AND (the group keys equal one of the
 * candidates'). Asked of every shard without truncation, it returns the candidates' exact
 * values. With one group key that is a column, the candidates' values go down as one IN list
 * (one lookup per row at the leaf however many candidates there are): strings, finite
 * numbers other than -0 and int64 values within 2^53, which IN compares exactly as `=`
 * does; other values (NULL, NaN, -0, larger int64) keep their own term.
 */
export function candidateFilter(plan: QueryPlan, candidates: readonly GroupEntry[]): Expr {
  const keyEq = (g: GroupEntry): Expr => ({
    kind: 'and',
    args: plan.scan.groupBy.map((k, i): Expr => {
      const v: Scalar = g.keys[i] ?? null;
      if (v === null) return { kind: 'isnull', arg: k.expr, negated: false };
      return { kind: 'cmp', op: '=', left: k.expr, right: { kind: 'lit', value: v, type: k.type } };
    }),
  });
  const only = plan.scan.groupBy.length === 1 ? plan.scan.groupBy[0]! : null;
  const listed: Scalar[] = [];
  const rest: Expr[] = [];
  for (const g of candidates) {
    const v: Scalar = g.keys[0] ?? null;
    const inList =
      only !== null &&
      only.expr.kind === 'col' &&
      (only.type === 'string'
        ? typeof v === 'string'
        : (only.type === 'timestamp' || only.type === 'date' || only.type === 'float64' || only.type === 'int64') &&
          ((typeof v === 'number' && Number.isFinite(v) && !Object.is(v, -0)) || (typeof v === 'bigint' && v < 2n ** 53n && v > -(2n ** 53n))));
    if (inList) listed.push(typeof v === 'bigint' ? Number(v) : v);
    else rest.push(keyEq(g));
  }
  const terms: Expr[] = listed.length > 1 && only !== null ? [{ kind: 'in', arg: only.expr, values: listed, negated: false }, ...rest] : candidates.map(keyEq);
  const any: Expr = terms.length === 1 ? terms[0]! : { kind: 'or', args: terms };
  return plan.scan.filter === null ? any : { kind: 'and', args: [plan.scan.filter, any] };
}
