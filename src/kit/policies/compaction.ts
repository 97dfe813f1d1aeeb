import type {
  Message,
  Model,
  ModelError,
  ModelMessage,
  Policy,
  PolicyContext,
  State,
  StopVerdict,
  Tokens,
} from '../../core/index.js';
import { QitosError, errorMessage, responseText } from '../../core/index.js';
import { contextLimits, type ContextLimits } from './context-limits.js';
import { applyPrune, planPrune } from './prune-tool-outputs.js';
import {
  SUMMARY_PROMPT,
  applySummary,
  planSummary,
  renderTranscript,
  summaryMessage,
  summaryRequest,
} from './summarise-history.js';
import { CHARS_PER_TOKEN, HistoryEstimator, estimateTextTokens } from './token-estimate.js';

/** Options of `compaction()`. Token amounts are in tokens; every default scales with the usable window. */
export interface CompactionOptions {
  /**
   * Context window in tokens (default: the model's `info.contextWindow`). Without either, only a provider overflow
   * error triggers a compaction.
   */
  contextWindow?: number;
  /** The model's output limit (default: `info.maxOutputTokens`); only used to size the reserve. */
  maxOutput?: number;
  /**
   * Tokens kept free for the reply (default: min(20,000, maxOutput), or 20% of the window when maxOutput is missing or
   * not below the window).
   */
  reserve?: number;
  /** Recent tool output never pruned (default: min(40,000, 25% of usable)). */
  protectTokens?: number;
  /** Tool outputs of the last this-many model turns are never pruned (default 2). */
  protectTurns?: number;
  /** Recent whole messages kept verbatim by a summary (default: 25% of usable). */
  keepRecentTokens?: number;
  /** Keep the first user message (the task) verbatim besides the last one (default true). */
  keepFirstUser?: boolean;
  /** Tools whose outputs are never pruned (default `['skill']`). */
  keepTools?: readonly string[];
  /** Tools to read `keepOutput` from (e.g. `agent.tools.list()`): those with `keepOutput` are never pruned. */
  tools?: Iterable<{ id: string; keepOutput?: boolean }>;
  /** Set false to only prune, never summarise. */
  summarise?: boolean;
  /** The model that writes summaries (default: the run's model). */
  model?: Model;
  /** System prompt of the summary call (default `SUMMARY_PROMPT`). */
  summaryPrompt?: string;
  /** `maxOutputTokens` of the summary call (default: min(4,000, max(256, 10% of usable))). */
  summaryMaxTokens?: number;
  /**
   * Share of the usable context a compaction frees beyond the limit, so the next one comes later (default 0.25):
   * when pruning leaves more than (1 - headroom) of usable, older turns are summarised too. Every compaction
   * rewrites history and so breaks a provider's cached prefix from the first changed message on: fewer of them keep
   * more of each request cached.
   */
  headroom?: number;
  /**
   * Earlier summaries stay verbatim and a new summary is appended after them while together they are at most this
   * many tokens (default: 15% of usable); above it they are merged into the new one. Keeps the head of the
   * conversation byte-identical across summaries.
   */
  keepSummaryTokens?: number;
  /** Compactions allowed in a row (each at most one step after the previous) before the run ends `context_overflow` (default 3). */
  maxConsecutive?: number;
}

type Trigger = 'after_tools' | 'before_model' | 'model_error';

interface Count {
  tokens: number;
  basis: 'provider' | 'estimate';
  estimate: number;
}

const LIST_CAP = 50;
const DEFAULT_HEADROOM = 0.25;
const DEFAULT_KEEP_SUMMARY_SHARE = 0.15;

/**
 * Context compaction as a policy. Before each model call (`beforeModel`) and after tools ran (`reduce`) it measures
 * the context: the provider's input count of the last call plus an estimate of what was added since, or, without
 * provider data, a chars/4 estimate kept incrementally. When it reaches usable = window - reserve it compacts:
 *
 * 1. Prune: old completed tool outputs beyond `protectTokens` of recent output get `time.compacted` (the output stays
 *    in the trace; the model sees a placeholder). Never the last `protectTurns` turns, never `keepTools` (skills).
 * 2. Summarise, if pruning is not enough: older messages are replaced by one user message holding a compaction
 *    part and a summary written by the model (prompt `SUMMARY_PROMPT`). The system prompt is not part of the
 *    history (the engine adds it to every call), the first and last user turns' messages and the recent tail stay,
 *    and whole messages move together, so a tool call is never split from its result.
 *
 * Progress guarantee: at most one compaction per step; if a compaction does not bring the context under the limit
 * (by estimate right away, or by the provider's count on the next call), or compactions are needed in more than
 * `maxConsecutive` consecutive steps, the run ends with `context_overflow` instead of compacting again. A provider
 * context-overflow error (`ModelError` kind `context_overflow`) triggers one compaction and the engine retries once.
 *
 * Every rewrite returns a new `messages` array with new objects for changed messages. Each run gets its own
 * compaction state (`forRun`). Events: `compaction:prune`, `compaction:summary`, `compaction:failed`,
 * `compaction:disabled`, `compaction:overflow_error`.
 */
