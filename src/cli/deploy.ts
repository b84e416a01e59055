/**
 * Every deployment file of canopy, generated from one plan so that they cannot drift apart
 * (test/ops-deploy.test.ts checks the committed files and validates them):
 *
 *   npx tsx src/cli/deploy.ts     # rewrites docker-compose.yml, deploy/topology.json,
 *                                 # deploy/prometheus.yml and deploy/k8s/
 *
 * The tree: 16 shards of the bundled flights data, fan-out 4 (4 aggregators of 4 leaves),
 * every leaf with 2 replicas in zones a and b; hosts (one process each): the root alone,
 * 2 aggregator hosts (2 aggregators each) and 4 leaf hosts (8 leaf endpoints each, one zone
 * per host). The same hosts run as docker-compose services (`root`, `aggregators-0`,
 * `leaves-a0`, ...) and as Kubernetes workloads (`canopy-root`, `canopy-aggregators-0`,
 * StatefulSet pods `canopy-leaves-a-0`, ...). Container limits come from {@link RESOURCES};
 * the V8 heap of each process is derived from its memory limit ({@link heapMb}).
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { Document, isScalar, visit, type YAMLSeq } from 'yaml';
import type { IDeployment } from 'kubernetes-models/apps/v1/Deployment';
import type { IStatefulSet } from 'kubernetes-models/apps/v1/StatefulSet';
import type { INetworkPolicy } from 'kubernetes-models/networking.k8s.io/v1/NetworkPolicy';
import type { IPodDisruptionBudget } from 'kubernetes-models/policy/v1/PodDisruptionBudget';
import type { INamespace } from 'kubernetes-models/v1/Namespace';
import type { IPodTemplateSpec } from 'kubernetes-models/v1/PodTemplateSpec';
import type { IService } from 'kubernetes-models/v1/Service';
import type { IServicePort } from 'kubernetes-models/v1/ServicePort';
import type { IVolume } from 'kubernetes-models/v1/Volume';
import type { IServiceMonitor } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/ServiceMonitor';
import type { IPrometheusRule } from '@kubernetes-models/prometheus-operator/monitoring.coreos.com/v1/PrometheusRule';
import { ROOT_NODE, placeTopology, planTopology, type Topology, type TopologyHost, type TopologyPlan } from '../root/index.ts';

/** The plan of deploy/topology.json. Hosts are reached by their compose service names. */
export const COMPOSE_PLAN: TopologyPlan = {
  table: 'flights',
  shards: 16,
  fanout: 4,
  replicas: 2,
  zones: 2,
  tail: { hedge: {}, ejection: {} },
  admission: { maxInFlight: 16, maxQueued: 64 },
  leafHosts: 4,
  aggregatorHosts: 2,
  basePort: 9100,
  rootPort: 8080,
};

/** The image every canopy container runs (tag = package version; Kubernetes: override with kustomize `images`). */
export const IMAGE = 'canopy:0.1.0';
/** Prometheus of the compose file (pinned tag). */
export const PROMETHEUS_IMAGE = 'prom/prometheus:v2.53.1';
/**
 * Port of the root's PostgreSQL wire endpoint (issue #17, `--pg-port`), published next to the
 * API when set. Undefined: no such endpoint yet.
 */
export const PG_PORT: number | undefined = undefined;

/** Tier of a host: what decides its limits, probes and network policy. */
export type Tier = 'root' | 'aggregator' | 'leaf';

/** Memory (MiB) and CPU (cores) limits of one host's container, by tier. */
export const RESOURCES: Readonly<Record<Tier, { readonly memoryMb: number; readonly cpus: number; readonly requestCpus: number }>> = {
  root: { memoryMb: 1024, cpus: 1, requestCpus: 0.5 },
  aggregator: { memoryMb: 512, cpus: 1, requestCpus: 0.5 },
  leaf: { memoryMb: 1024, cpus: 1, requestCpus: 0.5 },
};

