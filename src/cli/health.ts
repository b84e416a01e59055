/**
 * Health of the hosts below the root: probes one node of every other host (GET /healthz)
 * at a fixed interval, so the root's /healthz can say which hosts are unreachable (a killed
 * or hung process) instead of answering ok while their shards fail.
 */

/** A host to watch: its name, the nodes it runs, and the URL of one of them. */
export interface WatchedHost {
  readonly host: string;
  readonly nodes: readonly string[];
  readonly url: string;
}

/** An unreachable host, as the root's /healthz lists it. */
export interface HostProblem {
  readonly host: string;
  readonly nodes: readonly string[];
  /** What the last probe got (connection refused, timeout, HTTP status). */
  readonly error: string;
}

/** Options of {@link HostMonitor}. */
export interface HostMonitorOptions {
  /** Probe interval, ms (default 1000). */
  readonly intervalMs?: number;
  /** A probe not answered within this is a failure, ms (default 1000). */
  readonly timeoutMs?: number;
}

/** Watches hosts; {@link HostMonitor.problems} is the list of those whose last probe failed. */
export class HostMonitor {
  readonly #hosts: readonly WatchedHost[];
  readonly #intervalMs: number;
  readonly #timeoutMs: number;
  readonly #problems = new Map<string, HostProblem>();
  #timer: ReturnType<typeof setInterval> | null = null;
  readonly #inFlight = new Set<string>();

  constructor(hosts: readonly WatchedHost[], opts: HostMonitorOptions = {}) {
    this.#hosts = hosts;
    this.#intervalMs = opts.intervalMs ?? 1000;
    this.#timeoutMs = opts.timeoutMs ?? 1000;
  }

  /** Starts probing (first probe at once). */
  start(): void {
    if (this.#timer !== null) return;
    this.#probeAll();
    this.#timer = setInterval(() => this.#probeAll(), this.#intervalMs);
    this.#timer.unref();
  }

  /** Stops probing. */
  stop(): void {
    if (this.#timer !== null) clearInterval(this.#timer);
    this.#timer = null;
  }

  /** Hosts whose last probe failed, in topology order. */
  problems(): HostProblem[] {
    return this.#hosts.map((h) => this.#problems.get(h.host)).filter((p): p is HostProblem => p !== undefined);
  }

  #probeAll(): void {
    for (const h of this.#hosts) {
      if (this.#inFlight.has(h.host)) continue;
      this.#inFlight.add(h.host);
      void this.#probe(h).finally(() => this.#inFlight.delete(h.host));
    }
  }

  async #probe(h: WatchedHost): Promise<void> {
    try {
      const res = await fetch(`${h.url}/healthz`, { signal: AbortSignal.timeout(this.#timeoutMs) });
      await res.body?.cancel();
      if (res.ok) this.#problems.delete(h.host);
      else this.#problems.set(h.host, { host: h.host, nodes: h.nodes, error: `GET /healthz of ${h.nodes[0]} answered HTTP ${res.status}` });
    } catch (e) {
      const cause = (e as { cause?: { code?: string } }).cause?.code;
      const what = (e as Error).name === 'TimeoutError' ? `no answer within ${this.#timeoutMs} ms` : (cause ?? (e as Error).message);
      this.#problems.set(h.host, { host: h.host, nodes: h.nodes, error: `${h.nodes[0]} unreachable: ${what}` });
    }
  }
}
