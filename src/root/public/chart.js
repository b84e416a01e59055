// @ts-check
/* global uPlot */
/**
 * The chart (uPlot, window.uPlot): the model of chart-model.js drawn as lines, bars or areas.
 * Guaranteed intervals are a filled band (lines, areas) or solid whiskers (bars); approximate
 * (probabilistic) intervals a dashed envelope or dashed whiskers; a progressive estimate (#20)
 * a hollow diamond with a dotted whisker. Points and bars are styled by their cell's label
 * (filled exact, hollow or light bounded, faint approximate). The y axis follows the values:
 * an interval reaching further than one value-span beyond them is clipped at the plot's edge
 * (and the legend says so), so wide bounds do not flatten the trend.
 */
import { $, fmt, h } from './dom.js';
import { chartModel } from './chart-model.js';

/** @typedef {import('./chart-model.js').ChartModel} ChartModel */
/** @typedef {'line' | 'bar' | 'area'} ChartType */

const PALETTE = ['#2f6fd6', '#d9822b', '#1f8a4c', '#8e44ad', '#c93838', '#17a2b8', '#b8860b', '#5d6d7e'];
const OTHER = '#8a93a6';

/**
 * A colour with alpha.
 * @param {string} hex #rrggbb
 * @param {number} alpha
 */
function rgba(hex, alpha) {
  const n = parseInt(hex.slice(1), 16);
  return `rgba(${(n >> 16) & 255}, ${(n >> 8) & 255}, ${n & 255}, ${alpha})`;
}

/** @param {ChartModel} m @param {number} i */
const colorOf = (m, i) => (m.series[i]?.other ? OTHER : (PALETTE[i % PALETTE.length] ?? OTHER));

/**
 * The y range: the values (and estimates), extended by the intervals by at most one value-span
 * on each side; zero included for bars and areas.
 * @param {ChartModel} m
 * @param {ChartType} type
 * @returns {{range: [number, number], clipped: boolean}}
 */
function yRange(m, type) {
  let vlo = Infinity;
  let vhi = -Infinity;
  for (const s of m.series)
    for (const arr of [s.y, s.est])
      for (const v of arr)
        if (v !== null && v !== undefined) {
          vlo = Math.min(vlo, v);
          vhi = Math.max(vhi, v);
        }
  if (!Number.isFinite(vlo)) [vlo, vhi] = [0, 1];
  if (type !== 'line') [vlo, vhi] = [Math.min(0, vlo), Math.max(0, vhi)];
  const span = vhi - vlo || Math.abs(vhi) || 1;
  let lo = vlo;
  let hi = vhi;
  let clipped = false;
  for (const s of m.series) {
    for (let i = 0; i < s.y.length; i++) {
      const l = s.loInf[i] ? -Infinity : (s.lo[i] ?? s.estLo[i] ?? null);
      const u = s.hiInf[i] ? Infinity : (s.hi[i] ?? s.estHi[i] ?? null);
      if (l !== null) {
        if (l < vlo - span) clipped = true;
        lo = Math.min(lo, Math.max(l, vlo - span));
      }
      if (u !== null) {
        if (u > vhi + span) clipped = true;
        hi = Math.max(hi, Math.min(u, vhi + span));
      }
    }
  }
  const pad = (hi - lo || 1) * 0.05;
  return { range: [type !== 'line' && lo === 0 ? 0 : lo - pad, hi + pad], clipped };
}

export class AnswerChart {
  /** @type {any} the uPlot instance */
  plot = null;
  /** @type {ChartModel | null} */
  model = null;
  /** render time of the last draw, ms */
  lastMs = 0;

  /**
   * Removes the chart (a new query started, or it failed), leaving a message.
   * @param {string} message
   */
  clear(message) {
    this.plot?.destroy();
    this.plot = null;
    this.model = null;
    const box = $('chart');
    box.replaceChildren(h('p', { class: 'muted' }, message));
    delete box.dataset.xKind;
    delete box.dataset.points;
    delete box.dataset.series;
    delete box.dataset.positions;
    $('chart-legend').replaceChildren();
  }

