/**
 * A short summary of what a syntax error expected. node-sql-parser's grammar (peggy) lists
 * every token of its whole dialect that could have come next (often 40 to 190 of them:
 * whitespace, comments, window functions, casts); an analyst needs the few that canopy's SQL
 * accepts there, most useful first: `)` when a parenthesis may close there, "a name", the
 * keywords canopy supports, "a number", "a string", then other punctuation.
 */

/** One entry of a peggy `SyntaxError.expected` list. */
export interface PeggyExpectation {
  readonly type: string;
  readonly text?: string;
  readonly parts?: readonly unknown[];
  readonly description?: string;
}

/** Keywords and functions of canopy's SQL (README: SQL), in the order they are worth suggesting. */
const CANOPY_WORDS = [
  'FROM', 'WHERE', 'GROUP', 'BY', 'HAVING', 'ORDER', 'LIMIT', 'AS', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN', 'IS', 'NULL',
  'ASC', 'DESC', 'NULLS', 'DISTINCT', 'TRUE', 'FALSE', 'COUNT', 'SUM', 'MIN', 'MAX', 'AVG', 'APPROX_COUNT_DISTINCT', 'APPROX_QUANTILE',
  'MEDIAN', 'DATE_TRUNC',
  // Last: where the grammar expects SELECT mid-query it offers a subquery (unsupported).
  'SELECT',
];
const RANK = new Map(CANOPY_WORDS.map((w, i) => [w, i]));
const PUNCTUATION = new Set(['(', ')', ',', '*', '=', '!=', '<>', '<', '<=', '>', '>=', ';']);

/**
 * At most `max` expected tokens worth showing, most useful first (see the module comment), for
 * the message and `details.expected` of CANOPY_ERR_BAD_QUERY;
 * whitespace, comments and tokens of constructs canopy does not support are dropped.
 */
export function summariseExpected(expected: readonly PeggyExpectation[], max = 6): string[] {
  const words = new Set<string>();
  const classes = new Set<string>();
  const punct = new Set<string>();
  for (const e of expected) {
    if (e.type === 'literal' && typeof e.text === 'string') {
      const t = e.text.toUpperCase();
      if (RANK.has(t)) words.add(t);
      else if (t === "'") classes.add('a string');
      else if (PUNCTUATION.has(t)) punct.add(t);
    } else if (e.type === 'class' && Array.isArray(e.parts)) {
      const flat = JSON.stringify(e.parts);
      if (flat.includes('["A","Z"]')) classes.add('a name');
      else if (flat === '[["0","9"]]') classes.add('a number');
    }
  }
  const ordered = [...words].sort((a, b) => RANK.get(a)! - RANK.get(b)!);
  const name = classes.has('a name') ? ['a name'] : [];
  const literals = ['a number', 'a string'].filter((k) => classes.has(k));
  // `)` first when the grammar takes one: a parenthesis is open (`sum(delay FROM`), and the
  // keywords that could continue the expression would otherwise push it out of the list.
  const close = punct.delete(')') ? [')'] : [];
  return [...close, ...name, ...ordered, ...literals, ...punct].slice(0, max);
}

/**
 * "expected NOT, a name or a number, but found end of input" from a peggy error's parts. A
 * found character that cannot be seen (a byte order mark, a no-break space, a control
 * character) is named by its code point: `found U+00A0`, not `found ' '`.
 */
export function expectedMessage(summary: readonly string[], found: string | null | undefined): string {
  const list = summary.length <= 1 ? (summary[0] ?? 'something else') : `${summary.slice(0, -1).join(', ')} or ${summary[summary.length - 1]}`;
  return `expected ${list}, but found ${found === null || found === undefined ? 'end of input' : shownToken(found)}`;
}

/** The blanks a keyboard types, named in words. */
const PLAIN_BLANKS: Readonly<Record<string, string>> = { ' ': 'a space', '\t': 'a tab', '\n': 'a line break', '\r': 'a line break' };

/** A token as a message quotes it: `'ORD'`, `a space`, or `U+FEFF` for one other character that cannot be seen. */
function shownToken(found: string): string {
  const plain = PLAIN_BLANKS[found];
  if (plain !== undefined) return plain;
  const cp = found.codePointAt(0)!;
  if (found.length === String.fromCodePoint(cp).length && /[\p{Z}\p{Cc}\p{Cf}]/u.test(found)) return `U+${cp.toString(16).toUpperCase().padStart(4, '0')} (a character that cannot be seen)`;
  return `'${found}'`;
}
