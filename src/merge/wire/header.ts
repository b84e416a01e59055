/** The frame header: the JSON text in a frame's `canopy.frame` schema metadata (provenance, rows scanned, timings, top-k bounds), parsed and validated. */
import { CanopyError } from '../errors.ts';
import type { TopKFrame } from '../topk.ts';
import type { GatherTiming, ShardStatus } from '../types.ts';

export function garbled(msg: string): CanopyError {
  return new CanopyError('CANOPY_ERR_CHILD_GARBLED', msg);
}

const STATUSES = new Set(['answered', 'failed', 'omitted', 'pruned']);

/** -Infinity (no bound) travels as null in JSON. */
export function finiteOrNull(x: number): number | null {
  return Number.isFinite(x) ? x : null;
}

/**
 * A frame's top-k header as sent: per-group upper bounds and exactness, or `own: true` when
 * every group is complete and bounded by its own score (a leaf's groups; the frame decoder
 * computes them from the states), which saves a number and a flag per group in the JSON.
 */
export type TopKHeader = TopKFrame | { readonly bound: number; readonly own: true };

function parseTopK(t: unknown): TopKHeader {
  const o = t as { bound?: unknown; his?: unknown; exact?: unknown; own?: unknown } | null;
  const num = (x: unknown): number => (x === null ? -Infinity : typeof x === 'number' ? x : NaN);
  if (typeof o === 'object' && o !== null && o.own === true && o.his === undefined && o.exact === undefined) {
    const bound = num(o.bound);
    if (Number.isNaN(bound)) throw garbled('frame top-k header is malformed');
    return { bound, own: true };
  }
  if (typeof o !== 'object' || o === null || !Array.isArray(o.his) || !Array.isArray(o.exact) || o.his.length !== o.exact.length) throw garbled('frame top-k header is malformed');
  const bound = num(o.bound);
  const his = (o.his as unknown[]).map(num);
  if (Number.isNaN(bound) || his.some((h) => Number.isNaN(h)) || !(o.exact as unknown[]).every((e) => typeof e === 'boolean')) throw garbled('frame top-k header is malformed');
  return { bound, his, exact: o.exact as boolean[] };
}

export function parseHeader(text: string | undefined): { provenance: ShardStatus[]; rowsScanned: number; timings?: GatherTiming[]; topk?: TopKHeader; final?: boolean } {
  if (text === undefined) throw garbled('frame has no canopy.frame header');
  let h: unknown;
  try {
    h = JSON.parse(text);
  } catch {
    throw garbled('frame header is not JSON');
  }
  const o = h as { v?: unknown; provenance?: unknown; rowsScanned?: unknown; timings?: unknown; topk?: unknown; final?: unknown };
  if (o.v !== FRAME_VERSION) throw garbled(`frame version ${String(o.v)}, expected ${FRAME_VERSION}`);
  if (!Array.isArray(o.provenance)) throw garbled('frame provenance is not a list');
  if (typeof o.rowsScanned !== 'number' || !(o.rowsScanned >= 0)) throw garbled('frame rowsScanned is not a count');
  for (const s of o.provenance as unknown[]) {
    const e = s as { [k: string]: unknown } | null;
    if (typeof e !== 'object' || e === null || !Number.isInteger(e['shard']) || typeof e['status'] !== 'string' || !STATUSES.has(e['status']) || typeof e['path'] !== 'string') {
      throw garbled('frame provenance entry is malformed');
    }
  }
  if (o.final !== undefined && o.final !== false) throw garbled('frame final flag is malformed');
  const out = { provenance: o.provenance as ShardStatus[], rowsScanned: o.rowsScanned, ...(o.topk === undefined ? {} : { topk: parseTopK(o.topk) }), ...(o.final === false ? { final: false } : {}) };
  if (o.timings === undefined) return out;
  const ok = Array.isArray(o.timings) && (o.timings as unknown[]).every((t) => {
    const x = t as Record<string, unknown> | null;
    return typeof x === 'object' && x !== null && typeof x.gather === 'string' && typeof x.child === 'string' && typeof x.elapsedMs === 'number';
  });
  if (!ok) throw garbled('frame timings are malformed');
  return { ...out, timings: o.timings as GatherTiming[] };
}

/** Version of the frame header; a parent rejects frames of another version as garbled. */
export const FRAME_VERSION = 1;
