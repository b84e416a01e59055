/**
 * Vectorised evaluation of row expressions over one batch: values (columns, literals,
 * date_trunc) and predicates in SQL three-valued logic. Each node runs one typed-array
 * loop over the batch; no per-row allocation on the fast paths.
 */
import { CanopyError, US_PER_DAY, compareSql, satisfies, scalarAt, truncMicros, type CmpOp, type ColumnType, type Expr, type Scalar, type ValueVec } from '../merge/index.ts';
import { isValid, type NumView, type PreparedShard } from './shard.ts';

/** Tri-state truth per row: 0 false, 1 unknown (NULL), 2 true. AND = min, OR = max, NOT = 2 - x. */
export type Tri = Uint8Array;
const F = 0;
const U = 1;
const T = 2;

export type { ValueVec };

const DAY = US_PER_DAY;

/** Context of one batch of one shard. */
export interface BatchCtx {
  readonly shard: PreparedShard;
  readonly batch: number;
  readonly rows: number;
  /**
   * Work meter of the scan: called with the rows of every operand evaluated inside an
   * AND/OR chain; counts them and throws (CANOPY_ERR_CANCELLED / CANOPY_ERR_DEADLINE) when
   * the scan must stop, so one long batch cannot outlive its query. Default: none.
   */
  readonly meter?: (rows: number) => void;
}

/** Type of an expression's values (for materialising scalars). */
export function typeOfExpr(e: Expr, shard: PreparedShard): ColumnType {
  switch (e.kind) {
    case 'col':
      return columnOf(shard, e.name).type;
    case 'lit':
      return e.type === 'null' ? 'int64' : e.type;
    case 'date_trunc':
      return 'timestamp';
    default:
      return 'bool';
  }
}

function columnOf(shard: PreparedShard, name: string) {
  const c = shard.columns.get(name);
  if (c === undefined) throw new CanopyError('CANOPY_ERR_UNKNOWN_COLUMN', `shard ${shard.id} has no column '${name}'; known: ${[...shard.columns.keys()].join(', ')}`);
  return c;
}

/**
 * Evaluates a value expression (column, literal, date_trunc) over a batch.
 * @throws CanopyError CANOPY_ERR_UNSUPPORTED for predicate nodes used as values.
 */
export function evalValue(e: Expr, ctx: BatchCtx): ValueVec {
  switch (e.kind) {
    case 'col':
      return columnOf(ctx.shard, e.name).batches[ctx.batch]!;
    case 'lit':
      return { t: 'const', value: e.value };
    case 'date_trunc': {
      const v = evalValue(e.arg, ctx);
      if (v.t === 'const') return { t: 'const', value: typeof v.value === 'number' ? truncMicros(v.value, e.unit) : null };
      if (v.t !== 'num') throw new CanopyError('CANOPY_ERR_TYPE', 'date_trunc needs a timestamp');
      const out = new Float64Array(ctx.rows);
      const src = v.values;
      if (e.unit === 'hour' || e.unit === 'day' || e.unit === 'week') {
        for (let i = 0; i < ctx.rows; i++) out[i] = truncMicros(src[i]!, e.unit);
      } else {
        // Month/year need the calendar: memoise per day.
        const memo = new Map<number, number>();
        for (let i = 0; i < ctx.rows; i++) {
          const day = Math.floor(src[i]! / DAY);
          let t = memo.get(day);
          if (t === undefined) {
            t = truncMicros(day * DAY, e.unit);
            memo.set(day, t);
          }
          out[i] = t;
        }
      }
      return { t: 'num', values: out, valid: v.valid, maxAbs: v.maxAbs, words: null } satisfies NumView;
    }
    default:
      throw new CanopyError('CANOPY_ERR_UNSUPPORTED', `a ${e.kind} expression cannot be used as a value`);
  }
}

export { scalarAt };

/**
 * Evaluates a predicate over a batch into tri-state truth values (length `ctx.rows`).
 * @throws CanopyError for expressions that are not predicates.
 */
