/** The comparison operators and their truth on numbers, for range-test properties (src/leaf/int32.ts). */
import type { CmpOp } from '../../src/merge/index.ts';

export const OPS: readonly CmpOp[] = ['=', '!=', '<', '<=', '>', '>='];

/** `x op c` on numbers (no NULL: the callers test NULL-free views). */
export function holds(op: CmpOp, x: number, c: number): boolean {
  switch (op) {
    case '=':
      return x === c;
    case '!=':
      return x !== c;
    case '<':
      return x < c;
    case '<=':
      return x <= c;
    case '>':
      return x > c;
    case '>=':
      return x >= c;
  }
}
