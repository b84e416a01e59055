/**
 * Simulation work spread over forked worker processes (./worker.ts), one per CPU: the
 * simulator runs on a virtual clock, so a task gives the same answer in whichever process it
 * runs, and the benchmarks' tables do not depend on how the CPUs were shared.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const WORKER = fileURLToPath(new URL('./worker.ts', import.meta.url));

/**
 * One task: call the exported function `fn` of the module at `module` (a file URL, e.g.
 * `import.meta.url`) with `args` (structured-cloneable); `cost` (default 1) orders the queue,
 * largest first.
 */
export interface SimTask {
  readonly module: string;
  readonly fn: string;
  readonly args: readonly unknown[];
  readonly cost?: number;
}

/** A task calling `fn` of this module: the simulated depth trees (./trees.ts `depthCells`, `seedTree`). */
export function treeTask(fn: 'depthCells' | 'seedTree', args: readonly unknown[], cost: number): SimTask {
  return { module: new URL('./trees.ts', import.meta.url).href, fn, args, cost };
}

/**
 * Runs `tasks` in `processes` worker processes, largest `cost` first, each worker taking the
 * next task when it is done; returns the results in task order (typed by the caller, who knows
 * what its functions return).
 * Throws when a task fails or a worker exits early (the other workers are stopped).
 */
export async function runInProcesses<R = unknown>(tasks: readonly SimTask[], processes: number): Promise<R[]> {
  const queue = tasks.map((task, id) => ({ id, task })).sort((a, b) => (b.task.cost ?? 1) - (a.task.cost ?? 1));
  const results = new Map<number, unknown>();
  const children: ChildProcess[] = [];
  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(processes, queue.length)) }, async () => {
        const w = fork(WORKER, [], { execArgv: ['--import', 'tsx'], serialization: 'advanced', stdio: ['ignore', 'inherit', 'inherit', 'ipc'] });
        children.push(w);
        const exited = new Promise<never>((_, reject) => w.once('exit', (code) => reject(new Error(`simulation worker exited with code ${code}`))));
        exited.catch(() => undefined);
        for (let next = queue.shift(); next !== undefined; next = queue.shift()) {
          const reply = new Promise<{ id: number; result?: unknown; error?: string }>((resolve) => w.once('message', resolve));
          w.send({ id: next.id, task: next.task });
          const r = await Promise.race([reply, exited]);
          if (r.error !== undefined) throw new Error(`simulation worker: ${r.error}`);
          results.set(r.id, r.result);
        }
      }),
    );
  } finally {
    for (const w of children) if (w.exitCode === null) w.kill('SIGTERM');
  }
  return tasks.map((_, id) => results.get(id) as R);
}
