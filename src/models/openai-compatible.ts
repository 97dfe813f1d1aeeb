import type OpenAI from 'openai';
import type { ChatCompletionChunk, ChatCompletionCreateParamsStreaming } from 'openai/resources/chat/completions';
import type { FinishReason, GenerateOptions, ModelRequest, ModelResponse, Tokens } from '../core/index.js';
import { emptyTokens } from '../core/index.js';
import { classifyProviderError } from './classify-provider-error.js';
import { toOpenAIMessages, toOpenAITools, toOpenAIToolChoice } from './openai-messages.js';
import { computeCost, type ModelPrice } from './pricing.js';
import { checkProviderOptions, configuredPrice, providerModelInfo, type ProviderOptions } from './provider-options.js';
import { ProviderError } from './provider-error.js';
import { ProviderModel } from './provider-model.js';
import type { ResponseBuilder } from './response-builder.js';
import { streamReply } from './stream-reply.js';

/** Options of an OpenAI-compatible model. `createModel` fills them from a preset and the environment. */
export interface OpenAICompatibleOptions extends ProviderOptions {
  /** Model id sent to the server, e.g. `gpt-4o-mini`, `deepseek-chat`, `qwen2.5`. */
  model: string;
  /** Provider name: the `provider` of the model id and of pricing lookups (default `openai`). */
  provider?: string;
  /** Server root including the version path, e.g. `http://localhost:11434/v1`. */
  baseURL: string;
  /** Sent as the bearer token; local servers that need none accept any value. */
  apiKey: string;
  /** A local server: an unpriced model costs 0 rather than null. */
  local?: boolean;
  /** Request field for `maxOutputTokens` (default `max_tokens`; OpenAI itself wants `max_completion_tokens`). */
  maxTokensField?: 'max_tokens' | 'max_completion_tokens';
  /** Send earlier reasoning back as `reasoning_content` (DeepSeek, Zhipu). */
  reasoningInput?: boolean;
  /** Ask for usage in the last stream chunk (default true; turn off for servers that reject `stream_options`). */
  includeUsage?: boolean;
  organization?: string;
  project?: string;
}

/**
 * A model behind any server that speaks OpenAI chat completions (OpenAI, DeepSeek, Zhipu GLM, Qwen/DashScope,
 * Ollama, vLLM, LM Studio), streamed through the `openai` SDK. The SDK's own retries are off: retries and
 * timeouts are the model's retry middleware (`ProviderModel`), error classification is ours.
 */
export class OpenAICompatibleModel extends ProviderModel {
  /** The SDK and its client, loaded on the first call: importing qitos-ts does not load a provider SDK it never uses. */
  private sdk: Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> | undefined;
  private readonly price: ModelPrice | undefined;

  constructor(private readonly options: OpenAICompatibleOptions) {
    const provider = options.provider ?? 'openai';
    const id = `${provider}:${options.model}`;
    checkProviderOptions(id, options);
    super(id, providerModelInfo(provider, options.model, options, options.baseURL), options);
    const found = configuredPrice(provider, options.model, options);
    this.price = found ?? (options.local && options.price !== null ? { input: 0, output: 0 } : undefined);
  }

  private loadSdk(): Promise<{ OpenAI: typeof OpenAI; client: OpenAI }> {
    const options = this.options;
    return (this.sdk ??= import('openai').then(({ default: OpenAI }) => ({
      OpenAI,
      client: new OpenAI({
        apiKey: options.apiKey,
        baseURL: options.baseURL,
        organization: options.organization ?? null,
        project: options.project ?? null,
        ...ProviderModel.clientOptions(options),
        fetch: fetchWithWrappedErrors,
      }),
    })));
  }

