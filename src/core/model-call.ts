import type { GenerateOptions, Model, ModelInfo, ModelRequest, ModelResponse, RequestHashes, StreamListener } from './model.js';

/** What every copy of one call shares: what the model finally received, and how many attempts it took. */
export interface ModelCallLog {
  /** The request as the model received it (after every middleware), set by the innermost layer. */
  request?: ModelRequest;
  requestHashes?: RequestHashes;
  /** Attempts made (1 without retries); set by the innermost layer on each attempt. */
  attempts: number;
  /** Wall time of the call in ms, retries included (set by the run's accounting middleware). */
  latencyMs?: number;
}

/**
 * One model call on its way through middleware to a model. A middleware passes a changed copy on
 * (`next({ ...call, request })`); `log` is shared by every copy, so the caller sees what was finally sent.
 */
export interface ModelCall {
  /** Why the call is made: `decide` (the model path), or what its caller names (`mcp-sampling`, `direct`, ...). */
  readonly purpose: string;
  request: ModelRequest;
  signal?: AbortSignal;
  onEvent?: StreamListener;
  /** The engine's hashes of the request parts (a replay model compares them with its recording). */
  requestHashes?: RequestHashes;
  /** Id and info of the model at the end of the chain. */
  readonly model: { readonly id: string; readonly info?: ModelInfo };
  readonly log: ModelCallLog;
}

/** The rest of the chain: call it (at most once per attempt) to get the model's response. */
export type ModelNext = (call: ModelCall) => Promise<ModelResponse>;

/**
 * What wraps a model call: retries, rate limits, cost accounting, caching, logging, request rewriting.
 * `(call, next) => response`, as Hono's middleware or the AI SDK's `wrapLanguageModel`.
 */
export type ModelMiddleware = (call: ModelCall, next: ModelNext) => Promise<ModelResponse>;

/** Options of a call made through a composed chain (`callModel` of tools, policies and agents). */
export interface CallModelOptions extends Omit<GenerateOptions, 'requestHashes' | 'purpose'> {
  /** Names the caller in the trace (default `direct`). */
  purpose?: string;
  /**
   * Another model than the run's (e.g. compaction's summary model): called through the run's accounting and
   * middleware all the same (its own middleware inside), so what it spends counts in the run's usage and budgets.
   */
  model?: Model;
  /**
   * Forward the call's stream events (text and reasoning deltas, tool-input deltas) to the run's hooks and
   * `Engine.stream` as `model_event`s, as a step's own call does (a workflow LLM node with `stream: true`).
   * Ignored when `onEvent` is given: the caller takes the events itself.
   */
  stream?: boolean;
}

/** A model call through the run's middleware, counted in the run's usage and budgets. */
export type CallModel = (request: ModelRequest, options?: CallModelOptions) => Promise<ModelResponse>;

/** A model made of middleware around a base model (`wrapModel`, provider models). The engine flattens it into the run's chain. */
export interface LayeredModel extends Model {
  readonly layers: { readonly middleware: readonly ModelMiddleware[]; readonly base: Model };
}

/** True when `model` carries middleware layers the engine composes into a run's chain. */
export function isLayered(model: Model): model is LayeredModel {
  return typeof (model as Partial<LayeredModel>).layers === 'object' && (model as LayeredModel).layers !== null;
}

/** A model's middleware (outermost first) and the model at its core. */
export function unwrapModel(model: Model): { middleware: ModelMiddleware[]; base: Model } {
  const middleware: ModelMiddleware[] = [];
  let m = model;
  while (isLayered(m)) {
    middleware.push(...m.layers.middleware);
    m = m.layers.base;
  }
  return { middleware, base: m };
}

/** A fresh call of `purpose` for `request`, with the options of a `generate` call. */
export function newModelCall(purpose: string, model: { id: string; info?: ModelInfo }, request: ModelRequest, options: GenerateOptions = {}): ModelCall {
  return { purpose, request, signal: options.signal, onEvent: options.onEvent, requestHashes: options.requestHashes, model, log: { attempts: 0 } };
}

/**
 * Composes middleware (outermost first) around a base model into one function. Built once (per run, per
 * wrapped model); each call then runs through the same chain.
 */
export function composeModelCall(middleware: readonly ModelMiddleware[], base: Model): ModelNext {
  const last: ModelNext = (call) => {
    call.log.request = call.request;
    call.log.requestHashes = call.requestHashes;
    call.log.attempts++;
    return base.generate(call.request, { signal: call.signal, onEvent: call.onEvent, requestHashes: call.requestHashes, purpose: call.purpose });
  };
  let next = last;
  for (let i = middleware.length - 1; i >= 0; i--) {
    const mw = middleware[i];
    const inner = next;
    next = (call) => mw(call, inner);
  }
  return next;
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
  const chain = composeModelCall([...middleware, ...inner.middleware], base);
  return {
    id: model.id,
    ...(model.info ? { info: model.info } : {}),
    layers,
    generate: (request, options) => chain(newModelCall(options?.purpose ?? 'direct', base, request, options)),
  };
}
