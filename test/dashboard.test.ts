/**
 * The dashboard (`GET /`, src/root/public): its files are served, and in a real browser
 * (Debian's chromium driven by playwright-core) a query against a root whose shard 3 is
 * 1.5 s slow shows a partial state first (pending shards, a label "so far", bounded cells)
 * and then the final answer with its label, chart, table and straggler timeline; every
 * example query runs; errors are shown with their code. Screenshots go to test-artifacts/.
 * The browser part is skipped, saying so, only when /usr/bin/chromium is absent (.ci/run
 * installs it).
 */
import { existsSync, mkdirSync } from 'node:fs';
import type { FastifyInstance } from 'fastify';
import { chromium, type Browser, type Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { withFaults } from '../src/leaf/index.ts';
import type { Scalar } from '../src/merge/index.ts';
import { buildRootApp } from '../src/root/index.ts';
import { FLIGHTS_SCHEMA, shardOf, throwingHandler } from './helpers/flights.ts';
import { inProcessRoot } from './helpers/tree.ts';

const CHROMIUM = '/usr/bin/chromium';
const ARTIFACTS = 'test-artifacts';
const hasChromium = existsSync(CHROMIUM);
if (!hasChromium) console.warn(`dashboard browser tests SKIPPED: ${CHROMIUM} is not installed (apt-get install -y chromium; .ci/run installs it)`);

const ORIGINS = ['ATL', 'DFW', 'ORD', 'LAX', 'SFO', 'JFK', 'SEA', 'DEN'];

/** 8 shards of 60 flights-like rows each, January to June 2001. */
const SHARDS: Scalar[][][] = Array.from({ length: 8 }, (_, s) =>
  Array.from({ length: 60 }, (_, i) => [
    Date.UTC(2001, 0, 1) + ((i * 72 + s * 9) % (181 * 24)) * 3_600_000,
    BigInt(((i * 13 + s * 7) % 90) - 20),
    BigInt(200 + ((i * 53 + s * 31) % 2400)),
    ORIGINS[Math.floor(Math.sqrt((i * 17 + s * 5) % 64))]!,
    ORIGINS[(i + s + 3) % ORIGINS.length]!,
  ]),
);

const SLOW_SHARD = 3;
const SLOW_MS = 1500;
const FAILED_SHARD = 6;

const apps: FastifyInstance[] = [];
let slowUrl = '';
let failingUrl = '';

beforeAll(async () => {
  // Real timers: the slow leaf answers 1.5 s after it is asked.
  const slow = inProcessRoot(FLIGHTS_SCHEMA, SHARDS, {
    fanout: 4,
    wrap: (leaf) => (shardOf(leaf) === SLOW_SHARD ? withFaults(leaf.handler, leaf.shards, { rules: [{ shards: [SLOW_SHARD], latency: { kind: 'fixed', ms: SLOW_MS } }] }) : leaf.handler),
  });
  const failing = inProcessRoot(FLIGHTS_SCHEMA, SHARDS, { fanout: 4, wrap: (leaf) => (shardOf(leaf) === FAILED_SHARD ? throwingHandler('disk on fire') : leaf.handler) });
  for (const [root, set] of [
    [slow.root, (u: string) => (slowUrl = u)],
    [failing.root, (u: string) => (failingUrl = u)],
  ] as const) {
    const app = buildRootApp(root, { snapshotIntervalMs: 50 });
    apps.push(app);
    set(await app.listen({ host: '127.0.0.1', port: 0 }));
  }
  mkdirSync(ARTIFACTS, { recursive: true });
});

afterAll(async () => {
  await Promise.all(apps.map((a) => a.close()));
});

describe('dashboard files', () => {
  it('GET / serves the page, its script and style, and uPlot from its npm package', async () => {
    const app = apps[0]!;
    const page = await app.inject({ method: 'GET', url: '/' });
    expect(page.statusCode).toBe(200);
    expect(page.headers['content-type']).toContain('text/html');
    expect(page.body).toContain('<textarea id="sql"');
    expect(page.body.match(/class="example"/g)?.length).toBeGreaterThanOrEqual(4);
    for (const [url, type, text] of [
      ['/dashboard.js', 'text/javascript', 'EventSource'],
      ['/dashboard.css', 'text/css', '.coverage-bar'],
      ['/vendor/uplot.js', 'text/javascript', 'uPlot'],
      ['/vendor/uplot.css', 'text/css', '.uplot'],
    ] as const) {
      const res = await app.inject({ method: 'GET', url });
      expect(res.statusCode, url).toBe(200);
      expect(res.headers['content-type'], url).toContain(type);
      expect(res.body, url).toContain(text);
    }
    // Other routes are untouched.
    const nope = await app.inject({ method: 'GET', url: '/nope' });
    expect(nope.statusCode).toBe(404);
    expect(nope.json()).toMatchObject({ error: { code: 'CANOPY_ERR_NOT_FOUND' } });
  });
});

describe.skipIf(!hasChromium)('dashboard in a browser (chromium)', () => {
  let browser: Browser;
  const pageErrors: string[] = [];

  beforeAll(async () => {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
    });
  });

  afterAll(async () => {
    await browser?.close();
  });

  async function open(url: string): Promise<Page> {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => pageErrors.push(e.message));
    page.on('console', (m) => {
      if (m.type() === 'error') pageErrors.push(m.text());
    });
    await page.goto(url);
    await page.waitForSelector('#health.ok');
    return page;
  }

  const settled = (page: Page) => page.waitForSelector('#phase[data-phase=final], #phase[data-phase=error]', { timeout: 20_000 });

  it('draws the partial answer while a shard is slow, then the final answer with its label', async () => {
    const page = await open(slowUrl);
    await page.click('button.example:has-text("flights per month")');
    // A snapshot before the slow shard answered: shards pending, the label "so far".
    await page.waitForFunction(() => Number(document.querySelector('#coverage-legend [data-kind=pending] b')?.textContent ?? 0) > 0, undefined, { timeout: 10_000 });
    const partial = await page.evaluate(() => ({
      phase: document.querySelector<HTMLElement>('#phase')!.dataset.phase,
      label: document.querySelector('#answer-label')!.textContent,
      bounded: document.querySelectorAll('#answer td.cell-bounded').length,
      pendingRow: document.querySelector('#missing tr[data-reason=pending]')?.textContent ?? '',
    }));
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-partial.png`, fullPage: true });
    expect(partial.phase).toBe('streaming');
    expect(partial.label).toMatch(/ so far$/);
    expect(partial.bounded).toBeGreaterThan(0);
    expect(partial.pendingRow).toMatch(/pending.*not answered yet: [\d–, ]+$/);

    await settled(page);
    expect(await page.textContent('#phase')).toMatch(/^final/);
    expect(await page.getAttribute('#answer-label', 'data-label')).toBe('exact');
    expect(await page.textContent('#answer-label')).toBe('exact');
    expect(await page.textContent('#coverage-text')).toContain('8 of 8 shards covered');
    expect(await page.locator('#answer tbody tr').count()).toBe(6); // January to June
    expect(await page.locator('#answer td.cell-bounded').count()).toBe(0);
    expect(await page.locator('#chart canvas').count()).toBeGreaterThan(0);
    expect(await page.textContent('#missing')).toContain('every shard is accounted for');
    // The timeline names the slow leaf as its gather's straggler, and it waited about 1.5 s for it.
    await page.waitForSelector('#timeline details[data-gather=root]');
    const gather = page.locator('#timeline details', { hasText: `last: leaf-${SLOW_SHARD} ` });
    expect(await gather.count()).toBe(1);
    expect(await gather.getAttribute('open')).not.toBeNull();
    expect(await gather.locator('.row.straggler .name').textContent()).toBe(`leaf-${SLOW_SHARD}`);
    const waited = Number(/waited ([\d,.]+) ms/.exec((await gather.locator('summary').textContent()) ?? '')?.[1]?.replace(/,/g, ''));
    expect(waited).toBeGreaterThan(SLOW_MS * 0.8);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard.png`, fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('runs every example query; a failed shard shows as a missing subtree with bounds', async () => {
    const page = await open(failingUrl);
    const examples = page.locator('button.example');
    const n = await examples.count();
    expect(n).toBeGreaterThanOrEqual(4);
    for (let i = 0; i < n; i++) {
      const name = (await examples.nth(i).textContent()) ?? '';
      await examples.nth(i).click();
      await settled(page);
      expect(await page.getAttribute('#phase', 'data-phase'), name).toBe('final');
      expect(await page.isHidden('#error'), name).toBe(true);
      expect(await page.locator('#answer tbody tr').count(), name).toBeGreaterThan(0);
      const missing = (await page.textContent('#missing')) ?? '';
      // Shard 6 failed unless its zone map let the WHERE clause prune it.
      if (!missing.includes('every shard is accounted for')) expect(missing, name).toMatch(new RegExp(`leaf-${FAILED_SHARD}.*failed.*disk on fire`));
    }
    await examples.filter({ hasText: 'busiest origins' }).click();
    await settled(page);
    expect(await page.getAttribute('#answer-label', 'data-label')).not.toBe('exact');
    expect(await page.locator('#answer td.cell-bounded .bounds').count()).toBeGreaterThan(0);
    await page.screenshot({ path: `${ARTIFACTS}/dashboard-failed-shard.png`, fullPage: true });
    await page.close();
    expect(pageErrors).toEqual([]);
  });

  it('shows errors with their code: from the stream, and from a request refused before it', async () => {
    const page = await open(failingUrl);
    await page.fill('#sql', 'SELECT nope FROM flights');
    await page.click('#run');
    await settled(page);
    expect(await page.getAttribute('#phase', 'data-phase')).toBe('error');
    expect(await page.textContent('#error')).toMatch(/CANOPY_ERR_UNKNOWN_COLUMN: .*nope/);
    // A deadline beyond the maximum is refused with HTTP 400 before any event is sent.
    await page.fill('#sql', 'SELECT count(*) FROM flights');
    await page.fill('#deadline', '999999');
    await page.click('#run');
    await page.waitForSelector('#error:not([hidden])');
    expect(await page.textContent('#error')).toMatch(/CANOPY_ERR_BAD_REQUEST: .*deadline/);
    await page.close();
  });
});
