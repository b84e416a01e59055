/**
 * `npm run bench -- wire`: CPU cost of one frame on the wire, encodeFrame (what a leaf or an
 * aggregator spends per reply) and decodeFrame (what its parent spends per child reply), for
 * src/merge/wire (columns filled as typed arrays, its own Arrow IPC stream writer and
 * reader) against apache-arrow's writer and reader over the same typed arrays (the fair
 * baseline) and the previous implementation (apache-arrow Builders, tableToIPC, tableFromIPC
 * and `Vector.get` per cell), both in bench/wire-baseline.ts, in the same process and run. Each sample is timed both as process CPU time (user + system, what the
 * frame costs the node; less disturbed by other work on a shared machine) and wall time.
 *
 * Frames are real scan partials of flights-shaped rows: a 1-group frame (`SELECT count(*),
 * avg(delay)`, what a leaf sends for the profiled query), a 300-group frame (by origin) and a
 * 10,000-group frame (by origin and destination), each with one provenance entry. Every case
 * first checks that each decoder reads each encoder's bytes back to the same partial; the
 * report is not ok (exit 1) otherwise.
 */
import os from 'node:os';
import { shardsFromRows } from '../src/data/index.ts';
import { prepareShard, scanShard } from '../src/leaf/index.ts';
import { decodeFrame, encodeFrame, layoutOf, partialsEqual, type Frame, type PartialLayout, type Scalar, type TableSchema } from '../src/merge/index.ts';
import { DEFAULT_LIMITS, planQuery } from '../src/root/index.ts';
import { round3, summarise, type BenchModule, type BenchOptions, type BenchReport, type Timing } from './common.ts';
import { arrowDecodeFrame, arrowEncodeFrame, baselineDecodeFrame, baselineEncodeFrame } from './wire-baseline.ts';

const SCHEMA: TableSchema = {
  name: 'flights',
  columns: [
    { name: 'date', type: 'timestamp' },
    { name: 'delay', type: 'int64' },
    { name: 'distance', type: 'int64' },
    { name: 'origin', type: 'string' },
    { name: 'destination', type: 'string' },
  ],
};

interface Case {
  readonly id: string;
  readonly sql: string;
  /** Distinct groups the frame holds. */
  readonly groups: number;
}

const CASES: readonly Case[] = [
  { id: '1 group', sql: 'SELECT count(*), avg(delay) FROM flights', groups: 1 },
  { id: '300 groups', sql: 'SELECT origin, count(*), avg(delay) FROM flights GROUP BY origin', groups: 300 },
  { id: '10,000 groups', sql: 'SELECT origin, destination, count(*), avg(delay), min(date) FROM flights GROUP BY origin, destination', groups: 10_000 },
];

/** Rows giving exactly `groups` distinct (origin, destination) pairs and `groups` origins when grouped by origin alone. */
function rowsFor(groups: number): Scalar[][] {
  const rows: Scalar[][] = [];
  for (let i = 0; i < groups; i++) {
    for (let r = 0; r < 3; r++) {
      const delay = r === 2 && i % 7 === 0 ? null : BigInt(((i * 31 + r * 17) % 400) - 60);
      rows.push([978307200000 + (i * 3 + r) * 60_000, delay, BigInt(100 + (i % 2000)), `A${i.toString(36).toUpperCase().padStart(3, '0')}`, `D${(i * 7919) % groups}`]);
    }
  }
  return rows;
}

async function frameFor(c: Case): Promise<{ layout: PartialLayout; frame: Frame }> {
  const plan = planQuery(c.sql, new Map([['flights', SCHEMA]]), DEFAULT_LIMITS).scan;
  const layout = layoutOf(plan, SCHEMA);
  const [table] = shardsFromRows(SCHEMA, [rowsFor(c.groups)]);
  const scan = await scanShard(prepareShard(0, table!, SCHEMA), plan, layout, new AbortController().signal);
  const frame: Frame = { partial: scan.partial, provenance: [{ shard: 0, status: 'answered', path: 'leaf-0', rowsScanned: c.groups * 3 }], rowsScanned: c.groups * 3 };
  return { layout, frame };
}

/**
 * µs per call of `fn`: `reps` samples (after ~200 ms of warm-up calls and `warmup` more
 * samples), each the mean over enough calls to take ~20 ms; `cpu` from process.cpuUsage (user + system), `wall` from performance.now.
 */
function timeUs(fn: () => unknown, reps: number, warmup: number): { cpu: Timing; wall: Timing } {
  // Warm up for ~200 ms (JIT), then size samples from the warm per-call time.
  let warm = 0;
  const t0 = performance.now();
  while (performance.now() - t0 < 200 || warm < 3) {
    fn();
    warm++;
  }
  const once = Math.max((performance.now() - t0) / warm, 0.001);
  const calls = Math.max(1, Math.min(20_000, Math.round(20 / once)));
  const cpu: number[] = [];
  const wall: number[] = [];
  for (let s = 0; s < warmup + reps; s++) {
    const c0 = process.cpuUsage();
    const a = performance.now();
    for (let i = 0; i < calls; i++) fn();
    const w = ((performance.now() - a) * 1000) / calls;
    const c = process.cpuUsage(c0);
    if (s < warmup) continue;
    wall.push(w);
    cpu.push((c.user + c.system) / calls);
  }
  return { cpu: summarise(cpu), wall: summarise(wall) };
}

type Timed = { cpu: Timing; wall: Timing };

