/**
 * `npm run query -- "SQL"`: runs one query against a canopy root and prints the answer as an
 * aligned table, each bounded or approximate cell with its interval and label
 * (`12 [10, 15] bounded`) and, where the root estimated it, the estimate with its 95 %
 * interval (`≈ 14 [12, 15] 95%`), then the answer's label, coverage and missing shards.
 * While NDJSON snapshots arrive, a one-line progress bar (shards answered) is drawn on
 * stderr when stderr is a terminal.
 *
 * Options: --url URL (default $CANOPY_URL, else http://127.0.0.1:$PORT, PORT default 8080)
 *          --json  --arrow FILE  --deadline MS  --exact  --trace  --help
 * Environment: CANOPY_URL, PORT (the root, when --url is not given), CANOPY_API_TOKEN (sent as
 * `Authorization: Bearer` when set, for a root that requires it; never printed).
 * Exit code 0 with an answer (whatever its label), 1 on any error (printed as `CODE: message`).
 */
import { writeFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { parseArgs } from 'node:util';
import { RecordBatchReader, Type, type Field } from 'apache-arrow';
import { Agent, fetch, type Response } from 'undici';
import type { ColumnType } from '../merge/index.ts';
import type { AnswerJSON, ApiErrorJSON } from '../root/api.ts';
import { jsonValue } from '../root/format.ts';

/** Shard counts of an answer by outcome. */
type Coverage = AnswerJSON['coverage'];

const USAGE = `usage: npm run query -- [options] "SELECT ..."
  --url URL       the root (default: $CANOPY_URL, else http://127.0.0.1:$PORT, PORT 8080)
  --json          print the final answer as JSON
  --arrow FILE    fetch the answer as Arrow IPC, write it to FILE, print its table
  --deadline MS   deadline for the whole query, ms (default: the root's, 30000)
  --exact         group top-k: run the refinement round so the top k is exact
  --trace         per-gather timings: which child was last and how long each gather waited
                  (not carried by --arrow)
  -h, --help      this text
  environment: CANOPY_URL, PORT (the root when --url is absent), CANOPY_API_TOKEN (bearer token for the root)`;

/** Where the CLI writes, and whether it may draw a progress bar. */
export interface QueryCliIO {
  readonly stdout: (s: string) => void;
  readonly stderr: (s: string) => void;
  /** Draw the progress bar on stderr (stderr is a terminal). */
  readonly progress: boolean;
  /** Terminal width for the progress bar (default 80). */
  readonly columns?: number;
  /** Cancels the request (Ctrl-C). */
  readonly signal?: AbortSignal;
}

/** An error body's `error` as the root sends it. */
type ErrorJSON = Pick<ApiErrorJSON, 'code' | 'message' | 'position'>;

/** An error to report: its code and message, then exit 1. */
class CliError extends Error {
  constructor(
    readonly code: string,
    message: string,
    readonly body?: unknown,
  ) {
    super(message);
  }
}

// ---------------------------------------------------------------- formatting

const NUMERIC = new Set(['int64', 'int128', 'float64']);

/** One JSON value of a column type as table text. */
export function formatValue(v: unknown, type: string): string {
  if (v === null || v === undefined) return 'NULL';
  if (type === 'float64' && typeof v === 'number') {
    const a = Math.abs(v);
    if (a !== 0 && (a >= 1e15 || a < 1e-4)) return v.toExponential(6);
    return String(Number(v.toFixed(6)));
  }
  if (type === 'timestamp' && typeof v === 'string') return v.endsWith('T00:00:00.000Z') ? v.slice(0, 10) : v;
  return String(v);
}

const width = (s: string): number => [...s].length;
const padEnd = (s: string, w: number): string => s + ' '.repeat(Math.max(0, w - width(s)));
const padStart = (s: string, w: number): string => ' '.repeat(Math.max(0, w - width(s))) + s;

/**
 * The answer's rows as an aligned table: per column, the value (numbers right-aligned), then
 * for bounded or approximate cells the interval `[lo, hi]` and the cell's label.
 */
export function formatTable(a: AnswerJSON): string {
  const cols = a.columns.map((c, j) => {
    const parts = a.rows.map((row, i) => {
      const cell = a.cells?.[i]?.[j] ?? null;
      const value = formatValue(row[j], c.type);
      if (cell === null) return { value, interval: '', label: '', estimate: '' };
      const lo = cell.lo === null || cell.lo === undefined ? '-inf' : formatValue(cell.lo, c.type);
      const hi = cell.hi === null || cell.hi === undefined ? '+inf' : formatValue(cell.hi, c.type);
      const bounded = !(cell.lo == null && cell.hi == null);
      const err = typeof cell.stderr === 'number' ? ` ±${formatValue(cell.stderr, 'float64')}` : '';
      const e = cell.estimate;
      const estimate = e === undefined ? '' : `≈ ${formatValue(e.value, c.type)} [${formatValue(e.lo, c.type)}, ${formatValue(e.hi, c.type)}] ${Math.round(e.confidence * 100)}%`;
      return { value, interval: bounded ? `[${lo}, ${hi}]${err}` : err.trim(), label: cell.label, estimate };
    });
    const vw = Math.max(0, ...parts.map((p) => width(p.value)));
    const iw = Math.max(0, ...parts.map((p) => width(p.interval)));
    const lw = Math.max(0, ...parts.map((p) => width(p.label)));
    const ew = Math.max(0, ...parts.map((p) => width(p.estimate)));
    const right = NUMERIC.has(c.type);
    const texts = parts.map((p) => {
      let t = right ? padStart(p.value, vw) : padEnd(p.value, vw);
      if (iw > 0) t += ` ${padEnd(p.interval, iw)}`;
      if (lw > 0) t += ` ${padEnd(p.label, lw)}`;
      if (ew > 0) t += `  ${padEnd(p.estimate, ew)}`;
      return t;
    });
    const w = Math.max(width(c.name), ...texts.map(width));
    return { name: c.name, right, w, texts };
  });
  const line = (cells: string[]): string => cells.join('  ').trimEnd();
  const out = [line(cols.map((c) => (c.right ? padStart(c.name, c.w) : padEnd(c.name, c.w)))), line(cols.map((c) => '-'.repeat(c.w)))];
  a.rows.forEach((_, i) => out.push(line(cols.map((c) => (c.right ? padStart(c.texts[i]!, c.w) : padEnd(c.texts[i]!, c.w))))));
  return `${out.join('\n')}\n`;
}

const ms = (v: number): string => `${Math.round(v * 10) / 10} ms`;

/** Everything after the table: label, coverage, missing shards, stats, stragglers. */
export function formatSummary(a: AnswerJSON): string {
  const out: string[] = [`(${a.rows.length} row${a.rows.length === 1 ? '' : 's'})`];
  const why = (a.missing ?? []).length > 0 ? 'a missing shard may hold other groups' : 'values near the LIMIT cut-off are not exact';
  out.push(`label: ${a.label}${a.rows_complete === false ? ` (row set not proven complete: ${why})` : ''}`);
  if ((a.cells ?? []).some((r) => r.some((cell) => cell?.estimate !== undefined))) {
    out.push('estimates: ≈ value [lo, hi] at 95% confidence from the shards that answered (a ratio estimator; not a guarantee, unlike [lo, hi] before it)');
  }
  if (a.estimate_note !== undefined) out.push(`estimate: ${a.estimate_note}`);
  const c = a.coverage;
  if (c !== undefined) {
    const parts = [`${c.answered}/${c.shards} shards answered`, `${c.pruned} pruned`, `${c.omitted} omitted`, `${c.failed} failed`];
    if (c.pending !== undefined) parts.push(`${c.pending} pending`);
    out.push(`coverage: ${parts.join(', ')}`);
  }
  const missing = a.missing ?? [];
  if (missing.length > 0) {
    out.push(`missing: ${missing.length} shard${missing.length === 1 ? '' : 's'}`);
    const pw = Math.max(...missing.map((m) => width(m.path)));
    for (const m of missing.slice(0, 20)) out.push(`  ${padEnd(m.path, pw)}  shard ${m.shard}  ${m.reason}${m.error === null ? '' : `  ${m.error.code}: ${m.error.message}`}`);
    if (missing.length > 20) out.push(`  ... and ${missing.length - 20} more`);
  }
  const s = a.stats;
  if (s !== undefined) {
    const parts: string[] = [];
    if (s.elapsed_ms !== undefined) parts.push(ms(s.elapsed_ms));
    if (s.rows_scanned !== undefined) parts.push(`${s.rows_scanned} rows scanned`);
    if (s.round_trips !== undefined) parts.push(`${s.round_trips} round trip${s.round_trips === 1 ? '' : 's'}`);
    out.push(`stats: ${parts.join(', ')}`);
  }
  const stragglers = a.trace?.stragglers ?? [];
  if (stragglers.length > 0) {
    out.push('stragglers (the last child of each gather; longest wait first):');
    const sorted = [...stragglers].sort((x, y) => y.waited_ms - x.waited_ms);
    const gw = Math.max(...sorted.map((x) => width(x.gather)));
    const cw = Math.max(...sorted.map((x) => width(x.last_child)));
    for (const x of sorted.slice(0, 20)) out.push(`  ${padEnd(x.gather, gw)}  last ${padEnd(x.last_child, cw)}  at ${ms(x.elapsed_ms)}, waited ${ms(x.waited_ms)}`);
    if (sorted.length > 20) out.push(`  ... and ${sorted.length - 20} more gathers`);
  }
  return `${out.join('\n')}\n`;
}

/** The one-line progress bar of a snapshot. */
export function progressLine(c: Coverage, label: string, columns: number): string {
  const done = c.answered + c.pruned;
  const total = Math.max(1, c.shards);
  const barWidth = 24;
  const filled = Math.round((barWidth * done) / total);
  const extra = [c.pending !== undefined ? `${c.pending} pending` : '', c.failed > 0 ? `${c.failed} failed` : '', c.omitted > 0 ? `${c.omitted} omitted` : ''].filter(Boolean);
  const text = [`[${'#'.repeat(filled)}${'.'.repeat(barWidth - filled)}] ${c.answered}/${c.shards} shards answered`, ...extra, `${label} so far`].join(' · ');
  return text.slice(0, Math.max(10, columns - 1));
}

// ---------------------------------------------------------------- requests

function errorOf(body: unknown, status: number): CliError {
  const e = (body as { error?: ErrorJSON } | null)?.error;
  if (e === undefined || typeof e.code !== 'string') return new CliError(`HTTP_${status}`, `the root answered HTTP ${status} without an error body`, body);
  const at = e.position === undefined || e.message.includes(`line ${e.position.line}`) ? '' : ` (line ${e.position.line}, column ${e.position.column})`;
  return new CliError(e.code, `${e.message}${at}`, body);
}

async function readError(res: Response): Promise<CliError> {
  const text = await res.text();
  try {
    return errorOf(JSON.parse(text), res.status);
  } catch {
    return new CliError(`HTTP_${res.status}`, text.slice(0, 500) || `the root answered HTTP ${res.status}`);
  }
}

function columnTypeOf(f: Field): ColumnType {
  switch (f.type.typeId) {
    case Type.Int:
      return 'int64';
    case Type.Float:
      return 'float64';
    case Type.Timestamp:
      return 'timestamp';
    case Type.Date:
      return 'date';
    case Type.Decimal:
      return 'int128';
    default:
      return 'string';
  }
}

/** Reads an Arrow answer back into the JSON shape (labels and bounds from the schema metadata). */
export function answerFromArrow(bytes: Uint8Array): AnswerJSON {
  const reader = RecordBatchReader.from(bytes).open();
  const schema = reader.schema;
  const batches = reader.readAll();
  const meta = (k: string): unknown => {
    const v = schema.metadata.get(k);
    return v === undefined ? undefined : JSON.parse(v);
  };
  const columns = schema.fields.map((f) => ({ name: f.name, type: columnTypeOf(f) }));
  const rows: unknown[][] = [];
  for (const b of batches) {
    for (let i = 0; i < b.numRows; i++) {
      rows.push(
        columns.map((c, j) => {
          const child = b.getChildAt(j);
          const v = child?.get(i) as unknown;
          if (v === null || v === undefined) return null;
          // The µs count itself: apache-arrow's get() gives ms as a double, which rounds.
          if (c.type === 'timestamp') return jsonValue(Number((child!.data[0]!.values as BigInt64Array)[i]), 'timestamp');
          if (c.type === 'date') return jsonValue((child!.data[0]!.values as Int32Array)[i]! * 86_400_000_000, 'date');
          if (c.type === 'int128') return jsonValue(BigInt(String(v)), 'int128');
          if (c.type === 'int64') return jsonValue(typeof v === 'bigint' ? v : BigInt(v as number), 'int64');
          if (c.type === 'float64') return jsonValue(Number(v), 'float64');
          return String(v);
        }),
      );
    }
  }
  const label = (schema.metadata.get('canopy.label') ?? 'exact') as AnswerJSON['label'];
  const cells = meta('canopy.cells') as AnswerJSON['cells'] | null | undefined;
  return {
    columns,
    rows: rows as AnswerJSON['rows'],
    label,
    ...(cells == null ? {} : { cells }),
    rows_complete: meta('canopy.rows_complete') as boolean,
    final: true,
    coverage: meta('canopy.coverage') as Coverage,
    missing: (meta('canopy.missing') as AnswerJSON['missing']) ?? [],
    stats: (meta('canopy.stats') as AnswerJSON['stats'] | undefined) ?? { elapsed_ms: 0, rows_scanned: 0, round_trips: 0 },
    ...(schema.metadata.has('canopy.warnings') ? { warnings: meta('canopy.warnings') as NonNullable<AnswerJSON['warnings']> } : {}),
    ...(schema.metadata.has('canopy.estimate_note') ? { estimate_note: schema.metadata.get('canopy.estimate_note')! } : {}),
  };
}

interface Options {
  readonly url: string;
  readonly sql: string;
  readonly json: boolean;
  readonly arrow: string | undefined;
  readonly deadline: number | undefined;
  readonly exact: boolean;
  readonly trace: boolean;
}

function parse(argv: readonly string[]): Options | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args: [...argv],
      options: {
        url: { type: 'string' },
        json: { type: 'boolean' },
        arrow: { type: 'string' },
        deadline: { type: 'string' },
        exact: { type: 'boolean' },
        trace: { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (e) {
    throw new CliError('CANOPY_ERR_BAD_REQUEST', `${(e as Error).message}\n${USAGE}`);
  }
  const { values, positionals } = parsed;
  if (values.help === true) return 'help';
  const sql = positionals.join(' ').trim();
  if (sql === '') throw new CliError('CANOPY_ERR_BAD_REQUEST', `give the SQL as an argument\n${USAGE}`);
  let deadline: number | undefined;
  if (values.deadline !== undefined) {
    deadline = Number(values.deadline);
    if (!Number.isFinite(deadline) || deadline <= 0) throw new CliError('CANOPY_ERR_BAD_REQUEST', `--deadline must be a positive number of milliseconds, got '${values.deadline}'`);
  }
  const env = (k: string): string | undefined => (process.env[k] === '' ? undefined : process.env[k]);
  const url = (values.url ?? env('CANOPY_URL') ?? `http://127.0.0.1:${env('PORT') ?? 8080}`).replace(/\/+$/, '');
  if (!/^https?:\/\//.test(url)) throw new CliError('CANOPY_ERR_BAD_REQUEST', `${values.url === undefined && env('CANOPY_URL') !== undefined ? 'CANOPY_URL' : '--url'} must start with http:// or https://, got '${url}'`);
  return { url, sql, json: values.json === true, arrow: values.arrow, deadline, exact: values.exact === true, trace: values.trace === true };
}

async function post(o: Options, accept: string, dispatcher: Agent, signal: AbortSignal | undefined): Promise<Response> {
  const body: Record<string, unknown> = { sql: o.sql };
  if (o.deadline !== undefined) body.deadline_ms = o.deadline;
  if (o.exact) body.exact = true;
  if (o.trace) body.trace = true;
  const token = process.env.CANOPY_API_TOKEN === '' ? undefined : process.env.CANOPY_API_TOKEN;
  try {
    return await fetch(`${o.url}/v1/query`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept, ...(token === undefined ? {} : { authorization: `Bearer ${token}` }) },
      body: JSON.stringify(body),
      dispatcher,
      ...(signal === undefined ? {} : { signal }),
    });
  } catch (e) {
    if ((e as Error).name === 'AbortError') throw new CliError('CANOPY_ERR_CANCELLED', 'cancelled');
    const cause = (e as { cause?: { code?: string; message?: string } }).cause;
    throw new CliError(cause?.code ?? 'CONNECTION', `cannot reach the root at ${o.url}: ${cause?.message ?? (e as Error).message}`);
  }
}

/** Streams NDJSON snapshots (progress on stderr) and returns the final answer. */
async function streamAnswer(o: Options, io: QueryCliIO, dispatcher: Agent): Promise<AnswerJSON> {
  const res = await post(o, 'application/x-ndjson', dispatcher, io.signal);
  if (!res.ok) throw await readError(res);
  if (res.body === null) throw new CliError('CONNECTION', 'the root sent no body');
  const decoder = new TextDecoder();
  let buf = '';
  let drawn = false;
  const clear = (): void => {
    if (drawn) io.stderr('\r\x1b[2K');
    drawn = false;
  };
  try {
    for await (const chunk of res.body) {
      buf += decoder.decode(chunk as Uint8Array, { stream: true });
      let nl: number;
      while ((nl = buf.indexOf('\n')) >= 0) {
        const line = buf.slice(0, nl).trim();
        buf = buf.slice(nl + 1);
        if (line === '') continue;
        const msg = JSON.parse(line) as AnswerJSON & { error?: ErrorJSON };
        if (msg.error !== undefined) {
          clear();
          throw errorOf(msg, res.status);
        }
        if (msg.final === true) {
          clear();
          return msg;
        }
        if (io.progress && msg.coverage !== undefined) {
          io.stderr(`\r\x1b[2K${progressLine(msg.coverage, msg.label, io.columns || 80)}`);
          drawn = true;
        }
      }
    }
  } catch (e) {
    clear();
    if (e instanceof CliError) throw e;
    if ((e as Error).name === 'AbortError') throw new CliError('CANOPY_ERR_CANCELLED', 'cancelled');
    throw new CliError('CONNECTION', `the answer stream broke: ${(e as Error).message}`);
  }
  clear();
  throw new CliError('CONNECTION', 'the answer stream ended before the final answer');
}

/**
 * Runs the CLI with its arguments; returns the exit code (0 answered, 1 error).
 */
export async function runQueryCli(argv: readonly string[], io: QueryCliIO): Promise<number> {
  let json = false;
  // No client-side timeouts: the query's deadline, enforced by the root, bounds the wait.
  const dispatcher = new Agent({ headersTimeout: 0, bodyTimeout: 0 });
  try {
    const o = parse(argv);
    if (o === 'help') {
      io.stdout(`${USAGE}\n`);
      return 0;
    }
    json = o.json;
    let answer: AnswerJSON;
    if (o.arrow !== undefined) {
      const res = await post(o, 'application/vnd.apache.arrow.stream', dispatcher, io.signal);
      if (!res.ok) throw await readError(res);
      const bytes = new Uint8Array(await res.arrayBuffer());
      const file = resolve(o.arrow);
      await writeFile(file, bytes);
      io.stderr(`wrote the Arrow answer (${bytes.length} bytes) to ${file}\n`);
      answer = answerFromArrow(bytes);
    } else {
      answer = await streamAnswer(o, io, dispatcher);
    }
    if (o.json) io.stdout(`${JSON.stringify(answer, null, 2)}\n`);
    else io.stdout(`${formatTable(answer)}${formatSummary(answer)}`);
    return 0;
  } catch (e) {
    const err = e instanceof CliError ? e : new CliError('CANOPY_ERR_INTERNAL', e instanceof Error ? e.message : String(e));
    if (json && err.body !== undefined) io.stdout(`${JSON.stringify(err.body, null, 2)}\n`);
    io.stderr(`canopy: ${err.code}: ${err.message}\n`);
    return 1;
  } finally {
    await dispatcher.destroy();
  }
}

const isMain = process.argv[1] !== undefined && import.meta.url === pathToFileURL(resolve(process.argv[1])).href;
if (isMain) {
  const ac = new AbortController();
  process.once('SIGINT', () => ac.abort());
  const code = await runQueryCli(process.argv.slice(2), {
    stdout: (s) => process.stdout.write(s),
    stderr: (s) => process.stderr.write(s),
    progress: process.stderr.isTTY === true,
    columns: process.stderr.columns || 80,
    signal: ac.signal,
  });
  process.exitCode = code;
}
