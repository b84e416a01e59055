/**
 * Tail control's Prometheus metrics (`canopy_tail_*`) on an injected registry: one set per
 * process, every node's {@link TailControl} recording under its `node` label; events that
 * concern one replica carry its `replica` and `zone` (hedges and replica requests by the zone
 * they went to, ejections, reinstatements and probes by replica), and a gauge reports the
 * replicas on probation per zone at scrape time.
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReplicaState } from './ejection.ts';
import type { ReplicaSetState, TailCounters } from './tail.ts';

/** What a counter is labelled with besides `node`. */
type Scope = 'node' | 'zone' | 'replica';

/** Help text and labels of every tail counter (`canopy_tail_<snake name>_total`). */
const TAIL_COUNTERS: Readonly<Record<keyof TailCounters, { readonly help: string; readonly scope: Scope }>> = {
  requests: { help: 'Requests to replica sets (one per shard set asked, whatever the replicas did)', scope: 'node' },
  replicaRequests: { help: 'Requests sent to replicas (primaries, hedges, fail-overs, verifications and probes), by the zone they went to', scope: 'zone' },
  hedgesSent: { help: 'Hedged requests sent after the hedge delay passed without an answer, by the zone of the replica they went to', scope: 'zone' },
  hedgesWon: { help: 'Hedged requests that answered before every other request of their replica set, by zone', scope: 'zone' },
  hedgesWasted: { help: 'Hedged requests that did not answer first (their work was thrown away), by zone', scope: 'zone' },
  hedgesDenied: { help: 'Hedges not sent because the hedge budget (5% of requests, burst 10) was spent', scope: 'node' },
  hedgesSuppressed: { help: 'Hedges not sent because the tier below looked overloaded (too many in flight or failing)', scope: 'node' },
  retriesSent: { help: 'Requests re-sent to another replica after a fast failure, within the retry budget', scope: 'node' },
  retriesDenied: { help: 'Retries not sent because the retry budget (10% of successes plus 1/s) was spent', scope: 'node' },
  retriesTooLate: { help: "Retries not sent because the deadline left less than the replica set's median latency", scope: 'node' },
  verifications: { help: 'Requests sampled for verification: sent to two replicas and the answers compared', scope: 'node' },
  duplicatesDropped: { help: 'Second answers for shards already answered (hedge losers, verification partners), dropped', scope: 'node' },
  divergences: { help: 'Second answers that differed from the answer used (CANOPY_WARN_REPLICAS_DIVERGED)', scope: 'node' },
  probes: { help: 'Probe requests sent to a replica on probation (ejected), by replica', scope: 'replica' },
  ejections: { help: 'Replicas put on probation (outlier ejection: slow against their peers, or failing), by replica', scope: 'replica' },
  reinstatements: { help: 'Replicas returned from probation after enough good probes in a row, by replica', scope: 'replica' },
};

/** The tail metrics of one node: what its TailControl calls. */
export interface NodeTailMetrics {
  /** Adds `n` to counter `name`; `at` is the replica the event concerns (zone- and replica-scoped counters). */
  count(name: keyof TailCounters, at: ReplicaState | undefined, n: number): void;
  /** Reports `sets` (the node's replica sets) in the ejected-replicas gauge. */
  watch(sets: () => readonly ReplicaSetState[]): void;
}

/** The tail metrics of a process. */
export interface TailMetrics {
  /** The metrics of node `node` (pass to its `TailControl` as `metrics`). */
  forNode(node: string): NodeTailMetrics;
}

function snake(s: string): string {
  return s.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);
}

/** Registers the `canopy_tail_*` metrics on `registry`: call once per registry. */
export function tailMetrics(registry: Registry): TailMetrics {
  const labels: Record<Scope, readonly string[]> = { node: ['node'], zone: ['node', 'zone'], replica: ['node', 'replica', 'zone'] };
  const counters = new Map(
    Object.entries(TAIL_COUNTERS).map(([name, c]) => [name, { scope: c.scope, counter: new Counter({ name: `canopy_tail_${snake(name)}_total`, help: c.help, labelNames: labels[c.scope], registers: [registry] }) }]),
  );
  const watched = new Map<string, () => readonly ReplicaSetState[]>();
  new Gauge({
    name: 'canopy_tail_replicas_ejected',
    help: 'Replicas on probation now (ejected as outliers, getting probes only), by node and zone',
    labelNames: ['node', 'zone'],
    registers: [registry],
    collect() {
      this.reset();
      for (const [node, sets] of watched) {
        const byZone = new Map<string, number>();
        for (const s of sets()) for (const r of s.replicas) byZone.set(r.zone, (byZone.get(r.zone) ?? 0) + (r.ejected ? 1 : 0));
        for (const [zone, n] of byZone) this.set({ node, zone }, n);
      }
    },
  });
  return {
    forNode(node) {
      return {
        count(name, at, n) {
          const c = counters.get(name)!;
          if (c.scope === 'node' || at === undefined) c.counter.inc(c.scope === 'node' ? { node } : { node, zone: 'unknown', ...(c.scope === 'replica' ? { replica: 'unknown' } : {}) }, n);
          else c.counter.inc(c.scope === 'zone' ? { node, zone: at.zone } : { node, replica: at.name, zone: at.zone }, n);
        },
        watch(sets) {
          watched.set(node, sets);
        },
      };
    },
  };
}
