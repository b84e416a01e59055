/**
 * Prometheus metrics, on an injected prom-client Registry (never the default, module-level
 * one). One registry per process: every logical node the process hosts records into it with
 * its name as the `node` label, and the process serves it on `GET /metrics` (every node's
 * port answers with the same process-wide text; scrape one per process). Names follow
 * Prometheus conventions (`_seconds`, `_bytes`, counters `_total`, gauges never `_total`),
 * so `promtool check metrics` passes (a CI test checks every process of a started tree).
 */
import { Counter, Gauge, collectDefaultMetrics, type Metric, type Registry } from 'prom-client';
import type { Admission } from './admission.ts';
import type { ReplyBytes } from './http-child.ts';

/**
 * How a partial request ended, the `outcome` label of `canopy_node_request_seconds`:
 * `ok` (the reply was sent whole), `cancelled` (the parent went away first: its gather was
 * satisfied, its deadline passed, or it was cancelled), `rejected` (503 from admission
 * control), `error` (any other HTTP error, or a reply broken off by a failure).
 */
export type RequestOutcome = 'ok' | 'cancelled' | 'rejected' | 'error';

/** Request metrics every node's HTTP face records, by node. */
export interface NodeHttpMetrics {
  readonly registry: Registry;
  readonly requestSeconds: RequestHistogram<'node' | 'outcome'>;
  /** Seconds an admitted partial request waited for its slot, by node. */
  readonly admissionWaitSeconds: RequestHistogram<'node'>;
  /** Entries (child requests) per multiplexed request (POST /v1/partials) this process received. */
  readonly multiplexedEntries: RequestHistogram;
  /**
   * Reports a node's admission control at scrape time as `canopy_node_requests_in_flight`,
   * `canopy_node_requests_queued` and `canopy_node_admission_rejects_total` (label `node`).
   * Called by `buildNodeApp`; a second call for the same node replaces the first.
   */
  track(node: string, admission: Admission): void;
}

/** Latency buckets in seconds, 1 ms to 30 s. */
export const LATENCY_BUCKETS = [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/** Admission wait buckets in seconds, 0.1 ms to 10 s (most admitted requests do not wait at all). */
export const WAIT_BUCKETS = [0.0001, 0.001, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10];

/**
 * Registers the request metrics of every node of a process on `registry`: call once per
 * registry, pass the result to each node's `buildNodeApp`.
 */
export function nodeHttpMetrics(registry: Registry): NodeHttpMetrics {
  const admissions = new Map<string, Admission>();
  new Gauge({
    name: 'canopy_node_requests_in_flight',
    help: 'Partial requests running at the node (admitted, not finished)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      for (const [node, a] of admissions) this.set({ node }, a.inFlight);
    },
  });
  new Gauge({
    name: 'canopy_node_requests_queued',
    help: 'Partial requests waiting for admission at the node',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      for (const [node, a] of admissions) this.set({ node }, a.queued);
    },
  });
  new Counter({
    name: 'canopy_node_admission_rejects_total',
    help: 'Partial requests refused by admission control (503: queue full, or waited as long as the deadline allows)',
    labelNames: ['node'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [node, a] of admissions) this.inc({ node }, a.refused);
    },
  });
  return {
    registry,
    requestSeconds: new RequestHistogram({
      name: 'canopy_node_request_seconds',
      help: 'Time from receiving a partial request to its end, by node and outcome (ok, cancelled by the parent, rejected by admission, error)',
      labelNames: ['node', 'outcome'],
      buckets: LATENCY_BUCKETS,
      registers: [registry],
    }),
    multiplexedEntries: new RequestHistogram({ name: 'canopy_multiplexed_request_entries', help: 'Child requests carried per multiplexed partial request (POST /v1/partials) received by the process', buckets: [1, 2, 5, 10, 20, 50, 100, 200], registers: [registry] }),
    admissionWaitSeconds: new RequestHistogram({ name: 'canopy_node_admission_wait_seconds', help: 'Time an admitted partial request waited in the admission queue, by node', labelNames: ['node'], buckets: WAIT_BUCKETS, registers: [registry] }),
    track(node, admission) {
      admissions.set(node, admission);
    },
  };
}

/** One line of a {@link RequestHistogram} as prom-client's Registry renders it: its own labels (`le`), the series' labels, value and metric name. */
interface SeriesValue {
  readonly labels: Readonly<Record<string, string | number>>;
  readonly sharedLabels: Readonly<Record<string, string>>;
  readonly value: number;
  readonly metricName: string;
}

