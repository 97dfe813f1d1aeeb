import type {
  AssistantMessage,
  Decision,
  Env,
  FileOps,
  ModelRequest,
  ModelResponse,
  ModelStreamEvent,
  ModelTurn,
  Part,
  RetryPart,
  State,
  ToolPart,
  UserMessage,
} from '../core/index.js';
import { MAX_JSON_DEPTH, ParseError, QitosError, nestsDeeperThan, newId, newModelCall } from '../core/index.js';
import type { AgentContext } from './agent-module.js';
import { recallMemory, systemWithMemory } from './memory-input.js';
import type { ActiveRun, RunServices, RunState } from './run-context.js';

/**
 * DECIDE on the model path, as one turn: the request is built (system prompt + history + the user message of
 * `agent.prepare`), goes through the run's model chain (policies, accounting, user middleware, the model's own
 * retries) to the model, whose streamed reply becomes an assistant message in the history, and the parser
 * turns it into a Decision or a ParseError. The reply stays in the history either way; the caller records the
 * turn and throws a ParseError into RECOVER.
 */
export async function takeModelTurn<S extends State>(
  { run, services }: ActiveRun<S>,
  observation: unknown,
  ctx: AgentContext,
): Promise<ModelTurn> {
  const { agent, chain, model } = services;
  if (!chain || !model)
    throw new QitosError(
      'internal',
      `agent "${agent.name}" returned no decision and has no model: pass a model, or return a Decision from decide()`,
    );
  const parser = agent.parser;
  if (!parser) throw new QitosError('internal', `agent "${agent.name}" takes the model path but has no parser`);

  // 1. The request.
  const own = agent.buildSystemPrompt(run.state);
  const userText = agent.prepare(run.state, observation, ctx);
  if (userText) run.state.messages.push(userMessage(services, userText, own));
  const recalled =
    services.memoryInput && services.memory
      ? await recallMemory(services.memoryInput, services.memory, run.state, observation)
      : undefined;
  const system = systemWithMemory(own, recalled);
  const tools = parser.native && agent.tools.size ? agent.tools.specs() : undefined;
  const { messages, messagesHash } = services.input.build(system, run.state.messages);
  const params = agent.modelParams;
  const built: ModelRequest = { messages, ...(tools ? { tools } : {}), ...params };
  const hashes = services.input.hashes({ system, messages, messagesHash, tools, params });

  // 2. The response, streamed: events go to hooks, the trace and a stream consumer as they come.
  const listener = new ReplyListener(run, services);
  const created = Date.now();
  const call = newModelCall('decide', model, built, {
    signal: services.signal,
    onEvent: listener.onEvent,
    requestHashes: hashes,
  });
  const response = await chain.generate(call);

  // 3. The reply joins the history.
  const message = assistantMessage(services, response, created, listener);
  run.state.messages.push(message);

  // 4. The decision.
  const parsed = parser.parse(response, { tools: agent.tools.names, specs: agent.tools.specs() });
  // Whatever the parser, a decision nested past the limit would overflow the stack where it is hashed and traced.
  const outcome =
    !ParseError.isInstance(parsed) && nestsDeeperThan(parsed)
      ? new ParseError(
          `the decision nests deeper than ${MAX_JSON_DEPTH} levels of JSON arrays and objects: send flatter arguments`,
        )
      : parsed;
  if (ParseError.isInstance(outcome)) failPendingTools(message, outcome.message);
  else if (outcome.mode === 'act' && !parser.native) addParsedTools(message, outcome);
  return {
    built,
    sent: { request: call.log.request ?? built, hashes: call.log.requestHashes ?? hashes },
    system,
    response,
    latencyMs: call.log.latencyMs ?? 0,
    attempts: call.log.attempts,
    message,
    ...(recalled ? { memory: { query: recalled.query, records: recalled.records } } : {}),
    outcome,
  };
}

/**
 * Watches the turn's stream: forwards every event (returning the consumer's promise, so a slow `Engine.stream`
 * consumer slows the model down), times reasoning blocks, and keeps the retries the retry middleware reports.
 */
class ReplyListener {
  readonly reasoningTimes: Array<{ start: number; end?: number }> = [];
  readonly retries: RetryPart[] = [];

  constructor(
    private readonly run: RunState<State>,
    private readonly services: Pick<RunServices<State>, 'events'>,
  ) {}

