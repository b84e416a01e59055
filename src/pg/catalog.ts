/**
 * Enough of the PostgreSQL catalog for tools, answered from canopy's own catalog (the
 * served tables' schemas), by pattern: SELECTs without FROM over the session functions
 * (`version()`, `current_database()`, `current_schema()`, `current_user`,
 * `current_setting('...')`, literals); single-table SELECTs over `information_schema.tables`,
 * `.columns`, `.schemata`, `pg_catalog.pg_tables`, `pg_namespace`, `pg_database` with simple
 * WHERE (`=`, `<>`, `[NOT] IN`, `LIKE`, AND) and ORDER BY; and the pg_catalog queries psql's
 * `\dt` and `\d NAME` send (PostgreSQL 15/16 psql). Any other query that touches
 * pg_catalog or information_schema gets 0A000 naming what is supported.
 */
import type { Scalar } from '../merge/index.ts';
import { rowsResult, type PgColumn, type PgResult } from './result.ts';
import { pgTypeOf } from './types.ts';
import { PgSqlError } from './wire.ts';
import { toolQuery } from './tools.ts';

/** What the catalog answers from. */
export interface CatalogContext {
  readonly root: { readonly schemas: ReadonlyMap<string, { readonly name: string; readonly columns: readonly { readonly name: string; readonly type: string }[] }> };
  readonly database: string;
  readonly user: string;
  /** `SELECT version()`. */
  readonly version: string;
}

/** A virtual table: its columns (canopy types) and rows. */
interface VirtualTable {
  readonly columns: readonly PgColumn[];
  readonly rows: readonly (readonly Scalar[])[];
}

const S = (name: string): PgColumn => ({ name, type: 'string' });
const I = (name: string): PgColumn => ({ name, type: 'int64' });

/** OID of a served table in pg_class (stable per name order). */
export function tableOid(ctx: CatalogContext, name: string): number {
  return 16384 + [...ctx.root.schemas.keys()].sort().indexOf(name);
}

const PUBLIC_OID = 2200;

function virtualTables(ctx: CatalogContext): Map<string, () => VirtualTable> {
  const tables = [...ctx.root.schemas.values()].sort((a, b) => a.name.localeCompare(b.name));
  return new Map<string, () => VirtualTable>([
    [
      'information_schema.tables',
      () => ({
        columns: [S('table_catalog'), S('table_schema'), S('table_name'), S('table_type'), S('is_insertable_into'), S('is_typed')],
        rows: tables.map((t) => [ctx.database, 'public', t.name, 'BASE TABLE', 'NO', 'NO']),
      }),
    ],
    [
      'information_schema.columns',
      () => ({
        columns: [S('table_catalog'), S('table_schema'), S('table_name'), S('column_name'), I('ordinal_position'), S('column_default'), S('is_nullable'), S('data_type'), S('udt_name'), I('character_maximum_length'), I('numeric_precision'), I('numeric_scale'), I('datetime_precision')],
        rows: tables.flatMap((t) =>
          t.columns.map((c, i) => {
            const pg = pgTypeOf(c.type);
            const udt = { bigint: 'int8', 'double precision': 'float8', text: 'text', 'timestamp with time zone': 'timestamptz', boolean: 'bool', numeric: 'numeric', date: 'date' }[pg.name] ?? 'text';
            const precision = c.type === 'int64' ? 64n : c.type === 'float64' ? 53n : null;
            return [ctx.database, 'public', t.name, c.name, BigInt(i + 1), null, 'YES', pg.name, udt, null, precision, c.type === 'int64' ? 0n : null, c.type === 'timestamp' ? 6n : c.type === 'date' ? 0n : null];
          }),
        ),
      }),
    ],
    ['information_schema.schemata', () => ({ columns: [S('catalog_name'), S('schema_name'), S('schema_owner')], rows: [[ctx.database, 'public', ctx.user], [ctx.database, 'information_schema', ctx.user], [ctx.database, 'pg_catalog', ctx.user]] })],
    ['pg_catalog.pg_tables', () => ({ columns: [S('schemaname'), S('tablename'), S('tableowner'), S('tablespace')], rows: tables.map((t) => ['public', t.name, ctx.user, null]) })],
    ['pg_catalog.pg_namespace', () => ({ columns: [I('oid'), S('nspname')], rows: [[BigInt(PUBLIC_OID), 'public'], [11n, 'pg_catalog'], [13000n, 'information_schema']] })],
    ['pg_catalog.pg_extension', () => ({ columns: [I('oid'), S('extname'), S('extversion')], rows: [] })],
    ['pg_catalog.pg_database', () => ({ columns: [I('oid'), S('datname')], rows: [[16383n, ctx.database]] })],
  ]);
}

