/**
 * `npm run recommend -- [--p50 MS] [--p99 MS] [--merge-us US] [--n LEAVES] [--deadline MS] [--groups G] [--json]`:
 * the capacity planner. Simulates every tree layout for N leaves whose service time is a
 * lognormal through the given p50 and p99 (src/sim/recommend.ts) and prints the table and
 * the layout and policy with the lowest p99 within the deadline. Seeded and not
 * recalibrated: the same input gives the same answer on any machine.
 * Exit codes: 0 answered, 2 bad command line.
 */
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { recommend, type RecommendInputs } from '../sim/index.ts';

const USAGE = `usage: npm run recommend -- [--p50 MS] [--p99 MS] [--merge-us US] [--n LEAVES] [--deadline MS] [--groups G] [--json]
  --p50, --p99   leaf service time percentiles, ms (default 5 and 50)
  --merge-us     CPU per group merged, µs (default 2)
  --n            leaves (default 1000)
  --deadline     the deadline the p99 must stay within, ms (default 200)
  --groups       groups each leaf returns (default 10)
  --json         print the table and pick as JSON instead of Markdown`;

/** Output sinks of {@link runRecommendCli} (the process's streams, or buffers in tests). */
export interface RecommendIo {
  stdout(s: string): void;
  stderr(s: string): void;
}

function positive(values: Record<string, unknown>, name: string, fallback: number, integer: boolean): number {
  const v = values[name];
  if (v === undefined) return fallback;
  const x = Number(v);
  if (!Number.isFinite(x) || x <= 0) throw new RangeError(`--${name} must be a positive number, got ${JSON.stringify(v)}`);
  return integer ? Math.round(x) : x;
}

/** Runs the command line `argv` (without node and script); resolves to the exit code. */
export async function runRecommendCli(argv: readonly string[], io: RecommendIo): Promise<number> {
  let inputs: RecommendInputs;
  let json: boolean;
  try {
    const { values } = parseArgs({
      args: [...argv],
      options: { p50: { type: 'string' }, p99: { type: 'string' }, 'merge-us': { type: 'string' }, n: { type: 'string' }, deadline: { type: 'string' }, groups: { type: 'string' }, json: { type: 'boolean' }, help: { type: 'boolean', short: 'h' } },
      strict: true,
    });
    if (values.help === true) {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    json = values.json === true;
    inputs = { p50: positive(values, 'p50', 5, false), p99: positive(values, 'p99', 50, false), mergeUs: positive(values, 'merge-us', 2, false), n: positive(values, 'n', 1000, true), deadline: positive(values, 'deadline', 200, false), groups: positive(values, 'groups', 10, true) };
    if (inputs.p99 < inputs.p50) throw new RangeError('--p99 must be at least --p50');
  } catch (e) {
    io.stderr(`recommend: ${(e as Error).message}\n${USAGE}\n`);
    return 2;
  }
  const r = await recommend(inputs);
  io.stdout(json ? `${JSON.stringify({ inputs: r.inputs, rows: r.rows, pick: r.pick, withinDeadline: r.withinDeadline }, null, 2)}\n` : `${r.markdown}\n`);
  return 0;
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  process.exitCode = await runRecommendCli(process.argv.slice(2), { stdout: (s) => process.stdout.write(s), stderr: (s) => process.stderr.write(s) });
}
