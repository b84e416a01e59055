/**
 * The SQL planner: one SELECT over one table, parsed with node-sql-parser (PostgreSQL
 * dialect) and lowered to a {@link QueryPlan}. Aggregates are decomposed here into the
 * partials leaves compute (AVG = SUM + COUNT); literals are coerced here to the types of
 * the columns they meet, so leaves never see untyped values.
 *
 * Every failure is a {@link CanopyError}: parse errors carry a `position`, everything canopy
 * does not do is `CANOPY_ERR_UNSUPPORTED` naming the construct.
 */
import sqlParser from 'node-sql-parser/build/postgresql.js';
import { expectedMessage, summariseExpected, type PeggyExpectation } from './expected.ts';
import { CanopyError, type ErrorCode, type SourcePosition, unknownNameMessage } from '../merge/errors.ts';
import { parseIsoTimestamp } from '../merge/time.ts';
import { guardUnreadFields } from './ast-guard.ts';
import type {
  CmpOp,
  ColumnInfo,
  ColumnType,
  Expr,
  GroupKeySpec,
  OutColumn,
  OutExpr,
  PartialSpec,
  QueryPlan,
  RowQuerySpec,
  Scalar,
  TableSchema,
  TruncUnit,
} from '../merge/types.ts';

/** Documented limits applied while planning (all counts, except `maxSqlLength` in UTF-16 chars). */
export interface QueryLimits {
  /** Longest SQL text accepted, in characters. */
  readonly maxSqlLength: number;
  /** Largest LIMIT accepted, in rows. */
  readonly maxLimit: number;
  /** Rows a row query without LIMIT may return; children are asked for one more to detect overflow. */
  readonly maxRows: number;
  /** Groups a node may hold for one query (copied into `scan.maxGroups`). */
  readonly maxGroups: number;
}

/** The limits used when {@link planQuery} is given none. */
export const DEFAULT_LIMITS: QueryLimits = Object.freeze({
  maxSqlLength: 100_000,
  maxLimit: 100_000,
  maxRows: 10_000,
  maxGroups: 500_000,
});

/**
 * Plans one SQL query against the served tables.
 *
 * A query with an aggregate (in SELECT, HAVING or ORDER BY), a GROUP BY or a HAVING is an
 * aggregate query: `scan.groupBy` + `scan.partials` for the children, `output`, `having`,
 * `orderBy` and `limit` for the root. Any other query is a row query: `scan.rows` lists the
 * projected columns (then hidden sort-only columns), sort keys and the row limit (the
 * explicit LIMIT, or `limits.maxRows + 1` without one), and `output` is empty.
 *
 * @param sql one SELECT statement (PostgreSQL syntax; a trailing `;` is allowed)
 * @param tables the served tables by name
 * @param limits size limits; defaults to {@link DEFAULT_LIMITS}
 * @returns the plan; `scan.table` is the catalog's table name
 * @throws CanopyError `CANOPY_ERR_BAD_QUERY` (syntax, with `position`; misuse of GROUP BY,
 *   ordinals, aliases), `CANOPY_ERR_UNSUPPORTED` (JOIN, subquery, window, CASE, ...),
 *   `CANOPY_ERR_UNKNOWN_TABLE`, `CANOPY_ERR_UNKNOWN_COLUMN`, `CANOPY_ERR_TYPE` (operand or
 *   literal does not fit a column type), `CANOPY_ERR_LIMIT` (SQL too long, LIMIT out of range,
 *   query too complex to parse). Never anything else.
 */
export function planQuery(sql: string, tables: ReadonlyMap<string, TableSchema>, limits: QueryLimits = DEFAULT_LIMITS): QueryPlan {
  try {
    return plan(sql, tables, limits);
  } catch (e) {
    throw asPlannerError(e);
  }
}

function plan(sql: string, tables: ReadonlyMap<string, TableSchema>, limits: QueryLimits): QueryPlan {
  if (typeof sql !== 'string' || sql.trim() === '') fail('CANOPY_ERR_BAD_QUERY', 'the query is empty; send one SELECT statement');
  if (sql.length > limits.maxSqlLength) {
    fail('CANOPY_ERR_LIMIT', `the query is ${sql.length} characters long; the limit is ${limits.maxSqlLength}`);
  }
  const select = checkStatement(parse(sql));
  const scope = resolveFrom(select, tables);
  const items = classifySelectList(select, scope);
  const filter = select.where == null ? null : lowerPredicate(select.where, rowLevel(scope));
  const limit = readLimit(select.limit, limits);
  const planned = isAggregateQuery(select)
    ? planAggregateQuery(select, scope, items, filter, limit, limits)
    : planRowQuery(select, scope, items, filter, limit, limits);
  // Syntax the planner did not read (AT TIME ZONE, future parser fields) refuses the query.
  guardUnreadFields(select, sql);
  return planned;
}

// ---------------------------------------------------------------------------------------
// Errors

const ONE_TABLE = 'canopy queries one table';
const SUBQUERY = `subqueries are not supported; ${ONE_TABLE}`;

function fail(code: ErrorCode, message: string, position?: SourcePosition): never {
  throw new CanopyError(code, message, position === undefined ? {} : { position });
}

/** Anything thrown while planning, as the CanopyError a client should see. */
function asPlannerError(e: unknown): CanopyError {
  if (e instanceof CanopyError) return e;
  if (e instanceof RangeError && /call stack/i.test(e.message)) {
    return new CanopyError('CANOPY_ERR_LIMIT', 'the query is nested too deeply to plan; simplify it', { cause: e });
  }
  const message = e instanceof Error ? e.message : String(e);
  return new CanopyError('CANOPY_ERR_UNSUPPORTED', `canopy could not plan this query (${message})`, { cause: e });
}

// ---------------------------------------------------------------------------------------
// Parsing

const parser = new sqlParser.Parser();

/**
 * Reads of the SQL text the parser may make: a base plus a multiple of the length.
 * Well-formed queries read each character 25-60 times (measured on 0.1-26 KB queries).
 */
const PARSE_BUDGET_BASE = 50_000;
const PARSE_BUDGET_PER_CHAR = 96;

class ParseBudgetExceeded extends Error {}

/**
 * The SQL text as a String object that counts the parser's reads and remembers the furthest
 * offset read. node-sql-parser's PEG grammar has no memoisation and backtracks exponentially
 * on some malformed nested input (measured: 2-3x per level of parentheses; 20 unbalanced
 * "(" take minutes), so parsing stops once the read budget is spent. This relies on the
 * parser reading its input through these methods (`trimQuery: false` keeps the object);
 * test/sql-fuzz.test.ts checks that pathological input still fails fast.
 */
