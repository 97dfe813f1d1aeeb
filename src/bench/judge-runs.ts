import { join } from 'node:path';
import type { Usage } from '../core/index.js';
import { errorMessage } from '../core/index.js';
import { readManifest } from '../trace/index.js';
import { addUsage, emptyUsage } from './judge-call.js';
import { pairResults } from './paired-results.js';
import type { PairwiseJudge, PairwiseWinner } from './pairwise-judge.js';
import type { ResultLine } from './result-line.js';
import { mcnemarExact, wilson } from './stats.js';

/** The judge's verdict on one paired trial. */
export interface PairVerdict {
  taskId: string;
  epoch: number;
  winner: PairwiseWinner;
  /** How the verdict was reached: by the judge (both orders), or without a call (same answer, a missing answer). */
  by: 'judge' | 'identical' | 'unanswered';
  consistent: boolean;
  explanation: string;
}

/** A pairwise comparison of two runs' answers by a judge model. */
export interface PairwiseComparison {
  schema: 'qitos.bench.pairwise';
  judge: string;
  a: string;
  b: string;
  pairs: number;
  aWins: number;
  bWins: number;
  ties: number;
  /** Ties because the two orders disagreed (the judge preferred a position, not an answer). */
  inconsistent: number;
  /** Pairs decided without a call: the same answer (tie), or an answer against none (the answer wins). */
  identical: number;
  unanswered: number;
  /** B's share of the decided pairs (wins of A or B), with a 95% Wilson interval. */
  bWinRate: { wins: number; decided: number; rate: number; ci: [number, number] };
  /** Two-sided exact sign test of B's wins against A's (ties left out). */
  pValue: number;
  /** The judge's calls, tokens and cost. */
  usage: Usage;
  verdicts: PairVerdict[];
  warnings: string[];
}

/** Options of {@link judgeRuns}. */
export interface JudgeRunsOptions {
  /** Pairs judged at once (default 4). */
  concurrency?: number;
  signal?: AbortSignal;
  displayDirs?: [string, string];
}

/**
 * Asks a pairwise judge, for every task/epoch pair two bench runs both recorded, whose answer is better. Each pair is
 * judged in both orders (see {@link pairwiseJudge}); the same answer is a tie and an answer beats no answer without a
 * call. The task text comes from the trials' traces. Throws when a judge call fails (the message names the pair).
 */
export async function judgeRuns(
  dirA: string,
  dirB: string,
  judge: PairwiseJudge,
  options: JudgeRunsOptions = {},
): Promise<PairwiseComparison> {
  const [showA, showB] = options.displayDirs ?? [dirA, dirB];
  const { pairs, warnings } = pairResults(dirA, dirB, [showA, showB]);
  const concurrency = options.concurrency ?? 4;
  if (!Number.isInteger(concurrency) || concurrency < 1)
    throw new Error(`concurrency must be a positive integer, got ${concurrency}`);
  const verdicts: PairVerdict[] = new Array(pairs.length);
  let usage = emptyUsage();
  let untold = 0;
  let next = 0;
  let failed = false;
  const one = async (i: number): Promise<void> => {
    const [a, b] = pairs[i];
    const base = { taskId: a.taskId, epoch: a.epoch, consistent: true };
    if (a.answer === null || b.answer === null) {
      const winner: PairwiseWinner = a.answer === null && b.answer === null ? 'tie' : a.answer === null ? 'b' : 'a';
      verdicts[i] = {
        ...base,
        winner,
        by: 'unanswered',
        explanation: winner === 'tie' ? 'neither run answered' : `only ${winner.toUpperCase()} answered`,
      };
      return;
    }
    if (a.answer.trim() === b.answer.trim()) {
      verdicts[i] = { ...base, winner: 'tie', by: 'identical', explanation: 'the same answer' };
      return;
    }
    const question = (await objective(dirA, a)) ?? (await objective(dirB, b));
    if (question === undefined) untold++;
    try {
      const v = await judge.judge({
        question: question ?? '(the task text was not recorded)',
        a: a.answer,
        b: b.answer,
        signal: options.signal,
      });
      usage = addUsage(usage, v.usage);
      verdicts[i] = { ...base, winner: v.winner, by: 'judge', consistent: v.consistent, explanation: v.explanation };
    } catch (err) {
      failed = true; // the other workers stop taking pairs: no more calls are paid for a comparison that failed
      throw new Error(`judging task "${a.taskId}" epoch ${a.epoch} failed: ${errorMessage(err)}`, { cause: err });
    }
  };
  const worker = async (): Promise<void> => {
    while (next < pairs.length && !failed) {
      options.signal?.throwIfAborted();
      await one(next++);
    }
  };
  await Promise.all(Array.from({ length: Math.min(concurrency, pairs.length) }, worker));
  if (untold) warnings.push(`${untold} pair(s) had no trace with the task text; the judge saw only the answers`);

  const count = (w: PairwiseWinner) => verdicts.filter((v) => v.winner === w).length;
  const aWins = count('a');
  const bWins = count('b');
  const p = wilson(bWins, aWins + bWins);
  return {
    schema: 'qitos.bench.pairwise',
    judge: judge.name,
    a: showA,
    b: showB,
    pairs: pairs.length,
    aWins,
    bWins,
    ties: count('tie'),
    inconsistent: verdicts.filter((v) => !v.consistent).length,
    identical: verdicts.filter((v) => v.by === 'identical').length,
    unanswered: verdicts.filter((v) => v.by === 'unanswered').length,
    bWinRate: { wins: bWins, decided: aWins + bWins, rate: p.rate, ci: p.ci },
    pValue: mcnemarExact(aWins, bWins).pValue,
    usage,
    verdicts,
    warnings,
  };
}

