/**
 * SQL text handling for the wire protocol: splitting a simple-query string into statements
 * and binding `$n` parameters as typed SQL literals. A small lexer that knows what
 * canopy's parser treats as one token: '...' strings (standard: '' is a quote, a backslash
 * is itself; E'...' strings with backslash escapes), $$...$$ and $tag$...$tag$ strings,
 * "..." identifiers, -- and (nested) /* *\/ comments.
 */
import { CanopyError, type ColumnType } from '../merge/index.ts';
import { OID } from './types.ts';
import { skipBlockComment } from '../root/sql/lexer.ts';

/** A token of SQL text, with its offset (0-based, in UTF-16 units). */
interface Token {
  readonly kind: 'word' | 'string' | 'ident' | 'param' | 'op' | 'punct' | 'number';
  readonly text: string;
  readonly offset: number;
}

/** The opening of a dollar-quoted string: `$$` or `$tag$` (a tag starts with a letter or _; `$1` is a parameter). */
const DOLLAR_TAG = /^\$(?:[A-Za-z_][A-Za-z_0-9]*)?\$/;

/** Tokenises SQL text (whitespace and comments dropped). An unterminated string runs to the end. */
function tokens(sql: string): Token[] {
  const out: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    const start = i;
    if (/\s/.test(c)) i++;
    else if (c === '-' && sql[i + 1] === '-') {
      while (i < sql.length && sql[i] !== '\n') i++;
    } else if (c === '/' && sql[i + 1] === '*') {
      // Block comments nest, as canopy's parser (and PostgreSQL, DuckDB) reads them.
      i = skipBlockComment(sql, i);
    } else if (c === '$' && DOLLAR_TAG.test(sql.slice(i, i + 66)) && !(out.length > 0 && out[out.length - 1]!.offset + out[out.length - 1]!.text.length === start && /[A-Za-z0-9_$]$/.test(out[out.length - 1]!.text))) {
      // A dollar-quoted string, $$...$$ or $tag$...$tag$: its body is text ($1 in it is no parameter).
      const tag = DOLLAR_TAG.exec(sql.slice(i, i + 66))![0];
      const end = sql.indexOf(tag, i + tag.length);
      i = end < 0 ? sql.length : end + tag.length;
      out.push({ kind: 'string', text: sql.slice(start, i), offset: start });
    } else if (c === "'") {
      // Standard strings read a backslash as itself (as canopy's parser does); E'...' escapes.
      const escapes = out.length > 0 && /^[eE]$/.test(out[out.length - 1]!.text) && out[out.length - 1]!.offset + 1 === start;
      if (escapes) out.pop();
      i++;
      while (i < sql.length) {
        if (escapes && sql[i] === '\\') i += 2;
        else if (sql[i] === "'" && sql[i + 1] === "'") i += 2;
        else if (sql[i] === "'") break;
        else i++;
      }
      i = Math.min(i + 1, sql.length);
      const from = escapes ? start - 1 : start;
      out.push({ kind: 'string', text: sql.slice(from, i), offset: from });
    } else if (c === '"') {
      const end = sql.indexOf('"', i + 1);
      i = end < 0 ? sql.length : end + 1;
      out.push({ kind: 'ident', text: sql.slice(start, i), offset: start });
    } else if (c === '$' && /\d/.test(sql[i + 1] ?? '')) {
      i++;
      while (i < sql.length && /\d/.test(sql[i]!)) i++;
      out.push({ kind: 'param', text: sql.slice(start, i), offset: start });
    } else if (/[A-Za-z_]/.test(c)) {
      while (i < sql.length && /[A-Za-z0-9_$.]/.test(sql[i]!)) i++;
      out.push({ kind: 'word', text: sql.slice(start, i), offset: start });
    } else if (/\d/.test(c) || (c === '.' && /\d/.test(sql[i + 1] ?? ''))) {
      while (i < sql.length && /[0-9.eE]/.test(sql[i]!)) i++;
      out.push({ kind: 'number', text: sql.slice(start, i), offset: start });
    } else if (/[<>=!~]/.test(c)) {
      while (i < sql.length && /[<>=!~]/.test(sql[i]!)) i++;
      out.push({ kind: 'op', text: sql.slice(start, i), offset: start });
    } else {
      i++;
      out.push({ kind: 'punct', text: c, offset: start });
    }
  }
  return out;
}

