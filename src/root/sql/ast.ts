/**
 * The parser's AST, read defensively (it is untyped JSON-like data), and the check that a
 * statement is one plain SELECT.
 */
import { ONE_TABLE, fail } from './errors.ts';


export type Node = { readonly [key: string]: unknown };

export function isNode(v: unknown): v is Node {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function str(v: unknown): string | null {
  return typeof v === 'string' ? v : null;
}

export function upper(v: unknown): string {
  return typeof v === 'string' ? v.toUpperCase() : '';
}

/** The items of an `expr_list` node. */
export function listItems(v: unknown): readonly unknown[] {
  return isNode(v) && Array.isArray(v.value) ? v.value : [];
}

/** The SELECT statement's fields canopy reads; any other non-empty field is unsupported. */
export interface Select {
  readonly distinct?: unknown;
  readonly columns?: unknown;
  readonly from?: unknown;
  readonly where?: unknown;
  readonly groupby?: unknown;
  readonly having?: unknown;
  readonly orderby?: unknown;
  readonly limit?: unknown;
}

export const HANDLED_SELECT_FIELDS = new Set([
  'type', 'columns', 'from', 'where', 'groupby', 'having', 'orderby', 'limit', '_limit', 'distinct', 'into',
  'with', '_next', 'set_op', 'window', 'options', 'parentheses_symbol', 'loc',
]);

/** Checks that the AST is exactly one plain SELECT (no CTE, set operation, DISTINCT, ...). */
export function checkStatement(ast: unknown): Select {
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
  if (distinct != null && upper(distinct) !== 'DISTINCT') fail('CANOPY_ERR_UNSUPPORTED', `SELECT ${upper(distinct)} is not supported; use SELECT DISTINCT or GROUP BY`);
  if (isNode(s.distinct) && Object.keys(s.distinct).some((k) => k !== 'type' && s.distinct != null && (s.distinct as Node)[k] != null)) {
    fail('CANOPY_ERR_UNSUPPORTED', 'SELECT DISTINCT ON is not supported; use GROUP BY');
  }
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
