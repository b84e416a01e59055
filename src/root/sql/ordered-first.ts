/**
 * DuckDB's first / last / any_value (arbitrary) with ORDER BY inside, where every sort key is
 * the argument itself (`first(i ORDER BY i)`, `last(x ORDER BY x DESC NULLS FIRST)`): the row
 * taken is then fixed by the values alone (rows tied on the keys hold the same argument), and
 * it is an extreme, which min / max compute exactly over any shard split. DuckDB sorts NULLs
 * last by default in both directions (its default_null_order), so:
 * - first(x ORDER BY x [ASC] [NULLS LAST]) is min(x), DESC max(x) (NULLs only if all are);
 * - last(x ORDER BY x [ASC] NULLS FIRST) is max(x), DESC NULLS FIRST min(x);
 * - any_value skips NULLs: ORDER BY x [ASC] is min(x), DESC max(x), whatever the NULLS.
 * first with NULLS FIRST and last with NULLS LAST give NULL when any row's x is NULL, which
 * min / max do not say, so they are left as written (refused by the parser's message, naming
 * the construct). Keys after the first, all x too, change nothing (ties share x).
 * Rewritten in the text before the grammar reads it, keeping its length (error positions
 * stay): the name becomes `min` / `max` padded with spaces, the ORDER BY part spaces.
 */
import { blankQuotedAndComments } from './lexer.ts';
import { closingParen } from './rewrite.ts';

/** The calls read, to the aggregate each key direction and NULLS placement gives, or null (left as written). */
const CALLS: Readonly<Record<string, (desc: boolean, nullsFirst: boolean | null) => 'min' | 'max' | null>> = {
  first: (desc, nullsFirst) => (nullsFirst === true ? null : desc ? 'max' : 'min'),
  arbitrary: (desc, nullsFirst) => (nullsFirst === true ? null : desc ? 'max' : 'min'),
  last: (desc, nullsFirst) => (nullsFirst !== true ? null : desc ? 'min' : 'max'),
  any_value: (desc) => (desc ? 'max' : 'min'),
};

/** Top-level comma offsets of `code` (parentheses counted; quotes and comments already blanked). */
function topLevelCommas(code: string): number[] {
  const out: number[] = [];
  let depth = 0;
  for (let i = 0; i < code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') depth--;
    else if (c === ',' && depth === 0) out.push(i);
  }
  return out;
}

/** `text` cut at `cuts` (each cut character dropped). */
function cutAt(text: string, cuts: readonly number[]): string[] {
  const out: string[] = [];
  let from = 0;
  for (const c of cuts) {
    out.push(text.slice(from, c));
    from = c + 1;
  }
  out.push(text.slice(from));
  return out;
}

/** An expression's text compared loosely: case and the spaces next to operators do not matter (`i+1` is `i + 1`). */
const squash = (s: string): string => s.replace(/\s*([^\w\s])\s*/g, '$1').replace(/\s+/g, ' ').trim().toLowerCase();
const KEY = /^([\s\S]*?)(?:\s+(ASC|DESC))?(?:\s+NULLS\s+(FIRST|LAST))?\s*$/i;

/**
 * Rewrites first / last / any_value / arbitrary(x ORDER BY x ...) to min(x) / max(x) as the
 * module comment says, keeping the text's length; any other call is left as written.
 */
export function rewriteOrderedFirst(sql: string): string {
  const code = blankQuotedAndComments(sql);
  if (!/\border\s+by\b/i.test(code)) return sql;
  let out = sql;
  const calls = /\b(first|last|any_value|arbitrary)(\s*)\(/gi;
  for (let m = calls.exec(code); m !== null; m = calls.exec(code)) {
    // Not a qualified name (x.first(...)) nor a method call.
    if (m.index > 0 && /[.\w"]/.test(code[m.index - 1]!)) continue;
    const name = m[1]!;
    const open = m.index + name.length + m[2]!.length;
    const close = closingParen(sql, open);
    if (close < 0) continue;
    const inner = code.slice(open + 1, close);
    const order = /\s+order\s+by\s+/i.exec(inner);
    if (order === null || topLevelCommas(inner.slice(0, order.index)).length > 0) continue;
    // The ORDER BY must be at the call's own level, not inside a nested call.
    if (topLevelDepth(inner, order.index) !== 0) continue;
    const argText = sql.slice(open + 1, open + 1 + order.index);
    if (/^\s*(distinct|all)\b/i.test(argText)) continue;
    const keysFrom = open + 1 + order.index + order[0].length;
    const keysCode = code.slice(keysFrom, close);
    const keys = cutAt(sql.slice(keysFrom, close), topLevelCommas(keysCode)).map((k) => KEY.exec(k));
    if (keys.some((k) => k === null || squash(k[1]!) !== squash(argText))) continue;
    const first = keys[0]!;
    const nulls = first[3] === undefined ? null : first[3].toUpperCase() === 'FIRST';
    const fn = CALLS[name.toLowerCase()]!(first[2]?.toUpperCase() === 'DESC', nulls);
    if (fn === null) continue;
    out = out.slice(0, m.index) + fn.padEnd(name.length, ' ') + out.slice(m.index + name.length, open + 1 + order.index) + ' '.repeat(close - (open + 1 + order.index)) + out.slice(close);
  }
  return out;
}

/** The parenthesis depth at `at` within `code` (0 at its start). */
function topLevelDepth(code: string, at: number): number {
  let depth = 0;
  for (let i = 0; i < at; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')') depth--;
  }
  return depth;
}
