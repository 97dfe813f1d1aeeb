import type { Attributes, Context, Span, SpanContext, Tracer } from '@opentelemetry/api';
import { ROOT_CONTEXT, SpanKind, SpanStatusCode, trace } from '@opentelemetry/api';
import type { ActionResult, EventRecord, Manifest, ModelResponse, StepRecord, Tokens } from '../../core/index.js';
import { GEN_AI, GEN_AI_OPERATION } from './gen-ai-attributes.js';

/** How a run's spans are made. */
export interface RunSpanOptions {
  /** Put message content on spans (prompts, replies, tool arguments and results, the final answer). Off by default. */
  content?: boolean;
}

/** Stop reasons that mean the run failed (its manifest status `failed`): its span's status is ERROR. */
const FAILED = new Set(['unrecoverable_error', 'task_invalid', 'env_capability_mismatch']);

/** Providers whose qitos-ts name differs from the conventions' `gen_ai.provider.name` value. */
const PROVIDER_NAMES: Record<string, string> = { zhipu: 'zhipu_ai', qwen: 'alibaba.qwen' };

/** The conventions' finish reasons (the output messages schema), by qitos-ts finish reason. */
const FINISH_REASONS: Record<string, string> = {
  stop: 'stop',
  length: 'length',
  'tool-calls': 'tool_call',
  'content-filter': 'content_filter',
  error: 'error',
  other: 'other',
};

/**
 * Turns one run's trace records into spans in the OpenTelemetry GenAI conventions, with the times the records hold:
 * the run an `invoke_agent` span, each model call (a step's, and each `model_call` besides) a `chat` span, each
 * tool call an `execute_tool` span, all children of the run's span, which is itself a child of `parent` (a sub-run's
 * parent run). Live telemetry and `qitos trace export` feed it the same records, so they make the same spans.
 */
export class RunSpans {
  private readonly span: Span;
  /**
   * The latest end of a child span: the run's span ends no earlier. Recorded times are whole milliseconds taken at
   * different moments (the manifest's start, each phase's), so a child computed from them can pass the run's end by
   * a fraction of a millisecond; a child never starts before the run's span either.
   */
  private childrenEnd = 0;
  private get runStart(): number {
    return Date.parse(this.manifest.createdAt);
  }
  private readonly provider: string;
  private readonly model: string | undefined;
  private readonly toolDescriptions = new Map<string, string>();
  private readonly runContext: Context;

