/**
 * Scalar expressions shared by every clause, lowered once for both levels: row-level
 * {@link Expr} (columns; WHERE, GROUP BY keys, projections, aggregate arguments) and
 * post-aggregation OutExpr (aggregates and group keys; SELECT, HAVING, ORDER BY). A
 * {@link Leaves} resolves what differs between the levels; arithmetic, CASE, CAST,
 * functions, LIKE, extract, INTERVAL and predicates are lowered here, with their result
 * types decided as DuckDB does.
 */
import { CALL_AGGREGATES, STRFTIME_SPECIFIERS, castValue, checkRegex, didYouMean, checkRewrite, formatParts, likeEndsWithEscape, narrowInteger, parseTimeFormat, printfParts, type AggregateDef } from '../../merge/index.ts';
import type { ArithOp, ColumnInfo, ColumnType, Expr, ExtractField, Scalar, ScalarFn, ScalarNode, TruncUnit } from '../../merge/types.ts';
import { type Node, isNode, listItems, str, upper, visitNodes } from './ast.ts';
import { SUBQUERY, fail } from './errors.ts';
import { type RawLiteral, INT64_MAX, INT64_MIN, INT128_MAX, INT128_MIN, coerceLiteral, decimalRoundedValue, defaultLiteral, literalText, parseDate, readLiteral, zonedInstant } from './literals.ts';
import { type Scope, columnRef, resolveColumn } from './scope.ts';
import { conditionText } from './text.ts';
import { type Interval, addIntervals, checkedInterval, compareIntervals, intervalText, scaleInterval } from './intervals.ts';


/** An expression of a known type, with its SQL text for names and messages. */
export interface Typed<E> {
  readonly expr: E;
  readonly type: ColumnType;
  readonly text: string;
}

/** A comparison operand: a typed expression, or a literal typed by what it meets. */
export type Operand<E> = ({ readonly kind: 'typed' } & Typed<E>) | { readonly kind: 'literal'; readonly literal: RawLiteral };

export type ColExpr = Extract<Expr, { kind: 'col' }>;

/** A group key or projected column: any row-level expression. */
export type KeyExpr = Expr;

/** Identity of an expression, for structural equality (bigints as digits). */
export function keyId(key: unknown): string {
  return JSON.stringify(key, (_k, v: unknown) => (typeof v === 'bigint' ? `${v}n` : typeof v === 'number' && !Number.isFinite(v) ? String(v) : v));
}

