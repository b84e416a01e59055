/**
 * The dashboard: a plain HTML page served by the root at `GET /` (no build step, no CDN).
 * Its script is a set of ES modules (`src/root/public/*.js`, each served at `/<name>.js`:
 * dashboard.js the entry, stream, table, chart and chart-model, editor, history, catalog,
 * panels, dom, types), checked by `tsc -p src/root/public` (`// @ts-check`, JSDoc types).
 * It POSTs SQL to `/v1/query` with `Accept: application/x-ndjson`, reads the snapshots from
 * the response stream and draws every one as it arrives; when the root requires a token (401)
 * it asks for one and sends it as `Authorization: Bearer` (kept in sessionStorage). The chart
 * library uPlot is served from its npm package (`/vendor/uplot.js`, `/vendor/uplot.css`).
 * Files are found relative to this module, so the page works wherever the tree is installed.
 */
import { readdirSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import type { FastifyInstance } from 'fastify';

interface Asset {
  readonly file: string;
  readonly type: string;
}

const PUBLIC_DIR = fileURLToPath(new URL('./public/', import.meta.url));
const PUBLIC = (name: string): string => fileURLToPath(new URL(`./public/${name}`, import.meta.url));
const require = createRequire(import.meta.url);
const JS = 'text/javascript; charset=utf-8';

/** URL path -> file and content type: the page, its style, every module of its script, and uPlot. */
function assets(): Record<string, Asset> {
  const out: Record<string, Asset> = {
    '/': { file: PUBLIC('index.html'), type: 'text/html; charset=utf-8' },
    '/dashboard.css': { file: PUBLIC('dashboard.css'), type: 'text/css; charset=utf-8' },
    '/vendor/uplot.js': { file: require.resolve('uplot/dist/uPlot.iife.min.js'), type: JS },
    '/vendor/uplot.css': { file: require.resolve('uplot/dist/uPlot.min.css'), type: 'text/css; charset=utf-8' },
  };
  for (const name of readdirSync(PUBLIC_DIR)) if (/^[\w-]+\.js$/.test(name)) out[`/${name}`] = { file: PUBLIC(name), type: JS };
  return out;
}

/** Registers the dashboard's routes (`GET /` and its static files) on the root's app. */
export function registerDashboard(app: FastifyInstance): void {
  const cache = new Map<string, Buffer>();
  for (const [path, { file, type }] of Object.entries(assets())) {
    app.get(path, async (_req, reply) => {
      let body = cache.get(path);
      if (body === undefined) {
        body = await readFile(file);
        cache.set(path, body);
      }
      return reply.code(200).type(type).header('cache-control', 'no-cache').header('x-content-type-options', 'nosniff').send(body);
    });
  }
}