export function compaction<S extends State = State>(options: CompactionOptions = {}): Policy<S> {
  for (const k of [
    'contextWindow',
    'maxOutput',
    'reserve',
    'protectTokens',
    'protectTurns',
    'keepRecentTokens',
    'summaryMaxTokens',
    'maxConsecutive',
    'headroom',
    'keepSummaryTokens',
  ] as const) {
    const v = options[k];
    if (v !== undefined && (typeof v !== 'number' || !Number.isFinite(v) || v < 0))
      throw new Error(`compaction: ${k} must be a non-negative number, got ${JSON.stringify(v)}`);
  }
  if (options.headroom !== undefined && options.headroom >= 1)
    throw new Error(`compaction: headroom must be below 1 (a share of the usable context), got ${options.headroom}`);
  if (options.contextWindow !== undefined && options.contextWindow < 1)
    throw new Error('compaction: contextWindow must be positive');
  if (
    options.contextWindow !== undefined &&
    options.reserve !== undefined &&
    options.reserve >= options.contextWindow
  ) {
    throw new Error(`compaction: reserve (${options.reserve}) must be below contextWindow (${options.contextWindow})`);
  }
  const keepTools = new Set(options.keepTools ?? ['skill']);
  for (const t of options.tools ?? []) if (t.keepOutput) keepTools.add(t.id);
  const settings: CompactionSettings = {
    options,
    keepTools,
    protectTurns: options.protectTurns ?? 2,
    maxConsecutive: options.maxConsecutive ?? 3,
  };
  return { name: 'compaction', forRun: () => new CompactionRun<S>(settings) };
}

/** The options of `compaction`, checked, with the tool sets resolved. */
interface CompactionSettings {
  options: CompactionOptions;
  keepTools: ReadonlySet<string>;
  protectTurns: number;
  maxConsecutive: number;
}

/**
 * Compaction in one run: what it measured (the provider's last count and the estimate it corresponds to), when it
 * last compacted and how many times in a row, and whether it has given up (then the run ends `context_overflow`).
 */
class CompactionRun<S extends State> implements Policy<S> {
  readonly name = 'compaction';
  private readonly estimator = new HistoryEstimator(new WeakMap<Message, number>());
  private systemTokens = 0;
  /** The history estimate at the last model call, and the number of calls before it. */
  private pending: { calls: number; estimate: number } | undefined;
  /** The provider's input count of the last call and the history estimate it corresponds to. */
  private anchor: { input: number; estimate: number; calls: number } | undefined;
  /** Step and model-call count of the last compaction, and how many compactions came in a row. */
  private lastStep = -1;
  private lastCalls = -1;
  private streak = 0;
  /** Set by a compaction: the provider's count of the next call must confirm it fits. */
  private verify: { step: number; calls: number } | undefined;
  private failed: string | undefined;
  private disabledNoted = false;

  constructor(private readonly s: CompactionSettings) {}

  private limitsOf(ctx: PolicyContext<S>): ContextLimits | undefined {
    return contextLimits(this.s.options, ctx.modelInfo);
  }

  /** The context size now: provider-measured input of the last call plus the estimated growth since, or the estimate. */
  private count(ctx: PolicyContext<S>, limits: ContextLimits | undefined): Count {
    const estimate = this.estimator.total(ctx.state.messages);
    const calls = ctx.usage.modelCalls;
    if (this.pending && calls === this.pending.calls + 1 && ctx.lastStepTokens) {
      const input = inputTokens(ctx.lastStepTokens);
      this.anchor = input > 0 ? { input, estimate: this.pending.estimate, calls } : undefined;
      this.pending = undefined;
      if (this.verify && calls > this.verify.calls) {
        if (this.anchor && limits && input >= limits.usable) {
          // The provider counted the compacted context and it still does not fit: compacting again would loop.
          this.fail(
            ctx,
            'after_tools',
            `context overflow: the compaction at step ${this.verify.step} left ${input} tokens by the ` +
              `provider's count, over the usable ${describeLimits(limits)}; not compacting again`,
            { tokensAfter: input, usable: limits.usable, basis: 'provider' },
          );
        }
        this.verify = undefined;
      }
    }
    if (this.anchor && this.anchor.calls === calls)
      return { tokens: this.anchor.input + (estimate - this.anchor.estimate), basis: 'provider', estimate };
    return { tokens: estimate + this.systemTokens, basis: 'estimate', estimate };
  }

