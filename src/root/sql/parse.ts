/**
 * Parsing SQL text with node-sql-parser (PostgreSQL dialect) under a read budget, with the
 * workarounds the parser needs (negative big integers) and 1-based source positions.
 */
import sqlParser from 'node-sql-parser/build/postgresql.js';
import { CanopyError } from '../../merge/errors.ts';
import { type PeggyExpectation, expectedMessage, summariseExpected } from './expected.ts';
import { isNode, listItems, visitNodes } from './ast.ts';
import { functionName } from './expressions.ts';
import { fail } from './errors.ts';
import { rewriteOrderedFirst } from './ordered-first.ts';
import { type FilterText, holdsCondition, mergeDistinctFrom, refuseStrayMarkers, repairRewrites, rewriteForGrammar } from './rewrite.ts';
import { SUPPORTED_WINDOWS, WINDOW_FNS as WINDOW_AGGREGATES } from './windows.ts';
import { parenthesiseCastChains, parenthesiseLikeLiterals, repairStarExcludes, rewriteLiteralCollations, rewriteFromFirst, rewriteQuantifiedLists, rewriteStarExcludes, rewriteSubscripts } from './front.ts';
import { BITWISE_STAND_INS, POWER_STAND_IN, STARTS_WITH_STAND_IN, repairBitwise, repairPowers, rewriteBitwise, rewriteDoubleEquals, rewriteMaterialized, rewritePowers, repairCastTypes, repairFunctionChains, repairStarLists, rewriteCallChains, rewriteCastTypes, rewriteSubstringFrom, rewriteDollarQuotes, rewriteKeywordAliases, rewritePrefixAliases, rewriteStarLists, repairLimitPercents, repairStartsWith, repairTryCasts, rewriteLimitPercents, rewriteStartsWith, rewriteTryCasts, rewriteTypedTimestamps } from './surface.ts';
import { WORD_CHAR, WORD_TOKEN, blankQuotedAndComments, decodeEscapeStrings, positionAt, protectDecimals, quotedTokens, separateNegativeBigInts, skipBlockComment, skipDollarQuoted, skipQuoted, skipToken, unterminated } from './lexer.ts';

export { INTEGER_TAIL, NUMBER_TOKEN, WORD_CHAR, WORD_TOKEN, positionAt, separateNegativeBigInts, skipBlockComment, skipQuoted, skipToken } from './lexer.ts';


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
 * The identifier `GROUP BY ALL` and `ORDER BY ALL` are parsed as: node-sql-parser has neither,
 * so `ALL` becomes this quoted identifier of the same length (3 characters; positions are kept).
 */
export const GROUP_BY_ALL = '∀';

const BY_ALL = /(?<![A-Za-z0-9_.$])((?:GROUP|ORDER)\s+BY\s+)ALL\b/gi;

/**
 * `GROUP BY ALL` / `ORDER BY ALL` marked for the grammar ({@link GROUP_BY_ALL}), outside
 * strings, quoted names and comments: the words inside a literal (`'ORDER BY ALL'`) are text
 * and stay as they are.
 */
function markGroupByAll(text: string): string {
  if (!/\bALL\b/i.test(text)) return text;
  // Found in the text with its strings, quoted names and comments blanked (same offsets).
  const code = blankQuotedAndComments(text);
  let out = '';
  let from = 0;
  for (const m of code.matchAll(BY_ALL)) {
    out += `${text.slice(from, m.index)}${m[1]!}"${GROUP_BY_ALL}"`;
    from = m.index + m[0].length;
  }
  return from === 0 ? text : out + text.slice(from);
}

export function parse(sql: string): unknown {
  refuseUnreadable(sql);
  refuseOtherStatements(sql);
  refuseReservedAlias(sql);
  refuseReservedItemAlias(sql);
  // E'...' strings as standard literals of their values (same length: offsets hold).
  const guarded = guardBackslashes(decodeEscapeStrings(sql));
  const quoted = guardDoubledQuotes(guarded.text);
  let ast: unknown;
  try {
    ast = parseText(quoted.text, sql, guarded.mark, quoted.mark);
  } catch (e) {
    const unknown = e instanceof CanopyError && e.position !== undefined ? unknownCastType(sql, e.position.offset) : null;
    if (unknown === null) throw e;
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `Type with name ${unknown} does not exist (as DuckDB refuses it)`, { position: (e as CanopyError).position!, details: { expected: [], found: unknown } });
  }
  if (guarded.mark !== null) ast = restoreBackslashes(ast, guarded.mark);
  return quoted.mark === null ? ast : restoreMarks(ast, quoted.mark + quoted.mark, '"');
}

/** The first words of DuckDB's type names (duckdb_types(), and the SQL standard's CHARACTER / NATIONAL / DOUBLE PRECISION). */
const DUCKDB_TYPE_WORDS: ReadonlySet<string> = new Set([
  'ARRAY', 'BIGINT', 'BIGNUM', 'BINARY', 'BIT', 'BITSTRING', 'BLOB', 'BOOL', 'BOOLEAN', 'BPCHAR', 'BYTEA', 'CHAR', 'CHARACTER', 'DATE', 'DATETIME', 'DEC', 'DECIMAL',
  'DOUBLE', 'ENUM', 'FLOAT', 'FLOAT4', 'FLOAT8', 'GEOMETRY', 'GUID', 'HUGEINT', 'INT', 'INT1', 'INT128', 'INT16', 'INT2', 'INT32', 'INT4', 'INT64', 'INT8',
  'INTEGER', 'INTEGRAL', 'INTERVAL', 'JSON', 'LIST', 'LOGICAL', 'LONG', 'MAP', 'NATIONAL', 'NCHAR', 'NULL', 'NUMERIC', 'NVARCHAR', 'OID', 'REAL', 'ROW', 'SHORT',
  'SIGNED', 'SMALLINT', 'STRING', 'STRUCT', 'TEXT', 'TIME', 'TIMESTAMP', 'TIMESTAMPTZ', 'TIMESTAMP_MS', 'TIMESTAMP_NS', 'TIMESTAMP_S', 'TIMESTAMP_US', 'TIMETZ',
  'TIME_NS', 'TINYINT', 'TYPE', 'UBIGINT', 'UHUGEINT', 'UINT128', 'UINT16', 'UINT32', 'UINT64', 'UINT8', 'UINTEGER', 'UNION', 'USMALLINT', 'UTINYINT', 'UUID',
  'VARBINARY', 'VARCHAR', 'VARIANT', 'VARINT', 'MEDIUMINT',
]);

/**
 * The cast target a syntax error at `offset` stopped after, when it is a name DuckDB has no
 * type for (`CAST(j AS NOSUCHTYPE)`, `j::NOSUCHTYPE`), or null: the grammar reports those as
 * a syntax error further on, where DuckDB says the type does not exist.
 */
function unknownCastType(sql: string, offset: number): string | null {
  const before = blankQuotedAndComments(sql.slice(0, offset));
  const m = /(::|\bAS)\s*([A-Za-z_][A-Za-z0-9_]*)\s*$/i.exec(before);
  if (m === null || DUCKDB_TYPE_WORDS.has(m[2]!.toUpperCase())) return null;
  if (m[1] !== '::') {
    // AS inside an open CAST( / TRY_CAST( (not an alias): the last unclosed parenthesis follows CAST.
    let depth = 0;
    let i = m.index - 1;
    for (; i >= 0; i--) {
      if (before[i] === ')') depth++;
      else if (before[i] === '(' && depth-- === 0) break;
    }
    if (i < 0 || !/\b(?:TRY_)?CAST\s*$/i.test(before.slice(0, i))) return null;
  }
  return m[2]!;
}