/**
 * The V8 old-space limit (`--max-old-space-size`, MiB) for a container of `memoryMb`: 60%.
 * The rest is for what lives outside the V8 heap (shard columns and reply frames are
 * ArrayBuffers), code, stacks and the young generation; at the limit V8 collects harder
 * and then fails with a heap error instead of the kernel killing the container.
 */
export function heapMb(memoryMb: number): number {
  return Math.floor(memoryMb * 0.6);
}

/** The tier of a host of a planned topology. */
export function tierOf(h: TopologyHost): Tier {
  return h.nodes.includes(ROOT_NODE) ? 'root' : h.nodes.some((n) => n.startsWith('leaf-')) ? 'leaf' : 'aggregator';
}

/** A topology as JSON text: one line per host. */
export function topologyJSON(t: Topology): string {
  const { hosts, ...rest } = t;
  const lines = Object.entries(rest).map(([k, v]) => `  ${JSON.stringify(k)}: ${JSON.stringify(v)}`);
  lines.push(`  "hosts": [\n${hosts.map((h) => `    ${JSON.stringify(h)}`).join(',\n')}\n  ]`);
  return `{\n${lines.join(',\n')}\n}\n`;
}

/** YAML text of `value`: block style, except lists of plain values (commands, ports) on one line. */
export function toYaml(value: unknown): string {
  const doc = new Document(value, { aliasDuplicateObjects: false });
  visit(doc, {
    Seq(_key, node: YAMLSeq) {
      if (node.items.every((i) => isScalar(i))) node.flow = true;
    },
  });
  return doc.toString({ lineWidth: 0, flowCollectionPadding: false });
}

/** The zone of a leaf host whose endpoints all sit in one zone (undefined otherwise). */
function zoneOfHost(t: Topology, h: TopologyHost): string | undefined {
  const placed = placeTopology(t);
  const zones = new Map<string, string>();
  const walk = (ns: typeof placed.layout): void => {
    for (const n of ns) {
      if (n.kind === 'aggregator') walk(n.children);
      else for (const r of n.replicas ?? []) zones.set(r.name, r.zone);
    }
  };
  walk(placed.layout);
  const set = new Set(h.nodes.map((n) => zones.get(n)));
  return set.size === 1 ? [...set][0] : undefined;
}

/**
 * Prometheus configuration scraping `/metrics` once per process (the host's first port: every
 * port of a process serves the same process-wide metrics), one job per tier (`canopy-root`,
 * `canopy-aggregator`, `canopy-leaf`); leaf hosts of one zone get a `zone` target label. The
 * metrics carry `node`, `process` and `role` themselves, so no target label collides with them.
 * @throws Error for a topology with free ports (port 0).
 */
export function prometheusConfig(t: Topology, ruleFiles: readonly string[] = ['/etc/prometheus/alerts.yml']): string {
  const out = [
    "# Generated by `npx tsx src/cli/deploy.ts` from the plan of deploy/topology.json: one /metrics per process.",
    'global:',
    '  scrape_interval: 15s',
    '  evaluation_interval: 15s',
    'rule_files:',
    ...ruleFiles.map((f) => `  - ${f}`),
    'scrape_configs:',
  ];
  for (const tier of ['root', 'aggregator', 'leaf'] as const) {
    out.push(`  - job_name: canopy-${tier}`, '    metrics_path: /metrics', '    static_configs:');
    for (const h of t.hosts) {
      if (tierOf(h) !== tier) continue;
      if (h.port === 0) throw new Error(`host ${h.name} has no fixed port`);
      const zone = zoneOfHost(t, h);
      out.push(`      - targets: ['${h.address}:${h.port}']`, `        labels: {host: '${h.name}'${zone === undefined ? '' : `, zone: '${zone}'`}}`);
    }
  }
  return out.join('\n') + '\n';
}

/** `node -e` probe of `url` that exits 0 on a 2xx (the slim image has no curl). */
function nodeProbe(url: string): string[] {
  return ['CMD', 'node', '-e', `fetch('${url}').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))`];
}

