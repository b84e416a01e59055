/** Random predicate trees for pruning properties: NOT / AND / OR over generated leaf predicates. */
import fc from 'fast-check';
import type { Expr } from '../../src/merge/index.ts';

/** Trees of NOT, AND and OR (2-3 operands) over `leaf`, small depth, shrinking across branches. */
export function predicateTree(leaf: fc.Arbitrary<Expr>): fc.Arbitrary<Expr> {
  return fc.letrec<{ e: Expr }>((tie) => ({
    e: fc.oneof(
      { depthSize: 'small', withCrossShrink: true },
      leaf,
      tie('e').map((a) => ({ kind: 'not', arg: a }) as Expr),
      fc.array(tie('e'), { minLength: 2, maxLength: 3 }).map((args) => ({ kind: 'and', args }) as Expr),
      fc.array(tie('e'), { minLength: 2, maxLength: 3 }).map((args) => ({ kind: 'or', args }) as Expr),
    ),
  })).e;
}