/**
 * A quoted name holds a double quote written twice (`"q""c"`, the name `q"c`, as SQL and
 * DuckDB read it; a CSV column may be named so); node-sql-parser's grammar ends the name at
 * the first quote. Each quote of such a pair stands in as `mark` (a private-use character the
 * text does not hold, so every offset is kept) while the grammar reads the text; the pair is
 * put back as one quote in every string of the tree after.
 */
function guardDoubledQuotes(sql: string): { text: string; mark: string | null } {
  if (!sql.includes('""')) return { text: sql, mark: null };
  const mark = unusedPrivateChar(sql);
  let out = '';
  let from = 0;
  for (const t of quotedTokens(sql)) {
    if (t.kind !== 'name') continue;
    const body = sql.slice(t.start + 1, t.end);
    if (body.includes('""')) {
      out += sql.slice(from, t.start + 1) + body.replaceAll('""', mark + mark);
      from = t.end;
    }
  }
  return from === 0 ? { text: sql, mark: null } : { text: out + sql.slice(from), mark };
}

/** Replaces `mark` by `text` in every string of the tree (in place), and returns it. */
function restoreMarks(ast: unknown, mark: string, text: string): unknown {
  const stack: unknown[] = [ast];
  while (stack.length > 0) {
    const v = stack.pop();
    if (typeof v !== 'object' || v === null) continue;
    const o = v as Record<string, unknown>;
    for (const k of Object.keys(o)) {
      const x = o[k];
      if (typeof x === 'string') {
        if (x.includes(mark)) o[k] = x.replaceAll(mark, text);
      } else if (typeof x === 'object' && x !== null) stack.push(x);
    }
  }
  return ast;
}

/**
 * Two things outside strings, quoted names and comments that node-sql-parser's grammar
 * would read otherwise than DuckDB, refused at their position:
 * - a backtick (MySQL's quoted name `j`): DuckDB has no such quoting (it reads the backtick
 *   as an operator and refuses the query), and the grammar would read it as a quoted name and answer;
 * - a block comment never closed (`WHERE j > 0 /* AND j < 3`): DuckDB refuses it
 *   ("unterminated /* comment"); the grammar read `/` and `*` as operators there, and
 *   refused the query for a `*` it did not expect.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY at the backtick or the comment's opening
 */
/** Statements DuckDB answers that the grammar does not read, with what canopy offers instead. */
const OTHER_STATEMENTS: Readonly<Record<string, string>> = {
  EXPLAIN: 'POST /v1/query with "trace": true gives each gather\'s timings and each shard\'s provenance',
  DESCRIBE: 'GET /v1/catalog lists each table\'s columns, types, min, max and null count',
  SUMMARIZE: 'GET /v1/catalog lists each table\'s columns, types, min, max and null count',
};

/**
 * Refuses EXPLAIN, DESCRIBE and SUMMARIZE (the first word, after comments) as unsupported,
 * saying what to use; the grammar would call them a syntax error at column 1.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED at the word
 */
function refuseOtherStatements(sql: string): void {
  const blanked = blankQuotedAndComments(sql);
  const at = blanked.search(/\S/);
  const word = at < 0 ? undefined : /^[A-Za-z]+/.exec(blanked.slice(at))?.[0].toUpperCase();
  const instead = word === undefined ? undefined : OTHER_STATEMENTS[word];
  if (instead === undefined) return;
  throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `${word!} is not supported; canopy runs one SELECT per query (${instead})`, { position: positionAt(sql, at) });
}

function refuseUnreadable(sql: string): void {
  if (!sql.includes('`') && !sql.includes('/*')) return;
  let i = 0;
  while (i < sql.length) {
    const c = sql[i];
    const next = sql[i + 1];
    if (c === '-' && next === '-') i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (c === '/' && next === '*') {
      const start = i;
      i = skipBlockComment(sql, i);
      if (i === sql.length && unterminated(sql.slice(start)) !== null) {
        const position = positionAt(sql, start);
        throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: the /* comment opened here is never closed; expected */ before the end of the query`, { position, details: { expected: ['*/'], found: null } });
      }
    }
    else if (c === '"') i = skipQuoted(sql, i);
    else if (c === '$' && skipDollarQuoted(sql, i) !== null) i = skipDollarQuoted(sql, i)!;
    else if (c === "'") {
      // E'...' reads backslash escapes; a standard string ends at a quote not doubled.
      if (i > 0 && /[eE]/.test(sql[i - 1]!) && (i < 2 || !WORD_CHAR.test(sql[i - 2]!))) i = skipQuoted(sql, i);
      else {
        let j = i + 1;
        while (j < sql.length && !(sql[j] === "'" && sql[j + 1] !== "'")) j += sql[j] === "'" ? 2 : 1;
        i = j + 1;
      }
    } else if (c === '`') {
      const position = positionAt(sql, i);
      throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: a backtick does not quote a name in DuckDB's SQL (it is MySQL's); quote names with double quotes, "name"`, { position, details: { expected: [], found: '`' } });
    } else i++;
  }
}

/**
 * The keywords DuckDB 1.5 refuses as a table's alias (`SELECT j FROM t <word>` is a syntax
 * error there: its `reserved` and most `type_function` keywords, from duckdb_keywords()) that
 * node-sql-parser's grammar takes as the alias (the others it reads as a clause or refuses):
 * `FROM t QUALIFY` (a QUALIFY whose condition was left out), `FROM t TABLESAMPLE`, `FROM t AS
 * pivot`, `FROM t natural` were answered from every row of t.
 */
const DUCKDB_RESERVED_ALIASES = [
  'analyse', 'analyze', 'anti', 'any', 'array', 'asof', 'asymmetric', 'authorization', 'binary', 'both', 'cast', 'check', 'collate', 'collation',
  'column', 'concurrently', 'cross', 'default', 'deferrable', 'describe', 'do', 'fetch', 'for', 'foreign', 'freeze', 'glob', 'initially', 'isnull',
  'lambda', 'lateral', 'leading', 'natural', 'notnull', 'only', 'overlaps', 'pivot', 'pivot_longer', 'pivot_wider', 'placing', 'positional',
  'primary', 'qualify', 'references', 'returning', 'semi', 'similar', 'some', 'summarize', 'symmetric', 'tablesample', 'to', 'trailing', 'unique',
  'unpack', 'unpivot', 'variadic', 'verbose',
] as const;

/**
 * One of {@link DUCKDB_RESERVED_ALIASES} after `FROM name [AS]`, where the grammar ends the
 * FROM item (a clause, the end): there it can only be the alias. `FROM t TABLESAMPLE 10%` is
 * the sample clause and `FROM t NATURAL JOIN u` a join, refused as such.
 */
const RESERVED_AS_ALIAS = new RegExp(
  `\\bFROM\\s+(?:[A-Za-z_][\\w$]*(?:\\s*\\.\\s*[A-Za-z_][\\w$]*)*\\s+)?(?:AS\\s+)?(${DUCKDB_RESERVED_ALIASES.join('|')})\\b` +
    '(?=\\s*(?:$|;|\\)|,|\\b(?:WHERE|GROUP|HAVING|ORDER|LIMIT|OFFSET|FETCH|UNION|EXCEPT|INTERSECT|WINDOW)\\b))',
  'i',
);

/**
 * Refuses a keyword DuckDB reserves read as a table's alias ({@link RESERVED_AS_ALIAS}); a
 * quoted alias ("qualify") is a name, as in DuckDB.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY at the word
 */