  constructor(
    private readonly tracer: Tracer,
    private readonly manifest: Manifest,
    parent: SpanContext | undefined,
    private readonly options: RunSpanOptions = {},
  ) {
    const id = manifest.model?.id;
    const colon = id ? id.indexOf(':') : -1;
    const provider = id && colon > 0 ? id.slice(0, colon) : 'qitos';
    this.provider = PROVIDER_NAMES[provider] ?? provider;
    this.model = id ? (colon > 0 ? id.slice(colon + 1) : id) : undefined;
    const agent = manifest.agent.name;
    const task = manifest.task as { id?: unknown; objective?: unknown };
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.invokeAgent,
      [GEN_AI.providerName]: this.provider,
      [GEN_AI.agentName]: agent,
      [GEN_AI.conversationId]: manifest.runId,
      ...(this.model ? { [GEN_AI.requestModel]: this.model } : {}),
      ...(manifest.agent.variant ? { [GEN_AI.agentVersion]: manifest.agent.variant } : {}),
      'qitos.run.id': manifest.runId,
      ...(typeof task.id === 'string' ? { 'qitos.task.id': task.id } : {}),
      ...(manifest.parent
        ? { 'qitos.parent.run_id': manifest.parent.runId, 'qitos.parent.kind': manifest.parent.kind }
        : {}),
    };
    if (options.content && typeof task.objective === 'string')
      attributes[GEN_AI.inputMessages] = JSON.stringify([
        { role: 'user', parts: [{ type: 'text', content: task.objective }] },
      ]);
    const ctx = parent ? trace.setSpanContext(ROOT_CONTEXT, parent) : ROOT_CONTEXT;
    this.span = tracer.startSpan(
      `${GEN_AI_OPERATION.invokeAgent} ${agent}`,
      { kind: SpanKind.INTERNAL, startTime: Date.parse(manifest.createdAt), attributes },
      ctx,
    );
    this.runContext = trace.setSpan(ROOT_CONTEXT, this.span);
  }

  /** The run's span, the parent of its sub-runs' spans. */
  get spanContext(): SpanContext {
    return this.span.spanContext();
  }

  /** One events.jsonl record: tool descriptions, the system prompt, side model calls, recoveries. */
  event(rec: EventRecord): void {
    const data = (rec.data ?? {}) as Record<string, unknown>;
    switch (rec.type) {
      case 'tool_specs':
        for (const spec of Array.isArray(data.specs) ? data.specs : [])
          if (typeof spec?.name === 'string' && typeof spec.description === 'string')
            this.toolDescriptions.set(spec.name, spec.description);
        return;
      case 'prompt':
        if (this.options.content && typeof data.text === 'string')
          this.span.setAttribute(GEN_AI.systemInstructions, JSON.stringify([{ type: 'text', content: data.text }]));
        return;
      case 'model_call':
        return this.sideCall(rec, data);
      case 'recover':
        this.span.addEvent(
          'qitos.recover',
          {
            'qitos.step': rec.step,
            'qitos.failure.kind': String(data.kind),
            'qitos.failure.message': String(data.message),
            'qitos.failure.fatal': data.fatal === true,
          },
          rec.ts,
        );
        return;
    }
  }

  /** One steps.jsonl record: its model call as a `chat` span, its tool calls as `execute_tool` spans. */
  step(rec: StepRecord): void {
    const observeMs = rec.phases.observe ?? 0;
    const decideStart = rec.startedAt + observeMs;
    if (rec.model) {
      const start = decideStart;
      const end = start + rec.model.latencyMs;
      const span = this.chatSpan(start, rec.model.response, { 'qitos.step': rec.step });
      if (this.options.content && rec.model.system)
        span.setAttribute(GEN_AI.systemInstructions, JSON.stringify([{ type: 'text', content: rec.model.system }]));
      this.endChild(span, end);
    }
    const actStart = decideStart + (rec.phases.decide ?? 0);
    for (const result of rec.results) this.toolSpan(rec.step, result, actStart, rec.decision);
  }

  /** The final manifest: the run's stop reason, totals and status, and the end of its span. */
  finish(manifest: Manifest): void {
    const summary = manifest.summary;
    const start = Date.parse(this.manifest.createdAt);
    if (summary) {
      const tokens = summary.usage.tokens;
      this.span.setAttributes({
        'qitos.stop_reason': summary.stopReason,
        'qitos.steps': summary.steps,
        'qitos.status': manifest.status,
        ...tokenAttributes(tokens),
        ...(summary.usage.cost !== null ? { 'qitos.cost': summary.usage.cost } : {}),
        'qitos.failures': summary.failures.length,
      });
      if (this.options.content && summary.finalResult !== null)
        this.span.setAttribute(
          GEN_AI.outputMessages,
          JSON.stringify([
            { role: 'assistant', parts: [{ type: 'text', content: summary.finalResult }], finish_reason: 'stop' },
          ]),
        );
      if (FAILED.has(summary.stopReason)) {
        this.span.setAttribute(GEN_AI.errorType, summary.stopReason);
        this.span.setStatus({ code: SpanStatusCode.ERROR, message: summary.message ?? summary.stopReason });
      }
    } else this.span.setAttribute('qitos.status', manifest.status);
    const end = summary ? start + summary.durationMs : Date.parse(manifest.updatedAt);
    this.span.end(Math.max(end, this.childrenEnd));
  }

  /** Ends a child span at `end` (never before the run's start) and keeps the run's span covering it. */
  private endChild(span: Span, end: number): void {
    const t = Math.max(end, this.runStart);
    this.childrenEnd = Math.max(this.childrenEnd, t);
    span.end(t);
  }

  /** A `chat` span started at `start` (the caller ends it), with what the reply says. */
  private chatSpan(start: number, response: ModelResponse | undefined, extra: Attributes): Span {
    const m = this.manifest.model;
    const params = (m?.params ?? {}) as Record<string, unknown>;
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.chat,
      [GEN_AI.providerName]: this.provider,
      ...(this.model ? { [GEN_AI.requestModel]: this.model } : {}),
      ...numberAttribute(GEN_AI.requestTemperature, params.temperature),
      ...numberAttribute(GEN_AI.requestTopP, params.topP),
      ...numberAttribute(GEN_AI.requestMaxTokens, params.maxOutputTokens),
      ...numberAttribute(GEN_AI.requestSeed, params.seed),
      ...serverAttributes(m?.endpoint),
      ...extra,
    };
    if (response) {
      Object.assign(attributes, tokenAttributes(response.usage), {
        [GEN_AI.responseFinishReasons]: [FINISH_REASONS[response.finishReason] ?? response.finishReason],
        ...(response.modelId ? { [GEN_AI.responseModel]: response.modelId } : {}),
        ...(response.cost !== null ? { 'qitos.cost': response.cost } : {}),
      });
      if (this.options.content) attributes[GEN_AI.outputMessages] = JSON.stringify([outputMessage(response)]);
    }
    return this.tracer.startSpan(
      `${GEN_AI_OPERATION.chat}${this.model ? ` ${this.model}` : ''}`,
      { kind: SpanKind.CLIENT, startTime: Math.max(start, this.runStart), attributes },
      this.runContext,
    );
  }

  /** A `model_call` event (a call besides the step's own: a user simulator, compaction, a critic): a `chat` span. */
  private sideCall(rec: EventRecord, data: Record<string, unknown>): void {
    const latency = typeof data.latencyMs === 'number' ? data.latencyMs : 0;
    const response = data.response as ModelResponse | undefined;
    const span = this.chatSpan(rec.ts - latency, response, {
      'qitos.step': rec.step,
      'qitos.model_call.purpose': String(data.purpose),
    });
    if (typeof data.error === 'string') {
      span.setAttribute(GEN_AI.errorType, '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR, message: data.error });
    }
    this.endChild(span, rec.ts);
  }

  /** One tool call as an `execute_tool` span, timed by its tool state (or from the ACT phase when it has none). */
  private toolSpan(step: number, result: ActionResult, actStart: number, decision: StepRecord['decision']): void {
    const time = result.state.time as { created?: number; start?: number; end?: number } | undefined;
    const start = time?.start ?? time?.created ?? actStart;
    const end = time?.end ?? start + result.latencyMs;
    const description = this.toolDescriptions.get(result.name);
    const attributes: Attributes = {
      [GEN_AI.operationName]: GEN_AI_OPERATION.executeTool,
      [GEN_AI.toolName]: result.name,
      [GEN_AI.toolCallId]: result.actionId,
      [GEN_AI.toolType]: 'function',
      ...(description ? { [GEN_AI.toolDescription]: description } : {}),
      'qitos.step': step,
      'qitos.tool.status': result.status,
      ...(result.permission ? { 'qitos.permission.action': result.permission.action } : {}),
    };
    if (this.options.content) {
      const args =
        'input' in result.state
          ? result.state.input
          : decision?.mode === 'act'
            ? decision.actions.find((a) => a.id === result.actionId)?.args
            : undefined;
      if (args !== undefined) attributes[GEN_AI.toolCallArguments] = JSON.stringify(args);
      if (result.status === 'success')
        attributes[GEN_AI.toolCallResult] =
          typeof result.output === 'string' ? result.output : JSON.stringify(result.output ?? null);
    }
    const span = this.tracer.startSpan(
      `${GEN_AI_OPERATION.executeTool} ${result.name}`,
      { kind: SpanKind.INTERNAL, startTime: Math.max(start, this.runStart), attributes },
      this.runContext,
    );
    if (result.status === 'error') {
      span.setAttribute(GEN_AI.errorType, '_OTHER');
      span.setStatus({ code: SpanStatusCode.ERROR, message: result.error ?? 'tool error' });
    }
    this.endChild(span, end);
  }
}

