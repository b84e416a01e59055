/**
 * The planner's guard against silently dropped syntax: after a SELECT has been planned, every
 * field of every AST node node-sql-parser produced must be one the planner reads (or empty).
 * A field it does not read, such as `column_ref.options` that holds `AT TIME ZONE`, would
 * otherwise change nothing in the plan and the answer would be labelled exact for a different
 * query. So any such field refuses the query with CANOPY_ERR_UNSUPPORTED naming it.
 *
 * The tables below list, per node type, the fields src/root/sql/ consumes; a node type not
 * listed is one the planner refuses by itself (CASE, CAST, INTERVAL, ...), so its fields are
 * not walked. Type-less nodes (FROM items, GROUP BY, ORDER BY items, LIMIT, column names,
 * function names, aggregate arguments) are checked at their positions.
 */
import { CanopyError, type SourcePosition } from '../../merge/index.ts';
import { STRING_AGG_NAMES } from './expressions.ts';

type Node = { readonly [key: string]: unknown };

const isNode = (v: unknown): v is Node => typeof v === 'object' && v !== null && !Array.isArray(v);

/** Null, undefined, false, an empty list, or a node whose fields are all empty (`{ type: null }`). */
function isEmpty(v: unknown): boolean {
  if (v === null || v === undefined || v === false) return true;
  if (Array.isArray(v)) return v.length === 0;
  if (isNode(v)) return Object.values(v).every(isEmpty);
  return false;
}

/** Fields every node may carry: grouping parentheses and source locations change nothing. */
const ANY = ['type', 'loc', 'parentheses'] as const;

/** Fields of the SELECT statement the planner reads (the others it refuses when set). */
const SELECT_FIELDS = ['type', 'columns', 'from', 'where', 'groupby', 'having', 'orderby', 'limit', '_limit', 'distinct', 'into', 'with', '_next', 'set_op', 'window', 'options', 'parentheses_symbol', 'loc'];

/** Per expression node type, the fields the planner reads besides {@link ANY}. */
const EXPR_FIELDS: Readonly<Record<string, readonly string[]>> = {
  // exclude: `* EXCLUDE (...)`'s names (src/root/sql/front.ts), read by the SELECT list.
  // replace, rename: `* REPLACE (...)` / `* RENAME (...)` (src/root/sql/surface.ts), read by the SELECT list.
  // escape (here, on null and on strings): a LIKE pattern's ESCAPE (`s LIKE p ESCAPE '!'`), read by the LIKE.
  column_ref: ['table', 'column', 'db', 'schema', 'collate', 'exclude', 'replace', 'rename', 'escape'],
  // escape: a LIKE pattern that is an expression (`s LIKE 'a' || '%' ESCAPE '!'`), read by the LIKE.
  binary_expr: ['operator', 'left', 'right', 'escape'],
  unary_expr: ['operator', 'expr'],
  // separator: position(x IN y) (the IN is read as a middle `origin` argument, which only position() takes).
  // escape: a LIKE pattern that is a call (`s LIKE lower(p) ESCAPE '!'`, also a collated pattern
  // src/root/sql/collate.ts rewrites over its key), read by the LIKE.
  function: ['name', 'args', 'over', 'filter', 'separator', 'escape'],
  // within_group_orderby: percentile_cont / percentile_disc / mode's WITHIN GROUP (ORDER BY x), read by src/root/sql/aggregates.ts.
  aggr_func: ['name', 'args', 'over', 'filter', 'within_group_orderby'],
  expr_list: ['value', 'separator'],
  number: ['value'],
  bigint: ['value'],
  single_quote_string: ['value', 'escape'],
  bool: ['value'],
  null: ['value', 'escape'],
  timestamp: ['value'],
  date: ['value'],
  star: ['value'],
  default: ['value'],
  origin: ['value'],
  case: ['expr', 'args'],
  when: ['cond', 'result'],
  else: ['result'],
  // try: TRY_CAST (src/root/sql/surface.ts), read by the cast's lowering.
  cast: ['keyword', 'expr', 'symbol', 'target', 'try'],
  interval: ['expr', 'unit'],
  extract: ['args'],
};

