import type { Action, Decision, Parser, ResponsePart, ToolSpec } from '../../core/index.js';
import { MAX_JSON_DEPTH, ParseError, errorMessage, nestsDeeperThan, responseText } from '../../core/index.js';

/** Options of the native (function-calling) parser. */
export interface NativeParserOptions {
  /**
   * What a reply with text and no tool call means: the final answer (default), or `wait` (the agent keeps
   * going; e.g. a chat agent whose final answer comes through a tool).
   */
  textMeans?: 'final' | 'wait';
}

/**
 * Reads native function calling: the model's `tool-call` parts become actions directly, with the provider's
 * call id as the action id (the engine matches tool parts and results by it). Text alongside tool calls is
 * the rationale. A reply without tool calls is a final answer or a wait, per `textMeans`; reasoning is the
 * rationale of a final answer. A call whose arguments are not a JSON object is a ParseError naming the tool.
 */
export function nativeParser(options: NativeParserOptions = {}): Parser {
  const textMeans = options.textMeans ?? 'final';
  return {
    name: 'native',
    native: true,
    parse(response) {
      const text = responseText(response).trim();
      const reasoning = response.parts
        .filter((p) => p.type === 'reasoning')
        .map((p) => p.text)
        .join('\n')
        .trim();
      const actions: Action[] = [];
      for (const p of response.parts) {
        if (p.type !== 'tool-call') continue;
        if (!p.args) {
          return new ParseError(
            `The arguments of your call to ${p.name} are not a valid JSON ` +
              `object: ${jsonProblem(p.input)}. Call ${p.name} again with its arguments as one JSON ` +
              `object that matches its schema.`,
            p.input,
          );
        }
        actions.push({ id: p.callId, name: p.name, args: p.args });
      }
      if (actions.length) {
        const rationale = text || reasoning;
        return { mode: 'act', actions, ...(rationale ? { rationale } : {}) };
      }
      if (textMeans === 'wait') return { mode: 'wait', ...(text ? { rationale: text } : {}) };
      if (!text)
        return new ParseError(
          'Your reply has no tool call and no text. Call one of the tools, or, when you are done, reply with the final answer as text.',
          '',
        );
      return { mode: 'final', answer: text, ...(reasoning ? { rationale: reasoning } : {}) };
    },

    format(decision: Decision): ResponsePart[] {
      if (decision.mode === 'act') {
        const parts: ResponsePart[] = decision.rationale ? [{ type: 'text', text: decision.rationale }] : [];
        for (const a of decision.actions)
          parts.push({ type: 'tool-call', callId: a.id, name: a.name, input: JSON.stringify(a.args), args: a.args });
        return parts;
      }
      if (decision.mode === 'final') {
        if (textMeans === 'wait')
          throw new Error(
            'with textMeans "wait", a reply without tool calls is a wait: a final answer cannot be expressed',
          );
        const parts: ResponsePart[] = decision.rationale ? [{ type: 'reasoning', text: decision.rationale }] : [];
        parts.push({ type: 'text', text: decision.answer });
        return parts;
      }
      if (decision.mode === 'wait') {
        if (textMeans === 'final')
          throw new Error(
            'with textMeans "final", a reply without tool calls is a final answer: a wait cannot be expressed',
          );
        return [{ type: 'text', text: decision.rationale ?? '' }];
      }
      throw new Error('native function calling has no branch decisions');
    },

    instructions(tools: readonly ToolSpec[]): string {
      const names = tools.map((t) => t.name).join(', ');
      return [
        `Use the tools (${names || 'none'}) through function calling when you need them; you may ` +
          `call several at once when they do not depend on each other.`,
        textMeans === 'final'
          ? 'When you are done, reply with the final answer as plain text and no tool call.'
          : 'Text without a tool call is shown to the user; the run goes on until you finish through a tool.',
      ].join('\n');
    },
  };
}

/** What is wrong with a tool call's raw argument text. */
function jsonProblem(input: string): string {
  if (!input.trim()) return 'the arguments are empty (send {} for a call without arguments)';
  try {
    const v: unknown = JSON.parse(input);
    if (Array.isArray(v)) return 'the arguments are a JSON array, not an object';
    if (v === null || typeof v !== 'object') return `the arguments are ${JSON.stringify(v)}, not an object`;
    if (nestsDeeperThan(v)) return `the arguments nest deeper than ${MAX_JSON_DEPTH} levels`;
    return 'the arguments could not be read';
  } catch (err) {
    return `${errorMessage(err)} (you sent: ${input.length > 120 ? `${input.slice(0, 120)}…` : input})`;
  }
}