/** The command of a host's container: plain node on the compiled build, heap from the memory limit, global.gc exposed (idle-time scavenges). */
function serveCommand(tier: Tier, topologyFile: string, host: string, cacheDir: string): string[] {
  const pg = tier === 'root' && PG_PORT !== undefined ? ['--pg-port', String(PG_PORT)] : [];
  // --expose-gc: the host's idle-time scavenges between requests (src/transport/idle-gc.ts).
  return ['node', `--max-old-space-size=${heapMb(RESOURCES[tier].memoryMb)}`, '--expose-gc', 'dist/cli/serve.js', '--topology', topologyFile, '--host', host, '--cache-dir', cacheDir, ...pg];
}

const COMPOSE_HEADER = `# canopy as a multi-container tree, one service per host of deploy/topology.json.
# Generated by \`npx tsx src/cli/deploy.ts\` (edit the plan there, not this file).
#   root            the root alone (API, dashboard, /metrics on 8080)
#   aggregators-0/1 two aggregators each (agg-0..agg-3, fan-out 4)
#   leaves-a0/a1    replica r0 of the 16 leaves (zone a), 8 leaf endpoints per container
#   leaves-b0/b1    replica r1 of the 16 leaves (zone b)
#   prometheus      scrapes /metrics of every process (deploy/prometheus.yml), alert rules deploy/alerts.yml
# Secure by default: both tokens are compose secrets read from files (CANOPY_SECRETS_DIR must name
# the directory; an empty or missing file stops the service), published ports bind 127.0.0.1
# unless CANOPY_BIND / PROMETHEUS_BIND say otherwise, containers run as the image's non-root user
# with a read-only root filesystem, no capabilities and memory/CPU limits.
#   mkdir -p secrets && openssl rand -hex 24 > secrets/tree-token && openssl rand -hex 24 > secrets/api-token
#   CANOPY_SECRETS_DIR=./secrets docker compose up --build
`;

/**
 * docker-compose.yml for `t` (hosts reached by service name): one service per host running
 * `dist/cli/serve.js`, Prometheus with its rules, a volume and a restart policy.
 */
export function composeFile(t: Topology): string {
  const secretsDir = '${CANOPY_SECRETS_DIR:?set CANOPY_SECRETS_DIR to a directory holding the files tree-token and api-token (see README, Operations)}';
  const services: Record<string, unknown> = {};
  const volumes: Record<string, null> = {};
  const ofTier = (tier: Tier): TopologyHost[] => t.hosts.filter((h) => tierOf(h) === tier);
  for (const h of t.hosts) {
    const tier = tierOf(h);
    const r = RESOURCES[tier];
    const needsData = tier !== 'aggregator';
    const root = tier === 'root';
    const dependsOn = tier === 'aggregator' ? ofTier('leaf') : root ? ofTier('aggregator') : [];
    if (needsData) volumes[`${h.name}-cache`] = null;
    services[h.name] = {
      image: IMAGE,
      build: '.',
      command: serveCommand(tier, 'deploy/topology.json', h.name, '/app/.canopy-cache'),
      environment: {
        HOST: '0.0.0.0',
        CANOPY_TREE_TOKEN_FILE: '/run/secrets/tree_token',
        ...(root ? { CANOPY_API_TOKEN_FILE: '/run/secrets/api_token' } : {}),
      },
      secrets: root ? ['tree_token', 'api_token'] : ['tree_token'],
      ...(root ? { ports: [`\${CANOPY_BIND:-127.0.0.1}:${h.port}:${h.port}`, ...(PG_PORT === undefined ? [] : [`\${CANOPY_BIND:-127.0.0.1}:${PG_PORT}:${PG_PORT}`])] } : {}),
      ...(needsData ? { volumes: [`${h.name}-cache:/app/.canopy-cache`] } : {}),
      ...(dependsOn.length > 0 ? { depends_on: Object.fromEntries(dependsOn.map((d) => [d.name, { condition: 'service_healthy' }])) } : {}),
      restart: 'unless-stopped',
      mem_limit: `${r.memoryMb}m`,
      cpus: r.cpus,
      read_only: true,
      tmpfs: ['/tmp'],
      cap_drop: ['ALL'],
      security_opt: ['no-new-privileges:true'],
      // A host's nodes start in order: its last node answering means all of them listen.
      // The root's /healthz says whether it can answer (degraded when its children are unreachable).
      healthcheck: { test: nodeProbe(`http://127.0.0.1:${h.port + h.nodes.length - 1}/healthz`), interval: '5s', timeout: '3s', start_period: '120s', retries: 3 },
    };
  }
  volumes['prometheus-data'] = null;
  services.prometheus = {
    image: PROMETHEUS_IMAGE,
    command: ['--config.file=/etc/prometheus/prometheus.yml', '--storage.tsdb.path=/prometheus', '--storage.tsdb.retention.time=15d'],
    volumes: ['./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro', './deploy/alerts.yml:/etc/prometheus/alerts.yml:ro', 'prometheus-data:/prometheus'],
    ports: ['${PROMETHEUS_BIND:-127.0.0.1}:9090:9090'],
    depends_on: { root: { condition: 'service_healthy' } },
    restart: 'unless-stopped',
    mem_limit: '512m',
    healthcheck: { test: ['CMD', 'wget', '-q', '--spider', 'http://127.0.0.1:9090/-/healthy'], interval: '10s', timeout: '3s', retries: 3 },
  };
  const doc = {
    services,
    volumes,
    secrets: { tree_token: { file: `${secretsDir}/tree-token` }, api_token: { file: `${secretsDir}/api-token` } },
  };
  return COMPOSE_HEADER + toYaml(doc);
}