/** The task text of a trial, from its trace manifest; undefined when the trace is missing or unreadable. */
async function objective(dir: string, r: ResultLine): Promise<string | undefined> {
  if (!r.traceDir) return undefined;
  try {
    const m = await readManifest(join(dir, r.traceDir));
    return typeof m.task.objective === 'string' ? m.task.objective : undefined;
  } catch {
    // A missing or damaged trace only costs the judge the task text; the caller counts and reports it.
    return undefined;
  }
}

const pct = (x: number) => `${(x * 100).toFixed(1)}%`;

/** Renders a pairwise comparison as Markdown. */
export function renderPairwise(c: PairwiseComparison, options: { maxRows?: number } = {}): string {
  const max = options.maxRows ?? 20;
  const out = [
    '## Pairwise judgement',
    '',
    `Judge: ${c.judge}, every pair judged in both orders (A first, then B first).`,
    '',
  ];
  out.push(`- **B wins ${c.bWins}, A wins ${c.aWins}, ties ${c.ties}** of ${c.pairs} paired trials`);
  if (c.bWinRate.decided)
    out.push(
      `- B's share of the decided pairs: ${pct(c.bWinRate.rate)} (95% ` +
        `CI ${pct(c.bWinRate.ci[0])} to ${pct(c.bWinRate.ci[1])}, Wilson); sign test p ` +
        `= ${c.pValue.toFixed(4)}`,
    );
  out.push(
    `- Ties from orders that disagreed (position bias): ${c.inconsistent}; same ` +
      `answer: ${c.identical}; decided by a missing answer: ${c.unanswered}`,
  );
  const cost = c.usage.cost === null ? 'unknown cost' : `$${c.usage.cost.toFixed(4)}`;
  const tokens = c.usage.tokens.input + c.usage.tokens.output + c.usage.tokens.cache.read + c.usage.tokens.cache.write;
  out.push(`- Judge cost: ${c.usage.modelCalls} calls, ${tokens} tokens, ${cost}`, '');
  const decided = c.verdicts.filter((v) => v.winner !== 'tie' && v.by === 'judge');
  if (decided.length) {
    out.push('| task | epoch | winner | why |', '|---|---|---|---|');
    for (const v of decided.slice(0, max))
      out.push(
        `| ${v.taskId} | ${v.epoch} | ${v.winner.toUpperCase()} ` +
          `| ${v.explanation.replace(/\|/g, '\\|').replace(/\s+/g, ' ').slice(0, 160)} |`,
      );
    if (decided.length > max) out.push('', `... and ${decided.length - max} more (see --json)`);
    out.push('');
  }
  if (c.warnings.length) out.push(...c.warnings.map((w) => `- warning: ${w}`), '');
  return out.join('\n');
}
