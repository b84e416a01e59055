/**
 * Session settings: SET / RESET / SHOW of canopy's own (`canopy.policy`, `canopy.deadline_ms`,
 * `canopy.exact`, `canopy.min_coverage`, `canopy.shard_size`) and of the common client
 * settings, which are accepted and reported back but change nothing (canopy always speaks
 * UTF-8, UTC, ISO dates).
 */
import { CanopyError } from '../merge/index.ts';
import { parseQueryRequest, type QueryRequest } from '../root/index.ts';

/** The server's fixed parameters, reported at startup (ParameterStatus) and by SHOW. */
export function serverParameters(serverVersion: string, user: string, app: string): Map<string, string> {
  return new Map([
    ['server_version', serverVersion],
    ['server_encoding', 'UTF8'],
    ['client_encoding', 'UTF8'],
    ['DateStyle', 'ISO, MDY'],
    ['IntervalStyle', 'postgres'],
    ['TimeZone', 'UTC'],
    ['integer_datetimes', 'on'],
    ['standard_conforming_strings', 'on'],
    ['is_superuser', 'off'],
    ['session_authorization', user],
    ['application_name', app],
    ['default_transaction_read_only', 'on'],
    ['in_hot_standby', 'off'],
  ]);
}

/** Settings only SHOW reports (not sent at startup). */
const SHOW_ONLY: ReadonlyMap<string, string> = new Map([
  ['transaction_isolation', 'read committed'],
  ['transaction_read_only', 'on'],
  ['search_path', '"$user", public'],
  ['max_identifier_length', '63'],
  ['statement_timeout', '0'],
  ['lc_collate', 'C'],
  ['lc_ctype', 'C'],
  ['datestyle', 'ISO, MDY'],
  ['timezone', 'UTC'],
  ['extra_float_digits', '1'],
]);

/** canopy's settings and their values as SHOW prints them when not SET. */
const CANOPY_DEFAULTS: ReadonlyMap<string, string> = new Map([
  ['canopy.policy', 'partial'],
  ['canopy.deadline_ms', '30000'],
  ['canopy.exact', 'off'],
  ['canopy.min_coverage', ''],
  ['canopy.shard_size', ''],
]);

/** The settings of one session. */
export class SessionSettings {
  readonly #values = new Map<string, string>();
  readonly #fixed: Map<string, string>;
  readonly #maxDeadlineMs: number;

  constructor(fixed: Map<string, string>, maxDeadlineMs: number) {
    this.#fixed = fixed;
    this.#maxDeadlineMs = maxDeadlineMs;
  }

  /**
   * Sets one setting (name in any case). canopy.* values are checked as the JSON API checks
   * the same fields; unknown canopy.* names are refused; other names are kept as given.
   * @throws CanopyError CANOPY_ERR_BAD_REQUEST naming the setting and the allowed values
   */
  set(name: string, value: string | null): void {
    const key = name.toLowerCase();
    if (key.startsWith('canopy.')) {
      if (!CANOPY_DEFAULTS.has(key)) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `unrecognized configuration parameter "${name}"; canopy's are ${[...CANOPY_DEFAULTS.keys()].join(', ')}`);
      const next = new Map(this.#values);
      if (value === null) next.delete(key);
      else next.set(key, value);
      this.#request(next, '');
    }
    if (value === null) this.#values.delete(key);
    else this.#values.set(key, value);
  }

  /** Clears every setting (RESET ALL, DISCARD ALL). */
  resetAll(): void {
    this.#values.clear();
  }

  /**
   * The value SHOW prints, or undefined for an unknown name.
   */
  show(name: string): string | undefined {
    const key = name.toLowerCase();
    const fixed = [...this.#fixed].find(([k]) => k.toLowerCase() === key)?.[1];
    return this.#values.get(key) ?? CANOPY_DEFAULTS.get(key) ?? fixed ?? SHOW_ONLY.get(key);
  }

  /** Every setting with a value, for SHOW ALL. */
  all(): [string, string][] {
    const names = new Set([...this.#fixed.keys(), ...SHOW_ONLY.keys(), ...CANOPY_DEFAULTS.keys(), ...this.#values.keys()]);
    return [...names].map((n) => [n, this.show(n) ?? ''] as [string, string]).sort((a, b) => a[0].localeCompare(b[0]));
  }

  /**
   * The engine request for `sql` under these settings (checked like a JSON request body).
   * @throws CanopyError CANOPY_ERR_BAD_REQUEST for a setting that does not fit
   */
  request(sql: string): QueryRequest {
    return this.#request(this.#values, sql);
  }

  #request(values: ReadonlyMap<string, string>, sql: string): QueryRequest {
    const body: Record<string, unknown> = { sql };
    const num = (key: string, field: string): void => {
      const v = values.get(key);
      if (v === undefined || v === '') return;
      // Any decimal numeral (signed, `.5`, `1e3`): its range is the request field's, checked with the body.
      if (!/^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$/.test(v.trim())) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${key} must be a number, got '${v.slice(0, 40)}'`);
      body[field] = Number(v);
    };
    const policy = values.get('canopy.policy');
    if (policy !== undefined) body.policy = policy.toLowerCase();
    num('canopy.deadline_ms', 'deadline_ms');
    num('canopy.min_coverage', 'min_coverage');
    num('canopy.shard_size', 'shard_size');
    const exact = values.get('canopy.exact');
    if (exact !== undefined) {
      if (/^(on|true|yes|1)$/i.test(exact)) body.exact = true;
      else if (/^(off|false|no|0)$/i.test(exact)) body.exact = false;
      else throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `canopy.exact must be on or off, got '${exact.slice(0, 40)}'`);
    }
    return parseQueryRequest(body, this.#maxDeadlineMs);
  }
}

/**
 * Parses `SET [SESSION | LOCAL] name {= | TO} value [, ...]`, `SET TIME ZONE value`,
 * `RESET name | ALL`. Returns null when the statement is not one of those.
 * Values lose their quotes; `DEFAULT` resets.
 */
export function parseSet(sql: string): { kind: 'set'; name: string; value: string | null } | { kind: 'reset'; name: string | null } | null {
  const s = sql.trim().replace(/;$/, '').trim();
  const reset = /^reset\s+(all|[\w.]+)$/i.exec(s);
  if (reset !== null) return { kind: 'reset', name: reset[1]!.toLowerCase() === 'all' ? null : reset[1]! };
  const tz = /^set\s+(?:session\s+|local\s+)?time\s+zone\s+(.+)$/i.exec(s);
  if (tz !== null) return { kind: 'set', name: 'TimeZone', value: unquote(tz[1]!) };
  const m = /^set\s+(?:session\s+|local\s+)?([\w.]+|"[^"]+")\s*(?:=|\s+to\s+)\s*([\s\S]+)$/i.exec(s);
  if (m === null) return null;
  const value = m[2]!.trim();
  return { kind: 'set', name: m[1]!.replaceAll('"', ''), value: /^default$/i.test(value) ? null : unquote(value) };
}

function unquote(v: string): string {
  const t = v.trim();
  if (t.length >= 2 && t.startsWith("'") && t.endsWith("'")) return t.slice(1, -1).replaceAll("''", "'");
  return t;
}