  /** The request body sent for `request` (exposed for tests and for debugging a server's complaints). */
  body(request: ModelRequest): ChatCompletionCreateParamsStreaming {
    const o = this.options;
    const body: ChatCompletionCreateParamsStreaming & Record<string, unknown> = {
      model: o.model,
      messages: toOpenAIMessages(request.messages, { reasoningInput: o.reasoningInput }),
      stream: true,
    };
    if (o.includeUsage !== false) body.stream_options = { include_usage: true };
    if (request.tools?.length) {
      body.tools = toOpenAITools(request.tools);
      if (request.toolChoice) body.tool_choice = toOpenAIToolChoice(request.toolChoice);
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
    if (request.maxOutputTokens !== undefined) body[o.maxTokensField ?? 'max_tokens'] = request.maxOutputTokens;
    if (request.stop?.length) body.stop = request.stop;
    if (request.seed !== undefined) body.seed = request.seed;
    // provider options may add or override fields, but not turn streaming off: the reply is read as a stream
    return { ...body, ...request.providerOptions, stream: true } as ChatCompletionCreateParamsStreaming;
  }

  async attempt(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse> {
    const body = this.body(request);
    const { OpenAI, client } = await this.loadSdk();
    const state: StreamState = { calls: [], byIndex: new Map(), finish: undefined, usage: undefined, nextId: 0 };
    return streamReply<ChatCompletionChunk>({
      signal: options.signal,
      onEvent: options.onEvent,
      open: (signal) => client.chat.completions.create(body, { signal }),
      onChunk: (chunk, builder) => {
        // An error sent as a chunk of a 200 stream (`event: error` without an `error` key, which the SDK passes on).
        if (isErrorChunk(chunk))
          throw classifyProviderError(new OpenAI.APIError(undefined, chunk, undefined, undefined), this.id, OpenAI);
        onChunk(chunk, builder, state);
      },
      finish: (builder) => {
        if (state.finish === undefined)
          throw new ProviderError(
            'transport',
            `${this.id}: the stream ended before the model finished (no finish_reason)`,
          );
        const nameless = state.calls.find((c) => !c.name);
        if (nameless)
          throw new ProviderError(
            'transport',
            `${this.id}: protocol error: tool call ${nameless.id} has no function name`,
          );
        for (const c of state.calls) {
          if (!c.started) startCall(c, builder);
          builder.toolEnd(c.id);
        }
        const usage = state.usage ? openAITokens(state.usage) : emptyTokens();
        const cost = state.usage || this.options.local ? computeCost(usage, this.price) : null;
        return builder.finish(mapFinishReason(state.finish, state.calls.length > 0), usage, cost, this.id);
      },
      classify: (err) => classifyProviderError(err, this.id, OpenAI, this.endpoint),
      failure: `${this.id}: failed to handle a stream chunk`,
    });
  }
}

/**
 * The SDK reads an error's details from the body's `error` key only. Some compatible servers (vLLM) send
 * `{object: "error", message, code}` at the top level; wrapping it keeps their message (and a context-length
 * complaint in it) visible to the classifier.
 */
async function fetchWithWrappedErrors(input: string | URL | Request, init?: RequestInit): Promise<Response> {
  const res = await fetch(input, init);
  if (res.ok) return res;
  const text = await res.text();
  let body = text;
  if (text.trimStart().startsWith('{')) {
    try {
      const json: unknown = JSON.parse(text);
      if (json && typeof json === 'object' && !('error' in json)) body = JSON.stringify({ error: json });
    } catch {
      body = text; // not JSON after all: the SDK uses the text as the message
    }
  }
  return new Response(body, { status: res.status, statusText: res.statusText, headers: res.headers });
}

/** A chunk that is an error body (`{object: "error", message, code}` and the like), not a completion chunk. */
function isErrorChunk(chunk: ChatCompletionChunk): boolean {
  const c = chunk as unknown as Record<string, unknown>;
  return (
    !Array.isArray(c.choices) &&
    (c.object === 'error' || c.type === 'error' || (typeof c.message === 'string' && !c.usage))
  );
}

interface PendingCall {
  id: string;
  name: string;
  pending: string;
  started: boolean;
}

interface StreamState {
  calls: PendingCall[];
  /** The call currently assembled at each index. */
  byIndex: Map<number, PendingCall>;
  finish: string | undefined;
  usage: ChatCompletionChunk['usage'] | undefined;
  nextId: number;
}

/**
 * A chunk's delta as compatible servers send it: reasoning comes as `reasoning_content` (DeepSeek, GLM, Qwen) or
 * `reasoning` (vLLM, Ollama).
 */
type Delta = ChatCompletionChunk.Choice.Delta & { reasoning_content?: string | null; reasoning?: string | null };

function onChunk(chunk: ChatCompletionChunk, builder: ResponseBuilder, state: StreamState): void {
  if (chunk.usage) state.usage = chunk.usage;
  const choice = chunk.choices?.[0]; // the usage chunk has no choices
  if (!choice) return;
  const d = (choice.delta ?? {}) as Delta;
  const reasoning = d.reasoning_content ?? d.reasoning;
  if (typeof reasoning === 'string') builder.reasoningDelta(reasoning);
  if (typeof d.content === 'string') builder.textDelta(d.content);
  for (const [pos, tc] of (d.tool_calls ?? []).entries()) {
    const index = typeof tc.index === 'number' ? tc.index : pos;
    let call = state.byIndex.get(index);
    // Some servers reuse index 0 for every call: a new id with a name starts a new call.
    if (!call || (tc.id && call.started && tc.id !== call.id && tc.function?.name)) {
      call = { id: tc.id || `call_${state.nextId}`, name: '', pending: '', started: false };
      state.nextId++;
      state.byIndex.set(index, call);
      state.calls.push(call);
    } else if (tc.id && !call.started) call.id = tc.id;
    if (tc.function?.name && !call.started) call.name += tc.function.name;
    const args = tc.function?.arguments;
    if (!call.started && call.name) startCall(call, builder);
    if (args) {
      if (call.started) builder.toolDelta(call.id, args);
      else call.pending += args;
    }
  }
  if (choice.finish_reason) state.finish = choice.finish_reason;
}

function startCall(call: PendingCall, builder: ResponseBuilder): void {
  call.started = true;
  builder.toolStart(call.id, call.name);
  if (call.pending) builder.toolDelta(call.id, call.pending);
  call.pending = '';
}

/** Maps an OpenAI finish reason onto ours. Servers that answer `stop` after tool calls (Ollama, vLLM) get `tool-calls`. */
export function mapFinishReason(reason: string, hasToolCalls: boolean): FinishReason {
  switch (reason) {
    case 'stop':
      return hasToolCalls ? 'tool-calls' : 'stop';
    case 'length':
      return 'length';
    case 'tool_calls':
    case 'function_call':
      return 'tool-calls';
    case 'content_filter':
      return 'content-filter';
    case 'insufficient_system_resource':
      return 'error';
    default:
      return 'other';
  }
}

/**
 * Our tokens from an OpenAI usage object: `input` excludes cached prompt tokens (OpenAI `cached_tokens`, DeepSeek
 * `prompt_cache_hit_tokens`).
 */
export function openAITokens(u: NonNullable<ChatCompletionChunk['usage']>): Tokens {
  const x = u as typeof u & {
    prompt_cache_hit_tokens?: number;
    prompt_tokens_details?: { cached_tokens?: number; cache_write_tokens?: number } | null;
  };
  const prompt = u.prompt_tokens ?? 0;
  const read = x.prompt_tokens_details?.cached_tokens ?? x.prompt_cache_hit_tokens ?? 0;
  const write = x.prompt_tokens_details?.cache_write_tokens ?? 0;
  return {
    input: Math.max(0, prompt - read - write),
    output: u.completion_tokens ?? 0,
    reasoning: u.completion_tokens_details?.reasoning_tokens ?? 0,
    cache: { read, write },
  };
}
