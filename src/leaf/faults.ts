/**
 * Fault injection on leaves, for tests, benchmarks and demos (`npm start -- --faults FILE`).
 * A layer around a node handler: an identity when no rule matches.
 *
 * A fault plan is JSON:
 * ```json
 * { "seed": 7, "rules": [
 *   { "shards": "all", "latency": { "kind": "lognormal", "medianMs": 5, "sigma": 0.5 } },
 *   { "shards": [3, 4], "latency": { "kind": "straggler", "p": 0.01, "ms": 200 } },
 *   { "shards": [7], "error": 1 },
 *   { "shards": [9], "hang": 0.5, "garble": 0.2, "crash": 0.1 } ] }
 * ```
 * Latency kinds: `fixed` (ms), `lognormal` (medianMs, sigma), `straggler` (with probability
 * p add ms). A rule applies to a leaf when it serves any listed shard; latencies of matching
 * rules add up, and the first drawn of hang / crash / garble / error wins.
 * A rule with `"zones": ["c"]` applies only to leaves placed in those zones (replicated
 * trees, see {@link withFaultsAt}): `{ "shards": "all", "zones": ["c"], "latency": { "kind":
 * "fixed", "ms": 30 } }` makes a whole zone 30 ms slower.
 */
import { statSync, readFileSync } from 'node:fs';
import { CanopyError, toCanopyError, type Frame } from '../merge/index.ts';
import { systemClock, type ChildRequest, type Clock, type NodeHandler } from '../transport/index.ts';

/** A latency distribution, ms. */
export type LatencySpec =
  | { readonly kind: 'fixed'; readonly ms: number }
  | { readonly kind: 'lognormal'; readonly medianMs: number; readonly sigma: number }
  | { readonly kind: 'straggler'; readonly p: number; readonly ms: number };

/** One rule of a fault plan; probabilities in [0, 1]. */
export interface FaultRule {
  readonly shards: readonly number[] | 'all';
  /** Only leaves in these zones (absent: every leaf, zoned or not). */
  readonly zones?: readonly string[];
  readonly latency?: LatencySpec;
  /** Answer a coded error. */
  readonly error?: number;
  /** Never answer (until cancelled). */
  readonly hang?: number;
  /** Drop the connection (HTTP) / be unreachable (in-process). */
  readonly crash?: number;
  /** Answer bytes that are not a valid frame (HTTP) / a frame that lies about its shards. */
  readonly garble?: number;
}

/** A seeded set of fault rules. */
export interface FaultPlan {
  readonly seed?: number;
  readonly rules: readonly FaultRule[];
}

/** Timers used by the layer: a {@link Clock}'s (the simulator's, or the system's by default). */
export type FaultTimers = Pick<Clock, 'setTimeout' | 'clearTimeout'>;

/**
 * Validates a parsed fault plan.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST naming the bad rule and field.
 */
