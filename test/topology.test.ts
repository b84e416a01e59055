/**
 * Topologies: planTopology places every node on exactly one host (root alone, whole
 * aggregator subtrees, leaf replicas by zone), placeTopology rejects bad files with coded
 * errors (the deploy/ files: test/ops-deploy.test.ts).
 */
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMPOSE_PLAN } from '../src/cli/deploy.ts';
import { isCanopyError } from '../src/merge/index.ts';
import { ROOT_NODE, nodeNames, placeTopology, planTopology, type Topology } from '../src/root/index.ts';

function code(f: () => unknown): string {
  try {
    f();
  } catch (e) {
    return isCanopyError(e) ? `${e.code}: ${e.message}` : `not a CanopyError: ${String(e)}`;
  }
  return 'no error';
}

const composeTopology = (): Topology => JSON.parse(readFileSync('deploy/topology.json', 'utf8')) as Topology;

describe('planTopology', () => {
  it('puts every node on exactly one host, the root alone, subtrees whole, zones apart', () => {
    for (const [shards, fanout, depth, replicas, zones, leafHosts, aggHosts] of [
      [100, 10, 2, 1, 1, 2, 1],
      [100, 10, 3, 1, 1, 2, 2],
      [100, 100, 1, 2, 2, 2, 1],
      [16, 4, 2, 2, 2, 4, 2],
      [7, 3, 2, 3, 2, 3, 5],
    ] as const) {
      const t = planTopology({ table: 't', shards, fanout, depth, replicas, zones, leafHosts, aggregatorHosts: aggHosts });
      const placed = placeTopology(t); // throws if a node is missing or placed twice
      const all = [ROOT_NODE, ...nodeNames(placed.layout)];
      expect(t.hosts.flatMap((h) => h.nodes).sort()).toEqual([...all].sort());
      expect(t.hosts.find((h) => h.nodes.includes(ROOT_NODE))!.nodes).toEqual([ROOT_NODE]);
      // An aggregator's child aggregators run on its host.
      const hostOf = new Map(t.hosts.flatMap((h) => h.nodes.map((n) => [n, h.name])));
      const walk = (ns: typeof placed.layout): void => {
        for (const n of ns) if (n.kind === 'aggregator') for (const c of n.children) if (c.kind === 'aggregator') expect(hostOf.get(c.name)).toBe(hostOf.get(n.name));
      };
      walk(placed.layout);
      const leafHostsPlanned = t.hosts.filter((h) => h.nodes.some((n) => n.startsWith('leaf-')));
      expect(leafHostsPlanned.length).toBe(Math.min(leafHosts, shards * replicas));
      for (const h of leafHostsPlanned) expect(h.nodes.every((n) => n.startsWith('leaf-'))).toBe(true);
    }
  });

  it('with placement subtrees, puts each top-level subtree whole (aggregators and leaves) on one host', () => {
    for (const [shards, fanout, depth, hosts] of [
      [100, 10, 2, 2],
      [100, 10, 2, 3],
      [100, 10, 3, 2],
      [7, 3, 2, 5],
      [20, 10, 2, 1],
    ] as const) {
      const t = planTopology({ table: 't', shards, fanout, depth, leafHosts: hosts, aggregatorHosts: 0, placement: 'subtrees' });
      const placed = placeTopology(t);
      const all = [ROOT_NODE, ...nodeNames(placed.layout)];
      expect(t.hosts.flatMap((h) => h.nodes).sort()).toEqual([...all].sort());
      expect(t.hosts.find((h) => h.nodes.includes(ROOT_NODE))!.nodes).toEqual([ROOT_NODE]);
      expect(t.hosts.length).toBe(1 + Math.min(hosts, placed.layout.length));
      expect(t.hosts.slice(1).map((h) => h.name)).toEqual(t.hosts.slice(1).map((_, k) => `subtrees-${k}`));
      const hostOf = new Map(t.hosts.flatMap((h) => h.nodes.map((n) => [n, h.name])));
      const walk = (ns: typeof placed.layout): void => {
        for (const n of ns) if (n.kind === 'aggregator') for (const c of n.children) {
          expect(hostOf.get(c.name)).toBe(hostOf.get(n.name));
          walk([c]);
        }
      };
      walk(placed.layout);
    }
  });

  it('lays out by tiers a replicated or depth-1 tree even when asked for subtrees', () => {
    const replicated = planTopology({ table: 't', shards: 16, fanout: 4, replicas: 2, zones: 2, leafHosts: 2, aggregatorHosts: 1, placement: 'subtrees' });
    expect(replicated.hosts.map((h) => h.name)).toEqual(['root', 'aggregators-0', 'leaves-a0', 'leaves-b0']);
    const flat = planTopology({ table: 't', shards: 8, fanout: 10, leafHosts: 2, aggregatorHosts: 0, placement: 'subtrees' });
    expect(flat.hosts.map((h) => h.name)).toEqual(['root', 'leaves-0', 'leaves-1']);
  });

  it('names zone-pure leaf hosts by zone', () => {
    const t = planTopology({ ...COMPOSE_PLAN });
    expect(t.hosts.map((h) => h.name)).toEqual(['root', 'aggregators-0', 'aggregators-1', 'leaves-a0', 'leaves-a1', 'leaves-b0', 'leaves-b1']);
    expect(t.hosts.find((h) => h.name === 'leaves-b1')!.nodes.every((n) => n.endsWith('.r1'))).toBe(true);
  });

  it('refuses a deep tree without aggregator hosts', () => {
    expect(code(() => planTopology({ table: 't', shards: 20, fanout: 10, leafHosts: 1, aggregatorHosts: 0 }))).toMatch(/^CANOPY_ERR_BAD_REQUEST: topology: .*aggregator host/);
  });
});

describe('placeTopology on bad files', () => {
  const good = composeTopology();
  const hosts = good.hosts;
  it.each([
    ['not an object', [], /must be a JSON object/],
    ['an unknown field', { ...good, colour: 'red' }, /unknown field 'colour'/],
    ['no shards', { ...good, shards: 0 }, /shards must be an integer >= 1/],
    ['a bad partition', { ...good, partition: 'round-robin' }, /partition must be/],
    ['no hosts', { ...good, hosts: [] }, /hosts must be a non-empty list/],
    ['an unknown node', { ...good, hosts: [...hosts, { name: 'x', address: 'x', port: 1, nodes: ['leaf-99'] }] }, /unknown node "leaf-99"/],
    ['a node twice', { ...good, hosts: [...hosts, { name: 'x', address: 'x', port: 1, nodes: ['agg-1'] }] }, /node agg-1 is run by both aggregators-1 and x/],
    ['a node nowhere', { ...good, hosts: hosts.filter((h) => h.name !== 'leaves-b1') }, /8 node\(s\) run by no host: leaf-8\.r1/],
    ['a port out of range', { ...good, hosts: hosts.map((h) => (h.name === 'leaves-a0' ? { ...h, port: 65530 } : h)) }, /host leaves-a0: port must be/],
    ['a host name twice', { ...good, hosts: [...hosts, hosts[0]] }, /host name "root" is missing or used twice/],
  ])('%s', (_what, raw, msg) => {
    const c = code(() => placeTopology(raw));
    expect(c).toMatch(/^CANOPY_ERR_BAD_REQUEST: topology: /);
    expect(c).toMatch(msg);
  });
});