function refuseReservedAlias(sql: string): void {
  // The raw text first: blanking strings and comments costs a pass over every query.
  if (!RESERVED_AS_ALIAS.test(sql)) return;
  const m = RESERVED_AS_ALIAS.exec(blankQuotedAndComments(sql));
  if (m === null) return;
  const word = m[1]!;
  const position = positionAt(sql, m.index + m[0].length - word.length);
  throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${word.toUpperCase()} is a reserved word in DuckDB's SQL, not a table alias${word.toUpperCase() === 'QUALIFY' ? ' (a QUALIFY clause needs a condition, and canopy does not support QUALIFY)' : ''}; quote it ("${word.toLowerCase()}") to alias the table so`, { position, details: { expected: ['WHERE', 'GROUP', 'HAVING', 'ORDER', 'LIMIT'], found: word } });
}

/**
 * The keywords DuckDB 1.5 refuses as a SELECT item's alias written without AS (`SELECT j to
 * FROM t` is a syntax error there; `j AS to` is not) that node-sql-parser's grammar takes as
 * that alias (from duckdb_keywords(), each tried in DuckDB and here).
 */
const DUCKDB_RESERVED_BARE_LABELS: ReadonlySet<string> = new Set([
  'analyse', 'analyze', 'anti', 'any', 'array', 'asof', 'asymmetric', 'authorization', 'binary', 'both', 'cast', 'check', 'collate', 'collation',
  'column', 'columns', 'concurrently', 'cross', 'default', 'deferrable', 'describe', 'do', 'fetch', 'for', 'foreign', 'freeze', 'generated',
  'initially', 'lambda', 'lateral', 'leading', 'map', 'natural', 'only', 'overlaps', 'pivot', 'pivot_longer', 'pivot_wider', 'placing', 'positional',
  'primary', 'qualify', 'references', 'returning', 'semi', 'similar', 'some', 'struct', 'summarize', 'symmetric', 'tablesample', 'to', 'trailing',
  'try_cast', 'unique', 'unpack', 'unpivot', 'variadic', 'verbose',
]);

/** A quick test of the raw text for {@link refuseReservedItemAlias}: one of the words at all. */
const BARE_LABEL_WORD = new RegExp(`\\b(?:${[...DUCKDB_RESERVED_BARE_LABELS].join('|')})\\b`, 'i');

/**
 * Refuses an item of the outermost SELECT list whose alias, written without AS, is a keyword
 * DuckDB reserves ({@link DUCKDB_RESERVED_BARE_LABELS}): `SELECT j natural FROM t` was answered
 * with j named natural where DuckDB refuses the syntax. Only items at the list's own depth are
 * read (a word inside a call, `trim(both FROM s)`, is not an alias).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY at the word
 */
function refuseReservedItemAlias(sql: string): void {
  if (!BARE_LABEL_WORD.test(sql)) return;
  const code = blankQuotedAndComments(sql);
  const at = (re: RegExp, i: number): boolean => re.test(code.slice(i, i + 12)) && (i === 0 || !WORD_CHAR.test(code[i - 1]!));
  let depth = 0;
  let start = -1;
  for (let i = 0; i < code.length && start < 0; i++) {
    if (code[i] === '(') depth++;
    else if (code[i] === ')') depth--;
    else if (depth === 0 && at(/^SELECT\b/i, i)) start = i + 6;
  }
  if (start < 0) return;
  const check = (from: number, to: number): void => {
    const item = code.slice(from, to);
    const m = /\s([A-Za-z_]+)\s*$/.exec(item);
    if (m === null || !DUCKDB_RESERVED_BARE_LABELS.has(m[1]!.toLowerCase()) || /\bAS\s+[A-Za-z_]+\s*$/i.test(item)) return;
    const word = m[1]!;
    const offset = from + m.index + 1;
    // In the text as written (a quoted name or string is blank in `code`): nothing after the
    // word (`SIMILAR TO 'a%'` ends in a string), and an operand before it, not an operator word.
    if (sql.slice(offset + word.length, to).trim() !== '') return;
    const before = sql.slice(from, offset).trimEnd();
    if (!/[\w)\]"']$/.test(before) || /\b(?:SIMILAR|NOT|IS|LIKE|ILIKE|GLOB|AND|OR|IN|BETWEEN|ESCAPE|DISTINCT|AT|TO|AS)$/i.test(before)) return;
    const position = positionAt(sql, offset);
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${word.toUpperCase()} is a reserved word in DuckDB's SQL, not a column alias without AS; write AS ${word.toLowerCase()} (or quote it, "${word.toLowerCase()}")`, { position, details: { expected: ['AS', ',', 'FROM'], found: word } });
  };
  let itemStart = start;
  depth = 0;
  for (let i = start; i <= code.length; i++) {
    const c = code[i];
    if (c === '(' || c === '[') depth++;
    else if (c === ')' || c === ']') {
      if (depth === 0) return check(itemStart, i);
      depth--;
    } else if (depth === 0 && (i === code.length || c === ';' || at(/^(?:FROM|WHERE|GROUP|HAVING|ORDER|LIMIT|OFFSET|QUALIFY|WINDOW|UNION|EXCEPT|INTERSECT)\b/i, i))) {
      return check(itemStart, i);
    } else if (depth === 0 && c === ',') {
      check(itemStart, i);
      itemStart = i + 1;
    }
  }
}

/** A private-use character (U+E000 on) that `sql` does not hold: a stand-in that keeps every offset. */
function unusedPrivateChar(sql: string): string {
  let code = 0xe000;
  while (sql.includes(String.fromCharCode(code)) && code < 0xf8ff) code++;
  return String.fromCharCode(code);
}

/**
 * Standard SQL (and DuckDB) reads a backslash in a '...' string as itself: `'a\nb'` is four
 * characters, `'C:\'` ends at its second quote. node-sql-parser's grammar reads C-style
 * escapes there (`\n` a newline, `\'` a quote), which would change literals silently. So
 * each backslash inside a standard string literal stands in as `mark` (a private-use
 * character the text does not hold, one UTF-16 unit, so every offset is kept) while the
 * grammar reads the text, and is put back in every string of the tree after. `E'...'`
 * strings keep their escapes, as in PostgreSQL and DuckDB.
 */
function guardBackslashes(sql: string): { text: string; mark: string | null } {
  if (!sql.includes('\\')) return { text: sql, mark: null };
  const mark = unusedPrivateChar(sql);
  let out = '';
  let from = 0;
  for (const t of quotedTokens(sql)) {
    if (t.kind !== 'string') continue;
    const body = sql.slice(t.start, t.end);
    if (body.includes('\\')) {
      out += sql.slice(from, t.start) + body.replaceAll('\\', mark);
      from = t.end;
    }
  }
  return from === 0 ? { text: sql, mark: null } : { text: out + sql.slice(from), mark };
}

/** Puts the backslashes {@link guardBackslashes} stood in for back into every string of the tree. */
function restoreBackslashes(ast: unknown, mark: string): unknown {
  return restoreMarks(ast, mark, '\\');
}

function parseText(text: string, sql: string, mark: string | null = null, quoteMark: string | null = null): unknown {
  try {
    return parseGuarded(text, sql);
  } catch (e) {
    // A syntax error quotes the text it found: with the backslashes and quotes the user wrote.
    const given: [string | null, string][] = [[mark, '\\'], [quoteMark, '"']];
    const marks = given.filter((m): m is [string, string] => m[0] !== null && e instanceof CanopyError && JSON.stringify([e.message, e.details ?? null]).includes(m[0]));
    if (marks.length > 0 && e instanceof CanopyError) {
      const details: unknown = e.details === undefined ? undefined : marks.reduce<unknown>((d, [m, t]) => restoreMarks(d, m, t), structuredClone(e.details));
      const message = marks.reduce((msg, [m, t]) => msg.replaceAll(m, t), e.message);
      throw new CanopyError(e.code, message, { ...(e.position === undefined ? {} : { position: e.position }), details });
    }
    throw e;
  }
}