  /**
   * Draws column `col` of the answer.
   * @param {import('./types.js').Answer} a
   * @param {number} col
   * @param {ChartType} type
   * @param {number} topN
   */
  show(a, col, type, topN) {
    const t0 = performance.now();
    const box = $('chart');
    if (col < 0 || a.rows.length === 0) {
      this.clear(a.rows.length === 0 ? 'no rows' : 'no numeric column to chart');
      return;
    }
    const width = Math.max(300, box.clientWidth || 600);
    const m = chartModel(a, col, { topN, maxPoints: 2 * width });
    this.model = m;
    const { range, clipped } = yRange(m, type);
    const valueType = a.columns[col]?.type ?? 'float64';
    const n = m.xs.length;
    const category = m.xKind === 'category';
    const longest = Math.max(0, ...m.xLabels.map((l) => l.length));
    const rotate = category && (n > 8 || longest > 8);
    const step = Math.max(1, Math.ceil(n / 24));
    const markers = n <= 400;
    /** @param {any} u */
    const draw = (u) => this.decorate(u, m, type, markers);
    /** @type {import('uplot').Options} */
    const opts = {
      width,
      height: 300,
      ms: /** @type {1} */ (1),
      tzDate: (/** @type {number} */ ts) => uPlot.tzDate(new Date(ts), 'Etc/UTC'),
      legend: { show: false },
      cursor: { drag: { x: true, y: false }, points: { show: false } },
      scales: {
        x: category ? { time: false, range: [-0.5, n - 0.5] } : m.xKind === 'time' ? { time: true } : { time: false },
        y: { range: () => range },
      },
      axes: [
        category
          ? {
              splits: () => m.xs.filter((i) => i % step === 0),
              values: (/** @type {any} */ _u, /** @type {number[]} */ splits) => splits.map((i) => {
                const l = m.xLabels[i] ?? '';
                return l.length > 18 ? `${l.slice(0, 17)}…` : l;
              }),
              rotate: rotate ? 35 : 0,
              size: rotate ? Math.min(110, 24 + 5.5 * Math.min(18, longest)) : 40,
              gap: 4,
              grid: { show: false },
            }
          : { gap: 4, size: 44 },
        { size: 72, label: m.valueName, labelSize: 18, values: (/** @type {any} */ _u, /** @type {number[]} */ ticks) => ticks.map((v) => fmt(v, valueType === 'float64' ? 'float64' : Number.isInteger(v) ? 'int64' : 'float64')) },
      ],
      series: [
        {},
        ...m.series.map((s, i) => ({
          label: s.name,
          stroke: colorOf(m, i),
          width: type === 'bar' ? 0 : 2,
          ...(type === 'area' ? { fill: rgba(colorOf(m, i), 0.14) } : {}),
          points: { show: false },
          spanGaps: false,
          ...(type === 'bar' ? { paths: () => null } : {}),
        })),
      ],
      hooks: { draw: [draw] },
    };
    this.plot?.destroy();
    box.replaceChildren();
    this.plot = new uPlot(opts, [m.xs, ...m.series.map((s) => s.y)], box);
    box.dataset.xKind = m.xKind;
    box.dataset.points = String(m.points);
    box.dataset.drawn = String(m.drawn);
    box.dataset.series = String(m.series.length);
    box.dataset.type = type;
    box.dataset.positions = String(m.positions);
    if (m.xKind === 'time' && n > 0) {
      box.dataset.xMin = new Date(/** @type {number} */ (m.xs[0])).toISOString();
      box.dataset.xMax = new Date(/** @type {number} */ (m.xs[n - 1])).toISOString();
    } else {
      delete box.dataset.xMin;
      delete box.dataset.xMax;
    }
    this.legend(m, type, clipped);
    this.lastMs = performance.now() - t0;
  }