/** One statement of a simple-query string and where it starts in it. */
export interface Statement {
  readonly text: string;
  readonly offset: number;
}

/** Splits on `;` outside strings, identifiers and comments; empty statements are dropped (none for an empty string). */
export function splitStatements(sql: string): Statement[] {
  const out: Statement[] = [];
  let start = 0;
  for (const t of tokens(sql)) {
    if (t.kind === 'punct' && t.text === ';') {
      if (sql.slice(start, t.offset).trim() !== '') out.push({ text: sql.slice(start, t.offset), offset: start });
      start = t.offset + 1;
    }
  }
  if (sql.slice(start).trim() !== '') out.push({ text: sql.slice(start), offset: start });
  return out;
}

/** True when the text holds only whitespace and comments. */
export function isBlank(sql: string): boolean {
  return tokens(sql).length === 0;
}

/** The number of parameters (`$n` with the highest n) the statement uses. */
export function paramCount(sql: string): number {
  return tokens(sql).reduce((n, t) => (t.kind === 'param' ? Math.max(n, Number(t.text.slice(1))) : n), 0);
}

/** A bound parameter: its declared type OID (0 = unspecified) and its text, or null for NULL. */
export interface BoundParam {
  readonly oid: number;
  readonly text: string | null;
}

/** SQL text with parameters bound, and how to map an offset in it back to the original. */
export interface BoundSql {
  readonly sql: string;
  /** Offset in the original text of an offset in `sql`. */
  originalOffset(offset: number): number;
}

const NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/;
const INTEGER = /^[+-]?\d+$/;
const NUMERIC_OIDS: ReadonlySet<number> = new Set([OID.int2, OID.int4, OID.int8, OID.oid, OID.float4, OID.float8, OID.numeric]);
const INTEGER_OIDS: ReadonlySet<number> = new Set([OID.int2, OID.int4, OID.int8, OID.oid]);

/**
 * A string value as a standard '...' literal that canopy's parser reads back as exactly that
 * value: quotes are doubled; a backslash is itself (standard SQL strings, src/root/sql/parse.ts).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for a NUL character
 */
export function stringLiteral(v: string, n: number): string {
  if (v.includes('\0')) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `parameter $${n} holds a NUL character`);
  return `'${v.replaceAll("'", "''")}'`;
}

/** The names of the string types a parameter may be cast to. */
const STRING_TYPES: ReadonlySet<string> = new Set(['VARCHAR', 'TEXT', 'STRING', 'CHAR', 'BPCHAR', 'NVARCHAR']);

/**
 * The column type a `$n` parameter takes, from the tokens around it: the type it is cast to
 * (`$n::VARCHAR`, `CAST($n AS TEXT)`, string and timestamp types), or the column it is
 * compared with: `col op $n`, `$n op col`, `col [NOT] IN (..., $n, ...)`, `col [NOT] BETWEEN $n AND $m`.
 */
function contextColumn(ts: readonly Token[], at: number, columns: ReadonlyMap<string, ColumnType>): ColumnType | undefined {
  const col = (t: Token | undefined): ColumnType | undefined => {
    if (t === undefined) return undefined;
    if (t.kind === 'word') return columns.get(t.text.toLowerCase().split('.').pop()!);
    if (t.kind === 'ident') return columns.get(t.text.slice(1, -1));
    return undefined;
  };
  // `$n::VARCHAR`, `CAST($n AS TEXT)`: the type the parameter is cast to.
  const castTo = ts[at + 1]?.text === ':' && ts[at + 2]?.text === ':' ? ts[at + 3] : ts[at - 1]?.text === '(' && ts[at - 2]?.text.toUpperCase().endsWith('CAST') && ts[at + 1]?.text.toUpperCase() === 'AS' ? ts[at + 2] : undefined;
  if (castTo?.kind === 'word' && STRING_TYPES.has(castTo.text.toUpperCase())) return 'string';
  if (castTo?.kind === 'word' && /^TIMESTAMP(TZ)?$/i.test(castTo.text)) return 'timestamp';
  const prev = ts[at - 1];
  if (prev?.kind === 'op') return col(ts[at - 2]);
  if (ts[at + 1]?.kind === 'op') return col(ts[at + 2]);
  // Inside an IN list or BETWEEN: walk back over values and commas.
  let i = at - 1;
  while (i >= 0 && (ts[i]!.kind === 'param' || ts[i]!.kind === 'string' || ts[i]!.kind === 'number' || ts[i]!.text === ',' || ts[i]!.text.toUpperCase() === 'AND')) i--;
  const w = ts[i]?.text.toUpperCase();
  if (w === 'BETWEEN') return col(ts[i - 1]?.text.toUpperCase() === 'NOT' ? ts[i - 2] : ts[i - 1]);
  if (ts[i]?.text === '(' && ts[i - 1]?.text.toUpperCase() === 'IN') return col(ts[i - 2]?.text.toUpperCase() === 'NOT' ? ts[i - 3] : ts[i - 2]);
  return undefined;
}