function parseGuarded(text: string, sql: string): unknown {
  const dollars = rewriteDollarQuotes(text);
  const fromFirst0 = rewriteFromFirst(dollars.text);
  const fromFirst = { ...fromFirst0, toSourceOffset: (offset: number): number => dollars.toSourceOffset(fromFirst0.toSourceOffset(offset)) };
  if (fromFirst.refusal !== undefined) {
    const position = positionAt(sql, dollars.toSourceOffset(fromFirst.refusal.offset));
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${fromFirst.refusal.message}`, { position, details: { expected: [], found: tokenAt(sql, position.offset) } });
  }
  const quantified = rewriteQuantifiedLists(fromFirst.text, (offset) => positionAt(sql, fromFirst.toSourceOffset(offset)));
  const typed = rewriteTypedTimestamps(quantified.text);
  const substrings = rewriteSubstringFrom(typed.text);
  const chains = rewriteCallChains(substrings.text);
  const castTypes = rewriteCastTypes(chains.text);
  const powers = rewritePowers(rewriteMaterialized(rewriteDoubleEquals(castTypes.text)));
  const bitwise = rewriteBitwise(powers.text);
  const subscripts = rewriteSubscripts(bitwise.text);
  const castChains = parenthesiseCastChains(subscripts.text);
  const collates = rewriteLiteralCollations(castChains.text);
  const likes = parenthesiseLikeLiterals(collates.text);
  const stars = rewriteStarExcludes(likes.text);
  const lists = rewriteStarLists(stars.text);
  const tries = rewriteTryCasts(lists.text);
  const percents = rewriteLimitPercents(tries.text);
  const aliases = rewritePrefixAliases(percents.text);
  const keywordAliases = rewriteKeywordAliases(aliases.text);
  const startsWith = rewriteStartsWith(keywordAliases.text);
  // first(x ORDER BY x) and its kin as min / max (same length: offsets unchanged).
  const separated = separateNegativeBigInts(rewriteOrderedFirst(startsWith.text));
  const compact = compactLiteralLists(markGroupByAll(separated.text));
  const rewritten = rewriteForGrammar(compact.text);
  // An offset inside a rewritten IS [NOT] DISTINCT FROM is reported at its IS.
  const spanStart = (offset: number): number => rewritten.spans.find(([from, to]) => offset > from && offset < to)?.[0] ?? offset;
  const toSourceOffset = (offset: number): number => fromFirst.toSourceOffset(quantified.toSourceOffset(typed.toSourceOffset(substrings.toSourceOffset(chains.toSourceOffset(castTypes.toSourceOffset(powers.toSourceOffset(bitwise.toSourceOffset(subscripts.toSourceOffset(castChains.toSourceOffset(collates.toSourceOffset(likes.toSourceOffset(stars.toSourceOffset(lists.toSourceOffset(tries.toSourceOffset(percents.toSourceOffset(aliases.toSourceOffset(keywordAliases.toSourceOffset(separated.toSourceOffset(compact.toSourceOffset(spanStart(offset)))))))))))))))))))));
  if (rewritten.refusal !== null) {
    const position = positionAt(sql, toSourceOffset(rewritten.refusal.offset));
    const found = /^[A-Za-z_]+/.exec(sql.slice(position.offset))?.[0] ?? null;
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${rewritten.refusal.message}`, { position, details: { expected: [], found } });
  }
  const ast = astify(rewritten.text, sql, toSourceOffset);
  wrapBareSelectItems(ast);
  repairRewrites(
    ast,
    rewritten,
    (k) => filterCondition(rewritten.filters[k]!, sql, toSourceOffset),
    (k) => positionAt(sql, toSourceOffset(rewritten.filters[k]!.keyword)),
  );
  const listed = compact.lists.length === 0 ? ast : expandLiteralLists(ast, compact.lists);
  const repaired = repairNotCalls(repairLogicalPrecedence(repairConcatPrecedence(bitwise.rewritten ? repairUnaryMinus(listed) : listed)));
  // Where the text has one IS [NOT] DISTINCT FROM, a stray marker is that one.
  const only = rewritten.spans.length === 1 ? rewritten.spans[0]![0] : undefined;
  repairStarExcludes(repaired, stars.excludes);
  repairStarLists(repaired, lists.renames);
  repairLimitPercents(repaired, percents.percents);
  if (startsWith.rewritten) repairStartsWith(repaired);
  if (powers.rewritten) repairPowers(repaired);
  if (bitwise.rewritten) repairBitwise(repaired);
  repairFunctionChains(repaired);
  repairCastTypes(repaired, castTypes.types);
  repairTryCasts(repaired, (k) => {
    const position = positionAt(sql, fromFirst.toSourceOffset(quantified.toSourceOffset(typed.toSourceOffset(substrings.toSourceOffset(chains.toSourceOffset(castTypes.toSourceOffset(powers.toSourceOffset(bitwise.toSourceOffset(subscripts.toSourceOffset(castChains.toSourceOffset(collates.toSourceOffset(likes.toSourceOffset(stars.toSourceOffset(lists.toSourceOffset(tries.tries[k]!)))))))))))))));
    throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: TRY_CAST takes (expression AS type)`, { position, details: { expected: ['AS'], found: sql.slice(position.offset, position.offset + 8) } });
  });
  refuseChainedComparisons(repaired);
  refuseStrayMarkers(repaired, rewritten, only === undefined ? undefined : positionAt(sql, toSourceOffset(only)));
  return repaired;
}

/**
 * A SELECT item the grammar gives as the expression itself with its alias (`x::T::U` is a
 * cast node with `as`), instead of `{type: 'expr', expr, as}`: wrapped like the others, in
 * every SELECT of the tree.
 */
function wrapBareSelectItems(ast: unknown): void {
  visitNodes(ast, (v) => {
    if (v.type !== 'select' || !Array.isArray(v.columns)) return;
    v.columns = v.columns.map((c: unknown) => {
      if (!isNode(c) || c.type === 'expr' || c.type === 'star' || typeof c.type !== 'string') return c;
      const { as, ...expr } = c;
      return { type: 'expr', expr, as: as ?? null };
    });
  });
}

const CONDITION_PREFIX = 'SELECT 1 FROM t WHERE ';

/**
 * Parses a FILTER condition taken out of the text on its own, as the WHERE of a SELECT
 * whose text puts it at its own offset (so syntax errors keep their positions).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when it is not one condition
 */
function filterCondition(f: FilterText, sql: string, toSourceOffset: (offset: number) => number): unknown {
  const aligned = f.offset >= CONDITION_PREFIX.length;
  const text = aligned ? CONDITION_PREFIX.padEnd(f.offset, ' ') + f.text : CONDITION_PREFIX + f.text;
  const shift = aligned ? 0 : f.offset - CONDITION_PREFIX.length;
  const ast = astify(text, sql, (offset) => toSourceOffset(offset + shift));
  const only = Array.isArray(ast) ? (ast.length === 1 ? ast[0] : null) : ast;
  const empty = (v: unknown): boolean => v == null || v === false || v === '' || (Array.isArray(v) ? v.every(empty) : isNode(v) && Object.values(v).every(empty));
  const extra = ['groupby', 'having', 'orderby', 'limit', 'with', '_next', 'window'].filter((k) => isNode(only) && !empty(only[k]));
  if (!isNode(only) || only.where == null || extra.length > 0) {
    const position = positionAt(sql, toSourceOffset(f.keyword));
    fail('CANOPY_ERR_BAD_QUERY', `FILTER (WHERE ...) must hold one condition (line ${position.line}, column ${position.column})`, position);
  }
  return only.where;
}

/**
 * The decimal literals protectDecimals stood in for, put back in place in `ast` (a number
 * node of the text as written, as the grammar gives a decimal literal it keeps).
 */
function restoreDecimals(ast: unknown, originals: ReadonlyMap<string, string>): unknown {
  if (originals.size === 0) return ast;
  visitNodes(ast, (v) => {
    if ((v.type !== 'bigint' && v.type !== 'number') || typeof v.value !== 'string') return;
    const sign = /^[+-]/.exec(v.value)?.[0] ?? '';
    const original = originals.get(v.value.slice(sign.length));
    if (original === undefined) return;
    v.type = 'number';
    v.value = `${sign}${original}`;
  });
  return ast;
}

/** node-sql-parser's tree of `text` under the read budget; errors name positions in `sql`. */
function astify(text: string, sql: string, toSourceOffset: (offset: number) => number): unknown {
  const decimals = protectDecimals(text);
  const input = new MeteredText(decimals.text, PARSE_BUDGET_BASE + PARSE_BUDGET_PER_CHAR * text.length);
  let ast: unknown;
  try {
    ast = parser.astify(input as unknown as string, { database: 'postgresql', trimQuery: false });
  } catch (e) {
    if (e instanceof ParseBudgetExceeded) {
      const position = positionAt(sql, toSourceOffset(input.furthest));
      // Unbalanced parentheses make the grammar backtrack without end: a syntax error. With
      // them balanced the expression is simply too big for the parser's budget: a limit.
      const code = blankQuotedAndComments(sql);
      const balanced = code.split('(').length === code.split(')').length;
      if (balanced) {
        fail(
          'CANOPY_ERR_LIMIT',
          `the expression near line ${position.line}, column ${position.column} is nested too deeply or too long for the parser ` +
            '(its work is bounded per character of the query); split it into smaller expressions',
          position,
        );
      }
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
      // The grammar knows DISTINCT only inside count() (sum, avg, min, max, bit_*, bool_*, arg_min/max are rewritten); name the construct instead of the token.
      const distinct = /\b(approx_count_distinct|approx_quantile|median|quantile(?:_cont|_disc)?|mode|entropy|stddev\w*|var\w*|count_if|bool_and|bool_or|arg_min|arg_max|min_by|max_by|any_value|covar_\w+|corr|regr_\w+|skewness|kurtosis\w*|bit_and|bit_or|bit_xor|sem|geomean|geometric_mean|weighted_avg|wavg|fsum|sumkahan|kahan_sum|favg|product)\s*\(\s*distinct\b/i.exec(text);
      if (distinct !== null) {
        const at = positionAt(sql, toSourceOffset(distinct.index));
        fail('CANOPY_ERR_UNSUPPORTED', `${distinct[1]!.toUpperCase()}(DISTINCT ...) is not supported; count, sum, avg, min, max, bit_and, bit_or, bit_xor, bool_and, bool_or, arg_min and arg_max take DISTINCT (line ${at.line}, column ${at.column})`, at);
      }
      // Sampling (USING SAMPLE, TABLESAMPLE): an answer from a sample is not the table's; name the clause.
      const sample = /\b(USING\s+SAMPLE|TABLESAMPLE)\b/i.exec(blankQuotedAndComments(sql));
      if (sample !== null) {
        const at = positionAt(sql, sample.index);
        fail('CANOPY_ERR_UNSUPPORTED', `${sample[1]!.replace(/\s+/, ' ').toUpperCase()} is not supported (line ${at.line}, column ${at.column}): canopy answers from every row of the shards it reaches and labels what it misses; remove the sample clause`, at);
      }
      // A statement that does not begin with a keyword canopy reads (`SELEC origin ...`): the
      // grammar tries other dialect statements and stops further on; name the first word.
      const lead = leadingWord(sql);
      if (lead !== null && !STATEMENT_WORDS.includes(lead.word.toUpperCase()) && lead.word.toUpperCase() !== 'FROM') {
        const at = positionAt(sql, lead.offset);
        const found = tokenAt(sql, lead.offset);
        throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${at.line}, column ${at.column}: ${expectedMessage(STATEMENT_WORDS, found)}`, { position: at, details: { expected: [...STATEMENT_WORDS], found } });
      }
      // The end of input inside a comment, string or quoted name: say which, and where it opened.
      const open = (e as { found?: unknown }).found == null ? unterminated(sql) : null;
      if (open !== null) {
        const at = positionAt(sql, open.offset);
        throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${at.line}, column ${at.column}: ${open.what} opened here is never closed; expected ${open.close} before the end of the query`, { position: at, details: { expected: [open.close], found: null } });
      }
      // The grammar's own list names every token of its dialect (often over 40): summarise it.
      const listed: unknown = (e as { expected?: unknown }).expected;
      const summary = summariseExpected(Array.isArray(listed) ? (listed as PeggyExpectation[]) : []);
      // Only TIME (after a bare `at`: the grammar reads AT TIME ZONE), which the summary leaves out.
      const atTimeZone = summary.length === 0 && Array.isArray(listed) && (listed as PeggyExpectation[]).some((x) => x.type === 'literal' && x.text?.toUpperCase() === 'TIME');
      const expected = atTimeZone ? ['TIME'] : summary;
      // The token the user wrote there (the grammar read the rewritten text, and names one character).
      const parsedFound = (e as { found?: string | null }).found;
      const found = parsedFound === null || parsedFound === undefined || position.offset >= sql.length ? parsedFound : tokenAt(sql, position.offset);
      const what = expected.length > 0 ? expectedMessage(expected, found) : e.message;
      // ORDER BY inside a call the grammar does not take it in (first(x ORDER BY y)): name the construct.
      const inCall = /^order$/i.test(found ?? '') ? openCallBefore(blankQuotedAndComments(sql.slice(0, position.offset))) : null;
      if (inCall !== null) {
        fail('CANOPY_ERR_UNSUPPORTED', `ORDER BY inside ${inCall}(...) is not supported (line ${position.line}, column ${position.column}); canopy takes ORDER BY inside string_agg, group_concat and listagg (for first(x ORDER BY y) see arg_min_null(x, y), the row with the smallest non-NULL y; the order does not change count, sum, min or max: drop it)`, position);
      }
      // `corr(x, y) OVER (PARTITION BY k)`, `mode(x) OVER ()`: the grammar reads OVER only after
      // the aggregates it knows; a window over any other call stops inside OVER (...): name it.
      // (Not sum / count / avg / min / max of a plain argument: the grammar reads their OVER, so the error is its own.)
      // (Read over the last 2,000 characters before the error only: the pattern tries every word start.)
      const from = Math.max(0, position.offset - 2000);
      const windowed = /\b([A-Za-z_]\w*)\s*\(((?:[^()]|\((?:[^()]|\([^()]*\))*\))*)\)\s*OVER\s*\([^()]*$/i.exec(blankQuotedAndComments(sql.slice(0, position.offset)).slice(from));
      if (windowed !== null && (!WINDOW_AGGREGATES.has(windowed[1]!.toLowerCase()) || holdsCondition(windowed[2]!))) {
        const at = positionAt(sql, from + windowed.index);
        fail('CANOPY_ERR_UNSUPPORTED', `${windowed[1]}(...) OVER (...) is not supported (line ${at.line}, column ${at.column}): windows over the table's rows, and over other functions, are not; ${SUPPORTED_WINDOWS}`, at);
      }
      // `j > 0 IS NULL`, `j IN (1, 2) IS NOT NULL`, `s LIKE 'a%' IS TRUE`: DuckDB reads (j > 0) IS NULL;
      // the grammar takes IS after a comparison, IN or LIKE only in parentheses (it stops after IS, or at it).
      const before = blankQuotedAndComments(sql.slice(0, position.offset)) + (/^is$/i.test(found ?? '') ? ' IS' : '');
      const isAfter = /(?:(?:[<>=]|!=|\b(?:I?LIKE|GLOB)\b)[^()<>=]*|\bIN\s*\([^()]*\)\s*)\bIS(?:\s+NOT)?\s*$/i.exec(before);
      const hint = atTimeZone
        ? '; AT begins AT TIME ZONE here, which canopy does not support (timestamps are UTC); an alias named at needs AS: AS at'
        : isAfter === null ? '' : '; IS [NOT] NULL / TRUE / FALSE / DISTINCT FROM after a comparison (or IN, LIKE) needs the comparison in parentheses here: write (x > 0) IS NULL';
      throw new CanopyError('CANOPY_ERR_BAD_QUERY', `syntax error at line ${position.line}, column ${position.column}: ${what}${hint}`, { position, details: { expected, found: found ?? null } });
    }
    if (e instanceof RangeError && /call stack/i.test(e.message)) throw e;
    fail('CANOPY_ERR_BAD_QUERY', `the query could not be parsed: ${e instanceof Error ? e.message : String(e)}`);
  }
  return restoreDecimals(ast, decimals.originals);
}