export function parseFaultPlan(json: unknown): FaultPlan {
  const bad = (msg: string): never => {
    throw new CanopyError('CANOPY_ERR_BAD_REQUEST', `fault plan: ${msg}`);
  };
  const o = json as { seed?: unknown; rules?: unknown } | null;
  if (typeof o !== 'object' || o === null || !Array.isArray(o.rules)) return bad('expected {"seed"?: n, "rules": [...]}');
  if (o.seed !== undefined && !Number.isInteger(o.seed)) bad('seed must be an integer');
  // A misspelt key would silently inject nothing: name it.
  const unknownKey = (what: string, x: object, known: readonly string[]): void => {
    const k = Object.keys(x).find((key) => !known.includes(key));
    if (k !== undefined) bad(`${what}: unknown key '${k}'; known: ${known.join(', ')}`);
  };
  unknownKey('plan', o, ['seed', 'rules']);
  o.rules.forEach((r: unknown, i) => {
    const rule = r as Record<string, unknown>;
    if (typeof rule !== 'object' || rule === null) bad(`rule ${i} is not an object`);
    unknownKey(`rule ${i}`, rule, ['shards', 'zones', 'latency', 'error', 'hang', 'crash', 'garble']);
    if (rule.shards !== 'all' && !(Array.isArray(rule.shards) && rule.shards.every((s) => Number.isInteger(s)))) bad(`rule ${i}: shards must be "all" or a list of shard ids`);
    if (rule.zones !== undefined && !(Array.isArray(rule.zones) && rule.zones.every((z) => typeof z === 'string'))) bad(`rule ${i}: zones must be a list of zone names`);
    for (const p of ['error', 'hang', 'crash', 'garble']) {
      const v = rule[p];
      if (v !== undefined && !(typeof v === 'number' && v >= 0 && v <= 1)) bad(`rule ${i}: ${p} must be a probability in [0, 1]`);
    }
    const l = rule.latency as Record<string, unknown> | undefined;
    if (l !== undefined) {
      const num = (k: string): boolean => typeof l[k] === 'number' && (l[k] as number) >= 0;
      const ok = (l.kind === 'fixed' && num('ms')) || (l.kind === 'lognormal' && num('medianMs') && num('sigma')) || (l.kind === 'straggler' && num('ms') && num('p') && (l.p as number) <= 1);
      if (!ok) bad(`rule ${i}: latency must be {kind:"fixed",ms} | {kind:"lognormal",medianMs,sigma} | {kind:"straggler",p,ms}`);
      unknownKey(`rule ${i} latency`, l, l.kind === 'fixed' ? ['kind', 'ms'] : l.kind === 'lognormal' ? ['kind', 'medianMs', 'sigma'] : ['kind', 'p', 'ms']);
    }
  });
  return o as FaultPlan;
}

/** A fault plan that may change while the tree runs (see {@link faultPlanFile}). */
export interface FaultSource {
  /** The plan in force now. */
  current(): FaultPlan;
}

/** How often a fault plan file is checked for changes, at most, ms. */
const FAULT_FILE_CHECK_MS = 100;

/**
 * A fault plan read from `file` and read again whenever its modification time or size
 * changes (checked at most every {@link FAULT_FILE_CHECK_MS} ms, when a request asks), so a
 * running tree can be given new faults by rewriting the file (`npm run bench -- faults --real`
 * does, schedule after schedule). A later edit that does not parse keeps the plan in force.
 * @throws CanopyError CANOPY_ERR_BAD_REQUEST when the file cannot be read or parsed at first.
 */
export function faultPlanFile(file: string): FaultSource {
  const read = (): { plan: FaultPlan; stamp: string } => {
    try {
      const st = statSync(file);
      return { plan: parseFaultPlan(JSON.parse(readFileSync(file, 'utf8'))), stamp: `${st.mtimeMs}:${st.size}` };
    } catch (e) {
      throw toCanopyError(e, 'CANOPY_ERR_BAD_REQUEST');
    }
  };
  let { plan, stamp } = read();
  let checkedAt = performance.now();
  return {
    current(): FaultPlan {
      const t = performance.now();
      if (t - checkedAt < FAULT_FILE_CHECK_MS) return plan;
      checkedAt = t;
      try {
        const st = statSync(file);
        if (`${st.mtimeMs}:${st.size}` !== stamp) ({ plan, stamp } = read());
      } catch {
        // Being rewritten, or a bad edit: the plan in force stays until the file parses again.
      }
      return plan;
    },
  };
}

/** mulberry32: a small seeded PRNG giving uniforms in [0, 1). */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** Draws one latency in ms. Lognormal via Box-Muller. */
export function drawLatency(spec: LatencySpec, rand: () => number): number {
  switch (spec.kind) {
    case 'fixed':
      return spec.ms;
    case 'straggler':
      return rand() < spec.p ? spec.ms : 0;
    case 'lognormal': {
      const u = Math.max(rand(), 1e-12);
      const z = Math.sqrt(-2 * Math.log(u)) * Math.cos(2 * Math.PI * rand());
      return spec.medianMs * Math.exp(spec.sigma * z);
    }
  }
}