// ---------------------------------------------------------------------------------------
// Kubernetes (deploy/k8s: a kustomize base)

const APP = 'canopy';
/** Where the topology ConfigMap, the token Secret and the data volume are mounted in a pod. */
const K8S_TOPOLOGY = '/etc/canopy/topology.json';
const K8S_SECRETS = '/run/secrets/canopy';
const K8S_DATA = '/var/lib/canopy';
/** Namespace Prometheus (the operator's) runs in: it may scrape the metrics ports. */
export const MONITORING_NAMESPACE = 'monitoring';

/** Kubernetes names of the hosts: `canopy-root`, `canopy-aggregators-0`, leaf StatefulSet pods `canopy-leaves-<zone>-<k>`. */
export function k8sHostName(h: TopologyHost, zone: string | undefined, index: number): string {
  const tier = tierOf(h);
  if (tier === 'leaf') return `${APP}-leaves-${zone ?? 'x'}-${index}`;
  return `${APP}-${h.name}`;
}

/** The leaf StatefulSet of a zone (`canopy-leaves-a`) and the headless Service governing all leaf pods. */
const LEAF_SERVICE = `${APP}-leaves`;

/**
 * The compose topology renamed and readdressed for Kubernetes: root and aggregator hosts are
 * reached through their Services, leaf hosts (StatefulSet pods, one StatefulSet per zone) by
 * their stable DNS names under the headless Service `canopy-leaves`.
 */
export function k8sTopology(t: Topology): Topology {
  const perZone = new Map<string, number>();
  const hosts = t.hosts.map((h) => {
    const zone = tierOf(h) === 'leaf' ? zoneOfHost(t, h) : undefined;
    const k = perZone.get(zone ?? '') ?? 0;
    if (tierOf(h) === 'leaf') perZone.set(zone ?? '', k + 1);
    const name = k8sHostName(h, zone, k);
    return { ...h, name, address: tierOf(h) === 'leaf' ? `${name}.${LEAF_SERVICE}` : name };
  });
  return { ...t, hosts };
}

/** Every kind of object the base holds (typed by kubernetes-models: a misspelt field does not compile). */
type K8sObject = IDeployment | IStatefulSet | IService | IPodDisruptionBudget | INetworkPolicy | IServiceMonitor | IPrometheusRule | INamespace;

