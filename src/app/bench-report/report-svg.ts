import type { ReportRun } from '../../bench/report-data.js';
import { quantile } from '../../bench/stats.js';
import { escapeHtml as esc } from '../view/view-html.js';

/** Run colours, in run order (A, B, ...), repeating past eight runs. */
export const RUN_COLORS = ['#2f6fdf', '#e8590c', '#2b8a3e', '#ae3ec9', '#c92a2a', '#0c8599', '#5f3dc4', '#e67700'];
export const runColor = (i: number) => RUN_COLORS[i % RUN_COLORS.length];
/** A, B, ..., Z, AA, AB, ...: how the charts name runs. */
export const runLetter = (i: number): string =>
  i < 26 ? String.fromCharCode(65 + i) : runLetter(Math.floor(i / 26) - 1) + runLetter(i % 26);

const W = 760;
const FONT = 'font-family="system-ui, sans-serif" font-size="12"';
const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const fx = (x: number) => Number(x.toFixed(2));

/** About `count` round tick values whose first is <= lo and last >= hi (so an axis over them holds every value). */
export function niceTicks(lo: number, hi: number, count = 5): number[] {
  if (!(hi > lo)) hi = lo + 1;
  const raw = (hi - lo) / count;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 2.5, 5, 10].map((m) => m * mag).find((s) => s >= raw) ?? 10 * mag;
  const [first, last] = [Math.floor(lo / step + 1e-9), Math.ceil(hi / step - 1e-9)];
  // A span too small for the numbers' precision (or a step that underflowed): the bounds themselves.
  if (
    !(step > Math.max(Math.abs(lo), Math.abs(hi)) * 1e-10) ||
    !Number.isFinite(first) ||
    !Number.isFinite(last) ||
    last - first > 4 * count
  )
    return [lo, hi];
  const out: number[] = [];
  for (let k = first; k <= last; k++) out.push(Number((k * step).toPrecision(12)));
  return out;
}

/** A number shortly: 1234 -> 1.23k, 0.00123 -> 0.00123. */
export function shortNumber(v: number): string {
  const a = Math.abs(v);
  if (a >= 1e6) return `${(v / 1e6).toPrecision(3)}M`;
  if (a >= 1e4) return `${(v / 1e3).toPrecision(3)}k`;
  if (a === 0 || a >= 1) return String(Number(v.toPrecision(4)));
  return String(Number(v.toPrecision(3)));
}

function svgOpen(h: number, label: string): string {
  return (
    `<svg xmlns="http://www.w3.org/2000/svg" class="chart" width="${W}" height="${h}" ` +
    `viewBox="0 0 ${W} ${h}" role="img" aria-label="${esc(label)}" ${FONT}>`
  );
}

/** Vertical grid lines and labels of an x axis from x0 to x1 (pixels) over [lo, hi]. */
function xAxis(
  lo: number,
  hi: number,
  x0: number,
  x1: number,
  top: number,
  bottom: number,
  fmt: (v: number) => string,
): string {
  const sx = (v: number) => x0 + ((v - lo) / (hi - lo || 1)) * (x1 - x0);
  return niceTicks(lo, hi)
    .filter((t) => t >= lo && t <= hi)
    .map(
      (t) =>
        `<line x1="${fx(sx(t))}" x2="${fx(sx(t))}" y1="${top}" y2="${bottom}" ` +
        `stroke="#e3e6ea"/><text x="${fx(sx(t))}" y="${bottom + 14}" text-anchor="middle" ` +
        `fill="#57606a">${esc(fmt(t))}</text>`,
    )
    .join('');
}

/** Run names at the left of a row chart: the letter in the run's colour, then the (cut) folder label. */
function rowLabel(run: ReportRun, i: number, y: number): string {
  const label = run.label.length > 22 ? `…${run.label.slice(-21)}` : run.label;
  return (
    `<text x="8" y="${y + 4}" fill="${runColor(i)}" ` +
    `font-weight="600">${runLetter(i)}</text><text x="24" y="${y + 4}" ` +
    `fill="#24292f"><title>${esc(run.label)}</title>${esc(label)}</text>`
  );
}

