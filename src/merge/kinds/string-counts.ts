/**
 * The `string_counts` partial (mode and entropy of a string column): each group's exact
 * string -> count map while it holds at most {@link STRING_COUNTS_BUDGET} distinct strings,
 * then a Misra-Gries summary of that many counters, merged as in Agarwal, Cormode, Huang,
 * Phillips, Wei, Yi, "Mergeable summaries" (PODS 2012, §3): counters add, and past the budget
 * the (budget + 1)-th largest counter t is taken from every counter (those at or below it
 * dropped). `delta` sums every t taken along the merges (and the leaf's reductions), so each
 * string's true count c lies in [ĉ, ĉ + delta] (ĉ its counter, 0 when untracked); the state is
 * exact while delta is 0. Merge is commutative, and associative while the union stays within
 * the budget (exact counts); past it, which counters survive depends on the merge order (as
 * for any Misra-Gries summary), while the bound above holds for every order.
 */
import { CanopyError } from '../errors.ts';
import type { ColumnType } from '../types.ts';
import type { StateKind } from './kind.ts';
import { ByteReader, pushVarint } from './varint.ts';

/** Counters a state keeps: exact up to this many distinct strings. */
export const STRING_COUNTS_BUDGET = 1024;

/** Strings ascending (JS code-unit order) and their counters (integers >= 1); `total` every row counted; `delta` the counters' error bound. */
export interface StringCounts {
  readonly values: readonly string[];
  readonly counts: readonly number[];
  readonly total: number;
  readonly delta: number;
}

const ascending = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0);

/**
 * The Misra-Gries reduction of counters to at most the budget: the (budget + 1)-th largest
 * counter t is taken from each (pure; returns the taken amount with the kept entries).
 * When that would keep none (more than the budget of strings tied at the largest count, as
 * when every string is distinct), `budget` strings spread evenly over the string order are
 * kept at counter 1 instead, and t is still taken: a kept string's count c (at most t) stays
 * within [1, 1 + delta] and a dropped one's within [0, delta], so the bound holds, and a
 * quantile's guess reads strings spread as the data's rather than nothing (it answered NULL).
 */
export function reduceCounters(entries: readonly (readonly [string, number])[]): { kept: [string, number][]; taken: number } {
  if (entries.length <= STRING_COUNTS_BUDGET) return { kept: entries.map(([v, c]) => [v, c]), taken: 0 };
  const t = entries.map((e) => e[1]).sort((a, b) => b - a)[STRING_COUNTS_BUDGET]!;
  const kept = entries.filter((e) => e[1] > t).map(([v, c]): [string, number] => [v, c - t]);
  if (kept.length > 0) return { kept, taken: t };
  const sorted = entries.map((e) => e[0]).sort(ascending);
  const n = sorted.length;
  return { kept: Array.from({ length: STRING_COUNTS_BUDGET }, (_, i): [string, number] => [sorted[Math.floor(((i + 0.5) * n) / STRING_COUNTS_BUDGET)]!, 1]), taken: t };
}

/** A state from counters (any order), with the rows counted and the error bound so far; null when no row. */
export function stringCountsOf(entries: readonly (readonly [string, number])[], total: number, delta: number): StringCounts | null {
  if (total === 0) return null;
  const { kept, taken } = reduceCounters(entries);
  kept.sort((a, b) => ascending(a[0], b[0]));
  return { values: kept.map((e) => e[0]), counts: kept.map((e) => e[1]), total, delta: delta + taken };
}

/** Merges two states (pure; counts add, so not idempotent). */
export function stringCountsMerge(a: StringCounts | null, b: StringCounts | null): StringCounts | null {
  if (a === null) return b;
  if (b === null) return a;
  const m = new Map<string, number>();
  a.values.forEach((v, i) => m.set(v, a.counts[i]!));
  b.values.forEach((v, i) => m.set(v, (m.get(v) ?? 0) + b.counts[i]!));
  return stringCountsOf([...m], a.total + b.total, a.delta + b.delta);
}

// Wire encoding: one Arrow Binary cell per state (null for none): 'S', u8 version 1, varint
// total, varint delta, varint n, then n × (varint UTF-8 byte length, the bytes, varint count).

const TAG = 0x53;
const VERSION = 1;

/** Encodes a non-null state (see the layout above). */
export function stringCountsEncode(s: StringCounts): Uint8Array {
  const out: number[] = [TAG, VERSION];
  pushVarint(out, s.total);
  pushVarint(out, s.delta);
  pushVarint(out, s.values.length);
  const enc = new TextEncoder();
  s.values.forEach((v, i) => {
    const bytes = enc.encode(v);
    pushVarint(out, bytes.length);
    for (const b of bytes) out.push(b);
    pushVarint(out, s.counts[i]!);
  });
  return Uint8Array.from(out);
}

/**
 * Decodes {@link stringCountsEncode} bytes (null stays null), checking the tag, version, at
 * most the budget's strings, valid UTF-8 in ascending order, counters from 1, their sum at
 * most the total (equal to it when exact), and no trailing bytes.
 * @throws Error describing the first defect.
 */
export function stringCountsDecode(v: unknown): StringCounts | null {
  if (v === null) return null;
  if (!(v instanceof Uint8Array)) throw new Error('bad string counts: not a byte string');
  const r = new ByteReader(v, 'string counts');
  if (r.u8() !== TAG || r.u8() !== VERSION) throw r.fail('tag or version');
  const total = r.varint();
  const delta = r.varint();
  const n = r.varint();
  if (total === 0) throw new Error('bad string counts: no row (must be null)');
  if (n > STRING_COUNTS_BUDGET) throw new Error(`bad string counts: ${n} strings (at most ${STRING_COUNTS_BUDGET})`);
  const dec = new TextDecoder('utf-8', { fatal: true });
  const values: string[] = [];
  const counts: number[] = [];
  let sum = 0;
  for (let i = 0; i < n; i++) {
    const bytes = r.take(r.varint());
    let s: string;
    try {
      s = dec.decode(bytes);
    } catch {
      throw r.fail('not UTF-8');
    }
    if (i > 0 && ascending(values[i - 1]!, s) >= 0) throw new Error('bad string counts: strings not ascending');
    const c = r.varint();
    if (c === 0) throw new Error('bad string counts: zero count');
    values.push(s);
    counts.push(c);
    sum += c;
  }
  r.end();
  if (sum > total || (delta === 0 && sum !== total)) throw new Error('bad string counts: counters do not match the total');
  return { values, counts, total, delta };
}

/**
 * The string-counts state kind over a string column. `finalise` is not used by the
 * aggregates (they read the state).
 * @throws CanopyError CANOPY_ERR_TYPE for other column types.
 */
export function stringCountsKind(argType: ColumnType | null): StateKind<StringCounts | null> {
  if (argType !== 'string') throw new CanopyError('CANOPY_ERR_TYPE', `string counts need a string column, not ${argType ?? 'none'}`);
  return {
    kind: 'string_counts',
    argType,
    encoding: 'binary',
    empty: () => null,
    merge: (a, b) => stringCountsMerge(a, b),
    finalise: (s) => (s === null ? null : s.total),
    encode: (s) => (s === null ? null : stringCountsEncode(s)),
    decode: (v) => stringCountsDecode(v),
    equals: (a, b) => (a === null || b === null ? a === b : a.total === b.total && a.delta === b.delta && a.values.length === b.values.length && a.values.every((x, i) => x === b.values[i] && a.counts[i] === b.counts[i])),
  };
}
