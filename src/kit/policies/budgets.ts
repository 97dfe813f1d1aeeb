import type { Policy, State, StopVerdict } from '../../core/index.js';
import { budgetVerdict } from '../../core/index.js';

/** Limits of `budgets()`; each is optional and an absent one is no limit. */
export interface BudgetLimits {
  /** Steps (the run stops after this many). */
  maxSteps?: number;
  /** Wall-clock seconds, checked at the end of each step. */
  maxSeconds?: number;
  /** Tokens of all model calls (input + output + cache reads and writes). */
  maxTokens?: number;
  /** Cost in USD of all model calls. */
  maxCost?: number;
}

/**
 * Budgets as a policy, so a suite can give each task its own (an Engine-wide `budget` option and `task.budget` also
 * exist; the tightest limit wins). Checked in CHECK_STOP after every step; the stop reasons are `budget_steps`,
 * `budget_time`, `budget_tokens` and `budget_cost`. A time budget here ends the run at the first step boundary past
 * the limit; `task.budget.maxSeconds` also aborts a step in flight. A cost budget cannot be enforced while the cost
 * is unknown (a model without a price): that is reported once per run as `budget:cost_unknown`. Each run gets
 * its own instance (`forRun`).
 *
 * Events: `budget:stop` (kind, limit, used), `budget:cost_unknown`.
 */
export function budgets<S extends State = State>(limits: BudgetLimits): Policy<S> {
  checkLimit('maxSteps', limits.maxSteps, true);
  checkLimit('maxSeconds', limits.maxSeconds, false);
  checkLimit('maxTokens', limits.maxTokens, true);
  checkLimit('maxCost', limits.maxCost, false);
  const given = Object.entries(limits).filter(([, v]) => v !== undefined);
  if (!given.length) throw new Error('budgets: give at least one of maxSteps, maxSeconds, maxTokens, maxCost');
  const name = `budget(${given.map(([k, v]) => `${k}=${v}`).join(',')})`;
  return { name, forRun: () => budgetRun<S>(name, limits) };
}

/** The budgets of one run (it remembers whether it already said the cost is unknown). */
function budgetRun<S extends State>(name: string, limits: BudgetLimits): Policy<S> {
  let costUnknownNoted = false;
  return {
    name,
    checkStop(ctx): StopVerdict | void {
      const v = budgetVerdict(limits, { step: ctx.step, elapsedMs: ctx.elapsedMs, usage: ctx.usage });
      if (v) {
        ctx.emit('budget:stop', {
          policy: 'budget',
          kind: v.kind,
          limit: v.limit,
          used: v.used,
          step: ctx.step,
          message: v.message,
        });
        return { reason: v.reason, message: v.message };
      }
      if (limits.maxCost !== undefined && ctx.usage.cost === null && !costUnknownNoted) {
        costUnknownNoted = true;
        ctx.emit('budget:cost_unknown', {
          policy: 'budget',
          limit: limits.maxCost,
          step: ctx.step,
          message: 'the cost of a model call is unknown (no price), so the cost budget cannot be enforced',
        });
      }
    },
  };
}

/** Stops the run with `budget_steps` after `n` steps. */
export function stepBudget<S extends State = State>(n: number): Policy<S> {
  return budgets<S>({ maxSteps: n });
}

/** Stops the run with `budget_time` at the first step boundary after `seconds`. */
export function timeBudget<S extends State = State>(seconds: number): Policy<S> {
  return budgets<S>({ maxSeconds: seconds });
}

/** Stops the run with `budget_tokens` once its model calls used `n` tokens. */
export function tokenBudget<S extends State = State>(n: number): Policy<S> {
  return budgets<S>({ maxTokens: n });
}

/** Stops the run with `budget_cost` once its model calls cost `usd` or more. */
export function costBudget<S extends State = State>(usd: number): Policy<S> {
  return budgets<S>({ maxCost: usd });
}

function checkLimit(name: string, value: number | undefined, integer: boolean): void {
  if (value === undefined) return;
  if (typeof value !== 'number' || !Number.isFinite(value) || value <= 0 || (integer && !Number.isInteger(value))) {
    throw new Error(
      `budgets: ${name} must be a positive ${integer ? 'integer' : 'number'}, got ${JSON.stringify(value)}`,
    );
  }
}
