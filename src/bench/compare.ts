import { join } from 'node:path';
import { formatSettingDifference, settingDifferences, type SettingDifference } from '../core/index.js';
import { pairResults, type CompareSide } from './paired-results.js';
import type { ResultLine } from './result-line.js';
import { clusterBootstrap, mcnemarExact, mean } from './stats.js';

export type { CompareSide } from './paired-results.js';

/** A trial whose outcome differs between the runs, with the command that shows where the two runs part. */
export interface Flip {
  taskId: string;
  epoch: number;
  traceA: string | null;
  traceB: string | null;
  /** `qitos diff <traceA> <traceB>`, or null when a trace is missing. */
  diff: string | null;
}

/** A mean per paired trial in A and B and the mean of the per-trial difference B - A. */
export interface PairedMean {
  a: number | null;
  b: number | null;
  delta: number | null;
}

/** The paired comparison of two runs over the task/epoch pairs both recorded. */
export interface Comparison {
  schema: 'qitos.bench.compare';
  a: CompareSide;
  b: CompareSide;
  pairedTasks: number;
  pairedTrials: number;
  onlyInA: number;
  onlyInB: number;
  /** Pass rates over the paired trials, and B - A with a 95% paired (per-task) bootstrap interval. */
  passRate: { a: number; b: number; delta: number; ci: [number, number]; resamples: number; seed: number };
  /** Exact McNemar test on the paired trials (aOnly = passed only in A). */
  mcnemar: { aOnly: number; bOnly: number; pValue: number };
  flips: { toPass: Flip[]; toFail: Flip[] };
  tokens: PairedMean;
  /** Null sides when any paired trial's cost was unknown. */
  cost: PairedMean;
  steps: PairedMean;
  durationMs: PairedMean;
  /**
   * What B's variant is: the settings that differ from A's (dotted paths, A's value -> B's), or null when either
   * run does not record its settings (folders written before they were recorded).
   */
  settings: SettingDifference[] | null;
  warnings: string[];
}

/** Options of `compareRuns`. */
export interface CompareOptions {
  /** Bootstrap resamples (default 10,000). */
  resamples?: number;
  /** Bootstrap seed (default 1): the same runs always give the same interval. */
  seed?: number;
  /** How to show the two folders in the result and the `qitos diff` lines (default: as given). */
  displayDirs?: [string, string];
}

/**
 * Compares run B with run A (two bench output folders) over the task/epoch pairs both recorded. The bootstrap
 * resamples tasks (all of a task's epochs together), so epochs of one task are not mistaken for independent
 * evidence. Throws when the folders are not runs or share no pair.
 */
export function compareRuns(dirA: string, dirB: string, options: CompareOptions = {}): Comparison {
  const [showA, showB] = options.displayDirs ?? [dirA, dirB];
  const { a: sideA, b: sideB, pairs, warnings } = pairResults(dirA, dirB, [showA, showB]);

  // Per task: the pass rate over its paired epochs in A and in B (the unit the bootstrap resamples).
  const perTask = new Map<string, { a: number[]; b: number[] }>();
  for (const [a, b] of pairs) {
    const t = perTask.get(a.taskId) ?? { a: [], b: [] };
    t.a.push(a.pass ? 1 : 0);
    t.b.push(b.pass ? 1 : 0);
    perTask.set(a.taskId, t);
  }
  // Per task: the sum of (B - A) over its paired epochs and their number; the bootstrap resamples whole tasks.
  const tasks = [...perTask.values()];
  const boot = clusterBootstrap(
    tasks.map((t) => t.b.reduce((s, v) => s + v, 0) - t.a.reduce((s, v) => s + v, 0)),
    tasks.map((t) => t.a.length),
    options,
  );

  const flips: Comparison['flips'] = { toPass: [], toFail: [] };
  let aOnly = 0;
  let bOnly = 0;
  for (const [a, b] of pairs) {
    if (a.pass === b.pass) continue;
    const traceA = a.traceDir ? join(showA, a.traceDir) : null;
    const traceB = b.traceDir ? join(showB, b.traceDir) : null;
    const flip: Flip = {
      taskId: a.taskId,
      epoch: a.epoch,
      traceA,
      traceB,
      diff: traceA && traceB ? `qitos diff ${quote(traceA)} ${quote(traceB)}` : null,
    };
    if (a.pass) {
      aOnly++;
      flips.toFail.push(flip);
    } else {
      bOnly++;
      flips.toPass.push(flip);
    }
  }
  const n = pairs.length;
  const rateA = pairs.filter(([a]) => a.pass).length / n;
  const rateB = pairs.filter(([, b]) => b.pass).length / n;
  const costKnown = pairs.every(([a, b]) => a.cost !== null && b.cost !== null);
  return {
    schema: 'qitos.bench.compare',
    a: sideA,
    b: sideB,
    pairedTasks: perTask.size,
    pairedTrials: n,
    onlyInA: sideA.trials - n,
    onlyInB: sideB.trials - n,
    passRate: { a: rateA, b: rateB, delta: rateB - rateA, ci: boot.ci, resamples: boot.resamples, seed: boot.seed },
    mcnemar: mcnemarExact(aOnly, bOnly),
    flips,
    tokens: pairedMean(pairs, (r) => r.tokens),
    cost: costKnown ? pairedMean(pairs, (r) => r.cost as number) : { a: null, b: null, delta: null },
    steps: pairedMean(pairs, (r) => r.steps),
    durationMs: pairedMean(pairs, (r) => r.durationMs),
    settings: sideA.settings && sideB.settings ? settingDifferences(sideA.settings, sideB.settings) : null,
    warnings,
  };
}

