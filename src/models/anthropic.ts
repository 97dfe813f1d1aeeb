import type Anthropic from '@anthropic-ai/sdk';
import type {
  MessageCreateParamsStreaming,
  RawMessageStreamEvent,
} from '@anthropic-ai/sdk/resources/messages/messages';
import type { FinishReason, GenerateOptions, ModelRequest, ModelResponse, Tokens } from '../core/index.js';
import { toAnthropicPrompt, toAnthropicToolChoice, toAnthropicTools } from './anthropic-messages.js';
import { classifyProviderError } from './classify-provider-error.js';
import { computeCost, type ModelPrice } from './pricing.js';
import { ModelConfigError } from './model-config-error.js';
import { checkProviderOptions, configuredPrice, providerModelInfo, type ProviderOptions } from './provider-options.js';
import { ProviderError } from './provider-error.js';
import { ProviderModel } from './provider-model.js';
import type { ResponseBuilder } from './response-builder.js';
import { streamReply } from './stream-reply.js';

/** Options of an Anthropic model. Exactly one of `apiKey` and `authToken` is needed. */
export interface AnthropicOptions extends ProviderOptions {
  /** Model id, e.g. `claude-sonnet-4-5`. */
  model: string;
  apiKey?: string;
  /** A bearer token instead of an API key (gateways, `ANTHROPIC_AUTH_TOKEN`). */
  authToken?: string;
  /** Default `https://api.anthropic.com`. */
  baseURL?: string;
  /** `max_tokens` when a request sets no `maxOutputTokens` (default: the model's known output limit, else 8192). */
  defaultMaxTokens?: number;
  /** Put prompt-cache breakpoints on the system prompt and the last two turns (default true). */
  cache?: boolean;
}

/**
 * A Claude model through the Anthropic messages API, streamed with `@anthropic-ai/sdk`: text, thinking blocks
 * (with signatures, passed back on the next turn), redacted thinking, tool use with streamed JSON input, and
 * cache read/write token counts. Retries and timeouts are the model's retry middleware (`ProviderModel`), error
 * classification is ours; the SDK's are off.
 */
export class AnthropicModel extends ProviderModel {
  /** The SDK and its client, loaded on the first call: importing qitos-ts does not load a provider SDK it never uses. */
  private sdk: Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> | undefined;
  private readonly price: ModelPrice | undefined;

  constructor(private readonly options: AnthropicOptions) {
    const id = `anthropic:${options.model}`;
    if (!options.apiKey && !options.authToken)
      throw new ModelConfigError('AnthropicModel needs an apiKey or an authToken (set ANTHROPIC_API_KEY)');
    checkProviderOptions(id, options);
    super(
      id,
      providerModelInfo('anthropic', options.model, options, options.baseURL ?? 'https://api.anthropic.com'),
      options,
    );
    if (
      options.defaultMaxTokens !== undefined &&
      !(Number.isInteger(options.defaultMaxTokens) && options.defaultMaxTokens > 0)
    ) {
      throw new ModelConfigError(
        `${this.id}: invalid option: defaultMaxTokens must be an integer >= 1, got ${String(options.defaultMaxTokens)}`,
      );
    }
    this.price = configuredPrice('anthropic', options.model, options);
  }

  private loadSdk(): Promise<{ Anthropic: typeof Anthropic; client: Anthropic }> {
    const options = this.options;
    return (this.sdk ??= import('@anthropic-ai/sdk').then(({ default: Anthropic }) => ({
      Anthropic,
      client: new Anthropic({
        // Passing the credential (and null for the other) keeps the SDK from reading process.env behind our back.
        ...(options.apiKey
          ? { apiKey: options.apiKey, authToken: null }
          : { authToken: options.authToken, apiKey: null }),
        baseURL: options.baseURL ?? 'https://api.anthropic.com',
        ...ProviderModel.clientOptions(options),
      }),
    })));
  }

  /** The request body sent for `request`. */
  body(request: ModelRequest): MessageCreateParamsStreaming {
    const { system, messages } = toAnthropicPrompt(request.messages, { cache: this.options.cache !== false });
    // temperature/top_p are no longer in the SDK's types (newer models reject them); sent only when asked for.
    const body: MessageCreateParamsStreaming & { temperature?: number; top_p?: number } = {
      model: this.options.model,
      max_tokens: request.maxOutputTokens ?? this.options.defaultMaxTokens ?? this.options.maxOutputTokens ?? 8192,
      messages,
      stream: true,
    };
    if (system) body.system = system;
    if (request.tools?.length) {
      body.tools = toAnthropicTools(request.tools);
      if (request.toolChoice) body.tool_choice = toAnthropicToolChoice(request.toolChoice);
    }
    if (request.temperature !== undefined) body.temperature = request.temperature;
    if (request.topP !== undefined) body.top_p = request.topP;
    if (request.stop?.length) body.stop_sequences = request.stop;
    // provider options may add or override fields, but not turn streaming off: the reply is read as a stream
    return { ...body, ...request.providerOptions, stream: true } as MessageCreateParamsStreaming;
  }

