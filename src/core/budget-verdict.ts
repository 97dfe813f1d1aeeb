import type { StopVerdict } from './stop-reason.js';
import type { Budget } from './task.js';
import { totalTokens } from './token-total.js';
import type { Usage } from './usage.js';

/** What a run has used so far, as a budget measures it. */
export interface BudgetUse {
  /** Steps taken. */
  step: number;
  /** Wall time since the run started, in ms. */
  elapsedMs: number;
  usage: Usage;
}

/** A budget that ran out: the stop verdict, which limit it was and how much was used. */
export interface BudgetVerdict extends StopVerdict {
  reason: 'budget_steps' | 'budget_time' | 'budget_tokens' | 'budget_cost';
  kind: 'steps' | 'time' | 'tokens' | 'cost';
  limit: number;
  /** Steps, seconds, tokens or USD used. */
  used: number;
}

/**
 * The first limit of `limits` that `use` reached, in the order steps, time, tokens, cost; undefined when none was.
 * The one wording of budget stops: the engine's budgets and the `budgets()` policy both end runs with it. A cost
 * that is unknown (`usage.cost` null: a model without a price) reaches no cost limit.
 */
export function budgetVerdict(limits: Budget, use: BudgetUse): BudgetVerdict | undefined {
  const { maxSteps, maxSeconds, maxTokens, maxCost } = limits;
  if (maxSteps !== undefined && use.step >= maxSteps)
    return {
      reason: 'budget_steps',
      kind: 'steps',
      limit: maxSteps,
      used: use.step,
      message: `step budget of ${maxSteps} reached`,
    };
  if (maxSeconds !== undefined && use.elapsedMs >= maxSeconds * 1000) {
    const s = use.elapsedMs / 1000;
    return {
      reason: 'budget_time',
      kind: 'time',
      limit: maxSeconds,
      used: s,
      message: `time budget of ${maxSeconds}s reached (${s.toFixed(1)}s)`,
    };
  }
  if (maxTokens !== undefined) {
    const used = totalTokens(use.usage.tokens);
    if (used >= maxTokens)
      return {
        reason: 'budget_tokens',
        kind: 'tokens',
        limit: maxTokens,
        used,
        message: `token budget of ${maxTokens} reached (${used} used)`,
      };
  }
  const cost = use.usage.cost;
  if (maxCost !== undefined && cost !== null && cost >= maxCost) {
    return {
      reason: 'budget_cost',
      kind: 'cost',
      limit: maxCost,
      used: cost,
      message: `cost budget of $${maxCost} reached ($${cost.toFixed(4)} spent)`,
    };
  }
  return undefined;
}