/** One label set's series of a {@link RequestHistogram}. */
interface HistogramSeries {
  readonly labels: Readonly<Record<string, string>>;
  /** Observations per bucket (not cumulative), by bucket index. */
  readonly counts: Float64Array;
  sum: number;
  count: number;
}

/**
 * A Prometheus histogram for the per-request paths of the node hosts (2-3 observations per
 * leaf request and per child): prom-client's Histogram builds a label object, validates it,
 * hashes it into a string and finds the bucket by a linear search per observation (~3-4 µs a
 * leaf request in a profile of a leaf host, 3% of its CPU); this one keeps each label set's
 * bucket counts in a Float64Array found by the label values joined. It registers itself on
 * `registers` and prom-client's Registry renders it as it renders a Histogram (the same
 * `_bucket` series with cumulative counts and `le`, then `+Inf`, `_sum`, `_count`).
 */
export class RequestHistogram<L extends string = never> {
  readonly name: string;
  readonly help: string;
  readonly type = 'histogram';
  readonly aggregator = 'sum';
  readonly #labelNames: readonly L[];
  readonly #bounds: readonly number[];
  readonly #series = new Map<string, HistogramSeries>();

  /**
   * @param cfg.buckets upper bounds, ascending (the `+Inf` bucket is implied)
   * @param cfg.registers registries to register on
   */
  constructor(cfg: { readonly name: string; readonly help: string; readonly labelNames?: readonly L[]; readonly buckets: readonly number[]; readonly registers: readonly Registry[] }) {
    this.name = cfg.name;
    this.help = cfg.help;
    this.#labelNames = cfg.labelNames ?? [];
    this.#bounds = [...cfg.buckets];
    for (const r of cfg.registers) r.registerMetric(this as unknown as Metric);
  }

