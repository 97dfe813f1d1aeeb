import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { isAbsolute, join, relative, resolve } from 'node:path';
import { renderReport } from './report.js';
import { pairKey, type ResultLine } from './result-line.js';
import { readResults } from './results-file.js';
import { readRunInfo, writeJsonAtomic, type RunInfo } from './run-info.js';
import { formatSettingDifference, settingDifferences } from '../core/index.js';
import { summarize, type Summary } from './summary.js';

/** What `mergeRuns` wrote. */
export interface MergeResult {
  outDir: string;
  summary: Summary;
  results: ResultLine[];
}

const list = (items: string[], max = 10) =>
  items.slice(0, max).join(', ') + (items.length > max ? ` and ${items.length - max} more` : '');

/**
 * Joins the output folders of shards of one suite into `out`: results.jsonl (trace paths pointing back into the
 * shard folders), run.json, summary.json and report.md. Refuses, naming the tasks, when the shards are of
 * different suites or epochs, when a task/epoch pair is recorded twice, or when any pair of the suite is missing
 * (a shard not given, or a shard not finished: run it again with --resume).
 */
export function mergeRuns(
  dirs: readonly string[],
  out: string,
  options: { displayDirs?: readonly string[] } = {},
): MergeResult {
  if (dirs.length === 0) throw new Error('merge needs at least one run folder');
  const outDir = resolve(out);
  const runs = dirs.map((p, i) => {
    const dir = resolve(p);
    // Errors name the folders as the user gave them.
    const d = options.displayDirs?.[i] ?? p;
    const info = readRunInfo(dir);
    if (!info) throw new Error(`${d} is not a bench run: no run.json`);
    const file = join(dir, 'results.jsonl');
    if (!existsSync(file)) throw new Error(`${d} is not a bench run: no results.jsonl`);
    const read = readResults(file);
    return { given: d, dir, info, results: read.results, warnings: read.warnings };
  });
  const clash = runs.find((r) => r.dir === outDir);
  if (clash) throw new Error(`merge output ${out} is one of the runs being merged; choose another --out`);
  // Merging again into the same folder (after a shard was finished) is normal; overwriting a run is not.
  const existing = readRunInfo(outDir);
  if (existing && !existing.mergedFrom)
    throw new Error(`merge output ${out} holds a bench run (not a merge); choose another --out`);
  const first = runs[0];
  for (const r of runs.slice(1)) {
    if (r.info.suite !== first.info.suite)
      throw new Error(
        `cannot merge runs of different suites: ${first.given} is "${first.info.suite}", ${r.given} is "${r.info.suite}"`,
      );
    if (r.info.epochs !== first.info.epochs)
      throw new Error(
        `cannot merge runs with different epochs: ${first.given} has ${first.info.epochs}, ${r.given} has ${r.info.epochs}`,
      );
    if (!sameSet(r.info.suiteTaskIds, first.info.suiteTaskIds))
      throw new Error(
        `cannot merge: ${first.given} and ${r.given} ran different versions of suite "${first.info.suite}" (their task lists differ)`,
      );
    // Shards of one run have the same settings; where the module lies may differ between machines, its content not.
    const differences =
      r.info.config && first.info.config
        ? settingDifferences(first.info.config, r.info.config).filter((d) => d.path !== 'module.path')
        : [];
    if (differences.length)
      throw new Error(
        `cannot merge runs with different settings: ${first.given} -> ${r.given}: ${differences.map(formatSettingDifference).join('; ')}`,
      );
  }
  const config = runs.every((r) => r.info.config) ? first.info.config : undefined;
  const forcedResumes = runs.flatMap((r) => r.info.forcedResumes ?? []);
  const epochs = first.info.epochs;

  const seen = new Map<string, string>();
  const merged: ResultLine[] = [];
  const duplicates: string[] = [];
  for (const run of runs) {
    for (const line of run.results) {
      const k = pairKey(line.taskId, line.epoch);
      const other = seen.get(k);
      if (other !== undefined) {
        duplicates.push(`"${line.taskId}" epoch ${line.epoch} (${other} and ${run.given})`);
        continue;
      }
      seen.set(k, run.given);
      const trace =
        line.traceDir === null
          ? null
          : relative(outDir, isAbsolute(line.traceDir) ? line.traceDir : join(run.dir, line.traceDir));
      merged.push({ ...line, traceDir: trace });
    }
  }
  if (duplicates.length)
    throw new Error(
      `cannot merge: ${duplicates.length} task/epoch pair(s) recorded more than once: ${list(duplicates)} (was a shard given twice?)`,
    );

  const missing: string[] = [];
  for (const id of first.info.suiteTaskIds) {
    for (let e = 1; e <= epochs; e++) if (!seen.has(pairKey(id, e))) missing.push(`"${id}" epoch ${e}`);
  }
  if (missing.length) {
    const covered = new Set(runs.flatMap((r) => r.info.taskIds));
    const unowned = first.info.suiteTaskIds.filter((id) => !covered.has(id)).length;
    const why = unowned
      ? `${unowned} task(s) belong to no given shard (was a shard left out?)`
      : 'some shards are unfinished (run them again with --resume)';
    throw new Error(
      `cannot merge: ${missing.length} task/epoch pair(s) of suite "${first.info.suite}" are missing: ${list(missing)}; ${why}`,
    );
  }

  mkdirSync(outDir, { recursive: true });
  const order = new Map(first.info.suiteTaskIds.map((id, i) => [id, i]));
  merged.sort((a, b) => a.epoch - b.epoch || order.get(a.taskId)! - order.get(b.taskId)!);
  writeFileSync(join(outDir, 'results.jsonl'), merged.map((l) => JSON.stringify(l)).join('\n') + '\n');
  const now = new Date().toISOString();
  const same = (f: (i: RunInfo) => string | null) =>
    runs.every((r) => f(r.info) === f(first.info)) ? f(first.info) : null;
  const info: RunInfo = {
    schema: 'qitos.bench.run',
    version: 1,
    suite: first.info.suite,
    suiteDir: first.info.suiteDir,
    epochs,
    shard: null,
    taskIds: first.info.suiteTaskIds,
    suiteTaskIds: first.info.suiteTaskIds,
    model: same((i) => i.model),
    agent: same((i) => i.agent),
    createdAt: now,
    updatedAt: now,
    mergedFrom: runs.map((r) => r.dir),
    ...(config ? { config } : {}),
    ...(forcedResumes.length ? { forcedResumes } : {}),
  };
  writeJsonAtomic(join(outDir, 'run.json'), info);
  const warnings = runs.flatMap((r) => r.warnings);
  if (info.model === null && runs.some((r) => r.info.model)) warnings.push('the shards were run with different models');
  const summary = summarize(merged, {
    suite: info.suite,
    model: info.model,
    agent: info.agent,
    epochs,
    shard: null,
    taskIds: info.taskIds,
    warnings,
  });
  writeJsonAtomic(join(outDir, 'summary.json'), summary);
  writeFileSync(join(outDir, 'report.md'), renderReport(summary));
  return { outDir, summary, results: merged };
}

function sameSet(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  const s = new Set(a);
  return b.every((x) => s.has(x));
}
