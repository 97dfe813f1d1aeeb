import {
  newModelCall,
  unwrapModel,
  type LayeredModel,
  type ModelCall,
  type ModelMiddleware,
  type ModelNext,
} from './model-call.js';
import type { Model, ModelResponse } from './model.js';

/**
 * Middleware composed around a base model, built once (per run, per wrapped model). `generate(call)` runs a call
 * through each middleware, outermost first; the innermost step, `reachModel`, logs the attempt in the call's log
 * and calls the base model's `generate`. Each call runs through the same composed steps.
 */
export class ModelChain {
  /** steps[i] runs middleware i with steps[i + 1] as its `next`; the last one is `reachModel`. */
  private readonly steps: ModelNext[];

  constructor(
    readonly middleware: readonly ModelMiddleware[],
    readonly base: Model,
  ) {
    const steps: ModelNext[] = new Array(middleware.length + 1);
    steps[middleware.length] = (call) => this.reachModel(call);
    for (let i = middleware.length - 1; i >= 0; i--) {
      const mw = middleware[i];
      const inner = steps[i + 1];
      steps[i] = (call) => mw(call, inner);
    }
    this.steps = steps;
  }

  /** Runs `call` through the middleware to the base model and returns its response. */
  generate(call: ModelCall): Promise<ModelResponse> {
    return this.steps[0](call);
  }

  /** The innermost step: one attempt reaches the base model with the call as the middleware left it. */
  private reachModel(call: ModelCall): Promise<ModelResponse> {
    call.log.attempted(call.request, call.requestHashes);
    return this.base.generate(call.request, {
      signal: call.signal,
      onEvent: call.onEvent,
      requestHashes: call.requestHashes,
      purpose: call.purpose,
    });
  }
}

/** Composes middleware (outermost first) around a base model into one function (a `ModelChain`'s `generate`). */
export function composeModelCall(middleware: readonly ModelMiddleware[], base: Model): ModelNext {
  const chain = new ModelChain(middleware, base);
  return (call) => chain.generate(call);
}

/**
 * A model that runs every `generate` through `middleware` (outermost first) before `model`. Like the AI SDK's
 * `wrapLanguageModel`: the result is a plain Model for a direct caller, and the engine composes its layers into
 * the run's own chain, so run middleware and the model's see the same call.
 */
export function wrapModel(model: Model, middleware: readonly ModelMiddleware[]): LayeredModel {
  const layers = { middleware: [...middleware], base: model };
  const inner = unwrapModel(model);
  const base = inner.base;
  const chain = new ModelChain([...middleware, ...inner.middleware], base);
  return {
    id: model.id,
    ...(model.info ? { info: model.info } : {}),
    layers,
    generate: (request, options) => chain.generate(newModelCall(options?.purpose ?? 'direct', base, request, options)),
  };
}
