import { ModelCallLog } from './model-call-log.js';
import type {
  GenerateOptions,
  Model,
  ModelInfo,
  ModelRequest,
  ModelResponse,
  RequestHashes,
  StreamListener,
} from './model.js';

/**
 * One model call on its way through middleware to a model. A middleware passes a changed copy on
 * (`next({ ...call, request })`); `log` is shared by every copy, so the caller sees what was finally sent (its
 * writers are named in `ModelCallLog`).
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
export function newModelCall(
  purpose: string,
  model: { id: string; info?: ModelInfo },
  request: ModelRequest,
  options: GenerateOptions = {},
): ModelCall {
  return {
    purpose,
    request,
    signal: options.signal,
    onEvent: options.onEvent,
    requestHashes: options.requestHashes,
    model,
    log: new ModelCallLog(),
  };
}