class MeteredText extends String {
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
function parse(sql: string): unknown {
  const { text, toSourceOffset } = separateNegativeBigInts(sql);
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
function positionAt(text: string, offset: number): SourcePosition {
  const clamped = Math.max(0, Math.min(offset, text.length));
  const before = text.slice(0, clamped);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: clamped - lineStart + 1, offset: clamped };
}

const INTEGER_TAIL = /\d+/y;
const NUMBER_TOKEN = /(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?/y;
const WORD_TOKEN = /[A-Za-z_][A-Za-z0-9_$]*/y;
const WORD_CHAR = /[A-Za-z0-9_.$]/;

/**
 * node-sql-parser reads `-9007199254740993` as one signed integer and, being below
 * Number.MAX_SAFE_INTEGER, turns it into a lossy double; `- 9007199254740993` becomes unary
 * minus over the exact digit string. So a space is inserted after the sign of negative
 * integer literals of 16+ digits. Strings, quoted identifiers and comments are skipped the
 * way the parser reads them (backslash escapes and '' inside '...'). Returns the new text
 * and a map from its offsets back to the caller's.
 */
function separateNegativeBigInts(sql: string): { text: string; toSourceOffset: (offset: number) => number } {
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
function skipQuoted(sql: string, start: number): number {
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
function skipBlockComment(sql: string, start: number): number {
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
function skipToken(sql: string, start: number): number {
  for (const token of [NUMBER_TOKEN, WORD_TOKEN]) {
    token.lastIndex = start;
    if (token.test(sql)) return token.lastIndex;
  }
  return start + 1;
}

// ---------------------------------------------------------------------------------------
// The parser's AST, read defensively: it is untyped JSON-like data.

type Node = { readonly [key: string]: unknown };

function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

function upper(v: unknown): string {
  return typeof v === 'string' ? v.toUpperCase() : '';
}

/** The items of an `expr_list` node. */
function listItems(v: unknown): readonly unknown[] {
  return isNode(v) && Array.isArray(v.value) ? v.value : [];
}

/** The SELECT statement's fields canopy reads; any other non-empty field is unsupported. */
interface Select {
  readonly columns?: unknown;
  readonly from?: unknown;
  readonly where?: unknown;
  readonly groupby?: unknown;
  readonly having?: unknown;
  readonly orderby?: unknown;
  readonly limit?: unknown;
}

const HANDLED_SELECT_FIELDS = new Set([
  'type', 'columns', 'from', 'where', 'groupby', 'having', 'orderby', 'limit', 'distinct', 'into',
  'with', '_next', 'set_op', 'window', 'options', 'parentheses_symbol', 'loc',
]);

/** Checks that the AST is exactly one plain SELECT (no CTE, set operation, DISTINCT, ...). */
function checkStatement(ast: unknown): Select {
  let statement = ast;
  if (Array.isArray(ast)) {
    if (ast.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'the query has no statement; send one SELECT statement');
    if (ast.length > 1) fail('CANOPY_ERR_UNSUPPORTED', `${ast.length} statements were sent; canopy runs one SELECT per query`);
    statement = ast[0];
  }
  if (!isNode(statement)) fail('CANOPY_ERR_BAD_QUERY', 'the query could not be parsed into a statement');
  const s = statement;
  if (s.type !== 'select') {
    fail('CANOPY_ERR_UNSUPPORTED', `${upper(s.type) || 'this'} statements are not supported; canopy runs one SELECT`);
  }
  if (s.with != null) fail('CANOPY_ERR_UNSUPPORTED', `WITH (common table expressions) is not supported; ${ONE_TABLE}`);
  if (s._next != null || s.set_op != null) {
    fail('CANOPY_ERR_UNSUPPORTED', `${upper(s.set_op) || 'UNION'} is not supported; canopy runs one SELECT`);
  }
  const distinct = isNode(s.distinct) ? s.distinct.type : s.distinct;
  if (distinct != null) fail('CANOPY_ERR_UNSUPPORTED', 'SELECT DISTINCT is not supported; use GROUP BY');
  if (isNode(s.into) && s.into.position != null) fail('CANOPY_ERR_UNSUPPORTED', 'SELECT INTO is not supported');
  if (s.window != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (WINDOW, OVER) are not supported');
  if (s.options != null) fail('CANOPY_ERR_UNSUPPORTED', 'SELECT options are not supported');
  for (const [field, value] of Object.entries(s)) {
    if (!HANDLED_SELECT_FIELDS.has(field) && value != null && value !== false) {
      fail('CANOPY_ERR_UNSUPPORTED', `the ${field.toUpperCase()} clause is not supported`);
    }
  }
  return s;
}

// ---------------------------------------------------------------------------------------
// Table and column names

/** The queried table and the name that may qualify its columns (the alias, if any). */
interface Scope {
  readonly table: TableSchema;
  readonly qualifier: string;
}

/** Exact match first, then case-insensitive (unquoted SQL identifiers are case-insensitive). */
function findByName<T>(items: Iterable<T>, name: string, nameOf: (item: T) => string): T | undefined {
  const all = [...items];
  const lower = name.toLowerCase();
  return all.find((item) => nameOf(item) === name) ?? all.find((item) => nameOf(item).toLowerCase() === lower);
}

function resolveFrom(select: Select, tables: ReadonlyMap<string, TableSchema>): Scope {
  const from = Array.isArray(select.from) ? select.from : [];
  if (from.length === 0) fail('CANOPY_ERR_UNSUPPORTED', `SELECT without FROM is not supported; ${ONE_TABLE}`);
  if (from.some((f) => isNode(f) && f.join != null)) fail('CANOPY_ERR_UNSUPPORTED', `JOIN is not supported; ${ONE_TABLE}`);
  if (from.length > 1) fail('CANOPY_ERR_UNSUPPORTED', `several FROM tables are not supported; ${ONE_TABLE}`);
  const item = from[0];
  if (!isNode(item) || str(item.table) === null) {
    const subquery = isNode(item) && isNode(item.expr) && item.expr.ast != null;
    fail('CANOPY_ERR_UNSUPPORTED', subquery ? SUBQUERY : 'FROM must name one table');
  }
  for (const [field, value] of Object.entries(item)) {
    if (!['db', 'schema', 'table', 'as'].includes(field) && value != null) {
      fail('CANOPY_ERR_UNSUPPORTED', `${field.toUpperCase()} in FROM is not supported`);
    }
  }
  const name = [item.db, item.schema, item.table].map(str).filter((part) => part !== null).join('.');
  const key = findByName(tables.keys(), name, (k) => k);
  const table = key === undefined ? undefined : tables.get(key);
  if (table === undefined) fail('CANOPY_ERR_UNKNOWN_TABLE', unknownNameMessage('table', name, [...tables.keys()]));
  const alias = str(item.as);
  if (alias !== null && alias.includes('(')) fail('CANOPY_ERR_UNSUPPORTED', 'column aliases in FROM are not supported');
  return { table, qualifier: alias ?? table.name };
}

/** A column reference as written: optional qualifier and a name (`*` for a star). */
interface ColumnRef {
  readonly qualifier: string | null;
  readonly name: string;
}

/** Reads a `column_ref` node, or returns null for any other node. */
function columnRef(n: unknown): ColumnRef | null {
  if (!isNode(n) || n.type !== 'column_ref') return null;
  if (n.collate != null) fail('CANOPY_ERR_UNSUPPORTED', 'COLLATE is not supported');
  const table = isNode(n.table) ? str(n.table.value) : str(n.table);
  const qualifier = [str(n.db), str(n.schema), table].filter((part) => part !== null).join('.');
  const name = n.column === '*' ? '*' : isNode(n.column) && isNode(n.column.expr) ? str(n.column.expr.value) : str(n.column);
  if (name === null) fail('CANOPY_ERR_UNSUPPORTED', 'this column reference is not supported');
  return { qualifier: qualifier === '' ? null : qualifier, name };
}

function checkQualifier(scope: Scope, qualifier: string | null): void {
  if (qualifier !== null && findByName([scope.qualifier], qualifier, (q) => q) === undefined) {
    fail('CANOPY_ERR_UNKNOWN_TABLE', unknownNameMessage('table', qualifier, [scope.qualifier]));
  }
}

function findColumn(scope: Scope, name: string): ColumnInfo | undefined {
  return findByName(scope.table.columns, name, (c) => c.name);
}

function resolveColumn(scope: Scope, ref: ColumnRef): ColumnInfo {
  checkQualifier(scope, ref.qualifier);
  const column = findColumn(scope, ref.name);
  if (column === undefined) {
    fail('CANOPY_ERR_UNKNOWN_COLUMN', unknownNameMessage('column', ref.name, scope.table.columns.map((c) => c.name)));
  }
  return column;
}

// ---------------------------------------------------------------------------------------
// Literals

/** A literal as written, typed only once it meets a column (or by default). */
type RawLiteral =
  | { readonly kind: 'number'; readonly text: string }
  | { readonly kind: 'string'; readonly value: string }
  | { readonly kind: 'timestamp'; readonly text: string }
  | { readonly kind: 'bool'; readonly value: boolean }
  | { readonly kind: 'null' };

/** A literal coerced to a type. */
interface TypedLiteral {
  readonly value: Scalar;
  readonly type: ColumnType | 'null';
}

/** Reads a literal node (numbers keep their digits, also under unary minus), or returns null. */
function readLiteral(n: unknown): RawLiteral | null {
  if (!isNode(n)) return null;
  switch (n.type) {
    case 'number':
    case 'bigint':
      return typeof n.value === 'number' || typeof n.value === 'string' ? { kind: 'number', text: String(n.value) } : null;
    case 'unary_expr': {
      const inner = n.operator === '-' ? readLiteral(n.expr) : null;
      if (inner?.kind !== 'number') return null;
      return { kind: 'number', text: inner.text.startsWith('-') ? inner.text.slice(1) : `-${inner.text}` };
    }
    case 'single_quote_string':
      return typeof n.value === 'string' ? { kind: 'string', value: n.value.replaceAll("''", "'") } : null;
    case 'timestamp':
    case 'date':
      return typeof n.value === 'string' ? { kind: 'timestamp', text: n.value } : null;
    case 'bool':
      return typeof n.value === 'boolean' ? { kind: 'bool', value: n.value } : null;
    case 'null':
      return { kind: 'null' };
    default:
      return null;
  }
}

function literalText(lit: RawLiteral): string {
  switch (lit.kind) {
    case 'number':
      return lit.text;
    case 'string':
      return `'${lit.value}'`;
    case 'timestamp':
      return `TIMESTAMP '${lit.text}'`;
    case 'bool':
      return lit.value ? 'TRUE' : 'FALSE';
    case 'null':
      return 'NULL';
  }
}

const NULL_LITERAL: TypedLiteral = { value: null, type: 'null' };
const INT64_MIN = -(2n ** 63n);
const INT64_MAX = 2n ** 63n - 1n;

/** An integer literal's exact value, or null when the literal has a fraction or exponent. */
function integerValue(text: string): bigint | null {
  return /^[+-]?\d+$/.test(text) ? BigInt(text) : null;
}

function floatValue(text: string): number {
  const value = Number(text);
  if (!Number.isFinite(value)) fail('CANOPY_ERR_BAD_QUERY', `the number ${text} is out of range`);
  return value;
}

/**
 * The literal's own type, used when nothing typed is compared with it: integers are int64
 * (float64 beyond the int64 range), other numbers float64, strings string.
 */
function defaultLiteral(lit: RawLiteral): TypedLiteral {
  switch (lit.kind) {
    case 'number': {
      const int = integerValue(lit.text);
      return int !== null && int >= INT64_MIN && int <= INT64_MAX
        ? { value: int, type: 'int64' }
        : { value: floatValue(lit.text), type: 'float64' };
    }
    case 'string':
      return { value: lit.value, type: 'string' };
    case 'timestamp':
      return { value: parseTimestamp(lit.text, 'a TIMESTAMP literal'), type: 'timestamp' };
    case 'bool':
      return { value: lit.value, type: 'bool' };
    case 'null':
      return NULL_LITERAL;
  }
}

/**
 * Coerces a literal to the type of the operand it is compared with. An int64 operand keeps
 * integer literals exact (bigint) and compares with other numbers as float64.
 * @throws CanopyError CANOPY_ERR_TYPE naming the operand, its type and the literal
 */
function coerceLiteral(lit: RawLiteral, target: Typed<unknown>): TypedLiteral {
  if (lit.kind === 'null') return NULL_LITERAL;
  if (lit.kind === 'number' && (target.type === 'int64' || target.type === 'int128')) return defaultLiteral(lit);
  if (lit.kind === 'number' && target.type === 'float64') return { value: floatValue(lit.text), type: 'float64' };
  if (lit.kind === 'string' && target.type === 'string') return defaultLiteral(lit);
  if (lit.kind === 'bool' && target.type === 'bool') return defaultLiteral(lit);
  if ((lit.kind === 'string' || lit.kind === 'timestamp') && target.type === 'timestamp') {
    const text = lit.kind === 'string' ? lit.value : lit.text;
    return { value: parseTimestamp(text, `'${target.text}' (timestamp)`), type: 'timestamp' };
  }
  fail('CANOPY_ERR_TYPE', `cannot compare '${target.text}' (${target.type}) with ${literalText(lit)}`);
}

/**
 * Parses an ISO-8601 date or date-time into µs since the epoch with the shared parser
 * ({@link parseIsoTimestamp}): `2001-02-01` (UTC midnight), `2001-02-01 10:00[:00[.123456]]`,
 * `2001-02-01T10:00:00Z`, `...+02:00`. No zone means UTC.
 * @throws CanopyError CANOPY_ERR_TYPE when the text is not such a timestamp, or one finer
 *   than a microsecond or outside the years 1685..2255
 */
function parseTimestamp(text: string, against: string): number {
  let t: number | null;
  try {
    t = parseIsoTimestamp(text.trim());
  } catch (e) {
    return fail('CANOPY_ERR_TYPE', `${(e as Error).message} (for ${against}); timestamps are held to the microsecond between the years 1685 and 2255`);
  }
  if (t === null) {
    return fail('CANOPY_ERR_TYPE', `'${text}' is not a valid timestamp for ${against}; use ISO-8601 like '2001-02-01' or '2001-02-01 10:00:00.123456'`);
  }
  return t;
}

// ---------------------------------------------------------------------------------------
// Expressions shared by both levels

/** An expression of a known type, with its SQL text for names and messages. */
interface Typed<E> {
  readonly expr: E;
  readonly type: ColumnType;
  readonly text: string;
}

/** A comparison operand: a typed expression, or a literal typed by what it meets. */
type Operand<E> = ({ readonly kind: 'typed' } & Typed<E>) | { readonly kind: 'literal'; readonly literal: RawLiteral };

type ColExpr = Extract<Expr, { kind: 'col' }>;

/** A group key or projected column: a column or date_trunc over a column. */
type KeyExpr = ColExpr | { readonly kind: 'date_trunc'; readonly unit: TruncUnit; readonly arg: ColExpr };

/** Identity of a key expression, for structural equality. */
function keyId(key: KeyExpr): string {
  return key.kind === 'col' ? `col:${key.name}` : `date_trunc:${key.unit}:${key.arg.name}`;
}

const TRUNC_UNITS: readonly TruncUnit[] = ['hour', 'day', 'week', 'month', 'year'];
const AGGREGATE_FNS = ['count', 'sum', 'min', 'max', 'avg'] as const;
type AggregateFn = (typeof AGGREGATE_FNS)[number];
/** Sketch aggregates, which node-sql-parser reads as plain function calls. */
const SKETCH_FNS = ['approx_count_distinct', 'approx_quantile', 'median'] as const;
type SketchFn = (typeof SKETCH_FNS)[number];
const SUPPORTED_FUNCTIONS = `date_trunc, ${AGGREGATE_FNS.join(', ')}, count(DISTINCT col), ${SKETCH_FNS.join(', ')}`;

/** The sketch aggregate a function call names, or undefined. */
function sketchFn(n: Node): SketchFn | undefined {
  if (n.type !== 'function') return undefined;
  const name = functionName(n).toLowerCase();
  return SKETCH_FNS.find((f) => f === name);
}

/** True for an aggregate call: a parser `aggr_func`, or a call of a sketch aggregate. */
function isAggregateCall(n: unknown): n is Node {
  return isNode(n) && (n.type === 'aggr_func' || sketchFn(n) !== undefined);
}

function functionName(n: Node): string {
  const parts = isNode(n.name) && Array.isArray(n.name.name) ? n.name.name : [];
  const schema = isNode(n.name) && isNode(n.name.schema) ? [str(n.name.schema.value)] : [];
  return [...schema, ...parts.map((p) => (isNode(p) ? str(p.value) : null))].filter((p) => p !== null).join('.');
}

function columnKey(column: ColumnInfo): Typed<KeyExpr> {
  return { expr: { kind: 'col', name: column.name }, type: column.type, text: column.name };
}

/**
 * Lowers a column reference or `date_trunc(unit, column)`: the only row-level values canopy
 * computes. `clause` names where the expression is, for messages.
 */
function lowerKey(n: unknown, scope: Scope, clause: string): Typed<KeyExpr> {
  const ref = columnRef(n);
  if (ref !== null) {
    if (ref.name === '*') fail('CANOPY_ERR_BAD_QUERY', `* is not allowed in ${clause}; name a column`);
    return columnKey(resolveColumn(scope, ref));
  }
  if (isAggregateCall(n)) {
    fail('CANOPY_ERR_BAD_QUERY', `aggregate functions are not allowed in ${clause}${clause === 'WHERE' ? '; use HAVING' : ''}`);
  }
  if (isNode(n) && n.type === 'function' && n.over == null) {
    const name = functionName(n).toLowerCase();
    if (name === 'date_trunc') return lowerDateTrunc(n, scope);
    if (AGGREGATE_FNS.some((fn) => fn === name)) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes one column (count also takes *)`);
  }
  return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, clause));
}

function lowerDateTrunc(n: Node, scope: Scope): Typed<KeyExpr> {
  const args = listItems(n.args);
  if (args.length !== 2) {
    fail('CANOPY_ERR_BAD_QUERY', `date_trunc takes 2 arguments (unit, timestamp column), not ${args.length}`);
  }
  const unitLiteral = readLiteral(args[0]);
  const unit = TRUNC_UNITS.find((u) => unitLiteral?.kind === 'string' && unitLiteral.value.toLowerCase() === u);
  if (unit === undefined) {
    const given = unitLiteral === null ? 'an expression' : literalText(unitLiteral);
    fail('CANOPY_ERR_BAD_QUERY', `date_trunc unit ${given} is not supported; use one of '${TRUNC_UNITS.join("', '")}'`);
  }
  const ref = columnRef(args[1]);
  if (ref === null || ref.name === '*') fail('CANOPY_ERR_TYPE', 'date_trunc needs a timestamp column as its second argument');
  const column = resolveColumn(scope, ref);
  if (column.type !== 'timestamp') {
    fail('CANOPY_ERR_TYPE', `date_trunc needs a timestamp column; '${column.name}' is ${column.type}`);
  }
  return {
    expr: { kind: 'date_trunc', unit, arg: { kind: 'col', name: column.name } },
    type: 'timestamp',
    text: `date_trunc('${unit}', ${column.name})`,
  };
}

const ARITHMETIC_OPERATORS = new Set(['+', '-', '*', '/', '%', '^', '||', '&', '|', '#', '<<', '>>', 'DIV', 'MOD']);

/** Names the construct `n` uses that canopy does not support. */
function unsupportedMessage(n: unknown, clause: string): string {
  if (!isNode(n)) return `this expression is not supported in ${clause}`;
  if (n.ast != null) return SUBQUERY;
  if (n.over != null) return 'window functions (OVER) are not supported';
  const op = upper(n.operator);
  switch (n.type) {
    case 'binary_expr':
      return ARITHMETIC_OPERATORS.has(op)
        ? `arithmetic operator '${op}' is not supported; canopy computes columns, date_trunc and aggregates only`
        : `operator '${op}' is not supported in ${clause}`;
    case 'unary_expr':
      return `unary operator '${op}' is not supported here; only numeric literals may be negated`;
    case 'case':
      return 'CASE is not supported';
    case 'cast':
      return 'CAST (and ::) is not supported';
    case 'window_func':
      return 'window functions (OVER) are not supported';
    case 'interval':
      return 'INTERVAL is not supported';
    case 'function': {
      const name = functionName(n);
      return `function '${name}' is not supported; supported: ${SUPPORTED_FUNCTIONS}`;
    }
    case 'aggr_func':
      return `aggregate function '${str(n.name)?.toLowerCase() ?? '?'}' is not supported; supported: ${AGGREGATE_FNS.join(', ')}`;
    default:
      return `${typeof n.type === 'string' ? `expression '${n.type}'` : 'this expression'} is not supported in ${clause}`;
  }
}

// ---------------------------------------------------------------------------------------
// Predicates, generic over row-level Expr (WHERE) and post-aggregation OutExpr (HAVING)

/** The predicate nodes Expr and OutExpr share, over children of type E. */
type Pred<E> =
  | { readonly kind: 'lit'; readonly value: Scalar; readonly type: ColumnType | 'null' }
  | { readonly kind: 'cmp'; readonly op: CmpOp; readonly left: E; readonly right: E }
  | { readonly kind: 'and'; readonly args: readonly E[] }
  | { readonly kind: 'or'; readonly args: readonly E[] }
  | { readonly kind: 'not'; readonly arg: E }
  | { readonly kind: 'in'; readonly arg: E; readonly values: readonly Scalar[]; readonly negated: boolean }
  | { readonly kind: 'between'; readonly arg: E; readonly lo: E; readonly hi: E; readonly negated: boolean }
  | { readonly kind: 'isnull'; readonly arg: E; readonly negated: boolean };

/** How one level lowers the operands of its predicates. */
interface Level<E> {
  /** WHERE or HAVING, for messages. */
  readonly clause: string;
  operand(n: unknown): Operand<E>;
  /** Identity: a predicate node is an E. */
  build(p: Pred<E>): E;
}

function rowLevel(scope: Scope): Level<Expr> {
  return {
    clause: 'WHERE',
    operand: (n) => readOperand(n, () => lowerKey(n, scope, 'WHERE')),
    build: (p) => p,
  };
}

function readOperand<E>(n: unknown, typed: () => Typed<E>): Operand<E> {
  const literal = readLiteral(n);
  return literal !== null ? { kind: 'literal', literal } : { kind: 'typed', ...typed() };
}

const COMPARISONS: ReadonlyMap<string, CmpOp> = new Map<string, CmpOp>([
  ['=', '='], ['!=', '!='], ['<>', '!='], ['<', '<'], ['<=', '<='], ['>', '>'], ['>=', '>='],
]);
const FLIPPED: Readonly<Record<CmpOp, CmpOp>> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

/**
 * Lowers a condition: comparisons, AND, OR, NOT, [NOT] IN (literals), [NOT] BETWEEN,
 * IS [NOT] NULL, TRUE/FALSE/NULL. Literals are coerced to the type of the operand they meet;
 * a literal on the left of a comparison is moved to the right.
 */
function lowerPredicate<E>(n: unknown, level: Level<E>): E {
  const node = isNode(n) ? n : {};
  const op = upper(node.operator);
  if (node.type === 'binary_expr') {
    if (op === 'AND' || op === 'OR') {
      const args = flattenChain(node, op).map((arg) => lowerPredicate(arg, level));
      return level.build(op === 'AND' ? { kind: 'and', args } : { kind: 'or', args });
    }
    const cmp = COMPARISONS.get(op);
    if (cmp !== undefined) return lowerComparison(cmp, node.left, node.right, level);
    if (op === 'IN' || op === 'NOT IN') return lowerIn(node, op === 'NOT IN', level);
    if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
      const bounds = listItems(node.right);
      if (bounds.length !== 2) fail('CANOPY_ERR_BAD_QUERY', 'BETWEEN needs two bounds: x BETWEEN lo AND hi');
      const [arg, lo, hi] = unify([level.operand(node.left), level.operand(bounds[0]), level.operand(bounds[1])], level);
      return level.build({ kind: 'between', arg: arg!, lo: lo!, hi: hi!, negated: op === 'NOT BETWEEN' });
    }
    if ((op === 'IS' || op === 'IS NOT') && readLiteral(node.right)?.kind === 'null') {
      const [arg] = unify([level.operand(node.left)], level);
      return level.build({ kind: 'isnull', arg: arg!, negated: op === 'IS NOT' });
    }
    if (op === 'IS' || op === 'IS NOT') {
      fail('CANOPY_ERR_UNSUPPORTED', `${op} ${literalOrExpression(node.right)} is not supported; use IS [NOT] NULL or =`);
    }
  }
  const negated = notOperand(node);
  if (negated !== undefined) return level.build({ kind: 'not', arg: lowerPredicate(negated, level) });
  const operand = level.operand(n);
  if (operand.kind === 'literal' && (operand.literal.kind === 'bool' || operand.literal.kind === 'null')) {
    return level.build({ kind: 'lit', ...defaultLiteral(operand.literal) });
  }
  const what = operand.kind === 'typed' ? `'${operand.text}' (${operand.type})` : literalText(operand.literal);
  return fail('CANOPY_ERR_TYPE', `${level.clause} needs a condition such as a comparison; ${what} is not one`);
}

function literalOrExpression(n: unknown): string {
  const literal = readLiteral(n);
  return literal === null ? 'an expression' : literalText(literal);
}

/** The operand of NOT (`NOT x` or `NOT (x)`), or undefined. */
function notOperand(n: Node): unknown {
  if (n.type === 'unary_expr' && upper(n.operator) === 'NOT') return n.expr;
  const args = listItems(n.args);
  return n.type === 'function' && functionName(n).toUpperCase() === 'NOT' && args.length === 1 ? args[0] : undefined;
}

/** The operands of a left-deep chain of one operator (a AND b AND c), without recursion. */
function flattenChain(n: Node, op: string): unknown[] {
  const out: unknown[] = [];
  const stack: unknown[] = [n];
  while (stack.length > 0) {
    const top = stack.pop();
    if (isNode(top) && top.type === 'binary_expr' && upper(top.operator) === op) stack.push(top.right, top.left);
    else out.push(top);
  }
  return out;
}

function lowerComparison<E>(op: CmpOp, leftNode: unknown, rightNode: unknown, level: Level<E>): E {
  const left = level.operand(leftNode);
  const right = level.operand(rightNode);
  const swap = left.kind === 'literal' && right.kind === 'typed';
  const [l, r] = unify(swap ? [right, left] : [left, right], level);
  return level.build({ kind: 'cmp', op: swap ? FLIPPED[op] : op, left: l!, right: r! });
}

function lowerIn<E>(n: Node, negated: boolean, level: Level<E>): E {
  const items = listItems(n.right);
  if (items.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'IN needs a list of values: x IN (1, 2)');
  const literals = items.map((item) => {
    const literal = readLiteral(item);
    if (literal === null) {
      const subquery = isNode(item) && item.ast != null;
      fail('CANOPY_ERR_UNSUPPORTED', subquery ? SUBQUERY : 'IN (...) lists may hold only literals');
    }
    return { kind: 'literal', literal } as const;
  });
  const [arg, ...values] = unifyTyped([level.operand(n.left), ...literals]);
  const scalars = values.map((v) => ('value' in v ? v.value : null));
  return level.build({ kind: 'in', arg: toExpr(arg!, level), values: scalars, negated });
}

/** A unified operand: a typed expression, or a literal coerced to the operands' common type. */
type Unified<E> = { readonly expr: E } | TypedLiteral;

function toExpr<E>(u: Unified<E>, level: Level<E>): E {
  return 'expr' in u ? u.expr : level.build({ kind: 'lit', value: u.value, type: u.type });
}

function unify<E>(operands: readonly Operand<E>[], level: Level<E>): E[] {
  return unifyTyped(operands).map((u) => toExpr(u, level));
}

/**
 * Checks that operands can be compared: typed operands must have compatible types (equal,
 * or both numeric) and literals are coerced to the first typed operand's type; with no typed
 * operand, literals keep their own types, which must be compatible.
 * @throws CanopyError CANOPY_ERR_TYPE
 */
function unifyTyped<E>(operands: readonly Operand<E>[]): Unified<E>[] {
  const reference = operands.find((o) => o.kind === 'typed');
  if (reference === undefined) {
    const literals = operands.map((o) => (o.kind === 'literal' ? defaultLiteral(o.literal) : NULL_LITERAL));
    const first = literals.find((l) => l.type !== 'null');
    for (const l of literals) {
      if (first !== undefined && l.type !== 'null' && !compatible(first.type as ColumnType, l.type)) {
        fail('CANOPY_ERR_TYPE', `cannot compare ${first.type} ${String(first.value)} with ${l.type} ${String(l.value)}`);
      }
    }
    return literals;
  }
  return operands.map((o) => {
    if (o.kind === 'literal') return coerceLiteral(o.literal, reference);
    if (!compatible(reference.type, o.type)) {
      fail('CANOPY_ERR_TYPE', `cannot compare '${reference.text}' (${reference.type}) with '${o.text}' (${o.type})`);
    }
    return { expr: o.expr };
  });
}

function compatible(a: ColumnType, b: ColumnType): boolean {
  const numeric = (t: ColumnType): boolean => t === 'int64' || t === 'int128' || t === 'float64';
  return a === b || (numeric(a) && numeric(b));
}

// ---------------------------------------------------------------------------------------
// SELECT list, LIMIT and the kind of query

/** One SELECT item, classified before planning. */
type SelectItem =
  | { readonly kind: 'star' }
  | { readonly kind: 'aggregate'; readonly node: Node; readonly alias: string | null }
  | { readonly kind: 'key'; readonly key: Typed<KeyExpr>; readonly alias: string | null };

function classifySelectList(select: Select, scope: Scope): SelectItem[] {
  const columns = Array.isArray(select.columns) ? select.columns : [];
  if (columns.length === 0) fail('CANOPY_ERR_BAD_QUERY', 'SELECT needs at least one column');
  return columns.map((item): SelectItem => {
    const n = isNode(item) ? item.expr : undefined;
    const alias = isNode(item) ? str(item.as) : null;
    const ref = columnRef(n);
    if (ref?.name === '*') {
      checkQualifier(scope, ref.qualifier);
      return { kind: 'star' };
    }
    if (isAggregateCall(n)) return { kind: 'aggregate', node: n, alias };
    const literal = readLiteral(n);
    if (literal !== null) {
      fail('CANOPY_ERR_UNSUPPORTED', `constant SELECT items (${literalText(literal)}) are not supported; select columns`);
    }
    return { kind: 'key', key: lowerKey(n, scope, 'SELECT'), alias };
  });
}

/** True when `n` contains an aggregate call anywhere. */
function containsAggregate(n: unknown): boolean {
  if (Array.isArray(n)) return n.some(containsAggregate);
  if (!isNode(n)) return false;
  return isAggregateCall(n) || Object.values(n).some(containsAggregate);
}

function isAggregateQuery(select: Select): boolean {
  const orderExprs = Array.isArray(select.orderby) ? select.orderby.map((o) => (isNode(o) ? o.expr : null)) : [];
  return select.groupby != null || select.having != null || containsAggregate(select.columns) || containsAggregate(orderExprs);
}

/**
 * A 0-based position from a 1-based ordinal literal (`GROUP BY 1`, `ORDER BY 2`), or null
 * when `n` is not a number.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when the number is not a position in the SELECT list
 */
function ordinal(n: unknown, count: number, clause: string): number | null {
  const literal = readLiteral(n);
  if (literal?.kind !== 'number') return null;
  const position = integerValue(literal.text);
  if (position === null || position < 1n || position > BigInt(count)) {
    fail('CANOPY_ERR_BAD_QUERY', `${clause} position ${literal.text} is not in the SELECT list (1..${count})`);
  }
  return Number(position) - 1;
}

/** An unqualified identifier (a candidate alias), or null. */
function bareName(n: unknown): string | null {
  const ref = columnRef(n);
  return ref !== null && ref.qualifier === null && ref.name !== '*' ? ref.name : null;
}

function checkNoNullsOrder(item: Node): void {
  if (item.nulls != null) fail('CANOPY_ERR_UNSUPPORTED', 'NULLS FIRST / NULLS LAST is not supported');
}

function orderItems(select: Select): Node[] {
  return Array.isArray(select.orderby) ? select.orderby.filter(isNode) : [];
}

/**
 * The LIMIT as a row count, or null without one (or with LIMIT ALL).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for OFFSET; CANOPY_ERR_LIMIT outside [0, maxLimit]
 */
function readLimit(limit: unknown, limits: QueryLimits): number | null {
  const values = isNode(limit) && Array.isArray(limit.value) ? limit.value : [];
  if (isNode(limit) && (limit.seperator === 'offset' || limit.seperator === ',' || values.length > 1)) {
    fail('CANOPY_ERR_UNSUPPORTED', 'OFFSET is not supported; use LIMIT with ORDER BY');
  }
  const value = values[0];
  if (value === undefined || (isNode(value) && value.type === 'origin' && upper(value.value) === 'ALL')) return null;
  const literal = readLiteral(value);
  const rows = literal?.kind === 'number' ? integerValue(literal.text) : null;
  if (rows === null || rows < 0n || rows > BigInt(limits.maxLimit)) {
    const given = literal === null ? 'an expression' : literalText(literal);
    fail('CANOPY_ERR_LIMIT', `LIMIT must be an integer from 0 to ${limits.maxLimit}; got ${given}`);
  }
  return Number(rows);
}

// ---------------------------------------------------------------------------------------
// Row queries

function planRowQuery(
  select: Select,
  scope: Scope,
  items: readonly SelectItem[],
  filter: Expr | null,
  limit: number | null,
  limits: QueryLimits,
): QueryPlan {
  const columns: { name: string; expr: Expr; type: ColumnType }[] = [];
  const ids: string[] = [];
  const aliases = new Map<string, number>();
  const add = (name: string, key: Typed<KeyExpr>): number => {
    columns.push({ name, expr: key.expr, type: key.type });
    ids.push(keyId(key.expr));
    return columns.length - 1;
  };
  for (const item of items) {
    if (item.kind === 'star') {
      for (const c of scope.table.columns) add(c.name, columnKey(c));
    } else if (item.kind === 'key') {
      const index = add(item.alias ?? item.key.text, item.key);
      if (item.alias !== null && !aliases.has(item.alias)) aliases.set(item.alias, index);
    }
  }
  const visible = columns.length;
  const orderBy = orderItems(select).map((item) => {
    checkNoNullsOrder(item);
    const position = ordinal(item.expr, visible, 'ORDER BY');
    const alias = bareName(item.expr);
    const aliased = alias === null ? undefined : findByName(aliases.entries(), alias, ([name]) => name);
    let column = position ?? aliased?.[1];
    if (column === undefined) {
      const literal = readLiteral(item.expr);
      if (literal !== null) fail('CANOPY_ERR_BAD_QUERY', `ORDER BY ${literalText(literal)} is not a column, alias or position`);
      const key = lowerKey(item.expr, scope, 'ORDER BY');
      const found = ids.indexOf(keyId(key.expr));
      column = found >= 0 ? found : add(key.text, key);
    }
    return { column, desc: upper(item.type) === 'DESC' };
  });
  const rows: RowQuerySpec = { columns, visible, orderBy, limit: limit ?? limits.maxRows + 1 };
  return {
    scan: { table: scope.table.name, filter, groupBy: [], partials: [], rows, maxGroups: limits.maxGroups },
    output: [],
    having: null,
    orderBy: [],
    limit,
  };
}

// ---------------------------------------------------------------------------------------
// Aggregate queries

/** Where a bare identifier in a post-aggregation expression may name a SELECT alias. */
type AliasMode = 'before-columns' | 'after-group-keys';

/** The state of planning one aggregate query: group keys, partials and output columns. */
class AggregatePlanner {
  readonly keys: GroupKeySpec[] = [];
  readonly partials: PartialSpec[] = [];
  readonly output: OutColumn[] = [];
  private readonly keyIndex = new Map<string, number>();
  private readonly partialIndex = new Map<string, number>();
  private readonly aliases = new Map<string, Typed<OutExpr>>();

  constructor(private readonly scope: Scope) {}

  /** Adds a group key once; its name is the output name of the first SELECT item equal to it. */
  addKey(key: Typed<KeyExpr>, items: readonly SelectItem[]): void {
    const id = keyId(key.expr);
    if (this.keyIndex.has(id)) return;
    const selected = items.find((item) => item.kind === 'key' && keyId(item.key.expr) === id);
    const name = selected?.kind === 'key' ? (selected.alias ?? selected.key.text) : key.text;
    this.keyIndex.set(id, this.keys.length);
    this.keys.push({ name, expr: key.expr, type: key.type });
  }

  /** Adds an output column; an aliased one can then be referred to by HAVING and ORDER BY. */
  addOutput(name: string, value: Typed<OutExpr>, alias: string | null): void {
    this.output.push({ name, type: value.type, expr: value.expr });
    if (alias !== null && !this.aliases.has(alias)) this.aliases.set(alias, value);
  }

  /**
   * Lowers a group key expression used after aggregation.
   * @throws CanopyError CANOPY_ERR_BAD_QUERY when it is not a group key
   */
  key(n: unknown, clause: string): Typed<OutExpr> {
    return this.selectedKey(lowerKey(n, this.scope, clause));
  }

  /** A lowered key expression as a reference to its group key (see {@link key}). */
  selectedKey(key: Typed<KeyExpr>): Typed<OutExpr> {
    const index = this.keyIndex.get(keyId(key.expr));
    if (index === undefined) {
      fail('CANOPY_ERR_BAD_QUERY', `column '${key.text}' must appear in the GROUP BY clause or be used in an aggregate function`);
    }
    return { expr: { kind: 'key', index }, type: key.type, text: key.text };
  }

  /** An operand after aggregation: an aggregate, a group key, an alias or a literal. */
  operand(n: unknown, clause: string, aliasMode: AliasMode): Operand<OutExpr> {
    return readOperand(n, () => {
      if (isAggregateCall(n)) return this.aggregate(n);
      const name = bareName(n);
      if (name !== null) {
        const column = findColumn(this.scope, name);
        const preferAlias =
          aliasMode === 'before-columns' || column === undefined || !this.keyIndex.has(keyId({ kind: 'col', name: column.name }));
        const aliased = preferAlias ? findByName(this.aliases.entries(), name, ([alias]) => alias) : undefined;
        if (aliased !== undefined) return aliased[1];
      }
      return this.key(n, clause);
    });
  }

  /** Lowers one aggregate call to its partials (deduplicated) and its finalised type. */
  aggregate(n: Node): Typed<OutExpr> {
    const sketch = sketchFn(n);
    if (sketch !== undefined) return this.sketchAggregate(sketch, n);
    const fn = AGGREGATE_FNS.find((f) => f === str(n.name)?.toLowerCase());
    const args = isNode(n.args) ? n.args : {};
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    if (fn === undefined) fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, 'SELECT'));
    if (n.filter != null) fail('CANOPY_ERR_UNSUPPORTED', 'FILTER (WHERE ...) on aggregates is not supported');
    if (args.orderby != null) fail('CANOPY_ERR_UNSUPPORTED', 'ORDER BY inside an aggregate is not supported');
    if (args.distinct != null) {
      if (fn !== 'count') fail('CANOPY_ERR_UNSUPPORTED', `${fn.toUpperCase()}(DISTINCT ...) is not supported; only count(DISTINCT col) is`);
      const ref = columnRef(args.expr);
      if (ref === null || ref.name === '*') fail('CANOPY_ERR_UNSUPPORTED', 'count(DISTINCT ...) takes one column');
      const column = resolveColumn(this.scope, ref);
      return this.distinct(column, `count(DISTINCT ${column.name})`);
    }
    const column = this.aggregateColumn(fn, args.expr);
    if (column === null) {
      const partials = [this.partial('count_star', null)];
      return { expr: { kind: 'agg', fn: 'count', partials, type: 'int64' }, type: 'int64', text: 'count_star()' };
    }
    const text = `${fn}(${column.name})`;
    const numeric = column.type === 'int64' || column.type === 'float64';
    if ((fn === 'sum' || fn === 'avg') && !numeric) {
      fail('CANOPY_ERR_TYPE', `${fn}() needs an int64 or float64 column; '${column.name}' is ${column.type}`);
    }
    // SUM over int64 is int128 (DuckDB's HUGEINT), decided here and not by the data.
    const type: ColumnType = fn === 'count' ? 'int64' : fn === 'avg' ? 'float64' : fn === 'sum' && column.type === 'int64' ? 'int128' : column.type;
    const partials =
      fn === 'avg' ? [this.partial('sum', column.name), this.partial('count', column.name)] : [this.partial(fn, column.name)];
    return { expr: { kind: 'agg', fn, partials, type }, type, text };
  }

  /**
   * approx_count_distinct(col), approx_quantile(col, q) with q a number literal in [0, 1],
   * median(col) = approx_quantile(col, 0.5). Quantiles need an int64, float64 or timestamp
   * column; they are float64 (timestamp for a timestamp column).
   * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity, q not a literal in [0, 1]), CANOPY_ERR_TYPE
   */
  private sketchAggregate(fn: SketchFn, n: Node): Typed<OutExpr> {
    if (n.over != null) fail('CANOPY_ERR_UNSUPPORTED', 'window functions (OVER) are not supported');
    const args = listItems(n.args);
    const arity = fn === 'approx_quantile' ? 2 : 1;
    if (args.length !== arity) {
      fail('CANOPY_ERR_BAD_QUERY', fn === 'approx_quantile' ? `approx_quantile takes 2 arguments (column, quantile from 0 to 1), not ${args.length}` : `${fn}() takes one column, not ${args.length} arguments`);
    }
    const column = this.aggregateColumn(fn, args[0])!;
    if (fn === 'approx_count_distinct') return this.distinct(column, `approx_count_distinct(${column.name})`);
    if (column.type !== 'int64' && column.type !== 'float64' && column.type !== 'timestamp') {
      fail('CANOPY_ERR_TYPE', `${fn}() needs an int64, float64 or timestamp column; '${column.name}' is ${column.type}`);
    }
    let q = 0.5;
    let text = `median(${column.name})`;
    if (fn === 'approx_quantile') {
      const literal = readLiteral(args[1]);
      q = literal?.kind === 'number' ? Number(literal.text) : NaN;
      if (!(q >= 0 && q <= 1)) {
        const given = literal === null ? 'an expression' : literalText(literal);
        fail('CANOPY_ERR_BAD_QUERY', `approx_quantile's quantile must be a number literal from 0 to 1; got ${given}`);
      }
      text = `approx_quantile(${column.name}, ${literal!.kind === 'number' ? literal!.text : q})`;
    }
    const type: ColumnType = column.type === 'timestamp' ? 'timestamp' : 'float64';
    const partials = [this.partial('ddsketch', column.name)];
    return { expr: { kind: 'agg', fn: 'quantile', partials, type, q }, type, text };
  }

  /** count(DISTINCT col) and approx_count_distinct(col): one `hll` partial per column, an int64 count. */
  private distinct(column: ColumnInfo, text: string): Typed<OutExpr> {
    const partials = [this.partial('hll', column.name)];
    return { expr: { kind: 'agg', fn: 'count_distinct', partials, type: 'int64' }, type: 'int64', text };
  }

  /** The aggregated column, or null for count(*) (and count of a non-null literal, the same thing). */
  private aggregateColumn(fn: AggregateFn | SketchFn, arg: unknown): ColumnInfo | null {
    const ref = columnRef(arg);
    const literal = readLiteral(arg);
    const star = (isNode(arg) && arg.type === 'star') || ref?.name === '*';
    if (fn === 'count' && (star || (literal !== null && literal.kind !== 'null'))) return null;
    if (star) fail('CANOPY_ERR_BAD_QUERY', `${fn}(*) is not valid; only count(*) takes *`);
    if (ref === null) fail('CANOPY_ERR_UNSUPPORTED', `${fn}() of an expression is not supported; aggregate a column`);
    return resolveColumn(this.scope, ref);
  }

  private partial(kind: PartialSpec['kind'], arg: string | null): number {
    const id = `${kind}(${arg ?? '*'})`;
    let index = this.partialIndex.get(id);
    if (index === undefined) {
      index = this.partials.length;
      this.partialIndex.set(id, index);
      this.partials.push({ kind, arg });
    }
    return index;
  }
}

function planAggregateQuery(
  select: Select,
  scope: Scope,
  items: readonly SelectItem[],
  filter: Expr | null,
  limit: number | null,
  limits: QueryLimits,
): QueryPlan {
  if (items.some((item) => item.kind === 'star')) {
    fail('CANOPY_ERR_BAD_QUERY', 'SELECT * cannot be used with GROUP BY or aggregates; list the group keys and aggregates');
  }
  const planner = new AggregatePlanner(scope);
  const groupBy = isNode(select.groupby) && Array.isArray(select.groupby.columns) ? select.groupby.columns : [];
  for (const n of groupBy) planner.addKey(groupKey(n, scope, items), items);

  for (const item of items) {
    if (item.kind === 'star') continue;
    const value = item.kind === 'aggregate' ? planner.aggregate(item.node) : planner.selectedKey(item.key);
    planner.addOutput(item.alias ?? value.text, value, item.alias);
  }

  const having =
    select.having == null
      ? null
      : lowerPredicate(select.having, {
          clause: 'HAVING',
          operand: (n) => planner.operand(n, 'HAVING', 'after-group-keys'),
          build: (p: Pred<OutExpr>): OutExpr => p,
        });

  const orderBy = orderItems(select).map((item) => {
    checkNoNullsOrder(item);
    const position = ordinal(item.expr, planner.output.length, 'ORDER BY');
    let expr: OutExpr;
    if (position !== null) expr = planner.output[position]!.expr;
    else {
      const operand = planner.operand(item.expr, 'ORDER BY', 'before-columns');
      if (operand.kind === 'literal') {
        fail('CANOPY_ERR_BAD_QUERY', `ORDER BY ${literalText(operand.literal)} is not a column, alias, aggregate or position`);
      }
      expr = operand.expr;
    }
    return { expr, desc: upper(item.type) === 'DESC' };
  });

  return {
    scan: {
      table: scope.table.name,
      filter,
      groupBy: planner.keys,
      partials: planner.partials,
      rows: null,
      maxGroups: limits.maxGroups,
    },
    output: planner.output,
    having,
    orderBy,
    limit,
  };
}

/**
 * One GROUP BY item as a key: a 1-based position in the SELECT list, a table column, a
 * SELECT alias (table columns win, as in PostgreSQL), or date_trunc(unit, column).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY when it refers to an aggregate or is a constant
 */
function groupKey(n: unknown, scope: Scope, items: readonly SelectItem[]): Typed<KeyExpr> {
  const position = ordinal(n, items.length, 'GROUP BY');
  const name = bareName(n);
  const item =
    position !== null
      ? items[position]
      : name !== null && findColumn(scope, name) === undefined
        ? findByName(items, name, (i) => (i.kind === 'star' ? '' : (i.alias ?? '')))
        : undefined;
  if (item?.kind === 'aggregate') {
    fail('CANOPY_ERR_BAD_QUERY', `GROUP BY ${position !== null ? position + 1 : `'${name}'`} refers to an aggregate`);
  }
  if (item?.kind === 'key') return item.key;
  const literal = readLiteral(n);
  if (literal !== null) fail('CANOPY_ERR_BAD_QUERY', `GROUP BY ${literalText(literal)} is not a column, alias or position`);
  return lowerKey(n, scope, 'GROUP BY');
}
