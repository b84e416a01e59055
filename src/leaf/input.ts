/**
 * The one place the leaf turns an aggregate's argument (a row-level expression) into a
 * batch vector. Today: the expression evaluator of src/leaf/expr.ts (columns, literals,
 * date_trunc); the vectorized expression engine (issue #14, item 2) plugs in here.
 */
import type { Expr, ValueVec } from '../merge/index.ts';
import { evalValue, type BatchCtx } from './expr.ts';

/**
 * The vector of `expr` over the rows of one batch (length `ctx.rows`; a constant vector for a literal).
 * @throws CanopyError CANOPY_ERR_UNKNOWN_COLUMN / CANOPY_ERR_UNSUPPORTED / CANOPY_ERR_TYPE
 */
export function inputVector(expr: Expr, ctx: BatchCtx): ValueVec {
  return evalValue(expr, ctx);
}
