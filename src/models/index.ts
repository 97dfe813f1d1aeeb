import '../core/zod-version.js'; // first: a zod older than 4 stops here with the fix, not deep inside another module
export { ScriptedModel, type ScriptReply, type ScriptedModelOptions } from './scripted-model.js';
export {
  OpenAICompatibleModel,
  mapFinishReason,
  openAITokens,
  type OpenAICompatibleOptions,
} from './openai-compatible.js';
export { toOpenAIMessages, toOpenAITools, toOpenAIToolChoice } from './openai-messages.js';
export { AnthropicModel, mapStopReason, type AnthropicOptions } from './anthropic.js';
export {
  toAnthropicPrompt,
  toAnthropicTools,
  toAnthropicToolChoice,
  type AnthropicPrompt,
} from './anthropic-messages.js';
export { createModel, modelFromConfig, type CreateModelOptions } from './create-model.js';
export type { ProviderOptions } from './provider-options.js';
export { ModelConfig } from './model-config.js';
export { ModelConfigError } from './model-config-error.js';
export { providerPresets, knownModel, type ProviderPreset, type KnownModel } from './presets.js';
export { ModelPrice, PricingTable, defaultPricing, priceFor, computeCost } from './pricing.js';
export {
  callWithRetry,
  backoffDelay,
  parseRetryAfter,
  retryDelay,
  type RetryOptions,
  type RetryInfo,
  type AttemptContext,
  type CallOptions,
} from './retry.js';
export { retryMiddleware, type RetryMiddlewareOptions } from './retry-middleware.js';
export { ProviderModel } from './provider-model.js';
export { streamReply, type StreamReplySpec } from './stream-reply.js';
export { consumeStream, type SdkStream } from './consume-stream.js';
export { ProviderError } from './provider-error.js';
export { classifyProviderError, isContextOverflowText, type SdkErrorClasses } from './classify-provider-error.js';
export { ResponseBuilder, parseArgs } from './response-builder.js';
export { modelIdCandidates } from './model-id-candidates.js';
export { ProviderWire, type WireProtocol } from './provider-wire.js';
export {
  hashingEmbedder,
  hashText,
  openAIEmbedder,
  transformersEmbedder,
  type HashingEmbedderOptions,
  type OpenAIEmbedderOptions,
  type TransformersEmbedderOptions,
} from './embedders/index.js';
