import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { describe, expect, it } from 'vitest';
import { IdleCollector } from '../src/transport/index.ts';

/** A collector on injected runtime hooks: `later` queues, `flush` runs the queue (the end of a turn). */
function harness(young: number, min = 100) {
  const queue: (() => void)[] = [];
  const state = { young, collected: 0 };
  const c = new IdleCollector({ collect: () => state.collected++, youngBytes: () => state.young, later: (fn) => queue.push(fn), minYoungBytes: min });
  const flush = (): void => {
    while (queue.length > 0) queue.shift()!();
  };
  return { c, state, flush, queue };
}

describe('IdleCollector', () => {
  it('scavenges once the last request in flight ends, not while another is running', () => {
    const { c, state, flush } = harness(1000);
    c.begin();
    c.begin();
    c.end();
    flush();
    expect(state.collected).toBe(0);
    c.end();
    flush();
    expect(state.collected).toBe(1);
    expect(c.collections).toBe(1);
  });

  it('skips the scavenge when a request starts before the turn ends', () => {
    const { c, state, flush } = harness(1000);
    c.begin();
    c.end();
    c.begin();
    flush();
    expect(state.collected).toBe(0);
    c.end();
    flush();
    expect(state.collected).toBe(1);
  });

  it('skips it when the young generation holds less than the threshold', () => {
    const { c, state, flush } = harness(99, 100);
    c.begin();
    c.end();
    flush();
    expect(state.collected).toBe(0);
    state.young = 100;
    c.begin();
    c.end();
    flush();
    expect(state.collected).toBe(1);
  });

  it('schedules one check however many requests end in one turn, and never counts below zero', () => {
    const { c, state, flush, queue } = harness(1000);
    c.end();
    c.end();
    expect(queue.length).toBe(1);
    expect(c.active).toBe(0);
    flush();
    expect(state.collected).toBe(1);
  });

  it('counts the requests of an HTTP server from their start to their socket closing', async () => {
    const { c, state } = harness(1000);
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const server = http.createServer((_req, res) => {
      void held.then(() => res.end('ok'));
    });
    c.track(server);
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
    const { port } = server.address() as AddressInfo;
    try {
      const answer = fetch(`http://127.0.0.1:${port}/`).then((r) => r.text());
      await expect.poll(() => c.active).toBe(1);
      release();
      expect(await answer).toBe('ok');
      await expect.poll(() => c.active).toBe(0);
      // `later` is the harness's queue: nothing ran yet.
      expect(state.collected).toBe(0);
    } finally {
      await new Promise((r) => server.close(r));
    }
  });
});