/** A top-level comma-separated split (outside quotes and parentheses). */
function splitTop(s: string, sep: RegExp): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote = false;
  let start = 0;
  for (let i = 0; i < s.length; i++) {
    const c = s[i]!;
    if (c === "'") quote = !quote;
    else if (!quote && c === '(') depth++;
    else if (!quote && c === ')') depth--;
    else if (!quote && depth === 0) {
      const m = sep.exec(s.slice(i));
      if (m !== null && m.index === 0) {
        out.push(s.slice(start, i));
        i += m[0].length - 1;
        start = i + 1;
      }
    }
  }
  out.push(s.slice(start));
  return out.map((x) => x.trim()).filter((x) => x !== '');
}

/** One select-list item: its expression text and the output name. */
function selectItem(item: string): { expr: string; name: string } {
  const m = /^([\s\S]+?)\s+(?:as\s+)?("[^"]+"|[A-Za-z_]\w*)$/i.exec(item);
  if (m !== null && !/^(from|where)$/i.test(m[2]!) && !/\($/.test(m[1]!.trim()) && !/^'.*'$/.test(m[2]!)) {
    // `count(*) n`, `x AS "Name"`; but not a bare function or keyword pair such as `current_user`.
    if (!/::\s*$/.test(m[1]!)) return { expr: m[1]!.trim(), name: m[2]!.replaceAll('"', '') };
  }
  const e = item.trim();
  const fn = /^(?:pg_catalog\.)?([A-Za-z_]\w*)/.exec(e.replace(/^quote_ident\(/i, ''));
  return { expr: e, name: fn === null ? '?column?' : fn[1]!.toLowerCase() };
}

const CAST = /\s*::\s*(?:pg_catalog\.)?[\w ]+(?:\([\d, ]*\))?$/i;

/** Evaluates a scalar expression of a no-FROM select, or a column of a virtual row. */
function scalar(expr: string, ctx: CatalogContext, row?: ReadonlyMap<string, Scalar>): { value: Scalar; type: string } {
  const e = expr.trim().replace(CAST, '').trim();
  const lower = e.toLowerCase().replace(/^pg_catalog\./, '');
  if (/^[+-]?\d+$/.test(e)) return { value: BigInt(e), type: 'int64' };
  if (/^[+-]?(\d+\.\d*|\.\d+)$/.test(e)) return { value: Number(e), type: 'float64' };
  if (/^'(?:[^']|'')*'$/.test(e)) return { value: e.slice(1, -1).replaceAll("''", "'"), type: 'string' };
  if (lower === 'true' || lower === 'false') return { value: lower === 'true', type: 'bool' };
  if (lower === 'null') return { value: null, type: 'string' };
  const quoted = /^quote_ident\((.+)\)$/i.exec(e);
  if (quoted !== null) {
    const v = scalar(quoted[1]!, ctx, row).value;
    return { value: typeof v === 'string' && !/^[a-z_][a-z0-9_]*$/.test(v) ? `"${v.replaceAll('"', '""')}"` : v, type: 'string' };
  }
  const lowered = /^(lower|upper)\((.+)\)$/i.exec(e);
  if (lowered !== null) {
    const v = scalar(lowered[2]!, ctx, row).value;
    return { value: typeof v === 'string' ? (lowered[1]!.toLowerCase() === 'lower' ? v.toLowerCase() : v.toUpperCase()) : v, type: 'string' };
  }
  if (row !== undefined) {
    const col = lower.replace(/^\w+\./, '').replaceAll('"', '');
    if (row.has(col)) return { value: row.get(col)!, type: 'string' };
  }
  // Grafana's version probe: SELECT current_setting('server_version_num')::int/100.
  if (/^current_setting\(\s*'server_version_num'\s*\)::int(eger)?\s*\/\s*100$/i.test(expr.trim())) return { value: 1600n, type: 'int64' };
  const setting = /^current_setting\(\s*'([^']+)'\s*(?:,\s*\w+\s*)?\)$/i.exec(e);
  if (setting !== null) {
    const name = setting[1]!.toLowerCase();
    const known: Record<string, string> = { server_version_num: '160000', server_version: '16.0', search_path: '"$user", public', timezone: 'UTC', datestyle: 'ISO, MDY', client_encoding: 'UTF8', server_encoding: 'UTF8', max_identifier_length: '63', standard_conforming_strings: 'on', integer_datetimes: 'on', transaction_isolation: 'read committed' };
    if (known[name] === undefined) throw new PgSqlError('42704', `unrecognized configuration parameter "${setting[1]}"`);
    return { value: known[name], type: 'string' };
  }
  switch (lower) {
    case 'version()':
      return { value: ctx.version, type: 'string' };
    case 'current_database()':
    case 'current_catalog':
      return { value: ctx.database, type: 'string' };
    case 'current_schema()':
    case 'current_schema':
      return { value: 'public', type: 'string' };
    case 'current_schemas(false)':
    case 'current_schemas(true)':
      return { value: lower.includes('true') ? '{pg_catalog,public}' : '{public}', type: 'string' };
    case 'current_user':
    case 'session_user':
    case 'user':
    case 'current_role':
      return { value: ctx.user, type: 'string' };
    case 'pg_backend_pid()':
      return { value: 0n, type: 'int64' };
    case 'now()':
    case 'current_timestamp':
    case 'transaction_timestamp()':
    case 'statement_timestamp()':
      return { value: Date.now() * 1000, type: 'timestamp' };
    case 'pg_is_in_recovery()':
      return { value: false, type: 'bool' };
    case 'inet_server_addr()':
    case 'inet_client_addr()':
      return { value: null, type: 'string' };
    default:
      throw new PgSqlError('0A000', `canopy's catalog cannot evaluate '${expr.trim().slice(0, 60)}'; supported without FROM: literals, version(), current_database(), current_schema(), current_user, current_setting('...'), now()`);
  }
}

