/**
 * Table and column names: the FROM table, its alias, and column references resolved against it.
 */
import { unknownNameMessage } from '../../merge/errors.ts';
import type { ColumnInfo, TableSchema } from '../../merge/types.ts';
import { type Select, isNode, str } from './ast.ts';
import { COLLATE_ELSEWHERE } from './collate.ts';
import { ONE_TABLE, SUBQUERY, fail } from './errors.ts';


/** The queried table and the name that may qualify its columns (the alias, if any). */
export interface Scope {
  readonly table: TableSchema;
  readonly qualifier: string;
}

/** Exact match first, then case-insensitive (unquoted SQL identifiers are case-insensitive). */
export function findByName<T>(items: Iterable<T>, name: string, nameOf: (item: T) => string): T | undefined {
  const all = [...items];
  const lower = name.toLowerCase();
  return all.find((item) => nameOf(item) === name) ?? all.find((item) => nameOf(item).toLowerCase() === lower);
}

export function resolveFrom(select: Select, tables: ReadonlyMap<string, TableSchema>): Scope {
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
  const name = withoutSchema([item.db, item.schema, item.table].map(str).filter((part) => part !== null).join('.'));
  const key = findByName(tables.keys(), name, (k) => k);
  const table = key === undefined ? undefined : tables.get(key);
  if (table === undefined) fail('CANOPY_ERR_UNKNOWN_TABLE', unknownNameMessage('table', name, [...tables.keys()]));
  const alias = str(item.as);
  if (alias !== null && alias.includes('(')) fail('CANOPY_ERR_UNSUPPORTED', 'column aliases in FROM are not supported');
  return { table, qualifier: alias ?? table.name };
}

/** A column reference as written: optional qualifier and a name (`*` for a star). */
export interface ColumnRef {
  readonly qualifier: string | null;
  readonly name: string;
  /** Written in double quotes (`"ORD"`): a name, which a newcomer may have meant as a string. */
  readonly quoted?: boolean;
}

/** Reads a `column_ref` node, or returns null for any other node. */
export function columnRef(n: unknown): ColumnRef | null {
  if (!isNode(n) || n.type !== 'column_ref') return null;
  if (n.collate != null) fail('CANOPY_ERR_UNSUPPORTED', COLLATE_ELSEWHERE);
  const table = isNode(n.table) ? str(n.table.value) : str(n.table);
  const qualifier = [str(n.db), str(n.schema), table].filter((part) => part !== null).join('.');
  const name = n.column === '*' ? '*' : isNode(n.column) && isNode(n.column.expr) ? str(n.column.expr.value) : str(n.column);
  if (name === null) fail('CANOPY_ERR_UNSUPPORTED', 'this column reference is not supported');
  const quoted = isNode(n.column) && isNode(n.column.expr) && n.column.expr.type === 'double_quote_string';
  return { qualifier: qualifier === '' ? null : qualifier, name, ...(quoted ? { quoted } : {}) };
}

/**
 * A table name without the default schema: `public.flights` (the pg wire's catalog lists the
 * tables in schema public; BI tools qualify names with it) and DuckDB's `main.flights` are
 * `flights`. Any other schema or a database part is kept (and is then unknown).
 */
export function withoutSchema(name: string): string {
  const m = /^(?:public|main)\.([^.]+)$/i.exec(name);
  return m === null ? name : m[1]!;
}

export function checkQualifier(scope: Scope, qualifier: string | null): void {
  // `public.flights.origin` names the table's column when the table has no alias.
  const q = qualifier !== null && scope.qualifier === scope.table.name ? withoutSchema(qualifier) : qualifier;
  if (q !== null && findByName([scope.qualifier], q, (x) => x) === undefined) {
    fail('CANOPY_ERR_UNKNOWN_TABLE', unknownNameMessage('table', q, [scope.qualifier]));
  }
}

export function findColumn(scope: Scope, name: string): ColumnInfo | undefined {
  return findByName(scope.table.columns, name, (c) => c.name);
}

export function resolveColumn(scope: Scope, ref: ColumnRef): ColumnInfo {
  checkQualifier(scope, ref.qualifier);
  const column = findColumn(scope, ref.name);
  if (column === undefined) {
    // `origin = "ORD"`: double quotes name a column in SQL; say how to write the string.
    const hint = ref.quoted === true && ref.qualifier === null ? `; "${ref.name}" in double quotes is a column name: write a string in single quotes, '${ref.name.replaceAll("'", "''")}'` : '';
    fail('CANOPY_ERR_UNKNOWN_COLUMN', unknownNameMessage('column', ref.name, scope.table.columns.map((c) => c.name)) + hint);
  }
  return column;
}
