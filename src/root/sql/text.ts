/**
 * The name of an unaliased condition in the SELECT list (`SELECT delay > 15, avg(delay) > 10
 * ...`), written from the parsed node as the query wrote it: `delay > 15`, `avg(delay) > 10`,
 * `origin IN ('ORD', 'ATL')`, `delay BETWEEN 1 AND 5`, `NOT origin LIKE 'S%'` (the spelling of
 * the other expression names: src/root/sql/expressions.ts). Conditions were all named
 * `condition`, so two of them gave one answer two columns of one name.
 */
import { type Node, isNode, listItems, str, upper } from './ast.ts';
import { functionName } from './expressions.ts';
import { columnRef } from './scope.ts';

/** Deeper nodes, or a longer text, make no useful name: {@link conditionText} gives up (the caller's fallback). */
const MAX_DEPTH = 24;
const MAX_LENGTH = 256;

/** Operators written between their operands (upper-cased as the grammar gives them). */
const INFIX = new Set(['=', '==', '<>', '!=', '<', '<=', '>', '>=', 'AND', 'OR', 'LIKE', 'NOT LIKE', 'ILIKE', 'NOT ILIKE', '+', '-', '*', '/', '%', '||', '~', '!~', 'IS', 'IS NOT', 'IS DISTINCT FROM', 'IS NOT DISTINCT FROM', 'SIMILAR TO', 'NOT SIMILAR TO', 'GLOB']);

/**
 * The SQL text of a condition node for a column name, without the node's own parentheses (the
 * caller, lowerScalar, adds them), or null when a part of it is not one this writes (the
 * caller names it `condition`) or it is deeper or longer than a name should be.
 */
export function conditionText(n: unknown): string | null {
  const t = isNode(n) ? bare(n, 1) : null;
  return t === null || t.length > MAX_LENGTH ? null : t;
}

function textOf(n: unknown, depth: number): string | null {
  if (!isNode(n) || depth > MAX_DEPTH) return null;
  const t = bare(n, depth + 1);
  if (t === null) return null;
  return n.parentheses === true && (n.type === 'binary_expr' || n.type === 'unary_expr') ? `(${t})` : t;
}

/** The texts of `nodes`, or null when one has none. */
function textsOf(nodes: readonly unknown[], depth: number): string[] | null {
  const out: string[] = [];
  for (const x of nodes) {
    const t = textOf(x, depth);
    if (t === null) return null;
    out.push(t);
  }
  return out;
}

function bare(n: Node, depth: number): string | null {
  switch (n.type) {
    case 'column_ref': {
      const ref = columnRef(n);
      if (ref === null || ref.name === '*') return null;
      return ref.qualifier === null ? ref.name : `${ref.qualifier}.${ref.name}`;
    }
    case 'number':
    case 'bigint':
      return typeof n.value === 'number' || typeof n.value === 'string' || typeof n.value === 'bigint' ? String(n.value) : null;
    case 'single_quote_string':
      return typeof n.value === 'string' && n.escape == null ? `'${n.value}'` : null; // the value as written, quotes doubled
    case 'bool':
      return n.value === true ? 'TRUE' : n.value === false ? 'FALSE' : null;
    case 'null':
      return n.escape == null ? 'NULL' : null;
    case 'unary_expr': {
      const op = upper(n.operator);
      const x = textOf(n.expr, depth);
      if (x === null) return null;
      return op === 'NOT' ? `NOT ${x}` : op === '-' || op === '+' ? `${op}${x}` : null;
    }
    case 'binary_expr': {
      const op = upper(n.operator);
      if (isNode(n.right) && n.right.escape != null) return null;
      const l = textOf(n.left, depth);
      if (l === null) return null;
      if (op === 'IN' || op === 'NOT IN' || op === 'BETWEEN' || op === 'NOT BETWEEN') {
        const items = isNode(n.right) && n.right.type === 'expr_list' ? textsOf(listItems(n.right), depth) : null;
        if (items === null) return null;
        if (op.endsWith('IN')) return `${l} ${op} (${items.join(', ')})`;
        return items.length === 2 ? `${l} ${op} ${items[0]} AND ${items[1]}` : null;
      }
      if (!INFIX.has(op)) return null;
      const r = textOf(n.right, depth);
      return r === null ? null : `${l} ${op} ${r}`;
    }
    case 'function': {
      if (n.over != null || n.filter != null) return null;
      const args = textsOf(listItems(n.args), depth);
      return args === null ? null : `${functionName(n).toLowerCase()}(${args.join(', ')})`;
    }
    case 'aggr_func': {
      const args = isNode(n.args) ? n.args : null;
      const name = (str(n.name) ?? '').toLowerCase();
      if (n.over != null || n.filter != null || args === null || args.orderby != null || args.separator != null || name === '') return null;
      if (isNode(args.expr) && args.expr.type === 'star') return name === 'count' ? 'count_star()' : null;
      const arg = textOf(args.expr, depth);
      if (arg === null) return null;
      return `${name}(${upper(args.distinct) === 'DISTINCT' ? 'DISTINCT ' : ''}${arg})`;
    }
    default:
      return null;
  }
}
