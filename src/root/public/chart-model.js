// @ts-check
/**
 * What the chart draws, from an answer and the column picked (pure: no DOM, no uPlot, so it is
 * tested in Node). Axes and series come from the root's column roles, never from the SQL:
 * - x: the first group key (a time axis when it is a timestamp or DATE, a number axis for a numeric
 *   key, else categories in the answer's order); a row query draws one category per row;
 * - series: one per value of the other group keys (top `topN` by total |value|); the rest are
 *   combined into "other" when the aggregate allows it (COUNT and SUM add, MIN and MAX take
 *   the extreme; intervals combine the same way), else left out and counted;
 * - every point is kept; only for drawing, more points than `maxPoints` are decimated to the
 *   min and max of each bucket (values, lower ends and upper ends), which keeps every spike.
 */
import { NUMERIC, fmt, num } from './dom.js';

/** @typedef {import('./types.js').Answer} Answer */
/** @typedef {'exact' | 'bounded' | 'approximate'} Label */

/**
 * One drawn point's interval facts, per series, aligned with `xs`.
 * @typedef {object} Series
 * @property {string} name
 * @property {boolean} other true for the combined "other" series
 * @property {(number | null)[]} y values (null: no point at this x)
 * @property {(number | null)[]} lo guaranteed or approximate lower end (null: none or unbounded, see loInf)
 * @property {(number | null)[]} hi
 * @property {boolean[]} loInf lower end unbounded (−∞)
 * @property {boolean[]} hiInf
 * @property {Label[]} label the cell's label (`exact` where the cell is exact)
 * @property {boolean[]} approxInterval the interval is approximate (probabilistic), not guaranteed
 * @property {(number | null)[]} est a progressive estimate's value (#20), when the cell has one
 * @property {(number | null)[]} estLo
 * @property {(number | null)[]} estHi
 * @property {number} total sum of |y|
 */

/**
 * @typedef {object} ChartModel
 * @property {'time' | 'number' | 'category'} xKind
 * @property {string} xName
 * @property {number[]} xs ascending
 * @property {string[]} xLabels category labels (xKind category), by index
 * @property {Series[]} series
 * @property {number} points rows the chart shows
 * @property {number} positions distinct x positions
 * @property {number} drawn x positions drawn (after decimation)
 * @property {number} combined series combined into "other"
 * @property {number} left series left out (their aggregate cannot be combined)
 * @property {string} valueName
 * @property {number[]} confidences confidences of approximate intervals and estimates
 */

const RANK = { exact: 0, bounded: 1, approximate: 2 };

/**
 * The weaker of two labels.
 * @param {Label} a
 * @param {Label} b
 * @returns {Label}
 */
const weaker = (a, b) => (RANK[a] >= RANK[b] ? a : b);

/**
 * The columns the chart can draw: numeric aggregates first (when the root sent roles), then
 * other numeric columns that are not group keys.
 * @param {Answer} a
 * @returns {number[]}
 */
export function chartableColumns(a) {
  const idx = a.columns.map((_, i) => i).filter((i) => NUMERIC.has(a.columns[i]?.type ?? ''));
  const role = (/** @type {number} */ i) => a.roles?.[i]?.role;
  return [...idx.filter((i) => role(i) === 'aggregate'), ...idx.filter((i) => role(i) !== 'aggregate' && role(i) !== 'group_key')];
}

/**
 * Group-key columns in GROUP BY order (from the roles; an answer without roles: none).
 * @param {Answer} a
 * @returns {number[]}
 */
export function groupKeyColumns(a) {
  const keys = [];
  for (let i = 0; i < a.columns.length; i++) {
    const r = a.roles?.[i];
    if (r?.role === 'group_key') keys.push({ i, k: r.key });
  }
  return keys.sort((x, y) => x.k - y.k).map((x) => x.i);
}

/**
 * @param {Answer} a
 * @param {number} col the value column
 * @param {{topN?: number, maxPoints?: number}} [opts] topN series (default 6), maxPoints drawn x positions (default 2,000)
 * @returns {ChartModel}
 */
