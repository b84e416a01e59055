/**
 * The statements of one session: SELECTs over served tables go to the root engine (the same
 * `Root.query` the HTTP API calls, under the same admission control), catalog queries to
 * catalog.ts, SET/RESET/SHOW to the session settings, transaction control is accepted (canopy
 * is read-only, so a transaction changes nothing). A non-exact answer comes with a notice
 * (SQLSTATE 01000) saying its label, coverage and missing subtrees; `SHOW canopy.last_answer`
 * returns the last answer's label, coverage, missing shards and per-cell bounds as rows.
 */
import { CanopyError, toCanopyError, type ColumnType, type Scalar } from '../merge/index.ts';
import { planQuery, type Admission, type QueryAnswer, type Root, type RootMetrics } from '../root/index.ts';
import { catalogAnswer, type CatalogContext } from './catalog.ts';
import { commandResult, rowsResult, type PgColumn, type PgResult } from './result.ts';
import { parseSet, type SessionSettings } from './settings.ts';
import { bindParams, paramCount, type BoundParam } from './sqltext.ts';
import { textValue } from './types.ts';
import { PgSqlError, type NoticeFields } from './wire.ts';

/** What the statements of a session run on. */
export interface StatementsContext extends CatalogContext {
  readonly root: Root;
  readonly admission: Admission;
  readonly settings: SessionSettings;
  readonly metrics?: RootMetrics;
}

const TX_BEGIN = /^(begin|start\s+transaction)\b/i;
const TX_END = /^(commit|end|rollback|abort)\b/i;
const NO_OPS: readonly [RegExp, string][] = [
  [/^discard\s+all\b/i, 'DISCARD ALL'],
  [/^deallocate\b/i, 'DEALLOCATE'],
  [/^listen\b/i, 'LISTEN'],
  [/^unlisten\b/i, 'UNLISTEN'],
  [/^close\b/i, 'CLOSE CURSOR'],
  [/^savepoint\b/i, 'SAVEPOINT'],
  [/^release\b/i, 'RELEASE'],
];
const WRITES = /^(insert|update|delete|merge|create|drop|alter|truncate|copy|grant|revoke|vacuum|analyze|cluster|reindex|comment|lock|call|do|refresh|import|security|reassign)\b/i;

/**
 * Statements that are not writes but that canopy does not run, refused (0A000) before their
 * parameters are bound (a PREPARE's $1 is its own, not the client's), with what to use instead.
 */
const UNSUPPORTED: readonly [RegExp, string][] = [
  [/^(prepare|execute)\b/i, "SQL-level PREPARE and EXECUTE are not supported; a driver's prepared statements (the extended protocol's Parse, Bind and Execute, with $1 parameters) are"],
  [/^explain\b/i, 'EXPLAIN is not supported; POST /v1/query with "trace": true gives each gather\'s timings and each shard\'s provenance'],
];

const LAST_ANSWER_COLUMNS: readonly PgColumn[] = [
  { name: 'kind', type: 'string' },
  { name: 'row', type: 'int64' },
  { name: 'column', type: 'string' },
  { name: 'label', type: 'string' },
  { name: 'lo', type: 'string' },
  { name: 'hi', type: 'string' },
  { name: 'detail', type: 'string' },
];

/** The statements of one session. */
export class Statements {
  readonly #ctx: StatementsContext;
  #last: QueryAnswer | null = null;

  constructor(ctx: StatementsContext) {
    this.#ctx = ctx;
  }

  #columnTypes(): Map<string, ColumnType> {
    const m = new Map<string, ColumnType>();
    for (const s of this.#ctx.root.schemas.values()) for (const c of s.columns) m.set(c.name.toLowerCase(), c.type);
    return m;
  }

