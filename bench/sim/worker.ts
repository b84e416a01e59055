/**
 * A simulation worker process (forked by bench/sim/pool.ts `runInProcesses`): runs the tasks
 * it is sent, one at a time, and answers each over IPC.
 */
import { setMaxListeners } from 'node:events';
import type { CostModel, HostModel } from './engine.ts';
import { depthCells, seedTree, type DepthCell, type TreePlan } from '../depth.ts';
import { gridRow, simulate, type GridBest } from './validate.ts';

/**
 * The tasks: a depth tree (bench/depth.ts `depthCells`), a tree of the seeds' table
 * (`seedTree`: queries with a leaf beyond its p99, and latencies in ms), or the validation's flat tree
 * (bench/sim/validate.ts `simulate`), or one row of its grid fit (`gridRow`: per fitted tree
 * its N, the in-process scan per leaf in ms and the real median arrival time of each rank in
 * ms, N values).
 */
export type SimTask =
  | { readonly kind: 'tree'; readonly cost: CostModel; readonly plan: TreePlan }
  | { readonly kind: 'seeds'; readonly n: number; readonly trials: number; readonly seed: number }
  | { readonly kind: 'flat'; readonly n: number; readonly cost: CostModel; readonly hosts: HostModel; readonly waitMs: number; readonly faults: boolean; readonly queries: number; readonly seed: number }
  | { readonly kind: 'grid'; readonly sendMs: number; readonly costs: readonly CostModel[]; readonly fit: readonly { readonly n: number; readonly scanMs: number; readonly profile: readonly number[] }[] };

/** What each task answers: the tree's cells; the seeds' tree's count and latencies; the flat tree's client latencies (ms, one per query, in run order); the row's best point. */
export type SimTaskResult<T extends SimTask> = T extends { kind: 'tree' } ? DepthCell[] : T extends { kind: 'seeds' } ? { over: number; latencies: number[] } : T extends { kind: 'flat' } ? number[] : GridBest;

// The gather registers two abort listeners per child on shared signals: thousands at a flat root.
setMaxListeners(1_000_000);
// Stack traces of the CanopyErrors a gather makes per child cost real CPU and change nothing in virtual time.
Error.stackTraceLimit = 0;

async function run(task: SimTask): Promise<unknown> {
  switch (task.kind) {
    case 'tree':
      return depthCells(task.cost, [task.plan]);
    case 'seeds':
      return seedTree(task.n, task.trials, task.seed);
    case 'flat':
      return (await simulate(task.n, task.cost, task.hosts, task.waitMs, task.faults, task.queries, task.seed)).latencies;
    case 'grid':
      return gridRow(task.sendMs, task.costs, task.fit);
  }
}

process.on('message', (m: { id: number; task: SimTask }) => {
  run(m.task).then(
    (result) => process.send!({ id: m.id, result }),
    (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});
