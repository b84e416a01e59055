/**
 * Parsing SQL text with node-sql-parser (PostgreSQL dialect) under a read budget, with the
 * workarounds the parser needs (negative big integers) and 1-based source positions.
 */
import sqlParser from 'node-sql-parser/build/postgresql.js';
import { CanopyError, type SourcePosition } from '../../merge/errors.ts';
import { type PeggyExpectation, expectedMessage, summariseExpected } from './expected.ts';
import { isNode } from './ast.ts';
import { fail } from './errors.ts';


export const parser = new sqlParser.Parser();

/**
 * Reads of the SQL text the parser may make: a base plus a multiple of the length.
 * Well-formed queries read each character 25-60 times (measured on 0.1-26 KB queries).
 */
export const PARSE_BUDGET_BASE = 50_000;
export const PARSE_BUDGET_PER_CHAR = 96;

export class ParseBudgetExceeded extends Error {}

/**
 * The SQL text as a String object that counts the parser's reads and remembers the furthest
 * offset read. node-sql-parser's PEG grammar has no memoisation and backtracks exponentially
 * on some malformed nested input (measured: 2-3x per level of parentheses; 20 unbalanced
 * "(" take minutes), so parsing stops once the read budget is spent. This relies on the
 * parser reading its input through these methods (`trimQuery: false` keeps the object);
 * test/sql-fuzz.test.ts checks that pathological input still fails fast.
 */
export class MeteredText extends String {
  furthest = 0;
  private reads = 0;

  constructor(
    text: string,
    private readonly budget: number,
  ) {
    super(text);
  }

  override charCodeAt(index: number): number {
    this.tick(index);
    return super.charCodeAt(index);
  }

  override charAt(index: number): string {
    this.tick(index);
    return super.charAt(index);
  }

  override substr(from: number, length?: number): string {
    this.tick(from);
    return super.substr(from, length);
  }

  override substring(start: number, end?: number): string {
    this.tick(start);
    return super.substring(start, end);
  }

  private tick(index: number): void {
    if (++this.reads > this.budget) throw new ParseBudgetExceeded();
    if (index > this.furthest) this.furthest = index;
  }
}

/** Parses the SQL text into node-sql-parser's AST (one statement or a list). */
/**
 * The identifier `GROUP BY ALL` is parsed as: node-sql-parser has no GROUP BY ALL, so `ALL`
 * becomes this quoted identifier of the same length (3 characters; positions are kept).
 */
export const GROUP_BY_ALL = '∀';

function markGroupByAll(text: string): string {
  return text.replace(/(\bGROUP\s+BY\s+)ALL\b/gi, (_m, head: string) => `${head}"${GROUP_BY_ALL}"`);
}

