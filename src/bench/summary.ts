import { z } from 'zod';
import { addCost, totalTokens } from '../core/index.js';
import { pairKey, type ResultLine } from './result-line.js';
import { mean, passAtK, passHatK, wilson } from './stats.js';

const TraceRef = z.object({ taskId: z.string(), epoch: z.number().int(), traceDir: z.string().nullable() });

/** `summary.json`: the figures of one run (or of merged shards). */
export const Summary = z.object({
  schema: z.literal('qitos.bench.summary'),
  version: z.literal(1),
  suite: z.string(),
  model: z.string().nullable(),
  agent: z.string().nullable(),
  epochs: z.number().int().positive(),
  shard: z.string().nullable(),
  createdAt: z.string(),
  /** Tasks this run was meant to cover (its shard of the suite). */
  tasks: z.number().int(),
  /** task x epoch pairs expected, recorded and still missing. */
  expectedTrials: z.number().int(),
  trials: z.number().int(),
  missing: z.number().int(),
  complete: z.boolean(),
  interrupted: z.boolean(),
  /** Over all recorded trials; an errored trial counts as a fail. Wilson 95% interval. */
  passRate: z.object({
    passed: z.number().int(),
    total: z.number().int(),
    rate: z.number(),
    ci: z.tuple([z.number(), z.number()]),
  }),
  /** Mean score over the trials: the mean reward (a scorer's score in [0, 1]). */
  meanScore: z.number().nullable(),
  /** Mean over tasks of the unbiased pass@k / pass^k from each task's epochs (keys are k). */
  passAtK: z.record(z.string(), z.number()),
  passHatK: z.record(z.string(), z.number()),
  /** Means per trial. `cost` is null when any trial's cost was unknown. */
  perTrial: z.object({
    steps: z.number().nullable(),
    tokens: z.number().nullable(),
    cost: z.number().nullable(),
    durationMs: z.number().nullable(),
  }),
  totals: z.object({ tokens: z.number(), cost: z.number().nullable(), durationMs: z.number() }),
  /** The agent's total tokens and cost divided by the passed trials: what one success costs. Null without a pass (or a known cost). */
  perSuccess: z.object({ tokens: z.number().nullable(), cost: z.number().nullable() }),
  /** What scoring spent (LLM judges), kept out of the agent's tokens and cost. */
  scoring: z.object({ modelCalls: z.number().int(), tokens: z.number(), cost: z.number().nullable() }),
  /**
   * The part of the totals spent by calls besides the agent's steps, by purpose (a user simulator's `user`,
   * `compaction`, ...): already counted in `totals`. Absent in summaries written before it existed.
   */
  byPurpose: z
    .record(z.string(), z.object({ modelCalls: z.number().int(), tokens: z.number(), cost: z.number().nullable() }))
    .optional(),
  stopReasons: z.record(z.string(), z.number().int()),
  errors: z.object({
    scorer: z.number().int(),
    setup: z.number().int(),
    run: z.number().int(),
    samples: z.array(
      z.object({
        taskId: z.string(),
        epoch: z.number().int(),
        kind: z.string(),
        error: z.string(),
        at: z.string().optional(),
      }),
    ),
  }),
  slowest: z.array(TraceRef.extend({ durationMs: z.number() })),
  failed: z.array(
    TraceRef.extend({
      stopReason: z.string(),
      score: z.number(),
      explanation: z.string(),
      error: z.string().nullable(),
    }),
  ),
  warnings: z.array(z.string()),
});
export type Summary = z.infer<typeof Summary>;

/** What `summarize` needs besides the results. */
export interface SummaryMeta {
  suite: string;
  model: string | null;
  agent: string | null;
  epochs: number;
  shard: string | null;
  /** The ids of the tasks the run was meant to cover. */
  taskIds: readonly string[];
  interrupted?: boolean;
  warnings?: string[];
  /** How many slowest trials to list (default 5). */
  slowest?: number;
}

/**
 * Summarises results. Pure: the same lines give the same summary. Duplicate task/epoch lines keep the last
 * one (with a warning); lines of tasks outside `taskIds` are left out (with a warning).
 */
