import { compareRuns } from './compare.js';
import { holm } from './stats.js';
import type { Summary } from './summary.js';
import type { GridAxis, SweepCell } from './sweep-grid.js';

/** One cell of a sweep's report: its settings, score and its paired comparison with the baseline cell. */
export interface SweepCellResult {
  label: string;
  /** The cell's output folder as shown (under the sweep's folder). */
  dir: string;
  settings: Record<string, string>;
  baseline: boolean;
  trials: number;
  expectedTrials: number;
  /** Pass rate with its 95% Wilson interval. */
  passRate: { rate: number; ci: [number, number] };
  /**
   * Against the baseline (null for the baseline itself, and for a cell sharing no trial with it): the paired
   * pass-rate delta with its bootstrap CI, the exact McNemar p, and that p adjusted by Holm-Bonferroni across cells.
   */
  comparison: {
    pairedTrials: number;
    delta: number;
    ci: [number, number];
    aOnly: number;
    bOnly: number;
    pValue: number;
    pHolm: number;
  } | null;
}

/** What `qitos bench sweep` reports (also written as sweep.json in the sweep's folder). */
export interface SweepReport {
  schema: 'qitos.bench.sweep';
  suite: string;
  grid: GridAxis[];
  baseline: string;
  cells: SweepCellResult[];
  warnings: string[];
}

/** A finished cell: its folder (real and as shown) and its run's summary. */
export interface SweepCellRun {
  cell: SweepCell;
  dir: string;
  shown: string;
  summary: Summary;
}

/**
 * Scores every cell and compares each with the baseline cell the way `qitos bench compare` does (paired by
 * task and epoch: McNemar's exact test and a per-task bootstrap CI of the delta). The p-values of the cells
 * against the baseline are one family: Holm-Bonferroni adjusts them, so "some cell differs" is not claimed just
 * because many cells were tried.
 */