  readonly onEvent = (event: ModelStreamEvent): unknown => {
    if (event.type === 'reasoning-start') this.reasoningTimes.push({ start: Date.now() });
    else if (event.type === 'reasoning-end' && this.reasoningTimes.length)
      this.reasoningTimes[this.reasoningTimes.length - 1].end = Date.now();
    else if (event.type === 'retry') {
      this.retries.push({
        id: newId('prt'),
        type: 'retry',
        attempt: event.attempt,
        error: event.error,
        errorKind: event.errorKind,
        delayMs: event.delayMs,
        time: { created: Date.now() },
      });
    }
    return this.services.events.emit({ type: 'model_event', step: this.run.step, event });
  };
}

function userMessage<S extends State>(services: RunServices<S>, text: string, system: string | undefined): UserMessage {
  const { agent, model } = services;
  const tools: Record<string, boolean> = {};
  for (const name of agent.tools.names) tools[name] = true;
  return {
    role: 'user',
    info: {
      id: newId('msg'),
      role: 'user',
      time: { created: Date.now() },
      agent: agent.name,
      ...(model ? { model: model.id } : {}),
      ...(system ? { system } : {}),
      tools,
      ...(agent.variant ? { variant: agent.variant } : {}),
    },
    parts: [{ id: newId('prt'), type: 'text', text }],
  };
}

/** The assistant message of a reply: its retries, then step-start, text, reasoning and native tool calls (pending), step-finish. */
function assistantMessage<S extends State>(
  services: RunServices<S>,
  response: ModelResponse,
  created: number,
  listener: ReplyListener,
): AssistantMessage {
  const now = Date.now();
  const parts: Part[] = listener.retries.length
    ? [...listener.retries, { id: newId('prt'), type: 'step-start' }]
    : [{ id: newId('prt'), type: 'step-start' }];
  let r = 0;
  for (const p of response.parts) {
    if (p.type === 'text') parts.push({ id: newId('prt'), type: 'text', text: p.text });
    else if (p.type === 'reasoning') {
      const t = p.time ?? listener.reasoningTimes[r] ?? { start: created };
      r++;
      parts.push({
        id: newId('prt'),
        type: 'reasoning',
        text: p.text,
        ...(p.signature ? { signature: p.signature } : {}),
        ...(p.redacted ? { redacted: true } : {}),
        time: { start: t.start, end: t.end ?? now },
      });
    } else {
      parts.push({
        id: newId('prt'),
        type: 'tool',
        callID: p.callId,
        tool: p.name,
        origin: 'native',
        state: { status: 'pending', input: p.args ?? {}, raw: p.input, time: { created: now } },
      });
    }
  }
  parts.push({
    id: newId('prt'),
    type: 'step-finish',
    reason: response.finishReason,
    tokens: response.usage,
    cost: response.cost,
  });
  return {
    role: 'assistant',
    info: {
      id: newId('msg'),
      role: 'assistant',
      time: { created, completed: now },
      model: response.modelId ?? services.model?.id,
      tokens: response.usage,
      cost: response.cost,
      ...workspacePath(services.env),
      finish: response.finishReason,
    },
    parts,
  };
}

/**
 * Where the step's tool calls act (opencode's assistant `path`): the root of the env's file ops as the env sees it (a
 * container's path inside a sandbox), which is also where its commands run unless a call names another `cwd`.
 * None for an env without file ops.
 */
function workspacePath(env: Env): { path?: { cwd: string; root: string } } {
  const files = env.ops('file') as FileOps | undefined;
  return files?.root ? { path: { cwd: files.root, root: files.root } } : {};
}

/** Tool parts for the calls a text parser read from the reply, before its step-finish. */
function addParsedTools(message: AssistantMessage, decision: Extract<Decision, { mode: 'act' }>): void {
  const created = Date.now();
  const tools: ToolPart[] = decision.actions.map((a) => ({
    id: newId('prt'),
    type: 'tool',
    callID: a.id,
    tool: a.name,
    origin: 'parsed',
    state: { status: 'pending', input: a.args, time: { created } },
  }));
  message.parts.splice(message.parts.length - 1, 0, ...tools);
}

/** A reply the parser rejected runs none of its calls: each native call gets an error result, so the provider sees one per call. */
function failPendingTools(message: AssistantMessage, reason: string): void {
  const t = Date.now();
  for (const part of message.parts) {
    if (part.type !== 'tool' || part.state.status !== 'pending') continue;
    part.state = {
      status: 'error',
      input: part.state.input,
      error: `Not executed: ${reason}`,
      time: { created: part.state.time.created, start: t, end: t },
    };
  }
}
