/**
 * Catalog queries that tools send, recognised by their shape (whitespace collapsed) and
 * answered from canopy's catalog: psql's `\dt [PATTERN]`, `\d NAME`, `\l` and `\dn` (PostgreSQL 15/16 psql;
 * run `psql -E` to see them), SQLAlchemy's table and column inspection (as Superset uses it),
 * psycopg2's hstore probe, and Grafana's table and column pickers. The served tables are
 * tables of schema `public`, their columns carry PostgreSQL types, and they have no indexes,
 * constraints, triggers, policies, statistics, publications, inheritance or partitions.
 */
import type { Scalar } from '../merge/index.ts';
import { tableOid, type CatalogContext } from './catalog.ts';
import { rowsResult, type PgColumn, type PgResult } from './result.ts';
import { pgTypeOf } from './types.ts';

const S = (name: string): PgColumn => ({ name, type: 'string' });

/** The relname pattern psql sends (`c.relname OPERATOR(pg_catalog.~) '^(flights)$'`), as a test. */
function namePattern(sql: string): (name: string) => boolean {
  const m = /relname\s+OPERATOR\(pg_catalog\.~\)\s+'((?:[^']|'')*)'/i.exec(sql);
  if (m === null) return () => true;
  let re: RegExp;
  try {
    re = new RegExp(m[1]!.replaceAll("''", "'"));
  } catch {
    return () => false;
  }
  return (name) => re.test(name);
}

/** The oid in `WHERE c.oid = '16384'` / `a.attrelid = '16384'` / `...relid = '16384'`. */
function oidIn(sql: string): number | null {
  const m = /(?:\.oid|attrelid|relid|inhrelid|inhparent|conrelid|tgrelid|polrelid|stxrelid|prrelid|indrelid|partrelid|objoid)\s*=\s*'?(\d+)'?/i.exec(sql);
  return m === null ? null : Number(m[1]);
}

/** Shapes of the \d queries answered with no rows (canopy tables have none of these). */
const EMPTY_SHAPES: readonly RegExp[] = [
  /FROM pg_catalog\.pg_class c, pg_catalog\.pg_class c2, pg_catalog\.pg_index i/i, // indexes
  /FROM pg_catalog\.pg_constraint r/i, // check and foreign-key constraints
  /FROM pg_catalog\.pg_trigger t/i, // triggers
  /FROM pg_catalog\.pg_policy pol/i, // row security policies
  /FROM pg_catalog\.pg_statistic_ext/i, // extended statistics
  /FROM pg_catalog\.pg_publication/i, // publications
  /pg_catalog\.pg_inherits/i, // inheritance and partitions
  /FROM pg_catalog\.pg_rewrite/i, // rules
  /FROM pg_catalog\.pg_foreign_table/i,
  /FROM pg_catalog\.pg_type t\s+LEFT JOIN pg_catalog\.pg_namespace n ON n\.oid = t\.typnamespace\s+(?:LEFT JOIN pg_catalog\.pg_enum e ON t\.oid = e\.enumtypid\s+)?WHERE t\.typtype = '[de]'/i, // SQLAlchemy: domains, enums
];

/**
 * psql's answer to one of its describe queries, or null when the query is not one of them.
 */