  /** Observes `value` (seconds, or a count) under `labels`; a value that is not a finite number is ignored. */
  observe(...args: [L] extends [never] ? [value: number] : [labels: Readonly<Record<L, string>>, value: number]): void {
    const [labels, value] = (args.length === 1 ? [{}, args[0]] : args) as [Readonly<Record<string, string>>, number];
    if (!Number.isFinite(value)) return;
    let key = '';
    for (const n of this.#labelNames) key += `${labels[n]}\u0000`;
    let s = this.#series.get(key);
    if (s === undefined) {
      const own: Record<string, string> = {};
      for (const n of this.#labelNames) own[n] = String(labels[n]);
      s = { labels: own, counts: new Float64Array(this.#bounds.length), sum: 0, count: 0 };
      this.#series.set(key, s);
    }
    const bounds = this.#bounds;
    let b = 0;
    while (b < bounds.length && value > bounds[b]!) b++;
    if (b < bounds.length) s.counts[b]!++;
    s.sum += value;
    s.count++;
  }

  /** Forgets every series. */
  reset(): void {
    this.#series.clear();
  }

  /** The series as prom-client's Registry renders them (labels of a series as `sharedLabels`, as its Histogram gives them). */
  getForPromString(): { name: string; help: string; type: string; aggregator: string; values: SeriesValue[] } {
    const values: SeriesValue[] = [];
    const bucket = `${this.name}_bucket`;
    for (const s of this.#series.values()) {
      let acc = 0;
      for (let b = 0; b < this.#bounds.length; b++) {
        acc += s.counts[b]!;
        values.push({ labels: { le: this.#bounds[b]! }, sharedLabels: s.labels, value: acc, metricName: bucket });
      }
      values.push({ labels: { le: '+Inf' }, sharedLabels: s.labels, value: s.count, metricName: bucket });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.sum, metricName: `${this.name}_sum` });
      values.push({ labels: {}, sharedLabels: s.labels, value: s.count, metricName: `${this.name}_count` });
    }
    return { name: this.name, help: this.help, type: this.type, aggregator: this.aggregator, values };
  }

  /** The series as prom-client's `get()` gives a Histogram's (each value's labels with its series' labels). */
  async get(): Promise<{ name: string; help: string; type: string; aggregator: string; values: { labels: Record<string, string | number>; value: number; metricName: string; exemplar?: null }[] }> {
    const data = this.getForPromString();
    const bucket = `${this.name}_bucket`;
    return { ...data, values: data.values.map(({ labels, sharedLabels, value, metricName }) => ({ labels: { ...labels, ...sharedLabels }, value, metricName, ...(metricName === bucket ? { exemplar: null } : {}) })) };
  }
}

/** Counters (or gauges) of many nodes read at scrape time: `add(node, value)` per node. */
export interface NodeReadings {
  /** Reports `value()` under `{node}`; a second call for the same node replaces the first. */
  add(node: string, value: () => number): void;
}

/**
 * A metric with a `node` label whose values are read from each node's own counts at scrape time.
 * @param kind `counter` (name ends in `_total`) or `gauge`
 */
export function nodeReadings(registry: Registry, kind: 'counter' | 'gauge', name: string, help: string): NodeReadings {
  const sources = new Map<string, () => number>();
  const cfg = { name, help, labelNames: ['node'] as const, registers: [registry] };
  if (kind === 'counter') {
    new Counter({
      ...cfg,
      collect() {
        this.reset();
        for (const [node, v] of sources) this.inc({ node }, v());
      },
    });
  } else {
    new Gauge({
      ...cfg,
      collect() {
        for (const [node, v] of sources) this.set({ node }, v());
      },
    });
  }
  return { add: (node, value) => void sources.set(node, value) };
}

/**
 * A counter whose value is read from `value()` at scrape time (for counts a node already keeps).
 * @param name metric name ending in `_total`
 */
export function readCounter(registry: Registry, name: string, help: string, value: () => number): Counter {
  return new Counter({
    name,
    help,
    registers: [registry],
    collect() {
      this.reset();
      this.inc(value());
    },
  });
}

/** Per-node {@link ReplyBytes} of a process: `canopy_reply_bytes_held{node}` and `canopy_reply_bytes_total{node}`. */
export interface ReplyBytesMetrics {
  add(node: string, bytes: ReplyBytes): void;
}

/**
 * Reports the {@link ReplyBytes} of the nodes of a process on `registry`:
 * `canopy_reply_bytes_held` (bytes of child replies received by requests still in flight)
 * and `canopy_reply_bytes_total`, both by node.
 */
export function replyBytesMetrics(registry: Registry): ReplyBytesMetrics {
  const held = nodeReadings(registry, 'gauge', 'canopy_reply_bytes_held', 'Bytes of child replies received by requests still in flight (held for queries in progress), by node');
  const total = nodeReadings(registry, 'counter', 'canopy_reply_bytes_total', 'Bytes of child replies received, by node');
  return {
    add(node, bytes) {
      held.add(node, () => bytes.held);
      total.add(node, () => bytes.total);
    },
  };
}

/** What a process says about itself on its registry. */
export interface ProcessIdentity {
  /** The process (topology host) name, e.g. `leaves-a0`: the `process` label of every metric. */
  readonly process: string;
  /** What it runs: `root`, `aggregator`, `leaf`, or several joined by `+`: the `role` label. */
  readonly role: string;
  /** canopy's version (package.json). */
  readonly version: string;
  /** Source revision (e.g. a git commit), `unknown` when not given. */
  readonly revision?: string;
}

/**
 * Makes `registry` a process's registry: every metric on it gets the labels `process` and
 * `role`; prom-client's default metrics with their standard names (`process_cpu_seconds_total`,
 * `process_resident_memory_bytes`, `nodejs_heap_size_used_bytes`, `nodejs_eventloop_lag_seconds`,
 * ...; without prom-client's three gauges named `*_total`, see below); and
 * `canopy_build_info{version,revision,nodejs_version} 1`. Call once per registry.
 */
export function processMetrics(registry: Registry, id: ProcessIdentity): void {
  registry.setDefaultLabels({ process: id.process, role: id.role });
  collectDefaultMetrics({ register: registry });
  // prom-client names three gauges `*_total`, which `promtool check metrics` rejects (a
  // `_total` suffix promises a counter); each is the sum of its per-type gauge, which stays
  // (`nodejs_active_handles{type}`, `nodejs_active_requests{type}`, `nodejs_active_resources{type}`).
  for (const name of ['nodejs_active_handles_total', 'nodejs_active_requests_total', 'nodejs_active_resources_total']) registry.removeSingleMetric(name);
  const info = new Gauge({ name: 'canopy_build_info', help: 'Always 1: the canopy version, source revision and Node.js version this process runs', labelNames: ['version', 'revision', 'nodejs_version'], registers: [registry] });
  info.set({ version: id.version, revision: id.revision ?? 'unknown', nodejs_version: process.version }, 1);
}
