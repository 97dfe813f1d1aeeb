import type { AssistantMessage, Decision, ModelMessage, ModelResponse, ModelStreamEvent, Part, State, ToolPart, UserMessage } from '../core/index.js';
import { ModelError, ParseError, QitosError, addCost, addTokens, errorMessage, newId } from '../core/index.js';
import type { RunContext } from './run-context.js';

/**
 * DECIDE on the model path: system prompt + history + `agent.prepare`, then each policy's `beforeModel`,
 * then `model.generate` (streamed; events go to hooks and the trace), then the parser.
 * The reply is appended to the history as an assistant message with parts; a reply the parser rejects
 * is kept in the history and the ParseError is thrown for RECOVER to feed back.
 */
export async function decideWithModel<S extends State>(rc: RunContext<S>, observation: unknown): Promise<Decision> {
  const { agent } = rc;
  const model = rc.model;
  if (!model) throw new QitosError('internal', `agent "${agent.name}" returned no decision and has no model: pass a model, or return a Decision from decide()`);
  const parser = agent.parser;
  if (!parser) throw new QitosError('internal', `agent "${agent.name}" takes the model path but has no parser`);

  const system = agent.buildSystemPrompt(rc.state);
  const userText = agent.prepare(rc.state, observation);
  if (userText) rc.state.messages.push(userMessage(rc, userText, system));

  const tools = parser.native && agent.tools.size ? agent.tools.specs() : undefined;
  let { messages, messagesHash } = rc.input.build(system, rc.state.messages);
  // Policies run in order. Messages a policy appends (e.g. a doom-loop note) are kept when a later policy rewrites
  // the history (compaction): they are re-appended to the rebuilt messages, so policy order cannot drop them.
  let rewritten = false;
  let appended: ModelMessage[] = [];
  for (const policy of rc.policies) {
    if (!policy.beforeModel) continue;
    const r = await policy.beforeModel(messages, rc.policyContext());
    if (r?.state) {
      rc.state = r.state;
      ({ messages, messagesHash } = rc.input.build(system, rc.state.messages));
      rewritten = appended.length > 0;
      if (rewritten) messages = [...messages, ...appended];
    }
    if (r?.messages) {
      const prefix = r.messages.length >= messages.length && messages.every((m, i) => r.messages![i] === m);
      appended = prefix ? [...appended, ...r.messages.slice(messages.length)] : [];
      messages = r.messages;
      rewritten = true;
    }
  }

  const params = agent.modelParams;
  let hashes = rc.input.hashes({ system, messages, messagesHash: rewritten ? undefined : messagesHash, tools, params });
  const reasoningTimes: Array<{ start: number; end?: number }> = [];
  const onEvent = (event: ModelStreamEvent) => {
    if (event.type === 'reasoning-start') reasoningTimes.push({ start: Date.now() });
    else if (event.type === 'reasoning-end' && reasoningTimes.length) reasoningTimes[reasoningTimes.length - 1].end = Date.now();
    rc.emit({ type: 'model_event', step: rc.step, event });
  };

  const t0 = performance.now();
  const created = Date.now();
  let response: ModelResponse;
  try {
    response = await model.generate({ messages, ...(tools ? { tools } : {}), ...params }, { signal: rc.signal, onEvent, requestHashes: hashes });
  } catch (err) {
    // A policy (compaction) may handle a model error once, e.g. a context-length error: retry with its state,
    // and record the request that produced the reply.
    if (!(err instanceof ModelError) || !(await stateFromPolicy(rc, err))) throw err;
    const rebuilt = rc.input.build(system, rc.state.messages);
    messages = rebuilt.messages;
    hashes = rc.input.hashes({ system, messages, messagesHash: rebuilt.messagesHash, tools, params });
    response = await model.generate({ messages, ...(tools ? { tools } : {}), ...params }, { signal: rc.signal, onEvent, requestHashes: hashes });
  }
  const latencyMs = performance.now() - t0;

  rc.usage = { tokens: addTokens(rc.usage.tokens, response.usage), cost: addCost(rc.usage.cost, response.cost), modelCalls: rc.usage.modelCalls + 1 };
  rc.lastStepTokens = response.usage;
  const systemChanged = hashes.system !== rc.recordedSystemHash;
  rc.recordedSystemHash = hashes.system;
  rc.rec.model = { hashes, ...(systemChanged ? { system: system ?? '' } : {}), messageCount: messages.length, response, latencyMs: Math.round(latencyMs * 1000) / 1000 };
  rc.rec.tokens = response.usage;
  rc.rec.cost = response.cost;

  const assistant = assistantMessage(rc, response, created, reasoningTimes);
  rc.state.messages.push(assistant);

  const decision = parser.parse(response, { tools: agent.tools.names, specs: agent.tools.specs() });
  if (decision instanceof ParseError) {
    for (const part of rc.toolParts.values()) failPending(part, decision.message);
    throw decision;
  }
  if (decision.mode === 'act' && !parser.native) {
    for (const action of decision.actions) {
      const part: ToolPart = { id: newId('prt'), type: 'tool', callID: action.id, tool: action.name, origin: 'parsed', state: { status: 'pending', input: action.args, time: { created: Date.now() } } };
      assistant.parts.splice(assistant.parts.length - 1, 0, part);
      rc.toolParts.set(action.id, part);
    }
  }
  return decision;
}