export function chartModel(a, col, opts = {}) {
  const topN = opts.topN ?? 6;
  const maxPoints = Math.max(4, opts.maxPoints ?? 2000);
  const role = a.roles?.[col];
  const aggregate = role?.role === 'aggregate' ? role.aggregate : null;
  const keys = groupKeyColumns(a);
  const xCol = keys[0];
  const seriesCols = keys.slice(1);
  const xType = xCol === undefined ? 'string' : (a.columns[xCol]?.type ?? 'string');
  /** @type {'time' | 'number' | 'category'} */
  const xKind = xCol === undefined ? 'category' : xType === 'timestamp' || xType === 'date' ? 'time' : NUMERIC.has(xType) ? 'number' : 'category';
  /** @type {string[]} */
  const xLabels = [];
  /** @type {Map<string, number>} */
  const catIndex = new Map();
  const labelCol = xCol ?? a.columns.findIndex((c) => !NUMERIC.has(c.type));
  /** @type {Map<string, Map<number, {y: number | null, r: number}>>} series name -> x -> row */
  const bySeries = new Map();
  /** @type {Set<number>} */
  const xset = new Set();
  a.rows.forEach((row, r) => {
    let x;
    if (xCol === undefined) {
      x = r;
      xLabels.push(labelCol >= 0 ? fmt(row[labelCol] ?? null, a.columns[labelCol]?.type ?? 'string') : String(r + 1));
    } else if (xKind === 'category') {
      const label = fmt(row[xCol] ?? null, xType);
      x = catIndex.get(label);
      if (x === undefined) {
        x = xLabels.length;
        catIndex.set(label, x);
        xLabels.push(label);
      }
    } else {
      x = num(row[xCol] ?? null, xType);
      if (x === null) return; // a NULL key has no place on a time or number axis (the table has it)
    }
    const name = seriesCols.length === 0 ? (a.columns[col]?.name ?? '') : seriesCols.map((c) => fmt(row[c] ?? null, a.columns[c]?.type ?? 'string')).join(' · ');
    let m = bySeries.get(name);
    if (m === undefined) bySeries.set(name, (m = new Map()));
    m.set(x, { y: num(row[col] ?? null), r });
    xset.add(x);
  });
  const xs = [...xset].sort((p, q) => p - q);
  const at = new Map(xs.map((x, i) => [x, i]));
  /** @returns {Series} */
  const empty = (/** @type {string} */ name, other = false) => ({
    name,
    other,
    y: xs.map(() => null),
    lo: xs.map(() => null),
    hi: xs.map(() => null),
    loInf: xs.map(() => false),
    hiInf: xs.map(() => false),
    label: xs.map(() => /** @type {Label} */ ('exact')),
    approxInterval: xs.map(() => false),
    est: xs.map(() => null),
    estLo: xs.map(() => null),
    estHi: xs.map(() => null),
    total: 0,
  });
  /** @type {number[]} */
  const confidences = [];
  const all = [...bySeries].map(([name, m]) => {
    const s = empty(name);
    for (const [x, { y, r }] of m) {
      const i = /** @type {number} */ (at.get(x));
      s.y[i] = y;
      s.total += Math.abs(y ?? 0);
      const cell = a.cells?.[r]?.[col] ?? null;
      if (cell === null) continue;
      s.label[i] = cell.label;
      s.lo[i] = num(cell.lo);
      s.hi[i] = num(cell.hi);
      s.loInf[i] = cell.lo === null && cell.label === 'bounded';
      s.hiInf[i] = cell.hi === null && cell.label === 'bounded';
      s.approxInterval[i] = cell.label === 'approximate' && (cell.lo !== null || cell.hi !== null);
      if (s.approxInterval[i] && typeof cell.confidence === 'number') confidences.push(cell.confidence);
      if (cell.estimate) {
        s.est[i] = num(cell.estimate.value);
        s.estLo[i] = num(cell.estimate.lo);
        s.estHi[i] = num(cell.estimate.hi);
        confidences.push(cell.estimate.confidence);
      }
    }
    return s;
  });
  all.sort((p, q) => q.total - p.total);
  let series = all.slice(0, topN);
  const rest = all.slice(topN);
  let combined = 0;
  let left = 0;
  if (rest.length > 0) {
    const combine = aggregate === 'count' || aggregate === 'sum' ? 'add' : aggregate === 'min' ? 'min' : aggregate === 'max' ? 'max' : null;
    if (combine === null) left = rest.length;
    else {
      combined = rest.length;
      series = [...series, combineOther(rest, combine, empty(`other (${rest.length})`, true), a.rows_complete !== false)];
    }
  }
  const model = {
    xKind,
    xName: xCol === undefined ? 'row' : (a.columns[xCol]?.name ?? ''),
    xs,
    xLabels,
    series,
    points: a.rows.length,
    positions: xs.length,
    drawn: xs.length,
    combined,
    left,
    valueName: a.columns[col]?.name ?? '',
    confidences,
  };
  return xs.length > maxPoints ? decimate(model, maxPoints) : model;
}

/**
 * The "other" series: series combined point by point (add: sums and sums of interval ends;
 * min/max: extremes of values and of ends). A point with any unbounded end stays unbounded;
 * one whose row set is not proven complete is approximate (an unseen group could add to it).
 * @param {Series[]} rest
 * @param {'add' | 'min' | 'max'} how
 * @param {Series} out
 * @param {boolean} rowsComplete
 * @returns {Series}
 */