export function evalPredicate(e: Expr, ctx: BatchCtx): Tri {
  const n = ctx.rows;
  switch (e.kind) {
    case 'and':
    case 'or': {
      const steps = chainSteps(e, ctx);
      for (;;) {
        const r = steps.next();
        if (r.done === true) return r.value;
      }
    }
    case 'not': {
      const out = evalPredicate(e.arg, ctx);
      for (let i = 0; i < n; i++) out[i] = T - out[i]!;
      return out;
    }
    case 'isnull': {
      const v = evalValue(e.arg, ctx);
      const out = new Uint8Array(n);
      const yes = e.negated ? F : T;
      const no = e.negated ? T : F;
      if (v.t === 'const') return out.fill(v.value === null ? yes : no);
      for (let i = 0; i < n; i++) out[i] = isValid(v.valid, i) ? no : yes;
      return out;
    }
    case 'between': {
      const ge = compare('>=', evalValue(e.arg, ctx), evalValue(e.lo, ctx), n);
      const le = compare('<=', evalValue(e.arg, ctx), evalValue(e.hi, ctx), n);
      for (let i = 0; i < n; i++) {
        const x = ge[i]! < le[i]! ? ge[i]! : le[i]!;
        ge[i] = e.negated ? T - x : x;
      }
      return ge;
    }
    case 'in':
      return evalIn(evalValue(e.arg, ctx), e.values, e.negated, n);
    case 'cmp':
      return compare(e.op, evalValue(e.left, ctx), evalValue(e.right, ctx), n);
    case 'lit': {
      const v = e.value;
      return new Uint8Array(n).fill(v === null ? U : v === true ? T : F);
    }
    default:
      throw new CanopyError('CANOPY_ERR_TYPE', `a ${e.kind} expression is not a condition`);
  }
}

/** Operands between which an AND/OR chain checks whether every row is already decided. */
const DECIDED_EVERY = 16;

/**
 * An AND/OR chain over a batch, one operand per step (the scan drives the top-level chain
 * and yields to the event loop between steps when a batch runs long). Stops early once
 * every row is decided (all FALSE for AND, all TRUE for OR); reports each operand's rows to
 * the meter, which may throw to stop the scan.
 */
export function* chainSteps(e: Extract<Expr, { kind: 'and' | 'or' }>, ctx: BatchCtx): Generator<void, Tri, void> {
  const n = ctx.rows;
  const meter = ctx.meter;
  const out = evalPredicate(e.args[0]!, ctx);
  const decided = e.kind === 'and' ? F : T;
  for (let a = 1; a < e.args.length; a++) {
    meter?.(n);
    if (a % DECIDED_EVERY === 0) {
      let all = true;
      for (let i = 0; i < n && all; i++) all = out[i] === decided;
      if (all) return out;
    }
    yield;
    const r = evalPredicate(e.args[a]!, ctx);
    if (e.kind === 'and') for (let i = 0; i < n; i++) out[i] = out[i]! < r[i]! ? out[i]! : r[i]!;
    else for (let i = 0; i < n; i++) out[i] = out[i]! > r[i]! ? out[i]! : r[i]!;
  }
  meter?.(n);
  return out;
}

const FLIP: Record<CmpOp, CmpOp> = { '=': '=', '!=': '!=', '<': '>', '<=': '>=', '>': '<', '>=': '<=' };

function triOf(b: boolean | null): number {
  return b === null ? U : b ? T : F;
}

