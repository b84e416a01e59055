// @ts-check
/**
 * Talking to the root: the API token (sessionStorage), `POST /v1/query` read as NDJSON
 * snapshots, the same query in another format (exports), and `GET /v1/catalog`.
 */

const TOKEN_KEY = 'canopy.apiToken';

/** The API token the user gave in this tab (sessionStorage), or '' when none. */
export function token() {
  try {
    return window.sessionStorage.getItem(TOKEN_KEY) ?? '';
  } catch {
    return '';
  }
}

/**
 * Keeps (or with '' forgets) the tab's API token.
 * @param {string} value
 */
export function setToken(value) {
  try {
    if (value === '') window.sessionStorage.removeItem(TOKEN_KEY);
    else window.sessionStorage.setItem(TOKEN_KEY, value);
  } catch {
    // Storage disabled: the token lives only in the field until the page is closed.
  }
}

/**
 * Request headers: JSON body, the given Accept, and the token when one is kept.
 * @param {string} accept
 * @returns {Record<string, string>}
 */
function headers(accept) {
  /** @type {Record<string, string>} */
  const out = { 'content-type': 'application/json', accept };
  const t = token();
  if (t !== '') out.authorization = `Bearer ${t}`;
  return out;
}

/**
 * The coded error of a refused request (400, 401, 406, 413, 503...), with its HTTP status.
 * @param {Response} res
 * @returns {Promise<import('./types.js').ApiError>}
 */
async function refusal(res) {
  const text = await res.text();
  /** @type {import('./types.js').ApiError | undefined} */
  let err;
  try {
    err = JSON.parse(text).error;
  } catch {
    err = undefined;
  }
  err ??= { code: `HTTP ${res.status}`, message: text.slice(0, 500) || res.statusText };
  const retry = res.headers.get('retry-after');
  return { ...err, status: res.status, ...(retry ? { retryAfter: retry } : {}) };
}

/**
 * @typedef {object} StreamHandlers
 * @property {(a: import('./types.js').Answer) => void} snapshot a progressive snapshot
 * @property {(a: import('./types.js').Answer) => void} final the answer
 * @property {(e: import('./types.js').ApiError, sentToken: boolean) => void} error refused, or failed while streaming
 */

/**
 * POSTs the query with Accept: application/x-ndjson and hands each line (one JSON snapshot
 * per line, the last with final: true, or {error, final: true}) to `on` as it arrives.
 * Resolves when the final line or error was handed over, or when `signal` aborted (nothing
 * more is handed over after that).
 * @param {Record<string, unknown>} body the request body
 * @param {AbortSignal} signal
 * @param {StreamHandlers} on
 * @throws {Error} when the root cannot be reached or the stream ends before the final line
 */
export async function streamQuery(body, signal, on) {
  const sent = token() !== '';
  const res = await fetch('/v1/query', { method: 'POST', headers: headers('application/x-ndjson'), body: JSON.stringify(body), signal });
  if (signal.aborted) return;
  if (!res.ok) {
    const err = await refusal(res);
    if (!signal.aborted) on.error(err, sent);
    return;
  }
  /** @param {any} msg */
  const last = (msg) => (msg.error ? on.error(msg.error, sent) : on.final(msg));
  if (!(res.headers.get('content-type') ?? '').includes('ndjson') || res.body === null) {
    // Not a stream (a proxy that rewrote Accept, say): the whole body is the answer.
    const whole = await res.json();
    if (!signal.aborted) last(whole);
    return;
  }
  const reader = res.body.getReader();
  signal.addEventListener('abort', () => void reader.cancel().catch(() => undefined), { once: true });
  const decoder = new TextDecoder();
  let buf = '';
  for (;;) {
    const { value, done } = await reader.read();
    if (signal.aborted) return;
    buf += decoder.decode(value ?? new Uint8Array(), { stream: !done });
    let nl;
    while ((nl = buf.indexOf('\n')) >= 0) {
      const line = buf.slice(0, nl).trim();
      buf = buf.slice(nl + 1);
      if (line === '') continue;
      const msg = JSON.parse(line);
      if (msg.error || msg.final) {
        last(msg);
        // Read to the end (the root closes the stream after the final line), so the request completes.
        while (!(await reader.read()).done);
        return;
      }
      on.snapshot(msg);
    }
    if (done) break;
  }
  if (buf.trim() !== '') {
    last(JSON.parse(buf));
    return;
  }
  throw new Error('the stream ended before the final answer');
}

/** Export formats the root serves, by name: media type and file extension. */
export const FORMATS = {
  csv: { accept: 'text/csv', ext: 'csv' },
  json: { accept: 'application/json', ext: 'json' },
  arrow: { accept: 'application/vnd.apache.arrow.stream', ext: 'arrow' },
  parquet: { accept: 'application/vnd.apache.parquet', ext: 'parquet' },
};

/**
 * Runs the query again asking the root for one export format (the answer is computed again:
 * its label may differ from the one on screen when shards come and go; the root says which in
 * `x-canopy-label`).
 * @param {Record<string, unknown>} body
 * @param {keyof typeof FORMATS} format
 * @returns {Promise<{ok: true, bytes: ArrayBuffer, type: string, label: string} | {ok: false, error: import('./types.js').ApiError}>}
 */
export async function fetchFormat(body, format) {
  const res = await fetch('/v1/query', { method: 'POST', headers: headers(FORMATS[format].accept), body: JSON.stringify(body) });
  if (!res.ok) return { ok: false, error: await refusal(res) };
  return { ok: true, bytes: await res.arrayBuffer(), type: res.headers.get('content-type') ?? FORMATS[format].accept, label: res.headers.get('x-canopy-label') ?? '' };
}

/**
 * GET a JSON route of the root with the token (the catalog).
 * @param {string} path
 * @returns {Promise<{ok: true, body: any} | {ok: false, error: import('./types.js').ApiError}>}
 */
export async function getJSON(path) {
  const t = token();
  const res = await fetch(path, { headers: t === '' ? {} : { authorization: `Bearer ${t}` } });
  if (!res.ok) return { ok: false, error: await refusal(res) };
  return { ok: true, body: await res.json() };
}
