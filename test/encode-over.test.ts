/**
 * A node encodes no frame for a request that is over (issue #13): a large answer made after
 * the request's deadline (plus the slack) is dropped unencoded, a small one is still sent (a
 * late parent may read it), and nothing is encoded for a client that went away. Whether a
 * frame was encoded is read from the process's work ledger, which counts encodes.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { shardsFromRows } from '../src/data/index.ts';
import { createLeaf, prepareShard } from '../src/leaf/index.ts';
import { CanopyError, type Frame, type TableSchema } from '../src/merge/index.ts';
import { planQuery } from '../src/root/index.ts';
import { MultiplexClient, NodeDirectory, QueryWork, buildNodeApp, type ChildRequest, type NodeHandler } from '../src/transport/index.ts';

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };
const plan = planQuery('SELECT x, count(*) FROM t GROUP BY x', new Map([['t', schema]])).scan;
/** Shard 0: 5,000 distinct x (a large answer); shard 1: 10. */
const SIZES = [5000, 10];

const tick = (): Promise<void> => new Promise((r) => setTimeout(r, 1));
async function until(cond: () => boolean): Promise<void> {
  for (let k = 0; k < 20_000 && !cond(); k++) await tick();
}

describe('frames of a request that is over are not encoded', () => {
  const work = new QueryWork();
  const directory = new NodeDirectory();
  const leaves = SIZES.map((n, shard) => createLeaf(`leaf-${shard}`, [prepareShard(shard, shardsFromRows(schema, [Array.from({ length: n }, (_, i) => [BigInt(i)])])[0]!, schema)]).handler);
  /** Released by the test: the gone-client case makes its frame only after its client left. */
  let hold: Promise<void> = Promise.resolve();
  let handled = 0;
  /** The signal of the last request a handler got. */
  let lastSignal: AbortSignal | null = null;
  const apps = leaves.map((leaf, shard) => {
    // The request arrives with no budget left (so its deadline has passed by the time a frame
    // is ready); the scan itself is given time and its own signal, so it answers with its
    // groups whatever happens to the request (only the node app can hold the frame back).
    const handler: NodeHandler = async function* (req, signal) {
      lastSignal = signal;
      await hold;
      try {
        yield* leaf({ ...req, budgetMs: 30_000 }, new AbortController().signal);
      } finally {
        handled++;
      }
    };
    return buildNodeApp(handler, { name: `leaf-${shard}`, directory, work, encodeSlackMs: 0 });
  });
  let url = '';
  beforeAll(async () => {
    url = await apps[0]!.listen({ host: '127.0.0.1', port: 0 });
  });
  afterAll(async () => {
    await Promise.all(apps.map((a) => a.close()));
  });
  const units = (queryId: string): number | undefined => work.snapshot().queries.find((q) => q.queryId === queryId)?.units;
  const req = (queryId: string, shard: number): ChildRequest => ({ queryId, schema, plan, shards: [shard], budgetMs: 0 });

  async function ask(client: MultiplexClient, shard: number, queryId: string, signal = new AbortController().signal): Promise<Frame | CanopyError> {
    try {
      let last: Frame | undefined;
      for await (const f of client.child(`leaf-${shard}`, [shard]).query(req(queryId, shard), signal)) last = f;
      return last!;
    } catch (e) {
      if (e instanceof CanopyError) return e;
      throw e;
    }
  }

  it('past its deadline a large answer is dropped unencoded, a small one still goes out', async () => {
    const client = new MultiplexClient(url);
    try {
      const large = await ask(client, 0, 'large');
      expect(large).toBeInstanceOf(CanopyError);
      expect((large as CanopyError).message).toContain('its answer of 5000 groups or rows was ready after its deadline; not sent');
      expect(units('large')).toBe(0);
      const small = await ask(client, 1, 'small');
      if (small instanceof CanopyError) throw small;
      expect(small.partial.type === 'columnar' ? small.partial.size : -1).toBe(10);
      expect(units('small')).toBe(10);
    } finally {
      await client.destroy();
    }
  });

  it('nothing is encoded for a client that went away while the frame was made', async () => {
    const client = new MultiplexClient(url);
    let release = (): void => undefined;
    hold = new Promise<void>((r) => (release = r));
    const before = handled;
    try {
      const ctl = new AbortController();
      const pending = ask(client, 1, 'gone', ctl.signal);
      // The entry reached the node and waits; the client gives up, then the frame is made.
      await until(() => units('gone') !== undefined && lastSignal !== null);
      ctl.abort();
      expect(((await pending) as CanopyError).code).toBe('CANOPY_ERR_CANCELLED');
      // The node saw its client go (the request was aborted) before the frame was made.
      await until(() => lastSignal!.aborted);
      expect(lastSignal!.aborted).toBe(true);
      release();
      await until(() => handled > before);
      expect(handled).toBe(before + 1);
      expect(units('gone')).toBe(0);
    } finally {
      release();
      hold = Promise.resolve();
      await client.destroy();
    }
  });
});
