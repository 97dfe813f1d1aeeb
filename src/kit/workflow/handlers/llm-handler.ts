import type {
  ActionResult,
  Decision,
  ModelMessage,
  ModelRequest,
  ModelToolResultPart,
  ResponsePart,
} from '../../../core/index.js';
import { addTokens, emptyTokens, toolSpec } from '../../../core/index.js';
import { estimateTokens, summariseProcessor } from '../context-processor.js';
import { frozenRecord } from '../frozen-record.js';
import { llmNodeModelId } from '../nodes/llm-node-config.js';
import { renderTemplate } from '../render-template.js';
import { WorkflowError } from '../workflow-error.js';
import type { NodeHandler, NodeOf } from './node-handler.js';
import { isUserTool, userToolList } from './node-host.js';
import type { NodeStep } from './node-step.js';

type LLMNode = NodeOf<'llm'>;

/** What one model turn of an LLM node hands from DECIDE to REDUCE. */
export interface LLMTurn {
  response: { parts: ResponsePart[]; usage: Parameters<typeof addTokens>[0] };
  /** The node's rendered user prompt, on its first turn. */
  userText: string | undefined;
  /** Results of the calls the model may not make here (they never run): errors it sees next turn. */
  refused: ModelToolResultPart[];
  /** How many tool calls the model asked for, refused ones included. */
  calls: number;
  /** The thread's conversation, summarised before this turn because the turn would have passed `tokenLimit`. */
  context?: ModelMessage[];
  summarised?: { before: number; after: number };
}

/**
 * An LLM node: the model-with-tools loop. Each engine step is one model turn (`ctx.callModel`: the system prompt,
 * the thread's conversation, the node's turns so far, only its `availableTools`) that acts on the calls it asked for;
 * the node stays current while the model keeps calling tools, up to `maxIterations` turns, and its last text goes
 * to `output`. A turn that would pass `tokenLimit` summarises the thread's conversation first.
 */
export const llmHandler: NodeHandler<LLMNode, LLMTurn> = {
  check(node, host) {
    if (node.toolMode !== 'none')
      for (const id of node.availableTools)
        if (!isUserTool(host, id))
          throw new WorkflowError(
            `node "${node.id}": availableTools: there is no tool "${id}"; registered: ${userToolList(host)}`,
            { nodeId: node.id, field: 'availableTools' },
          );
    if (node.model && !host.resolveModel)
      throw new WorkflowError(
        `node "${node.id}": model: "${llmNodeModelId(node)}" needs a resolveModel option on the WorkflowAgent`,
        { nodeId: node.id, field: 'model' },
      );
  },
  decide: modelTurn,
  reduce: reduceTurn,
};

/** One model turn of an LLM node: the thread's context, the node's turns so far, the tools it may use. */
async function modelTurn(node: LLMNode, s: NodeStep): Promise<{ decision: Decision; work: LLMTurn }> {
  const { thread: t, ctx, host } = s;
  const active = t.active?.node === node.id ? t.active : null;
  const userText = active ? undefined : renderTemplate(node.userPrompt, t.vars, node.id);
  const turns: ModelMessage[] = active
    ? active.messages
    : [{ role: 'user', content: [{ type: 'text', text: userText! }] }];
  let context = t.context;
  let summarised: { before: number; after: number } | undefined;
  if (context.length && estimateTokens([...context, ...turns]) > node.tokenLimit) {
    const before = estimateTokens(context);
    context = await summariseProcessor(context, {
      nodeId: node.id,
      config: {},
      vars: t.vars,
      callModel: ctx.callModel,
      signal: ctx.signal,
      onFallback: (f) => ctx.emit('summary_fallback', { node: node.id, ...f }),
    });
    summarised = { before, after: estimateTokens(context) };
  }
  const iteration = (active?.iteration ?? 0) + 1;
  const request = turnRequest(node, s, [...context, ...turns], iteration);
  const modelId = llmNodeModelId(node);
  const model = modelId ? host.resolveModel!(modelId) : undefined;
  // stream: the reply's deltas reach hooks and Engine.stream as model_events, announced by the node that streams
  if (node.stream) ctx.emit('llm_stream', { node: node.id, iteration });
  const response = await ctx.callModel(request, {
    purpose: `workflow:${node.id}`,
    signal: ctx.signal,
    stream: node.stream,
    ...(model ? { model } : {}),
  });
  if (summarised)
    ctx.emit('context_summarised', { node: node.id, tokensBefore: summarised.before, tokensAfter: summarised.after });
  ctx.emit('llm_call', {
    node: node.id,
    iteration,
    model: response.modelId ?? model?.id ?? null,
    finishReason: response.finishReason,
    toolCalls: response.parts.filter((p) => p.type === 'tool-call').length,
  });
  ctx.emit('token_usage', { node: node.id, tokens: response.usage, cost: response.cost });
  const calls = response.parts.filter((p): p is Extract<ResponsePart, { type: 'tool-call' }> => p.type === 'tool-call');
  const allowed = calls.filter((c) => c.args && node.toolMode !== 'none' && node.availableTools.includes(c.name));
  const refused = calls.filter((c) => !allowed.includes(c)).map((c) => refusal(node, c));
  const work: LLMTurn = {
    response: { parts: response.parts, usage: response.usage },
    userText,
    refused,
    calls: calls.length,
    ...(summarised ? { context, summarised } : {}),
  };
  const why = `llm node "${node.id}" turn ${iteration}`;
  return {
    decision: allowed.length
      ? { mode: 'act', actions: allowed.map((c) => ({ id: c.callId, name: c.name, args: c.args! })), rationale: why }
      : { mode: 'wait', rationale: why },
    work,
  };
}

