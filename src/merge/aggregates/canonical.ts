/**
 * A canonical string of a row-level expression, for deduplicating partials (two calls over
 * equal expressions share one partial) and for keys of plan caches. Independent of the
 * order of object fields and of Expr kinds yet to come: it walks any JSON-like tree,
 * tagging bigints and -0 so that distinct values give distinct strings.
 */
export function canonicalExpr(e: unknown): string {
  if (e === null || e === undefined) return 'null';
  if (typeof e === 'bigint') return `${e}n`;
  if (typeof e === 'number') return Object.is(e, -0) ? '-0' : Number.isNaN(e) ? 'NaN' : String(e);
  if (typeof e === 'string') return JSON.stringify(e);
  if (typeof e === 'boolean') return String(e);
  if (Array.isArray(e)) return `[${e.map(canonicalExpr).join(',')}]`;
  const o = e as Record<string, unknown>;
  const keys = Object.keys(o)
    .filter((k) => o[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalExpr(o[k])}`).join(',')}}`;
}
