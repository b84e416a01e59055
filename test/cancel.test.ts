import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { Pool } from 'undici';
import { describe, expect, it } from 'vitest';
import { Cancel } from '../src/transport/index.ts';

describe('Cancel (an AbortController and its signal in one)', () => {
  it('aborts once: onabort, then the listeners, each once, with the reason given', () => {
    const c = new Cancel();
    const seen: string[] = [];
    c.onabort = () => seen.push('onabort');
    c.signal.addEventListener('abort', () => seen.push(`listener ${String((c.reason as Error).message)}`), { once: true });
    const removed = (): number => seen.push('removed');
    c.signal.addEventListener('abort', removed);
    c.signal.removeEventListener('abort', removed);
    expect(c.aborted).toBe(false);
    expect(() => c.throwIfAborted()).not.toThrow();
    c.abort(new Error('stop'));
    c.abort(new Error('again'));
    expect(seen).toEqual(['onabort', 'listener stop']);
    expect(c.signal.aborted).toBe(true);
    expect((c.reason as Error).message).toBe('stop');
    expect(() => c.throwIfAborted()).toThrow('stop');
  });

  it('without a reason, aborts with an AbortError as AbortController does', () => {
    const c = new Cancel();
    const a = new AbortController();
    c.abort();
    a.abort();
    expect((c.reason as DOMException).name).toBe((a.signal.reason as DOMException).name);
    expect((c.reason as DOMException).name).toBe('AbortError');
  });

  it('stops an undici request in flight, and one already aborted never starts', async () => {
    const server = http.createServer((_req, res) => setTimeout(() => res.end('late'), 5_000));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const pool = new Pool(`http://127.0.0.1:${(server.address() as AddressInfo).port}`);
    try {
      const c = new Cancel();
      setTimeout(() => c.abort(new Error('parent gone')), 50);
      const t0 = performance.now();
      await expect(pool.request({ path: '/', method: 'GET', signal: c.signal })).rejects.toThrow('parent gone');
      expect(performance.now() - t0).toBeLessThan(4_000);
      const d = new Cancel();
      d.abort(new Error('before'));
      await expect(pool.request({ path: '/', method: 'GET', signal: d.signal })).rejects.toThrow('before');
    } finally {
      server.closeAllConnections();
      server.close();
      await pool.destroy();
    }
  });
});
