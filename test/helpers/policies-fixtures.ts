import { z } from 'zod';
import {
  ModelError,
  baseState,
  defineTool,
  type AssistantMessage,
  type Message,
  type ModelRequest,
  type Policy,
  type PolicyContext,
  type State,
  type Tokens,
  type UserMessage,
} from '../../src/index.js';
import { newId } from '../../src/core/index.js';
import { type ScriptReply } from '../../src/models/index.js';

// The policy context and per-run instance are user-facing stand-ins: qitos-ts/testing (src/kit/testing).
export {
  policyContext as policyCtx,
  policyForRun as runOf,
  type CapturedEvent,
} from '../../src/kit/testing/policy-context.js';

export function stateWith(messages: Message[], task = 'do the thing'): State {
  return { ...baseState({ id: 't', objective: task }), messages };
}

export function userMsg(text: string, synthetic = false): UserMessage {
  return {
    role: 'user',
    info: { id: newId('msg'), role: 'user', time: { created: 1 } },
    parts: [{ id: newId('prt'), type: 'text', text, ...(synthetic ? { synthetic: true } : {}) }],
  };
}

const zero: Tokens = { input: 0, output: 0, reasoning: 0, cache: { read: 0, write: 0 } };

/** An assistant message with text and native tool calls that completed with the given outputs. */
export function assistantMsg(
  text: string,
  calls: Array<{ tool: string; args?: Record<string, unknown>; output: string; compacted?: boolean }> = [],
): AssistantMessage {
  return {
    role: 'assistant',
    info: { id: newId('msg'), role: 'assistant', time: { created: 1, completed: 2 }, tokens: zero, cost: 0 },
    parts: [
      { id: newId('prt'), type: 'step-start' },
      ...(text ? [{ id: newId('prt'), type: 'text' as const, text }] : []),
      ...calls.map((c) => ({
        id: newId('prt'),
        type: 'tool' as const,
        callID: newId('call'),
        tool: c.tool,
        origin: 'native' as const,
        state: {
          status: 'completed' as const,
          input: c.args ?? {},
          output: c.output,
          time: { created: 1, start: 1, end: 2, ...(c.compacted ? { compacted: 3 } : {}) },
        },
      })),
      { id: newId('prt'), type: 'step-finish', reason: 'tool-calls', tokens: zero, cost: 0 },
    ],
  };
}

/** Runs a policy's start, then returns it (for direct calls). */
export function started<P extends Policy>(policy: P, ctx: PolicyContext): P {
  policy.start?.(ctx);
  return policy;
}

/** Characters of a request as a provider would count them (all text, args and outputs). */
export function requestChars(req: ModelRequest): number {
  let n = 0;
  for (const m of req.messages) {
    if (typeof m.content === 'string') n += m.content.length;
    else
      for (const p of m.content)
        n +=
          'text' in p
            ? p.text.length
            : 'output' in p
              ? p.output.length + p.name.length
              : 'args' in p
                ? JSON.stringify(p.args).length + p.name.length
                : 0;
  }
  return n;
}

/**
 * A scripted reply that behaves like a provider with a context window: it rejects a request over the window with
 * a ModelError('context_overflow') and otherwise reports the request's size (chars/4) as input tokens.
 */
export function providerReply(
  window: number,
  reply: Exclude<ScriptReply, string | ((...a: never[]) => unknown)> | string,
): ScriptReply {
  return (req: ModelRequest) => {
    const input = Math.ceil(requestChars(req) / 4);
    if (input > window)
      return {
        error: new ModelError('context_overflow', `prompt is too long: ${input} tokens > ${window} maximum`, 400),
      };
    const r = typeof reply === 'string' ? { text: reply } : reply;
    return { ...r, usage: { input, ...r.usage } };
  };
}

/** A tool that returns a payload of `size` characters (deterministic per call). */
export const bigTool = defineTool({
  id: 'big',
  description: 'returns a big output',
  parameters: z.object({ n: z.number(), size: z.number() }),
  execute: ({ n, size }) => `result ${n}: ` + 'x'.repeat(size),
});

/** A tool whose output is what it was given (for loop tests). */
export const echoTool = defineTool({
  id: 'echo',
  description: 'echoes its text',
  parameters: z.object({ text: z.string() }).passthrough(),
  execute: ({ text }) => text,
});

export const readTool = defineTool({
  id: 'read',
  description: 'reads',
  parameters: z.object({ path: z.string() }),
  execute: ({ path }) => `content of ${path}`,
});
export const editTool = defineTool({
  id: 'edit',
  description: 'edits',
  parameters: z.object({ path: z.string() }).passthrough(),
  execute: () => 'edited',
});