/**
 * Binds `$1..$n` as SQL literals typed by the parameter's declared OID: integers and
 * numbers are checked and written bare; booleans as TRUE/FALSE; everything else as a
 * quoted string literal (see {@link stringLiteral}). A parameter of unspecified type
 * (OID 0 or unknown, as node-postgres sends them) that looks like a number is written bare
 * unless it is compared with a string, timestamp or date column. Never concatenates unchecked text.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for a missing parameter or a value that does
 *   not fit its declared type
 */
export function bindParams(sql: string, params: readonly BoundParam[], columns: ReadonlyMap<string, ColumnType>): BoundSql {
  const ts = tokens(sql);
  let out = '';
  let last = 0;
  const shifts: { at: number; len: number; orig: number; tokLen: number }[] = [];
  ts.forEach((t, i) => {
    if (t.kind !== 'param') return;
    const n = Number(t.text.slice(1));
    const p = params[n - 1];
    if (p === undefined) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `the statement uses $${n} but ${params.length} parameter(s) were bound`);
    const lit = quantifiedList(ts, i) ? arrayListOf(p, n, arrayCastAfter(ts, i) !== undefined, () => contextColumn(ts, i - 2, columns)) : literalOf(p, n, () => contextColumn(ts, i, columns));
    out += sql.slice(last, t.offset);
    shifts.push({ at: out.length, len: lit.length, orig: t.offset, tokLen: t.text.length });
    out += lit;
    last = t.offset + t.text.length;
  });
  out += sql.slice(last);
  return {
    sql: out,
    originalOffset(offset: number): number {
      let delta = 0;
      for (const s of shifts) {
        if (offset < s.at) break;
        if (offset < s.at + s.len) return s.orig;
        delta += s.len - s.tokLen;
      }
      return offset - delta;
    },
  };
}

/** Whether token i (a parameter) is the whole argument of ANY / SOME / ALL: `x = ANY($1)`, or cast to an array type there: `x = ANY($1::text[])`. */
function quantifiedList(ts: readonly Token[], i: number): boolean {
  const after = arrayCastAfter(ts, i) === undefined ? i + 1 : i + 6;
  return ts[i - 1]?.text === '(' && ts[after]?.text === ')' && /^(ANY|SOME|ALL)$/i.test(ts[i - 2]?.text ?? '');
}

/** The element type of a cast to an array type after token i (`$1::text[]`: 'text'), or undefined. */
function arrayCastAfter(ts: readonly Token[], i: number): string | undefined {
  const [c1, c2, type, open, close] = ts.slice(i + 1, i + 6);
  return c1?.text === ':' && c2?.text === ':' && type?.kind === 'word' && open?.text === '[' && close?.text === ']' ? type.text : undefined;
}

/** Array type OIDs and their element's kind: text[], varchar[], bpchar[], name[] strings; int2[] .. numeric[] numbers. */
const STRING_ARRAY_OIDS: ReadonlySet<number> = new Set([1009, 1015, 1014, 1003]);
const NUMBER_ARRAY_OIDS: ReadonlySet<number> = new Set([1005, 1007, 1016, 1021, 1022, 1231]);

/**
 * The elements of a one-dimensional PostgreSQL array literal in text form (`{a,"b c",NULL}`:
 * quoted elements with backslash escapes, unquoted ones trimmed, an unquoted NULL is NULL), or
 * null when `text` is not one (nested arrays included).
 * Source: PostgreSQL documentation, 8.15.6 Array Input and Output Syntax.
 */