export function summarize(results: readonly ResultLine[], meta: SummaryMeta): Summary {
  const warnings = [...(meta.warnings ?? [])];
  const wanted = new Set(meta.taskIds);
  const byPair = new Map<string, ResultLine>();
  let outside = 0;
  for (const r of results) {
    if (!wanted.has(r.taskId) || r.epoch > meta.epochs) {
      outside++;
      continue;
    }
    const k = pairKey(r.taskId, r.epoch);
    if (byPair.has(k)) warnings.push(`duplicate result for task "${r.taskId}" epoch ${r.epoch}: the last one counts`);
    byPair.set(k, r);
  }
  if (outside) warnings.push(`${outside} result line(s) for tasks or epochs outside this run were left out`);
  const lines = [...byPair.values()];
  const expectedTrials = meta.taskIds.length * meta.epochs;
  const passed = lines.filter((r) => r.pass).length;

  const perTask = new Map<string, { n: number; c: number }>();
  for (const r of lines) {
    const t = perTask.get(r.taskId) ?? { n: 0, c: 0 };
    t.n++;
    if (r.pass) t.c++;
    perTask.set(r.taskId, t);
  }
  const passAt: Record<string, number> = {};
  const passHat: Record<string, number> = {};
  for (const k of ksFor(meta.epochs)) {
    const eligible = [...perTask.values()].filter((t) => t.n >= k);
    if (!eligible.length) continue;
    passAt[k] = mean(eligible.map((t) => passAtK(t.n, t.c, k)));
    passHat[k] = mean(eligible.map((t) => passHatK(t.n, t.c, k)));
  }

  const costs = lines.map((r) => r.cost);
  const knownCost = costs.every((c) => c !== null);
  const totalCost = knownCost ? (costs as number[]).reduce((a, b) => a + b, 0) : null;
  const totalTokensUsed = lines.reduce((a, r) => a + r.tokens, 0);
  const scored = lines.filter((r) => r.scorerUsage);
  const scoring = {
    modelCalls: scored.reduce((a, r) => a + r.scorerUsage!.modelCalls, 0),
    tokens: scored.reduce((a, r) => a + totalTokens(r.scorerUsage!.tokens), 0),
    cost: scored.reduce<number | null>((a, r) => addCost(a, r.scorerUsage!.cost), 0),
  };
  const byPurpose: Record<string, { modelCalls: number; tokens: number; cost: number | null }> = {};
  for (const r of lines) {
    for (const [purpose, u] of Object.entries(r.usageByPurpose ?? {})) {
      const b = (byPurpose[purpose] ??= { modelCalls: 0, tokens: 0, cost: 0 });
      b.modelCalls += u.modelCalls;
      b.tokens += totalTokens(u.tokens);
      b.cost = addCost(b.cost, u.cost);
    }
  }
  const stopReasons: Record<string, number> = {};
  for (const r of lines) stopReasons[r.stopReason] = (stopReasons[r.stopReason] ?? 0) + 1;
  const errored = lines.filter((r) => r.error !== null);
  const count = (kind: string) => errored.filter((r) => r.errorKind === kind).length;
  const seenErr = new Set<string>();
  const samples = errored
    .filter((r) => !seenErr.has(r.error!) && seenErr.add(r.error!))
    .slice(0, 5)
    .map((r) => ({
      taskId: r.taskId,
      epoch: r.epoch,
      kind: r.errorKind ?? 'run',
      error: r.error!,
      ...(r.errorAt ? { at: r.errorAt } : {}),
    }));
  const orderKey = (r: ResultLine) => `${r.taskId}\u0000${String(r.epoch).padStart(6, '0')}`;
  const nullIfEmpty = (f: (r: ResultLine) => number) => (lines.length ? mean(lines.map(f)) : null);

  return {
    schema: 'qitos.bench.summary',
    version: 1,
    suite: meta.suite,
    model: meta.model,
    agent: meta.agent,
    epochs: meta.epochs,
    shard: meta.shard,
    createdAt: new Date().toISOString(),
    tasks: meta.taskIds.length,
    expectedTrials,
    trials: lines.length,
    missing: expectedTrials - lines.length,
    complete: lines.length === expectedTrials,
    interrupted: meta.interrupted ?? false,
    passRate: (({ successes, total, rate, ci }) => ({ passed: successes, total, rate, ci }))(
      wilson(passed, lines.length),
    ),
    meanScore: nullIfEmpty((r) => r.score),
    passAtK: passAt,
    passHatK: passHat,
    perTrial: {
      steps: nullIfEmpty((r) => r.steps),
      tokens: nullIfEmpty((r) => r.tokens),
      cost: lines.length && totalCost !== null ? totalCost / lines.length : null,
      durationMs: nullIfEmpty((r) => r.durationMs),
    },
    totals: { tokens: totalTokensUsed, cost: totalCost, durationMs: lines.reduce((a, r) => a + r.durationMs, 0) },
    perSuccess: {
      tokens: passed ? totalTokensUsed / passed : null,
      cost: passed && totalCost !== null ? totalCost / passed : null,
    },
    scoring,
    byPurpose,
    stopReasons,
    errors: { scorer: count('scorer'), setup: count('setup'), run: count('run'), samples },
    slowest: [...lines]
      .sort((a, b) => b.durationMs - a.durationMs)
      .slice(0, meta.slowest ?? 5)
      .map((r) => ({ taskId: r.taskId, epoch: r.epoch, durationMs: r.durationMs, traceDir: r.traceDir })),
    failed: lines
      .filter((r) => !r.pass)
      .sort((a, b) => (orderKey(a) < orderKey(b) ? -1 : 1))
      .map((r) => ({
        taskId: r.taskId,
        epoch: r.epoch,
        stopReason: r.stopReason,
        score: r.score,
        explanation: r.explanation,
        error: r.error,
        traceDir: r.traceDir,
      })),
    warnings,
  };
}

/** The k reported for pass@k: every k up to 10 epochs, then powers of two and the epoch count. */
function ksFor(epochs: number): number[] {
  const ks = new Set<number>();
  for (let k = 1; k <= Math.min(epochs, 10); k++) ks.add(k);
  for (let k = 16; k < epochs; k *= 2) ks.add(k);
  ks.add(epochs);
  return [...ks].sort((a, b) => a - b);
}
