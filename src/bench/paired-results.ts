import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { pairKey, type ResultLine } from './result-line.js';
import { readResults } from './results-file.js';
import { readRunInfo } from './run-info.js';

/** One side of a comparison. */
export interface CompareSide {
  dir: string;
  suite: string | null;
  model: string | null;
  agent: string | null;
  trials: number;
  /** The settings run.json records (agent module + sha-256, model, engine, policies, agent options), or null when it records none. */
  settings: Record<string, unknown> | null;
}

/** The trials two runs both recorded, paired by task and epoch, in task/epoch order. */
export interface PairedResults {
  a: CompareSide;
  b: CompareSide;
  pairs: Array<[ResultLine, ResultLine]>;
  warnings: string[];
}

/**
 * Reads two bench output folders and pairs their results by task and epoch. `displayDirs` is how the folders are
 * named in messages and results. Throws when a folder is not a run or the runs share no pair.
 */
export function pairResults(dirA: string, dirB: string, displayDirs: [string, string] = [dirA, dirB]): PairedResults {
  const [showA, showB] = displayDirs;
  const sideA = load(dirA, showA);
  const sideB = load(dirB, showB);
  const warnings = [...sideA.warnings, ...sideB.warnings];
  if (sideA.side.suite && sideB.side.suite && sideA.side.suite !== sideB.side.suite)
    warnings.push(
      `the runs are of different suites ("${sideA.side.suite}" and "${sideB.side.suite}"); only shared task ids are compared`,
    );
  const pairs: Array<[ResultLine, ResultLine]> = [];
  for (const [k, a] of sideA.byPair) {
    const b = sideB.byPair.get(k);
    if (b) pairs.push([a, b]);
  }
  if (!pairs.length) throw new Error(`${showA} and ${showB} share no task/epoch pair to compare`);
  pairs.sort(([x], [y]) => (x.taskId === y.taskId ? x.epoch - y.epoch : x.taskId < y.taskId ? -1 : 1));
  return {
    a: { ...sideA.side, trials: sideA.byPair.size },
    b: { ...sideB.side, trials: sideB.byPair.size },
    pairs,
    warnings,
  };
}

function load(
  dir: string,
  shown: string,
): { side: Omit<CompareSide, 'trials'>; byPair: Map<string, ResultLine>; warnings: string[] } {
  const file = join(dir, 'results.jsonl');
  if (!existsSync(file)) throw new Error(`${shown} is not a bench run: no results.jsonl`);
  const read = readResults(file);
  const info = readRunInfo(dir);
  const byPair = new Map<string, ResultLine>();
  for (const r of read.results) byPair.set(pairKey(r.taskId, r.epoch), r);
  return {
    side: {
      dir: shown,
      suite: info?.suite ?? null,
      model: info?.model ?? null,
      agent: info?.agent ?? null,
      settings: info?.config ?? null,
    },
    byPair,
    warnings: read.warnings,
  };
}