  private fail(ctx: PolicyContext<S>, trigger: Trigger, message: string, data: Record<string, unknown>): void {
    this.failed ??= message;
    ctx.emit('compaction:failed', { policy: 'compaction', trigger, step: ctx.step, ...data, message });
  }

  /** Checks the context and compacts when it is over the limit; returns the new state, if any. */
  private async check(ctx: PolicyContext<S>, trigger: Trigger): Promise<S | undefined> {
    const limits = this.limitsOf(ctx);
    const c = this.count(ctx, limits);
    if (this.failed) return undefined;
    if (!limits) {
      if (!this.disabledNoted) {
        this.disabledNoted = true;
        ctx.emit('compaction:disabled', {
          policy: 'compaction',
          reason:
            'no context window: pass contextWindow or use a model whose info has one; only a provider overflow error triggers a compaction',
        });
      }
      return undefined;
    }
    if (c.tokens < limits.usable) return undefined;
    if (!this.mayCompact(ctx, trigger, limits, c)) return undefined;
    return this.compact(ctx, limits, c, trigger);
  }

  /** The progress guarantee: no second compaction without a model call or a step in between, and a bounded streak. */
  private mayCompact(ctx: PolicyContext<S>, trigger: Trigger, limits: ContextLimits, c: Count): boolean {
    const data = { tokensBefore: c.tokens, usable: limits.usable, basis: c.basis };
    if (this.lastStep === ctx.step && this.lastCalls === ctx.usage.modelCalls) {
      this.fail(
        ctx,
        trigger,
        `context overflow: ~${c.tokens} tokens (${c.basis}) right after the compaction of ` +
          `step ${ctx.step}, over the usable ${describeLimits(limits)}; not compacting again`,
        data,
      );
      return false;
    }
    if (this.lastStep >= ctx.step - 1 && this.streak >= this.s.maxConsecutive) {
      this.fail(
        ctx,
        trigger,
        `context overflow: ${this.streak + 1} compactions in a row (step ${ctx.step}, ` +
          `~${c.tokens} tokens, usable ${describeLimits(limits)}): compaction does not free enough ` +
          `room`,
        { ...data, streak: this.streak + 1 },
      );
      return false;
    }
    return true;
  }

  /** One compaction: prune old tool outputs, then summarise older turns if that was not enough; checks it freed enough. */
  private async compact(
    ctx: PolicyContext<S>,
    limits: ContextLimits,
    c: Count,
    trigger: Trigger,
  ): Promise<S | undefined> {
    const forced = trigger === 'model_error';
    this.streak = this.lastStep >= ctx.step - 1 ? this.streak + 1 : 1;
    this.lastStep = ctx.step;
    this.lastCalls = ctx.usage.modelCalls;
    const usable = limits.usable;
    const original = ctx.state.messages;
    const base = {
      policy: 'compaction',
      trigger,
      basis: c.basis,
      usable,
      contextWindow: limits.contextWindow,
      reserve: limits.reserve,
      reserveFrom: limits.reserveFrom,
    };
    let tokens = c.tokens;
    let messages: Message[] = original;
    let state = ctx.state;
    const metrics = { ...ctx.state.metrics };
    metrics.compactions = (metrics.compactions ?? 0) + 1;

    // 1. Prune old tool outputs.
    const protectTokens = this.s.options.protectTokens ?? Math.min(40_000, Math.floor(usable * 0.25));
    const plan = planPrune(original, { protectTokens, protectTurns: this.s.protectTurns, keepTools: this.s.keepTools });
    if (plan.outputs.length) {
      messages = applyPrune(original, plan);
      const after = tokens - (c.estimate - this.estimator.total(messages));
      const tools: Record<string, number> = {};
      for (const o of plan.outputs) tools[o.tool] = (tools[o.tool] ?? 0) + 1;
      ctx.emit('compaction:prune', {
        ...base,
        tokensBefore: tokens,
        tokensAfter: after,
        protectTokens,
        protectTurns: this.s.protectTurns,
        pruned: {
          outputs: plan.outputs.length,
          tokens: plan.tokens,
          tools,
          callIds: plan.outputs.slice(0, LIST_CAP).map((o) => o.callId),
        },
      });
      tokens = after;
      metrics.compactionPrunedOutputs = (metrics.compactionPrunedOutputs ?? 0) + plan.outputs.length;
      state = { ...state, messages, metrics };
    }

    // 2. Summarise older turns if pruning did not free the headroom (always after a provider overflow error).
    const target = usable - Math.floor(usable * (this.s.options.headroom ?? DEFAULT_HEADROOM));
    if ((forced || tokens >= target) && this.s.options.summarise !== false) {
      const summarised = await this.summarise(ctx, limits, original, messages, tokens, trigger, base, metrics);
      if (summarised) {
        ({ messages, tokens } = summarised);
        state = { ...state, messages, metrics };
      }
    }

    if (!this.failed) {
      if (messages === original) {
        this.fail(
          ctx,
          trigger,
          `context overflow: ~${tokens} tokens (${c.basis}), over the ` +
            `usable ${describeLimits(limits)}, and nothing can be compacted (no prunable tool output, ` +
            `nothing to summarise)`,
          { tokensBefore: c.tokens, usable, basis: c.basis },
        );
      } else if (tokens >= usable) {
        this.fail(
          ctx,
          trigger,
          `context overflow: compaction at step ${ctx.step} brought ~${c.tokens} tokens down to ` +
            `~${tokens} (${c.basis}), still over the usable ${describeLimits(limits)}; not compacting ` +
            `again`,
          { tokensBefore: c.tokens, tokensAfter: tokens, usable, basis: c.basis },
        );
      }
    }
    if (messages === original) return undefined;
    this.verify = { step: ctx.step, calls: ctx.usage.modelCalls };
    return state as S;
  }

