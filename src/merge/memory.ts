/**
 * Memory accounting (pure): every node charges the estimated bytes of what it holds for a
 * query (group state, row buffers, child replies) to that query's {@link QueryMemory},
 * which draws them from the process's {@link MemoryPool}. Crossing the per-query budget or
 * the pool refuses that query at once (CANOPY_ERR_LIMIT naming what overflowed); the bytes
 * go back to the pool when the query ends, so other queries keep running.
 */
import { CanopyError } from './errors.ts';

const MB = 1024 * 1024;

/** Default share of the V8 heap limit a process lets queries hold (the rest: data, code, garbage). */
export const POOL_SHARE_OF_HEAP = 0.25;

/** Default share of the process pool one query may hold. */
export const QUERY_SHARE_OF_POOL = 0.5;

/** Budgets of one process, in bytes. */
export interface MemoryBudgets {
  /** Bytes all queries in progress on this process may hold together. */
  readonly processBytes: number;
  /** Bytes one query may hold on this process. */
  readonly queryBytes: number;
}

/**
 * Budgets from the V8 heap limit (`v8.getHeapStatistics().heap_size_limit`, bytes) and
 * optional overrides in MB (the `CANOPY_PROCESS_MEMORY_MB` / `CANOPY_QUERY_MEMORY_MB` settings).
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST for an override that is not a positive number.
 */
export function memoryBudgets(heapLimitBytes: number, processMb?: string, queryMb?: string): MemoryBudgets {
  const mb = (name: string, v: string | undefined): number | null => {
    if (v === undefined || v === '') return null;
    const n = Number(v);
    if (!Number.isFinite(n) || n <= 0) throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `${name} must be a positive number of MB, got '${v}'`);
    return n * MB;
  };
  const processBytes = mb('CANOPY_PROCESS_MEMORY_MB', processMb) ?? Math.floor(heapLimitBytes * POOL_SHARE_OF_HEAP);
  const queryBytes = Math.min(processBytes, mb('CANOPY_QUERY_MEMORY_MB', queryMb) ?? Math.floor(processBytes * QUERY_SHARE_OF_POOL));
  return { processBytes, queryBytes };
}

function mbText(bytes: number): string {
  return `${Math.round(bytes / MB)} MB`;
}

/** The bytes all queries of one process hold, against its budget. */
export class MemoryPool {
  readonly limitBytes: number;
  #used = 0;
  #peak = 0;

  /** @param limitBytes the process budget in bytes */
  constructor(limitBytes: number) {
    this.limitBytes = limitBytes;
  }

  /** Bytes held by queries in progress. */
  get usedBytes(): number {
    return this.#used;
  }

  /** Most bytes held at once since start. */
  get peakBytes(): number {
    return this.#peak;
  }

  /** Takes `bytes` from the pool; false (nothing taken) when the pool would overflow. */
  take(bytes: number): boolean {
    if (this.#used + bytes > this.limitBytes) return false;
    this.#used += bytes;
    if (this.#used > this.#peak) this.#peak = this.#used;
    return true;
  }

  /** Gives `bytes` back. */
  give(bytes: number): void {
    this.#used = Math.max(0, this.#used - bytes);
  }
}

/**
 * What one query holds on one node. `charge` throws once the query would pass its own
 * budget or the pool; `release` (idempotent) gives everything back when the query ends.
 */
export class QueryMemory {
  readonly #pool: MemoryPool;
  readonly #limit: number;
  readonly #where: string;
  #held = 0;
  readonly #by = new Map<string, number>();

  /**
   * @param where the node, for messages (`leaf-27`, `agg-3`)
   * @param limitBytes the per-query budget in bytes
   */
  constructor(pool: MemoryPool, limitBytes: number, where: string) {
    this.#pool = pool;
    this.#limit = limitBytes;
    this.#where = where;
  }

  /** Bytes this query holds here. */
  get heldBytes(): number {
    return this.#held;
  }

  /**
   * Charges `bytes` of `what` ('group state', 'row buffers', 'child replies').
   * @throws CanopyError CANOPY_ERR_LIMIT when the query's budget or the process pool would overflow.
   */
  charge(bytes: number, what: string): void {
    if (bytes <= 0) return;
    const mine = (this.#by.get(what) ?? 0) + bytes;
    if (this.#held + bytes > this.#limit) {
      throw new CanopyError('CANOPY_ERR_LIMIT', `the query needs more than its ${mbText(this.#limit)} memory budget at ${this.#where} (${what}: ${mbText(mine)}); add a WHERE or group more coarsely`);
    }
    if (!this.#pool.take(bytes)) {
      throw new CanopyError('CANOPY_ERR_LIMIT', `${this.#where}: the process's ${mbText(this.#pool.limitBytes)} memory budget is used up by the queries in progress in this process, this query's other nodes here among them (${what} at this node: ${mbText(mine)}); retry later, or add a WHERE or group more coarsely`);
    }
    this.#held += bytes;
    this.#by.set(what, mine);
  }

  /** Gives every byte back to the pool. */
  release(): void {
    this.#pool.give(this.#held);
    this.#held = 0;
    this.#by.clear();
  }
}
