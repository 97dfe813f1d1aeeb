import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { ResultLine } from './result-line.js';
import { pairKey } from './result-line.js';
import { readResults } from './results-file.js';
import { readRunInfo } from './run-info.js';
import { mean, wilson, type Proportion } from './stats.js';

/** One bench run folder as the report shows it. */
export interface ReportRun {
  /** The folder as the user named it. */
  label: string;
  suite: string | null;
  model: string | null;
  agent: string | null;
  trials: number;
  /** Trials passed out of trials recorded, with its Wilson 95% interval. */
  passRate: Proportion;
  meanScore: number | null;
  /** Total cost in USD; null when any trial's price was unknown. */
  cost: number | null;
  /** Per trial: total tokens and wall time (ms). */
  tokens: number[];
  latencyMs: number[];
  errors: number;
}

/** One task across the runs: per run, how many of its trials passed (null: the run has no trial of it). */
export interface ReportTask {
  taskId: string;
  cells: Array<{ passed: number; total: number } | null>;
  /** True when the task's majority outcome (passed in at least half its trials) is not the same in every run that has it. */
  flips: boolean;
}

/** Run B against the first run (A): tasks that pass (by majority) only in A, only in B. */
export interface ReportFlipCount {
  run: number;
  onlyA: number;
  onlyB: number;
  /** Tasks both runs have. */
  shared: number;
}

/** What `qitos bench report` draws. */
export interface BenchReportData {
  runs: ReportRun[];
  tasks: ReportTask[];
  flipCounts: ReportFlipCount[];
}

/**
 * Reads bench run folders (`results.jsonl`, and `run.json` when there is one) into the report's data: per run
 * the pass rate with its Wilson interval, cost, and per-trial tokens and latency; per task the outcome in each
 * run. `labels` are how the folders are shown (default: the paths). A folder without results is an error.
 */
export function benchReportData(dirs: readonly string[], labels: readonly string[] = dirs): BenchReportData {
  if (dirs.length === 0) throw new Error('bench report: give at least one run folder');
  const perRun = dirs.map((dir, i) => readRun(dir, labels[i] ?? dir));
  const runs = perRun.map((r) => r.run);
  const ids = [...new Set(perRun.flatMap((r) => [...r.byTask.keys()]))].sort();
  const pass = (c: { passed: number; total: number } | null) => (c ? c.passed * 2 >= c.total : null);
  const tasks = ids.map((taskId): ReportTask => {
    const cells = perRun.map((r) => r.byTask.get(taskId) ?? null);
    const outcomes = new Set(cells.filter((c) => c !== null).map(pass));
    return { taskId, cells, flips: outcomes.size > 1 };
  });
  const flipCounts = runs.slice(1).map((_, j): ReportFlipCount => {
    const i = j + 1;
    let onlyA = 0;
    let onlyB = 0;
    let shared = 0;
    for (const t of tasks) {
      const [a, b] = [t.cells[0], t.cells[i]];
      if (!a || !b) continue;
      shared++;
      if (pass(a) && !pass(b)) onlyA++;
      if (!pass(a) && pass(b)) onlyB++;
    }
    return { run: i, onlyA, onlyB, shared };
  });
  return { runs, tasks, flipCounts };
}

function readRun(
  dir: string,
  label: string,
): { run: ReportRun; byTask: Map<string, { passed: number; total: number }> } {
  const file = join(dir, 'results.jsonl');
  if (!existsSync(file)) throw new Error(`bench report: ${label} is not a bench run folder (no results.jsonl)`);
  const info = readRunInfo(dir);
  // A trial recorded twice (a merge of overlapping runs) counts once: the last line wins.
  const lines = [
    ...new Map(readResults(file).results.map((r): [string, ResultLine] => [pairKey(r.taskId, r.epoch), r])).values(),
  ];
  const byTask = new Map<string, { passed: number; total: number }>();
  for (const r of lines) {
    const c = byTask.get(r.taskId) ?? { passed: 0, total: 0 };
    c.total++;
    if (r.pass) c.passed++;
    byTask.set(r.taskId, c);
  }
  const passed = lines.filter((r) => r.pass).length;
  return {
    run: {
      label,
      suite: info?.suite ?? null,
      model: info?.model ?? null,
      agent: info?.agent ?? null,
      trials: lines.length,
      passRate: wilson(passed, lines.length),
      meanScore: lines.length ? mean(lines.map((r) => r.score)) : null,
      cost: lines.some((r) => r.cost === null) ? null : lines.reduce((s, r) => s + (r.cost ?? 0), 0),
      tokens: lines.map((r) => r.tokens),
      latencyMs: lines.map((r) => r.durationMs),
      errors: lines.filter((r) => r.error !== null).length,
    },
    byTask,
  };
}
