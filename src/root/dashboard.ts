/**
 * The dashboard: a plain HTML page served by the root at `GET /` (no build step, no CDN).
 * It POSTs SQL to `/v1/query` with `Accept: application/x-ndjson`, reads the snapshots from the
 * response stream and draws every one as it arrives; when the root requires a token (401) it
 * asks for one and sends it as `Authorization: Bearer` (kept in sessionStorage). Files: `src/root/public/` (the page, its script and style) and the chart library
 * uPlot, served from its npm package (`/vendor/uplot.js`, `/vendor/uplot.css`).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

interface Asset {
  readonly file: string;
  readonly type: string;
}

const PUBLIC = (name: string): string => fileURLToPath(new URL(`./public/${name}`, import.meta.url));
const require = createRequire(import.meta.url);

/** URL path -> file and content type. */
const ASSETS: Readonly<Record<string, () => Asset>> = {
  '/': () => ({ file: PUBLIC('index.html'), type: 'text/html; charset=utf-8' }),
  '/dashboard.js': () => ({ file: PUBLIC('dashboard.js'), type: 'text/javascript; charset=utf-8' }),
  '/dashboard.css': () => ({ file: PUBLIC('dashboard.css'), type: 'text/css; charset=utf-8' }),
  '/vendor/uplot.js': () => ({ file: require.resolve('uplot/dist/uPlot.iife.min.js'), type: 'text/javascript; charset=utf-8' }),
  '/vendor/uplot.css': () => ({ file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' }),
};

/** Registers the dashboard's routes (`GET /` and its static files) on the root's app. */
export function registerDashboard(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  for (const [path, asset] of Object.entries(ASSETS)) {
    app.get(path, async (_req, reply) => {
      const { file, type } = asset();
      let body = cache.get(path);
      if (body === undefined) {
        body = await readFile(file);
        cache.set(path, body);
      }
      return reply.code(200).type(type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(body);
    });
  }
}
