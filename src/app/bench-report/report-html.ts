import type { BenchReportData, ReportRun } from '../../bench/report-data.js';
import { escapeHtml as esc } from '../view/view-html.js';
import { boxPlot, costScatter, runColor, runLetter, scoreChart, shortNumber } from './report-svg.js';

/** Most rows of the flip table (the rest are counted). */
const MAX_FLIP_ROWS = 500;

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const ms = (v: number) => (v < 1000 ? `${Math.round(v)} ms` : `${shortNumber(v / 1000)} s`);

/**
 * The `qitos bench report` page: one self-contained HTML file with no script at all (its Content-Security-Policy
 * forbids scripts and every network request) and charts drawn as inline SVG. Everything taken from the bench
 * output (task ids, folder names, models) is escaped: it is data, never markup.
 */
export function benchReportHtml(data: BenchReportData, generatedAt: string = new Date().toISOString()): string {
  const { runs } = data;
  const scatter = costScatter(runs);
  const flips = data.tasks.filter((t) => t.flips);
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'; img-src data:">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${esc(`qitos bench report: ${runs.map((r) => r.label).join(' vs ')}`)}</title>
<style>
body { font: 14px/1.45 system-ui, sans-serif; color: #24292f; margin: 24px auto; max-width: 1000px; padding: 0 16px; }
h1 { font-size: 20px; } h2 { font-size: 16px; margin-top: 28px; border-bottom: 1px solid #e3e6ea; padding-bottom: 4px; }
table { border-collapse: collapse; font-size: 13px; } th, td { border: 1px solid #e3e6ea; padding: 3px 8px; text-align: left; vertical-align: top; }
th { background: #f6f8fa; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
td.pass { background: #e6ffec; color: #116329; } td.fail { background: #ffebe9; color: #a40e26; } td.none { color: #8c959f; }
.key { display: inline-block; width: 10px; height: 10px; border-radius: 2px; margin-right: 4px; }
.note { color: #57606a; font-size: 12px; } svg.chart { display: block; margin: 8px 0; max-width: 100%; height: auto; }
code { font-size: 12px; }
</style>
</head>
<body>
<h1>qitos bench report</h1>
<p class="note">${esc(
    `${runs.length} run${runs.length === 1 ? '' : 's'}, generated ${generatedAt}. Intervals ` +
      `are 95% Wilson score intervals over trials.`,
  )}</p>
${runsTable(runs)}
<h2>Pass rate</h2>
${scoreChart(runs)}
<h2>Cost and score</h2>
${scatter.svg}
${
  scatter.axis === 'tokens'
    ? '<p class="note">Some run has an unknown cost (a model without a price): the x axis is ' + 'tokens per trial.</p>'
    : ''
}
<h2>Tokens per trial</h2>
${boxPlot('tokens per trial', runs, (r) => r.tokens, shortNumber)}
<h2>Latency per trial</h2>
${boxPlot('wall time per trial', runs, (r) => r.latencyMs, ms)}
<h2>Tasks that flip</h2>
${flipSection(data, flips)}
</body>
</html>
`;
}

function runsTable(runs: readonly ReportRun[]): string {
  const rows = runs.map((r, i) => {
    const cells = [
      `<td><span class="key" style="background:${runColor(i)}"></span>${runLetter(i)}</td>`,
      `<td><code>${esc(r.label)}</code></td>`,
      `<td>${esc(r.suite ?? '-')}</td>`,
      `<td>${esc(r.model ?? '-')}</td>`,
      `<td>${esc(r.agent ?? '-')}</td>`,
      `<td class="num">${r.trials}</td>`,
      `<td class="num">${pct(r.passRate.rate)} [${pct(r.passRate.ci[0])}, ${pct(r.passRate.ci[1])}]</td>`,
      `<td class="num">${r.meanScore === null ? '-' : r.meanScore.toFixed(3)}</td>`,
      `<td class="num">${r.cost === null ? 'unknown' : `$${r.cost.toFixed(4)}`}</td>`,
      `<td class="num">${r.errors}</td>`,
    ];
    return `<tr class="run">${cells.join('')}</tr>`;
  });
  return (
    `<table ` +
    `id="runs"><tr><th></th><th>run</th><th>suite</th><th>model</th><th>agent</th><th>trials</th><th>pass ` +
    `rate [95% CI]</th><th>mean ` +
    `score</th><th>cost</th><th>errors</th></tr>${rows.join('')}</table>`
  );
}

function flipSection(data: BenchReportData, flips: BenchReportData['tasks']): string {
  const { runs } = data;
  if (runs.length < 2) return '<p class="note">One run: nothing to compare.</p>';
  const counts = data.flipCounts
    .map(
      (c) =>
        `<li>${esc(
          `${runLetter(c.run)} against A: ${c.onlyA} task${c.onlyA === 1 ? '' : 's'} pass only in ` +
            `A, ${c.onlyB} only in ${runLetter(c.run)} (of ${c.shared} tasks both ran)`,
        )}</li>`,
    )
    .join('');
  const note =
    '<p class="note">A task passes in a run when at least half of its trials (epochs) passed. Cells show passed/trials.</p>';
  if (!flips.length)
    return `<ul>${counts}</ul>${note}<p>No task flips: every task has the same outcome in every run that ran it.</p>`;
  const head = `<tr><th>task</th>${runs.map((_, i) => `<th>${runLetter(i)}</th>`).join('')}</tr>`;
  const rows = flips.slice(0, MAX_FLIP_ROWS).map((t) => {
    const cells = t.cells.map((c) =>
      c === null
        ? '<td class="none">-</td>'
        : `<td ` +
          `class="${c.passed * 2 >= c.total ? 'pass' : 'fail'}">${c.total === 1 ? (c.passed ? 'pass' : 'fail') : `${c.passed}/${c.total}`}</td>`,
    );
    return `<tr class="flip"><td><code>${esc(t.taskId)}</code></td>${cells.join('')}</tr>`;
  });
  const more =
    flips.length > MAX_FLIP_ROWS
      ? `<p class="note">${flips.length - MAX_FLIP_ROWS} more flipping tasks not shown.</p>`
      : '';
  return `<ul>${counts}</ul>${note}<table id="flips">${head}${rows.join('')}</table>${more}`;
}