export function parse(sql: string): unknown {
  const separated = separateNegativeBigInts(sql);
  const text = markGroupByAll(separated.text);
  const toSourceOffset = separated.toSourceOffset;
  const input = new MeteredText(text, PARSE_BUDGET_BASE + PARSE_BUDGET_PER_CHAR * text.length);
  try {
    return parser.astify(input as unknown as string, { database: 'postgresql', trimQuery: false });
  } catch (e) {
    if (e instanceof ParseBudgetExceeded) {
      const position = positionAt(sql, toSourceOffset(input.furthest));
      fail(
        'CANOPY_ERR_BAD_QUERY',
        `syntax error near line ${position.line}, column ${position.column}: the parser gave up on this ` +
          'deeply nested expression; check the parentheses there',
        position,
      );
    }
    const start = isNode(e) && isNode(e.location) && isNode(e.location.start) ? e.location.start.offset : undefined;
    if (e instanceof Error && e.name === 'SyntaxError' && typeof start === 'number') {
      const position = positionAt(sql, toSourceOffset(start));
      // The grammar only knows DISTINCT inside count(); name the construct instead of the token.
      const distinct = /\b(sum|avg|min|max|approx_count_distinct|approx_quantile|median)\s*\(\s*distinct\b/i.exec(text);
      if (distinct !== null) {
        const at = positionAt(sql, toSourceOffset(distinct.index));
        fail('CANOPY_ERR_UNSUPPORTED', `${distinct[1]!.toUpperCase()}(DISTINCT ...) is not supported; only count(DISTINCT col) is (line ${at.line}, column ${at.column})`, at);
      }
      // The grammar's own list names every token of its dialect (often over 40): summarise it.
      const listed: unknown = (e as { expected?: unknown }).expected;
      const expected = summariseExpected(Array.isArray(listed) ? (listed as PeggyExpectation[]) : []);
      const found = (e as { found?: string | null }).found;
      const what = expected.length > 0 ? expectedMessage(expected, found) : e.message;
      throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${what}`, { position, details: { expected, found: found ?? null } });
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw e;
    fail('CANOPY_ERR_BAD_QUERY', `the query could not be parsed: ${e instanceof Error ? e.message : String(e)}`);
  }
}

/** 1-based line and column of a 0-based offset into `text` (lines end at "\n", as in the parser). */
export function positionAt(text: string, offset: number): SourcePosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, clamped);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: clamped - lineStart + 1, offset: clamped };
}

export const INTEGER_TAIL = /\d+/y;
export const NUMBER_TOKEN = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
export const WORD_TOKEN = /[A-Za-z_][A-Za-z0-9_$]*/y;
export const WORD_CHAR = /[A-Za-z0-9_.$]/;

/**
 * node-sql-parser reads `-9007199254740993` as one signed integer and, being below
 * Number.MAX_SAFE_INTEGER, turns it into a lossy double; `- 9007199254740993` becomes unary
 * minus over the exact digit string. So a space is inserted after the sign of negative
 * integer literals of 16+ digits. Strings, quoted identifiers and comments are skipped the
 * way the parser reads them (backslash escapes and '' inside '...'). Returns the new text
 * and a map from its offsets back to the caller's.
 */
export function separateNegativeBigInts(sql: string): { text: string; toSourceOffset: (offset: number) => number } {
  const signs: number[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`') i = skipQuoted(sql, i);
    else if (c === '-' && next === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && next === '*') i = skipBlockComment(sql, i);
    else if (c === '$' && next === '$') i = sql.includes('$$', i + 2) ? sql.indexOf('$$', i + 2) + 2 : sql.length;
    else if (c === '-') {
      INTEGER_TAIL.lastIndex = i + 1;
      const digits = INTEGER_TAIL.exec(sql)?.[0] ?? '';
      const after = sql[i + 1 + digits.length];
      if (digits.length >= 16 && (after === undefined || !WORD_CHAR.test(after))) signs.push(i);
      i += 1 + digits.length;
    } else i = skipToken(sql, i);
  }
  if (signs.length === 0) return { text: sql, toSourceOffset: (offset) => offset };
  let text = '';
  let from = 0;
  for (const sign of signs) {
    text += `${sql.slice(from, sign + 1)} `;
    from = sign + 1;
  }
  text += sql.slice(from);
  const toSourceOffset = (offset: number): number => {
    let shift = 0;
    for (const sign of signs) {
      if (sign + 1 + shift >= offset) break;
      shift++;
    }
    return offset - shift;
  };
  return { text, toSourceOffset };
}

/** Offset after the quoted string or identifier starting at `start`. */
export function skipQuoted(sql: string, start: number): number {
  const quote = sql[start];
  let i = start + 1;
  while (i < sql.length) {
    const c = sql[i];
    if (quote === "'" && c === '\\') i += 2;
    else if (c === quote && quote === "'" && sql[i + 1] === "'") i += 2;
    else if (c === quote) return i + 1;
    else i++;
  }
  return sql.length;
}

/** Offset after the (possibly nested) block comment starting at `start`. */
export function skipBlockComment(sql: string, start: number): number {
  let depth = 0;
  let i = start;
  while (i < sql.length) {
    if (sql.startsWith('/*', i)) {
      depth++;
      i += 2;
    } else if (sql.startsWith('*/', i)) {
      depth--;
      i += 2;
      if (depth === 0) return i;
    } else i++;
  }
  return sql.length;
}

/** Offset after the number or word at `start`, or after one character. */
export function skipToken(sql: string, start: number): number {
  for (const token of [NUMBER_TOKEN, WORD_TOKEN]) {
    token.lastIndex = start;
    if (token.test(sql)) return token.lastIndex;
  }
  return start + 1;
}
