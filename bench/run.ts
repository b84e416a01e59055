/**
 * Benchmark runner: `npm run bench -- [name ...] [--quick] [--reps N] [--warmup N] [--deadline-ms N]`.
 *
 * Each benchmark is a module in bench/ registered in {@link BENCHMARKS}; it returns a
 * report, which this runner writes to `bench/results/<name>.json` (with machine info) and
 * `bench/results/<name>.md`, and prints. `--quick` (CI-sized) writes to
 * `bench/results/quick/` instead, so it never overwrites a full run. Exits 1 when any
 * benchmark's answers disagree with the reference.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { parseArgs } from 'node:util';
import { machineInfo, machineMarkdown, type BenchModule, type BenchOptions, type RepDefaults } from './common.ts';

/** Registered benchmarks, loaded lazily. Add `depth`, `hedge`, ... here. */
const BENCHMARKS: Readonly<Record<string, () => Promise<BenchModule>>> = {
  leaf: async () => (await import('./leaf.ts')).leaf,
  deadline: async () => (await import('./deadline.ts')).deadline,
  hedge: async () => (await import('./hedge.ts')).hedge,
  depth: async () => (await import('./depth.ts')).depth,
  bytes: async () => (await import('./bytes.ts')).bytes,
  overload: async () => (await import('./overload.ts')).overload,
  wire: async () => (await import('./wire.ts')).wire,
  estimates: async () => (await import('./estimates.ts')).estimates,
  hostile: async () => (await import('./hostile.ts')).hostile,
  faults: async () => (await import('./faults.ts')).faults,
  hungleaf: async () => (await import('./hungleaf.ts')).hungleaf,
  e2e: async () => (await import('./e2e.ts')).e2e,
  cost: async () => (await import('./cost.ts')).cost,
};

/** A bad command line: reported as its message plus the usage, exit code 2, no stack. */
class UsageError extends Error {}

const DEFAULTS: RepDefaults = { full: { reps: 15, warmup: 3 }, quick: { reps: 3, warmup: 1 } };

function usage(): string {
  return [
    'usage: npm run bench -- [benchmark ...] [--quick] [--reps N] [--warmup N] [--deadline-ms N] [--real]',
    '',
    `benchmarks: ${Object.keys(BENCHMARKS).join(', ')} (default: leaf)`,
    `  --quick          CI-sized run (${DEFAULTS.quick.warmup} warm-up, ${DEFAULTS.quick.reps} reps), results in bench/results/quick/`,
    `  --reps N         timed repetitions (default ${DEFAULTS.full.reps}, quick ${DEFAULTS.quick.reps}; deadline: 60 queries per tree and query, quick 8)`,
    `  --warmup N       untimed warm-up repetitions (default ${DEFAULTS.full.warmup}, quick ${DEFAULTS.quick.warmup}; deadline: 5, quick 1)`,
    '  --deadline-ms N  deadline_ms of every query of the deadline benchmark (default 1000)',
    '  --real           faults: 45 fault schedules x 10 queries on the real multi-process tree (results in faults-real.*); cost: CPU per request by tier in the real tree (cost-real.*)',
  ].join('\n');
}

function count(name: string, raw: string | undefined, fallback: number, min: number): number {
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min) throw new UsageError(`--${name} is ${JSON.stringify(raw)}; give an integer >= ${min}`);
  return n;
}

async function main(): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      allowPositionals: true,
      options: {
        quick: { type: 'boolean', default: false },
        reps: { type: 'string' },
        warmup: { type: 'string' },
        'deadline-ms': { type: 'string' },
        real: { type: 'boolean', default: false },
        help: { type: 'boolean', short: 'h', default: false },
      },
    });
  } catch (e) {
    throw new UsageError((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(usage());
    return 0;
  }
  const names = positionals.length > 0 ? positionals : ['leaf'];
  const unknown = names.filter((n) => !(n in BENCHMARKS));
  if (unknown.length > 0) throw new UsageError(`unknown benchmark(s) ${unknown.join(', ')}; known: ${Object.keys(BENCHMARKS).join(', ')}`);
  const quick = values.quick;
  const deadlineMs = values['deadline-ms'] === undefined ? undefined : count('deadline-ms', values['deadline-ms'], 0, 1);
  if (deadlineMs !== undefined && deadlineMs > 300_000) throw new UsageError(`--deadline-ms is ${deadlineMs}; the root accepts at most 300000`);
  const outDir = new URL(quick ? './results/quick/' : './results/', import.meta.url);
  await mkdir(outDir, { recursive: true });
  let ok = true;
  for (const name of names) {
    const bench = await BENCHMARKS[name]!();
    const d = (bench.defaults ?? DEFAULTS)[quick ? 'quick' : 'full'];
    const opts: BenchOptions = {
      quick,
      reps: count('reps', values.reps, d.reps, 1),
      warmup: count('warmup', values.warmup, d.warmup, 0),
      ...(deadlineMs === undefined ? {} : { deadlineMs }),
      ...(values.real ? { real: true } : {}),
    };
    const report = await bench.run(opts);
    const machine = machineInfo();
    const markdown = `${report.markdown}\n${machineMarkdown(machine).join('\n')}\n`;
    // Files are named by the report (`faults --real` writes faults-real.*).
    await writeFile(new URL(`${report.name}.json`, outDir), JSON.stringify({ machine, ...report.data }, null, 2) + '\n');
    await writeFile(new URL(`${report.name}.md`, outDir), markdown);
    console.log(markdown);
    process.stderr.write(`[run] wrote ${new URL(`${report.name}.json`, outDir).pathname} and ${report.name}.md\n`);
    ok &&= report.ok;
  }
  return ok ? 0 : 1;
}

main().then(
  (code) => {
    process.exitCode = code;
  },
  (e: unknown) => {
    if (e instanceof UsageError) console.error(`${e.message}\n\n${usage()}`);
    else console.error(e instanceof Error ? (e.stack ?? e.message) : e);
    process.exitCode = 2;
  },
);
