/**
 * Small helpers of the simulated benchmarks: percentiles, cell summaries, the seeds' table
 * and an SVG line chart.
 */
import type { SimSample } from './engine.ts';

/**
 * The nearest-rank percentile of ascending `sorted` samples (q in [0, 1]).
 * @throws Error on an empty sample list.
 */
export function nearestRank(sorted: ArrayLike<number>, q: number): number {
  if (sorted.length === 0) throw new Error('no samples');
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/** Nearest-rank percentile of sorted values; null when there are fewer than 1/(1 − q) samples (the value would only be the maximum). */
export function pct(sorted: readonly number[], q: number): number | null {
  if (sorted.length === 0) return null;
  if (q > 0.5 && sorted.length < Math.ceil(1 / (1 - q))) return null;
  return nearestRank(sorted, q);
}

/** Summary of one cell (layout × query × policy). */
export interface CellSummary {
  readonly n: number;
  readonly p50: number | null;
  readonly p99: number | null;
  readonly p999: number | null;
  readonly max: number;
  readonly rootCpuMs: number;
  readonly rootBytes: number;
  readonly rootGroups: number;
  readonly rootFrames: number;
  /** Mean share of shards answered. */
  readonly coverage: number;
  /** Share of queries with every shard answered. */
  readonly complete: number;
  readonly labels: Readonly<Record<string, number>>;
  readonly consistent: boolean;
}

export function summariseCell(samples: readonly SimSample[]): CellSummary {
  const lat = samples.map((s) => s.latencyMs).sort((a, b) => a - b);
  const mean = (f: (s: SimSample) => number): number => samples.reduce((a, s) => a + f(s), 0) / samples.length;
  const labels: Record<string, number> = {};
  for (const s of samples) labels[s.label] = (labels[s.label] ?? 0) + 1;
  const r = (x: number | null): number | null => (x === null ? null : Math.round(x * 100) / 100);
  return {
    n: samples.length,
    p50: r(pct(lat, 0.5)),
    p99: r(pct(lat, 0.99)),
    p999: r(pct(lat, 0.999)),
    max: r(lat[lat.length - 1]!)!,
    rootCpuMs: r(mean((s) => s.rootCpuMs))!,
    rootBytes: Math.round(mean((s) => s.rootBytes)),
    rootGroups: Math.round(mean((s) => s.rootGroups)),
    rootFrames: r(mean((s) => s.rootFrames))!,
    coverage: r(mean((s) => s.answered / s.shards))!,
    complete: r(samples.filter((s) => s.answered === s.shards).length / samples.length)!,
    labels,
    consistent: samples.every((s) => s.consistent),
  };
}

/** Formats ms (or a dash when unknown). */
export function ms(x: number | null): string {
  if (x === null) return '—';
  return x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2);
}

/** Formats bytes. */
export function bytes(b: number): string {
  return b >= 1e6 ? `${(b / 1e6).toFixed(1)} MB` : b >= 1e3 ? `${(b / 1e3).toFixed(0)} kB` : `${b} B`;
}

/** One series of a line chart. */
export interface Series {
  readonly name: string;
  readonly points: readonly { readonly x: number; readonly y: number }[];
}

/** A small SVG line chart, log-scale x (leaves) and log-scale y (ms). */
export function svgChart(title: string, series: readonly Series[], xLabel: string, yLabel: string): string {
  const W = 640;
  const H = 400;
  const L = 70;
  const R = 170;
  const T = 40;
  const B = 50;
  const all = series.flatMap((s) => s.points);
  const xs = all.map((p) => p.x);
  const ys = all.map((p) => p.y).filter((y) => y > 0);
  const x0 = Math.log10(Math.min(...xs));
  const x1 = Math.log10(Math.max(...xs));
  const y0 = Math.floor(Math.log10(Math.min(...ys)));
  const y1 = Math.ceil(Math.log10(Math.max(...ys)));
  const px = (x: number): number => L + ((Math.log10(x) - x0) / Math.max(1e-9, x1 - x0)) * (W - L - R);
  const py = (y: number): number => T + (1 - (Math.log10(Math.max(y, 10 ** y0)) - y0) / Math.max(1e-9, y1 - y0)) * (H - T - B);
  const colors = ['#1f77b4', '#d62728', '#2ca02c', '#ff7f0e', '#9467bd', '#8c564b', '#e377c2', '#7f7f7f'];
  const out: string[] = [`<svg xmlns="http://www.w3.org/2000/svg" width="${W}" height="${H}" font-family="sans-serif" font-size="12">`, `<rect width="${W}" height="${H}" fill="white"/>`, `<text x="${W / 2 - R / 2}" y="20" text-anchor="middle" font-size="14">${esc(title)}</text>`];
  for (let e = y0; e <= y1; e++) {
    const y = py(10 ** e);
    out.push(`<line x1="${L}" x2="${W - R}" y1="${y}" y2="${y}" stroke="#ddd"/>`, `<text x="${L - 6}" y="${y + 4}" text-anchor="end">${10 ** e >= 1 ? 10 ** e : (10 ** e).toFixed(-e)}</text>`);
  }
  for (const x of [...new Set(xs)].sort((a, b) => a - b)) {
    out.push(`<line x1="${px(x)}" x2="${px(x)}" y1="${T}" y2="${H - B}" stroke="#eee"/>`, `<text x="${px(x)}" y="${H - B + 16}" text-anchor="middle">${x.toLocaleString('en-US')}</text>`);
  }
  out.push(`<text x="${(L + W - R) / 2}" y="${H - 12}" text-anchor="middle">${esc(xLabel)}</text>`, `<text transform="translate(16 ${(T + H - B) / 2}) rotate(-90)" text-anchor="middle">${esc(yLabel)}</text>`);
  series.forEach((s, i) => {
    const c = colors[i % colors.length]!;
    const pts = [...s.points].sort((a, b) => a.x - b.x);
    out.push(`<polyline fill="none" stroke="${c}" stroke-width="2" points="${pts.map((p) => `${px(p.x).toFixed(1)},${py(p.y).toFixed(1)}`).join(' ')}"/>`);
    for (const p of pts) out.push(`<circle cx="${px(p.x).toFixed(1)}" cy="${py(p.y).toFixed(1)}" r="3" fill="${c}"/>`);
    out.push(`<line x1="${W - R + 10}" x2="${W - R + 30}" y1="${T + 10 + i * 18}" y2="${T + 10 + i * 18}" stroke="${c}" stroke-width="2"/>`, `<text x="${W - R + 36}" y="${T + 14 + i * 18}">${esc(s.name)}</text>`);
  });
  out.push('</svg>');
  return out.join('\n') + '\n';
}

function esc(s: string): string {
  return s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}
