/**
 * The deployment files: what `npx tsx src/cli/deploy.ts` writes is what is committed; every
 * Kubernetes manifest validates against the Kubernetes (and Prometheus operator) schemas;
 * docker-compose.yml is a valid compose file that refuses to start without its secrets;
 * Prometheus' configuration and alert rules pass promtool; the Grafana dashboard and the
 * alert rules only use metrics canopy exports. The tools (Debian's docker-compose and
 * prometheus packages, installed by .ci/run) are required in CI; elsewhere a missing one
 * skips its test and says so.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse, parseAllDocuments } from 'yaml';
import { COMPOSE_PLAN, RESOURCES, deployFiles, heapMb, k8sTopology, tierOf } from '../src/cli/deploy.ts';
import { placeTopology, planTopology, type Topology } from '../src/root/index.ts';

const has = (tool: string): boolean => spawnSync('sh', ['-c', `command -v ${tool}`]).status === 0;
const alerts = parse(readFileSync('deploy/alerts.yml', 'utf8')) as unknown;
const compose = (): Topology => JSON.parse(readFileSync('deploy/topology.json', 'utf8')) as Topology;
const tmp = mkdtempSync(path.join(tmpdir(), 'canopy-ops-'));
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

/** The model class validating `apiVersion`/`kind`, from kubernetes-models or the Prometheus operator's models. */
async function modelOf(apiVersion: string, kind: string): Promise<{ new (o: unknown): { validate(): void } }> {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  const pkg = group === 'monitoring.coreos.com' ? '@kubernetes-models/prometheus-operator' : 'kubernetes-models';
  const mod = (await import(`${pkg}/${group === '' ? '' : `${group}/`}${version}/${kind}`)) as Record<string, { new (o: unknown): { validate(): void } }>;
  return mod[kind]!;
}

describe('generated files', () => {
  it('docker-compose.yml, deploy/topology.json, deploy/prometheus.yml and deploy/k8s/ are what `npx tsx src/cli/deploy.ts` writes', () => {
    const files = deployFiles(alerts);
    for (const [file, text] of Object.entries(files)) expect(readFileSync(file, 'utf8'), file).toBe(text);
    // Nothing stale in deploy/k8s.
    expect(readdirSync('deploy/k8s').sort()).toEqual(Object.keys(files).filter((f) => f.startsWith('deploy/k8s/')).map((f) => f.slice('deploy/k8s/'.length)).sort());
  });

  it('derives every V8 heap limit from its container memory limit', () => {
    const yml = readFileSync('docker-compose.yml', 'utf8');
    for (const h of compose().hosts) {
      const r = RESOURCES[tierOf(h)];
      const block = yml.slice(yml.indexOf(`\n  ${h.name}:\n`)).split(/\n {2}[a-z0-9-]+:\n/)[1]!;
      expect(block).toContain(`mem_limit: ${r.memoryMb}m`);
      expect(block).toContain(`--max-old-space-size=${heapMb(r.memoryMb)}`);
      expect(block).toContain(`--host, ${h.name}`);
    }
  });
});