  /**
   * Bars, intervals, markers and estimates, drawn over uPlot's axes and lines.
   * @param {any} u the uPlot instance
   * @param {ChartModel} m
   * @param {ChartType} type
   * @param {boolean} markers
   */
  decorate(u, m, type, markers) {
    const ctx = /** @type {CanvasRenderingContext2D} */ (u.ctx);
    const dpr = window.devicePixelRatio || 1;
    const { left, top, width, height } = u.bbox;
    ctx.save();
    ctx.beginPath();
    ctx.rect(left, top, width, height);
    ctx.clip();
    const ypos = (/** @type {number} */ v) => (v === Infinity ? top - 2 : v === -Infinity ? top + height + 2 : u.valToPos(v, 'y', true));
    const xpos = (/** @type {number} */ x) => u.valToPos(x, 'x', true);
    // Slot per x position: the smallest gap between neighbours, 80 % of it for the bars.
    let gap = Infinity;
    for (let i = 1; i < m.xs.length; i++) gap = Math.min(gap, xpos(/** @type {number} */ (m.xs[i])) - xpos(/** @type {number} */ (m.xs[i - 1])));
    if (!Number.isFinite(gap)) gap = width / 2;
    const ns = m.series.length;
    const barW = Math.max(1 * dpr, (Math.min(gap, 80 * dpr) * 0.8) / (type === 'bar' ? ns : 1));
    m.series.forEach((s, si) => {
      const color = colorOf(m, si);
      const offset = type === 'bar' ? (si - (ns - 1) / 2) * barW : 0;
      const lo = (/** @type {number} */ i) => (s.loInf[i] ? -Infinity : (s.lo[i] ?? null));
      const hi = (/** @type {number} */ i) => (s.hiInf[i] ? Infinity : (s.hi[i] ?? null));
      if (type === 'bar') {
        const y0 = ypos(0);
        for (let i = 0; i < m.xs.length; i++) {
          const y = s.y[i];
          if (y === null || y === undefined) continue;
          const x = xpos(/** @type {number} */ (m.xs[i])) + offset;
          const label = s.label[i];
          const yy = ypos(y);
          ctx.fillStyle = rgba(color, label === 'exact' ? 0.9 : label === 'bounded' ? 0.5 : 0.25);
          ctx.fillRect(x - barW / 2, Math.min(y0, yy), barW, Math.abs(y0 - yy));
          if (label === 'approximate') {
            ctx.strokeStyle = color;
            ctx.lineWidth = 1 * dpr;
            ctx.setLineDash([3 * dpr, 2 * dpr]);
            ctx.strokeRect(x - barW / 2, Math.min(y0, yy), barW, Math.abs(y0 - yy));
            ctx.setLineDash([]);
          }
        }
      } else {
        // Bands: guaranteed intervals filled, approximate ones as a dashed envelope.
        for (const approx of [false, true]) {
          let run = /** @type {number[]} */ ([]);
          const flush = () => {
            if (run.length === 0) return;
            const top0 = run.map((i) => [xpos(/** @type {number} */ (m.xs[i])), ypos(/** @type {number} */ (hi(i) ?? s.y[i]))]);
            const bot = run.map((i) => [xpos(/** @type {number} */ (m.xs[i])), ypos(/** @type {number} */ (lo(i) ?? s.y[i]))]);
            if (run.length === 1) {
              // A lone interval: a whisker.
              const [x, yt] = /** @type {number[]} */ (top0[0]);
              const [, yb] = /** @type {number[]} */ (bot[0]);
              whisker(ctx, /** @type {number} */ (x), /** @type {number} */ (yt), /** @type {number} */ (yb), color, approx, 4 * dpr, dpr);
            } else if (!approx) {
              ctx.beginPath();
              top0.forEach(([x, y], k) => (k === 0 ? ctx.moveTo(/** @type {number} */ (x), /** @type {number} */ (y)) : ctx.lineTo(/** @type {number} */ (x), /** @type {number} */ (y))));
              for (let k = bot.length - 1; k >= 0; k--) ctx.lineTo(/** @type {number} */ (bot[k]?.[0]), /** @type {number} */ (bot[k]?.[1]));
              ctx.closePath();
              ctx.fillStyle = rgba(color, 0.2);
              ctx.fill();
            } else {
              ctx.strokeStyle = rgba(color, 0.8);
              ctx.lineWidth = 1 * dpr;
              ctx.setLineDash([4 * dpr, 3 * dpr]);
              for (const edge of [top0, bot]) {
                ctx.beginPath();
                edge.forEach(([x, y], k) => (k === 0 ? ctx.moveTo(/** @type {number} */ (x), /** @type {number} */ (y)) : ctx.lineTo(/** @type {number} */ (x), /** @type {number} */ (y))));
                ctx.stroke();
              }
              ctx.setLineDash([]);
            }
            run = [];
          };
          for (let i = 0; i < m.xs.length; i++) {
            const has = s.y[i] !== null && (lo(i) !== null || hi(i) !== null) && s.approxInterval[i] === approx;
            if (has) run.push(i);
            else flush();
          }
          flush();
        }
      }
      for (let i = 0; i < m.xs.length; i++) {
        const y = s.y[i];
        if (y === null || y === undefined) continue;
        const x = xpos(/** @type {number} */ (m.xs[i])) + offset;
        if (type === 'bar' && (lo(i) !== null || hi(i) !== null)) {
          whisker(ctx, x, ypos(hi(i) ?? y), ypos(lo(i) ?? y), '#1d2330', s.approxInterval[i] ?? false, Math.min(6 * dpr, barW * 0.3), dpr);
        }
        if (type !== 'bar' && markers) {
          const label = s.label[i];
          ctx.beginPath();
          ctx.arc(x, ypos(y), (label === 'exact' ? 2.5 : 3.5) * dpr, 0, 2 * Math.PI);
          ctx.fillStyle = label === 'exact' ? color : '#fff';
          ctx.fill();
          ctx.strokeStyle = color;
          ctx.lineWidth = 1.5 * dpr;
          if (label === 'approximate') ctx.setLineDash([2 * dpr, 1.5 * dpr]);
          ctx.stroke();
          ctx.setLineDash([]);
        }
        const e = s.est[i];
        if (e !== null && e !== undefined) {
          const el = s.estLo[i];
          const eh = s.estHi[i];
          const ex = x + (type === 'bar' ? 0 : 3 * dpr);
          if (el !== null && el !== undefined && eh !== null && eh !== undefined) {
            ctx.strokeStyle = '#6b7385';
            ctx.lineWidth = 1 * dpr;
            ctx.setLineDash([1 * dpr, 2 * dpr]);
            ctx.beginPath();
            ctx.moveTo(ex, ypos(eh));
            ctx.lineTo(ex, ypos(el));
            ctx.stroke();
            ctx.setLineDash([]);
          }
          const ey = ypos(e);
          const d = 4 * dpr;
          ctx.beginPath();
          ctx.moveTo(ex, ey - d);
          ctx.lineTo(ex + d, ey);
          ctx.lineTo(ex, ey + d);
          ctx.lineTo(ex - d, ey);
          ctx.closePath();
          ctx.fillStyle = '#fff';
          ctx.fill();
          ctx.strokeStyle = '#1d2330';
          ctx.lineWidth = 1.2 * dpr;
          ctx.stroke();
        }
      }
    });
    ctx.restore();
  }