/** What a fault draw decided for one request. */
export type FaultOutcome = 'ok' | 'error' | 'hang' | 'crash' | 'garble';

function sleep(ms: number, signal: AbortSignal, timers: FaultTimers): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    const onAbort = (): void => {
      timers.clearTimeout(h);
      reject(signal.reason as Error);
    };
    const h = timers.setTimeout(() => {
      signal.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    signal.addEventListener('abort', onAbort, { once: true });
  });
}

/**
 * Wraps a leaf's handler with the rules of `plan` that match `shards`. Returns the handler
 * unchanged when none match. Thrown faults are CanopyErrors whose `details.fault` says which
 * (`crash` and `garble` are turned into a dropped connection / garbage bytes by the HTTP face).
 */
export function withFaults(handler: NodeHandler, shards: readonly number[], plan: FaultPlan, timers: FaultTimers = systemClock, rand?: () => number): NodeHandler {
  return withFaultsAt({}, handler, shards, plan, timers, rand);
}

/** Where a leaf runs: its zone and replica index (replicated trees). */
export interface FaultSite {
  readonly zone?: string;
  readonly replica?: number;
}

/**
 * {@link withFaults} for a leaf at `site`: rules with `zones` apply only when the site's zone
 * is listed, and each replica draws from its own seeded stream (replica 0 from the same one
 * as an unreplicated leaf), so replicas of one shard straggle independently.
 */
export function withFaultsAt(
  site: FaultSite,
  handler: NodeHandler,
  shards: readonly number[],
  source: FaultPlan | FaultSource,
  timers: FaultTimers = systemClock,
  rand: () => number = seededRandom((('current' in source ? source.current() : source).seed ?? 1) + shards[0]! * 7919 + (site.replica ?? 0) * 104_729),
): NodeHandler {
  const inZone = (r: FaultRule): boolean => r.zones === undefined || (site.zone !== undefined && r.zones.includes(site.zone));
  const rulesOf = (plan: FaultPlan): readonly FaultRule[] => plan.rules.filter((r) => (r.shards === 'all' || r.shards.some((s) => shards.includes(s))) && inZone(r));
  let plan = 'current' in source ? source.current() : source;
  let mine = rulesOf(plan);
  // A fixed plan with no rule for these shards leaves the handler as it is.
  if (!('current' in source) && mine.length === 0) return handler;
  return async function* faulty(req: ChildRequest, signal: AbortSignal): AsyncIterable<Frame> {
    if ('current' in source && source.current() !== plan) {
      plan = source.current();
      mine = rulesOf(plan);
    }
    let delay = 0;
    let outcome: FaultOutcome = 'ok';
    for (const r of mine) {
      if (r.latency !== undefined) delay += drawLatency(r.latency, rand);
      for (const f of ['hang', 'crash', 'garble', 'error'] as const) {
        const p = r[f];
        if (outcome === 'ok' && p !== undefined && rand() < p) outcome = f;
      }
    }
    if (delay > 0) await sleep(delay, signal, timers);
    if (outcome === 'hang') {
      await new Promise<never>((_, reject) => {
        if (signal.aborted) reject(signal.reason as Error);
        signal.addEventListener('abort', () => reject(signal.reason as Error), { once: true });
      });
    }
    if (outcome === 'error') throw new CanopyError('CANOPY_ERR_INTERNAL', `injected fault: error on shard(s) ${req.shards.join(', ')}`, { details: { fault: 'error' } });
    if (outcome === 'crash') throw new CanopyError('CANOPY_ERR_CHILD_UNREACHABLE', `injected fault: crash on shard(s) ${req.shards.join(', ')}`, { details: { fault: 'crash' } });
    let last: Frame | undefined;
    for await (const f of handler(req, signal)) last = f;
    if (last === undefined) return;
    if (outcome === 'garble') {
      // A frame that lies: it claims a shard it was not asked for and drops one it was.
      const lie = last.provenance.map((p, i) => (i === 0 ? { ...p, shard: p.shard + 1_000_000 } : p));
      yield { ...last, provenance: lie };
      return;
    }
    yield last;
  };
}