  /** Replaces older messages by one summary the model writes; undefined (and a failure noted) when it cannot. */
  private async summarise(
    ctx: PolicyContext<S>,
    limits: ContextLimits,
    original: readonly Message[],
    messages: Message[],
    tokens: number,
    trigger: Trigger,
    base: Record<string, unknown>,
    metrics: Record<string, number>,
  ): Promise<{ messages: Message[]; tokens: number } | undefined> {
    const usable = limits.usable;
    const keepRecentTokens = this.s.options.keepRecentTokens ?? Math.floor(usable * 0.25);
    const plan = planSummary(messages, {
      keepRecentTokens,
      keepFirstUser: this.s.options.keepFirstUser ?? true,
      tokens: (m) => this.estimator.message(m),
      keepSummaryTokens: this.s.options.keepSummaryTokens ?? Math.floor(usable * DEFAULT_KEEP_SUMMARY_SHARE),
    });
    if (!plan) return undefined;
    const model = this.s.options.model ?? ctx.model;
    if (!model) {
      this.fail(
        ctx,
        trigger,
        'context overflow: compaction needs a summary but there is no model to write it (pass ' +
          'compaction({ model }) or run on the model path)',
        { tokensBefore: tokens, usable },
      );
      return undefined;
    }
    const maxTokens = this.s.options.summaryMaxTokens ?? Math.min(4_000, Math.max(256, Math.floor(usable * 0.1)));
    // The summary call must fit the summary model's own window: transcript budget = its window - reply - prompt.
    const window = model.info?.contextWindow ?? limits.contextWindow;
    const prompt = this.s.options.summaryPrompt ?? SUMMARY_PROMPT;
    const budgetTokens = Math.max(
      256,
      Math.floor((window - maxTokens - estimateTextTokens(prompt) - estimateTextTokens(ctx.state.task) - 200) * 0.9),
    );
    // Render from the unpruned history, so outputs pruned in step 1 still reach the summary.
    const transcript = renderTranscript(
      plan.replace.map((i) => original[i]),
      budgetTokens * CHARS_PER_TOKEN,
    );
    let summaryText: string;
    let usage: Tokens | undefined;
    let cost: number | null = null;
    try {
      // Through the run's middleware: the summary's tokens and cost count in the run's usage and budgets (and its
      // parent's), and the trace records the call for replay.
      const response = await ctx.callModel(
        { messages: summaryRequest(transcript, ctx.state.task, prompt), maxOutputTokens: maxTokens },
        { signal: ctx.signal, purpose: 'compaction', ...(this.s.options.model ? { model: this.s.options.model } : {}) },
      );
      summaryText = responseText(response).trim();
      usage = response.usage;
      cost = response.cost;
    } catch (err) {
      if (ctx.signal.aborted) throw err;
      this.fail(ctx, trigger, `context overflow: the summary call failed: ${errorMessage(err)}`, {
        tokensBefore: tokens,
        usable,
        error: errorMessage(err),
        model: model.id,
      });
      return undefined;
    }
    if (!summaryText) {
      this.fail(ctx, trigger, 'context overflow: the summary model returned an empty summary', {
        tokensBefore: tokens,
        usable,
        model: model.id,
      });
      return undefined;
    }
    const summary = summaryMessage(summaryText, { auto: trigger !== 'model_error', overflow: true });
    const next = applySummary(messages, plan, summary);
    const before = this.estimator.total(messages);
    const after = tokens - (before - this.estimator.total(next));
    const replaced = plan.replace.map((i) => messages[i]);
    const summaryTokens = this.estimator.message(summary);
    if (usage)
      metrics.compactionSummaryTokens =
        (metrics.compactionSummaryTokens ?? 0) + usage.input + usage.output + usage.cache.read + usage.cache.write;
    if (cost !== null) metrics.compactionSummaryCost = (metrics.compactionSummaryCost ?? 0) + cost;
    ctx.emit('compaction:summary', {
      ...base,
      tokensBefore: tokens,
      tokensAfter: after,
      keepRecentTokens,
      summarised: {
        messages: replaced.length,
        ids: replaced.slice(0, LIST_CAP).map((m) => m.info.id),
        tokens: replaced.reduce((n, m) => n + this.estimator.message(m), 0),
        omittedFromTranscript: transcript.omitted,
      },
      kept: {
        messages: next.length - 1,
        ids: plan.keep.map((i) => messages[i].info.id),
        tail: messages.length - plan.tailStart,
      },
      summary: { messageId: summary.info.id, tokens: summaryTokens, chars: summaryText.length },
      model: model.id,
      usage: usage ?? null,
      cost,
    });
    return { messages: next, tokens: after };
  }

