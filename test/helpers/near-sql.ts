/**
 * Test helpers: fast-check arbitraries for SQL-ish text over the flights table: valid
 * queries, and mutations of them (truncation, token deletion, swaps, duplication and
 * insertion of keywords, operators, quotes, parentheses and odd literals).
 */
import fc from 'fast-check';

/** Valid (or nearly valid) queries over the flights table to mutate. */
export const BASE_QUERIES: readonly string[] = [
  'SELECT count(*) FROM flights',
  'SELECT count(*) AS n, sum(delay) AS s, min(date), max(date), avg(distance) FROM flights',
  "SELECT origin, count(*) AS n FROM flights WHERE delay > 10 AND origin IN ('SFO', 'LAX') GROUP BY origin ORDER BY n DESC LIMIT 5",
  "SELECT date_trunc('day', date) AS d, avg(delay) FROM flights WHERE date BETWEEN '2001-01-01' AND '2001-02-01' GROUP BY 1 ORDER BY 1",
  'SELECT origin, destination, max(delay) FROM flights GROUP BY origin, destination HAVING max(delay) > 3 ORDER BY 3 DESC, 1 LIMIT 10',
  'SELECT origin, delay FROM flights WHERE delay IS NOT NULL AND NOT (distance < 500) ORDER BY delay DESC, origin LIMIT 20',
  'SELECT * FROM flights ORDER BY date LIMIT 7',
  "SELECT count(delay) FROM flights WHERE origin NOT IN ('ORD') OR destination <> 'JFK' OR delay NOT BETWEEN -5 AND 5",
  "SELECT date_trunc('month', date) AS m, origin AS o, sum(distance) AS s FROM flights GROUP BY m, o HAVING s >= 1000 ORDER BY s LIMIT 0",
  'SELECT min(origin), max(destination), count(origin) FROM flights WHERE date >= \'2001-01-02T00:00:00Z\' AND delay != -3',
];

/** Tokens inserted or substituted by mutations. */
export const ODD_TOKENS: readonly string[] = [
  // keywords
  'SELECT', 'FROM', 'WHERE', 'GROUP', 'BY', 'ORDER', 'HAVING', 'LIMIT', 'OFFSET', 'AND', 'OR', 'NOT', 'IN', 'BETWEEN',
  'IS', 'NULL', 'AS', 'ASC', 'DESC', 'JOIN', 'ON', 'UNION', 'OVER', 'DISTINCT', 'CASE', 'WHEN', 'THEN', 'END', 'WITH',
  'TRUE', 'FALSE', 'NULLS', 'FIRST', 'LAST', 'ALL', 'ANY', 'EXISTS', 'LIKE', 'CAST', 'INTERVAL',
  // operators and punctuation
  '=', '!=', '<>', '<', '<=', '>', '>=', '+', '-', '*', '/', '%', '||', '::', '(', ')', ',', ';', '.', "'", '"', '`', '$$', '--', '/*', '*/', '?', '$1', '@',
  // literals
  '0', '-1', '1.5', '1e309', '-0', '9223372036854775807', '9223372036854775808', '-9223372036854775809', '99999999999999999999',
  "''", "'x'", "'2001-01-01'", "'2001-13-45'", "'nope'", "'it''s'", "E'\\n'", 'NaN', "'Infinity'",
  // names and functions
  'flights', 'origin', 'delay', 'date', 'distance', 'destination', 'nope', '"origin"', '"Flights"', 'count(*)', 'count', 'sum', 'avg',
  'min', 'max', 'date_trunc', "date_trunc('fortnight', date)", "date_trunc('hour', origin)", 'approx_count_distinct', 'now()',
];

const TOKEN_RE = /'(?:[^']|'')*'?|"[^"]*"?|\d+(?:\.\d+)?(?:e[+-]?\d+)?|\w+|<=|>=|<>|!=|\|\||::|\S/gi;

/** Splits SQL into rough tokens (strings, numbers, words, operators). */
export function tokens(sql: string): string[] {
  return sql.match(TOKEN_RE) ?? [];
}

type Mutation =
  | { kind: 'truncate'; at: number }
  | { kind: 'delete'; at: number }
  | { kind: 'swap'; a: number; b: number }
  | { kind: 'duplicate'; at: number }
  | { kind: 'insert'; at: number; token: string }
  | { kind: 'replace'; at: number; token: string };

const mutationArb: fc.Arbitrary<Mutation> = fc.oneof(
  fc.record({ kind: fc.constant('truncate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('delete' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('swap' as const), a: fc.nat(), b: fc.nat() }),
  fc.record({ kind: fc.constant('duplicate' as const), at: fc.nat() }),
  fc.record({ kind: fc.constant('insert' as const), at: fc.nat(), token: fc.constantFrom(...ODD_TOKENS) }),
  fc.record({ kind: fc.constant('replace' as const), at: fc.nat(), token: fc.constantFrom(...ODD_TOKENS) }),
);

/** Applies one mutation to SQL text (positions taken modulo the text or token count). */
export function mutate(sql: string, m: Mutation): string {
  if (m.kind === 'truncate') return sql.slice(0, m.at % (sql.length + 1));
  const t = tokens(sql);
  if (t.length === 0) return m.kind === 'insert' || m.kind === 'replace' ? m.token : sql;
  const i = (m.kind === 'swap' ? m.a : m.at) % t.length;
  switch (m.kind) {
    case 'delete':
      t.splice(i, 1);
      break;
    case 'swap': {
      const j = m.b % t.length;
      [t[i], t[j]] = [t[j]!, t[i]!];
      break;
    }
    case 'duplicate':
      t.splice(i, 0, t[i]!);
      break;
    case 'insert':
      t.splice(m.at % (t.length + 1), 0, m.token);
      break;
    case 'replace':
      t[i] = m.token;
      break;
  }
  return t.join(' ');
}

/** A base query with 0 to 4 mutations applied. */
export const nearSqlArb: fc.Arbitrary<string> = fc
  .tuple(fc.constantFrom(...BASE_QUERIES), fc.array(mutationArb, { minLength: 0, maxLength: 4 }))
  .map(([base, ms]) => ms.reduce(mutate, base));