function labels(tier: Tier, extra: Record<string, string> = {}): Record<string, string> {
  return { 'app.kubernetes.io/name': APP, 'app.kubernetes.io/component': tier, ...extra };
}

function portName(i: number): string {
  return i === 0 ? 'metrics' : `node-${i}`;
}

/**
 * The pod template of a host (its tier's limits, probes, security context, mounts).
 * @param data the pod's data volume, `claim` for a StatefulSet's volume claim named `data`, null: none
 */
function podTemplate(tier: Tier, h: TopologyHost, podLabels: Record<string, string>, hostArg: string, data: IVolume | 'claim' | null, extraSpec: Partial<NonNullable<IPodTemplateSpec['spec']>> = {}): IPodTemplateSpec {
  const r = RESOURCES[tier];
  const ports = h.nodes.map((_, i) => ({ name: tier === 'root' ? 'http' : portName(i), containerPort: h.port + i, protocol: 'TCP' as const }));
  if (tier === 'root' && PG_PORT !== undefined) ports.push({ name: 'pg', containerPort: PG_PORT, protocol: 'TCP' });
  const last = h.port + h.nodes.length - 1;
  const mem = `${r.memoryMb}Mi`;
  return {
    metadata: { labels: podLabels },
    spec: {
      automountServiceAccountToken: false,
      securityContext: { runAsNonRoot: true, runAsUser: 1000, runAsGroup: 1000, fsGroup: 1000, seccompProfile: { type: 'RuntimeDefault' } },
      terminationGracePeriodSeconds: 30,
      ...extraSpec,
      containers: [
        {
          name: APP,
          image: IMAGE,
          command: serveCommand(tier, K8S_TOPOLOGY, hostArg, K8S_DATA),
          env: [
            { name: 'POD_NAME', valueFrom: { fieldRef: { fieldPath: 'metadata.name' } } },
            { name: 'HOST', value: '0.0.0.0' },
            { name: 'CANOPY_TREE_TOKEN_FILE', value: `${K8S_SECRETS}/tree-token` },
            ...(tier === 'root' ? [{ name: 'CANOPY_API_TOKEN_FILE', value: `${K8S_SECRETS}/api-token` }] : []),
          ],
          ports,
          resources: { requests: { cpu: `${Math.round(r.requestCpus * 1000)}m`, memory: mem }, limits: { cpu: String(r.cpus), memory: mem } },
          // Started: every node listens (the last starts last; leaves first prepare their data).
          startupProbe: { httpGet: { path: '/healthz', port: last }, periodSeconds: 5, failureThreshold: 60 },
          // Ready: /healthz of the host (the root's is degraded when its children are unreachable).
          readinessProbe: { httpGet: { path: '/healthz', port: last }, periodSeconds: 5, timeoutSeconds: 3, failureThreshold: 2 },
          // Alive: the process accepts connections. Not /healthz: a root whose children are down must not be restarted for it.
          livenessProbe: { tcpSocket: { port: h.port }, periodSeconds: 10, timeoutSeconds: 3, failureThreshold: 3 },
          securityContext: { allowPrivilegeEscalation: false, readOnlyRootFilesystem: true, capabilities: { drop: ['ALL'] } },
          volumeMounts: [
            { name: 'topology', mountPath: '/etc/canopy', readOnly: true },
            { name: 'tokens', mountPath: K8S_SECRETS, readOnly: true },
            { name: 'tmp', mountPath: '/tmp' },
            ...(data === null ? [] : [{ name: 'data', mountPath: K8S_DATA }]),
          ],
        },
      ],
      volumes: [
        { name: 'topology', configMap: { name: `${APP}-topology` } },
        { name: 'tokens', secret: { secretName: `${APP}-tokens`, defaultMode: 0o440 } },
        { name: 'tmp', emptyDir: { sizeLimit: '64Mi' } },
        ...(data === null || data === 'claim' ? [] : [data]),
      ],
    },
  };
}

