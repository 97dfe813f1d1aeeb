import type { HookEvent, ModelCall, ModelMiddleware, ModelMessage, ModelRequest, State } from '../core/index.js';
import { ModelError, addCost, addTokens, errorMessage } from '../core/index.js';
import { sideCallHashes } from '../trace/side-call-hashes.js';
import { policyContext } from './policy-context.js';
import { withState, type RunServices, type RunStart, type RunState } from './run-context.js';

/**
 * The run's accounting, innermost of the engine's own middleware: every call's tokens and cost go into the run's
 * usage (and, through the parent link, into the parent's), its wall time into the call's log. A call that is not
 * the step's own (`callModel`) is reported as a `model_call` event with its response, so the trace holds it and
 * a replay can serve it again.
 */
export function accountingMiddleware(
  run: Pick<RunState, 'step' | 'usage' | 'usageByPurpose' | 'lastStepTokens'>,
  services: Pick<RunServices, 'parent' | 'events'>,
): ModelMiddleware {
  return async (call, next) => {
    const t0 = performance.now();
    let response;
    try {
      response = await next(call);
    } catch (err) {
      if (call.purpose !== 'decide')
        services.events.emit(callEvent(run.step, call, performance.now() - t0, { error: errorMessage(err) }));
      throw err;
    }
    const latencyMs = Math.round((performance.now() - t0) * 1000) / 1000;
    call.log.timed(latencyMs);
    run.usage = {
      tokens: addTokens(run.usage.tokens, response.usage),
      cost: addCost(run.usage.cost, response.cost),
      modelCalls: run.usage.modelCalls + 1,
    };
    services.parent?.spend?.(response.usage, response.cost, 1);
    if (call.purpose === 'decide') run.lastStepTokens = response.usage;
    else {
      const side = run.usageByPurpose[call.purpose];
      run.usageByPurpose[call.purpose] = side
        ? {
            tokens: addTokens(side.tokens, response.usage),
            cost: addCost(side.cost, response.cost),
            modelCalls: side.modelCalls + 1,
          }
        : { tokens: { ...response.usage, cache: { ...response.usage.cache } }, cost: response.cost, modelCalls: 1 };
      services.events.emit(callEvent(run.step, call, latencyMs, { response }));
    }
    return response;
  };
}

function callEvent(
  step: number,
  call: ModelCall,
  latencyMs: number,
  outcome: Pick<Extract<HookEvent, { type: 'model_call' }>, 'response' | 'error'>,
): HookEvent {
  return {
    type: 'model_call',
    step,
    purpose: call.purpose,
    model: call.model.id,
    latencyMs,
    attempts: call.log.attempts,
    hashes: sideCallHashes(call.request),
    ...outcome,
  };
}

/**
 * Policies on the model path (`decide` calls only): each policy's `beforeModel` may rewrite the messages or
 * replace the state (the messages are then rebuilt from the new history); a model error goes to each policy's
 * `onModelError`, and the first that returns a state gets the call made once more with it (compaction after a
 * context-overflow error).
 */
export function policyMiddleware<S extends State>(start: RunStart<S>, services: RunServices<S>): ModelMiddleware {
  const before = services.policies.filter((p) => p.beforeModel);
  const onError = services.policies.filter((p) => p.onModelError);
  return async (call, next) => {
    // Policies work on the history: a call before the run has its state has none to rewrite.
    if (call.purpose !== 'decide' || start.state === undefined) return next(call);
    const run = withState(start, start.state);
    const rewritten = before.length ? await beforeModel(run, call) : call;
    try {
      return await next(rewritten);
    } catch (err) {
      if (!ModelError.isInstance(err) || !(await stateFromPolicy(run, err))) throw err;
      const { system, tools, params } = partsOf(call.request);
      const rebuilt = services.input.build(system, run.state.messages);
      const request: ModelRequest = { ...call.request, messages: rebuilt.messages };
      return next({
        ...call,
        request,
        requestHashes: services.input.hashes({
          system,
          messages: rebuilt.messages,
          messagesHash: rebuilt.messagesHash,
          tools,
          params,
        }),
      });
    }
  };

  /**
   * Runs the policies in order. Messages a policy appends (e.g. a doom-loop note) are kept when a later policy
   * rewrites the history (compaction): they are re-appended to the rebuilt messages, so policy order cannot drop them.
   */
  async function beforeModel(run: RunState<S>, call: ModelCall): Promise<ModelCall> {
    const { system, tools, params } = partsOf(call.request);
    let messages = call.request.messages;
    let messagesHash: string | undefined;
    let changed = false;
    let rewritten = false;
    let appended: ModelMessage[] = [];
    for (const policy of before) {
      const r = await policy.beforeModel!(messages, policyContext({ run, services }));
      if (r?.state) {
        run.state = r.state;
        ({ messages, messagesHash } = services.input.build(system, run.state.messages));
        changed = true;
        rewritten = appended.length > 0;
        if (rewritten) messages = [...messages, ...appended];
      }
      if (r?.messages) {
        const prefix = r.messages.length >= messages.length && messages.every((m, i) => r.messages![i] === m);
        appended = prefix ? [...appended, ...r.messages.slice(messages.length)] : [];
        messages = r.messages;
        changed = rewritten = true;
      }
    }
    if (!changed) return call;
    const requestHashes = services.input.hashes({
      system,
      messages,
      messagesHash: rewritten ? undefined : messagesHash,
      tools,
      params,
    });
    return { ...call, request: { ...call.request, messages }, requestHashes };
  }

  /** Asks each policy's onModelError in turn; the first that returns a state (e.g. compacted) wins. */
  async function stateFromPolicy(run: RunState<S>, err: ModelError): Promise<boolean> {
    for (const policy of onError) {
      const r = await policy.onModelError!(err, policyContext({ run, services }));
      if (!r) continue;
      run.state = r.state;
      return true;
    }
    return false;
  }
}

/**
 * After the user's middleware: a model-path call's hashes are made again from the request it now carries, so the
 * trace (and a replay's drift check) describes what the model received, whatever a middleware rewrote.
 */
export function sentHashesMiddleware(services: Pick<RunServices, 'input'>): ModelMiddleware {
  return (call, next) =>
    call.purpose === 'decide' ? next({ ...call, requestHashes: services.input.hashesOf(call.request) }) : next(call);
}

/** A model-path request's system prompt, tools and sampling params (what its hashes are made of). */
function partsOf(request: ModelRequest): {
  system: string | undefined;
  tools: ModelRequest['tools'];
  params: Record<string, unknown>;
} {
  const { messages, tools, ...params } = request;
  return { system: messages[0]?.role === 'system' ? messages[0].content : undefined, tools, params };
}
