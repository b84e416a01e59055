/**
 * A worker process of the `depth` benchmark: simulates the trees it is sent, one at a time
 * (bench/depth.ts `depthCellsInProcesses` forks it and talks to it over IPC). Simulated time is
 * virtual, so a tree gives the same cells in whichever process it runs.
 */
import { setMaxListeners } from 'node:events';
import type { CostModel } from './engine.ts';
import { depthCells, type DepthCell, type TreePlan } from '../depth.ts';

/** Message from the parent: simulate one tree. */
export interface TreeTask {
  readonly id: number;
  readonly cost: CostModel;
  readonly plan: TreePlan;
}

/** Message to the parent: the tree's cells, or why it failed. */
export type TreeResult = { readonly id: number; readonly cells: DepthCell[] } | { readonly id: number; readonly error: string };

// The gather registers two abort listeners per child on shared signals: thousands at a flat root.
setMaxListeners(1_000_000);
// Stack traces of the CanopyErrors a gather makes per child cost real CPU and change nothing in virtual time.
Error.stackTraceLimit = 0;

process.on('message', (m: TreeTask) => {
  depthCells(m.cost, [m.plan]).then(
    (cells) => process.send!({ id: m.id, cells } satisfies TreeResult),
    (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? e.message : String(e) } satisfies TreeResult),
  );
});
