import type { GenerateOptions, LayeredModel, Model, ModelInfo, ModelRequest, ModelResponse } from '../core/index.js';
import { ModelChain, newModelCall } from '../core/index.js';
import { attemptLimits, type ProviderOptions } from './provider-options.js';
import { ProviderWire, type WireProtocol } from './provider-wire.js';
import { retryMiddleware } from './retry-middleware.js';

/**
 * What every remote provider model shares: its own `attempt` speaks the wire protocol (one request, one
 * streamed reply, errors classified), and its layers add what wraps a call: retries with backoff and a
 * per-attempt timeout from its options. Called directly it retries; in a run the engine composes the same
 * layers into the run's chain.
 */
export abstract class ProviderModel implements LayeredModel, WireProtocol {
  readonly layers: { readonly middleware: LayeredModel['layers']['middleware']; readonly base: Model };
  private readonly chain: ModelChain;

  protected constructor(
    readonly id: string,
    readonly info: ModelInfo,
    options: ProviderOptions,
  ) {
    const base = new ProviderWire(id, info, this);
    this.layers = { middleware: [retryMiddleware(attemptLimits(options))], base };
    this.chain = new ModelChain(this.layers.middleware, base);
  }

  /** Where requests go, as recorded (no credentials): named in connection errors. */
  protected get endpoint(): string | undefined {
    return this.info.endpoint;
  }

  generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    return this.chain.generate(newModelCall(options.purpose ?? 'direct', this.layers.base, request, options));
  }

  /**
   * The SDK client options every provider sets: the SDK's own retries off (ours are middleware), its timeout
   * past ours so it never fires first, the extra headers.
   */
  protected static clientOptions(options: ProviderOptions): {
    maxRetries: 0;
    timeout: number;
    defaultHeaders?: Record<string, string>;
  } {
    return {
      maxRetries: 0,
      timeout: attemptLimits(options).timeoutMs + 60_000,
      ...(options.headers ? { defaultHeaders: options.headers } : {}),
    };
  }

  /**
   * One attempt in the provider's wire protocol: no retries, no timer of its own (the signal carries both). Its caller
   * is the `ProviderWire` at the base of the chain.
   */
  abstract attempt(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse>;
}