/** Pass rate per run: a bar to the rate and the Wilson 95% interval as a whisker. */
export function scoreChart(runs: readonly ReportRun[]): string {
  const [x0, x1, row, top] = [190, 560, 30, 10];
  const h = top + runs.length * row + 30;
  const sx = (v: number) => x0 + v * (x1 - x0);
  const rows = runs.map((r, i) => {
    const y = top + i * row + row / 2;
    const [lo, hi] = r.passRate.ci;
    return (
      `<g class="run-score">${rowLabel(r, i, y)}` +
      `<rect x="${x0}" y="${y - 9}" width="${fx(Math.max(1, sx(r.passRate.rate) - x0))}" ` +
      `height="18" fill="${runColor(i)}" ` +
      `fill-opacity="0.75"><title>${esc(`${r.label}: ${r.passRate.successes}/${r.passRate.total} passed`)}</title></rect>` +
      `<line x1="${fx(sx(lo))}" x2="${fx(sx(hi))}" y1="${y}" y2="${y}" stroke="#24292f" stroke-width="1.5"/>` +
      `<line x1="${fx(sx(lo))}" x2="${fx(sx(lo))}" y1="${y - 6}" y2="${y + 6}" stroke="#24292f" stroke-width="1.5"/>` +
      `<line x1="${fx(sx(hi))}" x2="${fx(sx(hi))}" y1="${y - 6}" y2="${y + 6}" stroke="#24292f" stroke-width="1.5"/>` +
      `<text x="${x1 + 10}" y="${y + 4}" ` +
      `fill="#24292f">${esc(`${pct(r.passRate.rate)}  [${pct(lo)}, ${pct(hi)}]  n=${r.passRate.total}`)}</text></g>`
    );
  });
  return `${svgOpen(h, 'pass rate per run with 95% Wilson intervals')}${xAxis(0, 1, x0, x1, top, h - 22, (v) => `${Math.round(v * 100)}%`)}${rows.join('')}</svg>`;
}

/**
 * Cost against score: one point per run at (cost per trial, pass rate) with its interval. Runs whose cost is
 * unknown (a price was missing) make the x axis tokens per trial instead, for every run, so points compare.
 */
export function costScatter(runs: readonly ReportRun[]): { svg: string; axis: 'cost' | 'tokens' } {
  const axis = runs.every((r) => r.cost !== null) ? 'cost' : 'tokens';
  const xOf = (r: ReportRun) =>
    r.trials === 0 ? 0 : axis === 'cost' ? r.cost! / r.trials : r.tokens.reduce((s, t) => s + t, 0) / r.trials;
  const [l, r0, t, b, h] = [70, W - 30, 14, 44, 340];
  const xs = runs.map(xOf);
  const xmax = Math.max(...xs) || 1;
  const ticks = niceTicks(0, xmax * 1.1);
  const hiX = ticks[ticks.length - 1];
  const sx = (v: number) => l + (v / hiX) * (r0 - l);
  const sy = (v: number) => h - b - v * (h - b - t);
  const fmt = (v: number) => (axis === 'cost' ? `$${shortNumber(v)}` : shortNumber(v));
  const grid =
    xAxis(0, hiX, l, r0, t, h - b, fmt) +
    [0, 0.25, 0.5, 0.75, 1]
      .map(
        (v) =>
          `<line x1="${l}" x2="${r0}" y1="${fx(sy(v))}" y2="${fx(sy(v))}" stroke="#e3e6ea"/><text ` +
          `x="${l - 8}" y="${fx(sy(v)) + 4}" text-anchor="end" fill="#57606a">${v * 100}%</text>`,
      )
      .join('') +
    `<text x="${(l + r0) / 2}" y="${h - 6}" text-anchor="middle" ` +
    `fill="#24292f">${axis === 'cost' ? 'cost per trial (USD)' : 'tokens per trial (cost unknown for some run)'}</text>` +
    `<text transform="translate(14 ${(t + h - b) / 2}) rotate(-90)" text-anchor="middle" fill="#24292f">pass rate</text>`;
  const points = runs.map((run, i) => {
    const [x, y] = [sx(xs[i]), sy(run.passRate.rate)];
    const [lo, hi] = run.passRate.ci.map(sy);
    return (
      `<g class="run-point"><line x1="${fx(x)}" x2="${fx(x)}" y1="${fx(lo)}" y2="${fx(hi)}" ` +
      `stroke="${runColor(i)}" stroke-width="2" stroke-opacity="0.6"/>` +
      `<circle cx="${fx(x)}" cy="${fx(y)}" r="7" fill="${runColor(i)}" stroke="#fff" ` +
      `stroke-width="1.5"><title>${esc(`${run.label}: ${pct(run.passRate.rate)} at ${fmt(xs[i])} per trial`)}</title></circle>` +
      `<text x="${fx(x + 10)}" y="${fx(y - 8)}" fill="${runColor(i)}" font-weight="600">${runLetter(i)}</text></g>`
    );
  });
  return { svg: `${svgOpen(h, `pass rate against ${axis} per trial`)}${grid}${points.join('')}</svg>`, axis };
}