  /** True when the statement returns rows (a SELECT-like statement or SHOW). */
  returnsRows(sql: string): boolean {
    // from: DuckDB's FROM-first statements (FROM t [SELECT ...]).
    return /^\s*\(?\s*(select|with|values|table|show|from)\b/i.test(stripComments(sql));
  }

  /**
   * The columns the statement would return, without running it on the tree; null when it
   * returns no rows. Parameters are taken as NULL.
   */
  describe(sql: string): readonly PgColumn[] | null {
    if (!this.returnsRows(sql)) return null;
    const n = paramCount(sql);
    const bound = n === 0 ? sql : bindParams(sql, Array.from({ length: n }, () => ({ oid: 0, text: null })), this.#columnTypes()).sql;
    const text = stripComments(bound).trim();
    if (/^show\b/i.test(text)) return this.#show(text).columns;
    const cat = catalogAnswer(text, this.#ctx);
    if (cat !== null) return cat.columns;
    const plan = planQuery(text, this.#ctx.root.schemas);
    const cols = plan.scan.rows === null ? plan.output : plan.scan.rows.columns.slice(0, plan.scan.rows.visible);
    return cols.map((c) => ({ name: c.name, type: c.type }));
  }

  /**
   * Runs one statement. `tx` is the session's transaction state ('E': a failed transaction
   * block, where only COMMIT/ROLLBACK are accepted).
   * @throws CanopyError from the engine (positions relative to the statement as sent) or PgSqlError
   */
  async execute(sql: string, params: readonly BoundParam[], signal: AbortSignal, tx: 'I' | 'T' | 'E'): Promise<PgResult> {
    const raw = stripComments(sql).trim();
    for (const [re, message] of UNSUPPORTED) if (re.test(raw) && tx !== 'E') throw new PgSqlError('0A000', message);
    const n = paramCount(sql);
    const bound = n === 0 && params.length === 0 ? { sql, originalOffset: (o: number) => o } : bindParams(sql, params, this.#columnTypes());
    const text = stripComments(bound.sql).trim().replace(/;\s*$/, '');
    if (text === '') return commandResult('EMPTY');
    if (tx === 'E' && !TX_END.test(text)) throw new PgSqlError('25P02', 'current transaction is aborted, commands ignored until end of transaction block');
    if (TX_BEGIN.test(text)) return commandResult('BEGIN');
    if (TX_END.test(text)) return commandResult(/^(rollback|abort)/i.test(text) ? 'ROLLBACK' : 'COMMIT');
    const set = /^(set|reset)\b/i.test(text) ? parseSet(text) : null;
    if (set !== null) {
      if (set.kind === 'set') this.#ctx.settings.set(set.name, set.value);
      else if (set.name === null) this.#ctx.settings.resetAll();
      else this.#ctx.settings.set(set.name, null);
      return commandResult(set.kind === 'set' ? 'SET' : 'RESET');
    }
    if (/^set\s+(session\s+characteristics|transaction)\b/i.test(text)) return commandResult('SET');
    if (/^(set|reset)\b/i.test(text)) throw new PgSqlError('42601', `cannot read this SET statement: ${text.slice(0, 80)}`);
    for (const [re, tag] of NO_OPS) {
      if (re.test(text)) {
        if (tag === 'DISCARD ALL') this.#ctx.settings.resetAll();
        return commandResult(tag);
      }
    }
    if (/^show\b/i.test(text)) return this.#show(text);
    if (WRITES.test(text)) throw new PgSqlError('25006', `canopy is a read-only analytics engine: ${text.split(/\s/)[0]!.toUpperCase()} is not supported`);
    const cat = catalogAnswer(text, this.#ctx);
    if (cat !== null) return cat;
    try {
      return await this.#query(text, signal);
    } catch (e) {
      // The engine's offset is into `text` (trimmed; comments blanked to the same length):
      // give it in the statement as the client sent it, before trimming and binding.
      const err = toCanopyError(e);
      if (err.position === undefined) throw err;
      const stripped = stripComments(bound.sql);
      const leading = stripped.length - stripped.trimStart().length;
      const offset = bound.originalOffset(err.position.offset + leading);
      if (offset === err.position.offset) throw err;
      throw new CanopyError(err.code, err.message, { position: { ...err.position, offset }, details: err.details, cause: err });
    }
  }

  async #query(sql: string, signal: AbortSignal): Promise<PgResult> {
    const req = this.#ctx.settings.request(sql);
    const t0 = performance.now();
    const seconds = (): number => (performance.now() - t0) / 1000;
    try {
      const { release, remainingMs } = await this.#ctx.admission.admit(req.deadline_ms ?? 30_000, signal);
      let a: QueryAnswer;
      try {
        a = await this.#ctx.root.query({ ...req, deadline_ms: remainingMs }, signal);
      } finally {
        release();
      }
      this.#ctx.metrics?.answered(a, seconds());
      this.#last = a;
      return { ...rowsResult(a.columns, a.rows, labelNotices(a)), answer: a };
    } catch (e) {
      this.#ctx.metrics?.failed(toCanopyError(e).code, seconds());
      throw e;
    }
  }

  #show(text: string): PgResult {
    const alias: Record<string, string> = { 'transaction isolation level': 'transaction_isolation', 'time zone': 'TimeZone', 'session authorization': 'session_authorization' };
    const words = text.replace(/^show\s+/i, '').trim().toLowerCase().replace(/\s+/g, ' ');
    const m = /^show\s+("?[\w.]+"?)$/i.exec(alias[words] === undefined ? text : `SHOW ${alias[words]}`);
    if (m === null) throw new PgSqlError('42601', `cannot read this SHOW statement: ${text.slice(0, 80)}`);
    const name = m[1]!.replaceAll('"', '');
    const key = name.toLowerCase();
    if (key === 'canopy.last_answer') return rowsResult(LAST_ANSWER_COLUMNS, lastAnswerRows(this.#last));
    if (key === 'all') return rowsResult([{ name: 'name', type: 'string' }, { name: 'setting', type: 'string' }, { name: 'description', type: 'string' }], this.#ctx.settings.all().map(([k, v]) => [k, v, '']));
    const v = this.#ctx.settings.show(key);
    if (v === undefined) throw new PgSqlError('42704', `unrecognized configuration parameter "${name}"`);
    return rowsResult([{ name: key, type: 'string' }], [[v]]);
  }
}

/**
 * Blanks -- and /* *\/ comments outside strings (for classifying statements): each character
 * of a comment but a line break becomes a space, so offsets (error positions) are kept.
 */
function stripComments(sql: string): string {
  return sql.replace(/('(?:[^'\\]|''|\\.)*')|--[^\n]*|\/\*[\s\S]*?\*\//g, (m, str: string | undefined) => str ?? m.replace(/[^\n]/g, ' '));
}

/** The notice of a non-exact answer: label, coverage and missing subtrees (none for an exact one). */
export function labelNotices(a: QueryAnswer): NoticeFields[] {
  if (a.label === 'exact') return [];
  const c = a.coverage;
  const why = a.rowsComplete ? '' : '; the row set is not proven complete (a missing shard may hold other rows or groups)';
  const missing = a.missing.map((m) => `${m.path} (shard ${m.shard}, ${m.reason}${m.error === null ? '' : `: ${m.error.code}`})`);
  const cells = (a.cells ?? []).flat().filter((x) => x !== null).length;
  return [
    {
      severity: 'NOTICE',
      code: '01000',
      message: `canopy: answer is ${a.label}, not exact: ${c.answered + c.pruned} of ${c.shards} shards covered (${c.answered} answered, ${c.pruned} pruned, ${c.failed} failed, ${c.omitted} omitted)${why}`,
      detail: `${cells} cell(s) bounded or approximate; missing: ${missing.length === 0 ? 'none' : `${missing.slice(0, 20).join(', ')}${missing.length > 20 ? `, and ${missing.length - 20} more` : ''}`}`,
      hint: "SHOW canopy.last_answer lists each cell's [lo, hi]; SET canopy.policy = 'all' or a larger canopy.deadline_ms waits longer for shards",
    },
  ];
}

/** Rows of `SHOW canopy.last_answer` (kind, row, column, label, lo, hi, detail). */
function lastAnswerRows(a: QueryAnswer | null): Scalar[][] {
  if (a === null) return [['answer', null, null, null, null, null, 'no query has been answered in this session yet']];
  const c = a.coverage;
  const out: Scalar[][] = [
    ['answer', null, null, a.label, null, null, `rows=${a.rows.length} rows_complete=${a.rowsComplete} elapsed_ms=${a.stats.elapsed_ms} rows_scanned=${a.stats.rows_scanned} round_trips=${a.stats.round_trips}`],
    ['coverage', null, null, null, null, null, `shards=${c.shards} answered=${c.answered} pruned=${c.pruned} failed=${c.failed} omitted=${c.omitted}`],
  ];
  for (const m of a.missing) out.push(['missing', null, null, m.reason, null, null, `${m.path} shard ${m.shard}${m.error === null ? '' : `: ${m.error.code}: ${m.error.message}`}`]);
  const text = (v: Scalar | undefined, type: string): string | null => (v === undefined || v === null ? null : textValue(v, type));
  (a.cells ?? []).forEach((r, i) =>
    r.forEach((cell, j) => {
      if (cell === null) return;
      const col = a.columns[j]!;
      const extra = [cell.stderr === undefined ? '' : `stderr=${cell.stderr}`, cell.confidence === undefined ? '' : `confidence=${cell.confidence}`].filter((s) => s !== '').join(' ');
      out.push(['cell', BigInt(i + 1), col.name, cell.label, text(cell.lo, col.type), text(cell.hi, col.type), extra === '' ? null : extra]);
    }),
  );
  return out;
}