function servicePorts(h: TopologyHost, tier: Tier): IServicePort[] {
  const ports: IServicePort[] = h.nodes.map((_, i) => ({ name: tier === 'root' ? 'http' : portName(i), port: h.port + i, targetPort: h.port + i, protocol: 'TCP' }));
  if (tier === 'root' && PG_PORT !== undefined) ports.push({ name: 'pg', port: PG_PORT, targetPort: PG_PORT, protocol: 'TCP' });
  return ports;
}

/** Alert rules (the same as deploy/alerts.yml) as a PrometheusRule for the Prometheus operator. */
function prometheusRule(alerts: unknown): IPrometheusRule {
  return { apiVersion: 'monitoring.coreos.com/v1', kind: 'PrometheusRule', metadata: { name: `${APP}-alerts`, labels: { 'app.kubernetes.io/name': APP } }, spec: alerts as IPrometheusRule['spec'] };
}

/**
 * The kustomize base for `t` (the compose topology): file name -> YAML text. Leaves: one
 * StatefulSet per zone (one shard set per pod, its data prepared into a PersistentVolume),
 * governed by a headless Service; aggregator hosts and the root: Deployments of 2 stateless
 * pods behind a Service each; PodDisruptionBudgets; NetworkPolicies (root -> aggregator ->
 * leaf, Prometheus to the metrics ports, nothing else); a ServiceMonitor and the alert rules.
 * @param alerts the parsed deploy/alerts.yml (`{groups: [...]}`)
 */