export const TRUNC_UNITS: readonly TruncUnit[] = ['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day', 'week', 'month', 'quarter', 'year', 'decade', 'century', 'millennium'];
export const EXTRACT_FIELDS: readonly ExtractField[] = ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'dow', 'isodow', 'doy', 'epoch', 'isoyear', 'yearweek', 'decade', 'century', 'millennium', 'era', 'julian'];
export const AGGREGATE_FNS = ['count', 'sum', 'min', 'max', 'avg'] as const;
export type AggregateFn = (typeof AGGREGATE_FNS)[number];
/** Sketch and quantile aggregates, which node-sql-parser reads as plain function calls (the quantiles take a literal q). */
export const SKETCH_FNS = ['approx_count_distinct', 'approx_quantile', 'median', 'quantile_cont', 'quantile_disc', 'quantile'] as const;
export type SketchFn = (typeof SKETCH_FNS)[number];
/** Scalar functions by SQL name (aliases included). */
const SCALAR_FNS: Readonly<Record<string, ScalarFn>> = {
  abs: 'abs', round: 'round', floor: 'floor', ceil: 'ceil', ceiling: 'ceil', sqrt: 'sqrt', ln: 'ln', log: 'log10', log10: 'log10', log2: 'log2',
  exp: 'exp', power: 'power', pow: 'power', sign: 'sign', coalesce: 'coalesce', ifnull: 'coalesce', nullif: 'nullif', greatest: 'greatest', least: 'least',
  lower: 'lower', lcase: 'lower', upper: 'upper', ucase: 'upper', length: 'length', char_length: 'length', character_length: 'length',
  substring: 'substring', substr: 'substring', trim: 'trim', ltrim: 'ltrim', rtrim: 'rtrim', concat: 'concat', starts_with: 'starts_with',
  prefix: 'starts_with', ends_with: 'ends_with', suffix: 'ends_with', contains: 'contains', replace: 'replace', left: 'left', right: 'right',
  reverse: 'reverse', strpos: 'strpos', position: 'strpos', instr: 'strpos', trunc: 'trunc', isnan: 'isnan', lpad: 'lpad', rpad: 'rpad',
  regexp_matches: 'regexp_matches', regexp_full_match: 'regexp_full_match', concat_ws: 'concat_ws', make_timestamp: 'make_timestamp', to_timestamp: 'to_timestamp',
  sin: 'sin', cos: 'cos', tan: 'tan', cot: 'cot', asin: 'asin', acos: 'acos', atan: 'atan', atan2: 'atan2', sinh: 'sinh', cosh: 'cosh', tanh: 'tanh',
  asinh: 'asinh', acosh: 'acosh', atanh: 'atanh', degrees: 'degrees', radians: 'radians', cbrt: 'cbrt', even: 'even', fdiv: 'fdiv', fmod: 'fmod',
  nextafter: 'nextafter', gcd: 'gcd', greatest_common_divisor: 'gcd', lcm: 'lcm', least_common_multiple: 'lcm', xor: 'xor', bit_count: 'bit_count', factorial: 'factorial',
  split_part: 'split_part', translate: 'translate', repeat: 'repeat', ascii: 'ascii', unicode: 'unicode', ord: 'unicode', chr: 'chr',
  bit_length: 'bit_length', strlen: 'strlen', len: 'length', levenshtein: 'levenshtein', editdist3: 'levenshtein', damerau_levenshtein: 'damerau_levenshtein',
  hamming: 'hamming', mismatches: 'hamming', jaccard: 'jaccard', jaro_similarity: 'jaro_similarity', jaro_winkler_similarity: 'jaro_winkler_similarity',
  md5: 'md5', sha1: 'sha1', sha256: 'sha256', hex: 'hex', to_hex: 'hex', strip_accents: 'strip_accents', url_encode: 'url_encode', url_decode: 'url_decode',
  regexp_replace: 'regexp_replace', regexp_extract: 'regexp_extract', printf: 'printf', format: 'format',
  regexp_escape: 'regexp_escape', to_base: 'to_base', bar: 'bar', parse_formatted_bytes: 'parse_formatted_bytes', gamma: 'gamma', lgamma: 'lgamma', format_bytes: 'format_bytes', formatreadablesize: 'format_bytes', pg_size_pretty: 'format_bytes', formatreadabledecimalsize: 'format_bytes_decimal',
  length_grapheme: 'length_grapheme', substring_grapheme: 'substring_grapheme', left_grapheme: 'left_grapheme', right_grapheme: 'right_grapheme', nfc_normalize: 'nfc_normalize',
};
/** Argument kinds of the functions of src/merge/scalar-more.ts (and repeat, the grapheme functions, nfc_normalize) by position: a number, an integer, a string; and the result type. */
const SIGNATURES: Partial<Record<ScalarFn, { readonly args: readonly ('num' | 'int' | 'str')[]; readonly type: ColumnType }>> = {
  ...Object.fromEntries(['sin', 'cos', 'tan', 'cot', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh', 'acosh', 'atanh', 'degrees', 'radians', 'cbrt', 'even', 'gamma', 'lgamma']
    .map((f) => [f, { args: ['num'], type: 'float64' }])),
  ...Object.fromEntries(['atan2', 'fdiv', 'fmod', 'nextafter', 'log_base'].map((f) => [f, { args: ['num', 'num'], type: 'float64' }])),
  ...Object.fromEntries(['gcd', 'lcm', 'xor'].map((f) => [f, { args: ['int', 'int'], type: 'int64' }])),
  bit_count: { args: ['int'], type: 'int64' },
  factorial: { args: ['int'], type: 'int128' },
  chr: { args: ['int'], type: 'string' },
  split_part: { args: ['str', 'str', 'int'], type: 'string' },
  translate: { args: ['str', 'str', 'str'], type: 'string' },
  repeat: { args: ['str', 'int'], type: 'string' },
  ...Object.fromEntries(['ascii', 'unicode', 'bit_length', 'strlen'].map((f) => [f, { args: ['str'], type: 'int64' }])),
  ...Object.fromEntries(['levenshtein', 'damerau_levenshtein', 'hamming'].map((f) => [f, { args: ['str', 'str'], type: 'int64' }])),
  jaccard: { args: ['str', 'str'], type: 'float64' },
  ...Object.fromEntries(['jaro_similarity', 'jaro_winkler_similarity'].map((f) => [f, { args: ['str', 'str', 'num'], type: 'float64' }])),
  ...Object.fromEntries(['md5', 'sha1', 'sha256', 'strip_accents', 'url_encode', 'url_decode', 'regexp_escape'].map((f) => [f, { args: ['str'], type: 'string' }])),
  to_base: { args: ['int', 'int', 'int'], type: 'string' },
  format_bytes: { args: ['int'], type: 'string' },
  format_bytes_decimal: { args: ['int'], type: 'string' },
  regexp_replace: { args: ['str', 'str', 'str', 'str'], type: 'string' },
  bar: { args: ['num', 'num', 'num', 'num'], type: 'string' },
  parse_formatted_bytes: { args: ['str'], type: 'int64' },
  regexp_extract: { args: ['str', 'str', 'int', 'str'], type: 'string' },
  length_grapheme: { args: ['str'], type: 'int64' },
  substring_grapheme: { args: ['str', 'int', 'int'], type: 'string' },
  ...Object.fromEntries(['left_grapheme', 'right_grapheme'].map((f) => [f, { args: ['str', 'int'], type: 'string' }])),
  nfc_normalize: { args: ['str'], type: 'string' },
};
/**
 * DuckDB's part functions of a timestamp, each extract(field FROM ts) (year(ts) is
 * extract(year FROM ts)): the function name to its extract field or alias, read by lowerExtract.
 */
const PART_FNS: Readonly<Record<string, string>> = Object.fromEntries(
  ['year', 'quarter', 'month', 'week', 'day', 'hour', 'minute', 'second', 'millisecond', 'microsecond', 'isodow', 'isoyear', 'yearweek', 'decade', 'century', 'millennium', 'era', 'julian', 'weekofyear', 'dayofweek', 'weekday', 'dayofmonth', 'dayofyear'].map((f) => [f, f]),
);
/** Functions that return a DuckDB type canopy does not hold, with what to write instead. */
const REFUSED_TIME_FNS: Readonly<Record<string, string>> = {
  make_time: 'make_time returns a TIME, which canopy does not hold',
  age: 'age returns an INTERVAL, which canopy does not hold; use date_diff or date_sub with a unit (date_sub(\'day\', a, b))',
};
/** Functions that are another construct: mod(a, b) is `a % b`, epoch(ts) is extract(epoch FROM ts). */
const REWRITTEN_FNS = ['last_day', 'make_date', 'datetrunc', 'make_timestamp_ms', 'mod', 'add', 'subtract', 'multiply', 'divide', 'sleep_ms', 'pg_sleep', 'make_timestamptz', 'epoch', 'epoch_ms', 'epoch_us', 'epoch_ns', 'nanosecond', 'dayname', 'monthname', 'date_diff', 'datediff', 'date_sub', 'datesub', 'date_add', 'time_bucket', 'strptime', 'try_strptime', 'strftime', ...Object.keys(PART_FNS)];
/** Every aggregate canopy computes, for error messages. */
const SUPPORTED_AGGREGATES = `${AGGREGATE_FNS.join(', ')}, count(DISTINCT col), ${SKETCH_FNS.join(', ')}, ${[...CALL_AGGREGATES.keys()].join(', ')}, string_agg, group_concat, listagg`;
export const SUPPORTED_FUNCTIONS = `date_trunc, date_part, extract, if, pi, round_even, roundBankers, array_extract, list_extract, list_element, array_slice, list_slice, parse_dirname, parse_dirpath, parse_filename, ${[...Object.keys(SCALAR_FNS), ...REWRITTEN_FNS].join(', ')}, ${SUPPORTED_AGGREGATES}`;
/** The names in {@link SUPPORTED_FUNCTIONS} (a did-you-mean's candidates). */
const SUPPORTED_FUNCTION_NAMES: readonly string[] = SUPPORTED_FUNCTIONS.split(', ').filter((f) => /^\w+$/.test(f));

/** The sketch aggregate a function call names, or undefined. */
export function sketchFn(n: Node): SketchFn | undefined {
  if (n.type !== 'function') return undefined;
  const name = functionName(n).toLowerCase();
  return SKETCH_FNS.find((f) => f === name);
}

/**
 * The aggregate a plain function call names (node-sql-parser reads every aggregate but
 * count/sum/min/max/avg as one), from the registry's call syntax (src/merge/aggregates), or undefined.
 */
export function callAggregateFn(n: Node): AggregateDef | undefined {
  if (n.type !== 'function') return undefined;
  return CALL_AGGREGATES.get(functionName(n).toLowerCase());
}

/** The names of string_agg (the parser reads STRING_AGG and GROUP_CONCAT with ORDER BY or a separator as `aggr_func`, other forms as plain calls). */
export const STRING_AGG_NAMES: ReadonlySet<string> = new Set(['string_agg', 'group_concat', 'listagg']);

/** True for a call of string_agg by any of its names ({@link STRING_AGG_NAMES}), in either form. */
export function isStringAggCall(n: Node): boolean {
  if (n.type === 'aggr_func') return STRING_AGG_NAMES.has(String(str(n.name) ?? '').toLowerCase());
  return n.type === 'function' && STRING_AGG_NAMES.has(functionName(n).toLowerCase());
}

/** True for an aggregate call: a parser `aggr_func`, or a call of a sketch, call aggregate or string_agg. */
export function isAggregateCall(n: unknown): n is Node {
  return isNode(n) && (n.type === 'aggr_func' || sketchFn(n) !== undefined || callAggregateFn(n) !== undefined || isStringAggCall(n));
}

export function functionName(n: Node): string {
  const parts = isNode(n.name) && Array.isArray(n.name.name) ? n.name.name : [];
  const schema = isNode(n.name) && isNode(n.name.schema) ? [str(n.name.schema.value)] : [];
  return [...schema, ...parts.map((p) => (isNode(p) ? str(p.value) : null))].filter((p) => p !== null).join('.');
}

export function columnKey(column: ColumnInfo): Typed<KeyExpr> {
  return { expr: { kind: 'col', name: column.name }, type: column.type, text: column.name };
}

/**
 * What differs between the two levels of scalar expressions: the leaves (columns at the row
 * level; aggregates, group keys and aliases after aggregation) and how a node is built.
 */
export interface Leaves<E> {
  /** WHERE, SELECT, GROUP BY, HAVING, ORDER BY, for messages. */
  readonly clause: string;
  /** A leaf for `n` (column, aggregate, key, alias), or null to lower `n` as a scalar node. */
  leaf(n: unknown): Typed<E> | null;
  /** Identity: a scalar node is an E. */
  build(node: ScalarNode<E>): E;
}

/** The row level: table columns. */
export function rowLeaves(scope: Scope, clause: string): Leaves<Expr> {
  return {
    clause,
    leaf(n) {
      const ref = columnRef(n);
      if (ref === null) {
        if (isAggregateCall(n)) fail('CANOPY_ERR_BAD_QUERY', `aggregate functions are not allowed in ${clause}${clause === 'WHERE' ? '; use HAVING' : ''}`);
        return null;
      }
      if (ref.name === '*') fail('CANOPY_ERR_BAD_QUERY', `* is not allowed in ${clause}; name a column`);
      return columnKey(resolveColumn(scope, ref));
    },
    build: (node) => node,
  };
}

/**
 * Lowers a row-level value: a column, or any scalar expression over columns.
 * `clause` names where the expression is, for messages.
 */
export function lowerKey(n: unknown, scope: Scope, clause: string): Typed<Expr> {
  return lowerScalar(n, rowLeaves(scope, clause));
}

const numeric = (t: ColumnType | 'null'): boolean => t === 'int64' || t === 'float64' || t === 'int128' || t === 'null';

/** The common type of CASE branches, COALESCE/GREATEST/LEAST arguments (NULL literals fit any). */
function commonType(types: readonly (ColumnType | 'null')[], what: string): ColumnType {
  const known = types.filter((t): t is ColumnType => t !== 'null');
  if (known.length === 0) return 'int64';
  if (known.every((t) => t === known[0])) return known[0]!;
  // Integers with a HUGEINT are HUGEINT in DuckDB (CASE, coalesce, greatest over sum(i) and 1).
  if (known.every((t) => numeric(t))) return known.some((t) => t === 'float64') ? 'float64' : known.some((t) => t === 'int128') ? 'int128' : 'int64';
  // DATE with TIMESTAMP is TIMESTAMP in DuckDB (greatest(DATE ..., TIMESTAMP ...)): the DATE's midnight.
  if (known.every((t) => t === 'date' || t === 'timestamp')) return 'timestamp';
  return fail('CANOPY_ERR_TYPE', `${what} mixes ${[...new Set(known)].join(' and ')} values; cast them to one type`);
}

/** A lowered operand whose literal, if any, is typed by what it meets (`like`) or by default. */
function operandOf<E>(n: unknown, leaves: Leaves<E>, like?: Typed<E>): Typed<E> & { readonly litType: ColumnType | 'null' | null } {
  const literal = readLiteral(n);
  if (literal !== null) {
    const t = like !== undefined && like.type !== 'bool' && !(literal.kind === 'number' && like.type !== 'int64' && like.type !== 'float64') ? coerceLiteral(literal, like) : defaultLiteral(literal);
    return { expr: leaves.build({ kind: 'lit', value: t.value, type: t.type }), type: t.type === 'null' ? (like?.type ?? 'int64') : t.type, text: literalText(literal), litType: t.type };
  }
  return { ...lowerScalar(n, leaves), litType: null };
}

/** Lowers operands that must share a type: typed ones first, literals coerced to them. */
function operandsOf<E>(nodes: readonly unknown[], leaves: Leaves<E>): (Typed<E> & { readonly litType: ColumnType | 'null' | null })[] {
  const typed = new Map<number, Typed<E> & { readonly litType: null }>();
  nodes.forEach((m, i) => {
    if (readLiteral(m) === null) typed.set(i, { ...lowerScalar(m, leaves), litType: null });
  });
  const like = [...typed.values()][0] ?? uhugeintWithHugeint(nodes, leaves);
  return nodes.map((m, i) => typed.get(i) ?? operandOf(m, leaves, like));
}

/**
 * Two integer literals, one a UHUGEINT (past 2^127 - 1) and the other negative or a HUGEINT
 * (past BIGINT): DuckDB computes them as DOUBLEs (`-2^127 % 2^127` is 0.0), so the UHUGEINT as
 * a DOUBLE, for the other to meet; undefined otherwise (with a non-negative BIGINT literal the
 * sum is an exact UHUGEINT there, refused by defaultLiteral).
 */
function uhugeintWithHugeint<E>(nodes: readonly unknown[], leaves: Leaves<E>): (Typed<E> & { readonly litType: 'float64' }) | undefined {
  if (nodes.length !== 2) return undefined;
  const ints = nodes.map((m) => {
    const lit = readLiteral(m);
    return lit?.kind === 'number' && /^[+-]?\d+$/.test(lit.text) ? BigInt(lit.text) : null;
  });
  const uhuge = (v: bigint | null): boolean => v !== null && v > INT128_MAX && v < 2n ** 128n;
  const k = ints.findIndex(uhuge);
  const other = ints[1 - k];
  if (k < 0 || other === null || other === undefined || uhuge(other) || (other >= 0n && other <= INT64_MAX)) return undefined;
  const text = literalText(readLiteral(nodes[k])!);
  return { expr: leaves.build({ kind: 'lit', value: Number(ints[k]), type: 'float64' }), type: 'float64', text, litType: 'float64' };
}

/** Most trailing escaped '%' a LIKE ... ESCAPE '%' pattern may end with ({@link likeTailVariants}). */
const MAX_LIKE_TAIL = 16;

/**
 * The patterns DuckDB's LIKE matcher reads `pattern` ESCAPE '%' as (one of them matching):
 * the pattern itself and the pattern without its last 1, 2, ... escaped '%' ('%%'), as it
 * skips the pattern's trailing '%' characters once the string is used up (DuckDB's
 * TemplatedLikeOperator, src/function/scalar/string/like.cpp). One variant when the pattern
 * does not end in '%%'.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED past {@link MAX_LIKE_TAIL} trailing escaped '%'
 */
function likeTailVariants(pattern: string): string[] {
  const tokens: string[] = [];
  const chars = [...pattern];
  for (let i = 0; i < chars.length; i += chars[i] === '%' ? 2 : 1) tokens.push(chars[i] === '%' ? chars.slice(i, i + 2).join('') : chars[i]!);
  let k = 0;
  while (k < tokens.length && tokens[tokens.length - 1 - k] === '%%') k++;
  if (k > MAX_LIKE_TAIL) fail('CANOPY_ERR_UNSUPPORTED', `a LIKE pattern ending in more than ${MAX_LIKE_TAIL} escaped '%' with ESCAPE '%' is not supported`);
  return Array.from({ length: k + 1 }, (_, j) => tokens.slice(0, tokens.length - j).join(''));
}

/**
 * The upper-case name of a CAST's target type node. The grammar reads DuckDB's `INT4`,
 * `INT8`, `FLOAT8` ... as `INT` / `FLOAT` with a length and no parentheses (`INT(4)`, which
 * DuckDB refuses, has them): those come back as the one word.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for MySQL's UNSIGNED / ZEROFILL after the type
 *   (the grammar reads them; DuckDB's parser refuses them)
 */
function castTarget(target: unknown): string {
  if (!Array.isArray(target) || !isNode(target[0])) return '';
  const t = target[0];
  const name = upper(t.dataType);
  const mysql = (Array.isArray(t.suffix) ? t.suffix : []).map(upper).filter((w) => w === 'UNSIGNED' || w === 'ZEROFILL');
  if (mysql.length > 0) fail('CANOPY_ERR_BAD_QUERY', `CAST to ${name} ${mysql.join(' ')}: ${mysql.join(' and ')} is MySQL's syntax, which DuckDB refuses; cast to ${name}`);
  // TIMESTAMP WITH TIME ZONE: the grammar gives the words after TIMESTAMP as a suffix.
  if (name === 'TIMESTAMP' && Array.isArray(t.suffix) && t.suffix.map(upper).join(' ') === 'WITH TIME ZONE') return 'TIMESTAMP WITH TIME ZONE';
  return (name === 'INT' || name === 'FLOAT') && typeof t.length === 'number' && t.parentheses !== true ? `${name}${t.length}` : name;
}

const CAST_TYPES: Readonly<Record<string, ColumnType>> = {
  BIGINT: 'int64', INT8: 'int64', INTEGER: 'int64', INT: 'int64', INT4: 'int64', SMALLINT: 'int64', INT2: 'int64', TINYINT: 'int64', INT1: 'int64', LONG: 'int64',
  UTINYINT: 'int64', UINT8: 'int64', USMALLINT: 'int64', UINT16: 'int64', UINTEGER: 'int64', UINT32: 'int64', UBIGINT: 'int64', UINT64: 'int64',
  DOUBLE: 'float64', FLOAT8: 'float64', 'DOUBLE PRECISION': 'float64',
  VARCHAR: 'string', TEXT: 'string', STRING: 'string', CHAR: 'string',
  TIMESTAMP: 'timestamp', DATETIME: 'timestamp', TIMESTAMPTZ: 'timestamp', 'TIMESTAMP WITH TIME ZONE': 'timestamp', DATE: 'date',
  BOOLEAN: 'bool', BOOL: 'bool',
  HUGEINT: 'int128', INT128: 'int128',
};

/** DuckDB's TIMESTAMP WITH TIME ZONE, whose cast of a string reads its UTC offset. */
const ZONED_TYPES: ReadonlySet<string> = new Set(['TIMESTAMPTZ', 'TIMESTAMP WITH TIME ZONE']);

/** Integer types DuckDB holds in fewer than 64 bits: canopy casts to them as BIGINT, checking their range. */
const NARROW_BITS: Readonly<Record<string, 8 | 16 | 32>> = { INTEGER: 32, INT: 32, INT4: 32, SMALLINT: 16, INT2: 16, TINYINT: 8, INT1: 8 };

/**
 * DuckDB's unsigned integer types (8 to 64 bits): canopy casts to them as BIGINT, checking
 * their range (a UBIGINT beyond BIGINT, which canopy does not hold, is refused).
 */
const UNSIGNED_BITS: Readonly<Record<string, 8 | 16 | 32 | 64>> = { UTINYINT: 8, UINT8: 8, USMALLINT: 16, UINT16: 16, UINTEGER: 32, UINT32: 32, UBIGINT: 64, UINT64: 64 };

/**
 * The unsigned type a cast in the tree under `n` targets, or null. DuckDB computes arithmetic
 * on an unsigned value in its own width (`1::UTINYINT - 2` overflows, `-(1::UTINYINT)` wraps to
 * 255), where canopy's would be BIGINT's: arithmetic over one is refused.
 */
function unsignedCastIn(n: unknown): string | null {
  let found: string | null = null;
  visitNodes(n, (v) => {
    if (found !== null) return false;
    if (v.type === 'cast' && Array.isArray(v.target)) {
      for (const t of v.target as unknown[]) {
        const name = castTarget([t]);
        if (UNSIGNED_BITS[name] !== undefined) found = name;
      }
    }
    return found === null;
  });
  return found;
}

/** @throws CanopyError CANOPY_ERR_UNSUPPORTED when `operands` hold a cast to an unsigned type (see {@link unsignedCastIn}). */
function refuseUnsignedArithmetic(what: string, operands: readonly unknown[]): void {
  for (const o of operands) {
    const name = unsignedCastIn(o);
    if (name !== null) fail('CANOPY_ERR_UNSUPPORTED', `${what} over a ${name} value is not supported: DuckDB computes it in the unsigned ${name} (it overflows below 0 or wraps), canopy in BIGINT; cast to BIGINT first`);
  }
}

/** Cast targets DuckDB holds in 64 bits or more (BIGINT, DOUBLE): arithmetic over one is that wide in DuckDB too. */
const WIDE_CASTS = new Set(['BIGINT', 'INT8', 'LONG', 'DOUBLE', 'FLOAT8', 'DOUBLE PRECISION']);
const INT_ARITH = new Set(['+', '-', '*', '//', '%']);

/**
 * Whether DuckDB computes `n` in 64 bits or more, as canopy does: a column (canopy's integer
 * columns are BIGINT there), a cast to BIGINT or DOUBLE, integer arithmetic over one of them,
 * count(...), or min / max of one of them.
 * (A literal alone is INTEGER in DuckDB, a narrow cast or `ascii()` narrower: their arithmetic
 * overflows at 32 bits there.)
 */
function computedWide(n: unknown): boolean {
  if (!isNode(n)) return false;
  if (n.type === 'column_ref') return true;
  if (n.type === 'cast' && Array.isArray(n.target)) return WIDE_CASTS.has(castTarget(n.target.slice(-1)));
  if (n.type === 'binary_expr' && INT_ARITH.has(upper(n.operator))) return computedWide(n.left) || computedWide(n.right);
  if (n.type === 'unary_expr' && n.operator === '-') return computedWide(n.expr);
  if (n.type === 'function' && functionName(n).toLowerCase() === 'try') return listItems(n.args).length === 1 && computedWide(listItems(n.args)[0]);
  // count is BIGINT in DuckDB; min and max keep their argument's type.
  if (n.type === 'aggr_func') {
    const name = upper(str(n.name) ?? '');
    const arg = isNode(n.args) ? n.args.expr : undefined;
    return name === 'COUNT' || ((name === 'MIN' || name === 'MAX') && computedWide(arg));
  }
  return false;
}

/** DuckDB's width of an integer expression: 8, 16, 32 or 64 bits (64: BIGINT or wider, or not an integer), or an integer literal (`type`: INTEGER or BIGINT, by the digits written). */
type DuckWidth = 8 | 16 | 32 | 64 | { readonly value: bigint; readonly type: 32 | 64 };

const INT32_LIMIT = 2n ** 31n - 1n;
/** Functions DuckDB types INTEGER. */
const INTEGER_FNS = new Set(['ascii', 'unicode', 'ord']);
/** Functions DuckDB types TINYINT. */
const TINYINT_FNS = new Set(['sign', 'bit_count']);
/** Functions whose result has the common type of their arguments. */
const COMMON_TYPE_FNS = new Set(['coalesce', 'ifnull', 'greatest', 'least', 'nullif']);
/** Functions DuckDB types as their first argument (with or without a second, the digits). */
const KEEP_TYPE_FNS = new Set(['abs', 'round', 'trunc']);
/** Aggregates DuckDB types as their (first) argument: a value of the group, not a sum. */
const KEEP_TYPE_AGGREGATES = new Set(['min', 'max', 'mode', 'first', 'last', 'any_value', 'arbitrary', 'arg_min', 'arg_max', 'argmin', 'argmax', 'min_by', 'max_by', 'quantile_disc', 'quantile', 'bit_and', 'bit_or', 'bit_xor']);

/**
 * The width in which DuckDB computes the integer expression `n` (its binder's types, measured
 * with DuckDB 1.x): a cast to TINYINT / SMALLINT / INTEGER is that narrow; an integer literal is
 * INTEGER when its digits fit 32 bits, else BIGINT; arithmetic over a narrow operand and a
 * literal that fits it keeps the narrow type (`127::TINYINT + 1` overflows), a literal that
 * does not fit makes it the literal's type (`127::TINYINT + 128` is INTEGER 255); two narrow
 * operands take the wider; abs, round and trunc keep their argument's, as do the aggregates
 * that pick a value (min, max, mode, first, any_value, arg_max, quantile_disc, percentile_disc
 * and mode WITHIN GROUP ...); coalesce, greatest, least, nullif, if and CASE take their
 * arguments' common type, a NULL literal taking no part; ascii, unicode and ord are INTEGER,
 * sign and bit_count TINYINT;
 * anything else (a column, count, sum, a BIGINT or DOUBLE) is 64.
 */
function duckWidth(n: unknown, depth = 0): DuckWidth {
  if (!isNode(n) || depth > 64) return 64;
  // The common type of `xs`: a NULL literal has none of its own (DuckDB's NULL takes the others').
  const common = (xs: readonly unknown[]): DuckWidth => {
    const typed = xs.filter((x) => readLiteral(x)?.kind !== 'null');
    return typed.length === 0 ? 64 : typed.map((x) => duckWidth(x, depth + 1)).reduce(combineWidths);
  };
  // An ordered-set aggregate (percentile_disc(q) / mode() WITHIN GROUP (ORDER BY x)) is x's type.
  if (Array.isArray(n.within_group_orderby)) {
    const name = upper(str(isNode(n.name) ? functionName(n) : n.name) ?? '');
    const key = n.within_group_orderby[0];
    return (name === 'PERCENTILE_DISC' || name === 'MODE') && isNode(key) ? duckWidth(key.expr, depth + 1) : 64;
  }
  if (n.type === 'number' || n.type === 'bigint') {
    const lit = readLiteral(n);
    if (lit?.kind !== 'number' || !/^[+-]?\d+$/.test(lit.text)) return 64;
    const value = BigInt(lit.text);
    return { value, type: (value < 0n ? -value : value) <= INT32_LIMIT ? 32 : 64 };
  }
  if (n.type === 'cast' && Array.isArray(n.target)) return NARROW_BITS[castTarget(n.target.slice(-1))] ?? 64;
  if (n.type === 'unary_expr' && n.operator === '-') {
    const w = duckWidth(n.expr, depth + 1);
    return typeof w === 'number' ? w : { value: -w.value, type: w.type };
  }
  if (n.type === 'binary_expr' && INT_ARITH.has(upper(n.operator))) return combineWidths(duckWidth(n.left, depth + 1), duckWidth(n.right, depth + 1));
  if (n.type === 'function') {
    const name = functionName(n).toLowerCase();
    const args = listItems(n.args);
    if (INTEGER_FNS.has(name)) return 32;
    if (TINYINT_FNS.has(name)) return 8;
    if (KEEP_TYPE_FNS.has(name) && (args.length === 1 || (args.length === 2 && name !== 'abs'))) {
      const w = duckWidth(args[0], depth + 1);
      return typeof w === 'number' ? w : w.type;
    }
    // The common type of their arguments, as DuckDB's binder gives it.
    if (COMMON_TYPE_FNS.has(name) && args.length > 0) return common(args);
    if (name === 'if' && args.length === 3) return common(args.slice(1));
    if (KEEP_TYPE_AGGREGATES.has(name) && args.length > 0 && n.over == null) return duckWidth(args[0], depth + 1);
  }
  if (n.type === 'case' && Array.isArray(n.args)) {
    const results = (n.args as unknown[]).flatMap((a) => (isNode(a) && (a.type === 'when' || a.type === 'else') ? [a.result] : []));
    // Without ELSE the result may be NULL, which has no width: the THEN results decide.
    if (results.length > 0) return common(results);
  }
  if (n.type === 'aggr_func') {
    const name = (str(n.name) ?? '').toLowerCase();
    return KEEP_TYPE_AGGREGATES.has(name) ? duckWidth(isNode(n.args) ? n.args.expr : undefined, depth + 1) : 64;
  }
  return 64;
}

/**
 * How DuckDB's binder types the number expression `n`: `decimal` (a decimal literal such as
 * 1.5, or arithmetic `+ - * %`, unary minus, abs, round, coalesce, greatest, least, nullif or
 * CASE over decimals and integers with at least one decimal), `integer` (an integer literal, a
 * column canopy holds as BIGINT by `columnType`, a cast to an integer type), or `other` (a DOUBLE: a DOUBLE
 * column or cast, a literal with an exponent, `/`, any other function; or not known).
 */
function duckKind(n: unknown, columnType: (ref: Node) => ColumnType | null, depth = 0): 'decimal' | 'integer' | 'other' {
  if (!isNode(n) || depth > 64) return 'other';
  const kind = (x: unknown): 'decimal' | 'integer' | 'other' => duckKind(x, columnType, depth + 1);
  const all = (xs: readonly unknown[]): 'decimal' | 'integer' | 'other' => {
    const kinds = xs.map(kind);
    return kinds.includes('other') ? 'other' : kinds.includes('decimal') ? 'decimal' : 'integer';
  };
  if (n.type === 'number' || n.type === 'bigint') {
    const lit = readLiteral(n);
    if (lit?.kind !== 'number') return 'other';
    return /^[+-]?\d+$/.test(lit.text) ? 'integer' : /^[+-]?(\d+\.\d*|\.\d+)$/.test(lit.text) ? 'decimal' : 'other';
  }
  if (n.type === 'cast' && Array.isArray(n.target)) {
    const t = castTarget(n.target.slice(-1));
    return NARROW_BITS[t] !== undefined || (CAST_TYPES[t] === 'int64' && UNSIGNED_BITS[t] === undefined) ? 'integer' : 'other';
  }
  if (n.type === 'column_ref') return columnType(n) === 'int64' ? 'integer' : 'other';
  if (n.type === 'unary_expr' && n.operator === '-') return kind(n.expr);
  if (n.type === 'binary_expr' && ['+', '-', '*', '%'].includes(upper(n.operator))) return all([n.left, n.right]);
  if (n.type === 'function') {
    const name = functionName(n).toLowerCase();
    const args = listItems(n.args);
    if ((name === 'abs' || name === 'round') && args.length === 1) return kind(args[0]);
    if (COMMON_TYPE_FNS.has(name) && args.length > 0) return all(args);
    return 'other';
  }
  if (n.type === 'case' && Array.isArray(n.args)) {
    const results = (n.args as unknown[]).flatMap((a) => (isNode(a) && (a.type === 'when' || a.type === 'else') ? [a.result] : []));
    return results.length > 0 ? all(results) : 'other';
  }
  return 'other';
}

/** A comparison after DuckDB's MoveConstantsRule: `x op k`, or `x`'s constant_or_null (`value` unless x is NULL). */
export type MovedComparison =
  | { readonly x: unknown; readonly op: '=' | '!=' | '<' | '<=' | '>' | '>='; readonly k: bigint }
  | { readonly x: unknown; readonly constant: boolean };

const FLIP_CMP = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' } as const;

/**
 * DuckDB's optimizer rules ComparisonSimplificationRule and MoveConstantsRule
 * (src/optimizer/rule/comparison_simplification.cpp, move_constants.cpp), which rewrite a
 * comparison of an integer expression with an integer constant before anything is computed,
 * so that DuckDB answers `j::TINYINT * 20 > 100` (as `j > 5`) where computing the product
 * overflows TINYINT, and `j::TINYINT > 5` where j does not fit a TINYINT:
 * - a cast between integer types on the other side is dropped when the constant fits both its
 *   source and its target (DuckDB's integer casts are "invertible"): `CAST(x AS T) op k` is
 *   `x op k`;
 * - `x + c op k` is `x op k - c`, `x - c op k` is `x op k + c`, `c - x op k` is
 *   `x flip(op) c - k`, `x * c op k` (c not 0, k divisible by c) is `x op k / c` (flipped for a
 *   negative c), for the arithmetic in x's integer width T ({@link duckWidth}) with k within T
 *   (else DuckDB compares in a wider type and nothing moves); a new constant outside T leaves
 *   `+`/`-` as they are unless op is `=`, which is then constant_or_null(FALSE); `x * c` with k
 *   not divisible by c is constant_or_null(FALSE) for `=`, constant_or_null(TRUE) for `<>`,
 *   left as is otherwise, and with k / c outside T constant_or_null(FALSE) whatever op;
 * each applied again to what is left until none matches. The constants: integer literals, and
 * such a literal cast to a signed integer type it fits (DuckDB folds it). Null when the
 * comparison is left as it is.
 * @param columnType a column reference's canopy type (null where unknown)
 */
export function moveConstants(op: '=' | '!=' | '<' | '<=' | '>' | '>=', left: unknown, right: unknown, columnType: (ref: Node) => ColumnType | null): MovedComparison | null {
  const fitsBits = (v: bigint, bits: number): boolean => v >= -(1n << BigInt(bits - 1)) && v < 1n << BigInt(bits - 1);
  // A signed integer cast's width (64 for BIGINT), or null.
  const intCastBits = (n: Node): number | null => {
    if (n.type !== 'cast' || n.try === true || !Array.isArray(n.target) || n.target.length === 0) return null;
    const t = castTarget(n.target.slice(-1));
    return NARROW_BITS[t] ?? (CAST_TYPES[t] === 'int64' && UNSIGNED_BITS[t] === undefined ? 64 : null);
  };
  const constant = (n: unknown): bigint | null => {
    const lit = readLiteral(n);
    if (lit?.kind === 'number') return /^[+-]?\d+$/.test(lit.text) ? BigInt(lit.text) : null;
    if (!isNode(n)) return null;
    // -(c::T), also written -128::TINYINT (DuckDB's minus binds looser than ::): within T once negated.
    const negated = n.type === 'unary_expr' && n.operator === '-' ? n : negatedCastLiteral(n);
    if (negated !== null) {
      const inner = isNode(negated.expr) ? intCastBits(negated.expr) : null;
      const v = inner === null ? null : constant(negated.expr);
      return v === null || !fitsBits(-v, inner!) ? null : -v;
    }
    const bits = intCastBits(n);
    const inner = bits === null ? null : readLiteral(castOperand(n as Node));
    if (inner?.kind !== 'number' || !/^[+-]?\d+$/.test(inner.text)) return null;
    const v = BigInt(inner.text);
    return fitsBits(v, bits!) ? v : null;
  };
  // DuckDB's integer kind: a narrow width, or an integer expression by duckKind.
  const integerWidth = (n: unknown): number | null => {
    const w = duckWidth(n);
    if (typeof w !== 'number') return null;
    return w < 64 || duckKind(n, columnType) === 'integer' ? w : null;
  };
  // What a cast casts: its expression, or the chain's casts before the last (`x::INTEGER::TINYINT`).
  const castOperand = (n: Node): unknown => (Array.isArray(n.target) && n.target.length > 1 ? { ...n, target: n.target.slice(0, -1) } : n.expr);
  let cmp: MovedComparison | null = null;
  let x: unknown = right;
  let k = constant(left);
  let o = k === null ? op : FLIP_CMP[op];
  if (k === null) {
    x = left;
    k = constant(right);
  }
  if (k === null) return null;
  for (let depth = 0; depth < 64; depth++) {
    if (!isNode(x) || constant(x) !== null) return cmp;
    const castBits = intCastBits(x);
    if (castBits !== null) {
      const operand = castOperand(x);
      const source = integerWidth(operand);
      if (source === null || !fitsBits(k, castBits) || !fitsBits(k, source)) return cmp;
      x = operand;
      cmp = { x, op: o, k };
      continue;
    }
    if (x.type !== 'binary_expr') return cmp;
    const arith = upper(x.operator);
    if (arith !== '+' && arith !== '-' && arith !== '*') return cmp;
    const cl = constant(x.left);
    const cr = constant(x.right);
    if ((cl === null) === (cr === null)) return cmp;
    const inner = (cl ?? cr)!;
    const child: unknown = cl === null ? x.left : x.right;
    const w = duckWidth(x);
    if (typeof w !== 'number' || integerWidth(child) === null || !fitsBits(k, w)) return cmp;
    const fits = (v: bigint): boolean => fitsBits(v, w);
    let moved: bigint;
    if (arith === '*') {
      if (inner === 0n) return cmp;
      if (k % inner !== 0n) return o === '=' ? { x: child, constant: false } : o === '!=' ? { x: child, constant: true } : cmp;
      if (inner < 0n) o = FLIP_CMP[o];
      moved = k / inner;
      if (!fits(moved)) return { x: child, constant: false };
    } else {
      if (arith === '+') moved = k - inner;
      else if (cl === null) moved = k + inner;
      else {
        moved = inner - k;
        o = FLIP_CMP[o];
      }
      if (!fits(moved)) return o === '=' ? { x: child, constant: false } : cmp;
    }
    k = moved;
    x = child;
    cmp = { x, op: o, k };
  }
  return cmp;
}

/** The type of a column reference at `leaves`' level, or null where it does not lower there. */
function columnTypeOf<E>(ref: Node, leaves: Leaves<E>): ColumnType | null {
  try {
    return lowerScalar(ref, leaves).type;
  } catch {
    return null;
  }
}

/** The width of `a op b` from its operands' ({@link duckWidth}). */
function combineWidths(a: DuckWidth, b: DuckWidth): DuckWidth {
  const bits = (w: DuckWidth): 8 | 16 | 32 | 64 => (typeof w === 'number' ? w : w.type);
  if (typeof a !== 'number' && typeof b !== 'number') return Math.max(a.type, b.type) as 32 | 64;
  if (typeof a === 'number' && typeof b === 'number') return Math.max(a, b) as 8 | 16 | 32 | 64;
  const [w, lit] = typeof a === 'number' ? [a, b as { value: bigint; type: 32 | 64 }] : [b as 8 | 16 | 32 | 64, a as { value: bigint; type: 32 | 64 }];
  const max = (1n << BigInt(w - 1)) - 1n;
  return lit.value >= -max - 1n && lit.value <= max ? w : (Math.max(w, bits(lit)) as 8 | 16 | 32 | 64);
}

/**
 * `expr`, an int64 computed by canopy (operator `op`, or `neg`), checked against the narrower
 * width DuckDB computes `n` in ({@link duckWidth}): a cast node marked `overflow` that refuses a
 * value outside it, as DuckDB's overflow error refuses it (`2147483647 + 1`, `100::TINYINT *
 * 2`); `expr` itself at 64 bits.
 */
function checkedNarrow<E>(expr: E, op: string, n: Node, leaves: Leaves<E>): E {
  const w = duckWidth(n);
  const bits = typeof w === 'number' ? w : w.type;
  if (bits === 64) return expr;
  return leaves.build({ kind: 'cast', arg: expr, type: 'int64', try: false, from: 'int64', bits, overflow: OVERFLOW_NAMES[op] ?? 'addition' });
}

/** DuckDB's names of the operations in its overflow errors. */
const OVERFLOW_NAMES: Readonly<Record<string, 'addition' | 'subtraction' | 'multiplication' | 'division' | 'remainder' | 'negation' | 'abs'>> = {
  '+': 'addition', '-': 'subtraction', '*': 'multiplication', '//': 'division', '%': 'remainder', neg: 'negation', abs: 'abs',
};

/**
 * DuckDB's `TRY(x)`: x, NULL for a row where computing it raises an error DuckDB raises too
 * (src/merge/errors.ts ValueError: an int64 overflow, a value that does not convert, a square
 * root or logarithm out of its domain); canopy's other refusals stand. Where DuckDB would
 * compute x in other widths than canopy (integer arithmetic not over a BIGINT or DOUBLE
 * operand, a cast to a narrow or unsigned integer), its errors differ, so TRY is refused there.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for other than one argument or an aggregate inside
 *   (DuckDB's binder errors); CANOPY_ERR_UNSUPPORTED for arithmetic DuckDB computes narrower
 */
function lowerTry<E>(argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  if (argNodes.length !== 1) fail('CANOPY_ERR_BAD_QUERY', 'Wrong number of arguments provided to TRY expression');
  const argNode = argNodes[0];
  visitNodes(argNode, (v) => {
    const aggregate: boolean = isAggregateCall(v);
    if (aggregate) fail('CANOPY_ERR_BAD_QUERY', 'aggregates are not allowed inside the TRY expression');
  });
  visitNodes(argNode, (v) => {
    if (v.type === 'cast' && Array.isArray(v.target)) {
      for (const t of v.target as unknown[]) {
        const target = castTarget([t]);
        if (NARROW_BITS[target] !== undefined || UNSIGNED_BITS[target] !== undefined) fail('CANOPY_ERR_UNSUPPORTED', `TRY over a cast to ${target} is not supported: canopy computes it as BIGINT, where DuckDB's errors are those of the narrower type`);
      }
    }
    const arith = (v.type === 'binary_expr' && INT_ARITH.has(upper(v.operator)) && !computedWide(v.left) && !computedWide(v.right)) || (v.type === 'unary_expr' && v.operator === '-' && !computedWide(v.expr));
    if (arith) fail('CANOPY_ERR_UNSUPPORTED', 'TRY over integer arithmetic without a column or a BIGINT / DOUBLE operand is not supported: DuckDB computes it as INTEGER (overflowing at 32 bits), canopy as BIGINT');
    return true;
  });
  const arg = lowerScalar(argNode, leaves);
  return { expr: leaves.build({ kind: 'try', arg: arg.expr, type: arg.type }), type: arg.type, text: `try(${arg.text})` };
}

const CASTABLE: Readonly<Record<ColumnType, readonly ColumnType[]>> = {
  int64: ['int64', 'int128', 'float64', 'string', 'bool'],
  int128: ['int64', 'int128', 'float64', 'string', 'bool'],
  float64: ['int64', 'int128', 'float64', 'string', 'bool'],
  string: ['int64', 'int128', 'float64', 'string', 'timestamp', 'bool', 'date'],
  timestamp: ['timestamp', 'string', 'date'],
  bool: ['int64', 'int128', 'float64', 'string', 'bool'],
  date: ['date', 'timestamp', 'string'],
};

/**
 * The casts DuckDB does not have at all (CAST fails for every value, TRY_CAST gives NULL):
 * between TIMESTAMP and the numbers and BOOLEAN.
 */
const NO_CAST: Readonly<Record<ColumnType, readonly ColumnType[]>> = {
  int64: ['timestamp', 'date'],
  int128: ['timestamp', 'date'],
  float64: ['timestamp', 'date'],
  string: [],
  timestamp: ['int64', 'float64', 'bool'],
  bool: ['timestamp', 'date'],
  date: ['int64', 'float64', 'bool'],
};

const INTERVAL_UNITS: Readonly<Record<string, readonly [number, number]>> = {
  microsecond: [0, 1], millisecond: [0, 1e3], second: [0, 1e6], minute: [0, 6e7], hour: [0, 3.6e9], day: [0, 8.64e10], week: [0, 6.048e11],
  month: [1, 0], quarter: [3, 0], year: [12, 0], decade: [120, 0], century: [1200, 0], millennium: [12000, 0],
};
/** DuckDB's unit specifiers besides the singular names and their plurals (read before any plural `s` is taken off: `ms` is not `m`). */
const UNIT_ABBREVIATIONS: Readonly<Record<string, string>> = {
  us: 'microsecond', usec: 'microsecond', usecs: 'microsecond', ms: 'millisecond', msec: 'millisecond', msecs: 'millisecond',
  s: 'second', sec: 'second', secs: 'second', m: 'minute', min: 'minute', mins: 'minute', h: 'hour', hr: 'hour', hrs: 'hour',
  d: 'day', w: 'week', mon: 'month', mons: 'month', y: 'year', yr: 'year', yrs: 'year', centuries: 'century', millennia: 'millennium',
  usecond: 'microsecond', useconds: 'microsecond', msecond: 'millisecond', mseconds: 'millisecond', dec: 'decade', decs: 'decade',
  cent: 'century', c: 'century', mil: 'millennium', mils: 'millennium', dayofmonth: 'day',
};

/**
 * An interval unit word (singular, plural or DuckDB's abbreviation, any case: `SECONDS`, `us`,
 * `hr`) as [months, microseconds] per unit, or undefined when it is not one.
 */
export function intervalUnit(word: string): readonly [number, number] | undefined {
  const w = word.toLowerCase();
  const named = UNIT_ABBREVIATIONS[w];
  return named !== undefined ? INTERVAL_UNITS[named] : Object.hasOwn(INTERVAL_UNITS, w.replace(/s$/, '')) ? INTERVAL_UNITS[w.replace(/s$/, '')] : undefined;
}

/**
 * `count` (its text `text`, a decimal number) units of `perUnit` µs, as DuckDB reads a fraction:
 * cut to 6 digits, then its share of the unit truncated toward zero to the µs
 * ('0.0000009 seconds' is 0 µs, '1.0005 ms' 1000 µs, '-0.0000025 minutes' -120 µs); a count
 * of microseconds is rounded half away from zero ('0.5 us' is 1 µs, '-2.5 us' -3 µs).
 */
function unitMicros(text: string, count: number, perUnit: number): number {
  if (perUnit === 1) return Math.sign(count) * Math.round(Math.abs(count));
  const dec = /^(-?)(\d+)(?:\.(\d*))?$/.exec(text)!;
  const sign = dec[1] === '-' ? -1 : 1;
  const frac = BigInt((dec[3] ?? '').slice(0, 6).padEnd(6, '0'));
  return sign * (Number(dec[2]) * perUnit + Number((frac * BigInt(perUnit)) / 1_000_000n));
}

/** µs per day, the unit whose whole count an interval keeps apart from its µs. */
const DAY_MICROS = 8.64e10;

/**
 * `INTERVAL 'x' unit` and `INTERVAL (x) unit` (the unit outside the quotes) as DuckDB reads
 * them (Transformer::TransformInterval, src/parser/transform/expression/transform_interval.cpp):
 * x cast to DOUBLE, then to_seconds / to_milliseconds of it (µs rounded half to even, as
 * DuckDB casts a DOUBLE to BIGINT), or the count truncated toward zero for every other unit
 * (`INTERVAL '1.5' DAY` is 1 day, `INTERVAL '1.9' HOUR` 1 hour), to_days, to_weeks and the
 * month units taking an INTEGER.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for an x that is not a number, CANOPY_ERR_OUT_OF_RANGE
 *   for a count past DuckDB's INTEGER or canopy's exact µs
 */
function unitInterval(text: string, unitWord: string): Interval {
  const unit = intervalUnit(unitWord);
  if (unit === undefined) return fail('CANOPY_ERR_BAD_QUERY', `INTERVAL unit ${unitWord} is not one DuckDB knows`);
  if (!/^\s*[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?\s*$/.test(text)) return fail('CANOPY_ERR_BAD_QUERY', `Could not convert string '${text}' to DOUBLE (INTERVAL '${text}' ${unitWord}), as DuckDB refuses it`);
  const value = Number(text);
  const what = `INTERVAL '${text}' ${unitWord}`;
  const [perMonths, perMicros] = unit;
  if (perMicros === 1e6 || perMicros === 1e3) return checkedInterval({ months: 0, days: 0, micros: roundHalfEven(value * perMicros) }, what);
  const count = Math.trunc(value);
  if (perMonths !== 0 || perMicros >= DAY_MICROS) {
    if (Math.abs(count) > 2 ** 31 - 1) fail('CANOPY_ERR_OUT_OF_RANGE', `${what}: ${count} is out of range for DuckDB's INTEGER count`);
    return perMonths !== 0 ? checkedInterval({ months: count * perMonths, days: 0, micros: 0 }, what) : checkedInterval({ months: 0, days: (count * perMicros) / DAY_MICROS, micros: 0 }, what);
  }
  return checkedInterval({ months: 0, days: 0, micros: count * perMicros }, what);
}

/** x rounded to an integer, ties to the even one (C's nearbyint, which DuckDB's DOUBLE to BIGINT cast uses). */
function roundHalfEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

/**
 * An INTERVAL literal as DuckDB's months, days and µs: `INTERVAL '1 day'`, `INTERVAL 2 HOUR`,
 * `INTERVAL '1 month 2 days 03:00:00'`, `INTERVAL '1.5' DAY` (see {@link unitInterval}). In the
 * text, a fraction of days or weeks spills into µs ('1.5 days' is 1 day 12:00:00).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a text that is not an interval
 */
export function readInterval(n: Node): Interval {
  const lit = readLiteral(n.expr);
  const unitWord = str(n.unit) ?? '';
  const text = lit === null ? null : lit.kind === 'string' ? lit.value : lit.kind === 'number' ? lit.text : null;
  if (text === null) return fail('CANOPY_ERR_UNSUPPORTED', 'INTERVAL must be a literal such as INTERVAL \'1 day\' or INTERVAL 2 HOUR');
  if (unitWord !== '') {
    // INTERVAL n unit (no quotes, no parentheses) takes an unsigned integer in DuckDB's grammar.
    if (lit?.kind === 'number' && isNode(n.expr) && n.expr.parentheses !== true) fail('CANOPY_ERR_BAD_QUERY', `syntax error at or near "${text}": DuckDB reads INTERVAL n ${unitWord} for an unsigned integer n only; write INTERVAL '${text}' ${unitWord}`);
    return unitInterval(text, unitWord);
  }
  let months = 0;
  let days = 0;
  let micros = 0;
  // A number glued to its unit ('90seconds', and INTERVAL 90 SECONDS as src/root/sql/rewrite.ts gives it) is two parts.
  const parts = text.trim().split(/\s+/).flatMap((p) => {
    const glued = /^([+-]?(?:\d+(?:\.\d*)?|\.\d+))([A-Za-z]+)$/.exec(p);
    return glued !== null && intervalUnit(glued[2]!) !== undefined ? [glued[1]!, glued[2]!] : [p];
  });
  for (let i = 0; i < parts.length; i++) {
    const p = parts[i]!;
    const clock = /^(-)?(\d+):(\d{2})(?::(\d{2}(?:\.\d{1,6})?))?$/.exec(p);
    if (clock !== null) {
      micros += Number(clock[2]) * 3.6e9 + Number(clock[3]) * 6e7 + Math.round(Number(clock[4] ?? 0) * 1e6);
      // A '-' clock negates the µs read so far too, as DuckDB's parser does ('2 hours -00:00:01' is
      // -02:00:01; months and days keep their signs), and the parser stops there: what follows a
      // clock is not read ('01:00:00 2 hours' is 1 hour).
      if (clock[1] === '-') micros = -micros;
      break;
    }
    if (p.toLowerCase() === 'ago' && i > 0 && i === parts.length - 1) {
      // A final 'ago' negates the interval, as DuckDB reads it ('2 days 1 hour ago' is -2 days -01:00:00).
      [months, days, micros] = [-months, -days, -micros];
      break;
    }
    const value = Number(p);
    const unit = intervalUnit(parts[i + 1] ?? '');
    // A count as DuckDB writes one: digits with an optional sign '-' and fraction ('+1', '.5', '1e3' and '0x10' it refuses).
    if (!/^-?\d+(?:\.\d*)?$/.test(p) || unit === undefined || (unit[0] !== 0 && !Number.isInteger(value))) {
      return fail('CANOPY_ERR_BAD_QUERY', `INTERVAL '${text}' is not an interval; write e.g. INTERVAL '1 day' or INTERVAL '2 hours 30 minutes'`);
    }
    months += value * unit[0];
    const us = unitMicros(p, value, unit[1]);
    if (unit[1] >= DAY_MICROS) {
      const whole = Math.trunc(us / DAY_MICROS);
      days += whole;
      micros += us - whole * DAY_MICROS;
    } else micros += us;
    i++;
  }
  return checkedInterval({ months, days, micros }, `INTERVAL '${text}'`);
}

/**
 * Lowers any scalar expression at one level.
 * @throws CanopyError CANOPY_ERR_TYPE (operands that do not fit), CANOPY_ERR_UNSUPPORTED
 *   naming the construct, CANOPY_ERR_BAD_QUERY (arity)
 */
export function lowerScalar<E>(n: unknown, leaves: Leaves<E>): Typed<E> {
  const t = lowerScalarNode(n, leaves);
  // The text names an unaliased column: an operator written in parentheses keeps them, so
  // `(delay + 1) * 2` is not named `delay + 1 * 2` (a column or call needs none).
  return isNode(n) && n.parentheses === true && (n.type === 'binary_expr' || n.type === 'unary_expr') && t.text !== 'condition' ? { ...t, text: `(${t.text})` } : t;
}

/** {@link lowerScalar} of one node, its text without the node's own parentheses. */
function lowerScalarNode<E>(n: unknown, leaves: Leaves<E>): Typed<E> {
  const leaf = leaves.leaf(n);
  if (leaf !== null) return leaf;
  const literal = readLiteral(n);
  if (literal !== null) {
    const t = defaultLiteral(literal);
    return { expr: leaves.build({ kind: 'lit', value: t.value, type: t.type }), type: t.type === 'null' ? 'int64' : t.type, text: literalText(literal) };
  }
  if (!isNode(n) || n.ast != null || n.over != null) return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, leaves.clause));
  const b = leaves.build;
  const op = upper(n.operator);
  switch (n.type) {
    case 'binary_expr': {
      // DuckDB's prefix `~` binds looser than the other operators (`~5 + 1` is ~(5 + 1)), where the grammar reads (~5) + 1.
      const l = n.left;
      if (isNode(l) && l.type === 'unary_expr' && l.operator === '~' && l.parentheses !== true && (ARITHMETIC_OPERATORS.has(op) || op === '//' || Object.hasOwn(BITWISE_FNS, op))) {
        fail('CANOPY_ERR_UNSUPPORTED', `'~' before operator '${op}' is not supported: DuckDB binds ~ looser than it (~5 + 1 is ~(5 + 1)); parenthesise: ~(a ${op} b) or (~a) ${op} b`);
      }
      if (op === '+' || op === '-' || op === '*' || op === '/' || op === '//' || op === '%') return lowerArith(op, n, leaves);
      if (Object.hasOwn(BITWISE_FNS, op)) return lowerBitwise(op, n, leaves);
      if (op === '||') {
        // `s LIKE 'a' || '%'` is s LIKE ('a' || '%') in DuckDB (|| binds tighter than LIKE), where
        // node-sql-parser gives (s LIKE 'a') || '%': the LIKE is rebuilt around the concatenation.
        const l = n.left;
        if (isNode(l) && l.type === 'binary_expr' && /^(NOT )?(I?LIKE|SIMILAR TO|GLOB)$/.test(upper(l.operator)) && l.parentheses !== true && !(isNode(l.right) && l.right.escape != null)) {
          return lowerScalar({ ...l, right: { type: 'binary_expr', operator: '||', left: l.right, right: n.right } }, leaves);
        }
        const args = [n.left, n.right].map((m) => operandOf(m, leaves));
        return { expr: b({ kind: 'call', fn: 'concat_op', args: args.map((a) => timestampAsText(b, a)), type: 'string' }), type: 'string', text: `${args[0]!.text} || ${args[1]!.text}` };
      }
      if (op === 'SIMILAR TO' || op === 'NOT SIMILAR TO' || op === '~' || op === '!~') {
        // DuckDB reads SIMILAR TO, and its operators `~` / `!~`, as regexp_full_match (a regular
        // expression matching the whole string).
        const call = { type: 'function', name: { name: [{ type: 'default', value: 'regexp_full_match' }] }, args: { type: 'expr_list', value: [n.left, n.right] } };
        return lowerScalar(op === 'SIMILAR TO' || op === '~' ? call : { type: 'unary_expr', operator: 'NOT', expr: call }, leaves);
      }
      if (op === 'GLOB') {
        // DuckDB's ~~~ (VARCHAR, VARCHAR): no implicit cast of other types (ESCAPE is a syntax error in both).
        const str = { expr: null as unknown as E, type: 'string' as const, text: 'GLOB' };
        const [arg, pattern] = [n.left, n.right].map((m) => operandOf(m, leaves, str));
        for (const t of [arg!, pattern!]) if (t.type !== 'string' && t.litType !== 'null') fail('CANOPY_ERR_TYPE', `GLOB needs strings; '${t.text}' is ${t.type}`);
        return { expr: b({ kind: 'call', fn: 'glob', args: [arg!.expr, pattern!.expr], type: 'bool' }), type: 'bool', text: `${arg!.text} GLOB ${pattern!.text}` };
      }
      if (['LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE'].includes(op)) {
        const [arg, pattern] = operandsOf([n.left, n.right], leaves);
        // A NULL literal on either side is a NULL answer, as in DuckDB.
        for (const t of [arg!, pattern!]) if (t.type !== 'string' && t.litType !== 'null') fail('CANOPY_ERR_TYPE', `${op} needs strings; '${t.text}' is ${t.type}`);
        const hasEscape = isNode(n.right) && isNode(n.right.escape);
        const escNode = hasEscape ? readLiteral((n.right as Node & { escape: Node }).escape.value) : null;
        if (hasEscape && escNode?.kind !== 'string') fail('CANOPY_ERR_UNSUPPORTED', `${op} ... ESCAPE takes a string literal of one character`);
        // DuckDB counts the escape's bytes: é (two in UTF-8) is refused as 'ab' is.
        if (escNode?.kind === 'string' && new TextEncoder().encode(escNode.value).length > 1) fail('CANOPY_ERR_BAD_QUERY', `${op} ESCAPE must be empty or one character, not '${escNode.value}'${[...escNode.value].length === 1 ? ' (DuckDB counts its bytes: one of one byte)' : ''}`);
        // ESCAPE '' is NUL as DuckDB reads it (chr(0) then escapes: '%' LIKE chr(0) || '%' ESCAPE '' is true there).
        const escape = escNode?.kind === 'string' ? (escNode.value === '' ? '\u0000' : escNode.value) : null;
        const p = readLiteral(n.right);
        if (escape !== null && p?.kind === 'string' && likeEndsWithEscape(p.value, escape, op.includes('ILIKE'))) fail('CANOPY_ERR_BAD_QUERY', `${op} pattern '${p.value}' ends with its escape character '${escape}'`);
        if (escape === '%' && p?.kind === 'string' && n.likeTail !== true) {
          // DuckDB's matcher skips a pattern's trailing '%' characters once the string is used
          // up, escaped ones too: `x LIKE 'a%%' ESCAPE '%'` matches 'a' as well as 'a%'. Read
          // as the OR of the pattern without 0, 1, ... of its trailing escaped '%'.
          const variants = likeTailVariants(p.value);
          if (variants.length > 1) {
            const positive = op.replace(/^NOT /, '');
            const any = variants.map((v): Node => ({ ...n, operator: positive, right: { ...(n.right as Node), value: v }, likeTail: true })).reduce((l, r) => ({ type: 'binary_expr', operator: 'OR', left: l, right: r }));
            return lowerScalar(op.startsWith('NOT') ? { type: 'unary_expr', operator: 'NOT', expr: any } : any, leaves);
          }
        }
        // DuckDB ends an ILIKE pattern at a NUL (src/merge/scalar.ts likeRegex refuses a computed one).
        if (op.includes('ILIKE') && p?.kind === 'string' && p.value.includes('\u0000')) fail('CANOPY_ERR_UNSUPPORTED', `${op} with a NUL character in its pattern is not supported: DuckDB ends the pattern at the NUL`);
        return {
          expr: b({ kind: 'like', arg: arg!.expr, pattern: pattern!.expr, negated: op.startsWith('NOT'), caseInsensitive: op.includes('ILIKE'), escape }),
          type: 'bool',
          text: `${arg!.text} ${op} ${pattern!.text}`,
        };
      }
      if (!CONDITION_OPERATORS.has(op)) return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, leaves.clause));
      return lowerCondition(n, leaves);
    }
    case 'unary_expr':
      if (op === '-') {
        if (intervalConstant(n.expr) !== undefined) fail('CANOPY_ERR_UNSUPPORTED', `-INTERVAL is an INTERVAL, which is not an answer value: ${INTERVAL_USES}`);
        refuseUnsignedArithmetic('unary minus', [n.expr]);
        const arg = lowerScalar(n.expr, leaves);
        if (!numeric(arg.type)) fail('CANOPY_ERR_TYPE', `unary minus needs a number; '${arg.text}' is ${arg.type}`);
        const neg = b({ kind: 'neg', arg: arg.expr, type: arg.type });
        return { expr: arg.type === 'int64' ? checkedNarrow(neg, 'neg', n, leaves) : neg, type: arg.type, text: `-${arg.text}` };
      }
      if (op === '+') {
        // Unary plus takes a number, as in DuckDB (`+'hello'` has no overload there).
        const arg = lowerScalar(n.expr, leaves);
        if (!numeric(arg.type)) fail('CANOPY_ERR_TYPE', `unary plus needs a number; '${arg.text}' is ${arg.type}`);
        return arg;
      }
      if (op === '~') {
        // DuckDB's bitwise NOT over an integer (the same value in any signed width; an unsigned one is refused).
        refuseUnsignedArithmetic("operator '~'", [n.expr]);
        const arg = operandOf(n.expr, leaves);
        if (arg.type !== 'int64' && arg.type !== 'int128' && arg.litType !== 'null') fail('CANOPY_ERR_TYPE', `operator '~' needs an integer; '${arg.text}' is ${arg.type}`);
        return { expr: b({ kind: 'call', fn: 'bitwise_not', args: [arg.expr], type: arg.type }), type: arg.type, text: `~${arg.text}` };
      }
      if (op !== 'NOT') return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, leaves.clause));
      return lowerCondition(n, leaves);
    case 'case':
      return lowerCase(n, leaves);
    case 'cast': {
      const negated = negatedCastLiteral(n);
      if (negated !== null) return lowerScalar(negated, leaves);
      // x::A::B: the grammar gives one cast with the targets in order (only the first was read).
      if (Array.isArray(n.target) && n.target.length > 1) {
        return lowerScalar({ ...n, expr: { ...n, target: n.target.slice(0, -1) }, target: n.target.slice(-1) }, leaves);
      }
      // TRY_CAST (src/root/sql/surface.ts marks it): NULL where CAST fails.
      const tryCast = n.try === true;
      const word = tryCast ? 'TRY_CAST' : 'CAST';
      const target = castTarget(n.target);
      const type = CAST_TYPES[target];
      // CAST('2024-01-31' AS DATE): the DATE literal it is in DuckDB (TRY_CAST: NULL for a text DuckDB does not read as a date).
      const lit0 = readLiteral(n.expr);
      if (type === 'date' && lit0?.kind === 'string') {
        const text = `${word}(${literalText(lit0)} AS DATE)`;
        if (tryCast && castValueOrNull(lit0.value) === null) return { expr: b({ kind: 'lit', value: null, type: 'date' }), type: 'date', text };
        return { expr: b({ kind: 'lit', value: parseDate(lit0.value, text), type: 'date' }), type: 'date', text };
      }
      const interval = intervalConstant(n.expr);
      if (interval !== undefined) {
        // An INTERVAL constant cast to VARCHAR is DuckDB's text of it (src/root/sql/intervals.ts).
        if (type !== 'string') fail('CANOPY_ERR_UNSUPPORTED', `${word}(INTERVAL AS ${target}) is not supported: ${INTERVAL_USES}`);
        const value = interval === null ? null : intervalText(interval);
        return { expr: b({ kind: 'lit', value, type: 'string' }), type: 'string', text: value === null ? 'NULL' : `'${value}'` };
      }
      if (target === 'INTERVAL' && intervalConstant(n) !== undefined) fail('CANOPY_ERR_UNSUPPORTED', `an INTERVAL is not an answer value: ${INTERVAL_USES}`);
      if (type === undefined) {
        const float32 = target === 'FLOAT' || target === 'REAL' || target === 'FLOAT4';
        const hint = target === 'DECIMAL' || target === 'NUMERIC' ? '; use DOUBLE' : float32 ? ' (a 32-bit float in DuckDB, which canopy does not hold); use DOUBLE' : '';
        fail('CANOPY_ERR_UNSUPPORTED', `${word} to ${target || 'this type'} is not supported${hint}; canopy casts to BIGINT, DOUBLE, VARCHAR, TIMESTAMP, DATE, BOOLEAN`);
      }
      // VARCHAR(10) takes (and ignores) a length, as DuckDB; the number types take none there.
      const spec = Array.isArray(n.target) && isNode(n.target[0]) ? n.target[0] : null;
      if (spec !== null && spec.length != null && spec.parentheses === true && type !== 'string') fail('CANOPY_ERR_BAD_QUERY', `type ${target} takes no type parameters`);
      const lit = readLiteral(n.expr);
      // A string with a UTC offset cast to TIMESTAMPTZ is its instant (DuckDB's, in a UTC session).
      const zoned = lit?.kind === 'string' && ZONED_TYPES.has(target) ? zonedInstant(lit.value) : null;
      if (zoned !== null) return { expr: b({ kind: 'lit', value: zoned, type: 'timestamp' }), type: 'timestamp', text: `${word}(${literalText(lit!)} AS ${target})` };
      // CAST(NULL AS T), NULL::T: a NULL of type T (BI tools write it for typed empty columns).
      if (lit?.kind === 'null') return { expr: b({ kind: 'lit', value: null, type }), type, text: `${word}(NULL AS ${target})` };
      const bits = NARROW_BITS[target];
      const unsigned = UNSIGNED_BITS[target];
      const dec = lit?.kind === 'number' && (type === 'int64' || type === 'int128') ? decimalRoundedValue(lit.text) : null;
      if (dec !== null && unsigned !== undefined) {
        // A decimal literal rounds half away from zero (as DuckDB casts DECIMAL), then must fit.
        const text = `${word}(${literalText(lit!)} AS ${target})`;
        if (unsigned === 64 && dec > INT64_MAX && dec < 1n << 64n) fail('CANOPY_ERR_OUT_OF_RANGE', `${text}: ${dec} fits DuckDB's ${target} but not BIGINT, which canopy holds`);
        if (dec < 0n || dec >= 1n << BigInt(unsigned)) {
          if (tryCast) return { expr: b({ kind: 'lit', value: null, type: 'int64' }), type: 'int64', text };
          fail('CANOPY_ERR_OUT_OF_RANGE', `${text}: ${dec} is out of the ${target} range (0 to ${(1n << BigInt(unsigned)) - 1n})`);
        }
        return { expr: b({ kind: 'lit', value: dec, type: 'int64' }), type: 'int64', text };
      }
      if (dec !== null) {
        const text = `${word}(${literalText(lit!)} AS ${target})`;
        const [lo, hi] = type === 'int128' ? [INT128_MIN, INT128_MAX] : [INT64_MIN, INT64_MAX];
        const fits = dec >= lo && dec <= hi && (bits === undefined || narrowInteger(dec, bits, true) !== null);
        if (!fits && tryCast) return { expr: b({ kind: 'lit', value: null, type }), type, text };
        if (dec < lo || dec > hi) fail('CANOPY_ERR_OUT_OF_RANGE', `CAST(${literalText(lit!)} AS ${target}) is out of the ${type === 'int128' ? 'HUGEINT' : 'int64'} range`);
        if (bits !== undefined) narrowInteger(dec, bits);
        return { expr: b({ kind: 'lit', value: dec, type }), type, text };
      }
      const arg = lit?.kind === 'string' ? operandOf(n.expr, leaves) : lowerScalar(n.expr, leaves);
      const text = `${word}(${arg.text} AS ${target})`;
      if (!CASTABLE[arg.type].includes(type)) {
        // DuckDB has no cast between these (a conversion error for every value): TRY_CAST is NULL,
        // once the argument is computed (its own errors stand).
        if (tryCast && NO_CAST[arg.type].includes(type)) return { expr: b({ kind: 'case', operand: null, whens: [{ when: b({ kind: 'isnull', arg: arg.expr, negated: false }), then: b({ kind: 'lit', value: null, type }) }], else: b({ kind: 'lit', value: null, type }), type }), type, text };
        fail('CANOPY_ERR_TYPE', `cannot cast '${arg.text}' (${arg.type}) to ${target}`);
      }
      // DuckDB computes an expression over decimal literals and integers as DECIMAL, which it
      // casts to an integer rounding half away from zero ((j * 1.5)::BIGINT is 5 for j = 3);
      // canopy holds it as a DOUBLE, so rounds it so first (round() is half away from zero).
      const rounded = arg.type === 'float64' && (type === 'int64' || type === 'int128') && duckKind(n.expr, (ref) => columnTypeOf(ref, leaves)) === 'decimal' ? b({ kind: 'call', fn: 'round', args: [arg.expr], type: 'float64' }) : arg.expr;
      const cast = { kind: 'cast', arg: rounded, type, try: tryCast, from: arg.type, ...(bits === undefined ? {} : { bits }), ...(unsigned === undefined ? {} : { unsigned }) } as const;
      return { expr: b(cast), type, text };
    }
    case 'extract': {
      const args = isNode(n.args) ? n.args : {};
      return lowerExtract(str(args.field) ?? '', args.source, leaves);
    }
    case 'interval':
      return fail('CANOPY_ERR_UNSUPPORTED', `an INTERVAL is not an answer value: ${INTERVAL_USES}`);
    case 'function':
      if (functionName(n).toUpperCase() === 'NOT') return lowerCondition(n, leaves);
      return lowerFunction(n, leaves);
    default:
      return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, leaves.clause));
  }
}

