/**
 * The set index of string columns (ColumnStats.values) prunes only shards that hold no
 * matching row: for random shards of strings (NULLs, '', non-BMP, case variants) and random
 * predicates (=, !=, IN, NOT IN, LIKE, ILIKE, NOT, AND, OR, NULL literals), whenever
 * `shardMayMatch` says false, no row of the shard makes the predicate TRUE (evaluated row
 * by row with the shared scalar evaluator). And it does prune: `col = 'absent'` inside the
 * min/max range drops the shard, which min/max alone could not.
 */
import { Dictionary, Int32, Int64, Table, Utf8, vectorFromArray } from 'apache-arrow';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { predicateTree } from './helpers/predicates.ts';
import { shardStats } from '../src/data/stats.ts';
import { evalScalarNode, shardMayMatch, SET_INDEX_MAX_VALUES, type Expr, type Scalar, type ShardInfo } from '../src/merge/index.ts';

const ALPHABET = ['', 'a', 'A', 'ab', 'b', 'ba', 'S', 'SFO', 'sfo', '😀', 'ｚ', '%', '_x', 'NOPE'];

function shardOf(values: readonly (string | null)[]): ShardInfo {
  const table = new Table({ s: vectorFromArray(values, new Dictionary(new Utf8(), new Int32())) });
  return { id: 0, rows: values.length, partition: 'test', columns: shardStats(['string'], ['s'], table) };
}

const col: Expr = { kind: 'col', name: 's' };
const lit = (v: string | null): Expr => ({ kind: 'lit', value: v, type: v === null ? 'null' : 'string' }) as Expr;
const strArb = fc.constantFrom(...ALPHABET);
const litArb = fc.option(strArb, { freq: 8 });

const leafArb: fc.Arbitrary<Expr> = fc.oneof(
  fc.record({ op: fc.constantFrom('=', '!='), v: litArb, swap: fc.boolean() }).map(({ op, v, swap }) => ({ kind: 'cmp', op, left: swap ? lit(v) : col, right: swap ? col : lit(v) }) as Expr),
  fc.record({ vals: fc.array(litArb, { minLength: 1, maxLength: 4 }), negated: fc.boolean() }).map(({ vals, negated }) => ({ kind: 'in', arg: col, values: vals, negated }) as Expr),
  fc
    .record({ p: fc.constantFrom('S%', '%o', 'a_', '%', '_', '', 'sfo', '%😀%', '\\%', 'A%'), negated: fc.boolean(), ci: fc.boolean() })
    .map(({ p, negated, ci }) => ({ kind: 'like', arg: col, pattern: lit(p), negated, caseInsensitive: ci, escape: p.startsWith('\\') ? '\\' : null }) as Expr),
);
const exprArb: fc.Arbitrary<Expr> = predicateTree(leafArb);

function evalRow(e: Expr, value: string | null): Scalar {
  const ev = (x: Expr): Scalar => (x.kind === 'col' ? value : evalScalarNode(x, ev));
  return ev(e);
}

describe('set-index pruning', () => {
  it('never prunes a shard holding a row that satisfies the predicate', () => {
    fc.assert(
      fc.property(fc.array(fc.option(strArb, { freq: 5 }), { minLength: 1, maxLength: 12 }), exprArb, (values, e) => {
        const shard = shardOf(values);
        if (!shardMayMatch(e, shard)) {
          for (const v of values) expect(evalRow(e, v), `row ${JSON.stringify(v)} of ${JSON.stringify(values)}`).not.toBe(true);
        }
      }),
      { numRuns: 1500, seed: 7 },
    );
  });

  it('IN / NOT IN lists of numbers prune only shards without a matching row (min/max and a sorted list)', () => {
    const icol: Expr = { kind: 'col', name: 'i' };
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.integer({ min: -30, max: 30 }), { freq: 6 }), { minLength: 1, maxLength: 10 }),
        fc.array(fc.option(fc.oneof(fc.integer({ min: -40, max: 40 }).map(BigInt), fc.constant(2n ** 60n)), { freq: 10 }), { minLength: 1, maxLength: 40 }),
        fc.boolean(),
        (vals, list, negated) => {
          const table = new Table({ i: vectorFromArray(vals.map((v) => (v === null ? null : BigInt(v))), new Int64()) });
          const shard: ShardInfo = { id: 0, rows: vals.length, partition: 'test', columns: shardStats(['int64'], ['i'], table) };
          const e = { kind: 'in', arg: icol, values: list, negated } as Expr;
          if (!shardMayMatch(e, shard)) {
            for (const v of vals) {
              const ev = (x: Expr): Scalar => (x.kind === 'col' ? (v === null ? null : BigInt(v)) : evalScalarNode(x, ev));
              expect(ev(e), `row ${String(v)}`).not.toBe(true);
            }
          }
        },
      ),
      { numRuns: 1000, seed: 5 },
    );
  });

  it('keeps the distinct values sorted by code point, and none above the cap', () => {
    const shard = shardOf(['b', null, '😀', 'ｚ', 'a', 'b']);
    expect(shard.columns.s!.values).toEqual(['a', 'b', 'ｚ', '😀']);
    const many = Array.from({ length: SET_INDEX_MAX_VALUES + 1 }, (_, i) => `v${i}`);
    expect(shardOf(many).columns.s!.values).toBeUndefined();
    expect(shardOf([null, null]).columns.s!.values).toBeUndefined();
  });

  it('prunes a value inside the min/max range that the shard does not hold', () => {
    const shard = shardOf(['ABE', 'ZZZ', 'SFO']);
    expect(shardMayMatch({ kind: 'cmp', op: '=', left: col, right: lit('NOPE') } as Expr, shard)).toBe(false);
    expect(shardMayMatch({ kind: 'cmp', op: '=', left: col, right: lit('SFO') } as Expr, shard)).toBe(true);
    expect(shardMayMatch({ kind: 'in', arg: col, values: ['NOPE', 'XYZ'], negated: false } as Expr, shard)).toBe(false);
    expect(shardMayMatch({ kind: 'like', arg: col, pattern: lit('N%'), negated: false, caseInsensitive: false, escape: null } as Expr, shard)).toBe(false);
    expect(shardMayMatch({ kind: 'in', arg: col, values: ['ABE', 'ZZZ', 'SFO'], negated: true } as Expr, shard)).toBe(false);
  });
});