export function k8sManifests(compose: Topology, alerts: unknown): Record<string, string> {
  const t = k8sTopology(compose);
  const placed = placeTopology(t);
  const tierHosts = (tier: Tier): TopologyHost[] => t.hosts.filter((h) => tierOf(h) === tier);
  // Who calls whom: the tiers of the parents of each tier in this layout.
  const parents = new Map<Tier, Set<Tier>>([['aggregator', new Set()], ['leaf', new Set()]]);
  const walk = (ns: typeof placed.layout, parent: Tier): void => {
    for (const n of ns) {
      parents.get(n.kind)!.add(parent);
      if (n.kind === 'aggregator') walk(n.children, 'aggregator');
    }
  };
  walk(placed.layout, 'root');
  const docs = (objs: readonly K8sObject[]): string => objs.map(toYaml).join('---\n');
  const files: Record<string, string> = {};

  const root = tierHosts('root')[0]!;
  files['root.yaml'] = docs([
    {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name: root.name, labels: labels('root') },
      spec: {
        replicas: 2,
        selector: { matchLabels: labels('root') },
        strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } },
        // The root prepares the catalog from the bundled data at start (deterministic, seconds).
        template: podTemplate('root', root, labels('root'), root.name, { name: 'data', emptyDir: { sizeLimit: '2Gi' } }),
      },
    },
    { apiVersion: 'v1', kind: 'Service', metadata: { name: root.name, labels: labels('root', { 'canopy/metrics': 'true' }) }, spec: { selector: labels('root'), ports: servicePorts(root, 'root') } },
  ]);

  const aggObjs: K8sObject[] = [];
  for (const h of tierHosts('aggregator')) {
    const podLabels = labels('aggregator', { 'canopy/host': h.name });
    aggObjs.push(
      {
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name: h.name, labels: podLabels },
        spec: { replicas: 2, selector: { matchLabels: podLabels }, strategy: { type: 'RollingUpdate', rollingUpdate: { maxUnavailable: 0, maxSurge: 1 } }, template: podTemplate('aggregator', h, podLabels, h.name, null) },
      },
      { apiVersion: 'v1', kind: 'Service', metadata: { name: h.name, labels: labels('aggregator', { 'canopy/metrics': 'true' }) }, spec: { selector: podLabels, ports: servicePorts(h, 'aggregator') } },
      { apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: h.name, labels: podLabels }, spec: { minAvailable: 1, selector: { matchLabels: podLabels } } },
    );
  }
  files['aggregators.yaml'] = docs(aggObjs);

  const leafHosts = tierHosts('leaf');
  const zones = [...new Set(leafHosts.map((h) => h.name.replace(/^canopy-leaves-(.+)-\d+$/, '$1')))];
  const leafObjs: K8sObject[] = [
    {
      apiVersion: 'v1',
      kind: 'Service',
      metadata: { name: LEAF_SERVICE, labels: labels('leaf', { 'canopy/metrics': 'true' }) },
      // Headless: every leaf pod has its own DNS name (canopy-leaves-a-0.canopy-leaves), which the topology names.
      spec: { clusterIP: 'None', selector: labels('leaf'), ports: servicePorts(leafHosts[0]!, 'leaf') },
    },
  ];
  for (const zone of zones) {
    const hosts = leafHosts.filter((h) => h.name.startsWith(`${APP}-leaves-${zone}-`));
    const podLabels = labels('leaf', { 'canopy/zone': zone });
    const others = zones.filter((z) => z !== zone);
    // Replicas of one shard live in different zones' StatefulSets: keep those apart across failure domains where the cluster has several.
    const affinity =
      others.length === 0
        ? {}
        : { affinity: { podAntiAffinity: { preferredDuringSchedulingIgnoredDuringExecution: [{ weight: 100, podAffinityTerm: { topologyKey: 'topology.kubernetes.io/zone', labelSelector: { matchExpressions: [{ key: 'canopy/zone', operator: 'In', values: others }] } } }] } } };
    leafObjs.push({
      apiVersion: 'apps/v1',
      kind: 'StatefulSet',
      metadata: { name: `${APP}-leaves-${zone}`, labels: podLabels },
      spec: {
        serviceName: LEAF_SERVICE,
        replicas: hosts.length,
        podManagementPolicy: 'Parallel',
        selector: { matchLabels: podLabels },
        // Each pod is one host of the topology: its name (canopy-leaves-a-1) says which shard set it serves.
        template: podTemplate('leaf', hosts[0]!, podLabels, '$(POD_NAME)', 'claim', affinity),
        // The pod's shards, prepared from the bundled data on first start and kept across restarts.
        volumeClaimTemplates: [{ metadata: { name: 'data' }, spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } } }],
      },
    });
  }
  // One leaf pod down at a time across all zones: never both replicas of a shard.
  leafObjs.push({ apiVersion: 'policy/v1', kind: 'PodDisruptionBudget', metadata: { name: LEAF_SERVICE, labels: labels('leaf') }, spec: { maxUnavailable: 1, selector: { matchLabels: labels('leaf') } } });
  files['leaves.yaml'] = docs(leafObjs);

  const anyPort = (h: TopologyHost) => h.nodes.map((_, i) => ({ protocol: 'TCP' as const, port: h.port + i }));
  const fromTiers = (tiers: Iterable<Tier>) => [...tiers].map((tier) => ({ podSelector: { matchLabels: labels(tier) } }));
  const monitoring = { namespaceSelector: { matchLabels: { 'kubernetes.io/metadata.name': MONITORING_NAMESPACE } } };
  const policy = (name: string, tier: Tier, ingress: NonNullable<NonNullable<INetworkPolicy['spec']>['ingress']>): INetworkPolicy => ({ apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name, labels: labels(tier) }, spec: { podSelector: { matchLabels: labels(tier) }, policyTypes: ['Ingress'], ingress } });
  const aggHost = tierHosts('aggregator')[0];
  files['network-policies.yaml'] = docs([
    // Nothing reaches a canopy pod unless a policy below allows it.
    { apiVersion: 'networking.k8s.io/v1', kind: 'NetworkPolicy', metadata: { name: `${APP}-default-deny`, labels: { 'app.kubernetes.io/name': APP } }, spec: { podSelector: { matchLabels: { 'app.kubernetes.io/name': APP } }, policyTypes: ['Ingress'] } },
    // Clients reach the root's API (and Prometheus its /metrics on the same port).
    policy(`${APP}-root`, 'root', [{ ports: servicePorts(root, 'root').map((p) => ({ protocol: 'TCP' as const, port: p.port })) }]),
    ...(aggHost === undefined ? [] : [policy(`${APP}-aggregators`, 'aggregator', [{ from: fromTiers(parents.get('aggregator')!), ports: anyPort(aggHost) }, { from: [monitoring], ports: [{ protocol: 'TCP' as const, port: aggHost.port }] }])]),
    policy(`${APP}-leaves`, 'leaf', [{ from: fromTiers(parents.get('leaf')!), ports: anyPort(leafHosts[0]!) }, { from: [monitoring], ports: [{ protocol: 'TCP' as const, port: leafHosts[0]!.port }] }]),
  ]);

  files['monitoring.yaml'] = docs([
    {
      apiVersion: 'monitoring.coreos.com/v1',
      kind: 'ServiceMonitor',
      metadata: { name: APP, labels: { 'app.kubernetes.io/name': APP } },
      spec: {
        selector: { matchLabels: { 'app.kubernetes.io/name': APP, 'canopy/metrics': 'true' } },
        // One target per pod: the root's API port, the first port of the other hosts (each serves its whole process's metrics).
        endpoints: [
          { port: 'http', path: '/metrics', interval: '15s' },
          { port: 'metrics', path: '/metrics', interval: '15s' },
        ],
      },
    },
    prometheusRule(alerts),
  ]);

  files['namespace.yaml'] = docs([{ apiVersion: 'v1', kind: 'Namespace', metadata: { name: APP, labels: { 'app.kubernetes.io/name': APP } } }]);
  files['topology.json'] = topologyJSON(t);
  const resources = ['namespace.yaml', 'root.yaml', 'aggregators.yaml', 'leaves.yaml', 'network-policies.yaml', 'monitoring.yaml'];
  files['kustomization.yaml'] =
    '# Generated by `npx tsx src/cli/deploy.ts`. Create the token files first (see README, Operations):\n' +
    '#   mkdir -p secrets && openssl rand -hex 24 > secrets/tree-token && openssl rand -hex 24 > secrets/api-token\n' +
    toYaml(
      {
        apiVersion: 'kustomize.config.k8s.io/v1beta1',
        kind: 'Kustomization',
        namespace: APP,
        resources,
        configMapGenerator: [{ name: `${APP}-topology`, files: ['topology.json'] }],
        secretGenerator: [{ name: `${APP}-tokens`, files: ['tree-token=secrets/tree-token', 'api-token=secrets/api-token'] }],
        images: [{ name: IMAGE.split(':')[0]!, newTag: IMAGE.split(':')[1]! }],
      },
    );
  return files;
}

/** Every generated file: path (from the repository root) -> text. */
export function deployFiles(alerts: unknown): Record<string, string> {
  const t = planTopology(COMPOSE_PLAN);
  const out: Record<string, string> = {
    'deploy/topology.json': topologyJSON(t),
    'deploy/prometheus.yml': prometheusConfig(t),
    'docker-compose.yml': composeFile(t),
  };
  for (const [f, text] of Object.entries(k8sManifests(t, alerts))) out[`deploy/k8s/${f}`] = text;
  return out;
}

if (process.argv[1] !== undefined && fileURLToPath(import.meta.url) === process.argv[1]) {
  const { readFileSync } = await import('node:fs');
  const { parse } = await import('yaml');
  const repo = new URL('../../', import.meta.url);
  const alerts = parse(readFileSync(new URL('deploy/alerts.yml', repo), 'utf8')) as unknown;
  mkdirSync(new URL('deploy/k8s/', repo), { recursive: true });
  const files = deployFiles(alerts);
  for (const [f, text] of Object.entries(files)) writeFileSync(new URL(f, repo), text);
  console.log(`wrote ${Object.keys(files).join(', ')}`);
}