const CONDITION_OPERATORS = new Set(['=', '!=', '<>', '<', '<=', '>', '>=', 'AND', 'OR', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN', 'IS', 'IS NOT', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM']);

/** Predicates inside scalar expressions (`SELECT a > 1`, CASE WHEN ...): lowered by predicates.ts. */
let conditionLowerer: (<E>(n: unknown, leaves: Leaves<E>) => E) | null = null;

/** Registers the predicate lowering (predicates.ts imports this module; this breaks the cycle). */
export function setConditionLowerer(f: <E>(n: unknown, leaves: Leaves<E>) => E): void {
  conditionLowerer = f;
}

function lowerCondition<E>(n: Node, leaves: Leaves<E>): Typed<E> {
  if (conditionLowerer === null) return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, leaves.clause));
  // Named as written (`delay > 15`), or `condition` where the text writer gives up.
  return { expr: conditionLowerer(n, leaves), type: 'bool', text: conditionText(n) ?? 'condition' };
}

/**
 * `-128::TINYINT` as DuckDB reads it, -(128::TINYINT) (its unary minus binds looser than `::`),
 * where the grammar reads the cast of the literal -128: the unary minus over the cast of the
 * positive integer, when the casts take a narrow signed integer or HUGEINT (where the two differ:
 * 128 does not fit a TINYINT, 2^127 not a HUGEINT), or the cast of any negative number to a
 * type that is not a number (VARCHAR, BOOLEAN, TIMESTAMP: the minus is then refused, as DuckDB
 * refuses `-3::VARCHAR`); null otherwise (the same value either way).
 */