function pairedMean(pairs: Array<[ResultLine, ResultLine]>, f: (r: ResultLine) => number): PairedMean {
  const a = mean(pairs.map(([x]) => f(x)));
  const b = mean(pairs.map(([, y]) => f(y)));
  return { a, b, delta: b - a };
}

function quote(p: string): string {
  return /^[A-Za-z0-9_./:@%+=,-]+$/.test(p) ? p : `'${p.replace(/'/g, `'\\''`)}'`;
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;
const signedPct = (x: number) => `${x >= 0 ? '+' : ''}${(x * 100).toFixed(1)} pp`;
const fmt = (x: number | null, d = 1) => (x === null || Number.isNaN(x) ? 'n/a' : x.toFixed(d));
const signed = (x: number | null, d = 1) =>
  x === null || Number.isNaN(x) ? 'n/a' : `${x >= 0 ? '+' : ''}${x.toFixed(d)}`;

/** Renders a comparison as a Markdown report for the terminal or a file. */
export function renderComparison(c: Comparison, options: { maxFlips?: number } = {}): string {
  const max = options.maxFlips ?? 20;
  const out: string[] = [];
  const label = (s: CompareSide) =>
    `${s.dir} (${[s.suite, s.model, s.agent].filter(Boolean).join(', ') || 'unlabelled'})`;
  out.push('# Paired comparison', '', `- A: ${label(c.a)}`, `- B: ${label(c.b)}`);
  const variant =
    c.settings === null
      ? 'not recorded by both runs'
      : c.settings.length
        ? c.settings.map(formatSettingDifference).join('; ')
        : 'the same';
  out.push(`- Settings of B vs A: ${variant}`);
  out.push(
    `- Paired: ${c.pairedTrials} trials over ${c.pairedTasks} ` +
      `tasks${c.onlyInA || c.onlyInB ? ` (left out: ${c.onlyInA} only in A, ${c.onlyInB} only in B)` : ''}`,
    '',
  );
  const p = c.passRate;
  const excludesZero = p.ci[0] > 0 || p.ci[1] < 0;
  out.push(
    `**Pass rate: A ${pct(p.a)} -> B ${pct(p.b)}, delta ${signedPct(p.delta)}** (95% paired ` +
      `bootstrap CI ${signedPct(p.ci[0])} to ${signedPct(p.ci[1])}, ${p.resamples} resamples, ` +
      `seed ${p.seed})`,
    '',
  );
  const m = c.mcnemar;
  out.push(
    `Exact McNemar test: ${m.bOnly} ${m.bOnly === 1 ? 'trial' : 'trials'} passed only in ` +
      `B, ${m.aOnly} only in A, p ` +
      `= ${m.pValue < 0.0001 ? m.pValue.toExponential(2) : m.pValue.toFixed(4)}`,
  );
  const verdict =
    m.aOnly + m.bOnly === 0
      ? 'The runs agree on every paired trial.'
      : m.pValue < 0.05 && excludesZero
        ? `B is ${p.delta > 0 ? 'better' : 'worse'} than A at the 5% level.`
        : 'The difference is not significant at the 5% level: it may be noise.';
  out.push('', verdict, '');
  out.push('| per trial | A | B | B - A |', '|---|---|---|---|');
  out.push(`| tokens | ${fmt(c.tokens.a, 0)} | ${fmt(c.tokens.b, 0)} | ${signed(c.tokens.delta, 0)} |`);
  out.push(`| cost (USD) | ${fmt(c.cost.a, 4)} | ${fmt(c.cost.b, 4)} | ${signed(c.cost.delta, 4)} |`);
  out.push(`| steps | ${fmt(c.steps.a)} | ${fmt(c.steps.b)} | ${signed(c.steps.delta)} |`);
  out.push(
    `| time (ms) | ${fmt(c.durationMs.a, 0)} | ${fmt(c.durationMs.b, 0)} | ${signed(c.durationMs.delta, 0)} |`,
    '',
  );
  for (const [title, list] of [
    ['Fixed in B (failed in A, passed in B)', c.flips.toPass],
    ['Broken in B (passed in A, failed in B)', c.flips.toFail],
  ] as const) {
    out.push(`## ${title}: ${list.length}`, '');
    for (const f of list.slice(0, max))
      out.push(`- ${f.taskId} (epoch ${f.epoch}): ${f.diff ? `\`${f.diff}\`` : 'no trace to diff'}`);
    if (list.length > max) out.push(`- ... and ${list.length - max} more (see --json)`);
    if (list.length) out.push('');
  }
  if (c.warnings.length) out.push('## Warnings', '', ...c.warnings.map((w) => `- ${w}`), '');
  return out.join('\n');
}