/** The request of one turn: the node's system prompt, then `messages`, the tools it may use, its sampling. */
function turnRequest(node: LLMNode, s: NodeStep, messages: ModelMessage[], iteration: number): ModelRequest {
  const vars = s.thread.vars;
  const tools = node.toolMode === 'none' ? [] : node.availableTools.map((id) => toolSpec(s.host.tools.get(id)!));
  return {
    messages: [
      ...(node.systemPrompt
        ? [{ role: 'system' as const, content: renderTemplate(node.systemPrompt, vars, node.id) }]
        : []),
      ...messages,
    ],
    ...(tools.length
      ? {
          tools,
          toolChoice: node.toolMode === 'required' && iteration === 1 ? ('required' as const) : ('auto' as const),
        }
      : {}),
    ...(node.temperature !== undefined ? { temperature: node.temperature } : {}),
    ...(node.maxTokens !== undefined ? { maxOutputTokens: node.maxTokens } : {}),
  };
}

/** The error result the model gets for a call it may not make here (not a JSON object, or a tool not offered). */
function refusal(node: LLMNode, c: Extract<ResponsePart, { type: 'tool-call' }>): ModelToolResultPart {
  return {
    type: 'tool-result',
    callId: c.callId,
    name: c.name,
    isError: true,
    output: !c.args
      ? `the arguments of ${c.name} are not a JSON object: ${c.input.slice(0, 200)}`
      : `tool "${c.name}" is not available here; ` +
        `available: ${node.toolMode === 'none' ? '(none)' : node.availableTools.join(', ') || '(none)'}`,
  };
}

/**
 * REDUCE of a turn: the reply and the calls' results join the node's turns; while the model called tools and turns
 * are left the node stays current (`thread.active`), else its turns join the thread's conversation and it ends.
 */
function reduceTurn(
  node: LLMNode,
  s: NodeStep,
  p: LLMTurn | undefined,
  _decision: Decision,
  results: readonly ActionResult[],
): void {
  if (!p) return; // DECIDE did not run this step (a forced decision): the turn is taken again next step
  const t = s.thread;
  const active = t.active?.node === node.id ? t.active : null;
  const text = p.response.parts.map((x) => (x.type === 'text' ? x.text : '')).join('');
  const assistant: ModelMessage = {
    role: 'assistant',
    content: [
      ...(text ? [{ type: 'text' as const, text }] : []),
      ...p.response.parts.flatMap((x) =>
        x.type === 'tool-call'
          ? [{ type: 'tool-call' as const, callId: x.callId, name: x.name, args: x.args ?? {} }]
          : [],
      ),
    ],
  };
  const messages: ModelMessage[] = [
    ...(active
      ? active.messages
      : [{ role: 'user' as const, content: [{ type: 'text' as const, text: p.userText! }] }]),
    assistant,
  ];
  const toolParts: ModelToolResultPart[] = [
    ...results.map((r): ModelToolResultPart => ({
      type: 'tool-result',
      callId: r.actionId,
      name: r.name,
      output: r.status === 'success' ? String(r.output) : (r.error ?? 'the call failed'),
      isError: r.status !== 'success',
    })),
    ...p.refused,
  ];
  if (toolParts.length) messages.push({ role: 'tool', content: toolParts });
  if (p.context) t.context = p.context;
  t.tokens[node.id] = addTokens(t.tokens[node.id] ?? emptyTokens(), p.response.usage);
  const iteration = (active?.iteration ?? 0) + 1;
  const tokens = addTokens(active?.tokens ?? emptyTokens(), p.response.usage);
  const toolCalls = (active?.toolCalls ?? 0) + p.calls;
  const summarised = p.summarised ? { summarised: p.summarised } : {};
  if (p.calls > 0 && iteration < node.maxIterations) {
    t.active = { node: node.id, iteration, messages, text, toolCalls, tokens };
    if (p.summarised)
      t.completed.push(
        frozenRecord({
          node: node.id,
          kind: 'context',
          step: s.ctx.step,
          status: 'done',
          inputs: { tokenLimit: node.tokenLimit },
          outputs: summarised,
          attempts: 1,
        }),
      );
    return;
  }
  t.active = null;
  t.context = [...t.context, ...messages];
  t.vars[node.output ?? node.id] = text;
  const first = messages[0];
  const prompt = first.role === 'user' && first.content[0]?.type === 'text' ? first.content[0].text : '';
  s.finish(
    node,
    {
      status: 'done',
      inputs: { userPrompt: prompt },
      outputs: {
        text,
        iterations: iteration,
        toolCalls,
        stoppedBy: p.calls > 0 ? 'maxIterations' : 'answer',
        ...summarised,
      },
      tokens,
    },
    s.next(node),
  );
}
