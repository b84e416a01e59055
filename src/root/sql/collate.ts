/**
 * DuckDB's COLLATE on a column or a string literal (`'HELLO' COLLATE NOCASE`, read as the call
 * src/root/sql/front.ts rewriteLiteralCollations makes), where canopy reads it: in a
 * comparison (`s COLLATE NOCASE = 'hello'`, `<`, `IN`, `BETWEEN`, `IS [NOT] DISTINCT FROM`), in
 * `[NOT] LIKE`, `[NOT] ILIKE` and `GLOB`, as an argument of strpos / instr / position, contains
 * and starts_with (`^@`), and as an ORDER BY key. DuckDB compares and sorts collated strings
 * by their collation key, which for its built-in collations is a function of the string
 * (src/function/scalar/string/*.cpp, collations registered in src/main/config.cpp /
 * PushCollation): NOCASE is lower(x), NOACCENT strip_accents(x), NFC nfc_normalize(x); C,
 * POSIX and BINARY compare the bytes. A dotted name (`NOCASE.NOACCENT`, also in double quotes)
 * applies each in the order written. In a comparison, a LIKE and those functions (DuckDB's
 * PUSH_COMBINABLE_COLLATIONS, checked one by one against DuckDB: ends_with, prefix, suffix,
 * SIMILAR TO and regexp_matches ignore the collation, so there it is refused) every string
 * operand takes the collation (DuckDB casts the others to the collated type), so the node is
 * rewritten over the keys; an ORDER BY key is sorted by its key (ties are then broken by the
 * output columns, as canopy breaks every ORDER BY tie).
 */
import { type Node, type Select, isNode, upper, visitNodes } from './ast.ts';
import { fail } from './errors.ts';
import { LITERAL_COLLATE_MARK } from './front.ts';

/** DuckDB's built-in collations, lower-cased, to the function giving their key (null: the bytes). */
const COLLATIONS: Readonly<Record<string, string | null>> = { nocase: 'lower', noaccent: 'strip_accents', nfc: 'nfc_normalize', c: null, posix: null, binary: null };