  async reduce(ctx: PolicyContext<S>): Promise<S | undefined> {
    return this.check(ctx, 'after_tools');
  }

  async beforeModel(messages: ModelMessage[], ctx: PolicyContext<S>) {
    const system = messages[0]?.role === 'system' ? messages[0].content : '';
    this.systemTokens = estimateTextTokens(system);
    const state = await this.check(ctx, 'before_model');
    if (this.failed) throw new QitosError('context_overflow', this.failed);
    const history = state ? state.messages : ctx.state.messages;
    this.pending = { calls: ctx.usage.modelCalls, estimate: this.estimator.total(history) };
    return state ? { state } : undefined;
  }

  async onModelError(error: ModelError, ctx: PolicyContext<S>) {
    if (error.modelKind !== 'context_overflow') return undefined;
    if (this.failed) return undefined;
    if (this.lastStep === ctx.step && this.lastCalls === ctx.usage.modelCalls) {
      this.fail(
        ctx,
        'model_error',
        `context overflow: the provider still rejects the context after this step's compaction: ${error.message}`,
        { error: error.message },
      );
      return undefined;
    }
    // The provider says it does not fit, whatever our count says, so our count is wrong: aim under usable and at
    // most at half of the current estimate (without a known window, at half of the estimate).
    const estimate = this.estimator.total(ctx.state.messages) + this.systemTokens;
    const half = Math.max(1, Math.floor(estimate / 2));
    const known = this.limitsOf(ctx);
    const limits: ContextLimits = known
      ? { ...known, usable: Math.min(known.usable, half) }
      : { contextWindow: estimate, reserve: estimate - half, usable: half, reserveFrom: 'fallback' };
    const c: Count = {
      tokens: Math.max(estimate, limits.usable),
      basis: 'estimate',
      estimate: estimate - this.systemTokens,
    };
    ctx.emit('compaction:overflow_error', {
      policy: 'compaction',
      step: ctx.step,
      error: error.message,
      tokensEstimate: estimate,
      usable: limits.usable,
    });
    if (!this.mayCompact(ctx, 'model_error', limits, c)) return undefined;
    const state = await this.compact(ctx, limits, c, 'model_error');
    if (!state || this.failed) return undefined;
    this.pending = { calls: ctx.usage.modelCalls, estimate: this.estimator.total(state.messages) };
    return { state };
  }

  checkStop(): StopVerdict | void {
    if (!this.failed) return;
    return { reason: 'context_overflow', message: this.failed };
  }
}

/** Input-side tokens of a step as the provider counted them (fresh input plus cache reads and writes). */
function inputTokens(t: Tokens): number {
  return t.input + t.cache.read + t.cache.write;
}

function describeLimits(l: ContextLimits): string {
  return `${l.usable} (window ${l.contextWindow} - reserve ${l.reserve})`;
}
