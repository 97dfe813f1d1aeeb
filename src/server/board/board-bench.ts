import { join } from 'node:path';
import { readResults } from '../../bench/results-file.js';
import { pairKey, type ResultLine } from '../../bench/result-line.js';
import { readRunInfo } from '../../bench/run-info.js';

/** One bench output folder (it holds `results.jsonl`) as the board lists it. */
export interface BoardBench {
  /** Its key in the board, as for runs: `<root index>/<folder relative to that root>`. */
  id: string;
  path: string;
  suite: string | null;
  model: string | null;
  agent: string | null;
  /** Trials recorded (a trial recorded twice counts once), passed, and those that ended in an error. */
  trials: number;
  passed: number;
  errors: number;
  /** Total cost in USD; null when any trial's price was unknown. */
  cost: number | null;
  updatedAt: string | null;
  /** Why the folder's results or run.json could not be read, or null. */
  problem: string | null;
}

/**
 * The results of a bench folder, each trial once (the last line recorded for it wins, as in `bench report`), by task
 * id (numbers in ids by value: t2 before t10) and epoch: concurrent trials finish, and are recorded, in any order.
 */
export function benchResults(dir: string): ResultLine[] {
  const lines = readResults(join(dir, 'results.jsonl')).results;
  return [...new Map(lines.map((r): [string, ResultLine] => [pairKey(r.taskId, r.epoch), r])).values()].sort(
    (a, b) => a.taskId.localeCompare(b.taskId, 'en', { numeric: true }) || a.epoch - b.epoch,
  );
}

/** Reads a bench folder's run.json and results into its listing row; a folder that does not read says why. */
export function boardBench(dir: string, id: string, path: string): BoardBench {
  const empty = { suite: null, model: null, agent: null, trials: 0, passed: 0, errors: 0, cost: null };
  try {
    const info = readRunInfo(dir);
    const lines = benchResults(dir);
    return {
      id,
      path,
      suite: info?.suite ?? null,
      model: info?.model ?? null,
      agent: info?.agent ?? null,
      trials: lines.length,
      passed: lines.filter((r) => r.pass).length,
      errors: lines.filter((r) => r.error !== null).length,
      cost: lines.some((r) => r.cost === null) ? null : lines.reduce((s, r) => s + (r.cost ?? 0), 0),
      updatedAt: info?.updatedAt ?? lines.at(-1)?.finishedAt ?? null,
      problem: null,
    };
  } catch (err) {
    return { id, path, ...empty, updatedAt: null, problem: (err as Error).message };
  }
}
