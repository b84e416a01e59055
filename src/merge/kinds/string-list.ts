/**
 * The `string_list` partial (string_agg / group_concat / listagg): every non-NULL value of a
 * group with its ORDER BY keys, sorted by the keys (each in its direction, NULLs last unless
 * NULLS FIRST, as DuckDB's ORDER BY: {@link compareForOrder}) and then by the value (JS
 * code-unit order, canopy's string order), so that the list does not depend on the shard
 * split or the merge order. Merged by a merge of the two sorted lists (associative and
 * commutative). A group keeps at most {@link STRING_LIST_BUDGET} values of at most
 * {@link STRING_LIST_CHARS} characters in all: past either, the merge (or the leaf) refuses
 * the query with CANOPY_ERR_LIMIT rather than answer with part of the list.
 */
import { compareForOrder, compareStrings } from '../compare.ts';
import { CanopyError } from '../errors.ts';
import type { ColumnType, Scalar } from '../types.ts';
import { tag, untag } from './argext.ts';
import type { StateKind } from './kind.ts';

/** Values one group's list may hold. */
export const STRING_LIST_BUDGET = 100_000;
/** Characters (UTF-16 code units) one group's list may hold, the values' lengths summed. */
export const STRING_LIST_CHARS = 16 * 1024 * 1024;

/** One ORDER BY key's direction: descending, and NULLs first. */
export interface ListOrder {
  readonly desc: boolean;
  readonly nullsFirst: boolean;
}

/** The values (sorted, see the file comment), each with its keys (`keys[i]`, one per ORDER BY item); `chars` their lengths summed. */
export interface StringList {
  readonly values: readonly string[];
  readonly keys: readonly (readonly Scalar[])[];
  readonly chars: number;
}

/**
 * The order of two entries (keys, value): by each key in its direction, then the value.
 * @returns negative when the first sorts first, 0 for equal keys and values
 */
export function compareEntries(order: readonly ListOrder[], ka: readonly Scalar[], va: string, kb: readonly Scalar[], vb: string): number {
  for (let k = 0; k < order.length; k++) {
    const c = compareForOrder(ka[k] ?? null, kb[k] ?? null, order[k]!.desc, order[k]!.nullsFirst);
    if (c !== 0) return c;
  }
  return compareStrings(va, vb);
}

/** True when two entries' keys compare equal (a tie of the ORDER BY, which DuckDB breaks by scan order). */
export function sameKeys(order: readonly ListOrder[], ka: readonly Scalar[], kb: readonly Scalar[]): boolean {
  return order.every((o, k) => compareForOrder(ka[k] ?? null, kb[k] ?? null, o.desc, o.nullsFirst) === 0);
}

/**
 * Throws when `count` values of `chars` characters exceed the budget.
 * @throws CanopyError CANOPY_ERR_LIMIT naming the limit
 */
export function checkListBudget(count: number, chars: number): void {
  if (count > STRING_LIST_BUDGET) throw new CanopyError('CANOPY_ERR_LIMIT', `string_agg: a group has more than ${STRING_LIST_BUDGET} values, the most canopy concatenates; filter the rows or group more finely`);
  if (chars > STRING_LIST_CHARS) throw new CanopyError('CANOPY_ERR_LIMIT', `string_agg: a group's values exceed ${STRING_LIST_CHARS} characters, the most canopy concatenates; filter the rows or group more finely`);
}

/**
 * A list from unsorted entries (sorted here); null for none.
 * @throws CanopyError CANOPY_ERR_LIMIT past the budget
 */
export function stringListOf(order: readonly ListOrder[], entries: readonly { readonly keys: readonly Scalar[]; readonly value: string }[]): StringList | null {
  if (entries.length === 0) return null;
  let chars = 0;
  for (const e of entries) chars += e.value.length;
  checkListBudget(entries.length, chars);
  const sorted = [...entries].sort((a, b) => compareEntries(order, a.keys, a.value, b.keys, b.value));
  return { values: sorted.map((e) => e.value), keys: sorted.map((e) => e.keys), chars };
}

/**
 * Merges two lists (pure): a merge of the sorted lists.
 * @throws CanopyError CANOPY_ERR_LIMIT past the budget
 */
export function stringListMerge(order: readonly ListOrder[], a: StringList | null, b: StringList | null): StringList | null {
  if (a === null) return b;
  if (b === null) return a;
  checkListBudget(a.values.length + b.values.length, a.chars + b.chars);
  const values: string[] = [];
  const keys: (readonly Scalar[])[] = [];
  let i = 0;
  let j = 0;
  while (i < a.values.length || j < b.values.length) {
    const takeA = j >= b.values.length || (i < a.values.length && compareEntries(order, a.keys[i]!, a.values[i]!, b.keys[j]!, b.values[j]!) <= 0);
    if (takeA) {
      values.push(a.values[i]!);
      keys.push(a.keys[i++]!);
    } else {
      values.push(b.values[j]!);
      keys.push(b.keys[j++]!);
    }
  }
  return { values, keys, chars: a.chars + b.chars };
}

/**
 * The string-list state kind for ORDER BY keys of `order` (none: the values in their own
 * order). Encoded as UTF-8 JSON: an array of entries, each the keys as tagged scalars
 * (src/merge/kinds/argext.ts; null for NULL) followed by the value. `finalise` is not used by
 * string_agg (it reads the state); it gives the number of values.
 * @throws CanopyError CANOPY_ERR_TYPE for an argument that is not a string
 */
export function stringListKind(argType: ColumnType | null, order: readonly ListOrder[]): StateKind<StringList | null> {
  if (argType !== 'string') throw new CanopyError('CANOPY_ERR_TYPE', `a string list needs a string argument, not ${argType ?? 'none'}`);
  return {
    kind: 'string_list',
    argType,
    encoding: 'utf8',
    empty: () => null,
    merge: (a, b) => stringListMerge(order, a, b),
    finalise: (s) => (s === null ? null : s.values.length),
    encode: (s) => (s === null ? null : JSON.stringify(s.values.map((v, i) => [...s.keys[i]!.map((k) => (k === null ? null : tag(k))), v]))),
    decode(v) {
      if (v === null) return null;
      if (typeof v !== 'string') throw new Error('bad string list: not text');
      const rows: unknown = JSON.parse(v);
      if (!Array.isArray(rows) || rows.length === 0) throw new Error('bad string list: not a non-empty array');
      const values: string[] = [];
      const keys: Scalar[][] = [];
      let chars = 0;
      for (const row of rows as unknown[]) {
        if (!Array.isArray(row) || row.length !== order.length + 1 || typeof row[order.length] !== 'string') throw new Error(`bad string list: an entry is not ${order.length} keys and a string`);
        const value = row[order.length] as string;
        const k = row.slice(0, order.length).map((t: unknown) => (t === null ? null : untag(t)));
        if (values.length > 0 && compareEntries(order, keys[keys.length - 1]!, values[values.length - 1]!, k, value) > 0) throw new Error('bad string list: entries not in order');
        values.push(value);
        keys.push(k);
        chars += value.length;
      }
      checkListBudget(values.length, chars);
      return { values, keys, chars };
    },
    equals: (a, b) =>
      a === null || b === null
        ? a === b
        : a.values.length === b.values.length && a.values.every((x, i) => x === b.values[i] && a.keys[i]!.every((k, c) => typeof k === typeof b.keys[i]![c] && Object.is(k, b.keys[i]![c]))),
  };
}
