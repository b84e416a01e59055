/**
 * Merge laws for every partial-state kind, on random data with NULLs, empty shards,
 * negative numbers and int64 values beyond 2^53: per-shard scan + merge equals one scan of
 * everything and a brute-force computation; merge is associative, commutative, has the
 * empty partial as identity, and does not mutate its inputs.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import { compareValues, emptyPartial, fsumAdd, groupsOf, toWireJSON, type ColumnarPartial, type GroupedPartial, fsumEmpty, fsumValue, groupKeyString, layoutOf, mergePartials, partialsEqual, type Partial, type PartialSpec, type Scalar, type ScanPlan, type TableSchema } from '../src/merge/index.ts';
import { MIXED_SCHEMA } from './helpers/mixed.ts';
import { sumIntKind } from '../src/merge/kinds/sum.ts';

const schema: TableSchema = MIXED_SCHEMA;

const partials: PartialSpec[] = [
  { kind: 'count_star', arg: null },
  { kind: 'count', arg: { kind: 'col', name: 'i' } },
  { kind: 'sum', arg: { kind: 'col', name: 'i' } },
  { kind: 'min', arg: { kind: 'col', name: 'i' } },
  { kind: 'max', arg: { kind: 'col', name: 'i' } },
  { kind: 'count', arg: { kind: 'col', name: 'f' } },
  { kind: 'sum', arg: { kind: 'col', name: 'f' } },
  { kind: 'min', arg: { kind: 'col', name: 'f' } },
  { kind: 'max', arg: { kind: 'col', name: 'f' } },
  { kind: 'min', arg: { kind: 'col', name: 'ts' } },
  { kind: 'max', arg: { kind: 'col', name: 'ts' } },
  { kind: 'min', arg: { kind: 'col', name: 'g' } },
  { kind: 'max', arg: { kind: 'col', name: 'g' } },
  { kind: 'arg_min', arg: { kind: 'col', name: 'g' }, by: { kind: 'col', name: 'i' }, byType: 'int64' },
  { kind: 'arg_max', arg: { kind: 'col', name: 'f' }, by: { kind: 'col', name: 'ts' }, byType: 'timestamp' },
];

const plan: ScanPlan = {
  table: 't',
  filter: null,
  groupBy: [{ name: 'g', expr: { kind: 'col', name: 'g' }, type: 'string' }],
  partials,
  rows: null,
  maxGroups: 1_000_000,
};
const layout = layoutOf(plan, schema);

const big = fc.oneof(
  fc.bigInt({ min: -(2n ** 63n), max: 2n ** 63n - 1n }),
  fc.bigInt({ min: -1000n, max: 1000n }),
  fc.constantFrom(2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) - 1n, 2n ** 62n),
);
const row = fc.tuple(
  fc.option(fc.constantFrom('a', 'b', 'c', '', 'zz'), { nil: null }),
  fc.option(big, { nil: null }),
  fc.option(fc.double({ noNaN: true, noDefaultInfinity: true }).map((x) => (x === 0 ? 0 : x)), { nil: null }),
  fc.option(fc.integer({ min: 0, max: 2 ** 40 }), { nil: null }),
);

async function scanAll(shards: Scalar[][][]): Promise<Partial[]> {
  const tables = shardsFromRows(schema, shards, 7);
  const out: Partial[] = [];
  for (let i = 0; i < tables.length; i++) {
    out.push((await scanShard(prepareShard(i, tables[i]!, schema), plan, layout, new AbortController().signal)).partial);
  }
  return out;
}

function split<T>(items: T[], cuts: number[]): T[][] {
  const points = cuts.map((c) => Math.min(c, items.length)).sort((a, b) => a - b);
  const out: T[][] = [];
  let at = 0;
  for (const p of points) {
    out.push(items.slice(at, p));
    at = p;
  }
  out.push(items.slice(at));
  return out;
}

/** arg_min / arg_max by brute force: over rows with both non-NULL, the best value's argument; ties to the smallest argument. */
function argExt(rs: Scalar[][], arg: number, by: number, min: boolean): Scalar {
  let best: Scalar[] | null = null;
  for (const r of rs) {
    if (r[arg] === null || r[by] === null) continue;
    if (best === null) {
      best = r;
      continue;
    }
    const c = compareValues(r[by]!, best[by]!);
    if ((min ? c < 0 : c > 0) || (c === 0 && compareValues(r[arg]!, best[arg]!) < 0)) best = r;
  }
  return best === null ? null : best[arg]!;
}