describe('Kubernetes manifests (deploy/k8s)', () => {
  const files = readdirSync('deploy/k8s').filter((f) => f.endsWith('.yaml') && f !== 'kustomization.yaml');
  const objects = files.flatMap((f) => parseAllDocuments(readFileSync(path.join('deploy/k8s', f), 'utf8')).map((d) => ({ file: f, obj: d.toJS() as { apiVersion: string; kind: string; metadata: { name: string }; spec?: Record<string, unknown> } })));

  it('validate against the Kubernetes and Prometheus operator schemas, every one', async () => {
    expect(objects.length).toBeGreaterThan(10);
    for (const { file, obj } of objects) {
      const Model = await modelOf(obj.apiVersion, obj.kind);
      expect(() => new Model(obj).validate(), `${file}: ${obj.kind} ${obj.metadata.name}`).not.toThrow();
    }
  });

  it('the validator does reject a broken manifest (the check can fail)', async () => {
    const sts = objects.find((o) => o.obj.kind === 'StatefulSet')!.obj;
    const Model = await modelOf(sts.apiVersion, sts.kind);
    expect(() => new Model({ ...sts, spec: { ...sts.spec, replicas: 'two' } }).validate()).toThrow(/replicas/);
  });

  it('the kustomization lists every manifest, generates the topology ConfigMap and the tokens Secret', () => {
    const k = parse(readFileSync('deploy/k8s/kustomization.yaml', 'utf8')) as { resources: string[]; configMapGenerator: { name: string }[]; secretGenerator: { name: string; files: string[] }[] };
    expect([...k.resources].sort()).toEqual([...files].sort());
    expect(k.configMapGenerator.map((g) => g.name)).toEqual(['canopy-topology']);
    expect(k.secretGenerator[0]!.files).toEqual(['tree-token=secrets/tree-token', 'api-token=secrets/api-token']);
  });

  it('runs every host of the topology: leaves as StatefulSet pods named by their host, probes on /healthz, limits, PDBs, a ServiceMonitor', () => {
    const t = JSON.parse(readFileSync('deploy/k8s/topology.json', 'utf8')) as Topology;
    expect(t).toEqual(k8sTopology(planTopology(COMPOSE_PLAN)));
    placeTopology(t); // a valid topology
    const kinds = objects.map((o) => o.obj.kind);
    for (const k of ['StatefulSet', 'Deployment', 'Service', 'PodDisruptionBudget', 'NetworkPolicy', 'ServiceMonitor', 'PrometheusRule']) expect(kinds).toContain(k);
    const sets = objects.filter((o) => o.obj.kind === 'StatefulSet').map((o) => o.obj as unknown as { metadata: { name: string }; spec: { replicas: number; serviceName: string; volumeClaimTemplates: unknown[] } });
    const leafHosts = t.hosts.filter((h) => tierOf(h) === 'leaf').map((h) => h.name);
    // StatefulSet pods are <set>-<ordinal>: exactly the leaf hosts of the topology.
    expect(sets.flatMap((s) => Array.from({ length: s.spec.replicas }, (_, i) => `${s.metadata.name}-${i}`)).sort()).toEqual(leafHosts.sort());
    for (const s of sets) expect(s.spec.volumeClaimTemplates.length).toBe(1);
    const headless = objects.find((o) => o.obj.kind === 'Service' && o.obj.metadata.name === sets[0]!.spec.serviceName)!.obj as unknown as { spec: { clusterIP: string } };
    expect(headless.spec.clusterIP).toBe('None');
    for (const { obj } of objects.filter((o) => o.obj.kind === 'Deployment' || o.obj.kind === 'StatefulSet')) {
      const c = (obj.spec as { template: { spec: { containers: { command: string[]; readinessProbe: { httpGet: { path: string } }; livenessProbe: unknown; resources: { limits: { memory: string } } }[] } } }).template.spec.containers[0]!;
      expect(c.readinessProbe.httpGet.path).toBe('/healthz');
      expect(c.livenessProbe).toBeDefined();
      const mem = Number(/^(\d+)Mi$/.exec(c.resources.limits.memory)![1]);
      expect(c.command).toContain(`--max-old-space-size=${heapMb(mem)}`);
      // global.gc for the host's idle-time scavenges (src/transport/idle-gc.ts).
      expect(c.command.slice(0, 4)).toEqual(['node', `--max-old-space-size=${heapMb(mem)}`, '--expose-gc', 'dist/cli/serve.js']);
    }
  });

  it('network policies: default deny, the aggregators reachable from the root only, the leaves from the aggregators only (and Prometheus to metrics ports)', () => {
    const pols = objects.filter((o) => o.obj.kind === 'NetworkPolicy').map((o) => o.obj as unknown as { metadata: { name: string }; spec: { ingress?: { from?: { podSelector?: { matchLabels: Record<string, string> }; namespaceSelector?: unknown }[] }[] } });
    expect(pols.find((p) => p.metadata.name === 'canopy-default-deny')!.spec.ingress).toBeUndefined();
    const fromPods = (name: string): string[] => pols.find((p) => p.metadata.name === name)!.spec.ingress!.flatMap((r) => (r.from ?? []).flatMap((f) => (f.podSelector === undefined ? [] : [f.podSelector.matchLabels['app.kubernetes.io/component']!])));
    expect(fromPods('canopy-aggregators')).toEqual(['root']);
    expect(fromPods('canopy-leaves')).toEqual(['aggregator']);
  });
});