/** Where in the query a construct is, for the error: the offset of `pattern` in the SQL, if found. */
function positionOf(sql: string, pattern: RegExp): SourcePosition | undefined {
  const m = pattern.exec(sql);
  if (m === null) return undefined;
  const before = sql.slice(0, m.index);
  const lineStart = before.lastIndexOf('\n') + 1;
  return { line: before.split('\n').length, column: m.index - lineStart + 1, offset: m.index };
}

class Guard {
  constructor(
    private readonly sql: string,
    /** Before subqueries are merged (src/root/sql/flatten.ts): WITH and derived tables in FROM are allowed, not walked. */
    private readonly beforeMerge = false,
  ) {}

  fail(message: string, position?: SourcePosition): never {
    throw new CanopyError('CANOPY_ERR_UNSUPPORTED', message, position === undefined ? {} : { position });
  }

  /** Refuses any non-empty field of `n` outside `allowed`. */
  fields(n: Node, allowed: readonly string[], what: string): void {
    for (const [k, v] of Object.entries(n)) {
      if (allowed.includes(k) || (ANY as readonly string[]).includes(k) || isEmpty(v)) continue;
      if (k === 'options' && n.type === 'column_ref' && JSON.stringify(v).toLowerCase().includes('at time zone')) {
        this.fail("AT TIME ZONE is not supported (timestamps are UTC); drop it, or compute in UTC", positionOf(this.sql, /\bAT\s+TIME\s+ZONE\b/i));
      }
      this.fail(`the parser read '${k}' on ${what}, which canopy's planner does not use; the query is refused rather than answered without it`);
    }
  }

  /**
   * Checks an expression tree, iteratively: a chain of 10,000 OR'ed terms is a left-deep tree
   * as deep as it is long, which a recursive walk could not take. Children are visited left
   * first, so the first offending field in the text is the one named.
   */
  expr(root: unknown): void {
    const stack: unknown[] = [root];
    const push = (...children: unknown[]): void => {
      for (let i = children.length - 1; i >= 0; i--) stack.push(children[i]);
    };
    while (stack.length > 0) {
      const v = stack.pop();
      if (Array.isArray(v)) {
        push(...v);
        continue;
      }
      if (!isNode(v)) continue;
      const type = typeof v.type === 'string' ? v.type : null;
      const allowed = type === null ? undefined : EXPR_FIELDS[type];
      if (allowed === undefined) continue; // a node type the planner refuses by itself
      this.fields(v, allowed, `a ${type} node`);
      switch (type) {
        case 'column_ref':
          if (isNode(v.column)) {
            this.fields(v.column, ['expr'], 'a column name');
            push(v.column.expr);
          }
          if (Array.isArray(v.replace)) push(...v.replace.map((r: unknown) => (isNode(r) ? r.expr : null)));
          break;
        case 'binary_expr':
          push(v.left, v.right);
          break;
        case 'unary_expr':
          push(v.expr);
          break;
        case 'function':
          if (isNode(v.name)) {
            this.fields(v.name, ['name', 'schema'], 'a function name');
            for (const part of Array.isArray(v.name.name) ? v.name.name : []) if (isNode(part)) this.fields(part, ['value'], 'a function name');
          }
          push(v.args, this.filterWhere(v.filter));
          break;
        case 'aggr_func':
          if (isNode(v.args)) {
            // string_agg / group_concat read ORDER BY and a separator inside the call (planned by src/root/sql/aggregates.ts).
            const ordered = STRING_AGG_NAMES.has(String(v.name).toLowerCase());
            this.fields(v.args, ordered ? ['expr', 'distinct', 'value', 'orderby', 'separator'] : ['expr', 'distinct', 'value'], 'aggregate arguments');
            push(v.args.expr, v.args.value);
            if (ordered) {
              for (const o of Array.isArray(v.args.orderby) ? v.args.orderby : []) if (isNode(o)) push(o.expr);
              if (isNode(v.args.separator)) push(v.args.separator.delimiter);
            }
          }
          for (const o of Array.isArray(v.within_group_orderby) ? v.within_group_orderby : []) {
            if (!isNode(o)) continue;
            this.fields(o, ['expr', 'type', 'nulls'], 'WITHIN GROUP (ORDER BY ...)');
            push(o.expr);
          }
          push(this.filterWhere(v.filter));
          break;
        case 'expr_list':
          push(v.value);
          break;
        case 'case':
          push(v.expr, v.args);
          break;
        case 'when':
          push(v.cond, v.result);
          break;
        case 'else':
          push(v.result);
          break;
        case 'cast':
          for (const t of Array.isArray(v.target) ? v.target : []) if (isNode(t)) this.fields(t, ['dataType', 'suffix', 'length', 'parentheses', 'scale'], 'a CAST type');
          push(v.expr);
          break;
        case 'interval':
          push(v.expr);
          break;
        case 'extract':
          if (isNode(v.args)) {
            this.fields(v.args, ['field', 'source', 'cast_type'], 'extract arguments');
            push(v.args.source);
          }
          break;
        default:
          break;
      }
    }
  }