interface Row {
  readonly id: string;
  readonly groups: number;
  readonly bytes: number;
  readonly baselineBytes: number;
  readonly arrowBytes: number;
  /** builders: the old Builder / Vector.get code; arrow: the same columns through apache-arrow's writer and reader; canopy: src/merge/wire. */
  readonly encode: { readonly builders: Timed; readonly arrow: Timed; readonly canopy: Timed };
  readonly decode: { readonly builders: Timed; readonly arrow: Timed; readonly canopy: Timed };
  readonly ok: boolean;
}

export const wire: BenchModule = {
  description: 'µs per frame for encodeFrame / decodeFrame against apache-arrow over the same typed arrays (fair) and the old Builder / Vector.get code: 1, 300 and 10,000 groups',
  defaults: { full: { reps: 15, warmup: 3 }, quick: { reps: 3, warmup: 1 } },
  async run(opts: BenchOptions): Promise<BenchReport> {
    const rows: Row[] = [];
    const loadBefore = os.loadavg().map((x) => round3(x));
    for (const c of CASES) {
      const { layout, frame } = await frameFor(c);
      const bytes = encodeFrame(layout, frame);
      const old = baselineEncodeFrame(layout, frame);
      const viaArrow = arrowEncodeFrame(layout, frame);
      // Every decoder reads every encoder's bytes back to the frame's partial.
      const decoders = [decodeFrame, baselineDecodeFrame, arrowDecodeFrame];
      const ok = [bytes, old, viaArrow].every((b) => decoders.every((dec) => {
        const d = dec(layout, b);
        return partialsEqual(layout, d.partial, frame.partial) && d.rowsScanned === frame.rowsScanned;
      }));
      const t = (fn: () => unknown): Timed => timeUs(fn, opts.reps, opts.warmup);
      const encode = { builders: t(() => baselineEncodeFrame(layout, frame)), arrow: t(() => arrowEncodeFrame(layout, frame)), canopy: t(() => encodeFrame(layout, frame)) };
      const decode = { builders: t(() => baselineDecodeFrame(layout, old)), arrow: t(() => arrowDecodeFrame(layout, viaArrow)), canopy: t(() => decodeFrame(layout, bytes)) };
      rows.push({ id: c.id, groups: c.groups, bytes: bytes.length, baselineBytes: old.length, arrowBytes: viaArrow.length, encode, decode, ok });
      process.stderr.write(`[wire] ${c.id}: CPU µs encode ${encode.builders.cpu.median} / ${encode.arrow.cpu.median} / ${encode.canopy.cpu.median}, decode ${decode.builders.cpu.median} / ${decode.arrow.cpu.median} / ${decode.canopy.cpu.median} (builders / arrow / canopy)${ok ? '' : ' ROUND TRIP FAILED'}\n`);
    }
    const loadAfter = os.loadavg().map((x) => round3(x));
    const us = (x: Timing): string => (x.median >= 100 ? x.median.toFixed(0) : x.median.toFixed(1));
    const ratio = (slow: Timing, fast: Timing): string => `${(slow.median / fast.median).toFixed(1)}×`;
    const line = (r: Row, k: 'cpu' | 'wall'): string =>
      `| ${r.id} | ${us(r.encode.builders[k])} | ${us(r.encode.arrow[k])} | ${us(r.encode.canopy[k])} | ${ratio(r.encode.arrow[k], r.encode.canopy[k])} | ${us(r.decode.builders[k])} | ${us(r.decode.arrow[k])} | ${us(r.decode.canopy[k])} | ${ratio(r.decode.arrow[k], r.decode.canopy[k])} |`;
    const head = ['| frame | encode: builders µs | apache-arrow µs | canopy µs | canopy vs apache-arrow | decode: builders µs | apache-arrow µs | canopy µs | canopy vs apache-arrow |', '| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |'];
    const markdown = [
      '## wire: µs per frame, encodeFrame / decodeFrame',
      '',
      '"builders" is the old apache-arrow Builder / tableToIPC / tableFromIPC / `Vector.get` implementation; "apache-arrow" the fair baseline: the same typed-array columns as canopy (`frameColumns`) wrapped with `makeData` and written by `RecordBatchStreamWriter`, read by `tableFromIPC` and the same column reader over each chunk\'s `.data[i].values` (bench/wire-baseline.ts); "canopy" src/merge/wire (its own IPC stream writer and reader). Frames are leaf scan partials of flights-shaped rows with one provenance entry. Medians of samples that each average ~20 ms of calls.',
      '',
      '**Process CPU time** (user + system) per frame:',
      '',
      ...head,
      ...rows.map((r) => line(r, 'cpu')),
      '',
      '**Wall time** per frame:',
      '',
      ...head,
      ...rows.map((r) => line(r, 'wall')),
      '',
      "| frame | bytes: builders | apache-arrow | canopy | every decoder reads every encoder's bytes back |",
      '| --- | ---: | ---: | ---: | --- |',
      ...rows.map((r) => `| ${r.id} | ${r.baselineBytes} | ${r.arrowBytes} | ${r.bytes} | ${r.ok ? 'yes' : '**NO**'} |`),
      '',
      `Load average (1, 5, 15 min) before the run: ${loadBefore.join(', ')}; after: ${loadAfter.join(', ')}.`,
      '',
    ].join('\n');
    return { name: 'wire', data: { rows, loadBefore, loadAfter }, markdown, ok: rows.every((r) => r.ok) };
  },
};
