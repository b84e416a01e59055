// @ts-check
/**
 * A table or column name as the query editor should insert it: bare when SQL reads it bare
 * (`origin`), else as a quoted identifier (`"unit price"`, `"order"`, `"Total"`), so that a
 * click in the schema panel never writes a query that refers to something else or does not
 * parse. Pure (no DOM): tested in Node against the planner (test/sql-name.test.ts).
 */

/**
 * Words canopy's SQL does not read as a bare name (node-sql-parser's reserved words among
 * DuckDB's keywords, found by planning each as a column and a table; DuckDB's own reserved
 * words, which it refuses bare as a table name), and the special functions a bare word would
 * call (`current_date`).
 */
const RESERVED = new Set([
  'add', 'all', 'alter', 'and', 'as', 'asc', 'at', 'between', 'by', 'call', 'case', 'constraint',
  'create', 'current_catalog', 'current_date', 'current_role', 'current_schema', 'current_time',
  'current_timestamp', 'current_user', 'delete', 'desc', 'distinct', 'drop', 'else', 'end',
  'except', 'exists', 'explain', 'false', 'from', 'full', 'glob', 'global', 'group', 'having',
  'ilike', 'in', 'inner', 'insert', 'intersect', 'into', 'is', 'join', 'json', 'left', 'like',
  'limit', 'local', 'localtime', 'localtimestamp', 'not', 'null', 'nulls', 'offset', 'on', 'or',
  'order', 'outer', 'partition', 'recursive', 'rename', 'right', 'select', 'session',
  'session_user', 'set', 'show', 'system_user', 'table', 'then', 'true', 'truncate', 'union',
  'update', 'using', 'when', 'where', 'window', 'with',
  // DuckDB's reserved words canopy refuses as a bare table name or alias, as DuckDB does
  // (src/root/sql/parse.ts, DUCKDB_RESERVED_ALIASES).
  'analyse', 'analyze', 'anti', 'any', 'array', 'asof', 'asymmetric', 'authorization', 'binary', 'both', 'cast', 'check', 'collate', 'collation',
  'column', 'concurrently', 'cross', 'default', 'deferrable', 'describe', 'do', 'fetch', 'for', 'foreign', 'freeze', 'initially', 'isnull',
  'lambda', 'lateral', 'leading', 'natural', 'notnull', 'only', 'overlaps', 'pivot', 'pivot_longer', 'pivot_wider', 'placing', 'positional',
  'primary', 'qualify', 'references', 'returning', 'semi', 'similar', 'some', 'summarize', 'symmetric', 'tablesample', 'to', 'trailing', 'unique',
  'unpack', 'unpivot', 'variadic', 'verbose',
]);

/**
 * `name` as SQL reads it: bare when it is a lower-case identifier that is no reserved word,
 * else in double quotes (a `"` inside doubled, as SQL writes it; canopy refuses such a name).
 * @param {string} name
 * @returns {string}
 */
export function sqlName(name) {
  if (/^[a-z_][a-z0-9_]*$/.test(name) && !RESERVED.has(name)) return name;
  return `"${name.replaceAll('"', '""')}"`;
}