/** The name of the call whose parenthesis is still open at the end of `code` (quotes and comments blanked), or null. */
function openCallBefore(code: string): string | null {
  let depth = 0;
  for (let i = code.length - 1; i >= 0; i--) {
    const c = code[i];
    if (c === ')') depth++;
    else if (c === '(' && depth > 0) depth--;
    else if (c === '(') {
      const name = /([A-Za-z_][\w]*)\s*$/.exec(code.slice(0, i))?.[1] ?? null;
      return name === null || NOT_CALLS.has(name.toUpperCase()) ? null : name;
    }
  }
  return null;
}

/** Keywords a parenthesis may follow without being a call. */
const NOT_CALLS: ReadonlySet<string> = new Set(['SELECT', 'FROM', 'WHERE', 'AND', 'OR', 'NOT', 'IN', 'ON', 'BY', 'HAVING', 'WHEN', 'THEN', 'ELSE', 'CASE', 'AS', 'EXISTS', 'VALUES', 'IS', 'LIKE', 'ILIKE', 'BETWEEN', 'ALL', 'ANY', 'SOME', 'DISTINCT', 'FILTER', 'OVER', 'WITH', 'LIMIT', 'OFFSET', 'QUALIFY', 'USING', 'JOIN', 'RETURN', 'SIMILAR', 'TO', 'ESCAPE', 'GLOB']);