/** The conventions' usage attributes of a token count (cache and reasoning tokens only when there are some). */
function tokenAttributes(tokens: Tokens): Attributes {
  return {
    [GEN_AI.usageInputTokens]: tokens.input,
    [GEN_AI.usageOutputTokens]: tokens.output,
    ...(tokens.cache.read ? { [GEN_AI.usageCacheReadInputTokens]: tokens.cache.read } : {}),
    ...(tokens.cache.write ? { [GEN_AI.usageCacheCreationInputTokens]: tokens.cache.write } : {}),
    ...(tokens.reasoning ? { [GEN_AI.usageReasoningOutputTokens]: tokens.reasoning } : {}),
  };
}

function numberAttribute(key: string, value: unknown): Attributes {
  return typeof value === 'number' && Number.isFinite(value) ? { [key]: value } : {};
}

/** `server.address` and `server.port` of a model's endpoint URL (the trace holds it without credentials or query). */
function serverAttributes(endpoint: string | undefined): Attributes {
  if (!endpoint) return {};
  try {
    const url = new URL(endpoint);
    const port = url.port ? Number(url.port) : url.protocol === 'https:' ? 443 : url.protocol === 'http:' ? 80 : NaN;
    return {
      [GEN_AI.serverAddress]: url.hostname,
      ...(Number.isFinite(port) ? { [GEN_AI.serverPort]: port } : {}),
    };
  } catch {
    return {}; // a recorded endpoint that is not a URL (a local model's name) names no server
  }
}

/** A model reply as the conventions' output message. */
function outputMessage(response: ModelResponse): Record<string, unknown> {
  return {
    role: 'assistant',
    parts: response.parts.map((p) =>
      p.type === 'text'
        ? { type: 'text', content: p.text }
        : p.type === 'reasoning'
          ? { type: 'reasoning', content: p.text }
          : { type: 'tool_call', id: p.callId, name: p.name, arguments: p.args ?? p.input },
    ),
    finish_reason: FINISH_REASONS[response.finishReason] ?? response.finishReason,
  };
}