export function toolQuery(sql: string, ctx: CatalogContext): PgResult | null {
  if (!/pg_catalog\./.test(sql)) return clientShapes(sql, ctx);
  const tables = [...ctx.root.schemas.values()].sort((a, b) => a.name.localeCompare(b.name));
  // \dt [PATTERN]
  if (/as "Schema"/i.test(sql) && /as "Name"/i.test(sql) && /FROM pg_catalog\.pg_class c/i.test(sql) && /c\.relkind IN \(/i.test(sql)) {
    const wantsTables = /c\.relkind IN \([^)]*'r'/i.test(sql);
    const match = namePattern(sql);
    const rows = wantsTables ? tables.filter((t) => match(t.name)).map((t) => ['public', t.name, 'table', ctx.user]) : [];
    const cols = [S('Schema'), S('Name'), S('Type'), S('Owner')];
    return rowsResult(/as "Size"/i.test(sql) ? [...cols, S('Persistence'), S('Access method'), S('Size'), S('Description')] : cols, /as "Size"/i.test(sql) ? rows.map((r) => [...r, 'permanent', null, null, null]) : rows);
  }
  // \l [PATTERN]: the one database; \dn [PATTERN]: schema public. Columns as psql names them (they vary by version).
  if (/FROM pg_catalog\.pg_database d/i.test(sql) && /as "Name"/i.test(sql)) {
    const match = namePattern(sql.replace(/d\.datname OPERATOR/i, 'relname OPERATOR'));
    return byAliases(sql, match(ctx.database) ? [{ Name: ctx.database, Owner: ctx.user, Encoding: 'UTF8', 'Locale Provider': 'libc', Collate: 'C.UTF-8', Ctype: 'C.UTF-8' }] : []);
  }
  if (/FROM pg_catalog\.pg_namespace n/i.test(sql) && /AS "Name"/i.test(sql) && /pg_get_userbyid\(n\.nspowner\)/i.test(sql)) {
    const match = namePattern(sql.replace(/n\.nspname OPERATOR/i, 'relname OPERATOR'));
    return byAliases(sql, match('public') ? [{ Name: 'public', Owner: ctx.user }] : []);
  }
  // SQLAlchemy's get_table_oid.
  const byName = /^SELECT c\.oid\s+FROM pg_catalog\.pg_class c\s+LEFT JOIN pg_catalog\.pg_namespace n ON n\.oid = c\.relnamespace\s+WHERE \(pg_catalog\.pg_table_is_visible\(c\.oid\)\)\s+AND c\.relname = '([^']*)' AND c\.relkind in\s+\('r'/i.exec(sql);
  if (byName !== null) return rowsResult([{ name: 'oid', type: 'int64' }], tables.filter((t) => t.name === byName[1]).map((t) => [BigInt(tableOid(ctx, t.name))]));
  // \d NAME, step 1: which relations match.
  if (/^SELECT c\.oid,\s*n\.nspname,\s*c\.relname\s+FROM pg_catalog\.pg_class c/i.test(sql)) {
    const match = namePattern(sql);
    return rowsResult([S('oid'), S('nspname'), S('relname')], tables.filter((t) => match(t.name)).map((t) => [String(tableOid(ctx, t.name)), 'public', t.name]));
  }
  const oid = oidIn(sql);
  const table = oid === null ? undefined : tables.find((t) => tableOid(ctx, t.name) === oid);
  // \d NAME, step 2: the relation's properties.
  if (/^SELECT c\.relchecks, c\.relkind, c\.relhasindex/i.test(sql)) {
    const names = ['relchecks', 'relkind', 'relhasindex', 'relhasrules', 'relhastriggers', 'relrowsecurity', 'relforcerowsecurity', 'relhasoids', 'relispartition', 'reloptions', 'reltablespace', 'reloftype', 'relpersistence', 'relreplident', 'amname'];
    const row: Scalar[] = ['0', 'r', 'f', 'f', 'f', 'f', 'f', 'f', 'f', '', '0', '', 'p', 'd', null];
    return rowsResult(names.map(S), table === undefined ? [] : [row]);
  }
  // \d NAME, step 3: the columns.
  if (/^SELECT a\.attname,\s*pg_catalog\.format_type\(a\.atttypid, a\.atttypmod\)/i.test(sql)) {
    if (/as table_oid/i.test(sql)) {
      // SQLAlchemy's get_columns: name, type, default, not null, table oid, comment, generated, identity.
      const cols: PgColumn[] = [S('attname'), S('format_type'), S('default'), { name: 'attnotnull', type: 'bool' }, { name: 'table_oid', type: 'int64' }, S('comment'), S('generated'), S('identity_options')];
      return rowsResult(cols, (table?.columns ?? []).map((c) => [c.name, pgTypeOf(c.type).name, null, false, BigInt(oid ?? 0), null, '', null]));
    }
    const names = ['attname', 'format_type', 'pg_get_expr', 'attnotnull', 'attcollation', 'attidentity', 'attgenerated'];
    const extra = /a\.attstorage/i.test(sql) ? ['attstorage', 'attstattarget', 'description'] : [];
    const rows = (table?.columns ?? []).map((c) => [c.name, pgTypeOf(c.type).name, null, 'f', null, '', '', ...extra.map((e) => (e === 'attstorage' ? 'p' : null))]);
    return rowsResult([...names, ...extra].map(S), rows);
  }
  if (EMPTY_SHAPES.some((re) => re.test(sql))) return rowsResult([S('?column?')], []);
  return null;
}

/**
 * A result whose columns are the query's `AS "Alias"` names in order (text), each row giving
 * the value of its alias (NULL for an alias it does not give): psql's list commands, whose
 * columns differ between versions.
 */
function byAliases(sql: string, rows: readonly Readonly<Record<string, Scalar>>[]): PgResult {
  const names = [...sql.matchAll(/\bAS "((?:[^"]|"")*)"/gi)].map((m) => m[1]!.replaceAll('""', '"'));
  return rowsResult(names.map(S), rows.map((r) => names.map((n) => r[n] ?? null)));
}

/**
 * Queries other clients send on connect or to list tables: psycopg2's hstore lookup (and
 * SQLAlchemy's, through it), answered with no rows (canopy has no extension types).
 */
export function clientShapes(sql: string, ctx: CatalogContext): PgResult | null {
  const tables = [...ctx.root.schemas.values()].sort((a, b) => a.name.localeCompare(b.name));
  // Grafana's table picker: tables on the search path unqualified, others schema-qualified.
  if (/^SELECT CASE WHEN quote_ident\(table_schema\) IN \( SELECT CASE WHEN trim\(s\[i\]\)/i.test(sql) && /FROM information_schema\.tables/i.test(sql) && /END AS "table"/i.test(sql)) {
    return rowsResult([S('table')], tables.map((t) => [t.name]));
  }
  // Grafana's column picker: the columns of one table (`name` or `schema.name`).
  const picker = /^SELECT quote_ident\(column_name\) AS "column", data_type AS "type" FROM information_schema\.columns WHERE CASE WHEN array_length\(parse_ident\('((?:[^']|'')*)'\),1\) = 2/i.exec(sql);
  if (picker !== null) {
    const name = picker[1]!.replaceAll("''", "'");
    const bare = name.startsWith('public.') ? name.slice(7) : name;
    const t = tables.find((x) => x.name === bare.replace(/^"(.*)"$/, '$1'));
    return rowsResult([S('column'), S('type')], (t?.columns ?? []).map((c) => [c.name, pgTypeOf(c.type).name]));
  }
  // SQLAlchemy's get_table_names / has_table.
  const rel = /^SELECT c\.relname FROM pg_class c JOIN pg_namespace n ON n\.oid = c\.relnamespace WHERE n\.nspname = '([^']*)' AND c\.relkind in \('r', 'p'\)$/i.exec(sql);
  if (rel !== null) return rowsResult([S('relname')], rel[1] === 'public' ? tables.map((t) => [t.name]) : []);
  if (/^SELECT t\.oid, typarray\s+FROM pg_type t JOIN pg_namespace ns\s+ON typnamespace = ns\.oid\s+WHERE typname = 'hstore'$/i.test(sql)) return rowsResult([{ name: 'oid', type: 'int64' }, { name: 'typarray', type: 'int64' }], []);
  return null;
}