function negatedCastLiteral(n: Node): Node | null {
  const e = n.expr;
  if (n.symbol !== '::' || !isNode(e) || (e.type !== 'number' && e.type !== 'bigint') || e.parentheses === true || !Array.isArray(n.target)) return null;
  const text = String(e.value);
  if (!/^-(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return null;
  const targets = (n.target as unknown[]).map((t) => castTarget([t]));
  // To a VARCHAR, BOOLEAN or TIMESTAMP the minus meets a value that is no number: DuckDB
  // refuses `-3::VARCHAR` ("-(VARCHAR)"), as canopy's unary minus then does.
  const notNumber = targets.some((t) => CAST_TYPES[t] !== undefined && CAST_TYPES[t] !== 'int64' && CAST_TYPES[t] !== 'float64' && CAST_TYPES[t] !== 'int128');
  if (!notNumber && (!/^-\d+$/.test(text) || !targets.some((t) => NARROW_BITS[t] !== undefined || CAST_TYPES[t] === 'int128') || targets.some((t) => UNSIGNED_BITS[t] !== undefined))) return null;
  const positive = typeof e.value === 'number' ? -e.value : text.slice(1);
  return { type: 'unary_expr', operator: '-', expr: { ...n, expr: { ...e, value: positive } } };
}

/** `'1 day'::INTERVAL` (a string literal cast to INTERVAL) as the INTERVAL literal it is in DuckDB; anything else as it is. */
function asIntervalNode(n: unknown): unknown {
  // TRY_CAST('...' AS INTERVAL) is not an INTERVAL literal (it is NULL where the text is not one): refused as a cast.
  if (!isNode(n) || n.type !== 'cast' || n.try === true || !Array.isArray(n.target) || n.target.length !== 1 || !isNode(n.target[0]) || upper(n.target[0].dataType) !== 'INTERVAL') return n;
  return readLiteral(n.expr)?.kind === 'string' ? { type: 'interval', expr: n.expr, unit: '' } : n;
}

/**
 * DuckDB's functions that are its arithmetic operators: add(a, b) is a + b, subtract(a, b)
 * a - b, multiply(a, b) a * b, divide(a, b) a // b (integer division over integers, 7 // 2 = 3;
 * over doubles a / b but NULL by zero, where `/` gives ±inf or NaN); add(x) is +x and
 * subtract(x) is -x.
 */
const OPERATOR_FNS: Readonly<Record<string, string>> = { add: '+', subtract: '-', multiply: '*', divide: '//' };

/**
 * A call of one of {@link OPERATOR_FNS}, lowered as its operator (same types, overflow errors
 * and NULLs).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for a wrong number of arguments (DuckDB's binder
 *   error), and whatever the operator throws
 */
function lowerOperatorFunction<E>(name: string, argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  const op = OPERATOR_FNS[name]!;
  const unary = name === 'add' || name === 'subtract';
  if (argNodes.length === 1 && unary) return lowerScalar({ type: 'unary_expr', operator: op, expr: argNodes[0] }, leaves);
  if (argNodes.length !== 2) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes ${unary ? '1 or 2' : '2'} arguments, not ${argNodes.length}`);
  return lowerArith(op, { type: 'binary_expr', operator: op, left: argNodes[0], right: argNodes[1] }, leaves);
}

/**
 * DuckDB's sleep_ms(BIGINT ms) and pg_sleep(DOUBLE seconds): NULL once the argument is
 * computed (its errors stand; a string literal is cast as DuckDB casts it). canopy does not
 * sleep: the answer is DuckDB's, and a leaf does not stall its scan for it.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY for other than one argument, CANOPY_ERR_TYPE for
 *   an argument of another type
 */
function lowerSleep<E>(name: 'sleep_ms' | 'pg_sleep', argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  if (argNodes.length !== 1) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes 1 argument, not ${argNodes.length}`);
  const target = name === 'sleep_ms' ? 'BIGINT' : 'DOUBLE';
  const node = readLiteral(argNodes[0])?.kind === 'string' ? { type: 'cast', expr: argNodes[0], target: [{ dataType: target }] } : argNodes[0];
  const arg = operandOf(node, leaves);
  const ok = arg.litType === 'null' || (name === 'sleep_ms' ? arg.type === 'int64' : numeric(arg.type));
  if (!ok) fail('CANOPY_ERR_TYPE', `${name}() needs ${name === 'sleep_ms' ? 'an integer (milliseconds)' : 'a number (seconds)'}; '${arg.text}' is ${arg.type}`);
  const b = leaves.build;
  const none = b({ kind: 'lit', value: null, type: 'int64' });
  return { expr: b({ kind: 'case', operand: null, whens: [{ when: b({ kind: 'isnull', arg: arg.expr, negated: false }), then: none }], else: none, type: 'int64' }), type: 'int64', text: `${name}(${arg.text})` };
}

function lowerArith<E>(op: string, n0: Node, leaves: Leaves<E>): Typed<E> {
  if (op !== '+' && op !== '-' && intervalConstant(n0) !== undefined) fail('CANOPY_ERR_UNSUPPORTED', `INTERVAL ${op} integer is an INTERVAL, which is not an answer value: ${INTERVAL_USES}`);
  const b = leaves.build;
  const right = op === '+' || op === '-' ? intervalConstant(n0.right) : undefined;
  const left = op === '+' || op === '-' ? intervalConstant(n0.left) : undefined;
  if (left !== undefined && right !== undefined) fail('CANOPY_ERR_UNSUPPORTED', `INTERVAL ${op} INTERVAL is an INTERVAL, which is not an answer value: ${INTERVAL_USES}`);
  if (right !== undefined) {
    const ts = operandOf(n0.left, leaves);
    // DATE + INTERVAL is a TIMESTAMP in DuckDB (the DATE's midnight plus the interval).
    if (ts.type !== 'timestamp' && ts.type !== 'date') fail('CANOPY_ERR_TYPE', `only a timestamp or DATE can take an INTERVAL; '${ts.text}' is ${ts.type}`);
    const text = `${ts.text} ${op} INTERVAL`;
    if (right === null) {
      // A NULL INTERVAL gives NULL, once the timestamp is computed (its errors stand).
      const none = b({ kind: 'lit', value: null, type: 'timestamp' });
      return { expr: b({ kind: 'case', operand: null, whens: [{ when: b({ kind: 'isnull', arg: ts.expr, negated: false }), then: none }], else: none, type: 'timestamp' }), type: 'timestamp', text };
    }
    const sign = op === '-' ? -1 : 1;
    return { expr: b({ kind: 'interval', arg: ts.expr, months: sign * right.months, micros: sign * (right.days * DAY_MICROS + right.micros) + 0 }), type: 'timestamp', text };
  }
  if (op === '+' && left !== undefined) return lowerArith('+', { ...n0, left: n0.right, right: n0.left }, leaves);
  const n = n0;
  // `/` divides as DOUBLE in DuckDB too.
  if (op !== '/') refuseUnsignedArithmetic(`operator '${op}'`, [n.left, n.right]);
  const [l, r] = operandsOf([n.left, n.right], leaves);
  if (l!.type === 'date' || r!.type === 'date') return dateArith(op, n, l!, r!, leaves);
  for (const x of [l!, r!]) if (!numeric(x.type)) fail('CANOPY_ERR_TYPE', `operator '${op}' needs numbers; '${x.text}' is ${x.type}${x.type === 'timestamp' ? ' (add an INTERVAL to a timestamp, or extract(epoch FROM ...))' : ''}`);
  const ints = (l!.type === 'int64' || l!.type === 'int128' || l!.litType === 'null') && (r!.type === 'int64' || r!.type === 'int128' || r!.litType === 'null');
  // HUGEINT with any integer is HUGEINT in DuckDB (an overflow past ±2^127, not 2^63).
  const type: ColumnType = op === '/' || !ints ? 'float64' : l!.type === 'int128' || r!.type === 'int128' ? 'int128' : 'int64';
  const cast = (x: Typed<E>): E => (type === 'float64' && x.type !== 'float64' ? b({ kind: 'cast', arg: x.expr, type: 'float64', try: false, from: x.type }) : x.expr);
  const text = `${l!.text} ${op} ${r!.text}`;
  // A bare NULL operand makes the operator NULL in DuckDB's binder (its function binder returns
  // a NULL constant for an SQLNULL argument), so the other operand is never computed and its
  // errors never raised (NULL * (-128)::TINYINT - 100::TINYINT is NULL).
  if (l!.litType === 'null' || r!.litType === 'null') return { expr: b({ kind: 'lit', value: null, type }), type, text };
  const narrow = type === 'int64' ? duckWidth(n) : 64;
  if (op === '%' && (typeof narrow === 'number' ? narrow : narrow.type) < 64) {
    // DuckDB divides first: the width's minimum % -1 overflows as its // -1 does ((-128)::TINYINT
    // % -1), though the remainder, 0, fits. a - (a // b) * b is the remainder (NULL for b = 0),
    // with the division checked in that width.
    const quotient = checkedNarrow(b({ kind: 'arith', op: '//', left: l!.expr, right: r!.expr, type }), '//', n, leaves);
    return { expr: b({ kind: 'arith', op: '-', left: l!.expr, right: b({ kind: 'arith', op: '*', left: quotient, right: r!.expr, type }), type }), type, text };
  }
  const arith = b({ kind: 'arith', op: op as ArithOp, left: cast(l!), right: cast(r!), type });
  return { expr: type === 'int64' ? checkedNarrow(arith, op, n, leaves) : arith, type, text };
}

/** DuckDB's bitwise operators (src/root/sql/surface.ts reads them) and the functions that compute them. */
const BITWISE_FNS: Readonly<Record<string, ScalarFn>> = { '&': 'bitwise_and', '|': 'bitwise_or', '<<': 'shift_left', '>>': 'shift_right' };

/**
 * `a & b`, `a | b`, `a << b`, `a >> b` over integers (NULL in, NULL out). A shift is computed
 * as BIGINT, or as HUGEINT (128 bits) with a HUGEINT operand: DuckDB shifts in the operands'
 * width (`1 << 31` overflows an INTEGER), so a shift without a column, BIGINT or HUGEINT
 * operand is refused; `&` and `|` give the same value in any width.
 * @throws CanopyError CANOPY_ERR_TYPE for other than integers; CANOPY_ERR_UNSUPPORTED for a narrow shift
 */
function lowerBitwise<E>(op: string, n: Node, leaves: Leaves<E>): Typed<E> {
  const [l, r] = operandsOf([n.left, n.right], leaves);
  for (const x of [l!, r!]) if (x.type !== 'int64' && x.type !== 'int128' && x.litType !== 'null') fail('CANOPY_ERR_TYPE', `operator '${op}' needs integers; '${x.text}' is ${x.type}`);
  // A HUGEINT operand makes it HUGEINT in DuckDB: shifts then take 128 bits.
  const type: ColumnType = l!.type === 'int128' || r!.type === 'int128' ? 'int128' : 'int64';
  const shift = op === '<<' || op === '>>';
  if (shift && type === 'int64' && !computedWide(n.left) && !computedWide(n.right)) {
    fail('CANOPY_ERR_UNSUPPORTED', `operator '${op}' without a column or BIGINT operand is not supported: DuckDB shifts it as INTEGER (overflowing at 32 bits), canopy as BIGINT; cast an operand to BIGINT`);
  }
  refuseUnsignedArithmetic(`operator '${op}'`, [n.left, n.right]);
  const width = shift && type === 'int128' ? [leaves.build({ kind: 'lit', value: 128n, type: 'int64' })] : [];
  return { expr: leaves.build({ kind: 'call', fn: BITWISE_FNS[op]!, args: [l!.expr, r!.expr, ...width], type }), type, text: `${l!.text} ${op} ${r!.text}` };
}

function lowerCase<E>(n: Node, leaves: Leaves<E>): Typed<E> {
  const args = Array.isArray(n.args) ? n.args.filter(isNode) : [];
  const whens = args.filter((a) => a.type === 'when');
  const other = args.find((a) => a.type === 'else');
  const results = operandsOf([...whens.map((w) => w.result), ...(other === undefined ? [] : [other.result])], leaves);
  const type = commonType(results.map((r) => r.litType ?? r.type), 'CASE');
  const b = leaves.build;
  const fit = (x: Typed<E> & { litType: ColumnType | 'null' | null }): E => (x.type === type || x.litType === 'null' ? x.expr : b({ kind: 'cast', arg: x.expr, type, try: false, from: x.type }));
  let conds: E[];
  if (n.expr != null) {
    // A simple CASE is the searched CASE of `operand = value` (DuckDB's transformer rewrites it
    // so): each WHEN is lowered as that comparison, with its type rules and casts (a string
    // operand against a number is refused as `s = 1` is, not compared as never equal).
    const operand = n.expr;
    conds = whens.map((w) => lowerCondition({ type: 'binary_expr', operator: '=', left: operand, right: w.cond }, leaves).expr);
  } else {
    conds = whens.map((w) => {
      // WHEN NULL: an unknown condition (never taken), as DuckDB reads it.
      if (readLiteral(w.cond)?.kind === 'null') return b({ kind: 'lit', value: null, type: 'bool' });
      const c = lowerScalar(w.cond, leaves);
      if (c.type === 'bool') return c.expr;
      // A number or string is cast to BOOLEAN, as DuckDB casts a WHEN (CASE WHEN i THEN ...).
      if (c.type === 'timestamp') fail('CANOPY_ERR_TYPE', `CASE WHEN needs a condition; '${c.text}' is ${c.type}`);
      return b({ kind: 'cast', arg: c.expr, type: 'bool', try: false, from: c.type });
    });
  }
  const node: ScalarNode<E> = {
    kind: 'case',
    operand: null,
    whens: whens.map((_, i) => ({ when: conds[i]!, then: fit(results[i]!) })),
    else: other === undefined ? null : fit(results[whens.length]!),
    type,
  };
  return { expr: b(node), type, text: 'CASE' };
}

/**
 * nullif(a, b) where a and b have different types (an integer and a double, or a literal of
 * another width): CASE WHEN a = b THEN NULL ELSE a END, of a's type as in DuckDB, with the
 * comparison lowered as every comparison is (an integer meets a double as a double, a decimal
 * literal exactly). Null when both have one type (the plain call does).
 */
function nullifOfMixedTypes<E>(argNodes: readonly unknown[], args: readonly (Typed<E> & { readonly litType: ColumnType | 'null' | null })[], leaves: Leaves<E>): Typed<E> | null {
  const [a, c] = args;
  if (a === undefined || c === undefined || a.litType === 'null' || c.litType === 'null' || a.type === c.type) return null;
  const cond = lowerCondition({ type: 'binary_expr', operator: '=', left: argNodes[0], right: argNodes[1] }, leaves).expr;
  const b = leaves.build;
  const node: ScalarNode<E> = { kind: 'case', operand: null, whens: [{ when: cond, then: b({ kind: 'lit', value: null, type: a.type }) }], else: a.expr, type: a.type };
  return { expr: b(node), type: a.type, text: `nullif(${a.text}, ${c.text})` };
}

/** extract(field FROM source), or the function `fn` (epoch_ms, epoch_us); `label` names a part function's text (year(ts)). */
function lowerExtract<E>(fieldName: string, source: unknown, leaves: Leaves<E>, fn = 'extract', label?: string): Typed<E> {
  const f = fieldName.toLowerCase().replace(/s$/, '');
  const alias: Record<string, ExtractField> = { dayofweek: 'dow', weekday: 'dow', dayofyear: 'doy', dayofmonth: 'day', weekofyear: 'week', millisecond: 'millisecond', microsecond: 'microsecond', centurie: 'century', millennia: 'millennium' };
  // epoch_ms(ts) / epoch_us(ts) are functions, not date_part fields (as DuckDB).
  const field = fn === 'extract' ? (EXTRACT_FIELDS.find((x) => x === f) ?? alias[f]) : (fieldName as ExtractField);
  if (field === undefined) fail('CANOPY_ERR_UNSUPPORTED', `extract field '${fieldName}' is not supported; use one of ${EXTRACT_FIELDS.join(', ')}`);
  if (fn === 'extract') refuseUntyped(label ?? 'extract', source, true);
  const arg = operandOf(source, leaves, { expr: null as unknown as E, type: 'timestamp', text: fieldName });
  if (arg.type !== 'timestamp' && arg.type !== 'date') fail('CANOPY_ERR_TYPE', `${fn} needs a timestamp or DATE; '${arg.text}' is ${arg.type}`);
  if (fn !== 'extract') return { expr: leaves.build({ kind: 'extract', field, arg: arg.expr, type: 'int64' }), type: 'int64', text: `${fn}(${arg.text})` };
  const type: ColumnType = field === 'epoch' || field === 'julian' ? 'float64' : 'int64';
  return { expr: leaves.build({ kind: 'extract', field, arg: arg.expr, type }), type, text: label === undefined ? `extract(${field} FROM ${arg.text})` : `${label}(${arg.text})` };
}

/**
 * Refuses a string literal (and a NULL literal when `nullToo`) where `fn` takes a timestamp:
 * DuckDB cannot choose among its DATE, TIMESTAMP, TIME and other overloads for one
 * (date_trunc('month', '2024-03-05') is its Binder Error), so neither does canopy.
 * @throws CanopyError CANOPY_ERR_TYPE
 */
function refuseUntyped(fn: string, n: unknown, nullToo: boolean): void {
  const lit = readLiteral(n);
  if (lit?.kind === 'string' || (nullToo && lit?.kind === 'null')) {
    fail('CANOPY_ERR_TYPE', `${fn}: ${literalText(lit)} is ambiguous where a timestamp goes (DuckDB cannot choose among DATE, TIMESTAMP and its other overloads); cast it: TIMESTAMP '2024-01-01'`);
  }
}

/**
 * A part function of one timestamp (DuckDB's year(ts), dayofweek(ts), ...; BIGINT, julian
 * DOUBLE): extract of its field; epoch_ns(ts) and nanosecond(ts) are epoch_us(ts) and
 * microsecond(ts) times 1000 in int64 (exact: canopy's ±2^53 µs times 1000 fit); dayname(ts) and
 * monthname(ts) are strftime(ts, '%A') and strftime(ts, '%B').
 * dayname(NULL), monthname(NULL) and julian(NULL) are a typed NULL, as in DuckDB.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY (not one argument), CANOPY_ERR_TYPE (not a
 *   timestamp; a string literal, or NULL for the others, which DuckDB finds ambiguous between
 *   DATE, TIMESTAMP and the other types these functions take)
 */
function lowerPartFunction<E>(name: string, argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  if (argNodes.length !== 1) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes 1 argument (a timestamp), not ${argNodes.length}`);
  const lit = readLiteral(argNodes[0]);
  const b = leaves.build;
  // DuckDB types a NULL for these three (one overload takes it); for the rest NULL is ambiguous.
  const nullType: ColumnType | undefined = name === 'dayname' || name === 'monthname' ? 'string' : name === 'julian' ? 'float64' : undefined;
  if (lit?.kind === 'null' && nullType !== undefined) return { expr: b({ kind: 'lit', value: null, type: nullType }), type: nullType, text: `${name}(NULL)` };
  refuseUntyped(name, argNodes[0], true);
  if (name === 'dayname' || name === 'monthname') {
    const ts = operandOf(argNodes[0], leaves);
    if (ts.type !== 'timestamp' && ts.type !== 'date') fail('CANOPY_ERR_TYPE', `${name} needs a timestamp or DATE; '${ts.text}' is ${ts.type}`);
    const format = b({ kind: 'lit', value: name === 'dayname' ? '%A' : '%B', type: 'string' });
    return { expr: b({ kind: 'call', fn: 'strftime', args: [ts.expr, format], type: 'string' }), type: 'string', text: `${name}(${ts.text})` };
  }
  if (name === 'epoch_ns' || name === 'nanosecond') {
    const us = name === 'epoch_ns' ? lowerExtract('epoch_us', argNodes[0], leaves, 'epoch_us') : lowerExtract('microsecond', argNodes[0], leaves, 'extract', name);
    const thousand = b({ kind: 'lit', value: 1000n, type: 'int64' });
    return { expr: b({ kind: 'arith', op: '*', left: us.expr, right: thousand, type: 'int64' }), type: 'int64', text: `${name}(${us.text.replace(/^\w+\((.*)\)$/s, '$1')})` };
  }
  return lowerExtract(PART_FNS[name]!, argNodes[0], leaves, 'extract', name);
}

/** date_sub's fields that count another unit (DuckDB's DateSubFunction: dow, isodow, doy, julian count days, ...). */
const DATE_SUB_FIELDS: Readonly<Record<string, TruncUnit>> = { dow: 'day', isodow: 'day', doy: 'day', dayofweek: 'day', dayofyear: 'day', dayofmonth: 'day', julian: 'day', isoyear: 'year', yearweek: 'week', epoch: 'second' };

/** The words DuckDB's GetDatePartSpecifier (src/common/enums/date_part_specifier.cpp) reads as each date_trunc unit. */
const UNIT_WORDS: Readonly<Record<TruncUnit, readonly string[]>> = {
  year: ['year', 'yr', 'y', 'years', 'yrs'],
  month: ['month', 'mon', 'months', 'mons'],
  day: ['day', 'days', 'd', 'dayofmonth'],
  decade: ['decade', 'dec', 'decades', 'decs'],
  century: ['century', 'cent', 'centuries', 'c'],
  millennium: ['millennium', 'mil', 'millenniums', 'millennia', 'mils', 'millenium'],
  microsecond: ['microseconds', 'microsecond', 'us', 'usec', 'usecs', 'usecond', 'useconds'],
  millisecond: ['milliseconds', 'millisecond', 'ms', 'msec', 'msecs', 'msecond', 'mseconds'],
  second: ['second', 'sec', 'seconds', 'secs', 's'],
  minute: ['minute', 'min', 'minutes', 'mins', 'm'],
  hour: ['hour', 'hr', 'hours', 'hrs', 'h'],
  week: ['week', 'weeks', 'w', 'weekofyear'],
  quarter: ['quarter', 'quarters'],
};
const UNIT_BY_WORD: ReadonlyMap<string, TruncUnit> = new Map(TRUNC_UNITS.flatMap((u) => UNIT_WORDS[u].map((w) => [w, u] as const)));

/**
 * The unit a unit literal names as DuckDB reads it ('day', 'days', 'DAY', 'd', 'hr', 'mon',
 * 'ms', ...; `extra` maps more words), or undefined for anything else ('centurys' too).
 */
function unitOf(n: unknown, extra: Readonly<Record<string, TruncUnit>>): TruncUnit | undefined {
  const lit = readLiteral(n);
  if (lit?.kind !== 'string') return undefined;
  const w = lit.value.toLowerCase();
  return extra[w] ?? UNIT_BY_WORD.get(w);
}

/**
 * An INTERVAL constant as months and µs (days as 24 hours: timestamps are UTC), null for a
 * NULL INTERVAL, undefined for anything else.
 */
function intervalLiteral(n: unknown): { months: number; micros: number } | null | undefined {
  const iv = intervalConstant(n);
  return iv == null ? iv : { months: iv.months, micros: iv.days * DAY_MICROS + iv.micros };
}

/** What canopy does with an INTERVAL, for refusing one where it would be an answer value. */
const INTERVAL_USES = 'canopy has no INTERVAL column type: add an INTERVAL to or subtract it from a timestamp, compare it with another INTERVAL, or cast it to VARCHAR';

/** The integer a multiplier node is (an integer literal, or one cast to an integer type), null for NULL, undefined otherwise. */
function integerFactor(n: unknown): bigint | null | undefined {
  const lit = readLiteral(n);
  if (lit?.kind === 'null') return null;
  if (lit?.kind === 'number') return /^-?\d+$/.test(lit.text) ? BigInt(lit.text) : undefined;
  if (!isNode(n) || n.type !== 'cast' || n.try === true || !Array.isArray(n.target) || n.target.length !== 1) return undefined;
  const type = CAST_TYPES[castTarget(n.target)];
  return type === 'int64' && NARROW_BITS[castTarget(n.target)] === undefined && UNSIGNED_BITS[castTarget(n.target)] === undefined ? integerFactor(n.expr) : undefined;
}

/**
 * An INTERVAL-valued constant expression as DuckDB computes it: an INTERVAL literal
 * (`INTERVAL '1 day'`, `INTERVAL 2 HOUR`, `'1 day'::INTERVAL`), NULL::INTERVAL (null), and
 * sums, differences, negations and integer multiples of them (`2 * INTERVAL '1 day'`: each
 * field times the integer); undefined for an expression that is not an INTERVAL.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for an INTERVAL times a non-integer or divided
 *   (DuckDB spreads the fractions of months and days in ways canopy does not follow),
 *   CANOPY_ERR_TYPE for two INTERVALs multiplied, CANOPY_ERR_OUT_OF_RANGE for fields that
 *   overflow, CANOPY_ERR_BAD_QUERY for a text that is not an interval
 */
export function intervalConstant(n0: unknown): Interval | null | undefined {
  const n = asIntervalNode(n0);
  if (!isNode(n)) return undefined;
  if (n.type === 'interval') return readInterval(n);
  if (n.type === 'cast') {
    const single = Array.isArray(n.target) && n.target.length === 1;
    return single && castTarget(n.target) === 'INTERVAL' && readLiteral(n.expr)?.kind === 'null' ? null : undefined;
  }
  if (n.type === 'unary_expr' && n.operator === '-') {
    const iv = intervalConstant(n.expr);
    return iv == null ? iv : checkedInterval({ months: -iv.months, days: -iv.days, micros: -iv.micros }, '-INTERVAL');
  }
  if (n.type !== 'binary_expr') return undefined;
  const op = String(n.operator);
  if (op === '+' || op === '-') {
    const l = intervalConstant(n.left);
    const r = l === undefined ? undefined : intervalConstant(n.right);
    if (l === undefined || r === undefined) return undefined;
    return l === null || r === null ? null : addIntervals(l, r, op === '-' ? -1 : 1, `INTERVAL ${op} INTERVAL`);
  }
  if (op === '*' || op === '/' || op === '//' || op === '%') {
    const l = intervalConstant(n.left);
    const r = intervalConstant(n.right);
    if (l === undefined && r === undefined) return undefined;
    if (l !== undefined && r !== undefined) fail('CANOPY_ERR_TYPE', `an INTERVAL ${op} an INTERVAL is not defined (as DuckDB refuses it)`);
    const k = op === '*' ? integerFactor(l === undefined ? n.left : n.right) : undefined;
    if (k === undefined) fail('CANOPY_ERR_UNSUPPORTED', `an INTERVAL is multiplied by an integer literal only (2 * INTERVAL '1 day'): DuckDB's INTERVAL ${op === '*' ? 'times a fraction' : op} spreads fractions of months and days in a way canopy does not follow`);
    const iv = l ?? r;
    return iv === null || k === null ? null : scaleInterval(iv!, k, 'INTERVAL * integer');
  }
  return undefined;
}

