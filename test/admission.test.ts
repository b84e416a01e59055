/**
 * Admission control: bounded in-flight queries and queue; beyond them a quick 503 with
 * Retry-After; queued work never outlives its deadline. Plus the API token and /metrics.
 */
import { Registry } from 'prom-client';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import { isCanopyError, type TableSchema } from '../src/merge/index.ts';
import { Admission, buildRootApp, rootMetrics } from '../src/root/index.ts';
import { clockWithNow } from '../src/transport/index.ts';
import { inProcessRoot } from './helpers/tree.ts';

afterEach(() => {
  vi.useRealTimers();
});

describe('Admission', () => {
  it('admits up to the limit, queues up to the queue bound, refuses beyond', async () => {
    const a = new Admission({ maxInFlight: 2, maxQueued: 1 });
    const signal = new AbortController().signal;
    const r1 = await a.acquire(1000, signal);
    await a.acquire(1000, signal);
    const queued = a.acquire(1000, signal);
    expect(a.queued).toBe(1);
    const refused = await a.acquire(1000, signal).catch((e: unknown) => e);
    expect(isCanopyError(refused) && refused.code).toBe('CANOPY_ERR_OVERLOADED');
    r1();
    const r3 = await queued;
    expect(a.inFlight).toBe(2);
    r3();
    r1(); // releasing twice is harmless
    expect(a.inFlight).toBe(1);
  });

  it('a queued query never waits past its deadline', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    const a = new Admission({ maxInFlight: 1, maxQueued: 5 });
    const signal = new AbortController().signal;
    await a.acquire(1000, signal);
    const waiting = a.acquire(300, signal).catch((e: unknown) => e);
    await vi.advanceTimersByTimeAsync(301);
    const e = await waiting;
    expect(isCanopyError(e) && e.code).toBe('CANOPY_ERR_OVERLOADED');
    expect(a.queued).toBe(0);
    expect(a.counters.expiredInQueue).toBe(1);
  });
});

describe('Admission.admit', () => {
  it('waits at most maxWaitShare of the deadline and returns what is left of it', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout'] });
    let now = 0;
    const a = new Admission({ maxInFlight: 1, maxQueued: 5, clock: clockWithNow(() => now) });
    const signal = new AbortController().signal;
    const first = await a.admit(1000, signal);
    expect(first.remainingMs).toBe(1000);
    // a queued request with a 400 ms deadline gives up after 200 ms (half), refused like a full queue
    const late = a.admit(400, signal).catch((e: unknown) => e);
    // one with a 1000 ms deadline gets the slot after 120 ms and runs with 880 ms
    const waiting = a.admit(1000, signal);
    await vi.advanceTimersByTimeAsync(199);
    expect(a.queued).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(await late).toMatchObject({ code: 'CANOPY_ERR_OVERLOADED', details: { retryAfterSeconds: 1 } });
    now = 120;
    first.release();
    const second = await waiting;
    expect(second.remainingMs).toBe(880);
    expect(a.inFlight).toBe(1);
    second.release();
    expect(a.inFlight).toBe(0);
  });
});

const schema: TableSchema = { name: 't', columns: [{ name: 'x', type: 'int64' }] };

describe('root API: overload, token, metrics', () => {
  it('answers 503 with Retry-After at once when full', async () => {
    const { root } = inProcessRoot(schema, [[[1n]]], { wrap: (leaf) => withFaults(leaf.handler, leaf.shards, { rules: [{ shards: 'all', latency: { kind: 'fixed', ms: 300 } }] }) });
    const admission = new Admission({ maxInFlight: 1, maxQueued: 0 });
    const app = buildRootApp(root, { admission });
    let slowDone = false;
    const slow = app.inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT count(*) FROM t' } }).finally(() => {
      slowDone = true;
    });
    for (let i = 0; i < 1000 && admission.inFlight === 0; i++) await new Promise((r) => setImmediate(r));
    expect(admission.inFlight).toBe(1);
    const res = await app.inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT count(*) FROM t' } });
    expect(res.statusCode).toBe(503);
    expect(res.headers['retry-after']).toBe('1');
    expect(res.json().error.code).toBe('CANOPY_ERR_OVERLOADED');
    // refused at once: while the running query (300 ms) is still going
    expect(slowDone).toBe(false);
    expect((await slow).statusCode).toBe(200);
  });

  it('requires the API token when one is set', async () => {
    const { root } = inProcessRoot(schema, [[[1n]]]);
    const app = buildRootApp(root, { apiToken: 's3cret' });
    const no = await app.inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT count(*) FROM t' } });
    expect(no.statusCode).toBe(401);
    expect(no.json().error.code).toBe('CANOPY_ERR_UNAUTHORIZED');
    expect(no.body).not.toContain('s3cret');
    const ok = await app.inject({ method: 'POST', url: '/v1/query', headers: { authorization: 'Bearer s3cret' }, payload: { sql: 'SELECT count(*) FROM t' } });
    expect(ok.statusCode).toBe(200);
    // RFC 6750: the scheme name is case-insensitive; the token is not.
    const lower = await app.inject({ method: 'POST', url: '/v1/query', headers: { authorization: 'bearer s3cret' }, payload: { sql: 'SELECT count(*) FROM t' } });
    expect(lower.statusCode).toBe(200);
    for (const wrong of ['Bearer S3CRET', 'Bearer s3cre', 'Bearer s3cret2', 'Basic s3cret', 's3cret']) {
      const res = await app.inject({ method: 'POST', url: '/v1/query', headers: { authorization: wrong }, payload: { sql: 'SELECT count(*) FROM t' } });
      expect(res.statusCode, wrong).toBe(401);
    }
  });

  it('serves Prometheus metrics from an injected registry', async () => {
    const { root } = inProcessRoot(schema, [[[1n]], [[2n]]]);
    const admission = new Admission();
    const registry = new Registry();
    const app = buildRootApp(root, { admission, metrics: rootMetrics(registry, admission) });
    await app.inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT count(*) FROM t' } });
    await app.inject({ method: 'POST', url: '/v1/query', payload: { sql: 'SELECT nope FROM t' } });
    const m = await app.inject({ method: 'GET', url: '/metrics' });
    expect(m.statusCode).toBe(200);
    expect(m.body).toMatch(/canopy_queries_total\{outcome="exact"\} 1/);
    expect(m.body).toMatch(/canopy_queries_total\{outcome="CANOPY_ERR_UNKNOWN_COLUMN"\} 1/);
    expect(m.body).toMatch(/canopy_query_duration_seconds_count\{label="exact"\} 1/);
    expect(m.body).toContain('canopy_admission_rejects_total 0');
    // Both shards of the answered query, by outcome; the wait of both admitted queries (planning comes after admission).
    expect(m.body).toContain('canopy_query_shards_total{outcome="answered",code=""} 2');
    expect(m.body).toContain('canopy_admission_wait_seconds_count 2');
  });
});
