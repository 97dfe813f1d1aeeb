import type { ActionResult, Decision, Parser, ResponsePart, State } from '../../../core/index.js';
import { ParseError, responseText } from '../../../core/index.js';
import type { AgentContext } from '../../../engine/agent-module.js';
import type { TauObservation } from '../tau-env.js';
import { tauTools } from '../tau-tools.js';
import { TauAgent, type TauAgentOptions } from './tau-agent.js';

/**
 * The parser of the original's `message_to_action`: the reply's FIRST tool call is the action (the others are
 * dropped, as `tool_calls[:1]` does), a reply without one is the `respond` action with the reply's text unchanged
 * (a `wait` whose rationale is the message).
 */
export function tauToolCallingParser(): Parser {
  return {
    name: 'tau-tool-calling',
    native: true,
    parse(response) {
      const call = response.parts.find((p) => p.type === 'tool-call');
      const text = responseText(response);
      if (call && call.type === 'tool-call') {
        if (!call.args)
          return new ParseError(
            `The arguments of your call to ${call.name} are not a JSON object: ${call.input.slice(0, 200)}`,
            call.input,
          );
        return {
          mode: 'act',
          actions: [{ id: call.callId, name: call.name, args: call.args }],
          ...(text ? { rationale: text } : {}),
        };
      }
      if (!response.parts.some((p) => p.type === 'text'))
        return new ParseError('Your reply has neither a tool call nor a message to the user.', '');
      return { mode: 'wait', rationale: text };
    },
    format(decision: Decision): ResponsePart[] {
      if (decision.mode === 'act') {
        const parts: ResponsePart[] = decision.rationale ? [{ type: 'text', text: decision.rationale }] : [];
        for (const a of decision.actions)
          parts.push({ type: 'tool-call', callId: a.id, name: a.name, input: JSON.stringify(a.args), args: a.args });
        return parts;
      }
      if (decision.mode === 'wait') return [{ type: 'text', text: decision.rationale ?? '' }];
      throw new Error(
        `the tau tool-calling parser has no ${decision.mode} decisions: a text reply is a message to the user`,
      );
    },
    instructions: () => '',
  };
}

/**
 * The original's `ToolCallingAgent` (tau-bench `tau_bench/agents/tool_calling_agent.py`, MIT, Copyright (c) 2024
 * Sierra): the system prompt is the domain's wiki and nothing else, the domain's tools go to the model as their
 * `get_info()` schemas, temperature 0, one action per reply. Messages: system (wiki), user (the customer), then per
 * step the assistant reply with its first tool call and the tool's observation, or the assistant's text and the
 * customer's answer as a user message.
 */
export class TauToolCallingAgent extends TauAgent {
  constructor(options: TauAgentOptions) {
    super({
      parser: tauToolCallingParser(),
      tools: tauTools(options.env.domain),
      ...options,
      config: { agent: 'tool-calling', ...options.config },
    });
  }

  override buildSystemPrompt(): string {
    return this.env.domain.wiki;
  }

  /** Drops the tool calls past the first from the reply in the history (the original keeps only the first). */
  override async reduce(
    state: State,
    observation: TauObservation,
    decision: Decision,
    results: ActionResult[],
    ctx: AgentContext,
  ): Promise<State> {
    const last = state.messages[state.messages.length - 1];
    if (decision.mode === 'act' && last?.role === 'assistant') {
      let seen = false;
      last.parts = last.parts.filter((p) => {
        if (p.type !== 'tool') return true;
        const keep = !seen;
        seen = true;
        return keep;
      });
    }
    return super.reduce(state, observation, decision, results, ctx);
  }
}