/** Box plots of one per-trial quantity (tokens, latency), one row per run: whiskers min..max, box q1..q3, the median. */
export function boxPlot(
  label: string,
  runs: readonly ReportRun[],
  values: (r: ReportRun) => number[],
  fmt: (v: number) => string,
): string {
  const [x0, x1, row, top] = [190, 600, 30, 10];
  const h = top + runs.length * row + 30;
  const all = runs.flatMap(values);
  const lo = all.length ? Math.min(...all) : 0;
  const hiRaw = all.length ? Math.max(...all) : 1;
  const ticks = niceTicks(Math.min(0, lo), hiRaw > lo ? hiRaw : lo + 1);
  const [dlo, dhi] = [ticks[0], ticks[ticks.length - 1]];
  const sx = (v: number) => x0 + ((v - dlo) / (dhi - dlo || 1)) * (x1 - x0);
  const rows = runs.map((r, i) => {
    const y = top + i * row + row / 2;
    const v = values(r);
    if (!v.length)
      return `<g class="run-box">${rowLabel(r, i, y)}<text x="${x0}" y="${y + 4}" fill="#57606a">no trials</text></g>`;
    const [mn, q1, md, q3, mx] = [0, 0.25, 0.5, 0.75, 1].map((q) => quantile(v, q));
    const c = runColor(i);
    return (
      `<g class="run-box">${rowLabel(r, i, y)}` +
      `<line x1="${fx(sx(mn))}" x2="${fx(sx(mx))}" y1="${y}" y2="${y}" stroke="${c}" stroke-width="1.5"/>` +
      `<line x1="${fx(sx(mn))}" x2="${fx(sx(mn))}" y1="${y - 5}" y2="${y + 5}" stroke="${c}" ` +
      `stroke-width="1.5"/><line x1="${fx(sx(mx))}" x2="${fx(sx(mx))}" y1="${y - 5}" ` +
      `y2="${y + 5}" stroke="${c}" stroke-width="1.5"/>` +
      `<rect x="${fx(sx(q1))}" y="${y - 9}" width="${fx(Math.max(2, sx(q3) - sx(q1)))}" ` +
      `height="18" fill="${c}" fill-opacity="0.35" ` +
      `stroke="${c}"><title>${esc(`${r.label}: min ${fmt(mn)}, q1 ${fmt(q1)}, median ${fmt(md)}, q3 ${fmt(q3)}, max ${fmt(mx)} (${v.length} trials)`)}</title></rect>` +
      `<line x1="${fx(sx(md))}" x2="${fx(sx(md))}" y1="${y - 9}" y2="${y + 9}" stroke="#24292f" stroke-width="2"/>` +
      `<text x="${x1 + 10}" y="${y + 4}" fill="#24292f">${esc(`median ${fmt(md)}`)}</text></g>`
    );
  });
  return `${svgOpen(h, label)}${xAxis(dlo, dhi, x0, x1, top, h - 22, fmt)}${rows.join('')}</svg>`;
}