/** Brute force: the finalised value of every partial per group, straight from the rows. */
function bruteForce(rows: Scalar[][]): Map<string, Scalar[]> {
  const groups = new Map<string, Scalar[][]>();
  for (const r of rows) {
    const k = groupKeyString([r[0]!]);
    const list = groups.get(k) ?? [];
    list.push(r);
    groups.set(k, list);
  }
  const out = new Map<string, Scalar[]>();
  const col = (rs: Scalar[][], c: number) => rs.map((r) => r[c]!).filter((v) => v !== null);
  const ext = (vs: Scalar[], min: boolean) => (vs.length === 0 ? null : vs.reduce((a, b) => ((min ? b! < a! : b! > a!) ? b : a)));
  for (const [k, rs] of groups) {
    const is = col(rs, 1) as bigint[];
    const fs = col(rs, 2) as number[];
    const fsum = fsumEmpty();
    fs.forEach((x) => fsumAdd(fsum, x));
    out.set(k, [
      BigInt(rs.length),
      BigInt(is.length),
      is.length === 0 ? null : is.reduce((a, b) => a + b, 0n),
      ext(is, true),
      ext(is, false),
      BigInt(fs.length),
      fs.length === 0 ? null : fsumValue(fsum),
      ext(fs, true),
      ext(fs, false),
      ext(col(rs, 3), true),
      ext(col(rs, 3), false),
      ext(col(rs, 0), true),
      ext(col(rs, 0), false),
      argExt(rs, 0, 1, true),
      argExt(rs, 2, 3, false),
    ]);
  }
  return out;
}

function finalised(p: Partial): Map<string, Scalar[]> {
  if (p.type === 'rows') throw new Error('expected groups');
  return new Map([...groupsOf(p)].map(([k, e]) => [k, layout.kinds.map((kind, i) => kind.finalise(e.states[i]))]));
}

describe('merge laws over random data and shard splits', () => {
  it('per-shard partials merged == one scan of everything == brute force', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 60 }), fc.array(fc.nat(60), { maxLength: 5 }), async (rows, cuts) => {
        const rs = rows as Scalar[][];
        const parts = await scanAll(split(rs, cuts));
        const [whole] = await scanAll([rs]);
        const merged = mergePartials(layout, parts);
        expect(partialsEqual(layout, merged, whole!)).toBe(true);
        expect(finalised(merged)).toEqual(bruteForce(rs));
      }),
      { numRuns: 150 },
    );
  });

  it('merge is associative, commutative, has identity and does not mutate inputs', async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(row, { maxLength: 40 }), fc.array(fc.nat(40), { minLength: 2, maxLength: 2 }), async (rows, cuts) => {
        const [a, b, c] = await scanAll(split(rows as Scalar[][], cuts));
        const snapshot = toWireJSON([...groupsOf(a as GroupedPartial | ColumnarPartial)]);
        const ab_c = mergePartials(layout, [mergePartials(layout, [a!, b!]), c!]);
        const a_bc = mergePartials(layout, [a!, mergePartials(layout, [b!, c!])]);
        expect(partialsEqual(layout, ab_c, a_bc)).toBe(true);
        expect(partialsEqual(layout, mergePartials(layout, [a!, b!]), mergePartials(layout, [b!, a!]))).toBe(true);
        expect(partialsEqual(layout, mergePartials(layout, [a!, emptyPartial(layout)]), a!)).toBe(true);
        expect(toWireJSON([...groupsOf(a as GroupedPartial | ColumnarPartial)])).toBe(snapshot);
      }),
      { numRuns: 100 },
    );
  });
});

describe('int64 SUM states: a number while a safe integer, a bigint beyond (src/merge/kinds/sum.ts)', () => {
  const kind = sumIntKind();
  const near = fc.oneof(
    fc.bigInt({ min: -(2n ** 53n) + 1n, max: 2n ** 53n - 1n }),
    fc.bigInt({ min: -5n, max: 5n }),
    fc.constantFrom(2n ** 53n - 1n, 2n ** 53n, 2n ** 53n + 1n, -(2n ** 53n) + 1n, -(2n ** 53n), 2n ** 63n - 1n, -(2n ** 63n), 2n ** 70n),
  );
  /** A state of value v in either form the tree may hold: a number only when v is a safe integer. */
  const stateOf = (v: bigint, asNumber: boolean): number | bigint => (asNumber && v < 2n ** 53n && v > -(2n ** 53n) ? Number(v) : v);
  it('merge adds exactly whatever the forms, stays a number exactly while the sum is safe, and encodes to the same decimal', () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(fc.option(near, { nil: null }), fc.boolean()), { maxLength: 12 }), (cells) => {
        let acc: unknown = kind.empty();
        let exact: bigint | null = null;
        for (const [v, asNumber] of cells) {
          const st = v === null ? null : stateOf(v, asNumber);
          acc = kind.merge(acc as never, st as never);
          if (v !== null) exact = (exact ?? 0n) + v;
          expect(kind.finalise(acc as never)).toBe(exact);
          if (typeof acc === 'number') expect(Number.isSafeInteger(acc)).toBe(true);
          // The wire form is the decimal of the exact value, and decodes to an equal state.
          const enc = kind.encode(acc as never);
          expect(enc).toBe(exact === null ? null : String(exact));
          expect(kind.equals(kind.decode(enc) as never, acc as never)).toBe(true);
          // Equality ignores the form.
          if (exact !== null) expect(kind.equals(acc as never, exact as never)).toBe(true);
        }
      }),
      { numRuns: 500 },
    );
  });
});
