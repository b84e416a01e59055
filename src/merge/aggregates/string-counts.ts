/**
 * mode(s), entropy(s), quantile_disc(s, q) and median(s) of a string column over the `string_counts` partial
 * (src/merge/kinds/string-counts.ts: exact counts up to 1,024 distinct strings per group, then
 * a Misra-Gries summary whose counters are each at most `delta` below the true count).
 *
 * mode: exact when no other string can reach the top counter's count (its counter beats every
 * other counter by more than delta plus the missing rows, and beats delta plus the missing rows
 * itself, which bounds a string not tracked); otherwise approximate (a tie included: DuckDB
 * picks the string its scan met first). entropy: exact for exact counts with no missing row,
 * else bounded by [0, log2(rows)].
 */
import type { Cell } from '../bounds.ts';
import { compareStrings } from '../compare.ts';
import { quantileIndex } from '../kinds/ddsketch.ts';
import { STRING_COUNTS_BUDGET, reduceCounters, stringCountsOf, type StringCounts } from '../kinds/string-counts.ts';
import type { GroupEntry, PartialLayout } from '../partial.ts';
import type { Scalar } from '../types.ts';
import { scalarAt } from '../vectors.ts';
import type { AggExpr, Accumulator, PartialDef } from './aggregate.ts';
import { argColumn, type Envelope } from './envelope.ts';
import { groupAt, rowAt } from './grow.ts';

/** True when the call reads a `string_counts` partial. */
export function readsStrings(e: AggExpr, layout: PartialLayout): boolean {
  return layout.plan.partials[e.partials[0]!]!.kind === 'string_counts';
}

function stateOf(e: AggExpr, g: GroupEntry): StringCounts | null {
  return g.states[e.partials[0]!] as StringCounts | null;
}

/** Non-NULL rows the missing shards may add to the group (0: none); null when not bounded. */
function missingRows(e: AggExpr, layout: PartialLayout, env: Envelope | null): number | null {
  const arg = layout.plan.partials[e.partials[0]!]!.arg;
  const col = argColumn(arg);
  if (env === null || env.rows === 0 || arg === null) return 0;
  if (env.unknown) return null;
  return col === null ? env.rows : (env.nonNull.get(col) ?? 0);
}

const APPROXIMATE: Cell = { label: 'approximate', lo: null, hi: null };

/** The most frequent string (the least string among equal counters); null for no row. */
export function stringMode(e: AggExpr, g: GroupEntry): Scalar {
  const s = stateOf(e, g);
  if (s === null || s.values.length === 0) return null;
  let best = 0;
  s.counts.forEach((c, i) => {
    if (c > s.counts[best]!) best = i;
  });
  return s.values[best]!;
}

/** mode's label: exact when no other string can reach the top count (see the file comment). */
export function stringModeBounds(e: AggExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  const s = stateOf(e, g);
  const k = missingRows(e, layout, env);
  if (k === null) return APPROXIMATE;
  if (s === null) return k === 0 ? null : APPROXIMATE;
  if (s.values.length === 0) return APPROXIMATE;
  const slack = s.delta + k;
  let top = 0;
  for (const c of s.counts) top = Math.max(top, c);
  let candidates = slack >= top ? 1 : 0;
  for (const c of s.counts) if (c + slack >= top) candidates++;
  return candidates === 1 ? null : APPROXIMATE;
}

/**
 * quantile_disc(s, q) (and median(s), q 0.5) of strings, as DuckDB: the string of 0-based
 * index max(0, ceil(n·|q|) - 1) among the n sorted strings (code-point order, as DuckDB sorts
 * VARCHAR; a negative q counts from the top), read from the counters; null for no row. Exact
 * for exact counts (see {@link stringQuantileBounds}); past the budget, a guess from the counters.
 */
export function stringQuantile(e: AggExpr, g: GroupEntry, q: number): Scalar {
  const s = stateOf(e, g);
  if (s === null || s.values.length === 0) return null;
  const sorted = s.values.map((v, i) => [v, s.counts[i]!] as const).sort((a, b) => compareStrings(a[0], b[0]));
  let n = 0;
  for (const [, c] of sorted) n += c;
  const i = quantileIndex(Math.abs(q), n, e.qDouble === true);
  const rank = q < 0 ? n - 1 - i : i;
  let seen = 0;
  for (const [v, c] of sorted) {
    seen += c;
    if (rank < seen) return v;
  }
  return sorted[sorted.length - 1]![0];
}

/** The label of a string quantile: exact for exact counts and no missing row, else approximate. */
export function stringQuantileBounds(e: AggExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  const s = stateOf(e, g);
  const k = missingRows(e, layout, env);
  return k === 0 && (s === null || s.delta === 0) ? null : APPROXIMATE;
}

/** Σ (c/n)·log2(n/c) over the counters. */
function entropyOfCounts(counts: readonly number[], n: number): number {
  let h = 0;
  for (const c of counts) h += (c / n) * Math.log2(n / c);
  return h;
}

/** entropy of strings: exact from exact counts, else the counters' (a guess). */
export function stringEntropy(e: AggExpr, g: GroupEntry): number {
  const s = stateOf(e, g);
  return s === null ? 0 : entropyOfCounts(s.counts, s.total);
}

/** entropy's label: exact for exact counts and no missing row, else bounded by [0, log2(rows)]. */
export function stringEntropyBounds(e: AggExpr, g: GroupEntry, layout: PartialLayout, env: Envelope | null): Cell | null {
  const s = stateOf(e, g);
  const k = missingRows(e, layout, env);
  if (k === null) return APPROXIMATE;
  if ((s === null || s.delta === 0) && k === 0) return null;
  const n = (s === null ? 0 : s.total) + k;
  const hi = n <= 1 ? 0 : Math.log2(n);
  return { label: 'bounded', lo: 0, hi: hi + hi * 2 * Number.EPSILON * (n + 4) };
}

/** The leaf side: per group a Map of counters, reduced (Misra-Gries) whenever it doubles the budget. */
function stringCountsAccumulator(): Accumulator {
  const groups: ({ m: Map<string, number>; total: number; delta: number } | undefined)[] = [];
  return {
    update(inputs, sel, gids, n) {
      const v = inputs[0]!;
      for (let j = 0; j < n; j++) {
        const s = scalarAt(v, 'string', rowAt(sel, j));
        if (s === null) continue;
        const gid = groupAt(gids, j);
        let g = groups[gid];
        if (g === undefined) {
          g = { m: new Map(), total: 0, delta: 0 };
          groups[gid] = g;
        }
        const x = String(s);
        g.m.set(x, (g.m.get(x) ?? 0) + 1);
        g.total++;
        if (g.m.size > 2 * STRING_COUNTS_BUDGET) {
          const { kept, taken } = reduceCounters([...g.m]);
          g.m = new Map(kept);
          g.delta += taken;
        }
      }
    },
    state(gid): StringCounts | null {
      const g = groups[gid];
      return g === undefined ? null : stringCountsOf([...g.m], g.total, g.delta);
    },
  };
}

export const stringCountsPartial: PartialDef = {
  kind: 'string_counts',
  inputs: (spec) => (spec.arg === null ? [] : [spec.arg]),
  accumulator: () => stringCountsAccumulator(),
  groupBytes: 512,
};
