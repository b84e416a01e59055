/**
 * A leaf worker process: hosts many logical leaves, each its own HTTP endpoint on
 * loopback. Started by {@link startLocalTree} with `fork`; talks to it over IPC.
 */
import { readFileSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { readShard, schemaOf } from '../data/index.ts';
import { Registry } from 'prom-client';
import { createLeaf, leafMetrics, parseFaultPlan, prepareShard, withFaultsAt, type FaultPlan } from '../leaf/index.ts';
import { toCanopyError, type TableSchema } from '../merge/index.ts';
import { buildNodeApp, nodeHttpMetrics } from '../transport/index.ts';

/** One logical leaf to host: its name and shard files. */
export interface LeafAssignment {
  readonly name: string;
  readonly shards: readonly { readonly id: number; readonly file: string }[];
  /** Zone and replica index of a replicated leaf (zone-wide fault rules, per-replica seeds). */
  readonly zone?: string;
  readonly replica?: number;
}

/** Messages from the launcher. */
export interface StartMessage {
  readonly type: 'start';
  readonly host: string;
  readonly table: TableSchema;
  readonly assignments: readonly LeafAssignment[];
  readonly faults: string | null;
}

/** Messages to the launcher. */
export type WorkerMessage = { readonly type: 'ready'; readonly urls: Record<string, string> } | { readonly type: 'error'; readonly code: string; readonly message: string };

const servers: FastifyInstance[] = [];

async function start(m: StartMessage): Promise<void> {
  const token = process.env.CANOPY_TREE_TOKEN;
  const urls: Record<string, string> = {};
  let faults: FaultPlan | null = null;
  if (m.faults !== null) {
    try {
      faults = parseFaultPlan(JSON.parse(readFileSync(m.faults, 'utf8')));
    } catch (e) {
      throw toCanopyError(e, 'CANOPY_ERR_BAD_REQUEST');
    }
  }
  for (const a of m.assignments) {
    const shards = a.shards.map((s) => {
      const table = readShard(s.file);
      return prepareShard(s.id, table, { ...schemaOf(table), name: m.table.name });
    });
    const leaf = createLeaf(a.name, shards);
    const site = { ...(a.zone === undefined ? {} : { zone: a.zone }), ...(a.replica === undefined ? {} : { replica: a.replica }) };
    const handler = faults === null ? leaf.handler : withFaultsAt(site, leaf.handler, leaf.shards, faults);
    const registry = new Registry();
    leafMetrics(registry, leaf);
    const app = buildNodeApp(handler, { ...(token === undefined ? {} : { token }), metrics: nodeHttpMetrics(registry), name: a.name });
    servers.push(app);
    urls[a.name] = await app.listen({ host: m.host, port: 0 });
  }
  process.send?.({ type: 'ready', urls } satisfies WorkerMessage);
}

process.on('message', (m: StartMessage) => {
  if (m.type !== 'start') return;
  start(m).catch((e: unknown) => {
    const err = toCanopyError(e, 'CANOPY_ERR_DATA');
    process.send?.({ type: 'error', code: err.code, message: err.message } satisfies WorkerMessage);
    process.exitCode = 1;
  });
});

const stop = (): void => {
  void Promise.allSettled(servers.map((s) => s.close())).then(() => process.exit(0));
};
process.on('disconnect', stop);
process.on('SIGTERM', stop);
process.on('SIGINT', () => undefined); // the launcher decides when leaves stop