describe('docker-compose.yml', () => {
  const run = (env: NodeJS.ProcessEnv) => spawnSync('docker-compose', ['-f', 'docker-compose.yml', 'config', '--quiet'], { env: { PATH: process.env.PATH, ...env }, encoding: 'utf8' });
  it.skipIf(!has('docker-compose'))('is valid for `docker-compose config`, and refuses without CANOPY_SECRETS_DIR', () => {
    const ok = run({ CANOPY_SECRETS_DIR: tmp });
    expect(ok.status, ok.stderr).toBe(0);
    const refused = run({});
    expect(refused.status).not.toBe(0);
    expect(refused.stderr).toMatch(/set CANOPY_SECRETS_DIR/);
  });

  it('binds published ports to 127.0.0.1 unless opted in, reads tokens from secrets, runs Prometheus with a volume and a restart policy', () => {
    const c = parse(readFileSync('docker-compose.yml', 'utf8')) as { services: Record<string, { ports?: string[]; environment?: Record<string, string>; restart?: string; volumes?: string[]; image: string; secrets?: string[] }> };
    for (const [name, s] of Object.entries(c.services)) {
      for (const p of s.ports ?? []) expect(p, name).toMatch(/^\$\{[A-Z_]+:-127\.0\.0\.1\}:/);
      expect(s.restart, name).toBe('unless-stopped');
      expect(s.image, name).toMatch(/:\d+\.\d+\.\d+$|:v\d+\.\d+\.\d+$/);
      expect(JSON.stringify(s.environment ?? {}), name).not.toMatch(/CANOPY_(TREE|API)_TOKEN"/);
    }
    expect(c.services.root!.environment).toMatchObject({ CANOPY_API_TOKEN_FILE: '/run/secrets/api_token', CANOPY_TREE_TOKEN_FILE: '/run/secrets/tree_token' });
    expect(c.services.prometheus!.volumes).toContain('prometheus-data:/prometheus');
  });
});

describe('Prometheus configuration and alert rules', () => {
  it.skipIf(!has('promtool'))('promtool accepts deploy/alerts.yml and deploy/prometheus.yml', () => {
    expect(execFileSync('promtool', ['check', 'rules', 'deploy/alerts.yml'], { encoding: 'utf8' })).toMatch(/SUCCESS: \d+ rules found/);
    // The config names the rules where the container mounts them; check a copy pointing here.
    const cfg = path.join(tmp, 'prometheus.yml');
    writeFileSync(cfg, readFileSync('deploy/prometheus.yml', 'utf8').replace('/etc/prometheus/alerts.yml', path.resolve('deploy/alerts.yml')));
    const r = spawnSync('promtool', ['check', 'config', cfg], { encoding: 'utf8' });
    expect(r.status, r.stdout + r.stderr).toBe(0);
  });

  it('scrapes one target per process, with no target label that collides with the metrics own labels', () => {
    const yml = readFileSync('deploy/prometheus.yml', 'utf8');
    const targets = [...yml.matchAll(/targets: \['([^']+)'\]\n\s+labels: \{([^}]*)\}/g)];
    expect(targets.map((m) => m[1]).sort()).toEqual(compose().hosts.map((h) => `${h.address}:${h.port}`).sort());
    for (const m of targets) expect(m[2]).not.toMatch(/\b(node|process|role)\b:/);
  });
});