  /**
   * The legend: series, what each interval style means, and what was combined, left out or decimated.
   * @param {ChartModel} m
   * @param {ChartType} type
   * @param {boolean} clipped
   */
  legend(m, type, clipped) {
    const has = (/** @type {(s: import('./chart-model.js').Series, i: number) => boolean} */ f) => m.series.some((s) => s.y.some((_, i) => f(s, i)));
    const guaranteed = has((s, i) => !s.approxInterval[i] && (s.lo[i] != null || s.hi[i] != null || !!s.loInf[i] || !!s.hiInf[i]));
    const approx = has((s, i) => !!s.approxInterval[i]);
    const estimate = has((s, i) => s.est[i] != null);
    const labels = new Set(m.series.flatMap((s) => s.y.map((y, i) => (y === null ? null : s.label[i]))).filter((l) => l != null));
    const conf = [...new Set(m.confidences.map((c) => `${Math.round(c * 1000) / 10}%`))].join(', ');
    const sw = (/** @type {string} */ style) => h('span', { class: 'sw', style });
    const items = [
      ...m.series.map((s, i) => h('span', { class: 'series', 'data-series': s.name }, sw(`background:${colorOf(m, i)}`), s.name)),
      guaranteed ? h('span', { 'data-key': 'guaranteed' }, sw(type === 'bar' ? 'background:#1d2330;width:2px' : 'background:rgba(47,111,214,0.25)'), `guaranteed [lo, hi] (${type === 'bar' ? 'solid whiskers' : 'filled band'})`) : null,
      approx ? h('span', { 'data-key': 'approximate' }, sw('border:1px dashed #1d2330;background:none'), `approximate interval${conf === '' ? '' : ` (${conf} confidence)`}, not guaranteed (dashed)`) : null,
      estimate ? h('span', { 'data-key': 'estimate' }, '◇ ', 'estimate with its probable range (dotted), not guaranteed') : null,
      labels.size > 1 || (labels.size === 1 && !labels.has('exact'))
        ? h('span', { class: 'muted' }, type === 'bar' ? 'bars: solid exact, light bounded, faint dashed approximate' : 'points: filled exact, hollow bounded, dashed approximate')
        : null,
      h('span', { class: 'muted', 'data-key': 'points' }, `${m.points.toLocaleString('en-US')} row${m.points === 1 ? '' : 's'}, ${m.positions.toLocaleString('en-US')} ${m.xKind === 'time' ? 'times' : 'x positions'}`),
      m.drawn < m.positions ? h('span', { class: 'muted', 'data-key': 'decimated' }, `drawn from ${m.drawn.toLocaleString('en-US')} positions (min and max per pixel bucket); the table has every row`) : null,
      m.combined > 0 ? h('span', { class: 'muted', 'data-key': 'other' }, `${m.combined} smaller series combined into "other"`) : null,
      m.left > 0 ? h('span', { class: 'muted', 'data-key': 'left-out' }, `${m.left} smaller series not drawn (this aggregate cannot be combined into "other"; see the table)`) : null,
      clipped ? h('span', { class: 'muted', 'data-key': 'clipped' }, 'intervals clipped at the plot edge') : null,
    ];
    $('chart-legend').replaceChildren(...items.filter((x) => x !== null));
  }
}

/**
 * A vertical whisker with caps: solid for a guaranteed interval, dashed with open caps for an approximate one.
 * @param {CanvasRenderingContext2D} ctx
 * @param {number} x
 * @param {number} y0 top
 * @param {number} y1 bottom
 * @param {string} color
 * @param {boolean} approx
 * @param {number} cap half-width of the caps, px
 * @param {number} dpr
 */
function whisker(ctx, x, y0, y1, color, approx, cap, dpr) {
  ctx.strokeStyle = color;
  ctx.lineWidth = 1.5 * dpr;
  if (approx) ctx.setLineDash([3 * dpr, 2 * dpr]);
  ctx.beginPath();
  ctx.moveTo(x, y0);
  ctx.lineTo(x, y1);
  ctx.stroke();
  ctx.setLineDash([]);
  ctx.beginPath();
  ctx.moveTo(x - cap, y0);
  ctx.lineTo(x + cap, y0);
  ctx.moveTo(x - cap, y1);
  ctx.lineTo(x + cap, y1);
  ctx.stroke();
}