  async attempt(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse> {
    const body = this.body(request);
    const { Anthropic, client } = await this.loadSdk();
    const state: StreamState = {
      blocks: new Map(),
      stop: undefined,
      stopped: false,
      usage: { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } },
      model: undefined,
    };
    return streamReply<RawMessageStreamEvent>({
      signal: options.signal,
      onEvent: options.onEvent,
      open: (signal) => client.messages.create(body, { signal }),
      onChunk: (ev, builder) => onEvent(ev, builder, state, this.id),
      finish: (builder) => {
        if (!state.stopped) throw new ProviderError('transport', `${this.id}: the stream ended before message_stop`);
        return builder.finish(mapStopReason(state.stop), state.usage, computeCost(state.usage, this.price), this.id);
      },
      classify: (err) => classifyProviderError(err, this.id, Anthropic, this.endpoint),
      failure: `${this.id}: failed to handle a stream event`,
    });
  }
}

interface StreamState {
  /** Open content blocks by index: their type and, for tool use, the call id. */
  blocks: Map<number, { type: string; callId?: string }>;
  stop: string | null | undefined;
  stopped: boolean;
  usage: Tokens;
  model: string | undefined;
  /** The id of the message_start seen (another id means two streams were spliced together). */
  messageId?: string;
}

type UsageLike = {
  input_tokens?: number | null;
  output_tokens?: number | null;
  cache_read_input_tokens?: number | null;
  cache_creation_input_tokens?: number | null;
  output_tokens_details?: { thinking_tokens?: number } | null;
};

/**
 * Feeds one stream event into the builder. What breaks the protocol in a way that could pass cut or mixed tool
 * input off as a call (a message_start for another message, a tool block the message stops without closing) is a transport
 * error: the attempt is void (and retried like a cut stream).
 */
function onEvent(ev: RawMessageStreamEvent, b: ResponseBuilder, s: StreamState, id: string): void {
  switch (ev.type) {
    case 'message_start':
      // A repeat of the open message's start (some proxies resend it) adds nothing: ignored, as vercel/ai does.
      if (s.messageId === ev.message.id) return;
      if (s.messageId !== undefined)
        throw new ProviderError(
          'transport',
          `${id}: protocol error: a second message_start in one stream (${ev.message.id}, while ${s.messageId} is open)`,
        );
      s.messageId = ev.message.id;
      s.model = ev.message.model;
      applyUsage(s.usage, ev.message.usage as UsageLike);
      return;
    case 'content_block_start': {
      const block = ev.content_block;
      if (block.type === 'text') {
        s.blocks.set(ev.index, { type: 'text' });
        b.textDelta(block.text);
      } else if (block.type === 'thinking') {
        s.blocks.set(ev.index, { type: 'thinking' });
        b.openReasoning();
        b.reasoningDelta(block.thinking);
        if (block.signature) b.reasoningSignature(block.signature);
      } else if (block.type === 'redacted_thinking') {
        s.blocks.set(ev.index, { type: 'redacted_thinking' });
        b.redactedReasoning(block.data);
      } else if (block.type === 'tool_use') {
        s.blocks.set(ev.index, { type: 'tool_use', callId: block.id });
        b.toolStart(block.id, block.name);
        // Some servers put the whole input in the start block instead of streaming it.
        if (block.input && typeof block.input === 'object' && Object.keys(block.input).length)
          b.toolDelta(block.id, JSON.stringify(block.input));
      } else s.blocks.set(ev.index, { type: block.type });
      return;
    }
    case 'content_block_delta': {
      const block = s.blocks.get(ev.index);
      const d = ev.delta;
      if (d.type === 'text_delta') b.textDelta(d.text);
      else if (d.type === 'thinking_delta') b.reasoningDelta(d.thinking);
      else if (d.type === 'signature_delta') b.reasoningSignature(d.signature);
      else if (d.type === 'input_json_delta' && block?.callId) b.toolDelta(block.callId, d.partial_json);
      return;
    }
    case 'content_block_stop': {
      const block = s.blocks.get(ev.index);
      if (block?.type === 'thinking') b.endReasoning();
      else if (block?.callId) b.toolEnd(block.callId);
      s.blocks.delete(ev.index);
      return;
    }
    case 'message_delta':
      if (ev.delta.stop_reason) s.stop = ev.delta.stop_reason;
      applyUsage(s.usage, ev.usage as UsageLike);
      return;
    case 'message_stop': {
      const open = [...s.blocks.values()].find((x) => x.callId);
      if (open)
        throw new ProviderError(
          'transport',
          `${id}: protocol error: tool call ${open.callId} was not closed before message_stop`,
        );
      s.stopped = true;
      return;
    }
  }
}

/** Folds an Anthropic usage object into ours; later events repeat or update counts, so non-null values replace. */
function applyUsage(t: Tokens, u: UsageLike | null | undefined): void {
  if (!u) return;
  if (typeof u.input_tokens === 'number') t.input = u.input_tokens;
  if (typeof u.output_tokens === 'number') t.output = u.output_tokens;
  if (typeof u.cache_read_input_tokens === 'number') t.cache.read = u.cache_read_input_tokens;
  if (typeof u.cache_creation_input_tokens === 'number') t.cache.write = u.cache_creation_input_tokens;
  if (typeof u.output_tokens_details?.thinking_tokens === 'number')
    t.reasoning = u.output_tokens_details.thinking_tokens;
}

/** Maps Anthropic's stop reason onto ours. */
export function mapStopReason(reason: string | null | undefined): FinishReason {
  switch (reason) {
    case 'end_turn':
    case 'stop_sequence':
      return 'stop';
    case 'max_tokens':
    case 'model_context_window_exceeded':
      return 'length';
    case 'tool_use':
      return 'tool-calls';
    case 'refusal':
      return 'content-filter';
    default:
      return 'other';
  }
}