/** The keywords a query may begin with (a WITH clause, or the SELECT itself; DuckDB's FROM-first form is not suggested). */
const STATEMENT_WORDS: readonly string[] = ['SELECT', 'WITH'];

/** The first word of `sql` past whitespace and comments, with its offset; null when it begins otherwise (`(`, a quote, nothing). */
function leadingWord(sql: string): { word: string; offset: number } | null {
  let i = 0;
  for (;;) {
    while (i < sql.length && /\s/.test(sql[i]!)) i++;
    if (sql.startsWith('--', i)) i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
    else if (sql.startsWith('/*', i)) i = skipBlockComment(sql, i);
    else break;
  }
  WORD_TOKEN.lastIndex = i;
  const word = WORD_TOKEN.exec(sql)?.[0];
  return word === undefined ? null : { word, offset: i };
}

/**
 * The token at `offset` of `sql` as a syntax error names it: a word, a number, a quoted
 * string or name (cut at 40 characters), a two-character operator, else one character.
 */
function tokenAt(sql: string, offset: number): string {
  const c = sql[offset]!;
  const two = sql.slice(offset, offset + 2);
  const end =
    c === "'" || c === '"' ? skipQuoted(sql, offset)
    : ['<=', '>=', '<>', '!=', '::', '||'].includes(two) ? offset + 2
    : /[\w.]/.test(c) ? skipToken(sql, offset)
    : offset + String.fromCodePoint(sql.codePointAt(offset)!).length;
  const token = sql.slice(offset, end);
  return token.length > 40 ? `${token.slice(0, 40)}...` : token;
}


/** Literal lists at least this long are taken out of the text before parsing. */
export const COMPACT_LIST_MIN = 32;
const LIST_MARKER = 'canopy-literal-list:';

/** One literal of a compacted list, as the parser would have read it. */
type ListLiteral = { readonly type: 'number'; readonly value: string } | { readonly type: 'single_quote_string'; readonly value: string } | { readonly type: 'null'; readonly value: null };

/** Reads one literal at `i` (a signed number, a '...' string or NULL): the literal and the offset after it, or null. */
function literalAt(sql: string, i: number): { lit: ListLiteral; end: number } | null {
  if (sql[i] === "'") {
    const end = skipQuoted(sql, i);
    const body = sql.slice(i + 1, end - 1);
    if (sql[end - 1] !== "'" || body.includes('\\')) return null;
    return { lit: { type: 'single_quote_string', value: body.replaceAll("''", "'") }, end };
  }
  LIST_NUMBER.lastIndex = i;
  const num = LIST_NUMBER.exec(sql);
  if (num !== null) return { lit: { type: 'number', value: num[0].includes(' ') ? num[0].replace(/\s+/g, '') : num[0] }, end: i + num[0].length };
  LIST_NULL.lastIndex = i;
  return LIST_NULL.test(sql) ? { lit: { type: 'null', value: null }, end: LIST_NULL.lastIndex } : null;
}

const LIST_NUMBER = /[+-]?\s*(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?![A-Za-z0-9_.$])/y;
const LIST_NULL = /NULL(?![A-Za-z0-9_$])/iy;
const RUN_TAIL = /AND(?![A-Za-z0-9_$])|IS(?![A-Za-z0-9_$])|[<>=!:|+*/%^-]/iy;
const RUN_OR = /OR(?![A-Za-z0-9_$])/iy;

const spaceAt = (sql: string, i: number): number => {
  for (;;) {
    const c = sql.charCodeAt(i);
    if (c === 32 || c === 10 || c === 9 || c === 13) i++;
    else return i;
  }
};

/**
 * node-sql-parser's PEG grammar reads a 100 kB query for seconds (measured: 3-4 s for a
 * 15,000-value IN list or a 7,749-term OR chain). Long lists of literals are what makes such
 * queries long, so they are taken out before parsing and put back into the AST after:
 * `IN (v1, ..., vn)` with n >= {@link COMPACT_LIST_MIN} literals, and maximal runs of
 * `col = literal OR col = literal ...` on one unqualified column (SQL defines IN as that OR
 * chain) whose first term does not bind to a preceding AND/NOT and whose last term is not
 * followed by AND: both become `IN ('canopy-literal-list:k')`. Strings, quoted identifiers
 * and comments are skipped as the parser reads them. Returns the new text, the lists, and a
 * map from its offsets back to the caller's.
 */
