/**
 * Shared pieces of the benchmarks: options, timing statistics, machine description and
 * the report shape that `bench/run.ts` writes as JSON + Markdown.
 */
import { readFileSync } from 'node:fs';
import os from 'node:os';
import { nearestRank } from '../src/sim/index.ts';

/** Re-exported for the benchmarks (it lives with the simulator's statistics). */
export { nearestRank };

/** Options every benchmark receives from `bench/run.ts`. */
export interface BenchOptions {
  /** CI-sized run: fewer repetitions and warm-ups. */
  readonly quick: boolean;
  /** Timed repetitions per query and engine. */
  readonly reps: number;
  /** Untimed warm-up repetitions per query and engine (JIT, caches). */
  readonly warmup: number;
  /** `--deadline-ms`: the per-query deadline of benchmarks that send queries with one (`deadline`); absent: their default. */
  readonly deadlineMs?: number;
  /** `--real`: benchmarks with a simulated and a real-tree form (`faults`) run the real one. */
  readonly real?: boolean;
}

/** Repetition counts of a benchmark: full and `--quick` runs. */
export interface RepDefaults {
  readonly full: { readonly reps: number; readonly warmup: number };
  readonly quick: { readonly reps: number; readonly warmup: number };
}

/**
 * What a benchmark hands back. `run.ts` writes `data` (plus machine info) to
 * `<name>.json`, `markdown` to `<name>.md`, and prints the markdown.
 * `ok` is false when answers disagree with the reference (the process then exits 1).
 */
export interface BenchReport {
  readonly name: string;
  readonly data: Readonly<Record<string, unknown>>;
  readonly markdown: string;
  readonly ok: boolean;
}

/** A benchmark module: `bench/<name>.ts` exporting `run`. */
export interface BenchModule {
  /** One line for `--help`. */
  readonly description: string;
  /** Its own `--reps` / `--warmup` defaults, when the runner's do not fit. */
  readonly defaults?: RepDefaults;
  run(opts: BenchOptions): Promise<BenchReport>;
}

/** Summary of timed repetitions, all in milliseconds. */
export interface Timing {
  readonly min: number;
  readonly median: number;
  /** 90th percentile, nearest rank. */
  readonly p90: number;
  readonly samples: readonly number[];
}

/**
 * Summarises samples (ms). Median is the mean of the two middle values for even counts;
 * p90 is the nearest-rank percentile (so with 3 samples it is the maximum).
 * @throws Error on an empty sample list.
 */
export function summarise(samples: readonly number[]): Timing {
  if (samples.length === 0) throw new Error('no samples to summarise');
  const s = [...samples].sort((a, b) => a - b);
  const mid = s.length >> 1;
  const median = s.length % 2 === 1 ? s[mid]! : (s[mid - 1]! + s[mid]!) / 2;
  const p90 = nearestRank(s, 0.9);
  return { min: round3(s[0]!), median: round3(median), p90: round3(p90), samples: samples.map(round3) };
}

/** Runs `fn` once and returns its value and wall time in ms (performance.now). */
export async function timed<T>(fn: () => Promise<T>): Promise<{ ms: number; value: T }> {
  const t0 = performance.now();
  const value = await fn();
  return { ms: performance.now() - t0, value };
}

/** Rounds to 3 decimals (µs resolution for ms values) for readable JSON. */
export function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/** Formats ms for tables: 3 significant digits, at least one decimal below 100. */
export function fmtMs(x: number): string {
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** Machine and software the numbers were measured on. */
export interface MachineInfo {
  readonly cpuModel: string;
  readonly cpuCount: number;
  readonly totalMemoryBytes: number;
  readonly platform: string;
  readonly arch: string;
  readonly osRelease: string;
  readonly node: string;
  /** Declared versions of canopy's dependencies and devDependencies (package.json). */
  readonly packages: Readonly<Record<string, string>>;
  /** 1, 5 and 15 minute load averages when the machine was described (other work skews timings). */
  readonly loadAverage: readonly number[];
  readonly timestamp: string;
}

/** Describes this machine (node:os) and canopy's declared package versions. */
export function machineInfo(): MachineInfo {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as {
    version?: string;
    dependencies?: Record<string, string>;
    devDependencies?: Record<string, string>;
  };
  const cpus = os.cpus();
  return {
    cpuModel: cpus[0]?.model.trim() ?? 'unknown',
    cpuCount: cpus.length,
    totalMemoryBytes: os.totalmem(),
    platform: os.platform(),
    arch: os.arch(),
    osRelease: os.release(),
    node: process.version,
    packages: { canopy: pkg.version ?? 'unknown', ...pkg.dependencies, ...pkg.devDependencies },
    loadAverage: os.loadavg().map((x) => Math.round(x * 100) / 100),
    timestamp: new Date().toISOString(),
  };
}

/**
 * Markdown lines describing the machine, with a warning when other work was running
 * (1-minute load average above half the CPU count): such timings are noisy.
 */
export function machineMarkdown(m: MachineInfo): string[] {
  const gib = (m.totalMemoryBytes / 2 ** 30).toFixed(1);
  const lines = [`Machine: ${m.cpuModel} × ${m.cpuCount}, ${gib} GiB, node ${m.node}, ${m.platform}/${m.arch}; ${m.timestamp}.`];
  const load = m.loadAverage[0] ?? 0;
  if (load > m.cpuCount / 2) lines.push('', `> **Warning:** load average ${load.toFixed(2)} on ${m.cpuCount} CPUs at the end of the run: other work competed for the CPU, timings are noisy.`);
  return lines;
}