  /** The condition of FILTER (WHERE ...), its other fields checked. */
  filterWhere(f: unknown): unknown {
    if (!isNode(f)) return undefined;
    this.fields(f, ['keyword', 'where'], 'FILTER');
    return f.where;
  }

  select(s: Node): void {
    this.fields(s, SELECT_FIELDS, 'the SELECT statement');
    // The outer SELECT's DISTINCT ON is planned before this check (its columns taken off); one
    // still here sits in a subquery or WITH.
    if (isNode(s.distinct) && !isEmpty(s.distinct.columns)) this.fail('DISTINCT ON inside a subquery (or WITH) is not supported; canopy merges subqueries that only select and filter the rows of one table: put DISTINCT ON on the outer SELECT', positionOf(this.sql, /\bDISTINCT\s+ON\b/i));
    if (isNode(s.distinct)) this.fields(s.distinct, ['type'], 'SELECT DISTINCT');
    // Clauses the planner only checks are unset: they must be empty all through.
    for (const k of ['with', '_next', 'set_op', 'window', 'options', 'into']) {
      if (k === 'with' && this.beforeMerge) continue;
      if (!isEmpty(s[k]) && (k === '_next' || k === 'set_op')) this.fail('UNION, INTERSECT and EXCEPT are not supported; canopy answers one SELECT over one table');
      if (!isEmpty(s[k])) this.fail(`the parser read '${k}' on the SELECT statement, which canopy's planner does not use; the query is refused rather than answered without it`);
    }
    for (const c of Array.isArray(s.columns) ? s.columns : []) {
      if (!isNode(c)) continue;
      this.fields(c, ['expr', 'as'], 'a SELECT item');
      this.expr(c.expr);
    }
    for (const f of Array.isArray(s.from) ? s.from : []) {
      if (!isNode(f)) continue;
      const derived = this.beforeMerge && isNode(f.expr) && isNode(f.expr.ast);
      this.fields(f, derived ? ['prefix', 'expr', 'as'] : ['db', 'schema', 'table', 'as'], 'a FROM item');
    }
    this.expr(s.where);
    if (isNode(s.groupby)) {
      this.fields(s.groupby, ['columns'], 'GROUP BY');
      this.expr(s.groupby.columns);
    }
    this.expr(s.having);
    for (const o of Array.isArray(s.orderby) ? s.orderby : []) {
      if (!isNode(o)) continue;
      this.fields(o, ['expr', 'nulls'], 'an ORDER BY item');
      this.expr(o.expr);
    }
    // `_limit`: a LIMIT written after OFFSET (see readLimit).
    const trailing = (s as { _limit?: unknown })._limit;
    if (isNode(trailing)) {
      this.fields(trailing, ['seperator', 'value'], 'LIMIT');
      this.expr(trailing.value);
    }
    if (isNode(s.limit)) {
      this.fields(s.limit, ['seperator', 'value'], 'LIMIT');
      this.expr(s.limit.value);
    }
  }
}

/**
 * Refuses a planned SELECT whose AST holds a field the planner does not read.
 * @param select the statement node the planner planned
 * @param sql the query text (for the position of AT TIME ZONE)
 * @param beforeMerge the statement is checked before its subqueries are merged into it (each is
 *   checked when merged): WITH and derived tables in FROM pass, their fields checked by the merge
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED naming the construct or field
 */
export function guardUnreadFields(select: unknown, sql: string, beforeMerge = false): void {
  if (isNode(select)) new Guard(sql, beforeMerge).select(select);
}