function combineOther(rest, how, out, rowsComplete) {
  const f = how === 'add' ? (/** @type {number} */ p, /** @type {number} */ q) => p + q : how === 'min' ? Math.min : Math.max;
  for (let i = 0; i < out.y.length; i++) {
    for (const s of rest) {
      const y = s.y[i];
      if (y === null || y === undefined) continue;
      const lo = s.lo[i] ?? y;
      const hi = s.hi[i] ?? y;
      const prev = out.y[i];
      out.y[i] = prev === null || prev === undefined ? y : f(prev, y);
      out.lo[i] = prev === null || prev === undefined ? lo : f(out.lo[i] ?? 0, lo);
      out.hi[i] = prev === null || prev === undefined ? hi : f(out.hi[i] ?? 0, hi);
      out.loInf[i] = (out.loInf[i] ?? false) || (s.loInf[i] ?? false);
      out.hiInf[i] = (out.hiInf[i] ?? false) || (s.hiInf[i] ?? false);
      out.label[i] = weaker(out.label[i] ?? 'exact', s.label[i] ?? 'exact');
      out.approxInterval[i] = (out.approxInterval[i] ?? false) || (s.approxInterval[i] ?? false);
    }
    if (!rowsComplete && out.y[i] !== null) {
      out.label[i] = 'approximate';
      out.approxInterval[i] = true;
    }
    // An interval that is the value itself says nothing.
    if (out.lo[i] === out.y[i] && out.hi[i] === out.y[i] && !out.loInf[i] && !out.hiInf[i]) out.lo[i] = out.hi[i] = null;
    out.total += Math.abs(out.y[i] ?? 0);
  }
  return out;
}

/**
 * Decimation for drawing: the x range cut into maxPoints/2 buckets; per bucket two x positions
 * (its first and last x) carrying, per series, the bucket's min and max value (in the order
 * they occur), the lowest lower end and the highest upper end, and the weakest label.
 * @param {ChartModel} m
 * @param {number} maxPoints
 * @returns {ChartModel}
 */
export function decimate(m, maxPoints) {
  const buckets = Math.floor(maxPoints / 2);
  const x0 = /** @type {number} */ (m.xs[0]);
  const span = /** @type {number} */ (m.xs[m.xs.length - 1]) - x0 || 1;
  /** @type {number[][]} */
  const groups = [];
  m.xs.forEach((x, i) => {
    const b = Math.min(buckets - 1, Math.floor(((x - x0) / span) * buckets));
    (groups[b] ??= []).push(i);
  });
  /** @type {number[]} */
  const xs = [];
  /** @type {number[][]} per output position, the input indices it summarises */
  const members = [];
  for (const g of groups) {
    if (g === undefined) continue;
    if (g.length === 1) {
      xs.push(/** @type {number} */ (m.xs[/** @type {number} */ (g[0])]));
      members.push(g);
    } else {
      xs.push(/** @type {number} */ (m.xs[/** @type {number} */ (g[0])]), /** @type {number} */ (m.xs[/** @type {number} */ (g[g.length - 1])]));
      members.push(g, g);
    }
  }
  const series = m.series.map((s) => {
    /** @type {Series} */
    const out = { ...s, y: [], lo: [], hi: [], loInf: [], hiInf: [], label: [], approxInterval: [], est: [], estLo: [], estHi: [] };
    for (let p = 0; p < members.length; p++) {
      const g = /** @type {number[]} */ (members[p]);
      const second = p > 0 && members[p - 1] === g;
      let iMin = -1;
      let iMax = -1;
      /** @type {number | null} */
      let lo = null;
      /** @type {number | null} */
      let hi = null;
      let label = /** @type {Label} */ ('exact');
      let loInf = false;
      let hiInf = false;
      let approx = false;
      for (const i of g) {
        const y = s.y[i];
        if (y !== null && y !== undefined) {
          if (iMin < 0 || y < /** @type {number} */ (s.y[iMin])) iMin = i;
          if (iMax < 0 || y > /** @type {number} */ (s.y[iMax])) iMax = i;
        }
        const l = s.lo[i];
        const u = s.hi[i];
        if (l !== null && l !== undefined && (lo === null || l < lo)) lo = l;
        if (u !== null && u !== undefined && (hi === null || u > hi)) hi = u;
        label = weaker(label, s.label[i] ?? 'exact');
        loInf ||= s.loInf[i] ?? false;
        hiInf ||= s.hiInf[i] ?? false;
        approx ||= s.approxInterval[i] ?? false;
      }
      const firstIdx = iMin >= 0 && iMax >= 0 ? Math.min(iMin, iMax) : iMin;
      const lastIdx = iMin >= 0 && iMax >= 0 ? Math.max(iMin, iMax) : iMin;
      const pick = second ? lastIdx : firstIdx;
      out.y.push(pick >= 0 ? (s.y[pick] ?? null) : null);
      out.lo.push(lo);
      out.hi.push(hi);
      out.loInf.push(loInf);
      out.hiInf.push(hiInf);
      out.label.push(label);
      out.approxInterval.push(approx);
      out.est.push(pick >= 0 ? (s.est[pick] ?? null) : null);
      out.estLo.push(pick >= 0 ? (s.estLo[pick] ?? null) : null);
      out.estHi.push(pick >= 0 ? (s.estHi[pick] ?? null) : null);
    }
    return out;
  });
  return { ...m, xs, series, drawn: xs.length };
}
