import type { GenerateOptions, Model, ModelInfo, ModelRequest, ModelResponse } from '../core/index.js';

/** What a provider does in one attempt in its wire protocol (`ProviderModel.attempt`). */
export interface WireProtocol {
  attempt(request: ModelRequest, options: GenerateOptions): Promise<ModelResponse>;
}

/**
 * A provider's wire protocol as the base model of its chain (`layers.base`): `generate` is one attempt, with no
 * retries and no timer of its own (the middleware around it adds both). This is where a chain's innermost step,
 * `ModelChain.reachModel`, enters the provider.
 */
export class ProviderWire implements Model {
  constructor(
    readonly id: string,
    readonly info: ModelInfo,
    private readonly protocol: WireProtocol,
  ) {}

  generate(request: ModelRequest, options: GenerateOptions = {}): Promise<ModelResponse> {
    return this.protocol.attempt(request, options);
  }
}