export function compactLiteralLists(sql: string): { text: string; lists: ListLiteral[][]; toSourceOffset: (offset: number) => number } {
  const lists: ListLiteral[][] = [];
  const cuts: { from: number; to: number; replacement: string }[] = [];
  let i = 0;
  let prevWord = '';
  while (i < sql.length) {
    const c = sql[i]!;
    const next = sql[i + 1];
    if (c === "'" || c === '"' || c === '`') {
      i = skipQuoted(sql, i);
      prevWord = '';
      continue;
    }
    if (c === '-' && next === '-') {
      i = sql.includes('\n', i) ? sql.indexOf('\n', i) : sql.length;
      continue;
    }
    if (c === '/' && next === '*') {
      i = skipBlockComment(sql, i);
      continue;
    }
    WORD_TOKEN.lastIndex = i;
    const word = WORD_TOKEN.exec(sql)?.[0];
    if (word === undefined) {
      if (!/\s/.test(c)) prevWord = c;
      i++;
      continue;
    }
    const upperWord = word.toUpperCase();
    if (upperWord === 'IN') {
      const open = spaceAt(sql, i + word.length);
      if (sql[open] === '(') {
        const items: ListLiteral[] = [];
        let j = spaceAt(sql, open + 1);
        for (;;) {
          const lit = literalAt(sql, j);
          if (lit === null) break;
          items.push(lit.lit);
          j = spaceAt(sql, lit.end);
          if (sql[j] === ',') j = spaceAt(sql, j + 1);
          else break;
        }
        if (sql[j] === ')' && items.length >= COMPACT_LIST_MIN) {
          cuts.push({ from: open + 1, to: j, replacement: `'${LIST_MARKER}${lists.length}'` });
          lists.push(items);
          i = j + 1;
          prevWord = ')';
          continue;
        }
      }
    }
    // A run `col = lit OR col = lit ...` starting here.
    if (!['AND', 'NOT', 'BETWEEN', 'IS', 'LIKE', 'ILIKE', 'GLOB', '.'].includes(prevWord.toUpperCase()) && !['AS', 'IN'].includes(upperWord) && prevWord !== '.' && sql[i - 1] !== '.') {
      const run = orRun(sql, i, word);
      if (run !== null && run.items.length >= COMPACT_LIST_MIN) {
        cuts.push({ from: i, to: run.end, replacement: `${word} IN ('${LIST_MARKER}${lists.length}')` });
        lists.push(run.items);
        i = run.end;
        prevWord = '';
        continue;
      }
    }
    prevWord = upperWord;
    i += word.length;
  }
  if (cuts.length === 0) return { text: sql, lists, toSourceOffset: (offset) => offset };
  let text = '';
  let from = 0;
  const marks: { at: number; shift: number }[] = [];
  let shift = 0;
  for (const cut of cuts) {
    text += sql.slice(from, cut.from) + cut.replacement;
    shift += cut.to - cut.from - cut.replacement.length;
    marks.push({ at: text.length, shift });
    from = cut.to;
  }
  text += sql.slice(from);
  const toSourceOffset = (offset: number): number => {
    let s = 0;
    for (const m of marks) if (offset >= m.at) s = m.shift;
    return offset + s;
  };
  return { text, lists, toSourceOffset };
}

/** The run of `word = literal` terms joined by OR from `start`, ending before a trailing AND. */
function orRun(sql: string, start: number, word: string): { items: ListLiteral[]; end: number } | null {
  const items: ListLiteral[] = [];
  let i = start;
  let end = start;
  for (;;) {
    WORD_TOKEN.lastIndex = i;
    if (WORD_TOKEN.exec(sql)?.[0] !== word || WORD_CHAR.test(sql[i + word.length] ?? ' ')) break;
    let j = spaceAt(sql, i + word.length);
    if (sql[j] !== '=' || sql[j + 1] === '=' || sql[j + 1] === '>') break;
    j = spaceAt(sql, j + 1);
    const lit = literalAt(sql, j);
    if (lit === null) break;
    const after = spaceAt(sql, lit.end);
    RUN_TAIL.lastIndex = after;
    if (RUN_TAIL.test(sql)) break; // the term binds to what follows (AND, IS, an operator)
    items.push(lit.lit);
    end = lit.end;
    RUN_OR.lastIndex = after;
    if (!RUN_OR.test(sql)) break;
    i = spaceAt(sql, RUN_OR.lastIndex);
  }
  return items.length > 0 ? { items, end } : null;
}

/** The fields of an AND/OR node the precedence repair rebuilds (`loc` is dropped: positions come from the text). */
const CHAIN_FIELDS = new Set(['type', 'operator', 'left', 'right', 'parentheses', 'loc']);

const isLogical = (v: unknown): v is Record<string, unknown> => isNode(v) && v.type === 'binary_expr' && (v.operator === 'AND' || v.operator === 'OR');

/**
 * node-sql-parser 5.4's PostgreSQL grammar reads AND and OR in WHERE (and HAVING) at one
 * precedence, left to right: `a OR b AND c` comes out as `(a OR b) AND c`. SQL binds AND
 * tighter than OR (`a OR (b AND c)`, as DuckDB and PostgreSQL read it). Each chain of
 * unparenthesised AND/OR nodes is rebuilt in place from its operands in source order (an
 * in-order walk of any tree over the chain gives that order): an OR of ANDs, each left to
 * right. Parenthesised sub-expressions (`parentheses: true`) are operands. Iterative, so a
 * chain of thousands of terms costs linear time and no stack.
 */
function repairLogicalPrecedence(ast: unknown): unknown {
  const built = new WeakSet<object>();
  visitNodes(ast, (v) => {
    if (!isLogical(v) || built.has(v)) return true;
    const chain = chainInOrder(v, isLogical);
    if (chain === null) return true;
    const { operands, ops } = chain;
    // IS [NOT] DISTINCT FROM, parsed as a marked AND/OR, binds tighter than both.
    const merged = mergeDistinctFrom(operands, ops);
    const and = (terms: unknown[]): unknown => {
      let acc = terms[0];
      for (let k = 1; k < terms.length; k++) {
        acc = { type: 'binary_expr', operator: 'AND', left: acc, right: terms[k] };
        built.add(acc as object);
      }
      return acc;
    };
    const groups: unknown[] = [];
    let current: unknown[] = [operands[0]];
    ops.forEach((op, k) => {
      if (op === 'OR') {
        groups.push(and(current));
        current = [operands[k + 1]];
      } else current.push(operands[k + 1]);
    });
    groups.push(and(current));
    let tree = groups[0] as Record<string, unknown>;
    for (let k = 1; k < groups.length; k++) {
      tree = { type: 'binary_expr', operator: 'OR', left: tree, right: groups[k] };
      built.add(tree);
    }
    if (!isLogical(tree) && !merged) return true; // one operand: nothing to rebuild
    replaceInPlace(v, tree, built);
    return true;
  });
  return ast;
}

/**
 * The operands and operators of the chain of unparenthesised `inChain` nodes rooted at `v`,
 * in source order (an in-order walk, iterative: a chain of thousands of terms costs no
 * stack); null when a node of the chain has a field the rebuild would not carry over (one the
 * planner does not read): the chain is then left as parsed, so the guard after planning still
 * refuses it.
 */
function chainInOrder(v: Record<string, unknown>, inChain: (n: unknown) => boolean): { operands: unknown[]; ops: string[] } | null {
  const operands: unknown[] = [];
  const ops: string[] = [];
  const stack: { node: unknown; expanded: boolean }[] = [{ node: v, expanded: false }];
  while (stack.length > 0) {
    const top = stack.pop()!;
    const n = top.node;
    if (!(n === v || (inChain(n) && (n as Record<string, unknown>).parentheses !== true))) {
      operands.push(n);
      continue;
    }
    const node = n as Record<string, unknown>;
    if (Object.keys(node).some((k) => !CHAIN_FIELDS.has(k))) return null;
    // Visit left, then the operator, then right (pushed in reverse).
    if (top.expanded) ops.push(node.operator as string);
    else stack.push({ node: node.right, expanded: false }, { node, expanded: true }, { node: node.left, expanded: false });
  }
  return { operands, ops };
}

/** Puts the rebuilt `tree` in the place of node `v` (keeping its parentheses) and marks it built. */
function replaceInPlace(v: Record<string, unknown>, tree: Record<string, unknown>, built: WeakSet<object>): void {
  const parentheses = v.parentheses;
  for (const k of Object.keys(v)) delete v[k];
  Object.assign(v, tree, parentheses === undefined ? {} : { parentheses });
  built.add(v);
}