export function sweepReport(input: {
  suite: string;
  grid: GridAxis[];
  runs: SweepCellRun[];
  baseline: SweepCell;
  seed?: number;
  resamples?: number;
}): SweepReport {
  const base = input.runs.find((r) => r.cell === input.baseline);
  if (!base) throw new Error(`the baseline cell ${input.baseline.label} is not among the runs`);
  const warnings: string[] = [];
  const compared = input.runs.map((r) => {
    if (r === base) return null;
    try {
      const c = compareRuns(base.dir, r.dir, {
        seed: input.seed,
        resamples: input.resamples,
        displayDirs: [base.shown, r.shown],
      });
      return {
        pairedTrials: c.pairedTrials,
        delta: c.passRate.delta,
        ci: c.passRate.ci,
        aOnly: c.mcnemar.aOnly,
        bOnly: c.mcnemar.bOnly,
        pValue: c.mcnemar.pValue,
      };
    } catch (err) {
      warnings.push(`${r.cell.label}: not compared with the baseline: ${(err as Error).message}`);
      return null;
    }
  });
  const tested = compared.flatMap((c, i) => (c ? [i] : []));
  const adjusted = holm(tested.map((i) => compared[i]!.pValue));
  const pHolm = new Map(tested.map((i, k) => [i, adjusted[k]]));
  const cells = input.runs.map((r, i): SweepCellResult => {
    const c = compared[i];
    return {
      label: r.cell.label,
      dir: r.shown,
      settings: Object.fromEntries(r.cell.settings.map((s) => [s.key, s.value])),
      baseline: r === base,
      trials: r.summary.trials,
      expectedTrials: r.summary.expectedTrials,
      passRate: { rate: r.summary.passRate.rate, ci: r.summary.passRate.ci },
      comparison: c ? { ...c, pHolm: pHolm.get(i)! } : null,
    };
  });
  for (const r of input.runs)
    if (!r.summary.complete)
      warnings.push(
        `${r.cell.label}: ${r.summary.trials}/${r.summary.expectedTrials} trials (incomplete: run the sweep again to resume it)`,
      );
  return {
    schema: 'qitos.bench.sweep',
    suite: input.suite,
    grid: input.grid,
    baseline: base.cell.label,
    cells,
    warnings,
  };
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const pp = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)}`;
const pText = (p: number) => (p < 0.0001 ? '<0.0001' : p.toFixed(4));

/** The rows of a sweep's table: one per cell, the columns as `renderSweep` and `sweepCsv` name them. */
function rows(r: SweepReport): { header: string[]; rows: string[][] } {
  const keys = r.grid.map((a) => a.key);
  const header = [...keys, 'trials', 'pass rate', '95% CI', 'vs baseline (pp)', '95% CI (pp)', 'p', 'p (Holm)', ''];
  const body = r.cells.map((c) => {
    const cmp = c.comparison;
    return [
      ...keys.map((k) => c.settings[k] ?? ''),
      `${c.trials}/${c.expectedTrials}`,
      pct(c.passRate.rate),
      `${pct(c.passRate.ci[0])}-${pct(c.passRate.ci[1])}`,
      c.baseline ? 'baseline' : cmp ? pp(cmp.delta) : 'n/a',
      cmp ? `${pp(cmp.ci[0])} to ${pp(cmp.ci[1])}` : '',
      cmp ? pText(cmp.pValue) : '',
      cmp ? pText(cmp.pHolm) : '',
      cmp && cmp.pHolm < 0.05 ? (cmp.delta > 0 ? 'better' : 'worse') : '',
    ];
  });
  return { header, rows: body };
}

/** The sweep as a text table: one row per cell, then how to read it and any warnings. */
export function renderSweep(r: SweepReport): string {
  const t = rows(r);
  const lines = [
    `sweep of suite ${r.suite}: ${r.cells.length} cells, baseline ${r.baseline}`,
    '',
    table(t.header, t.rows).trimEnd(),
    '',
  ];
  lines.push(
    'p: exact McNemar test on the trials paired with the baseline; p (Holm): adjusted for ' +
      'comparing every cell with it. better/worse: p (Holm) < 0.05.',
  );
  if (r.warnings.length) lines.push('', 'warnings:', ...r.warnings.map((w) => `- ${w}`));
  return lines.join('\n') + '\n';
}

/** The sweep as CSV (RFC 4180 quoting), one row per cell, with the raw numbers. */
export function sweepCsv(r: SweepReport): string {
  const keys = r.grid.map((a) => a.key);
  const header = [
    'cell',
    'dir',
    ...keys,
    'baseline',
    'trials',
    'expected_trials',
    'pass_rate',
    'ci_low',
    'ci_high',
    'paired_trials',
    'delta',
    'delta_ci_low',
    'delta_ci_high',
    'a_only',
    'b_only',
    'p_value',
    'p_holm',
  ];
  const body = r.cells.map((c) => {
    const cmp = c.comparison;
    return [
      c.label,
      c.dir,
      ...keys.map((k) => c.settings[k] ?? ''),
      c.baseline,
      c.trials,
      c.expectedTrials,
      c.passRate.rate,
      c.passRate.ci[0],
      c.passRate.ci[1],
      cmp?.pairedTrials ?? '',
      cmp?.delta ?? '',
      cmp?.ci[0] ?? '',
      cmp?.ci[1] ?? '',
      cmp?.aOnly ?? '',
      cmp?.bOnly ?? '',
      cmp?.pValue ?? '',
      cmp?.pHolm ?? '',
    ];
  });
  return [header, ...body].map((row) => row.map((v) => csvField(String(v))).join(',')).join('\n') + '\n';
}

/** A left-aligned text table with a header row and a rule under it. */
function table(header: string[], body: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((r) => (r[i] ?? '').length)));
  const line = (r: string[]) =>
    r
      .map((c, i) => c.padEnd(widths[i]))
      .join('  ')
      .trimEnd();
  return [line(header), line(widths.map((w) => '-'.repeat(w))), ...body.map(line)].join('\n');
}

function csvField(v: string): string {
  return /[",\n\r]/.test(v) ? `"${v.replace(/"/g, '""')}"` : v;
}
