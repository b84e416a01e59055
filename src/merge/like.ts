/**
 * [I]LIKE matching without backtracking (pure). A pattern is cut at its unescaped `%` into
 * pieces of fixed length (literal code points and `_`, one code point each); the first piece
 * must match at the start of the string, the last at its end, and each piece in between is
 * placed at its leftmost match after the one before it. Leftmost placement is optimal, since
 * any later placement leaves less room for the pieces after it, so the greedy scan decides the
 * match in one pass: O(length of the string) for pieces without `_` (string search) and at
 * most O(length × pattern length) with them. A regular expression `^.*a.*a.*b$` backtracks
 * instead: V8 took 10 s for `'%a%a%b'` over 3,000 characters and minutes over 10,000, in a
 * leaf's synchronous loop that no deadline interrupts.
 */

/** A compiled [I]LIKE pattern: `test(s)` is whether the pattern matches all of `s`. */
export interface LikeMatcher {
  test(s: string): boolean;
}

/** `_` in a piece: any one code point. */
const ANY = -1;

/** A lone surrogate (with the `u` flag a well-formed pair is one code point, not matched). */
const LONE_SURROGATE = /[\uD800-\uDFFF]/u;

/**
 * Compiles a LIKE pattern (case-sensitive; ILIKE maps both sides with lower() first) over code
 * points: `%` any run, `_` one code point, `escape` (null: none; DuckDB has no default escape)
 * makes the next character literal (an escape at the very end is literal itself; callers refuse
 * that pattern first, as DuckDB does).
 */
export function likeMatcher(pattern: string, escape: string | null): LikeMatcher {
  // Pieces as code points (ANY for `_`), cut at each unescaped `%`.
  const pieces: number[][] = [[]];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    if (escape !== null && c === escape && i + 1 < chars.length) pieces.at(-1)!.push(chars[++i]!.codePointAt(0)!);
    else if (c === '%') pieces.push([]);
    else pieces.at(-1)!.push(c === '_' ? ANY : c.codePointAt(0)!);
  }
  // Without `_` and lone surrogates, pieces are strings matched in UTF-16 by the engine's string
  // search: a well-formed piece neither starts nor ends inside a surrogate pair of the string.
  if (pieces.every((p) => !p.includes(ANY)) && !LONE_SURROGATE.test(pattern)) {
    const texts = pieces.map((p) => String.fromCodePoint(...p));
    return { test: (s) => placeTexts(s, texts) };
  }
  return { test: (s) => placePieces(Array.from(s, (c) => c.codePointAt(0)!), pieces) };
}

/** Whether literal `texts` (the pattern's pieces between `%`) match all of `s`, greedily. */
function placeTexts(s: string, texts: readonly string[]): boolean {
  const first = texts[0]!;
  if (texts.length === 1) return s === first;
  const last = texts.at(-1)!;
  const end = s.length - last.length;
  if (end < first.length || !s.startsWith(first) || !s.endsWith(last)) return false;
  let pos = first.length;
  for (let k = 1; k < texts.length - 1; k++) {
    const t = texts[k]!;
    if (t === '') continue;
    const at = s.indexOf(t, pos);
    if (at < 0 || at + t.length > end) return false;
    pos = at + t.length;
  }
  return true;
}

/** Whether `pieces` (code points, ANY for `_`) match all of the code points `cps`, greedily. */
function placePieces(cps: readonly number[], pieces: readonly (readonly number[])[]): boolean {
  const first = pieces[0]!;
  if (pieces.length === 1) return cps.length === first.length && matchesAt(cps, 0, first);
  const last = pieces.at(-1)!;
  const end = cps.length - last.length;
  if (end < first.length || !matchesAt(cps, 0, first) || !matchesAt(cps, end, last)) return false;
  let pos = first.length;
  for (let k = 1; k < pieces.length - 1; k++) {
    const p = pieces[k]!;
    let at = pos;
    while (at + p.length <= end && !matchesAt(cps, at, p)) at++;
    if (at + p.length > end) return false;
    pos = at + p.length;
  }
  return true;
}

/** Whether piece `p` matches `cps` from index `at` (which leaves room for it). */
function matchesAt(cps: readonly number[], at: number, p: readonly number[]): boolean {
  for (let j = 0; j < p.length; j++) if (p[j] !== ANY && p[j] !== cps[at + j]) return false;
  return true;
}
