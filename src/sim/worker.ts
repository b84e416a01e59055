/**
 * A simulation worker process (forked by ./pool.ts `runInProcesses`): runs the tasks it is
 * sent, one at a time, and answers each over IPC. A task names a module and one of its
 * exported functions; the worker imports the module (once) and calls the function with the
 * task's arguments, so this file depends on no benchmark.
 */
import { setMaxListeners } from 'node:events';
import type { SimTask } from './pool.ts';

// The gather registers two abort listeners per child on shared signals: thousands at a flat root.
setMaxListeners(1_000_000);
// Stack traces of the CanopyErrors a gather makes per child cost real CPU and change nothing in
// virtual time: off while a task runs, but on while a module loads (the CJS interop of the
// loader reads them: a named import from a CommonJS package fails without).
const STACK_LIMIT = Error.stackTraceLimit;

async function run(task: SimTask): Promise<unknown> {
  Error.stackTraceLimit = STACK_LIMIT;
  const mod = (await import(task.module)) as Record<string, unknown>;
  Error.stackTraceLimit = 0;
  const fn = mod[task.fn];
  if (typeof fn !== 'function') throw new Error(`${task.module} exports no function '${task.fn}'`);
  return (fn as (...args: readonly unknown[]) => unknown)(...task.args);
}

process.on('message', (m: { id: number; task: SimTask }) => {
  run(m.task).then(
    (result) => process.send!({ id: m.id, result }),
    (e: unknown) => process.send!({ id: m.id, error: e instanceof Error ? (e.stack ?? e.message) : String(e) }),
  );
});