/** A WHERE predicate over a virtual row: AND of `x = 'v'`, `x <> 'v'`, `x [NOT] IN (...)`, `x [NOT] LIKE 'p'`, `x IS [NOT] NULL`. */
function predicate(where: string, ctx: CatalogContext): (row: ReadonlyMap<string, Scalar>) => boolean {
  const parts = splitTop(where.replace(/^\(([\s\S]*)\)$/, '$1'), /^\s+and\s+/i);
  const tests = parts.map((p): ((row: ReadonlyMap<string, Scalar>) => boolean) => {
    const t = p.trim().replace(/^\((.*)\)$/, '$1');
    let m = /^([\s\S]+?)\s*(=|<>|!=)\s*([\s\S]+)$/.exec(t);
    if (m !== null && !/\bin\s*\(/i.test(m[1]!)) {
      const [, l, op, r] = m;
      return (row) => {
        const a = scalar(l!, ctx, row).value;
        const b = scalar(r!, ctx, row).value;
        return op === '=' ? a === b : a !== b;
      };
    }
    m = /^([\s\S]+?)\s+(not\s+)?in\s*\(([\s\S]*)\)$/i.exec(t);
    if (m !== null) {
      const [, l, not, list] = m;
      const values = splitTop(list!, /^,/).map((v) => scalar(v, ctx).value);
      return (row) => values.includes(scalar(l!, ctx, row).value) !== (not !== undefined);
    }
    m = /^([\s\S]+?)\s+(not\s+)?(i?like)\s+('(?:[^']|'')*')$/i.exec(t);
    if (m !== null) {
      const [, l, not, op, pat] = m;
      const src = (scalar(pat!, ctx).value as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replaceAll('%', '.*').replaceAll('_', '.');
      const re = new RegExp(`^${src}$`, op!.toLowerCase() === 'ilike' ? 'is' : 's');
      return (row) => re.test(String(scalar(l!, ctx, row).value)) !== (not !== undefined);
    }
    m = /^([\s\S]+?)\s+is\s+(not\s+)?null$/i.exec(t);
    if (m !== null) {
      const [, l, not] = m;
      return (row) => (scalar(l!, ctx, row).value === null) !== (not !== undefined);
    }
    throw new PgSqlError('0A000', `canopy's catalog cannot evaluate the condition '${t.slice(0, 80)}'; supported: =, <>, [NOT] IN, [NOT] LIKE, IS [NOT] NULL joined by AND`);
  });
  return (row) => tests.every((f) => f(row));
}

const NO_FROM = /^select\s+([\s\S]+)$/i;
const SELECT_SHAPE_FROM = /^select\s+([\s\S]+?)\s+from\s+([\w."]+)(?:\s+(?:as\s+)?(?!where\b|order\b|limit\b)(\w+))?(?:\s+where\s+([\s\S]+?))?(?:\s+order\s+by\s+([\s\S]+?))?(?:\s+limit\s+(\d+))?$/i;
const CATALOG_WORDS = /\b(pg_catalog|information_schema|pg_class|pg_namespace|pg_attribute|pg_type|pg_database|pg_tables|pg_settings|pg_roles|pg_user|pg_proc|pg_index|pg_constraint|pg_description|pg_extension|pg_am|pg_views|pg_matviews)\b/i;

/**
 * The catalog's answer to a SELECT, or null when the statement is not a catalog query (then
 * it goes to the engine).
 * @throws PgSqlError 0A000 for a catalog query canopy does not support
 */
export function catalogAnswer(sql: string, ctx: CatalogContext): PgResult | null {
  const text = sql.trim().replace(/;$/, '').trim();
  const tool = toolQuery(text.replace(/\s+/g, ' '), ctx);
  if (tool !== null) return tool;
  const hasFrom = /\bfrom\b/i.test(text.replace(/'(?:[^']|'')*'/g, "''"));
  const m = hasFrom ? SELECT_SHAPE_FROM.exec(text) : NO_FROM.exec(text);
  const from = hasFrom ? m?.[2]?.replaceAll('"', '').toLowerCase() : undefined;
  if (m !== null && !hasFrom) {
    // SELECT without FROM: session functions and literals.
    const items = splitTop(m[1]!, /^,/).map(selectItem);
    const values = items.map((it) => scalar(it.expr, ctx));
    return rowsResult(
      items.map((it, i) => ({ name: it.name, type: values[i]!.type })),
      [values.map((v) => v.value)],
    );
  }
  const tables = virtualTables(ctx);
  const key = from === undefined ? undefined : from.includes('.') ? from : [`pg_catalog.${from}`, `information_schema.${from}`].find((k) => tables.has(k));
  const table = key === undefined ? undefined : tables.get(key);
  if (m !== null && table !== undefined) {
    const vt = table();
    const names = vt.columns.map((c) => c.name);
    const rows = vt.rows.map((r) => new Map(names.map((n, i) => [n, r[i]!] as [string, Scalar])));
    const keep = m[4] === undefined ? () => true : predicate(m[4], ctx);
    const items = m[1]!.trim() === '*' ? names.map((n) => ({ expr: n, name: n })) : splitTop(m[1]!, /^,/).map(selectItem);
    const typeOf = (expr: string): string => vt.columns.find((c) => c.name === expr.trim().toLowerCase().replace(/^\w+\./, ''))?.type ?? 'string';
    let out = rows.filter(keep).map((r) => items.map((it) => scalar(it.expr, ctx, r).value));
    if (m[5] !== undefined) {
      const keys = splitTop(m[5], /^,/).map((k) => {
        const km = /^([\s\S]+?)(?:\s+(asc|desc))?$/i.exec(k.trim())!;
        const ord = /^\d+$/.test(km[1]!) ? Number(km[1]) - 1 : items.findIndex((it) => it.name === km[1]!.replaceAll('"', '') || it.expr === km[1]);
        return { ord, expr: km[1]!, desc: km[2]?.toLowerCase() === 'desc' };
      });
      const withKeys = out.map((r, i) => ({ r, k: keys.map((k) => (k.ord >= 0 ? r[k.ord] : scalar(k.expr, ctx, rows.filter(keep)[i]).value)) }));
      withKeys.sort((a, b) => {
        for (let j = 0; j < keys.length; j++) {
          const x = a.k[j];
          const y = b.k[j];
          const c = x === y ? 0 : x === null ? 1 : y === null ? -1 : x! < y! ? -1 : 1;
          if (c !== 0) return keys[j]!.desc ? -c : c;
        }
        return 0;
      });
      out = withKeys.map((w) => w.r);
    }
    if (m[6] !== undefined) out = out.slice(0, Number(m[6]));
    return rowsResult(items.map((it) => ({ name: it.name, type: typeOf(it.expr.replace(/^quote_ident\((.+)\)$/i, '$1')) })), out);
  }
  if (CATALOG_WORDS.test(text)) {
    throw new PgSqlError(
      '0A000',
      `canopy does not answer this catalog query; supported: information_schema.tables/columns/schemata, pg_catalog.pg_tables/pg_namespace/pg_database with simple WHERE and ORDER BY, and psql's \\dt, \\d NAME, \\l and \\dn`,
    );
  }
  return null;
}