function compare(op: CmpOp, l: ValueVec, r: ValueVec, n: number): Tri {
  if (l.t === 'const' && r.t !== 'const') return compare(FLIP[op], r, l, n);
  const out = new Uint8Array(n);
  if (r.t === 'const') {
    const c = r.value;
    if (l.t === 'const') return out.fill(triOf(compareSql(op, l.value, c)));
    if (c === null) return out.fill(U);
    if (l.t === 'num' && (typeof c === 'number' || (typeof c === 'bigint' && c < 2n ** 53n && c > -(2n ** 53n)))) {
      compareNum(op, l, Number(c), out, n);
      return out;
    }
    if (l.t === 'str' && typeof c === 'string') {
      // Evaluate once per dictionary entry, then gather by code.
      const perCode = new Uint8Array(l.strings.length);
      for (let k = 0; k < l.strings.length; k++) perCode[k] = triOf(compareSql(op, l.strings[k]!, c));
      for (let i = 0; i < n; i++) out[i] = isValid(l.valid, i) ? perCode[l.codes[i]!]! : U;
      return out;
    }
  }
  // General path (column vs column, bigint columns, mixed types): per-row scalars.
  for (let i = 0; i < n; i++) out[i] = triOf(compareSql(op, scalarAt(l, 'float64', i), scalarAt(r, 'float64', i)));
  return out;
}

function compareNum(op: CmpOp, l: NumView, c: number, out: Uint8Array, n: number): void {
  const v = l.values;
  if (c !== c) {
    // Against NaN (the greatest double, equal to itself): only the NaN rows compare equal.
    const eq = satisfies(op, 0) ? T : F;
    const lt = satisfies(op, -1) ? T : F;
    for (let i = 0; i < n; i++) out[i] = v[i] !== v[i] ? eq : lt;
    if (l.valid !== null) for (let i = 0; i < n; i++) if (!isValid(l.valid, i)) out[i] = U;
    return;
  }
  switch (op) {
    case '=':
      for (let i = 0; i < n; i++) out[i] = v[i] === c ? T : F;
      break;
    case '!=':
      for (let i = 0; i < n; i++) out[i] = v[i] !== c ? T : F;
      break;
    case '<':
      for (let i = 0; i < n; i++) out[i] = v[i]! < c ? T : F;
      break;
    case '<=':
      for (let i = 0; i < n; i++) out[i] = v[i]! <= c ? T : F;
      break;
    case '>':
      for (let i = 0; i < n; i++) out[i] = v[i]! > c ? T : F;
      break;
    case '>=':
      for (let i = 0; i < n; i++) out[i] = v[i]! >= c ? T : F;
      break;
  }
  // NaN rows are greater than c (IEEE comparisons said false for all of them).
  const gt = satisfies(op, 1) ? T : F;
  for (let i = 0; i < n; i++) if (v[i] !== v[i]) out[i] = gt;
  if (l.valid !== null) for (let i = 0; i < n; i++) if (!isValid(l.valid, i)) out[i] = U;
}

function evalIn(v: ValueVec, values: readonly Scalar[], negated: boolean, n: number): Tri {
  const out = new Uint8Array(n);
  const hasNull = values.some((x) => x === null);
  // x IN (...): TRUE if equal to one; else NULL if the list holds NULL; else FALSE.
  const miss = hasNull ? U : negated ? T : F;
  const hit = negated ? F : T;
  if (v.t === 'const') {
    const x = v.value;
    if (x === null) return out.fill(U);
    return out.fill(values.some((y) => compareSql('=', x, y) === true) ? hit : miss);
  }
  if (v.t === 'str') {
    const set = new Set(values.filter((x): x is string => typeof x === 'string'));
    const perCode = new Uint8Array(v.strings.length);
    for (let k = 0; k < v.strings.length; k++) perCode[k] = set.has(v.strings[k]!) ? hit : miss;
    for (let i = 0; i < n; i++) out[i] = isValid(v.valid, i) ? perCode[v.codes[i]!]! : U;
    return out;
  }
  if (v.t === 'num') {
    const set = new Set(values.filter((x) => x !== null).map((x) => Number(x)));
    const vals = v.values;
    for (let i = 0; i < n; i++) out[i] = isValid(v.valid, i) ? (set.has(vals[i]!) ? hit : miss) : U;
    return out;
  }
  for (let i = 0; i < n; i++) {
    const x = scalarAt(v, 'int64', i);
    out[i] = x === null ? U : values.some((y) => compareSql('=', x, y) === true) ? hit : miss;
  }
  return out;
}
