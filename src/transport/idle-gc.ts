/**
 * Idle-time garbage collection for a host process: when its last request in flight ends,
 * a minor collection (scavenge) runs before the next one arrives, if the young generation
 * holds enough to be worth it.
 *
 * Why: a query allocates megabytes of short-lived frames, partials and provenance. Left to
 * itself, V8 scavenges when the young generation fills, which is usually in the middle of
 * the next query: the scavenge then copies that query's live data (and promotes what
 * survives twice, which later costs old-space marking), and its pause lands on the query's
 * latency. Between queries almost nothing in the young generation is alive, so the same
 * scavenge costs little and delays nobody. Browsers schedule V8's collections into idle
 * time for the same reason (Degenbaev, Eisinger, Ernst, McIlroy and Payer, "Idle time garbage
 * collection scheduling", PLDI 2016). The CPU is spent either way; only its moment changes.
 *
 * It needs `global.gc` (Node started with `--expose-gc`: the local tree's hosts are); without
 * it nothing is collected early and {@link idleCollector} returns null. Only HTTP requests are
 * counted: a scavenge may run during a query over the PostgreSQL protocol, as V8 would run one
 * anyway.
 */
import type { Server } from 'node:http';
import { getHeapSpaceStatistics } from 'node:v8';

/** Young-generation bytes in use from which an idle scavenge is run (below, the next query's allocation has room). */
export const IDLE_GC_MIN_YOUNG_BYTES = 4 * 1024 * 1024;

/** What {@link IdleCollector} needs from the runtime (injected in tests). */
export interface IdleCollectorOptions {
  /** Runs a minor collection now (V8's `gc({type: 'minor'})`). */
  readonly collect: () => void;
  /** Bytes in use in the young generation now (V8's `new_space` used size). */
  readonly youngBytes: () => number;
  /** Runs `fn` once the current event-loop turn is over (default `setImmediate`): a request ending is often followed, in the same turn, by the next one starting. */
  readonly later?: (fn: () => void) => void;
  /** Default {@link IDLE_GC_MIN_YOUNG_BYTES}. */
  readonly minYoungBytes?: number;
}

/**
 * Counts a process's requests in flight (over all its HTTP servers) and scavenges when the
 * count drops to 0 and stays 0 to the end of the event-loop turn, with at least
 * `minYoungBytes` in the young generation.
 */
export class IdleCollector {
  readonly #opts: IdleCollectorOptions;
  readonly #min: number;
  #active = 0;
  #pending = false;
  /** Idle scavenges run (tests, metrics). */
  collections = 0;

  constructor(opts: IdleCollectorOptions) {
    this.#opts = opts;
    this.#min = opts.minYoungBytes ?? IDLE_GC_MIN_YOUNG_BYTES;
  }

  /** Requests in flight now. */
  get active(): number {
    return this.#active;
  }

  /** A request started. */
  begin(): void {
    this.#active++;
  }

  /** A request ended (answered, failed or its client gone): once none is left, an idle scavenge is considered. */
  end(): void {
    if (this.#active > 0) this.#active--;
    if (this.#active > 0 || this.#pending) return;
    this.#pending = true;
    (this.#opts.later ?? setImmediate)(() => {
      this.#pending = false;
      if (this.#active > 0 || this.#opts.youngBytes() < this.#min) return;
      this.collections++;
      this.#opts.collect();
    });
  }

  /** Counts every request of `server`, from its headers to its socket closing. */
  track(server: Server): void {
    server.on('request', (_req, res) => {
      this.begin();
      res.once('close', () => this.end());
    });
  }
}

/** Bytes in use in V8's young generation (`new_space`), from `v8.getHeapSpaceStatistics`. */
function youngBytes(): number {
  for (const s of getHeapSpaceStatistics()) if (s.space_name === 'new_space') return s.space_used_size;
  return 0;
}

/**
 * The process's idle collector, or null when `global.gc` is not exposed (`--expose-gc`) or
 * CANOPY_IDLE_GC=0 switches it off.
 */
export function idleCollector(): IdleCollector | null {
  const gc = (globalThis as { gc?: (opts?: { type?: 'minor' | 'major' }) => void }).gc;
  if (typeof gc !== 'function' || process.env.CANOPY_IDLE_GC === '0') return null;
  return new IdleCollector({ collect: () => gc({ type: 'minor' }), youngBytes });
}