/** Asks each policy's onModelError in turn; the first that returns a state (e.g. compacted) wins. */
async function stateFromPolicy<S extends State>(rc: RunContext<S>, err: ModelError): Promise<boolean> {
  for (const policy of rc.policies) {
    if (!policy.onModelError) continue;
    const r = await policy.onModelError(err, rc.policyContext());
    if (!r) continue;
    rc.state = r.state;
    return true;
  }
  return false;
}

function userMessage<S extends State>(rc: RunContext<S>, text: string, system: string | undefined): UserMessage {
  const tools: Record<string, boolean> = {};
  for (const name of rc.agent.tools.names) tools[name] = true;
  return {
    role: 'user',
    info: { id: newId('msg'), role: 'user', time: { created: Date.now() }, agent: rc.agent.name, ...(rc.model ? { model: rc.model.id } : {}), ...(system ? { system } : {}), tools, ...(rc.agent.variant ? { variant: rc.agent.variant } : {}) },
    parts: [{ id: newId('prt'), type: 'text', text }],
  };
}

function assistantMessage<S extends State>(rc: RunContext<S>, response: ModelResponse, created: number, reasoningTimes: Array<{ start: number; end?: number }>): AssistantMessage {
  const now = Date.now();
  const parts: Part[] = [{ id: newId('prt'), type: 'step-start' }];
  let r = 0;
  for (const p of response.parts) {
    if (p.type === 'text') parts.push({ id: newId('prt'), type: 'text', text: p.text });
    else if (p.type === 'reasoning') {
      const t = p.time ?? reasoningTimes[r] ?? { start: created };
      r++;
      parts.push({ id: newId('prt'), type: 'reasoning', text: p.text, ...(p.signature ? { signature: p.signature } : {}), ...(p.redacted ? { redacted: true } : {}), time: { start: t.start, end: t.end ?? now } });
    } else {
      const part: ToolPart = {
        id: newId('prt'),
        type: 'tool',
        callID: p.callId,
        tool: p.name,
        origin: 'native',
        state: { status: 'pending', input: p.args ?? {}, raw: p.input, time: { created: now } },
      };
      parts.push(part);
      rc.toolParts.set(p.callId, part);
    }
  }
  parts.push({ id: newId('prt'), type: 'step-finish', reason: response.finishReason, tokens: response.usage, cost: response.cost });
  return {
    role: 'assistant',
    info: { id: newId('msg'), role: 'assistant', time: { created, completed: now }, model: response.modelId ?? rc.model?.id, tokens: response.usage, cost: response.cost, finish: response.finishReason },
    parts,
  };
}

function failPending(part: ToolPart, message: string): void {
  if (part.state.status !== 'pending') return;
  const t = Date.now();
  part.state = { status: 'error', input: part.state.input, error: `Not executed: ${errorMessage(message)}`, time: { created: part.state.time.created, start: t, end: t } };
}