/** An INTERVAL compared by `op` (=, <>, <, ...) as a BOOLEAN constant. */
function intervalCmp(op: string, a: Interval | null, b: Interval | null): boolean | null {
  if (a === null || b === null) return null;
  const c = compareIntervals(a, b);
  return op === '=' || op === '==' ? c === 0 : op === '!=' || op === '<>' ? c !== 0 : op === '<' ? c < 0 : op === '<=' ? c <= 0 : op === '>' ? c > 0 : c >= 0;
}

/**
 * A condition over INTERVAL constants (`INTERVAL '30' DAY >= INTERVAL '1' MONTH`, BETWEEN, IN,
 * IS [NOT] DISTINCT FROM, IS [NOT] NULL) as its BOOLEAN constant, in DuckDB's INTERVAL order
 * (a string literal operand is cast to INTERVAL, as DuckDB casts it); undefined when no operand
 * is an INTERVAL.
 * @throws CanopyError CANOPY_ERR_TYPE for an INTERVAL compared with another type
 */
export function intervalCondition(n: Node): boolean | null | undefined {
  const op = upper(n.operator);
  const IS_NULL = op === 'IS' || op === 'IS NOT';
  if (n.type !== 'binary_expr' || !['=', '==', '!=', '<>', '<', '<=', '>', '>=', 'BETWEEN', 'NOT BETWEEN', 'IN', 'NOT IN', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM', 'IS', 'IS NOT'].includes(op)) return undefined;
  const left = intervalConstant(n.left);
  if (IS_NULL) return left === undefined || readLiteral(n.right)?.kind !== 'null' ? undefined : (left === null) === (op === 'IS');
  const list = op.endsWith('BETWEEN') || op.endsWith('IN') ? listItems(n.right) : [n.right];
  const others = list.map(intervalConstant);
  if (left === undefined && others.every((o) => o === undefined)) return undefined;
  const operand = (node: unknown, iv: Interval | null | undefined): Interval | null => {
    if (iv !== undefined) return iv;
    const lit = readLiteral(node);
    if (lit?.kind === 'null') return null;
    if (lit?.kind === 'string') return readInterval({ type: 'interval', expr: node, unit: '' });
    return fail('CANOPY_ERR_TYPE', `an INTERVAL compares only with an INTERVAL (or a string literal, read as one); ${conditionText(n) ?? 'this comparison'} mixes types`);
  };
  const x = operand(n.left, left);
  const ys = list.map((m, i) => operand(m, others[i]));
  if (op === 'BETWEEN' || op === 'NOT BETWEEN') {
    const lo = intervalCmp('>=', x, ys[0]!);
    const hi = intervalCmp('<=', x, ys[1]!);
    const both = lo === false || hi === false ? false : lo === null || hi === null ? null : true;
    return op === 'BETWEEN' || both === null ? both : !both;
  }
  if (op === 'IN' || op === 'NOT IN') {
    const hits = ys.map((y) => intervalCmp('=', x, y));
    const any = hits.includes(true) ? true : hits.includes(null) ? null : false;
    return op === 'IN' || any === null ? any : !any;
  }
  if (op === 'IS DISTINCT FROM' || op === 'IS NOT DISTINCT FROM') {
    const y = ys[0]!;
    const same = x === null || y === null ? x === y : compareIntervals(x, y) === 0;
    return op === 'IS NOT DISTINCT FROM' ? same : !same;
  }
  return intervalCmp(op, x, ys[0]!);
}

/**
 * DuckDB's time_bucket(width, ts[, origin | offset]) for a TIMESTAMP: `width` an INTERVAL
 * literal of µs (days, hours, ...) or of whole months, `origin` a timestamp, `offset` an
 * INTERVAL literal (a NULL origin or offset gives NULL). A width not greater than 0 or mixing
 * months with days or time fails on the rows with a timestamp (CANOPY_ERR_OUT_OF_RANGE, at
 * evaluation), as in DuckDB; a NULL width gives NULL.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity), CANOPY_ERR_UNSUPPORTED (a
 *   width that is not an INTERVAL literal), CANOPY_ERR_TYPE (not a timestamp; a string literal
 *   origin, which DuckDB finds ambiguous)
 */
function lowerTimeBucket<E>(argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  if (argNodes.length < 2 || argNodes.length > 3) fail('CANOPY_ERR_BAD_QUERY', `time_bucket takes 2 or 3 arguments (width, timestamp[, origin or offset]), not ${argNodes.length}`);
  const [w, t, third] = argNodes;
  const width = intervalLiteral(w);
  if (width === undefined) return fail('CANOPY_ERR_UNSUPPORTED', "time_bucket takes an INTERVAL literal width: time_bucket(INTERVAL '15 minutes', ts)");
  refuseUntyped('time_bucket', t, false);
  const ts = operandOf(t, leaves, { expr: null as unknown as E, type: 'timestamp', text: 'time_bucket' });
  if (ts.type !== 'timestamp' && ts.type !== 'date') fail('CANOPY_ERR_TYPE', `time_bucket needs a timestamp or DATE; '${ts.text}' is ${ts.type}`);
  // DuckDB's time_bucket of a DATE (with a DATE origin or none) buckets its midnight and casts the bucket to DATE.
  let type: ColumnType = ts.type;
  const b = leaves.build;
  const int = (v: number | null): E => b({ kind: 'lit', value: v === null ? null : BigInt(v), type: 'int64' });
  let mode = 'default';
  let rest: E[] = [];
  let restText = '';
  const offset = intervalLiteral(third);
  if (offset !== undefined) {
    mode = 'offset';
    rest = [int(offset?.months ?? null), int(offset?.micros ?? null)];
    restText = ', INTERVAL';
  } else if (third !== undefined) {
    if (readLiteral(third)?.kind === 'string') fail('CANOPY_ERR_TYPE', "time_bucket's third argument is ambiguous as a string (DuckDB cannot choose between an origin and a time zone); write TIMESTAMP '2000-01-01' or an INTERVAL offset");
    const origin = operandOf(third, leaves, { expr: null as unknown as E, type: 'timestamp', text: 'time_bucket' });
    if (origin.type !== 'timestamp' && origin.type !== 'date') fail('CANOPY_ERR_TYPE', `time_bucket's origin must be a timestamp or DATE; '${origin.text}' is ${origin.type}`);
    // A TIMESTAMP origin makes it the TIMESTAMP overload.
    if (origin.type === 'timestamp') type = 'timestamp';
    mode = 'origin';
    rest = [origin.expr];
    restText = `, ${origin.text}`;
  }
  const args = [b({ kind: 'lit', value: mode, type: 'string' }), int(width?.months ?? null), int(width?.micros ?? null), ts.expr, ...rest];
  const bucket = b({ kind: 'call', fn: 'time_bucket', args, type: 'timestamp' });
  const text = `time_bucket(INTERVAL, ${ts.text}${restText})`;
  if (type === 'date') return { expr: b({ kind: 'cast', arg: bucket, type: 'date', try: false, from: 'timestamp' }), type: 'date', text };
  return { expr: bucket, type: 'timestamp', text };
}

/**
 * DuckDB's strptime(text, format) and try_strptime: a string and a format literal (NULL gives
 * NULL) or a list of them (ARRAY[...], list_value(...): the first that reads the text), read
 * at planning as DuckDB binds it (src/merge/strptime.ts).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity; a format DuckDB refuses, with its message),
 *   CANOPY_ERR_UNSUPPORTED (a format that is not a literal; %Z or %n, whose results are
 *   DuckDB's TIMESTAMP WITH TIME ZONE or TIMESTAMP_NS, which canopy does not hold),
 *   CANOPY_ERR_TYPE (a text that is not a string)
 */
function lowerStrptime<E>(name: string, argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  if (argNodes.length !== 2) fail('CANOPY_ERR_BAD_QUERY', `${name} takes 2 arguments (text, format), not ${argNodes.length}`);
  const f = argNodes[1];
  // The list form: ARRAY['%d/%m/%Y', '%Y-%m-%d'] or list_value(...) (canopy's parser does not read DuckDB's bare [...]).
  const list = isNode(f) && f.type === 'array' && isNode(f.expr_list) ? listItems(f.expr_list) : isNode(f) && f.type === 'function' && ['list_value', 'list_pack'].includes(functionName(f).toLowerCase()) ? listItems(f.args) : null;
  const formats = (list ?? [f]).map(readLiteral);
  const format = formats[0];
  if (list === null && format?.kind !== 'string' && format?.kind !== 'null') return fail('CANOPY_ERR_UNSUPPORTED', `${name} takes a format literal: ${name}(s, '%Y-%m-%d')`);
  if (list !== null && (formats.length === 0 || formats.some((x) => x?.kind !== 'string'))) return fail(formats.length === 0 ? 'CANOPY_ERR_BAD_QUERY' : 'CANOPY_ERR_UNSUPPORTED', formats.length === 0 ? `${name} format list must not be empty` : `${name} takes a list of format literals: ${name}(s, ARRAY['%d/%m/%Y', '%Y-%m-%d'])`);
  const text = operandOf(argNodes[0], leaves);
  if (text.type !== 'string' && text.litType !== 'null') fail('CANOPY_ERR_TYPE', `${name} needs a string; '${text.text}' is ${text.type}`);
  const b = leaves.build;
  if (format?.kind === 'null') return { expr: b({ kind: 'lit', value: null, type: 'timestamp' }), type: 'timestamp', text: `${name}(${text.text}, NULL)` };
  const texts = formats.map((x) => (x as { value: string }).value);
  for (const ft of texts) {
    const parsed = parseTimeFormat(ft);
    if (typeof parsed === 'string') return fail('CANOPY_ERR_BAD_QUERY', `${name}: failed to parse format specifier ${ft}: ${parsed}`);
    // %z gives DuckDB's TIMESTAMP WITH TIME ZONE: its instant, which canopy holds (src/merge/strptime.ts).
    const zoned = parsed.specifiers.find((sp) => sp === 'Z' || sp === 'n');
    if (zoned !== undefined) {
      fail('CANOPY_ERR_UNSUPPORTED', `${name} with %${zoned} gives DuckDB's ${zoned === 'n' ? 'TIMESTAMP_NS (nanoseconds)' : 'TIMESTAMP WITH TIME ZONE'}, which canopy does not hold; canopy's timestamps are µs without a zone`);
    }
  }
  const lits = texts.map((ft) => b({ kind: 'lit', value: ft, type: 'string' }));
  const shown = texts.map((ft) => literalText({ kind: 'string', value: ft })).join(', ');
  return { expr: b({ kind: 'call', fn: name as ScalarFn, args: [text.expr, ...lits], type: 'timestamp' }), type: 'timestamp', text: `${name}(${text.text}, ${list === null ? shown : `[${shown}]`})` };
}

const STRING_FNS = new Set<ScalarFn>(['lower', 'upper', 'substring', 'trim', 'ltrim', 'rtrim', 'concat', 'replace', 'left', 'right', 'reverse']);
const MATH_FNS = new Set<ScalarFn>(['sqrt', 'ln', 'log10', 'log2', 'exp', 'power']);
const ARITY: Partial<Record<ScalarFn, [number, number]>> = {
  abs: [1, 1], round: [1, 2], floor: [1, 1], ceil: [1, 1], sqrt: [1, 1], ln: [1, 1], log10: [1, 1], log2: [1, 1], exp: [1, 1], power: [2, 2], sign: [1, 1],
  nullif: [2, 2], lower: [1, 1], upper: [1, 1], length: [1, 1], substring: [2, 3], trim: [1, 2], ltrim: [1, 2], rtrim: [1, 2], starts_with: [2, 2],
  ends_with: [2, 2], contains: [2, 2], replace: [3, 3], left: [2, 2], right: [2, 2], reverse: [1, 1], strpos: [2, 2],
  trunc: [1, 1], isnan: [1, 1], lpad: [3, 3], rpad: [3, 3], regexp_matches: [2, 3], regexp_full_match: [2, 3], make_timestamp: [1, 6], to_timestamp: [1, 1],
  concat_ws: [2, Infinity], hex: [1, 1], printf: [1, Infinity], format: [1, Infinity],
  ...Object.fromEntries(Object.entries(SIGNATURES).map(([f, sig]) => [f, [sig.args.length, sig.args.length]])),
  regexp_replace: [3, 4], regexp_extract: [2, 4], jaro_similarity: [2, 3], jaro_winkler_similarity: [2, 3], to_base: [2, 3], bar: [3, 4], substring_grapheme: [2, 3],
};

function lowerFunction<E>(n: Node, leaves: Leaves<E>): Typed<E> {
  const name = functionName(n).toLowerCase();
  let argNodes = listItems(n.args);
  if (name === 'try') return lowerTry(argNodes, leaves);
  if (name === 'mod' && argNodes.length === 2) return lowerArith('%', { type: 'binary_expr', operator: '%', left: argNodes[0], right: argNodes[1] }, leaves);
  if (Object.hasOwn(OPERATOR_FNS, name)) return lowerOperatorFunction(name, argNodes, leaves);
  if (name === 'sleep_ms' || name === 'pg_sleep') return lowerSleep(name, argNodes, leaves);
  if (name === 'make_timestamptz') {
    // make_timestamptz(µs) is make_timestamp(µs) (canopy's timestamps are UTC, TIMESTAMPTZ's instant).
    if (argNodes.length !== 1) fail('CANOPY_ERR_UNSUPPORTED', "make_timestamptz of date and time fields is not supported: DuckDB builds it with ICU's calendar in the session's time zone (rolling out-of-range fields over, reading a zone name); make_timestamp(year, month, day, hour, minute, seconds) builds a UTC timestamp");
    return lowerFunction({ ...n, name: { name: [{ type: 'default', value: 'make_timestamp' }] } }, leaves);
  }
  if (name === 'epoch' && argNodes.length === 1) return lowerExtract('epoch', argNodes[0], leaves);
  if (name === 'epoch_ms' && argNodes.length === 1) {
    // epoch_ms(BIGINT) is DuckDB's other overload: the timestamp that many ms after 1970 (make_timestamp(ms * 1000)).
    const b = leaves.build;
    // epoch_ms(NULL) is this overload's NULL TIMESTAMP in DuckDB.
    if (readLiteral(argNodes[0])?.kind === 'null') return { expr: b({ kind: 'lit', value: null, type: 'timestamp' }), type: 'timestamp', text: 'epoch_ms(NULL)' };
    const ms = operandOf(argNodes[0], leaves);
    if (ms.type === 'int64') {
      const us = b({ kind: 'arith', op: '*', left: ms.expr, right: b({ kind: 'lit', value: 1000n, type: 'int64' }), type: 'int64' });
      return { expr: b({ kind: 'call', fn: 'make_timestamp', args: [us], type: 'timestamp' }), type: 'timestamp', text: `epoch_ms(${ms.text})` };
    }
  }
  if ((name === 'epoch_ms' || name === 'epoch_us') && argNodes.length === 1) return lowerExtract(name, argNodes[0], leaves, name);
  if (name === 'last_day' || name === 'make_date') return lowerDateFunction(name, argNodes, leaves);
  const refused = REFUSED_TIME_FNS[name];
  if (refused !== undefined) fail('CANOPY_ERR_UNSUPPORTED', refused);
  if (Object.hasOwn(PART_FNS, name) || name === 'epoch_ns' || name === 'nanosecond' || name === 'dayname' || name === 'monthname') return lowerPartFunction(name, argNodes, leaves);
  // position(needle IN haystack): node-sql-parser reads the IN as a middle argument.
  const mid = argNodes[1];
  if (name === 'position' && argNodes.length === 3 && isNode(mid) && mid.type === 'origin' && upper(mid.value) === 'IN') argNodes = [argNodes[2], argNodes[0]];
  // SUBSTRING(s FROM a FOR b): the grammar keeps the keywords apart (`separator`); FOR alone starts at 1.
  const words = Array.isArray(n.separator) ? n.separator.map((w) => (isNode(w) ? upper(w.value) : '')).join(' ') : '';
  if (words !== '') {
    if (name !== 'substring' || !['FROM', 'FROM FOR', 'FOR'].includes(words)) fail('CANOPY_ERR_UNSUPPORTED', `${name}(... ${words} ...) is not supported; call ${name}() with comma-separated arguments`);
    if (words === 'FOR' && argNodes.length === 2) argNodes = [argNodes[0], { type: 'number', value: 1 }, argNodes[1]];
  }
  const keyword = argNodes.find((a) => isNode(a) && a.type === 'origin');
  if (keyword !== undefined) {
    fail('CANOPY_ERR_UNSUPPORTED', `${name}(... ${upper((keyword as Node).value)} ...) is not supported; call ${name}() with comma-separated arguments (position(x IN y) takes a literal x)`);
  }
  if (name === 'date_trunc' || name === 'datetrunc') {
    if (argNodes.length !== 2) fail('CANOPY_ERR_BAD_QUERY', `date_trunc takes 2 arguments (unit, timestamp), not ${argNodes.length}`);
    const unitLiteral = readLiteral(argNodes[0]);
    const unit = unitOf(argNodes[0], {});
    if (unit === undefined) {
      const given = unitLiteral === null ? 'an expression' : literalText(unitLiteral);
      fail('CANOPY_ERR_BAD_QUERY', `date_trunc unit ${given} is not supported; use one of '${TRUNC_UNITS.join("', '")}'`);
    }
    refuseUntyped('date_trunc', argNodes[1], true);
    const arg = operandOf(argNodes[1], leaves, { expr: null as unknown as E, type: 'timestamp', text: 'date_trunc' });
    // Over a DATE its midnight: DuckDB's date_trunc(part, DATE) is a TIMESTAMP.
    if (arg.type !== 'timestamp' && arg.type !== 'date') fail('CANOPY_ERR_TYPE', `date_trunc needs a timestamp or DATE; '${arg.text}' is ${arg.type}`);
    return { expr: leaves.build({ kind: 'date_trunc', unit, arg: arg.expr }), type: 'timestamp', text: `date_trunc('${unit}', ${arg.text})` };
  }
  if (name === 'date_diff' || name === 'datediff' || name === 'date_sub' || name === 'datesub') {
    const fn: ScalarFn = name === 'date_diff' || name === 'datediff' ? 'date_diff' : 'date_sub';
    // date_sub (whole units) also reads the fields DuckDB maps to a unit there (dow: days, isoyear: years, ...).
    const unit = argNodes.length === 3 ? unitOf(argNodes[0], fn === 'date_sub' ? DATE_SUB_FIELDS : {}) : undefined;
    if (unit === undefined) fail('CANOPY_ERR_BAD_QUERY', `${fn} takes a unit ('${TRUNC_UNITS.join("', '")}', their plurals or DuckDB's abbreviations such as 'd', 'hr', 'mon') and two timestamps: ${fn}('day', a, b)`);
    // One typed end types the other (a string literal reads as a timestamp); two literals are ambiguous in DuckDB.
    if (argNodes.slice(1).every((m) => readLiteral(m)?.kind === 'string' || readLiteral(m)?.kind === 'null')) refuseUntyped(fn, readLiteral(argNodes[1])?.kind === 'string' ? argNodes[1] : argNodes[2], true);
    const ends = argNodes.slice(1).map((m) => operandOf(m, leaves, { expr: null as unknown as E, type: 'timestamp', text: fn }));
    for (const e of ends) if (e.type !== 'timestamp' && e.type !== 'date') fail('CANOPY_ERR_TYPE', `${fn} needs timestamps or DATEs; '${e.text}' is ${e.type}`);
    const u = leaves.build({ kind: 'lit', value: unit, type: 'string' });
    return { expr: leaves.build({ kind: 'call', fn, args: [u, ends[0]!.expr, ends[1]!.expr], type: 'int64' }), type: 'int64', text: `${fn}('${unit}', ${ends[0]!.text}, ${ends[1]!.text})` };
  }
  if (name === 'make_timestamp_ms') {
    // DuckDB's make_timestamp_ms(BIGINT ms): the timestamp ms milliseconds after the epoch, make_timestamp(ms * 1000).
    if (argNodes.length !== 1) fail('CANOPY_ERR_BAD_QUERY', `make_timestamp_ms takes 1 argument (milliseconds since the epoch), not ${argNodes.length}`);
    const ms = operandOf(argNodes[0], leaves);
    if (ms.type !== 'int64' && ms.litType !== 'null') fail('CANOPY_ERR_TYPE', `make_timestamp_ms takes a BIGINT (milliseconds since the epoch), as DuckDB; '${ms.text}' is ${ms.type}`);
    const micros = { type: 'binary_expr', operator: '*', left: argNodes[0], right: { type: 'number', value: 1000 } };
    return lowerScalar({ type: 'function', name: { name: [{ type: 'default', value: 'make_timestamp' }] }, args: { type: 'expr_list', value: [micros] } }, leaves);
  }
  if (name === 'date_add') {
    // DuckDB's date_add(ts, interval) is ts + interval (either order).
    const interval = argNodes.findIndex((m) => intervalConstant(m) !== undefined);
    if (argNodes.length !== 2 || interval < 0) fail('CANOPY_ERR_UNSUPPORTED', "date_add takes a timestamp and an INTERVAL literal: date_add(ts, INTERVAL '1 day')");
    return lowerArith('+', { type: 'binary_expr', operator: '+', left: argNodes[1 - interval], right: argNodes[interval] }, leaves);
  }
  if (name === 'time_bucket') return lowerTimeBucket(argNodes, leaves);
  if (name === 'strptime' || name === 'try_strptime') return lowerStrptime(name, argNodes, leaves);
  if (name === 'strftime') {
    // strftime('%Y', ts): DuckDB also takes the format first.
    if (argNodes.length === 2 && readLiteral(argNodes[0])?.kind === 'string' && readLiteral(argNodes[1])?.kind !== 'string') argNodes = [argNodes[1], argNodes[0]];
    const format = readLiteral(argNodes[1]);
    if (argNodes.length !== 2 || format?.kind !== 'string') fail('CANOPY_ERR_BAD_QUERY', "strftime takes a timestamp and a format literal: strftime(ts, '%Y-%m-%d')");
    // DuckDB refuses an empty format ("Empty format string") rather than answering ''.
    if (format.value === '') fail('CANOPY_ERR_BAD_QUERY', "strftime's format is empty; give one such as '%Y-%m-%d'");
    const bad = [...format.value.matchAll(/%(-?[a-zA-Z%]?)/g)].find((m) => !STRFTIME_SPECIFIERS.includes(m[1]!));
    if (bad !== undefined) fail('CANOPY_ERR_UNSUPPORTED', `strftime specifier '${bad[0]}' is not supported; use %${STRFTIME_SPECIFIERS.join(', %')}`);
    refuseUntyped('strftime', argNodes[0], false);
    const ts = operandOf(argNodes[0], leaves, { expr: null as unknown as E, type: 'timestamp', text: 'strftime' });
    if (ts.type !== 'timestamp' && ts.type !== 'date') fail('CANOPY_ERR_TYPE', `strftime needs a timestamp or DATE; '${ts.text}' is ${ts.type}`);
    const f = leaves.build({ kind: 'lit', value: format.value, type: 'string' });
    return { expr: leaves.build({ kind: 'call', fn: 'strftime', args: [ts.expr, f], type: 'string' }), type: 'string', text: `strftime(${ts.text}, ${literalText(format)})` };
  }
  if (name === 'date_part' || name === 'datepart') {
    const field = readLiteral(argNodes[0]);
    if (argNodes.length !== 2 || field?.kind !== 'string') fail('CANOPY_ERR_BAD_QUERY', "date_part takes a field name and a timestamp: date_part('hour', ts)");
    return lowerExtract(field.value, argNodes[1], leaves);
  }
  if (name === 'if') {
    // DuckDB's if(cond, a, b) is CASE WHEN cond THEN a ELSE b END.
    if (argNodes.length !== 3) fail('CANOPY_ERR_BAD_QUERY', `if() takes 3 arguments (condition, then, else), not ${argNodes.length}`);
    const r = lowerCase({ type: 'case', expr: null, args: [{ type: 'when', cond: argNodes[0], result: argNodes[1] }, { type: 'else', result: argNodes[2] }] }, leaves);
    return { ...r, text: 'if' };
  }
  if (name === 'round_even' || name === 'roundbankers') {
    // DuckDB's macro (src/catalog/default/default_functions.cpp), lowered as written:
    // CASE ((abs(x) * power(10, n + 1)) % 10) WHEN 5 THEN round(x / 2, n) * 2 ELSE round(x, n) END.
    if (argNodes.length !== 2) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes 2 arguments (x, digits), not ${argNodes.length}`);
    const [x, d] = argNodes;
    const call = (f: string, ...a: unknown[]): Node => ({ type: 'function', name: { name: [{ type: 'default', value: f }] }, args: { type: 'expr_list', value: a } });
    const bin = (operator: string, left: unknown, right: unknown): Node => ({ type: 'binary_expr', operator, left, right });
    const num = (value: number): Node => ({ type: 'number', value });
    const r = lowerCase({
      type: 'case',
      expr: bin('%', bin('*', call('abs', x), call('power', num(10), bin('+', d, num(1)))), num(10)),
      args: [{ type: 'when', cond: num(5), result: bin('*', call('round', bin('/', x, num(2)), d), num(2)) }, { type: 'else', result: call('round', x, d) }],
    }, leaves);
    return { ...r, text: name };
  }
  if (Object.hasOwn(STRING_INDEX_FNS, name)) return lowerStringIndex(name, argNodes, leaves);
  if (name === 'parse_dirname' || name === 'parse_dirpath' || name === 'parse_filename') return lowerParsePath(name, argNodes, leaves);
  if (name === 'pi') {
    if (argNodes.length !== 0) fail('CANOPY_ERR_BAD_QUERY', `pi() takes no arguments, not ${argNodes.length}`);
    return { expr: leaves.build({ kind: 'lit', value: Math.PI, type: 'float64' }), type: 'float64', text: 'pi()' };
  }
  // log(b, x): the logarithm of x to base b.
  const fn = name === 'log' && argNodes.length === 2 ? 'log_base' : SCALAR_FNS[name];
  if (fn === undefined) {
    // DuckDB's min(x, n) / max(x, n) return a LIST of the n least / greatest values.
    if ((name === 'min' || name === 'max') && argNodes.length === 2) fail('CANOPY_ERR_UNSUPPORTED', `${name}(x, n) returns a LIST of the n ${name === 'min' ? 'least' : 'greatest'} values, which canopy does not hold; use ${name}(x)`);
    if (AGGREGATE_FNS.some((f) => f === name)) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes one column (count also takes *)`);
    return fail('CANOPY_ERR_UNSUPPORTED', unsupportedMessage(n, leaves.clause));
  }
  const arity = ARITY[fn];
  if (arity !== undefined && (argNodes.length < arity[0] || argNodes.length > arity[1])) {
    const count = arity[0] === arity[1] ? arity[0] : arity[1] === Infinity ? `at least ${arity[0]}` : `${arity[0]} to ${arity[1]}`;
    fail('CANOPY_ERR_BAD_QUERY', `${name}() takes ${count} arguments, not ${argNodes.length}`);
  }
  if (argNodes.length === 0) fail('CANOPY_ERR_BAD_QUERY', `${name}() needs arguments`);
  // A string literal where a number goes is cast to it, as DuckDB casts it implicitly (cos('0')).
  const sigArgs = SIGNATURES[fn]?.args;
  if (sigArgs !== undefined) {
    argNodes = argNodes.map((m, k) => {
      const kind = sigArgs[k];
      return readLiteral(m)?.kind === 'string' && (kind === 'num' || kind === 'int') ? { type: 'cast', expr: m, target: [{ dataType: kind === 'num' ? 'DOUBLE' : 'BIGINT' }] } : m;
    });
  }
  const shared = fn === 'coalesce' || fn === 'greatest' || fn === 'least' || fn === 'nullif';
  const args = shared ? operandsOf(argNodes, leaves) : argNodes.map((m) => operandOf(m, leaves));
  const b = leaves.build;
  const text = `${name}(${args.map((a) => a.text).join(', ')})`;
  const needs = (i: number, ok: (t: ColumnType) => boolean, what: string): void => {
    const a = args[i];
    if (a !== undefined && a.litType !== 'null' && !ok(a.type)) fail('CANOPY_ERR_TYPE', `${name}() needs ${what} as argument ${i + 1}; '${a.text}' is ${a.type}`);
  };
  let type: ColumnType;
  if (fn === 'nullif') {
    commonType(args.map((a) => a.litType ?? a.type), `${name}()`);
    const mixed = nullifOfMixedTypes(argNodes, args, leaves);
    if (mixed !== null) return mixed;
  }
  if (shared) {
    type = commonType(args.map((a) => a.litType ?? a.type), `${name}()`);
  } else if (fn === 'concat') {
    type = 'string';
  } else if (fn === 'lpad' || fn === 'rpad') {
    needs(0, (t) => t === 'string', 'a string');
    needs(1, (t) => t === 'int64', 'an integer');
    needs(2, (t) => t === 'string', 'a string');
    // DuckDB has only lpad(VARCHAR, INTEGER, VARCHAR): a BIGINT length is a binder error there.
    if (narrowWidth(argNodes[1], args[1]!.expr) === null) fail('CANOPY_ERR_TYPE', `${name}() takes an INTEGER length, as DuckDB: an integer literal or CAST(${args[1]!.text} AS INTEGER)`);
    type = 'string';
  } else if (fn === 'concat_ws') {
    needs(0, (t) => t === 'string', 'a string (the separator)');
    type = 'string';
  } else if (fn === 'regexp_matches' || fn === 'regexp_full_match') {
    args.forEach((_, k) => needs(k, (t) => t === 'string', 'a string'));
    const pattern = readLiteral(argNodes[1]);
    const options = argNodes.length > 2 ? readLiteral(argNodes[2]) : null;
    if (argNodes.length > 2 && options?.kind !== 'string') fail('CANOPY_ERR_UNSUPPORTED', `${fn} takes string literal options`);
    // A literal pattern is checked here; a computed one (a column, NULL) per value as it is compiled (regexOf).
    if (pattern?.kind === 'string') checkRegex(pattern.value, options?.kind === 'string' ? options.value : '');
    else checkRegex('', options?.kind === 'string' ? options.value : '');
    type = 'bool';
  } else if (fn === 'make_timestamp' && args.length > 1) {
    // make_timestamp(year, month, day, hour, minute, seconds): DuckDB has no overload of 2 to 5.
    if (args.length !== 6) fail('CANOPY_ERR_BAD_QUERY', `make_timestamp takes 1 argument (µs since 1970) or 6 (year, month, day, hour, minute, seconds), not ${args.length}`);
    for (let k = 0; k < 5; k++) needs(k, (t) => t === 'int64', 'an integer');
    needs(5, (t) => numeric(t), 'a number (seconds)');
    type = 'timestamp';
  } else if (fn === 'printf' || fn === 'format') {
    // A NULL format gives NULL, as DuckDB (printf(NULL, 1)); its arguments are then not read.
    if (readLiteral(argNodes[0])?.kind === 'null') return { expr: b({ kind: 'lit', value: null, type: 'string' }), type: 'string', text: `${fn}(NULL, ...)` };
    checkFormatCall(fn, argNodes, args);
    type = 'string';
  } else if (fn === 'hex') {
    needs(0, (t) => t === 'int64' || t === 'string', 'an integer or a string');
    type = 'string';
  } else if (SIGNATURES[fn] !== undefined) {
    const sig = SIGNATURES[fn];
    // xor takes HUGEINTs too (a HUGEINT then, as DuckDB's); the others BIGINT.
    const hugeOk = fn === 'xor';
    const kinds = { num: [(t: ColumnType) => numeric(t), 'a number'], int: [(t: ColumnType) => t === 'int64' || (hugeOk && t === 'int128'), 'an integer'], str: [(t: ColumnType) => t === 'string', 'a string'] } as const;
    args.forEach((_, k) => needs(k, kinds[sig.args[k]!][0], kinds[sig.args[k]!][1]));
    if (fn === 'regexp_replace' || fn === 'regexp_extract') checkRegexCall(fn, argNodes);
    // DuckDB has no BIGINT form of chr, factorial, or to_base's radix and length.
    const narrow = fn === 'chr' || fn === 'factorial' ? [0] : fn === 'to_base' ? [1, 2] : [];
    for (const k of narrow) {
      if (k < args.length && narrowWidth(argNodes[k], args[k]!.expr) === null) fail('CANOPY_ERR_TYPE', `${name}() takes an INTEGER as argument ${k + 1}, as DuckDB: an integer literal or CAST(${args[k]!.text} AS INTEGER)`);
    }
    type = hugeOk && args.some((a) => a.type === 'int128') ? 'int128' : sig.type;
  } else if (fn === 'make_timestamp' || fn === 'to_timestamp') {
    needs(0, (t) => (fn === 'make_timestamp' ? t === 'int64' : numeric(t)), fn === 'make_timestamp' ? 'an integer (µs since 1970)' : 'a number (seconds since 1970)');
    type = 'timestamp';
  } else if (fn === 'isnan') {
    needs(0, (t) => numeric(t), 'a number');
    type = 'bool';
  } else if (STRING_FNS.has(fn) || fn === 'length' || fn === 'strpos' || fn === 'starts_with' || fn === 'ends_with' || fn === 'contains') {
    needs(0, (t) => t === 'string', 'a string');
    args.slice(1).forEach((_, k) => needs(k + 1, fn === 'substring' || fn === 'left' || fn === 'right' ? (t) => t === 'int64' : (t) => t === 'string', fn === 'substring' || fn === 'left' || fn === 'right' ? 'an integer' : 'a string'));
    type = fn === 'length' || fn === 'strpos' ? 'int64' : STRING_FNS.has(fn) ? 'string' : 'bool';
  } else {
    args.forEach((_, k) => needs(k, (t) => numeric(t), 'a number'));
    const a0 = args[0]!.type;
    type = MATH_FNS.has(fn) || fn === 'floor' || fn === 'ceil' || (fn === 'round' && args.length > 1) ? 'float64' : a0 === 'int128' && fn !== 'abs' && fn !== 'round' && fn !== 'trunc' ? 'int64' : a0;
    // round(HUGEINT[, d]), trunc and abs of one are HUGEINT in DuckDB; sign a TINYINT.
    if (fn === 'round' && a0 !== 'float64' && args.length > 1) type = a0 === 'int64' || a0 === 'int128' ? a0 : 'float64';
  }
  const fit = (x: Typed<E> & { litType: ColumnType | 'null' | null }): E =>
    shared && x.type !== type && x.litType !== 'null' ? b({ kind: 'cast', arg: x.expr, type, try: false, from: x.type }) : fn === 'concat' || fn === 'concat_ws' ? timestampAsText(b, x) : x.expr;
  // bit_count of an integer literal DuckDB types INTEGER counts 32 bits (bit_count(-1) is 32), of a cast to SMALLINT 16.
  const width = fn === 'bit_count' ? narrowWidth(argNodes[0], args[0]!.expr) : null;
  const call = b({ kind: 'call', fn, args: [...args.map(fit), ...(width !== null ? [b({ kind: 'lit', value: BigInt(width), type: 'int64' })] : [])], type });
  // sign() is an integer whatever its argument (DuckDB's TINYINT): -1, 0 or 1 as a double, cast.
  if (fn === 'sign' && type === 'float64') return { expr: b({ kind: 'cast', arg: call, type: 'int64', try: false, from: 'float64' }), type: 'int64', text };
  // abs of a TINYINT / SMALLINT / INTEGER keeps that type in DuckDB: abs(-128::TINYINT) overflows.
  if (fn === 'abs' && type === 'int64' && argNodes.length === 1) return { expr: checkedNarrow(call, 'abs', n, leaves), type, text };
  return { expr: call, type, text };
}

/** DuckDB's separator options of the parse_path functions (case-sensitive), to their characters; any other is both slashes. 'system' is Linux's. */
const PATH_SEPARATORS: Readonly<Record<string, string>> = { system: '/', forward_slash: '/', backslash: '\\' };
/** DuckDB's casts of a string to BOOLEAN. */
const BOOL_STRINGS: Readonly<Record<string, boolean>> = { true: true, t: true, yes: true, y: true, 1: true, false: false, f: false, no: false, n: false, 0: false };

/**
 * parse_dirname(path[, separator]), parse_dirpath(path[, separator]) and
 * parse_filename(path[, trim_extension][, separator]) (DuckDB's overloads: a second argument
 * that is a string is the separator); the separator ('system' (Linux: '/'), 'forward_slash',
 * 'backslash', anything else or NULL both slashes) and trim_extension (NULL false; a string
 * as DuckDB casts it) must be literals ({@link parsePath} in src/merge/scalar-extra.ts).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity, a string that is no boolean), CANOPY_ERR_TYPE (a path that is no string), CANOPY_ERR_UNSUPPORTED (a computed option)
 */
function lowerParsePath<E>(name: 'parse_dirname' | 'parse_dirpath' | 'parse_filename', argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  const max = name === 'parse_filename' ? 3 : 2;
  if (argNodes.length < 1 || argNodes.length > max) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes 1 to ${max} arguments, not ${argNodes.length}`);
  const path = operandOf(argNodes[0], leaves, { expr: null as unknown as E, type: 'string', text: name });
  if (path.type !== 'string' && path.litType !== 'null') fail('CANOPY_ERR_TYPE', `${name}() needs a string path; '${path.text}' is ${path.type}`);
  const opts = argNodes.slice(1).map((m) => readLiteral(m));
  if (opts.some((o) => o === null || (o.kind !== 'string' && o.kind !== 'null' && o.kind !== 'bool'))) fail('CANOPY_ERR_UNSUPPORTED', `${name}() takes literal options (a separator name, and for parse_filename a boolean trim_extension)`);
  // parse_filename(path, x): x is the separator when a string, else trim_extension.
  const trimAt = name === 'parse_filename' && (opts.length === 2 || (opts.length === 1 && opts[0]!.kind === 'bool')) ? 0 : -1;
  const trimLit = trimAt === 0 ? opts[0]! : null;
  let trim = false;
  if (trimLit?.kind === 'bool') trim = trimLit.value;
  else if (trimLit?.kind === 'string') {
    const key = trimLit.value.trim().toLowerCase();
    const v = Object.hasOwn(BOOL_STRINGS, key) ? BOOL_STRINGS[key] : undefined;
    if (v === undefined) fail('CANOPY_ERR_BAD_QUERY', `Could not convert string '${trimLit.value}' to BOOL`);
    trim = v;
  }
  const sepLit = opts[trimAt + 1];
  if (sepLit?.kind === 'bool') fail('CANOPY_ERR_TYPE', `${name}() takes a separator name (a string), not a boolean, there`);
  const sep = sepLit?.kind === 'string' && Object.hasOwn(PATH_SEPARATORS, sepLit.value) ? PATH_SEPARATORS[sepLit.value]! : '/\\';
  const b = leaves.build;
  const lit = (value: Scalar, type: ColumnType): E => b({ kind: 'lit', value, type });
  return {
    expr: b({ kind: 'call', fn: 'parse_path', args: [path.expr, lit(name.slice(6), 'string'), lit(sep, 'string'), lit(trim, 'bool')], type: 'string' }),
    type: 'string',
    text: `${name}(${path.text}${argNodes.length > 1 ? ', ...' : ''})`,
  };
}

/** DuckDB's list functions that take a string too, to whether each slices (else it extracts one character). */
const STRING_INDEX_FNS: Readonly<Record<string, boolean>> = { array_extract: false, list_extract: false, list_element: false, array_slice: true, list_slice: true };

/**
 * array_extract(s, i) (list_extract, list_element) and array_slice(s, begin, end) (list_slice)
 * over a string, the only list-like type canopy holds: the i-th code point as DuckDB's
 * substring(s, i, 1) (0 and past the ends ''; negative from the end), and DuckDB's clamped
 * slice ({@link stringSlice} in src/merge/scalar-extra.ts). Indices are BIGINTs (DuckDB
 * casts a DOUBLE slice bound; canopy refuses it).
 * @throws CanopyError CANOPY_ERR_BAD_QUERY (arity; a step, which DuckDB refuses on strings), CANOPY_ERR_UNSUPPORTED (a list), CANOPY_ERR_TYPE (a non-integer index)
 */
function lowerStringIndex<E>(name: string, argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  const slice = STRING_INDEX_FNS[name]!;
  if (slice && argNodes.length === 4) fail('CANOPY_ERR_BAD_QUERY', `${name} takes no step on a string: DuckDB refuses a slice with a step on strings too; slice without one`);
  const want = slice ? 3 : 2;
  if (argNodes.length !== want) fail('CANOPY_ERR_BAD_QUERY', `${name}() takes ${want} arguments on a string, not ${argNodes.length}`);
  if (isNode(argNodes[0]) && argNodes[0].type === 'array') fail('CANOPY_ERR_UNSUPPORTED', `${name} over a list: canopy has no list type`);
  const int = { expr: null as unknown as E, type: 'int64' as const, text: name };
  const str = operandOf(argNodes[0], leaves, { ...int, type: 'string' });
  const idx = argNodes.slice(1).map((m) => operandOf(m, leaves, int));
  if (str.type !== 'string' && str.litType !== 'null') fail('CANOPY_ERR_UNSUPPORTED', `${name} takes a string (canopy has no list type); '${str.text}' is ${str.type}`);
  for (const i of idx) if (i.type !== 'int64' && i.litType !== 'null') fail('CANOPY_ERR_TYPE', `${name}() needs an integer index; '${i.text}' is ${i.type}`);
  const b = leaves.build;
  const text = `${name}(${[str, ...idx].map((a) => a.text).join(', ')})`;
  const args = slice ? [str.expr, ...idx.map((i) => i.expr)] : [str.expr, idx[0]!.expr, b({ kind: 'lit', value: 1n, type: 'int64' })];
  return { expr: b({ kind: 'call', fn: slice ? 'string_slice' : 'substring', args, type: 'string' }), type: 'string', text };
}

/**
 * DuckDB's DATE arithmetic: DATE ± INTEGER (days: a literal, NULL, a cast to INTEGER or a
 * narrower type, arithmetic DuckDB computes in one) is a DATE, INTEGER + DATE too; DATE - DATE
 * is the BIGINT days between them (a DATE is its midnight here, so date_diff('day', b, a) is
 * exact). DuckDB has no DATE + BIGINT (a column: cast it to INTEGER), no DATE + DATE, no DATE -
 * TIMESTAMP (an INTERVAL).
 * @throws CanopyError CANOPY_ERR_TYPE for the operators and operands DuckDB refuses
 */
function dateArith<E>(op: string, n: Node, l: Typed<E> & { readonly litType: ColumnType | 'null' | null }, r: Typed<E> & { readonly litType: ColumnType | 'null' | null }, leaves: Leaves<E>): Typed<E> {
  const b = leaves.build;
  const text = `${l.text} ${op} ${r.text}`;
  if (op === '-' && l.type === 'date' && r.type === 'date') {
    const day = b({ kind: 'lit', value: 'day', type: 'string' });
    return { expr: b({ kind: 'call', fn: 'date_diff', args: [day, r.expr, l.expr], type: 'int64' }), type: 'int64', text };
  }
  const dateLeft = l.type === 'date' && l.litType !== 'null';
  const [d, k, kNode] = dateLeft ? [l, r, n.right] : [r, l, n.left];
  // DuckDB's INTEGER or narrower: a literal within 32 bits, a cast to INTEGER / SMALLINT /
  // TINYINT, arithmetic DuckDB computes in them (2 * 3); not a BIGINT (a column). (Arithmetic
  // over an unsigned cast is refused before here.)
  const width = duckWidth(kNode);
  const integer = k.type === 'int64' && (narrowWidth(kNode, k.expr) !== null || (typeof width === 'number' ? width <= 32 : width.type === 32));
  if ((op !== '+' && op !== '-') || (op === '-' && !dateLeft) || d.type !== 'date' || !integer) {
    return fail('CANOPY_ERR_TYPE', `operator '${op}' over '${l.text}' (${l.type === 'date' ? 'DATE' : l.type}) and '${r.text}' (${r.type === 'date' ? 'DATE' : r.type}) is not defined, as in DuckDB: a DATE takes + or - an INTEGER (days), DATE - DATE (days), or ± an INTERVAL`);
  }
  const lit = readLiteral(kNode);
  if (lit?.kind === 'null') {
    // DATE + NULL is a NULL DATE, once the DATE is computed (its errors stand).
    const none = b({ kind: 'lit', value: null, type: 'date' });
    return { expr: b({ kind: 'case', operand: null, whens: [{ when: b({ kind: 'isnull', arg: d.expr, negated: false }), then: none }], else: none, type: 'date' }), type: 'date', text };
  }
  if (lit?.kind === 'number') {
    const days = Number(lit.text) * (op === '-' ? -1 : 1);
    return { expr: b({ kind: 'interval', arg: d.expr, months: 0, micros: days * DAY_MICROS + 0 }), type: 'date', text };
  }
  // A computed INTEGER: make_timestamp(epoch_us(d) ± k · 86400000000), in int64 (an overflow, or
  // a day past canopy's years, is refused, where DuckDB answers days up to 5 million years out).
  const us = b({ kind: 'extract', field: 'epoch_us', arg: d.expr, type: 'int64' });
  const span = b({ kind: 'arith', op: '*', left: k.expr, right: b({ kind: 'lit', value: BigInt(DAY_MICROS), type: 'int64' }), type: 'int64' });
  const sum = b({ kind: 'arith', op: op === '-' ? '-' : '+', left: us, right: span, type: 'int64' });
  return { expr: b({ kind: 'call', fn: 'make_timestamp', args: [sum], type: 'timestamp' }), type: 'date', text };
}

/**
 * DuckDB's DATE functions: `last_day(x)` (a timestamp or DATE; the DATE of its month's last
 * day: the month's first midnight plus a month less a day) and `make_date(year, month, day)`
 * (integers; the DATE, or an error for an impossible date, as make_timestamp refuses it);
 * NULL arguments give a NULL DATE.
 * @throws CanopyError CANOPY_ERR_BAD_QUERY (the wrong number of arguments), CANOPY_ERR_TYPE
 */
function lowerDateFunction<E>(name: 'last_day' | 'make_date', argNodes: readonly unknown[], leaves: Leaves<E>): Typed<E> {
  const b = leaves.build;
  if (name === 'last_day') {
    if (argNodes.length !== 1) fail('CANOPY_ERR_BAD_QUERY', `last_day takes 1 argument (a timestamp or DATE), not ${argNodes.length}`);
    if (readLiteral(argNodes[0])?.kind === 'null') return { expr: b({ kind: 'lit', value: null, type: 'date' }), type: 'date', text: 'last_day(NULL)' };
    refuseUntyped('last_day', argNodes[0], false);
    const x = operandOf(argNodes[0], leaves);
    if (x.type !== 'timestamp' && x.type !== 'date') fail('CANOPY_ERR_TYPE', `last_day needs a timestamp or DATE; '${x.text}' is ${x.type}`);
    const month = b({ kind: 'date_trunc', unit: 'month', arg: x.expr });
    return { expr: b({ kind: 'interval', arg: month, months: 1, micros: -DAY_MICROS }), type: 'date', text: `last_day(${x.text})` };
  }
  if (argNodes.length !== 3) fail('CANOPY_ERR_BAD_QUERY', `make_date takes 3 arguments (year, month, day), not ${argNodes.length}`);
  const args = argNodes.map((m) => operandOf(m, leaves));
  for (const a of args) if (a.type !== 'int64' && a.litType !== 'null') fail('CANOPY_ERR_TYPE', `make_date needs integers (year, month, day); '${a.text}' is ${a.type}`);
  const zero = b({ kind: 'lit', value: 0n, type: 'int64' });
  const seconds = b({ kind: 'lit', value: 0, type: 'float64' });
  return { expr: b({ kind: 'call', fn: 'make_timestamp', args: [...args.map((a) => a.expr), zero, zero, seconds], type: 'timestamp' }), type: 'date', text: `make_date(${args.map((a) => a.text).join(', ')})` };
}

/** A string's DATE as DuckDB casts it, or null where DuckDB does not read it as one (TRY_CAST's NULL); canopy's refusals stand. */
function castValueOrNull(text: string): Scalar {
  return castValue(text, 'date', true);
}

/**
 * An operand of ||, concat or concat_ws: a timestamp cast to its text ('2024-01-01 00:00:00',
 * as DuckDB's implicit cast to VARCHAR), since the evaluators see only its µs; others as they are.
 */
function timestampAsText<E>(b: (node: ScalarNode<E>) => E, x: Typed<E>): E {
  return x.type === 'timestamp' || x.type === 'date' ? b({ kind: 'cast', arg: x.expr, type: 'string', try: false, from: x.type }) : x.expr;
}

/**
 * The width DuckDB gives an integer argument when it is narrower than BIGINT: 32 for an integer
 * literal within 32 bits (INTEGER) or NULL, the width of a cast to INTEGER, SMALLINT or
 * TINYINT; null otherwise (a BIGINT).
 */
function narrowWidth(node: unknown, expr: unknown): number | null {
  const literal = readLiteral(node);
  if (literal?.kind === 'number') return /^-?\d+$/.test(literal.text) && BigInt(literal.text) >= -(2n ** 31n) && BigInt(literal.text) < 2n ** 31n ? 32 : null;
  if (literal?.kind === 'null') return 32;
  const e = expr as { kind?: string; bits?: number };
  return e.kind === 'cast' && e.bits !== undefined ? e.bits : null;
}

/**
 * printf(format, ...) / format(format, ...): a string literal format whose every specifier
 * canopy formats as DuckDB ({@link printfParts}, {@link formatParts}) and names an argument
 * that exists, of a type the specifier takes (%s and {}: a string, boolean or BIGINT for format,
 * a string or boolean for %s; %d %x %X %o: a BIGINT). Doubles and timestamps are refused (fmt's
 * digits are not canopy's).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED, CANOPY_ERR_BAD_QUERY (a missing argument), CANOPY_ERR_TYPE (a value the specifier does not take)
 */
function checkFormatCall(fn: 'printf' | 'format', argNodes: readonly unknown[], args: readonly (Typed<unknown> & { readonly litType: ColumnType | 'null' | null })[]): void {
  const format = readLiteral(argNodes[0]);
  if (format?.kind !== 'string') fail('CANOPY_ERR_UNSUPPORTED', `${fn} takes a string literal format`);
  const parts = fn === 'printf' ? printfParts(format.value) : formatParts(format.value);
  for (const p of parts) {
    if ('text' in p) continue;
    const a = args[p.arg + 1];
    if (a === undefined) fail('CANOPY_ERR_BAD_QUERY', `${fn}: argument index "${p.arg}" out of range (the format names more values than are given)`);
    if (a.litType === 'null') continue;
    // A HUGEINT takes the decimal and sign-and-magnitude conversions (printf's %x of a negative is two's complement in 64 bits).
    const int = a.type === 'int64' || (a.type === 'int128' && (p.conv === 'd' || p.signed === true));
    const ok = p.conv !== 's' ? int : a.type === 'string' || a.type === 'bool' || (fn === 'format' && (a.type === 'int64' || a.type === 'int128'));
    if (!ok) fail(a.type === 'float64' || a.type === 'timestamp' || a.type === 'int128' ? 'CANOPY_ERR_UNSUPPORTED' : 'CANOPY_ERR_TYPE', `${fn}: '${a.text}' is ${a.type}, which ${p.conv === 's' ? (fn === 'format' ? '{}' : '%s') : `%${p.conv}`} does not take here${a.type === 'float64' ? ' (canopy does not format doubles as fmt does; cast to VARCHAR first)' : ''}`);
  }
}

/**
 * regexp_replace(s, pattern, replacement[, options]) and regexp_extract(s, pattern[, group[, options]]):
 * the pattern, replacement, group and options literals, checked as DuckDB binds them (a group
 * from 0 to 9; options i and c, and g for regexp_replace).
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED (a non-literal, an option or rewrite canopy does not read), CANOPY_ERR_BAD_QUERY (a bad pattern or group)
 */
function checkRegexCall(fn: 'regexp_replace' | 'regexp_extract', argNodes: readonly unknown[]): void {
  const lits = argNodes.slice(1).map((m) => readLiteral(m));
  const groupAt = fn === 'regexp_extract' ? 1 : -1;
  if (lits.some((l, k) => (k === groupAt ? l?.kind !== 'number' : l?.kind !== 'string'))) {
    fail('CANOPY_ERR_UNSUPPORTED', fn === 'regexp_replace' ? 'regexp_replace takes string literals as pattern, replacement and options' : 'regexp_extract takes a string literal pattern, an integer literal group and string literal options');
  }
  const text = (k: number): string => (lits[k]?.kind === 'string' ? lits[k].value : '');
  const options = text(2);
  checkRegex(text(0), fn === 'regexp_replace' ? options.replaceAll('g', '') : options, fn);
  // \B (not a word boundary) matches between the bytes of one multi-byte character in RE2,
  // which DuckDB's replace and extract then split (invalid UTF-8); canopy searches code points.
  if (/(^|[^\\])(\\\\)*\\B/.test(text(0))) fail('CANOPY_ERR_UNSUPPORTED', `${fn}: \\B is not supported (RE2 matches it inside multi-byte characters, where DuckDB splits them)`);
  if (fn === 'regexp_replace') checkRewrite(text(1));
  const group = lits[1];
  if (fn === 'regexp_extract' && group !== undefined) {
    const g = group?.kind === 'number' ? group.text : '';
    if (!/^\d+$/.test(g) || Number(g) > 9) fail('CANOPY_ERR_BAD_QUERY', `regexp_extract: group index must be between 0 and 9, not ${g}`);
  }
}

export const ARITHMETIC_OPERATORS = new Set(['+', '-', '*', '/', '%', '^', '||', '&', '|', '#', '<<', '>>', 'DIV', 'MOD']);

/** Names the construct `n` uses that canopy does not support. */
export function unsupportedMessage(n: unknown, clause: string): string {
  if (!isNode(n)) return `this expression is not supported in ${clause}`;
  if (n.ast != null) return SUBQUERY;
  if (n.over != null) return 'window functions (OVER) are not supported';
  const op = upper(n.operator);
  switch (n.type) {
    case 'binary_expr':
      return ARITHMETIC_OPERATORS.has(op)
        ? `arithmetic operator '${op}' is not supported; canopy computes + - * / // % ^ ** & | << >> and ||`
        : `operator '${op}' is not supported in ${clause}`;
    case 'unary_expr':
      return `unary operator '${op}' is not supported here`;
    case 'window_func':
      return 'window functions (OVER) are not supported';
    case 'interval':
      return `an INTERVAL is not an answer value: ${INTERVAL_USES}`;
    case 'function': {
      const name = functionName(n);
      return `function '${name}' is not supported${didYouMean(name, SUPPORTED_FUNCTION_NAMES)}; supported: ${SUPPORTED_FUNCTIONS}`;
    }
    case 'expr_list':
      return `a row value such as (a, b) is not supported in ${clause}; compare column by column: (a = 1 AND b = 2) OR (a = 3 AND b = 4)`;
    case 'aggr_func':
      return `aggregate function '${str(n.name)?.toLowerCase() ?? '?'}' is not supported; supported: ${SUPPORTED_AGGREGATES}`;
    case 'double_quote_string':
      return `"${String(n.value)}" in double quotes is a name, not a string, and is not supported in ${clause}; write a string in single quotes: '${String(n.value)}'`;
    case 'var':
    case 'param': {
      const name = n.type === 'var' ? `${typeof n.prefix === 'string' ? n.prefix : ''}${String(n.name)}` : `:${String(n.value)}`;
      return `parameter ${name} has no value: SQL sent as text takes values as literals ('ORD', 42); only the PostgreSQL protocol binds parameters, $1 for the first`;
    }
    default:
      return `${typeof n.type === 'string' ? `expression '${n.type}'` : 'this expression'} is not supported in ${clause}`;
  }
}