/** DuckDB's binding of the arithmetic and concatenation operators: higher binds tighter (all left-associative). */
const ARITH_LEVEL: Readonly<Record<string, number>> = { '||': 1, [STARTS_WITH_STAND_IN]: 1, '+': 2, '-': 2, '*': 3, '/': 3, '//': 3, '%': 3, [POWER_STAND_IN]: 4, ...Object.fromEntries(Object.values(BITWISE_STAND_INS).map((op) => [op, 1])) };

const isArith = (v: unknown): v is Record<string, unknown> => isNode(v) && v.type === 'binary_expr' && typeof v.operator === 'string' && ARITH_LEVEL[v.operator] !== undefined;

/**
 * node-sql-parser 5.4's PostgreSQL grammar reads `||` as a multiplicative operator (with `*`,
 * `/` and `%`): `1 + 2 || 'x'` comes out as `1 + (2 || 'x')`, `'x' || 2 * 3` as `('x' || 2) * 3`.
 * DuckDB (PostgreSQL's grammar, where `||` is a generic operator) binds `||` looser than `+`
 * and `-`, which bind looser than `*`, `/`, `//` and `%`; all are left-associative and bind
 * tighter than comparisons, LIKE, BETWEEN, IS and NOT. Each chain of unparenthesised
 * arithmetic/concatenation nodes is rebuilt in place from its operands and operators in source
 * order (an in-order walk) by precedence climbing. Parenthesised sub-expressions are operands.
 * Iterative over the chain; the rebuilt tree is as deep as the parsed one.
 */
function repairConcatPrecedence(ast: unknown): unknown {
  const built = new WeakSet<object>();
  visitNodes(ast, (v) => {
    if (!isArith(v) || built.has(v)) return true;
    const chain = chainInOrder(v, isArith);
    if (chain === null) return true;
    const { operands, ops } = chain;
    // Nothing to do unless `||` (or `^@`, src/root/sql/surface.ts) meets another operator of the chain.
    const loose = (o: string): boolean => ARITH_LEVEL[o] === 1;
    if ((!ops.some(loose) && !ops.includes(POWER_STAND_IN)) || ops.every((o) => o === '||')) return true;
    // Shunting-yard over the source order: pops while the stacked operator binds at least as tight (left-associative).
    const out: unknown[] = [];
    const pending: string[] = [];
    const reduce = (): void => {
      const right = out.pop();
      const left = out.pop();
      const node = { type: 'binary_expr', operator: pending.pop()!, left, right };
      built.add(node);
      out.push(node);
    };
    out.push(operands[0]);
    ops.forEach((op, k) => {
      while (pending.length > 0 && ARITH_LEVEL[pending[pending.length - 1]!]! >= ARITH_LEVEL[op]!) reduce();
      pending.push(op);
      out.push(operands[k + 1]);
    });
    while (pending.length > 0) reduce();
    replaceInPlace(v, out[0] as Record<string, unknown>, built);
    return true;
  });
  return ast;
}

const BITWISE_OPS: ReadonlySet<string> = new Set(Object.values(BITWISE_STAND_INS));

/**
 * The grammar reads the bitwise operators' stand-ins (src/root/sql/surface.ts) binding tighter
 * than a unary minus: `- 5 >> 1` comes out as -(5 >> 1), where DuckDB's unary minus binds
 * tighter than every binary operator, (-5) >> 1 (-3, not -2). A unary minus over an
 * unparenthesised stand-in node moves onto the leftmost operand of its chain.
 */
function repairUnaryMinus(ast: unknown): unknown {
  visitNodes(ast, (v) => {
    const e = v.expr;
    if (v.type !== 'unary_expr' || v.operator !== '-' || !isNode(e) || e.type !== 'binary_expr' || e.parentheses === true || !BITWISE_OPS.has(String(e.operator))) return true;
    let parent: Record<string, unknown> = e;
    while (isArith(parent.left) && parent.left.parentheses !== true) parent = parent.left;
    parent.left = { type: 'unary_expr', operator: '-', expr: parent.left };
    const { parentheses } = v;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, e, parentheses === undefined ? {} : { parentheses });
    return true;
  });
  return ast;
}

/** `NOT (x)` as the grammar reads it: a call of a function named NOT with one argument. */
const isNotCall = (v: unknown): v is Record<string, unknown> => isNode(v) && v.type === 'function' && v.parentheses !== true && functionName(v).toUpperCase() === 'NOT' && listItems(v.args).length === 1;

/**
 * node-sql-parser 5.4 reads `NOT (x) IS NULL` as a call `NOT(x)` that is then the left
 * operand of IS: `(NOT x) IS NULL`, where DuckDB reads `NOT ((x) IS NULL)` (NOT binds looser
 * than IS, comparisons, LIKE, BETWEEN, IN and every operator; tighter than AND and OR) and
 * answers otherwise. For each operator node other than AND/OR whose leftmost operand (down
 * unparenthesised operator nodes) is such a call, the call's argument (parenthesised, as
 * written) takes its place and a NOT goes over the operator node.
 */
function repairNotCalls(ast: unknown): unknown {
  visitNodes(ast, (v) => {
    if (v.type !== 'binary_expr' || v.operator === 'AND' || v.operator === 'OR') return true;
    let parent: Record<string, unknown> = v;
    while (isNode(parent.left) && parent.left.type === 'binary_expr' && parent.left.parentheses !== true && parent.left.operator !== 'AND' && parent.left.operator !== 'OR') parent = parent.left;
    const call = parent.left;
    if (!isNotCall(call)) return true;
    const arg = listItems(call.args)[0];
    parent.left = isNode(arg) ? { ...arg, parentheses: true } : arg;
    const { parentheses, ...inner } = v;
    for (const k of Object.keys(v)) delete v[k];
    Object.assign(v, { type: 'unary_expr', operator: 'NOT', expr: inner }, parentheses === undefined ? {} : { parentheses });
    return true;
  });
  return ast;
}

const COMPARISONS = new Set(['=', '<', '>', '<=', '>=', '<>', '!=']);
const isComparison = (v: unknown): boolean => isNode(v) && v.type === 'binary_expr' && typeof v.operator === 'string' && COMPARISONS.has(v.operator) && v.parentheses !== true;

/**
 * DuckDB's (and PostgreSQL's) comparison operators do not associate: `j > 0 = true` is a
 * syntax error there, where node-sql-parser reads `(j > 0) = true` and canopy would answer.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a comparison with an unparenthesised comparison as an operand
 */
function refuseChainedComparisons(ast: unknown): void {
  visitNodes(ast, (v) => {
    if (isComparison(v) && (isComparison(v.left) || isComparison(v.right))) {
      fail('CANOPY_ERR_BAD_QUERY', `syntax error: comparison operators do not chain (a comparison with '${String(v.operator)}' has another comparison as an operand, as in \`a > 0 = true\`); put one in parentheses`);
    }
    return true;
  });
}

/** Puts compacted lists back: each `IN ('canopy-literal-list:k')` gets its literals (iteratively: deep OR chains). */
function expandLiteralLists(ast: unknown, lists: readonly ListLiteral[][]): unknown {
  visitNodes(ast, (v) => {
    if (v.type !== 'expr_list' || !Array.isArray(v.value) || v.value.length !== 1) return true;
    const only = v.value[0] as unknown;
    if (!isNode(only) || only.type !== 'single_quote_string' || typeof only.value !== 'string' || !only.value.startsWith(LIST_MARKER)) return true;
    const list = lists[Number(only.value.slice(LIST_MARKER.length))];
    if (list !== undefined) v.value = list.map((l) => ({ ...l }));
    return false;
  });
  return ast;
}