export function pgArrayElements(text: string): (string | null)[] | null {
  const t = text.trim();
  if (!t.startsWith('{') || !t.endsWith('}')) return null;
  const out: (string | null)[] = [];
  let i = 1;
  const end = t.length - 1;
  const space = (): void => {
    while (i < end && /\s/.test(t[i]!)) i++;
  };
  space();
  if (i === end) return out;
  for (;;) {
    space();
    if (t[i] === '"') {
      let v = '';
      i++;
      while (i < end && t[i] !== '"') {
        if (t[i] === '\\') i++;
        v += t[i] ?? '';
        i++;
      }
      if (t[i] !== '"') return null;
      i++;
      out.push(v);
    } else {
      const from = i;
      while (i < end && t[i] !== ',') i++;
      const v = t.slice(from, i).trim();
      if (v === '' || /[{}"\\]/.test(v)) return null;
      out.push(/^null$/i.test(v) ? null : v);
    }
    space();
    if (i === end) return out;
    if (t[i] !== ',') return null;
    i++;
  }
}

/**
 * An array parameter of `x = ANY($n)` / `x <> ALL($n)` as a list literal (`['a', 'b']`, which
 * the SQL front reads as `x IN (...)`): its elements numbers when the array's type is a number
 * array, or (type unspecified, as node-postgres sends arrays) when `x` is a number column, else
 * strings; always strings when `cast` (the parameter is cast to an array type, `$1::int[]`,
 * which the SQL front applies to each element). An empty array is an empty list (refused there, with its reason).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST when the text is not a one-dimensional array, or a
 *   number array holds something else
 */
function arrayListOf(p: BoundParam, n: number, cast: boolean, context: () => ColumnType | undefined): string {
  if (p.text === null) return 'NULL';
  const items = pgArrayElements(p.text);
  if (items === null) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `parameter $${n} ('${p.text.slice(0, 40)}') is not a one-dimensional array such as {a,b}`);
  // Cast to an array type (`$1::int[]`): the elements as strings, which the SQL front casts to it.
  const ctx = cast ? 'string' : STRING_ARRAY_OIDS.has(p.oid) ? 'string' : NUMBER_ARRAY_OIDS.has(p.oid) ? 'float64' : context();
  const numbers = ctx === 'int64' || ctx === 'float64';
  const list = items.map((v) => {
    if (v === null) return 'NULL';
    if (!numbers) return stringLiteral(v, n);
    if (!NUMBER.test(v)) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `parameter $${n} holds '${v.slice(0, 40)}', which is not a number`);
    return v;
  });
  return `[${list.join(', ')}]`;
}

/** Whether `text` is a number as JavaScript (and DuckDB) writes it back: '5', '-3', '1.5', not '007', '+5', '1e5', '1.50' or ' 5'. */
function canonicalNumber(text: string): boolean {
  return INTEGER.test(text) ? String(BigInt(text)) === text : NUMBER.test(text) && String(Number(text)) === text;
}

function literalOf(p: BoundParam, n: number, context: () => ColumnType | undefined): string {
  if (p.text === null) return 'NULL';
  const v = p.text.trim();
  const bad = (what: string): never => {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `parameter $${n} ('${p.text!.slice(0, 40)}') is not ${what}`);
  };
  if (INTEGER_OIDS.has(p.oid)) return INTEGER.test(v) ? v : bad('an integer');
  if (NUMERIC_OIDS.has(p.oid)) return NUMBER.test(v) ? v : bad('a finite number');
  if (p.oid === OID.bool) {
    if (/^(t|true|y|yes|on|1)$/i.test(v)) return 'TRUE';
    if (/^(f|false|n|no|off|0)$/i.test(v)) return 'FALSE';
    return bad('a boolean');
  }
  if (p.oid === 0 || p.oid === OID.unknown) {
    const ctx = context();
    if (ctx === 'bool' && /^(true|false)$/i.test(v)) return v.toUpperCase();
    // Compared with a number column: the number. Elsewhere (a function's argument, a SELECT
    // item) only a number written as a number reads it back: '5' or '1.5' alike as text or
    // number, but '007', '1e5' or '1.50' would come back 7, 100000 and 1.5 where PostgreSQL
    // (and DuckDB's prepared statements) keep the text: concat(s, $1) of '007' is 's007'.
    if (NUMBER.test(v) && ctx !== 'string' && ctx !== 'timestamp' && ctx !== 'date' && (ctx !== undefined || canonicalNumber(p.text))) return v;
  }
  return stringLiteral(p.text, n);
}