/** The comparison and matching operators whose operands share a collation. */
const COMPARING: ReadonlySet<string> = new Set(['=', '==', '!=', '<>', '<', '<=', '>', '>=', 'IN', 'NOT IN', 'BETWEEN', 'NOT BETWEEN', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM', 'LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE', 'GLOB']);

/** The functions whose string arguments share a collation (DuckDB pushes it into them). */
const PUSHING: ReadonlySet<string> = new Set(['strpos', 'instr', 'position', 'contains', 'starts_with']);

/** Why a COLLATE is refused where canopy does not apply it. */
export const COLLATE_ELSEWHERE = "COLLATE is supported on a string compared (=, <, IN, BETWEEN, IS DISTINCT FROM, LIKE, ILIKE, GLOB), as an argument of strpos, instr, position, contains or starts_with, or as an ORDER BY key; elsewhere (a SELECT item, GROUP BY, another function's argument) DuckDB's collation changes grouping, DISTINCT or results, which canopy does not follow";

/** The lower-cased name of a function node, or null. */
function callName(n: unknown): string | null {
  if (!isNode(n) || n.type !== 'function' || !isNode(n.name) || !Array.isArray(n.name.name)) return null;
  const parts = n.name.name as unknown[];
  const last = parts[parts.length - 1];
  return parts.length === 1 && isNode(last) && typeof last.value === 'string' ? last.value.toLowerCase() : null;
}

/** A literal's COLLATE call (`"~collate"('lit', 'NOCASE')`): its literal and its collation's name; null for any other node. */
function literalCollate(n: unknown): { value: unknown; name: string } | null {
  if (callName(n) !== LITERAL_COLLATE_MARK || !isNode(n) || !isNode(n.args) || !Array.isArray(n.args.value)) return null;
  const [value, name] = n.args.value as unknown[];
  return isNode(name) && typeof name.value === 'string' ? { value, name: name.value } : null;
}

/**
 * The key functions of the collation named by `parts` (`['NOCASE', 'NOACCENT']`), in the order applied.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for an ICU collation (`de`, `ja`, ...: DuckDB's
 *   ICU extension orders by locale rules canopy does not have), CANOPY_ERR_BAD_QUERY for a name
 *   DuckDB does not know either
 */
function keyFunctions(parts: readonly string[]): string[] {
  if (parts.length === 0) fail('CANOPY_ERR_UNSUPPORTED', 'this COLLATE is not supported; canopy reads COLLATE NOCASE, NOACCENT, NFC, C, POSIX and BINARY');
  const fns: string[] = [];
  for (const part of parts) {
    const name = part.toLowerCase();
    if (!Object.hasOwn(COLLATIONS, name)) {
      if (/^[a-z]{2,3}(?:[_-][a-z0-9]+)*$|^icu_/i.test(name)) fail('CANOPY_ERR_UNSUPPORTED', `COLLATE ${part} is not supported: it is an ICU locale collation, whose rules canopy does not have; canopy reads COLLATE NOCASE, NOACCENT, NFC, C, POSIX and BINARY`);
      fail('CANOPY_ERR_BAD_QUERY', `Collation with name ${part} does not exist; canopy reads COLLATE NOCASE, NOACCENT, NFC, C, POSIX and BINARY`);
    }
    const fn = COLLATIONS[name];
    if (fn !== null && fn !== undefined) fns.push(fn);
  }
  return fns;
}

/**
 * The key functions of a column reference's or string literal's COLLATE, in the order applied;
 * null when it has none.
 * @throws CanopyError as {@link keyFunctions}; CANOPY_ERR_TYPE for an integer's COLLATE outside
 *   ORDER BY (DuckDB collates strings only)
 */
function collationOf(n: unknown): string[] | null {
  const literal = literalCollate(n);
  if (literal === null && (!isNode(n) || n.type !== 'column_ref' || !isNode(n.collate))) return null;
  // `1 COLLATE NOCASE` outside ORDER BY (where it is an ordinal, read in applyCollations).
  if (literal !== null && !(isNode(literal.value) && typeof literal.value.value === 'string')) fail('CANOPY_ERR_TYPE', 'COLLATE can only be applied to strings (DuckDB: collations are only supported for type varchar)');
  const spec = literal !== null ? { value: literal.name } : isNode(n) && isNode(n.collate) && isNode(n.collate.collate) ? n.collate.collate.name : undefined;
  return keyFunctions((Array.isArray(spec) ? spec : [spec]).flatMap((p) => (isNode(p) && typeof p.value === 'string' ? p.value.split('.') : [])));
}

/** `n` without its COLLATE, inside the collation's key functions (innermost first). */
function keyOf(n: unknown, fns: readonly string[]): unknown {
  const literal = literalCollate(n);
  let out: unknown = literal !== null ? literal.value : isNode(n) && n.type === 'column_ref' ? { ...n, collate: null } : n;
  for (const fn of fns) out = { type: 'function', name: { name: [{ type: 'default', value: fn }] }, args: { type: 'expr_list', value: [out] } };
  return out;
}

/** The operand slots of a comparison node: its left side, and its right side or the items of its list. */
function operandsOf(n: Record<string, unknown>): { get: () => unknown; set: (v: unknown) => void }[] {
  const slots = [{ get: () => n.left, set: (v: unknown) => { n.left = v; } }];
  const right = n.right;
  if (isNode(right) && right.type === 'expr_list' && Array.isArray(right.value)) {
    const items = right.value as unknown[];
    items.forEach((_, i) => slots.push({ get: () => items[i], set: (v: unknown) => { items[i] = v; } }));
  } else slots.push({ get: () => n.right, set: (v: unknown) => { n.right = v; } });
  return slots;
}

/** Rewrites one comparison whose operands include a collated column over the collation's keys. */
function collateComparison(n: Record<string, unknown>): void {
  const slots = operandsOf(n);
  const collations = slots.map((s) => collationOf(s.get())).filter((c): c is string[] => c !== null);
  if (collations.length === 0) return;
  const fns = collations[0]!;
  if (collations.some((c) => c.join('.') !== fns.join('.'))) fail('CANOPY_ERR_BAD_QUERY', 'Cannot combine types with different collation (as DuckDB refuses it)');
  const right = n.right;
  const escape = isNode(right) ? right.escape : undefined;
  if (isNode(escape) && fns.length > 0) {
    // DuckDB takes the collation's key of the ESCAPE character too: canopy keeps it as written,
    // so only one every key function leaves as it is (an ASCII character that is not a letter).
    const e = isNode(escape.value) ? escape.value.value : undefined;
    if (typeof e !== 'string' || ![...e].every((c) => c.charCodeAt(0) < 0x80 && !/[A-Za-z]/.test(c))) fail('CANOPY_ERR_UNSUPPORTED', `${upper(n.operator)} ... ESCAPE with COLLATE is supported with an escape that is not a letter (DuckDB takes the collation's key of the escape too)`);
    n.right = { ...(right as Node), escape: undefined };
  }
  for (const s of slots) s.set(keyOf(s.get(), fns));
  if (isNode(escape)) n.right = { ...(n.right as Node), escape };
}

/** Rewrites one call of a {@link PUSHING} function whose arguments include a collated one over the collation's keys. */
function collateCall(n: Record<string, unknown>): void {
  const args = isNode(n.args) && Array.isArray(n.args.value) ? (n.args.value as unknown[]) : [];
  const collations = args.map(collationOf).filter((c): c is string[] => c !== null);
  if (collations.length === 0) return;
  const fns = collations[0]!;
  if (collations.some((c) => c.join('.') !== fns.join('.'))) fail('CANOPY_ERR_BAD_QUERY', 'Cannot combine types with different collation (as DuckDB refuses it)');
  // position(a IN b) holds the IN keyword as an argument.
  args.forEach((a, i) => {
    if (!(isNode(a) && a.type === 'origin')) args[i] = keyOf(a, fns);
  });
}

/**
 * Rewrites COLLATE in the statement's comparisons, LIKE / ILIKE / GLOB and calls of the
 * functions DuckDB pushes collations into (WHERE, HAVING, SELECT items, ORDER BY expressions)
 * and on ORDER BY keys over the collation's key functions, in place. A column's COLLATE left
 * anywhere else (a SELECT item, GROUP BY, another function's argument, where DuckDB's collation
 * would change grouping, DISTINCT or a function's result) stays, for the column reader to
 * refuse; a literal's is refused here.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED (ICU collations, a COLLATE canopy does not apply,
 *   a letter as the ESCAPE of a collated LIKE), CANOPY_ERR_BAD_QUERY (unknown collations, two
 *   different ones combined)
 */
export function applyCollations(select: Select): void {
  const orderBy = (select as Node).orderby;
  for (const item of Array.isArray(orderBy) ? (orderBy as unknown[]) : []) {
    if (!isNode(item)) continue;
    const slot = item as Record<string, unknown>;
    const ordinal = literalCollate(item.expr);
    if (ordinal !== null && isNode(ordinal.value) && ordinal.value.type === 'number') {
      // `ORDER BY 1 COLLATE NOCASE`: the key of the select item the ordinal names.
      const columns = Array.isArray((select as Node).columns) ? ((select as Node).columns as unknown[]) : [];
      const k = Number(ordinal.value.value);
      if (!Number.isInteger(k) || k < 1 || k > columns.length) fail('CANOPY_ERR_BAD_QUERY', `ORDER term out of range - should be between 1 and ${columns.length}`);
      const named = columns[k - 1];
      const expr = isNode(named) ? named.expr : undefined;
      if (!isNode(expr) || expr.type === 'star' || (expr.type === 'column_ref' && expr.column === '*')) fail('CANOPY_ERR_UNSUPPORTED', 'ORDER BY an ordinal with COLLATE is supported when the ordinal names a select item that is not *');
      slot.expr = keyOf(structuredClone(expr), keyFunctions(ordinal.name.split('.')));
      continue;
    }
    const fns = collationOf(item.expr);
    if (fns !== null) slot.expr = keyOf(item.expr, fns);
  }
  const roots = [(select as Node).where, (select as Node).having, (select as Node).columns, (select as Node).orderby];
  for (const root of roots) {
    visitNodes(root, (v) => {
      if (v.type === 'binary_expr' && COMPARING.has(upper(v.operator))) collateComparison(v);
      if (PUSHING.has(callName(v) ?? '')) collateCall(v);
      // A subquery is its own statement (merged ones are already inlined).
      return v.type !== 'select';
    });
  }
  // A literal's COLLATE left anywhere else is refused, as a column's is (src/root/sql/scope.ts).
  visitNodes(select, (v) => {
    // (collationOf first: an integer's COLLATE is DuckDB's type error).
    if (literalCollate(v) !== null && collationOf(v) !== null) fail('CANOPY_ERR_UNSUPPORTED', COLLATE_ELSEWHERE);
    return v.type !== 'select' || v === select;
  });
}
